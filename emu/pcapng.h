/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_PCAPNG_H
#define DF_PCAPNG_H

/*
 * A minimal pcapng writer (draft-tuexen-opsawg-pcapng): one section, one
 * interface per captured link with its name and description, nanosecond
 * timestamps, a comment on every packet and the interfaces' statistics at
 * the end. DPDK 22.11's rte_pcapng cannot do this: it writes one
 * interface per ethdev port (at most RTE_MAX_ETHPORTS = 32) named after
 * the port, and its packets carry no comments (added in 23.11). The main
 * lcore writes through stdio; a write error (disk full) is remembered and
 * stops further writes, never the run.
 */
#include <stdint.h>
#include <stdio.h>

struct df_pcapng {
	FILE *f;
	int failed;	/* errno of the first failed write, 0 if none */
	uint64_t bytes; /* written so far */
	char *buf;	/* stdio buffer */
};

int df_pcapng_open(struct df_pcapng *w, const char *path, const char *app,
		   char *err, size_t n);
void df_pcapng_iface(struct df_pcapng *w, const char *name, const char *descr,
		     uint32_t snaplen);
void df_pcapng_packet(struct df_pcapng *w, uint32_t iface, uint64_t ts_ns,
		      const void *data, uint32_t caplen, uint32_t len,
		      const char *comment);
/* Interface statistics: packets seen and not captured (skipped). */
void df_pcapng_stats(struct df_pcapng *w, uint32_t iface, uint64_t ts_ns,
		     uint64_t recv, uint64_t drop);
/* Flush and close; the errno of the first failure, 0 if none. */
int df_pcapng_close(struct df_pcapng *w);

#endif
