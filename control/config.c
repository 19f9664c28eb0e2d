/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config keys: the one key table (section, name, type, range, meaning),
 * the defaults, the enums' names, a value parsed by its key's type and
 * applied with where it came from, each key's value and documentation
 * (config.h), and df_config_load: the file and --set (config_file.c),
 * then the checks across keys (config_check.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_private.h"
#include "partition.h"
#include "terminals.h"

/* K_SCALE: a number, or "auto" stored as 0 */
enum key_type {
	K_U32,
	K_U64,
	K_DBL,
	K_ENUM,
	K_BOOL,
	K_VCS,
	K_STR,
	K_ARR,
	K_SCALE
};

struct key_def {
	const char *section;
	const char *name;
	enum key_type type;
	size_t off;
	double min, max;	    /* numeric range, inclusive */
	const char *const *choices; /* K_ENUM: NULL-terminated names */
	const char *help;
};

static const char *const arr_names[] = {
	"relative", "absolute", "circulant", "helix", "nautilus", "file", NULL};
#define DF_ALG_NAME(id, name, ...) name,
static const char *const alg_names[] = {DF_ALGORITHMS(DF_ALG_NAME) NULL};
#undef DF_ALG_NAME
static const char *const ring_names[] = {"uni", "bi", NULL};
static const char *const escape_net_names[] = {"ring", "tree", NULL};
static const char *const mode_names[] = {"steady", "batch", "all-to-all", NULL};
static const char *const finish_names[] = {"keep", "stop", NULL};
static const char *const pace_names[] = {"realtime", "none", NULL};
static const char *const cm_names[] = {"none", "bcm", "ecm", NULL};
static const char *const mis_policy_names[] = {"mm", "crg", "rrg", NULL};
static const char *const mis_pick_names[] = {"random", "most-free", NULL};
static const char *const mis_occ_names[] = {"queue", "downstream", NULL};
static const char *const pb_names[] = {"piggyback", "direct", NULL};
static const char *const switching_names[] = {"cut-through",
					      "store-and-forward", NULL};
static const char *const pat_names[] = {"uniform", "adversarial", "permutation",
					"router-shift", NULL};
static const char *const proc_names[] = {"bernoulli", "periodic", "saturate",
					 NULL};
static const char *const class_names[] = {"terminal", "local", "global"};
static const char *const capdir_names[] = {"both", "out", "in", NULL};
static const char *const captime_names[] = {"departure", "arrival", NULL};
static const char *const inflight_names[] = {"deliver", "drop", NULL};

const char *df_arrangement_name(enum df_arrangement a)
{
	return arr_names[a];
}
const char *df_algorithm_name(enum df_algorithm a)
{
	return alg_names[a];
}
const char *df_mode_name(enum df_mode m)
{
	return mode_names[m];
}
const char *df_cm_name(enum df_cm c)
{
	return cm_names[c];
}
const char *df_mis_policy_name(enum df_mis_policy p)
{
	return mis_policy_names[p];
}
const char *df_mis_pick_name(enum df_mis_pick p)
{
	return mis_pick_names[p];
}
const char *df_mis_occ_name(enum df_mis_occ o)
{
	return mis_occ_names[o];
}
const char *df_pb_flags_name(enum df_pb_flags f)
{
	return pb_names[f];
}
const char *df_switching_name(enum df_switching s)
{
	return switching_names[s];
}
const char *df_escape_net_name(enum df_escape_net e)
{
	return escape_net_names[e];
}

const char *df_ring_dir_name(enum df_ring_dir d)
{
	return ring_names[d];
}
const char *df_pattern_name(enum df_pattern p)
{
	return pat_names[p];
}
const char *df_process_name(enum df_process p)
{
	return proc_names[p];
}
const char *df_link_class_name(enum df_link_class c)
{
	return class_names[c];
}

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

static const char *const type_names[] = {"dragonfly", "flatfly", NULL};

/* A section's keys stay together: --help and --print-config print them
 * in this order, one heading or object per section. */
static const struct key_def keys[] = {
	{"topology", "type", K_ENUM, OFF(type), 0, 0, type_names,
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
	{"topology", "arrangement", K_ARR, OFF(arrangement), 0, 0, arr_names,
	 "global-link arrangement ([SP] names)"},
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
	{"router", "switching", K_ENUM, OFF(switching), 0, 0, switching_names,
	 "cut-through: a packet is due at the next router when its head "
	 "flit is ([OC] §V's virtual cut-through); store-and-forward: when "
	 "its last byte is"},
	{"routing", "algorithm", K_ENUM, OFF(algorithm), 0, 0, alg_names,
	 "routing algorithm"},
	{"routing", "ugal_bias", K_U32, OFF(ugal_bias), 0, 1000000, NULL,
	 "UGAL: flits added in favour of the minimal path"},
	{"routing", "pb_flags", K_ENUM, OFF(pb_flags), 0, 0, pb_names,
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
	 mis_policy_names,
	 "OFAR global misrouting: crg (this router's global links), rrg (any "
	 "router's in the source group), mm (crg at the injection router, "
	 "rrg after)"},
	{"routing", "misroute_pick", K_ENUM, OFF(misroute_pick), 0, 0,
	 mis_pick_names, "OFAR: which eligible misroute to take"},
	{"routing", "misroute_occupancy", K_ENUM, OFF(misroute_occupancy), 0, 0,
	 mis_occ_names,
	 "OFAR: an output's occupancy for the misroute trigger and threshold: "
	 "queue (flits in use downstream plus the packets queued in this "
	 "router whose minimal output it is) or downstream (in use "
	 "downstream only)"},
	{"routing", "escape", K_BOOL, OFF(escape), 0, 1, NULL,
	 "OFAR: the escape subnetwork (off can deadlock: for watchdog "
	 "demonstrations only)"},
	{"routing", "escape_net", K_ENUM, OFF(escape_net), 0, 0,
	 escape_net_names,
	 "OFAR escape subnetwork: ring (Hamiltonian, [OC] §III-A) or tree "
	 "(spanning tree rooted at group tree_root, up-down, §III-B)"},
	{"routing", "tree_root", K_U32, OFF(tree_root), 0, 4095, NULL,
	 "OFAR tree escape: the root group G_root (its first router is the "
	 "root)"},
	{"routing", "ring", K_ENUM, OFF(ring), 0, 0, ring_names,
	 "OFAR escape ring direction (bi: shortest direction)"},
	{"routing", "escape_cap", K_U32, OFF(escape_cap), 1, 255, NULL,
	 "OFAR: escape entries after which a packet stays in the escape to "
	 "its destination"},
	{"routing", "cm", K_ENUM, OFF(cm), 0, 0, cm_names,
	 "OFAR congestion management on injection ([OC] §IV)"},
	{"routing", "bcm_bubble", K_U32, OFF(bcm_bubble), 1, 64, NULL,
	 "OFAR BCM: packets of room required beyond the packet itself"},
	{"routing", "ecm_threshold", K_DBL, OFF(ecm_threshold), 0, 1, NULL,
	 "OFAR ECM: no injection while every escape buffer of the router is "
	 "fuller than this fraction"},
	{"routing", "seed", K_U64, OFF(seed), 0, 1.8e19, NULL,
	 "random seed (VAL intermediates, traffic)"},
	{"traffic", "pattern", K_ENUM, OFF(pattern), 0, 0, pat_names,
	 "destination pattern"},
	{"traffic", "shift", K_U32, OFF(shift), 1, 4096, NULL,
	 "adversarial: group G sends to group G+shift; router-shift: router "
	 "R to router R+shift ([FB] §3.2 worst case)"},
	{"traffic", "load", K_DBL, OFF(load), 0, 1, NULL,
	 "offered load, fraction of terminal link bandwidth"},
	{"traffic", "packet_bytes", K_U32, OFF(packet_bytes), 64, 9000, NULL,
	 "frame size (bytes)"},
	{"traffic", "process", K_ENUM, OFF(process), 0, 0, proc_names,
	 "injection process (saturate: always a packet waiting)"},
	{"traffic", "warmup_ms", K_U64, OFF(warmup_ms), 0, 3.6e6, NULL,
	 "warm-up before measuring (ms)"},
	{"traffic", "measure_ms", K_U64, OFF(measure_ms), 1, 3.6e6, NULL,
	 "measurement window (ms)"},
	{"traffic", "drain_timeout_ms", K_U64, OFF(drain_timeout_ms), 1, 3.6e6,
	 NULL, "give up draining after this long (ms)"},
	{"traffic", "source_queue", K_U32, OFF(source_queue), 1, 1 << 24, NULL,
	 "packets a terminal may hold before injection (more are dropped)"},
	{"traffic", "mode", K_ENUM, OFF(mode), 0, 0, mode_names,
	 "steady (load, warm-up, window) or a fixed amount of traffic sent "
	 "as fast as flow control allows: batch (batch_packets per terminal, "
	 "destinations from pattern) or all-to-all (one packet to every other "
	 "terminal, random order); the report gives the time to deliver it"},
	{"traffic", "batch_packets", K_U32, OFF(batch_packets), 1, 1 << 24,
	 NULL, "batch mode: packets each terminal sends"},
	{"traffic", "finish", K_ENUM, OFF(finish), 0, 0, finish_names,
	 "after the window: keep generating until the measured packets are "
	 "out, or stop and drain (queued packets still enter)"},
	{"capture", "links", K_STR, OFF(cap_links), 0, 256, NULL,
	 "links written to the pcapng file: all, none, local, global, "
	 "terminal, gG, rR, rR.pP, tN, comma-separated"},
	{"capture", "direction", K_ENUM, OFF(cap_direction), 0, 0, capdir_names,
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
	{"capture", "time", K_ENUM, OFF(cap_time), 0, 0, captime_names,
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
	{"run", "pace", K_ENUM, OFF(pace), 0, 0, pace_names,
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
	 inflight_names,
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
#define NKEYS (sizeof(keys) / sizeof(keys[0]))
_Static_assert(NKEYS <= DF_CFG_MAX_KEYS, "raise DF_CFG_MAX_KEYS");

const char *const df_cfg_sections[] = {
	"topology", "links",  "router", "routing",   "traffic", "terminals",
	"capture",  "faults", "run",	"partition", NULL};

void df_config_defaults(struct df_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->p = 2;
	cfg->a = 4;
	cfg->h = 2;
	cfg->g = 0;
	cfg->arrangement = DF_ARR_RELATIVE;
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		cfg->link[c].latency_ns = c == DF_LINK_GLOBAL ? 1000 : 100;
		cfg->link[c].bandwidth_gbps = 1.0;
		cfg->link[c].buffer_flits = 64;
		cfg->link[c].credit_latency_ns = UINT64_MAX; /* = latency */
		cfg->link[c].vcs = 0;			     /* = plan */
	}
	cfg->flit_bytes = 64;
	cfg->vcs_plus = -1;
	cfg->speedup = 1;
	cfg->batch_packets = 2000;
	cfg->algorithm = DF_ALG_MIN;
	cfg->seed = 1;
	cfg->misroute_threshold = 0.9;
	cfg->escape_net = DF_ESC_RING;
	cfg->tree_root = 0;
	cfg->ring = DF_RING_UNI;
	cfg->escape = 1;
	cfg->escape_cap = 15;
	cfg->cm = DF_CM_BCM;
	cfg->bcm_bubble = 2;
	cfg->ecm_threshold = 0.5;
	cfg->pattern = DF_PAT_UNIFORM;
	cfg->shift = 1;
	cfg->load = 0.3;
	cfg->packet_bytes = 256;
	cfg->process = DF_PROC_BERNOULLI;
	cfg->warmup_ms = 200;
	cfg->measure_ms = 1000;
	cfg->drain_timeout_ms = 5000;
	cfg->source_queue = 4096;
	cfg->workers = 0;
	cfg->routers_per_lcore = 0;
	cfg->idle_backoff = 1;
	cfg->idle_sleep_us = 50;
	cfg->lateness_tolerance_ns = 0; /* auto: df_config_lateness_auto */
	cfg->time_scale = 1;
	cfg->tsc_calibrate_ms = 100;
	cfg->watchdog_ms = 10000;
	cfg->ninst = 1;
	cfg->part_wait_ms = 30000;
	cfg->part_peer_timeout_ms = 1000;
	snprintf(cfg->cap_links, sizeof(cfg->cap_links), "none");
	snprintf(cfg->cap_vcs, sizeof(cfg->cap_vcs), "all");
	snprintf(cfg->cap_file, sizeof(cfg->cap_file), "dfemu.pcapng");
	cfg->cap_snaplen = 128;
	cfg->cap_ring = 16384;
	cfg->cap_limit_mb = 1000;
}

void df_cfg_err(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

const struct key_def *df_cfg_find_key(const char *sec, const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].section, sec) &&
		    !strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

int df_cfg_known_section(const char *sec)
{
	for (int i = 0; df_cfg_sections[i]; i++)
		if (!strcmp(df_cfg_sections[i], sec))
			return 1;
	return 0;
}

/* "a, b or c" into buf */
void df_cfg_list_keys(const char *sec, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NKEYS && len < n; i++)
		if (!strcmp(keys[i].section, sec))
			len += snprintf(buf + len, n - len, "%s%s",
					len ? ", " : "", keys[i].name);
}

static void allowed_of(const struct key_def *k, char *buf, size_t n)
{
	size_t len = 0;

	switch (k->type) {
	case K_ENUM:
		len += snprintf(buf, n, "one of ");
		for (int i = 0; k->choices[i] && len < n; i++)
			len += snprintf(buf + len, n - len, "%s%s",
					i ? " | " : "", k->choices[i]);
		break;
	case K_BOOL:
		snprintf(buf, n, "on | off (or 1 | 0, yes | no, true | false)");
		break;
	case K_DBL:
		snprintf(buf, n, "a number from %g to %g", k->min, k->max);
		break;
	case K_SCALE:
		snprintf(buf, n, "auto, or a number from %g to %g", k->min,
			 k->max);
		break;
	case K_STR:
		snprintf(buf, n, "text of up to %.0f characters", k->max - 1);
		break;
	case K_ARR:
		snprintf(buf, n,
			 "one of relative | absolute | circulant (h even) | "
			 "helix | nautilus | file:PATH (a link list)");
		break;
	case K_VCS:
		snprintf(buf, n,
			 "L/G or L/G+1 (local/global VCs, +1: OFAR's escape "
			 "VC, also written (+1)), L and G from 1 to %d",
			 DF_MAX_VC);
		break;
	default:
		snprintf(buf, n, "an integer from %.0f to %.0f", k->min,
			 k->max);
		break;
	}
}

/* "L/G", "L/G+1" or "L/G(+1)": VCs on local and global links. */
static int parse_vcs(const char *val, struct df_config *cfg)
{
	unsigned l, g;
	int used = 0;

	if (sscanf(val, "%u/%u%n", &l, &g, &used) != 2 || l < 1 ||
	    l > DF_MAX_VC || g < 1 || g > DF_MAX_VC ||
	    !isdigit((unsigned char)val[0]))
		return -1;
	val += used;
	if (*val == '\0')
		cfg->vcs_plus = 0;
	else if (!strcmp(val, "+1") || !strcmp(val, "(+1)"))
		cfg->vcs_plus = 1;
	else
		return -1;
	cfg->link[DF_LINK_LOCAL].vcs = l;
	cfg->link[DF_LINK_GLOBAL].vcs = g;
	return 0;
}

static int parse_value(const struct key_def *k, const char *val,
		       struct df_config *cfg)
{
	char *end;
	void *dst = (char *)cfg + k->off;

	if (*val == '\0')
		return -1;
	switch (k->type) {
	case K_ENUM:
		for (int i = 0; k->choices[i]; i++)
			if (!strcmp(k->choices[i], val)) {
				*(int *)dst = i;
				return 0;
			}
		return -1;
	case K_BOOL:
		if (!strcmp(val, "on") || !strcmp(val, "1") ||
		    !strcmp(val, "yes") || !strcmp(val, "true")) {
			*(int *)dst = 1;
			return 0;
		}
		if (!strcmp(val, "off") || !strcmp(val, "0") ||
		    !strcmp(val, "no") || !strcmp(val, "false")) {
			*(int *)dst = 0;
			return 0;
		}
		return -1;
	case K_VCS:
		return parse_vcs(val, cfg);
	case K_STR:
		if (strlen(val) >= (size_t)k->max)
			return -1;
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	case K_ARR:
		if (!strncmp(val, "file:", 5)) {
			if (val[5] == '\0' ||
			    strlen(val + 5) >= sizeof(cfg->arr_file))
				return -1;
			snprintf(cfg->arr_file, sizeof(cfg->arr_file), "%s",
				 val + 5);
			*(int *)dst = DF_ARR_FILE;
			return 0;
		}
		for (int i = 0; i < DF_ARR_FILE; i++)
			if (!strcmp(k->choices[i], val)) {
				*(int *)dst = i;
				return 0;
			}
		return -1;
	case K_SCALE:
		if (!strcmp(val, "auto")) {
			*(double *)dst = 0;
			return 0;
		}
		/* fall through */
	case K_DBL: {
		errno = 0;
		double d = strtod(val, &end);
		if (errno || *end || !isfinite(d) || d < k->min || d > k->max)
			return -1;
		*(double *)dst = d;
		return 0;
	}
	default: {
		if (!isdigit((unsigned char)val[0]))
			return -1;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (errno || *end || (double)v < k->min || (double)v > k->max)
			return -1;
		if (k->type == K_U32)
			*(uint32_t *)dst = (uint32_t)v;
		else
			*(uint64_t *)dst = v;
		return 0;
	}
	}
}

int df_cfg_apply(struct df_config *cfg, const char *where, const char *sec,
		 const char *key, const char *val, char *err, size_t n)
{
	const struct key_def *k = df_cfg_find_key(sec, key);
	char allowed[256];

	if (!strcmp(sec, "terminals"))
		return df_term_apply(cfg, where, key, val, err, n);
	if (k == NULL && !strcmp(sec, "partition"))
		return df_part_apply(cfg, where, key, val, err, n);
	if (k == NULL) {
		char list[1024];
		if (!df_cfg_known_section(sec)) {
			df_cfg_err(
				err, n,
				"%s: unknown section [%s]; allowed: [topology] "
				"[links] [routing] [traffic] [terminals] "
				"[capture] [faults] [run] [partition]",
				where, sec);
			return -1;
		}
		df_cfg_list_keys(sec, list, sizeof(list));
		df_cfg_err(err, n,
			   "%s: [%s] unknown key '%s'; allowed keys: %s", where,
			   sec, key, list);
		return -1;
	}
	if (parse_value(k, val, cfg)) {
		allowed_of(k, allowed, sizeof(allowed));
		df_cfg_err(err, n, "%s: [%s] %s = '%s' is not allowed; %s: %s",
			   where, sec, key, val, k->help, allowed);
		return -1;
	}
	snprintf(cfg->origin[k - keys], sizeof(cfg->origin[0]), "%s", where);
	return 0;
}

const char *df_config_origin(const struct df_config *cfg, const char *sec,
			     const char *key)
{
	static __thread char dflt[300];
	const struct key_def *k = df_cfg_find_key(sec, key);

	if (k && cfg->origin[k - keys][0])
		return cfg->origin[k - keys];
	snprintf(dflt, sizeof(dflt), "%s (default)", cfg->path);
	return dflt;
}

/* Was [sec] key set, in the file or by --set? */
int df_cfg_is_set(const struct df_config *cfg, const char *sec, const char *key)
{
	return cfg->origin[df_cfg_find_key(sec, key) - keys][0] != '\0';
}

int df_config_load(struct df_config *cfg, const char *path,
		   const char *const *sets, int nsets, char *err, size_t n)
{
	snprintf(cfg->path, sizeof(cfg->path), "%s", path ? path : "(none)");
	if (path && df_cfg_load_file(cfg, path, err, n))
		return -1;
	for (int i = 0; i < nsets; i++)
		if (df_cfg_apply_set(cfg, sets[i], err, n))
			return -1;
	if (cfg->type == DF_TOPO_FLATFLY && df_cfg_flatfly_shape(cfg, err, n))
		return -1;
	if (cfg->g == 0)
		cfg->g = cfg->a * cfg->h + 1;
	for (int k = 0; k < DF_LINK_NCLASS; k++)
		if (cfg->link[k].credit_latency_ns == UINT64_MAX)
			cfg->link[k].credit_latency_ns =
				cfg->link[k].latency_ns;
	if (cfg->lateness_tolerance_ns == 0) {
		cfg->lateness_auto = 1;
		cfg->lateness_tolerance_ns = df_config_lateness_auto(cfg);
	}
	return df_config_validate(cfg, err, n);
}

uint64_t df_config_lateness_auto(const struct df_config *c)
{
	double gbps = 0;

	for (int k = 0; k < DF_LINK_NCLASS; k++)
		if (c->link[k].bandwidth_gbps > gbps)
			gbps = c->link[k].bandwidth_gbps;
	/* Competing packets are ordered at outputs to within the lag: a lag
	 * above a packet time leaves idle gaps no later packet can fill,
	 * and the network's throughput becomes the host's (measured in
	 * docs/realtime.md). Unlimited links: no packet
	 * time, the VM's scheduling noise floor instead. */
	if (gbps <= 0)
		return 100000;
	return (uint64_t)ceil(c->packet_bytes * 8.0 / gbps);
}

/* Ticks to serialize bytes at gbps (0: unlimited, no time). */
static double ser_ticks(double bytes, double gbps)
{
	return gbps > 0 ? bytes * 8.0 / gbps * DF_TICKS_PER_NS : 0;
}

uint64_t df_config_quantum(const struct df_config *c)
{
	double q = -1, gbps = 0;

	if (c->quantum_ns)
		return c->quantum_ns * DF_TICKS_PER_NS;
	/* At most the shortest time from a step to what it causes at the
	 * next node: a link's latency plus one flit's serialization (a
	 * packet is never shorter), for packets and for credits. So what
	 * one node sends in a step is due at the next in a later step,
	 * whatever order the step takes them in. */
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		const struct df_link_params *lp = &c->link[k];
		double f = ser_ticks(c->flit_bytes, lp->bandwidth_gbps);
		double lat = (double)lp->latency_ns * DF_TICKS_PER_NS + f,
		       cl = (double)lp->credit_latency_ns * DF_TICKS_PER_NS + f;

		if (lp->bandwidth_gbps > gbps)
			gbps = lp->bandwidth_gbps;
		if (lat > 0 && (q < 0 || lat < q))
			q = lat;
		if (cl > 0 && (q < 0 || cl < q))
			q = cl;
	}
	/* At most an eighth of a packet time on the fastest link: packets
	 * competing for an output are ordered to within that
	 * (docs/realtime.md, "The quantum"). */
	if (gbps > 0 && (q < 0 || ser_ticks(c->packet_bytes, gbps) / 8 < q))
		q = ser_ticks(c->packet_bytes, gbps) / 8;
	if (q < 0) /* zero latency and unlimited links: 1 ns */
		q = DF_TICKS_PER_NS;
	return q >= 1 ? (uint64_t)q : 1;
}

/* Key i's value in cfg as it would be written in the file (config.h). */
/* A number outside its key's range is a default that means "not set"
 * (2); one inside is a value (1). */
static int set_or_not(const struct key_def *k, double v)
{
	return v < k->min || v > k->max ? 2 : 1;
}

int df_config_value(const struct df_config *cfg, size_t i, const char **sec,
		    const char **name, char *buf, size_t n)
{
	const struct key_def *k;
	const void *v;

	if (i >= NKEYS)
		return -1;
	k = &keys[i];
	*sec = k->section;
	*name = k->name;
	v = (const char *)cfg + k->off;
	switch (k->type) {
	case K_ENUM:
		snprintf(buf, n, "%s", k->choices[*(const int *)v]);
		return 0;
	case K_BOOL:
		snprintf(buf, n, "%s", *(const int *)v ? "on" : "off");
		return 0;
	case K_VCS:
		if (cfg->link[DF_LINK_LOCAL].vcs == 0)
			return 2; /* not set: the algorithm's */
		snprintf(buf, n, "%u/%u%s", cfg->link[DF_LINK_LOCAL].vcs,
			 cfg->link[DF_LINK_GLOBAL].vcs,
			 cfg->vcs_plus ? "+1" : "");
		return 0;
	case K_STR:
		snprintf(buf, n, "%s", (const char *)v);
		return 0;
	case K_ARR:
		if (*(const int *)v == DF_ARR_FILE)
			snprintf(buf, n, "file:%s", cfg->arr_file);
		else
			snprintf(buf, n, "%s", k->choices[*(const int *)v]);
		return 0;
	case K_SCALE:
		if (*(const double *)v == 0) {
			snprintf(buf, n, "auto");
			return 0;
		}
		/* fall through */
	case K_DBL:
		snprintf(buf, n, "%.15g", *(const double *)v);
		return 1;
	case K_U32:
		snprintf(buf, n, "%u", *(const uint32_t *)v);
		/* outside the allowed range: not set (another key's or the
		 * plan's value applies) */
		return set_or_not(k, *(const uint32_t *)v);
	default:
		snprintf(buf, n, "%llu",
			 (unsigned long long)*(const uint64_t *)v);
		return set_or_not(k, (double)*(const uint64_t *)v);
	}
}

int df_config_key_doc(size_t i, const char **sec, const char **name,
		      const char **help, char *allowed, size_t n)
{
	if (i >= NKEYS)
		return -1;
	*sec = keys[i].section;
	*name = keys[i].name;
	*help = keys[i].help;
	allowed_of(&keys[i], allowed, n);
	return 0;
}
