/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_OFAR_MISROUTE_H
#define DP_OFAR_MISROUTE_H

/*
 * OFAR's misrouting rules as pure functions of occupancies, so the unit
 * tests drive them on crafted numbers (tests/test_ofar.c) and ofar.c
 * only gathers the numbers. [OC] §V misroutes with "a misrouting
 * threshold of 90 % as presented in [4]" and "the MM global misrouting
 * policy, as introduced in [18]"; neither reference is in [OC] itself,
 * so the readings chosen are stated here and in docs/routing.md ("OFAR"):
 *
 *  - The trigger: a packet may leave its minimal path only when the
 *    minimal output cannot take it now (short of credits, or its link
 *    busy) and that output holds at least misroute_trigger of its
 *    buffers. 0 misroutes at every blocked moment, which under uniform
 *    traffic turns a link that is only busy sending into a detour. The
 *    OFAR journal paper (García et al., J. Supercomputing 71(3), 2015)
 *    notes in a footnote that such a minimum occupancy of the minimal
 *    queue might also be required.
 *  - The eligibility threshold: a non-minimal output is a candidate when
 *    its occupancy is at most misroute_threshold (0.9) times the minimal
 *    output's.
 *  - The global policy, which outputs a global misroute may take: CRG,
 *    the current router's global links only; RRG, any router's in the
 *    source group (a local hop first when it is another router's); MM,
 *    CRG at the router the packet was injected at and RRG once it has
 *    left it ("adds a local hop when the packet has moved away from the
 *    source router").
 *  - The pick among the candidates: at random, or the one with the most
 *    free buffer (the lowest occupancy).
 */
#include <stdint.h>

#include "config.h"

/* Misroute at all? min_occ of min_cap flits used at the minimal output,
 * which can (blocked = 0) or cannot (1) take the packet now; trig_q8 is
 * misroute_trigger x 256. */
static inline int dp_ofar_trigger(int blocked, uint32_t min_occ,
				  uint32_t min_cap, uint32_t trig_q8)
{
	return blocked &&
	       (uint64_t)min_occ * 256 >= (uint64_t)trig_q8 * min_cap;
}

/* Is a non-minimal output with occ flits used a candidate, against the
 * minimal output's min_occ (rel_q8: misroute_threshold x 256)? An empty
 * minimal output leaves none: the packet waits for it. */
static inline int dp_ofar_eligible(uint32_t occ, uint32_t min_occ,
				   uint32_t rel_q8)
{
	return (uint64_t)occ * 256 <= (uint64_t)min_occ * rel_q8 && min_occ > 0;
}

/* May a global misroute start with a local hop to another router's
 * global links? left_src: the packet has left the router it was
 * injected at. */
static inline int dp_ofar_global_via_local(enum df_mis_policy pol, int left_src)
{
	switch (pol) {
	case DF_MIS_RRG:
		return 1;
	case DF_MIS_MM:
		return left_src;
	default: /* DF_MIS_CRG */
		return 0;
	}
}

/* Which of n candidates with occupancies occ[] to take: rnd (drawn
 * below n) for random; for most-free the lowest occupancy, the first of
 * equals from rnd on, so ties do not always favour the lowest port. */
static inline uint32_t dp_ofar_pick(enum df_mis_pick pick, const uint32_t *occ,
				    uint32_t n, uint32_t rnd)
{
	uint32_t best = rnd;

	if (pick == DF_PICK_RANDOM)
		return rnd;
	for (uint32_t i = 1; i < n; i++) {
		uint32_t c = (rnd + i) % n;

		if (occ[c] < occ[best])
			best = c;
	}
	return best;
}

#endif
