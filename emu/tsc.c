/* SPDX-License-Identifier: BSD-3-Clause */
#include <time.h>

#include <rte_cycles.h>

#include "emu.h"

double df_tsc_calibrate(uint32_t ms)
{
	struct timespec a, b,
		d = {.tv_sec = ms / 1000,
		     .tv_nsec = (long)(ms % 1000) * 1000000L};
	uint64_t t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = rte_rdtsc_precise();
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	t1 = rte_rdtsc_precise();
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 +
	     (double)(b.tv_nsec - a.tv_nsec);
	return (double)(t1 - t0) * 1e9 / ns;
}
