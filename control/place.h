/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PLACE_H
#define DF_PLACE_H

#include <stdint.h>
#include <stddef.h>

/*
 * Placement of routers on worker lcores (DESIGN.md §4): contiguous blocks
 * in router order, so the routers of a group share an lcore where the
 * counts allow (local links stay in one core's cache).
 * routers_per_lcore = 0 spreads the routers evenly over nworkers.
 * Fills worker_of[nrouters]; returns the number of workers used, or -1
 * with err.
 */
int df_place(uint32_t nrouters, uint32_t nworkers, uint32_t routers_per_lcore,
	     uint16_t *worker_of, char *err, size_t errlen);

#endif
