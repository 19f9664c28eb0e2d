/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_STATS_H
#define DP_STATS_H

/*
 * Per-lcore counters (one writer each, cache-line aligned) merged by the
 * main lcore. Histograms are log-linear: exact below 64, then 32 buckets
 * per power of two (relative error under 3.2 %).
 */
#include <stdint.h>

#include <rte_common.h>

#define DP_HIST_SUB	32
#define DP_HIST_BUCKETS (64 + 58 * DP_HIST_SUB)
#define DP_MAX_HOPS	32

struct dp_hist {
	uint64_t n, sum, min, max;
	uint64_t b[DP_HIST_BUCKETS];
};

static inline uint32_t dp_hist_index(uint64_t v)
{
	uint32_t e;

	if (v < 64)
		return (uint32_t)v;
	e = 63 - __builtin_clzll(v); /* >= 6 */
	return 64 + (e - 6) * DP_HIST_SUB +
	       (uint32_t)((v >> (e - 5)) & (DP_HIST_SUB - 1));
}

static inline void dp_hist_add(struct dp_hist *h, uint64_t v)
{
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (v < h->min || h->n == 1)
		h->min = v;
	h->b[dp_hist_index(v)]++;
}

void dp_hist_merge(struct dp_hist *dst, const struct dp_hist *src);
/* The middle of bucket i: the value a bucket stands for. */
uint64_t dp_hist_bucket_value(uint32_t i);
/* Value at quantile q (0..1): the middle of the bucket holding it. */
uint64_t dp_hist_quantile(const struct dp_hist *h, double q);

enum dp_drop {
	DP_DROP_SOURCE_QUEUE_FULL = 0, /* generated, no room to wait */
	DP_DROP_NO_MBUF,	       /* mempool empty at injection */
	DP_DROP_UNKNOWN_DST,   /* port frame: no terminal has its address */
	DP_DROP_RUNT,	       /* port frame: shorter than an Ethernet header */
	DP_DROP_OVERSIZE,      /* port frame: larger than a buffer can hold */
	DP_DROP_LINK_DOWN,     /* on a link when it failed (faults.in_flight =
				  drop): a drop after injection */
	DP_DROP_UNREACHABLE,   /* not injected: its destination's instance was
				  lost (docs/instances.md) */
	DP_DROP_INSTANCE_LOST, /* in the network when its destination's
				  instance was lost: a drop after injection */
	DP_DROP_N,
};
extern const char *const dp_drop_name[DP_DROP_N];

/* Where a frame's destination is, seen from its source: the classes of
 * terminal pairs the report gives port (external) frames' latency for. */
enum dp_pair {
	DP_PAIR_ROUTER = 0, /* both terminals on one router */
	DP_PAIR_GROUP,	    /* one group: local links only */
	DP_PAIR_GLOBAL,	    /* other groups: at least one global link */
	DP_PAIR_N,
};
extern const char *const dp_pair_name[DP_PAIR_N];

/*
 * A terminal's port traffic, defined once: the struct below, the report's
 * per-terminal lines, its JSON (ports.terminals) and the /dfemu/terminals
 * telemetry are all generated from this list. X(name, label): the JSON
 * and telemetry key, and the words of the text report.
 */
#define DP_TERM_PORT_COUNTERS(X)                                 \
	X(rx, "frames in")                                       \
	X(rx_bytes, "bytes in")                                  \
	X(injected, "into the network")                          \
	X(injected_bytes, "bytes injected")                      \
	X(injected_bytes_window, "bytes injected in the window") \
	X(tx, "frames out")                                      \
	X(tx_bytes, "bytes out")                                 \
	X(stalls, "times the port would not take a frame")       \
	X(arp_replies, "ARP requests answered")                  \
	X(delivered_from_ports, "port frames delivered here")    \
	X(delivered_from_ports_bytes_window,                     \
	  "bytes of them delivered in the window")

/*
 * The routers' counters, defined once: their fields in struct dp_router
 * (dataplane/router.h) and in the report (struct df_report, emu/emu.h),
 * the sum over the routers (emu/account.c), the text report's words, the
 * JSON report's members and the /dfemu/routing telemetry are all
 * generated from this list. One name per counter everywhere:
 *   X(name, family, text)
 * name: the field, the JSON member and the telemetry key; family: what
 * counts it (enum dp_router_family below), which also gives its place in
 * the reports: HOPS under the JSON's "hops", DECISIONS and PAR under
 * "decisions", OFAR under "ofar", one text line a family; text: its
 * words on that line, or NULL when the report has a sentence of its own
 * for it (forwarded: the share of hops crossing workers).
 *
 * Two lists, one after the other in DP_ROUTER_COUNTERS: forwarded is
 * counted on every hop and sits in the cache lines every router step
 * reads; the path counters come after the input-queue masks.
 */
#define DP_ROUTER_HOP_COUNTERS(X)          \
	/* packets forwarded, all ports */ \
	X(forwarded, HOPS, NULL)
#define DP_ROUTER_PATH_COUNTERS(X)                                        \
	/* the source routers' path decisions, for every packet */        \
	X(decisions_min, DECISIONS, "minimal")                            \
	X(decisions_nonmin, DECISIONS, "non-minimal")                     \
	/* PAR: decisions taken again in transit, and those that left the \
	 * minimal path there */                                          \
	X(redecisions, PAR, "decisions taken again in the source group")  \
	X(redecisions_nonmin, PAR, "switched to non-minimal")             \
	/* OFAR: in-transit misroutes and escape-network entries */       \
	X(misroutes_local, OFAR, "local misroutes")                       \
	X(misroutes_global, OFAR, "global misroutes")                     \
	X(escape_entries, OFAR, "escape entries")
#define DP_ROUTER_COUNTERS(X) \
	DP_ROUTER_HOP_COUNTERS(X) DP_ROUTER_PATH_COUNTERS(X)

#define DP_ROUTER_FIELD(name, family, text) uint64_t name;

/* What counts a router counter (DP_ROUTER_COUNTERS' family): every
 * router, every algorithm's source routers, PAR, OFAR. */
enum dp_router_family {
	DP_RF_HOPS,
	DP_RF_DECISIONS,
	DP_RF_PAR,
	DP_RF_OFAR,
};

/* Written by the terminal's own lcore only. drops: frames off its port
 * dropped before they entered the network, by reason (enum dp_drop);
 * rx_first, rx_last: TSC of the first and last bursts off its port (0:
 * none), the span over which its port sent. */
struct dp_term_ports {
#define DP_TERM_PORT_FIELD(name, label) uint64_t name;
	DP_TERM_PORT_COUNTERS(DP_TERM_PORT_FIELD)
#undef DP_TERM_PORT_FIELD
	uint64_t drops[DP_DROP_N];
	uint64_t rx_first, rx_last;
};

/*
 * The per-lcore counters of struct dp_stats, defined once: their fields
 * (struct dp_counters, in this order: the hot ones share cache lines),
 * the sum over the workers (dp_counters_add), the report's copy of them
 * (struct df_report's c, emu/emu.h), the JSON report's "counters" object
 * (every one by name) and the text report's generic "counters" line are
 * all generated from this list.
 *   X(name, text): one counter. name: the field, and its key under
 *	"counters"; text: its words on the text report's "counters" line,
 *	or NULL when the report has a sentence of its own for it, or
 *	leaves it out (bytes, credits: in the JSON only).
 *   A(name, n, names): an array of n counters; names: its entries' names
 *	under "counters" (NULL: their indices, the non-zero ones only). The
 *	report's own sections print the arrays their own way.
 *
 * Adding a counter: one X line here, its increment in dataplane/
 * (lc->st.name++), and, only if it needs a sentence of its own in the
 * text report, that sentence (emu/report_text.c), with text NULL here;
 * with a text instead, the "counters" line shows it. Not counters, and by
 * hand below: last_rx (a time: the maximum is taken) and the histograms.
 */
#define DP_STATS_COUNTERS(X, A)                                         \
	/* packets generated, and those measured (their instants in the \
	 * measurement window); bytes: all, and those measured */       \
	X(generated, NULL)                                              \
	X(gen_measured, NULL)                                           \
	X(gen_bytes, NULL)                                              \
	X(gen_bytes_window, NULL)                                       \
	X(injected, NULL)                                               \
	X(inj_measured, NULL)                                           \
	X(delivered, NULL)                                              \
	X(del_measured, NULL)                                           \
	X(rx_bytes, NULL)                                               \
	X(rx_bytes_window, NULL)                                        \
	/* by reason (enum dp_drop); the measured ones */               \
	A(drops, DP_DROP_N, dp_drop_name)                               \
	X(drops_measured, NULL)                                         \
	/* left in source queues when generation ended */               \
	X(not_injected, NULL)                                           \
	X(minimal, NULL)                                                \
	X(nonminimal, NULL)                                             \
	A(hops, DP_MAX_HOPS, NULL)                                      \
	/* OFAR: escape-ring entries */                                 \
	A(escapes, DP_MAX_HOPS, NULL)                                   \
	/* delivered frames whose payload was wrong */                  \
	X(corrupt, NULL)                                                \
	/* ring full: a sizing bug, never expected */                   \
	X(enq_fail, NULL)                                               \
	/* credits owed (input space freed), and sent upstream (the     \
	 * same but for those held back: UGAL-L_CR) */                  \
	X(credits_out, NULL)                                            \
	X(credits_in, NULL)

#define DP_COUNTER_FIELD(name, text)	 uint64_t name;
#define DP_COUNTER_ARRAY(name, n, names) uint64_t name[n];

struct dp_counters {
	DP_STATS_COUNTERS(DP_COUNTER_FIELD, DP_COUNTER_ARRAY)
};

/* s += x, counter by counter. */
void dp_counters_add(struct dp_counters *s, const struct dp_counters *x);

struct dp_stats {
	/* the counters by name (st.generated), or all of them (st.c) */
	union {
		struct dp_counters c;
		struct {
			DP_STATS_COUNTERS(DP_COUNTER_FIELD, DP_COUNTER_ARRAY)
		};
	};
	uint64_t last_rx; /* arrival time of the last packet delivered, TSC */
	/* ns, measured packets, by path class: [0] minimal, [1] non-minimal
	 * ([DF] §4.2: UGAL-L's latency is bimodal, one mode per class) */
	struct dp_hist latency[2];
	struct dp_hist lateness; /* ticks: emulated time's lag behind the
				  * wall clock, once per paced step */
	/* measured frames from DPDK ports, ingress to egress, by pair */
	struct dp_hist ext_latency[DP_PAIR_N];
} __rte_cache_aligned;

/* Packets that left the network without arriving: dropped after their
 * injection (the in-flight count is injected - delivered - these). */
static inline uint64_t dp_stats_lost(const struct dp_stats *s)
{
	return s->drops[DP_DROP_LINK_DOWN] + s->drops[DP_DROP_INSTANCE_LOST];
}

#endif
