/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IMPAIR_PVT_H
#define IMPAIR_PVT_H

/*
 * The impairment engine: per-packet decisions of one direction of one
 * queue, independent of ethdev. rnic_eth_impair.c feeds it bursts and
 * forwards what it emits.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rnic_eth_impair.h"

/* Packets taken from the application or the underlying port at once. */
#define IMPAIR_BURST 32
/* Most packets one rnic_impair_engine_run() of IMPAIR_BURST inputs can emit:
 * each input and its copy, plus every packet held before the call. */
#define IMPAIR_OUT_MAX (2 * IMPAIR_BURST + RNIC_IMPAIR_MAX_DEPTH)

#define IMPAIR_DEFAULT_DEPTH 4
#define IMPAIR_DEFAULT_IDLE 16
#define IMPAIR_DEFAULT_SEED 1

/* xorshift64* (state never 0): the upper 32 bits of each output are the
 * draw. The engine's decisions and the bottleneck's marking use it. */
static inline uint32_t
rnic_impair_xorshift(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32);
}

/*
 * One direction's program. Written by the control path (probe,
 * rnic_impair_set_params/set_hook); read by the polling lcores, which
 * notice a new program through gen (see the thread-safety note in
 * rnic_eth_impair.h).
 */
struct impair_cfg {
	struct rnic_impair_params p;   /* as given; p.drop_pkts -> drop_pkts */
	uint64_t drop_thr;             /* probabilities scaled to 2^32 */
	uint64_t dup_thr;
	uint64_t reorder_thr;
	uint64_t corrupt_thr;
	uint64_t drop_pkts[RNIC_IMPAIR_MAX_DROP_PKTS]; /* sorted, unique */
	rnic_impair_hook_t hook;
	void *hook_arg;
	uint32_t gen;                  /* bumped on every new program */
};

struct impair_held {
	struct rte_mbuf *m;
	uint16_t left;                 /* later packets before release */
};

/* One direction of one queue; written only by the lcore polling it. */
struct impair_engine {
	uint64_t rng;                  /* xorshift64* state, never 0 */
	uint64_t pkt_no;               /* last packet number given */
	uint64_t stream;               /* mixes dir and queue into the seed */
	uint32_t gen;                  /* program this engine runs */
	uint32_t idle;                 /* consecutive polls with no packet */
	uint16_t drop_idx;             /* next drop_pkts entry to match */
	uint16_t nb_held;
	struct impair_held held[RNIC_IMPAIR_MAX_DEPTH]; /* oldest first */
	struct rnic_impair_counts cnt; /* cnt.held is not kept here */
};

/* Validate @p p and load it into @p c as a new program (bumps c->gen). */
int rnic_impair_cfg_load(struct impair_cfg *c,
			 const struct rnic_impair_params *p);

/* Defaults: nothing impaired. */
void rnic_impair_cfg_init(struct impair_cfg *c);

void rnic_impair_engine_init(struct impair_engine *e,
			     const struct impair_cfg *c, int dir,
			     uint16_t qid);

/* Impair n <= IMPAIR_BURST packets; writes up to IMPAIR_OUT_MAX to out. */
uint16_t rnic_impair_engine_run(struct impair_engine *e,
				const struct impair_cfg *c,
				struct rte_mbuf **in, uint16_t n,
				struct rte_mbuf **out);

/* Count one poll that brought no packet; after reorder_idle of them in a
 * row, release every held packet. Writes up to RNIC_IMPAIR_MAX_DEPTH. */
uint16_t rnic_impair_engine_idle(struct impair_engine *e,
				 const struct impair_cfg *c,
				 struct rte_mbuf **out);

/* Release every held packet now (oldest first). */
uint16_t rnic_impair_engine_release(struct impair_engine *e,
				    struct rte_mbuf **out);

/* Free every held packet; returns how many. */
uint16_t rnic_impair_engine_discard(struct impair_engine *e);

#endif /* IMPAIR_PVT_H */
