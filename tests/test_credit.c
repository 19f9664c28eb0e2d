/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credit return of UGAL-L_CR ([DF] §4.3.2) driven directly on one router
 * (dataplane/credit.h and the engine's hooks, routing/ugal_cr.c: the
 * code the datapath runs), no EAL. Checks that a delayed
 * credit leaves exactly t_d(O) - min t_d after its packet, never for a
 * global input, in order per VC without blocking the other VCs, and that
 * over a long random run no credit is lost, duplicated or reordered.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lone_router.h"
#include "credit.h"
#include "eng_mem.h"
#include "ugal_cr.h"

#define NPORTS LONE_PORTS /* 0 terminal, 1 and 2 local, 3 global */
#define NVC    2
#define QSIZE  256
#define LAT    50 /* credit latency, TSC */
#define RINGSZ 4096

struct rig {
	struct dp_run run;
	struct dp_lcore *lc;
	struct dp_router *r;
	struct dp_link link[NPORTS]; /* link[k]: port k's incoming link */
	struct test_eng_mem mem;     /* the engine's state */
};

/* The engine's state of port k. */
static struct dp_cr_port *crp(struct rig *g, uint32_t k)
{
	return dp_cr_port(g->r, k);
}

static int rig_init(struct rig *g)
{
	struct dp_eng_mem mem;

	memset(g, 0, sizeof(*g));
	mem = test_eng_mem(&g->mem);
	if (lone_router(&g->run, &g->lc, &g->r))
		return -1;
	g->r->eng = &dp_ugal_l_cr_engine;
	for (int k = 0; k < NPORTS; k++) {
		struct dp_port *p = &g->r->port[k];

		struct dp_vcslot *s =
			calloc(dp_link_nslots(NVC, RINGSZ), sizeof(*s));
		uint8_t *vcs = calloc(NVC * RINGSZ, 1),
			*cvcs = calloc(NVC * RINGSZ, 1);

		if (s == NULL || vcs == NULL || cvcs == NULL)
			return -1;
		g->link[k].mask = NVC * RINGSZ - 1;
		g->link[k].credit_lat_tsc = LAT;
		dp_link_rings(&g->link[k], s, vcs, cvcs, NVC, RINGSZ);
		p->nvc = NVC;
		p->in = &g->link[k];
		for (int v = 0; v < NVC; v++)
			p->credit_full[v] = QSIZE;
	}
	return g->r->eng->init(g->r, NULL, &mem);
}

static void rig_free(struct rig *g)
{
	for (int k = 0; k < NPORTS && g->r; k++) {
		free(g->link[k].ring.tx.s[0]);
		free(g->link[k].vcs);
		free(g->link[k].cvcs);
	}
	test_eng_free(&g->mem);
	free(g->r);
	free(g->lc);
}

/* Packet from input k (VC vc) out through port o (VC vc), finish at t:
 * it came on the link (its slot, which its credit frees) and leaves. */
static void depart(struct rig *g, uint32_t k, uint32_t vc, uint32_t o,
		   uint64_t t, uint32_t flits)
{
	struct dp_link *l = &g->link[k];

	if (dp_link_push(l, vc, NULL, flits, 0) != 0 || dp_link_peek(l) == NULL)
		abort();
	dp_link_pop(l);
	dp_credit_return(g->r, &g->r->port[k], k, vc, o, vc, t - 10, t, flits);
}

/* Next credit that went upstream on port k's link, or 0 if none. */
static int pop(struct rig *g, uint32_t k, struct dp_credit *c)
{
	if (!dp_link_credit_peek(&g->link[k], c))
		return 0;
	dp_link_credit_pop(&g->link[k]);
	return 1;
}

static void set_td(struct rig *g, const uint64_t td[NPORTS])
{
	for (int k = 0; k < NPORTS; k++)
		dp_cr_router(g->r)->td[k] = td[k];
	dp_cr_td_min(g->r);
}

static void test_exact(void)
{
	static const uint64_t td[NPORTS] = {0, 150, 300, 100};
	struct rig g;
	struct dp_credit c;
	int ok;

	if (rig_init(&g)) {
		CHECK(0, "rig");
		return;
	}
	set_td(&g, td);
	CHECK(dp_cr_router(g.r)->td_min == 100,
	      "min t_d over network outputs = 100 (terminal output ignored)");
	depart(&g, 1, 0, 2, 1000, 8);
	CHECK(!pop(&g, 1, &c) && crp(&g, 2)->cr_delayed == 1 &&
		      crp(&g, 2)->cr_delay_sum == 200,
	      "local input, out through t_d 300: held, 200 counted on the "
	      "output");
	CHECK(crp(&g, 2)->ctq_tail[0] == 1 && crp(&g, 2)->ctq[0][0] == 990,
	      "the output's credit timestamp queue holds the departure");
	dp_cr_release(g.r, 1199);
	CHECK(!pop(&g, 1, &c) && g.lc->next_event == 1200,
	      "not released 1 cycle early; the lcore wakes at 1200");
	dp_cr_release(g.r, 1200);
	ok = pop(&g, 1, &c);
	CHECK(ok && c.due == 1200 + LAT && c.vc == 0 && c.flits == 8 &&
		      !pop(&g, 1, &c),
	      "released at finish + t_d(O) - min t_d = 1200, due upstream "
	      "one credit latency later (%llu)",
	      (unsigned long long)c.due);
	CHECK(g.r->eng_busy == 0, "no input holds credits any more");
	/* released at a later step (a step every quantum): still stamped
	 * 1400; a step past 1400 + LAT cannot send what is due by then, so
	 * that credit is due just after it (dp_after, link.h) */
	depart(&g, 1, 0, 2, 1200, 8);
	dp_cr_release(g.r, 1420);
	ok = pop(&g, 1, &c);
	CHECK(ok && c.due == 1400 + LAT,
	      "released at a later step, stamped with its release time (%llu)",
	      (unsigned long long)c.due);
	depart(&g, 1, 0, 2, 1400, 8);
	dp_cr_release(g.r, 1700);
	ok = pop(&g, 1, &c);
	CHECK(ok && c.due == 1701,
	      "released at a step past its due time: due just after the step "
	      "(%llu)",
	      (unsigned long long)c.due);

	depart(&g, 3, 0, 2, 2000, 8);
	CHECK(pop(&g, 3, &c) && c.due == 2000 + LAT && g.r->eng_busy == 0,
	      "input fed by a global channel: never delayed");
	depart(&g, 1, 1, 3, 2000, 8);
	CHECK(pop(&g, 1, &c) && c.due == 2000 + LAT && c.vc == 1,
	      "out through the output with the smallest t_d: not delayed");
	depart(&g, 0, 0, 2, 2000, 8);
	CHECK(pop(&g, 0, &c) && c.due == 2000 + LAT,
	      "terminal input: not delayed");

	/* order per VC, other VCs free */
	depart(&g, 1, 0, 2, 3000, 1); /* held until 3200 */
	depart(&g, 1, 0, 3, 3010, 2); /* no delay, but behind it */
	depart(&g, 1, 1, 3, 3020, 3); /* other VC: goes at once */
	CHECK(pop(&g, 1, &c) && c.vc == 1 && c.flits == 3 &&
		      c.due == 3020 + LAT && !pop(&g, 1, &c),
	      "a held VC0 credit does not block VC1");
	dp_cr_release(g.r, 3199);
	CHECK(!pop(&g, 1, &c), "VC0's undelayed credit waits behind its "
			       "held predecessor");
	dp_cr_release(g.r, 3200);
	ok = pop(&g, 1, &c) && c.flits == 1 && c.due == 3200 + LAT;
	ok = ok && pop(&g, 1, &c) && c.flits == 2 && c.due == 3200 + LAT;
	CHECK(ok && !pop(&g, 1, &c), "VC0 credits released in order at 3200");
	rig_free(&g);
}

struct sent {
	uint64_t t;
	uint32_t flits;
};

/* Many packets with random inputs, outputs, VCs, sizes and t_d: every
 * credit comes back once, in order per (input, VC), never early. */
static void test_long(void)
{
	enum { N = 200000, TRACK = 1 << 18 };
	struct rig g;
	struct sent *exp[NPORTS][NVC];
	uint32_t nexp[NPORTS][NVC] = {{0}}, ngot[NPORTS][NVC] = {{0}};
	uint64_t td[NPORTS] = {0}, now = 0, early = 0, wrong = 0, over = 0;
	uint64_t seed = 88172645463325252ULL, delayed = 0;
	struct dp_credit c;

	if (rig_init(&g)) {
		CHECK(0, "rig");
		return;
	}
	for (int k = 0; k < NPORTS; k++)
		for (int v = 0; v < NVC; v++)
			exp[k][v] = calloc(TRACK, sizeof(struct sent));
	for (int i = 0; i < N; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		uint32_t k = seed % NPORTS, o = 1 + (seed >> 8) % 3;
		uint32_t v = (seed >> 16) & 1, flits = 1 + (seed >> 20) % 8;
		if (i % 97 == 0) {
			for (int p = 1; p < NPORTS; p++)
				td[p] = (seed >> (8 * p)) % 400;
			set_td(&g, td);
		}
		now += (seed >> 40) % 50;
		uint64_t extra = dp_cr_extra(td[o], dp_cr_router(g.r)->td_min,
					     g.r->port[k].cls == DF_LINK_LOCAL);
		exp[k][v][nexp[k][v]++ % TRACK] =
			(struct sent){now + extra, flits};
		delayed += extra != 0;
		depart(&g, k, v, o, now, flits);
		dp_cr_release(g.r, now);
		for (int p = 0; p < NPORTS; p++) {
			struct dp_cr_port *ip = crp(&g, p);
			for (int w = 0; w < NVC; w++)
				over += ip->dq_tail[w] - ip->dq_head[w] >
					ip->dq_mask;
			while (pop(&g, p, &c)) {
				struct sent *s =
					&exp[p][c.vc][ngot[p][c.vc]++ % TRACK];
				wrong += s->flits != c.flits;
				early += c.due < s->t + LAT;
			}
		}
	}
	/* the last step, after every release time */
	dp_cr_release(g.r, now + 1000000);
	for (int p = 0; p < NPORTS; p++)
		while (pop(&g, p, &c)) {
			struct sent *s = &exp[p][c.vc][ngot[p][c.vc]++ % TRACK];
			wrong += s->flits != c.flits;
			early += c.due < s->t + LAT;
		}
	int same = 1;
	uint64_t sum = 0;
	for (int p = 0; p < NPORTS; p++)
		for (int v = 0; v < NVC; v++) {
			same &= nexp[p][v] == ngot[p][v];
			sum += ngot[p][v];
		}
	CHECK(over == 0, "held credits never exceed the per-VC queue");
	CHECK(same && sum == N,
	      "%d packets, %llu credits back (%llu delayed): none lost or "
	      "duplicated",
	      N, (unsigned long long)sum, (unsigned long long)delayed);
	CHECK(wrong == 0, "credits in packet order per input VC (%llu wrong)",
	      (unsigned long long)wrong);
	CHECK(early == 0 && delayed > N / 10,
	      "no credit returned before finish + its delay (%llu early)",
	      (unsigned long long)early);
	CHECK(g.r->eng_busy == 0, "nothing held after the last release");
	for (int k = 0; k < NPORTS; k++)
		for (int v = 0; v < NVC; v++)
			free(exp[k][v]);
	rig_free(&g);
}

/* The engine's step releases nothing before the first held credit is
 * due, walks no queue then (rel_next), and tells the lcore when; at that
 * time it releases it. */
static void test_step(void)
{
	static const uint64_t td[NPORTS] = {0, 150, 300, 100};
	struct rig g;
	struct dp_credit c;

	if (rig_init(&g)) {
		CHECK(0, "rig");
		return;
	}
	set_td(&g, td);
	depart(&g, 1, 0, 2, 1000, 8); /* held until 1200 */
	g.lc->next_event = UINT64_MAX;
	dp_cr_step(g.r, 1199, 0);
	CHECK(!pop(&g, 1, &c) && dp_cr_router(g.r)->rel_next == 1200 &&
		      g.lc->next_event == 1200,
	      "a step before the first release: nothing sent, the lcore "
	      "told 1200");
	dp_cr_step(g.r, 1200, 0);
	CHECK(pop(&g, 1, &c) && c.due == 1200 + LAT && g.r->eng_busy == 0 &&
		      dp_cr_router(g.r)->rel_next == UINT64_MAX,
	      "the step at 1200 releases it, and nothing is held after");
	rig_free(&g);
}

int main(void)
{
	test_exact();
	test_step();
	test_long();
	return check_done();
}
