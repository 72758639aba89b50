/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: the out-of-band exchange of --link memif, over TCP as in
 * perftest (port 18515 by default). Messages are a 12-byte header (magic,
 * type, length) and a payload, all in host order: both ends run on this
 * machine. What crosses: the client's test parameters, then each side's
 * MAC, IPv4, buffer address, rkey and per-QP QPNs and start PSNs, then a
 * SIZE / READY / DONE / RESULT handshake per message size, and FIN /
 * CLOSED for the teardown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "perf.h"

#define OOB_MAGIC 0x72706566u   /* "rpef" */

struct oob_hdr {
	uint32_t magic;
	uint32_t type;
	uint32_t len;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
perf_oob_server(struct perf_oob *b, uint16_t port, double secs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct pollfd pfd;
	int one = 1, rc;
	double end = now_s() + secs;

	b->fd = -1;
	b->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (b->listen_fd < 0)
		return -1;
	setsockopt(b->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(b->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(b->listen_fd, 1) != 0) {
		fprintf(stderr, "rnic-perf: TCP port %u: %s\n", port, strerror(errno));
		return -1;
	}
	printf("\n************************************\n"
	       "* Waiting for client to connect... *\n"
	       "************************************\n");
	fflush(stdout);
	pfd.fd = b->listen_fd;
	pfd.events = POLLIN;
	do {
		rc = poll(&pfd, 1, 200);
		if (perf_quit || now_s() > end) {
			fprintf(stderr, "rnic-perf: no client connected within %.0f s\n", secs);
			return -1;
		}
	} while (rc <= 0);
	b->fd = accept(b->listen_fd, NULL, NULL);
	if (b->fd < 0)
		return -1;
	tune(b->fd);
	return 0;
}

int
perf_oob_client(struct perf_oob *b, const char *host, uint16_t port, double secs)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char ps[8];
	double end = now_s() + secs;
	int rc;

	b->listen_fd = -1;
	b->fd = -1;
	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(host, ps, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: %s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	/* The server may still be starting: retry until it listens. */
	for (;;) {
		b->fd = socket(AF_INET, SOCK_STREAM, 0);
		if (b->fd >= 0 && connect(b->fd, res->ai_addr, res->ai_addrlen) == 0)
			break;
		if (b->fd >= 0)
			close(b->fd);
		b->fd = -1;
		if (perf_quit || now_s() > end) {
			fprintf(stderr, "rnic-perf: cannot reach the server at %s:%u within %.0f s\n",
				host, port, secs);
			freeaddrinfo(res);
			return -1;
		}
		usleep(100000);
	}
	freeaddrinfo(res);
	tune(b->fd);
	return 0;
}

static int
full_io(int fd, void *p, size_t n, bool wr, double secs)
{
	uint8_t *c = p;
	double end = now_s() + secs;

	while (n > 0) {
		struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
		ssize_t k;
		int rc = poll(&pfd, 1, 200);

		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc <= 0) {
			if (now_s() > end || perf_quit)
				return -1;
			continue;
		}
		k = wr ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);
		if (k <= 0) {
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int
perf_oob_send(struct perf_oob *b, uint32_t type, const void *data, uint32_t len)
{
	struct oob_hdr h = { OOB_MAGIC, type, len };

	if (full_io(b->fd, &h, sizeof(h), true, 30) != 0 ||
	    (len && full_io(b->fd, (void *)(uintptr_t)data, len, true, 30) != 0)) {
		fprintf(stderr, "rnic-perf: out-of-band send failed (peer gone?)\n");
		return -1;
	}
	return 0;
}

int
perf_oob_recv(struct perf_oob *b, uint32_t type, void *data, uint32_t cap, double secs)
{
	struct oob_hdr h;
	uint8_t *tmp = NULL;

	if (full_io(b->fd, &h, sizeof(h), false, secs) != 0) {
		fprintf(stderr, "rnic-perf: out-of-band: %s\n",
			perf_quit ? "interrupted" : "the peer is gone or silent");
		return -1;
	}
	b->last_type = h.type;
	if (h.magic != OOB_MAGIC || h.len > (64u << 20)) {
		fprintf(stderr, "rnic-perf: out-of-band: garbage from the peer (not rnic-perf?)\n");
		return -1;
	}
	if (h.len > cap) {
		tmp = malloc(h.len);
		if (tmp == NULL || full_io(b->fd, tmp, h.len, false, 30) != 0) {
			free(tmp);
			return -1;
		}
		memcpy(data, tmp, cap);
		free(tmp);
	} else if (h.len && full_io(b->fd, data, h.len, false, 30) != 0) {
		return -1;
	}
	if (h.type == PM_ERROR && type != PM_ERROR) {
		fprintf(stderr, "rnic-perf: the peer reports: %.*s\n", (int)RTE_MIN(h.len, cap),
			(const char *)data);
		return -1;
	}
	if (type != 0 && h.type != type) {
		fprintf(stderr, "rnic-perf: out-of-band: message %u, expected %u\n", h.type, type);
		return -1;
	}
	return (int)RTE_MIN(h.len, cap);
}

int
perf_oob_pending(struct perf_oob *b)
{
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
	int rc = poll(&pfd, 1, 0);

	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	if (rc == 0)
		return 0;
	return (pfd.revents & POLLIN) ? 1 : -1;
}

void
perf_oob_close(struct perf_oob *b)
{
	if (b->fd >= 0)
		close(b->fd);
	if (b->listen_fd >= 0)
		close(b->listen_fd);
	b->fd = b->listen_fd = -1;
}

/* MAC, IP, buffer and per-QP QPN/PSN, both ways. */
#define INFO_SR 0x1
struct info_hdr {
	uint8_t mac[6];
	uint16_t flags;          /* INFO_SR: selective repeat asked for */
	uint32_t ip;
	uint64_t addr;
	uint32_t rkey;
	uint32_t nqp;
};

int
perf_exchange_info(struct perf_oob *b, struct perf_side *s, bool sr)
{
	size_t len = sizeof(struct info_hdr) + (size_t)s->nqp * 8;
	uint8_t *out = calloc(1, len), *in = calloc(1, len);
	struct info_hdr *h = (struct info_hdr *)out, *ph = (struct info_hdr *)in;
	uint32_t *q = (uint32_t *)(h + 1), *pq = (uint32_t *)(ph + 1);
	int rc = -1;

	if (out == NULL || in == NULL)
		goto out;
	memcpy(h->mac, s->mac, 6);
	h->flags = sr ? INFO_SR : 0;   /* an older peer sends 0 here */
	h->ip = s->ip;
	h->addr = (uintptr_t)side_target(s);
	h->rkey = rnic_mr_rkey(s->mr);
	h->nqp = s->nqp;
	for (uint32_t i = 0; i < s->nqp; i++) {
		q[2 * i] = rnic_qp_num(s->qp[i]);
		q[2 * i + 1] = s->psn[i];
	}
	if (perf_oob_send(b, PM_INFO, out, (uint32_t)len) != 0 ||
	    perf_oob_recv(b, PM_INFO, in, (uint32_t)len, 60) != (int)len) {
		fprintf(stderr, "rnic-perf: address exchange failed\n");
		goto out;
	}
	if (ph->nqp != s->nqp) {
		fprintf(stderr, "rnic-perf: the peer has %u QPs, this side %u\n", ph->nqp, s->nqp);
		goto out;
	}
	memcpy(s->peer_mac, ph->mac, 6);
	s->peer_ip = ph->ip;
	s->peer_addr = ph->addr;
	s->peer_rkey = ph->rkey;
	s->peer_sr = (ph->flags & INFO_SR) != 0;
	for (uint32_t i = 0; i < s->nqp; i++) {
		s->peer_qpn[i] = pq[2 * i];
		s->peer_psn[i] = pq[2 * i + 1];
	}
	rc = 0;
out:
	free(out);
	free(in);
	return rc;
}
