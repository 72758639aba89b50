/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-pingpong: the peer of rdma-core's ibv_rc_pingpong / ibv_uc_pingpong /
 * ibv_ud_pingpong on a softrnic engine (issue 7, doc/interop.md).
 *
 *   rnic-pingpong [EAL args] -- [--rc|--uc|--ud] [-s size] [-n iters]
 *                 [-r rx_depth] [-p tcp_port] [-g gidx (ignored)]
 *                 [--ip A.B.C.D] [--port-id N] [--timeout secs] [server_ip]
 *
 * Same semantics and out-of-band exchange as the rdma-core examples: TCP
 * port 18515 over the host kernel stack; each side sends one 52-byte
 * NUL-terminated "LID:QPN:PSN:GID" string ("%04x:%06x:%06x:" + 32 hex
 * digits of the GID in wire order); the client connects and sends first,
 * reads the server's, then sends "done"; the server connects its QP before
 * answering. Both sides post rx_depth receives before the exchange; the
 * client posts the first SEND, then each side sends again once both its
 * previous send and a receive completed, iters times each way. Buffers
 * hold 0x7b bytes (UD: a 40-byte GRH area precedes each receive).
 *
 * The engine side polls softrnic from this one thread (no worker lcore).
 * It resolves the peer's MAC from the IPv4 inside its ::ffff:a.b.c.d GID by
 * ARP, and checks every receive: status, length and every byte (0x7b; a
 * zero is accepted at each 4 KiB page start, which the examples' -c option
 * writes). Prints the examples' two result lines and
 * "verified: messages=N bytes=B errors=E"; exit status 0 only when all
 * iterations completed without error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "rnic_app_sock.h"
#include "rnic_app_peer.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"

#define WRID_RECV 1
#define WRID_SEND 2
#define UD_QKEY 0x11111111u
#define GRH_LEN 40
#define PP_BYTE 0x7b
#define MSG_LEN 52   /* sizeof "0000:000000:000000:" + 32 hex digits */

struct opts {
	enum rnic_qp_type type;
	uint32_t size, iters, rx_depth;
	uint16_t tcp_port, port_id;
	rte_be32_t ip;
	unsigned int timeout_s;
	const char *server;
};

struct dest {
	uint32_t lid, qpn, psn;
	uint8_t gid[16];
};

static struct rnic_device *dev;
static uint64_t deadline;

static void
engine_poll(void)
{
	rnic_dev_poll(dev, RNIC_ROLE_ALL);
}

static bool
expired(void)
{
	return rte_get_tsc_cycles() > deadline;
}

/* Socket waits poll the engine meanwhile (ARP, late ACKs). */
static int
xfer(int fd, void *buf, size_t len, bool wr)
{
	return rnic_app_sock_xfer(fd, buf, len, wr, deadline, engine_poll);
}

static void
dest_fmt(const struct dest *d, char msg[MSG_LEN])
{
	int o = snprintf(msg, MSG_LEN, "%04x:%06x:%06x:", d->lid, d->qpn, d->psn);

	for (int i = 0; i < 16; i++)
		o += snprintf(msg + o, MSG_LEN - o, "%02x", d->gid[i]);
}

static int
dest_parse(const char msg[MSG_LEN], struct dest *d)
{
	char gid[33];

	if (memchr(msg, '\0', MSG_LEN) == NULL ||
	    sscanf(msg, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn, gid) != 4 ||
	    strlen(gid) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(gid + 2 * i, "%2x", &b) != 1)
			return -1;
		d->gid[i] = (uint8_t)b;
	}
	return 0;
}

static int
connect_qp(struct rnic_qp *qp, struct rnic_pd *pd, const struct opts *o, uint32_t my_psn,
	   const struct dest *rem, struct rnic_ah **ah)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct rnic_qp_attr a = { 0 };
	rte_be32_t rip;
	int rc;

	if (memcmp(rem->gid, v4mapped, 12) != 0) {
		fprintf(stderr, "rnic-pingpong: the peer's GID is not IPv4-mapped (use -g 1 on "
			"the rxe side: RoCEv2 ::ffff:a.b.c.d)\n");
		return -1;
	}
	memcpy(&rip, rem->gid + 12, 4);
	a.ah_attr.dip = rip;
	a.ah_attr.ttl = 64;
	rc = rnic_dev_arp_resolve(dev, rip, a.ah_attr.dmac, 5000);
	if (rc != 0) {
		fprintf(stderr, "rnic-pingpong: ARP for %u.%u.%u.%u: %s\n", rem->gid[12],
			rem->gid[13], rem->gid[14], rem->gid[15], strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTR;
	if (o->type == RNIC_QPT_UD) {
		rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	} else {
		a.path_mtu = RNIC_MTU_1024;
		a.dest_qp_num = rem->qpn;
		a.rq_psn = rem->psn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
				    RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
				    (o->type == RNIC_QPT_RC ?
				     RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER : 0));
	}
	if (rc != 0) {
		fprintf(stderr, "rnic-pingpong: modify QP to RTR: %s\n", strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = 17;          /* ~0.5 s: TCG guests are slow */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN |
			    (o->type == RNIC_QPT_RC ? RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
			     RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC : 0));
	if (rc != 0) {
		fprintf(stderr, "rnic-pingpong: modify QP to RTS: %s\n", strerror(-rc));
		return -1;
	}
	if (o->type == RNIC_QPT_UD) {
		*ah = rnic_create_ah(pd, &a.ah_attr);
		if (*ah == NULL) {
			fprintf(stderr, "rnic-pingpong: create AH: %s\n", rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

/* The client's side: connect, send our record, read the server's, send
 * "done". @return the socket, -1. */
static int
exchange_client(const struct opts *o, char msg[MSG_LEN], struct dest *rem)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(o->tcp_port) };
	int fd, one = 1;

	if (inet_pton(AF_INET, o->server, &sa.sin_addr) != 1) {
		fprintf(stderr, "rnic-pingpong: bad server address %s\n", o->server);
		return -1;
	}
	fd = rnic_app_sock_connect("rnic-pingpong", o->server, &sa, deadline, engine_poll);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (xfer(fd, msg, MSG_LEN, true) != 0 || xfer(fd, msg, MSG_LEN, false) != 0 ||
	    dest_parse(msg, rem) != 0 || xfer(fd, (char *)"done", 5, true) != 0) {
		perror("rnic-pingpong: client exchange");
		close(fd);
		return -1;
	}
	return fd;
}

/* The server's side up to the client's record: listen, accept, read it.
 * @return the connection, -1; *lfd the listener (closed by the caller). */
static int
exchange_accept(const struct opts *o, char msg[MSG_LEN], struct dest *rem, int *lfd)
{
	int fd, one = 1;

	fd = rnic_app_sock_accept("rnic-pingpong", o->tcp_port, lfd, deadline, engine_poll);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (xfer(fd, msg, MSG_LEN, false) != 0 || dest_parse(msg, rem) != 0) {
		perror("rnic-pingpong: server read");
		close(fd);
		return -1;
	}
	return fd;
}

/* The out-of-band exchange; the server connects @p qp in the middle. */
static int
exchange(const struct opts *o, const struct dest *me, struct dest *rem,
	 struct rnic_qp *qp, struct rnic_pd *pd, struct rnic_ah **ah)
{
	char msg[MSG_LEN] = { 0 }, done[5];
	int fd, lfd = -1, rc = -1;

	dest_fmt(me, msg);
	if (o->server != NULL) {
		fd = exchange_client(o, msg, rem);
		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	}
	fd = exchange_accept(o, msg, rem, &lfd);
	if (fd < 0)
		goto out;
	if (connect_qp(qp, pd, o, me->psn, rem, ah) != 0)
		goto out;
	dest_fmt(me, msg);
	if (xfer(fd, msg, MSG_LEN, true) != 0 || xfer(fd, done, sizeof(done), false) != 0) {
		perror("rnic-pingpong: server write/read");
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	return rc;
}

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-pingpong [EAL args] -- [--rc|--uc|--ud] [-s size] "
		"[-n iters] [-r rx_depth] [-p tcp_port] [-g gidx] [--ip A.B.C.D] "
		"[--port-id N] [--timeout secs] [server_ip]\n");
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "rc", no_argument, NULL, 'R' }, { "uc", no_argument, NULL, 'U' },
		{ "ud", no_argument, NULL, 'D' }, { "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "port", required_argument, NULL, 'p' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "ip", required_argument, NULL, 'I' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .type = RNIC_QPT_RC, .size = 4096, .iters = 1000, .rx_depth = 500,
			    .tcp_port = 18515, .timeout_s = 120 };
	o->ip = inet_addr("10.99.0.2");
	bool size_set = false;
	while ((c = getopt_long(argc, argv, "s:n:r:p:g:", lo, NULL)) != -1) {
		switch (c) {
		case 'R': o->type = RNIC_QPT_RC; break;
		case 'U': o->type = RNIC_QPT_UC; break;
		case 'D': o->type = RNIC_QPT_UD; break;
		case 's': o->size = (uint32_t)strtoul(optarg, NULL, 0); size_set = true; break;
		case 'n': o->iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': o->rx_depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': o->tcp_port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'g': break;  /* the GID is always the RoCEv2 IPv4-mapped one */
		case 'I':
			if (inet_pton(AF_INET, optarg, &o->ip) != 1)
				return -1;
			break;
		case 'P': o->port_id = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'T': o->timeout_s = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	if (o->type == RNIC_QPT_UD && !size_set)
		o->size = 1024;   /* ibv_ud_pingpong: 2048 > rxe's MTU; pass -s 1024 there */
	if (optind == argc - 1)
		o->server = argv[optind];
	else if (optind < argc)
		return -1;
	if (o->size == 0 || o->iters == 0 || o->rx_depth < 2 || o->rx_depth > 4096 ||
	    (o->type == RNIC_QPT_UD && o->size > 1024))
		return -1;
	return 0;
}

/* One run: the verbs objects, the buffer, and the counts. */
struct pp_run {
	struct opts o;
	struct dest me, rem;
	struct rnic_pd *pd;
	struct rnic_mr *mr;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	struct rnic_ah *ah;
	uint8_t *sbuf, *rbuf;    /* the send message, then rx_depth receive slots */
	uint32_t slot_len;       /* a receive slot: the message, after a GRH for UD */
	uint32_t rq_next, routs; /* receives posted in all, outstanding */
	uint32_t rcnt, scnt, errors, pending;
	uint64_t bytes_ok;
};

/* The buffer, PD, MR, CQ and QP, brought to INIT. */
static int
create_qp(struct pp_run *r)
{
	const struct opts *o = &r->o;
	struct rnic_qp_init_attr qa = { 0 };
	struct rnic_qp_attr a = { 0 };

	r->slot_len = o->size + (o->type == RNIC_QPT_UD ? GRH_LEN : 0);
	r->sbuf = aligned_alloc(4096, RTE_ALIGN_CEIL((size_t)o->size +
						     (size_t)r->slot_len * o->rx_depth, 4096));
	if (r->sbuf == NULL) {
		fprintf(stderr, "rnic-pingpong: out of memory\n");
		return -1;
	}
	r->rbuf = r->sbuf + o->size;
	memset(r->sbuf, PP_BYTE, o->size);
	memset(r->rbuf, 0, (size_t)r->slot_len * o->rx_depth);
	r->pd = rnic_alloc_pd(dev);
	r->mr = r->pd ? rnic_reg_mr(r->pd, r->sbuf, o->size + (uint64_t)r->slot_len * o->rx_depth,
				    RNIC_ACCESS_LOCAL_WRITE) : NULL;
	r->cq = rnic_create_cq(dev, o->rx_depth + 16);
	qa.send_cq = qa.recv_cq = r->cq;
	qa.qp_type = o->type;
	qa.cap = (struct rnic_qp_cap){ .max_send_wr = 4, .max_recv_wr = o->rx_depth,
				       .max_send_sge = 1, .max_recv_sge = 1 };
	r->qp = r->mr && r->cq ? rnic_create_qp(r->pd, &qa) : NULL;
	if (r->qp == NULL) {
		fprintf(stderr, "rnic-pingpong: PD/MR/CQ/QP: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	a.qp_state = RNIC_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = UD_QKEY;
	if (rnic_modify_qp(r->qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			   (o->type == RNIC_QPT_UD ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS)) != 0) {
		fprintf(stderr, "rnic-pingpong: modify QP to INIT failed\n");
		return -1;
	}
	return 0;
}

/* One receive, into the next slot of its own so that each is checked. */
static int
post_recv(struct pp_run *r)
{
	struct rnic_sge rs = { .addr = (uintptr_t)(r->rbuf + (size_t)r->slot_len *
						   (r->rq_next % r->o.rx_depth)),
			       .length = r->slot_len, .lkey = rnic_mr_lkey(r->mr) };
	struct rnic_recv_wr rw = { .wr_id = WRID_RECV, .sg_list = &rs, .num_sge = 1 }, *bad;

	if (rnic_post_recv(r->qp, &rw, &bad) != 0) {
		fprintf(stderr, "rnic-pingpong: post_recv failed\n");
		return -1;
	}
	r->rq_next++;
	r->routs++;
	return 0;
}

static int
post_send(struct pp_run *r)
{
	struct rnic_sge sge = { .addr = (uintptr_t)r->sbuf, .length = r->o.size,
				.lkey = rnic_mr_lkey(r->mr) };
	struct rnic_send_wr sw = { .wr_id = WRID_SEND, .sg_list = &sge, .num_sge = 1,
				   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED }, *bad;

	if (r->o.type == RNIC_QPT_UD) {
		sw.wr.ud.ah = r->ah;
		sw.wr.ud.remote_qpn = r->rem.qpn;
		sw.wr.ud.remote_qkey = UD_QKEY;
	}
	if (rnic_post_send(r->qp, &sw, &bad) != 0) {
		fprintf(stderr, "rnic-pingpong: post_send failed\n");
		return -1;
	}
	return 0;
}

/* Our QP record out, the peer's in, the QP connected. */
static int
connect_peer(struct pp_run *r)
{
	static const char *tn[] = { [RNIC_QPT_RC] = "RC", [RNIC_QPT_UC] = "UC",
				    [RNIC_QPT_UD] = "UD" };
	struct dest *me = &r->me, *rem = &r->rem;

	srand48(getpid() * time(NULL));
	me->qpn = rnic_qp_num(r->qp);
	me->psn = lrand48() & 0xffffff;
	me->gid[10] = me->gid[11] = 0xff;
	memcpy(me->gid + 12, &r->o.ip, 4);
	printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u (%s)\n",
	       me->lid, me->qpn, me->psn, me->gid[12], me->gid[13], me->gid[14], me->gid[15],
	       tn[r->o.type]);
	if (exchange(&r->o, me, rem, r->qp, r->pd, &r->ah) != 0)
		return -1;
	printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n",
	       rem->lid, rem->qpn, rem->psn, rem->gid[12], rem->gid[13], rem->gid[14],
	       rem->gid[15]);
	fflush(stdout);
	if (r->o.server != NULL && connect_qp(r->qp, r->pd, &r->o, me->psn, rem, &r->ah) != 0)
		return -1;
	return 0;
}

/* A receive completed: check its length and every byte, then post the
 * slot again. */
static int
on_recv(struct pp_run *r, const struct rnic_wc *wc)
{
	const struct opts *o = &r->o;
	uint8_t *p = r->rbuf + (size_t)r->slot_len * (r->rcnt % o->rx_depth);
	uint32_t off = o->type == RNIC_QPT_UD ? GRH_LEN : 0;

	if (wc->byte_len != r->slot_len) {
		fprintf(stderr, "rnic-pingpong: receive %u: %u bytes, want %u\n",
			r->rcnt, wc->byte_len, r->slot_len);
		r->errors++;
	}
	for (uint32_t k = 0; k < o->size; k++) {
		if (p[off + k] != PP_BYTE && !(k % 4096 == 0 && p[off + k] == 0)) {
			fprintf(stderr, "rnic-pingpong: receive %u: byte %u is 0x%02x, want "
				"0x%02x\n", r->rcnt, k, p[off + k], PP_BYTE);
			r->errors++;
			break;
		}
	}
	if (r->errors == 0)
		r->bytes_ok += o->size;
	memset(p, 0, r->slot_len);
	r->rcnt++;
	r->routs--;
	return post_recv(r);
}

/* One completion; the next SEND once both the last one and a receive
 * completed. */
static int
on_wc(struct pp_run *r, const struct rnic_wc *wc)
{
	if (wc->status != RNIC_WC_SUCCESS) {
		fprintf(stderr, "rnic-pingpong: failed status %s (%d) for wr_id %d\n",
			rnic_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		r->errors++;
		return 0;
	}
	if (wc->wr_id == WRID_SEND) {
		r->scnt++;
	} else if (wc->wr_id == WRID_RECV) {
		if (on_recv(r, wc) != 0)
			return -1;
	} else {
		fprintf(stderr, "rnic-pingpong: completion for unknown wr_id %d\n",
			(int)wc->wr_id);
		r->errors++;
		return 0;
	}
	r->pending &= ~(uint32_t)wc->wr_id;
	if (r->scnt < r->o.iters && r->pending == 0) {
		if (post_send(r) != 0)
			return -1;
		r->pending = WRID_RECV | WRID_SEND;
	}
	return 0;
}

/* iters messages each way, or the first error, timed from @p t0 (after
 * the client's first SEND). -1 when a post failed. */
static int
pingpong(struct pp_run *r, struct timeval *t0)
{
	const struct opts *o = &r->o;

	r->pending = WRID_RECV;
	if (o->server != NULL) {
		if (post_send(r) != 0)
			return -1;
		r->pending |= WRID_SEND;
	}
	gettimeofday(t0, NULL);
	while ((r->rcnt < o->iters || r->scnt < o->iters) && r->errors == 0) {
		struct rnic_wc wc[8];
		int n;

		engine_poll();
		n = rnic_poll_cq(r->cq, RTE_DIM(wc), wc);
		if (n == 0 && expired()) {
			fprintf(stderr, "rnic-pingpong: timed out after %u s: sent %u, received %u "
				"of %u\n", o->timeout_s, r->scnt, r->rcnt, o->iters);
			r->errors++;
			break;
		}
		for (int i = 0; i < n; i++)
			if (on_wc(r, &wc[i]) != 0)
				return -1;
	}
	return 0;
}

/* The examples' two result lines, then "verified:" once the last ACKs
 * (RC) and anything queued have left. */
static void
report(const struct pp_run *r, const struct timeval *t0, const struct timeval *t1)
{
	double usec = (t1->tv_sec - t0->tv_sec) * 1e6 + (t1->tv_usec - t0->tv_usec);
	long long bytes = (long long)r->o.size * r->o.iters * 2;
	uint64_t end;

	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1e6,
	       bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", r->o.iters, usec / 1e6,
	       usec / r->o.iters);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;
	while (rte_get_tsc_cycles() < end)
		engine_poll();
	printf("verified: messages=%u bytes=%" PRIu64 " errors=%u\n", r->rcnt, r->bytes_ok,
	       r->errors);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static struct pp_run r;
	struct timeval t0, t1;
	int n, status = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rnic-pingpong: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	/* From here every exit goes through "out", which frees what main
	 * holds (the device with its PD, MR, CQ, QP and AH; the buffer). */
	if (parse_args(argc, argv, &r.o) != 0) {
		usage();
		goto out;
	}
	dev = rnic_app_peer_dev("rnic-pingpong", r.o.port_id, r.o.ip, 8192);
	if (dev == NULL)
		goto out;
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz() * r.o.timeout_s;
	if (create_qp(&r) != 0)
		goto out;
	/* Receives first. */
	for (uint32_t i = 0; i < r.o.rx_depth; i++)
		if (post_recv(&r) != 0)
			goto out;
	if (connect_peer(&r) != 0)
		goto out;
	if (pingpong(&r, &t0) != 0)
		goto out;
	gettimeofday(&t1, NULL);
	report(&r, &t0, &t1);
	status = r.errors == 0 && r.rcnt == r.o.iters && r.scnt == r.o.iters ? 0 : 1;
out:
	/* The device frees its QP, AH, CQ, MR and PD; the buffer is ours. */
	rnic_dev_destroy(dev);
	dev = NULL;
	free(r.sbuf);
	rte_eal_cleanup();
	return status;
}
