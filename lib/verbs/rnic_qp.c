/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP objects and the QP state machine of IBA 10.3 (seed 002): Reset, Init,
 * RTR, RTS, SQD, SQE, Error. Each transition has the attributes it requires
 * and the ones it allows (IBA table 91, per service type); anything else
 * fails with -EINVAL and leaves the QP as it was.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_verbs_pvt.h"

static uint32_t qp_new_life(struct rnic_device *dev);

static void qp_build_l2(struct rnic_qp *qp);

/* The worker with the fewest QPs (the lowest numbered of equals). */
static uint16_t
least_loaded(const struct rnic_device *dev)
{
	uint16_t best = 0;

	for (uint16_t w = 1; w < dev->n_workers; w++)
		if (dev->workers[w].n_qps < dev->workers[best].n_qps)
			best = w;
	return best;
}

/*
 * A free QPN, from next_qpn on, that maps to the least loaded worker
 * (rnic_qpn_worker): workers stay balanced as QPs come and go. Failing
 * that (the worker's slots all taken by explicit QPNs), any free one.
 */
static int
qpn_pick(struct rnic_device *dev, uint32_t *qpn)
{
	const uint32_t span = (dev->qp_mask + 2u) * dev->n_workers;
	uint16_t want = least_loaded(dev);

	for (int any = 0; any < 2; any++) {
		for (uint32_t tries = 0; tries <= span; tries++) {
			uint32_t q = dev->next_qpn++ & RNIC_PSN_MASK;

			if (q < RNIC_FIRST_QPN || (!any && rnic_qpn_worker(dev, q) != want))
				continue;
			if (dev->qps[q & dev->qp_mask] == NULL) {
				*qpn = q;
				return 0;
			}
		}
	}
	return -ENOSPC;
}

struct rnic_qp *
rnic_create_qp(struct rnic_pd *pd, struct rnic_qp_init_attr *ia)
{
	struct rnic_device *dev;
	struct rnic_qp *qp;
	uint32_t qpn, slots, stride, mq;

	if (pd != NULL && ia != NULL && RNIC_REMOTE(pd->dev))
		return pd->dev->ops->create_qp(pd, ia);
	if (pd == NULL || ia == NULL || ia->send_cq == NULL || ia->recv_cq == NULL ||
	    (ia->qp_type != RNIC_QPT_RC && ia->qp_type != RNIC_QPT_UC &&
	     ia->qp_type != RNIC_QPT_UD) ||
	    ia->cap.max_send_wr == 0 || ia->cap.max_send_wr > 65536 ||
	    ia->cap.max_recv_wr > 65536 || ia->cap.max_send_sge > 32 ||
	    ia->cap.max_recv_sge > 32 || ia->cap.max_inline_data > 1024 ||
	    ia->qp_num > RNIC_PSN_MASK || (ia->qp_num == 1 && ia->qp_type != RNIC_QPT_UD))
		return rnic_fail_null(EINVAL);
	dev = pd->dev;
	/* The table has a power-of-two number of slots; max_qps is the limit. */
	if (dev->n_qps >= dev->attr.max_qps) {
		RNIC_LOG(DEBUG, "port %u: create_qp refused: max_qps (%u) QPs exist",
			 dev->port_id, dev->attr.max_qps);
		rte_errno = ENOSPC;
		return NULL;
	}
	if (ia->qp_num != 0) {
		qpn = ia->qp_num;
		if (dev->qps[qpn & dev->qp_mask] != NULL)
			return rnic_fail_null(EEXIST);
	} else if (qpn_pick(dev, &qpn) != 0) {
		return rnic_fail_null(ENOSPC);
	}
	qp = rte_zmalloc("rnic_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL)
		return rnic_fail_null(ENOMEM);
	qp->dev = dev;
	qp->w = &dev->workers[rnic_qpn_worker(dev, qpn)];
	qp->pd = pd;
	qp->qpn = qpn;
	qp->index = qpn & dev->qp_mask;
	qp->life = qp_new_life(dev);
	qp->type = ia->qp_type;
	qp->scq = ia->send_cq;
	qp->rcq = ia->recv_cq;
	qp->sq_sig_all = ia->sq_sig_all;
	qp->attr.cap = ia->cap;
	if (qp->attr.cap.max_send_sge == 0)
		qp->attr.cap.max_send_sge = 1;
	if (qp->attr.cap.max_recv_sge == 0)
		qp->attr.cap.max_recv_sge = 1;
	qp->state = RNIC_QPS_RESET;

	/* The header, the SGEs or inline bytes, then what atomics (RC) or
	 * UD sends carry (struct rnic_wqe_ext); a slot of a line or less is
	 * a whole line, so that no WQE straddles two. */
	stride = RNIC_WQE_HDR_SIZE + RTE_ALIGN_CEIL(
		RTE_MAX(qp->attr.cap.max_send_sge * sizeof(struct rnic_sge),
			(size_t)qp->attr.cap.max_inline_data), sizeof(uint64_t));
	qp->sq_ext_off = (uint16_t)stride;
	stride += qp->type == RNIC_QPT_UD ? RNIC_WQE_EXT_UD :
		  qp->type == RNIC_QPT_RC ? RNIC_WQE_EXT_ATOMIC : 0;
	stride = RTE_ALIGN_CEIL(stride, stride <= RTE_CACHE_LINE_SIZE ?
				RTE_CACHE_LINE_SIZE : RNIC_WQE_UNIT);
	RTE_VERIFY(stride <= RNIC_SQ_MAX_STRIDE);
	slots = rte_align32pow2(qp->attr.cap.max_send_wr);
	qp->sq_stride = stride;
	qp->sq_mask = slots - 1;
	qp->sq = rte_zmalloc("rnic_sq", (size_t)slots * stride, RTE_CACHE_LINE_SIZE);

	qp->rq_stride = RTE_ALIGN_CEIL(sizeof(struct rnic_rwqe) +
				       qp->attr.cap.max_recv_sge * sizeof(struct rnic_sge),
				       RNIC_WQE_UNIT);
	slots = rte_align32pow2(RTE_MAX(qp->attr.cap.max_recv_wr, 1u));
	qp->rq_mask = slots - 1;
	qp->rq = rte_zmalloc("rnic_rq", (size_t)slots * qp->rq_stride, RTE_CACHE_LINE_SIZE);

	/* The window of unacknowledged packets, sized for the send queue
	 * (four packets a WQE) within [RNIC_MQ_RC_MIN, RNIC_MQ_RC_SLOTS]:
	 * thousands of shallow QPs keep little. UC/UD keep nothing. */
	mq = qp->type != RNIC_QPT_RC ? 2 :
	     RTE_MIN(RTE_MAX(rte_align32pow2(4 * qp->attr.cap.max_send_wr), RNIC_MQ_RC_MIN),
		     RNIC_MQ_RC_SLOTS);
	qp->req.mq.mask = mq - 1;
	qp->req.mq.limit = RTE_MIN(mq, dev->attr.max_inflight);
	qp->req.mq.ents = rte_zmalloc("rnic_mq", sizeof(struct rnic_mq_ent) * mq, 0);
	qp->req.mq.head = &qp->comp.mq_head;
	if (qp->sq == NULL || qp->rq == NULL || qp->req.mq.ents == NULL) {
		rte_free(qp->sq);
		rte_free(qp->rq);
		rte_free(qp->req.mq.ents);
		rte_free(qp);
		rte_errno = ENOMEM;
		return NULL;
	}
	qp->attr.pkey = RNIC_DEFAULT_PKEY;
	qp->attr.path_mtu = RNIC_MTU_1024;
	qp->pmtu = 1024;
	if (qp->type == RNIC_QPT_UD) {
		/* UD has no path MTU attribute: the port's active MTU bounds it. */
		qp->pmtu = dev->attr.mtu;
		qp->attr.path_mtu = (enum rnic_mtu)(rte_log2_u32(dev->attr.mtu) - 7);
	}
	/* Source addressing now: UD never sets AV, and sends from the start. */
	qp_build_l2(qp);
	qp->scq->refs++;
	qp->rcq->refs++;
	pd->refs++;
	dev->n_qps++;
	qp->w->n_qps++;
	STORE_REL(&dev->qps[qp->index], qp);   /* [QP-TABLE] */
	return qp;
}

/* Control thread, the QP quiesced (reset, destroy). */
static void
mq_release_all(struct rnic_qp *qp)
{
	uint64_t freed = rnic_mq_release_all(&qp->req.mq);

	STORE_REL(&qp->w->mq_freed_ctl, qp->w->mq_freed_ctl + freed);   /* [MQ-FREED] */
}

/*
 * Control thread: after the state store that makes the roles drop @p qp,
 * make sure none uses it any more. True when that is so; false when a
 * polled role did not answer (rnic_dev_quiesce), and then the QP's memory
 * must stay.
 */
static bool
qp_quiesce(struct rnic_qp *qp)
{
	if (!LOAD_ACQ(&qp->dev->polled)) {   /* [POLLED]: this thread is the poller */
		rnic_dev_forget_qp(qp->dev, qp);
		return true;
	}
	return rnic_dev_quiesce(qp->dev);   /* [QP-DEAD] */
}

static void
free_res(struct rnic_qp *qp)
{
	rte_free(qp->resp.res);
	qp->resp.res = NULL;
	qp->resp.res_n = 0;
	rte_free(qp->resp.sr);
	qp->resp.sr = NULL;
}

void
rnic_qp_free(struct rnic_qp *qp)
{
	mq_release_all(qp);
	free_res(qp);
	qp->scq->refs--;
	qp->rcq->refs--;
	qp->pd->refs--;
	rte_free(qp->sq);
	rte_free(qp->rq);
	rte_free(qp->req.mq.ents);
	rte_free(qp);
}

int
rnic_destroy_qp(struct rnic_qp *qp)
{
	struct rnic_device *dev;

	if (qp == NULL)
		return -EINVAL;
	dev = rnic_obj_dev(qp);   /* a remote QP is not a struct rnic_qp */
	if (RNIC_REMOTE(dev))
		return dev->ops->destroy_qp(qp);
	rnic_qp_state_reset(qp);                  /* [QP-STATE] [QP-DEAD] */
	STORE_REL(&dev->qps[qp->index], NULL);    /* [QP-TABLE] */
	dev->n_qps--;
	qp->w->n_qps--;
	if (!qp_quiesce(qp)) {
		/* A role may still hold it: freed with the device. */
		qp->grave_next = dev->graveyard;
		dev->graveyard = qp;
		return 0;
	}
	rnic_qp_free(qp);
	return 0;
}

uint32_t
rnic_qp_num(const struct rnic_qp *qp)
{
	if (RNIC_REMOTE(rnic_obj_dev(qp)))
		return rnic_obj_dev(qp)->ops->qp_num(qp);
	return qp->qpn;
}

uint32_t
rnic_qp_cc_rate_mbps(const struct rnic_qp *qp)
{
	/* The TX role's; a relaxed snapshot (telemetry, tests). */
	if (RNIC_REMOTE(rnic_obj_dev(qp)))
		return 0;   /* the daemon's, not told */
	return LOAD_RLX(&qp->req.cc.limited) ? LOAD_RLX(&qp->req.cc.rc_mbps) : 0;
}
unsigned int
rnic_qp_worker(const struct rnic_qp *qp)
{
	if (RNIC_REMOTE(rnic_obj_dev(qp)))
		return 0;   /* served by the daemon's lcores */
	return qp->w->id;
}

/* ------------------------------------------------------------------ */
/* The transition table (IBA table 91)                                 */
/* ------------------------------------------------------------------ */

#define M(x) RNIC_QP_##x
enum { T_RC, T_UC, T_UD, T_N };

struct qp_trans {
	uint8_t valid;
	int req[T_N];
	int opt[T_N];
};

/* What RTR->RTS, RTS->RTS and SQD->RTS allow besides their required ones. */
#define OPT_TO_RTS { \
	[T_RC] = M(CUR_STATE) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) | M(ALT_PATH) | \
		 M(PATH_MIG_STATE), \
	[T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE), \
	[T_UD] = M(CUR_STATE) | M(QKEY) }

static const struct qp_trans qp_trans[7][7] = {
	[RNIC_QPS_RESET] = {
		[RNIC_QPS_RESET] = { 1, {0}, {0} },
		[RNIC_QPS_INIT] = { 1,
			{ [T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			  [T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			  [T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY) }, {0} },
	},
	[RNIC_QPS_INIT] = {
		[RNIC_QPS_INIT] = { 1, {0},
			{ [T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			  [T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			  [T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY) } },
		[RNIC_QPS_RTR] = { 1,
			{ [T_RC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
				   M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
			  [T_UC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN),
			  [T_UD] = 0 },
			{ [T_RC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) | M(SR),
			  [T_UC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
			  [T_UD] = M(PKEY_INDEX) | M(QKEY) } },
	},
	[RNIC_QPS_RTR] = {
		[RNIC_QPS_RTS] = { 1,
			{ [T_RC] = M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				   M(MAX_QP_RD_ATOMIC),
			  [T_UC] = M(SQ_PSN),
			  [T_UD] = M(SQ_PSN) },
			OPT_TO_RTS },
	},
	[RNIC_QPS_RTS] = {
		[RNIC_QPS_RTS] = { 1, {0},
			OPT_TO_RTS },
		[RNIC_QPS_SQD] = { 1, {0},
			{ [T_RC] = M(EN_SQD_ASYNC_NOTIFY), [T_UC] = M(EN_SQD_ASYNC_NOTIFY),
			  [T_UD] = M(EN_SQD_ASYNC_NOTIFY) } },
	},
	[RNIC_QPS_SQD] = {
		[RNIC_QPS_RTS] = { 1, {0},
			OPT_TO_RTS },
		[RNIC_QPS_SQD] = { 1, {0},
			{ [T_RC] = M(CUR_STATE) | M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) |
				   M(PKEY_INDEX) | M(MIN_RNR_TIMER) | M(PATH_MIG_STATE) |
				   M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				   M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC),
			  [T_UC] = M(CUR_STATE) | M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) |
				   M(PKEY_INDEX) | M(PATH_MIG_STATE),
			  [T_UD] = M(CUR_STATE) | M(PKEY_INDEX) | M(QKEY) } },
	},
	[RNIC_QPS_SQE] = {
		[RNIC_QPS_RTS] = { 1, {0},
			{ [T_RC] = 0,   /* RC never enters SQE (IBA 10.3.1) */
			  [T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS),
			  [T_UD] = M(CUR_STATE) | M(QKEY) } },
	},
};

static int
type_idx(enum rnic_qp_type t)
{
	return t == RNIC_QPT_RC ? T_RC : t == RNIC_QPT_UC ? T_UC : T_UD;
}

static void
qp_build_l2(struct rnic_qp *qp)
{
	/* Send queue entries carry one (struct rnic_wqe): keep it small. */
	RTE_BUILD_BUG_ON(sizeof(struct rnic_ah_attr) != 32);
	struct rnic_l2l3 *l = &qp->l2;
	const struct rnic_ah_attr *ah = &qp->attr.ah_attr;

	memset(l, 0, sizeof(*l));
	memcpy(l->src_mac, qp->dev->mac, 6);
	memcpy(l->dst_mac, ah->dmac, 6);
	rnic_ah_to_l3(qp->dev, ah, l);
	l->vlan = ah->vlan;
	l->vlan_tci = ah->vlan_tci;
	l->udp_sport = rnic_udp_sport(qp->qpn);
	l->udp_dport = RNIC_ROCE_UDP_PORT;
	rnic_pkt_tmpl_init(&qp->tmpl, l, qp->attr.pkey, qp->attr.dest_qp_num);
}

/* Validate attribute values against their ranges. */
static int
check_values(const struct rnic_qp_attr *a, int mask)
{
	const struct { int bit; uint32_t v, max; } lim[] = {
		{ M(RQ_PSN), a->rq_psn, RNIC_PSN_MASK },
		{ M(SQ_PSN), a->sq_psn, RNIC_PSN_MASK },
		{ M(DEST_QPN), a->dest_qp_num, RNIC_PSN_MASK },
		{ M(TIMEOUT), a->timeout, RNIC_TIMER_CODE_MAX },
		{ M(RETRY_CNT), a->retry_cnt, RNIC_RETRY_MAX },
		{ M(RNR_RETRY), a->rnr_retry, RNIC_RETRY_MAX },
		{ M(MIN_RNR_TIMER), a->min_rnr_timer, RNIC_TIMER_CODE_MAX },
		{ M(MAX_QP_RD_ATOMIC), a->max_rd_atomic, RNIC_MAX_RD_ATOMIC },
		{ M(MAX_DEST_RD_ATOMIC), a->max_dest_rd_atomic, RNIC_MAX_RD_ATOMIC },
		{ M(PORT), a->port_num - 1u, 0 },       /* one port, number 1 */
		{ M(PKEY_INDEX), a->pkey_index, 0 },    /* one-entry P_Key table */
		{ M(ACCESS_FLAGS), (uint32_t)a->qp_access_flags, RNIC_ACCESS_ALL },  /* a subset */
		{ M(SR), a->sr, 1 },
	};

	for (unsigned int i = 0; i < RTE_DIM(lim); i++)
		if ((mask & lim[i].bit) && lim[i].v > lim[i].max)
			return -EINVAL;
	if ((mask & M(PATH_MTU)) && rnic_mtu_bytes(a->path_mtu) == 0)
		return -EINVAL;
	/* No alternate path (APM), no resizing of queues. */
	if (mask & (M(ALT_PATH) | M(PATH_MIG_STATE) | M(CAP)))
		return -EINVAL;
	return 0;
}

/* [SQ-HINT] a life no QP of @p dev has had: the hints of the QP's
 * earlier life, or of an earlier QP of its number, are not its own. */
static uint32_t
qp_new_life(struct rnic_device *dev)
{
	if (++dev->qp_lives == 0)
		dev->qp_lives = 1;   /* 0: a slot no completion has hinted */
	return dev->qp_lives;
}

/*
 * Control thread, the roles quiesced: the QP's data-path state starts
 * afresh. The work-list flags are kept: a role whose list still names the
 * QP (a failed quiesce) drops it on its next pass ([QP-DEAD]) and clears
 * the flag itself. The MultiQueue keeps its array (now empty). The
 * doorbell counts ([DB]) run on across resets; the
 * completers' indices (sq_done, rq_ci) start again at 0 with their
 * structs.
 */
static void
reset_qp_state(struct rnic_qp *qp)
{
	struct rnic_timer_event stop = {
		.qp = qp->index, .type = RNIC_TIMER_STOP, .timer = RNIC_TIMER_LOSS,
	};
	uint8_t sched = qp->req.scheduled, owed = qp->req.db_owed, rd = qp->resp.rd_active;
	uint8_t acks = qp->resp.on_ack_list, rexmit = qp->comp.on_rexmit_list;
	struct rnic_mq mq = qp->req.mq;

	/* A stale expiry must not reach the QP's next life. */
	rte_ring_mp_enqueue_elem(qp->w->tmr_in, &stop, sizeof(stop));
	stop.timer = RNIC_TIMER_RNR;
	rte_ring_mp_enqueue_elem(qp->w->tmr_in, &stop, sizeof(stop));
	mq_release_all(qp);
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	free_res(qp);
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->req.mq = (struct rnic_mq){ .ents = mq.ents, .mask = mq.mask, .limit = mq.limit,
				       .head = mq.head };
	qp->req.scheduled = sched;
	qp->req.db_owed = owed;   /* [DB] told by TX when it drops the QP */
	qp->resp.rd_active = rd;
	qp->resp.on_ack_list = acks;
	qp->comp.on_rexmit_list = rexmit;
	qp->app.sq_pi = qp->app.sq_done_seen = 0;
	qp->life = qp_new_life(qp->dev);   /* [SQ-HINT] */
	qp->app.rq_pi = qp->app.rq_ci_seen = 0;
	qp->cq_err_sent = 0;
	qp->attr.sr = 0;   /* off until the next Init -> RTR asks again */
}

int
rnic_modify_qp(struct rnic_qp *qp, struct rnic_qp_attr *a, int mask)
{
	enum rnic_qp_state cur, next;
	const struct qp_trans *t;
	int ti, allowed, rc;

	if (qp == NULL || a == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(rnic_obj_dev(qp)))
		return rnic_obj_dev(qp)->ops->modify_qp(qp, a, mask);
	cur = rnic_qp_state_get(qp);
	next = (mask & M(STATE)) ? a->qp_state : cur;
	if ((unsigned int)next > RNIC_QPS_ERR)
		return -EINVAL;
	if ((mask & M(CUR_STATE)) && a->cur_qp_state != cur)
		return -EINVAL;
	ti = type_idx(qp->type);
	if (next == RNIC_QPS_RESET || next == RNIC_QPS_ERR) {
		/* Any state -> Reset or Error, with the state alone. */
		if (mask & ~(M(STATE) | M(CUR_STATE)))
			return -EINVAL;
		if (next == RNIC_QPS_ERR) {
			/* As Linux's ib_modify_qp_is_ok: Reset leaves only to Init. */
			if (cur == RNIC_QPS_RESET)
				return -EINVAL;
			rnic_qp_to_error(qp);
		} else {
			rnic_qp_state_reset(qp);   /* [QP-STATE] [QP-DEAD] */
			qp_quiesce(qp);
			reset_qp_state(qp);
		}
		return 0;
	}
	if (cur == RNIC_QPS_ERR)
		return -EINVAL;   /* Error leaves only through Reset */
	t = &qp_trans[cur][next];
	if (!t->valid)
		return -EINVAL;
	if (next == RNIC_QPS_SQE || (cur == RNIC_QPS_SQE && ti == T_RC))
		return -EINVAL;
	allowed = t->req[ti] | t->opt[ti] | M(STATE) | M(CUR_STATE);
	if ((mask & t->req[ti]) != t->req[ti] || (mask & ~allowed))
		return -EINVAL;
	rc = check_values(a, mask);
	if (rc != 0)
		return rc;
	if ((mask & M(AV)) && !rnic_ah_valid(qp->dev, &a->ah_attr))
		return -EINVAL;   /* no such source GID, or of the other family */

	/* Commit: the data path reads these only in states the transition
	 * is entering, so they are written before the state store. */
	if (mask & M(ACCESS_FLAGS)) qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & M(PKEY_INDEX)) {
		qp->attr.pkey_index = a->pkey_index;
		qp->attr.pkey = a->pkey ? a->pkey : RNIC_DEFAULT_PKEY;
	}
	if (mask & M(PORT)) qp->attr.port_num = a->port_num;
	if (mask & M(QKEY)) qp->attr.qkey = a->qkey;
	if (mask & M(AV)) qp->attr.ah_attr = a->ah_attr;
	if (mask & M(PATH_MTU)) {
		qp->attr.path_mtu = a->path_mtu;
		qp->pmtu = rnic_mtu_bytes(a->path_mtu);
	}
	if (mask & M(DEST_QPN)) qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & M(RQ_PSN)) {
		qp->attr.rq_psn = a->rq_psn;
		qp->resp.epsn = a->rq_psn;
	}
	if (mask & M(SQ_PSN)) {
		qp->attr.sq_psn = a->sq_psn;
		qp->req.psn = a->sq_psn;
		qp->comp.rd_psn = a->sq_psn;
		qp->comp.sr_exec = rnic_psn_add(a->sq_psn, RNIC_PSN_MASK);
	}
	if (mask & M(TIMEOUT)) qp->attr.timeout = a->timeout;
	if (mask & M(RETRY_CNT)) qp->attr.retry_cnt = a->retry_cnt;
	if (mask & M(RNR_RETRY)) qp->attr.rnr_retry = a->rnr_retry;
	if (mask & M(MIN_RNR_TIMER)) qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & M(MAX_QP_RD_ATOMIC)) qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & M(EN_SQD_ASYNC_NOTIFY)) qp->attr.en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & M(MAX_DEST_RD_ATOMIC)) {
		/* 0 is no resources at all: the responder then NAKs every READ
		 * and atomic as an invalid request (IBA, Linux rxe), as the
		 * configuration loader expects; it was served as if 1. */
		uint32_t n = a->max_dest_rd_atomic;

		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
		if (n == 0) {
			free_res(qp);
		} else if (qp->resp.res_n != n) {
			struct rnic_rd_res *r = rte_zmalloc("rnic_rdres", sizeof(*r) * n, 0);

			if (r == NULL)
				return -ENOMEM;
			rte_free(qp->resp.res);
			qp->resp.res = r;
			qp->resp.res_n = n;
		}
	}
	if ((mask & M(SR)) && a->sr && qp->resp.sr == NULL) {
		struct rnic_sr_resp *sr = rte_zmalloc("rnic_sr", sizeof(*sr), RTE_CACHE_LINE_SIZE);

		if (sr == NULL)
			return -ENOMEM;
		sr->base = qp->resp.epsn;
		qp->resp.sr = sr;
	}
	if (mask & M(SR)) qp->attr.sr = a->sr;
	if (mask & (M(AV) | M(DEST_QPN) | M(PKEY_INDEX)))
		qp_build_l2(qp);
	if (next == RNIC_QPS_RTS && cur == RNIC_QPS_RTR) {
		qp->comp.retry = qp->attr.retry_cnt;
		qp->comp.rnr_retry = qp->attr.rnr_retry;
	}
	/* A role may have moved the QP on meanwhile (to Error, or SQE): then
	 * this transition no longer applies. */
	if (!rnic_qp_state_cas(qp, cur, next))
		return -EINVAL;
	return 0;
}

int
rnic_query_qp(struct rnic_qp *qp, struct rnic_qp_attr *a, int mask,
	      struct rnic_qp_init_attr *ia)
{
	if (qp == NULL || a == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(rnic_obj_dev(qp)))
		return rnic_obj_dev(qp)->ops->query_qp(qp, a, mask, ia);
	*a = qp->attr;
	a->qp_state = rnic_qp_state_get(qp);
	a->cur_qp_state = a->qp_state;
	a->cap = qp->attr.cap;
	a->sq_psn = LOAD_RLX(&qp->req.psn);
	a->rq_psn = LOAD_RLX(&qp->resp.epsn);
	a->sq_draining = 0;
	if (ia != NULL) {
		memset(ia, 0, sizeof(*ia));
		ia->send_cq = qp->scq;
		ia->recv_cq = qp->rcq;
		ia->cap = qp->attr.cap;
		ia->qp_type = qp->type;
		ia->sq_sig_all = qp->sq_sig_all;
		ia->qp_num = qp->qpn;
	}
	return 0;
}


