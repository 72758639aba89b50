/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device whose engine runs in another process (issue 20: an application
 * attached to a softrnic daemon, lib/attach). The verbs and engine entry
 * points an application calls check the device first and hand every call
 * on such a device, or on an object made on it, to these operations; the
 * engine in this process never sees those objects. An rdma-core provider's
 * context ops, in softrnic's terms.
 *
 * Objects of a remote device: its PDs and MRs are struct rnic_pd and
 * struct rnic_mr (dev, lkey and rkey filled in, so the field readers work
 * unchanged), its AHs struct rnic_ah_int; its CQs and QPs are the remote
 * layer's own types that begin, as struct rnic_cq and struct rnic_qp do,
 * with the device pointer (rnic_obj_dev).
 */
#ifndef RNIC_REMOTE_H
#define RNIC_REMOTE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rnic_types.h"

struct rnic_dev_ops {
	void (*dev_destroy)(struct rnic_device *dev);
	struct rnic_pd *(*alloc_pd)(struct rnic_device *dev);
	int (*dealloc_pd)(struct rnic_pd *pd);
	struct rnic_mr *(*reg_mr)(struct rnic_pd *pd, void *addr, uint64_t length, uint64_t iova,
				  int access);
	int (*dereg_mr)(struct rnic_mr *mr);
	struct rnic_cq *(*create_cq)(struct rnic_device *dev, uint32_t cqe);
	int (*destroy_cq)(struct rnic_cq *cq);
	int (*poll_cq)(struct rnic_cq *cq, int n, struct rnic_wc *wc);
	unsigned int (*cq_count)(const struct rnic_cq *cq);
	bool (*cq_overflowed)(const struct rnic_cq *cq);
	struct rnic_qp *(*create_qp)(struct rnic_pd *pd, struct rnic_qp_init_attr *attr);
	int (*destroy_qp)(struct rnic_qp *qp);
	uint32_t (*qp_num)(const struct rnic_qp *qp);
	int (*modify_qp)(struct rnic_qp *qp, struct rnic_qp_attr *attr, int mask);
	int (*query_qp)(struct rnic_qp *qp, struct rnic_qp_attr *attr, int mask,
			struct rnic_qp_init_attr *init_attr);
	int (*post_send)(struct rnic_qp *qp, struct rnic_send_wr *wr,
			 struct rnic_send_wr **bad_wr);
	int (*post_recv)(struct rnic_qp *qp, struct rnic_recv_wr *wr,
			 struct rnic_recv_wr **bad_wr);
	struct rnic_ah *(*create_ah)(struct rnic_pd *pd, const struct rnic_ah_attr *attr);
	int (*destroy_ah)(struct rnic_ah *ah);
	int (*get_async_event)(struct rnic_device *dev, struct rnic_async_event *ev);
	void (*stats_get)(const struct rnic_device *dev, struct rnic_dev_stats *st);
	int (*resolve_gid)(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6],
			   unsigned int timeout_ms);
};

/* The device of a CQ or QP, local or remote: both kinds of object begin
 * with it (read as bytes, whichever type the object really has). */
static inline struct rnic_device *
rnic_obj_dev(const void *obj)
{
	struct rnic_device *dev;

	memcpy(&dev, obj, sizeof(dev));
	return dev;
}

#endif /* RNIC_REMOTE_H */
