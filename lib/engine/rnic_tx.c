/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit pipeline of seed chapter 2 and 3.4.1-3.4.4, on the TX lcore:
 *   DoorbellProcessing -> WQEScheduler (+ WQEIndicatorTable) -> WQEParser
 *   -> DataPack -> RequesterTransControl -> ReqPktGen -> rte_eth_tx_burst.
 * Each stage is one function below, called per burst.
 */
#include <errno.h>

#include <rte_ethdev.h>

#include "rnic_engine.h"

/* ------------------------------------------------------------------ */
/* Helpers shared with the RX side                                     */
/* ------------------------------------------------------------------ */

const uint8_t rnic_wc_opcode_of[RNIC_WR_MAX] = {
	[RNIC_WR_RDMA_WRITE] = RNIC_WC_RDMA_WRITE,
	[RNIC_WR_RDMA_WRITE_WITH_IMM] = RNIC_WC_RDMA_WRITE,
	[RNIC_WR_SEND] = RNIC_WC_SEND,
	[RNIC_WR_SEND_WITH_IMM] = RNIC_WC_SEND,
	[RNIC_WR_SEND_WITH_INV] = RNIC_WC_SEND,
	[RNIC_WR_RDMA_READ] = RNIC_WC_RDMA_READ,
	[RNIC_WR_ATOMIC_CMP_AND_SWP] = RNIC_WC_COMP_SWAP,
	[RNIC_WR_ATOMIC_FETCH_AND_ADD] = RNIC_WC_FETCH_ADD,
};

void
rnic_complete(struct rnic_qp *qp, struct rnic_cq *cq, const struct rnic_wc *wc,
	      struct rnic_dev_stats *st)
{
	st->completions++;
	if (rnic_cq_push(cq, wc) != 0) {
		struct rnic_async_event ev = { RNIC_EVENT_CQ_ERR, qp->qpn };

		/* Every completion lost counts; the QP's first one raises the
		 * event and moves it to Error (its flush then overflows too). */
		st->cq_overflow++;
		if (__atomic_exchange_n(&qp->cq_err_sent, 1, __ATOMIC_ACQ_REL))
			return;
		if (rte_ring_mp_enqueue_elem(qp->dev->ev_ring, &ev, sizeof(ev)) != 0)
			st->event_drops++;
		rnic_qp_to_error(qp);
	}
}

/* Copy @p len bytes at @p off of an mbuf chain into @p dst. */
uint32_t
rnic_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst)
{
	uint8_t *d = dst;
	uint32_t done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && done < len) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);

		memcpy(d + done, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		done += n;
		off = 0;
		m = m->next;
	}
	return done;
}

/*
 * ReqPktGen / RespPktGen common part: an mbuf with all headers written and
 * room for the payload, pad and ICRC. Returns NULL when the pool is empty.
 */
struct rte_mbuf *
rnic_pkt_alloc(struct rnic_device *dev, struct rnic_dev_stats *st,
	       const struct rnic_l2l3 *l, const struct rnic_bth_fields *b,
	       const struct rnic_ext_fields *ext, uint32_t paylen, uint8_t **payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->pool);
	uint32_t hlen, total, pad = rnic_pad_len(paylen);
	uint8_t *p;

	if (m == NULL) {
		st->tx_nombuf++;
		return NULL;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	hlen = rnic_pkt_build_hdrs(p, rte_pktmbuf_tailroom(m), l, b, ext, paylen);
	total = hlen + paylen + pad + RNIC_ICRC_LEN;
	if (hlen == 0 || total > rte_pktmbuf_tailroom(m)) {
		rte_pktmbuf_free(m);
		st->tx_nombuf++;
		return NULL;
	}
	memset(p + hlen + paylen, 0, pad);
	m->data_len = (uint16_t)total;
	m->pkt_len = total;
	*payload = p + hlen;
	return m;
}

void
rnic_pkt_seal(struct rte_mbuf *m, const struct rnic_l2l3 *l)
{
	rnic_pkt_finish_icrc_mbuf(m, l->vlan ? RNIC_ETH_HLEN + RNIC_VLAN_HLEN : RNIC_ETH_HLEN);
}

/* ------------------------------------------------------------------ */
/* DoorbellProcessing + WQEScheduler                                   */
/* ------------------------------------------------------------------ */

static void
sched_add(struct rnic_device *dev, struct rnic_qp *qp)
{
	if (!qp->req.scheduled) {
		qp->req.scheduled = 1;
		dev->tx_active[dev->tx_active_n++] = qp;
	}
}

static unsigned int
doorbell_process(struct rnic_device *dev, struct rnic_dev_stats *st)
{
	void *dbs[64];
	unsigned int n = rte_ring_sc_dequeue_burst(dev->db_ring, dbs, RTE_DIM(dbs), NULL);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t db = (uint64_t)(uintptr_t)dbs[i];
		struct rnic_qp *qp = rnic_qp_lookup(dev, RNIC_DB_QPN(db));
		uint32_t stride16, expect;

		st->doorbells++;
		if (qp == NULL)
			continue;   /* QP destroyed after posting */
		stride16 = qp->sq_stride / 16;
		expect = (qp->req.sq_db & qp->sq_mask) * stride16;
		if (RNIC_DB_OFF16(db) != expect || RNIC_DB_SIZE16(db) % stride16) {
			/* Out of step (QP reset meanwhile): trust the producer index. */
			qp->req.sq_db = LOAD_ACQ(&qp->sq_pi);
		} else {
			qp->req.sq_db += RNIC_DB_SIZE16(db) / stride16;
		}
		sched_add(dev, qp);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* WQEParser (seed 2.4.3.1.2): errors become the WQE's status           */
/* ------------------------------------------------------------------ */

static bool
opcode_allowed(enum rnic_qp_type t, uint8_t op)
{
	switch (op) {
	case RNIC_WR_SEND:
	case RNIC_WR_SEND_WITH_IMM:
		return true;
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		return t != RNIC_QPT_UD;
	case RNIC_WR_RDMA_READ:
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
	case RNIC_WR_SEND_WITH_INV:
		return t == RNIC_QPT_RC;
	default:
		return false;
	}
}

static bool
is_rd_atomic(uint8_t op)
{
	return op == RNIC_WR_RDMA_READ || op == RNIC_WR_ATOMIC_CMP_AND_SWP ||
	       op == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static enum rnic_wc_status
wqe_parse(struct rnic_qp *qp, struct rnic_wqe *w)
{
	int need = 0;

	if (!opcode_allowed(qp->type, w->opcode))
		return RNIC_WC_LOC_QP_OP_ERR;
	if (w->total_len > RNIC_MAX_MSG_LEN)
		return RNIC_WC_LOC_LEN_ERR;
	if (qp->type == RNIC_QPT_UD && w->total_len > qp->pmtu)
		return RNIC_WC_LOC_LEN_ERR;
	if ((w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ||
	     w->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD) && w->total_len != 8)
		return RNIC_WC_LOC_LEN_ERR;
	if (w->flags & RNIC_SEND_INLINE) {
		if (is_rd_atomic(w->opcode))
			return RNIC_WC_LOC_QP_OP_ERR;   /* nowhere to put the data */
		return RNIC_WC_SUCCESS;
	}
	if (is_rd_atomic(w->opcode))
		need = RNIC_ACCESS_LOCAL_WRITE;
	for (uint32_t i = 0; i < w->num_sge; i++) {
		struct rnic_mr *mr;

		if (w->sge[i].length == 0)
			continue;
		if (rnic_mr_check(qp->dev, qp->pd, w->sge[i].lkey, false, w->sge[i].addr,
				  w->sge[i].length, need, &mr) != RNIC_MEMCHK_OK)
			return RNIC_WC_LOC_PROT_ERR;
	}
	return RNIC_WC_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* DataPack (seed 2.4.5): gather SGEs or inline bytes, no bubbles       */
/* ------------------------------------------------------------------ */

static void
data_pack(const struct rnic_wqe *w, uint32_t off, uint32_t len, uint8_t *dst)
{
	if (w->flags & RNIC_SEND_INLINE) {
		memcpy(dst, (const uint8_t *)w->sge + off, len);
		return;
	}
	for (uint32_t i = 0; i < w->num_sge && len > 0; i++) {
		uint32_t sl = w->sge[i].length;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		uint32_t n = RTE_MIN(sl - off, len);

		memcpy(dst, (const uint8_t *)(uintptr_t)(w->sge[i].addr + off), n);
		dst += n;
		len -= n;
		off = 0;
	}
}

/* ------------------------------------------------------------------ */
/* RequesterTransControl (seed 3.4.1) + ReqPktGen (seed 3.4.4)           */
/* ------------------------------------------------------------------ */

static uint8_t
req_opcode(const struct rnic_qp *qp, const struct rnic_wqe *w, bool first, bool last)
{
	uint8_t t = qp->type == RNIC_QPT_RC ? RNIC_TRANSPORT_RC :
		    qp->type == RNIC_QPT_UC ? RNIC_TRANSPORT_UC : RNIC_TRANSPORT_UD;
	uint8_t o;

	switch (w->opcode) {
	case RNIC_WR_SEND:
		o = first && last ? RNIC_OP_SEND_ONLY : first ? RNIC_OP_SEND_FIRST :
		    last ? RNIC_OP_SEND_LAST : RNIC_OP_SEND_MIDDLE;
		break;
	case RNIC_WR_SEND_WITH_IMM:
		o = first && last ? RNIC_OP_SEND_ONLY_IMM : first ? RNIC_OP_SEND_FIRST :
		    last ? RNIC_OP_SEND_LAST_IMM : RNIC_OP_SEND_MIDDLE;
		break;
	case RNIC_WR_SEND_WITH_INV:
		o = first && last ? RNIC_OP_SEND_ONLY_INV : first ? RNIC_OP_SEND_FIRST :
		    last ? RNIC_OP_SEND_LAST_INV : RNIC_OP_SEND_MIDDLE;
		break;
	case RNIC_WR_RDMA_WRITE:
		o = first && last ? RNIC_OP_WRITE_ONLY : first ? RNIC_OP_WRITE_FIRST :
		    last ? RNIC_OP_WRITE_LAST : RNIC_OP_WRITE_MIDDLE;
		break;
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		o = first && last ? RNIC_OP_WRITE_ONLY_IMM : first ? RNIC_OP_WRITE_FIRST :
		    last ? RNIC_OP_WRITE_LAST_IMM : RNIC_OP_WRITE_MIDDLE;
		break;
	case RNIC_WR_RDMA_READ:
		o = RNIC_OP_READ_REQ;
		break;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
		o = RNIC_OP_CMP_SWAP;
		break;
	default:
		o = RNIC_OP_FETCH_ADD;
		break;
	}
	return (uint8_t)(t | o);
}

/* Ask the RX lcore to look at a QP; retried from the scheduler if full. */
static void
tx_kick(struct rnic_qp *qp)
{
	qp->req.kick_pending =
		rte_ring_mp_enqueue_elem(qp->dev->kick_ring, &qp->qpn, sizeof(uint32_t)) != 0;
}

static uint32_t
mq_free(const struct rnic_qp *qp)
{
	return qp->mq.mask + 1 - (qp->mq.tail - LOAD_ACQ(&qp->mq.head));
}

/*
 * mbufs the device's MultiQueues hold (rnic_pvt.h mq_limit), at most: the
 * releases are read again only near the limit, so the RX lcore's counter
 * is not pulled into this core for every packet.
 */
static uint64_t
mq_pool_held(struct rnic_device *dev)
{
	uint64_t held = dev->mq_held_tx - dev->mq_freed_seen;

	if (held + 1 >= dev->mq_limit) {
		dev->mq_freed_seen = LOAD_ACQ(&dev->mq_freed_rx) + LOAD_ACQ(&dev->mq_freed_ctl);
		held = dev->mq_held_tx - dev->mq_freed_seen;
	}
	return held;
}

static void
mq_push(struct rnic_qp *qp, struct rte_mbuf *m, uint32_t psn, uint32_t wqe_idx,
	uint16_t npsn, uint8_t type, uint8_t flags)
{
	struct rnic_mq_ent *e = &qp->mq.ents[qp->mq.tail & qp->mq.mask];

	e->m = m;
	e->psn = psn;
	e->wqe_idx = wqe_idx;
	e->npsn = npsn;
	e->type = type;
	e->flags = flags;
	if (m != NULL)
		qp->dev->mq_held_tx++;   /* TX's own counter */
	/*
	 * Seq-cst store then load, paired with the completer's release of the
	 * head: if RX emptied the list before seeing this entry, we see its
	 * head and ask it to arm the loss timer (seed 3.4.2.4.1: arm when the
	 * list goes from empty to non-empty). One of the two always sees the
	 * other, so a non-empty list never sits without a timer.
	 */
	__atomic_store_n(&qp->mq.tail, qp->mq.tail + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&qp->mq.head, __ATOMIC_SEQ_CST) == qp->mq.tail - 1)
		tx_kick(qp);
}

/* UC/UD: complete on transmit, in order. */
static void
complete_local(struct rnic_qp *qp, struct rnic_wqe *w, enum rnic_wc_status s,
	       struct rnic_dev_stats *st)
{
	if (s != RNIC_WC_SUCCESS || (w->flags & RNIC_SEND_SIGNALED)) {
		struct rnic_wc wc = {
			.wr_id = w->wr_id, .status = (uint8_t)s,
			.opcode = w->opcode < RNIC_WR_MAX ? rnic_wc_opcode_of[w->opcode] : RNIC_WC_SEND,
			.qp_num = qp->qpn,
			.byte_len = s == RNIC_WC_SUCCESS ? w->total_len : 0,
		};
		if (s == RNIC_WC_WR_FLUSH_ERR)
			st->flushed++;
		/* The slot is free before the completion is seen: a post_send
		 * right after polling this completion finds room (the WQE
		 * has been read into wc, nothing reads it after this). */
		STORE_REL(&qp->sq_done, qp->sq_done + 1);
		rnic_complete(qp, qp->scq, &wc, st);
		return;
	}
	STORE_REL(&qp->sq_done, qp->sq_done + 1);
}

/*
 * Build and queue the next packet of the current WQE. Returns 1 when a
 * packet was produced, 0 when the QP must wait (window, mbufs, TX buffer).
 */
static int
req_send_packet(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_wqe *w,
		struct rnic_dev_stats *st)
{
	const bool rc = qp->type == RNIC_QPT_RC;
	struct rnic_bth_fields b = {0};
	struct rnic_ext_fields ext = {0};
	struct rnic_l2l3 l_ud;
	const struct rnic_l2l3 *l = &qp->l2;
	uint32_t len = w->total_len, off = qp->req.cur_off, paylen = 0;
	bool first = off == 0 && qp->req.cur_pkt == 0, last;
	uint16_t npsn = 1;
	uint8_t mqtype = RNIC_MQ_SEND_WRITE;
	bool pool_last = false;
	struct rte_mbuf *m;
	uint8_t *payload;

	if (!rnic_txbuf_room(&dev->txb_req) || (rc && mq_free(qp) == 0))
		return 0;
	if (rc) {
		uint64_t held = mq_pool_held(dev);

		if (held >= dev->mq_limit) {
			st->tx_nombuf++;   /* the rest of the pool is kept for responses */
			return 0;
		}
		/* The last packet before that limit asks for an ACK: otherwise
		 * the packets held could all be ones the responder need not
		 * acknowledge, and nothing would free them but the loss timer. */
		pool_last = held + 1 >= dev->mq_limit;
	}
	if (is_rd_atomic(w->opcode)) {
		last = true;
		if (w->opcode == RNIC_WR_RDMA_READ) {
			npsn = (uint16_t)RTE_MAX(1u, (len + qp->pmtu - 1) / qp->pmtu);
			ext.reth_va = w->remote_addr;
			ext.reth_rkey = w->rkey;
			ext.reth_len = len;
			mqtype = RNIC_MQ_READ;
		} else {
			ext.atm_va = w->remote_addr;
			ext.atm_rkey = w->rkey;
			ext.atm_swap_add = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ?
					   w->swap : w->compare_add;
			ext.atm_cmp = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? w->compare_add : 0;
			mqtype = RNIC_MQ_ATOMIC;
		}
	} else {
		paylen = RTE_MIN(len - off, qp->pmtu);
		last = off + paylen == len;
		if (first && (w->opcode == RNIC_WR_RDMA_WRITE ||
			      w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)) {
			ext.reth_va = w->remote_addr;
			ext.reth_rkey = w->rkey;
			ext.reth_len = len;
		}
		if (last) {
			ext.imm = w->imm;
			ext.ieth_rkey = w->inv_rkey;
		}
	}
	b.opcode = req_opcode(qp, w, first, last);
	b.psn = qp->req.psn;
	b.pkey = qp->attr.pkey;
	b.se = last && (w->flags & RNIC_SEND_SOLICITED);
	if (qp->type == RNIC_QPT_UD) {
		memcpy(&l_ud, l, sizeof(l_ud));
		memcpy(l_ud.dst_mac, w->ah.dmac, 6);
		l_ud.dst_ip = w->ah.dip;
		l_ud.tos = w->ah.tos;
		l_ud.ttl = w->ah.ttl ? w->ah.ttl : 64;
		l_ud.vlan = w->ah.vlan;
		l_ud.vlan_tci = w->ah.vlan_tci;
		l = &l_ud;
		b.dqpn = w->ud_qpn;
		/* IBA 10.2.5: a Q_Key with the high bit set means the QP's own. */
		ext.deth_qkey = (w->ud_qkey & 0x80000000u) ? qp->attr.qkey : w->ud_qkey;
		ext.deth_sqp = qp->qpn;
	} else {
		b.dqpn = qp->attr.dest_qp_num;
		b.ackreq = rc && (last || pool_last || (qp->req.psn % RNIC_ACKREQ_EVERY) == 0);
	}
	m = rnic_pkt_alloc(dev, st, l, &b, &ext, paylen, &payload);
	if (m == NULL)
		return 0;
	if (paylen)
		data_pack(w, off, paylen, payload);
	rnic_pkt_seal(m, l);
	if (first) {
		w->first_psn = qp->req.psn;
		w->npsn = 0;
	}
	w->npsn += npsn;
	if (rc) {
		rte_mbuf_refcnt_update(m, 1);   /* the MultiQueue's reference */
		mq_push(qp, m, qp->req.psn, qp->req.sq_fetch, npsn, mqtype,
			last ? RNIC_MQF_LAST : 0);
	}
	rnic_txbuf_add(&dev->txb_req, m);
	st->tx_bytes += m->pkt_len;
	qp->req.psn = rnic_psn_add(qp->req.psn, npsn);
	qp->req.cur_off = off + paylen;
	qp->req.cur_pkt++;
	if (last) {
		qp->req.cur_active = 0;
		qp->req.cur_off = 0;
		qp->req.cur_pkt = 0;
		if (mqtype != RNIC_MQ_SEND_WRITE)
			STORE_REL(&qp->req.rd_issued, qp->req.rd_issued + 1);
		STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);
		if (!rc)
			complete_local(qp, w, RNIC_WC_SUCCESS, st);
	}
	return 1;
}

/* A bad WQE on RC waits in the MultiQueue for everything before it. */
static int
req_queue_bad(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	if (mq_free(qp) == 0)
		return 0;
	mq_push(qp, NULL, qp->req.psn, qp->req.sq_fetch, 0, RNIC_MQ_BAD, RNIC_MQF_LAST);
	STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);
	qp->req.stopped = 1;
	tx_kick(qp);   /* it may be at the head already */
	RTE_SET_USED(dev);
	RTE_SET_USED(st);
	return 1;
}

/* Error/SQE: hand every announced WQE to the flush (seed 2.4.3.1.2). */
static void
req_flush(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	uint32_t end = LOAD_ACQ(&qp->sq_pi);

	RTE_SET_USED(dev);
	qp->req.cur_active = 0;
	qp->req.cur_off = qp->req.cur_pkt = 0;
	if (qp->type == RNIC_QPT_RC) {
		if (qp->req.sq_fetch != end) {
			STORE_REL(&qp->req.sq_fetch, end);
			rnic_qp_kick(qp);
		}
		return;
	}
	while (qp->req.sq_fetch != end) {
		complete_local(qp, rnic_sq_wqe(qp, qp->req.sq_fetch), RNIC_WC_WR_FLUSH_ERR, st);
		STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);
	}
}

/*
 * One QP's turn. Returns packets produced; *idle is set when the QP has
 * nothing more to do until a new doorbell.
 */
static unsigned int
req_qp_process(struct rnic_device *dev, struct rnic_qp *qp, unsigned int budget,
	       bool *idle, struct rnic_dev_stats *st)
{
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	unsigned int done = 0;

	*idle = false;
	if (s == RNIC_QPS_ERR || s == RNIC_QPS_SQE) {
		req_flush(dev, qp, st);
		qp->req.sq_db = qp->req.sq_fetch;
		*idle = true;
		return 0;
	}
	if (s == RNIC_QPS_RESET) {
		*idle = true;
		return 0;
	}
	if (qp->req.stopped)
		return 0;   /* the bad WQE's completion moves the QP to Error */
	while (done < budget) {
		struct rnic_wqe *w;

		if (!qp->req.cur_active) {
			enum rnic_wc_status st_w;

			if (s != RNIC_QPS_RTS)
				break;   /* SQD: finish the current WQE only */
			if (qp->req.sq_fetch == qp->req.sq_db) {
				*idle = true;
				break;
			}
			w = rnic_sq_wqe(qp, qp->req.sq_fetch);
			st_w = wqe_parse(qp, w);
			w->status = (uint8_t)st_w;
			if (st_w != RNIC_WC_SUCCESS) {
				if (qp->type == RNIC_QPT_RC) {
					req_queue_bad(dev, qp, st);
				} else {
					/* UC/UD: error completion, SQ error state. */
					complete_local(qp, w, st_w, st);
					STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);
					STORE_REL(&qp->state, RNIC_QPS_SQE);
				}
				break;
			}
			if (qp->type == RNIC_QPT_RC) {
				uint32_t outstanding = qp->req.rd_issued -
						       LOAD_ACQ(&qp->comp.rd_done);

				/* Fence: wait for earlier READ/atomics (seed 3.4.1.1.3.2.3). */
				if ((w->flags & RNIC_SEND_FENCE) && outstanding)
					break;
				if (is_rd_atomic(w->opcode) &&
				    outstanding >= (uint32_t)RTE_MAX(qp->attr.max_rd_atomic, (uint8_t)1))
					break;
			}
			qp->req.cur_active = 1;
			qp->req.cur_off = 0;
			qp->req.cur_pkt = 0;
		}
		w = rnic_sq_wqe(qp, qp->req.sq_fetch);
		if (!req_send_packet(dev, qp, w, st))
			break;
		done++;
	}
	return done;
}

unsigned int
rnic_dev_poll_tx(struct rnic_device *dev)
{
	struct rnic_dev_stats *st = &dev->st_tx.s;
	unsigned int work = 0, budget = dev->attr.burst;

	rnic_txbuf_flush(&dev->txb_req, st);
	work += doorbell_process(dev, st);
	for (uint32_t i = 0; i < dev->tx_active_n; ) {
		struct rnic_qp *qp = dev->tx_active[i];
		bool idle;

		if (qp->req.kick_pending)
			tx_kick(qp);
		work += req_qp_process(dev, qp, budget, &idle, st);
		if (idle && qp->req.sq_fetch == qp->req.sq_db && !qp->req.kick_pending) {
			qp->req.scheduled = 0;
			dev->tx_active[i] = dev->tx_active[--dev->tx_active_n];
			continue;
		}
		i++;
		if (!rnic_txbuf_room(&dev->txb_req))
			rnic_txbuf_flush(&dev->txb_req, st);
	}
	rnic_txbuf_flush(&dev->txb_req, st);
	__atomic_fetch_add(&dev->iter[0], 1, __ATOMIC_RELEASE);
	return work;
}
