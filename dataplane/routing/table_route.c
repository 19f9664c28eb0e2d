/* SPDX-License-Identifier: BSD-3-Clause */
#include "routing.h"
#include "router.h"
#include "worker.h"

static __rte_noinline uint32_t next_hop(const struct df_tables *tb,
					uint32_t cur, struct dp_pkt *pk,
					uint32_t dport)
{
	return df_next_hop(tb, cur, pk->dst_router, dport, pk->inter,
			   &pk->phase, &pk->out_vc);
}

/* [DF] §4.1: follow the tables toward the intermediate group, then toward
 * the destination; the VC comes from the plan control/ checked. df_hop is
 * df_next_hop, the rule control/ checks, read from its memo. */
void dp_table_route(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	/* the terminal's port at its router: dst_router = dst_term / p, so
	 * a multiplication gives dst_term % p without a division */
	uint32_t dport = pk->dst_term - (uint32_t)pk->dst_router * tb->p;

	if (unlikely(tb->hop == NULL)) {
		/* a flattened butterfly's (a call: the rule's registers
		 * would cost the dragonfly's hop its own) */
		pk->out_port = (uint8_t)next_hop(tb, r->id, pk, dport);
		return;
	}
	pk->out_port = (uint8_t)df_hop(tb, r->id, pk->dst_router, dport,
				       pk->inter, &pk->phase, &pk->out_vc);
}
