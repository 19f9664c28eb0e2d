/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_OFAR_RUN_H
#define DP_OFAR_RUN_H

/*
 * OFAR's run-wide state ([OC]): its escape subnetwork and the settings
 * of its rules, which only ofar.c's hop reads. The run points to it
 * (dp_run.eng_run); emu/build.c fills it from the configuration and the
 * plan's escape, emu/change_apply.c swaps the escape when a link change
 * lays it again, and the watch (emu/watch.c) reads it.
 */
#include <stdint.h>

#include "config.h"
#include "ring.h"
#include "tree.h"

struct dp_ofar_run {
	/* the escape subnetwork ([OC] §III): a ring, or a tree (the other
	 * NULL), each swapped whole by a link change */
	const struct df_ring *ring;
	const struct df_tree *tree;
	int ring_bi;
	int escape; /* 0: the escape is never entered (deadlock demos) */
	uint32_t misroute_q8; /* threshold x 256 */
	uint32_t trigger_q8;  /* misroute_trigger x 256 */
	enum df_mis_policy mis_policy;
	enum df_mis_pick mis_pick;
	enum df_mis_occ mis_occ;
	uint32_t escape_cap;
	enum df_cm cm;
	uint32_t bcm_bubble;
	uint32_t ecm_q8; /* threshold x 256 */
};

/* o from configuration c, with the escape ring or tree (the other NULL). */
static inline void dp_ofar_run_init(struct dp_ofar_run *o,
				    const struct df_config *c,
				    const struct df_ring *ring,
				    const struct df_tree *tree)
{
	o->ring = ring;
	o->tree = tree;
	o->ring_bi = c->ring == DF_RING_BI;
	o->escape = c->escape;
	o->misroute_q8 = (uint32_t)(c->misroute_threshold * 256 + 0.5);
	o->trigger_q8 = (uint32_t)(c->misroute_trigger * 256 + 0.5);
	o->mis_policy = c->misroute_policy;
	o->mis_pick = c->misroute_pick;
	o->mis_occ = c->misroute_occupancy;
	o->escape_cap = c->escape_cap;
	o->cm = c->cm;
	o->bcm_bubble = c->bcm_bubble;
	o->ecm_q8 = (uint32_t)(c->ecm_threshold * 256 + 0.5);
}

struct dp_run;

/* The OFAR state of run (its eng_run), or NULL when another engine
 * routes it (ofar.c). For the control path: the hop reads eng_run. */
struct dp_ofar_run *dp_ofar_run(const struct dp_run *run);

#endif
