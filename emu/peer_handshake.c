/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The start-up handshake of a partitioned run (instances.h): HELLOs over
 * each peer port until every peer runs the same plan, the one-way port
 * latencies are measured, and every instance is ready with every other.
 */
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "peer_private.h"
#include "unmap_guard.h"

#define LAT_SAMPLES 32 /* round trips before the latency is taken */

static uint64_t now_ns(const struct emu_inst *x)
{
	return (uint64_t)((double)rte_rdtsc() * 1e9 / x->hz);
}

/* FNV-1a over what both sides must agree on: the wiring, the link
 * parameters, the routing and the traffic, the partition. */
uint64_t inst_plan_hash(const struct df_plan *pl)
{
	const struct df_config *c = &pl->cfg;
	const struct df_topo *t = &pl->topo;
	uint64_t h = 0xcbf29ce484222325ULL;

#define MIX(ptr, len)                                                   \
	do {                                                            \
		const unsigned char *q_ = (const unsigned char *)(ptr); \
		for (size_t i_ = 0; i_ < (len); i_++)                   \
			h = (h ^ q_[i_]) * 0x100000001b3ULL;            \
	} while (0)
	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		MIX(&t->ports[i].peer, sizeof(t->ports[i].peer));
		MIX(&t->ports[i].peer_port, sizeof(t->ports[i].peer_port));
	}
	MIX(c->link, sizeof(c->link));
	MIX(&c->flit_bytes, sizeof(c->flit_bytes));
	MIX(&c->algorithm, sizeof(c->algorithm));
	/* OFAR: a packet in the escape crosses instances on its ring or
	 * tree, so both must lay the same one */
	MIX(&c->escape_net, sizeof(c->escape_net));
	MIX(&c->tree_root, sizeof(c->tree_root));
	MIX(&c->packet_bytes, sizeof(c->packet_bytes));
	MIX(&c->ninst, sizeof(c->ninst));
	MIX(c->inst_lo, sizeof(c->inst_lo));
	MIX(c->inst_hi, sizeof(c->inst_hi));
#undef MIX
	return h;
}

static int all_ready(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance &&
		    !(x->ps[j].heard && x->ps[j].heard_me &&
		      x->ps[j].nlat >= LAT_SAMPLES && x->ps[j].ready))
			return 0;
	return 1;
}

/* Every peer is ready with every instance: all may start. */
static int all_go(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].go)
			return 0;
	return 1;
}

struct rte_mbuf *inst_hello(struct emu_inst *x, uint32_t j)
{
	struct peer_state *ps = &x->ps[j];
	struct dp_encap_hello *h;
	struct rte_mbuf *m;
	void *body;
	uint64_t t = now_ns(x);

	m = dp_bridge_frame(&x->b, j, DP_ENCAP_HELLO, sizeof(*h), 0, &body);
	if (m == NULL)
		return NULL;
	h = body;
	memset(h, 0, sizeof(*h));
	h->plan_hash = rte_cpu_to_be_64(x->hash);
	h->now_ns = rte_cpu_to_be_64(t);
	h->echo_ns = rte_cpu_to_be_64(ps->heard ? ps->their_now_ns : 0);
	h->held_ns = rte_cpu_to_be_64(ps->heard ? t - ps->got_ns : 0);
	h->order = DP_ENCAP_ORDER;
	/* 1: heard you; 2: and measured the port's latency; 3: and every
	 * other instance's too (the start barrier, emu_inst_handshake) */
	h->heard = (uint8_t)(!ps->heard		       ? 0
			     : all_ready(x)	       ? 3
			     : ps->nlat >= LAT_SAMPLES ? 2
						       : 1);
	return m;
}

/* A HELLO from peer j: its plan, its clock, the round trip. Returns -1
 * on a different plan. */
int inst_take_hello(struct emu_inst *x, uint32_t j,
		    const struct dp_encap_hello *h, char *err, size_t errlen)
{
	struct peer_state *ps = &x->ps[j];
	uint64_t t = now_ns(x), echo = rte_be_to_cpu_64(h->echo_ns);

	if (rte_be_to_cpu_64(h->plan_hash) != x->hash) {
		snprintf(err, errlen,
			 "instance %u runs another plan (its hash %016llx, "
			 "ours %016llx): every instance must be given the same "
			 "config and --set options, except [partition] "
			 "instance",
			 j, (unsigned long long)rte_be_to_cpu_64(h->plan_hash),
			 (unsigned long long)x->hash);
		return -1;
	}
	if (h->order != DP_ENCAP_ORDER) {
		snprintf(err, errlen,
			 "instance %u runs on a host of the other byte order "
			 "(%s, ours %s): a packet's routing-engine state "
			 "travels as its host lays it out, so the instances of "
			 "a run must share one",
			 j, h->order == 1 ? "little-endian" : "big-endian",
			 DP_ENCAP_ORDER == 1 ? "little-endian" : "big-endian");
		return -1;
	}
	ps->heard = 1;
	ps->their_now_ns = rte_be_to_cpu_64(h->now_ns);
	ps->got_ns = t;
	if (h->heard)
		ps->heard_me = 1;
	if (h->heard >= 2)
		ps->ready = 1;
	if (h->heard == 3)
		ps->go = 1;
	if (echo != 0) {
		int64_t rtt = (int64_t)(t - echo) -
			      (int64_t)rte_be_to_cpu_64(h->held_ns);
		double half = rtt > 0 ? rtt / 2.0 : 0;
		if (!ps->has_lat || half < ps->lat_ns)
			ps->lat_ns = half;
		ps->has_lat = 1;
		ps->nlat++;
	}
	return 0;
}

/* Every peer has heard us and we them: measuring round trips now. */
static int all_heard(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !(x->ps[j].heard && x->ps[j].heard_me))
			return 0;
	return 1;
}

/* The HELLO body of frame m (header h), or NULL: another type, or short. */
const struct dp_encap_hello *inst_hello_body(const struct dp_encap_hdr *h,
					     const struct rte_mbuf *m)
{
	size_t need = sizeof(struct rte_ether_hdr) + sizeof(*h) +
		      sizeof(struct dp_encap_hello);

	return h->type == DP_ENCAP_HELLO && m->data_len >= need
		       ? (const void *)(h + 1)
		       : NULL;
}

/* What came from peer j during the handshake: HELLOs taken here, the
 * frames of a peer that started first kept for the bridge. Returns -1
 * (err says why) when the peer runs another plan. */
static int handshake_rx(struct emu_inst *x, uint32_t j, char *err,
			size_t errlen)
{
	struct rte_mbuf *m[DP_BRIDGE_BURST];
	uint16_t n = rte_eth_rx_burst(x->b.peer[j].port, 0, m, DP_BRIDGE_BURST);
	int rc = 0;

	for (uint16_t k = 0; k < n; k++) {
		const struct dp_encap_hdr *h = dp_bridge_hdr(&x->b, m[k]);
		const struct dp_encap_hello *hb =
			h ? inst_hello_body(h, m[k]) : NULL;

		if (hb != NULL) {
			if (rc == 0)
				rc = inst_take_hello(x, h->src_instance, hb,
						     err, errlen);
			rte_pktmbuf_free(m[k]);
		} else if (h == NULL) {
			x->b.bad_frames++;
			rte_pktmbuf_free(m[k]);
		} else if (rte_ring_sp_enqueue(x->b.early, m[k]) != 0) {
			x->b.enq_fail++; /* lost: the report shows it */
			rte_pktmbuf_free(m[k]);
		}
	}
	return rc;
}

static int handshake(struct emu_inst *x, struct rte_rcu_qsbr *q,
		     volatile const int *stop, FILE *status, char *err,
		     size_t errlen)
{
	const struct df_config *c = &x->pl->cfg;
	uint64_t t0 = rte_rdtsc(), next_hello = 0, told = 0;
	uint64_t wait = (uint64_t)((double)c->part_wait_ms * x->hz / 1e3);

	for (;;) {
		uint64_t now = rte_rdtsc();

		dp_unmap_guard_quiescent(q, rte_lcore_id());
		/* a barrier: an instance ready with its own peers but not
		 * yet with every instance would start its clock early and
		 * take a peer still measuring another as lost */
		if (all_ready(x) && all_go(x))
			break;
		if (stop && *stop) {
			snprintf(err, errlen,
				 "interrupted while waiting for "
				 "the other instances");
			return -1;
		}
		if (now - t0 > wait) {
			snprintf(err, errlen,
				 "[partition] wait_ms = %llu: the other "
				 "instances did not all answer (start them "
				 "with the same config and their --instance; "
				 "check the ports i%u.peerN)",
				 (unsigned long long)c->part_wait_ms,
				 c->instance);
			return -1;
		}
		if (status && !told && now - t0 > (uint64_t)x->hz) {
			fprintf(status,
				"dfemu: instance %u: waiting for the other "
				"instances ...\n",
				c->instance);
			told = 1;
		}
		if (now >= next_hello) {
			inst_redial(x, now);
			for (uint32_t j = 0; j < c->ninst; j++) {
				struct rte_mbuf *h;
				if (j == c->instance ||
				    (h = inst_hello(x, j)) == NULL)
					continue;
				dp_bridge_send(&x->b, j, &h, 1);
			}
			/* every 10 ms while waiting; every 100 us while
			 * measuring round trips, polling without sleeps so
			 * that they are the port's, not the scheduler's */
			next_hello =
				now + (uint64_t)(x->hz /
						 (all_heard(x) ? 10000 : 100));
		}
		for (uint32_t j = 0; j < c->ninst; j++)
			if (j != c->instance && handshake_rx(x, j, err, errlen))
				return -1;
		if (all_heard(x))
			sched_yield();
		else
			usleep(100);
	}
	/* one more HELLO each, saying we heard them: a peer still waiting
	 * needs it (later ones are answered by emu_inst_poll) */
	for (uint32_t j = 0; j < c->ninst; j++) {
		struct rte_mbuf *h;
		if (j == c->instance)
			continue;
		if ((h = inst_hello(x, j)) != NULL)
			dp_bridge_send(&x->b, j, &h, 1);
	}
	x->started = rte_rdtsc();
	return 0;
}

/* The handshake polls the peers' ports from this lcore, before the
 * workers do: online for the unmap guard meanwhile (unmap_guard.h), a
 * quiescent report between polls. */
int emu_inst_handshake(struct emu_inst *x, volatile const int *stop,
		       FILE *status, char *err, size_t errlen)
{
	struct rte_rcu_qsbr *q = dp_unmap_guard_init();
	int rc;

	dp_unmap_guard_online(q, rte_lcore_id());
	rc = handshake(x, q, stop, status, err, errlen);
	dp_unmap_guard_offline(q, rte_lcore_id());
	return rc;
}
