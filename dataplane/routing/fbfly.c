/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing on a flattened butterfly ([FB] §3.1).
 * Coordinates are router-index digits, one per dimension; a channel in
 * dimension j is productive when it sets the current coordinate j to the
 * destination's.
 *
 * - MIN is the min engine: dimension order (control/tables.h fb_next_hop).
 * - VAL: a random intermediate *router* (not a group: [FB] §3.1 draws a
 *   node), dimension order to it and then to the destination, one VC per
 *   phase.
 * - MIN AD: at every router, the productive channel with the shortest
 *   queue; VC by hops remaining.
 * - UGAL / UGAL-S: at the source, MIN AD or VAL through one random
 *   intermediate router, whichever has the smaller queue x hop count.
 *   UGAL reads the occupancy snapshot of the allocation round (greedy
 *   allocator), UGAL-S the live counts, which every decision updates
 *   before the next (sequential allocator).
 * - CLOS AD: UGAL-S, but the non-minimal candidate is the least occupied
 *   non-productive channel, and the intermediate is built hop by hop,
 *   dimension by dimension, each time on the channel with the shortest
 *   queue or a "dummy queue" for staying.
 *
 * The adaptive engines route each packet when it reaches the head of its
 * input queue at each router (at_head), and take their VC from the hop
 * count (fb_vc), which control/vcplan.c checks over every path the
 * choices can produce. Queue length: the whole output port, all VCs
 * (dp_port_occ): the VCs share the link, and a packet's VC on a port
 * depends on its hop count, not on the choice.
 */
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "ugal_rule.h"
#include "worker.h"

static inline void go_minimal(struct dp_router *r, struct dp_pkt *pk)
{
	pk->inter = DF_NO_GROUP;
	pk->phase = DF_PH_TO_DEST;
	r->decisions_min++;
}

static inline void go_nonminimal(struct dp_router *r, struct dp_pkt *pk,
				 uint32_t inter)
{
	pk->inter = (uint16_t)inter;
	pk->phase = DF_PH_TO_INTER;
	pk->flags |= DP_PKT_NONMIN;
	r->decisions_nonmin++;
}

static void fb_val_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	uint32_t inter = dp_rand_below(&r->rng, tb->nrouters);

	if (inter == r->id || inter == pk->dst_router)
		go_minimal(r, pk);
	else
		go_nonminimal(r, pk, inter);
}

const struct dp_routing_engine dp_fb_val_engine = {
	.decide = fb_val_decide,
	.route = dp_table_route,
};

/* Queue of output port: the round's snapshot (greedy) or live. */
static inline uint32_t q_of(const struct dp_router *r, uint32_t port,
			    int greedy)
{
	return greedy ? ((const uint32_t *)r->eng_priv)[port]
		      : dp_port_occ(&r->port[port], -1);
}

/* The greedy allocator ([FB] §3.1): every decision of one allocation
 * round reads the occupancy of each output taken at its start, the
 * engine's own state (one count per port), instead of the live counts,
 * which each decision updates. */
static int greedy_init(struct dp_router *r, const struct df_config *cfg,
		       const struct dp_eng_mem *mem)
{
	RTE_SET_USED(cfg);
	r->eng_priv = mem->zalloc(mem->ctx, r->nports * sizeof(uint32_t));
	return r->eng_priv != NULL ? 0 : -1;
}

static void greedy_round(struct dp_router *r)
{
	uint32_t *snap = r->eng_priv;

	for (uint32_t k = 0; k < r->nports; k++)
		snap[k] = dp_port_occ(&r->port[k], -1);
}

/* Port to coordinate m in dimension dim from coordinate c (m != c). */
static inline uint32_t dim_port(const struct df_tables *tb, uint32_t dim,
				uint32_t c, uint32_t m)
{
	return tb->p + (dim - 1) * (tb->k - 1) + (m < c ? m : m - 1);
}

/* MIN AD ([FB] §3.1): "the productive channel with the shortest queue"
 * (ties: the lowest dimension, which is dimension order when idle). */
static uint32_t min_ad_port(const struct dp_router *r,
			    const struct df_tables *tb, uint32_t dst,
			    int greedy, uint32_t *q, uint32_t *rem)
{
	uint32_t best = DF_PORT_NONE, bq = UINT32_MAX, n = 0;
	uint32_t x = r->id, y = dst;

	for (uint32_t dim = 1; dim <= tb->ndim; dim++, x /= tb->k, y /= tb->k) {
		uint32_t c = x % tb->k, m = y % tb->k, port, qq;
		if (c == m)
			continue;
		n++;
		port = dim_port(tb, dim, c, m);
		qq = q_of(r, port, greedy);
		if (qq < bq) {
			bq = qq;
			best = port;
		}
	}
	*q = bq;
	*rem = n;
	return best;
}

static inline int fb_eject(const struct df_tables *tb, struct dp_pkt *pk,
			   uint32_t cur)
{
	if (cur != pk->dst_router || pk->phase == DF_PH_TO_INTER)
		return 0;
	pk->out_port = (uint8_t)(pk->dst_term % tb->p);
	pk->out_vc = 0;
	return 1;
}

static inline void min_ad_hop(struct dp_router *r, const struct df_tables *tb,
			      struct dp_pkt *pk, int greedy)
{
	uint32_t q, rem;

	pk->out_port =
		(uint8_t)min_ad_port(r, tb, pk->dst_router, greedy, &q, &rem);
	pk->out_vc = fb_vc(tb, pk->hops, rem, 0);
}

/* A hop in dimension order toward pk->inter, then the destination. */
static inline void dor_hop(struct dp_router *r, const struct df_tables *tb,
			   struct dp_pkt *pk)
{
	uint8_t vc;

	pk->out_port = (uint8_t)fb_next_hop(tb, r->id, pk->dst_router,
					    pk->dst_term % tb->p, pk->inter,
					    &pk->phase, &vc);
	pk->out_vc = pk->out_port < tb->p ? 0 : fb_vc(tb, pk->hops, 0, 1);
}

/* Already decided and routed by decide (at_head engines). */
static void fb_routed(struct dp_router *r, struct dp_pkt *pk)
{
	(void)r;
	(void)pk;
}

static void min_ad_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;

	if (pk->hops == 0)
		go_minimal(r, pk);
	if (!fb_eject(tb, pk, r->id))
		min_ad_hop(r, tb, pk, 1);
}

/*
 * UGAL ([FB] §3.1, [27]): at the source, "the product of queue length and
 * hop count" of MIN AD's best productive channel against that of the
 * first hop toward one random intermediate router; ties go minimal
 * (the tie-break and the VAL queue are not in [FB] §3.1).
 */
static inline void ugal_step(struct dp_router *r, struct dp_pkt *pk, int greedy)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	uint32_t dst = pk->dst_router, q_m, h_m, x, port_nm;

	if (pk->hops == 0) {
		if (r->id == dst) {
			go_minimal(r, pk);
			fb_eject(tb, pk, r->id);
			return;
		}
		pk->out_port =
			(uint8_t)min_ad_port(r, tb, dst, greedy, &q_m, &h_m);
		x = dp_rand_below(&r->rng, tb->nrouters);
		if (x == r->id || x == dst)
			goto minimal;
		port_nm = tb->port_to_router[r->id * tb->nrouters + x];
		if (dp_ugal_minimal(q_m, h_m, q_of(r, port_nm, greedy),
				    fb_dist(tb, r->id, x) + fb_dist(tb, x, dst),
				    run->ugal_bias))
			goto minimal;
		go_nonminimal(r, pk, x);
		dor_hop(r, tb, pk);
		return;
	minimal:
		go_minimal(r, pk);
		pk->out_vc = fb_vc(tb, 0, h_m, 0);
		return;
	}
	if (pk->flags & DP_PKT_NONMIN)
		dor_hop(r, tb, pk);
	else if (!fb_eject(tb, pk, r->id))
		min_ad_hop(r, tb, pk, greedy);
}

static void ugal_decide(struct dp_router *r, struct dp_pkt *pk)
{
	ugal_step(r, pk, 1);
}

static void ugal_s_decide(struct dp_router *r, struct dp_pkt *pk)
{
	ugal_step(r, pk, 0);
}

/* Highest dimension in which routers x and y differ (0: none). */
static inline uint32_t top_dim(const struct df_tables *tb, uint32_t x,
			       uint32_t y)
{
	uint32_t top = 0;

	for (uint32_t dim = 1; dim <= tb->ndim; dim++, x /= tb->k, y /= tb->k)
		if (x % tb->k != y % tb->k)
			top = dim;
	return top;
}

/*
 * CLOS AD, the source's non-minimal candidate: the least occupied
 * non-productive channel in the dimensions a folded Clos would climb
 * through, those up to the highest one where source and destination
 * differ ("the intermediate node is chosen from the closest common
 * ancestors", [FB] §3.1). Its hop count is the minimal one plus 1 (a
 * detour in a dimension that needs a hop anyway) or plus 2.
 */
/* The channel in dimension dim (from coordinate c) with a queue shorter
 * than *bq, skipping coordinate skip; *bq becomes its queue. */
static uint32_t least_in_dim(const struct dp_router *r,
			     const struct df_tables *tb, uint32_t dim,
			     uint32_t c, uint32_t skip, uint32_t *bq)
{
	uint32_t best = DF_PORT_NONE;

	for (uint32_t m = 0; m < tb->k; m++) {
		uint32_t port, qq;
		if (m == c || m == skip)
			continue;
		port = dim_port(tb, dim, c, m);
		qq = q_of(r, port, 0);
		if (qq < *bq) {
			*bq = qq;
			best = port;
		}
	}
	return best;
}

static uint32_t clos_candidate(const struct dp_router *r,
			       const struct df_tables *tb, uint32_t dst,
			       uint32_t *q, uint32_t *extra, uint32_t *dim_out)
{
	uint32_t top = top_dim(tb, r->id, dst), best = DF_PORT_NONE;
	uint32_t x = r->id, y = dst;

	*q = UINT32_MAX;
	for (uint32_t dim = 1; dim <= top; dim++, x /= tb->k, y /= tb->k) {
		uint32_t c = x % tb->k, md = y % tb->k;
		uint32_t port = least_in_dim(r, tb, dim, c, md, q);
		if (port != DF_PORT_NONE) {
			best = port;
			*extra = c == md ? 2 : 1;
			*dim_out = dim;
		}
	}
	return best;
}

/*
 * CLOS AD in transit, still climbing ([FB] §3.1): "traversing each
 * dimension using the channel with the shortest queue for that dimension
 * (including a 'dummy queue' for staying at the current coordinate)".
 * dfemu's dummy queue is that of the productive channel when the
 * coordinate must still change (staying defers that very hop) and empty
 * when it already matches; ties stay. pk->inter holds the next dimension
 * to climb. Done climbing: dimension order to the destination.
 */
static void clos_climb(struct dp_router *r, const struct df_tables *tb,
		       struct dp_pkt *pk)
{
	uint32_t top = top_dim(tb, r->id, pk->dst_router);

	for (uint32_t dim = pk->inter; dim <= top; dim++) {
		uint32_t c = fb_digit(tb, r->id, dim);
		uint32_t md = fb_digit(tb, pk->dst_router, dim);
		uint32_t stay =
			c == md ? 0 : q_of(r, dim_port(tb, dim, c, md), 0);
		uint32_t best = least_in_dim(r, tb, dim, c, c, &stay);
		if (best != DF_PORT_NONE) {
			pk->inter = (uint16_t)(dim + 1);
			pk->out_port = (uint8_t)best;
			pk->out_vc = fb_vc(tb, pk->hops, 0, 1);
			return;
		}
	}
	pk->inter = DF_NO_GROUP;
	pk->phase = DF_PH_TO_DEST;
	dor_hop(r, tb, pk);
}

static void clos_ad_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	uint32_t dst = pk->dst_router, q_m, h_m, q_nm, extra = 0, dim = 0;
	uint32_t port_nm;

	if (pk->hops) {
		if (!(pk->flags & DP_PKT_NONMIN)) {
			if (!fb_eject(tb, pk, r->id))
				min_ad_hop(r, tb, pk, 0);
		} else if (pk->phase == DF_PH_TO_INTER) {
			clos_climb(r, tb, pk);
		} else {
			dor_hop(r, tb, pk);
		}
		return;
	}
	if (fb_eject(tb, pk, r->id)) {
		go_minimal(r, pk);
		return;
	}
	pk->out_port = (uint8_t)min_ad_port(r, tb, dst, 0, &q_m, &h_m);
	port_nm = clos_candidate(r, tb, dst, &q_nm, &extra, &dim);
	if (port_nm == DF_PORT_NONE ||
	    dp_ugal_minimal(q_m, h_m, q_nm, h_m + extra, run->ugal_bias)) {
		go_minimal(r, pk);
		pk->out_vc = fb_vc(tb, 0, h_m, 0);
		return;
	}
	go_nonminimal(r, pk, dim + 1);
	pk->out_port = (uint8_t)port_nm;
	pk->out_vc = fb_vc(tb, 0, 0, 1);
}

/* decide routes too (at_head); route has nothing left to do */
#define FB_ENGINE(var, fn, ...)                \
	const struct dp_routing_engine var = { \
		.decide = fn, .route = fb_routed, .at_head = 1, __VA_ARGS__}
#define FB_GREEDY .init = greedy_init, .round = greedy_round

FB_ENGINE(dp_fb_min_ad_engine, min_ad_decide, FB_GREEDY);
FB_ENGINE(dp_fb_ugal_engine, ugal_decide, FB_GREEDY);
FB_ENGINE(dp_fb_ugal_s_engine, ugal_s_decide);
FB_ENGINE(dp_fb_clos_ad_engine, clos_ad_decide);
