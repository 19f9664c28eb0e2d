/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the terminals send and to whom: the permutation pattern's pairs,
 * every terminal's MAC and IPv4, and the terminals bound to DPDK ports.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "emu_int.h"
#include "terminals.h"
#include "partition.h"

/* Every terminal's MAC and IPv4 (control/terminals.c): the built-in
 * frames' addresses, and how port frames find their terminal. */
static int build_macs(struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;

	e->macs = malloc(n * sizeof(*e->macs));
	e->ips = malloc(n * sizeof(*e->ips));
	if (e->macs == NULL || e->ips == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		df_term_mac(&e->pl->cfg, i, e->macs[i]);
		e->ips[i] = rte_cpu_to_be_32(df_term_ip(&e->pl->cfg, i));
	}
	e->run.macs = (const uint8_t(*)[6])e->macs;
	e->run.ips = e->ips;
	if (dp_addr_build(&e->run.mac_tab, &e->run.ip_tab, e->run.macs, e->ips,
			  n))
		return -1;
	return 0;
}

int df_port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(),
					    NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc == 0)
		rte_eth_promiscuous_enable(port); /* not every PMD can */
	return rc;
}

/* Terminals bound to DPDK ports: the vdevs EAL created from --vdev, one
 * rx and one tx queue each on the run's mempool. */
int emu_build_ports(struct emu *e)
{
	const struct df_config *c = &e->pl->cfg;
	char vdev[256];

	for (uint32_t i = 0; i < e->pl->topo.nterms; i++) {
		struct dp_term *te = e->terms[i];
		uint16_t port;
		int rc;

		if (df_term_vdev(c, i, vdev, sizeof(vdev)) == NULL ||
		    !df_part_local(c, te->router))
			continue;
		vdev[strcspn(vdev, ",")] = '\0';
		if (rte_eth_dev_get_port_by_name(vdev, &port) != 0) {
			snprintf(e->err, e->errlen,
				 "[terminals] t%u: no DPDK port %s (was the "
				 "--vdev given to EAL, and did its driver "
				 "accept the arguments? see EAL's messages)",
				 i, vdev);
			return -1;
		}
		rc = df_port_start(port, e->run.pool);
		if (rc != 0) {
			snprintf(e->err, e->errlen,
				 "[terminals] t%u: cannot start port %s: %s", i,
				 vdev, rte_strerror(-rc));
			return -1;
		}
		te->eth = port;
	}
	return 0;
}

/* Random pairing for the permutation pattern: a derangement, seeded. */
static int build_perm(struct emu *e)
{
	uint32_t n = e->pl->topo.nterms;
	uint64_t x = e->pl->cfg.seed * 0x2545F4914F6CDD1DULL + 12345;

	e->perm = malloc(n * sizeof(*e->perm));
	if (e->perm == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		e->perm[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t j = x % (i + 1), tmp = e->perm[i];
		e->perm[i] = e->perm[j];
		e->perm[j] = tmp;
	}
	for (uint32_t i = 0; i < n; i++)
		if (e->perm[i] == i) { /* swap with a neighbour: no fixpoint */
			uint32_t j = (i + 1) % n, tmp = e->perm[i];
			e->perm[i] = e->perm[j];
			e->perm[j] = tmp;
		}
	e->run.perm = e->perm;
	return 0;
}

int emu_build_traffic(struct emu *e)
{
	if (e->pl->cfg.pattern == DF_PAT_PERMUTATION && build_perm(e))
		return -1;
	return build_macs(e);
}
