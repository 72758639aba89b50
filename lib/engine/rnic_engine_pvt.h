/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces between the engine's stages (all of them data path). */
#ifndef RNIC_ENGINE_PVT_H
#define RNIC_ENGINE_PVT_H

#include <stdbool.h>

#include <rte_cycles.h>

#include "rnic_core.h"
#include "rnic_engine.h"
#include "rnic_timer.h"
#include "rnic_ab.h"
#include "rnic_trace.h"

/* AckReq policy (IBA 9.7.6.1.1 leaves it to the requester): the last
 * packet of each message, and every Nth PSN so that the send window
 * keeps moving inside long messages. */
#define RNIC_ACKREQ_EVERY 16

/*
 * The TSC read once per pass and shared by the roles one rnic_worker_poll
 * call runs (the TX role's walk, then the timer role): a read took 11 ns
 * on the AMD Zen 3 VM, and an engine pass is a few hundred. Read when a
 * role first needs it; a role run later in the pass sees the pass's start.
 */
struct rnic_pass_clock {
	uint64_t tsc;            /* 0: not read yet this pass */
};

static inline bool
rnic_pass_clock_read(const struct rnic_pass_clock *c)
{
	return c->tsc != 0;
}

static inline uint64_t
rnic_pass_tsc(struct rnic_pass_clock *c)
{
	if (c->tsc == 0)
		c->tsc = rte_rdtsc();   /* a 0 from the TSC only reads it again */
	return c->tsc;
}

/* The roles of one worker (rnic_tx.c, rnic_rx.c, rnic_poll.c). */
unsigned int rnic_worker_poll_tx(struct rnic_worker *wk, struct rnic_pass_clock *clk);
unsigned int rnic_worker_poll_rx(struct rnic_worker *wk);
unsigned int rnic_worker_poll_timer(struct rnic_worker *wk, struct rnic_pass_clock *clk);

/* Responder (rnic_responder.c), RX role. */
void rnic_resp_rx(struct rnic_worker *wk, struct rnic_qp *qp, struct rte_mbuf *m,
		  const struct rnic_pkt *pkt);
unsigned int rnic_resp_pump_reads(struct rnic_worker *wk);
/* Its fast path for an RC WRITE packet (rnic_pkt_rc_write): false where
 * it is not the common case, nothing done then. */
bool rnic_resp_rx_rc_write(struct rnic_worker *wk, struct rnic_qp *qp,
			   const struct rte_mbuf *m, const struct rnic_rc_write *f);
void rnic_resp_flush_acks(struct rnic_worker *wk);
/* [ACK-OWED] Where the application's thread polls: leave the coalesced
 * ACKs to the start of the next pass (rnic_worker_poll_rx). */
void rnic_resp_owe_acks(struct rnic_worker *wk);
void rnic_resp_flush_rq(struct rnic_qp *qp);

/* Completer / requester receive (rnic_completer.c), RX role. */
void rnic_comp_rx(struct rnic_worker *wk, struct rnic_qp *qp, struct rte_mbuf *m,
		  const struct rnic_pkt *pkt);
void rnic_comp_kick(struct rnic_worker *wk, struct rnic_qp *qp);
unsigned int rnic_comp_rexmit(struct rnic_worker *wk);
unsigned int rnic_comp_timer_events(struct rnic_worker *wk);

/* ARP (rnic_arp.c), RX role. */
void rnic_arp_input(struct rnic_worker *wk, const struct rte_mbuf *m, uint32_t l3,
		    bool tagged, rte_be16_t tci, struct rnic_dev_stats *st);
void rnic_arp_request(struct rnic_worker *wk, struct rnic_dev_stats *st);

/* rnic_dev_arp_resolve's and rnic_dev_nd_resolve's wait (rnic_arp.c): look
 * @p addr up until found (0) or @p timeout_ms ran out (-ETIMEDOUT), have
 * the RX role ask for it at once and every 1/5 s, and poll the RX role
 * meanwhile when no lcore does. Control thread. */
typedef int rnic_resolve_lookup_t(struct rnic_device *dev, const void *addr, uint8_t mac[6]);
typedef void rnic_resolve_ask_t(struct rnic_device *dev, const void *addr);
int rnic_resolve_wait(struct rnic_device *dev, rnic_resolve_lookup_t *lookup,
		      rnic_resolve_ask_t *ask, const void *addr, uint8_t mac[6],
		      unsigned int timeout_ms);

/* Neighbour discovery (rnic_nd.c), RX role: false when the IPv6 frame at
 * @p l3 is not a neighbour solicitation or advertisement. */
bool rnic_nd_input(struct rnic_worker *wk, const struct rte_mbuf *m, uint32_t l3, bool tagged,
		   rte_be16_t tci, struct rnic_dev_stats *st);
void rnic_nd_request(struct rnic_worker *wk, struct rnic_dev_stats *st);

/* Packet I/O and completions (rnic_pktio.c), any role. */

/* The TX role of @p qp's worker (only): complete the QP's oldest send
 * WQE (sq_done) with @p s. The completion, made when @p s is an error or
 * the WQE is signaled, goes out with the pass's others before it ends
 * (rnic_worker_poll_tx); counted (a flush too) on that role's stats.
 * rnic_complete_send_rx: the same in the RX role. */
void rnic_complete_send(struct rnic_qp *qp, enum rnic_wc_status s);

/* The oldest outstanding WQE is done and asks for no completion: free its
 * send queue slot ([SQ-DONE]). */
static inline void
rnic_sq_retire(struct rnic_qp *qp)
{
	STORE_REL(&qp->comp.sq_done, qp->comp.sq_done + 1);   /* [SQ-DONE] */
}
/* Push a role's staged completions to their CQ; each that does not fit
 * moves its QP to Error with one event (counted on @p st). */
void rnic_cqe_stage_flush(struct rnic_cqe_stage *cs, struct rnic_dev_stats *st);
/* The RX role of @p qp's worker (only): stage @p wc for @p cq, pushed
 * with the pass's other completions by rnic_cqe_flush before it ends;
 * counted on that role's stats, as the overflows of the flush. */
void rnic_complete_rx(struct rnic_qp *qp, struct rnic_cq *cq, const struct rnic_wc *wc);
void rnic_complete_send_rx(struct rnic_qp *qp, enum rnic_wc_status s);
/* The RX role's staged completions to their CQ. */
void rnic_cqe_flush(struct rnic_worker *wk);
uint32_t rnic_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst);
/*
 * An mbuf with every header written and room for @p paylen bytes of
 * payload (*payload), pad and ICRC; NULL when the pool is empty. The
 * headers come from the template @p t (a QP's peer), or, when @p t is
 * NULL, from @p l (a UD destination).
 */
struct rte_mbuf *rnic_pkt_alloc(struct rnic_device *dev, struct rnic_dev_stats *st,
				const struct rnic_pkt_tmpl *t, const struct rnic_l2l3 *l,
				const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
				uint32_t paylen, uint8_t **payload);
/* rnic_pkt_alloc with @p m, an mbuf the caller took (NULL: none; counted
 * as rnic_pkt_alloc counts a failed allocation). */
struct rte_mbuf *rnic_pkt_alloc_from(struct rnic_device *dev, struct rte_mbuf *m,
				     struct rnic_dev_stats *st, const struct rnic_pkt_tmpl *t,
				     const struct rnic_l2l3 *l, const struct rnic_bth_fields *b,
				     const struct rnic_ext_fields *ext, uint32_t paylen,
				     uint8_t **payload);
/* rnic_cc.c: a packet for @p qp arrived Congestion Experienced. */
void rnic_np_ce(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
		struct rnic_dev_stats *st);
/* Write the ICRC of a packet from rnic_pkt_alloc (IPv4 at @p l3_off). */
void rnic_pkt_seal(struct rte_mbuf *m, uint32_t l3_off);
/*
 * Copy @p paylen bytes at @p src into the payload of a packet from
 * rnic_pkt_alloc (at @p payload) and seal it: rnic_pkt_seal's result, in
 * one pass over the payload where the CPU allows (rnic_icrc_copy_seal).
 */
void rnic_pkt_fill_seal(struct rte_mbuf *m, uint32_t l3_off, uint8_t *payload, const void *src,
			uint32_t paylen);

/* The IPv4 header's offset in frames built from @p l. */
static inline uint32_t
rnic_l3_off(const struct rnic_l2l3 *l)
{
	return l->vlan ? RNIC_ETH_HLEN + RNIC_VLAN_HLEN : RNIC_ETH_HLEN;
}
/* Free the MultiQueue mbufs the RX role released (rnic_dev_rx.free). */
static inline void
rnic_rx_free_flush(struct rnic_worker *wk)
{
	if (wk->rx.n_free == 0)
		return;
	rte_pktmbuf_free_bulk(wk->rx.free, wk->rx.n_free);
	wk->rx.n_free = 0;
}

/* Push what @p b holds to its port; returns what went out. */
uint32_t rnic_txbuf_flush(struct rnic_txbuf *b, struct rnic_dev_stats *st);

/*
 * [DB-LOST] [KICK] A ring that should never fill did (a doorbell or kick
 * was not queued): when the counter at @p lost moved since *@p seen, call
 * @p fn for every QP of the device, which covers the lost one (both are
 * idempotent). Returns true when it did.
 */
static inline bool
rnic_dev_rescan(struct rnic_worker *wk, const uint32_t *lost, uint32_t *seen,
		void (*fn)(struct rnic_worker *wk, struct rnic_qp *qp))
{
	const struct rnic_device *dev = wk->dev;
	uint32_t now = LOAD_ACQ(lost);

	if (likely(now == *seen))
		return false;
	*seen = now;
	for (uint32_t i = 0; i <= dev->qp_mask; i++) {
		struct rnic_qp *qp = LOAD_ACQ(&dev->qps[i]);   /* [QP-TABLE] */

		if (qp != NULL && qp->w == wk)
			fn(wk, qp);
	}
	return true;
}

static inline bool
rnic_txbuf_room(const struct rnic_txbuf *b)
{
	return b->n < RNIC_TXBUF_SIZE;
}

static inline void
rnic_txbuf_add(struct rnic_txbuf *b, struct rte_mbuf *m)
{
	b->pkts[b->n] = m;
	STORE_REL(&b->n, b->n + 1);   /* [TXB] */
}

/* Free slots of @p b. */
static inline uint32_t
rnic_txbuf_free(const struct rnic_txbuf *b)
{
	return RNIC_TXBUF_SIZE - b->n;
}

/* A run of frames: the @p i-th after the ones held (i < rnic_txbuf_free),
 * then the @p n of them counted at once. */
static inline void
rnic_txbuf_put(struct rnic_txbuf *b, uint32_t i, struct rte_mbuf *m)
{
	b->pkts[b->n + i] = m;
}

static inline void
rnic_txbuf_commit(struct rnic_txbuf *b, uint32_t n)
{
	STORE_REL(&b->n, b->n + n);   /* [TXB] */
}

#endif /* RNIC_ENGINE_PVT_H */
