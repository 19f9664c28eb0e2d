/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_CHANGES_H
#define EMU_CHANGES_H

/*
 * Changes while a run goes on: links down and up, routers
 * drained and back, the offered load. They come from [faults] events at
 * their times and from telemetry commands (/dfemu/link_down, link_up,
 * drain, undrain, load), and are all
 * carried out by the main lcore in its 1 ms loop, so the workers never
 * stop: new tables (control/faults.h) are swapped in with one pointer
 * store, then the link is marked; packets already routed to it are routed
 * again by the router that holds them.
 */
#include <stdint.h>

#include "emu.h"
#include "worker.h"

struct emu_ctl;

/* Ready to serve this run; NULL on error (err says why). */
struct emu_ctl *emu_ctl_start(const struct df_plan *pl, struct dp_run *run,
			      struct dp_router *const *routers,
			      struct dp_term *const *terms, double hz,
			      double ehz, uint64_t t0, char *err,
			      size_t errlen);
/* Main lcore: scheduled events now due, and a pending command. Times
 * are emulated ticks. */
void emu_ctl_poll(struct emu_ctl *c, uint64_t now);
/* When the next scheduled event can be made, UINT64_MAX if none can
 * yet: the workers hold there until it is (emu/run.c, hold_at). */
uint64_t emu_ctl_next_due(const struct emu_ctl *c);
/* A partitioned run lost instance j (emu/peer_sync.c): its routers are
 * taken out of the tables and its links go down here. why: how it was
 * found lost. Returns 0, 1 while the change before settles (ask again),
 * or -1 when the run cannot go on without it (msg says why). */
int emu_ctl_instance_lost(struct emu_ctl *c, uint32_t j, const char *why,
			  uint64_t now, char *msg, size_t n);
/*
 * A partitioned run (emu/instances.h): instance 0 makes the changes
 * ([faults] events, telemetry commands) and the caller announces them; a
 * table change is prepared (run->tb_next) and made once the bridge
 * switches to it (worker.h), the next one only once every peer has
 * settled it (the caller says whether they have). The others prepare
 * the announced changes in order, and refuse telemetry commands.
 */
void emu_ctl_peers_settled(struct emu_ctl *c, int yes);
/* Table changes (links, drains) made, and of them settled here. */
uint32_t emu_ctl_changes(const struct emu_ctl *c);
uint32_t emu_ctl_settled(const struct emu_ctl *c);
/* Is a table change settling here (the next one must wait)? */
int emu_ctl_settling(const struct emu_ctl *c);
/* The table version prepared and not yet in use, or 0. */
uint32_t emu_ctl_staged(const struct emu_ctl *c);
/* The last table version prepared here (in use or not). */
uint32_t emu_ctl_prepared(const struct emu_ctl *c);
/* A change instance 0 announces (dataplane/encap.h struct
 * dp_encap_change, decoded). */
struct emu_change {
	int kind;	/* DP_CHANGE_PREPARE, _LOAD or _DEFER */
	uint32_t n;	/* PREPARE: table version; LOAD: its number */
	int op;		/* enum df_fault_op */
	uint32_t event; /* [faults] event index + 1, made at its due time
			 * (PREPARE, LOAD) or deferred (DEFER); 0: none */
	char arg[64];	/* rR.pP, R or a load */
};
/* Instance 0: the next change to announce into *ch: 1, or 0 if none. */
int emu_ctl_announced(struct emu_ctl *c, struct emu_change *ch);
/* The others: may they take change ch now? One that instance 0 made at
 * an event's due time waits until this instance is held there too. */
int emu_ctl_may_follow(const struct emu_ctl *c, const struct emu_change *ch,
		       uint64_t now);
/* The others: prepare (or for a load, make) a change instance 0
 * announced. Returns 0, or -1 with the reason in msg (the instances
 * would then differ). */
int emu_ctl_follow(struct emu_ctl *c, const struct emu_change *ch, uint64_t now,
		   char *msg, size_t n);
/* After the workers stopped: the log into the report, everything freed. */
void emu_ctl_finish(struct emu_ctl *c, struct df_report *rep);

/* Telemetry thread: ask the running emulation to carry out op with its
 * argument (a link rR.pP, a router R, or a load); waits for the answer. Returns
 * 0 if done, -1 if refused (or no run); reply says what happened. */
int emu_ctl_request(enum df_fault_op op, const char *arg, char *reply,
		    size_t n);
/* Telemetry thread: the log so far, one line per change. */
void emu_ctl_log(void (*line)(void *arg, double t_s, int ok, const char *s),
		 void *arg);

#endif
