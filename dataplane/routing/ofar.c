/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OFAR, On-the-Fly Adaptive Routing, with an escape subnetwork (a ring,
 * [OC] §III-A, or a tree, §III-B) and congestion management ([OC] §I,
 * §IV; docs/routing.md, "OFAR", says which
 * readings of the references [OC] only cites were chosen). Decided at every
 * attempt to move a packet, at every router:
 *
 *  1. At the destination router: eject.
 *  2. In the escape: leave it for the minimal output if that can take
 *     the packet now, unless the packet has entered the escape escape_cap
 *     times (then it stays to its destination, [OC] §VI-B); otherwise
 *     advance in the escape, which needs room for one packet (bubble flow
 *     control, §III-A): along the ring, or up-down along the tree (up
 *     toward the root until an ancestor of the destination, then down,
 *     §III-B; control/tree.h).
 *  3. Minimal output, if it can take the packet now, on the canonical VC
 *     with the most room: canonical VCs are used fully adaptively, with
 *     no order ([OC] §III).
 *  4. Otherwise misroute in transit ([OC] §I), when the minimal output is
 *     short of credits or busy, and holds at least misroute_trigger of
 *     its buffers (ofar_misroute.h: the trigger, the eligibility rule,
 *     the global policy and the pick): globally (to another group) only
 *     in the source group and only once; locally (two local hops instead
 *     of one) once per group, when the minimal hop is local, or, as the
 *     global policy allows (CRG, RRG, MM; [OC] §V uses MM), toward
 *     another router's global links, the next hop then being a global
 *     misroute, tried before the minimal output. A candidate is eligible
 *     when it can take the packet now and its occupancy is at most
 *     misroute_threshold x the minimal output's; one is drawn at random,
 *     or the emptiest is taken.
 *  5. Otherwise, if the minimal output had no credits at all, enter the
 *     escape, which needs room for two packets (§III-A; the tree keeps
 *     the ring's rules). Packets are never injected from a terminal
 *     straight into the escape ([OC] §IV-B).
 *
 * Congestion management acts on injection only (§IV): BCM wants room for
 * 1 + bcm_bubble packets in the next canonical queue; ECM blocks injection
 * while every escape buffer of the router is fuller than ecm_threshold.
 *
 * select only chooses (struct dp_choice): it writes neither the packet nor
 * the router (a random misroute pick draws from the lcore's generator), so
 * that a packet that does not leave with its choice (it waits for its turn
 * at the output, router.c's allocate) chooses again as if it never had.
 * What the choice means for the packet and the router's counters (its
 * escape and misroute state, steps 1, 2, 4 and 5) commit applies when the
 * packet leaves with it.
 */
#include "ofar_misroute.h"
#include "ofar_pkt.h"
#include "ofar_run.h"
#include "routing.h"
#include "router.h"
#include "worker.h"

/* The run's OFAR state (ofar_run.h). */
static inline const struct dp_ofar_run *of(const struct dp_run *run)
{
	return (const struct dp_ofar_run *)run->eng_run;
}

/* What a choice does when the packet leaves with it (dp_choice.act,
 * ofar_commit); 0: nothing but the move. */
enum {
	OF_GMIS_END = 0x01,   /* the local hop toward a global misroute ends */
	OF_ESC_OUT = 0x02,    /* out of the escape (steps 1 and 2) */
	OF_ESC_IN = 0x04,     /* into the escape, counted (step 5, §III-A) */
	OF_RING_REV = 0x08,   /* ... the bidirectional ring backwards */
	OF_MIS_LOCAL = 0x10,  /* a local misroute: once per group ([OC] §I) */
	OF_GMIS_NEXT = 0x20,  /* ... a global one next (RRG, MM; [OC] §V) */
	OF_MIS_GLOBAL = 0x40, /* a global misroute: once per packet ([OC] §I) */
};

/* Output port, VC vc, and act. Any hop ends the state of a packet that
 * took a local hop toward a global misroute: it was for this hop. */
static inline int take(const struct dp_pkt *pk, struct dp_choice *c,
		       uint32_t port, uint32_t vc, uint8_t act)
{
	if (OF_BITS(pk) & OF_PKT_GMIS_NEXT)
		act |= OF_GMIS_END;
	c->port = (uint8_t)port;
	c->vc = (uint8_t)vc;
	c->act = act;
	c->turn = !!(act & OF_ESC_IN);
	return 1;
}

/* Canonical VCs of a port: all but the escape VC of ring ports. */
static inline uint32_t canon(const struct dp_run *run, const struct dp_port *p)
{
	return p->cls == DF_LINK_TERMINAL ? 1 : run->tb->nvcs[p->cls];
}

/* Room for the packet on VC v of output p: the downstream buffer's
 * credits. With output queues ([router], docs/router.md) the packets in
 * the queue count as already there, and the queue must have room too: a
 * packet enters an output queue only when the buffer behind the link can
 * take it and all the queue holds, so it never waits there for a buffer
 * that may not drain. Its escape stays open, and a ring hop keeps its
 * bubble in the downstream buffer, as without output queues ([OC]
 * §III-A). */
static inline uint32_t room(const struct dp_run *run, const struct dp_port *p,
			    uint32_t v)
{
	uint32_t q = p->oq[v].flits, down, in;

	if (!run->oq_cap)
		return p->credits[v];
	down = p->credits[v] > q ? p->credits[v] - q : 0;
	in = run->oq_cap - q;
	return down < in ? down : in;
}

/* The canonical VC with the most room, if it has need flits; else -1. */
static int best_vc(const struct dp_run *run, const struct dp_port *p,
		   uint32_t need)
{
	uint32_t n = canon(run, p), best = 0;

	for (uint32_t v = 1; v < n; v++)
		if (room(run, p, v) > room(run, p, best))
			best = v;
	return room(run, p, best) >= need ? (int)best : -1;
}

/* Flits in use downstream on the canonical VCs, as the credits say, and
 * in the output queues. */
static uint32_t occupancy(const struct dp_run *run, const struct dp_port *p)
{
	uint32_t n = canon(run, p), q = 0;

	for (uint32_t v = 0; v < n; v++)
		q += p->credit_full[v] - p->credits[v] + p->oq[v].flits;
	return q;
}

/* Free to send on now: serializer idle (with output queues: the
 * crossbar's output), link up (a link going down or coming back is
 * marked after the tables and ring that avoid or use it are in place,
 * emu/change_apply.c) */
static inline int idle(const struct dp_run *run, const struct dp_port *p,
		       uint64_t now)
{
	return (run->oq_cap ? p->xout_free : p->out->busy_until) <= now &&
	       !p->out->down;
}

/* The escape subnetwork in use: one of the two is NULL. */
struct esc {
	const struct df_ring *ring;
	const struct df_tree *tree;
};

/* Does the packet go round the ring backwards with act: the way chosen
 * when it enters the escape, else the way it goes? */
static inline int ring_rev(const struct dp_pkt *pk, uint8_t act)
{
	if (act & OF_ESC_IN)
		return !!(act & OF_RING_REV);
	return !!(OF_BITS(pk) & OF_PKT_RING_REV);
}

/* The escape port this packet goes out on with act: the ring's, or the
 * tree's up-down hop toward its destination. */
static uint32_t esc_port(const struct esc *e, const struct dp_router *r,
			 const struct dp_pkt *pk, uint8_t act)
{
	if (e->tree != NULL)
		return df_tree_next(e->tree, r->id, pk->dst_router);
	return ring_rev(pk, act) ? e->ring->prev[r->id] : e->ring->next[r->id];
}

/* Did the packet arrive on in_port moving along the escape (not entering
 * it)? On the ring: the port the ring feeds this router by, the way the
 * packet goes round. On the tree: a tree edge it does not turn back over
 * (df_tree_feeds). */
static int esc_feeds(const struct esc *e, const struct dp_router *r,
		     const struct dp_pkt *pk, uint32_t in_port)
{
	if (e->tree != NULL)
		return df_tree_feeds(e->tree, r->id, in_port, pk->dst_router);
	return in_port == (OF_BITS(pk) & OF_PKT_RING_REV
				   ? e->ring->next[r->id]
				   : e->ring->prev[r->id]);
}

/* Entering the escape: OF_ESC_IN, and on a bidirectional ring the
 * shorter way round to the destination. */
static uint8_t esc_entry(const struct dp_run *run, const struct esc *e,
			 const struct dp_router *r, const struct dp_pkt *pk)
{
	const struct df_ring *ring = e->ring;
	uint32_t fwd;

	if (ring == NULL || !of(run)->ring_bi)
		return OF_ESC_IN;
	fwd = (ring->pos[pk->dst_router] + ring->n - ring->pos[r->id]) %
	      ring->n;
	return ring->n - fwd < fwd ? OF_ESC_IN | OF_RING_REV : OF_ESC_IN;
}

/* Move along the escape with act (entering it: esc_entry's; moving on:
 * 0): room for `packets` packets on the escape VC. */
static int esc_move(const struct dp_run *run, const struct esc *e,
		    const struct dp_router *r, const struct dp_pkt *pk,
		    uint32_t packets, uint64_t now, uint8_t act,
		    struct dp_choice *c)
{
	uint32_t k = esc_port(e, r, pk, act);
	const struct dp_port *p = &r->port[k];
	uint32_t esc = run->tb->nvcs[p->cls];

	if (!idle(run, p, now) || room(run, p, esc) < packets * pk->flits)
		return 0;
	return take(pk, c, k, esc, act);
}

/* Is the escape input buffer of port k fuller than the ECM threshold
 * (in 1/256)? */
static int ecm_full(const struct dp_run *run, const struct dp_router *r,
		    uint32_t k)
{
	const struct dp_port *p = &r->port[k];
	uint32_t esc = run->tb->nvcs[p->cls];
	uint64_t used = (uint64_t)dp_vcq_count(&p->q[esc]) * run->pkt_flits;

	return used * 256 > (uint64_t)of(run)->ecm_q8 * p->credit_full[esc];
}

/* ECM: every escape input buffer of this router fuller than the
 * threshold: the ring's input (both with a bidirectional ring), or every
 * tree edge's. */
static int ecm_blocked(const struct dp_run *run, const struct esc *e,
		       const struct dp_router *r)
{
	if (e->tree != NULL) {
		const uint8_t *on = &e->tree->on[(size_t)r->id * r->nports];
		for (uint32_t k = run->p; k < r->nports; k++)
			if (on[k] && !ecm_full(run, r, k))
				return 0;
		return 1;
	}
	if (!ecm_full(run, r, e->ring->prev[r->id]))
		return 0;
	return !of(run)->ring_bi || ecm_full(run, r, e->ring->next[r->id]);
}

/* The flits the canonical VCs of p can hold: downstream buffers, and
 * the output queues with the papers' router. */
static uint32_t capacity(const struct dp_run *run, const struct dp_port *p)
{
	uint32_t n = canon(run, p), c = 0;

	for (uint32_t v = 0; v < n; v++)
		c += p->credit_full[v] + run->oq_cap;
	return c;
}

/* The packet's minimal output here: at its destination router the
 * terminal's port (dst_router = dst_term / p, so a multiplication gives
 * dst_term % p without a division, as dp_table_route), else the port
 * toward that router. */
static inline uint32_t minimal_port(const struct dp_run *run,
				    const struct df_tables *tb,
				    const struct dp_router *r,
				    const struct dp_pkt *pk)
{
	if (r->id == pk->dst_router)
		return pk->dst_term - (uint32_t)pk->dst_router * run->p;
	return tb->port_to_router[r->id * tb->nrouters + pk->dst_router];
}

/* An output's occupancy as the misrouting rules read it (misroute_occupancy):
 * in use downstream, and with "queue" (the default) also the packets
 * queued in this router whose minimal output it is (ofar_queued). [OC]
 * names the minimal output's queue without saying, for its input-queued
 * router, what that queue holds. Downstream alone misses a link that
 * only its bandwidth limits: under ADV+2 the minimal global link's far
 * buffer drains as fast as it fills while packets pile up in front of
 * it, so a trigger on it held back the misroutes the pattern needs
 * (docs/routing.md, "OFAR"). The packets in front of an output are what
 * [DF] §3 counts as its queue, and UGAL-L here reads the same. */
static uint32_t mis_occupancy(const struct dp_run *run, const struct dp_port *p)
{
	uint32_t q = occupancy(run, p);

	return of(run)->mis_occ == DF_OCC_QUEUE ? q + p->waiting[0] : q;
}

/* Step 4: a misroute (ofar_misroute.h's trigger, candidates and pick),
 * or 0. blocked: the minimal output cannot take the packet now. */
static int misroute(struct dp_router *r, const struct dp_pkt *pk, uint32_t minp,
		    uint32_t need, int blocked, uint64_t now,
		    struct dp_choice *c)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	uint32_t cand[64], cvc[64], cocc[64], n = 0, i;
	uint32_t dg = tb->group_of[pk->dst_router];
	uint32_t src_group = tb->group_of[pk->src_term / run->p];
	uint32_t min_occ = mis_occupancy(run, &r->port[minp]);
	int global_ok = r->group == src_group && dg != r->group &&
			!(pk->flags & DP_PKT_NONMIN);
	/* CRG, RRG or MM: may a global misroute begin with a local hop to
	 * another router's global links (the next hop then a global
	 * misroute)? */
	int via_local = global_ok && dp_ofar_global_via_local(
					     of(run)->mis_policy, pk->hops > 0);
	int local_ok = (tb->port_class[minp] == DF_LINK_LOCAL || via_local) &&
		       OF_LMIS_GRP(pk) != r->group + 1;
	/* the local hop was taken for a global misroute: any global port
	 * that can take the packet now */
	int any = (OF_BITS(pk) & OF_PKT_GMIS_NEXT) && global_ok;

	if (any)
		local_ok = 0;
	else if (!dp_ofar_trigger(blocked, min_occ,
				  capacity(run, &r->port[minp]),
				  of(run)->trigger_q8))
		return 0;
	if (!local_ok && !global_ok)
		return 0;
	for (uint32_t k = tb->p; k < r->nports && n < 64; k++) {
		const struct dp_port *p = &r->port[k];
		uint32_t occ;
		int vc;

		if (k == minp || !idle(run, p, now))
			continue;
		if (!(p->cls == DF_LINK_LOCAL ? local_ok : global_ok))
			continue;
		occ = mis_occupancy(run, p);
		if (!any &&
		    !dp_ofar_eligible(occ, min_occ, of(run)->misroute_q8))
			continue;
		vc = best_vc(run, p, need);
		if (vc < 0)
			continue;
		cand[n] = k;
		cvc[n] = (uint32_t)vc;
		cocc[n++] = occ;
	}
	if (n == 0)
		return 0;
	i = dp_ofar_pick(of(run)->mis_pick, cocc, n, dp_rand_below(&r->rng, n));
	if (r->port[cand[i]].cls != DF_LINK_LOCAL)
		return take(pk, c, cand[i], cvc[i], OF_MIS_GLOBAL);
	return take(pk, c, cand[i], cvc[i],
		    via_local ? OF_MIS_LOCAL | OF_GMIS_NEXT : OF_MIS_LOCAL);
}

static int ofar_select(struct dp_router *r, const struct dp_pkt *pk,
		       uint32_t in_port, uint64_t now, struct dp_choice *c)
{
	const struct dp_run *run = r->lc->run;
	/* one version of each for the whole decision: a link change swaps
	 * the ring or tree, then the tables (emu/change_apply.c) */
	const struct esc e = {
		.ring = __atomic_load_n(&of(run)->ring, __ATOMIC_ACQUIRE),
		.tree = __atomic_load_n(&of(run)->tree, __ATOMIC_ACQUIRE),
	};
	const struct df_tables *tb =
		__atomic_load_n(&run->tb, __ATOMIC_ACQUIRE);
	int inject = r->port[in_port].cls == DF_LINK_TERMINAL;
	uint32_t minp, need = pk->flits;
	const struct dp_port *mp;
	int vc, blocked;

	minp = minimal_port(run, tb, r, pk);
	mp = &r->port[minp];
	if (r->id == pk->dst_router) {
		if (!idle(run, mp, now) || room(run, mp, 0) < pk->flits)
			return 0;
		return take(pk, c, minp, 0,
			    pk->flags & DP_PKT_ESCAPE ? OF_ESC_OUT : 0);
	}
	if (pk->flags & DP_PKT_ESCAPE) {
		if (pk->esc_n < of(run)->escape_cap && idle(run, mp, now) &&
		    (vc = best_vc(run, mp, need)) >= 0)
			return take(pk, c, minp, (uint32_t)vc, OF_ESC_OUT);
		/* Bubble flow control (§III-A): a packet moving on along
		 * the escape needs room for one packet, one entering it
		 * room for two. A packet still in the escape buffer of a
		 * ring or tree that a link change replaced is not on the
		 * new one: it enters it, so the new one keeps its
		 * bubble. */
		return esc_move(run, &e, r, pk,
				esc_feeds(&e, r, pk, in_port) ? 1 : 2, now, 0,
				c);
	}
	if (inject) {
		if (of(run)->cm == DF_CM_ECM && ecm_blocked(run, &e, r))
			return 0;
		if (of(run)->cm == DF_CM_BCM)
			need = (1 + of(run)->bcm_bubble) * pk->flits;
	}
	vc = best_vc(run, mp, need);
	blocked = vc < 0 || !idle(run, mp, now);
	if ((OF_BITS(pk) & OF_PKT_GMIS_NEXT) &&
	    misroute(r, pk, minp, need, blocked, now, c))
		return 1;
	if (!blocked)
		return take(pk, c, minp, (uint32_t)vc, 0);
	if (misroute(r, pk, minp, need, 1, now, c))
		return 1;
	if (inject || best_vc(run, mp, pk->flits) >= 0 || !of(run)->escape)
		return 0; /* only busy: wait for it (or no escape to take) */
	return esc_move(run, &e, r, pk, 2, now, esc_entry(run, &e, r, pk), c);
}

/* The escape entered ([OC] §III-A), the way round the ring chosen; the
 * entries are capped (escape_cap, §VI-B). */
static void commit_escape(struct dp_router *r, struct dp_pkt *pk, uint8_t act)
{
	OF_BITS(pk) &= (uint8_t)~OF_PKT_RING_REV;
	if (act & OF_RING_REV)
		OF_BITS(pk) |= OF_PKT_RING_REV;
	pk->flags |= DP_PKT_ESCAPE;
	pk->esc_n++;
	r->escape_entries++;
}

/* A misroute taken ([OC] §I): locally once per group (lmis_grp),
 * possibly the first hop of a global one (GMIS_NEXT: its next hop tries a
 * global port first); globally once (NONMIN). */
static void commit_misroute(struct dp_router *r, struct dp_pkt *pk, uint8_t act)
{
	if (act & OF_MIS_GLOBAL) {
		pk->flags |= DP_PKT_NONMIN;
		r->misroutes_global++;
		return;
	}
	OF_LMIS_GRP(pk) = (uint16_t)(r->group + 1);
	if (act & OF_GMIS_NEXT)
		OF_BITS(pk) |= OF_PKT_GMIS_NEXT;
	r->misroutes_local++;
}

/* The packet leaves with choice c (router.c: after its turn at the
 * output, when it moves): what select chose for it, applied. */
static void ofar_commit(struct dp_router *r, struct dp_pkt *pk,
			const struct dp_choice *c)
{
	uint8_t act = c->act;

	if (act & OF_GMIS_END)
		OF_BITS(pk) &= (uint8_t)~OF_PKT_GMIS_NEXT;
	if (act & OF_ESC_OUT)
		pk->flags &= ~DP_PKT_ESCAPE;
	if (act & OF_ESC_IN)
		commit_escape(r, pk, act);
	if (act & (OF_MIS_LOCAL | OF_MIS_GLOBAL))
		commit_misroute(r, pk, act);
}

/* A packet entered an input queue of r: count it waiting for its minimal
 * output here (the router takes it back when the packet moves). */
static void ofar_queued(struct dp_router *r, struct dp_pkt *pk)
{
	const struct dp_run *run = r->lc->run;
	uint32_t minp = minimal_port(
		run, __atomic_load_n(&run->tb, __ATOMIC_ACQUIRE), r, pk);

	OF_WAIT_PORT(pk) = (uint8_t)minp;
	r->port[minp].waiting[0] += pk->flits;
}

/* It moves: no longer waiting for its minimal output here. */
static void ofar_dequeued(struct dp_router *r, const struct dp_pkt *pk)
{
	r->port[OF_WAIT_PORT(pk)].waiting[0] -= pk->flits;
}

const struct dp_routing_engine dp_ofar_engine = {
	.select = ofar_select,
	.commit = ofar_commit,
	.queued = ofar_queued,
	.dequeued = ofar_dequeued,
	.at_head = 1,
};

struct dp_ofar_run *dp_ofar_run(const struct dp_run *run)
{
	return run->eng == &dp_ofar_engine ? (struct dp_ofar_run *)run->eng_run
					   : NULL;
}
