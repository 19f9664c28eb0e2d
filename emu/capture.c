/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture, the main lcore's side: selects the links named in
 * [capture], gives each a pcapng interface, creates the record pool and
 * one ring per worker, and writes what the workers' taps queue
 * (dataplane/tap.h) while the run goes on and after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "emu.h"
#include "emu_capture.h"
#include "pcapng.h"

struct df_capture {
	const struct df_config *cfg;
	struct dp_lcore **lc;
	uint32_t nworkers;
	struct dp_link **link; /* by interface */
	uint32_t nif;
	struct rte_mempool *pool;
	struct df_pcapng w;
	double ns_per_tsc;
	uint64_t last_ns;	/* the latest arrival written */
	uint64_t t0_tsc, t0_ns; /* emulated time 0, and the time it is dated */
	uint64_t written;
	uint64_t limit_bytes, over_limit; /* capture.limit_mb; not written */
	uint64_t write_failed;		  /* handed over after a write failed */
};

static const char *const route_name[] = {"minimal", "nonminimal", "escape"};
static unsigned cap_id; /* unique pool and ring names across runs */

static int select_links(struct df_capture *cp, struct dp_link *links,
			const struct df_cap_link *desc, uint32_t nlinks,
			char *err, size_t n)
{
	const struct df_config *c = cp->cfg;
	uint32_t vcs = df_cap_vc_mask(c);

	cp->link = calloc(nlinks, sizeof(*cp->link));
	if (cp->link == NULL) {
		snprintf(err, n, "out of memory for capture");
		return -1;
	}
	for (uint32_t i = 0; i < nlinks; i++) {
		if (!dp_link_exists(&links[i]) || !df_cap_selects(c, &desc[i]))
			continue;
		links[i].cap_if = cp->nif + 1;
		links[i].cap_vcs = vcs;
		cp->link[cp->nif++] = &links[i];
	}
	if (cp->nif == 0) {
		snprintf(err, n,
			 "%s: [capture] links = %s selects no link of this "
			 "network",
			 df_config_origin(c, "capture", "links"), c->cap_links);
		return -1;
	}
	return 0;
}

static void write_ifaces(struct df_capture *cp, const struct df_cap_link *desc,
			 const struct dp_link *links)
{
	const struct df_config *c = cp->cfg;

	for (uint32_t i = 0; i < cp->nif; i++) {
		const struct dp_link *l = cp->link[i];
		const struct df_link_params *lp = &c->link[l->cls];
		char name[96], descr[256];

		df_cap_link_name(c, &desc[l - links], name, sizeof(name));
		snprintf(descr, sizeof(descr),
			 "dfemu %s link, latency %llu ns, %g Gb/s; VCs %s; "
			 "timestamps: emulated %s",
			 df_link_class_name(l->cls),
			 (unsigned long long)lp->latency_ns, lp->bandwidth_gbps,
			 c->cap_vcs,
			 c->cap_time == DF_CAP_ARRIVAL
				 ? "arrival at the far end"
				 : "departure (start of transmission)");
		df_pcapng_iface(&cp->w, name, descr, c->cap_snaplen);
	}
}

int df_capture_start(struct df_capture **cpp, const struct df_config *cfg,
		     struct dp_link *links, const struct df_cap_link *desc,
		     uint32_t nlinks, struct dp_lcore **lc, uint32_t nworkers,
		     struct dp_run *run, double hz, char *err, size_t n)
{
	struct df_capture *cp;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned id = ++cap_id;

	*cpp = NULL;
	if (!df_cap_enabled(cfg))
		return 0;
	cp = calloc(1, sizeof(*cp));
	if (cp == NULL) {
		snprintf(err, n, "out of memory for capture");
		return -1;
	}
	*cpp = cp;
	cp->cfg = cfg;
	cp->lc = lc;
	cp->nworkers = nworkers;
	(void)hz;
	cp->ns_per_tsc = 1.0 / DF_TICKS_PER_NS; /* emulated ticks */
	cp->limit_bytes =
		cfg->cap_limit_mb ? cfg->cap_limit_mb * 1000000ULL : UINT64_MAX;
	if (select_links(cp, links, desc, nlinks, err, n))
		return -1;
	/* every ring full, plus what the writer holds and the caches */
	snprintf(name, sizeof(name), "dfcap%u", id);
	cp->pool = rte_mempool_create(
		name, cfg->cap_ring * nworkers + 512 * (nworkers + 1),
		sizeof(struct dp_cap_rec) + cfg->cap_snaplen, 256, 0, NULL,
		NULL, NULL, NULL, rte_socket_id(), 0);
	if (cp->pool == NULL) {
		snprintf(err, n,
			 "[capture] ring = %u: no memory for the capture pool "
			 "(%s); lower capture.ring or capture.snaplen, or give "
			 "EAL more memory",
			 cfg->cap_ring, rte_strerror(rte_errno));
		return -1;
	}
	for (uint32_t w = 0; w < nworkers; w++) {
		snprintf(name, sizeof(name), "dfcapr%u_%u", id, w);
		lc[w]->cap_ring = rte_ring_create(
			name, cfg->cap_ring, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (lc[w]->cap_ring == NULL) {
			snprintf(err, n, "cannot create a capture ring: %s",
				 rte_strerror(rte_errno));
			return -1;
		}
	}
	run->cap_pool = cp->pool;
	run->cap_snaplen = cfg->cap_snaplen;
	if (df_pcapng_open(&cp->w, cfg->cap_file, "dfemu", err, n))
		return -1;
	write_ifaces(cp, desc, links);
	/* Timestamps are emulated time from the run's start (emulated
	 * time 0), dated from the Unix epoch, not the wall clock: so a
	 * rerun's capture is the same, byte for byte (docs/report.md,
	 * "The digest"). */
	cp->t0_tsc = 0;
	cp->t0_ns = 0;
	return 0;
}

static uint64_t wall_ns(const struct df_capture *cp, uint64_t tsc)
{
	if (tsc >= cp->t0_tsc)
		return cp->t0_ns +
		       (uint64_t)((double)(tsc - cp->t0_tsc) * cp->ns_per_tsc);
	return cp->t0_ns -
	       (uint64_t)((double)(cp->t0_tsc - tsc) * cp->ns_per_tsc);
}

static void write_rec(struct df_capture *cp, const struct dp_cap_rec *r)
{
	char comment[200];
	uint64_t dep = wall_ns(cp, r->t_depart), arr = wall_ns(cp, r->t_arrive);

	snprintf(comment, sizeof(comment),
		 "vc=%u hop=%u route=%s src=t%u dst=t%u lateness_ns=%.0f "
		 "transit_ns=%llu%s",
		 r->vc, r->hop, route_name[r->route], r->src, r->dst,
		 (double)r->late * cp->ns_per_tsc,
		 (unsigned long long)(arr - dep),
		 r->external ? " external" : "");
	df_pcapng_packet(&cp->w, r->iface,
			 cp->cfg->cap_time == DF_CAP_ARRIVAL ? arr : dep,
			 r->data, r->caplen, r->len, comment);
	if (arr > cp->last_ns)
		cp->last_ns = arr;
	cp->written++;
}

unsigned df_capture_drain(struct df_capture *cp)
{
	void *recs[256];
	unsigned total = 0, k;

	if (cp == NULL)
		return 0;
	for (uint32_t w = 0; w < cp->nworkers; w++) {
		struct rte_ring *ring = cp->lc[w]->cap_ring;
		/* at most what was queued when we came: a worker that
		 * queues faster than we write must not keep us here */
		unsigned left = rte_ring_count(ring);
		while (left > 0 &&
		       (k = rte_ring_sc_dequeue_burst(
				ring, recs,
				left < RTE_DIM(recs) ? left : RTE_DIM(recs),
				NULL)) > 0) {
			left -= k;
			for (unsigned i = 0; i < k; i++) {
				if (cp->w.failed)
					cp->write_failed++;
				else if (cp->w.bytes >= cp->limit_bytes)
					cp->over_limit++;
				else
					write_rec(cp, recs[i]);
			}
			rte_mempool_put_bulk(cp->pool, recs, k);
			total += k;
		}
	}
	return total;
}

void df_capture_finish(struct df_capture *cp, struct df_report *rep)
{
	uint64_t now;

	if (cp == NULL)
		return;
	df_capture_drain(cp);
	/* the statistics' time: the last record's, not the wall clock's,
	 * so the file is the same on a rerun */
	now = cp->last_ns;
	rep->cap_on = 1;
	rep->cap_ifaces = cp->nif;
	for (uint32_t i = 0; i < cp->nif; i++) {
		const struct dp_link *l = cp->link[i];
		df_pcapng_stats(&cp->w, i, now, l->cap_taken + l->cap_skipped,
				l->cap_skipped);
		rep->cap_taken += l->cap_taken;
		rep->cap_skipped += l->cap_skipped;
	}
	rep->cap_written = cp->written;
	rep->cap_over_limit = cp->over_limit;
	rep->cap_write_failed = cp->write_failed;
	rep->cap_bytes = cp->w.bytes;
	rep->cap_error = df_pcapng_close(&cp->w);
	snprintf(rep->cap_file, sizeof(rep->cap_file), "%s", cp->cfg->cap_file);
}

void df_capture_free(struct df_capture *cp, struct dp_lcore **lc,
		     uint32_t nworkers)
{
	void *rec;

	if (cp == NULL)
		return;
	for (uint32_t w = 0; lc && w < nworkers; w++) {
		if (lc[w] == NULL || lc[w]->cap_ring == NULL)
			continue;
		while (rte_ring_sc_dequeue(lc[w]->cap_ring, &rec) == 0)
			rte_mempool_put(cp->pool, rec);
		rte_ring_free(lc[w]->cap_ring);
		lc[w]->cap_ring = NULL;
	}
	df_pcapng_close(&cp->w);
	rte_mempool_free(cp->pool);
	free(cp->link);
	free(cp);
}
