/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_PACKET_H
#define DP_PACKET_H

/*
 * Per-packet state lives in the mbuf private area (docs/design.md, A
 * packet's path): the frame itself is never rewritten on its way through
 * the dragonfly.
 */
#include <stdint.h>

#include <rte_mbuf.h>

/* What the reports and the capture read of a packet's path (its
 * routing engine's own state is in eng, below). 0x08 and 0x10 are free:
 * they were OFAR's own bits, now in its part of eng. */
#define DP_PKT_MEASURED 0x01 /* generated inside the measurement window */
#define DP_PKT_NONMIN	0x02 /* routed through an intermediate group */
#define DP_PKT_ESCAPE	0x04 /* in an escape subnetwork (OFAR's ring, tree) */
#define DP_PKT_EXTERNAL 0x20 /* a frame from a DPDK port, not generated */

/*
 * A routing engine's own state on a packet (docs/design.md, "Routing
 * engines"): 8 bytes that only the engine reads and writes, each engine
 * naming its fields in a header of its own (OFAR's misroute state and
 * the output it waits for, ofar_pkt.h; vc-ordered's piggybacked flags,
 * routing.h). Zero at injection; the router, the terminals and the
 * bridge carry them whole, as one word, and read none of them. A union,
 * so that an engine reads its fields through a member, not a cast.
 */
#define DP_PKT_ENG_BYTES 8
union dp_pkt_eng {
	uint8_t u8[DP_PKT_ENG_BYTES];
	uint16_t u16[DP_PKT_ENG_BYTES / 2];
	uint32_t u32[DP_PKT_ENG_BYTES / 4];
	uint64_t u64;
};

struct dp_pkt {
	uint64_t gen_tsc; /* generation time: latency includes source queue */
	uint64_t due_tsc; /* arrival time at the far end of the current link */
	/* its last byte's arrival there: due_tsc's, or later where the
	 * link is cut-through (link.h, dp_link_depart) */
	uint64_t tail_tsc;
	uint32_t src_term, dst_term;
	uint32_t seq;
	uint16_t dst_router;
	uint16_t inter; /* intermediate group, DF_NO_GROUP if minimal */
	uint16_t flits;
	uint8_t phase;	  /* enum df_phase */
	uint8_t vc;	  /* VC of the input buffer the packet occupies */
	uint8_t out_port; /* routing decision at the current router */
	uint8_t out_vc;
	uint8_t hops;  /* router-to-router hops taken */
	uint8_t flags; /* DP_PKT_* */
	uint8_t esc_n; /* escape-subnetwork entries so far (the report's) */
	union dp_pkt_eng eng; /* its routing engine's own (above) */
};

/* one cache line: what a hop reads of a packet is never split */
_Static_assert(sizeof(struct dp_pkt) <= RTE_CACHE_LINE_SIZE,
	       "a packet's state fits one line");

#define DP_PKT_PRIV_SIZE RTE_ALIGN(sizeof(struct dp_pkt), RTE_MBUF_PRIV_ALIGN)

static inline struct dp_pkt *dp_pkt(struct rte_mbuf *m)
{
	return (struct dp_pkt *)rte_mbuf_to_priv(m);
}

/* Built-in traffic frames: Ethernet II, local experimental EtherType. */
#define DP_ETHERTYPE 0x88B5
#define DP_MAGIC     0x4446454dU /* "DFEM" */

struct dp_payload {
	uint32_t magic;
	uint32_t src_term;
	uint32_t dst_term;
	uint32_t seq;
	uint64_t gen_tsc;
} __rte_packed;

#endif
