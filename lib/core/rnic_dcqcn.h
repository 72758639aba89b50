/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's reaction point (Zhu et al., SIGCOMM'15, "Congestion Control for
 * Large-Scale RDMA Deployments"; issue 18): the sending rate of one QP,
 * cut by the CNPs that come back and recovered by a timer and a byte
 * counter. A pure state machine on a microsecond clock the caller passes,
 * so that its sequences can be computed by hand (test/cc).
 *
 * Parameter names are NVIDIA's (the mlx5 roce_rp settings); alpha is kept
 * in 2^-20 units (given in 1/1024, NVIDIA's unit) and updated as in the
 * paper: alpha = (1 - g) alpha + g
 * on a cut, alpha = (1 - g) alpha per alpha period without a CNP, with
 * g = 2^-dce_tcp_g_shift (8: the paper's 1/256), not NVIDIA's per-
 * microsecond 1019/1024.
 */

#ifndef RNIC_DCQCN_H
#define RNIC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#define RNIC_DCQCN_ALPHA_SHIFT 20
#define RNIC_DCQCN_ALPHA_ONE (1u << RNIC_DCQCN_ALPHA_SHIFT)

struct rnic_dcqcn_params {
	uint32_t line_mbps;                   /* the rate with no congestion */
	uint32_t rpg_time_reset_us;           /* rate increase timer (300) */
	uint32_t rpg_byte_reset;              /* rate increase byte counter (32767) */
	uint32_t rpg_threshold;               /* F: stages of fast recovery (5) */
	uint32_t rpg_ai_rate_mbps;            /* additive increase (5) */
	uint32_t rpg_hai_rate_mbps;           /* hyper increase (50) */
	uint32_t rpg_min_rate_mbps;           /* never below (1) */
	uint32_t rpg_min_dec_fac;             /* a cut keeps at least this % (50) */
	uint32_t rate_reduce_monitor_period_us; /* at most one cut per (4) */
	uint32_t initial_alpha_value;         /* of 1024 (1023) */
	uint32_t alpha_period_us;             /* the paper's K (55) */
	uint32_t dce_tcp_g_shift;             /* g = 2^-shift (8) */
};

/* Per QP, in 40 bytes (the QP's TX cache lines): times are the low 32
 * bits of the microsecond clock, compared by wrapping difference, so a
 * span is read right up to 71 minutes; a QP idle for longer may find its
 * alpha and rate a few steps behind where the paper's would be. */
struct rnic_dcqcn {
	uint32_t rc_mbps;          /* current rate */
	uint32_t rt_mbps;          /* target rate */
	uint32_t alpha;            /* of RNIC_DCQCN_ALPHA_ONE */
	uint32_t t_stage;          /* timer expiries since the last cut */
	uint32_t b_stage;          /* byte counter expiries since the last cut */
	uint32_t bytes;            /* sent since the last byte counter expiry */
	uint32_t last_cut_us;
	uint32_t alpha_us;         /* start of the current alpha period */
	uint32_t timer_us;         /* start of the current increase timer */
	bool cnp_in_period;        /* a CNP came in this alpha period */
	bool limited;              /* rate limited (a CNP came, not yet back
				    * to the line rate) */
};

/* Fill @p p with the defaults above for a link of @p line_mbps. */
void rnic_dcqcn_defaults(struct rnic_dcqcn_params *p, uint32_t line_mbps);
/* The ranges: rates and periods at least 1 (the byte counter at most
 * 2^30), alpha at most 1024, a cut
 * keeping at most 100%, g = 2^-1 .. 2^-10. */
bool rnic_dcqcn_params_ok(const struct rnic_dcqcn_params *p);
void rnic_dcqcn_init(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p, uint64_t now_us);
/* A CNP for this QP at @p now_us; true when it cut the rate (not inside
 * the monitor period of the last cut). */
bool rnic_dcqcn_cnp(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p, uint64_t now_us);
/* @p bytes sent at the current rate: they count towards the byte counter,
 * which the next rnic_dcqcn_advance reads (a cut before it starts the
 * counter again, as every cut does). Saturates instead of wrapping. */
static inline void
rnic_dcqcn_sent(struct rnic_dcqcn *s, uint32_t bytes)
{
	s->bytes = s->bytes + bytes < s->bytes ? UINT32_MAX : s->bytes + bytes;
}

/* Time passed to @p now_us: alpha decays, the timer and the byte counter
 * (rnic_dcqcn_sent) raise the rate. */
void rnic_dcqcn_advance(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p,
			uint64_t now_us);

#endif /* RNIC_DCQCN_H */
