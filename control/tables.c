/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "tables.h"

/*
 * Output port of router r toward group G (G != own group), choosing one of
 * the c = a*h/(g-1) parallel links ([DF] §4.1 leaves the choice open):
 * a router that owns links to G uses its own (index key mod owned), so the
 * path stays local-global-local; any other router takes link
 * (key + own index) mod c, so the routers of a group spread their traffic
 * over the parallel links. key is the destination router's index in its
 * group for MIN, 0 for the intermediate group of VAL.
 */
static uint32_t port_toward(const struct df_topo *t, uint32_t r, uint32_t G,
			    uint32_t key)
{
	uint32_t own = r / t->a, i = r % t->a, gbase = t->p + t->a - 1;
	uint32_t owned[64], nowned = 0, holders[4096], nlinks = 0;

	for (uint32_t j = 0; j < t->a; j++) {
		uint32_t rr = own * t->a + j;
		for (uint32_t k = 0; k < t->h; k++) {
			const struct df_port_info *pi =
				&t->ports[rr * t->nports + gbase + k];
			if (pi->peer / t->a != G)
				continue;
			if (j == i)
				owned[nowned++] = gbase + k;
			holders[nlinks++] = j;
		}
	}
	if (nowned)
		return owned[key % nowned];
	return df_local_port(t, i, holders[(key + i) % nlinks]);
}

/* Flattened butterfly: the dimension-order next hop from r toward every
 * router d: the port, in the lowest dimension where they differ, to the
 * router with d's coordinate there ([FB] Eq. (1) port order). */
static void fb_tables(struct df_tables *tb, const struct df_topo *t)
{
	uint32_t k = t->k, gbase = t->p + t->a - 1;

	tb->k = k;
	tb->ndim = t->n - 1;
	tb->kpow[0] = 1;
	for (uint32_t i = 1; i <= tb->ndim && i <= DF_FB_MAXDIM; i++)
		tb->kpow[i] = tb->kpow[i - 1] * k;

	for (uint32_t r = 0; r < t->nrouters; r++) {
		for (uint32_t X = 0; X < t->g; X++)
			tb->port_to_group[r * t->g + X] = DF_PORT_NONE;
		for (uint32_t d = 0; d < t->nrouters; d++) {
			uint8_t *e = &tb->port_to_router[r * t->nrouters + d];
			uint32_t x = r, y = d, dim = 1;
			*e = DF_PORT_NONE;
			if (d == r)
				continue;
			while (x % k == y % k) {
				x /= k;
				y /= k;
				dim++;
			}
			uint32_t c = x % k, m = y % k;
			*e = (uint8_t)(dim == 1 ? df_local_port(t, c, m)
						: gbase + (dim - 2) * (k - 1) +
							  (m < c ? m : m - 1));
		}
	}
}

/* hop's byte for cur toward dst: df_next_hop's port (none, 0, at dst
 * itself, where the terminal's port is taken), whether cur is in dst's
 * group, and whether the router the port leads to is. */
static uint8_t hop_entry(const struct df_tables *tb, uint32_t cur, uint32_t dst)
{
	uint32_t port =
		cur == dst ? 0 : tb->port_to_router[cur * tb->nrouters + dst];
	uint32_t dg = tb->group_of[dst], next = cur;

	if (port >= tb->nports)
		return 0; /* a route to nowhere, which no packet takes */
	if (cur != dst)
		next = tb->peer_router[cur * tb->nports + port];
	return (uint8_t)(port | (tb->group_of[cur] == dg ? DF_HOP_SAME : 0) |
			 (next < tb->nrouters && tb->group_of[next] == dg
				  ? DF_HOP_NEXT
				  : 0));
}

int df_tables_hops(struct df_tables *tb)
{
	uint32_t n = tb->nrouters;

	free(tb->hop);
	tb->hop = NULL;
	if (tb->flatfly)
		return 0;
	tb->hop = malloc((size_t)n * n);
	if (tb->hop == NULL)
		return -1;
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t d = 0; d < n; d++)
			tb->hop[r * n + d] = hop_entry(tb, r, d);
	return 0;
}

int df_tables_build(struct df_tables *tb, const struct df_topo *t, char *err,
		    size_t errlen)
{
	memset(tb, 0, sizeof(*tb));
	tb->a = t->a;
	tb->g = t->g;
	tb->p = t->p;
	tb->nrouters = t->nrouters;
	tb->nports = t->nports;
	tb->port_to_router = malloc((size_t)t->nrouters * t->nrouters);
	tb->port_to_group = malloc((size_t)t->nrouters * t->g);
	tb->port_class = malloc(t->nports);
	tb->peer_router = malloc((size_t)t->nrouters * t->nports *
				 sizeof(*tb->peer_router));
	tb->group_of = malloc((size_t)t->nrouters * sizeof(*tb->group_of));
	if (!tb->port_to_router || !tb->port_to_group || !tb->port_class ||
	    !tb->peer_router || !tb->group_of) {
		df_tables_free(tb);
		snprintf(err, errlen, "out of memory building routing tables");
		return -1;
	}
	for (uint32_t k = 0; k < t->nports; k++)
		tb->port_class[k] = t->ports[k].cls;
	for (uint32_t r = 0; r < t->nrouters; r++)
		tb->group_of[r] = (uint16_t)(r / t->a);
	for (uint32_t i = 0; i < t->nrouters * t->nports; i++)
		tb->peer_router[i] =
			t->ports[i].cls == DF_LINK_TERMINAL ||
					t->ports[i].peer == DF_NO_PEER
				? 0xffff
				: t->ports[i].peer;
	if (t->type == DF_TOPO_FLATFLY) {
		tb->flatfly = 1;
		fb_tables(tb, t);
		return 0;
	}
	for (uint32_t r = 0; r < t->nrouters; r++) {
		uint32_t G = r / t->a;

		for (uint32_t X = 0; X < t->g; X++)
			tb->port_to_group[r * t->g + X] =
				X == G ? DF_PORT_NONE : port_toward(t, r, X, 0);
		for (uint32_t d = 0; d < t->nrouters; d++) {
			uint8_t *e = &tb->port_to_router[r * t->nrouters + d];
			if (d == r)
				*e = DF_PORT_NONE;
			else if (d / t->a == G)
				*e = df_local_port(t, r % t->a, d % t->a);
			else
				*e = port_toward(t, r, d / t->a, d % t->a);
		}
	}
	if (df_tables_hops(tb)) {
		df_tables_free(tb);
		snprintf(err, errlen, "out of memory building routing tables");
		return -1;
	}
	return 0;
}

int df_tables_shortest(struct df_tables *tb, const struct df_topo *t, char *err,
		       size_t errlen)
{
	uint32_t n = tb->nrouters, routers[16];
	uint8_t *dist = malloc(n), ports[16], vcs[16];
	uint32_t *queue = malloc(n * sizeof(*queue));

	tb->short_inter = malloc((size_t)n * n * sizeof(*tb->short_inter));
	if (dist == NULL || queue == NULL || tb->short_inter == NULL) {
		free(dist), free(queue);
		snprintf(err, errlen, "out of memory building routing tables");
		return -1;
	}
	tb->short_pairs = 0;
	for (uint32_t s = 0; s < n; s++) {
		df_paths_bfs(t, s, dist, NULL, queue);
		for (uint32_t d = 0; d < n; d++) {
			uint16_t *e = &tb->short_inter[(size_t)s * n + d];
			*e = DF_NO_GROUP;
			if (d == s ||
			    df_path(tb, s, d, DF_NO_GROUP, DF_PH_TO_DEST,
				    routers, ports, vcs, 16) <= dist[d])
				continue;
			for (uint32_t gi = 0; gi < tb->g; gi++) {
				if (gi == s / tb->a || gi == d / tb->a)
					continue;
				if (df_path(tb, s, d, gi, DF_PH_TO_INTER,
					    routers, ports, vcs,
					    16) == dist[d]) {
					*e = (uint16_t)gi;
					tb->short_pairs++;
					break;
				}
			}
			if (*e == DF_NO_GROUP) {
				snprintf(err, errlen,
					 "routing.algorithm = shortest: no "
					 "Valiant path from router %u to %u is "
					 "as short as their distance %u",
					 s, d, dist[d]);
				free(dist), free(queue);
				return -1;
			}
		}
	}
	free(dist), free(queue);
	return 0;
}

void df_tables_free(struct df_tables *tb)
{
	free(tb->hop);
	free(tb->short_inter);
	free(tb->port_to_router);
	free(tb->port_to_group);
	free(tb->port_class);
	free(tb->peer_router);
	free(tb->group_of);
	free(tb->gone);
	free(tb->inter);
	memset(tb, 0, sizeof(*tb));
}

int df_path(const struct df_tables *tb, uint32_t src, uint32_t dst,
	    uint32_t inter, uint8_t phase, uint32_t *routers, uint8_t *ports,
	    uint8_t *vcs, int max)
{
	uint32_t cur = src;
	int n = 0;

	for (;;) {
		uint8_t vc;
		uint32_t port =
			df_next_hop(tb, cur, dst, 0, inter, &phase, &vc);

		if (port < tb->p)
			break; /* ejection at dst */
		if (n == max)
			return -1;
		routers[n] = cur;
		ports[n] = port;
		vcs[n] = vc;
		n++;
		cur = tb->peer_router[cur * tb->nports + port];
	}
	return n;
}
