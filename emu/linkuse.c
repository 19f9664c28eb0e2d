/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-link utilisation over the measurement window (linkuse.h). */
#include <stdlib.h>

#include "emu.h"
#include "link.h"
#include "linkuse.h"
#include "router.h"
#include "worker.h"

/* The worker sending on links between two routers, if it is here (an
 * instance sends on its own routers' links only); NULL otherwise. */
static const struct dp_lcore *sender(const struct dp_link *l,
				     struct dp_router *const *routers)
{
	if (!dp_link_exists(l) || l->cls == DF_LINK_TERMINAL ||
	    routers[l->from] == NULL)
		return NULL;
	return routers[l->from]->lc;
}

/* l's send counters at edge e of the window: as its worker copied them
 * there, or, if its worker ran no step since the edge, as they are. */
static void at_edge(const struct dp_link *l, const struct dp_lcore *lc,
		    uint32_t e, uint64_t *pkts, uint64_t *bytes)
{
	if (__atomic_load_n(&lc->win_edges, __ATOMIC_ACQUIRE) > e) {
		*pkts = l->win_pkts[e];
		*bytes = l->win_bytes[e];
	} else {
		*pkts = l->tx_pkts;
		*bytes = l->tx_bytes;
	}
}

int df_linkuse_report(const struct dp_link *l, uint32_t n,
		      struct dp_router *const *routers,
		      const struct dp_run *run, uint64_t now,
		      struct df_report *rep)
{
	uint64_t t0 = dp_step_at(run, run->m0), t1, span;
	uint32_t k = 0;

	if (run->m0 == UINT64_MAX || now < t0)
		return 0; /* the window never opened */
	t1 = run->m1 != UINT64_MAX && now >= run->m1 ? dp_step_at(run, run->m1)
						     : now;
	span = t1 > t0 ? t1 - t0 : 1;
	for (uint32_t i = 0; i < n; i++)
		k += sender(&l[i], routers) != NULL;
	rep->links = calloc(k ? k : 1, sizeof(*rep->links));
	if (rep->links == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const struct dp_lcore *lc = sender(&l[i], routers);
		struct df_link_use *o = &rep->links[rep->nlinks];
		uint64_t p0, b0, p1, b1;

		if (lc == NULL)
			continue;
		at_edge(&l[i], lc, 0, &p0, &b0);
		at_edge(&l[i], lc, 1, &p1, &b1);
		o->cls = l[i].cls;
		o->from = l[i].from;
		o->from_port = l[i].from_port;
		o->to = l[i].to;
		o->to_port = l[i].to_port;
		o->packets = p1 - p0;
		/* the serializer's time for the bytes it sent, over the
		 * window; an unlimited link takes none */
		o->busy = l[i].cyc_per_byte_q16
				  ? (double)(b1 - b0) *
					    (double)l[i].cyc_per_byte_q16 /
					    65536.0 / (double)span
				  : -1;
		rep->nlinks++;
	}
	return 0;
}
