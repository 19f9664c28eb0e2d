/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each run-time change made (changes.h): a link down or up, a router
 * drained or back, the offered load, an instance lost. A new table
 * version is built and checked, then installed (or in a partitioned run
 * staged for the bridge), the link marked after it, and settling waits
 * until no packet routed under the old tables is left (faults.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>

#include "changes_private.h"
#include "encap.h"
#include "ofar_run.h"
#include "partition.h"
#include "router.h"

/* Table entries (router, destination) that differ from the full wiring's. */
static uint64_t changed_entries(const struct df_tables *a,
				const struct df_tables *b)
{
	size_t n = (size_t)a->nrouters * a->nrouters;
	uint64_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += a->port_to_router[i] != b->port_to_router[i];
	return k;
}

static int keep_version(struct emu_ctl *c, struct df_tables *tb)
{
	if (c->nversions == c->cversions) {
		uint32_t cap = c->cversions ? 2 * c->cversions : 8;
		struct df_tables **v = realloc(c->versions, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		c->versions = v;
		c->cversions = cap;
	}
	c->versions[c->nversions++] = tb;
	return 0;
}

/* Input VC queue i (router, port, VC in order), read while workers run. */
static volatile const struct dp_vcq *vcq(const struct emu_ctl *c, size_t i)
{
	uint32_t np = c->pl->topo.nports;

	return &c->routers[i / DF_MAX_VC / np]
			->port[i / DF_MAX_VC % np]
			.q[i % DF_MAX_VC];
}

static size_t nvcq(const struct emu_ctl *c)
{
	return (size_t)c->pl->topo.nrouters * c->pl->topo.nports * DF_MAX_VC;
}

/* Tails of every input VC queue, as they are now. */
static void snapshot(struct emu_ctl *c)
{
	for (size_t i = 0; i < nvcq(c); i++)
		c->snap[i] = vcq(c, i)->tail;
}

/* Has every queue's head passed its snapshot tail? */
static int passed(const struct emu_ctl *c)
{
	for (size_t i = 0; i < nvcq(c); i++)
		if ((int32_t)(vcq(c, i)->head - c->snap[i]) < 0)
			return 0;
	return 1;
}

/*
 * Settling (faults.h): stage 1 waits until every packet queued at the
 * change has left its queue (its last hop under the old tables); stage
 * 2, one link delay later, until every packet then queued -- those that
 * were on a link, routed under the old tables, and routed under the new
 * ones on arrival -- has left too.
 */
void ctl_settle(struct emu_ctl *c, uint64_t now)
{
	char msg[96];

	/* Looked at only at the steps of check_at, one link delay apart,
	 * where the workers are held (emu_ctl_next_due): the queues are
	 * still, and each stage ends at an emulated instant whatever the
	 * host, so a change due meanwhile is made at the same instant on
	 * every run (emu_ctl_poll). */
	if (now < c->check_at)
		return;
	c->check_at = dp_step_at(c->run, now + c->link_delay);
	if (c->settling == 1 && passed(c)) {
		c->settling = 2;
		c->snap2_at = now + c->link_delay;
		c->check_at = dp_step_at(c->run, c->snap2_at);
	} else if (c->settling == 2 && now >= c->snap2_at) {
		snapshot(c);
		c->settling = 3;
	} else if (c->settling == 3 && passed(c)) {
		c->settling = 0;
		c->nsettled += c->counted;
		c->counted = 0;
		snprintf(msg, sizeof(msg),
			 "no packet routed under the tables before the last "
			 "change is left, %.1f ms after it",
			 (double)(now - c->changed_at) * 1e3 / c->hz);
		ctl_add_log(c, now, 1, "settled", msg);
	}
}

/* The fault state, set up on first use; -1 with the reason in why. */
static int faults_up(struct emu_ctl *c, char *why, size_t n)
{
	if (c->faults_ready)
		return 0;
	if (df_faults_init(&c->f, &c->pl->topo, &c->pl->tb,
			   c->pl->cfg.algorithm, why, n))
		return -1;
	c->f.tree_root = c->pl->cfg.tree_root;
	c->faults_ready = 1;
	return 0;
}

/* Can the tables change now? Sets up the fault state on first use. */
static int can_change(struct emu_ctl *c, uint64_t now, char *msg, size_t n)
{
	char why[512];

	(void)now;
	if (c->why_not) {
		snprintf(msg, n, "refused: %s", c->why_not);
		return -1;
	}
	if (c->settling) {
		snprintf(msg, n,
			 "refused: the change at %.3f s is still settling "
			 "(packets routed under the tables before it are still "
			 "queued); try again later",
			 (double)(c->changed_at - c->t0) / c->hz);
		return -1;
	}
	if (c->staged.on) {
		snprintf(msg, n,
			 "refused: the last change (table version %u) is still "
			 "being made in every instance; try again later",
			 c->staged.version);
		return -1;
	}
	if (c->role == ROLE_LEADER && !c->peers_settled) {
		snprintf(msg, n,
			 "refused: the last change is still settling in "
			 "another instance; try again later");
		return -1;
	}
	if (faults_up(c, why, sizeof(why))) {
		snprintf(msg, n, "refused: %.300s", why);
		return -1;
	}
	return 0;
}

/* Room for one more table version, kept until the end of the run; NULL
 * when out of memory. */
static struct df_tables *new_version(struct emu_ctl *c)
{
	struct df_tables *nt = calloc(1, sizeof(*nt));

	if (nt == NULL || keep_version(c, nt)) {
		free(nt);
		return NULL;
	}
	return nt;
}

/* The last version from new_version could not be built: dropped. */
static void drop_version(struct emu_ctl *c, struct df_tables *nt)
{
	c->nversions--;
	free(nt);
}

/* A new table version, kept until the end of the run (a packet may still
 * read the one before while the next is swapped in); NULL if the tables
 * cannot change now (msg says why). */
static struct df_tables *next_version(struct emu_ctl *c, uint64_t now,
				      char *msg, size_t n)
{
	struct df_tables *nt;

	if (can_change(c, now, msg, n))
		return NULL;
	nt = new_version(c);
	if (nt == NULL)
		snprintf(msg, n, "refused: out of memory");
	return nt;
}

/* The version could not be built or failed its checks: drop it. */
static int refuse(struct emu_ctl *c, struct df_tables *nt, const char *why,
		  char *msg, size_t n)
{
	drop_version(c, nt);
	snprintf(msg, n, "refused: %.300s", why);
	return -1;
}

/* The tables nt are in use from now (stored here, or by the bridge):
 * settling starts. */
static void begin_settling(struct emu_ctl *c, uint64_t now, int counted)
{
	c->counted = counted;
	c->nchanges += counted;
	c->changed_at = now;
	snapshot(c);
	c->settling = 1;
	c->check_at = dp_step_at(c->run, now + c->link_delay);
}

/* Tables first: a packet that finds its output down routes again on the
 * tables it reads then, which must already avoid the link. */
static void install(struct emu_ctl *c, struct df_tables *nt, uint64_t now,
		    int counted)
{
	__atomic_store_n(&c->run->tb, nt, __ATOMIC_RELEASE);
	rte_smp_wmb();
	begin_settling(c, now, counted);
}

/* What a link or drain change does once its tables are in use: the link
 * marked (after the tables: a packet that finds its output down routes
 * again on the tables it reads then, which must already avoid it), the
 * router's terminals paused or resumed. */
static void after_tables(struct emu_ctl *c, enum df_fault_op op, uint32_t r,
			 uint32_t port)
{
	const struct df_topo *t = &c->pl->topo;

	if (op == DF_FAULT_DOWN || op == DF_FAULT_UP) {
		const struct df_port_info *pi = &t->ports[r * t->nports + port];
		struct dp_port *a = &c->routers[r]->port[port];
		struct dp_port *b = &c->routers[pi->peer]->port[pi->peer_port];
		int down = op == DF_FAULT_DOWN;
		if (c->pl->cfg.fault_in_flight == DF_INFLIGHT_DROP)
			a->in->drop_until = b->in->drop_until =
				down ? UINT64_MAX : 0;
		rte_smp_wmb();
		a->out->down = b->out->down = (uint8_t)down;
		return;
	}
	for (uint32_t i = 0; i < t->nterms; i++)
		if (c->terms[i]->router == r)
			c->terms[i]->paused = (uint8_t)(op == DF_FAULT_DRAIN);
}

/*
 * A link or drain change whose tables nt passed the check: made now when
 * alone; in a partitioned run prepared for the bridge (run->tb_next), and
 * made (logged with msg) once the bridge switches to it (emu_ctl_poll).
 */
static void make(struct emu_ctl *c, struct df_tables *nt, enum df_fault_op op,
		 uint32_t r, uint32_t port, uint64_t now, char *msg, size_t n)
{
	if (c->role == ROLE_ALONE) {
		install(c, nt, now, 1);
		after_tables(c, op, r, port);
		return;
	}
	c->staged.on = 1;
	c->staged.at = now;
	c->staged.what[0] = '\0'; /* ctl_apply() names it */
	c->staged.version = c->run->tb_version + 1;
	c->staged.op = op;
	c->staged.r = r;
	c->staged.port = port;
	c->staged.nt = nt;
	c->staged.event = c->cur_event;
	snprintf(c->staged.msg, sizeof(c->staged.msg), "%s", msg);
	__atomic_store_n(&c->run->tb_next, nt, __ATOMIC_RELEASE);
	snprintf(msg, n,
		 "prepared as table version %u; made once every instance "
		 "has it",
		 c->staged.version);
}

/* Partitioned: the bridge switched to the staged tables: the change is
 * made here. */
void ctl_staged_made(struct emu_ctl *c, uint64_t now)
{
	size_t len = strlen(c->staged.msg);

	begin_settling(c, now, 1);
	after_tables(c, c->staged.op, c->staged.r, c->staged.port);
	snprintf(c->staged.msg + len, sizeof(c->staged.msg) - len,
		 "; table version %u, prepared here at %.3f s",
		 c->staged.version, (double)(c->staged.at - c->t0) / c->hz);
	ctl_add_log(c, now, 1, c->staged.what, c->staged.msg);
	c->staged.on = 0;
	/* an event's change made at its due time: the workers go on */
	if (c->staged.event > c->resolved)
		c->resolved = c->staged.event;
}

/* OFAR: room for one more escape ring (kept to the end of the run, as
 * table versions are); NULL when out of memory. */
static struct df_ring *new_ring(struct emu_ctl *c)
{
	struct df_ring **v = realloc(c->rings, (c->nrings + 1) * sizeof(*v));

	if (v == NULL)
		return NULL;
	c->rings = v;
	return calloc(1, sizeof(struct df_ring));
}

/* OFAR: room for one more escape tree, as new_ring. */
static struct df_tree *new_tree(struct emu_ctl *c)
{
	struct df_tree **v = realloc(c->trees, (c->ntrees + 1) * sizeof(*v));

	if (v == NULL)
		return NULL;
	c->trees = v;
	return calloc(1, sizeof(struct df_tree));
}

/* Ring hops (router -> next router) of x that y does not have. */
static uint32_t ring_changes(const struct df_ring *x, const struct df_ring *y)
{
	uint32_t k = 0;

	for (uint32_t r = 0; r < x->n; r++)
		k += x->next[r] != y->next[r];
	return k;
}

static int link_op(struct emu_ctl *c, uint32_t r, uint32_t port, int down,
		   uint64_t now, char *msg, size_t n)
{
	const struct df_topo *t = &c->pl->topo;
	const struct df_port_info *pi = &t->ports[r * t->nports + port];
	struct dp_ofar_run *of = dp_ofar_run(c->run);
	const struct df_ring *old_ring = of != NULL ? of->ring : NULL;
	const struct df_tree *old_tree = of != NULL ? of->tree : NULL;
	struct df_ring *ring = NULL;
	struct df_tree *tree = NULL;
	struct df_tables *nt;
	uint64_t t_check = rte_rdtsc();
	char why[512], extra[128] = "";

	nt = next_version(c, now, msg, n);
	if (nt == NULL)
		return -1;
	if (old_ring != NULL && (ring = new_ring(c)) == NULL)
		return refuse(c, nt, "out of memory", msg, n);
	if (old_tree != NULL && (tree = new_tree(c)) == NULL)
		return refuse(c, nt, "out of memory", msg, n);
	if (df_faults_set(&c->f, r, port, down, nt, ring, tree, why,
			  sizeof(why))) {
		free(ring);
		free(tree);
		return refuse(c, nt, why, msg, n);
	}
	if (tree != NULL) {
		/* OFAR: the new tree before the tables and the link state,
		 * as the ring below (ofar.c: a packet left in an escape
		 * buffer the new tree does not feed enters it again) */
		c->trees[c->ntrees++] = tree;
		snprintf(extra, sizeof(extra),
			 "; escape tree laid again over the links up: %u of "
			 "its %u edges changed",
			 df_tree_changes(tree, old_tree), tree->n - 1);
		__atomic_store_n(&of->tree, tree, __ATOMIC_RELEASE);
	}
	if (ring != NULL) {
		/* OFAR: the new ring before the tables and the link state
		 * (ofar.c: a packet the change leaves in an escape buffer
		 * the new ring does not feed enters it again, with room
		 * for two packets, so bubble flow control still holds) */
		c->rings[c->nrings++] = ring;
		snprintf(extra, sizeof(extra),
			 "; escape ring laid again over the links up: %u of "
			 "its %u hops changed",
			 ring_changes(ring, old_ring), ring->n);
		__atomic_store_n(&of->ring, ring, __ATOMIC_RELEASE);
	}
	snprintf(msg, n,
		 "r%u.p%u (%s) <-> r%u.p%u %s; %llu of %llu router-pair "
		 "routes differ from the full wiring's; deadlock check "
		 "(%s) passed in %.1f ms%s",
		 r, port, df_link_class_name(pi->cls), pi->peer, pi->peer_port,
		 down ? "down" : "up",
		 (unsigned long long)changed_entries(nt, &c->pl->tb),
		 (unsigned long long)t->nrouters * (t->nrouters - 1),
		 ring != NULL	? "reachability and loops; OFAR's deadlock "
				  "freedom is its escape ring's"
		 : tree != NULL ? "reachability and loops, and the escape "
				  "tree's channels: acyclic"
				: "these tables, the ones before and packets "
				  "going from one to the other",
		 (double)(rte_rdtsc() - t_check) * 1e3 / c->wall_hz, extra);
	make(c, nt, down ? DF_FAULT_DOWN : DF_FAULT_UP, r, port, now, msg, n);
	return 0;
}

/* Drain router r: no path through it, and its terminals stop generating
 * (the traffic to them still arrives); or return it to service. */
static int drain_op(struct emu_ctl *c, uint32_t r, int drain, uint64_t now,
		    char *msg, size_t n)
{
	const struct df_topo *t = &c->pl->topo;
	struct df_tables *nt;
	uint64_t t_check = rte_rdtsc();
	uint32_t nterm = 0;
	char why[512];
	const char *no = df_faults_drain_unsupported(&c->pl->cfg);

	if (no != NULL) {
		snprintf(msg, n, "refused: %s", no);
		return -1;
	}
	nt = next_version(c, now, msg, n);
	if (nt == NULL)
		return -1;
	if (df_faults_drain(&c->f, r, drain, nt, why, sizeof(why)))
		return refuse(c, nt, why, msg, n);
	for (uint32_t i = 0; i < t->nterms; i++)
		nterm += c->terms[i]->router == r;
	snprintf(msg, n,
		 "router %u %s: %s; its %u terminals %s; %llu of %llu "
		 "router-pair routes differ from the full wiring's; deadlock "
		 "check passed in %.1f ms",
		 r, drain ? "drained" : "back in service",
		 drain ? "no path passes through it" : "paths may use it again",
		 nterm, drain ? "stopped generating" : "generate again",
		 (unsigned long long)changed_entries(nt, &c->pl->tb),
		 (unsigned long long)t->nrouters * (t->nrouters - 1),
		 (double)(rte_rdtsc() - t_check) * 1e3 / c->wall_hz);
	make(c, nt, drain ? DF_FAULT_DRAIN : DF_FAULT_UNDRAIN, r, 0, now, msg,
	     n);
	return 0;
}

static int load_op(struct emu_ctl *c, double load, char *msg, size_t n)
{
	struct dp_run *run = c->run;

	if (!(c->pl->cfg.load > 0)) {
		snprintf(msg, n,
			 "refused: the run started with traffic.load = 0 (no "
			 "generator armed)");
		return -1;
	}
	if (!(load > 0) || load > 1) {
		snprintf(msg, n, "refused: load %g; allowed: (0, 1]", load);
		return -1;
	}
	/* two aligned stores the terminals read at their next packet */
	run->gap_q16 = (uint64_t)(run->slot_q16 / load);
	run->ln1m_load = log1p(-load);
	snprintf(msg, n, "offered load %.4g -> %.4g", c->load, load);
	c->load = load;
	return 0;
}

int ctl_apply(struct emu_ctl *c, enum df_fault_op op, const char *arg,
	      uint64_t now, char *msg, size_t n)
{
	char what[48];
	uint32_t r, port;
	int rc;

	if (op == DF_FAULT_LOAD) {
		char *end;
		double x = strtod(arg, &end);
		snprintf(what, sizeof(what), "load %s", arg);
		if (end == arg || *end) {
			snprintf(msg, n, "refused: '%s' is not a number", arg);
			rc = -1;
		} else {
			rc = load_op(c, x, msg, n);
		}
	} else if (op == DF_FAULT_DRAIN || op == DF_FAULT_UNDRAIN) {
		char *end;
		unsigned long r = strtoul(arg + (arg[0] == 'r'), &end, 10);
		snprintf(what, sizeof(what), "%s %s",
			 op == DF_FAULT_DRAIN ? "drain" : "undrain", arg);
		if (end == arg + (arg[0] == 'r') || *end ||
		    r >= c->pl->topo.nrouters) {
			snprintf(
				msg, n,
				"refused: '%s' is not a router; allowed: 0..%u "
				"(or r0..r%u)",
				arg, c->pl->topo.nrouters - 1,
				c->pl->topo.nrouters - 1);
			rc = -1;
		} else {
			rc = drain_op(c, (uint32_t)r, op == DF_FAULT_DRAIN, now,
				      msg, n);
		}
	} else {
		snprintf(what, sizeof(what), "link %s %s", arg,
			 op == DF_FAULT_DOWN ? "down" : "up");
		if (df_faults_parse_link(&c->pl->topo, arg, &r, &port, msg, n))
			rc = -1;
		else
			rc = link_op(c, r, port, op == DF_FAULT_DOWN, now, msg,
				     n);
	}
	if (rc == 0 && op != DF_FAULT_LOAD && c->role != ROLE_ALONE)
		/* logged once made (ctl_staged_made) */
		snprintf(c->staged.what, sizeof(c->staged.what), "%s", what);
	else
		ctl_add_log(c, now, rc == 0, what, msg);
	if (rc == 0 && c->role == ROLE_LEADER && c->nann < MAX_ANNOUNCE) {
		struct emu_change *a = &c->ann[c->nann++];

		a->kind = op == DF_FAULT_LOAD ? DP_CHANGE_LOAD
					      : DP_CHANGE_PREPARE;
		a->n = op == DF_FAULT_LOAD ? ++c->nloads : c->staged.version;
		a->op = op;
		a->event = c->cur_event;
		snprintf(a->arg, sizeof(a->arg), "%s", arg);
	}
	return rc;
}

/* Instance j's routers out of the tables, its links down (changes.h). */
int ctl_lose(struct emu_ctl *c, uint32_t j, const char *why, uint64_t now,
	     char *msg, size_t n)
{
	const struct df_config *cfg = &c->pl->cfg;
	const struct df_topo *t = &c->pl->topo;
	uint32_t lo = cfg->inst_lo[j] * t->a, hi = (cfg->inst_hi[j] + 1) * t->a;
	uint64_t t_check = rte_rdtsc();
	struct df_tables *nt;
	char what[48], why2[512], links[160] = "";
	const char *no = df_faults_unsupported(cfg);
	uint32_t nlinks = 0;
	size_t used = 0;
	int rc = -1;

	snprintf(what, sizeof(what), "instance %u lost", j);
	if (no != NULL) {
		snprintf(msg, n, "%s; the run cannot go on without it: %s", why,
			 no);
		goto out;
	}
	if (faults_up(c, why2, sizeof(why2))) {
		snprintf(msg, n, "%s; %.300s", why, why2);
		goto out;
	}
	nt = new_version(c);
	if (nt == NULL) {
		snprintf(msg, n, "%s; out of memory", why);
		goto out;
	}
	if (df_faults_lose(&c->f, lo, hi, nt, why2, sizeof(why2))) {
		drop_version(c, nt);
		snprintf(msg, n, "%s; the run cannot go on without it: %.300s",
			 why, why2);
		goto out;
	}
	install(c, nt, now, 0); /* each instance makes this one itself */
	/* then the links here that go to it (the tables avoid them now) */
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = t->p; k < t->nports; k++) {
			if (df_part_crossing(cfg, t, r, k) != (int)j)
				continue;
			c->routers[r]->port[k].out->down = 1;
			if (nlinks++ < 6 && used < sizeof(links))
				used += (size_t)snprintf(
					links + used, sizeof(links) - used,
					"%sr%u.p%u", nlinks > 1 ? ", " : "", r,
					k);
		}
	snprintf(msg, n,
		 "%s; its routers %u..%u out of the tables, its %u links to "
		 "this instance down (%s%s); %llu of %llu router-pair routes "
		 "differ from the full wiring's; deadlock check passed in "
		 "%.1f ms",
		 why, lo, hi - 1, nlinks, links, nlinks > 6 ? ", ..." : "",
		 (unsigned long long)changed_entries(nt, &c->pl->tb),
		 (unsigned long long)t->nrouters * (t->nrouters - 1),
		 (double)(rte_rdtsc() - t_check) * 1e3 / c->wall_hz);
	rc = 0;
out:
	ctl_add_log(c, now, rc == 0, what, msg);
	return rc;
}
