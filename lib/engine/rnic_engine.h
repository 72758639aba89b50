/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interfaces between the engine stages. */
#ifndef RNIC_ENGINE_H
#define RNIC_ENGINE_H

#include "rnic_pvt.h"
#include "rnic_timer.h"

/* Ack request policy: last packet of each message, and every Nth PSN so
 * the send window keeps moving inside long messages. */
#define RNIC_ACKREQ_EVERY 16

/* Responder (rnic_responder.c), RX lcore. */
void rnic_resp_rx(struct rnic_device *dev, struct rnic_qp *qp, struct rte_mbuf *m,
		  const struct rnic_pkt *pkt);
unsigned int rnic_resp_pump_reads(struct rnic_device *dev);
void rnic_resp_flush_acks(struct rnic_device *dev);
void rnic_resp_flush_rq(struct rnic_qp *qp);

/* Completer / requester receive (rnic_completer.c), RX lcore. */
void rnic_comp_rx(struct rnic_device *dev, struct rnic_qp *qp, struct rte_mbuf *m,
		  const struct rnic_pkt *pkt);
void rnic_comp_kick(struct rnic_device *dev, struct rnic_qp *qp);
unsigned int rnic_comp_timers(struct rnic_device *dev);
unsigned int rnic_comp_timer_events(struct rnic_device *dev);

/* Helpers shared by TX and RX. */
extern const uint8_t rnic_wc_opcode_of[RNIC_WR_MAX];   /* WR -> WC opcode */
void rnic_complete(struct rnic_qp *qp, struct rnic_cq *cq, const struct rnic_wc *wc,
		   struct rnic_dev_stats *st);
uint32_t rnic_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst);
struct rte_mbuf *rnic_pkt_alloc(struct rnic_device *dev, struct rnic_dev_stats *st,
				const struct rnic_l2l3 *l, const struct rnic_bth_fields *b,
				const struct rnic_ext_fields *ext, uint32_t paylen,
				uint8_t **payload);
void rnic_pkt_seal(struct rte_mbuf *m, const struct rnic_l2l3 *l);

static inline bool
rnic_txbuf_room(const struct rnic_txbuf *b)
{
	return b->n < RNIC_TXBUF_SIZE;
}

static inline void
rnic_txbuf_add(struct rnic_txbuf *b, struct rte_mbuf *m)
{
	b->pkts[b->n++] = m;
}

#endif
