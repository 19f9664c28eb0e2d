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

const struct dp_routing_engine *dp_routing_engine(enum df_algorithm alg)
{
	switch (alg) {
	case DF_ALG_MIN:
		return &dp_min_engine;
	case DF_ALG_VAL:
		return &dp_val_engine;
	case DF_ALG_UGAL_L:
		return &dp_ugal_l_engine;
	case DF_ALG_UGAL_G:
		return &dp_ugal_g_engine;
	case DF_ALG_UGAL_L_VC:
		return &dp_ugal_l_vc_engine;
	case DF_ALG_UGAL_L_VCH:
		return &dp_ugal_l_vch_engine;
	case DF_ALG_UGAL_L_CR:
		return &dp_ugal_l_cr_engine;
	case DF_ALG_PAR:
		return &dp_par_engine;
	case DF_ALG_OFAR:
		return &dp_ofar_engine;
	case DF_ALG_VC_ORDERED:
		return &dp_vc_ordered_engine;
	case DF_ALG_SHORTEST:
		return &dp_shortest_engine;
	default:
		return NULL;
	}
}
