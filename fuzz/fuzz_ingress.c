/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the classifier of frames received on a terminal's
 * DPDK port (runts, oversize, unknown addresses, ARP requests, truncated
 * headers), against the address tables of 8 terminals. The first input
 * byte splits the frame into a first segment and the rest, as a
 * multi-segment mbuf would; the classifier may read the first only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingress.h"
#include "stats.h"

#define NT 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dp_addr_table mac, ip;
	static int ready;
	uint32_t seg, v;
	uint8_t *copy;

	if (!ready) {
		static uint8_t macs[NT][6];
		static uint32_t ips[NT];
		for (uint32_t i = 0; i < NT; i++) {
			uint8_t m[6] = {0x02, 0x44, 0x46, 0, 0, (uint8_t)i};
			memcpy(macs[i], m, 6);
			ips[i] = (uint32_t)(10 | 0 << 8 | 0 << 16 |
					    (i + 1) << 24);
		}
		if (dp_addr_build(&mac, &ip, (const uint8_t(*)[6])macs, ips,
				  NT))
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	seg = data[0] % 2 ? (uint32_t)(size - 1) : data[0] * (size - 1) / 255;
	/* only the first segment is given, in its own allocation, so that
	 * ASan sees any read past it */
	copy = malloc(seg ? seg : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 1, seg);
	v = dp_ingress_classify(copy, seg, (uint32_t)(size - 1), 1518, &mac,
				&ip, 3);
	free(copy);
	if (dp_ingress_is_drop(v)) {
		if (~v >= DP_DROP_N)
			abort();
	} else if ((v & ~DP_INGRESS_ARP) >= NT || (v & ~DP_INGRESS_ARP) == 3) {
		abort(); /* only other terminals are destinations */
	}
	return 0;
}
