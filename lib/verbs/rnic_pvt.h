/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal objects shared by the host interface (lib/verbs) and the engine
 * stages (lib/engine). Every field that two threads touch says who writes
 * it; the rest belong to one thread. The seed's modules map as:
 *   CxtMgt          -> struct rnic_qp fields + rnic_qp.c
 *   VirtToPhys      -> MR table + rnic_mr_check() (codes of seed 7.1.3)
 *   MultiQueue      -> struct rnic_mq (SWPB+RPB in PSN order; REB = the
 *                      READ WQE's scatter list, stable until completion)
 */
#ifndef RNIC_PVT_H
#define RNIC_PVT_H

#include <stdatomic.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rnic_verbs.h"
#include "rnic_wire.h"
#include "rnic_timer.h"

extern int rnic_logtype;
#define RNIC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rnic_logtype, "softrnic: " fmt "\n", ##__VA_ARGS__)

#define RNIC_TXQ_REQ  0   /* TX lcore: requests */
#define RNIC_TXQ_RESP 1   /* RX lcore: responses, ACKs, retransmissions */

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)

/* ------------------------------------------------------------------ */
/* Doorbell (seed 7.1.1): 64 bits                                      */
/*   [4:0] opcode  [5] F  [31:6] offset (16 B units)                   */
/*   [39:32] size (16 B units)  [63:40] QPN                            */
/* ------------------------------------------------------------------ */
static inline uint64_t
rnic_db_make(uint8_t opcode, bool fence, uint32_t off16, uint8_t size16, uint32_t qpn)
{
	return (uint64_t)(opcode & 0x1f) | ((uint64_t)fence << 5) |
	       ((uint64_t)(off16 & 0x3ffffff) << 6) | ((uint64_t)size16 << 32) |
	       ((uint64_t)(qpn & RNIC_PSN_MASK) << 40);
}
#define RNIC_DB_OPCODE(d) ((uint8_t)((d) & 0x1f))
#define RNIC_DB_FENCE(d)  ((bool)(((d) >> 5) & 1))
#define RNIC_DB_OFF16(d)  ((uint32_t)(((d) >> 6) & 0x3ffffff))
#define RNIC_DB_SIZE16(d) ((uint8_t)(((d) >> 32) & 0xff))
#define RNIC_DB_QPN(d)    ((uint32_t)((d) >> 40))

/* ------------------------------------------------------------------ */
/* Memory regions (VirtToPhys)                                         */
/* ------------------------------------------------------------------ */

/* Memory check results, seed 7.1.3. */
enum rnic_memchk {
	RNIC_MEMCHK_OK = 0,
	RNIC_MEMCHK_LENGTH_ERR = 1,
	RNIC_MEMCHK_KEY_ERR = 2,
	RNIC_MEMCHK_FLAGS_ERR = 3,
	RNIC_MEMCHK_PD_ERR = 4,
};

struct rnic_mr {
	struct rnic_pd *pd;
	uint8_t *addr;
	uint64_t length;
	uint32_t lkey;
	uint32_t rkey;
	int access;
	uint32_t index;
	/* Written by the RX lcore (SEND_WITH_INV) or the control thread. */
	uint8_t rkey_valid;
	uint8_t valid;
};

struct rnic_pd {
	struct rnic_device *dev;
	uint32_t handle;
	uint32_t refs;
	TAILQ_ENTRY(rnic_pd) next;    /* dev->pds: freed with the device */
};

struct rnic_ah_int {
	struct rnic_ah pub;
	struct rnic_pd *pd;
	TAILQ_ENTRY(rnic_ah_int) next; /* dev->ahs */
};

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */
struct rnic_cq {
	struct rnic_device *dev;
	struct rte_ring *ring;   /* of struct rnic_wc: MP enqueue, SC dequeue */
	uint32_t depth;
	uint8_t overflow;        /* written by lcores, read by the application */
	uint32_t refs;
	TAILQ_ENTRY(rnic_cq) next; /* dev->cqs */
};

/* ------------------------------------------------------------------ */
/* Send queue entry: one fixed-size slot per WQE, written by post_send  */
/* (application) before the doorbell, read by TX; the req_* fields are  */
/* written by TX and read by RX through the MultiQueue's release store. */
/* ------------------------------------------------------------------ */
struct rnic_wqe {
	uint64_t wr_id;
	uint8_t opcode;          /* enum rnic_wr_opcode */
	uint8_t flags;           /* enum rnic_send_flags */
	uint8_t num_sge;
	uint8_t status;          /* enum rnic_wc_status set by WQEParser */
	uint32_t total_len;
	union {
		rte_be32_t imm;
		uint32_t inv_rkey;
	};
	uint32_t rkey;
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint32_t ud_qpn;
	uint32_t ud_qkey;
	struct rnic_ah_attr ah;  /* UD destination */
	/* Requester bookkeeping, TX writes */
	uint32_t first_psn;
	uint32_t npsn;           /* PSNs the WQE consumes */
	/* Requester receive (RX) writes: READ scatter cursor (REB) */
	uint32_t rd_done;        /* bytes of READ response placed */
	uint32_t pad_;
	struct rnic_sge sge[];   /* or inline bytes */
} __rte_aligned(16);

#define RNIC_WQE_HDR_SIZE (sizeof(struct rnic_wqe))

/* ------------------------------------------------------------------ */
/* Receive queue entry                                                 */
/* ------------------------------------------------------------------ */
struct rnic_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t total_len;
	struct rnic_sge sge[];
};

/* ------------------------------------------------------------------ */
/* MultiQueue: per-QP list of unacknowledged request packets, in PSN    */
/* order (seed 3.4.3). TX appends at the tail, RX releases at the head; */
/* each index has one writer, published with a release store.          */
/* ------------------------------------------------------------------ */
enum rnic_mq_type {
	RNIC_MQ_SEND_WRITE,      /* SWPB */
	RNIC_MQ_READ,            /* RPB (the REB is the WQE's SGE list) */
	RNIC_MQ_ATOMIC,
	RNIC_MQ_BAD,             /* bad request kept for in-order completion */
};
#define RNIC_MQF_LAST 0x1        /* last packet of its WQE */

struct rnic_mq_ent {
	struct rte_mbuf *m;      /* one reference held by the list */
	uint32_t psn;            /* first PSN of the packet */
	uint32_t wqe_idx;        /* SQ index (free-running) */
	uint16_t npsn;           /* PSNs consumed (READ: responses) */
	uint8_t type;
	uint8_t flags;
};

struct rnic_mq {
	struct rnic_mq_ent *ents;
	uint32_t mask;
	uint32_t tail;           /* TX writes */
	uint32_t head;           /* RX writes */
};

/* ------------------------------------------------------------------ */
/* Responder's record of READ/atomic requests, for duplicates (seed 001)*/
/* ------------------------------------------------------------------ */
struct rnic_rd_res {
	uint8_t type;            /* 0 free, RNIC_MQ_READ or RNIC_MQ_ATOMIC */
	uint8_t opcode;
	uint32_t psn;            /* first PSN */
	uint32_t last_psn;
	uint64_t va;             /* READ: the bytes the responses carry */
	uint32_t rkey;
	uint32_t length;
	uint64_t atomic_orig;    /* saved result: duplicates replay it */
	/* READ: the original's VA and length; a duplicate must lie within
	 * them (and its PSNs within psn..last_psn), IBA 9.7.5.1.3 */
	uint64_t orig_va;
	uint32_t orig_len;
	/* progress of response generation */
	uint32_t sent;           /* bytes of responses already built */
	uint32_t cur_psn;
	uint32_t msn;
	uint8_t active;          /* responses still to build */
	uint8_t replay;          /* re-armed by a duplicate request */
};

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/* Requester transmit state: TX lcore only. */
struct rnic_req_tx {
	uint32_t sq_fetch;       /* next WQE to start */
	uint32_t sq_db;          /* WQEs announced by doorbells */
	uint32_t psn;            /* next PSN to assign */
	uint32_t cur_off;        /* bytes of the current WQE already sent */
	uint32_t cur_pkt;        /* packets of the current WQE already sent */
	uint8_t cur_active;      /* the WQE at sq_fetch is being segmented */
	uint8_t stopped;         /* bad WQE queued: send nothing more */
	uint8_t scheduled;       /* on the TX active list */
	uint8_t kick_pending;    /* an arm request for RX did not fit the ring */
	uint32_t rd_issued;      /* READ/atomic WQEs issued (RX reads) */
};

/* Requester receive state (completer): RX lcore only. */
struct rnic_req_rx {
	uint32_t rd_done;        /* READ/atomic WQEs finished (TX reads) */
	uint32_t rd_psn;         /* next READ response PSN expected */
	uint8_t in_read;         /* a multi-packet READ response is flowing */
	uint8_t rd_resumed;      /* the head READ was re-asked from rd_psn */
	uint32_t retry;          /* retries left (loss) */
	uint32_t rnr_retry;
	uint64_t deadline;       /* TSC of the loss timer, 0 = idle */
	uint8_t rnr_waiting;     /* an RNR NAK's wait runs on the wheel */
	uint8_t loss_armed;      /* a loss timer SET is in force */
	uint32_t acked_seq;      /* bumps on every release: forward progress */
	uint32_t arm_seq;        /* acked_seq when the timer was last (re)armed */
	uint32_t alive_seq;      /* bumps on answers past a loss (peer_alive) */
	uint32_t arm_alive;      /* alive_seq when the timer was last (re)armed */
	uint64_t n_rexmit;       /* per-QP counters for telemetry */
	uint64_t n_timeout;
	uint64_t n_nak;
	uint64_t n_err;
	uint8_t retrying;        /* go-back-N started at progress retry_seq */
	uint32_t retry_seq;      /* acked_seq when it started */
	uint32_t rexmit_next;    /* go-back-N cursor into the MultiQueue */
	uint32_t rexmit_end;
	uint8_t on_tmr_list;
};

/* Responder state: RX lcore only. */
struct rnic_resp {
	uint32_t epsn;
	uint32_t msn;
	uint8_t nak_sent;        /* PSN sequence NAK sent for this ePSN */
	uint8_t cur_op;          /* opcode of the last packet of a message in flight */
	uint8_t in_msg;          /* inside a multi-packet SEND/WRITE */
	uint8_t ack_pending;     /* a coalesced ACK/NAK waits (ack_list) */
	uint8_t ack_syn;
	uint32_t ack_psn;
	uint32_t ack_msn;
	/* WRITE (WriteAddrTable) */
	uint64_t wr_va;
	uint32_t wr_rkey;
	uint32_t wr_left;
	uint32_t wr_total;
	/* SEND scatter into the current receive WQE (RQWQEManager) */
	uint8_t rwqe_active;
	uint8_t rwqe_err;        /* message too long: drop the rest */
	uint32_t rwqe_sge;
	uint32_t rwqe_sge_off;
	uint32_t rwqe_bytes;
	/* READ/atomic resources, max_dest_rd_atomic of them, round robin */
	struct rnic_rd_res *res;
	uint32_t res_n;
	uint32_t res_next;
	uint8_t rd_active;       /* on the RX read-response list */
};

struct rnic_qp {
	struct rnic_device *dev;
	struct rnic_pd *pd;
	uint32_t qpn;
	uint32_t index;
	enum rnic_qp_type type;
	uint8_t state;           /* enum rnic_qp_state; control thread writes,
				  * lcores may move it to ERR (atomic) */
	uint8_t sq_sig_all;
	struct rnic_cq *scq;
	struct rnic_cq *rcq;
	struct rnic_qp_cap cap;

	/* Attributes (CxtMgt): control thread writes while the QP is idle
	 * for the fields the data path uses (RTR/RTS transitions). */
	struct rnic_qp_attr attr;
	uint32_t pmtu;           /* bytes */
	struct rnic_l2l3 l2;     /* cached outer headers to the peer */

	/* Send queue */
	uint8_t *sq;
	uint32_t sq_stride;      /* bytes, multiple of 16 */
	uint32_t sq_mask;        /* slots - 1 */
	uint32_t sq_pi;          /* application writes */
	uint32_t sq_done;        /* completer writes: RX (RC) or TX (UC/UD) */

	/* Receive queue */
	uint8_t *rq;
	uint32_t rq_stride;
	uint32_t rq_mask;
	uint32_t rq_pi;          /* application writes */
	uint32_t rq_ci;          /* RX writes */

	struct rnic_mq mq;
	struct rnic_req_tx req;
	struct rnic_req_rx comp;
	struct rnic_resp resp;
	uint8_t err_flushed_rq;  /* RX: receive queue flushed after Error */
	uint8_t err_flushed_sq;  /* completer: send queue flushed */
	uint8_t cq_err_sent;     /* CQ overflow event sent (once per QP life) */
};

static inline struct rnic_wqe *
rnic_sq_wqe(const struct rnic_qp *qp, uint32_t idx)
{
	return (struct rnic_wqe *)(qp->sq + (size_t)(idx & qp->sq_mask) * qp->sq_stride);
}

static inline struct rnic_rwqe *
rnic_rq_wqe(const struct rnic_qp *qp, uint32_t idx)
{
	return (struct rnic_rwqe *)(qp->rq + (size_t)(idx & qp->rq_mask) * qp->rq_stride);
}

static inline enum rnic_qp_state
rnic_qp_state_get(const struct rnic_qp *qp)
{
	return (enum rnic_qp_state)LOAD_ACQ(&qp->state);
}

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

/* A small software TX buffer: what tx_burst did not take is retried
 * before anything new is produced, so nothing accepted is lost. */
#define RNIC_TXBUF_SIZE 512
_Static_assert(2 * RNIC_MAX_BURST <= RNIC_TXBUF_SIZE,
	       "an RX burst must fit the response buffer twice (rnic_dev_poll_rx)");
struct rnic_txbuf {
	uint16_t port;
	uint16_t queue;
	uint32_t n;
	struct rte_mbuf *pkts[RNIC_TXBUF_SIZE];
};

#define RNIC_ARP_CACHE 64

struct rnic_lcore_stats {
	struct rnic_dev_stats s;
} __rte_cache_aligned;

struct rnic_device {
	struct rnic_dev_attr attr;
	uint16_t port_id;
	uint16_t nb_rxq;              /* RX queues the RX lcore polls */
	uint8_t mac[6];
	rte_be32_t ipv4;
	struct rte_mempool *pool;
	struct rte_ring *db_ring;     /* doorbells: app -> TX */
	struct rte_ring *kick_ring;   /* QP indices: TX -> RX (bad WQE, error) */
	struct rte_ring *ev_ring;     /* async events: lcores -> app */
	struct rte_ring *tmr_in;      /* timer commands: RX -> timer lcore */
	struct rte_ring *tmr_out;     /* timer expiries: timer lcore -> RX */
	struct rnic_timer_svc *tsvc;  /* TimerControl, timer lcore only */

	struct rnic_qp **qps;         /* by qpn & qp_mask */
	uint32_t qp_mask;
	uint32_t next_qpn;
	struct rnic_mr **mrs;
	uint32_t max_mrs;
	uint32_t mr_key_seq;
	uint32_t n_pds;
	uint32_t n_qps;               /* control thread: QPs that exist (<= max_qps) */
	uint32_t n_cqs;               /* control thread: CQs that exist (<= max_cqs) */
	/* Control thread: what rnic_dev_destroy frees besides QPs and MRs. */
	TAILQ_HEAD(, rnic_pd) pds;
	TAILQ_HEAD(, rnic_cq) cqs;
	TAILQ_HEAD(, rnic_ah_int) ahs;

	/* mbufs the MultiQueues hold (sent, not yet acknowledged): TX counts
	 * what it pushes (mq_held_tx), RX what it releases (mq_freed_rx), the
	 * control thread what reset/destroy release (mq_freed_ctl), each in
	 * its own counter. Requests stop at mq_limit so that the rest of the
	 * pool stays for responses and ACKs: two engines whose pools were all
	 * held by unacknowledged requests could never ACK each other. TX
	 * reads the other two only near the limit (mq_freed_seen). */
	uint64_t mq_limit;
	uint64_t mq_freed_ctl;
	/* A kick did not fit the kick ring: the RX role looks at every QP. */
	uint32_t kick_lost;

	/* TX lcore */
	struct rnic_qp **tx_active;   /* round-robin list of QPs with work */
	uint32_t tx_active_n;
	uint64_t mq_held_tx;
	uint64_t mq_freed_seen;       /* mq_freed_rx + mq_freed_ctl, last read */
	struct rnic_txbuf txb_req;
	/* RX lcore */
	uint64_t mq_freed_rx __rte_cache_aligned;
	struct rnic_qp **rd_active;   /* QPs with READ responses to build */
	uint32_t rd_active_n;
	struct rnic_qp **ack_list;    /* QPs with a coalesced ACK pending */
	uint32_t ack_n;
	struct rnic_qp **tmr_list;    /* QPs with a resend still to push out */
	uint32_t tmr_n;
	struct rnic_txbuf txb_resp;

	/* ARP cache (direct-mapped by IPv4): the RX lcore writes each entry
	 * under its sequence counter (odd while writing), any thread reads.
	 * arp_req_gen: a control thread stores arp_req_ip, then bumps the
	 * generation; the RX lcore broadcasts one ARP request per bump. */
	struct {
		uint32_t seq;
		rte_be32_t ip;
		uint8_t mac[6];
	} arp[RNIC_ARP_CACHE];
	rte_be32_t arp_req_ip;
	uint32_t arp_req_gen;
	uint32_t arp_req_sent;        /* RX lcore */

	struct rnic_lcore_stats st_tx, st_rx, st_timer;
	uint64_t iter[3];             /* loop counters per role (quiesce) */
	uint8_t polled;
	uint64_t tsc_hz;
	uint64_t tsc_ns_mult;         /* timer role: ns = tsc * mult >> 32 */
};

/* engine entry points used by verbs */
int rnic_mr_check(struct rnic_device *dev, struct rnic_pd *pd, uint32_t key, bool remote,
		  uint64_t va, uint64_t len, int access, struct rnic_mr **out);
int rnic_cq_push(struct rnic_cq *cq, const struct rnic_wc *wc);
void rnic_qp_to_error(struct rnic_qp *qp);
void rnic_qp_kick(struct rnic_qp *qp);
void rnic_dev_quiesce(struct rnic_device *dev);
struct rnic_qp *rnic_qp_lookup(struct rnic_device *dev, uint32_t qpn);
uint32_t rnic_txbuf_flush(struct rnic_txbuf *b, struct rnic_dev_stats *st);
void rnic_qp_build_l2(struct rnic_qp *qp);

#endif /* RNIC_PVT_H */
