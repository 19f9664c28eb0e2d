/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run, on the main lcore: the workers launched, then a sleep between
 * its duties (docs/design.md, "Routers, lcores and threads"): capture
 * rings, link use, run-time changes, the protocol between instances, the
 * phases (warm-up, measure, finish, drain), Ctrl-C, the watchdog and the
 * live status; at the end it stops the workers.
 */
#include <stdlib.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "changes.h"
#include "emu_capture.h"
#include "emu_int.h"
#include "encap.h"
#include "instances.h"
#include "telemetry.h"

static void sleep_us(unsigned us)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)us * 1000L};

	nanosleep(&ts, NULL);
}

/* Every packet generated in the window arrived or was dropped. */
static int measured_in(const struct dp_stats *s)
{
	return s->gen_measured == s->del_measured + s->drops_measured;
}

/* Emulated time as the main lcore sees it: the slowest worker's clock
 * (every event due by then is handled). */
uint64_t emu_now(const struct emu *e)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t w = 0; w < e->pl->nworkers; w++) {
		uint64_t c =
			__atomic_load_n(&e->lc[w]->clock, __ATOMIC_ACQUIRE);
		if (c < t)
			t = c;
	}
	return t;
}

/* Every worker's clock is past the end of generation. */
static int all_stopped(const struct emu *e)
{
	for (uint32_t w = 0; w < e->pl->nworkers; w++)
		if (!e->lc[w]->gen_off_done)
			return 0;
	rte_smp_rmb();
	return 1;
}

/* Batch modes: packets all terminals generate in all. */
static uint64_t batch_total(const struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;

	return (uint64_t)n * (e->pl->cfg.mode == DF_MODE_ALL_TO_ALL
				      ? n - 1
				      : e->pl->cfg.batch_packets);
}

/*
 * A signal (Ctrl-C): the first ends the measurement window now (an empty
 * one during warm-up) and lets the measured packets drain as usual, so
 * the report stays true for the time measured; the second stops at once.
 * Returns 1 to stop now.
 */
static int interrupt(struct emu *e, const struct df_emu_opts *o, uint64_t now,
		     struct df_report *rep, uint64_t *deadline)
{
	uint64_t drain =
		ns_to_tsc(e->ehz, e->pl->cfg.drain_timeout_ms * 1000000ULL);

	struct dp_run *run = &e->run;

	if (*o->stop > 1) {
		rep->interrupted = 2;
		return 1;
	}
	if (rep->interrupted)
		return 0;
	rep->interrupted = 1;
	if (now + drain < *deadline)
		*deadline = now + drain;
	if (e->pl->cfg.mode != DF_MODE_STEADY) {
		run->gen_on = 0;
		return 0;
	}
	if (e->pl->cfg.finish == DF_FINISH_STOP && now < run->gen_end)
		run->gen_end = now;
	/* The end moves first: during warm-up, moving the start first would
	 * open a window [now, old end) for a moment. Workers read each with
	 * one aligned 64-bit load and decide a packet's window once, at
	 * generation (DP_SQ_MEASURED). */
	if (now < run->m1)
		run->m1 = now;
	rte_compiler_barrier();
	if (now < run->m0)
		run->m0 = now;
	return 0;
}

/*
 * Peers taken as lost (bits of *todo): out of the tables, their links
 * down (emu/changes.c), each once the change before has settled. Returns
 * -1 when the run cannot go on without one (rep->part.lost_peer says
 * why).
 */
static int take_lost(struct emu *e, struct emu_ctl *ctl, uint32_t *todo,
		     uint64_t now, struct df_report *rep, FILE *status)
{
	char msg[320];

	for (uint32_t j = 0; j < DF_MAX_INST; j++) {
		const char *why = emu_inst_lost(e->inst, j);
		int rc;

		if (!(*todo & (1u << j)) || why == NULL)
			continue;
		rc = emu_ctl_instance_lost(ctl, j, why, now, msg, sizeof(msg));
		if (rc == 1)
			continue; /* again at the next turn */
		*todo &= ~(1u << j);
		fprintf(status, "\ndfemu: instance %u lost: %s\n", j, msg);
		if (rc < 0) {
			snprintf(rep->part.lost_peer,
				 sizeof(rep->part.lost_peer),
				 "instance %u lost: %.140s", j, msg);
			return -1;
		}
	}
	return 0;
}

/*
 * Run-time changes across instances (emu/changes.h). Instance 0, before
 * its poll (announce = 0): may it make the next table change (every peer
 * settled the last), and may its bridge commit the one prepared (every
 * peer prepared it)? After (announce = 1): what it made, to the others.
 * The others, before: the announced changes in order, a table change
 * once the one before has settled here. Returns -1 when one cannot be
 * made here.
 */
static int changes_across(struct emu *e, struct emu_ctl *ctl, int announce,
			  uint64_t now, struct df_report *rep)
{
	char msg[320];
	uint32_t staged = emu_ctl_staged(ctl);
	struct emu_change ch;

	if (e->pl->cfg.instance == 0) {
		if (announce) {
			while (emu_ctl_announced(ctl, &ch))
				emu_inst_announce(e->inst, &ch);
			return 0;
		}
		emu_ctl_peers_settled(
			ctl, emu_inst_settled(e->inst, emu_ctl_changes(ctl)));
		if (staged && emu_inst_prepared(e->inst, staged))
			e->run.tb_commit = staged; /* the bridge sends it */
		return 0;
	}
	/* in order; a deferral at once (this instance may be held at the
	 * event's time while it settles the change before); a change
	 * instance 0 made at an event's due time once this instance is held
	 * there too */
	while (!announce && emu_inst_next_change(e->inst, &ch)) {
		if (ch.kind != DP_CHANGE_DEFER &&
		    (emu_ctl_settling(ctl) || emu_ctl_staged(ctl) ||
		     !emu_ctl_may_follow(ctl, &ch, now)))
			break;
		emu_inst_change_taken(e->inst);
		if (emu_ctl_follow(ctl, &ch, now, msg, sizeof(msg))) {
			snprintf(rep->part.lost_peer,
				 sizeof(rep->part.lost_peer),
				 "instance 0's change could not be made here: "
				 "%.100s",
				 msg);
			return -1;
		}
	}
	return 0;
}

/* The main lcore's view of a run (emu_run). */
struct run {
	struct emu *e;
	const struct df_emu_opts *o;
	struct df_report *rep;
	FILE *log; /* o->status, or stderr: what went wrong, as it happens */
	struct emu_ctl *ctl;
	struct watch w;
	uint64_t t0, deadline, last_status; /* emulated ticks */
	uint64_t wall0, last_wall;	    /* TSC */
	int batch;
	uint32_t lost_todo; /* peers lost whose links are not down yet */
	uint32_t lost_any;  /* peers lost so far */
	volatile enum df_run_phase phase; /* read by the telemetry thread */
	struct dp_stats s, prev; /* the counters now, at the last status */
};

static const char *const phase_names[DF_RUN_N] = {
	[DF_RUN_WARMUP] = "warmup",   [DF_RUN_BATCH] = "batch",
	[DF_RUN_MEASURE] = "measure", [DF_RUN_FINISH] = "finish",
	[DF_RUN_DRAIN] = "drain",     [DF_RUN_PEER_LOST] = "peer lost",
	[DF_RUN_STOPPED] = "stopped", [DF_RUN_TIMEOUT] = "timeout",
	[DF_RUN_STUCK] = "stuck",
};

const char *df_run_phase_name(enum df_run_phase p)
{
	return p < DF_RUN_N ? phase_names[p] : "?";
}

/* Each terminal's first generation instant, its batch, and its order of
 * destinations in all-to-all. */
static void start_terms(struct emu *e, uint64_t t0)
{
	const struct df_config *c = &e->pl->cfg;

	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		struct dp_term *t = e->terms[i];
		unsigned seed = (unsigned)(c->seed * 7919 + i);

		/* a random phase within one slot: terminals not in lockstep */
		t->next_gen = c->load > 0
				      ? t0 + (uint64_t)((double)rand_r(&seed) /
							RAND_MAX *
							(e->run.slot_q16 >> 16))
				      : UINT64_MAX;
		t->gen_frac = 0;
		t->batch_left = c->mode == DF_MODE_ALL_TO_ALL
					? e->pl->topo.nterms - 1
					: c->batch_packets;
		/* all-to-all: a random order of the other terminals */
		t->a2a_k = 0;
		t->a2a_add = (uint32_t)rand_r(&seed) % (e->pl->topo.nterms - 1);
		do
			t->a2a_mul = 1 + (uint32_t)rand_r(&seed) %
						 (e->pl->topo.nterms - 1);
		while (df_gcd(t->a2a_mul, e->pl->topo.nterms - 1) != 1);
	}
}

/* How far the workers may go before the main lcore looks: to the step
 * of the next scheduled change, which it then makes with every worker
 * there (so a change happens at the same emulated instant on every
 * run), and no further than the deadline. */
static uint64_t hold_at(const struct run *r)
{
	const struct dp_run *run = &r->e->run;
	uint64_t h = dp_step_at(run, r->deadline),
		 c = dp_step_at(run, emu_ctl_next_due(r->ctl));

	return c < h ? c : h;
}

/* The measurement window and the deadline, the terminals, run-time
 * changes; then the workers launched and the run shown to telemetry. */
static void start(struct run *r)
{
	struct emu *e = r->e;
	const struct df_config *c = &e->pl->cfg;
	struct dp_run *run = &e->run;
	struct df_tel_view tv = {.pl = e->pl,
				 .lc = e->lc,
				 .routers = e->routers,
				 .terms = e->terms,
				 .links = e->links,
				 .nlinks = e->nlinks,
				 .hz = e->ehz,
				 .phase = &r->phase};

	r->t0 = r->last_status = tv.t0 = run->t0 = 0;
	r->phase = DF_RUN_WARMUP;
	r->batch = c->mode != DF_MODE_STEADY;
	emu_watch_init(&r->w, e);
	run->m0 = r->t0 + ns_to_tsc(e->ehz, c->warmup_ms * 1000000ULL);
	run->m1 = run->m0 + ns_to_tsc(e->ehz, c->measure_ms * 1000000ULL);
	if (r->batch) {
		/* every packet is measured; the time limit is the timeout */
		run->m0 = r->t0;
		run->m1 = UINT64_MAX;
		r->phase = DF_RUN_BATCH;
	}
	r->deadline = (r->batch ? r->t0 : run->m1) +
		      ns_to_tsc(e->ehz, c->drain_timeout_ms * 1000000ULL);
	/* [traffic] finish = stop ends generation with the window; keep
	 * lets the workers decide, over every instance's counts (worker.c,
	 * ckpt_take) */
	run->gen_end =
		!r->batch && c->finish == DF_FINISH_STOP ? run->m1 : UINT64_MAX;
	run->hold = r->deadline;
	run->lcs = e->lc;
	for (uint32_t w = 0; w < e->pl->nworkers; w++) {
		e->lc[w]->clock = run->t0;
		e->lc[w]->gen_stop = UINT64_MAX;
		e->lc[w]->tb_seen = run->tb;
	}
	start_terms(e, r->t0);
	r->ctl = emu_ctl_start(e->pl, run, e->routers, e->terms, e->hz, e->ehz,
			       r->t0, e->err, e->errlen);
	run->hold = hold_at(r);
	/* paced: emulated ticks run time_scale times slower than the
	 * wall's, from now on */
	run->tsc_per_tick_q32 =
		(uint64_t)(e->hz * (c->time_scale > 0 ? c->time_scale : 1) /
			   DF_TICK_HZ * 4294967296.0);
	run->gen_on = 1;
	r->wall0 = r->last_wall = run->tsc0 = rte_rdtsc();
	rte_smp_wmb();
	for (uint32_t w = 0; w < e->pl->nworkers; w++)
		rte_eal_remote_launch(dp_worker_main, e->lc[w], e->lcore_id[w]);
	df_telemetry_attach(&tv);
	r->rep->drained = 0;
}

/* Run-time changes due now, and across instances (changes_across).
 * Returns -1 when a change cannot be made here. */
static int poll_changes(struct run *r, uint64_t now)
{
	struct emu *e = r->e;

	if (e->inst != NULL && changes_across(e, r->ctl, 0, now, r->rep))
		return -1;
	emu_ctl_poll(r->ctl, now);
	if (e->inst != NULL)
		changes_across(e, r->ctl, 1, now, r->rep);
	return 0;
}

/* The protocol between instances: the whole network's measured packets,
 * from every instance's counters, into *done; the peers found lost taken
 * out. Returns -1 when this instance cannot go on. */
static int poll_instances(struct run *r, uint64_t wall, uint64_t now, int *done)
{
	struct emu *e = r->e;
	/* generation has stopped when every worker's clock is past its end
	 * (worker.c, publish) */
	struct emu_inst_local l = {.s = &r->s,
				   .gen_stopped = all_stopped(e),
				   .settled = emu_ctl_settled(r->ctl),
				   .prepared = emu_ctl_prepared(r->ctl)};
	uint32_t newly;

	if (emu_inst_poll(e->inst, &l, wall, r->rep, &newly))
		return -1;
	r->lost_todo |= newly;
	r->lost_any |= newly;
	if (r->lost_todo &&
	    take_lost(e, r->ctl, &r->lost_todo, now, r->rep, r->log))
		return -1;
	*done = emu_inst_measured_done(e->inst, &l);
	return 0;
}

/* Generation off once every measured packet is in (done) after the
 * window, or at its end with [traffic] finish = stop; in batch modes
 * once the batch is generated and in. */
static void end_generation(struct run *r, uint64_t now, int done)
{
	struct emu *e = r->e;
	struct dp_run *run = &e->run;

	if (r->batch) {
		/* generated all it had to, and all arrived */
		if (r->s.generated == batch_total(e) && done) {
			run->gen_on = 0;
			r->rep->drained = 1;
		}
		return;
	}
	/* the workers end generation themselves, at an emulated instant
	 * (worker.c), several instances' too; but once an instance is lost
	 * (not exact any more), the main lcore does, on the counts of the
	 * network left and of what went to and came from the lost one */
	if (r->lost_any && run->gen_end == UINT64_MAX && now >= run->m1 && done)
		run->gen_end = now;
	if (now >= run->m1 && all_stopped(e))
		r->phase = DF_RUN_DRAIN;
	if (now >= run->m1 && done)
		r->rep->drained = 1;
}

/* Generation has stopped on every worker: is everything in, every packet
 * and every credit (partitioned: in every instance, all done)? */
static int all_in(struct run *r)
{
	struct emu *e = r->e;

	sum_stats(e, &r->s); /* after the acknowledgements */
	if (e->inst != NULL) {
		/* the whole network drained: the peers get what they need
		 * for their checks, and all stop once all are done */
		struct emu_inst_local l = {.s = &r->s, .gen_stopped = 1};
		if (emu_inst_drained(e->inst, &l))
			emu_inst_finish(e->inst, e->lc, e->pl->nworkers);
		return emu_inst_all_done(e->inst, rte_rdtsc());
	}
	if (in_flight(&r->s) == 0 && r->s.credits_out == r->s.credits_in) {
		/* the last packets may have arrived since done was read:
		 * judge on these counters */
		if (!r->batch && measured_in(&r->s))
			r->rep->drained = 1;
		return 1;
	}
	return 0;
}

/* The run ends early, in phase p. */
static int end_in(struct run *r, enum df_run_phase p)
{
	r->phase = p;
	return 1;
}

/* One turn of the main lcore's loop: 1 when the run is over. */
static int turn(struct run *r)
{
	struct emu *e = r->e;
	const struct df_emu_opts *o = r->o;
	struct dp_run *run = &e->run;
	uint64_t now, wall;
	int done;

	/* while a change settles the workers wait at each of its looks
	 * (emu_ctl_next_due): look sooner */
	sleep_us(e->inst ? 5000 : emu_ctl_settling(r->ctl) ? 100 : 1000);
	df_capture_drain(e->cap);
	wall = rte_rdtsc();
	now = emu_now(e);
	if (poll_changes(r, now))
		return end_in(r, DF_RUN_PEER_LOST);
	/* the next change, once this one is made: the workers go on */
	__atomic_store_n(&run->hold, hold_at(r), __ATOMIC_RELEASE);
	sum_stats(e, &r->s);
	if (now >= run->m0 && now < run->m1)
		r->phase = DF_RUN_MEASURE;
	else if (now >= run->m1 && !all_stopped(e))
		r->phase = DF_RUN_FINISH; /* measured packets still out */
	done = measured_in(&r->s);
	if (e->inst != NULL && poll_instances(r, wall, now, &done))
		return end_in(r, DF_RUN_PEER_LOST);
	end_generation(r, now, done);
	if (o->stop && *o->stop && interrupt(e, o, now, r->rep, &r->deadline))
		return end_in(r, DF_RUN_STOPPED);
	/* over once generation has ended (batch: the main lcore saw the
	 * batch in; steady: every worker's clock is past its end) and
	 * everything is in */
	if ((r->batch ? !run->gen_on : all_stopped(e)) && all_in(r))
		return 1;
	if (now >= r->deadline)
		return end_in(r, DF_RUN_TIMEOUT);
	if (emu_watch_check(e, &r->w, now, r->rep, r->log))
		return end_in(r, DF_RUN_STUCK);
	if ((!o->quiet || o->csv) && wall - r->last_wall >= (uint64_t)e->hz) {
		r->last_wall = wall;
		emu_status_line(e, o, r->t0, now, r->phase, &r->s, &r->prev,
				&r->last_status);
	}
	return 0;
}

/* The workers stopped and waited for; the last status line; the pace. */
static void finish(struct run *r)
{
	struct emu *e = r->e;
	uint64_t end;

	e->run.gen_on = 0;
	e->run.quit = 1;
	rte_eal_mp_wait_lcore();
	df_telemetry_attach(NULL);
	emu_ctl_finish(r->ctl, r->rep);
	emu_watch_free(&r->w);
	/* the emulated time run: to the last delivery (after it, an idle
	 * clock only follows the wall's) */
	sum_stats(e, &r->s);
	end = r->s.last_rx ? r->s.last_rx : emu_now(e);
	r->rep->wall_s = (double)(rte_rdtsc() - r->wall0) / e->hz;
	r->rep->emulated_s = (double)(end - r->t0) / e->ehz;
	r->rep->pace =
		r->rep->wall_s > 0 ? r->rep->emulated_s / r->rep->wall_s : 0;
	r->rep->quantum_ns = (double)e->run.quantum / DF_TICKS_PER_NS;
	if (!r->o->quiet || r->o->csv) {
		sum_stats(e, &r->s);
		emu_status_line(e, r->o, r->t0, end, r->phase, &r->s, &r->prev,
				&r->last_status);
	}
}

void emu_run(struct emu *e, const struct df_emu_opts *o, struct df_report *rep)
{
	struct run r = {.e = e, .o = o, .rep = rep, .log = o->status ?: stderr};

	start(&r);
	while (!turn(&r))
		;
	finish(&r);
}
