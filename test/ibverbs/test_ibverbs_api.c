/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs of softrnic's libibverbs.so.1 that Debian's binaries in
 * run_ibverbs.py do not reach (issue 19, doc/ibverbs.md), called as a
 * program would: compiled against Debian's <infiniband/verbs.h>, linked
 * with softrnic's library, on the ring-pair configuration
 * (config/ibverbs-loopback.json: softrnic_0 and softrnic_1 in this
 * process).
 *
 * - GIDs: ibv_query_gid_ex, ibv_query_gid_table, ibv_query_gid (RoCE v2,
 *   the IPv4-mapped address at index 0, the port's IPv6 address at 1, as
 *   configured; an index past the table fails).
 * - UD, from GID 0 (IPv4) and from GID 1 (IPv6, the MAC found by neighbour
 *   discovery): a receive's GRH area holds the sender's IPv4 header (20
 *   zero bytes first) or its IPv6 header, the completion says
 *   IBV_WC_GRH, ibv_create_ah_from_wc answers the sender from the GID the
 *   datagram was sent to (the reply arrives), ibv_init_ah_from_wc without
 *   IBV_WC_GRH is EINVAL; an AH whose source GID is of the other family
 *   is refused (EINVAL).
 * - RC through the ibv_qp_ex builder, over IPv4 and over IPv6: RDMA
 *   WRITE, SEND, RDMA READ and fetch-and-add in one
 *   ibv_wr_start..ibv_wr_complete batch each; the data and the atomic's
 *   old value checked.
 * - ibv_reg_mr_iova2: a WRITE, a READ, a fetch-and-add and a SEND named
 *   by IOVAs reach the bytes they map to at both ends (one IOVA shifts
 *   the alignment); a remote address or a local SGE outside the IOVA range
 *   (the buffer's own address) fails.
 * - Asynchronous events: async_fd is pollable, non-blocking
 *   ibv_get_async_event says EAGAIN when none is queued, and a CQ overrun
 *   raises IBV_EVENT_QP_FATAL for the QP, seen through poll().
 *
 * Every wait is bounded (5 s). Exit status: the number of failed checks.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "check.h"

#define QKEY 0x11111111u
#define BUF 4096

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;       /* GID 0: the IPv4 address */
	union ibv_gid gid6;      /* GID 1: the IPv6 address */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion from @p cq within 5 s; 1 when there was one. */
static int
poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now_s() + 5;

	while (now_s() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n != 0)
			return n;
	}
	return 0;
}

static int
side_open(struct ibv_device *d, struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ibv_open_device(d);
	if (s->ctx == NULL)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUF);
	if (s->pd == NULL || s->cq == NULL || s->buf == NULL)
		return -1;
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (s->mr == NULL || ibv_query_gid(s->ctx, 1, 0, &s->gid) != 0 ||
	    ibv_query_gid(s->ctx, 1, 1, &s->gid6) != 0)
		return -1;
	return 0;
}

static void
side_close(struct side *s)
{
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
}

static void
test_gids(struct side *a, const char *ip, const char *ip6)
{
	struct ibv_gid_entry e, tbl[4];
	union ibv_gid want = { .raw = { [10] = 0xff, [11] = 0xff } }, want6, g;
	struct ibv_port_attr pa;
	ssize_t n;

	inet_pton(AF_INET, ip, &want.raw[12]);
	inet_pton(AF_INET6, ip6, want6.raw);
	memset(&e, 0xa5, sizeof(e));
	CHECK(ibv_query_gid_ex(a->ctx, 1, 0, &e, 0) == 0 &&
	      memcmp(e.gid.raw, want.raw, 16) == 0 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
	      e.gid_index == 0 && e.port_num == 1,
	      "ibv_query_gid_ex index 0: ::ffff:%s, RoCE v2", ip);
	CHECK(ibv_query_gid_ex(a->ctx, 1, 1, &e, 0) == 0 &&
	      memcmp(e.gid.raw, want6.raw, 16) == 0 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
	      e.gid_index == 1, "ibv_query_gid_ex index 1: %s, RoCE v2", ip6);
	CHECK(ibv_query_gid_ex(a->ctx, 1, 2, &e, 0) != 0, "ibv_query_gid_ex index 2 fails");
	n = ibv_query_gid_table(a->ctx, tbl, 4, 0);
	CHECK(n == 2 && memcmp(tbl[0].gid.raw, want.raw, 16) == 0 &&
	      tbl[0].gid_type == IBV_GID_TYPE_ROCE_V2 && memcmp(tbl[1].gid.raw, want6.raw, 16) == 0 &&
	      tbl[1].gid_index == 1, "ibv_query_gid_table: two entries (%zd)", n);
	CHECK(memcmp(a->gid.raw, want.raw, 16) == 0, "ibv_query_gid index 0");
	CHECK(memcmp(a->gid6.raw, want6.raw, 16) == 0, "ibv_query_gid index 1");
	CHECK(ibv_query_gid(a->ctx, 1, 2, &g) != 0, "ibv_query_gid index 2 fails");
	CHECK(ibv_query_port(a->ctx, 1, &pa) == 0 && pa.gid_tbl_len == 2,
	      "gid_tbl_len 2 (%d)", pa.gid_tbl_len);
}

static struct ibv_qp *
ud_qp(struct side *s, struct ibv_cq *scq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = s->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY };

	if (qp == NULL ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return NULL;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return NULL;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return NULL;
	return qp;
}

static int
post_recv(struct side *s, struct ibv_qp *qp, uint32_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sg = { (uintptr_t)(s->buf + off), len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int
post_ud_send(struct side *s, struct ibv_qp *qp, struct ibv_ah *ah, uint32_t qpn,
	     uint32_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sg = { (uintptr_t)(s->buf + off), len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = QKEY },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* UD from GID @p gi of @p a to the same GID of @p b (0: IPv4, 1: IPv6). */
static void
test_ud(struct side *a, struct side *b, int gi)
{
	struct ibv_qp *qa = ud_qp(a, a->cq), *qb = ud_qp(b, b->cq);
	const union ibv_gid *ga = gi ? &a->gid6 : &a->gid, *gb = gi ? &b->gid6 : &b->gid;
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *gb, .sgid_index = (uint8_t)gi, .hop_limit = 64,
			 .flow_label = gi ? 0x12345 : 0 },
	}, back;
	struct ibv_ah *ah, *ah_back;
	struct ibv_wc wc, wcs;
	const uint8_t *ip = b->buf + 20;
	struct ibv_grh *grh = (struct ibv_grh *)b->buf;

	if (qa == NULL || qb == NULL) {
		CHECK(0, "UD QPs created and moved to RTS");
		return;
	}
	aa.grh.sgid_index = (uint8_t)!gi;
	errno = 0;
	ah = ibv_create_ah(a->pd, &aa);
	CHECK(ah == NULL && errno == EINVAL, "GID %d: an AH from the GID of the other family "
	      "is refused (EINVAL)", gi);
	aa.grh.sgid_index = (uint8_t)gi;
	ah = ibv_create_ah(a->pd, &aa);
	memset(b->buf, 0xee, 40);
	for (int i = 0; i < 64; i++)
		a->buf[1024 + i] = (uint8_t)(i * 7 + 1);
	if (ah == NULL || post_recv(b, qb, 0, 40 + 64, 11) ||
	    post_ud_send(a, qa, ah, qb->qp_num, 1024, 64, 12)) {
		CHECK(0, "UD send posted");
		return;
	}
	CHECK(poll_one(b->cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 11 &&
	      wc.byte_len == 40 + 64 && wc.src_qp == qa->qp_num, "UD receive completes (%s)",
	      ibv_wc_status_str(wc.status));
	CHECK(poll_one(a->cq, &wcs) == 1 && wcs.status == IBV_WC_SUCCESS && wcs.wr_id == 12,
	      "UD send completes");
	CHECK(wc.wc_flags & IBV_WC_GRH, "UD receive: IBV_WC_GRH");
	if (gi == 0)
		CHECK(b->buf[0] == 0 && b->buf[19] == 0 && ip[0] == 0x45 && ip[9] == 17 &&
		      memcmp(ip + 12, &a->gid.raw[12], 4) == 0 &&
		      memcmp(ip + 16, &b->gid.raw[12], 4) == 0,
		      "UD GRH area: 20 zero bytes, then the IPv4 header (UDP, %u.%u.%u.%u -> "
		      "%u.%u.%u.%u)", ip[12], ip[13], ip[14], ip[15], ip[16], ip[17], ip[18], ip[19]);
	else
		CHECK((b->buf[0] >> 4) == 6 && grh->next_hdr == 17 &&
		      (be32toh(grh->version_tclass_flow) & 0xfffff) == 0x12345 &&
		      memcmp(grh->sgid.raw, a->gid6.raw, 16) == 0 &&
		      memcmp(grh->dgid.raw, b->gid6.raw, 16) == 0,
		      "UD GRH area: the IPv6 header (UDP, flow label 0x12345, GID 1 -> GID 1)");
	CHECK(memcmp(b->buf + 40, a->buf + 1024, 64) == 0, "UD payload after the GRH area");

	CHECK(ibv_init_ah_from_wc(b->ctx, 1, &wc, grh, &back) == 0 && back.is_global &&
	      memcmp(back.grh.dgid.raw, ga->raw, 16) == 0 && back.grh.sgid_index == gi &&
	      back.port_num == 1, "ibv_init_ah_from_wc: the sender's GID, source GID index %d",
	      gi);
	wcs = wc;
	wcs.wc_flags &= ~IBV_WC_GRH;
	errno = 0;
	CHECK(ibv_init_ah_from_wc(b->ctx, 1, &wcs, grh, &back) == -1 && errno == EINVAL,
	      "ibv_init_ah_from_wc without IBV_WC_GRH: EINVAL");
	ah_back = ibv_create_ah_from_wc(b->pd, &wc, grh, 1);
	CHECK(ah_back != NULL, "ibv_create_ah_from_wc");
	if (ah_back != NULL) {
		for (int i = 0; i < 32; i++)
			b->buf[2048 + i] = (uint8_t)(0xc0 + i);
		if (post_recv(a, qa, 0, 40 + 32, 21) == 0 &&
		    post_ud_send(b, qb, ah_back, wc.src_qp, 2048, 32, 22) == 0) {
			CHECK(poll_one(a->cq, &wcs) == 1 && wcs.status == IBV_WC_SUCCESS &&
			      wcs.wr_id == 21 && memcmp(a->buf + 40, b->buf + 2048, 32) == 0,
			      "the reply through the AH from the completion arrives");
			CHECK(poll_one(b->cq, &wcs) == 1 && wcs.wr_id == 22, "reply send completes");
		} else {
			CHECK(0, "reply posted");
		}
		ibv_destroy_ah(ah_back);
	}
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

static struct ibv_qp *
rc_qp_ex(struct side *s)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
			 .max_recv_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};

	return ibv_create_qp_ex(s->ctx, &ia);
}

static int
rc_connect(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *dgid, int gi)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)gi;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The builder over GID @p gi (0: IPv4, 1: IPv6). */
static void
test_rc_builder(struct side *a, struct side *b, int gi)
{
	struct ibv_qp *qa = rc_qp_ex(a), *qb = rc_qp_ex(b);
	struct ibv_qp_ex *x;
	struct ibv_wc wc[4];
	uint64_t *ctr = (uint64_t *)(b->buf + 3072), *old = (uint64_t *)(a->buf + 3072);
	int got = 0;

	printf("-- RC over GID %d (%s)\n", gi, gi ? "IPv6" : "IPv4");
	if (qa == NULL || qb == NULL || rc_connect(qa, qb->qp_num, gi ? &b->gid6 : &b->gid, gi) ||
	    rc_connect(qb, qa->qp_num, gi ? &a->gid6 : &a->gid, gi)) {
		CHECK(0, "RC QPs (ibv_create_qp_ex with send_ops_flags) connected");
		return;
	}
	x = ibv_qp_to_qp_ex(qa);
	CHECK(x != NULL, "ibv_qp_to_qp_ex");
	if (x == NULL)
		return;
	for (int i = 0; i < 512; i++) {
		a->buf[i] = (uint8_t)(i * 3);
		a->buf[512 + i] = (uint8_t)(i * 5 + 1);
		b->buf[1536 + i] = (uint8_t)(i * 11 + 2);
	}
	*ctr = 1000;
	if (post_recv(b, qb, 1024, 512, 31)) {
		CHECK(0, "RC receive posted");
		return;
	}
	/* WRITE a->buf[0..512) to b->buf[0..512), SEND a->buf[512..1024) into
	 * b's receive at 1024, in one batch */
	ibv_wr_start(x);
	x->wr_id = 41;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 512);
	x->wr_id = 42;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)(a->buf + 512), 512);
	CHECK(ibv_wr_complete(x) == 0, "ibv_wr_complete: WRITE + SEND");
	for (int i = 0; i < 2; i++)
		if (poll_one(a->cq, &wc[i]) == 1 && wc[i].status == IBV_WC_SUCCESS)
			got++;
	CHECK(got == 2 && wc[0].wr_id == 41 && wc[0].opcode == IBV_WC_RDMA_WRITE &&
	      wc[1].wr_id == 42 && wc[1].opcode == IBV_WC_SEND, "builder WRITE, SEND complete in order");
	CHECK(poll_one(b->cq, &wc[2]) == 1 && wc[2].status == IBV_WC_SUCCESS && wc[2].wr_id == 31 &&
	      wc[2].byte_len == 512 && wc[2].opcode == IBV_WC_RECV, "the SEND's receive completes");
	CHECK(memcmp(b->buf, a->buf, 512) == 0, "builder WRITE: data placed");
	CHECK(memcmp(b->buf + 1024, a->buf + 512, 512) == 0, "builder SEND: data received");

	/* READ b->buf[1536..2048) into a->buf[1536..), fetch-and-add 5 on *ctr */
	ibv_wr_start(x);
	x->wr_id = 43;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(x, b->mr->rkey, (uintptr_t)(b->buf + 1536));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)(a->buf + 1536), 512);
	x->wr_id = 44;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(x, b->mr->rkey, (uintptr_t)ctr, 5);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)old, 8);
	CHECK(ibv_wr_complete(x) == 0, "ibv_wr_complete: READ + FETCH_ADD");
	got = 0;
	for (int i = 0; i < 2; i++)
		if (poll_one(a->cq, &wc[i]) == 1 && wc[i].status == IBV_WC_SUCCESS)
			got++;
	CHECK(got == 2 && wc[0].wr_id == 43 && wc[0].opcode == IBV_WC_RDMA_READ &&
	      wc[1].wr_id == 44 && wc[1].opcode == IBV_WC_FETCH_ADD, "builder READ, FETCH_ADD complete");
	CHECK(memcmp(a->buf + 1536, b->buf + 1536, 512) == 0, "builder READ: data read");
	CHECK(*old == 1000 && *ctr == 1005, "builder FETCH_ADD: old value 1000 (got %llu), now 1005 "
	      "(%llu)", (unsigned long long)*old, (unsigned long long)*ctr);

	/* ibv_wr_abort discards a batch: nothing is sent */
	ibv_wr_start(x);
	x->wr_id = 45;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)(a->buf + 1024), 16);
	ibv_wr_abort(x);
	CHECK(ibv_poll_cq(a->cq, 1, wc) == 0 && memcmp(b->buf, a->buf, 16) == 0,
	      "ibv_wr_abort: nothing sent");
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

static int
post1(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id, uint32_t lkey, uint64_t addr,
      uint32_t len, uint32_t rkey, uint64_t raddr)
{
	struct ibv_sge sg = { addr, len, lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 7;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

/* One completion of @p cq within 5 s, its status (-1: none came). */
static int
status1(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	return poll_one(cq, &wc) == 1 ? (int)wc.status : -1;
}

/*
 * ibv_reg_mr_iova2: MRs whose first byte peers and SGEs name by an IOVA
 * other than its address (a on 0x10000000, b on 0x4000 + 8: an IOVA that
 * shifts the alignment by 8 bytes, still 8-aligned). A WRITE, a READ and a
 * fetch-and-add named by IOVAs reach the right bytes at both ends; an
 * address outside the IOVA range, remote (though inside the buffer's real
 * addresses) or local, fails.
 */
static void
test_iova(struct side *a, struct side *b)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC;
	uint8_t *ab = aligned_alloc(4096, BUF), *bb = aligned_alloc(4096, BUF);
	const uint64_t aio = 0x10000000, bio = 0x4008;
	struct ibv_mr *am = NULL, *bm = NULL;
	struct ibv_qp *qa = rc_qp_ex(a), *qb = rc_qp_ex(b);
	uint64_t *ctr, old = 0;

	printf("-- MRs with an IOVA (ibv_reg_mr_iova2)\n");
	if (ab == NULL || bb == NULL || qa == NULL || qb == NULL ||
	    rc_connect(qa, qb->qp_num, &b->gid, 0) || rc_connect(qb, qa->qp_num, &a->gid, 0)) {
		CHECK(0, "buffers and RC QPs");
		goto out;
	}
	memset(ab, 0, BUF);
	memset(bb, 0, BUF);
	am = ibv_reg_mr_iova2(a->pd, ab, BUF, aio, acc);
	bm = ibv_reg_mr_iova2(b->pd, bb + 8, BUF - 8, bio, acc);
	CHECK(am && bm && am->addr == ab && bm->addr == bb + 8,
	      "ibv_reg_mr_iova2 with IOVAs 0x%llx and 0x%llx", (unsigned long long)aio,
	      (unsigned long long)bio);
	if (am == NULL || bm == NULL)
		goto out;
	for (int i = 0; i < 256; i++) {
		ab[100 + i] = (uint8_t)(i * 7 + 3);
		bb[8 + 1000 + i] = (uint8_t)(i * 13 + 5);
	}
	/* a's bytes 100.. (IOVA aio + 100) to b's IOVA bio + 200 = bb + 8 + 200 */
	CHECK(post1(qa, IBV_WR_RDMA_WRITE, 1, am->lkey, aio + 100, 256, bm->rkey, bio + 200) == 0 &&
	      status1(a->cq) == IBV_WC_SUCCESS && memcmp(bb + 8 + 200, ab + 100, 256) == 0,
	      "WRITE from IOVA to IOVA: the bytes at the addresses they map to");
	/* b's IOVA bio + 1000 read into a's IOVA aio + 2000 */
	CHECK(post1(qa, IBV_WR_RDMA_READ, 2, am->lkey, aio + 2000, 256, bm->rkey, bio + 1000) == 0 &&
	      status1(a->cq) == IBV_WC_SUCCESS && memcmp(ab + 2000, bb + 8 + 1000, 256) == 0,
	      "READ from IOVA into IOVA");
	ctr = (uint64_t *)(bb + 8 + 3000);
	*ctr = 40;
	CHECK(post1(qa, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, am->lkey, aio + 3000, 8, bm->rkey,
		    bio + 3000) == 0 && status1(a->cq) == IBV_WC_SUCCESS && *ctr == 47 &&
	      (memcpy(&old, ab + 3000, 8), old == 40),
	      "fetch-and-add at an IOVA: 40 -> 47, the old value at a's IOVA");
	/* a SEND into a receive posted at b's IOVA bio + 500 */
	{
		struct ibv_sge sg = { bio + 500, 256, bm->lkey };
		struct ibv_recv_wr rw = { .wr_id = 9, .sg_list = &sg, .num_sge = 1 }, *rbad;

		CHECK(ibv_post_recv(qb, &rw, &rbad) == 0 &&
		      post1(qa, IBV_WR_SEND, 6, am->lkey, aio + 100, 256, 0, 0) == 0 &&
		      status1(a->cq) == IBV_WC_SUCCESS && status1(b->cq) == IBV_WC_SUCCESS &&
		      memcmp(bb + 8 + 500, ab + 100, 256) == 0,
		      "SEND into a receive posted at an IOVA");
	}
	/* b's real address is no IOVA of its MR: a remote access error */
	CHECK(post1(qa, IBV_WR_RDMA_WRITE, 4, am->lkey, aio, 16, bm->rkey, (uintptr_t)(bb + 8)) == 0 &&
	      status1(a->cq) == IBV_WC_REM_ACCESS_ERR,
	      "a remote address outside the IOVA range (the buffer's own): remote access error");
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	/* a fresh pair for the local check: the one above went to Error */
	qa = rc_qp_ex(a);
	qb = rc_qp_ex(b);
	if (am && bm && qa && qb && rc_connect(qa, qb->qp_num, &b->gid, 0) == 0 &&
	    rc_connect(qb, qa->qp_num, &a->gid, 0) == 0)
		CHECK(post1(qa, IBV_WR_RDMA_WRITE, 5, am->lkey, (uintptr_t)ab, 16, bm->rkey, bio) ==
		      0 && status1(a->cq) == IBV_WC_LOC_PROT_ERR,
		      "a local SGE at the buffer's own address (not its IOVA): local protection error");
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (am)
		ibv_dereg_mr(am);
	if (bm)
		ibv_dereg_mr(bm);
	free(ab);
	free(bb);
}

static void
test_async(struct side *a, struct side *b)
{
	struct ibv_cq *small = ibv_create_cq(a->ctx, 4, NULL, NULL, 0);
	struct ibv_qp *qa = small ? ud_qp(a, small) : NULL, *qb = ud_qp(b, b->cq);
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = b->gid, .sgid_index = 0, .hop_limit = 64 },
	};
	struct ibv_ah *ah = ibv_create_ah(a->pd, &aa);
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = a->ctx->async_fd, .events = POLLIN };
	int fl = fcntl(a->ctx->async_fd, F_GETFL), posted = 0, rc;

	if (small == NULL || qa == NULL || qb == NULL || ah == NULL) {
		CHECK(0, "async: small CQ, UD QPs, AH");
		return;
	}
	CHECK(fl >= 0 && fcntl(a->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0,
	      "async_fd made non-blocking");
	errno = 0;
	CHECK(ibv_get_async_event(a->ctx, &ev) == -1 && errno == EAGAIN,
	      "ibv_get_async_event with none queued: EAGAIN");
	CHECK(poll(&pfd, 1, 0) == 0, "async_fd not readable with none queued");
	/* more signalled sends than the CQ holds, never polled: an overrun */
	for (int i = 0; i < small->cqe + 8; i++)
		posted += post_ud_send(a, qa, ah, qb->qp_num, 0, 8, 100 + i) == 0;
	rc = poll(&pfd, 1, 5000);
	CHECK(rc == 1 && (pfd.revents & POLLIN), "async_fd readable after a CQ overrun "
	      "(%d sends on a CQ of %d)", posted, small->cqe);
	CHECK(ibv_get_async_event(a->ctx, &ev) == 0 && ev.event_type == IBV_EVENT_QP_FATAL &&
	      ev.element.qp == qa, "IBV_EVENT_QP_FATAL names the QP (%s)",
	      ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	CHECK(ibv_get_async_event(a->ctx, &ev) == -1 && errno == EAGAIN,
	      "one event per overrun");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(small);
}

int
main(void)
{
	struct ibv_device **list;
	struct side a, b;
	int n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	CHECK(list != NULL && n == 2 && strcmp(ibv_get_device_name(list[0]), "softrnic_0") == 0 &&
	      strcmp(ibv_get_device_name(list[1]), "softrnic_1") == 0,
	      "two devices softrnic_0, softrnic_1 (%d)", n);
	if (list == NULL || n != 2)
		return 1;
	if (side_open(list[0], &a) != 0 || side_open(list[1], &b) != 0) {
		CHECK(0, "devices opened, PD, CQ, MR");
		return 1;
	}
	test_gids(&a, "10.0.1.1", "fd00:1::1");
	test_gids(&b, "10.0.1.2", "fd00:1::2");
	test_ud(&a, &b, 0);
	test_ud(&a, &b, 1);
	test_rc_builder(&a, &b, 0);
	test_rc_builder(&a, &b, 1);
	test_iova(&a, &b);
	test_async(&a, &b);
	side_close(&a);
	side_close(&b);
	ibv_free_device_list(list);
	printf("ibverbs-api: %d failed\n", failed);
	return failed;
}
