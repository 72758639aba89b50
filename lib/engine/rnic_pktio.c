/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every role of the engine shares: building a packet into an mbuf
 * (ReqPktGen / RespPktGen, seed 3.4.4 and 4.4.4), the software TX buffer
 * in front of rte_eth_tx_burst, copying out of a received mbuf chain, and
 * writing completions (CQ overflow: IBA 11.4.2.1).
 */
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "rnic_engine_pvt.h"

static const uint8_t wc_opcode_of[RNIC_WR_MAX] = {
	[RNIC_WR_RDMA_WRITE] = RNIC_WC_RDMA_WRITE,
	[RNIC_WR_RDMA_WRITE_WITH_IMM] = RNIC_WC_RDMA_WRITE,
	[RNIC_WR_SEND] = RNIC_WC_SEND,
	[RNIC_WR_SEND_WITH_IMM] = RNIC_WC_SEND,
	[RNIC_WR_SEND_WITH_INV] = RNIC_WC_SEND,
	[RNIC_WR_RDMA_READ] = RNIC_WC_RDMA_READ,
	[RNIC_WR_ATOMIC_CMP_AND_SWP] = RNIC_WC_COMP_SWAP,
	[RNIC_WR_ATOMIC_FETCH_AND_ADD] = RNIC_WC_FETCH_ADD,
};

/* A completion of @p qp found its CQ full. */
static void
complete_overflow(struct rnic_qp *qp, struct rnic_dev_stats *st)
{
	struct rnic_async_event ev = { RNIC_EVENT_CQ_ERR, qp->qpn };

	/* Every completion lost counts; the QP's first one raises the event
	 * and moves it to Error (its flush then overflows too). */
	st->cq_overflow++;
	if (__atomic_exchange_n(&qp->cq_err_sent, 1, __ATOMIC_ACQ_REL))   /* [CQ-ERR] */
		return;
	if (rte_ring_mp_enqueue_elem(qp->dev->ev_ring, &ev, sizeof(ev)) != 0)
		st->event_drops++;
	rnic_qp_to_error(qp);
}

/*
 * A role's completions go to their CQ a batch at a time: with a CQE
 * every few messages (16384 QPs, a completion every 4 WRITEs) a push each
 * was a locked compare-and-swap on the ring's head and a load of the
 * application's consumer index each (doc/benchmarks.md). The role pushes
 * what it staged before its pass ends (rnic_worker_poll_rx,
 * rnic_worker_poll_tx), so the application sees them no later than the
 * pass, in the order the role made them; the send queue slot or receive
 * is freed before they are staged.
 */
void
rnic_cqe_stage_flush(struct rnic_cqe_stage *cs, struct rnic_dev_stats *st)
{
	unsigned int done;

	if (cs->n == 0)
		return;
	done = rnic_cq_push_burst(cs->cq, cs->wc, cs->hint, cs->n);
	for (unsigned int i = done; i < cs->n; i++)
		complete_overflow(cs->qp[i], st);
	cs->n = 0;
}

/* @p st: the stats of the role that owns @p cs, which its flush at the
 * end of the pass counts on too. */
static void
cqe_stage_add(struct rnic_cqe_stage *cs, struct rnic_qp *qp, struct rnic_cq *cq,
	      const struct rnic_wc *wc, uint64_t hint, struct rnic_dev_stats *st)
{
	st->completions++;
	if (cs->n != 0 && (cs->cq != cq || cs->n == RTE_DIM(cs->wc)))
		rnic_cqe_stage_flush(cs, st);
	cs->cq = cq;
	cs->qp[cs->n] = qp;
	cs->hint[cs->n] = hint;
	cs->wc[cs->n++] = *wc;
}

void
rnic_cqe_flush(struct rnic_worker *wk)
{
	rnic_cqe_stage_flush(&wk->rx.cqe, &wk->rx.st);
}

void
rnic_complete_rx(struct rnic_qp *qp, struct rnic_cq *cq, const struct rnic_wc *wc)
{
	cqe_stage_add(&qp->w->rx.cqe, qp, cq, wc, 0, &qp->w->rx.st);
}

/* The completion of the QP's oldest send WQE into *@p wc; false when it
 * asks for none (the slot is freed). */
static bool
send_wc(struct rnic_qp *qp, enum rnic_wc_status s, struct rnic_dev_stats *st,
	struct rnic_wc *out)
{
	const struct rnic_wqe *w = rnic_sq_wqe(qp, qp->comp.sq_done);
	struct rnic_wc wc;

	if (s == RNIC_WC_SUCCESS && !(w->flags & RNIC_SEND_SIGNALED)) {
		rnic_sq_retire(qp);
		return false;
	}
	wc = (struct rnic_wc){
		.wr_id = w->wr_id, .status = (uint8_t)s,
		.opcode = w->opcode < RNIC_WR_MAX ? wc_opcode_of[w->opcode] : RNIC_WC_SEND,
		.qp_num = qp->qpn,
		.byte_len = s == RNIC_WC_SUCCESS ? w->total_len : 0,
	};
	if (s == RNIC_WC_WR_FLUSH_ERR)
		st->flushed++;
	/* The slot is free before the completion is seen: a post_send right
	 * after polling this completion finds room (the WQE has been read
	 * into wc, nothing reads it after this). *out first: the caller's
	 * loads of it would otherwise wait for this store, whose line the
	 * application may hold (16384 QPs 1.023x by in-run A/B). */
	*out = wc;
	STORE_REL(&qp->comp.sq_done, qp->comp.sq_done + 1);   /* [SQ-DONE] */
	return true;
}

/* [SQ-HINT] what a send completion tells the application: the send
 * queue's consumer index after it (send_wc stored it), in the QP's life */
static inline uint64_t
send_hint(const struct rnic_qp *qp)
{
	return (uint64_t)qp->life << 32 | qp->comp.sq_done;
}

void
rnic_complete_send(struct rnic_qp *qp, enum rnic_wc_status s)
{
	struct rnic_dev_stats *st = &qp->w->tx.st;
	struct rnic_wc wc;

	if (send_wc(qp, s, st, &wc))
		cqe_stage_add(&qp->w->tx.cqe, qp, qp->scq, &wc, send_hint(qp), st);
}

void
rnic_complete_send_rx(struct rnic_qp *qp, enum rnic_wc_status s)
{
	struct rnic_wc wc;

	if (send_wc(qp, s, &qp->w->rx.st, &wc))
		cqe_stage_add(&qp->w->rx.cqe, qp, qp->scq, &wc, send_hint(qp), &qp->w->rx.st);
}

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

struct rte_mbuf *
rnic_pkt_alloc(struct rnic_device *dev, struct rnic_dev_stats *st,
	       const struct rnic_pkt_tmpl *t, const struct rnic_l2l3 *l,
	       const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
	       uint32_t paylen, uint8_t **payload)
{
	return rnic_pkt_alloc_from(dev, rte_pktmbuf_alloc(dev->pool), st, t, l, b, ext, paylen,
				   payload);
}

struct rte_mbuf *
rnic_pkt_alloc_from(struct rnic_device *dev, struct rte_mbuf *m, struct rnic_dev_stats *st,
		    const struct rnic_pkt_tmpl *t, const struct rnic_l2l3 *l,
		    const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
		    uint32_t paylen, uint8_t **payload)
{
	uint32_t hlen, total, pad = rnic_pad_len(paylen), room;
	uint8_t *p;

	if (m == NULL) {
		st->tx_nombuf++;
		return NULL;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	room = rte_pktmbuf_tailroom(m);
	hlen = t != NULL ? rnic_pkt_tmpl_build(p, room, t, b, ext, paylen) :
			   rnic_pkt_build_hdrs(p, room, l, b, ext, paylen);
	total = hlen + paylen + pad + RNIC_ICRC_LEN;
	if (hlen == 0 || total > room) {
		rte_pktmbuf_free(m);
		st->tx_nombuf++;
		return NULL;
	}
	memset(p + hlen + paylen, 0, pad);
	m->data_len = (uint16_t)total;
	m->pkt_len = total;
	if (dev->tx_ip_cksum && !(t != NULL ? t->ipv6 : l->ipv6)) {
		uint32_t l3 = t != NULL ? t->l3_off : rnic_l3_off(l);

		((struct rte_ipv4_hdr *)(p + l3))->hdr_checksum = 0;
		m->l2_len = l3;
		m->l3_len = RNIC_IPV4_HLEN;
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	}
	*payload = p + hlen;
	return m;
}

void
rnic_pkt_seal(struct rte_mbuf *m, uint32_t l3_off)
{
	rnic_pkt_finish_icrc_mbuf(m, l3_off);
}

void
rnic_pkt_fill_seal(struct rte_mbuf *m, uint32_t l3_off, uint8_t *payload, const void *src,
		   uint32_t paylen)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	uint32_t pad = rnic_pad_len(paylen), icrc;

	icrc = rte_cpu_to_le_32(rnic_icrc_copy_seal(l3, (uint32_t)(payload - l3), src, paylen, pad));
	memcpy(payload + paylen + pad, &icrc, RNIC_ICRC_LEN);
}

uint32_t
rnic_txbuf_flush(struct rnic_txbuf *b, struct rnic_dev_stats *st)
{
	uint16_t sent;

	if (b->n == 0)
		return 0;
	RNIC_TRACE(RNIC_TP_TX_FLUSH, b->n);
	sent = rte_eth_tx_burst(b->port, b->queue, b->pkts, (uint16_t)b->n);
	RNIC_TRACE(RNIC_TP_TX_DONE, sent);
	if (sent < b->n) {
		memmove(b->pkts, b->pkts + sent, (b->n - sent) * sizeof(b->pkts[0]));
		st->tx_full++;
	}
	STORE_REL(&b->n, b->n - sent);   /* [TXB] */
	st->tx_pkts += sent;
	return sent;
}
