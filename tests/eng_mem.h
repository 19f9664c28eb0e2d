/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_ENG_MEM_H
#define TEST_ENG_MEM_H

/*
 * The routing engines' own state in a test (routing.h, init): calloc'd
 * blocks on a list, all freed at once, where emu/build.c takes them from
 * the arena. Zero it, pass test_eng_mem(&m) to an engine's init, and
 * test_eng_free(&m) at the end.
 */
#include <stdint.h>
#include <stdlib.h>

#include "routing.h"

struct test_eng_block {
	struct test_eng_block *next;
	uint64_t pad; /* the block after it 16-byte aligned */
};

struct test_eng_mem {
	struct test_eng_block *head;
};

static inline void *test_eng_zalloc(void *ctx, size_t size)
{
	struct test_eng_mem *tm = ctx;
	struct test_eng_block *b = calloc(1, sizeof(*b) + size);

	if (b == NULL)
		return NULL;
	b->next = tm->head;
	tm->head = b;
	return b + 1;
}

static inline struct dp_eng_mem test_eng_mem(struct test_eng_mem *tm)
{
	return (struct dp_eng_mem){.zalloc = test_eng_zalloc, .ctx = tm};
}

static inline void test_eng_free(struct test_eng_mem *tm)
{
	while (tm->head != NULL) {
		struct test_eng_block *b = tm->head;

		tm->head = b->next;
		free(b);
	}
}

#endif
