/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_TEST_RIG_H
#define DF_TEST_RIG_H

/*
 * The routers of the reference dragonfly (p=2 a=4 h=2 g=9) as the
 * dataplane sees them, built by hand with no EAL and no rings, for unit
 * tests of routing rules on crafted states: every port's credits full (64
 * flits per VC), serializers idle, OFAR's escape VC on the ring's ports
 * (with the tree escape, on every router port, as the emulator has it).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "eng_mem.h"
#include "ofar_run.h"
#include "ring.h"
#include "routing.h"
#include "router.h"
#include "tables.h"
#include "tree.h"
#include "vcplan.h"
#include "wiring.h"
#include "worker.h"

#define RIG_FLITS 64

struct rig {
	struct df_config cfg;
	struct df_topo topo;
	struct df_tables tb;
	struct df_ring ring;
	struct df_tree tree; /* cfg.escape_net = tree */
	struct dp_run run;
	struct dp_ofar_run ofar; /* run.eng_run under OFAR */
	struct dp_lcore *lc;
	struct dp_router **routers;
	struct dp_link *links;	 /* [router * nports + port]: serializers */
	struct test_eng_mem mem; /* the engines' own state */
};

/* a credit log's stand-in: the rig's links are eager senders' */
static uint8_t rig_cvcs[1] __attribute__((unused));

/* A rig on the topology of cfg (already shaped: see rig_init). */
static inline int rig_init_cfg(struct rig *g, const struct df_config *cfg)
{
	char err[512];
	enum df_algorithm alg = cfg->algorithm;
	int tree = cfg->escape_net == DF_ESC_TREE;

	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	if (df_topo_build(&g->topo, &g->cfg, err, sizeof(err)) ||
	    df_tables_build(&g->tb, &g->topo, err, sizeof(err)) ||
	    df_vcplan_build(&g->tb, &g->cfg, NULL, err, sizeof(err)) ||
	    (g->tb.esc && !tree &&
	     df_ring_build(&g->ring, &g->topo, err, sizeof(err))) ||
	    (g->tb.esc && tree &&
	     df_tree_build(&g->tree, &g->topo, NULL, cfg->tree_root, err,
			   sizeof(err)))) {
		CHECK(0, "rig: %s", err);
		return -1;
	}
	g->run.tb = &g->tb;
	g->run.p = g->topo.p;
	g->run.a = g->topo.a;
	g->run.g = g->topo.g;
	if (g->tb.esc) {
		/* OFAR's rules all off but the escape: the tests turn on
		 * the one they check */
		memset(&g->ofar, 0, sizeof(g->ofar));
		if (tree)
			g->ofar.tree = &g->tree;
		else
			g->ofar.ring = &g->ring;
		g->ofar.escape = 1;
		g->run.eng_run = &g->ofar;
	}
	g->lc = aligned_alloc(64, (sizeof(*g->lc) + 63) & ~63UL);
	memset(g->lc, 0, sizeof(*g->lc));
	g->lc->run = &g->run;
	g->lc->next_event = UINT64_MAX;
	g->routers = calloc(g->topo.nrouters, sizeof(*g->routers));
	g->links = calloc((size_t)g->topo.nrouters * g->topo.nports,
			  sizeof(*g->links));
	for (uint32_t r = 0; r < g->topo.nrouters; r++) {
		size_t sz = sizeof(struct dp_router) +
			    g->topo.nports * sizeof(struct dp_port);
		struct dp_router *ro = aligned_alloc(64, (sz + 63) & ~63UL);
		memset(ro, 0, sz);
		ro->id = r;
		ro->rng = dp_rand_seed(g->cfg.seed, DP_RAND_ROUTER, r);
		ro->group = r / g->topo.a;
		ro->nports = g->topo.nports;
		ro->lc = g->lc;
		ro->eng = dp_routing_engine(alg, g->tb.flatfly);
		for (uint32_t k = 0; k < g->topo.nports; k++) {
			struct dp_port *p = &ro->port[k];
			int esc = g->tb.esc &&
				  (tree ? k >= g->topo.p
					: k == g->ring.next[r] ||
						   k == g->ring.prev[r]);
			p->cls = g->tb.port_class[k];
			p->nvc = g->tb.nvcs[p->cls] + esc;
			p->out = &g->links[r * g->topo.nports + k];
			/* an eager sender's (link.h): the tests set the
			 * credits, and dp_port_credits_due takes none */
			p->out->cvcs = rig_cvcs;
			for (uint32_t v = 0; v < p->nvc; v++)
				p->credits[v] = p->credit_full[v] = RIG_FLITS;
		}
		g->routers[r] = ro;
		if (ro->eng->init != NULL) {
			const struct dp_eng_mem mem = test_eng_mem(&g->mem);

			if (ro->eng->init(ro, &g->cfg, &mem))
				return -1;
		}
	}
	g->run.routers = g->routers;
	return 0;
}

static inline int rig_init(struct rig *g, enum df_algorithm alg)
{
	struct df_config c;

	df_config_defaults(&c);
	c.g = 9;
	c.algorithm = alg;
	return rig_init_cfg(g, &c);
}

/* A fully adaptive engine moves pk at router r as the router does: its
 * choice (select), applied as when the packet leaves with it; 0: no
 * output can take the packet now. */
static inline int rig_select(struct dp_router *r, struct dp_pkt *pk,
			     uint32_t in_port, uint64_t now)
{
	struct dp_choice c;

	if (!r->eng->select(r, pk, in_port, now, &c))
		return 0;
	dp_choice_apply(r->eng, r, pk, &c);
	return 1;
}

static inline void rig_free(struct rig *g)
{
	test_eng_free(&g->mem);
	for (uint32_t r = 0; r < g->topo.nrouters; r++)
		free(g->routers[r]);
	free(g->routers);
	free(g->links);
	free(g->lc);
	df_ring_free(&g->ring);
	df_tree_free(&g->tree);
	df_tables_free(&g->tb);
	df_topo_free(&g->topo);
}

#endif
