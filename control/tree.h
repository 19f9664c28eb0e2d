/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_TREE_H
#define DF_TREE_H

/*
 * OFAR's tree escape subnetwork ([OC] §III-B, Fig. 1(b)): a spanning tree
 * rooted at router R_root of group G_root, embedded on the escape VC of
 * the links it uses. Laid over the links up, each router joining by a
 * path from the root with the fewest global hops, then the fewest local
 * hops, so that with the full wiring the root's group hangs from the
 * root, every other group from the root's group by one global link and
 * the rest of that group from the router entered by local links: [OC]'s
 * tree, whose paths are at most 6 hops (§VI-B). Routing in it is up-down: a
 * packet goes up toward the root until it reaches an ancestor of its
 * destination, then down ("what makes it deadlock-free", §III-B).
 */
#include <stdint.h>
#include <stddef.h>

#include "tables.h"
#include "vcplan.h"
#include "wiring.h"

struct df_tree {
	uint32_t n, nports; /* routers (all), ports per router */
	uint32_t root;	    /* R_root: the first router of G_root */
	uint32_t root_group;
	uint32_t height;       /* deepest router's depth */
	uint32_t global_edges; /* tree edges that are global links */
	uint32_t *parent;  /* [router]: parent router (the root's: itself) */
	uint32_t *depth;   /* [router] */
	uint32_t *lo, *hi; /* [router]: preorder interval of its subtree */
	uint8_t *up;	   /* [router]: port toward the parent (root: none) */
	uint8_t *next;	   /* [r * n + d]: tree port at r toward d */
	uint8_t *on;	   /* [r * nports + port]: 1 on a tree edge */
	uint8_t *on_tree;  /* [router]: joined (while laying it) */
};

/*
 * Lay the tree over the links up (down[router * nports + port] marks a
 * link down, both ends; NULL: all up), rooted at the first router of
 * group root_group. Returns 0, or -1 with a message saying why (the
 * links up leave some router unreachable from the root).
 */
int df_tree_build(struct df_tree *tr, const struct df_topo *t,
		  const uint8_t *down, uint32_t root_group, char *err,
		  size_t errlen);
void df_tree_free(struct df_tree *tr);

/*
 * Check: every router reached once, each tree edge an existing link up
 * with its two ends agreeing, next[] up-down (up to an ancestor of the
 * destination, then down). Returns 0 or -1 with a message.
 */
int df_tree_check(const struct df_tree *tr, const struct df_topo *t,
		  const uint8_t *down, char *err, size_t errlen);

/*
 * The deadlock check of the escape channels: the channel-dependency
 * graph over (tree link, escape VC) channels, one edge per (channel,
 * destination) a packet of the tree can hold and wait on, must be
 * acyclic (vcplan.c's df_cdg_check, tb's VC counts: the escape VC is
 * nvcs[class]). Returns 0, or -1 with the cycle in err.
 */
int df_tree_cdg_check(const struct df_tree *tr, const struct df_tables *tb,
		      struct df_vcplan_info *info, char *err, size_t errlen);

/* Is d in the subtree of r (r an ancestor of d, or d itself)? */
static inline int df_tree_below(const struct df_tree *tr, uint32_t r,
				uint32_t d)
{
	return tr->lo[r] <= tr->lo[d] && tr->lo[d] < tr->hi[r];
}

/* The escape port at router r toward router d (r != d). */
static inline uint32_t df_tree_next(const struct df_tree *tr, uint32_t r,
				    uint32_t d)
{
	return tr->next[(size_t)r * tr->n + d];
}

/*
 * Does a packet to d that arrived at r on in_port ride the tree: in_port
 * a tree edge, and its next hop not straight back over it? A tree packet
 * never turns back (it came down only toward d's subtree, or up from a
 * subtree without d). Any other packet in an escape buffer (one a link
 * change left on an edge of an older tree) enters the tree again, with
 * the entry's bubble rule.
 */
static inline int df_tree_feeds(const struct df_tree *tr, uint32_t r,
				uint32_t in_port, uint32_t d)
{
	return tr->on[(size_t)r * tr->nports + in_port] &&
	       df_tree_next(tr, r, d) != in_port;
}

/* Tree edges (router -> parent) of x that y does not have. */
uint32_t df_tree_changes(const struct df_tree *x, const struct df_tree *y);

#endif
