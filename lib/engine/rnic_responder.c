/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (seed 4.4) on the RX lcore:
 *   ExecutionEngine  - QP state, PSN check (seed 4.4.1.1.3, seed 001 s3),
 *                      opcode sequence, memory checks, execution
 *   RQWQEManager     - SEND scatter into receive WQEs (seed 4.4.2)
 *   WriteAddrTable   - the RETH address carried from WRITE First to
 *                      Middle/Last (seed 4.4.3)
 *   RespPktGen       - ACK / NAK / READ responses / atomic ACK (4.4.4)
 * Responses that must follow an unfinished READ response stream wait in a
 * per-QP pending slot, so the requester always sees them in PSN order.
 */
#include <rte_ethdev.h>

#include "rnic_engine.h"

/* ------------------------------------------------------------------ */
/* RespPktGen                                                          */
/* ------------------------------------------------------------------ */

/* AETH credit count code (IBA 9.7.5.1, table 44) for @p n free RWQEs. */
static uint8_t
credit_code(uint32_t n)
{
	static const uint16_t tbl[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
		384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
		16384, 24576, 32768,
	};
	uint8_t c = 0;

	while (c + 1 < 31 && tbl[c + 1] <= n)
		c++;
	return c;
}

static uint8_t
ack_syndrome(const struct rnic_qp *qp)
{
	uint32_t avail = LOAD_ACQ(&qp->rq_pi) - qp->rq_ci;

	return RNIC_AETH_ACK | credit_code(avail);
}

/* Build a response packet (ACK, NAK, atomic ACK, READ response). */
static struct rte_mbuf *
resp_build(struct rnic_device *dev, struct rnic_qp *qp, uint8_t opcode, uint32_t psn,
	   const struct rnic_ext_fields *ext, uint32_t paylen, uint8_t **payload,
	   struct rnic_dev_stats *st)
{
	struct rnic_bth_fields b = {
		.opcode = opcode, .psn = psn, .dqpn = qp->attr.dest_qp_num,
		.pkey = qp->attr.pkey,
	};

	return rnic_pkt_alloc(dev, st, &qp->l2, &b, ext, paylen, payload);
}

static bool
send_aeth(struct rnic_device *dev, struct rnic_qp *qp, uint8_t syn, uint32_t psn,
	  uint32_t msn, struct rnic_dev_stats *st)
{
	struct rnic_ext_fields ext = { .aeth_syn = syn, .aeth_msn = msn };
	struct rte_mbuf *m;
	uint8_t *p;

	if (!rnic_txbuf_room(&dev->txb_resp))
		return false;
	m = resp_build(dev, qp, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK), psn, &ext, 0, &p, st);
	if (m == NULL)
		return false;
	rnic_pkt_seal(m, &qp->l2);
	rnic_txbuf_add(&dev->txb_resp, m);
	if ((syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_ACK)
		st->acks_sent++;
	else if ((syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_RNR_NAK)
		st->rnr_naks_sent++;
	else
		st->naks_sent++;
	return true;
}

static bool
send_atomic_ack(struct rnic_device *dev, struct rnic_qp *qp, const struct rnic_rd_res *r,
		struct rnic_dev_stats *st)
{
	struct rnic_ext_fields ext = {
		.aeth_syn = ack_syndrome(qp), .aeth_msn = r->msn, .atmack_orig = r->atomic_orig,
	};
	struct rte_mbuf *m;
	uint8_t *p;

	if (!rnic_txbuf_room(&dev->txb_resp))
		return false;
	m = resp_build(dev, qp, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ATOMIC_ACK), r->psn,
		       &ext, 0, &p, st);
	if (m == NULL)
		return false;
	rnic_pkt_seal(m, &qp->l2);
	rnic_txbuf_add(&dev->txb_resp, m);
	st->atomic_resp_sent++;
	return true;
}

/*
 * Coalesce: a later ACK replaces an earlier one; a NAK replaces an ACK.
 * An ACK never replaces a queued NAK (PSN sequence or RNR) of a later PSN,
 * as a duplicate's re-ACK of ePSN-1 in the same burst would: the NAK
 * already acknowledges every PSN before its own (IBA 9.7.5.1), and a
 * sequence NAK is sent once per gap (seed 001 s3.4: later PSNs ahead are
 * dropped silently, nak_sent), so replaced it would never reach the
 * requester; nor would an RNR NAK's wait.
 */
static void
pending_set(struct rnic_device *dev, struct rnic_qp *qp, uint8_t syn, uint32_t psn)
{
	struct rnic_resp *rs = &qp->resp;

	if (rs->ack_pending && (rs->cur_op & 0x80))
		return;   /* a fatal NAK is queued: the QP is going to Error */
	if (rs->ack_pending && (syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_ACK &&
	    (rs->ack_syn & RNIC_AETH_TYPE_MASK) != RNIC_AETH_ACK &&
	    rnic_psn_diff(psn, rs->ack_psn) < 0)
		return;   /* keep the NAK: it covers this ACK */
	rs->ack_syn = syn;
	rs->ack_psn = psn;
	rs->ack_msn = rs->msn;
	if ((syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_NAK && (syn & 0x1f) != RNIC_NAK_PSN_SEQ)
		rs->cur_op |= 0x80;
	if (!rs->ack_pending) {
		rs->ack_pending = 1;
		dev->ack_list[dev->ack_n++] = qp;
	}
}

static void
pending_emit(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_resp *rs = &qp->resp;
	uint8_t syn = rs->ack_syn;

	if ((syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_ACK)
		syn = ack_syndrome(qp);   /* credits as of now */
	if (send_aeth(dev, qp, syn, rs->ack_psn, rs->ack_msn, st)) {
		rs->ack_pending = 0;
		if (rs->cur_op & 0x80) {
			rs->cur_op &= 0x7f;
			rnic_qp_to_error(qp);
		}
	}
}

/*
 * A READ response or atomic ACK queued behind this point acknowledges every
 * earlier PSN (IBA 9.7.5.1.1): a plain ACK still waiting would only go out
 * after it, out of PSN order, so it is dropped. NAKs are kept.
 */
static void
pending_drop_ack(struct rnic_qp *qp)
{
	struct rnic_resp *rs = &qp->resp;

	if (rs->ack_pending && (rs->ack_syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_ACK)
		rs->ack_pending = 0;
}

void
rnic_resp_flush_acks(struct rnic_device *dev)
{
	struct rnic_dev_stats *st = &dev->st_rx.s;

	for (uint32_t i = 0; i < dev->ack_n; ) {
		struct rnic_qp *qp = dev->ack_list[i];
		uint8_t s = rnic_qp_state_get(qp);

		if (s == RNIC_QPS_RESET) {
			qp->resp.ack_pending = 0;
		} else if (qp->resp.rd_active) {
			i++;      /* the READ pump sends it after the responses */
			continue;
		} else if (qp->resp.ack_pending) {
			pending_emit(dev, qp, st);
			if (qp->resp.ack_pending) {
				i++;  /* no room now: next poll */
				continue;
			}
		}
		dev->ack_list[i] = dev->ack_list[--dev->ack_n];
	}
}

/*
 * Fatal responder errors: on RC a NAK, then the QP goes to Error (class
 * A/C). UC has no acknowledgements at all (IBA 9.7.4): the message is
 * dropped and the QP waits for the next First/Only.
 */
static void
resp_fatal(struct rnic_device *dev, struct rnic_qp *qp, uint8_t nak, uint32_t psn)
{
	qp->resp.in_msg = 0;
	if (qp->type != RNIC_QPT_RC) {
		dev->st_rx.s.drop_uc_gap++;
		return;
	}
	pending_set(dev, qp, RNIC_AETH_NAK | nak, psn);
}

/* ------------------------------------------------------------------ */
/* READ responses and queued atomic ACKs, in PSN order                  */
/* ------------------------------------------------------------------ */

static void
rd_activate(struct rnic_device *dev, struct rnic_qp *qp)
{
	if (!qp->resp.rd_active) {
		qp->resp.rd_active = 1;
		dev->rd_active[dev->rd_active_n++] = qp;
	}
}

/* Returns packets built; leaves @p r active when it ran out of room. */
static unsigned int
rd_pump_one(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_rd_res *r,
	    unsigned int budget, struct rnic_dev_stats *st)
{
	unsigned int n = 0;

	if (r->type == RNIC_MQ_ATOMIC) {
		if (send_atomic_ack(dev, qp, r, st)) {
			r->active = 0;
			n = 1;
		}
		return n;
	}
	while (n < budget && r->active) {
		uint32_t left = r->length - r->sent;
		uint32_t paylen = RTE_MIN(left, qp->pmtu);
		bool first = r->sent == 0, last = paylen == left;
		struct rnic_ext_fields ext = { .aeth_syn = ack_syndrome(qp), .aeth_msn = r->msn };
		uint8_t op = first && last ? RNIC_OP_READ_RESP_ONLY :
			     first ? RNIC_OP_READ_RESP_FIRST :
			     last ? RNIC_OP_READ_RESP_LAST : RNIC_OP_READ_RESP_MIDDLE;
		struct rte_mbuf *m;
		uint8_t *p;

		if (!rnic_txbuf_room(&dev->txb_resp))
			break;
		m = resp_build(dev, qp, RNIC_OPC(RNIC_TRANSPORT_RC, op), r->cur_psn, &ext,
			       paylen, &p, st);
		if (m == NULL)
			break;
		if (paylen)
			memcpy(p, (const void *)(uintptr_t)(r->va + r->sent), paylen);
		rnic_pkt_seal(m, &qp->l2);
		rnic_txbuf_add(&dev->txb_resp, m);
		st->read_resp_sent++;
		r->sent += paylen;
		r->cur_psn = rnic_psn_add(r->cur_psn, 1);
		n++;
		if (last)
			r->active = 0;
	}
	return n;
}

unsigned int
rnic_resp_pump_reads(struct rnic_device *dev)
{
	struct rnic_dev_stats *st = &dev->st_rx.s;
	unsigned int work = 0;

	for (uint32_t i = 0; i < dev->rd_active_n; ) {
		struct rnic_qp *qp = dev->rd_active[i];
		struct rnic_resp *rs = &qp->resp;
		bool busy = false;

		if (rnic_qp_state_get(qp) == RNIC_QPS_RESET || rs->res == NULL) {
			rs->rd_active = 0;
			dev->rd_active[i] = dev->rd_active[--dev->rd_active_n];
			continue;
		}
		/* Oldest first: resources are taken round robin, so the slot
		 * after the newest (res_next) is the oldest. */
		for (uint32_t k = 0; k < rs->res_n; k++) {
			struct rnic_rd_res *r = &rs->res[(rs->res_next + k) % rs->res_n];

			if (!r->active)
				continue;
			work += rd_pump_one(dev, qp, r, dev->attr.burst, st);
			if (r->active) {
				busy = true;
				break;
			}
		}
		if (!busy) {
			rs->rd_active = 0;
			if (rs->ack_pending)
				pending_emit(dev, qp, st);
			dev->rd_active[i] = dev->rd_active[--dev->rd_active_n];
			continue;
		}
		i++;
	}
	return work;
}

/*
 * A duplicate READ or atomic: the requester went back N from it (seed 001
 * s3), so every answer still queued is moot; its own stream restarts, and
 * the duplicates after it (which follow in PSN order) re-arm theirs.
 */
static void
rd_replay(struct rnic_device *dev, struct rnic_qp *qp, struct rnic_rd_res *r)
{
	struct rnic_resp *rs = &qp->resp;

	for (uint32_t k = 0; k < rs->res_n; k++) {
		struct rnic_rd_res *o = &rs->res[k];

		if (o->active && rnic_psn_diff(o->psn, r->psn) >= 0)
			o->active = 0;
	}
	r->active = 1;
	r->replay = 1;
	rd_activate(dev, qp);
}

static struct rnic_rd_res *
res_take(struct rnic_qp *qp)
{
	struct rnic_resp *rs = &qp->resp;
	struct rnic_rd_res *r;

	if (rs->res == NULL)
		return NULL;
	r = &rs->res[rs->res_next];
	if (r->active && !r->replay)
		return NULL;   /* more outstanding than max_dest_rd_atomic */
	/* A new request means the requester has every earlier answer:
	 * replays still queued are moot. */
	for (uint32_t k = 0; k < rs->res_n; k++)
		if (rs->res[k].replay)
			rs->res[k].active = 0;
	rs->res_next = (rs->res_next + 1) % rs->res_n;
	memset(r, 0, sizeof(*r));
	return r;
}

/* ------------------------------------------------------------------ */
/* RQWQEManager: receive WQEs                                          */
/* ------------------------------------------------------------------ */

static void
recv_complete(struct rnic_qp *qp, enum rnic_wc_status s, uint8_t opcode, uint8_t flags,
	      uint32_t byte_len, uint32_t imm_or_inv, uint32_t src_qp,
	      struct rnic_dev_stats *st)
{
	struct rnic_rwqe *r = rnic_rq_wqe(qp, qp->rq_ci);
	struct rnic_wc wc = {
		.wr_id = r->wr_id, .status = (uint8_t)s, .opcode = opcode,
		.wc_flags = flags, .qp_num = qp->qpn, .byte_len = byte_len,
		.src_qp = src_qp,
	};

	wc.imm_data = imm_or_inv;
	STORE_REL(&qp->rq_ci, qp->rq_ci + 1);
	qp->resp.rwqe_active = 0;
	rnic_complete(qp, qp->rcq, &wc, st);
}

/* Error: complete every posted receive with WR_FLUSH_ERR. */
void
rnic_resp_flush_rq(struct rnic_qp *qp)
{
	struct rnic_dev_stats *st = &qp->dev->st_rx.s;
	uint32_t pi = LOAD_ACQ(&qp->rq_pi);

	while (qp->rq_ci != pi) {
		st->flushed++;
		recv_complete(qp, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, 0, 0, 0, st);
	}
}

static bool
rwqe_available(const struct rnic_qp *qp)
{
	return qp->rq_ci != LOAD_ACQ(&qp->rq_pi);
}

/* Scatter @p len bytes of the packet into the current receive WQE. */
static enum rnic_wc_status
rwqe_scatter(struct rnic_qp *qp, const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	struct rnic_resp *rs = &qp->resp;
	struct rnic_rwqe *r = rnic_rq_wqe(qp, qp->rq_ci);

	while (len > 0) {
		struct rnic_sge *sg;
		struct rnic_mr *mr;
		uint32_t n;

		if (rs->rwqe_sge >= r->num_sge)
			return RNIC_WC_LOC_LEN_ERR;
		sg = &r->sge[rs->rwqe_sge];
		if (rs->rwqe_sge_off >= sg->length) {
			rs->rwqe_sge++;
			rs->rwqe_sge_off = 0;
			continue;
		}
		n = RTE_MIN(sg->length - rs->rwqe_sge_off, len);
		if (rnic_mr_check(qp->dev, qp->pd, sg->lkey, false, sg->addr + rs->rwqe_sge_off,
				  n, RNIC_ACCESS_LOCAL_WRITE, &mr) != RNIC_MEMCHK_OK)
			return RNIC_WC_LOC_PROT_ERR;
		rnic_mbuf_copy_out(m, off, n,
				   (void *)(uintptr_t)(sg->addr + rs->rwqe_sge_off));
		rs->rwqe_sge_off += n;
		rs->rwqe_bytes += n;
		off += n;
		len -= n;
	}
	return RNIC_WC_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* ExecutionEngine                                                     */
/* ------------------------------------------------------------------ */

static int
check_remote(struct rnic_qp *qp, uint32_t rkey, uint64_t va, uint64_t len, int access,
	     struct rnic_mr **mr)
{
	if ((qp->attr.qp_access_flags & access) != access)
		return RNIC_MEMCHK_FLAGS_ERR;
	if (len == 0) {
		*mr = NULL;
		return RNIC_MEMCHK_OK;   /* zero-length: no key check (IBA 9.4.1.1) */
	}
	return rnic_mr_check(qp->dev, qp->pd, rkey, true, va, len, access, mr);
}

static void
ud_recv(struct rnic_device *dev, struct rnic_qp *qp, const struct rte_mbuf *m,
	const struct rnic_pkt *pkt, struct rnic_dev_stats *st)
{
	enum rnic_wc_status s;
	uint8_t flags = 0;

	RTE_SET_USED(dev);
	if (pkt->ext.deth_qkey != qp->attr.qkey) {
		st->drop_qkey++;
		return;
	}
	/* IBA: a UD message is a single packet of at most the PMTU, for UD
	 * the port's active MTU (seed 000 WQEParser checks UD lengths against
	 * the PMTU, as our sender does, rnic_tx.c): a longer one is dropped
	 * and counted before it takes a receive. */
	if (pkt->payload_len > qp->pmtu) {
		st->drop_ud_mtu++;
		return;
	}
	if (!rwqe_available(qp)) {
		st->drop_no_recv++;   /* UD has no RNR: the datagram is dropped */
		return;
	}
	qp->resp.rwqe_active = 1;
	qp->resp.rwqe_sge = qp->resp.rwqe_sge_off = qp->resp.rwqe_bytes = 0;
	/* IBA 11.4.1.1: the first 40 bytes of a UD receive hold the GRH;
	 * RoCEv2 has none, so like rxe we leave them untouched and skip them. */
	s = RNIC_WC_SUCCESS;
	if (rnic_rq_wqe(qp, qp->rq_ci)->total_len < 40 + pkt->payload_len) {
		s = RNIC_WC_LOC_LEN_ERR;
	} else {
		qp->resp.rwqe_bytes = 0;
		s = rwqe_scatter(qp, m, pkt->payload_off, 0);
		/* skip the GRH area */
		{
			struct rnic_resp *rs = &qp->resp;
			struct rnic_rwqe *r = rnic_rq_wqe(qp, qp->rq_ci);
			uint32_t skip = 40;

			while (skip && rs->rwqe_sge < r->num_sge) {
				uint32_t room = r->sge[rs->rwqe_sge].length - rs->rwqe_sge_off;
				uint32_t k = RTE_MIN(room, skip);

				rs->rwqe_sge_off += k;
				skip -= k;
				if (rs->rwqe_sge_off == r->sge[rs->rwqe_sge].length) {
					rs->rwqe_sge++;
					rs->rwqe_sge_off = 0;
				}
			}
		}
		s = rwqe_scatter(qp, m, pkt->payload_off, pkt->payload_len);
	}
	if (pkt->op->mask & RNIC_M_IMMDT)
		flags |= RNIC_WC_WITH_IMM;
	recv_complete(qp, s, RNIC_WC_RECV, flags,
		      s == RNIC_WC_SUCCESS ? 40 + pkt->payload_len : 0,
		      (uint32_t)pkt->ext.imm, pkt->ext.deth_sqp, st);
}

/*
 * A duplicate READ must lie within its original (IBA 9.7.5.1.3; seed 001
 * s3.3.2.1-2): its responses take the PSNs from its own to at most the
 * original's last, and it asks for a subset of the original's bytes (same
 * rkey, VA range inside). A requester resuming at the original's PSN + k
 * asks for the bytes from k * PMTU on, which passes. Being a subset, it
 * also keeps the 2^31 limit a new READ is held to (checked again anyway).
 */
static bool
dup_read_within(const struct rnic_qp *qp, const struct rnic_rd_res *r,
		const struct rnic_pkt *pkt)
{
	uint32_t len = pkt->ext.reth_len;
	uint64_t va = pkt->ext.reth_va;
	uint32_t k, npsn, span;

	if (len > RNIC_MAX_MSG_LEN || len > r->orig_len)
		return false;
	/* PSN offsets from the original's first: 24-bit unsigned distances,
	 * right even for a READ that spans 2^23 PSNs. */
	k = (pkt->bth.psn - r->psn) & RNIC_PSN_MASK;
	span = (r->last_psn - r->psn) & RNIC_PSN_MASK;
	npsn = RTE_MAX(1u, (len + qp->pmtu - 1) / qp->pmtu);   /* len <= 2^31 */
	if (k > span || npsn - 1 > span - k)
		return false;
	if (len == 0)
		return true;   /* reads nothing: no key, no bytes (IBA 9.4.1.1) */
	return pkt->ext.reth_rkey == r->rkey && va >= r->orig_va &&
	       va - r->orig_va <= r->orig_len - len;
}

/* Duplicate request (seed 001 section 3). */
static void
resp_duplicate(struct rnic_device *dev, struct rnic_qp *qp, const struct rnic_pkt *pkt,
	       struct rnic_dev_stats *st)
{
	struct rnic_resp *rs = &qp->resp;
	rnic_opmask_t mask = pkt->op->mask;

	st->dup_requests++;
	if (mask & (RNIC_M_SEND | RNIC_M_WRITE)) {
		/* Re-ACK with the PSN of the last request completed. */
		pending_set(dev, qp, RNIC_AETH_ACK, rnic_psn_add(rs->epsn, RNIC_PSN_MASK));
		return;
	}
	for (uint32_t k = 0; rs->res != NULL && k < rs->res_n; k++) {
		struct rnic_rd_res *r = &rs->res[k];

		if (r->type == 0)
			continue;
		if ((mask & RNIC_M_ATOMIC) && r->type == RNIC_MQ_ATOMIC &&
		    r->psn == pkt->bth.psn) {
			/* Replay the saved result; never execute twice. */
			rd_replay(dev, qp, r);
			return;
		}
		if ((mask & RNIC_M_READ) && r->type == RNIC_MQ_READ &&
		    rnic_psn_diff(pkt->bth.psn, r->psn) >= 0 &&
		    rnic_psn_diff(pkt->bth.psn, r->last_psn) <= 0) {
			struct rnic_mr *mr;
			uint32_t len = pkt->ext.reth_len;

			/* Not within the original, or the memory is no longer
			 * readable (MR gone, rkey invalidated): dropped, not
			 * NAKed, as seed 001 s3.3.2.2 allows and Linux rxe
			 * does (rxe_resp.c duplicate_request): a NAK would
			 * carry an old PSN and send the QP to Error over what
			 * may be a stale copy from the fabric. */
			if (!dup_read_within(qp, r, pkt) ||
			    check_remote(qp, pkt->ext.reth_rkey, pkt->ext.reth_va, len,
					 RNIC_ACCESS_REMOTE_READ, &mr) != RNIC_MEMCHK_OK) {
				st->drop_dup_rd_atomic++;
				return;
			}
			/* Re-execute from memory with the duplicate's PSN and RETH. */
			r->va = pkt->ext.reth_va;
			r->length = len;
			r->sent = 0;
			r->cur_psn = pkt->bth.psn;
			rd_replay(dev, qp, r);
			return;
		}
	}
	/* No record (its resource was reused, or an atomic's PSN matches none):
	 * nothing safe to replay, dropped silently (seed 001 s3.3.2.1, IBA
	 * class D); the requester will time out. */
	st->drop_dup_rd_atomic++;
}

static bool
seq_ok(struct rnic_resp *rs, rnic_opmask_t mask, uint8_t opcode)
{
	if (rs->in_msg) {
		/* Middle/Last must continue the same kind (SEND or WRITE). */
		if (!(mask & (RNIC_M_MIDDLE | RNIC_M_LAST)) || (mask & RNIC_M_FIRST))
			return false;
		return ((mask & RNIC_M_SEND) && (rnic_opcode_mask(rs->cur_op & 0x7f) & RNIC_M_SEND)) ||
		       ((mask & RNIC_M_WRITE) && (rnic_opcode_mask(rs->cur_op & 0x7f) & RNIC_M_WRITE));
	}
	RTE_SET_USED(opcode);
	return (mask & RNIC_M_FIRST) != 0;   /* First or Only (READ/atomic are Only) */
}

void
rnic_resp_rx(struct rnic_device *dev, struct rnic_qp *qp, struct rte_mbuf *m,
	     const struct rnic_pkt *pkt)
{
	struct rnic_dev_stats *st = &dev->st_rx.s;
	struct rnic_resp *rs = &qp->resp;
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	rnic_opmask_t mask = pkt->op->mask;
	uint32_t psn = pkt->bth.psn;
	const bool rc = qp->type == RNIC_QPT_RC;

	if (s == RNIC_QPS_RESET || s == RNIC_QPS_INIT || s == RNIC_QPS_ERR) {
		st->drop_qp_state++;
		return;
	}
	if (qp->type == RNIC_QPT_UD) {
		ud_recv(dev, qp, m, pkt, st);
		return;
	}
	if (rs->cur_op & 0x80) {
		st->drop_qp_state++;   /* fatal NAK queued: QP going to Error */
		return;
	}
	/* PSN check */
	if (psn != rs->epsn) {
		if (!rc) {
			/* UC: a gap drops the message; resync on First/Only. */
			if (!(mask & RNIC_M_FIRST)) {
				rs->in_msg = 0;
				st->drop_uc_gap++;
				return;
			}
			if (rs->in_msg && rs->rwqe_active)
				rs->rwqe_active = 0;   /* the RWQE is reused */
			rs->in_msg = 0;
			rs->epsn = psn;
		} else if (rnic_psn_classify(psn, rs->epsn) == RNIC_PSN_DUPLICATE) {
			resp_duplicate(dev, qp, pkt, st);
			return;
		} else {
			st->drop_psn_invalid++;
			if (!rs->nak_sent) {
				rs->nak_sent = 1;
				pending_set(dev, qp, RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ, rs->epsn);
			}
			return;
		}
	}
	rs->nak_sent = 0;
	/* The gap a queued sequence NAK reported is filled: the NAK is moot
	 * and, sent after this packet's answer, would contradict it. */
	if (rs->ack_pending && rs->ack_syn == (RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ) &&
	    rs->ack_psn == psn)
		rs->ack_pending = 0;
	if (!seq_ok(rs, mask, pkt->bth.opcode)) {
		if (rc) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
		} else {
			rs->in_msg = 0;
			st->drop_uc_gap++;
		}
		return;
	}
	/* Packet length rules (IBA 9.7.3): First/Middle carry a full PMTU. */
	if (((mask & (RNIC_M_FIRST | RNIC_M_MIDDLE)) && !(mask & RNIC_M_LAST) &&
	     pkt->payload_len != qp->pmtu) || pkt->payload_len > qp->pmtu) {
		resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);   /* UC: dropped, counted */
		return;
	}

	if (mask & RNIC_M_SEND) {
		enum rnic_wc_status ws;

		if (mask & RNIC_M_FIRST) {
			if (!rwqe_available(qp)) {
				if (rc) {
					pending_set(dev, qp, RNIC_AETH_RNR_NAK |
						    (qp->attr.min_rnr_timer & 0x1f), psn);
				} else {
					st->drop_no_recv++;
					rs->in_msg = 0;
					rs->epsn = rnic_psn_add(psn, 1);
					rs->rwqe_err = 1;   /* drop the rest of the message */
					rs->in_msg = !(mask & RNIC_M_LAST);
					rs->cur_op = pkt->bth.opcode;
				}
				return;
			}
			rs->rwqe_active = 1;
			rs->rwqe_err = 0;
			rs->rwqe_sge = rs->rwqe_sge_off = rs->rwqe_bytes = 0;
		}
		if (!rs->rwqe_active) {   /* UC message without a receive */
			rs->epsn = rnic_psn_add(psn, 1);
			rs->in_msg = !(mask & RNIC_M_LAST);
			return;
		}
		ws = rwqe_scatter(qp, m, pkt->payload_off, pkt->payload_len);
		if (ws != RNIC_WC_SUCCESS) {
			recv_complete(qp, ws, RNIC_WC_RECV, 0, 0, 0, 0, st);
			if (rc) {
				resp_fatal(dev, qp, ws == RNIC_WC_LOC_LEN_ERR ?
					   RNIC_NAK_INVALID_REQ : RNIC_NAK_REMOTE_OP, psn);
			} else {
				rs->in_msg = !(mask & RNIC_M_LAST);
				rs->epsn = rnic_psn_add(psn, 1);
				rs->rwqe_active = 0;
			}
			return;
		}
		if (mask & RNIC_M_LAST) {
			uint8_t flags = 0;
			uint32_t extra = 0;

			if (mask & RNIC_M_IMMDT) {
				flags |= RNIC_WC_WITH_IMM;
				extra = (uint32_t)pkt->ext.imm;
			}
			if (mask & RNIC_M_IETH) {
				uint32_t key = pkt->ext.ieth_rkey;
				struct rnic_mr *mr = NULL;

				if (rnic_mr_check(dev, qp->pd, key, true,
						  0, 0, 0, &mr) == RNIC_MEMCHK_KEY_ERR ||
				    (key >> 8) >= dev->max_mrs ||
				    (mr = LOAD_ACQ(&dev->mrs[key >> 8])) == NULL ||
				    mr->rkey != key || mr->pd != qp->pd) {
					recv_complete(qp, RNIC_WC_REM_INV_REQ_ERR, RNIC_WC_RECV,
						      0, 0, 0, 0, st);
					resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
					return;
				}
				STORE_REL(&mr->rkey_valid, 0);
				flags |= RNIC_WC_WITH_INV;
				extra = key;
			}
			recv_complete(qp, RNIC_WC_SUCCESS, RNIC_WC_RECV, flags, rs->rwqe_bytes,
				      extra, 0, st);
			rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
		}
	} else if (mask & RNIC_M_WRITE) {
		bool imm = mask & RNIC_M_IMMDT;

		if (mask & RNIC_M_FIRST) {
			struct rnic_mr *mr;
			int c;

			c = check_remote(qp, pkt->ext.reth_rkey, pkt->ext.reth_va,
					 pkt->ext.reth_len, RNIC_ACCESS_REMOTE_WRITE, &mr);
			if (c != RNIC_MEMCHK_OK) {
				resp_fatal(dev, qp, RNIC_NAK_REMOTE_ACCESS, psn);
				return;
			}
			if (((mask & RNIC_M_LAST) && pkt->payload_len != pkt->ext.reth_len) ||
			    (!(mask & RNIC_M_LAST) && pkt->ext.reth_len <= qp->pmtu)) {
				resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
				return;
			}
			rs->wr_va = pkt->ext.reth_va;
			rs->wr_left = pkt->ext.reth_len;
			rs->wr_total = pkt->ext.reth_len;
		}
		if (pkt->payload_len > rs->wr_left ||
		    ((mask & RNIC_M_LAST) && pkt->payload_len != rs->wr_left)) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		/* WRITE with immediate consumes a receive: check before writing. */
		if (imm && !rwqe_available(qp)) {
			if (rc) {
				pending_set(dev, qp, RNIC_AETH_RNR_NAK |
					    (qp->attr.min_rnr_timer & 0x1f), psn);
			} else {
				st->drop_no_recv++;   /* UC: no RNR, the message is lost */
				rs->in_msg = 0;
			}
			return;
		}
		rnic_mbuf_copy_out(m, pkt->payload_off, pkt->payload_len,
				   (void *)(uintptr_t)rs->wr_va);
		rs->wr_va += pkt->payload_len;
		rs->wr_left -= pkt->payload_len;
		if (mask & RNIC_M_LAST) {
			if (imm) {
				rs->rwqe_active = 1;
				recv_complete(qp, RNIC_WC_SUCCESS, RNIC_WC_RECV_RDMA_WITH_IMM,
					      RNIC_WC_WITH_IMM, rs->wr_total,
					      (uint32_t)pkt->ext.imm, 0, st);
			}
			rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
		}
	} else if (mask & RNIC_M_READ) {
		struct rnic_rd_res *r;
		struct rnic_mr *mr;
		uint32_t len = pkt->ext.reth_len, npsn;

		/* max_dest_rd_atomic 0: no responder resources, so every READ
		 * and atomic is one too many: an invalid request (IBA responder
		 * error class C: NAK, QP to Error), checked before length and
		 * keys as Linux rxe does (check_resource, then check_length). */
		if (rs->res == NULL) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		if (len > RNIC_MAX_MSG_LEN) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		if (check_remote(qp, pkt->ext.reth_rkey, pkt->ext.reth_va, len,
				 RNIC_ACCESS_REMOTE_READ, &mr) != RNIC_MEMCHK_OK) {
			resp_fatal(dev, qp, RNIC_NAK_REMOTE_ACCESS, psn);
			return;
		}
		r = res_take(qp);
		if (r == NULL) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		npsn = RTE_MAX(1u, (len + qp->pmtu - 1) / qp->pmtu);
		pending_drop_ack(qp);   /* the READ response covers it */
		rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
		r->type = RNIC_MQ_READ;
		r->opcode = pkt->bth.opcode;
		r->psn = psn;
		r->last_psn = rnic_psn_add(psn, npsn - 1);
		r->va = r->orig_va = pkt->ext.reth_va;
		r->rkey = pkt->ext.reth_rkey;
		r->length = r->orig_len = len;
		r->cur_psn = psn;
		r->msn = rs->msn;
		r->active = 1;
		rd_activate(dev, qp);
		rs->epsn = rnic_psn_add(psn, npsn);
		return;
	} else if (mask & RNIC_M_ATOMIC) {
		struct rnic_rd_res *r;
		struct rnic_mr *mr;
		uint64_t *p;

		if (rs->res == NULL) {   /* max_dest_rd_atomic 0: as for READ */
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		if (pkt->ext.atm_va & 7) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		if (check_remote(qp, pkt->ext.atm_rkey, pkt->ext.atm_va, 8,
				 RNIC_ACCESS_REMOTE_ATOMIC, &mr) != RNIC_MEMCHK_OK) {
			resp_fatal(dev, qp, RNIC_NAK_REMOTE_ACCESS, psn);
			return;
		}
		r = res_take(qp);
		if (r == NULL) {
			resp_fatal(dev, qp, RNIC_NAK_INVALID_REQ, psn);
			return;
		}
		p = (uint64_t *)(uintptr_t)pkt->ext.atm_va;
		if (pkt->bth.opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP)) {
			uint64_t expect = pkt->ext.atm_cmp;

			__atomic_compare_exchange_n(p, &expect, pkt->ext.atm_swap_add, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
			r->atomic_orig = expect;   /* the value found, swapped or not */
		} else {
			r->atomic_orig = __atomic_fetch_add(p, pkt->ext.atm_swap_add,
							    __ATOMIC_SEQ_CST);
		}
		pending_drop_ack(qp);   /* the atomic ACK covers it */
		rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
		r->type = RNIC_MQ_ATOMIC;
		r->opcode = pkt->bth.opcode;
		r->psn = r->last_psn = psn;
		r->va = pkt->ext.atm_va;
		r->msn = rs->msn;
		r->active = 1;
		rd_activate(dev, qp);
		rs->epsn = rnic_psn_add(psn, 1);
		return;
	}
	/* SEND / WRITE packet executed */
	rs->in_msg = !(mask & RNIC_M_LAST);
	rs->cur_op = pkt->bth.opcode;
	rs->epsn = rnic_psn_add(psn, 1);
	if (rc && pkt->bth.ackreq)
		pending_set(dev, qp, RNIC_AETH_ACK, psn);
}
