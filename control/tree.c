/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OFAR's tree escape subnetwork ([OC] §III-B): laid, checked, and its
 * escape channels' dependency graph checked for cycles (tree.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

#define UNSET UINT32_MAX

/* Is port k of router r usable: wired, and not down (down may be NULL)? */
static int port_up(const struct df_topo *t, const uint8_t *down, uint32_t r,
		   uint32_t k)
{
	size_t i = (size_t)r * t->nports + k;

	return t->ports[i].peer != DF_NO_PEER && (down == NULL || !down[i]);
}

void df_tree_free(struct df_tree *tr)
{
	free(tr->parent);
	free(tr->depth);
	free(tr->lo);
	free(tr->hi);
	free(tr->up);
	free(tr->next);
	free(tr->on);
	free(tr->on_tree);
	memset(tr, 0, sizeof(*tr));
}

/* The port at a tree router toward its child c. */
static uint32_t down_port(const struct df_topo *t, const struct df_tree *tr,
			  uint32_t c)
{
	return t->ports[(size_t)c * t->nports + tr->up[c]].peer_port;
}

/*
 * [OC] Fig. 1(b)'s tree, over whatever links are up: each router joins
 * by a path from the root with the fewest global hops, and among those
 * the fewest local hops (a search in that order; ties to the lowest
 * router number). With the full wiring that is the root, its group's
 * routers one local hop below it, each other group entered by a global
 * link from the root's group, and its other routers one local hop below
 * the router entered. Sets parent, up port and depth, and the order
 * routers joined (bfs: parents before children); returns how many did.
 */
static uint32_t lay(struct df_tree *tr, const struct df_topo *t,
		    const uint8_t *down, uint32_t *bfs, uint64_t *cost)
{
	uint32_t n = tr->n, joined = 0;

	for (uint32_t r = 0; r < n; r++) {
		tr->parent[r] = UNSET;
		cost[r] = UINT64_MAX;
	}
	tr->parent[tr->root] = tr->root;
	tr->up[tr->root] = DF_PORT_NONE;
	cost[tr->root] = 0;
	for (;;) {
		uint32_t x = UNSET;
		for (uint32_t r = 0; r < n; r++)
			if (cost[r] != UINT64_MAX && !tr->on_tree[r] &&
			    (x == UNSET || cost[r] < cost[x]))
				x = r;
		if (x == UNSET)
			break;
		tr->on_tree[x] = 1;
		bfs[joined++] = x;
		if (x != tr->root) {
			uint32_t p = tr->parent[x];
			size_t xi = (size_t)x * t->nports + tr->up[x];
			const struct df_port_info *pi = &t->ports[xi];
			tr->on[xi] = 1;
			tr->on[(size_t)p * t->nports + pi->peer_port] = 1;
			tr->global_edges += pi->cls == DF_LINK_GLOBAL;
			tr->depth[x] = tr->depth[p] + 1;
			if (tr->depth[x] > tr->height)
				tr->height = tr->depth[x];
		}
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[(size_t)x * t->nports + k];
			uint32_t y = pi->peer;
			uint64_t c =
				cost[x] +
				(pi->cls == DF_LINK_GLOBAL ? (uint64_t)n : 1);
			if (!port_up(t, down, x, k) || tr->on_tree[y] ||
			    c >= cost[y])
				continue;
			cost[y] = c;
			tr->parent[y] = x;
			tr->up[y] = pi->peer_port;
		}
	}
	return joined;
}

/*
 * Preorder intervals (subtree sizes from the leaves up, then each
 * router's children numbered after it in BFS order) and next[]: toward a
 * router of a child's subtree, that child's edge; toward any other, up.
 */
static void number(struct df_tree *tr, const struct df_topo *t,
		   const uint32_t *bfs, uint32_t *size, uint32_t *pre,
		   uint32_t *nextlo)
{
	uint32_t n = tr->n;

	for (uint32_t r = 0; r < n; r++)
		size[r] = 1;
	for (uint32_t i = n; i-- > 1;)
		size[tr->parent[bfs[i]]] += size[bfs[i]];
	tr->lo[tr->root] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = bfs[i];
		if (i > 0) {
			uint32_t p = tr->parent[x];
			tr->lo[x] = nextlo[p];
			nextlo[p] += size[x];
		}
		tr->hi[x] = tr->lo[x] + size[x];
		nextlo[x] = tr->lo[x] + 1;
		pre[tr->lo[x]] = x;
	}
	for (uint32_t r = 0; r < n; r++) {
		uint8_t *row = &tr->next[(size_t)r * n];
		memset(row, r == tr->root ? DF_PORT_NONE : tr->up[r], n);
		row[r] = DF_PORT_NONE;
	}
	for (uint32_t c = 0; c < n; c++) {
		if (c == tr->root)
			continue;
		uint8_t *row = &tr->next[(size_t)tr->parent[c] * n];
		uint8_t k = (uint8_t)down_port(t, tr, c);
		for (uint32_t i = tr->lo[c]; i < tr->hi[c]; i++)
			row[pre[i]] = k;
	}
}

int df_tree_build(struct df_tree *tr, const struct df_topo *t,
		  const uint8_t *down, uint32_t root_group, char *err,
		  size_t errlen)
{
	uint32_t n = t->nrouters, *bfs = NULL, *size = NULL, *pre = NULL,
		 *nextlo = NULL, reached;
	uint64_t *cost = NULL;
	int rc = -1;

	memset(tr, 0, sizeof(*tr));
	if (root_group >= t->g) {
		snprintf(err, errlen,
			 "the tree's root group %u is not in the network "
			 "(groups 0..%u)",
			 root_group, t->g - 1);
		return -1;
	}
	tr->n = n;
	tr->nports = t->nports;
	tr->root_group = root_group;
	tr->root = root_group * t->a;
	tr->parent = calloc(n, sizeof(*tr->parent));
	tr->depth = calloc(n, sizeof(*tr->depth));
	tr->lo = calloc(n, sizeof(*tr->lo));
	tr->hi = calloc(n, sizeof(*tr->hi));
	tr->up = calloc(n, 1);
	tr->next = malloc((size_t)n * n);
	tr->on = calloc((size_t)n * t->nports, 1);
	bfs = malloc(n * sizeof(*bfs));
	size = malloc(n * sizeof(*size));
	pre = malloc(n * sizeof(*pre));
	nextlo = malloc(n * sizeof(*nextlo));
	cost = malloc(n * sizeof(*cost));
	tr->on_tree = calloc(n, 1);
	if (!cost || !tr->on_tree || !tr->parent || !tr->depth || !tr->lo ||
	    !tr->hi || !tr->up || !tr->next || !tr->on || !bfs || !size ||
	    !pre || !nextlo) {
		snprintf(err, errlen, "out of memory laying the escape tree");
		goto out;
	}
	reached = lay(tr, t, down, bfs, cost);
	if (reached < n) {
		uint32_t r = 0;
		while (tr->on_tree[r])
			r++;
		snprintf(err, errlen,
			 "no escape tree: router %u (group %u) cannot be "
			 "reached from the root r%u (group %u) over the links "
			 "up; %u of %u routers can",
			 r, r / t->a, tr->root, root_group, reached, n);
		goto out;
	}
	number(tr, t, bfs, size, pre, nextlo);
	rc = 0;
out:
	free(bfs);
	free(size);
	free(pre);
	free(nextlo);
	free(cost);
	if (rc)
		df_tree_free(tr);
	return rc;
}

int df_tree_check(const struct df_tree *tr, const struct df_topo *t,
		  const uint8_t *down, char *err, size_t errlen)
{
	uint32_t n = t->nrouters, edges = 0;

	if (tr->n != n || tr->root >= n || tr->parent[tr->root] != tr->root ||
	    tr->depth[tr->root] != 0) {
		snprintf(err, errlen, "escape tree: not %u routers with a root",
			 n);
		return -1;
	}
	for (uint32_t r = 0; r < n; r++) {
		if (!df_tree_below(tr, tr->root, r)) {
			snprintf(err, errlen,
				 "escape tree: router %u is not below the "
				 "root",
				 r);
			return -1;
		}
		for (uint32_t k = 0; k < t->nports; k++)
			edges += tr->on[(size_t)r * t->nports + k];
		if (r == tr->root)
			continue;
		uint32_t p = tr->parent[r], k = tr->up[r];
		const struct df_port_info *pi =
			k < t->nports ? &t->ports[(size_t)r * t->nports + k]
				      : NULL;
		if (pi == NULL || pi->cls == DF_LINK_TERMINAL ||
		    pi->peer != p || !port_up(t, down, r, k) ||
		    !tr->on[(size_t)r * t->nports + k] ||
		    !tr->on[(size_t)p * t->nports + pi->peer_port] ||
		    tr->depth[r] != tr->depth[p] + 1 ||
		    !df_tree_below(tr, p, r) || df_tree_below(tr, r, p)) {
			snprintf(err, errlen,
				 "escape tree: router %u's edge to its parent "
				 "%u is not a link up of the tree",
				 r, p);
			return -1;
		}
	}
	if (edges != 2 * (n - 1)) {
		snprintf(err, errlen,
			 "escape tree: %u edge ends, a spanning tree of %u "
			 "routers has %u",
			 edges, n, 2 * (n - 1));
		return -1;
	}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t d = 0; d < n; d++) {
			if (d == r)
				continue;
			uint32_t k = df_tree_next(tr, r, d);
			uint32_t y =
				k < t->nports
					? t->ports[(size_t)r * t->nports + k]
						  .peer
					: UNSET;
			int ok = k < t->nports &&
				 tr->on[(size_t)r * t->nports + k] &&
				 (df_tree_below(tr, r, d)
					  ? tr->parent[y] == r &&
						    df_tree_below(tr, y, d)
					  : y == tr->parent[r]);
			if (!ok) {
				snprintf(err, errlen,
					 "escape tree: router %u's hop toward "
					 "%u (port %u) is not up-down",
					 r, d, k);
				return -1;
			}
		}
	return 0;
}

int df_tree_cdg_check(const struct df_tree *tr, const struct df_tables *tb,
		      struct df_vcplan_info *info, char *err, size_t errlen)
{
	uint32_t n = tr->n, np = tb->nports;
	uint32_t *stamp = calloc((size_t)np * np, sizeof(*stamp));
	size_t ne = 0, cap = 4096;
	uint64_t *edges = malloc(cap * sizeof(*edges));
	int rc = -1;

	if (stamp == NULL || edges == NULL) {
		snprintf(err, errlen, "out of memory in the deadlock check");
		goto out;
	}
	/* A packet of the tree holding escape channel r.k (toward d) waits
	 * for the next tree hop at the far end, on its escape VC; leaving
	 * the tree for a canonical output is taken only when that output
	 * can take the packet at once (ofar.c), so it adds no wait. One edge
	 * per distinct pair, found with a stamp per router. */
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t d = 0; d < n; d++) {
			if (d == r)
				continue;
			uint32_t k = df_tree_next(tr, r, d);
			uint32_t y = tb->peer_router[(size_t)r * np + k];
			if (y == d)
				continue;
			uint32_t k2 = df_tree_next(tr, y, d);
			if (stamp[k * np + k2] == r + 1)
				continue;
			stamp[k * np + k2] = r + 1;
			if (ne == cap) {
				uint64_t *e =
					realloc(edges, 2 * cap * sizeof(*e));
				if (e == NULL) {
					snprintf(err, errlen,
						 "out of memory in the "
						 "deadlock check");
					goto out;
				}
				edges = e;
				cap *= 2;
			}
			uint64_t a = df_chan_id(tb, r, k,
						tb->nvcs[tb->port_class[k]]);
			uint64_t b = df_chan_id(tb, y, k2,
						tb->nvcs[tb->port_class[k2]]);
			edges[ne++] = a << 32 | b;
		}
	rc = df_cdg_check(tb, edges, ne, info, err, errlen);
out:
	free(stamp);
	free(edges);
	return rc;
}

uint32_t df_tree_changes(const struct df_tree *x, const struct df_tree *y)
{
	uint32_t k = 0;

	for (uint32_t r = 0; r < x->n; r++)
		k += x->parent[r] != y->parent[r] || x->up[r] != y->up[r];
	return k;
}
