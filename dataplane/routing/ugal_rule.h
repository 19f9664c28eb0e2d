/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DP_UGAL_RULE_H
#define DP_UGAL_RULE_H

/*
 * The UGAL decision rule of [DF] §4.2 (footnote 8, with the inequality the
 * right way round, <= as in §4.3.1's UGAL-L_VC rule) and the choice of
 * queues of §4.2-4.3.1, as pure functions so they can be tested alone.
 */
#include <stdint.h>

enum dp_ugal_mode {
	DP_UGAL_PORT,	/* UGAL-L: the output ports' queues */
	DP_UGAL_GLOBAL, /* UGAL-G: the group's global channels' queues */
	DP_UGAL_VC,	/* UGAL-L_VC: the output VCs' queues */
	DP_UGAL_VCH,	/* UGAL-L_VCH: ports if different, else VCs */
	DP_UGAL_PB,	/* vc-ordered (PB): UGAL-L, or the minimal global
			   channel flagged congested */
};

/*
 * PB's congestion flag ([OC] §II: piggybacked global-link state; the rule
 * as in FOGSim's pb.cc, [OC] states none): a global channel is
 * congested when its occupancy q exceeds 1.5 x the mean occupancy of its
 * router's global channels plus one packet.
 */
static inline int dp_pb_congested(uint64_t q, uint64_t sum, uint32_t n,
				  uint32_t pkt_flits)
{
	return n && 2 * q * n > 3 * sum + 2 * (uint64_t)n * pkt_flits;
}

/*
 * The queue of one output VC, the q every UGAL decision reads ([DF] §3:
 * "q: queue depth of an output port"): the flits routed to it still in
 * this router's input queues (waiting), those in its output queue
 * (oq_flits: [DF] §4.3.2's q0, [router] output_buffer_flits), and those
 * in use in the downstream input buffer as the credits say (full -
 * credits). With no output queue oq_flits is 0: the input-queued router.
 */
static inline uint32_t dp_output_q(uint32_t full, uint32_t credits,
				   uint32_t waiting, uint32_t oq_flits)
{
	return full - credits + waiting + oq_flits;
}

/* Minimal iff q_m * H_m <= q_nm * H_nm + bias: ties go minimal. */
static inline int dp_ugal_minimal(uint64_t q_m, uint32_t h_m, uint64_t q_nm,
				  uint32_t h_nm, uint32_t bias)
{
	return q_m * h_m <= q_nm * h_nm + bias;
}

/*
 * The two queue lengths to compare. [DF] §4.3.1: UGAL-L_VCH uses the
 * whole port's queue when Out_m != Out_nm and the VC queues when the two
 * candidates leave through the same port. (UGAL-G's global queues come in
 * as the "port" values.)
 */
static inline void dp_ugal_queues(enum dp_ugal_mode mode, int same_port,
				  uint64_t port_m, uint64_t port_nm,
				  uint64_t vc_m, uint64_t vc_nm, uint64_t *q_m,
				  uint64_t *q_nm)
{
	int use_vc = mode == DP_UGAL_VC || (mode == DP_UGAL_VCH && same_port);

	*q_m = use_vc ? vc_m : port_m;
	*q_nm = use_vc ? vc_nm : port_nm;
}

/*
 * UGAL-L_CR ([DF] §4.3.2): the extra delay of the credit for a packet that
 * leaves through an output with delay t_d: t_d - min over the router's
 * outputs of t_d, so that a uniformly loaded router delays nothing. Credits
 * for buffers fed by a global channel are never delayed (nor those of
 * terminal inputs: no UGAL decision is made upstream of them).
 */
static inline uint64_t dp_cr_extra(uint64_t t_d, uint64_t t_d_min,
				   int input_is_local)
{
	if (!input_is_local || t_d <= t_d_min)
		return 0;
	return t_d - t_d_min;
}

#endif
