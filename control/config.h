/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_CONFIG_H
#define DF_CONFIG_H

#include <stdint.h>
#include <stddef.h>

#include "algorithms.h"

/* Link classes: index into link parameter arrays and VC plans. */
enum df_link_class {
	DF_LINK_TERMINAL = 0,
	DF_LINK_LOCAL = 1,
	DF_LINK_GLOBAL = 2,
	DF_LINK_NCLASS = 3,
};

enum df_topo_type {
	DF_TOPO_DRAGONFLY = 0,
	DF_TOPO_FLATFLY = 1, /* [FB] k-ary n-flat */
};

enum df_arrangement {
	DF_ARR_RELATIVE = 0,  /* [SP] §III, "palm tree" */
	DF_ARR_ABSOLUTE = 1,  /* [SP] §IV, "consecutive" */
	DF_ARR_CIRCULANT = 2, /* [SP] §V, h even */
	DF_ARR_HELIX = 3,     /* [SP] §VI, repaired (docs/topology.md) */
	DF_ARR_NAUTILUS = 4,  /* [SP] §VII, procedural */
	DF_ARR_FILE = 5,      /* file:PATH, an explicit link list */
};

enum df_pattern {
	DF_PAT_UNIFORM = 0,
	DF_PAT_ADVERSARIAL = 1,
	DF_PAT_PERMUTATION = 2,
	DF_PAT_ROUTER_SHIFT = 3, /* [FB] §3.2 WC: router R_i to R_i+shift */
};

/* What happens to the packets on a link when it fails. */
enum df_in_flight {
	DF_INFLIGHT_DELIVER = 0, /* they arrive (they had left already) */
	DF_INFLIGHT_DROP = 1,	 /* they are lost, counted as link_down */
};

enum df_process {
	DF_PROC_BERNOULLI = 0,
	DF_PROC_PERIODIC = 1,
	DF_PROC_SATURATE =
		2, /* always a packet waiting: benchmarks, overload */
};

#define DF_MAX_VC    5
#define DF_MAX_RADIX 64 /* router ports ([DF] §2: radix-64 routers) */
#define DF_MAX_INST  8	/* [partition] instances */

/* Steady state (load sweeps) or a fixed amount of traffic ([OC] §V). */
enum df_mode {
	DF_MODE_STEADY = 0,
	DF_MODE_BATCH = 1,	/* each terminal sends batch_packets, at once */
	DF_MODE_ALL_TO_ALL = 2, /* each terminal one packet to every other */
};

/* What generation does once the measurement window has closed. */
enum df_finish {
	DF_FINISH_KEEP = 0, /* go on until the measured packets are out
			       ([DF] §4.2: the network stays loaded) */
	DF_FINISH_STOP = 1, /* stop; queued packets still enter; drain */
};

/* What sets the pace of emulated time (docs/realtime.md, "Pace"). */
enum df_pace {
	DF_PACE_REALTIME = 0, /* the wall clock times [run] time_scale */
	DF_PACE_NONE = 1,     /* as fast as the host can: a simulator */
};

/* OFAR's escape subnetwork ([OC] §III) */
enum df_escape_net {
	DF_ESC_RING = 0, /* a Hamiltonian ring, bubble flow control (§III-A) */
	DF_ESC_TREE = 1, /* a spanning tree from G_root, up-down (§III-B) */
};

enum df_ring_dir {
	DF_RING_UNI = 0, /* one direction: up to N - 1 hops */
	DF_RING_BI = 1,	 /* shortest direction: up to N / 2 hops */
};

/* OFAR's global misrouting policy (dataplane/routing/ofar_misroute.h) */
enum df_mis_policy {
	DF_MIS_MM = 0,	/* CRG at the injection router, RRG after it */
	DF_MIS_CRG = 1, /* the current router's global links only */
	DF_MIS_RRG = 2, /* any router's of the source group */
};

/* OFAR: what an output's occupancy counts, for the misrouting trigger and
 * threshold (dataplane/routing/ofar.c) */
enum df_mis_occ {
	DF_OCC_QUEUE = 0,      /* in use downstream + queued here for it */
	DF_OCC_DOWNSTREAM = 1, /* in use downstream only, as credits say */
};

/* OFAR: which eligible misroute to take */
enum df_mis_pick {
	DF_PICK_RANDOM = 0,
	DF_PICK_MOST_FREE = 1, /* the lowest occupancy */
};

/* vc-ordered (PB): how a router learns its group's global channels'
 * congestion flags */
enum df_pb_flags {
	DF_PB_PIGGYBACK = 0, /* carried on the packets between the group's
				routers ([OC] §II): as old as their trip */
	DF_PB_DIRECT = 1,    /* read from the other router at once */
};

/* [router] switching: when a packet is due at the next router
 * (docs/design.md, "Time, links and credits") */
enum df_switching {
	DF_SW_CUT_THROUGH = 0,	 /* its head flit has arrived: [OC] §V's
				    virtual cut-through */
	DF_SW_STORE_FORWARD = 1, /* its last byte has arrived */
};

enum df_cm {
	DF_CM_NONE = 0,
	DF_CM_BCM = 1, /* [OC] §IV: bubble on injection */
	DF_CM_ECM = 2, /* [OC] §IV: escape buffers' occupancy */
};

struct df_link_params {
	uint64_t latency_ns;
	double bandwidth_gbps; /* 0 = unlimited (benchmarks only) */
	uint32_t buffer_flits; /* per VC, at the receiving input port */
	uint64_t credit_latency_ns;
	uint32_t vcs;
};

#define DF_CFG_MAX_KEYS 96
#define DF_MAX_BINDS	64 /* [terminals] port bindings and address keys */

struct df_term_bind {
	uint32_t lo, hi; /* terminals lo..hi */
	char vdev[192];	 /* "{t}" stands for the terminal number */
	char where[80];
};

struct df_term_addr {
	uint32_t t;
	int attr; /* 1: mac, 2: ip */
	uint8_t mac[6];
	uint32_t ip; /* host order */
	char where[80];
};

enum df_cap_dir { DF_CAP_BOTH, DF_CAP_OUT, DF_CAP_IN };
enum df_cap_time { DF_CAP_DEPARTURE, DF_CAP_ARRIVAL };

struct df_config {
	char path[256]; /* file the config came from, for messages */
	/* where each key was set ("file:line" or "--set ..."), by key index;
	 * empty = default. Read with df_config_origin(). */
	char origin[DF_CFG_MAX_KEYS][80];

	/* [topology] */
	enum df_topo_type type;
	uint32_t k, n; /* flatfly: k-ary n-flat ([FB] §2.1) */
	uint32_t p, a, h, g;
	enum df_arrangement arrangement;
	char arr_file[256]; /* arrangement = file:PATH */

	/* [links] */
	struct df_link_params link[DF_LINK_NCLASS];
	uint32_t flit_bytes;
	/* [links] vcs = L/G or L/G+1 ([OC] notation): -1 if not given, else
	 * whether "+1" (the escape VC) was written */
	int vcs_plus;

	/* [router]: the papers' router ([DF] §4.2, [FB] §3.2; docs/router.md):
	 * crossbar speedup, output queue per output VC (0: none, the
	 * input-queued router), pipeline delay per router traversal */
	double speedup;
	uint32_t output_buffer_flits;
	uint64_t router_latency_ns;
	enum df_switching switching;

	/* [routing] */
	enum df_algorithm algorithm;
	uint64_t seed;
	uint32_t ugal_bias; /* flits in favour of minimal: q_m*H_m <= q_nm*H_nm
			       + bias */
	enum df_pb_flags pb_flags; /* vc-ordered: piggybacked or direct */
	/* OFAR ([OC]) */
	double misroute_threshold; /* non-minimal eligible at <= this x min */
	double misroute_trigger;   /* min output this full before misrouting */
	enum df_mis_policy misroute_policy;
	enum df_mis_pick misroute_pick;
	enum df_mis_occ misroute_occupancy;
	enum df_escape_net escape_net;
	uint32_t tree_root; /* G_root: the tree's root group */
	enum df_ring_dir ring;
	int escape; /* 0: no escape ring (deadlock demonstrations only) */
	uint32_t escape_cap; /* escape entries before staying in the ring */
	enum df_cm cm;
	uint32_t bcm_bubble;  /* packets of room beyond the packet itself */
	double ecm_threshold; /* fraction of the escape buffers */

	/* [traffic] */
	enum df_pattern pattern;
	uint32_t shift;
	double load;
	uint32_t packet_bytes;
	enum df_process process;
	uint64_t warmup_ms, measure_ms, drain_timeout_ms;
	uint32_t source_queue;
	enum df_finish finish;
	enum df_mode mode;
	uint32_t batch_packets;

	/* [terminals] */
	struct df_term_bind bind[DF_MAX_BINDS];
	uint32_t nbind;
	struct df_term_addr addr[DF_MAX_BINDS];
	uint32_t naddr;

	/* [capture] (control/capture.h) */
	char cap_links[256]; /* selectors; "none": no capture */
	char cap_vcs[64];    /* "all" or VC numbers */
	enum df_cap_dir cap_direction;
	enum df_cap_time cap_time;
	uint32_t cap_snaplen;  /* bytes of each frame kept */
	uint32_t cap_ring;     /* records each worker can queue */
	uint64_t cap_limit_mb; /* file size at which writing stops (0: none) */
	char cap_file[256];

	/* [faults] (control/faults.h, emu/changes.c) */
	char fault_events[1024]; /* "T:down:rR.pP, T:up:rR.pP, T:load:X" */
	enum df_in_flight fault_in_flight;

	/* [partition] (control/partition.h) */
	uint32_t ninst;	   /* instances the network is split over (1: not) */
	uint32_t instance; /* this one */
	uint64_t part_wait_ms; /* how long to wait for the others at start */
	uint64_t part_peer_timeout_ms; /* silent this long: taken as lost */
	uint32_t inst_lo[DF_MAX_INST], inst_hi[DF_MAX_INST]; /* its groups */
	uint8_t inst_set[DF_MAX_INST];
	char inst_where[DF_MAX_INST][80];
	/* [i][j]: the port instance i reaches instance j through */
	char peer_vdev[DF_MAX_INST][DF_MAX_INST][160];

	/* [run] */
	uint32_t workers;	    /* 0 = auto: one per free CPU, at least 1 */
	uint32_t routers_per_lcore; /* 0 = auto (spread evenly) */
	int idle_backoff;	    /* sleep when a worker has nothing to do */
	uint32_t idle_sleep_us;
	uint64_t lateness_tolerance_ns;
	int lateness_auto;    /* it was 0: df_config_lateness_auto() chose it */
	double time_scale;    /* emulated time runs this many times slower;
			       * 0 = auto until emu/timescale.c chose it */
	int time_scale_auto;  /* auto chose time_scale */
	enum df_pace pace;    /* what paces emulated time (docs/realtime.md) */
	uint64_t quantum_ns;  /* the clocks' step; 0 = auto (df_quantum_ps) */
	uint32_t watchdog_ms; /* a VC head still this long: stuck (0 = off) */
	uint32_t tsc_calibrate_ms;
	uint64_t mbufs; /* the mempool's size; 0 = auto (emu/sizing.c) */
};

/* Names for reports and messages. */
const char *df_topo_type_name(enum df_topo_type t);
const char *df_arrangement_name(enum df_arrangement a);
const char *df_algorithm_name(enum df_algorithm a);
const char *df_pattern_name(enum df_pattern p);
const char *df_process_name(enum df_process p);
const char *df_cm_name(enum df_cm c);
const char *df_mis_policy_name(enum df_mis_policy p);
const char *df_mis_pick_name(enum df_mis_pick p);
const char *df_mis_occ_name(enum df_mis_occ o);
const char *df_pb_flags_name(enum df_pb_flags f);
const char *df_switching_name(enum df_switching s);
const char *df_mode_name(enum df_mode m);
const char *df_pace_name(enum df_pace p);
const char *df_ring_dir_name(enum df_ring_dir d);
const char *df_escape_net_name(enum df_escape_net e);
const char *df_link_class_name(enum df_link_class c);

/* Fill every field with its documented default. */
void df_config_defaults(struct df_config *cfg);

/*
 * Load an INI file (DPDK rte_cfgfile) over the defaults, then apply
 * "section.key=value" overrides, then validate. On error returns -1 and
 * writes one message naming file, line, section, key, value and what is
 * allowed into err.
 */
int df_config_load(struct df_config *cfg, const char *path,
		   const char *const *sets, int nsets, char *err,
		   size_t errlen);

/* Where [sec] key was set, for messages: "file:line", "--set sec.key=v",
 * or "file (default)". */
const char *df_config_origin(const struct df_config *cfg, const char *sec,
			     const char *key);

/* Cross-field checks (topology sizes, VC counts...). */
int df_config_validate(const struct df_config *cfg, char *err, size_t errlen);

/* The lateness tolerance [run] lateness_tolerance_ns = 0 stands for: one
 * packet's serialization time on the fastest link, in ns. */
uint64_t df_config_lateness_auto(const struct df_config *cfg);

/* Emulated time's unit, the tick: a quarter of a nanosecond, whatever
 * the host (docs/design.md, "Time, links and credits"). */
#define DF_TICKS_PER_NS 4
#define DF_TICK_HZ	(1e9 * DF_TICKS_PER_NS)

/* The step of the workers' emulated clocks, in ticks: [run] quantum_ns,
 * or for 0 the shortest link latency plus a flit time, at most an eighth
 * of a packet time on the fastest link: from the network alone. */
uint64_t df_config_quantum(const struct df_config *cfg);

/* Key i (0, 1, ... in the order of --help) of cfg: its section, name
 * and value as the file would say it, in buf. Returns 1 when the value
 * is a number, 0 when it is text, 2 when it is not set (outside the key's
 * range: another key, the algorithm or the plan decides), -1 past the
 * last key. */
int df_config_value(const struct df_config *cfg, size_t i, const char **sec,
		    const char **name, char *buf, size_t n);

/* Key i (0, 1, ... in the order of --help) as documented: its section,
 * name, meaning and what it allows (in allowed). -1 past the last key. */
int df_config_key_doc(size_t i, const char **sec, const char **name,
		      const char **help, char *allowed, size_t n);

/* The accepted keys, then the keys named by pattern ([partition]'s iN,
 * [terminals]' tN...), each with its meaning and what it allows, as
 * --help prints them (config_doc.c). */
void df_config_print_keys(void *file);

/* The same as a markdown page, each key with its default: docs/config.md
 * is this output (dfemu --help-config=markdown). */
void df_config_print_keys_md(void *file);

#endif
