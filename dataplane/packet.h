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

#define DP_PKT_MEASURED	 0x01 /* generated inside the measurement window */
#define DP_PKT_NONMIN	 0x02 /* routed through an intermediate group */
#define DP_PKT_ESCAPE	 0x04 /* OFAR: in the escape ring */
#define DP_PKT_RING_REV	 0x08 /* OFAR: going round the ring backwards */
#define DP_PKT_GMIS_NEXT 0x10 /* OFAR: local hop taken to misroute globally */
#define DP_PKT_EXTERNAL	 0x20 /* a frame from a DPDK port, not generated */

#define DP_PB_STAMP 0x80000000u /* pb_flags holds a router's flags */
#define DP_PB_BITS  24		/* global ports a stamp can flag */

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
	uint8_t hops; /* router-to-router hops taken */
	uint8_t flags;
	uint8_t esc_n;	   /* OFAR: escape-ring entries so far */
	uint8_t wait_port; /* OFAR: the minimal output it waits for here */
	uint16_t lmis_grp; /* OFAR: 1 + group of the last local misroute */
	/* vc-ordered (PB, piggybacked): DP_PB_STAMP, the sending router's
	 * index in its group << 24 and its global channels' congestion
	 * flags (bit j: its j-th global port); 0 after a global hop */
	uint32_t pb_flags;
};

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
