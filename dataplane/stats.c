/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats.h"

const char *const dp_drop_name[DP_DROP_N] = {
	[DP_DROP_SOURCE_QUEUE_FULL] = "source_queue_full",
	[DP_DROP_NO_MBUF] = "no_mbuf",
	[DP_DROP_UNKNOWN_DST] = "unknown_destination",
	[DP_DROP_RUNT] = "runt",
	[DP_DROP_OVERSIZE] = "oversize",
	[DP_DROP_LINK_DOWN] = "link_down",
	[DP_DROP_UNREACHABLE] = "unreachable",
	[DP_DROP_INSTANCE_LOST] = "instance_lost",
};

const char *const dp_pair_name[DP_PAIR_N] = {
	[DP_PAIR_ROUTER] = "same_router",
	[DP_PAIR_GROUP] = "same_group",
	[DP_PAIR_GLOBAL] = "other_group",
};

void dp_counters_add(struct dp_counters *s, const struct dp_counters *x)
{
#define DP_COUNTER_ADD(name, text) s->name += x->name;
#define DP_COUNTER_ADD_ARRAY(name, n, names)         \
	for (uint32_t i = 0; i < (uint32_t)(n); i++) \
		s->name[i] += x->name[i];
	DP_STATS_COUNTERS(DP_COUNTER_ADD, DP_COUNTER_ADD_ARRAY)
#undef DP_COUNTER_ADD
#undef DP_COUNTER_ADD_ARRAY
}

void dp_hist_merge(struct dp_hist *dst, const struct dp_hist *src)
{
	if (src->n && (src->min < dst->min || dst->n == 0))
		dst->min = src->min;
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	for (int i = 0; i < DP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t dp_hist_bucket_value(uint32_t i)
{
	uint32_t e, sub;
	uint64_t lo, width;

	if (i < 64)
		return i;
	e = (i - 64) / DP_HIST_SUB + 6;
	sub = (i - 64) % DP_HIST_SUB;
	width = 1ULL << (e - 5);
	lo = (1ULL << e) + sub * width;
	return lo + width / 2;
}

uint64_t dp_hist_quantile(const struct dp_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)(q * (double)(h->n - 1)) + 1;
	for (uint32_t i = 0; i < DP_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t v = dp_hist_bucket_value(i);
			return v > h->max ? h->max : v < h->min ? h->min : v;
		}
	}
	return h->max;
}
