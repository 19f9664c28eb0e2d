/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * From a checked plan to a dataplane: links, rings, routers and terminals
 * are carved from the arena here (with emu/sizing.c and emu/traffic.c,
 * the only place that knows both control/ and dataplane/), the lcores'
 * state, their wheels and notes; and all of it freed at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "emu_capture.h"
#include "emu_int.h"
#include "instances.h"
#include "partition.h"
#include "routing.h"
#include "terminals.h"

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
	uint32_t cap = emu_log_cap(e->pl, cls), nvc = emu_link_vcs(e->pl, cls);
	struct dp_vcslot *slots;
	uint8_t *vcs, *cvcs;

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
	/* cut-through: a packet is due at the next router once its head
	 * flit has arrived ([OC] §V); a terminal takes it whole */
	l->head_bytes = to_router && e->pl->cfg.switching == DF_SW_CUT_THROUGH
				? (uint16_t)e->pl->cfg.flit_bytes
				: 0;
	/* 8 bits per byte at bandwidth_gbps bits per ns */
	l->cyc_per_byte_q16 = lp->bandwidth_gbps > 0
				      ? (uint64_t)(8.0 / lp->bandwidth_gbps *
						   e->ehz / 1e9 * 65536.0)
				      : 0;
	l->mask = cap - 1;
	slots = emu_arena_alloc(&e->mem, dp_link_nslots(nvc, lp->buffer_flits) *
						 sizeof(*slots));
	vcs = emu_arena_alloc(&e->mem, cap);
	cvcs = emu_arena_alloc(&e->mem, cap);
	if (slots == NULL || vcs == NULL || cvcs == NULL)
		return oom(e, "link rings");
	dp_link_rings(l, slots, vcs, cvcs, nvc, lp->buffer_flits);
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
 * for the link we receive from, in that link's rings (port.h). */
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
	if (queues && in->nvc < nvc) {
		snprintf(e->err, e->errlen,
			 "internal: a port of %u VCs on a link of %u", nvc,
			 in->nvc);
		return -1;
	}
	for (uint32_t v = 0; v < nvc; v++) {
		p->credits[v] = p->credit_full[v] = flits;
		if (!queues)
			continue;
		p->q[v].slot = in->ring.rx.s[v];
		p->q[v].mask = in->ring.rx.mask;
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
int emu_build_capture(struct emu *e)
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

/* The routing engine's state comes from the arena (routing.h, init). */
static void *eng_zalloc(void *ctx, size_t size)
{
	return emu_arena_alloc(ctx, size);
}

static int build_nodes(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;
	uint32_t rp = t->nrouters * t->nports, sq;
	const struct dp_eng_mem mem = {.zalloc = eng_zalloc, .ctx = &e->mem};
	/* an engine that reads no occupancy, or only its own router's
	 * when it reads (routing.h, own_occ): lazy senders (below) */
	int lazy = (!df_alg_info(pl->cfg.algorithm)->adaptive ||
		    e->run.eng->own_occ) &&
		   e->run.eng->credit == NULL && e->run.eng->select == NULL;

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
		/* from the run's seed and its global id only: every instance
		 * and placement gives router r the same draws */
		ro->rng = dp_rand_seed(pl->cfg.seed, DP_RAND_ROUTER, r);
		ro->nports = t->nports;
		ro->nq = t->nports * DP_VC_STRIDE;
		ro->nqw = (ro->nq + 63) / 64;
		ro->lc = e->lc[pl->worker_of[r]];
		ro->eng = e->run.eng;
		ro->oq_cap = pl->cfg.output_buffer_flits;
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
			/* OFAR: the escape VC. Only the ring's (or tree's)
			 * links use it, but every router-to-router port has
			 * it: a link failure lays the escape again over
			 * other links (emu/changes.c) */
			int esc = (pl->ring.n > 1 || pl->tree.n > 1) &&
				  pi->cls != DF_LINK_TERMINAL;
			if (port_init(e, &ro->port[k], pi->cls, out, in, 1,
				      esc))
				return -1;
			/* an engine that reads no occupancy: its routers
			 * take their credits from the slots when they send
			 * (dataplane/port.h, dp_port_credits_vc), with no
			 * credit log and no credit wake; a router of another
			 * instance is no sender here: the bridge is, which
			 * reads the log (dataplane/bridge.c, send_credits) */
			if (lazy && df_part_local(&pl->cfg, r))
				out->cvcs = NULL;
		}
		if (ro->eng->init != NULL &&
		    ro->eng->init(ro, &pl->cfg, &mem) != 0)
			return oom(e, "the routing engine's state");
	}
	sq = rte_align32pow2(pl->cfg.source_queue);
	e->run.src_queue_mask = sq - 1;
	for (uint32_t i = 0; i < t->nterms; i++) {
		struct dp_term *te = emu_arena_alloc(&e->mem, sizeof(*te));
		if (te == NULL)
			return oom(e, "terminals");
		e->terms[i] = te;
		te->id = i;
		te->rng = dp_rand_seed(pl->cfg.seed, DP_RAND_TERM, i);
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
		/* a terminal reads no occupancy: it takes its credits from
		 * the slots when it sends, as a lazy router (a terminal with
		 * packets to send stays active, dp_term_busy; one bound to a
		 * port is polled at every step) */
		e->links[rp + i].cvcs = NULL;
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
		lc->rx_cnt = rte_zmalloc(NULL, nt * sizeof(uint64_t), 0);
		lc->rx_hash = rte_zmalloc(NULL, nt * sizeof(uint64_t), 0);
		lc->routers = calloc(pl->topo.nrouters, sizeof(void *));
		lc->terms = calloc(nt, sizeof(void *));
		lc->port_lat = rte_zmalloc(
			NULL, (e->nports + 1) * sizeof(struct dp_hist), 0);
		if (!lc->rx_cnt || !lc->rx_hash || !lc->routers || !lc->terms ||
		    !lc->port_lat)
			goto oom;
	}
	return 0;
oom:
	snprintf(e->err, e->errlen, "out of memory for lcore state");
	return -1;
}

int emu_build(struct emu *e)
{
	return build_lcores(e) || build_links(e) || build_nodes(e) ? -1 : 0;
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

/* Port p of a router on worker lc is fed from another instance: its
 * two FIFOs among those whose heads bound the worker's next step
 * (dataplane/worker.c, xlinks_next). */
static int xlinks_add(struct emu *e, struct dp_lcore *lc, struct dp_port *p)
{
	if (lc->xlinks == NULL) {
		uint32_t ports = 0;

		for (uint32_t j = 0; j < lc->nrouters; j++)
			ports += lc->routers[j]->nports;
		lc->xlinks =
			emu_arena_alloc(&e->mem, 2 * ports * sizeof(p->in));
		if (lc->xlinks == NULL)
			return oom(e, "links from other instances");
	}
	lc->xlinks[2 * lc->nxlinks] = p->in;
	lc->xlinks[2 * lc->nxlinks + 1] = p->out;
	lc->nxlinks++;
	return 0;
}

/*
 * Each worker's wheel and active nodes (dataplane/wheel.h). A link whose
 * two ends run on one worker wakes its consumers through that worker's
 * wheel; one from another worker through notes (dataplane/notify.h); a
 * link from another instance has no wake: the router's port is polled
 * on every sweep, and the due time at its head bounds the next one.
 * Every node starts active.
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
		lc->wheel->soon = emu_arena_alloc(
			&e->mem, (words + 1) * sizeof(uint64_t));
		lc->pollers = emu_arena_alloc(&e->mem,
					      (words + 1) * sizeof(uint64_t));
		if (lc->wheel->active == NULL || lc->wheel->soon == NULL ||
		    lc->pollers == NULL)
			return oom(e, "timing wheels");
		lc->wheel->nwords = words;
		lc->wheel->quantum = e->run.quantum;
		for (uint32_t i = 0; i < n; i++)
			lc->wheel->active[i / 64] |= 1ULL << (i % 64);
		for (uint32_t i = 0; i < lc->nterms; i++) {
			struct dp_term *te = lc->terms[i];
			te->node = i;
			if (te->eth >= 0) { /* its port: polled every step */
				lc->pollers[i / 64] |= 1ULL << (i % 64);
				lc->npollers++;
			}
			wake_target(&te->port.in->pkt_wake, lc->wheel,
				    &te->poll, DP_TERM_POLL_PKT, i);
			wake_target(&te->port.out->cred_wake, lc->wheel,
				    &te->poll, DP_TERM_POLL_CRED, i);
			wake_target(&te->gen_wake, lc->wheel, &te->poll,
				    DP_TERM_POLL_GEN, i);
		}
		for (uint32_t j = 0; j < lc->nrouters; j++) {
			struct dp_router *ro = lc->routers[j];
			ro->node = lc->nterms + j;
			/* parked: until an output's serializer is free
			 * (dataplane/router.c, park) */
			for (unsigned pw = 0; pw < RTE_DIM(ro->park_wake); pw++)
				wake_target(&ro->park_wake[pw], lc->wheel,
					    &ro->park_poll, 0, ro->node);
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
				wake_target(&p->in->pkt_wake, wh, &ro->poll_pkt,
					    k, ro->node);
				wake_target(&p->out->cred_wake, wh,
					    &ro->poll_cred, k, ro->node);
				p->in->wheel = p->out->wheel =
					bridged || crosses ? NULL : lc->wheel;
				if (crosses)
					wake_by_notes(lc, w,
						      pl->worker_of[pi->peer],
						      p);
				else if (bridged)
					ro->always |= 1ULL << k;
				if (bridged && xlinks_add(e, lc, p))
					return -1;
			}
			if (ro->always) { /* polled every step */
				lc->pollers[ro->node / 64] |=
					1ULL << (ro->node % 64);
				lc->npollers++;
			}
		}
	}
	return 0;
}

int emu_build_wakes(struct emu *e)
{
	assign(e);
	return build_wakes(e);
}

void emu_init_run(struct emu *e)
{
	const struct df_config *c = &e->pl->cfg;
	struct dp_run *run = &e->run;
	double term_bw = c->link[DF_LINK_TERMINAL].bandwidth_gbps;
	double slot = term_bw > 0 ? c->packet_bytes * 8.0 / term_bw : 0;

	run->tb = &e->pl->tb;
	run->eng = dp_routing_engine(c->algorithm, c->type == DF_TOPO_FLATFLY);
	run->ugal_bias = c->ugal_bias;
	if (e->pl->tb.esc) {
		int tree = c->escape_net == DF_ESC_TREE;

		dp_ofar_run_init(&e->ofar, c, tree ? NULL : &e->pl->ring,
				 tree ? &e->pl->tree : NULL);
		run->eng_run = &e->ofar;
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
	run->quantum = df_config_quantum(c);
	run->bridge_gap_tsc = ns_to_tsc(e->hz, 1000);
	run->ckpt = 16 * run->quantum;
	run->finish_keep =
		c->mode == DF_MODE_STEADY && c->finish == DF_FINISH_KEEP;
	run->paced = c->pace == DF_PACE_REALTIME;
	run->once_key = dp_once_key(c->seed);
	run->nworkers = e->pl->nworkers;
}

/* Free what is still in the network (after a timeout) and every object. */
void emu_teardown(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	const struct df_topo *t = &pl->topo;

	emu_inst_free(e->inst);
	/* what is still on a link (a run cut short): the slots not taken
	 * yet; the input queues' below */
	for (uint32_t i = 0; e->links && i < e->nlinks; i++) {
		struct dp_vcring *rg = &e->links[i].ring;
		for (uint32_t v = 0; v < e->links[i].nvc; v++)
			for (uint32_t j = rg->rx.taken[v]; j != rg->tx.tail[v];
			     j++)
				rte_pktmbuf_free(
					rg->rx.s[v][j & rg->rx.mask].m);
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
					rte_pktmbuf_free(dp_vcq_head(q));
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
		rte_free(lc->rx_hash);
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
