/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_pause.h>

#include "tap.h"
#include "packet.h"
#include "worker.h"

/* Unpaced, a worker that outruns the capture's writer waits for it
 * rather than skip a record: nothing is lost by waiting, and the file is
 * the same on every run (docs/report.md, "The digest"). Paced, waiting
 * would make emulated time lag: the record is skipped and counted. */
static int wait_for_writer(const struct dp_run *run)
{
	if (run->paced || run->quit)
		return 0;
	rte_pause();
	return 1;
}

void dp_cap_copy(struct dp_lcore *lc, struct dp_link *l, struct rte_mbuf *m,
		 uint32_t vc, uint32_t hop, uint64_t now)
{
	const struct dp_run *run = lc->run;
	const struct dp_pkt *pk = dp_pkt(m);
	uint64_t start = l->busy_until - dp_link_ser(l, m->pkt_len);
	struct dp_cap_rec *r;
	void *obj;
	uint32_t n;

	if (!(l->cap_vcs >> vc & 1))
		return;
	while (unlikely(rte_mempool_get(run->cap_pool, &obj) != 0))
		if (!wait_for_writer(run)) {
			l->cap_skipped++;
			return;
		}
	r = obj;
	n = m->pkt_len < run->cap_snaplen ? m->pkt_len : run->cap_snaplen;
	r->t_depart = start;
	r->t_arrive = pk->tail_tsc; /* whole: its last byte, either switching */
	r->late = now > start ? now - start : 0;
	r->iface = l->cap_if - 1;
	r->src = pk->src_term;
	r->dst = pk->dst_term;
	r->len = m->pkt_len;
	r->caplen = (uint16_t)n;
	r->vc = (uint8_t)vc;
	r->hop = (uint8_t)(hop < 255 ? hop : 255);
	r->route = pk->flags & DP_PKT_ESCAPE   ? DP_ROUTE_ESCAPE
		   : pk->flags & DP_PKT_NONMIN ? DP_ROUTE_NONMINIMAL
					       : DP_ROUTE_MINIMAL;
	r->external = (pk->flags & DP_PKT_EXTERNAL) != 0;
	/* rte_pktmbuf_read copies only when the bytes span segments */
	const void *src = rte_pktmbuf_read(m, 0, n, r->data);
	if (src != r->data)
		memcpy(r->data, src, n);
	while (unlikely(rte_ring_sp_enqueue(lc->cap_ring, r) != 0))
		if (!wait_for_writer(run)) {
			rte_mempool_put(run->cap_pool, r);
			l->cap_skipped++;
			return;
		}
	l->cap_taken++;
}
