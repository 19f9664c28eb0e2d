/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run-time changes (control.h): [faults] events and telemetry commands,
 * carried out on the main lcore.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_atomic.h>

#include "control.h"
#include <rte_cycles.h>
#include "encap.h"
#include "partition.h"
#include "router.h"

#define MAX_LOG	     256
#define MAX_ANNOUNCE 16

/* A partitioned run's instance 0 makes the changes and announces them;
 * the others follow (instances.h). */
enum ctl_role { ROLE_ALONE, ROLE_LEADER, ROLE_FOLLOWER };

struct emu_ctl {
	const struct df_plan *pl;
	struct dp_run *run;
	struct dp_router *const *routers;
	struct dp_term *const *terms;
	double hz;	/* TSC per emulated second: event times, the log */
	double wall_hz; /* TSC per wall second: how long checks took */
	uint64_t t0;
	uint32_t next_event;
	int deferred; /* the next event waits for a change to settle */
	/* link failures: possible (why_not == NULL) and their state */
	const char *why_not;
	int faults_ready;
	struct df_faults f;
	struct df_tables **versions; /* every table version installed */
	uint32_t nversions, cversions;
	struct df_ring **rings; /* OFAR: every escape ring installed since */
	uint32_t nrings;
	double load;
	/* a partitioned run: the role, table changes made (link, drain)
	 * and of them settled here, whether every peer has settled them
	 * too (the caller says), and changes made but not yet announced */
	enum ctl_role role;
	uint32_t nchanges, nsettled, nloads;
	int counted; /* the change settling now is one of nchanges */
	int peers_settled;
	struct {
		int kind; /* DP_CHANGE_PREPARE or _LOAD */
		uint32_t n;
		enum df_fault_op op;
		char arg[64];
	} ann[MAX_ANNOUNCE];
	uint32_t nann;
	/* a partitioned run's table change, prepared (run->tb_next) and made
	 * here once the bridge switches to it: what to do then */
	struct {
		int on;
		uint32_t version;
		enum df_fault_op op;
		uint32_t r, port;
		struct df_tables *nt;
		uint64_t at; /* prepared */
		char what[48], msg[320];
	} staged;
	/* settling after a link change (faults.h): queue tails to pass,
	 * stage 1 (tails at the change) then 2 (tails one link delay after
	 * stage 1 ended), and when stage 2's snapshot is due */
	int settling;
	uint32_t *snap;
	uint64_t snap2_at, changed_at, link_delay;
	/* what happened */
	struct df_fault_log log[MAX_LOG];
	uint32_t nlog;
	/* one command from the telemetry thread: state 0 free, 1 posted,
	 * 2 answered */
	volatile int req_state;
	enum df_fault_op req_op;
	char req_arg[64];
	char req_reply[320];
	int req_rc;
	volatile int closing;
};

/* The run the telemetry thread may talk to: requests one at a time. */
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_ctl *active;

static void add_log(struct emu_ctl *c, uint64_t now, int ok, const char *what,
		    const char *msg)
{
	struct df_fault_log *l;

	if (c->nlog == MAX_LOG)
		return;
	pthread_mutex_lock(&active_lock);
	l = &c->log[c->nlog];
	l->t_s = (double)(now - c->t0) / c->hz;
	l->ok = ok;
	snprintf(l->what, sizeof(l->what), "%s", what);
	snprintf(l->msg, sizeof(l->msg), "%s", msg);
	c->nlog++;
	pthread_mutex_unlock(&active_lock);
}

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
static void settle(struct emu_ctl *c, uint64_t now)
{
	char msg[96];

	if (c->settling == 1 && passed(c)) {
		c->settling = 2;
		c->snap2_at = now + c->link_delay;
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
		add_log(c, now, 1, "settled", msg);
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
	c->staged.what[0] = '\0'; /* apply() names it */
	c->staged.version = c->run->tb_version + 1;
	c->staged.op = op;
	c->staged.r = r;
	c->staged.port = port;
	c->staged.nt = nt;
	snprintf(c->staged.msg, sizeof(c->staged.msg), "%s", msg);
	__atomic_store_n(&c->run->tb_next, nt, __ATOMIC_RELEASE);
	snprintf(msg, n,
		 "prepared as table version %u; made once every instance "
		 "has it",
		 c->staged.version);
}

/* Partitioned: the bridge switched to the staged tables: the change is
 * made here. */
static void staged_made(struct emu_ctl *c, uint64_t now)
{
	size_t len = strlen(c->staged.msg);

	begin_settling(c, now, 1);
	after_tables(c, c->staged.op, c->staged.r, c->staged.port);
	snprintf(c->staged.msg + len, sizeof(c->staged.msg) - len,
		 "; table version %u, prepared here at %.3f s",
		 c->staged.version, (double)(c->staged.at - c->t0) / c->hz);
	add_log(c, now, 1, c->staged.what, c->staged.msg);
	c->staged.on = 0;
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
	const struct df_ring *old_ring = c->run->ring;
	struct df_ring *ring = NULL;
	struct df_tables *nt;
	uint64_t t_check = rte_rdtsc();
	char why[512], extra[128] = "";

	nt = next_version(c, now, msg, n);
	if (nt == NULL)
		return -1;
	if (old_ring != NULL && (ring = new_ring(c)) == NULL)
		return refuse(c, nt, "out of memory", msg, n);
	if (df_faults_set(&c->f, r, port, down, nt, ring, why, sizeof(why))) {
		free(ring);
		return refuse(c, nt, why, msg, n);
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
		__atomic_store_n(&c->run->ring, ring, __ATOMIC_RELEASE);
	}
	snprintf(msg, n,
		 "r%u.p%u (%s) <-> r%u.p%u %s; %llu of %llu router-pair "
		 "routes differ from the full wiring's; deadlock check "
		 "(%s) passed in %.1f ms%s",
		 r, port, df_link_class_name(pi->cls), pi->peer, pi->peer_port,
		 down ? "down" : "up",
		 (unsigned long long)changed_entries(nt, &c->pl->tb),
		 (unsigned long long)t->nrouters * (t->nrouters - 1),
		 ring != NULL ? "reachability and loops; OFAR's deadlock "
				"freedom is its escape ring's"
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

static int apply(struct emu_ctl *c, enum df_fault_op op, const char *arg,
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
		/* logged once made (staged_made) */
		snprintf(c->staged.what, sizeof(c->staged.what), "%s", what);
	else
		add_log(c, now, rc == 0, what, msg);
	if (rc == 0 && c->role == ROLE_LEADER && c->nann < MAX_ANNOUNCE) {
		c->ann[c->nann].kind = op == DF_FAULT_LOAD ? DP_CHANGE_LOAD
							   : DP_CHANGE_PREPARE;
		c->ann[c->nann].n =
			op == DF_FAULT_LOAD ? ++c->nloads : c->staged.version;
		c->ann[c->nann].op = op;
		snprintf(c->ann[c->nann].arg, sizeof(c->ann[0].arg), "%s", arg);
		c->nann++;
	}
	return rc;
}

/* Instance j's routers out of the tables, its links down (control.h). */
static int lose(struct emu_ctl *c, uint32_t j, const char *why, uint64_t now,
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
	add_log(c, now, rc == 0, what, msg);
	return rc;
}

void emu_ctl_peers_settled(struct emu_ctl *c, int yes)
{
	if (c != NULL)
		c->peers_settled = yes;
}

uint32_t emu_ctl_changes(const struct emu_ctl *c)
{
	return c ? c->nchanges : 0;
}

uint32_t emu_ctl_settled(const struct emu_ctl *c)
{
	return c ? c->nsettled : 0;
}

int emu_ctl_settling(const struct emu_ctl *c)
{
	return c != NULL && c->settling != 0;
}

int emu_ctl_announced(struct emu_ctl *c, int *kind, uint32_t *v, int *op,
		      char *arg, size_t n)
{
	if (c == NULL || c->nann == 0)
		return 0;
	*kind = c->ann[0].kind;
	*v = c->ann[0].n;
	*op = (int)c->ann[0].op;
	snprintf(arg, n, "%s", c->ann[0].arg);
	memmove(&c->ann[0], &c->ann[1], --c->nann * sizeof(c->ann[0]));
	return 1;
}

int emu_ctl_follow(struct emu_ctl *c, int kind, uint32_t v, int op,
		   const char *arg, uint64_t now, char *msg, size_t n)
{
	if (c == NULL) {
		snprintf(msg, n, "no run control (out of memory)");
		return -1;
	}
	if (op < DF_FAULT_DOWN || op > DF_FAULT_UNDRAIN ||
	    (kind == DP_CHANGE_LOAD) != (op == DF_FAULT_LOAD)) {
		snprintf(msg, n, "unknown change %d (kind %d)", op, kind);
		return -1;
	}
	if (kind == DP_CHANGE_PREPARE && v != c->run->tb_version + 1) {
		snprintf(msg, n,
			 "table version %u announced, this instance is at "
			 "version %u",
			 v, c->run->tb_version);
		return -1;
	}
	return apply(c, (enum df_fault_op)op, arg, now, msg, n) ? -1 : 0;
}

uint32_t emu_ctl_staged(const struct emu_ctl *c)
{
	return c != NULL && c->staged.on ? c->staged.version : 0;
}

uint32_t emu_ctl_prepared(const struct emu_ctl *c)
{
	if (c == NULL)
		return 0;
	return c->staged.on ? c->staged.version : c->run->tb_version;
}

int emu_ctl_instance_lost(struct emu_ctl *c, uint32_t j, const char *why,
			  uint64_t now, char *msg, size_t n)
{
	if (c == NULL) {
		snprintf(msg, n, "%s; no run control (out of memory)", why);
		return -1;
	}
	if (c->settling || c->staged.on) {
		/* only two table versions may have packets in flight
		 * (faults.h): the caller asks again; packets meanwhile sent
		 * to it are freed by the bridge, counted as handed to it */
		snprintf(msg, n, "waits for the change before to settle");
		return 1;
	}
	return lose(c, j, why, now, msg, n);
}

struct emu_ctl *emu_ctl_start(const struct df_plan *pl, struct dp_run *run,
			      struct dp_router *const *routers,
			      struct dp_term *const *terms, double hz,
			      double ehz, uint64_t t0, char *err, size_t errlen)
{
	struct emu_ctl *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->pl = pl;
	c->run = run;
	c->routers = routers;
	c->terms = terms;
	c->hz = ehz;
	c->wall_hz = hz;
	c->t0 = t0;
	c->load = pl->cfg.load;
	c->why_not = df_faults_unsupported(&pl->cfg);
	c->role = pl->cfg.ninst <= 1	  ? ROLE_ALONE
		  : pl->cfg.instance == 0 ? ROLE_LEADER
					  : ROLE_FOLLOWER;
	if (c->why_not == NULL && c->role != ROLE_ALONE &&
	    df_alg_escape(pl->cfg.algorithm))
		c->why_not = "OFAR's escape ring is not laid again across "
			     "instances yet";
	c->peers_settled = 1;
	c->snap =
		calloc((size_t)pl->topo.nrouters * pl->topo.nports * DF_MAX_VC,
		       sizeof(*c->snap));
	if (c->snap == NULL) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* the longest a packet can take on a link: serialization of the
	 * largest frame plus the latency */
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		const struct df_link_params *lp = &pl->cfg.link[k];
		double ns = lp->latency_ns +
			    (lp->bandwidth_gbps > 0
				     ? run->max_frame * 8.0 / lp->bandwidth_gbps
				     : 0);
		uint64_t tsc = (uint64_t)(ns * ehz / 1e9) + 1;
		if (tsc > c->link_delay)
			c->link_delay = tsc;
	}
	pthread_mutex_lock(&active_lock);
	active = c;
	pthread_mutex_unlock(&active_lock);
	return c;
}

void emu_ctl_poll(struct emu_ctl *c, uint64_t now)
{
	char msg[320];

	if (c == NULL)
		return;
	if (c->staged.on && c->run->tb_version == c->staged.version)
		staged_made(c, now);
	if (c->settling)
		settle(c, now);
	while (c->next_event < c->pl->nevents) {
		const struct df_fault_event *ev = &c->pl->events[c->next_event];
		uint64_t due = c->t0 + (uint64_t)(ev->t_ms * c->hz / 1e3);
		char arg[64];
		if (now < due)
			break;
		if (c->role == ROLE_FOLLOWER)
			break; /* instance 0 makes them, and says so */
		/* a scheduled link change waits for the one before to
		 * settle, in every instance (a telemetry command is refused
		 * instead) */
		if (ev->op != DF_FAULT_LOAD &&
		    (c->settling || !c->peers_settled || c->staged.on)) {
			c->deferred = 1;
			break;
		}
		if (ev->op == DF_FAULT_LOAD)
			snprintf(arg, sizeof(arg), "%g", ev->load);
		else if (ev->op == DF_FAULT_DRAIN || ev->op == DF_FAULT_UNDRAIN)
			snprintf(arg, sizeof(arg), "%u", ev->r);
		else
			snprintf(arg, sizeof(arg), "r%u.p%u", ev->r, ev->port);
		if (apply(c, ev->op, arg, now, msg, sizeof(msg)) == 0 &&
		    c->deferred) {
			/* its log entry: made now, or once made in every
			 * instance (the staged one) */
			char *m = c->staged.on ? c->staged.msg
				  : c->nlog    ? c->log[c->nlog - 1].msg
					       : NULL;
			size_t len = m ? strlen(m) : 0,
			       cap = c->staged.on ? sizeof(c->staged.msg)
						  : sizeof(c->log[0].msg);
			pthread_mutex_lock(&active_lock);
			if (m != NULL)
				snprintf(m + len, cap - len,
					 " (due at %.3f s, it waited for the "
					 "change before to settle)",
					 (double)(due - c->t0) / c->hz);
			pthread_mutex_unlock(&active_lock);
		}
		c->deferred = 0;
		c->next_event++;
	}
	if (c->req_state == 1 && c->role == ROLE_FOLLOWER) {
		snprintf(c->req_reply, sizeof(c->req_reply),
			 "refused: in a partitioned run changes are made on "
			 "instance 0, which tells the others (this is instance "
			 "%u)",
			 c->pl->cfg.instance);
		c->req_rc = -1;
		rte_smp_wmb();
		c->req_state = 2;
	} else if (c->req_state == 1) {
		c->req_rc = apply(c, c->req_op, c->req_arg, now, c->req_reply,
				  sizeof(c->req_reply));
		rte_smp_wmb();
		c->req_state = 2;
	}
}

void emu_ctl_finish(struct emu_ctl *c, struct df_report *rep)
{
	if (c == NULL)
		return;
	c->closing = 1;
	pthread_mutex_lock(&active_lock);
	active = NULL;
	pthread_mutex_unlock(&active_lock);
	/* a request still waiting sees closing; take its lock to know it
	 * has let go of c */
	pthread_mutex_lock(&req_lock);
	pthread_mutex_unlock(&req_lock);
	rep->faults = malloc((c->nlog ? c->nlog : 1) * sizeof(*rep->faults));
	if (rep->faults) {
		memcpy(rep->faults, c->log, c->nlog * sizeof(*rep->faults));
		rep->nfaults = c->nlog;
	}
	for (uint32_t i = 0; i < c->nrings; i++) {
		df_ring_free(c->rings[i]);
		free(c->rings[i]);
	}
	free(c->rings);
	for (uint32_t i = 0; i < c->nversions; i++) {
		df_tables_free(c->versions[i]);
		free(c->versions[i]);
	}
	free(c->versions);
	free(c->snap);
	if (c->faults_ready)
		df_faults_free(&c->f);
	free(c);
}

int emu_ctl_request(enum df_fault_op op, const char *arg, char *reply, size_t n)
{
	struct emu_ctl *c;
	int rc = -1;

	pthread_mutex_lock(&req_lock);
	pthread_mutex_lock(&active_lock);
	c = active;
	pthread_mutex_unlock(&active_lock);
	if (c == NULL) {
		snprintf(reply, n, "no run");
		goto out;
	}
	c->req_op = op;
	snprintf(c->req_arg, sizeof(c->req_arg), "%s", arg ? arg : "");
	rte_smp_wmb();
	c->req_state = 1;
	/* the main lcore answers within a loop turn (1 ms); a deadlock
	 * check on a large network takes longer, so wait up to 10 s */
	for (int i = 0; i < 10000 && c->req_state != 2 && !c->closing; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	if (c->req_state == 2) {
		rte_smp_rmb();
		snprintf(reply, n, "%s", c->req_reply);
		rc = c->req_rc;
	} else {
		snprintf(reply, n, "no answer: the run %s",
			 c->closing ? "ended" : "did not answer in 10 s");
	}
	c->req_state = 0;
out:
	pthread_mutex_unlock(&req_lock);
	return rc;
}

void emu_ctl_log(void (*line)(void *arg, double t_s, int ok, const char *s),
		 void *arg)
{
	char buf[300];

	pthread_mutex_lock(&active_lock);
	for (uint32_t i = 0; active && i < active->nlog; i++) {
		snprintf(buf, sizeof(buf), "%s: %s", active->log[i].what,
			 active->log[i].msg);
		line(arg, active->log[i].t_s, active->log[i].ok, buf);
	}
	pthread_mutex_unlock(&active_lock);
}
