/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch allocation (dataplane/router.c, the code the datapath runs) on one
 * crafted router, no EAL: input queues that want one output with room for
 * a packet per step take turns, two or three of them, also when another
 * queue after them in the router's order moves on every step (it used to
 * bring the router's round-robin start back to the same place, so that
 * the first rival took every credit and the other starved:
 * test_dataplane's "small permutation min" timed out), with and without
 * output queues (the papers' router, xbar.h); and an output's turn
 * orders the queues, it does not reserve: a queue whose VC has no
 * credits does not hold up one whose VC has. The same with OFAR, which
 * chooses the output at every attempt (select): inputs ejecting to one
 * terminal take turns (they took every turn, one of them, before its
 * choice waited for the output's turn too). And parking: a router whose
 * packets wait only for busy serializers sleeps until the first is free,
 * on a wheel of its own here.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lone_router.h"
#include "ofar_run.h"
#include "router.h"
#include "routing.h"
#include "worker.h"

#define NPORTS LONE_PORTS /* 0 terminal, 1 and 2 local, 3 global */
#define NVC    2
#define FLITS  4
#define DEPTH  8    /* packets per input queue */
#define FIFO   4096 /* entries of each link ring and credit FIFO */
#define STEPS  300

struct pkt_mem {
	struct rte_mbuf m;
	struct dp_pkt pk;
};

struct rig {
	struct dp_run run;
	struct dp_lcore *lc;
	struct dp_router *r;
	struct dp_link out[NPORTS], in[NPORTS];
	struct pkt_mem pkts[NPORTS][NVC][DEPTH];
	struct dp_flight oqslot[NPORTS][NVC][DEPTH];
};

static int link_init(struct dp_link *l)
{
	struct dp_vcslot *slots =
		calloc(dp_link_nslots(NVC, FIFO), sizeof(*slots));

	uint8_t *vcs = calloc(NVC * FIFO, 1), *cvcs = calloc(NVC * FIFO, 1);

	memset(l, 0, sizeof(*l));
	l->mask = NVC * FIFO - 1;
	if (slots == NULL || vcs == NULL || cvcs == NULL)
		return -1;
	dp_link_rings(l, slots, vcs, cvcs, NVC, FIFO);
	return 0;
}

static int rig_init(struct rig *g)
{
	memset(g, 0, sizeof(*g));
	if (lone_router(&g->run, &g->lc, &g->r))
		return -1;
	g->r->eng = &dp_min_engine;
	g->r->nq = NPORTS * DP_VC_STRIDE;
	g->r->nqw = (g->r->nq + 63) / 64;
	for (int k = 0; k < NPORTS; k++) {
		struct dp_port *p = &g->r->port[k];

		if (link_init(&g->out[k]) || link_init(&g->in[k]))
			return -1;
		p->nvc = NVC;
		p->out = &g->out[k];
		p->in = &g->in[k];
		for (int v = 0; v < NVC; v++) {
			/* the queue in the incoming link's ring (port.h) */
			p->q[v].slot = g->in[k].ring.rx.s[v];
			p->q[v].mask = g->in[k].ring.rx.mask;
			p->oq[v].slot = g->oqslot[k][v];
			p->oq[v].mask = DEPTH - 1;
		}
	}
	return 0;
}

static void rig_free(struct rig *g)
{
	for (int k = 0; k < NPORTS; k++) {
		free(g->out[k].ring.tx.s[0]);
		free(g->out[k].vcs);
		free(g->out[k].cvcs);
		free(g->in[k].ring.tx.s[0]);
		free(g->in[k].vcs);
		free(g->in[k].cvcs);
	}
	free(g->r);
	free(g->lc);
}

/* Input queue (port k, VC v) full of packets routed to output o, VC ov
 * (routed on arrival, as in transit); for OFAR, which routes them itself,
 * packets to this router's port o (run.p terminals). */
static void put(struct rig *g, uint32_t k, uint32_t v, uint32_t o, uint32_t ov)
{
	struct dp_vcq *q = &g->r->port[k].q[v];
	struct pkt_mem *pm = &g->pkts[k][v][q->tail % DEPTH];

	memset(pm, 0, sizeof(*pm));
	pm->m.pkt_len = 256;
	pm->pk.flits = FLITS;
	pm->pk.vc = (uint8_t)v;
	pm->pk.out_port = (uint8_t)o;
	pm->pk.out_vc = (uint8_t)ov;
	pm->pk.dst_router = (uint16_t)g->r->id;
	pm->pk.dst_term = o;
	/* it came on the link: its slot, which its credit frees */
	if (dp_link_push(&g->in[k], v, &pm->m, FLITS, 0) != 0 ||
	    dp_link_peek(&g->in[k]) == NULL)
		abort();
	dp_link_pop(&g->in[k]);
	q->tail++;
	g->r->port[o].waiting[ov] += FLITS;
	g->r->qmask[0] |= 1ULL << (k * DP_VC_STRIDE + v);
}

static void fill(struct rig *g, uint32_t k, uint32_t v, uint32_t o, uint32_t ov)
{
	struct dp_vcq *q = &g->r->port[k].q[v];

	while (q->tail - q->head < DEPTH)
		put(g, k, v, o, ov);
}

/* What left on the links is gone: empty every FIFO. */
static void drain(struct rig *g)
{
	for (int k = 0; k < NPORTS; k++) {
		for (int v = 0; v < NVC; v++)
			g->out[k].ring.rx.head[v] = g->out[k].ring.tx.tail[v];
		g->in[k].ctaken = g->in[k].cseen = g->in[k].cfreed;
	}
}

struct rival {
	uint32_t port, vc, out_vc;
	uint32_t sent;
};

/* The output the rivals want, and the queue (port, VC) after them in the
 * router's order that moves on every step to output mout, which has room
 * for all. */
struct scene {
	uint32_t out;
	uint32_t mport, mvc, mout;
};

/* With the engines that decide and route: rivals for output 3, the
 * global input's VC 0 moving to the terminal. */
static const struct scene to_global = {3, 3, 0, 0};

/*
 * Rivals for output sc->out, each with room (on its VC) for one packet per
 * step, and the mover; cred[v]: credits given to the output's VC v before
 * each step. oq_cap: with output queues of that many flits per VC (the
 * papers' router, xbar.h; zero-time crossings and links), where the room
 * is in the output queue: one packet's worth, and the link empties it in
 * the same step.
 */
/* Every queue empty, every serializer free, output queues of oq_cap
 * flits (0: none). */
static void reset(struct rig *g, uint32_t oq_cap)
{
	for (int k = 0; k < NPORTS; k++) {
		struct dp_port *p = &g->r->port[k];
		/* each race's clock starts again at 1000 */
		g->out[k].busy_until = 0;
		for (int v = 0; v < NVC; v++) {
			p->q[v].head = p->q[v].tail;
			p->q[v].last_start = 0;
			p->waiting[v] = 0;
			p->oq[v].head = p->oq[v].tail = 0;
			p->oq[v].flits = 0;
			p->oq[v].room_t = 0;
		}
		p->xin_free = p->xout_free = 0;
	}
	g->r->qmask[0] = 0;
	g->r->oq_ports = 0;
	g->r->oq_cap = g->run.oq_cap = oq_cap;
}

static void race(struct rig *g, const struct scene *sc, struct rival *rv, int n,
		 const uint32_t *cred, uint32_t oq_cap)
{
	reset(g, oq_cap);
	for (int i = 0; i < n; i++)
		rv[i].sent = 0;
	for (uint64_t s = 0; s < STEPS; s++) {
		uint32_t before[4];

		fill(g, sc->mport, sc->mvc, sc->mout, 0);
		g->r->port[sc->mout].credits[0] = 1000;
		for (int v = 0; v < NVC; v++)
			g->r->port[sc->out].credits[v] = cred[v];
		for (int i = 0; i < n; i++) {
			fill(g, rv[i].port, rv[i].vc, sc->out, rv[i].out_vc);
			before[i] = g->r->port[rv[i].port].q[rv[i].vc].head;
		}
		dp_router_step(g->r, 1000 + 100 * s);
		for (int i = 0; i < n; i++)
			rv[i].sent += g->r->port[rv[i].port].q[rv[i].vc].head -
				      before[i];
		drain(g);
	}
}

/*
 * OFAR at the packets' destination router (run.p = 2: ports 0 and 1 are
 * terminals): rivals ejecting to terminal 0, one packet's room a step,
 * and the global input's VC 1 ejecting to terminal 1 on every step. Each
 * rival's select chooses terminal 0 at every attempt; the one after
 * terminal 0's pointer goes first.
 */
static void ofar(struct rig *g, const uint32_t *one)
{
	static const struct scene to_term = {0, 3, 1, 1};
	struct rival rv[3] = {{1, 0, 0, 0}, {2, 0, 0, 0}, {3, 0, 0, 0}};
	/* no escape, no misroutes: the minimal output, or none */
	struct dp_ofar_run of;

	memset(&of, 0, sizeof(of));
	g->r->eng = &dp_ofar_engine;
	g->run.eng_run = &of;
	g->run.p = 2;
	g->r->port[1].cls = DF_LINK_TERMINAL;
	for (uint32_t oq = 0; oq <= FLITS; oq += FLITS) {
		const char *how = oq ? "OFAR, output queues" : "OFAR";

		race(g, &to_term, &rv[1], 2, one, oq);
		CHECK(rv[1].sent == STEPS / 2 && rv[2].sent == STEPS / 2,
		      "%s: two inputs ejecting to one terminal take turns "
		      "(%u, %u)",
		      how, rv[1].sent, rv[2].sent);
		race(g, &to_term, rv, 3, one, oq);
		CHECK(rv[0].sent == STEPS / 3 && rv[1].sent == STEPS / 3 &&
			      rv[2].sent == STEPS / 3,
		      "%s: three take turns (%u, %u, %u)", how, rv[0].sent,
		      rv[1].sent, rv[2].sent);
	}
	g->r->port[1].cls = DF_LINK_LOCAL;
	g->run.p = 0;
	g->run.eng_run = NULL;
	g->r->eng = &dp_min_engine;
}

/*
 * Parking (router.c, park): a router whose queued packet waits for a busy
 * serializer is not busy, and its wake fires once the serializer is free,
 * not before; a packet that must leave sooner than that wake takes the
 * router's other wake; a packet that waits for credits keeps the router
 * busy (a credit wakes it, but a fault would not).
 */
static void parking(struct rig *g)
{
	struct dp_wheel *wh = calloc(1, sizeof(*wh));
	struct dp_router *r = g->r;
	struct dp_wake w[2];
	uint8_t *cvcs;
	uint32_t ecred;
	uint64_t active = 0, t0 = 1 << 20;
	uint32_t head;

	if (wh == NULL) {
		CHECK(0, "parking: wheel");
		return;
	}
	wh->active = &active;
	wh->cur = t0 >> DP_WHEEL_SHIFT;
	wh->cur1 = t0 >> DP_WHEEL_SHIFT1;
	for (unsigned i = 0; i < RTE_DIM(r->park_wake); i++) {
		r->park_wake[i].wh = wh;
		r->park_wake[i].poll = &r->park_poll;
		r->park_wake[i].bit = 1;
	}
	reset(g, 0);
	r->port[3].credits[0] = r->port[2].credits[0] = 1000;
	g->out[3].busy_until = t0 + 5000;
	put(g, 1, 0, 3, 0);
	dp_router_step(r, t0);
	CHECK(r->port[1].q[0].head != r->port[1].q[0].tail &&
		      !dp_router_busy(r) &&
		      r->park_wake[0].state == DP_WAKE_QUEUED &&
		      r->park_wake[0].due == t0 + 5000,
	      "a packet waiting for a busy serializer: the router parks "
	      "until it is free (busy %d, wake due %+lld)",
	      dp_router_busy(r), (long long)(r->park_wake[0].due - t0));
	/* a packet for output 2, free sooner: the other wake */
	g->out[2].busy_until = t0 + 1000;
	put(g, 2, 0, 2, 0);
	dp_router_step(r, t0 + 10);
	CHECK(!dp_router_busy(r) && r->park_wake[1].state == DP_WAKE_QUEUED &&
		      r->park_wake[1].due == t0 + 1000,
	      "a packet whose serializer is free sooner: the other wake, "
	      "at that time (due %+lld)",
	      (long long)(r->park_wake[1].due - t0));
	/* (a fine slot fires from its first cycle on) */
	dp_wheel_advance(wh, t0 + 1000 - (1 << DP_WHEEL_SHIFT));
	CHECK(active == 0, "no wake fires a slot before the serializer is "
			   "free");
	dp_wheel_advance(wh, t0 + 1000 + (1 << DP_WHEEL_SHIFT));
	CHECK(active == 1 && r->park_wake[0].state == DP_WAKE_QUEUED,
	      "the sooner wake fires when its serializer is free, the later "
	      "one waits");
	head = r->port[2].q[0].head;
	dp_router_step(r, t0 + 1000 + (1 << DP_WHEEL_SHIFT));
	CHECK(r->port[2].q[0].head == head + 1 && !dp_router_busy(r),
	      "then its packet leaves, and the router parks again");
	/* credits: an eager sender's wake the router when they come (their
	 * link's credit log); a lazy sender's wake nobody */
	reset(g, 0);
	r->port[3].credits[0] = 0;
	g->out[3].busy_until = 0;
	put(g, 1, 0, 3, 0);
	w[0] = r->park_wake[0];
	w[1] = r->park_wake[1];
	dp_router_step(r, t0 + 6000);
	CHECK(!dp_router_busy(r) && r->parked &&
		      r->park_wake[0].state == w[0].state &&
		      r->park_wake[0].due == w[0].due &&
		      r->park_wake[1].state == w[1].state &&
		      r->park_wake[1].due == w[1].due,
	      "a packet waiting for an eager sender's credits: the router "
	      "parks, with no timer");
	/* the same link as a lazy sender's, none of its slots freed */
	cvcs = g->out[3].cvcs;
	ecred = g->out[3].ecred[0];
	g->out[3].cvcs = NULL;
	g->out[3].ecred[0] = g->out[3].ring.rx.head[0];
	dp_router_step(r, t0 + 6010);
	CHECK(dp_router_busy(r) && !r->parked && g->lc->next_event == t0 + 6010,
	      "a packet waiting for a lazy sender's credits: the router "
	      "stays busy");
	g->out[3].cvcs = cvcs;
	g->out[3].ecred[0] = ecred;
	reset(g, 0);
	for (unsigned i = 0; i < RTE_DIM(r->park_wake); i++)
		r->park_wake[i].wh = NULL;
	free(wh);
}

int main(void)
{
	struct rig g;
	static const uint32_t one[NVC] = {FLITS, 0}, each[NVC] = {FLITS, FLITS};

	if (rig_init(&g)) {
		CHECK(0, "rig");
		return check_done();
	}
	{
		/* the terminal's queue, then a local input's */
		struct rival rv[2] = {{0, 0, 0, 0}, {1, 0, 0, 0}};
		race(&g, &to_global, rv, 2, one, 0);
		CHECK(rv[0].sent + rv[1].sent == STEPS,
		      "two rivals: one packet leaves per step (%u)",
		      rv[0].sent + rv[1].sent);
		CHECK(rv[0].sent == STEPS / 2 && rv[1].sent == STEPS / 2,
		      "they take turns, a queue after both moving on every "
		      "step (terminal %u, local %u)",
		      rv[0].sent, rv[1].sent);
	}
	{
		struct rival rv[3] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}};
		race(&g, &to_global, rv, 3, one, 0);
		CHECK(rv[0].sent == STEPS / 3 && rv[1].sent == STEPS / 3 &&
			      rv[2].sent == STEPS / 3,
		      "three rivals take turns (%u, %u, %u)", rv[0].sent,
		      rv[1].sent, rv[2].sent);
	}
	{
		/* the local input's packets want VC 1, which gets no
		 * credits: the terminal's, on VC 0, goes on every step */
		struct rival rv[2] = {{0, 0, 0, 0}, {1, 0, 1, 0}};
		race(&g, &to_global, rv, 2, one, 0);
		CHECK(rv[0].sent == STEPS && rv[1].sent == 0,
		      "a rival blocked on its own VC holds nobody up "
		      "(%u, %u)",
		      rv[0].sent, rv[1].sent);
		/* room on both VCs: each rival goes on every step */
		race(&g, &to_global, rv, 2, each, 0);
		CHECK(rv[0].sent == STEPS && rv[1].sent == STEPS,
		      "with room on both VCs both go on every step (%u, %u)",
		      rv[0].sent, rv[1].sent);
	}
	{
		/* the papers' router: room for one packet a step in output
		 * 3's queue, which the rivals take in turn */
		struct rival rv[3] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}};
		race(&g, &to_global, rv, 2, one, FLITS);
		CHECK(rv[0].sent == STEPS / 2 && rv[1].sent == STEPS / 2,
		      "output queues: two rivals take turns (%u, %u)",
		      rv[0].sent, rv[1].sent);
		race(&g, &to_global, rv, 3, one, FLITS);
		CHECK(rv[0].sent == STEPS / 3 && rv[1].sent == STEPS / 3 &&
			      rv[2].sent == STEPS / 3,
		      "output queues: three rivals take turns (%u, %u, %u)",
		      rv[0].sent, rv[1].sent, rv[2].sent);
	}
	ofar(&g, one);
	parking(&g);
	rig_free(&g);
	return check_done();
}
