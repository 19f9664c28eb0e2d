/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router poll step (docs/design.md, A packet's path): packets wait in the
 * input VC queue of the port they came in on; the head of each queue is
 * routed and leaves when its output serializer is free and the downstream
 * VC has credits for the whole packet (virtual cut-through); the freed
 * input space goes back upstream as a credit. Switch allocation is
 * round-robin over the non-empty input queues, one packet per queue per
 * step, and round-robin at each output over the queues that want it
 * (allocate).
 */
#include "router.h"
#include "routing/routing.h"
#include "tap.h"
#include "credit.h"
#include "worker.h"
#include "xbar.h"

#include <rte_prefetch.h>

static inline void qmask_set(struct dp_router *r, uint32_t i)
{
	r->qmask[i >> 6] |= 1ULL << (i & 63);
}

/* Route the packet here and count it in its output's queue ([DF] §3: q =
 * queue depth of an output port) until it leaves. */
static inline void route_here(struct dp_router *r, struct dp_pkt *pk)
{
	struct dp_port *op;

	r->eng->route(r, pk);
	op = &r->port[pk->out_port];
	op->waiting[pk->out_vc] += pk->flits;
	/* what switch allocation reads of the output later in this step:
	 * its second line (credit_t, arb), and its link's sender line, the
	 * ring's sender line and the receiver's head line (the credits) */
	rte_prefetch0((const char *)op + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(&op->out->sent);
	rte_prefetch0(&op->out->ring.tx);
	rte_prefetch0(&op->out->ring.rx.head);
}

/* A packet that leaves the network without arriving: on a link when it
 * failed, with faults.in_flight = drop, or for a destination in a lost
 * instance. Counted with its reason, settled for the exactly-once check,
 * its buffer space on input port p returned at once (a failed link's
 * credits are restored, as a link coming back up starts with full
 * credits). */
static void lost(struct dp_router *r, struct dp_port *p, struct rte_mbuf *m,
		 uint64_t now, enum dp_drop why)
{
	struct dp_lcore *lc = r->lc;
	struct dp_pkt *pk = dp_pkt(m);

	lc->st.drops[why]++;
	if (pk->flags & DP_PKT_MEASURED)
		lc->st.drops_measured++;
	if (!(pk->flags & DP_PKT_EXTERNAL))
		dp_settled(lc, pk->src_term, pk->seq);
	dp_credit_send(lc, p->in, now, pk->vc, pk->flits, now);
	lc->st.credits_out++;
	rte_pktmbuf_free(m);
}

/* The packet's output failed after it was routed: route it again on the
 * tables without that link (the source decides again: its choice may
 * have been the failed link's path). */
static void reroute(struct dp_router *r, struct dp_port *op, struct dp_pkt *pk,
		    int at_source)
{
	const struct df_tables *tb = r->lc->run->tb;

	op->waiting[pk->out_vc] -= pk->flits;
	if (at_source) {
		pk->flags &= ~DP_PKT_NONMIN;
		r->eng->decide(r, pk);
	} else if (tb->gone != NULL && pk->phase == DF_PH_TO_INTER &&
		   pk->inter != DF_NO_GROUP && tb->gone[pk->inter * tb->a]) {
		/* its intermediate group was in a lost instance: minimal
		 * from here (a later phase: the VCs still only go up;
		 * control/faults.c walks the same step) */
		pk->inter = DF_NO_GROUP;
	}
	route_here(r, pk);
}

/* Is the packet's destination router in a lost instance? */
static inline int dst_gone(const struct dp_router *r, const struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;

	return tb->gone != NULL && tb->gone[pk->dst_router];
}

/* The head packet of queue qi is out of the queue; its slot waits for
 * its credit (credit.h), which frees it. */
static inline void vcq_pop(struct dp_router *r, uint32_t qi, struct dp_vcq *q)
{
	q->head++;
	/* emptied or not follows the traffic: a mask, not a branch */
	r->qmask[qi >> 6] &= ~((uint64_t)(q->head == q->tail) << (qi & 63));
}

/*
 * The packet in ring slot i of input port p's VC vc is lost, and its
 * credit goes now: the ring frees its slots in order, so the slot moves
 * down to the first whose credit has not gone, and those from there up
 * one (packets that left and whose credits UGAL-L_CR holds, [DF] §4.3.2,
 * and queued ones, in order). Faults only.
 */
static void slot_to_free(struct dp_port *p, uint32_t vc, uint32_t i)
{
	struct dp_vcring *rg = &p->in->ring;
	struct dp_vcslot *s = rg->rx.s[vc], dead = s[i & rg->rx.mask];

	for (uint32_t h = rg->rx.head[vc]; i != h; i--)
		s[i & rg->rx.mask] = s[(i - 1) & rg->rx.mask];
	s[i & rg->rx.mask] = dead;
}

/* The packet at the head of queue qi (its output op, down) cannot arrive:
 * out of the queue and the network, counted. */
static void head_lost(struct dp_router *r, uint32_t qi, struct dp_port *op,
		      struct rte_mbuf *m, uint64_t now)
{
	struct dp_port *ip = &r->port[qi / DP_VC_STRIDE];
	struct dp_vcq *q = &ip->q[qi % DP_VC_STRIDE];
	struct dp_pkt *pk = dp_pkt(m);

	op->waiting[pk->out_vc] -= pk->flits;
	/* it held the queue until now: the packet behind cannot have
	 * started earlier (try_send's ready time) */
	q->last_start = now;
	slot_to_free(ip, qi % DP_VC_STRIDE, q->head + q->off);
	vcq_pop(r, qi, q);
	lost(r, ip, m, now, DP_DROP_INSTANCE_LOST);
}

/* The packet that just arrived in slot tail + off of input port p's
 * queue q (VC vc) is lost: its slot moves down below the queue, whose
 * packets move one slot up (off), and its credit goes at once (lost). */
static void vcq_drop_arrival(struct dp_port *p, uint32_t vc, struct dp_vcq *q)
{
	slot_to_free(p, vc, q->tail + q->off);
	q->off++;
}

static unsigned receive(struct dp_router *r, struct dp_port *p, uint32_t k,
			uint64_t now)
{
	struct dp_lcore *lc = r->lc;
	struct rte_mbuf *m;
	unsigned n = 0;

	while ((m = dp_port_rx_next(p, now, &lc->next_event)) != NULL) {
		struct dp_pkt *pk = dp_pkt(m);
		struct dp_vcq *q = &p->q[pk->vc];

		/* it stays in its slot, at the tail of its queue */
		if (unlikely(pk->due_tsc <= p->in->drop_until)) {
			vcq_drop_arrival(p, pk->vc, q);
			lost(r, p, m, now, DP_DROP_LINK_DOWN);
			continue;
		}
		q->tail++;
		qmask_set(r, k * DP_VC_STRIDE + pk->vc);
		pk->out_port = DF_PORT_NONE;
		if (p->cls != DF_LINK_TERMINAL)
			pk->hops++;
		if (unlikely(r->eng->at_head)) {
			/* routed at the head of the queue; OFAR counts it
			 * for its minimal output meanwhile */
			if (r->eng->queued != NULL)
				r->eng->queued(r, pk);
		} else if (p->cls != DF_LINK_TERMINAL &&
			   !((r->eng->decide_phases >> pk->phase) & 1)) {
			/* In transit the route does not depend on time: take
			 * it now, so the output's queue counts this packet
			 * while it waits; unless the engine decides again in
			 * this phase (decide_phases), at the head of the
			 * queue. */
			route_here(r, pk);
		}
		n++;
	}
	return n;
}

/* The output of pk, the packet at the head of its queue, routed now if it
 * is not yet (the engines that decide and route, not select). */
static inline struct dp_port *head_output(struct dp_router *r,
					  struct dp_pkt *pk)
{
	if (pk->out_port == DF_PORT_NONE) {
		/* The source router decides once per packet (and each
		 * router reached in one of the engine's decide_phases; an
		 * at_head engine's: every router), when the packet is at
		 * the head of its queue: the occupancy it reads is the
		 * current one ([DF] §4.2; [FB] §3.1's sequential allocator)
		 * or the round's snapshot (greedy). */
		r->eng->decide(r, pk);
		route_here(r, pk);
	}
	return &r->port[pk->out_port];
}

/* Output op granted queue qi its turn t (dp_choice.turn): the queue
 * after it comes first there next time (allocate). */
static inline void granted(struct dp_router *r, struct dp_port *op, uint32_t qi,
			   uint32_t t)
{
	op->arb[t] = qi + 1 == r->nq ? 0 : qi + 1;
}

/* With output queues (xbar.h): the head packet m of queue qi, routed to
 * op, crosses the crossbar, which can take it now (dp_xbar_can); its
 * input space goes back upstream when the crossing ends. */
static int xbar_cross(struct dp_router *r, uint32_t qi, struct dp_port *op,
		      struct rte_mbuf *m, uint32_t turn)
{
	uint32_t k = qi / DP_VC_STRIDE, vc = qi % DP_VC_STRIDE;
	struct dp_port *ip = &r->port[k];
	struct dp_vcq *q = &ip->q[vc];
	struct dp_pkt *pk = dp_pkt(m);
	uint32_t ov = pk->out_vc;
	uint64_t ready = pk->due_tsc, finish;

	if (q->last_start > ready)
		ready = q->last_start;
	finish = dp_xbar_move(ip, op, ov, m, pk->flits, ready, &q->last_start);
	dp_credit_return(r, ip, k, vc, (uint32_t)(op - r->port), ov,
			 q->last_start, finish, pk->flits);
	r->oq_ports |= 1ULL << pk->out_port;
	granted(r, op, qi, turn);
	vcq_pop(r, qi, q);
	return 1;
}

/*
 * Packet m, ready at ready, leaves on output op's link in VC v: not
 * before the credit it uses, whose flits it takes. The host's lag on its
 * start, the capture tap, and the packet onto the link (it belongs to
 * the receiver from then on). Returns its start.
 */
static inline uint64_t link_send(struct dp_router *r, struct dp_port *op,
				 uint32_t v, struct rte_mbuf *m, uint64_t ready,
				 uint64_t now)
{
	struct dp_pkt *pk = dp_pkt(m);
	uint64_t start;

	if (op->credit_t[v] > ready)
		ready = op->credit_t[v];
	op->credits[v] -= pk->flits;
	pk->due_tsc = dp_link_depart(op->out, ready, m->pkt_len, pk->tail_tsc,
				     &start, &pk->tail_tsc, now);
	pk->vc = (uint8_t)v;
	dp_cap_tap(r->lc, op->out, m, pk->vc, pk->hops + 1u, now);
	if (unlikely(dp_link_push(op->out, v, m, pk->flits, pk->due_tsc) !=
		     0)) {
		r->lc->st.enq_fail++;
		rte_pktmbuf_free(m);
	}
	r->forwarded++;
	return start;
}

/* The link of output op sends from its queues while its serializer is
 * free and a head packet has begun to cross and has credits (xbar.h). */
static unsigned oq_send(struct dp_router *r, struct dp_port *op, uint64_t now)
{
	unsigned n = 0;
	int v;

	for (uint32_t w = 0; w < op->nvc; w++)
		dp_port_credits_vc(op, w, now);
	while (op->out->busy_until <= now && (v = dp_oq_pick(op, now)) >= 0) {
		const struct dp_flight *f = dp_oq_head(op, (uint32_t)v);
		struct rte_mbuf *m = f->m;
		uint32_t flits = dp_pkt(m)->flits;
		/* not before it began to cross */
		uint64_t start = link_send(r, op, (uint32_t)v, m, f->due, now);

		dp_oq_pop(op, (uint32_t)v, flits, start);
		n++;
	}
	return n;
}

/* Every output whose queues hold packets sends what it can. */
static unsigned oq_drain(struct dp_router *r, uint64_t now)
{
	uint64_t ports = r->oq_ports;
	unsigned n = 0;

	while (ports) {
		uint32_t k = (uint32_t)__builtin_ctzll(ports);
		struct dp_port *op = &r->port[k];

		ports &= ports - 1;
		n += oq_send(r, op, now);
		if (dp_oq_count(op) == 0)
			r->oq_ports &= ~(1ULL << k);
	}
	/* packets still queued: do not let the lcore sleep */
	if (r->oq_ports)
		r->lc->next_event = now;
	return n;
}

/* The routing state of the packets at the heads of the queues in mask,
 * asked for at once. On a large network each is a cache miss, and
 * switch allocation would take them one after another
 * (docs/performance.md, "The heads asked for at once"). */
static inline void prefetch_heads(const struct dp_router *r,
				  const uint64_t *mask, uint32_t nw)
{
	for (uint32_t wi = 0; wi < nw; wi++)
		for (uint64_t b = mask[wi]; b; b &= b - 1) {
			uint32_t qi = wi * 64 + (uint32_t)__builtin_ctzll(b);
			const struct dp_vcq *q = &r->port[qi / DP_VC_STRIDE]
							  .q[qi % DP_VC_STRIDE];

			rte_prefetch0(dp_pkt(dp_vcq_head(q)));
		}
}

/* The same for the packets at the heads of the links into ports, which
 * receive reads next. */
static inline void prefetch_arrivals(const struct dp_router *r, uint64_t ports)
{
	for (; ports; ports &= ports - 1) {
		const struct dp_vcslot *f =
			dp_link_peek(r->port[__builtin_ctzll(ports)].in);

		if (f != NULL)
			rte_prefetch0(dp_pkt(f->m));
	}
}

/* Does queue qi come, in this step's order from start, before output
 * op's pointer for turn t (port.arb)? */
static inline int before_pointer(const struct dp_router *r,
				 const struct dp_port *op, uint32_t qi,
				 uint32_t start, uint32_t t)
{
	uint32_t a = op->arb[t], nq = r->nq;

	return (qi >= start ? qi - start : qi + nq - start) <
	       (a >= start ? a - start : a + nq - start);
}

/* The head packet of a queue cannot leave now, for a reason no timer
 * ends (credits, which wake the router when they come; a choice; the
 * crossbar): the router is stepped again on the next sweep (allocate). */
static inline int no_park(struct dp_router *r)
{
	r->park_until = 0;
	return 0;
}

/* The head packet m of queue qi leaves on output op, which can take it
 * now (its waiting flits already settled). */
static inline int leave(struct dp_router *r, uint32_t qi, struct dp_port *op,
			struct rte_mbuf *m, uint64_t now, uint32_t turn)
{
	struct dp_port *ip = &r->port[qi / DP_VC_STRIDE];
	uint32_t vc = qi % DP_VC_STRIDE;
	struct dp_vcq *q = &ip->q[vc];
	struct dp_pkt *pk = dp_pkt(m);
	uint32_t out_vc = pk->out_vc, flits = pk->flits;
	/* The packet could not leave before it arrived, before the packet
	 * ahead of it in the queue left (nor before its credit: link_send).
	 * Its VC and flits are read before it is on the link. */
	uint64_t ready = pk->due_tsc;

	if (q->last_start > ready)
		ready = q->last_start;
	q->last_start = link_send(r, op, out_vc, m, ready, now);
	dp_credit_return(r, ip, qi / DP_VC_STRIDE, vc, (uint32_t)(op - r->port),
			 out_vc, q->last_start, op->out->busy_until, flits);
	granted(r, op, qi, turn);
	vcq_pop(r, qi, q);
	return 1;
}

/*
 * The head packet of a queue, routed, waits for credits on output op.
 * An eager sender's credit wakes the router when it comes (its link's
 * credit log, link.h), and until then trying the packet again changes
 * nothing (its route is taken, and a routed engine draws nothing): the
 * router may park, as long as nothing else keeps it (park). A lazy
 * sender's credits wake nobody: it must look at every step (no_park).
 */
static inline int credit_wait(struct dp_router *r, const struct dp_port *op)
{
	return op->out->cvcs != NULL ? 0 : no_park(r);
}

/*
 * The head packet m of queue qi, with an engine that decides and routes:
 * as try_send. Its output's turn first: after the queues from the
 * output's pointer on, in the second pass (allocate). The turn orders, it
 * reserves nothing: a rival that cannot leave leaves the output to the
 * others. Since an output only gets busier during a step, deferring
 * before the checks below grants the same as checking first.
 */
static inline int try_routed(struct dp_router *r, uint32_t qi,
			     struct rte_mbuf *m, uint64_t now, uint32_t defer)
{
	struct dp_port *ip = &r->port[qi / DP_VC_STRIDE];
	struct dp_pkt *pk = dp_pkt(m);
	struct dp_port *op = head_output(r, pk);

	if (defer != UINT32_MAX && before_pointer(r, op, qi, defer, 0))
		return -1;
	if (unlikely(op->out->down)) {
		if (dst_gone(r, pk)) {
			/* the tables keep a lost destination's old route: it
			 * ends at a link to the lost instance, where the
			 * packet leaves */
			head_lost(r, qi, op, m, now);
			return 1;
		}
		reroute(r, op, pk, ip->cls == DF_LINK_TERMINAL);
		op = &r->port[pk->out_port];
		if (op->out->down)
			return no_park(r);
	}
	if (r->oq_cap) {
		if (!dp_xbar_can(ip, op, pk->out_vc, pk->flits, r->oq_cap, now))
			return no_park(r);
		op->waiting[pk->out_vc] -= pk->flits;
		return xbar_cross(r, qi, op, m, 0);
	}
	/* the serializer must be free (docs/design.md, A packet's path) and
	 * the downstream VC must have room for the whole packet (VCT) */
	if (op->out->busy_until > now) {
		if (op->out->busy_until < r->park_until)
			r->park_until = op->out->busy_until;
		return 0;
	}
	dp_port_credits_vc(op, pk->out_vc, now);
	if (op->credits[pk->out_vc] < pk->flits)
		return credit_wait(r, op);
	op->waiting[pk->out_vc] -= pk->flits;
	return leave(r, qi, op, m, now, 0);
}

/*
 * The head packet m of queue qi, with a fully adaptive engine: as
 * try_send. select chooses among the outputs that can take the packet now
 * (with output queues, once the crossbar's input is free), without
 * touching the packet or the router (but for a draw from its random
 * stream): the choice is applied only once the packet moves, after its
 * turn at the chosen output (as try_routed's), so that a packet deferred
 * to the second pass chooses again there as if it never had, possibly
 * another output.
 */
static inline int try_select(struct dp_router *r, uint32_t qi,
			     struct rte_mbuf *m, uint64_t now, uint32_t defer)
{
	struct dp_port *ip = &r->port[qi / DP_VC_STRIDE], *op;
	struct dp_pkt *pk = dp_pkt(m);
	struct dp_choice c;

	if (r->oq_cap && ip->xin_free > now)
		return no_park(r);
	if (!r->eng->select(r, pk, qi / DP_VC_STRIDE, now, &c)) {
		/* It could not leave now, so it does not leave before now
		 * whatever it takes later: its ready time (leave,
		 * xbar_cross) moves up. Otherwise a head that waits by
		 * choice (misroute_trigger) and then misroutes to an
		 * output idle all along would start back at its arrival. */
		if (pk->due_tsc < now)
			pk->due_tsc = now;
		return no_park(r);
	}
	op = &r->port[c.port];
	if (defer != UINT32_MAX && before_pointer(r, op, qi, defer, c.turn))
		return -1;
	/* nothing is applied before the move is certain */
	if (r->oq_cap && !dp_xbar_can(ip, op, c.vc, pk->flits, r->oq_cap, now))
		return no_park(r);
	if (r->eng->dequeued != NULL)
		r->eng->dequeued(r, pk);
	dp_choice_apply(r->eng, r, pk, &c);
	if (r->oq_cap)
		return xbar_cross(r, qi, op, m, c.turn);
	return leave(r, qi, op, m, now, c.turn);
}

/* The head packet of queue qi leaves if it can: 1 when it did (or left
 * the network), 0 when it cannot now, -1 when it comes before its
 * output's pointer in this step's order from defer and must wait for the
 * second pass (allocate; UINT32_MAX: no turn to wait for). */
static inline int try_send(struct dp_router *r, uint32_t qi, uint64_t now,
			   uint32_t defer)
{
	struct dp_vcq *q = &r->port[qi / DP_VC_STRIDE].q[qi % DP_VC_STRIDE];
	struct rte_mbuf *m = dp_vcq_head(q);

	if (r->eng->select != NULL)
		return try_select(r, qi, m, now, defer);
	return try_routed(r, qi, m, now, defer);
}

/* Will wake w fire by time t? */
static inline int comes_by(const struct dp_wake *w, uint64_t t)
{
	return w->state == DP_WAKE_QUEUED && w->due <= t;
}

/*
 * Every packet still queued after switch allocation waits for an output's
 * serializer (try_routed), the first free at park_until, or for credits
 * that wake the router when they come (credit_wait; park_until is then
 * UINT64_MAX if no serializer is awaited): the router need not be stepped
 * before then unless a packet or a credit comes, which wake it anyway.
 * So it parks: its wake goes in the worker's wheel at park_until (none
 * when it waits for credits only), and it stops counting as busy
 * (dp_router_busy). At low load most queued packets wait for a
 * serializer, and a router stepped on every sweep meanwhile made every
 * sweep longer (docs/performance.md, "Steps that find nothing"); at high
 * load, many wait for credits. A wheel entry cannot move, so a router
 * parked until later that must wake sooner (a new packet wants a
 * serializer free earlier) takes its other wake; the later one, when it
 * comes, only steps the router once more. Returns 0 when it cannot park:
 * a packet waits for something else, or both wakes are queued for later
 * than park_until.
 */
static int park(struct dp_router *r, uint64_t now)
{
	struct dp_wake *w0 = &r->park_wake[0], *w1 = &r->park_wake[1], *w;

	if (r->park_until <= now || w0->wh == NULL)
		return 0;
	if (r->park_until != UINT64_MAX && !comes_by(w0, r->park_until) &&
	    !comes_by(w1, r->park_until)) {
		w = w0->state != DP_WAKE_QUEUED	  ? w0
		    : w1->state != DP_WAKE_QUEUED ? w1
						  : NULL;
		if (w == NULL)
			return 0;
		dp_wheel_insert(w->wh, w, r->park_until);
	}
	r->parked = 1;
	return 1;
}

/* The one non-empty input queue of r, or UINT32_MAX when there are
 * none or several. */
static inline uint32_t lone_queue(const struct dp_router *r)
{
	uint32_t n = 0, qi = UINT32_MAX;

	for (uint32_t wi = 0; wi < r->nqw; wi++) {
		uint64_t m = r->qmask[wi];

		n += (uint32_t)__builtin_popcountll(m);
		if (m != 0)
			qi = wi * 64 + (uint32_t)__builtin_ctzll(m);
	}
	return n == 1 ? qi : UINT32_MAX;
}

/* Queue qi's head packet tried (try_send): when it moved, qi is the
 * last queue that did, and the packet behind it is tried on the next
 * step. */
static inline int try_queue(struct dp_router *r, uint32_t qi, uint64_t now,
			    uint32_t defer, uint32_t *last)
{
	int rc = try_send(r, qi, now, defer);

	if (rc > 0) {
		*last = qi;
		if (r->qmask[qi >> 6] & (1ULL << (qi & 63)))
			r->park_until = 0;
	}
	return rc;
}

/* One pass of switch allocation: the queues of mask in round-robin order
 * from start (start's word from start up, the words above, those below,
 * then start's word below start), each trying its head packet once;
 * those that must wait for their turn go in later. */
static unsigned pass(struct dp_router *r, const uint64_t *mask, uint64_t *later,
		     uint32_t start, uint32_t defer, uint64_t now,
		     uint32_t *last)
{
	uint32_t nw = r->nqw, sw = start >> 6;
	uint64_t from = ~0ULL << (start & 63);
	unsigned moved = 0;

	for (uint32_t i = 0; i <= nw; i++) {
		uint32_t wi = sw + i < nw ? sw + i : sw + i - nw;
		uint64_t w = mask[wi] & (i == 0	   ? from
					 : i == nw ? ~from
						   : ~0ULL);

		while (w) {
			uint32_t qi = wi * 64 + (uint32_t)__builtin_ctzll(w);
			int rc;

			w &= w - 1;
			rc = try_queue(r, qi, now, defer, last);
			if (rc > 0)
				moved++;
			else if (rc < 0)
				later[wi] |= 1ULL << (qi & 63);
		}
	}
	return moved;
}

/*
 * Switch allocation: each non-empty input queue tries to send its head
 * packet once per step, the queues in round-robin order from rr (the one
 * after the last that moved), and each output takes the queues that want
 * it in round-robin order from its own pointer (port.arb, the queue after
 * the last it granted): a queue that comes before its head packet's
 * output's pointer in this step's order waits for a second pass, after
 * the queues from the pointer on. Cycle-accurate simulators of the
 * papers' kind (BookSim's separable allocators) keep such a round-robin
 * arbiter at every output, turned only by a grant; [DF] §4.2 names no
 * arbiter, only "a single-cycle, input-queued router switch" with
 * "sufficient speedup". With rr alone an input could lose every time: a
 * third queue, after two rivals for one output, moving on every step to
 * another output brought rr back to the same place, and the rival first
 * in the order took every credit (a terminal starved for seconds;
 * tests/test_alloc.c). The fully adaptive engines (OFAR's select) follow
 * the same rule at the output they choose: their choice is applied only
 * when the packet moves (try_select), so a deferred packet chooses again
 * in the second pass, where the output may differ. A packet entering
 * OFAR's escape takes its turn among the others that enter it there
 * (dp_choice.turn, port.arb[1]): it needs room for two packets, one
 * moving along the escape room for one ([OC] §III-A), so entries fit
 * only in the gaps of a full ring, and the packets moving along, granted
 * between the gaps, turned the output's one pointer back to just after
 * the ring's input each time: the first queue after it took every gap
 * and the queues before it starved for good (ADV+h at 0.6 without CM
 * stopped with the network full).
 */
static unsigned passes(struct dp_router *r, uint64_t now, uint32_t *last)
{
	uint64_t mask[DP_QWORDS], later[DP_QWORDS], any = 0;
	uint32_t start = r->rr, nw = r->nqw;
	unsigned moved;

	for (uint32_t wi = 0; wi < nw; wi++) {
		any |= mask[wi] = r->qmask[wi];
		later[wi] = 0;
	}
	if (any == 0)
		return 0;
	prefetch_heads(r, mask, nw);
	if (unlikely(r->eng->round != NULL))
		r->eng->round(r);
	/* first pass: defer to the output's turn */
	moved = pass(r, mask, later, start, start, now, last);
	/* the second pass: the queues that waited for their turn */
	any = 0;
	for (uint32_t wi = 0; wi < nw; wi++)
		any |= later[wi];
	/* mask as later: with no turn to wait for, none is put there */
	if (any != 0)
		moved += pass(r, later, mask, start, UINT32_MAX, now, last);
	return moved;
}

/* A step's switch allocation: the two passes (above), or with one queue
 * holding packets, its head at once. */
static unsigned allocate(struct dp_router *r, uint64_t now)
{
	uint32_t last = UINT32_MAX, lone = UINT32_MAX;
	unsigned moved;

	r->parked = 0;
	r->park_until = UINT64_MAX;
	/* A lone queue has no rival to wait for: deferring it to the
	 * second pass grants what trying it there at once does (its route,
	 * taken before the turn's test, is taken once). Not with select,
	 * whose choice, made again in the second pass, draws again. At low
	 * load, where a router steps for about one packet, the passes'
	 * masks copied and walked were most of a step's allocation
	 * (docs/performance.md, "Under exact time: what bounds it"). */
	if (r->eng->select == NULL)
		lone = lone_queue(r);
	if (lone != UINT32_MAX) {
		if (unlikely(r->eng->round != NULL))
			r->eng->round(r);
		moved = try_queue(r, lone, now, UINT32_MAX, &last) > 0;
	} else {
		moved = passes(r, now, &last);
	}
	if (last != UINT32_MAX)
		r->rr = last + 1 == r->nq ? 0 : last + 1;
	/* Still blocked packets: sleep until a serializer is free, or do
	 * not let the lcore sleep. */
	if (dp_router_queued(r) && !park(r, now))
		r->lc->next_event = now;
	return moved;
}

unsigned dp_router_step(struct dp_router *r, uint64_t now)
{
	unsigned work = 0, credits = 0;
	/* Only the FIFOs whose wake fired (wheel.h), a port's two apart:
	 * looking at one with nothing due reads a line or two of its link
	 * for nothing (docs/performance.md, "Steps that find nothing"); and
	 * both of the ports fed from another instance. */
	uint64_t pkts = r->poll_pkt | r->always,
		 creds = r->poll_cred | r->always;

	r->poll_pkt = r->poll_cred = 0;
	prefetch_arrivals(r, pkts);
	for (; creds; creds &= creds - 1) {
		uint32_t k = (uint32_t)__builtin_ctzll(creds);

		credits +=
			dp_port_credits_in(&r->port[k], now, &r->lc->next_event,
					   r->eng->credit, r, k);
	}
	work = credits;
	for (; pkts; pkts &= pkts - 1) {
		uint32_t k = (uint32_t)__builtin_ctzll(pkts);

		work += receive(r, &r->port[k], k, now);
	}
	if (unlikely(r->eng->step != NULL))
		r->eng->step(r, now, credits);
	work += allocate(r, now);
	if (r->oq_ports)
		work += oq_drain(r, now);
	return work;
}
