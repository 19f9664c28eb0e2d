/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A link's rings, one per VC (dataplane/vcring.h), no EAL: packets come
 * out in order with what went in, across the wrap of the slots and of the
 * 32-bit indices, and one VC's ring does not touch another's; a batch of
 * due slots stops at the first not due, at its bound and at the tail; a
 * full ring takes a packet only once the credit that makes room is due,
 * and the sender reads no freed slot while a packet fits without; the
 * credits a sender takes are the due prefix of the freed slots, however
 * long, and never a stale slot past the head; credits
 * come back in order, across the link's VCs too; and between two threads
 * every packet arrives once, in order, and every credit comes back.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "check.h"
#include "vcring.h"

#define NVC 2

static struct dp_vcring *ring_new(uint32_t cap)
{
	struct dp_vcring *r = aligned_alloc(64, sizeof(*r));
	struct dp_vcslot *s =
		calloc((size_t)NVC << dp_vcring_shift(cap), sizeof(*s));

	dp_vcring_init(r, s, NVC, cap);
	return r;
}

static void ring_free(struct dp_vcring *r)
{
	free(r->tx.s[0]);
	free(r);
}

/* VC 1's indices start at start: the slots wrap, and so do the indices
 * when start is near 2^32. VC 0 carries a packet that must stay put. */
static void wrap(uint32_t start)
{
	struct dp_vcring *r = ring_new(6);
	struct dp_vccredit c, c0;
	int ok = 1, order = 1;

	dp_vccredit_init(&c, 6);
	dp_vccredit_init(&c0, 6);
	r->tx.tail[1] = r->rx.head[1] = c.cred = start;
	CHECK(r->tx.mask == 7, "a buffer of 6 flits has 8 slots a VC");
	dp_vcring_push_word(r, 0, &c0, 77, 1, 0, 0);
	for (uint32_t i = 0; i < 40; i++) {
		const struct dp_vcslot *s;

		ok &= dp_vcring_fits(r, 1, &c, 2, i);
		dp_vcring_push_word(r, 1, &c, 1000 + i, 2, i * 7, i);
		if (i % 3 != 2)
			continue;
		/* three in, three out */
		for (uint32_t k = 0; k < 3; k++) {
			s = dp_vcring_at(r, 1, 0);
			order &= s != NULL && s->word == 1000 + i - 2 + k &&
				 s->flits == 2 && s->aux == (i - 2 + k) * 7 &&
				 s->due == i - 2 + k;
			dp_vcring_free(r, 1, i);
		}
	}
	CHECK(ok, "start %u: three packets of two flits always fit in six",
	      start);
	CHECK(order, "start %u: 40 packets out in order, as they went in",
	      start);
	CHECK(dp_vcring_count(r, 1) == 1 && dp_vcring_at(r, 1, 0)->word == 1039,
	      "start %u: the last one is still there", start);
	CHECK(dp_vcring_credit(r, 1, &c, 100) == 4,
	      "start %u: all credits back but its two flits", start);
	CHECK(dp_vcring_count(r, 0) == 1 && dp_vcring_head(r, 0)->word == 77,
	      "start %u: VC 0's packet untouched", start);
	ring_free(r);
}

static void batch(void)
{
	struct dp_vcring *r = ring_new(16);
	struct dp_vccredit c;

	dp_vccredit_init(&c, 16);
	CHECK(dp_vcring_due(r, 0, 1000, 8) == 0 &&
		      dp_vcring_at(r, 0, 0) == NULL,
	      "empty: no batch, no head");
	for (uint64_t i = 1; i <= 5; i++)
		dp_vcring_push_word(r, 0, &c, i, 1, 0, 10 * i);
	CHECK(dp_vcring_due(r, 0, 35, 8) == 3, "due by 35: the first three");
	CHECK(dp_vcring_due(r, 0, 35, 2) == 2, "at most 2: two");
	CHECK(dp_vcring_due(r, 0, 5, 8) == 0, "none due by 5");
	CHECK(dp_vcring_due(r, 0, 1000, 8) == 5, "all due: the five sent");
	CHECK(dp_vcring_due(r, 1, 1000, 8) == 0, "none on the other VC");
	CHECK(dp_vcring_at(r, 0, 4) != NULL &&
		      dp_vcring_at(r, 0, 4)->word == 5 &&
		      dp_vcring_at(r, 0, 5) == NULL,
	      "look-ahead reaches the tail and no further");
	dp_vcring_free_n(r, 0, 3, 50);
	CHECK(dp_vcring_count(r, 0) == 2 && dp_vcring_head(r, 0)->word == 4,
	      "a batch of three freed with one publish");
	CHECK(r->tx.s[0][0].free_at == 50 && r->tx.s[0][2].free_at == 50,
	      "each freed slot carries the batch's credit time");
	ring_free(r);
}

static void full(void)
{
	struct dp_vcring *r = ring_new(8);
	struct dp_vccredit c;

	dp_vccredit_init(&c, 8);
	CHECK(dp_vcring_fits(r, 0, &c, 3, 0), "3 of 8 flits fit");
	dp_vcring_push_word(r, 0, &c, 1, 3, 0, 1);
	dp_vcring_push_word(r, 0, &c, 2, 3, 0, 1);
	CHECK(!dp_vcring_fits(r, 0, &c, 3, 0), "6 used: 3 more do not fit");
	CHECK(dp_vcring_fits(r, 0, &c, 2, 0),
	      "2 more do (virtual cut-through)");
	dp_vcring_free(r, 0, 100); /* the first leaves; credit due at 100 */
	CHECK(!dp_vcring_fits(r, 0, &c, 3, 99), "its credit is not due at 99");
	CHECK(c.cred == 0, "... and is not taken");
	CHECK(dp_vcring_fits(r, 0, &c, 3, 100), "at 100 it is: 3 fit");
	CHECK(c.free == 5 && c.credit_t == 100,
	      "5 flits free; the credit that made room was due at 100");
	dp_vcring_push_word(r, 0, &c, 3, 3, 0, 101);
	dp_vcring_free(r, 0, 200);
	/* fits without the freed slot: the sender does not look */
	CHECK(dp_vcring_fits(r, 0, &c, 2, 300) && c.cred == 1,
	      "a packet that fits takes no freed slot (lazy credits)");
	CHECK(dp_vcring_credit(r, 0, &c, 300) == 5 && c.credit_t == 200,
	      "asked, the sender takes the due credit: 5 flits free");
	ring_free(r);
}

/* The credits taken are those of the freed slots due by now, whether
 * none, one, two (looked at without a branch) or more are; a slot past
 * the head keeps an old credit time from the lap before, which must not
 * count. Packets of k + 1 flits, so each credit's flits show. */
static void prefix(uint32_t start)
{
	struct dp_vcring *r = ring_new(64);
	struct dp_vccredit c;
	uint32_t sent = 0, freed = 0, back = 0, t = 0;
	int ok = 1, stale = 1;

	dp_vccredit_init(&c, 64);
	r->tx.tail[0] = r->rx.head[0] = c.cred = start;
	/* a lap of slots freed long ago: credit times 0 (due at once) */
	for (uint32_t run = 0; run < 6; run++) {
		uint32_t due = 0, flits = 0;

		/* run packets in, freed with credits due at t + 1 ... t +
		 * run, and one more freed with a credit not yet due */
		for (uint32_t k = 0; k <= run; k++) {
			dp_vcring_push_word(r, 0, &c, sent, k + 1, 0, 0);
			sent++;
		}
		for (uint32_t k = 0; k <= run; k++) {
			dp_vcring_free(r, 0, t + 1 + k + (k == run ? 1000 : 0));
			freed++;
			if (k < run) {
				due++;
				flits += k + 1;
			}
		}
		/* a stale slot just past the head: due, flits, never sent */
		r->tx.s[0][(start + freed) & r->tx.mask].free_at = 0;
		r->tx.s[0][(start + freed) & r->tx.mask].flits = 50;
		flits += c.free;
		dp_vcring_credit(r, 0, &c, t + run);
		ok &= c.cred == start + back + due && c.free == flits &&
		      (due == 0 || c.credit_t == t + run);
		stale &= c.cred != start + freed;
		back += due;
		/* the last one's credit, due later, then taken */
		t += run + 1000 + 1;
		dp_vcring_credit(r, 0, &c, t);
		back++;
		ok &= c.cred == start + back && c.credit_t == t;
		/* none freed since: the slot at the head is stale */
		dp_vcring_credit(r, 0, &c, t + 5);
		stale &= c.cred == start + back;
		t++;
	}
	CHECK(ok,
	      "start %u: each run of 0 to 5 due credits taken whole, "
	      "and the credit time is the last due one's",
	      start);
	CHECK(stale, "start %u: a stale slot past the head is never taken",
	      start);
	CHECK(c.free == 64, "start %u: every flit back (%u)", start, c.free);
	ring_free(r);
}

static void in_order(void)
{
	struct dp_vcring *r = ring_new(4);
	struct dp_vccredit c[NVC];

	dp_vccredit_init(&c[0], 4);
	dp_vccredit_init(&c[1], 4);
	for (uint64_t i = 0; i < 3; i++)
		dp_vcring_push_word(r, 0, &c[0], i, 1, 0, 1);
	dp_vcring_push_word(r, 1, &c[1], 9, 1, 0, 1);
	dp_vcring_free(r, 0, 200);
	dp_vcring_free(r, 0, 150); /* would be due before the one before */
	CHECK(r->tx.s[0][1].free_at == 200,
	      "a credit is not due before the one freed before it (%llu)",
	      (unsigned long long)r->tx.s[0][1].free_at);
	dp_vcring_free(r, 1, 120); /* another VC, the same credit wire */
	CHECK(r->tx.s[1][0].free_at == 200,
	      "nor before one freed before it on another VC");
	CHECK(dp_vcring_credit(r, 0, &c[0], 199) == 1, "none due at 199");
	CHECK(dp_vcring_credit(r, 0, &c[0], 200) == 3, "both at 200");
	CHECK(dp_vcring_credit(r, 1, &c[1], 200) == 4,
	      "VC 1's at 200 too, counted apart");
	dp_vcring_free(r, 0, 210);
	CHECK(dp_vcring_credit(r, 0, &c[0], 1000) == 4,
	      "all back after the drain");
	ring_free(r);
}

/* Two threads: the sender on the main thread, the receiver here, VC 1. */
#define NPKT 300000u
#define CAP  16u

/* Tries for one packet's credits after which the sender gives up: a
 * lost credit would otherwise hang the test. */
#define STUCK 2000000u

struct rx_arg {
	struct dp_vcring *r;
	uint64_t got, bad, flits;
	int stop; /* the sender gave up */
};

static uint32_t flits_of(uint64_t i)
{
	return 1 + (uint32_t)(i * 2654435761u >> 28) % 4; /* 1..4 */
}

static void *receiver(void *p)
{
	struct rx_arg *a = p;

	while (a->got < NPKT) {
		const struct dp_vcslot *s = dp_vcring_at(a->r, 1, 0);

		if (s == NULL) {
			/* all in, or the sender gave up */
			if (__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE) &&
			    dp_vcring_at(a->r, 1, 0) == NULL)
				break;
			sched_yield(); /* the sender may share our CPU */
			continue;
		}
		if (s->word != a->got || s->flits != flits_of(a->got) ||
		    s->aux != (uint32_t)a->got * 3u)
			a->bad++;
		a->flits += s->flits;
		a->got++;
		dp_vcring_free(a->r, 1, a->got); /* credit due at its number */
	}
	return NULL;
}

static void threads(void)
{
	struct dp_vcring *r = ring_new(CAP);
	struct rx_arg a = {.r = r};
	struct dp_vccredit c;
	uint64_t sent_flits = 0, waits = 0, sent = 0;
	uint32_t tries = 0;
	pthread_t th;

	dp_vccredit_init(&c, CAP);
	pthread_create(&th, NULL, receiver, &a);
	for (uint64_t i = 0; i < NPKT && tries < STUCK; i++) {
		uint32_t f = flits_of(i);

		/* "now" is i + CAP: every freed slot's credit is due */
		for (tries = 0;
		     tries < STUCK && !dp_vcring_fits(r, 1, &c, f, i + CAP);
		     tries++) {
			waits++;
			sched_yield();
		}
		if (tries == STUCK)
			break;
		dp_vcring_push_word(r, 1, &c, i, f, (uint32_t)i * 3u, i);
		sent_flits += f;
		sent++;
	}
	__atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK(sent == NPKT,
	      "the sender never waited for good for credits "
	      "(%llu of %u sent)",
	      (unsigned long long)sent, NPKT);
	CHECK(a.got == NPKT && a.bad == 0,
	      "two threads: %llu packets, each once and in order (%llu wrong)",
	      (unsigned long long)a.got, (unsigned long long)a.bad);
	CHECK(a.flits == sent_flits, "every flit sent arrived");
	uint32_t back = dp_vcring_credit(r, 1, &c, UINT64_MAX);

	CHECK(back == CAP && c.cred == NPKT,
	      "after the drain every credit is back (%u of %u flits)", back,
	      CAP);
	printf("# the sender waited %llu times for credits\n",
	       (unsigned long long)waits);
	ring_free(r);
}

int main(void)
{
	wrap(0);
	wrap(UINT32_MAX - 20);
	batch();
	full();
	prefix(0);
	prefix(UINT32_MAX - 3);
	in_order();
	threads();
	return check_done();
}
