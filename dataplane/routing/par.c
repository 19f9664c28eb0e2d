/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAR, progressive adaptive routing (in-transit adaptive routing of Jiang,
 * Kim and Dally, ISCA 2009: [OC] §II, its ref. [7]). UGAL-L's decision
 * ([DF] §4.2, local port queues) at the source router; a packet that goes
 * minimal toward another group takes its local hops in the source group
 * provisionally (DF_PH_SRC_MIN), and the router each such hop reaches
 * decides again, with a new random intermediate group, on its own queues.
 * So a packet sent toward a minimal global channel that is congested
 * beyond the first router can still leave for an intermediate group from
 * the router that holds that channel, the router that sees its queue
 * directly ([DF] §4.3: UGAL-L's trouble is that the source router does
 * not). Once non-minimal, or past the source group, the path is fixed.
 *
 * VCs: the provisional hop is a fourth local phase, below the Valiant
 * phases, so PAR needs 4 local VCs and 2 global; control/vcplan.c
 * enumerates the switches and checks the channel-dependency graph.
 */
#include "routing.h"
#include "router.h"
#include "worker.h"

static void par_decide(struct dp_router *r, struct dp_pkt *pk)
{
	const struct df_tables *tb = r->lc->run->tb;
	int transit = pk->hops > 0; /* not at the source router */

	dp_ugal_decide(r, pk, dp_rand_group(&r->rng, tb), DP_UGAL_PORT);
	if (transit) {
		r->redecisions++;
		r->redecisions_nonmin += pk->inter != DF_NO_GROUP;
	}
	/* minimal toward another group: provisional until the global hop
	 * (df_next_hop turns it into TO_DEST there) */
	if (pk->inter == DF_NO_GROUP &&
	    tb->group_of[pk->dst_router] != r->group)
		pk->phase = DF_PH_SRC_MIN;
}

const struct dp_routing_engine dp_par_engine = {
	.decide = par_decide,
	.route = dp_table_route,
	.own_occ = 1,
	/* the router a provisional hop reaches decides again */
	.decide_phases = 1u << DF_PH_SRC_MIN,
};
