/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-bench capacity --config F [--set ...] [--seconds S] [--rounds N]
 * Real-time capacity as a figure users can plan with: the highest link
 * rate at which the given network and load still keep real time
 * (lateness p99 within run.lateness_tolerance_ns, docs/realtime.md) on
 * one worker core (--workers: more). Every link class is scaled by the same
 * factor, so the config's ratios stay; latencies, load and packet size are the
 * config's. Doubling or halving from the config's rates brackets the capacity,
 * then bisection on the factor narrows it to about 1 %. Each trial is a
 * run: 100 ms warm-up, S seconds measured, finish = stop. The host's
 * gaps move the figure from one minute to the next (docs/performance.md,
 * "Real-time capacity"), so N rounds repeat the whole search and report
 * the median round (the lower one of an even N) and the range. The last
 * line is for scripts, the median round's figures:
 *   capacity_gbps=X delivered_pps=N hops_per_sec=H factor=F rounds=N
 *   min_pps=A max_pps=B
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BISECTIONS 7 /* a factor of 2 to within 2^(1/128): 0.5 % */

struct trial {
	double factor, gbps; /* the fastest link's rate */
	double offered, accepted, pps, hops;
	uint64_t late_p99, tolerance;
	int kept, accounted;
};

static int run_at(const char *config, const char *const *sets, int nsets,
		  const double *base, double f, double seconds, double hz,
		  struct trial *t)
{
	char rate[DF_LINK_NCLASS][96], ms[64], err[1024];
	const char *own[DF_LINK_NCLASS + 5];
	struct df_emu_opts eo = {.quiet = 1, .status = stderr, .tsc_hz = hz};
	struct df_report rep;
	struct df_plan pl;
	int n = 0;

	memset(t, 0, sizeof(*t));
	t->factor = f;
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		snprintf(rate[c], sizeof(rate[c]),
			 "links.%s_bandwidth_gbps=%.9g", df_link_class_name(c),
			 base[c] * f);
		own[n++] = rate[c];
		if (base[c] * f > t->gbps)
			t->gbps = base[c] * f;
	}
	snprintf(ms, sizeof(ms), "traffic.measure_ms=%.0f", seconds * 1e3);
	own[n++] = ms;
	own[n++] = "traffic.warmup_ms=100";
	own[n++] = "traffic.finish=stop";
	own[n++] = "run.time_scale=1";
	own[n++] = "run.pace=realtime";
	/* yours first: the rates and the trial's shape are the bench's */
	if (bench_plan(&pl, config, sets, nsets, own, n))
		return -1;
	if (df_emulate(&pl, &eo, &rep, err, sizeof(err))) {
		fprintf(stderr, "dfemu-bench: %s\n", err);
		df_plan_free(&pl);
		return -1;
	}
	/* packets a second the terminals accepted in the window */
	t->offered = rep.offered_load;
	t->accepted = rep.accepted_load;
	t->pps = rep.accepted_load * pl.topo.nterms *
		 pl.cfg.link[DF_LINK_TERMINAL].bandwidth_gbps * 1e9 / 8 /
		 pl.cfg.packet_bytes;
	t->hops =
		rep.c.delivered ? t->pps * rep.forwarded / rep.c.delivered : 0;
	t->late_p99 = rep.late_p99_ns;
	t->tolerance = pl.cfg.lateness_tolerance_ns;
	/* the lag a port run would be judged on (a run without ports is
	 * exact at any lag, and exits 0 whatever it is) */
	t->kept = t->late_p99 <= t->tolerance;
	t->accounted =
		rep.credits_conserved && rep.exactly_once && rep.fully_drained;
	df_report_free(&rep);
	df_plan_free(&pl);
	printf("  %10.4f Gb/s (x%-9.4g) accepted %.4f of %.4f  %8.3f M "
	       "packets/s  %8.3f M hops/s  lateness p99 %llu ns of %llu  %s\n",
	       t->gbps, f, t->accepted, t->offered, t->pps / 1e6, t->hops / 1e6,
	       (unsigned long long)t->late_p99,
	       (unsigned long long)t->tolerance,
	       !t->accounted ? "NOT ACCOUNTED"
	       : t->kept     ? "real time"
			     : "late");
	return t->accounted ? 0 : -1;
}

/* One search: bracket by doubling or halving from the config's rates,
 * then bisect. The fastest trial that kept real time in *ok; 0, or the
 * exit status. */
static int search(const char *config, const char *const *sets, int nsets,
		  const double *base, double seconds, double hz,
		  struct trial *ok)
{
	struct trial t;
	double lo, hi;

	memset(ok, 0, sizeof(*ok));
	/* bracket: lo keeps real time, hi does not */
	if (run_at(config, sets, nsets, base, 1, seconds, hz, &t))
		return 1;
	lo = hi = 1;
	if (t.kept) {
		*ok = t;
		for (hi = 2; hi < 1 << 20; hi *= 2) {
			if (run_at(config, sets, nsets, base, hi, seconds, hz,
				   &t))
				return 1;
			if (!t.kept)
				break;
			*ok = t;
			lo = hi;
		}
	} else {
		for (lo = 0.5; lo > 1.0 / (1 << 20); lo /= 2) {
			if (run_at(config, sets, nsets, base, lo, seconds, hz,
				   &t))
				return 1;
			if (t.kept) {
				*ok = t;
				break;
			}
			hi = lo;
		}
	}
	if (!ok->kept) {
		fprintf(stderr, "dfemu-bench: no link rate kept real time\n");
		return 1;
	}
	for (int i = 0; i < BISECTIONS && hi > lo; i++) {
		double mid = sqrt(lo * hi);
		if (run_at(config, sets, nsets, base, mid, seconds, hz, &t))
			return 1;
		if (t.kept) {
			*ok = t;
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return 0;
}

static int by_pps(const void *a, const void *b)
{
	double x = ((const struct trial *)a)->pps,
	       y = ((const struct trial *)b)->pps;

	return (x > y) - (x < y);
}

int bench_capacity(const char *config, const char *const *sets, int nsets,
		   double seconds, unsigned rounds, double hz, int huge)
{
	struct trial ok[BENCH_MAX_ROUNDS], *med;
	double base[DF_LINK_NCLASS], any = 0;
	struct df_plan pl;
	int rc;

	if (bench_plan(&pl, config, sets, nsets, NULL, 0))
		return 2;
	for (int c = 0; c < DF_LINK_NCLASS; c++)
		any += base[c] = pl.cfg.link[c].bandwidth_gbps;
	printf("memory: %s; %s: %u routers, %u terminals, %s, load %.3g, "
	       "%u-byte packets, %u worker core(s)\n",
	       huge ? "hugepages" : "--no-huge", config, pl.topo.nrouters,
	       pl.topo.nterms, df_algorithm_name(pl.cfg.algorithm), pl.cfg.load,
	       pl.cfg.packet_bytes, bench_workers);
	df_plan_free(&pl);
	if (any <= 0) {
		fprintf(stderr,
			"dfemu-bench: capacity scales the link rates; every "
			"link of %s is unlimited (bandwidth_gbps = 0)\n",
			config);
		return 2;
	}
	for (unsigned r = 0; r < rounds; r++) {
		if (rounds > 1)
			printf("round %u of %u\n", r + 1, rounds);
		if ((rc = search(config, sets, nsets, base, seconds, hz,
				 &ok[r])) != 0)
			return rc;
		printf("capacity: %.4g Gb/s links (x%.4g the config's): %.3f M "
		       "delivered packets/s, %.3f M router hops/s on %u "
		       "worker core(s)\n",
		       ok[r].gbps, ok[r].factor, ok[r].pps / 1e6,
		       ok[r].hops / 1e6, bench_workers);
	}
	qsort(ok, rounds, sizeof(ok[0]), by_pps);
	med = &ok[(rounds - 1) / 2];
	if (rounds > 1)
		printf("capacity over %u rounds: median %.4g Gb/s links, "
		       "%.3f M delivered packets/s (range %.3f-%.3f M)\n",
		       rounds, med->gbps, med->pps / 1e6, ok[0].pps / 1e6,
		       ok[rounds - 1].pps / 1e6);
	printf("capacity_gbps=%.6g delivered_pps=%.0f hops_per_sec=%.0f "
	       "factor=%.6g rounds=%u min_pps=%.0f max_pps=%.0f\n",
	       med->gbps, med->pps, med->hops, med->factor, rounds, ok[0].pps,
	       ok[rounds - 1].pps);
	return 0;
}
