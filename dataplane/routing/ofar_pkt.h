/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_OFAR_PKT_H
#define DP_OFAR_PKT_H

/*
 * OFAR's own state on a packet, in its engine's bytes (packet.h, eng):
 * only ofar.c (and its tests) read it. Whether the packet is in the
 * escape, and how many times it entered it, are the reports' as well:
 * DP_PKT_ESCAPE and esc_n.
 */
#include "packet.h"

/* 1 + the group of its last local misroute; 0: none ([OC] §I: once per
 * group) */
#define OF_LMIS_GRP(pk) ((pk)->eng.u16[0])
/* the minimal output it waits for at the router that queues it (its
 * waiting[0], ofar_queued) */
#define OF_WAIT_PORT(pk) ((pk)->eng.u8[2])
/* its bits: OF_PKT_* */
#define OF_BITS(pk) ((pk)->eng.u8[3])

enum {
	OF_PKT_RING_REV = 0x01,	 /* going round the ring backwards */
	OF_PKT_GMIS_NEXT = 0x02, /* a local hop taken to misroute globally */
};

#endif
