/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_XBAR_H
#define DP_XBAR_H

/*
 * The crossbar and output queues of the papers' router ([router]
 * speedup and output_buffer_flits; docs/router.md). [DF] §4.2 and [FB]
 * §3.2 simulate input-queued routers "with sufficient speedup" so that
 * the router is never the bottleneck; [DF] §4.3.2 reasons with the output
 * queue q0 that fills before the downstream queue shows congestion.
 *
 * With an output queue, the packet at the head of an input VC crosses the
 * crossbar into its output VC's queue when the crossbar's input (its own
 * port) and output are free and that queue has room for the whole packet:
 * a full output queue blocks the crossbar, downstream credits do not. The
 * crossing takes the output link's serialization time divided by the
 * speedup, so an input can serve several outputs in one link time; the
 * input buffer is free, and its credit goes upstream, when it ends. The
 * link then sends from the output queues, round-robin over the VCs, when
 * its serializer is free and the downstream VC has credits for the whole
 * packet (virtual cut-through, as without output queues).
 *
 * Pure functions on the ports, so the tests drive them on crafted states.
 */
#include <stdint.h>

#include <rte_mbuf.h>

#include "packet.h"
#include "port.h"

/* The crossbar's time for len bytes into output op, in TSC cycles. */
static inline uint64_t dp_xbar_time(const struct dp_port *op, uint32_t len)
{
	return (op->xbar_cyc_per_byte_q16 * len) >> 16;
}

/* Can the crossbar move a packet of flits flits from input port ip into
 * output port op's queue for VC vc (holding at most cap flits) now? */
static inline int dp_xbar_can(const struct dp_port *ip,
			      const struct dp_port *op, uint32_t vc,
			      uint32_t flits, uint32_t cap, uint64_t now)
{
	return ip->xin_free <= now && op->xout_free <= now &&
	       op->oq[vc].flits + flits <= cap;
}

/*
 * Move packet m (flits flits), ready at ready, from input ip into op's
 * queue for VC vc: the crossing starts when the packet is ready, both
 * crossbar ports are free and the queue last made room (as a packet
 * leaves no earlier than the credit it uses); it takes the crossbar's
 * time, or until the packet's tail has come in if that is later
 * (cut-through), and both ports stay busy until it ends. Returns the
 * end, when its input space is free; *start says when it began. The link
 * may start sending it from the start of the crossing (cut-through: the
 * crossbar is at least as fast as the link, so the link never overtakes
 * it), so a router adds no store-and-forward time of its own.
 */
static inline uint64_t dp_xbar_move(struct dp_port *ip, struct dp_port *op,
				    uint32_t vc, struct rte_mbuf *m,
				    uint32_t flits, uint64_t ready,
				    uint64_t *start)
{
	struct dp_oq *q = &op->oq[vc];
	struct dp_flight *f = &q->slot[q->tail++ & q->mask];
	uint64_t s = ready, end, tail = dp_pkt(m)->tail_tsc;

	if (ip->xin_free > s)
		s = ip->xin_free;
	if (op->xout_free > s)
		s = op->xout_free;
	if (q->room_t > s)
		s = q->room_t;
	*start = s;
	/* cut-through: a packet still coming in crosses as it comes, and
	 * the crossing ends with its last byte */
	end = s + dp_xbar_time(op, m->pkt_len);
	if (tail > end)
		end = tail;
	ip->xin_free = op->xout_free = end;
	f->due = s;
	f->m = m;
	q->flits += flits;
	return ip->xin_free;
}

/* The head of op's queue for VC v, or NULL. */
static inline struct dp_flight *dp_oq_head(struct dp_port *op, uint32_t v)
{
	struct dp_oq *q = &op->oq[v];

	return q->head == q->tail ? NULL : &q->slot[q->head & q->mask];
}

/*
 * The VC the link sends from next: round-robin from the one after the VC
 * it sent from last, among those whose head packet has begun to cross by now
 * and has credits downstream for all its flits; -1 if none.
 */
static inline int dp_oq_pick(struct dp_port *op, uint64_t now)
{
	for (uint32_t i = 1; i <= op->nvc; i++) {
		uint32_t v = (op->oq_rr + i) % op->nvc;
		const struct dp_flight *f = dp_oq_head(op, v);

		if (f != NULL && f->due <= now &&
		    op->credits[v] >= dp_pkt(f->m)->flits)
			return (int)v;
	}
	return -1;
}

/* Take the head of op's queue for VC v off the queue: it left on the
 * link at start, which is when its room is free again. */
static inline void dp_oq_pop(struct dp_port *op, uint32_t v, uint32_t flits,
			     uint64_t start)
{
	op->oq[v].head++;
	op->oq[v].flits -= flits;
	op->oq[v].room_t = start;
	op->oq_rr = v;
}

/* Packets in op's output queues. */
static inline uint32_t dp_oq_count(const struct dp_port *op)
{
	uint32_t n = 0;

	for (uint32_t v = 0; v < op->nvc; v++)
		n += op->oq[v].tail - op->oq[v].head;
	return n;
}

#endif
