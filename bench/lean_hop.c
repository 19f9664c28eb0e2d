/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-lean-hop: the minimal loop a router hop is measured against
 * (docs/hop.md, "The minimal loop"). The hop bench's network and
 * traffic (`dfemu-bench hops`: the 36-router dragonfly p=2 a=4 h=2 g=9,
 * MIN, zero-latency links of unlimited bandwidth, one-flit packets,
 * saturated terminals, one worker), with the semantics dfemu keeps and
 * none of its generality:
 *
 *   - exact time: every node steps once per quantum, and what a step
 *     sends is due after it (dfemu's dp_after);
 *   - one ring per link and VC that is at once the delay line, the input
 *     VC queue and the credit path, dataplane/vcring.h's: the receiver
 *     routes and sends from the slot where the packet arrived and frees
 *     it with the time its credit is due upstream; the sender counts its
 *     credits from the freed slots (virtual cut-through: a whole
 *     packet's room);
 *   - switch allocation as router.c's: one packet per input queue per
 *     step, round-robin from the one after the last that moved, and a
 *     round-robin pointer at each output that a queue before it waits
 *     for in a second pass;
 *   - at delivery, a latency histogram and an order-free digest.
 *
 * Three rules keep its data-dependent branches few (docs/hop.md,
 * "The minimal loop"): a sender counts the credits in the freed slots
 * only when the flits it has counted are too few (vcring.h's
 * dp_vcring_fits); a route is one lookup in a table made from the
 * routing rule; and the scan for due queues sets their bits without a
 * branch.
 *
 * No mbufs, frames, wheel, capture, faults or instances: what is left
 * is the floor a hop with these semantics stands on. Plain C, no DPDK
 * (vcring.h has none either).
 * Usage: dfemu-lean-hop [STEPS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "vcring.h"

#define P     2
#define A     4
#define H     2
#define G     9 /* a * h + 1: one global link between each two groups */
#define NR    (A * G)
#define NT    (P * NR)
#define NP    (P + A - 1 + H) /* terminals, local, global */
#define GPORT (P + A - 1)     /* the first global port */
#define NVC   2
#define CAP   64 /* slots per ring: a 64-flit buffer of one-flit packets */
#define NLINK (2 * (NT + NR * (NP - P)))

/* route[]: plus the destination terminal; VC 1 after a global link */
enum { ROUTE_TERM = 0x10, ROUTE_VC = 0x20 };

/* A packet by value: in a slot, its generation time is the word and its
 * source and destination terminals the aux. */
#define AUX(src, dst) ((src) | (dst) << 16)
#define SRC(aux)      ((aux)&0xffff)
#define DST(aux)      ((aux) >> 16)

struct link {
	struct dp_vcring r; /* its rings, one per VC */
	/* the sender's: */
	uint64_t busy_until; /* the serializer */
	uint64_t lat, clat;  /* latency, credit latency */
	struct dp_vccredit cr[NVC];
};

struct port {
	struct link *out, *in;
	uint32_t arb; /* the queue that comes first at this output */
};

struct router {
	/* the route to each router: its port, | ROUTE_TERM: plus the
	 * destination terminal's index there, | ROUTE_VC: on VC 1 when the
	 * packet came in on a global link */
	uint8_t route[NR];
	/* the input rings in use (local links have two VCs, the others
	 * one), and each one's queue index port * NVC + vc */
	struct dp_vcring *in[NP * NVC];
	uint8_t inv[NP * NVC], qi[NP * NVC];
	uint32_t nin;
	uint32_t grp, idx, rr;
	uint64_t forwarded;
	struct port port[NP];
};

struct term {
	uint32_t id;
	struct link *out, *in;
	uint64_t rng, generated;
};

static struct link links[NLINK];
static uint32_t nlinks;
static struct router routers[NR];
static struct term terms[NT];
static uint64_t lat_hist[64], lat_sum, digest, delivered;

static struct link *new_link(void)
{
	struct link *l = &links[nlinks++];
	/* two slots a line: aligned */
	struct dp_vcslot *s = aligned_alloc(64, NVC * CAP * sizeof(*s));

	if (s == NULL)
		abort();
	memset(s, 0, NVC * CAP * sizeof(*s));
	dp_vcring_init(&l->r, s, NVC, CAP);
	for (int v = 0; v < NVC; v++)
		dp_vccredit_init(&l->cr[v], CAP);
	return l;
}

static inline uint64_t after(uint64_t due, uint64_t now)
{
	return due > now ? due : now + 1;
}

/* Packet (word, aux) onto link l's VC v in the step at now. */
static inline void send(struct link *l, uint32_t v, uint64_t word, uint32_t aux,
			uint64_t now)
{
	dp_vcring_push_word(&l->r, v, &l->cr[v], word, 1, aux,
			    after(now + l->lat, now));
}

/* MIN ([DF] §4.1): local, global, local; the local hop in the
 * destination group on VC 1, the others on VC 0. Run once per router
 * and destination router, to fill the table route() reads. */
static void route_rule(const struct router *r, uint32_t dst, int in_global,
		       uint32_t *port, uint32_t *vc)
{
	uint32_t d = dst / P, dg = d / A, c, owner;

	*vc = 0;
	if (dg == r->grp) {
		if (d % A == r->idx) {
			*port = dst % P;
			return;
		}
		*port = P + (d % A < r->idx ? d % A : d % A - 1);
		*vc = in_global;
		return;
	}
	c = (dg + G - r->grp - 1) % G;
	owner = c / H;
	if (owner == r->idx)
		*port = GPORT + c % H;
	else
		*port = P + (owner < r->idx ? owner : owner - 1);
}

/* route_rule() from the table, without a branch: a branch on a random
 * destination is mispredicted about half the time. */
static inline void route(const struct router *r, uint32_t dst, int in_global,
			 uint32_t *port, uint32_t *vc)
{
	uint32_t e = r->route[dst / P];

	*port = (e & 0xf) + ((dst % P) & -((e & ROUTE_TERM) != 0));
	*vc = (uint32_t)in_global & ((e & ROUTE_VC) != 0);
}

/* Does queue qi come before pointer a in this step's order from start? */
static inline int before(uint32_t qi, uint32_t a, uint32_t start, uint32_t nq)
{
	return (qi >= start ? qi - start : qi + nq - start) <
	       (a >= start ? a - start : a + nq - start);
}

static unsigned router_step(struct router *r, uint64_t now)
{
	const uint32_t nq = NP * NVC;
	uint32_t start = r->rr, last = UINT32_MAX;
	uint64_t want = 0, later = 0;
	unsigned moved = 0;

	/* An empty ring's head slot is stale but readable. */
	for (uint32_t i = 0; i < r->nin; i++) {
		struct dp_vcring *q = r->in[i];
		uint32_t v = r->inv[i];

		want |= (uint64_t)((dp_vcring_count(q, v) != 0) &
				   (dp_vcring_head(q, v)->due <= now))
			<< r->qi[i];
	}
	for (int pass = 0; pass < 2 && want; pass++) {
		for (int round = 0; round < 2; round++) {
			uint64_t w = want;

			/* from start upward, then from 0 */
			if (round == 0)
				w &= ~0ULL << start;
			else
				w &= (1ULL << start) - 1;
			for (; w; w &= w - 1) {
				uint32_t qi = (uint32_t)__builtin_ctzll(w);
				uint32_t k = qi / NVC, v = qi % NVC, op, ov;
				struct dp_vcring *q = &r->port[k].in->r;
				const struct dp_vcslot *s =
					dp_vcring_head(q, v);
				struct port *o;

				route(r, DST(s->aux), k >= GPORT, &op, &ov);
				o = &r->port[op];
				if (pass == 0 &&
				    before(qi, o->arb, start, nq)) {
					later |= 1ULL << qi;
					continue;
				}
				if (o->out->busy_until > now ||
				    !dp_vcring_fits(&o->out->r, ov,
						    &o->out->cr[ov], 1, now))
					continue;
				send(o->out, ov, s->word, s->aux, now);
				dp_vcring_free(
					q, v,
					after(now + r->port[k].in->clat, now));
				o->arb = qi + 1 == nq ? 0 : qi + 1;
				last = qi;
				moved++;
			}
		}
		want = later;
		later = 0;
	}
	if (last != UINT32_MAX)
		r->rr = last + 1 == nq ? 0 : last + 1;
	r->forwarded += moved;
	return moved;
}

static inline uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Deliver what is due, then generate one packet if there is room. */
static void term_step(struct term *t, uint64_t now)
{
	struct dp_vcring *q = &t->in->r;
	uint32_t dst, n = dp_vcring_due(q, 0, now, CAP);

	for (uint32_t i = 0; i < n; i++) {
		const struct dp_vcslot *s = dp_vcring_at(q, 0, i);
		uint64_t l = now - s->word;

		lat_hist[l < 63 ? l : 63]++;
		lat_sum += l;
		digest += (SRC(s->aux) * 0x9e3779b97f4a7c15ULL) ^
			  (s->word + DST(s->aux));
	}
	delivered += n;
	dp_vcring_free_n(q, 0, n, after(now + t->in->clat, now));
	if (!dp_vcring_fits(&t->out->r, 0, &t->out->cr[0], 1, now))
		return;
	do
		dst = (uint32_t)(xorshift(&t->rng) % NT);
	while (dst == t->id);
	send(t->out, 0, now, AUX(t->id, dst), now);
	t->generated++;
}

static void link_pair(struct port *a, struct port *b)
{
	a->out = b->in = new_link();
	b->out = a->in = new_link();
}

static void build(void)
{
	for (uint32_t r = 0; r < NR; r++) {
		routers[r].grp = r / A;
		routers[r].idx = r % A;
	}
	for (uint32_t t = 0; t < NT; t++) {
		struct port *p = &routers[t / P].port[t % P];

		terms[t].id = t;
		terms[t].rng = 88172645463325252ULL + 7919ULL * t;
		terms[t].out = p->in = new_link();
		terms[t].in = p->out = new_link();
	}
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t i = 0; i < A; i++)
			for (uint32_t j = i + 1; j < A; j++)
				link_pair(&routers[g * A + i].port[P + j - 1],
					  &routers[g * A + j].port[P + i]);
	/* global channel c of group g goes to group (g + c + 1) % G */
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t c = 0; c < A * H; c++) {
			uint32_t g2 = (g + c + 1) % G,
				 c2 = (g + G - g2 - 1) % G;
			struct port *a =
				&routers[g * A + c / H].port[GPORT + c % H];
			struct port *b =
				&routers[g2 * A + c2 / H].port[GPORT + c2 % H];

			if (a->out == NULL)
				link_pair(a, b);
		}
	for (uint32_t r = 0; r < NR; r++)
		for (uint32_t k = 0; k < NP; k++)
			for (uint32_t v = 0;
			     v < (k >= P && k < GPORT ? NVC : 1); v++) {
				struct router *rt = &routers[r];

				rt->in[rt->nin] = &rt->port[k].in->r;
				rt->inv[rt->nin] = (uint8_t)v;
				rt->qi[rt->nin++] = (uint8_t)(k * NVC + v);
			}
	for (uint32_t r = 0; r < NR; r++)
		for (uint32_t d = 0; d < NR; d++) {
			struct router *rt = &routers[r];
			uint32_t port, vc0, vc1;

			route_rule(rt, d * P, 0, &port, &vc0);
			route_rule(rt, d * P, 1, &port, &vc1);
			rt->route[d] =
				(uint8_t)(port | (d == r ? ROUTE_TERM : 0) |
					  (vc1 ? ROUTE_VC : 0));
		}
}

/* Packets in the rings: sent and not yet freed. */
static uint64_t in_flight(void)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < nlinks; i++)
		for (int v = 0; v < NVC; v++)
			n += dp_vcring_count(&links[i].r, v);
	return n;
}

int main(int argc, char **argv)
{
	uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	uint64_t t0, cyc, hops = 0, gen = 0;

	build();
	t0 = __rdtsc();
	for (uint64_t now = 1; now <= steps; now++) {
		for (uint32_t t = 0; t < NT; t++)
			term_step(&terms[t], now);
		for (uint32_t r = 0; r < NR; r++)
			router_step(&routers[r], now);
	}
	cyc = __rdtsc() - t0;
	for (uint32_t r = 0; r < NR; r++)
		hops += routers[r].forwarded;
	for (uint32_t t = 0; t < NT; t++)
		gen += terms[t].generated;
	printf("%lu steps, %lu router hops (%.2f a router step), %lu "
	       "delivered, latency %.2f steps, digest %016lx\n",
	       steps, hops, (double)hops / steps / NR, delivered,
	       (double)lat_sum / delivered, digest);
	printf("%.1f TSC cycles per router hop; %s\n", (double)cyc / hops,
	       gen == delivered + in_flight() ? "every packet accounted for"
					      : "PACKETS LOST");
	printf("cycles_per_hop=%.1f hops=%lu\n", (double)cyc / hops, hops);
	return gen == delivered + in_flight() ? 0 : 1;
}
