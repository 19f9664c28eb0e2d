/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_CREDIT_H
#define DP_CREDIT_H

/*
 * Credit return at a router: the input buffer space a departing packet
 * held goes back upstream when the packet has left, unless the engine
 * keeps it for later (UGAL-L_CR, [DF] §4.3.2: routing/ugal_cr.c). Inline,
 * for the router's hot loop; a header of its own so tests can drive it
 * alone.
 */
#include <stdint.h>

#include "port.h"
#include "router.h"
#include "routing.h"
#include "worker.h"

/*
 * Input space of flits flits on VC vc of link l, free at t, goes back
 * upstream (its credit due a credit latency later), in the step at now:
 * counted sent (credits_in) here, where it leaves its receiver, not where
 * its sender takes it, since a sender may take a credit only when it
 * needs it; what is still on its way when the run ends is taken back
 * then (emu/account.c, settle_credits).
 */
static inline void dp_credit_send(struct dp_lcore *lc, struct dp_link *l,
				  uint64_t t, uint32_t vc, uint32_t flits,
				  uint64_t now)
{
	if (unlikely(dp_link_credit(l, t, vc, flits, now) != 0))
		lc->st.enq_fail++;
	else
		lc->st.credits_in++;
}

/*
 * A packet of flits flits left input port k (VC vc) through output o (VC
 * out_vc), serialised from start to finish: its input space is free at
 * finish, when its credit goes upstream, unless the engine keeps it
 * (routing.h, leave: UGAL-L_CR holds some back, ugal_cr.c).
 */
static inline void dp_credit_return(struct dp_router *r, struct dp_port *ip,
				    uint32_t k, uint32_t vc, uint32_t o,
				    uint32_t out_vc, uint64_t start,
				    uint64_t finish, uint32_t flits)
{
	r->lc->st.credits_out++;
	if (unlikely(r->eng->leave != NULL) &&
	    r->eng->leave(r, k, vc, o, out_vc, start, finish, flits))
		return;
	dp_credit_send(r->lc, ip->in, finish, vc, flits, r->lc->now);
}

#endif
