/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_send / post_recv: the doorbell path (rdma-core's order): validate
 * the WR, write the WQE into the queue memory, check for full, publish the
 * producer index with a release store, then ring the doorbell (seed 7.1.1)
 * on the TX lcore's ring. Only structural faults are refused here; what
 * needs the engine's tables (keys, bounds, opcode vs transport) is found
 * by the WQEParser and completes in order with an error status.
 */
#include <errno.h>

#include <rte_pause.h>

#include "rnic_pvt.h"

static int
send_state_ok(const struct rnic_qp *qp)
{
	switch (rnic_qp_state_get(qp)) {
	case RNIC_QPS_RTS:
	case RNIC_QPS_SQD:   /* queued until the QP returns to RTS */
	case RNIC_QPS_SQE:   /* flushed */
	case RNIC_QPS_ERR:   /* flushed (IBA 10.8.3.3) */
		return 1;
	default:
		return 0;
	}
}

static void
ring_doorbells(struct rnic_qp *qp, uint32_t start, uint32_t end)
{
	const uint32_t stride16 = qp->sq_stride / 16;
	const uint32_t per_db = RTE_MAX(255u / stride16, 1u);

	while (start != end) {
		uint32_t n = RTE_MIN(end - start, per_db);
		const struct rnic_wqe *w = rnic_sq_wqe(qp, start);
		uint64_t db = rnic_db_make(w->opcode, w->flags & RNIC_SEND_FENCE,
					   (start & qp->sq_mask) * stride16,
					   (uint8_t)(n * stride16), qp->qpn);

		/* Ring full: never drop a doorbell. Lcores drain it, so wait;
		 * with none (rnic_dev_set_polled false) this thread is the TX
		 * poller, so run the TX stage to make room instead of spinning
		 * forever. */
		while (rte_ring_mp_enqueue(qp->dev->db_ring, (void *)(uintptr_t)db) != 0) {
			if (!LOAD_ACQ(&qp->dev->polled))
				rnic_dev_poll_tx(qp->dev);
			else
				rte_pause();
		}
		start += n;
	}
}

int
rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr)
{
	uint32_t pi, start;
	int rc = 0;

	if (bad_wr != NULL)
		*bad_wr = wr;
	if (qp == NULL || wr == NULL)
		return -EINVAL;
	if (!send_state_ok(qp))
		return -EINVAL;
	pi = start = qp->sq_pi;
	for (; wr != NULL; wr = wr->next) {
		struct rnic_wqe *w;
		uint64_t total = 0;

		if ((unsigned int)wr->opcode >= RNIC_WR_MAX || wr->num_sge < 0 ||
		    (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL) ||
		    (qp->type == RNIC_QPT_UD && wr->wr.ud.ah == NULL)) {
			rc = -EINVAL;
			break;
		}
		if (pi - LOAD_ACQ(&qp->sq_done) >= qp->cap.max_send_wr) {
			rc = -ENOMEM;
			break;
		}
		for (int i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if ((wr->send_flags & RNIC_SEND_INLINE) && total > qp->cap.max_inline_data) {
			rc = -EINVAL;
			break;
		}
		w = rnic_sq_wqe(qp, pi);
		w->wr_id = wr->wr_id;
		w->opcode = (uint8_t)wr->opcode;
		w->flags = (uint8_t)wr->send_flags;
		if (qp->sq_sig_all)
			w->flags |= RNIC_SEND_SIGNALED;
		w->status = RNIC_WC_SUCCESS;
		/* Over 2^31 is a local length error found by the parser. */
		w->total_len = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
		w->imm = wr->imm_data;
		w->rkey = 0;
		w->remote_addr = 0;
		switch (wr->opcode) {
		case RNIC_WR_ATOMIC_CMP_AND_SWP:
		case RNIC_WR_ATOMIC_FETCH_AND_ADD:
			w->remote_addr = wr->wr.atomic.remote_addr;
			w->rkey = wr->wr.atomic.rkey;
			w->compare_add = wr->wr.atomic.compare_add;
			w->swap = wr->wr.atomic.swap;
			break;
		case RNIC_WR_SEND_WITH_INV:
			w->inv_rkey = wr->invalidate_rkey;
			break;
		default:
			w->remote_addr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
			break;
		}
		if (qp->type == RNIC_QPT_UD) {
			w->ah = wr->wr.ud.ah->attr;
			w->ud_qpn = wr->wr.ud.remote_qpn;
			w->ud_qkey = wr->wr.ud.remote_qkey;
		}
		if (wr->send_flags & RNIC_SEND_INLINE) {
			uint8_t *dst = (uint8_t *)w->sge;

			for (int i = 0; i < wr->num_sge; i++) {
				memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				dst += wr->sg_list[i].length;
			}
			w->num_sge = 0;
		} else {
			memcpy(w->sge, wr->sg_list, sizeof(struct rnic_sge) * wr->num_sge);
			w->num_sge = (uint8_t)wr->num_sge;
		}
		pi++;
	}
	if (pi != start) {
		STORE_REL(&qp->sq_pi, pi);
		ring_doorbells(qp, start, pi);
	}
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;   /* the first WR not posted */
	return rc;
}

int
rnic_post_recv(struct rnic_qp *qp, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr)
{
	uint32_t pi, start;
	int rc = 0;

	if (bad_wr != NULL)
		*bad_wr = wr;
	if (qp == NULL || wr == NULL)
		return -EINVAL;
	if (rnic_qp_state_get(qp) == RNIC_QPS_RESET || qp->cap.max_recv_wr == 0)
		return -EINVAL;
	pi = start = qp->rq_pi;
	for (; wr != NULL; wr = wr->next) {
		struct rnic_rwqe *r;
		uint64_t total = 0;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL)) {
			rc = -EINVAL;
			break;
		}
		if (pi - LOAD_ACQ(&qp->rq_ci) >= qp->cap.max_recv_wr) {
			rc = -ENOMEM;
			break;
		}
		for (int i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		r = rnic_rq_wqe(qp, pi);
		r->wr_id = wr->wr_id;
		r->num_sge = (uint32_t)wr->num_sge;
		r->total_len = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
		memcpy(r->sge, wr->sg_list, sizeof(struct rnic_sge) * wr->num_sge);
		pi++;
	}
	if (pi != start) {
		STORE_REL(&qp->rq_pi, pi);
		if (rnic_qp_state_get(qp) == RNIC_QPS_ERR)   /* flush them */
			rnic_qp_kick(qp);
	}
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;
	return rc;
}
