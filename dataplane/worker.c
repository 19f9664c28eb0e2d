/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcore: runs its routers and terminals round-robin, one poll step
 * each per sweep, reading the TSC once per sweep (DESIGN.md §3). With idle
 * backoff on, a sweep that found nothing to do sleeps until shortly before
 * the next known event (a packet or credit due, a packet to generate), so
 * dfemu can share a small machine's cores with its traffic peers.
 */
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>

#include "worker.h"

static void idle(struct dp_lcore *lc, uint64_t now)
{
	const struct dp_run *run = lc->run;
	uint64_t gap, sleep_tsc;
	struct timespec ts;

	if (lc->next_event <= now)
		return;
	gap = lc->next_event - now;
	if (gap <= 2 * run->idle_margin_tsc)
		return;
	sleep_tsc = gap - run->idle_margin_tsc;
	if (sleep_tsc > run->idle_sleep_tsc)
		sleep_tsc = run->idle_sleep_tsc;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)((double)sleep_tsc * 1e9 / (double)rte_get_tsc_hz());
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	nanosleep(&ts, NULL);
	lc->idle_sleeps++;
}

int dp_worker_main(void *arg)
{
	struct dp_lcore *lc = arg;
	const struct dp_run *run = lc->run;

	/* Outside the hot loop: make short idle sleeps short. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	uint64_t prev = rte_rdtsc();
	unsigned prev_work = 0;

	while (!run->quit) {
		uint64_t now = rte_rdtsc();
		unsigned work = 0;

		if (prev_work) /* the last sweep did something: it was busy */
			lc->busy_tsc += now - prev;
		prev = now;

		lc->next_event = UINT64_MAX;
		lc->gen_on = run->gen_on;
		for (uint32_t i = 0; i < lc->nterms; i++)
			work += dp_term_step(lc->terms[i], now);
		for (uint32_t i = 0; i < lc->nrouters; i++)
			work += dp_router_step(lc->routers[i], now);
		lc->sweeps++;
		prev_work = work;
		/* Tell main that generation has stopped here for good: the
		 * counters it reads after this flag include every injection
		 * (stores stay in order on x86; the barrier says so). */
		if (!lc->gen_on && !lc->gen_off_done) {
			rte_smp_wmb();
			lc->gen_off_done = 1;
		}
		if (work == 0 && run->idle_backoff)
			idle(lc, now);
	}
	return 0;
}
