/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include "addr.h"

static int table_init(struct dp_addr_table *t, uint32_t n)
{
	uint32_t slots = 4;

	while (slots < 2 * n)
		slots <<= 1;
	t->slot = malloc(slots * sizeof(*t->slot));
	if (t->slot == NULL)
		return -1;
	t->mask = slots - 1;
	for (uint32_t i = 0; i < slots; i++)
		t->slot[i].term = DP_ADDR_NONE;
	return 0;
}

static void table_add(struct dp_addr_table *t, uint64_t key, uint32_t term)
{
	uint32_t i = dp_addr_hash(key, t->mask);

	while (t->slot[i].term != DP_ADDR_NONE)
		i = (i + 1) & t->mask;
	t->slot[i].key = key;
	t->slot[i].term = term;
}

int dp_addr_build(struct dp_addr_table *mac, struct dp_addr_table *ip,
		  const uint8_t (*macs)[6], const uint32_t *ips, uint32_t n)
{
	mac->slot = ip->slot = NULL;
	if (table_init(mac, n) || table_init(ip, n)) {
		dp_addr_free(mac);
		dp_addr_free(ip);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		table_add(mac, dp_mac_key(macs[i]), i);
		table_add(ip, ips[i], i);
	}
	return 0;
}

void dp_addr_free(struct dp_addr_table *t)
{
	free(t->slot);
	t->slot = NULL;
}
