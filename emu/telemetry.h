/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_TELEMETRY_H
#define DF_TELEMETRY_H

/*
 * DPDK telemetry commands under /dfemu/, answered from the
 * telemetry thread while a run goes on. They read the workers' counters
 * without locks, as DPDK's own /ethdev/stats does: a value may be one
 * sweep old. The view is attached for the length of a run under a mutex
 * that only the telemetry thread and the main lcore take.
 */
#include <stdint.h>

#include "emu.h"
#include "worker.h"

struct df_tel_view {
	const struct df_plan *pl;
	struct dp_lcore *const *lc;
	struct dp_router *const *routers;
	struct dp_term *const *terms;
	const struct dp_link *links;
	uint32_t nlinks;
	double hz;
	uint64_t t0; /* emulated ticks at the start of the run */
	const volatile enum df_run_phase *phase;
};

/* Register the commands (once per process); 0 or a negative errno. */
int df_telemetry_register(void);
/* Serve this run (v != NULL) or nothing (v == NULL). */
void df_telemetry_attach(const struct df_tel_view *v);

#endif
