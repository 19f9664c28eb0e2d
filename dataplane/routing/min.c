/* SPDX-License-Identifier: BSD-3-Clause */
/* MIN ([DF] §4.1): local hop to the router holding a global channel to the
 * destination group, the global channel, local hop to the destination. */
#include "routing.h"
#include "router.h"
#include "tables.h"

static void min_decide(struct dp_router *r, struct dp_pkt *pk)
{
	pk->inter = DF_NO_GROUP;
	pk->phase = DF_PH_TO_DEST;
	r->decisions_min++;
}

const struct dp_routing_engine dp_min_engine = {
	.decide = min_decide,
	.route = dp_table_route,
};
