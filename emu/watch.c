/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stall watchdog (emu_int.h, struct watch): which input VCs have not
 * moved for [run] watchdog_ms, and what the packet at the head of each
 * waits for.
 */
#include <stdlib.h>

#include <rte_mbuf.h>

#include "emu_int.h"
#include "routing.h"

void emu_watch_init(struct watch *w, const struct emu *e)
{
	size_t nvq =
		(size_t)e->pl->topo.nrouters * e->pl->topo.nports * DF_MAX_VC;

	w->head = calloc(nvq, sizeof(uint32_t));
	w->since = calloc(nvq, sizeof(uint64_t));
	w->next = 0;
}

void emu_watch_free(struct watch *w)
{
	free(w->head);
	free(w->since);
}

/* The flits free on each VC of port p, as "a/b/c" (for a diagnosis). */
static int credits_text(const struct dp_port *p, char *buf, size_t n)
{
	int len = 0;

	for (uint32_t v = 0; v < p->nvc && len < (int)n; v++)
		len += snprintf(buf + len, n - len, "%s%u", v ? "/" : "",
				p->credits[v]);
	return len;
}

/* A fully adaptive head (OFAR): the state of the outputs its rules
 * read, the minimal one and the escape's (ring or tree). */
static void ofar_waits_for(const struct dp_router *r, const struct dp_pkt *pk,
			   uint64_t now, char *buf, size_t n)
{
	const struct dp_run *run = r->lc->run;
	const struct df_tables *tb = run->tb;
	const struct dp_ofar_run *of = dp_ofar_run(run);
	const struct df_ring *ring = of != NULL ? of->ring : NULL;
	const struct df_tree *tree = of != NULL ? of->tree : NULL;
	uint32_t mp = r->id == pk->dst_router
			      ? pk->dst_term % run->p
			      : tb->port_to_router[r->id * tb->nrouters +
						   pk->dst_router];
	const struct dp_port *m = &r->port[mp];
	char mc[64], rc[64];
	int len;

	credits_text(m, mc, sizeof(mc));
	len = snprintf(buf, n,
		       "to router %u%s: no output it may take (fully "
		       "adaptive) has room for it; minimal port %u (%s) "
		       "credits %s of %u per VC, serializer %s",
		       pk->dst_router,
		       pk->flags & DP_PKT_ESCAPE ? ", in the escape" : "", mp,
		       df_link_class_name(m->cls), mc, m->credit_full[0],
		       m->out->busy_until > now ? "busy" : "free");
	if (ring != NULL && len < (int)n) {
		const struct dp_port *q = &r->port[ring->next[r->id]];
		const struct dp_port *f = &r->port[ring->prev[r->id]];
		const volatile struct dp_vcq *fq = &f->q[f->nvc - 1];

		credits_text(q, rc, sizeof(rc));
		snprintf(buf + len, n - len,
			 "; ring out port %u credits %s (escape VC last), "
			 "serializer %s; ring in port %u holds %u escape "
			 "packets",
			 ring->next[r->id], rc,
			 q->out->busy_until > now ? "busy" : "free",
			 ring->prev[r->id], fq->tail - fq->head);
	} else if (tree != NULL && r->id != pk->dst_router && len < (int)n) {
		uint32_t k = df_tree_next(tree, r->id, pk->dst_router);
		const struct dp_port *q = &r->port[k];

		credits_text(q, rc, sizeof(rc));
		snprintf(buf + len, n - len,
			 "; tree out port %u (%s) credits %s (escape VC "
			 "last), serializer %s",
			 k, tree->up[r->id] == k ? "up" : "down", rc,
			 q->out->busy_until > now ? "busy" : "free");
	}
}

/* What the head packet of a stuck VC waits for, for the diagnosis. */
static void waits_for(const struct dp_router *r,
		      volatile const struct dp_vcq *q, uint64_t now, char *buf,
		      size_t n)
{
	const struct rte_mbuf *m = q->slot[(q->head + q->off) & q->mask].m;
	const struct dp_pkt *pk = dp_pkt((struct rte_mbuf *)(uintptr_t)m);
	const struct dp_port *op;

	if (r->eng->select != NULL) {
		ofar_waits_for(r, pk, now, buf, n);
		return;
	}
	if (pk->out_port == DF_PORT_NONE || pk->out_port >= r->nports) {
		snprintf(buf, n, "not routed yet (to router %u)",
			 pk->dst_router);
		return;
	}
	op = &r->port[pk->out_port];
	if (r->oq_cap) {
		snprintf(
			buf, n,
			"to router %u, routed to port %u (%s) vc%u: its output "
			"queue holds %u of %u flits, %u needed; downstream "
			"%u of %u credits free%s",
			pk->dst_router, pk->out_port,
			df_link_class_name(op->cls), pk->out_vc,
			op->oq[pk->out_vc].flits, r->oq_cap, pk->flits,
			op->credits[pk->out_vc], op->credit_full[pk->out_vc],
			op->out->down ? "; the link is down" : "");
		return;
	}
	snprintf(buf, n,
		 "to router %u, routed to port %u (%s) vc%u: %u of %u "
		 "credits free, %u needed; serializer %s%s",
		 pk->dst_router, pk->out_port, df_link_class_name(op->cls),
		 pk->out_vc, op->credits[pk->out_vc],
		 op->credit_full[pk->out_vc], pk->flits,
		 op->out->busy_until > now ? "busy" : "free",
		 op->out->down ? "; the link is down" : "");
}

int emu_watch_check(struct emu *e, struct watch *w, uint64_t now,
		    struct df_report *rep, FILE *dump)
{
	const struct df_topo *t = &e->pl->topo;
	uint64_t limit = ns_to_tsc(e->ehz, e->pl->cfg.watchdog_ms * 1000000ULL);
	uint32_t nstuck = 0;
	char why[400];

	if (w->head == NULL || limit == 0 || now < w->next)
		return 0;
	w->next = now + limit / 10 + 1;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < e->routers[r]->nports; k++) {
			const struct dp_port *p = &e->routers[r]->port[k];
			for (uint32_t v = 0; v < p->nvc; v++) {
				size_t i = ((size_t)r * t->nports + k) *
						   DF_MAX_VC +
					   v;
				volatile const struct dp_vcq *q = &p->q[v];
				uint32_t head = q->head, n = q->tail - head;
				if (n == 0 || head != w->head[i]) {
					w->head[i] = head;
					w->since[i] = n ? now : 0;
					continue;
				}
				if (w->since[i] == 0)
					w->since[i] = now;
				if (now - w->since[i] < limit)
					continue;
				double ms = (now - w->since[i]) * 1e3 / e->ehz;
				const char *cls = df_link_class_name(p->cls);
				waits_for(e->routers[r], q, now, why,
					  sizeof(why));
				if (nstuck++ == 0)
					snprintf(rep->stuck, sizeof(rep->stuck),
						 "router %u port %u (%s) vc%u: "
						 "its head packet has not "
						 "moved for %.0f ms, %u "
						 "packets queued",
						 r, k, cls, v, ms, n);
				/* the dump: every stuck VC, and what its
				 * head packet waits for */
				if (dump && nstuck <= 64)
					fprintf(dump,
						"dfemu: stuck: router %u port "
						"%u (%s) vc%u, %u queued, "
						"%.0f ms: head packet %s\n",
						r, k, cls, v, n, ms, why);
			}
		}
	if (nstuck && dump)
		fprintf(dump, "dfemu: %u VCs stuck%s\n", nstuck,
			nstuck > 64 ? " (64 shown)" : "");
	return nstuck != 0;
}
