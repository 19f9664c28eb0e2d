/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OFAR with the tree escape ([OC] §III-B) on crafted buffer states, no
 * EAL: a packet enters the tree toward its destination (up when the
 * destination is not below, down toward it when it is) with room for two
 * packets, moves on with room for one, never from a terminal; a packet in
 * an escape buffer the tree does not feed it by (turning back, or off the
 * tree after a link change) enters again, with room for two; it leaves
 * for the minimal output when that can take it; ECM reads every tree
 * edge's escape buffer.
 */
#include "check.h"
#include "rig.h"
#include "routing.h"

#define FLITS 8
#define NOW   1000

static struct rig g;
static uint32_t src;

static struct dp_pkt packet(uint32_t dst, int in_escape)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.src_term = 0;
	pk.dst_term = dst * g.topo.p + 1;
	pk.dst_router = (uint16_t)dst;
	pk.flits = FLITS;
	pk.hops = 1;
	pk.esc_n = (uint8_t)in_escape;
	if (in_escape)
		pk.flags = DP_PKT_ESCAPE;
	return pk;
}

static int sel(struct dp_pkt *pk, uint32_t in_port)
{
	return rig_select(g.routers[src], pk, in_port, NOW);
}

static uint32_t ncanon(uint32_t k)
{
	return g.tb.nvcs[g.tb.port_class[k]];
}

/* Canonical VCs of every network port: c credits; escape VCs: e. */
static void set_all(uint32_t c, uint32_t e)
{
	struct dp_router *r = g.routers[src];

	for (uint32_t k = g.topo.p; k < r->nports; k++) {
		for (uint32_t v = 0; v < ncanon(k); v++)
			r->port[k].credits[v] = c;
		r->port[k].credits[ncanon(k)] = e;
	}
}

static void test_entry_and_moves(uint32_t up_dst, uint32_t down_dst,
				 uint32_t child)
{
	struct dp_router *r = g.routers[src];
	const struct df_tree *tr = &g.tree;
	uint32_t up = tr->up[src], dn = df_tree_next(tr, src, down_dst);
	uint32_t from_child = dn, from_parent = up, off = UINT32_MAX;
	struct dp_pkt pk;

	/* a router port that is no tree edge */
	for (uint32_t k = g.topo.p; k < r->nports && off == UINT32_MAX; k++)
		if (!tr->on[src * g.topo.nports + k])
			off = k;
	set_all(0, 2 * FLITS - 1);
	pk = packet(up_dst, 0);
	CHECK(!sel(&pk, off),
	      "canonical network blocked: entering the tree needs room for 2 "
	      "packets, %u flits are not enough",
	      2 * FLITS - 1);
	set_all(0, 2 * FLITS);
	pk = packet(up_dst, 0);
	CHECK(!sel(&pk, 0),
	      "a packet from a terminal never enters the tree directly");
	pk = packet(up_dst, 0);
	CHECK(sel(&pk, off) && pk.out_port == up && pk.out_vc == ncanon(up) &&
		      (pk.flags & DP_PKT_ESCAPE) && pk.esc_n == 1,
	      "room for 2: enters the tree, up toward the root (port %u, "
	      "escape vc%u) for r%u, not below r%u",
	      up, ncanon(up), up_dst, src);
	pk = packet(down_dst, 0);
	CHECK(sel(&pk, off) && pk.out_port == dn && pk.out_vc == ncanon(dn) &&
		      (pk.flags & DP_PKT_ESCAPE),
	      "enters down toward r%u, below r%u (port %u to its child r%u)",
	      down_dst, src, dn, child);

	set_all(0, FLITS - 1);
	pk = packet(up_dst, 1);
	CHECK(!sel(&pk, from_child),
	      "moving on in the tree needs one packet of room");
	set_all(0, FLITS);
	pk = packet(up_dst, 1);
	CHECK(sel(&pk, from_child) && pk.out_port == up &&
		      pk.out_vc == ncanon(up),
	      "one packet of room: from child r%u up on toward the root",
	      child);
	pk = packet(down_dst, 1);
	CHECK(sel(&pk, from_parent) && pk.out_port == dn,
	      "from the parent, down on toward r%u", down_dst);
	pk = packet(up_dst, 1);
	CHECK(!sel(&pk, from_parent),
	      "a packet for r%u from the parent would turn back up: not on "
	      "the tree (a link change left it), one packet of room is not "
	      "enough",
	      up_dst);
	pk = packet(down_dst, 1);
	CHECK(!sel(&pk, from_child),
	      "the same for one from the child r%u that would turn back down",
	      child);
	pk = packet(up_dst, 1);
	CHECK(!sel(&pk, off),
	      "an escape packet on port %u, no tree edge: enters again, one "
	      "packet of room is not enough",
	      off);
	set_all(0, 2 * FLITS);
	pk = packet(up_dst, 1);
	CHECK(sel(&pk, from_parent) && pk.out_port == up,
	      "... with room for two, the packet turning back enters the "
	      "tree");
	pk = packet(up_dst, 1);
	CHECK(sel(&pk, off) && pk.out_port == up,
	      "... and so does the one off the tree");

	uint32_t minp = g.tb.port_to_router[src * g.tb.nrouters + up_dst];
	for (uint32_t v = 0; v < ncanon(minp); v++)
		r->port[minp].credits[v] = RIG_FLITS;
	pk = packet(up_dst, 1);
	CHECK(sel(&pk, from_child) && pk.out_port == minp &&
		      pk.out_vc < ncanon(minp) && !(pk.flags & DP_PKT_ESCAPE),
	      "the minimal port can take it: leaves the tree for port %u",
	      minp);
	pk = packet(up_dst, 1);
	pk.esc_n = (uint8_t)g.ofar.escape_cap;
	CHECK(sel(&pk, from_child) && (pk.flags & DP_PKT_ESCAPE) &&
		      pk.out_port == df_tree_next(tr, src, up_dst),
	      "after %u entries it stays in the tree", g.ofar.escape_cap);
	set_all(RIG_FLITS, RIG_FLITS);
}

/* ECM: no injection only while every tree edge's escape input buffer of
 * the router is fuller than the threshold. */
static void test_ecm(uint32_t dst)
{
	struct dp_router *r = g.routers[src];
	const uint8_t *on = &g.tree.on[src * g.topo.nports];
	uint32_t edges = 0, last = 0;
	struct dp_pkt pk;

	g.ofar.cm = DF_CM_ECM;
	g.ofar.ecm_q8 = 128; /* 0.5 */
	for (uint32_t k = g.topo.p; k < r->nports; k++) {
		struct dp_vcq *q = &r->port[k].q[ncanon(k)];
		q->head = 0;
		q->tail = on[k] ? RIG_FLITS / 2 / FLITS + 1 : 0;
		if (on[k]) {
			edges++;
			last = k;
		}
	}
	pk = packet(dst, 0);
	pk.hops = 0;
	CHECK(edges >= 2 && !sel(&pk, 0),
	      "ECM: all %u tree edges' escape buffers over half full: no "
	      "injection",
	      edges);
	r->port[last].q[ncanon(last)].tail = RIG_FLITS / 2 / FLITS;
	pk = packet(dst, 0);
	pk.hops = 0;
	CHECK(sel(&pk, 0), "ECM: one of them at half: injection goes on");
	for (uint32_t k = g.topo.p; k < r->nports; k++)
		r->port[k].q[ncanon(k)].tail = 0;
	g.ofar.cm = DF_CM_NONE;
}

int main(void)
{
	struct df_config c;
	uint32_t child = UINT32_MAX, up_dst = UINT32_MAX, down_dst;

	df_config_defaults(&c);
	c.g = 9;
	c.algorithm = DF_ALG_OFAR;
	c.escape_net = DF_ESC_TREE;
	c.tree_root = 2;
	if (rig_init_cfg(&g, &c))
		return check_done();
	g.ofar.misroute_q8 = 230;
	g.ofar.escape_cap = 15;
	g.ofar.bcm_bubble = 2;
	g.run.pkt_flits = FLITS;
	/* a router of another group with a child in the tree: the one its
	 * group was entered at */
	for (src = 0; src < g.topo.nrouters; src++) {
		if (src == g.tree.root || src / g.topo.a == c.tree_root)
			continue;
		for (child = 0; child < g.topo.nrouters; child++)
			if (g.tree.parent[child] == src && child != src)
				break;
		if (child < g.topo.nrouters)
			break;
	}
	for (up_dst = 0; up_dst < g.topo.nrouters; up_dst++)
		if (!df_tree_below(&g.tree, src, up_dst))
			break;
	down_dst = child;
	CHECK(src < g.topo.nrouters && g.tree.root == 8 && up_dst != src,
	      "tree rooted at r%u (group %u); r%u has child r%u; r%u is not "
	      "below it",
	      g.tree.root, c.tree_root, src, child, up_dst);
	test_entry_and_moves(up_dst, down_dst, child);
	test_ecm(up_dst);
	rig_free(&g);
	return check_done();
}
