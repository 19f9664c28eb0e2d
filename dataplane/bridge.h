/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_BRIDGE_H
#define DP_BRIDGE_H

/*
 * The global links between dfemu instances (docs/instances.md).
 * A link whose sender runs here and whose receiver runs in
 * another instance keeps its rings on both sides: here the sending router
 * enqueues onto the packet ring as on any link, and the bridge takes the
 * packets off at once and sends them to the peer in DATA frames
 * (encap.h), with their due time; the peer's bridge puts them on its
 * copy of the ring, and the receiving router releases them when due as
 * from any link. The instances keep in step as the workers of one do:
 * each bridge sends its instance's clock (SYNC) once what its steps sent
 * has left, and no worker runs a step more than a quantum past a live
 * peer's clock (worker.c), so a frame is never due before the step that
 * takes it in. Credits go back the same way
 * in CREDIT frames. The bridge runs in worker 0's sweep; control frames
 * (HELLO, STATS, DONE, SUMMARY) pass to and from the main lcore through
 * two rings.
 */
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "encap.h"
#include "link.h"

#define DP_BRIDGE_BURST 32

/* A link's role here (struct dp_bridge role[]) */
enum { DP_LINK_OUT = 1, DP_LINK_IN = 2 };

struct dp_peer {
	int used;
	uint16_t port;			 /* DPDK port id */
	uint32_t seq[DP_ENCAP_SYNC + 1]; /* frames sent, by encap type */
	/* SYNC: how far its clock has run (worker.c reads it), and ours
	 * as last sent to it */
	volatile uint64_t clock;
	uint64_t synced;
	volatile int32_t cpu; /* its bridge's CPU, as its SYNC says */
	/* its measured counts at its last checkpoints, as its SYNCs said,
	 * by checkpoint number mod DP_CKPTS (worker.c, ckpt_take) */
	struct dp_peer_ckpt {
		volatile uint64_t n; /* checkpoint number + 1 */
		uint64_t gen, in;
	} ckpt[4];
	/* frames the port did not take yet (sent first next time) */
	struct rte_mbuf *pend[2 * DP_BRIDGE_BURST];
	uint32_t npend;
	/* counters, read by the main lcore */
	uint64_t sent, recv;   /* DATA packets */
	uint64_t msent, mrecv; /* of them measured */
	uint64_t csent, crecv; /* credit messages */
	uint64_t tx_frames, rx_frames, tx_stalls;
	/* set by the main lcore once the peer is taken as lost: what is
	 * for it is freed here (still counted as sent: it left toward the
	 * lost instance), what comes from it is ignored */
	volatile uint8_t lost;
	uint64_t discarded;   /* frames for it freed since */
	uint64_t ignored;     /* frames from it ignored since */
	uint64_t ctl_dropped; /* control frames its full backlog refused */
};

struct dp_run;

struct dp_bridge {
	uint32_t self;
	struct dp_run *run; /* its table versions (worker.h) */
	struct rte_mempool *pool;
	struct dp_link *links; /* the run's links, router ports first */
	uint32_t nlinks;       /* router-port links: routers x ports */
	uint32_t *out;	       /* links sent from here to a peer */
	uint32_t *in;	       /* links received here from a peer */
	uint32_t nout, nin;
	uint8_t *peer_of; /* [link]: peer instance of out/in links */
	uint8_t *role;	  /* [link]: DP_LINK_OUT, DP_LINK_IN, 0 neither */
	struct rte_ring *ctl_rx; /* control frames for the main lcore */
	struct rte_ring *ctl_tx; /* control frames from it, to send */
	struct rte_ring *early;	 /* frames that came during the handshake */
	struct dp_peer peer[DP_MAX_INSTANCES];
	struct rte_ether_addr mac[DP_MAX_INSTANCES]; /* 02:df:ff:ff:00:I */
	uint64_t bad_frames;   /* not dfemu's, or not for this instance */
	uint64_t unknown_link; /* entries naming a link not from that peer */
	uint64_t enq_fail;     /* a full link ring: the peer broke credits */
	uint64_t late;	       /* due by the step it came in: out of step */
	/* set by the main lcore with its DONE: no SYNC after it (every
	 * instance has stopped generating; a SYNC left in the backlog of a
	 * peer that ended would hold this one's end) */
	volatile uint8_t sync_off;
	int32_t cpu; /* the CPU this bridge runs on, -1 before its first SYNC */
};

/* One sweep: send what left toward peers, take in what arrived. */
unsigned dp_bridge_step(struct dp_bridge *b, uint64_t now);

/* An mbuf with the outer Ethernet and dfemu header of a frame of type to
 * peer (seq filled in), room for len bytes of body; NULL if none free.
 * The body starts at the returned pointer (*body). */
struct rte_mbuf *dp_bridge_frame(struct dp_bridge *b, uint32_t peer,
				 enum dp_encap_type type, uint32_t len,
				 uint16_t count, void **body);

/* A CHANGE frame to peer (struct dp_encap_change: kind, table version
 * or load change number n, operation, [faults] event, argument); NULL if
 * no mbuf. */
struct rte_mbuf *dp_bridge_change(struct dp_bridge *b, uint32_t peer,
				  enum dp_change_kind kind, uint32_t n,
				  uint8_t op, uint16_t event, const char *arg);

/* The dfemu header of a frame, or NULL if it is not one for us (the
 * outer Ethernet checked, the frame long enough for the header). */
const struct dp_encap_hdr *dp_bridge_hdr(const struct dp_bridge *b,
					 struct rte_mbuf *m);

/* Send frames to a peer now (before the workers run, or from worker 0):
 * what the port does not take is kept for the next try. */
void dp_bridge_send(struct dp_bridge *b, uint32_t peer, struct rte_mbuf **m,
		    uint32_t n);

#endif
