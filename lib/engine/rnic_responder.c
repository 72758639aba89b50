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

#include "rnic_copy.h"
#include "rnic_engine_pvt.h"

/* A sequence NAK is repeated for requests still out of sequence, but only
 * once both this long and this many of them have passed since it was sent
 * (resp_nak_seq): a resend that was itself lost, not the tail of the
 * window sent before the requester saw the NAK. */
#define RESP_RENAK_US   100
#define RESP_RENAK_PKTS 16

/* ------------------------------------------------------------------ */
/* RespPktGen                                                          */
/* ------------------------------------------------------------------ */

static bool
syn_is(uint8_t syn, uint8_t type)
{
	return (syn & RNIC_AETH_TYPE_MASK) == type;
}

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
	uint32_t avail = LOAD_ACQ(&qp->app.rq_pi) - qp->resp.rq_ci;   /* [RQ-PI] */

	return RNIC_AETH_ACK | credit_code(avail);
}

/*
 * Build a response packet (ACK, NAK, atomic ACK, READ response) into the
 * RX role's TX buffer, with @p paylen bytes at @p src (any memory the
 * caller checked) as its payload. NULL when there is no room or mbuf.
 */
static struct rte_mbuf *
resp_build(struct rnic_worker *wk, struct rnic_qp *qp, uint8_t opcode, uint32_t psn,
	   const struct rnic_ext_fields *ext, uint32_t paylen, const void *src,
	   struct rnic_dev_stats *st)
{
	struct rnic_bth_fields b = {
		.opcode = opcode, .psn = psn, .dqpn = qp->attr.dest_qp_num,
		.pkey = qp->attr.pkey,
		/* selective repeat: an ACK carries the SACK (sr_sack) */
		.sr = opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK) && qp->resp.sr != NULL &&
		      syn_is(ext->aeth_syn, RNIC_AETH_ACK),
	};
	struct rte_mbuf *m;
	uint8_t *p;

	if (!rnic_txbuf_room(&wk->rx.txb))
		return NULL;
	m = rnic_pkt_alloc(wk->dev, st, &qp->tmpl, NULL, &b, ext, paylen, &p);
	if (m == NULL)
		return NULL;
	rnic_pkt_fill_seal(m, qp->tmpl.l3_off, p, src, paylen);
	rnic_txbuf_add(&wk->rx.txb, m);
	return m;
}

/*
 * Selective repeat: move the map of placed packets on to the expected
 * PSN (bit 0 is then the ePSN itself).
 */
static void
sr_sync(struct rnic_qp *qp)
{
	struct rnic_sr_resp *sr = qp->resp.sr;
	int32_t k = rnic_psn_diff(qp->resp.epsn, sr->base);

	if (k == 0)
		return;
	if (k > 0 && (uint32_t)k < RNIC_SR_WIN)
		rnic_sr_shift(sr->map, (uint32_t)k);
	else
		memset(sr->map, 0, sizeof(sr->map));
	sr->base = qp->resp.epsn;
	sr->dropped = 0;
}

/*
 * Selective repeat: copy @p len bytes of @p m from @p off to @p dst, but
 * not over what a WRITE packet placed ahead, more than @p d PSNs past the
 * ePSN (the map synced), wrote there: IBA executes a QP's WRITEs in order,
 * so where a later WRITE and this one overlap, the later one's bytes must
 * stay (a resent WRITE filling a hole used to overwrite them).
 */
static void
sr_copy_write(struct rnic_qp *qp, uint32_t d, const struct rte_mbuf *m, uint32_t off,
	      uint32_t len, uint8_t *dst)
{
	const struct rnic_sr_resp *sr = qp->resp.sr;
	struct { uint64_t lo, hi; } cov[RNIC_SR_WIN];
	uint64_t a = (uintptr_t)dst, b = a + len, pos = a;
	unsigned int n = 0;

	for (uint32_t i = d + 1; i < RNIC_SR_WIN; i++) {
		const struct rnic_sr_slot *sl;
		uint64_t lo, hi;

		if (sr->map[i / 64] >> (i % 64) == 0) {
			i |= 63;   /* nothing set in the rest of this word */
			continue;
		}
		if (!rnic_sr_test(sr->map, i))
			continue;
		sl = &sr->slot[(sr->base + i) % RNIC_SR_WIN];
		lo = RTE_MAX(a, sl->host);
		hi = RTE_MIN(b, sl->host + sl->len);
		if (sl->host == 0 || lo >= hi)
			continue;
		/* insertion by start: few, and only when WRITEs overlap */
		unsigned int k = n++;

		while (k > 0 && cov[k - 1].lo > lo) {
			cov[k] = cov[k - 1];
			k--;
		}
		cov[k].lo = lo;
		cov[k].hi = hi;
	}
	for (unsigned int k = 0; k < n; k++) {
		if (cov[k].lo > pos)
			rnic_mbuf_copy_out(m, off + (uint32_t)(pos - a), (uint32_t)(cov[k].lo - pos),
					   (void *)(uintptr_t)pos);
		pos = RTE_MAX(pos, cov[k].hi);
	}
	if (pos < b)
		rnic_mbuf_copy_out(m, off + (uint32_t)(pos - a), (uint32_t)(b - pos),
				   (void *)(uintptr_t)pos);
}

/* The SACK an ACK carries: the ePSN and the map of what lies past it. */
static void
sr_sack(struct rnic_qp *qp, struct rnic_ext_fields *ext, struct rnic_dev_stats *st)
{
	struct rnic_sr_resp *sr = qp->resp.sr;

	RTE_BUILD_BUG_ON(RNIC_SR_WORDS != RNIC_SACK_WORDS);
	sr_sync(qp);
	ext->sr_aux = sr->base | (sr->dropped ? RNIC_SACK_DROPPED : 0);
	memcpy(ext->sack, sr->map, sizeof(ext->sack));
	st->sr_sacks_sent += rnic_sr_any(sr->map);
}

static bool
send_aeth(struct rnic_worker *wk, struct rnic_qp *qp, uint8_t syn, uint32_t psn,
	  uint32_t msn, struct rnic_dev_stats *st)
{
	struct rnic_ext_fields ext;
	struct rte_mbuf *m;

	rnic_ext_clear(&ext);   /* sr_sack writes the map where one is sent */
	ext.aeth_syn = syn;
	ext.aeth_msn = msn;
	if (qp->resp.sr != NULL && syn_is(syn, RNIC_AETH_ACK))
		sr_sack(qp, &ext, st);
	m = resp_build(wk, qp, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK), psn, &ext, 0, NULL, st);
	if (m == NULL)
		return false;
	if (syn_is(syn, RNIC_AETH_ACK))
		st->acks_sent++;
	else if (syn_is(syn, RNIC_AETH_RNR_NAK))
		st->rnr_naks_sent++;
	else
		st->naks_sent++;
	return true;
}

static bool
send_atomic_ack(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_rd_res *r,
		struct rnic_dev_stats *st)
{
	struct rnic_ext_fields ext = {
		.aeth_syn = ack_syndrome(qp), .aeth_msn = r->msn, .atmack_orig = r->atomic_orig,
	};
	struct rte_mbuf *m;

	m = resp_build(wk, qp, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ATOMIC_ACK), r->psn,
		       &ext, 0, NULL, st);
	if (m == NULL)
		return false;
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
pending_set(struct rnic_worker *wk, struct rnic_qp *qp, uint8_t syn, uint32_t psn)
{
	struct rnic_qp_resp *rs = &qp->resp;

	if (rs->ack_pending && rs->fatal)
		return;   /* a fatal NAK is queued: the QP is going to Error */
	if (rs->ack_pending && syn_is(syn, RNIC_AETH_ACK) && !syn_is(rs->ack_syn, RNIC_AETH_ACK) &&
	    rnic_psn_diff(psn, rs->ack_psn) < 0)
		return;   /* keep the NAK: it covers this ACK */
	rs->ack_syn = syn;
	rs->ack_psn = psn;
	rs->ack_msn = rs->msn;
	if (syn_is(syn, RNIC_AETH_NAK) && (syn & RNIC_AETH_VALUE_MASK) != RNIC_NAK_PSN_SEQ)
		rs->fatal = 1;
	/* The ACK's credits read the application's RQ producer index
	 * (ack_syndrome) when the pass ends: a line nothing else on a WRITE
	 * responder's path reads, cold at many QPs (its load was 96% of
	 * pending_emit at 16384 QPs; in-run A/B 1.023, doc/benchmarks.md). */
	if (!rs->ack_pending)
		rte_prefetch0(&qp->app.rq_pi);
	rs->ack_pending = 1;
	rnic_qp_list_add(&wk->rx.acks, qp, &rs->on_ack_list);
}

static void
pending_emit(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_qp_resp *rs = &qp->resp;
	uint8_t syn = rs->ack_syn;

	if (syn_is(syn, RNIC_AETH_ACK))
		syn = ack_syndrome(qp);   /* credits as of now */
	if (send_aeth(wk, qp, syn, rs->ack_psn, rs->ack_msn, st)) {
		rs->ack_pending = 0;
		if (rs->fatal) {
			rs->fatal = 0;
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
	struct rnic_qp_resp *rs = &qp->resp;

	if (rs->ack_pending && syn_is(rs->ack_syn, RNIC_AETH_ACK))
		rs->ack_pending = 0;
}

/* A QP's coalesced ACK/NAK; false once it is sent (or moot). */
static bool
ack_turn(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int *work)
{
	struct rnic_qp_resp *rs = &qp->resp;

	RTE_SET_USED(work);
	if (rs->rd_active)
		return true;   /* the READ pump sends it after the responses */
	if (rs->ack_pending)
		pending_emit(wk, qp, &wk->rx.st);
	return rs->ack_pending;   /* still pending: no room now, next poll */
}

void
rnic_resp_flush_acks(struct rnic_worker *wk)
{
	rnic_qp_list_walk(wk, &wk->rx.acks, offsetof(struct rnic_qp, resp.on_ack_list),
			  ack_turn);
}

/*
 * [ACK-OWED] rnic_dev_forget_qp's hook: @p qp leaves the role lists (a
 * reset or a destroy on the thread that polls the device) with an ACK or
 * NAK still on the list: one the last pass left owed, or one a pass had
 * no room for. The application may have seen the data it acknowledges
 * already, so it is sent now, or the requester would resend into a QP that
 * is gone until its retries ran out. The QP is being reset: a fatal NAK
 * does not move it to Error. Without an mbuf for it the ACK is lost
 * (counted in tx_nombuf), as one the link drops.
 */
static void
resp_forget(struct rnic_qp *qp)
{
	struct rnic_worker *wk = qp->w;
	struct rnic_qp_resp *rs = &qp->resp;
	uint8_t syn = rs->ack_syn;

	if (!rs->on_ack_list || !rs->ack_pending || rs->rd_active)
		return;
	if (syn_is(syn, RNIC_AETH_ACK))
		syn = ack_syndrome(qp);
	send_aeth(wk, qp, syn, rs->ack_psn, rs->ack_msn, &wk->rx.st);
	rs->ack_pending = 0;
	rs->fatal = 0;
}

void
rnic_resp_owe_acks(struct rnic_worker *wk)
{
	struct rnic_device *dev = wk->dev;

	if (wk->rx.acks.n == 0)
		return;
	if (unlikely(dev->forget_hook == NULL))
		dev->forget_hook = resp_forget;   /* this thread is the control thread */
	STORE_RLX(&wk->rx.acks_owed, 1);   /* [ACK-OWED] R: rnic_dev_tx_backlog */
}

/* ------------------------------------------------------------------ */
/* READ responses and queued atomic ACKs, in PSN order                  */
/* ------------------------------------------------------------------ */

static void
rd_activate(struct rnic_worker *wk, struct rnic_qp *qp)
{
	rnic_qp_list_add(&wk->rx.rd_active, qp, &qp->resp.rd_active);
}

static uint8_t
read_resp_opcode(bool first, bool last)
{
	uint8_t op = first && last ? RNIC_OP_READ_RESP_ONLY : first ? RNIC_OP_READ_RESP_FIRST :
		     last ? RNIC_OP_READ_RESP_LAST : RNIC_OP_READ_RESP_MIDDLE;

	return RNIC_OPC(RNIC_TRANSPORT_RC, op);
}

/* Returns packets built; leaves @p r active when it ran out of room. */
static unsigned int
rd_pump_one(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_rd_res *r,
	    unsigned int budget, struct rnic_dev_stats *st)
{
	unsigned int n = 0;

	if (r->type == RNIC_MQ_ATOMIC) {
		if (send_atomic_ack(wk, qp, r, st)) {
			r->active = 0;
			n = 1;
		}
		return n;
	}
	while (n < budget && r->active) {
		uint32_t left = r->length - r->sent;
		uint32_t paylen = RTE_MIN(left, qp->pmtu);
		bool last = paylen == left;
		struct rnic_ext_fields ext;

		rnic_ext_clear(&ext);   /* a READ response carries no SACK */
		ext.aeth_syn = ack_syndrome(qp);
		ext.aeth_msn = r->msn;
		if (resp_build(wk, qp, read_resp_opcode(r->sent == 0, last), r->cur_psn, &ext,
			       paylen, (const void *)(uintptr_t)(r->va + r->sent), st) == NULL)
			break;
		st->read_resp_sent++;
		r->sent += paylen;
		r->cur_psn = rnic_psn_add(r->cur_psn, 1);
		n++;
		if (last)
			r->active = 0;
	}
	return n;
}

/* The READ/atomic answers of one QP, oldest first. Returns true when one
 * is still unfinished (no room): the QP stays on the list. */
static bool
rd_pump_qp(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int *work,
	   struct rnic_dev_stats *st)
{
	struct rnic_qp_resp *rs = &qp->resp;

	/* Selective repeat: parts of READs asked again, first (their PSNs
	 * are older than anything still streaming). */
	for (uint32_t k = 0; rs->sr != NULL && k < RNIC_SR_REPLAYS; k++) {
		struct rnic_rd_res *r = &rs->sr->replay[k];

		if (!r->active)
			continue;
		*work += rd_pump_one(wk, qp, r, wk->dev->attr.burst, st);
		if (r->active)
			return true;
	}
	/* Resources are taken round robin, so the slot after the newest
	 * (res_next) is the oldest. */
	for (uint32_t k = 0; k < rs->res_n; k++) {
		struct rnic_rd_res *r = &rs->res[(rs->res_next + k) % rs->res_n];

		if (!r->active)
			continue;
		*work += rd_pump_one(wk, qp, r, wk->dev->attr.burst, st);
		if (r->active)
			return true;
	}
	return false;
}

/* A QP's READ responses; false once all are out (its ACK then follows). */
static bool
rd_turn(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int *work)
{
	struct rnic_qp_resp *rs = &qp->resp;

	if (rs->res == NULL)
		return false;
	if (rd_pump_qp(wk, qp, work, &wk->rx.st))
		return true;
	if (rs->ack_pending)
		pending_emit(wk, qp, &wk->rx.st);
	return false;
}

unsigned int
rnic_resp_pump_reads(struct rnic_worker *wk)
{
	return rnic_qp_list_walk(wk, &wk->rx.rd_active, offsetof(struct rnic_qp, resp.rd_active),
				 rd_turn);
}

/*
 * A duplicate READ or atomic: the requester went back N from it (seed 001
 * s3), so every answer still queued is moot; its own stream restarts, and
 * the duplicates after it (which follow in PSN order) re-arm theirs.
 */
static void
rd_replay(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_rd_res *r)
{
	struct rnic_qp_resp *rs = &qp->resp;

	/* (Selective repeat: the requester asks again for what it lacks
	 * alone, and keeps the rest: nothing is moot.) */
	for (uint32_t k = 0; rs->sr == NULL && k < rs->res_n; k++) {
		struct rnic_rd_res *o = &rs->res[k];

		if (o->active && rnic_psn_diff(o->psn, r->psn) >= 0)
			o->active = 0;
	}
	r->active = 1;
	r->replay = 1;
	rd_activate(wk, qp);
}

static struct rnic_rd_res *
res_take(struct rnic_qp *qp)
{
	struct rnic_qp_resp *rs = &qp->resp;
	struct rnic_rd_res *r;

	if (rs->res == NULL)
		return NULL;
	r = &rs->res[rs->res_next];
	if (r->active && !r->replay)
		return NULL;   /* more outstanding than max_dest_rd_atomic */
	/* A replay in the slot taken is moot: the requester, which keeps to
	 * max_rd_atomic, has every answer of that request (it completed it
	 * before this new one could go). Replays in other slots go on: a
	 * requester that went back N resends the READs and atomics it lacks
	 * answers for and then sends new requests at once; stopping every
	 * replay on a new request left those unanswered until its timer,
	 * and again on every retry (the go-back-N soak: ~150 RTO expiries in
	 * 5000 messages). */
	rs->res_next = (rs->res_next + 1) % rs->res_n;
	memset(r, 0, sizeof(*r));
	return r;
}

/* ------------------------------------------------------------------ */
/* RQWQEManager: receive WQEs (seed 4.4.2)                               */
/* ------------------------------------------------------------------ */

static void
recv_complete(struct rnic_qp *qp, enum rnic_wc_status s, uint8_t opcode, uint8_t flags,
	      uint32_t byte_len, uint32_t imm_or_inv, uint32_t src_qp)
{
	struct rnic_rwqe *r = rnic_rq_wqe(qp, qp->resp.rq_ci);
	struct rnic_wc wc = {
		.wr_id = r->wr_id, .status = (uint8_t)s, .opcode = opcode,
		.wc_flags = flags, .qp_num = qp->qpn, .byte_len = byte_len,
		.src_qp = src_qp,
	};

	wc.imm_data = imm_or_inv;
	STORE_REL(&qp->resp.rq_ci, qp->resp.rq_ci + 1);   /* [RQ-CI] */
	qp->resp.rwqe_active = 0;
	qp->w->rx.delivered = 1;
	rnic_complete_rx(qp, qp->rcq, &wc);
}

/* Error: complete every posted receive with WR_FLUSH_ERR. */
void
rnic_resp_flush_rq(struct rnic_qp *qp)
{
	struct rnic_dev_stats *st = &qp->w->rx.st;
	uint32_t pi = LOAD_ACQ(&qp->app.rq_pi);   /* [RQ-PI] */

	while (qp->resp.rq_ci != pi) {
		st->flushed++;
		recv_complete(qp, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, 0, 0, 0);
	}
}

static bool
rwqe_available(const struct rnic_qp *qp)
{
	return qp->resp.rq_ci != LOAD_ACQ(&qp->app.rq_pi);   /* [RQ-PI] */
}

/* Take the receive WQE at rq_ci for a new message. */
static void
rwqe_start(struct rnic_qp *qp)
{
	struct rnic_qp_resp *rs = &qp->resp;

	rs->rwqe_active = 1;
	rs->rwqe_sge = rs->rwqe_sge_off = rs->rwqe_bytes = 0;
}

/* Scatter @p len bytes into the current receive WQE: from the packet @p m
 * at @p off, or (@p m NULL) from @p buf at @p off. */
static enum rnic_wc_status
rwqe_place(struct rnic_qp *qp, const struct rte_mbuf *m, const uint8_t *buf, uint32_t off,
	   uint32_t len)
{
	struct rnic_qp_resp *rs = &qp->resp;
	struct rnic_rwqe *r = rnic_rq_wqe(qp, qp->resp.rq_ci);

	while (len > 0) {
		struct rnic_sge *sg;
		struct rnic_mr *mr;
		void *dst;
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
		dst = (void *)(uintptr_t)(sg->addr + rs->rwqe_sge_off);
		if (m != NULL)
			rnic_mbuf_copy_out(m, off, n, dst);
		else if (buf != NULL)
			memcpy(dst, buf + off, n);
		/* neither: placed already (selective repeat), only accounted */
		rs->rwqe_sge_off += n;
		rs->rwqe_bytes += n;
		off += n;
		len -= n;
	}
	return RNIC_WC_SUCCESS;
}

/* Scatter @p len bytes of the packet into the current receive WQE. */
static inline enum rnic_wc_status
rwqe_scatter(struct rnic_qp *qp, const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	return rwqe_place(qp, m, NULL, off, len);
}

/* The first 20 bytes of a UD receive's GRH area (RoCEv2 over IPv4). */
static const uint8_t ud_grh_zero[RNIC_UD_GRH_LEN - RNIC_IPV4_HLEN];

/* ------------------------------------------------------------------ */
/* ExecutionEngine (seed 4.4.1): a request packet, as named states      */
/* ------------------------------------------------------------------ */

/*
 * rnic_resp_rx runs one packet through these states, as rxe's responder
 * does: each state is one function that does one check or one action and
 * returns the next state; RESP_DONE ends the packet. After the function,
 * the two states that usually come next (resp_run tests them before its
 * indirect jump). RESP_TRACE names every state a packet passes through
 * (RTE_LOG_DP at DEBUG: compiled in with
 * -Dc_args=-DRTE_LOG_DP_LEVEL=RTE_LOG_DEBUG).
 */
#define RESP_STATES(_) \
	/* QP state and service type */ \
	_(CHECK_STATE, resp_check_state, CHECK_PSN, DONE) \
	/* expected, duplicate or out of sequence */ \
	_(CHECK_PSN, resp_check_psn, CHECK_OP_SEQ, DUPLICATE) \
	/* re-ACK, re-execute a READ, replay an atomic */ \
	_(DUPLICATE, resp_duplicate, DONE, DONE) \
	/* PSN sequence error: one NAK per gap */ \
	_(NAK_SEQ, resp_nak_seq, DONE, DONE) \
	/* selective repeat: place ahead, SACK */ \
	_(SR_PLACE, resp_sr_place, DONE, DONE) \
	/* UC: a lost packet drops the message */ \
	_(UC_GAP, resp_uc_gap, DONE, DONE) \
	/* Middle/Last follow a First of their kind */ \
	_(CHECK_OP_SEQ, resp_check_op_seq, CHECK_LENGTH, DONE) \
	/* payload against the PMTU */ \
	_(CHECK_LENGTH, resp_check_length, WRITE_RKEY, WRITE) \
	/* SEND First: take a receive WQE */ \
	_(RECV_WQE, resp_recv_wqe, SEND, NO_RECV) \
	/* no receive WQE: RNR NAK (RC), drop (UC) */ \
	_(NO_RECV, resp_no_recv, DONE, DONE) \
	/* scatter a SEND into the receive WQE */ \
	_(SEND, resp_send, SEND_LAST, ACKNOWLEDGE) \
	/* immediate, invalidate, complete the receive */ \
	_(SEND_LAST, resp_send_last, ACKNOWLEDGE, DONE) \
	/* WRITE First: R_Key, bounds, length */ \
	_(WRITE_RKEY, resp_write_rkey, WRITE, ACKNOWLEDGE) \
	/* place WRITE payload */ \
	_(WRITE, resp_write, ACKNOWLEDGE, DONE) \
	/* check and queue a READ's responses */ \
	_(READ, resp_read, DONE, DONE) \
	/* check, execute and queue an atomic ACK */ \
	_(ATOMIC, resp_atomic, DONE, DONE) \
	/* ePSN moves on; ACK when asked */ \
	_(ACKNOWLEDGE, resp_acknowledge, DONE, DONE) \
	/* UD: Q_Key, length, one receive */ \
	_(UD, resp_ud, DONE, DONE) \
	/* NAK invalid request, QP to Error (RC) */ \
	_(ERR_INV_REQ, resp_err_inv_req, DONE, DONE) \
	/* NAK remote access error, QP to Error (RC) */ \
	_(ERR_ACCESS, resp_err_access, DONE, DONE) \
	/* NAK remote operational error, QP to Error (RC) */ \
	_(ERR_OP, resp_err_op, DONE, DONE)

enum resp_state {
#define RESP_STATE_ENUM(n, fn, a, b) RESP_##n,
	RESP_STATES(RESP_STATE_ENUM)
#undef RESP_STATE_ENUM
	RESP_DONE
};

static const char *const resp_state_names[] = {
#define RESP_STATE_NAME(n, fn, a, b) #n,
	RESP_STATES(RESP_STATE_NAME)
#undef RESP_STATE_NAME
};

#define RESP_TRACE(c, s) \
	RTE_LOG_DP(DEBUG, USER1, "softrnic: resp qp %u psn %u: %s\n", (c)->qp->qpn, \
		   (c)->pkt->bth.psn, resp_state_names[s])

/* One request packet on its way through the states. */
struct resp_ctx {
	struct rnic_worker *wk;
	struct rnic_qp *qp;
	const struct rte_mbuf *m;
	const struct rnic_pkt *pkt;
	struct rnic_dev_stats *st;
	rnic_opmask_t mask;
	bool rc;
	/* m is NULL for a packet placed already (selective repeat,
	 * sr_drain): the states account for its payload without a copy */
};

/* The R_Key's MR for [va, va + len): inline, as it runs for every WRITE
 * the fast path takes (GCC kept it out of line; 1.009-1.013x at one QP by
 * in-run A/B, doc/benchmarks.md). */
static __rte_always_inline int
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

/* Fatal responder errors (IBA 9.9.3.1, classes A and C): on RC a NAK,
 * then the QP goes to Error. UC has no acknowledgements at all (IBA
 * 9.7.4): the message is dropped and the QP waits for the next First. */
static enum resp_state
resp_fatal(struct resp_ctx *c, uint8_t nak)
{
	c->qp->resp.in_msg = 0;
	if (!c->rc) {
		c->st->drop_uc_gap++;
		return RESP_DONE;
	}
	pending_set(c->wk, c->qp, RNIC_AETH_NAK | nak, c->pkt->bth.psn);
	return RESP_DONE;
}

static enum resp_state
resp_err_inv_req(struct resp_ctx *c)
{
	return resp_fatal(c, RNIC_NAK_INVALID_REQ);
}

static enum resp_state
resp_err_access(struct resp_ctx *c)
{
	return resp_fatal(c, RNIC_NAK_REMOTE_ACCESS);
}

static enum resp_state
resp_err_op(struct resp_ctx *c)
{
	return resp_fatal(c, RNIC_NAK_REMOTE_OP);
}

/* IBA 10.3.1: a QP in Reset, Init or Error takes no request; RTR and
 * later execute. A queued fatal NAK means Error is on its way. */
static enum resp_state
resp_check_state(struct resp_ctx *c)
{
	enum rnic_qp_state s = rnic_qp_state_get(c->qp);

	if (s == RNIC_QPS_RESET || s == RNIC_QPS_INIT || s == RNIC_QPS_ERR) {
		c->st->drop_qp_state++;
		return RESP_DONE;
	}
	if (c->qp->type == RNIC_QPT_UD)
		return RESP_UD;
	if (c->qp->resp.fatal) {
		c->st->drop_qp_state++;
		return RESP_DONE;
	}
	return RESP_CHECK_PSN;
}

/*
 * The PSN (seed 4.4.1.1.3; seed 001 s3; IBA 9.7.5.1.2): the expected PSN
 * executes; RC: an earlier one (within the window) is a duplicate, a
 * later one a sequence error; UC resynchronises on the next First/Only.
 */
static enum resp_state
resp_check_psn(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	uint32_t psn = c->pkt->bth.psn;

	if (psn != rs->epsn) {
		if (c->rc)
			return rnic_psn_classify(psn, rs->epsn) == RNIC_PSN_DUPLICATE ?
			       RESP_DUPLICATE : rs->sr != NULL ? RESP_SR_PLACE : RESP_NAK_SEQ;
		if (!(c->mask & RNIC_M_FIRST))
			return RESP_UC_GAP;
		rs->rwqe_active = 0;   /* the interrupted message's RWQE is reused */
		rs->in_msg = 0;
		rs->epsn = psn;
	}
	rs->nak_sent = 0;
	/* The gap a queued sequence NAK reported is filled: the NAK is moot
	 * and, sent after this packet's answer, would contradict it. */
	if (rs->ack_pending && rs->ack_syn == (RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ) &&
	    rs->ack_psn == psn)
		rs->ack_pending = 0;
	return RESP_CHECK_OP_SEQ;
}

static enum resp_state
resp_uc_gap(struct resp_ctx *c)
{
	c->qp->resp.in_msg = 0;
	c->st->drop_uc_gap++;
	return RESP_DONE;
}

/*
 * Out of sequence (IBA 9.7.5.1.2, class B): one NAK for the expected PSN,
 * then silence until it arrives (seed 001 s3.4) - except that requests
 * still arriving out of sequence well after the NAK (RESP_RENAK_*) say
 * the requester's resend was lost too: NAK again, at most that often,
 * rather than leave the requester to its local ACK timeout. A requester
 * takes a repeated NAK for the same PSN as the same loss while its
 * resend is young (rxe ignores it while retrying; softrnic within an RTO).
 */
static enum resp_state
resp_nak_seq(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	uint64_t now;

	c->st->drop_psn_invalid++;
	if (!rs->nak_sent) {
		rs->nak_sent = 1;
		rs->nak_tsc = rte_rdtsc();
		rs->nak_drops = 0;
		pending_set(c->wk, c->qp, RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ, rs->epsn);
		return RESP_DONE;
	}
	if (++rs->nak_drops < RESP_RENAK_PKTS)
		return RESP_DONE;
	now = rte_rdtsc();
	if (now - rs->nak_tsc > c->qp->dev->tsc_hz / (1000000 / RESP_RENAK_US)) {
		rs->nak_tsc = now;
		rs->nak_drops = 0;
		c->st->naks_repeated++;
		pending_set(c->wk, c->qp, RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ, rs->epsn);
	}
	return RESP_DONE;
}

/*
 * Selective repeat (doc/reliability.md): a SEND or WRITE packet ahead of
 * the ePSN goes where its SRETH says at once, after the checks its place
 * needs (R_Key, access and bounds per packet for a WRITE; a posted
 * receive WQE and its L_Keys for a SEND), and is recorded; it is executed
 * in order (without its copy) once the packets before it are, so every
 * check of the in-order path still applies and completions stay in
 * order. A packet that cannot be placed (a READ or atomic, no SRETH,
 * past the window, no receive posted yet) is dropped and stays a hole
 * in the SACK, which the requester fills.
 */
static bool
sr_place_send(struct resp_ctx *c)
{
	struct rnic_qp *qp = c->qp;
	const struct rnic_pkt *pkt = c->pkt;
	uint32_t ssn = pkt->ext.sr_key, off;
	uint64_t moff = pkt->ext.sr_va;
	struct rnic_rwqe *r;
	uint32_t len = pkt->payload_len, pos = pkt->payload_off;

	if (ssn - qp->resp.rq_ci >= LOAD_ACQ(&qp->app.rq_pi) - qp->resp.rq_ci)   /* [RQ-PI] */
		return false;   /* not posted yet (or consumed) */
	if (moff >= RNIC_MAX_MSG_LEN)
		return false;
	off = (uint32_t)moff;
	r = rnic_rq_wqe(qp, ssn);
	for (uint32_t i = 0; i < r->num_sge && len > 0; i++) {
		const struct rnic_sge *sg = &r->sge[i];
		struct rnic_mr *mr;
		uint32_t n;

		if (off >= sg->length) {
			off -= sg->length;
			continue;
		}
		n = RTE_MIN(sg->length - off, len);
		if (rnic_mr_check(qp->dev, qp->pd, sg->lkey, false, sg->addr + off, n,
				  RNIC_ACCESS_LOCAL_WRITE, &mr) != RNIC_MEMCHK_OK)
			return false;
		rnic_mbuf_copy_out(c->m, pos, n, (void *)(uintptr_t)(sg->addr + off));
		pos += n;
		len -= n;
		off = 0;
	}
	return len == 0;   /* longer than the receive: the in-order path NAKs */
}

static bool
sr_place(struct resp_ctx *c, uint32_t d, uint64_t *host)
{
	const struct rnic_pkt *pkt = c->pkt;
	uint32_t len = pkt->payload_len;
	struct rnic_mr *mr;

	*host = 0;
	if (c->mask & (RNIC_M_READ | RNIC_M_ATOMIC))
		return true;   /* recorded only: every check when executed */
	if (!pkt->bth.sr || len > c->qp->pmtu ||
	    (!(c->mask & RNIC_M_LAST) && len != c->qp->pmtu))
		return false;
	if (c->mask & RNIC_M_SEND)
		return sr_place_send(c);
	if (!(c->mask & RNIC_M_WRITE) || pkt->ext.sr_aux > pkt->ext.sr_len ||
	    len > pkt->ext.sr_len - pkt->ext.sr_aux)
		return false;
	if (len == 0)
		return true;
	if (check_remote(c->qp, pkt->ext.sr_key, pkt->ext.sr_va, len, RNIC_ACCESS_REMOTE_WRITE,
			 &mr) != RNIC_MEMCHK_OK)
		return false;
	*host = rnic_mr_host(mr, pkt->ext.sr_va);
	sr_copy_write(c->qp, d, c->m, pkt->payload_off, len, (uint8_t *)(uintptr_t)*host);
	return true;
}

static enum resp_state
resp_sr_place(struct resp_ctx *c)
{
	struct rnic_qp *qp = c->qp;
	struct rnic_sr_resp *sr = qp->resp.sr;
	const struct rnic_pkt *pkt = c->pkt;
	uint32_t d = (uint32_t)rnic_psn_diff(pkt->bth.psn, qp->resp.epsn);   /* > 0 */
	struct rnic_sr_slot *sl;
	uint64_t host;

	sr_sync(qp);
	/* Every packet out of order is answered with the SACK, coalesced
	 * per burst: the requester resends the holes it shows. */
	pending_set(c->wk, qp, RNIC_AETH_ACK, rnic_psn_add(qp->resp.epsn, RNIC_PSN_MASK));
	if (d >= RNIC_SR_WIN) {
		c->st->drop_sr++;
		sr->dropped = 1;
		return RESP_DONE;
	}
	if (rnic_sr_test(sr->map, d)) {
		c->st->sr_dup++;
		return RESP_DONE;
	}
	if (!sr_place(c, d, &host)) {
		c->st->drop_sr++;
		sr->dropped = 1;
		return RESP_DONE;
	}
	sl = &sr->slot[pkt->bth.psn % RNIC_SR_WIN];
	sl->opcode = pkt->bth.opcode;
	sl->ackreq = pkt->bth.ackreq;
	sl->len = (uint16_t)pkt->payload_len;
	sl->imm_inv = (c->mask & RNIC_M_IETH) ? pkt->ext.ieth_rkey : (uint32_t)pkt->ext.imm;
	if (c->mask & RNIC_M_ATOMIC) {
		sl->va = pkt->ext.atm_va;
		sl->rkey = pkt->ext.atm_rkey;
		sl->host = pkt->ext.atm_swap_add;
		sl->imm_inv = (uint32_t)pkt->ext.atm_cmp;
		sl->rlen = (uint32_t)(pkt->ext.atm_cmp >> 32);
	} else {
		sl->va = pkt->ext.reth_va;
		sl->rkey = pkt->ext.reth_rkey;
		sl->rlen = pkt->ext.reth_len;
		sl->host = host;
	}
	rnic_sr_set(sr->map, d);
	c->st->sr_placed++;
	return RESP_DONE;
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

/*
 * Selective repeat: a duplicate READ asks for the part of READ @p r it
 * lacks (sr_read_reask). It is served from a replay record of its own,
 * beside whatever still streams (the original's rest, later READs),
 * none of which it cancels. No free record: dropped (the requester asks
 * again after an RTO).
 */
static enum resp_state
sr_dup_read(struct resp_ctx *c, const struct rnic_rd_res *r, uint64_t host)
{
	struct rnic_sr_resp *sr = c->qp->resp.sr;

	for (uint32_t k = 0; k < RNIC_SR_REPLAYS; k++) {
		struct rnic_rd_res *p = &sr->replay[k];

		if (p->active && p->cur_psn == c->pkt->bth.psn && p->sent == 0)
			return RESP_DONE;   /* the same part, not started yet */
	}
	for (uint32_t k = 0; k < RNIC_SR_REPLAYS; k++) {
		struct rnic_rd_res *p = &sr->replay[k];

		if (p->active)
			continue;
		*p = *r;
		p->va = host;
		p->length = c->pkt->ext.reth_len;
		p->sent = 0;
		p->cur_psn = c->pkt->bth.psn;
		p->active = 1;
		p->replay = 1;
		rd_activate(c->wk, c->qp);
		return RESP_DONE;
	}
	c->st->drop_dup_rd_atomic++;
	return RESP_DONE;
}

/* The duplicate READ at record @p r: re-executed from memory with the
 * duplicate's PSN and RETH, or dropped. */
static enum resp_state
dup_read(struct resp_ctx *c, struct rnic_rd_res *r)
{
	const struct rnic_pkt *pkt = c->pkt;
	struct rnic_mr *mr;

	/* Not within the original, or the memory is no longer readable (MR
	 * gone, rkey invalidated): dropped, not NAKed, as seed 001 s3.3.2.2
	 * allows and Linux rxe does: a NAK would carry an old PSN and send
	 * the QP to Error over what may be a stale copy from the fabric. */
	if (!dup_read_within(c->qp, r, pkt) ||
	    check_remote(c->qp, pkt->ext.reth_rkey, pkt->ext.reth_va, pkt->ext.reth_len,
			 RNIC_ACCESS_REMOTE_READ, &mr) != RNIC_MEMCHK_OK) {
		c->st->drop_dup_rd_atomic++;
		return RESP_DONE;
	}
	if (c->qp->resp.sr != NULL)
		return sr_dup_read(c, r, rnic_mr_host(mr, pkt->ext.reth_va));
	r->va = rnic_mr_host(mr, pkt->ext.reth_va);
	r->length = pkt->ext.reth_len;
	r->sent = 0;
	r->cur_psn = pkt->bth.psn;
	rd_replay(c->wk, c->qp, r);
	return RESP_DONE;
}

/* A duplicate request (seed 001 s3; IBA 9.7.5.1.3). */
static enum resp_state
resp_duplicate(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	uint32_t psn = c->pkt->bth.psn;

	c->st->dup_requests++;
	if (c->mask & (RNIC_M_SEND | RNIC_M_WRITE)) {
		/* Re-ACK with the PSN of the last request completed. */
		pending_set(c->wk, c->qp, RNIC_AETH_ACK, rnic_psn_add(rs->epsn, RNIC_PSN_MASK));
		return RESP_DONE;
	}
	for (uint32_t k = 0; rs->res != NULL && k < rs->res_n; k++) {
		struct rnic_rd_res *r = &rs->res[k];

		if ((c->mask & RNIC_M_ATOMIC) && r->type == RNIC_MQ_ATOMIC && r->psn == psn) {
			rd_replay(c->wk, c->qp, r);   /* the saved result, never twice */
			return RESP_DONE;
		}
		if ((c->mask & RNIC_M_READ) && r->type == RNIC_MQ_READ &&
		    rnic_psn_diff(psn, r->psn) >= 0 && rnic_psn_diff(psn, r->last_psn) <= 0)
			return dup_read(c, r);
	}
	/* No record (its resource was reused, or an atomic's PSN matches none):
	 * nothing safe to replay, dropped silently (seed 001 s3.3.2.1, IBA
	 * class D); the requester will time out. */
	c->st->drop_dup_rd_atomic++;
	return RESP_DONE;
}

/* IBA 9.7.4 (opcode sequence): Middle/Last continue a First of the same
 * kind (SEND or WRITE); outside a message only First/Only may start one
 * (READ and atomics are Only). RC: invalid request; UC: dropped. */
static enum resp_state
resp_check_op_seq(struct resp_ctx *c)
{
	const struct rnic_qp_resp *rs = &c->qp->resp;
	rnic_opmask_t m = c->mask, cur = rnic_opcode_mask(rs->cur_op);
	bool ok;

	if (rs->in_msg)
		ok = (m & (RNIC_M_MIDDLE | RNIC_M_LAST)) && !(m & RNIC_M_FIRST) &&
		     (((m & RNIC_M_SEND) && (cur & RNIC_M_SEND)) ||
		      ((m & RNIC_M_WRITE) && (cur & RNIC_M_WRITE)));
	else
		ok = (m & RNIC_M_FIRST) != 0;
	return ok ? RESP_CHECK_LENGTH : RESP_ERR_INV_REQ;
}

/* IBA 9.7.3 (packet length): First and Middle carry exactly a PMTU, no
 * packet more. */
static enum resp_state
resp_check_length(struct resp_ctx *c)
{
	uint32_t len = c->pkt->payload_len, pmtu = c->qp->pmtu;
	rnic_opmask_t m = c->mask;

	if (len > pmtu ||
	    ((m & (RNIC_M_FIRST | RNIC_M_MIDDLE)) && !(m & RNIC_M_LAST) && len != pmtu))
		return RESP_ERR_INV_REQ;
	if (m & RNIC_M_SEND)
		return (m & RNIC_M_FIRST) ? RESP_RECV_WQE : RESP_SEND;
	if (m & RNIC_M_WRITE)
		return (m & RNIC_M_FIRST) ? RESP_WRITE_RKEY : RESP_WRITE;
	if (m & RNIC_M_READ)
		return RESP_READ;
	if (m & RNIC_M_ATOMIC)
		return RESP_ATOMIC;
	return RESP_ACKNOWLEDGE;
}

/* SEND First (seed 4.4.2): the message takes the next receive WQE. */
static enum resp_state
resp_recv_wqe(struct resp_ctx *c)
{
	if (!rwqe_available(c->qp))
		return RESP_NO_RECV;
	rwqe_start(c->qp);
	return RESP_SEND;
}

/* No receive WQE (IBA 9.7.5.2.8): RC sends an RNR NAK with the QP's
 * minimum RNR timer; UC has no RNR: the message is lost. */
static enum resp_state
resp_no_recv(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;

	if (c->rc) {
		pending_set(c->wk, c->qp, RNIC_AETH_RNR_NAK |
			    (c->qp->attr.min_rnr_timer & RNIC_AETH_VALUE_MASK), c->pkt->bth.psn);
		return RESP_DONE;
	}
	c->st->drop_no_recv++;
	rs->in_msg = 0;
	if (c->mask & RNIC_M_SEND) {   /* skip the rest of the SEND */
		rs->epsn = rnic_psn_add(c->pkt->bth.psn, 1);
		rs->in_msg = !(c->mask & RNIC_M_LAST);
		rs->cur_op = c->pkt->bth.opcode;
	}
	return RESP_DONE;
}

static enum resp_state
resp_send(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	enum rnic_wc_status ws;

	if (!rs->rwqe_active) {   /* UC: a message whose First found no receive */
		rs->epsn = rnic_psn_add(c->pkt->bth.psn, 1);
		rs->in_msg = !(c->mask & RNIC_M_LAST);
		return RESP_DONE;
	}
	ws = rwqe_scatter(c->qp, c->m, c->pkt->payload_off, c->pkt->payload_len);
	if (ws == RNIC_WC_SUCCESS)
		return (c->mask & RNIC_M_LAST) ? RESP_SEND_LAST : RESP_ACKNOWLEDGE;
	/* Too long for the receive, or a bad receive SGE: the receive
	 * completes in error; RC NAKs (class C), UC drops the message. */
	recv_complete(c->qp, ws, RNIC_WC_RECV, 0, 0, 0, 0);
	if (c->rc)
		return ws == RNIC_WC_LOC_LEN_ERR ? RESP_ERR_INV_REQ : RESP_ERR_OP;
	rs->in_msg = !(c->mask & RNIC_M_LAST);
	rs->epsn = rnic_psn_add(c->pkt->bth.psn, 1);
	rs->rwqe_active = 0;
	return RESP_DONE;
}

/* SEND Last/Only: immediate data or the R_Key to invalidate (IBA 10.6.6:
 * it must name an MR of the QP's PD), then the receive completes. */
static enum resp_state
resp_send_last(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	uint32_t extra = 0;
	uint8_t flags = 0;

	if (c->mask & RNIC_M_IMMDT) {
		flags |= RNIC_WC_WITH_IMM;
		extra = (uint32_t)c->pkt->ext.imm;
	}
	if (c->mask & RNIC_M_IETH) {
		uint32_t key = c->pkt->ext.ieth_rkey;
		struct rnic_mr *mr = rnic_mr_by_rkey(c->wk->dev, c->qp->pd, key);

		if (mr == NULL) {
			recv_complete(c->qp, RNIC_WC_REM_INV_REQ_ERR, RNIC_WC_RECV, 0, 0, 0, 0);
			return RESP_ERR_INV_REQ;
		}
		STORE_REL(&mr->rkey_valid, 0);   /* [MR-RKEY] */
		flags |= RNIC_WC_WITH_INV;
		extra = key;
	}
	recv_complete(c->qp, RNIC_WC_SUCCESS, RNIC_WC_RECV, flags, rs->rwqe_bytes, extra, 0);
	rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
	return RESP_ACKNOWLEDGE;
}

/* WRITE First (WriteAddrTable, seed 4.4.3): R_Key, access and bounds of
 * the whole message (IBA 9.7.5.1.4, class C), and its length against the
 * packet: an Only carries it all, a First more than a PMTU. */
static enum resp_state
resp_write_rkey(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	const struct rnic_pkt *pkt = c->pkt;
	struct rnic_mr *mr;

	if (check_remote(c->qp, pkt->ext.reth_rkey, pkt->ext.reth_va, pkt->ext.reth_len,
			 RNIC_ACCESS_REMOTE_WRITE, &mr) != RNIC_MEMCHK_OK)
		return RESP_ERR_ACCESS;
	if (((c->mask & RNIC_M_LAST) && pkt->payload_len != pkt->ext.reth_len) ||
	    (!(c->mask & RNIC_M_LAST) && pkt->ext.reth_len <= c->qp->pmtu))
		return RESP_ERR_INV_REQ;
	rs->wr_va = rnic_mr_host(mr, pkt->ext.reth_va);
	rs->wr_left = pkt->ext.reth_len;
	rs->wr_total = pkt->ext.reth_len;
	return RESP_WRITE;
}

/* Place a WRITE packet at the address the First set up. WRITE with
 * immediate consumes a receive: checked before anything is written. */
static enum resp_state
resp_write(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	const struct rnic_pkt *pkt = c->pkt;
	bool imm = c->mask & RNIC_M_IMMDT;

	if (pkt->payload_len > rs->wr_left ||
	    ((c->mask & RNIC_M_LAST) && pkt->payload_len != rs->wr_left))
		return RESP_ERR_INV_REQ;
	if (imm && !rwqe_available(c->qp))
		return RESP_NO_RECV;
	if (c->m == NULL) {
		/* placed already (selective repeat) */
	} else if (unlikely(c->qp->resp.sr != NULL) && rnic_sr_any(c->qp->resp.sr->map)) {
		sr_sync(c->qp);
		sr_copy_write(c->qp, 0, c->m, pkt->payload_off, pkt->payload_len,
			      (uint8_t *)(uintptr_t)rs->wr_va);
	} else {
		rnic_mbuf_copy_out(c->m, pkt->payload_off, pkt->payload_len,
				   (void *)(uintptr_t)rs->wr_va);
	}
	rs->wr_va += pkt->payload_len;
	rs->wr_left -= pkt->payload_len;
	if (!(c->mask & RNIC_M_LAST))
		return RESP_ACKNOWLEDGE;
	if (imm) {
		rs->rwqe_active = 1;
		recv_complete(c->qp, RNIC_WC_SUCCESS, RNIC_WC_RECV_RDMA_WITH_IMM,
			      RNIC_WC_WITH_IMM, rs->wr_total, (uint32_t)pkt->ext.imm, 0);
	}
	c->wk->rx.delivered = 1;   /* an application may watch its last byte */
	rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
	return RESP_ACKNOWLEDGE;
}

/*
 * The checks a READ and an atomic share, in Linux rxe's order: a
 * responder resource first (max_dest_rd_atomic 0, or all in use, is an
 * invalid request: IBA 9.9.3.1 class C), then the R_Key, access and
 * bounds (remote access error). Returns the resource, or NULL with *next
 * set to the error state.
 */
static struct rnic_rd_res *
rd_atomic_take(struct resp_ctx *c, uint32_t rkey, uint64_t va, uint64_t len, int access,
	       enum resp_state *next, uint64_t *host)
{
	struct rnic_rd_res *r;
	struct rnic_mr *mr;

	*next = RESP_ERR_INV_REQ;
	if (c->qp->resp.res == NULL)
		return NULL;
	if (len > RNIC_MAX_MSG_LEN)
		return NULL;
	if (access == RNIC_ACCESS_REMOTE_ATOMIC && (va & (RNIC_ATOMIC_LEN - 1)))
		return NULL;   /* unaligned atomic */
	if (check_remote(c->qp, rkey, va, len, access, &mr) != RNIC_MEMCHK_OK) {
		*next = RESP_ERR_ACCESS;
		return NULL;
	}
	*host = rnic_mr_host(mr, va);
	if (access == RNIC_ACCESS_REMOTE_ATOMIC && (*host & (RNIC_ATOMIC_LEN - 1)))
		return NULL;   /* aligned IOVA, unaligned memory: an MR with an odd IOVA */
	r = res_take(c->qp);
	if (r != NULL)
		pending_drop_ack(c->qp);   /* the READ response/atomic ACK covers it */
	return r;
}

/* A READ: its responses are queued for the READ pump, in PSN order. */
static enum resp_state
resp_read(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	const struct rnic_pkt *pkt = c->pkt;
	uint32_t len = pkt->ext.reth_len, npsn;
	enum resp_state next;
	struct rnic_rd_res *r;
	uint64_t host;

	r = rd_atomic_take(c, pkt->ext.reth_rkey, pkt->ext.reth_va, len,
			   RNIC_ACCESS_REMOTE_READ, &next, &host);
	if (r == NULL)
		return next;
	npsn = RTE_MAX(1u, (len + c->qp->pmtu - 1) / c->qp->pmtu);
	rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
	r->type = RNIC_MQ_READ;
	r->psn = pkt->bth.psn;
	r->last_psn = rnic_psn_add(r->psn, npsn - 1);
	r->va = host;                   /* where the responses read from */
	r->orig_va = pkt->ext.reth_va;  /* what a duplicate is matched with */
	r->rkey = pkt->ext.reth_rkey;
	r->length = r->orig_len = len;
	r->cur_psn = r->psn;
	r->msn = rs->msn;
	r->active = 1;
	rd_activate(c->wk, c->qp);
	rs->epsn = rnic_psn_add(r->psn, npsn);
	return RESP_DONE;
}

/* An atomic (IBA 9.4.5): executed once, its result saved for duplicates. */
static enum resp_state
resp_atomic(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;
	const struct rnic_pkt *pkt = c->pkt;
	enum resp_state next;
	struct rnic_rd_res *r;
	uint64_t *p, host;

	r = rd_atomic_take(c, pkt->ext.atm_rkey, pkt->ext.atm_va, RNIC_ATOMIC_LEN,
			   RNIC_ACCESS_REMOTE_ATOMIC, &next, &host);
	if (r == NULL)
		return next;
	p = (uint64_t *)(uintptr_t)host;
	if (pkt->bth.opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP)) {
		uint64_t expect = pkt->ext.atm_cmp;

		__atomic_compare_exchange_n(p, &expect, pkt->ext.atm_swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		r->atomic_orig = expect;   /* the value found, swapped or not */
	} else {
		r->atomic_orig = __atomic_fetch_add(p, pkt->ext.atm_swap_add, __ATOMIC_SEQ_CST);
	}
	rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
	r->type = RNIC_MQ_ATOMIC;
	r->psn = r->last_psn = pkt->bth.psn;
	r->va = pkt->ext.atm_va;
	r->msn = rs->msn;
	r->active = 1;
	rd_activate(c->wk, c->qp);
	rs->epsn = rnic_psn_add(pkt->bth.psn, 1);
	return RESP_DONE;
}

/* A SEND or WRITE packet executed: the ePSN moves on, and an ACK is
 * coalesced when the requester asked for one (IBA 9.7.5.1.1). */
static enum resp_state
resp_acknowledge(struct resp_ctx *c)
{
	struct rnic_qp_resp *rs = &c->qp->resp;

	rs->in_msg = !(c->mask & RNIC_M_LAST);
	rs->cur_op = c->pkt->bth.opcode;
	rs->epsn = rnic_psn_add(c->pkt->bth.psn, 1);
	if (c->rc && c->pkt->bth.ackreq)
		pending_set(c->wk, c->qp, RNIC_AETH_ACK, c->pkt->bth.psn);
	return RESP_DONE;
}

/*
 * UD (IBA 9.8.3): the Q_Key must match; a message is one packet of at
 * most the PMTU, for UD the port's active MTU (the WQEParser holds our
 * sender to it): a longer one is dropped and counted before it takes a
 * receive. No receive: dropped (UD has no RNR). The receive's first 40
 * bytes are the GRH area (IBA 11.4.1.1); RoCEv2 over IPv4 has no GRH, so,
 * as rxe and ConnectX do, the area gets 20 zero bytes and then the
 * packet's IPv4 header as received, and the completion says GRH: from
 * it, ibv_init_ah_from_wc finds the sender's address (rdma-core tells the
 * IPv4 header from a GRH by its version and checksum).
 */
static enum resp_state
resp_ud(struct resp_ctx *c)
{
	struct rnic_qp *qp = c->qp;
	const struct rnic_pkt *pkt = c->pkt;
	enum rnic_wc_status s = RNIC_WC_LOC_LEN_ERR;

	if (pkt->ext.deth_qkey != qp->attr.qkey) {
		c->st->drop_qkey++;
		return RESP_DONE;
	}
	if (pkt->payload_len > qp->pmtu) {
		c->st->drop_ud_mtu++;
		return RESP_DONE;
	}
	if (!rwqe_available(qp)) {
		c->st->drop_no_recv++;
		return RESP_DONE;
	}
	rwqe_start(qp);
	if (rnic_rq_wqe(qp, qp->resp.rq_ci)->total_len >= RNIC_UD_GRH_LEN + pkt->payload_len) {
		/* The GRH area: the IPv6 header as it came (it is the GRH),
		 * or 20 zero bytes and the IPv4 header (rxe, ConnectX). */
		if (pkt->l.ipv6) {
			s = rwqe_scatter(qp, c->m, pkt->l3_off, RNIC_IPV6_HLEN);
		} else {
			s = rwqe_place(qp, NULL, ud_grh_zero, 0, RNIC_UD_GRH_LEN - RNIC_IPV4_HLEN);
			if (s == RNIC_WC_SUCCESS)
				s = rwqe_scatter(qp, c->m, pkt->l3_off, RNIC_IPV4_HLEN);
		}
		if (s == RNIC_WC_SUCCESS)
			s = rwqe_scatter(qp, c->m, pkt->payload_off, pkt->payload_len);
	}
	recv_complete(qp, s, RNIC_WC_RECV, RNIC_WC_GRH |
		      ((c->mask & RNIC_M_IMMDT) ? RNIC_WC_WITH_IMM : 0),
		      s == RNIC_WC_SUCCESS ? RNIC_UD_GRH_LEN + pkt->payload_len : 0,
		      (uint32_t)pkt->ext.imm, pkt->ext.deth_sqp);
	return RESP_DONE;
}

static __rte_noinline void
resp_run(struct resp_ctx *c)
{
	/* Threaded dispatch (GCC's labels as values): after each state a
	 * direct test for its usual next ones, then an indirect jump from
	 * that state's own site for the rest. One switch for every
	 * transition was one indirect jump whose target the predictor had
	 * to guess among all states (doc/benchmarks.md). The compiler
	 * inlines the states into this function (one copy: the table holds
	 * its labels). */
	static const void *const next[] = {
#define RESP_STATE_LABEL(n, fn, a, b) [RESP_##n] = &&state_##n,
		RESP_STATES(RESP_STATE_LABEL)
#undef RESP_STATE_LABEL
		[RESP_DONE] = &&state_DONE,
	};
	enum resp_state s = RESP_CHECK_STATE;

	goto state_CHECK_STATE;
#define RESP_STATE_CASE(n, fn, a, b) \
state_##n: \
	RESP_TRACE(c, s); \
	s = fn(c); \
	if (likely(s == RESP_##a)) \
		goto state_##a; \
	if (s == RESP_##b) \
		goto state_##b; \
	goto *next[s];
	RESP_STATES(RESP_STATE_CASE)
#undef RESP_STATE_CASE
state_DONE:
	return;
}

/*
 * Selective repeat: the packets placed ahead that now follow the ePSN
 * are executed in order, each from its record, without its copy.
 * Stops at the first that does not move the ePSN on (an error NAK, an
 * RNR NAK for a WRITE with immediate): the requester resends it.
 */
static __rte_noinline void
sr_drain(struct rnic_worker *wk, struct rnic_qp *qp)
{
	struct rnic_sr_resp *sr = qp->resp.sr;

	for (;;) {
		uint32_t psn = qp->resp.epsn;
		const struct rnic_sr_slot *sl = &sr->slot[psn % RNIC_SR_WIN];
		struct rnic_pkt pkt;
		struct resp_ctx c;

		sr_sync(qp);
		if (!(sr->map[0] & 1) || qp->resp.fatal)
			return;
		sr->map[0] &= ~1ull;
		rnic_pkt_clear(&pkt);   /* a request: no SACK map */
		pkt.op = rnic_opcode_info(sl->opcode);
		if (pkt.op == NULL)
			return;
		pkt.bth.opcode = sl->opcode;
		pkt.bth.psn = psn;
		pkt.bth.ackreq = sl->ackreq;
		pkt.payload_len = sl->len;
		pkt.ext.imm = (rte_be32_t)sl->imm_inv;
		pkt.ext.ieth_rkey = sl->imm_inv;
		if (pkt.op->mask & RNIC_M_ATOMIC) {
			pkt.ext.atm_va = sl->va;
			pkt.ext.atm_rkey = sl->rkey;
			pkt.ext.atm_swap_add = sl->host;
			pkt.ext.atm_cmp = (uint64_t)sl->rlen << 32 | sl->imm_inv;
		} else {
			pkt.ext.reth_va = sl->va;
			pkt.ext.reth_rkey = sl->rkey;
			pkt.ext.reth_len = sl->rlen;
		}
		c = (struct resp_ctx){
			.wk = wk, .qp = qp, .m = NULL, .pkt = &pkt, .st = &wk->rx.st,
			.mask = pkt.op->mask, .rc = true,
		};
		resp_run(&c);
		if (qp->resp.epsn == psn)
			return;
	}
}

/*
 * The responder's fast path: the RC WRITE packet @p f, that the RX role
 * took for one by its headers alone (rnic_pkt_rc_write), executed where
 * it is the common case: the expected PSN on a QP in RTR or later without
 * selective repeat or a queued fatal NAK; a First or an Only outside a
 * message, with a good R_Key (a First's RETH longer than the PMTU, an
 * Only's its payload's length), a Middle or a Last inside a WRITE; a
 * First's and a Middle's payload the PMTU, a Last's the rest. The states
 * CHECK_STATE .. ACKNOWLEDGE do for such a packet exactly what this
 * does, with nothing to choose on the way. @return false (nothing done)
 * for anything else: rnic_resp_rx takes it through the states, which
 * decide what the error is.
 */
bool
rnic_resp_rx_rc_write(struct rnic_worker *wk, struct rnic_qp *qp, const struct rte_mbuf *m,
		      const struct rnic_rc_write *f)
{
	struct rnic_qp_resp *rs = &qp->resp;
	const rnic_opmask_t mask = rnic_opcode_mask(f->opcode);
	const bool first = mask & RNIC_M_FIRST, last = mask & RNIC_M_LAST;
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	uint32_t len = f->payload_len;
	struct rnic_mr *mr;

	if (qp->type != RNIC_QPT_RC || s == RNIC_QPS_RESET || s == RNIC_QPS_INIT ||
	    s == RNIC_QPS_ERR || rs->fatal || f->psn != rs->epsn || rs->sr != NULL ||
	    len > qp->pmtu || (!last && len != qp->pmtu))
		return false;
	if (first) {
		if (rs->in_msg || (last ? f->dma_len != len : f->dma_len <= qp->pmtu) ||
		    check_remote(qp, f->rkey, f->va, f->dma_len, RNIC_ACCESS_REMOTE_WRITE, &mr) !=
		    RNIC_MEMCHK_OK)
			return false;
	} else if (!rs->in_msg || !(rnic_opcode_mask(rs->cur_op) & RNIC_M_WRITE) ||
		   (last ? len != rs->wr_left : len > rs->wr_left)) {
		return false;
	}
	/* CHECK_PSN */
	rs->nak_sent = 0;
	if (rs->ack_pending && rs->ack_syn == (RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ) &&
	    rs->ack_psn == f->psn)
		rs->ack_pending = 0;
	/* WRITE_RKEY */
	if (first) {
		rs->wr_va = rnic_mr_host(mr, f->va);
		rs->wr_left = f->dma_len;
		rs->wr_total = f->dma_len;
	}
	/* WRITE */
	if (len != 0)   /* one segment: rnic_pkt_rc_write takes no other */
		rnic_copy_small((void *)(uintptr_t)rs->wr_va,
				rte_pktmbuf_mtod_offset(m, const uint8_t *, f->payload_off), len);
	rs->wr_va += len;
	rs->wr_left -= len;
	if (last) {
		wk->rx.delivered = 1;   /* an application may watch its last byte */
		rs->msn = (rs->msn + 1) & RNIC_PSN_MASK;
	}
	/* ACKNOWLEDGE */
	rs->in_msg = !last;
	rs->cur_op = f->opcode;
	rs->epsn = rnic_psn_add(f->psn, 1);
	if (f->ackreq)
		pending_set(wk, qp, RNIC_AETH_ACK, f->psn);
	return true;
}

void
rnic_resp_rx(struct rnic_worker *wk, struct rnic_qp *qp, struct rte_mbuf *m,
	     const struct rnic_pkt *pkt)
{
	struct resp_ctx c = {
		.wk = wk, .qp = qp, .m = m, .pkt = pkt, .st = &wk->rx.st,
		.mask = pkt->op->mask, .rc = qp->type == RNIC_QPT_RC,
	};

	resp_run(&c);
	if (unlikely(qp->resp.sr != NULL) && rnic_sr_any(qp->resp.sr->map))
		sr_drain(wk, qp);
}
