/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UGAL family ([DF] §4.2-4.3.1). At the source router only, once per
 * packet, when it reaches the head of its injection queue: draw one random
 * intermediate group Gi, estimate the delay of the minimal path and of the
 * Valiant path through Gi as queue length x hop count, and take the
 * smaller ([DF] §4.2, footnote 8; docs/design.md, Pitfalls). Queue lengths
 * are downstream buffer occupancy as seen through credits ([FB] §3.1; so
 * UGAL-L_CR's delayed credits act, [DF] §4.3.2). The variants differ
 * only in which queues they read; routing after the decision is the table
 * routing of MIN/VAL.
 */
#include "routing.h"
#include "router.h"
#include "ugal_cr.h"
#include "ugal_rule.h"
#include "worker.h"

static inline uint64_t occupancy(const struct dp_port *p, int vc)
{
	return dp_port_occ(p, vc);
}

/* UGAL-G: occupancy of the global channel a path takes out of the source
 * group, on whichever router of the group holds it (docs/design.md,
 * Routers, lcores and threads: routers publish their credit state; reads
 * are relaxed). */
static uint64_t global_occupancy(const struct dp_router *r, uint32_t grouter,
				 uint32_t gport)
{
	const struct dp_router *x = r->lc->run->routers[grouter];

	return occupancy(&x->port[gport], -1);
}

/* vc-ordered (PB): router x's global channels' congestion flags, bit j
 * for its j-th global port (the first DP_PB_BITS). */
uint32_t dp_pb_flags(const struct dp_router *x)
{
	const struct df_tables *tb = x->lc->run->tb;
	uint32_t g0 = tb->p + tb->a - 1, n = x->nports - g0, f = 0;
	uint64_t sum = 0;

	for (uint32_t k = g0; k < x->nports; k++)
		sum += occupancy(&x->port[k], -1);
	for (uint32_t j = 0; j < n && j < DP_PB_BITS; j++)
		if (dp_pb_congested(occupancy(&x->port[g0 + j], -1), sum, n,
				    x->lc->run->pkt_flits))
			f |= 1u << j;
	return f;
}

/* vc-ordered's own state (vc_ordered_init), or NULL. */
static inline uint32_t *pb_seen(const struct dp_router *r)
{
	return r->eng_priv;
}

/* vc-ordered (PB): is global channel gport of router grouter congested?
 * Its own channels a router reads at once. Another router's flags come
 * as PB has them ([OC] §II: "additional bits in the data packets sent
 * between routers in the group"): the ones the last packet from that
 * router carried in (pb_route), as old as that packet's trip; or, with
 * pb_flags = direct (pb_seen NULL), read at once from that router. */
static int global_congested(const struct dp_router *r, uint32_t grouter,
			    uint32_t gport)
{
	const struct dp_router *x = r->lc->run->routers[grouter];
	const struct df_tables *tb = r->lc->run->tb;
	uint32_t j = gport - (tb->p + tb->a - 1), f;

	if (pb_seen(r) != NULL && grouter != r->id)
		f = pb_seen(r)[grouter % tb->a];
	else
		f = dp_pb_flags(x);
	return j < DP_PB_BITS && (f >> j & 1);
}

/* vc-ordered's routing at every router: keep the flags a packet brought
 * from the router before (a local hop stamped them), route by the
 * tables, and stamp this router's flags on a packet that leaves on a
 * local link (when it is routed: its wait here makes them a little
 * older than PB's bits, which go with the packet's departure). */
static void pb_route(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;

	if (pb_seen(r) != NULL && (DP_PB_PKT(pk) & DP_PB_STAMP))
		pb_seen(r)[(DP_PB_PKT(pk) >> DP_PB_BITS) & 0x7f] =
			DP_PB_PKT(pk) & ((1u << DP_PB_BITS) - 1);
	dp_table_route(r, pk);
	DP_PB_PKT(pk) = 0;
	if (pb_seen(r) != NULL && r->port[pk->out_port].cls == DF_LINK_LOCAL)
		DP_PB_PKT(pk) = DP_PB_STAMP | (r->id % tb->a) << DP_PB_BITS |
				dp_pb_flags(r);
}

void dp_ugal_decide(struct dp_router *r, struct dp_pkt *pk, uint32_t gi,
		    enum dp_ugal_mode mode)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	uint32_t dst = pk->dst_router, dg = tb->group_of[dst], dport = 0;
	uint8_t ph_m = DF_PH_TO_DEST, ph_nm = DF_PH_TO_INTER, vc_m, vc_nm;
	uint32_t out_m, out_nm, h_m, h_nm, gr_m, gp_m = 0, gr_nm, gp_nm = 0;
	uint64_t port_m, port_nm, q_m, q_nm;

	pk->inter = DF_NO_GROUP;
	pk->phase = DF_PH_TO_DEST;
	if (gi == r->group || gi == dg || r->id == dst) {
		/* the Valiant candidate is the minimal path itself */
		r->decisions_min++;
		return;
	}
	out_m = df_next_hop(tb, r->id, dst, dport, DF_NO_GROUP, &ph_m, &vc_m);
	out_nm = df_next_hop(tb, r->id, dst, dport, gi, &ph_nm, &vc_nm);
	h_m = df_path_len(tb, r->id, dst, DF_NO_GROUP, &gr_m, &gp_m);
	h_nm = df_path_len(tb, r->id, dst, gi, &gr_nm, &gp_nm);
	/* the two ports' credits due by now, once each, before any read
	 * (own_occ: a lazy sender's; an eager one's are taken already) */
	dp_port_credits_due(&r->port[out_m], r->lc->now);
	if (out_nm != out_m)
		dp_port_credits_due(&r->port[out_nm], r->lc->now);
	if (mode == DP_UGAL_GLOBAL) {
		/* no global hop on the minimal path: intra-group traffic */
		port_m = gr_m == UINT32_MAX ? 0
					    : global_occupancy(r, gr_m, gp_m);
		port_nm = global_occupancy(r, gr_nm, gp_nm);
	} else {
		port_m = occupancy(&r->port[out_m], -1);
		port_nm = occupancy(&r->port[out_nm], -1);
	}
	dp_ugal_queues(mode, out_m == out_nm, port_m, port_nm,
		       occupancy(&r->port[out_m], vc_m),
		       occupancy(&r->port[out_nm], vc_nm), &q_m, &q_nm);
	if (dp_ugal_minimal(q_m, h_m, q_nm, h_nm, run->ugal_bias) &&
	    !(mode == DP_UGAL_PB && gr_m != UINT32_MAX &&
	      global_congested(r, gr_m, gp_m))) {
		r->decisions_min++;
		return;
	}
	pk->inter = (uint16_t)gi;
	pk->phase = DF_PH_TO_INTER;
	pk->flags |= DP_PKT_NONMIN;
	r->decisions_nonmin++;
}

#define UGAL_ENGINE(var, mode, ...)                                           \
	static void var##_decide(struct dp_router *r, struct dp_pkt *pk)      \
	{                                                                     \
		dp_ugal_decide(r, pk, dp_rand_group(&r->rng, r->lc->run->tb), \
			       mode);                                         \
	}                                                                     \
	const struct dp_routing_engine var = {                                \
		.decide = var##_decide, .route = dp_table_route, __VA_ARGS__}

UGAL_ENGINE(dp_ugal_l_engine, DP_UGAL_PORT, .own_occ = 1);
UGAL_ENGINE(dp_ugal_g_engine, DP_UGAL_GLOBAL);
UGAL_ENGINE(dp_ugal_l_vc_engine, DP_UGAL_VC, .own_occ = 1);
UGAL_ENGINE(dp_ugal_l_vch_engine, DP_UGAL_VCH, .own_occ = 1);
/* UGAL-L_CR decides as VCH ([DF] fn. 11: "implemented on top of
 * UGAL-L_VCH"); its difference is in the routers' credit return, its
 * hooks (ugal_cr.c). */
UGAL_ENGINE(dp_ugal_l_cr_engine, DP_UGAL_VCH, .init = dp_cr_init,
	    .leave = dp_cr_leave, .credit = dp_cr_credit, .step = dp_cr_step);
/* The VC-ordered baseline of [OC] (PB, "3/2 VCs"): a decision at the
 * source only, VC index rising along the path (the VAL plan, 3 local / 2
 * global VCs), UGAL-L's rule plus PB's congestion flag on the minimal
 * global channel. */
static void vc_ordered_decide(struct dp_router *r, struct dp_pkt *pk)
{
	dp_ugal_decide(r, pk, dp_rand_group(&r->rng, r->lc->run->tb),
		       DP_UGAL_PB);
}

/* vc-ordered's own state, with [routing] pb_flags = piggyback: the flags
 * the last packet from each router of the group carried in, [its index
 * in the group] (pb_route); none (NULL) with direct. */
static int vc_ordered_init(struct dp_router *r, const struct df_config *cfg,
			   const struct dp_eng_mem *mem)
{
	if (cfg->pb_flags != DF_PB_PIGGYBACK)
		return 0;
	r->eng_priv = mem->zalloc(mem->ctx, cfg->a * sizeof(uint32_t));
	return r->eng_priv != NULL ? 0 : -1;
}

const struct dp_routing_engine dp_vc_ordered_engine = {
	.decide = vc_ordered_decide,
	.route = pb_route,
	.init = vc_ordered_init,
};
