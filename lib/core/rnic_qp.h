/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP context (seed CxtMgt). Its state is split by the thread that
 * writes it, one struct per writer:
 *   struct rnic_qp_app   the application's posting thread
 *   struct rnic_qp_req   the TX role (requester transmit, seed 3.4.1)
 *   struct rnic_qp_comp  the RX role's completer (requester receive, 3.4.5)
 *   struct rnic_qp_resp  the RX role's responder (seed 4.4)
 * and the control thread's fields at the top of struct rnic_qp, written
 * only while no role acts on them (before the QP is published, in a
 * transition that enters the state the data path reads them in, or with
 * the roles quiesced). Reset and destroy clear a role's struct only after
 * rnic_dev_quiesce. The fields another thread reads carry their tag
 * (rnic_sync.h; doc/design.md has the table).
 */
#ifndef RNIC_QP_H
#define RNIC_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "rnic_dcqcn.h"
#include "rnic_mq.h"
#include "rnic_qplist.h"
#include "rnic_sq.h"
#include "rnic_sync.h"
#include "rnic_types.h"
#include "rnic_wire.h"

/* Requester transmit: the TX role only. */
struct rnic_qp_req {
	uint32_t sq_fetch;       /* [SQ-FETCH] next WQE to start; W: TX, release;
				  * R: RX (flush), the application, acquire */
	uint32_t sq_db;          /* WQEs TX knows of (its last read of sq_pi) */
	uint32_t psn;            /* next PSN to assign */
	uint32_t cur_off;        /* bytes of the current WQE already sent */
	uint32_t cur_pkt;        /* packets of the current WQE already sent */
	uint8_t cur_active;      /* the WQE at sq_fetch is being segmented */
	uint8_t stopped;         /* bad WQE queued: send nothing more */
	uint8_t scheduled;       /* on the TX active list */
	uint8_t db_owed;         /* [DB] doorbells taken, db_seen not yet told */
	uint32_t rd_issued;      /* READ/atomic WQEs issued (telemetry: relaxed) */
	uint32_t ssn;            /* selective repeat: messages sent that take a
				  * receive WQE (SEND, WRITE with immediate) */
	/* DCQCN's reaction point (rnic_tx.c cc_*): the CNPs of comp.cnp_seen
	 * applied to the rate (here to fill the line without a hole) */
	uint32_t cnp_applied;
	struct rnic_mq mq;       /* the MultiQueue, producer's half */
	/* the TSC before which the next packet may not leave */
	uint64_t pace_tsc;
	/* rc_mbps 0: not started (no CNP yet). [PACE] cc.limited and
	 * cc.rc_mbps: W: TX; R: RX's resends (relaxed: a stale rate moves
	 * one resend's gap, nothing else) */
	struct rnic_dcqcn cc;
} __rte_cache_aligned;

/* Requester receive (the completer): the RX role only, but for sq_done.
 * Not padded to a cache line: resp, the RX role's too, follows it (the
 * member is aligned in struct rnic_qp). */
struct rnic_qp_comp {
	/* [SQ-DONE] WQEs completed; W: the QP's completer (the RX role for
	 * RC, the TX role for UC/UD, whose comp is otherwise unused), release;
	 * R: the application (room in the SQ), acquire. */
	uint32_t sq_done;
	uint32_t mq_head;        /* [MQ-HEAD] the MultiQueue's consumer index */
	uint32_t rd_done;        /* [RD-DONE] READ/atomic WQEs finished; W: RX,
				  * release; R: TX (fence, max_rd_atomic) */
	uint32_t rd_psn;         /* next READ response PSN expected */
	uint8_t in_read;         /* a multi-packet READ response is flowing */
	uint8_t rd_resumed;      /* the head READ was re-asked from rd_psn */
	uint8_t rnr_waiting;     /* an RNR NAK's wait runs on the wheel */
	uint8_t loss_armed;      /* a loss timer SET is in force; W: RX;
				  * R: TX ([MQ-ARM], mq_publish) */
	uint32_t retry;          /* the QP's one retry count (IBA 9.7.6.1.3) */
	uint32_t rnr_retry;      /* RNR retries left */
	uint32_t acked_seq;      /* bumps on every release: forward progress */
	uint32_t arm_seq;        /* acked_seq when the timer was last (re)armed */
	uint32_t alive_seq;      /* bumps on answers past a loss (peer alive) */
	uint32_t arm_alive;      /* alive_seq when the timer was last (re)armed */
	uint8_t retrying;        /* go-back-N started at progress retry_seq */
	uint8_t on_rexmit_list;  /* on the RX role's retransmission list */
	uint8_t rto_shift;       /* backoff: RTO doubled per early expiry */
	uint32_t cnp_seen;       /* [CNP] CNPs received for this QP; W: RX,
				  * release; R: TX (DCQCN), acquire */
	uint32_t retry_seq;      /* acked_seq when it started */
	uint32_t rexmit_next;    /* go-back-N cursor into the MultiQueue */
	uint32_t rexmit_end;
	/* The retransmission timeout from measured RTTs (RFC 6298's
	 * estimator, in MultiQueue clock ticks): a loss is resent after
	 * RTO, the IBA local ACK timeout still spends the retries. */
	uint32_t srtt8;          /* smoothed RTT x 8; 0: no sample yet */
	uint32_t rttvar4;        /* RTT variation x 4 */
	uint32_t rexmit_high;    /* MultiQueue index past everything resent on
				  * a timer: no RTT sample below it (Karn) */
	uint32_t nak_end;        /* below it (and from rexmit_high): resent on
				  * a NAK, timed from rexmit_stamp */
	uint32_t rexmit_stamp;   /* MultiQueue clock when the last go-back-N
				  * started (rnic_mq_stamp) */
	uint32_t rexmit_pace;    /* MultiQueue clock before which the next
				  * resend may not leave (DCQCN: rexmit_paced) */
	uint64_t stuck_tsc;      /* no progress since (the IBA timeout's start) */
	/* Selective repeat: holes of the head READ last asked again then
	 * (MultiQueue clock; resp.sr->rd_map has what arrived) */
	uint32_t rd_reask;
	uint32_t rd_ask_end;     /* the PSN past the last hole asked then */
	uint8_t rd_reasked;      /* rd_reask is set */
	uint8_t rexmit_ans;      /* selective repeat: this go-back resends
				  * only requests that wait for an answer */
	uint8_t ans_after;       /* selective repeat: answers since to
				  * requests sent after the last ask
				  * (sr_ask_lost) */
	/* Selective repeat: the responder executed every request up to this
	 * PSN (the latest ACK or answer says so; from RTS: sq_psn - 1) */
	uint32_t sr_exec;
	/* per-QP counters for telemetry (relaxed reads) */
	uint64_t n_rexmit;
	uint64_t n_timeout;
	uint64_t n_nak;
	uint64_t n_err;
};

/* The responder's record of one READ or atomic (seed 001 s3: duplicates
 * are answered from it). */
struct rnic_rd_res {
	uint32_t type : 2;       /* 0 free, RNIC_MQ_READ or RNIC_MQ_ATOMIC */
	uint32_t active : 1;     /* responses still to build */
	uint32_t replay : 1;     /* re-armed by a duplicate request */
	uint32_t psn : 24;       /* first PSN */
	uint32_t last_psn;
	uint32_t cur_psn;        /* progress of response generation */
	uint32_t msn;
	uint32_t rkey;
	uint32_t length;         /* READ: the bytes the responses carry */
	uint32_t orig_len;       /* READ: the original's length */
	uint32_t sent;           /* bytes of responses already built */
	uint64_t va;
	union {
		/* READ: the original's VA; a duplicate must lie within it and
		 * its length (and its PSNs within psn..last_psn), IBA
		 * 9.7.5.1.3 */
		uint64_t orig_va;
		uint64_t atomic_orig;    /* atomic: the saved result, replayed */
	};
};
_Static_assert(sizeof(struct rnic_rd_res) == 48, "a READ/atomic record in 48 bytes");

/*
 * Selective repeat, the responder's side (doc/reliability.md): request
 * packets that arrived ahead of the expected PSN and were placed where
 * their SRETH says, one bit each in a window of RNIC_SR_WIN PSNs from
 * base, and what each one needs to be executed in order once the gap
 * before it is filled (everything but its payload, already in place).
 */
#define RNIC_SR_WIN 256u
#define RNIC_SR_WORDS (RNIC_SR_WIN / 64)
struct rnic_sr_slot {
	uint8_t opcode;
	uint8_t ackreq;
	uint16_t len;            /* payload bytes */
	uint32_t imm_inv;        /* ImmDt (wire order) or IETH R_Key; an
				  * atomic: Compare's low half */
	uint32_t rkey;           /* RETH (WRITE First/Only, READ), AtomicETH */
	uint32_t rlen;           /* RETH; an atomic: Compare's high half */
	uint64_t va;
	uint64_t host;           /* a WRITE packet: where its payload went;
				  * an atomic: Swap (Add) */
};
#define RNIC_SR_REPLAYS 4u
struct rnic_sr_resp {
	uint64_t map[RNIC_SR_WORDS];   /* bit i (word i / 64): PSN base + i placed */
	uint32_t base;
	uint8_t dropped;         /* a request past base could not be placed */
	struct rnic_sr_slot slot[RNIC_SR_WIN];   /* by PSN % RNIC_SR_WIN */
	/* Responder: a part of a READ asked again, served beside the READs
	 * still streaming (which it does not cancel, as a go-back-N re-ask
	 * does) */
	struct rnic_rd_res replay[RNIC_SR_REPLAYS];
	/* Requester (the completer, the same RX role): bit i set when the
	 * head READ's response at comp.rd_psn + i is in place */
	uint64_t rd_map[RNIC_SR_WORDS];
};

/* A map of RNIC_SR_WIN bits (selective repeat: the responder's placed
 * PSNs, the requester's view of a SACK). */
static inline bool
rnic_sr_test(const uint64_t *map, uint32_t i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

static inline void
rnic_sr_set(uint64_t *map, uint32_t i)
{
	map[i / 64] |= 1ull << (i % 64);
}

static inline bool
rnic_sr_any(const uint64_t *map)
{
	uint64_t o = 0;

	for (unsigned int w = 0; w < RNIC_SR_WORDS; w++)
		o |= map[w];
	return o != 0;
}

/* Drop the first @p k bits (bit k becomes bit 0). */
static inline void
rnic_sr_shift(uint64_t *map, uint32_t k)
{
	uint32_t ws = k / 64, bs = k % 64;

	for (unsigned int w = 0; w < RNIC_SR_WORDS; w++) {
		uint64_t lo = w + ws < RNIC_SR_WORDS ? map[w + ws] : 0;
		uint64_t hi = w + ws + 1 < RNIC_SR_WORDS ? map[w + ws + 1] : 0;

		map[w] = bs ? (lo >> bs) | (hi << (64 - bs)) : lo;
	}
}

/* Responder: the RX role only. Ordered by size (no holes): it shares
 * the RX role's lines with comp. */
struct rnic_qp_resp {
	uint64_t nak_tsc;        /* when the sequence NAK was (last) sent */
	uint64_t cnp_tsc;        /* when this QP last sent a CNP (0: never) */
	/* WRITE (WriteAddrTable) */
	uint64_t wr_va;
	/* READ/atomic resources, max_dest_rd_atomic of them, round robin;
	 * the array is the control thread's (modify_qp), its entries RX's */
	struct rnic_rd_res *res;
	/* selective repeat (attr.sr): the control thread's allocation, its
	 * contents RX's; NULL when off */
	struct rnic_sr_resp *sr;
	/* [RQ-CI] receive WQEs consumed; W: RX, release; R: application. */
	uint32_t rq_ci;
	uint32_t epsn;           /* expected PSN (telemetry: relaxed) */
	uint32_t msn;
	uint32_t nak_drops;      /* requests dropped out of sequence since */
	/* the coalesced ACK/NAK (RespPktGen) */
	uint32_t ack_psn;
	uint32_t ack_msn;
	uint32_t wr_left;
	uint32_t wr_total;
	/* SEND scatter into the current receive WQE (RQWQEManager) */
	uint32_t rwqe_sge;
	uint32_t rwqe_sge_off;
	uint32_t rwqe_bytes;
	uint32_t res_n;
	uint32_t res_next;
	uint8_t nak_sent;        /* PSN sequence NAK sent for this ePSN */
	uint8_t cur_op;          /* opcode of the last packet of the message */
	uint8_t in_msg;          /* inside a multi-packet SEND/WRITE */
	uint8_t fatal;           /* a fatal NAK is queued: going to Error */
	uint8_t ack_pending;     /* an ACK/NAK is coalesced (ack_psn, ack_syn) */
	uint8_t on_ack_list;     /* on the RX role's ACK list */
	uint8_t ack_syn;
	uint8_t rwqe_active;     /* a receive WQE is being scattered into */
	uint8_t rd_active;       /* on the RX role's READ response list */
};   /* right after comp: both the RX role's */

/* The application's posting thread. */
struct rnic_qp_app {
	uint32_t sq_pi;          /* [SQ-PI] [DB] the doorbell record; W: app,
				  * seq_cst; R: TX (seq_cst), RX (flush) */
	uint32_t rq_pi;          /* [RQ-PI] W: app, release; R: RX, acquire */
	uint32_t db_rung;        /* [DB] doorbells rung (the app's own count) */
	/* [DB] doorbells the TX role took off the ring for this QP and has
	 * told the application of: it adds them (req.db_owed) when it finds
	 * the QP's SQ empty, or drops the QP. W: TX, seq_cst; R: the
	 * application, which reads it on every post. Here, not in struct
	 * rnic_qp_req: TX reads sq_pi then anyway, and the posts' reads
	 * would otherwise pull the line TX writes on every packet. Never
	 * reset: see rnic_post.c. */
	uint32_t db_seen;
	/* the completers' indices as last loaded: re-read only when the
	 * queue looks full, so posting does not pull their lines */
	uint32_t sq_done_seen;
	uint32_t rq_ci_seen;
	uint32_t ring_pi;        /* the first WQE of the last doorbell rung (app) */
} __rte_cache_aligned;

struct rnic_qp {
	/* Control thread. The fields a role reads per packet or per turn
	 * sit on three lines (rnic_qp_prefetch_ctl): this first one, the one
	 * that ends with the attributes the engine reads (attr's last
	 * fields), the state and the template's own fields, and the line
	 * the template's headers start (an IPv4 frame's copy reads that one
	 * alone). The rest (attr's first fields, l2, the RQ) is read at
	 * setup, by the verbs or on the slow paths. */
	struct rnic_device *dev;
	struct rnic_worker *w;   /* the worker that owns it (rnic_qpn_worker) */
	struct rnic_pd *pd;
	uint8_t *sq;
	struct rnic_cq *scq;
	struct rnic_cq *rcq;
	uint32_t qpn;
	uint32_t pmtu;           /* bytes */
	struct rnic_qp_attr attr;  /* written before the state store that
				    * enters the states which read them;
				    * attr.cap: the capacities, set at
				    * creation (0 SGEs taken as 1) */
	enum rnic_qp_type type;
	uint32_t index;          /* slot in dev->qps */
	/* [SQ-HINT] this life of the QP (creation to Reset, Reset to Reset):
	 * unique on the device, never 0; its send completions carry it.
	 * Control thread, the roles quiesced. */
	uint32_t life;
	uint32_t sq_stride;      /* bytes, a multiple of RNIC_WQE_UNIT */
	uint32_t sq_mask;        /* slots - 1 */
	uint16_t sq_ext_off;     /* a send WQE's struct rnic_wqe_ext, bytes in */
	/* [QP-STATE] enum rnic_qp_state. Changed only by CAS
	 * (rnic_qp_state_cas): the control thread (modify), TX (RTS -> SQE,
	 * UC/UD), any role (-> Error); read with acquire. */
	uint8_t state;
	/* [CQ-ERR] a CQ overflow event was raised: exchange by the
	 * completers; cleared by the control thread at Reset, quiesced */
	uint8_t cq_err_sent;
	uint8_t sq_sig_all;
	struct rnic_pkt_tmpl tmpl;  /* the outer headers prebuilt, with P_Key
				     * and QPN; its hdr starts a line */
	struct rnic_l2l3 l2;     /* cached outer headers to the peer */
	uint8_t *rq;
	uint32_t rq_stride;
	uint32_t rq_mask;
	struct rnic_qp *grave_next; /* dev->graveyard (rnic_dev_quiesce failed) */

	/* One cache line (or two) per writer: no thread writes a line
	 * another thread writes, but for the TX role's db_seen on the
	 * application's line (once a doorbell, where TX reads sq_pi). */
	struct rnic_qp_app app;
	struct rnic_qp_req req;
	struct rnic_qp_comp comp __rte_cache_aligned;
	struct rnic_qp_resp resp;
} __rte_cache_aligned;

/* The QP in 13 cache lines: the control thread's 6, then one per writer
 * (application 1, TX 2, RX 4: comp and resp), so that the engine's state
 * per QP stays within 2 KiB on the heap (doc/benchmarks.md, perf_state). */
_Static_assert(sizeof(struct rnic_qp_req) == 2 * RTE_CACHE_LINE_SIZE, "TX: two lines");
_Static_assert(sizeof(struct rnic_qp) <= 13 * RTE_CACHE_LINE_SIZE, "13 cache lines");

/* The control lines a role reads (rnic_qp_prefetch_ctl). */
#define RNIC_QP_LINE(f) (offsetof(struct rnic_qp, f) / RTE_CACHE_LINE_SIZE)
_Static_assert(RNIC_QP_LINE(pmtu) == 0 && RNIC_QP_LINE(qpn) == 0 && RNIC_QP_LINE(rcq) == 0,
	       "the first control line");
_Static_assert(RNIC_QP_LINE(attr.dest_qp_num) == RNIC_QP_LINE(state) &&
	       RNIC_QP_LINE(attr.sr) == RNIC_QP_LINE(state) &&
	       RNIC_QP_LINE(type) == RNIC_QP_LINE(state) &&
	       RNIC_QP_LINE(sq_mask) == RNIC_QP_LINE(state) &&
	       RNIC_QP_LINE(sq_sig_all) == RNIC_QP_LINE(state) &&
	       RNIC_QP_LINE(tmpl.ip_sum) == RNIC_QP_LINE(state),
	       "the attributes read per packet, the state and the template's fields: one line");
_Static_assert(offsetof(struct rnic_qp, tmpl.hdr) % RTE_CACHE_LINE_SIZE == 0 &&
	       RNIC_QP_LINE(tmpl.hdr) == RNIC_QP_LINE(state) + 1 && RNIC_TMPL_V4 <= RTE_CACHE_LINE_SIZE,
	       "an IPv4 template's headers: the next line, alone");

/* The three control lines a role's turn or a frame's handler reads. */
static inline void
rnic_qp_prefetch_ctl(const struct rnic_qp *qp)
{
	rte_prefetch0(qp);
	rte_prefetch0(&qp->state);
	rte_prefetch0(qp->tmpl.hdr);
}

/* [DB] The TX role (or the thread that polls for it) tells the
 * application of the doorbells it took for @p qp (rnic_post.c): it rings
 * again for its next post. False when it owed none. @p nofence: the
 * store needs no fence of its own: no lcore polls the device
 * ([POLLED]), so the application posts from this thread and program
 * order is enough (rnic_post.c ring_doorbell), or the caller issues one
 * before it reads sq_pi (rnic_tx.c tx_settle). */
static inline bool
rnic_qp_db_settle(struct rnic_qp *qp, bool nofence)
{
	if (qp->req.db_owed == 0)
		return false;
	if (nofence)
		STORE_REL(&qp->app.db_seen, qp->app.db_seen + qp->req.db_owed);
	else
		STORE_SC(&qp->app.db_seen, qp->app.db_seen + qp->req.db_owed);
	qp->req.db_owed = 0;
	return true;
}

static inline struct rnic_wqe *
rnic_sq_wqe(const struct rnic_qp *qp, uint32_t idx)
{
	return (struct rnic_wqe *)(qp->sq + (size_t)(idx & qp->sq_mask) * qp->sq_stride);
}

/* The atomic operands or UD destination of send WQE @p w. */
static inline struct rnic_wqe_ext *
rnic_wqe_ext(const struct rnic_qp *qp, const struct rnic_wqe *w)
{
	return (struct rnic_wqe_ext *)((uintptr_t)w + qp->sq_ext_off);
}

static inline struct rnic_rwqe *
rnic_rq_wqe(const struct rnic_qp *qp, uint32_t idx)
{
	return (struct rnic_rwqe *)(qp->rq + (size_t)(idx & qp->rq_mask) * qp->rq_stride);
}

static inline enum rnic_qp_state
rnic_qp_state_get(const struct rnic_qp *qp)
{
	return (enum rnic_qp_state)LOAD_ACQ(&qp->state);   /* [QP-STATE] */
}

/* [QP-STATE] Move @p qp from @p from to @p to; false (nothing changed)
 * when another thread changed the state first. */
static inline bool
rnic_qp_state_cas(struct rnic_qp *qp, enum rnic_qp_state from, enum rnic_qp_state to)
{
	uint8_t expect = (uint8_t)from;

	return __atomic_compare_exchange_n(&qp->state, &expect, (uint8_t)to, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* [QP-STATE] Control thread: Reset from any state (an RMW, so a role's
 * CAS to Error either happened before it or fails after it). */
static inline void
rnic_qp_state_reset(struct rnic_qp *qp)
{
	__atomic_exchange_n(&qp->state, (uint8_t)RNIC_QPS_RESET, __ATOMIC_ACQ_REL);
}

static inline enum rnic_transport
rnic_qp_transport(const struct rnic_qp *qp)
{
	return qp->type == RNIC_QPT_RC ? RNIC_TRANSPORT_RC :
	       qp->type == RNIC_QPT_UC ? RNIC_TRANSPORT_UC : RNIC_TRANSPORT_UD;
}

/*
 * A role's pass over its work list @p l: @p fn does a QP's work, adds
 * what it did to *work and returns true to keep the QP on the list; a QP
 * in Reset is dropped without a call ([QP-DEAD]), and the flag at
 * @p flag_off in the QP cleared. Returns the work done.
 */
struct rnic_worker;
typedef bool rnic_qp_list_fn(struct rnic_worker *wk, struct rnic_qp *qp, unsigned int *work);

static __rte_always_inline unsigned int
rnic_qp_list_walk(struct rnic_worker *wk, struct rnic_qp_list *l, size_t flag_off,
		  rnic_qp_list_fn *fn)
{
	unsigned int work = 0;

	for (uint32_t i = 0; i < l->n; ) {
		struct rnic_qp *qp = l->q[i];

		if (rnic_qp_state_get(qp) != RNIC_QPS_RESET && fn(wk, qp, &work)) {
			i++;
			continue;
		}
		rnic_qp_list_del(l, i, (uint8_t *)qp + flag_off);
	}
	return work;
}

/* Any thread: move to Error unless in Reset or Error already; the RX role
 * then flushes the queues (IBA 10.3.1). */
void rnic_qp_to_error(struct rnic_qp *qp);

/*
 * Any thread: ask the RX role to look at @p qp (flush it, complete a bad
 * WQE, arm its loss timer). Never lost: when the kick ring is full the RX
 * role is told to look at every QP instead ([KICK]).
 */
void rnic_qp_kick(struct rnic_qp *qp);

/* Any thread: the QP with number @p qpn, or NULL ([QP-TABLE]). */
struct rnic_qp *rnic_qp_lookup(struct rnic_device *dev, uint32_t qpn);

#endif /* RNIC_QP_H */
