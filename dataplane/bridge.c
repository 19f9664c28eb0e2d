/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge between dfemu instances (bridge.h): DATA and CREDIT frames
 * out of the links that cross to a peer and back into them.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "bridge.h"
#include "packet.h"
#include "tables.h"
#include "worker.h"

#define CREDITS_PER_FRAME 64
#define DATA_HDR                                                      \
	(sizeof(struct rte_ether_hdr) + sizeof(struct dp_encap_hdr) + \
	 sizeof(struct dp_encap_data))

/* The dfemu header of a frame (after its outer Ethernet header). */
static inline struct dp_encap_hdr *encap_hdr(struct rte_mbuf *m)
{
	return (struct dp_encap_hdr *)(rte_pktmbuf_mtod(
					       m, struct rte_ether_hdr *) +
				       1);
}

/* The outer Ethernet and dfemu header, in front of the body. */
static void put_hdr(struct dp_bridge *b, uint32_t peer, void *at,
		    enum dp_encap_type type, uint16_t count)
{
	struct rte_ether_hdr *eh = at;
	struct dp_encap_hdr *h = (struct dp_encap_hdr *)(eh + 1);

	rte_ether_addr_copy(&b->mac[peer], &eh->dst_addr);
	rte_ether_addr_copy(&b->mac[b->self], &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(DP_ENCAP_ETHERTYPE);
	h->magic = rte_cpu_to_be_32(DP_ENCAP_MAGIC);
	h->version = DP_ENCAP_VERSION;
	h->type = (uint8_t)type;
	h->src_instance = (uint8_t)b->self;
	h->dst_instance = (uint8_t)peer;
	h->seq = rte_cpu_to_be_32(b->peer[peer].seq[type]++);
	h->count = rte_cpu_to_be_16(count);
	h->reserved = 0;
}

struct rte_mbuf *dp_bridge_frame(struct dp_bridge *b, uint32_t peer,
				 enum dp_encap_type type, uint32_t len,
				 uint16_t count, void **body)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(b->pool);
	uint32_t hl =
		sizeof(struct rte_ether_hdr) + sizeof(struct dp_encap_hdr);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)(hl + len));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	put_hdr(b, peer, p, type, count);
	*body = p + hl;
	return m;
}

struct rte_mbuf *dp_bridge_change(struct dp_bridge *b, uint32_t peer,
				  enum dp_change_kind kind, uint32_t n,
				  uint8_t op, uint16_t event, const char *arg)
{
	struct dp_encap_change *ch;
	void *body;
	struct rte_mbuf *m = dp_bridge_frame(b, peer, DP_ENCAP_CHANGE,
					     sizeof(*ch), 0, &body);

	if (m == NULL)
		return NULL;
	ch = body;
	memset(ch, 0, sizeof(*ch));
	ch->n = rte_cpu_to_be_32(n);
	ch->op = op;
	ch->kind = (uint8_t)kind;
	ch->event = rte_cpu_to_be_16(event);
	snprintf(ch->arg, sizeof(ch->arg), "%s", arg);
	return m;
}

const struct dp_encap_hdr *dp_bridge_hdr(const struct dp_bridge *b,
					 struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	const struct dp_encap_hdr *h;

	if (m->data_len < sizeof(*eh) + sizeof(*h))
		return NULL;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	h = (const struct dp_encap_hdr *)(eh + 1);
	if (eh->ether_type != rte_cpu_to_be_16(DP_ENCAP_ETHERTYPE) ||
	    h->magic != rte_cpu_to_be_32(DP_ENCAP_MAGIC) ||
	    h->version != DP_ENCAP_VERSION || h->dst_instance != b->self ||
	    h->src_instance >= DP_MAX_INSTANCES ||
	    !b->peer[h->src_instance].used)
		return NULL;
	return h;
}

/* Frames for a lost peer: freed, counted. */
static void discard(struct dp_peer *p, struct rte_mbuf **m, uint32_t n)
{
	rte_pktmbuf_free_bulk(m, n);
	p->discarded += n;
}

void dp_bridge_send(struct dp_bridge *b, uint32_t peer, struct rte_mbuf **m,
		    uint32_t n)
{
	struct dp_peer *p = &b->peer[peer];
	uint16_t k;

	if (unlikely(p->lost)) {
		discard(p, p->pend, p->npend);
		p->npend = 0;
		/* but STATS still go: they tell it (if it only stalled) that
		 * it is taken as lost, and it ends (emu/peer_sync.c) */
		if (n == 1 && encap_hdr(m[0])->type == DP_ENCAP_STATS &&
		    rte_eth_tx_burst(p->port, 0, m, 1) == 1)
			return;
		discard(p, m, n);
		return;
	}
	if (p->npend) {
		k = rte_eth_tx_burst(p->port, 0, p->pend, (uint16_t)p->npend);
		p->tx_frames += k;
		memmove(p->pend, p->pend + k,
			(p->npend - k) * sizeof(p->pend[0]));
		p->npend -= k;
	}
	k = 0;
	if (p->npend == 0 && n)
		k = rte_eth_tx_burst(p->port, 0, m, (uint16_t)n);
	p->tx_frames += k;
	if (k < n)
		p->tx_stalls++;
	/* data and credits wait while anything is pending, so what the
	 * port refused of theirs fits; a control frame queues behind a
	 * backlog, and a peer that takes nothing for long (gone, not yet
	 * taken as lost) fills it: then the frame is dropped, counted
	 * (STATS come again; HELLO, SUMMARY and DONE go to live peers) */
	for (; k < n && p->npend < RTE_DIM(p->pend); k++)
		p->pend[p->npend++] = m[k];
	for (; k < n; k++)
		rte_pktmbuf_free(m[k]), p->ctl_dropped++;
}

/* A packet that left a link toward a peer, in a DATA frame (the frame
 * itself is not rewritten: the headers go in front of it). */
static int encap_data(struct dp_bridge *b, uint32_t li, struct rte_mbuf *m)
{
	const struct dp_pkt *pk = dp_pkt(m);
	uint32_t peer = b->peer_of[li];
	char *p = rte_pktmbuf_prepend(m, DATA_HDR);
	struct dp_encap_data *d;

	if (p == NULL)
		return -1;
	put_hdr(b, peer, p, DP_ENCAP_DATA, 1);
	d = (struct dp_encap_data *)(p + DATA_HDR - sizeof(*d));
	d->link = rte_cpu_to_be_32(li);
	d->due = rte_cpu_to_be_64(pk->due_tsc);
	d->tail = rte_cpu_to_be_64(pk->tail_tsc);
	d->gen = rte_cpu_to_be_64(pk->gen_tsc);
	d->src_term = rte_cpu_to_be_32(pk->src_term);
	d->dst_term = rte_cpu_to_be_32(pk->dst_term);
	d->seq = rte_cpu_to_be_32(pk->seq);
	d->dst_router = rte_cpu_to_be_16(pk->dst_router);
	d->inter = rte_cpu_to_be_16(pk->inter);
	d->flits = rte_cpu_to_be_16(pk->flits);
	d->phase = pk->phase;
	d->vc = pk->vc;
	d->hops = pk->hops;
	d->flags = pk->flags;
	d->esc_n = pk->esc_n;
	/* at least the version it was routed under (the switch is ours) */
	d->tbv = (uint8_t)b->run->tb_version;
	d->reserved = 0;
	d->eng = rte_cpu_to_be_64(pk->eng.u64);
	b->peer[peer].msent += (pk->flags & DP_PKT_MEASURED) != 0;
	return 0;
}

/* The next table version in use here, now (worker.h); nothing if it is
 * not prepared. */
static void switch_tables(struct dp_bridge *b)
{
	struct dp_run *run = b->run;
	const struct df_tables *nt = run->tb_next;

	if (nt == NULL)
		return;
	__atomic_store_n(&run->tb, nt, __ATOMIC_RELEASE);
	run->tb_next = NULL;
	__atomic_store_n(&run->tb_version, run->tb_version + 1,
			 __ATOMIC_RELEASE);
}

/* Instance 0: the version its main lcore commits, to every peer left
 * (before any packet routed under it can leave), then in use here. */
static void commit(struct dp_bridge *b)
{
	struct dp_run *run = b->run;

	if (run->tb_commit != run->tb_version + 1 || run->tb_next == NULL)
		return;
	for (uint32_t peer = 0; peer < DP_MAX_INSTANCES; peer++) {
		struct rte_mbuf *m;

		if (!b->peer[peer].used || b->peer[peer].lost)
			continue;
		m = dp_bridge_change(b, peer, DP_CHANGE_COMMIT, run->tb_commit,
				     0, 0, "");
		if (m == NULL)
			return; /* no mbuf now: the next sweep */
		dp_bridge_send(b, peer, &m, 1);
	}
	switch_tables(b);
}

/* Up to a burst of the packets that left on l, due or not (the peer
 * releases them when due). */
static uint32_t take_departed(struct dp_link *l, struct rte_mbuf **m)
{
	const struct dp_vcslot *f;
	uint32_t n = 0;

	while (n < DP_BRIDGE_BURST && (f = dp_link_peek(l)) != NULL) {
		m[n++] = f->m; /* its slot waits for the peer's credit */
		dp_link_pop(l);
	}
	return n;
}

/* Up to max of the credits returned on l, due or not. */
static uint32_t take_returned(struct dp_link *l, struct dp_credit *c,
			      uint32_t max)
{
	uint32_t n = 0;

	while (n < max && dp_link_credit_peek(l, &c[n])) {
		dp_link_credit_pop(l);
		n++;
	}
	return n;
}

/* Packets that left toward peers: off their links, onto the ports. */
static unsigned send_data(struct dp_bridge *b)
{
	struct rte_mbuf *m[DP_BRIDGE_BURST];
	unsigned work = 0;

	for (uint32_t i = 0; i < b->nout; i++) {
		uint32_t li = b->out[i], peer = b->peer_of[li], n, k = 0;
		struct dp_peer *p = &b->peer[peer];

		if (p->npend && !p->lost) /* the port is behind: wait */
			continue;
		n = take_departed(&b->links[li], m);
		for (uint32_t j = 0; j < n; j++)
			if (encap_data(b, li, m[j]) == 0)
				m[k++] = m[j];
			else /* no headroom: the pool's mbufs all have it */
				rte_pktmbuf_free(m[j]), b->bad_frames++;
		p->sent += k;
		if (k)
			dp_bridge_send(b, peer, m, k);
		work += n;
	}
	return work;
}

/* CREDIT frames being filled, one per peer. */
struct credit_frames {
	struct rte_mbuf *f[DP_MAX_INSTANCES];
	struct dp_encap_credit *body[DP_MAX_INSTANCES];
	uint32_t cnt[DP_MAX_INSTANCES];
};

/* Peer's frame out, with the count it holds (NULL-safe). */
static void credit_flush(struct dp_bridge *b, struct credit_frames *cf,
			 uint32_t peer)
{
	struct rte_mbuf *m = cf->f[peer];
	struct dp_encap_hdr *h;

	if (m == NULL)
		return;
	cf->f[peer] = NULL;
	h = encap_hdr(m);
	h->count = rte_cpu_to_be_16((uint16_t)cf->cnt[peer]);
	rte_pktmbuf_trim(m, (uint16_t)((CREDITS_PER_FRAME - cf->cnt[peer]) *
				       sizeof(struct dp_encap_credit)));
	cf->cnt[peer] = 0;
	dp_bridge_send(b, peer, &m, 1);
}

/* Credits the routers here returned on links from peers: as many as a
 * frame holds per peer per sweep. */
static unsigned send_credits(struct dp_bridge *b)
{
	struct credit_frames cf = {0};
	struct dp_credit c[DP_BRIDGE_BURST];
	unsigned work = 0;

	for (uint32_t i = 0; i < b->nin; i++) {
		uint32_t li = b->in[i], peer = b->peer_of[li], n;
		struct dp_peer *p = &b->peer[peer];
		void *bp;

		if ((p->npend && !p->lost) ||
		    cf.cnt[peer] == CREDITS_PER_FRAME ||
		    !dp_link_credit_any(&b->links[li]))
			continue;
		if (cf.f[peer] == NULL) {
			cf.f[peer] = dp_bridge_frame(
				b, peer, DP_ENCAP_CREDIT,
				CREDITS_PER_FRAME *
					sizeof(struct dp_encap_credit),
				0, &bp);
			if (cf.f[peer] == NULL)
				continue; /* no mbuf now: the credits wait */
			cf.body[peer] = bp;
		}
		n = CREDITS_PER_FRAME - cf.cnt[peer];
		if (n > DP_BRIDGE_BURST)
			n = DP_BRIDGE_BURST;
		n = take_returned(&b->links[li], c, n);
		for (uint32_t j = 0; j < n; j++) {
			struct dp_encap_credit *e =
				&cf.body[peer][cf.cnt[peer]++];
			e->link = rte_cpu_to_be_32(li);
			e->vc = (uint8_t)c[j].vc;
			e->pad = 0;
			e->flits = rte_cpu_to_be_16((uint16_t)c[j].flits);
			e->due = rte_cpu_to_be_64(c[j].due);
		}
		p->csent += n;
		work += n;
	}
	for (uint32_t peer = 0; peer < DP_MAX_INSTANCES; peer++)
		credit_flush(b, &cf, peer);
	return work;
}

/* Does link li cross to peer in this role (a frame can name any)? */
static inline int from_peer(const struct dp_bridge *b, uint32_t li,
			    uint8_t role, uint32_t peer)
{
	return li < b->nlinks && b->role[li] == role && b->peer_of[li] == peer;
}

/* A peer's due time, here, in the step at now (or the wait after it):
 * after now, as the peers keep in step (SYNC); one that is not would be
 * handled at the next step, not lost, and counted. */
static inline uint64_t due_here(struct dp_bridge *b, uint64_t due, uint64_t now)
{
	if (unlikely(due <= now))
		b->late++;
	return dp_after(due, now);
}

/* A DATA frame from a peer: the packet onto its link, due here. */
static void take_data(struct dp_bridge *b, const struct dp_encap_hdr *h,
		      struct rte_mbuf *m, uint64_t now)
{
	const struct dp_encap_data *d = (const void *)(h + 1);
	struct dp_peer *p = &b->peer[h->src_instance];
	uint32_t li;
	struct dp_pkt *pk;

	if (m->data_len < DATA_HDR)
		goto bad;
	li = rte_be_to_cpu_32(d->link);
	if (!from_peer(b, li, DP_LINK_IN, h->src_instance))
		goto bad;
	/* routed under the next tables: they are in use here before it
	 * is (no packet goes from a table version to the one before) */
	if (unlikely(d->tbv == (uint8_t)(b->run->tb_version + 1)))
		switch_tables(b);
	pk = dp_pkt(m);
	pk->src_term = rte_be_to_cpu_32(d->src_term);
	pk->dst_term = rte_be_to_cpu_32(d->dst_term);
	pk->seq = rte_be_to_cpu_32(d->seq);
	pk->dst_router = rte_be_to_cpu_16(d->dst_router);
	pk->inter = rte_be_to_cpu_16(d->inter);
	pk->flits = rte_be_to_cpu_16(d->flits);
	pk->phase = d->phase;
	pk->vc = d->vc;
	pk->out_port = DF_PORT_NONE;
	pk->out_vc = 0;
	pk->hops = d->hops;
	pk->flags = d->flags;
	pk->esc_n = d->esc_n;
	pk->eng.u64 = rte_be_to_cpu_64(d->eng);
	pk->due_tsc = due_here(b, rte_be_to_cpu_64(d->due), now);
	pk->gen_tsc = rte_be_to_cpu_64(d->gen);
	pk->tail_tsc = rte_be_to_cpu_64(d->tail);
	rte_pktmbuf_adj(m, DATA_HDR);
	p->recv++;
	p->mrecv += (pk->flags & DP_PKT_MEASURED) != 0;
	if (unlikely(dp_link_push(&b->links[li], pk->vc, m, pk->flits,
				  pk->due_tsc) != 0)) {
		/* a ring holds its VC's whole buffer: cannot happen unless
		 * the peer ignores credits or names a VC the link has not;
		 * counted, never silent */
		b->enq_fail++;
		rte_pktmbuf_free(m);
	}
	return;
bad:
	b->unknown_link++;
	rte_pktmbuf_free(m);
}

/* A CREDIT frame: each credit onto its link, due here. */
static void take_credits(struct dp_bridge *b, const struct dp_encap_hdr *h,
			 struct rte_mbuf *m, uint64_t now)
{
	const struct dp_encap_credit *e = (const void *)(h + 1);
	struct dp_peer *p = &b->peer[h->src_instance];
	uint32_t n = rte_be_to_cpu_16(h->count);
	size_t need = sizeof(struct rte_ether_hdr) + sizeof(*h) +
		      (size_t)n * sizeof(*e);

	if (m->data_len < need) {
		b->unknown_link++;
		goto out;
	}
	for (uint32_t j = 0; j < n; j++) {
		uint32_t li = rte_be_to_cpu_32(e[j].link);
		if (!from_peer(b, li, DP_LINK_OUT, h->src_instance)) {
			b->unknown_link++;
			continue;
		}
		if (dp_link_credit_at(
			    &b->links[li],
			    due_here(b, rte_be_to_cpu_64(e[j].due), now),
			    e[j].vc, rte_be_to_cpu_16(e[j].flits), now))
			b->enq_fail++;
		p->crecv++;
	}
out:
	rte_pktmbuf_free(m);
}

/* A COMMIT (instance 0's bridge switched to table version n): the same
 * here, now. Returns 0 for another CHANGE, which the main lcore takes. */
static int take_commit(struct dp_bridge *b, const struct dp_encap_hdr *h,
		       const struct rte_mbuf *m)
{
	const struct dp_encap_change *ch = (const void *)(h + 1);

	if (m->data_len <
		    sizeof(struct rte_ether_hdr) + sizeof(*h) + sizeof(*ch) ||
	    ch->kind != DP_CHANGE_COMMIT)
		return 0;
	if (rte_be_to_cpu_32(ch->n) == b->run->tb_version + 1)
		switch_tables(b);
	return 1;
}

/* A SYNC: the peer's clock, for every worker here (worker.c, allowed);
 * the frames before it, which it covers, are on their links already. */
static void take_sync(struct dp_bridge *b, const struct dp_encap_hdr *h,
		      struct rte_mbuf *m)
{
	const struct dp_encap_sync *sy = (const void *)(h + 1);
	struct dp_peer *p = &b->peer[h->src_instance];

	if (m->data_len >=
	    sizeof(struct rte_ether_hdr) + sizeof(*h) + sizeof(*sy)) {
		uint64_t c = rte_be_to_cpu_64(sy->clock);
		uint32_t n = rte_be_to_cpu_32(sy->ckpts);

		p->cpu = (int32_t)rte_be_to_cpu_32(sy->cpu);
		/* its checkpoints before its clock: a worker allowed on by
		 * this clock finds them (worker.c, peer_ckpt) */
		for (uint32_t k = 0; k < 2 && k < n; k++) {
			struct dp_peer_ckpt *e =
				&p->ckpt[(n - 1 - k) % DP_CKPTS];

			e->gen = rte_be_to_cpu_64(sy->gen[k]);
			e->in = rte_be_to_cpu_64(sy->in[k]);
			__atomic_store_n(&e->n, (uint64_t)n - k,
					 __ATOMIC_RELEASE);
		}
		if (c > p->clock)
			__atomic_store_n(&p->clock, c, __ATOMIC_RELEASE);
	} else {
		b->unknown_link++;
	}
	rte_pktmbuf_free(m);
}

/* How far this instance's clock has run: the slowest worker's, the
 * caller's being now (its step at now is done). */
static uint64_t local_clock(const struct dp_bridge *b, uint64_t now)
{
	const struct dp_run *run = b->run;
	uint64_t c = now;

	for (uint32_t w = 0; w < run->nworkers; w++) {
		const struct dp_lcore *o = run->lcs[w];
		uint64_t x;

		if (o->bridge == b)
			continue;
		x = __atomic_load_n(&o->clock, __ATOMIC_ACQUIRE);
		if (x < c)
			c = x;
	}
	return c;
}

/* The checkpoints every worker here has taken, read after their clocks
 * (a worker takes a checkpoint before it moves its clock past it), and
 * the measured counts at the last two, summed over the workers, into a
 * SYNC. A worker is at most one checkpoint ahead of the slowest (each
 * waits for all at the one before: worker.c, ckpt_take), so the ring
 * still holds both. */
static void sync_ckpts(const struct dp_bridge *b, struct dp_encap_sync *sy)
{
	const struct dp_run *run = b->run;
	uint32_t n = UINT32_MAX;
	uint64_t gen[2] = {0, 0}, in[2] = {0, 0};

	for (uint32_t w = 0; w < run->nworkers; w++) {
		uint32_t x =
			__atomic_load_n(&run->lcs[w]->ckpt_n, __ATOMIC_ACQUIRE);
		if (x < n)
			n = x;
	}
	for (uint32_t w = 0; w < run->nworkers; w++)
		for (uint32_t k = 0; k < 2 && k < n; k++) {
			const struct dp_ckpt *c =
				&run->lcs[w]->ckpt[(n - 1 - k) % DP_CKPTS];

			gen[k] += c->gen;
			in[k] += c->in;
		}
	sy->ckpts = rte_cpu_to_be_32(n);
	for (uint32_t k = 0; k < 2; k++) {
		sy->gen[k] = rte_cpu_to_be_64(gen[k]);
		sy->in[k] = rte_cpu_to_be_64(in[k]);
	}
}

/* Has everything the steps so far sent toward the peers left on the
 * ports (or in their backlogs, which keep their order)? */
static int all_sent(struct dp_bridge *b)
{
	for (uint32_t i = 0; i < b->nout; i++)
		if (dp_link_peek(&b->links[b->out[i]]) != NULL)
			return 0;
	for (uint32_t i = 0; i < b->nin; i++)
		if (dp_link_credit_any(&b->links[b->in[i]]))
			return 0;
	return 1;
}

/* A SYNC with this instance's clock to each peer it has moved on for,
 * once what the steps up to it sent has gone: the workers' clocks are
 * read first, so every packet and credit those steps sent is on its
 * link by then (SimBricks' sync messages; docs/instances.md). */
static void send_sync(struct dp_bridge *b, uint64_t now)
{
	uint64_t c = local_clock(b, now);

	if (b->sync_off || !all_sent(b))
		return;
	if (b->cpu < 0)
		b->cpu = sched_getcpu();
	for (uint32_t peer = 0; peer < DP_MAX_INSTANCES; peer++) {
		struct dp_peer *p = &b->peer[peer];
		struct dp_encap_sync *sy;
		struct rte_mbuf *m;
		void *body;

		/* behind a backlog it would wait, and could fill it: the
		 * next look sends a later clock */
		if (!p->used || p->lost || p->synced >= c || p->npend)
			continue;
		m = dp_bridge_frame(b, peer, DP_ENCAP_SYNC, sizeof(*sy), 0,
				    &body);
		if (m == NULL)
			return; /* no mbuf now: the next look */
		sy = body;
		sy->clock = rte_cpu_to_be_64(c);
		sy->cpu = rte_cpu_to_be_32((uint32_t)b->cpu);
		sync_ckpts(b, sy);
		p->synced = c;
		dp_bridge_send(b, peer, &m, 1);
	}
}

static void handle(struct dp_bridge *b, struct rte_mbuf *m, uint64_t now)
{
	const struct dp_encap_hdr *h = dp_bridge_hdr(b, m);

	if (h == NULL) {
		b->bad_frames++;
		rte_pktmbuf_free(m);
	} else if (unlikely(b->peer[h->src_instance].lost)) {
		/* taken as lost: its accounting is closed
		 * (emu/peer_accounting.c) */
		b->peer[h->src_instance].ignored++;
		rte_pktmbuf_free(m);
	} else if (h->type == DP_ENCAP_DATA) {
		take_data(b, h, m, now);
	} else if (h->type == DP_ENCAP_CREDIT) {
		take_credits(b, h, m, now);
	} else if (h->type == DP_ENCAP_SYNC) {
		take_sync(b, h, m);
	} else if (h->type == DP_ENCAP_CHANGE && take_commit(b, h, m)) {
		rte_pktmbuf_free(m);
	} else if (rte_ring_sp_enqueue(b->ctl_rx, m) != 0) {
		b->bad_frames++; /* main is far behind */
		rte_pktmbuf_free(m);
	}
}

static unsigned receive(struct dp_bridge *b, uint64_t now)
{
	struct rte_mbuf *m[DP_BRIDGE_BURST];
	unsigned work = 0, n;

	/* frames a peer that started first sent during our handshake */
	while ((n = rte_ring_sc_dequeue_burst(b->early, (void **)m,
					      DP_BRIDGE_BURST, NULL)) > 0) {
		for (unsigned j = 0; j < n; j++)
			handle(b, m[j], now);
		work += n;
	}
	for (uint32_t peer = 0; peer < DP_MAX_INSTANCES; peer++) {
		struct dp_peer *p = &b->peer[peer];

		if (!p->used)
			continue;
		n = rte_eth_rx_burst(p->port, 0, m, DP_BRIDGE_BURST);
		p->rx_frames += n;
		for (unsigned j = 0; j < n; j++)
			handle(b, m[j], now);
		work += n;
	}
	return work;
}

unsigned dp_bridge_step(struct dp_bridge *b, uint64_t now)
{
	unsigned work;
	struct rte_mbuf *m;

	if (unlikely(b->self == 0 && b->run->tb_commit != b->run->tb_version))
		commit(b); /* only instance 0 commits */
	work = receive(b, now);
	work += send_data(b);
	work += send_credits(b);
	send_sync(b, now);
	for (uint32_t peer = 0; peer < DP_MAX_INSTANCES; peer++)
		if (b->peer[peer].used)
			dp_bridge_send(b, peer, NULL, 0); /* the backlog */
	/* control frames: one peer's backlog must not hold up another's
	 * (a peer that went away would silence this instance to all) */
	while (rte_ring_sc_dequeue(b->ctl_tx, (void **)&m) == 0) {
		dp_bridge_send(b, encap_hdr(m)->dst_instance, &m, 1);
		work++;
	}
	return work;
}
