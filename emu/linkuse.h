/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_LINKUSE_H
#define EMU_LINKUSE_H

/*
 * How busy each router-to-router link was over the measurement window:
 * packets sent and the fraction of the window its serializer was sending
 * ([DF] Fig. 9 plots it for a group's global channels). The sending
 * worker copies its links' send counters at its first step at or after
 * each edge of the window (worker.c, window_edge), so the use is over the
 * window's emulated time, the same on any host. (The main lcore's loop
 * used to copy them when it saw the edge: late by up to its turn, and by
 * the whole of a run that ended before its next turn. The reference gave
 * local links busy 0.082 in one unpaced run and 0.287 in the next.)
 */
#include <stdint.h>

struct dp_link;
struct dp_router;
struct dp_run;
struct df_report;

/* Into rep->links: each router-to-router link with a sender here, its use
 * over the window (up to now, the slowest worker's clock, if the run
 * ended inside it; nothing if it never opened). */
int df_linkuse_report(const struct dp_link *l, uint32_t n,
		      struct dp_router *const *routers,
		      const struct dp_run *run, uint64_t now,
		      struct df_report *rep);

#endif
