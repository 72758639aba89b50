/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MultiQueue (seed 3.4.3): per QP, the list of unacknowledged request
 * packets in PSN order, typed as the seed's buffers (SWPB: SEND/WRITE
 * packets, RPB: READ requests and atomics; the REB is the READ WQE's own
 * SGE list, stable until completion). Each entry holds one mbuf reference,
 * no payload copy, so go-back-N resends the very packet.
 *
 * One writer per index: the TX role appends at the tail ([MQ-TAIL]), the
 * RX role (completer) releases at the head ([MQ-HEAD]); the entries
 * between head and tail belong to RX, the free ones to TX.
 *
 * [MQ-ARM] The loss timer is armed when the list goes from empty to
 * non-empty (seed 3.4.2.4.1), and only RX sends timer commands: TX stores
 * the tail then loads the head (rnic_mq_push), RX stores the head (on a
 * release) and, when it finds work, loads the tail; both sequentially
 * consistent, so one of them always sees the other and a non-empty list
 * never sits without an armed timer: TX asks RX to arm when the list it
 * appended to was empty as far as it could see.
 */
#ifndef RNIC_MQ_H
#define RNIC_MQ_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rnic_sync.h"
#include "rnic_wire.h"

/* Slots of an RC QP's MultiQueue: its window of unacknowledged packets. */
#define RNIC_MQ_RC_SLOTS 512

enum rnic_mq_type {
	RNIC_MQ_SEND_WRITE,      /* SWPB */
	RNIC_MQ_READ,            /* RPB (the REB is the WQE's SGE list) */
	RNIC_MQ_ATOMIC,
	RNIC_MQ_BAD,             /* bad request kept for in-order completion */
};
#define RNIC_MQF_LAST 0x1        /* last packet of its WQE */

struct rnic_mq_ent {
	struct rte_mbuf *m;      /* one reference held by the list, or NULL */
	uint32_t psn;            /* first PSN of the packet */
	uint32_t wqe_idx;        /* SQ index (free-running) */
	uint16_t npsn;           /* PSNs consumed (READ: responses) */
	uint8_t type;            /* enum rnic_mq_type */
	uint8_t flags;           /* RNIC_MQF_* */
};

/*
 * The producer's line (TX writes it; RX reads ents, mask and tail) and
 * the consumer's (RX writes head; TX reads it only when the room it last
 * saw, head_seen, has run out), as DPDK's ring splits them.
 */
struct rnic_mq {
	struct rnic_mq_ent *ents;
	uint32_t mask;           /* slots - 1 (a power of two) */
	uint32_t tail;           /* [MQ-TAIL] W: TX; R: RX, acquire */
	uint32_t head_seen;      /* TX: the head it last loaded */
	uint32_t head __rte_cache_aligned;  /* [MQ-HEAD] W: RX; R: TX, acquire */
} __rte_cache_aligned;

/* TX: free slots. */
static inline uint32_t
rnic_mq_room(struct rnic_mq *mq)
{
	uint32_t room = mq->mask + 1 - (mq->tail - mq->head_seen);

	if (room == 0) {
		mq->head_seen = LOAD_ACQ(&mq->head);   /* [MQ-HEAD] */
		room = mq->mask + 1 - (mq->tail - mq->head_seen);
	}
	return room;
}

/*
 * TX: append @p e (room checked by the caller). Returns true when the list
 * was empty as TX saw it: the caller then asks RX to arm the loss timer
 * ([MQ-ARM]).
 */
static inline bool
rnic_mq_push(struct rnic_mq *mq, const struct rnic_mq_ent *e)
{
	mq->ents[mq->tail & mq->mask] = *e;
	STORE_SC(&mq->tail, mq->tail + 1);       /* [MQ-TAIL] [MQ-ARM] */
	return LOAD_SC(&mq->head) == mq->tail - 1;
}

/* RX: the oldest entry, or NULL when none is outstanding. */
static inline struct rnic_mq_ent *
rnic_mq_head(struct rnic_mq *mq)
{
	if (mq->head == LOAD_ACQ(&mq->tail))     /* [MQ-TAIL] */
		return NULL;
	return &mq->ents[mq->head & mq->mask];
}

/* RX: the entry at free-running index @p i (between head and tail). */
static inline struct rnic_mq_ent *
rnic_mq_at(struct rnic_mq *mq, uint32_t i)
{
	return &mq->ents[i & mq->mask];
}

/* RX: release the head entry. Returns true when it held an mbuf. */
static inline bool
rnic_mq_pop(struct rnic_mq *mq)
{
	struct rnic_mq_ent *e = &mq->ents[mq->head & mq->mask];
	bool held = e->m != NULL;

	if (held) {
		rte_pktmbuf_free(e->m);
		e->m = NULL;
	}
	STORE_SC(&mq->head, mq->head + 1);       /* [MQ-HEAD] [MQ-ARM] */
	return held;
}

/* RX: true when nothing is outstanding, as seen with [MQ-ARM]'s order. */
static inline bool
rnic_mq_empty_sc(const struct rnic_mq *mq)
{
	return LOAD_SC(&mq->tail) == mq->head;
}

/* RX: the last PSN handed to the wire, or false when nothing is
 * outstanding. */
static inline bool
rnic_mq_last_psn(struct rnic_mq *mq, uint32_t *psn)
{
	uint32_t tail = LOAD_ACQ(&mq->tail);     /* [MQ-TAIL] */
	const struct rnic_mq_ent *e;

	if (tail == mq->head)
		return false;
	e = &mq->ents[(tail - 1) & mq->mask];
	*psn = rnic_psn_add(e->psn, e->npsn ? e->npsn - 1u : 0u);
	return true;
}

/* Control thread, the data path quiesced: free every entry. Returns the
 * number of mbufs released. */
static inline uint64_t
rnic_mq_release_all(struct rnic_mq *mq)
{
	uint64_t freed = 0;

	for (uint32_t i = mq->head; i != mq->tail; i++) {
		struct rnic_mq_ent *e = &mq->ents[i & mq->mask];

		freed += e->m != NULL;
		rte_pktmbuf_free(e->m);
		e->m = NULL;
	}
	mq->head = mq->tail = mq->head_seen = 0;
	return freed;
}

#endif /* RNIC_MQ_H */
