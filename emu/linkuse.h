/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_LINKUSE_H
#define EMU_LINKUSE_H

/*
 * How busy each router-to-router link was over the measurement window:
 * packets sent and the fraction of the window its serializer was sending
 * ([DF] Fig. 9 plots it for a group's global channels). The main lcore
 * copies every link's send counters when the window opens and again when
 * it closes; the datapath counts as it always did (dp_link_depart).
 */
#include <stdint.h>

struct dp_link;
struct df_report;

struct df_linkuse {
	uint64_t *pkts,
		*bytes;	 /* [link]: its counters when the window opened */
	uint64_t t0, t1; /* TSC of the two copies */
	int state;	 /* 0: not open yet, 1: open, 2: closed */
};

/* Counters for n links; -1 on allocation failure. */
int df_linkuse_init(struct df_linkuse *u, uint32_t n);
void df_linkuse_free(struct df_linkuse *u);

/* The window is [m0, m1): copy the counters when now first reaches m0,
 * and compute the use when it first reaches m1. */
void df_linkuse_tick(struct df_linkuse *u, const struct dp_link *l, uint32_t n,
		     uint64_t now, uint64_t m0, uint64_t m1);

/* Into rep->links: each router-to-router link's use over the window (up
 * to now, if the window is still open; nothing if it never opened). */
int df_linkuse_report(struct df_linkuse *u, const struct dp_link *l, uint32_t n,
		      uint64_t now, struct df_report *rep);

#endif
