/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_WHEEL_H
#define DP_WHEEL_H

/*
 * A worker's timing wheel (docs/performance.md, "Where the cycles go"):
 * what is due when. A worker used to poll every port of every router and
 * every terminal on each sweep, so a sweep of the 876-router [OC] network
 * cost some 25,000 polls whatever the load. Now a FIFO that receives an
 * entry while nobody watches it (its wake is idle) puts its wake in the
 * wheel at the entry's due time; when that time comes, the wake marks its
 * port for polling and its router or terminal active. After the poll the
 * consumer settles the wake: idle again if the FIFO is empty, else back
 * in the wheel at the new head's due time (a FIFO is ordered by due, so
 * the head is what comes first). A node stays active while it has work of
 * its own (packets queued, a source queue, a DPDK port).
 *
 * A wake's state is written by its consumer's worker only. A producer on
 * the same worker arms it directly; one on another worker sends a note
 * (notify.h) that the consumer's worker arms it with. FIFOs to and from
 * other instances have no wakes: they are polled on every sweep (the
 * port is in its router's "always" mask), and their heads' due times
 * bound the worker's next step (worker.c, xlinks_next).
 *
 * Two levels: a fine slot spans 2^DP_WHEEL_SHIFT TSC cycles (about
 * 0.1 us) and the fine wheel turns in DP_WHEEL_SLOTS of them (about
 * 0.4 ms); a coarse slot spans one fine turn, and the coarse wheel turns
 * in DP_WHEEL_SLOTS of those (about 1.6 s). A wake further ahead than a
 * fine turn waits in its coarse slot and moves to the fine wheel when the
 * fine cursor enters that slot; one further ahead than a coarse turn
 * waits in the last coarse slot and is placed again when it comes. So
 * the generators of a network at low load (a wake every few ms each) cost
 * two placements a packet. Nothing fires late because of the wheel: a
 * fine slot is looked at from its first cycle on, and fires the wakes
 * whose time has come.
 */
#include <stddef.h>
#include <stdint.h>

#define DP_WHEEL_SHIFT	8
#define DP_WHEEL_BITS	12
#define DP_WHEEL_SLOTS	(1u << DP_WHEEL_BITS)
#define DP_WHEEL_SHIFT1 (DP_WHEEL_SHIFT + DP_WHEEL_BITS) /* coarse */

enum dp_wake_state {
	DP_WAKE_IDLE = 0, /* the FIFO is empty, nobody needs to look */
	DP_WAKE_QUEUED,	  /* in the wheel, at due */
	DP_WAKE_FIRED,	  /* its port is marked for polling */
};

struct dp_wake {
	struct dp_wake *next; /* in its slot's list */
	struct dp_wheel *wh;  /* its consumer's wheel (NULL: never armed) */
	uint64_t due;
	uint64_t *poll; /* the node's mask of ports to poll */
	uint64_t bit;	/* this port's bit in it */
	uint32_t node;	/* the node's index among the worker's nodes */
	uint8_t state;
};

/* One level: its slots' lists, and which are not empty. */
struct dp_wheel_level {
	uint64_t used[DP_WHEEL_SLOTS / 64];
	struct dp_wake *slot[DP_WHEEL_SLOTS];
};

struct dp_wheel {
	uint64_t now; /* the time it was advanced to: due by then fires */
	/* now plus its worker's quantum: due by then fires at the next
	 * step, through soon (0: no such shortcut) */
	uint64_t next, quantum;
	uint64_t cur;	  /* fine slot (absolute, ticks >> SHIFT) not passed */
	uint64_t cur1;	  /* coarse slot last moved to the fine wheel */
	uint64_t *active; /* nodes to step: bit per node */
	uint64_t *soon;	  /* nodes to step at the next step (nwords) */
	uint32_t nwords;
	struct dp_wheel_level fine, coarse;
};

static inline void dp_wheel_put(struct dp_wheel_level *lv, struct dp_wake *w,
				uint64_t s)
{
	uint32_t i = (uint32_t)(s & (DP_WHEEL_SLOTS - 1));

	w->next = lv->slot[i];
	lv->slot[i] = w;
	lv->used[i >> 6] |= 1ULL << (i & 63);
}

/* w's time has come: its port is polled, its node stepped. */
static inline void dp_wake_fire(struct dp_wheel *wh, struct dp_wake *w)
{
	w->state = DP_WAKE_FIRED;
	*w->poll |= w->bit;
	wh->active[w->node >> 6] |= 1ULL << (w->node & 63);
}

static inline void dp_wheel_insert(struct dp_wheel *wh, struct dp_wake *w,
				   uint64_t due)
{
	uint64_t s = due >> DP_WHEEL_SHIFT, s1;

	w->due = due;
	if (due <= wh->now) {
		/* due already (a wake armed for what is waiting): no
		 * detour through the wheel */
		dp_wake_fire(wh, w);
		return;
	}
	if (due <= wh->next) {
		/* due by the next step (a link shorter than a quantum, a
		 * saturated network): marked for it, no detour either; its
		 * port may be polled early, and finds nothing due */
		w->state = DP_WAKE_FIRED;
		*w->poll |= w->bit;
		wh->soon[w->node >> 6] |= 1ULL << (w->node & 63);
		return;
	}
	w->state = DP_WAKE_QUEUED;
	if (s < wh->cur) /* in the slot being looked at: it is again */
		s = wh->cur;
	if (s < wh->cur + DP_WHEEL_SLOTS) {
		dp_wheel_put(&wh->fine, w, s);
		return;
	}
	s1 = due >> DP_WHEEL_SHIFT1;
	if (s1 <= wh->cur1) {
		/* its coarse slot was moved already: the fine turn's last
		 * slot, where it is placed again */
		dp_wheel_put(&wh->fine, w, wh->cur + DP_WHEEL_SLOTS - 1);
		return;
	}
	if (s1 >= wh->cur1 + DP_WHEEL_SLOTS)
		s1 = wh->cur1 + DP_WHEEL_SLOTS - 1;
	dp_wheel_put(&wh->coarse, w, s1);
}

/* A producer put an entry due at due in w's FIFO. */
static inline void dp_wake_arm(struct dp_wheel *wh, struct dp_wake *w,
			       uint64_t due)
{
	if (wh != NULL && w->state == DP_WAKE_IDLE)
		dp_wheel_insert(wh, w, due);
}

/* The consumer polled w's FIFO: head is the due time of what is left
 * (UINT64_MAX: nothing). A wake still queued stays as it is. */
static inline void dp_wake_settle(struct dp_wake *w, uint64_t head)
{
	if (w->state != DP_WAKE_FIRED)
		return;
	if (head == UINT64_MAX)
		w->state = DP_WAKE_IDLE;
	else
		dp_wheel_insert(w->wh, w, head);
}

/* Fire what is due by now, in the slots up to now's. */
void dp_wheel_advance(struct dp_wheel *wh, uint64_t now);
/* The earliest time a queued wake may fire (UINT64_MAX: none). */
uint64_t dp_wheel_next(const struct dp_wheel *wh);

#endif
