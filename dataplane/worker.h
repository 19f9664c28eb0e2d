/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_WORKER_H
#define DP_WORKER_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "config.h"
#include "ring.h"
#include "tree.h"
#include "tables.h"
#include "addr.h"
#include "notify.h"
#include "once.h"
#include "port.h"
#include "router.h"
#include "stats.h"

struct dp_routing_engine;
struct dp_bridge;

/* Shared by every lcore of a run; written by the main lcore only. */
struct dp_run {
	volatile int gen_on; /* terminals generate new packets */
	volatile int quit;
	/* the measurement window, in emulated ticks (DF_TICK_HZ) */
	volatile uint64_t m0, m1;
	/*
	 * Emulated time (docs/design.md, "Time, links and credits"): every
	 * worker's clock steps by quantum ticks, from t0. Generation ends
	 * at gen_end ([traffic] finish = stop, Ctrl-C; keep: the workers
	 * decide at their checkpoints, every ckpt ticks from m1). No
	 * worker runs a step past hold (a change due then, emu/run.c).
	 * Paced (pace_q32): a step at T runs once the wall clock is past
	 * tsc0 + (T - t0) TSC cycles, tsc_per_tick_q32 (32.32) apart.
	 */
	uint64_t t0, quantum, ckpt;
	volatile uint64_t gen_end, hold;
	uint64_t tsc0, tsc_per_tick_q32;
	uint64_t bridge_gap_tsc; /* the bridge's wall time between looks */
	int paced;
	int finish_keep; /* [traffic] finish = keep, steady mode */
	uint32_t nworkers;
	struct dp_lcore *const *lcs; /* every worker, for their clocks */
	/* a partitioned run's bridge, for the peers' clocks (bridge.h) */
	const struct dp_bridge *peers;
	struct rte_mempool *pool;
	/* spare buffers a worker keeps (terminal.c, recycle): none when
	 * the pool has no per-lcore cache, set small on purpose, where a
	 * worker's spares would be out of the others' reach */
	uint32_t spare_max;
	uint64_t once_key; /* the exactly-once set hash's key (once.h) */
	const struct df_tables *tb;
	/* a partitioned run's table changes (docs/instances.md):
	 * the next version, prepared by the main lcore; the version in use,
	 * counted from 0; on instance 0, the version the main lcore wants
	 * switched to. The bridge switches (bridge.c), so that no packet
	 * routed under the next tables reaches an instance still on the
	 * ones before. */
	const struct df_tables *volatile tb_next;
	volatile uint32_t tb_version, tb_commit;
	const struct dp_routing_engine *eng;
	struct dp_router *const *routers; /* all, by id (UGAL-G reads them) */
	uint32_t ugal_bias;
	/* the engine's own run-wide state, which only it reads (OFAR's:
	 * struct dp_ofar_run, routing/ofar_run.h); NULL for the others */
	void *eng_run;
	uint32_t oq_cap; /* [router] output_buffer_flits (0: none) */
	/* traffic */
	int inject_rest; /* when generation stops, inject what is queued */
	enum df_mode mode;
	enum df_pattern pattern;
	enum df_process process;
	uint32_t shift, packet_bytes, pkt_flits, flit_bytes;
	uint32_t nterms, p, a, g;
	double ln1m_load;  /* log(1 - load), Bernoulli skips */
	uint64_t slot_q16; /* one packet time on a terminal link, TSC<<16 */
	uint64_t gap_q16;  /* periodic: slot / load */
	uint32_t src_queue_mask;
	const uint32_t *perm;	  /* permutation pattern: destination of each */
	const uint8_t (*macs)[6]; /* [terminal]: its MAC ([terminals]) */
	const uint32_t *ips;	  /* [terminal]: its IPv4, network order */
	struct dp_addr_table mac_tab, ip_tab; /* the same, looked up */
	uint32_t max_frame; /* bytes a terminal input buffer can hold */
	/* [terminal]: its index among the terminals bound to a port (the
	 * lcores' port_lat), DP_NO_PORT for the others */
	const uint16_t *port_idx;
	/* capture (tap.h): the records' pool, bytes kept per frame */
	struct rte_mempool *cap_pool;
	uint32_t cap_snaplen;
	/* idle backoff */
	int idle_backoff;
	uint64_t idle_sleep_tsc, idle_margin_tsc;
};

#define DP_NO_PORT UINT16_MAX

/* A delivered frame, as the accounting needs it (terminal.c). */
struct dp_out {
	uint64_t due, gen;
	uint32_t flits, len, src, seq;
	uint8_t flags, hops, esc_n;
};

/*
 * A source-queue entry's top bit: the packet was generated inside the
 * measurement window. The window is decided once, at generation, because
 * a Ctrl-C moves its end while packets wait: deciding again at injection
 * could count a packet measured when generated and not when injected, and
 * the drain would wait for it forever. TSC values stay below 2^63.
 */
#define DP_SQ_MEASURED (1ULL << 63)

/* A worker's spare buffers (struct dp_lcore, spare): at most this many. */
#define DP_SPARE_MBUFS 32

/* A terminal's wakes, as bit numbers in its poll word: packets arriving,
 * credits coming back, the next generation instant (which it looks at on
 * every step anyway). A terminal bound to a DPDK port polls all. */
enum { DP_TERM_POLL_PKT, DP_TERM_POLL_GEN, DP_TERM_POLL_CRED };

/* A built-in terminal: generator on one side, sink on the other. */
struct dp_term {
	uint32_t id, router, group;
	uint32_t node;		 /* index among its worker's nodes */
	uint64_t poll;		 /* its wakes that fired: DP_TERM_POLL_* bits */
	struct dp_wake gen_wake; /* the next generation instant */
	struct dp_lcore *lc;
	uint64_t next_gen; /* next generation instant, TSC */
	uint32_t gen_frac; /* its fraction of a cycle, 1/65536 */
	uint32_t seq;	   /* packets injected so far */
	uint64_t *srcq;	   /* generation times waiting for injection, each
			    * with DP_SQ_MEASURED when it counted as measured */
	uint32_t sq_head, sq_tail;
	/* its random stream (dp_rand): destinations, Bernoulli gaps. On the
	 * line of the generation's fields, with seq in the hole after
	 * gen_frac: no field after it moves */
	uint64_t rng;
	uint64_t rx_pkts;
	uint64_t inj_measured; /* measured packets it injected (fairness) */
	/* batch modes: packets still to generate; all-to-all: the k-th
	 * destination is the k-th of a permutation d -> (mul*d + add) mod
	 * (nterms - 1) of the other terminals */
	uint32_t batch_left, a2a_k, a2a_mul, a2a_add;
	/* bound to a DPDK port ([terminals]): its id, or -1 (built-in);
	 * frames received and waiting for credits; a frame the port would
	 * not take yet */
	int eth;
	struct rte_mbuf *in[32];
	uint16_t in_n, in_i;
	uint64_t in_at; /* paced: the wall clock's step when in[] was taken */
	struct rte_mbuf *held;
	struct dp_out held_out;
	struct dp_term_ports pc; /* its port traffic (stats.h) */
	volatile uint8_t paused; /* its router is drained: generate nothing */
	struct dp_port port;	 /* port.out: to the router; port.in: from it */
} __rte_cache_aligned;

struct dp_lcore {
	struct dp_stats st;
	struct dp_run *run;
	struct dp_router **routers;
	struct dp_term **terms;
	uint32_t nrouters, nterms;
	/* what is due when, and the nodes to step: terminals 0..nterms-1,
	 * then routers (wheel.h) */
	struct dp_wheel *wheel;
	/* notes from the other workers (notify.h): one queue each, and the
	 * wakes of FIFOs they feed, fired all at once when a note was lost */
	struct dp_notify_q **notes;
	uint32_t nnotes, nxwakes;
	struct dp_wake **xwakes;
	uint64_t next_event;
	uint64_t now; /* the step being run: its emulated time */
	/* buffers of built-in frames delivered here, which this worker's
	 * next generations take before the pool's (terminal.c, recycle) */
	uint32_t spare_n;
	struct rte_mbuf *spare[DP_SPARE_MBUFS];
	/* nodes stepped at every step to poll what comes from outside
	 * (DPDK ports, other instances), as a bit per node */
	uint64_t *pollers;
	uint32_t npollers;
	/* the ports other instances feed here (their bridge, on worker 0,
	 * arms no wake), as pairs: the link from the peer (its packets),
	 * the link to it (its credits); their heads' due times
	 * bound the next step (worker.c, next_step) */
	struct dp_link **xlinks;
	uint32_t nxlinks;     /* pairs */
	uint64_t bridge_wall; /* TSC the bridge was last looked at */
	uint32_t waits;	      /* looks in a row at a peer not there yet */
	int cpu;	      /* the CPU it runs on */
	uint64_t gen_stop; /* generation ends after this step (checkpoints) */
	uint32_t ckpt_n;   /* checkpoints taken */
	/* the window's edges this worker has passed (0, 1: m0, 2: m1) and
	 * the next one's time: its routers' links' send counters are copied
	 * there (worker.c, window_edge; emu/linkuse.c) */
	volatile uint32_t win_edges;
	uint64_t win_next;
	/* exactly-once check (once.h), per source terminal: the count and
	 * the set hash of its packets settled here */
	uint64_t *rx_cnt, *rx_hash;
	/* the determinism digest of the packets delivered here (digest.h): a
	 * sum, so the main lcore adds the workers' */
	uint64_t digest;
	/* [run->port_idx of the source]: latency of measured frames from
	 * that terminal's port delivered here, ingress to delivery, TSC */
	struct dp_hist *port_lat;
	uint64_t sweeps, idle_sleeps;
	uint64_t busy_tsc; /* time in sweeps that found work (CPU cost) */
	/* the tables its last step routed on (worker.c, tables_changed) */
	const struct df_tables *tb_seen;
	int gen_on;		   /* run->gen_on as read at sweep start */
	volatile int gen_off_done; /* a whole sweep ran with gen_on == 0 */
	unsigned lcore_id;
	struct rte_ring *cap_ring; /* capture records for the main lcore */
	struct dp_bridge *bridge; /* worker 0 of a partitioned run (bridge.h) */
	/* written by this worker, read by the others and main: how far its
	 * clock has got (every event due by then handled, none due by
	 * then still to come from it), and its measured packets' counts at
	 * each checkpoint (ring of DP_CKPTS) */
	volatile uint64_t clock __rte_cache_aligned;
	struct dp_ckpt {
		volatile uint64_t n; /* checkpoint number + 1 */
		uint64_t gen, in;    /* measured: generated, arrived or lost */
	} ckpt[4];
} __rte_cache_aligned;

#define DP_CKPTS 4

/* The first step at or after t, a multiple of the quantum from t0
 * (UINT64_MAX: none): the workers' steps, their checkpoints and the main
 * lcore's hold are all on this grid. */
static inline uint64_t dp_step_at(const struct dp_run *run, uint64_t t)
{
	uint64_t q = run->quantum;

	if (t <= run->t0)
		return run->t0;
	if (t >= UINT64_MAX - q)
		return UINT64_MAX;
	return run->t0 + (t - run->t0 + q - 1) / q * q;
}

/* Packet seq of terminal src settled here, delivered or lost (once.h). */
static inline void dp_settled(struct dp_lcore *lc, uint32_t src, uint32_t seq)
{
	lc->rx_cnt[src]++;
	lc->rx_hash[src] += dp_once_hash(lc->run->once_key, src, seq);
}

/* Paced: the wall TSC at which the step at t may run. */
static inline uint64_t dp_wall_at(const struct dp_run *run, uint64_t t)
{
	return run->tsc0 + (uint64_t)((unsigned __int128)(t - run->t0) *
					      run->tsc_per_tick_q32 >>
				      32);
}

/* Paced: the last step the wall clock has passed, its inverse. The
 * division is done in 128 bits: wall - tsc0 shifted by 32 passes 2^64
 * after 2^32 TSC cycles (2 s here), and a 64-bit quotient of it wrapped,
 * so every frame from a port was stamped with a lagging worker's step. */
static inline uint64_t dp_wall_step(const struct dp_run *run, uint64_t wall)
{
	uint64_t d;

	if (wall <= run->tsc0)
		return run->t0;
	d = (uint64_t)(((unsigned __int128)(wall - run->tsc0) << 32) /
		       run->tsc_per_tick_q32);
	return run->t0 + d / run->quantum * run->quantum;
}

/*
 * Random draws. Every terminal and every router has a stream of its own
 * (t->rng, r->rng, seeded by dp_rand_seed), so that what a node draws
 * depends neither on which worker runs it nor on the order in which the
 * worker steps its nodes, nor on the other nodes' draws. An engine that
 * draws for a packet draws from the stream of the router it is at.
 */
static inline uint64_t dp_rand(uint64_t *s)
{
	/* xorshift64*: fast, good enough for traffic and VAL choices */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline uint32_t dp_rand_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((dp_rand(s) >> 32) * n) >> 32);
}

/* A Valiant intermediate group, uniform over the g groups ([DF] §4.1);
 * once an instance is lost, over the groups still there (tb->inter): a
 * packet sent to a lost group would only be turned back at its edge. */
static inline uint32_t dp_rand_group(uint64_t *s, const struct df_tables *tb)
{
	if (likely(tb->ninter == 0))
		return dp_rand_below(s, tb->g);
	return tb->inter[dp_rand_below(s, tb->ninter)];
}

/* The kinds of node with a stream: a terminal and a router with the same
 * id must not draw the same sequence. */
enum dp_rand_kind { DP_RAND_TERM = 1, DP_RAND_ROUTER = 2 };

/*
 * The first state of the stream of node id of a kind, from the run's
 * seed ([routing] seed) alone: not from the worker, the placement or the
 * instance, which may differ between two runs that should draw alike.
 * seed + golden * key is one-to-one in the key (golden is odd), and
 * splitmix64's finalizer is a bijection that maps only 0 to 0, so every
 * node of a run starts from a different state, well spread over the
 * xorshift cycle even for neighbouring ids. xorshift64* stays at 0 for
 * ever, so the one key whose sum is 0 takes another start.
 */
static inline uint64_t dp_rand_seed(uint64_t seed, enum dp_rand_kind kind,
				    uint32_t id)
{
	uint64_t key = ((uint64_t)kind << 32 | id) + 1;
	uint64_t z = seed + key * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z != 0 ? z : 0x9E3779B97F4A7C15ULL;
}

unsigned dp_term_step(struct dp_term *t, uint64_t now);

/* Ask for the mbuf and the routing state of the packet at the head of
 * t's incoming link, if there is one: the worker does it for the next
 * terminal while it steps one, so that delivery does not wait on two
 * misses in turn (docs/performance.md, "The heads asked for at once"). */
static inline void dp_term_prefetch(struct dp_term *t)
{
	const struct dp_vcslot *f;

	if (!(t->poll & (1ULL << DP_TERM_POLL_PKT)) || t->port.in == NULL ||
	    (f = dp_link_peek(t->port.in)) == NULL)
		return;
	rte_prefetch0(f->m);
	rte_prefetch0(dp_pkt(f->m));
}

/* Has the terminal work of its own for the next sweep? */
int dp_term_busy(const struct dp_term *t);
/* Discard what waits in the source queue (generation has ended). */
void dp_term_flush(struct dp_term *t);
/* The worker's spare buffers back to their pool (its loop has ended). */
void dp_term_spares_free(struct dp_lcore *lc);

/* Counters of n workers summed, read without locks (the histograms are
 * not summed). */
void dp_stats_sum(struct dp_stats *s, struct dp_lcore *const *lc, uint32_t n);

/* The port counters of n terminals summed (the totals over every port),
 * read without locks. */
void dp_term_ports_sum(struct dp_term_ports *s, struct dp_term *const *t,
		       uint32_t n);

/* Latency of the frames from the port with index k (run->port_idx),
 * merged over n workers into h. */
void dp_port_lat_sum(struct dp_hist *h, struct dp_lcore *const *lc, uint32_t n,
		     uint16_t k);

/* rte_eal_remote_launch entry: arg is a struct dp_lcore. */
int dp_worker_main(void *arg);

#endif
