/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ROUTER_H
#define DP_ROUTER_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "port.h"
#include "stats.h"
#include "wheel.h"

struct dp_lcore;
struct dp_routing_engine;

#define DP_MAX_PORTS DF_MAX_RADIX /* a port is a bit of a uint64_t */
/* Input queue index = port * DP_VC_STRIDE + VC: a power of two, so the
 * hot loop splits an index with a shift, not a division by DF_MAX_VC */
#define DP_VC_STRIDE 8
#define DP_QWORDS    (DP_MAX_PORTS * DP_VC_STRIDE / 64)
_Static_assert(DP_MAX_PORTS <= 64, "port masks are one uint64_t");
_Static_assert(DF_MAX_VC <= DP_VC_STRIDE, "a port's VCs fit its stride");

/* A router: a poll task; several may share one lcore. What every step
 * reads comes first, in the first two cache lines. */
struct dp_router {
	uint32_t id, group;
	uint32_t nports, nq; /* nq = nports * DP_VC_STRIDE input queues */
	uint32_t nqw;	     /* words of qmask in use: (nq + 63) / 64 */
	uint32_t rr;	     /* round-robin start of switch allocation */
	/* ports whose incoming rings, and those whose credits, have
	 * something due (their wakes fired) */
	uint64_t poll_pkt, poll_cred;
	uint64_t always; /* ports fed from another instance: every sweep */
	struct dp_lcore *lc;
	/* = lc->run->eng, one load away in the hot loop */
	const struct dp_routing_engine *eng;
	/* what its engine holds back for its step hook to release later,
	 * as the engine's own bits (UGAL-L_CR: the input ports that hold
	 * credits); not 0: the router has work of its own at every step */
	uint64_t eng_busy;
	/* [router] output_buffer_flits (xbar.h; 0: no output queues), and
	 * the ports whose output queues hold packets */
	uint64_t oq_ports;
	/* Its queued packets all wait for an output's serializer: the
	 * router sleeps until the first is free, park_until (park_wake;
	 * their NULL wheel: never), not stepped on every sweep meanwhile
	 * (router.c, park). Here, not with park_wake: every step reads
	 * them. */
	uint64_t park_until;
	uint32_t oq_cap;
	uint32_t parked;
	/* its random stream (dp_rand): the engines' draws for the packets
	 * here. On a line every step reads, so a draw adds none to the hop;
	 * nqw is on the first line and node, which no step reads, at the
	 * end, which makes room here without moving qmask */
	uint64_t rng;
	/* its counters (dataplane/stats.h's list): forwarded here, with
	 * what every step reads; the path counters after qmask */
	DP_ROUTER_HOP_COUNTERS(DP_ROUTER_FIELD)
	uint64_t qmask[DP_QWORDS]; /* non-empty input queues, bit
				    * port * DP_VC_STRIDE + vc */
	DP_ROUTER_PATH_COUNTERS(DP_ROUTER_FIELD)
	/* its engine's own state (routing.h, init; NULL: none) */
	void *eng_priv;
	struct dp_wake park_wake[2];
	uint64_t park_poll; /* the park wakes' poll word (unused) */
	uint32_t node; /* index among its worker's nodes (wheel.h): building
			* the wakes only, so out of the step's lines */
	struct dp_port port[] __rte_cache_aligned;
} __rte_cache_aligned;

/* One poll step: credits in, arrivals in, switch allocation (and, with
 * output queues, the links' departures from them). Returns the
 * number of events handled (0 = idle). */
unsigned dp_router_step(struct dp_router *r, uint64_t now);

/* Ask for the lines of r's links with arrivals due (its fired wakes'
 * ports) that its step reads first (dp_link_peek): asked for while the
 * node before it steps, they are in by the time r's step reads them. */
static inline void dp_router_prefetch(const struct dp_router *r)
{
	for (uint64_t p = r->poll_pkt; p; p &= p - 1) {
		const struct dp_link *l = r->port[__builtin_ctzll(p)].in;

		rte_prefetch0(l);
		rte_prefetch0(&l->sent);
		rte_prefetch0(&l->taken);
		rte_prefetch0(&l->ring.rx);
	}
}

/* Are packets queued in the router's input queues? */
static inline int dp_router_queued(const struct dp_router *r)
{
	uint64_t q = 0;

	for (uint32_t w = 0; w < r->nqw; w++)
		q |= r->qmask[w];
	return q != 0;
}

/* Has the router work of its own for the next step (packets queued in
 * its input queues that are not parked, packets in its output queues,
 * what its engine holds back)? Ports fed from another instance are
 * polled at every step the worker runs (lc->pollers), which is no work
 * of its own. */
static inline int dp_router_busy(const struct dp_router *r)
{
	return (!r->parked && dp_router_queued(r)) ||
	       (r->eng_busy | r->oq_ports) != 0;
}

#endif
