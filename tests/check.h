/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_CHECK_H
#define DF_CHECK_H

/*
 * A minimal TAP producer: every CHECK is one test point ("ok N - what" or
 * "not ok N - what" with the reason), counted by tests/report.py. A test
 * binary exits non-zero if any point failed.
 */
#include <stdarg.h>
#include <stdio.h>

static int check_n, check_failed;

static inline int check_point(int ok, const char *file, int line,
			      const char *fmt, ...)
{
	va_list ap;

	check_n++;
	printf("%s %d - ", ok ? "ok" : "not ok", check_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		check_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

#define CHECK(cond, ...) check_point(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int check_done(void)
{
	printf("1..%d\n", check_n);
	return check_failed ? 1 : 0;
}

#endif
