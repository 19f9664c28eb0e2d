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

/* The ring from a group order seq[] and, for each group seq[i], the
 * router it is entered by (entry[i]) and the router and port it leaves by
 * toward seq[i+1]: entry first, the group's other routers in index order,
 * exit last. */
static void assemble(struct df_ring *ring, const struct df_topo *t,
		     const uint32_t *seq, const uint32_t *entry,
		     const uint32_t *exit_r, const uint32_t *exit_p)
{
	uint32_t a = t->a, n = 0;

	for (uint32_t i = 0; i < t->g; i++) {
		uint32_t G = seq[i], in = entry[i], out = exit_r[i];
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
}

/* Search state: groups in ring order so far, and the links chosen. */
struct search {
	const struct df_topo *t;
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
	uint32_t g = t->g, a = t->a, G = s->seq[i];
	int last = i + 1 == g;

	for (uint32_t o = 1; o < g; o++) {
		uint32_t H = last ? s->seq[0] : (G + o) % g;
		uint32_t from, port;
		if (!last && s->used[H])
			continue;
		for (uint32_t k = 0; link_to(t, G, H, k, &from, &port) == 0;
		     k++) {
			uint32_t in = t->ports[from * t->nports + port].peer;
			if (s->budget == 0)
				return -1;
			s->budget--;
			if (a > 1 && i > 0 && s->entry[i] == from)
				continue;
			if (a > 1 && last && in == s->exit_r[0])
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
static int try_step(struct df_ring *ring, const struct df_topo *t,
		    uint32_t step, uint32_t *seq, uint32_t *entry,
		    uint32_t *exit_r, uint32_t *exit_p)
{
	uint32_t g = t->g, a = t->a;
	int ok = 1;

	for (uint32_t i = 0; i < g; i++)
		seq[i] = i * step % g;
	/* the link from group i (in ring order) to group i+1 */
	for (uint32_t i = 0; ok && i < g; i++) {
		uint32_t G = seq[i], H = seq[(i + 1) % g];
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
	if (!ok)
		return -1;
	assemble(ring, t, seq, entry, exit_r, exit_p);
	ring->step = step;
	return 0;
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
	struct search sr = {.t = t, .budget = 4000000};
	uint32_t g = t->g;
	int found = 0;

	sr.seq = calloc(g, sizeof(uint32_t));
	sr.entry = calloc(g, sizeof(uint32_t));
	sr.exit_r = calloc(g, sizeof(uint32_t));
	sr.exit_p = calloc(g, sizeof(uint32_t));
	sr.used = calloc(g, 1);
	if (!sr.seq || !sr.entry || !sr.exit_r || !sr.exit_p || !sr.used)
		goto out;
	/* the regular orders first, then any order the search finds */
	for (uint32_t s = 1; !found && s < g; s++)
		found = df_gcd(s, g) == 1 &&
			try_step(ring, t, s, sr.seq, sr.entry, sr.exit_r,
				 sr.exit_p) == 0;
	if (!found) {
		sr.seq[0] = 0;
		sr.used[0] = 1;
		if (dfs(&sr, 0) == 0) {
			assemble(ring, t, sr.seq, sr.entry, sr.exit_r,
				 sr.exit_p);
			ring->step = 0;
			found = 1;
		}
	}
out:
	free(sr.seq), free(sr.entry), free(sr.exit_r), free(sr.exit_p);
	free(sr.used);
	if (found)
		return df_ring_check(ring, t, err, errlen);
	df_ring_free(ring);
	snprintf(err, errlen,
		 "escape ring: no Hamiltonian ring found for p=%u a=%u h=%u "
		 "g=%u %s: no group order (searched %s) lets every group be "
		 "entered and left through different routers",
		 t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement),
		 sr.budget == 0 ? "until the search budget ran out"
				: "exhaustively");
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
