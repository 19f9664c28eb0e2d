/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VAL on a flattened butterfly ([FB] §3.1): a random intermediate *node*'s
 * router (not a group, NOTES pitfall 11), dimension-order routing to it
 * and then to the destination, one VC per phase. MIN there is the min
 * engine: dimension order toward the destination (control/tables.h
 * fb_next_hop). When the intermediate is the source or destination router
 * the path is minimal.
 */
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "worker.h"

static void fb_val_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	uint32_t inter = dp_rand_below(r->lc, tb->nrouters);

	if (inter == r->id || inter == pk->dst_router) {
		pk->inter = DF_NO_GROUP;
		pk->phase = DF_PH_TO_DEST;
		r->decisions_min++;
	} else {
		pk->inter = (uint16_t)inter;
		pk->phase = DF_PH_TO_INTER;
		pk->flags |= DP_PKT_NONMIN;
		r->decisions_nonmin++;
	}
}

const struct dp_routing_engine dp_fb_val_engine = {
	.name = "val (flattened butterfly)",
	.decide = fb_val_decide,
	.route = dp_table_route,
};
