/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-bench sim --config FILE [--set ...] [--workers N]: dfemu's speed
 * as a simulator. The network, traffic and windows of the config, run
 * unpaced (run.pace = none: emulated time as fast as the host can go,
 * with the results of a paced run, docs/realtime.md); the figures are
 * per wall second: emulated seconds, router hops, packets delivered,
 * steps. The last line is for scripts:
 *   emulated_per_wall=E hops_per_sec=H delivered_per_sec=D steps=N
 *   digest=X
 */
#include <stdio.h>

#include "bench.h"

int bench_sim(const char *config, const char *const *sets, int nsets, double hz)
{
	const char *own[] = {"run.pace=none"};
	struct df_emu_opts eo = {.quiet = 1, .status = stderr, .tsc_hz = hz};
	struct df_plan pl;
	struct df_report rep;
	char err[1024];
	int ok;

	/* the bench's pace first, yours after: only the pace is its own */
	if (bench_plan(&pl, config, own, 1, sets, nsets))
		return 2;
	if (df_emulate(&pl, &eo, &rep, err, sizeof(err))) {
		fprintf(stderr, "dfemu-bench: %s\n", err);
		df_plan_free(&pl);
		return 3;
	}
	ok = rep.credits_conserved && rep.exactly_once && rep.fully_drained;
	printf("%s: %.4f emulated s in %.3f wall s on %u worker core(s), "
	       "quantum %g ns\n"
	       "  %.4g emulated s per wall s, %.3f M router hops/s, %.3f M "
	       "packets delivered/s, %.3f M steps/s%s\n",
	       config, rep.emulated_s, rep.wall_s, bench_workers,
	       rep.quantum_ns, rep.pace, rep.forwarded / rep.wall_s / 1e6,
	       rep.c.delivered / rep.wall_s / 1e6,
	       rep.sweeps / rep.wall_s / 1e6, ok ? "" : "  NOT ACCOUNTED");
	printf("emulated_per_wall=%.6g hops_per_sec=%.0f "
	       "delivered_per_sec=%.0f "
	       "steps=%llu digest=%016llx\n",
	       rep.pace, rep.forwarded / rep.wall_s,
	       rep.c.delivered / rep.wall_s, (unsigned long long)rep.sweeps,
	       (unsigned long long)rep.digest);
	df_report_free(&rep);
	df_plan_free(&pl);
	return ok ? 0 : 1;
}
