/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * From a checked plan to running routers and back: the dataplane is
 * built (emu/build.c, emu/sizing.c, emu/traffic.c), the instances of a
 * partitioned run meet (emu/peer_handshake.c), the workers run while the main
 * lcore sleeps between its duties (emu/run.c), then the final accounting
 * (emu/account.c: every packet and every credit) and the teardown.
 */
#include <string.h>

#include <rte_cycles.h>

#include "emu_capture.h"
#include "emu_int.h"
#include "instances.h"

static unsigned run_id; /* unique ring/pool names across runs */

int df_emulate(const struct df_plan *pl, const struct df_emu_opts *opt,
	       struct df_report *rep, char *err, size_t errlen)
{
	struct emu e = {
		.pl = pl, .hz = opt->tsc_hz, .err = err, .errlen = errlen};
	int rc = -1;

	/* every time in the datapath is in emulated ticks, the same on
	 * every host; the time scale only paces them (emu/run.c) */
	e.ehz = DF_TICK_HZ;

	memset(rep, 0, sizeof(*rep));
	e.id = ++run_id;
	emu_init_run(&e);
	if (emu_build(&e) || emu_build_pool(&e))
		goto out;
	if (emu_build_traffic(&e)) {
		snprintf(err, errlen, "out of memory for the traffic tables");
		goto out;
	}
	if (emu_build_ports(&e) || emu_build_capture(&e))
		goto out;
	if (pl->cfg.ninst > 1) {
		e.inst = emu_inst_setup(pl, e.links, &e.run, e.hz, err, errlen);
		if (e.inst == NULL ||
		    emu_inst_handshake(e.inst, opt->stop,
				       opt->quiet ? NULL : stderr, err, errlen))
			goto out;
		e.lc[0]->bridge = emu_inst_bridge(e.inst);
		e.run.peers = e.lc[0]->bridge;
	}
	if (emu_build_wakes(&e))
		goto out;
	e.run.routers = e.routers;
	emu_run(&e, opt, rep);
	df_capture_finish(e.cap, rep);
	emu_account(&e, rep);
	if (df_linkuse_report(e.links, e.nlinks, e.routers, &e.run, emu_now(&e),
			      rep))
		goto out;
	rc = 0;
out:
	emu_teardown(&e);
	return rc;
}
