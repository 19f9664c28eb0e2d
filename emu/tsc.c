/* SPDX-License-Identifier: BSD-3-Clause */
#include <time.h>

#include <rte_cycles.h>

#include "emu.h"

static double ns_of(const struct timespec *t)
{
	return (double)t->tv_sec * 1e9 + (double)t->tv_nsec;
}

/*
 * A TSC reading and the CLOCK_MONOTONIC_RAW instant it was taken at: the
 * TSC read between two clock reads, the tightest of several tries. A
 * single pair is off by however long the thread was descheduled between
 * its two reads; on a busy host that was milliseconds, the rate 8 % low
 * over 100 ms, and every paced run's emulated time as fast.
 */
static void tsc_at(uint64_t *tsc, double *ns)
{
	double best = -1;

	for (int i = 0; i < 64; i++) {
		struct timespec a, b;
		uint64_t t;
		double w;

		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		t = rte_rdtsc_precise();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		w = ns_of(&b) - ns_of(&a);
		if (best < 0 || w < best) {
			best = w;
			*tsc = t;
			*ns = (ns_of(&a) + ns_of(&b)) / 2;
		}
		if (w < 1000)
			break;
	}
}

double df_tsc_calibrate(uint32_t ms)
{
	struct timespec d = {.tv_sec = ms / 1000,
			     .tv_nsec = (long)(ms % 1000) * 1000000L};
	uint64_t t0, t1;
	double n0, n1;

	tsc_at(&t0, &n0);
	nanosleep(&d, NULL);
	tsc_at(&t1, &n1);
	return (double)(t1 - t0) * 1e9 / (n1 - n0);
}
