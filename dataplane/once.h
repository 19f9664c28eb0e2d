/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ONCE_H
#define DP_ONCE_H

/*
 * Exactly once (docs/report.md, "Accounting"). Each packet a terminal
 * injects takes the next sequence number, 0, 1, ... of its source. When
 * it is settled (delivered, or lost with a reason after injection) the
 * worker that settles it adds one to the source's count and a keyed hash
 * of (source, sequence number) to the source's set hash, a sum mod 2^64.
 * After the drain each source's count must be n, the sequence numbers it
 * gave out, and its set hash the hash of 0..n-1: the delivered set is the
 * injected set. A sum does not depend on the order of the deliveries nor
 * on which worker or instance made them, so each keeps its own and they
 * are added up. Some packets lost and as many others settled twice go
 * unseen only when their hashes' sums agree, with probability about
 * 2^-64, where a count, sum and sum of squares of the sequence numbers
 * missed {1, 5, 6} lost and {2, 3, 7} twice.
 */
#include <stdint.h>

#include "digest.h"

/* The run's key, from its seed: instances of one config share it. */
static inline uint64_t dp_once_key(uint64_t seed)
{
	return dp_digest_mix(seed + 0x6a09e667f3bcc909ULL);
}

/* Packet seq of terminal src, as it adds to its source's set hash: a
 * bijection of (src, seq), as splitmix64 makes its outputs from a
 * counter, so distinct packets never share a hash. */
static inline uint64_t dp_once_hash(uint64_t key, uint32_t src, uint32_t seq)
{
	return dp_digest_mix(((uint64_t)src << 32 | seq) + key);
}

/* The set hash of source src's packets 0..n-1. */
static inline uint64_t dp_once_expect(uint64_t key, uint32_t src, uint64_t n)
{
	uint64_t h = 0;

	for (uint64_t s = 0; s < n; s++)
		h += dp_once_hash(key, src, (uint32_t)s);
	return h;
}

/*
 * Did source src, which gave out sequence numbers 0..n-1, have each
 * settled exactly once: cnt settled with set hash hash? When an
 * instance was lost (lost_instance), what it settled is unknown: then
 * only no more than n may have been settled.
 */
static inline int dp_once_ok(uint64_t key, uint32_t src, uint64_t n,
			     uint64_t cnt, uint64_t hash, int lost_instance)
{
	if (lost_instance)
		return cnt <= n;
	return cnt == n && hash == dp_once_expect(key, src, n);
}

#endif
