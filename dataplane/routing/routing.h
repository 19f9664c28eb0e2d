/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ROUTING_H
#define DP_ROUTING_H

/*
 * One interface for every routing algorithm (docs/design.md, Routing
 * engines), one file per algorithm, in the manner of testpmd's forwarding
 * engines.
 */
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "packet.h"

struct dp_router;
struct dp_credit;

/* What a router's engine does with a credit that came back to its port k
 * (dp_routing_engine.credit; port.h, dp_port_credits_in). */
typedef void (*dp_credit_hook)(struct dp_router *r, uint32_t k,
			       const struct dp_credit *c);

/* Where an engine's own state comes from (init): zeroed memory from the
 * emulator's arena, freed with it; NULL when out of memory. */
struct dp_eng_mem {
	void *(*zalloc)(void *ctx, size_t size);
	void *ctx;
};

/* A fully adaptive engine's choice for one attempt to move a packet
 * (select): the output, and what leaving with it does to the packet and
 * the router, which the engine applies (commit) only when the packet
 * leaves with it; a packet that does not (it waits for its turn at the
 * output, router.c allocate) chooses again as if it never had. */
struct dp_choice {
	uint8_t port, vc;
	uint8_t act; /* the engine's own; 0: nothing to commit */
	/* the output's round-robin turn it waits for (port.arb): 0 the
	 * output's, 1 that of the moves into the escape (OFAR) */
	uint8_t turn;
};

/* An algorithm's hooks; its name and what it needs of the control plane
 * are its line in control/algorithms.h. */
struct dp_routing_engine {
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
	 * the whole packet) into *c; 0 = none, try again later. in_port: the
	 * port whose input queue holds the packet (a terminal port:
	 * injection). It changes neither the packet nor the router, but
	 * for the router's random stream (r->rng: a misroute's pick). */
	int (*select)(struct dp_router *r, const struct dp_pkt *pk,
		      uint32_t in_port, uint64_t now, struct dp_choice *c);
	/* The packet leaves with select's choice c (act != 0): apply it. */
	void (*commit)(struct dp_router *r, struct dp_pkt *pk,
		       const struct dp_choice *c);
	/* Optional, with select: a packet has entered an input queue of r
	 * (queued), and left it (dequeued, when it moves): OFAR counts it
	 * meanwhile in its minimal output's waiting[0]. */
	void (*queued)(struct dp_router *r, struct dp_pkt *pk);
	void (*dequeued)(struct dp_router *r, const struct dp_pkt *pk);
	/* Route at the head of the input queue at every router, not on
	 * arrival: decide is then called at every router and chooses the
	 * output itself (the adaptive engines of [FB] §3.1, OFAR). */
	uint8_t at_head;
	/* The path phases (bit 1 << enum df_phase) whose packets arriving
	 * in transit are not routed on arrival but decided again at the
	 * head of the queue, on the occupancy of that moment: PAR's
	 * provisional minimal hop. Others are routed on arrival. */
	uint8_t decide_phases;
	/* It reads no occupancy but that of its own router's ports, after
	 * dp_port_credits_due (port.h) has taken their credits due: so its
	 * routers send lazily (no credit log and no credit wake, as MIN's;
	 * emu/build.c), and read what an eager sender's credits would say
	 * at that step. */
	uint8_t own_occ;
	/*
	 * An engine that keeps state of its own (docs/design.md, "Routing
	 * engines"): the router calls these, and knows none of the state.
	 * A hook left NULL costs the hop one test of a pointer on a line it
	 * reads anyway.
	 */
	/* Once per router, when its ports are built: the engine's state
	 * into r->eng_priv, from mem, as the run's configuration cfg asks.
	 * -1 when out of memory. */
	int (*init)(struct dp_router *r, const struct df_config *cfg,
		    const struct dp_eng_mem *mem);
	/* A packet of flits left input port k (VC vc) through output o (VC
	 * out_vc), serialised from start to finish, when its input space is
	 * free: 1 when the engine keeps that credit (it sends it later, from
	 * step, and marks it in r->eng_busy), 0 when the router sends it
	 * upstream at finish. */
	int (*leave)(struct dp_router *r, uint32_t k, uint32_t vc, uint32_t o,
		     uint32_t out_vc, uint64_t start, uint64_t finish,
		     uint32_t flits);
	/* A credit came back to output k. */
	dp_credit_hook credit;
	/* Every step, after the credits (how many came) and the arrivals,
	 * before switch allocation. */
	void (*step)(struct dp_router *r, uint64_t now, unsigned credits);
	/* At the start of a switch-allocation round with packets queued
	 * (the greedy allocators of [FB] §3.1 take their snapshot). */
	void (*round)(struct dp_router *r);
};

/* Packet pk leaves router r with choice c of engine eng (select): its
 * output, and the rest of the choice (commit). */
static inline void dp_choice_apply(const struct dp_routing_engine *eng,
				   struct dp_router *r, struct dp_pkt *pk,
				   const struct dp_choice *c)
{
	pk->out_port = c->port;
	pk->out_vc = c->vc;
	if (c->act)
		eng->commit(r, pk, c);
}

/* Every engine of control/algorithms.h's list, and dp_no_engine, which
 * stands where an algorithm does not run on a topology (engines.c). */
#define DP_ENGINE_DECL(id, name, dfe, fbe, ...) \
	extern const struct dp_routing_engine dfe, fbe;
DF_ALGORITHMS(DP_ENGINE_DECL)
#undef DP_ENGINE_DECL

/* The engine of algorithm alg on a dragonfly, or (flatfly) on a
 * flattened butterfly; NULL where it does not run (config_check.c refuses
 * that). */
const struct dp_routing_engine *dp_routing_engine(enum df_algorithm alg,
						  int flatfly);

/* The UGAL decision at router r for intermediate candidate gi (ugal.c);
 * the engines draw gi at random, tests pass it. mode: enum dp_ugal_mode. */
#include "ugal_rule.h"
void dp_ugal_decide(struct dp_router *r, struct dp_pkt *pk, uint32_t gi,
		    enum dp_ugal_mode mode);

/* vc-ordered (PB): router x's global channels' congestion flags, bit j
 * for its j-th global port (ugal.c); vc-ordered's routing stamps them
 * on packets it routes onto local links ([routing] pb_flags). */
uint32_t dp_pb_flags(const struct dp_router *x);

/* vc-ordered's own state on a packet (packet.h, eng), with piggybacked
 * flags: DP_PB_STAMP, the sending router's index in its group <<
 * DP_PB_BITS and its global channels' congestion flags (bit j: its j-th
 * global port); 0 after a global hop. */
#define DP_PB_PKT(pk) ((pk)->eng.u32[0])
#define DP_PB_STAMP   0x80000000u /* DP_PB_PKT holds a router's flags */
#define DP_PB_BITS    24	  /* global ports a stamp can flag */

/* Table routing shared by MIN and VAL (df_next_hop). */
void dp_table_route(struct dp_router *r, struct dp_pkt *pk);

#endif
