/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_CREDIT_H
#define DP_CREDIT_H

/*
 * Credit return at a router: the input buffer space a departing packet
 * held goes back upstream when the packet has left. UGAL-L_CR ([DF]
 * §4.3.2) measures each output's credit round trip and holds some credits
 * back; the rule is dp_cr_extra() (routing/ugal_rule.h). Inline, for the
 * router's hot loop; a header of its own so tests can drive it alone.
 */
#include <stdint.h>

#include "port.h"
#include "router.h"
#include "ugal_rule.h"
#include "worker.h"

/* UGAL-L_CR: keep a credit of input port k until release time rel. A
 * credit never overtakes an earlier one of its VC (order per VC). */
static inline void dp_credit_hold(struct dp_router *r, struct dp_port *ip,
				  uint32_t k, uint32_t vc, uint64_t rel,
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
	r->dq_ports |= 1ULL << k;
}

/* Send the held credits whose release time has come; each goes upstream
 * stamped with its release time, not with now. */
static inline void dp_credit_release(struct dp_router *r, uint64_t now)
{
	uint64_t ports = r->dq_ports;

	while (ports) {
		uint32_t k = __builtin_ctzll(ports), pending = 0;
		struct dp_port *ip = &r->port[k];

		ports &= ports - 1;
		for (uint32_t v = 0; v < ip->nvc; v++) {
			while (ip->dq_head[v] != ip->dq_tail[v]) {
				struct dp_credit *c =
					&ip->dq[v]
					       [ip->dq_head[v] & ip->dq_mask];
				if (c->due > now) {
					if (c->due < r->lc->next_event)
						r->lc->next_event = c->due;
					pending = 1;
					break;
				}
				if (unlikely(dp_link_credit(ip->in, c->due, v,
							    c->flits,
							    now) != 0))
					r->lc->st.enq_fail++;
				ip->dq_head[v]++;
			}
		}
		if (!pending)
			r->dq_ports &= ~(1ULL << k);
	}
}

/*
 * A packet of flits flits left input port k (VC vc) through output op (VC
 * out_vc), serialised from start to finish: its input space is free at
 * finish. UGAL-L_CR: the output's credit timestamp queue records the
 * departure, and the credit may be held back t_d(O) - min t_d; a held
 * credit, and every later one of its VC, waits in the input's per-VC queue
 * so the link's other VCs go on.
 */
static inline void dp_credit_return(struct dp_router *r, struct dp_port *ip,
				    uint32_t k, uint32_t vc, struct dp_port *op,
				    uint32_t out_vc, uint64_t start,
				    uint64_t finish, uint32_t flits)
{
	r->lc->st.credits_out++;
	if (unlikely(op->crt)) {
		uint64_t extra = dp_cr_extra(op->t_d, r->td_min,
					     ip->cls == DF_LINK_LOCAL);

		op->ctq[out_vc][op->ctq_tail[out_vc]++ & op->ctq_mask] = start;
		if (extra) {
			op->cr_delayed++;
			op->cr_delay_sum += extra;
		}
		if (ip->dq[vc] != NULL &&
		    (extra || ip->dq_head[vc] != ip->dq_tail[vc])) {
			dp_credit_hold(r, ip, k, vc, finish + extra, flits);
			return;
		}
	}
	if (unlikely(dp_link_credit(ip->in, finish, vc, flits, r->lc->now) !=
		     0))
		r->lc->st.enq_fail++;
}

/* UGAL-L_CR: the smallest t_d over the router's network outputs. */
static inline void dp_credit_td_min(struct dp_router *r)
{
	uint64_t m = UINT64_MAX;

	for (uint32_t k = 0; k < r->nports; k++)
		if (r->port[k].cls != DF_LINK_TERMINAL && r->port[k].t_d < m)
			m = r->port[k].t_d;
	r->td_min = m == UINT64_MAX ? 0 : m;
}

#endif
