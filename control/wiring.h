/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_WIRING_H
#define DF_WIRING_H

#include <stdint.h>
#include <stddef.h>

#include "config.h"

/*
 * Router port layout (the same on every router):
 *   [0, p)            terminal ports, port t connects terminal r*p + t
 *   [p, p+a-1)        local ports, one to every other router of the group
 *   [p+a-1, p+a-1+h)  global ports; global port k of router j is the
 *                     group's global port j*h + k ([DF] Fig. 6 numbering)
 */
#define DF_NO_PEER UINT32_MAX /* a global port left unused (odd g*a*h) */

struct df_port_info {
	uint8_t cls;	   /* enum df_link_class */
	uint8_t peer_port; /* port number at the far end (routers only) */
	uint16_t pad;
	uint32_t peer; /* far-end router, or terminal id */
};

struct df_topo {
	enum df_topo_type type;
	uint32_t k, n; /* flatfly: k-ary n-flat; p = a = k, g = k^(n-2) */
	uint32_t p, a, h, g;
	enum df_arrangement arrangement;
	uint32_t nrouters, nterms, nports;
	struct df_port_info *ports; /* [router * nports + port] */
};

static inline uint32_t df_router_group(const struct df_topo *t, uint32_t r)
{
	return r / t->a;
}

/* Local port of router i (index in group) that leads to router j. */
static inline uint32_t df_local_port(const struct df_topo *t, uint32_t i,
				     uint32_t j)
{
	return t->p + (j < i ? j : j - 1);
}

/* Build the wiring; returns 0 or -1 with a message in err. */
int df_topo_build(struct df_topo *t, const struct df_config *cfg, char *err,
		  size_t errlen);
void df_topo_free(struct df_topo *t);

/*
 * Check: every port used exactly once, links symmetric, classes match,
 * global links per group pair = a*h/(g-1). Returns 0 or -1 with a message.
 */
int df_topo_check(const struct df_topo *t, char *err, size_t errlen);

/* Number of bidirectional links of a class. */
uint32_t df_topo_count_links(const struct df_topo *t, enum df_link_class c);

#endif
