/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* Is port k of router r usable: wired, and not down (down may be NULL)? */
static int port_up(const struct df_topo *t, const uint8_t *down, uint32_t r,
		   uint32_t k)
{
	size_t i = (size_t)r * t->nports + k;

	return t->ports[i].peer != DF_NO_PEER && (down == NULL || !down[i]);
}

/* The k-th global link up (router index in group, port) from group G to
 * group H, or -1 if there are fewer. */
static int link_to(const struct df_topo *t, const uint8_t *down, uint32_t G,
		   uint32_t H, uint32_t k, uint32_t *from, uint32_t *port)
{
	uint32_t gbase = t->p + t->a - 1;

	for (uint32_t j = 0; j < t->a; j++)
		for (uint32_t q = 0; q < t->h; q++) {
			uint32_t r = G * t->a + j;
			const struct df_port_info *pi =
				&t->ports[r * t->nports + gbase + q];
			if (!port_up(t, down, r, gbase + q) ||
			    pi->peer / t->a != H)
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
 * A path through every router of group G from router in to router out
 * over local links up, into path[0..a-1]: with every link up, the entry,
 * the group's other routers in index order, the exit (the order the ring
 * has always had); with links down, the first such order a depth-first
 * search finds. Returns 0, or -1 if there is none.
 */
static int intra_dfs(const struct df_topo *t, const uint8_t *down, uint32_t G,
		     uint32_t out, uint32_t *path, uint32_t i, uint8_t *used)
{
	uint32_t a = t->a, x = path[i - 1];

	if (i == a)
		return x == out ? 0 : -1;
	for (uint32_t j = 0; j < a; j++) {
		uint32_t y = G * a + j;
		if (used[j] || (y == out && i + 1 < a) ||
		    !port_up(t, down, x, df_local_port(t, x % a, j)))
			continue;
		used[j] = 1;
		path[i] = y;
		if (intra_dfs(t, down, G, out, path, i + 1, used) == 0)
			return 0;
		used[j] = 0;
	}
	return -1;
}

static int intra_path(const struct df_topo *t, const uint8_t *down, uint32_t G,
		      uint32_t in, uint32_t out, uint32_t *path)
{
	uint8_t used[DF_MAX_RADIX] = {0}; /* a < radix (config_check.c) */

	path[0] = in;
	if (t->a == 1)
		return in == out ? 0 : -1;
	if (in == out)
		return -1;
	used[in % t->a] = 1;
	return intra_dfs(t, down, G, out, path, 1, used);
}

/* The ring from a group order seq[] and, for each group seq[i], the
 * router it is entered by (entry[i]) and the router and port it leaves by
 * toward seq[i+1], through the group on intra_path's order; -1 if some
 * group has no such path. */
static int assemble(struct df_ring *ring, const struct df_topo *t,
		    const uint8_t *down, const uint32_t *seq,
		    const uint32_t *entry, const uint32_t *exit_r,
		    const uint32_t *exit_p)
{
	uint32_t a = t->a, n = 0;

	for (uint32_t i = 0; i < t->g; i++) {
		if (intra_path(t, down, seq[i], entry[i], exit_r[i],
			       ring->order + n))
			return -1;
		n += a;
		ring->next[exit_r[i]] = (uint8_t)exit_p[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = ring->order[i], s = ring->order[(i + 1) % n];
		ring->pos[r] = i;
		if (r / a == s / a)
			ring->next[r] = (uint8_t)df_local_port(t, r % a, s % a);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = ring->order[i], s = ring->order[(i + 1) % n];
		ring->prev[s] =
			t->ports[r * t->nports + ring->next[r]].peer_port;
	}
	return 0;
}

/* Search state: groups in ring order so far, and the links chosen. */
struct search {
	const struct df_topo *t;
	const uint8_t *down; /* links down, or NULL */
	uint32_t *path;	     /* scratch: one group's routers */
	uint32_t *seq, *entry, *exit_r, *exit_p;
	uint8_t *used;
	uint64_t budget; /* node expansions left */
};

/*
 * Depth-first search for a group order (a Hamiltonian cycle of the group
 * graph) and links such that, in every group, the router it is entered
 * by differs from the router it is left by (a > 1), so the ring passes
 * through every router of the group. Group i is seq[i]; candidates are
 * tried by offset from it, so G -> G+1 orders come first.
 */
static int dfs(struct search *s, uint32_t i)
{
	const struct df_topo *t = s->t;
	uint32_t g = t->g, G = s->seq[i];
	int last = i + 1 == g;

	for (uint32_t o = 1; o < g; o++) {
		uint32_t H = last ? s->seq[0] : (G + o) % g;
		uint32_t from, port;
		if (!last && s->used[H])
			continue;
		for (uint32_t k = 0;
		     link_to(t, s->down, G, H, k, &from, &port) == 0; k++) {
			uint32_t in = t->ports[from * t->nports + port].peer;
			if (s->budget == 0)
				return -1;
			s->budget--;
			if (i > 0 && intra_path(t, s->down, G, s->entry[i],
						from, s->path))
				continue;
			if (last && intra_path(t, s->down, H, in, s->exit_r[0],
					       s->path))
				continue;
			s->exit_r[i] = from;
			s->exit_p[i] = port;
			if (last) {
				s->entry[0] = in;
				return 0;
			}
			s->seq[i + 1] = H;
			s->entry[i + 1] = in;
			s->used[H] = 1;
			if (dfs(s, i + 1) == 0)
				return 0;
			s->used[H] = 0;
			if (s->budget == 0)
				return -1;
		}
		if (last)
			break;
	}
	return -1;
}

/*
 * Group order G_0 = 0, G_{i+1} = G_i + step. For each hop choose a global
 * link so that, in every group, the router it enters by differs from the
 * router it leaves by (a > 1): a greedy walk over the parallel links,
 * which is exact when there is one link per pair (each choice forced).
 */
static int try_step(struct df_ring *ring, const struct search *s, uint32_t step)
{
	const struct df_topo *t = s->t;
	uint32_t g = t->g, *seq = s->seq, *entry = s->entry;
	uint32_t *exit_r = s->exit_r, *exit_p = s->exit_p;
	int ok = 1;

	for (uint32_t i = 0; i < g; i++)
		seq[i] = i * step % g;
	/* the link from group i (in ring order) to group i+1 */
	for (uint32_t i = 0; ok && i < g; i++) {
		uint32_t G = seq[i], H = seq[(i + 1) % g];
		uint32_t from, port, k = 0;
		ok = 0;
		while (link_to(t, s->down, G, H, k++, &from, &port) == 0) {
			uint32_t in = t->ports[from * t->nports + port].peer;
			/* G must be crossable from its entry (chosen before)
			 * to this exit; the first group is checked at the
			 * end */
			if (i > 0 &&
			    intra_path(t, s->down, G, entry[i], from, s->path))
				continue;
			if (i + 1 == g &&
			    intra_path(t, s->down, H, in, exit_r[0], s->path))
				continue;
			exit_r[i] = from;
			exit_p[i] = port;
			entry[(i + 1) % g] = in;
			ok = 1;
			break;
		}
	}
	if (!ok || assemble(ring, t, s->down, seq, entry, exit_r, exit_p))
		return -1;
	ring->step = step;
	return 0;
}

static int ring_up(const struct df_ring *ring, const struct df_topo *t,
		   const uint8_t *down, char *err, size_t errlen);

int df_ring_build(struct df_ring *ring, const struct df_topo *t, char *err,
		  size_t errlen)
{
	return df_ring_build_up(ring, t, NULL, err, errlen);
}

int df_ring_build_up(struct df_ring *ring, const struct df_topo *t,
		     const uint8_t *down, char *err, size_t errlen)
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
	struct search sr = {.t = t, .down = down, .budget = 4000000};
	uint32_t g = t->g;
	int found = 0;

	sr.seq = calloc(g, sizeof(uint32_t));
	sr.entry = calloc(g, sizeof(uint32_t));
	sr.exit_r = calloc(g, sizeof(uint32_t));
	sr.exit_p = calloc(g, sizeof(uint32_t));
	sr.used = calloc(g, 1);
	sr.path = calloc(t->a, sizeof(uint32_t));
	if (!sr.seq || !sr.entry || !sr.exit_r || !sr.exit_p || !sr.used ||
	    !sr.path)
		goto out;
	/* the regular orders first, then any order the search finds */
	for (uint32_t s = 1; !found && s < g; s++)
		found = df_gcd(s, g) == 1 && try_step(ring, &sr, s) == 0;
	if (!found) {
		sr.seq[0] = 0;
		sr.used[0] = 1;
		if (dfs(&sr, 0) == 0 &&
		    assemble(ring, t, down, sr.seq, sr.entry, sr.exit_r,
			     sr.exit_p) == 0) {
			ring->step = 0;
			found = 1;
		}
	}
out:
	free(sr.seq), free(sr.entry), free(sr.exit_r), free(sr.exit_p);
	free(sr.used), free(sr.path);
	if (found) {
		if (df_ring_check(ring, t, err, errlen) == 0 &&
		    ring_up(ring, t, down, err, errlen) == 0)
			return 0;
		df_ring_free(ring);
		return -1;
	}
	df_ring_free(ring);
	snprintf(err, errlen,
		 "escape ring: no Hamiltonian ring found for p=%u a=%u h=%u "
		 "g=%u %s%s: no group order (searched %s) lets every group be "
		 "entered and left through different routers%s",
		 t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement),
		 down ? " over the links up" : "",
		 sr.budget == 0 ? "until the search budget ran out"
				: "exhaustively",
		 down ? " and crossed over its local links up" : "");
	return -1;
}

/* No hop of the ring on a link that is down. */
static int ring_up(const struct df_ring *ring, const struct df_topo *t,
		   const uint8_t *down, char *err, size_t errlen)
{
	for (uint32_t r = 0; down && r < ring->n; r++)
		if (!port_up(t, down, r, ring->next[r])) {
			snprintf(err, errlen,
				 "escape ring: router %u's ring port %u is on "
				 "a link that is down",
				 r, ring->next[r]);
			return -1;
		}
	return 0;
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
