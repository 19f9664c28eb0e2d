/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_FIFO_H
#define DP_FIFO_H

/*
 * The two ends of dfemu's single-producer/single-consumer queues (the
 * notes between workers, notify.h). Each end writes only its own index and
 * publishes it with a release store that the other end reads with an acquire
 * load: correct between two workers, and plain moves on x86 when both ends run
 * on one.
 */
#include <stdint.h>

#include <rte_branch_prediction.h>

/* One end of a FIFO: its own index (published) and the last value of the
 * other end's index it read (private: read again only when needed). */
struct dp_fifo_end {
	uint32_t own, seen;
};

/* Room for one more entry at producer end pr of a FIFO whose consumer
 * publishes cons (the consumer's index is read again only when the copy
 * says the FIFO is full: it is on the consumer's cache line). */
static inline int dp_fifo_room(struct dp_fifo_end *pr,
			       const struct dp_fifo_end *cons, uint32_t mask)
{
	if (likely(pr->own - pr->seen <= mask))
		return 1;
	pr->seen = __atomic_load_n(&cons->own, __ATOMIC_ACQUIRE);
	return pr->own - pr->seen <= mask;
}

/* The entry at index own is written: publish it. */
static inline void dp_fifo_publish(struct dp_fifo_end *e)
{
	__atomic_store_n(&e->own, e->own + 1, __ATOMIC_RELEASE);
}

/* Is there an entry at consumer end co (producer publishes prod)? */
static inline int dp_fifo_any(struct dp_fifo_end *co,
			      const struct dp_fifo_end *prod)
{
	if (co->own != co->seen)
		return 1;
	co->seen = __atomic_load_n(&prod->own, __ATOMIC_ACQUIRE);
	return co->own != co->seen;
}

#endif
