/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VAL ([DF] §4.1): Valiant at group level. The intermediate is a group,
 * uniform over all g groups; when it is the source or the destination
 * group the steps conditioned on "Gs != Gi" / "Gi != Gd" vanish and the
 * path is minimal.
 */
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "worker.h"

static void val_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	uint32_t gi = dp_rand_group(&r->rng, tb);
	uint32_t dg = tb->group_of[pk->dst_router];

	if (gi == r->group || gi == dg || r->id == pk->dst_router) {
		pk->inter = DF_NO_GROUP;
		pk->phase = DF_PH_TO_DEST;
		r->decisions_min++;
	} else {
		pk->inter = (uint16_t)gi;
		pk->phase = DF_PH_TO_INTER;
		pk->flags |= DP_PKT_NONMIN;
		r->decisions_nonmin++;
	}
}

const struct dp_routing_engine dp_val_engine = {
	.decide = val_decide,
	.route = dp_table_route,
};
