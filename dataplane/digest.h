/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_DIGEST_H
#define DP_DIGEST_H

/*
 * The run's determinism digest (docs/report.md, "The digest"): one 64-bit
 * number that two runs of one config and seed share when they delivered
 * the same packets at the same emulated times and ended with the same
 * counters. Each delivery adds a hash of its (source, sequence number,
 * destination, time) to a sum mod 2^64: a sum does not depend on which
 * worker delivered a packet nor in which order, so the workers keep one
 * each and the main lcore adds them up (the exactly-once check's set
 * hash, once.h, is made the same way, over (source, sequence number)).
 */
#include <stdint.h>

/* Added to what is mixed: a tuple or chain of zeros does not hash to
 * zero (dp_digest_mix(0) is 0), so an empty run's digest is not 0 and
 * a delivery of all zeros still counts. */
#define DP_DIGEST_KEY 0x9e3779b97f4a7c15ULL

/* splitmix64's finalizer: a bijection of 64 bits in which every input
 * bit flips about half the output bits. */
static inline uint64_t dp_digest_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* One delivery: packet seq of terminal src, delivered at terminal dst at
 * emulated time t. Each field goes through the mixer in turn, so that
 * fields do not cancel (src + 1 and seq - 1 hash apart). */
static inline void dp_digest_add(uint64_t *acc, uint32_t src, uint32_t seq,
				 uint32_t dst, uint64_t t)
{
	uint64_t h = dp_digest_mix(((uint64_t)src << 32 | seq) + DP_DIGEST_KEY);

	h = dp_digest_mix((h ^ dst) + DP_DIGEST_KEY);
	*acc += dp_digest_mix((h ^ t) + DP_DIGEST_KEY);
}

/* One value chained into *acc: unlike dp_digest_add, order matters, for
 * values with a place of their own (the final counters, in their list's
 * order). */
static inline void dp_digest_fold(uint64_t *acc, uint64_t v)
{
	*acc = dp_digest_mix((*acc ^ v) + DP_DIGEST_KEY);
}

#endif
