/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config's key table: every key's section, name, type, range and
 * meaning, and for an enum key the names of its values, written here
 * once, with the key. The parser, the error messages' "allowed" lists,
 * --help and docs/config.md (config.c, config_doc.c) and the df_*_name
 * accessors below all read them from this table.
 */
#include <stdio.h>
#include <string.h>

#include "config_private.h"

/* An enum key's names, indexed by the enum's values (designated, so that
 * a name cannot land on another value), NULL-terminated. */
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* [routing] algorithm's: control/algorithms.h's list */
#define DF_ALG_NAME(id, name, ...) [DF_ALG_##id] = name,
#define ALG_NAMES		   ((const char *const[]){DF_ALGORITHMS(DF_ALG_NAME) NULL})

#define OFF(f) offsetof(struct df_config, f)
#define LNK(c, f)                                          \
	(OFF(link) + (c) * sizeof(struct df_link_params) + \
	 offsetof(struct df_link_params, f))
/* clang-format off */
#define LINK_KEYS(c, cn)                                                      \
	{"links", cn "_latency_ns", K_U64, LNK(c, latency_ns), 0, 1e10, NULL, \
	 "one-way propagation latency of a " cn " link (ns)"},                \
	{"links", cn "_bandwidth_gbps", K_DBL, LNK(c, bandwidth_gbps), 0,     \
	 1000, NULL, "bandwidth of a " cn " link (Gb/s; 0 = unlimited)"},     \
	{"links", cn "_buffer_flits", K_U32, LNK(c, buffer_flits), 1, 65536,  \
	 NULL, "input buffer per VC behind a " cn " link (flits)"},           \
	{"links", cn "_credit_latency_ns", K_U64, LNK(c, credit_latency_ns),  \
	 0, 1e10, NULL, "credit return latency (ns; default = link latency)"}, \
	{"links", cn "_vcs", K_U32, LNK(c, vcs), 1, DF_MAX_VC, NULL,          \
	 "virtual channels on a " cn " link"}
/* clang-format on */

/* A section's keys stay together: --help and --print-config print them
 * in this order, one heading or object per section. */
const struct key_def df_cfg_keys[] = {
	{"topology", "type", K_ENUM, OFF(type), 0, 0,
	 NAMES([DF_TOPO_DRAGONFLY] = "dragonfly", [DF_TOPO_FLATFLY] =
							  "flatfly"),
	 "dragonfly, or flatfly: the flattened butterfly of [FB] (k, n)"},
	{"topology", "k", K_U32, OFF(k), 2, 64, NULL,
	 "flatfly: k-ary (terminals per router, routers per dimension)"},
	{"topology", "n", K_U32, OFF(n), 2, 8, NULL,
	 "flatfly: n-flat (n-1 dimensions of routers)"},
	{"topology", "p", K_U32, OFF(p), 1, 64, NULL, "terminals per router"},
	{"topology", "a", K_U32, OFF(a), 1, 64, NULL, "routers per group"},
	{"topology", "h", K_U32, OFF(h), 1, 64, NULL,
	 "global links per router"},
	{"topology", "g", K_U32, OFF(g), 0, 4097, NULL,
	 "groups, 2..a*h+1 (0 = a*h+1, the maximum)"},
	{"topology", "arrangement", K_ARR, OFF(arrangement), 0, 0,
	 NAMES([DF_ARR_RELATIVE] = "relative", [DF_ARR_ABSOLUTE] = "absolute",
	       [DF_ARR_CIRCULANT] = "circulant", [DF_ARR_HELIX] = "helix",
	       [DF_ARR_NAUTILUS] = "nautilus", [DF_ARR_FILE] = "file"),
	 "global-link arrangement ([SP] names; circulant: h even)"},
	LINK_KEYS(DF_LINK_TERMINAL, "terminal"),
	LINK_KEYS(DF_LINK_LOCAL, "local"),
	LINK_KEYS(DF_LINK_GLOBAL, "global"),
	{"links", "vcs", K_VCS, OFF(vcs_plus), 0, 0, NULL,
	 "VCs as L/G, or L/G+1 with OFAR's escape VC ([OC] notation)"},
	{"links", "flit_bytes", K_U32, OFF(flit_bytes), 1, 9216, NULL,
	 "flow-control unit (bytes); a packet needs ceil(L/flit) credits"},
	{"router", "speedup", K_DBL, OFF(speedup), 1, 16, NULL,
	 "crossbar speedup: it moves a packet this many times faster than "
	 "the output link sends it (1 = today's router; > 1 needs "
	 "output_buffer_flits)"},
	{"router", "output_buffer_flits", K_U32, OFF(output_buffer_flits), 0,
	 65536, NULL,
	 "output queue per output VC between crossbar and link (flits; 0 = "
	 "none: an input-queued router)"},
	{"router", "latency_ns", K_U64, OFF(router_latency_ns), 0, 1e10, NULL,
	 "pipeline delay of every router a packet traverses (ns)"},
	{"router", "switching", K_ENUM, OFF(switching), 0, 0,
	 NAMES([DF_SW_CUT_THROUGH] = "cut-through",
	       [DF_SW_STORE_FORWARD] = "store-and-forward"),
	 "cut-through: a packet is due at the next router when its head "
	 "flit is ([OC] §V's virtual cut-through); store-and-forward: when "
	 "its last byte is"},
	{"routing", "algorithm", K_ENUM, OFF(algorithm), 0, 0, ALG_NAMES,
	 "routing algorithm"},
	{"routing", "ugal_bias", K_U32, OFF(ugal_bias), 0, 1000000, NULL,
	 "UGAL: flits added in favour of the minimal path"},
	{"routing", "pb_flags", K_ENUM, OFF(pb_flags), 0, 0,
	 NAMES([DF_PB_PIGGYBACK] = "piggyback", [DF_PB_DIRECT] = "direct"),
	 "vc-ordered: the group's global-channel congestion flags carried "
	 "on packets between its routers (piggyback, as PB) or read at "
	 "once (direct)"},
	{"routing", "misroute_threshold", K_DBL, OFF(misroute_threshold), 0, 1,
	 NULL,
	 "OFAR: a non-minimal port is eligible when its occupancy is at most "
	 "this fraction of the minimal port's"},
	{"routing", "misroute_trigger", K_DBL, OFF(misroute_trigger), 0, 1,
	 NULL,
	 "OFAR: misroute only when the minimal port cannot take the packet "
	 "and its occupancy (misroute_occupancy) is at least this fraction "
	 "of its buffers (0: whenever it cannot)"},
	{"routing", "misroute_policy", K_ENUM, OFF(misroute_policy), 0, 0,
	 NAMES([DF_MIS_MM] = "mm", [DF_MIS_CRG] = "crg", [DF_MIS_RRG] = "rrg"),
	 "OFAR global misrouting: crg (this router's global links), rrg (any "
	 "router's in the source group), mm (crg at the injection router, "
	 "rrg after)"},
	{"routing", "misroute_pick", K_ENUM, OFF(misroute_pick), 0, 0,
	 NAMES([DF_PICK_RANDOM] = "random", [DF_PICK_MOST_FREE] = "most-free"),
	 "OFAR: which eligible misroute to take"},
	{"routing", "misroute_occupancy", K_ENUM, OFF(misroute_occupancy), 0, 0,
	 NAMES([DF_OCC_QUEUE] = "queue", [DF_OCC_DOWNSTREAM] = "downstream"),
	 "OFAR: an output's occupancy for the misroute trigger and threshold: "
	 "queue (flits in use downstream plus the packets queued in this "
	 "router whose minimal output it is) or downstream (in use "
	 "downstream only)"},
	{"routing", "escape", K_BOOL, OFF(escape), 0, 1, NULL,
	 "OFAR: the escape subnetwork (off can deadlock: for watchdog "
	 "demonstrations only)"},
	{"routing", "escape_net", K_ENUM, OFF(escape_net), 0, 0,
	 NAMES([DF_ESC_RING] = "ring", [DF_ESC_TREE] = "tree"),
	 "OFAR escape subnetwork: ring (Hamiltonian, [OC] §III-A) or tree "
	 "(spanning tree rooted at group tree_root, up-down, §III-B)"},
	{"routing", "tree_root", K_U32, OFF(tree_root), 0, 4095, NULL,
	 "OFAR tree escape: the root group G_root (its first router is the "
	 "root)"},
	{"routing", "ring", K_ENUM, OFF(ring), 0, 0,
	 NAMES([DF_RING_UNI] = "uni", [DF_RING_BI] = "bi"),
	 "OFAR escape ring direction (bi: shortest direction)"},
	{"routing", "escape_cap", K_U32, OFF(escape_cap), 1, 255, NULL,
	 "OFAR: escape entries after which a packet stays in the escape to "
	 "its destination"},
	{"routing", "cm", K_ENUM, OFF(cm), 0, 0,
	 NAMES([DF_CM_NONE] = "none", [DF_CM_BCM] = "bcm", [DF_CM_ECM] = "ecm"),
	 "OFAR congestion management on injection ([OC] §IV)"},
	{"routing", "bcm_bubble", K_U32, OFF(bcm_bubble), 1, 64, NULL,
	 "OFAR BCM: packets of room required beyond the packet itself"},
	{"routing", "ecm_threshold", K_DBL, OFF(ecm_threshold), 0, 1, NULL,
	 "OFAR ECM: no injection while every escape buffer of the router is "
	 "fuller than this fraction"},
	{"routing", "seed", K_U64, OFF(seed), 0, 1.8e19, NULL,
	 "random seed (VAL intermediates, traffic)"},
	{"traffic", "pattern", K_ENUM, OFF(pattern), 0, 0,
	 NAMES([DF_PAT_UNIFORM] = "uniform",
	       [DF_PAT_ADVERSARIAL] = "adversarial",
	       [DF_PAT_PERMUTATION] = "permutation",
	       [DF_PAT_ROUTER_SHIFT] = "router-shift"),
	 "destination pattern"},
	{"traffic", "shift", K_U32, OFF(shift), 1, 4096, NULL,
	 "adversarial: group G sends to group G+shift; router-shift: router "
	 "R to router R+shift ([FB] §3.2 worst case)"},
	{"traffic", "load", K_DBL, OFF(load), 0, 1, NULL,
	 "offered load, fraction of terminal link bandwidth"},
	{"traffic", "packet_bytes", K_U32, OFF(packet_bytes), 64, 9000, NULL,
	 "frame size (bytes)"},
	{"traffic", "process", K_ENUM, OFF(process), 0, 0,
	 NAMES([DF_PROC_BERNOULLI] = "bernoulli",
	       [DF_PROC_PERIODIC] = "periodic",
	       [DF_PROC_SATURATE] = "saturate"),
	 "injection process (saturate: always a packet waiting)"},
	{"traffic", "warmup_ms", K_U64, OFF(warmup_ms), 0, 3.6e6, NULL,
	 "warm-up before measuring (ms)"},
	{"traffic", "measure_ms", K_U64, OFF(measure_ms), 1, 3.6e6, NULL,
	 "measurement window (ms)"},
	{"traffic", "drain_timeout_ms", K_U64, OFF(drain_timeout_ms), 1, 3.6e6,
	 NULL, "give up draining after this long (ms)"},
	{"traffic", "source_queue", K_U32, OFF(source_queue), 1, 1 << 24, NULL,
	 "packets a terminal may hold before injection (more are dropped)"},
	{"traffic", "mode", K_ENUM, OFF(mode), 0, 0,
	 NAMES([DF_MODE_STEADY] = "steady", [DF_MODE_BATCH] = "batch",
	       [DF_MODE_ALL_TO_ALL] = "all-to-all"),
	 "steady (load, warm-up, window) or a fixed amount of traffic sent "
	 "as fast as flow control allows: batch (batch_packets per terminal, "
	 "destinations from pattern) or all-to-all (one packet to every other "
	 "terminal, random order); the report gives the time to deliver it"},
	{"traffic", "batch_packets", K_U32, OFF(batch_packets), 1, 1 << 24,
	 NULL, "batch mode: packets each terminal sends"},
	{"traffic", "finish", K_ENUM, OFF(finish), 0, 0,
	 NAMES([DF_FINISH_KEEP] = "keep", [DF_FINISH_STOP] = "stop"),
	 "after the window: keep generating until the measured packets are "
	 "out, or stop and drain (queued packets still enter)"},
	{"capture", "links", K_STR, OFF(cap_links), 0, 256, NULL,
	 "links written to the pcapng file: all, none, local, global, "
	 "terminal, gG, rR, rR.pP, tN, comma-separated"},
	{"capture", "direction", K_ENUM, OFF(cap_direction), 0, 0,
	 NAMES([DF_CAP_BOTH] = "both", [DF_CAP_OUT] = "out",
	       [DF_CAP_IN] = "in"),
	 "for gG, rR, rR.pP, tN: links leaving (out) or entering (in) them"},
	{"capture", "vcs", K_STR, OFF(cap_vcs), 0, 64, NULL,
	 "VCs captured on the selected links: all, or numbers"},
	{"capture", "snaplen", K_U32, OFF(cap_snaplen), 14, 65535, NULL,
	 "bytes of each frame written"},
	{"capture", "file", K_STR, OFF(cap_file), 0, 256, NULL,
	 "pcapng file written"},
	{"capture", "ring", K_U32, OFF(cap_ring), 64, 1 << 22, NULL,
	 "packets each worker can hand to the writer before it skips"},
	{"capture", "limit_mb", K_U64, OFF(cap_limit_mb), 0, 1e9, NULL,
	 "stop writing when the file reaches this size (MB; 0 = no limit); "
	 "the rest is counted, not written"},
	{"capture", "time", K_ENUM, OFF(cap_time), 0, 0,
	 NAMES([DF_CAP_DEPARTURE] = "departure", [DF_CAP_ARRIVAL] = "arrival"),
	 "packet timestamps: emulated departure onto the link or arrival at "
	 "its far end"},
	{"run", "workers", K_U32, OFF(workers), 0, 128, NULL,
	 "worker lcores (0 = auto: free CPUs, at least 1)"},
	{"run", "routers_per_lcore", K_U32, OFF(routers_per_lcore), 0, 4096,
	 NULL, "routers on each worker (0 = whole groups, spread evenly)"},
	{"run", "idle_backoff", K_BOOL, OFF(idle_backoff), 0, 1, NULL,
	 "sleep when a worker has nothing in flight"},
	{"run", "idle_sleep_us", K_U32, OFF(idle_sleep_us), 1, 1000000, NULL,
	 "length of one idle sleep (us)"},
	{"run", "lateness_tolerance_ns", K_U64, OFF(lateness_tolerance_ns), 0,
	 1e12, NULL,
	 "the host kept real time when the p99 of its lag on every packet "
	 "arrival, departure and generation is at most this (ns); else the "
	 "run exits 5. 0 = auto: one packet's serialization time on the "
	 "fastest link"},
	{"run", "pace", K_ENUM, OFF(pace), 0, 0,
	 NAMES([DF_PACE_REALTIME] = "realtime", [DF_PACE_NONE] = "none"),
	 "what sets emulated time's pace: the wall clock times time_scale "
	 "(realtime), or nothing: as fast as the host can (none; a run with "
	 "DPDK ports or instances needs realtime). Results are the same "
	 "either way"},
	{"run", "quantum_ns", K_U64, OFF(quantum_ns), 0, 1e9, NULL,
	 "the step of every worker's emulated clock (ns); events due in one "
	 "step are handled together, in node order. 0 = auto: the shortest "
	 "link latency plus one flit's serialization, at most an eighth of "
	 "a packet time on the fastest link"},
	{"run", "time_scale", K_SCALE, OFF(time_scale), 1, 1e6, NULL,
	 "time dilation: every emulated time runs this many times slower "
	 "on the host, reports stay in emulated units; auto: the smallest "
	 "that keeps real time, from short trial runs"},
	{"run", "watchdog_ms", K_U32, OFF(watchdog_ms), 0, 3600000, NULL,
	 "stop and report a VC whose head packet has not moved for this long "
	 "(ms, 0 = off)"},
	{"run", "stall_ms", K_U32, OFF(watchdog_ms), 0, 3600000, NULL,
	 "the same as watchdog_ms"},
	{"run", "mbufs", K_U64, OFF(mbufs), 0, 1e9, NULL,
	 "mbufs in the pool (0 = auto: enough for every buffer of the "
	 "network to be full). Fewer make injections fail, counted as "
	 "no_mbuf drops; with several workers, which ones fail depends on "
	 "the host"},
	{"run", "tsc_calibrate_ms", K_U32, OFF(tsc_calibrate_ms), 10, 10000,
	 NULL, "TSC calibration against CLOCK_MONOTONIC_RAW (ms)"},
	{"faults", "events", K_STR, OFF(fault_events), 0, 1024, NULL,
	 "link failures, router drains and load changes at times since the "
	 "start (ms): T:down:rR.pP, T:up:rR.pP, T:drain:R, T:undrain:R, "
	 "T:load:X, comma-separated"},
	{"faults", "in_flight", K_ENUM, OFF(fault_in_flight), 0, 0,
	 NAMES([DF_INFLIGHT_DELIVER] = "deliver", [DF_INFLIGHT_DROP] = "drop"),
	 "packets on a link when it fails: deliver (they had left) or drop "
	 "(lost, counted as link_down)"},
	{"partition", "instances", K_U32, OFF(ninst), 1, DF_MAX_INST, NULL,
	 "dfemu instances the dragonfly is split over, by groups"},
	{"partition", "instance", K_U32, OFF(instance), 0, DF_MAX_INST - 1,
	 NULL, "which instance this process is (--instance N)"},
	{"partition", "wait_ms", K_U64, OFF(part_wait_ms), 100, 3600000, NULL,
	 "how long an instance waits at start for the others (ms)"},
	{"partition", "peer_timeout_ms", K_U64, OFF(part_peer_timeout_ms), 50,
	 600000, NULL,
	 "an instance silent this long is taken as lost: its links go down "
	 "and the others go on without it (ms)"},
};
#define NKEYS (sizeof(df_cfg_keys) / sizeof(df_cfg_keys[0]))
_Static_assert(NKEYS <= DF_CFG_MAX_KEYS, "raise DF_CFG_MAX_KEYS");
const size_t df_cfg_nkeys = NKEYS;

const char *const df_cfg_sections[] = {
	"topology", "links",  "router", "routing",   "traffic", "terminals",
	"capture",  "faults", "run",	"partition", NULL};

const struct key_def *df_cfg_find_key(const char *sec, const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(df_cfg_keys[i].section, sec) &&
		    !strcmp(df_cfg_keys[i].name, name))
			return &df_cfg_keys[i];
	return NULL;
}

int df_cfg_known_section(const char *sec)
{
	for (int i = 0; df_cfg_sections[i]; i++)
		if (!strcmp(df_cfg_sections[i], sec))
			return 1;
	return 0;
}

/* "[a] [b] [c]": every section, into buf */
void df_cfg_list_sections(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; df_cfg_sections[i] && len < n; i++)
		len += snprintf(buf + len, n - len, "%s[%s]", i ? " " : "",
				df_cfg_sections[i]);
}

/* "a, b or c" into buf */
void df_cfg_list_keys(const char *sec, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NKEYS && len < n; i++)
		if (!strcmp(df_cfg_keys[i].section, sec))
			len += snprintf(buf + len, n - len, "%s%s",
					len ? ", " : "", df_cfg_keys[i].name);
}

/* Value v's name in enum key [sec] name's list, the one place it is
 * written; "?" for a value without one. */
static const char *key_choice(const char *sec, const char *name, int v)
{
	const struct key_def *k = df_cfg_find_key(sec, name);

	for (int i = 0; k && k->choices[i]; i++)
		if (i == v)
			return k->choices[i];
	return "?";
}

/* The enum keys' accessors (config.h): fn(value) is its name. */
#define KEY_NAME(fn, type, sec, key)                 \
	const char *fn(enum type v)                  \
	{                                            \
		return key_choice(sec, key, (int)v); \
	}
KEY_NAME(df_topo_type_name, df_topo_type, "topology", "type")
KEY_NAME(df_arrangement_name, df_arrangement, "topology", "arrangement")
KEY_NAME(df_switching_name, df_switching, "router", "switching")
KEY_NAME(df_algorithm_name, df_algorithm, "routing", "algorithm")
KEY_NAME(df_pb_flags_name, df_pb_flags, "routing", "pb_flags")
KEY_NAME(df_mis_policy_name, df_mis_policy, "routing", "misroute_policy")
KEY_NAME(df_mis_pick_name, df_mis_pick, "routing", "misroute_pick")
KEY_NAME(df_mis_occ_name, df_mis_occ, "routing", "misroute_occupancy")
KEY_NAME(df_escape_net_name, df_escape_net, "routing", "escape_net")
KEY_NAME(df_ring_dir_name, df_ring_dir, "routing", "ring")
KEY_NAME(df_cm_name, df_cm, "routing", "cm")
KEY_NAME(df_pattern_name, df_pattern, "traffic", "pattern")
KEY_NAME(df_process_name, df_process, "traffic", "process")
KEY_NAME(df_mode_name, df_mode, "traffic", "mode")
KEY_NAME(df_pace_name, df_pace, "run", "pace")

/* Not a key's: the link classes name the [links] keys' prefixes. */
const char *df_link_class_name(enum df_link_class c)
{
	static const char *const names[DF_LINK_NCLASS] = {
		[DF_LINK_TERMINAL] = "terminal",
		[DF_LINK_LOCAL] = "local",
		[DF_LINK_GLOBAL] = "global",
	};

	return c < DF_LINK_NCLASS ? names[c] : "?";
}
