/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_LINK_H
#define DP_LINK_H

/*
 * A directed link: a delay line per VC plus the sender's serializer. A
 * departing packet starts when the serializer is free and the packet is
 * ready, finishes size/bandwidth later and is due at the far end one
 * latency after that; the receiver releases it once due. A credit goes
 * back in the packet's slot: the receiver frees the slot with the time the
 * credit is due upstream, one credit latency after the buffer space was
 * freed, and the sender takes it from there.
 *
 * The delay lines are the link's rings (vcring.h), one per VC, each with
 * as many slots as the VC's buffer at the far end has flits. The sender
 * also notes each packet's VC in the link's VC log, a byte per packet, and
 * the receiver takes the packets across the rings in that order, so the
 * link is still one delay line (docs/design.md, "The rings of a link").
 * The receiver notes the VC of each slot it frees in a second byte log,
 * and the sender takes the credits in that order, across the VCs: the
 * link has one credit channel, a delay line (no credit is due before the
 * one given before it).
 *
 * None of this is an rte_ring: every rte_ring is a memzone and DPDK 22.11
 * allows 2560 of them (RTE_MAX_MEMZONE), which a 1,056-terminal
 * dragonfly's 5,000 rings already exceed; and a slot carries the due time
 * beside the mbuf, so a receiver polling a link whose packet is not due
 * yet reads the ring's slot, not the mbuf. Each end writes only its own
 * cache lines and its own fields of a slot (sender: the rings' tails, the
 * VC log, the credit wake; receiver: the heads, the credit log, the
 * packet wake), publishing its counts with release stores.
 */
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "notify.h"
#include "vcring.h"
#include "wheel.h"

struct rte_mbuf;

/* A credit as the sender takes it: due upstream at due, for flits flits
 * of VC vc's buffer. */
struct dp_credit {
	uint64_t due;
	uint32_t vc;
	uint32_t flits;
};

/* A packet and a time: in an output queue (xbar.h), when it finished
 * crossing. */
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
	uint8_t *vcs; /* the VC log: each packet's VC, in order; NULL: no
		       * such link */
	/* the credit log: each freed slot's VC, in order; NULL: a lazy
	 * sender, which takes its credits from the slots when it sends
	 * (port.h, dp_port_credits_vc), and no credit wake */
	uint8_t *cvcs;
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
	/* the logs hold mask + 1 entries: at least as many as the rings
	 * have slots, so neither is ever full */
	uint32_t mask;
	uint8_t cls;
	uint8_t nvc; /* the rings: one per VC */
	/* a packet longer than this is due at the far end once its first
	 * head_bytes have arrived (cut-through into a router: one flit);
	 * 0: once all of it has (store-and-forward, and into a terminal) */
	uint16_t head_bytes;

	/* sender side: written by the upstream lcore */
	uint32_t sent __rte_cache_aligned; /* published: the VC log's tail */
	uint32_t ctaken, cseen;	   /* the credit log's head; its tail, read */
	uint32_t ecred[DF_MAX_VC]; /* per VC: slots whose credit it took */
	uint64_t busy_until;	   /* serializer free from this TSC on */
	uint64_t tx_pkts, tx_bytes;
	/* capture (tap.h): interface index + 1, 0 = not captured */
	uint32_t cap_if;
	/* failed (control/faults.h): the sender routes around it; set by
	 * the main lcore after the tables without it are in place */
	volatile uint8_t down;
	/* ... and what it writes when a credit comes back or a packet is
	 * captured */
	struct dp_wake cred_wake __rte_cache_aligned; /* for the credits */
	uint64_t cap_taken, cap_skipped; /* capture: handed over, and not */

	/* receiver side: written by the downstream lcore (the newest
	 * credit's due time is the rings' last_free) */
	uint32_t cfreed __rte_cache_aligned; /* published: credit log's tail */
	struct dp_wake pkt_wake;	     /* the receiver's, for the rings */
	uint32_t taken, seen; /* the VC log's head; its tail, as last read */

	/* read off the hop: reports, capture's VCs, notes between workers */
	uint32_t from, from_port, to, to_port __rte_cache_aligned;
	uint32_t cap_vcs; /* capture: the VCs captured */
	struct dp_notify_q *pkt_nq, *cred_nq;
	/* tx_pkts and tx_bytes at the first step at or after the window's
	 * start [0] and end [1], copied by the sending worker */
	uint64_t win_pkts[2], win_bytes[2] __rte_cache_aligned;

	/* the packets on their way: a ring per VC, its tails on the
	 * sender's line, its heads on the receiver's */
	struct dp_vcring ring;
} __rte_cache_aligned;

/* what a hop reads of a link is on its first line */
_Static_assert(offsetof(struct dp_link, sent) == RTE_CACHE_LINE_SIZE,
	       "struct dp_link's first line overflows");

/* Slots of a link with nvc VCs whose far buffers hold at most cap flits
 * each: dp_link_rings' slots. */
static inline uint32_t dp_link_nslots(uint32_t nvc, uint32_t cap)
{
	return nvc << dp_vcring_shift(cap);
}

/* Give l its rings: nvc VCs over slots (dp_link_nslots of them, zeroed),
 * for far buffers of at most cap flits per VC; and its VC and credit logs,
 * vcs and cvcs, of l->mask + 1 bytes each, at least as many. */
static inline void dp_link_rings(struct dp_link *l, struct dp_vcslot *slots,
				 uint8_t *vcs, uint8_t *cvcs, uint32_t nvc,
				 uint32_t cap)
{
	dp_vcring_init(&l->ring, slots, nvc, cap);
	l->vcs = vcs;
	l->cvcs = cvcs;
	l->nvc = (uint8_t)nvc;
}

/* Is l a link (build.c made it), or an unused place in the array? */
static inline int dp_link_exists(const struct dp_link *l)
{
	return l->vcs != NULL;
}

/* An entry due at due is on l: a packet in its rings, or a credit in a
 * freed slot if credit. Arm its consumer's wake w in the worker's wheel,
 * or note it to the consumer's worker (the note queues are read only for
 * a link between workers). */
static inline void dp_link_wake(struct dp_link *l, struct dp_wake *w,
				uint64_t due, int credit)
{
	if (likely(l->wheel != NULL))
		dp_wake_arm(l->wheel, w, due);
	else
		dp_notify(credit ? l->cred_nq : l->pkt_nq, w, due);
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
	uint64_t ser = dp_link_ser(l, len), head, ct;

	if (in_tail > ready + ser)
		ready = in_tail - ser;
	*start = l->busy_until > ready ? l->busy_until : ready;
	l->busy_until = *start + ser;
	l->tx_pkts++;
	l->tx_bytes += len;
	*tail = l->busy_until + l->lat_tsc;
	/* the head's arrival or the tail's, chosen by a mask: which one
	 * follows the packet's size and the link's kind, as good as random
	 * on a router's outputs in turn */
	head = *start + dp_link_ser(l, l->head_bytes) + l->lat_tsc;
	ct = -(uint64_t)((len > l->head_bytes) & (l->head_bytes != 0));
	return dp_after((head & ct) | (*tail & ~ct), now);
}

/* Packet m of flits flits onto l's VC vc, due at the far end at due. -1
 * when that ring is full or there is no such VC (never, while senders
 * hold credits: a ring has a slot per flit of its VC's far buffer). The
 * receiver's head is read again only when the copy says full. */
static inline int dp_link_push(struct dp_link *l, uint32_t vc,
			       struct rte_mbuf *m, uint32_t flits, uint64_t due)
{
	struct dp_vcring *r = &l->ring;

	if (unlikely(vc >= l->nvc))
		return -1;
	/* the slots whose credit it took are free; a sender that ignores
	 * credits (a peer's bridge) looks at what the receiver freed */
	if (unlikely(r->tx.tail[vc] - l->ecred[vc] > r->tx.mask &&
		     r->tx.tail[vc] - __atomic_load_n(&r->rx.head[vc],
						      __ATOMIC_ACQUIRE) >
			     r->tx.mask))
		return -1;
	l->vcs[l->sent & l->mask] = (uint8_t)vc;
	dp_vcring_put(r, vc, (uint64_t)(uintptr_t)m, flits, 0, due);
	__atomic_store_n(&l->sent, l->sent + 1, __ATOMIC_RELEASE);
	dp_link_wake(l, &l->pkt_wake, due, 0);
	return 0;
}

/*
 * The next packet on l, or NULL: the VC log says on which ring, and it is
 * that ring's first slot not taken yet, which dp_link_pop then takes. A
 * packet sent after another is due no earlier (dp_link_depart), so the
 * rings give the packets in the order of the one delay line they
 * replace. The log's tail is read again only when the copy says empty.
 */
static inline const struct dp_vcslot *dp_link_peek(struct dp_link *l)
{
	struct dp_vcring *r = &l->ring;
	uint32_t v;

	if (l->taken == l->seen) {
		l->seen = __atomic_load_n(&l->sent, __ATOMIC_ACQUIRE);
		if (l->taken == l->seen)
			return NULL;
	}
	v = l->vcs[l->taken & l->mask];
	return &r->rx.s[v][r->rx.taken[v] & r->rx.mask];
}

/* The VC of the packet dp_link_peek gave. */
static inline uint32_t dp_link_peek_vc(const struct dp_link *l)
{
	return l->vcs[l->taken & l->mask];
}

/* The packet dp_link_peek gave is taken: it stays in its slot, which is
 * the receiver's until its credit frees it (dp_link_credit_at). */
static inline void dp_link_pop(struct dp_link *l)
{
	l->ring.rx.taken[dp_link_peek_vc(l)]++;
	l->taken++;
}

/*
 * Receiver: flits flits of VC vc's buffer on l, free at due upstream (or
 * with the credit before it: the credit channel is a delay line; and
 * after now, dp_after), in the step at now. The credit goes in the slot
 * of the first packet of that VC whose credit has not gone yet, which is
 * freed: credits go in the order the packets came, per VC (a packet lost
 * out of order is moved down first, router.c). -1 when that packet was
 * not taken yet or holds another number of flits (a credit bug, or a
 * peer's bridge that sends credits it does not owe).
 */
static inline int dp_link_credit_at(struct dp_link *l, uint64_t due,
				    uint32_t vc, uint32_t flits, uint64_t now)
{
	struct dp_vcring *r = &l->ring;
	uint32_t h;
	struct dp_vcslot *s;

	if (unlikely(vc >= l->nvc))
		return -1;
	h = r->rx.head[vc];
	s = &r->rx.s[vc][h & r->rx.mask];
	if (unlikely(h == r->rx.taken[vc] || s->flits != flits))
		return -1;
	dp_vcring_free(r, vc, dp_after(due, now));
	due = r->rx.last_free; /* with the link's previous credit */
	if (l->cvcs == NULL)   /* a lazy sender */
		return 0;
	l->cvcs[l->cfreed & l->mask] = (uint8_t)vc;
	__atomic_store_n(&l->cfreed, l->cfreed + 1, __ATOMIC_RELEASE);
	dp_link_wake(l, &l->cred_wake, due, 1);
	return 0;
}

/* Return flits of buffer space on VC vc, freed at time t, upstream, in
 * the step at now. */
static inline int dp_link_credit(struct dp_link *l, uint64_t t, uint32_t vc,
				 uint32_t flits, uint64_t now)
{
	return dp_link_credit_at(l, t + l->credit_lat_tsc, vc, flits, now);
}

/* Sender: is a credit waiting on l's log, due or not (never, for a lazy
 * sender)? The log's tail is read again only when the copy says none. */
static inline int dp_link_credit_any(struct dp_link *l)
{
	if (l->ctaken != l->cseen)
		return 1;
	if (l->cvcs == NULL)
		return 0;
	l->cseen = __atomic_load_n(&l->cfreed, __ATOMIC_ACQUIRE);
	return l->ctaken != l->cseen;
}

/* Sender: the next credit on l into *c, which dp_link_credit_pop then
 * takes; 0: none. */
static inline int dp_link_credit_peek(struct dp_link *l, struct dp_credit *c)
{
	const struct dp_vcslot *s;
	uint32_t v;

	if (!dp_link_credit_any(l))
		return 0;
	v = l->cvcs[l->ctaken & l->mask];
	s = &l->ring.tx.s[v][l->ecred[v] & l->ring.tx.mask];
	c->due = s->free_at;
	c->vc = v;
	c->flits = s->flits;
	return 1;
}

static inline void dp_link_credit_pop(struct dp_link *l)
{
	l->ecred[l->cvcs[l->ctaken & l->mask]]++;
	l->ctaken++;
}

#endif
