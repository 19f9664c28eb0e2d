/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config values: the defaults, a value parsed by its key's type (the key
 * table and the enums' names: config_keys.c) and applied with where it
 * came from, each key's value and documentation (config.h), and
 * df_config_load: the file and --set (config_file.c), then the checks
 * across keys (config_check.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_private.h"
#include "partition.h"
#include "terminals.h"

void df_config_defaults(struct df_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->p = 2;
	cfg->a = 4;
	cfg->h = 2;
	cfg->g = 0;
	cfg->arrangement = DF_ARR_RELATIVE;
	for (int c = 0; c < DF_LINK_NCLASS; c++) {
		cfg->link[c].latency_ns = c == DF_LINK_GLOBAL ? 1000 : 100;
		cfg->link[c].bandwidth_gbps = 1.0;
		cfg->link[c].buffer_flits = 64;
		cfg->link[c].credit_latency_ns = UINT64_MAX; /* = latency */
		cfg->link[c].vcs = 0;			     /* = plan */
	}
	cfg->flit_bytes = 64;
	cfg->vcs_plus = -1;
	cfg->speedup = 1;
	cfg->batch_packets = 2000;
	cfg->algorithm = DF_ALG_MIN;
	cfg->seed = 1;
	cfg->misroute_threshold = 0.9;
	cfg->escape_net = DF_ESC_RING;
	cfg->tree_root = 0;
	cfg->ring = DF_RING_UNI;
	cfg->escape = 1;
	cfg->escape_cap = 15;
	cfg->cm = DF_CM_BCM;
	cfg->bcm_bubble = 2;
	cfg->ecm_threshold = 0.5;
	cfg->pattern = DF_PAT_UNIFORM;
	cfg->shift = 1;
	cfg->load = 0.3;
	cfg->packet_bytes = 256;
	cfg->process = DF_PROC_BERNOULLI;
	cfg->warmup_ms = 200;
	cfg->measure_ms = 1000;
	cfg->drain_timeout_ms = 5000;
	cfg->source_queue = 4096;
	cfg->workers = 0;
	cfg->routers_per_lcore = 0;
	cfg->idle_backoff = 1;
	cfg->idle_sleep_us = 50;
	cfg->lateness_tolerance_ns = 0; /* auto: df_config_lateness_auto */
	cfg->time_scale = 1;
	cfg->tsc_calibrate_ms = 100;
	cfg->watchdog_ms = 10000;
	cfg->ninst = 1;
	cfg->part_wait_ms = 30000;
	cfg->part_peer_timeout_ms = 1000;
	snprintf(cfg->cap_links, sizeof(cfg->cap_links), "none");
	snprintf(cfg->cap_vcs, sizeof(cfg->cap_vcs), "all");
	snprintf(cfg->cap_file, sizeof(cfg->cap_file), "dfemu.pcapng");
	cfg->cap_snaplen = 128;
	cfg->cap_ring = 16384;
	cfg->cap_limit_mb = 1000;
}

void df_cfg_err(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

static void allowed_of(const struct key_def *k, char *buf, size_t n)
{
	size_t len = 0;

	switch (k->type) {
	case K_ENUM:
	case K_ARR:
		len += snprintf(buf, n, "one of ");
		for (int i = 0; k->choices[i] && len < n; i++)
			len += snprintf(buf + len, n - len, "%s%s%s",
					i ? " | " : "", k->choices[i],
					k->type == K_ARR && i == DF_ARR_FILE
						? ":PATH (a link list)"
						: "");
		break;
	case K_BOOL:
		snprintf(buf, n, "on | off (or 1 | 0, yes | no, true | false)");
		break;
	case K_DBL:
		snprintf(buf, n, "a number from %g to %g", k->min, k->max);
		break;
	case K_SCALE:
		snprintf(buf, n, "auto, or a number from %g to %g", k->min,
			 k->max);
		break;
	case K_STR:
		snprintf(buf, n, "text of up to %.0f characters", k->max - 1);
		break;
	case K_VCS:
		snprintf(buf, n,
			 "L/G or L/G+1 (local/global VCs, +1: OFAR's escape "
			 "VC, also written (+1)), L and G from 1 to %d",
			 DF_MAX_VC);
		break;
	default:
		snprintf(buf, n, "an integer from %.0f to %.0f", k->min,
			 k->max);
		break;
	}
}

/* "L/G", "L/G+1" or "L/G(+1)": VCs on local and global links. */
static int parse_vcs(const char *val, struct df_config *cfg)
{
	unsigned l, g;
	int used = 0;

	if (sscanf(val, "%u/%u%n", &l, &g, &used) != 2 || l < 1 ||
	    l > DF_MAX_VC || g < 1 || g > DF_MAX_VC ||
	    !isdigit((unsigned char)val[0]))
		return -1;
	val += used;
	if (*val == '\0')
		cfg->vcs_plus = 0;
	else if (!strcmp(val, "+1") || !strcmp(val, "(+1)"))
		cfg->vcs_plus = 1;
	else
		return -1;
	cfg->link[DF_LINK_LOCAL].vcs = l;
	cfg->link[DF_LINK_GLOBAL].vcs = g;
	return 0;
}

static int parse_value(const struct key_def *k, const char *val,
		       struct df_config *cfg)
{
	char *end;
	void *dst = (char *)cfg + k->off;

	if (*val == '\0')
		return -1;
	switch (k->type) {
	case K_ENUM:
		for (int i = 0; k->choices[i]; i++)
			if (!strcmp(k->choices[i], val)) {
				*(int *)dst = i;
				return 0;
			}
		return -1;
	case K_BOOL:
		if (!strcmp(val, "on") || !strcmp(val, "1") ||
		    !strcmp(val, "yes") || !strcmp(val, "true")) {
			*(int *)dst = 1;
			return 0;
		}
		if (!strcmp(val, "off") || !strcmp(val, "0") ||
		    !strcmp(val, "no") || !strcmp(val, "false")) {
			*(int *)dst = 0;
			return 0;
		}
		return -1;
	case K_VCS:
		return parse_vcs(val, cfg);
	case K_STR:
		if (strlen(val) >= (size_t)k->max)
			return -1;
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	case K_ARR:
		if (!strncmp(val, "file:", 5)) {
			if (val[5] == '\0' ||
			    strlen(val + 5) >= sizeof(cfg->arr_file))
				return -1;
			snprintf(cfg->arr_file, sizeof(cfg->arr_file), "%s",
				 val + 5);
			*(int *)dst = DF_ARR_FILE;
			return 0;
		}
		for (int i = 0; i < DF_ARR_FILE; i++)
			if (!strcmp(k->choices[i], val)) {
				*(int *)dst = i;
				return 0;
			}
		return -1;
	case K_SCALE:
		if (!strcmp(val, "auto")) {
			*(double *)dst = 0;
			return 0;
		}
		/* fall through */
	case K_DBL: {
		errno = 0;
		double d = strtod(val, &end);
		if (errno || *end || !isfinite(d) || d < k->min || d > k->max)
			return -1;
		*(double *)dst = d;
		return 0;
	}
	default: {
		if (!isdigit((unsigned char)val[0]))
			return -1;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (errno || *end || (double)v < k->min || (double)v > k->max)
			return -1;
		if (k->type == K_U32)
			*(uint32_t *)dst = (uint32_t)v;
		else
			*(uint64_t *)dst = v;
		return 0;
	}
	}
}

int df_cfg_apply(struct df_config *cfg, const char *where, const char *sec,
		 const char *key, const char *val, char *err, size_t n)
{
	const struct key_def *k = df_cfg_find_key(sec, key);
	char allowed[256];

	if (!strcmp(sec, "terminals"))
		return df_term_apply(cfg, where, key, val, err, n);
	if (k == NULL && !strcmp(sec, "partition"))
		return df_part_apply(cfg, where, key, val, err, n);
	if (k == NULL) {
		char list[1024];
		if (!df_cfg_known_section(sec)) {
			df_cfg_list_sections(list, sizeof(list));
			df_cfg_err(err, n,
				   "%s: unknown section [%s]; allowed: %s",
				   where, sec, list);
			return -1;
		}
		df_cfg_list_keys(sec, list, sizeof(list));
		df_cfg_err(err, n,
			   "%s: [%s] unknown key '%s'; allowed keys: %s", where,
			   sec, key, list);
		return -1;
	}
	if (parse_value(k, val, cfg)) {
		allowed_of(k, allowed, sizeof(allowed));
		df_cfg_err(err, n, "%s: [%s] %s = '%s' is not allowed; %s: %s",
			   where, sec, key, val, k->help, allowed);
		return -1;
	}
	snprintf(cfg->origin[k - df_cfg_keys], sizeof(cfg->origin[0]), "%s",
		 where);
	return 0;
}

const char *df_config_origin(const struct df_config *cfg, const char *sec,
			     const char *key)
{
	static __thread char dflt[300];
	const struct key_def *k = df_cfg_find_key(sec, key);

	if (k && cfg->origin[k - df_cfg_keys][0])
		return cfg->origin[k - df_cfg_keys];
	snprintf(dflt, sizeof(dflt), "%s (default)", cfg->path);
	return dflt;
}

/* Was [sec] key set, in the file or by --set? */
int df_cfg_is_set(const struct df_config *cfg, const char *sec, const char *key)
{
	return cfg->origin[df_cfg_find_key(sec, key) - df_cfg_keys][0] != '\0';
}

int df_config_load(struct df_config *cfg, const char *path,
		   const char *const *sets, int nsets, char *err, size_t n)
{
	snprintf(cfg->path, sizeof(cfg->path), "%s", path ? path : "(none)");
	if (path && df_cfg_load_file(cfg, path, err, n))
		return -1;
	for (int i = 0; i < nsets; i++)
		if (df_cfg_apply_set(cfg, sets[i], err, n))
			return -1;
	if (cfg->type == DF_TOPO_FLATFLY && df_cfg_flatfly_shape(cfg, err, n))
		return -1;
	if (cfg->g == 0)
		cfg->g = cfg->a * cfg->h + 1;
	for (int k = 0; k < DF_LINK_NCLASS; k++)
		if (cfg->link[k].credit_latency_ns == UINT64_MAX)
			cfg->link[k].credit_latency_ns =
				cfg->link[k].latency_ns;
	if (cfg->lateness_tolerance_ns == 0) {
		cfg->lateness_auto = 1;
		cfg->lateness_tolerance_ns = df_config_lateness_auto(cfg);
	}
	return df_config_validate(cfg, err, n);
}

uint64_t df_config_lateness_auto(const struct df_config *c)
{
	double gbps = 0;

	for (int k = 0; k < DF_LINK_NCLASS; k++)
		if (c->link[k].bandwidth_gbps > gbps)
			gbps = c->link[k].bandwidth_gbps;
	/* Competing packets are ordered at outputs to within the lag: a lag
	 * above a packet time leaves idle gaps no later packet can fill,
	 * and the network's throughput becomes the host's (measured in
	 * docs/realtime.md). Unlimited links: no packet
	 * time, the VM's scheduling noise floor instead. */
	if (gbps <= 0)
		return 100000;
	return (uint64_t)ceil(c->packet_bytes * 8.0 / gbps);
}

/* Ticks to serialize bytes at gbps (0: unlimited, no time). */
static double ser_ticks(double bytes, double gbps)
{
	return gbps > 0 ? bytes * 8.0 / gbps * DF_TICKS_PER_NS : 0;
}

uint64_t df_config_quantum(const struct df_config *c)
{
	double q = -1, gbps = 0;

	if (c->quantum_ns)
		return c->quantum_ns * DF_TICKS_PER_NS;
	/* At most the shortest time from a step to what it causes at the
	 * next node: a link's latency plus one flit's serialization (a
	 * packet is never shorter), for packets and for credits. So what
	 * one node sends in a step is due at the next in a later step,
	 * whatever order the step takes them in. */
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		const struct df_link_params *lp = &c->link[k];
		double f = ser_ticks(c->flit_bytes, lp->bandwidth_gbps);
		double lat = (double)lp->latency_ns * DF_TICKS_PER_NS + f,
		       cl = (double)lp->credit_latency_ns * DF_TICKS_PER_NS + f;

		if (lp->bandwidth_gbps > gbps)
			gbps = lp->bandwidth_gbps;
		if (lat > 0 && (q < 0 || lat < q))
			q = lat;
		if (cl > 0 && (q < 0 || cl < q))
			q = cl;
	}
	/* At most an eighth of a packet time on the fastest link: packets
	 * competing for an output are ordered to within that
	 * (docs/realtime.md, "The quantum"). */
	if (gbps > 0 && (q < 0 || ser_ticks(c->packet_bytes, gbps) / 8 < q))
		q = ser_ticks(c->packet_bytes, gbps) / 8;
	if (q < 0) /* zero latency and unlimited links: 1 ns */
		q = DF_TICKS_PER_NS;
	return q >= 1 ? (uint64_t)q : 1;
}

/* Key i's value in cfg as it would be written in the file (config.h). */
/* A number outside its key's range is a default that means "not set"
 * (2); one inside is a value (1). */
static int set_or_not(const struct key_def *k, double v)
{
	return v < k->min || v > k->max ? 2 : 1;
}

int df_config_value(const struct df_config *cfg, size_t i, const char **sec,
		    const char **name, char *buf, size_t n)
{
	const struct key_def *k;
	const void *v;

	if (i >= df_cfg_nkeys)
		return -1;
	k = &df_cfg_keys[i];
	*sec = k->section;
	*name = k->name;
	v = (const char *)cfg + k->off;
	switch (k->type) {
	case K_ENUM:
		snprintf(buf, n, "%s", k->choices[*(const int *)v]);
		return 0;
	case K_BOOL:
		snprintf(buf, n, "%s", *(const int *)v ? "on" : "off");
		return 0;
	case K_VCS:
		if (cfg->link[DF_LINK_LOCAL].vcs == 0)
			return 2; /* not set: the algorithm's */
		snprintf(buf, n, "%u/%u%s", cfg->link[DF_LINK_LOCAL].vcs,
			 cfg->link[DF_LINK_GLOBAL].vcs,
			 cfg->vcs_plus ? "+1" : "");
		return 0;
	case K_STR:
		snprintf(buf, n, "%s", (const char *)v);
		return 0;
	case K_ARR:
		if (*(const int *)v == DF_ARR_FILE)
			snprintf(buf, n, "file:%s", cfg->arr_file);
		else
			snprintf(buf, n, "%s", k->choices[*(const int *)v]);
		return 0;
	case K_SCALE:
		if (*(const double *)v == 0) {
			snprintf(buf, n, "auto");
			return 0;
		}
		/* fall through */
	case K_DBL:
		snprintf(buf, n, "%.15g", *(const double *)v);
		return 1;
	case K_U32:
		snprintf(buf, n, "%u", *(const uint32_t *)v);
		/* outside the allowed range: not set (another key's or the
		 * plan's value applies) */
		return set_or_not(k, *(const uint32_t *)v);
	default:
		snprintf(buf, n, "%llu",
			 (unsigned long long)*(const uint64_t *)v);
		return set_or_not(k, (double)*(const uint64_t *)v);
	}
}

int df_config_key_doc(size_t i, const char **sec, const char **name,
		      const char **help, char *allowed, size_t n)
{
	if (i >= df_cfg_nkeys)
		return -1;
	*sec = df_cfg_keys[i].section;
	*name = df_cfg_keys[i].name;
	*help = df_cfg_keys[i].help;
	allowed_of(&df_cfg_keys[i], allowed, n);
	return 0;
}
