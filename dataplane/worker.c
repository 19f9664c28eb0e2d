/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcore: its emulated clock steps by the run's quantum; each step
 * fires the wakes due by then and steps the active routers and
 * terminals once each, in node order, with the step's emulated time as
 * now (docs/design.md, "Time, links and credits"). So what a step
 * handles is decided by emulated time alone, never by the host: a late
 * host delays steps, it does not reorder them. Steps with nothing due
 * are skipped. Several workers keep in step conservatively, with no
 * barrier: each publishes its clock, and runs a step only once every
 * other worker's clock is at most one quantum behind it (a step's
 * output is due after the step, so that is all it can receive). Paced,
 * a step waits for the wall clock; unpaced, it runs at once. With idle
 * backoff on, a worker that waits a while sleeps instead, so dfemu can
 * share a small machine's cores with its traffic peers.
 */
#include <sched.h>
#include <sys/prctl.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "bridge.h"
#include "unmap_guard.h"
#include "worker.h"

/* Sleep for about tsc cycles (at most one idle sleep), when that is
 * long enough to be worth it. */
static void nap(struct dp_lcore *lc, uint64_t tsc)
{
	const struct dp_run *run = lc->run;
	struct timespec ts;

	if (!run->idle_backoff || tsc <= 2 * run->idle_margin_tsc) {
		rte_pause();
		return;
	}
	tsc -= run->idle_margin_tsc;
	if (tsc > run->idle_sleep_tsc)
		tsc = run->idle_sleep_tsc;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)((double)tsc * 1e9 / (double)rte_get_tsc_hz());
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

/* The next active node in word wi's bits still to step: a terminal's
 * arrival asked for now (dp_term_prefetch), a router's links with
 * arrivals (dp_router_prefetch). At low load a router steps for one
 * packet, and the lines of its link were its step's first misses. */
static inline void prefetch_next(struct dp_lcore *lc, uint32_t wi,
				 uint64_t bits)
{
	uint32_t j;

	if (bits == 0)
		return;
	j = wi * 64 + (uint32_t)__builtin_ctzll(bits);
	if (j < lc->nterms)
		dp_term_prefetch(lc->terms[j]);
	else
		dp_router_prefetch(lc->routers[j - lc->nterms]);
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

				prefetch_next(lc, wi, bits);
				work += dp_router_step(r, now);
				busy = dp_router_busy(r);
			}
			if (busy)
				active[wi] |= 1ULL << (i & 63);
		}
	}
	return work;
}

/* The latest step the other instances allow: one quantum past the
 * slowest live peer's clock, as of its last SYNC (bridge.h). A peer
 * taken as lost holds nothing up. */
static uint64_t peers_allow(const struct dp_bridge *b, uint64_t q)
{
	uint64_t a = UINT64_MAX;

	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		const struct dp_peer *p = &b->peer[j];
		uint64_t c;

		if (!p->used || p->lost)
			continue;
		c = __atomic_load_n(&p->clock, __ATOMIC_ACQUIRE) + q;
		if (c < a)
			a = c;
	}
	return a;
}

/* The latest step this worker may run: one quantum past the slowest
 * other worker's clock (anything it sends later is due after its next
 * step), and the same for the other instances' clocks; not past the
 * main lcore's hold. */
static uint64_t allowed(const struct dp_lcore *lc)
{
	const struct dp_run *run = lc->run;
	uint64_t a = __atomic_load_n(&run->hold, __ATOMIC_ACQUIRE);

	for (uint32_t w = 0; w < run->nworkers; w++) {
		const struct dp_lcore *o = run->lcs[w];
		uint64_t c;

		if (o == lc)
			continue;
		c = __atomic_load_n(&o->clock, __ATOMIC_ACQUIRE) + run->quantum;
		if (c < a)
			a = c;
	}
	if (run->peers != NULL) {
		uint64_t c = peers_allow(run->peers, run->quantum);

		if (c < a)
			a = c;
	}
	return a;
}

/* Has any node work of its own for the next step? */
static int any_active(const struct dp_lcore *lc)
{
	uint32_t n = lc->nterms + lc->nrouters;

	for (uint32_t wi = 0; wi * 64 < n; wi++)
		if (lc->wheel->active[wi] | lc->wheel->soon[wi])
			return 1;
	return 0;
}

/* The emulated time generation ends at here: the steps after it
 * generate nothing. */
static inline uint64_t gen_until(const struct dp_lcore *lc)
{
	const struct dp_run *run = lc->run;
	uint64_t g = run->gen_end;

	if (!run->gen_on)
		return 0;
	return lc->gen_stop < g ? lc->gen_stop : g;
}

/* The time of checkpoint j ([traffic] finish = keep): j times ckpt
 * after the first step at or after the window's end (every step, and so
 * every checkpoint, is a multiple of the quantum from t0, whatever the
 * worker has done: else the steps would depend on the placement). */
static inline uint64_t ckpt_at(const struct dp_run *run, uint32_t j)
{
	return dp_step_at(run, run->m1) + (uint64_t)j * run->ckpt;
}

/* The next checkpoint to take, UINT64_MAX when none is needed. */
static inline uint64_t ckpt_next(const struct dp_lcore *lc)
{
	const struct dp_run *run = lc->run;

	if (!run->finish_keep || lc->gen_stop != UINT64_MAX ||
	    run->m1 == UINT64_MAX)
		return UINT64_MAX;
	return ckpt_at(run, lc->ckpt_n);
}

/*
 * The other instances' measured counts at checkpoint j, added to *gen
 * and *in. Their SYNCs carry their last two checkpoints. This worker
 * runs its step at checkpoint j + 1 only once every live peer's clock is
 * within a quantum of it, and no peer gets more than a quantum past this
 * instance's clock; checkpoints are 16 quanta apart, so the SYNC that
 * allowed the step carries checkpoint j. The wait below is a guard: it
 * keeps the bridge going, and a peer lost meanwhile holds nothing up.
 * Returns -1 once a peer is lost: the packets it took with it are
 * counted by the main lcore, which then decides (emu/run.c,
 * end_generation).
 */
static int peers_ckpt(struct dp_lcore *lc, uint32_t j, uint64_t *gen,
		      uint64_t *in)
{
	int lost = 0;

	const struct dp_bridge *b = lc->run->peers;

	for (uint32_t i = 0; i < DP_MAX_INSTANCES; i++) {
		const struct dp_peer *p = &b->peer[i];
		const struct dp_peer_ckpt *e = &p->ckpt[j % DP_CKPTS];

		if (!p->used)
			continue;
		while (__atomic_load_n(&e->n, __ATOMIC_ACQUIRE) != j + 1 &&
		       !p->lost) {
			if (lc->bridge != NULL)
				dp_bridge_step(lc->bridge, lc->clock);
			rte_pause();
		}
		lost |= p->lost;
		*gen += e->gen;
		*in += e->in;
	}
	return lost ? -1 : 0;
}

/*
 * [traffic] finish = keep: generation goes on after the window until
 * every measured packet is in ([DF] §4.2). Every worker notes its
 * measured counts at each checkpoint; at checkpoint j + 1 each reads
 * everyone's for j (all have taken it: no clock is more than a quantum
 * behind, and checkpoints are further apart) and, if all were in, ends
 * generation there. Every worker decides the same, at the same emulated
 * time, whatever the number of workers.
 */
static void ckpt_take(struct dp_lcore *lc)
{
	const struct dp_run *run = lc->run;
	uint32_t j = lc->ckpt_n;
	struct dp_ckpt *c = &lc->ckpt[j % DP_CKPTS];
	uint64_t gen = 0, in = 0;

	c->gen = lc->st.c.gen_measured;
	c->in = lc->st.c.del_measured + lc->st.c.drops_measured;
	__atomic_store_n(&c->n, (uint64_t)j + 1, __ATOMIC_RELEASE);
	/* after the counts: the bridge sends them to the peers (bridge.c,
	 * sync_ckpts) */
	__atomic_store_n(&lc->ckpt_n, j + 1, __ATOMIC_RELEASE);
	if (j == 0)
		return;
	if (run->peers != NULL && peers_ckpt(lc, j - 1, &gen, &in))
		return;
	for (uint32_t w = 0; w < run->nworkers; w++) {
		const struct dp_ckpt *o =
			&run->lcs[w]->ckpt[(j - 1) % DP_CKPTS];

		while (__atomic_load_n(&o->n, __ATOMIC_ACQUIRE) < j)
			rte_pause(); /* not seen: a worker is mid-step */
		gen += o->gen;
		in += o->in;
	}
	if (gen == in)
		lc->gen_stop = ckpt_at(run, j);
}

/* The clock reaches t: checkpoints up to t taken, then published. */
static void publish(struct dp_lcore *lc, uint64_t t)
{
	while (ckpt_next(lc) <= t)
		ckpt_take(lc);
	/* Tell main that generation has stopped here for good: the
	 * counters it reads after this flag include every injection
	 * (stores stay in order on x86; the barrier says so). */
	if (!lc->gen_off_done && t > gen_until(lc)) {
		rte_smp_wmb();
		lc->gen_off_done = 1;
	}
	__atomic_store_n(&lc->clock, t, __ATOMIC_RELEASE);
}

/* The earliest due time at the head of a FIFO another instance feeds
 * here (UINT64_MAX: none). Their bridge arms no wake, so without this a
 * worker whose steps lag the wall clock went past what was due on them
 * without a step, and left the last packets of a run there for good.
 * What the bridge puts on them after this look is due after what the
 * worker may run (bridge.h): the peers' SYNC covers it. */
static uint64_t xlinks_next(const struct dp_lcore *lc)
{
	uint64_t d = UINT64_MAX;

	for (uint32_t i = 0; i < lc->nxlinks; i++) {
		const struct dp_vcslot *f = dp_link_peek(lc->xlinks[2 * i]);
		struct dp_credit c;

		if (f != NULL && f->due < d)
			d = f->due;
		if (dp_link_credit_peek(lc->xlinks[2 * i + 1], &c) && c.due < d)
			d = c.due;
	}
	return d;
}

/*
 * The next step with something to do: the one after the clock when a
 * node is active, else the first with a wake or timer due, or with a
 * packet or credit from another instance due; never past a checkpoint.
 * What comes from outside (DPDK ports, other instances) is looked for at
 * the wall clock's step: every quantum while the worker keeps up, and at
 * once, past the steps with nothing due, when it is behind (a frame from
 * a DPDK port is stamped with the wall clock's step when it is taken, as
 * ns-3's real-time scheduler stamps external events; one from another
 * instance carries its own due time).
 */
static uint64_t next_step(struct dp_lcore *lc, uint64_t wall)
{
	const struct dp_run *run = lc->run;
	uint64_t t = lc->clock + run->quantum, c = ckpt_next(lc);

	if (!any_active(lc) && lc->next_event > lc->clock) {
		uint64_t w = dp_wheel_next(lc->wheel);

		if (lc->next_event < w)
			w = lc->next_event;
		if (lc->nxlinks) {
			uint64_t x = xlinks_next(lc);

			if (x < w)
				w = x;
		}
		if (lc->npollers || lc->bridge != NULL) {
			uint64_t p = run->paced ? dp_wall_step(run, wall) : t;

			if (p < w)
				w = p;
		}
		w = dp_step_at(run, w);
		if (w > t)
			t = w;
	}
	return c < t ? c : t;
}

/* The step at t is the first at or after an edge of the measurement
 * window: the links this worker's routers send on keep their send
 * counters as they are (what the steps before t sent), so that their use
 * is over the window's emulated time whatever the host (emu/linkuse.c).
 * No step between the window's edge and t sent anything here. */
static void window_edge(struct dp_lcore *lc, uint64_t t)
{
	const struct dp_run *run = lc->run;
	uint32_t e;

	while ((e = lc->win_edges) < 2 && t >= (e ? run->m1 : run->m0)) {
		for (uint32_t i = 0; i < lc->nrouters; i++) {
			const struct dp_router *r = lc->routers[i];

			for (uint32_t k = 0; k < r->nports; k++) {
				struct dp_link *l = r->port[k].out;

				if (l == NULL)
					continue;
				l->win_pkts[e] = l->tx_pkts;
				l->win_bytes[e] = l->tx_bytes;
			}
		}
		__atomic_store_n(&lc->win_edges, e + 1, __ATOMIC_RELEASE);
	}
	lc->win_next = lc->win_edges == 0   ? run->m0
		       : lc->win_edges == 1 ? run->m1
					    : UINT64_MAX;
}

/*
 * The tables changed before this step (a link down or up, a router
 * drained: emu/change_apply.c, made while the workers were held): every
 * router with packets queued steps now, parked or not. A packet whose
 * output went down routes again when its router next tries it
 * (router.c, try_routed); a parked router used to try only at its
 * wake, or at whatever other wake came first (a credit's, an
 * arrival's), so when it routed around the failure depended on wakes
 * that had nothing to do with it.
 */
static void tables_changed(struct dp_lcore *lc, const struct df_tables *tb)
{
	lc->tb_seen = tb;
	for (uint32_t i = 0; i < lc->nrouters; i++) {
		uint32_t n = lc->nterms + i;

		if (dp_router_queued(lc->routers[i]))
			lc->wheel->active[n >> 6] |= 1ULL << (n & 63);
	}
}

/* Run the step at t: wakes due, active nodes, the bridge. The bridge
 * (its ports to other instances) is looked at once every bridge_gap_tsc
 * of wall time at most: every step while the worker keeps up, and not
 * at each of the steps it runs to catch up, which it could not then do
 * (a step costs more than its quantum with the ports' bursts). */
static unsigned step(struct dp_lcore *lc, uint64_t t, uint64_t wall)
{
	const struct df_tables *tb;
	unsigned work;

	if (unlikely(t >= lc->win_next))
		window_edge(lc, t);
	lc->now = t;
	lc->next_event = UINT64_MAX;
	lc->gen_on = t <= gen_until(lc);
	dp_wheel_advance(lc->wheel, t);
	tb = __atomic_load_n(&lc->run->tb, __ATOMIC_ACQUIRE);
	if (unlikely(tb != lc->tb_seen))
		tables_changed(lc, tb);
	for (uint32_t i = 0; lc->npollers && i < lc->wheel->nwords; i++)
		lc->wheel->active[i] |= lc->pollers[i];
	work = step_nodes(lc, t);
	if (lc->bridge != NULL &&
	    wall - lc->bridge_wall >= lc->run->bridge_gap_tsc) {
		lc->bridge_wall = wall;
		work += dp_bridge_step(lc->bridge, t);
	}
	lc->sweeps++;
	return work;
}

/* Paced: the step at t may not run before the wall clock says so.
 * Returns 1 when it may run now; else waits a little and returns 0 (the
 * caller looks again: another worker may send something sooner). The
 * lag of the steps that run is recorded, in emulated ticks. */
static int paced(struct dp_lcore *lc, uint64_t t, uint64_t wall)
{
	const struct dp_run *run = lc->run;
	uint64_t at = dp_wall_at(run, t);

	if (wall < at) {
		nap(lc, at - wall);
		return 0;
	}
	dp_hist_add(&lc->st.lateness,
		    (uint64_t)((double)(wall - at) * 4294967296.0 /
			       (double)run->tsc_per_tick_q32));
	return 1;
}

/* Is a live peer's bridge on this worker's CPU (as its SYNC said)? */
static int peer_on_my_cpu(const struct dp_bridge *b, int cpu)
{
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		const struct dp_peer *p = &b->peer[j];

		if (p->used && !p->lost && p->cpu == cpu)
			return 1;
	}
	return 0;
}

/*
 * Nothing to run up to a (another worker, a peer instance or the hold):
 * the bridge's worker takes in what the peers sent and tells them its
 * clock meanwhile, else they would wait for each other. A worker held
 * by a peer spins: a port's round trip is 2-60 us, and a sleep costs
 * 60-90 us here (two instances ran at 0.12-0.26 emulated s per wall s
 * with waits that slept, 0.48-0.53 spinning), and a busy neighbour on
 * its CPU takes its share either way. But when a peer runs on the same
 * CPU (three instances on two vCPUs), spinning keeps it off until the
 * scheduler's tick: after a few looks the worker yields the CPU.
 */
static void wait(struct dp_lcore *lc, uint64_t t, uint64_t a, uint64_t wall)
{
	const struct dp_run *run = lc->run;

	if (lc->bridge != NULL &&
	    (lc->waits < 64 || wall - lc->bridge_wall >= run->bridge_gap_tsc)) {
		lc->bridge_wall = wall;
		dp_bridge_step(lc->bridge, lc->clock);
	}
	if (t == UINT64_MAX || a == run->hold) {
		nap(lc, run->idle_sleep_tsc + 3 * run->idle_margin_tsc);
		return;
	}
	if (++lc->waits >= 64 && run->peers != NULL &&
	    peer_on_my_cpu(run->peers, lc->cpu))
		sched_yield();
	else
		rte_pause();
}

int dp_worker_main(void *arg)
{
	struct dp_lcore *lc = arg;
	const struct dp_run *run = lc->run;
	struct rte_rcu_qsbr *guard = dp_unmap_guard_init();
	uint64_t prev = rte_rdtsc();
	unsigned prev_work = 0;

	/* Outside the hot loop: make short idle sleeps short. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	lc->cpu = sched_getcpu();
	dp_unmap_guard_online(guard, lc->lcore_id);
	while (!run->quit) {
		uint64_t wall = rte_rdtsc(), a, t;

		/* between steps: in no port's burst (unmap_guard.h) */
		dp_unmap_guard_quiescent(guard, lc->lcore_id);
		if (prev_work) /* the last step did something: it was busy */
			lc->busy_tsc += wall - prev;
		prev = wall;
		prev_work = 0;
		/* the others' clocks first: every note they sent for events
		 * due by then is in the queues when they are read */
		a = allowed(lc);
		take_notes(lc);
		t = next_step(lc, wall);
		if (t > a || t == UINT64_MAX) {
			/* nothing to do up to a: say so, so the others can
			 * go on (SimBricks' sync message), paced no further
			 * than the wall clock; wait for them */
			uint64_t c = run->paced ? dp_wall_step(run, wall) : a;

			if (c > a)
				c = a;
			if (c != UINT64_MAX && c > lc->clock)
				publish(lc, c);
			wait(lc, t, a, wall);
			continue;
		}
		lc->waits = 0;
		if (t - run->quantum > lc->clock)
			publish(lc, t - run->quantum); /* idle until t */
		if (run->paced && !paced(lc, t, wall))
			continue;
		prev_work = step(lc, t, wall);
		publish(lc, t);
	}
	dp_unmap_guard_offline(guard, lc->lcore_id);
	dp_term_spares_free(lc);
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
