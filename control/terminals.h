/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_TERMINALS_H
#define DF_TERMINALS_H

/*
 * [terminals]: which terminals are DPDK ports (a vdev string each) and
 * every terminal's addresses. Keys: tN or tA-B = vdev (in a range, {t} in
 * the value stands for the terminal number), tN.mac = MAC, tN.ip = IPv4.
 * Defaults: MAC 02:df:GG:GG:RR:PP (group, router in group, port), IPv4
 * 10.G.R.(P+1); the built-in frames carry the same MACs.
 */
#include <stdint.h>
#include <stddef.h>

#include "config.h"

/* Parse a [terminals] key: 0 and the range [lo, hi] and attribute
 * (0: port binding, 1: mac, 2: ip), or -1. */
int df_term_key(const char *key, uint32_t *lo, uint32_t *hi, int *attr);

/* Apply one [terminals] key (from where: "file:line" or "--set ..."). */
int df_term_apply(struct df_config *cfg, const char *where, const char *key,
		  const char *val, char *err, size_t n);

/* Cross-field checks once the topology is known: terminal numbers in
 * range, no terminal bound twice, vdev names unique, known drivers,
 * addresses unique. */
int df_term_validate(const struct df_config *cfg, char *err, size_t n);

void df_term_mac(const struct df_config *cfg, uint32_t t, uint8_t mac[6]);
uint32_t df_term_ip(const struct df_config *cfg, uint32_t t); /* host order */

/* Terminal t's vdev string ({t} expanded) into buf, or NULL: built-in. */
const char *df_term_vdev(const struct df_config *cfg, uint32_t t, char *buf,
			 size_t n);

#endif
