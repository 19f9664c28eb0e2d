/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A partitioned run while it goes on (instances.h): this instance's
 * counters sent every few milliseconds, the peers' control frames taken
 * in, peers found silent taken as lost, and the run-time changes
 * instance 0 announces relayed to the others.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ring.h>

#include "peer_private.h"

#define STATS_EVERY_MS 5

/* The counters of a STATS body between host and network order (the
 * same swap both ways). */
static void swap_stats(struct dp_encap_stats *st)
{
	char *p = (char *)st;

	for (size_t i = 0; i < offsetof(struct dp_encap_stats, gen_stopped) /
				       sizeof(uint64_t);
	     i++) {
		uint64_t v;
		memcpy(&v, p + i * sizeof(v), sizeof(v));
		v = rte_cpu_to_be_64(v);
		memcpy(p + i * sizeof(v), &v, sizeof(v));
	}
	st->settled = rte_cpu_to_be_32(st->settled);
	st->prepared = rte_cpu_to_be_16(st->prepared);
}

/* Take peer j as lost from now: the bridge frees what is for it and
 * ignores what comes from it, and the caller takes its links down. */
static void mark_lost(struct emu_inst *x, uint32_t j, uint64_t now,
		      const char *why)
{
	struct peer_state *ps = &x->ps[j];

	if (ps->lost)
		return;
	ps->lost = 1;
	ps->lost_at = now;
	snprintf(ps->lost_why, sizeof(ps->lost_why), "%s", why);
	__atomic_store_n(&x->b.peer[j].lost, 1, __ATOMIC_RELEASE);
	x->newly_lost |= 1u << j;
}

/* A peer's STATS say which instances it takes as lost: so does this one
 * (the survivors must agree on who is left), unless it is this one. */
static void take_lost_mask(struct emu_inst *x, uint32_t j, uint8_t mask,
			   uint64_t now)
{
	const struct df_config *c = &x->pl->cfg;
	char why[128];

	for (uint32_t k = 0; k < c->ninst; k++) {
		if (!(mask & (1u << k)) || k == j)
			continue;
		if (k == c->instance) {
			if (x->excluded_by < 0)
				x->excluded_by = (int)j;
			continue;
		}
		snprintf(why, sizeof(why), "instance %u took it as lost", j);
		mark_lost(x, k, now, why);
	}
}

void inst_send_ctl(struct emu_inst *x, struct rte_mbuf *m)
{
	if (m != NULL && rte_ring_sp_enqueue(x->b.ctl_tx, m) != 0)
		rte_pktmbuf_free(m);
}

static void send_stats(struct emu_inst *x, const struct emu_inst_local *l)
{
	const struct df_config *c = &x->pl->cfg;
	struct dp_encap_stats st;

	inst_local_stats(x, l, &st);
	swap_stats(&st);
	for (uint32_t j = 0; j < c->ninst; j++) {
		void *body;
		struct rte_mbuf *m;
		/* a lost peer too: it may only have stalled */
		if (j == c->instance)
			continue;
		m = dp_bridge_frame(&x->b, j, DP_ENCAP_STATS, sizeof(st), 0,
				    &body);
		if (m != NULL)
			memcpy(body, &st, sizeof(st));
		inst_send_ctl(x, m);
	}
}

static void take_ctl(struct emu_inst *x, struct rte_mbuf *m, uint64_t now)
{
	const struct dp_encap_hdr *h = dp_bridge_hdr(&x->b, m);
	size_t hl = sizeof(struct rte_ether_hdr) + sizeof(*h);
	uint32_t j;
	char err[320];

	if (h == NULL)
		goto out;
	j = h->src_instance;
	switch (h->type) {
	case DP_ENCAP_HELLO:
		if (inst_hello_body(h, m) != NULL &&
		    inst_take_hello(x, j, inst_hello_body(h, m), err,
				    sizeof(err)) == 0)
			inst_send_ctl(x, inst_hello(x, j));
		break;
	case DP_ENCAP_STATS:
		if (m->data_len >= hl + sizeof(struct dp_encap_stats)) {
			struct peer_state *ps = &x->ps[j];
			memcpy(&ps->st, h + 1, sizeof(ps->st));
			swap_stats(&ps->st);
			ps->st_at = now;
			take_lost_mask(x, j, ps->st.lost_mask, now);
		}
		break;
	case DP_ENCAP_DONE:
		x->ps[j].done = 1;
		break;
	case DP_ENCAP_CHANGE: {
		const struct dp_encap_change *ch = (const void *)(h + 1);
		uint32_t k = x->chq_tail % CHANGES_KEPT;
		/* from instance 0 only, in order (the port keeps it) */
		if (m->data_len < hl + sizeof(*ch) || j != 0 ||
		    x->chq_tail - x->chq_head == CHANGES_KEPT) {
			x->b.bad_frames++;
			break;
		}
		x->chq[k].kind = ch->kind;
		x->chq[k].op = ch->op;
		x->chq[k].n = rte_be_to_cpu_32(ch->n);
		x->chq[k].event = rte_be_to_cpu_16(ch->event);
		snprintf(x->chq[k].arg, sizeof(x->chq[0].arg), "%.*s",
			 (int)sizeof(ch->arg), ch->arg);
		x->chq_tail++;
		break;
	}
	case DP_ENCAP_SUMMARY: {
		const struct dp_encap_summary *s = (const void *)(h + 1);
		const char *e = (const char *)(s + 1);
		uint32_t n = rte_be_to_cpu_16(h->count);
		uint32_t t0 = rte_be_to_cpu_32(s->first_term);
		if (m->data_len <
			    hl + sizeof(*s) + n * DP_SUMMARY_WORDS * 8ULL ||
		    t0 + n > x->pl->topo.nterms)
			break;
		for (uint32_t k = 0; k < n; k++)
			for (int q = 0; q < DP_SUMMARY_WORDS; q++) {
				uint64_t v; /* unaligned in the frame */
				memcpy(&v,
				       e + (DP_SUMMARY_WORDS * k + q) *
						       sizeof(v),
				       sizeof(v));
				x->rrx[t0 + k][q] += rte_be_to_cpu_64(v);
			}
		break;
	}
	default:
		break;
	}
out:
	rte_pktmbuf_free(m);
}

int emu_inst_poll(struct emu_inst *x, const struct emu_inst_local *l,
		  uint64_t now, struct df_report *rep, uint32_t *newly_lost)
{
	const struct df_config *c = &x->pl->cfg;
	uint64_t limit =
		(uint64_t)(x->hz * (double)c->part_peer_timeout_ms / 1e3);
	struct rte_mbuf *m;
	char why[128];

	/* this instance itself was stopped for a while (SIGSTOP, a host
	 * that did not run it): its peers' silence is its own; it waits a
	 * full timeout again before it blames them */
	if (x->last_poll && now - x->last_poll > limit / 2)
		x->resumed = now;
	x->last_poll = now;
	while (rte_ring_sc_dequeue(x->b.ctl_rx, (void **)&m) == 0)
		take_ctl(x, m, now);
	if (now >= x->next_stats) {
		send_stats(x, l);
		x->next_stats = now + (uint64_t)(x->hz * STATS_EVERY_MS / 1e3);
	}
	for (uint32_t j = 0; j < c->ninst; j++) {
		struct peer_state *ps = &x->ps[j];
		uint64_t since = ps->st_at ? ps->st_at : x->started;
		uint64_t rx = __atomic_load_n(&x->b.peer[j].rx_frames,
					      __ATOMIC_RELAXED);

		/* any frame its worker sent (DATA, CREDIT, SYNC) says it
		 * lives, not only the STATS its main lcore sends every few
		 * ms, which pass two main lcores and wait behind its data
		 * (on a host with a busy loop on every core, two instances
		 * crawling at 0.03 emulated s per wall s took each other
		 * for lost) */
		if (rx != ps->rx_seen) {
			ps->rx_seen = rx;
			ps->rx_at = now;
		}
		if (ps->rx_at > since)
			since = ps->rx_at;
		if (x->resumed > since)
			since = x->resumed;
		if (j == c->instance || ps->done || ps->lost ||
		    now - since < limit)
			continue;
		snprintf(why, sizeof(why),
			 "nothing from it for %llu ms ([partition] "
			 "peer_timeout_ms)",
			 (unsigned long long)c->part_peer_timeout_ms);
		mark_lost(x, j, now, why);
	}
	*newly_lost = x->newly_lost;
	x->newly_lost = 0;
	if (x->excluded_by >= 0) {
		snprintf(rep->part.lost_peer, sizeof(rep->part.lost_peer),
			 "instance %d took this instance as lost (it heard "
			 "nothing from it for [partition] peer_timeout_ms); "
			 "the others went on without it",
			 x->excluded_by);
		return -1;
	}
	return 0;
}

void emu_inst_announce(struct emu_inst *x, const struct emu_change *ch)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost)
			inst_send_ctl(x, dp_bridge_change(
						 &x->b, j,
						 (enum dp_change_kind)ch->kind,
						 ch->n, (uint8_t)ch->op,
						 (uint16_t)ch->event, ch->arg));
}

int emu_inst_next_change(const struct emu_inst *x, struct emu_change *ch)
{
	if (x->chq_head == x->chq_tail)
		return 0;
	*ch = x->chq[x->chq_head % CHANGES_KEPT];
	return 1;
}

void emu_inst_change_taken(struct emu_inst *x)
{
	x->chq_head++;
}

int emu_inst_prepared(const struct emu_inst *x, uint32_t v)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (x->ps[j].st_at == 0 ||
		     x->ps[j].st.prepared != (uint16_t)v))
			return 0;
	return 1;
}

int emu_inst_settled(const struct emu_inst *x, uint32_t n)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (x->ps[j].st_at == 0 || x->ps[j].st.settled < n))
			return 0;
	return 1;
}

const char *emu_inst_lost(const struct emu_inst *x, uint32_t j)
{
	return j < DF_MAX_INST && x->ps[j].lost ? x->ps[j].lost_why : NULL;
}
