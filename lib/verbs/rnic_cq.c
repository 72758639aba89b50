/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues: an rte_ring of 32-byte work completions. The TX lcore
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
	static uint32_t seq;
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *ring;
	struct rnic_cq *cq;

	if (dev == NULL || cqe == 0 || cqe > RNIC_MAX_CQE)
		return rnic_fail_null(EINVAL);
	if (RNIC_REMOTE(dev))
		return dev->ops->create_cq(dev, cqe);
	if (dev->n_cqs >= dev->attr.max_cqs)
		return rnic_fail_null(ENOSPC);
	snprintf(name, sizeof(name), "rnic_cq%u_%u", dev->port_id,
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	ring = rte_ring_create_elem(name, sizeof(struct rnic_wc), cqe, rte_socket_id(),
				    RING_F_SC_DEQ | RING_F_EXACT_SZ);
	cq = ring != NULL ? rnic_obj_zalloc("rnic_cq", sizeof(*cq)) : NULL;
	if (cq == NULL) {
		rte_ring_free(ring);   /* NULL is fine */
		return NULL;
	}
	*cq = (struct rnic_cq){ .dev = dev, .ring = ring, .depth = cqe };
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
	rte_ring_free(cq->ring);
	rte_free(cq);
	return 0;
}

int
rnic_poll_cq(struct rnic_cq *cq, int n, struct rnic_wc *wc)
{
	if (cq == NULL || n <= 0)
		return 0;
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->poll_cq(cq, n, wc);
	return (int)rte_ring_sc_dequeue_burst_elem(cq->ring, wc, sizeof(*wc),
						   (unsigned int)n, NULL);
}

unsigned int
rnic_cq_count(const struct rnic_cq *cq)
{
	if (cq == NULL)
		return 0;
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->cq_count(cq);
	return rte_ring_count(cq->ring);
}

bool
rnic_cq_overflowed(const struct rnic_cq *cq)
{
	if (RNIC_REMOTE(rnic_obj_dev(cq)))
		return rnic_obj_dev(cq)->ops->cq_overflowed(cq);
	return LOAD_ACQ(&cq->overflow) != 0;
}
