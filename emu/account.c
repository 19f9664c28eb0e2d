/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After the run: the report's numbers from the workers' counters,
 * histograms and the routers' and links' own, and the final accounting:
 * every credit back home (settle_credits, check_credits) and every
 * packet delivered exactly once (check_delivery).
 */
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "emu_int.h"
#include "instances.h"
#include "partition.h"
#include "ugal_cr.h"

/*
 * The terminals that offered traffic, the loads' divisor (docs/report.md):
 * a terminal bound to a port when its port brought frames, the others when the
 * built-in generators sent any; in the measurement window (window) or since the
 * start. Ports that stay silent do not dilute the load of those that send.
 */
uint32_t emu_load_sources(const struct emu *e, const struct dp_stats *s,
			  int window)
{
	/* what the ports brought, in the unit of the total it is taken
	 * from: bytes in the window, or frames generated since the start
	 * (injected, or dropped at ingress) */
	uint64_t from_ports = 0;
	uint32_t bound = 0, free_terms = 0;

	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		const struct dp_term *te = e->terms[i];
		uint64_t b;
		if (!df_part_local(&e->pl->cfg, te->router))
			continue;
		if (te->eth < 0) {
			free_terms++;
			continue;
		}
		b = window ? te->pc.injected_bytes_window : te->pc.injected;
		for (int d = 0; !window && d < DP_DROP_N; d++)
			b += te->pc.drops[d];
		from_ports += b;
		bound += b > 0;
	}
	return bound +
	       ((window ? s->gen_bytes_window : s->generated) > from_ports
			? free_terms
			: 0);
}

/*
 * The credits still on their way when the run ended, taken back by their
 * senders, as if the run had gone on until the last was due: a credit is
 * counted where it leaves its receiver (dataplane/credit.h), so the drain
 * ends once none is held back, not once every sender has taken its own.
 * On the main lcore, the workers stopped; the engines see each credit as
 * they would have (UGAL-L_CR's round trips).
 */
static void settle_port(struct dp_port *p, dp_credit_hook on,
			struct dp_router *r, uint32_t k)
{
	uint64_t next = UINT64_MAX;

	if (p->out == NULL || !dp_link_exists(p->out))
		return;
	/* a lazy sender's from the slots, an eager one's from its log */
	for (uint32_t v = 0; v < p->nvc; v++)
		dp_port_credits_vc(p, v, UINT64_MAX);
	dp_port_credits_in(p, UINT64_MAX, &next, on, r, k);
}

static void settle_credits(const struct emu *e)
{
	const struct df_topo *t = &e->pl->topo;

	for (uint32_t r = 0; r < t->nrouters; r++) {
		struct dp_router *ro = e->routers[r];

		for (uint32_t k = 0; k < t->nports; k++)
			settle_port(&ro->port[k], ro->eng->credit, ro, k);
	}
	for (uint32_t i = 0; i < t->nterms; i++)
		settle_port(&e->terms[i]->port, NULL, NULL, 0);
}

static void check_credits(const struct emu *e, struct df_report *rep)
{
	const struct df_topo *t = &e->pl->topo;

	rep->credits_conserved = 1;
	for (uint32_t r = 0; r < t->nrouters && rep->credits_conserved; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct dp_port *p = &e->routers[r]->port[k];
			int j = df_part_crossing(&e->pl->cfg, t, r, k);
			/* a link to a lost instance: the credits of what
			 * went there never come back */
			int unchecked = j >= 0 && e->inst != NULL &&
					emu_inst_lost(e->inst, (uint32_t)j);
			rep->credit_links_unchecked += (uint32_t)unchecked;
			for (uint32_t v = 0; v < p->nvc; v++)
				if ((p->credits[v] != p->credit_full[v] &&
				     !unchecked) ||
				    p->waiting[v] != 0) {
					rep->credits_conserved = 0;
					snprintf(rep->credit_issue,
						 sizeof(rep->credit_issue),
						 "router %u port %u (%s) vc%u "
						 "holds %u of %u credits, %u "
						 "flits still counted waiting",
						 r, k,
						 df_link_class_name(p->cls), v,
						 p->credits[v],
						 p->credit_full[v],
						 p->waiting[v]);
					break;
				}
		}
	for (uint32_t i = 0; i < t->nterms && rep->credits_conserved; i++) {
		const struct dp_port *p = &e->terms[i]->port;
		if (p->credits[0] != p->credit_full[0]) {
			rep->credits_conserved = 0;
			snprintf(rep->credit_issue, sizeof(rep->credit_issue),
				 "terminal %u holds %u of %u credits", i,
				 p->credits[0], p->credit_full[0]);
		}
	}
}

/* Exactly once: per source, the packets settled (delivered or lost with
 * a reason) must be its sequence numbers 0..n-1, each once: their count
 * and set hash (dataplane/once.h). A lost instance (emu_inst_report set
 * part.nlost) took what it delivered with it. */
static void check_delivery(const struct emu *e, struct df_report *rep)
{
	uint32_t nt = e->pl->topo.nterms;

	rep->exactly_once = 1;
	for (uint32_t i = 0; i < nt && rep->exactly_once; i++) {
		uint64_t cnt = 0, hash = 0;

		if (!df_part_local(&e->pl->cfg, e->terms[i]->router))
			continue; /* its own instance checks it */
		for (uint32_t w = 0; w < e->pl->nworkers; w++) {
			cnt += e->lc[w]->rx_cnt[i];
			hash += e->lc[w]->rx_hash[i];
		}
		if (e->inst != NULL) /* delivered in the other instances */
			emu_inst_remote_rx(e->inst, i, &cnt, &hash);
		rep->exactly_once =
			dp_once_ok(e->run.once_key, i, e->terms[i]->seq, cnt,
				   hash, rep->part.nlost != 0);
	}
}

/* Average, extremes and quantiles of a latency histogram (TSC) in ns. */
static void latency_of(const struct dp_hist *h, double ns, struct df_latency *l)
{
	l->n = h->n;
	l->avg_ns = h->n ? (double)h->sum / h->n * ns : 0;
	l->min_ns = h->min * ns;
	l->p50_ns = dp_hist_quantile(h, 0.50) * ns;
	l->p99_ns = dp_hist_quantile(h, 0.99) * ns;
	l->max_ns = h->max * ns;
}

/* UGAL-L_CR: what each network output measured and delayed (the
 * engine's own state, routing/ugal_cr.h). */
static void fill_outputs(const struct emu *e, struct df_report *rep)
{
	const struct df_topo *t = &e->pl->topo;
	double ns = 1e9 / e->ehz;

	if (dp_cr_router(e->routers[0]) == NULL)
		return;
	rep->outputs =
		calloc((size_t)t->nrouters * t->nports, sizeof(*rep->outputs));
	if (rep->outputs == NULL)
		return;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < e->routers[r]->nports; k++) {
			const struct dp_port *p = &e->routers[r]->port[k];
			const struct dp_cr_port *c =
				dp_cr_port(e->routers[r], k);
			struct df_output_report *o;

			o = &rep->outputs[rep->noutputs++];
			o->router = r;
			o->port = k;
			o->cls = p->cls;
			o->crt_samples = c->crt_n;
			o->crt_avg_ns =
				c->crt_n ? c->crt_sum * ns / c->crt_n : 0;
			o->crt0_ns = c->crt_n ? c->t_crt0 * ns : 0;
			o->td_last_ns = dp_cr_router(e->routers[r])->td[k] * ns;
			o->delayed = c->cr_delayed;
			o->delay_avg_ns = c->cr_delayed ? c->cr_delay_sum * ns /
								  c->cr_delayed
							: 0;
			rep->cr_delayed += c->cr_delayed;
			rep->cr_delay_avg_ns += c->cr_delay_sum * ns;
		}
	if (rep->cr_delayed)
		rep->cr_delay_avg_ns /= rep->cr_delayed;
}

/* Per terminal bound to a port: its offered load over the window (cap:
 * bytes its link carries in it) and over the span its port sent in (bw:
 * bytes per second), its frames' latency (ns per TSC). */
static void fill_term_ports(const struct emu *e, struct df_report *rep,
			    double cap, double bw, double ns)
{
	struct dp_hist *h = malloc(sizeof(*h));

	for (uint32_t i = 0; rep->term_ports && h && i < rep->nterms; i++) {
		struct df_term_ports *tp = &rep->term_ports[i];
		uint16_t k = e->port_idx[i];

		tp->load = cap > 0 ? tp->c.injected_bytes_window / cap : 0;
		tp->span_s = (tp->c.rx_last - tp->c.rx_first) * ns / 1e9;
		tp->span_load =
			tp->span_s > 0 && bw > 0
				? tp->c.injected_bytes / (bw * tp->span_s)
				: 0;
		if (k == DP_NO_PORT)
			continue;
		dp_port_lat_sum(h, e->lc, e->pl->nworkers, k);
		latency_of(h, ns, &tp->lat);
	}
	free(h);
}

/* The counters summed and the packets in flight; the ports' traffic, in
 * total and per terminal, and the terminal whose port refused most. */
static void fill_counts(const struct emu *e, struct df_report *rep,
			const struct dp_stats *s)
{
	struct dp_term_ports ports;

	rep->c = s->c;
	rep->in_flight = in_flight(s);
	dp_term_ports_sum(&ports, e->terms, e->pl->topo.nterms);
	rep->port_rx = ports.rx;
	rep->port_tx = ports.tx;
	rep->arp_replies = ports.arp_replies;
	rep->port_stalls = ports.stalls;
	rep->nterms = e->pl->topo.nterms;
	if (e->pl->cfg.nbind)
		rep->term_ports = calloc(rep->nterms, sizeof(*rep->term_ports));
	for (uint32_t i = 0; i < rep->nterms; i++) {
		const struct dp_term *te = e->terms[i];
		if (rep->term_ports)
			rep->term_ports[i].c = te->pc;
		if (te->pc.stalls > rep->stall_max) {
			rep->stall_max = te->pc.stalls;
			rep->stall_term = i;
		}
	}
}

/* The time measured (a batch's: until its last arrival), the time
 * scale, and the loads offered and accepted over that time. */
static void fill_loads(const struct emu *e, struct df_report *rep,
		       const struct dp_stats *s)
{
	const struct df_config *c = &e->pl->cfg;
	double ns = 1e9 / e->ehz;
	double bw = c->link[DF_LINK_TERMINAL].bandwidth_gbps;
	uint32_t srcs = emu_load_sources(e, s, 1);
	double cap;

	/* the window a signal may have cut short */
	rep->measure_s = (double)(e->run.m1 - e->run.m0) / e->ehz;
	if (c->mode != DF_MODE_STEADY) {
		/* loads over the time the batch took to arrive */
		rep->batch_time_ns = s->last_rx > e->run.m0
					     ? (s->last_rx - e->run.m0) * ns
					     : 0;
		rep->measure_s = rep->batch_time_ns / 1e9;
	}
	rep->tsc_hz = e->hz;
	rep->time_scale = e->pl->cfg.time_scale > 0 ? e->pl->cfg.time_scale : 1;
	rep->nworkers = e->pl->nworkers;
	/* bytes a terminal link carries in the window, times the terminals
	 * that offered traffic (of this instance, when partitioned) */
	cap = bw * 1e9 / 8 * rep->measure_s;
	rep->offered_load =
		cap > 0 && srcs > 0 ? s->gen_bytes_window / (cap * srcs) : 0;
	rep->accepted_load =
		cap > 0 && srcs > 0 ? s->rx_bytes_window / (cap * srcs) : 0;
	fill_term_ports(e, rep, cap, bw * 1e9 / 8, ns);
}

/* Latency (every measured packet, by path class, port frames by pair)
 * and lateness, from the workers' histograms merged; the workers'
 * sweeps, sleeps and busy time. */
static void fill_latency(const struct emu *e, struct df_report *rep)
{
	struct dp_hist *lat = calloc(1, sizeof(*lat));
	struct dp_hist *late = calloc(1, sizeof(*late));
	double ns = 1e9 / e->ehz;

	for (int k = 0; k < 2; k++)
		rep->lat_hist[k] = calloc(1, sizeof(struct dp_hist));
	if (lat && late && rep->lat_hist[0] && rep->lat_hist[1]) {
		for (uint32_t w = 0; w < e->pl->nworkers; w++) {
			const struct dp_lcore *lc = e->lc[w];
			for (int k = 0; k < 2; k++) {
				dp_hist_merge(rep->lat_hist[k],
					      &lc->st.latency[k]);
				dp_hist_merge(lat, &lc->st.latency[k]);
			}
			dp_hist_merge(late, &lc->st.lateness);
			rep->sweeps += lc->sweeps;
			rep->idle_sleeps += lc->idle_sleeps;
			rep->busy_s += lc->busy_tsc / e->hz;
		}
		latency_of(lat, ns, &rep->lat);
		for (int k = 0; k < DP_PAIR_N; k++) {
			memset(lat, 0, sizeof(*lat));
			for (uint32_t w = 0; w < e->pl->nworkers; w++)
				dp_hist_merge(lat,
					      &e->lc[w]->st.ext_latency[k]);
			latency_of(lat, ns, &rep->lat_ext[k]);
		}
		for (int k = 0; k < 2; k++)
			latency_of(rep->lat_hist[k], ns, &rep->lat_path[k]);
		rep->late_p50_ns = dp_hist_quantile(late, 0.50) * ns;
		rep->late_p99_ns = dp_hist_quantile(late, 0.99) * ns;
		rep->late_max_ns = late->max * ns;
	}
	/* Emulated time is exact at any lag, several instances' too (they
	 * keep in step by their clocks: docs/instances.md, "Exact time");
	 * only a run that meets the wall clock (DPDK ports) needs it to keep
	 * up (docs/realtime.md, "The lag and the verdict"). */
	rep->needs_real_time = e->nports > 0;
	rep->late_within = rep->late_p99_ns <= e->pl->cfg.lateness_tolerance_ns;
	rep->lateness_ok = !rep->needs_real_time || rep->late_within;
	free(lat);
	free(late);
}

/* Packets on each class of link, and on links between two workers. */
static void fill_links(const struct emu *e, struct df_report *rep)
{
	for (uint32_t i = 0; i < e->nlinks; i++) {
		const struct dp_link *l = &e->links[i];
		rep->link_tx_pkts[l->cls] += l->tx_pkts;
		if (l->cls != DF_LINK_TERMINAL &&
		    df_plan_crosses(e->pl, l->from, l->to))
			rep->cross_worker_pkts += l->tx_pkts;
	}
}

/* The routers' counters (dataplane/stats.h's list) summed, and the path
 * decisions per router. */
static void fill_routers(const struct emu *e, struct df_report *rep)
{
	rep->nrouters = e->pl->topo.nrouters;
	rep->router_min = calloc(rep->nrouters, sizeof(uint64_t));
	rep->router_nonmin = calloc(rep->nrouters, sizeof(uint64_t));
	for (uint32_t r = 0; r < e->pl->topo.nrouters; r++) {
		const struct dp_router *ro = e->routers[r];
#define ROUTER_SUM(name, family, text) rep->name += ro->name;
		DP_ROUTER_COUNTERS(ROUTER_SUM)
#undef ROUTER_SUM
		if (rep->router_min && rep->router_nonmin) {
			rep->router_min[r] = ro->decisions_min;
			rep->router_nonmin[r] = ro->decisions_nonmin;
		}
	}
}

/* Packets received per terminal of this instance (the least, the most)
 * and measured packets injected per router (fairness). */
static void fill_terms(const struct emu *e, struct df_report *rep)
{
	rep->rx_min = UINT64_MAX;
	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		uint64_t n = e->terms[i]->rx_pkts;
		if (!df_part_local(&e->pl->cfg, e->terms[i]->router))
			continue;
		rep->rx_min = n < rep->rx_min ? n : rep->rx_min;
		rep->rx_max = n > rep->rx_max ? n : rep->rx_max;
	}
	rep->router_injected = calloc(rep->nrouters, sizeof(uint64_t));
	for (uint32_t i = 0; rep->router_injected && i < e->pl->topo.nterms;
	     i++)
		rep->router_injected[e->terms[i]->router] +=
			e->terms[i]->inj_measured;
}

/*
 * The determinism digest (docs/report.md, "The digest"): the workers'
 * sums of their deliveries, then every counter of dataplane/stats.h's
 * list, chained in the list's order so that a counter added there is in
 * it too. Not the histograms: the lateness is the host's, and latency is
 * in the deliveries' times already.
 */
static uint64_t deliveries_digest(const struct emu *e)
{
	uint64_t d = 0;

	for (uint32_t w = 0; w < e->pl->nworkers; w++)
		d += e->lc[w]->digest;
	return d;
}

static uint64_t run_digest(const struct emu *e, const struct dp_counters *c)
{
	uint64_t d = deliveries_digest(e);

#define DIGEST_FOLD(name, text) dp_digest_fold(&d, c->name);
#define DIGEST_FOLD_ARRAY(name, n, names)            \
	for (uint32_t i = 0; i < (uint32_t)(n); i++) \
		dp_digest_fold(&d, c->name[i]);
	DP_STATS_COUNTERS(DIGEST_FOLD, DIGEST_FOLD_ARRAY)
#undef DIGEST_FOLD
#undef DIGEST_FOLD_ARRAY
	return d;
}

void emu_account(const struct emu *e, struct df_report *rep)
{
	struct dp_stats s;

	settle_credits(e);
	sum_stats(e, &s);
	fill_counts(e, rep, &s);
	rep->digest = run_digest(e, &s.c);
	rep->digest_deliveries = deliveries_digest(e);
	fill_loads(e, rep, &s);
	fill_latency(e, rep);
	fill_links(e, rep);
	fill_routers(e, rep);
	fill_terms(e, rep);
	fill_outputs(e, rep);
	rep->fully_drained =
		rep->in_flight == 0 && s.credits_out == s.credits_in;
	if (e->inst != NULL) {
		/* the network's accounting, not this instance's alone */
		struct emu_inst_local l = {.s = &s, .gen_stopped = 1};
		emu_inst_report(e->inst, &l, rep);
		rep->in_flight = rep->part.in_flight;
		rep->fully_drained = emu_inst_drained(e->inst, &l);
	}
	check_credits(e, rep);
	check_delivery(e, rep);
}
