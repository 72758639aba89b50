/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture for the applications: makes this process's ports visible
 * to dpdk-dumpcap and dpdk-pdump (which run as DPDK secondary processes and
 * ask the primary, over the multi-process channel, to copy the packets of
 * a port's queues into a ring of theirs).
 */
#ifndef RNIC_APP_CAPTURE_H
#define RNIC_APP_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Call after rte_eal_init(). Calls rte_pdump_init() when capture can work:
 * the process is the primary, it has hugepages (a secondary cannot map
 * --no-huge memory) and the multi-process channel is up (not --no-shconf
 * or --in-memory). Logs the outcome through @p logtype: NOTICE
 * "<app>: capture: available ..." with the --file-prefix to give
 * dpdk-dumpcap, or INFO "<app>: capture: not available: <reason>".
 * Returns true when capture is available.
 */
bool rnic_app_capture_init(int logtype, const char *app);

/* Logs, at NOTICE, the DPDK name of a port as dpdk-dumpcap -i takes it. */
void rnic_app_capture_port(int logtype, const char *app, const char *what,
			   uint16_t port_id);

/* rte_pdump_uninit() if rnic_app_capture_init() enabled capture. */
void rnic_app_capture_uninit(void);

#endif
