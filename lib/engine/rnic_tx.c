/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit pipeline of seed chapter 2 and 3.4.1-3.4.4, the TX role:
 *   DoorbellProcessing -> WQEScheduler (+ WQEIndicatorTable) -> WQEParser
 *   -> DataPack -> RequesterTransControl -> ReqPktGen -> rte_eth_tx_burst.
 * Each stage is one function below, called per burst.
 */
#include <errno.h>

#include <rte_ethdev.h>

#include "rnic_copy.h"
#include "rnic_engine_pvt.h"

/* ------------------------------------------------------------------ */
/* DoorbellProcessing + WQEScheduler (seed 2.4.1, 2.4.2, 2.4.4)         */
/* ------------------------------------------------------------------ */

static void
sched_add(struct rnic_worker *wk, struct rnic_qp *qp)
{
	rnic_qp_list_add(&wk->tx.active, qp, &qp->req.scheduled);
}

/*
 * Take every doorbell off the ring: each names a QP that has new WQEs;
 * how many comes from its doorbell record (sq_pi) when the scheduler gets
 * to it. The ring holds at most one doorbell per QP ([DB], rnic_post.c),
 * so draining it is bounded by the number of QPs. The application learns
 * that a doorbell was taken (db_seen) only when the QP's SQ is found
 * empty (tx_settle): until then its posts need none.
 */
static unsigned int
doorbell_process(struct rnic_worker *wk, struct rnic_dev_stats *st)
{
	unsigned int total = 0, n;
	void *dbs[64];

	do {
		n = rte_ring_sc_dequeue_burst(wk->db_ring, dbs, RTE_DIM(dbs), NULL);
		for (unsigned int i = 0; i < n; i++) {
			uint64_t db = (uint64_t)(uintptr_t)dbs[i];
			struct rnic_qp *qp = rnic_qp_lookup(wk->dev, rnic_db_qpn(db));

			if (qp == NULL) {
				st->doorbells++;
				continue;   /* QP destroyed after posting */
			}
			rnic_qp_db_take(wk, qp, false);   /* [DB] told when the SQ is empty */
		}
		total += n;
	} while (n == RTE_DIM(dbs));
	/* [DB-LOST] a doorbell found the ring full: look at every QP. */
	if (rnic_dev_rescan(wk, &wk->db_lost, &wk->tx.db_lost_seen, sched_add))
		total++;
	return total;
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
is_atomic(uint8_t op)
{
	return op == RNIC_WR_ATOMIC_CMP_AND_SWP || op == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static bool
is_rd_atomic(uint8_t op)
{
	return op == RNIC_WR_RDMA_READ || is_atomic(op);
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
	if (qp->type == RNIC_QPT_UD && !rnic_ah_valid(qp->dev, &rnic_wqe_ext(qp, w)->ud.ah))
		return RNIC_WC_LOC_QP_OP_ERR;   /* no such source GID */
	if (is_atomic(w->opcode) && w->total_len != RNIC_ATOMIC_LEN)
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

/* Where the @p len bytes at offset @p off of the WQE's data lie when they
 * are in one piece (inline, or within one SGE); NULL when they span SGEs. */
static const void *
data_piece(const struct rnic_wqe *w, uint32_t off, uint32_t len)
{
	if (w->flags & RNIC_SEND_INLINE)
		return (const uint8_t *)w->sge + off;
	for (uint32_t i = 0; i < w->num_sge; i++) {
		uint32_t sl = w->sge[i].length;

		if (off < sl)
			return sl - off >= len ? (const void *)(uintptr_t)(w->sge[i].addr + off) :
						 NULL;
		off -= sl;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* RequesterTransControl (seed 3.4.1) + ReqPktGen (seed 3.4.4)           */
/* ------------------------------------------------------------------ */

/* The opcode of a SEND/WRITE packet: [only, first, middle, last]. */
static uint8_t
seg_opcode(const uint8_t ops[4], bool first, bool last)
{
	return first && last ? ops[0] : first ? ops[1] : last ? ops[3] : ops[2];
}

static uint8_t
req_opcode(const struct rnic_qp *qp, const struct rnic_wqe *w, bool first, bool last)
{
	static const uint8_t seg[RNIC_WR_MAX][4] = {
		[RNIC_WR_SEND] = { RNIC_OP_SEND_ONLY, RNIC_OP_SEND_FIRST,
				   RNIC_OP_SEND_MIDDLE, RNIC_OP_SEND_LAST },
		[RNIC_WR_SEND_WITH_IMM] = { RNIC_OP_SEND_ONLY_IMM, RNIC_OP_SEND_FIRST,
					    RNIC_OP_SEND_MIDDLE, RNIC_OP_SEND_LAST_IMM },
		[RNIC_WR_SEND_WITH_INV] = { RNIC_OP_SEND_ONLY_INV, RNIC_OP_SEND_FIRST,
					    RNIC_OP_SEND_MIDDLE, RNIC_OP_SEND_LAST_INV },
		[RNIC_WR_RDMA_WRITE] = { RNIC_OP_WRITE_ONLY, RNIC_OP_WRITE_FIRST,
					 RNIC_OP_WRITE_MIDDLE, RNIC_OP_WRITE_LAST },
		[RNIC_WR_RDMA_WRITE_WITH_IMM] = { RNIC_OP_WRITE_ONLY_IMM, RNIC_OP_WRITE_FIRST,
						  RNIC_OP_WRITE_MIDDLE, RNIC_OP_WRITE_LAST_IMM },
	};
	uint8_t o;

	switch (w->opcode) {
	case RNIC_WR_RDMA_READ:
		o = RNIC_OP_READ_REQ;
		break;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
		o = RNIC_OP_CMP_SWAP;
		break;
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		o = RNIC_OP_FETCH_ADD;
		break;
	default:
		o = seg_opcode(seg[w->opcode], first, last);
		break;
	}
	return RNIC_OPC(rnic_qp_transport(qp), o);
}

/*
 * mbufs the device's MultiQueues hold (rnic_dev.h mq_limit), at most: the
 * releases are read again only near the limit, so the RX role's counter
 * is not pulled into this core for every packet.
 */
static uint64_t
mq_pool_held(struct rnic_worker *wk)
{
	struct rnic_dev_tx *tx = &wk->tx;
	uint64_t held = tx->mq_held - tx->mq_freed_seen;

	if (held + 1 >= wk->mq_limit) {
		tx->mq_freed_seen = LOAD_ACQ(&wk->rx.mq_freed) +       /* [MQ-FREED] */
				    LOAD_ACQ(&wk->mq_freed_ctl);
		held = tx->mq_held - tx->mq_freed_seen;
	}
	return held;
}

/* Append to the MultiQueue (published at the end of the QP's turn). */
static void
mq_push(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e)
{
	if (e->m != NULL)
		wk->tx.mq_held++;
	rnic_mq_push(&qp->req.mq, e);
}

/* [MQ-ARM] After a sequentially consistent fence (tx_settle's): the
 * head of each QP mq_publish noted, and a kick for those whose list was
 * empty before the publication and whose loss timer is not in force. */
static void
tx_arm_settle(struct rnic_dev_tx *tx)
{
	for (uint32_t k = 0; k < tx->n_arm; k++) {
		struct rnic_qp *qp = tx->arm[k].qp;

		if (rnic_mq_was_empty(&qp->req.mq, tx->arm[k].old) &&
		    !LOAD_RLX(&qp->comp.loss_armed))
			rnic_qp_kick(qp);
	}
	tx->n_arm = 0;
}

/* Publish what this turn appended; the first entries of an empty list
 * ask RX to arm the loss timer ([MQ-ARM]), unless a timer is in force
 * already: RX would do nothing with the kick then (rnic_comp_kick), and
 * at thousands of QPs the kick ring and the QP's lines it reads again
 * cost more than this load. [MQ-ARM]'s order covers it: the tail is
 * stored, then after a sequentially consistent fence the head and this
 * flag are loaded, and RX clears the flag on expiry before its fence and
 * its load of the tail, so either TX sees the flag clear and kicks, or
 * RX sees the new entries and arms again.
 *
 * The store is a release (the packets leave after it) and the check
 * waits for the pass's end, behind the one fence tx_settle issues for
 * all of the pass's QPs (a fence of its own after RNIC_TX_ARM of them):
 * a sequentially consistent store each drained the store buffer, the
 * turn's frames and MultiQueue entries among it, QP after QP (16384 QPs
 * 1.0075x by in-run A/B, 8 of 8; one QP 1.000x, doc/benchmarks.md). The
 * timer is then asked for a few turns later, in the same pass. */
static void
mq_publish(struct rnic_worker *wk, struct rnic_qp *qp)
{
	struct rnic_dev_tx *tx = &wk->tx;

	if (qp->req.mq.tail_next == qp->req.mq.tail)
		return;
	if (unlikely(tx->n_arm == RNIC_TX_ARM)) {
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);   /* [MQ-ARM] */
		tx_arm_settle(tx);
	}
	tx->arm[tx->n_arm].old = rnic_mq_publish(&qp->req.mq);
	tx->arm[tx->n_arm++].qp = qp;
}

/* The headers of the next packet of WQE @p w. A request carries no
 * SACK: ext is last, and its map is never cleared (plan_init). */
struct pkt_plan {
	struct rnic_bth_fields b;
	uint32_t paylen;
	uint32_t npsn;
	uint8_t mqtype;
	bool last;
	struct rnic_ext_fields ext;
};

static inline void
plan_init(struct pkt_plan *p)
{
	RTE_BUILD_BUG_ON(offsetof(struct pkt_plan, ext) + sizeof(p->ext) != sizeof(*p));
	rnic_zero_small(p, offsetof(struct pkt_plan, ext));
	rnic_ext_clear(&p->ext);
	p->npsn = 1;
}

static void
plan_rd_atomic(struct rnic_qp *qp, const struct rnic_wqe *w, struct pkt_plan *p)
{
	const struct rnic_wqe_ext *x;

	p->last = true;
	if (w->opcode == RNIC_WR_RDMA_READ) {
		p->npsn = RTE_MAX(1u, (w->total_len + qp->pmtu - 1) / qp->pmtu);
		p->ext.reth_va = w->remote_addr;
		p->ext.reth_rkey = w->rkey;
		p->ext.reth_len = w->total_len;
		p->mqtype = RNIC_MQ_READ;
		return;
	}
	p->ext.atm_va = w->remote_addr;
	p->ext.atm_rkey = w->rkey;
	x = rnic_wqe_ext(qp, w);
	p->ext.atm_swap_add = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? x->atomic.swap :
								      x->atomic.compare_add;
	p->ext.atm_cmp = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? x->atomic.compare_add : 0;
	p->mqtype = RNIC_MQ_ATOMIC;
}

static void
plan_send_write(struct rnic_qp *qp, const struct rnic_wqe *w, bool first, struct pkt_plan *p)
{
	uint32_t off = qp->req.cur_off;

	p->paylen = RTE_MIN(w->total_len - off, qp->pmtu);
	p->last = off + p->paylen == w->total_len;
	p->mqtype = RNIC_MQ_SEND_WRITE;
	if (first && (w->opcode == RNIC_WR_RDMA_WRITE ||
		      w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)) {
		p->ext.reth_va = w->remote_addr;
		p->ext.reth_rkey = w->rkey;
		p->ext.reth_len = w->total_len;
	}
	if (p->last) {
		p->ext.imm = w->imm;
		p->ext.ieth_rkey = w->inv_rkey;
	}
	if (qp->attr.sr) {
		/* Selective repeat: where this packet's bytes go, for a
		 * responder that gets it before the packets ahead of it. */
		p->b.sr = true;
		p->ext.sr_len = w->total_len;
		if (w->opcode == RNIC_WR_RDMA_WRITE || w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM) {
			p->ext.sr_va = w->remote_addr + off;
			p->ext.sr_key = w->rkey;
			p->ext.sr_aux = off;
		} else {
			p->ext.sr_va = off;
			p->ext.sr_key = qp->req.ssn;
		}
	}
}

/* UD: the destination of the WQE's address handle. */
static void
plan_ud(const struct rnic_qp *qp, const struct rnic_wqe *w, struct pkt_plan *p,
	struct rnic_l2l3 *l_ud)
{
	const struct rnic_wqe_ext *x = rnic_wqe_ext(qp, w);

	*l_ud = qp->l2;
	memcpy(l_ud->dst_mac, x->ud.ah.dmac, 6);
	rnic_ah_to_l3(qp->dev, &x->ud.ah, l_ud);
	l_ud->vlan = x->ud.ah.vlan;
	l_ud->vlan_tci = x->ud.ah.vlan_tci;
	p->b.dqpn = x->ud.qpn;
	p->ext.deth_qkey = (x->ud.qkey & RNIC_QKEY_USE_QP) ? qp->attr.qkey : x->ud.qkey;
	p->ext.deth_sqp = qp->qpn;
}

/*
 * RC: room in the MultiQueue and in the part of the pool requests may
 * hold. *pool_last is set for the last packet before that limit. This and
 * req_packet_sent run for every packet: inline (GCC kept both out of
 * line; 1.012-1.015x by in-run A/B, doc/benchmarks.md).
 */
static __rte_always_inline bool
rc_window_open(struct rnic_worker *wk, struct rnic_qp *qp, bool *pool_last,
	       struct rnic_dev_stats *st)
{
	uint64_t held;

	if (rnic_mq_room(&qp->req.mq) == 0)
		return false;
	held = mq_pool_held(wk);
	if (held >= wk->mq_limit) {
		st->tx_nombuf++;   /* the rest of the pool is kept for responses */
		return false;
	}
	/* The last packet before the limit asks for an ACK: otherwise the
	 * packets held could all be ones the responder need not acknowledge,
	 * and nothing would free them but the loss timer. */
	*pool_last = held + 1 >= wk->mq_limit;
	return true;
}

/* RC: frame @p m of WQE @p w at SQ index @p idx, its first PSN @p psn,
 * kept on the MultiQueue (a reference of its own) until acknowledged. */
static __rte_always_inline void
mq_push_frame(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
	      struct rte_mbuf *m, uint32_t psn, uint32_t idx, uint32_t npsn, uint32_t type,
	      bool last)
{
	struct rnic_mq_ent e = {
		.m = m, .psn = psn, .wqe_idx = idx, .npsn = npsn, .type = type,
		.flags = (last ? RNIC_MQF_LAST : 0) |
			 ((w->flags & RNIC_SEND_SIGNALED) ? RNIC_MQF_SIGNALED : 0),
		.sent = rnic_mq_stamp(wk->tx.now),
	};

	rte_mbuf_refcnt_update(m, 1);   /* the MultiQueue's reference */
	mq_push(wk, qp, &e);
}

/* The packet is built: account for it and move the WQE's cursor on. */
static __rte_always_inline void
req_packet_sent(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
		struct rte_mbuf *m, const struct pkt_plan *p,
		struct rnic_dev_stats *st)
{
	if (qp->type == RNIC_QPT_RC)
		mq_push_frame(wk, qp, w, m, qp->req.psn, qp->req.sq_fetch, p->npsn, p->mqtype,
			      p->last);
	rnic_txbuf_add(&wk->tx.txb, m);
	st->tx_bytes += m->pkt_len;
	qp->req.psn = rnic_psn_add(qp->req.psn, p->npsn);
	qp->req.cur_off += p->paylen;
	qp->req.cur_pkt++;
	if (!p->last)
		return;
	qp->req.cur_active = 0;
	qp->req.cur_off = 0;
	qp->req.cur_pkt = 0;
	if (w->opcode != RNIC_WR_RDMA_WRITE && p->mqtype == RNIC_MQ_SEND_WRITE)
		qp->req.ssn++;   /* it takes a receive WQE */
	if (p->mqtype != RNIC_MQ_SEND_WRITE)
		STORE_RLX(&qp->req.rd_issued, qp->req.rd_issued + 1);
	STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);   /* [SQ-FETCH] */
	if (qp->type != RNIC_QPT_RC)
		rnic_complete_send(qp, RNIC_WC_SUCCESS);   /* UC/UD: on transmit */
}

/*
 * DCQCN's reaction point (rnic_dcqcn.h): apply the CNPs the RX role saw
 * ([CNP]), move the rate on with the time and bytes since, and say
 * whether the pace lets the next packet go now. A QP that never got a
 * CNP pays one load.
 */
static bool
cc_may_send(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	const struct rnic_device *dev = wk->dev;
	uint32_t seen = LOAD_ACQ(&qp->comp.cnp_seen);   /* [CNP] */
	uint64_t now_us;

	if (likely(seen == qp->req.cnp_applied && !qp->req.cc.limited))
		return true;
	now_us = wk->tx.now / dev->tsc_per_us;
	if (seen != qp->req.cnp_applied) {
		qp->req.cnp_applied = seen;
		if (!dev->attr.no_dcqcn) {
			if (qp->req.cc.rc_mbps == 0)
				rnic_dcqcn_init(&qp->req.cc, &dev->attr.dcqcn, now_us);
			st->cnp_rate_cuts += rnic_dcqcn_cnp(&qp->req.cc, &dev->attr.dcqcn, now_us);
		}
	}
	rnic_dcqcn_advance(&qp->req.cc, &dev->attr.dcqcn, now_us);
	return !qp->req.cc.limited || (int64_t)(wk->tx.now - qp->req.pace_tsc) >= 0;
}

/* A go-back-N resend the RX role paces is still going out ([PACE]): new
 * packets sent meanwhile would reach the responder before the resent ones
 * and be discarded as out of sequence. A hint: relaxed loads of RX's
 * cursor, a stale answer costs one packet's order. */
static inline bool
rexmit_pumping(const struct rnic_qp *qp)
{
	return LOAD_RLX(&qp->comp.rexmit_next) != LOAD_RLX(&qp->comp.rexmit_end);
}

/* A paced QP sent @p len bytes: the next may leave len * 8 / rate later. */
static void
cc_charge(struct rnic_worker *wk, struct rnic_qp *qp, uint32_t len)
{
	uint64_t gap;

	if (likely(!qp->req.cc.limited))
		return;
	rnic_dcqcn_sent(&qp->req.cc, len);
	gap = (uint64_t)len * 8 * wk->dev->tsc_per_us / qp->req.cc.rc_mbps;
	qp->req.pace_tsc = RTE_MAX(qp->req.pace_tsc, wk->tx.now) + gap;
}

/*
 * Build and queue the next packet of the current WQE. Returns 1 when a
 * packet was produced, 0 when the QP must wait (window, mbufs, TX buffer).
 */
static int
req_send_packet(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
		struct rnic_dev_stats *st)
{
	const bool rc = qp->type == RNIC_QPT_RC;
	bool first = qp->req.cur_off == 0 && qp->req.cur_pkt == 0, pool_last = false;
	struct pkt_plan p;
	const struct rnic_pkt_tmpl *t = &qp->tmpl;
	struct rnic_l2l3 l_ud;
	uint32_t l3_off = t->l3_off;
	struct rte_mbuf *m;
	uint8_t *payload;
	const void *src;

	if (!rnic_txbuf_room(&wk->tx.txb) || (rc && !rc_window_open(wk, qp, &pool_last, st)))
		return 0;
	plan_init(&p);
	if (is_rd_atomic(w->opcode))
		plan_rd_atomic(qp, w, &p);
	else
		plan_send_write(qp, w, first, &p);
	p.b.opcode = req_opcode(qp, w, first, p.last);
	p.b.psn = qp->req.psn;
	p.b.pkey = qp->attr.pkey;
	p.b.se = p.last && (w->flags & RNIC_SEND_SOLICITED);
	if (qp->type == RNIC_QPT_UD) {
		plan_ud(qp, w, &p, &l_ud);
		t = NULL;   /* a destination per WQE */
		l3_off = rnic_l3_off(&l_ud);
	} else {
		p.b.dqpn = qp->attr.dest_qp_num;
		/* A QP paced by DCQCN asks on every packet: at a low rate,
		 * 16 packets would outlast its RTO before an ACK came. */
		p.b.ackreq = rc && (p.last || pool_last || qp->req.cc.limited ||
				    (qp->req.psn % RNIC_ACKREQ_EVERY) == 0);
	}
	m = rnic_pkt_alloc(wk->dev, st, t, &l_ud, &p.b, &p.ext, p.paylen, &payload);
	if (m == NULL)
		return 0;
	src = p.paylen ? data_piece(w, qp->req.cur_off, p.paylen) : NULL;
	if (src != NULL) {
		rnic_pkt_fill_seal(m, l3_off, payload, src, p.paylen);
	} else {
		if (p.paylen)
			data_pack(w, qp->req.cur_off, p.paylen, payload);
		rnic_pkt_seal(m, l3_off);
	}
	cc_charge(wk, qp, m->pkt_len);
	req_packet_sent(wk, qp, w, m, &p, st);
	return 1;
}

/*
 * The payload of a fast path's packet, and its ICRC: in one pass over the
 * payload from RNIC_ICRC_COPY_SEAL_MIN bytes (rnic_pkt_fill_seal); a
 * shorter payload copied, then the frame sealed while its lines are
 * fresh. (Sealing the short frames of a QP's turn together at its end,
 * so that their CRCs overlap, paid 1.017-1.028x on the AMD Zen 3 VM with
 * ISA-L's CRC, 6b5997d; on the Zen 4 VM it cost 0.8-6%,
 * doc/benchmarks.md.) The pad was zeroed by rnic_pkt_alloc.
 */
static inline void
tx_fill(struct rte_mbuf *m, uint32_t l3_off, uint8_t *payload, const void *src, uint32_t len)
{
	if (len >= RNIC_ICRC_COPY_SEAL_MIN) {
		rnic_pkt_fill_seal(m, l3_off, payload, src, len);
		return;
	}
	if (len != 0)   /* an empty WRITE's SGE may name no memory at all */
		rnic_copy_small(payload, src, len);
	rnic_pkt_seal(m, l3_off);
}

/*
 * An mbuf for a fast-path packet: from the TX role's stash, refilled a
 * burst at a time (rte_pktmbuf_alloc_bulk: one pass over the mempool
 * cache for RNIC_TX_STASH packets, 1.018-1.024x by in-run A/B,
 * doc/benchmarks.md); one at a time when the pool has fewer left. NULL
 * when it has none. A pass that sends nothing gives the rest back
 * (rnic_tx_stash_drop), so the fill is sized to the traffic: after a
 * drop as many as that fill gave out, doubled each time a fill is used
 * up. With one message at a time a full fill was 31 mbufs allocated,
 * reset and freed for each (doc/benchmarks.md: 1.20x on the main lcore
 * with one WRITE outstanding; write_lat's p50 0.89-0.95 over memif).
 */
static __rte_always_inline struct rte_mbuf *
tx_mbuf(struct rnic_worker *wk)
{
	struct rnic_dev_tx *tx = &wk->tx;
	uint32_t want;

	if (likely(tx->i_stash < tx->n_stash))
		return tx->stash[tx->i_stash++];
	if (tx->n_stash != 0)   /* used up within a pass: twice as many */
		want = RTE_MIN(2 * tx->n_stash, (uint32_t)RNIC_TX_STASH);
	else                    /* after a drop: as many as the last fill gave */
		want = tx->stash_want != 0 ? tx->stash_want : RNIC_TX_STASH;
	if (rte_pktmbuf_alloc_bulk(wk->dev->pool, tx->stash, want) != 0)
		return rte_pktmbuf_alloc(wk->dev->pool);
	tx->n_stash = want;
	tx->i_stash = 1;
	return tx->stash[0];
}

/* Whether the fast paths may send on @p qp: an RC QP without selective
 * repeat that no CNP has slowed and DCQCN does not pace. */
static __rte_always_inline bool
write_fast_qp(const struct rnic_qp *qp)
{
	return !qp->attr.sr && LOAD_ACQ(&qp->comp.cnp_seen) == qp->req.cnp_applied &&   /* [CNP] */
	       !qp->req.cc.limited;
}

/* Whether WQE @p w is the fast paths': an RDMA WRITE without immediate,
 * its data inline or in one SGE (*@p src). */
static __rte_always_inline bool
write_fast_wqe(const struct rnic_wqe *w, const uint8_t **src)
{
	if (w->opcode != RNIC_WR_RDMA_WRITE)
		return false;
	if (w->flags & RNIC_SEND_INLINE)
		*src = (const uint8_t *)w->sge;
	else if (w->num_sge == 1 && w->sge[0].length == w->total_len)
		*src = (const uint8_t *)(uintptr_t)w->sge[0].addr;
	else
		return false;
	return true;
}

/* Whether the fast paths may send the packets of WQE @p w on @p qp. */
static __rte_always_inline bool
write_fast_ok(const struct rnic_qp *qp, const struct rnic_wqe *w, const uint8_t **src)
{
	return w->opcode == RNIC_WR_RDMA_WRITE && write_fast_qp(qp) && write_fast_wqe(w, src);
}

/* The source MR's check of a fast-path WRITE (the WQEParser's, as
 * req_start_wqe makes it): none for inline data or an empty WRITE. */
static __rte_always_inline bool
write_src_ok(const struct rnic_qp *qp, const struct rnic_wqe *w)
{
	struct rnic_mr *mr;

	return (w->flags & RNIC_SEND_INLINE) || w->total_len == 0 ||
	       rnic_mr_check(qp->dev, qp->pd, w->sge[0].lkey, false, w->sge[0].addr,
			     w->total_len, 0, &mr) == RNIC_MEMCHK_OK;
}

/* The frame of a fast-path WRITE packet @p op with PSN @p psn: @p paylen
 * bytes at @p src from the header template, sealed; NULL (counted) when
 * there is no mbuf. */
static __rte_always_inline struct rte_mbuf *
write_frame(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w, uint8_t op,
	    uint32_t paylen, bool last, bool ackreq, uint32_t psn, const uint8_t *src,
	    struct rnic_dev_stats *st)
{
	const struct rnic_pkt_tmpl *t = &qp->tmpl;
	/* the fields the template reads, no more */
	const struct rnic_bth_fields b = {
		.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, op),
		.se = last && (w->flags & RNIC_SEND_SOLICITED), .ackreq = ackreq,
		.pkey = qp->attr.pkey, .dqpn = qp->attr.dest_qp_num, .psn = psn,
	};
	/* The RETH's fields alone: a WRITE First, Middle, Last or Only
	 * without the SR bit has no other extension header, and ext_write
	 * reads only those of the opcode's mask. Zeroing the rest (136 bytes,
	 * a `rep stos` here) cost 1.042x at ring 64 B and 1.020x at 16384
	 * QPs by in-run A/B (doc/benchmarks.md). */
	struct rnic_ext_fields ext;
	struct rte_mbuf *m;
	uint8_t *payload;

	ext.reth_va = w->remote_addr;
	ext.reth_rkey = w->rkey;
	ext.reth_len = w->total_len;
	m = rnic_pkt_alloc_from(wk->dev, tx_mbuf(wk), st, t, NULL, &b, &ext, paylen, &payload);
	if (m != NULL)
		tx_fill(m, t->l3_off, payload, src, paylen);
	return m;
}

/*
 * The fast paths' packet: the WRITE @p op of @p paylen bytes at @p src
 * (the payload at the WQE's current offset) from the header template,
 * without req_send_packet's general plan. @return 1 when it went out, 0
 * when the QP must wait (as req_send_packet).
 */
static __rte_always_inline int
write_fast_send(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
		uint8_t op, uint32_t paylen, bool last, const uint8_t *src,
		struct rnic_dev_stats *st)
{
	bool pool_last = false;
	struct pkt_plan p;
	struct rte_mbuf *m;

	if (!rnic_txbuf_room(&wk->tx.txb) || !rc_window_open(wk, qp, &pool_last, st))
		return 0;
	m = write_frame(wk, qp, w, op, paylen, last,
			last || pool_last || (qp->req.psn % RNIC_ACKREQ_EVERY) == 0, qp->req.psn,
			src, st);
	if (m == NULL)
		return 0;
	/* the fields req_packet_sent reads, no more */
	p.paylen = paylen;
	p.npsn = 1;
	p.mqtype = RNIC_MQ_SEND_WRITE;
	p.last = last;
	req_packet_sent(wk, qp, w, m, &p, st);
	return 1;
}

/*
 * The common request's fast path (write_fast_ok's WQEs, not fenced).
 * Does for it what req_start_wqe does (the WQEParser's checks) without
 * its general gates, and for a WRITE of one packet (at most the PMTU)
 * what req_send_packet does: one WRITE Only with AckReq.
 * @return 1 when the packet went out; 2 when a longer WRITE was started
 * (req_write_packet sends its packets); 0 when the QP must wait (as
 * req_send_packet); -1 for any other WQE, and for a bad one: nothing
 * done, the general path takes it and reports it.
 */
static int
req_write_only(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
	       struct rnic_dev_stats *st)
{
	const uint32_t len = w->total_len;
	const uint8_t *src;

	if ((w->flags & RNIC_SEND_FENCE) || !write_fast_ok(qp, w, &src) || !write_src_ok(qp, w))
		return -1;
	if (len > qp->pmtu) {
		qp->req.cur_active = 1;   /* as req_start_wqe */
		qp->req.cur_off = 0;
		qp->req.cur_pkt = 0;
		return 2;
	}
	return write_fast_send(wk, qp, w, RNIC_OP_WRITE_ONLY, len, true, len != 0 ? src : NULL,
			       st);
}

/*
 * The fast path for the next packet of the current WQE, a longer
 * write_fast_ok WRITE which req_write_only or req_start_wqe started (and
 * checked). @return as write_fast_send, or -1 for any other packet
 * (req_send_packet sends it).
 */
static int
req_write_packet(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_wqe *w,
		 struct rnic_dev_stats *st)
{
	const uint32_t len = w->total_len, off = qp->req.cur_off;
	const uint8_t *src;
	uint32_t paylen;
	bool first, last;

	if (!write_fast_ok(qp, w, &src))
		return -1;
	first = off == 0 && qp->req.cur_pkt == 0;
	paylen = RTE_MIN(len - off, qp->pmtu);
	last = off + paylen == len;
	return write_fast_send(wk, qp, w,
			       first ? (last ? RNIC_OP_WRITE_ONLY : RNIC_OP_WRITE_FIRST) :
				       (last ? RNIC_OP_WRITE_LAST : RNIC_OP_WRITE_MIDDLE),
			       paylen, last, paylen != 0 ? src + off : NULL, st);
}

/* A bad WQE on RC waits in the MultiQueue for everything before it
 * (seed 3.4.1.1.3.1). */
static int
req_queue_bad(struct rnic_worker *wk, struct rnic_qp *qp)
{
	struct rnic_mq_ent e = {
		.psn = qp->req.psn, .wqe_idx = qp->req.sq_fetch, .type = RNIC_MQ_BAD,
		.flags = RNIC_MQF_LAST,
	};

	if (rnic_mq_room(&qp->req.mq) == 0)
		return 0;
	mq_push(wk, qp, &e);
	mq_publish(wk, qp);
	STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);   /* [SQ-FETCH] */
	qp->req.stopped = 1;
	rnic_qp_kick(qp);   /* it may be at the head already */
	return 1;
}

/* Error/SQE: hand every announced WQE to the flush (seed 2.4.3.1.2). */
static void
req_flush(struct rnic_qp *qp)
{
	uint32_t end = LOAD_SC(&qp->app.sq_pi);   /* [SQ-PI] */

	qp->req.cur_active = 0;
	qp->req.cur_off = qp->req.cur_pkt = 0;
	if (qp->type == RNIC_QPT_RC) {
		if (qp->req.sq_fetch != end) {
			STORE_REL(&qp->req.sq_fetch, end);   /* [SQ-FETCH] */
			rnic_qp_kick(qp);
		}
		return;
	}
	while (qp->req.sq_fetch != end) {
		rnic_complete_send(qp, RNIC_WC_WR_FLUSH_ERR);
		STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);   /* [SQ-FETCH] */
	}
}

/*
 * The window counts READ responses too (IRN's BDP flow control counts
 * every packet in flight): a READ may start while the PSNs outstanding,
 * from the oldest unacknowledged request to the next PSN, plus its own
 * responses fit the window (max_inflight). A responder answers a READ
 * in one burst; 128 outstanding 64 KiB READs (perftest against rxe, whose
 * max_qp_rd_atom is 128) asked for 8 MiB at once, more than the links in
 * between queue, and every loss re-asked for the rest of it (go-back-N).
 * The caller lets a READ start when nothing is outstanding, whatever its
 * size. TX wrote every entry, so reading the head's PSN is safe: RX only
 * moves the head on.
 */
static bool
read_window_open(struct rnic_qp *qp, const struct rnic_wqe *w)
{
	struct rnic_mq *mq = &qp->req.mq;
	uint32_t head = LOAD_ACQ(mq->head);     /* [MQ-HEAD] */
	uint32_t span, n;

	if (head == mq->tail_next)
		return true;
	span = (uint32_t)rnic_psn_diff(qp->req.psn, mq->ents[head & mq->mask].psn);
	n = RTE_MAX(1u, (w->total_len + qp->pmtu - 1) / qp->pmtu);
	return span + n <= mq->limit;
}

/*
 * WQEParser on the WQE at sq_fetch, and the gates before it may start.
 * Returns true when it can be segmented now.
 */
static bool
req_start_wqe(struct rnic_worker *wk, struct rnic_qp *qp)
{
	struct rnic_wqe *w = rnic_sq_wqe(qp, qp->req.sq_fetch);
	enum rnic_wc_status s = wqe_parse(qp, w);

	if (s != RNIC_WC_SUCCESS) {
		if (qp->type == RNIC_QPT_RC) {
			w->status = (uint8_t)s;   /* for the completer */
			req_queue_bad(wk, qp);
		} else {
			/* UC/UD: error completion, then the SQ error state
			 * (unless another thread moved the QP on first). */
			rnic_complete_send(qp, s);
			STORE_REL(&qp->req.sq_fetch, qp->req.sq_fetch + 1);   /* [SQ-FETCH] */
			rnic_qp_state_cas(qp, RNIC_QPS_RTS, RNIC_QPS_SQE);
		}
		return false;
	}
	if (qp->type == RNIC_QPT_RC && ((w->flags & RNIC_SEND_FENCE) || is_rd_atomic(w->opcode))) {
		uint32_t outstanding = qp->req.rd_issued -
				       LOAD_ACQ(&qp->comp.rd_done);   /* [RD-DONE] */

		/* Fence: wait for earlier READ/atomics (seed 3.4.1.1.3.2.3). */
		if ((w->flags & RNIC_SEND_FENCE) && outstanding)
			return false;
		if (is_rd_atomic(w->opcode) &&
		    outstanding >= (uint32_t)RTE_MAX(qp->attr.max_rd_atomic, (uint8_t)1))
			return false;
		if (w->opcode == RNIC_WR_RDMA_READ && !read_window_open(qp, w))
			return false;
	}
	qp->req.cur_active = 1;
	qp->req.cur_off = 0;
	qp->req.cur_pkt = 0;
	return true;
}

/*
 * Within one QP's turn, the WQE TX_WQE_AHEAD places on. The application
 * wrote it on its own CPU, so its lines are a miss; tx_prefetch_wqe only
 * covers the first WQEs of the next QP's turn, and with one busy QP there
 * is no next QP (ring 64 B, one QP: 1.014x by in-run A/B; 4 and 8 ahead
 * measured alike).
 */
#define TX_WQE_AHEAD 8u

static inline void
tx_prefetch_one_wqe(const struct rnic_qp *qp, uint32_t idx)
{
	const uint8_t *w = (const uint8_t *)rnic_sq_wqe(qp, idx);

	rte_prefetch0(w);   /* the header and the first SGE */
	if (qp->sq_stride > RTE_CACHE_LINE_SIZE)
		rte_prefetch0(w + RTE_CACHE_LINE_SIZE);
}

/* True when the doorbell record names WQEs TX has not seen ([DB]). */
static bool
req_more_wqes(struct rnic_qp *qp)
{
	if (qp->req.sq_fetch != qp->req.sq_db)
		return true;
	qp->req.sq_db = LOAD_SC(&qp->app.sq_pi);   /* [SQ-PI] [DB] */
	return qp->req.sq_fetch != qp->req.sq_db;
}

/*
 * The common turn's fast path: the run of one-packet WRITEs (WRITE Only,
 * AckReq on each, as write_fast_send sends them) from the WQE at
 * sq_fetch on, as far as the window, the part of the pool requests may
 * hold (short of its last packet, which the general path sends with an
 * AckReq of its own), the TX buffer and @p budget let it go. Each packet
 * is checked, built, sealed and kept on the MultiQueue as
 * req_write_only does it; the PSN, sq_fetch, the TX buffer's count and
 * the statistics move once for the run (ring 64 B 1.031x, 16384 QPs
 * 1.014x by in-run A/B, doc/benchmarks.md). The first WQE it does not
 * take (another opcode, fenced, longer than the PMTU, a bad SGE) ends
 * the run, and the general loop takes it. Returns the packets sent.
 */
static unsigned int
req_write_run(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int budget,
	      struct rnic_dev_stats *st)
{
	struct rnic_dev_tx *tx = &wk->tx;
	const uint32_t fetch = qp->req.sq_fetch, psn = qp->req.psn;
	uint64_t held, bytes = 0;
	uint32_t n, i;

	if (!write_fast_qp(qp))
		return 0;
	held = mq_pool_held(wk);
	if (held + 1 >= wk->mq_limit)
		return 0;
	n = RTE_MIN((uint32_t)budget, qp->req.sq_db - fetch);
	n = RTE_MIN(n, rnic_txbuf_free(&tx->txb));
	n = RTE_MIN(n, rnic_mq_room(&qp->req.mq));
	n = RTE_MIN(n, (uint32_t)(wk->mq_limit - held - 1));
	for (i = 0; i < n; i++) {
		const struct rnic_wqe *w = rnic_sq_wqe(qp, fetch + i);
		const uint8_t *src;
		struct rte_mbuf *m;

		if (qp->req.sq_db - (fetch + i) > TX_WQE_AHEAD)
			tx_prefetch_one_wqe(qp, fetch + i + TX_WQE_AHEAD);
		if ((w->flags & RNIC_SEND_FENCE) || w->total_len > qp->pmtu ||
		    !write_fast_wqe(w, &src) || !write_src_ok(qp, w))
			break;
		m = write_frame(wk, qp, w, RNIC_OP_WRITE_ONLY, w->total_len, true, true,
				rnic_psn_add(psn, i), w->total_len != 0 ? src : NULL, st);
		if (m == NULL)
			break;
		mq_push_frame(wk, qp, w, m, rnic_psn_add(psn, i), fetch + i, 1,
			      RNIC_MQ_SEND_WRITE, true);
		rnic_txbuf_put(&tx->txb, i, m);
		bytes += m->pkt_len;
	}
	if (i == 0)
		return 0;
	rnic_txbuf_commit(&tx->txb, i);
	st->tx_bytes += bytes;
	st->tx_fast += i;
	qp->req.psn = rnic_psn_add(psn, i);
	STORE_REL(&qp->req.sq_fetch, fetch + i);   /* [SQ-FETCH] */
	return i;
}

/*
 * One QP's turn. Returns packets produced; *idle is set when the QP has
 * nothing more to do until a new doorbell.
 */
static unsigned int
req_qp_process(struct rnic_worker *wk, struct rnic_qp *qp, enum rnic_qp_state s,
	       unsigned int budget, bool *idle, struct rnic_dev_stats *st)
{
	unsigned int done = 0;

	*idle = false;
	if (s == RNIC_QPS_ERR || s == RNIC_QPS_SQE) {
		req_flush(qp);
		qp->req.sq_db = qp->req.sq_fetch;
		*idle = true;
		return 0;
	}
	if (qp->req.stopped)
		return 0;   /* the bad WQE's completion moves the QP to Error */
	if (s == RNIC_QPS_RTS && qp->type == RNIC_QPT_RC && !qp->req.cur_active &&
	    req_more_wqes(qp))
		done = req_write_run(wk, qp, budget, st);
	while (done < budget) {
		const struct rnic_wqe *w;
		int r = -1;

		if (!qp->req.cur_active) {
			if (s != RNIC_QPS_RTS)
				break;   /* SQD: finish the current WQE only */
			if (!req_more_wqes(qp)) {
				*idle = true;
				break;
			}
			if (qp->req.sq_db - qp->req.sq_fetch > TX_WQE_AHEAD)
				tx_prefetch_one_wqe(qp, qp->req.sq_fetch + TX_WQE_AHEAD);
			if (qp->type == RNIC_QPT_RC) {
				r = req_write_only(wk, qp, rnic_sq_wqe(qp, qp->req.sq_fetch), st);
				if (r == 0)
					break;
				if (r == 1) {
					st->tx_fast++;
					done++;
					continue;
				}
			}
			if (r != 2 && !req_start_wqe(wk, qp))
				break;
		}
		if (!cc_may_send(wk, qp, st))
			break;   /* paced: stays on the active list */
		if (unlikely(qp->req.cc.limited && rexmit_pumping(qp)))
			break;   /* the RX role's paced resend goes first */
		w = rnic_sq_wqe(qp, qp->req.sq_fetch);
		r = qp->type == RNIC_QPT_RC ? req_write_packet(wk, qp, w, st) : -1;
		if (r < 0)
			r = req_send_packet(wk, qp, w, st);
		else
			st->tx_fast += (unsigned int)r;
		if (r == 0)
			break;
		done++;
	}
	mq_publish(wk, qp);   /* before any of these packets can leave */
	return done;
}

/* One QP's turn on the TX role's active list, at most @p budget packets,
 * in state @p s as the walk read it; false when it went idle. */
static bool
tx_qp_turn(struct rnic_worker *wk, struct rnic_qp *qp, enum rnic_qp_state s,
	   unsigned int budget, unsigned int *work)
{
	struct rnic_dev_tx *tx = &wk->tx;
	bool idle;

	*work += req_qp_process(wk, qp, s, budget, &idle, &tx->st);
	if (!rnic_txbuf_room(&tx->txb))
		rnic_txbuf_flush(&tx->txb, &tx->st);
	return !idle;
}

/* The QP two turns ahead: the lines a turn reads (its control lines,
 * with the state and the header template, then the application's, the
 * TX role's and the completer's first). */
static inline void
tx_prefetch_qp(const struct rnic_qp *qp)
{
	rnic_qp_prefetch_ctl(qp);
	rte_prefetch0(&qp->app);
	rte_prefetch0(&qp->req);
	rte_prefetch0((const char *)&qp->req + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(&qp->comp);
}

/* The QP one turn ahead, whose own lines the last turn prefetched
 * (its doorbell record among them): the WQEs it has waiting, up to
 * TX_PREFETCH_WQES (written on the application's CPU; a turn of a QP
 * with four posted read four, and the first alone left the second
 * line of the others a miss), and the MultiQueue slots of as many. */
#define TX_PREFETCH_WQES 4u

static inline void
tx_prefetch_wqe(const struct rnic_qp *qp)
{
	const struct rnic_mq *mq = &qp->req.mq;
	uint32_t idx = qp->req.sq_fetch;
	/* a hint only: the turn reads the doorbell record again ([SQ-PI]) */
	uint32_t n = LOAD_RLX(&qp->app.sq_pi) - idx;

	n = n == 0 ? 1 : RTE_MIN(n, TX_PREFETCH_WQES);
	for (uint32_t k = 0; k < n; k++)
		tx_prefetch_one_wqe(qp, idx + k);
	rte_prefetch0_write(&mq->ents[mq->tail_next & mq->mask]);
	if (n > 1)
		rte_prefetch0_write(&mq->ents[(mq->tail_next + n - 1) & mq->mask]);
}

/*
 * The pass's deferred checks behind one sequentially consistent fence:
 * mq_publish's ([MQ-ARM], tx_arm_settle) and those of the QPs found idle
 * ([DB]), the places of which are @p idle.
 *
 * [DB] A turn that finds its QP's SQ empty, while TX owes the
 * application the doorbells it took for the QP (db_owed), tells it
 * (db_seen) with a plain store and notes the QP's place on the list:
 * until then the application rang no other doorbell, TX reading the
 * doorbell record (sq_pi) on the QP's turns instead, so a post made
 * while TX works through the SQ costs neither side a doorbell. After the
 * fence TX reads each noted QP's sq_pi once more, in [DB]'s order (each
 * QP's store, the fence, its load; rnic_post.c ring_doorbell): new WQEs
 * keep the QP on the list, none take it off. A sequentially consistent
 * store each was an exchange on the application's line, which waited
 * for that line to come from the posting CPU, one QP after the other; at
 * 16384 QPs 1.078x by in-run A/B (one QP 1.000x, doc/benchmarks.md).
 * Where no lcore polls the device ([POLLED]) one thread posts and runs
 * every role, and neither [DB] nor [MQ-ARM] needs the fence; it is kept
 * there too (one per pass; skipping it measured nothing: write_lat
 * in-run A/B 0.9991, doc/benchmarks.md).
 *
 * A QP taken off leaves the QPs the walk has not visited ahead of the
 * cursor (rnic_qp_list_del_visited): [QP-DEAD] needs every QP seen in a
 * cycle (tx_walk; test: engine-qp-dead). Settled from the last place
 * back, so that no noted QP is moved before its own turn here.
 */
#define TX_IDLE_BATCH 32u

static void
tx_settle(struct rnic_dev_tx *tx, struct rnic_qp_list *l, const uint32_t *idle,
	  unsigned int n, uint32_t *cursor)
{
	if (n == 0 && tx->n_arm == 0)
		return;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);   /* [DB] [MQ-ARM] */
	tx_arm_settle(tx);
	while (n-- > 0) {
		struct rnic_qp *qp = l->q[idle[n]];

		if (LOAD_ACQ(&qp->app.sq_pi) == qp->req.sq_db)   /* [SQ-PI] [DB] */
			rnic_qp_list_del_visited(l, idle[n], cursor, &qp->req.scheduled);
	}
}

/*
 * The WQEScheduler's round robin, at most one burst (the device's burst)
 * a pass: the next pass goes on where this one stopped (a QP whose turn
 * the burst cut short waits for the next cycle). This matches the RX
 * role, which takes one burst a pass from each queue. Unbounded, a pass
 * over thousands of busy QPs put tens of thousands of frames on the link
 * at once; the peer's RX role (the same lcore, run to completion) took
 * them a burst a pass, so every frame waited behind all the others and
 * its mbuf and its QP's lines were out of cache when they were read. A
 * pass that went past the burst, even by a few packets, let that queue
 * grow back in the end (doc/benchmarks.md).
 *
 * A cycle runs from index 0 to the end of the list: every QP on the list
 * when it starts gets a turn before it ends (a QP removed leaves the
 * last in its place, which is visited next; a QP added is appended; a QP
 * found idle stays until tx_settle, at the pass's end or when
 * TX_IDLE_BATCH are noted).
 * Returns true when this pass ended a cycle: only then is a pass of the
 * role over for [QP-DEAD] (rnic_dev_quiesce), as every QP in Reset was
 * seen and dropped.
 */
static bool
tx_walk(struct rnic_worker *wk, struct rnic_pass_clock *clk, unsigned int *work)
{
	struct rnic_dev_tx *tx = &wk->tx;
	struct rnic_qp_list *l = &tx->active;
	uint32_t i = tx->cursor;
	const unsigned int burst = wk->dev->attr.burst;
	unsigned int sent = 0;
	uint32_t idle[TX_IDLE_BATCH];   /* the places of QPs found idle */
	unsigned int nidle = 0;

	if (l->n == 0) {
		tx->cursor = 0;   /* [DB-EVERY]: not behind */
		return true;
	}
	tx->now = rnic_pass_tsc(clk);
	while (i < l->n) {
		struct rnic_qp *qp;
		enum rnic_qp_state s;

		if (unlikely(nidle == TX_IDLE_BATCH)) {
			tx_settle(tx, l, idle, nidle, &i);   /* i stays short of l->n */
			nidle = 0;
		}
		qp = l->q[i];

		/* At 16384 QPs every line of a turn is a miss otherwise */
		if (i + 2 < l->n)
			tx_prefetch_qp(l->q[i + 2]);
		if (i + 1 < l->n)
			tx_prefetch_wqe(l->q[i + 1]);
		if (sent >= burst) {
			tx_settle(tx, l, idle, nidle, &i);
			tx->cursor = i;
			*work += sent;
			return false;
		}
		s = rnic_qp_state_get(qp);
		if (s != RNIC_QPS_RESET) {
			if (tx_qp_turn(wk, qp, s, burst - sent, &sent)) {
				i++;
				continue;
			}
			/* [DB]: the fence and the load of sq_pi in tx_settle;
			 * a QP that owed no doorbell leaves the list now */
			if (rnic_qp_db_settle(qp, true)) {
				idle[nidle++] = i++;
				continue;
			}
		} else {
			rnic_qp_db_settle(qp, false);   /* [QP-DEAD]: the QP's next life rings */
		}
		rnic_qp_list_del(l, i, &qp->req.scheduled);
	}
	tx_settle(tx, l, idle, nidle, &i);
	tx->cursor = 0;
	*work += sent;
	return true;
}

/*
 * [DB-EVERY] Whether this pass reads the doorbell ring. A TX role that is
 * behind (its last pass stopped at a full burst short of its list's end:
 * the cursor is not 0) with at least TX_DB_LIST bursts' worth of QPs on
 * its list reads it every TX_DB_EVERY passes only: a doorbell then waits
 * at most TX_DB_EVERY - 1 passes more, each right after a pass that sent
 * a full burst for the QPs already on the list, and its QP joins the end
 * of that list. Each read of the ring fetched the line of its producer index from
 * the posting thread's CPU, and the few doorbells it found each named a
 * QP whose lines had left the cache (at 16384 QPs 0.5 doorbells a pass,
 * counted 2026-12-02, and doorbell_process 3.3% of the engine lcore;
 * 1.016x and 1.018x there by in-run A/B, doc/benchmarks.md). A pass that
 * ends a cycle sets the cursor back to 0, so the next one reads the
 * ring: [QP-DEAD]'s two cycles (rnic_dev_quiesce) still take every
 * doorbell queued before them.
 */
#define TX_DB_EVERY 4u
#define TX_DB_LIST 4u

static inline bool
tx_db_due(struct rnic_worker *wk)
{
	struct rnic_dev_tx *tx = &wk->tx;

	if (tx->cursor != 0 && tx->active.n >= TX_DB_LIST * wk->dev->attr.burst &&
	    ++tx->db_skipped < TX_DB_EVERY)
		return false;
	tx->db_skipped = 0;
	return true;
}

unsigned int
rnic_worker_poll_tx(struct rnic_worker *wk, struct rnic_pass_clock *clk)
{
	struct rnic_dev_tx *tx = &wk->tx;
	unsigned int work = 0;
	const uint32_t self = rnic_thread_self();
	bool cycle_done;

	rnic_txbuf_flush(&tx->txb, &tx->st);
	if (unlikely(wk->tx_thread != self))
		STORE_RLX(&wk->tx_thread, self);   /* [TX-THREAD] */
	if (tx_db_due(wk))
		work += doorbell_process(wk, &tx->st);
	if (work != 0)
		RNIC_TRACE(RNIC_TP_DOORBELL, work);
	cycle_done = tx_walk(wk, clk, &work);
	rnic_txbuf_flush(&tx->txb, &tx->st);
	/* the pass's completions (UC/UD on transmit, flushes, bad WQEs),
	 * after the pass handed its frames to the port */
	rnic_cqe_stage_flush(&tx->cqe, &tx->st);
	if (cycle_done)
		rnic_dev_iter_done(&tx->iter);
	if (work == 0)   /* idle: the pool has them all back */
		rnic_tx_stash_drop(tx);
	rnic_ab_tick(work);   /* nothing unless built with -Dab_toggle=true */
	return work;
}
