/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

#define INF 0xff

/* Neighbours of router r over links of class c (local or global). */
static uint32_t neigh(const struct df_topo *t, uint32_t r, int c, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t k = t->p; k < t->nports; k++) {
		const struct df_port_info *pi = &t->ports[r * t->nports + k];
		if ((int)pi->cls == c && pi->peer != DF_NO_PEER)
			out[n++] = pi->peer;
	}
	return n;
}

void df_paths_bfs(const struct df_topo *t, uint32_t s, uint8_t *dist,
		  uint64_t *cnt, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, n = t->nrouters;

	memset(dist, INF, n);
	if (cnt) {
		memset(cnt, 0, n * sizeof(*cnt));
		cnt[s] = 1;
	}
	dist[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		uint32_t v = queue[head++];
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[v * t->nports + k];
			uint32_t w = pi->peer;
			if (pi->cls == DF_LINK_TERMINAL || w == DF_NO_PEER)
				continue;
			if (dist[w] == INF) {
				dist[w] = dist[v] + 1;
				queue[tail++] = w;
			}
			if (cnt && dist[w] == dist[v] + 1)
				cnt[w] += cnt[v];
		}
	}
}

/* HM length from s to every d: one global link between the groups, the
 * local hops to and from it (the shortest such, when groups share more
 * than one link). */
static void hm_from(const struct df_topo *t, uint32_t s, uint8_t *hm)
{
	uint32_t a = t->a, G = s / a;

	for (uint32_t d = 0; d < t->nrouters; d++)
		hm[d] = d == s ? 0 : d / a == G ? 1 : INF;
	for (uint32_t u = G * a; u < G * a + a; u++)
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[u * t->nports + k];
			if (pi->cls != DF_LINK_GLOBAL || pi->peer == DF_NO_PEER)
				continue;
			uint32_t v = pi->peer, X = v / a;
			for (uint32_t d = X * a; d < X * a + a; d++) {
				uint8_t l = (u != s) + 1 + (v != d);
				if (l < hm[d])
					hm[d] = l;
			}
		}
}

/* Walk sets as marks: out[d] |= bit for every d reachable from each
 * switch marked in in[] by one link of class c. */
static void step(const struct df_topo *t, const uint8_t *in, int c,
		 uint8_t *out, uint32_t *tmp)
{
	memset(out, 0, t->nrouters);
	for (uint32_t v = 0; v < t->nrouters; v++) {
		if (!in[v])
			continue;
		uint32_t m = neigh(t, v, c, tmp);
		for (uint32_t i = 0; i < m; i++)
			out[tmp[i]] = 1;
	}
}

struct sv_sets {
	uint8_t *one, *g, *l, *gg, *ggl, *lg, *lgg, *gl, *glg;
};

static void sv_count(const struct df_topo *t, uint32_t s, const uint8_t *hm,
		     struct sv_sets *w, uint32_t *tmp, struct df_sv_counts *c)
{
	uint32_t n = t->nrouters;

	memset(w->one, 0, n);
	w->one[s] = 1;
	step(t, w->one, DF_LINK_GLOBAL, w->g, tmp);
	step(t, w->one, DF_LINK_LOCAL, w->l, tmp);
	step(t, w->g, DF_LINK_GLOBAL, w->gg, tmp);
	step(t, w->gg, DF_LINK_LOCAL, w->ggl, tmp);
	step(t, w->l, DF_LINK_GLOBAL, w->lg, tmp);
	step(t, w->lg, DF_LINK_GLOBAL, w->lgg, tmp);
	step(t, w->g, DF_LINK_LOCAL, w->gl, tmp);
	step(t, w->gl, DF_LINK_GLOBAL, w->glg, tmp);
	memset(c, 0, sizeof(*c));
	for (uint32_t d = 0; d < n; d++) {
		if (d == s)
			continue;
		int three = w->ggl[d] || w->lgg[d] || w->glg[d];
		int best = w->gg[d] ? 2 : three ? 3 : INF;
		c->less += best < hm[d];
		c->equal += (w->gg[d] && hm[d] == 2) || (three && hm[d] == 3);
		c->less_gg += w->gg[d] && 2 < hm[d];
		c->equal_gg += w->gg[d] && hm[d] == 2;
		c->equal_ggl += w->ggl[d] && hm[d] == 3;
		c->equal_glg += w->glg[d] && hm[d] == 3;
		c->equal_glg_ggl += (w->glg[d] || w->ggl[d]) && hm[d] == 3;
	}
}

/* Mean Valiant length over intermediate groups for all pairs: HM from s
 * to group I (to the landing switch v), then HM from v to d. */
static double valiant_mean(const struct df_topo *t, const uint8_t *hm)
{
	uint32_t a = t->a, g = t->g, n = t->nrouters;
	double sum = 0;
	uint64_t cnt = 0;

	if (g < 3)
		return 0;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t I = 0; I < g; I++) {
			uint32_t G = s / a, v = UINT32_MAX;
			uint8_t best = INF;
			if (I == G)
				continue;
			/* the landing switch in I of s's HM route to I */
			for (uint32_t x = I * a; x < I * a + a; x++) {
				uint8_t l = hm[(size_t)s * n + x];
				if (l < best) {
					best = l;
					v = x;
				}
			}
			/* best is the HM length to the nearest switch of I,
			 * i.e. (s != u) + 1: the landing switch v; none if
			 * no global link joins the groups (a flattened
			 * butterfly's non-adjacent "groups") */
			if (v == UINT32_MAX)
				continue;
			for (uint32_t d = 0; d < n; d++) {
				if (d == s || d / a == I)
					continue;
				sum += best + hm[(size_t)v * n + d];
				cnt++;
			}
		}
	return cnt ? sum / cnt : 0;
}

int df_paths_compute(struct df_paths *ps, const struct df_topo *t, char *err,
		     size_t errlen)
{
	uint32_t n = t->nrouters;
	uint32_t *queue = NULL, *tmp = NULL;
	uint8_t *marks = NULL;
	struct sv_sets w;
	double ssum = 0, hsum = 0;

	memset(ps, 0, sizeof(*ps));
	if (n > DF_PATHS_MAX_ROUTERS) {
		snprintf(err, errlen,
			 "path analysis: %u routers; at most %u (it keeps "
			 "every pair)",
			 n, DF_PATHS_MAX_ROUTERS);
		return -1;
	}
	ps->n = n;
	ps->dist = malloc((size_t)n * n);
	ps->hm = malloc((size_t)n * n);
	ps->nshort = malloc((size_t)n * n * sizeof(*ps->nshort));
	ps->sv = calloc(n, sizeof(*ps->sv));
	queue = malloc(n * sizeof(*queue));
	tmp = malloc(t->nports * sizeof(*tmp));
	marks = malloc((size_t)n * 9);
	if (!ps->dist || !ps->hm || !ps->nshort || !ps->sv || !queue || !tmp ||
	    !marks) {
		free(queue), free(tmp), free(marks);
		df_paths_free(ps);
		snprintf(err, errlen, "path analysis: out of memory");
		return -1;
	}
	w.one = marks;
	w.g = marks + n;
	w.l = marks + 2 * n;
	w.gg = marks + 3 * n;
	w.ggl = marks + 4 * n;
	w.lg = marks + 5 * n;
	w.lgg = marks + 6 * n;
	w.gl = marks + 7 * n;
	w.glg = marks + 8 * n;
	for (uint32_t s = 0; s < n; s++) {
		uint8_t *dist = &ps->dist[(size_t)s * n];
		uint8_t *hm = &ps->hm[(size_t)s * n];
		df_paths_bfs(t, s, dist, &ps->nshort[(size_t)s * n], queue);
		hm_from(t, s, hm);
		sv_count(t, s, hm, &w, tmp, &ps->sv[s]);
		for (uint32_t d = 0; d < n; d++) {
			if (d == s)
				continue;
			ps->pairs++;
			ps->hm_not_shortest += hm[d] > dist[d];
			if (dist[d] > ps->diameter)
				ps->diameter = dist[d];
			ps->dist_hist[dist[d] < 15 ? dist[d] : 15]++;
			ssum += dist[d];
			hsum += hm[d];
		}
	}
	ps->mean_shortest = ps->pairs ? ssum / ps->pairs : 0;
	ps->mean_hm = ps->pairs ? hsum / ps->pairs : 0;
	ps->mean_valiant = valiant_mean(t, ps->hm);
	free(queue), free(tmp), free(marks);
	return 0;
}

void df_paths_free(struct df_paths *ps)
{
	free(ps->dist);
	free(ps->hm);
	free(ps->nshort);
	free(ps->sv);
	memset(ps, 0, sizeof(*ps));
}
