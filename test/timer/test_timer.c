/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/timer (TimerControl, seed 3.4.2 and 7.1.4).
 *
 * The timing wheel is driven by a fake clock: no sleeps, no real time.
 * Covered: argument checks and stop of an idle timer; a timer fires at
 * exactly its tick and never early; stop; re-start; the per-call cap with
 * leftovers; the wrap of every level; timeouts of hours and beyond the
 * wheel's span; a far jump of the clock; 20000 timers over all levels (each
 * fires once, on time, in deadline order); random start / stop / advance
 * against a brute-force model.
 * The service runs on real rte_rings: SET / STOP / RESTART, retry countdown
 * to RETRY_EXCEEDED, RNR retry 7 = forever, a full output ring drained
 * without loss, bad commands. Also the IBA timeout and RNR table helpers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "rnic_timer.h"
#include "test_common.h"

#define US UINT64_C(1000)          /* ns */
#define MS (1000 * US)
#define SEC (1000 * MS)
#define TICK US                    /* the engine's granularity */

static unsigned n_pass, n_fail;

/* xorshift64*: reproducible randomness. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t
rnd_range(uint64_t lo, uint64_t hi)  /* [lo, hi) */
{
	return lo + rnd() % (hi - lo);
}

/* A delta in ticks that lands at a random level (and now and then beyond
 * the wheel's span). */
static uint64_t
rnd_level_ticks(void)
{
	unsigned level = rnd() % (RNIC_TW_LEVELS + 1);

	if (level == RNIC_TW_LEVELS)  /* 1 in 6: up to 4 spans away */
		return rnd_range(1, UINT64_C(4) << 40);
	if (level == 0)
		return rnd_range(0, 256);
	return rnd_range(UINT64_C(1) << (8 * level),
			 UINT64_C(1) << (8 * (level + 1)));
}

static uint64_t
ceil_tick(uint64_t ns)
{
	return ns / TICK + (ns % TICK != 0);
}

/* The first tick boundary at or after ns: when a deadline of ns fires. */
static uint64_t
fire_at(uint64_t ns)
{
	return ceil_tick(ns) * TICK;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Timing wheel                                                        */
/* ------------------------------------------------------------------ */

static int
test_tw_bad_args(void)
{
	struct rnic_tw *tw = NULL;
	uint32_t ids[4];

	rte_errno = 0;
	VERIFY_GOTO(rnic_tw_create(0, TICK, SOCKET_ID_ANY) == NULL, fail, "0 timers");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_tw_create(16, 0, SOCKET_ID_ANY) == NULL, fail, "tick 0");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_tw_create(RNIC_TW_MAX_TIMERS + 1, TICK, SOCKET_ID_ANY) == NULL, fail,
	       "too many timers");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);

	tw = rnic_tw_create(16, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "rte_errno %d", rte_errno);
	VERIFY_GOTO(rnic_tw_start(NULL, 0, 0) == -EINVAL, fail, "NULL wheel");
	VERIFY_GOTO(rnic_tw_start(tw, 16, 5 * US) == -EINVAL, fail, "id out of range");
	VERIFY_GOTO(rnic_tw_start(tw, UINT32_MAX, 5 * US) == -EINVAL, fail, "id ~0");
	VERIFY_GOTO(rnic_tw_stop(NULL, 0) == -EINVAL, fail, "NULL wheel");
	VERIFY_GOTO(rnic_tw_stop(tw, 16) == -EINVAL, fail, "id out of range");
	VERIFY_GOTO(rnic_tw_stop(tw, 3) == -ENOENT, fail, "stop of an idle timer");
	VERIFY_GOTO(!rnic_tw_pending(tw, 16), fail, "id out of range");
	VERIFY_GOTO(!rnic_tw_pending(NULL, 0), fail, "NULL wheel");
	VERIFY_GOTO(!rnic_tw_pending(tw, 3), fail, "idle");
	VERIFY_GOTO(rnic_tw_count(NULL) == 0, fail, "NULL wheel");
	VERIFY_GOTO(rnic_tw_advance(NULL, SEC, ids, 4) == 0, fail, "NULL wheel");
	VERIFY_GOTO(rnic_tw_advance(tw, SEC, NULL, 4) == 0, fail, "NULL array");
	/* max 0 does no work: a due timer stays pending. */
	VERIFY_GOTO(rnic_tw_start(tw, 1, 0) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, SEC, ids, 0) == 0, fail, "max 0");
	VERIFY_GOTO(rnic_tw_pending(tw, 1), fail, "still due");
	VERIFY_GOTO(rnic_tw_stop(tw, 1) == 0, fail, "stop");
	VERIFY_GOTO(rnic_tw_stop(tw, 1) == -ENOENT, fail, "second stop");
	VERIFY_GOTO(rnic_tw_count(tw) == 0, fail, "count %u", rnic_tw_count(tw));
	rnic_tw_free(tw);
	rnic_tw_free(NULL);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

static int
test_tw_single(void)
{
	struct rnic_tw *tw;
	uint32_t ids[4];
	unsigned n;

	tw = rnic_tw_create(8, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");

	/* Deadline on a tick boundary: fires at that tick, not one ns before. */
	VERIFY_GOTO(rnic_tw_start(tw, 3, 5 * US) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_pending(tw, 3) && rnic_tw_count(tw) == 1, fail, "pending");
	VERIFY_GOTO(rnic_tw_advance(tw, 4 * US, ids, 4) == 0, fail, "early at 4 us");
	VERIFY_GOTO(rnic_tw_advance(tw, 5 * US - 1, ids, 4) == 0, fail, "early by 1 ns");
	n = rnic_tw_advance(tw, 5 * US, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 3, fail, "n %u id %u", n, ids[0]);
	VERIFY_GOTO(!rnic_tw_pending(tw, 3) && rnic_tw_count(tw) == 0, fail, "not idle");
	VERIFY_GOTO(rnic_tw_advance(tw, SEC, ids, 4) == 0, fail, "fired twice");

	/* Deadline inside a tick: rounded up, never early. */
	VERIFY_GOTO(rnic_tw_start(tw, 2, SEC + 6 * US + 1) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, SEC + 7 * US - 1, ids, 4) == 0, fail, "early");
	n = rnic_tw_advance(tw, SEC + 7 * US, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 2, fail, "n %u", n);

	/* A deadline already passed fires on the next advance, even with the
	 * same now. */
	VERIFY_GOTO(rnic_tw_start(tw, 7, SEC) == 0, fail, "start in the past");
	n = rnic_tw_advance(tw, SEC + 7 * US, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 7, fail, "n %u", n);

	/* A clock going backwards is ignored. */
	VERIFY_GOTO(rnic_tw_start(tw, 1, 2 * SEC) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, SEC / 2, ids, 4) == 0, fail, "backwards");
	n = rnic_tw_advance(tw, 2 * SEC, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 1, fail, "n %u", n);
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

static int
test_tw_stop(void)
{
	struct rnic_tw *tw;
	uint32_t ids[4];
	unsigned n;

	tw = rnic_tw_create(8, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	/* One timer per level, all stopped: none fires. */
	VERIFY_GOTO(rnic_tw_start(tw, 0, 100 * US) == 0, fail, "level 0");
	VERIFY_GOTO(rnic_tw_start(tw, 1, 10 * MS) == 0, fail, "level 1");
	VERIFY_GOTO(rnic_tw_start(tw, 2, SEC) == 0, fail, "level 2");
	VERIFY_GOTO(rnic_tw_start(tw, 3, 100 * SEC) == 0, fail, "level 3");
	VERIFY_GOTO(rnic_tw_start(tw, 4, 5000 * SEC) == 0, fail, "level 4");
	VERIFY_GOTO(rnic_tw_count(tw) == 5, fail, "count");
	for (uint32_t i = 0; i < 5; i++)
		VERIFY_GOTO(rnic_tw_stop(tw, i) == 0, fail, "stop %u", i);
	VERIFY_GOTO(rnic_tw_count(tw) == 0, fail, "count");
	VERIFY_GOTO(rnic_tw_advance(tw, 10000 * SEC, ids, 4) == 0, fail, "fired");

	/* Stop of a timer that is due but held back by the cap. */
	VERIFY_GOTO(rnic_tw_start(tw, 5, 10001 * SEC) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 6, 10001 * SEC) == 0, fail, "start");
	n = rnic_tw_advance(tw, 10002 * SEC, ids, 1);
	VERIFY_GOTO(n == 1, fail, "n %u", n);
	VERIFY_GOTO(rnic_tw_stop(tw, 11 - ids[0]) == 0, fail, "stop the leftover");
	VERIFY_GOTO(rnic_tw_advance(tw, 10002 * SEC, ids, 4) == 0, fail, "fired");
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

static int
test_tw_restart(void)
{
	struct rnic_tw *tw;
	uint32_t ids[4];
	unsigned n;

	tw = rnic_tw_create(8, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	/* Later. */
	VERIFY_GOTO(rnic_tw_start(tw, 1, 10 * US) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 1, 20 * US) == 0, fail, "re-start");
	VERIFY_GOTO(rnic_tw_count(tw) == 1, fail, "count %u", rnic_tw_count(tw));
	VERIFY_GOTO(rnic_tw_advance(tw, 19 * US, ids, 4) == 0, fail, "old deadline kept");
	n = rnic_tw_advance(tw, 20 * US, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 1, fail, "n %u", n);
	/* Earlier, across levels: from 5 s to 30 ms. */
	VERIFY_GOTO(rnic_tw_start(tw, 1, 5 * SEC) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 1, 30 * MS) == 0, fail, "re-start");
	VERIFY_GOTO(rnic_tw_advance(tw, 30 * MS - 1, ids, 4) == 0, fail, "early");
	n = rnic_tw_advance(tw, 30 * MS, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 1, fail, "n %u", n);
	VERIFY_GOTO(rnic_tw_advance(tw, 10 * SEC, ids, 4) == 0, fail, "old deadline kept");
	/* Re-start of a due timer held back by the cap. */
	VERIFY_GOTO(rnic_tw_start(tw, 2, 11 * SEC) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 3, 11 * SEC) == 0, fail, "start");
	n = rnic_tw_advance(tw, 11 * SEC, ids, 1);
	VERIFY_GOTO(n == 1, fail, "n %u", n);
	VERIFY_GOTO(rnic_tw_start(tw, 5 - ids[0], 12 * SEC) == 0, fail, "re-start");
	VERIFY_GOTO(rnic_tw_advance(tw, 12 * SEC - 1, ids, 4) == 0, fail, "re-start lost");
	n = rnic_tw_advance(tw, 12 * SEC, ids, 4);
	VERIFY_GOTO(n == 1, fail, "n %u", n);
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

static int
test_tw_cap(void)
{
	enum { N = 1000 };
	static uint8_t seen[2 * N];
	uint32_t ids[64];
	struct rnic_tw *tw;
	unsigned n, total = 0, calls = 0;
	uint32_t last = 0;

	memset(seen, 0, sizeof(seen));
	tw = rnic_tw_create(2 * N, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	for (uint32_t i = 0; i < N; i++) {
		VERIFY_GOTO(rnic_tw_start(tw, i, 50 * US) == 0, fail, "start");
		VERIFY_GOTO(rnic_tw_start(tw, N + i, 51 * US) == 0, fail, "start");
	}
	/* 2000 due, 64 a call: 31 full calls and a last short one. */
	do {
		n = rnic_tw_advance(tw, MS, ids, RTE_DIM(ids));
		calls++;
		VERIFY_GOTO(n == RTE_DIM(ids) || total + n == 2 * N, fail, "n %u", n);
		for (unsigned i = 0; i < n; i++) {
			VERIFY_GOTO(!seen[ids[i]], fail, "id %u twice", ids[i]);
			seen[ids[i]] = 1;
			/* All 50 us timers before all 51 us ones. */
			VERIFY_GOTO(ids[i] / N >= last, fail, "order: id %u after %u",
			       ids[i], last);
			last = ids[i] / N;
		}
		total += n;
	} while (n == RTE_DIM(ids));
	VERIFY_GOTO(total == 2 * N && calls == 32, fail, "total %u calls %u", total, calls);
	VERIFY_GOTO(rnic_tw_count(tw) == 0, fail, "count %u", rnic_tw_count(tw));
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

/* For each level, put the clock just before that level's wrap and arm
 * timers at the edges of every level, across the wrap. Each must fire at its
 * exact tick. */
static int
test_tw_wrap(void)
{
	static const uint64_t edge[] = { 1, 5, 6, 255, 256, 257, 511 };
	uint64_t dl[64];
	uint32_t ids[64];
	struct rnic_tw *tw = NULL;
	unsigned level;

	for (level = 0; level < RNIC_TW_LEVELS; level++) {
		uint64_t w = UINT64_C(1) << (8 * (level + 1));
		uint64_t unit = UINT64_C(1) << (8 * level);
		uint64_t base = 3 * w - 5;
		uint32_t n_t = 0, i;

		tw = rnic_tw_create(64, TICK, SOCKET_ID_ANY);
		VERIFY_GOTO(tw != NULL, fail, "create");
		VERIFY_GOTO(rnic_tw_advance(tw, base * TICK, ids, 64) == 0, fail, "empty");
		for (i = 0; i < RTE_DIM(edge); i++)
			dl[n_t++] = base + edge[i];
		dl[n_t++] = base + unit;
		dl[n_t++] = base + unit + 1;
		dl[n_t++] = base + w - 1;
		dl[n_t++] = base + w;
		dl[n_t++] = base + w + 7;
		dl[n_t++] = base + 2 * w + 3;
		for (i = 0; i < n_t; i++)
			VERIFY_GOTO(rnic_tw_start(tw, i, dl[i] * TICK) == 0, fail, "start");
		/* Walk the deadlines in order: nothing at d - 1 ns, exactly the
		 * timers of d at d. */
		for (;;) {
			uint64_t next = UINT64_MAX;
			unsigned n, want = 0;

			for (i = 0; i < n_t; i++)
				if (rnic_tw_pending(tw, i) && dl[i] < next)
					next = dl[i];
			if (next == UINT64_MAX)
				break;
			for (i = 0; i < n_t; i++)
				want += rnic_tw_pending(tw, i) && dl[i] == next;
			n = rnic_tw_advance(tw, next * TICK - 1, ids, 64);
			VERIFY_GOTO(n == 0, fail, "level %u: %u early before tick %" PRIu64
			       " (id %u)", level, n, next, ids[0]);
			n = rnic_tw_advance(tw, next * TICK, ids, 64);
			VERIFY_GOTO(n == want, fail, "level %u tick %" PRIu64 ": %u of %u",
			       level, next, n, want);
			for (i = 0; i < n; i++)
				VERIFY_GOTO(dl[ids[i]] == next, fail, "id %u", ids[i]);
		}
		VERIFY_GOTO(rnic_tw_count(tw) == 0, fail, "count");
		rnic_tw_free(tw);
		tw = NULL;
	}
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

/* Hours-long timeouts, stepped an hour at a time, and one past the span. */
static int
test_tw_long(void)
{
	const uint64_t t0 = 12345678901ull;  /* an odd start */
	const uint64_t dl0 = t0 + rnic_ib_timeout_ns(31);   /* ~2.4 h */
	const uint64_t dl1 = t0 + (UINT64_C(1) << 41) * TICK + 17;  /* ~25 d */
	const uint64_t dl2 = t0 + rnic_rnr_timer_ns(0);     /* 655.36 ms */
	struct rnic_tw *tw;
	uint32_t ids[4];
	uint64_t now;
	unsigned n;

	tw = rnic_tw_create(4, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	VERIFY_GOTO(rnic_tw_advance(tw, t0, ids, 4) == 0, fail, "empty");
	VERIFY_GOTO(rnic_tw_start(tw, 0, dl0) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 1, dl1) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_start(tw, 2, dl2) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, dl2 - 1, ids, 4) == 0, fail, "early");
	n = rnic_tw_advance(tw, dl2 + TICK - 1, ids, 4);  /* dl2 is mid-tick */
	VERIFY_GOTO(n == 1 && ids[0] == 2, fail, "n %u", n);
	for (now = t0 + 3600 * SEC; now < dl0; now += 3600 * SEC)
		VERIFY_GOTO(rnic_tw_advance(tw, now, ids, 4) == 0, fail, "early at %" PRIu64,
		       now);
	VERIFY_GOTO(rnic_tw_advance(tw, ceil_tick(dl0) * TICK - 1, ids, 4) == 0, fail, "early");
	n = rnic_tw_advance(tw, ceil_tick(dl0) * TICK, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 0, fail, "n %u", n);
	for (now = dl0 + 86400 * SEC; now < dl1; now += 86400 * SEC)
		VERIFY_GOTO(rnic_tw_advance(tw, now, ids, 4) == 0, fail, "early at %" PRIu64,
		       now);
	VERIFY_GOTO(rnic_tw_advance(tw, ceil_tick(dl1) * TICK - 1, ids, 4) == 0, fail, "early");
	n = rnic_tw_advance(tw, ceil_tick(dl1) * TICK, ids, 4);
	VERIFY_GOTO(n == 1 && ids[0] == 1, fail, "n %u", n);
	/* A never-ending deadline stays pending and harmless. */
	VERIFY_GOTO(rnic_tw_start(tw, 3, UINT64_MAX) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, dl1 + 1000 * 86400 * SEC, ids, 4) == 0, fail, "fired");
	VERIFY_GOTO(rnic_tw_pending(tw, 3), fail, "lost");
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

/* One advance across ten hours delivers everything due, in order. */
/*
 * The wheel remembers the next tick it must visit so that polls in
 * between cost a compare: a timer started earlier than that tick, after
 * the advance that found it, must still fire on time, at every level.
 */
static int
test_tw_hint(void)
{
	static const uint64_t far[] = { 10 * MS, SEC, 100 * SEC, 5000 * SEC };
	struct rnic_tw *tw;
	uint32_t ids[4];
	uint64_t now = 0;
	unsigned n;

	tw = rnic_tw_create(8, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	for (unsigned i = 0; i < RTE_DIM(far); i++) {
		VERIFY_GOTO(rnic_tw_start(tw, 0, now + far[i]) == 0, fail, "start far");
		/* Advances with nothing due: the hint is now the far slot. */
		VERIFY_GOTO(rnic_tw_advance(tw, now + 1 * US, ids, 4) == 0, fail, "early");
		VERIFY_GOTO(rnic_tw_advance(tw, now + 2 * US, ids, 4) == 0, fail, "early");
		VERIFY_GOTO(rnic_tw_start(tw, 1, now + 7 * US) == 0, fail, "start near");
		VERIFY_GOTO(rnic_tw_advance(tw, now + 6 * US, ids, 4) == 0, fail, "near early");
		n = rnic_tw_advance(tw, now + 7 * US, ids, 4);
		VERIFY_GOTO(n == 1 && ids[0] == 1, fail, "level %u: near did not fire (n %u)", i, n);
		VERIFY_GOTO(rnic_tw_advance(tw, now + far[i] - 1, ids, 4) == 0, fail, "far early");
		n = rnic_tw_advance(tw, now + far[i], ids, 4);
		VERIFY_GOTO(n == 1 && ids[0] == 0, fail, "level %u: far did not fire (n %u)", i, n);
		now += far[i];
	}
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

static int
test_tw_jump(void)
{
	enum { N = 1000 };
	static uint64_t et[N];
	static uint8_t seen[N];
	uint32_t *ids = NULL;
	struct rnic_tw *tw;
	const uint64_t t0 = 7 * SEC + 3;
	uint64_t dlx;
	unsigned n;

	memset(seen, 0, sizeof(seen));
	tw = rnic_tw_create(N, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	ids = calloc(4 * N, sizeof(*ids));
	VERIFY_GOTO(ids != NULL, fail, "calloc");
	/* An empty wheel jumps decades in one call. */
	VERIFY_GOTO(rnic_tw_advance(tw, t0, ids, N) == 0, fail, "empty");
	for (uint32_t i = 0; i < N; i++) {
		uint64_t dl = t0 + rnd_range(0, 3600 * SEC);

		et[i] = ceil_tick(dl);
		VERIFY_GOTO(rnic_tw_start(tw, i, dl) == 0, fail, "start");
	}
	n = rnic_tw_advance(tw, t0 + 36000 * SEC, ids, 4 * N);
	VERIFY_GOTO(n == N, fail, "n %u", n);
	for (unsigned i = 0; i < n; i++) {
		VERIFY_GOTO(!seen[ids[i]], fail, "id %u twice", ids[i]);
		seen[ids[i]] = 1;
		VERIFY_GOTO(i == 0 || et[ids[i - 1]] <= et[ids[i]], fail, "order at %u", i);
	}
	/* Still exact after the jump. */
	dlx = (ceil_tick(t0 + 36000 * SEC) + 3) * TICK;
	VERIFY_GOTO(rnic_tw_start(tw, 0, dlx) == 0, fail, "start");
	VERIFY_GOTO(rnic_tw_advance(tw, dlx - 1, ids, N) == 0, fail, "early");
	VERIFY_GOTO(rnic_tw_advance(tw, dlx, ids, N) == 1 && ids[0] == 0, fail, "lost");
	free(ids);
	rnic_tw_free(tw);
	return 0;
fail:
	free(ids);
	rnic_tw_free(tw);
	return -1;
}

/* 20000 timers over every level and past the span; the clock walks to
 * deadlines, to 1 ns before them, and jumps at random. Each timer fires once,
 * in the first advance that reaches its tick, batches in tick order. */
static int
test_tw_many(void)
{
	enum { N = 20000, MAXB = 512 };
	uint64_t *et = NULL, *sorted = NULL;
	uint8_t *seen = NULL;
	struct rnic_tw *tw = NULL;
	uint32_t ids[MAXB];
	uint64_t now = 1000 * SEC + 777, prev_tick, last;
	unsigned fired = 0, k = 0, calls = 0, capped = 0;

	tw = rnic_tw_create(N, TICK, SOCKET_ID_ANY);
	et = calloc(N, sizeof(*et));
	sorted = calloc(N, sizeof(*sorted));
	seen = calloc(N, 1);
	VERIFY_GOTO(tw != NULL && et != NULL && sorted != NULL && seen != NULL, fail,
	       "alloc");
	VERIFY_GOTO(rnic_tw_advance(tw, now, ids, MAXB) == 0, fail, "empty");
	for (uint32_t i = 0; i < N; i++) {
		uint64_t dl = now + rnd_level_ticks() * TICK + rnd() % TICK;

		et[i] = ceil_tick(dl);
		sorted[i] = et[i];
		VERIFY_GOTO(rnic_tw_start(tw, i, dl) == 0, fail, "start");
	}
	qsort(sorted, N, sizeof(*sorted), cmp_u64);
	prev_tick = now / TICK;
	while (fired < N) {
		unsigned n;

		while (k < N && sorted[k] <= now / TICK)
			k++;
		VERIFY_GOTO(k < N, fail, "all due but %u of %u fired", fired, N);
		switch (rnd() % 4) {
		case 0:   /* exactly at the next deadline */
			now = sorted[k] * TICK;
			break;
		case 1:   /* one ns before it */
			now = sorted[k] * TICK - 1;
			break;
		case 2:   /* anywhere up to twice the gap */
			now += 1 + rnd() % (2 * (sorted[k] * TICK - now));
			break;
		default:  /* a few deadlines ahead */
			now = sorted[RTE_MIN(k + rnd() % 64, (unsigned)N - 1)] * TICK;
			break;
		}
		/* Drain with a random cap; the cap must not change what is due. */
		last = 0;
		do {
			unsigned max = 1 + rnd() % MAXB;

			n = rnic_tw_advance(tw, now, ids, max);
			calls++;
			capped += n == max;
			for (unsigned i = 0; i < n; i++) {
				uint32_t id = ids[i];

				VERIFY_GOTO(id < N && !seen[id], fail, "id %u twice", id);
				seen[id] = 1;
				VERIFY_GOTO(et[id] <= now / TICK, fail, "id %u early: tick %"
				       PRIu64 " now %" PRIu64, id, et[id],
				       now / TICK);
				VERIFY_GOTO(et[id] > prev_tick, fail, "id %u late: tick %"
				       PRIu64 " was due at %" PRIu64, id, et[id],
				       prev_tick);
				VERIFY_GOTO(et[id] >= last, fail, "id %u out of order", id);
				last = et[id];
			}
			fired += n;
			if (n < max)
				break;
		} while (1);
		prev_tick = RTE_MAX(prev_tick, now / TICK);
		VERIFY_GOTO(rnic_tw_count(tw) == N - fired, fail, "count %u fired %u",
		       rnic_tw_count(tw), fired);
	}
	VERIFY_GOTO(fired == N, fail, "fired %u", fired);
	printf("  %u timers, %u advance calls (%u capped), last at %.1f days\n",
	       N, calls, capped, (double)now / (86400.0 * SEC));
	free(et);
	free(sorted);
	free(seen);
	rnic_tw_free(tw);
	return 0;
fail:
	free(et);
	free(sorted);
	free(seen);
	rnic_tw_free(tw);
	return -1;
}

/* Random start / re-start / stop / advance against a brute-force model. */
static int
test_tw_model(void)
{
	enum { N = 2048, OPS = 200000 };
	static uint64_t model[N];  /* deadline tick, or UINT64_MAX when idle */
	struct rnic_tw *tw;
	uint32_t ids[64];
	uint64_t now = 5 * SEC;
	unsigned pending = 0, fired = 0;

	tw = rnic_tw_create(N, TICK, SOCKET_ID_ANY);
	VERIFY_GOTO(tw != NULL, fail, "create");
	for (unsigned i = 0; i < N; i++)
		model[i] = UINT64_MAX;
	VERIFY_GOTO(rnic_tw_advance(tw, now, ids, 64) == 0, fail, "empty");
	for (unsigned op = 0; op < OPS; op++) {
		unsigned r = rnd() % 16;
		uint32_t id = rnd() % N;

		if (r < 7) {
			/* Mostly near, sometimes far, sometimes in the past. */
			uint64_t dl = r == 0 ? now - rnd() % (10 * US) :
				r < 5 ? now + rnd() % (300 * US) :
				now + rnd_level_ticks() * TICK;

			pending += model[id] == UINT64_MAX;
			model[id] = ceil_tick(dl);
			VERIFY_GOTO(rnic_tw_start(tw, id, dl) == 0, fail, "start");
		} else if (r < 10) {
			int rc = rnic_tw_stop(tw, id);

			VERIFY_GOTO(rc == (model[id] == UINT64_MAX ? -ENOENT : 0), fail,
			       "stop %u: %d", id, rc);
			pending -= model[id] != UINT64_MAX;
			model[id] = UINT64_MAX;
		} else {
			uint64_t now_t;
			unsigned n;

			/* Now and then a jump to any level. */
			now += r == 15 && rnd() % 4 == 0 ?
				rnd_level_ticks() * TICK : rnd() % (50 * US);
			now_t = now / TICK;
			do {
				unsigned max = 1 + rnd() % 64;

				n = rnic_tw_advance(tw, now, ids, max);
				for (unsigned i = 0; i < n; i++) {
					VERIFY_GOTO(model[ids[i]] <= now_t, fail,
					       "op %u: id %u early", op, ids[i]);
					model[ids[i]] = UINT64_MAX;
				}
				pending -= n;
				fired += n;
				if (n < max)
					break;
			} while (1);
			for (unsigned i = 0; i < N; i++)
				VERIFY_GOTO(model[i] == UINT64_MAX || model[i] > now_t, fail,
				       "op %u: id %u due at %" PRIu64 " not fired by %"
				       PRIu64, op, i, model[i], now_t);
		}
		VERIFY_GOTO(rnic_tw_count(tw) == pending, fail, "op %u: count %u model %u",
		       op, rnic_tw_count(tw), pending);
		VERIFY_GOTO(rnic_tw_pending(tw, id) == (model[id] != UINT64_MAX), fail,
		       "op %u: id %u", op, id);
	}
	printf("  %u ops, %u fired, %u pending at the end\n", OPS, fired, pending);
	rnic_tw_free(tw);
	return 0;
fail:
	rnic_tw_free(tw);
	return -1;
}

/* ------------------------------------------------------------------ */
/* IBA encodings                                                       */
/* ------------------------------------------------------------------ */

static int
test_helpers(void)
{
	/* IBA table 45 in units of 10 us (0.01 ms). */
	static const uint32_t rnr_10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	VERIFY_GOTO(rnic_ib_timeout_ns(0) == RNIC_TIMEOUT_INFINITE, fail, "0 is infinite");
	VERIFY_GOTO(rnic_ib_timeout_ns(1) == 8192, fail, "%" PRIu64, rnic_ib_timeout_ns(1));
	VERIFY_GOTO(rnic_ib_timeout_ns(14) == 4096ull * 16384, fail, "14: ~67 ms");
	VERIFY_GOTO(rnic_ib_timeout_ns(31) == 4096ull << 31, fail, "31");
	VERIFY_GOTO(rnic_ib_timeout_ns(31) / SEC == 8796, fail, "31 is ~2.44 h");
	VERIFY_GOTO(rnic_ib_timeout_ns(32) == RNIC_TIMEOUT_INFINITE, fail, "5 bits");
	VERIFY_GOTO(rnic_ib_timeout_ns(33) == rnic_ib_timeout_ns(1), fail, "5 bits");
	for (unsigned c = 0; c < 32; c++)
		VERIFY_GOTO(rnic_rnr_timer_ns(c) == rnr_10us[c] * 10 * US, fail,
		       "code %u: %" PRIu64, c, rnic_rnr_timer_ns(c));
	VERIFY_GOTO(rnic_rnr_timer_ns(0) == 655360 * US, fail, "655.36 ms");
	VERIFY_GOTO(rnic_rnr_timer_ns(31) == 491520 * US, fail, "491.52 ms");
	VERIFY_GOTO(rnic_rnr_timer_ns(0x21) == rnic_rnr_timer_ns(1), fail, "5 bits");
	VERIFY_GOTO(rnic_timer_id(7, RNIC_TIMER_LOSS) == 14, fail, "loss id");
	VERIFY_GOTO(rnic_timer_id(7, RNIC_TIMER_RNR) == 15, fail, "rnr id");
	return 0;
fail:
	return -1;
}

/* ------------------------------------------------------------------ */
/* TimerControl service                                                */
/* ------------------------------------------------------------------ */

static struct rte_ring *ring_in, *ring_out;

static int
cmd(uint32_t qp, uint8_t type, uint8_t timer, uint8_t retry, uint8_t flags,
    uint64_t value_ns)
{
	struct rnic_timer_event ev = {
		.qp = qp, .type = type, .timer = timer, .retry = retry,
		.flags = flags, .value_ns = value_ns,
	};

	return rte_ring_enqueue_elem(ring_in, &ev, sizeof(ev));
}

static unsigned
drain(struct rnic_timer_event *ev, unsigned max)
{
	return rte_ring_dequeue_burst_elem(ring_out, ev, sizeof(*ev), max, NULL);
}

static void
empty_rings(void)
{
	struct rnic_timer_event ev[64];

	while (rte_ring_dequeue_burst_elem(ring_in, ev, sizeof(ev[0]), 64, NULL))
		;
	while (drain(ev, 64))
		;
}

static int
test_svc_bad_args(void)
{
	struct rnic_timer_svc *svc = NULL;
	struct rnic_timer_stats st;

	rte_errno = 0;
	VERIFY_GOTO(rnic_timer_svc_create(0, TICK, ring_in, ring_out) == NULL, fail, "0 QPs");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_timer_svc_create(8, 0, ring_in, ring_out) == NULL, fail, "tick 0");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_timer_svc_create(8, TICK, NULL, ring_out) == NULL, fail, "no ring");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_timer_svc_create(8, TICK, ring_in, NULL) == NULL, fail, "no ring");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	rte_errno = 0;
	VERIFY_GOTO(rnic_timer_svc_create(RNIC_TW_MAX_TIMERS, TICK, ring_in,
				     ring_out) == NULL, fail, "too many QPs");
	VERIFY_GOTO(rte_errno == EINVAL, fail, "rte_errno %d", rte_errno);
	VERIFY_GOTO(rnic_timer_svc_poll(NULL, 0) == 0, fail, "NULL");
	VERIFY_GOTO(rnic_timer_svc_stats(NULL, &st) == -EINVAL, fail, "NULL");
	VERIFY_GOTO(!rnic_timer_svc_pending(NULL, 0, RNIC_TIMER_LOSS), fail, "NULL");
	rnic_timer_svc_free(NULL);

	/* Bad commands are counted and dropped, and nothing fires. */
	svc = rnic_timer_svc_create(8, TICK, ring_in, ring_out);
	VERIFY_GOTO(svc != NULL, fail, "rte_errno %d", rte_errno);
	VERIFY_GOTO(rnic_timer_svc_stats(svc, NULL) == -EINVAL, fail, "NULL stats");
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 8, RNIC_TIMER_LOSS), fail, "bad qp");
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 0, (enum rnic_timer_kind)2), fail, "bad kind");
	VERIFY_GOTO(cmd(8, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 3, 0, US) == 0, fail, "qp");
	VERIFY_GOTO(cmd(0, RNIC_TIMER_SET, 2, 3, 0, US) == 0, fail, "timer");
	VERIFY_GOTO(cmd(0, 0x42, RNIC_TIMER_LOSS, 3, 0, US) == 0, fail, "type");
	VERIFY_GOTO(cmd(0, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 8, 0, US) == 0, fail, "retry");
	VERIFY_GOTO(cmd(1, RNIC_TIMER_RESTART, RNIC_TIMER_RNR, 0, 0, 0) == 0, fail,
	       "restart before set");
	VERIFY_GOTO(cmd(2, RNIC_TIMER_STOP, RNIC_TIMER_RNR, 0, 0, 0) == 0, fail,
	       "stop of an idle timer: fine");
	VERIFY_GOTO(rnic_timer_svc_poll(svc, SEC) == 6, fail, "work");
	VERIFY_GOTO(rnic_timer_svc_poll(svc, 100 * SEC) == 0, fail, "something fired");
	VERIFY_GOTO(rnic_timer_svc_stats(svc, &st) == 0, fail, "stats");
	VERIFY_GOTO(st.commands == 6 && st.bad_commands == 5, fail, "commands %" PRIu64
	       " bad %" PRIu64, st.commands, st.bad_commands);
	VERIFY_GOTO(st.expired == 0 && st.exceeded == 0, fail, "events");
	rnic_timer_svc_free(svc);
	return 0;
fail:
	rnic_timer_svc_free(svc);
	empty_rings();
	return -1;
}

/* Expect exactly one event, with these fields. */
#define VERIFY_ONE(now, qp_, type_, timer_, retry_) do { \
	unsigned _n; \
	VERIFY_GOTO(rnic_timer_svc_poll(svc, (now)) >= 1, fail, "no work at %" PRIu64, \
	       (uint64_t)(now)); \
	_n = drain(ev, RTE_DIM(ev)); \
	VERIFY_GOTO(_n == 1, fail, "%u events", _n); \
	VERIFY_GOTO(ev[0].qp == (qp_) && ev[0].type == (type_) && \
	       ev[0].timer == (timer_) && ev[0].retry == (retry_) && \
	       ev[0].value_ns == (now), fail, \
	       "got qp %u type %#x timer %u retry %u at %" PRIu64, ev[0].qp, \
	       ev[0].type, ev[0].timer, ev[0].retry, ev[0].value_ns); \
} while (0)

#define VERIFY_NONE(now) do { \
	rnic_timer_svc_poll(svc, (now)); \
	VERIFY_GOTO(drain(ev, RTE_DIM(ev)) == 0, fail, "event at %" PRIu64 ": qp %u " \
	       "type %#x", (uint64_t)(now), ev[0].qp, ev[0].type); \
} while (0)

static int
test_svc_set_stop_restart(void)
{
	struct rnic_timer_event ev[8];
	struct rnic_timer_svc *svc = NULL;
	struct rnic_timer_stats st;
	uint64_t t = SEC;

	svc = rnic_timer_svc_create(64, TICK, ring_in, ring_out);
	VERIFY_GOTO(svc != NULL, fail, "create");
	/* Idle (a poller may skip its turn) only with nothing armed and no
	 * command waiting. */
	VERIFY_GOTO(rnic_timer_svc_idle(svc) && rnic_timer_svc_idle(NULL), fail, "idle");

	/* SET: fires once at its deadline, with the counter decremented,
	 * and is not re-armed (seed 3.4.5.1.4: the requester decides). */
	VERIFY_GOTO(cmd(5, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 3, 0, 100 * US) == 0, fail, "");
	VERIFY_GOTO(!rnic_timer_svc_idle(svc), fail, "a command waits");
	VERIFY_GOTO(rnic_timer_svc_poll(svc, t) == 1, fail, "work");
	VERIFY_GOTO(rnic_timer_svc_pending(svc, 5, RNIC_TIMER_LOSS), fail, "armed");
	VERIFY_GOTO(!rnic_timer_svc_idle(svc), fail, "a timer is armed");
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 5, RNIC_TIMER_RNR), fail, "other timer");
	VERIFY_NONE(t + 100 * US - 1);
	VERIFY_ONE(t + 100 * US, 5, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, 2);
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 5, RNIC_TIMER_LOSS), fail, "re-armed");
	VERIFY_GOTO(rnic_timer_svc_idle(svc), fail, "idle after the expiry");
	VERIFY_NONE(t + 10 * SEC);
	t += 10 * SEC;

	/* RESTART with the stored value, keeping the counter. */
	VERIFY_GOTO(cmd(5, RNIC_TIMER_RESTART, RNIC_TIMER_LOSS, 0,
		   RNIC_TIMER_F_KEEP_COUNT, 0) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_NONE(t + 100 * US - 1);
	VERIFY_ONE(t + 100 * US, 5, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, 1);
	t += 100 * US;
	/* A plain RESTART resets the counter to the SET value (7.1.4.1). */
	VERIFY_GOTO(cmd(5, RNIC_TIMER_RESTART, RNIC_TIMER_LOSS, 0, 0, 0) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_ONE(t + 100 * US, 5, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, 2);
	t += 100 * US;

	/* STOP before the deadline. */
	VERIFY_GOTO(cmd(6, RNIC_TIMER_SET, RNIC_TIMER_RNR, 3, 0, 50 * US) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_GOTO(cmd(6, RNIC_TIMER_STOP, RNIC_TIMER_RNR, 0, 0, 0) == 0, fail, "");
	rnic_timer_svc_poll(svc, t + 10 * US);
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 6, RNIC_TIMER_RNR), fail, "stopped");
	VERIFY_NONE(t + SEC);
	t += SEC;
	/* STOP sent before the deadline, seen after it: commands go first. */
	VERIFY_GOTO(cmd(6, RNIC_TIMER_SET, RNIC_TIMER_RNR, 3, 0, 50 * US) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_GOTO(cmd(6, RNIC_TIMER_STOP, RNIC_TIMER_RNR, 0, 0, 0) == 0, fail, "");
	VERIFY_NONE(t + 60 * US);
	t += 60 * US;

	/* SET on a running timer re-arms it with the new value. */
	VERIFY_GOTO(cmd(7, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 2, 0, 100 * US) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_GOTO(cmd(7, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 4, 0, 300 * US) == 0, fail, "");
	rnic_timer_svc_poll(svc, t + 50 * US);
	VERIFY_NONE(t + 350 * US - 1);
	VERIFY_ONE(t + 350 * US, 7, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, 3);
	t += SEC;

	/* The two timers of a QP are independent. */
	VERIFY_GOTO(cmd(9, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 1, 0, 40 * US) == 0, fail, "");
	VERIFY_GOTO(cmd(9, RNIC_TIMER_SET, RNIC_TIMER_RNR, 1, 0,
		   rnic_rnr_timer_ns(5)) == 0, fail, "");  /* 60 us */
	rnic_timer_svc_poll(svc, t);
	VERIFY_ONE(t + 40 * US, 9, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, 0);
	VERIFY_ONE(t + 60 * US, 9, RNIC_TIMER_EXPIRED, RNIC_TIMER_RNR, 0);
	t += SEC;

	/* An infinite timeout (IBA timeout 0) never fires. */
	VERIFY_GOTO(cmd(10, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 7, 0,
		   rnic_ib_timeout_ns(0)) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 10, RNIC_TIMER_LOSS), fail, "armed");
	VERIFY_NONE(t + 100000 * SEC);

	VERIFY_GOTO(rnic_timer_svc_stats(svc, &st) == 0, fail, "stats");
	VERIFY_GOTO(st.bad_commands == 0 && st.expired == 6 && st.exceeded == 0, fail,
	       "bad %" PRIu64 " expired %" PRIu64 " exceeded %" PRIu64,
	       st.bad_commands, st.expired, st.exceeded);
	rnic_timer_svc_free(svc);
	return 0;
fail:
	rnic_timer_svc_free(svc);
	empty_rings();
	return -1;
}

/* The requester's loop of seed 3.4.5.1.4: on EXPIRED retransmit and
 * RESTART (keeping the count), until RETRY_EXCEEDED. */
static int
test_svc_countdown(void)
{
	struct rnic_timer_event ev[8];
	struct rnic_timer_svc *svc = NULL;
	struct rnic_timer_stats st;
	uint64_t t = SEC;
	const uint64_t to = rnic_ib_timeout_ns(14);  /* ~67 ms */
	const uint64_t rnr = rnic_rnr_timer_ns(1);   /* 10 us */

	svc = rnic_timer_svc_create(4, TICK, ring_in, ring_out);
	VERIFY_GOTO(svc != NULL, fail, "create");

	/* Loss timer, retry_cnt 7: 7 retries, then exceeded. */
	VERIFY_GOTO(cmd(1, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 7, 0, to) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	for (int left = 6; left >= 0; left--) {
		/* 4.096 us units are not whole ticks: the deadline rounds up. */
		VERIFY_NONE(fire_at(t + to) - 1);
		t = fire_at(t + to);
		VERIFY_ONE(t, 1, RNIC_TIMER_EXPIRED, RNIC_TIMER_LOSS, left);
		VERIFY_GOTO(cmd(1, RNIC_TIMER_RESTART, RNIC_TIMER_LOSS, 0,
			   RNIC_TIMER_F_KEEP_COUNT, 0) == 0, fail, "");
		rnic_timer_svc_poll(svc, t);
	}
	t = fire_at(t + to);
	VERIFY_ONE(t, 1, RNIC_TIMER_RETRY_EXCEEDED, RNIC_TIMER_LOSS, 0);
	VERIFY_GOTO(!rnic_timer_svc_pending(svc, 1, RNIC_TIMER_LOSS), fail, "re-armed");

	/* Retry 0: the first expiry is already exceeded. */
	VERIFY_GOTO(cmd(2, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 0, 0, to) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	VERIFY_ONE(fire_at(t + to), 2, RNIC_TIMER_RETRY_EXCEEDED,
		   RNIC_TIMER_LOSS, 0);
	t = fire_at(t + to);

	/* RNR retry 7: forever. */
	VERIFY_GOTO(cmd(3, RNIC_TIMER_SET, RNIC_TIMER_RNR, RNIC_TIMER_RETRY_INFINITE,
		   0, rnr) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	for (int i = 0; i < 100; i++) {
		t += rnr;
		VERIFY_ONE(t, 3, RNIC_TIMER_EXPIRED, RNIC_TIMER_RNR, 7);
		VERIFY_GOTO(cmd(3, RNIC_TIMER_RESTART, RNIC_TIMER_RNR, 0,
			   RNIC_TIMER_F_KEEP_COUNT, 0) == 0, fail, "");
		rnic_timer_svc_poll(svc, t);
	}
	VERIFY_GOTO(cmd(3, RNIC_TIMER_STOP, RNIC_TIMER_RNR, 0, 0, 0) == 0, fail, "");
	VERIFY_NONE(t + SEC);
	t += SEC;

	/* RNR retry 6 is finite. */
	VERIFY_GOTO(cmd(0, RNIC_TIMER_SET, RNIC_TIMER_RNR, 6, 0, rnr) == 0, fail, "");
	rnic_timer_svc_poll(svc, t);
	for (int left = 5; left >= 0; left--) {
		t += rnr;
		VERIFY_ONE(t, 0, RNIC_TIMER_EXPIRED, RNIC_TIMER_RNR, left);
		VERIFY_GOTO(cmd(0, RNIC_TIMER_RESTART, RNIC_TIMER_RNR, 0,
			   RNIC_TIMER_F_KEEP_COUNT, 0) == 0, fail, "");
		rnic_timer_svc_poll(svc, t);
	}
	t += rnr;
	VERIFY_ONE(t, 0, RNIC_TIMER_RETRY_EXCEEDED, RNIC_TIMER_RNR, 0);

	VERIFY_GOTO(rnic_timer_svc_stats(svc, &st) == 0, fail, "stats");
	VERIFY_GOTO(st.expired == 7 + 100 + 6 && st.exceeded == 3, fail,
	       "expired %" PRIu64 " exceeded %" PRIu64, st.expired, st.exceeded);
	rnic_timer_svc_free(svc);
	return 0;
fail:
	rnic_timer_svc_free(svc);
	empty_rings();
	return -1;
}

/* A full output ring holds expiries back in the wheel; none is lost, and a
 * STOP still cancels one that is held back. */
static int
test_svc_out_full(void)
{
	enum { QPS = 300, STOPPED = 123 };
	struct rnic_timer_event ev[64];
	static uint8_t seen[QPS];
	struct rnic_timer_svc *svc = NULL;
	struct rnic_timer_stats st;
	struct rte_ring *small;
	uint64_t t = SEC;
	unsigned n, total = 0, polls = 0;

	memset(seen, 0, sizeof(seen));
	small = rte_ring_create_elem("timer_out_small", sizeof(ev[0]), 16,
				     SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	VERIFY_GOTO(small != NULL, fail, "ring: %s", rte_strerror(rte_errno));
	svc = rnic_timer_svc_create(QPS, TICK, ring_in, small);
	VERIFY_GOTO(svc != NULL, fail, "create");
	for (uint32_t qp = 0; qp < QPS; qp++) {
		VERIFY_GOTO(cmd(qp, RNIC_TIMER_SET, RNIC_TIMER_LOSS, 3, 0,
			   10 * US + qp % 7) == 0, fail, "");
		if (qp % 32 == 31)
			rnic_timer_svc_poll(svc, t);
	}
	while (!rte_ring_empty(ring_in))
		rnic_timer_svc_poll(svc, t);

	/* All 300 are due; the ring takes 15. */
	t += SEC;
	VERIFY_GOTO(rnic_timer_svc_poll(svc, t) == 15, fail, "first burst");
	VERIFY_GOTO(rnic_timer_svc_poll(svc, t) == 0, fail, "ring overfilled");
	VERIFY_GOTO(rnic_timer_svc_poll(svc, t + SEC) == 0, fail, "ring overfilled");
	VERIFY_GOTO(rte_ring_count(small) == 15, fail, "count %u", rte_ring_count(small));
	VERIFY_GOTO(rnic_timer_svc_pending(svc, STOPPED, RNIC_TIMER_LOSS), fail, "held back");
	n = rte_ring_dequeue_burst_elem(small, ev, sizeof(ev[0]), 64, NULL);
	for (unsigned i = 0; i < n; i++)
		seen[ev[i].qp]++;
	total += n;
	VERIFY_GOTO(!seen[STOPPED], fail, "order: qp %u already out", STOPPED);
	VERIFY_GOTO(cmd(STOPPED, RNIC_TIMER_STOP, RNIC_TIMER_LOSS, 0, 0, 0) == 0, fail, "");

	while (total < QPS - 1 && polls++ < 1000) {
		rnic_timer_svc_poll(svc, t + SEC);
		n = rte_ring_dequeue_burst_elem(small, ev, sizeof(ev[0]),
						1 + polls % 20, NULL);
		for (unsigned i = 0; i < n; i++) {
			VERIFY_GOTO(ev[i].qp < QPS && !seen[ev[i].qp], fail, "qp %u twice",
			       ev[i].qp);
			VERIFY_GOTO(ev[i].type == RNIC_TIMER_EXPIRED && ev[i].retry == 2, fail,
			       "qp %u: type %#x retry %u", ev[i].qp, ev[i].type,
			       ev[i].retry);
			seen[ev[i].qp]++;
		}
		total += n;
	}
	rnic_timer_svc_poll(svc, t + 2 * SEC);
	total += rte_ring_count(small);
	VERIFY_GOTO(total == QPS - 1, fail, "delivered %u of %u", total, QPS - 1);
	VERIFY_GOTO(!seen[STOPPED], fail, "stopped timer fired");
	VERIFY_GOTO(rnic_timer_svc_stats(svc, &st) == 0, fail, "stats");
	VERIFY_GOTO(st.expired == QPS - 1 && st.out_stalls > 0, fail,
	       "expired %" PRIu64 " stalls %" PRIu64, st.expired, st.out_stalls);
	printf("  %u expiries through a 15-slot ring in %u polls, %" PRIu64
	       " stalls\n", total, polls, st.out_stalls);
	rnic_timer_svc_free(svc);
	rte_ring_free(small);
	return 0;
fail:
	rnic_timer_svc_free(svc);
	rte_ring_free(small);
	empty_rings();
	return -1;
}

/* ------------------------------------------------------------------ */

static void
run(const char *name, int (*fn)(void))
{
	if (fn() == 0) {
		n_pass++;
		printf("PASS %s\n", name);
	} else {
		n_fail++;
		printf("FAIL %s\n", name);
	}
}

int
main(int argc, char **argv)
{
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ring_in = rte_ring_create_elem("timer_in", sizeof(struct rnic_timer_event),
				       1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	ring_out = rte_ring_create_elem("timer_out",
					sizeof(struct rnic_timer_event), 1024,
					SOCKET_ID_ANY, RING_F_SP_ENQ);
	if (ring_in == NULL || ring_out == NULL) {
		printf("ring create failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	printf("rng seed %#" PRIx64 "\n", rng_state);

	run("tw_bad_args", test_tw_bad_args);
	run("tw_single", test_tw_single);
	run("tw_stop", test_tw_stop);
	run("tw_restart", test_tw_restart);
	run("tw_cap", test_tw_cap);
	run("tw_wrap", test_tw_wrap);
	run("tw_long", test_tw_long);
	run("tw_jump", test_tw_jump);
	run("tw_hint", test_tw_hint);
	run("tw_many", test_tw_many);
	run("tw_model", test_tw_model);
	run("helpers", test_helpers);
	run("svc_bad_args", test_svc_bad_args);
	run("svc_set_stop_restart", test_svc_set_stop_restart);
	run("svc_countdown", test_svc_countdown);
	run("svc_out_full", test_svc_out_full);

	printf("%u passed, %u failed\n", n_pass, n_fail);
	rte_ring_free(ring_in);
	rte_ring_free(ring_out);
	rte_eal_cleanup();
	return n_fail == 0 ? 0 : 1;
}
