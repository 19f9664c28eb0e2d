/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_COST_H
#define DF_COST_H

/*
 * Network cost model of [FB] §4 (Table 2 costs, Table 3 packaging, the
 * Fig. 7(b) cable model, §4.2 cable lengths) applied to the dragonfly
 * ([DF] §5: radix-64 routers, 512-node groups), the flattened butterfly
 * and the folded Clos, for N terminal nodes.
 * The counting rules and every assumption the papers leave open are in
 * cost.c and docs/topology.md. No EAL needed.
 */
#include <stdint.h>

struct df_cost_params {
	double router;		 /* $ per router: $90 chip + $300 development */
	double backplane;	 /* $ per backplane signal */
	double cable_slope;	 /* $ per signal per metre (Fig. 7(b)) */
	double cable_fixed;	 /* $ per signal (Fig. 7(b) intercept) */
	double overhead_m;	 /* metres added to every cable (Table 3) */
	double density;		 /* nodes per m^2 (Table 3 D) */
	uint32_t per_cabinet;	 /* nodes per cabinet (Table 3) */
	double cabinet_width_m;	 /* cabinet footprint, the short side */
	uint32_t pairs_per_port; /* differential pairs per port, each way */
	uint32_t radix;		 /* router ports (Table 3) */
};

enum df_cost_topo {
	DF_COST_DRAGONFLY,
	DF_COST_FLATFLY,
	DF_COST_CLOS,
	DF_COST_NTOPO,
};

struct df_cost {
	double routers;		/* router count */
	double backplane_links; /* bidirectional channels on backplanes */
	double cables;		/* bidirectional channels on cables */
	double long_cables;	/* of which global: DF global, FB dims 2+,
				 * Clos leaf to level 2 */
	double cable_m_avg;	/* average cable length, overhead included */
	double cost_routers, cost_links, cost_total; /* $ */
	char shape[96]; /* e.g. "p=16 a=32 h=16 g=8" */
};

void df_cost_defaults(struct df_cost_params *p);
const char *df_cost_topo_name(enum df_cost_topo t);
/* Cost of topology t for n nodes; 0, or -1 if it cannot reach n. */
int df_cost_of(enum df_cost_topo t, uint64_t n, const struct df_cost_params *p,
	       struct df_cost *c);

#endif
