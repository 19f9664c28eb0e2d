/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * control/paths.c against [SP]'s results that hold (docs/topology.md,
 * "Holds"):
 *   relative: Fig. 2's row, exact per switch (terminal switches j = 0 and
 *     a-1: 0 shorter, 2ah-a-h equal; others 2h-2 shorter, 4ah-3a-10h+9
 *     equal) and Theorems 1-4;
 *   absolute: Fig. 2's shorter column, exact per switch (0 for switches
 *     floor(i/h) and floor((i-1)/h), the latter not wrapped; h-1 others),
 *     and delta= >= h(a-1) for a > 2 (over all SV types: Theorem 5 as
 *     printed, for glg alone, does not hold -- documented, not asserted);
 *   the Fig. 1 example: S_{0,1} to S_{1,1} in (p,4,2) relative is 2 hops
 *     by gg while its HM path is lgl (3).
 * Plus what any wiring must give: distance <= HM <= 3 at g = ah+1,
 * symmetric distances and path counts, Valiant at most 5 hops on average.
 * No EAL needed.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "paths.h"
#include "tables.h"
#include "wiring.h"

static int topo(struct df_topo *t, uint32_t a, uint32_t h,
		enum df_arrangement arr)
{
	struct df_config c;
	char err[256];

	df_config_defaults(&c);
	c.p = 1;
	c.a = a;
	c.h = h;
	c.g = a * h + 1;
	c.arrangement = arr;
	return df_topo_build(t, &c, err, sizeof(err));
}

static void relative(uint32_t a, uint32_t h)
{
	struct df_topo t;
	struct df_paths ps;
	char err[256];
	int fig2 = 1, th = 1;

	if (topo(&t, a, h, DF_ARR_RELATIVE) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "relative a=%u h=%u builds", a, h);
		return;
	}
	for (uint32_t s = 0; s < t.nrouters; s++) {
		const struct df_sv_counts *c = &ps.sv[s];
		int term = s % a == 0 || s % a == a - 1;
		int A = (int)a, H = (int)h;
		fig2 &= (int)c->less == (term ? 0 : 2 * H - 2);
		fig2 &= (int)c->equal ==
			(term ? 2 * A * H - A - H
			      : 4 * A * H - 3 * A - 10 * H + 9);
		/* Theorem 1 */
		th &= (int)c->less_gg == (term ? 0 : 2 * H - 2);
		th &= (int)c->equal_gg == (term ? 2 * H - 2 : 0);
		/* Theorem 2 */
		th &= (int)c->equal_ggl ==
		      (term ? (H - 1) * (A - 1) : (2 * H - 2) * (A - 2));
		/* Theorem 3 */
		th &= (int)c->equal_glg ==
		      (term ? A * H - H : 2 * A * H - A - 4 * H + 3);
		/* Theorem 4 */
		th &= (int)c->equal_glg_ggl ==
		      (term ? 2 * A * H - A - 3 * H + 2
			    : 4 * A * H - 3 * A - 10 * H + 9);
	}
	CHECK(fig2, "relative a=%u h=%u: Fig. 2 row exact for all %u switches",
	      a, h, t.nrouters);
	CHECK(th, "relative a=%u h=%u: Theorems 1-4 exact for all switches", a,
	      h);
	df_paths_free(&ps);
	df_topo_free(&t);
}

static void absolute(uint32_t a, uint32_t h)
{
	struct df_topo t;
	struct df_paths ps;
	char err[256];
	int shorter = 1, bound = 1;

	if (topo(&t, a, h, DF_ARR_ABSOLUTE) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "absolute a=%u h=%u builds", a, h);
		return;
	}
	for (uint32_t s = 0; s < t.nrouters; s++) {
		int i = (int)(s / a), j = (int)(s % a), H = (int)h;
		/* floor division, (i-1)/h = -1 for i = 0, never wrapped */
		int q = i / H, q1 = i > 0 ? (i - 1) / H : -1;
		int special = j == q || j == q1;
		shorter &= ps.sv[s].less == (special ? 0 : h - 1);
		if (a > 2)
			bound &= ps.sv[s].equal >= h * (a - 1);
	}
	CHECK(shorter,
	      "absolute a=%u h=%u: Fig. 2 shorter column exact for all "
	      "switches",
	      a, h);
	if (a > 2)
		CHECK(bound, "absolute a=%u h=%u: delta= >= h(a-1) everywhere",
		      a, h);
	df_paths_free(&ps);
	df_topo_free(&t);
}

static void general(uint32_t a, uint32_t h, enum df_arrangement arr)
{
	struct df_topo t;
	struct df_paths ps;
	char err[256];
	int ok = 1;
	uint32_t n;

	if (arr == DF_ARR_CIRCULANT && h % 2)
		return;
	if (topo(&t, a, h, arr) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "%s a=%u h=%u builds", df_arrangement_name(arr), a, h);
		return;
	}
	n = ps.n;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t d = 0; d < n; d++) {
			size_t i = (size_t)s * n + d, r = (size_t)d * n + s;
			ok &= ps.dist[i] <= ps.hm[i] && ps.hm[i] <= 3;
			ok &= ps.dist[i] == ps.dist[r];
			ok &= ps.nshort[i] == ps.nshort[r] &&
			      (s == d || ps.nshort[i] >= 1);
			ok &= ps.hm[i] == ps.hm[r];
		}
	ok &= ps.pairs == (uint64_t)n * (n - 1) && ps.diameter <= 3;
	ok &= ps.mean_shortest <= ps.mean_hm &&
	      ps.mean_valiant >= ps.mean_hm - 1e-9 && ps.mean_valiant <= 5;
	CHECK(ok,
	      "%s a=%u h=%u: dist <= HM <= 3, symmetric, path counts >= 1, "
	      "diameter %u, means %.3f <= %.3f, Valiant %.3f",
	      df_arrangement_name(arr), a, h, ps.diameter, ps.mean_shortest,
	      ps.mean_hm, ps.mean_valiant);
	df_paths_free(&ps);
	df_topo_free(&t);
}

static void fig1(void)
{
	struct df_topo t;
	struct df_paths ps;
	char err[256];
	uint32_t s = 0 * 4 + 1, d = 1 * 4 + 1;

	if (topo(&t, 4, 2, DF_ARR_RELATIVE) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "Fig. 1 set-up");
		return;
	}
	CHECK(ps.dist[s * ps.n + d] == 2 && ps.hm[s * ps.n + d] == 3,
	      "Fig. 1: S_{0,1} -> S_{1,1} is 2 hops (gg), HM 3 (lgl)");
	df_paths_free(&ps);
	df_topo_free(&t);
}

/* A separate enumeration of the circulant arrangement ([SP] §V): mean
 * delta= per switch 12 at (a,h) = (4,2) and 111 at (8,4) (against [SP]'s
 * conjectured 3ah = 24 and 96), mean delta<= fraction 0.386 and 0.449 --
 * an independent count this one must agree with. */
static void circulant_means(uint32_t a, uint32_t h, double eq, double frac)
{
	struct df_topo t;
	struct df_paths ps;
	char err[256];
	double se = 0, sf = 0;

	if (topo(&t, a, h, DF_ARR_CIRCULANT) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "circulant a=%u h=%u builds", a, h);
		return;
	}
	for (uint32_t s = 0; s < ps.n; s++) {
		se += ps.sv[s].equal;
		sf += (double)(ps.sv[s].less + ps.sv[s].equal) / (ps.n - 1);
	}
	se /= ps.n;
	sf /= ps.n;
	CHECK(se > eq - 0.005 && se < eq + 0.005 && sf > frac - 0.0005 &&
		      sf < frac + 0.0005,
	      "circulant a=%u h=%u: mean delta= %.2f (expected %.0f, [SP]'s "
	      "3ah %u), mean delta<= fraction %.3f (expected %.3f)",
	      a, h, se, eq, 3 * a * h, sf, frac);
	df_paths_free(&ps);
	df_topo_free(&t);
}

/* routing.algorithm = shortest: the route the tables give each pair
 * (df_path, as the dataplane walks it) is exactly the enumerated distance,
 * and the pairs sent through an intermediate group are exactly those
 * whose HM path is not shortest. */
static void shortest_routes(uint32_t a, uint32_t h, enum df_arrangement arr)
{
	struct df_topo t;
	struct df_paths ps;
	struct df_tables tb;
	char err[256] = "";
	uint32_t routers[16];
	uint8_t ports[16], vcs[16];
	int ok = 1;

	if (arr == DF_ARR_CIRCULANT && h % 2)
		return;
	if (topo(&t, a, h, arr) ||
	    df_paths_compute(&ps, &t, err, sizeof(err)) ||
	    df_tables_build(&tb, &t, err, sizeof(err)) ||
	    df_tables_shortest(&tb, &t, err, sizeof(err))) {
		CHECK(0, "shortest %s a=%u h=%u builds: %s",
		      df_arrangement_name(arr), a, h, err);
		return;
	}
	for (uint32_t s = 0; s < ps.n; s++)
		for (uint32_t d = 0; d < ps.n; d++) {
			uint16_t gi = tb.short_inter[(size_t)s * ps.n + d];
			int n = df_path(&tb, s, d, gi,
					gi == DF_NO_GROUP ? DF_PH_TO_DEST
							  : DF_PH_TO_INTER,
					routers, ports, vcs, 16);
			ok &= n == ps.dist[(size_t)s * ps.n + d];
		}
	ok &= tb.short_pairs == ps.hm_not_shortest;
	CHECK(ok,
	      "shortest %s a=%u h=%u: every route as long as the distance, "
	      "%llu pairs via an intermediate group = HM-not-shortest pairs",
	      df_arrangement_name(arr), a, h,
	      (unsigned long long)tb.short_pairs);
	df_tables_free(&tb);
	df_paths_free(&ps);
	df_topo_free(&t);
}

int main(void)
{
	for (uint32_t a = 2; a <= 6; a++)
		for (uint32_t h = 1; h <= 4; h++)
			for (int arr = 0; arr <= DF_ARR_NAUTILUS; arr++)
				shortest_routes(a, h, arr);
	circulant_means(4, 2, 12, 0.386);
	circulant_means(8, 4, 111, 0.449);
	for (uint32_t a = 2; a <= 8; a++)
		for (uint32_t h = 1; h <= 5; h++) {
			relative(a, h);
			absolute(a, h);
		}
	for (uint32_t a = 2; a <= 6; a++)
		for (uint32_t h = 1; h <= 4; h++)
			for (int arr = 0; arr <= DF_ARR_NAUTILUS; arr++)
				general(a, h, arr);
	fig1();
	return check_done();
}
