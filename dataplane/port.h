/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_PORT_H
#define DP_PORT_H

/*
 * One end of a bidirectional link as a router (or a built-in terminal)
 * sees it: the link it sends on, the link it receives from, the credits it
 * holds for the downstream input buffers, and its own input VC queues.
 */
#include <stdint.h>

#include <rte_mbuf.h>

#include "config.h"
#include "link.h"
#include "packet.h"
#include "routing/routing.h"
#include "routing/ugal_rule.h"

/*
 * FIFO of one input VC: the slots of the incoming link's ring for that VC
 * (link.h), where its packets arrived. head counts the packets that left
 * the queue, tail those that came into it; the packet at position i is in
 * slot i + off. A packet lost on arrival is moved down below the head,
 * where its slot is freed at once, and off counts them, so head and tail
 * still count packets that passed through the queue (a table change's
 * settling and the watchdog read them).
 */
struct dp_vcq {
	struct dp_vcslot *slot;
	uint32_t head, tail, mask, off;
	uint64_t last_start; /* departure time of the packet popped last */
};

/* An output queue ([router] output_buffer_flits): packets that crossed
 * the crossbar, each with the time it finished crossing, in order. */
struct dp_oq {
	struct dp_flight *slot;
	uint32_t head, tail, mask;
	uint32_t flits;	 /* flits queued */
	uint64_t room_t; /* when the last packet left it, making room */
};

struct dp_port {
	struct dp_link *out; /* we send on it; its credits come back to us */
	struct dp_link *in;  /* we receive from it; we return its credits */
	/* What a hop reads and writes at its output is on the first two
	 * lines (docs/performance.md, "Lines a hop touches"). */
	uint8_t cls, nvc;
	uint32_t credits[DF_MAX_VC];  /* free flits downstream, per VC */
	uint32_t waiting[DF_MAX_VC];  /* flits routed to this output, waiting */
	uint64_t credit_t[DF_MAX_VC]; /* due time of the last credit */
	/* switch allocation (router.c): the input queue that comes first
	 * at this output, the one after the last it granted; [1]: the same
	 * for the packets that enter the escape here (OFAR's turn 1) */
	uint32_t arb[2];
	struct dp_vcq q[DF_MAX_VC] __rte_cache_aligned;
	uint32_t credit_full[DF_MAX_VC]; /* downstream buffer size */
	/* The papers' router ([router], xbar.h): this output's queue per VC
	 * (empty slots when there is none), the crossbar's input and output
	 * on this port busy until these TSCs, its time per byte into this
	 * output (the link's divided by the speedup), the VC it sent from
	 * last (round-robin). */
	struct dp_oq oq[DF_MAX_VC];
	uint64_t xin_free, xout_free;
	uint64_t xbar_cyc_per_byte_q16;
	uint32_t oq_rr;
};
_Static_assert(offsetof(struct dp_port, arb) + sizeof(uint32_t[2]) <=
		       2 * RTE_CACHE_LINE_SIZE,
	       "struct dp_port: a hop's output fields over two lines");

/*
 * Queue of this output ([DF] §3: "q: queue depth of an output port"; [FB]
 * §3.1: "the credit count for output virtual channels which reflects the
 * occupancy of the input queue on the far end"): flits routed to it and
 * waiting here, plus the flits in use in its downstream buffers as the
 * credits say (so UGAL-L_CR's delayed credits show, [DF] §4.3.2). One
 * VC, or all VCs when vc < 0.
 */
static inline uint32_t dp_port_occ(const struct dp_port *p, int vc)
{
	uint32_t q = 0;

	if (vc >= 0)
		return dp_output_q(p->credit_full[vc], p->credits[vc],
				   p->waiting[vc], p->oq[vc].flits);
	for (uint32_t v = 0; v < p->nvc; v++)
		q += dp_output_q(p->credit_full[v], p->credits[v],
				 p->waiting[v], p->oq[v].flits);
	return q;
}

static inline uint32_t dp_vcq_count(const struct dp_vcq *q)
{
	return q->tail - q->head;
}

/* The slot of the packet at position i of q. */
static inline struct dp_vcslot *dp_vcq_slot(const struct dp_vcq *q, uint32_t i)
{
	return &q->slot[(i + q->off) & q->mask];
}

/* The packet at the head of q (not empty). */
static inline struct rte_mbuf *dp_vcq_head(const struct dp_vcq *q)
{
	return dp_vcq_slot(q, q->head)->m;
}

/* Apply the credits that are due; remember when the next one is. A
 * router's port k passes its engine's credit hook on (the router r), a
 * terminal's NULL. */
static inline unsigned dp_port_credits_in(struct dp_port *p, uint64_t now,
					  uint64_t *next, dp_credit_hook on,
					  struct dp_router *r, uint32_t k)
{
	struct dp_credit c;
	uint64_t due = UINT64_MAX;
	unsigned n = 0;

	while (dp_link_credit_peek(p->out, &c)) {
		if (c.due > now) {
			if (c.due < *next)
				*next = c.due;
			due = c.due;
			break;
		}
		p->credits[c.vc] += c.flits;
		p->credit_t[c.vc] = c.due;
		if (unlikely(on != NULL))
			on(r, k, &c);
		dp_link_credit_pop(p->out);
		n++;
	}
	dp_wake_settle(&p->out->cred_wake, due);
	return n;
}

/*
 * A lazy sender (a link without a credit log, link.h) takes VC v's
 * credits due by now from the freed slots (vcring.h's walk), when it is
 * about to read credits[v] or credit_t[v] to send: all of them, so both
 * are what a sender that took each credit when due would have (the
 * credit's wake would have stepped it at the same step: a router that
 * waits for a credit stays active, router.c, no_park). An eager sender
 * has taken them already (dp_port_credits_in): nothing to do.
 */
static inline void dp_port_credits_vc(struct dp_port *p, uint32_t v,
				      uint64_t now)
{
	struct dp_link *l = p->out;
	struct dp_vccredit c;

	if (l->cvcs != NULL)
		return;
	c = (struct dp_vccredit){.cred = l->ecred[v],
				 .free = p->credits[v],
				 .credit_t = p->credit_t[v]};
	dp_vcring_credit(&l->ring, v, &c, now);
	l->ecred[v] = c.cred;
	p->credits[v] = c.free;
	p->credit_t[v] = c.credit_t;
}

/* Every VC's credits due by now taken (dp_port_credits_vc): dp_port_occ
 * of a lazy sender's port then reads what a credit log would have shown
 * at this step. */
static inline void dp_port_credits_due(struct dp_port *p, uint64_t now)
{
	for (uint32_t v = 0; v < p->nvc; v++)
		dp_port_credits_vc(p, v, now);
}

/* Next packet of the incoming link that is due, or NULL. The due time is
 * in the link's slot: a packet not due yet is not touched. It stays in
 * its slot (a router's input VC queue) until its credit frees it. */
static inline struct rte_mbuf *dp_port_rx_next(struct dp_port *p, uint64_t now,
					       uint64_t *next)
{
	const struct dp_vcslot *f = dp_link_peek(p->in);
	struct rte_mbuf *m;

	if (f == NULL) {
		dp_wake_settle(&p->in->pkt_wake, UINT64_MAX);
		return NULL;
	}
	if (f->due > now) {
		if (f->due < *next)
			*next = f->due;
		dp_wake_settle(&p->in->pkt_wake, f->due);
		return NULL;
	}
	m = f->m;
	dp_link_pop(p->in);
	return m;
}

#endif
