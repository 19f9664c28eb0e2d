/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ROUTING_H
#define DP_ROUTING_H

/*
 * One interface for every routing algorithm (DESIGN.md §5), one file per
 * algorithm, in the manner of testpmd's forwarding engines.
 */
#include "config.h"
#include "packet.h"

struct dp_router;

struct dp_routing_engine {
	const char *name;
	/* Path class and intermediate group ([DF] §4.1-4.2), for the packet
	 * at the head of its queue: at the source router, once per packet,
	 * and again at each router a packet reaches on a provisional minimal
	 * hop (DF_PH_SRC_MIN: PAR only). */
	void (*decide)(struct dp_router *r, struct dp_pkt *pk);
	/* At every router, for the packet at the head of an input queue:
	 * output port and VC into pk->out_port / pk->out_vc. */
	void (*route)(struct dp_router *r, struct dp_pkt *pk);
	/* Fully adaptive engines (OFAR) instead of decide/route: at every
	 * attempt to move the packet at the head of an input queue, choose an
	 * output and VC that can take it now (serializer free, credits for
	 * the whole packet); 0 = none, try again later. in_port: the port
	 * whose input queue holds the packet (a terminal port: injection). */
	int (*select)(struct dp_router *r, struct dp_pkt *pk, uint32_t in_port,
		      uint64_t now);
	/* Route at the head of the input queue at every router, not on
	 * arrival: decide is then called at every router and chooses the
	 * output itself (the adaptive engines of [FB] §3.1, OFAR). */
	uint8_t at_head;
	/* Greedy allocator ([FB] §3.1): every decision of one allocation
	 * round reads the occupancy snapshot taken at its start (port.snap)
	 * instead of the live counts, which each decision updates. */
	uint8_t greedy;
};

extern const struct dp_routing_engine dp_min_engine;
extern const struct dp_routing_engine dp_val_engine;
extern const struct dp_routing_engine dp_ugal_l_engine;
extern const struct dp_routing_engine dp_ugal_g_engine;
extern const struct dp_routing_engine dp_ugal_l_vc_engine;
extern const struct dp_routing_engine dp_ugal_l_vch_engine;
extern const struct dp_routing_engine dp_ugal_l_cr_engine;
extern const struct dp_routing_engine dp_par_engine;
extern const struct dp_routing_engine dp_ofar_engine;
extern const struct dp_routing_engine dp_shortest_engine;
extern const struct dp_routing_engine dp_fb_val_engine;
extern const struct dp_routing_engine dp_fb_min_ad_engine;
extern const struct dp_routing_engine dp_fb_ugal_engine;
extern const struct dp_routing_engine dp_fb_ugal_s_engine;
extern const struct dp_routing_engine dp_fb_clos_ad_engine;
extern const struct dp_routing_engine dp_vc_ordered_engine;

const struct dp_routing_engine *dp_routing_engine(enum df_algorithm alg);
/* The engine of alg on a flattened butterfly (fbfly.c). */
const struct dp_routing_engine *dp_fb_routing_engine(enum df_algorithm alg);

/* The UGAL decision at router r for intermediate candidate gi (ugal.c);
 * the engines draw gi at random, tests pass it. mode: enum dp_ugal_mode. */
#include "ugal_rule.h"
void dp_ugal_decide(struct dp_router *r, struct dp_pkt *pk, uint32_t gi,
		    enum dp_ugal_mode mode);

/* vc-ordered (PB): router x's global channels' congestion flags, bit j
 * for its j-th global port (ugal.c); vc-ordered's routing stamps them
 * on packets it routes onto local links ([routing] pb_flags). */
uint32_t dp_pb_flags(const struct dp_router *x);

/* Table routing shared by MIN and VAL (df_next_hop). */
void dp_table_route(struct dp_router *r, struct dp_pkt *pk);

#endif
