/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-bench hops [--algorithm NAME] [--seconds S] [--topology T]
 *                  [--config F] [--set KEY=VALUE]... [--workers N]
 * Router-hop rate on one worker core: the 36-router reference dragonfly
 * (or a 36-router flattened butterfly, the 6-ary 3-flat, or the network
 * of --config and --set),
 * 64-byte packets, links with zero latency and unlimited bandwidth (each
 * hop takes one quantum, 1 ns), every terminal saturated, unpaced, for S
 * seconds of wall time (then a Ctrl-C's drain). In the same process, a bare
 * chain of rte_rings (dequeue burst, touch the mbuf, enqueue) gives the
 * baseline the hop rate is quoted against. The last line is for scripts:
 *   hops_per_sec=N cycles_per_hop=C ring_hops_per_sec=M
 * dfemu-bench capacity: bench/capacity.c; dfemu-bench gaps: bench/gaps.c;
 * dfemu-bench sim: bench/sim.c; dfemu-bench sync: bench/sync.c.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bench.h"
#include "emu.h"

#define CHAIN 8
#define BURST 32

struct chain {
	struct rte_ring *r[CHAIN];
	double seconds;
	uint64_t hops;
	uint64_t cycles;
};

/* Stage i moves a burst from ring i to ring i+1 (the last back to 0),
 * reading and writing each packet's first cache line, as a router does. */
static int chain_main(void *arg)
{
	struct chain *c = arg;
	struct rte_mbuf *b[BURST];
	uint64_t t0 = rte_rdtsc(), end = t0 + c->seconds * rte_get_tsc_hz();
	uint64_t hops = 0, now;

	do {
		for (int i = 0; i < CHAIN; i++) {
			unsigned n = rte_ring_sc_dequeue_burst(
				c->r[i], (void **)b, BURST, NULL);
			for (unsigned k = 0; k < n; k++)
				b[k]->hash.usr++;
			rte_ring_sp_enqueue_burst(c->r[(i + 1) % CHAIN],
						  (void **)b, n, NULL);
			hops += n;
		}
		now = rte_rdtsc();
	} while (now < end);
	c->hops = hops;
	c->cycles = now - t0;
	return 0;
}

static int ring_chain(double seconds, double *rate)
{
	struct chain c = {.seconds = seconds};
	struct rte_mempool *mp = rte_pktmbuf_pool_create(
		"bench_chain", 4095, 256, 0, 256, rte_socket_id());
	struct rte_mbuf *m[1024];
	char name[32];
	unsigned w = rte_get_next_lcore(-1, 1, 0);

	if (mp == NULL)
		return -1;
	for (int i = 0; i < CHAIN; i++) {
		snprintf(name, sizeof(name), "bench_chain%d", i);
		c.r[i] = rte_ring_create(name, 2048, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (c.r[i] == NULL)
			return -1;
	}
	if (rte_pktmbuf_alloc_bulk(mp, m, 1024))
		return -1;
	rte_ring_enqueue_bulk(c.r[0], (void **)m, 1024, NULL);
	rte_eal_remote_launch(chain_main, &c, w);
	rte_eal_wait_lcore(w);
	*rate = c.hops / (c.cycles / (double)rte_get_tsc_hz());
	return 0;
}

static void usage(const char *p)
{
	printf("Usage: %s hops [--algorithm NAME|all] [--seconds S] "
	       "[--topology dragonfly|flatfly]\n"
	       "          [--config FILE] [--set SECTION.KEY=VALUE]...\n"
	       "  Router-hop rate of the 36-router reference dragonfly (or of "
	       "the 36-router\n  6-ary 3-flat flattened butterfly) on one "
	       "worker core (64-byte packets, zero\n  latency, unlimited "
	       "bandwidth, saturated terminals), and a bare rte_ring chain\n"
	       "  for comparison. 'all' runs every algorithm of the topology "
	       "in one process\n  and gives each one's cycles per hop "
	       "relative to MIN.\n"
	       "  --config and --set choose another network (e.g. the "
	       "[DF] 1K: --set\n  topology.p=4 --set topology.a=8 --set "
	       "topology.h=4 --set topology.g=33);\n  the bench's own "
	       "settings above come first, yours after them.\n"
	       "       %s capacity --config FILE [--set ...] [--seconds "
	       "S] [--rounds N]\n"
	       "  The highest link rate at which that network and load keep "
	       "real time, by\n  bisection (bench/capacity.c); with N "
	       "rounds, the median of N bisections\n  and their range (the "
	       "host's gaps move it from one minute to the next).\n"
	       "  Both take --workers N (default 1): N worker lcores, whole "
	       "groups on each\n  (more workers than free CPUs share them, "
	       "as dfemu does).\n"
	       "       %s sim --config FILE [--set ...] [--workers N]\n"
	       "  dfemu as a simulator: the network, traffic and windows of "
	       "FILE run unpaced\n  (run.pace = none, the same results), "
	       "and its emulated seconds, router\n  hops, deliveries and "
	       "steps per wall second (bench/sim.c).\n"
	       "       %s gaps [--seconds S]\n"
	       "  The host's floor under the lag: the time a spinning worker "
	       "lcore loses, and\n  the lateness p99 no emulator gets below "
	       "here, idle and busy 0.1 to 0.9 of the time\n  (bench/gaps.c; "
	       "default 10 s).\n"
	       "       %s sync [--seconds S]\n"
	       "  What keeping two workers in step costs a step, with no "
	       "work: two lcores\n  publishing their clocks by the workers' "
	       "rule, in step and with one idle\n  (bench/sync.c; default "
	       "1 s).\n",
	       p, p, p, p, p);
}

struct hop_rate {
	double hops, cph;
	double cross; /* share of the hops that crossed workers */
	uint32_t nrouters;
	const char *acct; /* "ok", or what the run's checks found */
};

/* The network: --config (NULL: the bench's own) and --set. */
struct net {
	const char *config;
	const char *sets[BENCH_MAX_SETS];
	int nsets;
};

int bench_plan(struct df_plan *pl, const char *config, const char *const *a,
	       int na, const char *const *b, int nb)
{
	const char *all[2 * BENCH_MAX_SETS + 32];
	char err[1024];
	struct df_config cfg;
	int n = 0;

	for (int i = 0; i < na && n < (int)RTE_DIM(all); i++)
		all[n++] = a[i];
	for (int i = 0; i < nb && n < (int)RTE_DIM(all); i++)
		all[n++] = b[i];
	df_config_defaults(&cfg);
	if (df_config_load(&cfg, config, all, n, err, sizeof(err)))
		goto fail;
	cfg.workers = bench_workers; /* --workers, over any --set */
	if (df_plan_build(pl, &cfg, bench_workers, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "dfemu-bench: %s (run from the repository root)\n",
		err);
	return -1;
}

/* The bench's stop: after its seconds of wall time, as a Ctrl-C would
 * (emulated time runs as fast as the host can, so the window is set by
 * the wall clock here). */
static volatile int stop_flag;

static void *stop_after(void *arg)
{
	double s = *(const double *)arg;
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
	stop_flag = 1;
	return NULL;
}

/* One saturated emulation of the network with zero-latency links. */
static int measure(const char *alg, int fb, const struct net *net,
		   double seconds, double hz, struct hop_rate *hr)
{
	char alg_set[64], err[1024];
	struct df_plan pl;
	struct df_report rep;
	struct df_emu_opts eo = {
		.quiet = 1, .status = stderr, .tsc_hz = hz, .stop = &stop_flag};
	pthread_t timer;
	int rc;
	const char *sets[] = {alg_set,
			      "traffic.measure_ms=3600000",
			      "run.pace=none",
			      "traffic.warmup_ms=0",
			      "traffic.packet_bytes=64",
			      "traffic.process=saturate",
			      "traffic.source_queue=1",
			      "links.terminal_latency_ns=0",
			      "links.local_latency_ns=0",
			      "links.global_latency_ns=0",
			      "links.terminal_bandwidth_gbps=0",
			      "links.local_bandwidth_gbps=0",
			      "links.global_bandwidth_gbps=0",
			      "links.terminal_buffer_flits=8",
			      "links.local_buffer_flits=8",
			      "links.global_buffer_flits=8",
			      "run.idle_backoff=off",
			      "topology.k=6",
			      "topology.n=3"};

	snprintf(alg_set, sizeof(alg_set), "routing.algorithm=%s", alg);
	if (bench_plan(&pl,
		       net->config ? net->config
		       : fb	   ? "configs/flatfly.ini"
				   : "configs/reference.ini",
		       sets, (int)RTE_DIM(sets) - (fb ? 0 : 2), net->sets,
		       net->nsets))
		return -1;
	stop_flag = 0;
	if (pthread_create(&timer, NULL, stop_after, &seconds)) {
		fprintf(stderr, "dfemu-bench: cannot start a timer thread\n");
		df_plan_free(&pl);
		return -1;
	}
	rc = df_emulate(&pl, &eo, &rep, err, sizeof(err));
	pthread_join(timer, NULL);
	if (rc) {
		fprintf(stderr, "dfemu-bench: %s\n", err);
		df_plan_free(&pl);
		return -1;
	}
	hr->hops = rep.forwarded / rep.wall_s;
	/* CPU cost: worker cycles in sweeps that did work, per hop. Wall
	 * time would also count waits the algorithm itself causes (UGAL-L_CR
	 * delays credits in emulated time, which throttles a zero-latency
	 * network). */
	hr->cph = rep.busy_s * hz / rep.forwarded;
	hr->cross = (double)rep.cross_worker_pkts / (double)rep.forwarded;
	/* A run cut off at its time limit ends with packets and credits
	 * out, which is not a loss: say which it was. Under valgrind the
	 * main lcore, which stops generation once the measured packets are
	 * in, can be starved by the busy worker for seconds (valgrind runs
	 * one thread at a time) until the drain timeout. */
	hr->acct = rep.credits_conserved && rep.exactly_once ? "ok"
		   : !rep.fully_drained ? "NOT DRAINED (time limit)"
					: "CREDITS LOST OR PACKETS MISSING";
	hr->nrouters = pl.topo.nrouters;
	df_report_free(&rep);
	df_plan_free(&pl);
	return 0;
}

/* Does algorithm a route on the bench's topology? */
static int alg_on(int a, int fb)
{
	return fb ? df_alg_on_flatfly(a) : df_alg_on_dragonfly(a);
}

unsigned bench_workers = 1;

/* EAL on the main lcore and bench_workers workers (floating over the CPUs
 * when there are fewer, as dfemu does), hugepages when there are enough.
 * 1 = hugepages, 0 = --no-huge, -1 = failed. */
static int eal_up(char *argv0)
{
	static char prefix[64], lcores[64];
	int huge = df_hugepages_free() >= (256ULL << 20);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(prefix, sizeof(prefix), "--file-prefix=dfbench-%d",
		 (int)getpid());
	if ((long)bench_workers + 1 <= ncpu)
		snprintf(lcores, sizeof(lcores), "-l0-%u", bench_workers);
	else
		snprintf(lcores, sizeof(lcores), "--lcores=(0-%u)@(0-%ld)",
			 bench_workers, ncpu - 1);
	char *eal_huge[] = {argv0,	lcores,
			    "--no-pci", "--log-level=warning",
			    prefix,	"--in-memory"};
	char *eal_nohuge[] = {
		argv0,	     lcores, "--no-pci", "--log-level=warning", prefix,
		"--no-huge", "-m",   "1024",	 "--no-shconf"};
	if ((huge ? rte_eal_init(6, eal_huge) : rte_eal_init(9, eal_nohuge)) <
	    0) {
		fprintf(stderr, "dfemu-bench: EAL init failed\n");
		return -1;
	}
	return huge;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"algorithm", required_argument, NULL, 'a'},
		{"seconds", required_argument, NULL, 's'},
		{"topology", required_argument, NULL, 't'},
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 'S'},
		{"workers", required_argument, NULL, 'w'},
		{"rounds", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *alg = "min";
	double seconds = 2, ring_rate, hz;
	struct hop_rate hr, min_hr = {0};
	struct net net = {0};
	int huge, c, all, fb = 0, cap, gaps, sim, sync;
	unsigned rounds = 1;

	cap = argc >= 2 && !strcmp(argv[1], "capacity");
	gaps = argc >= 2 && !strcmp(argv[1], "gaps");
	sim = argc >= 2 && !strcmp(argv[1], "sim");
	sync = argc >= 2 && !strcmp(argv[1], "sync");
	if (argc < 2 ||
	    (strcmp(argv[1], "hops") && !cap && !gaps && !sim && !sync)) {
		usage(argv[0]);
		return argc < 2 ? 2 : (strcmp(argv[1], "--help") ? 2 : 0);
	}
	if (cap)
		seconds = 0.5;
	if (gaps)
		seconds = 10;
	if (sync)
		seconds = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "a:s:t:c:S:w:r:h", opts,
				NULL)) != -1) {
		if (c == 'a' && !cap)
			alg = optarg;
		else if (c == 's' && atof(optarg) > 0)
			seconds = atof(optarg);
		else if (c == 't' && !cap &&
			 (!strcmp(optarg, "dragonfly") ||
			  !strcmp(optarg, "flatfly")))
			fb = !strcmp(optarg, "flatfly");
		else if (c == 'c')
			net.config = optarg;
		else if (c == 'S' && net.nsets < BENCH_MAX_SETS)
			net.sets[net.nsets++] = optarg;
		else if (c == 'w' && atoi(optarg) >= 1 && atoi(optarg) <= 64)
			bench_workers = (unsigned)atoi(optarg);
		else if (c == 'r' && cap && atoi(optarg) >= 1 &&
			 atoi(optarg) <= BENCH_MAX_ROUNDS)
			rounds = (unsigned)atoi(optarg);
		else {
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if ((cap || sim) && net.config == NULL) {
		fprintf(stderr, "dfemu-bench: %s needs --config FILE\n",
			argv[1]);
		return 2;
	}
	all = !strcmp(alg, "all");
	int known = all;
	for (int a = 0; a < DF_ALG_COUNT; a++)
		known |= alg_on(a, fb) && !strcmp(alg, df_algorithm_name(a));
	if (!known) {
		fprintf(stderr,
			"dfemu-bench: unknown --algorithm '%s'; allowed: "
			"all",
			alg);
		for (int a = 0; a < DF_ALG_COUNT; a++)
			if (alg_on(a, fb))
				fprintf(stderr, " | %s", df_algorithm_name(a));
		fprintf(stderr, "\n");
		return 2;
	}
	if ((huge = eal_up(argv[0])) < 0)
		return 3;
	hz = df_tsc_calibrate(100);
	if (gaps) {
		c = bench_gaps(seconds, hz);
		df_eal_cleanup();
		return c;
	}
	if (sync) {
		c = bench_sync(seconds, hz);
		df_eal_cleanup();
		return c;
	}
	if (sim) {
		c = bench_sim(net.config, net.sets, net.nsets, hz);
		df_eal_cleanup();
		return c;
	}
	if (cap) {
		c = bench_capacity(net.config, net.sets, net.nsets, seconds,
				   rounds, hz, huge);
		df_eal_cleanup();
		return c;
	}
	printf("memory: %s; %s on %u worker core(s)\n",
	       huge ? "hugepages" : "--no-huge",
	       net.config ? net.config
	       : fb	  ? "36 routers (6-ary 3-flat)"
			  : "36 routers (reference dragonfly)",
	       bench_workers);
	printf("%-12s %14s %16s %10s %s\n", "algorithm", "router hops/s",
	       "busy cycles/hop", "vs MIN", "accounting");
	for (int a = 0; a < DF_ALG_COUNT; a++) {
		const char *name = df_algorithm_name(a);
		if (!alg_on(a, fb))
			continue;
		if (!all && strcmp(name, alg) && a != DF_ALG_MIN)
			continue;
		/* a single algorithm other than MIN: MIN is measured too,
		 * in this same process, for the ratio */
		if (measure(name, fb, &net, seconds, hz, &hr)) {
			df_eal_cleanup();
			return 3;
		}
		if (a == DF_ALG_MIN)
			min_hr = hr;
		printf("%-12s %12.2f M %16.1f %9.2fx %s\n", name, hr.hops / 1e6,
		       hr.cph, hr.cph / min_hr.cph, hr.acct);
	}
	/* the last line is for the requested algorithm (measured last), or
	 * for MIN with "all" */
	if (all || !strcmp(alg, "min"))
		hr = min_hr;
	if (ring_chain(seconds, &ring_rate)) {
		fprintf(stderr, "dfemu-bench: ring chain set-up failed\n");
		return 3;
	}
	printf("ring chain: %.2f M hops/s (%d rings, burst %d); a router hop "
	       "costs %.1f ring hops\n",
	       ring_rate / 1e6, CHAIN, BURST, ring_rate / hr.hops);
	printf("hops_per_sec=%.0f cycles_per_hop=%.1f ring_hops_per_sec=%.0f "
	       "routers=%u workers=%u cross_share=%.4f\n",
	       hr.hops, hr.cph, ring_rate, hr.nrouters, bench_workers,
	       hr.cross);
	df_eal_cleanup();
	return 0;
}
