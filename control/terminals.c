/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terminals.h"

/* The PMDs tried and found working with DPDK 22.11 on our machines. */
static const char *const drivers[] = {"net_memif", "net_af_packet", "net_tap",
				      "net_pcap",  "net_ring",	    "net_null",
				      NULL};

static int parse_u32(const char **s, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)**s))
		return -1;
	x = strtoul(*s, &end, 10);
	if (x > 1u << 20)
		return -1;
	*v = (uint32_t)x;
	*s = end;
	return 0;
}

int df_term_key(const char *key, uint32_t *lo, uint32_t *hi, int *attr)
{
	const char *s = key;

	if (*s++ != 't' || parse_u32(&s, lo))
		return -1;
	*hi = *lo;
	*attr = 0;
	if (*s == '-') {
		s++;
		if (parse_u32(&s, hi) || *hi < *lo)
			return -1;
		return *s == '\0' ? 0 : -1;
	}
	if (*s == '\0')
		return 0;
	if (!strcmp(s, ".mac"))
		*attr = 1;
	else if (!strcmp(s, ".ip"))
		*attr = 2;
	else
		return -1;
	return 0;
}

static int parse_mac(const char *v, uint8_t mac[6])
{
	unsigned b[6];
	int used = 0;

	if (sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &used) != 6 ||
	    v[used] != '\0' || (b[0] & 1))
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* The driver a vdev string names: its name minus the trailing digits. */
static int known_driver(const char *vdev)
{
	size_t len = strcspn(vdev, ",");

	while (len &&
	       (isdigit((unsigned char)vdev[len - 1]) || vdev[len - 1] == '}'))
		if (vdev[--len] == '}') {
			/* "{t}" as the instance number */
			if (len < 2 || strncmp(vdev + len - 2, "{t", 2))
				return 0;
			len -= 2;
		}
	for (int i = 0; drivers[i]; i++)
		if (strlen(drivers[i]) == len &&
		    !strncmp(vdev, drivers[i], len))
			return 1;
	return 0;
}

int df_term_apply(struct df_config *cfg, const char *where, const char *key,
		  const char *val, char *err, size_t n)
{
	uint32_t lo, hi;
	int attr;

	if (df_term_key(key, &lo, &hi, &attr)) {
		snprintf(err, n,
			 "%s: [terminals] unknown key '%s'; allowed: tN or "
			 "tA-B (= a vdev string), tN.mac, tN.ip",
			 where, key);
		return -1;
	}
	if (attr == 0) {
		struct df_term_bind *b = &cfg->bind[cfg->nbind];
		if (cfg->nbind == DF_MAX_BINDS) {
			snprintf(err, n,
				 "%s: [terminals] more than %d port "
				 "bindings; use ranges (tA-B)",
				 where, DF_MAX_BINDS);
			return -1;
		}
		if (!known_driver(val) || strlen(val) >= sizeof(b->vdev) ||
		    (lo != hi && !strstr(val, "{t}"))) {
			snprintf(
				err, n,
				"%s: [terminals] %s = '%s' is not allowed; a "
				"DPDK vdev string starting with net_memif, "
				"net_af_packet, net_tap, net_pcap, net_ring or "
				"net_null and an instance number%s, e.g. "
				"net_memif{t},role=server,socket=/run/dfemu/"
				"t{t}.sock",
				where, key, val,
				lo != hi ? " ({t} in a range: each terminal "
					   "needs its own device)"
					 : "");
			return -1;
		}
		b->lo = lo;
		b->hi = hi;
		snprintf(b->vdev, sizeof(b->vdev), "%s", val);
		snprintf(b->where, sizeof(b->where), "%s", where);
		cfg->nbind++;
		return 0;
	}
	struct df_term_addr *a = &cfg->addr[cfg->naddr];
	struct in_addr ia;
	if (cfg->naddr == DF_MAX_BINDS) {
		snprintf(err, n, "%s: [terminals] more than %d address keys",
			 where, DF_MAX_BINDS);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	if ((attr == 1 && parse_mac(val, a->mac)) ||
	    (attr == 2 && inet_pton(AF_INET, val, &ia) != 1)) {
		snprintf(err, n, "%s: [terminals] %s = '%s' is not allowed; %s",
			 where, key, val,
			 attr == 1 ? "a unicast MAC aa:bb:cc:dd:ee:ff"
				   : "a dotted IPv4 address, e.g. 10.0.1.2");
		return -1;
	}
	if (attr == 2)
		a->ip = ntohl(ia.s_addr);
	a->t = lo;
	a->attr = attr;
	snprintf(a->where, sizeof(a->where), "%s", where);
	cfg->naddr++;
	return 0;
}

static const struct df_term_addr *addr_of(const struct df_config *cfg,
					  uint32_t t, int attr)
{
	const struct df_term_addr *found = NULL;

	for (uint32_t i = 0; i < cfg->naddr; i++)
		if (cfg->addr[i].t == t && cfg->addr[i].attr == attr)
			found = &cfg->addr[i]; /* the last one given wins */
	return found;
}

void df_term_mac(const struct df_config *cfg, uint32_t t, uint8_t mac[6])
{
	const struct df_term_addr *a = addr_of(cfg, t, 1);
	uint32_t per_group = cfg->p * cfg->a, grp = t / per_group;
	uint32_t rem = t % per_group;

	if (a) {
		memcpy(mac, a->mac, 6);
		return;
	}
	/* 02:df:GG:GG:RR:PP, locally administered (docs/design.md, A packet's
	 * path) */
	mac[0] = 0x02;
	mac[1] = 0xdf;
	mac[2] = (uint8_t)(grp >> 8);
	mac[3] = (uint8_t)grp;
	mac[4] = (uint8_t)(rem / cfg->p);
	mac[5] = (uint8_t)(rem % cfg->p);
}

uint32_t df_term_ip(const struct df_config *cfg, uint32_t t)
{
	const struct df_term_addr *a = addr_of(cfg, t, 2);
	uint32_t per_group = cfg->p * cfg->a, grp = t / per_group;
	uint32_t rem = t % per_group;

	if (a)
		return a->ip;
	/* 10.G.R.(P+1): group, router in group, port (+1: never .0) */
	return 10u << 24 | (grp & 0xff) << 16 | (rem / cfg->p) << 8 |
	       (rem % cfg->p + 1);
}

const char *df_term_vdev(const struct df_config *cfg, uint32_t t, char *buf,
			 size_t n)
{
	for (uint32_t i = 0; i < cfg->nbind; i++) {
		const struct df_term_bind *b = &cfg->bind[i];
		const char *s = b->vdev, *at;
		size_t len = 0;

		if (t < b->lo || t > b->hi)
			continue;
		while ((at = strstr(s, "{t}")) != NULL && len < n) {
			len += snprintf(buf + len, n - len, "%.*s%u",
					(int)(at - s), s, t);
			s = at + 3;
		}
		if (len < n)
			snprintf(buf + len, n - len, "%s", s);
		return buf;
	}
	return NULL;
}

int df_term_validate(const struct df_config *cfg, char *err, size_t n)
{
	uint32_t nt = cfg->p * cfg->a * cfg->g;
	char v1[256], v2[256];

	for (uint32_t i = 0; i < cfg->nbind; i++) {
		const struct df_term_bind *b = &cfg->bind[i];
		if (b->hi >= nt) {
			snprintf(err, n,
				 "%s: [terminals] t%u%s: the network has "
				 "terminals t0..t%u",
				 b->where, b->hi,
				 b->lo != b->hi ? " (range end)" : "", nt - 1);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++)
			if (b->lo <= cfg->bind[j].hi &&
			    cfg->bind[j].lo <= b->hi) {
				snprintf(err, n,
					 "%s: [terminals] t%u-%u overlaps "
					 "t%u-%u (%s): a terminal has one port",
					 b->where, b->lo, b->hi,
					 cfg->bind[j].lo, cfg->bind[j].hi,
					 cfg->bind[j].where);
				return -1;
			}
	}
	/* every device name once (the part before the first comma) */
	for (uint32_t t = 0; t < nt; t++) {
		if (!df_term_vdev(cfg, t, v1, sizeof(v1)))
			continue;
		v1[strcspn(v1, ",")] = '\0';
		for (uint32_t u = 0; u < t; u++) {
			if (!df_term_vdev(cfg, u, v2, sizeof(v2)))
				continue;
			v2[strcspn(v2, ",")] = '\0';
			if (!strcmp(v1, v2)) {
				snprintf(
					err, n,
					"%s: [terminals] t%u and t%u would "
					"both be device %s; give each terminal "
					"its own instance number ({t})",
					cfg->path, u, t, v1);
				return -1;
			}
		}
	}
	for (uint32_t i = 0; i < cfg->naddr; i++) {
		const struct df_term_addr *a = &cfg->addr[i];
		if (a->t >= nt) {
			snprintf(err, n,
				 "%s: [terminals] t%u.%s: the network has "
				 "terminals t0..t%u",
				 a->where, a->t, a->attr == 1 ? "mac" : "ip",
				 nt - 1);
			return -1;
		}
	}
	if ((cfg->nbind || cfg->naddr) && cfg->g > 255) {
		snprintf(err, n,
			 "%s: [terminals] needs g <= 255 (addresses 10.G.R.P), "
			 "have g = %u",
			 cfg->path, cfg->g);
		return -1;
	}
	/* addresses unique: a terminal's MAC and IP identify it */
	for (uint32_t i = 0; i < cfg->naddr; i++) {
		const struct df_term_addr *a = &cfg->addr[i];
		for (uint32_t u = 0; u < nt; u++) {
			uint8_t mac[6];
			if (u == a->t)
				continue;
			df_term_mac(cfg, u, mac);
			if ((a->attr == 1 && !memcmp(mac, a->mac, 6)) ||
			    (a->attr == 2 && df_term_ip(cfg, u) == a->ip)) {
				snprintf(err, n,
					 "%s: [terminals] t%u.%s is already "
					 "terminal t%u's address",
					 a->where, a->t,
					 a->attr == 1 ? "mac" : "ip", u);
				return -1;
			}
		}
	}
	return 0;
}
