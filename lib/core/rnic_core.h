/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core layer: the objects of a device and their single-writer state,
 * shared by the control path (lib/verbs) and the data path (lib/engine),
 * which never call each other. Split by concern:
 *   rnic_sync.h    memory-order helpers and the tag convention
 *   rnic_obj.h     PD, MR, AH, CQ, keys and the memory check
 *   rnic_sq.h      send/receive queue entries and the doorbell
 *   rnic_mq.h      the MultiQueue (unacknowledged packets)
 *   rnic_qplist.h  the QP work list of an engine role
 *   rnic_qp.h      the QP, its state by writer
 *   rnic_dev.h     the device, its state by role
 */
#ifndef RNIC_CORE_H
#define RNIC_CORE_H

#include <rte_log.h>

#include "rnic_dev.h"
#include "rnic_mq.h"
#include "rnic_obj.h"
#include "rnic_qp.h"
#include "rnic_qplist.h"
#include "rnic_sq.h"
#include "rnic_sync.h"
#include "rnic_types.h"

/* Log through @p type with the "softrnic: " prefix. */
#define RNIC_LOG_T(type, level, fmt, ...) \
	rte_log(RTE_LOG_##level, (type), "softrnic: " fmt "\n", ##__VA_ARGS__)

extern int rnic_core_logtype;

/* A number of the calling thread, never 0 and never another thread's
 * (rnic_thread_self): given on its first call */
extern __thread uint32_t rnic_thread_num;
/* The CPU has CLDEMOTE (RNIC_DEMOTE does something) */
extern bool rnic_cpu_demote;
uint32_t rnic_thread_num_new(void);

static inline uint32_t
rnic_thread_self(void)
{
	uint32_t t = rnic_thread_num;

	return likely(t != 0) ? t : rnic_thread_num_new();
}

/* [DB] The TX role takes a doorbell for @p qp of worker @p w: owed to the
 * application until the QP's SQ is found empty (rnic_qp_db_settle), the
 * QP on the WQEScheduler's active list. The TX role does it for each
 * doorbell off the ring (rnic_tx.c doorbell_process); a post does it
 * itself where the posting thread is the TX role's ([POLLED],
 * rnic_post.c ring_doorbell). */
static inline void
rnic_qp_db_take(struct rnic_worker *w, struct rnic_qp *qp, bool alone)
{
	if (unlikely(qp->req.db_owed == UINT8_MAX))
		rnic_qp_db_settle(qp, alone);
	qp->req.db_owed++;
	w->tx.st.doorbells++;
	rnic_qp_list_add(&w->tx.active, qp, &qp->req.scheduled);
}

#endif /* RNIC_CORE_H */
