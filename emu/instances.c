/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol between the instances of a partitioned run (instances.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "bridge.h"
#include "instances.h"
#include "partition.h"
#include "unmap_guard.h"

/* the frames' per-instance arrays hold every instance a config can have */
_Static_assert(DF_MAX_INST <= DP_MAX_INSTANCES, "raise DP_MAX_INSTANCES");

#define STATS_EVERY_MS	  5
#define CHANGES_KEPT	  64
#define SUMMARY_PER_FRAME 48
#define LAT_SAMPLES	  32 /* round trips before the latency is taken */

struct peer_state {
	int heard;		       /* a HELLO from it arrived */
	int heard_me;		       /* it says it has one of ours */
	uint64_t their_now_ns, got_ns; /* its last HELLO: its clock, ours */
	double lat_ns;		       /* half the shortest round trip */
	int has_lat, nlat;	       /* round trips measured */
	int ready;		       /* it has measured its own */
	int go;			       /* it is ready with every instance */
	struct dp_encap_stats st;      /* its last counters, host order */
	uint64_t st_at;		       /* when they came (TSC), 0 = never */
	int done;
	int lost;	  /* taken as lost: the run goes on without it */
	uint64_t lost_at; /* when (TSC) */
	char lost_why[128];
};

struct emu_inst {
	const struct df_plan *pl;
	double hz;
	struct dp_bridge b;
	uint64_t hash;
	struct peer_state ps[DF_MAX_INST];
	uint64_t next_stats, started;
	uint64_t dialed[DF_MAX_INST]; /* a memif client last (re)started */
	int finished;
	uint64_t (*rrx)[3];  /* [terminal]: delivered elsewhere: cnt, sum, sq */
	uint32_t newly_lost; /* peers taken as lost since the last poll */
	/* changes instance 0 announced, not yet made here (a ring of
	 * CHANGES_KEPT), and the number the next one must have */
	struct {
		uint8_t kind, op;
		uint32_t n;
		char arg[64];
	} chq[CHANGES_KEPT];
	uint32_t chq_head, chq_tail;
	uint64_t last_poll, resumed; /* the main lcore's own last turns */
	int excluded_by; /* a peer that took this instance as lost, or -1 */
};

static uint64_t now_ns(const struct emu_inst *x)
{
	return (uint64_t)((double)rte_rdtsc() * 1e9 / x->hz);
}

/* FNV-1a over what both sides must agree on: the wiring, the link
 * parameters, the routing and the traffic, the partition. */
static uint64_t plan_hash(const struct df_plan *pl)
{
	const struct df_config *c = &pl->cfg;
	const struct df_topo *t = &pl->topo;
	uint64_t h = 0xcbf29ce484222325ULL;

#define MIX(ptr, len)                                                   \
	do {                                                            \
		const unsigned char *q_ = (const unsigned char *)(ptr); \
		for (size_t i_ = 0; i_ < (len); i_++)                   \
			h = (h ^ q_[i_]) * 0x100000001b3ULL;            \
	} while (0)
	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		MIX(&t->ports[i].peer, sizeof(t->ports[i].peer));
		MIX(&t->ports[i].peer_port, sizeof(t->ports[i].peer_port));
	}
	MIX(c->link, sizeof(c->link));
	MIX(&c->flit_bytes, sizeof(c->flit_bytes));
	MIX(&c->algorithm, sizeof(c->algorithm));
	MIX(&c->packet_bytes, sizeof(c->packet_bytes));
	MIX(&c->ninst, sizeof(c->ninst));
	MIX(c->inst_lo, sizeof(c->inst_lo));
	MIX(c->inst_hi, sizeof(c->inst_hi));
#undef MIX
	return h;
}

static struct rte_ring *ring(const char *what, uint32_t self)
{
	static unsigned n;
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "dfi%u_%s_%u", self, what, n++);
	return rte_ring_create(name, 4096, (int)rte_socket_id(),
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
}

/* The value of key in a vdev's "name,k=v,k=v" arguments into buf, or
 * NULL. */
static const char *vdev_arg(const char *vdev, const char *key, char *buf,
			    size_t n)
{
	size_t kl = strlen(key);

	for (const char *a = strchr(vdev, ','); a; a = strchr(a + 1, ','))
		if (!strncmp(a + 1, key, kl) && a[1 + kl] == '=') {
			snprintf(buf, n, "%.*s", (int)strcspn(a + 2 + kl, ","),
				 a + 2 + kl);
			return buf;
		}
	return NULL;
}

/* Is a unix socket listening at path ('@' first: an abstract name)?
 * Read from /proc/net/unix, without connecting: a memif server takes a
 * connection for its client and would drop a probe with an error. */
static int unix_listening(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512];
	int found = 0;

	if (f == NULL)
		return 1; /* cannot tell: try the start anyway */
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long flags;
		char name[256] = "";
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags,
			   name) == 2)
			found = (flags & 0x10000) && !strcmp(name, path);
	}
	fclose(f);
	return found;
}

/*
 * A memif client's start fails, and leaves its port unusable, while its
 * server does not listen yet; the peer instance may start later. So
 * first wait, until wait_ms, for the server's socket to listen (abstract
 * unless socket-abstract=no, as memif has it).
 */
static int wait_memif_server(const char *vdev, uint64_t wait_ms, double hz)
{
	char role[16], path[108] = "/run/memif.sock", abs[8] = "yes";
	char name[112];
	uint64_t t0 = rte_rdtsc();

	if (strncmp(vdev, "net_memif", 9) ||
	    !vdev_arg(vdev, "role", role, sizeof(role)) ||
	    strcmp(role, "client"))
		return 0;
	vdev_arg(vdev, "socket", path, sizeof(path));
	vdev_arg(vdev, "socket-abstract", abs, sizeof(abs));
	snprintf(name, sizeof(name), "%s%s", strcmp(abs, "no") ? "@" : "",
		 path);
	while (!unix_listening(name)) {
		if ((double)(rte_rdtsc() - t0) * 1e3 / hz >= (double)wait_ms)
			return -1;
		usleep(50000);
	}
	return 0;
}

static int start_port(struct emu_inst *x, uint32_t j, char *err, size_t errlen)
{
	const struct df_config *c = &x->pl->cfg;
	const char *vdev = c->peer_vdev[c->instance][j];
	char name[192];
	uint16_t port;
	int rc;

	snprintf(name, sizeof(name), "%s", vdev);
	name[strcspn(name, ",")] = '\0';
	if (df_part_pci(vdev, name, sizeof(name))) {
		if (rte_eth_dev_get_port_by_name(name, &port) != 0) {
			snprintf(err, errlen,
				 "[partition] i%u.peer%u: no DPDK port at PCI "
				 "%s: the device must exist, be bound to "
				 "vfio-pci (or igb_uio), and EAL must not have "
				 "--no-pci (see EAL's messages)",
				 c->instance, j, name);
			return -1;
		}
	} else if (rte_eth_dev_get_port_by_name(name, &port) != 0) {
		snprintf(err, errlen,
			 "[partition] i%u.peer%u: no DPDK port %s (did its "
			 "driver accept the arguments? see EAL's messages)",
			 c->instance, j, name);
		return -1;
	}
	if (wait_memif_server(vdev, c->part_wait_ms, x->hz)) {
		snprintf(err, errlen,
			 "[partition] wait_ms = %llu: instance %u's memif "
			 "server (i%u.peer%u = %s) did not listen",
			 (unsigned long long)c->part_wait_ms, j, c->instance, j,
			 vdev);
		return -1;
	}
	rc = df_port_start(port, x->b.pool);
	if (rc != 0) {
		snprintf(err, errlen,
			 "[partition] i%u.peer%u: cannot start port %s: %s",
			 c->instance, j, name, rte_strerror(-rc));
		return -1;
	}
	x->b.peer[j].used = 1;
	x->b.peer[j].port = port;
	x->dialed[j] = rte_rdtsc();
	return 0;
}

/* The links that cross to another instance: sent from here (out) or
 * received here (in), by their directed-link index. */
static int find_links(struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;
	const struct df_topo *t = &x->pl->topo;
	struct dp_bridge *b = &x->b;

	b->nlinks = t->nrouters * t->nports;
	b->out = calloc(b->nlinks, sizeof(uint32_t));
	b->in = calloc(b->nlinks, sizeof(uint32_t));
	b->peer_of = calloc(b->nlinks, 1);
	b->role = calloc(b->nlinks, 1);
	if (!b->out || !b->in || !b->peer_of || !b->role)
		return -1;
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = t->p; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			uint32_t o = r * t->nports + k, i;
			int j = df_part_crossing(c, t, r, k);
			if (j < 0)
				continue;
			i = pi->peer * t->nports + pi->peer_port;
			b->out[b->nout++] = o;
			b->in[b->nin++] = i;
			b->peer_of[o] = b->peer_of[i] = (uint8_t)j;
			b->role[o] = DP_LINK_OUT;
			b->role[i] = DP_LINK_IN;
		}
	return 0;
}

struct emu_inst *emu_inst_setup(const struct df_plan *pl, struct dp_link *links,
				struct dp_run *run, double hz, char *err,
				size_t errlen)
{
	const struct df_config *c = &pl->cfg;
	struct emu_inst *x = calloc(1, sizeof(*x));

	if (x == NULL)
		goto oom;
	x->pl = pl;
	x->hz = hz;
	x->excluded_by = -1;
	x->hash = plan_hash(pl);
	x->b.self = c->instance;
	x->b.ns_per_tsc = 1e9 / hz;
	x->b.tsc_per_ns = hz / 1e9;
	x->b.pool = run->pool;
	x->b.run = run;
	x->b.links = links;
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		uint8_t m[6] = {0x02, 0xdf, 0xff, 0xff, 0x00, (uint8_t)j};
		memcpy(x->b.mac[j].addr_bytes, m, 6);
	}
	x->rrx = calloc(pl->topo.nterms, sizeof(*x->rrx));
	x->b.ctl_rx = ring("crx", c->instance);
	x->b.ctl_tx = ring("ctx", c->instance);
	x->b.early = ring("early", c->instance);
	if (!x->rrx || !x->b.ctl_rx || !x->b.ctl_tx || !x->b.early ||
	    find_links(x))
		goto oom;
	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && start_port(x, j, err, errlen)) {
			emu_inst_free(x);
			return NULL;
		}
	return x;
oom:
	snprintf(err, errlen, "out of memory for the instance bridge");
	emu_inst_free(x);
	return NULL;
}

static void free_ring(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (r && rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

void emu_inst_free(struct emu_inst *x)
{
	if (x == NULL)
		return;
	/* A memif peer that still polls its port while this end closes
	 * can read memory its driver is unmapping (22.11 checks the link
	 * before each burst, not during it). The workers here have
	 * stopped; the peers stop theirs within milliseconds of the last
	 * DONE: wait for that before closing. */
	if (x->started)
		usleep(200000);
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		struct dp_peer *p = &x->b.peer[j];
		for (uint32_t k = 0; k < p->npend; k++)
			rte_pktmbuf_free(p->pend[k]);
		if (p->used) {
			rte_eth_dev_stop(p->port);
			rte_eth_dev_close(p->port);
		}
	}
	free_ring(x->b.ctl_rx);
	free_ring(x->b.ctl_tx);
	free_ring(x->b.early);
	free(x->b.out);
	free(x->b.in);
	free(x->b.peer_of);
	free(x->b.role);
	free(x->rrx);
	free(x);
}

struct dp_bridge *emu_inst_bridge(struct emu_inst *x)
{
	return &x->b;
}

static int all_ready(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance &&
		    !(x->ps[j].heard && x->ps[j].heard_me &&
		      x->ps[j].nlat >= LAT_SAMPLES && x->ps[j].ready))
			return 0;
	return 1;
}

/* Every peer is ready with every instance: all may start. */
static int all_go(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].go)
			return 0;
	return 1;
}

static struct rte_mbuf *hello(struct emu_inst *x, uint32_t j)
{
	struct peer_state *ps = &x->ps[j];
	struct dp_encap_hello *h;
	struct rte_mbuf *m;
	void *body;
	uint64_t t = now_ns(x);

	m = dp_bridge_frame(&x->b, j, DP_ENCAP_HELLO, sizeof(*h), 0, &body);
	if (m == NULL)
		return NULL;
	h = body;
	memset(h, 0, sizeof(*h));
	h->plan_hash = rte_cpu_to_be_64(x->hash);
	h->now_ns = rte_cpu_to_be_64(t);
	h->echo_ns = rte_cpu_to_be_64(ps->heard ? ps->their_now_ns : 0);
	h->held_ns = rte_cpu_to_be_64(ps->heard ? t - ps->got_ns : 0);
	/* 1: heard you; 2: and measured the port's latency; 3: and every
	 * other instance's too (the start barrier, emu_inst_handshake) */
	h->heard = (uint8_t)(!ps->heard		       ? 0
			     : all_ready(x)	       ? 3
			     : ps->nlat >= LAT_SAMPLES ? 2
						       : 1);
	return m;
}

/* A HELLO from peer j: its plan, its clock, the round trip. Returns -1
 * on a different plan. */
static int take_hello(struct emu_inst *x, uint32_t j,
		      const struct dp_encap_hello *h, char *err, size_t errlen)
{
	struct peer_state *ps = &x->ps[j];
	uint64_t t = now_ns(x), echo = rte_be_to_cpu_64(h->echo_ns);

	if (rte_be_to_cpu_64(h->plan_hash) != x->hash) {
		snprintf(err, errlen,
			 "instance %u runs another plan (its hash %016llx, "
			 "ours %016llx): every instance must be given the same "
			 "config and --set options, except [partition] "
			 "instance",
			 j, (unsigned long long)rte_be_to_cpu_64(h->plan_hash),
			 (unsigned long long)x->hash);
		return -1;
	}
	ps->heard = 1;
	ps->their_now_ns = rte_be_to_cpu_64(h->now_ns);
	ps->got_ns = t;
	if (h->heard)
		ps->heard_me = 1;
	if (h->heard >= 2)
		ps->ready = 1;
	if (h->heard == 3)
		ps->go = 1;
	if (echo != 0) {
		int64_t rtt = (int64_t)(t - echo) -
			      (int64_t)rte_be_to_cpu_64(h->held_ns);
		double half = rtt > 0 ? rtt / 2.0 : 0;
		if (!ps->has_lat || half < ps->lat_ns)
			ps->lat_ns = half;
		ps->has_lat = 1;
		ps->nlat++;
	}
	return 0;
}

/* Every peer has heard us and we them: measuring round trips now. */
static int all_heard(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !(x->ps[j].heard && x->ps[j].heard_me))
			return 0;
	return 1;
}

/*
 * A memif client that connected while its server was still setting its
 * port up is left without a link: not heard from for half a second with
 * the link down, it connects again (stop and start).
 */
static void redial(struct emu_inst *x, uint64_t now)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++) {
		struct rte_eth_link link;
		char role[16];
		uint16_t port = x->b.peer[j].port;

		if (j == c->instance || x->ps[j].heard ||
		    now - x->dialed[j] < (uint64_t)(x->hz / 2) ||
		    !vdev_arg(c->peer_vdev[c->instance][j], "role", role,
			      sizeof(role)) ||
		    strcmp(role, "client"))
			continue;
		x->dialed[j] = now;
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			continue;
		rte_eth_dev_stop(port);
		rte_eth_dev_start(port);
	}
}

/* The HELLO body of frame m (header h), or NULL: another type, or short. */
static const struct dp_encap_hello *hello_body(const struct dp_encap_hdr *h,
					       const struct rte_mbuf *m)
{
	size_t need = sizeof(struct rte_ether_hdr) + sizeof(*h) +
		      sizeof(struct dp_encap_hello);

	return h->type == DP_ENCAP_HELLO && m->data_len >= need
		       ? (const void *)(h + 1)
		       : NULL;
}

/* What came from peer j during the handshake: HELLOs taken here, the
 * frames of a peer that started first kept for the bridge. Returns -1
 * (err says why) when the peer runs another plan. */
static int handshake_rx(struct emu_inst *x, uint32_t j, char *err,
			size_t errlen)
{
	struct rte_mbuf *m[DP_BRIDGE_BURST];
	uint16_t n = rte_eth_rx_burst(x->b.peer[j].port, 0, m, DP_BRIDGE_BURST);
	int rc = 0;

	for (uint16_t k = 0; k < n; k++) {
		const struct dp_encap_hdr *h = dp_bridge_hdr(&x->b, m[k]);
		const struct dp_encap_hello *hb =
			h ? hello_body(h, m[k]) : NULL;

		if (hb != NULL) {
			if (rc == 0)
				rc = take_hello(x, h->src_instance, hb, err,
						errlen);
			rte_pktmbuf_free(m[k]);
		} else if (h == NULL) {
			x->b.bad_frames++;
			rte_pktmbuf_free(m[k]);
		} else if (rte_ring_sp_enqueue(x->b.early, m[k]) != 0) {
			x->b.enq_fail++; /* lost: the report shows it */
			rte_pktmbuf_free(m[k]);
		}
	}
	return rc;
}

static int handshake(struct emu_inst *x, struct rte_rcu_qsbr *q,
		     volatile const int *stop, FILE *status, char *err,
		     size_t errlen)
{
	const struct df_config *c = &x->pl->cfg;
	uint64_t t0 = rte_rdtsc(), next_hello = 0, told = 0;
	uint64_t wait = (uint64_t)((double)c->part_wait_ms * x->hz / 1e3);

	for (;;) {
		uint64_t now = rte_rdtsc();

		dp_unmap_guard_quiescent(q, rte_lcore_id());
		/* a barrier: an instance ready with its own peers but not
		 * yet with every instance would start its clock early and
		 * take a peer still measuring another as lost */
		if (all_ready(x) && all_go(x))
			break;
		if (stop && *stop) {
			snprintf(err, errlen,
				 "interrupted while waiting for "
				 "the other instances");
			return -1;
		}
		if (now - t0 > wait) {
			snprintf(err, errlen,
				 "[partition] wait_ms = %llu: the other "
				 "instances did not all answer (start them "
				 "with the same config and their --instance; "
				 "check the ports i%u.peerN)",
				 (unsigned long long)c->part_wait_ms,
				 c->instance);
			return -1;
		}
		if (status && !told && now - t0 > (uint64_t)x->hz) {
			fprintf(status,
				"dfemu: instance %u: waiting for the other "
				"instances ...\n",
				c->instance);
			told = 1;
		}
		if (now >= next_hello) {
			redial(x, now);
			for (uint32_t j = 0; j < c->ninst; j++) {
				struct rte_mbuf *h;
				if (j == c->instance ||
				    (h = hello(x, j)) == NULL)
					continue;
				dp_bridge_send(&x->b, j, &h, 1);
			}
			/* every 10 ms while waiting; every 100 us while
			 * measuring round trips, polling without sleeps so
			 * that they are the port's, not the scheduler's */
			next_hello =
				now + (uint64_t)(x->hz /
						 (all_heard(x) ? 10000 : 100));
		}
		for (uint32_t j = 0; j < c->ninst; j++)
			if (j != c->instance && handshake_rx(x, j, err, errlen))
				return -1;
		if (all_heard(x))
			sched_yield();
		else
			usleep(100);
	}
	/* one more HELLO each, saying we heard them: a peer still waiting
	 * needs it (later ones are answered by emu_inst_poll) */
	for (uint32_t j = 0; j < c->ninst; j++) {
		struct rte_mbuf *h;
		if (j == c->instance)
			continue;
		x->b.peer[j].lat_tsc = (int64_t)(x->ps[j].lat_ns * x->hz / 1e9);
		if ((h = hello(x, j)) != NULL)
			dp_bridge_send(&x->b, j, &h, 1);
	}
	x->started = rte_rdtsc();
	return 0;
}

/* The handshake polls the peers' ports from this lcore, before the
 * workers do: online for the unmap guard meanwhile (unmap_guard.h), a
 * quiescent report between polls. */
int emu_inst_handshake(struct emu_inst *x, volatile const int *stop,
		       FILE *status, char *err, size_t errlen)
{
	struct rte_rcu_qsbr *q = dp_unmap_guard_init();
	int rc;

	dp_unmap_guard_online(q, rte_lcore_id());
	rc = handshake(x, q, stop, status, err, errlen);
	dp_unmap_guard_offline(q, rte_lcore_id());
	return rc;
}

/* This instance's counters, as a peer sees them (host order). */
static void local_stats(const struct emu_inst *x,
			const struct emu_inst_local *l,
			struct dp_encap_stats *st)
{
	const struct dp_stats *s = l->s;

	memset(st, 0, sizeof(*st));
	st->injected = s->injected;
	st->delivered = s->delivered;
	st->lost = dp_stats_lost(s);
	st->gen_measured = s->gen_measured;
	st->del_measured = s->del_measured;
	st->drops_measured = s->drops_measured;
	st->credits_out = s->credits_out;
	st->credits_in = s->credits_in;
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		st->sent[j] = x->b.peer[j].sent;
		st->recv[j] = x->b.peer[j].recv;
		st->csent[j] = x->b.peer[j].csent;
		st->crecv[j] = x->b.peer[j].crecv;
		st->msent[j] = x->b.peer[j].msent;
		st->mrecv[j] = x->b.peer[j].mrecv;
		if (j < DF_MAX_INST && x->ps[j].lost)
			st->lost_mask |= (uint8_t)(1u << j);
	}
	st->gen_stopped = (uint8_t)l->gen_stopped;
	st->settled = l->settled;
	st->prepared = (uint16_t)l->prepared;
}

/* The counters of a STATS body between host and network order (the
 * same swap both ways). */
static void swap_stats(struct dp_encap_stats *st)
{
	char *p = (char *)st;

	for (size_t i = 0; i < offsetof(struct dp_encap_stats, gen_stopped) /
				       sizeof(uint64_t);
	     i++) {
		uint64_t v;
		memcpy(&v, p + i * sizeof(v), sizeof(v));
		v = rte_cpu_to_be_64(v);
		memcpy(p + i * sizeof(v), &v, sizeof(v));
	}
	st->settled = rte_cpu_to_be_32(st->settled);
	st->prepared = rte_cpu_to_be_16(st->prepared);
}

/* Take peer j as lost from now: the bridge frees what is for it and
 * ignores what comes from it, and the caller takes its links down. */
static void mark_lost(struct emu_inst *x, uint32_t j, uint64_t now,
		      const char *why)
{
	struct peer_state *ps = &x->ps[j];

	if (ps->lost)
		return;
	ps->lost = 1;
	ps->lost_at = now;
	snprintf(ps->lost_why, sizeof(ps->lost_why), "%s", why);
	__atomic_store_n(&x->b.peer[j].lost, 1, __ATOMIC_RELEASE);
	x->newly_lost |= 1u << j;
}

/* A peer's STATS say which instances it takes as lost: so does this one
 * (the survivors must agree on who is left), unless it is this one. */
static void take_lost_mask(struct emu_inst *x, uint32_t j, uint8_t mask,
			   uint64_t now)
{
	const struct df_config *c = &x->pl->cfg;
	char why[128];

	for (uint32_t k = 0; k < c->ninst; k++) {
		if (!(mask & (1u << k)) || k == j)
			continue;
		if (k == c->instance) {
			if (x->excluded_by < 0)
				x->excluded_by = (int)j;
			continue;
		}
		snprintf(why, sizeof(why), "instance %u took it as lost", j);
		mark_lost(x, k, now, why);
	}
}

static void send_ctl(struct emu_inst *x, struct rte_mbuf *m)
{
	if (m != NULL && rte_ring_sp_enqueue(x->b.ctl_tx, m) != 0)
		rte_pktmbuf_free(m);
}

static void send_stats(struct emu_inst *x, const struct emu_inst_local *l)
{
	const struct df_config *c = &x->pl->cfg;
	struct dp_encap_stats st;

	local_stats(x, l, &st);
	swap_stats(&st);
	for (uint32_t j = 0; j < c->ninst; j++) {
		void *body;
		struct rte_mbuf *m;
		/* a lost peer too: it may only have stalled */
		if (j == c->instance)
			continue;
		m = dp_bridge_frame(&x->b, j, DP_ENCAP_STATS, sizeof(st), 0,
				    &body);
		if (m != NULL)
			memcpy(body, &st, sizeof(st));
		send_ctl(x, m);
	}
}

static void take_ctl(struct emu_inst *x, struct rte_mbuf *m, uint64_t now)
{
	const struct dp_encap_hdr *h = dp_bridge_hdr(&x->b, m);
	size_t hl = sizeof(struct rte_ether_hdr) + sizeof(*h);
	uint32_t j;
	char err[320];

	if (h == NULL)
		goto out;
	j = h->src_instance;
	switch (h->type) {
	case DP_ENCAP_HELLO:
		if (hello_body(h, m) != NULL &&
		    take_hello(x, j, hello_body(h, m), err, sizeof(err)) == 0)
			send_ctl(x, hello(x, j));
		break;
	case DP_ENCAP_STATS:
		if (m->data_len >= hl + sizeof(struct dp_encap_stats)) {
			struct peer_state *ps = &x->ps[j];
			memcpy(&ps->st, h + 1, sizeof(ps->st));
			swap_stats(&ps->st);
			ps->st_at = now;
			take_lost_mask(x, j, ps->st.lost_mask, now);
		}
		break;
	case DP_ENCAP_DONE:
		x->ps[j].done = 1;
		break;
	case DP_ENCAP_CHANGE: {
		const struct dp_encap_change *ch = (const void *)(h + 1);
		uint32_t k = x->chq_tail % CHANGES_KEPT;
		/* from instance 0 only, in order (the port keeps it) */
		if (m->data_len < hl + sizeof(*ch) || j != 0 ||
		    x->chq_tail - x->chq_head == CHANGES_KEPT) {
			x->b.bad_frames++;
			break;
		}
		x->chq[k].kind = ch->kind;
		x->chq[k].op = ch->op;
		x->chq[k].n = rte_be_to_cpu_32(ch->n);
		snprintf(x->chq[k].arg, sizeof(x->chq[0].arg), "%.*s",
			 (int)sizeof(ch->arg), ch->arg);
		x->chq_tail++;
		break;
	}
	case DP_ENCAP_SUMMARY: {
		const struct dp_encap_summary *s = (const void *)(h + 1);
		const char *e = (const char *)(s + 1);
		uint32_t n = rte_be_to_cpu_16(h->count);
		uint32_t t0 = rte_be_to_cpu_32(s->first_term);
		if (m->data_len < hl + sizeof(*s) + n * 24ULL ||
		    t0 + n > x->pl->topo.nterms)
			break;
		for (uint32_t k = 0; k < n; k++)
			for (int q = 0; q < 3; q++) {
				uint64_t v; /* unaligned in the frame */
				memcpy(&v, e + (3 * k + q) * sizeof(v),
				       sizeof(v));
				x->rrx[t0 + k][q] += rte_be_to_cpu_64(v);
			}
		break;
	}
	default:
		break;
	}
out:
	rte_pktmbuf_free(m);
}

int emu_inst_poll(struct emu_inst *x, const struct emu_inst_local *l,
		  uint64_t now, struct df_report *rep, uint32_t *newly_lost)
{
	const struct df_config *c = &x->pl->cfg;
	uint64_t limit =
		(uint64_t)(x->hz * (double)c->part_peer_timeout_ms / 1e3);
	struct rte_mbuf *m;
	char why[128];

	/* this instance itself was stopped for a while (SIGSTOP, a host
	 * that did not run it): its peers' silence is its own; it waits a
	 * full timeout again before it blames them */
	if (x->last_poll && now - x->last_poll > limit / 2)
		x->resumed = now;
	x->last_poll = now;
	while (rte_ring_sc_dequeue(x->b.ctl_rx, (void **)&m) == 0)
		take_ctl(x, m, now);
	if (now >= x->next_stats) {
		send_stats(x, l);
		x->next_stats = now + (uint64_t)(x->hz * STATS_EVERY_MS / 1e3);
	}
	for (uint32_t j = 0; j < c->ninst; j++) {
		uint64_t since = x->ps[j].st_at ? x->ps[j].st_at : x->started;
		if (x->resumed > since)
			since = x->resumed;
		if (j == c->instance || x->ps[j].done || x->ps[j].lost ||
		    now - since < limit)
			continue;
		snprintf(why, sizeof(why),
			 "nothing from it for %llu ms ([partition] "
			 "peer_timeout_ms)",
			 (unsigned long long)c->part_peer_timeout_ms);
		mark_lost(x, j, now, why);
	}
	*newly_lost = x->newly_lost;
	x->newly_lost = 0;
	if (x->excluded_by >= 0) {
		snprintf(rep->part.lost_peer, sizeof(rep->part.lost_peer),
			 "instance %d took this instance as lost (it heard "
			 "nothing from it for [partition] peer_timeout_ms); "
			 "the others went on without it",
			 x->excluded_by);
		return -1;
	}
	return 0;
}

void emu_inst_announce(struct emu_inst *x, int kind, uint32_t n, int op,
		       const char *arg)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost)
			send_ctl(x, dp_bridge_change(&x->b, j,
						     (enum dp_change_kind)kind,
						     n, (uint8_t)op, arg));
}

int emu_inst_next_change(struct emu_inst *x, int *kind, uint32_t *v, int *op,
			 char *arg, size_t n)
{
	uint32_t k = x->chq_head % CHANGES_KEPT;

	if (x->chq_head == x->chq_tail)
		return 0;
	*kind = x->chq[k].kind;
	*v = x->chq[k].n;
	*op = x->chq[k].op;
	snprintf(arg, n, "%s", x->chq[k].arg);
	x->chq_head++;
	return 1;
}

int emu_inst_prepared(const struct emu_inst *x, uint32_t v)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (x->ps[j].st_at == 0 ||
		     x->ps[j].st.prepared != (uint16_t)v))
			return 0;
	return 1;
}

int emu_inst_settled(const struct emu_inst *x, uint32_t n)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (x->ps[j].st_at == 0 || x->ps[j].st.settled < n))
			return 0;
	return 1;
}

const char *emu_inst_lost(const struct emu_inst *x, uint32_t j)
{
	return j < DF_MAX_INST && x->ps[j].lost ? x->ps[j].lost_why : NULL;
}

/* The network's counters: ours now and every peer's last. Returns 0 if
 * some peer has sent none yet. */
static int network(const struct emu_inst *x, const struct emu_inst_local *l,
		   struct dp_encap_stats *all)
{
	const struct df_config *c = &x->pl->cfg;

	for (uint32_t j = 0; j < c->ninst; j++) {
		if (j == c->instance)
			local_stats(x, l, &all[j]);
		else if (x->ps[j].lost)
			continue; /* its counters are not the network's now */
		else if (x->ps[j].st_at == 0)
			return 0;
		else
			all[j] = x->ps[j].st;
	}
	return 1;
}

/* The survivors' flows to and from the lost peers: DATA packets, their
 * measured ones, credits (sums over the survivors i). */
struct lost_flows {
	uint64_t to, from, mto, mfrom, cto, cfrom;
};

static void lost_flows(const struct emu_inst *x,
		       const struct dp_encap_stats *all, struct lost_flows *f)
{
	uint32_t n = x->pl->cfg.ninst;

	memset(f, 0, sizeof(*f));
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			if (x->ps[i].lost || !x->ps[j].lost)
				continue;
			f->to += all[i].sent[j];
			f->from += all[i].recv[j];
			f->mto += all[i].msent[j];
			f->mfrom += all[i].mrecv[j];
			f->cto += all[i].csent[j];
			f->cfrom += all[i].crecv[j];
		}
}

int emu_inst_measured_done(const struct emu_inst *x,
			   const struct emu_inst_local *l)
{
	struct dp_encap_stats all[DF_MAX_INST];
	struct lost_flows lf;
	uint64_t gen = 0, in = 0;

	if (!network(x, l, all))
		return 0;
	for (uint32_t j = 0; j < x->pl->cfg.ninst; j++) {
		if (x->ps[j].lost)
			continue;
		gen += all[j].gen_measured;
		in += all[j].del_measured + all[j].drops_measured;
	}
	/* without a lost peer: the survivors as one network, whose
	 * packets also come from and leave toward the lost ones */
	lost_flows(x, all, &lf);
	return gen + lf.mfrom == in + lf.mto;
}

int emu_inst_drained(const struct emu_inst *x, const struct emu_inst_local *l)
{
	struct dp_encap_stats all[DF_MAX_INST];
	struct lost_flows lf;
	uint64_t inj = 0, out = 0, cout = 0, cin = 0;
	uint32_t n = x->pl->cfg.ninst;

	if (!network(x, l, all))
		return 0;
	lost_flows(x, all, &lf);
	inj = lf.from;
	out = lf.to;
	cout = lf.cfrom;
	cin = lf.cto;
	for (uint32_t i = 0; i < n; i++) {
		if (x->ps[i].lost)
			continue;
		if (!all[i].gen_stopped)
			return 0;
		inj += all[i].injected;
		out += all[i].delivered + all[i].lost;
		cout += all[i].credits_out;
		cin += all[i].credits_in;
		/* what i sent j has arrived there, packets and credits (the
		 * counters only grow, so a stale view cannot balance while
		 * something is on its way) */
		for (uint32_t j = 0; j < n; j++)
			if (i != j && !x->ps[j].lost &&
			    (all[i].sent[j] != all[j].recv[i] ||
			     all[i].csent[j] != all[j].crecv[i]))
				return 0;
	}
	return inj == out && cout == cin;
}

void emu_inst_finish(struct emu_inst *x, struct dp_lcore *const *lc,
		     uint32_t nworkers)
{
	const struct df_config *c = &x->pl->cfg;
	uint32_t per_group = c->p * c->a;

	if (x->finished)
		return;
	x->finished = 1;
	for (uint32_t j = 0; j < c->ninst; j++) {
		uint32_t lo = c->inst_lo[j] * per_group;
		uint32_t hi = (c->inst_hi[j] + 1) * per_group;
		void *body;
		struct rte_mbuf *m;

		if (j == c->instance || x->ps[j].lost)
			continue;
		for (uint32_t t0 = lo; t0 < hi; t0 += SUMMARY_PER_FRAME) {
			uint32_t n = hi - t0 < SUMMARY_PER_FRAME
					     ? hi - t0
					     : SUMMARY_PER_FRAME;
			struct dp_encap_summary *s;
			char *e;
			m = dp_bridge_frame(&x->b, j, DP_ENCAP_SUMMARY,
					    sizeof(*s) + n * 24, (uint16_t)n,
					    &body);
			if (m == NULL)
				continue;
			s = body;
			s->first_term = rte_cpu_to_be_32(t0);
			e = (char *)(s + 1);
			for (uint32_t k = 0; k < n; k++) {
				uint64_t v[3] = {0, 0, 0};
				for (uint32_t w = 0; w < nworkers; w++) {
					v[0] += lc[w]->rx_cnt[t0 + k];
					v[1] += lc[w]->rx_sum[t0 + k];
					v[2] += lc[w]->rx_sq[t0 + k];
				}
				for (int q = 0; q < 3; q++) {
					uint64_t be = rte_cpu_to_be_64(v[q]);
					memcpy(e + (3 * k + q) * sizeof(be),
					       &be, sizeof(be));
				}
			}
			send_ctl(x, m);
		}
		send_ctl(x,
			 dp_bridge_frame(&x->b, j, DP_ENCAP_DONE, 0, 0, &body));
	}
}

int emu_inst_all_done(const struct emu_inst *x)
{
	const struct df_config *c = &x->pl->cfg;

	if (!x->finished || rte_ring_count(x->b.ctl_tx) != 0)
		return 0;
	for (uint32_t j = 0; j < c->ninst; j++)
		if (j != c->instance && !x->ps[j].lost &&
		    (!x->ps[j].done || x->b.peer[j].npend != 0))
			return 0;
	return 1;
}

void emu_inst_remote_rx(const struct emu_inst *x, uint32_t t, uint64_t *cnt,
			uint64_t *sum, uint64_t *sq)
{
	*cnt += x->rrx[t][0];
	*sum += x->rrx[t][1];
	*sq += x->rrx[t][2];
}

void emu_inst_report(const struct emu_inst *x, const struct emu_inst_local *l,
		     struct df_report *rep)
{
	const struct df_config *c = &x->pl->cfg;
	struct df_part_report *r = &rep->part;
	struct dp_encap_stats all[DF_MAX_INST];

	r->ninst = c->ninst;
	r->instance = c->instance;
	r->lo = c->inst_lo[c->instance];
	r->hi = c->inst_hi[c->instance];
	r->nterms = (r->hi - r->lo + 1) * c->p * c->a;
	r->global_lat_ns = (double)c->link[DF_LINK_GLOBAL].latency_ns;
	for (uint32_t j = 0; j < c->ninst; j++) {
		const struct dp_peer *p = &x->b.peer[j];
		struct df_peer_report *o = &r->peer[j];
		if (j == c->instance)
			continue;
		o->used = 1;
		snprintf(o->port, sizeof(o->port), "%s",
			 c->peer_vdev[c->instance][j]);
		o->port[strcspn(o->port, ",")] = '\0';
		o->lat_ns = x->ps[j].lat_ns;
		o->sent = p->sent;
		o->recv = p->recv;
		o->csent = p->csent;
		o->crecv = p->crecv;
		o->tx_frames = p->tx_frames;
		o->rx_frames = p->rx_frames;
		o->tx_stalls = p->tx_stalls;
		o->discarded = p->discarded;
		o->ignored = p->ignored;
		o->ctl_dropped = p->ctl_dropped;
		if (x->ps[j].lost) {
			o->lost = 1;
			o->lost_at_s =
				(double)(x->ps[j].lost_at - x->started) / x->hz;
			snprintf(o->lost_why, sizeof(o->lost_why), "%s",
				 x->ps[j].lost_why);
			r->nlost++;
		}
	}
	r->bad_frames = x->b.bad_frames;
	r->unknown_link = x->b.unknown_link;
	r->enq_fail = x->b.enq_fail;
	r->exchanged = network(x, l, all);
	if (r->exchanged) {
		struct lost_flows lf;
		for (uint32_t j = 0; j < c->ninst; j++) {
			if (x->ps[j].lost)
				continue;
			r->injected += all[j].injected;
			r->delivered += all[j].delivered;
			r->lost += all[j].lost;
		}
		lost_flows(x, all, &lf);
		r->to_lost = lf.to;
		r->from_lost = lf.from;
	}
	r->in_flight = r->injected + r->from_lost - r->delivered - r->lost -
		       r->to_lost;
}
