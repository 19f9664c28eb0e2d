/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PLACE_H
#define DF_PLACE_H

#include <stdint.h>
#include <stddef.h>

/*
 * Placement of routers on worker lcores (docs/performance.md, "Several
 * workers"). Routers are numbered group by group (group routers each: a
 * dragonfly's a, a flattened butterfly's first-dimension row of k), so
 * contiguous blocks keep a group's links inside one worker: a link whose
 * two ends share a worker is a plain FIFO with wakes, one that crosses
 * wakes its consumer by notes and moves its cache lines between cores.
 * routers_per_lcore = 0: whole groups per worker, spread evenly (or, with
 * fewer groups than workers, routers spread evenly); otherwise blocks of
 * that many routers. Fills worker_of[nrouters]; returns the number of
 * workers used, or -1 with err.
 */
int df_place(uint32_t nrouters, uint32_t group, uint32_t nworkers,
	     uint32_t routers_per_lcore, uint16_t *worker_of, char *err,
	     size_t errlen);

#endif
