/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_ALGORITHMS_H
#define DF_ALGORITHMS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Every routing algorithm, defined once (docs/design.md, "Routing
 * engines"). One line each:
 *
 *   X(ID, name, dragonfly engine, flattened-butterfly engine, needs...)
 *
 * ID gives enum df_algorithm's DF_ALG_<ID>; name is the config's
 * ([routing] algorithm) and the report's; the engines are the struct
 * dp_routing_engine of the algorithm's file in dataplane/routing/
 * (dp_no_engine: it does not run on that topology); what it needs is a
 * designated initializer of struct df_alg_info below (its other fields). The
 * config name, --help's and the error messages' lists (config.c,
 * config_check.c), the VC plan and its deadlock check (vcplan.c), the fault
 * checks (faults.c) and the engine the routers call
 * (dataplane/routing/engines.c) all come from this list,
 * in this order. Adding an algorithm is its file plus one line here.
 */
#define DF_ALGORITHMS(X)                                                      \
	X(MIN, "min", dp_min_engine, dp_min_engine, .paths = DF_PATHS_MIN,    \
	  .help = "minimal ([DF] §4.1; [FB]: dimension order)")               \
	X(VAL, "val", dp_val_engine, dp_fb_val_engine, .paths = DF_PATHS_VAL, \
	  .help = "Valiant: a random intermediate group ([DF] §4.1; [FB]: "  \
		  "router)")                                                  \
	X(UGAL_L, "ugal-l", dp_ugal_l_engine, dp_no_engine,                   \
	  .paths = DF_PATHS_VAL, .adaptive = 1,                               \
	  .help = "UGAL on the local port queues ([DF] §4.2)")                \
	X(UGAL_G, "ugal-g", dp_ugal_g_engine, dp_no_engine,                   \
	  .paths = DF_PATHS_VAL, .adaptive = 1,                               \
	  .help = "UGAL on the group's global queues ([DF] §4.2)")            \
	X(UGAL_L_VC, "ugal-l-vc", dp_ugal_l_vc_engine, dp_no_engine,          \
	  .paths = DF_PATHS_VAL, .adaptive = 1,                               \
	  .help = "UGAL-L on per-VC queues ([DF] §4.3.1)")                    \
	X(UGAL_L_VCH, "ugal-l-vch", dp_ugal_l_vch_engine, dp_no_engine,       \
	  .paths = DF_PATHS_VAL, .adaptive = 1,                               \
	  .help = "UGAL-L, hybrid port/VC queues ([DF] §4.3.1)")              \
	X(UGAL_L_CR, "ugal-l-cr", dp_ugal_l_cr_engine, dp_no_engine,          \
	  .paths = DF_PATHS_VAL, .adaptive = 1, .credit_delay = 1,            \
	  .help = "UGAL-L_VCH with delayed credits ([DF] §4.3.2)")            \
	X(PAR, "par", dp_par_engine, dp_no_engine, .paths = DF_PATHS_PAR,     \
	  .adaptive = 1,                                                      \
	  .no_faults = "par decides again in transit, which the check of a "  \
		       "table change does not follow yet",                    \
	  .help = "UGAL-L decided again in the source group")                 \
	X(OFAR, "ofar", dp_ofar_engine, dp_no_engine,                         \
	  .paths = DF_PATHS_ESCAPE, .adaptive = 1,                            \
	  .no_drain = "ofar misroutes through any router and its escape "     \
		      "ring or tree passes through every router, so none "    \
		      "can be drained (link failures are possible)",          \
	  .help = "[OC]: in-transit adaptive, escape ring or tree")           \
	X(VC_ORDERED, "vc-ordered", dp_vc_ordered_engine, dp_no_engine,       \
	  .paths = DF_PATHS_VAL, .adaptive = 1,                               \
	  .help = "[OC]'s PB baseline: UGAL-L and a congestion flag")         \
	X(SHORTEST, "shortest", dp_shortest_engine, dp_no_engine,             \
	  .paths = DF_PATHS_VAL, .shortest_tables = 1,                        \
	  .no_faults = "shortest's intermediate groups are computed once, "   \
		       "for the full wiring",                                 \
	  .help = "[SP] §I: true shortest paths, on VAL's VCs")               \
	X(MIN_AD, "min-ad", dp_no_engine, dp_fb_min_ad_engine,                \
	  .paths = DF_PATHS_HOPS_MIN, .adaptive = 1,                          \
	  .help = "[FB] §3.1: the productive channel with the shortest "     \
		  "queue")                                                    \
	X(UGAL, "ugal", dp_no_engine, dp_fb_ugal_engine,                      \
	  .paths = DF_PATHS_HOPS_VAL, .adaptive = 1,                          \
	  .help = "[FB] §3.1: MIN AD or VAL at the source, greedy")           \
	X(UGAL_S, "ugal-s", dp_no_engine, dp_fb_ugal_s_engine,                \
	  .paths = DF_PATHS_HOPS_VAL, .adaptive = 1,                          \
	  .help = "[FB] §3.1: the same, sequential allocator")                \
	X(CLOS_AD, "clos-ad", dp_no_engine, dp_fb_clos_ad_engine,             \
	  .paths = DF_PATHS_HOPS_VAL, .adaptive = 1,                          \
	  .help = "[FB] §3.1: UGAL-S, the intermediate chosen hop by hop")

#define DF_ALG_ENUM(id, name, dfe, fbe, ...) DF_ALG_##id,
enum df_algorithm { DF_ALGORITHMS(DF_ALG_ENUM) DF_ALG_COUNT };
#undef DF_ALG_ENUM

/*
 * The paths an algorithm's packets can take, which is what the VC plan
 * and its deadlock check enumerate (control/vcplan.c) and what the fault
 * checks walk (control/faults.c).
 */
enum df_path_kind {
	DF_PATHS_MIN,	   /* minimal: [DF] §4.1's three steps */
	DF_PATHS_VAL,	   /* also through every intermediate group */
	DF_PATHS_PAR,	   /* VAL's, and PAR's switches in the source group */
	DF_PATHS_ESCAPE,   /* fully adaptive canonical VCs and an escape
			    * subnetwork ([OC] §III) */
	DF_PATHS_HOPS_MIN, /* [FB] §3.1: hop-indexed VCs, minimal */
	DF_PATHS_HOPS_VAL, /* the same with a Valiant phase */
};

/* What an algorithm needs of the control plane and the emulator. */
struct df_alg_info {
	const char *name; /* [routing] algorithm */
	const char *help; /* one line for --help and docs/routing */
	enum df_path_kind paths;
	/* chooses among paths by occupancy (an adaptive algorithm) */
	unsigned adaptive : 1;
	/* UGAL-L_CR: credits held back by the credit round trip */
	unsigned credit_delay : 1;
	/* routes on [SP]'s true-shortest tables (df_tables_shortest) */
	unsigned shortest_tables : 1;
	/* why link failures cannot be emulated with it (NULL: they can),
	 * and why no router can be drained */
	const char *no_faults, *no_drain;
};

/* The algorithm's entry of DF_ALGORITHMS (control/algorithms.c). */
const struct df_alg_info *df_alg_info(enum df_algorithm a);

/* Does the algorithm run on a flattened butterfly ([topology] type =
 * flatfly), on a dragonfly? */
int df_alg_on_flatfly(enum df_algorithm a);
int df_alg_on_dragonfly(enum df_algorithm a);

/* The names of the algorithms that run on a flattened butterfly (or a
 * dragonfly), ", "-separated, into buf; adaptive: those only. */
void df_alg_names(char *buf, size_t n, int flatfly, int adaptive);

/* Does the algorithm route through intermediate groups (VAL paths)? */
static inline int df_alg_nonminimal(enum df_algorithm a)
{
	enum df_path_kind p = df_alg_info(a)->paths;

	return p == DF_PATHS_VAL || p == DF_PATHS_PAR || p == DF_PATHS_HOPS_VAL;
}

/* VCs per link of [FB] §3.1's hop-indexed paths over dims dimensions:
 * one per hop, dims hops minimal, twice that with a Valiant phase; 0 for
 * an algorithm whose VCs follow its phases. */
static inline uint32_t df_alg_hop_vcs(enum df_algorithm a, uint32_t dims)
{
	enum df_path_kind p = df_alg_info(a)->paths;

	return p == DF_PATHS_HOPS_MIN	? dims
	       : p == DF_PATHS_HOPS_VAL ? 2 * dims
					: 0;
}

/* Does the algorithm keep an escape subnetwork (the +1 VC, [OC] §III)? */
static inline int df_alg_escape(enum df_algorithm a)
{
	return df_alg_info(a)->paths == DF_PATHS_ESCAPE;
}

/* The adaptive algorithms of [FB] §3.1, for flattened butterflies only:
 * hop-indexed VCs. */
static inline int df_alg_flatfly_only(enum df_algorithm a)
{
	return !df_alg_on_dragonfly(a);
}

#endif
