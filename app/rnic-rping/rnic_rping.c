/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-rping: librdmacm's rping on a softrnic engine, connected by the CM
 * (lib/cm, issue 21), so that rping over Linux rxe connects to it and it
 * to rping.
 *
 *   rnic-rping [EAL args] -- (-s | -c -a ADDR [-w]) [-p port] [-C count]
 *              [-S size] [-V] [-v] [--ip A.B.C.D] [--ip6 ADDR6] [--port-id N]
 *              [--timeout secs]
 *
 * --ip6 gives the port an IPv6 address too (its GID 1): a server then also
 * takes requests to it, a client given an IPv6 -a connects from it.
 *
 * The protocol is rping's: each iteration the client fills its start
 * buffer ("rdma-ping-N: " and letters), advertises it in a 16-byte SEND
 * (address, rkey, length, big-endian); the server RDMA READs it, SENDs a
 * go-ahead; the client advertises its sink buffer; the server RDMA WRITEs
 * what it read there and SENDs again; with -V the client compares sink and
 * start. The client disconnects after -C iterations; the server serves
 * until the client disconnects. With -w the client tries again (every
 * 100 ms, until --timeout) while the server rejects it for want of a
 * listener. The engine is polled by this thread.
 * Last line: "rping: role=R iterations=N errors=E"; exit status 0 when the
 * connection was established, every iteration succeeded (and, with -C on
 * the server, N == count) and it ended with a disconnect.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_app_peer.h"
#include "rnic_cm.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"

#define RPING_PORT   7174
#define INFO_LEN     16
#define SQ_DEPTH     16
#define WR_RECV      1
#define WR_SEND      2
#define WR_RDMA      3

struct opts {
	bool server, validate, verbose, wait_listener;
	rte_be32_t peer_ip, ip;
	bool peer_v6, have_ip6;
	uint8_t peer_ip6[16], ip6[16];
	uint16_t port, port_id;
	uint32_t count, size;
	unsigned int timeout_s;
};

static struct rnic_device *dev;
static struct rnic_cm *cm;
static uint64_t deadline;
static bool o_verbose;

struct conn {
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	struct rnic_cm_id *id;
	struct rnic_mr *mr;
	uint8_t *mem;              /* recv info | send info | rdma buf | start buf */
	uint8_t *recv_info, *send_info, *rdma_buf, *start_buf;
	bool disconnected;
	uint32_t iters, errors;
};

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-rping [EAL args] -- (-s | -c -a ADDR [-w]) [-p port] "
		"[-C count] [-S size] [-V] [-v] [--ip A.B.C.D] [--ip6 ADDR6] [--port-id N] "
		"[--timeout s]\n");
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "ip", required_argument, NULL, 'I' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "ip6", required_argument, NULL, '6' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	bool client = false;

	o->port = RPING_PORT;
	o->size = 64;
	o->timeout_s = 60;
	o->ip = htonl(0x0a630002);   /* 10.99.0.2, the interop harness's */
	while ((c = getopt_long(argc, argv, "sca:p:C:S:Vvw", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': client = true; break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &o->peer_ip) == 1)
				break;
			if (inet_pton(AF_INET6, optarg, o->peer_ip6) != 1)
				return -1;
			o->peer_v6 = true;
			break;
		case '6':
			if (inet_pton(AF_INET6, optarg, o->ip6) != 1)
				return -1;
			o->have_ip6 = true;
			break;
		case 'p': o->port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'C': o->count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': o->size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'V': o->validate = true; break;
		case 'v': o->verbose = true; break;
		case 'w': o->wait_listener = true; break;
		case 'I': if (inet_pton(AF_INET, optarg, &o->ip) != 1) return -1; break;
		case 'P': o->port_id = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'T': o->timeout_s = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	if (o->server == client || (client && o->peer_ip == 0 && !o->peer_v6) ||
	    (o->peer_v6 && !o->have_ip6) || o->size < 26 ||
	    o->size > 65536 || (client && o->count == 0))
		return -1;
	return 0;
}

static bool
expired(void)
{
	return rte_get_tsc_cycles() > deadline;
}

/* One round: the engine, then the CM; a CM event for the caller, if any. */
static int
poll_once(struct rnic_cm_event *ev)
{
	rnic_dev_poll(dev, RNIC_ROLE_ALL);
	return rnic_cm_poll(cm, ev);
}

static int
wait_cm(enum rnic_cm_event_type want, struct rnic_cm_event *ev, struct conn *c)
{
	while (!expired()) {
		if (poll_once(ev) != 1)
			continue;
		if (ev->type == want)
			return 0;
		if (ev->type == RNIC_CM_EV_DISCONNECTED && c != NULL) {
			c->disconnected = true;
			return -1;
		}
		fprintf(stderr, "rnic-rping: CM event %d (reason %u), waiting for %d\n", ev->type,
			ev->reject_reason, want);
		return -1;
	}
	fprintf(stderr, "rnic-rping: timed out waiting for CM event %d\n", want);
	return -1;
}

static int conn_qp(struct conn *c);

static int
conn_setup(struct conn *c, const struct opts *o, struct rnic_pd *pd)
{
	size_t len = 2 * INFO_LEN + 2 * (size_t)o->size;

	memset(c, 0, sizeof(*c));
	c->pd = pd;
	c->cq = rnic_create_cq(dev, SQ_DEPTH * 2);
	c->mem = rte_zmalloc("rping", len, 64);
	if (c->cq == NULL || c->mem == NULL)
		return -1;
	c->recv_info = c->mem;
	c->send_info = c->mem + INFO_LEN;
	c->rdma_buf = c->mem + 2 * INFO_LEN;
	c->start_buf = c->rdma_buf + o->size;
	c->mr = rnic_reg_mr(pd, c->mem, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_WRITE);
	return c->mr ? conn_qp(c) : -1;
}

/* An RC QP on the connection's CQ, in Init. */
static int
conn_qp(struct conn *c)
{
	struct rnic_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = c->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = SQ_DEPTH;
	ia.cap.max_recv_wr = 2;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	c->qp = rnic_create_qp(c->pd, &ia);
	if (c->qp == NULL)
		return -1;
	/* Init now, as rdma_create_qp leaves it: receives can be posted
	 * before the connection exists. */
	{
		struct rnic_qp_attr a = { .qp_state = RNIC_QPS_INIT, .port_num = 1,
					  .qp_access_flags = RNIC_ACCESS_REMOTE_WRITE |
							     RNIC_ACCESS_REMOTE_READ };

		return rnic_modify_qp(c->qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX |
				      RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS);
	}
}

static int
post_recv(struct conn *c)
{
	struct rnic_sge sg = { (uintptr_t)c->recv_info, INFO_LEN, rnic_mr_lkey(c->mr) };
	struct rnic_recv_wr wr = { .wr_id = WR_RECV, .sg_list = &sg, .num_sge = 1 }, *bad;

	return rnic_post_recv(c->qp, &wr, &bad);
}

/* Advertise @p buf (@p len bytes) in a SEND, as rping_format_send. */
static int
send_info(struct conn *c, const uint8_t *buf, uint32_t len)
{
	uint64_t a = rte_cpu_to_be_64((uintptr_t)buf);
	uint32_t k = rte_cpu_to_be_32(rnic_mr_rkey(c->mr)), l = rte_cpu_to_be_32(len);
	struct rnic_sge sg = { (uintptr_t)c->send_info, INFO_LEN, rnic_mr_lkey(c->mr) };
	struct rnic_send_wr wr = { .wr_id = WR_SEND, .sg_list = &sg, .num_sge = 1,
				   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED },
			    *bad;

	int rc;

	memcpy(c->send_info, &a, 8);
	memcpy(c->send_info + 8, &k, 4);
	memcpy(c->send_info + 12, &l, 4);
	rc = rnic_post_send(c->qp, &wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "rnic-rping: post SEND: %s\n", strerror(-rc));
		c->errors++;
	}
	return rc;
}

static int
rdma(struct conn *c, enum rnic_wr_opcode op, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct rnic_sge sg = { (uintptr_t)c->rdma_buf, len, rnic_mr_lkey(c->mr) };
	struct rnic_send_wr wr = { .wr_id = WR_RDMA, .sg_list = &sg, .num_sge = 1,
				   .opcode = op, .send_flags = RNIC_SEND_SIGNALED }, *bad;

	int rc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	rc = rnic_post_send(c->qp, &wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "rnic-rping: post RDMA %s: %s\n",
			op == RNIC_WR_RDMA_READ ? "READ" : "WRITE", strerror(-rc));
		c->errors++;
	}
	return rc;
}

/* The next completion of @p wrid (a receive is posted again); SEND
 * completions on the way are taken. -1 on an error, a timeout or a
 * disconnect (c->disconnected). */
static int
wait_wc(struct conn *c, uint64_t wrid, struct rnic_wc *out)
{
	struct rnic_cm_event ev;
	struct rnic_wc wc;

	while (!expired()) {
		if (poll_once(&ev) == 1 && ev.type == RNIC_CM_EV_DISCONNECTED) {
			c->disconnected = true;
			if (o_verbose)
				printf("rnic-rping: disconnected\n");
			return -1;
		}
		if (rnic_poll_cq(c->cq, 1, &wc) != 1)
			continue;
		if (wc.status != RNIC_WC_SUCCESS) {
			if (wc.status != RNIC_WC_WR_FLUSH_ERR) {
				fprintf(stderr, "rnic-rping: completion %" PRIu64 " failed: %s\n",
					wc.wr_id, rnic_wc_status_str(wc.status));
				c->errors++;
			}
			continue;   /* a flush: the disconnect event follows */
		}
		if (wc.wr_id == WR_RECV) {
			int rc = post_recv(c);

			if (rc != 0) {
				fprintf(stderr, "rnic-rping: post_recv: %s\n", strerror(-rc));
				c->errors++;
				return -1;
			}
		}
		if (wc.wr_id == wrid) {
			*out = wc;
			return 0;
		}
	}
	fprintf(stderr, "rnic-rping: timed out\n");
	c->errors++;
	return -1;
}

static int
server(const struct opts *o, struct rnic_pd *pd, struct conn *c)
{
	struct rnic_cm_id *lid = rnic_cm_listen(cm, o->port);
	struct rnic_cm_param p = { .responder_resources = 1, .initiator_depth = 1,
				   .retry_count = 7, .rnr_retry_count = 7 };
	struct rnic_cm_event ev;
	struct rnic_wc wc;
	int n;

	if (lid == NULL)
		return -1;
	printf("rnic-rping: listening on port %u\n", o->port);
	fflush(stdout);
	if (wait_cm(RNIC_CM_EV_CONNECT_REQUEST, &ev, NULL) != 0)
		return -1;
	if (conn_setup(c, o, pd) != 0 || post_recv(c) != 0) {
		fprintf(stderr, "rnic-rping: QP setup failed\n");
		return -1;
	}
	c->id = ev.id;
	n = rnic_cm_accept(c->id, c->qp, &p);
	if (n != 0) {
		fprintf(stderr, "rnic-rping: accept: %s\n", strerror(-n));
		return -1;
	}
	if (wait_cm(RNIC_CM_EV_ESTABLISHED, &ev, c) != 0) {
		fprintf(stderr, "rnic-rping: no RTU\n");
		return -1;
	}
	printf("rnic-rping: connection established (QPN 0x%06x)\n", rnic_qp_num(c->qp));
	for (;;) {
		uint64_t raddr;
		uint32_t rkey, rlen;

		if (wait_wc(c, WR_RECV, &wc) != 0)
			break;   /* the client is gone: the end */
		if (wc.byte_len != INFO_LEN) {
			c->errors++;
			break;
		}
		memcpy(&raddr, c->recv_info, 8);
		memcpy(&rkey, c->recv_info + 8, 4);
		memcpy(&rlen, c->recv_info + 12, 4);
		raddr = rte_be_to_cpu_64(raddr);
		rkey = rte_be_to_cpu_32(rkey);
		rlen = rte_be_to_cpu_32(rlen);
		if (rlen > o->size) {
			fprintf(stderr, "rnic-rping: the client's buffer (%u) exceeds -S %u\n", rlen,
				o->size);
			c->errors++;
			break;
		}
		if (rdma(c, RNIC_WR_RDMA_READ, raddr, rkey, rlen) != 0 ||
		    wait_wc(c, WR_RDMA, &wc) != 0)
			break;
		if (o->verbose)
			printf("server ping data: %.*s\n", (int)rlen, (const char *)c->rdma_buf);
		if (send_info(c, c->rdma_buf, o->size) != 0 || wait_wc(c, WR_RECV, &wc) != 0)
			break;
		memcpy(&raddr, c->recv_info, 8);
		memcpy(&rkey, c->recv_info + 8, 4);
		raddr = rte_be_to_cpu_64(raddr);
		rkey = rte_be_to_cpu_32(rkey);
		rlen = (uint32_t)strnlen((const char *)c->rdma_buf, o->size - 1) + 1;
		if (rdma(c, RNIC_WR_RDMA_WRITE, raddr, rkey, rlen) != 0 ||
		    wait_wc(c, WR_RDMA, &wc) != 0)
			break;
		if (send_info(c, c->rdma_buf, o->size) != 0)
			break;
		c->iters++;
	}
	if (!c->disconnected)
		wait_cm(RNIC_CM_EV_DISCONNECTED, &ev, c);
	if (o->count && c->iters != o->count) {
		fprintf(stderr, "rnic-rping: %u iterations, -C says %u\n", c->iters, o->count);
		c->errors++;
	}
	return c->disconnected ? 0 : -1;
}

static int
client(const struct opts *o, struct rnic_pd *pd, struct conn *c)
{
	struct rnic_cm_param p = { .responder_resources = 1, .initiator_depth = 1,
				   .retry_count = 7, .rnr_retry_count = 7 };
	struct rnic_cm_event ev;
	struct rnic_wc wc;
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
	int start = 65;

	if (o->peer_v6)
		memcpy(gid, o->peer_ip6, 16);   /* from our IPv6 GID (1) */
	else
		memcpy(gid + 12, &o->peer_ip, 4);
	if (conn_setup(c, o, pd) != 0 || post_recv(c) != 0) {
		fprintf(stderr, "rnic-rping: QP setup failed\n");
		return -1;
	}
	for (;;) {
		c->id = rnic_cm_connect(cm, c->qp, gid, o->peer_v6 ? 1 : 0, o->port, &p);
		if (c->id == NULL)
			break;
		if (wait_cm(RNIC_CM_EV_ESTABLISHED, &ev, c) == 0)
			break;
		/* -w: nobody listens yet (REJ, invalid service ID): again, a
		 * fresh QP, every 100 ms until --timeout */
		if (!o->wait_listener || ev.type != RNIC_CM_EV_REJECTED ||
		    ev.reject_reason != RNIC_CM_REJ_INVALID_SERVICE || expired()) {
			c->id = NULL;
			break;
		}
		rnic_cm_destroy_id(c->id);
		rnic_destroy_qp(c->qp);
		c->qp = NULL;
		{
			uint64_t until = rte_get_tsc_cycles() + rte_get_tsc_hz() / 10;

			while (rte_get_tsc_cycles() < until)
				poll_once(&ev);
		}
		if (conn_qp(c) != 0 || post_recv(c) != 0)
			return -1;
	}
	if (c->id == NULL) {
		fprintf(stderr, "rnic-rping: connect failed\n");
		return -1;
	}
	printf("rnic-rping: connection established (QPN 0x%06x)\n", rnic_qp_num(c->qp));
	for (uint32_t ping = 0; ping < o->count; ping++) {
		int n = snprintf((char *)c->start_buf, o->size, "rdma-ping-%u: ", ping);
		int ch = start;

		for (uint32_t i = (uint32_t)n; i < o->size; i++) {
			c->start_buf[i] = (uint8_t)ch;
			if (++ch > 122)
				ch = 65;
		}
		if (++start > 122)
			start = 65;
		c->start_buf[o->size - 1] = 0;
		memset(c->rdma_buf, 0, o->size);
		if (send_info(c, c->start_buf, o->size) != 0 || wait_wc(c, WR_RECV, &wc) != 0 ||
		    send_info(c, c->rdma_buf, o->size) != 0 || wait_wc(c, WR_RECV, &wc) != 0)
			break;
		if (o->validate && memcmp(c->start_buf, c->rdma_buf, o->size) != 0) {
			fprintf(stderr, "rnic-rping: data mismatch in ping %u\n", ping);
			c->errors++;
			break;
		}
		if (o->verbose)
			printf("ping data: %s\n", (const char *)c->rdma_buf);
		c->iters++;
	}
	if (rnic_cm_disconnect(c->id) != 0 || wait_cm(RNIC_CM_EV_DISCONNECTED, &ev, c) != 0) {
		if (!c->disconnected)
			return -1;
	}
	c->disconnected = true;
	return c->iters == o->count ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct conn c;
	struct rnic_pd *pd;
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rnic-rping: EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	memset(&o, 0, sizeof(o));
	if (parse(argc - n, argv + n, &o) != 0) {
		usage();
		return 2;
	}
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz() * o.timeout_s;
	o_verbose = o.verbose;
	dev = rnic_app_peer_dev6("rnic-rping", o.port_id, o.ip, o.have_ip6 ? o.ip6 : NULL, 8192);
	if (dev == NULL)
		return 1;
	pd = rnic_alloc_pd(dev);
	cm = pd ? rnic_cm_create(dev, pd) : NULL;
	if (cm == NULL) {
		fprintf(stderr, "rnic-rping: CM: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	memset(&c, 0, sizeof(c));
	rc = o.server ? server(&o, pd, &c) : client(&o, pd, &c);
	printf("rping: role=%s iterations=%u errors=%u\n", o.server ? "server" : "client",
	       c.iters, c.errors);
	fflush(stdout);
	return rc == 0 && c.errors == 0 && c.iters > 0 ? 0 : 1;
}
