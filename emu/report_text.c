/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-of-run report as an aligned table, for people. */
#include <string.h>

#include "report_int.h"
#include "terminals.h"

/* Per class: the average busy fraction of the links and the busiest. */
static void print_link_use(FILE *f, const struct df_report *r)
{
	const char *label = "link use (window)";

	for (int c = DF_LINK_LOCAL; c <= DF_LINK_GLOBAL; c++) {
		const struct df_link_use *top = NULL;
		double sum = 0;
		uint32_t n = 0;

		for (uint32_t i = 0; i < r->nlinks; i++) {
			const struct df_link_use *u = &r->links[i];
			if (u->cls != c || u->busy < 0)
				continue;
			sum += u->busy;
			n++;
			if (top == NULL || u->busy > top->busy)
				top = u;
		}
		if (n == 0)
			continue;
		fprintf(f,
			"  %-22s %s links busy %.3f on average, at most %.3f "
			"(router %u port %u)\n",
			label, df_link_class_name(c), sum / n, top->busy,
			top->from, top->from_port);
		label = "";
	}
}

static void print_latency(FILE *f, const char *what, const struct df_latency *l)
{
	fprintf(f,
		"  %-22s avg %.0f  min %llu  p50 %llu  p99 %llu  max %llu"
		"  (%llu packets)\n",
		what, l->avg_ns, (unsigned long long)l->min_ns,
		(unsigned long long)l->p50_ns, (unsigned long long)l->p99_ns,
		(unsigned long long)l->max_ns, (unsigned long long)l->n);
}

/* Fairness ([OC] Fig. 9): measured packets injected per router and per
 * group, the least and the most. */
static void print_fairness(FILE *f, const struct df_plan *pl,
			   const struct df_report *r)
{
	uint32_t a = pl->topo.a, g = pl->topo.g, rmin = 0, rmax = 0;
	uint32_t gmin = 0, gmax = 0;
	uint64_t gs[2] = {UINT64_MAX, 0};

	for (uint32_t i = 1; i < r->nrouters; i++) {
		if (r->router_injected[i] < r->router_injected[rmin])
			rmin = i;
		if (r->router_injected[i] > r->router_injected[rmax])
			rmax = i;
	}
	for (uint32_t G = 0; G < g; G++) {
		uint64_t n = 0;
		for (uint32_t j = 0; j < a; j++)
			n += r->router_injected[G * a + j];
		if (n < gs[0]) {
			gs[0] = n;
			gmin = G;
		}
		if (n > gs[1]) {
			gs[1] = n;
			gmax = G;
		}
	}
	fprintf(f,
		"  %-22s per router min %llu (r%u) max %llu (r%u), min/max "
		"%.3f; per group min %llu (G%u) max %llu (G%u)\n",
		"injected (measured)",
		(unsigned long long)r->router_injected[rmin], rmin,
		(unsigned long long)r->router_injected[rmax], rmax,
		r->router_injected[rmax] ? (double)r->router_injected[rmin] /
						   r->router_injected[rmax]
					 : 0,
		(unsigned long long)gs[0], gmin, (unsigned long long)gs[1],
		gmax);
}

/* A histogram over 0..DP_MAX_HOPS-1 as shares, non-zero buckets only; the
 * last bucket also holds everything beyond it. */
static void print_shares(FILE *f, const char *what, const uint64_t *c,
			 int decimals)
{
	uint64_t n = 0;

	for (int h = 0; h < DP_MAX_HOPS; h++)
		n += c[h];
	fprintf(f, "  %-22s", what);
	for (int h = 0; h < DP_MAX_HOPS && n; h++)
		if (c[h])
			fprintf(f, " %d:%.*f%%", h, decimals, 100.0 * c[h] / n);
	fprintf(f, "%s\n", c[DP_MAX_HOPS - 1] ? " (last: or more)" : "");
}

/* One router counter as "N text", the k-th of its line; one of another
 * family or without text (NULL) is not on it. Returns the next k. */
static int print_router_counter(FILE *f, int k, const char *text, uint64_t v)
{
	if (text == NULL)
		return k;
	fprintf(f, "%s%llu %s", k ? ", " : "", (unsigned long long)v, text);
	return k + 1;
}

/* The routers' counters of one family with words (stats.h's list). */
static void print_router_family(FILE *f, const struct df_report *r,
				enum dp_router_family fam)
{
	int k = 0;

#define RF_TEXT(name, family, text)                                         \
	k = print_router_counter(f, k, fam == DP_RF_##family ? text : NULL, \
				 r->name);
	DP_ROUTER_COUNTERS(RF_TEXT)
#undef RF_TEXT
}

/* A line of its own for the family's counters, under head. */
static void print_router_line(FILE *f, const char *head,
			      const struct df_report *r,
			      enum dp_router_family fam)
{
	fprintf(f, "  %-22s ", head);
	print_router_family(f, r, fam);
	fputc('\n', f);
}

/* OFAR: misroutes, escape entries (ring or tree), their spread over packets. */
static void print_ofar(FILE *f, const struct df_report *r)
{
	print_router_line(f, "in transit (OFAR)", r, DP_RF_OFAR);
	print_shares(f, "escape entries/packet", r->c.escapes, 3);
}

/* UGAL-L_CR: the totals, and the output whose t_d delayed most. */
static void print_credit_delay(FILE *f, const struct df_report *r)
{
	const struct df_output_report *top = NULL;

	for (uint32_t i = 0; i < r->noutputs; i++)
		if (top == NULL || r->outputs[i].delayed > top->delayed)
			top = &r->outputs[i];
	fprintf(f, "  %-22s %llu credits delayed, %.0f ns on average",
		"credit delay (CR)", (unsigned long long)r->cr_delayed,
		r->cr_delay_avg_ns);
	if (top && top->delayed)
		fprintf(f,
			"; most by router %u port %u (%s): %llu, %.0f ns avg, "
			"round trip %.0f ns avg, %.0f ns at zero load",
			top->router, top->port, df_link_class_name(top->cls),
			(unsigned long long)top->delayed, top->delay_avg_ns,
			top->crt_avg_ns, top->crt0_ns);
	fprintf(f, " (per output: --json)\n");
}

static uint64_t total_drops(const struct df_report *r)
{
	uint64_t n = 0;

	for (int d = 0; d < DP_DROP_N; d++)
		n += r->c.drops[d];
	return n;
}

/* [partition]: this instance, each peer link, the whole network. */
static void print_partition(const struct df_report *r, FILE *f)
{
	const struct df_part_report *p = &r->part;

	if (p->ninst <= 1)
		return;
	fprintf(f,
		"  %-22s %u of %u: groups %u-%u, %u terminals (loads above "
		"are theirs)\n",
		"instance", p->instance, p->ninst, p->lo, p->hi, p->nterms);
	for (uint32_t j = 0; j < DF_MAX_INST; j++) {
		const struct df_peer_report *q = &p->peer[j];
		if (!q->used)
			continue;
		fprintf(f,
			"  %-22s instance %u over %s: %llu packets sent, %llu "
			"received; %llu credits sent, %llu received; %llu "
			"frames out, %llu in, the port refused %llu times; "
			"port latency %.1f us (one way)\n",
			"peer", j, q->port, (unsigned long long)q->sent,
			(unsigned long long)q->recv,
			(unsigned long long)q->csent,
			(unsigned long long)q->crecv,
			(unsigned long long)q->tx_frames,
			(unsigned long long)q->rx_frames,
			(unsigned long long)q->tx_stalls, q->lat_ns / 1e3);
		if (q->lost)
			fprintf(f,
				"  %-22s instance %u at %.3f s: %s; since then "
				"%llu frames for it freed, %llu from it "
				"ignored\n",
				"LOST", j, q->lost_at_s, q->lost_why,
				(unsigned long long)q->discarded,
				(unsigned long long)q->ignored);
		if (q->ctl_dropped)
			fprintf(f,
				"  %-22s %llu control frames to instance %u "
				"dropped (its port took nothing)\n",
				"", (unsigned long long)q->ctl_dropped, j);
	}
	if (p->bad_frames || p->unknown_link || p->enq_fail || p->late)
		fprintf(f,
			"  %-22s %llu frames not for this instance, %llu "
			"naming a link not from that peer, %llu refused by a "
			"full link, %llu due before the step that took them "
			"in\n",
			"peer frames", (unsigned long long)p->bad_frames,
			(unsigned long long)p->unknown_link,
			(unsigned long long)p->enq_fail,
			(unsigned long long)p->late);
	if (p->exchanged && p->nlost == 0)
		fprintf(f,
			"  %-22s injected %llu, delivered %llu, lost %llu, "
			"in flight %llu (every instance's counters)\n",
			"whole network", (unsigned long long)p->injected,
			(unsigned long long)p->delivered,
			(unsigned long long)p->lost,
			(unsigned long long)p->in_flight);
	else if (p->exchanged)
		fprintf(f,
			"  %-22s injected %llu + %llu from lost instances = "
			"delivered %llu + lost %llu + %llu handed to lost "
			"instances + in flight %llu (the instances left)\n",
			"network left", (unsigned long long)p->injected,
			(unsigned long long)p->from_lost,
			(unsigned long long)p->delivered,
			(unsigned long long)p->lost,
			(unsigned long long)p->to_lost,
			(unsigned long long)p->in_flight);
	if (p->lost_peer[0])
		fprintf(f, "  PEER LOST: %s\n", p->lost_peer);
	for (uint32_t j = 0; j < DF_MAX_INST; j++)
		if (p->peer[j].used && p->peer[j].lat_ns > p->global_lat_ns)
			fprintf(f,
				"  WARNING: the port to instance %u takes %.1f "
				"us one way, more than the emulated global "
				"latency (%.1f us): the instances, which keep "
				"in step over it, run slower than real time "
				"(see pace)\n",
				j, p->peer[j].lat_ns / 1e3,
				p->global_lat_ns / 1e3);
}

void df_report_time_scale(FILE *f, const struct df_config *c, double n)
{
	if (n == 0) {
		fprintf(f,
			"  %-22s auto: the smallest that keeps real time, "
			"chosen at start by short trial runs\n",
			"time scale");
		return;
	}
	if (n == 1) {
		fprintf(f, "  %-22s 1%s (real time)\n", "time scale",
			c->time_scale_auto ? ", auto" : "");
		return;
	}
	fprintf(f,
		"  %-22s %g%s: emulated time runs %g times slower than the "
		"host's; every time and load is in emulated units, except the "
		"wall time\n",
		"time scale", n, c->time_scale_auto ? ", auto" : "", n);
	if (c->nbind)
		fprintf(f,
			"  %-22s ports carry 1/%g of their links' rates in "
			"wall-clock time: their peers see a %g times slower "
			"network\n",
			"", n, n);
}

/* The k-th counter of a list, four to a line; the first line headed
 * head in the table's column, the others under it. */
static void print_counter(FILE *f, int k, const char *head, const char *label,
			  uint64_t v)
{
	if (k % 4 == 0)
		fprintf(f, "%s  %-22s ", k ? "\n" : "", k ? "" : head);
	else
		fputs(", ", f);
	fprintf(f, "%s %llu", label, (unsigned long long)v);
}

/* Per terminal: its port's frames (every counter of stats.h's list),
 * drops by reason, load and latency; or the port frames delivered to a
 * built-in terminal. */
static void print_term_ports(FILE *f, const struct df_config *c,
			     const struct df_report *r)
{
	char vdev[256];

	for (uint32_t i = 0; r->term_ports && i < r->nterms; i++) {
		const struct df_term_ports *t = &r->term_ports[i];
		const char *v, *sep = "";
		char name[16];
		int k;

		if (!df_report_term_shown(c, r, i, &v, vdev, sizeof(vdev)))
			continue;
		snprintf(name, sizeof(name), "t%u", i);
		if (v == NULL) {
			fprintf(f, "  %-22s %llu port frames delivered here\n",
				name,
				(unsigned long long)t->c.delivered_from_ports);
			continue;
		}
		fprintf(f,
			"  %-22s port %.*s: offered load %.4f of its link in "
			"the window, %.4f over the %.3f s it sent\n",
			name, (int)strcspn(v, ","), v, t->load, t->span_load,
			t->span_s);
		k = 0;
#define TP_TEXT(n, label) print_counter(f, k++, "", label, t->c.n);
		DP_TERM_PORT_COUNTERS(TP_TEXT)
#undef TP_TEXT
		fprintf(f, "\n  %-22s dropped", "");
		sep = "";
		for (int d = 0; d < DP_DROP_N; d++)
			if (t->c.drops[d]) {
				fprintf(f, "%s %s %llu", sep, dp_drop_name[d],
					(unsigned long long)t->c.drops[d]);
				sep = ",";
			}
		fprintf(f, "%s\n", *sep ? "" : " none");
		print_latency(f, "  its frames (ns)", &t->lat);
	}
}

/* The counter with words for the "counters" line (stats.h's list) as
 * the k-th on it; one without (NULL) is not on it. Returns the next k. */
static int print_listed(FILE *f, int k, const char *text, uint64_t v)
{
	if (text == NULL)
		return k;
	print_counter(f, k, "counters", text, v);
	return k + 1;
}

/* The counters without a sentence of their own, if any (stats.h). */
static void print_counters(FILE *f, const struct dp_counters *c)
{
	int k = 0;

#define LIST_TEXT(name, text) k = print_listed(f, k, text, c->name);
#define LIST_TEXT_ARRAY(name, n, names)
	DP_STATS_COUNTERS(LIST_TEXT, LIST_TEXT_ARRAY)
#undef LIST_TEXT
#undef LIST_TEXT_ARRAY
	if (k)
		fputc('\n', f);
}

/* What ran: the topology, routing and traffic, the router model. */
static void print_setup(FILE *f, const struct df_plan *pl)
{
	const struct df_config *c = &pl->cfg;

	fprintf(f, "\ndfemu report: %s\n", c->path);
	if (c->type == DF_TOPO_FLATFLY)
		fprintf(f,
			"  %-22s %u-ary %u-flat (flattened butterfly), %u "
			"routers, %u terminals\n",
			"topology", c->k, c->n, pl->topo.nrouters,
			pl->topo.nterms);
	else
		fprintf(f,
			"  %-22s p=%u a=%u h=%u g=%u %s, %u routers, %u "
			"terminals\n",
			"topology", c->p, c->a, c->h, c->g,
			df_arrangement_name(c->arrangement), pl->topo.nrouters,
			pl->topo.nterms);
	fprintf(f, "  %-22s %s, pattern %s", "routing / traffic",
		df_algorithm_name(c->algorithm), df_pattern_name(c->pattern));
	if (c->pattern == DF_PAT_ADVERSARIAL ||
	    c->pattern == DF_PAT_ROUTER_SHIFT)
		fprintf(f, " shift %u", c->shift);
	fprintf(f, ", %s, %u-byte packets\n", df_process_name(c->process),
		c->packet_bytes);
	fprintf(f, "  %-22s %s", "router", df_switching_name(c->switching));
	if (c->output_buffer_flits || c->router_latency_ns)
		fprintf(f,
			", speedup %g, output queues of %u flits per VC, "
			"delay %llu ns",
			c->speedup, c->output_buffer_flits,
			(unsigned long long)c->router_latency_ns);
	fprintf(f, " (docs/router.md)\n");
}

/* The loads, the packets and drops, the measured packets, the other
 * counters, and the changes made during the run. */
static void print_packets(FILE *f, const struct df_config *c,
			  const struct df_report *r)
{
	fprintf(f, "  %-22s %.4f of terminal bandwidth (%.3g Gb/s links)\n",
		"offered load", r->offered_load,
		c->link[DF_LINK_TERMINAL].bandwidth_gbps);
	fprintf(f, "  %-22s %.4f\n", "accepted load", r->accepted_load);
	if (c->mode != DF_MODE_STEADY)
		fprintf(f,
			"  %-22s %s: %llu packets delivered in %.3f ms "
			"(emulated time from the start to the last arrival)\n",
			"batch", df_mode_name(c->mode),
			(unsigned long long)r->c.delivered,
			r->batch_time_ns / 1e6);
	fprintf(f,
		"  %-22s generated %llu, injected %llu, delivered %llu, "
		"in flight %llu\n",
		"packets", (unsigned long long)r->c.generated,
		(unsigned long long)r->c.injected,
		(unsigned long long)r->c.delivered,
		(unsigned long long)r->in_flight);
	fprintf(f, "  %-22s %llu", "dropped",
		(unsigned long long)total_drops(r));
	for (int d = 0; d < DP_DROP_N; d++)
		fprintf(f, "%s %s %llu", d ? "," : " (", dp_drop_name[d],
			(unsigned long long)r->c.drops[d]);
	fprintf(f, "); never injected (end of run) %llu\n",
		(unsigned long long)r->c.not_injected);
	fprintf(f, "  %-22s %llu generated in window, %llu delivered\n",
		"measured packets", (unsigned long long)r->c.gen_measured,
		(unsigned long long)r->c.del_measured);
	print_counters(f, &r->c);
	for (uint32_t i = 0; i < r->nfaults; i++)
		fprintf(f, "  %-22s at %.3f s %s: %s\n", i ? "" : "changes",
			r->faults[i].t_s, r->faults[i].what, r->faults[i].msg);
}

/* Terminals on DPDK ports: in all, each one, and the most refused. */
static void print_ports(FILE *f, const struct df_config *c,
			const struct df_report *r)
{
	if (c->nbind)
		fprintf(f,
			"  %-22s %llu frames in, %llu out, %llu ARP requests "
			"answered, %llu times a port would not take a frame\n",
			"DPDK ports", (unsigned long long)r->port_rx,
			(unsigned long long)r->port_tx,
			(unsigned long long)r->arp_replies,
			(unsigned long long)r->port_stalls);
	print_term_ports(f, c, r);
	if (r->stall_max) {
		char vdev[256];
		fprintf(f,
			"  WARNING: terminal t%u's port (%s) refused frames "
			"%llu "
			"times: its peer did not keep up; frames waited in the "
			"dragonfly (backpressure)\n",
			r->stall_term,
			df_term_vdev(c, r->stall_term, vdev, sizeof(vdev))
				?: "?",
			(unsigned long long)r->stall_max);
	}
}

/* Latency: every measured packet, by path class, port frames by pair. */
static void print_latencies(FILE *f, const struct df_report *r)
{
	print_latency(f, "latency (ns)", &r->lat);
	if (r->lat_path[1].n) {
		print_latency(f, "  minimal paths", &r->lat_path[0]);
		print_latency(f, "  non-minimal paths", &r->lat_path[1]);
	}
	for (int k = 0; k < DP_PAIR_N; k++)
		if (r->lat_ext[k].n) {
			static const char *const pair[DP_PAIR_N] = {
				"  ports, same router", "  ports, same group",
				"  ports, other group"};
			const char *name = pair[k];
			print_latency(f, name, &r->lat_ext[k]);
		}
}

/* Paths: hops, minimal or not, fairness, what the algorithm did in
 * transit, credit delay, and link use. */
static void print_paths(FILE *f, const struct df_plan *pl,
			const struct df_report *r)
{
	const struct df_config *c = &pl->cfg;

	print_shares(f, "hops (router-router)", r->c.hops, 1);
	fprintf(f,
		"  %-22s minimal %llu, non-minimal %llu (decisions, all "
		"packets: ",
		"paths", (unsigned long long)r->c.minimal,
		(unsigned long long)r->c.nonminimal);
	print_router_family(f, r, DP_RF_DECISIONS);
	fputs(")\n", f);
	if (r->router_injected)
		print_fairness(f, pl, r);
	if (df_alg_escape(c->algorithm))
		print_ofar(f, r);
	if (df_alg_info(c->algorithm)->paths == DF_PATHS_PAR)
		print_router_line(f, "in transit (PAR)", r, DP_RF_PAR);
	if (r->outputs)
		print_credit_delay(f, r);
	print_link_use(f, r);
}

/* The pace and the lag: how emulated time kept up with the wall clock,
 * which only a run with ports or instances needs (docs/realtime.md). */
static void print_pace(FILE *f, const struct df_config *c,
		       const struct df_report *r)
{
	fprintf(f,
		"  %-22s %s, %.3g emulated s per wall s (%.3f s in %.3f s), "
		"quantum %g ns\n",
		"pace", df_pace_name(c->pace), r->pace, r->emulated_s,
		r->wall_s, r->quantum_ns);
	if (c->pace == DF_PACE_NONE)
		return;
	fprintf(f, "  %-22s p50 %llu  p99 %llu  max %llu  ", "lag (ns)",
		(unsigned long long)r->late_p50_ns,
		(unsigned long long)r->late_p99_ns,
		(unsigned long long)r->late_max_ns);
	if (r->needs_real_time)
		fprintf(f, "(tolerance %llu%s)%s\n",
			(unsigned long long)c->lateness_tolerance_ns,
			c->lateness_auto ? ", one packet time" : "",
			r->lateness_ok ? "" : "  NOT REAL TIME");
	else
		fprintf(f, "(no ports: exact at any lag)\n");
}

/* The verdicts: lag, credits, delivery; the digest. */
static void print_checks(FILE *f, const struct df_config *c,
			 const struct df_report *r)
{
	print_pace(f, c, r);
	fprintf(f, "  %-22s %s%s%s", "credits conserved",
		r->credits_conserved ? "yes" : "NO: ",
		r->credits_conserved ? "" : r->credit_issue,
		r->fully_drained ? "" : " (network not drained)");
	if (r->credit_links_unchecked)
		fprintf(f, " (not checked on the %u links to lost instances)",
			r->credit_links_unchecked);
	fprintf(f, "\n");
	if (r->part.nlost)
		fprintf(f,
			"  %-22s %s (exactly once cannot be checked: a lost "
			"instance took what it delivered with it)\n",
			"delivered at most once",
			r->exactly_once && !r->c.corrupt ? "yes" : "NO");
	else
		fprintf(f, "  %-22s %s\n", "delivered exactly once",
			r->exactly_once && !r->c.corrupt ? "yes" : "NO");
	/* hex: the same width on every run, and compared by eye */
	fprintf(f, "  %-22s %016llx (deliveries %016llx)\n", "digest",
		(unsigned long long)r->digest,
		(unsigned long long)r->digest_deliveries);
}

/* The host: wall time, workers, time scale, and the capture. */
static void print_host(FILE *f, const struct df_config *c,
		       const struct df_report *r)
{
	fprintf(f, "  %-22s %.2f s on %u worker lcore(s), TSC %.6f GHz\n",
		"wall time", r->wall_s, r->nworkers, r->tsc_hz / 1e9);
	if (r->nworkers > 1 && r->forwarded)
		fprintf(f, "  %-22s %.1f %% of router hops (%llu)\n",
			"crossing workers",
			100.0 * (double)r->cross_worker_pkts /
				(double)r->forwarded,
			(unsigned long long)r->cross_worker_pkts);
	df_report_time_scale(f, c, r->time_scale);
	if (r->cap_on)
		fprintf(f,
			"  %-22s %s: %llu packets on %u links (%.1f MB), %llu "
			"skipped (capture ring full), %llu over limit_mb%s%s",
			"capture", r->cap_file,
			(unsigned long long)r->cap_written, r->cap_ifaces,
			r->cap_bytes / 1e6, (unsigned long long)r->cap_skipped,
			(unsigned long long)r->cap_over_limit,
			r->cap_error ? "; WRITE FAILED: " : "",
			r->cap_error ? strerror(r->cap_error) : "");
	if (r->cap_on && r->cap_error)
		fprintf(f, " (%llu packets not written after it)",
			(unsigned long long)r->cap_write_failed);
	if (r->cap_on)
		fprintf(f, "\n");
}

/* What went wrong, last. */
static void print_warnings(FILE *f, const struct df_config *c,
			   const struct df_report *r)
{
	if (r->interrupted)
		fprintf(f, "  INTERRUPTED: %s\n",
			r->interrupted == 1
				? "the measurement was cut short by a signal; "
				  "figures are over the time measured"
				: "stopped by a second signal; packets were "
				  "left in flight");
	if (r->stuck[0])
		fprintf(f,
			"  STUCK: %s; the run was stopped ([run] watchdog_ms "
			"= %u)\n",
			r->stuck, c->watchdog_ms);
	else if (!r->drained && !r->part.lost_peer[0])
		fprintf(f,
			"  WARNING: the drain timeout ([traffic] "
			"drain_timeout_ms = %llu) expired before every "
			"measured packet arrived: the network is beyond "
			"saturation or the host is too slow\n",
			(unsigned long long)c->drain_timeout_ms);
	if (!r->lateness_ok)
		fprintf(f,
			"  NOT REAL TIME: lag p99 %llu ns exceeds [run] "
			"lateness_tolerance_ns = %llu%s: emulated time fell "
			"behind the wall clock, so the ports' peers saw a "
			"slower network (exit status 5, or 1 when the "
			"accounting also failed). Raise [run] "
			"time_scale, lower the link bandwidths or the load, "
			"use hugepages, or give the routers more lcores.\n",
			(unsigned long long)r->late_p99_ns,
			(unsigned long long)c->lateness_tolerance_ns,
			c->lateness_auto ? " (auto: one packet's time on the "
					   "fastest link)"
					 : "");
	if (r->c.drops[DP_DROP_NO_MBUF] && r->nworkers > 1)
		fprintf(f,
			"  WARNING: the mempool ran out ([run] mbufs = %llu): "
			"%llu injections failed. Which ones depended on the "
			"host: the workers take and give back mbufs at their "
			"own pace. The counts add up, but the digest is "
			"reproducible on one worker only\n",
			(unsigned long long)c->mbufs,
			(unsigned long long)r->c.drops[DP_DROP_NO_MBUF]);
	if (r->c.enq_fail || r->c.corrupt)
		fprintf(f,
			"  ERROR: %llu ring overflows, %llu corrupt frames "
			"(a bug: please report)\n",
			(unsigned long long)r->c.enq_fail,
			(unsigned long long)r->c.corrupt);
}

void df_report_print(const struct df_plan *pl, const struct df_report *r,
		     FILE *f)
{
	const struct df_config *c = &pl->cfg;

	print_setup(f, pl);
	print_packets(f, c, r);
	print_ports(f, c, r);
	print_latencies(f, r);
	print_paths(f, pl, r);
	print_checks(f, c, r);
	print_host(f, c, r);
	print_partition(r, f);
	print_warnings(f, c, r);
}
