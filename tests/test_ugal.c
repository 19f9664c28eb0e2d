/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UGAL decision on crafted occupancy states ([DF] §4.2-4.3.1), no EAL:
 * the rule itself (ties minimal, bias), the queue choice of each variant
 * (the VCH port/VC switch), and dp_ugal_decide() on a router whose credit
 * counters are set by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rig.h"
#include "config.h"
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"
#include "worker.h"

static void test_rule(void)
{
	CHECK(dp_ugal_minimal(10, 3, 6, 5, 0), "30 <= 30: a tie goes minimal");
	CHECK(!dp_ugal_minimal(11, 3, 6, 5, 0), "33 > 30: non-minimal");
	CHECK(dp_ugal_minimal(11, 3, 6, 5, 3), "33 <= 30 + bias 3: minimal");
	CHECK(dp_ugal_minimal(0, 3, 0, 5, 0), "empty queues: minimal");
	CHECK(dp_ugal_minimal(100, 0, 0, 5, 0),
	      "zero hops (same router): minimal");
}

static void test_cr(void)
{
	CHECK(dp_cr_extra(500, 200, 1) == 300,
	      "CR: local input, credit delayed by t_d(O) - min t_d = 300");
	CHECK(dp_cr_extra(500, 200, 0) == 0,
	      "CR: credits for buffers fed by a global channel never delayed");
	CHECK(dp_cr_extra(200, 200, 1) == 0,
	      "CR: the output with the smallest t_d delays nothing");
	CHECK(dp_cr_extra(100, 200, 1) == 0,
	      "CR: t_d below the router's minimum (stale) delays nothing");
}

static void test_pb_flag(void)
{
	/* 4 global channels, 100 flits in all: mean 25 */
	CHECK(!dp_pb_congested(45, 100, 4, 8),
	      "PB: 45 <= 1.5 x 25 + 8 = 45.5: not congested");
	CHECK(dp_pb_congested(46, 100, 4, 8), "PB: 46 > 45.5: congested");
	CHECK(!dp_pb_congested(8, 0, 4, 8),
	      "PB: an idle group, one packet queued: not congested");
	CHECK(!dp_pb_congested(100, 0, 0, 8), "PB: no global channels: never");
}

static void test_queues(void)
{
	uint64_t qm, qnm;

	dp_ugal_queues(DP_UGAL_PORT, 1, 40, 50, 7, 9, &qm, &qnm);
	CHECK(qm == 40 && qnm == 50, "UGAL-L: port queues even on one port");
	dp_ugal_queues(DP_UGAL_VC, 0, 40, 50, 7, 9, &qm, &qnm);
	CHECK(qm == 7 && qnm == 9, "UGAL-L_VC: VC queues even on two ports");
	dp_ugal_queues(DP_UGAL_VCH, 0, 40, 50, 7, 9, &qm, &qnm);
	CHECK(qm == 40 && qnm == 50,
	      "UGAL-L_VCH, different ports: port queues");
	dp_ugal_queues(DP_UGAL_VCH, 1, 40, 40, 7, 9, &qm, &qnm);
	CHECK(qm == 7 && qnm == 9, "UGAL-L_VCH, same port: VC queues");
	dp_ugal_queues(DP_UGAL_GLOBAL, 1, 40, 50, 7, 9, &qm, &qnm);
	CHECK(qm == 40 && qnm == 50, "UGAL-G: the global queues it is given");
}

static int decide(struct rig *g, uint32_t r, uint32_t dst, uint32_t gi,
		  enum dp_ugal_mode mode)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.dst_router = dst;
	dp_ugal_decide(g->routers[r], &pk, gi, mode);
	return pk.inter == DF_NO_GROUP; /* 1 = minimal */
}

static void test_decide(void)
{
	struct rig g;
	uint32_t r = 0, dst = 3 * 4 + 2; /* router 0 (group 0) to group 3 */
	uint32_t gi, out_m, out_nm, gr, gp;
	uint8_t ph, vc_m, vc_nm;

	if (rig_init(&g, DF_ALG_UGAL_L_VCH))
		return;
	/* a Valiant group whose first hop differs from the minimal one */
	for (gi = 1; gi < 9; gi++) {
		if (gi == 3)
			continue;
		ph = DF_PH_TO_DEST;
		out_m = df_next_hop(&g.tb, r, dst, 0, DF_NO_GROUP, &ph, &vc_m);
		ph = DF_PH_TO_INTER;
		out_nm = df_next_hop(&g.tb, r, dst, 0, gi, &ph, &vc_nm);
		if (out_m != out_nm)
			break;
	}
	struct dp_port *pm = &g.routers[r]->port[out_m];
	struct dp_port *pn = &g.routers[r]->port[out_nm];
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PORT),
	      "UGAL-L, empty network: minimal");
	pm->waiting[vc_m] = 40; /* routed here, waiting for the serializer */
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_PORT),
	      "UGAL-L: packets waiting for the minimal output count as its "
	      "queue, with every credit free: non-minimal");
	pm->waiting[vc_m] = 0;
	pm->credits[vc_m] -= 40; /* 40 flits in use on the minimal port */
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_PORT),
	      "UGAL-L, minimal port loaded: non-minimal via group %u", gi);
	g.run.ugal_bias = 1000;
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PORT),
	      "UGAL-L with a large bias: minimal again");
	g.run.ugal_bias = 0;
	pn->credits[vc_nm] -= 40;
	uint32_t hm = df_path_len(&g.tb, r, dst, DF_NO_GROUP, &gr, &gp);
	uint32_t hn = df_path_len(&g.tb, r, dst, gi, &gr, &gp);
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PORT) == (40 * hm <= 40 * hn),
	      "UGAL-L, equal queues: hop counts decide (H_m %u, H_nm %u)", hm,
	      hn);
	pm->credits[vc_m] += 40; /* back to an empty network */
	pn->credits[vc_nm] += 40;
	CHECK(decide(&g, r, dst, gi, DP_UGAL_GLOBAL) &&
		      g.routers[r]->decisions_min > 0,
	      "UGAL-G ignores local queues: global channels empty, minimal");
	/* load the minimal global channel, wherever it is in group 0 */
	df_path_len(&g.tb, r, dst, DF_NO_GROUP, &gr, &gp);
	g.routers[gr]->port[gp].credits[0] -= 60;
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_GLOBAL),
	      "UGAL-G, minimal global channel (router %u port %u) loaded: "
	      "non-minimal",
	      gr, gp);
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_PB),
	      "vc-ordered (PB): local queues empty, but the minimal global "
	      "channel flagged congested: non-minimal");
	g.routers[gr]->port[gp].credits[0] += 60;
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PB),
	      "vc-ordered (PB): flag down, local queues empty: minimal");
	g.routers[gr]->port[gp].credits[0] -= 60;
	CHECK(decide(&g, r, dst, 3, DP_UGAL_PORT) &&
		      decide(&g, r, dst, 0, DP_UGAL_PORT),
	      "Valiant group = source or destination group: minimal");
	rig_free(&g);

	/* VCH: both candidates on one port, VC queues decide */
	if (rig_init(&g, DF_ALG_UGAL_L_VCH))
		return;
	int found = 0;
	for (uint32_t d = 4; d < g.topo.nrouters && !found; d++)
		for (uint32_t x = 1; x < 9; x++) {
			if (x == d / 4)
				continue;
			ph = DF_PH_TO_DEST;
			out_m = df_next_hop(&g.tb, r, d, 0, DF_NO_GROUP, &ph,
					    &vc_m);
			ph = DF_PH_TO_INTER;
			out_nm = df_next_hop(&g.tb, r, d, 0, x, &ph, &vc_nm);
			if (out_m == out_nm && vc_m != vc_nm) {
				found = 1;
				dst = d;
				gi = x;
				break;
			}
		}
	CHECK(found, "a destination whose candidates share a port, other VC");
	if (found) {
		struct dp_port *p = &g.routers[r]->port[out_m];
		p->credits[vc_nm] -= 50; /* non-minimal VC loaded */
		CHECK(decide(&g, r, dst, gi, DP_UGAL_VCH),
		      "VCH, same port, non-minimal VC loaded: minimal");
		CHECK(decide(&g, r, dst, gi, DP_UGAL_PORT),
		      "UGAL-L sees one port: equal queues, minimal");
		p->credits[vc_nm] += 50;
		p->credits[vc_m] -= 50; /* minimal VC loaded */
		CHECK(!decide(&g, r, dst, gi, DP_UGAL_VCH),
		      "VCH, same port, minimal VC loaded: non-minimal");
		CHECK(decide(&g, r, dst, gi, DP_UGAL_PORT),
		      "plain UGAL-L cannot tell (same port queue): minimal "
		      "([DF] §4.3.1 Problem I)");
	}
	rig_free(&g);
}

/* PAR at the head of a queue: phase and fields as the engine leaves them */
static struct dp_pkt par_at(struct rig *g, uint32_t r, uint32_t dst,
			    uint32_t hops, uint8_t phase)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.dst_router = dst;
	pk.hops = hops;
	pk.phase = phase;
	dp_par_engine.decide(g->routers[r], &pk);
	return pk;
}

static void test_par(void)
{
	struct rig g;
	struct dp_pkt pk;
	uint32_t s = 0, dst = UINT32_MAX, r1 = 0, gport = 0, port;
	uint8_t ph, vc;

	if (rig_init(&g, DF_ALG_PAR))
		return;
	/* a destination whose minimal path leaves router 0 by a local hop */
	for (uint32_t d = 4; d < g.topo.nrouters && dst == UINT32_MAX; d++) {
		ph = DF_PH_TO_DEST;
		port = df_next_hop(&g.tb, s, d, 0, DF_NO_GROUP, &ph, &vc);
		if (g.tb.port_class[port] == DF_LINK_LOCAL) {
			dst = d;
			r1 = g.tb.peer_router[s * g.tb.nports + port];
		}
	}
	CHECK(dst != UINT32_MAX, "PAR: a minimal path with a local first hop");
	if (dst == UINT32_MAX) {
		rig_free(&g);
		return;
	}
	pk = par_at(&g, s, dst, 0, DF_PH_TO_DEST);
	CHECK(pk.inter == DF_NO_GROUP && pk.phase == DF_PH_SRC_MIN,
	      "PAR, empty network: minimal, provisional in the source group");
	ph = pk.phase;
	port = df_next_hop(&g.tb, s, dst, 0, pk.inter, &ph, &vc);
	CHECK(vc == g.tb.vc_map[DF_LINK_LOCAL][DF_PH_SRC_MIN] && vc == 0,
	      "PAR: the provisional local hop goes on local VC0 (got %u)", vc);
	pk = par_at(&g, s, s + 1, 0, DF_PH_TO_DEST);
	CHECK(pk.phase != DF_PH_SRC_MIN,
	      "PAR: a destination in the source group is never provisional");
	/* at the router the provisional hop reached: the minimal global
	 * channel there is full, every other queue empty */
	ph = DF_PH_TO_DEST;
	gport = df_next_hop(&g.tb, r1, dst, 0, DF_NO_GROUP, &ph, &vc);
	CHECK(g.tb.port_class[gport] == DF_LINK_GLOBAL,
	      "PAR: the next router holds the minimal global channel");
	pk = par_at(&g, r1, dst, 1, DF_PH_SRC_MIN);
	CHECK(pk.inter == DF_NO_GROUP && g.routers[r1]->redecisions == 1 &&
		      g.routers[r1]->redecisions_nonmin == 0,
	      "PAR in transit, channel free: stays minimal, one re-decision");
	ph = pk.phase;
	df_next_hop(&g.tb, r1, dst, 0, pk.inter, &ph, &vc);
	CHECK(ph == DF_PH_TO_DEST &&
		      vc == g.tb.vc_map[DF_LINK_GLOBAL][DF_PH_IN_DEST],
	      "PAR: the global hop ends the provisional phase (phase %u, "
	      "vc %u)",
	      ph, vc);
	g.routers[r1]->port[gport].credits[vc] = 0;
	int nonmin = 0;
	for (int i = 0; i < 20; i++) {
		pk = par_at(&g, r1, dst, 1, DF_PH_SRC_MIN);
		nonmin += pk.inter != DF_NO_GROUP;
		if (pk.inter != DF_NO_GROUP)
			CHECK(pk.phase == DF_PH_TO_INTER &&
				      (pk.flags & DP_PKT_NONMIN),
			      "PAR switch via group %u: Valiant phase, "
			      "counted non-minimal",
			      pk.inter);
	}
	CHECK(nonmin > 0 &&
		      g.routers[r1]->redecisions_nonmin == (uint64_t)nonmin &&
		      g.routers[r1]->redecisions == 21,
	      "PAR in transit, minimal global channel full: %d of 20 switched "
	      "to an intermediate group (the others drew the source or "
	      "destination group)",
	      nonmin);
	pk = par_at(&g, s, dst, 0, DF_PH_TO_DEST);
	CHECK(g.routers[s]->redecisions == 0,
	      "PAR: decisions at the source are not re-decisions");
	rig_free(&g);
}

/* vc-ordered with piggybacked flags ([routing] pb_flags): router r sees
 * another router's global-channel flags only as the last packet from it
 * carried them (the engine's route stamps and reads them). */
static void test_pb_piggyback(void)
{
	struct rig g;
	uint32_t r = 0, dst = 0, gi = 0, gr = 0, gp = 0;
	uint32_t seen_r[64] = {0}, seen_x[64] = {0};
	struct dp_router *ro, *x;
	struct dp_pkt pk;

	if (rig_init(&g, DF_ALG_VC_ORDERED))
		return;
	/* a destination whose minimal global channel is on another router
	 * of group 0, and a Valiant group that is neither end's */
	for (dst = g.topo.a; dst < g.topo.nrouters; dst++) {
		df_path_len(&g.tb, r, dst, DF_NO_GROUP, &gr, &gp);
		if (gr != r && gr / g.topo.a == 0)
			break;
	}
	gi = dst / g.topo.a == 1 ? 2 : 1;
	ro = g.routers[r];
	x = g.routers[gr];
	ro->eng_priv = seen_r;
	x->eng_priv = seen_x;
	x->port[gp].credits[0] -= 60;
	CHECK(dp_pb_flags(x) != 0, "router %u flags its loaded global port %u",
	      gr, gp);
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PB),
	      "piggyback: router %u's flag is up, but no packet has brought "
	      "it to router %u yet: minimal",
	      gr, r);
	/* a packet routed at gr toward r: stamped there, read at r */
	memset(&pk, 0, sizeof(pk));
	pk.dst_router = (uint16_t)r;
	pk.dst_term = r * g.topo.p;
	dp_vc_ordered_engine.route(x, &pk);
	CHECK((DP_PB_PKT(&pk) & DP_PB_STAMP) &&
		      (DP_PB_PKT(&pk) & ((1u << DP_PB_BITS) - 1)) ==
			      dp_pb_flags(x),
	      "routed onto a local link at router %u: stamped with its flags "
	      "(%#x)",
	      gr, DP_PB_PKT(&pk));
	dp_vc_ordered_engine.route(ro, &pk);
	CHECK(DP_PB_PKT(&pk) == 0,
	      "routed to a terminal at router %u: no stamp goes on", r);
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_PB),
	      "piggyback: the packet from router %u brought the flag: "
	      "non-minimal",
	      gr);
	x->port[gp].credits[0] += 60;
	CHECK(!decide(&g, r, dst, gi, DP_UGAL_PB),
	      "piggyback: the flag went down at router %u, router %u still "
	      "has the old one: non-minimal",
	      gr, r);
	ro->eng_priv = NULL;
	x->eng_priv = NULL;
	CHECK(decide(&g, r, dst, gi, DP_UGAL_PB),
	      "direct: the flag as it is now: minimal");
	rig_free(&g);
}

/* n draws of the stream that starts at state s */
static void draws(uint64_t s, uint64_t *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = dp_rand(&s);
}

/* The positions where two sequences of draws agree */
static int same_at(const uint64_t *a, const uint64_t *b, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += a[i] == b[i];
	return k;
}

/* VAL's intermediate at router r for a packet to dst (DF_NO_GROUP:
 * minimal) */
static uint16_t val_at(struct rig *g, uint32_t r, uint32_t dst)
{
	struct dp_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.dst_router = dst;
	g->routers[r]->eng->decide(g->routers[r], &pk);
	return pk.inter;
}

/*
 * Every router draws from a stream of its own, seeded from the run's seed
 * and its id alone, so that which worker runs it and in what order the
 * worker steps its nodes change none of its draws: distinct streams for
 * distinct ids and for a terminal and a router of the same id, the same
 * one again for the same seed and id, never the stuck state 0; a decision
 * draws from the stream of the router it is taken at, and the same
 * decisions come out whether two routers' draws interleave or not.
 */
static void test_streams(void)
{
	enum { N = 64, K = 200 };
	uint64_t a[N], b[N], dup = 0, s;
	uint16_t x[K], y[K], z[K];
	struct rig g, h;
	uint64_t r4;
	int zeros = 0;

	if (rig_init(&g, DF_ALG_VAL))
		return;
	draws(g.routers[0]->rng, a, N);
	draws(g.routers[1]->rng, b, N);
	CHECK(same_at(a, b, N) == 0,
	      "routers 0 and 1 draw different sequences (%d of %d draws alike)",
	      same_at(a, b, N), N);
	for (uint32_t i = 0; i < g.topo.nrouters; i++)
		for (uint32_t j = i + 1; j < g.topo.nrouters; j++)
			dup += g.routers[i]->rng == g.routers[j]->rng;
	CHECK(dup == 0, "the %u routers start from distinct states",
	      g.topo.nrouters);
	s = dp_rand_seed(g.cfg.seed, DP_RAND_ROUTER, 5);
	CHECK(s == g.routers[5]->rng,
	      "router 5's stream is the one of the run's seed and id 5");
	draws(s, a, N);
	draws(dp_rand_seed(g.cfg.seed, DP_RAND_ROUTER, 5), b, N);
	CHECK(same_at(a, b, N) == N,
	      "the same seed and id draw the same sequence again");
	draws(dp_rand_seed(g.cfg.seed, DP_RAND_TERM, 5), b, N);
	CHECK(same_at(a, b, N) == 0,
	      "terminal 5 and router 5 draw different sequences");
	draws(dp_rand_seed(g.cfg.seed + 1, DP_RAND_ROUTER, 5), b, N);
	CHECK(same_at(a, b, N) == 0,
	      "another seed gives router 5 another sequence");
	/* the seed whose sum seed + golden * key is 0 for router 0 */
	s = 0 - (((uint64_t)DP_RAND_ROUTER << 32) + 1) * 0x9E3779B97F4A7C15ULL;
	s = dp_rand_seed(s, DP_RAND_ROUTER, 0);
	draws(s, a, N);
	for (int i = 0; i < N; i++)
		zeros += a[i] == 0;
	CHECK(s != 0 && zeros == 0,
	      "the seed that would start router 0 at 0 starts it elsewhere");

	/* VAL at router 3 (group 0) toward group 5 draws from router 3's
	 * stream, one draw, and leaves router 4's alone */
	s = g.routers[3]->rng;
	r4 = g.routers[4]->rng;
	(void)val_at(&g, 3, 5 * 4);
	(void)dp_rand(&s);
	CHECK(g.routers[3]->rng == s && g.routers[4]->rng == r4,
	      "VAL's draw at router 3 advances router 3's stream, not 4's");

	/* routers 3 and 4 on one worker in turn, or each alone (two
	 * workers, or another order of the nodes): router 3 decides alike */
	rig_free(&g);
	if (rig_init(&g, DF_ALG_VAL))
		return;
	if (rig_init(&h, DF_ALG_VAL)) {
		rig_free(&g);
		return;
	}
	for (int i = 0; i < K; i++) {
		x[i] = val_at(&g, 3, 5 * 4);
		(void)val_at(&g, 4, 5 * 4);
	}
	for (int i = 0; i < K; i++)
		y[i] = val_at(&h, 3, 5 * 4);
	for (int i = 0; i < K; i++)
		z[i] = val_at(&h, 4, 5 * 4);
	CHECK(!memcmp(x, y, sizeof(x)),
	      "router 3's %d VAL decisions are the same with router 4's "
	      "draws between them or not",
	      K);
	CHECK(memcmp(y, z, sizeof(y)) != 0,
	      "routers 3 and 4 do not draw the same intermediates");
	rig_free(&g);
	rig_free(&h);
}

int main(void)
{
	test_rule();
	test_cr();
	test_queues();
	test_pb_flag();
	test_decide();
	test_pb_piggyback();
	test_par();
	test_streams();
	return check_done();
}
