/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_EMU_H
#define DF_EMU_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "faults.h"
#include "place.h"
#include "plan.h"
#include "ring.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"
#include "stats.h"

/* Latency of the measured packets of one class, from a histogram. */
struct df_latency {
	uint64_t n;
	double avg_ns;
	uint64_t min_ns, p50_ns, p99_ns, max_ns;
};

/* UGAL-L_CR, one router output ([DF] §4.3.2): its credit round trips and
 * the delay its t_d put on the credits of packets that left through it. */
struct df_output_report {
	uint32_t router, port;
	uint8_t cls;
	uint64_t crt_samples;
	double crt_avg_ns, crt0_ns, td_last_ns;
	uint64_t delayed;
	double delay_avg_ns;
};

/* One change made during the run ([faults] events, telemetry). */
struct df_fault_log {
	double t_s; /* since the start of the run */
	int ok;	    /* 0: refused, nothing changed */
	char what[48];
	char msg[320];
};

struct df_report {
	double offered_load, accepted_load;
	struct df_fault_log *faults; /* malloc'd */
	uint32_t nfaults;
	/* every counter of dataplane/stats.h's list, summed over the
	 * workers (of this instance, when partitioned) */
	struct dp_counters c;
	/* injected, not delivered nor lost (the network's, when
	 * partitioned) */
	uint64_t in_flight;
	/* the determinism digest (dataplane/digest.h): the deliveries of this
	 * instance's workers, then the final counters (c) */
	uint64_t digest;
	/* its first part alone, the deliveries' sum: the instances' add up
	 * to the whole network's (docs/report.md, "The digest") */
	uint64_t digest_deliveries;
	struct df_latency lat;	       /* every measured packet */
	struct df_latency lat_path[2]; /* [0] minimal, [1] non-minimal paths */
	struct dp_hist *lat_hist[2];   /* their histograms (TSC), malloc'd */
	/* frames from DPDK ports, ingress to egress, by terminal pair */
	struct df_latency lat_ext[DP_PAIR_N];
	uint64_t late_p50_ns, late_p99_ns, late_max_ns;
	int late_within; /* the lag p99 within the tolerance, a fact */
	int lateness_ok; /* the verdict: late_within, or no ports */
	int credits_conserved;
	char credit_issue[256];
	int exactly_once;
	/* with an instance lost (part.nlost): what it delivered is unknown,
	 * so the check is "at most once" by count (exactly_once holds its
	 * result), and the credits of the links to it are not checked */
	uint32_t credit_links_unchecked;
	int drained;	 /* every measured packet arrived before the timeout */
	char stuck[200]; /* the watchdog's finding, "" if none */
	int fully_drained; /* nothing left in flight at the end */
	int interrupted;   /* 1: measurement cut short, 2: drain cut short */
	double wall_s, measure_s, tsc_hz;
	double time_scale; /* [run] time_scale of the run */
	/* emulated time run, emulated seconds per wall second, the step of
	 * the clocks (docs/realtime.md, "Pace") */
	double emulated_s, pace, quantum_ns;
	/* the run has DPDK ports or instances: its lag must stay within
	 * [run] lateness_tolerance_ns, else exit 5 */
	int needs_real_time;
	double batch_time_ns;	 /* batch modes: start to the last delivery */
	uint64_t rx_min, rx_max; /* packets received per terminal, extremes */
	/* terminals on DPDK ports: frames in, out, ARP answered, refusals */
	uint64_t port_rx, port_tx, arp_replies, port_stalls;
	uint32_t stall_term; /* the terminal whose port refused most */
	uint64_t stall_max;
	uint32_t nworkers;
	uint64_t sweeps, idle_sleeps;
	double busy_s; /* worker time in sweeps that found work, summed */
	uint64_t link_tx_pkts[DF_LINK_NCLASS];
	/* packets sent on router links whose two ends run on two workers
	 * (docs/performance.md, "Several workers") */
	uint64_t cross_worker_pkts;
	/* the routers' counters summed, all packets (dataplane/stats.h's
	 * list: forwarded, the path decisions, PAR's and OFAR's) */
	DP_ROUTER_COUNTERS(DP_ROUTER_FIELD)
	uint64_t cr_delayed;	/* UGAL-L_CR: credits returned late */
	double cr_delay_avg_ns; /* their average extra delay */
	uint32_t nrouters;
	/* the path decisions per router, [nrouters], malloc'd */
	uint64_t *router_min, *router_nonmin;
	/* fairness ([OC] Fig. 9): measured packets injected per router */
	uint64_t *router_injected;
	/* per terminal, when a terminal is bound to a DPDK port (NULL
	 * otherwise; malloc'd): its port traffic (dataplane/stats.h), its
	 * port's offered load (measured bytes injected / what its link
	 * carries in the window), and the latency of its port's measured
	 * frames, ingress to delivery wherever they went */
	struct df_term_ports {
		struct dp_term_ports c;
		double load;
		/* from its port's first frame to its last, emulated s, and
		 * the load it offered over that span */
		double span_s, span_load;
		struct df_latency lat;
	} * term_ports;
	uint32_t nterms;
	/* capture ([capture]): interfaces, records written, handed over,
	 * skipped (ring full or no record free), file bytes, write errno */
	int cap_on;
	uint32_t cap_ifaces;
	uint64_t cap_written, cap_taken, cap_skipped, cap_bytes;
	uint64_t cap_over_limit; /* handed over after the file reached limit_mb
				  */
	uint64_t cap_write_failed; /* handed over after a write failed */
	int cap_error;
	char cap_file[256];
	/* each router-to-router link sent on here: packets in the window and
	 * the fraction of it spent sending (< 0: unlimited bandwidth; [DF]
	 * Fig. 9; emu/linkuse.h), malloc'd */
	struct df_link_use {
		uint8_t cls;
		uint32_t from, from_port, to, to_port;
		uint64_t packets;
		double busy;
	} * links;
	uint32_t nlinks;
	struct df_output_report *outputs; /* CR: network outputs, malloc'd */
	uint32_t noutputs;
	/* [partition]: this instance and what crossed to each peer; the
	 * whole network's accounting (emu/peer_accounting.c) */
	struct df_part_report {
		uint32_t ninst, instance, lo, hi; /* its groups lo..hi */
		uint32_t nterms;		  /* terminals here */
		double global_lat_ns; /* the emulated one, for the warning */
		struct df_peer_report {
			int used;
			char port[64];
			double lat_ns; /* one-way port latency, measured */
			uint64_t sent, recv, csent, crecv;
			uint64_t tx_frames, rx_frames, tx_stalls;
			/* taken as lost: when (s since the start), why, its
			 * links that went down here; frames for it freed,
			 * from it ignored, control frames not sent */
			int lost;
			double lost_at_s;
			char lost_why[128];
			uint32_t links_down;
			uint64_t discarded, ignored, ctl_dropped;
		} peer[DF_MAX_INST];
		uint32_t nlost; /* instances taken as lost */
		/* with a lost instance, the survivors' accounting: packets
		 * handed to it / taken from it (sums over the survivors) */
		uint64_t to_lost, from_lost;
		uint64_t bad_frames, unknown_link, enq_fail;
		/* frames due by the step that took them in: the instances
		 * out of step (bridge.c, due_here), 0 unless a bug */
		uint64_t late;
		/* the network: every instance's counters summed */
		uint64_t injected, delivered, lost, in_flight;
		int exchanged; /* every peer's final counters were heard */
		char lost_peer[160]; /* "" or which peer fell silent */
	} part;
};

struct df_emu_opts {
	int quiet;     /* no live status line */
	FILE *status;  /* where the live status goes (stderr) */
	FILE *csv;     /* --stats-csv: the same, one row a second, or NULL */
	double tsc_hz; /* calibrated TSC rate */
	/* signals received (SIGINT/SIGTERM), counted by the caller's
	 * handler: 1 ends the measurement now and drains; 2 stops at once */
	volatile const int *stop;
};

/* A run's phases (emu/run.c): warm-up and measurement with generation
 * on; then generation on until every measured packet is in (finish);
 * then a drain of everything in flight and of every credit message. The
 * last four: how a run that did not drain ended. */
enum df_run_phase {
	DF_RUN_WARMUP = 0,
	DF_RUN_BATCH,
	DF_RUN_MEASURE,
	DF_RUN_FINISH,
	DF_RUN_DRAIN,
	DF_RUN_PEER_LOST,
	DF_RUN_STOPPED,
	DF_RUN_TIMEOUT,
	DF_RUN_STUCK,
	DF_RUN_N,
};
/* Its name on the status line, in --stats-csv and in telemetry. */
const char *df_run_phase_name(enum df_run_phase p);

/* --stats-csv's header line (its rows: one a second during a run). */
void df_status_csv_header(FILE *f);

/* Run the emulation on the EAL's worker lcores (EAL must be up). */
int df_emulate(const struct df_plan *pl, const struct df_emu_opts *opt,
	       struct df_report *rep, char *err, size_t errlen);

/* [run] time_scale = auto: set pl->cfg.time_scale to the smallest time
 * dilation that keeps real time, from short trial runs (emu/timescale.c);
 * each trial's lag goes to log (NULL: quiet). -1 on error (err). */
int df_time_scale_auto(struct df_plan *pl, const struct df_emu_opts *o,
		       FILE *log, char *err, size_t errlen);

/* s as a JSON string, quotes and escapes included. */
void df_json_str(FILE *f, const char *s);

/* Free what a report allocated. */
void df_report_free(struct df_report *r);

void df_report_print(const struct df_plan *pl, const struct df_report *r,
		     FILE *f);
/* The report's and --check's "time scale" line: n = [run] time_scale of
 * the run (0: auto, not chosen yet), and what it means for ports. */
void df_report_time_scale(FILE *f, const struct df_config *c, double n);
int df_report_json(const struct df_plan *pl, const struct df_report *r,
		   const char *path, char *err, size_t errlen);

/* TSC rate measured against CLOCK_MONOTONIC_RAW (DPDK's own value is rounded
 * to 10 MHz: 0.19 % off on our VMs). */
double df_tsc_calibrate(uint32_t ms);

/* EAL's --file-prefix (the last part of its runtime directory). */
const char *df_eal_file_prefix(void);

/* rte_eal_cleanup() and removal of EAL's runtime directory. */
void df_eal_cleanup(void);

/* Bytes of free hugepages in a mounted hugetlbfs (0: none usable). */
uint64_t df_hugepages_free(void);

/* Memory the dataplane of a plan needs (mempool, rings, queues). */
uint64_t df_emulate_mem_bytes(const struct df_plan *pl);
/* Of which the dataplane state (links, queues, routers, terminals). */
uint64_t df_emulate_state_bytes(const struct df_plan *pl);
/* [run] mbufs against what the plan's ports hold: 0, or -1 with err. */
int df_emulate_check_pool(const struct df_plan *pl, char *err, size_t len);

/* A DPDK port (a terminal's, or one to another instance) configured with
 * one rx and one tx queue on pool, started, and promiscuous where its PMD
 * can be. Returns 0 or a negative errno. */
struct rte_mempool;
int df_port_start(uint16_t port, struct rte_mempool *pool);

#endif
