/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device both interop peers (rnic-pingpong, rnic-perf --perftest) run
 * on: one softrnic device on a DPDK port (the AF_PACKET port on the
 * Soft-RoCE bridge), path MTU 1024 as rxe's, polled by the calling thread.
 */
#ifndef RNIC_APP_PEER_H
#define RNIC_APP_PEER_H

#include <stdint.h>

#include <rte_byteorder.h>

struct rnic_device;

/** Create it, or print why not (prefixed with @p prog) and return NULL. */
struct rnic_device *rnic_app_peer_dev(const char *prog, uint16_t port_id, rte_be32_t ipv4,
				      uint32_t mbufs);

/** The same with an IPv6 address too (its GID 1), when @p ipv6 is not NULL. */
struct rnic_device *rnic_app_peer_dev6(const char *prog, uint16_t port_id, rte_be32_t ipv4,
				       const uint8_t *ipv6, uint32_t mbufs);

#endif
