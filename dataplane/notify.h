/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_NOTIFY_H
#define DP_NOTIFY_H

/*
 * Notes between workers (docs/performance.md, "Several workers"): how a
 * FIFO whose producer runs on another worker wakes its consumer. A worker
 * cannot put a wake in another worker's wheel (wheel.h: one writer), so
 * the producer, after publishing an entry, sends the FIFO's wake and the
 * entry's due time on a queue of notes, one queue per pair of workers;
 * the consumer takes its notes at the start of every sweep and arms the
 * wakes in its own wheel, as a producer on its own worker would. Before
 * this, every port fed from another worker was polled on every sweep and
 * kept its router active: with 2 workers on the [DF] 1K network an idle
 * sweep cost 53,000 cycles instead of 80.
 *
 * A full queue loses no wake: the producer raises the queue's overflow
 * flag, and the consumer, seeing it, fires every wake it has on other
 * workers' FIFOs (a poll of an empty FIFO is harmless).
 */
#include <stdint.h>

#include <rte_common.h>

#include "fifo.h"
#include "wheel.h"

struct dp_note {
	uint64_t due;
	struct dp_wake *w;
};

struct dp_notify_q {
	struct dp_note *ring;
	uint32_t mask;
	/* producer side */
	struct dp_fifo_end tx __rte_cache_aligned;
	uint32_t overflow; /* a note was lost: fire everything */
	/* consumer side */
	struct dp_fifo_end rx __rte_cache_aligned;
} __rte_cache_aligned;

/* Producer: the FIFO of w has an entry due at due (q NULL: the FIFO's
 * two ends share a worker, or it is polled on every sweep). */
static inline void dp_notify(struct dp_notify_q *q, struct dp_wake *w,
			     uint64_t due)
{
	struct dp_note *n;

	if (q == NULL)
		return;
	if (unlikely(!dp_fifo_room(&q->tx, &q->rx, q->mask))) {
		__atomic_store_n(&q->overflow, 1, __ATOMIC_RELEASE);
		return;
	}
	n = &q->ring[q->tx.own & q->mask];
	n->due = due;
	n->w = w;
	dp_fifo_publish(&q->tx);
}

/* Consumer: arm in wh the wakes noted on q. Returns 1 when a note was
 * lost (the caller fires all its wakes on other workers' FIFOs). The
 * exchange both clears the flag and orders the FIFO reads after it. */
static inline int dp_notify_take(struct dp_notify_q *q, struct dp_wheel *wh)
{
	int lost = __atomic_load_n(&q->overflow, __ATOMIC_RELAXED) &&
		   __atomic_exchange_n(&q->overflow, 0, __ATOMIC_ACQ_REL);

	while (dp_fifo_any(&q->rx, &q->tx)) {
		const struct dp_note *n = &q->ring[q->rx.own & q->mask];

		dp_wake_arm(wh, n->w, n->due);
		dp_fifo_publish(&q->rx);
	}
	return lost;
}

#endif
