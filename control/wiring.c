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
 * Global port i of group G. With g = a*h+1 every group pair has one link;
 * with fewer groups each pair has c = a*h/(g-1) parallel links. The group's
 * a*h ports are cut into c consecutive blocks ("copies") of g-1 ports; each
 * block is a complete maximum-size arrangement over the g groups. That
 * spreads the parallel links evenly (router j holds ports j*h..j*h+h-1, so
 * copies of a pair sit on different routers when g-1 >= h) and keeps the
 * wiring an involution (symmetric).
 *
 * relative ([SP] §III): offset d = (i mod (g-1)) + 1, port i goes to group
 *   G + d; at the far end it is port c(g-1) + (g-1-d). At maximum size this
 *   is "port k of group i connects to group i+k+1", far port ah-1-k.
 * absolute ([SP] §IV): j = i mod (g-1), port i goes to group j if j < G,
 *   else j+1; at the far end port c(g-1) + (G if G < X else G-1).
 */
void df_global_peer(uint32_t a, uint32_t h, uint32_t g, enum df_arrangement arr,
		    uint32_t G, uint32_t i, uint32_t *X, uint32_t *ix)
{
	uint32_t c = i / (g - 1), j = i % (g - 1);

	(void)a;
	(void)h;
	if (arr == DF_ARR_RELATIVE) {
		uint32_t d = j + 1;
		*X = (G + d) % g;
		*ix = c * (g - 1) + (g - 1 - d);
	} else {
		*X = j < G ? j : j + 1;
		*ix = c * (g - 1) + (G < *X ? G : G - 1);
	}
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
		for (uint32_t k = 0; k < t->h; k++) {
			uint32_t gi = i * t->h + k, X, xi;
			uint32_t port = t->p + t->a - 1 + k;

			df_global_peer(t->a, t->h, t->g, t->arrangement, G, gi,
				       &X, &xi);
			pi[port].cls = DF_LINK_GLOBAL;
			pi[port].peer = X * t->a + xi / t->h;
			pi[port].peer_port = t->p + t->a - 1 + xi % t->h;
		}
	}
	return df_topo_check(t, err, errlen);
}

void df_topo_free(struct df_topo *t)
{
	free(t->ports);
	t->ports = NULL;
}

int df_topo_check(const struct df_topo *t, char *err, size_t errlen)
{
	uint32_t per_pair = t->a * t->h / (t->g - 1);
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
			if (X != G && pairs[G * t->g + X] != per_pair) {
				snprintf(err, errlen,
					 "wiring: groups %u and %u have %u "
					 "global links, expected %u",
					 G, X, pairs[G * t->g + X], per_pair);
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
		if (t->ports[i].cls == c)
			n++;
	/* terminal links have one end at a router, the others two */
	return c == DF_LINK_TERMINAL ? n : n / 2;
}
