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
 *                                 or fail as in one process
 *   attach_app SOCKET memory      what can and cannot be registered
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
#include <sys/mman.h>

#include <rte_errno.h>

#include "rnic_attach.h"
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

static void
rc_connect(struct end *a, struct end *b)
{
	struct rnic_qp_attr at = { .qp_state = RNIC_QPS_INIT, .port_num = 1,
				   .qp_access_flags = RNIC_ACCESS_REMOTE_WRITE |
						      RNIC_ACCESS_REMOTE_READ |
						      RNIC_ACCESS_REMOTE_ATOMIC };

	CHECK(rnic_modify_qp(a->rc, &at, RNIC_QP_STATE | RNIC_QP_ACCESS_FLAGS | RNIC_QP_PKEY_INDEX |
			     RNIC_QP_PORT) == 0, "Reset -> Init");
	at = (struct rnic_qp_attr){ .qp_state = RNIC_QPS_RTR, .path_mtu = RNIC_MTU_1024,
				    .dest_qp_num = rnic_qp_num(b->rc), .rq_psn = 100,
				    .max_dest_rd_atomic = 4, .min_rnr_timer = 1 };
	at.ah_attr.dip = b->ip;
	at.ah_attr.dgid_v4_prefix[10] = at.ah_attr.dgid_v4_prefix[11] = 0xff;
	memcpy(at.ah_attr.dmac, b->mac, 6);
	CHECK(rnic_modify_qp(a->rc, &at, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
			     RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC |
			     RNIC_QP_MIN_RNR_TIMER) == 0, "Init -> RTR");
	at = (struct rnic_qp_attr){ .qp_state = RNIC_QPS_RTS, .sq_psn = 100, .timeout = 14,
				    .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 4 };
	CHECK(rnic_modify_qp(a->rc, &at, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			     RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC) == 0,
	      "RTR -> RTS");
}

static void
ud_up(struct end *e)
{
	struct rnic_qp_attr at = { .qp_state = RNIC_QPS_INIT, .qkey = 0x1234, .port_num = 1 };

	CHECK(rnic_modify_qp(e->ud, &at, RNIC_QP_STATE | RNIC_QP_QKEY | RNIC_QP_PKEY_INDEX |
			     RNIC_QP_PORT) == 0, "UD Init");
	at.qp_state = RNIC_QPS_RTR;
	CHECK(rnic_modify_qp(e->ud, &at, RNIC_QP_STATE) == 0, "UD RTR");
	at.qp_state = RNIC_QPS_RTS;
	at.sq_psn = 1;
	CHECK(rnic_modify_qp(e->ud, &at, RNIC_QP_STATE | RNIC_QP_SQ_PSN) == 0, "UD RTS");
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
	rc_connect(a, b);
	rc_connect(b, a);
	if (ud == RNIC_QPT_UD) {
		ud_up(a);
		ud_up(b);
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
	rnic_dev_destroy(a.dev);
	rnic_dev_destroy(b.dev);
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
	rnic_dev_destroy(a.dev);
	rnic_dev_destroy(b.dev);
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
	       "dev_qps=%u dev_mrs=%u dev_cqs=%u dev_pds=%u dev_ahs=%u violations=%" PRIu64 "\n",
	       st.apps, st.apps_total, st.apps_died, st.qps, st.mrs, st.cqs, st.pds, st.ahs,
	       st.dev_qps, st.dev_mrs, st.dev_cqs, st.dev_pds, st.dev_ahs, st.violations);
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
	fprintf(stderr, "usage: attach_app SOCKET loop N | probe RKEY ADDR | stats\n");
	return 2;
}
