/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PARTITION_H
#define DF_PARTITION_H

/*
 * [partition]: one dragonfly split by groups over several dfemu
 * instances (docs/instances.md). Keys: instances = N (1: the
 * whole network here), instance = I (which one this process is; also
 * --instance I), iN = A-B (the groups instance N hosts: consecutive,
 * every group in exactly one instance), iN.peerM = vdev or PCI address
 * (the DPDK port instance N reaches instance M through; every pair of
 * instances needs one at each end).
 */
#include <stdint.h>
#include <stddef.h>

#include "config.h"
#include "wiring.h"

/* A [partition] key other than instances/instance: 0 with the instance
 * (and peer, or UINT32_MAX for iN) it names, or -1. */
int df_part_key(const char *key, uint32_t *inst, uint32_t *peer);

/* Apply one such key (from where: "file:line" or "--set ..."). */
int df_part_apply(struct df_config *cfg, const char *where, const char *key,
		  const char *val, char *err, size_t n);

/* Is v (an iN.peerM value) a PCI address, DDDD:BB:DD.F or BB:DD.F with
 * ",devargs" or not? Its full form, the name EAL gives the port, into
 * name (if not NULL). */
int df_part_pci(const char *v, char *name, size_t n);

/* Does this instance reach a peer through a PCI device? */
int df_part_uses_pci(const struct df_config *c);

/* Cross-field checks once the topology's g is known. */
int df_part_validate(const struct df_config *cfg, char *err, size_t n);

/* The instance hosting group G (0 when not partitioned). */
static inline uint32_t df_part_of_group(const struct df_config *c, uint32_t G)
{
	for (uint32_t i = 0; i < c->ninst; i++)
		if (G >= c->inst_lo[i] && G <= c->inst_hi[i])
			return i;
	return 0;
}

/* Is router r (of a routers per group) run by this instance? */
static inline int df_part_local(const struct df_config *c, uint32_t r)
{
	return c->ninst <= 1 || df_part_of_group(c, r / c->a) == c->instance;
}

/* The instance at the far end of router r's port k when that port is a
 * link from this instance to another (its global links that cross), or
 * -1. */
static inline int df_part_crossing(const struct df_config *c,
				   const struct df_topo *t, uint32_t r,
				   uint32_t k)
{
	uint32_t peer = t->ports[r * t->nports + k].peer;

	if (k < t->p || peer == DF_NO_PEER || !df_part_local(c, r) ||
	    df_part_local(c, peer))
		return -1;
	return (int)df_part_of_group(c, peer / t->a);
}

#endif
