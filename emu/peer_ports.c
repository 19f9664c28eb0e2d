/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ports to the other instances of a partitioned run (instances.h):
 * each peer's DPDK port started (a memif client once its server
 * listens), the bridge with the links that cross to other instances, and
 * everything freed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "partition.h"
#include "peer_private.h"

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
	x->hash = inst_plan_hash(pl);
	x->b.self = c->instance;
	x->b.pool = run->pool;
	x->b.run = run;
	x->b.links = links;
	x->b.cpu = -1; /* not known yet */
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		uint8_t m[6] = {0x02, 0xdf, 0xff, 0xff, 0x00, (uint8_t)j};
		memcpy(x->b.mac[j].addr_bytes, m, 6);
		x->b.peer[j].cpu = -1;
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

/* A memif client: its link goes down when its server closes. */
static int is_client(const struct emu_inst *x, uint32_t j)
{
	const struct df_config *c = &x->pl->cfg;
	char role[16];

	return j < c->ninst && j != c->instance &&
	       vdev_arg(c->peer_vdev[c->instance][j], "role", role,
			sizeof(role)) != NULL &&
	       strcmp(role, "client") == 0;
}

/*
 * Close the peers' ports: the servers' (clients 0), or the memif
 * clients' (clients 1). A memif end that closes while its interrupt
 * thread takes the other end's DISCONNECT frees the device under that
 * thread, which then writes through a NULL private pointer (22.11,
 * memif_disconnect; seen in about one run in six with a busy host).
 * So a client waits, at most a second, for its link to go down, which
 * that thread's handling of the server's close does, and closes then.
 */
static void close_peers(struct emu_inst *x, int clients)
{
	for (uint32_t j = 0; j < DP_MAX_INSTANCES; j++) {
		struct dp_peer *p = &x->b.peer[j];
		struct rte_eth_link link;

		if (!p->used || is_client(x, j) != clients)
			continue;
		for (uint32_t k = 0; k < p->npend; k++)
			rte_pktmbuf_free(p->pend[k]);
		p->npend = 0;
		for (int t = 0; clients && x->started && t < 1000; t++) {
			if (rte_eth_link_get_nowait(p->port, &link) != 0 ||
			    link.link_status == RTE_ETH_LINK_DOWN)
				break;
			usleep(1000);
		}
		rte_eth_dev_stop(p->port);
		rte_eth_dev_close(p->port);
	}
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
	/* servers first, then the clients once their link is down */
	close_peers(x, 0);
	close_peers(x, 1);
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

/*
 * A memif client that connected while its server was still setting its
 * port up is left without a link: not heard from for half a second with
 * the link down, it connects again (stop and start).
 */
void inst_redial(struct emu_inst *x, uint64_t now)
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
