/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing tables without the links that are down, and the checks before
 * the dataplane may use them (faults.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "vcplan.h"

#define UNREACHED 0xffff

const char *df_faults_unsupported(const struct df_config *cfg)
{
	if (cfg->type == DF_TOPO_FLATFLY)
		return "link failures are emulated on dragonflies only; a "
		       "flattened butterfly routes on its full wiring";
	return df_alg_info(cfg->algorithm)->no_faults;
}

const char *df_faults_drain_unsupported(const struct df_config *cfg)
{
	const char *no = df_faults_unsupported(cfg);

	return no != NULL ? no : df_alg_info(cfg->algorithm)->no_drain;
}

static int copy_tables(struct df_tables *dst, const struct df_tables *src)
{
	size_t n = src->nrouters;

	*dst = *src;
	dst->short_inter = NULL;
	dst->gone = NULL;
	dst->inter = NULL;
	dst->ninter = 0;
	dst->hop = NULL; /* built again for the copy's routes (build) */
	dst->port_to_router = malloc(n * n);
	dst->port_to_group = malloc(n * src->g);
	dst->port_class = malloc(src->nports);
	dst->peer_router = malloc(n * src->nports * sizeof(*dst->peer_router));
	dst->group_of = malloc(n * sizeof(*dst->group_of));
	if (!dst->port_to_router || !dst->port_to_group || !dst->port_class ||
	    !dst->peer_router || !dst->group_of) {
		df_tables_free(dst);
		return -1;
	}
	memcpy(dst->port_to_router, src->port_to_router, n * n);
	memcpy(dst->port_to_group, src->port_to_group, n * src->g);
	memcpy(dst->port_class, src->port_class, src->nports);
	memcpy(dst->peer_router, src->peer_router,
	       n * src->nports * sizeof(*dst->peer_router));
	memcpy(dst->group_of, src->group_of, n * sizeof(*dst->group_of));
	return 0;
}

static int up(const struct df_faults *f, uint32_t r, uint32_t port)
{
	const struct df_tables *b = f->base;

	return port >= b->p &&
	       b->peer_router[r * b->nports + port] != UNREACHED &&
	       !f->down[r * b->nports + port];
}

/* Hops from every router to the nearest router in targets[0..nt), over
 * links that are up (links are symmetric, so a search from the targets). */
static void bfs(const struct df_faults *f, const uint32_t *targets, uint32_t nt,
		uint16_t *dist, uint32_t *queue)
{
	const struct df_tables *b = f->base;
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < b->nrouters; i++)
		dist[i] = UNREACHED;
	for (uint32_t i = 0; i < nt; i++) {
		dist[targets[i]] = 0;
		queue[tail++] = targets[i];
	}
	while (head < tail) {
		uint32_t x = queue[head++];
		/* a drained router ends a path, never carries one on */
		if (dist[x] > 0 && f->drained[x])
			continue;
		for (uint32_t q = b->p; q < b->nports; q++) {
			uint32_t y = b->peer_router[x * b->nports + q];
			if (!up(f, x, q) || dist[y] != UNREACHED)
				continue;
			dist[y] = dist[x] + 1;
			queue[tail++] = y;
		}
	}
}

/* First hop of a shortest path from r toward the targets of dist;
 * rotated by key so that routers spread over equal choices. */
static uint32_t next_port(const struct df_faults *f, uint32_t r,
			  const uint16_t *dist, uint32_t key)
{
	const struct df_tables *b = f->base;
	uint32_t nq = b->nports - b->p;

	for (uint32_t i = 0; i < nq; i++) {
		uint32_t q = b->p + (key + i) % nq, y;
		if (!up(f, r, q))
			continue;
		y = b->peer_router[r * b->nports + q];
		/* a drained neighbour is a way in only when it is the target */
		if (dist[y] + 1 == dist[r] && (dist[y] == 0 || !f->drained[y]))
			return q;
	}
	return DF_PORT_NONE;
}

/* Does the base tables' path from r (to router d, or to group X when
 * d == UINT32_MAX) avoid every link that is down? */
static int base_path_up(const struct df_faults *f, uint32_t r, uint32_t d,
			uint32_t X)
{
	const struct df_tables *b = f->base;

	for (int n = 0; n < 16; n++) {
		uint32_t port;
		if (d == UINT32_MAX ? r / b->a == X : r == d)
			return d != UINT32_MAX || !f->drained[r];
		if (n > 0 && f->drained[r])
			return 0; /* through a drained router */
		port = d == UINT32_MAX ? b->port_to_group[r * b->g + X]
				       : b->port_to_router[r * b->nrouters + d];
		if (port == DF_PORT_NONE || !up(f, r, port))
			return 0;
		r = b->peer_router[r * b->nports + port];
	}
	return 0;
}

/* A lost instance's routers, and the groups left as intermediates, into
 * tables out (tables.h). */
static int lost_groups(const struct df_faults *f, struct df_tables *out)
{
	const struct df_tables *b = f->base;

	out->gone = malloc(b->nrouters);
	out->inter = malloc(b->g * sizeof(*out->inter));
	if (out->gone == NULL || out->inter == NULL)
		return -1;
	memcpy(out->gone, f->gone, b->nrouters);
	out->ninter = 0;
	for (uint32_t X = 0; X < b->g; X++)
		if (!f->gone[X * b->a])
			out->inter[out->ninter++] = (uint16_t)X;
	return 0;
}

/* Entries whose base path is still up stay; the others take a shortest
 * path over the links up. Suffixes of a base path are base paths, and a
 * shortest-path hop brings the packet closer, so no walk loops. */
static int build(const struct df_faults *f, struct df_tables *out, char *err,
		 size_t errlen)
{
	const struct df_tables *b = f->base;
	uint32_t n = b->nrouters, targets[4096];
	uint16_t *dist = malloc(n * sizeof(*dist));
	uint32_t *queue = malloc(n * sizeof(*queue));
	int rc = -1;

	if (!dist || !queue || copy_tables(out, b)) {
		snprintf(err, errlen, "out of memory building tables");
		goto done;
	}
	for (uint32_t d = 0; d < n; d++) {
		if (f->gone[d])
			continue; /* old paths, to the lost instance's edge */
		bfs(f, &d, 1, dist, queue);
		for (uint32_t r = 0; r < n; r++) {
			if (r == d || f->gone[r] || base_path_up(f, r, d, 0))
				continue;
			if (dist[r] == UNREACHED) {
				snprintf(err, errlen,
					 "router %u could not reach router %u "
					 "over the links left up",
					 r, d);
				df_tables_free(out);
				goto done;
			}
			out->port_to_router[r * n + d] =
				(uint8_t)next_port(f, r, dist, d);
		}
	}
	for (uint32_t X = 0; X < b->g; X++) {
		uint32_t nt = 0;
		if (f->gone[X * b->a])
			continue; /* lost: no longer an intermediate */
		for (uint32_t j = 0; j < b->a; j++)
			if (!f->drained[X * b->a + j])
				targets[nt++] = X * b->a + j;
		bfs(f, targets, nt, dist, queue);
		for (uint32_t r = 0; r < n; r++) {
			if (r / b->a == X || f->gone[r] ||
			    base_path_up(f, r, UINT32_MAX, X))
				continue;
			if (dist[r] == UNREACHED) {
				snprintf(err, errlen,
					 "router %u could not reach group %u "
					 "(as an intermediate) over the links "
					 "and routers left in service",
					 r, X);
				df_tables_free(out);
				goto done;
			}
			out->port_to_group[r * b->g + X] =
				(uint8_t)next_port(f, r, dist, X);
		}
	}
	if ((f->ngone && lost_groups(f, out)) || df_tables_hops(out)) {
		snprintf(err, errlen, "out of memory building tables");
		df_tables_free(out);
		goto done;
	}
	rc = 0;
done:
	free(dist);
	free(queue);
	return rc;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		uint64_t *p = realloc(*v, c * sizeof(*p));
		if (p == NULL)
			return -1;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* A hop taken under some tables: the channel, and where the packet is
 * then with what state (destination, intermediate group, phase). */
struct df_fault_hop {
	uint32_t ch, next;
	uint16_t d, inter;
	uint8_t phase, pad[3];
};

struct collect {
	const struct df_tables *tb;
	uint64_t *edges;
	size_t nedges, cedges;
	struct df_fault_hop *hops;
	size_t nhops, chops;
	int oom;
};

static int push_hop(struct collect *c, const struct df_fault_hop *h)
{
	if (c->nhops == c->chops) {
		size_t n = c->chops ? c->chops * 2 : 4096;
		struct df_fault_hop *p = realloc(c->hops, n * sizeof(*p));
		if (p == NULL)
			return -1;
		c->hops = p;
		c->chops = n;
	}
	c->hops[c->nhops++] = *h;
	return 0;
}

/*
 * Walk tb from router x toward d through inter in phase (as df_next_hop
 * moves a packet), adding its dependency edges, starting with prev ->
 * first hop when prev != UINT32_MAX; with hops != 0 also record each hop.
 */
static int walk(struct collect *c, const struct df_tables *tb, uint32_t x,
		uint32_t d, uint32_t inter, uint8_t phase, uint32_t prev,
		int hops)
{
	for (int n = 0; n < 16; n++) {
		uint8_t vc;
		uint32_t port = df_next_hop(tb, x, d, 0, inter, &phase, &vc);
		uint32_t ch;
		struct df_fault_hop h;

		if (port < tb->p)
			return 0;
		if (tb->gone != NULL &&
		    tb->gone[tb->peer_router[x * tb->nports + port]]) {
			/* the edge of a lost instance (router.c): a packet
			 * for a lost router leaves the network here; one on
			 * its way to a lost group goes on minimally */
			if (tb->gone[d] || phase != DF_PH_TO_INTER)
				return 0;
			inter = DF_NO_GROUP;
			continue;
		}
		ch = df_chan_id(tb, x, port, vc);
		if (prev != UINT32_MAX)
			c->oom |= push(&c->edges, &c->nedges, &c->cedges,
				       (uint64_t)prev << 32 | ch);
		x = tb->peer_router[x * tb->nports + port];
		if (hops) {
			memset(&h, 0, sizeof(h));
			h.ch = ch;
			h.next = x;
			h.d = (uint16_t)d;
			h.inter = (uint16_t)inter;
			h.phase = phase;
			c->oom |= push_hop(c, &h);
		}
		prev = ch;
	}
	return -1; /* loops */
}

/* A path no packet starts on any more: from a lost router, or (a new
 * Valiant choice) through a lost group. */
static int lost_path(const struct df_tables *tb, uint32_t s, uint32_t gi,
		     int nonmin)
{
	return tb->gone != NULL &&
	       (tb->gone[s] || (nonmin && tb->gone[gi * tb->a]));
}

/* Every path of the algorithm on tb (as vcplan.c enumerates them): MIN
 * s->d, the Valiant family s->Gi->d for every group Gi. */
static int walk_all(struct collect *c, const struct df_tables *tb,
		    enum df_algorithm alg, char *err, size_t errlen)
{
	int nonmin = df_alg_nonminimal(alg);

	for (uint32_t s = 0; s < tb->nrouters; s++)
		for (uint32_t d = 0; d < tb->nrouters; d++)
			for (uint32_t gi = 0; gi < (nonmin ? tb->g : 1); gi++)
				if (!lost_path(tb, s, gi, nonmin) &&
				    walk(c, tb, s, d, nonmin ? gi : DF_NO_GROUP,
					 nonmin ? DF_PH_TO_INTER
						: DF_PH_TO_DEST,
					 UINT32_MAX, 1)) {
					snprintf(err, errlen,
						 "routing tables loop: router "
						 "%u to %u via group %u never "
						 "arrives",
						 s, d, gi);
					return -1;
				}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_hop(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct df_fault_hop));
}

static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t u = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || v[i] != v[u - 1])
			v[u++] = v[i];
	return u;
}

static size_t unique_hops(struct df_fault_hop *v, size_t n)
{
	size_t u = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_hop);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || memcmp(&v[i], &v[u - 1], sizeof(*v)))
			v[u++] = v[i];
	return u;
}

/* Does dependency edge e (channel a held, b requested) touch a lost
 * router? No packet holds or asks for such a channel any more. */
static int lost_edge(const struct df_tables *tb, uint64_t e)
{
	uint32_t ch[2] = {(uint32_t)(e >> 32), (uint32_t)e};

	if (tb->gone == NULL)
		return 0;
	for (int i = 0; i < 2; i++) {
		uint32_t link = ch[i] / DF_MAX_VC;
		uint32_t r = link / tb->nports;
		if (tb->gone[r] || tb->gone[tb->peer_router[link]])
			return 1;
	}
	return 0;
}

/*
 * Make tb the current version if the dependencies of the current version
 * and of tb, plus those of packets that took a hop under the current
 * version and go on from there under tb (exactly as df_next_hop moves
 * them, with their intermediate group and phase), stay acyclic. Only
 * these two versions can have packets in flight: the caller refuses a
 * change until the one before has settled (faults.h).
 */
static int add_version(struct df_faults *f, const struct df_tables *tb,
		       char *err, size_t errlen)
{
	struct collect c = {.tb = tb}, t = {.tb = tb};
	const struct df_fault_hop *h = f->hops;
	int rc = -1;

	if (df_alg_escape(f->alg)) {
		/* OFAR uses its canonical VCs fully adaptively, in no
		 * order ([OC] §III): its deadlock freedom is the escape
		 * ring's (bubble flow control, §III-A), rebuilt over the
		 * links up (df_faults_set). The minimal tables it reads
		 * must still reach every router without a loop. */
		rc = walk_all(&c, tb, DF_ALG_MIN, err, errlen);
		if (rc == 0 && c.oom) {
			snprintf(err, errlen, "out of memory checking tables");
			rc = -1;
		}
		f->versions += rc == 0;
		goto out;
	}
	if (walk_all(&c, tb, f->alg, err, errlen))
		goto out;
	for (size_t i = 0; i < f->nedges && !t.oom; i++)
		if (!lost_edge(tb, f->edges[i]))
			t.oom |= push(&t.edges, &t.nedges, &t.cedges,
				      f->edges[i]);
	for (size_t i = 0; i < c.nedges && !t.oom; i++)
		t.oom |= push(&t.edges, &t.nedges, &t.cedges, c.edges[i]);
	for (size_t i = 0; i < f->nhops && !t.oom; i++)
		if ((tb->gone == NULL || !tb->gone[h[i].next]) &&
		    walk(&t, tb, h[i].next, h[i].d, h[i].inter, h[i].phase,
			 h[i].ch, 0)) {
			snprintf(err, errlen,
				 "routing tables loop: a packet at router %u "
				 "for router %u never arrives",
				 h[i].next, h[i].d);
			goto out;
		}
	if (c.oom || t.oom) {
		snprintf(err, errlen, "out of memory in the deadlock check");
		goto out;
	}
	if (df_cdg_check(tb, t.edges, t.nedges, NULL, err, errlen))
		goto out;
	free(f->edges);
	free(f->hops);
	f->edges = c.edges;
	f->nedges = sort_unique(c.edges, c.nedges);
	f->hops = c.hops;
	f->nhops = unique_hops(c.hops, c.nhops);
	c.edges = NULL;
	c.hops = NULL;
	f->versions++;
	rc = 0;
out:
	free(c.edges);
	free(c.hops);
	free(t.edges);
	free(t.hops);
	return rc;
}

int df_faults_init(struct df_faults *f, const struct df_topo *t,
		   const struct df_tables *base, enum df_algorithm alg,
		   char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->topo = t;
	f->base = base;
	f->alg = alg;
	f->down = calloc((size_t)t->nrouters * t->nports, 1);
	f->drained = calloc(t->nrouters, 1);
	f->gone = calloc(t->nrouters, 1);
	if (f->down == NULL || f->drained == NULL || f->gone == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (add_version(f, base, err, errlen)) {
		df_faults_free(f);
		return -1;
	}
	return 0;
}

void df_faults_free(struct df_faults *f)
{
	free(f->down);
	free(f->drained);
	free(f->gone);
	free(f->edges);
	free(f->hops);
	memset(f, 0, sizeof(*f));
}

int df_faults_parse_link(const struct df_topo *t, const char *s, uint32_t *r,
			 uint32_t *port, char *err, size_t errlen)
{
	unsigned long x, y;
	char *end;

	if (s[0] != 'r')
		goto bad;
	x = strtoul(s + 1, &end, 10);
	if (end == s + 1 || end[0] != '.' || end[1] != 'p')
		goto bad;
	s = end + 2;
	y = strtoul(s, &end, 10);
	if (end == s || *end != '\0')
		goto bad;
	if (x >= t->nrouters || y >= t->nports || y < t->p) {
		snprintf(err, errlen,
			 "link r%lu.p%lu: routers are 0..%u and their "
			 "router-to-router ports %u..%u",
			 x, y, t->nrouters - 1, t->p, t->nports - 1);
		return -1;
	}
	if (t->ports[x * t->nports + y].peer == DF_NO_PEER) {
		snprintf(err, errlen, "link r%lu.p%lu: the port is not wired",
			 x, y);
		return -1;
	}
	*r = (uint32_t)x;
	*port = (uint32_t)y;
	return 0;
bad:
	snprintf(err, errlen,
		 "'%s' is not a link: give one end as rR.pP (router R, "
		 "router-to-router port P), e.g. r3.p5",
		 s);
	return -1;
}

/* OFAR's escape over the links up (faults.h, df_faults_set): 0 or -1
 * with the reason, and nothing to free on failure. */
static int escape_up(struct df_faults *f, struct df_ring *ring,
		     struct df_tree *tree, char *err, size_t errlen)
{
	if (tree == NULL)
		return ring == NULL ? -1
				    : df_ring_build_up(ring, f->topo, f->down,
						       err, errlen);
	if (df_tree_build(tree, f->topo, f->down, f->tree_root, err, errlen))
		return -1;
	if (df_tree_check(tree, f->topo, f->down, err, errlen) ||
	    df_tree_cdg_check(tree, f->base, NULL, err, errlen)) {
		df_tree_free(tree);
		return -1;
	}
	return 0;
}

int df_faults_set(struct df_faults *f, uint32_t r, uint32_t port, int down,
		  struct df_tables *out, struct df_ring *ring,
		  struct df_tree *tree, char *err, size_t errlen)
{
	const struct df_topo *t = f->topo;
	const struct df_port_info *pi = &t->ports[r * t->nports + port];
	size_t a = (size_t)r * t->nports + port;
	size_t b = (size_t)pi->peer * t->nports + pi->peer_port;
	uint8_t was = f->down[a];

	if (was == !!down) {
		snprintf(err, errlen, "link r%u.p%u is already %s", r, port,
			 down ? "down" : "up");
		return -1;
	}
	f->down[a] = f->down[b] = (uint8_t) !!down;
	if (build(f, out, err, errlen) == 0) {
		/* OFAR: an escape ring or tree over the links up, or the
		 * change is refused: without one OFAR is not deadlock-free */
		int esc = df_alg_escape(f->alg);
		int esc_ok = !esc || escape_up(f, ring, tree, err, errlen) == 0;
		if (esc_ok && add_version(f, out, err, errlen) == 0)
			return 0;
		if (esc_ok && esc && tree != NULL)
			df_tree_free(tree);
		else if (esc_ok && esc)
			df_ring_free(ring);
		df_tables_free(out);
	}
	f->down[a] = f->down[b] = was;
	return -1;
}

static int cmp_event(const void *x, const void *y)
{
	const struct df_fault_event *a = x, *b = y;

	return a->t_ms < b->t_ms ? -1 : a->t_ms > b->t_ms;
}

int df_faults_parse_events(const struct df_config *cfg, const struct df_topo *t,
			   struct df_fault_event *ev, uint32_t *n, char *err,
			   size_t errlen)
{
	const char *at = df_config_origin(cfg, "faults", "events");
	char buf[sizeof(cfg->fault_events)], *save = NULL, *tok, why[256];
	const char *no;

	*n = 0;
	snprintf(buf, sizeof(buf), "%s", cfg->fault_events);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		struct df_fault_event *e = &ev[*n];
		char *end, *op, *arg, orig[64];
		int drain;

		snprintf(orig, sizeof(orig), "%s", tok);
		if (*n == DF_MAX_FAULT_EVENTS) {
			snprintf(err, errlen,
				 "%s: [faults] events: more than %d events", at,
				 DF_MAX_FAULT_EVENTS);
			return -1;
		}
		e->t_ms = strtoull(tok, &end, 10);
		op = end;
		arg = *op == ':' ? strchr(op + 1, ':') : NULL;
		if (end == tok || *op != ':' || arg == NULL)
			goto bad;
		*arg++ = '\0';
		op++;
		if (!strcmp(op, "down") || !strcmp(op, "up")) {
			e->op = op[0] == 'd' ? DF_FAULT_DOWN : DF_FAULT_UP;
			if (df_faults_parse_link(t, arg, &e->r, &e->port, why,
						 sizeof(why))) {
				snprintf(err, errlen, "%s: [faults] events: %s",
					 at, why);
				return -1;
			}
		} else if (!strcmp(op, "drain") || !strcmp(op, "undrain")) {
			unsigned long r =
				strtoul(arg + (arg[0] == 'r'), &end, 10);
			e->op = op[0] == 'd' ? DF_FAULT_DRAIN
					     : DF_FAULT_UNDRAIN;
			if (end == arg + (arg[0] == 'r') || *end ||
			    r >= t->nrouters) {
				snprintf(err, errlen,
					 "%s: [faults] events: router '%s': "
					 "allowed: 0..%u",
					 at, arg, t->nrouters - 1);
				return -1;
			}
			e->r = (uint32_t)r;
		} else if (!strcmp(op, "load")) {
			e->op = DF_FAULT_LOAD;
			e->load = strtod(arg, &end);
			if (end == arg || *end || !(e->load > 0) ||
			    !(e->load <= 1)) {
				snprintf(err, errlen,
					 "%s: [faults] events: load '%s': "
					 "allowed: a number in (0, 1]",
					 at, arg);
				return -1;
			}
			if (!(cfg->load > 0)) {
				snprintf(err, errlen,
					 "%s: [faults] events: a load change "
					 "needs a run that starts with "
					 "traffic.load > 0",
					 at);
				return -1;
			}
		} else {
			goto bad;
		}
		drain = e->op == DF_FAULT_DRAIN || e->op == DF_FAULT_UNDRAIN;
		if (e->op != DF_FAULT_LOAD &&
		    (no = drain ? df_faults_drain_unsupported(cfg)
				: df_faults_unsupported(cfg)) != NULL) {
			snprintf(err, errlen,
				 "%s: [faults] events: %s are not possible "
				 "here: %s",
				 at, drain ? "drains" : "link failures", no);
			return -1;
		}
		(*n)++;
		continue;
	bad:
		snprintf(err, errlen,
			 "%s: [faults] events: '%s' is not an event; allowed: "
			 "T:down:rR.pP, T:up:rR.pP, T:drain:R, T:undrain:R or "
			 "T:load:X (T in ms since the start), comma-separated",
			 at, orig);
		return -1;
	}
	qsort(ev, *n, sizeof(*ev), cmp_event);
	return 0;
}

int df_faults_drain(struct df_faults *f, uint32_t r, int drain,
		    struct df_tables *out, char *err, size_t errlen)
{
	uint8_t was;

	if (df_alg_info(f->alg)->no_drain != NULL) {
		snprintf(err, errlen, "%s", df_alg_info(f->alg)->no_drain);
		return -1;
	}
	if (r >= f->topo->nrouters) {
		snprintf(err, errlen, "router %u: routers are 0..%u", r,
			 f->topo->nrouters - 1);
		return -1;
	}
	was = f->drained[r];
	if (was == !!drain) {
		snprintf(err, errlen, "router %u is already %s", r,
			 drain ? "drained" : "in service");
		return -1;
	}
	f->drained[r] = (uint8_t) !!drain;
	if (build(f, out, err, errlen) == 0) {
		if (add_version(f, out, err, errlen) == 0)
			return 0;
		df_tables_free(out);
	}
	f->drained[r] = was;
	return -1;
}

int df_faults_lose(struct df_faults *f, uint32_t lo, uint32_t hi,
		   struct df_tables *out, char *err, size_t errlen)
{
	const struct df_topo *t = f->topo;
	size_t np = (size_t)t->nrouters * t->nports;
	uint8_t *was = malloc(np);

	if (df_alg_escape(f->alg)) {
		snprintf(err, errlen,
			 "OFAR cannot go on without an instance: its escape "
			 "ring or tree must pass every router ([OC] §III)");
		free(was);
		return -1;
	}
	if (was == NULL || lo >= hi || hi > t->nrouters) {
		snprintf(err, errlen,
			 was ? "routers %u..%u: none such" : "out of memory",
			 lo, hi - 1);
		free(was);
		return -1;
	}
	memcpy(was, f->down, np);
	for (uint32_t r = lo; r < hi; r++) {
		f->gone[r] = 1;
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->peer == DF_NO_PEER)
				continue;
			f->down[r * t->nports + k] = 1;
			f->down[(size_t)pi->peer * t->nports + pi->peer_port] =
				1;
		}
	}
	f->ngone += hi - lo;
	if (build(f, out, err, errlen) == 0) {
		if (add_version(f, out, err, errlen) == 0) {
			free(was);
			return 0;
		}
		df_tables_free(out);
	}
	memcpy(f->down, was, np);
	for (uint32_t r = lo; r < hi; r++)
		f->gone[r] = 0;
	f->ngone -= hi - lo;
	free(was);
	return -1;
}
