/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EMU_REPORT_INT_H
#define EMU_REPORT_INT_H

/* Shared by the report's writers, emu/report_text.c and emu/report_json.c. */
#include <stddef.h>
#include <stdint.h>

#include "emu.h"

/* Does terminal i show in the per-terminal port traffic: bound to a
 * port (*v: its vdev, in buf; NULL: built-in), or delivered a port's
 * frames? */
int df_report_term_shown(const struct df_config *c, const struct df_report *r,
			 uint32_t i, const char **v, char *buf, size_t n);

#endif
