/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * From a checked plan to running routers: links, rings, routers and
 * terminals are allocated here (the only place that knows both control/
 * and dataplane/), the workers are launched, and the main lcore sleeps
 * between its duties: phase changes, the live status line, and the final
 * accounting (every packet and every credit).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "arena.h"
#include "emu.h"
#include "emu_capture.h"
#include "control.h"
#include "telemetry.h"
#include "terminals.h"
#include "routing.h"
#include "instances.h"
#include "linkuse.h"
#include "partition.h"
#include "worker.h"

struct emu {
	const struct df_plan *pl;
	/* TSC ticks per wall second, and per emulated second: hz times
	 * [run] time_scale (docs/realtime.md, "Time dilation") */
	double hz, ehz;
	struct dp_run run;
	struct dp_lcore **lc;
	unsigned *lcore_id;
	struct dp_router **routers;
	struct dp_term **terms;
	struct dp_link *links; /* router ports, then T->R, then R->T */
	uint32_t nlinks;
	struct emu_arena mem; /* links' FIFOs, VC queues, routers, terminals */
	uint32_t *perm;
	uint16_t *port_idx; /* run.port_idx: [terminal] -> bound index */
	uint32_t nports;    /* terminals bound to a port, all instances */
	uint8_t (*macs)[6];
	uint32_t *ips;
	struct df_capture *cap; /* NULL: no [capture] */
	struct emu_inst *inst;	/* [partition]: the protocol, NULL if not */
	struct df_linkuse lu;	/* links' use over the window */
	char *err;
	size_t errlen;
};

static unsigned run_id; /* unique ring/pool names across runs */

/* Injected, not yet delivered nor lost on a failed link. */
static uint64_t in_flight(const struct dp_stats *s)
{
	return s->injected - s->delivered - dp_stats_lost(s);
}

static uint64_t ns_to_tsc(double hz, uint64_t ns)
{
	return (uint64_t)((double)ns * hz / 1e9 + 0.5);
}

/* Size of the buffer at the receiving end of a link of class c, in flits,
 * over all its VCs: bounds the packets and credit messages in flight. */
static uint32_t buffer_total(const struct df_plan *pl, int c)
{
	uint32_t esc = c == DF_LINK_TERMINAL ? 0 : pl->tb.esc;

	return (pl->tb.nvcs[c] + esc) * pl->cfg.link[c].buffer_flits;
}

/* VCs of a router port of class c, as port_init builds them: one on a
 * terminal port; the plan's, and OFAR's escape VC, on the others. */
static uint32_t port_vcs(const struct df_plan *pl, int c)
{
	return c == DF_LINK_TERMINAL ? 1 : pl->tb.nvcs[c] + pl->tb.esc;
}

/* Entries of each FIFO of a link of class c: one per flit of the far
 * buffer, so packets and credit messages in flight never exceed it. */
static uint32_t fifo_cap(const struct df_plan *pl, int c)
{
	return rte_align32pow2(buffer_total(pl, c));
}

/* Bytes of one link of class c: the link and its two FIFOs. */
static uint64_t link_bytes(const struct df_plan *pl, int c)
{
	return sizeof(struct dp_link) +
	       (uint64_t)fifo_cap(pl, c) *
		       (sizeof(struct dp_flight) + sizeof(struct dp_credit));
}

/* Out of DPDK memory for what: what the plan needs is in --check. */
static int oom(struct emu *e, const char *what)
{
	snprintf(e->err, e->errlen,
		 "out of memory for %s after %zu MB of dataplane state; "
		 "dfemu --check prints what the plan needs: give EAL that "
		 "much (hugepages, or --eal -m MB with --no-huge)",
		 what, e->mem.total >> 20);
	return -1;
}

static int link_init(struct emu *e, struct dp_link *l, int cls, uint32_t from,
		     uint32_t from_port, uint32_t to, uint32_t to_port,
		     int to_router)
{
	const struct df_link_params *lp = &e->pl->cfg.link[cls];
	uint32_t cap = fifo_cap(e->pl, cls);

	l->cls = cls;
	l->from = from;
	l->from_port = from_port;
	l->to = to;
	l->to_port = to_port;
	/* a packet is visible to the router at the far end once that
	 * router's pipeline is done with it ([router] latency_ns): its
	 * credit, given when it leaves, then includes the delay too */
	l->lat_tsc = ns_to_tsc(
		e->ehz, lp->latency_ns +
				(to_router ? e->pl->cfg.router_latency_ns : 0));
	l->credit_lat_tsc = ns_to_tsc(e->ehz, lp->credit_latency_ns);
	/* 8 bits per byte at bandwidth_gbps bits per ns */
	l->cyc_per_byte_q16 = lp->bandwidth_gbps > 0
				      ? (uint64_t)(8.0 / lp->bandwidth_gbps *
						   e->ehz / 1e9 * 65536.0)
				      : 0;
	l->mask = cap - 1;
	l->pkt = emu_arena_alloc(&e->mem, cap * sizeof(*l->pkt));
	l->cred = emu_arena_alloc(&e->mem, cap * sizeof(*l->cred));
	if (l->pkt == NULL || l->cred == NULL)
		return oom(e, "link FIFOs");
	return 0;
}

/* A router output's queue for VC v and the crossbar's time into it
 * ([router]; dataplane/xbar.h): at most one packet per flit. */
static int oq_init(struct emu *e, struct dp_port *p, uint32_t v)
{
	const struct df_config *c = &e->pl->cfg;
	uint32_t n = rte_align32pow2(c->output_buffer_flits);

	if (c->output_buffer_flits == 0)
		return 0;
	p->xbar_cyc_per_byte_q16 =
		(uint64_t)((double)p->out->cyc_per_byte_q16 / c->speedup);
	p->oq[v].slot = emu_arena_alloc(&e->mem, n * sizeof(struct dp_flight));
	if (p->oq[v].slot == NULL)
		return oom(e, "output queues");
	p->oq[v].mask = n - 1;
	return 0;
}

/* Port state: downstream credits for the link we send on, input queues
 * for the link we receive from. */
static int port_init(struct emu *e, struct dp_port *p, int cls,
		     struct dp_link *out, struct dp_link *in, int queues,
		     int escape)
{
	const struct df_plan *pl = e->pl;
	uint32_t nvc = cls == DF_LINK_TERMINAL ? 1 : pl->tb.nvcs[cls] + escape;
	uint32_t flits = pl->cfg.link[cls].buffer_flits;

	p->cls = cls;
	p->nvc = nvc;
	p->out = out;
	p->in = in;
	p->t_crt0 = UINT64_MAX;
	for (uint32_t v = 0; v < nvc; v++) {
		p->credits[v] = p->credit_full[v] = flits;
		if (!queues)
			continue;
		if (e->run.credit_delay) {
			/* one entry per packet in flight: at most one per
			 * downstream flit */
			uint32_t n = rte_align32pow2(flits);
			p->ctq[v] =
				emu_arena_alloc(&e->mem, n * sizeof(uint64_t));
			p->ctq_mask = n - 1;
			p->dq[v] = emu_arena_alloc(
				&e->mem, n * sizeof(struct dp_credit));
			p->dq_mask = n - 1;
			if (p->ctq[v] == NULL || p->dq[v] == NULL)
				return oom(e, "credit queues");
		}
		uint32_t n = rte_align32pow2(flits);
		p->q[v].slot = emu_arena_alloc(&e->mem, n * sizeof(void *));
		if (p->q[v].slot == NULL)
			return oom(e, "VC queues");
		p->q[v].mask = n - 1;
		if (oq_init(e, p, v))
			return -1;
	}
	return 0;
}

static int build_links(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;
	uint32_t rp = t->nrouters * t->nports;

	e->nlinks = rp + 2 * t->nterms;
	e->links = emu_arena_alloc(&e->mem, e->nlinks * sizeof(*e->links));
	if (e->links == NULL)
		return oom(e, "links");
	if (df_linkuse_init(&e->lu, e->nlinks)) {
		snprintf(e->err, e->errlen, "out of memory (link use)");
		return -1;
	}
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls == DF_LINK_TERMINAL ||
			    pi->peer == DF_NO_PEER)
				continue;
			if (link_init(e, &e->links[r * t->nports + k], pi->cls,
				      r, k, pi->peer, pi->peer_port, 1))
				return -1;
		}
	for (uint32_t i = 0; i < t->nterms; i++) {
		uint32_t r = i / t->p, k = i % t->p;
		/* terminal -> router, then router -> terminal */
		if (link_init(e, &e->links[rp + i], DF_LINK_TERMINAL, i, 0, r,
			      k, 1) ||
		    link_init(e, &e->links[rp + t->nterms + i],
			      DF_LINK_TERMINAL, r, k, i, 0, 0))
			return -1;
	}
	return 0;
}

/* [capture]: each link described as control/ names it; the taps. */
static int build_capture(struct emu *e)
{
	const struct df_topo *t = &e->pl->topo;
	uint32_t rp = t->nrouters * t->nports;
	struct df_cap_link *d = calloc(e->nlinks, sizeof(*d));
	int rc;

	if (d == NULL) {
		snprintf(e->err, e->errlen, "out of memory for capture");
		return -1;
	}
	for (uint32_t i = 0; i < e->nlinks; i++) {
		const struct dp_link *l = &e->links[i];
		d[i].cls = l->cls;
		d[i].from = l->from;
		d[i].from_port = l->from_port;
		d[i].to = l->to;
		d[i].to_port = l->to_port;
		/* build_links: terminal -> router links follow the routers' */
		d[i].term_from = i >= rp && i < rp + t->nterms;
	}
	rc = df_capture_start(&e->cap, &e->pl->cfg, e->links, d, e->nlinks,
			      e->lc, e->pl->nworkers, &e->run, e->ehz, e->err,
			      e->errlen);
	free(d);
	return rc;
}

static int build_nodes(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;
	uint32_t rp = t->nrouters * t->nports, sq;

	e->routers = calloc(t->nrouters, sizeof(*e->routers));
	e->terms = calloc(t->nterms, sizeof(*e->terms));
	if (e->routers == NULL || e->terms == NULL)
		return oom(e, "routers/terminals");
	for (uint32_t r = 0; r < t->nrouters; r++) {
		struct dp_router *ro = emu_arena_alloc(
			&e->mem,
			sizeof(*ro) + t->nports * sizeof(struct dp_port));
		if (ro == NULL)
			return oom(e, "routers");
		e->routers[r] = ro;
		ro->id = r;
		ro->group = r / t->a;
		ro->nports = t->nports;
		ro->nq = t->nports * DP_VC_STRIDE;
		ro->nqw = (ro->nq + 63) / 64;
		ro->lc = e->lc[pl->worker_of[r]];
		ro->eng = e->run.eng;
		ro->oq_cap = pl->cfg.output_buffer_flits;
		if (pl->cfg.algorithm == DF_ALG_VC_ORDERED &&
		    pl->cfg.pb_flags == DF_PB_PIGGYBACK) {
			ro->pb_seen = emu_arena_alloc(
				&e->mem, t->a * sizeof(*ro->pb_seen));
			if (ro->pb_seen == NULL)
				return oom(e, "PB flags");
		}
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			struct dp_link *out, *in;
			if (pi->peer == DF_NO_PEER) {
				/* the one unused global port is the last */
				ro->nports = k;
				break;
			}
			if (pi->cls == DF_LINK_TERMINAL) {
				out = &e->links[rp + t->nterms + pi->peer];
				in = &e->links[rp + pi->peer];
			} else {
				out = &e->links[r * t->nports + k];
				in = &e->links[pi->peer * t->nports +
					       pi->peer_port];
			}
			/* OFAR: the escape VC. Only the ring's links use
			 * it, but every router-to-router port has it: a
			 * link failure rebuilds the ring over other links
			 * (emu/control.c) */
			int esc = pl->ring.n > 1 && pi->cls != DF_LINK_TERMINAL;
			if (port_init(e, &ro->port[k], pi->cls, out, in, 1,
				      esc))
				return -1;
		}
	}
	sq = rte_align32pow2(pl->cfg.source_queue);
	e->run.src_queue_mask = sq - 1;
	for (uint32_t i = 0; i < t->nterms; i++) {
		struct dp_term *te = emu_arena_alloc(&e->mem, sizeof(*te));
		if (te == NULL)
			return oom(e, "terminals");
		e->terms[i] = te;
		te->id = i;
		te->router = i / t->p;
		te->group = te->router / t->a;
		te->lc = e->lc[pl->worker_of[te->router]];
		te->eth = -1;
		te->srcq = emu_arena_alloc(&e->mem, sq * sizeof(uint64_t));
		if (te->srcq == NULL)
			return oom(e, "source queues");
		if (port_init(e, &te->port, DF_LINK_TERMINAL, &e->links[rp + i],
			      &e->links[rp + t->nterms + i], 0, 0))
			return -1;
	}
	return 0;
}

/* Number the terminals bound to a port (in any instance: their frames
 * may be delivered here), for the latency of each port's frames. */
static int build_port_idx(struct emu *e)
{
	uint32_t nt = e->pl->topo.nterms;
	char vdev[256];

	e->port_idx = malloc(nt * sizeof(*e->port_idx));
	if (e->port_idx == NULL)
		return -1;
	for (uint32_t i = 0; i < nt; i++)
		e->port_idx[i] =
			df_term_vdev(&e->pl->cfg, i, vdev, sizeof(vdev)) &&
					e->nports < DP_NO_PORT
				? (uint16_t)e->nports++
				: DP_NO_PORT;
	e->run.port_idx = e->port_idx;
	return 0;
}

static int build_lcores(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	uint32_t nt = pl->topo.nterms;
	unsigned lcore;
	uint32_t w = 0;

	e->lc = calloc(pl->nworkers, sizeof(*e->lc));
	e->lcore_id = calloc(pl->nworkers, sizeof(*e->lcore_id));
	if (e->lc == NULL || e->lcore_id == NULL || build_port_idx(e))
		goto oom;
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (w == pl->nworkers)
			break;
		e->lcore_id[w++] = lcore;
	}
	if (w < pl->nworkers) {
		snprintf(e->err, e->errlen,
			 "the plan needs %u worker lcores, EAL has %u",
			 pl->nworkers, w);
		return -1;
	}
	for (w = 0; w < pl->nworkers; w++) {
		struct dp_lcore *lc = rte_zmalloc_socket(
			NULL, sizeof(*lc), RTE_CACHE_LINE_SIZE,
			rte_lcore_to_socket_id(e->lcore_id[w]));
		if (lc == NULL)
			goto oom;
		e->lc[w] = lc;
		lc->run = &e->run;
		lc->lcore_id = e->lcore_id[w];
		lc->rng = (pl->cfg.seed + 1) * 0x9E3779B97F4A7C15ULL + w * 7919;
		lc->rx_cnt = rte_zmalloc(NULL, nt * sizeof(uint64_t), 0);
		lc->rx_sum = rte_zmalloc(NULL, nt * sizeof(uint64_t), 0);
		lc->rx_sq = rte_zmalloc(NULL, nt * sizeof(uint64_t), 0);
		lc->routers = calloc(pl->topo.nrouters, sizeof(void *));
		lc->terms = calloc(nt, sizeof(void *));
		lc->port_lat = rte_zmalloc(
			NULL, (e->nports + 1) * sizeof(struct dp_hist), 0);
		if (!lc->rx_cnt || !lc->rx_sum || !lc->rx_sq || !lc->routers ||
		    !lc->terms || !lc->port_lat)
			goto oom;
	}
	return 0;
oom:
	snprintf(e->err, e->errlen, "out of memory for lcore state");
	return -1;
}

static void assign(struct emu *e)
{
	const struct df_topo *t = &e->pl->topo;

	/* a partitioned run: only this instance's routers and terminals
	 * run here (the others' structures stay idle) */
	for (uint32_t r = 0; r < t->nrouters; r++) {
		struct dp_lcore *lc = e->routers[r]->lc;
		if (df_part_local(&e->pl->cfg, r))
			lc->routers[lc->nrouters++] = e->routers[r];
	}
	for (uint32_t i = 0; i < t->nterms; i++) {
		struct dp_lcore *lc = e->terms[i]->lc;
		if (df_part_local(&e->pl->cfg, e->terms[i]->router))
			lc->terms[lc->nterms++] = e->terms[i];
	}
}

/* Point w at port k of the node (poll word, index). */
static void wake_target(struct dp_wake *w, struct dp_wheel *wh, uint64_t *poll,
			uint32_t k, uint32_t node)
{
	w->wh = wh;
	w->poll = poll;
	w->bit = 1ULL << k;
	w->node = node;
	w->state = DP_WAKE_IDLE;
}

#define NOTES 1024 /* notes a queue holds (notify.h: a full one loses none) */

/* Worker w's queues of notes, one from each other worker, and room for
 * the wakes of its ports fed from them. */
static int build_notes(struct emu *e, uint32_t w)
{
	struct dp_lcore *lc = e->lc[w];
	uint32_t nw = e->pl->nworkers, ports = 0;

	if (nw < 2)
		return 0;
	for (uint32_t j = 0; j < lc->nrouters; j++)
		ports += lc->routers[j]->nports;
	lc->notes = emu_arena_alloc(&e->mem, (nw - 1) * sizeof(*lc->notes));
	lc->xwakes = emu_arena_alloc(&e->mem, 2 * ports * sizeof(void *));
	if (lc->notes == NULL || lc->xwakes == NULL)
		return oom(e, "notes between workers");
	lc->nnotes = nw - 1;
	for (uint32_t i = 0; i < nw - 1; i++) {
		struct dp_notify_q *q = emu_arena_alloc(&e->mem, sizeof(*q));
		if (q == NULL)
			return oom(e, "notes between workers");
		q->ring = emu_arena_alloc(&e->mem,
					  NOTES * sizeof(struct dp_note));
		if (q->ring == NULL)
			return oom(e, "notes between workers");
		q->mask = NOTES - 1;
		lc->notes[i] = q;
	}
	return 0;
}

/* Port p of a router on worker lc, fed from worker pw: its two FIFOs'
 * producers note their wakes on lc's queue from pw. */
static void wake_by_notes(struct dp_lcore *lc, uint32_t me, uint32_t pw,
			  struct dp_port *p)
{
	struct dp_notify_q *q = lc->notes[pw < me ? pw : pw - 1];

	p->in->pkt_nq = q;
	p->out->cred_nq = q;
	lc->xwakes[lc->nxwakes++] = &p->in->pkt_wake;
	lc->xwakes[lc->nxwakes++] = &p->out->cred_wake;
}

/*
 * Each worker's wheel and active nodes (dataplane/wheel.h). A link whose
 * two ends run on one worker wakes its consumers through that worker's
 * wheel; one from another worker through notes (dataplane/notify.h); a
 * link from another instance has no wake, and the router's port is
 * polled on every sweep instead. Every node starts active.
 */
static int build_wakes(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;

	for (uint32_t w = 0; w < pl->nworkers; w++) {
		struct dp_lcore *lc = e->lc[w];
		uint32_t n = lc->nterms + lc->nrouters;
		uint32_t words = (n + 63) / 64;

		if (build_notes(e, w))
			return -1;

		lc->wheel = emu_arena_alloc(&e->mem, sizeof(*lc->wheel));
		if (lc->wheel == NULL)
			return oom(e, "timing wheels");
		lc->wheel->active = emu_arena_alloc(
			&e->mem, (words + 1) * sizeof(uint64_t));
		if (lc->wheel->active == NULL)
			return oom(e, "timing wheels");
		for (uint32_t i = 0; i < n; i++)
			lc->wheel->active[i / 64] |= 1ULL << (i % 64);
		for (uint32_t i = 0; i < lc->nterms; i++) {
			struct dp_term *te = lc->terms[i];
			te->node = i;
			wake_target(&te->port.in->pkt_wake, lc->wheel,
				    &te->poll, 0, i);
			wake_target(&te->port.out->cred_wake, lc->wheel,
				    &te->poll, 0, i);
			wake_target(&te->gen_wake, lc->wheel, &te->poll, 1, i);
		}
		for (uint32_t j = 0; j < lc->nrouters; j++) {
			struct dp_router *ro = lc->routers[j];
			ro->node = lc->nterms + j;
			for (uint32_t k = 0; k < ro->nports; k++) {
				const struct df_port_info *pi =
					&t->ports[ro->id * t->nports + k];
				struct dp_port *p = &ro->port[k];
				/* a terminal's or an unused port's link has
				 * both ends here */
				int router = pi->cls != DF_LINK_TERMINAL &&
					     pi->peer != DF_NO_PEER;
				int bridged =
					router &&
					!df_part_local(&pl->cfg, pi->peer);
				int crosses =
					router &&
					df_plan_crosses(pl, ro->id, pi->peer);
				struct dp_wheel *wh =
					bridged ? NULL : lc->wheel;
				wake_target(&p->in->pkt_wake, wh, &ro->poll, k,
					    ro->node);
				wake_target(&p->out->cred_wake, wh, &ro->poll,
					    k, ro->node);
				p->in->wheel = p->out->wheel =
					bridged || crosses ? NULL : lc->wheel;
				if (crosses)
					wake_by_notes(lc, w,
						      pl->worker_of[pi->peer],
						      p);
				else if (bridged)
					ro->always |= 1ULL << k;
			}
		}
	}
	return 0;
}

/* Every terminal's MAC and IPv4 (control/terminals.c): the built-in
 * frames' addresses, and how port frames find their terminal. */
static int build_macs(struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;

	e->macs = malloc(n * sizeof(*e->macs));
	e->ips = malloc(n * sizeof(*e->ips));
	if (e->macs == NULL || e->ips == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		df_term_mac(&e->pl->cfg, i, e->macs[i]);
		e->ips[i] = rte_cpu_to_be_32(df_term_ip(&e->pl->cfg, i));
	}
	e->run.macs = (const uint8_t(*)[6])e->macs;
	e->run.ips = e->ips;
	if (dp_addr_build(&e->run.mac_tab, &e->run.ip_tab, e->run.macs, e->ips,
			  n))
		return -1;
	return 0;
}

int df_port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(),
					    NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc == 0)
		rte_eth_promiscuous_enable(port); /* not every PMD can */
	return rc;
}

/* Terminals bound to DPDK ports: the vdevs EAL created from --vdev, one
 * rx and one tx queue each on the run's mempool. */
static int build_ports(struct emu *e)
{
	const struct df_config *c = &e->pl->cfg;
	char vdev[256];

	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		struct dp_term *te = e->terms[i];
		uint16_t port;
		int rc;

		if (df_term_vdev(c, i, vdev, sizeof(vdev)) == NULL ||
		    !df_part_local(c, te->router))
			continue;
		vdev[strcspn(vdev, ",")] = '\0';
		if (rte_eth_dev_get_port_by_name(vdev, &port) != 0) {
			snprintf(e->err, e->errlen,
				 "[terminals] t%u: no DPDK port %s (was the "
				 "--vdev given to EAL, and did its driver "
				 "accept the arguments? see EAL's messages)",
				 i, vdev);
			return -1;
		}
		rc = df_port_start(port, e->run.pool);
		if (rc != 0) {
			snprintf(e->err, e->errlen,
				 "[terminals] t%u: cannot start port %s: %s", i,
				 vdev, rte_strerror(-rc));
			return -1;
		}
		te->eth = port;
	}
	return 0;
}

/* Random pairing for the permutation pattern: a derangement, seeded. */
static int build_perm(struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;
	uint64_t x = e->pl->cfg.seed * 0x2545F4914F6CDD1DULL + 12345;

	e->perm = malloc(n * sizeof(*e->perm));
	if (e->perm == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		e->perm[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t j = x % (i + 1), tmp = e->perm[i];
		e->perm[i] = e->perm[j];
		e->perm[j] = tmp;
	}
	for (uint32_t i = 0; i < n; i++)
		if (e->perm[i] == i) { /* swap with a neighbour: no fixpoint */
			uint32_t j = (i + 1) % n, tmp = e->perm[i];
			e->perm[i] = e->perm[j];
			e->perm[j] = tmp;
		}
	e->run.perm = e->perm;
	return 0;
}

/*
 * Mbufs a plan needs. Every packet in the network holds credits of one
 * buffer (the one at the far end of the link it is on or waits for), so
 * the buffer space of all directed links, in packets, bounds the mbufs in
 * use; plus the lcores' mempool caches and some slack.
 */
/* Data room of an mbuf: the built-in packet, or with DPDK ports any frame
 * up to a standard mbuf's room. */
static uint32_t mbuf_room(const struct df_plan *pl)
{
	uint32_t room = pl->cfg.packet_bytes;

	/* DPDK ports, and the ports between instances (whose control
	 * frames are larger than a small packet), take standard mbufs */
	if ((pl->cfg.nbind || pl->cfg.ninst > 1) &&
	    room < RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_MBUF_DEFAULT_DATAROOM;
	return room;
}

/* Flits the output queues of one router port of class c hold at most
 * ([router] output_buffer_flits, per VC). */
static uint64_t oq_flits(const struct df_plan *pl, int c)
{
	return (uint64_t)port_vcs(pl, c) * pl->cfg.output_buffer_flits;
}

static uint64_t pool_mbufs(const struct df_plan *pl)
{
	const struct df_topo *t = &pl->topo;
	uint32_t pkt_flits = (pl->cfg.packet_bytes + pl->cfg.flit_bytes - 1) /
			     pl->cfg.flit_bytes;
	uint64_t flits = 2ULL * t->nterms * buffer_total(pl, DF_LINK_TERMINAL);
	uint64_t ports = 0;

	/* port frames can be one flit each; each port keeps its rx and tx
	 * descriptor rings (1024 each) and a burst filled */
	for (uint32_t i = 0; i < pl->cfg.nbind; i++)
		ports += pl->cfg.bind[i].hi - pl->cfg.bind[i].lo + 1;
	if (ports)
		pkt_flits = 1;

	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		if (t->ports[i].peer == DF_NO_PEER)
			continue;
		flits += oq_flits(pl, t->ports[i].cls);
		if (t->ports[i].cls != DF_LINK_TERMINAL)
			flits += buffer_total(pl, t->ports[i].cls);
	}
	return flits / pkt_flits + t->nterms * 2 + ports * (2 * 1024 + 64) +
	       (uint64_t)pl->nworkers * 512 + 1024;
}

static int build_pool(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	uint64_t n = pool_mbufs(pl);
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "dfpool%u", run_id);
	uint32_t room = mbuf_room(pl);

	e->run.pool = rte_pktmbuf_pool_create(
		name, (unsigned)n, 256, DP_PKT_PRIV_SIZE,
		RTE_PKTMBUF_HEADROOM + room, rte_socket_id());
	if (e->run.pool == NULL) {
		snprintf(e->err, e->errlen,
			 "cannot create a mempool of %llu mbufs of %u bytes: "
			 "%s; give EAL more memory (e.g. --eal -m 2048)",
			 (unsigned long long)n, pl->cfg.packet_bytes,
			 rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static void init_run(struct emu *e)
{
	const struct df_config *c = &e->pl->cfg;
	struct dp_run *run = &e->run;
	double term_bw = c->link[DF_LINK_TERMINAL].bandwidth_gbps;
	double slot = term_bw > 0 ? c->packet_bytes * 8.0 / term_bw : 0;

	run->tb = &e->pl->tb;
	run->eng = dp_routing_engine(c->algorithm, c->type == DF_TOPO_FLATFLY);
	run->ugal_bias = c->ugal_bias;
	run->credit_delay = df_alg_info(c->algorithm)->credit_delay;
	if (e->pl->tb.esc) {
		run->ring = &e->pl->ring;
		run->ring_bi = c->ring == DF_RING_BI;
		run->escape = c->escape;
		run->misroute_q8 =
			(uint32_t)(c->misroute_threshold * 256 + 0.5);
		run->trigger_q8 = (uint32_t)(c->misroute_trigger * 256 + 0.5);
		run->mis_policy = c->misroute_policy;
		run->mis_pick = c->misroute_pick;
		run->escape_cap = c->escape_cap;
		run->cm = c->cm;
		run->bcm_bubble = c->bcm_bubble;
		run->ecm_q8 = (uint32_t)(c->ecm_threshold * 256 + 0.5);
	}
	run->oq_cap = c->output_buffer_flits;
	run->inject_rest = c->finish == DF_FINISH_STOP;
	run->mode = c->mode;
	run->pattern = c->pattern;
	run->process = c->process;
	run->shift = c->shift;
	run->packet_bytes = c->packet_bytes;
	run->pkt_flits = (c->packet_bytes + c->flit_bytes - 1) / c->flit_bytes;
	run->flit_bytes = c->flit_bytes;
	/* a port frame must fit the terminal input buffer (VCT) and an
	 * mbuf of the pool (one segment) */
	run->max_frame = c->link[DF_LINK_TERMINAL].buffer_flits * c->flit_bytes;
	if (run->max_frame > RTE_MBUF_DEFAULT_DATAROOM)
		run->max_frame = RTE_MBUF_DEFAULT_DATAROOM;
	run->nterms = e->pl->topo.nterms;
	run->p = c->p;
	run->a = c->a;
	run->g = c->g;
	run->ln1m_load = log1p(-c->load);
	run->slot_q16 = (uint64_t)(slot * e->ehz / 1e9 * 65536.0);
	run->gap_q16 =
		c->load > 0 ? (uint64_t)(run->slot_q16 / c->load) : UINT64_MAX;
	run->idle_backoff = c->idle_backoff;
	run->idle_sleep_tsc = ns_to_tsc(e->hz, c->idle_sleep_us * 1000ULL);
	run->idle_margin_tsc = ns_to_tsc(e->hz, 20000);
}

static void sum_stats(const struct emu *e, struct dp_stats *s)
{
	dp_stats_sum(s, e->lc, e->pl->nworkers);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

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

/*
 * The terminals that offered traffic, the loads' divisor (README "The
 * report"): a terminal bound to a port when its port brought frames, the
 * others when the built-in generators sent any; in the measurement window
 * (window) or since the start. Ports that stay silent do not dilute the
 * load of those that send.
 */
static uint32_t load_sources(const struct emu *e, const struct dp_stats *s,
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
static void status_line(const struct emu *e, const struct df_emu_opts *o,
			uint64_t t0, uint64_t now, const char *phase,
			const struct dp_stats *s, struct dp_stats *prev,
			uint64_t *prev_t)
{
	const struct df_config *c = &e->pl->cfg;
	struct status v = {.el = (double)(now - t0) / e->ehz,
			   .phase = phase,
			   .in_flight = in_flight(s),
			   .delivered = s->delivered};
	double total = (c->warmup_ms + c->measure_ms) / 1e3;
	double dt = (double)(now - *prev_t) / e->ehz;
	double cap = c->link[DF_LINK_TERMINAL].bandwidth_gbps * 1e9 / 8 *
		     load_sources(e, s, 0) * dt;
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
			v.el, total, b, phase, v.off, v.acc,
			(unsigned long long)v.in_flight, v.lat / 1e3,
			v.late / 1e3, (unsigned long long)v.dropped);
		fflush(o->status);
	}
	if (o->csv)
		status_csv(o->csv, &v);
	*prev = *s;
	*prev_t = now;
}

/* Every packet generated in the window arrived or was dropped. */
static int measured_in(const struct dp_stats *s)
{
	return s->gen_measured == s->del_measured + s->drops_measured;
}

/* Every worker has run a whole sweep since generation was switched off. */
static int all_stopped(const struct emu *e)
{
	for (uint32_t w = 0; w < e->pl->nworkers; w++)
		if (!e->lc[w]->gen_off_done)
			return 0;
	rte_smp_rmb();
	return 1;
}

/* Phases: warm-up and measurement with generation on; then generation on
 * until every measured packet is in; then a drain of everything in flight
 * and of every credit message. */
/* Batch modes: packets all terminals generate in all. */
static uint64_t batch_total(const struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;

	return (uint64_t)n * (e->pl->cfg.mode == DF_MODE_ALL_TO_ALL
				      ? n - 1
				      : e->pl->cfg.batch_packets);
}

/*
 * Stall watchdog: a non-empty input VC whose head index has not moved for
 * watchdog_ms is stuck (a deadlock, or a starvation as bad). The main
 * lcore reads the workers' queue indices without locks: a torn read can
 * only delay the verdict by one check.
 */
struct watch {
	uint32_t *head;	 /* [router][port][vc]: head index last seen */
	uint64_t *since; /* TSC it was first seen there, 0 = moving/empty */
	uint64_t next;	 /* next check */
};

/* The flits free on each VC of port p, as "a/b/c" (for a diagnosis). */
static int credits_text(const struct dp_port *p, char *buf, size_t n)
{
	int len = 0;

	for (uint32_t v = 0; v < p->nvc && len < (int)n; v++)
		len += snprintf(buf + len, n - len, "%s%u", v ? "/" : "",
				p->credits[v]);
	return len;
}

/* A fully adaptive head (OFAR): the state of the outputs its rules
 * read, the minimal one and the escape ring's. */
static void ofar_waits_for(const struct dp_router *r, const struct dp_pkt *pk,
			   uint64_t now, char *buf, size_t n)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	const struct df_ring *ring = run->ring;
	uint32_t mp = r->id == pk->dst_router
			      ? pk->dst_term % run->p
			      : tb->port_to_router[r->id * tb->nrouters +
						   pk->dst_router];
	const struct dp_port *m = &r->port[mp];
	char mc[64], rc[64];
	int len;

	credits_text(m, mc, sizeof(mc));
	len = snprintf(buf, n,
		       "to router %u%s: no output it may take (fully "
		       "adaptive) has room for it; minimal port %u (%s) "
		       "credits %s of %u per VC, serializer %s",
		       pk->dst_router,
		       pk->flags & DP_PKT_ESCAPE ? ", in the escape ring" : "",
		       mp, df_link_class_name(m->cls), mc, m->credit_full[0],
		       m->out->busy_until > now ? "busy" : "free");
	if (ring != NULL && len < (int)n) {
		const struct dp_port *q = &r->port[ring->next[r->id]];
		const struct dp_port *f = &r->port[ring->prev[r->id]];
		const volatile struct dp_vcq *fq = &f->q[f->nvc - 1];

		credits_text(q, rc, sizeof(rc));
		snprintf(buf + len, n - len,
			 "; ring out port %u credits %s (escape VC last), "
			 "serializer %s; ring in port %u holds %u escape "
			 "packets",
			 ring->next[r->id], rc,
			 q->out->busy_until > now ? "busy" : "free",
			 ring->prev[r->id], fq->tail - fq->head);
	}
}

/* What the head packet of a stuck VC waits for, for the diagnosis. */
static void waits_for(const struct dp_router *r,
		      volatile const struct dp_vcq *q, uint64_t now, char *buf,
		      size_t n)
{
	const struct rte_mbuf *m = q->slot[q->head & q->mask];
	const struct dp_pkt *pk = dp_pkt((struct rte_mbuf *)(uintptr_t)m);
	const struct dp_port *op;

	if (r->eng->select != NULL) {
		ofar_waits_for(r, pk, now, buf, n);
		return;
	}
	if (pk->out_port == DF_PORT_NONE || pk->out_port >= r->nports) {
		snprintf(buf, n, "not routed yet (to router %u)",
			 pk->dst_router);
		return;
	}
	op = &r->port[pk->out_port];
	if (r->oq_cap) {
		snprintf(
			buf, n,
			"to router %u, routed to port %u (%s) vc%u: its output "
			"queue holds %u of %u flits, %u needed; downstream "
			"%u of %u credits free%s",
			pk->dst_router, pk->out_port,
			df_link_class_name(op->cls), pk->out_vc,
			op->oq[pk->out_vc].flits, r->oq_cap, pk->flits,
			op->credits[pk->out_vc], op->credit_full[pk->out_vc],
			op->out->down ? "; the link is down" : "");
		return;
	}
	snprintf(buf, n,
		 "to router %u, routed to port %u (%s) vc%u: %u of %u "
		 "credits free, %u needed; serializer %s%s",
		 pk->dst_router, pk->out_port, df_link_class_name(op->cls),
		 pk->out_vc, op->credits[pk->out_vc],
		 op->credit_full[pk->out_vc], pk->flits,
		 op->out->busy_until > now ? "busy" : "free",
		 op->out->down ? "; the link is down" : "");
}

static int watch_check(struct emu *e, struct watch *w, uint64_t now,
		       struct df_report *rep, FILE *dump)
{
	const struct df_topo *t = &e->pl->topo;
	uint64_t limit = ns_to_tsc(e->ehz, e->pl->cfg.watchdog_ms * 1000000ULL);
	uint32_t nstuck = 0;
	char why[400];

	if (w->head == NULL || limit == 0 || now < w->next)
		return 0;
	w->next = now + limit / 10 + 1;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < e->routers[r]->nports; k++) {
			const struct dp_port *p = &e->routers[r]->port[k];
			for (uint32_t v = 0; v < p->nvc; v++) {
				size_t i = ((size_t)r * t->nports + k) *
						   DF_MAX_VC +
					   v;
				volatile const struct dp_vcq *q = &p->q[v];
				uint32_t head = q->head, n = q->tail - head;
				if (n == 0 || head != w->head[i]) {
					w->head[i] = head;
					w->since[i] = n ? now : 0;
					continue;
				}
				if (w->since[i] == 0)
					w->since[i] = now;
				if (now - w->since[i] < limit)
					continue;
				double ms = (now - w->since[i]) * 1e3 / e->ehz;
				const char *cls = df_link_class_name(p->cls);
				waits_for(e->routers[r], q, now, why,
					  sizeof(why));
				if (nstuck++ == 0)
					snprintf(rep->stuck, sizeof(rep->stuck),
						 "router %u port %u (%s) vc%u: "
						 "its head packet has not "
						 "moved for %.0f ms, %u "
						 "packets queued",
						 r, k, cls, v, ms, n);
				/* the dump: every stuck VC, and what its
				 * head packet waits for */
				if (dump && nstuck <= 64)
					fprintf(dump,
						"dfemu: stuck: router %u port "
						"%u (%s) vc%u, %u queued, "
						"%.0f ms: head packet %s\n",
						r, k, cls, v, n, ms, why);
			}
		}
	if (nstuck && dump)
		fprintf(dump, "dfemu: %u VCs stuck%s\n", nstuck,
			nstuck > 64 ? " (64 shown)" : "");
	return nstuck != 0;
}

/*
 * A signal (Ctrl-C): the first ends the measurement window now (an empty
 * one during warm-up) and lets the measured packets drain as usual, so
 * the report stays true for the time measured; the second stops at once.
 * Returns 1 to stop now.
 */
static int interrupt(struct emu *e, const struct df_emu_opts *o, uint64_t now,
		     struct df_report *rep, uint64_t *deadline)
{
	uint64_t drain =
		ns_to_tsc(e->ehz, e->pl->cfg.drain_timeout_ms * 1000000ULL);

	struct dp_run *run = &e->run;

	if (*o->stop > 1) {
		rep->interrupted = 2;
		return 1;
	}
	if (rep->interrupted)
		return 0;
	rep->interrupted = 1;
	if (now + drain < *deadline)
		*deadline = now + drain;
	if (e->pl->cfg.mode != DF_MODE_STEADY) {
		run->gen_on = 0;
		return 0;
	}
	/* The end moves first: during warm-up, moving the start first would
	 * open a window [now, old end) for a moment. Workers read each with
	 * one aligned 64-bit load and decide a packet's window once, at
	 * generation (DP_SQ_MEASURED). */
	if (now < run->m1)
		run->m1 = now;
	rte_compiler_barrier();
	if (now < run->m0)
		run->m0 = now;
	return 0;
}

/*
 * Peers taken as lost (bits of *todo): out of the tables, their links
 * down (emu/control.c), each once the change before has settled. Returns
 * -1 when the run cannot go on without one (rep->part.lost_peer says
 * why).
 */
static int take_lost(struct emu *e, struct emu_ctl *ctl, uint32_t *todo,
		     uint64_t now, struct df_report *rep, FILE *status)
{
	char msg[320];

	for (uint32_t j = 0; j < DF_MAX_INST; j++) {
		const char *why = emu_inst_lost(e->inst, j);
		int rc;

		if (!(*todo & (1u << j)) || why == NULL)
			continue;
		rc = emu_ctl_instance_lost(ctl, j, why, now, msg, sizeof(msg));
		if (rc == 1)
			continue; /* again at the next turn */
		*todo &= ~(1u << j);
		fprintf(status, "\ndfemu: instance %u lost: %s\n", j, msg);
		if (rc < 0) {
			snprintf(rep->part.lost_peer,
				 sizeof(rep->part.lost_peer),
				 "instance %u lost: %.140s", j, msg);
			return -1;
		}
	}
	return 0;
}

/*
 * Run-time changes across instances (emu/control.h). Instance 0, before
 * its poll (announce = 0): may it make the next table change (every peer
 * settled the last), and may its bridge commit the one prepared (every
 * peer prepared it)? After (announce = 1): what it made, to the others.
 * The others, before: the announced changes in order, a table change
 * once the one before has settled here. Returns -1 when one cannot be
 * made here.
 */
static int changes_across(struct emu *e, struct emu_ctl *ctl, int announce,
			  uint64_t now, struct df_report *rep)
{
	char arg[64], msg[320];
	uint32_t v, staged = emu_ctl_staged(ctl);
	int kind, op;

	if (e->pl->cfg.instance == 0) {
		if (announce) {
			while (emu_ctl_announced(ctl, &kind, &v, &op, arg,
						 sizeof(arg)))
				emu_inst_announce(e->inst, kind, v, op, arg);
			return 0;
		}
		emu_ctl_peers_settled(
			ctl, emu_inst_settled(e->inst, emu_ctl_changes(ctl)));
		if (staged && emu_inst_prepared(e->inst, staged))
			e->run.tb_commit = staged; /* the bridge sends it */
		return 0;
	}
	while (!announce && !emu_ctl_settling(ctl) && !emu_ctl_staged(ctl) &&
	       emu_inst_next_change(e->inst, &kind, &v, &op, arg, sizeof(arg)))
		if (emu_ctl_follow(ctl, kind, v, op, arg, now, msg,
				   sizeof(msg))) {
			snprintf(rep->part.lost_peer,
				 sizeof(rep->part.lost_peer),
				 "instance 0's change could not be made here: "
				 "%.100s",
				 msg);
			return -1;
		}
	return 0;
}

static void run_phases(struct emu *e, const struct df_emu_opts *o,
		       struct df_report *rep)
{
	const struct df_config *c = &e->pl->cfg;
	struct dp_run *run = &e->run;
	uint32_t lost_todo = 0;
	uint64_t t0 = rte_rdtsc(), last_status = t0;
	uint64_t deadline;
	const char *volatile phase = "warmup";
	struct df_tel_view tv = {.pl = e->pl,
				 .lc = e->lc,
				 .routers = e->routers,
				 .terms = e->terms,
				 .links = e->links,
				 .nlinks = e->nlinks,
				 .hz = e->ehz,
				 .t0 = t0};
	struct dp_stats s, prev = {0};
	int batch = c->mode != DF_MODE_STEADY;
	size_t nvq =
		(size_t)e->pl->topo.nrouters * e->pl->topo.nports * DF_MAX_VC;
	struct watch w = {.head = calloc(nvq, sizeof(uint32_t)),
			  .since = calloc(nvq, sizeof(uint64_t))};
	struct emu_ctl *ctl;

	run->m0 = t0 + ns_to_tsc(e->ehz, c->warmup_ms * 1000000ULL);
	run->m1 = run->m0 + ns_to_tsc(e->ehz, c->measure_ms * 1000000ULL);
	if (batch) {
		/* every packet is measured; the time limit is the timeout */
		run->m0 = t0;
		run->m1 = UINT64_MAX;
		phase = "batch";
	}
	deadline = (batch ? t0 : run->m1) +
		   ns_to_tsc(e->ehz, c->drain_timeout_ms * 1000000ULL);
	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		struct dp_term *t = e->terms[i];
		unsigned seed = (unsigned)(c->seed * 7919 + i);

		/* a random phase within one slot: terminals not in lockstep */
		t->next_gen = c->load > 0
				      ? t0 + (uint64_t)((double)rand_r(&seed) /
							RAND_MAX *
							(run->slot_q16 >> 16))
				      : UINT64_MAX;
		t->gen_frac = 0;
		t->batch_left = c->mode == DF_MODE_ALL_TO_ALL
					? e->pl->topo.nterms - 1
					: c->batch_packets;
		/* all-to-all: a random order of the other terminals */
		t->a2a_k = 0;
		t->a2a_add = (uint32_t)rand_r(&seed) % (e->pl->topo.nterms - 1);
		do
			t->a2a_mul = 1 + (uint32_t)rand_r(&seed) %
						 (e->pl->topo.nterms - 1);
		while (df_gcd(t->a2a_mul, e->pl->topo.nterms - 1) != 1);
	}
	ctl = emu_ctl_start(e->pl, run, e->routers, e->terms, e->hz, e->ehz, t0,
			    e->err, e->errlen);
	run->gen_on = 1;
	rte_smp_wmb();
	for (uint32_t w = 0; w < e->pl->nworkers; w++)
		rte_eal_remote_launch(dp_worker_main, e->lc[w], e->lcore_id[w]);
	tv.phase = &phase;
	df_telemetry_attach(&tv);
	rep->drained = 0;
	for (;;) {
		uint64_t now;
		int done;

		sleep_ms(e->inst ? 5 : 1);
		df_capture_drain(e->cap);
		now = rte_rdtsc();
		df_linkuse_tick(&e->lu, e->links, e->nlinks, now, run->m0,
				run->m1);
		if (e->inst != NULL && changes_across(e, ctl, 0, now, rep)) {
			phase = "peer lost";
			break;
		}
		emu_ctl_poll(ctl, now);
		if (e->inst != NULL)
			changes_across(e, ctl, 1, now, rep);
		sum_stats(e, &s);
		if (now >= run->m0 && now < run->m1)
			phase = "measure";
		else if (now >= run->m1 && run->gen_on)
			phase = "finish"; /* measured packets still out */
		done = measured_in(&s);
		if (e->inst != NULL) {
			/* the whole network's measured packets, from every
			 * instance's counters */
			struct emu_inst_local l = {
				.s = &s,
				.gen_stopped = !run->gen_on && all_stopped(e),
				.settled = emu_ctl_settled(ctl),
				.prepared = emu_ctl_prepared(ctl)};
			uint32_t newly;
			if (emu_inst_poll(e->inst, &l, now, rep, &newly)) {
				phase = "peer lost";
				break;
			}
			lost_todo |= newly;
			if (lost_todo &&
			    take_lost(e, ctl, &lost_todo, now, rep,
				      o->status ? o->status : stderr)) {
				phase = "peer lost";
				break;
			}
			done = emu_inst_measured_done(e->inst, &l);
		}
		if (batch) {
			/* generated all it had to, and all arrived */
			if (s.generated == batch_total(e) && done) {
				run->gen_on = 0;
				rep->drained = 1;
			}
		} else {
			if (run->gen_on && now >= run->m1 &&
			    (done || c->finish == DF_FINISH_STOP)) {
				run->gen_on = 0;
				phase = "drain";
			}
			if (now >= run->m1 && done)
				rep->drained = 1;
		}
		if (o->stop && *o->stop &&
		    interrupt(e, o, now, rep, &deadline)) {
			phase = "stopped";
			break;
		}
		if (!run->gen_on && all_stopped(e)) {
			sum_stats(e, &s); /* after the acknowledgements */
			if (e->inst != NULL) {
				/* the whole network drained: the peers get
				 * what they need for their checks, and all
				 * stop once all are done */
				struct emu_inst_local l = {.s = &s,
							   .gen_stopped = 1};
				if (emu_inst_drained(e->inst, &l))
					emu_inst_finish(e->inst, e->lc,
							e->pl->nworkers);
				if (emu_inst_all_done(e->inst))
					break;
			} else if (in_flight(&s) == 0 &&
				   s.credits_out == s.credits_in) {
				/* the last packets may have arrived since
				 * done was read: judge on these counters */
				if (!batch && measured_in(&s))
					rep->drained = 1;
				break;
			}
		}
		if (now >= deadline) {
			phase = "timeout";
			break;
		}
		if (watch_check(e, &w, now, rep,
				o->status ? o->status : stderr)) {
			phase = "stuck";
			break;
		}
		if ((!o->quiet || o->csv) &&
		    now - last_status >= (uint64_t)e->hz) {
			status_line(e, o, t0, now, phase, &s, &prev,
				    &last_status);
		}
	}
	run->gen_on = 0;
	run->quit = 1;
	rte_eal_mp_wait_lcore();
	df_telemetry_attach(NULL);
	emu_ctl_finish(ctl, rep);
	free(w.head);
	free(w.since);
	rep->wall_s = (double)(rte_rdtsc() - t0) / e->hz;
	if (!o->quiet || o->csv) {
		sum_stats(e, &s);
		status_line(e, o, t0, rte_rdtsc(), phase, &s, &prev,
			    &last_status);
	}
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

/* Exactly once: per source, the delivered sequence numbers must be
 * 0..n-1, checked by count, sum and sum of squares (mod 2^64). */
static void check_delivery(const struct emu *e, struct df_report *rep)
{
	uint32_t nt = e->pl->topo.nterms;

	rep->exactly_once = 1;
	for (uint32_t i = 0; i < nt; i++) {
		unsigned __int128 n = e->terms[i]->seq;
		uint64_t cnt = 0, sum = 0, sq = 0;
		if (!df_part_local(&e->pl->cfg, e->terms[i]->router))
			continue; /* its own instance checks it */
		for (uint32_t w = 0; w < e->pl->nworkers; w++) {
			cnt += e->lc[w]->rx_cnt[i];
			sum += e->lc[w]->rx_sum[i];
			sq += e->lc[w]->rx_sq[i];
		}
		if (e->inst != NULL) /* delivered in the other instances */
			emu_inst_remote_rx(e->inst, i, &cnt, &sum, &sq);
		uint64_t esum = (uint64_t)(n * (n - (n > 0)) / 2);
		uint64_t esq =
			n ? (uint64_t)((n - 1) * n * (2 * n - 1) / 6) : 0;
		if (rep->part.nlost) { /* emu_inst_report set it */
			/* a lost instance took what it delivered with it */
			if (cnt > (uint64_t)n)
				rep->exactly_once = 0;
		} else if (cnt != (uint64_t)n || sum != esum || sq != esq) {
			rep->exactly_once = 0;
		}
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

/* UGAL-L_CR: what each network output measured and delayed. */
static void fill_outputs(const struct emu *e, struct df_report *rep)
{
	const struct df_topo *t = &e->pl->topo;
	double ns = 1e9 / e->ehz;

	if (!e->run.credit_delay)
		return;
	rep->outputs =
		calloc((size_t)t->nrouters * t->nports, sizeof(*rep->outputs));
	if (rep->outputs == NULL)
		return;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct dp_port *p = &e->routers[r]->port[k];
			struct df_output_report *o;

			if (p->ctq[0] == NULL)
				continue;
			o = &rep->outputs[rep->noutputs++];
			o->router = r;
			o->port = k;
			o->cls = p->cls;
			o->crt_samples = p->crt_n;
			o->crt_avg_ns =
				p->crt_n ? p->crt_sum * ns / p->crt_n : 0;
			o->crt0_ns = p->crt_n ? p->t_crt0 * ns : 0;
			o->td_last_ns = p->t_d * ns;
			o->delayed = p->cr_delayed;
			o->delay_avg_ns = p->cr_delayed ? p->cr_delay_sum * ns /
								  p->cr_delayed
							: 0;
			rep->cr_delayed += p->cr_delayed;
			rep->cr_delay_avg_ns += p->cr_delay_sum * ns;
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

static void fill_report(const struct emu *e, struct df_report *rep)
{
	const struct df_config *c = &e->pl->cfg;
	struct dp_stats s;
	struct dp_hist *lat = calloc(1, sizeof(*lat));
	struct dp_hist *late = calloc(1, sizeof(*late));
	double ns = 1e9 / e->ehz;
	double bw = c->link[DF_LINK_TERMINAL].bandwidth_gbps;
	double cap;
	uint32_t srcs;
	struct dp_term_ports ports;

	sum_stats(e, &s);
	srcs = load_sources(e, &s, 1);
	rep->c = s.c;
	rep->in_flight = in_flight(&s);
	dp_term_ports_sum(&ports, e->terms, e->pl->topo.nterms);
	rep->port_rx = ports.rx;
	rep->port_tx = ports.tx;
	rep->arp_replies = ports.arp_replies;
	rep->port_stalls = ports.stalls;
	rep->nterms = e->pl->topo.nterms;
	if (c->nbind)
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
	/* the window a signal may have cut short */
	rep->measure_s = (double)(e->run.m1 - e->run.m0) / e->ehz;
	if (c->mode != DF_MODE_STEADY) {
		/* loads over the time the batch took to arrive */
		rep->batch_time_ns = s.last_rx > e->run.m0
					     ? (s.last_rx - e->run.m0) * ns
					     : 0;
		rep->measure_s = rep->batch_time_ns / 1e9;
	}
	rep->tsc_hz = e->hz;
	rep->time_scale = e->ehz / e->hz;
	rep->nworkers = e->pl->nworkers;
	/* bytes a terminal link carries in the window, times the terminals
	 * that offered traffic (of this instance, when partitioned) */
	cap = bw * 1e9 / 8 * rep->measure_s;
	rep->offered_load =
		cap > 0 && srcs > 0 ? s.gen_bytes_window / (cap * srcs) : 0;
	rep->accepted_load =
		cap > 0 && srcs > 0 ? s.rx_bytes_window / (cap * srcs) : 0;
	fill_term_ports(e, rep, cap, bw * 1e9 / 8, ns);
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
	rep->lateness_ok = rep->late_p99_ns <= c->lateness_tolerance_ns;
	for (uint32_t i = 0; i < e->nlinks; i++) {
		const struct dp_link *l = &e->links[i];
		rep->link_tx_pkts[l->cls] += l->tx_pkts;
		if (l->cls != DF_LINK_TERMINAL &&
		    df_plan_crosses(e->pl, l->from, l->to))
			rep->cross_worker_pkts += l->tx_pkts;
	}
	rep->nrouters = e->pl->topo.nrouters;
	rep->router_min = calloc(rep->nrouters, sizeof(uint64_t));
	rep->router_nonmin = calloc(rep->nrouters, sizeof(uint64_t));
	for (uint32_t r = 0; r < e->pl->topo.nrouters; r++) {
		const struct dp_router *ro = e->routers[r];
		rep->router_hops += ro->forwarded;
		rep->decisions_min += ro->decisions_min;
		rep->decisions_nonmin += ro->decisions_nonmin;
		rep->redecisions += ro->redecisions;
		rep->switches += ro->switches;
		rep->mis_local += ro->mis_local;
		rep->mis_global += ro->mis_global;
		rep->esc_entries += ro->esc_entries;
		if (rep->router_min && rep->router_nonmin) {
			rep->router_min[r] = ro->decisions_min;
			rep->router_nonmin[r] = ro->decisions_nonmin;
		}
	}
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
	free(lat);
	free(late);
	check_credits(e, rep);
	check_delivery(e, rep);
}

/* Free what is still in the network (after a timeout) and every object. */
static void teardown(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;

	emu_inst_free(e->inst);
	df_linkuse_free(&e->lu);
	/* what is still on a link or in a queue (a run cut short) */
	for (uint32_t i = 0; e->links && i < e->nlinks; i++) {
		struct dp_link *l = &e->links[i];
		const struct dp_flight *f;
		while (l->pkt && (f = dp_link_peek(l)) != NULL) {
			rte_pktmbuf_free(f->m);
			dp_link_pop(l);
		}
	}
	for (uint32_t r = 0; e->routers && r < t->nrouters; r++) {
		struct dp_router *ro = e->routers[r];
		if (ro == NULL)
			continue;
		for (uint32_t k = 0; k < ro->nports; k++)
			for (uint32_t v = 0; v < DF_MAX_VC; v++) {
				struct dp_vcq *q = &ro->port[k].q[v];
				struct dp_oq *o = &ro->port[k].oq[v];
				for (; q->slot && q->head != q->tail; q->head++)
					rte_pktmbuf_free(
						q->slot[q->head & q->mask]);
				for (; o->slot && o->head != o->tail; o->head++)
					rte_pktmbuf_free(
						o->slot[o->head & o->mask].m);
			}
	}
	for (uint32_t i = 0; e->terms && i < t->nterms; i++) {
		struct dp_term *te = e->terms[i];
		if (te == NULL)
			continue;
		if (te->eth >= 0) {
			for (uint32_t j = te->in_i; j < te->in_n; j++)
				rte_pktmbuf_free(te->in[j]);
			rte_pktmbuf_free(te->held);
			rte_eth_dev_stop((uint16_t)te->eth);
			rte_eth_dev_close((uint16_t)te->eth);
		}
	}
	df_capture_free(e->cap, e->lc, pl->nworkers);
	for (uint32_t w = 0; e->lc && w < pl->nworkers; w++) {
		struct dp_lcore *lc = e->lc[w];
		if (lc == NULL)
			continue;
		rte_free(lc->rx_cnt);
		rte_free(lc->rx_sum);
		rte_free(lc->rx_sq);
		rte_free(lc->port_lat);
		free(lc->routers);
		free(lc->terms);
		rte_free(lc);
	}
	rte_mempool_free(e->run.pool);
	emu_arena_free(&e->mem);
	free(e->routers);
	free(e->terms);
	free(e->lc);
	free(e->lcore_id);
	free(e->perm);
	free(e->port_idx);
	free(e->macs);
	free(e->ips);
	dp_addr_free(&e->run.mac_tab);
	dp_addr_free(&e->run.ip_tab);
}

int df_emulate(const struct df_plan *pl, const struct df_emu_opts *opt,
	       struct df_report *rep, char *err, size_t errlen)
{
	struct emu e = {
		.pl = pl, .hz = opt->tsc_hz, .err = err, .errlen = errlen};
	int rc = -1;

	/* auto (0) is chosen before: emu/timescale.c */
	e.ehz = e.hz * (pl->cfg.time_scale > 0 ? pl->cfg.time_scale : 1);

	memset(rep, 0, sizeof(*rep));
	run_id++;
	init_run(&e);
	if (build_lcores(&e) || build_links(&e) || build_nodes(&e) ||
	    build_pool(&e))
		goto out;
	if ((pl->cfg.pattern == DF_PAT_PERMUTATION && build_perm(&e)) ||
	    build_macs(&e)) {
		snprintf(err, errlen, "out of memory for the traffic tables");
		goto out;
	}
	if (build_ports(&e) || build_capture(&e))
		goto out;
	if (pl->cfg.ninst > 1) {
		e.inst = emu_inst_setup(pl, e.links, &e.run, e.hz, err, errlen);
		if (e.inst == NULL ||
		    emu_inst_handshake(e.inst, opt->stop,
				       opt->quiet ? NULL : stderr, err, errlen))
			goto out;
		e.lc[0]->bridge = emu_inst_bridge(e.inst);
	}
	assign(&e);
	if (build_wakes(&e))
		goto out;
	e.run.routers = e.routers;
	run_phases(&e, opt, rep);
	df_capture_finish(e.cap, rep);
	fill_report(&e, rep);
	if (df_linkuse_report(&e.lu, e.links, e.nlinks, rte_rdtsc(), rep))
		goto out;
	rc = 0;
out:
	teardown(&e);
	return rc;
}

/* The dataplane state a plan allocates from the arena (build_links,
 * build_nodes): link FIFOs, VC queues, routers, terminals, source queues
 * (UGAL-L_CR's credit queues as much again as the VC queues). */
uint64_t df_emulate_state_bytes(const struct df_plan *pl)
{
	const struct df_topo *t = &pl->topo;
	uint32_t sq = rte_align32pow2(pl->cfg.source_queue);
	uint64_t b = 0;

	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		const struct df_port_info *pi = &t->ports[i];
		uint32_t flits = pl->cfg.link[pi->cls].buffer_flits;
		uint32_t nvc = port_vcs(pl, pi->cls);
		uint64_t vcq = (uint64_t)nvc * rte_align32pow2(flits) * 8;

		if (pi->peer == DF_NO_PEER)
			continue;
		/* its input queues, output queues, and the link it sends
		 * on */
		b += vcq *
		     (df_alg_info(pl->cfg.algorithm)->credit_delay ? 4 : 1);
		if (pl->cfg.output_buffer_flits)
			b += (uint64_t)nvc *
			     rte_align32pow2(pl->cfg.output_buffer_flits) *
			     sizeof(struct dp_flight);
		b += sizeof(struct dp_port) + link_bytes(pl, pi->cls);
		/* a terminal's port: its link to the router too */
		if (pi->cls == DF_LINK_TERMINAL)
			b += link_bytes(pl, pi->cls);
	}
	b += (uint64_t)t->nrouters * sizeof(struct dp_router);
	b += (uint64_t)t->nterms * (sizeof(struct dp_term) + sq * 8);
	/* per worker: the wheel, the exactly-once sums, notes from the
	 * others and their wakes */
	b += (uint64_t)pl->nworkers *
	     (sizeof(struct dp_wheel) + 3 * 8ULL * t->nterms);
	if (pl->nworkers > 1)
		b += (uint64_t)pl->nworkers * (pl->nworkers - 1) *
			     (sizeof(struct dp_notify_q) +
			      NOTES * sizeof(struct dp_note)) +
		     2ULL * t->nrouters * t->nports * sizeof(void *);
	return b;
}

uint64_t df_emulate_mem_bytes(const struct df_plan *pl)
{
	uint64_t mbufs = pool_mbufs(pl);

	/* mbufs (data, headroom, private area, header), and the state */
	return mbufs * (uint64_t)(mbuf_room(pl) + 512) +
	       df_emulate_state_bytes(pl);
}
