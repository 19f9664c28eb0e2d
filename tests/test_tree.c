/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OFAR's tree escape ([OC] §III-B, control/tree.c), without EAL: on many
 * shapes and both arrangements the tree spans every router over existing
 * links, is [OC] Fig. 1(b)'s (the root's group, one global link into each
 * other group, local links below it), routes up-down, and its escape
 * channels' dependency graph is acyclic; a tree routed otherwise is
 * refused by both checks. Under link failures (each of the reference's
 * links alone through the fault path, and random sets of links) it is
 * laid again over the links up exactly when it must, and refused with a
 * clear message exactly when the links up leave the network disconnected.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "faults.h"
#include "tables.h"
#include "tree.h"
#include "vcplan.h"
#include "wiring.h"

struct net {
	struct df_config cfg;
	struct df_topo t;
	struct df_tables tb;
};

static int net_init(struct net *n, uint32_t p, uint32_t a, uint32_t h,
		    uint32_t g, enum df_arrangement arr)
{
	char err[512];

	df_config_defaults(&n->cfg);
	n->cfg.p = p;
	n->cfg.a = a;
	n->cfg.h = h;
	n->cfg.g = g;
	n->cfg.arrangement = arr;
	n->cfg.algorithm = DF_ALG_OFAR;
	n->cfg.escape_net = DF_ESC_TREE;
	if (df_topo_build(&n->t, &n->cfg, err, sizeof(err)) ||
	    df_tables_build(&n->tb, &n->t, err, sizeof(err)) ||
	    df_vcplan_build(&n->tb, &n->cfg, NULL, err, sizeof(err))) {
		CHECK(0, "network p=%u a=%u h=%u g=%u: %s", p, a, h, g, err);
		return -1;
	}
	return 0;
}

static void net_free(struct net *n)
{
	df_tables_free(&n->tb);
	df_topo_free(&n->t);
}

/*
 * Independent of tree.c's own check: every router reaches the root by
 * parent edges that are links up of the wiring; every router pair's path
 * by df_tree_next arrives over tree edges, first only up (depth falling),
 * then only down, in at most 2 x height hops. Returns 0 or -1 with why.
 */
static int verify(const struct df_tree *tr, const struct df_topo *t,
		  const uint8_t *down, char *why, size_t n)
{
	uint32_t nr = t->nrouters;

	for (uint32_t r = 0; r < nr; r++) {
		uint32_t x = r, steps = 0;
		while (x != tr->root && steps++ <= nr) {
			const struct df_port_info *pi =
				&t->ports[x * t->nports + tr->up[x]];
			if (pi->peer != tr->parent[x] ||
			    (down && down[x * t->nports + tr->up[x]])) {
				snprintf(why, n, "r%u's parent edge", x);
				return -1;
			}
			x = pi->peer;
		}
		if (x != tr->root) {
			snprintf(why, n, "r%u does not reach the root", r);
			return -1;
		}
	}
	for (uint32_t s = 0; s < nr; s++)
		for (uint32_t d = 0; d < nr; d++) {
			uint32_t x = s, hops = 0, going_down = 0;
			while (x != d && hops <= 2 * tr->height) {
				uint32_t k = df_tree_next(tr, x, d);
				uint32_t y = t->ports[x * t->nports + k].peer;
				int up = tr->depth[y] + 1 == tr->depth[x];
				if (!tr->on[x * t->nports + k] ||
				    (up && going_down) ||
				    (!up && tr->depth[y] != tr->depth[x] + 1)) {
					snprintf(why, n,
						 "r%u -> r%u: hop r%u.p%u not "
						 "up-down",
						 s, d, x, k);
					return -1;
				}
				going_down |= !up;
				x = y;
				hops++;
			}
			if (x != d) {
				snprintf(why, n, "r%u -> r%u does not arrive",
					 s, d);
				return -1;
			}
		}
	return 0;
}

/* Is the network connected over the links up (a BFS of its own)? */
static int connected(const struct df_topo *t, const uint8_t *down)
{
	uint32_t *q = malloc(t->nrouters * sizeof(*q)), head = 0, tail = 0;
	uint8_t *seen = calloc(t->nrouters, 1);

	q[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		uint32_t x = q[head++];
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[x * t->nports + k];
			if (pi->peer == DF_NO_PEER || down[x * t->nports + k] ||
			    seen[pi->peer])
				continue;
			seen[pi->peer] = 1;
			q[tail++] = pi->peer;
		}
	}
	free(q);
	free(seen);
	return tail == t->nrouters;
}

static void full_wiring(uint32_t p, uint32_t a, uint32_t h, uint32_t g,
			enum df_arrangement arr)
{
	struct net n;
	struct df_tree tr;
	struct df_vcplan_info info;
	char err[512] = "", why[256] = "";
	uint32_t G = g / 2; /* a root group other than 0 */

	if (net_init(&n, p, a, h, g, arr))
		return;
	int built = df_tree_build(&tr, &n.t, NULL, G, err, sizeof(err)) == 0;
	CHECK(built && df_tree_check(&tr, &n.t, NULL, err, sizeof(err)) == 0 &&
		      verify(&tr, &n.t, NULL, why, sizeof(why)) == 0 &&
		      tr.root == G * a,
	      "tree p=%u a=%u h=%u g=%u %s, root group %u: spans all %u "
	      "routers over existing links, up-down paths %s%s",
	      p, a, h, g, df_arrangement_name(arr), G, n.t.nrouters, err, why);
	if (!built) {
		net_free(&n);
		return;
	}
	int cdg = df_tree_cdg_check(&tr, &n.tb, &info, err, sizeof(err));
	CHECK(cdg == 0 && (info.channels > 0 || tr.n <= 2) &&
		      info.channels <= 2 * (tr.n - 1),
	      "  its escape channels' dependency graph is acyclic (%llu "
	      "channels, %llu dependencies) %s",
	      (unsigned long long)info.channels,
	      (unsigned long long)info.dependencies, cdg ? err : "");
	/* one link between every pair of groups: exactly [OC] Fig. 1(b) */
	if (g == a * h + 1 && a > 1)
		CHECK(tr.global_edges == g - 1 && tr.height == 3,
		      "  [OC] Fig. 1(b): %u global edges (one into each other "
		      "group), %u levels below the root (paths of at most 6 "
		      "hops)",
		      tr.global_edges, tr.height);
	df_tree_free(&tr);
	net_free(&n);
}

/* Trees routed otherwise: a packet sent down to a child and back up
 * (r -> c -> r) closes a two-channel cycle; both checks refuse it. */
static void bad_tree(void)
{
	struct net n;
	struct df_tree tr;
	char err[512] = "";

	if (net_init(&n, 2, 4, 2, 9, DF_ARR_RELATIVE) ||
	    df_tree_build(&tr, &n.t, NULL, 0, err, sizeof(err))) {
		CHECK(0, "bad tree: %s", err);
		return;
	}
	/* c: a child of the root; d: a router outside c's subtree */
	uint32_t c = 1, d = 0;
	while (tr.parent[c] != tr.root || c == tr.root)
		c++;
	while (d == tr.root || df_tree_below(&tr, c, d))
		d++;
	uint32_t to_c = n.t.ports[c * n.t.nports + tr.up[c]].peer_port;
	tr.next[tr.root * tr.n + d] = (uint8_t)to_c; /* down, wrongly */
	tr.next[c * tr.n + d] = tr.up[c];	     /* and up again */
	CHECK(df_tree_check(&tr, &n.t, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "not up-down"),
	      "a tree routing r%u -> r%u down to r%u and back: refused by "
	      "the tree check (%s)",
	      tr.root, d, c, err);
	CHECK(df_tree_cdg_check(&tr, &n.tb, NULL, err, sizeof(err)) != 0 &&
		      strstr(err, "cycle"),
	      "  and by the channel-dependency check (%s)", err);
	df_tree_free(&tr);
	CHECK(df_tree_build(&tr, &n.t, NULL, 9, err, sizeof(err)) != 0 &&
		      strstr(err, "root group 9") && strstr(err, "0..8"),
	      "a root group outside the network is refused (%s)", err);
	df_tree_free(&tr);
	net_free(&n);
}

/* Each of the reference's 90 links down alone, through the fault path
 * (df_faults_set): a checked tree over the links left up, different from
 * the full wiring's exactly when the link was on it, and the same again
 * once the link is back. */
static void fault_path(void)
{
	struct net n;
	struct df_faults f;
	struct df_tree base, tr, back;
	struct df_tables nt, bt;
	char err[512] = "", why[256] = "";
	int tried = 0, refused = 0, on = 0, ok = 1, ok_same = 1, ok_back = 1;

	if (net_init(&n, 2, 4, 2, 9, DF_ARR_RELATIVE) ||
	    df_tree_build(&base, &n.t, NULL, 0, err, sizeof(err)) ||
	    df_faults_init(&f, &n.t, &n.tb, DF_ALG_OFAR, err, sizeof(err))) {
		CHECK(0, "fault path: %s", err);
		return;
	}
	f.tree_root = 0;
	for (uint32_t r = 0; r < n.t.nrouters; r++)
		for (uint32_t p = n.t.p; p < n.t.nports; p++) {
			const struct df_port_info *pi =
				&n.t.ports[r * n.t.nports + p];
			int was_on = base.on[r * n.t.nports + p];
			if (pi->peer < r)
				continue;
			tried++;
			if (df_faults_set(&f, r, p, 1, &nt, NULL, &tr, err,
					  sizeof(err))) {
				refused++;
				continue;
			}
			on += was_on;
			ok &= df_tree_check(&tr, &n.t, f.down, err,
					    sizeof(err)) == 0 &&
			      verify(&tr, &n.t, f.down, why, sizeof(why)) ==
				      0 &&
			      !tr.on[r * n.t.nports + p];
			ok_same &= was_on == (df_tree_changes(&tr, &base) > 0);
			df_tables_free(&nt);
			df_tree_free(&tr);
			if (df_faults_set(&f, r, p, 0, &bt, NULL, &back, err,
					  sizeof(err))) {
				ok_back = 0;
				break;
			}
			ok_back &= df_tree_changes(&back, &base) == 0;
			df_tables_free(&bt);
			df_tree_free(&back);
		}
	CHECK(refused == 0 && tried == 90 && on == 35 && ok,
	      "tree, each of the reference's %d links down alone: a tree "
	      "over the links left up, checked, deadlock check passed (%d "
	      "links were on the tree; %d refused) %s%s",
	      tried, on, refused, refused ? err : "", why);
	CHECK(ok_same, "tree: laid again exactly when the failed link was on "
		       "it");
	CHECK(ok_back, "tree: each link back up gives back the full wiring's "
		       "tree");
	df_faults_free(&f);
	df_tree_free(&base);
	net_free(&n);
}

/* Random sets of links down (a seeded generator): a tree whenever the
 * links up connect every router, and otherwise a refusal that names a
 * router the root cannot reach. */
static void random_failures(void)
{
	struct net n;
	struct df_tree tr;
	char err[512] = "", why[256] = "";
	uint64_t rng = 12345;
	int sets = 0, conn = 0, ok = 1, ok_refused = 1;
	char last[512] = "";

	if (net_init(&n, 2, 4, 2, 9, DF_ARR_ABSOLUTE))
		return;
	uint8_t *down = calloc((size_t)n.t.nrouters * n.t.nports, 1);
	for (int s = 0; s < 200; s++) {
		uint32_t nd = 5 + s % 40;
		memset(down, 0, (size_t)n.t.nrouters * n.t.nports);
		for (uint32_t i = 0; i < nd; i++) {
			rng = rng * 6364136223846793005ULL +
			      1442695040888963407ULL;
			uint32_t r = (uint32_t)(rng >> 33) % n.t.nrouters;
			uint32_t p = n.t.p + (uint32_t)(rng >> 17) %
						     (n.t.nports - n.t.p);
			const struct df_port_info *pi =
				&n.t.ports[r * n.t.nports + p];
			down[r * n.t.nports + p] = 1;
			down[pi->peer * n.t.nports + pi->peer_port] = 1;
		}
		int c = connected(&n.t, down);
		int built = df_tree_build(&tr, &n.t, down, (uint32_t)s % 9, err,
					  sizeof(err)) == 0;
		sets++;
		conn += c;
		if (built) {
			ok &= c &&
			      df_tree_check(&tr, &n.t, down, err,
					    sizeof(err)) == 0 &&
			      verify(&tr, &n.t, down, why, sizeof(why)) == 0 &&
			      df_tree_cdg_check(&tr, &n.tb, NULL, err,
						sizeof(err)) == 0;
			df_tree_free(&tr);
		} else {
			ok &= !c;
			ok_refused &= strstr(err, "no escape tree") &&
				      strstr(err, "cannot be reached") &&
				      strstr(err, "over the links up");
			snprintf(last, sizeof(last), "%s", err);
		}
	}
	CHECK(ok && conn > 0 && conn < sets,
	      "tree under %d random sets of 5..44 links down: laid, checked "
	      "and acyclic exactly when the links up connect every router "
	      "(%d of them) %s",
	      sets, conn, why);
	CHECK(ok_refused, "  otherwise refused, naming the router: \"%s\"",
	      last);
	free(down);
	net_free(&n);
}

int main(void)
{
	static const uint32_t shapes[][4] = {
		/* p, a, h, g */
		{2, 4, 2, 9},  {2, 4, 2, 5},  {2, 4, 2, 2},  {1, 2, 1, 3},
		{4, 8, 4, 33}, {4, 8, 4, 17}, {3, 6, 3, 19}, {2, 4, 3, 13},
		{1, 3, 2, 7},  {2, 6, 3, 10}, {1, 1, 1, 2},  {2, 5, 2, 11},
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int arr = 0; arr < 2; arr++)
			full_wiring(shapes[i][0], shapes[i][1], shapes[i][2],
				    shapes[i][3], arr);
	bad_tree();
	fault_path();
	random_failures();
	return check_done();
}
