/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_LINK_H
#define DP_LINK_H

/*
 * A directed link (DESIGN.md §3): a single-producer/single-consumer rte_ring
 * used as a FIFO delay line plus the sender's serializer. A departing
 * packet starts when the serializer is free and the packet is ready,
 * finishes size/bandwidth later and is due at the far end one latency
 * after that; the receiver releases it once due. Credits travel on a second
 * SP/SC ring the other way, each message due one credit latency after the
 * buffer space was freed.
 */
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

struct dp_credit {
	uint64_t due;
	uint32_t vc;
	uint32_t flits;
};

struct dp_link {
	/* sender side: written by the upstream lcore */
	struct rte_ring *pkts;
	uint64_t busy_until; /* serializer free from this TSC on */
	uint64_t lat_tsc;
	uint64_t cyc_per_byte_q16; /* 16.16 fixed point; 0 = unlimited */
	uint64_t tx_pkts, tx_bytes;
	uint8_t cls;
	uint32_t from, from_port, to, to_port; /* for reports */
	/* capture (tap.h): interface index + 1, 0 = not captured; the
	 * VCs captured; packets handed to the writer, and not */
	uint32_t cap_if, cap_vcs;
	uint64_t cap_taken, cap_skipped;
	/* failed (control/faults.h): the sender routes around it; set by
	 * the main lcore after the tables without it are in place */
	volatile uint8_t down;

	/* receiver side: written by the downstream lcore */
	struct rte_ring *credits __rte_cache_aligned;
	uint64_t credit_lat_tsc;
	uint64_t last_credit_due; /* credit ring stays ordered by due */
	/* failed with faults.in_flight = drop: packets due up to this TSC
	 * are lost on arrival (UINT64_MAX while down); 0 = none */
	volatile uint64_t drop_until;
} __rte_cache_aligned;

/* Serialization time of len bytes on link l, in TSC cycles. */
static inline uint64_t dp_link_ser(const struct dp_link *l, uint32_t len)
{
	return (l->cyc_per_byte_q16 * len) >> 16;
}

/*
 * Send: the packet starts at max(serializer free, ready), where ready is
 * the latest of its arrival and the credit that let it go (the caller
 * passes it). Returns the due time at the far end.
 */
static inline uint64_t dp_link_depart(struct dp_link *l, uint64_t ready,
				      uint32_t len)
{
	uint64_t start = l->busy_until > ready ? l->busy_until : ready;

	l->busy_until = start + dp_link_ser(l, len);
	l->tx_pkts++;
	l->tx_bytes += len;
	return l->busy_until + l->lat_tsc;
}

/* A credit of flits on VC vc onto l's credit ring, due upstream at due
 * (or with the one before it: the ring is a FIFO delay line). */
static inline int dp_link_credit_at(struct dp_link *l, uint64_t due,
				    uint32_t vc, uint32_t flits)
{
	struct dp_credit c;

	c.due = due < l->last_credit_due ? l->last_credit_due : due;
	l->last_credit_due = c.due;
	c.vc = vc;
	c.flits = flits;
	return rte_ring_sp_enqueue_elem(l->credits, &c, sizeof(c));
}

/* Return flits of buffer space on VC vc, freed at time t, upstream. */
static inline int dp_link_credit(struct dp_link *l, uint64_t t, uint32_t vc,
				 uint32_t flits)
{
	return dp_link_credit_at(l, t + l->credit_lat_tsc, vc, flits);
}

#endif
