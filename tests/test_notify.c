/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Notes between workers (dataplane/notify.h) with the timing wheel they
 * arm (dataplane/wheel.h), no EAL: a noted wake fires at its due time and
 * marks its port and node; a wake already queued is not queued twice; a
 * full queue loses no wake (the overflow flag); a coarse wake is not
 * passed over for a later fine one; and, between two threads,
 * every note sent arrives once, in order.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "notify.h"

#define NQ 4

static struct dp_wheel *wheel_new(void)
{
	struct dp_wheel *wh = calloc(1, sizeof(*wh));

	wh->active = calloc(2, sizeof(uint64_t));
	return wh;
}

static void queue_init(struct dp_notify_q *q, uint32_t n)
{
	memset(q, 0, sizeof(*q));
	q->ring = calloc(n, sizeof(*q->ring));
	q->mask = n - 1;
}

static void wake_init(struct dp_wake *w, struct dp_wheel *wh, uint64_t *poll,
		      uint32_t port, uint32_t node)
{
	memset(w, 0, sizeof(*w));
	w->wh = wh;
	w->poll = poll;
	w->bit = 1ULL << port;
	w->node = node;
}

static void single_thread(void)
{
	struct dp_wheel *wh = wheel_new();
	struct dp_notify_q q;
	struct dp_wake w[NQ + 1];
	uint64_t poll = 0;

	queue_init(&q, NQ);
	for (int i = 0; i <= NQ; i++)
		wake_init(&w[i], wh, &poll, i, 3);
	dp_wheel_advance(wh, 1000);

	dp_notify(&q, &w[0], 5000);
	dp_notify(&q, &w[0], 6000); /* the same FIFO again */
	int lost = dp_notify_take(&q, wh);
	CHECK(!lost && w[0].state == DP_WAKE_QUEUED && w[0].due == 5000,
	      "a noted wake is queued at the first note's due time (%llu)",
	      (unsigned long long)w[0].due);
	dp_wheel_advance(wh, 4000);
	CHECK(poll == 0 && wh->active[0] == 0, "it does not fire early");
	dp_wheel_advance(wh, 5000);
	CHECK(poll == 1 && (wh->active[0] & (1ULL << 3)) &&
		      w[0].state == DP_WAKE_FIRED,
	      "it fires at its time: port 0 polled, node 3 active");
	dp_wake_settle(&w[0], UINT64_MAX);
	CHECK(w[0].state == DP_WAKE_IDLE, "settled on an empty FIFO: idle");

	/* five notes on a queue of four: the fifth is lost, the flag says
	 * so, and the caller fires every wake */
	poll = 0;
	wh->active[0] = 0;
	for (int i = 0; i <= NQ; i++)
		dp_notify(&q, &w[i], 9000 + i);
	CHECK(q.overflow == 1, "a full queue raises its overflow flag");
	lost = dp_notify_take(&q, wh);
	CHECK(lost == 1 && q.overflow == 0,
	      "taking the notes reports the loss and clears the flag");
	CHECK(w[NQ].state == DP_WAKE_IDLE && w[NQ - 1].state == DP_WAKE_QUEUED,
	      "the four notes kept are armed, the lost one is not");
	dp_wake_arm(wh, &w[NQ], 0); /* what the worker does on a loss */
	CHECK(w[NQ].state == DP_WAKE_FIRED && (poll & (1ULL << NQ)),
	      "the lost note's wake fires at once when armed for the loss");
	free(q.ring);
	free(wh->active);
	free(wh);
}

/* A wake placed in the coarse wheel (beyond the fine turn when armed)
 * is found by dp_wheel_next() before a fine wake armed later for a later
 * time, once the fine turn reaches past its coarse slot's start (found
 * in a fresh clone: a terminal's generation ran two quanta late, and
 * cut-through's head-flit timing made it visible) */
static void coarse_before_fine(void)
{
	struct dp_wheel *wh = wheel_new();
	struct dp_wake a, b;
	uint64_t poll = 0, next;

	wake_init(&a, wh, &poll, 0, 1);
	wake_init(&b, wh, &poll, 1, 2);
	dp_wheel_advance(wh, 45015040);
	dp_wheel_insert(wh, &a, 46146985); /* further than a fine turn */
	dp_wheel_advance(wh, 46131200);
	dp_wheel_insert(wh, &b, 46165100); /* in the fine turn, later */
	next = dp_wheel_next(wh);
	CHECK(next <= 46146985,
	      "the next wake time (%llu) is not after the coarse wake's "
	      "(46146985), though a fine one is later",
	      (unsigned long long)next);
	dp_wheel_advance(wh, next);
	next = dp_wheel_next(wh);
	CHECK(next <= 46146985 && a.state == DP_WAKE_QUEUED,
	      "at its coarse slot's start it is in the fine wheel, next at "
	      "%llu",
	      (unsigned long long)next);
	dp_wheel_advance(wh, 46146985);
	CHECK(a.state == DP_WAKE_FIRED && b.state == DP_WAKE_QUEUED &&
		      (poll & 1) && !(poll & 2),
	      "it fires at its time, the later one not");
	free(wh->active);
	free(wh);
}

#define MANY 2000000

struct pair {
	struct dp_notify_q q;
	struct dp_wake w[16];
	uint64_t lost_flags;
};

static void *producer(void *arg)
{
	struct pair *p = arg;

	for (uint64_t i = 0; i < MANY; i++) {
		/* spin while full: every note must arrive */
		while (!dp_fifo_room(&p->q.tx, &p->q.rx, p->q.mask))
			;
		dp_notify(&p->q, &p->w[i % 16], i);
	}
	return NULL;
}

static void two_threads(void)
{
	struct pair *p = aligned_alloc(64, sizeof(*p));
	uint64_t next = 0, bad = 0;
	pthread_t th;

	memset(p, 0, sizeof(*p));
	queue_init(&p->q, 256);
	pthread_create(&th, NULL, producer, p);
	while (next < MANY) {
		if (!dp_fifo_any(&p->q.rx, &p->q.tx))
			continue;
		const struct dp_note *n = &p->q.ring[p->q.rx.own & p->q.mask];
		bad += n->due != next || n->w != &p->w[next % 16];
		next++;
		dp_fifo_publish(&p->q.rx);
	}
	pthread_join(th, NULL);
	CHECK(bad == 0 && p->q.overflow == 0,
	      "two threads: %d notes arrived once each, in order (%llu wrong)",
	      MANY, (unsigned long long)bad);
	free(p->q.ring);
	free(p);
}

int main(void)
{
	single_thread();
	coarse_before_fine();
	two_threads();
	return check_done();
}
