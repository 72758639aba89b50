/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * softrnic's data path (the "engine" layer) as the application drives it:
 * the poll entry points the lcores run, the ARP cache the RX role fills,
 * the telemetry endpoints, and what is still queued in the engine.
 * Types, threads and conventions: rnic_types.h.
 */
#ifndef RNIC_ENGINE_H
#define RNIC_ENGINE_H

#include "rnic_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Poll functions: one pass over a role's work, of every worker in turn
 * (from one thread: a single-worker device, or a test polling by hand).
 * Each role of each worker has one caller at a time; a run-to-completion
 * lcore calls all three in turn. @return work done (packets, doorbells
 * or events handled).
 *
 * On a device no lcore polls (rnic_dev_set_polled false: the caller's
 * thread polls it), an RX pass that delivered a message (a WRITE's last
 * byte placed, a receive completed) leaves that message's ACK owed, and
 * keeps the frames it built, until the next RX pass begins, so that the
 * caller sees the message first; that pass also leaves its resends, its
 * timer events and, within rnic_dev_poll with RNIC_ROLE_RX, the timer
 * role to the next pass (never two passes in a row). Such a caller
 * keeps polling until rnic_dev_tx_backlog() is 0 before it stops (its
 * peer waits for that ACK); resetting or destroying the QP sends what
 * it owes.
 */
unsigned int rnic_dev_poll_tx(struct rnic_device *dev);

unsigned int rnic_dev_poll_rx(struct rnic_device *dev);

unsigned int rnic_dev_poll_timer(struct rnic_device *dev);

/**
 * One pass of the roles in @p roles (RNIC_ROLE_*) of worker @p worker,
 * TX, RX then timer; the work done. This is what an engine lcore runs:
 * each role of each worker has one caller at a time.
 */
unsigned int rnic_worker_poll(struct rnic_device *dev, unsigned int worker,
			      unsigned int roles);

/** rnic_worker_poll of every worker in turn, from one thread. */
unsigned int rnic_dev_poll(struct rnic_device *dev, unsigned int roles);

/**
 * The idle step of an lcore loop that polls devices: after @p work was
 * done reset the idle count; otherwise pause, and yield the CPU every 64
 * idle passes, or every second one where the calling lcore's CPU is also
 * another EAL lcore's, so that pollers sharing a CPU still make progress.
 */
void rnic_poll_idle(unsigned int work, unsigned int *idle);

/**
 * True when EAL lcore @p lcore_id runs on one CPU that another enabled
 * lcore's CPU set includes (--lcores=1@1,2@1): rnic_poll_idle's test.
 * False for an lcore spread over several CPUs (the kernel balances it),
 * for LCORE_ID_ANY and for an lcore that is not enabled.
 */
bool rnic_lcore_cpu_shared(unsigned int lcore_id);

/**
 * Packets the engine has built but not yet handed to the port (its
 * software TX buffers, requests and responses, including the ACKs an RX
 * pass that delivered a message leaves to the next; those count at least
 * one). Any thread may call it;
 * 0 after rnic_qp_sq_pending() reached 0 means every packet of those
 * WQEs went through rte_eth_tx_burst.
 */
unsigned int rnic_dev_tx_backlog(const struct rnic_device *dev);

/**
 * Publish a device under @p name on the telemetry endpoints /softrnic/qps,
 * /softrnic/qp,<qpn>, /softrnic/stats[,<port>] and /softrnic/lcores (the
 * first call registers them). @p name: 1..31 characters, no ',' or ':',
 * not already published. @return 0 or -EINVAL (no room, bad args).
 */
int rnic_telemetry_add_device(struct rnic_device *dev, const char *name);

/** Record that @p lcore polls @p roles (RNIC_ROLE_*) of worker @p worker
 *  of @p dev. @return 0, -EINVAL, -ENOENT (not published) or -ENOSPC. */
int rnic_telemetry_add_worker_lcore(unsigned int lcore, struct rnic_device *dev,
				    unsigned int worker, unsigned int roles);

/** Record that @p lcore polls @p roles (RNIC_ROLE_*) of @p dev's worker 0. */
int rnic_telemetry_add_lcore(unsigned int lcore, struct rnic_device *dev, unsigned int roles);

/**
 * Take @p dev (and its lcores) off the telemetry endpoints. Returns once
 * no endpoint looks at it any more (they run under the same lock), so
 * the device may then be torn down. rnic_dev_destroy calls it first;
 * call it yourself before destroying a published device's QPs while a
 * telemetry client may ask about them. @return 0, or -ENOENT if it was
 * not published.
 */
int rnic_telemetry_remove_device(struct rnic_device *dev);

/**
 * Look up @p ip (network order) in the device's ARP cache, which the RX
 * role fills from every ARP request or reply addressed to the device's
 * IPv4 address (sender IP -> sender MAC). Any thread may call it.
 * @return 0 with @p mac filled, or -ENOENT.
 */
int rnic_dev_arp_lookup(const struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6]);

/**
 * Resolve @p ip to a MAC address: return the cached entry, or have the RX
 * role broadcast an ARP request (on its TX queue) every 200 ms until a reply
 * arrives or @p timeout_ms runs out. When no lcore polls the device
 * (rnic_dev_set_polled false) the call polls the RX role itself; otherwise
 * it waits for the lcores. One control thread at a time.
 * @return 0 with @p mac filled, -ETIMEDOUT, or -EINVAL.
 */
int rnic_dev_arp_resolve(struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6],
			 unsigned int timeout_ms);

/**
 * The MAC of IPv6 address @p ip6 in the device's neighbour cache, learnt
 * from neighbour solicitations for our addresses and advertisements to
 * them (RFC 4861). Any thread may call it.
 * @return 0 with @p mac filled, -ENOENT, or -EINVAL.
 */
int rnic_dev_nd_lookup(const struct rnic_device *dev, const uint8_t ip6[16], uint8_t mac[6]);

/**
 * rnic_dev_arp_resolve for IPv6: the RX role sends a neighbour solicitation
 * (from the port's first IPv6 GID to the target's solicited-node group)
 * every 200 ms until an advertisement arrives or @p timeout_ms runs out.
 * @return 0 with @p mac filled, -ETIMEDOUT, or -EINVAL (multicast or
 *         IPv4 target, or the port has no IPv6 address).
 */
int rnic_dev_nd_resolve(struct rnic_device *dev, const uint8_t ip6[16], uint8_t mac[6],
			unsigned int timeout_ms);

/** The MAC of a GID: ARP for an IPv4 one (rnic_gid_is_ipv4), neighbour
 *  discovery for an IPv6 one. @return as those. */
int rnic_dev_resolve_gid(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6],
			 unsigned int timeout_ms);

/**
 * Send WQEs posted but not yet fully transmitted: the TX lcore has not put
 * the last packet of each of them into its TX buffer (see
 * rnic_dev_tx_backlog), nor completed or flushed it as an error. Read by
 * the thread that posts to the QP. Nothing acknowledges RC packets while
 * the peer is absent: this is how an application knows they left.
 * @return the count, or -EINVAL.
 */
int rnic_qp_sq_pending(const struct rnic_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_ENGINE_H */
