/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's reaction point against sequences computed by hand (issue 18):
 * cuts, the monitor period, alpha's decay per period, fast recovery,
 * additive and hyper increase by timer and byte counter, the clamps, and
 * the return to the unpaced line rate. No EAL: a pure state machine.
 */

#include <math.h>
#include <stdio.h>

#include "rnic_dcqcn.h"

static int n_fail;

#define EXPECT(what, got, want) do { \
	unsigned long long g_ = (got), w_ = (want); \
	if (g_ != w_) { \
		printf("FAIL %s:%d %s: got %llu, want %llu\n", __func__, __LINE__, what, g_, w_); \
		n_fail++; \
	} \
} while (0)

/* Round numbers: line 1000 Mb/s, timer 100 us, byte counter 10000 B,
 * F = 2, AI 10, HAI 100, alpha period 55 us, g = 1/256, a cut keeps at
 * least 50%, monitor period 4 us, initial alpha 1023/1024. */
/* alpha as a fraction, against the paper's formula in floating point. */
#define EXPECT_ALPHA(what, s, want) do { \
	double g_ = (double)(s).alpha / RNIC_DCQCN_ALPHA_ONE; \
	if (fabs(g_ - (want)) > 1e-4) { \
		printf("FAIL %s:%d %s: alpha %.6f, want %.6f\n", __func__, __LINE__, what, g_, \
		       (double)(want)); \
		n_fail++; \
	} \
} while (0)

static void
params(struct rnic_dcqcn_params *p)
{
	rnic_dcqcn_defaults(p, 1000);
	p->rpg_time_reset_us = 100;
	p->rpg_byte_reset = 10000;
	p->rpg_threshold = 2;
	p->rpg_ai_rate_mbps = 10;
	p->rpg_hai_rate_mbps = 100;
}

static void
test_sequence(void)
{
	struct rnic_dcqcn_params p;
	struct rnic_dcqcn s;
	const double g = 1.0 / 256;
	double a = 1023.0 / 1024;

	params(&p);
	rnic_dcqcn_init(&s, &p, 0);
	EXPECT_ALPHA("start", s, a);
	EXPECT("start rc", s.rc_mbps, 1000);
	EXPECT("start limited", s.limited, 0);
	/* Cut: rc = 1000 (1 - a / 2) = 500.49 -> 500; a = (1 - g) a + g. */
	rnic_dcqcn_cnp(&s, &p, 0);
	a = (1 - g) * a + g;
	EXPECT("cut 1 rc", s.rc_mbps, 500);
	EXPECT("cut 1 rt", s.rt_mbps, 1000);
	EXPECT_ALPHA("cut 1", s, a);
	/* 2 us later: inside the 4 us monitor period, no cut. */
	rnic_dcqcn_cnp(&s, &p, 2);
	EXPECT("monitor rc", s.rc_mbps, 500);
	/* 5 us: rt = 500, rc = 500 (1 - a / 2) = 250.2 -> 250. */
	rnic_dcqcn_cnp(&s, &p, 5);
	a = (1 - g) * a + g;
	EXPECT("cut 2 rc", s.rc_mbps, 250);
	EXPECT("cut 2 rt", s.rt_mbps, 500);
	EXPECT("a CNP inside the monitor period cuts nothing", rnic_dcqcn_cnp(&s, &p, 6), 0);
	EXPECT("the cut stands", s.rc_mbps, 250);
	/* 60 us: one alpha period passed, with a CNP in it: no decay. */
	rnic_dcqcn_advance(&s, &p, 60);
	EXPECT_ALPHA("after a period with CNPs", s, a);
	EXPECT("no timer yet", s.rc_mbps, 250);
	/* 110 us: a period without: a (1 - g); the timer (from 5 us) fires:
	 * stage 1 < F, fast recovery rc = (250 + 500 + 1) / 2 = 375. */
	rnic_dcqcn_advance(&s, &p, 110);
	a *= 1 - g;
	EXPECT_ALPHA("decays", s, a);
	EXPECT("fast recovery rc", s.rc_mbps, 375);
	EXPECT("fast recovery rt", s.rt_mbps, 500);
	/* 25000 bytes: byte stage 1 (max 1 < 2): rc = 438; byte stage 2
	 * (max 2, min 1): additive, rt = 510, rc = (438 + 510 + 1) / 2. */
	rnic_dcqcn_sent(&s, 25000);
	rnic_dcqcn_advance(&s, &p, 120);
	EXPECT("additive rt", s.rt_mbps, 510);
	EXPECT("additive rc", s.rc_mbps, 474);
	EXPECT("bytes kept", s.bytes, 5000);
	/* 205 us: alpha decays once (one period); timer stage 2: additive
	 * rt 520 rc 497; 35000 bytes: stages 3, 4, 5 additive: rt 550. */
	rnic_dcqcn_sent(&s, 30000);
	rnic_dcqcn_advance(&s, &p, 205);
	a *= 1 - g;
	EXPECT_ALPHA("2", s, a);
	EXPECT("rt 550", s.rt_mbps, 550);
	EXPECT("rc 539", s.rc_mbps, 539);
	/* 305 us: alpha decays twice; timer stage 3 = min > F:
	 * hyper increase rt 650, rc (539 + 650 + 1) / 2 = 595. */
	rnic_dcqcn_advance(&s, &p, 305);
	a *= (1 - g) * (1 - g);
	EXPECT_ALPHA("3", s, a);
	EXPECT("hyper rt", s.rt_mbps, 650);
	EXPECT("hyper rc", s.rc_mbps, 595);
	EXPECT("still limited", s.limited, 1);
	/* Byte stages until the line: rt 750 850 950 1000, rc 673 762 856
	 * 928 964 982 991 996 998 999 1000: 11 stages, then unpaced. */
	rnic_dcqcn_sent(&s, 10 * 10000);
	rnic_dcqcn_advance(&s, &p, 305);
	EXPECT("rc after 10", s.rc_mbps, 999);
	EXPECT("limited after 10", s.limited, 1);
	rnic_dcqcn_sent(&s, 10000);
	rnic_dcqcn_advance(&s, &p, 305);
	EXPECT("rc at line", s.rc_mbps, 1000);
	EXPECT("unlimited", s.limited, 0);
	/* Unlimited, a CNP cuts at once whatever the monitor period. */
	rnic_dcqcn_cnp(&s, &p, 306);
	EXPECT("cut from line", s.rc_mbps, (unsigned int)floor(1000 * (1 - a / 2)));
}

static void
test_clamps(void)
{
	struct rnic_dcqcn_params p;
	struct rnic_dcqcn s;

	params(&p);
	p.rpg_min_dec_fac = 75;
	rnic_dcqcn_init(&s, &p, 0);
	rnic_dcqcn_cnp(&s, &p, 0);
	EXPECT("min_dec_fac keeps 75%", s.rc_mbps, 750);
	p.rpg_min_dec_fac = 0;
	p.rpg_min_rate_mbps = 100;
	for (uint64_t t = 10; t < 200; t += 10)
		rnic_dcqcn_cnp(&s, &p, t);
	EXPECT("min rate", s.rc_mbps, 100);
	/* Idle for an hour: bounded work, alpha gone, the rate back. */
	rnic_dcqcn_advance(&s, &p, 3600ull * 1000000);
	EXPECT_ALPHA("after an hour", s, 0.0);
	rnic_dcqcn_sent(&s, 64ull * 10000 * 64);
	rnic_dcqcn_advance(&s, &p, 3600ull * 1000000 + 1);
	EXPECT("line after an hour", s.rc_mbps, 1000);
}

/* Bytes counted as they are sent (rnic_dcqcn_sent) raise the rate at the
 * next advance; a cut in between starts the byte counter again; the
 * counter saturates. */
static void
test_sent(void)
{
	struct rnic_dcqcn_params p;
	struct rnic_dcqcn a;

	params(&p);
	rnic_dcqcn_init(&a, &p, 0);
	rnic_dcqcn_cnp(&a, &p, 0);
	EXPECT("cut rc", a.rc_mbps, 500);
	/* 15000 bytes in two sends: one byte stage (10000), fast recovery
	 * rc = (500 + 1000 + 1) / 2 = 750, 5000 bytes kept. */
	rnic_dcqcn_sent(&a, 9000);
	rnic_dcqcn_sent(&a, 6000);
	EXPECT("not before advance", a.b_stage, 0);
	rnic_dcqcn_advance(&a, &p, 10);
	EXPECT("sent: byte stage", a.b_stage, 1);
	EXPECT("sent: rate", a.rc_mbps, 750);
	EXPECT("sent: bytes kept", a.bytes, 5000);
	/* 5000 + 4000 sent, then a cut (past the monitor period): the
	 * counter starts from 0, so 4000 more make no stage. */
	rnic_dcqcn_sent(&a, 4000);
	rnic_dcqcn_cnp(&a, &p, 20);
	EXPECT("cut resets the counter", a.bytes, 0);
	rnic_dcqcn_sent(&a, 4000);
	rnic_dcqcn_advance(&a, &p, 21);
	EXPECT("no byte stage after the cut", a.b_stage, 0);
	EXPECT("bytes since the cut", a.bytes, 4000);
	/* The counter saturates instead of wrapping. */
	a.bytes = UINT32_MAX - 10;
	rnic_dcqcn_sent(&a, 100);
	EXPECT("saturates", a.bytes, UINT32_MAX);
}

int
main(void)
{
	test_sequence();
	test_clamps();
	test_sent();
	printf("%s\n", n_fail ? "FAILED" : "ok dcqcn: hand-computed sequences");
	return n_fail ? 1 : 0;
}
