/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* The k-th global link (router index in group, port) from group G to
 * group H, or -1 if there are fewer. */
static int link_to(const struct df_topo *t, uint32_t G, uint32_t H, uint32_t k,
		   uint32_t *from, uint32_t *port)
{
	uint32_t gbase = t->p + t->a - 1;

	for (uint32_t j = 0; j < t->a; j++)
		for (uint32_t q = 0; q < t->h; q++) {
			const struct df_port_info *pi =
				&t->ports[(G * t->a + j) * t->nports + gbase +
					  q];
			if (pi->peer == DF_NO_PEER || pi->peer / t->a != H)
				continue;
			if (k-- == 0) {
				*from = G * t->a + j;
				*port = gbase + q;
				return 0;
			}
		}
	return -1;
}

/*
 * Group order G_0 = 0, G_{i+1} = G_i + step. For each hop choose a global
 * link so that, in every group, the router it enters by differs from the
 * router it leaves by (a > 1): a greedy walk over the parallel links,
 * which is exact when there is one link per pair (each choice forced).
 */
static int try_step(struct df_ring *ring, const struct df_topo *t,
		    uint32_t step)
{
	uint32_t g = t->g, a = t->a, n = 0;
	uint32_t *exit_r = malloc(g * sizeof(*exit_r));
	uint32_t *exit_p = malloc(g * sizeof(*exit_p));
	uint32_t *entry = malloc(g * sizeof(*entry));
	int ok = exit_r && exit_p && entry;

	/* the link from group i (in ring order) to group i+1 */
	for (uint32_t i = 0; ok && i < g; i++) {
		uint32_t G = i * step % g, H = (i + 1) * step % g;
		uint32_t from, port, k = 0;
		ok = 0;
		while (link_to(t, G, H, k++, &from, &port) == 0) {
			uint32_t in = t->ports[from * t->nports + port].peer;
			/* the entry into G (chosen before) must differ from
			 * this exit; the first group's entry is checked at
			 * the end */
			if (a > 1 && i > 0 && entry[i] == from)
				continue;
			if (a > 1 && i + 1 == g && in == exit_r[0])
				continue;
			exit_r[i] = from;
			exit_p[i] = port;
			entry[(i + 1) % g] = in;
			ok = 1;
			break;
		}
	}
	if (ok && a > 1 && entry[0] == exit_r[0])
		ok = 0;
	for (uint32_t i = 0; ok && i < g; i++) {
		uint32_t G = i * step % g, in = entry[i], out = exit_r[i];
		/* entry first, then the others in index order, exit last */
		ring->order[n++] = in;
		for (uint32_t j = 0; j < a; j++) {
			uint32_t r = G * a + j;
			if (r != in && r != out)
				ring->order[n++] = r;
		}
		if (out != in)
			ring->order[n++] = out;
		ring->next[out] = (uint8_t)exit_p[i];
	}
	if (ok) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t r = ring->order[i],
				 s = ring->order[(i + 1) % n];
			ring->pos[r] = i;
			if (r / a == s / a)
				ring->next[r] =
					(uint8_t)df_local_port(t, r % a, s % a);
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t r = ring->order[i],
				 s = ring->order[(i + 1) % n];
			ring->prev[s] = t->ports[r * t->nports + ring->next[r]]
						.peer_port;
		}
		ring->step = step;
	}
	free(exit_r);
	free(exit_p);
	free(entry);
	return ok ? 0 : -1;
}

int df_ring_build(struct df_ring *ring, const struct df_topo *t, char *err,
		  size_t errlen)
{
	uint32_t n = t->nrouters;

	memset(ring, 0, sizeof(*ring));
	if (t->g < 2) {
		snprintf(err, errlen,
			 "escape ring: needs at least 2 groups, have g = %u",
			 t->g);
		return -1;
	}
	ring->n = n;
	ring->order = calloc(n, sizeof(*ring->order));
	ring->pos = calloc(n, sizeof(*ring->pos));
	ring->next = calloc(n, 1);
	ring->prev = calloc(n, 1);
	if (!ring->order || !ring->pos || !ring->next || !ring->prev) {
		df_ring_free(ring);
		snprintf(err, errlen, "out of memory building the escape ring");
		return -1;
	}
	for (uint32_t s = 1; s < t->g; s++)
		if (df_gcd(s, t->g) == 1 && try_step(ring, t, s) == 0)
			return df_ring_check(ring, t, err, errlen);
	df_ring_free(ring);
	snprintf(err, errlen,
		 "escape ring: no Hamiltonian ring for p=%u a=%u h=%u g=%u "
		 "%s: for every group order G -> G+s (s coprime with g), some "
		 "group would be entered and left through the same router",
		 t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement));
	return -1;
}

void df_ring_free(struct df_ring *ring)
{
	free(ring->order);
	free(ring->pos);
	free(ring->next);
	free(ring->prev);
	memset(ring, 0, sizeof(*ring));
}

int df_ring_check(const struct df_ring *ring, const struct df_topo *t,
		  char *err, size_t errlen)
{
	uint8_t *seen = calloc(t->nrouters, 1);
	int rc = 0;

	if (seen == NULL || ring->n != t->nrouters) {
		snprintf(err, errlen, "escape ring: %u of %u routers", ring->n,
			 t->nrouters);
		free(seen);
		return -1;
	}
	for (uint32_t i = 0; i < ring->n && rc == 0; i++) {
		uint32_t r = ring->order[i], s = ring->order[(i + 1) % ring->n];
		const struct df_port_info *pi =
			&t->ports[r * t->nports + ring->next[r]];
		if (r >= t->nrouters || seen[r]++) {
			snprintf(err, errlen,
				 "escape ring: router %u visited twice", r);
			rc = -1;
		} else if (ring->n > 1 &&
			   (pi->cls == DF_LINK_TERMINAL || pi->peer != s)) {
			snprintf(err, errlen,
				 "escape ring: router %u port %u does not lead "
				 "to the next router %u",
				 r, ring->next[r], s);
			rc = -1;
		} else if (ring->n > 1 &&
			   t->ports[s * t->nports + ring->prev[s]].peer != r) {
			snprintf(err, errlen,
				 "escape ring: router %u's ring input port %u "
				 "does not come from %u",
				 s, ring->prev[s], r);
			rc = -1;
		}
	}
	free(seen);
	return rc;
}
