/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UGAL-L_CR's credit round trip ([DF] §4.3.2): each output measures the
 * round trip of its credits (a packet's departure to its credit's
 * return); t_d, the part above the smallest seen, is the output's
 * congestion; the credit of a packet that left through an output with a
 * larger t_d than the router's smallest is held back by the difference
 * (the rule is dp_cr_extra(), ugal_rule.h), so the routers upstream see
 * the congestion in their own credit counts. The decision itself is
 * UGAL-L_VCH's (ugal.c). The router calls these hooks (routing.h) and
 * keeps none of this state (docs/design.md, "Routing engines").
 */
#include <rte_common.h>

#include "credit.h"
#include "ugal_cr.h"
#include "worker.h"

int dp_cr_init(struct dp_router *r, const struct df_config *cfg,
	       const struct dp_eng_mem *mem)
{
	struct dp_cr_router *cr = mem->zalloc(
		mem->ctx, sizeof(*cr) + r->nports * sizeof(cr->port[0]));

	RTE_SET_USED(cfg);
	if (cr == NULL)
		return -1;
	cr->rel_next = UINT64_MAX;
	for (uint32_t k = 0; k < r->nports; k++) {
		const struct dp_port *p = &r->port[k];
		struct dp_cr_port *c = &cr->port[k];

		c->t_crt0 = UINT64_MAX;
		if (p->cls != DF_LINK_TERMINAL)
			cr->net |= 1ULL << k;
		for (uint32_t v = 0; v < p->nvc; v++) {
			/* one entry per packet in flight: at most one per
			 * downstream flit */
			uint32_t n = rte_align32pow2(p->credit_full[v]);

			c->ctq[v] = mem->zalloc(mem->ctx, n * sizeof(uint64_t));
			c->dq[v] = mem->zalloc(mem->ctx,
					       n * sizeof(struct dp_credit));
			if (c->ctq[v] == NULL || c->dq[v] == NULL)
				return -1;
			c->ctq_mask = c->dq_mask = n - 1;
		}
	}
	r->eng_priv = cr;
	return 0;
}

/* Keep a credit of input port k until release time rel. A credit never
 * overtakes an earlier one of its VC (order per VC): it is its VC's
 * first, or due no earlier than the first, so the router's first due
 * is rel's or stays. */
static void hold(struct dp_router *r, struct dp_cr_router *cr,
		 struct dp_cr_port *ip, uint32_t k, uint32_t vc, uint64_t rel,
		 uint32_t flits)
{
	struct dp_credit *c;

	if (ip->dq_head[vc] != ip->dq_tail[vc]) {
		uint64_t last =
			ip->dq[vc][(ip->dq_tail[vc] - 1) & ip->dq_mask].due;
		if (rel < last)
			rel = last;
	}
	c = &ip->dq[vc][ip->dq_tail[vc]++ & ip->dq_mask];
	c->due = rel;
	c->vc = vc;
	c->flits = flits;
	r->eng_busy |= 1ULL << k;
	if (rel < cr->rel_next)
		cr->rel_next = rel;
}

/* The output's credit timestamp queue records the departure, and the
 * credit may be held back t_d(O) - min t_d; a held credit, and every
 * later one of its VC, waits in the input's per-VC queue so that the
 * link's other VCs go on. */
int dp_cr_leave(struct dp_router *r, uint32_t k, uint32_t vc, uint32_t o,
		uint32_t out_vc, uint64_t start, uint64_t finish,
		uint32_t flits)
{
	struct dp_cr_router *cr = r->eng_priv;
	struct dp_cr_port *ip = &cr->port[k], *op = &cr->port[o];
	uint64_t extra = dp_cr_extra(cr->td[o], cr->td_min,
				     r->port[k].cls == DF_LINK_LOCAL);

	op->ctq[out_vc][op->ctq_tail[out_vc]++ & op->ctq_mask] = start;
	if (extra) {
		op->cr_delayed++;
		op->cr_delay_sum += extra;
	}
	if (!extra && ip->dq_head[vc] == ip->dq_tail[vc])
		return 0;
	hold(r, cr, ip, k, vc, finish + extra, flits);
	return 1;
}

/* A credit came back on output k: its packet's round trip is one sample
 * of t_crt. */
void dp_cr_credit(struct dp_router *r, uint32_t k, const struct dp_credit *c)
{
	struct dp_cr_router *cr = r->eng_priv;
	struct dp_cr_port *p = &cr->port[k];
	uint32_t v = c->vc;
	uint64_t sent;

	if (p->ctq_head[v] == p->ctq_tail[v])
		return;
	sent = p->ctq[v][p->ctq_head[v]++ & p->ctq_mask];
	p->t_crt = c->due > sent ? c->due - sent : 0;
	p->crt_n++;
	p->crt_sum += p->t_crt;
	if (p->t_crt < p->t_crt0)
		p->t_crt0 = p->t_crt;
	cr->td[k] = p->t_crt - p->t_crt0;
}

void dp_cr_td_min(struct dp_router *r)
{
	struct dp_cr_router *cr = r->eng_priv;
	uint64_t m = UINT64_MAX;

	for (uint64_t n = cr->net; n; n &= n - 1) {
		uint64_t td = cr->td[__builtin_ctzll(n)];

		m = td < m ? td : m;
	}
	cr->td_min = m == UINT64_MAX ? 0 : m;
}

/* Send the held credits whose release time has come; each goes upstream
 * stamped with its release time, not with now. The first of the others
 * is the router's next (rel_next), and the lcore's next event. */
void dp_cr_release(struct dp_router *r, uint64_t now)
{
	struct dp_cr_router *cr = r->eng_priv;
	uint64_t ports = r->eng_busy, next = UINT64_MAX;

	while (ports) {
		uint32_t k = __builtin_ctzll(ports), pending = 0;
		struct dp_cr_port *ip = &cr->port[k];
		struct dp_link *in = r->port[k].in;

		ports &= ports - 1;
		for (uint32_t v = 0; v < r->port[k].nvc; v++) {
			while (ip->dq_head[v] != ip->dq_tail[v]) {
				struct dp_credit *c =
					&ip->dq[v]
					       [ip->dq_head[v] & ip->dq_mask];
				if (c->due > now) {
					next = c->due < next ? c->due : next;
					pending = 1;
					break;
				}
				dp_credit_send(r->lc, in, c->due, v, c->flits,
					       now);
				ip->dq_head[v]++;
			}
		}
		if (!pending)
			r->eng_busy &= ~(1ULL << k);
	}
	cr->rel_next = next;
	if (next < r->lc->next_event)
		r->lc->next_event = next;
}

/* After the step's credits (t_d moved: the smallest again) and before
 * switch allocation (the credits whose time has come: none before
 * rel_next, so the steps between walk no queue). */
void dp_cr_step(struct dp_router *r, uint64_t now, unsigned credits)
{
	struct dp_cr_router *cr = r->eng_priv;

	if (credits)
		dp_cr_td_min(r);
	if (!r->eng_busy)
		return;
	if (now >= cr->rel_next)
		dp_cr_release(r, now);
	else if (cr->rel_next < r->lc->next_event)
		r->lc->next_event = cr->rel_next;
}
