/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An unmap made by the EAL interrupt thread waits until every worker has
 * finished the sweep it was in (DPDK's QSBR RCU), so that a port's shared
 * memory is never unmapped under a burst still reading it.
 *
 * Why: when a memif peer dies, DPDK 22.11's memif PMD handles the closed
 * socket on the interrupt thread: it marks the port disconnected, then
 * unmaps the shared regions. A worker that checked the mark just before,
 * and is still inside rte_eth_rx_burst() or rte_eth_tx_burst() on that
 * port, then reads unmapped memory; this host saw that segfault (in
 * librte_net_memif) in the surviving instance at the moment its peer was
 * killed. Bursts that start after the mark return at once, so waiting for
 * the workers between the mark and the unmap closes the window: the
 * textbook RCU split of removal and reclamation. docs/instances.md,
 * "An instance that goes away".
 */
#ifndef DP_UNMAP_GUARD_H
#define DP_UNMAP_GUARD_H

#include <rte_rcu_qsbr.h>

/* Set the guard up, once per process (after rte_eal_init); later calls
 * return the same one. NULL when out of memory: then unmaps wait for
 * nobody, as without the guard. */
struct rte_rcu_qsbr *dp_unmap_guard_init(void);

/* Worker lcore side: online at its start, a quiescent report between
 * sweeps (outside every burst), offline before it returns. q may be
 * NULL (no guard). */
void dp_unmap_guard_online(struct rte_rcu_qsbr *q, unsigned lcore_id);
void dp_unmap_guard_offline(struct rte_rcu_qsbr *q, unsigned lcore_id);

static inline void dp_unmap_guard_quiescent(struct rte_rcu_qsbr *q,
					    unsigned lcore_id)
{
	if (q != NULL)
		rte_rcu_qsbr_quiescent(q, lcore_id);
}

/* How many unmaps waited for the workers so far (for the tests). */
uint64_t dp_unmap_guard_waits(void);

#endif
