/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_UGAL_CR_H
#define DP_UGAL_CR_H

/*
 * UGAL-L_CR's own state ([DF] §4.3.2), which the engine keeps in its
 * private area (routing.h, init): per output, the credit round trip it
 * measures and the delay t_d it derives; per input, the credits it holds
 * back. The router calls the engine's hooks (ugal_cr.c) and knows none
 * of it; the report reads it through dp_cr_port().
 */
#include <stdint.h>

#include "config.h"
#include "link.h"
#include "router.h"
#include "routing.h"

struct dp_cr_port {
	/* output side: the credit timestamp queue per VC (send time of each
	 * packet in flight on this output, popped by its credit), the
	 * latest credit round trip and the smallest seen (zero load); its
	 * t_d is in the router's td[] */
	uint64_t *ctq[DF_MAX_VC];
	uint32_t ctq_head[DF_MAX_VC], ctq_tail[DF_MAX_VC], ctq_mask;
	uint64_t t_crt, t_crt0;
	/* ... what it measured and caused, for the report: round-trip
	 * samples and their sum, credits delayed for packets that left here
	 * and the extra delay they got (TSC) */
	uint64_t crt_n, crt_sum, cr_delayed, cr_delay_sum;
	/* input side: credits held back, per VC, in order; each entry's
	 * due is its release time */
	struct dp_credit *dq[DF_MAX_VC];
	uint32_t dq_head[DF_MAX_VC], dq_tail[DF_MAX_VC], dq_mask;
};

struct dp_cr_router {
	uint64_t td_min; /* min t_d over the router's network outputs */
	uint64_t net; /* its network outputs (not a terminal's), a bit each */
	uint64_t rel_next; /* the first held credit's release (none: max) */
	/* each output's t_d, together: the smallest, taken at every step
	 * with credits, is a walk of a line or two, not of a line per port */
	uint64_t td[DP_MAX_PORTS];
	struct dp_cr_port port[];
};

/* UGAL-L_CR's state of router r, or NULL when r runs another engine. */
static inline struct dp_cr_router *dp_cr_router(const struct dp_router *r)
{
	return r->eng == &dp_ugal_l_cr_engine ? r->eng_priv : NULL;
}

/* The same for port k of r. */
static inline struct dp_cr_port *dp_cr_port(const struct dp_router *r,
					    uint32_t k)
{
	struct dp_cr_router *cr = dp_cr_router(r);

	return cr != NULL ? &cr->port[k] : NULL;
}

/* The engine's hooks (routing.h), and the two parts of its step, which
 * tests/test_credit.c drives apart: the smallest t_d over the outputs,
 * and the release of the held credits whose time has come. */
int dp_cr_init(struct dp_router *r, const struct df_config *cfg,
	       const struct dp_eng_mem *mem);
int dp_cr_leave(struct dp_router *r, uint32_t k, uint32_t vc, uint32_t o,
		uint32_t out_vc, uint64_t start, uint64_t finish,
		uint32_t flits);
void dp_cr_credit(struct dp_router *r, uint32_t k, const struct dp_credit *c);
void dp_cr_step(struct dp_router *r, uint64_t now, unsigned credits);
void dp_cr_td_min(struct dp_router *r);
void dp_cr_release(struct dp_router *r, uint64_t now);

#endif
