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
	if (unlikely(dp_link_credit(ip->in, finish, vc, flits, r->lc->now) !=
		     0))
		r->lc->st.enq_fail++;
}

#endif
