/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM (lib/cm, issue 21) between two engines on an in-process ring pair,
 * everything polled by hand from this thread (no lcores, no sleeps):
 *  - B listens on port 7471; A connects an RC QP over IPv4 (GID 0) with
 *    private data: B sees CONNECT_REQUEST with A's address, its rdma_cm
 *    port and the private data, accepts with its own QP; both sides see
 *    ESTABLISHED; then an RDMA WRITE A -> B and a SEND B -> A over the QPs
 *    the CM connected (data checked); A disconnects: both see
 *    DISCONNECTED and both QPs are in Error;
 *  - the same over IPv6 (GID 1; the peer's MAC by neighbour discovery);
 *  - a connect to a port nobody listens on: REJECTED, reason 8 (invalid
 *    service ID, after the 100 ms it waits for a listener); a listener that
 *    rejects: REJECTED, reason 28; a REQ that comes before its listener
 *    is taken by the listener that comes up within that time;
 *  - a second listener on a port already listened on: EADDRINUSE;
 *  - SIDR (the UDP port space): a UD listener hears a SIDR_REQ, its answer
 *    (QP number, Q_Key) comes back as ESTABLISHED; status 1 for a port
 *    nobody listens on, 2 for a refusal;
 *  - a SIDR_REQ from a peer whose MAC B must ask ARP for, and whose ARP
 *    reply comes 30 ms late: the SIDR_REP waits for it (no event, a
 *    duplicate meanwhile ignored) and then arrives; a later duplicate gets
 *    it again;
 *  - garbage MADs to QP1 (wrong class, unknown attribute): counted as
 *    dropped, no event; a REQ sent twice: one CONNECT_REQUEST, and an MRA
 *    back for the duplicate while it is unanswered; a REQ allowing 2 CM
 *    retries, accepted, never answered by an RTU: the REP sent 3 times,
 *    then UNREACHABLE; a REQ with
 *    a wrong Q_Key: dropped by the engine (drop_qkey), no event;
 *  - a peer whose CM never answers: the REQ tried 15 more times, then
 *    UNREACHABLE and the QP in Error (about 4 s);
 *  - every MAD each side sent was received by the other (counters).
 * Last line: "N passed, M failed"; exit status 1 on any failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "rnic_cm.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "rnic_wire.h"
#include "test_common.h"

static struct test_side A, B;
static struct rnic_cm *cma, *cmb;

#define ROUNDS 2000000L

/* Poll the engines and both CMs until an event arrives at @p cm (or the
 * bound runs out); the other CM's events are kept for later. */
static struct rnic_cm_event pending_a[8], pending_b[8];
static unsigned int n_pa, n_pb;

static int
next_event(struct rnic_cm *cm, struct rnic_cm_event *ev)
{
	for (long i = 0; i < ROUNDS; i++) {
		struct rnic_cm_event e;

		test_poll_pair(&A, &B);
		if (cm == cma && n_pa) {
			*ev = pending_a[0];
			memmove(pending_a, pending_a + 1, --n_pa * sizeof(*ev));
			return 0;
		}
		if (cm == cmb && n_pb) {
			*ev = pending_b[0];
			memmove(pending_b, pending_b + 1, --n_pb * sizeof(*ev));
			return 0;
		}
		if (rnic_cm_poll(cma, &e) == 1 && n_pa < 8)
			pending_a[n_pa++] = e;
		if (rnic_cm_poll(cmb, &e) == 1 && n_pb < 8)
			pending_b[n_pb++] = e;
	}
	return -1;
}

static struct rnic_qp *
rc_qp(struct test_side *s)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = RNIC_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return rnic_create_qp(s->pd, &ia);
}

static int
wait_wc(struct rnic_cq *cq, struct rnic_wc *wc)
{
	for (long i = 0; i < ROUNDS; i++) {
		test_poll_pair(&A, &B);
		if (rnic_poll_cq(cq, 1, wc) == 1)
			return 0;
	}
	return -1;
}

/* Data over a pair the CM connected: WRITE a -> b, SEND b -> a. */
static void
check_data(struct rnic_qp *qa, struct rnic_qp *qb, const char *what)
{
	struct rnic_sge sg = { (uintptr_t)A.buf, 256, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr w = { .wr_id = 1, .sg_list = &sg, .num_sge = 1,
				  .opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED },
			    *bad;
	struct rnic_sge rs = { (uintptr_t)A.buf + 4096, 64, rnic_mr_lkey(A.mr) };
	struct rnic_recv_wr r = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct rnic_wc wc;

	for (int i = 0; i < 256; i++)
		A.buf[i] = (uint8_t)(i * 13 + 7);
	memset(B.buf + 512, 0, 256);
	w.wr.rdma.remote_addr = (uintptr_t)B.buf + 512;
	w.wr.rdma.rkey = rnic_mr_rkey(B.mr);
	EXPECT(rnic_post_send(qa, &w, &bad) == 0, "%s: WRITE posted", what);
	EXPECT(wait_wc(A.cq, &wc) == 0 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 1,
	       "%s: WRITE completes (%u)", what, wc.status);
	EXPECT(memcmp(B.buf + 512, A.buf, 256) == 0, "%s: WRITE data at B", what);
	EXPECT(rnic_post_recv(qa, &r, &rbad) == 0, "%s: receive posted", what);
	memcpy(B.buf + 1024, "reply from B", 13);
	sg = (struct rnic_sge){ (uintptr_t)B.buf + 1024, 13, rnic_mr_lkey(B.mr) };
	w = (struct rnic_send_wr){ .wr_id = 3, .sg_list = &sg, .num_sge = 1,
				   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED };
	EXPECT(rnic_post_send(qb, &w, &bad) == 0, "%s: SEND posted", what);
	EXPECT(wait_wc(A.cq, &wc) == 0 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 2 &&
	       wc.byte_len == 13 && memcmp(A.buf + 4096, "reply from B", 13) == 0,
	       "%s: SEND received at A", what);
	EXPECT(wait_wc(B.cq, &wc) == 0 && wc.wr_id == 3 && wc.status == RNIC_WC_SUCCESS,
	       "%s: SEND completes", what);
}

static void
full_cycle(uint8_t gidx, const char *what)
{
	struct rnic_cm_id *lid = rnic_cm_listen(cmb, 7471), *ca, *cb;
	struct rnic_qp *qa = rc_qp(&A), *qb = rc_qp(&B);
	struct rnic_cm_param p = { .responder_resources = 4, .initiator_depth = 4,
				   .retry_count = 7, .rnr_retry_count = 7 };
	struct rnic_cm_event ev;
	uint8_t dgid[16], agid[16];

	EXPECT(lid != NULL && qa != NULL && qb != NULL, "%s: listener and QPs", what);
	rnic_dev_query_gid(B.dev, gidx, dgid);
	rnic_dev_query_gid(A.dev, gidx, agid);
	memcpy(p.private_data, "hello from A", 13);
	p.private_data_len = 13;
	ca = rnic_cm_connect(cma, qa, dgid, gidx, 7471, &p);
	EXPECT(ca != NULL, "%s: connect (%s)", what, ca ? "" : rte_strerror(rte_errno));
	if (ca == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	EXPECT(next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_CONNECT_REQUEST &&
	       ev.listen_id == lid, "%s: B sees CONNECT_REQUEST (%d)", what, ev.type);
	if (ev.type != RNIC_CM_EV_CONNECT_REQUEST || ev.id == NULL)
		return;
	cb = ev.id;
	EXPECT(memcmp(ev.peer_gid, agid, 16) == 0, "%s: the request comes from A's GID", what);
	EXPECT(memcmp(ev.param.private_data, "hello from A", 13) == 0 &&
	       ev.param.responder_resources == 4 && ev.param.initiator_depth == 4,
	       "%s: private data and resources as A asked", what);
	EXPECT(ev.peer_port >= 0x8000, "%s: A's rdma_cm port %u", what, ev.peer_port);
	memcpy(p.private_data, "welcome", 8);
	p.private_data_len = 8;
	/* A receive posted while B's QP is still in Init (as rping does). */
	{
		struct rnic_qp_attr ia = { .qp_state = RNIC_QPS_INIT, .port_num = 1,
					   .qp_access_flags = RNIC_ACCESS_REMOTE_WRITE };
		struct rnic_sge rs = { (uintptr_t)B.buf + 2048, 64, rnic_mr_lkey(B.mr) };
		struct rnic_recv_wr r = { .wr_id = 77, .sg_list = &rs, .num_sge = 1 }, *rbad;

		EXPECT(rnic_modify_qp(qb, &ia, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
				      RNIC_QP_ACCESS_FLAGS) == 0 &&
		       rnic_post_recv(qb, &r, &rbad) == 0, "%s: receive posted in Init", what);
	}
	EXPECT(rnic_cm_accept(cb, qb, &p) == 0, "%s: accept", what);
	EXPECT(test_qp_state(qb) == RNIC_QPS_RTS, "%s: B's QP in RTS after accept", what);
	EXPECT(next_event(cma, &ev) == 0 && ev.type == RNIC_CM_EV_ESTABLISHED && ev.id == ca &&
	       memcmp(ev.param.private_data, "welcome", 8) == 0,
	       "%s: A sees ESTABLISHED with B's private data (%d)", what, ev.type);
	EXPECT(test_qp_state(qa) == RNIC_QPS_RTS, "%s: A's QP in RTS", what);
	EXPECT(next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_ESTABLISHED && ev.id == cb,
	       "%s: B sees ESTABLISHED (RTU) (%d)", what, ev.type);
	/* The receive posted in Init takes A's first SEND. */
	{
		struct rnic_sge sg = { (uintptr_t)A.buf + 8192, 16, rnic_mr_lkey(A.mr) };
		struct rnic_send_wr w = { .wr_id = 78, .sg_list = &sg, .num_sge = 1,
					  .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED },
				    *bad;
		struct rnic_wc wc;

		memcpy(A.buf + 8192, "0123456789abcdef", 16);
		EXPECT(rnic_post_send(qa, &w, &bad) == 0 && wait_wc(B.cq, &wc) == 0 &&
		       wc.wr_id == 77 && wc.status == RNIC_WC_SUCCESS && wc.byte_len == 16 &&
		       memcmp(B.buf + 2048, "0123456789abcdef", 16) == 0,
		       "%s: the receive posted in Init completes", what);
		EXPECT(wait_wc(A.cq, &wc) == 0 && wc.wr_id == 78, "%s: its SEND completes", what);
	}
	check_data(qa, qb, what);
	EXPECT(rnic_cm_disconnect(ca) == 0, "%s: A disconnects", what);
	EXPECT(next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_DISCONNECTED && ev.id == cb,
	       "%s: B sees DISCONNECTED (%d)", what, ev.type);
	EXPECT(next_event(cma, &ev) == 0 && ev.type == RNIC_CM_EV_DISCONNECTED && ev.id == ca,
	       "%s: A sees DISCONNECTED (DREP) (%d)", what, ev.type);
	EXPECT(test_qp_state(qa) == RNIC_QPS_ERR && test_qp_state(qb) == RNIC_QPS_ERR,
	       "%s: both QPs in Error", what);
	rnic_cm_destroy_id(ca);
	rnic_cm_destroy_id(cb);
	rnic_cm_destroy_id(lid);
	rnic_destroy_qp(qa);
	rnic_destroy_qp(qb);
}

static void
rejections(void)
{
	struct rnic_qp *qa = rc_qp(&A), *qa2 = rc_qp(&A);
	struct rnic_cm_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rnic_cm_id *ca, *lid, *cb;
	struct rnic_cm_event ev;
	uint8_t dgid[16];

	rnic_dev_query_gid(B.dev, 0, dgid);
	ca = rnic_cm_connect(cma, qa, dgid, 0, 9999, &p);
	EXPECT(ca != NULL && next_event(cma, &ev) == 0 && ev.type == RNIC_CM_EV_REJECTED &&
	       ev.reject_reason == RNIC_CM_REJ_INVALID_SERVICE,
	       "no listener: REJECTED, reason 8 (%d, %u)", ev.type, ev.reject_reason);
	EXPECT(test_qp_state(qa) == RNIC_QPS_ERR, "the rejected QP is in Error");
	rnic_cm_destroy_id(ca);

	lid = rnic_cm_listen(cmb, 7000);
	EXPECT(lid != NULL && rnic_cm_listen(cmb, 7000) == NULL && rte_errno == EADDRINUSE,
	       "a second listener on port 7000: EADDRINUSE");
	ca = rnic_cm_connect(cma, qa2, dgid, 0, 7000, &p);
	memset(&ev, 0, sizeof(ev));
	EXPECT(ca != NULL && next_event(cmb, &ev) == 0 &&
	       ev.type == RNIC_CM_EV_CONNECT_REQUEST, "a request to be rejected");
	if (ev.type != RNIC_CM_EV_CONNECT_REQUEST || ev.id == NULL)
		return;
	cb = ev.id;
	EXPECT(rnic_cm_reject(cb) == 0, "reject");
	EXPECT(next_event(cma, &ev) == 0 && ev.type == RNIC_CM_EV_REJECTED &&
	       ev.reject_reason == RNIC_CM_REJ_CONSUMER && ev.id == ca,
	       "the listener said no: REJECTED, reason 28 (%d, %u)", ev.type, ev.reject_reason);
	EXPECT(rnic_cm_accept(cb, qa2, &p) == -EINVAL, "accept after reject: EINVAL");
	rnic_cm_destroy_id(ca);
	rnic_cm_destroy_id(cb);
	rnic_cm_destroy_id(lid);

	/* A REQ a little early (perftest's -R client connects its data QP
	 * right after the handshake, before its server listens again): it
	 * waits (up to 100 ms) and the listener that comes up takes it. */
	{
		struct rnic_qp *qa3 = rc_qp(&A);
		struct rnic_cm_stats h0, h1;

		rnic_cm_stats_get(cmb, &h0);
		ca = rnic_cm_connect(cma, qa3, dgid, 0, 7003, &p);
		for (int i = 0; i < 200; i++) {
			test_poll_pair(&A, &B);
			EXPECT(rnic_cm_poll(cmb, &ev) == 0, "no event while nobody listens");
		}
		rnic_cm_stats_get(cmb, &h1);
		lid = rnic_cm_listen(cmb, 7003);
		memset(&ev, 0, sizeof(ev));
		EXPECT(ca != NULL && h1.held == h0.held + 1 && lid != NULL &&
		       next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_CONNECT_REQUEST &&
		       ev.listen_id == lid,
		       "a REQ before its listener: held (%lu), taken by the listener that came up",
		       (unsigned long)(h1.held - h0.held));
		if (ev.type == RNIC_CM_EV_CONNECT_REQUEST && ev.id != NULL) {
			struct rnic_cm_id *cb3 = ev.id;

			rnic_cm_reject(cb3);
			EXPECT(next_event(cma, &ev) == 0 && ev.type == RNIC_CM_EV_REJECTED &&
			       ev.reject_reason == RNIC_CM_REJ_CONSUMER, "then refused: 28");
			rnic_cm_destroy_id(cb3);
		}
		rnic_cm_destroy_id(ca);
		rnic_cm_destroy_id(lid);
		rnic_destroy_qp(qa3);
	}
	rnic_destroy_qp(qa);
	rnic_destroy_qp(qa2);
}

static unsigned int raw_sent;   /* MADs sent by the raw UD QP below */

/* Send the 256 bytes at @p mad from UD QP @p ud to B's QP1 with @p qkey. */
static void
raw_send(struct rnic_qp *ud, struct rnic_ah *ah, const uint8_t *mad, uint32_t qkey)
{
	uint8_t *buf = A.buf + 8192;
	struct rnic_sge sg = { (uintptr_t)buf, RNIC_MAD_LEN, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr w = { .wr_id = 9, .sg_list = &sg, .num_sge = 1,
				  .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED }, *bad;
	struct rnic_wc wc;

	memcpy(buf, mad, RNIC_MAD_LEN);
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = RNIC_GSI_QPN;
	w.wr.ud.remote_qkey = qkey;
	EXPECT(rnic_post_send(ud, &w, &bad) == 0 && wait_wc(A.cq, &wc) == 0, "raw MAD sent");
	raw_sent++;
}

/* Poll everything @p rounds times; @return the events B's CM gave. */
static unsigned int
drain_b(long rounds, struct rnic_cm_event *last)
{
	unsigned int n = 0;

	for (long i = 0; i < rounds; i++) {
		struct rnic_cm_event e;

		test_poll_pair(&A, &B);
		if (rnic_cm_poll(cmb, &e) == 1) {
			n++;
			*last = e;
		}
		if (rnic_cm_poll(cma, &e) == 1 && n_pa < 8)
			pending_a[n_pa++] = e;
	}
	return n;
}

/* A UD QP on A that sends MADs of the test's making to B's QP1, and *@p ah
 * to B, its MAC given (no ARP from A). */
static struct rnic_qp *
raw_qp(struct rnic_ah **ah)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = A.cq, .recv_cq = A.cq, .qp_type = RNIC_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rnic_qp *ud = rnic_create_qp(A.pd, &ia);
	/* a Q_Key with the top bit set is the QP's own (IBA 10.2.5): GSI's here */
	struct rnic_qp_attr a = { .qp_state = RNIC_QPS_INIT, .port_num = 1, .qkey = RNIC_GSI_QKEY };
	struct rnic_ah_attr aa;
	rte_be32_t ip;

	EXPECT(ud != NULL && rnic_modify_qp(ud, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX |
					    RNIC_QP_PORT | RNIC_QP_QKEY) == 0, "UD QP");
	a.qp_state = RNIC_QPS_RTR;
	rnic_modify_qp(ud, &a, RNIC_QP_STATE);
	a.qp_state = RNIC_QPS_RTS;
	rnic_modify_qp(ud, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN);
	memset(&aa, 0, sizeof(aa));
	rnic_dev_get_addr(B.dev, aa.dmac, &ip);
	aa.dip = ip;
	*ah = rnic_create_ah(A.pd, &aa);
	return ud;
}

/* MADs B's CM must drop: a UD QP on A sends them to B's QP1. */
static void
garbage(void)
{
	struct rnic_ah *ah;
	struct rnic_qp *ud = raw_qp(&ah);
	struct rnic_cm_stats s0, s1;
	struct rnic_cm_event ev;

	rnic_cm_stats_get(cmb, &s0);
	for (int k = 0; k < 2; k++) {
		uint8_t mad[RNIC_MAD_LEN] = { 1, 0, 2, 3 };

		mad[1] = k == 0 ? 0x81 : RNIC_MGMT_CLASS_CM;   /* wrong class; then LAP */
		mad[17] = k == 0 ? 0x10 : 0x19;
		raw_send(ud, ah, mad, RNIC_GSI_QKEY);
	}
	for (int i = 0; i < 1000; i++) {
		test_poll_pair(&A, &B);
		EXPECT(rnic_cm_poll(cmb, &ev) == 0, "no event from garbage");
	}
	rnic_cm_stats_get(cmb, &s1);
	EXPECT(s1.mads_rcvd == s0.mads_rcvd + 2 && s1.mads_dropped == s0.mads_dropped + 2,
	       "garbage counted: rcvd +%lu dropped +%lu", (unsigned long)(s1.mads_rcvd - s0.mads_rcvd),
	       (unsigned long)(s1.mads_dropped - s0.mads_dropped));

	/* A REQ of our own making, for a listener on 7500: twice (a duplicate
	 * gives no second CONNECT_REQUEST); with a wrong Q_Key (the engine
	 * drops it: drop_qkey, the CM never sees it). */
	{
		struct rnic_cm_id *lid = rnic_cm_listen(cmb, 7500);
		struct rnic_cm_msg m;
		struct rnic_cma_hdr h = { .ip_version = 4, .src_port = 40000 };
		struct rnic_dev_stats d0, d1;
		uint8_t mad[RNIC_MAD_LEN], ga[16], gb[16];
		unsigned int n;

		rnic_dev_query_gid(A.dev, 0, ga);
		rnic_dev_query_gid(B.dev, 0, gb);
		memset(&m, 0, sizeof(m));
		m.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = 7,
					       .class_version = 2, .method = 3, .tid = 42,
					       .attr_id = RNIC_CM_REQ };
		m.req.local_comm_id = 0x1234;
		m.req.service_id = RNIC_CM_SID_PS_TCP | 7500;
		m.req.local_qpn = 0x55;
		m.req.starting_psn = 0x100;
		m.req.responder_resources = m.req.initiator_depth = 1;
		m.req.path_mtu = 3;
		m.req.remote_cm_response_timeout = 16;
		m.req.max_cm_retries = 15;
		memcpy(m.req.primary_local_gid, ga, 16);
		memcpy(m.req.primary_remote_gid, gb, 16);
		memcpy(h.src_addr + 12, ga + 12, 4);
		memcpy(h.dst_addr + 12, gb + 12, 4);
		rnic_cma_hdr_encode(&h, m.req.private_data);
		EXPECT(lid != NULL && rnic_cm_encode(&m, mad) == 0, "a REQ encoded");
		raw_send(ud, ah, mad, RNIC_GSI_QKEY);
		n = drain_b(2000, &ev);
		{
			/* asked again before the application answered: an MRA
			 * for the REQ comes back, and no second event */
			struct rnic_sge ms = { (uintptr_t)A.buf + 20480, RNIC_UD_GRH_LEN + RNIC_MAD_LEN,
					       rnic_mr_lkey(A.mr) };
			struct rnic_recv_wr r = { .wr_id = 10, .sg_list = &ms, .num_sge = 1 }, *rbad;
			struct rnic_cm_stats m0, m1;
			struct rnic_cm_msg mra;
			struct rnic_wc wc;
			struct rnic_cm_event ev2;

			rnic_cm_stats_get(cmb, &m0);
			EXPECT(rnic_post_recv(ud, &r, &rbad) == 0, "receive on the raw QP");
			raw_send(ud, ah, mad, RNIC_GSI_QKEY);
			EXPECT(drain_b(2000, &ev2) == 0, "the duplicate REQ: no second CONNECT_REQUEST");
			rnic_cm_stats_get(cmb, &m1);
			EXPECT(wait_wc(A.cq, &wc) == 0 && wc.wr_id == 10 &&
			       rnic_cm_decode(A.buf + 20480 + RNIC_UD_GRH_LEN, RNIC_MAD_LEN, &mra) ==
			       RNIC_MAD_OK && mra.hdr.attr_id == RNIC_CM_MRA &&
			       mra.mra.remote_comm_id == 0x1234 && mra.mra.message_mraed == 0 &&
			       mra.mra.service_timeout == 24 && mra.hdr.tid == 42 &&
			       m1.mra_sent == m0.mra_sent + 1,
			       "the duplicate REQ, unanswered: an MRA for the REQ (service timeout 24)");
		}
		EXPECT(n == 1 && ev.type == RNIC_CM_EV_CONNECT_REQUEST && ev.peer_port == 40000,
		       "a REQ: one CONNECT_REQUEST (%u events)", n);
		if (n == 1) {
			/* The REJ goes back to the QP the REQ came from. */
			struct rnic_sge rs = { (uintptr_t)A.buf + 16384, RNIC_UD_GRH_LEN + RNIC_MAD_LEN,
					       rnic_mr_lkey(A.mr) };
			struct rnic_recv_wr r = { .wr_id = 11, .sg_list = &rs, .num_sge = 1 }, *rbad;
			struct rnic_cm_msg rej;
			struct rnic_wc wc;

			EXPECT(rnic_post_recv(ud, &r, &rbad) == 0, "receive on the raw QP");
			EXPECT(rnic_cm_reject(ev.id) == 0, "rejected");
			EXPECT(wait_wc(A.cq, &wc) == 0 && wc.wr_id == 11 && wc.src_qp == RNIC_GSI_QPN &&
			       rnic_cm_decode(A.buf + 16384 + RNIC_UD_GRH_LEN, RNIC_MAD_LEN, &rej) ==
			       RNIC_MAD_OK && rej.hdr.attr_id == RNIC_CM_REJ &&
			       rej.rej.reason == RNIC_CM_REJ_CONSUMER && rej.rej.remote_comm_id == 0x1234 &&
			       rej.hdr.tid == 42, "the REJ reaches the REQ's sender (reason 28, its TID)");
		}
		rnic_dev_stats_get(B.dev, &d0);
		m.req.local_comm_id = 0x5678;
		rnic_cm_encode(&m, mad);
		raw_send(ud, ah, mad, 0x11111111);
		n = drain_b(2000, &ev);
		rnic_dev_stats_get(B.dev, &d1);
		EXPECT(n == 0 && d1.drop_qkey == d0.drop_qkey + 1,
		       "a REQ with a wrong Q_Key: dropped by the engine (%u events, drop_qkey +%lu)",
		       n, (unsigned long)(d1.drop_qkey - d0.drop_qkey));
		raw_sent--;   /* it never reached B's CM */

		/* Accepted, but no RTU ever comes: B sends its REP again as
		 * often as the REQ's max CM retries say (2), one response
		 * timeout apart (the REQ's: 2^8 x 4.096 us, at least 1 ms), then
		 * UNREACHABLE. */
		{
			struct rnic_qp *qb = rc_qp(&B);
			struct rnic_cm_param p = { .responder_resources = 1, .initiator_depth = 1 };
			struct rnic_cm_stats r0, r1;
			struct rnic_wc wc;
			uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
			unsigned int reps = 0;
			int unreach = 0;

			for (int k = 0; k < 4; k++) {
				struct rnic_sge rs = { (uintptr_t)A.buf + 24576 + 512 * k,
						       RNIC_UD_GRH_LEN + RNIC_MAD_LEN, rnic_mr_lkey(A.mr) };
				struct rnic_recv_wr r = { .wr_id = 20 + k, .sg_list = &rs,
							  .num_sge = 1 }, *rbad;

				rnic_post_recv(ud, &r, &rbad);
			}
			m.req.local_comm_id = 0x9abc;
			m.req.max_cm_retries = 2;
			m.req.remote_cm_response_timeout = 8;
			m.hdr.tid = 43;
			rnic_cm_encode(&m, mad);
			raw_send(ud, ah, mad, RNIC_GSI_QKEY);
			n = drain_b(2000, &ev);
			rnic_cm_stats_get(cmb, &r0);
			EXPECT(n == 1 && ev.type == RNIC_CM_EV_CONNECT_REQUEST &&
			       rnic_cm_accept(ev.id, qb, &p) == 0, "a REQ allowing 2 retries, accepted");
			while (!unreach && rte_get_tsc_cycles() < end) {
				struct rnic_cm_event e2;

				test_poll_pair(&A, &B);
				if (rnic_poll_cq(A.cq, 1, &wc) == 1 && wc.wr_id >= 20 && wc.wr_id < 24)
					reps++;
				if (rnic_cm_poll(cmb, &e2) == 1)
					unreach = e2.type == RNIC_CM_EV_UNREACHABLE && e2.id == ev.id;
			}
			while (rnic_poll_cq(A.cq, 1, &wc) == 1)
				reps += wc.wr_id >= 20 && wc.wr_id < 24;
			rnic_cm_stats_get(cmb, &r1);
			EXPECT(unreach && reps == 3 && r1.retries == r0.retries + 2,
			       "no RTU: the REP sent 1 + 2 times (%u), then UNREACHABLE", reps);
			rnic_cm_destroy_id(ev.id);
			rnic_destroy_qp(qb);
		}
		rnic_cm_destroy_id(lid);
	}
	rnic_destroy_ah(ah);
	rnic_destroy_qp(ud);
}

/* The UDP port space (SIDR): B listens for UD on 7600 (a TCP listener on
 * the same port is another service); A asks which QP serves it: B sees a
 * CONNECT_REQUEST (ud) with A's private data and answers with a QP number
 * and the Q_Key, which A gets in ESTABLISHED (ud). Nobody on the port:
 * UNREACHABLE with the SIDR status 1, not a timeout; refused: status 2. */
static void
sidr(void)
{
	struct rnic_cm_param p, none;
	struct rnic_cm_id *ca, *lid, *tcp;
	struct rnic_cm_event ev, ev2;
	uint8_t dgid[16];

	memset(&p, 0, sizeof(p));
	memset(&none, 0, sizeof(none));
	memcpy(p.private_data, "sidr?", 6);
	p.private_data_len = 6;
	rnic_dev_query_gid(B.dev, 0, dgid);
	lid = rnic_cm_listen_ud(cmb, 7600);
	tcp = rnic_cm_listen(cmb, 7600);
	EXPECT(lid != NULL && tcp != NULL && rnic_cm_listen_ud(cmb, 7600) == NULL &&
	       rte_errno == EADDRINUSE, "UD and TCP listeners on one port; a second UD one: EADDRINUSE");
	ca = rnic_cm_resolve_ud(cma, dgid, 0, 7600, &p);
	memset(&ev, 0, sizeof(ev));
	EXPECT(ca != NULL && next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_CONNECT_REQUEST &&
	       ev.ud && ev.listen_id == lid && memcmp(ev.param.private_data, "sidr?", 6) == 0,
	       "SIDR_REQ: CONNECT_REQUEST (ud) at the UD listener, with the private data");
	if (ev.type == RNIC_CM_EV_CONNECT_REQUEST && ev.id != NULL) {
		struct rnic_qp *qb = rc_qp(&B);

		EXPECT(rnic_cm_accept(ev.id, qb, &none) == -EINVAL &&
		       rnic_cm_accept_ud(ev.id, 0x123456, RNIC_CMA_UDP_QKEY, &none) == 0,
		       "answered with a QP number and the Q_Key (an RC accept refused)");
		rnic_destroy_qp(qb);
		EXPECT(next_event(cma, &ev2) == 0 && ev2.type == RNIC_CM_EV_ESTABLISHED && ev2.ud &&
		       ev2.id == ca && ev2.peer_qpn == 0x123456 && ev2.qkey == RNIC_CMA_UDP_QKEY,
		       "SIDR_REP: ESTABLISHED (ud) with the QP number and Q_Key");
		rnic_cm_destroy_id(ev.id);
	}
	rnic_cm_destroy_id(ca);

	ca = rnic_cm_resolve_ud(cma, dgid, 0, 7601, &p);
	memset(&ev2, 0, sizeof(ev2));
	EXPECT(ca != NULL && next_event(cma, &ev2) == 0 && ev2.type == RNIC_CM_EV_UNREACHABLE &&
	       !ev2.timed_out && ev2.reject_reason == RNIC_CM_SIDR_UNSUPPORTED,
	       "SIDR for a port nobody listens on: UNREACHABLE, status 1 (%u)", ev2.reject_reason);
	rnic_cm_destroy_id(ca);

	ca = rnic_cm_resolve_ud(cma, dgid, 0, 7600, &p);
	memset(&ev, 0, sizeof(ev));
	EXPECT(ca != NULL && next_event(cmb, &ev) == 0 && ev.type == RNIC_CM_EV_CONNECT_REQUEST &&
	       rnic_cm_reject(ev.id) == 0, "a SIDR_REQ refused");
	memset(&ev2, 0, sizeof(ev2));
	EXPECT(next_event(cma, &ev2) == 0 && ev2.type == RNIC_CM_EV_UNREACHABLE &&
	       !ev2.timed_out && ev2.reject_reason == RNIC_CM_SIDR_REJECT,
	       "refused: UNREACHABLE, status 2 (%u)", ev2.reject_reason);
	rnic_cm_destroy_id(ev.id);
	rnic_cm_destroy_id(ca);
	rnic_cm_destroy_id(tcp);
	rnic_cm_destroy_id(lid);
}

/* A SIDR_REQ from a peer whose MAC B does not know, and whose ARP reply
 * comes late (A is not polled for 30 ms after B's accept): B's SIDR_REP
 * waits for the MAC, no event meanwhile, a duplicate SIDR_REQ makes no
 * second CONNECT_REQUEST, and the REP reaches A once A answers B's ARP.
 * (It was lost for good once a look 1 ms on had not found the MAC:
 * interop-rxe's cm-udaddy-server failed so once against a slow guest.)
 * Run first, before any ARP between A and B. */
static void
sidr_late_mac(void)
{
	struct rnic_ah *ah;
	struct rnic_qp *ud = raw_qp(&ah);
	struct rnic_cm_id *lid = rnic_cm_listen_ud(cmb, 7700);
	struct rnic_cma_hdr h = { .ip_version = 4, .src_port = 41000 };
	struct rnic_sge rs = { (uintptr_t)A.buf + 32768, RNIC_UD_GRH_LEN + RNIC_MAD_LEN,
			       rnic_mr_lkey(A.mr) };
	struct rnic_recv_wr r = { .wr_id = 30, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct rnic_cm_param none;
	struct rnic_cm_event ev, ev2;
	struct rnic_cm_stats s0, s1;
	struct rnic_cm_msg m, rep;
	struct rnic_wc wc;
	uint8_t mad[RNIC_MAD_LEN], ga[16], gb[16], mac[6];
	rte_be32_t ipa;
	uint64_t end;
	unsigned int n;
	int got = 0, early = 0;

	memset(&none, 0, sizeof(none));
	rnic_dev_query_gid(A.dev, 0, ga);
	rnic_dev_query_gid(B.dev, 0, gb);
	memcpy(&ipa, ga + 12, 4);
	EXPECT(rnic_dev_arp_lookup(B.dev, ipa, mac) == -ENOENT, "late MAC: B does not know A's");
	memset(&m, 0, sizeof(m));
	m.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = RNIC_MGMT_CLASS_CM,
				       .class_version = 2, .method = 3, .tid = 77,
				       .attr_id = RNIC_CM_SIDR_REQ };
	m.sidr_req.request_id = 0x7777;
	m.sidr_req.pkey = RNIC_DEFAULT_PKEY;
	m.sidr_req.service_id = RNIC_CM_SID_PS_UDP | 7700;
	memcpy(h.src_addr + 12, ga + 12, 4);
	memcpy(h.dst_addr + 12, gb + 12, 4);
	rnic_cma_hdr_encode(&h, m.sidr_req.private_data);
	EXPECT(lid != NULL && rnic_cm_encode(&m, mad) == 0 &&
	       rnic_post_recv(ud, &r, &rbad) == 0, "late MAC: a SIDR_REQ encoded");
	raw_send(ud, ah, mad, RNIC_GSI_QKEY);
	n = drain_b(2000, &ev);
	EXPECT(n == 1 && ev.type == RNIC_CM_EV_CONNECT_REQUEST && ev.ud,
	       "late MAC: CONNECT_REQUEST (ud) (%u events)", n);
	if (n != 1 || ev.type != RNIC_CM_EV_CONNECT_REQUEST)
		goto out;
	rnic_cm_stats_get(cmb, &s0);
	EXPECT(rnic_cm_accept_ud(ev.id, 0x654321, RNIC_CMA_UDP_QKEY, &none) == 0,
	       "late MAC: accepted");
	/* B alone: its ARP requests wait in the ring; A answers none */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 30 / 1000;
	while (rte_get_tsc_cycles() < end) {
		test_poll_pair(&B, NULL);
		if (rnic_cm_poll(cmb, &ev2) == 1)
			early = 1;
	}
	rnic_cm_stats_get(cmb, &s1);
	EXPECT(!early && s1.mads_sent == s0.mads_sent && s1.mads_dropped == s0.mads_dropped,
	       "late MAC: no event and nothing sent or dropped while the MAC is unknown "
	       "(event %d, sent +%lu)", early, (unsigned long)(s1.mads_sent - s0.mads_sent));
	/* The peer asks again, still unanswered: A's TX alone is polled
	 * (its RX, with B's ARP requests, is not). */
	{
		uint8_t *buf = A.buf + 8192;
		struct rnic_sge sg = { (uintptr_t)buf, RNIC_MAD_LEN, rnic_mr_lkey(A.mr) };
		struct rnic_send_wr w = { .wr_id = 9, .sg_list = &sg, .num_sge = 1,
					  .opcode = RNIC_WR_SEND,
					  .send_flags = RNIC_SEND_SIGNALED }, *bad;
		long i;

		memcpy(buf, mad, RNIC_MAD_LEN);
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = RNIC_GSI_QPN;
		w.wr.ud.remote_qkey = RNIC_GSI_QKEY;
		EXPECT(rnic_post_send(ud, &w, &bad) == 0, "late MAC: the SIDR_REQ again");
		for (i = 0; i < ROUNDS && rnic_poll_cq(A.cq, 1, &wc) == 0; i++)
			rnic_dev_poll_tx(A.dev);
		for (long k = 0; k < 1000; k++) {
			test_poll_pair(&B, NULL);
			if (rnic_cm_poll(cmb, &ev2) == 1)
				early = 1;
		}
		rnic_cm_stats_get(cmb, &s1);
		EXPECT(i < ROUNDS && !early && s1.mads_rcvd == s0.mads_rcvd + 1 &&
		       s1.mads_sent == s0.mads_sent && s1.mads_dropped == s0.mads_dropped,
		       "late MAC: the duplicate, while the MAC is unknown: no event, nothing "
		       "sent or dropped (rcvd +%lu)", (unsigned long)(s1.mads_rcvd - s0.mads_rcvd));
		raw_sent++;
	}
	for (int k = 0; k < 2; k++) {
		got = 0;
		end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
		while (!got && rte_get_tsc_cycles() < end) {
			test_poll_pair(&A, &B);
			if (rnic_cm_poll(cmb, &ev2) == 1)
				early = 1;
			got = rnic_poll_cq(A.cq, 1, &wc) == 1;
		}
		memset(&rep, 0, sizeof(rep));
		EXPECT(got && wc.wr_id == 30 && wc.status == RNIC_WC_SUCCESS &&
		       rnic_cm_decode(A.buf + 32768 + RNIC_UD_GRH_LEN, RNIC_MAD_LEN, &rep) ==
		       RNIC_MAD_OK && rep.hdr.attr_id == RNIC_CM_SIDR_REP && rep.hdr.tid == 77 &&
		       rep.sidr_rep.request_id == 0x7777 && rep.sidr_rep.status == RNIC_CM_SIDR_OK &&
		       rep.sidr_rep.qpn == 0x654321 && rep.sidr_rep.qkey == RNIC_CMA_UDP_QKEY,
		       k == 0 ? "late MAC: the SIDR_REP reaches A once A answers the ARP (%d)"
			      : "late MAC: a SIDR_REQ after it gets it again (%d)", got);
		if (k == 0) {
			EXPECT(rnic_post_recv(ud, &r, &rbad) == 0, "receive on the raw QP");
			raw_send(ud, ah, mad, RNIC_GSI_QKEY);
		}
	}
	EXPECT(!early && rnic_dev_arp_lookup(B.dev, ipa, mac) == 0,
	       "late MAC: one CONNECT_REQUEST; B learned A's MAC");
	rnic_cm_destroy_id(ev.id);
out:
	rnic_cm_destroy_id(lid);
	rnic_destroy_ah(ah);
	rnic_destroy_qp(ud);
}

/* A peer whose CM does not answer (B's is not polled): A's REQ is tried
 * again every CM response timeout (~268 ms) up to its 15 retries, then
 * UNREACHABLE and the QP in Error. */
static void
unreachable(void)
{
	struct rnic_qp *qa = rc_qp(&A);
	struct rnic_cm_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rnic_cm_stats s0, s1;
	struct rnic_cm_event ev;
	struct rnic_cm_id *ca;
	uint8_t dgid[16];
	uint64_t end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	int got = 0;

	rnic_dev_query_gid(B.dev, 0, dgid);
	rnic_cm_stats_get(cma, &s0);
	ca = rnic_cm_connect(cma, qa, dgid, 0, 7501, &p);
	while (ca != NULL && rte_get_tsc_cycles() < end) {
		test_poll_pair(&A, &B);
		if (rnic_cm_poll(cma, &ev) == 1) {
			got = 1;
			break;
		}
	}
	rnic_cm_stats_get(cma, &s1);
	EXPECT(got && ev.type == RNIC_CM_EV_UNREACHABLE && ev.id == ca,
	       "no answer: UNREACHABLE (%d)", got ? (int)ev.type : -1);
	EXPECT(s1.retries - s0.retries == 15, "15 retries (%lu)",
	       (unsigned long)(s1.retries - s0.retries));
	EXPECT(test_qp_state(qa) == RNIC_QPS_ERR, "the QP in Error");
	rnic_cm_destroy_id(ca);
	rnic_destroy_qp(qa);
	/* B's CM now finds 16 REQs for a port nobody listens on: 16 REJs,
	 * which A's CM drops as for no connection it knows. */
	drain_b(20000, &ev);
}

int
main(int argc, char **argv)
{
	uint16_t pa, pb;
	struct rnic_dev_attr a = { .mbufs = 4096 };
	struct rnic_cm_stats sa, sb;

	if (rte_eal_init(argc, argv) < 0 || rnic_port_ring_pair("cm_a", "cm_b", 1024, &pa, &pb)) {
		printf("setup failed\n0 passed, 1 failed\n");
		return 1;
	}
	a.port_id = pa;
	a.n_ipv6 = 1;
	memcpy(a.ipv6[0], (const uint8_t[16]){ 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	       16);
	if (test_side_up(&A, &a, 1, 1024, 65536, 4096) != 0)
		goto fail;
	a.port_id = pb;
	a.ipv6[0][15] = 2;
	if (test_side_up(&B, &a, 2, 1024, 65536, 4096) != 0)
		goto fail;
	cma = rnic_cm_create(A.dev, A.pd);
	cmb = rnic_cm_create(B.dev, B.pd);
	if (cma == NULL || cmb == NULL)
		goto fail;
	sidr_late_mac();
	full_cycle(0, "IPv4");
	full_cycle(1, "IPv6");
	rejections();
	sidr();
	garbage();
	unreachable();
	rnic_cm_stats_get(cma, &sa);
	rnic_cm_stats_get(cmb, &sb);
	printf("cm: A sent %lu rcvd %lu retries %lu; B sent %lu rcvd %lu retries %lu rej %lu\n",
	       (unsigned long)sa.mads_sent, (unsigned long)sa.mads_rcvd, (unsigned long)sa.retries,
	       (unsigned long)sb.mads_sent, (unsigned long)sb.mads_rcvd, (unsigned long)sb.retries,
	       (unsigned long)sb.rej_sent);
	EXPECT(sa.retries == 15 && sb.retries == 2,
	       "no retries but the unanswered REQ's 15 and the unanswered REP's 2");
	EXPECT(sb.mads_rcvd == sa.mads_sent + raw_sent && sa.mads_rcvd + 7 == sb.mads_sent,
	       "every MAD arrived (A -> B: and %u of the raw QP; B -> A: and 2 SIDR_REPs, an MRA, "
	       "a REJ and 3 REPs to the raw QP)", raw_sent);
	rnic_cm_destroy(cma);
	rnic_cm_destroy(cmb);
	printf("%u passed, %u failed\n", test_verify_passed, test_verify_failed);
	return test_verify_failed ? 1 : 0;
fail:
	printf("setup failed: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
	return 1;
}
