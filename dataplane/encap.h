/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_ENCAP_H
#define DP_ENCAP_H

/*
 * The frames that carry a partitioned dragonfly's global links between
 * dfemu instances (docs/instances.md; tools/dfemu.lua dissects
 * them). Every frame is Ethernet II with EtherType DP_ENCAP_ETHERTYPE,
 * then struct dp_encap_hdr, then the type's body. All fields are in
 * network byte order. Times are emulated ticks (1/4 ns) of the run,
 * which starts at 0 in every instance: instances keep in step by their
 * clocks (SYNC), not by their hosts' (docs/instances.md, "Exact time").
 *
 *   DATA    struct dp_encap_data, then the emulated frame, unchanged
 *   CREDIT  count x struct dp_encap_credit
 *   HELLO   struct dp_encap_hello (start-up handshake, port latency)
 *   STATS   struct dp_encap_stats (accounting, every few ms)
 *   DONE    no body (this instance has seen the whole network drained)
 *   SUMMARY struct dp_encap_summary, then count x 2 u64: the count and
 *           set hash of the peer's terminals' packets settled here
 *           (exactly-once, once.h)
 *   CHANGE  struct dp_encap_change (a run-time change instance 0 made,
 *           for the others to make too)
 *   SYNC    struct dp_encap_sync (how far the sender's clock has run)
 */
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#define DP_ENCAP_ETHERTYPE 0x88B6      /* IEEE local experimental 2 */
#define DP_ENCAP_MAGIC	   0x44465054U /* "DFPT" */
#define DP_ENCAP_VERSION   7
#define DP_MAX_INSTANCES   8
/* A SUMMARY entry's u64 words: the count and the set hash */
#define DP_SUMMARY_WORDS 2

enum dp_encap_type {
	DP_ENCAP_DATA = 1,
	DP_ENCAP_CREDIT = 2,
	DP_ENCAP_HELLO = 3,
	DP_ENCAP_STATS = 4,
	DP_ENCAP_DONE = 5,
	DP_ENCAP_SUMMARY = 6,
	DP_ENCAP_CHANGE = 7,
	DP_ENCAP_SYNC = 8,
};

struct dp_encap_hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t type;
	uint8_t src_instance, dst_instance;
	uint32_t seq;	/* frames of this type from src to dst so far */
	uint16_t count; /* CREDIT, SUMMARY: entries */
	uint16_t reserved;
} __rte_packed;

/* One packet on a global link, with dfemu's per-packet state. */
struct dp_encap_data {
	uint32_t link; /* directed link: sender router * nports + port */
	uint64_t due;  /* due at the far end, emulated ticks */
	uint64_t gen;  /* generated (or came in from a port), ticks */
	uint32_t src_term, dst_term, seq;
	uint16_t dst_router, inter, flits;
	uint8_t phase, vc, hops, flags, esc_n;
	uint8_t tbv; /* the sender's table version (mod 256) at the send */
	uint16_t reserved; /* 0 (version 6: OFAR's lmis_grp, now in eng) */
	uint64_t tail;	   /* its last byte at the far end, emulated ticks */
	/* its routing engine's own bytes (packet.h, eng), as one word:
	 * their layout is the engine's, in the byte order of the hosts,
	 * which HELLO checks is one */
	uint64_t eng;
} __rte_packed;

/* Buffer space freed on a link's receiving end, for its sender. */
struct dp_encap_credit {
	uint32_t link; /* the directed link the credit belongs to */
	uint8_t vc, pad;
	uint16_t flits;
	uint64_t due; /* due back at the sender, emulated ticks */
} __rte_packed;

struct dp_encap_hello {
	uint64_t plan_hash; /* instances must run the same plan */
	uint64_t now_ns;    /* the sender's clock */
	uint64_t echo_ns;   /* the peer's now_ns last received, 0 = none */
	uint64_t held_ns;   /* how long the sender held that echo */
	/* 0 nothing from us yet; 1 the sender has a HELLO of ours; 2 and
	 * has measured the round trip; 3 and is ready with every instance */
	uint8_t heard;
	/* the sender host's byte order (DP_ENCAP_ORDER): a DATA frame's
	 * eng is laid out in it, so instances must share it */
	uint8_t order;
	uint8_t pad[6];
} __rte_packed;

#define DP_ENCAP_ORDER (RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ? 1 : 2)

/* One instance's counters (monotonic), for the whole network's sums. */
struct dp_encap_stats {
	uint64_t injected, delivered, lost; /* lost: dropped after injection */
	uint64_t gen_measured, del_measured, drops_measured;
	uint64_t credits_out, credits_in; /* returned / taken back locally */
	uint64_t sent[DP_MAX_INSTANCES], recv[DP_MAX_INSTANCES];   /* DATA */
	uint64_t csent[DP_MAX_INSTANCES], crecv[DP_MAX_INSTANCES]; /* flits */
	/* measured DATA packets (for the accounting without a lost peer) */
	uint64_t msent[DP_MAX_INSTANCES], mrecv[DP_MAX_INSTANCES];
	uint8_t gen_stopped; /* no terminal here generates any more */
	uint8_t lost_mask;   /* bit j: this instance takes instance j as lost */
	uint16_t prepared;   /* the last table version prepared here */
	uint32_t settled;    /* table changes made here that have settled */
} __rte_packed;

/* A run-time change instance 0 makes ([faults] events, telemetry
 * commands). A table change is PREPARED by every instance (each builds
 * the same next tables), then COMMITTED: instance 0's bridge sends the
 * COMMIT and switches, a peer's bridge switches on the COMMIT or on the
 * first DATA frame of the next version, whichever comes first. A load
 * change is made on arrival. n: the table version (PREPARE, COMMIT) or
 * the load change's number; op: control/faults.h enum df_fault_op; arg:
 * as text (rR.pP, R or a load). */
enum dp_change_kind {
	DP_CHANGE_PREPARE = 1,
	DP_CHANGE_COMMIT = 2,
	DP_CHANGE_LOAD = 3,
	DP_CHANGE_DEFER = 4, /* event waits for the change before to settle */
};

struct dp_encap_change {
	uint32_t n;
	uint8_t op;
	uint8_t kind;
	/* a [faults] event made at its due time (its index + 1), where
	 * every instance holds its workers until it is made; or deferred
	 * (DEFER); 0: a telemetry command, or an event made late */
	uint16_t event;
	char arg[64];
} __rte_packed;

/* The sender has run every step up to clock and sent all that they
 * sent: whatever it sends later is due after its next step, at least
 * one quantum later (the peer may run the steps up to clock + quantum). */
struct dp_encap_sync {
	uint64_t clock; /* emulated ticks */
	/* the CPU the sender's bridge runs on: a worker waiting for a
	 * peer on its own CPU yields it (worker.c, wait) */
	uint32_t cpu;
	/* [traffic] finish = keep: the checkpoints every worker of the
	 * sender has taken, and its measured packets generated and in
	 * (arrived or lost) at the last two of them, ckpts - 1 then
	 * ckpts - 2 (worker.c, ckpt_take): the peers end generation at the
	 * same checkpoint as one instance would */
	uint32_t ckpts;
	uint64_t gen[2], in[2];
} __rte_packed;

struct dp_encap_summary {
	uint32_t first_term; /* the entries are terminals first_term.. */
} __rte_packed;

#endif
