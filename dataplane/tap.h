/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_TAP_H
#define DP_TAP_H

/*
 * Capture taps (docs/design.md, Observability). A link selected in
 * [capture] has cap_if set; when a packet departs on it, the sending lcore
 * copies the first snaplen bytes and the packet's state into a record from
 * the capture pool and queues it on its own SP/SC ring; the main lcore
 * writes the records to the pcapng file. Capture never waits: with no
 * record free or the ring full, the packet is not captured and the link
 * counts it as skipped. The pool is not the packets' pool, so capture
 * cannot starve forwarding.
 */
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "link.h"

struct dp_lcore;

#define DP_ROUTE_MINIMAL    0
#define DP_ROUTE_NONMINIMAL 1
#define DP_ROUTE_ESCAPE	    2

struct dp_cap_rec {
	uint64_t t_depart; /* TSC: emulated start of transmission */
	uint64_t t_arrive; /* emulated arrival of its tail at the far end */
	uint64_t late;	   /* TSC the host was behind at the departure */
	uint32_t iface;	   /* pcapng interface index */
	uint32_t src, dst; /* terminals */
	uint32_t len;	   /* frame bytes */
	uint16_t caplen;   /* bytes kept */
	uint8_t vc;	   /* VC on this link */
	uint8_t hop;	   /* the link's place on the path, 0 = injection */
	uint8_t route;	   /* DP_ROUTE_* */
	uint8_t external;  /* a frame from a DPDK port */
	uint8_t data[];
};

void dp_cap_copy(struct dp_lcore *lc, struct dp_link *l, struct rte_mbuf *m,
		 uint32_t vc, uint32_t hop, uint64_t now);

/* After dp_link_depart: the packet left on l, on VC vc, as link number
 * hop of its path. */
static inline void dp_cap_tap(struct dp_lcore *lc, struct dp_link *l,
			      struct rte_mbuf *m, uint32_t vc, uint32_t hop,
			      uint64_t now)
{
	if (unlikely(l->cap_if != 0))
		dp_cap_copy(lc, l, m, vc, hop, now);
}

#endif
