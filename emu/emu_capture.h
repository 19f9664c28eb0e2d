/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DF_EMU_CAPTURE_H
#define DF_EMU_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "tap.h"
#include "worker.h"

struct df_capture;
struct df_report;

/*
 * Before the workers start: select links (desc[i] describes links[i]),
 * open the file, write one interface per link, give each worker a ring
 * and the run the record pool. *cp stays NULL when [capture] is off.
 */
int df_capture_start(struct df_capture **cp, const struct df_config *cfg,
		     struct dp_link *links, const struct df_cap_link *desc,
		     uint32_t nlinks, struct dp_lcore **lc, uint32_t nworkers,
		     struct dp_run *run, double hz, char *err, size_t n);
/* Write what the workers queued; returns the records written. */
unsigned df_capture_drain(struct df_capture *cp);
/* After the workers stopped: the rest, the statistics, the report. */
void df_capture_finish(struct df_capture *cp, struct df_report *rep);
/* Free everything (after finish, or on a failed start). */
void df_capture_free(struct df_capture *cp, struct dp_lcore **lc,
		     uint32_t nworkers);

#endif
