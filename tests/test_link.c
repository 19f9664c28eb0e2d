/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A link's delay lines (dataplane/link.h): a ring per VC, read as one
 * delay line. No EAL. Packets pushed on several VCs come out in the order
 * they were sent, across the wrap of the send numbers and of the slots; a
 * head not due yet holds back every packet sent after it, on any VC; a
 * full ring, and a VC the link has not, refuse a packet, and a ring takes
 * again once its receiver has popped one.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link.h"
#include "port.h"

#define NVC 3
#define CAP 8 /* flits of each VC's far buffer: slots per ring */

static struct dp_link *link_new(void)
{
	struct dp_link *l = aligned_alloc(64, sizeof(*l));
	uint32_t n = dp_link_nslots(NVC, CAP), log = 1;
	struct dp_vcslot *s = calloc(n, sizeof(*s));
	uint8_t *vcs, *cvcs;

	while (log < n)
		log <<= 1;
	vcs = calloc(log, 1);
	cvcs = calloc(log, 1);
	if (l == NULL || s == NULL || vcs == NULL || cvcs == NULL)
		abort();
	memset(l, 0, sizeof(*l));
	l->mask = log - 1;
	l->credit_lat_tsc = 5;
	dp_link_rings(l, s, vcs, cvcs, NVC, CAP);
	return l;
}

static void link_free(struct dp_link *l)
{
	free(l->ring.tx.s[0]);
	free(l->vcs);
	free(l->cvcs);
	free(l);
}

/* A packet's identity, in the slot's mbuf pointer. */
static struct rte_mbuf *tag(uintptr_t i)
{
	return (struct rte_mbuf *)(i + 1);
}

/* The next packet due by now, taken and its slot freed with its credit
 * (one flit) at once, or 0. */
static uintptr_t take(struct dp_link *l, uint64_t now)
{
	const struct dp_vcslot *s = dp_link_peek(l);
	uint32_t v;
	uintptr_t i;

	if (s == NULL || s->due > now)
		return 0;
	i = (uintptr_t)s->m;
	v = dp_link_peek_vc(l);
	dp_link_pop(l);
	if (dp_link_credit_at(l, now, v, 1, now) != 0)
		abort();
	return i;
}

/* Many packets on VCs chosen at random, their send numbers wrapping: out
 * in send order, each once. */
static void test_order(void)
{
	struct dp_link *l = link_new();
	uint32_t sent = 0, got = 0, wrong = 0, lost = 0;
	uint64_t due = 0;

	/* the send numbers wrap after 40 */
	l->sent = l->taken = l->seen = UINT32_MAX - 40;
	srand(7);
	for (int round = 0; round < 4000; round++) {
		int n = rand() % (CAP + 1);

		/* up to CAP packets, each on a ring with room */
		for (int j = 0; j < n; j++) {
			uint32_t v = (uint32_t)rand() % NVC;

			if (dp_link_push(l, v, tag(sent), 1, ++due) != 0)
				continue;
			sent++;
		}
		/* take what is due by a time among them */
		for (uintptr_t i; (i = take(l, due - (uint64_t)(rand() % 4)));)
			wrong += i != got++ + 1;
	}
	for (uintptr_t i; (i = take(l, UINT64_MAX));)
		wrong += i != got++ + 1;
	lost = sent - got;
	CHECK(sent > 10000 && wrong == 0 && lost == 0,
	      "%u packets on %d VCs out in send order across the wrap "
	      "(%u out of order, %u not out)",
	      sent, NVC, wrong, lost);
	link_free(l);
}

/* A head not due holds back what was sent after it, on every VC. */
static void test_hold(void)
{
	struct dp_link *l = link_new();
	const struct dp_vcslot *s;
	int ok;

	ok = dp_link_push(l, 2, tag(0), 1, 100) == 0 &&
	     dp_link_push(l, 0, tag(1), 1, 100) == 0 &&
	     dp_link_push(l, 1, tag(2), 1, 200) == 0 &&
	     dp_link_push(l, 0, tag(3), 1, 300) == 0;
	CHECK(ok, "four packets on three VCs");
	CHECK(take(l, 99) == 0, "nothing before the first is due");
	CHECK(take(l, 150) == 1 && take(l, 150) == 2 && take(l, 150) == 0,
	      "the two due at 100 in send order (VC 2, then VC 0), then "
	      "none: VC 0's next is behind VC 1's head");
	s = dp_link_peek(l);
	CHECK(s != NULL && s->due == 200 && dp_link_peek_vc(l) == 1,
	      "the head is VC 1's, due at 200");
	CHECK(take(l, 400) == 3 && take(l, 400) == 4 && take(l, 400) == 0 &&
		      dp_link_peek(l) == NULL,
	      "then VC 1's and VC 0's; then the link is empty");
	link_free(l);
}

/* A ring takes a slot per flit of its far buffer, and no more. */
static void test_full(void)
{
	struct dp_link *l = link_new();
	int n = 0;

	while (n < 3 * CAP &&
	       dp_link_push(l, 1, tag((uintptr_t)n), 1, (uint64_t)n + 1) == 0)
		n++;
	CHECK(n == CAP, "VC 1's ring took %d packets, its %d slots", n, CAP);
	CHECK(dp_link_push(l, 0, tag(99), 1, 50) == 0,
	      "VC 0's ring still takes one");
	CHECK(dp_link_push(l, NVC, tag(98), 1, 50) != 0,
	      "a VC the link has not is refused");
	CHECK(take(l, 1) == 1 && dp_link_push(l, 1, tag(97), 1, 60) == 0,
	      "VC 1 takes one again once its head is taken and freed");
	/* a receiver that queues in the ring: popped is not freed */
	CHECK(dp_link_peek(l) != NULL && dp_link_peek_vc(l) == 1, "VC 1 next");
	dp_link_pop(l);
	CHECK(dp_link_push(l, 1, tag(96), 1, 70) != 0,
	      "a packet popped but not freed keeps its slot");
	CHECK(dp_link_credit_at(l, 70, 1, 1, 70) == 0 &&
		      dp_link_push(l, 1, tag(96), 1, 70) == 0,
	      "its credit frees it: the slot takes a packet again");
	link_free(l);
}

/* Credits in the freed slots: each frees the first slot of its VC whose
 * credit has not gone, and the sender takes them in the order given,
 * across the VCs, none due before the one given before it. */
static void test_credits(void)
{
	struct dp_link *l = link_new();
	struct dp_credit c[4] = {{0}};
	int n = 0, ok;

	/* packets of 2, 3 (VC 0) and 4 flits (VC 2), all taken */
	ok = dp_link_push(l, 0, tag(0), 2, 10) == 0 &&
	     dp_link_push(l, 2, tag(1), 4, 10) == 0 &&
	     dp_link_push(l, 0, tag(2), 3, 10) == 0;
	for (int i = 0; i < 3 && ok; i++)
		if (dp_link_peek(l) != NULL)
			dp_link_pop(l);
	CHECK(ok && dp_link_peek(l) == NULL, "three packets taken");
	CHECK(dp_link_credit_at(l, 100, 0, 3, 20) != 0,
	      "a credit of another size than its slot's packet is refused");
	CHECK(dp_link_credit_at(l, 100, 1, 1, 20) != 0,
	      "a credit on a VC with no packet taken is refused");
	CHECK(!dp_link_credit_any(l), "the sender sees no credit yet");
	ok = dp_link_credit_at(l, 200, 2, 4, 20) == 0 &&
	     dp_link_credit_at(l, 150, 0, 2, 30) == 0 &&
	     dp_link_credit(l, 300, 0, 3, 40) == 0;
	CHECK(ok && dp_link_credit_at(l, 400, 0, 1, 50) != 0,
	      "three credits given; a fourth on VC 0 has no packet");
	while (n < 4 && dp_link_credit_peek(l, &c[n])) {
		dp_link_credit_pop(l);
		n++;
	}
	CHECK(n == 3 && c[0].vc == 2 && c[0].flits == 4 && c[0].due == 200 &&
		      c[1].vc == 0 && c[1].flits == 2 && c[1].due == 200 &&
		      c[2].vc == 0 && c[2].flits == 3 && c[2].due == 305,
	      "taken in the order given (VC 2, VC 0, VC 0), the second due "
	      "with the first (200, not 150), the third a credit latency "
	      "after its time (305): %d (%u %u %llu) (%u %u %llu) "
	      "(%u %u %llu)",
	      n, c[0].vc, c[0].flits, (unsigned long long)c[0].due, c[1].vc,
	      c[1].flits, (unsigned long long)c[1].due, c[2].vc, c[2].flits,
	      (unsigned long long)c[2].due);
	link_free(l);
}

/* A lazy sender (no credit log): nothing logged, and dp_port_credits_vc
 * takes a VC's credits due by now from the slots, in order, the last one
 * taken its credit_t. */
static void test_lazy(void)
{
	struct dp_link *l = link_new();
	struct dp_port p = {.out = l, .nvc = NVC};
	uint8_t *log = l->cvcs;
	int ok = 1;

	l->cvcs = NULL;
	for (uint32_t f = 1; f <= 3; f++) /* 1, 2, 3 flits on VC 1 */
		ok &= dp_link_push(l, 1, tag(f), f, 10) == 0 &&
		      dp_link_peek(l) != NULL;
	for (int i = 0; i < 3; i++)
		dp_link_pop(l);
	ok &= dp_link_credit_at(l, 100, 1, 1, 50) == 0 &&
	      dp_link_credit_at(l, 120, 1, 2, 50) == 0 &&
	      dp_link_credit_at(l, 200, 1, 3, 50) == 0;
	CHECK(ok && !dp_link_credit_any(l),
	      "three credits given; none logged for a lazy sender");
	dp_port_credits_vc(&p, 1, 99);
	CHECK(p.credits[1] == 0 && p.credit_t[1] == 0, "none due at 99");
	dp_port_credits_vc(&p, 1, 150);
	CHECK(p.credits[1] == 3 && p.credit_t[1] == 120 && l->ecred[1] == 2,
	      "at 150 the two due, 3 flits, credit_t the newest (120): "
	      "%u %llu",
	      p.credits[1], (unsigned long long)p.credit_t[1]);
	dp_port_credits_vc(&p, 1, 150);
	dp_port_credits_vc(&p, 0, 1000);
	CHECK(p.credits[1] == 3 && p.credits[0] == 0,
	      "again at 150, nothing more; VC 0 has none");
	dp_port_credits_vc(&p, 1, 1000);
	CHECK(p.credits[1] == 6 && p.credit_t[1] == 200 && l->ecred[1] == 3,
	      "at 1000 the third");
	l->cvcs = log;
	link_free(l);
}

int main(void)
{
	test_order();
	test_hold();
	test_full();
	test_credits();
	test_lazy();
	return check_done();
}
