/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config checks across keys (config.h df_config_validate): the shape of
 * the dragonfly or the flattened butterfly, VCs against the algorithm,
 * the traffic pattern, buffers, the router, the time scale, then the
 * [terminals], [partition] and [capture] checks; and a flattened
 * butterfly's p, a, h and g derived from its k and n.
 */
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "config_private.h"
#include "partition.h"
#include "terminals.h"

#define AT(sec, key) df_config_origin(c, sec, key)

static int flatfly_validate(const struct df_config *c, char *err, size_t n)
{
	uint32_t radix = c->n * (c->k - 1) + 1, vcs;

	if ((uint64_t)c->a * c->g > 4096) {
		df_cfg_err(err, n,
			   "%s: [topology] a %u-ary %u-flat has more than 4096 "
			   "routers",
			   AT("topology", "n"), c->k, c->n);
		return -1;
	}
	if (radix > DF_MAX_RADIX) {
		df_cfg_err(err, n,
			   "%s: [topology] a %u-ary %u-flat needs routers of "
			   "radix n(k-1)+1 = %u; at most %d are supported",
			   AT("topology", "k"), c->k, c->n, radix,
			   DF_MAX_RADIX);
		return -1;
	}
	if (!df_alg_on_flatfly(c->algorithm)) {
		char names[256];

		df_alg_names(names, sizeof(names), 1, 0);
		df_cfg_err(err, n,
			   "%s: [routing] algorithm = %s is a dragonfly "
			   "algorithm; on a flattened butterfly allowed ([FB] "
			   "§3.1): %s",
			   AT("routing", "algorithm"),
			   df_algorithm_name(c->algorithm), names);
		return -1;
	}
	/* hop-indexed VCs (vcplan.c): n-1 for MIN AD, 2(n-1) with a
	 * Valiant phase */
	vcs = df_alg_hop_vcs(c->algorithm, c->n - 1);
	if (vcs > DF_MAX_VC) {
		df_cfg_err(err, n,
			   "%s: [routing] algorithm = %s on a %u-ary %u-flat "
			   "needs %u VCs per link (one per hop); a port has at "
			   "most %d: use n <= %u, or min / val (%s VCs)",
			   AT("routing", "algorithm"),
			   df_algorithm_name(c->algorithm), c->k, c->n, vcs,
			   DF_MAX_VC, 1 + DF_MAX_VC * (c->n - 1) / vcs,
			   "1 and 2");
		return -1;
	}
	return 0;
}

/* [router]: what the crossbar and output queues need (docs/router.md). */
static int router_validate(const struct df_config *c, char *err, size_t n)
{
	uint32_t need = (c->packet_bytes + c->flit_bytes - 1) / c->flit_bytes;

	if (c->speedup > 1 && c->output_buffer_flits == 0) {
		df_cfg_err(
			err, n,
			"%s: [router] speedup = %g needs an output queue for "
			"the packets the crossbar moves faster than the link "
			"sends them; allowed: output_buffer_flits >= %u, or "
			"speedup = 1",
			AT("router", "speedup"), c->speedup, need);
		return -1;
	}
	if (c->output_buffer_flits > 0 && c->output_buffer_flits < need) {
		df_cfg_err(
			err, n,
			"%s: [router] output_buffer_flits = %u cannot hold one "
			"packet of %u bytes (%u flits of %u bytes); allowed: 0 "
			"(no output queue) or at least %u",
			AT("router", "output_buffer_flits"),
			c->output_buffer_flits, c->packet_bytes, need,
			c->flit_bytes, need);
		return -1;
	}
	return 0;
}

/* What time dilation cannot do (docs/realtime.md, "Time dilation"). */
static int time_scale_validate(const struct df_config *c, char *err, size_t n)
{
	if (c->time_scale == 0 && c->ninst > 1) {
		df_cfg_err(err, n,
			   "%s: [run] time_scale = auto would calibrate each "
			   "of the %u instances apart ([partition]); give a "
			   "number (1 = real time)",
			   AT("run", "time_scale"), c->ninst);
		return -1;
	}
	if (c->time_scale == 0 && (c->nbind || c->mode != DF_MODE_STEADY)) {
		df_cfg_err(err, n,
			   "%s: [run] time_scale = auto calibrates on the "
			   "generated traffic of a steady run, without ports "
			   "([terminals]); give a number (1 = real time)",
			   AT("run", "time_scale"));
		return -1;
	}
	/* ports meet the wall clock: emulated time must follow it
	 * (docs/realtime.md, "Pace"); instances keep in step by their
	 * clocks, paced or not */
	if (c->pace == DF_PACE_NONE && c->nbind) {
		df_cfg_err(err, n,
			   "%s: [run] pace = none runs as fast as the host "
			   "can, but DPDK ports ([terminals]) meet the wall "
			   "clock; use pace = realtime (the default)",
			   AT("run", "pace"));
		return -1;
	}
	return 0;
}

/* A dragonfly's shape (g, arrangement, radix, size) and its VCs against
 * the algorithm. */
static int dragonfly_validate(const struct df_config *c, char *err, size_t n)
{
	uint32_t gmax = c->a * c->h + 1;
	uint32_t radix = c->p + (c->a - 1) + c->h;

	if (!df_alg_on_dragonfly(c->algorithm)) {
		char names[256];

		df_alg_names(names, sizeof(names), 0, 1);
		df_cfg_err(
			err, n,
			"%s: [routing] algorithm = %s is a flattened-butterfly "
			"algorithm ([FB] §3.1; [topology] type = flatfly); on "
			"a dragonfly the adaptive ones are %s",
			AT("routing", "algorithm"),
			df_algorithm_name(c->algorithm), names);
		return -1;
	}
	if (c->g < 2 || c->g > gmax) {
		df_cfg_err(err, n,
			   "%s: [topology] g = %u is not allowed with a = %u, "
			   "h = %u: groups must be 2..a*h+1 = 2..%u (or 0 for "
			   "a*h+1)",
			   AT("topology", "g"), c->g, c->a, c->h, gmax);
		return -1;
	}
	if (c->arrangement >= DF_ARR_CIRCULANT &&
	    c->arrangement <= DF_ARR_NAUTILUS && c->g != gmax) {
		df_cfg_err(err, n,
			   "%s: [topology] arrangement = %s is defined for g = "
			   "a*h+1 = %u groups (one link per group pair, [SP] "
			   "§I), have g = %u; use relative or absolute, or a "
			   "file: link list",
			   AT("topology", "arrangement"),
			   df_arrangement_name(c->arrangement), gmax, c->g);
		return -1;
	}
	if (c->arrangement == DF_ARR_CIRCULANT && c->h % 2) {
		df_cfg_err(
			err, n,
			"%s: [topology] arrangement = circulant needs an even "
			"h ([SP] §V), have h = %u",
			AT("topology", "arrangement"), c->h);
		return -1;
	}
	if (radix > DF_MAX_RADIX) {
		df_cfg_err(
			err, n,
			"%s: [topology] router radix p+a-1+h = %u+%u+%u = %u "
			"exceeds the supported %d ports (p from %s, a from "
			"%s, h from %s)",
			c->path, c->p, c->a - 1, c->h, radix, DF_MAX_RADIX,
			AT("topology", "p"), AT("topology", "a"),
			AT("topology", "h"));
		return -1;
	}
	if (c->a * c->g > 4096) {
		df_cfg_err(
			err, n,
			"%s: [topology] a*g = %u*%u = %u routers; at most 4096",
			AT("topology", "g"), c->a, c->g, c->a * c->g);
		return -1;
	}
	if (c->vcs_plus >= 0 && (df_cfg_is_set(c, "links", "local_vcs") ||
				 df_cfg_is_set(c, "links", "global_vcs"))) {
		df_cfg_err(
			err, n,
			"%s: [links] vcs and %s: set the VCs one way, either "
			"vcs = L/G(+1) or local_vcs and global_vcs",
			AT("links", "vcs"),
			df_cfg_is_set(c, "links", "local_vcs")
				? AT("links", "local_vcs")
				: AT("links", "global_vcs"));
		return -1;
	}
	if (c->vcs_plus >= 0 && c->vcs_plus != df_alg_escape(c->algorithm)) {
		df_cfg_err(err, n,
			   "%s: [links] vcs = %u/%u%s does not fit [routing] "
			   "algorithm = %s (%s): %s",
			   AT("links", "vcs"), c->link[DF_LINK_LOCAL].vcs,
			   c->link[DF_LINK_GLOBAL].vcs, c->vcs_plus ? "+1" : "",
			   df_algorithm_name(c->algorithm),
			   AT("routing", "algorithm"),
			   c->vcs_plus
				   ? "only ofar has the +1 escape VC; write L/G"
				   : "ofar adds the escape VC; write L/G+1");
		return -1;
	}
	if (df_alg_escape(c->algorithm) && c->escape_net == DF_ESC_TREE &&
	    c->tree_root >= c->g) {
		df_cfg_err(
			err, n,
			"%s: [routing] tree_root = %u is not a group of this "
			"network (g = %u, %s): the tree escape's root group "
			"G_root; allowed: 0..%u",
			AT("routing", "tree_root"), c->tree_root, c->g,
			AT("topology", "g"), c->g - 1);
		return -1;
	}
	if (df_alg_escape(c->algorithm) && c->escape_net == DF_ESC_TREE &&
	    c->ring == DF_RING_BI) {
		df_cfg_err(
			err, n,
			"%s: [routing] ring = bi applies to the escape ring, "
			"but %s sets escape_net = tree; allowed: ring = uni "
			"(the default) with the tree, or escape_net = ring",
			AT("routing", "ring"), AT("routing", "escape_net"));
		return -1;
	}
	return 0;
}

int df_config_validate(const struct df_config *c, char *err, size_t n)
{
	if (c->type == DF_TOPO_FLATFLY) {
		/* the dragonfly's shape and VC rules do not apply */
		if (flatfly_validate(c, err, n))
			return -1;
	} else if (dragonfly_validate(c, err, n)) {
		return -1;
	}
	if (c->pattern == DF_PAT_ROUTER_SHIFT &&
	    c->shift % (c->a * c->g) == 0) {
		df_cfg_err(
			err, n,
			"%s: [traffic] shift = %u with %u routers sends every "
			"router to itself; allowed: a shift that is not a "
			"multiple of the router count",
			AT("traffic", "shift"), c->shift, c->a * c->g);
		return -1;
	}
	if (c->pattern == DF_PAT_ADVERSARIAL && c->shift % c->g == 0) {
		df_cfg_err(err, n,
			   "%s: [traffic] shift = %u with g = %u sends every "
			   "group "
			   "to itself; allowed: a shift that is not a multiple "
			   "of g",
			   AT("traffic", "shift"), c->shift, c->g);
		return -1;
	}
	for (int k = 0; k < DF_LINK_NCLASS; k++) {
		uint32_t need =
			(c->packet_bytes + c->flit_bytes - 1) / c->flit_bytes;
		char key[64];

		snprintf(key, sizeof(key), "%s_buffer_flits",
			 df_link_class_name(k));
		if (c->link[k].buffer_flits < need) {
			df_cfg_err(
				err, n,
				"%s: [links] %s = %u cannot hold one packet of "
				"%u bytes (%u flits of %u bytes); virtual "
				"cut-through needs at least %u",
				AT("links", key), key, c->link[k].buffer_flits,
				c->packet_bytes, need, c->flit_bytes, need);
			return -1;
		}
	}
	if (c->p * c->a * c->g < 2) {
		df_cfg_err(err, n, "%s: [topology] at least 2 terminals needed",
			   AT("topology", "p"));
		return -1;
	}
	if (router_validate(c, err, n) || time_scale_validate(c, err, n) ||
	    df_term_validate(c, err, n) || df_part_validate(c, err, n))
		return -1;
	return df_cap_validate(c, err, n);
}

/*
 * A k-ary n-flat ([FB] §2.1) in dragonfly terms: p = k terminals per
 * router, the k routers along dimension 1 a fully connected "group"
 * (a = k, local links), the other n-2 dimensions the "global" links (h =
 * (n-2)(k-1) per router), g = k^(n-2) groups. Router radix k' =
 * p + a-1 + h = n(k-1)+1 as [FB] Eq. (1) has it.
 */
int df_cfg_flatfly_shape(struct df_config *c, char *err, size_t n)
{
	static const char *const derived[] = {"p", "a", "h", "g"};
	uint64_t g = 1;

	for (int i = 0; i < 4; i++)
		if (df_cfg_is_set(c, "topology", derived[i])) {
			df_cfg_err(err, n,
				   "%s: [topology] %s is set, but with type = "
				   "flatfly p, a, h and g follow from k and n "
				   "(k-ary n-flat); remove it",
				   AT("topology", derived[i]), derived[i]);
			return -1;
		}
	if (c->k == 0 || c->n == 0) {
		df_cfg_err(
			err, n,
			"%s: [topology] type = flatfly needs k and n (a k-ary "
			"n-flat, [FB] §2.1), e.g. k = 4, n = 2",
			AT("topology", "type"));
		return -1;
	}
	for (uint32_t i = 2; i < c->n && g <= 4096; i++)
		g *= c->k;
	c->p = c->k;
	c->a = c->k;
	c->h = (c->n - 2) * (c->k - 1);
	c->g = (uint32_t)(g <= 4096 ? g : 4097);
	return 0;
}
