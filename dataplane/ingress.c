/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "ingress.h"
#include "stats.h"

/*
 * Frames received on the port enter the network at this terminal,
 * addressed by destination MAC, or by destination IPv4 when the MAC is
 * broadcast or multicast; ARP requests for another terminal's IPv4 are
 * answered at the port (proxy ARP) so unmodified hosts can talk through
 * the network. Every read stays within data_len: a truncated header is a
 * runt or an unknown destination, never a read past the segment.
 */
uint32_t dp_ingress_classify(const uint8_t *f, uint32_t data_len,
			     uint32_t pkt_len, uint32_t max_frame,
			     const struct dp_addr_table *mac,
			     const struct dp_addr_table *ip, uint32_t self)
{
	struct rte_ether_hdr eh;
	uint32_t dst;

	if (pkt_len < sizeof(eh) || data_len < sizeof(eh))
		return ~(uint32_t)DP_DROP_RUNT;
	memcpy(&eh, f, sizeof(eh));
	if (eh.ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) &&
	    data_len >= sizeof(eh) + sizeof(struct rte_arp_hdr)) {
		struct rte_arp_hdr ah;
		memcpy(&ah, f + sizeof(eh), sizeof(ah));
		if (ah.arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST)) {
			uint32_t who = dp_addr_find(ip, ah.arp_data.arp_tip);
			if (who != DP_ADDR_NONE && who != self)
				return DP_INGRESS_ARP | who;
		}
	}
	if (pkt_len > max_frame)
		return ~(uint32_t)DP_DROP_OVERSIZE;
	dst = dp_addr_find(mac, dp_mac_key(eh.dst_addr.addr_bytes));
	if (dst == DP_ADDR_NONE && (eh.dst_addr.addr_bytes[0] & 1) &&
	    eh.ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    data_len >= sizeof(eh) + sizeof(struct rte_ipv4_hdr)) {
		struct rte_ipv4_hdr ih;
		memcpy(&ih, f + sizeof(eh), sizeof(ih));
		dst = dp_addr_find(ip, ih.dst_addr);
	}
	if (dst == DP_ADDR_NONE || dst == self)
		return ~(uint32_t)DP_DROP_UNKNOWN_DST;
	return dst;
}
