/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run-time changes (changes.h): [faults] events when they are due,
 * telemetry commands, and in a partitioned run the changes instance 0
 * announces, carried out on the main lcore (change_apply.c makes each);
 * the log of what happened.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_atomic.h>

#include "changes_private.h"
#include "encap.h"

/* The run the telemetry thread may talk to: requests one at a time. */
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_ctl *active;

void ctl_add_log(struct emu_ctl *c, uint64_t now, int ok, const char *what,
		 const char *msg)
{
	struct df_fault_log *l;

	if (c->nlog == MAX_LOG)
		return;
	pthread_mutex_lock(&active_lock);
	l = &c->log[c->nlog];
	l->t_s = (double)(now - c->t0) / c->hz;
	l->ok = ok;
	snprintf(l->what, sizeof(l->what), "%s", what);
	snprintf(l->msg, sizeof(l->msg), "%s", msg);
	c->nlog++;
	pthread_mutex_unlock(&active_lock);
}

void emu_ctl_peers_settled(struct emu_ctl *c, int yes)
{
	if (c != NULL)
		c->peers_settled = yes;
}

uint32_t emu_ctl_changes(const struct emu_ctl *c)
{
	return c ? c->nchanges : 0;
}

uint32_t emu_ctl_settled(const struct emu_ctl *c)
{
	return c ? c->nsettled : 0;
}

int emu_ctl_settling(const struct emu_ctl *c)
{
	return c != NULL && c->settling != 0;
}

int emu_ctl_announced(struct emu_ctl *c, struct emu_change *ch)
{
	if (c == NULL || c->nann == 0)
		return 0;
	*ch = c->ann[0];
	memmove(&c->ann[0], &c->ann[1], --c->nann * sizeof(c->ann[0]));
	return 1;
}

/* When scheduled event i is due, in emulated ticks. */
static uint64_t event_due(const struct emu_ctl *c, uint32_t i)
{
	return c->t0 + (uint64_t)(c->pl->events[i].t_ms * c->hz / 1e3);
}

int emu_ctl_may_follow(const struct emu_ctl *c, const struct emu_change *ch,
		       uint64_t now)
{
	if (c == NULL || ch->event == 0 || ch->kind == DP_CHANGE_DEFER ||
	    ch->event > c->pl->nevents)
		return 1;
	return now >= dp_step_at(c->run, event_due(c, ch->event - 1));
}

int emu_ctl_follow(struct emu_ctl *c, const struct emu_change *ch, uint64_t now,
		   char *msg, size_t n)
{
	int rc;

	if (c == NULL) {
		snprintf(msg, n, "no run control (out of memory)");
		return -1;
	}
	if (ch->kind == DP_CHANGE_DEFER) {
		/* instance 0 makes that event later: go on past it */
		if (ch->event > c->resolved)
			c->resolved = ch->event;
		return 0;
	}
	if (ch->op < DF_FAULT_DOWN || ch->op > DF_FAULT_UNDRAIN ||
	    (ch->kind == DP_CHANGE_LOAD) != (ch->op == DF_FAULT_LOAD)) {
		snprintf(msg, n, "unknown change %d (kind %d)", ch->op,
			 ch->kind);
		return -1;
	}
	/* a scheduled load change is made here at its due time, from the
	 * schedule every instance has (emu_ctl_poll) */
	if (ch->kind == DP_CHANGE_LOAD && ch->event != 0)
		return 0;
	if (ch->kind == DP_CHANGE_PREPARE && ch->n != c->run->tb_version + 1) {
		snprintf(msg, n,
			 "table version %u announced, this instance is at "
			 "version %u",
			 ch->n, c->run->tb_version);
		return -1;
	}
	c->cur_event = ch->event;
	rc = ctl_apply(c, (enum df_fault_op)ch->op, ch->arg, now, msg, n);
	c->cur_event = 0;
	return rc ? -1 : 0;
}

uint32_t emu_ctl_staged(const struct emu_ctl *c)
{
	return c != NULL && c->staged.on ? c->staged.version : 0;
}

uint32_t emu_ctl_prepared(const struct emu_ctl *c)
{
	if (c == NULL)
		return 0;
	return c->staged.on ? c->staged.version : c->run->tb_version;
}

int emu_ctl_instance_lost(struct emu_ctl *c, uint32_t j, const char *why,
			  uint64_t now, char *msg, size_t n)
{
	if (c == NULL) {
		snprintf(msg, n, "%s; no run control (out of memory)", why);
		return -1;
	}
	if (c->settling || c->staged.on) {
		/* only two table versions may have packets in flight
		 * (faults.h): the caller asks again; packets meanwhile sent
		 * to it are freed by the bridge, counted as handed to it */
		snprintf(msg, n, "waits for the change before to settle");
		return 1;
	}
	return ctl_lose(c, j, why, now, msg, n);
}

struct emu_ctl *emu_ctl_start(const struct df_plan *pl, struct dp_run *run,
			      struct dp_router *const *routers,
			      struct dp_term *const *terms, double hz,
			      double ehz, uint64_t t0, char *err, size_t errlen)
{
	struct emu_ctl *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->pl = pl;
	c->run = run;
	c->routers = routers;
	c->terms = terms;
	c->hz = ehz;
	c->wall_hz = hz;
	c->t0 = t0;
	c->load = pl->cfg.load;
	c->why_not = df_faults_unsupported(&pl->cfg);
	c->role = pl->cfg.ninst <= 1	  ? ROLE_ALONE
		  : pl->cfg.instance == 0 ? ROLE_LEADER
					  : ROLE_FOLLOWER;
	if (c->why_not == NULL && c->role != ROLE_ALONE &&
	    df_alg_escape(pl->cfg.algorithm))
		c->why_not = "OFAR's escape is not laid again across "
			     "instances yet";
	c->peers_settled = 1;
	c->snap =
		calloc((size_t)pl->topo.nrouters * pl->topo.nports * DF_MAX_VC,
		       sizeof(*c->snap));
	if (c->snap == NULL) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* the longest a packet can take on a link: serialization of the
	 * largest frame plus the latency */
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		const struct df_link_params *lp = &pl->cfg.link[k];
		double ns = lp->latency_ns +
			    (lp->bandwidth_gbps > 0
				     ? run->max_frame * 8.0 / lp->bandwidth_gbps
				     : 0);
		uint64_t tsc = (uint64_t)(ns * ehz / 1e9) + 1;
		if (tsc > c->link_delay)
			c->link_delay = tsc;
	}
	pthread_mutex_lock(&active_lock);
	active = c;
	pthread_mutex_unlock(&active_lock);
	return c;
}

uint64_t emu_ctl_next_due(const struct emu_ctl *c)
{
	const struct df_fault_event *ev = NULL;
	uint64_t due = UINT64_MAX;

	if (c == NULL)
		return UINT64_MAX;
	/* partitioned: a change made at its event's due time holds the
	 * workers there until it is made here (the bridge switched) */
	if (c->staged.on)
		return c->staged.event ? event_due(c, c->staged.event - 1)
				       : UINT64_MAX;
	if (c->next_event < c->pl->nevents) {
		ev = &c->pl->events[c->next_event];
		due = event_due(c, c->next_event);
	}
	if (c->role == ROLE_FOLLOWER)
		return due;
	/* Settling is looked at only at the steps of check_at, where the
	 * workers are held (ctl_settle): a link change due meanwhile is
	 * made at the first look after which none is needed, the same
	 * instant on every run. A load change is made at its time. */
	if (c->settling) {
		if (ev != NULL && ev->op == DF_FAULT_LOAD && due < c->check_at)
			return due;
		return c->check_at;
	}
	/* the other instances' settling: the change waits for it, and they
	 * hold at its time until instance 0 says which */
	if (ev != NULL && ev->op != DF_FAULT_LOAD && !c->peers_settled)
		return UINT64_MAX;
	return due;
}

/* The others: scheduled events due by now. A load change is made here,
 * at its time; a link change or drain instance 0 makes (or defers), and
 * this instance holds at its time until it has. */
static void follow_due(struct emu_ctl *c, uint64_t now)
{
	char msg[320];

	while (c->next_event < c->pl->nevents) {
		const struct df_fault_event *ev = &c->pl->events[c->next_event];

		if (now < event_due(c, c->next_event))
			break;
		if (ev->op == DF_FAULT_LOAD) {
			char arg[32];

			snprintf(arg, sizeof(arg), "%g", ev->load);
			c->cur_event = c->next_event + 1;
			ctl_apply(c, ev->op, arg, now, msg, sizeof(msg));
			c->cur_event = 0;
		} else if (c->resolved <= c->next_event) {
			break;
		}
		c->next_event++;
	}
}

/* Instance 0 defers event next_event (the change before must settle):
 * the others, held at its time, are told to go on. */
static void defer_event(struct emu_ctl *c)
{
	if (c->role == ROLE_LEADER && !c->defer_told &&
	    c->nann < MAX_ANNOUNCE) {
		struct emu_change *a = &c->ann[c->nann++];

		memset(a, 0, sizeof(*a));
		a->kind = DP_CHANGE_DEFER;
		a->op = c->pl->events[c->next_event].op;
		a->event = c->next_event + 1;
		c->defer_told = 1;
	}
	c->deferred = 1;
}

void emu_ctl_poll(struct emu_ctl *c, uint64_t now)
{
	char msg[320];
	int rc;

	if (c == NULL)
		return;
	if (c->staged.on && c->run->tb_version == c->staged.version)
		ctl_staged_made(c, now);
	if (c->settling)
		ctl_settle(c, now);
	while (c->next_event < c->pl->nevents) {
		const struct df_fault_event *ev = &c->pl->events[c->next_event];
		uint64_t due = event_due(c, c->next_event);
		char arg[64];
		if (now < due)
			break;
		if (c->role == ROLE_FOLLOWER) {
			follow_due(c, now);
			break;
		}
		/* a scheduled link change waits for the one before to
		 * settle, in every instance (a telemetry command is refused
		 * instead) */
		if (ev->op != DF_FAULT_LOAD &&
		    (c->settling || !c->peers_settled || c->staged.on)) {
			defer_event(c);
			break;
		}
		/* made late if the workers went past its time (they were
		 * not held there while the change before settled) */
		if (ev->op != DF_FAULT_LOAD && now > dp_step_at(c->run, due))
			defer_event(c);
		if (ev->op == DF_FAULT_LOAD)
			snprintf(arg, sizeof(arg), "%g", ev->load);
		else if (ev->op == DF_FAULT_DRAIN || ev->op == DF_FAULT_UNDRAIN)
			snprintf(arg, sizeof(arg), "%u", ev->r);
		else
			snprintf(arg, sizeof(arg), "r%u.p%u", ev->r, ev->port);
		c->cur_event = c->deferred ? 0 : c->next_event + 1;
		rc = ctl_apply(c, ev->op, arg, now, msg, sizeof(msg));
		c->cur_event = 0;
		if (rc == 0 && c->deferred) {
			/* its log entry: made now, or once made in every
			 * instance (the staged one) */
			char *m = c->staged.on ? c->staged.msg
				  : c->nlog    ? c->log[c->nlog - 1].msg
					       : NULL;
			size_t len = m ? strlen(m) : 0,
			       cap = c->staged.on ? sizeof(c->staged.msg)
						  : sizeof(c->log[0].msg);
			pthread_mutex_lock(&active_lock);
			if (m != NULL)
				snprintf(m + len, cap - len,
					 " (due at %.3f s, it waited for the "
					 "change before to settle)",
					 (double)(due - c->t0) / c->hz);
			pthread_mutex_unlock(&active_lock);
		}
		c->deferred = 0;
		c->defer_told = 0;
		c->next_event++;
	}
	if (c->req_state == 1 && c->role == ROLE_FOLLOWER) {
		snprintf(c->req_reply, sizeof(c->req_reply),
			 "refused: in a partitioned run changes are made on "
			 "instance 0, which tells the others (this is instance "
			 "%u)",
			 c->pl->cfg.instance);
		c->req_rc = -1;
		rte_smp_wmb();
		c->req_state = 2;
	} else if (c->req_state == 1) {
		c->req_rc = ctl_apply(c, c->req_op, c->req_arg, now,
				      c->req_reply, sizeof(c->req_reply));
		rte_smp_wmb();
		c->req_state = 2;
	}
}

void emu_ctl_finish(struct emu_ctl *c, struct df_report *rep)
{
	if (c == NULL)
		return;
	c->closing = 1;
	pthread_mutex_lock(&active_lock);
	active = NULL;
	pthread_mutex_unlock(&active_lock);
	/* a request still waiting sees closing; take its lock to know it
	 * has let go of c */
	pthread_mutex_lock(&req_lock);
	pthread_mutex_unlock(&req_lock);
	rep->faults = malloc((c->nlog ? c->nlog : 1) * sizeof(*rep->faults));
	if (rep->faults) {
		memcpy(rep->faults, c->log, c->nlog * sizeof(*rep->faults));
		rep->nfaults = c->nlog;
	}
	for (uint32_t i = 0; i < c->nrings; i++) {
		df_ring_free(c->rings[i]);
		free(c->rings[i]);
	}
	free(c->rings);
	for (uint32_t i = 0; i < c->ntrees; i++) {
		df_tree_free(c->trees[i]);
		free(c->trees[i]);
	}
	free(c->trees);
	for (uint32_t i = 0; i < c->nversions; i++) {
		df_tables_free(c->versions[i]);
		free(c->versions[i]);
	}
	free(c->versions);
	free(c->snap);
	if (c->faults_ready)
		df_faults_free(&c->f);
	free(c);
}

int emu_ctl_request(enum df_fault_op op, const char *arg, char *reply, size_t n)
{
	struct emu_ctl *c;
	int rc = -1;

	pthread_mutex_lock(&req_lock);
	pthread_mutex_lock(&active_lock);
	c = active;
	pthread_mutex_unlock(&active_lock);
	if (c == NULL) {
		snprintf(reply, n, "no run");
		goto out;
	}
	c->req_op = op;
	snprintf(c->req_arg, sizeof(c->req_arg), "%s", arg ? arg : "");
	rte_smp_wmb();
	c->req_state = 1;
	/* the main lcore answers within a loop turn (1 ms); a deadlock
	 * check on a large network takes longer, so wait up to 10 s */
	for (int i = 0; i < 10000 && c->req_state != 2 && !c->closing; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	if (c->req_state == 2) {
		rte_smp_rmb();
		snprintf(reply, n, "%s", c->req_reply);
		rc = c->req_rc;
	} else {
		snprintf(reply, n, "no answer: the run %s",
			 c->closing ? "ended" : "did not answer in 10 s");
	}
	c->req_state = 0;
out:
	pthread_mutex_unlock(&req_lock);
	return rc;
}

void emu_ctl_log(void (*line)(void *arg, double t_s, int ok, const char *s),
		 void *arg)
{
	char buf[300];

	pthread_mutex_lock(&active_lock);
	for (uint32_t i = 0; active && i < active->nlog; i++) {
		snprintf(buf, sizeof(buf), "%s: %s", active->log[i].what,
			 active->log[i].msg);
		line(arg, active->log[i].t_s, active->log[i].ok, buf);
	}
	pthread_mutex_unlock(&active_lock);
}
