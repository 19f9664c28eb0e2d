/* SPDX-License-Identifier: BSD-3-Clause */
/* The algorithms' list (algorithms.h) as the control plane reads it. */
#include <stdio.h>
#include <string.h>

#include "algorithms.h"

#define DF_ALG_INFO(id, nm, dfe, fbe, ...) \
	[DF_ALG_##id] = {.name = nm, __VA_ARGS__},
static const struct df_alg_info infos[DF_ALG_COUNT] = {
	DF_ALGORITHMS(DF_ALG_INFO)};
#undef DF_ALG_INFO

/* Which topologies have an engine: the list's engine columns by name
 * (control/ does not link the dataplane). */
#define DF_ALG_ENGINES(id, nm, dfe, fbe, ...) [DF_ALG_##id] = {#dfe, #fbe},
static const char *const engines[DF_ALG_COUNT][2] = {
	DF_ALGORITHMS(DF_ALG_ENGINES)};
#undef DF_ALG_ENGINES

const struct df_alg_info *df_alg_info(enum df_algorithm a)
{
	return &infos[a];
}

static int has_engine(enum df_algorithm a, int flatfly)
{
	return strcmp(engines[a][flatfly], "dp_no_engine") != 0;
}

int df_alg_on_flatfly(enum df_algorithm a)
{
	return has_engine(a, 1);
}

int df_alg_on_dragonfly(enum df_algorithm a)
{
	return has_engine(a, 0);
}

void df_alg_names(char *buf, size_t n, int flatfly, int adaptive)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int a = 0; a < DF_ALG_COUNT && len < n; a++)
		if (has_engine(a, flatfly) && (!adaptive || infos[a].adaptive))
			len += snprintf(buf + len, n - len, "%s%s",
					len ? ", " : "", infos[a].name);
}
