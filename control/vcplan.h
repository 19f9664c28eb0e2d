/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_VCPLAN_H
#define DF_VCPLAN_H

#include <stdint.h>
#include <stddef.h>

#include "config.h"
#include "tables.h"

struct df_vcplan_info {
	uint64_t paths;	     /* router-to-router paths enumerated */
	uint32_t max_hops;   /* longest path, router-to-router hops */
	uint32_t max_global; /* most global hops on one path */
	uint64_t channels;   /* (link, VC) channels used */
	uint64_t dependencies;
};

/*
 * Build the VC plan of an algorithm into tb->vc_map / tb->nvcs: enumerate
 * every path the algorithm can take, number the phases each link class
 * actually uses, check them against the configured VC counts, then check
 * the channel-dependency graph for cycles. Returns 0, or -1 with err.
 */
int df_vcplan_build(struct df_tables *tb, const struct df_config *cfg,
		    struct df_vcplan_info *info, char *err, size_t errlen);

/*
 * Channel-dependency check of the plan currently in tb->vc_map: returns 0
 * if acyclic, -1 with a cycle described in err.
 */
int df_vcplan_check(const struct df_tables *tb, enum df_algorithm alg,
		    struct df_vcplan_info *info, char *err, size_t errlen);

/* Channel id of (router, port, VC), as the dependency edges use it. */
static inline uint32_t df_chan_id(const struct df_tables *tb, uint32_t r,
				  uint32_t port, uint32_t vc)
{
	return (r * tb->nports + port) * DF_MAX_VC + vc;
}

/*
 * Is the channel-dependency graph with these edges (a << 32 | b: channel
 * a held while b is requested) acyclic? Sorts and de-duplicates edges in
 * place. Returns 0, or -1 with a cycle described in err.
 */
int df_cdg_check(const struct df_tables *tb, uint64_t *edges, size_t n,
		 struct df_vcplan_info *info, char *err, size_t errlen);

#endif
