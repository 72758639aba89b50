/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues: a ring of 32-byte work completions, each slot with a
 * sequence word ([CQ-SEQ], rnic_obj.h; pushed by rnic_cq_push_burst,
 * rnic_core.c). The TX lcore
 * (UC/UD, errors) and the RX lcore (RC, receives) both produce, the
 * application consumes. A full CQ is an overflow: the producing QP goes to
 * Error with an async event, as IBA 11.4.2.1 has it.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_verbs_pvt.h"

struct rnic_cq *
rnic_create_cq(struct rnic_device *dev, uint32_t cqe)
{
	struct rnic_cq *cq;
	uint32_t slots;

	if (dev == NULL || cqe == 0 || cqe > RNIC_MAX_CQE)
		return rnic_fail_null(EINVAL);
	if (RNIC_REMOTE(dev))
		return dev->ops->create_cq(dev, cqe);
	if (dev->n_cqs >= dev->attr.max_cqs)
		return rnic_fail_null(ENOSPC);
	slots = rte_align32pow2(cqe);
	cq = rnic_obj_zalloc("rnic_cq", sizeof(*cq));
	if (cq == NULL)
		return NULL;
	/* zeroed: no slot holds a position yet ([CQ-SEQ]: position 0 is 1) */
	cq->wc = rte_malloc_socket("rnic_cq_wc", (size_t)slots * sizeof(*cq->wc),
				   RTE_CACHE_LINE_SIZE, rte_socket_id());
	cq->seq = rte_zmalloc_socket("rnic_cq_seq", (size_t)slots * sizeof(*cq->seq),
				     RTE_CACHE_LINE_SIZE, rte_socket_id());
	cq->hint = rte_malloc_socket("rnic_cq_hint", (size_t)slots * sizeof(*cq->hint),
				     RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (cq->wc == NULL || cq->seq == NULL || cq->hint == NULL) {
		rte_free(cq->wc);   /* NULL is fine */
		rte_free(cq->seq);
		rte_free(cq->hint);
		rte_free(cq);
		return rnic_fail_null(ENOMEM);
	}
	cq->dev = dev;
	cq->mask = slots - 1;
	cq->depth = cqe;
	TAILQ_INSERT_TAIL(&dev->cqs, cq, next);
	dev->n_cqs++;
	return cq;
}

int
rnic_destroy_cq(struct rnic_cq *cq)
{
	if (cq == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->destroy_cq(cq);
	if (cq->refs)
		return -EBUSY;
	cq->dev->n_cqs--;
	TAILQ_REMOVE(&cq->dev->cqs, cq, next);
	rte_free(cq->wc);
	rte_free(cq->seq);
	rte_free(cq->hint);
	rte_free(cq);
	return 0;
}

/* [CQ-SEQ] the completions from ci on that their producers have written,
 * in order, up to @p n; ci moves past them once ([CQ-CI]). One consumer.
 * A send completion's hint goes to its QP's slot of the device's table
 * ([SQ-HINT]): the next post to the QP finds its room there. */
int
rnic_poll_cq(struct rnic_cq *cq, int n, struct rnic_wc *wc)
{
	uint32_t ci;
	int i;

	if (cq == NULL || n <= 0)
		return 0;
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->poll_cq(cq, n, wc);
	ci = LOAD_RLX(&cq->ci);
	for (i = 0; i < n; i++) {
		const uint32_t p = ci + (uint32_t)i, slot = p & cq->mask;
		uint64_t hint;

		if (LOAD_ACQ(&cq->seq[slot]) != p + 1)
			break;
		wc[i] = cq->wc[slot];
		hint = cq->hint[slot];   /* 0 for receives ([SQ-HINT]) */
		if (hint != 0)
			STORE_REL(&cq->dev->sq_hint[wc[i].qp_num & cq->dev->qp_mask], hint);
	}
	if (i != 0)
		STORE_REL(&cq->ci, ci + (uint32_t)i);
	return i;
}

/* Completions claimed by producers and not yet polled: each is written
 * within its producer's push, so "more than none" is what callers ask. */
unsigned int
rnic_cq_count(const struct rnic_cq *cq)
{
	if (cq == NULL)
		return 0;
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->cq_count(cq);
	return LOAD_ACQ(&cq->head) - LOAD_ACQ(&cq->ci);
}

bool
rnic_cq_overflowed(const struct rnic_cq *cq)
{
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->cq_overflowed(cq);
	return LOAD_ACQ(&cq->overflow) != 0;
}
