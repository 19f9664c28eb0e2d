/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_RING_H
#define DF_RING_H

/*
 * OFAR's escape subnetwork ([OC] §III-A): a Hamiltonian ring through every
 * router, embedded in the dragonfly on one extra VC of the links it uses.
 * Inside a group it visits all routers over local links; between groups
 * it takes one global link from each group to the next in a cyclic order
 * of the groups.
 */
#include <stdint.h>
#include <stddef.h>

#include "wiring.h"

/* Greatest common divisor (group steps, all-to-all orders). */
static inline uint32_t df_gcd(uint32_t x, uint32_t y)
{
	while (y) {
		uint32_t t = x % y;
		x = y;
		y = t;
	}
	return x;
}

struct df_ring {
	uint32_t n;	 /* routers on the ring: all of them */
	uint32_t *order; /* [pos]: router at ring position pos */
	uint32_t *pos;	 /* [router]: its position */
	uint8_t *next;	 /* [router]: port toward order[pos + 1] */
	uint8_t *prev;	 /* [router]: port toward order[pos - 1] */
	uint32_t step;	 /* groups visited in order G, G+step, G+2*step... */
};

/*
 * Find a ring for the wiring t. It tries the group orders G -> G+s for
 * every s coprime with g, and every choice among parallel global links,
 * until each group is entered and left at different routers (a > 1).
 * Returns 0, or -1 with a message saying why none exists.
 */
int df_ring_build(struct df_ring *ring, const struct df_topo *t, char *err,
		  size_t errlen);
/*
 * The same over the links up: down[router * nports + port] marks a link
 * that is down (both ends), and the ring uses none of them; inside a
 * group it then takes any order of the routers its local links up allow.
 * Used when a link fails while OFAR runs (faults.c).
 */
int df_ring_build_up(struct df_ring *ring, const struct df_topo *t,
		     const uint8_t *down, char *err, size_t errlen);
void df_ring_free(struct df_ring *ring);

/* Check: every router exactly once, consecutive routers linked by the
 * stated ports. Returns 0 or -1 with a message. */
int df_ring_check(const struct df_ring *ring, const struct df_topo *t,
		  char *err, size_t errlen);

#endif
