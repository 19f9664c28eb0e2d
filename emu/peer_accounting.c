/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end of a partitioned run (instances.h): the whole network's
 * accounting from every instance's counters (lost peers left out), the
 * SUMMARY of the peers' packets delivered here and DONE, and the
 * report's partition part.
 */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ring.h>

#include "peer_private.h"

#define SUMMARY_PER_FRAME 48

/* This instance's counters, as a peer sees them (host order). */
void inst_local_stats(const struct emu_inst *x, const struct emu_inst_local *l,
		      struct dp_encap_stats *st)
{
	const struct dp_stats *s = l->s;

	memset(st, 0, sizeof(*st));
	st->injected = s->injected;
	st->delivered = s->delivered;
	st->lost = dp_stats_lost(s);
	st->gen_measured = s->gen_measured;
	st->del_measured = s->del_measured;
	st->drops_measured = s->drops_measured;
	st->credits_out = s->credits_out;
	st->credits_in = s->credits_in;
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		st->sent[j] = x->b.peer[j].sent;
		st->recv[j] = x->b.peer[j].recv;
		st->csent[j] = x->b.peer[j].csent;
		st->crecv[j] = x->b.peer[j].crecv;
		st->msent[j] = x->b.peer[j].msent;
		st->mrecv[j] = x->b.peer[j].mrecv;
		if (j < DF_MAX_INST && x->ps[j].lost)
			st->lost_mask |= (uint8_t)(1u << j);
	}
	st->gen_stopped = (uint8_t)l->gen_stopped;
	st->settled = l->settled;
	st->prepared = (uint16_t)l->prepared;
}

/* The network's counters: ours now and every peer's last. Returns 0 if
 * some peer has sent none yet. */
static int network(const struct emu_inst *x, const struct emu_inst_local *l,
		   struct dp_encap_stats *all)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++) {
		if (j == c->instance)
			inst_local_stats(x, l, &all[j]);
		else if (x->ps[j].lost)
			continue; /* its counters are not the network's now */
		else if (x->ps[j].st_at == 0)
			return 0;
		else
			all[j] = x->ps[j].st;
	}
	return 1;
}

/* The survivors' flows to and from the lost peers: DATA packets and
 * their measured ones (sums over the survivors i). Not credits: each is
 * counted owed and sent where it leaves its receiver (dataplane/credit.h),
 * so the survivors' own balance whatever went to or came from the lost. */
struct lost_flows {
	uint64_t to, from, mto, mfrom;
};

static void lost_flows(const struct emu_inst *x,
		       const struct dp_encap_stats *all, struct lost_flows *f)
{
	uint32_t n = x->pl->cfg.ninst;

	memset(f, 0, sizeof(*f));
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			if (x->ps[i].lost || !x->ps[j].lost)
				continue;
			f->to += all[i].sent[j];
			f->from += all[i].recv[j];
			f->mto += all[i].msent[j];
			f->mfrom += all[i].mrecv[j];
		}
}

int emu_inst_measured_done(const struct emu_inst *x,
			   const struct emu_inst_local *l)
{
	struct dp_encap_stats all[DF_MAX_INST];
	struct lost_flows lf;
	uint64_t gen = 0, in = 0;

	if (!network(x, l, all))
		return 0;
	for (uint32_t j = 0; j < x->pl->cfg.ninst; j++) {
		if (x->ps[j].lost)
			continue;
		gen += all[j].gen_measured;
		in += all[j].del_measured + all[j].drops_measured;
	}
	/* without a lost peer: the survivors as one network, whose
	 * packets also come from and leave toward the lost ones */
	lost_flows(x, all, &lf);
	return gen + lf.mfrom == in + lf.mto;
}

int emu_inst_drained(const struct emu_inst *x, const struct emu_inst_local *l)
{
	/* zeroed: GCC 12 cannot tell that network() fills the entries
	 * lost_flows() reads (-Wmaybe-uninitialized) */
	struct dp_encap_stats all[DF_MAX_INST] = {0};
	struct lost_flows lf;
	uint64_t inj = 0, out = 0, cout = 0, cin = 0;
	uint32_t n = x->pl->cfg.ninst;

	if (!network(x, l, all))
		return 0;
	lost_flows(x, all, &lf);
	inj = lf.from;
	out = lf.to;
	for (uint32_t i = 0; i < n; i++) {
		if (x->ps[i].lost)
			continue;
		if (!all[i].gen_stopped)
			return 0;
		inj += all[i].injected;
		out += all[i].delivered + all[i].lost;
		cout += all[i].credits_out;
		cin += all[i].credits_in;
		/* what i sent j has arrived there, packets and credits (the
		 * counters only grow, so a stale view cannot balance while
		 * something is on its way) */
		for (uint32_t j = 0; j < n; j++)
			if (i != j && !x->ps[j].lost &&
			    (all[i].sent[j] != all[j].recv[i] ||
			     all[i].csent[j] != all[j].crecv[i]))
				return 0;
	}
	return inj == out && cout == cin;
}

void emu_inst_finish(struct emu_inst *x, struct dp_lcore *const *lc,
		     uint32_t nworkers)
{
	const struct df_config *c = &x->pl->cfg;
	uint32_t per_group = c->p * c->a;

	if (x->finished)
		return;
	x->finished = 1;
	__atomic_store_n(&x->b.sync_off, 1, __ATOMIC_RELEASE);
	for (uint32_t j = 0; j < c->ninst; j++) {
		uint32_t lo = c->inst_lo[j] * per_group;
		uint32_t hi = (c->inst_hi[j] + 1) * per_group;
		void *body;
		struct rte_mbuf *m;

		if (j == c->instance || x->ps[j].lost)
			continue;
		for (uint32_t t0 = lo; t0 < hi; t0 += SUMMARY_PER_FRAME) {
			uint32_t n = hi - t0 < SUMMARY_PER_FRAME
					     ? hi - t0
					     : SUMMARY_PER_FRAME;
			struct dp_encap_summary *s;
			char *e;
			m = dp_bridge_frame(&x->b, j, DP_ENCAP_SUMMARY,
					    sizeof(*s) +
						    n * DP_SUMMARY_WORDS * 8,
					    (uint16_t)n, &body);
			if (m == NULL)
				continue;
			s = body;
			s->first_term = rte_cpu_to_be_32(t0);
			e = (char *)(s + 1);
			for (uint32_t k = 0; k < n; k++) {
				uint64_t v[DP_SUMMARY_WORDS] = {0, 0};
				for (uint32_t w = 0; w < nworkers; w++) {
					v[0] += lc[w]->rx_cnt[t0 + k];
					v[1] += lc[w]->rx_hash[t0 + k];
				}
				for (int q = 0; q < DP_SUMMARY_WORDS; q++) {
					uint64_t be = rte_cpu_to_be_64(v[q]);
					memcpy(e + (DP_SUMMARY_WORDS * k + q) *
							       sizeof(be),
					       &be, sizeof(be));
				}
			}
			inst_send_ctl(x, m);
		}
		inst_send_ctl(x, dp_bridge_frame(&x->b, j, DP_ENCAP_DONE, 0, 0,
						 &body));
	}
}

/* Has peer j, done, ended? It ends once it has our DONE, and until then
 * its port takes what we send: a backlog to it that has not moved for
 * [partition] peer_timeout_ms is one left behind by a peer that ended
 * (a STATS sent after our DONE held three instances' end for good). */
static int backlog_left(struct emu_inst *x, uint32_t j, uint64_t now)
{
	struct peer_state *ps = &x->ps[j];
	const struct dp_peer *p = &x->b.peer[j];
	uint64_t out = p->tx_frames;

	if (p->npend == 0)
		return 1;
	if (out != ps->tx_seen || ps->tx_still == 0) {
		ps->tx_seen = out;
		ps->tx_still = now;
		return 0;
	}
	return now - ps->tx_still >=
	       (uint64_t)(x->hz * (double)x->pl->cfg.part_peer_timeout_ms /
			  1e3);
}

int emu_inst_all_done(struct emu_inst *x, uint64_t now)
{
	const struct df_config *c = &x->pl->cfg;

	if (!x->finished || rte_ring_count(x->b.ctl_tx) != 0)
		return 0;
	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (!x->ps[j].done || !backlog_left(x, j, now)))
			return 0;
	return 1;
}

void emu_inst_remote_rx(const struct emu_inst *x, uint32_t t, uint64_t *cnt,
			uint64_t *hash)
{
	*cnt += x->rrx[t][0];
	*hash += x->rrx[t][1];
}

void emu_inst_report(const struct emu_inst *x, const struct emu_inst_local *l,
		     struct df_report *rep)
{
	const struct df_config *c = &x->pl->cfg;
	struct df_part_report *r = &rep->part;
	struct dp_encap_stats all[DF_MAX_INST];

	r->ninst = c->ninst;
	r->instance = c->instance;
	r->lo = c->inst_lo[c->instance];
	r->hi = c->inst_hi[c->instance];
	r->nterms = (r->hi - r->lo + 1) * c->p * c->a;
	r->global_lat_ns = (double)c->link[DF_LINK_GLOBAL].latency_ns;
	for (uint32_t j = 0; j < c->ninst; j++) {
		const struct dp_peer *p = &x->b.peer[j];
		struct df_peer_report *o = &r->peer[j];
		if (j == c->instance)
			continue;
		o->used = 1;
		snprintf(o->port, sizeof(o->port), "%s",
			 c->peer_vdev[c->instance][j]);
		o->port[strcspn(o->port, ",")] = '\0';
		o->lat_ns = x->ps[j].lat_ns;
		o->sent = p->sent;
		o->recv = p->recv;
		o->csent = p->csent;
		o->crecv = p->crecv;
		o->tx_frames = p->tx_frames;
		o->rx_frames = p->rx_frames;
		o->tx_stalls = p->tx_stalls;
		o->discarded = p->discarded;
		o->ignored = p->ignored;
		o->ctl_dropped = p->ctl_dropped;
		if (x->ps[j].lost) {
			o->lost = 1;
			o->lost_at_s =
				(double)(x->ps[j].lost_at - x->started) / x->hz;
			snprintf(o->lost_why, sizeof(o->lost_why), "%s",
				 x->ps[j].lost_why);
			r->nlost++;
		}
	}
	r->bad_frames = x->b.bad_frames;
	r->unknown_link = x->b.unknown_link;
	r->enq_fail = x->b.enq_fail;
	r->late = x->b.late;
	r->exchanged = network(x, l, all);
	if (r->exchanged) {
		struct lost_flows lf;
		for (uint32_t j = 0; j < c->ninst; j++) {
			if (x->ps[j].lost)
				continue;
			r->injected += all[j].injected;
			r->delivered += all[j].delivered;
			r->lost += all[j].lost;
		}
		lost_flows(x, all, &lf);
		r->to_lost = lf.to;
		r->from_lost = lf.from;
	}
	r->in_flight = r->injected + r->from_lost - r->delivered - r->lost -
		       r->to_lost;
}
