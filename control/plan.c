/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plan (plan.h): built from the config, checked, and summarised for
 * --check.
 */
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "place.h"
#include "plan.h"

/*
 * OFAR's tree escape ([OC] §III-B): laid from G_root, checked, and its
 * escape channels' dependency graph checked for cycles (up-down routing
 * is what makes it deadlock-free, and the check proves it for this very
 * wiring).
 */
static int tree_plan(struct df_plan *pl, char *err, size_t errlen)
{
	const struct df_config *c = &pl->cfg;
	char why[400];

	if (df_tree_build(&pl->tree, &pl->topo, NULL, c->tree_root, why,
			  sizeof(why)) ||
	    df_tree_check(&pl->tree, &pl->topo, NULL, why, sizeof(why)) ||
	    df_tree_cdg_check(&pl->tree, &pl->tb, &pl->tree_cdg, why,
			      sizeof(why))) {
		snprintf(err, errlen, "%s: [routing] escape_net = tree: %s",
			 df_config_origin(c, "routing", "escape_net"), why);
		return -1;
	}
	return 0;
}

/*
 * OFAR's escape subnetwork, ring or tree, and the buffer sizes its bubble
 * flow control needs ([OC] §III-A: entering the escape needs room for two
 * packets in the next escape buffer; BCM needs 1 + bubble packets in a
 * canonical one, §IV). The tree keeps the ring's entry rule: its own
 * deadlock freedom needs no bubble, but the same rules make the two
 * escapes differ in their shape only.
 */
static int escape_plan(struct df_plan *pl, char *err, size_t errlen)
{
	const struct df_config *c = &pl->cfg;
	uint32_t flits = (c->packet_bytes + c->flit_bytes - 1) / c->flit_bytes;

	if (c->escape_net == DF_ESC_TREE
		    ? tree_plan(pl, err, errlen)
		    : df_ring_build(&pl->ring, &pl->topo, err, errlen))
		return -1;
	for (int k = DF_LINK_LOCAL; k <= DF_LINK_GLOBAL; k++) {
		uint32_t have = c->link[k].buffer_flits;
		uint32_t need = 2 * flits;
		const char *why = "the escape's bubble rule needs room for "
				  "2 packets";
		char key[32];

		if (c->cm == DF_CM_BCM && (1 + c->bcm_bubble) * flits > need) {
			need = (1 + c->bcm_bubble) * flits;
			why = "BCM needs room for 1 packet + bcm_bubble";
		}
		if (have >= need)
			continue;
		snprintf(key, sizeof(key), "%s_buffer_flits",
			 df_link_class_name(k));
		snprintf(err, errlen,
			 "%s: [links] %s = %u is too small for [routing] "
			 "algorithm = ofar: %s of %u flits (packet_bytes %u / "
			 "flit_bytes %u); allowed: %u or more",
			 df_config_origin(c, "links", key), key, have, why,
			 flits, c->packet_bytes, c->flit_bytes, need);
		return -1;
	}
	return 0;
}

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
	if (df_alg_info(cfg->algorithm)->shortest_tables &&
	    df_tables_shortest(&pl->tb, &pl->topo, err, errlen))
		goto fail;
	if (df_vcplan_build(&pl->tb, cfg, &pl->vci, err, errlen))
		goto fail;
	if (pl->tb.esc && escape_plan(pl, err, errlen))
		goto fail;
	if (df_faults_parse_events(cfg, &pl->topo, pl->events, &pl->nevents,
				   err, errlen))
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
	nw = df_place(pl->topo.nrouters, pl->topo.a,
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
	df_ring_free(&pl->ring);
	df_tree_free(&pl->tree);
	free(pl->worker_of);
	pl->worker_of = NULL;
}

static void tree_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_tree *tr = &pl->tree;

	fprintf(f,
		"\n  VCs          %u/%u(+1): canonical VCs fully adaptive, "
		"one escape VC, used on the tree's links (every link has "
		"its buffer: a link failure lays the tree again)\n",
		pl->tb.nvcs[DF_LINK_LOCAL], pl->tb.nvcs[DF_LINK_GLOBAL]);
	fprintf(f,
		"  escape tree  %u routers, root r%u (group %u), %u levels "
		"below it, %u of its %u edges global, up-down routing; "
		"packets stay after %u entries\n",
		tr->n, tr->root, tr->root_group, tr->height, tr->global_edges,
		tr->n - 1, pl->cfg.escape_cap);
	fprintf(f,
		"  deadlock     checked: the tree spans every router over "
		"existing links; its escape channels' dependency graph "
		"(%llu channels, %llu dependencies) is acyclic ([OC] "
		"§III-B); entry needs room for 2 packets, as the ring's\n",
		(unsigned long long)pl->tree_cdg.channels,
		(unsigned long long)pl->tree_cdg.dependencies);
}

static void ofar_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_config *c = &pl->cfg;
	const struct df_ring *ring = &pl->ring;

	fprintf(f,
		"  routing      ofar: in-transit adaptive, misroute when the "
		"minimal port is blocked and %.0f %% full, to a port at most "
		"%.2f x as full (occupancy: %s; %s, %s), cm %s",
		c->misroute_trigger * 100, c->misroute_threshold,
		df_mis_occ_name(c->misroute_occupancy),
		df_mis_policy_name(c->misroute_policy),
		df_mis_pick_name(c->misroute_pick), df_cm_name(c->cm));
	if (c->cm == DF_CM_BCM)
		fprintf(f, " (bubble %u packets)", c->bcm_bubble);
	else if (c->cm == DF_CM_ECM)
		fprintf(f, " (threshold %.2f)", c->ecm_threshold);
	if (c->escape_net == DF_ESC_TREE) {
		tree_summary(pl, f);
		return;
	}
	fprintf(f,
		"\n  VCs          %u/%u(+1): canonical VCs fully adaptive, "
		"one escape VC, used on the ring's links (every link has "
		"its buffer: a link failure lays the ring again)\n",
		pl->tb.nvcs[DF_LINK_LOCAL], pl->tb.nvcs[DF_LINK_GLOBAL]);
	char order[48];

	if (ring->step)
		snprintf(order, sizeof(order), "groups in order G -> G+%u",
			 ring->step);
	else
		snprintf(order, sizeof(order), "group order found by search");
	fprintf(f,
		"  escape ring  %u routers, %s, %s, starts r%u r%u r%u ...; "
		"packets stay after %u entries\n",
		ring->n, c->ring == DF_RING_BI ? "bidirectional" : "one way",
		order, ring->order[0], ring->order[1 % ring->n],
		ring->order[2 % ring->n], c->escape_cap);
	fprintf(f, "  deadlock     checked: the ring visits every router once "
		   "over existing links; bubble flow control ([OC] §III-A) "
		   "with buffers of at least 2 packets\n");
}

int df_plan_crosses(const struct df_plan *pl, uint32_t a, uint32_t b)
{
	return df_part_local(&pl->cfg, a) && df_part_local(&pl->cfg, b) &&
	       pl->worker_of[a] != pl->worker_of[b];
}

/* Router-to-router links (each counted once), and how many of them have
 * their two ends on two workers. */
static uint32_t links_crossing(const struct df_plan *pl, uint32_t *all)
{
	const struct df_topo *t = &pl->topo;
	uint32_t n = 0;

	*all = 0;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls == DF_LINK_TERMINAL || pi->peer <= r ||
			    pi->peer == DF_NO_PEER)
				continue;
			(*all)++;
			n += df_plan_crosses(pl, r, pi->peer);
		}
	return n;
}

/* [partition]: this instance's groups and the global links that cross
 * to each other instance. */
static void partition_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_config *c = &pl->cfg;
	const struct df_topo *t = &pl->topo;
	uint32_t me = c->instance, cross[DF_MAX_INST] = {0};

	for (uint32_t r = 0; r < t->nrouters; r++) {
		if (!df_part_local(c, r))
			continue;
		for (uint32_t k = t->p; k < t->nports; k++) {
			uint32_t q = t->ports[r * t->nports + k].peer;
			if (q != DF_NO_PEER && !df_part_local(c, q))
				cross[df_part_of_group(c, q / t->a)]++;
		}
	}
	fprintf(f, "  partition    instance %u of %u: groups %u-%u", me,
		c->ninst, c->inst_lo[me], c->inst_hi[me]);
	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != me)
			fprintf(f, "; %u global links to instance %u over %.*s",
				cross[j], j,
				(int)strcspn(c->peer_vdev[me][j], ","),
				c->peer_vdev[me][j]);
	fprintf(f, "\n");
}

/* A table-routed algorithm: its paths, the VCs each phase takes on each
 * link class, the deadlock check. */
static void tables_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_config *c = &pl->cfg;
	static const char *const ph[DF_NPHASE] = {
		"provisional-minimal", "to-intermediate", "to-destination",
		"in-destination"};

	fprintf(f,
		"  routing      %s: %llu paths, longest %u hops (%u global)\n",
		df_algorithm_name(c->algorithm),
		(unsigned long long)pl->vci.paths, pl->vci.max_hops,
		pl->vci.max_global);
	if (df_alg_info(c->algorithm)->shortest_tables)
		fprintf(f,
			"  shortest     %llu of %llu router pairs take a short "
			"Valiant path (gg, ggl, lgg, glg), the rest their HM "
			"path; checked as VAL, whose paths include them\n",
			(unsigned long long)pl->tb.short_pairs,
			(unsigned long long)pl->topo.nrouters *
				(pl->topo.nrouters - 1));
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		fprintf(f, "  VCs %-8s %u:", df_link_class_name(k),
			pl->tb.nvcs[k]);
		if (k == DF_LINK_TERMINAL) {
			fprintf(f, " vc0 all\n");
			continue;
		}
		if (df_alg_flatfly_only(c->algorithm)) {
			fprintf(f, " %s\n",
				df_alg_info(c->algorithm)->paths ==
						DF_PATHS_HOPS_MIN
					? "vc = n-1 - hops remaining"
					: "minimal: vc = n-1 - hops remaining; "
					  "via an intermediate: vc = hops "
					  "taken");
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
}

void df_plan_summary(const struct df_plan *pl, FILE *f)
{
	const struct df_config *c = &pl->cfg;
	const struct df_topo *t = &pl->topo;
	uint32_t kmin = c->g > 1 ? c->a * c->h / (c->g - 1) : 0;
	uint32_t kmax = c->g > 1 ? kmin + (c->a * c->h % (c->g - 1) != 0) : 0;

	fprintf(f, "dfemu plan for %s\n", c->path);
	if (c->type == DF_TOPO_FLATFLY)
		fprintf(f,
			"  topology     flattened butterfly, %u-ary %u-flat: "
			"%u terminals per router, dimension 1 = local links, "
			"dimensions 2..%u = global links\n",
			c->k, c->n, c->p, c->n - 1);
	else
		fprintf(f,
			"  topology     p=%u a=%u h=%u g=%u arrangement=%s\n",
			c->p, c->a, c->h, c->g,
			df_arrangement_name(c->arrangement));
	fprintf(f, "  size         %u routers (radix %u), %u terminals\n",
		t->nrouters, t->nports, t->nterms);
	fprintf(f, "  links        %u terminal, %u local, %u global (",
		df_topo_count_links(t, DF_LINK_TERMINAL),
		df_topo_count_links(t, DF_LINK_LOCAL),
		df_topo_count_links(t, DF_LINK_GLOBAL));
	if (c->type == DF_TOPO_FLATFLY)
		fprintf(f, "%u per router and dimension", c->k - 1);
	else if (kmin == kmax)
		fprintf(f, "%u per group pair", kmin);
	else
		fprintf(f, "%u or %u per group pair", kmin, kmax);
	if ((uint64_t)c->g * c->a * c->h % 2)
		fprintf(f, "; g*a*h is odd: one global port of group %u unused",
			c->g - 1);
	fprintf(f, ")\n");
	fprintf(f, "  wiring       checked: every port used once, symmetric\n");
	if (pl->tb.esc)
		ofar_summary(pl, f);
	else
		tables_summary(pl, f);
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
	if (pl->nworkers > 1 && c->ninst <= 1) {
		uint32_t all, cross = links_crossing(pl, &all);
		fprintf(f, "; %u of %u router links cross workers", cross, all);
	}
	fprintf(f, "%s\n",
		c->ninst > 1 ? " (this instance's routers run)" : "");
	if (c->ninst > 1)
		partition_summary(pl, f);
}
