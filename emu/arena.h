/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_ARENA_H
#define EMU_ARENA_H

/*
 * The run's dataplane memory (link FIFOs, VC queues, routers, terminals):
 * carved from a few large zeroed rte_malloc blocks and freed together at
 * teardown. A [OC]-sized dragonfly has some 30,000 links and 60,000 VC
 * queues; one rte_malloc call each made start-up slow, and one rte_ring
 * each ran into DPDK's memzone limit (docs/performance.md, "Size").
 */
#include <stddef.h>

struct emu_arena_chunk;

struct emu_arena {
	struct emu_arena_chunk *chunks;
	char *cur;
	size_t left;
	size_t total; /* bytes handed out */
};

/* size bytes, zeroed, aligned to a cache line; NULL when out of memory. */
void *emu_arena_alloc(struct emu_arena *a, size_t size);
/* Every block back to DPDK's heap; the arena is empty again. */
void emu_arena_free(struct emu_arena *a);

#endif
