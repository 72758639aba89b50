/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softrnic's librdmacm.so.1 (issue 21, doc/ibverbs.md "rdma_cm") called as
 * a program would: compiled against Debian's <rdma/rdma_cma.h>, linked
 * with softrnic's libraries, on the ring-pair configuration
 * (config/ibverbs-loopback.json: softrnic_0 at 10.0.1.1 / fd00:1::1 and
 * softrnic_1 at 10.0.1.2 / fd00:1::2 in this process; the server binds
 * the first, the client resolves from the second). What the unmodified
 * programs of run_ibverbs.py do not show:
 *
 * - rdma_getaddrinfo, rdma_get_devices, rdma_event_str; the IB port
 *   space refused (EPROTONOSUPPORT), a bind to an address no device has
 *   (EADDRNOTAVAIL), a non-blocking channel with nothing queued (EAGAIN).
 * - A connect to a port nobody listens on: REJECTED, status 8 (invalid
 *   service ID); rdma_reject: REJECTED, status 28 (consumer).
 * - A connection request as the kernel reports it: the listener's id as
 *   listen_id, the client's private data, responder resources and
 *   initiator depth from the server's view (swapped).
 * - Accept with CQs made by the library, ESTABLISHED at both ends with
 *   the REP's private data at the client, a SEND whose data arrives,
 *   rdma_disconnect: DISCONNECTED at both ends; over IPv4 and IPv6.
 * - rdma_destroy_id of a connected id: the peer sees DISCONNECTED (DREQ).
 * - The UDP port space (SIDR): a UD QP ready at creation (an RC one
 *   refused), the request's private data, the server's QP number, Q_Key
 *   and address in the client's ESTABLISHED, a datagram sent with them
 *   arriving; a port nobody listens on: UNREACHABLE, status 1.
 * - rdma_get_cm_event on a channel already destroyed blocks (rping of
 *   rdma-core 44 calls it from its CM thread while main destroys the
 *   channel at exit; it read freed memory and returned EBADF, and rping
 *   exited 255).
 *
 * Every wait is bounded (5 s). Exit status: the number of failed checks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "check.h"

#define WAIT_MS 5000
#define MSG 64

static struct rdma_event_channel *srv_ch, *cli_ch;

/* The next event of @p ch within WAIT_MS (NULL: none came). */
static struct rdma_cm_event *
next_event(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, WAIT_MS) != 1 || rdma_get_cm_event(ch, &ev) != 0)
		return NULL;
	return ev;
}

/* Wait for an event of type @p want; its status in *status. 0 when it came. */
static int
expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want, int *status)
{
	struct rdma_cm_event *ev = next_event(ch);
	int ok;

	if (ev == NULL) {
		printf("     (no event, wanted %s)\n", rdma_event_str(want));
		return -1;
	}
	ok = ev->event == want;
	if (!ok)
		printf("     (got %s status %d, wanted %s)\n", rdma_event_str(ev->event),
		       ev->status, rdma_event_str(want));
	if (status)
		*status = ev->status;
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static void
set_addr(struct sockaddr_storage *ss, const char *ip, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s->sin6_addr);
	} else {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		inet_pton(AF_INET, ip, &s->sin_addr);
	}
}

static struct ibv_qp_init_attr
qp_attr(void)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.sq_sig_all = 1;
	return a;
}

/* A client id of port space @p ps from @p src to @p dst:@p port, its
 * address and route resolved. */
static struct rdma_cm_id *
resolved(enum rdma_port_space ps, const char *src, const char *dst, int port)
{
	struct sockaddr_storage s, d;
	struct rdma_cm_id *id;

	set_addr(&s, src, 0);
	set_addr(&d, dst, port);
	if (rdma_create_id(cli_ch, &id, NULL, ps) != 0)
		return NULL;
	if (rdma_resolve_addr(id, (struct sockaddr *)&s, (struct sockaddr *)&d, 2000) != 0 ||
	    expect(cli_ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) != 0 ||
	    rdma_resolve_route(id, 2000) != 0 ||
	    expect(cli_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) != 0) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

/* A client id from @p src to @p dst:@p port, routed, with an RC QP. */
static struct rdma_cm_id *
client(const char *src, const char *dst, int port)
{
	struct rdma_cm_id *id = resolved(RDMA_PS_TCP, src, dst, port);
	struct ibv_qp_init_attr qa = qp_attr();

	if (id != NULL && rdma_create_qp(id, NULL, &qa) != 0) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

static void
client_free(struct rdma_cm_id *id)
{
	if (id == NULL)
		return;
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static int
connect_with(struct rdma_cm_id *id, const char *pdata, int resp, int init)
{
	struct rdma_conn_param p;

	memset(&p, 0, sizeof(p));
	p.private_data = pdata;
	p.private_data_len = (uint8_t)(strlen(pdata) + 1);
	p.responder_resources = (uint8_t)resp;
	p.initiator_depth = (uint8_t)init;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return rdma_connect(id, &p);
}

static int late_rc, late_errno;

static void *
late_reader(void *arg)
{
	struct rdma_cm_event *ev;

	late_rc = rdma_get_cm_event(arg, &ev);
	late_errno = errno;
	return NULL;
}

/* A CM thread that calls rdma_get_cm_event once more after main destroyed
 * its channel waits there (for 300 ms here; then it is left blocked until
 * the process exits), as with rdma-core when its read() began first. */
static void
test_destroyed_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct timespec ts;
	pthread_t t;
	int rc;

	CHECK(ch != NULL, "a third channel");
	if (ch == NULL)
		return;
	rdma_destroy_event_channel(ch);
	if (pthread_create(&t, NULL, late_reader, ch) != 0) {
		CHECK(false, "pthread_create");
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 300 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	rc = pthread_timedjoin_np(t, NULL, &ts);
	CHECK(rc == ETIMEDOUT, "rdma_get_cm_event on a destroyed channel blocks (returned %d, "
	      "errno %d)", late_rc, late_errno);
	if (rc == ETIMEDOUT)
		pthread_detach(t);
}

static void
test_misc(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct rdma_cm_id *id;
	struct sockaddr_storage ss;
	struct rdma_cm_event *ev;
	struct ibv_context **devs;
	int n = 0, fl;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST;
	hints.ai_port_space = RDMA_PS_TCP;
	CHECK(rdma_getaddrinfo("10.0.1.1", "7000", &hints, &res) == 0 && res &&
	      res->ai_src_addr && res->ai_src_addr->sa_family == AF_INET &&
	      ntohs(((struct sockaddr_in *)res->ai_src_addr)->sin_port) == 7000 &&
	      res->ai_dst_addr == NULL && res->ai_qp_type == IBV_QPT_RC,
	      "rdma_getaddrinfo passive: the source address, port 7000, RC");
	rdma_freeaddrinfo(res);
	devs = rdma_get_devices(&n);
	CHECK(devs && n == 2 && devs[0] && devs[1] && devs[2] == NULL,
	      "rdma_get_devices: 2 (%d)", n);
	rdma_free_devices(devs);
	CHECK(strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED") == 0,
	      "rdma_event_str");
	errno = 0;
	CHECK(rdma_create_id(cli_ch, &id, NULL, RDMA_PS_IB) == -1 && errno == EPROTONOSUPPORT,
	      "the IB port space: EPROTONOSUPPORT (%d)", errno);
	CHECK(rdma_create_id(cli_ch, &id, NULL, RDMA_PS_TCP) == 0, "rdma_create_id");
	set_addr(&ss, "10.9.9.9", 7000);
	errno = 0;
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&ss) == -1 && errno == EADDRNOTAVAIL,
	      "bind to an address no device has: EADDRNOTAVAIL (%d)", errno);
	rdma_destroy_id(id);
	fl = fcntl(cli_ch->fd, F_GETFL);
	fcntl(cli_ch->fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	CHECK(rdma_get_cm_event(cli_ch, &ev) == -1 && errno == EAGAIN,
	      "non-blocking channel, nothing queued: EAGAIN (%d)", errno);
	fcntl(cli_ch->fd, F_SETFL, fl);
}

static void
test_reject(struct rdma_cm_id *lis)
{
	struct rdma_cm_id *c;
	struct rdma_cm_event *ev;
	int st = -1;

	c = client("10.0.1.2", "10.0.1.1", 7001);
	CHECK(c != NULL, "client resolved (address, route) and QP made");
	if (c == NULL)
		return;
	CHECK(connect_with(c, "nobody", 0, 0) == 0 &&
	      expect(cli_ch, RDMA_CM_EVENT_REJECTED, &st) == 0 && st == 8,
	      "no listener on the port: REJECTED, status 8 (%d)", st);
	client_free(c);

	c = client("10.0.1.2", "10.0.1.1", 7002);
	if (c == NULL || connect_with(c, "please", 4, 2) != 0) {
		CHECK(0, "second client connects");
		client_free(c);
		return;
	}
	ev = next_event(srv_ch);
	CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == lis &&
	      ev->id != lis && ev->param.conn.private_data &&
	      strcmp(ev->param.conn.private_data, "please") == 0 &&
	      ev->param.conn.responder_resources == 2 && ev->param.conn.initiator_depth == 4,
	      "CONNECT_REQUEST: listen_id, private data, resources from the server's view "
	      "(resp %d init %d)", ev ? ev->param.conn.responder_resources : -1,
	      ev ? ev->param.conn.initiator_depth : -1);
	if (ev) {
		struct rdma_cm_id *child = ev->id;

		CHECK(rdma_reject(child, NULL, 0) == 0, "rdma_reject");
		rdma_ack_cm_event(ev);
		rdma_destroy_id(child);
		st = -1;
		CHECK(expect(cli_ch, RDMA_CM_EVENT_REJECTED, &st) == 0 && st == 28,
		      "rejected by the server: REJECTED, status 28 (%d)", st);
	}
	client_free(c);
}

/* Poll @p cq for one completion within WAIT_MS. */
static int
one_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n != 0)
			return n == 1 && wc->status == IBV_WC_SUCCESS ? 0 : -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < WAIT_MS);
	return -1;
}

/* Connect, accept, a SEND, then end it: @p destroy_only leaves out
 * rdma_disconnect (the client's id is destroyed while connected). */
static void
test_connect(const char *cip, const char *sip, int port, bool destroy_only)
{
	struct rdma_cm_id *lis, *c, *child = NULL;
	struct rdma_cm_event *ev;
	struct sockaddr_storage ss;
	struct ibv_qp_init_attr qa = qp_attr();
	struct rdma_conn_param ap;
	static char sbuf[MSG], rbuf[MSG];
	struct ibv_mr *smr = NULL, *rmr = NULL;
	struct ibv_wc wc;
	const char *fam = strchr(sip, ':') ? "IPv6" : "IPv4";

	if (rdma_create_id(srv_ch, &lis, NULL, RDMA_PS_TCP) != 0)
		return;
	set_addr(&ss, sip, port);
	CHECK(rdma_bind_addr(lis, (struct sockaddr *)&ss) == 0 && rdma_listen(lis, 4) == 0 &&
	      lis->verbs != NULL && ntohs(rdma_get_src_port(lis)) == port,
	      "%s: listener bound to %s port %d, on its device", fam, sip, port);
	CHECK(rdma_listen(lis, 8) == 0, "%s: rdma_listen again: no error, still listening", fam);
	c = client(cip, sip, port);
	CHECK(c != NULL && connect_with(c, "hello-req", 1, 1) == 0, "%s: client connects", fam);
	ev = c ? next_event(srv_ch) : NULL;
	if (ev == NULL || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		CHECK(0, "%s: CONNECT_REQUEST", fam);
		goto out;
	}
	child = ev->id;
	rdma_ack_cm_event(ev);
	CHECK(rdma_create_qp(child, NULL, &qa) == 0 && child->qp && child->send_cq &&
	      child->recv_cq && child->send_cq_channel,
	      "%s: rdma_create_qp without CQs: the library made them", fam);
	if (child->qp == NULL)
		goto out;
	rmr = ibv_reg_mr(child->qp->pd, rbuf, MSG, IBV_ACCESS_LOCAL_WRITE);
	smr = ibv_reg_mr(c->qp->pd, sbuf, MSG, 0);
	{
		struct ibv_sge sg = { (uintptr_t)rbuf, MSG, rmr ? rmr->lkey : 0 };
		struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 }, *bad;

		CHECK(rmr && smr && ibv_post_recv(child->qp, &wr, &bad) == 0,
		      "%s: a receive posted before accept (the QP is in Init)", fam);
	}
	memset(&ap, 0, sizeof(ap));
	ap.private_data = "hello-rep";
	ap.private_data_len = 10;
	ap.responder_resources = ap.initiator_depth = 1;
	ap.rnr_retry_count = 7;
	CHECK(rdma_accept(child, &ap) == 0, "%s: rdma_accept", fam);
	ev = next_event(cli_ch);
	CHECK(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED && ev->param.conn.private_data &&
	      strcmp(ev->param.conn.private_data, "hello-rep") == 0,
	      "%s: client ESTABLISHED with the REP's private data", fam);
	if (ev)
		rdma_ack_cm_event(ev);
	CHECK(expect(srv_ch, RDMA_CM_EVENT_ESTABLISHED, NULL) == 0, "%s: server ESTABLISHED", fam);
	for (int i = 0; i < MSG; i++)
		sbuf[i] = (char)(i * 7 + port);
	{
		struct ibv_sge sg = { (uintptr_t)sbuf, MSG, smr ? smr->lkey : 0 };
		struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sg, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *bad;

		CHECK(ibv_post_send(c->qp, &wr, &bad) == 0 && one_wc(c->send_cq ? c->send_cq :
		      c->qp->send_cq, &wc) == 0 && one_wc(child->recv_cq, &wc) == 0 &&
		      wc.byte_len == MSG && memcmp(sbuf, rbuf, MSG) == 0,
		      "%s: a SEND from client to server, the data arrived", fam);
	}
	if (destroy_only) {
		rdma_destroy_qp(c);
		rdma_destroy_id(c);
		c = NULL;
		CHECK(expect(srv_ch, RDMA_CM_EVENT_DISCONNECTED, NULL) == 0,
		      "%s: client id destroyed while connected: server DISCONNECTED", fam);
	} else {
		CHECK(rdma_disconnect(c) == 0 &&
		      expect(cli_ch, RDMA_CM_EVENT_DISCONNECTED, NULL) == 0 &&
		      expect(srv_ch, RDMA_CM_EVENT_DISCONNECTED, NULL) == 0,
		      "%s: rdma_disconnect: DISCONNECTED at both ends", fam);
		CHECK(rdma_disconnect(child) == 0, "%s: disconnecting a closed id: no error", fam);
	}
out:
	if (smr)
		ibv_dereg_mr(smr);
	if (rmr)
		ibv_dereg_mr(rmr);
	client_free(c);
	if (child) {
		rdma_destroy_qp(child);
		rdma_destroy_id(child);
	}
	rdma_destroy_id(lis);
}

/* The UDP port space: SIDR resolves the server's UD QP, whose number, Q_Key
 * and address the client's ESTABLISHED carries; a datagram sent with them
 * arrives. A port nobody listens on: UNREACHABLE, status 1. */
static void
test_ud(void)
{
	struct rdma_cm_id *lis, *c = NULL, *child = NULL;
	struct rdma_cm_event *ev;
	struct sockaddr_storage ss;
	struct ibv_qp_init_attr qa = qp_attr();
	struct ibv_ah *ah = NULL;
	struct ibv_mr *smr = NULL, *rmr = NULL;
	static char sbuf[MSG], rbuf[40 + MSG];
	struct rdma_conn_param p;
	struct rdma_ud_param ud;
	struct ibv_wc wc;
	int st = -1;

	qa.qp_type = IBV_QPT_UD;
	if (rdma_create_id(srv_ch, &lis, NULL, RDMA_PS_UDP) != 0) {
		CHECK(0, "UD: rdma_create_id(RDMA_PS_UDP)");
		return;
	}
	set_addr(&ss, "10.0.1.1", 7020);
	CHECK(rdma_bind_addr(lis, (struct sockaddr *)&ss) == 0 && rdma_listen(lis, 4) == 0,
	      "UD: listener on 10.0.1.1 port 7020");
	c = resolved(RDMA_PS_UDP, "10.0.1.2", "10.0.1.1", 7021);
	if (c == NULL) {
		CHECK(0, "UD: client resolved");
		goto out;
	}
	memset(&p, 0, sizeof(p));
	CHECK(rdma_connect(c, &p) == 0 && expect(cli_ch, RDMA_CM_EVENT_UNREACHABLE, &st) == 0 &&
	      st == 1, "UD: SIDR for a port nobody listens on: UNREACHABLE, status 1 (%d)", st);
	rdma_destroy_id(c);
	c = NULL;

	c = resolved(RDMA_PS_UDP, "10.0.1.2", "10.0.1.1", 7020);
	if (c == NULL) {
		CHECK(0, "UD: client resolved");
		goto out;
	}
	{
		struct ibv_qp_init_attr rc = qp_attr();

		errno = 0;
		CHECK(rdma_create_qp(c, NULL, &rc) == -1 && errno == EOPNOTSUPP,
		      "UD: an RC QP on a UDP port space id: EOPNOTSUPP (%d)", errno);
	}
	CHECK(rdma_create_qp(c, NULL, &qa) == 0 && c->qp && c->qp->state == IBV_QPS_RTS,
	      "UD: rdma_create_qp: a UD QP, ready to send (RTS)");
	p.private_data = "ud-hello";
	p.private_data_len = 9;
	CHECK(rdma_connect(c, &p) == 0, "UD: rdma_connect (SIDR_REQ)");
	ev = next_event(srv_ch);
	if (ev == NULL || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		CHECK(0, "UD: CONNECT_REQUEST");
		if (ev)
			rdma_ack_cm_event(ev);
		goto out;
	}
	child = ev->id;
	CHECK(ev->listen_id == lis && child->qp_type == IBV_QPT_UD && ev->param.ud.private_data &&
	      strcmp(ev->param.ud.private_data, "ud-hello") == 0,
	      "UD: CONNECT_REQUEST with the client's private data, a UD id");
	rdma_ack_cm_event(ev);
	qa = qp_attr();
	qa.qp_type = IBV_QPT_UD;
	CHECK(rdma_create_qp(child, NULL, &qa) == 0, "UD: the server's UD QP");
	if (child->qp == NULL)
		goto out;
	rmr = ibv_reg_mr(child->qp->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	{
		struct ibv_sge sg = { (uintptr_t)rbuf, sizeof(rbuf), rmr ? rmr->lkey : 0 };
		struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 }, *bad;

		CHECK(rmr && ibv_post_recv(child->qp, &wr, &bad) == 0, "UD: a receive posted");
	}
	CHECK(rdma_accept(child, NULL) == 0, "UD: rdma_accept (SIDR_REP)");
	ev = next_event(cli_ch);
	memset(&ud, 0, sizeof(ud));
	if (ev && ev->event == RDMA_CM_EVENT_ESTABLISHED)
		ud = ev->param.ud;
	CHECK(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED && ud.qp_num == child->qp->qp_num &&
	      ud.qkey == RDMA_UDP_QKEY && ud.ah_attr.is_global &&
	      ud.ah_attr.grh.dgid.raw[10] == 0xff && ud.ah_attr.grh.dgid.raw[12] == 10 &&
	      ud.ah_attr.grh.dgid.raw[15] == 1,
	      "UD: ESTABLISHED with the server's QP number (%u), rdma_cm's Q_Key, its address",
	      ud.qp_num);
	if (ev)
		rdma_ack_cm_event(ev);
	ah = ibv_create_ah(c->qp->pd, &ud.ah_attr);
	smr = ibv_reg_mr(c->qp->pd, sbuf, MSG, 0);
	for (int i = 0; i < MSG; i++)
		sbuf[i] = (char)(i * 5 + 1);
	{
		struct ibv_sge sg = { (uintptr_t)sbuf, MSG, smr ? smr->lkey : 0 };
		struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sg, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = ud.qp_num;
		wr.wr.ud.remote_qkey = ud.qkey;
		CHECK(ah && smr && ibv_post_send(c->qp, &wr, &bad) == 0 &&
		      one_wc(c->send_cq, &wc) == 0 && one_wc(child->recv_cq, &wc) == 0 &&
		      wc.byte_len == 40 + MSG && memcmp(sbuf, rbuf + 40, MSG) == 0,
		      "UD: a datagram to the QP SIDR named arrived, data checked");
	}
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (smr)
		ibv_dereg_mr(smr);
	if (rmr)
		ibv_dereg_mr(rmr);
	if (c) {
		rdma_destroy_qp(c);
		rdma_destroy_id(c);
	}
	if (child) {
		rdma_destroy_qp(child);
		rdma_destroy_id(child);
	}
	rdma_destroy_id(lis);
}

int
main(void)
{
	struct rdma_cm_id *lis;
	struct sockaddr_storage ss;

	setvbuf(stdout, NULL, _IOLBF, 0);
	srv_ch = rdma_create_event_channel();
	cli_ch = rdma_create_event_channel();
	CHECK(srv_ch && cli_ch, "event channels");
	if (srv_ch == NULL || cli_ch == NULL)
		return 1;
	test_misc();
	if (rdma_create_id(srv_ch, &lis, NULL, RDMA_PS_TCP) == 0) {
		set_addr(&ss, "0.0.0.0", 7002);
		CHECK(rdma_bind_addr(lis, (struct sockaddr *)&ss) == 0 && rdma_listen(lis, 4) == 0,
		      "listener on any address, port 7002");
		test_reject(lis);
		rdma_destroy_id(lis);
	}
	test_connect("10.0.1.2", "10.0.1.1", 7010, false);
	test_connect("fd00:1::2", "fd00:1::1", 7011, false);
	test_connect("10.0.1.2", "10.0.1.1", 7012, true);
	test_ud();
	test_destroyed_channel();
	rdma_destroy_event_channel(srv_ch);
	rdma_destroy_event_channel(cli_ch);
	printf("rdmacm-api: %d failed\n", failed);
	return failed;
}
