/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dragonfly wiring ([DF] §3.1): fully connected groups of a routers, p
 * terminals and h global ports per router, global ports arranged as in the
 * shortest-paths paper ([SP] §III-VII), or as an explicit link list.
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

/*
 * The [SP] arrangements at g = ah+1 (one link per group pair), by which
 * switch of group G holds the link to group X. The far end is then
 * owner(X, G), so every arrangement given this way is symmetric by
 * construction; each switch must own exactly h links. Offsets o = (X - G)
 * mod g in 1..ah (all checked by enumeration, tests/test_arrangements.c):
 *   circulant (§V, h even): switch (o-1)/(h/2) for o <= ah/2 (an up link),
 *     else (g-o-1)/(h/2) (down); the far end has the same switch number.
 *   helix (§VI, h2 = floor(h/2)): up links from switch (o-1)/h2 for
 *     o <= a*h2, landing one switch higher; for odd h the mutual link of
 *     switch o - a*h2 - 1; down links from switch ((g-o-1)/h2 + 1) mod a.
 *     [SP]'s printed down range is not symmetric with its up range; this
 *     is dfemu's repair (docs/topology.md: down links of switch j cover the
 *     offsets of switch j-1's up links). With h = 1 it is the relative
 *     arrangement.
 */
static uint32_t owner_of(const struct df_topo *t, uint32_t G, uint32_t X)
{
	uint32_t g = t->g, a = t->a, h = t->h, h2 = h / 2;
	uint32_t o = (X + g - G) % g;

	switch (t->arrangement) {
	case DF_ARR_CIRCULANT:
		return o <= a * h2 ? (o - 1) / h2 : (g - o - 1) / h2;
	case DF_ARR_HELIX:
		if (h2 && o <= a * h2)
			return (o - 1) / h2;
		if (h % 2 && o <= a * h2 + a)
			return o - a * h2 - 1;
		return ((g - o - 1) / h2 + 1) % a;
	default:
		return 0;
	}
}

/*
 * Nautilus ([SP] §VII): visit the switches group by group; each makes
 * links until it has h, to the next groups not yet linked to its group,
 * clockwise (increasing group number) from an even switch and
 * counterclockwise from an odd one, always landing on switch (its group
 * number) mod a ("All links made from switch S_{i,j} go to switch i mod
 * a"). The paper leaves the visiting details to Belka et al.; this is one
 * reading. A target switch already full is an error (never seen for
 * a <= 8, h <= 5).
 */
static int nautilus(const struct df_topo *t, uint32_t *own, char *err,
		    size_t errlen)
{
	uint32_t g = t->g, a = t->a, h = t->h;
	uint32_t *deg = calloc((size_t)g * a, sizeof(*deg));

	if (deg == NULL) {
		snprintf(err, errlen, "out of memory building the wiring");
		return -1;
	}
	for (size_t i = 0; i < (size_t)g * g; i++)
		own[i] = DF_NO_PEER;
	for (uint32_t i = 0; i < g; i++)
		for (uint32_t j = 0; j < a; j++)
			for (uint32_t s = 1; s < g && deg[i * a + j] < h; s++) {
				uint32_t x =
					j % 2 ? (i + g - s) % g : (i + s) % g;
				uint32_t tj = i % a;
				if (own[i * g + x] != DF_NO_PEER)
					continue;
				if (deg[x * a + tj] >= h) {
					snprintf(err, errlen,
						 "nautilus arrangement: switch "
						 "%u of group %u would need a "
						 "link to switch %u of group "
						 "%u, which has its %u already "
						 "(a = %u, h = %u)",
						 j, i, tj, x, h, a, h);
					free(deg);
					return -1;
				}
				own[i * g + x] = j;
				own[x * g + i] = tj;
				deg[i * a + j]++;
				deg[x * a + tj]++;
			}
	free(deg);
	return 0;
}

/* Ports from an owner table (own[G*g+X] = switch of G linked to X): a
 * switch's global ports in order of the offset of the group they reach. */
static int wire_owned(struct df_topo *t, const uint32_t *own, char *err,
		      size_t errlen)
{
	uint32_t g = t->g, a = t->a, h = t->h, gbase = t->p + a - 1;
	uint32_t *port = calloc((size_t)g * g, sizeof(*port));
	uint32_t *deg = calloc((size_t)g * a, sizeof(*deg));

	if (port == NULL || deg == NULL) {
		free(port), free(deg);
		snprintf(err, errlen, "out of memory building the wiring");
		return -1;
	}
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t o = 1; o < g; o++) {
			uint32_t X = (G + o) % g, j = own[G * g + X];
			if (j >= a || deg[G * a + j] >= h) {
				snprintf(err, errlen,
					 "%s arrangement: switch %u of group "
					 "%u would hold more than h = %u "
					 "global links (a = %u)",
					 df_arrangement_name(t->arrangement), j,
					 G, h, a);
				free(port), free(deg);
				return -1;
			}
			port[G * g + X] = gbase + deg[G * a + j]++;
		}
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t X = 0; X < g; X++) {
			if (X == G)
				continue;
			uint32_t r = G * a + own[G * g + X];
			struct df_port_info *pi =
				&t->ports[r * t->nports + port[G * g + X]];
			pi->cls = DF_LINK_GLOBAL;
			pi->peer = X * a + own[X * g + G];
			pi->peer_port = port[X * g + G];
		}
	free(port), free(deg);
	return 0;
}

static int wire_sp(struct df_topo *t, char *err, size_t errlen)
{
	uint32_t g = t->g;
	uint32_t *own = calloc((size_t)g * g, sizeof(*own));
	int rc;

	if (own == NULL) {
		snprintf(err, errlen, "out of memory building the wiring");
		return -1;
	}
	if (t->arrangement == DF_ARR_NAUTILUS) {
		rc = nautilus(t, own, err, errlen);
	} else {
		for (uint32_t G = 0; G < g; G++)
			for (uint32_t X = 0; X < g; X++)
				own[G * g + X] =
					X == G ? DF_NO_PEER : owner_of(t, G, X);
		rc = 0;
	}
	if (rc == 0)
		rc = wire_owned(t, own, err, errlen);
	free(own);
	return rc;
}

/*
 * arrangement = file:PATH: one global link per line, "G.R G.R" (group and
 * router index in the group of each end), '#' starts a comment. A
 * router's global ports are taken in the order its links appear. Checked
 * here for syntax and ranges (file and line named); df_topo_check then
 * checks the whole: every global port used, the links between each pair
 * of groups as [DF] §3.1 spreads them.
 */
static int wire_file(struct df_topo *t, const char *path, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	uint32_t a = t->a, gbase = t->p + a - 1;
	uint32_t *deg = calloc(t->nrouters, sizeof(*deg));
	char line[256];
	int ln = 0, rc = -1;

	if (f == NULL || deg == NULL) {
		snprintf(err, errlen,
			 "[topology] arrangement = file:%s: cannot read it",
			 path);
		goto out;
	}
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = gbase; k < t->nports; k++) {
			t->ports[r * t->nports + k].cls = DF_LINK_GLOBAL;
			t->ports[r * t->nports + k].peer = DF_NO_PEER;
		}
	while (fgets(line, sizeof(line), f)) {
		unsigned g1, r1, g2, r2;
		char extra;
		uint32_t u, v;
		ln++;
		line[strcspn(line, "#\r\n")] = '\0';
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (sscanf(line, " %u.%u %u.%u %c", &g1, &r1, &g2, &r2,
			   &extra) != 4) {
			snprintf(err, errlen,
				 "%s:%d: '%s' is not a link; allowed: "
				 "\"G.R G.R\" (group.router of each end)",
				 path, ln, line);
			goto out;
		}
		if (g1 >= t->g || g2 >= t->g || r1 >= a || r2 >= a ||
		    g1 == g2) {
			snprintf(err, errlen,
				 "%s:%d: %u.%u %u.%u: groups are 0..%u, "
				 "routers 0..%u, and a global link joins two "
				 "groups",
				 path, ln, g1, r1, g2, r2, t->g - 1, a - 1);
			goto out;
		}
		u = g1 * a + r1;
		v = g2 * a + r2;
		if (deg[u] >= t->h || deg[v] >= t->h) {
			snprintf(err, errlen,
				 "%s:%d: router %u.%u has its h = %u global "
				 "links already",
				 path, ln, deg[u] >= t->h ? g1 : g2,
				 deg[u] >= t->h ? r1 : r2, t->h);
			goto out;
		}
		struct df_port_info *pu =
			&t->ports[u * t->nports + gbase + deg[u]];
		struct df_port_info *pv =
			&t->ports[v * t->nports + gbase + deg[v]];
		pu->peer = v;
		pu->peer_port = gbase + deg[v];
		pv->peer = u;
		pv->peer_port = gbase + deg[u];
		deg[u]++;
		deg[v]++;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	free(deg);
	return rc;
}

/*
 * Flattened butterfly ([FB] §2.1 Eq. (1)): router i has coordinate
 * c_d = floor(i / k^(d-1)) mod k in dimension d = 1..n-1 and links to the
 * k-1 routers that differ from it in c_d alone. Dimension 1 is the
 * "group" clique (local ports, wired with the dragonfly's); dimension
 * d >= 2 takes global ports (d-2)(k-1).. in order of the other router's
 * coordinate.
 */
static int wire_flatfly(struct df_topo *t)
{
	uint32_t k = t->k, gbase = t->p + t->a - 1, stride = k;

	for (uint32_t d = 2; d < t->n; d++, stride *= k)
		for (uint32_t r = 0; r < t->nrouters; r++) {
			uint32_t c = r / stride % k;
			for (uint32_t m = 0; m < k; m++) {
				if (m == c)
					continue;
				uint32_t s = r - c * stride + m * stride;
				struct df_port_info *pi =
					&t->ports[r * t->nports + gbase +
						  (d - 2) * (k - 1) +
						  (m < c ? m : m - 1)];
				pi->cls = DF_LINK_GLOBAL;
				pi->peer = s;
				pi->peer_port = gbase + (d - 2) * (k - 1) +
						(c < m ? c : c - 1);
			}
		}
	return 0;
}

int df_topo_build(struct df_topo *t, const struct df_config *cfg, char *err,
		  size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->type = cfg->type;
	t->k = cfg->k;
	t->n = cfg->n;
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
	if (t->type == DF_TOPO_FLATFLY ? wire_flatfly(t)
	    : t->arrangement == DF_ARR_FILE
		    ? wire_file(t, cfg->arr_file, err, errlen)
	    : t->arrangement >= DF_ARR_CIRCULANT
		    ? wire_sp(t, err, errlen)
		    : wire_global(t, err, errlen)) {
		df_topo_free(t);
		return -1;
	}
	if (df_topo_check(t, err, errlen)) {
		if (t->arrangement == DF_ARR_FILE) {
			char why[256];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s", cfg->arr_file, why);
		}
		df_topo_free(t);
		return -1;
	}
	return 0;
}

void df_topo_free(struct df_topo *t)
{
	free(t->ports);
	t->ports = NULL;
}

/* Flattened butterfly: every router-to-router port leads to a router
 * that differs in exactly one coordinate ([FB] Eq. (1)). */
static int flatfly_check(const struct df_topo *t, char *err, size_t errlen)
{
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t q = t->p; q < t->nports; q++) {
			uint32_t s = t->ports[r * t->nports + q].peer, diff = 0;
			for (uint32_t x = r, y = s, d = 1; d < t->n;
			     d++, x /= t->k, y /= t->k)
				diff += x % t->k != y % t->k;
			if (s == DF_NO_PEER || diff != 1) {
				snprintf(err, errlen,
					 "wiring: flattened butterfly router "
					 "%u port %u does not lead to a router "
					 "one coordinate away",
					 r, q);
				return -1;
			}
		}
	return 0;
}

int df_topo_check(const struct df_topo *t, char *err, size_t errlen)
{
	/* dragonfly: links per group pair ([DF] §3.1); a flattened
	 * butterfly with one "group" has none */
	uint32_t kmin = t->g > 1 ? t->a * t->h / (t->g - 1) : 0;
	uint32_t kmax = t->g > 1 ? kmin + (t->a * t->h % (t->g - 1) != 0) : 0;
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
	if (t->type == DF_TOPO_FLATFLY) {
		rc = flatfly_check(t, err, errlen);
		goto out;
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
