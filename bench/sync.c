/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-bench sync [--seconds S]
 * What keeping two workers in step costs, with no work at all: the scaling
 * model's synchronisation per step (docs/performance.md, "A model for
 * bigger machines"). Two lcores (the main one and a worker, on two CPUs)
 * keep each a clock on a cache line of its own and follow the workers'
 * rule (dataplane/worker.c, allowed and publish): the step at t runs once
 * the other's clock is at least t - 1 quantum, and then t is published,
 * with a release store read by an acquire load. In lockstep each step
 * waits for the other's last: a cache line from the other CPU and back.
 * Then the same with one of the two idle, its clock far ahead (as an idle
 * worker says how far it has nothing to do): what a worker pays per step
 * to read a clock that does not move. The last line is for scripts:
 *   sync_cycles=N idle_cycles=N steps=N
 */
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "bench.h"

struct clock {
	uint64_t t;
} __rte_cache_aligned;

struct sync {
	struct clock clk[2];
	uint64_t end;	    /* side 0 stops at this TSC */
	uint64_t steps[2];  /* each side's */
	uint64_t cycles[2]; /* each side's, for all of them */
	int idle;	    /* side 1 only publishes a far clock */
	volatile int go, stop;
} __rte_cache_aligned;

/* Side i: steps, each run once the other's clock allows, until side 0's
 * time is up (a wall time, not a count: a busy host may give a side its
 * CPU only now and then). */
static void side(struct sync *s, int i)
{
	struct clock *mine = &s->clk[i];
	const struct clock *other = &s->clk[1 - i];
	uint64_t t0, t = 0;

	while (!s->go)
		rte_pause();
	t0 = rte_rdtsc();
	while (!s->stop) {
		t++;
		while (__atomic_load_n(&other->t, __ATOMIC_ACQUIRE) + 1 < t &&
		       !s->stop) {
			if (i == 0 && rte_rdtsc() >= s->end)
				s->stop = 1;
			rte_pause();
		}
		__atomic_store_n(&mine->t, t, __ATOMIC_RELEASE);
		/* the TSC costs more than a step that does not wait */
		if (i == 0 && (t & 1023) == 0 && rte_rdtsc() >= s->end)
			s->stop = 1;
	}
	s->cycles[i] = rte_rdtsc() - t0;
	s->steps[i] = t;
}

static int worker_side(void *arg)
{
	struct sync *s = arg;

	if (s->idle) { /* nothing to do up to the end: says so, once */
		__atomic_store_n(&s->clk[1].t, UINT64_MAX - 1,
				 __ATOMIC_RELEASE);
		return 0;
	}
	side(s, 1);
	return 0;
}

/* One run of seconds; side 0's cycles per step into *cps and its steps
 * into *steps; -1 without a worker lcore. */
static int run(struct sync *s, unsigned w, double seconds, double hz, int idle,
	       double *cps, uint64_t *steps)
{
	s->clk[0].t = s->clk[1].t = 0;
	s->idle = idle;
	s->go = s->stop = 0;
	if (rte_eal_remote_launch(worker_side, s, w) != 0)
		return -1;
	if (idle)
		while (__atomic_load_n(&s->clk[1].t, __ATOMIC_ACQUIRE) == 0)
			rte_pause();
	s->end = rte_rdtsc() + (uint64_t)(seconds * hz);
	s->go = 1;
	side(s, 0);
	rte_eal_wait_lcore(w);
	*steps = s->steps[0];
	*cps = (double)s->cycles[0] / (double)(s->steps[0] ? s->steps[0] : 1);
	return 0;
}

int bench_sync(double seconds, double hz)
{
	static struct sync s;
	unsigned w = rte_get_next_lcore(-1, 1, 0);
	uint64_t steps, isteps;
	double lock, idle;

	if (w >= RTE_MAX_LCORE) {
		fprintf(stderr, "dfemu-bench: sync needs a worker lcore\n");
		return 3;
	}
	if (run(&s, w, seconds, hz, 0, &lock, &steps) ||
	    run(&s, w, seconds, hz, 1, &idle, &isteps))
		return 3;
	printf("two lcores in step, nothing else: %.1f cycles a step (%.1f "
	       "ns), %llu steps\n",
	       lock, lock * 1e9 / hz, (unsigned long long)steps);
	printf("one of them idle, its clock ahead: %.1f cycles a step\n", idle);
	printf("sync_cycles=%.1f idle_cycles=%.1f steps=%llu\n", lock, idle,
	       (unsigned long long)steps);
	return 0;
}
