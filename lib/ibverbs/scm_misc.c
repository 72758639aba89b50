/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm.so.1 over softrnic: rdma_getaddrinfo, and rpoll/rselect, which
 * are poll and select for the ordinary descriptors programs pass them
 * (rdma-core's examples poll an event channel's fd through rpoll), as
 * rsockets' own are for descriptors that are not rsockets. The entry
 * points not provided are in scm_stubs.c.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

static int
rai_copy_addr(struct sockaddr **dst, socklen_t *len, const struct sockaddr *src, socklen_t n)
{
	*dst = malloc(n);
	if (*dst == NULL)
		return -1;
	memcpy(*dst, src, n);
	*len = n;
	return 0;
}

/* Name and service through getaddrinfo: a passive lookup gives the
 * source address, an active one the destination; the TCP port space and
 * RC unless the hints say otherwise. */
int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	struct addrinfo h, *ai = NULL;
	struct rdma_addrinfo *r;
	int rc;

	if (res == NULL || (node == NULL && service == NULL)) {
		errno = EINVAL;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.ai_socktype = SOCK_STREAM;
	if (hints != NULL) {
		if (hints->ai_family != AF_UNSPEC && hints->ai_family != AF_INET &&
		    hints->ai_family != AF_INET6) {
			errno = EAFNOSUPPORT;   /* AF_IB: no IB addressing over RoCE */
			return -1;
		}
		h.ai_family = hints->ai_family;
		if (hints->ai_flags & RAI_PASSIVE)
			h.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			h.ai_flags |= AI_NUMERICHOST;
	}
	rc = getaddrinfo(node, service, &h, &ai);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
		return rc;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		freeaddrinfo(ai);
		errno = ENOMEM;
		return -1;
	}
	r->ai_flags = hints ? hints->ai_flags : 0;
	r->ai_family = ai->ai_family;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
	r->ai_port_space = hints && hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
	if (r->ai_flags & RAI_PASSIVE)
		rc = rai_copy_addr(&r->ai_src_addr, &r->ai_src_len, ai->ai_addr, ai->ai_addrlen);
	else {
		rc = rai_copy_addr(&r->ai_dst_addr, &r->ai_dst_len, ai->ai_addr, ai->ai_addrlen);
		if (rc == 0 && hints != NULL && hints->ai_src_addr != NULL)
			rc = rai_copy_addr(&r->ai_src_addr, &r->ai_src_len, hints->ai_src_addr,
					   hints->ai_src_len);
	}
	freeaddrinfo(ai);
	if (rc != 0) {
		rdma_freeaddrinfo(r);
		errno = ENOMEM;
		return -1;
	}
	*res = r;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *nx = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = nx;
	}
}

int
rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}

int
rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	struct timeval *timeout)
{
	return select(nfds, readfds, writefds, exceptfds, timeout);
}
