/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-of-run report as JSON, for scripts (--json). */
#include <errno.h>
#include <string.h>

#include "report_int.h"

/* A histogram over 0..n-1 as {"i": count, ...}, non-zero only. */
static void json_counts(FILE *f, const uint64_t *c, uint32_t n)
{
	int first = 1;

	fputc('{', f);
	for (uint32_t h = 0; h < n; h++)
		if (c[h]) {
			fprintf(f, "%s\"%u\": %llu", first ? "" : ", ", h,
				(unsigned long long)c[h]);
			first = 0;
		}
	fputc('}', f);
}

/* n counters as {"name": count, ...}, every one. */
static void json_named(FILE *f, const uint64_t *c, uint32_t n,
		       const char *const *names)
{
	fputc('{', f);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i],
			(unsigned long long)c[i]);
	fputc('}', f);
}

/* An array of stats.h's list: by its entries' names, or indices. */
static void json_array(FILE *f, const uint64_t *c, uint32_t n,
		       const char *const *names)
{
	if (names)
		json_named(f, c, n, names);
	else
		json_counts(f, c, n);
}

/* "counters": every counter of dataplane/stats.h's list, by name. */
static void json_counters(FILE *f, const struct dp_counters *c)
{
	const char *sep = "";

	fprintf(f, "  \"counters\": {");
#define JSON_COUNTER(name, text)                                               \
	fprintf(f, "%s\"" #name "\": %llu", sep, (unsigned long long)c->name); \
	sep = ", ";
#define JSON_COUNTER_ARRAY(name, n, names)            \
	fprintf(f, "%s\"" #name "\": ", sep);         \
	json_array(f, c->name, (uint32_t)(n), names); \
	sep = ", ";
	DP_STATS_COUNTERS(JSON_COUNTER, JSON_COUNTER_ARRAY)
#undef JSON_COUNTER
#undef JSON_COUNTER_ARRAY
	fprintf(f, "},\n");
}

static void json_link(FILE *f, const struct df_link_use *u, int first)
{
	fprintf(f,
		"%s\n    {\"class\": \"%s\", \"from\": %u, \"from_port\": %u, "
		"\"to\": %u, \"to_port\": %u, \"packets\": %llu, \"busy\": ",
		first ? "" : ",", df_link_class_name(u->cls), u->from,
		u->from_port, u->to, u->to_port,
		(unsigned long long)u->packets);
	if (u->busy < 0)
		fprintf(f, "null}");
	else
		fprintf(f, "%.4f}", u->busy);
}

static void json_latency(FILE *f, const struct df_latency *l)
{
	fprintf(f,
		"{\"packets\": %llu, \"avg\": %.1f, \"min\": %llu, "
		"\"p50\": %llu, \"p99\": %llu, \"max\": %llu}",
		(unsigned long long)l->n, l->avg_ns,
		(unsigned long long)l->min_ns, (unsigned long long)l->p50_ns,
		(unsigned long long)l->p99_ns, (unsigned long long)l->max_ns);
}

/* Non-empty buckets as [value_ns, count] pairs. */
static void json_hist(FILE *f, const struct dp_hist *h, double ns)
{
	int first = 1;

	fputc('[', f);
	for (uint32_t i = 0; h && i < DP_HIST_BUCKETS; i++)
		if (h->b[i]) {
			fprintf(f, "%s[%.0f, %llu]", first ? "" : ", ",
				dp_hist_bucket_value(i) * ns,
				(unsigned long long)h->b[i]);
			first = 0;
		}
	fputc(']', f);
}

static void json_output(FILE *f, const struct df_output_report *o, int first)
{
	fprintf(f,
		"%s\n    {\"router\": %u, \"port\": %u, \"class\": \"%s\", "
		"\"crt_samples\": %llu, \"crt_avg_ns\": %.1f, "
		"\"crt0_ns\": %.1f, \"td_last_ns\": %.1f, "
		"\"delayed\": %llu, \"delay_avg_ns\": %.1f}",
		first ? "" : ",", o->router, o->port,
		df_link_class_name(o->cls), (unsigned long long)o->crt_samples,
		o->crt_avg_ns, o->crt0_ns, o->td_last_ns,
		(unsigned long long)o->delayed, o->delay_avg_ns);
}

/* A JSON string literal: quotes, backslashes and control bytes escaped. */
void df_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* "partition": this instance, its peers, the whole network. */
static void json_partition(FILE *f, const struct df_part_report *p)
{
	int first = 1;

	fprintf(f,
		"  \"partition\": {\"instances\": %u, \"instance\": %u, "
		"\"groups\": [%u, %u], \"terminals\": %u, \"peers\": [",
		p->ninst ? p->ninst : 1, p->instance, p->lo, p->hi, p->nterms);
	for (uint32_t j = 0; j < DF_MAX_INST; j++) {
		const struct df_peer_report *q = &p->peer[j];
		if (!q->used)
			continue;
		fprintf(f, "%s{\"instance\": %u, \"port\": ", first ? "" : ", ",
			j);
		df_json_str(f, q->port);
		fprintf(f,
			", \"latency_ns\": %.0f, \"sent\": %llu, \"received\": "
			"%llu, \"credits_sent\": %llu, \"credits_received\": "
			"%llu, \"frames_out\": %llu, \"frames_in\": %llu, "
			"\"refused\": %llu, \"control_dropped\": %llu, "
			"\"lost\": %s",
			q->lat_ns, (unsigned long long)q->sent,
			(unsigned long long)q->recv,
			(unsigned long long)q->csent,
			(unsigned long long)q->crecv,
			(unsigned long long)q->tx_frames,
			(unsigned long long)q->rx_frames,
			(unsigned long long)q->tx_stalls,
			(unsigned long long)q->ctl_dropped,
			q->lost ? "{\"at_s\": " : "null");
		if (q->lost) {
			fprintf(f, "%.6f, \"why\": ", q->lost_at_s);
			df_json_str(f, q->lost_why);
			fprintf(f,
				", \"frames_freed\": %llu, \"frames_ignored\": "
				"%llu}",
				(unsigned long long)q->discarded,
				(unsigned long long)q->ignored);
		}
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f,
		"], \"bad_frames\": %llu, \"unknown_link\": %llu, "
		"\"enq_fail\": %llu, \"late\": %llu, "
		"\"network\": {\"exchanged\": %s, "
		"\"injected\": %llu, \"delivered\": %llu, \"lost\": %llu, "
		"\"in_flight\": %llu, \"lost_instances\": %u, "
		"\"from_lost\": %llu, \"to_lost\": %llu}, \"lost_peer\": ",
		(unsigned long long)p->bad_frames,
		(unsigned long long)p->unknown_link,
		(unsigned long long)p->enq_fail, (unsigned long long)p->late,
		p->exchanged ? "true" : "false",
		(unsigned long long)p->injected,
		(unsigned long long)p->delivered, (unsigned long long)p->lost,
		(unsigned long long)p->in_flight, p->nlost,
		(unsigned long long)p->from_lost,
		(unsigned long long)p->to_lost);
	df_json_str(f, p->lost_peer);
	fprintf(f, "},\n");
}

static void json_term_ports(FILE *f, const struct df_config *c,
			    const struct df_report *r)
{
	char vdev[256];
	int first = 1;

	for (uint32_t i = 0; r->term_ports && i < r->nterms; i++) {
		const struct df_term_ports *t = &r->term_ports[i];
		const char *v;

		if (!df_report_term_shown(c, r, i, &v, vdev, sizeof(vdev)))
			continue;
		fprintf(f, "%s\n      {\"terminal\": %u, \"port\": ",
			first ? "" : ",", i);
		if (v != NULL)
			df_json_str(f, v);
		else
			fputs("null", f);
#define TP_JSON(n, label) \
	fprintf(f, ", \"" #n "\": %llu", (unsigned long long)t->c.n);
		DP_TERM_PORT_COUNTERS(TP_JSON)
#undef TP_JSON
		fputs(", \"dropped\": ", f);
		json_named(f, t->c.drops, DP_DROP_N, dp_drop_name);
		fprintf(f,
			", \"load\": %.6f, \"span_s\": %.6f, \"span_load\": "
			"%.6f, \"latency_ns\": ",
			t->load, t->span_s, t->span_load);
		json_latency(f, &t->lat);
		fputc('}', f);
		first = 0;
	}
}

/* "config": what ran. */
static void json_config(FILE *f, const struct df_config *c,
			const struct df_report *r)
{
	fprintf(f, "  \"config\": {\"file\": ");
	df_json_str(f, c->path);
	fprintf(f,
		", \"p\": %u, \"a\": %u, "
		"\"h\": %u, \"g\": %u, \"type\": \"%s\", \"k\": %u, "
		"\"n\": %u, \"arrangement\": \"%s\", "
		"\"algorithm\": \"%s\", \"pattern\": \"%s\", \"shift\": %u, "
		"\"load\": %g, \"packet_bytes\": %u, \"process\": \"%s\", "
		"\"source_queue\": %u, "
		"\"seed\": %llu, \"warmup_ms\": %llu, \"measure_ms\": %llu, "
		"\"workers\": %u, \"terminal_bandwidth_gbps\": %g, "
		"\"local_bandwidth_gbps\": %g, "
		"\"global_bandwidth_gbps\": %g, "
		"\"terminal_latency_ns\": %llu, \"local_latency_ns\": %llu, "
		"\"global_latency_ns\": %llu, \"router_speedup\": %g, "
		"\"router_output_buffer_flits\": %u, "
		"\"router_latency_ns\": %llu, \"router_switching\": \"%s\"},\n",
		c->p, c->a, c->h, c->g, df_topo_type_name(c->type), c->k, c->n,
		df_arrangement_name(c->arrangement),
		df_algorithm_name(c->algorithm), df_pattern_name(c->pattern),
		c->shift, c->load, c->packet_bytes, df_process_name(c->process),
		c->source_queue, (unsigned long long)c->seed,
		(unsigned long long)c->warmup_ms,
		(unsigned long long)c->measure_ms, r->nworkers,
		c->link[0].bandwidth_gbps, c->link[1].bandwidth_gbps,
		c->link[2].bandwidth_gbps,
		(unsigned long long)c->link[0].latency_ns,
		(unsigned long long)c->link[1].latency_ns,
		(unsigned long long)c->link[2].latency_ns, c->speedup,
		c->output_buffer_flits,
		(unsigned long long)c->router_latency_ns,
		df_switching_name(c->switching));
}

/* The loads, "packets" and every counter (json_counters). */
static void json_packets(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"offered_load\": %.6f,\n  \"accepted_load\": %.6f,\n",
		r->offered_load, r->accepted_load);
	fprintf(f,
		"  \"packets\": {\"generated\": %llu, \"injected\": %llu, "
		"\"delivered\": %llu, \"in_flight\": %llu, "
		"\"not_injected\": %llu, \"measured\": %llu, "
		"\"measured_delivered\": %llu, \"dropped\": ",
		(unsigned long long)r->c.generated,
		(unsigned long long)r->c.injected,
		(unsigned long long)r->c.delivered,
		(unsigned long long)r->in_flight,
		(unsigned long long)r->c.not_injected,
		(unsigned long long)r->c.gen_measured,
		(unsigned long long)r->c.del_measured);
	json_named(f, r->c.drops, DP_DROP_N, dp_drop_name);
	fprintf(f, "},\n");
	json_counters(f, &r->c);
}

/* "changes": what changed during the run, in order. */
static void json_changes(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"changes\": [");
	for (uint32_t i = 0; i < r->nfaults; i++) {
		fprintf(f, "%s{\"t_s\": %.6f, \"ok\": %d, \"what\": ",
			i ? ", " : "", r->faults[i].t_s, r->faults[i].ok);
		df_json_str(f, r->faults[i].what);
		fprintf(f, ", \"message\": ");
		df_json_str(f, r->faults[i].msg);
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
}

/* Latency: every measured packet, by path class, port frames by pair,
 * and the histograms by path class. */
static void json_latencies(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"latency_ns\": ");
	json_latency(f, &r->lat);
	fprintf(f, ",\n  \"latency_by_path_ns\": {\"minimal\": ");
	json_latency(f, &r->lat_path[0]);
	fprintf(f, ", \"nonminimal\": ");
	json_latency(f, &r->lat_path[1]);
	fprintf(f, "},\n  \"port_latency_by_pair_ns\": {");
	for (int k = 0; k < DP_PAIR_N; k++) {
		fprintf(f, "%s\"%s\": ", k ? ", " : "", dp_pair_name[k]);
		json_latency(f, &r->lat_ext[k]);
	}
	fprintf(f, "},\n  \"latency_histogram_ns\": {\"minimal\": ");
	json_hist(f, r->lat_hist[0], 1e9 / (r->tsc_hz * r->time_scale));
	fprintf(f, ", \"nonminimal\": ");
	json_hist(f, r->lat_hist[1], 1e9 / (r->tsc_hz * r->time_scale));
	fprintf(f, "},\n");
}

/* The routers' counters of one family (dataplane/stats.h's list) as
 * members of the object it belongs to, by name, each followed by ", ". */
static void json_router_family(FILE *f, const struct df_report *r,
			       enum dp_router_family fam)
{
#define RF_JSON(name, family, text)                 \
	if (fam == DP_RF_##family)                  \
		fprintf(f, "\"" #name "\": %llu, ", \
			(unsigned long long)r->name);
	DP_ROUTER_COUNTERS(RF_JSON)
#undef RF_JSON
}

/* Paths: hops, OFAR's misroutes and escapes, minimal or not. */
static void json_paths(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"hops\": {");
	json_router_family(f, r, DP_RF_HOPS);
	fprintf(f, "\"histogram\": ");
	json_counts(f, r->c.hops, DP_MAX_HOPS);
	fprintf(f, "},\n  \"ofar\": {");
	json_router_family(f, r, DP_RF_OFAR);
	fprintf(f, "\"escapes_per_packet\": ");
	json_counts(f, r->c.escapes, DP_MAX_HOPS);
	fprintf(f, "},\n");
	fprintf(f, "  \"paths\": {\"minimal\": %llu, \"nonminimal\": %llu},\n",
		(unsigned long long)r->c.minimal,
		(unsigned long long)r->c.nonminimal);
}

/* UGAL-L_CR's credit delay per output, the routers' decisions. */
static void json_decisions(FILE *f, const struct df_report *r)
{
	fprintf(f,
		"  \"credit_delay\": {\"delayed\": %llu, \"avg_ns\": %.1f, "
		"\"outputs\": [",
		(unsigned long long)r->cr_delayed, r->cr_delay_avg_ns);
	for (uint32_t i = 0; i < r->noutputs; i++)
		json_output(f, &r->outputs[i], i == 0);
	fprintf(f, "]},\n");
	fprintf(f, "  \"decisions\": {");
	json_router_family(f, r, DP_RF_DECISIONS);
	json_router_family(f, r, DP_RF_PAR);
	fprintf(f, "\"per_router\": [");
	for (uint32_t i = 0; r->router_min && i < r->nrouters; i++)
		fprintf(f, "%s[%llu, %llu]", i ? ", " : "",
			(unsigned long long)r->router_min[i],
			(unsigned long long)r->router_nonmin[i]);
	fprintf(f, "]},\n");
}

/* Each router link's use, and the measured packets each router
 * injected. */
static void json_links(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"links\": [");
	for (uint32_t i = 0; i < r->nlinks; i++)
		json_link(f, &r->links[i], i == 0);
	fprintf(f, "],\n  \"injected_per_router\": [");
	for (uint32_t i = 0; r->router_injected && i < r->nrouters; i++)
		fprintf(f, "%s%llu", i ? ", " : "",
			(unsigned long long)r->router_injected[i]);
	fprintf(f, "],\n");
}

/* Lateness and the real-time verdict, the time scale. */
static void json_lateness(FILE *f, const struct df_config *c,
			  const struct df_report *r)
{
	fprintf(f,
		"  \"lateness_ns\": {\"p50\": %llu, \"p99\": %llu, "
		"\"max\": %llu, \"tolerance\": %llu, \"tolerance_auto\": %s, "
		"\"within_tolerance\": %s},\n"
		"  \"kept_real_time\": %s,\n  \"needs_real_time\": %s,\n"
		"  \"pace\": {\"mode\": \"%s\", \"emulated_s_per_wall_s\": "
		"%.6g, "
		"\"emulated_s\": %.6f, \"quantum_ns\": %g},\n"
		"  \"time_scale\": %g,\n  \"time_scale_auto\": %s,\n",
		(unsigned long long)r->late_p50_ns,
		(unsigned long long)r->late_p99_ns,
		(unsigned long long)r->late_max_ns,
		(unsigned long long)c->lateness_tolerance_ns,
		c->lateness_auto ? "true" : "false",
		r->late_within ? "true" : "false",
		r->lateness_ok ? "true" : "false",
		r->needs_real_time ? "true" : "false", df_pace_name(c->pace),
		r->pace, r->emulated_s, r->quantum_ns, r->time_scale,
		c->time_scale_auto ? "true" : "false");
}

/* "ports": terminals on DPDK ports, in all and each one. */
static void json_ports(FILE *f, const struct df_config *c,
		       const struct df_report *r)
{
	fprintf(f,
		"  \"ports\": {\"rx\": %llu, \"tx\": %llu, \"arp_replies\": "
		"%llu, \"stalls\": %llu, \"most_stalled_terminal\": %d,\n"
		"    \"terminals\": [",
		(unsigned long long)r->port_rx, (unsigned long long)r->port_tx,
		(unsigned long long)r->arp_replies,
		(unsigned long long)r->port_stalls,
		r->stall_max ? (int)r->stall_term : -1);
	json_term_ports(f, c, r);
	fprintf(f, "]},\n");
}

/* A signal, and the capture. */
static void json_capture(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"interrupted\": %d,\n", r->interrupted);
	fprintf(f, "  \"capture\": {\"on\": %s, \"file\": ",
		r->cap_on ? "true" : "false");
	df_json_str(f, r->cap_file);
	fprintf(f,
		", \"interfaces\": %u, \"written\": %llu, \"handed\": "
		"%llu, \"skipped\": %llu, \"over_limit\": %llu, "
		"\"write_failed\": %llu, \"bytes\": %llu, \"error\": ",
		r->cap_ifaces, (unsigned long long)r->cap_written,
		(unsigned long long)r->cap_taken,
		(unsigned long long)r->cap_skipped,
		(unsigned long long)r->cap_over_limit,
		(unsigned long long)r->cap_write_failed,
		(unsigned long long)r->cap_bytes);
	df_json_str(f, r->cap_error ? strerror(r->cap_error) : "");
	fprintf(f, "},\n");
}

/* The verdicts: the watchdog, credits, delivery, the digest, the drain. */
static void json_checks(FILE *f, const struct df_report *r)
{
	fprintf(f, "  \"stuck\": ");
	df_json_str(f, r->stuck);
	fprintf(f, ",\n");
	fprintf(f, "  \"credits_conserved\": %s,\n",
		r->credits_conserved ? "true" : "false");
	if (!r->credits_conserved) {
		fprintf(f, "  \"credit_issue\": ");
		df_json_str(f, r->credit_issue);
		fprintf(f, ",\n");
	}
	if (r->part.nlost) /* not checkable: an instance was lost */
		fprintf(f,
			"  \"exactly_once\": null,\n  \"at_most_once\": %s,\n",
			r->exactly_once ? "true" : "false");
	else
		fprintf(f, "  \"exactly_once\": %s,\n",
			r->exactly_once ? "true" : "false");
	/* a string: a JSON number loses the low bits of 64 in most readers */
	fprintf(f, "  \"digest\": \"%016llx\",\n",
		(unsigned long long)r->digest);
	fprintf(f, "  \"digest_deliveries\": \"%016llx\",\n",
		(unsigned long long)r->digest_deliveries);
	fprintf(f,
		"  \"credit_links_unchecked\": %u,\n  \"corrupt_frames\": "
		"%llu,\n",
		r->credit_links_unchecked, (unsigned long long)r->c.corrupt);
	fprintf(f, "  \"drained\": %s,\n  \"fully_drained\": %s,\n",
		r->drained ? "true" : "false",
		r->fully_drained ? "true" : "false");
}

/* Packets per link class, the batch, the host's figures. */
static void json_run(FILE *f, const struct df_config *c,
		     const struct df_report *r)
{
	fprintf(f,
		"  \"link_packets\": {\"terminal\": %llu, \"local\": %llu, "
		"\"global\": %llu},\n  \"cross_worker_packets\": %llu,\n",
		(unsigned long long)r->link_tx_pkts[0],
		(unsigned long long)r->link_tx_pkts[1],
		(unsigned long long)r->link_tx_pkts[2],
		(unsigned long long)r->cross_worker_pkts);
	fprintf(f,
		"  \"batch\": {\"mode\": \"%s\", \"packets\": %llu, "
		"\"time_ns\": %.0f, \"received_per_terminal\": {\"min\": "
		"%llu, \"max\": %llu}},\n",
		df_mode_name(c->mode), (unsigned long long)r->c.generated,
		r->batch_time_ns, (unsigned long long)r->rx_min,
		(unsigned long long)r->rx_max);
	fprintf(f,
		"  \"tsc_hz\": %.0f,\n  \"sweeps\": %llu,\n"
		"  \"idle_sleeps\": %llu,\n  \"wall_s\": %.3f\n",
		r->tsc_hz, (unsigned long long)r->sweeps,
		(unsigned long long)r->idle_sleeps, r->wall_s);
}

int df_report_json(const struct df_plan *pl, const struct df_report *r,
		   const char *path, char *err, size_t errlen)
{
	const struct df_config *c = &pl->cfg;
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (f == NULL) {
		snprintf(err, errlen, "--json %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\n");
	json_config(f, c, r);
	json_packets(f, r);
	json_changes(f, r);
	json_latencies(f, r);
	json_paths(f, r);
	json_decisions(f, r);
	json_links(f, r);
	json_partition(f, &r->part);
	json_lateness(f, c, r);
	json_ports(f, c, r);
	json_capture(f, r);
	json_checks(f, r);
	json_run(f, c, r);
	fprintf(f, "}\n");
	if (f != stdout)
		fclose(f);
	return 0;
}
