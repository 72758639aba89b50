/* SPDX-License-Identifier: BSD-3-Clause */
/* DCQCN's reaction point: rnic_dcqcn.h. */

#include <rte_common.h>

#include "rnic_dcqcn.h"

/* Bounds on the stages one advance call takes, so that a QP idle for
 * hours costs no more than a few dozen steps (alpha is 0 and the rate at
 * the line long before). */
#define DCQCN_STEPS_MAX 64

void
rnic_dcqcn_defaults(struct rnic_dcqcn_params *p, uint32_t line_mbps)
{
	*p = (struct rnic_dcqcn_params){
		.line_mbps = line_mbps, .rpg_time_reset_us = 300, .rpg_byte_reset = 32767,
		.rpg_threshold = 5, .rpg_ai_rate_mbps = 5, .rpg_hai_rate_mbps = 50,
		.rpg_min_rate_mbps = 1, .rpg_min_dec_fac = 50,
		.rate_reduce_monitor_period_us = 4, .initial_alpha_value = 1023,
		.alpha_period_us = 55, .dce_tcp_g_shift = 8,
	};
}

bool
rnic_dcqcn_params_ok(const struct rnic_dcqcn_params *p)
{
	return p->line_mbps >= 1 && p->rpg_time_reset_us >= 1 && p->rpg_byte_reset >= 1 &&
	       p->rpg_byte_reset <= 1u << 30 &&
	       p->rpg_min_rate_mbps >= 1 && p->rpg_min_rate_mbps <= p->line_mbps &&
	       p->rpg_min_dec_fac <= 100 && p->alpha_period_us >= 1 &&
	       p->initial_alpha_value <= 1024 && p->dce_tcp_g_shift >= 1 &&
	       p->dce_tcp_g_shift <= 10;
}

void
rnic_dcqcn_init(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p, uint64_t now_us)
{
	*s = (struct rnic_dcqcn){
		.rc_mbps = p->line_mbps, .rt_mbps = p->line_mbps,
		.alpha = p->initial_alpha_value << (RNIC_DCQCN_ALPHA_SHIFT - 10),
		.alpha_us = (uint32_t)now_us, .timer_us = (uint32_t)now_us,
	};
}

static uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t
max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

bool
rnic_dcqcn_cnp(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p, uint64_t now_us)
{
	uint32_t g = RNIC_DCQCN_ALPHA_ONE >> p->dce_tcp_g_shift, now = (uint32_t)now_us;
	uint64_t rc;

	s->cnp_in_period = true;
	if (s->limited && now - s->last_cut_us < p->rate_reduce_monitor_period_us)
		return false;
	/* Rt = Rc; Rc = Rc (1 - alpha / 2), kept >= Rc * min_dec_fac and
	 * >= the minimum rate; alpha = (1 - g) alpha + g. */
	s->rt_mbps = s->rc_mbps;
	rc = (uint64_t)s->rc_mbps * (2 * RNIC_DCQCN_ALPHA_ONE - s->alpha) /
	     (2 * RNIC_DCQCN_ALPHA_ONE);
	rc = rc > (uint64_t)s->rc_mbps * p->rpg_min_dec_fac / 100 ? rc :
	     (uint64_t)s->rc_mbps * p->rpg_min_dec_fac / 100;
	s->rc_mbps = max_u32((uint32_t)rc, p->rpg_min_rate_mbps);
	s->alpha = s->alpha - (s->alpha >> p->dce_tcp_g_shift) + g;
	if (s->alpha > RNIC_DCQCN_ALPHA_ONE)
		s->alpha = RNIC_DCQCN_ALPHA_ONE;
	s->t_stage = 0;
	s->b_stage = 0;
	s->bytes = 0;
	s->timer_us = now;
	s->last_cut_us = now;
	s->limited = true;
	return true;
}

/* One increase event (a timer or byte counter expiry). */
static void
increase(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p)
{
	uint32_t hi = max_u32(s->t_stage, s->b_stage), lo = min_u32(s->t_stage, s->b_stage);

	if (hi < p->rpg_threshold)
		;   /* fast recovery: towards the target */
	else if (lo > p->rpg_threshold)
		s->rt_mbps = min_u32(s->rt_mbps + p->rpg_hai_rate_mbps, p->line_mbps);
	else
		s->rt_mbps = min_u32(s->rt_mbps + p->rpg_ai_rate_mbps, p->line_mbps);
	s->rc_mbps = (uint32_t)(((uint64_t)s->rc_mbps + s->rt_mbps + 1) / 2);
	if (s->rc_mbps >= p->line_mbps) {
		s->rc_mbps = p->line_mbps;
		s->limited = false;   /* back at the line rate: unpaced */
	}
}

void
rnic_dcqcn_advance(struct rnic_dcqcn *s, const struct rnic_dcqcn_params *p,
		   uint64_t now_us)
{
	uint32_t now = (uint32_t)now_us;
	unsigned int n;

	/* alpha: one step per elapsed period; a CNP in the first one means
	 * the cut already counted it. */
	for (n = 0; now - s->alpha_us >= p->alpha_period_us && n < DCQCN_STEPS_MAX; n++) {
		if (!s->cnp_in_period)
			s->alpha -= s->alpha >> p->dce_tcp_g_shift;
		s->cnp_in_period = false;
		s->alpha_us += p->alpha_period_us;
	}
	if (n == DCQCN_STEPS_MAX) {
		s->alpha_us = now;
		s->alpha = 0;   /* (1 - g)^64 of it and more periods: gone */
	}
	if (!s->limited)
		return;
	for (n = 0; now - s->timer_us >= p->rpg_time_reset_us && s->limited &&
		    n < DCQCN_STEPS_MAX; n++) {
		s->timer_us += p->rpg_time_reset_us;
		s->t_stage++;
		increase(s, p);
	}
	if (n == DCQCN_STEPS_MAX)
		s->timer_us = now;
	for (n = 0; s->bytes >= p->rpg_byte_reset && s->limited && n < DCQCN_STEPS_MAX; n++) {
		s->bytes -= p->rpg_byte_reset;
		s->b_stage++;
		increase(s, p);
	}
	if (n == DCQCN_STEPS_MAX)
		s->bytes = 0;
}
