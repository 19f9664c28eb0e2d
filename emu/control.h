/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_CONTROL_RUN_H
#define DF_CONTROL_RUN_H

/*
 * Changes while a run goes on (issue 9): links down and up, routers
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
			      uint64_t t0, char *err, size_t errlen);
/* Main lcore: scheduled events now due, and a pending command. */
void emu_ctl_poll(struct emu_ctl *c, uint64_t now);
/* A partitioned run lost instance j (emu/instances.c): its routers are
 * taken out of the tables and its links go down here. why: how it was
 * found lost. Returns 0, 1 while the change before settles (ask again),
 * or -1 when the run cannot go on without it (msg says why). */
int emu_ctl_instance_lost(struct emu_ctl *c, uint32_t j, const char *why,
			  uint64_t now, char *msg, size_t n);
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
