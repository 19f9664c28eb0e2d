/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shortest ([SP] §I): route along a true shortest path. Where the HM path
 * is not one, a short Valiant path (gg, ggl, lgg, glg) is: VAL's path
 * through the group control/ chose (df_tables_shortest). Those paths need
 * two global VCs, as Valiant does ([SP] §I), so the algorithm runs on
 * VAL's VC plan and deadlock check. Deterministic: one path per pair.
 */
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "worker.h"

static void shortest_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	uint16_t gi =
		tb->short_inter[(size_t)r->id * tb->nrouters + pk->dst_router];

	pk->inter = gi;
	if (gi == DF_NO_GROUP) {
		pk->phase = DF_PH_TO_DEST;
		r->decisions_min++;
	} else {
		/* a shortcut: non-minimal in [DF]'s sense (two global hops),
		 * though shorter than the HM path */
		pk->phase = DF_PH_TO_INTER;
		pk->flags |= DP_PKT_NONMIN;
		r->decisions_nonmin++;
	}
}

const struct dp_routing_engine dp_shortest_engine = {
	.decide = shortest_decide,
	.route = dp_table_route,
};
