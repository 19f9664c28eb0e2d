/* SPDX-License-Identifier: BSD-3-Clause */
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "emu.h"

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* rte_eal_cleanup, then remove the runtime directory EAL made under
 * /var/run/dpdk even with --in-memory or --no-shconf (DPDK-NOTES.md §2). */
void df_eal_cleanup(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (strncmp(dir, "/var/run/dpdk/", 14) == 0 ||
	    strstr(dir, "/dpdk/") != NULL)
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Free hugepages in a mounted hugetlbfs, in bytes (0 if none usable). */
uint64_t df_hugepages_free(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512];
	int mounted = 0;
	unsigned long n = 0, sz = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " hugetlbfs "))
			mounted = 1;
	fclose(f);
	if (!mounted)
		return 0;
	f = fopen("/proc/meminfo", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Free: %lu", &n);
		sscanf(line, "Hugepagesize: %lu kB", &sz);
	}
	fclose(f);
	return (uint64_t)n * sz * 1024;
}
