/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * softrnic's control path (the "verbs" layer): devices, PDs, MRs, CQs,
 * QPs and their state machine, AHs, and the application's side of the
 * data path: post_send / post_recv (WQEs and doorbells) and poll_cq. It
 * never runs an engine stage: the lcores do, through rnic_engine.h.
 * Types, threads and conventions: rnic_types.h.
 */
#ifndef RNIC_VERBS_H
#define RNIC_VERBS_H

#include "rnic_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create a device on a DPDK port: configures the port with one RX queue and
 * two TX queues (one for the TX lcore, one for the RX lcore's responses)
 * and starts it.
 * @return the device, or NULL with rte_errno EINVAL (bad attribute),
 *         ENOMEM, ENODEV (no such port) or the port's setup error.
 */
struct rnic_device *rnic_dev_create(const struct rnic_dev_attr *attr);

/** Stop the port and free everything: QPs, MRs, AHs, CQs and PDs still
 * allocated are freed with it (their handles are then invalid). */
void rnic_dev_destroy(struct rnic_device *dev);

/**
 * Tell the device that lcores now poll it (so control calls that must
 * quiesce the data path wait for them: destroy, Reset, dereg) or that
 * nobody does (the application polls by hand, as unit tests do: such
 * calls then take the QP off the roles' work lists themselves, since the
 * caller is the only poller). Without lcores, the thread that polls is
 * the one that posts: a post then schedules its QP for the TX role
 * itself, without the doorbell ring or its fences. Call it while no
 * lcore runs the device's roles.
 */
void rnic_dev_set_polled(struct rnic_device *dev, bool polled);

/**
 * Create two ethdev ports joined back to back by rte_rings (what one sends
 * the other receives), each with @p nq (at most 8) RX queues and 2 * @p nq TX queues:
 * TX queues 2k and 2k+1 of one port feed RX queue k of the other, so
 * worker k of a device with @p nq workers on one port talks to worker k on
 * the other. The in-process link of the loopback demo and the engine-only
 * benchmark. @return 0 with the port ids, or a negative errno.
 */
int rnic_port_ring_pair_n(const char *name_a, const char *name_b, unsigned int ring_size,
			  unsigned int nq, uint16_t *port_a, uint16_t *port_b);

/** rnic_port_ring_pair_n with one queue pair (one worker). */
int rnic_port_ring_pair(const char *name_a, const char *name_b, unsigned int ring_size,
			uint16_t *port_a, uint16_t *port_b);

/**
 * Wait until the port's link is up (a physical NIC takes seconds after
 * the device starts it; a memif port until its peer connects), then log
 * it. Control thread. @return 0, -ETIMEDOUT or -EINVAL.
 */
int rnic_dev_link_wait(struct rnic_device *dev, unsigned int timeout_ms);

/** The device's engine workers (rnic_dev_attr.workers). */
unsigned int rnic_dev_workers(const struct rnic_device *dev);

/**
 * True when the port has a single TX queue (for example net_pcap with one
 * tx_pcap): rnic_dev_create then configures one TX queue and the TX
 * lcore's requests and the RX lcore's responses share it. DPDK TX queues
 * are not thread safe, so the TX and RX roles of such a device must be
 * polled by the same thread.
 */
bool rnic_dev_shared_txq(const struct rnic_device *dev);

/** The local MAC and IPv4 address. */
void rnic_dev_get_addr(const struct rnic_device *dev, uint8_t mac[6], rte_be32_t *ipv4);

/** Entries in the port's GID table (rnic_dev_attr.ipv6). */
unsigned int rnic_dev_gid_count(const struct rnic_device *dev);

/** GID @p index of the port's table (RoCEv2: an IPv4-mapped or an IPv6
 *  address). @return 0, or -EINVAL past the table's end. */
int rnic_dev_query_gid(const struct rnic_device *dev, unsigned int index, uint8_t gid[16]);

/** The attributes the device runs with: what rnic_dev_create was given,
 *  defaults filled in and the MTU as the port allows it. */
void rnic_dev_get_attr(const struct rnic_device *dev, struct rnic_dev_attr *attr);

struct rnic_pd *rnic_alloc_pd(struct rnic_device *dev);

int rnic_dealloc_pd(struct rnic_pd *pd);

/**
 * Register memory the engine may read and write. @p addr is the VA the
 * peer uses in RETH/AtomicETH (zero-based MRs are not supported).
 * @return the MR, or NULL with rte_errno EINVAL (bad flags, length 0, or
 *         REMOTE_WRITE/ATOMIC without LOCAL_WRITE, as IBA requires) or
 *         ENOSPC (MR table full).
 */
struct rnic_mr *rnic_reg_mr(struct rnic_pd *pd, void *addr, uint64_t length, int access);
/**
 * As rnic_reg_mr, with the MR's first byte named @p iova (verbs' IOVA) by
 * peers (R_Key accesses) and by SGEs (L_Key): [iova, iova + length) maps
 * onto [addr, addr + length). rnic_reg_mr is this with iova = addr.
 */
struct rnic_mr *rnic_reg_mr_iova(struct rnic_pd *pd, void *addr, uint64_t length, uint64_t iova,
				 int access);

int rnic_dereg_mr(struct rnic_mr *mr);

uint32_t rnic_mr_lkey(const struct rnic_mr *mr);

uint32_t rnic_mr_rkey(const struct rnic_mr *mr);

/**
 * @param cqe depth; completions beyond it overflow: the QP that overflowed
 *            goes to Error, one RNIC_EVENT_CQ_ERR names it (once per QP
 *            until it is reset) and the CQ is marked (rnic_cq_overflowed).
 *            Completions lost count in cq_overflow.
 * @return the CQ, or NULL with rte_errno EINVAL, ENOSPC (max_cqs CQs
 *         exist) or ENOMEM.
 */
struct rnic_cq *rnic_create_cq(struct rnic_device *dev, uint32_t cqe);

int rnic_destroy_cq(struct rnic_cq *cq);

/** @return number of completions written to @p wc (0..n). */
int rnic_poll_cq(struct rnic_cq *cq, int n, struct rnic_wc *wc);

bool rnic_cq_overflowed(const struct rnic_cq *cq);

/** Completions waiting in @p cq (any thread; a snapshot: the engine may
 *  add more at once). What completion events (ibv_req_notify_cq) test. */
unsigned int rnic_cq_count(const struct rnic_cq *cq);

/**
 * @return the QP in Reset, or NULL with rte_errno EINVAL (bad type, caps
 *         over the limits), EEXIST (QPN taken, or its table slot: the
 *         table is indexed by the QPN's low bits) or ENOSPC (max_qps QPs
 *         exist, or no free QPN).
 */
struct rnic_qp *rnic_create_qp(struct rnic_pd *pd, struct rnic_qp_init_attr *attr);

int rnic_destroy_qp(struct rnic_qp *qp);

uint32_t rnic_qp_num(const struct rnic_qp *qp);

/** DCQCN (issue 18): the rate @p qp is paced to after CNPs, Mb/s; 0 while
 *  it is not paced (no CNP yet, or back at the line rate). */
uint32_t rnic_qp_cc_rate_mbps(const struct rnic_qp *qp);

/** The worker that runs @p qp's data path (its QPN modulo the workers):
 *  rnic_worker_poll(dev, rnic_qp_worker(qp), ...) serves it. */
unsigned int rnic_qp_worker(const struct rnic_qp *qp);

/**
 * Move a QP through the state machine of IBA 10.3 (seed 002). Each
 * transition requires and allows the attributes of IBA table 91 (see
 * doc/design.md); a wrong transition, a missing required attribute or an
 * attribute not allowed in it fails with -EINVAL and changes nothing.
 */
int rnic_modify_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask);

int rnic_query_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask,
		  struct rnic_qp_init_attr *init_attr);

struct rnic_ah *rnic_create_ah(struct rnic_pd *pd, const struct rnic_ah_attr *attr);

int rnic_destroy_ah(struct rnic_ah *ah);

/**
 * Validate each WR, write it into the send queue and ring the doorbell.
 * @return 0, or -EINVAL (malformed WR: bad opcode for the QP type, too many
 *         SGEs, inline too long), -ENOMEM (send queue full) or -EINVAL (QP
 *         state does not allow posting: Reset, Init, RTR); *bad_wr names the
 *         first WR not posted. WRs the engine later finds bad (keys, bounds,
 *         lengths) complete in order with an error status.
 */
int rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr);

int rnic_post_recv(struct rnic_qp *qp, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr);

/** @return 1 and fills @p ev, or 0 when none is pending. */
int rnic_get_async_event(struct rnic_device *dev, struct rnic_async_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_VERBS_H */
