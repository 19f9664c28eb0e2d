/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_INT_H
#define EMU_INT_H

/*
 * Inside df_emulate() (emu/emulate.c): one run's state, shared by the
 * files that build the dataplane from the plan (build.c, sizing.c,
 * traffic.c), run it from the main lcore (run.c, status.c, watch.c),
 * account for it (account.c) and free it (build.c).
 */
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "emu.h"
#include "linkuse.h"
#include "ofar_run.h"
#include "worker.h"

struct df_capture;
struct emu_inst;

struct emu {
	const struct df_plan *pl;
	/* TSC ticks per wall second, and emulated ticks per emulated
	 * second (DF_TICK_HZ, whatever the host: docs/design.md, "Time,
	 * links and credits") */
	double hz, ehz;
	unsigned id; /* the run's number: unique ring/pool names across runs */
	struct dp_run run;
	struct dp_ofar_run ofar; /* run.eng_run under OFAR */
	struct dp_lcore **lc;
	unsigned *lcore_id;
	struct dp_router **routers;
	struct dp_term **terms;
	struct dp_link *links; /* router ports, then T->R, then R->T */
	uint32_t nlinks;
	struct emu_arena mem; /* links' FIFOs, VC queues, routers, terminals */
	uint32_t *perm;
	uint16_t *port_idx; /* run.port_idx: [terminal] -> bound index */
	uint32_t nports;    /* terminals bound to a port, all instances */
	uint8_t (*macs)[6];
	uint32_t *ips;
	struct df_capture *cap; /* NULL: no [capture] */
	struct emu_inst *inst;	/* [partition]: the protocol, NULL if not */
	char *err;
	size_t errlen;
};

#define NOTES 1024 /* notes a queue holds (notify.h: a full one loses none) */

/* Injected, not yet delivered nor lost on a failed link. */
static inline uint64_t in_flight(const struct dp_stats *s)
{
	return s->injected - s->delivered - dp_stats_lost(s);
}

static inline uint64_t ns_to_tsc(double hz, uint64_t ns)
{
	return (uint64_t)((double)ns * hz / 1e9 + 0.5);
}

static inline void sum_stats(const struct emu *e, struct dp_stats *s)
{
	dp_stats_sum(s, e->lc, e->pl->nworkers);
}

/* build.c: the run's parameters from the config (before the rest). */
void emu_init_run(struct emu *e);
/* build.c: lcores, links, routers and terminals, carved from the arena.
 * 0, or -1 with e->err set. */
int emu_build(struct emu *e);
/* build.c: [capture]'s taps on the links. */
int emu_build_capture(struct emu *e);
/* build.c: this instance's routers and terminals on their workers, each
 * worker's wheel and notes. */
int emu_build_wakes(struct emu *e);
/* build.c: what is still in the network, and every object. */
void emu_teardown(struct emu *e);

/* sizing.c: entries of the VC and credit logs of a link of class c. */
uint32_t emu_log_cap(const struct df_plan *pl, int c);
uint32_t emu_link_vcs(const struct df_plan *pl, int c);
/* sizing.c: the run's mbuf pool, as large as the plan needs. */
int emu_build_pool(struct emu *e);

/* traffic.c: the permutation (that pattern only), MACs and IPv4s; -1 when
 * out of memory. */
int emu_build_traffic(struct emu *e);
/* traffic.c: terminals bound to DPDK ports, their ports started. */
int emu_build_ports(struct emu *e);

/* run.c: the run, from launching the workers to their end. */
void emu_run(struct emu *e, const struct df_emu_opts *o, struct df_report *rep);
/* Emulated time as the main lcore sees it: the slowest worker's clock. */
uint64_t emu_now(const struct emu *e);

/* status.c: the live status line and --stats-csv row for now. */
void emu_status_line(const struct emu *e, const struct df_emu_opts *o,
		     uint64_t t0, uint64_t now, enum df_run_phase phase,
		     const struct dp_stats *s, struct dp_stats *prev,
		     uint64_t *prev_t);

/*
 * watch.c: stall watchdog: a non-empty input VC whose head index has not
 * moved for watchdog_ms is stuck (a deadlock, or a starvation as bad).
 * The main lcore reads the workers' queue indices without locks: a torn
 * read can only delay the verdict by one check.
 */
struct watch {
	uint32_t *head;	 /* [router][port][vc]: head index last seen */
	uint64_t *since; /* TSC it was first seen there, 0 = moving/empty */
	uint64_t next;	 /* next check */
};

void emu_watch_init(struct watch *w, const struct emu *e);
void emu_watch_free(struct watch *w);
/* 1 when a VC is stuck: rep->stuck says which, dump (if not NULL) gets
 * every stuck VC and what its head packet waits for. */
int emu_watch_check(struct emu *e, struct watch *w, uint64_t now,
		    struct df_report *rep, FILE *dump);

/* account.c: the terminals that offered traffic, the loads' divisor. */
uint32_t emu_load_sources(const struct emu *e, const struct dp_stats *s,
			  int window);
/* account.c: the report's figures and checks, after the run. */
void emu_account(const struct emu *e, struct df_report *rep);

#endif
