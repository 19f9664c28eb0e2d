/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-link utilisation over the measurement window (linkuse.h). */
#include <stdlib.h>

#include "emu.h"
#include "link.h"
#include "linkuse.h"

int df_linkuse_init(struct df_linkuse *u, uint32_t n)
{
	u->pkts = calloc(n ? n : 1, sizeof(*u->pkts));
	u->bytes = calloc(n ? n : 1, sizeof(*u->bytes));
	u->state = 0;
	return u->pkts && u->bytes ? 0 : -1;
}

void df_linkuse_free(struct df_linkuse *u)
{
	free(u->pkts);
	free(u->bytes);
	u->pkts = u->bytes = NULL;
}

/* Only links between two routers, with a sender here (an instance
 * sends on its own routers' links only). */
static int counted(const struct dp_link *l)
{
	return l->pkt != NULL && l->cls != DF_LINK_TERMINAL;
}

void df_linkuse_tick(struct df_linkuse *u, const struct dp_link *l, uint32_t n,
		     uint64_t now, uint64_t m0, uint64_t m1)
{
	if (u->state == 0 && now >= m0) {
		for (uint32_t i = 0; i < n; i++) {
			u->pkts[i] = l[i].tx_pkts;
			u->bytes[i] = l[i].tx_bytes;
		}
		u->t0 = now;
		u->state = 1;
	}
	if (u->state == 1 && now >= m1) {
		/* the use so far, kept until the report */
		for (uint32_t i = 0; i < n; i++) {
			u->pkts[i] = l[i].tx_pkts - u->pkts[i];
			u->bytes[i] = l[i].tx_bytes - u->bytes[i];
		}
		u->t1 = now;
		u->state = 2;
	}
}

int df_linkuse_report(struct df_linkuse *u, const struct dp_link *l, uint32_t n,
		      uint64_t now, struct df_report *rep)
{
	uint32_t k = 0;
	uint64_t span;

	if (u->state == 0)
		return 0;
	if (u->state == 1)
		df_linkuse_tick(u, l, n, now, 0, 0);
	span = u->t1 > u->t0 ? u->t1 - u->t0 : 1;
	for (uint32_t i = 0; i < n; i++)
		k += counted(&l[i]);
	rep->links = calloc(k ? k : 1, sizeof(*rep->links));
	if (rep->links == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct df_link_use *o = &rep->links[rep->nlinks];

		if (!counted(&l[i]))
			continue;
		o->cls = l[i].cls;
		o->from = l[i].from;
		o->from_port = l[i].from_port;
		o->to = l[i].to;
		o->to_port = l[i].to_port;
		o->packets = u->pkts[i];
		/* the serializer's time for the bytes it sent, over the
		 * window; an unlimited link takes none */
		o->busy = l[i].cyc_per_byte_q16
				  ? (double)u->bytes[i] *
					    (double)l[i].cyc_per_byte_q16 /
					    65536.0 / (double)span
				  : -1;
		rep->nlinks++;
	}
	return 0;
}
