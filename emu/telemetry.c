/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "changes.h"
#include "telemetry.h"
#include "terminals.h"
#include "xbar.h"

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct df_tel_view tel; /* tel.pl == NULL: no run */

void df_telemetry_attach(const struct df_tel_view *v)
{
	pthread_mutex_lock(&tel_lock);
	if (v)
		tel = *v;
	else
		memset(&tel, 0, sizeof(tel));
	pthread_mutex_unlock(&tel_lock);
}

/* Fractions as text: 22.11's telemetry has no floating-point values. */
static void add_frac(struct rte_tel_data *d, const char *name, double v)
{
	char s[32];

	snprintf(s, sizeof(s), "%.4f", v);
	rte_tel_data_add_dict_string(d, name, s);
}

/* Emulated seconds since the start: the slowest worker's clock. */
static double elapsed_s(void)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t w = 0; w < tel.pl->nworkers; w++)
		if (tel.lc[w]->clock < t)
			t = tel.lc[w]->clock;
	return (double)(t - tel.t0) / tel.hz;
}

static void sum_stats(struct dp_stats *s)
{
	dp_stats_sum(s, tel.lc, tel.pl->nworkers);
}

typedef int (*tel_fn)(const char *params, struct rte_tel_data *d);

/* Runs fn under the lock, or answers that no run is going on. */
static int serve(tel_fn fn, const char *params, struct rte_tel_data *d)
{
	int rc;

	pthread_mutex_lock(&tel_lock);
	if (tel.pl == NULL) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "state", "no run");
		rc = 0;
	} else {
		rc = fn(params, d);
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

static int info(const char *params, struct rte_tel_data *d)
{
	const struct df_config *c = &tel.pl->cfg;
	const struct df_topo *t = &tel.pl->topo;

	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "config", c->path);
	rte_tel_data_add_dict_int(d, "p", (int)t->p);
	rte_tel_data_add_dict_int(d, "a", (int)t->a);
	rte_tel_data_add_dict_int(d, "h", (int)t->h);
	rte_tel_data_add_dict_int(d, "g", (int)t->g);
	rte_tel_data_add_dict_int(d, "routers", (int)t->nrouters);
	rte_tel_data_add_dict_int(d, "terminals", (int)t->nterms);
	rte_tel_data_add_dict_string(d, "algorithm",
				     df_algorithm_name(c->algorithm));
	rte_tel_data_add_dict_string(d, "pattern", df_pattern_name(c->pattern));
	add_frac(d, "load", c->load);
	rte_tel_data_add_dict_int(d, "workers", (int)tel.pl->nworkers);
	rte_tel_data_add_dict_string(d, "phase", df_run_phase_name(*tel.phase));
	add_frac(d, "elapsed_s", elapsed_s());
	add_frac(d, "total_s", (c->warmup_ms + c->measure_ms) / 1e3);
	return 0;
}

static int queued(const struct dp_router *r)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < r->nports; k++) {
		for (uint32_t v = 0; v < r->port[k].nvc; v++)
			n += dp_vcq_count(&r->port[k].q[v]);
		/* and in its output queues ([router]) */
		n += dp_oq_count(&r->port[k]);
	}
	return (int)n;
}

static int router_detail(uint32_t id, struct rte_tel_data *d)
{
	const struct dp_router *r = tel.routers[id];
	const struct df_topo *t = &tel.pl->topo;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "router", (int)id);
	rte_tel_data_add_dict_int(d, "group", (int)r->group);
	/* its counters, every one of dataplane/stats.h's list */
#define RF_TEL(name, family, text) rte_tel_data_add_dict_u64(d, #name, r->name);
	DP_ROUTER_COUNTERS(RF_TEL)
#undef RF_TEL
	for (uint32_t k = 0; k < r->nports; k++) {
		const struct dp_port *p = &r->port[k];
		const struct df_port_info *pi = &t->ports[id * t->nports + k];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		struct rte_tel_data *q = rte_tel_data_alloc();
		struct rte_tel_data *cr = rte_tel_data_alloc();
		char name[16];

		if (!pd || !q || !cr) {
			rte_tel_data_free(pd);
			rte_tel_data_free(q);
			rte_tel_data_free(cr);
			return -1;
		}
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "class",
					     df_link_class_name(p->cls));
		if (p->cls == DF_LINK_TERMINAL)
			rte_tel_data_add_dict_int(pd, "terminal",
						  (int)(id * t->p + k));
		else if (pi->peer != DF_NO_PEER)
			rte_tel_data_add_dict_int(pd, "peer", (int)pi->peer);
		rte_tel_data_add_dict_u64(pd, "tx_pkts",
					  p->out ? p->out->tx_pkts : 0);
		rte_tel_data_start_array(q, RTE_TEL_INT_VAL);
		rte_tel_data_start_array(cr, RTE_TEL_INT_VAL);
		for (uint32_t v = 0; v < p->nvc; v++) {
			rte_tel_data_add_array_int(q,
						   (int)dp_vcq_count(&p->q[v]));
			rte_tel_data_add_array_int(cr, (int)p->credits[v]);
		}
		rte_tel_data_add_dict_container(pd, "queued_per_vc", q, 0);
		rte_tel_data_add_dict_container(pd, "credits_per_vc", cr, 0);
		snprintf(name, sizeof(name), "p%u", k);
		rte_tel_data_add_dict_container(d, name, pd, 0);
	}
	return 0;
}

static int parse_id(const char *params, uint32_t n, uint32_t *id)
{
	char *end;
	unsigned long v;

	if (params == NULL || *params == '\0')
		return 1; /* none given */
	v = strtoul(params, &end, 10);
	if (*end != '\0' || v >= n)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static int routers(const char *params, struct rte_tel_data *d)
{
	const struct df_topo *t = &tel.pl->topo;
	struct rte_tel_data *fw, *qd;
	uint32_t id;
	int rc = parse_id(params, t->nrouters, &id);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return router_detail(id, d);
	fw = rte_tel_data_alloc();
	qd = rte_tel_data_alloc();
	if (!fw || !qd) {
		rte_tel_data_free(fw);
		rte_tel_data_free(qd);
		return -1;
	}
	rte_tel_data_start_array(fw, RTE_TEL_U64_VAL);
	rte_tel_data_start_array(qd, RTE_TEL_INT_VAL);
	for (uint32_t r = 0; r < t->nrouters; r++) {
		rte_tel_data_add_array_u64(fw, tel.routers[r]->forwarded);
		rte_tel_data_add_array_int(qd, queued(tel.routers[r]));
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "routers", (int)t->nrouters);
	rte_tel_data_add_dict_container(d, "forwarded", fw, 0);
	rte_tel_data_add_dict_container(d, "queued", qd, 0);
	rte_tel_data_add_dict_string(d, "detail", "/dfemu/routers,<id>");
	return 0;
}

/* Utilisation of a link since the start: bytes x 8 / (bandwidth x time). */
static double util(const struct dp_link *l, double secs)
{
	double bw = tel.pl->cfg.link[l->cls].bandwidth_gbps * 1e9;

	return bw > 0 && secs > 0 ? l->tx_bytes * 8.0 / (bw * secs) : 0;
}

static int links(const char *params, struct rte_tel_data *d)
{
	double secs = elapsed_s();
	uint32_t id;
	int rc = parse_id(params, tel.pl->topo.nrouters, &id);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return router_detail(id, d);
	rte_tel_data_start_dict(d);
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		struct rte_tel_data *cd = rte_tel_data_alloc();
		uint64_t pkts = 0, n = 0;
		double sum = 0, max = 0;
		char where[64] = "";

		if (cd == NULL)
			return -1;
		for (uint32_t i = 0; i < tel.nlinks; i++) {
			const struct dp_link *l = &tel.links[i];
			double u;
			if (!dp_link_exists(l) || l->cls != c)
				continue;
			u = util(l, secs);
			n++;
			pkts += l->tx_pkts;
			sum += u;
			if (u > max) {
				max = u;
				snprintf(where, sizeof(where), "%u.%u->%u.%u",
					 l->from, l->from_port, l->to,
					 l->to_port);
			}
		}
		rte_tel_data_start_dict(cd);
		rte_tel_data_add_dict_u64(cd, "links", n);
		rte_tel_data_add_dict_u64(cd, "tx_pkts", pkts);
		add_frac(cd, "utilisation_avg", n ? sum / n : 0);
		add_frac(cd, "utilisation_max", max);
		rte_tel_data_add_dict_string(cd, "busiest", where);
		rte_tel_data_add_dict_container(
			d, df_link_class_name((enum df_link_class)c), cd, 0);
	}
	rte_tel_data_add_dict_string(d, "detail",
				     "/dfemu/links,<router>: its ports, "
				     "per-VC queues and credits");
	return 0;
}

static int hist_dict(struct rte_tel_data *d, const struct dp_hist *h);

/* One terminal: its packets, and its port traffic (stats.h's list), drops
 * by reason and its port frames' latency when it is bound to a port. */
static int terminal_detail(uint32_t id, struct rte_tel_data *d)
{
	static struct dp_hist h; /* telemetry thread only */
	const struct dp_term *te = tel.terms[id];
	const struct dp_term_ports *c = &te->pc;
	uint16_t k = tel.lc[0]->run->port_idx[id];
	struct rte_tel_data *dr, *lat;
	char vdev[256];
	const char *v = df_term_vdev(&tel.pl->cfg, id, vdev, sizeof(vdev));

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "terminal", id);
	rte_tel_data_add_dict_u64(d, "router", te->router);
	rte_tel_data_add_dict_u64(d, "injected", te->port.out->tx_pkts);
	rte_tel_data_add_dict_u64(d, "delivered", te->rx_pkts);
	rte_tel_data_add_dict_string(d, "port", v ? v : "none");
#define TP_TEL(n, label) rte_tel_data_add_dict_u64(d, #n, c->n);
	DP_TERM_PORT_COUNTERS(TP_TEL)
#undef TP_TEL
	dr = rte_tel_data_alloc();
	if (dr == NULL)
		return -1;
	rte_tel_data_start_dict(dr);
	for (int r = 0; r < DP_DROP_N; r++)
		rte_tel_data_add_dict_u64(dr, dp_drop_name[r], c->drops[r]);
	rte_tel_data_add_dict_container(d, "dropped", dr, 0);
	if (k == DP_NO_PORT)
		return 0;
	lat = rte_tel_data_alloc();
	if (lat == NULL)
		return -1;
	dp_port_lat_sum(&h, tel.lc, tel.pl->nworkers, k);
	rte_tel_data_start_dict(lat);
	if (hist_dict(lat, &h)) {
		rte_tel_data_free(lat);
		return -1;
	}
	rte_tel_data_add_dict_container(d, "latency", lat, 0);
	return 0;
}

static int terminals(const char *params, struct rte_tel_data *d)
{
	const struct df_topo *t = &tel.pl->topo;
	struct rte_tel_data *rx, *inj;
	struct dp_stats s;
	struct dp_term_ports ports;
	uint32_t id;
	int rc = parse_id(params, t->nterms, &id);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return terminal_detail(id, d);
	rx = rte_tel_data_alloc();
	inj = rte_tel_data_alloc();
	if (!rx || !inj) {
		rte_tel_data_free(rx);
		rte_tel_data_free(inj);
		return -1;
	}
	rte_tel_data_start_array(rx, RTE_TEL_U64_VAL);
	rte_tel_data_start_array(inj, RTE_TEL_U64_VAL);
	for (uint32_t i = 0; i < t->nterms && i < RTE_TEL_MAX_ARRAY_ENTRIES;
	     i++) {
		rte_tel_data_add_array_u64(rx, tel.terms[i]->rx_pkts);
		rte_tel_data_add_array_u64(inj,
					   tel.terms[i]->port.out->tx_pkts);
	}
	sum_stats(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "generated", s.generated);
	rte_tel_data_add_dict_u64(d, "injected", s.injected);
	rte_tel_data_add_dict_u64(d, "delivered", s.delivered);
	rte_tel_data_add_dict_u64(d, "in_flight", s.injected - s.delivered);
	for (int k = 0; k < DP_DROP_N; k++)
		rte_tel_data_add_dict_u64(d, dp_drop_name[k], s.drops[k]);
	dp_term_ports_sum(&ports, tel.terms, t->nterms);
	rte_tel_data_add_dict_u64(d, "port_rx", ports.rx);
	rte_tel_data_add_dict_u64(d, "port_tx", ports.tx);
	rte_tel_data_add_dict_container(d, "injected_per_terminal", inj, 0);
	rte_tel_data_add_dict_container(d, "delivered_per_terminal", rx, 0);
	rte_tel_data_add_dict_string(d, "detail",
				     "/dfemu/terminals,<id>: its port "
				     "traffic, drops and latency");
	return 0;
}

/* Every router counter of dataplane/stats.h's list, summed over the
 * routers, and the packets delivered by path class. */
static int routing(const char *params, struct rte_tel_data *d)
{
	struct {
		DP_ROUTER_COUNTERS(DP_ROUTER_FIELD)
	} sum = {0};
	struct dp_stats s;

	(void)params;
	for (uint32_t r = 0; r < tel.pl->topo.nrouters; r++) {
		const struct dp_router *ro = tel.routers[r];
#define RF_SUM(name, family, text) sum.name += ro->name;
		DP_ROUTER_COUNTERS(RF_SUM)
#undef RF_SUM
	}
	sum_stats(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "algorithm",
				     df_algorithm_name(tel.pl->cfg.algorithm));
#define RF_TEL(name, family, text) \
	rte_tel_data_add_dict_u64(d, #name, sum.name);
	DP_ROUTER_COUNTERS(RF_TEL)
#undef RF_TEL
	rte_tel_data_add_dict_u64(d, "delivered_nonminimal", s.nonminimal);
	rte_tel_data_add_dict_u64(d, "delivered_minimal", s.minimal);
	return 0;
}

/* Quantiles of a merged histogram, in ns; power-of-two buckets. */
static int hist_dict(struct rte_tel_data *d, const struct dp_hist *h)
{
	double ns = 1e9 / tel.hz;
	struct rte_tel_data *b = rte_tel_data_alloc();
	uint64_t cum[64] = {0};

	if (b == NULL)
		return -1;
	rte_tel_data_add_dict_u64(d, "packets", h->n);
	rte_tel_data_add_dict_u64(d, "avg_ns",
				  h->n ? (uint64_t)(h->sum * ns / h->n) : 0);
	rte_tel_data_add_dict_u64(d, "min_ns", (uint64_t)(h->min * ns));
	rte_tel_data_add_dict_u64(d, "p50_ns",
				  (uint64_t)(dp_hist_quantile(h, 0.5) * ns));
	rte_tel_data_add_dict_u64(d, "p99_ns",
				  (uint64_t)(dp_hist_quantile(h, 0.99) * ns));
	rte_tel_data_add_dict_u64(d, "max_ns", (uint64_t)(h->max * ns));
	/* counts below 2^k ns, k = 0..63, for the non-empty range */
	for (uint32_t i = 0; i < DP_HIST_BUCKETS; i++) {
		uint64_t v = (uint64_t)(dp_hist_bucket_value(i) * ns);
		int k = v ? 64 - __builtin_clzll(v) : 0;
		if (k < 64)
			cum[k] += h->b[i];
	}
	rte_tel_data_start_dict(b);
	for (int k = 0; k < 64; k++)
		if (cum[k]) {
			char name[32];
			snprintf(name, sizeof(name), "lt_%llu_ns",
				 1ULL << (k < 63 ? k : 62));
			rte_tel_data_add_dict_u64(b, name, cum[k]);
		}
	rte_tel_data_add_dict_container(d, "histogram_pow2", b, 0);
	return 0;
}

static int latency(const char *params, struct rte_tel_data *d)
{
	static struct dp_hist h; /* telemetry thread only */

	(void)params;
	memset(&h, 0, sizeof(h));
	for (uint32_t w = 0; w < tel.pl->nworkers; w++) {
		dp_hist_merge(&h, &tel.lc[w]->st.latency[0]);
		dp_hist_merge(&h, &tel.lc[w]->st.latency[1]);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "of",
				     "measured packets, "
				     "generation to delivery");
	return hist_dict(d, &h);
}

static int lateness(const char *params, struct rte_tel_data *d)
{
	static struct dp_hist h;

	(void)params;
	memset(&h, 0, sizeof(h));
	for (uint32_t w = 0; w < tel.pl->nworkers; w++)
		dp_hist_merge(&h, &tel.lc[w]->st.lateness);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "of", "every release: actual - due");
	rte_tel_data_add_dict_u64(d, "tolerance_ns",
				  tel.pl->cfg.lateness_tolerance_ns);
	return hist_dict(d, &h);
}

#define CMD(fn)                                                  \
	static int cmd_##fn(const char *cmd, const char *params, \
			    struct rte_tel_data *d)              \
	{                                                        \
		(void)cmd;                                       \
		return serve(fn, params, d);                     \
	}
CMD(info)
CMD(routers)
CMD(links)
CMD(terminals)
CMD(routing)
CMD(latency)
CMD(lateness)

/* A message as an array of strings: 22.11 caps one at 127 characters. */
static void add_long_string(struct rte_tel_data *d, const char *name,
			    const char *s)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	char chunk[RTE_TEL_MAX_STRING_LEN];
	size_t len = strlen(s);

	if (a == NULL)
		return;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (size_t i = 0; i < len; i += sizeof(chunk) - 1) {
		snprintf(chunk, sizeof(chunk), "%s", s + i);
		rte_tel_data_add_array_string(a, chunk);
	}
	rte_tel_data_add_dict_container(d, name, a, 0);
}

/* Run-time changes go to the main lcore (changes.h); not under tel_lock,
 * which the main lcore takes when the run ends. */
static int change(enum df_fault_op op, const char *params,
		  struct rte_tel_data *d)
{
	char reply[400];
	int rc =
		emu_ctl_request(op, params ? params : "", reply, sizeof(reply));

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "result", rc == 0 ? "done" : "refused");
	add_long_string(d, "message", reply);
	return 0;
}

static int cmd_link_down(const char *cmd, const char *params,
			 struct rte_tel_data *d)
{
	(void)cmd;
	return change(DF_FAULT_DOWN, params, d);
}

static int cmd_link_up(const char *cmd, const char *params,
		       struct rte_tel_data *d)
{
	(void)cmd;
	return change(DF_FAULT_UP, params, d);
}

static int cmd_drain(const char *cmd, const char *params,
		     struct rte_tel_data *d)
{
	(void)cmd;
	return change(DF_FAULT_DRAIN, params, d);
}

static int cmd_undrain(const char *cmd, const char *params,
		       struct rte_tel_data *d)
{
	(void)cmd;
	return change(DF_FAULT_UNDRAIN, params, d);
}

static int cmd_load(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return change(DF_FAULT_LOAD, params, d);
}

static void change_line(void *arg, double t_s, int ok, const char *s)
{
	char line[RTE_TEL_MAX_STRING_LEN];

	snprintf(line, sizeof(line), "%.3f s %s %s", t_s,
		 ok ? "done" : "refused", s);
	rte_tel_data_add_array_string(arg, line);
}

static int cmd_changes(const char *cmd, const char *params,
		       struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	emu_ctl_log(change_line, d);
	return 0;
}

int df_telemetry_register(void)
{
	static int done;
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{"/dfemu/info", cmd_info,
		 "Run: topology, algorithm, load, phase, elapsed time"},
		{"/dfemu/routers", cmd_routers,
		 "Packets forwarded and queued per router. Parameter: router "
		 "id for its ports"},
		{"/dfemu/links", cmd_links,
		 "Utilisation per link class. Parameter: router id for its "
		 "ports' per-VC queues and credits"},
		{"/dfemu/terminals", cmd_terminals,
		 "Packet accounting and per-terminal counts. Parameter: "
		 "terminal id for its port traffic, drops and latency"},
		{"/dfemu/routing", cmd_routing,
		 "Minimal/non-minimal decisions, misroutes, escape entries"},
		{"/dfemu/latency", cmd_latency,
		 "Latency of measured packets: quantiles and histogram"},
		{"/dfemu/lateness", cmd_lateness,
		 "How late releases are against emulated time"},
		{"/dfemu/link_down", cmd_link_down,
		 "Fail a link. Parameter: one end, rR.pP (router R, port P)"},
		{"/dfemu/link_up", cmd_link_up,
		 "Restore a failed link. Parameter: one end, rR.pP"},
		{"/dfemu/drain", cmd_drain,
		 "Drain a router: no path through it, its terminals stop "
		 "generating. Parameter: router id"},
		{"/dfemu/undrain", cmd_undrain,
		 "Return a drained router to service. Parameter: router id"},
		{"/dfemu/load", cmd_load,
		 "Change the offered load. Parameter: the new load, (0, 1]"},
		{"/dfemu/changes", cmd_changes,
		 "Links failed and restored, load changes, refusals: one line "
		 "each (the report has the full messages)"},
	};
	int rc;

	if (done)
		return 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn,
						cmds[i].help);
		if (rc)
			return rc;
	}
	done = 1;
	return 0;
}
