/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_INSTANCES_H
#define EMU_INSTANCES_H

/*
 * A partitioned run's protocol between instances, on the main lcore
 * (docs/instances.md): the start-up handshake over each peer
 * port (plans compared, one-way port latency measured), the counters
 * every instance sends every few milliseconds and the whole network's
 * accounting from them, and the end: each instance that has seen the
 * whole network drained sends what it delivered of its peers' packets
 * (for their exactly-once checks) and DONE; all stop once all are done.
 */
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "changes.h"
#include "emu.h"
#include "stats.h"
#include "worker.h"

struct emu_inst;

/* The ports to the peers, the bridge and its link lists (run: its pool
 * and table versions). */
struct emu_inst *emu_inst_setup(const struct df_plan *pl, struct dp_link *links,
				struct dp_run *run, double hz, char *err,
				size_t errlen);
void emu_inst_free(struct emu_inst *x);
struct dp_bridge *emu_inst_bridge(struct emu_inst *x);

/* Wait until every peer answers with the same plan (at most
 * [partition] wait_ms). Returns 0, or -1 with the reason in err. */
int emu_inst_handshake(struct emu_inst *x, volatile const int *stop,
		       FILE *status, char *err, size_t errlen);

/* This instance's counters now; generation stopped here for good. */
struct emu_inst_local {
	const struct dp_stats *s;
	int gen_stopped;
	uint32_t settled;  /* table changes made here that have settled */
	uint32_t prepared; /* the last table version prepared here */
};

/* Control frames in, counters out (every 5 ms). A peer silent for
 * [partition] peer_timeout_ms, or that a peer takes as lost, is taken as
 * lost: *newly_lost gets its bit (once), and the caller takes its links
 * down; the network is then the instances left. Returns -1 when a peer
 * took this instance as lost (rep->part.lost_peer says which). */
int emu_inst_poll(struct emu_inst *x, const struct emu_inst_local *l,
		  uint64_t now, struct df_report *rep, uint32_t *newly_lost);

/*
 * Run-time changes in a partitioned run (emu/changes.c, dataplane/encap.h
 * struct dp_encap_change): instance 0 makes them ([faults] events,
 * telemetry commands) and announces each: a table change as PREPARE
 * (version v), a load change as LOAD. The others prepare the same tables
 * and say so in their STATS; once all have, instance 0 commits (its
 * bridge: worker.h tb_commit). A table change waits until the one before
 * has settled in every instance (STATS again).
 */
void emu_inst_announce(struct emu_inst *x, const struct emu_change *ch);
/* The next change announced and not taken yet, into *ch: 1, or 0 if
 * none; emu_inst_change_taken() takes it. */
int emu_inst_next_change(const struct emu_inst *x, struct emu_change *ch);
void emu_inst_change_taken(struct emu_inst *x);
/* Has every peer left seen n table changes settle? */
int emu_inst_settled(const struct emu_inst *x, uint32_t n);
/* Has every peer left prepared table version v? */
int emu_inst_prepared(const struct emu_inst *x, uint32_t v);

/* How peer j was found lost, or NULL if it was not. */
const char *emu_inst_lost(const struct emu_inst *x, uint32_t j);

/* Every measured packet of the network is in (delivered or lost)? */
int emu_inst_measured_done(const struct emu_inst *x,
			   const struct emu_inst_local *l);

/* Nothing in flight anywhere and generation stopped everywhere? */
int emu_inst_drained(const struct emu_inst *x, const struct emu_inst_local *l);

/* Once drained: SUMMARY (the peers' packets delivered here, from the
 * workers' per-source counts) and DONE to every peer. */
void emu_inst_finish(struct emu_inst *x, struct dp_lcore *const *lc,
		     uint32_t nworkers);

/* Every peer sent DONE, and every frame of ours has left. */
int emu_inst_all_done(struct emu_inst *x, uint64_t now);

/* Terminal t's packets settled elsewhere: their count and set hash
 * (exactly-once check, dataplane/once.h), added to *cnt and *hash. */
void emu_inst_remote_rx(const struct emu_inst *x, uint32_t t, uint64_t *cnt,
			uint64_t *hash);

/* The report's partition part. */
void emu_inst_report(const struct emu_inst *x, const struct emu_inst_local *l,
		     struct df_report *rep);

#endif
