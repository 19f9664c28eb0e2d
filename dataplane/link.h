/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_LINK_H
#define DP_LINK_H

/*
 * A directed link: a FIFO delay line plus the sender's serializer. A departing
 * packet starts when the serializer is free and the packet is ready, finishes
 * size/bandwidth later and is due at the far end one latency after that; the
 * receiver releases it once due. Credits travel on a second FIFO the other way,
 * each message due one credit latency after the buffer space was freed.
 *
 * The two FIFOs are dfemu's own single-producer/single-consumer queues,
 * not rte_rings: every rte_ring is a memzone and DPDK 22.11 allows 2560 of
 * them (RTE_MAX_MEMZONE), which a 1,056-terminal dragonfly's 5,000 rings
 * already exceed; and a slot carries the due time beside the mbuf, so a
 * receiver polling a link whose packet is not due yet reads the FIFO's
 * own cache line, not the mbuf. Each end writes only its own cache line
 * (sender: packets' tail, credits' head, the credit FIFO's wake;
 * receiver: the converse), with fifo.h's ends.
 */
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "fifo.h"
#include "notify.h"
#include "wheel.h"

struct rte_mbuf;

struct dp_credit {
	uint64_t due;
	uint32_t vc;
	uint32_t flits;
};

/* A packet on its way: its due time at the far end, and the packet. */
struct dp_flight {
	uint64_t due;
	struct rte_mbuf *m;
};

struct dp_link {
	/*
	 * Five cache lines, grouped by who writes them and by what a hop
	 * reads (docs/performance.md, "Lines a hop touches"): a hop used
	 * to touch all six lines of the old layout. The first line holds
	 * what both ends read on every packet and credit, written before
	 * the run (drop_until: by the main lcore on a failure).
	 */
	struct dp_flight *pkt;	/* packet FIFO; NULL: no such link */
	struct dp_credit *cred; /* credit FIFO, the other way */
	/* both ends on one worker: its wheel, in which a producer arms the
	 * consumer's wake itself (wheel.h); NULL: it sends a note on the
	 * consumer's queue (notify.h) when there is one */
	struct dp_wheel *wheel;
	uint64_t lat_tsc;
	uint64_t cyc_per_byte_q16; /* 16.16 fixed point; 0 = unlimited */
	uint64_t credit_lat_tsc;
	/* failed with faults.in_flight = drop: packets due up to this TSC
	 * are lost on arrival (UINT64_MAX while down); 0 = none */
	volatile uint64_t drop_until;
	uint32_t mask; /* both FIFOs hold mask + 1 entries */
	uint8_t cls;
	/* a packet longer than this is due at the far end once its first
	 * head_bytes have arrived (cut-through into a router: one flit);
	 * 0: once all of it has (store-and-forward, and into a terminal) */
	uint16_t head_bytes;

	/* sender side: written by the upstream lcore */
	struct dp_fifo_end pkt_tx __rte_cache_aligned; /* tail */
	struct dp_fifo_end cred_rx;		       /* head */
	uint64_t busy_until; /* serializer free from this TSC on */
	uint64_t tx_pkts, tx_bytes;
	/* capture (tap.h): interface index + 1, 0 = not captured */
	uint32_t cap_if;
	/* failed (control/faults.h): the sender routes around it; set by
	 * the main lcore after the tables without it are in place */
	volatile uint8_t down;
	/* ... and what it writes when a credit comes back or a packet is
	 * captured */
	struct dp_wake cred_wake __rte_cache_aligned; /* for the credit FIFO */
	uint64_t cap_taken, cap_skipped; /* capture: handed over, and not */

	/* receiver side: written by the downstream lcore (the credit
	 * FIFO's last due is its newest slot's, dp_link_credit_at) */
	struct dp_fifo_end pkt_rx __rte_cache_aligned; /* head */
	struct dp_fifo_end cred_tx;		       /* tail */
	struct dp_wake pkt_wake; /* the receiver's, for the packet FIFO */

	/* read off the hop: reports, capture's VCs, notes between workers */
	uint32_t from, from_port, to, to_port __rte_cache_aligned;
	uint32_t cap_vcs; /* capture: the VCs captured */
	struct dp_notify_q *pkt_nq, *cred_nq;
	/* tx_pkts and tx_bytes at the first step at or after the window's
	 * start [0] and end [1], copied by the sending worker */
	uint64_t win_pkts[2], win_bytes[2] __rte_cache_aligned;
} __rte_cache_aligned;

/* what a hop reads of a link is on its first line */
_Static_assert(offsetof(struct dp_link, pkt_tx) == RTE_CACHE_LINE_SIZE,
	       "struct dp_link's first line overflows");

/* An entry due at due is in one of l's FIFOs (the credit FIFO if
 * credit): arm its consumer's wake w in the worker's wheel, or note it to
 * the consumer's worker (the note queues are read only for a link
 * between workers). */
static inline void dp_link_wake(struct dp_link *l, struct dp_wake *w,
				uint64_t due, int credit)
{
	if (likely(l->wheel != NULL))
		dp_wake_arm(l->wheel, w, due);
	else
		dp_notify(credit ? l->cred_nq : l->pkt_nq, w, due);
}

/* The due time of the newest credit pushed on l: the credit FIFO is a
 * delay line, so no credit is due before it. The producer's own last
 * slot, which the consumer only reads; the FIFO's memory starts zeroed
 * (a calloc, or emu/arena.c's rte_zmalloc), so before the first credit
 * it reads 0. */
static inline uint64_t dp_link_credit_last(const struct dp_link *l)
{
	return l->cred[(l->cred_tx.own - 1) & l->mask].due;
}

/* Serialization time of len bytes on link l, in TSC cycles. */
static inline uint64_t dp_link_ser(const struct dp_link *l, uint32_t len)
{
	return (l->cyc_per_byte_q16 * len) >> 16;
}

/* What a step at now sends is due after now, so that no node sees in
 * a step what another sent in the same one, whatever their order: the
 * due time of a link shorter than the quantum moves to just after the
 * step (docs/realtime.md, "The quantum"). */
static inline uint64_t dp_after(uint64_t due, uint64_t now)
{
	return due > now ? due : now + 1;
}

/*
 * Send, in the step at now: the packet starts at max(serializer free,
 * ready), where ready is the latest of its arrival and the credit that
 * let it go (the caller passes it), and no earlier than lets it finish
 * after in_tail, when its last byte came in here (0: it is all here; a
 * faster output than input waits for it). *start says when it starts,
 * *tail when its last byte arrives at the far end. Returns its due time
 * there: its tail's arrival, or its head flit's on a cut-through link
 * (docs/design.md, "Time, links and credits").
 */
static inline uint64_t dp_link_depart(struct dp_link *l, uint64_t ready,
				      uint32_t len, uint64_t in_tail,
				      uint64_t *start, uint64_t *tail,
				      uint64_t now)
{
	uint64_t ser = dp_link_ser(l, len), due;

	if (in_tail > ready + ser)
		ready = in_tail - ser;
	*start = l->busy_until > ready ? l->busy_until : ready;
	l->busy_until = *start + ser;
	l->tx_pkts++;
	l->tx_bytes += len;
	*tail = l->busy_until + l->lat_tsc;
	due = len > l->head_bytes && l->head_bytes
		      ? *start + dp_link_ser(l, l->head_bytes) + l->lat_tsc
		      : *tail;
	return dp_after(due, now);
}

/* Packet m onto l, due at the far end at due. -1 when the FIFO is full
 * (never, while senders hold credits: it holds the whole far buffer). */
static inline int dp_link_push(struct dp_link *l, struct rte_mbuf *m,
			       uint64_t due)
{
	struct dp_flight *f;

	if (unlikely(!dp_fifo_room(&l->pkt_tx, &l->pkt_rx, l->mask)))
		return -1;
	f = &l->pkt[l->pkt_tx.own & l->mask];
	f->due = due;
	f->m = m;
	dp_fifo_publish(&l->pkt_tx);
	dp_link_wake(l, &l->pkt_wake, due, 0);
	return 0;
}

/* The packet at the head of l, or NULL. */
static inline const struct dp_flight *dp_link_peek(struct dp_link *l)
{
	if (!dp_fifo_any(&l->pkt_rx, &l->pkt_tx))
		return NULL;
	return &l->pkt[l->pkt_rx.own & l->mask];
}

static inline void dp_link_pop(struct dp_link *l)
{
	dp_fifo_publish(&l->pkt_rx);
}

/* A credit of flits on VC vc onto l's credit FIFO in the step at now,
 * due upstream at due (or with the one before it: the FIFO is a delay
 * line; and after now, dp_after). */
static inline int dp_link_credit_at(struct dp_link *l, uint64_t due,
				    uint32_t vc, uint32_t flits, uint64_t now)
{
	struct dp_credit *c;
	uint64_t last;

	if (unlikely(!dp_fifo_room(&l->cred_tx, &l->cred_rx, l->mask)))
		return -1;
	last = dp_link_credit_last(l);
	c = &l->cred[l->cred_tx.own & l->mask];
	due = dp_after(due, now);
	c->due = due < last ? last : due;
	c->vc = vc;
	c->flits = flits;
	dp_fifo_publish(&l->cred_tx);
	dp_link_wake(l, &l->cred_wake, c->due, 1);
	return 0;
}

/* Return flits of buffer space on VC vc, freed at time t, upstream, in
 * the step at now. */
static inline int dp_link_credit(struct dp_link *l, uint64_t t, uint32_t vc,
				 uint32_t flits, uint64_t now)
{
	return dp_link_credit_at(l, t + l->credit_lat_tsc, vc, flits, now);
}

/* The credit at the head of l's credit FIFO, or NULL. */
static inline const struct dp_credit *dp_link_credit_peek(struct dp_link *l)
{
	if (!dp_fifo_any(&l->cred_rx, &l->cred_tx))
		return NULL;
	return &l->cred[l->cred_rx.own & l->mask];
}

static inline void dp_link_credit_pop(struct dp_link *l)
{
	dp_fifo_publish(&l->cred_rx);
}

#endif
