/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "place.h"

/* Whole groups per worker: worker w gets groups [w*G/W, (w+1)*G/W), so
 * the counts differ by at most one group and every local link (and a
 * 1/W share of the global ones) has both ends on one worker. */
static void by_group(uint32_t nrouters, uint32_t group, uint32_t nworkers,
		     uint16_t *worker_of)
{
	uint32_t ngroups = nrouters / group;

	for (uint32_t r = 0; r < nrouters; r++)
		worker_of[r] =
			(uint16_t)((uint64_t)(r / group) * nworkers / ngroups);
}

int df_place(uint32_t nrouters, uint32_t group, uint32_t nworkers,
	     uint32_t routers_per_lcore, uint16_t *worker_of, char *err,
	     size_t errlen)
{
	uint32_t per;

	if (nworkers == 0) {
		snprintf(err, errlen, "placement: no worker lcore available");
		return -1;
	}
	if (routers_per_lcore) {
		uint32_t need =
			(nrouters + routers_per_lcore - 1) / routers_per_lcore;
		if (need > nworkers) {
			snprintf(err, errlen,
				 "[run] routers_per_lcore = %u needs %u worker "
				 "lcores for %u routers, only %u available; "
				 "allowed: 0 (auto) or at least %u routers "
				 "per lcore",
				 routers_per_lcore, need, nrouters, nworkers,
				 (nrouters + nworkers - 1) / nworkers);
			return -1;
		}
		per = routers_per_lcore;
	} else {
		if (nworkers > nrouters)
			nworkers = nrouters;
		if (group > 0 && nrouters % group == 0 &&
		    nrouters / group >= nworkers) {
			by_group(nrouters, group, nworkers, worker_of);
			return (int)nworkers;
		}
		per = (nrouters + nworkers - 1) / nworkers;
	}
	for (uint32_t r = 0; r < nrouters; r++)
		worker_of[r] = r / per;
	return (nrouters + per - 1) / per;
}
