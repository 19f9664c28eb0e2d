/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_INGRESS_H
#define DP_INGRESS_H

/*
 * What a frame received on a terminal's DPDK port is, decided from its
 * bytes alone (no mbuf, no EAL: the fuzz target calls it as the port
 * does): an ARP request to answer for a terminal, a frame for a
 * terminal, or a drop with its reason. Only the first data_len bytes are
 * read; pkt_len is the whole frame's length.
 */
#include <stdint.h>

#include "addr.h"

#define DP_INGRESS_ARP 0x80000000u /* | the terminal the request is for */

/* The verdict: a terminal id, DP_INGRESS_ARP | id, or ~(enum dp_drop). */
uint32_t dp_ingress_classify(const uint8_t *f, uint32_t data_len,
			     uint32_t pkt_len, uint32_t max_frame,
			     const struct dp_addr_table *mac,
			     const struct dp_addr_table *ip, uint32_t self);

static inline int dp_ingress_is_drop(uint32_t v)
{
	return ~v < 256;
}

static inline int dp_ingress_is_arp(uint32_t v)
{
	return !dp_ingress_is_drop(v) && (v & DP_INGRESS_ARP);
}

#endif
