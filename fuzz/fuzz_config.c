/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the config parser (rte_cfgfile underneath, then every
 * key's checks), and for configs that load and are small, the whole plan
 * (wiring, tables, VC plan and deadlock check, [faults] events,
 * placement). A config file is read from a path, so each input is
 * written to a private temporary file first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct df_config cfg;
	struct df_plan pl;
	char err[1024];
	FILE *f;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/dfemu-fuzz-config-%d.ini",
			 (int)getpid());
	f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	df_config_defaults(&cfg);
	err[0] = '\0';
	if (df_config_load(&cfg, path, NULL, 0, err, sizeof(err))) {
		/* a refusal must say something, and name the file */
		if (err[0] == '\0' || strstr(err, path) == NULL)
			abort();
		return 0;
	}
	/* keep each run short: the plan of a large network takes seconds */
	if ((uint64_t)cfg.a * cfg.g > 64)
		return 0;
	if (df_plan_build(&pl, &cfg, 2, err, sizeof(err)) == 0)
		df_plan_free(&pl);
	else if (err[0] == '\0')
		abort();
	return 0;
}
