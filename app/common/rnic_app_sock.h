/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking-style socket I/O for the out-of-band exchanges of the interop
 * peers (rnic-pingpong, rnic-perf --perftest): wait with poll(2) in 1 ms
 * steps, calling the engine's poll hook between them (ARP, late ACKs),
 * until a TSC deadline.
 */
#ifndef RNIC_APP_SOCK_H
#define RNIC_APP_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Wait for @p ev on @p fd; 0, or -1 with errno (ETIMEDOUT at the deadline). */
int rnic_app_sock_wait(int fd, short ev, uint64_t deadline_tsc, void (*poll_hook)(void));

/** Read (@p wr false) or write exactly @p len bytes; 0, or -1 with errno
 *  (ECONNRESET when the peer closed, ETIMEDOUT at the deadline). */
int rnic_app_sock_xfer(int fd, void *buf, size_t len, bool wr, uint64_t deadline_tsc,
		       void (*poll_hook)(void));

#endif
