/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [run] time_scale = auto: the smallest time dilation at which the host
 * keeps real time, found by short trial runs of the configured network
 * and traffic (docs/realtime.md, "Time dilation").
 *
 * A trial is the run itself, shortened: the same plan, warm-up and
 * window of about TRIAL_WALL_MS of wall time each, no capture, no fault
 * events, finish = stop. It passes when its lateness p99 is at most half
 * the tolerance: the full run is longer and meets more of the host's
 * noise, so the choice keeps a margin of 2 in lag. Doubling from 1 finds
 * a passing N; bisection then narrows it to within 25 %.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emu.h"

#define TRIAL_WALL_MS 100  /* wall time of a trial's warm-up, and window */
#define SCALE_MAX     1024 /* past this a trial lasts seconds */

struct saved {
	uint64_t warmup_ms, measure_ms;
	int finish;
	uint32_t nevents;
	char cap_links[sizeof(((struct df_config *)0)->cap_links)];
};

/* Lateness p99 (emulated ns) of a trial at scale n; -1 on error. */
static int trial(struct df_plan *pl, const struct df_emu_opts *o, double n,
		 uint64_t *p99, char *err, size_t errlen)
{
	struct df_emu_opts q = *o;
	struct df_report rep;
	uint64_t ms = (uint64_t)ceil(TRIAL_WALL_MS / n);

	q.quiet = 1;
	q.csv = NULL;
	pl->cfg.time_scale = n;
	pl->cfg.warmup_ms = ms;
	pl->cfg.measure_ms = ms;
	if (df_emulate(pl, &q, &rep, err, errlen)) {
		df_report_free(&rep);
		return -1;
	}
	*p99 = rep.late_p99_ns;
	df_report_free(&rep);
	return 0;
}

int df_time_scale_auto(struct df_plan *pl, const struct df_emu_opts *o,
		       FILE *log, char *err, size_t errlen)
{
	struct df_config *c = &pl->cfg;
	uint64_t half = c->lateness_tolerance_ns / 2, p99 = 0;
	struct saved s = {.warmup_ms = c->warmup_ms,
			  .measure_ms = c->measure_ms,
			  .finish = c->finish,
			  .nevents = pl->nevents};
	double lo = 0, hi = 1;
	int rc = 0;

	memcpy(s.cap_links, c->cap_links, sizeof(s.cap_links));
	snprintf(c->cap_links, sizeof(c->cap_links), "none");
	c->finish = DF_FINISH_STOP;
	pl->nevents = 0;
	/* doubling: lo failed, hi is the candidate */
	for (;;) {
		if ((rc = trial(pl, o, hi, &p99, err, errlen)) != 0 ||
		    (o->stop && *o->stop))
			goto out;
		if (log)
			fprintf(log,
				"dfemu: time scale %g: lateness p99 %llu ns "
				"(half the tolerance: %llu)\n",
				hi, (unsigned long long)p99,
				(unsigned long long)half);
		if (p99 <= half || hi >= SCALE_MAX)
			break;
		lo = hi;
		hi *= 2;
	}
	/* bisection between a failing lo and a passing hi */
	while (p99 <= half && lo >= 1 && hi > lo * 1.25 && hi - lo > 1) {
		double mid = floor((lo + hi) / 2);
		uint64_t m99;

		if ((rc = trial(pl, o, mid, &m99, err, errlen)) != 0 ||
		    (o->stop && *o->stop))
			goto out;
		if (log)
			fprintf(log,
				"dfemu: time scale %g: lateness p99 %llu ns\n",
				mid, (unsigned long long)m99);
		if (m99 <= half)
			hi = mid;
		else
			lo = mid;
	}
	if (log && p99 > half)
		fprintf(log,
			"dfemu: time scale auto: even %d did not keep the lag "
			"within half the tolerance; the run goes on at %d and "
			"says whether it kept real time\n",
			SCALE_MAX, SCALE_MAX);
out:
	c->time_scale = hi;
	c->time_scale_auto = 1;
	c->warmup_ms = s.warmup_ms;
	c->measure_ms = s.measure_ms;
	c->finish = s.finish;
	pl->nevents = s.nevents;
	memcpy(c->cap_links, s.cap_links, sizeof(s.cap_links));
	return rc;
}
