/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PLAN_H
#define DF_PLAN_H

/*
 * The plan (docs/design.md, "Control plane"): from a checked config, the
 * wiring, the routing tables, the VC plan and its deadlock check, OFAR's
 * escape ring, the [faults] events and the routers' placement on
 * workers. No EAL, no dataplane: the emulator (emu/) builds its
 * dataplane from it.
 */
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "faults.h"
#include "ring.h"
#include "tree.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"

/* Everything control/ decides before packets flow. */
struct df_plan {
	struct df_config cfg;
	struct df_topo topo;
	struct df_tables tb;
	struct df_vcplan_info vci;
	struct df_ring ring; /* OFAR's escape ring (n = 0 otherwise) */
	struct df_tree tree; /* or its escape tree (n = 0 otherwise) */
	struct df_vcplan_info tree_cdg; /* the tree's deadlock check */
	uint16_t *worker_of;		/* [router] */
	uint32_t nworkers;
	/* [faults] events, in time order */
	struct df_fault_event events[DF_MAX_FAULT_EVENTS];
	uint32_t nevents;
};

/* Build wiring, tables, VC plan (with the deadlock check) and placement
 * for nworkers_avail worker lcores. No EAL needed. */
int df_plan_build(struct df_plan *pl, const struct df_config *cfg,
		  uint32_t nworkers_avail, char *err, size_t errlen);
void df_plan_free(struct df_plan *pl);
void df_plan_summary(const struct df_plan *pl, FILE *f);
/* Do routers a and b both run in this instance, on two workers (a link
 * between them then wakes by notes, dataplane/notify.h)? */
int df_plan_crosses(const struct df_plan *pl, uint32_t a, uint32_t b);

#endif
