/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tables without failed links and drained routers (control/faults.c), no
 * EAL: for every router-to-router link of the reference, taken down alone
 * under MIN and UGAL-L, every path the algorithm can take avoids it and
 * arrives; restoring it gives back the full wiring's routes; a drained
 * router carries no path; a change that would cut a router off is refused
 * and leaves the state as it was. Under OFAR each link down alone gets an
 * escape ring over the links left up (the same ring when the link was not
 * on it), the full ring comes back with the link, a change that leaves no
 * ring is refused, and drains are refused. An instance of a partitioned
 * run lost (df_faults_lose): no path between the routers left touches
 * it, a packet for a lost router ends at a down link to it, one on its
 * way to a lost intermediate group goes on minimally from that edge and
 * arrives; new Valiant choices leave the lost groups out; OFAR refuses.
 * In every version, the dataplane's memo of the routes (df_hop) gives
 * what the rule (df_next_hop) gives.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "faults.h"
#include "ring.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"

struct net {
	struct df_config cfg;
	struct df_topo t;
	struct df_tables tb;
};

/* The reference (p = 2, a = 4, h = 2, g = 9), or with small set the
 * small network (p = 1, a = 2, h = 1, g = 3). */
static int net_init(struct net *n, enum df_algorithm alg, int small)
{
	char err[512];

	df_config_defaults(&n->cfg);
	n->cfg.g = 9;
	if (small) {
		n->cfg.p = 1;
		n->cfg.a = 2;
		n->cfg.h = 1;
		n->cfg.g = 3;
	}
	n->cfg.algorithm = alg;
	if (df_topo_build(&n->t, &n->cfg, err, sizeof(err)) ||
	    df_tables_build(&n->tb, &n->t, err, sizeof(err)) ||
	    df_vcplan_build(&n->tb, &n->cfg, NULL, err, sizeof(err))) {
		CHECK(0, "network: %s", err);
		return -1;
	}
	return 0;
}

static void net_free(struct net *n)
{
	df_tables_free(&n->tb);
	df_topo_free(&n->t);
}

/*
 * Walk every (source, destination, intermediate group) path on tb as the
 * dataplane would; count hops on a port in down[] and hops through router
 * avoid (neither its source nor its destination). Returns -1 on a walk
 * that does not arrive.
 */
static int walk_all(const struct df_tables *tb, int nonmin, const uint8_t *down,
		    uint32_t avoid, uint64_t *bad)
{
	*bad = 0;
	for (uint32_t s = 0; s < tb->nrouters; s++)
		for (uint32_t d = 0; d < tb->nrouters; d++)
			for (uint32_t gi = 0; gi < (nonmin ? tb->g : 1); gi++) {
				uint32_t cur = s,
					 inter = nonmin ? gi : DF_NO_GROUP;
				uint8_t ph =
					nonmin ? DF_PH_TO_INTER : DF_PH_TO_DEST;
				int n = 0;
				for (;; n++) {
					uint8_t vc;
					uint32_t port = df_next_hop(
						tb, cur, d, 0, inter, &ph, &vc);
					if (port < tb->p)
						break;
					if (n == 16)
						return -1;
					*bad += down[cur * tb->nports + port];
					*bad += n > 0 && cur == avoid;
					cur = tb->peer_router[cur * tb->nports +
							      port];
				}
				if (cur != d)
					return -1;
			}
	return 0;
}

static int same_routes(const struct df_tables *a, const struct df_tables *b)
{
	return !memcmp(a->port_to_router, b->port_to_router,
		       (size_t)a->nrouters * a->nrouters) &&
	       !memcmp(a->port_to_group, b->port_to_group,
		       (size_t)a->nrouters * a->g);
}

/* Pairs (router, router, intermediate group or none) whose df_path_len
 * (UGAL's path lengths and first global hops) differs from the walk by
 * df_next_hop's own steps. */
static uint64_t path_len_differs(const struct df_tables *t)
{
	uint64_t bad = 0;

	for (uint32_t s = 0; s < t->nrouters; s++)
		for (uint32_t d = 0; d < t->nrouters; d++)
			for (uint32_t gi = 0; gi <= t->g; gi++) {
				uint32_t in = gi == t->g ? DF_NO_GROUP : gi;
				uint32_t ga = 0, pa = 0, gb = 0, pb = 0;
				uint32_t na =
					df_path_len(t, s, d, in, &ga, &pa);
				uint32_t nb =
					df_path_len_walk(t, s, d, in, &gb, &pb);

				bad += na != nb || ga != gb ||
				       (ga != UINT32_MAX && pa != pb);
			}
	return bad;
}

/* (router, router, phase, intermediate group or none) whose df_hop (the
 * dataplane's memo) differs from df_next_hop (the rule) in port, phase or
 * VC. */
static uint64_t hop_differs(const struct df_tables *t)
{
	uint64_t bad = 0;

	if (t->hop == NULL)
		return 1; /* not built */
	for (uint32_t s = 0; s < t->nrouters; s++)
		for (uint32_t d = 0; d < t->nrouters; d++)
			for (uint32_t x = 0; x <= t->g * DF_NPHASE; x++) {
				uint32_t gi = x / DF_NPHASE;
				uint32_t in = gi == t->g ? DF_NO_GROUP : gi;
				uint8_t pa = (uint8_t)(x % DF_NPHASE), pb = pa;
				uint8_t va = 0, vb = 0;
				uint32_t a = df_hop(t, s, d, 1, in, &pa, &va);
				uint32_t b =
					df_next_hop(t, s, d, 1, in, &pb, &vb);

				bad += a != b || pa != pb || va != vb;
			}
	return bad;
}

static void links_one_by_one(enum df_algorithm alg)
{
	struct net n;
	struct df_faults f;
	char err[512];
	int ok_down = 1, ok_up = 1, refused = 0, tried = 0;
	uint64_t bad, paths_bad, hops_bad;

	if (net_init(&n, alg, 0) ||
	    df_faults_init(&f, &n.t, &n.tb, alg, err, sizeof(err))) {
		CHECK(0, "%s: faults state: %s", df_algorithm_name(alg), err);
		return;
	}
	paths_bad = path_len_differs(&n.tb);
	hops_bad = hop_differs(&n.tb);
	for (uint32_t r = 0; r < n.t.nrouters; r++)
		for (uint32_t p = n.t.p; p < n.t.nports; p++) {
			const struct df_port_info *pi =
				&n.t.ports[r * n.t.nports + p];
			struct df_tables nt, back;
			if (pi->peer < r)
				continue; /* each link once */
			tried++;
			if (df_faults_set(&f, r, p, 1, &nt, NULL, NULL, err,
					  sizeof(err))) {
				refused++;
				continue;
			}
			ok_down &= walk_all(&nt, df_alg_nonminimal(alg), f.down,
					    UINT32_MAX, &bad) == 0 &&
				   bad == 0;
			paths_bad += path_len_differs(&nt);
			hops_bad += hop_differs(&nt);
			df_tables_free(&nt);
			if (df_faults_set(&f, r, p, 0, &back, NULL, NULL, err,
					  sizeof(err))) {
				ok_up = 0;
				break;
			}
			ok_up &= same_routes(&back, &n.tb);
			df_tables_free(&back);
		}
	CHECK(ok_down && refused == 0 && tried == 90,
	      "%s, each of the reference's %d links down alone: every path "
	      "avoids it and arrives (%d refused)",
	      df_algorithm_name(alg), tried, refused);
	CHECK(ok_up, "%s, each link back up: the full wiring's routes again",
	      df_algorithm_name(alg));
	CHECK(paths_bad == 0,
	      "%s: UGAL's path lengths and first global hops (df_path_len) "
	      "are df_next_hop's walk's, on the full wiring and with each "
	      "link down (%llu differ)",
	      df_algorithm_name(alg), (unsigned long long)paths_bad);
	CHECK(hops_bad == 0,
	      "%s: the dataplane's memo of the routes (df_hop) gives "
	      "df_next_hop's port, phase and VC in every phase, on the full "
	      "wiring and with each link down (%llu differ)",
	      df_algorithm_name(alg), (unsigned long long)hops_bad);
	df_faults_free(&f);
	net_free(&n);
}

static void drain_and_cut(void)
{
	struct net n;
	struct df_faults f;
	struct df_tables nt;
	char err[512];
	uint64_t bad;

	if (net_init(&n, DF_ALG_UGAL_L, 0) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_UGAL_L, err, sizeof(err)))
		return;
	CHECK(df_faults_drain(&f, 5, 1, &nt, err, sizeof(err)) == 0 &&
		      walk_all(&nt, 1, f.down, 5, &bad) == 0 && bad == 0,
	      "router 5 drained: no path of UGAL-L passes through it, every "
	      "path arrives");
	df_tables_free(&nt);
	CHECK(df_faults_drain(&f, 5, 1, &nt, err, sizeof(err)) != 0 &&
		      strstr(err, "already drained"),
	      "drained twice: refused (%s)", err);
	CHECK(df_faults_drain(&f, 5, 0, &nt, err, sizeof(err)) == 0 &&
		      same_routes(&nt, &n.tb),
	      "router 5 back in service: the full wiring's routes again");
	df_tables_free(&nt);
	df_faults_free(&f);
	net_free(&n);

	/* the small network (a = 2, h = 1, g = 3): router 0's and router
	 * 1's global links are group 0's only way out */
	if (net_init(&n, DF_ALG_MIN, 1) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_MIN, err, sizeof(err)))
		return;
	uint32_t gp = n.t.p + n.t.a - 1;
	err[0] = '\0';
	CHECK(df_faults_set(&f, 0, gp, 1, &nt, NULL, NULL, err, sizeof(err)) ==
		      0,
	      "small: router 0's global link down: accepted %s", err);
	df_tables_free(&nt);
	CHECK(df_faults_set(&f, 1, gp, 1, &nt, NULL, NULL, err, sizeof(err)) !=
			      0 &&
		      strstr(err, "could not reach") &&
		      f.down[1 * n.t.nports + gp] == 0,
	      "small: router 1's global link down too would cut group 0 off: "
	      "refused (%s), the link still up in the state",
	      err);
	df_faults_free(&f);
	net_free(&n);
}

static int same_ring(const struct df_ring *x, const struct df_ring *y)
{
	return x->n == y->n && !memcmp(x->next, y->next, x->n) &&
	       !memcmp(x->prev, y->prev, x->n);
}

/* Does ring x use a link that down[] marks? */
static int ring_on_down(const struct df_ring *x, const struct df_topo *t,
			const uint8_t *down)
{
	for (uint32_t r = 0; r < x->n; r++)
		if (down[r * t->nports + x->next[r]] ||
		    down[r * t->nports + x->prev[r]])
			return 1;
	return 0;
}

static void ofar_links(void)
{
	struct net n;
	struct df_faults f;
	struct df_ring base, ring, back;
	struct df_tables nt, bt;
	char err[512];
	int tried = 0, refused = 0, on_ring = 0, ok_ring = 1, ok_paths = 1;
	int ok_same = 1, ok_back = 1;
	uint64_t bad;

	if (net_init(&n, DF_ALG_OFAR, 0) ||
	    df_ring_build(&base, &n.t, err, sizeof(err)) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_OFAR, err, sizeof(err))) {
		CHECK(0, "ofar: %s", err);
		return;
	}
	for (uint32_t r = 0; r < n.t.nrouters; r++)
		for (uint32_t p = n.t.p; p < n.t.nports; p++) {
			const struct df_port_info *pi =
				&n.t.ports[r * n.t.nports + p];
			int was_on = base.next[r] == p || base.prev[r] == p;
			if (pi->peer < r)
				continue;
			tried++;
			if (df_faults_set(&f, r, p, 1, &nt, &ring, NULL, err,
					  sizeof(err))) {
				refused++;
				continue;
			}
			on_ring += was_on;
			ok_ring &= df_ring_check(&ring, &n.t, err,
						 sizeof(err)) == 0 &&
				   !ring_on_down(&ring, &n.t, f.down);
			ok_same &= was_on != same_ring(&ring, &base);
			ok_paths &= walk_all(&nt, 0, f.down, UINT32_MAX,
					     &bad) == 0 &&
				    bad == 0;
			df_tables_free(&nt);
			df_ring_free(&ring);
			if (df_faults_set(&f, r, p, 0, &bt, &back, NULL, err,
					  sizeof(err))) {
				ok_back = 0;
				break;
			}
			ok_back &= same_ring(&back, &base) &&
				   same_routes(&bt, &n.tb);
			df_tables_free(&bt);
			df_ring_free(&back);
		}
	CHECK(refused == 0 && tried == 90 && on_ring == 36 && ok_ring,
	      "ofar, each of the reference's %d links down alone: an escape "
	      "ring over the links left up, checked (%d links were on the "
	      "ring; %d refused)",
	      tried, on_ring, refused);
	CHECK(ok_same, "ofar: the ring changes exactly when the failed link "
		       "was on it");
	CHECK(ok_paths, "ofar: every minimal path avoids the failed link and "
			"arrives");
	CHECK(ok_back, "ofar: each link back up gives back the full wiring's "
		       "ring and routes");
	CHECK(df_faults_drain(&f, 5, 1, &nt, err, sizeof(err)) != 0 &&
		      strstr(err, "none can be drained"),
	      "ofar: a drain is refused (%s)", err);
	df_faults_free(&f);
	df_ring_free(&base);
	net_free(&n);

	/* the small network: the ring needs all three global links, so
	 * losing one leaves none, though MIN's tables could detour */
	if (net_init(&n, DF_ALG_OFAR, 1) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_OFAR, err, sizeof(err)))
		return;
	uint32_t gp = n.t.p + n.t.a - 1;
	CHECK(df_faults_set(&f, 0, gp, 1, &nt, &ring, NULL, err, sizeof(err)) !=
			      0 &&
		      strstr(err, "no Hamiltonian ring found") &&
		      strstr(err, "over the links up") && f.down[gp] == 0,
	      "ofar, small: a global link down leaves no escape ring: "
	      "refused (%s), the link still up in the state",
	      err);
	df_faults_free(&f);
	net_free(&n);
}

/*
 * Walk s -> d through inter on tb, as router.c moves a packet once routers
 * are lost: at the edge of the lost instance (the next router lost) a
 * packet for a lost router leaves (returns 1, *edge_down = the link's
 * state in down[]), one for an intermediate group goes on minimally.
 * Returns 0 on arrival, -1 on a loop or a lost router visited.
 */
static int walk_lost(const struct df_tables *tb, const uint8_t *down,
		     uint32_t s, uint32_t d, uint32_t inter, int *edge_down)
{
	uint8_t ph = inter == DF_NO_GROUP ? DF_PH_TO_DEST : DF_PH_TO_INTER;
	uint32_t cur = s;

	for (int n = 0; n < 20; n++) {
		uint8_t vc;
		uint32_t port = df_next_hop(tb, cur, d, 0, inter, &ph, &vc);
		uint32_t next;

		if (port < tb->p)
			return cur == d ? 0 : -1;
		next = tb->peer_router[cur * tb->nports + port];
		if (tb->gone[next]) {
			if (tb->gone[d]) {
				*edge_down = down[cur * tb->nports + port];
				return 1;
			}
			if (ph != DF_PH_TO_INTER)
				return -1;
			inter = DF_NO_GROUP;
			continue;
		}
		cur = next;
	}
	return -1;
}

static void lose_instance(enum df_algorithm alg)
{
	const char *name = df_algorithm_name(alg);
	struct net n;
	struct df_faults f;
	struct df_tables nt, nt2;
	char err[512];
	int arrive = 1, edge = 1, inter_ok = 1;
	uint32_t lo = 20, hi = 36; /* groups 5-8: reference-split.ini's i1 */

	if (net_init(&n, alg, 0) ||
	    df_faults_init(&f, &n.t, &n.tb, alg, err, sizeof(err)))
		return;
	if (df_faults_lose(&f, lo, hi, &nt, err, sizeof(err))) {
		CHECK(0, "%s: groups 5-8 lost: %s", name, err);
		goto out;
	}
	for (uint32_t g = 0; g < nt.ninter; g++)
		inter_ok &= nt.inter[g] == g;
	CHECK(nt.gone != NULL && nt.gone[lo] && nt.gone[hi - 1] &&
		      !nt.gone[lo - 1] && nt.ninter == 5 && inter_ok,
	      "%s, groups 5-8 lost: their routers marked, groups 0-4 left "
	      "as the intermediates",
	      name);
	for (uint32_t s = 0; s < lo; s++)
		for (uint32_t d = 0; d < hi; d++)
			for (uint32_t gi = 0; gi <= n.t.g; gi++) {
				uint32_t inter = gi == n.t.g ? DF_NO_GROUP : gi;
				int down = 0, rc = walk_lost(&nt, f.down, s, d,
							     inter, &down);
				if (d < lo)
					arrive &= rc == 0;
				else
					edge &= rc == 1 && down;
			}
	CHECK(arrive,
	      "%s: every path between the routers left, minimal or through "
	      "any group (a lost one: minimal from its edge), arrives "
	      "without touching the lost ones",
	      name);
	CHECK(edge,
	      "%s: every path to a lost router ends at a link to it that is "
	      "down",
	      name);
	/* a second instance lost (groups 0-1): the rest still routes */
	err[0] = '\0';
	CHECK(df_faults_lose(&f, 0, 8, &nt2, err, sizeof(err)) == 0 &&
		      nt2.ninter == 3 && nt2.inter[0] == 2,
	      "%s: groups 0-1 lost as well: accepted, groups 2-4 left as "
	      "intermediates %s",
	      name, err);
	arrive = 1;
	for (uint32_t s = 8; s < lo; s++)
		for (uint32_t d = 8; d < lo; d++)
			for (uint32_t gi = 2; gi <= 5; gi++) {
				int down;
				arrive &= walk_lost(&nt2, f.down, s, d,
						    gi == 5 ? DF_NO_GROUP : gi,
						    &down) == 0;
			}
	CHECK(arrive,
	      "%s: after the second loss the routers left reach "
	      "each other",
	      name);
	CHECK(hop_differs(&nt) == 0 && hop_differs(&nt2) == 0,
	      "%s: after each loss, df_hop gives df_next_hop's hops", name);
	df_tables_free(&nt2);
	df_tables_free(&nt);
out:
	df_faults_free(&f);
	net_free(&n);
}

static void lose_ofar(void)
{
	struct net n;
	struct df_faults f;
	struct df_tables nt;
	char err[512] = "";

	if (net_init(&n, DF_ALG_OFAR, 0) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_OFAR, err, sizeof(err)))
		return;
	CHECK(df_faults_lose(&f, 20, 36, &nt, err, sizeof(err)) != 0 &&
		      strstr(err, "escape ring") && f.gone[20] == 0 &&
		      f.down[20 * n.t.nports + n.t.p] == 0,
	      "OFAR: an instance lost is refused (%s), nothing changed", err);
	df_faults_free(&f);
	net_free(&n);
}

/* df_hop reads its memo with the VC plan of every algorithm that routes
 * by the tables, each with its own phases (PAR's provisional one, VAL's
 * toward the intermediate group). */
static void hops_per_plan(void)
{
	static const enum df_algorithm algs[] = {DF_ALG_MIN, DF_ALG_VAL,
						 DF_ALG_PAR, DF_ALG_UGAL_G,
						 DF_ALG_SHORTEST};

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		struct net n;

		if (net_init(&n, algs[i], 0))
			continue;
		CHECK(hop_differs(&n.tb) == 0,
		      "%s's VC plan: df_hop gives df_next_hop's hops",
		      df_algorithm_name(algs[i]));
		net_free(&n);
	}
}

int main(void)
{
	hops_per_plan();
	links_one_by_one(DF_ALG_MIN);
	links_one_by_one(DF_ALG_UGAL_L);
	drain_and_cut();
	ofar_links();
	lose_instance(DF_ALG_MIN);
	lose_instance(DF_ALG_UGAL_L);
	lose_ofar();
	return check_done();
}
