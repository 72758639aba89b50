/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application of the softrnic daemon (issue 20): attaches over the
 * daemon's socket (rnic_attach_open) and uses its two ports through the
 * rnic_* API, with no engine of its own. Run by test/attach/run_attach.py.
 *
 *   attach_app SOCKET loop N      RC QP on port 0 <-> RC QP on port 1:
 *                                 N rounds of WRITE, READ, SEND (each
 *                                 checked byte for byte), UD SENDs,
 *                                 atomics; N = 0: until killed
 *                                 ("ready" line once set up)
 *   attach_app SOCKET probe RKEY ADDR
 *                                 a WRITE to RKEY/ADDR over a fresh RC
 *                                 pair must end REM_ACCESS_ERR
 *   attach_app SOCKET stats       the daemon's object counts, one line
 *   attach_app SOCKET errors      bad work requests and bad calls complete
 *                                 or fail as in one process; limits
 *   attach_app SOCKET memory      what can and cannot be registered, and
 *                                 memory moved while another thread writes
 *   attach_app SOCKET hostile     a client that speaks the protocol itself
 *                                 and lies: other handles, unsealed memfds,
 *                                 ring indices and WQEs out of bounds; only
 *                                 its own QPs suffer
 *   attach_app SOCKET wait-stop   a QP left in RTS with receives posted:
 *                                 after the daemon's clean stop, every
 *                                 receive completes WR_FLUSH_ERR
 *
 * Prints one result line and exits 0, or the first failure and 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_errno.h>

#include "rnic_attach.h"
#include "test_common.h"
#include "rnic_verbs.h"

#define FAIL(...) do { \
	fprintf(stderr, "attach_app: " __VA_ARGS__); \
	fprintf(stderr, " (line %d)\n", __LINE__); \
	exit(1); \
} while (0)
#define CHECK(c, ...) do { if (!(c)) FAIL(__VA_ARGS__); } while (0)

#define BUF 65536
#define DEPTH 64

struct end {
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *rc, *ud;
	struct rnic_mr *mr;
	uint8_t *buf;
	uint8_t mac[6];
	rte_be32_t ip;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion of @p cq within 10 s. */
static struct rnic_wc
wait_wc(struct rnic_cq *cq)
{
	struct rnic_wc wc;
	double end = now_s() + 10;

	while (rnic_poll_cq(cq, 1, &wc) == 0)
		CHECK(now_s() < end, "no completion in 10 s");
	return wc;
}

static void
end_open(struct end *e, struct rnic_device *dev, enum rnic_qp_type ud_too)
{
	struct rnic_qp_init_attr ia = {
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
		.qp_type = RNIC_QPT_RC };

	e->dev = dev;
	rnic_dev_get_addr(dev, e->mac, &e->ip);
	e->pd = rnic_alloc_pd(dev);
	CHECK(e->pd != NULL, "alloc_pd: %s", strerror(rte_errno));
	e->buf = malloc(BUF);   /* ordinary heap memory: moved to shared memory */
	CHECK(e->buf != NULL, "malloc");
	memset(e->buf, 0, BUF);
	e->mr = rnic_reg_mr(e->pd, e->buf, BUF, RNIC_ACCESS_ALL);
	CHECK(e->mr != NULL, "reg_mr: %s", strerror(rte_errno));
	e->cq = rnic_create_cq(dev, 4 * DEPTH);
	CHECK(e->cq != NULL, "create_cq: %s", strerror(rte_errno));
	ia.send_cq = ia.recv_cq = e->cq;
	e->rc = rnic_create_qp(e->pd, &ia);
	CHECK(e->rc != NULL, "create_qp: %s", strerror(rte_errno));
	if (ud_too == RNIC_QPT_UD) {
		ia.qp_type = RNIC_QPT_UD;
		e->ud = rnic_create_qp(e->pd, &ia);
		CHECK(e->ud != NULL, "create_qp UD: %s", strerror(rte_errno));
	}
}

/* Both ends' devices (and everything made on them) and their buffers. */
static void
close_two(struct end *a, struct end *b)
{
	rnic_dev_destroy(a->dev);
	rnic_dev_destroy(b->dev);
	free(a->buf);
	free(b->buf);
}

/* @p qp to RTS towards @p pqp of @p b (test_common's helper: through
 * the rnic_* API, so over the daemon as in one process). */
static void
qp_up(struct rnic_qp *qp, const struct end *b, struct rnic_qp *pqp)
{
	struct test_qp_conn c = { .dmac = b->mac, .dip = b->ip, .dest_qpn = rnic_qp_num(pqp),
				  .qkey = 0x1234, .mtu = RNIC_MTU_1024, .sq_psn = 100,
				  .rq_psn = 100, .timeout = 14, .retry_cnt = 7 };
	enum rnic_qp_state failed;

	CHECK(test_qp_to_rts(qp, &c, &failed) == 0, "QP to RTS: the move to %s failed",
	      rnic_qp_state_str(failed));
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static struct rnic_wc
post_wait(struct end *e, struct rnic_qp *qp, struct rnic_send_wr *wr)
{
	struct rnic_send_wr *bad;
	int rc = rnic_post_send(qp, wr, &bad);

	CHECK(rc == 0, "post_send: %d", rc);
	return wait_wc(e->cq);
}

/* One round between a (port 0) and b (port 1). */
static void
round_trip(struct end *a, struct end *b, uint32_t r)
{
	const uint32_t len = 4096 + (r % 7) * 1000;
	struct rnic_sge s = { .addr = (uintptr_t)a->buf, .length = len, .lkey = rnic_mr_lkey(a->mr) };
	struct rnic_send_wr wr = { .wr_id = r, .sg_list = &s, .num_sge = 1,
				   .opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_recv_wr rw;
	struct rnic_sge rs;
	struct rnic_wc wc;
	uint64_t old;

	/* WRITE a -> b, checked in b's memory */
	fill(a->buf, len, r);
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf + 8192;
	wr.wr.rdma.rkey = rnic_mr_rkey(b->mr);
	wc = post_wait(a, a->rc, &wr);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RDMA_WRITE && wc.wr_id == r,
	      "WRITE: %s", rnic_wc_status_str(wc.status));
	CHECK(memcmp(a->buf, b->buf + 8192, len) == 0, "WRITE data differs (round %u)", r);
	/* READ it back into a's buffer at 32 KiB */
	s.addr = (uintptr_t)a->buf + 32768;
	wr.opcode = RNIC_WR_RDMA_READ;
	wc = post_wait(a, a->rc, &wr);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RDMA_READ, "READ: %s",
	      rnic_wc_status_str(wc.status));
	CHECK(memcmp(a->buf, a->buf + 32768, len) == 0, "READ data differs (round %u)", r);
	/* SEND b -> a with immediate, into a receive at a's 16 KiB */
	rs = (struct rnic_sge){ .addr = (uintptr_t)a->buf + 16384, .length = 8192,
				.lkey = rnic_mr_lkey(a->mr) };
	rw = (struct rnic_recv_wr){ .wr_id = 1000 + r, .sg_list = &rs, .num_sge = 1 };
	CHECK(rnic_post_recv(a->rc, &rw, NULL) == 0, "post_recv");
	fill(b->buf, 3000, r + 7);
	s = (struct rnic_sge){ .addr = (uintptr_t)b->buf, .length = 3000, .lkey = rnic_mr_lkey(b->mr) };
	wr = (struct rnic_send_wr){ .wr_id = 2000 + r, .sg_list = &s, .num_sge = 1,
				    .opcode = RNIC_WR_SEND_WITH_IMM, .imm_data = rte_cpu_to_be_32(r),
				    .send_flags = RNIC_SEND_SIGNALED };
	wc = post_wait(b, b->rc, &wr);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.wr_id == 2000 + r, "SEND: %s",
	      rnic_wc_status_str(wc.status));
	wc = wait_wc(a->cq);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RECV && wc.wr_id == 1000 + r &&
	      wc.byte_len == 3000 && (wc.wc_flags & RNIC_WC_WITH_IMM) &&
	      wc.imm_data == rte_cpu_to_be_32(r), "RECV: %s len %u",
	      rnic_wc_status_str(wc.status), wc.byte_len);
	CHECK(memcmp(b->buf, a->buf + 16384, 3000) == 0, "SEND data differs (round %u)", r);
	/* FetchAdd on b's first word */
	memcpy(&old, b->buf + 60000, 8);
	s = (struct rnic_sge){ .addr = (uintptr_t)a->buf + 60000, .length = 8,
			       .lkey = rnic_mr_lkey(a->mr) };
	wr = (struct rnic_send_wr){ .wr_id = 3000 + r, .sg_list = &s, .num_sge = 1,
				    .opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD,
				    .send_flags = RNIC_SEND_SIGNALED };
	wr.wr.atomic.remote_addr = (uintptr_t)b->buf + 60000;
	wr.wr.atomic.rkey = rnic_mr_rkey(b->mr);
	wr.wr.atomic.compare_add = 3;
	wc = post_wait(a, a->rc, &wr);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_FETCH_ADD, "FETCH_ADD: %s",
	      rnic_wc_status_str(wc.status));
	{
		uint64_t got, now;

		memcpy(&got, a->buf + 60000, 8);
		memcpy(&now, b->buf + 60000, 8);
		CHECK(got == old && now == old + 3, "FETCH_ADD returned %" PRIu64 ", target %"
		      PRIu64 " (was %" PRIu64 ")", got, now, old);
	}
}

/* UD: a SEND from a's UD QP to b's with an AH, inline. */
static void
ud_round(struct end *a, struct end *b, uint32_t r)
{
	struct rnic_ah_attr aa = { .dip = b->ip };
	struct rnic_ah *ah;
	struct rnic_sge rs = { .addr = (uintptr_t)b->buf + 40960, .length = 40 + 1024,
			       .lkey = rnic_mr_lkey(b->mr) };
	struct rnic_recv_wr rw = { .wr_id = 77, .sg_list = &rs, .num_sge = 1 };
	char msg[48];
	struct rnic_sge s = { .addr = (uintptr_t)msg, .length = sizeof(msg) };
	struct rnic_send_wr wr = { .wr_id = 78, .sg_list = &s, .num_sge = 1,
				   .opcode = RNIC_WR_SEND,
				   .send_flags = RNIC_SEND_SIGNALED | RNIC_SEND_INLINE };
	struct rnic_wc wc;

	aa.dgid_v4_prefix[10] = aa.dgid_v4_prefix[11] = 0xff;
	memcpy(aa.dmac, b->mac, 6);
	ah = rnic_create_ah(a->pd, &aa);
	CHECK(ah != NULL, "create_ah: %s", strerror(rte_errno));
	snprintf(msg, sizeof(msg), "datagram %u through the daemon", r);
	CHECK(rnic_post_recv(b->ud, &rw, NULL) == 0, "UD post_recv");
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rnic_qp_num(b->ud);
	wr.wr.ud.remote_qkey = 0x1234;
	wc = post_wait(a, a->ud, &wr);
	CHECK(wc.status == RNIC_WC_SUCCESS, "UD SEND: %s", rnic_wc_status_str(wc.status));
	wc = wait_wc(b->cq);
	CHECK(wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RECV &&
	      wc.byte_len == 40 + sizeof(msg) && wc.src_qp == rnic_qp_num(a->ud),
	      "UD RECV: %s len %u", rnic_wc_status_str(wc.status), wc.byte_len);
	CHECK(memcmp(b->buf + 40960 + 40, msg, sizeof(msg)) == 0, "UD data differs");
	CHECK(rnic_destroy_ah(ah) == 0, "destroy_ah");
}

static void
open_two(const char *sock, struct end *a, struct end *b, enum rnic_qp_type ud)
{
	struct rnic_device *devs[4];
	unsigned int n;
	int rc = rnic_attach_open(sock, devs, 4, &n);

	CHECK(rc == 0, "rnic_attach_open(%s): %s", sock, strerror(-rc));
	CHECK(n >= 2, "the daemon has %u ports, 2 needed", n);
	CHECK(rnic_dev_is_attached(devs[0]), "not an attached device");
	for (unsigned int i = 2; i < n; i++)
		rnic_dev_destroy(devs[i]);
	end_open(a, devs[0], ud);
	end_open(b, devs[1], ud);
	qp_up(a->rc, b, b->rc);
	qp_up(b->rc, a, a->rc);
	if (ud == RNIC_QPT_UD) {
		qp_up(a->ud, b, b->ud);
		qp_up(b->ud, a, a->ud);
	}
}

static int
do_loop(const char *sock, unsigned long n)
{
	struct end a = {0}, b = {0};

	open_two(sock, &a, &b, RNIC_QPT_UD);
	printf("ready rkey=%#x addr=%#" PRIx64 " qpn=%u\n", rnic_mr_rkey(b.mr),
	       (uint64_t)(uintptr_t)b.buf, rnic_qp_num(b.rc));
	fflush(stdout);
	for (unsigned long r = 0; n == 0 || r < n; r++) {
		round_trip(&a, &b, (uint32_t)r);
		if (r % 4 == 0)
			ud_round(&a, &b, (uint32_t)r);
	}
	close_two(&a, &b);
	printf("loop: rounds=%lu ok\n", n);
	return 0;
}

static int
do_probe(const char *sock, uint32_t rkey, uint64_t addr)
{
	struct end a = {0}, b = {0};
	struct rnic_sge s;
	struct rnic_send_wr wr;
	struct rnic_wc wc;

	open_two(sock, &a, &b, RNIC_QPT_RC);
	s = (struct rnic_sge){ .addr = (uintptr_t)a.buf, .length = 64, .lkey = rnic_mr_lkey(a.mr) };
	wr = (struct rnic_send_wr){ .wr_id = 9, .sg_list = &s, .num_sge = 1,
				    .opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	wc = post_wait(&a, a.rc, &wr);
	CHECK(wc.status == RNIC_WC_REM_ACCESS_ERR, "a WRITE to rkey %#x ended %s, not "
	      "REM_ACCESS_ERR", rkey, rnic_wc_status_str(wc.status));
	printf("probe: rkey=%#x status=%s\n", rkey, rnic_wc_status_str(wc.status));
	close_two(&a, &b);
	return 0;
}

static int
do_stats(const char *sock)
{
	struct rnic_device *devs[4];
	struct rnic_att_server_stats st;
	unsigned int n;
	int rc = rnic_attach_open(sock, devs, 4, &n);

	CHECK(rc == 0, "rnic_attach_open: %s", strerror(-rc));
	rc = rnic_attach_server_stats_get(devs[0], &st);
	CHECK(rc == 0, "server stats: %d", rc);
	/* This application holds nothing: the counts are everyone else's. */
	printf("stats: apps=%u apps_total=%u apps_died=%u qps=%u mrs=%u cqs=%u pds=%u ahs=%u "
	       "dev_qps=%u dev_mrs=%u dev_cqs=%u dev_pds=%u dev_ahs=%u wqes=%" PRIu64 " cqes=%" PRIu64
	       " violations=%" PRIu64 "\n",
	       st.apps, st.apps_total, st.apps_died, st.qps, st.mrs, st.cqs, st.pds, st.ahs,
	       st.dev_qps, st.dev_mrs, st.dev_cqs, st.dev_pds, st.dev_ahs, st.wqes, st.cqes,
	       st.violations);
	for (unsigned int i = 0; i < n; i++)
		rnic_dev_destroy(devs[i]);
	return 0;
}

/* Receives posted on both RC QPs and a SEND that cannot finish (RNR:
 * the peer's receive queue is empty... no: the peer posted none), then the
 * daemon's stop: every WR completes, flushed. */
static int
do_wait_stop(const char *sock)
{
	struct end a = {0}, b = {0};
	struct rnic_recv_wr rw[4];
	struct rnic_sge rs[4];
	unsigned int flushed = 0;
	double end;

	open_two(sock, &a, &b, RNIC_QPT_RC);
	for (int i = 0; i < 4; i++) {
		rs[i] = (struct rnic_sge){ .addr = (uintptr_t)a.buf + 1024 * i, .length = 1024,
					   .lkey = rnic_mr_lkey(a.mr) };
		rw[i] = (struct rnic_recv_wr){ .wr_id = 500 + i, .sg_list = &rs[i], .num_sge = 1,
					       .next = i < 3 ? &rw[i + 1] : NULL };
	}
	CHECK(rnic_post_recv(a.rc, rw, NULL) == 0, "post_recv");
	printf("ready\n");
	end = now_s() + 30;
	while (flushed < 4 && now_s() < end) {
		struct rnic_wc wc;

		if (rnic_poll_cq(a.cq, 1, &wc) == 0)
			continue;
		CHECK(wc.status == RNIC_WC_WR_FLUSH_ERR && wc.wr_id == 500 + flushed,
		      "completion %u: %s wr_id %" PRIu64, flushed, rnic_wc_status_str(wc.status),
		      wc.wr_id);
		flushed++;
	}
	CHECK(flushed == 4, "%u of 4 receives flushed", flushed);
	CHECK(rnic_attach_state(a.dev) != RNIC_ATT_UP, "the daemon stopped, the page says up");
	printf("wait-stop: flushed=%u state=%d\n", flushed, rnic_attach_state(a.dev));
	close_two(&a, &b);   /* the daemon is gone: freed here alone */
	return 0;
}

/* ------------------------------------------------------------------ */
/* errors                                                              */
/* ------------------------------------------------------------------ */

static int
do_errors(const char *sock)
{
	struct end a = {0}, b = {0};
	struct rnic_sge s, many[4];
	struct rnic_send_wr wr, *bad;
	struct rnic_recv_wr rw;
	struct rnic_wc wc;
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp_attr qa;
	struct rnic_qp *qps[300];
	unsigned int made = 0;

	open_two(sock, &a, &b, RNIC_QPT_RC);
	/* A WR the engine finds bad (an L_Key nobody has) completes with an
	 * error status, in order, and the QP goes to Error. */
	s = (struct rnic_sge){ .addr = (uintptr_t)a.buf, .length = 64, .lkey = 0xdead00 };
	wr = (struct rnic_send_wr){ .wr_id = 1, .sg_list = &s, .num_sge = 1,
				    .opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
	wr.wr.rdma.rkey = rnic_mr_rkey(b.mr);
	wc = post_wait(&a, a.rc, &wr);
	CHECK(wc.status == RNIC_WC_LOC_PROT_ERR && wc.wr_id == 1, "bad L_Key: %s",
	      rnic_wc_status_str(wc.status));
	CHECK(rnic_query_qp(a.rc, &qa, RNIC_QP_STATE, NULL) == 0 && qa.qp_state == RNIC_QPS_ERR,
	      "after a local protection error the QP is %s, not Error",
	      rnic_qp_state_str(qa.qp_state));
	/* Structural faults are refused at once, with bad_wr. */
	for (int i = 0; i < 4; i++)
		many[i] = s;
	wr.sg_list = many;
	wr.num_sge = 3;   /* max_send_sge is 2 */
	bad = NULL;
	CHECK(rnic_post_send(b.rc, &wr, &bad) == -EINVAL && bad == &wr, "3 SGEs accepted");
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_MAX;
	CHECK(rnic_post_send(b.rc, &wr, &bad) == -EINVAL, "a bad opcode accepted");
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_INLINE;
	s.length = 65;   /* max_inline_data is 64 */
	wr.sg_list = &s;
	CHECK(rnic_post_send(b.rc, &wr, &bad) == -EINVAL, "inline over the limit accepted");
	rw = (struct rnic_recv_wr){ .wr_id = 5, .sg_list = many, .num_sge = 3 };
	CHECK(rnic_post_recv(b.rc, &rw, NULL) == -EINVAL, "3 receive SGEs accepted");
	/* Bad calls. */
	CHECK(rnic_create_cq(a.dev, 0) == NULL && rte_errno == EINVAL, "create_cq(0)");
	CHECK(rnic_create_cq(a.dev, 1u << 30) == NULL, "a CQ over max_cqe");
	ia = (struct rnic_qp_init_attr){ .send_cq = a.cq, .recv_cq = a.cq, .qp_type = RNIC_QPT_RC,
					 .cap = { .max_send_wr = 1u << 20, .max_recv_wr = 1 } };
	CHECK(rnic_create_qp(a.pd, &ia) == NULL && rte_errno == EINVAL, "1M send WRs accepted");
	ia.cap.max_send_wr = 4;
	ia.send_cq = b.cq;   /* a CQ of the other port */
	CHECK(rnic_create_qp(a.pd, &ia) == NULL, "a QP with another port's CQ");
	CHECK(rnic_destroy_cq(a.cq) == -EBUSY, "a CQ in use destroyed");
	CHECK(rnic_dealloc_pd(a.pd) == -EBUSY, "a PD in use deallocated");
	/* Limits: the application may hold max_qps (256) QPs, no more. */
	ia.send_cq = a.cq;
	for (made = 0; made < RTE_DIM(qps); made++) {
		qps[made] = rnic_create_qp(a.pd, &ia);
		if (qps[made] == NULL)
			break;
	}
	CHECK(made > 0 && made < RTE_DIM(qps) && rte_errno == ENOSPC,
	      "%u QPs made before a refusal (%s)", made, strerror(rte_errno));
	CHECK(made + 2 == 256, "the limit is max_qps: %u made beside 2", made);
	for (unsigned int i = 0; i < made; i++)
		CHECK(rnic_destroy_qp(qps[i]) == 0, "destroy_qp");
	/* Everything destroyed one by one: nothing left. */
	CHECK(rnic_destroy_qp(a.rc) == 0 && rnic_destroy_qp(b.rc) == 0, "destroy_qp");
	CHECK(rnic_dereg_mr(a.mr) == 0 && rnic_dereg_mr(b.mr) == 0, "dereg_mr");
	CHECK(rnic_destroy_cq(a.cq) == 0 && rnic_destroy_cq(b.cq) == 0, "destroy_cq");
	CHECK(rnic_dealloc_pd(a.pd) == 0 && rnic_dealloc_pd(b.pd) == 0, "dealloc_pd");
	{
		struct rnic_att_server_stats st;

		CHECK(rnic_attach_server_stats_get(a.dev, &st) == 0, "stats");
		CHECK(st.qps == 0 && st.mrs == 0 && st.cqs == 0 && st.pds == 0,
		      "objects left: %u QPs %u MRs %u CQs %u PDs", st.qps, st.mrs, st.cqs, st.pds);
	}
	close_two(&a, &b);
	printf("errors: ok (%u QPs up to the limit)\n", made + 2);
	return 0;
}

/* ------------------------------------------------------------------ */
/* memory                                                              */
/* ------------------------------------------------------------------ */

struct writer {
	volatile uint64_t *word;
	volatile int stop;
	uint64_t last;
};

static void *
writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t v = 0;

	while (!w->stop)
		*w->word = ++v;   /* faults, waits, and goes on while the page moves */
	w->last = v;
	return NULL;
}

static int
do_memory(const char *sock)
{
	struct end a = {0}, b = {0};
	struct rnic_mr *mr;
	uint8_t stackbuf[256];
	void *ro, *shared;
	int fd;

	open_two(sock, &a, &b, RNIC_QPT_RC);
	/* Refused: the calling thread's stack, a read-only mapping, a
	 * shared mapping of a file, an unmapped page. */
	CHECK(rnic_reg_mr(a.pd, stackbuf, sizeof(stackbuf), RNIC_ACCESS_LOCAL_WRITE) == NULL &&
	      rte_errno == EFAULT, "stack memory registered (%s)", strerror(rte_errno));
	ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED, "mmap");
	CHECK(rnic_reg_mr(a.pd, ro, 8192, 0) == NULL && rte_errno == EFAULT,
	      "read-only memory registered");
	fd = open("/proc/self/exe", O_RDONLY);
	shared = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	CHECK(shared != MAP_FAILED, "mmap of a file");
	CHECK(rnic_reg_mr(a.pd, shared, 4096, 0) == NULL && rte_errno == EFAULT,
	      "a file mapping registered");
	munmap(ro, 8192);
	CHECK(rnic_reg_mr(a.pd, ro, 8192, 0) == NULL && rte_errno == EFAULT,
	      "an unmapped range registered");
	munmap(shared, 4096);
	close(fd);
	/* Moved while another thread writes into the same page: not a write
	 * is lost, and the page then carries RDMA. */
	{
		uint8_t *heap = malloc(3 * 4096);
		uint8_t *page = (uint8_t *)(((uintptr_t)heap + 4095) & ~(uintptr_t)4095);
		struct writer w = { .word = (volatile uint64_t *)(page + 2048) };
		pthread_t t;
		uint64_t seen;
		double end;

		CHECK(heap != NULL, "malloc");
		memset(page, 0x5a, 2048);
		/* malloc's memory is not zeroed (MALLOC_PERTURB_ fills it, as
		 * meson test sets it): the writer counts up from 0 */
		*w.word = 0;
		CHECK(pthread_create(&t, NULL, writer_main, &w) == 0, "pthread_create");
		end = now_s() + 10;
		while (*w.word < 1000)
			CHECK(now_s() < end, "the writer made no 1000 writes in 10 s");
		mr = rnic_reg_mr(a.pd, page, 1024, RNIC_ACCESS_ALL);
		CHECK(mr != NULL, "heap memory with a writer: %s", strerror(rte_errno));
		seen = *w.word;
		end = now_s() + 10;
		while (*w.word < seen + 1000)   /* it goes on writing after the move */
			CHECK(now_s() < end, "the writer stopped after the move (%" PRIu64
			      " then %" PRIu64 ")", seen, *w.word);
		w.stop = 1;
		pthread_join(t, NULL);
		CHECK(*w.word == w.last, "the writer's last value %" PRIu64 " is not in memory "
		      "(%" PRIu64 "): a write was lost", w.last, *w.word);
		for (int i = 0; i < 2048; i++)
			CHECK(page[i] == 0x5a, "byte %d changed by the move", i);
		/* A peer WRITEs into it. */
		{
			struct rnic_sge s = { .addr = (uintptr_t)b.buf, .length = 512,
					      .lkey = rnic_mr_lkey(b.mr) };
			struct rnic_send_wr wr = { .wr_id = 4, .sg_list = &s, .num_sge = 1,
						   .opcode = RNIC_WR_RDMA_WRITE,
						   .send_flags = RNIC_SEND_SIGNALED };
			struct rnic_wc wc;

			fill(b.buf, 512, 99);
			wr.wr.rdma.remote_addr = (uintptr_t)page + 256;
			wr.wr.rdma.rkey = rnic_mr_rkey(mr);
			/* b's QP is in a's PD? No: a's MR is in a's PD, so a's
			 * QP is the responder: b WRITEs to a. */
			wc = post_wait(&b, b.rc, &wr);
			CHECK(wc.status == RNIC_WC_SUCCESS, "WRITE into moved memory: %s",
			      rnic_wc_status_str(wc.status));
			CHECK(memcmp(page + 256, b.buf, 512) == 0, "WRITE data differs");
		}
		/* Registered again, the same pages: shared as they are. */
		{
			struct rnic_mr *again = rnic_reg_mr(a.pd, page, 4096, RNIC_ACCESS_LOCAL_WRITE);

			CHECK(again != NULL, "the moved page registered again: %s",
			      strerror(rte_errno));
			CHECK(rnic_dereg_mr(again) == 0, "dereg_mr");
		}
		CHECK(rnic_dereg_mr(mr) == 0, "dereg_mr");
		free(heap);
	}
	close_two(&a, &b);
	printf("memory: ok\n");
	return 0;
}

/* ------------------------------------------------------------------ */
/* hostile: the protocol spoken by hand                                */
/* ------------------------------------------------------------------ */

static int
raw_call(int fd, struct rnic_att_msg *m, uint32_t op, const int *fds, unsigned int n_fds,
	 int *out_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * RNIC_ATT_MAX_FDS)] = {0};
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	m->op = op;
	rnic_att_put_fds(&mh, cbuf, fds, n_fds);
	CHECK(sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m), "sendmsg");
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	CHECK(recvmsg(fd, &mh, 0) == (ssize_t)sizeof(*m), "recvmsg");
	rnic_att_take_one_fd(&mh, out_fd);
	return m->status;
}

static int
do_hostile(const char *sock)
{
	struct end a = {0}, b = {0};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rnic_att_msg m;
	struct rnic_att_server_stats st0, st1;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), mfd, page_fd, cq_fd, qp_fd;
	uint32_t pd, cq, qp;
	uint64_t rq_off;
	void *qmap;
	struct rnic_att_qp_ring *ring;

	/* A well-behaved application beside it: its loop must keep working. */
	open_two(sock, &a, &b, RNIC_QPT_UD);
	CHECK(rnic_attach_server_stats_get(a.dev, &st0) == 0, "stats");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect");
	/* Before HELLO nothing is served; a HELLO of another version is refused. */
	memset(&m, 0, sizeof(m));
	CHECK(raw_call(fd, &m, RNIC_ATT_ALLOC_PD, NULL, 0, NULL) == -EPROTO, "a request before HELLO");
	m = (struct rnic_att_msg){ .hello = { RNIC_ATT_MAGIC, 99 } };
	CHECK(raw_call(fd, &m, RNIC_ATT_HELLO, NULL, 0, NULL) == -EPROTO, "HELLO of version 99");
	m = (struct rnic_att_msg){ .hello = { RNIC_ATT_MAGIC, RNIC_ATT_VERSION } };
	CHECK(raw_call(fd, &m, RNIC_ATT_HELLO, NULL, 0, &page_fd) == 0, "HELLO");
	close(page_fd);
	/* Handles it does not hold (the other application's are numbered
	 * alike, in their own table). */
	for (uint32_t h = 0; h < 4; h++) {
		m = (struct rnic_att_msg){ .obj.handle = h };
		CHECK(raw_call(fd, &m, RNIC_ATT_DEREG_MR, NULL, 0, NULL) == -EINVAL, "DEREG_MR %u", h);
		m = (struct rnic_att_msg){ .obj.handle = h };
		CHECK(raw_call(fd, &m, RNIC_ATT_DESTROY_QP, NULL, 0, NULL) == -EINVAL, "DESTROY_QP");
		m = (struct rnic_att_msg){ .modify_qp = { .handle = h } };
		CHECK(raw_call(fd, &m, RNIC_ATT_MODIFY_QP, NULL, 0, NULL) == -EINVAL, "MODIFY_QP");
	}
	m = (struct rnic_att_msg){ .port.port = 7 };
	CHECK(raw_call(fd, &m, RNIC_ATT_ALLOC_PD, NULL, 0, NULL) == -EINVAL, "a port it lacks");
	m = (struct rnic_att_msg){ .port.port = 0 };
	CHECK(raw_call(fd, &m, RNIC_ATT_ALLOC_PD, NULL, 0, NULL) == 0, "ALLOC_PD");
	pd = m.obj_rep.handle;
	m = (struct rnic_att_msg){ .op = 9999 };
	CHECK(raw_call(fd, &m, 9999, NULL, 0, NULL) == -EOPNOTSUPP, "an unknown op");
	/* An MR in a memfd that could shrink, then one whose pieces lie. */
	mfd = memfd_create("hostile", MFD_ALLOW_SEALING);
	CHECK(mfd >= 0 && ftruncate(mfd, 8192) == 0, "memfd");
	m = (struct rnic_att_msg){ .reg_mr = { .pd = pd, .access = RNIC_ACCESS_LOCAL_WRITE,
					       .iova = 0x10000, .length = 4096, .n_pieces = 1,
					       .piece = { { .fd = 0, .offset = 0, .length = 8192 } } } };
	CHECK(raw_call(fd, &m, RNIC_ATT_REG_MR, &mfd, 1, NULL) == -EBADF, "an unsealed memfd");
	CHECK(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "seal");
	m.reg_mr.piece[0].length = 16384;   /* past its end */
	CHECK(raw_call(fd, &m, RNIC_ATT_REG_MR, &mfd, 1, NULL) == -EBADF, "a piece past EOF");
	m.reg_mr.piece[0].length = 8192;
	m.reg_mr.piece[0].fd = 3;           /* an fd it did not send */
	CHECK(raw_call(fd, &m, RNIC_ATT_REG_MR, &mfd, 1, NULL) == -EINVAL, "a missing fd");
	m.reg_mr.piece[0].fd = 0;
	m.reg_mr.offset = 8000;             /* the MR past the pieces */
	CHECK(raw_call(fd, &m, RNIC_ATT_REG_MR, &mfd, 1, NULL) == -EINVAL, "an MR past its pieces");
	m.reg_mr.offset = 0;
	CHECK(raw_call(fd, &m, RNIC_ATT_REG_MR, &mfd, 1, NULL) == 0, "a good MR");
	/* A CQ and a QP, then rings that lie. */
	m = (struct rnic_att_msg){ .create_cq = { .port = 0, .cqe = 16 } };
	CHECK(raw_call(fd, &m, RNIC_ATT_CREATE_CQ, NULL, 0, &cq_fd) == 0, "CREATE_CQ");
	cq = m.create_cq_rep.handle;
	close(cq_fd);
	m = (struct rnic_att_msg){ .create_qp = { .pd = pd, .send_cq = cq, .recv_cq = cq,
						  .qp_type = RNIC_QPT_UD,
						  .cap = { .max_send_wr = 8, .max_recv_wr = 8,
							   .max_send_sge = 1, .max_recv_sge = 1 } } };
	CHECK(raw_call(fd, &m, RNIC_ATT_CREATE_QP, NULL, 0, &qp_fd) == 0, "CREATE_QP");
	qp = m.create_qp_rep.handle;
	rq_off = m.create_qp_rep.rq_off;
	qmap = mmap(NULL, m.create_qp_rep.size, PROT_READ | PROT_WRITE, MAP_SHARED, qp_fd, 0);
	CHECK(qmap != MAP_FAILED, "map the QP's rings");
	CHECK(ftruncate(qp_fd, 0) != 0, "the daemon's ring memfd could be shrunk");
	ring = qmap;
	{
		struct rnic_qp_attr at = { .qp_state = RNIC_QPS_INIT, .qkey = 1, .port_num = 1 };

		m = (struct rnic_att_msg){ .modify_qp = { .handle = qp, .attr = at,
				.mask = RNIC_QP_STATE | RNIC_QP_QKEY | RNIC_QP_PKEY_INDEX |
					RNIC_QP_PORT } };
		CHECK(raw_call(fd, &m, RNIC_ATT_MODIFY_QP, NULL, 0, NULL) == 0, "Init");
	}
	/* A receive WQE with 200 SGEs (the slot has room for 1). */
	{
		struct rnic_att_rwqe *w = (struct rnic_att_rwqe *)((uint8_t *)qmap + rq_off);

		w->num_sge = 200;
		__atomic_store_n(&ring->rq_pi, 1, __ATOMIC_RELEASE);
	}
	{
		double end = now_s() + 10;

		while (!__atomic_load_n(&ring->fault, __ATOMIC_ACQUIRE))
			CHECK(now_s() < end, "a WQE with 200 SGEs did not fault its QP");
	}
	m = (struct rnic_att_msg){ .modify_qp = { .handle = qp, .mask = RNIC_QP_STATE } };
	CHECK(raw_call(fd, &m, RNIC_ATT_QUERY_QP, NULL, 0, NULL) == 0 &&
	      m.modify_qp.attr.qp_state == RNIC_QPS_ERR, "the faulted QP is not in Error");
	/* A second QP whose producer index runs ahead of its ring. */
	m = (struct rnic_att_msg){ .create_qp = { .pd = pd, .send_cq = cq, .recv_cq = cq,
						  .qp_type = RNIC_QPT_UD,
						  .cap = { .max_send_wr = 8, .max_recv_wr = 8,
							   .max_send_sge = 1, .max_recv_sge = 1 } } };
	close(qp_fd);
	CHECK(raw_call(fd, &m, RNIC_ATT_CREATE_QP, NULL, 0, &qp_fd) == 0, "CREATE_QP 2");
	{
		struct rnic_att_qp_ring *r2 = mmap(NULL, m.create_qp_rep.size,
						   PROT_READ | PROT_WRITE, MAP_SHARED, qp_fd, 0);
		double end = now_s() + 10;

		CHECK(r2 != MAP_FAILED, "map");
		__atomic_store_n(&r2->sq_pi, 0x80000000u, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&r2->fault, __ATOMIC_ACQUIRE))
			CHECK(now_s() < end, "sq_pi 2^31 ahead did not fault its QP");
	}
	/* The well-behaved application never noticed. */
	for (uint32_t r = 0; r < 8; r++) {
		round_trip(&a, &b, r);
		ud_round(&a, &b, r);
	}
	CHECK(rnic_attach_server_stats_get(a.dev, &st1) == 0, "stats");
	CHECK(st1.violations >= st0.violations + 2, "violations %" PRIu64 " -> %" PRIu64,
	      st0.violations, st1.violations);
	close(fd);   /* it goes away holding everything: the daemon frees it */
	close_two(&a, &b);
	printf("hostile: ok violations=%" PRIu64 "\n", st1.violations - st0.violations);
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && strcmp(argv[2], "loop") == 0)
		return do_loop(argv[1], strtoul(argv[3], NULL, 0));
	if (argc >= 5 && strcmp(argv[2], "probe") == 0)
		return do_probe(argv[1], (uint32_t)strtoul(argv[3], NULL, 0),
				strtoull(argv[4], NULL, 0));
	if (argc >= 3 && strcmp(argv[2], "stats") == 0)
		return do_stats(argv[1]);
	if (argc >= 3 && strcmp(argv[2], "wait-stop") == 0)
		return do_wait_stop(argv[1]);
	if (argc >= 3 && strcmp(argv[2], "errors") == 0)
		return do_errors(argv[1]);
	if (argc >= 3 && strcmp(argv[2], "memory") == 0)
		return do_memory(argv[1]);
	if (argc >= 3 && strcmp(argv[2], "hostile") == 0)
		return do_hostile(argv[1]);
	fprintf(stderr, "usage: attach_app SOCKET loop N | probe RKEY ADDR | stats | wait-stop | "
		"errors | memory | hostile\n");
	return 2;
}
