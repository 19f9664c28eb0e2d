/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end-of-run report: an aligned table for people (emu/report_text.c),
 * JSON for scripts (emu/report_json.c); what both use, and its end.
 */
#include <stdlib.h>

#include "report_int.h"
#include "terminals.h"

void df_report_free(struct df_report *r)
{
	free(r->router_min);
	free(r->router_nonmin);
	free(r->lat_hist[0]);
	free(r->lat_hist[1]);
	free(r->outputs);
	free(r->links);
	r->links = NULL;
	r->nlinks = 0;
	free(r->router_injected);
	free(r->term_ports);
	r->term_ports = NULL;
	free(r->faults);
	r->faults = NULL;
	r->nfaults = 0;
	r->router_injected = NULL;
	r->router_min = r->router_nonmin = NULL;
	r->lat_hist[0] = r->lat_hist[1] = NULL;
	r->outputs = NULL;
	r->noutputs = 0;
}

/* Does terminal i show in the per-terminal port traffic: bound to a
 * port (*v: its vdev, in buf; NULL: built-in), or delivered a port's
 * frames? */
int df_report_term_shown(const struct df_config *c, const struct df_report *r,
			 uint32_t i, const char **v, char *buf, size_t n)
{
	*v = df_term_vdev(c, i, buf, n);
	return *v != NULL || r->term_ports[i].c.delivered_from_ports != 0;
}
