/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built-in terminal: a traffic generator with an unbounded-in-spirit source
 * queue (open-loop measurement, NOTES-dragonfly-ofar.md pitfall 17: latency
 * counts from generation, source queueing included) and a sink that checks
 * every frame and records latency, hops and path class.
 */
#include <math.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "worker.h"

static inline int in_window(const struct dp_run *run, uint64_t t)
{
	return t >= run->m0 && t < run->m1;
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
		       dp_rand_below(t->lc, per_group);
	case DF_PAT_PERMUTATION:
		return run->perm[t->id];
	default: /* uniform over all terminals but the source */
		d = dp_rand_below(t->lc, run->nterms - 1);
		return d >= t->id ? d + 1 : d;
	}
}

static void add_packet(struct dp_term *t, uint64_t tgen)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	int meas = in_window(run, tgen);

	lc->st.generated++;
	if (meas) {
		lc->st.gen_measured++;
		lc->st.gen_bytes_window += run->packet_bytes;
	}
	if (t->sq_tail - t->sq_head > run->src_queue_mask) {
		lc->st.drops[DP_DROP_SOURCE_QUEUE_FULL]++;
		lc->st.drops_measured += meas;
		return;
	}
	t->srcq[t->sq_tail++ & run->src_queue_mask] = tgen;
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
			double u = (double)((dp_rand(t->lc) >> 11) + 1) *
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

static int inject_one(struct dp_term *t, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	struct dp_port *p = &t->port;
	uint64_t tgen = t->srcq[t->sq_head & run->src_queue_mask], ready;
	struct rte_mbuf *m;
	struct dp_pkt *pk;
	uint32_t dst;

	if (p->out->busy_until > now || p->credits[0] < run->pkt_flits)
		return 0;
	t->sq_head++;
	m = rte_pktmbuf_alloc(run->pool);
	if (unlikely(m == NULL)) {
		lc->st.drops[DP_DROP_NO_MBUF]++;
		lc->st.drops_measured += in_window(run, tgen);
		return 1;
	}
	if (unlikely(rte_pktmbuf_append(m, run->packet_bytes) == NULL)) {
		rte_pktmbuf_free(m);
		lc->st.drops[DP_DROP_NO_MBUF]++;
		lc->st.drops_measured += in_window(run, tgen);
		return 1;
	}
	dst = pick_dest(t);
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
	if (in_window(run, tgen)) {
		pk->flags = DP_PKT_MEASURED;
		lc->st.inj_measured++;
		t->inj_measured++;
	}
	ready = tgen > p->credit_t[0] ? tgen : p->credit_t[0];
	p->credits[0] -= pk->flits;
	pk->due_tsc = dp_link_depart(p->out, ready, run->packet_bytes);
	if (unlikely(rte_ring_sp_enqueue(p->out->pkts, m) != 0))
		lc->st.enq_fail++;
	lc->st.injected++;
	return 1;
}

static void deliver(struct dp_term *t, struct rte_mbuf *m, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	const struct dp_run *run = lc->run;
	struct dp_pkt *pk = dp_pkt(m);
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct dp_payload *pl = (const struct dp_payload *)(eh + 1);
	uint32_t src = pl->src_term, seq = pl->seq;

	dp_hist_add(&lc->st.lateness, now - pk->due_tsc);
	if (unlikely(pl->magic != DP_MAGIC || pl->dst_term != t->id ||
		     src >= run->nterms || src != pk->src_term ||
		     seq != pk->seq ||
		     memcmp(eh->dst_addr.addr_bytes, run->macs[t->id],
			    RTE_ETHER_ADDR_LEN))) {
		lc->st.corrupt++;
	} else {
		lc->rx_cnt[src]++;
		lc->rx_sum[src] += seq;
		lc->rx_sq[src] += (uint64_t)seq * seq;
	}
	lc->st.delivered++;
	t->rx_pkts++;
	if (in_window(run, pk->due_tsc))
		lc->st.rx_bytes_window += m->pkt_len;
	if (pk->due_tsc > lc->st.last_rx)
		lc->st.last_rx = pk->due_tsc;
	if (pk->flags & DP_PKT_MEASURED) {
		lc->st.del_measured++;
		int nonmin = (pk->flags & DP_PKT_NONMIN) != 0;

		dp_hist_add(&lc->st.latency[nonmin], pk->due_tsc - pk->gen_tsc);
		lc->st.hops[pk->hops < DP_MAX_HOPS ? pk->hops
						   : DP_MAX_HOPS - 1]++;
		lc->st.escapes[pk->esc_n < DP_MAX_HOPS ? pk->esc_n
						       : DP_MAX_HOPS - 1]++;
		if (nonmin)
			lc->st.nonminimal++;
		else
			lc->st.minimal++;
	}
	/* The sink takes the frame at once: its buffer space is free at the
	 * arrival time. */
	if (unlikely(dp_link_credit(t->port.in, pk->due_tsc, 0, pk->flits)))
		lc->st.enq_fail++;
	lc->st.credits_out++;
	rte_pktmbuf_free(m);
}

unsigned dp_term_step(struct dp_term *t, uint64_t now)
{
	struct dp_lcore *lc = t->lc;
	struct dp_port *p = &t->port;
	struct rte_mbuf *m;
	unsigned work = dp_port_credits_in(p, now, &lc->next_event);

	lc->st.credits_in += work;

	while ((m = dp_port_rx_next(p, now, &lc->next_event)) != NULL) {
		deliver(t, m, now);
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
	return work;
}

void dp_term_flush(struct dp_term *t)
{
	t->lc->st.not_injected += t->sq_tail - t->sq_head;
	t->sq_head = t->sq_tail;
}
