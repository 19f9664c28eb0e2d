/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dragonfly wiring ([DF] §3.1): fully connected groups of a routers, p
 * terminals and h global ports per router, global ports arranged as in the
 * shortest-paths paper ([SP] §III-IV, NOTES-paths-fbfly.md §A.3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiring.h"

/*
 * Global links between groups ([DF] §3.1: "each pair of groups connected
 * by at least ⌊(ah+1)/g⌋ channels"). Every pair gets k = ⌊ah/(g-1)⌋ links;
 * the r = ah mod (g-1) ports of a group left over form an r-regular
 * circulant graph over the groups (offsets ±1..±⌊r/2⌋, plus g/2 when r is
 * odd and g even), so each pair gets k or k+1 links and the wiring stays
 * symmetric. When g*a*h is odd no perfect matching exists: groups 2t and
 * 2t+1 share the odd extra link and the last group keeps one global port
 * unused (its last router's last port).
 */
static void pair_counts(uint32_t a, uint32_t h, uint32_t g, uint32_t *m)
{
	uint32_t ah = a * h, k = ah / (g - 1), r = ah % (g - 1);

	for (uint32_t G = 0; G < g; G++)
		for (uint32_t X = 0; X < g; X++)
			m[G * g + X] = G == X ? 0 : k;
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t j = 1; j <= r / 2; j++) {
			m[G * g + (G + j) % g]++;
			m[G * g + (G + g - j) % g]++;
		}
	if (r % 2 == 0)
		return;
	if (g % 2 == 0) {
		for (uint32_t G = 0; G < g; G++)
			m[G * g + (G + g / 2) % g]++;
	} else {
		for (uint32_t G = 0; G + 1 < g; G += 2) {
			m[G * g + G + 1]++;
			m[(G + 1) * g + G]++;
		}
	}
}

/*
 * Order of group G's a*h global ports ([SP] §III-IV names): blocks of one
 * link to every other group, as many full blocks as every pair has, then
 * the extra links, then an unused port if any. Within a block:
 *   relative: by offset, port k of the block goes to group G + k + 1;
 *   absolute: by group number, group k if k < G, else k + 1.
 * At maximum size (g = ah+1) this is exactly [SP]'s definition; with fewer
 * groups the copies of a pair's links land on different routers.
 */
static void port_targets(uint32_t g, enum df_arrangement arr, uint32_t G,
			 const uint32_t *m, uint32_t ah, uint32_t *tgt)
{
	uint32_t n = 0, kmin = UINT32_MAX;

	for (uint32_t X = 0; X < g; X++)
		if (X != G && m[G * g + X] < kmin)
			kmin = m[G * g + X];
	for (uint32_t c = 0; c <= kmin; c++)
		for (uint32_t j = 0; j + 1 < g; j++) {
			uint32_t X = arr == DF_ARR_RELATIVE
					     ? (G + j + 1) % g
					     : (j < G ? j : j + 1);
			if (c < kmin || m[G * g + X] > kmin)
				tgt[n++] = X;
		}
	while (n < ah)
		tgt[n++] = DF_NO_PEER;
}

/* Fill the global ports of every router from the per-group port lists:
 * the c-th link of G to X meets the c-th link of X to G. */
static int wire_global(struct df_topo *t, char *err, size_t errlen)
{
	uint32_t g = t->g, ah = t->a * t->h, gbase = t->p + t->a - 1;
	uint32_t *m = calloc((size_t)g * g, sizeof(*m));
	uint32_t *tgt = calloc((size_t)g * ah, sizeof(*tgt));
	uint32_t *copy = calloc((size_t)g * ah, sizeof(*copy));
	uint32_t *seen = calloc((size_t)g * g, sizeof(*seen));

	if (!m || !tgt || !copy || !seen) {
		free(m), free(tgt), free(copy), free(seen);
		snprintf(err, errlen, "out of memory building the wiring");
		return -1;
	}
	pair_counts(t->a, t->h, g, m);
	for (uint32_t G = 0; G < g; G++) {
		port_targets(g, t->arrangement, G, m, ah, &tgt[G * ah]);
		for (uint32_t i = 0; i < ah; i++)
			if (tgt[G * ah + i] != DF_NO_PEER)
				copy[G * ah + i] =
					seen[G * g + tgt[G * ah + i]]++;
	}
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t i = 0; i < ah; i++) {
			struct df_port_info *pi =
				&t->ports[(G * t->a + i / t->h) * t->nports +
					  gbase + i % t->h];
			uint32_t X = tgt[G * ah + i], xi = 0;

			pi->cls = DF_LINK_GLOBAL;
			pi->peer = DF_NO_PEER;
			if (X == DF_NO_PEER)
				continue;
			while (xi < ah &&
			       !(tgt[X * ah + xi] == G &&
				 copy[X * ah + xi] == copy[G * ah + i]))
				xi++;
			pi->peer = X * t->a + xi / t->h;
			pi->peer_port = gbase + xi % t->h;
		}
	free(m), free(tgt), free(copy), free(seen);
	return 0;
}

int df_topo_build(struct df_topo *t, const struct df_config *cfg, char *err,
		  size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->p = cfg->p;
	t->a = cfg->a;
	t->h = cfg->h;
	t->g = cfg->g;
	t->arrangement = cfg->arrangement;
	t->nrouters = t->a * t->g;
	t->nterms = t->p * t->nrouters;
	t->nports = t->p + t->a - 1 + t->h;
	t->ports = calloc((size_t)t->nrouters * t->nports, sizeof(*t->ports));
	if (t->ports == NULL) {
		snprintf(err, errlen, "out of memory building the wiring");
		return -1;
	}
	for (uint32_t r = 0; r < t->nrouters; r++) {
		uint32_t G = r / t->a, i = r % t->a;
		struct df_port_info *pi = &t->ports[r * t->nports];

		for (uint32_t k = 0; k < t->p; k++) {
			pi[k].cls = DF_LINK_TERMINAL;
			pi[k].peer = r * t->p + k;
		}
		for (uint32_t j = 0; j < t->a; j++) {
			if (j == i)
				continue;
			uint32_t port = df_local_port(t, i, j);
			pi[port].cls = DF_LINK_LOCAL;
			pi[port].peer = G * t->a + j;
			pi[port].peer_port = df_local_port(t, j, i);
		}
	}
	if (wire_global(t, err, errlen))
		return -1;
	return df_topo_check(t, err, errlen);
}

void df_topo_free(struct df_topo *t)
{
	free(t->ports);
	t->ports = NULL;
}

int df_topo_check(const struct df_topo *t, char *err, size_t errlen)
{
	uint32_t kmin = t->a * t->h / (t->g - 1);
	uint32_t kmax = kmin + (t->a * t->h % (t->g - 1) != 0);
	uint32_t unused = 0;
	uint32_t *pairs = calloc((size_t)t->g * t->g, sizeof(*pairs));
	int rc = -1;

	if (pairs == NULL) {
		snprintf(err, errlen, "out of memory checking the wiring");
		return -1;
	}
	for (uint32_t r = 0; r < t->nrouters; r++) {
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			const struct df_port_info *back;

			if (pi->cls == DF_LINK_GLOBAL &&
			    pi->peer == DF_NO_PEER) {
				unused++;
				continue;
			}
			if (pi->peer >= t->nrouters || pi->peer == r) {
				snprintf(err, errlen,
					 "wiring: router %u port %u leads to "
					 "invalid router %u",
					 r, k, pi->peer);
				goto out;
			}
			back = &t->ports[pi->peer * t->nports + pi->peer_port];
			if (back->peer != r || back->peer_port != k ||
			    back->cls != pi->cls) {
				snprintf(err, errlen,
					 "wiring: router %u port %u -> router "
					 "%u port %u is not symmetric",
					 r, k, pi->peer, pi->peer_port);
				goto out;
			}
			uint32_t G = r / t->a, X = pi->peer / t->a;
			if ((pi->cls == DF_LINK_LOCAL) != (G == X)) {
				snprintf(err, errlen,
					 "wiring: router %u port %u class "
					 "does not match its groups",
					 r, k);
				goto out;
			}
			if (pi->cls == DF_LINK_GLOBAL)
				pairs[G * t->g + X]++;
		}
	}
	for (uint32_t G = 0; G < t->g; G++)
		for (uint32_t X = 0; X < t->g; X++)
			if (X != G && (pairs[G * t->g + X] < kmin ||
				       pairs[G * t->g + X] > kmax)) {
				snprintf(err, errlen,
					 "wiring: groups %u and %u have %u "
					 "global links, expected %u..%u",
					 G, X, pairs[G * t->g + X], kmin, kmax);
				goto out;
			}
	/* only an odd number of global ports leaves one unused */
	if (unused > ((uint64_t)t->g * t->a * t->h) % 2) {
		snprintf(err, errlen, "wiring: %u global ports unused", unused);
		goto out;
	}
	rc = 0;
out:
	free(pairs);
	return rc;
}

uint32_t df_topo_count_links(const struct df_topo *t, enum df_link_class c)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nrouters * t->nports; i++)
		if (t->ports[i].cls == c && t->ports[i].peer != DF_NO_PEER)
			n++;
	/* terminal links have one end at a router, the others two */
	return c == DF_LINK_TERMINAL ? n : n / 2;
}
