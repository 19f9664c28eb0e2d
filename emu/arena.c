/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_common.h>
#include <rte_malloc.h>

#include "arena.h"

#define CHUNK (16u << 20) /* bytes a block holds, unless one asks more */

struct emu_arena_chunk {
	struct emu_arena_chunk *next;
} __rte_cache_aligned;

void *emu_arena_alloc(struct emu_arena *a, size_t size)
{
	void *p;

	size = RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE);
	if (size > a->left) {
		size_t want = size > CHUNK ? size : CHUNK;
		struct emu_arena_chunk *c = rte_zmalloc(
			"dfemu", sizeof(*c) + want, RTE_CACHE_LINE_SIZE);

		if (c == NULL)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->cur = (char *)(c + 1);
		a->left = want;
	}
	p = a->cur;
	a->cur += size;
	a->left -= size;
	a->total += size;
	return p;
}

void emu_arena_free(struct emu_arena *a)
{
	while (a->chunks != NULL) {
		struct emu_arena_chunk *c = a->chunks;

		a->chunks = c->next;
		rte_free(c);
	}
	a->cur = NULL;
	a->left = 0;
	a->total = 0;
}
