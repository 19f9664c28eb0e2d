/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pace's two conversions (dataplane/worker.h), no EAL: dp_wall_at,
 * the wall TSC at which a step may run, and dp_wall_step, the last step
 * the wall clock has passed. Each is the other's inverse on the step
 * grid, from the first second to a day, at several TSC rates and time
 * scales: in particular past 2^32 TSC cycles (2 s at 2.1 GHz), where a
 * 64-bit quotient once wrapped and frames from ports were stamped with a
 * lagging worker's step instead of the wall clock's.
 */
#include <string.h>

#include "check.h"
#include "config.h"
#include "worker.h"

/* As emu/run.c sets the pace up: TSC rate hz, time scale n. */
static void pace(struct dp_run *run, double hz, double n)
{
	memset(run, 0, sizeof(*run));
	run->quantum = 2560 * DF_TICKS_PER_NS;
	run->t0 = 7 * run->quantum;
	run->tsc0 = 1234567890123456ULL; /* a TSC some days after boot */
	run->tsc_per_tick_q32 = (uint64_t)(hz * n / DF_TICK_HZ * 4294967296.0);
}

/* Step k of the grid: at most a cycle's rounding either way. */
static int round_trip(const struct dp_run *run, uint64_t k)
{
	uint64_t t = run->t0 + k * run->quantum, w = dp_wall_at(run, t);

	return dp_wall_step(run, w + 1) == t &&
	       dp_wall_step(run, w - 1) == t - run->quantum;
}

static void grid(double hz, double n)
{
	static const double secs[] = {0.001, 1.9, 2.1, 4.2, 60, 3600, 86400};
	struct dp_run run;
	int ok = 1;

	pace(&run, hz, n);
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		uint64_t k = (uint64_t)(secs[i] * DF_TICK_HZ / run.quantum);

		ok &= round_trip(&run, k);
	}
	CHECK(ok,
	      "%.1f GHz, time scale %g: wall_at and wall_step are "
	      "inverses from 1 ms to a day of emulated time",
	      hz / 1e9, n);
}

/* The wall clock 3 x 2^32 cycles after the start: 6.1 s at 2.1 GHz. */
static void past_wrap(void)
{
	struct dp_run run;
	double hz = 2.1e9, s = 3 * 4294967296.0 / hz;
	uint64_t t, want;

	pace(&run, hz, 1);
	t = dp_wall_step(&run, run.tsc0 + 3 * 4294967296ULL);
	want = run.t0 + (uint64_t)(s * DF_TICK_HZ);
	CHECK(t <= want && want - t < 2 * run.quantum,
	      "wall_step 3 x 2^32 cycles in: %.6f s of emulated time, "
	      "%.6f s wanted",
	      (double)(t - run.t0) / DF_TICK_HZ, s);
	CHECK(dp_wall_step(&run, run.tsc0 - 1) == run.t0,
	      "wall_step before the start: the first step");
}

int main(void)
{
	grid(2.1e9, 1);
	grid(2.596e9, 1);
	grid(3.0e9, 2);
	grid(2.1e9, 1000);
	past_wrap();
	return check_done();
}
