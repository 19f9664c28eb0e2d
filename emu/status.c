/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live status: one line a second on the status stream (unless
 * --quiet) and the same as a --stats-csv row, read from the workers'
 * counters and histograms without locks.
 */
#include <inttypes.h>
#include <string.h>

#include "emu_int.h"

/* p99 of the measured packets' latency and of every release's lateness
 * so far (ns), read without locks from the workers' histograms. */
static void live_p99(const struct emu *e, uint64_t *lat, uint64_t *late,
		     uint64_t *late_iv)
{
	/* main lcore only; hp: lateness at the last call, for the p99 of
	 * the interval since (a drift shows there, not in the total) */
	static struct dp_hist hl, hx, hp, hd;

	memset(&hl, 0, sizeof(hl));
	memset(&hx, 0, sizeof(hx));
	for (uint32_t w = 0; w < e->pl->nworkers; w++) {
		dp_hist_merge(&hl, &e->lc[w]->st.latency[0]);
		dp_hist_merge(&hl, &e->lc[w]->st.latency[1]);
		dp_hist_merge(&hx, &e->lc[w]->st.lateness);
	}
	if (hx.n < hp.n) /* a new run in this process */
		memset(&hp, 0, sizeof(hp));
	hd = hx;
	hd.n = hx.n - hp.n;
	for (uint32_t i = 0; i < DP_HIST_BUCKETS; i++)
		hd.b[i] = hx.b[i] - hp.b[i];
	hp = hx;
	*lat = (uint64_t)(dp_hist_quantile(&hl, 0.99) * 1e9 / e->ehz);
	*late = (uint64_t)(dp_hist_quantile(&hx, 0.99) * 1e9 / e->ehz);
	*late_iv = (uint64_t)(dp_hist_quantile(&hd, 0.99) * 1e9 / e->ehz);
}

/* One sample of the live status: the figures of its line and CSV row. */
struct status {
	double el; /* emulated s since the start */
	const char *phase;
	double off, acc; /* load offered, accepted over the last interval */
	uint64_t in_flight, delivered, dropped;
	uint64_t lat, late; /* p99 so far, ns: latency, lateness */
	/* in source queues: generated, neither injected, dropped nor lost */
	uint64_t queued;
	uint64_t late_iv; /* lateness p99 over the last interval, ns */
};

/* --stats-csv's columns, defined once for its header and its rows:
 * X(name, format, value), the value read from struct status *v. */
#define STATUS_CSV_COLUMNS(X)                   \
	X(elapsed_s, "%.3f", v->el)             \
	X(phase, "%s", v->phase)                \
	X(offered, "%.4f", v->off)              \
	X(accepted, "%.4f", v->acc)             \
	X(in_flight, "%" PRIu64, v->in_flight)  \
	X(delivered, "%" PRIu64, v->delivered)  \
	X(dropped, "%" PRIu64, v->dropped)      \
	X(latency_p99_ns, "%" PRIu64, v->lat)   \
	X(lateness_p99_ns, "%" PRIu64, v->late) \
	X(source_queued, "%" PRIu64, v->queued) \
	X(lateness_p99_interval_ns, "%" PRIu64, v->late_iv)

void df_status_csv_header(FILE *f)
{
#define CSV_NAME(name, format, value) "," #name
	fprintf(f, "%s\n", &STATUS_CSV_COLUMNS(CSV_NAME)[1]);
#undef CSV_NAME
}

static void status_csv(FILE *f, const struct status *v)
{
	const char *sep = "";

#define CSV_VALUE(name, format, value)       \
	fprintf(f, "%s" format, sep, value); \
	sep = ",";
	STATUS_CSV_COLUMNS(CSV_VALUE)
#undef CSV_VALUE
	fputc('\n', f);
	fflush(f);
}

/* One line a second: progress, the load offered and accepted over the
 * last interval (fractions of terminal bandwidth), packets in flight,
 * latency and lateness p99 so far, drops; the same as a CSV row. */
void emu_status_line(const struct emu *e, const struct df_emu_opts *o,
		     uint64_t t0, uint64_t now, enum df_run_phase phase,
		     const struct dp_stats *s, struct dp_stats *prev,
		     uint64_t *prev_t)
{
	const struct df_config *c = &e->pl->cfg;
	struct status v = {.el = (double)(now - t0) / e->ehz,
			   .phase = df_run_phase_name(phase),
			   .in_flight = in_flight(s),
			   .delivered = s->delivered};
	double total = (c->warmup_ms + c->measure_ms) / 1e3;
	double dt = (double)(now - *prev_t) / e->ehz;
	double cap = c->link[DF_LINK_TERMINAL].bandwidth_gbps * 1e9 / 8 *
		     emu_load_sources(e, s, 0) * dt;
	int bar = (int)(20 * (v.el < total ? v.el / total : 1.0));
	char b[21];

	v.off = cap > 0 ? (s->gen_bytes - prev->gen_bytes) / cap : 0.0;
	v.acc = cap > 0 ? (s->rx_bytes - prev->rx_bytes) / cap : 0.0;
	for (int d = 0; d < DP_DROP_N; d++)
		v.dropped += s->drops[d];
	v.queued = s->generated - s->injected - v.dropped + dp_stats_lost(s);
	live_p99(e, &v.lat, &v.late, &v.late_iv);
	for (int i = 0; i < 20; i++)
		b[i] = i < bar ? '#' : '.';
	b[20] = '\0';
	if (!o->quiet) {
		fprintf(o->status,
			"[%6.2f/%.2f s] [%s] %-7s offered %.3f accepted %.3f "
			"in-flight %llu p99 %.1f us late-p99 %.1f us "
			"dropped %llu\n",
			v.el, total, b, v.phase, v.off, v.acc,
			(unsigned long long)v.in_flight, v.lat / 1e3,
			v.late / 1e3, (unsigned long long)v.dropped);
		fflush(o->status);
	}
	if (o->csv)
		status_csv(o->csv, &v);
	*prev = *s;
	*prev_t = now;
}
