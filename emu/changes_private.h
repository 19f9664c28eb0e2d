/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_CHANGES_PRIVATE_H
#define EMU_CHANGES_PRIVATE_H

/*
 * What the two files of run-time changes (changes.h) share: the state of
 * a run's changes, and the few functions one calls in the other.
 * changes.c: where changes come from (events due, telemetry requests,
 * instance 0's announcements), the log; change_apply.c: each change
 * made (new tables built, checked, installed or staged, settling).
 */
#include <stdint.h>

#include "changes.h"
#include "faults.h"

#define MAX_LOG	     256
#define MAX_ANNOUNCE 16

/* A partitioned run's instance 0 makes the changes and announces them;
 * the others follow (instances.h). */
enum ctl_role { ROLE_ALONE, ROLE_LEADER, ROLE_FOLLOWER };

struct emu_ctl {
	const struct df_plan *pl;
	struct dp_run *run;
	struct dp_router *const *routers;
	struct dp_term *const *terms;
	double hz;	/* TSC per emulated second: event times, the log */
	double wall_hz; /* TSC per wall second: how long checks took */
	uint64_t t0;
	uint32_t next_event;
	int deferred; /* the next event waits for a change to settle */
	/* partitioned: the event whose change is being made at its due
	 * time (index + 1; 0: none, or made late), which every instance
	 * makes there; instance 0: the next event's deferral announced;
	 * the others: the link events instance 0 has made or deferred */
	uint32_t cur_event;
	int defer_told;
	uint32_t resolved;
	/* link failures: possible (why_not == NULL) and their state */
	const char *why_not;
	int faults_ready;
	struct df_faults f;
	struct df_tables **versions; /* every table version installed */
	uint32_t nversions, cversions;
	struct df_ring **rings; /* OFAR: every escape ring installed since */
	uint32_t nrings;
	struct df_tree **trees; /* or every escape tree */
	uint32_t ntrees;
	double load;
	/* a partitioned run: the role, table changes made (link, drain)
	 * and of them settled here, whether every peer has settled them
	 * too (the caller says), and changes made but not yet announced */
	enum ctl_role role;
	uint32_t nchanges, nsettled, nloads;
	int counted; /* the change settling now is one of nchanges */
	int peers_settled;
	struct emu_change ann[MAX_ANNOUNCE];
	uint32_t nann;
	/* a partitioned run's table change, prepared (run->tb_next) and made
	 * here once the bridge switches to it: what to do then */
	struct {
		int on;
		uint32_t version;
		enum df_fault_op op;
		uint32_t r, port;
		struct df_tables *nt;
		uint64_t at;	/* prepared */
		uint32_t event; /* cur_event when prepared */
		char what[48], msg[320];
	} staged;
	/* settling after a link change (faults.h): queue tails to pass,
	 * stage 1 (tails at the change) then 2 (tails one link delay after
	 * stage 1 ended), and when stage 2's snapshot is due; the step of
	 * the next look, where the workers are held (ctl_settle) */
	int settling;
	uint32_t *snap;
	uint64_t snap2_at, changed_at, link_delay, check_at;
	/* what happened */
	struct df_fault_log log[MAX_LOG];
	uint32_t nlog;
	/* one command from the telemetry thread: state 0 free, 1 posted,
	 * 2 answered */
	volatile int req_state;
	enum df_fault_op req_op;
	char req_arg[64];
	char req_reply[320];
	int req_rc;
	volatile int closing;
};

/* changes.c: one line of the log (the telemetry thread reads it). */
void ctl_add_log(struct emu_ctl *c, uint64_t now, int ok, const char *what,
		 const char *msg);

/* change_apply.c: a change (op with its argument) made or refused (msg
 * says which); instance j taken out (emu_ctl_instance_lost); settling
 * moved on; the staged tables in use (partitioned run). */
int ctl_apply(struct emu_ctl *c, enum df_fault_op op, const char *arg,
	      uint64_t now, char *msg, size_t n);
int ctl_lose(struct emu_ctl *c, uint32_t j, const char *why, uint64_t now,
	     char *msg, size_t n);
void ctl_settle(struct emu_ctl *c, uint64_t now);
void ctl_staged_made(struct emu_ctl *c, uint64_t now);

#endif
