/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RequesterRecvControl and ScatterEntryManager (seed 3.4.5) on the RX
 * lcore: ACK / NAK / READ response / atomic ACK handling against the
 * MultiQueue, completions in WQE order, go-back-N retransmission from the
 * kept mbufs, and the Error flush. The RX lcore is the only writer of the
 * MultiQueue head and of sq_done for RC QPs.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "rnic_engine_pvt.h"

/*
 * Loss detection (doc/reliability.md): a loss is resent after the QP's
 * RTO, from RTT samples of the ACKs (RFC 6298's estimator, with Karn's
 * rule), never later than the IBA local ACK timeout; only that timeout
 * spends the QP's retries, so a peer is declared dead exactly as IBA says.
 * The floor keeps a VM's scheduling hiccups from looking like loss.
 */
#define RTO_MIN_NS     (100u * 1000u)
/* With selective repeat an early expiry resends only what no SACK
 * covered, and a lost resend (the window then stalls: nothing new can
 * leave to draw a SACK) waits the floor: 25 us, above this link's RTT of
 * ~15 us (100 us: 3x the expiries at 1% loss, doc/reliability.md). */
#define RTO_MIN_SR_NS  (25u * 1000u)
#define RTO_SHIFT_MAX  16
#define RTT_TICKS_MAX  (1u << 26)      /* 4.3 G cycles: far above any RTO */

/*
 * Selective repeat: a hole is a request the SACK says the responder lacks
 * (or a READ response not in place) while at least this many PSNs after
 * it are (a packet merely overtaken by a few others is not resent). A
 * hole among the last few packets sent is left to the RTO (25 us floor
 * with SR): resending it at once made a reordered tail a spurious
 * resend, and bought nothing measurable at 1% loss.
 */
#define SACK_DUPTHRESH 3

static void loss_timer_set(struct rnic_worker *wk, struct rnic_qp *qp);

/*
 * The responder answered something past a loss: it is alive and working
 * through requests queued before our resend (rxe answers in arrival order,
 * so a resent READ waits behind every later READ already queued, megabytes
 * under emulation). Not progress, so the retry count is not refilled, but
 * the loss timer re-arms instead of spending a retry on a busy peer.
 */
static inline void
peer_alive(struct rnic_qp *qp)
{
	qp->comp.alive_seq++;
}
static void rnr_timer_set(struct rnic_worker *wk, struct rnic_qp *qp, uint64_t ns);
static bool sr_read_reask(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e,
			  bool over, struct rnic_dev_stats *st);
static bool sr_read_started(const struct rnic_qp *qp, const struct rnic_mq_ent *e);

/* Complete the oldest outstanding WQE (sq_done). */
static inline void
comp_wqe(struct rnic_qp *qp, enum rnic_wc_status s)
{
	rnic_complete_send_rx(qp, s);
}

/* The same for a WQE done with success whose last MultiQueue entry had
 * @p mq_flags: one that asks for no completion is retired without
 * reading it (rnic_complete_send would read only its flags). */
static inline void
comp_wqe_ok(struct rnic_qp *qp, uint32_t mq_flags)
{
	if (!(mq_flags & RNIC_MQF_SIGNALED))
		rnic_sq_retire(qp);
	else
		rnic_complete_send_rx(qp, RNIC_WC_SUCCESS);
}

static inline struct rnic_mq_ent *
mq_head(struct rnic_qp *qp)
{
	return rnic_mq_head(&qp->req.mq);
}

/* Release the head entry: progress for the loss timer and RNR count. */
static void
mq_pop(struct rnic_qp *qp)
{
	struct rnic_dev_rx *rx = &qp->w->rx;
	struct rte_mbuf *m = rnic_mq_pop(&qp->req.mq);

	if (m != NULL) {
		if (rx->n_free == RNIC_RX_FREE_BATCH)
			rnic_rx_free_flush(qp->w);
		rx->free[rx->n_free++] = m;
		STORE_REL(&rx->mq_freed, rx->mq_freed + 1);   /* [MQ-FREED] */
	}
	qp->comp.acked_seq++;
	qp->comp.rnr_retry = qp->attr.rnr_retry;   /* progress resets it */
	if (qp->comp.rexmit_next - qp->comp.mq_head > qp->req.mq.mask + 1u) {
		/* cursor fell behind; acknowledged past its end too (a resend
		 * paced or held by a full TX buffer while the first copies
		 * arrived after all): the resend is over, or the cursor would
		 * walk the whole index space to reach its end */
		if ((int32_t)(qp->comp.rexmit_end - qp->comp.mq_head) <= 0)
			qp->comp.rexmit_end = qp->comp.mq_head;
		qp->comp.rexmit_next = qp->comp.mq_head;
	}
}

/* Error: drop the kept packets, flush the send and receive queues. */
static void
flush_all(struct rnic_qp *qp)
{
	uint32_t fetched;

	while (mq_head(qp) != NULL)
		mq_pop(qp);
	qp->comp.in_read = 0;
	qp->comp.rd_resumed = 0;
	qp->comp.rnr_waiting = 0;
	qp->comp.rexmit_next = qp->comp.rexmit_end = qp->comp.mq_head;
	/* The failed WQE may still be mid-transmission (sq_done is then past
	 * sq_fetch until TX sees Error and skips ahead): compare signed. */
	fetched = LOAD_ACQ(&qp->req.sq_fetch);   /* [SQ-FETCH] */
	while ((int32_t)(fetched - qp->comp.sq_done) > 0)
		comp_wqe(qp, RNIC_WC_WR_FLUSH_ERR);
	rnic_resp_flush_rq(qp);
}

/* Complete the head WQE with @p s and take the QP to Error. */
static void
comp_fail(struct rnic_qp *qp, enum rnic_wc_status s)
{
	struct rnic_mq_ent *e = mq_head(qp);

	qp->comp.n_err++;
	if (e != NULL) {
		uint32_t idx = e->wqe_idx;

		/* Drop this WQE's packets, then complete it with the error. */
		while ((e = mq_head(qp)) != NULL && e->wqe_idx == idx)
			mq_pop(qp);
		if (qp->comp.sq_done == idx)
			comp_wqe(qp, s);
	}
	rnic_qp_to_error(qp);
	flush_all(qp);
}

static uint64_t
ticks_ns(const struct rnic_qp *qp, uint64_t ticks)
{
	if (ticks > RTT_TICKS_MAX)
		ticks = RTT_TICKS_MAX;
	return (ticks << RNIC_MQ_TS_SHIFT) * NS_PER_S / qp->dev->tsc_hz;
}

static uint64_t
tsc_ns(const struct rnic_qp *qp, uint64_t tsc)
{
	return ticks_ns(qp, tsc >> RNIC_MQ_TS_SHIFT);
}

/* One RTT sample of @p ticks (RFC 6298 2.2 and 2.3, in fixed point). */
static void
rtt_sample(struct rnic_qp *qp, uint32_t ticks)
{
	struct rnic_qp_comp *c = &qp->comp;
	int64_t r = ticks ? ticks : 1, delta;

	if (r > RTT_TICKS_MAX)
		return;   /* a stamp from before a long stall: not an RTT */
	if (c->srtt8 == 0) {
		c->srtt8 = (uint32_t)(r * 8);
		c->rttvar4 = (uint32_t)(r * 2);
		return;
	}
	delta = r - c->srtt8 / 8;
	c->srtt8 = (uint32_t)((int64_t)c->srtt8 + delta);
	c->rttvar4 = (uint32_t)((int64_t)c->rttvar4 + (delta < 0 ? -delta : delta) -
				c->rttvar4 / 4);
}

/* The IBA local ACK timeout of the QP, ns (0: infinite). */
static uint64_t
iba_timeout_ns(const struct rnic_qp *qp)
{
	return qp->attr.timeout ? rnic_ib_timeout_ns(qp->attr.timeout) : 0;
}

/* The current RTO, ns: srtt + 4 rttvar, at least RTO_MIN_NS, doubled per
 * expiry without progress, at most the IBA timeout (which it is until the
 * first sample). */
static uint64_t
rto_ns_shift(const struct rnic_qp *qp, unsigned int shift)
{
	uint64_t iba = iba_timeout_ns(qp), rto;

	if (qp->comp.srtt8 == 0)
		return iba;
	rto = RTE_MAX(ticks_ns(qp, qp->comp.srtt8 / 8 + RTE_MAX(qp->comp.rttvar4, 1u)),
		      (uint64_t)(qp->attr.sr ? RTO_MIN_SR_NS : RTO_MIN_NS));
	return RTE_MIN(rto << shift, iba);
}

static uint64_t
rto_ns(const struct rnic_qp *qp)
{
	return rto_ns_shift(qp, qp->comp.rto_shift);
}

/* A go-back-N started less than one (un-backed-off) RTO ago: what it
 * resends cannot have been answered yet. One DCQCN still paces out is
 * not over either, however old: its later packets have not left (an RTO
 * or a NAK restarting it from the head resent the same packets again and
 * again at a cut rate). An unpaced one held by a full TX buffer is not
 * protected: a NAK after its RTO restarts it (1% loss: 0.76x if not). */
static bool
rexmit_young(const struct rnic_qp *qp)
{
	if (qp->comp.rexmit_next != qp->comp.rexmit_end && LOAD_RLX(&qp->req.cc.limited))
		return true;   /* [PACE] */
	return qp->comp.retrying && qp->comp.retry_seq == qp->comp.acked_seq &&
	       (qp->comp.srtt8 == 0 ||
		ticks_ns(qp, rnic_mq_stamp(rte_rdtsc()) - qp->comp.rexmit_stamp) <
		rto_ns_shift(qp, 0));
}

/*
 * Selective repeat: while in_read, rd_map is anchored at rd_psn (bit i:
 * the READ response of PSN rd_psn + i is in place), which is at or
 * before the head: within the head READ, or at the head atomic, whose
 * answer was lost while responses of READs after it came. When requests
 * are released up to a later head, the anchor moves to it.
 */
static void
sr_map_rebase(struct rnic_qp *qp)
{
	struct rnic_mq_ent *e = mq_head(qp);
	uint64_t *map = qp->resp.sr->rd_map;
	int32_t k;

	if (!qp->comp.in_read)
		return;
	if (e == NULL) {
		qp->comp.in_read = 0;
		return;
	}
	k = rnic_psn_diff(e->psn, qp->comp.rd_psn);
	if (k <= 0)
		return;
	if ((uint32_t)k < RNIC_SR_WIN)
		rnic_sr_shift(map, (uint32_t)k);
	else
		memset(map, 0, RNIC_SR_WORDS * sizeof(*map));
	qp->comp.rd_psn = e->psn;
}

/*
 * release_acked's common case, from the head: the run of one-packet WRITE
 * and SEND entries with no flag but LAST and SIGNALED that @p psn
 * acknowledges, on a QP without selective repeat and with no resend
 * under way (rexmit_next == rexmit_end). Each entry's frame goes to the
 * free batch and each WQE retires or completes, in order, as there;
 * the head, the counters and the loss cursor move once for the run
 * (ring 64 B 1.037x, 16384 QPs 1.017x by in-run A/B, doc/benchmarks.md).
 * *@p sample and *@p sampled: release_acked's, for the run's last entry.
 * Returns the entries released.
 */
static uint32_t
release_run(struct rnic_qp *qp, uint32_t psn, bool *sample, uint32_t *sampled)
{
	struct rnic_mq *mq = &qp->req.mq;
	struct rnic_dev_rx *rx = &qp->w->rx;
	const uint32_t head0 = qp->comp.mq_head, tail = LOAD_ACQ(&mq->tail);   /* [MQ-TAIL] */
	uint32_t h = head0, unsig = 0, nfreed = 0, last_sent = 0;

	for (; h != tail; h++) {
		struct rnic_mq_ent *e = &mq->ents[h & mq->mask];
		struct rte_mbuf *m;

		if (e->type != RNIC_MQ_SEND_WRITE || e->npsn != 1 ||
		    (e->flags & ~(RNIC_MQF_LAST | RNIC_MQF_SIGNALED)) ||
		    rnic_psn_diff(psn, e->psn) < 0)
			break;
		m = e->m;
		e->m = NULL;
		if (m != NULL) {
			if (rx->n_free == RNIC_RX_FREE_BATCH)
				rnic_rx_free_flush(qp->w);
			rx->free[rx->n_free++] = m;
			nfreed++;
		}
		last_sent = e->sent;
		if (!(e->flags & RNIC_MQF_LAST))
			continue;
		if (!(e->flags & RNIC_MQF_SIGNALED)) {
			unsig++;   /* retired with the others before the next completion */
			continue;
		}
		if (unsig != 0) {
			STORE_REL(&qp->comp.sq_done, qp->comp.sq_done + unsig);   /* [SQ-DONE] */
			unsig = 0;
		}
		STORE_REL(mq->head, h + 1);   /* [MQ-HEAD] popped before it completes */
		rnic_complete_send_rx(qp, RNIC_WC_SUCCESS);
	}
	if (h == head0)
		return 0;
	STORE_REL(mq->head, h);   /* [MQ-HEAD] */
	if (unsig != 0)
		STORE_REL(&qp->comp.sq_done, qp->comp.sq_done + unsig);   /* [SQ-DONE] */
	if (nfreed != 0)
		STORE_REL(&rx->mq_freed, rx->mq_freed + nfreed);   /* [MQ-FREED] */
	qp->comp.acked_seq += h - head0;
	qp->comp.rnr_retry = qp->attr.rnr_retry;   /* progress resets both */
	qp->comp.retry = qp->attr.retry_cnt;
	if (qp->comp.rexmit_next - h > mq->mask + 1u)   /* mq_pop's: the cursor fell behind */
		qp->comp.rexmit_next = qp->comp.rexmit_end = h;
	/* Karn, as release_acked: the run's entries were never resent */
	*sample = (int32_t)(h - 1 - qp->comp.rexmit_high) >= 0;
	*sampled = (int32_t)(h - 1 - qp->comp.nak_end) < 0 ? qp->comp.rexmit_stamp : last_sent;
	return h - head0;
}

/*
 * Release everything acknowledged up to and including @p psn (explicit or
 * coalesced ACK, or the implicit ACK of a later response). Returns false
 * when the QP failed or a READ/atomic was passed unanswered (the caller
 * retransmits).
 */
static bool
release_acked(struct rnic_qp *qp, uint32_t psn, bool *passed_read)
{
	struct rnic_mq_ent *e;

	uint32_t sampled = 0, sent;
	bool sample = false;

	*passed_read = false;
	/* Every caller's PSN is one the responder executed up to (the
	 * responder executes in order); selective repeat keeps the latest
	 * (sr_release_exec). */
	if (qp->attr.sr && rnic_psn_diff(psn, qp->comp.sr_exec) > 0 &&
	    rnic_mq_last_psn(&qp->req.mq, &sent) && rnic_psn_diff(psn, sent) <= 0)
		qp->comp.sr_exec = psn;
	if (!qp->attr.sr && qp->comp.rexmit_next == qp->comp.rexmit_end)
		release_run(qp, psn, &sample, &sampled);
	while ((e = mq_head(qp)) != NULL) {
		uint32_t last = rnic_psn_add(e->psn, e->npsn ? e->npsn - 1u : 0u);

		if (e->type == RNIC_MQ_BAD) {
			/* Everything before the bad WQE is done (seed 3.4.1.1.3.1). */
			enum rnic_wc_status s = rnic_sq_wqe(qp, e->wqe_idx)->status;

			comp_fail(qp, s);
			return false;
		}
		if (e->flags & RNIC_MQF_ANSWERED) {
			/* an atomic answered while it waited (sr_atomic_early) */
			qp->comp.retry = qp->attr.retry_cnt;
			mq_pop(qp);
			STORE_REL(&qp->comp.rd_done, qp->comp.rd_done + 1);
			comp_wqe(qp, RNIC_WC_SUCCESS);
			continue;
		}
		if (rnic_psn_diff(psn, last) < 0)
			break;
		if (e->type != RNIC_MQ_SEND_WRITE) {
			*passed_read = true;   /* its response was lost */
			break;
		}
		qp->comp.retry = qp->attr.retry_cnt;   /* forward progress */
		uint32_t flags = e->flags;

		/* Karn: a packet resent on a timer does not time the round
		 * trip (its ACK may answer either copy); one resent on a NAK
		 * does, from the resend: the responder dropped the first. */
		sample = (int32_t)(qp->comp.mq_head - qp->comp.rexmit_high) >= 0 &&
			 !(e->flags & (RNIC_MQF_SACKED | RNIC_MQF_SRESENT));
		sampled = (int32_t)(qp->comp.mq_head - qp->comp.nak_end) < 0 ?
			  qp->comp.rexmit_stamp : e->sent;
		mq_pop(qp);
		if (flags & RNIC_MQF_LAST)
			comp_wqe_ok(qp, flags);
	}
	if (sample)
		rtt_sample(qp, rnic_mq_stamp(rte_rdtsc()) - sampled);
	if (qp->attr.sr)
		sr_map_rebase(qp);
	return true;
}

/*
 * Go-back-N from the head: resend the kept mbufs (references, no copy). A
 * READ at the head whose responses arrived in part is not asked again
 * whole: rexmit_pump re-asks it from the first missing response.
 */
static void
rexmit_start(struct rnic_worker *wk, struct rnic_qp *qp, bool timer)
{
	qp->comp.rexmit_next = qp->comp.mq_head;
	qp->comp.rexmit_end = LOAD_ACQ(&qp->req.mq.tail);   /* [MQ-TAIL] */
	/* One stamp serves both: after a timer go-back rexmit_high covers
	 * everything below nak_end, so no sample reads it for an older one. */
	qp->comp.rexmit_stamp = rnic_mq_stamp(rte_rdtsc());
	qp->comp.rexmit_pace = qp->comp.rexmit_stamp;   /* the clock wraps: never older */
	if (timer)
		qp->comp.rexmit_high = qp->comp.rexmit_end;
	else
		qp->comp.nak_end = qp->comp.rexmit_end;
	qp->comp.rexmit_ans = 0;
	rnic_qp_list_add(&wk->rx.rexmit, qp, &qp->comp.on_rexmit_list);
}

/*
 * A new READ request for the rest of the head READ: PSN of the first
 * missing response, VA and length moved on by what arrived (IBA 9.7.5.1.6:
 * a responder re-executes a duplicate READ whose PSN and range lie within
 * the original's; rxe and real RNICs resume the same way). It is built
 * afresh, not kept: the MultiQueue entry keeps the original request.
 */
static bool
read_resume(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e,
	    struct rnic_dev_stats *st)
{
	const struct rnic_wqe *w = rnic_sq_wqe(qp, e->wqe_idx);
	uint32_t off = (uint32_t)rnic_psn_diff(qp->comp.rd_psn, e->psn) * qp->pmtu;
	struct rnic_bth_fields b = {
		.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_READ_REQ),
		.ackreq = true, .pkey = qp->attr.pkey, .dqpn = qp->attr.dest_qp_num,
		.psn = qp->comp.rd_psn,
	};
	struct rnic_ext_fields ext = {
		.reth_va = w->remote_addr + off, .reth_rkey = w->rkey,
		.reth_len = w->total_len - off,
	};
	struct rte_mbuf *m;
	uint8_t *p;

	m = rnic_pkt_alloc(wk->dev, st, &qp->tmpl, NULL, &b, &ext, 0, &p);
	if (m == NULL)
		return false;
	rnic_pkt_seal(m, qp->tmpl.l3_off);
	rnic_txbuf_add(&wk->rx.txb, m);
	qp->comp.rd_resumed = 1;
	st->read_resumes++;
	return true;
}

/*
 * DCQCN paces resends too: while the QP's rate is limited, a resent
 * packet of L bytes holds the next for L * 8 / rate (the TX role paces
 * new packets the same way, with its own clock; during a go-back-N the
 * window mostly holds TX back). Returns false when the next resend must
 * wait: the QP stays on the retransmission list.
 */
static bool
rexmit_paced(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e)
{
	uint32_t rate, now, len;

	if (likely(!LOAD_RLX(&qp->req.cc.limited)))   /* [PACE] */
		return true;
	rate = LOAD_RLX(&qp->req.cc.rc_mbps);          /* [PACE] */
	if (rate == 0)
		return true;
	now = rnic_mq_stamp(rte_rdtsc());
	if ((int32_t)(now - qp->comp.rexmit_pace) < 0)
		return false;
	len = e->m != NULL ? e->m->pkt_len : 64;
	qp->comp.rexmit_pace = now + (uint32_t)(((uint64_t)len * 8 * wk->dev->tsc_per_us / rate)
						>> RNIC_MQ_TS_SHIFT);
	return true;
}

/*
 * Selective repeat: a go-back need not resend @p e (not the head): a
 * SACK said the responder holds it (a READ or atomic: until it was
 * executed, then its answer is what went missing), an ACK or answer said
 * it executed it (a SEND or WRITE packet up to sr_exec; marked SACKED so
 * that it times no round trip), its answer is in (an atomic), some of
 * its responses are (a READ), or the go-back is for lost answers only
 * (rexmit_ans: SEND and WRITE holes are the SACK's to resend).
 */
static bool
sr_rexmit_skip(const struct rnic_qp *qp, struct rnic_mq_ent *e)
{
	bool executed = rnic_psn_diff(e->psn, qp->comp.sr_exec) <= 0;

	if (e->flags & RNIC_MQF_ANSWERED)
		return true;
	if (e->type == RNIC_MQ_READ)
		return sr_read_started(qp, e) || ((e->flags & RNIC_MQF_SACKED) && !executed);
	if (e->type != RNIC_MQ_SEND_WRITE)
		return (e->flags & RNIC_MQF_SACKED) && !executed;
	if (e->flags & RNIC_MQF_SACKED)
		return true;
	if (executed) {
		e->flags |= RNIC_MQF_SACKED;
		return true;
	}
	return qp->comp.rexmit_ans;
}

/*
 * With selective repeat a resend skips what a SACK said the responder
 * holds, but never the head: a SACK's ePSN may lie past the last PSN an
 * ACK acknowledged (the responder executed packets that asked for no
 * ACK), and the head resent is what draws the ACK for them (a duplicate
 * is re-ACKed with ePSN - 1); after an RNR NAK the head is the packet
 * the responder could not take, placed or not.
 */
static unsigned int
rexmit_pump(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	unsigned int n = 0;

	while (qp->comp.rexmit_next != qp->comp.rexmit_end &&
	       rnic_txbuf_room(&wk->rx.txb)) {
		struct rnic_mq_ent *e = rnic_mq_at(&qp->req.mq, qp->comp.rexmit_next);

		if (qp->attr.sr && qp->comp.rexmit_next != qp->comp.mq_head &&
		    sr_rexmit_skip(qp, e)) {
			qp->comp.rexmit_next++;   /* the responder has it */
			continue;
		}
		if (!rexmit_paced(wk, qp, e)) {
			st->rexmit_paced++;
			break;
		}

		if (qp->attr.sr && qp->comp.in_read && qp->comp.rexmit_next == qp->comp.mq_head &&
		    e->type == RNIC_MQ_READ) {
			qp->comp.rd_reasked = 0;   /* a go-back asks again whatever the age */
			if (!sr_read_reask(wk, qp, e, true, st))
				break;
			n++;
		} else if (qp->comp.in_read && qp->comp.rexmit_next == qp->comp.mq_head &&
		    e->type == RNIC_MQ_READ) {
			if (!read_resume(wk, qp, e, st))
				break;   /* no mbuf now: the timer list retries */
			st->tx_retransmits++;
			qp->comp.n_rexmit++;
			n++;
		} else if (e->m != NULL) {
			rte_mbuf_refcnt_update(e->m, 1);
			rnic_txbuf_add(&wk->rx.txb, e->m);
			st->tx_retransmits++;
			qp->comp.n_rexmit++;
			n++;
		}
		qp->comp.rexmit_next++;
	}
	return n;
}

/*
 * A retry of the whole window; false when the retry count ran out. One
 * loss shows up many times (every later READ response, every later ACK):
 * only the first sign starts go-back-N from a given point of progress;
 * the others wait for that resend to make progress (an ACK, or an
 * in-order READ response) or for the loss timer.
 */
static int
retry_start(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	/* One go-back per loss: a NAK for what is being resent is the same
	 * loss, unless the resend has had its RTO (the resend was lost and
	 * the responder asks again). */
	if (rexmit_young(qp))
		return 0;
	if (qp->comp.retry == 0) {
		st->retry_exceeded++;
		comp_fail(qp, RNIC_WC_RETRY_EXC_ERR);
		return -1;
	}
	qp->comp.retry--;
	rexmit_start(wk, qp, false);
	qp->comp.retrying = 1;
	qp->comp.retry_seq = qp->comp.acked_seq;
	return 1;
}

/* retry_start: false when the retry count ran out (the QP failed). */
static bool
retry_or_fail(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	return retry_start(wk, qp, st) >= 0;
}

/*
 * Selective repeat: an answer came for request @p x, which was sent at
 * @p sent: when SACK_DUPTHRESH answers to requests sent after the last
 * ask for the head's answer (a READ's holes asked again at rd_reask, or
 * a go-back for a lost answer at rexmit_stamp) have come and the head
 * still waits, that ask or its answer was lost (the responder serves
 * what is asked again before anything newer, and the link keeps order
 * but for a little reordering: RACK's rule, RFC 8985). The ask is then
 * no longer young: the caller's next ask goes at once, not an RTO later.
 */
static void
sr_ask_lost(struct rnic_qp *qp, const struct rnic_mq_ent *x, struct rnic_dev_stats *st)
{
	const struct rnic_mq_ent *e = mq_head(qp);
	uint32_t asked;

	if (e == NULL || x == e)
		return;
	if (e->type == RNIC_MQ_READ && qp->comp.rd_reasked)
		asked = qp->comp.rd_reask;
	else if (e->type != RNIC_MQ_READ && qp->comp.retrying && qp->comp.rexmit_ans)
		asked = qp->comp.rexmit_stamp;
	else
		return;
	if ((int32_t)(x->sent - asked) <= 0 || ++qp->comp.ans_after < SACK_DUPTHRESH)
		return;
	qp->comp.ans_after = 0;
	qp->comp.rd_reasked = 0;     /* neither is young any more */
	qp->comp.retrying = 0;
	st->sr_lost_resends++;
}

/*
 * Selective repeat: the answer of the head READ or atomic was lost (a
 * later answer or ACK came). The go-back resends only requests that wait
 * for an answer (rexmit_ans): the head, and the READs and atomics after
 * it up to sr_exec that have none (executed, so theirs was lost too);
 * those past sr_exec may still be on their way. SEND and WRITE packets
 * are not resent: up to sr_exec they were executed, past it a lost one
 * is a hole the SACKs show. Without selective repeat, a plain go-back-N.
 */
static bool
retry_answers(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_mq *mq = &qp->req.mq;
	uint32_t i;
	int rc;

	if (!qp->attr.sr)
		return retry_or_fail(wk, qp, st);
	rc = retry_start(wk, qp, st);
	if (rc <= 0)
		return rc == 0;
	qp->comp.rexmit_ans = 1;
	qp->comp.ans_after = 0;
	for (i = qp->comp.mq_head + 1u; i != qp->comp.rexmit_end; i++)
		if (rnic_psn_diff(rnic_mq_at(mq, i)->psn, qp->comp.sr_exec) > 0)
			break;
	qp->comp.rexmit_end = qp->comp.nak_end = i;
	return true;
}

/* The outstanding entry whose PSNs include @p psn, or NULL. */
static struct rnic_mq_ent *
mq_entry_of(struct rnic_qp *qp, uint32_t psn)
{
	uint32_t tail = LOAD_ACQ(&qp->req.mq.tail);   /* [MQ-TAIL] */

	for (uint32_t i = qp->comp.mq_head; i != tail; i++) {
		struct rnic_mq_ent *e = rnic_mq_at(&qp->req.mq, i);

		if (rnic_psn_diff(psn, e->psn) < 0)
			return NULL;
		if (rnic_psn_diff(psn, rnic_psn_add(e->psn, e->npsn ? e->npsn - 1u : 0u)) <= 0)
			return e;
	}
	return NULL;
}

static void sr_read_advance(struct rnic_worker *wk, struct rnic_qp *qp,
			    struct rnic_dev_stats *st);

/* Selective repeat: the head is a READ whose first missing response is
 * in place (it came while a request before it waited): move on. True
 * when it was. */
static bool
sr_settle(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_mq_ent *e = mq_head(qp);

	if (e == NULL || e->type != RNIC_MQ_READ || !qp->comp.in_read ||
	    !(qp->resp.sr->rd_map[0] & 1))
		return false;
	sr_read_advance(wk, qp, st);
	return true;
}

/*
 * Selective repeat: the head READ or atomic completed; release what the
 * responder is known to have executed after it (the ACKs that said so
 * came while it waited). A READ or atomic among that without its answer
 * lost it: asked again.
 */
static void
sr_release_exec(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_mq_ent *e;
	bool passed;

	if (!release_acked(qp, qp->comp.sr_exec, &passed) || sr_settle(wk, qp, st) ||
	    !passed || (e = mq_head(qp)) == NULL)
		return;
	peer_alive(qp);
	if (e->type == RNIC_MQ_READ)
		sr_read_reask(wk, qp, e, true, st);
	else
		retry_answers(wk, qp, st);
}

/*
 * Selective repeat: an atomic's answer for @p psn past the head, which
 * waits for its own (lost, or reordered behind). The result goes to the
 * WQE's buffer now and the entry completes when it reaches the head
 * (RNIC_MQF_ANSWERED; a duplicate answer of it is dropped); the head's
 * answer is asked for again. False when @p psn is no outstanding atomic's.
 */
static bool
sr_atomic_early(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_mq_ent *head,
		const struct rnic_pkt *pkt, struct rnic_dev_stats *st)
{
	struct rnic_mq_ent *x = mq_entry_of(qp, pkt->bth.psn);
	struct rnic_wqe *w;

	if (x == NULL || x == head || x->type != RNIC_MQ_ATOMIC)
		return false;
	if (x->flags & RNIC_MQF_ANSWERED) {
		st->drop_ghost_resp++;   /* a copy of one already used */
		return true;
	}
	w = rnic_sq_wqe(qp, x->wqe_idx);
	if (w->num_sge > 0)
		memcpy((void *)(uintptr_t)w->sge[0].addr, &pkt->ext.atmack_orig, RNIC_ATOMIC_LEN);
	x->flags |= RNIC_MQF_ANSWERED;
	st->sr_early_answers++;
	sr_ask_lost(qp, x, st);
	peer_alive(qp);
	if (head->type == RNIC_MQ_READ)
		sr_read_reask(wk, qp, head, true, st);
	else
		retry_answers(wk, qp, st);
	return true;
}

/*
 * A READ response or atomic ACK for a PSN after those of the head
 * READ/atomic @p e: the head's answer was lost (responses come in PSN
 * order), so retry, unless the PSN was never sent (a ghost). Returns
 * false, doing nothing, for any other PSN.
 */
static bool
answer_past_head(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e,
		 uint32_t psn, struct rnic_dev_stats *st)
{
	uint32_t sent;

	if (e == NULL || e->type == RNIC_MQ_SEND_WRITE ||
	    rnic_psn_diff(psn, rnic_psn_add(e->psn, e->npsn - 1u)) <= 0)
		return false;
	if (!rnic_mq_last_psn(&qp->req.mq, &sent) || rnic_psn_diff(psn, sent) > 0) {
		st->drop_ghost_resp++;
		return true;
	}
	st->drop_bad_resp++;
	peer_alive(qp);
	retry_or_fail(wk, qp, st);
	return true;
}

/* ScatterEntryManager: place READ response bytes at @p off of the WQE's SGEs. */
static void
read_scatter(const struct rnic_wqe *w, uint32_t off, const struct rte_mbuf *m,
	     uint32_t moff, uint32_t len)
{
	for (uint32_t i = 0; i < w->num_sge && len > 0; i++) {
		uint32_t sl = w->sge[i].length, n;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		n = RTE_MIN(sl - off, len);
		rnic_mbuf_copy_out(m, moff, n, (void *)(uintptr_t)(w->sge[i].addr + off));
		moff += n;
		len -= n;
		off = 0;
	}
}

/* ------------------------------------------------------------------ */
/* Selective repeat: READ responses in any order                        */
/* ------------------------------------------------------------------ */

/*
 * A READ request for @p len bytes of the head READ @p e from PSN @p psn
 * (a part asked again: a duplicate READ within the original, IBA
 * 9.7.5.1.3). False when no mbuf or TX room.
 */
static bool
sr_read_ask(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e,
	    uint32_t psn, uint32_t len, struct rnic_dev_stats *st)
{
	const struct rnic_wqe *w = rnic_sq_wqe(qp, e->wqe_idx);
	uint32_t off = (uint32_t)rnic_psn_diff(psn, e->psn) * qp->pmtu;
	struct rnic_bth_fields b = {
		.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_READ_REQ),
		.ackreq = true, .pkey = qp->attr.pkey, .dqpn = qp->attr.dest_qp_num, .psn = psn,
	};
	struct rnic_ext_fields ext = {
		.reth_va = w->remote_addr + off, .reth_rkey = w->rkey, .reth_len = len,
	};
	struct rte_mbuf *m;
	uint8_t *p;

	if (!rnic_txbuf_room(&wk->rx.txb))
		return false;
	m = rnic_pkt_alloc(wk->dev, st, &qp->tmpl, NULL, &b, &ext, 0, &p);
	if (m == NULL)
		return false;
	rnic_pkt_seal(m, qp->tmpl.l3_off);
	rnic_txbuf_add(&wk->rx.txb, m);
	st->read_resumes++;
	st->tx_retransmits++;
	st->sr_resent++;
	qp->comp.n_rexmit++;
	return true;
}

/*
 * Ask again for the holes of the head READ @p e: every run of missing
 * responses before the last one in place, and with @p over (its stream
 * is over: a later answer came, or a timer) the run after it too; each
 * is one READ request for just those bytes. Nothing of the READ in
 * place yet: the request itself is resent. A hole asked for less than
 * an RTO ago is not asked again (holes past it are), unless a go-back
 * cleared rd_reasked. False when the TX buffer or the mbufs ran out.
 */
static bool
sr_read_reask(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_mq_ent *e,
	      bool over, struct rnic_dev_stats *st)
{
	const uint64_t *map = qp->resp.sr->rd_map;
	uint32_t now = rnic_mq_stamp(rte_rdtsc()), last, span, i = 0, total;
	const struct rnic_wqe *w = rnic_sq_wqe(qp, e->wqe_idx);

	bool young = qp->comp.rd_reasked &&
		     ticks_ns(qp, now - qp->comp.rd_reask) < rto_ns_shift(qp, 0);

	if (!qp->comp.in_read) {
		if (young)
			return true;
		qp->comp.rd_reasked = 1;
		qp->comp.rd_reask = now;
		qp->comp.ans_after = 0;
		if (e->m == NULL)
			return true;
		if (!rnic_txbuf_room(&wk->rx.txb))
			return false;
		rte_mbuf_refcnt_update(e->m, 1);
		rnic_txbuf_add(&wk->rx.txb, e->m);
		st->tx_retransmits++;
		st->sr_resent++;
		qp->comp.n_rexmit++;
		return true;
	}
	last = rnic_psn_add(e->psn, e->npsn - 1u);
	span = RTE_MIN((uint32_t)rnic_psn_diff(last, qp->comp.rd_psn) + 1u, RNIC_SR_WIN);
	total = w->total_len;
	while (i < span) {
		uint32_t j = i, psn, off, len;

		while (i < span && !rnic_sr_test(map, i))
			i++;
		if (i == span && !over)
			break;   /* the run at the end may still be on its way */
		psn = rnic_psn_add(qp->comp.rd_psn, j);
		off = (uint32_t)rnic_psn_diff(psn, e->psn) * qp->pmtu;
		len = RTE_MIN((i - j) * qp->pmtu, total - off);
		if (!young || rnic_psn_diff(psn, qp->comp.rd_ask_end) >= 0) {
			if (!sr_read_ask(wk, qp, e, psn, len, st))
				return false;
			if (!young) {
				young = true;   /* a new round of asks from here */
				qp->comp.rd_reasked = 1;
				qp->comp.rd_reask = now;
				qp->comp.ans_after = 0;
			}
			qp->comp.rd_ask_end = rnic_psn_add(qp->comp.rd_psn, i);
		}
		while (i < span && rnic_sr_test(map, i))
			i++;
	}
	return true;
}

/* The READ entry among those outstanding whose responses include @p psn
 * (the head or one after it), or NULL. */
static struct rnic_mq_ent *
sr_read_of(struct rnic_qp *qp, uint32_t psn)
{
	struct rnic_mq_ent *e = mq_entry_of(qp, psn);

	return e != NULL && e->type == RNIC_MQ_READ ? e : NULL;
}

/* Selective repeat: some response of READ @p e (not the head) is in
 * place: a go-back need not ask for all of it again. */
static bool
sr_read_started(const struct rnic_qp *qp, const struct rnic_mq_ent *e)
{
	const uint64_t *map = qp->resp.sr->rd_map;
	int32_t d = rnic_psn_diff(e->psn, qp->comp.rd_psn);

	if (!qp->comp.in_read || d < 0)
		return false;
	for (uint32_t i = (uint32_t)d; i < RNIC_SR_WIN && i < (uint32_t)d + e->npsn; i++)
		if (rnic_sr_test(map, i))
			return true;
	return false;
}

/*
 * Selective repeat: the response at rd_psn is in place. Move on past
 * every response in place; a READ whose responses are all in completes,
 * and then the requests before the next READ with responses in place are
 * released (the responder executed them before answering it) and that
 * READ is the head, its holes asked for.
 */
static void
sr_read_advance(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	uint64_t *map = qp->resp.sr->rd_map;
	struct rnic_mq_ent *e;
	bool passed;

	for (;;) {
		uint32_t first = 0, last;
		int32_t k;

		e = mq_head(qp);
		if (e == NULL || e->type != RNIC_MQ_READ || !qp->comp.in_read)
			return;
		last = rnic_psn_add(e->psn, e->npsn - 1u);
		if (map[0] & 1)
			qp->comp.acked_seq++;   /* progress for the loss timer */
		/* Only this READ's responses: those of the READs after it stay
		 * in the map for their turn (consumed here, they were lost:
		 * the next READ, all in place, then waited for an RTO and was
		 * asked for whole again). */
		while ((map[0] & 1) && rnic_psn_diff(qp->comp.rd_psn, last) <= 0) {
			qp->comp.rd_psn = rnic_psn_add(qp->comp.rd_psn, 1);
			rnic_sr_shift(map, 1);
		}
		if (rnic_psn_diff(qp->comp.rd_psn, last) <= 0)
			return;   /* a hole in it */
		/* the anchor stays while later READs have responses in place */
		qp->comp.in_read = rnic_sr_any(map);
		qp->comp.rd_resumed = 0;
		qp->comp.rd_reasked = 0;
		mq_pop(qp);
		STORE_REL(&qp->comp.rd_done, qp->comp.rd_done + 1);
		comp_wqe(qp, RNIC_WC_SUCCESS);
		if (!rnic_sr_any(map)) {
			sr_release_exec(wk, qp, st);
			return;
		}
		while (!rnic_sr_test(map, first))
			first++;
		if (!release_acked(qp, rnic_psn_add(qp->comp.rd_psn, first - 1u), &passed))
			return;
		e = mq_head(qp);
		if (e == NULL)
			return;
		if (passed) {
			/* a READ or atomic before it got no answer at all */
			peer_alive(qp);
			if (e->type == RNIC_MQ_READ)
				sr_read_reask(wk, qp, e, true, st);
			else
				retry_answers(wk, qp, st);
			return;
		}
		if (e->type != RNIC_MQ_READ)
			return;
		k = rnic_psn_diff(e->psn, qp->comp.rd_psn);
		if (k > 0) {
			if ((uint32_t)k < RNIC_SR_WIN)
				rnic_sr_shift(map, (uint32_t)k);
			else
				memset(map, 0, RNIC_SR_WORDS * sizeof(*map));
			qp->comp.rd_psn = e->psn;
		}
		qp->comp.in_read = 1;
		if (!(map[0] & 1)) {
			/* the stream went past this READ's first response */
			sr_read_reask(wk, qp, e, false, st);
			return;
		}
	}
}

/*
 * Selective repeat: a READ response, for the head READ or one after it,
 * goes in place at once, its bit set in rd_map (PSNs from rd_psn);
 * in order, READs complete as usual (sr_read_advance). A hole with
 * SACK_DUPTHRESH responses past it is asked for again (only it); every
 * hole of the head is, once a response of a later READ shows its stream
 * is over. Nothing goes back N.
 */
static void
sr_read_resp(struct rnic_worker *wk, struct rnic_qp *qp, const struct rte_mbuf *m,
	     const struct rnic_pkt *pkt, struct rnic_dev_stats *st)
{
	uint64_t *map = qp->resp.sr->rd_map;
	uint32_t psn = pkt->bth.psn, last, off, sent;
	struct rnic_mq_ent *e, *x;
	struct rnic_wqe *w;
	bool passed;
	int32_t d;

	/* The responder executes in order: a response says every request
	 * before its READ was executed (release_acked stops at READs and
	 * atomics still unanswered). */
	if (!release_acked(qp, rnic_psn_add(psn, RNIC_PSN_MASK), &passed))
		return;
	sr_settle(wk, qp, st);
	e = mq_head(qp);
	if (e == NULL || e->type == RNIC_MQ_SEND_WRITE || rnic_psn_diff(psn, e->psn) < 0 ||
	    !rnic_mq_last_psn(&qp->req.mq, &sent) || rnic_psn_diff(psn, sent) > 0) {
		st->drop_ghost_resp++;   /* a copy of one already used, or never asked */
		return;
	}
	if (!qp->comp.in_read) {
		qp->comp.in_read = 1;
		qp->comp.rd_psn = e->psn;
		memset(map, 0, RNIC_SR_WORDS * sizeof(*map));
	}
	d = rnic_psn_diff(psn, qp->comp.rd_psn);
	if (d < 0 || (d < (int32_t)RNIC_SR_WIN && rnic_sr_test(map, (uint32_t)d))) {
		st->drop_ghost_resp++;   /* in place already */
		return;
	}
	x = d < (int32_t)RNIC_SR_WIN ? sr_read_of(qp, psn) : NULL;
	if (x == NULL) {
		/* past what the map holds, or not a READ's: asked again later */
		st->drop_bad_resp++;
		peer_alive(qp);
		if (e->type == RNIC_MQ_READ)
			sr_read_reask(wk, qp, e, true, st);
		else
			retry_answers(wk, qp, st);
		return;
	}
	w = rnic_sq_wqe(qp, x->wqe_idx);
	last = rnic_psn_add(x->psn, x->npsn - 1u);
	off = (uint32_t)rnic_psn_diff(psn, x->psn) * qp->pmtu;
	/* Lengths, not opcodes: a part asked again is answered First..Last
	 * of its own. */
	if ((psn != last && pkt->payload_len != qp->pmtu) ||
	    off + pkt->payload_len > w->total_len ||
	    (psn == last && off + pkt->payload_len != w->total_len)) {
		st->drop_bad_resp++;
		comp_fail(qp, RNIC_WC_BAD_RESP_ERR);
		return;
	}
	read_scatter(w, off, m, pkt->payload_off, pkt->payload_len);
	if (x == e)
		qp->comp.retry = qp->attr.retry_cnt;   /* the head's progress */
	/* The READ's first response times the round trip, when the READ
	 * went once (Karn) */
	if (x == e && psn == e->psn && !qp->comp.rd_reasked &&
	    (int32_t)(qp->comp.mq_head - qp->comp.rexmit_high) >= 0 &&
	    (int32_t)(qp->comp.mq_head - qp->comp.nak_end) >= 0)
		rtt_sample(qp, rnic_mq_stamp(rte_rdtsc()) - e->sent);
	rnic_sr_set(map, (uint32_t)d);
	sr_ask_lost(qp, x, st);
	if (e->type != RNIC_MQ_READ) {
		/* an atomic at the head: an answer after it means its own was
		 * lost; this READ's responses wait in place for their turn */
		peer_alive(qp);
		retry_answers(wk, qp, st);
		return;
	}
	if (d == 0) {
		sr_read_advance(wk, qp, st);
		return;
	}
	peer_alive(qp);   /* the stream flows: no loss timer expiry for it */
	if (x != e)
		sr_read_reask(wk, qp, e, true, st);
	else if (d >= SACK_DUPTHRESH)
		sr_read_reask(wk, qp, e, false, st);
}

static void
comp_read_resp(struct rnic_worker *wk, struct rnic_qp *qp, const struct rte_mbuf *m,
	       const struct rnic_pkt *pkt, struct rnic_dev_stats *st)
{
	if (qp->attr.sr) {
		sr_read_resp(wk, qp, m, pkt, st);
		return;
	}
	rnic_opmask_t mask = pkt->op->mask;
	uint32_t psn = pkt->bth.psn, last, off, expect;
	struct rnic_mq_ent *e;
	struct rnic_wqe *w;
	bool passed, resumed;

	/* A READ response implicitly acknowledges everything before it. */
	if (!release_acked(qp, rnic_psn_add(psn, RNIC_PSN_MASK), &passed))
		return;
	e = mq_head(qp);
	if (answer_past_head(wk, qp, e, psn, st))
		return;
	if (e == NULL || e->type != RNIC_MQ_READ || rnic_psn_diff(psn, e->psn) < 0) {
		st->drop_ghost_resp++;
		return;
	}
	last = rnic_psn_add(e->psn, e->npsn - 1u);
	expect = qp->comp.in_read ? qp->comp.rd_psn : e->psn;
	if (psn != expect) {
		/* A response went missing: ask again (seed 3.4.5.1.3.4). */
		st->drop_bad_resp++;
		if (rnic_psn_diff(psn, expect) > 0) {
			peer_alive(qp);
			retry_or_fail(wk, qp, st);
		}
		return;
	}
	w = rnic_sq_wqe(qp, e->wqe_idx);
	off = rnic_psn_diff(psn, e->psn) * qp->pmtu;
	/* A READ re-asked from rd_psn may be answered at that PSN as a new
	 * READ (First/Only, as IBA responders do) or as the continuation of
	 * the old one (Middle/Last, as rxe replays): both carry the bytes at
	 * off. Anywhere else First/Only means the start of the WQE. */
	resumed = qp->comp.rd_resumed && psn == expect;
	if ((!resumed && ((mask & RNIC_M_FIRST) != 0) != (psn == e->psn)) ||
	    ((mask & RNIC_M_LAST) != 0) != (psn == last) ||
	    (!(mask & RNIC_M_LAST) && pkt->payload_len != qp->pmtu) ||
	    off + pkt->payload_len > w->total_len ||
	    ((mask & RNIC_M_LAST) && off + pkt->payload_len != w->total_len)) {
		st->drop_bad_resp++;
		comp_fail(qp, RNIC_WC_BAD_RESP_ERR);
		return;
	}
	read_scatter(w, off, m, pkt->payload_off, pkt->payload_len);
	qp->comp.retry = qp->attr.retry_cnt;
	/* Every in-order READ response is forward progress for the loss
	 * timer, not only the last one: a long READ outlives the timeout. */
	qp->comp.acked_seq++;
	if (mask & RNIC_M_LAST) {
		qp->comp.in_read = 0;
		qp->comp.rd_resumed = 0;
		mq_pop(qp);
		STORE_REL(&qp->comp.rd_done, qp->comp.rd_done + 1);
		comp_wqe(qp, RNIC_WC_SUCCESS);
	} else {
		qp->comp.in_read = 1;
		qp->comp.rd_psn = rnic_psn_add(psn, 1);
	}
}

static void
comp_atomic_ack(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
		struct rnic_dev_stats *st)
{
	uint32_t psn = pkt->bth.psn;
	struct rnic_mq_ent *e;
	struct rnic_wqe *w;
	bool passed;

	if (!release_acked(qp, rnic_psn_add(psn, RNIC_PSN_MASK), &passed))
		return;
	e = mq_head(qp);
	if (qp->attr.sr && e != NULL && e->type != RNIC_MQ_SEND_WRITE &&
	    rnic_psn_diff(psn, e->psn) > 0 && sr_atomic_early(wk, qp, e, pkt, st))
		return;
	if (answer_past_head(wk, qp, e, psn, st))
		return;
	if (e == NULL || e->type != RNIC_MQ_ATOMIC || e->psn != psn) {
		st->drop_ghost_resp++;
		return;
	}
	w = rnic_sq_wqe(qp, e->wqe_idx);
	if (w->num_sge > 0)
		memcpy((void *)(uintptr_t)w->sge[0].addr, &pkt->ext.atmack_orig, RNIC_ATOMIC_LEN);
	qp->comp.retry = qp->attr.retry_cnt;
	mq_pop(qp);
	STORE_REL(&qp->comp.rd_done, qp->comp.rd_done + 1);
	comp_wqe(qp, RNIC_WC_SUCCESS);
	if (qp->attr.sr)
		sr_release_exec(wk, qp, st);
}


/*
 * Selective repeat: the resend of hole @p e is lost too when at least
 * SACK_DUPTHRESH packets sent after it (entries @p from to @p end, which
 * the SACK just walked) are held: the link keeps order but for a little
 * reordering, which the threshold allows (RACK's idea, RFC 8985: a
 * packet is lost when packets sent after it were delivered). Without
 * this a lost resend waited for the RTO, most of the soak's expiries.
 */
static bool
sr_resend_lost(struct rnic_qp *qp, const struct rnic_mq_ent *e, uint32_t from,
	       uint32_t end)
{
	unsigned int n = 0;

	for (uint32_t i = from; i != end; i++) {
		const struct rnic_mq_ent *f = rnic_mq_at(&qp->req.mq, i);

		if ((f->flags & RNIC_MQF_SACKED) && (int32_t)(f->sent - e->sent) > 0 &&
		    ++n >= SACK_DUPTHRESH)
			return true;
	}
	return false;
}

/*
 * Selective repeat (doc/reliability.md): an ACK's SACK names the
 * responder's ePSN and the PSNs past it it holds. Those entries are
 * marked and never resent; each hole is resent once at once, and again
 * only if it is still a hole an RTO later (the resend was lost too). No
 * retry is spent: the responder is answering; the IBA timeout still
 * declares a dead peer. Entries are walked from the head only as far as
 * the map reaches.
 */
static void
sack_rx(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
	struct rnic_dev_stats *st)
{
	struct rnic_mq *mq = &qp->req.mq;
	const uint64_t *map = pkt->ext.sack;
	uint32_t base = pkt->ext.sr_aux & RNIC_PSN_MASK, tail = LOAD_ACQ(&mq->tail);   /* [MQ-TAIL] */
	uint32_t now = rnic_mq_stamp(rte_rdtsc()), rto, end = qp->comp.mq_head;
	bool dropped = pkt->ext.sr_aux & RNIC_SACK_DROPPED;
	int32_t hi = -1;

	if (!rnic_sr_any(map) && !dropped)
		return;
	st->sr_sacks_rcvd++;
	/* Mark what the responder holds; hi: the highest PSN offset held. */
	for (uint32_t i = qp->comp.mq_head; i != tail; i++) {
		struct rnic_mq_ent *e = rnic_mq_at(mq, i);
		int32_t d = rnic_psn_diff(e->psn, base);

		if (d >= (int32_t)RNIC_SR_WIN)
			break;
		if (d < 0 || e->type == RNIC_MQ_BAD)
			continue;
		if (rnic_sr_test(map, (uint32_t)d)) {
			e->flags |= RNIC_MQF_SACKED;
			hi = d;
			end = i + 1;
		}
	}
	rto = (uint32_t)RTE_MIN((RTE_MIN(rto_ns_shift(qp, 0), (uint64_t)NS_PER_S) / 1000 *
				 qp->dev->tsc_per_us) >> RNIC_MQ_TS_SHIFT, (uint64_t)RTT_TICKS_MAX);
	for (uint32_t i = qp->comp.mq_head; i != end; i++) {
		struct rnic_mq_ent *e = rnic_mq_at(mq, i);
		int32_t d = rnic_psn_diff(e->psn, base);

		if (d < 0 || (e->flags & RNIC_MQF_SACKED) || hi - d < SACK_DUPTHRESH)
			continue;
		if ((e->flags & RNIC_MQF_SRESENT) && now - e->sent < rto) {
			if (!sr_resend_lost(qp, e, i + 1u, end))
				continue;   /* resent less than an RTO ago */
			st->sr_lost_resends++;
		}
		if (!rnic_txbuf_room(&wk->rx.txb))
			break;      /* the next SACK or the RTO resends the rest */
		if (e->m != NULL) {
			rte_mbuf_refcnt_update(e->m, 1);
			rnic_txbuf_add(&wk->rx.txb, e->m);
			st->tx_retransmits++;
			st->sr_resent++;
			qp->comp.n_rexmit++;
		}
		e->flags |= RNIC_MQF_SRESENT;
		e->sent = now;
	}
	/* The responder dropped requests past its ePSN that it could not
	 * place (past its window, a SEND whose receive is not posted): what
	 * it lacks from the ePSN on is resent now, the SACKed skipped, as a
	 * sequence NAK would have it (once per RTO: the flag stays until
	 * the ePSN moves). */
	if (dropped && mq_head(qp) != NULL && rnic_psn_diff(base, mq_head(qp)->psn) <= 0)
		retry_or_fail(wk, qp, st);
}

static void
comp_ack(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
	 struct rnic_dev_stats *st)
{
	uint8_t syn = pkt->ext.aeth_syn;
	uint32_t psn = pkt->bth.psn, sent;
	struct rnic_mq_ent *e = mq_head(qp);
	bool passed;

	if (e == NULL || !rnic_mq_last_psn(&qp->req.mq, &sent) || rnic_psn_diff(psn, sent) > 0 ||
	    rnic_psn_diff(psn, rnic_psn_add(e->psn, RNIC_PSN_MASK)) < 0) {
		st->drop_ghost_resp++;   /* duplicate, or for a PSN never sent */
		return;
	}
	switch (syn & RNIC_AETH_TYPE_MASK) {
	case RNIC_AETH_ACK:
		st->acks_rcvd++;
		if (!release_acked(qp, psn, &passed))
			break;
		if (qp->attr.sr)
			sr_settle(wk, qp, st);
		if (passed && qp->attr.sr && (e = mq_head(qp)) != NULL && e->type == RNIC_MQ_READ) {
			peer_alive(qp);
			sr_read_reask(wk, qp, e, true, st);   /* READ responses lost */
		} else if (passed) {
			peer_alive(qp);
			retry_answers(wk, qp, st);   /* READ response lost */
		}
		/* The SACK also names the holes past the head: an ACK that
		 * passed a READ or atomic still says which requests after it
		 * the responder lacks (it was ignored, and those waited for
		 * the RTO). */
		if (pkt->bth.sr)
			sack_rx(wk, qp, pkt, st);
		break;
	case RNIC_AETH_RNR_NAK:
		st->rnr_naks_rcvd++;
		if (!release_acked(qp, rnic_psn_add(psn, RNIC_PSN_MASK), &passed))
			break;
		if (qp->comp.rnr_retry == 0) {
			st->rnr_retry_exceeded++;
			comp_fail(qp, RNIC_WC_RNR_RETRY_EXC_ERR);
			break;
		}
		if (qp->attr.rnr_retry != RNIC_RNR_RETRY_INFINITE)
			qp->comp.rnr_retry--;
		/* Wait the responder's RNR time on the timer lcore's wheel, then
		 * resend from the NAK'd packet (seed 3.4.5). The count is ours:
		 * the wheel timer is a plain delay. */
		rnr_timer_set(wk, qp, rnic_rnr_timer_ns(syn & RNIC_AETH_VALUE_MASK));
		break;
	case RNIC_AETH_NAK:
		st->naks_rcvd++;
		qp->comp.n_nak++;
		if (!release_acked(qp, rnic_psn_add(psn, RNIC_PSN_MASK), &passed))
			break;
		switch (syn & RNIC_AETH_VALUE_MASK) {
		case RNIC_NAK_PSN_SEQ:
			retry_or_fail(wk, qp, st);
			break;
		case RNIC_NAK_INVALID_REQ:
			comp_fail(qp, RNIC_WC_REM_INV_REQ_ERR);
			break;
		case RNIC_NAK_REMOTE_ACCESS:
			comp_fail(qp, RNIC_WC_REM_ACCESS_ERR);
			break;
		default:
			comp_fail(qp, RNIC_WC_REM_OP_ERR);
			break;
		}
		break;
	default:
		st->drop_bad_resp++;   /* reserved syndrome */
		break;
	}
}

void
rnic_comp_rx(struct rnic_worker *wk, struct rnic_qp *qp, struct rte_mbuf *m,
	     const struct rnic_pkt *pkt)
{
	struct rnic_dev_stats *st = &wk->rx.st;
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	rnic_opmask_t mask = pkt->op->mask;

	if (s == RNIC_QPS_RESET || s == RNIC_QPS_INIT || s == RNIC_QPS_RTR ||
	    s == RNIC_QPS_ERR) {
		st->drop_qp_state++;
		return;
	}
	if (mask & RNIC_M_READ)
		comp_read_resp(wk, qp, m, pkt, st);
	else if (mask & RNIC_M_ATOMIC)
		comp_atomic_ack(wk, qp, pkt, st);
	else
		comp_ack(wk, qp, pkt, st);
}

/* TX queued a bad WQE, or the QP entered Error: complete what is due. */
void
rnic_comp_kick(struct rnic_worker *wk, struct rnic_qp *qp)
{
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	bool passed;

	if (s == RNIC_QPS_RESET)
		return;
	if (s == RNIC_QPS_ERR) {
		if (qp->type == RNIC_QPT_RC)
			flush_all(qp);
		else
			rnic_resp_flush_rq(qp);
		return;
	}
	if (qp->type != RNIC_QPT_RC)
		return;
	/* A bad WQE at the head, with nothing before it, completes now. */
	struct rnic_mq_ent *e = mq_head(qp);

	if (e != NULL && e->type == RNIC_MQ_BAD) {
		release_acked(qp, e->psn, &passed);
		return;
	}
	/* TX put a packet into an empty list: arm the loss timer. */
	if (e != NULL && !qp->comp.loss_armed) {
		qp->comp.stuck_tsc = rte_rdtsc();
		qp->comp.rto_shift = 0;
		loss_timer_set(wk, qp);
	}
}

/*
 * The loss timer (seed 3.4.2) of one QP. Only this role sends its
 * commands. ACKs do not restart it one by one: they bump acked_seq, and an
 * expiry that finds progress since the last arm simply re-arms. The wheel
 * is a plain delay: every arm is a SET with a full counter, so it never
 * reports retry exceeded; the QP's one retry count is comp.retry.
 */
/* The next loss timer: the RTO, but not past the IBA timeout's end. */
static uint64_t
loss_timer_ns(const struct rnic_qp *qp)
{
	uint64_t iba = iba_timeout_ns(qp), rto = rto_ns(qp), spent;

	if (qp->comp.srtt8 == 0)
		return iba;
	spent = tsc_ns(qp, rte_rdtsc() - qp->comp.stuck_tsc);
	return spent < iba ? RTE_MIN(rto, RTE_MAX(iba - spent, (uint64_t)RTO_MIN_NS)) : rto;
}

static void
loss_timer_set(struct rnic_worker *wk, struct rnic_qp *qp)
{
	struct rnic_timer_event ev = {
		.qp = qp->index, .type = RNIC_TIMER_SET, .timer = RNIC_TIMER_LOSS,
		.retry = RNIC_TIMER_RETRY_INFINITE,
		.value_ns = loss_timer_ns(qp),
	};

	if (qp->attr.timeout == 0)
		return;   /* IBA: 0 means an infinite local ACK timeout */
	/* The ring holds two commands per QP and each QP has at most one in
	 * flight per expiry, so this cannot fail; count it if it ever does. */
	if (rte_ring_mp_enqueue_elem(wk->tmr_in, &ev, sizeof(ev)) != 0) {
		wk->rx.st.tx_full++;
		return;
	}
	STORE_RLX(&qp->comp.loss_armed, 1);   /* [MQ-ARM]: TX may skip its kick */
	qp->comp.arm_seq = qp->comp.acked_seq;
	qp->comp.arm_alive = qp->comp.alive_seq;
}

/* The QP's completer may act on a timer: RC in RTS or SQD. */
static bool
timer_state_ok(const struct rnic_qp *qp)
{
	enum rnic_qp_state s = rnic_qp_state_get(qp);

	return qp->type == RNIC_QPT_RC && (s == RNIC_QPS_RTS || s == RNIC_QPS_SQD);
}

static void
loss_timer_event(struct rnic_worker *wk, struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	STORE_RLX(&qp->comp.loss_armed, 0);   /* not running; [MQ-ARM] */
	if (!timer_state_ok(qp) || rnic_mq_empty_sc(&qp->req.mq))   /* [MQ-ARM] */
		return;
	if (qp->comp.acked_seq != qp->comp.arm_seq || qp->comp.rnr_waiting ||
	    qp->comp.alive_seq != qp->comp.arm_alive) {
		/* Progress, a peer still answering what was queued before our
		 * resend, or waiting out an RNR NAK (not a loss): re-arm. A
		 * peer that only answers does not restart the IBA timeout:
		 * one that answers everything but the head must still run
		 * the QP out of retries, RTO resends or not. */
		if (qp->comp.acked_seq != qp->comp.arm_seq || qp->comp.rnr_waiting) {
			qp->comp.stuck_tsc = rte_rdtsc();
			qp->comp.rto_shift = 0;
		}
		loss_timer_set(wk, qp);
		return;
	}
	if (qp->comp.srtt8 != 0 &&
	    tsc_ns(qp, rte_rdtsc() - qp->comp.stuck_tsc) < iba_timeout_ns(qp)) {
		/* No progress for an RTO, before the IBA timeout: resend now,
		 * back off, and keep the retries for the IBA timeout - unless
		 * a NAK started a resend less than an RTO ago. */
		if (rexmit_young(qp)) {
			loss_timer_set(wk, qp);
			return;
		}
		st->rto_expired++;
		if (qp->comp.rto_shift < RTO_SHIFT_MAX)
			qp->comp.rto_shift++;
		qp->comp.retrying = 1;
		qp->comp.retry_seq = qp->comp.acked_seq;
		rexmit_start(wk, qp, true);
		loss_timer_set(wk, qp);
		return;
	}
	qp->comp.stuck_tsc = rte_rdtsc();   /* the next IBA timeout from here */
	st->timer_expired++;
	qp->comp.n_timeout++;
	/* An expiry spends a retry like any other sign of loss: a peer that
	 * answers everything but the head still runs the QP out of retries. */
	if (qp->comp.retry == 0) {
		st->retry_exceeded++;
		comp_fail(qp, RNIC_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry--;
	qp->comp.retrying = 1;
	qp->comp.retry_seq = qp->comp.acked_seq;
	rexmit_start(wk, qp, true);
	loss_timer_set(wk, qp);
}

static void
rnr_timer_set(struct rnic_worker *wk, struct rnic_qp *qp, uint64_t ns)
{
	struct rnic_timer_event ev = {
		.qp = qp->index, .type = RNIC_TIMER_SET, .timer = RNIC_TIMER_RNR,
		.retry = RNIC_TIMER_RETRY_INFINITE, .value_ns = ns,
	};

	if (rte_ring_mp_enqueue_elem(wk->tmr_in, &ev, sizeof(ev)) != 0) {
		wk->rx.st.tx_full++;
		rexmit_start(wk, qp, false);   /* no timer: resend now */
		return;
	}
	qp->comp.rnr_waiting = 1;
}

static void
rnr_timer_event(struct rnic_worker *wk, struct rnic_qp *qp)
{
	if (!qp->comp.rnr_waiting)
		return;   /* stale: the QP was reset or failed meanwhile */
	qp->comp.rnr_waiting = 0;
	if (timer_state_ok(qp))
		rexmit_start(wk, qp, false);
}

/* Expiries from the timer role. */
unsigned int
rnic_comp_timer_events(struct rnic_worker *wk)
{
	struct rnic_dev_stats *st = &wk->rx.st;
	struct rnic_timer_event evs[32];
	unsigned int n = rte_ring_sc_dequeue_burst_elem(wk->tmr_out, evs, sizeof(evs[0]),
							RTE_DIM(evs), NULL);

	for (unsigned int i = 0; i < n; i++) {
		struct rnic_qp *qp;

		if (evs[i].qp > wk->dev->qp_mask)
			continue;
		qp = LOAD_ACQ(&wk->dev->qps[evs[i].qp]);   /* [QP-TABLE] */
		if (qp == NULL)
			continue;
		if (evs[i].timer == RNIC_TIMER_LOSS)
			loss_timer_event(wk, qp, st);
		else if (evs[i].timer == RNIC_TIMER_RNR)
			rnr_timer_event(wk, qp);
	}
	return n;
}

/* One QP's resend burst; false when it is all out. */
static bool
rexmit_turn(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int *work)
{
	struct rnic_qp_comp *c = &qp->comp;

	if (rnic_qp_state_get(qp) == RNIC_QPS_ERR)
		c->rexmit_next = c->rexmit_end;
	*work += rexmit_pump(wk, qp, &wk->rx.st);
	return c->rexmit_next != c->rexmit_end;
}

/* Retransmission bursts that did not fit the TX buffer at once. */
unsigned int
rnic_comp_rexmit(struct rnic_worker *wk)
{
	return rnic_qp_list_walk(wk, &wk->rx.rexmit,
				 offsetof(struct rnic_qp, comp.on_rexmit_list), rexmit_turn);
}
