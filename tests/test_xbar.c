/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The crossbar and output queues of the papers' router
 * (dataplane/xbar.h, the code the datapath runs) on crafted ports, no
 * EAL: an input serving two outputs in one link time with speedup 2 (and
 * not with speedup 1), a full output queue blocking the crossbar but not
 * the link, virtual cut-through kept at the link (no departure without
 * credits for the whole packet), round-robin over the output VCs,
 * UGAL's queue length with output queues, and a cut-through crossing
 * that ends with the packet's tail (docs/router.md).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xbar.h"

#define LEN	512  /* bytes of every packet */
#define FLITS	8    /* its flits */
#define SER	1000 /* its serialization time on the link, TSC */
#define OQSLOTS 16

/* An mbuf with its private area, in plain memory. */
struct pkt_mem {
	struct rte_mbuf m;
	struct dp_pkt pk;
};

static struct rte_mbuf *pkt(struct pkt_mem *p)
{
	memset(p, 0, sizeof(*p));
	p->m.pkt_len = LEN;
	p->pk.flits = FLITS;
	return &p->m;
}

/* Output port with speedup s: its crossbar time per byte is the link's
 * divided by s (oq_init() in emu/build.c does the same). */
static void out_init(struct dp_port *op, struct dp_flight *slots, uint32_t nvc,
		     double s, uint32_t credits)
{
	uint64_t cpb_q16 = ((uint64_t)SER << 16) / LEN;

	memset(op, 0, sizeof(*op));
	op->nvc = (uint8_t)nvc;
	op->xbar_cyc_per_byte_q16 = (uint64_t)((double)cpb_q16 / s);
	for (uint32_t v = 0; v < nvc; v++) {
		op->oq[v].slot = slots + v * OQSLOTS;
		op->oq[v].mask = OQSLOTS - 1;
		op->credits[v] = op->credit_full[v] = credits;
	}
}

static void two_outputs_in_one_link_time(double s, uint64_t want_second)
{
	static struct dp_flight slots[2][OQSLOTS];
	struct dp_port in, o1, o2;
	struct pkt_mem a, b;
	uint64_t start, end1, end2, t;

	memset(&in, 0, sizeof(in));
	out_init(&o1, slots[0], 1, s, 64);
	out_init(&o2, slots[1], 1, s, 64);
	CHECK(dp_xbar_can(&in, &o1, 0, FLITS, 64, 0),
	      "speedup %g: an idle crossbar takes a packet at once", s);
	end1 = dp_xbar_move(&in, &o1, 0, pkt(&a), FLITS, 0, &start);
	CHECK(start == 0 && end1 == (uint64_t)(SER / s),
	      "speedup %g: the crossing takes SER/%g (%lu..%lu)", s, s,
	      (unsigned long)start, (unsigned long)end1);
	CHECK(!dp_xbar_can(&in, &o2, 0, FLITS, 64, end1 - 1),
	      "speedup %g: the input is busy while it crosses", s);
	t = end1;
	CHECK(dp_xbar_can(&in, &o2, 0, FLITS, 64, t),
	      "speedup %g: the input is free when the crossing ends", s);
	end2 = dp_xbar_move(&in, &o2, 0, pkt(&b), FLITS, 0, &start);
	CHECK(start == end1 && end2 == want_second,
	      "speedup %g: the second packet, to another output, has crossed "
	      "at %lu (want %lu; one link time is %d)",
	      s, (unsigned long)end2, (unsigned long)want_second, SER);
	CHECK(dp_oq_head(&o1, 0)->due == 0 && dp_oq_head(&o2, 0)->due == end1,
	      "speedup %g: each output may send from the start of its "
	      "crossing (cut-through)",
	      s);
}

static void full_queue_blocks_crossbar_not_link(void)
{
	static struct dp_flight slots[OQSLOTS];
	struct dp_port in, op;
	struct pkt_mem p[3];
	uint64_t start, t = 0;

	memset(&in, 0, sizeof(in));
	out_init(&op, slots, 1, 2, FLITS); /* credits for one packet */
	for (int i = 0; i < 2; i++) {
		CHECK(dp_xbar_can(&in, &op, 0, FLITS, 2 * FLITS, t),
		      "queue of 2 packets: packet %d crosses", i);
		t = dp_xbar_move(&in, &op, 0, pkt(&p[i]), FLITS, t, &start);
	}
	CHECK(!dp_xbar_can(&in, &op, 0, FLITS, 2 * FLITS, t),
	      "a full output queue blocks the crossbar (%u flits queued)",
	      op.oq[0].flits);
	CHECK(dp_oq_pick(&op, t) == 0,
	      "... but not the link: the head has the credits it needs");
	dp_oq_pop(&op, 0, FLITS, 5 * SER);
	op.credits[0] -= FLITS;
	CHECK(dp_xbar_can(&in, &op, 0, FLITS, 2 * FLITS, t),
	      "one packet sent: the crossbar moves again");
	dp_xbar_move(&in, &op, 0, pkt(&p[2]), FLITS, t, &start);
	CHECK(start == 5 * SER,
	      "a packet ready at %lu that waited for room crosses when the "
	      "queue made room (%lu), not before",
	      (unsigned long)t, (unsigned long)start);
	dp_oq_pop(&op, 0, FLITS, 6 * SER);
	CHECK(dp_oq_pick(&op, 10 * SER) == -1,
	      "no credits left downstream: the link waits (VCT: all %d flits "
	      "or nothing)",
	      FLITS);
	op.credits[0] = FLITS - 1;
	CHECK(dp_oq_pick(&op, 10 * SER) == -1,
	      "%d of %d credits: the link still waits", FLITS - 1, FLITS);
	op.credits[0] = FLITS;
	CHECK(dp_oq_pick(&op, 10 * SER) == 0, "all %d credits back: it sends",
	      FLITS);
}

static void not_before_crossing_and_round_robin(void)
{
	static struct dp_flight slots[2 * OQSLOTS];
	struct dp_port in0, in1, op;
	struct pkt_mem a, b, c;
	uint64_t start;

	memset(&in0, 0, sizeof(in0));
	memset(&in1, 0, sizeof(in1));
	out_init(&op, slots, 2, 2, 64);
	dp_xbar_move(&in0, &op, 0, pkt(&a), FLITS, 100, &start);
	CHECK(dp_oq_pick(&op, 99) == -1 && dp_oq_pick(&op, 100) == 0,
	      "the link does not send a packet before its crossing starts");
	op.xout_free = 0; /* crafted: a second crossbar port */
	dp_xbar_move(&in1, &op, 1, pkt(&b), FLITS, 0, &start);
	dp_xbar_move(&in1, &op, 0, pkt(&c), FLITS, 0, &start);
	op.oq_rr = 1;
	CHECK(dp_oq_pick(&op, 10000) == 0, "round-robin: VC 0 after VC 1");
	dp_oq_pop(&op, 0, FLITS, 0);
	CHECK(dp_oq_pick(&op, 10000) == 1, "... then VC 1");
	dp_oq_pop(&op, 1, FLITS, 0);
	CHECK(dp_oq_pick(&op, 10000) == 0, "... then VC 0 again");
	CHECK(dp_oq_count(&op) == 1 && op.oq[0].flits == FLITS &&
		      op.oq[1].flits == 0,
	      "queued packets and flits follow the moves (%u packets)",
	      dp_oq_count(&op));
}

static void queue_length(void)
{
	static struct dp_flight slots[OQSLOTS];
	struct dp_port in, op;
	struct pkt_mem a;
	uint64_t start;

	CHECK(dp_output_q(64, 40, 16, 0) == 40,
	      "q without output queue: 24 in use downstream + 16 waiting");
	CHECK(dp_output_q(64, 40, 16, 24) == 64,
	      "q with output queue: + 24 flits in it ([DF] §4.3.2's q0)");
	memset(&in, 0, sizeof(in));
	out_init(&op, slots, 1, 2, 64);
	op.waiting[0] = FLITS;
	CHECK(dp_port_occ(&op, 0) == FLITS, "routed here: q counts it");
	op.waiting[0] -= FLITS;
	dp_xbar_move(&in, &op, 0, pkt(&a), FLITS, 0, &start);
	CHECK(dp_port_occ(&op, 0) == FLITS && dp_port_occ(&op, -1) == FLITS,
	      "crossed into the output queue: q still counts it");
	dp_oq_pop(&op, 0, FLITS, 0);
	op.credits[0] -= FLITS;
	CHECK(dp_port_occ(&op, 0) == FLITS,
	      "sent: q counts it in the downstream credits in use");
}

/* Cut-through (docs/router.md, "Switching"): a packet whose head is in
 * and whose tail is still coming crosses as it comes; the crossing holds
 * the crossbar until its last byte, and the link may start at once. A
 * packet already whole crosses in the crossbar's time. */
static void crossing_ends_with_the_tail(void)
{
	static struct dp_flight slots[OQSLOTS];
	struct dp_port in, op;
	struct pkt_mem a, b;
	struct rte_mbuf *m;
	uint64_t start, end;

	memset(&in, 0, sizeof(in));
	out_init(&op, slots, 1, 2, 64);
	m = pkt(&a);
	a.pk.tail_tsc = 100 + SER; /* head in at 100, tail one SER later */
	end = dp_xbar_move(&in, &op, 0, m, FLITS, 100, &start);
	CHECK(start == 100 && end == 100 + SER,
	      "a packet still coming in crosses from its head (%lu) until its "
	      "tail (%lu; speedup 2 alone would end at %d)",
	      (unsigned long)start, (unsigned long)end, 100 + SER / 2);
	CHECK(dp_oq_head(&op, 0)->due == 100,
	      "... and its link may start with the crossing");
	CHECK(!dp_xbar_can(&in, &op, 0, FLITS, 64, end - 1) &&
		      dp_xbar_can(&in, &op, 0, FLITS, 64, end),
	      "the crossbar is held until the tail is in");
	m = pkt(&b);
	b.pk.tail_tsc = end; /* whole when it is ready */
	end = dp_xbar_move(&in, &op, 0, m, FLITS, end, &start);
	CHECK(end == start + SER / 2,
	      "a whole packet crosses in the crossbar's time (%lu..%lu)",
	      (unsigned long)start, (unsigned long)end);
}

int main(void)
{
	two_outputs_in_one_link_time(2, SER);
	two_outputs_in_one_link_time(1, 2 * SER);
	full_queue_blocks_crossbar_not_link();
	not_before_crossing_and_round_robin();
	queue_length();
	crossing_ends_with_the_tail();
	return check_done();
}
