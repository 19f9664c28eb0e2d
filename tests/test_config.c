/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config loading without EAL: every shipped config loads, every file under
 * DATA/bad/ is refused with the message its "# expect:" line names (and,
 * with a "# line: N" line, at that line), and --set overrides work or are
 * refused naming --set.
 * Usage: test_config CONFIG_DIR DATA_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_private.h"
#include "tables.h"
#include "vcplan.h"
#include "wiring.h"

#include "check.h"

static int is_ini(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

/* Sorted *.ini names of dir; returns the count (-1 if unreadable). */
static int list_ini(const char *dir, struct dirent ***names)
{
	return scandir(dir, names, is_ini, alphasort);
}

static void free_list(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * Load a config, then (if that succeeds) build wiring, tables and the VC
 * plan as dfemu --check does; returns 0 or -1 with the first error.
 */
static int load_and_plan(struct df_config *cfg, const char *path,
			 const char *const *sets, int nsets, char *err,
			 size_t errlen)
{
	struct df_topo topo;
	struct df_tables tb;
	struct df_vcplan_info info;
	int rc = -1;

	memset(&topo, 0, sizeof(topo));
	memset(&tb, 0, sizeof(tb));
	err[0] = '\0';
	df_config_defaults(cfg);
	if (df_config_load(cfg, path, sets, nsets, err, errlen))
		return -1;
	if (df_topo_build(&topo, cfg, err, errlen))
		goto out;
	if (df_tables_build(&tb, &topo, err, errlen))
		goto out;
	if (df_vcplan_build(&tb, cfg, &info, err, errlen))
		goto out;
	rc = 0;
out:
	df_tables_free(&tb);
	df_topo_free(&topo);
	return rc;
}

static void test_good(const char *dir)
{
	struct dirent **names;
	struct df_config cfg;
	char path[1024], err[2048];
	int n = list_ini(dir, &names);

	CHECK(n > 0, "%s holds config files (%d)", dir, n);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		err[0] = '\0';
		df_config_defaults(&cfg);
		int rc = df_config_load(&cfg, path, NULL, 0, err, sizeof(err));
		CHECK(rc == 0, "%s loads%s%s", path, rc ? ": " : "", err);
		if (rc)
			continue;
		rc = load_and_plan(&cfg, path, NULL, 0, err, sizeof(err));
		CHECK(rc == 0, "%s: wiring, tables and VC plan build%s%s", path,
		      rc ? ": " : "", err);
	}
	if (n > 0)
		free_list(names, n);
}

/* Read "# expect: TEXT" (first line) and "# line: N" (second, optional). */
static int read_expect(const char *path, char *expect, size_t n, int *line)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	size_t len;

	*line = 0;
	expect[0] = '\0';
	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL ||
	    strncmp(buf, "# expect: ", 10) != 0) {
		fclose(f);
		return -1;
	}
	snprintf(expect, n, "%s", buf + 10);
	len = strlen(expect);
	while (len > 0 && (expect[len - 1] == '\n' || expect[len - 1] == '\r'))
		expect[--len] = '\0';
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "# line: %d", line) != 1)
		*line = 0;
	fclose(f);
	return len > 0 ? 0 : -1;
}

static void test_bad(const char *data)
{
	struct dirent **names;
	struct df_config cfg;
	char dir[1024], path[2048], err[2048], expect[1024], at[32];
	int n, line;

	snprintf(dir, sizeof(dir), "%s/bad", data);
	n = list_ini(dir, &names);
	CHECK(n > 0, "%s holds bad config files (%d)", dir, n);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!CHECK(read_expect(path, expect, sizeof(expect), &line) ==
				   0,
			   "%s starts with '# expect: TEXT'", path))
			continue;
		int rc = load_and_plan(&cfg, path, NULL, 0, err, sizeof(err));
		if (!CHECK(rc != 0 && err[0] != '\0', "%s is refused", path))
			continue;
		CHECK(strstr(err, expect) != NULL,
		      "%s: message contains '%s' (got: %s)", path, expect, err);
		CHECK(strstr(err, path) != NULL,
		      "%s: message names the file (got: %s)", path, err);
		if (line > 0) {
			snprintf(at, sizeof(at), ":%d:", line);
			CHECK(strstr(err, at) != NULL,
			      "%s: message names line %d (got: %s)", path, line,
			      err);
		}
	}
	if (n > 0)
		free_list(names, n);
}

static void test_sets(const char *confdir)
{
	static const char *const bad[] = {
		"traffic.load", /* no value */
		"load=0.5",	/* no section */
		"traffic.nokey=1",
		"nosection.x=1",
		"traffic.load=2", /* out of range */
		"traffic.load=",  /* empty value */
		"topology.arrangement=spiral",
	};
	struct df_config cfg;
	char path[1024], err[2048];
	const char *set;
	int rc;

	snprintf(path, sizeof(path), "%s/reference.ini", confdir);

	set = "traffic.load=0.5";
	df_config_defaults(&cfg);
	rc = df_config_load(&cfg, NULL, &set, 1, err, sizeof(err));
	CHECK(rc == 0 && cfg.load == 0.5, "--set %s without a file (%s)", set,
	      rc ? err : "ok");

	/* reference.ini says load = 0.3: --set applies after the file */
	df_config_defaults(&cfg);
	rc = df_config_load(&cfg, path, &set, 1, err, sizeof(err));
	CHECK(rc == 0 && cfg.load == 0.5, "--set %s overrides %s (%s)", set,
	      path, rc ? err : "ok");

	const char *two[] = {"routing.algorithm=val",
			     "traffic.pattern=adversarial"};
	df_config_defaults(&cfg);
	rc = df_config_load(&cfg, path, two, 2, err, sizeof(err));
	CHECK(rc == 0 && cfg.algorithm == DF_ALG_VAL &&
		      cfg.pattern == DF_PAT_ADVERSARIAL,
	      "two --set apply (%s)", rc ? err : "ok");

	set = " traffic . load = 0.25 ";
	df_config_defaults(&cfg);
	rc = df_config_load(&cfg, NULL, &set, 1, err, sizeof(err));
	CHECK(rc == 0 && cfg.load == 0.25, "--set with spaces '%s' (%s)", set,
	      rc ? err : "ok");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set = bad[i];
		err[0] = '\0';
		df_config_defaults(&cfg);
		rc = df_config_load(&cfg, NULL, &set, 1, err, sizeof(err));
		CHECK(rc != 0 && strstr(err, "--set") != NULL &&
			      strstr(err, bad[i]) != NULL,
		      "--set %s is refused naming --set %s (got: %s)", bad[i],
		      bad[i], err);
	}
}

/* Every value of an enum key below count, by its accessor's name: the
 * name parses back to the value (the accessor and the parser read the
 * key table's one list); value past has no name. */
#define NAME_ROUNDTRIP(sec, key, field, fn, count, past)                      \
	do {                                                                  \
		for (int v = 0; v < (int)(count); v++) {                      \
			const char *nm = fn(v);                               \
			df_config_defaults(&cfg);                             \
			rc = df_cfg_apply(&cfg, "test", sec, key, nm, err,    \
					  sizeof(err));                       \
			CHECK(rc == 0 && (int)cfg.field == v,                 \
			      "[%s] %s = %s is value %d (%s)", sec, key, nm,  \
			      v, rc ? err : "ok");                            \
		}                                                             \
		CHECK(!strcmp(fn(past), "?"), "[%s] %s: %d has no name", sec, \
		      key, (int)(past));                                      \
	} while (0)
/* the usual case: every value parses, the one after the last has none */
#define NAMES_ALL(sec, key, field, fn, last) \
	NAME_ROUNDTRIP(sec, key, field, fn, (last) + 1, (last) + 1)

static void test_names(void)
{
	struct df_config cfg;
	char err[2048];
	int rc;

	NAMES_ALL("topology", "type", type, df_topo_type_name, DF_TOPO_FLATFLY);
	/* file: written file:PATH, parsed apart */
	NAME_ROUNDTRIP("topology", "arrangement", arrangement,
		       df_arrangement_name, DF_ARR_FILE, DF_ARR_FILE + 1);
	CHECK(!strcmp(df_arrangement_name(DF_ARR_FILE), "file"),
	      "[topology] arrangement: file:PATH's name is file");
	NAMES_ALL("router", "switching", switching, df_switching_name,
		  DF_SW_STORE_FORWARD);
	NAMES_ALL("routing", "algorithm", algorithm, df_algorithm_name,
		  DF_ALG_COUNT - 1);
	NAMES_ALL("routing", "pb_flags", pb_flags, df_pb_flags_name,
		  DF_PB_DIRECT);
	NAMES_ALL("routing", "misroute_policy", misroute_policy,
		  df_mis_policy_name, DF_MIS_RRG);
	NAMES_ALL("routing", "misroute_pick", misroute_pick, df_mis_pick_name,
		  DF_PICK_MOST_FREE);
	NAMES_ALL("routing", "misroute_occupancy", misroute_occupancy,
		  df_mis_occ_name, DF_OCC_DOWNSTREAM);
	NAMES_ALL("routing", "escape_net", escape_net, df_escape_net_name,
		  DF_ESC_TREE);
	NAMES_ALL("routing", "ring", ring, df_ring_dir_name, DF_RING_BI);
	NAMES_ALL("routing", "cm", cm, df_cm_name, DF_CM_ECM);
	NAMES_ALL("traffic", "pattern", pattern, df_pattern_name,
		  DF_PAT_ROUTER_SHIFT);
	NAMES_ALL("traffic", "process", process, df_process_name,
		  DF_PROC_SATURATE);
	NAMES_ALL("traffic", "mode", mode, df_mode_name, DF_MODE_ALL_TO_ALL);
	NAMES_ALL("run", "pace", pace, df_pace_name, DF_PACE_NONE);
	CHECK(!strcmp(df_link_class_name(DF_LINK_GLOBAL), "global") &&
		      !strcmp(df_link_class_name(DF_LINK_NCLASS), "?"),
	      "link classes: global's name, none past the last");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s CONFIG_DIR DATA_DIR\n", argv[0]);
		return 2;
	}
	test_good(argv[1]);
	test_bad(argv[2]);
	test_sets(argv[1]);
	test_names();
	return check_done();
}
