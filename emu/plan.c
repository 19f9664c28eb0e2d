/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "emu.h"

int df_plan_build(struct df_plan *pl, const struct df_config *cfg,
		  uint32_t nworkers_avail, char *err, size_t errlen)
{
	int nw;

	memset(pl, 0, sizeof(*pl));
	pl->cfg = *cfg;
	if (df_topo_build(&pl->topo, cfg, err, errlen))
		goto fail;
	if (df_tables_build(&pl->tb, &pl->topo, err, errlen))
		goto fail;
	if (df_vcplan_build(&pl->tb, cfg, &pl->vci, err, errlen))
		goto fail;
	pl->worker_of = calloc(pl->topo.nrouters, sizeof(*pl->worker_of));
	if (pl->worker_of == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (cfg->workers && cfg->workers > nworkers_avail) {
		snprintf(err, errlen,
			 "%s: [run] workers = %u but only %u worker lcores are "
			 "available; allowed: 0 (auto) or 1..%u (give EAL "
			 "more lcores, e.g. --eal --lcores='(0-%u)@(0,1)')",
			 df_config_origin(cfg, "run", "workers"), cfg->workers,
			 nworkers_avail, nworkers_avail, cfg->workers);
		goto fail;
	}
	nw = df_place(pl->topo.nrouters,
		      cfg->workers ? cfg->workers : nworkers_avail,
		      cfg->routers_per_lcore, pl->worker_of, err, errlen);
	if (nw < 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s",
			 df_config_origin(cfg, "run", "routers_per_lcore"),
			 msg);
		goto fail;
	}
	pl->nworkers = nw;
	return 0;
fail:
	df_plan_free(pl);
	return -1;
}

void df_plan_free(struct df_plan *pl)
{
	df_topo_free(&pl->topo);
	df_tables_free(&pl->tb);
	free(pl->worker_of);
	pl->worker_of = NULL;
}

void df_plan_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_config *c = &pl->cfg;
	const struct df_topo *t = &pl->topo;
	uint32_t kmin = c->a * c->h / (c->g - 1);
	uint32_t kmax = kmin + (c->a * c->h % (c->g - 1) != 0);
	static const char *const ph[DF_NPHASE] = {
		"provisional-minimal", "to-intermediate", "to-destination",
		"in-destination"};

	fprintf(f, "dfemu plan for %s\n", c->path);
	fprintf(f, "  topology     p=%u a=%u h=%u g=%u arrangement=%s\n", c->p,
		c->a, c->h, c->g, df_arrangement_name(c->arrangement));
	fprintf(f, "  size         %u routers (radix %u), %u terminals\n",
		t->nrouters, t->nports, t->nterms);
	fprintf(f, "  links        %u terminal, %u local, %u global (",
		df_topo_count_links(t, DF_LINK_TERMINAL),
		df_topo_count_links(t, DF_LINK_LOCAL),
		df_topo_count_links(t, DF_LINK_GLOBAL));
	if (kmin == kmax)
		fprintf(f, "%u per group pair", kmin);
	else
		fprintf(f, "%u or %u per group pair", kmin, kmax);
	if ((uint64_t)c->g * c->a * c->h % 2)
		fprintf(f, "; g*a*h is odd: one global port of group %u unused",
			c->g - 1);
	fprintf(f, ")\n");
	fprintf(f, "  wiring       checked: every port used once, symmetric\n");
	fprintf(f,
		"  routing      %s: %llu paths, longest %u hops (%u global)\n",
		df_algorithm_name(c->algorithm),
		(unsigned long long)pl->vci.paths, pl->vci.max_hops,
		pl->vci.max_global);
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		fprintf(f, "  VCs %-8s %u:", df_link_class_name(k),
			pl->tb.nvcs[k]);
		if (k == DF_LINK_TERMINAL) {
			fprintf(f, " vc0 all\n");
			continue;
		}
		/* only the phases the algorithm's paths use on this class */
		for (int p = 0; p < DF_NPHASE; p++)
			if (pl->tb.phase_used[k][p])
				fprintf(f, " %s->vc%u", ph[p],
					pl->tb.vc_map[k][p]);
		fprintf(f, "\n");
	}
	fprintf(f,
		"  deadlock     channel-dependency graph acyclic (%llu "
		"channels, "
		"%llu dependencies)\n",
		(unsigned long long)pl->vci.channels,
		(unsigned long long)pl->vci.dependencies);
	fprintf(f, "  placement    %u worker lcore(s):", pl->nworkers);
	for (uint32_t w = 0; w < pl->nworkers; w++) {
		uint32_t lo = UINT32_MAX, hi = 0;
		for (uint32_t r = 0; r < t->nrouters; r++)
			if (pl->worker_of[r] == w) {
				if (r < lo)
					lo = r;
				hi = r;
			}
		fprintf(f, " w%u=r%u-r%u", w, lo, hi);
	}
	fprintf(f, "\n");
}
