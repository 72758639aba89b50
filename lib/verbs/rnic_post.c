/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_send / post_recv: the doorbell path (rdma-core's order): validate
 * the WR, write the WQE into the queue memory, check for full, publish the
 * producer index (the doorbell record), then ring the doorbell (seed
 * 7.1.1) on the TX role's ring if the TX role might otherwise not look.
 * Only structural faults are refused here; what needs the engine's tables
 * (keys, bounds, opcode vs transport) is found by the WQEParser and
 * completes in order with an error status. Nothing here waits for, or
 * runs, the engine.
 */
#include <errno.h>

#include <rte_ring.h>

#include "rnic_verbs_pvt.h"

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

/*
 * [DB] Publish the doorbell record (sq_pi = @p end), then ring a doorbell
 * unless one for this QP is still queued or being worked on: the TX role
 * reads sq_pi until it finds the QP's SQ empty, and only then says it
 * took the doorbell (db_seen, rnic_tx.c tx_settle), so a doorbell not
 * yet told of covers these WQEs too. Both sides store then load,
 * sequentially consistent (app: sq_pi then db_seen; TX: db_seen of a
 * pass's idle QPs, one fence, then their sq_pi), so either this thread
 * sees the doorbell told of and rings
 * again, or TX sees the new sq_pi and goes on with the QP. At most one
 * doorbell per QP is ever queued, and the ring has a slot per QP. True
 * when it rang one (or found the ring full and said so, [DB-LOST]).
 *
 * On a device no lcore polls ([POLLED]: the application polls it by
 * hand, from the thread that posts) the TX role runs in this thread, in
 * its program order: no fences (the sequentially consistent store
 * drained this post's WQE stores), and no ring either: this thread does
 * what TX does with a doorbell it takes off the ring (doorbell_process),
 * the QP onto its worker's active list, the doorbell owed
 * (doc/benchmarks.md: ring 64 B on the main lcore, the memif client).
 */
static bool
ring_doorbell(struct rnic_qp *qp, uint32_t start, uint32_t end)
{
	const uint32_t stride16 = qp->sq_stride / RNIC_WQE_UNIT;
	const struct rnic_wqe *w = rnic_sq_wqe(qp, start);
	uint32_t n = RTE_MIN(end - start, RNIC_DB_SIZE_MAX / stride16);
	uint64_t db;

	if (unlikely(!LOAD_RLX(&qp->dev->polled))) {   /* [POLLED] */
		STORE_REL(&qp->app.sq_pi, end);   /* [SQ-PI] */
		if ((int32_t)(qp->app.db_rung - LOAD_RLX(&qp->app.db_seen)) > 0)
			return false;   /* the owed doorbell covers them */
		qp->app.db_rung++;
		rnic_qp_db_take(qp->w, qp, true);
		RNIC_TRACE(RNIC_TP_DOORBELL, 1);
		return true;
	}
	STORE_SC(&qp->app.sq_pi, end);                         /* [SQ-PI] [DB] */
	if ((int32_t)(qp->app.db_rung - LOAD_SC(&qp->app.db_seen)) > 0)   /* [DB] */
		return false;   /* the queued doorbell covers them */
	db = rnic_db_make(w->opcode, w->flags & RNIC_SEND_FENCE,
			  (start & qp->sq_mask) * stride16, (uint8_t)(n * stride16), qp->qpn);
	if (rte_ring_mp_enqueue(qp->w->db_ring, (void *)(uintptr_t)db) != 0) {
		/* Only after a failed quiesce left stale doorbells: TX then
		 * looks at every QP ([DB-LOST]). */
		__atomic_fetch_add(&qp->w->db_lost, 1, __ATOMIC_RELEASE);
		return true;
	}
	qp->app.db_rung++;
	return true;
}

/*
 * Room for an entry at @p pi in a queue of @p depth entries whose
 * consumer index is *@p ci: the value last loaded (*@p seen) is loaded
 * again only when the queue looks full, so posting does not pull the
 * completer's cache line ([SQ-DONE], [RQ-CI]).
 */
static bool
q_room(uint32_t pi, uint32_t depth, const uint32_t *ci, uint32_t *seen)
{
	if (pi - *seen < depth)
		return true;
	*seen = LOAD_ACQ(ci);
	return pi - *seen < depth;
}

/*
 * Room in the send queue for a WQE at @p pi. Where the queue looks full,
 * the send completions the application polled tell first ([SQ-HINT]:
 * the consumer index after the last of them, if it is of this life of
 * the QP and newer than the one known), and only then the completer's
 * sq_done: a posting thread that keeps the queue full then reads its
 * own completions, not the line the completer writes for each (ring
 * 64 B and 16384 QPs, doc/benchmarks.md).
 */
static bool
sq_room(struct rnic_qp *qp, uint32_t pi)
{
	const uint32_t depth = qp->attr.cap.max_send_wr;
	uint64_t h;

	if (pi - qp->app.sq_done_seen < depth)
		return true;
	h = LOAD_ACQ(&qp->dev->sq_hint[qp->index]);   /* [SQ-HINT] */
	if ((uint32_t)(h >> 32) == qp->life &&
	    (int32_t)((uint32_t)h - qp->app.sq_done_seen) > 0) {
		qp->app.sq_done_seen = (uint32_t)h;
		if (pi - qp->app.sq_done_seen < depth)
			return true;
	}
	return q_room(pi, depth, &qp->comp.sq_done, &qp->app.sq_done_seen);
}

/* Structural checks of a send WR; the engine's WQEParser does the rest. */
static int
send_wr_check(const struct rnic_qp *qp, const struct rnic_send_wr *wr, uint64_t *total)
{
	if ((unsigned int)wr->opcode >= RNIC_WR_MAX || wr->num_sge < 0 ||
	    (uint32_t)wr->num_sge > qp->attr.cap.max_send_sge ||
	    (wr->num_sge > 0 && wr->sg_list == NULL) ||
	    (qp->type == RNIC_QPT_UD && wr->wr.ud.ah == NULL))
		return -EINVAL;
	*total = 0;
	for (int i = 0; i < wr->num_sge; i++)
		*total += wr->sg_list[i].length;
	if ((wr->send_flags & RNIC_SEND_INLINE) && *total > qp->attr.cap.max_inline_data)
		return -EINVAL;
	return 0;
}

/* SGEs of MRs registered with an IOVA other than their address: to where
 * the bytes are (rnic_mr_local); nothing to do while the device has none. */
static inline void
sges_local(const struct rnic_qp *qp, struct rnic_sge *sge, uint32_t n)
{
	if (__atomic_load_n(&qp->dev->iova_mrs, __ATOMIC_ACQUIRE) == 0)
		return;
	for (uint32_t i = 0; i < n; i++)
		sge[i].addr = rnic_mr_local(qp->dev, sge[i].lkey, sge[i].addr, sge[i].length);
}

/* The remote side of a WQE: address, key, operands, UD destination. */
static void
wqe_fill_remote(const struct rnic_qp *qp, struct rnic_wqe *w, const struct rnic_send_wr *wr)
{
	w->rkey = 0;
	w->remote_addr = 0;
	switch (wr->opcode) {
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		if (qp->type == RNIC_QPT_RC) {   /* elsewhere the WQEParser's error */
			rnic_wqe_ext(qp, w)->atomic.compare_add = wr->wr.atomic.compare_add;
			rnic_wqe_ext(qp, w)->atomic.swap = wr->wr.atomic.swap;
		}
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
		struct rnic_wqe_ext *x = rnic_wqe_ext(qp, w);

		x->ud.ah = wr->wr.ud.ah->attr;
		x->ud.qpn = wr->wr.ud.remote_qpn;
		x->ud.qkey = wr->wr.ud.remote_qkey;
	}
}

/* Write @p wr into send queue slot @p idx. */
static void
wqe_fill(const struct rnic_qp *qp, uint32_t idx, const struct rnic_send_wr *wr,
	 uint64_t total)
{
	struct rnic_wqe *w = rnic_sq_wqe(qp, idx);

	w->wr_id = wr->wr_id;
	w->opcode = (uint8_t)wr->opcode;
	w->flags = (uint8_t)wr->send_flags;
	if (qp->sq_sig_all)
		w->flags |= RNIC_SEND_SIGNALED;
	w->status = RNIC_WC_SUCCESS;
	/* Over 2^31 is a local length error found by the parser. */
	w->total_len = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	w->imm = wr->imm_data;
	wqe_fill_remote(qp, w, wr);
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
		sges_local(qp, w->sge, w->num_sge);
	}
}

/*
 * The send queue slots [@p start, @p end) were just written with a
 * doorbell, or just after one, on another thread than the TX role's: the
 * TX role reads them only once it has taken the doorbell and reached the
 * QP on its list, so their lines go to the cache the CPUs share
 * (RNIC_DEMOTE), where it finds them without a snoop of this CPU. In-run
 * A/B (doc/benchmarks.md): the doorbell's own WQEs 16384 QPs 1.021x,
 * 1.022x and 1.012x, ring 64 B 1.005x, 1.002x and 1.001x; those of the
 * posts up to DEMOTE_AFTER_RING WQEs after it too (rnic-perf posts a WR
 * a call: a window of 4 is four posts, the first rings), against the
 * doorbell's alone, 16384 QPs 1.025x and 1.030x, ring 64 B 1.000x and
 * 1.016x. Not later posts while the doorbell is owed: the TX role is
 * then working through this send queue and reads the slots at once
 * (every post's WQEs demoted: 1.04x at 16384 QPs, but at ring 64 B 1.04x
 * in one half hour and 0.95-0.98x in the next). Not when this thread
 * runs the TX role itself, which would then read them from the shared
 * cache instead of its own (0.64x). Not on CPUs without CLDEMOTE, where
 * it is a NOP (valgrind's CPU does not decode it).
 */
#define DEMOTE_AFTER_RING 4

static void
sq_demote(const struct rnic_qp *qp, uint32_t start, uint32_t end)
{
	for (uint32_t k = start; k != end; k++) {
		uintptr_t w = (uintptr_t)rnic_sq_wqe(qp, k);

		for (uintptr_t l = RTE_ALIGN_FLOOR(w, RTE_CACHE_LINE_SIZE); l < w + qp->sq_stride;
		     l += RTE_CACHE_LINE_SIZE)
			RNIC_DEMOTE(l);
	}
}

/* Write the WRs from *@p wrp on; *@p wrp is left at the first not posted. */
static int
post_send_list(struct rnic_qp *qp, struct rnic_send_wr **wrp)
{
	uint32_t start = qp->app.sq_pi, pi = start;
	struct rnic_send_wr *wr;
	int rc = 0;

	for (wr = *wrp; wr != NULL; wr = wr->next) {
		uint64_t total;

		rc = send_wr_check(qp, wr, &total);
		if (rc == 0 && !sq_room(qp, pi))
			rc = -ENOMEM;
		if (rc != 0)
			break;
		wqe_fill(qp, pi++, wr, total);
	}
	if (pi != start) {
		bool rang = ring_doorbell(qp, start, pi);

		if (rang)
			qp->app.ring_pi = start;
		if (rnic_cpu_demote && (rang || pi - qp->app.ring_pi <= DEMOTE_AFTER_RING) &&
		    LOAD_RLX(&qp->w->tx_thread) != rnic_thread_self())   /* [TX-THREAD] */
			sq_demote(qp, start, pi);
	}
	*wrp = wr;
	return rc;
}

int
rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr)
{
	int rc = -EINVAL;

	RNIC_TRACE(RNIC_TP_POST, 0);
	if (qp != NULL && RNIC_REMOTE(rnic_obj_dev(qp)))
		return rnic_obj_dev(qp)->ops->post_send(qp, wr, bad_wr);
	if (qp != NULL && wr != NULL && send_state_ok(qp))
		rc = post_send_list(qp, &wr);
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;   /* the first WR not posted */
	return rc;
}

/* As post_send_list, for the receive queue. */
static int
post_recv_list(struct rnic_qp *qp, struct rnic_recv_wr **wrp)
{
	uint32_t start = qp->app.rq_pi, pi = start;
	struct rnic_recv_wr *wr;
	int rc = 0;

	for (wr = *wrp; wr != NULL; wr = wr->next) {
		struct rnic_rwqe *r;
		uint64_t total = 0;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->attr.cap.max_recv_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL))
			rc = -EINVAL;
		else if (!q_room(pi, qp->attr.cap.max_recv_wr, &qp->resp.rq_ci, &qp->app.rq_ci_seen))
			rc = -ENOMEM;
		if (rc != 0)
			break;
		for (int i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		r = rnic_rq_wqe(qp, pi++);
		r->wr_id = wr->wr_id;
		r->num_sge = (uint32_t)wr->num_sge;
		r->total_len = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
		memcpy(r->sge, wr->sg_list, sizeof(struct rnic_sge) * wr->num_sge);
		sges_local(qp, r->sge, (uint32_t)wr->num_sge);
	}
	if (pi != start) {
		STORE_REL(&qp->app.rq_pi, pi);   /* [RQ-PI] */
		if (rnic_qp_state_get(qp) == RNIC_QPS_ERR)   /* flush them */
			rnic_qp_kick(qp);
	}
	*wrp = wr;
	return rc;
}

int
rnic_post_recv(struct rnic_qp *qp, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr)
{
	int rc = -EINVAL;

	if (qp != NULL && RNIC_REMOTE(rnic_obj_dev(qp)))
		return rnic_obj_dev(qp)->ops->post_recv(qp, wr, bad_wr);
	if (qp != NULL && wr != NULL && rnic_qp_state_get(qp) != RNIC_QPS_RESET &&
	    qp->attr.cap.max_recv_wr != 0)
		rc = post_recv_list(qp, &wr);
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;
	return rc;
}
