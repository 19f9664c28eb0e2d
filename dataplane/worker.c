/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcore: runs its routers and terminals round-robin, one poll step
 * each per sweep, reading the TSC once per sweep (docs/design.md, Time,
 * links and credits). With idle backoff on, a sweep that found nothing to
 * do sleeps until shortly before the next known event (a packet or credit
 * due, a packet to generate), so dfemu can share a small machine's cores
 * with its traffic peers.
 */
#include <sys/prctl.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "bridge.h"
#include "unmap_guard.h"
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

/* Arm the wakes the other workers noted (notify.h); a lost note fires
 * every wake on their FIFOs. */
static void take_notes(struct dp_lcore *lc)
{
	int lost = 0;

	for (uint32_t i = 0; i < lc->nnotes; i++)
		lost |= dp_notify_take(lc->notes[i], lc->wheel);
	if (unlikely(lost))
		for (uint32_t i = 0; i < lc->nxwakes; i++)
			dp_wake_arm(lc->wheel, lc->xwakes[i], 0);
}

/* The next active node in word wi's bits still to step, if it is a
 * terminal: its arrival asked for now (dp_term_prefetch). */
static inline void prefetch_next(struct dp_lcore *lc, uint32_t wi,
				 uint64_t bits)
{
	uint32_t j;

	if (bits == 0)
		return;
	j = wi * 64 + (uint32_t)__builtin_ctzll(bits);
	if (j < lc->nterms)
		dp_term_prefetch(lc->terms[j]);
}

/* The active nodes, terminals first: each stays active while it has work
 * of its own; the others wait for their wakes (wheel.h). */
static unsigned step_nodes(struct dp_lcore *lc, uint64_t now)
{
	uint64_t *active = lc->wheel->active;
	uint32_t n = lc->nterms + lc->nrouters;
	unsigned work = 0;

	for (uint32_t wi = 0; wi * 64 < n; wi++) {
		uint64_t bits = active[wi];

		active[wi] = 0;
		while (bits) {
			uint32_t i = wi * 64 + (uint32_t)__builtin_ctzll(bits);
			int busy;

			bits &= bits - 1;
			if (i < lc->nterms) {
				struct dp_term *t = lc->terms[i];

				prefetch_next(lc, wi, bits);
				work += dp_term_step(t, now);
				busy = dp_term_busy(t);
			} else {
				struct dp_router *r =
					lc->routers[i - lc->nterms];
				work += dp_router_step(r, now);
				busy = dp_router_busy(r);
			}
			if (busy)
				active[wi] |= 1ULL << (i & 63);
		}
	}
	return work;
}

int dp_worker_main(void *arg)
{
	struct dp_lcore *lc = arg;
	const struct dp_run *run = lc->run;
	struct rte_rcu_qsbr *guard = dp_unmap_guard_init();

	/* Outside the hot loop: make short idle sleeps short. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	dp_unmap_guard_online(guard, lc->lcore_id);
	uint64_t prev = rte_rdtsc();
	unsigned prev_work = 0;

	while (!run->quit) {
		uint64_t now = rte_rdtsc();
		unsigned work = 0;

		/* between sweeps: in no port's burst (unmap_guard.h) */
		dp_unmap_guard_quiescent(guard, lc->lcore_id);
		if (prev_work) /* the last sweep did something: it was busy */
			lc->busy_tsc += now - prev;
		prev = now;

		lc->next_event = UINT64_MAX;
		lc->gen_on = run->gen_on;
		take_notes(lc);
		dp_wheel_advance(lc->wheel, now);
		work += step_nodes(lc, now);
		if (lc->bridge != NULL) /* links to other instances */
			work += dp_bridge_step(lc->bridge, now);
		lc->sweeps++;
		prev_work = work;
		/* Tell main that generation has stopped here for good: the
		 * counters it reads after this flag include every injection
		 * (stores stay in order on x86; the barrier says so). */
		if (!lc->gen_on && !lc->gen_off_done) {
			rte_smp_wmb();
			lc->gen_off_done = 1;
		}
		/* (with a bridge too: on a machine whose CPUs the instances
		 * share, busy workers cost more lateness than the sleeps;
		 * docs/instances.md) */
		if (work == 0 && run->idle_backoff) {
			/* nothing to do before the wheel's next wake */
			uint64_t next = dp_wheel_next(lc->wheel);
			if (next < lc->next_event)
				lc->next_event = next;
			idle(lc, now);
		}
	}
	dp_unmap_guard_offline(guard, lc->lcore_id);
	return 0;
}

/* Counters of n workers summed (the histograms are not). */
void dp_stats_sum(struct dp_stats *s, struct dp_lcore *const *lc, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t w = 0; w < n; w++) {
		const struct dp_stats *x = &lc[w]->st;
		dp_counters_add(&s->c, &x->c);
		if (x->last_rx > s->last_rx)
			s->last_rx = x->last_rx;
	}
}

void dp_term_ports_sum(struct dp_term_ports *s, struct dp_term *const *t,
		       uint32_t n)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t i = 0; i < n; i++) {
		const struct dp_term_ports *x = &t[i]->pc;
#define DP_TERM_PORT_ADD(name, label) s->name += x->name;
		DP_TERM_PORT_COUNTERS(DP_TERM_PORT_ADD)
#undef DP_TERM_PORT_ADD
		for (int d = 0; d < DP_DROP_N; d++)
			s->drops[d] += x->drops[d];
	}
}

void dp_port_lat_sum(struct dp_hist *h, struct dp_lcore *const *lc, uint32_t n,
		     uint16_t k)
{
	memset(h, 0, sizeof(*h));
	for (uint32_t w = 0; w < n; w++)
		dp_hist_merge(h, &lc[w]->port_lat[k]);
}
