/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-run A/B (rnic_ab.h). The variant changes every RNIC_AB_MS
 * milliseconds (default 10, each turn drawn between 0.75 and 1.25 of it)
 * of TSC time; each turn's cycles and work go to the variant it ran. A
 * turn with no work at all (setup, the end of a run) counts for neither.
 * At exit one line on stderr:
 *   ab: variant0=R0 variant1=R1 ratio=R1/R0 turns=N0,N1
 * (R: work per microsecond).
 */
#ifdef RNIC_AB_TOGGLE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "rnic_ab.h"

int rnic_ab_variant;

static int ab_owner;   /* the thread that ticks (rte_gettid), 0: none yet */
static uint64_t ab_hz, ab_period, ab_next, ab_start, ab_turn_work;
static uint64_t ab_cycles[2], ab_work[2], ab_turns[2];
static uint64_t ab_rng = 0x9e3779b97f4a7c15ULL;

/* A turn of 0.75 to 1.25 periods, drawn anew each time: nothing periodic
 * on the machine (a timer tick, a daemon's scan) keeps falling into the
 * same variant's turns. */
static uint64_t
ab_turn_len(void)
{
	ab_rng = ab_rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return ab_period * 3 / 4 + (ab_rng >> 33) % (ab_period / 2 + 1);
}

void
rnic_ab_tick(unsigned int work)
{
	int self = rte_gettid(), none = 0;
	uint64_t now;
	int v;

	if (__atomic_load_n(&ab_owner, __ATOMIC_RELAXED) != self &&
	    !__atomic_compare_exchange_n(&ab_owner, &none, self, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	now = rte_rdtsc();
	if (ab_period == 0) {
		const char *ms = getenv("RNIC_AB_MS");
		long m = ms != NULL ? strtol(ms, NULL, 10) : 10;

		ab_hz = rte_get_tsc_hz();
		ab_period = ab_hz / 1000 * (uint64_t)(m > 0 ? m : 10);
		ab_start = now;
		ab_next = now + ab_turn_len();
	}
	ab_turn_work += work;
	if (now < ab_next)
		return;
	v = rnic_ab_variant;
	if (ab_turn_work != 0) {
		ab_cycles[v] += now - ab_start;
		ab_work[v] += ab_turn_work;
		ab_turns[v]++;
	}
	ab_turn_work = 0;
	ab_start = now;
	ab_next = now + ab_turn_len();
	__atomic_store_n(&rnic_ab_variant, v ^ 1, __ATOMIC_RELAXED);
}

static void __attribute__((destructor))
ab_report(void)
{
	double r[2];

	if (ab_cycles[0] == 0 || ab_cycles[1] == 0)
		return;
	for (int v = 0; v < 2; v++)
		r[v] = (double)ab_work[v] * (double)ab_hz / 1e6 / (double)ab_cycles[v];
	fprintf(stderr, "ab: variant0=%.4f variant1=%.4f ratio=%.4f turns=%llu,%llu\n",
		r[0], r[1], r[1] / r[0], (unsigned long long)ab_turns[0],
		(unsigned long long)ab_turns[1]);
}
#endif /* RNIC_AB_TOGGLE */
