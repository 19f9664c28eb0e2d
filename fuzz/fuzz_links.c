/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arrangement = file:PATH link lists ("G.R G.R" per
 * line) on the reference shape (a = 4, h = 2, g = 9). A list that is
 * accepted must be a valid dragonfly wiring (df_topo_check); one that is
 * refused must say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wiring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct df_config cfg;
	struct df_topo t;
	char err[512];
	FILE *f;

	df_config_defaults(&cfg);
	cfg.g = 9;
	cfg.arrangement = DF_ARR_FILE;
	snprintf(cfg.arr_file, sizeof(cfg.arr_file),
		 "/tmp/dfemu-fuzz-links-%d.txt", (int)getpid());
	f = fopen(cfg.arr_file, "wb");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	err[0] = '\0';
	if (df_topo_build(&t, &cfg, err, sizeof(err))) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	if (df_topo_check(&t, err, sizeof(err)))
		abort(); /* accepted, yet not a valid wiring */
	df_topo_free(&t);
	return 0;
}
