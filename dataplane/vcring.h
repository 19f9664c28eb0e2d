/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_VCRING_H
#define DP_VCRING_H

/*
 * A link's rings, one per VC, each at once the link's delay line, the
 * receiver's input VC queue and the credit path back (docs/design.md,
 * "The rings of a link"; docs/hop.md, "The minimal loop").
 *
 * The sender writes a packet into the slot at its VC's tail, with the
 * time it is due at the far end, and publishes the tail. The receiver
 * takes it from that slot once due (dp_vcring_at can look past the head
 * without moving anything), and once the packet has left frees the slot
 * with the time its credit is due back upstream, and publishes the head.
 * The sender counts its credits from the freed slots, and only when the
 * credits it has counted are too few for the packet: while a packet fits
 * without, no slot and no line of the receiver's is read. So there is no
 * credit message, and no wake for one.
 *
 * Virtual cut-through, in flits: a packet of f flits goes when f fit in
 * the receiver's buffer for its VC. Every packet holds a flit at least,
 * so a ring of as many slots as the buffer has flits (rounded up to a
 * power of two) is never short of slots while the flits fit.
 *
 * Credits come back in the order the slots were taken: a VC queue is a
 * FIFO, so its slots are freed in order; and a credit that would be due
 * before the one freed before it on the link, on any VC, is due with it:
 * the link has one credit channel, a delay line. No slot is freed out of
 * order.
 *
 * Who writes what: the shared part is three cache lines, the sender's
 * (tails) and the receiver's two: one with its own copy of the slots'
 * address, which taking a packet reads, and the heads, which the sender
 * reads for its credits; the sender keeps what it counted (credited index,
 * free flits) in its own state, struct dp_vccredit. The indices are
 * published with a release store and read with an acquire load, so the
 * two ends may run on two workers; on one, these are plain moves on x86.
 * Plain C with no DPDK, so the minimal loop (bench/lean_hop.c) runs on it.
 */
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* One packet's place: 32 bytes, two to a cache line. */
struct dp_vcslot {
	uint64_t due;	  /* sender: when it is at the receiver */
	uint64_t free_at; /* receiver: when its credit is due upstream */
	union {
		void *m;       /* sender: the packet */
		uint64_t word; /* ... or the packet's state by value */
	};
	uint32_t flits; /* sender: the buffer it holds there */
	uint32_t aux;	/* sender: the user's (e.g. a route) */
};

/* A link's rings: VC v's mask + 1 slots start at s[v], in each end's
 * line (an address per VC, not one and a shift: the slot of an index
 * takes two instructions fewer, and the minimal loop 5 cycles a hop). */
struct dp_vcring {
	/* the sender's line */
	struct {
		struct dp_vcslot *s[DF_MAX_VC];
		uint32_t tail[DF_MAX_VC]; /* published: slots written */
		uint32_t mask;
	} tx __attribute__((aligned(64)));

	/* the receiver's lines: what taking a packet reads, then what
	 * freeing a slot writes (the sender reads head there) */
	struct {
		struct dp_vcslot *s[DF_MAX_VC];
		/* a receiver that queues its packets in the ring (link.h):
		 * the slots it has taken into its queue, from the head on */
		uint32_t taken[DF_MAX_VC];
		uint32_t mask;
		/* published: slots freed */
		uint32_t head[DF_MAX_VC] __attribute__((aligned(64)));
		uint64_t last_free; /* the newest credit's due time */
	} rx __attribute__((aligned(64)));
};

/* The sender's own count for one VC of a link. */
struct dp_vccredit {
	uint32_t cred;	   /* slots whose credit it has taken */
	uint32_t free;	   /* flits free downstream, as counted */
	uint64_t credit_t; /* due time of the last credit taken */
};

/* log2 of the slots per VC for receiver buffers of at most cap flits. */
static inline uint32_t dp_vcring_shift(uint32_t cap)
{
	uint32_t sh = 0;

	while ((1u << sh) < cap)
		sh++;
	return sh;
}

/* Set up r for nvc VCs over slots (nvc << dp_vcring_shift(cap) of them,
 * zeroed), for receiver buffers of at most cap flits per VC. */
static inline void dp_vcring_init(struct dp_vcring *r, struct dp_vcslot *slots,
				  uint32_t nvc, uint32_t cap)
{
	uint32_t sh = dp_vcring_shift(cap), mask = (1u << sh) - 1;

	*r = (struct dp_vcring){.tx = {.mask = mask}, .rx = {.mask = mask}};
	for (uint32_t v = 0; v < nvc && v < DF_MAX_VC; v++)
		r->tx.s[v] = r->rx.s[v] = slots + (v << sh);
}

/* A sender's count for a VC whose receiver buffer holds cap flits. */
static inline void dp_vccredit_init(struct dp_vccredit *c, uint32_t cap)
{
	*c = (struct dp_vccredit){.free = cap};
}

/* Sender: the credits of VC v due by now, past those c counted, one by
 * one (dp_vcring_credit's tail). */
static inline void dp_vcring_credit_walk(const struct dp_vcring *r, uint32_t v,
					 struct dp_vccredit *c, uint32_t head,
					 uint64_t now)
{
	const struct dp_vcslot *ring = r->tx.s[v];
	uint32_t cred = c->cred, free = c->free;

	for (; cred != head; cred++) {
		const struct dp_vcslot *s = &ring[cred & r->tx.mask];

		if (s->free_at > now)
			break;
		free += s->flits;
	}
	if (cred != c->cred)
		c->credit_t = ring[(cred - 1) & r->tx.mask].free_at;
	c->cred = cred;
	c->free = free;
}

/*
 * Sender: take VC v's credits due by now from the freed slots into c.
 * Returns the flits free downstream. A VC's freed slots are due in order
 * (dp_vcring_free_n), so those due by now are a prefix: the first two
 * slots are looked at without a branch, since how many are due is as
 * good as random to the branch predictor (docs/performance.md, "The
 * datapath on the rings"), and only a longer run of due credits walks on.
 * A slot past the head is stale but readable, its due test masked out.
 */
static inline uint32_t dp_vcring_credit(const struct dp_vcring *r, uint32_t v,
					struct dp_vccredit *c, uint64_t now)
{
	const struct dp_vcslot *ring = r->tx.s[v];
	uint32_t m = r->tx.mask, cred = c->cred,
		 head = __atomic_load_n(&r->rx.head[v], __ATOMIC_ACQUIRE),
		 n = head - cred;
	const struct dp_vcslot *s0 = &ring[cred & m],
			       *s1 = &ring[(cred + 1) & m];
	uint32_t d0 = (n > 0) & (s0->free_at <= now),
		 d1 = d0 & (n > 1) & (s1->free_at <= now);
	/* masks, not ?:, which gcc makes branches of */
	uint64_t k0 = -(uint64_t)(d0 & !d1), k1 = -(uint64_t)d1;

	c->credit_t = (c->credit_t & ~(k0 | k1)) | (s0->free_at & k0) |
		      (s1->free_at & k1);
	c->free += (s0->flits & -d0) + (s1->flits & -d1);
	c->cred = cred + d0 + d1;
	if (__builtin_expect(d1 && n > 2, 0))
		dp_vcring_credit_walk(r, v, c, head, now);
	return c->free;
}

/* Sender: may a packet of flits flits go on VC v now? The freed slots
 * are looked at only when it does not fit without them. */
static inline int dp_vcring_fits(const struct dp_vcring *r, uint32_t v,
				 struct dp_vccredit *c, uint32_t flits,
				 uint64_t now)
{
	if (__builtin_expect(c->free >= flits, 1))
		return 1;
	return dp_vcring_credit(r, v, c, now) >= flits;
}

/* Sender: write a packet of flits flits into VC v's tail slot, due at
 * the receiver at due, and publish it, counting no credit (the caller
 * counts its own: link.h). */
static inline void dp_vcring_put(struct dp_vcring *r, uint32_t v, uint64_t word,
				 uint32_t flits, uint32_t aux, uint64_t due)
{
	uint32_t t = r->tx.tail[v];
	struct dp_vcslot *s = &r->tx.s[v][t & r->tx.mask];

	s->due = due;
	s->word = word;
	s->flits = flits;
	s->aux = aux;
	__atomic_store_n(&r->tx.tail[v], t + 1, __ATOMIC_RELEASE);
}

/* Sender: a packet of flits flits on VC v (it fits: dp_vcring_fits), due
 * at the receiver at due, its state by value in the slot's word. */
static inline void dp_vcring_push_word(struct dp_vcring *r, uint32_t v,
				       struct dp_vccredit *c, uint64_t word,
				       uint32_t flits, uint32_t aux,
				       uint64_t due)
{
	c->free -= flits;
	dp_vcring_put(r, v, word, flits, aux, due);
}

/* dp_vcring_push_word with the packet m. */
static inline void dp_vcring_push(struct dp_vcring *r, uint32_t v,
				  struct dp_vccredit *c, void *m,
				  uint32_t flits, uint32_t aux, uint64_t due)
{
	dp_vcring_push_word(r, v, c, (uint64_t)(uintptr_t)m, flits, aux, due);
}

/* Receiver: packets on VC v sent and not freed. */
static inline uint32_t dp_vcring_count(const struct dp_vcring *r, uint32_t v)
{
	return __atomic_load_n(&r->tx.tail[v], __ATOMIC_ACQUIRE) -
	       r->rx.head[v];
}

/* Receiver: the head slot of VC v, sent or not (an empty ring's is stale
 * but readable: a due test without a branch, with dp_vcring_count). */
static inline const struct dp_vcslot *dp_vcring_head(const struct dp_vcring *r,
						     uint32_t v)
{
	return &r->rx.s[v][r->rx.head[v] & r->rx.mask];
}

/* Receiver: the slot of VC v i places behind the head (0: the head), or
 * NULL when fewer were sent. Due or not: the caller compares. */
static inline struct dp_vcslot *dp_vcring_at(struct dp_vcring *r, uint32_t v,
					     uint32_t i)
{
	if (dp_vcring_count(r, v) <= i)
		return NULL;
	return &r->rx.s[v][(r->rx.head[v] + i) & r->rx.mask];
}

/* Receiver: how many slots of VC v from the head are due by now, at most
 * max: a batch taken with one look at the tail. */
static inline uint32_t dp_vcring_due(const struct dp_vcring *r, uint32_t v,
				     uint64_t now, uint32_t max)
{
	const struct dp_vcslot *ring = r->rx.s[v];
	uint32_t n = dp_vcring_count(r, v), h = r->rx.head[v], k = 0;

	if (n > max)
		n = max;
	while (k < n && ring[(h + k) & r->rx.mask].due <= now)
		k++;
	return k;
}

/* Receiver: the n packets from VC v's head have left (n at most those
 * sent); their credits are due upstream at free_at, or with the newest
 * credit of the link if that is later (in order). One publish. */
static inline void dp_vcring_free_n(struct dp_vcring *r, uint32_t v, uint32_t n,
				    uint64_t free_at)
{
	struct dp_vcslot *ring = r->rx.s[v];
	uint32_t h = r->rx.head[v];

	if (free_at < r->rx.last_free)
		free_at = r->rx.last_free;
	r->rx.last_free = free_at;
	for (uint32_t k = 0; k < n; k++)
		ring[(h + k) & r->rx.mask].free_at = free_at;
	__atomic_store_n(&r->rx.head[v], h + n, __ATOMIC_RELEASE);
}

/* Receiver: VC v's head packet has left (dp_vcring_free_n of one). */
static inline void dp_vcring_free(struct dp_vcring *r, uint32_t v,
				  uint64_t free_at)
{
	dp_vcring_free_n(r, v, 1, free_at);
}

#endif
