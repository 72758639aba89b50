/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
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

int
rnic_app_sock_connect(const char *prog, const char *host, const struct sockaddr_in *sa,
		      uint64_t deadline_tsc, void (*poll_hook)(void))
{
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			return -1;
		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
			return fd;
		close(fd);
		if (rte_get_tsc_cycles() > deadline_tsc) {
			fprintf(stderr, "%s: couldn't connect to %s:%u\n", prog, host,
				ntohs(sa->sin_port));
			return -1;
		}
		for (int i = 0; i < 200; i++) {
			poll_hook();
			usleep(500);
		}
	}
}

int
rnic_app_sock_accept(const char *prog, uint16_t port, int *lfd, uint64_t deadline_tsc,
		     void (*poll_hook)(void))
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	char what[64];
	int fd, one = 1;

	*lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (*lfd < 0)
		return -1;
	setsockopt(*lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(*lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(*lfd, 1) != 0) {
		fprintf(stderr, "%s: couldn't listen to port %u: %s\n", prog, port,
			strerror(errno));
		return -1;
	}
	printf("%s: listening on port %u\n", prog, port);
	fflush(stdout);
	if (rnic_app_sock_wait(*lfd, POLLIN, deadline_tsc, poll_hook) != 0 ||
	    (fd = accept(*lfd, NULL, NULL)) < 0) {
		int e = errno;

		snprintf(what, sizeof(what), "%s: accept", prog);
		errno = e;
		perror(what);
		return -1;
	}
	return fd;
}
