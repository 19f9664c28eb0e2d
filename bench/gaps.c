/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-bench gaps [--seconds S]
 * The host's own floor under the lag (docs/realtime.md, "The host's
 * floor"): a worker lcore does nothing but read the TSC for S seconds and
 * keeps every gap between two reads longer than GAP_NS: time the CPU was
 * taken away (the hypervisor, the kernel, an interrupt). An event due at
 * a random instant is late by what is left of the gap it falls in, so
 * from the gaps alone follows the lateness p99 that no emulator, however
 * fast, gets below on this host. A worker with work of its own is late
 * longer: after a gap it has a backlog to catch up on, so the floor is
 * also given for a worker busy 0.1 to 0.9 of the time (docs/realtime.md,
 * "The host's floor"). dfemu's real-time capacity is where one packet
 * time (the automatic tolerance) meets its lateness p99: this floor, at
 * the worker's share, bounds it. The last line is for scripts:
 *   floor_p99_ns=N lost_share=F longest_ns=N gaps=N
 *   floor_p99_busy_ns=N,N,... (busy 0.1 to 0.9)
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "bench.h"

#define GAP_NS	 1000 /* shorter ones are the loop's own jitter */
#define MAX_GAPS (1u << 20)

struct gaps {
	double seconds, hz;
	uint64_t *len; /* TSC cycles, each gap longer than GAP_NS */
	uint32_t n;
	uint64_t total; /* cycles spun */
};

static int spin(void *arg)
{
	struct gaps *g = arg;
	uint64_t min = (uint64_t)(GAP_NS * g->hz / 1e9);
	uint64_t t0 = rte_rdtsc(), end = t0 + (uint64_t)(g->seconds * g->hz);
	uint64_t prev = t0, now;

	do {
		now = rte_rdtsc();
		if (now - prev > min && g->n < MAX_GAPS)
			g->len[g->n++] = now - prev;
		prev = now;
	} while (now < end);
	g->total = now - t0;
	return 0;
}

/* Lateness exceeded with probability q by an event due at a uniformly
 * random instant, for a worker busy a share rho of the time: the smallest
 * t with sum(max(0, gap - t)) / (1 - rho) <= q * total, by bisection. A
 * gap of length G leaves rho G of work behind, which the worker clears in
 * rho G / (1 - rho) more while new work keeps coming: over G / (1 - rho)
 * the lateness falls from G to 0, and it is over t for (G - t) / (1 - rho)
 * of that. */
static uint64_t late_quantile(const struct gaps *g, double q, double rho)
{
	uint64_t lo = 0, hi = 0;

	for (uint32_t i = 0; i < g->n; i++)
		if (g->len[i] > hi)
			hi = g->len[i];
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		double over = 0;
		for (uint32_t i = 0; i < g->n; i++)
			if (g->len[i] > mid)
				over += (double)(g->len[i] - mid);
		if (over <= q * (1 - rho) * (double)g->total)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The floor for a worker busy a share of the time, 0.1 to 0.9: the
 * busier, the longer it takes to catch up after a gap. */
#define BUSY_STEPS 9

static void floor_by_busy(const struct gaps *g, uint64_t *f)
{
	for (int b = 0; b < BUSY_STEPS; b++)
		f[b] = late_quantile(g, 0.01, (b + 1) / 10.0);
}

int bench_gaps(double seconds, double hz)
{
	struct gaps g = {.seconds = seconds, .hz = hz};
	unsigned w = rte_get_next_lcore(-1, 1, 0);
	uint64_t lost = 0, longest = 0, over10 = 0, over100 = 0;
	double ns = 1e9 / hz;

	g.len = malloc(MAX_GAPS * sizeof(*g.len));
	if (g.len == NULL || w >= RTE_MAX_LCORE) {
		fprintf(stderr, "dfemu-bench: gaps needs a worker lcore and "
				"8 MB of memory\n");
		free(g.len);
		return 3;
	}
	rte_eal_remote_launch(spin, &g, w);
	rte_eal_wait_lcore(w);
	for (uint32_t i = 0; i < g.n; i++) {
		lost += g.len[i];
		longest = g.len[i] > longest ? g.len[i] : longest;
		over10 += g.len[i] * ns > 10e3 ? g.len[i] : 0;
		over100 += g.len[i] * ns > 100e3 ? g.len[i] : 0;
	}
	uint64_t p99 = late_quantile(&g, 0.01, 0),
		 p999 = late_quantile(&g, 0.001, 0), busy[BUSY_STEPS];
	printf("worker lcore %u spun %.2f s: %u gaps over %d ns, %.3f %% of "
	       "the time lost (%.3f %% in gaps over 10 us, %.3f %% over "
	       "100 us), longest %.1f us\n",
	       w, g.total / hz, g.n, GAP_NS, 100.0 * lost / g.total,
	       100.0 * over10 / g.total, 100.0 * over100 / g.total,
	       longest * ns / 1e3);
	printf("the host's floor: an event due at a random instant is late "
	       "by more than %.1f us\n  with probability 1 %% (0.1 %%: %.1f "
	       "us) however fast the emulator%s\n",
	       p99 * ns / 1e3, p999 * ns / 1e3,
	       g.n == MAX_GAPS ? " (gap list full: a lower bound)" : "");
	floor_by_busy(&g, busy);
	printf("a worker busy a share of the time is late after a gap until "
	       "it has caught up;\nthe lateness p99 no emulator gets below, "
	       "by that share:\n ");
	for (int b = 0; b < BUSY_STEPS; b++) {
		const char *sep = b == 4 ? "\n " : ";"; /* two lines */

		printf(" %.1f: %.1f us%s", (b + 1) / 10.0, busy[b] * ns / 1e3,
		       b + 1 < BUSY_STEPS ? sep : "\n");
	}
	printf("floor_p99_ns=%.0f lost_share=%.6f longest_ns=%.0f gaps=%u "
	       "floor_p99_busy_ns=",
	       p99 * ns, (double)lost / g.total, longest * ns, g.n);
	for (int b = 0; b < BUSY_STEPS; b++)
		printf("%.0f%s", busy[b] * ns, b + 1 < BUSY_STEPS ? "," : "\n");
	free(g.len);
	return 0;
}
