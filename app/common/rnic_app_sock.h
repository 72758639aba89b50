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

#include <netinet/in.h>

/** Wait for @p ev on @p fd; 0, or -1 with errno (ETIMEDOUT at the deadline). */
int rnic_app_sock_wait(int fd, short ev, uint64_t deadline_tsc, void (*poll_hook)(void));

/** Read (@p wr false) or write exactly @p len bytes; 0, or -1 with errno
 *  (ECONNRESET when the peer closed, ETIMEDOUT at the deadline). */
int rnic_app_sock_xfer(int fd, void *buf, size_t len, bool wr, uint64_t deadline_tsc,
		       void (*poll_hook)(void));

/** Connect to @p sa (@p host, for the message), retrying until the deadline
 *  (the server may not listen yet) with the poll hook running between
 *  tries. @return the socket, or -1 ("PROG: couldn't connect to HOST:PORT"
 *  on stderr at the deadline). */
int rnic_app_sock_connect(const char *prog, const char *host, const struct sockaddr_in *sa,
			  uint64_t deadline_tsc, void (*poll_hook)(void));

/** Listen on TCP @p port, say so on stdout ("PROG: listening on port P")
 *  and accept one connection. @return it, or -1 (with a message); @p lfd
 *  the listening socket or -1, for the caller to close. */
int rnic_app_sock_accept(const char *prog, uint16_t port, int *lfd, uint64_t deadline_tsc,
			 void (*poll_hook)(void));

#endif
