/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
 * /var/run/dpdk even with --in-memory or --no-shconf (for the telemetry
 * socket). */
const char *df_eal_file_prefix(void)
{
	const char *dir = rte_eal_get_runtime_dir(), *slash;

	slash = strrchr(dir, '/');
	return slash ? slash + 1 : dir;
}

/* Hugepage files a primary without --in-memory leaves in every mounted
 * hugetlbfs: "<prefix>map_N" (they stay after the run unless removed). */
static void rm_hugepage_files(const char *prefix)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512], mnt[256], type[64], path[PATH_MAX];
	size_t plen = strlen(prefix);

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		DIR *d;
		struct dirent *de;
		if (sscanf(line, "%*s %255s %63s", mnt, type) != 2 ||
		    strcmp(type, "hugetlbfs"))
			continue;
		d = opendir(mnt);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL)
			if (!strncmp(de->d_name, prefix, plen) &&
			    !strncmp(de->d_name + plen, "map_", 4)) {
				snprintf(path, sizeof(path), "%s/%s", mnt,
					 de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	fclose(f);
}

void df_eal_cleanup(void)
{
	char dir[PATH_MAX], prefix[128];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	snprintf(prefix, sizeof(prefix), "%s", df_eal_file_prefix());
	rte_eal_cleanup();
	if (strncmp(dir, "/var/run/dpdk/", 14) == 0 ||
	    strstr(dir, "/dpdk/") != NULL)
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	if (prefix[0])
		rm_hugepage_files(prefix);
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
