/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * control/ without EAL: wiring for many (p, a, h, g) and both
 * arrangements, routing-table path lengths, VC plans and the deadlock
 * check (including a deliberately cyclic plan), placement.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "place.h"
#include "ring.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"

static void cfg_of(struct df_config *c, uint32_t p, uint32_t a, uint32_t h,
		   uint32_t g, enum df_arrangement arr, enum df_algorithm alg)
{
	df_config_defaults(c);
	c->p = p;
	c->a = a;
	c->h = h;
	c->g = g;
	c->arrangement = arr;
	c->algorithm = alg;
}

/* Every port used once, symmetric, per-pair counts (df_topo_check), and
 * the relative/absolute formulas of [SP] at maximum size. */
static void test_wiring(uint32_t p, uint32_t a, uint32_t h, uint32_t g,
			enum df_arrangement arr)
{
	struct df_config c;
	struct df_topo t;
	char err[512] = "";
	int ok;

	cfg_of(&c, p, a, h, g, arr, DF_ALG_MIN);
	ok = df_topo_build(&t, &c, err, sizeof(err)) == 0;
	CHECK(ok, "wiring p=%u a=%u h=%u g=%u %s builds and checks %s", p, a, h,
	      g, df_arrangement_name(arr), err);
	if (!ok)
		return;
	CHECK(df_topo_count_links(&t, DF_LINK_GLOBAL) == g * a * h / 2,
	      "  %u global links (floor(g*a*h/2))", g * a * h / 2);
	CHECK(df_topo_count_links(&t, DF_LINK_LOCAL) == g * a * (a - 1) / 2,
	      "  %u local links (g*a(a-1)/2)", g * a * (a - 1) / 2);
	CHECK(df_topo_count_links(&t, DF_LINK_TERMINAL) == p * a * g,
	      "  %u terminal links", p * a * g);
	/* the per-port use count, independently of df_topo_check */
	uint32_t *used = calloc(t.nrouters * t.nports, sizeof(*used));
	int once = 1;
	for (uint32_t r = 0; r < t.nrouters; r++)
		for (uint32_t k = t.p; k < t.nports; k++) {
			const struct df_port_info *pi =
				&t.ports[r * t.nports + k];
			if (pi->peer == DF_NO_PEER)
				continue;
			used[pi->peer * t.nports + pi->peer_port]++;
		}
	uint32_t unused = 0;
	for (uint32_t r = 0; r < t.nrouters; r++)
		for (uint32_t k = t.p; k < t.nports; k++) {
			unused += used[r * t.nports + k] == 0;
			once &= used[r * t.nports + k] <= 1;
		}
	CHECK(once && unused == (g * a * h) % 2,
	      "  every router port is the far end of one link (%u unused, "
	      "g*a*h %s)",
	      unused, (g * a * h) % 2 ? "odd" : "even");
	/* k or k+1 global links between every pair of groups */
	uint32_t k0 = a * h / (g - 1), spread = 1;
	uint32_t *pairs = calloc(g * g, sizeof(*pairs));
	for (uint32_t r = 0; r < t.nrouters; r++)
		for (uint32_t k = t.p + a - 1; k < t.nports; k++) {
			uint32_t peer = t.ports[r * t.nports + k].peer;
			if (peer != DF_NO_PEER)
				pairs[(r / a) * g + peer / a]++;
		}
	for (uint32_t x = 0; x < g; x++)
		for (uint32_t y = 0; y < g; y++)
			if (x != y)
				spread &= pairs[x * g + y] >= k0 &&
					  pairs[x * g + y] <= k0 + 1 &&
					  pairs[x * g + y] == pairs[y * g + x];
	CHECK(spread,
	      "  %u or %u links between every pair of groups, "
	      "symmetric",
	      k0, k0 + 1);
	free(pairs);
	free(used);
	if (g == a * h + 1) {
		int formula = 1;
		for (uint32_t G = 0; G < g; G++)
			for (uint32_t k = 0; k < a * h; k++) {
				uint32_t r = G * a + k / h;
				uint32_t port = p + a - 1 + k % h;
				uint32_t X =
					t.ports[r * t.nports + port].peer / a;
				uint32_t want = arr == DF_ARR_RELATIVE
							? (G + k + 1) % g
							: (k < G ? k : k + 1);
				formula &= X == want;
			}
		CHECK(formula,
		      "  %s: port k of group G reaches group %s on router k/h",
		      df_arrangement_name(arr),
		      arr == DF_ARR_RELATIVE ? "(G+k+1) mod g"
					     : "k if k < G, else k+1");
	}
	df_topo_free(&t);
}

struct path_stats {
	uint32_t max_hops, max_global;
	int ok;
};

static void path_stats(const struct df_tables *tb, int val,
		       struct path_stats *ps)
{
	uint32_t routers[16];
	uint8_t ports[16], vcs[16];

	memset(ps, 0, sizeof(*ps));
	ps->ok = 1;
	for (uint32_t s = 0; s < tb->nrouters; s++)
		for (uint32_t gi = 0; gi < (val ? tb->g : 1); gi++)
			for (uint32_t d = 0; d < tb->nrouters; d++) {
				int n = df_path(
					tb, s, d, val ? gi : DF_NO_GROUP,
					val ? DF_PH_TO_INTER : DF_PH_TO_DEST,
					routers, ports, vcs, 16);
				uint32_t ng = 0;
				if (n < 0) {
					ps->ok = 0;
					continue;
				}
				for (int k = 0; k < n; k++) {
					ng += tb->port_class[ports[k]] ==
					      DF_LINK_GLOBAL;
					/* VC never decreases along a path */
					if (k && vcs[k] < vcs[k - 1] &&
					    tb->port_class[ports[k]] ==
						    tb->port_class[ports[k -
									 1]])
						ps->ok = 0;
				}
				if ((uint32_t)n > ps->max_hops)
					ps->max_hops = n;
				if (ng > ps->max_global)
					ps->max_global = ng;
			}
}

static void test_routing(uint32_t p, uint32_t a, uint32_t h, uint32_t g,
			 enum df_arrangement arr)
{
	struct df_config c;
	struct df_topo t;
	struct df_tables tb;
	struct df_vcplan_info vi;
	struct path_stats ps;
	char err[512] = "";

	for (int alg = 0; alg < DF_ALG_COUNT; alg++) {
		if (alg == DF_ALG_OFAR)
			continue; /* no VC order to check: test_ring() */
		if (df_alg_flatfly_only(alg))
			continue; /* test_fbfly.c */
		cfg_of(&c, p, a, h, g, arr, alg);
		if (df_topo_build(&t, &c, err, sizeof(err)) ||
		    df_tables_build(&tb, &t, err, sizeof(err))) {
			CHECK(0, "tables p=%u a=%u h=%u g=%u: %s", p, a, h, g,
			      err);
			return;
		}
		int planned =
			df_vcplan_build(&tb, &c, &vi, err, sizeof(err)) == 0;
		CHECK(planned, "%s p=%u a=%u h=%u g=%u %s: VC plan acyclic %s",
		      df_algorithm_name(alg), p, a, h, g,
		      df_arrangement_name(arr), err);
		path_stats(&tb, df_alg_nonminimal(alg), &ps);
		if (alg == DF_ALG_MIN) {
			CHECK(ps.ok && ps.max_hops <= 3 && ps.max_global <= 1,
			      "  MIN paths <= 3 hops (%u), <= 1 global (%u)",
			      ps.max_hops, ps.max_global);
			/* a local hop before the global one exists only
			 * when some router lacks a link to some group */
			CHECK(tb.nvcs[DF_LINK_LOCAL] ==
					      (a > 1 && h < g - 1 ? 2 : 1) &&
				      tb.nvcs[DF_LINK_GLOBAL] == 1,
			      "  MIN uses %u local / %u global VCs",
			      tb.nvcs[DF_LINK_LOCAL], tb.nvcs[DF_LINK_GLOBAL]);
		} else {
			/* PAR: a provisional local hop, then a whole Valiant
			 * path, on one more local VC; the test's own walk
			 * (ps) knows Valiant paths only */
			int par = alg == DF_ALG_PAR;
			uint32_t hops = par ? vi.max_hops : ps.max_hops;
			uint32_t glob = par ? vi.max_global : ps.max_global;
			CHECK(ps.ok && hops <= 5u + par && glob <= 2,
			      "  %s paths <= %d hops (%u), <= 2 global (%u)",
			      df_algorithm_name(alg), 5 + par, hops, glob);
			if (a > 1 && g > 2 && h < g - 1)
				CHECK(tb.nvcs[DF_LINK_LOCAL] == 3u + par &&
					      tb.nvcs[DF_LINK_GLOBAL] == 2,
				      "  %s uses %d local / 2 global VCs "
				      "(VAL: [DF] Fig. 7), got %u / %u",
				      df_algorithm_name(alg), 3 + par,
				      tb.nvcs[DF_LINK_LOCAL],
				      tb.nvcs[DF_LINK_GLOBAL]);
		}
		df_tables_free(&tb);
		df_topo_free(&t);
	}
}

/* A plan that puts every hop of VAL on VC0 must be refused: group-level
 * Valiant routing has cyclic channel dependencies on one VC. */
static void test_bad_plan(void)
{
	struct df_config c;
	struct df_topo t;
	struct df_tables tb;
	char err[512] = "";

	cfg_of(&c, 2, 4, 2, 9, DF_ARR_RELATIVE, DF_ALG_VAL);
	if (df_topo_build(&t, &c, err, sizeof(err)) ||
	    df_tables_build(&tb, &t, err, sizeof(err))) {
		CHECK(0, "bad plan setup: %s", err);
		return;
	}
	memset(tb.vc_map, 0, sizeof(tb.vc_map));
	CHECK(df_vcplan_check(&tb, DF_ALG_VAL, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "cycle"),
	      "deadlock check refuses VAL with one VC: %s", err);
	memset(tb.vc_map, 0, sizeof(tb.vc_map));
	CHECK(df_vcplan_check(&tb, DF_ALG_MIN, NULL, err, sizeof(err)) != 0,
	      "deadlock check refuses MIN with one VC on local links: %s", err);
	/* PAR: its provisional minimal hop on the VC of the Valiant hop that
	 * may follow it in the source group. Two local hops in one group on
	 * one VC close a cycle: that is why PAR needs a fourth local VC. */
	c.algorithm = DF_ALG_PAR;
	err[0] = '\0';
	CHECK(df_vcplan_build(&tb, &c, NULL, err, sizeof(err)) == 0,
	      "PAR: the plan with 4 local VCs is acyclic %s", err);
	tb.vc_map[DF_LINK_LOCAL][DF_PH_SRC_MIN] =
		tb.vc_map[DF_LINK_LOCAL][DF_PH_TO_INTER];
	CHECK(df_vcplan_check(&tb, DF_ALG_PAR, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "cycle"),
	      "deadlock check refuses PAR without its extra local VC: %s", err);
	c.link[DF_LINK_LOCAL].vcs = 3;
	CHECK(df_vcplan_build(&tb, &c, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "local_vcs = 3") && strstr(err, "needs 4") &&
		      strstr(err, "provisional"),
	      "PAR with 3 local VCs refused, the phases named: %s", err);
	c.algorithm = DF_ALG_VAL;
	c.link[DF_LINK_LOCAL].vcs = 2;
	CHECK(df_vcplan_build(&tb, &c, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "local_vcs = 2") && strstr(err, "needs 3"),
	      "too few configured VCs named: %s", err);
	df_tables_free(&tb);
	df_topo_free(&t);
}

static void test_reference_counts(void)
{
	struct df_config c;
	struct df_topo t;
	char err[256];

	cfg_of(&c, 2, 4, 2, 9, DF_ARR_RELATIVE, DF_ALG_MIN);
	CHECK(df_topo_build(&t, &c, err, sizeof(err)) == 0 &&
		      df_topo_count_links(&t, DF_LINK_GLOBAL) == 36 &&
		      df_topo_count_links(&t, DF_LINK_LOCAL) == 54,
	      "72-terminal reference: 36 global + 54 local links");
	df_topo_free(&t);
}

static void test_place(void)
{
	uint16_t w[36];
	char err[256];
	int n = df_place(36, 4, 2, 0, w, err, sizeof(err));
	int whole = 1, contiguous = 1;

	/* 9 groups of 4 on 2 workers: groups 0-4 and 5-8, none split */
	for (int r = 1; r < 36; r++) {
		contiguous &= w[r] >= w[r - 1];
		whole &= r % 4 == 0 || w[r] == w[r - 1];
	}
	CHECK(n == 2 && contiguous && whole && w[19] == 0 && w[20] == 1,
	      "placement: 36 routers on 2 workers, whole groups 0-4 and 5-8 "
	      "(w19=%u w20=%u)",
	      w[19], w[20]);
	n = df_place(36, 4, 4, 0, w, err, sizeof(err));
	CHECK(n == 4 && w[11] == 0 && w[12] == 1 && w[19] == 1 && w[20] == 2 &&
		      w[27] == 2 && w[28] == 3 && w[35] == 3,
	      "placement: 9 groups on 4 workers: 3, 2, 2 and 2 groups");
	n = df_place(36, 18, 3, 0, w, err, sizeof(err));
	CHECK(n == 3 && w[11] == 0 && w[12] == 1 && w[35] == 2,
	      "placement: fewer groups than workers: routers spread evenly");
	CHECK(df_place(36, 4, 1, 10, w, err, sizeof(err)) < 0 &&
		      strstr(err, "routers_per_lcore"),
	      "placement: 10 routers per lcore on 1 worker refused: %s", err);
	n = df_place(36, 4, 4, 9, w, err, sizeof(err));
	CHECK(n == 4 && w[8] == 0 && w[9] == 1 && w[35] == 3,
	      "placement: 9 routers per lcore, blocks of 9");
}

/* OFAR's escape ring: every router once, over existing links; a ring
 * with two routers swapped is refused. */
static void test_ring(uint32_t p, uint32_t a, uint32_t h, uint32_t g,
		      enum df_arrangement arr)
{
	struct df_config c;
	struct df_topo t;
	struct df_ring ring;
	char err[512] = "";

	cfg_of(&c, p, a, h, g, arr, DF_ALG_OFAR);
	if (df_topo_build(&t, &c, err, sizeof(err))) {
		CHECK(0, "ring topology: %s", err);
		return;
	}
	int built = df_ring_build(&ring, &t, err, sizeof(err)) == 0;
	CHECK(built,
	      "escape ring p=%u a=%u h=%u g=%u %s: %u routers, every one "
	      "once, consecutive ones linked (groups G -> G+%u) %s",
	      p, a, h, g, df_arrangement_name(arr), built ? ring.n : 0,
	      built ? ring.step : 0, err);
	if (built && ring.n > 3) {
		uint32_t x = ring.order[1];
		ring.order[1] = ring.order[2];
		ring.order[2] = x;
		CHECK(df_ring_check(&ring, &t, err, sizeof(err)) != 0,
		      "  a ring with two routers swapped is refused: %s", err);
	}
	if (built)
		df_ring_free(&ring);
	df_topo_free(&t);
}

int main(void)
{
	static const uint32_t shapes[][4] = {
		/* p, a, h, g */
		{2, 4, 2, 9},  {2, 4, 2, 5},  {2, 4, 2, 3},  {2, 4, 2, 2},
		{1, 2, 1, 3},  {1, 2, 1, 2},  {4, 8, 4, 33}, {4, 8, 4, 17},
		{3, 6, 3, 19}, {2, 4, 3, 13}, {1, 3, 2, 7},  {1, 3, 2, 4},
		{2, 6, 3, 10}, {1, 1, 1, 2},  {2, 5, 2, 11},
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int arr = 0; arr < 2; arr++) {
			test_wiring(shapes[i][0], shapes[i][1], shapes[i][2],
				    shapes[i][3], arr);
			test_routing(shapes[i][0], shapes[i][1], shapes[i][2],
				     shapes[i][3], arr);
			test_ring(shapes[i][0], shapes[i][1], shapes[i][2],
				  shapes[i][3], arr);
		}
	test_reference_counts();
	test_bad_plan();
	test_place();
	return check_done();
}
