/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines of control/algorithms.h's list, found by algorithm and
 * topology, in the manner of testpmd's fwd_engines[]. Nothing here to
 * edit for a new algorithm: its line in the list is enough.
 */
#include "routing.h"

const struct dp_routing_engine dp_no_engine;

#define DP_ENGINE_ROW(id, name, dfe, fbe, ...) [DF_ALG_##id] = {&dfe, &fbe},
static const struct dp_routing_engine *const engines[DF_ALG_COUNT][2] = {
	DF_ALGORITHMS(DP_ENGINE_ROW)};
#undef DP_ENGINE_ROW

const struct dp_routing_engine *dp_routing_engine(enum df_algorithm alg,
						  int flatfly)
{
	const struct dp_routing_engine *e = engines[alg][flatfly != 0];

	return e == &dp_no_engine ? NULL : e;
}
