/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cost model ([FB] §4). A channel is one bidirectional link between
 * two router ports, or between a node and its router, and carries
 * pairs_per_port differential signals each way (Table 3: 3), so 6
 * signals. It costs backplane x 6 inside a cabinet, and (slope x L +
 * fixed) x 6 as a cable of length L, where L is the topology's average
 * length (§4.2) plus the 2 m overhead (§4.3). E = sqrt(N / D) is the edge
 * of the 2-D cabinet layout (§4.2). Nodes sit 128 to a cabinet and always
 * reach their router on the backplane. Cabinets of one subsystem stand in
 * a row, and the mean distance between two of c cabinets is
 * width x (c+1)/3.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"

void df_cost_defaults(struct df_cost_params *p)
{
	p->router = 390.0;	 /* Table 2: $90 chip + $300 development */
	p->backplane = 1.95;	 /* Table 2 (footnote 4) */
	p->cable_slope = 0.7261; /* Fig. 7(b): 0.7261 x length + 5.8519 */
	p->cable_fixed = 5.8519;
	p->overhead_m = 2.0;	   /* Table 3, §4.3 */
	p->density = 75.0;	   /* Table 3 D, nodes per m^2 */
	p->per_cabinet = 128;	   /* Table 3 */
	p->cabinet_width_m = 0.57; /* Table 3 footprint 0.57 m x 1.44 m */
	p->pairs_per_port = 3;	   /* Table 3 */
	p->radix = 64;		   /* Table 3 */
}

const char *df_cost_topo_name(enum df_cost_topo t)
{
	static const char *const n[] = {"dragonfly", "flattened-butterfly",
					"folded-clos"};

	return t < DF_COST_NTOPO ? n[t] : "?";
}

static double signals(const struct df_cost_params *p)
{
	return 2.0 * p->pairs_per_port;
}

/* Add channels: on the backplane, or cables of length len (metres,
 * overhead not yet added). */
static void add(struct df_cost *c, const struct df_cost_params *p,
		double backplane, double cables, double len)
{
	double l = len + p->overhead_m;
	double was = c->cables;

	c->backplane_links += backplane;
	c->cables += cables;
	if (c->cables > 0)
		c->cable_m_avg =
			(c->cable_m_avg * was + l * cables) / c->cables;
	c->cost_links +=
		signals(p) * (backplane * p->backplane +
			      cables * (p->cable_slope * l + p->cable_fixed));
}

static double row(const struct df_cost_params *p, double cabinets)
{
	return p->cabinet_width_m * (cabinets + 1) / 3.0;
}

/* Fully connected routers of q nodes each, n nodes in all: pairs inside
 * one cabinet on the backplane, the rest cables along their row. */
static void clique(struct df_cost *c, const struct df_cost_params *p,
		   double routers, double q, double n)
{
	double cab = ceil(n / p->per_cabinet);
	double per = floor(p->per_cabinet / q);
	double pairs = routers * (routers - 1) / 2;
	double same = per >= routers ? pairs : cab * per * (per - 1) / 2;

	if (same > pairs)
		same = pairs;
	add(c, p, same, pairs - same, cab > 1 ? row(p, cab) : 0);
}

/*
 * Dragonfly ([DF] §5, Fig. 19): p = h = radix/4, a = 2p (16, 32, 16 on
 * radix-64 routers: group = 512 nodes, k = p + a - 1 + h = 63). Up to one
 * group it is a fully connected network, a 1-D flattened butterfly
 * ([DF] §5). Beyond, g = N/512 groups with every global port used, the
 * global cables E x 2/3 long on average ([DF] Table 2), a group's 4
 * cabinets in a row.
 */
static int flatfly(uint64_t n, const struct df_cost_params *p,
		   struct df_cost *c);

static int dragonfly(uint64_t n, const struct df_cost_params *p,
		     struct df_cost *c)
{
	double q = floor((p->radix + 1) / 4.0), a = 2 * q, h = q;
	double group = a * q, e = sqrt(n / p->density);
	double half = floor(p->radix / 2.0);

	if (n <= half * half) {
		/* "For networks up to 1K nodes, all routers are fully
		 * connected and the dragonfly is identical to a 1-D
		 * flattened butterfly" ([DF] §5) */
		int rc = flatfly(n, p, c);
		snprintf(c->shape, sizeof(c->shape),
			 "fully connected (= 1-D flattened butterfly)");
		return rc;
	}
	{
		double g = ceil(n / group);
		if (g > a * h + 1)
			return -1;
		c->routers = g * a;
		for (int i = 0; i < (int)g; i++)
			clique(c, p, a, q, group);
		add(c, p, 0, g * a * h / 2, 2.0 * e / 3.0);
		c->long_cables = g * a * h / 2;
		snprintf(c->shape, sizeof(c->shape),
			 "p=%.0f a=%.0f h=%.0f g=%.0f", q, a, h, g);
	}
	return 0;
}

/*
 * Flattened butterfly ([FB] §5.1.2): the smallest n' with
 * floor(radix/(n'+1))^(n'+1) >= N, k = floor(radix/(n'+1)) nodes per
 * router and k routers per dimension (the last dimensions only as full as
 * N needs). Dimension 1 is a clique in cabinets along a row (backplane or
 * short cables, §4.2). Dimensions 2.. are cables of E/3 on average.
 */
static int flatfly(uint64_t n, const struct df_cost_params *p,
		   struct df_cost *c)
{
	double e = sqrt(n / p->density), k = 0, r, left;
	int np = 0;

	for (np = 1; np < 16; np++) {
		k = floor(p->radix / (double)(np + 1));
		if (k >= 2 && pow(k, np + 1) >= (double)n)
			break;
	}
	if (np == 16 || k < 2)
		return -1;
	r = ceil(n / k);
	c->routers = r;
	left = r;
	for (int d = 1; d <= np; d++) {
		double s = left < k ? left : k; /* routers along dimension d */
		left = ceil(left / k);
		if (s < 2)
			continue;
		if (d == 1) {
			/* r/s cliques of s routers of k nodes (and one
			 * smaller, when r is not a multiple of s) */
			double full = floor(r / s), rem = r - full * s;
			for (double i = 0; i < full; i++)
				clique(c, p, s, k, s * k);
			if (rem >= 2)
				clique(c, p, rem, k, rem * k);
		} else {
			add(c, p, 0, r * (s - 1) / 2, e / 3.0);
			c->long_cables += r * (s - 1) / 2;
		}
	}
	snprintf(c->shape, sizeof(c->shape), "%.0f-ary, n'=%d, k'=%.0f", k, np,
		 np * (k - 1) + k);
	return 0;
}

/*
 * Folded Clos: leaves with radix/2 ports down and radix/2 up, top-level
 * routers all ports down: l levels reach radix x (radix/2)^(l-1) nodes.
 * Each of the l-1 level boundaries carries N channels. Leaves sit with
 * their nodes and the higher levels in central router cabinets, so the
 * leaf-to-level-2 channels are cables of E/4 on average ([FB] §4.2) and
 * the channels between central levels short cables (1 m).
 */
static int clos(uint64_t n, const struct df_cost_params *p, struct df_cost *c)
{
	double half = p->radix / 2.0, e = sqrt(n / p->density);
	int l = 1;

	while (l < 8 && (double)p->radix * pow(half, l - 1) < (double)n)
		l++;
	if (l == 8)
		return -1;
	if (l == 1) {
		c->routers = 1;
	} else {
		c->routers = (l - 1) * ceil(n / half) + ceil(n / p->radix);
		add(c, p, 0, (double)n, e / 4.0);
		c->long_cables = (double)n;
		for (int b = 2; b < l; b++)
			add(c, p, 0, (double)n, 1.0);
	}
	snprintf(c->shape, sizeof(c->shape), "%d levels", l);
	return 0;
}

int df_cost_of(enum df_cost_topo t, uint64_t n, const struct df_cost_params *p,
	       struct df_cost *c)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (n < 2)
		return -1;
	/* every node reaches its router over the backplane */
	add(c, p, (double)n, 0, 0);
	switch (t) {
	case DF_COST_DRAGONFLY:
		rc = dragonfly(n, p, c);
		break;
	case DF_COST_FLATFLY:
		rc = flatfly(n, p, c);
		break;
	case DF_COST_CLOS:
		rc = clos(n, p, c);
		break;
	default:
		rc = -1;
	}
	c->cost_routers = c->routers * p->router;
	c->cost_total = c->cost_routers + c->cost_links;
	return rc;
}
