/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu: a real-network emulator of dragonfly interconnection networks.
 * Laid out like DPDK's examples: application arguments, EAL start, then
 * the work; EAL arguments come after --eal (or before --, DPDK style).
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "algorithms.h"
#include "emu.h"
#include "telemetry.h"
#include "partition.h"
#include "terminals.h"

#define MAX_SETS     128
#define MAX_EAL_ARGS 64

struct app_args {
	const char *config;
	const char *sets[MAX_SETS];
	int nsets;
	char *owned[MAX_SETS]; /* sets built from --capture, -w */
	int nowned;
	const char *json;
	const char *stats_csv;
	int quiet, check, print_addresses, print_config, help, pdump;
	/* where EAL's arguments are: argv[split] is --eal (after it) or --
	 * (dpdk_style: before it); -1: none given */
	int split, dpdk_style;
	char **eal;
	int neal;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s --config FILE [--set SECTION.KEY=VALUE]... "
		"[--json FILE] [--quiet] [--eal EAL-ARGS...]\n"
		"       %s --check --config FILE [--set ...]\n"
		"       %s --print-addresses --config FILE [--set ...]\n"
		"       %s --print-config --config FILE [--set ...]\n"
		"       %s [EAL-ARGS...] -- --config FILE [...]\n\n"
		"Emulates a dragonfly network (routers as DPDK poll tasks, "
		"links with shaped\nlatency and bandwidth, virtual channels "
		"and credit flow control) and prints a\nreport of "
		"throughput, latency, hops and the packet/credit "
		"accounting.\n\n"
		"Options:\n"
		"  -c, --config FILE     emulation config (INI, see "
		"docs/config.md "
		"and configs/)\n"
		"  -s, --set S.K=V       override one config key, e.g. "
		"--set traffic.load=0.5\n"
		"                        (repeatable, applied after the file)\n"
		"  -j, --json FILE       also write the report as JSON "
		"(- for stdout)\n"
		"  -q, --quiet           no live status line\n"
		"  -C, --capture LINKS   write packets on these links to a "
		"pcapng file: all,\n"
		"                        local, global, terminal, gG, rR, "
		"rR.pP, tN (comma list);\n"
		"                        same as --set capture.links=LINKS\n"
		"  -w, --capture-file F  the pcapng file (--set "
		"capture.file=F)\n"
		"  -i, --instance N      which instance of a partitioned "
		"network this is\n"
		"                        ([partition]; same as --set "
		"partition.instance=N)\n"
		"      --stats-csv FILE  one CSV row per second: load, "
		"latency, lateness, drops\n"
		"      --pdump           let dpdk-dumpcap capture terminal "
		"ports (rte_pdump;\n"
		"                        needs hugepages: EAL runs without "
		"--in-memory)\n"
		"  -k, --check           build and check wiring, routing "
		"tables, VC plan and\n"
		"                        placement, print a summary, do not "
		"forward\n"
		"  -a, --print-addresses print every terminal's router, group, "
		"MAC, IPv4 and port\n"
		"                        (vdev or builtin) as JSON, do not "
		"forward\n"
		"      --print-config    print every config key's value (from "
		"the file, --set\n"
		"                        and the defaults) as JSON {section: "
		"{key: value}}, do\n"
		"                        not forward\n"
		"  -h, --help            this text\n"
		"      --help-config[=markdown]\n"
		"                        the config keys alone; markdown: as "
		"a page, each key\n"
		"                        with its default (docs/config.md)\n"
		"      --list-algorithms[=dragonfly|flatfly]\n"
		"                        the routing algorithms of the "
		"topology (dragonfly),\n"
		"                        one a line: name, adaptive or "
		"oblivious, what it is\n"
		"      --eal ARGS...     everything after it goes to DPDK's "
		"EAL. Without EAL\n"
		"                        arguments dfemu picks: --no-pci, "
		"lcores 0..N-1 (N = CPUs),\n"
		"                        --in-memory on hugepages when a "
		"hugetlbfs with free pages\n"
		"                        is mounted, else --no-huge -m "
		"<size> --no-shconf\n\n"
		"Config keys ([section] key: meaning; allowed):\n",
		prog, prog, prog, prog, prog);
	df_config_print_keys(f);
	fprintf(f, "\nExit status: 0 run complete and every packet and "
		   "credit accounted for;\n1 accounting failed (not drained, "
		   "credits lost, packets lost or duplicated);\n2 bad "
		   "arguments or config; 3 DPDK/EAL or resource error;\n4 "
		   "an instance was lost, the others completed without it, "
		   "accounted for;\n5 accounted for, but the host did not "
		   "keep real time (lateness p99 above\n[run] "
		   "lateness_tolerance_ns): the figures are partly the "
		   "host's.\n");
}

/* --help-config[=text|markdown]: the key table alone */
static int help_config(const char *format)
{
	if (format == NULL || !strcmp(format, "text")) {
		printf("Config keys ([section] key: meaning; allowed):\n");
		df_config_print_keys(stdout);
		return 0;
	}
	if (!strcmp(format, "markdown")) {
		df_config_print_keys_md(stdout);
		return 0;
	}
	fprintf(stderr,
		"dfemu: --help-config=%s: allowed are text and markdown\n",
		format);
	return -1;
}

/* --list-algorithms[=dragonfly|flatfly]: the algorithms that run on the
 * topology, one a line, tab-separated: name, adaptive or oblivious, what
 * it is (control/algorithms.h's list; scripts take the names from here) */
static int list_algorithms(const char *topo)
{
	int ff;

	if (topo == NULL || !strcmp(topo, "dragonfly")) {
		ff = 0;
	} else if (!strcmp(topo, "flatfly")) {
		ff = 1;
	} else {
		fprintf(stderr,
			"dfemu: --list-algorithms=%s: allowed are dragonfly "
			"and flatfly\n",
			topo);
		return -1;
	}
	for (int a = 0; a < DF_ALG_COUNT; a++) {
		const struct df_alg_info *i = df_alg_info(a);

		if (ff ? !df_alg_on_flatfly(a) : !df_alg_on_dragonfly(a))
			continue;
		printf("%s\t%s\t%s\n", i->name,
		       i->adaptive ? "adaptive" : "oblivious", i->help);
	}
	return 0;
}

/* One more --set: SECTION.KEY=VALUE as given (key NULL), or key=value
 * for an option that stands for one (owned). Returns 0 or -1. */
static int add_set(struct app_args *a, const char *key, const char *value)
{
	if (a->nsets == MAX_SETS) {
		fprintf(stderr, "dfemu: too many --set (max %d)\n", MAX_SETS);
		return -1;
	}
	if (key == NULL) {
		a->sets[a->nsets++] = value;
		return 0;
	}
	if (asprintf(&a->owned[a->nowned], "%s=%s", key, value) < 0)
		return -1;
	a->sets[a->nsets++] = a->owned[a->nowned++];
	return 0;
}

static int parse_app(int argc, char **argv, struct app_args *a)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 's'},
		{"json", required_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"capture", required_argument, NULL, 'C'},
		{"capture-file", required_argument, NULL, 'w'},
		{"instance", required_argument, NULL, 'i'},
		{"stats-csv", required_argument, NULL, 'S'},
		{"pdump", no_argument, NULL, 'P'},
		{"check", no_argument, NULL, 'k'},
		{"print-addresses", no_argument, NULL, 'a'},
		{"print-config", no_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{"help-config", optional_argument, NULL, 'H'},
		{"list-algorithms", optional_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:s:j:qkahC:w:i:", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 's':
			if (add_set(a, NULL, optarg))
				return -1;
			break;
		case 'C':
			if (add_set(a, "capture.links", optarg))
				return -1;
			break;
		case 'w':
			if (add_set(a, "capture.file", optarg))
				return -1;
			break;
		case 'i':
			if (add_set(a, "partition.instance", optarg))
				return -1;
			break;
		case 'S':
			a->stats_csv = optarg;
			break;
		case 'P':
			a->pdump = 1;
			break;
		case 'j':
			a->json = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'k':
			a->check = 1;
			break;
		case 'a':
			a->print_addresses = 1;
			break;
		case 'p':
			a->print_config = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			a->help = 1;
			return 0;
		case 'H':
			a->help = 1;
			return help_config(optarg);
		case 'L':
			a->help = 1;
			return list_algorithms(optarg);
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"dfemu: unexpected argument '%s' (EAL arguments go "
			"after --eal)\nTry '%s --help'.\n",
			argv[optind], argv[0]);
		return -1;
	}
	if (a->config == NULL) {
		fprintf(stderr,
			"dfemu: --config FILE is required\nTry '%s "
			"--help'.\n",
			argv[0]);
		return -1;
	}
	return 0;
}

/* EAL's arguments live as long as the process (EAL may keep pointers
 * into them); kept reachable here. */
static char **eal_kept;
static char *vdev_kept[4096];	     /* EAL may overwrite argv slots */
static char *peer_kept[DF_MAX_INST]; /* the same, for [partition] ports */

static int default_eal(struct app_args *a, const struct df_plan *pl,
		       char **argv0, char *store, size_t storelen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t workers =
		pl->cfg.workers ? pl->cfg.workers : (ncpu > 1 ? ncpu - 1 : 1);
	uint64_t need = df_emulate_mem_bytes(pl) + (64ULL << 20);
	size_t used = 0;
	int n = 0;
	char *args[16];

#define ADD(...)                                                               \
	do {                                                                   \
		args[n++] = store + used;                                      \
		used += snprintf(store + used, storelen - used, __VA_ARGS__) + \
			1;                                                     \
	} while (0)
	ADD("%s", *argv0);
	if (pl->cfg.ninst > 1 && workers == 1 && ncpu > 1) {
		/* instances on one machine: each worker on its own CPU
		 * (instance i on CPU 1 + i, wrapping), main on another */
		long w = (1 + (long)pl->cfg.instance) % ncpu;
		ADD("--lcores=0@%ld,1@%ld", (w + 1) % ncpu, w);
	} else if ((long)workers + 1 <= ncpu)
		ADD("-l0-%u", workers);
	else
		ADD("--lcores=(0-%u)@(0-%ld)", workers, ncpu - 1);
	if (!df_part_uses_pci(&pl->cfg))
		ADD("--no-pci"); /* the NIC to a peer instance: probed */
	ADD("--log-level=warning");
	ADD("--file-prefix=dfemu-%d", (int)getpid());
	if (a->pdump) {
		/* dpdk-dumpcap is a secondary process: shared config and
		 * hugepage files it can map */
		if (df_hugepages_free() < need) {
			fprintf(stderr,
				"dfemu: --pdump needs %llu MB of free "
				"hugepages in a mounted hugetlbfs (have %llu "
				"MB): dpdk-dumpcap attaches as a secondary "
				"process (tools/setup.sh reserves them)\n",
				(unsigned long long)(need >> 20),
				(unsigned long long)(df_hugepages_free() >>
						     20));
			return -2;
		}
	} else if (df_hugepages_free() >= need) {
		ADD("--in-memory");
	} else {
		/* DPDK 22.11: --no-huge defaults to 64 MB, and
		 * cannot be combined with --in-memory. */
		ADD("--no-huge");
		ADD("-m%llu", (unsigned long long)(need >> 20) + 64);
		ADD("--no-shconf");
	}
#undef ADD
	a->eal = malloc(n * sizeof(char *));
	if (a->eal == NULL)
		return -1;
	eal_kept = a->eal;
	memcpy(a->eal, args, n * sizeof(char *));
	a->neal = n;
	return 0;
}

/* One --vdev per terminal bound to a DPDK port ([terminals]). */
static int add_vdevs(struct app_args *a, const struct df_config *c,
		     uint32_t nterms)
{
	char vdev[256];
	char **argv;

	if (c->nbind == 0 && c->ninst <= 1)
		return 0;
	argv = malloc((a->neal + nterms + DF_MAX_INST) * sizeof(char *));
	if (argv == NULL)
		return -1;
	memcpy(argv, a->eal, a->neal * sizeof(char *));
	if (a->eal == eal_kept)
		free(eal_kept); /* default_eal's array: the strings stay */
	eal_kept = argv;
	/* a partitioned run: the ports to the other instances */
	for (uint32_t j = 0; c->ninst > 1 && j < c->ninst; j++) {
		if (j == c->instance)
			continue;
		/* a NIC: allowed (-a), with its devargs; a vdev: created */
		if (asprintf(&argv[a->neal],
			     df_part_pci(c->peer_vdev[c->instance][j], NULL, 0)
				     ? "-a%s"
				     : "--vdev=%s",
			     c->peer_vdev[c->instance][j]) < 0)
			return -1;
		peer_kept[j] = argv[a->neal];
		a->neal++;
	}
	for (uint32_t t = 0; t < nterms; t++) {
		/* terminals of another instance: that one binds them */
		if (df_term_vdev(c, t, vdev, sizeof(vdev)) == NULL ||
		    !df_part_local(c, t / c->p))
			continue;
		if (asprintf(&argv[a->neal], "--vdev=%s", vdev) < 0)
			return -1;
		if (t < RTE_DIM(vdev_kept))
			vdev_kept[t] = argv[a->neal];
		a->neal++;
	}
	a->eal = argv;
	return 0;
}

/* The address plan as JSON, one object per terminal. */
static void print_addresses(const struct df_config *c, FILE *f)
{
	uint32_t per_group = c->p * c->a, nt = per_group * c->g;
	char vdev[256];

	fprintf(f, "[");
	for (uint32_t t = 0; t < nt; t++) {
		uint8_t m[6];
		uint32_t ip = df_term_ip(c, t);
		const char *port = df_term_vdev(c, t, vdev, sizeof(vdev));

		df_term_mac(c, t, m);
		fprintf(f,
			"%s\n  {\"terminal\": %u, \"router\": %u, \"group\": "
			"%u, \"mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\", "
			"\"ip\": \"%u.%u.%u.%u\", \"port\": ",
			t ? "," : "", t, t / c->p, t / per_group, m[0], m[1],
			m[2], m[3], m[4], m[5], ip >> 24, ip >> 16 & 0xff,
			ip >> 8 & 0xff, ip & 0xff);
		df_json_str(f, port ? port : "builtin");
		fprintf(f, "}");
	}
	fprintf(f, "\n]\n");
}

/* Every key's value as JSON, one object per section, in the key table's
 * order (config.h; a section's keys are together there). */
static void print_config(const struct df_config *c, FILE *f)
{
	const char *sec, *name, *last = NULL;
	char v[1100];
	int k;

	fprintf(f, "{");
	for (size_t i = 0;
	     (k = df_config_value(c, i, &sec, &name, v, sizeof(v))) >= 0; i++) {
		if (last == NULL || strcmp(last, sec))
			fprintf(f, "%s\n  \"%s\": {", last ? "}," : "", sec);
		else
			fprintf(f, ", ");
		fprintf(f, "\"%s\": ", name);
		if (k == 1)
			fprintf(f, "%s", v);
		else if (k == 2)
			fprintf(f, "null");
		else
			df_json_str(f, v);
		last = sec;
	}
	fprintf(f, "%s\n}\n", last ? "}" : "");
}

/* At start, when terminals have DPDK ports: who is where, so peers can be
 * pointed at the right addresses (all of them: --print-addresses). */
static void print_bound(const struct df_config *c, FILE *f)
{
	uint32_t nt = c->p * c->a * c->g, shown = 0;
	char vdev[256];

	for (uint32_t t = 0; t < nt; t++) {
		uint8_t m[6];
		uint32_t ip = df_term_ip(c, t);
		const char *port = df_term_vdev(c, t, vdev, sizeof(vdev));

		if (port == NULL)
			continue;
		df_term_mac(c, t, m);
		fprintf(f,
			"dfemu: t%-4u router %-3u group %-2u "
			"%02x:%02x:%02x:%02x:%02x:%02x  %u.%u.%u.%u  %s\n",
			t, t / c->p, t / (c->p * c->a), m[0], m[1], m[2], m[3],
			m[4], m[5], ip >> 24, ip >> 16 & 0xff, ip >> 8 & 0xff,
			ip & 0xff, port);
		shown++;
	}
	if (shown)
		fprintf(f,
			"dfemu: %u terminal(s) on DPDK ports above, %u "
			"built-in (dfemu --print-addresses lists all)\n",
			shown, nt - shown);
}

/* SIGINT/SIGTERM: counted; the emulation reads the count (emu.h). */
static volatile int stop_signals;

static void count_signal(int sig)
{
	(void)sig;
	stop_signals++;
}

static void on_signals(void)
{
	struct sigaction sa = {.sa_handler = count_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* /dfemu/ telemetry commands; a run goes on without them. */
static void register_telemetry(void)
{
	int rc = df_telemetry_register();

	if (rc)
		fprintf(stderr,
			"dfemu: warning: /dfemu/ telemetry commands not "
			"registered (%s); the run goes on without them\n",
			strerror(-rc));
}

static struct app_args app; /* global: atexit frees what it owns */

static void free_owned(void)
{
	for (int i = 0; i < app.nowned; i++)
		free(app.owned[i]);
	app.nowned = 0;
}

/* Where EAL's arguments are in argv (a->split: after --eal, or before
 * --, DPDK style), and the application's parsed. Returns 0 or -1. */
static int parse_args(int argc, char **argv, struct app_args *a)
{
	char **app_argv;
	int app_argc, rc;

	a->split = -1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--eal")) {
			a->split = i;
			break;
		}
	if (a->split < 0)
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], "--")) {
				a->split = i;
				a->dpdk_style = 1;
				break;
			}
	/* application arguments, with argv[0] in front for getopt */
	app_argv = calloc(argc + 1, sizeof(char *));
	app_argv[0] = argv[0];
	app_argc = 1;
	if (a->split < 0)
		for (int i = 1; i < argc; i++)
			app_argv[app_argc++] = argv[i];
	else if (a->dpdk_style)
		for (int i = a->split + 1; i < argc; i++)
			app_argv[app_argc++] = argv[i];
	else
		for (int i = 1; i < a->split; i++)
			app_argv[app_argc++] = argv[i];
	rc = parse_app(app_argc, app_argv, a);
	free(app_argv); /* the options point into argv itself */
	return rc;
}

/* The plan, for the worker lcores there will be: [run] workers, else
 * one per CPU but the main lcore's, or with EAL arguments given as many
 * as EAL may have (placed again once it is up: replan). */
static int build_plan(struct df_plan *pl, const struct df_config *cfg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nworkers;
	char err[2048];

	nworkers = cfg->workers ? (int)cfg->workers : (ncpu > 1 ? ncpu - 1 : 1);
	if (app.split >= 0) /* EAL decides; check against it after init */
		nworkers = cfg->workers ? (int)cfg->workers : 128;
	if (df_plan_build(pl, cfg, nworkers, err, sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		return -1;
	}
	if (df_emulate_check_pool(pl, err, sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		df_plan_free(pl);
		return -1;
	}
	return 0;
}

/* --check: the plan's summary and the memory it needs. */
static void print_check(const struct df_plan *pl, const struct df_config *cfg)
{
	df_plan_summary(pl, stdout);
	printf("  memory       %llu MB: %llu MB of dataplane state, the rest "
	       "mbufs (hugepages free: %llu MB; else --no-huge -m)\n",
	       (unsigned long long)(df_emulate_mem_bytes(pl) >> 20),
	       (unsigned long long)(df_emulate_state_bytes(pl) >> 20),
	       (unsigned long long)(df_hugepages_free() >> 20));
	df_report_time_scale(stdout, cfg, cfg->time_scale);
	/* which verdict the run gets (docs/realtime.md, "The lag and the
	 * verdict") */
	printf("  pace         %s, quantum %g ns; %s\n",
	       df_pace_name(cfg->pace),
	       (double)df_config_quantum(cfg) / DF_TICKS_PER_NS,
	       cfg->nbind || cfg->ninst > 1
		       ? "needs real time (ports or instances): exits 5 when "
			 "the lag p99 exceeds run.lateness_tolerance_ns"
		       : "no ports: exact at any lag");
}

/* EAL's arguments: the ones given (after --eal, or before --), or
 * dfemu's own (default_eal); then the --vdevs of ports. Returns 0, or
 * the exit status. */
static int eal_args(struct df_plan *pl, const struct df_config *cfg, int argc,
		    char **argv)
{
	/* as long as the process: EAL may keep pointers into them */
	static char *eal_argv[MAX_EAL_ARGS + 2];
	static char store[1024];
	int rc;

	if (app.split >= 0) {
		int from = app.dpdk_style ? 1 : app.split + 1;
		int to = app.dpdk_style ? app.split : argc;
		app.neal = 0;
		eal_argv[app.neal++] = argv[0];
		for (int i = from; i < to && app.neal < MAX_EAL_ARGS; i++)
			eal_argv[app.neal++] = argv[i];
		app.eal = eal_argv;
	} else if ((rc = default_eal(&app, pl, &argv[0], store,
				     sizeof(store))) != 0) {
		if (rc == -1)
			fprintf(stderr, "dfemu: out of memory\n");
		df_plan_free(pl);
		return 3;
	}
	if (add_vdevs(&app, cfg, pl->topo.nterms)) {
		fprintf(stderr, "dfemu: out of memory\n");
		return 3;
	}
	return 0;
}

/* EAL up with a worker lcore at least, and --pdump's server. Returns 0,
 * or the exit status. */
static int start_eal(struct df_plan *pl, const struct df_config *cfg)
{
	int rc;

	if (!app.quiet) {
		print_bound(cfg, stderr);
		fprintf(stderr, "dfemu: EAL");
		for (int i = 1; i < app.neal; i++)
			fprintf(stderr, " %s", app.eal[i]);
		fprintf(stderr, "\n");
	}
	rc = rte_eal_init(app.neal, app.eal);
	if (rc < 0) {
		fprintf(stderr, "dfemu: EAL init failed: %s (EAL arguments:",
			rte_strerror(rte_errno));
		for (int i = 1; i < app.neal; i++)
			fprintf(stderr, " %s", app.eal[i]);
		fprintf(stderr, ")\n");
		df_plan_free(pl);
		return 3;
	}
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "dfemu: EAL gave no worker lcore; give it at "
				"least two lcores (e.g. -l 0-1)\n");
		df_plan_free(pl);
		df_eal_cleanup();
		return 3;
	}
	if (app.pdump) {
		rc = rte_pdump_init();
		if (rc)
			fprintf(stderr,
				"dfemu: warning: rte_pdump_init failed (%s): "
				"dpdk-dumpcap cannot attach (it needs EAL on "
				"hugepages without --in-memory/--no-shconf)\n",
				rte_strerror(rte_errno));
		else if (!app.quiet)
			fprintf(stderr,
				"dfemu: dpdk-dumpcap --file-prefix=%s -i "
				"<port> -w FILE captures a terminal port "
				"(-D lists them)\n",
				df_eal_file_prefix());
	}
	return 0;
}

/* With the EAL arguments given and [run] workers = 0: the plan placed
 * again on the worker lcores EAL actually has. Returns 0, or the exit
 * status. */
static int replan(struct df_plan *pl, const struct df_config *cfg)
{
	char err[2048];

	if (app.split < 0 || cfg->workers != 0)
		return 0;
	df_plan_free(pl);
	if (df_plan_build(pl, cfg, rte_lcore_count() - 1, err, sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		df_eal_cleanup();
		return 2;
	}
	return 0;
}

/* The emulation's options: status, TSC rate, signals, --stats-csv (its
 * header written). Returns 0, or the exit status. */
static int emu_opts(struct df_emu_opts *eo, struct df_plan *pl,
		    const struct df_config *cfg)
{
	eo->quiet = app.quiet;
	eo->status = stderr;
	eo->tsc_hz = df_tsc_calibrate(cfg->tsc_calibrate_ms);
	eo->stop = &stop_signals;
	if (app.stats_csv) {
		eo->csv = fopen(app.stats_csv, "w");
		if (eo->csv == NULL) {
			fprintf(stderr, "dfemu: --stats-csv %s: %s\n",
				app.stats_csv, strerror(errno));
			df_plan_free(pl);
			df_eal_cleanup();
			return 2;
		}
		df_status_csv_header(eo->csv);
	}
	return 0;
}

/* A completed run's exit status (usage's "Exit status"). */
static int exit_status(const struct df_report *rep)
{
	int rc = rep->drained && rep->fully_drained && rep->credits_conserved &&
				 rep->exactly_once && !rep->c.corrupt &&
				 !rep->c.enq_fail && !rep->part.lost_peer[0]
			 ? 0
			 : 1;

	/* the instances left accounted for everything, without one that
	 * was lost */
	if (rc == 0 && rep->part.nlost)
		rc = 4;
	/* accounted for, but partly the host's numbers */
	if (rc == 0 && !rep->lateness_ok)
		rc = 5;
	return rc;
}

/* The run (after the time scale's trials, when auto), its report and
 * JSON. Returns the exit status. */
static int run(struct df_plan *pl, const struct df_emu_opts *eo,
	       struct df_report *rep)
{
	char err[2048];
	int rc;

	if (pl->cfg.time_scale == 0 &&
	    df_time_scale_auto(pl, eo, app.quiet ? NULL : stderr, err,
			       sizeof(err))) {
		fprintf(stderr, "dfemu: time scale auto: %s\n", err);
		return 3;
	}
	if (df_emulate(pl, eo, rep, err, sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		return 3;
	}
	df_report_print(pl, rep, stdout);
	rc = exit_status(rep);
	if (app.json && df_report_json(pl, rep, app.json, err, sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		rc = 3;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct df_config cfg;
	struct df_plan pl;
	struct df_report rep = {0};
	struct df_emu_opts eo = {0};
	char err[2048];
	int rc;

	atexit(free_owned);
	if (parse_args(argc, argv, &app))
		return 2;
	if (app.help)
		return 0;
	df_config_defaults(&cfg);
	if (df_config_load(&cfg, app.config, app.sets, app.nsets, err,
			   sizeof(err))) {
		fprintf(stderr, "dfemu: %s\n", err);
		return 2;
	}
	if (app.print_addresses) {
		print_addresses(&cfg, stdout);
		return 0;
	}
	if (app.print_config) {
		print_config(&cfg, stdout);
		return 0;
	}
	if (build_plan(&pl, &cfg))
		return 2;
	if (app.check) {
		print_check(&pl, &cfg);
		df_plan_free(&pl);
		return 0;
	}
	if ((rc = eal_args(&pl, &cfg, argc, argv)) ||
	    (rc = start_eal(&pl, &cfg)) || (rc = replan(&pl, &cfg)))
		return rc;
	register_telemetry();
	if ((rc = emu_opts(&eo, &pl, &cfg)))
		return rc;
	on_signals();
	rc = run(&pl, &eo, &rep);
	if (eo.csv)
		fclose(eo.csv);
	if (app.pdump)
		rte_pdump_uninit();
	df_report_free(&rep);
	df_plan_free(&pl);
	df_eal_cleanup();
	return rc;
}
