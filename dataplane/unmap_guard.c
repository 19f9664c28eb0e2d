/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unmap guard (unmap_guard.h). dfemu defines munmap() itself and the
 * executables export it (meson.build: --export-dynamic-symbol), so the
 * drivers EAL loads call this one: from the interrupt thread it first
 * waits for the online workers, from any other thread it unmaps at once.
 * The unmap itself is the system call, as glibc's munmap() makes it.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

#include "unmap_guard.h"

static struct rte_rcu_qsbr *guard;
static uint64_t waits;

struct rte_rcu_qsbr *dp_unmap_guard_init(void)
{
	struct rte_rcu_qsbr *q = __atomic_load_n(&guard, __ATOMIC_ACQUIRE);
	size_t sz;

	if (q != NULL)
		return q;
	/* once per process and never freed: an interrupt thread may hold
	 * it at any time until the process ends */
	sz = RTE_ALIGN_CEIL(rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
			    RTE_CACHE_LINE_SIZE);
	q = aligned_alloc(RTE_CACHE_LINE_SIZE, sz);
	if (q == NULL || rte_rcu_qsbr_init(q, RTE_MAX_LCORE) != 0) {
		free(q);
		return NULL;
	}
	__atomic_store_n(&guard, q, __ATOMIC_RELEASE);
	return q;
}

void dp_unmap_guard_online(struct rte_rcu_qsbr *q, unsigned lcore_id)
{
	if (q == NULL || lcore_id >= RTE_MAX_LCORE)
		return;
	rte_rcu_qsbr_thread_register(q, lcore_id);
	rte_rcu_qsbr_thread_online(q, lcore_id);
}

void dp_unmap_guard_offline(struct rte_rcu_qsbr *q, unsigned lcore_id)
{
	if (q == NULL || lcore_id >= RTE_MAX_LCORE)
		return;
	rte_rcu_qsbr_thread_offline(q, lcore_id);
	rte_rcu_qsbr_thread_unregister(q, lcore_id);
}

uint64_t dp_unmap_guard_waits(void)
{
	return __atomic_load_n(&waits, __ATOMIC_RELAXED);
}

int munmap(void *addr, size_t len)
{
	struct rte_rcu_qsbr *q = __atomic_load_n(&guard, __ATOMIC_ACQUIRE);

	if (q != NULL && rte_thread_is_intr()) {
		__atomic_fetch_add(&waits, 1, __ATOMIC_RELAXED);
		rte_rcu_qsbr_synchronize(q, RTE_QSBR_THRID_INVALID);
	}
	return (int)syscall(SYS_munmap, addr, len);
}
