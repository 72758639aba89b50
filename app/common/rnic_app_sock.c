/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "rnic_app_sock.h"

int
rnic_app_sock_wait(int fd, short ev, uint64_t deadline_tsc, void (*poll_hook)(void))
{
	struct pollfd p = { .fd = fd, .events = ev };

	while (rte_get_tsc_cycles() <= deadline_tsc) {
		int n = poll(&p, 1, 1);

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
		poll_hook();
	}
	errno = ETIMEDOUT;
	return -1;
}

int
rnic_app_sock_xfer(int fd, void *buf, size_t len, bool wr, uint64_t deadline_tsc,
		   void (*poll_hook)(void))
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;

		if (rnic_app_sock_wait(fd, wr ? POLLOUT : POLLIN, deadline_tsc, poll_hook) != 0)
			return -1;
		n = wr ? write(fd, (char *)buf + done, len - done) :
			 read(fd, (char *)buf + done, len - done);
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}
