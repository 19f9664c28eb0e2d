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
 * ring is refused, and drains are refused.
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

static void links_one_by_one(enum df_algorithm alg)
{
	struct net n;
	struct df_faults f;
	char err[512];
	int ok_down = 1, ok_up = 1, refused = 0, tried = 0;
	uint64_t bad;

	if (net_init(&n, alg, 0) ||
	    df_faults_init(&f, &n.t, &n.tb, alg, err, sizeof(err))) {
		CHECK(0, "%s: faults state: %s", df_algorithm_name(alg), err);
		return;
	}
	for (uint32_t r = 0; r < n.t.nrouters; r++)
		for (uint32_t p = n.t.p; p < n.t.nports; p++) {
			const struct df_port_info *pi =
				&n.t.ports[r * n.t.nports + p];
			struct df_tables nt, back;
			if (pi->peer < r)
				continue; /* each link once */
			tried++;
			if (df_faults_set(&f, r, p, 1, &nt, NULL, err,
					  sizeof(err))) {
				refused++;
				continue;
			}
			ok_down &= walk_all(&nt, df_alg_nonminimal(alg), f.down,
					    UINT32_MAX, &bad) == 0 &&
				   bad == 0;
			df_tables_free(&nt);
			if (df_faults_set(&f, r, p, 0, &back, NULL, err,
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
	CHECK(df_faults_set(&f, 0, gp, 1, &nt, NULL, err, sizeof(err)) == 0,
	      "small: router 0's global link down: accepted %s", err);
	df_tables_free(&nt);
	CHECK(df_faults_set(&f, 1, gp, 1, &nt, NULL, err, sizeof(err)) != 0 &&
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
			if (df_faults_set(&f, r, p, 1, &nt, &ring, err,
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
			if (df_faults_set(&f, r, p, 0, &bt, &back, err,
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
	CHECK(df_faults_set(&f, 0, gp, 1, &nt, &ring, err, sizeof(err)) != 0 &&
		      strstr(err, "no Hamiltonian ring found") &&
		      strstr(err, "over the links up") && f.down[gp] == 0,
	      "ofar, small: a global link down leaves no escape ring: "
	      "refused (%s), the link still up in the state",
	      err);
	df_faults_free(&f);
	net_free(&n);
}

int main(void)
{
	links_one_by_one(DF_ALG_MIN);
	links_one_by_one(DF_ALG_UGAL_L);
	drain_and_cut();
	ofar_links();
	return check_done();
}
