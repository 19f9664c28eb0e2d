/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PATHS_H
#define DF_PATHS_H

/*
 * Path analysis of a wiring ([SP]), by enumeration: per switch
 * pair the hierarchically minimal (HM) path length, the true shortest
 * distance and the number of shortest paths; per source switch [SP]'s
 * counts of destinations reachable by short Valiant (SV) paths -- the
 * walks gg, ggl, lgg, glg (two global hops, as Valiant's VC budget
 * allows) -- shorter than (delta<) or as long as (delta=) the HM path.
 * Some of [SP]'s formulas do not hold as printed (docs/topology.md):
 * trust enumeration over them; this is the enumeration. No EAL needed.
 */
#include <stddef.h>
#include <stdint.h>

#include "wiring.h"

#define DF_PATHS_MAX_ROUTERS 2048

/* Per source switch: destinations (other switches) with an SV path. */
struct df_sv_counts {
	uint32_t less, equal;	    /* any SV type */
	uint32_t less_gg, equal_gg; /* gg walks only */
	uint32_t equal_ggl;	    /* ggl only */
	uint32_t equal_glg;	    /* glg only */
	uint32_t equal_glg_ggl;	    /* glg or ggl */
};

struct df_paths {
	uint32_t n;		 /* switches (routers) */
	uint8_t *dist;		 /* [s*n+d] shortest distance in hops */
	uint8_t *hm;		 /* [s*n+d] HM path length */
	uint64_t *nshort;	 /* [s*n+d] number of shortest paths */
	struct df_sv_counts *sv; /* [s] */
	uint32_t diameter;
	uint64_t pairs;		  /* ordered pairs s != d */
	uint64_t hm_not_shortest; /* pairs whose HM path is longer */
	uint64_t dist_hist[16];	  /* pairs by shortest distance */
	double mean_shortest, mean_hm;
	/* Valiant ([DF] §4.1, [SP] §I): HM to a random intermediate group
	 * (any group but the source's and the destination's), then HM to
	 * the destination; averaged over pairs and intermediate groups */
	double mean_valiant;
};

/* Hop distances from router s (0xff: unreachable) and, if cnt is not
 * NULL, the number of shortest paths; queue holds nrouters entries. */
void df_paths_bfs(const struct df_topo *t, uint32_t s, uint8_t *dist,
		  uint64_t *cnt, uint32_t *queue);

int df_paths_compute(struct df_paths *ps, const struct df_topo *t, char *err,
		     size_t errlen);
void df_paths_free(struct df_paths *ps);

#endif
