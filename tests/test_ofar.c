/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OFAR's rules on crafted buffer states ([OC] §I, §III-A, §IV), no EAL:
 * minimal first, misrouting and its threshold, the bubble rules of the
 * escape ring (2 packets to enter, 1 to advance, never from a terminal),
 * leaving the ring and the entry cap, BCM and ECM on injection; the
 * misrouting trigger, eligibility, global policy and pick
 * (ofar_misroute.h) alone and in the engine.
 */
#include "check.h"
#include "ofar_misroute.h"
#include "ofar_pkt.h"
#include "rig.h"
#include "routing.h"

#define FLITS 8
#define NOW   1000

static struct rig g;
static uint32_t src, dst, minp;

static struct dp_pkt packet(int in_escape, uint8_t esc_n)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.src_term = src * g.topo.p;
	pk.dst_term = dst * g.topo.p + 1;
	pk.dst_router = (uint16_t)dst;
	pk.flits = FLITS;
	pk.hops = 1;
	pk.esc_n = esc_n;
	if (in_escape)
		pk.flags = DP_PKT_ESCAPE;
	return pk;
}

/* inject: from terminal port 0; otherwise from the port the ring feeds
 * the router by (where a packet moving on along the ring waits) */
static int sel(struct dp_pkt *pk, int inject)
{
	return rig_select(g.routers[src], pk, inject ? 0 : g.ring.prev[src],
			  NOW);
}

static uint32_t ncanon(uint32_t k)
{
	return g.tb.nvcs[g.tb.port_class[k]];
}

/* Every canonical VC of every network port of the router: c credits. */
static void set_all(uint32_t c)
{
	struct dp_router *r = g.routers[src];

	for (uint32_t k = g.topo.p; k < r->nports; k++)
		for (uint32_t v = 0; v < ncanon(k); v++)
			r->port[k].credits[v] = c;
}

static void set_port(uint32_t k, uint32_t c)
{
	for (uint32_t v = 0; v < ncanon(k); v++)
		g.routers[src]->port[k].credits[v] = c;
}

static void test_minimal_and_misroute(void)
{
	struct dp_pkt pk = packet(0, 0);
	struct dp_router *r = g.routers[src];
	uint32_t other = UINT32_MAX;

	CHECK(sel(&pk, 0) && pk.out_port == minp && pk.out_vc < ncanon(minp) &&
		      !(pk.flags & DP_PKT_ESCAPE),
	      "empty network: the minimal port %u on a canonical VC", minp);
	g.links[src * g.topo.nports + minp].busy_until = NOW + 1;
	pk = packet(0, 0);
	CHECK(!sel(&pk, 0),
	      "minimal port busy, its buffers empty: wait, no misroute");
	g.links[src * g.topo.nports + minp].busy_until = 0;
	/* minimal port full; one other local port with occupancy just
	 * under / over 0.9 x the minimal one's */
	for (uint32_t k = g.topo.p; k < r->nports; k++)
		if (k != minp && g.tb.port_class[k] == DF_LINK_LOCAL) {
			other = k;
			break;
		}
	uint32_t full = ncanon(minp) * RIG_FLITS;   /* minimal occupancy */
	uint32_t free_ok = full - full * 230 / 256; /* occ <= 230/256 full */
	set_all(0);
	r->port[other].credits[0] = free_ok;
	pk = packet(0, 0);
	CHECK(sel(&pk, 0) && pk.out_port == other &&
		      OF_LMIS_GRP(&pk) == r->group + 1 &&
		      r->misroutes_local == 1,
	      "minimal full, port %u at %u/%u occupancy: local misroute", other,
	      full - free_ok, full);
	r->port[other].credits[0] = free_ok - 1;
	pk = packet(0, 0);
	int moved = sel(&pk, 0);
	CHECK(moved && pk.out_port == g.ring.next[src] &&
		      (pk.flags & DP_PKT_ESCAPE),
	      "one flit fuller (%u/%u) is over the 0.9 threshold: not taken; "
	      "the escape ring instead",
	      full - free_ok + 1, full);
	set_all(RIG_FLITS);
}

static void test_escape(void)
{
	struct dp_router *r = g.routers[src];
	uint32_t ring = g.ring.next[src];
	uint32_t esc = ncanon(ring);
	struct dp_pkt pk;

	/* the whole canonical network blocked; only the escape VC left */
	set_all(0);
	r->port[ring].credits[esc] = 2 * FLITS - 1;
	pk = packet(0, 0);
	CHECK(!sel(&pk, 0),
	      "entering the ring needs room for 2 packets: "
	      "%u flits are not enough",
	      2 * FLITS - 1);
	r->port[ring].credits[esc] = 2 * FLITS;
	pk = packet(0, 0);
	CHECK(!sel(&pk, 1),
	      "a packet from a terminal never enters the ring directly");
	pk = packet(0, 0);
	uint64_t entries = r->escape_entries;
	CHECK(sel(&pk, 0) && pk.out_port == ring && pk.out_vc == esc &&
		      (pk.flags & DP_PKT_ESCAPE) && pk.esc_n == 1 &&
		      r->escape_entries == entries + 1,
	      "room for 2 packets: enters the ring (port %u, escape vc%u), "
	      "entry counted",
	      ring, esc);
	r->port[ring].credits[esc] = FLITS - 1;
	pk = packet(1, 1);
	CHECK(!sel(&pk, 0), "advancing in the ring needs one packet of room");
	r->port[ring].credits[esc] = FLITS;
	pk = packet(1, 1);
	CHECK(sel(&pk, 0) && pk.out_port == ring && pk.out_vc == esc &&
		      (pk.flags & DP_PKT_ESCAPE),
	      "one packet of room: advances in the ring");
	/* a ring change (a link failure) left the packet in the escape
	 * buffer of a port the ring no longer feeds this router by: it
	 * enters the new ring, with room for two packets */
	uint32_t other = g.ring.prev[src] == g.topo.p ? g.topo.p + 1 : g.topo.p;
	pk = packet(1, 1);
	CHECK(!rig_select(r, &pk, other, NOW),
	      "an escape packet on port %u, not the ring's input port %u: "
	      "one packet of room is not enough",
	      other, g.ring.prev[src]);
	r->port[ring].credits[esc] = 2 * FLITS;
	pk = packet(1, 1);
	CHECK(rig_select(r, &pk, other, NOW) && pk.out_port == ring &&
		      pk.out_vc == esc,
	      "... room for two: it enters the ring");
	set_port(minp, RIG_FLITS);
	r->port[minp].out->down = 1;
	pk = packet(1, 1);
	CHECK(sel(&pk, 0) && pk.out_port == ring,
	      "minimal port free but its link down: stays in the ring");
	r->port[minp].out->down = 0;
	pk = packet(1, 1);
	CHECK(sel(&pk, 0) && pk.out_port == minp && pk.out_vc < ncanon(minp) &&
		      !(pk.flags & DP_PKT_ESCAPE),
	      "minimal port free again: leaves the ring for it");
	pk = packet(1, (uint8_t)g.ofar.escape_cap);
	CHECK(sel(&pk, 0) && pk.out_port == ring && (pk.flags & DP_PKT_ESCAPE),
	      "after %u entries the packet stays in the ring",
	      g.ofar.escape_cap);
	pk = packet(1, 1);
	pk.dst_router = (uint16_t)src;
	pk.dst_term = src * g.topo.p + 1;
	CHECK(sel(&pk, 0) && pk.out_port == 1 && pk.out_vc == 0,
	      "at its destination router: ejected to terminal port 1");
	set_all(RIG_FLITS);
}

static void test_cm(void)
{
	struct dp_router *r = g.routers[src];
	struct dp_pkt pk;
	uint32_t need = (1 + g.ofar.bcm_bubble) * FLITS;

	g.ofar.cm = DF_CM_BCM;
	set_all(need - 1);
	pk = packet(0, 0);
	pk.hops = 0;
	CHECK(!sel(&pk, 1),
	      "BCM: %u flits free in every queue: no injection (needs 1 + %u "
	      "packets)",
	      need - 1, g.ofar.bcm_bubble);
	pk = packet(0, 0);
	CHECK(sel(&pk, 0), "BCM does not hold back packets in transit");
	r->port[minp].credits[0] = need;
	pk = packet(0, 0);
	pk.hops = 0;
	CHECK(sel(&pk, 1) && pk.out_port == minp && pk.out_vc == 0,
	      "BCM: room for 1 + bubble packets: injected");
	set_all(RIG_FLITS);

	g.ofar.cm = DF_CM_ECM;
	g.ofar.ecm_q8 = 128; /* 0.5 */
	uint32_t in = g.ring.prev[src], esc = ncanon(in);
	struct dp_vcq *q = &r->port[in].q[esc];
	q->head = 0;
	q->tail = RIG_FLITS / 2 / FLITS + 1; /* 40 of 64 flits */
	pk = packet(0, 0);
	pk.hops = 0;
	CHECK(!sel(&pk, 1),
	      "ECM: the escape buffer over half full: no injection");
	pk = packet(0, 0);
	CHECK(sel(&pk, 0), "ECM does not hold back packets in transit");
	q->tail = RIG_FLITS / 2 / FLITS; /* 32 of 64: not above */
	pk = packet(0, 0);
	pk.hops = 0;
	CHECK(sel(&pk, 1), "ECM: at half full, injection goes on");
	q->tail = 0;
	g.ofar.cm = DF_CM_NONE;
}

/* select alone, as for a packet that then waits for its turn at the
 * output (router.c, allocate): pk and the router's counters as they were;
 * dp_choice_apply, as when the packet leaves, does what sel() does. */
static int select_only(struct dp_pkt *pk, struct dp_choice *c)
{
	struct dp_router *r = g.routers[src];
	struct dp_pkt before;
	uint64_t cnt =
		r->misroutes_local + r->misroutes_global + r->escape_entries;

	memcpy(&before, pk, sizeof(before));
	return r->eng->select(r, pk, g.ring.prev[src], NOW, c) &&
	       !memcmp(&before, pk, sizeof(before)) &&
	       cnt == r->misroutes_local + r->misroutes_global +
			       r->escape_entries;
}

static void test_choice(void)
{
	struct dp_router *r = g.routers[src];
	uint32_t ring = g.ring.next[src], esc = ncanon(ring), other = minp;
	uint64_t n;
	struct dp_choice c;
	struct dp_pkt pk;

	/* a local misroute: another local port emptier than the full
	 * minimal one */
	for (uint32_t k = g.topo.p; k < r->nports && other == minp; k++)
		if (k != minp && g.tb.port_class[k] == DF_LINK_LOCAL)
			other = k;
	set_all(0);
	r->port[other].credits[0] = RIG_FLITS;
	pk = packet(0, 0);
	n = r->misroutes_local;
	CHECK(select_only(&pk, &c) && c.port == other,
	      "select alone chooses a local misroute to port %u and changes "
	      "neither the packet nor the counters",
	      other);
	dp_choice_apply(r->eng, r, &pk, &c);
	CHECK(pk.out_port == other && OF_LMIS_GRP(&pk) == r->group + 1 &&
		      r->misroutes_local == n + 1,
	      "... applied: the packet's output, its group's misroute, "
	      "counted");
	/* entering the escape ring */
	set_all(0);
	r->port[ring].credits[esc] = 2 * FLITS;
	pk = packet(0, 0);
	n = r->escape_entries;
	CHECK(select_only(&pk, &c) && c.port == ring && c.vc == esc,
	      "select alone chooses the escape ring and changes neither the "
	      "packet nor the counters");
	dp_choice_apply(r->eng, r, &pk, &c);
	CHECK((pk.flags & DP_PKT_ESCAPE) && pk.esc_n == 1 &&
		      r->escape_entries == n + 1,
	      "... applied: in the escape, its entry counted");
	/* leaving it for the free minimal output */
	set_all(RIG_FLITS);
	pk = packet(1, 1);
	CHECK(select_only(&pk, &c) && c.port == minp,
	      "select alone leaves the ring for the minimal port, the packet "
	      "still marked in the escape");
	dp_choice_apply(r->eng, r, &pk, &c);
	CHECK(!(pk.flags & DP_PKT_ESCAPE) && pk.out_port == minp,
	      "... applied: out of the escape");
}

/* ofar_misroute.h's functions on crafted numbers. */
static void test_misroute_rules(void)
{
	uint32_t occ[4] = {40, 16, 24, 16};

	CHECK(!dp_ofar_trigger(0, 128, 128, 0),
	      "trigger: a minimal output that can take the packet, never");
	CHECK(dp_ofar_trigger(1, 1, 128, 0) && dp_ofar_trigger(1, 0, 128, 0),
	      "trigger 0: any blocked minimal output");
	CHECK(!dp_ofar_trigger(1, 63, 128, 128) &&
		      dp_ofar_trigger(1, 64, 128, 128),
	      "trigger 0.5 of 128 flits: 63 flits no, 64 yes");
	CHECK(!dp_ofar_trigger(1, 192, 192, 257),
	      "a trigger above 1 never fires");
	CHECK(dp_ofar_eligible(230, 256, 230) &&
		      !dp_ofar_eligible(231, 256, 230),
	      "eligible at 230/256 of the minimal output's 256 flits: 230 "
	      "yes, 231 no");
	CHECK(dp_ofar_eligible(0, 1, 230) && !dp_ofar_eligible(0, 0, 230),
	      "eligible: an empty candidate against a non-empty minimal "
	      "output; none against an empty one");
	CHECK(!dp_ofar_global_via_local(DF_MIS_CRG, 0) &&
		      !dp_ofar_global_via_local(DF_MIS_CRG, 1) &&
		      dp_ofar_global_via_local(DF_MIS_RRG, 0) &&
		      dp_ofar_global_via_local(DF_MIS_RRG, 1) &&
		      !dp_ofar_global_via_local(DF_MIS_MM, 0) &&
		      dp_ofar_global_via_local(DF_MIS_MM, 1),
	      "global policy: CRG never through another router, RRG "
	      "always, MM once the packet left its injection router");
	CHECK(dp_ofar_pick(DF_PICK_RANDOM, occ, 4, 2) == 2,
	      "pick random: the draw");
	CHECK(dp_ofar_pick(DF_PICK_MOST_FREE, occ, 4, 0) == 1 &&
		      dp_ofar_pick(DF_PICK_MOST_FREE, occ, 4, 2) == 3 &&
		      dp_ofar_pick(DF_PICK_MOST_FREE, occ, 4, 1) == 1,
	      "pick most-free: the lowest occupancy, the first of equals "
	      "from the draw on");
}

/* Two local ports other than the minimal one and the ring's. */
static void two_locals(uint32_t *a, uint32_t *b)
{
	struct dp_router *r = g.routers[src];

	*a = *b = UINT32_MAX;
	for (uint32_t k = g.topo.p; k < r->nports; k++)
		if (k != minp && g.tb.port_class[k] == DF_LINK_LOCAL) {
			if (*a == UINT32_MAX)
				*a = k;
			else if (*b == UINT32_MAX)
				*b = k;
		}
}

/* The trigger, the policy and the pick in the engine. */
static void test_misroute_engine(void)
{
	struct dp_router *r = g.routers[src];
	struct dp_link *ml = &g.links[src * g.topo.nports + minp];
	uint32_t cap = ncanon(minp) * RIG_FLITS, a, b;
	struct dp_pkt pk;
	int moved;

	two_locals(&a, &b);
	CHECK(a != UINT32_MAX && b != UINT32_MAX, "two other local ports");
	/* the minimal port busy and holding cap/2 - 1 flits; every other
	 * port empty */
	ml->busy_until = NOW + 1;
	set_port(minp, RIG_FLITS);
	r->port[minp].credits[0] = RIG_FLITS - (cap / 2 - 1);
	g.ofar.trigger_q8 = 128;
	pk = packet(0, 0);
	CHECK(!sel(&pk, 0),
	      "trigger 0.5: minimal port busy at %u/%u flits: the packet "
	      "waits",
	      cap / 2 - 1, cap);
	/* the occupancy (misroute_occupancy): a packet queued here for
	 * the minimal port counts with "queue", not with "downstream" */
	r->port[minp].waiting[0] = FLITS;
	g.ofar.mis_occ = DF_OCC_DOWNSTREAM;
	pk = packet(0, 0);
	CHECK(!sel(&pk, 0),
	      "downstream occupancy: %u flits downstream and a packet queued "
	      "here: the packet waits",
	      cap / 2 - 1);
	g.ofar.mis_occ = DF_OCC_QUEUE;
	pk = packet(0, 0);
	moved = sel(&pk, 0);
	CHECK(moved && pk.out_port != minp,
	      "queue occupancy: the same, misrouted (port %u)", pk.out_port);
	r->port[minp].waiting[0] = 0;
	r->port[minp].credits[0]--;
	pk = packet(0, 0);
	moved = sel(&pk, 0);
	CHECK(moved && pk.out_port != minp,
	      "... at %u/%u flits: misrouted (port %u)", cap / 2, cap,
	      pk.out_port);
	g.ofar.trigger_q8 = 0;
	/* the policy: only port a eligible (every other port but the
	 * minimal one busy) */
	for (uint32_t k = g.topo.p; k < r->nports; k++)
		if (k != minp && k != a)
			g.links[src * g.topo.nports + k].busy_until = NOW + 1;
	static const struct {
		enum df_mis_policy pol;
		uint8_t hops;
		int gmis;
	} pc[] = {{DF_MIS_CRG, 0, 0},
		  {DF_MIS_CRG, 1, 0},
		  {DF_MIS_RRG, 0, 1},
		  {DF_MIS_MM, 0, 0},
		  {DF_MIS_MM, 1, 1}};
	for (unsigned i = 0; i < RTE_DIM(pc); i++) {
		g.ofar.mis_policy = pc[i].pol;
		pk = packet(0, 0);
		pk.hops = pc[i].hops;
		CHECK(sel(&pk, 0) && pk.out_port == a &&
			      !!(OF_BITS(&pk) & OF_PKT_GMIS_NEXT) == pc[i].gmis,
		      "policy %s, %u hops: local misroute to port %u, %s",
		      df_mis_policy_name(pc[i].pol), pc[i].hops, a,
		      pc[i].gmis ? "a global misroute next"
				 : "no global misroute next");
	}
	g.ofar.mis_policy = DF_MIS_MM;
	/* the pick: a and b eligible, b emptier */
	g.links[src * g.topo.nports + b].busy_until = 0;
	r->port[a].credits[0] = RIG_FLITS - 16;
	r->port[b].credits[0] = RIG_FLITS - 8;
	g.ofar.mis_pick = DF_PICK_MOST_FREE;
	int to_b = 0, n = 32;
	for (int i = 0; i < n; i++) {
		pk = packet(0, 0);
		to_b += sel(&pk, 0) && pk.out_port == b;
	}
	CHECK(to_b == n, "most-free: %d of %d misroutes to the emptier port",
	      to_b, n);
	g.ofar.mis_pick = DF_PICK_RANDOM;
	to_b = 0;
	for (int i = 0; i < n; i++) {
		pk = packet(0, 0);
		to_b += sel(&pk, 0) && pk.out_port == b;
	}
	CHECK(to_b > 0 && to_b < n, "random: %d of %d to the emptier port",
	      to_b, n);
	for (uint32_t k = g.topo.p; k < r->nports; k++)
		g.links[src * g.topo.nports + k].busy_until = 0;
	set_all(RIG_FLITS);
}

int main(void)
{
	uint8_t ph = DF_PH_TO_DEST, vc;

	if (rig_init(&g, DF_ALG_OFAR))
		return check_done();
	g.ofar.misroute_q8 = 230; /* 0.9 */
	g.ofar.escape_cap = 15;
	g.ofar.bcm_bubble = 2;
	g.run.pkt_flits = FLITS;
	src = 0;
	/* a destination three groups on whose minimal hop is local */
	for (dst = 4; dst < g.topo.nrouters; dst++) {
		ph = DF_PH_TO_DEST;
		minp = df_next_hop(&g.tb, src, dst, 0, DF_NO_GROUP, &ph, &vc);
		if (g.tb.port_class[minp] == DF_LINK_LOCAL &&
		    minp != g.ring.next[src])
			break;
	}
	CHECK(dst < g.topo.nrouters,
	      "a destination behind a local minimal hop off the ring");
	test_minimal_and_misroute();
	test_escape();
	test_cm();
	test_choice();
	test_misroute_rules();
	test_misroute_engine();
	rig_free(&g);
	return check_done();
}
