/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_LONE_ROUTER_H
#define TEST_LONE_ROUTER_H

/*
 * A router driven by hand, without a topology (test_alloc, test_credit):
 * its four ports a terminal, two local links and a global one, on an
 * lcore of its own that reads run. Both zeroed (but for the router's
 * random stream) and cache-line aligned; the caller frees both. -1 when
 * out of memory.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "router.h"
#include "worker.h"

#define LONE_PORTS 4

static inline int lone_router(struct dp_run *run, struct dp_lcore **lc,
			      struct dp_router **r)
{
	static const uint8_t cls[LONE_PORTS] = {DF_LINK_TERMINAL, DF_LINK_LOCAL,
						DF_LINK_LOCAL, DF_LINK_GLOBAL};
	size_t sz =
		sizeof(struct dp_router) + LONE_PORTS * sizeof(struct dp_port);

	*lc = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(**lc), 64));
	*r = aligned_alloc(64, RTE_ALIGN_CEIL(sz, 64));
	if (*lc == NULL || *r == NULL)
		return -1;
	memset(*lc, 0, sizeof(**lc));
	memset(*r, 0, sz);
	(*lc)->run = run;
	(*lc)->next_event = UINT64_MAX;
	(*r)->lc = *lc;
	/* a stream that draws (a zero xorshift state stays zero) */
	(*r)->rng = dp_rand_seed(1, DP_RAND_ROUTER, 0);
	(*r)->nports = LONE_PORTS;
	for (int k = 0; k < LONE_PORTS; k++)
		(*r)->port[k].cls = cls[k];
	return 0;
}

#endif
