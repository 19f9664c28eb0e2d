/* SPDX-License-Identifier: BSD-3-Clause */
#include "routing.h"
#include "router.h"
#include "worker.h"

/* [DF] §4.1: follow the tables toward the intermediate group, then toward
 * the destination; the VC comes from the plan control/ checked. */
void dp_table_route(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;

	pk->out_port = (uint8_t)df_next_hop(tb, r->id, pk->dst_router,
					    pk->dst_term % tb->p, pk->inter,
					    &pk->phase, &pk->out_vc);
}
