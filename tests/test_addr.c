/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The address tables port terminals classify frames with
 * (dataplane/addr.h): every terminal's MAC and IPv4 found, nothing else
 * found, for network sizes from 1 terminal up, for the default addresses
 * (which differ in a few bytes only) and for random ones. No EAL needed.
 */
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "check.h"

/* Random addresses for terminal i; 0 if they repeat an earlier one
 * (the config guarantees unique addresses). */
static int random_addr(uint8_t (*macs)[6], uint32_t *ips, uint32_t i,
		       unsigned *seed)
{
	for (int k = 0; k < 6; k++)
		macs[i][k] = (uint8_t)rand_r(seed);
	ips[i] = (uint32_t)rand_r(seed) ^ (uint32_t)rand_r(seed) << 16;
	for (uint32_t j = 0; j < i; j++)
		if (!memcmp(macs[i], macs[j], 6) || ips[i] == ips[j])
			return 0;
	return 1;
}

static int check_tables(uint32_t n, int random, unsigned seed)
{
	uint8_t(*macs)[6] = malloc(n * sizeof(*macs));
	uint32_t *ips = malloc(n * sizeof(*ips));
	struct dp_addr_table mt, it;
	int ok = 1;

	if (macs == NULL || ips == NULL || n == 0)
		return 0;
	memset(ips, 0, n * sizeof(*ips));
	for (uint32_t i = 0; i < n; i++) {
		/* default scheme 02:df:GG:GG:RR:PP and 10.G.R.P+1, 4 x 8 */
		uint32_t g = i / 32, r = i / 4 % 8, p = i % 4;
		uint8_t d[6] = {2,	    0xdf,	(uint8_t)(g >> 8),
				(uint8_t)g, (uint8_t)r, (uint8_t)p};
		memcpy(macs[i], d, 6);
		ips[i] = 10u << 24 | g << 16 | r << 8 | (p + 1);
		while (random && !random_addr(macs, ips, i, &seed))
			;
	}
	if (dp_addr_build(&mt, &it, (const uint8_t(*)[6])macs, ips, n))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		ok &= dp_addr_find(&mt, dp_mac_key(macs[i])) == i;
		ok &= dp_addr_find(&it, ips[i]) == i;
	}
	/* absent: a multicast MAC, the broadcast, addresses next to ours */
	uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	ok &= dp_addr_find(&mt, dp_mac_key(bc)) == DP_ADDR_NONE;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t m[6];
		memcpy(m, macs[i], 6);
		m[0] ^= 1;
		ok &= dp_addr_find(&mt, dp_mac_key(m)) == DP_ADDR_NONE;
		uint32_t x = ips[i] ^ 0x80000000u;
		uint32_t want = DP_ADDR_NONE;
		for (uint32_t j = 0; j < n; j++)
			if (ips[j] == x)
				want = j;
		ok &= dp_addr_find(&it, x) == want;
	}
	ok &= mt.mask + 1 >= 2 * n && ((mt.mask + 1) & mt.mask) == 0;
	dp_addr_free(&mt);
	dp_addr_free(&it);
	free(macs);
	free(ips);
	return ok;
}

int main(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 6, 72, 100, 342, 1056, 4096};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		CHECK(check_tables(sizes[i], 0, 1),
		      "%u terminals, default addresses: each found, no other",
		      sizes[i]);
		CHECK(check_tables(sizes[i], 1, 7 + (unsigned)i),
		      "%u terminals, random addresses: each found, no other",
		      sizes[i]);
	}
	return check_done();
}
