/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device: one DPDK port, its packet pool and object tables (control
 * thread), and its workers. A worker is the whole engine for the QPs it
 * owns (QPN -> worker: rnic_qpn_worker): its own TX and RX queues of the
 * port, doorbell, kick, steering and timer rings, and one struct per
 * engine role, each written only by the thread that polls that role:
 *   struct rnic_dev_tx     TX role: the transmit pipeline (seed ch. 2, 3.4.1-4)
 *   struct rnic_dev_rx     RX role: header parser, responder, completer
 *   struct rnic_dev_timer  timer role: TimerControl (seed 3.4.2)
 * Each starts on its own cache line, so roles and workers on different
 * lcores share no line they write.
 */
#ifndef RNIC_DEV_H
#define RNIC_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rnic_obj.h"
#include "rnic_qplist.h"
#include "rnic_remote.h"
#include "rnic_sync.h"
#include "rnic_timer.h"
#include "rnic_types.h"
#include "rnic_wire.h"

/* Software TX buffer of one role: what tx_burst did not take is retried
 * before anything new is produced, so nothing accepted is lost. */
#define RNIC_TXBUF_SIZE 512
_Static_assert(2 * RNIC_MAX_BURST <= RNIC_TXBUF_SIZE,
	       "an RX burst must fit the response buffer twice (rnic_dev_poll_rx)");

/* The first QPN a device hands out (0 and 1 are IBA's special QPs). */
#define RNIC_FIRST_QPN 0x10
/* Async events kept until the application reads them (one slot less). */
#define RNIC_EVENT_RING 1024
/* The timer wheel's tick: the granularity of every timer. */
#define RNIC_TIMER_TICK_NS 1000

/* Which TX queue each role sends on (one shared queue: both 0). */
#define RNIC_TXQ_REQ  0   /* TX role: requests */
#define RNIC_TXQ_RESP 1   /* RX role: responses, ACKs, retransmissions */

struct rnic_txbuf {
	uint16_t port;
	uint16_t queue;
	uint32_t n;              /* [TXB] W: the owning role, release; R: any
				  * thread (rnic_dev_tx_backlog), acquire */
	struct rte_mbuf *pkts[RNIC_TXBUF_SIZE];
};

/* MultiQueue mbufs the RX role frees at once. */
#define RNIC_RX_FREE_BATCH 64

/* Completions a role pushes to a CQ at once. */
#define RNIC_CQE_BATCH 32

/* A role's completions of this pass, pushed to their CQ together when
 * the CQ changes, when full, and at the end of the pass
 * (rnic_complete_rx, rnic_complete_send_rx and rnic_complete_send stage,
 * rnic_cqe_stage_flush pushes). */
struct rnic_cqe_stage {
	struct rnic_cq *cq;
	uint32_t n;
	struct rnic_qp *qp[RNIC_CQE_BATCH];
	struct rnic_wc wc[RNIC_CQE_BATCH];
	uint64_t hint[RNIC_CQE_BATCH];   /* [SQ-HINT] a send completion's, or 0 */
};

/* ARP cache (direct-mapped by IPv4 address). */
#define RNIC_ARP_CACHE 64

struct rnic_arp_ent {
	uint32_t seq;            /* [ARP] seqlock: W: RX (odd while writing) */
	rte_be32_t ip;
	uint8_t mac[6];
};

/* Neighbour cache (IPv6, rnic_nd.c), as the ARP cache. */
struct rnic_nd_ent {
	uint32_t seq;            /* [ARP] seqlock: W: RX (odd while writing) */
	uint8_t ip6[16];
	uint8_t mac[6];
};

#define RNIC_TX_STASH 32

/* TX role. */
#define RNIC_TX_ARM 64u
struct rnic_dev_tx {
	struct rnic_qp_list active;  /* WQEScheduler: QPs with work, round robin */
	uint32_t cursor;         /* where the next pass goes on in active: not 0
				  * only when the last pass stopped at a full
				  * burst short of the list's end */
	uint32_t db_lost_seen;   /* [DB-LOST] the last db_lost value handled */
	/* [DB-EVERY] passes since the doorbell ring was last read
	 * (rnic_tx.c tx_db_due) */
	uint8_t db_skipped;
	/* mbufs the MultiQueues hold (rnic_dev_mq_limit): what TX pushed,
	 * and the releases it last read (only near the limit) */
	uint64_t mq_held;
	uint64_t mq_freed_seen;
	struct rnic_txbuf txb;
	struct rnic_cqe_stage cqe;   /* this pass's completions (UC/UD, flushes) */
	struct rnic_dev_stats st;
	/* mbufs for the fast path's packets, taken from the pool a burst at
	 * a time (tx_mbuf): stash[i_stash..n_stash) are unused, and go back
	 * to the pool after a pass that sent nothing */
	uint32_t n_stash, i_stash;
	uint32_t stash_want;     /* the fill after a drop: what the dropped one
				  * gave out (0: RNIC_TX_STASH) */
	struct rte_mbuf *stash[RNIC_TX_STASH];
	uint64_t now;            /* TSC at the start of this pass (MQ stamps) */
	uint64_t iter;           /* [ITER] W: TX, release; R: control, acquire */
	/* [MQ-ARM] this pass's MultiQueue publications whose check of the
	 * head waits for the pass's fence (rnic_tx.c mq_publish) */
	uint32_t n_arm;
	struct {
		struct rnic_qp *qp;
		uint32_t old;    /* the tail before the publication */
	} arm[RNIC_TX_ARM];
} __rte_cache_aligned;

/* The TX role's unused stashed mbufs back to the pool: after a pass that
 * sent nothing (rnic_tx.c), and when the device goes. The next fill is
 * as many as this one gave out (rnic_tx.c tx_mbuf). */
static inline void
rnic_tx_stash_drop(struct rnic_dev_tx *tx)
{
	if (tx->i_stash < tx->n_stash)
		rte_pktmbuf_free_bulk(tx->stash + tx->i_stash, tx->n_stash - tx->i_stash);
	if (tx->n_stash != 0)
		tx->stash_want = RTE_MAX(tx->i_stash, 1u);
	tx->i_stash = tx->n_stash = 0;
}

/* RX role. */
struct rnic_dev_rx {
	uint64_t mq_freed;       /* [MQ-FREED] MultiQueue mbufs released; W: RX,
				  * release; R: TX, acquire */
	struct rnic_qp_list rd_active;   /* QPs with READ responses to build */
	struct rnic_qp_list acks;        /* QPs with a coalesced ACK/NAK */
	struct rnic_qp_list rexmit;      /* QPs with a resend still to push */
	uint32_t kick_lost_seen; /* [KICK] the last kick_lost value handled */
	/* MultiQueue mbufs released by ACKs, freed in bulk */
	uint32_t n_free;
	struct rte_mbuf *free[RNIC_RX_FREE_BATCH];
	uint32_t arp_req_sent;   /* [ARP-REQ] the last arp_req_gen served */
	uint32_t nd_req_sent;    /* [ARP-REQ] the last nd_req_gen served */
	uint32_t delivered;      /* this pass ended a request message or completed a
				  * receive: where no lcore polls, its frames wait
				  * for the next pass (rnic_worker_poll_rx) */
	uint32_t acks_owed;      /* [ACK-OWED] the ACKs on acks wait for the start
				  * of the next pass (rnic_worker_poll_rx); W: the
				  * RX role, relaxed; R: any (rnic_dev_tx_backlog) */
	uint32_t tail_deferred;  /* such a pass left its resends, timer events and
				  * the timer role to the next, which runs them
				  * (never two passes in a row) */
	struct rnic_cqe_stage cqe;   /* this pass's completions */
	struct rnic_txbuf txb;
	struct rnic_dev_stats st;
	uint64_t iter;           /* [ITER] */
} __rte_cache_aligned;

/* Timer role. */
struct rnic_dev_timer {
	struct rnic_timer_svc *svc;  /* TimerControl */
	uint64_t tsc_ns_mult;    /* ns = tsc * mult >> 32, set on first poll */
	uint64_t tick_tsc;       /* RNIC_TIMER_TICK_NS in TSC cycles, likewise */
	uint64_t next_tsc;       /* no pass before this TSC (one tick on) */
	uint64_t iter;           /* [ITER] */
} __rte_cache_aligned;

/*
 * One engine worker. Its roles run on the lcores that poll it
 * (rnic_worker_poll); no other worker's thread reads or writes its role
 * structs, and a frame for one of its QPs that another worker received
 * reaches it through its steering ring ([STEER]).
 */
struct rnic_worker {
	/* Control thread (set at creation) */
	struct rnic_device *dev;
	uint16_t id;
	uint16_t rxq_first;           /* the port's RX queues it polls */
	uint16_t nb_rxq;
	uint16_t txq_req;             /* its TX queues: requests (TX role) */
	uint16_t txq_resp;            /* and responses (RX role); may be equal */
	/* [TX-THREAD] the thread that ran the TX role's last pass
	 * (rnic_thread_self): W: TX, relaxed, only when it changes; R:
	 * post_send, relaxed (a hint: where the WQEs it writes go) */
	uint32_t tx_thread;
	struct rte_ring *db_ring;     /* [DB] doorbells of its QPs: app -> TX */
	struct rte_ring *kick_ring;   /* [KICK] QPNs: any thread -> RX */
	struct rte_ring *steer_ring;  /* [STEER] its QPs' frames another
				       * worker received: MP -> RX */
	struct rte_ring *tmr_in;      /* timer commands: RX -> timer */
	struct rte_ring *tmr_out;     /* timer expiries: timer -> RX */
	uint32_t n_qps;               /* control thread: QPs it owns */
	/* mbufs its unacknowledged requests may hold: its share of the
	 * device's mq_limit */
	uint64_t mq_limit;
	uint64_t mq_freed_ctl;        /* [MQ-FREED] released by reset/destroy;
				       * W: control, release; R: TX */
	/* [DB-LOST] doorbells that found the doorbell ring full (it holds
	 * one per QP, so only after a failed quiesce): any application
	 * thread adds 1 (atomic RMW); TX then looks at every QP */
	uint32_t db_lost;
	/* [KICK] kicks that found the kick ring full: any thread adds 1
	 * (atomic RMW); RX compares with rx.kick_lost_seen */
	uint32_t kick_lost;

	struct rnic_dev_tx tx;
	struct rnic_dev_rx rx;
	struct rnic_dev_timer tmr;
} __rte_cache_aligned;

/* Largest rnic_dev_attr.workers. */
#define RNIC_MAX_WORKERS 64

/* Called by rnic_dev_destroy before it frees anything (telemetry takes
 * the device off its endpoints this way). */
typedef void rnic_dev_hook_t(struct rnic_device *dev);
#define RNIC_DEV_HOOKS 4

/* Called by rnic_dev_forget_qp before @p qp leaves the role lists. */
typedef void rnic_dev_qp_hook_t(struct rnic_qp *qp);

struct rnic_device {
	/* Control thread (set at creation unless noted) */
	struct rnic_dev_attr attr;
	/* A daemon's port seen from an attached application (lib/attach):
	 * every verb on the device and its objects goes to ops, with
	 * the remote layer's state in @c remote; NULL: the engine is here. */
	const struct rnic_dev_ops *ops;
	void *remote;
	uint16_t port_id;
	bool tx_ip_cksum;             /* the port computes IPv4 checksums */
	uint8_t mac[6];
	rte_be32_t ipv4;
	uint8_t gid[RNIC_GID_TBL_LEN][16];   /* rnic_dev_attr.ipv4 and .ipv6 */
	uint8_t n_gid;
	uint64_t tsc_hz;
	uint64_t cnp_gap_tsc;         /* attr.cnp_interval_us in TSC cycles */
	uint64_t tsc_per_us;          /* DCQCN's clock */
	struct rte_mempool *pool;
	struct rte_ring *ev_ring;     /* async events: roles -> application */
	struct rnic_worker *workers;  /* n_workers of them */
	uint16_t n_workers;
	struct rnic_qp **qps;         /* [QP-TABLE] by qpn & qp_mask; W: control,
				       * release; R: any thread, acquire */
	uint32_t qp_mask;
	uint32_t next_qpn;
	/* [SQ-HINT] by qpn & qp_mask: the send queue's consumer index a
	 * polled send completion carried, with the QP's life (qp->life) in
	 * the high half; W: poll_cq, release; R: post_send, acquire. Both
	 * the application's: posting learns its room from the completions
	 * it polls, not from the completer's line ([SQ-DONE]). */
	uint64_t *sq_hint;
	uint32_t qp_lives;            /* control thread: the last qp->life given */
	struct rnic_mr **mrs;         /* [MR-TABLE] by key index, as qps */
	uint32_t max_mrs;
	uint32_t mr_key_seq;
	/* MRs registered with an IOVA other than their address: while there
	 * are any, posted SGEs are translated (rnic_mr_local). W: control
	 * thread; R: posting threads (a stale 0 can only miss an MR whose
	 * registration the poster had not seen yet). */
	uint32_t iova_mrs;
	uint32_t n_pds;               /* PD handles given out (not a count) */
	/* PDs, MRs and AHs that exist: W: control thread (relaxed), R: any
	 * (rnic_dev_objs_get: telemetry, leak checks) */
	uint32_t live_pds, live_mrs, live_ahs;
	uint32_t n_qps;               /* QPs that exist (<= max_qps) */
	uint32_t n_cqs;               /* CQs that exist (<= max_cqs) */
	TAILQ_HEAD(, rnic_pd) pds;    /* what rnic_dev_destroy frees besides */
	TAILQ_HEAD(, rnic_cq) cqs;    /* QPs and MRs */
	TAILQ_HEAD(, rnic_ah_int) ahs;
	struct rnic_qp *graveyard;    /* destroyed while the roles did not
				       * answer: freed with the device */
	rnic_dev_hook_t *destroy_hooks[RNIC_DEV_HOOKS];
	/* [ACK-OWED] set by the engine, on the thread that polls the device,
	 * the first time a pass leaves an ACK owed: sends what @p qp owes */
	rnic_dev_qp_hook_t *forget_hook;
	/* Unacknowledged requests may hold at most mq_limit mbufs (7/8 of
	 * the pool, shared out among the workers): the rest stays for
	 * responses and ACKs, so two engines can never hold each other's
	 * ACKs hostage. */
	uint64_t mq_limit;
	uint8_t polled;               /* [POLLED] W: control, release; R: any */
	/* [ARP-REQ] a control thread stores arp_req_ip, then bumps the
	 * generation (release); RX broadcasts one request per bump */
	rte_be32_t arp_req_ip;
	uint32_t arp_req_gen;
	/* W: worker 0's RX role, which handles every frame that is not
	 * RoCEv2 (ARP) */
	struct rnic_arp_ent arp[RNIC_ARP_CACHE];
	/* [ARP-REQ] as arp_req_ip/arp_req_gen, for neighbour solicitations */
	uint8_t nd_req_ip6[16];
	uint32_t nd_req_gen;
	struct rnic_nd_ent nd[RNIC_ARP_CACHE];   /* W: worker 0's RX role */
};

/* The worker that owns QP number @p qpn: creation picks QPNs so that the
 * workers stay balanced ([STEER]: any worker computes it from a frame). */
static inline uint16_t
rnic_qpn_worker(const struct rnic_device *dev, uint32_t qpn)
{
	return (uint16_t)(qpn % dev->n_workers);
}

/* One pass of a role is over: publish it for rnic_dev_quiesce. */
static inline void
rnic_dev_iter_done(uint64_t *iter)
{
	STORE_REL(iter, *iter + 1);   /* [ITER] */
}

/*
 * Control thread: wait until every role of every worker has finished two
 * passes that started after the caller's last store, so that no role still uses what
 * the caller unpublished and every work list dropped a QP in Reset
 * ([QP-DEAD]). Immediate when nobody polls (rnic_dev_set_polled). Returns
 * false when a polled role did not answer within a second (an lcore that
 * stopped polling): the caller must then not free what a role may use.
 */
bool rnic_dev_quiesce(struct rnic_device *dev);

/*
 * Control thread, and only while no role runs (nobody polls the device,
 * or the caller is the one that does): take @p qp off every role's work
 * list (of its worker), after the engine's forget_hook has sent what the
 * QP still owed ([ACK-OWED]). With lcores polling, rnic_dev_quiesce does
 * this instead ([QP-DEAD]).
 */
void rnic_dev_forget_qp(struct rnic_device *dev, struct rnic_qp *qp);

/* Control thread: call @p fn from rnic_dev_destroy. 0 or -ENOSPC. */
int rnic_dev_add_destroy_hook(struct rnic_device *dev, rnic_dev_hook_t *fn);

/* Control thread: run and clear the destroy hooks. */
void rnic_dev_run_destroy_hooks(struct rnic_device *dev);

/* The TOS byte of a data packet: ECT(0) unless the device sends Not-ECT,
 * the address vector asks for Not-ECT (@p not_ect) or the traffic class
 * already sets an ECN codepoint (issue 18). */
static inline uint8_t
rnic_tos_ecn(const struct rnic_device *dev, uint8_t tos, bool not_ect)
{
	return dev->attr.no_ecn || not_ect || (tos & RNIC_ECN_MASK) ? tos :
	       (uint8_t)(tos | RNIC_ECN_ECT0);
}

/* An address vector the device can send from: its source GID exists and
 * is of the destination's family (issue 21). */
static inline bool
rnic_ah_valid(const struct rnic_device *dev, const struct rnic_ah_attr *ah)
{
	return ah->sgid_index < dev->n_gid &&
	       rnic_gid_is_ipv4(dev->gid[ah->sgid_index]) == rnic_gid_is_ipv4(ah->dgid);
}

/* The IP addresses, traffic class, TTL/hop limit and flow label of frames
 * sent along @p ah (rnic_ah_valid). */
static inline void
rnic_ah_to_l3(const struct rnic_device *dev, const struct rnic_ah_attr *ah,
	      struct rnic_l2l3 *l)
{
	const uint8_t *sgid = dev->gid[ah->sgid_index < dev->n_gid ? ah->sgid_index : 0];

	l->ipv6 = !rnic_gid_is_ipv4(ah->dgid);
	if (l->ipv6) {
		memcpy(l->src_ip6, sgid, 16);
		memcpy(l->dst_ip6, ah->dgid, 16);
		l->src_ip = l->dst_ip = 0;
		l->flow_label = ah->flow_label & 0xfffff;
	} else {
		l->src_ip = dev->ipv4;
		l->dst_ip = ah->dip;
		l->flow_label = 0;
	}
	l->tos = rnic_tos_ecn(dev, ah->tos, ah->not_ect);
	l->ttl = ah->ttl ? ah->ttl : RNIC_IPV4_TTL_DEFAULT;
}

/* True when the destination address of a received frame is the port's. */
static inline bool
rnic_dev_is_local(const struct rnic_device *dev, const struct rnic_l2l3 *l)
{
	if (likely(!l->ipv6))
		return l->dst_ip == dev->ipv4;
	for (uint8_t i = 0; i < dev->n_gid; i++)
		if (memcmp(dev->gid[i], l->dst_ip6, 16) == 0)
			return true;
	return false;
}

/* The MR in table slot rnic_key_index(@p key), still valid, or NULL. */
static inline struct rnic_mr *
rnic_mr_slot(struct rnic_device *dev, uint32_t key)
{
	uint32_t idx = rnic_key_index(key);
	struct rnic_mr *mr;

	if (idx >= dev->max_mrs)
		return NULL;
	mr = LOAD_ACQ(&dev->mrs[idx]);                 /* [MR-TABLE] */
	if (mr == NULL || !LOAD_ACQ(&mr->valid))       /* [MR-VALID] */
		return NULL;
	return mr;
}

/*
 * VirtToPhys (seed 7.1.3): look @p key up and check PD, access and bounds
 * of [va, va + len). @p access is the right needed (0 for a local read).
 * Any engine role may call it. Returns an enum rnic_memchk code; *out is
 * the MR on RNIC_MEMCHK_OK. Inline: it runs twice a message (the source's
 * L_Key on TX, the target's R_Key on RX), and the call alone cost
 * 1.011-1.016x by in-run A/B (doc/benchmarks.md).
 */
static inline int
rnic_mr_check(struct rnic_device *dev, struct rnic_pd *pd, uint32_t key, bool remote,
	      uint64_t va, uint64_t len, int access, struct rnic_mr **out)
{
	struct rnic_mr *mr = rnic_mr_slot(dev, key);
	uint64_t base;

	*out = NULL;
	if (mr == NULL)
		return RNIC_MEMCHK_KEY_ERR;
	if (remote) {
		if (mr->rkey != key || !LOAD_ACQ(&mr->rkey_valid))   /* [MR-RKEY] */
			return RNIC_MEMCHK_KEY_ERR;
	} else if (mr->lkey != key) {
		return RNIC_MEMCHK_KEY_ERR;
	}
	if (mr->pd != pd)
		return RNIC_MEMCHK_PD_ERR;
	if ((mr->access & access) != access)
		return RNIC_MEMCHK_FLAGS_ERR;
	/* remote: the IOVA; local SGEs were translated when posted */
	base = remote ? mr->iova : (uint64_t)(uintptr_t)mr->addr;
	/* Written so that no sum can overflow 64 bits. */
	if (va < base || len > mr->length || va - base > mr->length - len)
		return RNIC_MEMCHK_LENGTH_ERR;
	*out = mr;
	return RNIC_MEMCHK_OK;
}

#endif /* RNIC_DEV_H */
