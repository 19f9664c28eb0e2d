/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_BENCH_H
#define DF_BENCH_H

#include "emu.h"

#define BENCH_MAX_SETS 64

/* --workers: worker lcores of every run (bench_plan sets run.workers) */
extern unsigned bench_workers;

/* A plan from config with the settings a, then b ("section.key=value"),
 * on bench_workers workers. Says why on stderr and returns -1 when it cannot.
 */
int bench_plan(struct df_plan *pl, const char *config, const char *const *a,
	       int na, const char *const *b, int nb);

/* dfemu-bench capacity (bench/capacity.c): the highest link rate at which
 * the network of config and sets keeps real time, found rounds times (1
 * to BENCH_MAX_ROUNDS). The exit status. */
#define BENCH_MAX_ROUNDS 99
int bench_capacity(const char *config, const char *const *sets, int nsets,
		   double seconds, unsigned rounds, double hz, int huge);

/* dfemu-bench sim (bench/sim.c): the network of config and sets run
 * unpaced, its speed per wall second. The exit status. */
int bench_sim(const char *config, const char *const *sets, int nsets,
	      double hz);

/* dfemu-bench gaps (bench/gaps.c): the host's floor under the lag, from
 * the time a spinning worker lcore loses. The exit status. */
int bench_gaps(double seconds, double hz);

/* dfemu-bench sync (bench/sync.c): what keeping two workers in step costs
 * a step, with no work. The exit status. */
int bench_sync(double seconds, double hz);

#endif
