/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_CAPTURE_H
#define DF_CAPTURE_H

/*
 * [capture]: which directed links of the dragonfly are written to the
 * pcapng file. The selector list is comma-separated:
 *   all | none | local | global | terminal    links of a class, or all
 *   gG        every link leaving (out) or entering (in) group G's routers
 *   rR        every link leaving or entering router R
 *   rR.pP     the links at port P of router R
 *   tN        terminal N's links (out: injection, in: delivery)
 * "direction" (out | in | both) applies to gG, rR, rR.pP and tN, seen
 * from the named router, port or terminal. No EAL needed.
 */
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* A directed link as control/ and the dataplane describe it: from/to are
 * routers, except the terminal end of a terminal link (a terminal id). */
struct df_cap_link {
	int cls;
	uint32_t from, from_port, to, to_port;
	int term_from; /* terminal links: 1 if from is the terminal */
};

/* Is capture on at all? */
int df_cap_enabled(const struct df_config *c);

/* Does the spec select this link? (The config is valid.) */
int df_cap_selects(const struct df_config *c, const struct df_cap_link *l);

/* Bit v set: VC v is captured. */
uint32_t df_cap_vc_mask(const struct df_config *c);

/* Interface name: "g3.r1.p4->g5.r0.p2 (global)", "t5->g2.r1.p0
 * (terminal)"; r and p are the router's index in its group and its port. */
void df_cap_link_name(const struct df_config *c, const struct df_cap_link *l,
		      char *buf, size_t n);

/* Syntax and ranges of links and vcs; one message naming file and line. */
int df_cap_validate(const struct df_config *c, char *err, size_t n);

#endif
