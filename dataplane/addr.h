/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ADDR_H
#define DP_ADDR_H

/*
 * Terminal addresses -> terminal, for frames arriving on DPDK ports: one
 * open-addressing table for MACs and one for IPv4 addresses, built before
 * the run (the config guarantees both are unique), read without locks.
 * A lookup costs one multiply and, at a load of at most 1/2, about 1.5
 * probes on average, where a scan of every terminal cost up to nterms
 * compares per frame.
 */
#include <stdint.h>

#define DP_ADDR_NONE UINT32_MAX

struct dp_addr_slot {
	uint64_t key;  /* MAC in the low 48 bits, or the IPv4 (network order) */
	uint32_t term; /* DP_ADDR_NONE: empty */
};

struct dp_addr_table {
	uint32_t mask; /* slots - 1, slots a power of two >= 2 x entries */
	struct dp_addr_slot *slot;
};

static inline uint64_t dp_mac_key(const uint8_t *mac)
{
	uint64_t k = 0;

	for (int i = 0; i < 6; i++)
		k = k << 8 | mac[i];
	return k;
}

static inline uint32_t dp_addr_hash(uint64_t key, uint32_t mask)
{
	/* Fibonacci hashing: the high bits of key x 2^64/phi */
	return (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

static inline uint32_t dp_addr_find(const struct dp_addr_table *t, uint64_t key)
{
	for (uint32_t i = dp_addr_hash(key, t->mask);; i = (i + 1) & t->mask) {
		const struct dp_addr_slot *s = &t->slot[i];
		if (s->term == DP_ADDR_NONE || s->key == key)
			return s->term;
	}
}

/* Tables for n terminals' MACs and IPv4s; 0, or -1 when out of memory. */
int dp_addr_build(struct dp_addr_table *mac, struct dp_addr_table *ip,
		  const uint8_t (*macs)[6], const uint32_t *ips, uint32_t n);
void dp_addr_free(struct dp_addr_table *t);

#endif
