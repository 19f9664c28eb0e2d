/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built-in terminal: a traffic generator with an unbounded-in-spirit source
 * queue (open-loop measurement, [DF] §4.2: latency counts from generation,
 * source queueing included) and a sink that checks every frame and records
 * latency, hops and path class.
 */
#include <math.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "credit.h"
#include "digest.h"
#include "ingress.h"
#include "tap.h"
#include "worker.h"

/* Is t in the measurement window? Both edges tested, with no branch:
 * at delivery, whether the packet was generated in the window follows the
 * traffic, not the code. */
static inline int in_window(const struct dp_run *run, uint64_t t)
{
	return (t >= run->m0) & (t < run->m1);
}

static uint32_t pick_dest(struct dp_term *t)
{
	const struct dp_run *run = t->lc->run;
	uint32_t per_group = run->p * run->a, d;

	if (run->mode == DF_MODE_ALL_TO_ALL) {
		d = (uint32_t)(((uint64_t)t->a2a_mul * t->a2a_k++ +
				t->a2a_add) %
			       (run->nterms - 1));
		return d >= t->id ? d + 1 : d;
	}
	switch (run->pattern) {
	case DF_PAT_ADVERSARIAL: /* [DF] WC / [OC] ADVG+k */
		return ((t->group + run->shift) % run->g) * per_group +
		       dp_rand_below(&t->rng, per_group);
	case DF_PAT_ROUTER_SHIFT: /* [FB] §3.2 worst case: R_i -> R_i+1 */
		return ((t->router + run->shift) % (run->a * run->g)) * run->p +
		       dp_rand_below(&t->rng, run->p);
	case DF_PAT_PERMUTATION:
		return run->perm[t->id];
	default: /* uniform over all terminals but the source */
		d = dp_rand_below(&t->rng, run->nterms - 1);
		return d >= t->id ? d + 1 : d;
	}
}

static void add_packet(struct dp_term *t, uint64_t tgen)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	int meas = in_window(run, tgen);

	lc->st.generated++;
	lc->st.gen_bytes += run->packet_bytes;
	lc->st.gen_measured += meas;
	lc->st.gen_bytes_window += run->packet_bytes & -(uint64_t)meas;
	if (t->sq_tail - t->sq_head > run->src_queue_mask) {
		lc->st.drops[DP_DROP_SOURCE_QUEUE_FULL]++;
		lc->st.drops_measured += meas;
		return;
	}
	t->srcq[t->sq_tail++ & run->src_queue_mask] =
		tgen | (meas ? DP_SQ_MEASURED : 0);
}

/* Advance the next generation instant by q16 (cycles << 16), keeping the
 * fraction so periodic gaps do not drift. */
static inline void advance(struct dp_term *t, uint64_t q16)
{
	uint64_t tot = t->gen_frac + q16;

	t->next_gen += tot >> 16;
	t->gen_frac = tot & 0xffff;
}

static void generate(struct dp_term *t, uint64_t now)
{
	const struct dp_run *run = t->lc->run;

	if (unlikely(t->paused)) {
		/* drained (emu/change_apply.c): no packets; the schedule starts
		 * afresh when it resumes */
		if (t->next_gen <= now)
			t->next_gen = now + (run->slot_q16 >> 16) + 1;
		return;
	}
	if (run->mode != DF_MODE_STEADY) {
		/* a fixed amount, as fast as flow control lets it in */
		if (t->sq_head == t->sq_tail && t->batch_left) {
			t->batch_left--;
			add_packet(t, now);
		}
		return;
	}
	switch (run->process) {
	case DF_PROC_SATURATE:
		if (t->sq_head == t->sq_tail)
			add_packet(t, now);
		return;
	case DF_PROC_PERIODIC:
		while (t->next_gen <= now) {
			add_packet(t, t->next_gen);
			advance(t, run->gap_q16);
		}
		break;
	default:
		/* Bernoulli: one trial per packet slot; skip straight to the
		 * next success, a geometric number of slots away. */
		while (t->next_gen <= now) {
			double u = (double)((dp_rand(&t->rng) >> 11) + 1) *
				   0x1.0p-53;
			uint64_t k = 1 + (uint64_t)(log(u) / run->ln1m_load);

			add_packet(t, t->next_gen);
			advance(t, k * run->slot_q16);
		}
		break;
	}
	if (t->next_gen < t->lc->next_event)
		t->lc->next_event = t->next_gen;
}

static void write_frame(struct rte_mbuf *m, const struct dp_term *t,
			uint32_t dst, uint64_t tgen)
{
	const struct dp_run *run = t->lc->run;
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct dp_payload *pl = (struct dp_payload *)(eh + 1);

	/* the terminals' addresses (02:df:GG:GG:RR:PP unless configured) */
	memcpy(eh->dst_addr.addr_bytes, run->macs[dst], RTE_ETHER_ADDR_LEN);
	memcpy(eh->src_addr.addr_bytes, run->macs[t->id], RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(DP_ETHERTYPE);
	pl->magic = DP_MAGIC;
	pl->src_term = t->id;
	pl->dst_term = dst;
	pl->seq = t->seq;
	pl->gen_tsc = tgen;
}

/* Onto the terminal's link toward its router: no earlier than t0 nor the
 * credit it uses; the caller checked the credits. */
static void send_in(struct dp_term *t, struct rte_mbuf *m, uint64_t t0,
		    uint64_t now)
{
	struct dp_port *p = &t->port;
	struct dp_pkt *pk = dp_pkt(m);
	uint64_t ready = t0 > p->credit_t[0] ? t0 : p->credit_t[0], start;

	p->credits[0] -= pk->flits;
	pk->due_tsc = dp_link_depart(p->out, ready, m->pkt_len, 0, &start,
				     &pk->tail_tsc, now);
	dp_cap_tap(t->lc, p->out, m, 0, 0, now);
	if (unlikely(dp_link_push(p->out, 0, m, pk->flits, pk->due_tsc) != 0)) {
		t->lc->st.enq_fail++;
		rte_pktmbuf_free(m);
	}
	t->lc->st.injected++;
}

/*
 * A frame's buffer at injection: a spare one if the worker has it, else
 * the pool's. A sink hands its delivered frames' buffers to the worker's
 * next generations (recycle): in the saturated hop bench, a pool's put
 * and get with their checks were some 120 instructions of a packet's 815
 * at the terminals, and the spare's frame is still in cache when
 * write_frame writes it again.
 */
static inline struct rte_mbuf *fresh(struct dp_lcore *lc)
{
	struct rte_mbuf *m;

	if (unlikely(lc->spare_n == 0))
		return rte_pktmbuf_alloc(lc->run->pool);
	m = lc->spare[--lc->spare_n];
	rte_pktmbuf_reset(m);
	return m;
}

/* A delivered frame's buffer: kept as a spare, up to run->spare_max,
 * when it is a plain one of the run's pool (one segment, its own data, no
 * other reference), as rte_pktmbuf_alloc would give it, else freed. */
static inline void recycle(struct dp_lcore *lc, struct rte_mbuf *m)
{
	if (likely(lc->spare_n < lc->run->spare_max &&
		   m->pool == lc->run->pool && RTE_MBUF_DIRECT(m) &&
		   m->nb_segs == 1 && m->next == NULL &&
		   rte_mbuf_refcnt_read(m) == 1))
		lc->spare[lc->spare_n++] = m;
	else
		rte_pktmbuf_free(m);
}

void dp_term_spares_free(struct dp_lcore *lc)
{
	rte_pktmbuf_free_bulk(lc->spare, lc->spare_n);
	lc->spare_n = 0;
}

static int inject_one(struct dp_term *t, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	struct dp_port *p = &t->port;
	uint64_t e = t->srcq[t->sq_head & run->src_queue_mask];
	uint64_t tgen = e & ~DP_SQ_MEASURED;
	int meas = (e & DP_SQ_MEASURED) != 0;
	struct rte_mbuf *m;
	struct dp_pkt *pk;
	uint32_t dst;

	if (p->out->busy_until > now)
		return 0;
	dp_port_credits_vc(p, 0, now); /* a lazy sender's (port.h) */
	if (p->credits[0] < run->pkt_flits)
		return 0;
	t->sq_head++;
	m = fresh(lc);
	if (unlikely(m == NULL)) {
		lc->st.drops[DP_DROP_NO_MBUF]++;
		lc->st.drops_measured += meas;
		return 1;
	}
	if (unlikely(rte_pktmbuf_append(m, run->packet_bytes) == NULL)) {
		rte_pktmbuf_free(m);
		lc->st.drops[DP_DROP_NO_MBUF]++;
		lc->st.drops_measured += meas;
		return 1;
	}
	dst = pick_dest(t);
	if (unlikely(run->tb->gone != NULL) && run->tb->gone[dst / run->p]) {
		/* its destination's instance was lost: not injected */
		rte_pktmbuf_free(m);
		lc->st.drops[DP_DROP_UNREACHABLE]++;
		lc->st.drops_measured += meas;
		return 1;
	}
	write_frame(m, t, dst, tgen);
	pk = dp_pkt(m);
	memset(pk, 0, sizeof(*pk));
	pk->gen_tsc = tgen;
	pk->src_term = t->id;
	pk->dst_term = dst;
	pk->seq = t->seq++;
	pk->dst_router = dst / run->p;
	pk->flits = run->pkt_flits;
	pk->out_port = DF_PORT_NONE;
	if (meas) {
		pk->flags = DP_PKT_MEASURED;
		lc->st.inj_measured++;
		t->inj_measured++;
	}
	send_in(t, m, tgen, now);
	return 1;
}

/* What the accounting needs of a delivered frame, read before the frame
 * is freed or a port owns it. */
static void capture(struct rte_mbuf *m, struct dp_out *o)
{
	const struct dp_pkt *pk = dp_pkt(m);

	o->flits = pk->flits;
	o->len = m->pkt_len;
	o->due = pk->due_tsc;
	o->gen = pk->gen_tsc;
	o->flags = pk->flags;
	o->hops = pk->hops;
	o->esc_n = pk->esc_n;
	o->src = pk->src_term;
	o->seq = pk->seq;
}

static enum dp_pair pair_class(const struct dp_run *run, uint32_t src,
			       uint32_t dst)
{
	uint32_t rs = src / run->p, rd = dst / run->p;

	if (rs == rd)
		return DP_PAIR_ROUTER;
	return rs / run->a == rd / run->a ? DP_PAIR_GROUP : DP_PAIR_GLOBAL;
}

/* A measured port frame delivered at terminal dst after lat TSC cycles:
 * by the pair's class, and by the port it came from. */
static void port_latency(struct dp_lcore *lc, const struct dp_out *o,
			 uint32_t dst, uint64_t lat)
{
	uint16_t k = lc->run->port_idx[o->src];

	dp_hist_add(&lc->st.ext_latency[pair_class(lc->run, o->src, dst)], lat);
	if (k != DP_NO_PORT)
		dp_hist_add(&lc->port_lat[k], lat);
}

/* A frame out of the network at terminal t, its buffer space free at
 * time left: counters, latency from generation (or ingress) and the
 * credit back to the router. The sink and the port terminals share it. */
static void account_delivery(struct dp_term *t, const struct dp_out *o,
			     uint64_t left)
{
	struct dp_lcore *lc = t->lc;
	int nonmin = (o->flags & DP_PKT_NONMIN) != 0;

	/* the window's bytes counted with a mask, not a branch */
	uint64_t win = -(uint64_t)in_window(lc->run, o->due);

	dp_digest_add(&lc->digest, o->src, o->seq, t->id, left);
	lc->st.delivered++;
	lc->st.rx_bytes += o->len;
	t->rx_pkts++;
	lc->st.rx_bytes_window += o->len & win;
	if (o->flags & DP_PKT_EXTERNAL) {
		t->pc.delivered_from_ports++;
		t->pc.delivered_from_ports_bytes_window += o->len & win;
	}
	lc->st.last_rx = RTE_MAX(lc->st.last_rx, left);
	if (o->flags & DP_PKT_MEASURED) {
		lc->st.del_measured++;
		dp_hist_add(&lc->st.latency[nonmin], left - o->gen);
		if (o->flags & DP_PKT_EXTERNAL)
			port_latency(lc, o, t->id, left - o->gen);
		lc->st.hops[o->hops < DP_MAX_HOPS ? o->hops
						  : DP_MAX_HOPS - 1]++;
		lc->st.escapes[o->esc_n < DP_MAX_HOPS ? o->esc_n
						      : DP_MAX_HOPS - 1]++;
		lc->st.nonminimal += nonmin;
		lc->st.minimal += !nonmin;
	}
	dp_credit_send(lc, t->port.in, left, 0, o->flits, lc->now);
	lc->st.credits_out++;
}

/* A built-in frame carries its source and sequence number in its payload:
 * it must be ours, intact, and for this terminal (exactly-once sums). */
static void check_builtin(struct dp_term *t, struct rte_mbuf *m)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	const struct dp_pkt *pk = dp_pkt(m);
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct dp_payload *pl = (const struct dp_payload *)(eh + 1);
	uint32_t src = pl->src_term, seq = pl->seq;

	if (unlikely(pl->magic != DP_MAGIC || pl->dst_term != t->id ||
		     src >= run->nterms || src != pk->src_term ||
		     seq != pk->seq ||
		     memcmp(eh->dst_addr.addr_bytes, run->macs[t->id],
			    RTE_ETHER_ADDR_LEN))) {
		lc->st.corrupt++;
		return;
	}
	dp_settled(lc, src, seq);
}

static void deliver(struct dp_term *t, struct rte_mbuf *m)
{
	struct dp_pkt *pk = dp_pkt(m);
	struct dp_out o;

	/* a host's frame to a terminal with no port: the sink takes it; its
	 * payload is the host's, not ours to check */
	if (!(pk->flags & DP_PKT_EXTERNAL))
		check_builtin(t, m);
	capture(m, &o);
	account_delivery(t, &o, o.due);
	recycle(t->lc, m);
}

/*
 * Terminals bound to DPDK ports ([terminals]). Frames received on
 * the port enter the network at this terminal, addressed by destination
 * MAC (or by destination IPv4 when the MAC is broadcast or multicast); ARP
 * requests for a terminal's IPv4 are answered here (proxy ARP) so
 * unmodified hosts can talk through the dragonfly. Frames the network
 * delivers to this terminal leave on the port; while the port will not
 * take one, it waits and its buffer space is not returned (backpressure).
 */
/* Answer an ARP request for terminal who (dp_ingress_classify found it)
 * on the port the request came in on. */
static void proxy_arp(struct dp_term *t, struct rte_mbuf *m, uint32_t who)
{
	const struct dp_run *run = t->lc->run;
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);

	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	ah->arp_data.arp_tha = ah->arp_data.arp_sha;
	ah->arp_data.arp_tip = ah->arp_data.arp_sip;
	memcpy(ah->arp_data.arp_sha.addr_bytes, run->macs[who],
	       RTE_ETHER_ADDR_LEN);
	ah->arp_data.arp_sip = run->ips[who];
	eh->dst_addr = eh->src_addr;
	memcpy(eh->src_addr.addr_bytes, run->macs[who], RTE_ETHER_ADDR_LEN);
	if (rte_eth_tx_burst((uint16_t)t->eth, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
	t->pc.arp_replies++;
}

/* Send one received frame into the network, if credits allow. */
static int port_inject(struct dp_term *t, struct rte_mbuf *m, uint32_t dst,
		       uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	struct dp_port *p = &t->port;
	struct dp_pkt *pk = dp_pkt(m);
	uint32_t flits = (m->pkt_len + run->flit_bytes - 1) / run->flit_bytes;

	dp_port_credits_vc(p, 0, now); /* a lazy sender's (port.h) */
	if (p->credits[0] < flits)
		return 0;
	memset(pk, 0, sizeof(*pk));
	/* it entered at the wall clock's emulated time (as ns-3 stamps an
	 * external event), not at an earlier step a lagging worker runs:
	 * else its flight would be shortened by the lag */
	pk->gen_tsc = t->in_at > now ? t->in_at : now;
	pk->src_term = t->id;
	pk->dst_term = dst;
	pk->dst_router = (uint16_t)(dst / run->p);
	pk->flits = (uint16_t)flits;
	pk->out_port = DF_PORT_NONE;
	pk->flags = DP_PKT_EXTERNAL;
	if (in_window(run, now)) {
		pk->flags |= DP_PKT_MEASURED;
		lc->st.gen_measured++;
		lc->st.gen_bytes_window += m->pkt_len;
		lc->st.inj_measured++;
		t->inj_measured++;
		t->pc.injected_bytes_window += m->pkt_len;
	}
	lc->st.generated++;
	lc->st.gen_bytes += m->pkt_len;
	t->pc.injected++;
	t->pc.injected_bytes += m->pkt_len;
	send_in(t, m, pk->gen_tsc, now);
	return 1;
}

/* A frame the port took: the exactly-once sums of a built-in frame, then
 * the common accounting; its buffer space is free when the frame was due
 * or, if the port made it wait, now. */
static void port_delivered(struct dp_term *t, const struct dp_out *o,
			   uint64_t now, int waited)
{
	struct dp_lcore *lc = t->lc;

	t->pc.tx++;
	t->pc.tx_bytes += o->len;
	/* a built-in frame to a real host: exactly-once still holds */
	if (!(o->flags & DP_PKT_EXTERNAL))
		dp_settled(lc, o->src, o->seq);
	account_delivery(t, o, waited ? now : o->due);
}

static unsigned port_step(struct dp_term *t, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	struct dp_port *p = &t->port;
	struct rte_mbuf *m;
	unsigned work =
		dp_port_credits_in(p, now, &lc->next_event, NULL, NULL, 0);

	/* out of the network, onto the port; a frame the port refused
	 * waits, and nothing behind it passes */
	if (t->held) {
		if (rte_eth_tx_burst((uint16_t)t->eth, 0, &t->held, 1) != 1) {
			lc->next_event = now;
			goto in;
		}
		t->held = NULL;
		port_delivered(t, &t->held_out, now, 1);
	}
	while ((m = dp_port_rx_next(p, now, &lc->next_event)) != NULL) {
		struct dp_out o;

		capture(m, &o);
		if (rte_eth_tx_burst((uint16_t)t->eth, 0, &m, 1) != 1) {
			t->held = m;
			t->held_out = o;
			t->pc.stalls++;
			lc->next_event = now;
			break;
		}
		port_delivered(t, &o, now, 0);
		work++;
	}
in:
	/* off the port, into the network */
	for (;;) {
		uint32_t dst;
		if (t->in_i == t->in_n) {
			t->in_i = 0;
			t->in_n = rte_eth_rx_burst((uint16_t)t->eth, 0, t->in,
						   RTE_DIM(t->in));
			t->pc.rx += t->in_n;
			if (t->in_n == 0)
				break;
			/* the wall clock read after the burst, not at the
			 * step's start: a worker descheduled in between (a
			 * busy host, for milliseconds) would stamp the frames
			 * before they came, and shorten their flight */
			t->in_at = lc->run->paced
					   ? dp_wall_step(lc->run, rte_rdtsc())
					   : now;
			for (uint16_t k = 0; k < t->in_n; k++)
				t->pc.rx_bytes += t->in[k]->pkt_len;
			if (t->pc.rx_first == 0)
				t->pc.rx_first = now;
			t->pc.rx_last = now;
			work += t->in_n;
		}
		m = t->in[t->in_i];
		dst = dp_ingress_classify(rte_pktmbuf_mtod(m, const uint8_t *),
					  m->data_len, m->pkt_len,
					  lc->run->max_frame, &lc->run->mac_tab,
					  &lc->run->ip_tab, t->id);
		if (dp_ingress_is_arp(dst)) {
			proxy_arp(t, m, dst & ~DP_INGRESS_ARP);
			t->in_i++;
			continue;
		}
		if (dp_ingress_is_drop(dst)) {
			lc->st.generated++;
			lc->st.gen_bytes += m->pkt_len;
			lc->st.drops[~dst]++;
			t->pc.drops[~dst]++;
			rte_pktmbuf_free(m);
			t->in_i++;
			continue;
		}
		if (!port_inject(t, m, dst, now)) {
			lc->next_event = now; /* credits will come */
			break;
		}
		t->in_i++;
	}
	return work;
}

unsigned dp_term_step(struct dp_term *t, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	struct dp_port *p = &t->port;
	uint64_t poll = t->poll;
	struct rte_mbuf *m;
	unsigned work;

	t->poll = 0;
	if (t->eth >= 0)
		return port_step(t, now);
	/* only the FIFOs whose wake fired (as a router's) */
	work = poll & (1ULL << DP_TERM_POLL_CRED)
		       ? dp_port_credits_in(p, now, &lc->next_event, NULL, NULL,
					    0)
		       : 0;
	if (poll & (1ULL << DP_TERM_POLL_PKT))
		while ((m = dp_port_rx_next(p, now, &lc->next_event)) != NULL) {
			deliver(t, m);
			work++;
		}
	if (lc->gen_on)
		generate(t, now);
	else if (t->sq_head != t->sq_tail && !lc->run->inject_rest)
		dp_term_flush(t); /* generation ended: the rest never enters */
	while (t->sq_head != t->sq_tail && inject_one(t, now))
		work++;
	if (t->sq_head != t->sq_tail)
		lc->next_event = now;
	else if (lc->gen_on && t->next_gen != UINT64_MAX &&
		 t->gen_wake.state != DP_WAKE_QUEUED)
		/* idle until the next packet (a wake already queued is
		 * for an earlier instant: it comes first) */
		dp_wheel_insert(lc->wheel, &t->gen_wake, t->next_gen);
	return work;
}

int dp_term_busy(const struct dp_term *t)
{
	const struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;

	/* (a terminal bound to a port is polled at every step the worker
	 * runs, lc->pollers: no work of its own) */
	if (t->sq_head != t->sq_tail)
		return 1;
	if (!lc->gen_on)
		return 0;
	/* generators with no schedule: a packet whenever the queue is
	 * empty */
	if (run->mode != DF_MODE_STEADY)
		return t->batch_left != 0;
	return run->process == DF_PROC_SATURATE;
}

void dp_term_flush(struct dp_term *t)
{
	t->lc->st.not_injected += t->sq_tail - t->sq_head;
	t->sq_head = t->sq_tail;
}
