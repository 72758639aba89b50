/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The types of softrnic's host interface: attributes, work requests, work
 * completions, counters and the limits they obey. Names follow libibverbs
 * with the rnic_ prefix. The functions are declared by the layer that
 * implements them: rnic_verbs.h (control path: device, PD, MR, CQ, QP, AH,
 * post_send/post_recv, poll_cq) and rnic_engine.h (the data path's poll
 * entry points, ARP, telemetry).
 *
 * Threads: control calls (create/modify/destroy) come from one application
 * thread at a time. post_send, post_recv and poll_cq on one QP/CQ come from
 * one application thread. The engine runs on lcores that call
 * rnic_dev_poll_tx / rnic_dev_poll_rx / rnic_dev_poll_timer (or all three:
 * run-to-completion).
 *
 * Conventions: constructors return NULL and set rte_errno; other calls
 * return 0 or a negative errno; burst calls return a count.
 */
#ifndef RNIC_TYPES_H
#define RNIC_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rnic_dcqcn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rnic_device;
struct rnic_pd;
struct rnic_mr;
struct rnic_cq;
struct rnic_qp;

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

/** Largest rnic_dev_attr.burst. The RX role takes a burst in only while
 *  its response buffer has room for two answers per request (a READ's first
 *  response and an ACK), and that buffer holds 512 frames. */
#define RNIC_MAX_BURST 256
/** Largest CQ depth. */
#define RNIC_MAX_CQE (1u << 22)
/** Largest rnic_dev_attr.max_qps. */
#define RNIC_MAX_QPS (1u << 20)

/** A device is one DPDK port with a local MAC and IPv4 address; PD, MR,
 *  CQ, QP and AH objects hang off it. Creation parameters: zero fields
 *  take the documented default. */
/* Default of rnic_dev_attr.max_inflight (doc/reliability.md: the cost of
 * a go-back-N is the window it goes back over). */
#define RNIC_INFLIGHT_DEFAULT 64u
#define RNIC_INFLIGHT_MAX 512u    /* RNIC_MQ_RC_SLOTS */
#define RNIC_CNP_INTERVAL_US_DEFAULT 50u
#define RNIC_CNP_INTERVAL_US_MAX 1000000u
#define RNIC_INFLIGHT_MIN 16u     /* RNIC_ACKREQ_EVERY: a full window of
				   * SEND/WRITE packets asks for an ACK */

/** GIDs per port: the IPv4 address and up to RNIC_IPV6_MAX IPv6 ones. */
#define RNIC_GID_TBL_LEN 16
#define RNIC_IPV6_MAX (RNIC_GID_TBL_LEN - 1)

/** True when @p gid stands for an IPv4 address: IPv4-mapped
 *  (::ffff:a.b.c.d, as verbs write RoCEv2 IPv4 GIDs) or with a zero
 *  prefix (an AH that sets only @c dip). */
static inline bool
rnic_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t zero[10];

	return memcmp(gid, zero, sizeof(zero)) == 0 &&
	       ((gid[10] == 0xff && gid[11] == 0xff) || (gid[10] == 0 && gid[11] == 0));
}

struct rnic_dev_attr {
	uint16_t port_id;        /**< DPDK port, already probed */
	uint8_t mac[6];          /**< all zero: the port's own MAC */
	rte_be32_t ipv4;         /**< local IPv4 address (GID ::ffff:a.b.c.d) */
	uint32_t max_qps;        /**< default 1024, at most 1 << 20; create_qp
				  *   beyond it fails with ENOSPC */
	uint32_t max_mrs;        /**< default 1024 */
	uint32_t max_cqs;        /**< default 256 (create_cq beyond: ENOSPC) */
	uint32_t mbufs;          /**< packet/retransmission mbufs, default 16384,
				  *   at least 2; unacknowledged requests may
				  *   hold 7/8 of them, the rest is kept for
				  *   responses and ACKs */
	uint32_t mbuf_size;      /**< data room, default 4096 + headroom + headers */
	uint32_t ring_size;      /**< doorbell and event rings, default 4096 */
	uint16_t burst;          /**< RX/TX burst, default 32, at most
				      RNIC_MAX_BURST */
	uint16_t mtu;            /**< active RoCE MTU (256..4096), bounds UD
				  *   messages; default 4096 */
	uint16_t rxq_desc;       /**< default 1024 */
	uint16_t txq_desc;       /**< default 1024 */
	bool no_port_setup;      /**< the caller configured and started the port */
	uint8_t queues;          /**< TX (and RX) queues per worker: 0 = two
				  *   when the port has them, 1 = one shared
				  *   queue (the worker's TX and RX roles then
				  *   on one lcore; for a peer such as testpmd
				  *   with one queue on net_memif) */
	uint32_t max_inflight;   /**< RC: requests outstanding per QP (MultiQueue
				  *   entries: a packet of a SEND/WRITE, a READ
				  *   or atomic request), default
				  *   RNIC_INFLIGHT_DEFAULT, 16..512, at most the QP's
				  *   window (four per send queue entry, 64..512);
				  *   a go-back-N resends at most this many */
	/* ECN (issue 18; RoCEv2 annex A17.9): */
	bool no_ecn;             /**< send Not-ECT; default: every data packet
				  *   ECT(0) unless its traffic class sets ECN */
	uint8_t cnp_dscp;        /**< DSCP of the CNPs this device sends
				  *   (0..63; CNPs are Not-ECT) */
	bool no_dcqcn;           /**< ignore CNPs (no reaction point) */
	/** DCQCN's parameters (rnic_dcqcn.h, NVIDIA's names); all zero: the
	 *  defaults on a 100 Gb/s line (rnic_dcqcn_defaults) */
	struct rnic_dcqcn_params dcqcn;
	uint32_t cnp_interval_us; /**< at most one CNP per QP per this many us
				  *   (the notification point's
				  *   min_time_between_cnps), default 50 */
	uint16_t vlan;           /**< the port's 802.1Q VLAN ID, 1..4094: receive
				  *   takes only frames tagged with it; 0: only
				  *   untagged and priority-tagged (VID 0)
				  *   frames. Others count in drop_vlan. */
	/** The port's IPv6 addresses (issue 21): its GID table is the IPv4
	 *  address as an IPv4-mapped GID (::ffff:a.b.c.d, index 0) when
	 *  @c ipv4 is set, then these in order. Neither multicast, nor ::,
	 *  nor IPv4-mapped; no duplicates (EINVAL). */
	uint8_t ipv6[RNIC_IPV6_MAX][16];
	uint8_t n_ipv6;
	uint16_t workers;        /**< engine workers (default 1, at most 64);
				  *   each owns the QPs whose number maps to
				  *   it, its own TX queues and its share of
				  *   the RX queues (rnic_worker_poll) */
};

/** Engine roles, for rnic_dev_poll() and the lcore mapping. */
#define RNIC_ROLE_TX    0x1
#define RNIC_ROLE_RX    0x2
#define RNIC_ROLE_TIMER 0x4
#define RNIC_ROLE_ALL   0x7

/** Per-device counters; names come from RNIC_DEV_COUNTERS. rx_fast and
 *  tx_fast count the packets the fast paths took (RC WRITE, received
 *  and sent; doc/design.md), of rx_pkts and tx_pkts. */
#define RNIC_DEV_COUNTERS(_) \
	_(tx_pkts) _(tx_bytes) _(rx_pkts) _(rx_bytes) _(tx_retransmits) \
	_(read_resumes) _(tx_full) _(tx_nombuf) _(doorbells) _(acks_sent) \
	_(naks_sent) _(rnr_naks_sent) _(acks_rcvd) _(naks_rcvd) _(rnr_naks_rcvd) \
	_(read_resp_sent) _(atomic_resp_sent) _(dup_requests) \
	_(drop_not_roce) _(drop_malformed) _(drop_icrc) _(drop_no_qp) \
	_(drop_qp_state) _(drop_pkey) _(drop_qkey) _(drop_opcode) \
	_(drop_psn_invalid) _(drop_ghost_resp) _(drop_bad_resp) \
	_(drop_uc_gap) _(drop_wrong_dst) _(arp_replies) _(cq_overflow) \
	_(timer_expired) _(retry_exceeded) _(rnr_retry_exceeded) \
	_(completions) _(flushed) _(cnp_rcvd) _(drop_no_recv) \
	_(kick_overflows) _(event_drops) _(arp_ignored) _(drop_dup_rd_atomic) \
	_(drop_ud_mtu) _(rx_steered) _(drop_steer) _(rto_expired) _(naks_repeated) \
	_(ecn_ce_rcvd) _(cnp_sent) _(cnp_rate_cuts) _(rexmit_paced) _(drop_vlan) \
	_(rx_ipv6) _(nd_replies) _(nd_ignored) _(sr_placed) _(sr_dup) _(sr_sacks_sent) \
	_(sr_sacks_rcvd) _(sr_resent) _(drop_sr) _(drop_sr_off) _(sr_early_answers) _(sr_lost_resends) \
	_(rx_fast) _(tx_fast)

struct rnic_dev_stats {
#define RNIC_STAT_FIELD(n) uint64_t n;
	RNIC_DEV_COUNTERS(RNIC_STAT_FIELD)
#undef RNIC_STAT_FIELD
	uint64_t drop_reason[24];  /**< by enum rnic_pkt_err (parse drops) */
};

/** The objects that exist on a device (rnic_dev_objs_get: leak checks). */
struct rnic_dev_objs {
	uint32_t pds, mrs, cqs, qps, ahs;
};

extern const char *const rnic_dev_stat_names[];
extern const unsigned int rnic_dev_stat_count;

/* ------------------------------------------------------------------ */
/* PD, MR                                                              */
/* ------------------------------------------------------------------ */

/** Mirrors ibv_access_flags (the same values). */
enum rnic_access_flags {
	RNIC_ACCESS_LOCAL_WRITE = 0x1,
	RNIC_ACCESS_REMOTE_WRITE = 0x2,
	RNIC_ACCESS_REMOTE_READ = 0x4,
	RNIC_ACCESS_REMOTE_ATOMIC = 0x8,
};
#define RNIC_ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
			 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

/** Mirrors ibv_wc_status. */
enum rnic_wc_status {
	RNIC_WC_SUCCESS,
	RNIC_WC_LOC_LEN_ERR,
	RNIC_WC_LOC_QP_OP_ERR,
	RNIC_WC_LOC_EEC_OP_ERR,
	RNIC_WC_LOC_PROT_ERR,
	RNIC_WC_WR_FLUSH_ERR,
	RNIC_WC_MW_BIND_ERR,
	RNIC_WC_BAD_RESP_ERR,
	RNIC_WC_LOC_ACCESS_ERR,
	RNIC_WC_REM_INV_REQ_ERR,
	RNIC_WC_REM_ACCESS_ERR,
	RNIC_WC_REM_OP_ERR,
	RNIC_WC_RETRY_EXC_ERR,
	RNIC_WC_RNR_RETRY_EXC_ERR,
	RNIC_WC_LOC_RDD_VIOL_ERR,
	RNIC_WC_REM_INV_RD_REQ_ERR,
	RNIC_WC_REM_ABORT_ERR,
	RNIC_WC_INV_EECN_ERR,
	RNIC_WC_INV_EEC_STATE_ERR,
	RNIC_WC_FATAL_ERR,
	RNIC_WC_RESP_TIMEOUT_ERR,
	RNIC_WC_GENERAL_ERR,
};

/** Mirrors ibv_wc_opcode. */
enum rnic_wc_opcode {
	RNIC_WC_SEND,
	RNIC_WC_RDMA_WRITE,
	RNIC_WC_RDMA_READ,
	RNIC_WC_COMP_SWAP,
	RNIC_WC_FETCH_ADD,
	RNIC_WC_RECV = 128,
	RNIC_WC_RECV_RDMA_WITH_IMM,
};

enum rnic_wc_flags {
	RNIC_WC_GRH = 1 << 0,            /**< UD: the GRH area holds the sender's
					  * network header (IPv4 in its last 20 bytes) */
	RNIC_WC_WITH_IMM = 1 << 1,
	RNIC_WC_WITH_INV = 1 << 3,
};

/** A work completion (32 bytes). */
struct rnic_wc {
	uint64_t wr_id;
	uint8_t status;          /**< enum rnic_wc_status */
	uint8_t opcode;          /**< enum rnic_wc_opcode */
	uint8_t wc_flags;        /**< enum rnic_wc_flags */
	uint8_t sl;
	uint32_t qp_num;
	uint32_t byte_len;
	union {
		rte_be32_t imm_data;       /**< wire order, as libibverbs */
		uint32_t invalidated_rkey;
	};
	uint32_t src_qp;         /**< UD */
	uint32_t vendor_err;
};

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

enum rnic_qp_type {
	RNIC_QPT_RC = 2,
	RNIC_QPT_UC = 3,
	RNIC_QPT_UD = 4,
};

/** Mirrors ibv_qp_state. */
enum rnic_qp_state {
	RNIC_QPS_RESET,
	RNIC_QPS_INIT,
	RNIC_QPS_RTR,
	RNIC_QPS_RTS,
	RNIC_QPS_SQD,
	RNIC_QPS_SQE,
	RNIC_QPS_ERR,
};

enum rnic_mtu {
	RNIC_MTU_256 = 1,
	RNIC_MTU_512 = 2,
	RNIC_MTU_1024 = 3,
	RNIC_MTU_2048 = 4,
	RNIC_MTU_4096 = 5,
};

static inline uint32_t rnic_mtu_bytes(enum rnic_mtu m)
{
	return (m >= RNIC_MTU_256 && m <= RNIC_MTU_4096) ? 128u << m : 0;
}

struct rnic_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct rnic_qp_init_attr {
	struct rnic_cq *send_cq;
	struct rnic_cq *recv_cq;
	struct rnic_qp_cap cap;
	enum rnic_qp_type qp_type;
	bool sq_sig_all;
	uint32_t qp_num;         /**< 0: allocate; else request this QPN */
};

/** Remote address of a connected QP or of a UD address handle. The
 *  destination is a GID: IPv4 when rnic_gid_is_ipv4() (set @c dip alone,
 *  or the IPv4-mapped GID), else IPv6. The source is the port's GID at
 *  @c sgid_index, of the same family (else EINVAL, or for a UD work
 *  request LOC_QP_OP_ERR). 32 bytes: send queue entries carry one. */
struct rnic_ah_attr {
	union {
		uint8_t dgid[16];
		struct {
			uint8_t dgid_v4_prefix[12];
			rte_be32_t dip;  /**< IPv4 destination */
		};
	};
	uint8_t dmac[6];
	uint16_t vlan_tci;
	uint8_t tos;             /**< DSCP/ECN (IPv6: the traffic class) */
	uint8_t ttl;             /**< IPv4 TTL or IPv6 hop limit; 0: 64 */
	bool vlan;
	uint8_t sgid_index;      /**< the source: the port's GID table */
	uint32_t flow_label : 20; /**< IPv6 */
	uint32_t not_ect : 1;    /**< send Not-ECT even where the device marks
				  *   ECT(0) (an ECN field of 0 in @c tos
				  *   otherwise means the device's choice) */
	uint32_t : 11;
};

/** Mirrors ibv_qp_attr_mask. */
enum rnic_qp_attr_mask {
	RNIC_QP_STATE = 1 << 0,
	RNIC_QP_CUR_STATE = 1 << 1,
	RNIC_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	RNIC_QP_ACCESS_FLAGS = 1 << 3,
	RNIC_QP_PKEY_INDEX = 1 << 4,
	RNIC_QP_PORT = 1 << 5,
	RNIC_QP_QKEY = 1 << 6,
	RNIC_QP_AV = 1 << 7,
	RNIC_QP_PATH_MTU = 1 << 8,
	RNIC_QP_TIMEOUT = 1 << 9,
	RNIC_QP_RETRY_CNT = 1 << 10,
	RNIC_QP_RNR_RETRY = 1 << 11,
	RNIC_QP_RQ_PSN = 1 << 12,
	RNIC_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	RNIC_QP_ALT_PATH = 1 << 14,
	RNIC_QP_MIN_RNR_TIMER = 1 << 15,
	RNIC_QP_SQ_PSN = 1 << 16,
	RNIC_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	RNIC_QP_PATH_MIG_STATE = 1 << 18,
	RNIC_QP_CAP = 1 << 19,
	RNIC_QP_DEST_QPN = 1 << 20,
	/** softrnic extension: attr.sr, selective repeat (RC, Init to RTR) */
	RNIC_QP_SR = 1 << 24,
};

struct rnic_qp_attr {
	enum rnic_qp_state qp_state;
	enum rnic_qp_state cur_qp_state;
	enum rnic_mtu path_mtu;
	uint32_t rq_psn;
	uint32_t sq_psn;
	struct rnic_qp_cap cap;
	struct rnic_ah_attr ah_attr;
	/* The fields the engine reads per packet, last and together: struct
	 * rnic_qp keeps them on one cache line with its other hot fields. */
	uint32_t dest_qp_num;
	int qp_access_flags;
	uint32_t qkey;
	uint16_t pkey_index;     /**< only index 0 (P_Key 0xFFFF) or a set pkey */
	uint16_t pkey;           /**< softrnic extension: the P_Key itself */
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;       /**< 0..RNIC_RETRY_MAX */
	uint8_t rnr_retry;       /**< 0..RNIC_RETRY_MAX; RNIC_RNR_RETRY_INFINITE */
	/** softrnic extension (RNIC_QP_SR): selective repeat with a peer QP
	 *  that has it too; 0 (the default) is standard RoCE go-back-N.
	 *  doc/reliability.md. */
	uint8_t sr;
};

/** Largest timeout and min_rnr_timer: 5-bit codes (IBA 9.7.6.1.3, table 45). */
#define RNIC_TIMER_CODE_MAX 31
/** Largest max_rd_atomic / max_dest_rd_atomic. */
#define RNIC_MAX_RD_ATOMIC 128
/** Largest retry_cnt / rnr_retry (3-bit fields, IBA 9.7.6.1.3). */
#define RNIC_RETRY_MAX 7
/** rnr_retry 7: retry forever (IBA 9.7.5.2.8). */
#define RNIC_RNR_RETRY_INFINITE 7

/* ------------------------------------------------------------------ */
/* Work requests                                                       */
/* ------------------------------------------------------------------ */

struct rnic_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** Mirrors ibv_wr_opcode. */
enum rnic_wr_opcode {
	RNIC_WR_RDMA_WRITE,
	RNIC_WR_RDMA_WRITE_WITH_IMM,
	RNIC_WR_SEND,
	RNIC_WR_SEND_WITH_IMM,
	RNIC_WR_RDMA_READ,
	RNIC_WR_ATOMIC_CMP_AND_SWP,
	RNIC_WR_ATOMIC_FETCH_AND_ADD,
	RNIC_WR_LOCAL_INV,       /**< not supported: completes LOC_QP_OP_ERR */
	RNIC_WR_BIND_MW,         /**< not supported */
	RNIC_WR_SEND_WITH_INV,
	RNIC_WR_MAX,
};

/** Mirrors ibv_send_flags (the same values). */
enum rnic_send_flags {
	RNIC_SEND_FENCE = 0x1,
	RNIC_SEND_SIGNALED = 0x2,
	RNIC_SEND_SOLICITED = 0x4,
	RNIC_SEND_INLINE = 0x8,
};

/** UD address handle. */
struct rnic_ah {
	struct rnic_ah_attr attr;
};

struct rnic_send_wr {
	uint64_t wr_id;
	struct rnic_send_wr *next;
	struct rnic_sge *sg_list;
	int num_sge;
	enum rnic_wr_opcode opcode;
	unsigned int send_flags;
	union {
		rte_be32_t imm_data;
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct rnic_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct rnic_recv_wr {
	uint64_t wr_id;
	struct rnic_recv_wr *next;
	struct rnic_sge *sg_list;
	int num_sge;
};

/** Asynchronous events (CQ overflow, QP fatal), polled by the application. */
enum rnic_event_type {
	RNIC_EVENT_QP_FATAL,
	RNIC_EVENT_CQ_ERR,
	RNIC_EVENT_SQ_DRAINED,
	RNIC_EVENT_QP_REQ_ERR,
	RNIC_EVENT_QP_ACCESS_ERR,
};

struct rnic_async_event {
	enum rnic_event_type type;
	uint32_t qp_num;
};

/* Helpers on these types (implemented by the core layer). */

const char *rnic_wc_status_str(enum rnic_wc_status s);

const char *rnic_qp_state_str(enum rnic_qp_state s);

/** How many PDs, MRs, CQs, QPs and AHs exist on @p dev now (any thread:
 *  telemetry, leak checks). Zero for an attached device (the daemon's
 *  count is its own). */
void rnic_dev_objs_get(const struct rnic_device *dev, struct rnic_dev_objs *o);

/** Sum the per-lcore counters into @p st. */
void rnic_dev_stats_get(const struct rnic_device *dev, struct rnic_dev_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_TYPES_H */
