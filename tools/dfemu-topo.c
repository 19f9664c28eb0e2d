/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dfemu-topo: the wiring dfemu builds and what its paths look like, from
 * the same control/ code the emulator uses; no EAL.
 *
 *   dfemu-topo wiring [--config F] [--set S.K=V]... [--format text|json|dot]
 *                     [--png FILE]
 *   dfemu-topo paths  [--config F] [--set S.K=V]... [--pairs] [--json FILE]
 *                     [--plot DIR]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "cost.h"
#include "paths.h"
#include "wiring.h"

#define MAX_SETS 64

struct opts {
	const char *cmd, *config, *format, *png, *json, *plot, *nodes;
	const char *sets[MAX_SETS];
	int nsets, pairs;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dfemu-topo wiring [--config F] [--set S.K=V]... "
		"[--format text|json|dot] [--png FILE]\n"
		"       dfemu-topo paths  [--config F] [--set S.K=V]... "
		"[--pairs] [--json FILE|-] [--plot DIR]\n"
		"       dfemu-topo cost   [--nodes N,N,...] [--json FILE|-] "
		"[--plot DIR]\n\n"
		"The dragonfly dfemu would build from the config (same code, "
		"no emulation).\n"
		"  wiring   every router's global links, as a table, JSON or "
		"Graphviz DOT;\n"
		"           --png draws the groups and global links with "
		"Graphviz (circo)\n"
		"  paths    per switch pair: HM path length, shortest "
		"distance, number of\n"
		"           shortest paths (--pairs); per source switch: "
		"destinations with a short\n"
		"           Valiant path (gg, ggl, lgg, glg) shorter than / as "
		"long as HM ([SP]);\n"
		"           totals: diameter, distance histogram, HM-not-"
		"shortest pairs, means.\n"
		"           --plot DIR: per-switch bar charts (PNG, gnuplot) "
		"like [SP] Figs. 2, 4, 7\n"
		"  cost     [FB] §4's cost model (Tables 2-3, Fig. 7(b) "
		"cables, §4.2 lengths) for\n"
		"           the dragonfly ([DF] §5), flattened butterfly and "
		"folded Clos, per node,\n"
		"           for N = 256..65536 (or --nodes); see "
		"docs/topology.md\n"
		"Options --config and --set are dfemu's (see dfemu --help).\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"png", required_argument, NULL, 'p'},
		{"json", required_argument, NULL, 'j'},
		{"plot", required_argument, NULL, 'P'},
		{"pairs", no_argument, NULL, 'a'},
		{"nodes", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 1;
	}
	o->cmd = argv[1];
	if (strcmp(o->cmd, "wiring") && strcmp(o->cmd, "paths") &&
	    strcmp(o->cmd, "cost")) {
		fprintf(stderr,
			"dfemu-topo: unknown command '%s' (allowed: wiring, "
			"paths, cost)\n",
			o->cmd);
		return 2;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "c:s:f:p:j:P:ahn:", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			if (o->nsets == MAX_SETS) {
				fprintf(stderr, "dfemu-topo: too many --set\n");
				return 2;
			}
			o->sets[o->nsets++] = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'p':
			o->png = optarg;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'P':
			o->plot = optarg;
			break;
		case 'a':
			o->pairs = 1;
			break;
		case 'n':
			o->nodes = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "Try 'dfemu-topo --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dfemu-topo: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (o->format && strcmp(o->format, "text") &&
	    strcmp(o->format, "json") && strcmp(o->format, "dot")) {
		fprintf(stderr,
			"dfemu-topo: --format %s: allowed text, json, dot\n",
			o->format);
		return 2;
	}
	return 0;
}

static void name(const struct df_topo *t, uint32_t r, char *buf, size_t n)
{
	snprintf(buf, n, "g%u.r%u", r / t->a, r % t->a);
}

static void wiring_text(const struct df_topo *t, const struct df_config *c,
			FILE *f)
{
	if (t->type == DF_TOPO_FLATFLY)
		fprintf(f,
			"dfemu-topo wiring: %u-ary %u-flat (flattened "
			"butterfly): dimension 1 = the groups' local links, "
			"dimensions 2.. = global ports\n",
			t->k, t->n);
	fprintf(f,
		"dfemu-topo wiring: p=%u a=%u h=%u g=%u arrangement=%s%s%s\n"
		"%u routers, %u global links, %u local, %u terminal\n"
		"router  global ports: port -> router.port\n",
		t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement),
		c->arrangement == DF_ARR_FILE ? ":" : "",
		c->arrangement == DF_ARR_FILE ? c->arr_file : "", t->nrouters,
		df_topo_count_links(t, DF_LINK_GLOBAL),
		df_topo_count_links(t, DF_LINK_LOCAL),
		df_topo_count_links(t, DF_LINK_TERMINAL));
	for (uint32_t r = 0; r < t->nrouters; r++) {
		char a[32], b[32];
		name(t, r, a, sizeof(a));
		fprintf(f, "%-7s", a);
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls != DF_LINK_GLOBAL)
				continue;
			if (pi->peer == DF_NO_PEER) {
				fprintf(f, " p%u -> (unused)", k);
				continue;
			}
			name(t, pi->peer, b, sizeof(b));
			fprintf(f, " p%u -> %s.p%u", k, b, pi->peer_port);
		}
		fprintf(f, "\n");
	}
}

static void wiring_json(const struct df_topo *t, FILE *f)
{
	fprintf(f,
		"{\"p\": %u, \"a\": %u, \"h\": %u, \"g\": %u, "
		"\"arrangement\": \"%s\", \"routers\": [",
		t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement));
	for (uint32_t r = 0; r < t->nrouters; r++) {
		int first = 1;
		fprintf(f,
			"%s\n {\"router\": %u, \"group\": %u, \"index\": %u, "
			"\"global\": [",
			r ? "," : "", r, r / t->a, r % t->a);
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls != DF_LINK_GLOBAL || pi->peer == DF_NO_PEER)
				continue;
			fprintf(f,
				"%s{\"port\": %u, \"peer\": %u, "
				"\"peer_group\": %u, \"peer_index\": %u, "
				"\"peer_port\": %u}",
				first ? "" : ", ", k, pi->peer, pi->peer / t->a,
				pi->peer % t->a, pi->peer_port);
			first = 0;
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n]}\n");
}

/* Groups as clusters (routers and their local links), global links
 * between clusters. */
static void wiring_dot(const struct df_topo *t, FILE *f)
{
	fprintf(f,
		"graph dragonfly {\n"
		"  label=\"dragonfly p=%u a=%u h=%u g=%u, %s arrangement\";\n"
		"  node [shape=circle, fontsize=9, width=0.3];\n",
		t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement));
	for (uint32_t G = 0; G < t->g; G++) {
		fprintf(f, "  subgraph cluster_g%u {\n    label=\"G%u\";\n", G,
			G);
		for (uint32_t i = 0; i < t->a; i++)
			fprintf(f, "    r%u [label=\"%u.%u\"];\n", G * t->a + i,
				G, i);
		for (uint32_t i = 0; i < t->a; i++)
			for (uint32_t j = i + 1; j < t->a; j++)
				fprintf(f,
					"    r%u -- r%u [color=gray, "
					"style=dotted];\n",
					G * t->a + i, G * t->a + j);
		fprintf(f, "  }\n");
	}
	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls == DF_LINK_GLOBAL &&
			    pi->peer != DF_NO_PEER && pi->peer > r)
				fprintf(f, "  r%u -- r%u;\n", r, pi->peer);
		}
	fprintf(f, "}\n");
}

static int png(const struct df_topo *t, const char *out)
{
	char cmd[600];
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "circo -Tpng -o '%s'", out);
	p = popen(cmd, "w");
	if (p == NULL) {
		fprintf(stderr, "dfemu-topo: cannot run circo (Graphviz)\n");
		return -1;
	}
	wiring_dot(t, p);
	rc = pclose(p);
	if (rc != 0) {
		fprintf(stderr,
			"dfemu-topo: --png %s: circo failed (exit %d); it is "
			"in Debian's graphviz package\n",
			out, rc);
		return -1;
	}
	return 0;
}

/* A flattened butterfly has no HM or Valiant-group paths: distances and
 * shortest-path counts only ([FB] §2.2: j differing digits, j! routes). */
static void flatfly_text(const struct df_topo *t, const struct df_paths *ps,
			 FILE *f)
{
	fprintf(f,
		"dfemu-topo paths: %u-ary %u-flat (flattened butterfly), %u "
		"routers\n  switch pairs            %llu (ordered)\n"
		"  diameter                %u\n  distance histogram     ",
		t->k, t->n, t->nrouters, (unsigned long long)ps->pairs,
		ps->diameter);
	for (uint32_t d = 1; d <= ps->diameter && d < 16; d++)
		fprintf(f, " %u:%llu", d, (unsigned long long)ps->dist_hist[d]);
	fprintf(f, "\n  mean shortest           %.4f hops\n",
		ps->mean_shortest);
}

/* Every ordered pair: source, destination, HM length (dragonfly only),
 * shortest distance, number of shortest paths. */
static void json_pairs(const struct df_paths *ps, int hm, FILE *f)
{
	fprintf(f, ",\n \"pairs\": [");
	for (uint32_t s = 0; s < ps->n; s++)
		for (uint32_t d = 0; d < ps->n; d++) {
			size_t i = (size_t)s * ps->n + d;
			if (s == d)
				continue;
			fprintf(f, "%s[%u, %u, ", i > 1 ? ", " : "", s, d);
			if (hm)
				fprintf(f, "%u, ", ps->hm[i]);
			fprintf(f, "%u, %llu]", ps->dist[i],
				(unsigned long long)ps->nshort[i]);
		}
	fprintf(f,
		"],\n \"pair_fields\": [\"source\", \"dest\", %s"
		"\"shortest\", \"shortest_paths\"]",
		hm ? "\"hm\", " : "");
}

static void flatfly_json(const struct df_topo *t, const struct df_paths *ps,
			 int pairs, FILE *f)
{
	fprintf(f,
		"{\"type\": \"flatfly\", \"k\": %u, \"n\": %u, "
		"\"switches\": %u, \"switch_pairs\": %llu, \"diameter\": "
		"%u, \"mean_shortest\": %.6f",
		t->k, t->n, ps->n, (unsigned long long)ps->pairs, ps->diameter,
		ps->mean_shortest);
	if (pairs)
		json_pairs(ps, 0, f);
	fprintf(f, "}\n");
}

static void paths_text(const struct df_topo *t, const struct df_paths *ps,
		       int pairs, FILE *f)
{
	if (t->type == DF_TOPO_FLATFLY) {
		flatfly_text(t, ps, f);
		return;
	}
	fprintf(f,
		"dfemu-topo paths: p=%u a=%u h=%u g=%u arrangement=%s\n"
		"  switch pairs            %llu (ordered)\n"
		"  diameter                %u\n"
		"  distance histogram     ",
		t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement),
		(unsigned long long)ps->pairs, ps->diameter);
	for (uint32_t d = 1; d <= ps->diameter && d < 16; d++)
		fprintf(f, " %u:%llu", d, (unsigned long long)ps->dist_hist[d]);
	fprintf(f,
		"\n  HM path not shortest    %llu pairs (%.2f %%)\n"
		"  mean shortest           %.4f hops\n"
		"  mean HM                 %.4f hops\n"
		"  mean Valiant            %.4f hops (intermediate group "
		"neither source's nor destination's)\n"
		"  per source switch: destinations with a short Valiant path "
		"(gg, ggl, lgg, glg)\n"
		"  switch   shorter  equal  (than the HM path)\n",
		(unsigned long long)ps->hm_not_shortest,
		ps->pairs ? 100.0 * ps->hm_not_shortest / ps->pairs : 0.0,
		ps->mean_shortest, ps->mean_hm, ps->mean_valiant);
	for (uint32_t s = 0; s < ps->n; s++) {
		char a[32];
		name(t, s, a, sizeof(a));
		fprintf(f, "  %-8s %7u %6u\n", a, ps->sv[s].less,
			ps->sv[s].equal);
	}
	if (!pairs)
		return;
	fprintf(f, "  source   dest     HM  shortest  shortest paths\n");
	for (uint32_t s = 0; s < ps->n; s++)
		for (uint32_t d = 0; d < ps->n; d++) {
			char a[32], b[32];
			size_t i = (size_t)s * ps->n + d;
			if (s == d)
				continue;
			name(t, s, a, sizeof(a));
			name(t, d, b, sizeof(b));
			fprintf(f, "  %-8s %-8s %2u  %8u  %14llu\n", a, b,
				ps->hm[i], ps->dist[i],
				(unsigned long long)ps->nshort[i]);
		}
}

static void paths_json(const struct df_topo *t, const struct df_paths *ps,
		       int pairs, FILE *f)
{
	if (t->type == DF_TOPO_FLATFLY) {
		flatfly_json(t, ps, pairs, f);
		return;
	}
	fprintf(f,
		"{\"p\": %u, \"a\": %u, \"h\": %u, \"g\": %u, "
		"\"arrangement\": \"%s\",\n \"switches\": %u, "
		"\"switch_pairs\": %llu, \"hm_not_shortest_pairs\": %llu, "
		"\"diameter\": %u, \"mean_shortest\": %.6f, \"mean_hm\": "
		"%.6f, \"mean_valiant\": %.6f,\n \"distance_histogram\": {",
		t->p, t->a, t->h, t->g, df_arrangement_name(t->arrangement),
		ps->n, (unsigned long long)ps->pairs,
		(unsigned long long)ps->hm_not_shortest, ps->diameter,
		ps->mean_shortest, ps->mean_hm, ps->mean_valiant);
	for (uint32_t d = 1; d <= ps->diameter && d < 16; d++)
		fprintf(f, "%s\"%u\": %llu", d > 1 ? ", " : "", d,
			(unsigned long long)ps->dist_hist[d]);
	fprintf(f, "},\n \"per_switch\": [");
	for (uint32_t s = 0; s < ps->n; s++) {
		const struct df_sv_counts *c = &ps->sv[s];
		fprintf(f,
			"%s\n  {\"switch\": %u, \"group\": %u, \"index\": %u, "
			"\"delta_less\": %u, \"delta_equal\": %u, "
			"\"delta_less_gg\": %u, \"delta_equal_gg\": %u, "
			"\"delta_equal_ggl\": %u, \"delta_equal_glg\": %u, "
			"\"delta_equal_glg_ggl\": %u}",
			s ? "," : "", s, s / t->a, s % t->a, c->less, c->equal,
			c->less_gg, c->equal_gg, c->equal_ggl, c->equal_glg,
			c->equal_glg_ggl);
	}
	fprintf(f, "\n ]");
	if (pairs)
		json_pairs(ps, 1, f);
	fprintf(f, "\n}\n");
}

/* [SP] Figs. 2, 4, 7: per source switch, destinations with shorter and
 * with equal-length SV paths, as bars. */
static int paths_plot(const struct df_topo *t, const struct df_paths *ps,
		      const char *dir)
{
	char path[512], cmd[1200];
	FILE *f;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "dfemu-topo: --plot %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sv.dat", dir);
	f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "dfemu-topo: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (uint32_t s = 0; s < ps->n; s++)
		fprintf(f, "g%ur%u %u %u\n", s / t->a, s % t->a, ps->sv[s].less,
			ps->sv[s].equal);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "gnuplot -e \"set terminal png size %u,420; "
		 "set output '%s/sv.png'; set style data histograms; "
		 "set style histogram rowstacked; set style fill solid; "
		 "set boxwidth 0.8; set xtics rotate by 90 font ',7'; "
		 "set key outside top center horizontal; set bmargin 6; "
		 "set ylabel 'destination switches'; "
		 "set title 'SV paths per source switch: %s, a=%u h=%u "
		 "(of %u destinations)'; "
		 "plot '%s' using 2:xtic(1) title 'shorter than HM', "
		 "'' using 3 title 'as long as HM'\"",
		 ps->n * 12 + 200 < 3000 ? ps->n * 12 + 200 : 3000, dir,
		 df_arrangement_name(t->arrangement), t->a, t->h, ps->n - 1,
		 path);
	if (system(cmd) != 0) {
		fprintf(stderr,
			"dfemu-topo: --plot: gnuplot failed (Debian package "
			"gnuplot-nox)\n");
		return -1;
	}
	return 0;
}

/* [FB] §4 for a list of network sizes: a table, JSON, a plot. */
static int cost(const struct opts *o)
{
	static const uint64_t dflt[] = {256,  512,   1024,  2048, 4096,
					8192, 16384, 32768, 65536};
	uint64_t sizes[64];
	uint32_t nsizes = 0;
	struct df_cost_params cp;
	FILE *js = NULL, *dat = NULL;
	char path[512];

	if (o->nodes) {
		const char *s = o->nodes;
		while (*s && nsizes < 64) {
			char *end;
			unsigned long long v = strtoull(s, &end, 10);
			if (end == s || v < 2 || v > (1ULL << 24) ||
			    (*end && *end != ',')) {
				fprintf(stderr,
					"dfemu-topo: --nodes %s: a comma list "
					"of node counts 2..16777216\n",
					o->nodes);
				return 2;
			}
			sizes[nsizes++] = v;
			s = *end ? end + 1 : end;
		}
	} else {
		memcpy(sizes, dflt, sizeof(dflt));
		nsizes = sizeof(dflt) / sizeof(dflt[0]);
	}
	df_cost_defaults(&cp);
	if (o->json)
		js = strcmp(o->json, "-") ? fopen(o->json, "w") : stdout;
	if (o->plot) {
		if (mkdir(o->plot, 0755) && errno != EEXIST)
			return 3;
		snprintf(path, sizeof(path), "%s/cost.dat", o->plot);
		dat = fopen(path, "w");
	}
	if ((o->json && js == NULL) || (o->plot && dat == NULL)) {
		fprintf(stderr, "dfemu-topo: cannot write the output: %s\n",
			strerror(errno));
		return 3;
	}
	if (js != stdout)
		printf("dfemu-topo cost: [FB] §4 model, radix-%u routers, $ "
		       "per "
		       "node (links share, avg cable m)\n%8s",
		       cp.radix, "N");
	for (int t = 0; js != stdout && t < DF_COST_NTOPO; t++)
		printf(" %30s", df_cost_topo_name(t));
	if (js != stdout)
		printf("  FB vs Clos  DF vs FB\n");
	if (js)
		fprintf(js, "{\"model\": \"[FB] section 4\", \"sizes\": [");
	for (uint32_t i = 0; i < nsizes; i++) {
		struct df_cost c[DF_COST_NTOPO];
		int ok[DF_COST_NTOPO];
		for (int t = 0; t < DF_COST_NTOPO; t++)
			ok[t] = df_cost_of(t, sizes[i], &cp, &c[t]) == 0;
		if (js != stdout) {
			printf("%8llu", (unsigned long long)sizes[i]);
			for (int t = 0; t < DF_COST_NTOPO; t++)
				if (ok[t])
					printf("  %8.1f (%2.0f %%, %5.1f m)",
					       c[t].cost_total / sizes[i],
					       100 * c[t].cost_links /
						       c[t].cost_total,
					       c[t].cable_m_avg);
				else
					printf(" %30s", "-");
			printf("  %8.1f %%  %7.1f %%\n",
			       100 * (1 - c[1].cost_total / c[2].cost_total),
			       100 * (1 - c[0].cost_total / c[1].cost_total));
		}
		if (js) {
			fprintf(js, "%s\n {\"nodes\": %llu", i ? "," : "",
				(unsigned long long)sizes[i]);
			for (int t = 0; t < DF_COST_NTOPO; t++)
				if (ok[t])
					fprintf(js,
						", \"%s\": {\"per_node\": "
						"%.2f, \"total\": %.0f, "
						"\"routers\": %.0f, "
						"\"backplane_links\": %.0f, "
						"\"cables\": %.0f, "
						"\"long_cables\": %.0f, "
						"\"cable_m_avg\": %.2f, "
						"\"link_share\": %.4f, "
						"\"shape\": \"%s\"}",
						df_cost_topo_name(t),
						c[t].cost_total / sizes[i],
						c[t].cost_total, c[t].routers,
						c[t].backplane_links,
						c[t].cables, c[t].long_cables,
						c[t].cable_m_avg,
						c[t].cost_links /
							c[t].cost_total,
						c[t].shape);
			fprintf(js, "}");
		}
		if (dat)
			fprintf(dat, "%llu %.2f %.2f %.2f\n",
				(unsigned long long)sizes[i],
				c[0].cost_total / sizes[i],
				c[1].cost_total / sizes[i],
				c[2].cost_total / sizes[i]);
	}
	if (js) {
		fprintf(js, "\n]}\n");
		if (js != stdout)
			fclose(js);
	}
	if (dat) {
		char cmd[1200];
		fclose(dat);
		snprintf(cmd, sizeof(cmd),
			 "gnuplot -e \"set terminal png size 800,480; set "
			 "output '%s/cost.png'; set logscale x 2; set xlabel "
			 "'nodes'; set ylabel '$ per node'; set key left top; "
			 "set title 'network cost, [FB] section 4 model'; "
			 "plot '%s' using 1:2 with linespoints title "
			 "'dragonfly', '' using 1:3 with linespoints title "
			 "'flattened butterfly', '' using 1:4 with "
			 "linespoints title 'folded Clos'\"",
			 o->plot, path);
		if (system(cmd) != 0) {
			fprintf(stderr, "dfemu-topo: --plot: gnuplot failed\n");
			return 3;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct df_config cfg;
	struct df_topo t;
	char err[1024];
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc;
	if (!strcmp(o.cmd, "cost"))
		return cost(&o);
	df_config_defaults(&cfg);
	if (df_config_load(&cfg, o.config, o.sets, o.nsets, err, sizeof(err))) {
		fprintf(stderr, "dfemu-topo: %s\n", err);
		return 2;
	}
	if (df_topo_build(&t, &cfg, err, sizeof(err))) {
		fprintf(stderr, "dfemu-topo: %s\n", err);
		return 2;
	}
	if (!strcmp(o.cmd, "wiring")) {
		if (o.format && !strcmp(o.format, "json"))
			wiring_json(&t, stdout);
		else if (o.format && !strcmp(o.format, "dot"))
			wiring_dot(&t, stdout);
		else
			wiring_text(&t, &cfg, stdout);
		rc = o.png && png(&t, o.png) ? 3 : 0;
	} else {
		struct df_paths ps;
		if (df_paths_compute(&ps, &t, err, sizeof(err))) {
			fprintf(stderr, "dfemu-topo: %s\n", err);
			df_topo_free(&t);
			return 3;
		}
		if (o.json && !strcmp(o.json, "-")) {
			paths_json(&t, &ps, o.pairs, stdout);
		} else {
			paths_text(&t, &ps, o.pairs, stdout);
			if (o.json) {
				FILE *f = fopen(o.json, "w");
				if (f == NULL) {
					fprintf(stderr,
						"dfemu-topo: --json %s: %s\n",
						o.json, strerror(errno));
					rc = 3;
				} else {
					paths_json(&t, &ps, o.pairs, f);
					fclose(f);
				}
			}
		}
		if (o.plot && paths_plot(&t, &ps, o.plot))
			rc = 3;
		df_paths_free(&ps);
	}
	df_topo_free(&t);
	return rc;
}
