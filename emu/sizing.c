/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a plan's dataplane takes: the buffers at the ends of its links,
 * the FIFOs sized from them, the mbuf pool, and the memory dfemu --check
 * prints (df_emulate_mem_bytes, df_emulate_state_bytes).
 */
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "emu_int.h"
#include "routing.h"

/* Size of the buffer at the receiving end of a link of class c, in flits,
 * over all its VCs: bounds the packets and credit messages in flight. */
static uint32_t buffer_total(const struct df_plan *pl, int c)
{
	uint32_t esc = c == DF_LINK_TERMINAL ? 0 : pl->tb.esc;

	return (pl->tb.nvcs[c] + esc) * pl->cfg.link[c].buffer_flits;
}

/* VCs of a router port of class c, as port_init builds them, and of its
 * links' rings: one on a terminal port; the plan's, and OFAR's escape VC,
 * on the others. */
uint32_t emu_link_vcs(const struct df_plan *pl, int c)
{
	return c == DF_LINK_TERMINAL ? 1 : pl->tb.nvcs[c] + pl->tb.esc;
}

/* Entries of a link's VC and credit logs (link.h) of class c: at least
 * one per slot of its rings, which have one per flit of the far buffer,
 * so neither is ever full. */
uint32_t emu_log_cap(const struct df_plan *pl, int c)
{
	return rte_align32pow2(dp_link_nslots(emu_link_vcs(pl, c),
					      pl->cfg.link[c].buffer_flits));
}

/* Bytes of one link of class c: the link, its rings and logs. */
static uint64_t link_bytes(const struct df_plan *pl, int c)
{
	return sizeof(struct dp_link) +
	       (uint64_t)dp_link_nslots(emu_link_vcs(pl, c),
					pl->cfg.link[c].buffer_flits) *
		       sizeof(struct dp_vcslot) +
	       (uint64_t)emu_log_cap(pl, c) * 2;
}

/*
 * Mbufs a plan needs. Every packet in the network holds credits of one
 * buffer (the one at the far end of the link it is on or waits for), so
 * the buffer space of all directed links, in packets, bounds the mbufs in
 * use; plus the lcores' mempool caches and some slack.
 */
/* Data room of an mbuf: the built-in packet, or with DPDK ports any frame
 * up to a standard mbuf's room. */
static uint32_t mbuf_room(const struct df_plan *pl)
{
	uint32_t room = pl->cfg.packet_bytes;

	/* DPDK ports, and the ports between instances (whose control
	 * frames are larger than a small packet), take standard mbufs */
	if ((pl->cfg.nbind || pl->cfg.ninst > 1) &&
	    room < RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_MBUF_DEFAULT_DATAROOM;
	return room;
}

/* Flits the output queues of one router port of class c hold at most
 * ([router] output_buffer_flits, per VC). */
static uint64_t oq_flits(const struct df_plan *pl, int c)
{
	return (uint64_t)emu_link_vcs(pl, c) * pl->cfg.output_buffer_flits;
}

/* Terminals on DPDK ports. */
static uint64_t port_terms(const struct df_plan *pl)
{
	uint64_t ports = 0;

	for (uint32_t i = 0; i < pl->cfg.nbind; i++)
		ports += pl->cfg.bind[i].hi - pl->cfg.bind[i].lo + 1;
	return ports;
}

/* Mbufs the DPDK ports and the links to other instances hold whatever
 * the traffic: each keeps its rx and tx descriptor rings (1024 each) and
 * a burst filled. */
static uint64_t port_mbufs(const struct df_plan *pl)
{
	return (port_terms(pl) + pl->cfg.ninst - 1) * (2 * 1024 + 64);
}

static uint64_t pool_auto(const struct df_plan *pl)
{
	const struct df_topo *t = &pl->topo;
	uint32_t pkt_flits = (pl->cfg.packet_bytes + pl->cfg.flit_bytes - 1) /
			     pl->cfg.flit_bytes;
	uint64_t flits = 2ULL * t->nterms * buffer_total(pl, DF_LINK_TERMINAL);

	/* port frames can be one flit each */
	if (port_terms(pl))
		pkt_flits = 1;

	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		if (t->ports[i].peer == DF_NO_PEER)
			continue;
		flits += oq_flits(pl, t->ports[i].cls);
		if (t->ports[i].cls != DF_LINK_TERMINAL)
			flits += buffer_total(pl, t->ports[i].cls);
	}
	/* plus the lcores' mempool caches (at most 1.5 times 256 each)
	 * and spare buffers (DP_SPARE_MBUFS each, terminal.c), and some
	 * slack */
	return flits / pkt_flits + t->nterms * 2 + port_mbufs(pl) +
	       (uint64_t)pl->nworkers * 512 + 1024;
}

/* The pool's size: auto, or [run] mbufs to exhaust it on purpose. */
static uint64_t pool_mbufs(const struct df_plan *pl)
{
	return pl->cfg.mbufs ? pl->cfg.mbufs : pool_auto(pl);
}

/* Per-lcore cache: DPDK's default burst. The auto pool always has one
 * (its size counts the caches, pool_auto): without it every mbuf taken
 * and given back goes through the pool's ring, 8-16 % more cycles a hop
 * (docs/performance-tried.md). None in a pool set below 64
 * caches' worth on purpose, whose caches would hold a large share of it
 * out of reach of the other lcores. */
static unsigned pool_cache(const struct df_plan *pl, uint64_t n)
{
	return pl->cfg.mbufs == 0 || n >= 64 * 256 ? 256 : 0;
}

int df_emulate_check_pool(const struct df_plan *pl, char *err, size_t len)
{
	uint64_t need = port_mbufs(pl);

	if (pl->cfg.mbufs == 0 || need == 0 || pl->cfg.mbufs >= need + 1024)
		return 0;
	snprintf(err, len,
		 "[run] mbufs = %llu: the DPDK ports and the links to other "
		 "instances hold %llu mbufs in their descriptor rings; "
		 "allowed: 0 (auto) or at least %llu",
		 (unsigned long long)pl->cfg.mbufs, (unsigned long long)need,
		 (unsigned long long)need + 1024);
	return -1;
}

int emu_build_pool(struct emu *e)
{
	const struct df_plan *pl = e->pl;
	uint64_t n = pool_mbufs(pl);
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "dfpool%u", e->id);
	uint32_t room = mbuf_room(pl);

	e->run.pool = rte_pktmbuf_pool_create(
		name, (unsigned)n, pool_cache(pl, n), DP_PKT_PRIV_SIZE,
		RTE_PKTMBUF_HEADROOM + room, rte_socket_id());
	if (e->run.pool == NULL) {
		snprintf(e->err, e->errlen,
			 "cannot create a mempool of %llu mbufs of %u bytes: "
			 "%s; give EAL more memory (e.g. --eal -m 2048)",
			 (unsigned long long)n, pl->cfg.packet_bytes,
			 rte_strerror(rte_errno));
		return -1;
	}
	e->run.spare_max = pool_cache(pl, n) ? DP_SPARE_MBUFS : 0;
	return 0;
}

/* The dataplane state a plan allocates from the arena (build_links,
 * build_nodes in emu/build.c): links with their rings, which hold the
 * input VC queues, and their logs; routers, terminals, source queues
 * (UGAL-L_CR's credit queues). */
uint64_t df_emulate_state_bytes(const struct df_plan *pl)
{
	const struct df_topo *t = &pl->topo;
	uint32_t sq = rte_align32pow2(pl->cfg.source_queue);
	uint64_t b = 0;

	for (uint32_t i = 0; i < t->nrouters * t->nports; i++) {
		const struct df_port_info *pi = &t->ports[i];
		uint32_t flits = pl->cfg.link[pi->cls].buffer_flits;
		uint32_t nvc = emu_link_vcs(pl, pi->cls);
		uint64_t crq = (uint64_t)nvc * rte_align32pow2(flits) * 8;

		if (pi->peer == DF_NO_PEER)
			continue;
		/* UGAL-L_CR's credit queues, its output queues, and the
		 * link it sends on (its input queues are in the rings of
		 * the link it receives from) */
		if (df_alg_info(pl->cfg.algorithm)->credit_delay)
			b += crq * 3;
		if (pl->cfg.output_buffer_flits)
			b += (uint64_t)nvc *
			     rte_align32pow2(pl->cfg.output_buffer_flits) *
			     sizeof(struct dp_flight);
		b += sizeof(struct dp_port) + link_bytes(pl, pi->cls);
		/* a terminal's port: its link to the router too */
		if (pi->cls == DF_LINK_TERMINAL)
			b += link_bytes(pl, pi->cls);
	}
	b += (uint64_t)t->nrouters * sizeof(struct dp_router);
	b += (uint64_t)t->nterms * (sizeof(struct dp_term) + sq * 8);
	/* per worker: the wheel, the exactly-once sums, notes from the
	 * others and their wakes */
	b += (uint64_t)pl->nworkers *
	     (sizeof(struct dp_wheel) + 3 * 8ULL * t->nterms);
	if (pl->nworkers > 1)
		b += (uint64_t)pl->nworkers * (pl->nworkers - 1) *
			     (sizeof(struct dp_notify_q) +
			      NOTES * sizeof(struct dp_note)) +
		     2ULL * t->nrouters * t->nports * sizeof(void *);
	return b;
}

uint64_t df_emulate_mem_bytes(const struct df_plan *pl)
{
	uint64_t mbufs = pool_mbufs(pl);

	/* mbufs (data, headroom, private area, header), and the state */
	return mbufs * (uint64_t)(mbuf_room(pl) + 512) +
	       df_emulate_state_bytes(pl);
}
