/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_CONFIG_PRIVATE_H
#define DF_CONFIG_PRIVATE_H

/*
 * What the files of the config (config.h) share. config_keys.c: the
 * key table, with the enums' names; config.c: values parsed and
 * applied; config_file.c: the INI file and --set; config_check.c: the
 * checks across keys.
 */
#include <stddef.h>

#include "config.h"

/* K_SCALE: a number, or "auto" stored as 0 */
enum key_type {
	K_U32,
	K_U64,
	K_DBL,
	K_ENUM,
	K_BOOL,
	K_VCS,
	K_STR,
	K_ARR,
	K_SCALE
};

struct key_def {
	const char *section;
	const char *name;
	enum key_type type;
	size_t off;
	double min, max;	    /* numeric range, inclusive */
	const char *const *choices; /* K_ENUM, K_ARR: the names of the
				     * values, NULL-terminated */
	const char *help;
};

/* config_keys.c: the key table, df_cfg_nkeys keys */
extern const struct key_def df_cfg_keys[];
extern const size_t df_cfg_nkeys;

/* config_keys.c: the known sections (NULL-terminated); one of them? */
extern const char *const df_cfg_sections[];
int df_cfg_known_section(const char *sec);
/* every section, "[a] [b] [c]", into buf */
void df_cfg_list_sections(char *buf, size_t n);
/* key [sec] name in the key table, or NULL */
const struct key_def *df_cfg_find_key(const char *sec, const char *name);
/* the keys of section sec, "a, b, c", into buf */
void df_cfg_list_keys(const char *sec, char *buf, size_t n);
/* [sec] key = val, from where ("file:line" or "--set ..."); -1 with the
 * reason in err if it is not a key or not allowed */
int df_cfg_apply(struct df_config *cfg, const char *where, const char *sec,
		 const char *key, const char *val, char *err, size_t n);
/* was [sec] key set, in the file or by --set? */
int df_cfg_is_set(const struct df_config *cfg, const char *sec,
		  const char *key);
/* a message into err (vsnprintf) */
void df_cfg_err(char *err, size_t n, const char *fmt, ...);

/* config_file.c: the INI file at path, and one --set SECTION.KEY=VALUE,
 * applied over cfg. */
int df_cfg_load_file(struct df_config *cfg, const char *path, char *err,
		     size_t n);
int df_cfg_apply_set(struct df_config *cfg, const char *set, char *err,
		     size_t n);

/* config_check.c: p, a, h and g of a [topology] type = flatfly. */
int df_cfg_flatfly_shape(struct df_config *c, char *err, size_t n);

#endif
