/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_PEER_PRIVATE_H
#define EMU_PEER_PRIVATE_H

/*
 * What the files of the protocol between instances (instances.h) share:
 * each peer's state as this instance sees it, the bridge, and the few
 * functions one of them calls in another. peer_ports.c: the ports to the
 * peers and the bridge; peer_handshake.c: the start-up handshake;
 * peer_sync.c: counters and liveness during the run, run-time changes
 * relayed; peer_accounting.c: the whole network's accounting and the end.
 */
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "bridge.h"
#include "instances.h"

/* the frames' per-instance arrays hold every instance a config can have */
_Static_assert(DF_MAX_INST <= DP_MAX_INSTANCES, "raise DP_MAX_INSTANCES");

#define CHANGES_KEPT 64

/* A peer instance as this one sees it. */
struct peer_state {
	int heard;		       /* a HELLO from it arrived */
	int heard_me;		       /* it says it has one of ours */
	uint64_t their_now_ns, got_ns; /* its last HELLO: its clock, ours */
	double lat_ns;		       /* half the shortest round trip */
	int has_lat, nlat;	       /* round trips measured */
	int ready;		       /* it has measured its own */
	int go;			       /* it is ready with every instance */
	struct dp_encap_stats st;      /* its last counters, host order */
	uint64_t st_at;		       /* when they came (TSC), 0 = never */
	int done;
	/* our backlog to it: its frames out when last seen, and since when
	 * (TSC) the port has taken none */
	uint64_t tx_seen, tx_still;
	/* any frame from it: its port's frames in when last seen, and when
	 * (TSC) that count last moved */
	uint64_t rx_seen, rx_at;
	int lost;	  /* taken as lost: the run goes on without it */
	uint64_t lost_at; /* when (TSC) */
	char lost_why[128];
};

/* This instance's side of the protocol (instances.h). */
struct emu_inst {
	const struct df_plan *pl;
	double hz;
	struct dp_bridge b;
	uint64_t hash;
	struct peer_state ps[DF_MAX_INST];
	uint64_t next_stats, started;
	uint64_t dialed[DF_MAX_INST]; /* a memif client last (re)started */
	int finished;
	/* [terminal]: settled elsewhere: cnt, set hash */
	uint64_t (*rrx)[DP_SUMMARY_WORDS];
	uint32_t newly_lost; /* peers taken as lost since the last poll */
	/* changes instance 0 announced, not yet made here (a ring of
	 * CHANGES_KEPT), and the number the next one must have */
	struct emu_change chq[CHANGES_KEPT];
	uint32_t chq_head, chq_tail;
	uint64_t last_poll, resumed; /* the main lcore's own last turns */
	int excluded_by; /* a peer that took this instance as lost, or -1 */
};

/* peer_ports.c: a memif client left without a link dials again. */
void inst_redial(struct emu_inst *x, uint64_t now);

/* peer_handshake.c: the plan's hash both sides compare; a HELLO to peer
 * j, one taken from it (-1: another plan), and the HELLO body of a frame
 * (NULL if it is none). */
uint64_t inst_plan_hash(const struct df_plan *pl);
struct rte_mbuf *inst_hello(struct emu_inst *x, uint32_t j);
int inst_take_hello(struct emu_inst *x, uint32_t j,
		    const struct dp_encap_hello *h, char *err, size_t errlen);
const struct dp_encap_hello *inst_hello_body(const struct dp_encap_hdr *h,
					     const struct rte_mbuf *m);

/* peer_sync.c: a control frame queued for the bridge (freed if it has
 * no room). */
void inst_send_ctl(struct emu_inst *x, struct rte_mbuf *m);

/* peer_accounting.c: this instance's counters as a peer sees them. */
void inst_local_stats(const struct emu_inst *x, const struct emu_inst_local *l,
		      struct dp_encap_stats *st);

#endif
