/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"

/* The PMDs that carry frames between processes or hosts (those tried and
 * found working with DPDK 22.11). */
static const char *const drivers[] = {"net_memif", "net_af_packet", "net_tap",
				      "net_pcap",  "net_ring",	    NULL};

static int parse_num(const char **s, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)**s))
		return -1;
	x = strtoul(*s, &end, 10);
	if (x >= DF_MAX_INST)
		return -1;
	*v = (uint32_t)x;
	*s = end;
	return 0;
}

int df_part_key(const char *key, uint32_t *inst, uint32_t *peer)
{
	const char *s = key;

	if (*s++ != 'i' || parse_num(&s, inst))
		return -1;
	*peer = UINT32_MAX;
	if (*s == '\0')
		return 0;
	if (strncmp(s, ".peer", 5))
		return -1;
	s += 5;
	if (parse_num(&s, peer) || *s != '\0' || *peer == *inst)
		return -1;
	return 0;
}

/* A vdev string of a known driver: the name, digits, then ",args". */
static int known_driver(const char *v)
{
	size_t len = strcspn(v, ",");

	while (len && isdigit((unsigned char)v[len - 1]))
		len--;
	for (int i = 0; drivers[i]; i++)
		if (strlen(drivers[i]) == len && !strncmp(v, drivers[i], len))
			return 1;
	return 0;
}

int df_part_pci(const char *v, char *name, size_t n)
{
	unsigned dom = 0, bus, dev, fn;
	int used = 0, ok;
	size_t len = strcspn(v, ",");

	/* DDDD:BB:DD.F or BB:DD.F, hex, then nothing or ",devargs" */
	ok = sscanf(v, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) ==
		     4 &&
	     (size_t)used == len;
	if (!ok) {
		dom = 0;
		ok = sscanf(v, "%2x:%2x.%1x%n", &bus, &dev, &fn, &used) == 3 &&
		     (size_t)used == len;
	}
	if (!ok || !isxdigit((unsigned char)v[0]) || dev > 0x1f || fn > 7)
		return 0;
	if (name != NULL)
		snprintf(name, n, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 1;
}

int df_part_uses_pci(const struct df_config *c)
{
	for (uint32_t j = 0; c->ninst > 1 && j < c->ninst; j++)
		if (j != c->instance &&
		    df_part_pci(c->peer_vdev[c->instance][j], NULL, 0))
			return 1;
	return 0;
}

int df_part_apply(struct df_config *cfg, const char *where, const char *key,
		  const char *val, char *err, size_t n)
{
	uint32_t i, j, lo = 0, hi = 0;
	const char *s = val;

	if (df_part_key(key, &i, &j)) {
		snprintf(err, n,
			 "%s: [partition] unknown key '%s'; allowed: "
			 "instances, instance, iN (= groups A-B), iN.peerM (= "
			 "a vdev string or a PCI address), with N and M in "
			 "0..%d, N != M",
			 where, key, DF_MAX_INST - 1);
		return -1;
	}
	if (j != UINT32_MAX) {
		if (!(known_driver(val) || df_part_pci(val, NULL, 0)) ||
		    strlen(val) >= sizeof(cfg->peer_vdev[0][0])) {
			snprintf(err, n,
				 "%s: [partition] %s = '%s' is not allowed; "
				 "the DPDK port instance %u reaches instance "
				 "%u through: a vdev string starting with "
				 "net_memif, net_af_packet, net_tap, net_pcap "
				 "or net_ring and a number, e.g. "
				 "net_memif0,role=server,socket=/run/dfemu/"
				 "p01.sock, or a NIC's PCI address "
				 "(DDDD:BB:DD.F or BB:DD.F, then ,devargs if "
				 "any), e.g. 0000:03:00.0",
				 where, key, val, i, j);
			return -1;
		}
		snprintf(cfg->peer_vdev[i][j], sizeof(cfg->peer_vdev[0][0]),
			 "%s", val);
		return 0;
	}
	if (isdigit((unsigned char)*s)) {
		lo = (uint32_t)strtoul(s, (char **)&s, 10);
		hi = lo;
		if (*s == '-' && isdigit((unsigned char)s[1]))
			hi = (uint32_t)strtoul(s + 1, (char **)&s, 10);
	}
	if (s == val || *s != '\0' || hi < lo || hi > 4096) {
		snprintf(err, n,
			 "%s: [partition] %s = '%s' is not allowed; the "
			 "groups instance %u hosts: G or A-B (consecutive "
			 "groups, A <= B)",
			 where, key, val, i);
		return -1;
	}
	cfg->inst_lo[i] = lo;
	cfg->inst_hi[i] = hi;
	cfg->inst_set[i] = 1;
	snprintf(cfg->inst_where[i], sizeof(cfg->inst_where[0]), "%s", where);
	return 0;
}

int df_part_validate(const struct df_config *c, char *err, size_t n)
{
	uint32_t owner[4096];

	if (c->ninst <= 1) {
		for (uint32_t i = 0; i < DF_MAX_INST; i++)
			if (c->inst_set[i]) {
				snprintf(err, n,
					 "%s: [partition] i%u is set but "
					 "instances = 1 (the whole network in "
					 "one instance)",
					 c->inst_where[i], i);
				return -1;
			}
		return 0;
	}
	if (c->type != DF_TOPO_DRAGONFLY) {
		snprintf(err, n,
			 "%s: [partition] instances = %u: only a "
			 "dragonfly can be split by groups",
			 df_config_origin(c, "partition", "instances"),
			 c->ninst);
		return -1;
	}
	if (c->instance >= c->ninst) {
		snprintf(err, n,
			 "%s: [partition] instance = %u: this process must be "
			 "one of the %u instances, 0..%u (--instance N)",
			 df_config_origin(c, "partition", "instance"),
			 c->instance, c->ninst, c->ninst - 1);
		return -1;
	}
	for (uint32_t G = 0; G < c->g; G++)
		owner[G] = UINT32_MAX;
	for (uint32_t i = 0; i < DF_MAX_INST; i++) {
		if (!c->inst_set[i] && i < c->ninst) {
			snprintf(err, n,
				 "%s: [partition] instances = %u but i%u (the "
				 "groups of instance %u, = A-B) is missing",
				 df_config_origin(c, "partition", "instances"),
				 c->ninst, i, i);
			return -1;
		}
		if (!c->inst_set[i])
			continue;
		if (i >= c->ninst || c->inst_hi[i] >= c->g) {
			snprintf(err, n,
				 "%s: [partition] i%u = %u-%u: instances are "
				 "0..%u and groups 0..%u",
				 c->inst_where[i], i, c->inst_lo[i],
				 c->inst_hi[i], c->ninst - 1, c->g - 1);
			return -1;
		}
		for (uint32_t G = c->inst_lo[i]; G <= c->inst_hi[i]; G++) {
			if (owner[G] != UINT32_MAX) {
				snprintf(err, n,
					 "%s: [partition] i%u: group %u is "
					 "already instance %u's",
					 c->inst_where[i], i, G, owner[G]);
				return -1;
			}
			owner[G] = i;
		}
	}
	for (uint32_t G = 0; G < c->g; G++)
		if (owner[G] == UINT32_MAX) {
			snprintf(err, n,
				 "%s: [partition] group %u is in no instance "
				 "(every group must be in exactly one)",
				 df_config_origin(c, "partition", "instances"),
				 G);
			return -1;
		}
	for (uint32_t i = 0; i < DF_MAX_INST; i++)
		for (uint32_t j = 0; j < DF_MAX_INST; j++) {
			int want = i < c->ninst && j < c->ninst && i != j;
			int have = c->peer_vdev[i][j][0] != '\0';
			if (want == have)
				continue;
			snprintf(err, n,
				 have ? "%s: [partition] i%u.peer%u: there are "
					"only %u instances"
				      : "%s: [partition] i%u.peer%u is "
					"missing (%u instances: every pair "
					"needs a DPDK port at each end)",
				 df_config_origin(c, "partition", "instances"),
				 i, j, c->ninst);
			return -1;
		}
	return 0;
}
