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
 * non-empty (seed 3.4.2.4.1), and only RX sends timer commands. TX
 * appends a burst of entries, publishes the tail (rnic_mq_publish), and
 * after a sequentially consistent fence (one for the QPs of a pass,
 * rnic_tx.c tx_settle) loads the head (rnic_mq_was_empty): when the list
 * was empty as far as it can see, it asks RX to arm. RX releases with
 * release stores, and before it decides that the list is empty (to let
 * the timer lapse) it issues a full fence and loads the tail
 * (rnic_mq_empty_sc). So one of them always sees the other, and a
 * non-empty list never sits without an armed timer.
 */
#ifndef RNIC_MQ_H
#define RNIC_MQ_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rnic_sync.h"
#include "rnic_types.h"
#include "rnic_wire.h"

/* Slots of an RC QP's MultiQueue, its window of unacknowledged packets:
 * four per send queue entry, at least RNIC_MQ_RC_MIN, at most this. */
#define RNIC_MQ_RC_SLOTS 512u
#define RNIC_MQ_RC_MIN 64u

enum rnic_mq_type {
	RNIC_MQ_SEND_WRITE,      /* SWPB */
	RNIC_MQ_READ,            /* RPB (the REB is the WQE's SGE list) */
	RNIC_MQ_ATOMIC,
	RNIC_MQ_BAD,             /* bad request kept for in-order completion */
};
#define RNIC_MQF_LAST 0x1        /* last packet of its WQE */
/* Selective repeat, set by RX: the responder has it (a SACK said so),
 * and: resent on a SACK (at the entry's sent clock) */
#define RNIC_MQF_SACKED 0x2
#define RNIC_MQF_SRESENT 0x4
/* Selective repeat, an atomic: its answer came while a request before it
 * waited for its own (the result is in the WQE's buffer already); it
 * completes when it reaches the head, and is never asked again */
#define RNIC_MQF_ANSWERED 0x8
/* Set by TX: the WQE asks for a completion (RNIC_SEND_SIGNALED). The
 * completer retires an unsignaled WQE without reading it again: at
 * thousands of QPs its line is long out of cache by the ACK. */
#define RNIC_MQF_SIGNALED 0x10

struct rnic_mq_ent {
	struct rte_mbuf *m;      /* one reference held by the list, or NULL */
	uint32_t psn;            /* first PSN of the packet */
	uint32_t wqe_idx;        /* SQ index (free-running) */
	uint32_t npsn : 24;      /* PSNs consumed (a READ: one per response, up
				  * to 2^31 / 256) */
	uint32_t type : 3;       /* enum rnic_mq_type */
	uint32_t flags : 5;      /* RNIC_MQF_* */
	uint32_t sent;           /* TX's clock when it was built (rnic_mq_stamp):
				  * the completer's RTT samples */
};
_Static_assert(sizeof(struct rnic_mq_ent) == 24, "a MultiQueue entry in 24 bytes");
_Static_assert(RNIC_INFLIGHT_MAX == RNIC_MQ_RC_SLOTS, "max_inflight fits any MultiQueue");

/* The MultiQueue's clock: the TSC in units of 2^RNIC_MQ_TS_SHIFT cycles
 * (about 25 ns at 2.5 GHz), 32 bits (wraps after minutes; an RTT is
 * far shorter). */
#define RNIC_MQ_TS_SHIFT 6
static inline uint32_t
rnic_mq_stamp(uint64_t tsc)
{
	return (uint32_t)(tsc >> RNIC_MQ_TS_SHIFT);
}

/*
 * The producer's half (TX writes it; RX reads ents, mask and tail) lives
 * in TX's cache line of the QP, the consumer's head in RX's ([MQ-HEAD]:
 * TX reads it only when the room it last saw, head_seen, has run out), as
 * DPDK's ring splits its producer and consumer.
 */
struct rnic_mq {
	struct rnic_mq_ent *ents;
	uint32_t mask;           /* slots - 1 (a power of two) */
	uint32_t limit;          /* entries TX may hold: min(slots, max_inflight) */
	uint32_t tail;           /* [MQ-TAIL] W: TX (rnic_mq_publish); R: RX */
	uint32_t tail_next;      /* TX: where the next entry goes (unpublished
				  * entries lie between tail and tail_next) */
	uint32_t head_seen;      /* TX: the head it last loaded */
	uint32_t *head;          /* [MQ-HEAD] the consumer's index (in RX's
				  * line); W: RX; R: TX, acquire */
};

/* TX: free slots. */
static inline uint32_t
rnic_mq_room(struct rnic_mq *mq)
{
	uint32_t room = mq->limit - (mq->tail_next - mq->head_seen);

	if (room == 0) {
		mq->head_seen = LOAD_ACQ(mq->head);   /* [MQ-HEAD] */
		room = mq->limit - (mq->tail_next - mq->head_seen);
	}
	return room;
}

/* TX: append @p e (room checked by the caller); RX sees it after
 * rnic_mq_publish. */
static inline void
rnic_mq_push(struct rnic_mq *mq, const struct rnic_mq_ent *e)
{
	mq->ents[mq->tail_next++ & mq->mask] = *e;
}

/*
 * TX: make the appended entries visible, once per burst (before their
 * packets can go out). Returns the tail before them, for [MQ-ARM]'s
 * check after a sequentially consistent fence (rnic_mq_was_empty).
 */
static inline uint32_t
rnic_mq_publish(struct rnic_mq *mq)
{
	uint32_t old = mq->tail;

	STORE_REL(&mq->tail, mq->tail_next);     /* [MQ-TAIL] */
	return old;
}

/* TX, after a sequentially consistent fence that follows the
 * rnic_mq_publish that returned @p old: whether the list was empty
 * before that publication as TX sees it, when the caller asks RX to arm
 * the loss timer ([MQ-ARM]). */
static inline bool
rnic_mq_was_empty(struct rnic_mq *mq, uint32_t old)
{
	mq->head_seen = LOAD_ACQ(mq->head);      /* [MQ-HEAD] */
	return mq->head_seen == old;
}

/* RX: the oldest entry, or NULL when none is outstanding. */
static inline struct rnic_mq_ent *
rnic_mq_head(struct rnic_mq *mq)
{
	if (*mq->head == LOAD_ACQ(&mq->tail))    /* [MQ-TAIL] */
		return NULL;
	return &mq->ents[*mq->head & mq->mask];
}

/* RX: the entry at free-running index @p i (between head and tail). */
static inline struct rnic_mq_ent *
rnic_mq_at(struct rnic_mq *mq, uint32_t i)
{
	return &mq->ents[i & mq->mask];
}

/* RX: release the head entry; returns the mbuf reference it held (or
 * NULL), which the caller now owns and frees. */
static inline struct rte_mbuf *
rnic_mq_pop(struct rnic_mq *mq)
{
	struct rnic_mq_ent *e = &mq->ents[*mq->head & mq->mask];
	struct rte_mbuf *m = e->m;

	e->m = NULL;
	STORE_REL(mq->head, *mq->head + 1);      /* [MQ-HEAD] */
	return m;
}

/* RX: true when nothing is outstanding, with [MQ-ARM]'s order: the
 * fence puts every earlier release of the head before the load. */
static inline bool
rnic_mq_empty_sc(const struct rnic_mq *mq)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return LOAD_SC(&mq->tail) == *mq->head;
}

/* RX: the last PSN handed to the wire, or false when nothing is
 * outstanding. */
static inline bool
rnic_mq_last_psn(struct rnic_mq *mq, uint32_t *psn)
{
	uint32_t tail = LOAD_ACQ(&mq->tail);     /* [MQ-TAIL] */
	const struct rnic_mq_ent *e;

	if (tail == *mq->head)
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

	for (uint32_t i = *mq->head; i != mq->tail; i++) {
		struct rnic_mq_ent *e = &mq->ents[i & mq->mask];

		freed += e->m != NULL;
		rte_pktmbuf_free(e->m);
		e->m = NULL;
	}
	*mq->head = mq->tail = mq->tail_next = mq->head_seen = 0;
	return freed;
}

#endif /* RNIC_MQ_H */
