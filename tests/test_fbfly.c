/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flattened-butterfly routing ([FB] §3.1), no EAL: the VC plans and
 * deadlock checks of the adaptive algorithms over many (k, n), and the
 * engines' choices on routers whose credit counters are set by hand
 * (MIN AD's shortest productive queue, the greedy snapshot, UGAL's rule,
 * CLOS AD's candidate and its hop-by-hop climb).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rig.h"

static void fb_config(struct df_config *c, uint32_t k, uint32_t n,
		      enum df_algorithm alg)
{
	df_config_defaults(c);
	c->type = DF_TOPO_FLATFLY;
	c->k = k;
	c->n = n;
	c->p = c->a = k;
	c->h = (n - 2) * (k - 1);
	c->g = 1;
	for (uint32_t i = 2; i < n; i++)
		c->g *= k;
	c->algorithm = alg;
}

static uint64_t fact(uint32_t j)
{
	return j < 2 ? 1 : j * fact(j - 1);
}

/* Paths MIN AD can take: every ordered pair (s = d included, a path of
 * no hops), j! orders of its j differing coordinates. */
static uint64_t min_ad_paths(uint32_t k, uint32_t n)
{
	uint64_t sum = 0, pairs = 1;

	/* pairs differing in j of n-1 coordinates: C(n-1, j) (k-1)^j per
	 * source */
	for (uint32_t j = 0; j < n; j++) {
		uint64_t c = 1, pw = 1;
		for (uint32_t i = 0; i < j; i++) {
			c = c * (n - 1 - i) / (i + 1);
			pw *= k - 1;
		}
		sum += c * pw * fact(j);
	}
	for (uint32_t i = 1; i < n; i++)
		pairs *= k;
	return sum * pairs;
}

static void test_plans(void)
{
	static const uint32_t shapes[][2] = {{2, 2}, {4, 2}, {8, 2}, {2, 3},
					     {3, 3}, {4, 3}, {2, 4}, {3, 5}};
	static const enum df_algorithm algs[] = {DF_ALG_MIN_AD, DF_ALG_UGAL,
						 DF_ALG_UGAL_S, DF_ALG_CLOS_AD};
	char err[512];

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
			uint32_t k = shapes[i][0], n = shapes[i][1];
			struct df_config c;
			struct df_topo t;
			struct df_tables tb;
			struct df_vcplan_info vi;
			int min = algs[a] == DF_ALG_MIN_AD;
			uint32_t need = min ? n - 1 : 2 * (n - 1);

			fb_config(&c, k, n, algs[a]);
			if (df_config_validate(&c, err, sizeof(err))) {
				CHECK(need > DF_MAX_VC &&
					      strstr(err, "VCs per link"),
				      "%u-ary %u-flat %s: refused only for "
				      "want of VCs (%u): %s",
				      k, n, df_algorithm_name(algs[a]), need,
				      err);
				continue;
			}
			if (df_topo_build(&t, &c, err, sizeof(err)) ||
			    df_tables_build(&tb, &t, err, sizeof(err))) {
				CHECK(0, "%u-ary %u-flat: %s", k, n, err);
				continue;
			}
			int ok = df_vcplan_build(&tb, &c, &vi, err,
						 sizeof(err)) == 0;
			CHECK(ok && tb.nvcs[DF_LINK_LOCAL] == need &&
				      (n == 2 ||
				       tb.nvcs[DF_LINK_GLOBAL] == need) &&
				      vi.max_hops == need &&
				      (!min || vi.paths == min_ad_paths(k, n)),
			      "%u-ary %u-flat %s: %u VCs, longest path %u "
			      "hops, %llu paths, channel dependencies "
			      "acyclic %s",
			      k, n, df_algorithm_name(algs[a]),
			      tb.nvcs[DF_LINK_LOCAL], vi.max_hops,
			      (unsigned long long)vi.paths, err);
			df_tables_free(&tb);
			df_topo_free(&t);
		}
	/* too few VCs configured */
	struct df_config c;
	struct df_topo t;
	struct df_tables tb;

	fb_config(&c, 4, 3, DF_ALG_CLOS_AD);
	c.link[DF_LINK_GLOBAL].vcs = 2;
	if (df_topo_build(&t, &c, err, sizeof(err)) == 0 &&
	    df_tables_build(&tb, &t, err, sizeof(err)) == 0) {
		CHECK(df_vcplan_build(&tb, &c, NULL, err, sizeof(err)) &&
			      strstr(err, "global_vcs = 2 is too few") &&
			      strstr(err, "allowed: 4..") &&
			      atoi(strstr(err, "allowed: 4..") + 12) ==
				      DF_MAX_VC,
		      "clos-ad on a 4-ary 3-flat with 2 global VCs: refused "
		      "(%s)",
		      err);
		df_tables_free(&tb);
		df_topo_free(&t);
	}
	fb_config(&c, 4, 3, DF_ALG_MIN);
	c.algorithm = DF_ALG_UGAL_L;
	CHECK(df_config_validate(&c, err, sizeof(err)) &&
		      strstr(err, "min-ad") && strstr(err, "clos-ad"),
	      "a dragonfly algorithm on a flattened butterfly: the error "
	      "lists the allowed ones");
	df_config_defaults(&c);
	c.g = 9;
	c.algorithm = DF_ALG_UGAL_S;
	CHECK(df_config_validate(&c, err, sizeof(err)) &&
		      strstr(err, "flattened-butterfly algorithm"),
	      "ugal-s on a dragonfly: refused");
}

/* The packet at the head of a queue at router r, as the router hands it
 * to the engine: nothing decided yet at this router. */
static struct dp_pkt head(struct rig *g, uint32_t r, struct dp_pkt pk)
{
	pk.out_port = DF_PORT_NONE;
	g->routers[r]->eng->decide(g->routers[r], &pk);
	return pk;
}

static struct dp_pkt fresh(uint32_t dst_router, uint32_t p)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.dst_router = dst_router;
	pk.dst_term = dst_router * p + 1;
	return pk;
}

/* A packet in its Valiant phase (inter: UGAL's router, CLOS AD's next
 * dimension to climb) after hops hops. */
static struct dp_pkt valiant_pkt(uint32_t dst_router, uint32_t p,
				 uint16_t inter, uint8_t hops)
{
	struct dp_pkt pk = fresh(dst_router, p);

	pk.inter = inter;
	pk.phase = DF_PH_TO_INTER;
	pk.flags = DP_PKT_NONMIN;
	pk.hops = hops;
	return pk;
}

/* The greedy engines' snapshot of each output's queue (fbfly.c). */
static uint32_t *snap(struct dp_router *r)
{
	return r->eng_priv;
}

static void load(struct dp_port *p, uint32_t flits)
{
	p->credits[0] = p->credit_full[0] - flits;
}

/* 4-ary 3-flat: router index = c1 + 4 c2; dimension 1 ports 4..6,
 * dimension 2 ports 7..9 */
static void test_min_ad(void)
{
	struct df_config c;
	struct rig g;
	struct dp_pkt pk;
	uint32_t d = 1 + 4 * 2; /* from router 0: coordinates 1 and 2 */

	fb_config(&c, 4, 3, DF_ALG_MIN_AD);
	if (rig_init_cfg(&g, &c))
		return;
	struct dp_router *r0 = g.routers[0];
	uint32_t p1 = fb_port(&g.tb, 0, 1, 1), p2 = fb_port(&g.tb, 0, 2, 2);

	CHECK(p1 == 4 && p2 == 8,
	      "ports: dimension 1 to c1 = 1 is %u, "
	      "dimension 2 to c2 = 2 is %u",
	      p1, p2);
	pk = head(&g, 0, fresh(d, c.p));
	CHECK(pk.out_port == p1 && pk.out_vc == 0 && r0->decisions_min == 1,
	      "MIN AD, idle: the lowest productive dimension, VC 0 with 2 "
	      "hops to go (port %u vc %u)",
	      pk.out_port, pk.out_vc);
	load(&r0->port[p1], 30);
	pk = head(&g, 0, fresh(d, c.p));
	CHECK(pk.out_port == p1,
	      "MIN AD is greedy: the live queue changed, the snapshot of the "
	      "round did not");
	snap(r0)[p1] = 30;
	pk = head(&g, 0, fresh(d, c.p));
	CHECK(pk.out_port == p2 && pk.out_vc == 0,
	      "MIN AD, dimension 1 queue longer in the snapshot: dimension 2 "
	      "(port %u)",
	      pk.out_port);
	snap(r0)[p2] = 40;
	CHECK(head(&g, 0, fresh(d, c.p)).out_port == p1,
	      "MIN AD: back to dimension 1 when dimension 2 is longer");
	snap(r0)[7] = 0; /* non-productive ports never qualify */
	snap(r0)[p1] = snap(r0)[p2] = 50;
	pk = head(&g, 0, fresh(d, c.p));
	CHECK(pk.out_port == p1 || pk.out_port == p2,
	      "MIN AD never takes a non-productive channel, however idle");
	/* the next hop: one hop remaining, VC 1 */
	pk.hops = 1;
	pk = head(&g, 8, pk); /* router 8 = (0, 2): dimension 1 left */
	CHECK(pk.out_port == fb_port(&g.tb, 8, 1, 1) && pk.out_vc == 1 &&
		      g.routers[8]->decisions_min == 0,
	      "MIN AD in transit: the last hop on VC 1 (hops remaining "
	      "rule), not counted as a decision");
	pk.hops = 2;
	pk = head(&g, d, pk);
	CHECK(pk.out_port == 1 && pk.out_vc == 0,
	      "MIN AD at the destination: ejection to terminal port 1");
	rig_free(&g);
}

static void test_ugal(void)
{
	struct df_config c;
	struct rig g;
	uint32_t d = 1; /* router 0 to router 1: one hop in dimension 1 */

	for (int seq = 0; seq < 2; seq++) {
		fb_config(&c, 4, 2, seq ? DF_ALG_UGAL_S : DF_ALG_UGAL);
		if (rig_init_cfg(&g, &c))
			return;
		struct dp_router *r0 = g.routers[0];
		uint32_t pm = fb_port(&g.tb, 0, 1, 1), nonmin = 0, bad = 0;
		const char *nm = df_algorithm_name(c.algorithm);

		for (int i = 0; i < 20; i++)
			nonmin +=
				head(&g, 0, fresh(d, c.p)).inter != DF_NO_GROUP;
		CHECK(nonmin == 0 && r0->decisions_min == 20,
		      "%s, idle: 20 of 20 minimal", nm);
		/* 40 flits on the minimal port, others empty: every draw of
		 * an intermediate other than 0 and 1 goes non-minimal */
		load(&r0->port[pm], 40);
		if (!seq) /* UGAL-S keeps no snapshot: it reads live */
			snap(r0)[pm] = 40;
		nonmin = 0;
		for (int i = 0; i < 40; i++) {
			struct dp_pkt pk = head(&g, 0, fresh(d, c.p));
			if (pk.inter == DF_NO_GROUP)
				continue;
			nonmin++;
			bad += !(pk.flags & DP_PKT_NONMIN) ||
			       pk.phase != DF_PH_TO_INTER || pk.out_vc != 0 ||
			       pk.out_port != g.tb.port_to_router[pk.inter] ||
			       pk.inter < 2;
		}
		CHECK(nonmin > 10 && nonmin < 40 && bad == 0,
		      "%s, minimal port loaded (40 flits): %u of 40 via an "
		      "intermediate router (the rest drew 0 or 1), first hop "
		      "toward it on VC 0",
		      nm, nonmin);
		/* what the engine reads: the snapshot (greedy) or live */
		load(&r0->port[pm], 0);
		if (!seq)
			snap(r0)[pm] = 40;
		CHECK(seq ? r0->eng_priv == NULL : r0->eng_priv != NULL,
		      "%s keeps %s", nm, seq ? "no snapshot" : "a snapshot");
		nonmin = 0;
		for (int i = 0; i < 40; i++)
			nonmin +=
				head(&g, 0, fresh(d, c.p)).inter != DF_NO_GROUP;
		CHECK(seq ? nonmin == 0 : nonmin > 10,
		      "%s reads the %s occupancy (%u of 40 non-minimal)", nm,
		      seq ? "live" : "snapshot", nonmin);
		/* a non-minimal packet at its intermediate router: dimension
		 * order to the destination, VC = hops taken */
		struct dp_pkt pk = head(&g, 3, valiant_pkt(d, c.p, 3, 1));
		CHECK(pk.phase == DF_PH_TO_DEST &&
			      pk.out_port == fb_port(&g.tb, 3, 1, 1) &&
			      pk.out_vc == 1,
		      "%s at the intermediate: on to the destination, VC 1",
		      nm);
		rig_free(&g);
	}
}

static void test_clos_ad(void)
{
	struct df_config c;
	struct rig g;
	struct dp_pkt pk;

	fb_config(&c, 4, 3, DF_ALG_CLOS_AD);
	if (rig_init_cfg(&g, &c))
		return;
	struct dp_router *r0 = g.routers[0];
	/* router 0 to router 1: only dimension 1 differs, so CLOS AD climbs
	 * dimension 1 only (the common ancestors) */
	uint32_t pm = fb_port(&g.tb, 0, 1, 1), p2 = fb_port(&g.tb, 0, 1, 2);
	uint32_t p3 = fb_port(&g.tb, 0, 1, 3), pd2 = fb_port(&g.tb, 0, 2, 1);

	pk = head(&g, 0, fresh(1, c.p));
	CHECK(pk.out_port == pm && pk.inter == DF_NO_GROUP,
	      "CLOS AD, idle: minimal");
	load(&r0->port[pm], 40);
	load(&r0->port[p2], 12);
	load(&r0->port[p3], 5);
	load(&r0->port[pd2], 0); /* dimension 2: above the ancestors */
	pk = head(&g, 0, fresh(1, c.p));
	CHECK(pk.out_port == p3 && pk.inter == 2 && pk.out_vc == 0 &&
		      (pk.flags & DP_PKT_NONMIN) && pk.phase == DF_PH_TO_INTER,
	      "CLOS AD, minimal port at 40 flits: the least occupied "
	      "non-productive dimension-1 channel (5 flits, port %u; never "
	      "the idle dimension-2 one), climbing on at dimension 2",
	      pk.out_port);
	load(&r0->port[p3], 25);
	pk = head(&g, 0, fresh(1, c.p));
	CHECK(pk.out_port == p2, "CLOS AD: the 12-flit channel once the "
				 "other holds 25");
	load(&r0->port[p2], 21);
	load(&r0->port[p3], 21);
	pk = head(&g, 0, fresh(1, c.p));
	CHECK(pk.inter == DF_NO_GROUP && pk.out_port == pm,
	      "CLOS AD: 40 x 1 hop <= 21 x 2 hops: minimal");
	/* in transit at router 3 = (3, 0), climbing from dimension 2 with
	 * nothing left to climb: dimension order to router 1 */
	pk = head(&g, 3, valiant_pkt(1, c.p, 2, 1));
	CHECK(pk.phase == DF_PH_TO_DEST &&
		      pk.out_port == fb_port(&g.tb, 3, 1, 1) && pk.out_vc == 1,
	      "CLOS AD: done climbing, on to the destination on VC 1");
	/* router 0 to router 9 = (1, 2): climbing dimension 2 at router 2
	 * = (2, 0), the dummy queue for staying = the productive channel */
	struct dp_router *r2 = g.routers[2];
	uint32_t prod = fb_port(&g.tb, 2, 2, 2),
		 other = fb_port(&g.tb, 2, 2, 3);
	pk = valiant_pkt(9, c.p, 2, 1);
	load(&r2->port[prod], 30);
	load(&r2->port[other], 10);
	load(&r2->port[fb_port(&g.tb, 2, 2, 1)], 20);
	struct dp_pkt a = head(&g, 2, pk);
	CHECK(a.out_port == other && a.inter == 3 && a.out_vc == 1 &&
		      a.phase == DF_PH_TO_INTER,
	      "CLOS AD climbing dimension 2: a 10-flit channel beats staying "
	      "(the productive channel's 30)");
	load(&r2->port[prod], 8);
	a = head(&g, 2, pk);
	CHECK(a.phase == DF_PH_TO_DEST && a.out_port == fb_port(&g.tb, 2, 1, 1),
	      "CLOS AD: productive channel at 8 flits: stays at coordinate "
	      "2 and heads for the destination, dimension 1 first");
	rig_free(&g);
}

/* The one list of algorithms (control/algorithms.h): each has an engine
 * on the topologies the control plane says it runs on, and on no other,
 * and the config knows it by its name. */
static void test_engine_table(void)
{
	for (int a = 0; a < DF_ALG_COUNT; a++) {
		const char *name = df_algorithm_name(a);
		int df = df_alg_on_dragonfly(a), fb = df_alg_on_flatfly(a);

		CHECK(name != NULL && !strcmp(name, df_alg_info(a)->name),
		      "algorithm %d: its name, %s", a, name);
		CHECK(df || fb, "%s runs on some topology", name);
		CHECK((dp_routing_engine(a, 0) != NULL) == df &&
			      (dp_routing_engine(a, 1) != NULL) == fb,
		      "%s: engines on a dragonfly %d, a flattened butterfly %d",
		      name, df, fb);
	}
	CHECK(dp_routing_engine(DF_ALG_VAL, 1) == &dp_fb_val_engine &&
		      dp_routing_engine(DF_ALG_VAL, 0) == &dp_val_engine,
	      "val: [FB]'s engine on a flattened butterfly, [DF]'s on a "
	      "dragonfly");
}

int main(void)
{
	test_engine_table();
	test_plans();
	test_min_ad();
	test_ugal();
	test_clos_ad();
	return check_done();
}
