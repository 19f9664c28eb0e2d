/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_FAULTS_H
#define DF_FAULTS_H

/*
 * Link failures at run time (control plane). A failed link is taken out
 * of the routing tables: every (router, destination) entry whose path
 * crossed it takes the next hop of a shortest path over the links still
 * up, which for a group pair that lost its only global link is a detour
 * through a third group (MIN's fallback to a non-minimal path). Before the
 * dataplane gets the new tables they are checked: every destination still
 * reachable, no loop, and no cycle in the channel-dependency graph of the
 * current tables and the new ones together, including packets that took a
 * hop under the current tables and go on under the new ones. The VC of a
 * hop comes from the run's own VC plan (its phase), so it always exists.
 *
 * Only two versions may have packets in flight at once: the caller
 * refuses the next change until every packet routed under the tables
 * before the last one has moved on (emu/change_apply.c: every input queue's
 * head has passed where its tail was at the change, and one link latency
 * more has passed for the packets that were on the links).
 */
#include <stdint.h>
#include <stddef.h>

#include "config.h"
#include "ring.h"
#include "tree.h"
#include "tables.h"
#include "wiring.h"

struct df_fault_hop;

struct df_faults {
	const struct df_topo *topo;
	const struct df_tables *base; /* the run's tables, no failures */
	enum df_algorithm alg;
	uint8_t *down;	  /* [router * nports + port]: link down (both ends) */
	uint8_t *drained; /* [router]: no transit traffic through it */
	uint8_t *gone;	  /* [router]: in a lost instance (df_faults_lose) */
	uint32_t ngone;
	/* the current version's dependency edges, and its hops (faults.c
	 * struct df_fault_hop): a packet that took one may go on under the next
	 * version's tables */
	uint64_t *edges;
	struct df_fault_hop *hops;
	size_t nedges, nhops;
	uint32_t versions;
	/* OFAR with the tree escape: its root group (set after init) */
	uint32_t tree_root;
};

/* Why link changes are not possible for this run, or NULL if they are;
 * the same for drains (which OFAR cannot have). */
const char *df_faults_unsupported(const struct df_config *cfg);
const char *df_faults_drain_unsupported(const struct df_config *cfg);

int df_faults_init(struct df_faults *f, const struct df_topo *t,
		   const struct df_tables *base, enum df_algorithm alg,
		   char *err, size_t errlen);
void df_faults_free(struct df_faults *f);

/* Router and port of a link end: "rR.pP" (a router port, not a terminal
 * port). Returns 0 or -1 with what is allowed in err. */
int df_faults_parse_link(const struct df_topo *t, const char *s, uint32_t *r,
			 uint32_t *port, char *err, size_t errlen);

/*
 * Set the link at (r, port) down (down = 1) or up (0) and build the
 * tables for the links then up into *out (allocated; the caller frees
 * them with df_tables_free once no packet can read them). For OFAR also
 * its escape over the links then up: a ring into *ring (the same way,
 * with df_ring_free), or, when tree is not NULL, a tree rooted at group
 * f->tree_root into *tree (df_tree_free), checked and its escape
 * channels' dependency graph proved acyclic; the change is refused when
 * none exists. Returns 0, or -1 with the reason in err and nothing
 * changed.
 */
int df_faults_set(struct df_faults *f, uint32_t r, uint32_t port, int down,
		  struct df_tables *out, struct df_ring *ring,
		  struct df_tree *tree, char *err, size_t errlen);

/*
 * Drain router r (drain = 1) or return it to service (0): tables in which
 * no path passes through r (it stays a source and a destination), into
 * *out, under the same checks. Returns 0, or -1 with the reason.
 */
int df_faults_drain(struct df_faults *f, uint32_t r, int drain,
		    struct df_tables *out, char *err, size_t errlen);

/*
 * A partitioned run lost the instance that ran routers lo..hi-1 (whole
 * groups): every link of theirs goes down, and the tables route the
 * routers left around them. Entries toward a lost router or group keep
 * their old path: it ends at a link to the lost instance, where the
 * dataplane takes the packet out (router.c), and a packet on its way to
 * a lost intermediate group goes on minimally from there, as the check
 * walks it. New Valiant choices leave the lost groups out (out->inter).
 * Refused for OFAR (its escape ring must pass every router) and where
 * link changes are not possible. Returns 0, or -1 with the reason.
 */
int df_faults_lose(struct df_faults *f, uint32_t lo, uint32_t hi,
		   struct df_tables *out, char *err, size_t errlen);

/* [faults] events: one scheduled change. */
enum df_fault_op {
	DF_FAULT_DOWN,
	DF_FAULT_UP,
	DF_FAULT_LOAD,
	DF_FAULT_DRAIN,
	DF_FAULT_UNDRAIN,
};

struct df_fault_event {
	uint64_t t_ms; /* since the start of the run */
	enum df_fault_op op;
	uint32_t r, port; /* DOWN, UP: one end of the link; DRAIN: r */
	double load;	  /* LOAD: the new offered load */
};

#define DF_MAX_FAULT_EVENTS 64

/* Parse cfg's [faults] events against topology t into ev[] (in time
 * order). Returns 0, or -1 with file, line and what is allowed in err. */
int df_faults_parse_events(const struct df_config *cfg, const struct df_topo *t,
			   struct df_fault_event *ev, uint32_t *n, char *err,
			   size_t errlen);

#endif
