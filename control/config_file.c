/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config file: INI read with DPDK's rte_cfgfile. rte_cfgfile keeps no line
 * numbers, so the file is first scanned line by line here: that scan checks
 * the syntax and remembers where each key stands, so every message can name
 * file and line. Values then come from rte_cfgfile. A --set SECTION.KEY=VALUE
 * is applied the same way (df_cfg_apply, config.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cfgfile.h>

#include "config_private.h"
#include "partition.h"
#include "terminals.h"

/* Where a key was seen in the file (from the line scan). */
struct key_pos {
	char section[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];
	int line;
};

struct scan {
	struct key_pos *pos;
	int n, cap;
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int scan_add(struct scan *sc, const char *sec, const char *key, int line)
{
	if (sc->n == sc->cap) {
		int cap = sc->cap ? sc->cap * 2 : 64;
		struct key_pos *p = realloc(sc->pos, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		sc->pos = p;
		sc->cap = cap;
	}
	snprintf(sc->pos[sc->n].section, CFG_NAME_LEN, "%s", sec);
	snprintf(sc->pos[sc->n].key, CFG_NAME_LEN, "%s", key);
	sc->pos[sc->n].line = line;
	sc->n++;
	return 0;
}

static int scan_oom(const char *path, char *err, size_t n)
{
	df_cfg_err(err, n, "%s: out of memory reading config", path);
	return -1;
}

/* A "[name]" line s (trimmed) at line: the section it opens, into sec
 * (CFG_NAME_LEN). */
static int scan_section(const char *path, int line, char *s, char *sec,
			struct scan *sc, char *err, size_t n)
{
	char *close = strchr(s, ']');

	if (close == NULL || close[1] != '\0') {
		df_cfg_err(err, n,
			   "%s:%d: malformed section header '%s'; "
			   "expected [name]",
			   path, line, s);
		return -1;
	}
	*close = '\0';
	snprintf(sec, CFG_NAME_LEN, "%s", trim(s + 1));
	if (!df_cfg_known_section(sec)) {
		char list[256];

		df_cfg_list_sections(list, sizeof(list));
		df_cfg_err(err, n, "%s:%d: unknown section [%s]; allowed: %s",
			   path, line, sec, list);
		return -1;
	}
	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->pos[i].section, sec) &&
		    sc->pos[i].key[0] == '\0') {
			df_cfg_err(err, n,
				   "%s:%d: section [%s] appears "
				   "twice (first at line %d)",
				   path, line, sec, sc->pos[i].line);
			return -1;
		}
	return scan_add(sc, sec, "", line) ? scan_oom(path, err, n) : 0;
}

/* A "key = value" line s (trimmed) at line, in section sec. */
static int scan_key(const char *path, int line, char *s, const char *sec,
		    struct scan *sc, char *err, size_t n)
{
	char *eq = strchr(s, '=');

	if (eq == NULL) {
		df_cfg_err(err, n,
			   "%s:%d: cannot parse '%s'; expected "
			   "'key = value' or '[section]'",
			   path, line, s);
		return -1;
	}
	*eq = '\0';
	char *key = trim(s), *val = trim(eq + 1);
	if (sec[0] == '\0') {
		df_cfg_err(err, n, "%s:%d: key '%s' before any [section]", path,
			   line, key);
		return -1;
	}
	uint32_t lo, hi;
	int attr;
	if (!strcmp(sec, "terminals")
		    ? df_term_key(key, &lo, &hi, &attr) != 0
		    : df_cfg_find_key(sec, key) == NULL &&
			      (strcmp(sec, "partition") ||
			       df_part_key(key, &lo, &hi) != 0)) {
		char allowed[1024];
		df_cfg_list_keys(sec, allowed, sizeof(allowed));
		df_cfg_err(err, n,
			   "%s:%d: [%s] unknown key '%s' (= '%s'); "
			   "allowed keys: %s",
			   path, line, sec, key, val, allowed);
		return -1;
	}
	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->pos[i].section, sec) &&
		    !strcmp(sc->pos[i].key, key)) {
			df_cfg_err(err, n,
				   "%s:%d: [%s] key '%s' set twice "
				   "(first at line %d)",
				   path, line, sec, key, sc->pos[i].line);
			return -1;
		}
	return scan_add(sc, sec, key, line) ? scan_oom(path, err, n) : 0;
}

/*
 * Line scan: syntax, unknown sections and keys, duplicates. Comments start
 * with '#' anywhere on a line (the comment character given to rte_cfgfile).
 */
static int scan_file(const char *path, struct scan *sc, char *err, size_t n)
{
	FILE *f = fopen(path, "r");
	char buf[1024], sec[CFG_NAME_LEN] = "";
	struct stat st;
	int line = 0;

	if (f == NULL) {
		df_cfg_err(err, n, "%s: cannot open config file: %s", path,
			   strerror(errno));
		return -1;
	}
	/* a directory opens and reads as an empty file: every default */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		df_cfg_err(err, n,
			   "%s: not a config file (a directory); give an INI "
			   "file, e.g. configs/reference.ini",
			   path);
		fclose(f);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *s, *hash;

		line++;
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		s = trim(buf);
		if (*s == '\0')
			continue;
		if (*s == '[' ? scan_section(path, line, s, sec, sc, err, n)
			      : scan_key(path, line, s, sec, sc, err, n)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

static int line_of(const struct scan *sc, const char *sec, const char *key)
{
	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->pos[i].section, sec) &&
		    !strcmp(sc->pos[i].key, key))
			return sc->pos[i].line;
	return 0;
}

int df_cfg_load_file(struct df_config *cfg, const char *path, char *err,
		     size_t n)
{
	struct scan sc = {0};
	struct rte_cfgfile_parameters params = {.comment_character = '#'};
	struct rte_cfgfile *f;
	int rc = -1;

	if (scan_file(path, &sc, err, n))
		goto out;
	f = rte_cfgfile_load_with_params(path, CFG_FLAG_EMPTY_VALUES, &params);
	if (f == NULL) {
		df_cfg_err(err, n, "%s: rte_cfgfile could not parse the file",
			   path);
		goto out;
	}
	for (int s = 0; df_cfg_sections[s]; s++) {
		int ne = rte_cfgfile_section_num_entries(f, df_cfg_sections[s]);
		struct rte_cfgfile_entry *ent;

		if (ne <= 0)
			continue;
		ent = calloc(ne, sizeof(*ent));
		if (ent == NULL)
			break;
		ne = rte_cfgfile_section_entries(f, df_cfg_sections[s], ent,
						 ne);
		for (int i = 0; i < ne; i++) {
			char where[300];
			snprintf(where, sizeof(where), "%s:%d", path,
				 line_of(&sc, df_cfg_sections[s], ent[i].name));
			if (df_cfg_apply(cfg, where, df_cfg_sections[s],
					 ent[i].name, ent[i].value, err, n)) {
				free(ent);
				rte_cfgfile_close(f);
				goto out;
			}
		}
		free(ent);
	}
	rte_cfgfile_close(f);
	rc = 0;
out:
	free(sc.pos);
	return rc;
}

int df_cfg_apply_set(struct df_config *cfg, const char *set, char *err,
		     size_t n)
{
	char buf[512], where[600];
	char *dot, *eq;

	snprintf(where, sizeof(where), "--set %s", set);
	snprintf(buf, sizeof(buf), "%s", set);
	eq = strchr(buf, '=');
	dot = strchr(buf, '.');
	if (eq == NULL || dot == NULL || dot > eq) {
		df_cfg_err(err, n,
			   "%s: expected SECTION.KEY=VALUE, e.g. "
			   "--set traffic.load=0.5",
			   where);
		return -1;
	}
	*eq = '\0';
	*dot = '\0';
	return df_cfg_apply(cfg, where, trim(buf), trim(dot + 1), trim(eq + 1),
			    err, n);
}
