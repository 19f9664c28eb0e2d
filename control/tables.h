/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_TABLES_H
#define DF_TABLES_H

/*
 * Routing tables as plain arrays: control/ builds them, the dataplane only
 * reads them. df_next_hop() is the one per-hop rule for table routing (MIN
 * and VAL, [DF] §4.1); control's deadlock check walks paths with this same
 * function, and the dataplane reads it from its memo (df_hop), built from
 * the same tables and checked against it (tests/test_faults.c), so the
 * check covers what the dataplane executes.
 */
#include <stdint.h>
#include <stddef.h>

#include "config.h"
#include "wiring.h"

#define DF_PORT_NONE 0xff
#define DF_NO_GROUP  0xffff
#define DF_FB_MAXDIM 12 /* 2-ary 13-flat: 4096 routers */

/* Path phases; the VC of a hop is vc_map[class][phase] ([DF] Fig. 7, as
 * §4.1's VC counts and §4.3.1's q(VC1)/q(VC0) describe it). Phases only move
 * forward along a path, so VCs numbered by phase rank never decrease. */
enum df_phase {
	/* PAR: a minimal hop inside the source group, taken provisionally:
	 * the next router may still send the packet to an intermediate group
	 * (progressive adaptive routing, [OC] §II ref. [7]). Local hops only:
	 * df_next_hop() turns it into TO_DEST on the first global hop. */
	DF_PH_SRC_MIN = 0,
	DF_PH_TO_INTER = 1, /* heading to the intermediate group (VAL) */
	DF_PH_TO_DEST = 2,  /* heading to the destination group */
	DF_PH_IN_DEST = 3,  /* hop into the destination group, and after */
	DF_NPHASE = 4,
};

struct df_tables {
	uint32_t a, g, p, nrouters, nports;
	uint8_t flatfly; /* a flattened butterfly: routes by fb_next_hop */
	/* flattened butterfly: k-ary, ndim = n-1 router dimensions, kpow[i]
	 * = k^i (dimension d is router-index digit d-1, [FB] Eq. (1)) */
	uint32_t k, ndim, kpow[DF_FB_MAXDIM + 1];
	uint8_t *port_to_router; /* [r * nrouters + dst]: MIN output port */
	uint8_t *port_to_group;	 /* [r * g + G]: output port toward group G */
	uint8_t *port_class;	 /* [port]: same on every router */
	uint16_t *peer_router;	 /* [r * nports + port] (routers only) */
	/* [r]: r's group (dragonfly: r / a). A load from a table of a few
	 * hundred bytes instead of a division on every hop: an integer
	 * division costs tens of cycles, and a hop took three
	 * (docs/performance.md, "Divisions on the hop") */
	uint16_t *group_of;
	uint8_t vc_map[DF_LINK_NCLASS][DF_NPHASE];
	uint8_t nvcs[DF_LINK_NCLASS]; /* VCs the plan uses per class */
	uint8_t phase_used[DF_LINK_NCLASS][DF_NPHASE];
	/* OFAR: 1 if ring links carry one escape VC, index nvcs[class],
	 * after the canonical ones ([OC] "(+1)") */
	uint8_t esc;
	/* shortest: [s * nrouters + d] the intermediate group whose VAL
	 * path is a shortest path, DF_NO_GROUP where the HM path is one */
	uint16_t *short_inter;
	uint64_t short_pairs; /* pairs routed through an intermediate group */
	/* a partitioned run that lost an instance (faults.h df_faults_lose):
	 * gone[router] = 1 for its routers, and the groups still there as
	 * intermediates (inter[0..ninter)); NULL and 0 while none is lost */
	uint8_t *gone;
	uint16_t *inter;
	uint32_t ninter;
	/* What df_next_hop reads of five tables toward a destination, in
	 * one byte (df_hop; dragonfly only, NULL on a flattened butterfly):
	 * hop[r * nrouters + d] is port_to_router's port (six bits:
	 * DF_MAX_RADIX), whether r is in d's group (DF_HOP_SAME) and
	 * whether the next router is (DF_HOP_NEXT). One byte a pair, as
	 * port_to_router: on the [OC] 5K network four bytes a pair were 3
	 * MB, and the hop slower. Built with the port tables, and again
	 * when they change (df_tables_hops) */
	uint8_t *hop;
};

#define DF_HOP_PORT 0x3fu
#define DF_HOP_SAME 0x40u
#define DF_HOP_NEXT 0x80u

/*
 * routing.algorithm = shortest ([SP] §I): every shortest path between
 * two switches is either the HM path or a short Valiant path (gg, ggl,
 * lgg, glg), i.e. VAL's path through the group of its middle switch(es).
 * For each pair this picks such a group (the first in group order whose
 * VAL walk -- df_next_hop, as the dataplane takes it -- is as short as the
 * true distance), so the VC plan and deadlock check of VAL cover it.
 */
int df_tables_shortest(struct df_tables *tb, const struct df_topo *t, char *err,
		       size_t errlen);

/*
 * One routing step at router cur for a packet to router dst (terminal port
 * dport there) through intermediate group inter (DF_NO_GROUP: minimal).
 * Updates *phase, returns the output port and writes its VC.
 */
/*
 * Flattened butterfly ([FB] §3.1): dimension-order routing, toward the
 * intermediate router inter (VAL's phase 1, DF_PH_TO_INTER) and then the
 * destination (DF_PH_TO_DEST). One hop per differing coordinate, lowest
 * dimension first, so channel dependencies only go up in dimension; VAL
 * adds one VC per phase.
 */
static inline uint32_t fb_next_hop(const struct df_tables *t, uint32_t cur,
				   uint32_t dst, uint32_t dport, uint32_t inter,
				   uint8_t *phase, uint8_t *vc)
{
	uint32_t target, port;

	if (*phase == DF_PH_TO_INTER && (cur == inter || inter == DF_NO_GROUP))
		*phase = DF_PH_TO_DEST;
	target = *phase == DF_PH_TO_INTER ? inter : dst;
	if (cur == dst && *phase != DF_PH_TO_INTER) {
		*vc = 0;
		return dport; /* ejection */
	}
	port = t->port_to_router[cur * t->nrouters + target];
	*vc = t->vc_map[t->port_class[port]][*phase];
	return port;
}

/* Coordinate of router r in dimension dim (1..ndim). */
static inline uint32_t fb_digit(const struct df_tables *t, uint32_t r,
				uint32_t dim)
{
	return r / t->kpow[dim - 1] % t->k;
}

/* Port of router r to the router with coordinate m in dimension dim (m
 * differs from r's): the (k-1) ports of each dimension in order, after the
 * p terminal ports (wiring.c, [FB] Eq. (1)). */
static inline uint32_t fb_port(const struct df_tables *t, uint32_t r,
			       uint32_t dim, uint32_t m)
{
	uint32_t c = fb_digit(t, r, dim);

	return t->p + (dim - 1) * (t->k - 1) + (m < c ? m : m - 1);
}

/* Router-to-router distance: the number of differing coordinates. */
static inline uint32_t fb_dist(const struct df_tables *t, uint32_t x,
			       uint32_t y)
{
	uint32_t n = 0;

	for (uint32_t d = 0; d < t->ndim; d++, x /= t->k, y /= t->k)
		n += x % t->k != y % t->k;
	return n;
}

/*
 * VC of a hop of the adaptive flattened-butterfly algorithms ([FB] §3.1):
 * a minimal packet uses VC ndim - (hops remaining), "the VC channel
 * selected based on the number of hops remaining" (n' VCs); a packet with
 * a Valiant phase uses VC = hops taken (2n' VCs). Either way the VC
 * index rises by at least one per hop, so no channel dependency closes a
 * cycle, whatever output the adaptive choice takes (vcplan.c checks it).
 */
static inline uint8_t fb_vc(const struct df_tables *t, uint32_t hops,
			    uint32_t remaining, int nonmin)
{
	return (uint8_t)(nonmin ? hops : t->ndim - remaining);
}

/* c ? a : b for c of 0 or 1, by a mask: df_next_hop's tests follow the
 * traffic, and as branches they were mispredicted 0.78 times a router hop
 * in callgrind's simulation of the hop bench (docs/performance.md). */
static inline uint32_t df_sel(uint32_t c, uint32_t a, uint32_t b)
{
	return b ^ ((a ^ b) & (0u - c));
}

static inline uint32_t df_next_hop(const struct df_tables *t, uint32_t cur,
				   uint32_t dst, uint32_t dport, uint32_t inter,
				   uint8_t *phase, uint8_t *vc)
{
	uint32_t cg, dg, port, p, ph, next, to_inter, eject;

	if (__builtin_expect(t->flatfly, 0))
		return fb_next_hop(t, cur, dst, dport, inter, phase, vc);
	cg = t->group_of[cur];
	dg = t->group_of[dst];
	p = *phase;

	/* [DF] §4.1 VAL steps 1-2 end on arrival in Gi; MIN starts here. */
	if (p == DF_PH_TO_INTER &&
	    (cg == inter || inter == dg || inter == DF_NO_GROUP))
		p = DF_PH_TO_DEST;
	to_inter = p == DF_PH_TO_INTER;
	/* intra-group traffic on a Valiant path leaves the group first */
	p = df_sel((cg == dg) & !to_inter, DF_PH_IN_DEST, p);
	/* at the destination router: its terminal's port (ejection), VC 0;
	 * the lines below then read port 0's entries, in bounds, and their
	 * results are masked out */
	eject = (cur == dst) & !to_inter;
	if (to_inter)
		port = t->port_to_group[cur * t->g + inter];
	else
		port = df_sel(eject, 0,
			      t->port_to_router[cur * t->nrouters + dst]);
	p = df_sel((p == DF_PH_SRC_MIN) &
			   (t->port_class[port] != DF_LINK_LOCAL),
		   DF_PH_TO_DEST, p);
	next = df_sel(eject, cur, t->peer_router[cur * t->nports + port]);
	ph = df_sel((t->group_of[next] == dg) & (p != DF_PH_TO_INTER),
		    DF_PH_IN_DEST, p);
	*phase = (uint8_t)p;
	*vc = (uint8_t)df_sel(eject, 0, t->vc_map[t->port_class[port]][ph]);
	return df_sel(eject, dport, port);
}

/*
 * df_next_hop from the memo df_tables_hops built of it (t->hop not NULL:
 * a dragonfly's tables): the same port, phase and VC by the same masks,
 * from one byte of hop (toward an intermediate group: port_to_group's)
 * and two small tables, where df_next_hop read five, two of them a line
 * each a hop
 * (docs/performance.md, "Routing from one byte").
 */
static inline uint32_t df_hop(const struct df_tables *t, uint32_t cur,
			      uint32_t dst, uint32_t dport, uint32_t inter,
			      uint8_t *phase, uint8_t *vc)
{
	uint32_t p = *phase, e, port, cls, ph, eject = cur == dst;

	if (p == DF_PH_TO_INTER) {
		if (inter != DF_NO_GROUP && inter != t->group_of[cur] &&
		    inter != t->group_of[dst]) {
			/* [DF] §4.1 VAL step 1: toward the intermediate
			 * group; the phase stays */
			port = t->port_to_group[cur * t->g + inter];
			*vc = t->vc_map[t->port_class[port]][DF_PH_TO_INTER];
			return port;
		}
		p = DF_PH_TO_DEST; /* in Gi, or no Gi to reach */
	}
	e = t->hop[cur * t->nrouters + dst];
	port = e & DF_HOP_PORT;
	cls = t->port_class[port];
	p = df_sel((e & DF_HOP_SAME) != 0, DF_PH_IN_DEST, p);
	p = df_sel((p == DF_PH_SRC_MIN) & (cls != DF_LINK_LOCAL), DF_PH_TO_DEST,
		   p);
	ph = df_sel((e & DF_HOP_NEXT) != 0, DF_PH_IN_DEST, p);
	*phase = (uint8_t)p;
	*vc = (uint8_t)df_sel(eject, 0, t->vc_map[cls][ph]);
	return df_sel(eject, dport, port);
}

/* df_path_len by df_next_hop's own steps (the flattened butterfly's, and
 * the reference df_path_len is checked against: tests/test_faults.c). */
static inline uint32_t df_path_len_walk(const struct df_tables *t, uint32_t cur,
					uint32_t dst, uint32_t inter,
					uint32_t *grouter, uint32_t *gport)
{
	uint8_t phase = inter == DF_NO_GROUP ? DF_PH_TO_DEST : DF_PH_TO_INTER;
	uint32_t n = 0;

	*grouter = UINT32_MAX;
	while (n < 16) {
		uint8_t vc;
		uint32_t port = df_next_hop(t, cur, dst, 0, inter, &phase, &vc);

		if (port < t->p)
			break; /* ejection */
		if (*grouter == UINT32_MAX &&
		    t->port_class[port] == DF_LINK_GLOBAL) {
			*grouter = cur;
			*gport = port;
		}
		cur = t->peer_router[cur * t->nports + port];
		n++;
	}
	return n;
}

/* Router-to-router hops from cur to dst through inter (DF_NO_GROUP:
 * minimal) and the first global hop on the way (*grouter, *gport), if
 * any (*grouter = UINT32_MAX otherwise). On a dragonfly the walk takes
 * only the ports of df_next_hop's steps (toward the intermediate group
 * until in it or in the destination's, then toward the destination,
 * ejection ending it), not their phases and VCs: UGAL's decision walks
 * both of its paths, and df_next_hop's steps were three quarters of it. */
static inline uint32_t df_path_len(const struct df_tables *t, uint32_t cur,
				   uint32_t dst, uint32_t inter,
				   uint32_t *grouter, uint32_t *gport)
{
	uint32_t n = 0, dg, to_inter = inter != DF_NO_GROUP;

	if (__builtin_expect(t->flatfly, 0))
		return df_path_len_walk(t, cur, dst, inter, grouter, gport);
	dg = t->group_of[dst];
	*grouter = UINT32_MAX;
	while (n < 16) {
		uint32_t port;

		if (to_inter && (t->group_of[cur] == inter || inter == dg))
			to_inter = 0;
		if (to_inter)
			port = t->port_to_group[cur * t->g + inter];
		else if (cur == dst)
			break; /* ejection */
		else
			port = t->port_to_router[cur * t->nrouters + dst];
		if (port < t->p)
			break;
		if (*grouter == UINT32_MAX &&
		    t->port_class[port] == DF_LINK_GLOBAL) {
			*grouter = cur;
			*gport = port;
		}
		cur = t->peer_router[cur * t->nports + port];
		n++;
	}
	return n;
}

int df_tables_build(struct df_tables *tb, const struct df_topo *t, char *err,
		    size_t errlen);
void df_tables_free(struct df_tables *tb);

/* Build tb's hop from its port tables (a dragonfly's; nothing on a
 * flattened butterfly). -1 out of memory. */
int df_tables_hops(struct df_tables *tb);

/* Path from router src to router dst (minimal if inter == DF_NO_GROUP)
 * starting in phase; fills up to max hops with (router, port, VC) and
 * returns the hop count between routers, or -1 if it loops. */
int df_path(const struct df_tables *tb, uint32_t src, uint32_t dst,
	    uint32_t inter, uint8_t phase, uint32_t *routers, uint8_t *ports,
	    uint8_t *vcs, int max);

#endif
