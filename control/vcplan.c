/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VC plans and the deadlock check. A routing deadlock needs a cycle in the
 * channel-dependency graph (Dally and Seitz; [DF] §4.1 cites [7]): nodes
 * are (directed link, VC) channels, an edge a->b means some packet holds a
 * and waits for b. We enumerate every path the algorithm can produce with
 * the dataplane's own df_next_hop() and refuse a plan whose graph has a
 * cycle. Terminal channels cannot be on a cycle (sources and sinks) and are
 * left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcplan.h"

#define MAX_HOPS 16

typedef void (*path_fn)(void *arg, const uint32_t *routers,
			const uint8_t *ports, const uint8_t *vcs, int n);

struct walk {
	const struct df_tables *tb;
	path_fn fn;
	void *arg;
	struct df_vcplan_info *info;
	uint32_t routers[MAX_HOPS];
	uint8_t ports[MAX_HOPS], vcs[MAX_HOPS];
};

static void emit(struct walk *w, int n)
{
	const struct df_tables *tb = w->tb;
	uint32_t ng = 0;

	for (int k = 0; k < n; k++)
		ng += tb->port_class[w->ports[k]] == DF_LINK_GLOBAL;
	if (w->info) {
		w->info->paths++;
		if ((uint32_t)n > w->info->max_hops)
			w->info->max_hops = n;
		if (ng > w->info->max_global)
			w->info->max_global = ng;
	}
	w->fn(w->arg, w->routers, w->ports, w->vcs, n);
}

/* Hops [at, ...) of one path: from routers[at] to dst through inter,
 * starting in phase; hops before at are already in the walk. */
static int walk_path(struct walk *w, int at, uint32_t dst, uint32_t inter,
		     uint8_t phase, char *err, size_t errlen)
{
	const struct df_tables *tb = w->tb;
	uint32_t src = w->routers[at];
	int n = df_path(tb, src, dst, inter, phase, w->routers + at,
			w->ports + at, w->vcs + at, MAX_HOPS - at);

	if (n < 0) {
		snprintf(err, errlen,
			 "routing tables loop: router %u to %u via group %u "
			 "never arrives",
			 src, dst, inter);
		return -1;
	}
	emit(w, n + at);
	return 0;
}

/*
 * PAR: the provisional minimal path from s, and at every router it reaches
 * by a provisional (DF_PH_SRC_MIN) hop, a switch to the Valiant path
 * through each group (the decision of par.c; with these tables that is the
 * router holding the minimal global link, one local hop from s).
 */
static int par_paths(struct walk *w, uint32_t s, uint32_t d, char *err,
		     size_t errlen)
{
	const struct df_tables *tb = w->tb;
	uint32_t routers[MAX_HOPS];
	uint8_t ports[MAX_HOPS], vcs[MAX_HOPS];
	int n;

	w->routers[0] = s;
	if (walk_path(w, 0, d, DF_NO_GROUP, DF_PH_SRC_MIN, err, errlen))
		return -1;
	n = df_path(tb, s, d, DF_NO_GROUP, DF_PH_SRC_MIN, routers, ports, vcs,
		    MAX_HOPS);
	/* provisional hops: local ones inside the source group, toward
	 * another group (df_next_hop keeps DF_PH_SRC_MIN just for those) */
	for (int j = 1; j < n && d / tb->a != s / tb->a &&
			tb->port_class[ports[j - 1]] == DF_LINK_LOCAL &&
			routers[j] / tb->a == s / tb->a;
	     j++)
		for (uint32_t gi = 0; gi < tb->g; gi++) {
			memcpy(w->routers, routers, j * sizeof(*routers));
			memcpy(w->ports, ports, j);
			memcpy(w->vcs, vcs, j);
			w->routers[j] = routers[j];
			if (walk_path(w, j, d, gi, DF_PH_TO_INTER, err, errlen))
				return -1;
		}
	return 0;
}

/* MIN AD ([FB] §3.1): every minimal path from w->routers[at] to d, the
 * productive dimensions in any order (j! of them), VCs by hops remaining
 * as fbfly.c assigns them. */
static void fb_min_paths(struct walk *w, int at, uint32_t d)
{
	const struct df_tables *tb = w->tb;
	uint32_t cur = w->routers[at], rem = fb_dist(tb, cur, d);

	if (rem == 0 || at + 1 >= MAX_HOPS) {
		emit(w, at);
		return;
	}
	for (uint32_t dim = 1; dim <= tb->ndim; dim++) {
		uint32_t m = fb_digit(tb, d, dim), c = fb_digit(tb, cur, dim);
		if (m == c)
			continue;
		w->ports[at] = (uint8_t)fb_port(tb, cur, dim, m);
		w->vcs[at] = fb_vc(tb, at, rem, 0);
		w->routers[at + 1] = cur + (m - c) * tb->kpow[dim - 1];
		fb_min_paths(w, at + 1, d);
	}
}

/* The Valiant phase of UGAL, UGAL-S and CLOS AD: dimension order to an
 * intermediate router x and from x to d, VC = hops taken. CLOS AD's
 * intermediates, built hop by hop in rising dimension, are among these
 * x, and so are its paths. */
static int fb_val_path(struct walk *w, uint32_t s, uint32_t x, uint32_t d)
{
	const struct df_tables *tb = w->tb;
	uint32_t cur = s, target = x;
	int n = 0;

	w->routers[0] = s;
	for (int ph = 0; ph < 2; ph++, target = d)
		while (cur != target) {
			uint32_t port =
				tb->port_to_router[cur * tb->nrouters + target];
			if (n + 1 >= MAX_HOPS)
				return -1;
			w->ports[n] = (uint8_t)port;
			w->vcs[n] = fb_vc(tb, n, 0, 1);
			cur = tb->peer_router[cur * tb->nports + port];
			w->routers[++n] = cur;
		}
	emit(w, n);
	return 0;
}

/* [FB] §3.1's adaptive algorithms: VCs indexed by the hop */
static int hop_paths(enum df_path_kind p)
{
	return p == DF_PATHS_HOPS_MIN || p == DF_PATHS_HOPS_VAL;
}

static int fb_adaptive_paths(struct walk *w, enum df_path_kind paths, char *err,
			     size_t errlen)
{
	const struct df_tables *tb = w->tb;

	for (uint32_t s = 0; s < tb->nrouters; s++)
		for (uint32_t d = 0; d < tb->nrouters; d++) {
			w->routers[0] = s;
			fb_min_paths(w, 0, d);
			if (paths == DF_PATHS_HOPS_MIN)
				continue;
			for (uint32_t x = 0; x < tb->nrouters; x++)
				if (x != s && x != d &&
				    fb_val_path(w, s, x, d)) {
					snprintf(err, errlen,
						 "routing tables loop: router "
						 "%u to %u via router %u never "
						 "arrives",
						 s, d, x);
					return -1;
				}
		}
	return 0;
}

/* Every path of the algorithm: MIN src->dst; VAL and the UGAL family
 * src->Gi->dst for all Gi (Gi may be the source or destination group,
 * which is the minimal path, [DF] §4.1 steps); PAR also its in-transit
 * switches. */
static int for_each_path(const struct df_tables *tb, enum df_algorithm alg,
			 path_fn fn, void *arg, struct df_vcplan_info *info,
			 char *err, size_t errlen)
{
	struct walk w = {.tb = tb, .fn = fn, .arg = arg, .info = info};
	enum df_path_kind paths = df_alg_info(alg)->paths;
	int nonmin = df_alg_nonminimal(alg);
	/* VAL's intermediate: a group, or in a flattened butterfly a
	 * router ([FB] §3.1) */
	uint32_t ninter = tb->flatfly ? tb->nrouters : tb->g;

	if (hop_paths(paths))
		return fb_adaptive_paths(&w, paths, err, errlen);

	for (uint32_t s = 0; s < tb->nrouters; s++)
		for (uint32_t d = 0; d < tb->nrouters; d++) {
			for (uint32_t gi = 0; gi < (nonmin ? ninter : 1);
			     gi++) {
				w.routers[0] = s;
				if (walk_path(&w, 0, d,
					      nonmin ? gi : DF_NO_GROUP,
					      nonmin ? DF_PH_TO_INTER
						     : DF_PH_TO_DEST,
					      err, errlen))
					return -1;
			}
			if (paths == DF_PATHS_PAR &&
			    par_paths(&w, s, d, err, errlen))
				return -1;
		}
	return 0;
}

struct used {
	const struct df_tables *tb;
	uint8_t used[DF_LINK_NCLASS][DF_NPHASE];
};

static void mark_used(void *arg, const uint32_t *routers, const uint8_t *ports,
		      const uint8_t *vcs, int n)
{
	struct used *u = arg;

	(void)routers;
	for (int k = 0; k < n; k++)
		u->used[u->tb->port_class[ports[k]]][vcs[k]] = 1;
}

struct cdg {
	const struct df_tables *tb;
	uint64_t *edges;
	size_t n, cap;
	int oom;
};

static void add_deps(void *arg, const uint32_t *routers, const uint8_t *ports,
		     const uint8_t *vcs, int n)
{
	struct cdg *c = arg;

	for (int k = 0; k + 1 < n; k++) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4096;
			uint64_t *e = realloc(c->edges, cap * sizeof(*e));
			if (e == NULL) {
				c->oom = 1;
				return;
			}
			c->edges = e;
			c->cap = cap;
		}
		uint64_t a = df_chan_id(c->tb, routers[k], ports[k], vcs[k]);
		uint64_t b = df_chan_id(c->tb, routers[k + 1], ports[k + 1],
					vcs[k + 1]);
		c->edges[c->n++] = a << 32 | b;
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void describe(const struct df_tables *tb, uint32_t ch, char *buf,
		     size_t n)
{
	uint32_t vc = ch % DF_MAX_VC, link = ch / DF_MAX_VC;
	uint32_t r = link / tb->nports, port = link % tb->nports;

	snprintf(buf, n, "r%u.p%u(%s) vc%u", r, port,
		 df_link_class_name(tb->port_class[port]), vc);
}

/* Iterative DFS over a CSR graph; on a cycle, describe a few channels. */
static int find_cycle(const struct df_tables *tb, uint32_t nch,
		      const uint32_t *off, const uint32_t *dst, char *err,
		      size_t errlen)
{
	uint8_t *color = calloc(nch, 1);
	uint32_t *stack = malloc(nch * sizeof(*stack));
	uint32_t *it = malloc(nch * sizeof(*it));
	int rc = 0;

	if (!color || !stack || !it) {
		snprintf(err, errlen, "out of memory in the deadlock check");
		rc = -1;
		goto out;
	}
	for (uint32_t s = 0; s < nch && rc == 0; s++) {
		int sp = 0;

		if (color[s] || off[s] == off[s + 1])
			continue;
		stack[sp++] = s;
		color[s] = 1;
		it[s] = off[s];
		while (sp > 0 && rc == 0) {
			uint32_t v = stack[sp - 1];
			if (it[v] == off[v + 1]) {
				color[v] = 2;
				sp--;
				continue;
			}
			uint32_t w = dst[it[v]++];
			if (color[w] == 1) {
				char a[64], b[64];
				describe(tb, v, a, sizeof(a));
				describe(tb, w, b, sizeof(b));
				snprintf(err, errlen,
					 "deadlock check: the VC plan has a "
					 "channel-dependency cycle (%d "
					 "channels deep on the search path), "
					 "closed by %s -> %s",
					 sp, a, b);
				rc = -1;
			} else if (color[w] == 0) {
				color[w] = 1;
				it[w] = off[w];
				stack[sp++] = w;
			}
		}
	}
out:
	free(color);
	free(stack);
	free(it);
	return rc;
}

int df_cdg_check(const struct df_tables *tb, uint64_t *edges, size_t n,
		 struct df_vcplan_info *info, char *err, size_t errlen)
{
	uint32_t nch = tb->nrouters * tb->nports * DF_MAX_VC;
	uint32_t *off = NULL, *dst = NULL;
	uint8_t *seen = NULL;
	size_t u = 0;
	int rc = -1;

	if (n)
		qsort(edges, n, sizeof(*edges), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || edges[i] != edges[u - 1])
			edges[u++] = edges[i];
	off = calloc(nch + 1, sizeof(*off));
	dst = malloc((u ? u : 1) * sizeof(*dst));
	seen = calloc(nch, 1);
	if (!off || !dst || !seen) {
		snprintf(err, errlen, "out of memory in the deadlock check");
		goto out;
	}
	for (size_t i = 0; i < u; i++) {
		uint32_t a = edges[i] >> 32, b = (uint32_t)edges[i];
		off[a + 1]++;
		dst[i] = b;
		seen[a] = seen[b] = 1;
	}
	for (uint32_t i = 0; i < nch; i++)
		off[i + 1] += off[i];
	if (info) {
		info->dependencies = u;
		info->channels = 0;
		for (uint32_t i = 0; i < nch; i++)
			info->channels += seen[i];
	}
	rc = find_cycle(tb, nch, off, dst, err, errlen);
out:
	free(off);
	free(dst);
	free(seen);
	return rc;
}

int df_vcplan_check(const struct df_tables *tb, enum df_algorithm alg,
		    struct df_vcplan_info *info, char *err, size_t errlen)
{
	struct cdg c = {.tb = tb};
	int rc = -1;

	if (for_each_path(tb, alg, add_deps, &c, info, err, errlen))
		goto out;
	if (c.oom) {
		snprintf(err, errlen, "out of memory in the deadlock check");
		goto out;
	}
	rc = df_cdg_check(tb, c.edges, c.n, info, err, errlen);
out:
	free(c.edges);
	return rc;
}

/* The key that set the VC count of class c, for messages: <class>_vcs, or
 * the L/G(+1) form [links] vcs. Returns where it was set. */
static const char *vcs_key(const struct df_config *cfg, int c, char *key,
			   size_t n)
{
	if (cfg->vcs_plus >= 0) {
		snprintf(key, n, "vcs (%s part)", df_link_class_name(c));
		return df_config_origin(cfg, "links", "vcs");
	}
	snprintf(key, n, "%s_vcs", df_link_class_name(c));
	return df_config_origin(cfg, "links", key);
}

/*
 * OFAR ([OC] §III): the canonical VCs are used fully adaptively, with no
 * order, so the channel-dependency graph is cyclic on purpose; deadlock
 * freedom comes from the escape ring with bubble flow control (ring.c,
 * checked by the plan). Default 3/2(+1), the notation of [OC] §V.
 */
static int ofar_plan(struct df_tables *tb, const struct df_config *cfg,
		     struct df_vcplan_info *info, char *err, size_t errlen)
{
	static const uint8_t dflt[DF_LINK_NCLASS] = {1, 3, 2};

	memset(tb->vc_map, 0, sizeof(tb->vc_map));
	memset(tb->phase_used, 0, sizeof(tb->phase_used));
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		uint32_t want = cfg->link[c].vcs ? cfg->link[c].vcs : dflt[c];
		if (c == DF_LINK_TERMINAL) {
			tb->nvcs[c] = 1;
			continue;
		}
		if (want + 1 > DF_MAX_VC) {
			char key[32];
			const char *at = vcs_key(cfg, c, key, sizeof(key));
			snprintf(
				err, errlen,
				"%s: [links] %s = %u is too many for [routing] "
				"algorithm = ofar: the escape ring adds one VC "
				"and a port has at most %d; allowed: 1..%d",
				at, key, want, DF_MAX_VC, DF_MAX_VC - 1);
			return -1;
		}
		tb->nvcs[c] = want;
	}
	tb->esc = 1;
	if (info)
		memset(info, 0, sizeof(*info));
	return 0;
}

/*
 * The adaptive algorithms of [FB] §3.1 take their VC from the hop count
 * (fb_vc in tables.h): n' VCs for MIN AD, 2n' with a Valiant phase (n' =
 * n-1 dimensions). [FB] Table 1 gives CLOS AD 2 VCs, which is 2n' for its
 * 2-flat examples. The check enumerates every path the adaptive choices
 * can produce.
 */
static int fb_adaptive_plan(struct df_tables *tb, const struct df_config *cfg,
			    struct df_vcplan_info *info, char *err,
			    size_t errlen)
{
	uint32_t need = df_alg_hop_vcs(cfg->algorithm, tb->ndim);

	memset(tb->vc_map, 0, sizeof(tb->vc_map));
	memset(tb->phase_used, 0, sizeof(tb->phase_used));
	tb->nvcs[DF_LINK_TERMINAL] = 1;
	for (int c = DF_LINK_LOCAL; c < DF_LINK_NCLASS; c++) {
		uint32_t want = cfg->link[c].vcs;
		if (want && want < need) {
			char key[32];
			const char *at = vcs_key(cfg, c, key, sizeof(key));
			snprintf(err, errlen,
				 "%s: [links] %s = %u is too few for "
				 "[routing] algorithm = %s: one VC per hop, "
				 "%u hops at most; allowed: %u..%u",
				 at, key, want,
				 df_algorithm_name(cfg->algorithm), need, need,
				 DF_MAX_VC);
			return -1;
		}
		tb->nvcs[c] = (uint8_t)(want > need ? want : need);
	}
	if (info)
		memset(info, 0, sizeof(*info));
	return df_vcplan_check(tb, cfg->algorithm, info, err, errlen);
}

int df_vcplan_build(struct df_tables *tb, const struct df_config *cfg,
		    struct df_vcplan_info *info, char *err, size_t errlen)
{
	struct used u = {.tb = tb};
	enum df_path_kind paths = df_alg_info(cfg->algorithm)->paths;
	static const char *const phase_name[] = {
		"provisional minimal in source group", "to intermediate group",
		"to destination group", "in destination group"};

	tb->esc = 0;
	if (paths == DF_PATHS_ESCAPE)
		return ofar_plan(tb, cfg, info, err, errlen);
	if (!(tb->flatfly ? df_alg_on_flatfly(cfg->algorithm)
			  : df_alg_on_dragonfly(cfg->algorithm))) {
		snprintf(err, errlen,
			 "[routing] algorithm = %s does not route on a %s",
			 df_algorithm_name(cfg->algorithm),
			 tb->flatfly ? "flattened butterfly" : "dragonfly");
		return -1;
	}
	if (hop_paths(paths))
		return fb_adaptive_plan(tb, cfg, info, err, errlen);
	/* Identity map first: the VC of each hop is then its phase. */
	for (int c = 0; c < DF_LINK_NCLASS; c++)
		for (int ph = 0; ph < DF_NPHASE; ph++)
			tb->vc_map[c][ph] = ph;
	if (for_each_path(tb, cfg->algorithm, mark_used, &u, NULL, err, errlen))
		return -1;
	/*
	 * VC = rank of the phase among those the class uses. For VAL this is
	 * exactly [DF] Fig. 7 (non-minimal on VC0, minimal on VC1, into and
	 * inside the destination group on VC2); MIN uses neither the
	 * provisional nor the to-intermediate phase and needs two VCs, as
	 * [DF] §4.1 says. PAR adds the provisional phase on local links only:
	 * 4 local VCs, 2 global. Ranks keep the VC index non-decreasing along
	 * every path; the exhaustive check below proves the rest (no cycle
	 * among hops of equal VC), for this very wiring.
	 */
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		uint8_t n = 0;
		for (int ph = 0; ph < DF_NPHASE; ph++) {
			tb->vc_map[c][ph] = n;
			if (u.used[c][ph])
				n++;
		}
		memcpy(tb->phase_used[c], u.used[c], DF_NPHASE);
		if (c == DF_LINK_TERMINAL)
			n = 1;
		tb->nvcs[c] = n ? n : 1;
		uint32_t want = cfg->link[c].vcs;
		if (want && want < tb->nvcs[c]) {
			char used[128] = "";
			size_t len = 0;
			for (int ph = 0; ph < DF_NPHASE; ph++)
				if (u.used[c][ph])
					len += snprintf(used + len,
							sizeof(used) - len,
							"%s%s", len ? ", " : "",
							phase_name[ph]);
			char key[32];
			const char *at = vcs_key(cfg, c, key, sizeof(key));
			snprintf(err, errlen,
				 "%s: [links] %s = %u is too few for "
				 "[routing] algorithm = %s: its deadlock-free "
				 "VC plan needs %u VCs on %s links (%s); "
				 "allowed: %u..%u",
				 at, key, want,
				 df_algorithm_name(cfg->algorithm), tb->nvcs[c],
				 df_link_class_name(c), used, tb->nvcs[c],
				 DF_MAX_VC);
			return -1;
		}
		if (want > tb->nvcs[c])
			tb->nvcs[c] = want;
	}
	if (info)
		memset(info, 0, sizeof(*info));
	return df_vcplan_check(tb, cfg->algorithm, info, err, errlen);
}
