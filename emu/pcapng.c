/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pcapng.h"

#define BT_SHB 0x0A0D0D0AU
#define BT_IDB 0x00000001U
#define BT_ISB 0x00000005U
#define BT_EPB 0x00000006U

#define OPT_END	    0
#define OPT_COMMENT 1
#define SHB_OS	    3
#define SHB_APP	    4
#define IF_NAME	    2
#define IF_DESCR    3
#define IF_TSRESOL  9
#define ISB_RECV    4
#define ISB_DROP    5

#define PAD4(x) (((x) + 3u) & ~3u)

static void put(struct df_pcapng *w, const void *p, size_t n)
{
	if (w->failed || n == 0)
		return;
	if (fwrite(p, 1, n, w->f) != n) {
		w->failed = errno ? errno : EIO;
		return;
	}
	w->bytes += n;
}

static void put32(struct df_pcapng *w, uint32_t v)
{
	put(w, &v, 4);
}

static uint32_t opt_len(size_t n)
{
	return 4 + PAD4((uint32_t)n);
}

static void put_opt(struct df_pcapng *w, uint16_t code, const void *v, size_t n)
{
	static const uint8_t zero[4];
	uint16_t h[2] = {code, (uint16_t)n};

	put(w, h, 4);
	put(w, v, n);
	put(w, zero, PAD4((uint32_t)n) - n);
}

static uint32_t str_opt_len(const char *s)
{
	return s && *s ? opt_len(strlen(s)) : 0;
}

static void put_str_opt(struct df_pcapng *w, uint16_t code, const char *s)
{
	if (s && *s)
		put_opt(w, code, s, strlen(s));
}

int df_pcapng_open(struct df_pcapng *w, const char *path, const char *app,
		   char *err, size_t n)
{
	struct utsname u;
	char os[200] = "";
	uint32_t len;
	int64_t section = -1;
	uint16_t ver[2] = {1, 0};

	memset(w, 0, sizeof(*w));
	w->f = fopen(path, "wb");
	if (w->f == NULL) {
		snprintf(err, n, "[capture] file = %s: cannot write it: %s",
			 path, strerror(errno));
		return -1;
	}
	w->buf = malloc(1 << 20);
	if (w->buf)
		setvbuf(w->f, w->buf, _IOFBF, 1 << 20);
	if (uname(&u) == 0)
		snprintf(os, sizeof(os), "%s %s %s", u.sysname, u.release,
			 u.machine);
	len = 28 + str_opt_len(os) + str_opt_len(app) + 4;
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, 0x1A2B3C4D);
	put(w, ver, 4);
	put(w, &section, 8);
	put_str_opt(w, SHB_OS, os);
	put_str_opt(w, SHB_APP, app);
	put32(w, OPT_END);
	put32(w, len);
	return 0;
}

void df_pcapng_iface(struct df_pcapng *w, const char *name, const char *descr,
		     uint32_t snaplen)
{
	uint8_t tsresol = 9; /* 10^-9 s */
	uint16_t link[2] = {1 /* LINKTYPE_ETHERNET */, 0};
	uint32_t len =
		20 + str_opt_len(name) + str_opt_len(descr) + opt_len(1) + 4;

	put32(w, BT_IDB);
	put32(w, len);
	put(w, link, 4);
	put32(w, snaplen);
	put_str_opt(w, IF_NAME, name);
	put_str_opt(w, IF_DESCR, descr);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put32(w, OPT_END);
	put32(w, len);
}

void df_pcapng_packet(struct df_pcapng *w, uint32_t iface, uint64_t ts_ns,
		      const void *data, uint32_t caplen, uint32_t len,
		      const char *comment)
{
	static const uint8_t zero[4];
	uint32_t blen = 32 + PAD4(caplen) + str_opt_len(comment) + 4;

	put32(w, BT_EPB);
	put32(w, blen);
	put32(w, iface);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, caplen);
	put32(w, len);
	put(w, data, caplen);
	put(w, zero, PAD4(caplen) - caplen);
	put_str_opt(w, OPT_COMMENT, comment);
	put32(w, OPT_END);
	put32(w, blen);
}

void df_pcapng_stats(struct df_pcapng *w, uint32_t iface, uint64_t ts_ns,
		     uint64_t recv, uint64_t drop)
{
	uint32_t len = 24 + 2 * opt_len(8) + 4;

	put32(w, BT_ISB);
	put32(w, len);
	put32(w, iface);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put_opt(w, ISB_RECV, &recv, 8);
	put_opt(w, ISB_DROP, &drop, 8);
	put32(w, OPT_END);
	put32(w, len);
}

int df_pcapng_close(struct df_pcapng *w)
{
	if (w->f == NULL)
		return 0;
	if (fflush(w->f) != 0 && !w->failed)
		w->failed = errno ? errno : EIO;
	if (fclose(w->f) != 0 && !w->failed)
		w->failed = errno ? errno : EIO;
	w->f = NULL;
	free(w->buf);
	w->buf = NULL;
	return w->failed;
}
