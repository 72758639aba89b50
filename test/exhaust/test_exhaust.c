/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resource exhaustion (issue 8, section 2): two engines, A and B, on an
 * in-process ring pair, both polled by hand from this thread (no lcores, no
 * sleeps: every wait is a bounded number of poll rounds). Each case brings
 * up its own pair of devices with the limits it needs and tears them down.
 *
 *  - mempool empty: A's packet pool is drained (the test holds every mbuf)
 *    while WRs are posted on A's RC and UC QPs and B WRITEs into A. Nothing
 *    is sent, dropped or completed while it is empty (tx_nombuf counts the
 *    stalls, every drop counter stays 0, the WRs stay pending); once the
 *    mbufs return, everything completes in order with the right bytes,
 *    and both pools are back at their full count. A second phase leaves
 *    A only 4 mbufs: the work still completes. Two devices with pools of
 *    16 mbufs carry 16-packet WRITEs both ways at once with no loss timer
 *    (neither may let its unacknowledged requests take every mbuf, or
 *    neither could ACK the other).
 *  - rings full: send and receive queue full (-ENOMEM, bad_wr at the first
 *    WR not posted, the rest complete in order and posting works again);
 *    a doorbell ring of 16 with 40 QPs posting, unpolled (post_send must
 *    not hang, no WR lost); a kick ring of 16 filled by the TX stage while
 *    a QP is moved to Error (its receives and WRs must still be flushed);
 *    the peer's receive ring (64) full while A sends 1 MiB (tx_full
 *    counts it, nothing is lost).
 *  - CQ overflow: a send CQ of 4 entries takes 10 signaled WRITEs and a
 *    receive CQ of 2 takes 4 UC SENDs: the QP goes to Error, one
 *    RNIC_EVENT_CQ_ERR per QP arrives through rnic_get_async_event, the
 *    CQ reports the overflow, cq_overflow counts it; a QP on another CQ of
 *    the same device keeps working (WRITE and READ, bytes checked).
 *    With 1100 QPs overflowing and nobody reading events, the event ring
 *    (1024) keeps 1023 and event_drops counts the rest.
 *  - destroy and reset while a role's work list names the QP: no list
 *    names it afterwards (the resend list once kept a destroyed QP), and
 *    the reset QP works again.
 *  - more QPs than configured: max_qps 5 (not a power of two) allows five
 *    QPs and refuses the sixth with ENOSPC (also with an explicit QPN),
 *    without leaking DPDK heap memory or CQ/PD references; the existing
 *    QPs still carry traffic; destroying one makes room again. The same
 *    for max_mrs and max_cqs.
 *
 * A watchdog (alarm) turns a hang into a failure. Last line:
 * "N passed, M failed"; exit status 1 on any failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rnic_core.h"     /* the roles' work lists, for the destroy case */
#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "test_common.h"

static unsigned int n_pass, n_fail;

#define BUF_SIZE (2u << 20)
#define MAX_POLLS 2000000L

static struct test_side A, B;
static uint16_t port_a, port_b, port_c, port_d;
static const char *cur_case = "";

/* ------------------------------------------------------------------ */
/* Plumbing                                                            */
/* ------------------------------------------------------------------ */

static void
watchdog(int sig)
{
	static const char msg[] = "FAIL watchdog: a case hung (no progress in 120 s)\n";

	RTE_SET_USED(sig);
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static unsigned int
poll_side(struct test_side *s)
{
	unsigned int w = 0;

	if (s->dev == NULL)
		return 0;
	w += rnic_dev_poll_tx(s->dev);
	w += rnic_dev_poll_rx(s->dev);
	w += rnic_dev_poll_timer(s->dev);
	return w;
}

static unsigned int
poll_all(void)
{
	return poll_side(&A) + poll_side(&B);
}

static void
polls(long n)
{
	while (n-- > 0)
		poll_all();
}

/* Poll until @p n completions arrive on @p cq, bounded. */
static int
wait_wc(struct rnic_cq *cq, struct rnic_wc *wc, int n)
{
	return test_wait_wc(cq, wc, n, MAX_POLLS, poll_all);
}

/* Poll until a full round did nothing 64 times in a row. */
static void
settle(void)
{
	int quiet = 0;

	for (long it = 0; it < MAX_POLLS && quiet < 64; it++)
		quiet = poll_all() == 0 && rnic_dev_tx_backlog(A.dev) == 0 &&
			(B.dev == NULL || rnic_dev_tx_backlog(B.dev) == 0) ? quiet + 1 : 0;
}

/* Poll until @p qp is in Error (bounded), then until all is quiet; its
 * state then. */
static enum rnic_qp_state
wait_error(struct rnic_qp *qp)
{
	for (long it = 0; it < MAX_POLLS && test_qp_state(qp) != RNIC_QPS_ERR; it++)
		poll_all();
	settle();
	return test_qp_state(qp);
}

static struct rte_mempool *
pool_of(const struct test_side *s)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	/* The engine's pool is named after its port (lib/verbs/rnic_device.c). */
	snprintf(name, sizeof(name), "rnic_pool%u", s->port);
	return rte_mempool_lookup(name);
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ seed);
}

static int
side_up(struct test_side *s, uint16_t port, uint8_t last, const struct rnic_dev_attr *tmpl)
{
	struct rnic_dev_attr a = { .mbufs = 4096 };

	if (tmpl != NULL)
		a = *tmpl;
	a.port_id = port;
	if (test_side_up(s, &a, last, 8192, BUF_SIZE, 4096) != 0) {
		if (s->dev == NULL)
			printf("  rnic_dev_create on port %u: %s\n", port, rte_strerror(rte_errno));
		return -1;
	}
	rnic_dev_set_polled(s->dev, false);
	return 0;
}

/* Both devices on ports @p pa / @p pb with the given limits (NULL: defaults). */
static int
pair_up(uint16_t pa, uint16_t pb, const struct rnic_dev_attr *ta, const struct rnic_dev_attr *tb)
{
	if (side_up(&A, pa, 1, ta) != 0 || side_up(&B, pb, 2, tb) != 0)
		return -1;
	return 0;
}

static void
drain_port(uint16_t port)
{
	struct rte_mbuf *pkts[32];
	uint16_t n;

	while ((n = rte_eth_rx_burst(port, 0, pkts, RTE_DIM(pkts))) > 0)
		rte_pktmbuf_free_bulk(pkts, n);
}

static void
side_down(struct test_side *s)
{
	if (s->dev != NULL)
		rnic_dev_destroy(s->dev);   /* frees its QPs, MRs, CQs */
	rte_free(s->buf);
	memset(s, 0, sizeof(*s));
}

static void
teardown(void)
{
	/* The rings may still hold the other side's mbufs: empty them while
	 * both pools exist. */
	if (A.dev != NULL && B.dev != NULL)
		settle();
	if (A.dev != NULL)
		drain_port(A.port);
	if (B.dev != NULL)
		drain_port(B.port);
	side_down(&A);
	side_down(&B);
}

#define RUN(call, name) do { \
	cur_case = name; \
	alarm(120); \
	if ((call) == 0) { \
		n_pass++; \
		printf("ok   %s\n", name); \
	} else { \
		n_fail++; \
		printf("  ^ case: %s\n", name); \
	} \
	alarm(0); \
	teardown(); \
} while (0)

static struct rnic_qp *
mkqp_cq(struct test_side *s, enum rnic_qp_type t, struct rnic_cq *scq, struct rnic_cq *rcq,
	uint32_t sq, uint32_t rq)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = t,
		.cap = { .max_send_wr = sq, .max_recv_wr = rq, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
	};
	return rnic_create_qp(s->pd, &ia);
}

static struct rnic_qp *
mkqp(struct test_side *s, enum rnic_qp_type t)
{
	return mkqp_cq(s, t, s->cq, s->cq, 256, 256);
}

/* RESET -> RTS towards @p pqp on @p peer; timeout 0 = no loss timer. */
static int
qp_connect(struct rnic_qp *qp, struct test_side *peer, struct rnic_qp *pqp, uint8_t timeout)
{
	return test_qp_connect(qp, peer, pqp, RNIC_MTU_1024, 0xfffff0, 0xfffff0, timeout, 7);
}

/* A connected pair qa (on A) <-> qb (on B). */
static int
pair_qps(enum rnic_qp_type t, struct rnic_qp **qa, struct rnic_qp **qb, uint8_t timeout)
{
	*qa = mkqp(&A, t);
	*qb = mkqp(&B, t);
	if (*qa == NULL || *qb == NULL)
		return -1;
	if (qp_connect(*qa, &B, *qb, timeout) != 0 || qp_connect(*qb, &A, *qa, timeout) != 0)
		return -1;
	return 0;
}

static int
post_op(struct rnic_qp *qp, enum rnic_wr_opcode op, uint64_t id, uint64_t laddr, uint32_t len,
	uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct rnic_sge sge = { laddr, len, lkey };
	struct rnic_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = RNIC_SEND_SIGNALED,
	};
	struct rnic_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return rnic_post_send(qp, &wr, &bad);
}

static int
post_rcv(struct rnic_qp *qp, uint64_t id, uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct rnic_sge sge = { addr, len, lkey };
	struct rnic_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct rnic_recv_wr *bad;

	return rnic_post_recv(qp, &wr, &bad);
}

static uint64_t
drops(const struct rnic_dev_stats *s)
{
	uint64_t d = s->drop_not_roce + s->drop_malformed + s->drop_icrc + s->drop_no_qp +
		     s->drop_qp_state + s->drop_pkey + s->drop_qkey + s->drop_opcode +
		     s->drop_psn_invalid + s->drop_ghost_resp + s->drop_bad_resp +
		     s->drop_uc_gap + s->drop_wrong_dst;

	for (unsigned int i = 0; i < RTE_DIM(s->drop_reason); i++)
		d += s->drop_reason[i];
	return d;
}

static void
print_drops(const char *who, const struct rnic_dev_stats *s)
{
	printf("  %s: not_roce=%" PRIu64 " malformed=%" PRIu64 " icrc=%" PRIu64
	       " no_qp=%" PRIu64 " qp_state=%" PRIu64 " psn=%" PRIu64 " ghost=%" PRIu64
	       " bad_resp=%" PRIu64 " uc_gap=%" PRIu64 " retransmits=%" PRIu64 "\n", who,
	       s->drop_not_roce, s->drop_malformed, s->drop_icrc, s->drop_no_qp,
	       s->drop_qp_state, s->drop_psn_invalid, s->drop_ghost_resp, s->drop_bad_resp,
	       s->drop_uc_gap, s->tx_retransmits);
}

/* Every mbuf of @p s's pool is back (in the pool or its caches). */
static int
pool_full(const struct test_side *s, unsigned int held)
{
	struct rte_mempool *mp = pool_of(s);

	VERIFY(mp != NULL, "no pool for port %u", s->port);
	VERIFY(rte_mempool_avail_count(mp) + held == s->mbufs,
	       "port %u: %u mbufs available + %u held by the test, the pool has %u: %d leaked",
	       s->port, rte_mempool_avail_count(mp), held, s->mbufs,
	       (int)s->mbufs - (int)(rte_mempool_avail_count(mp) + held));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Mempool empty                                                       */
/* ------------------------------------------------------------------ */

#define N_WRITES 8
#define WRITE_LEN 3000           /* 3 packets at PMTU 1024 */
#define READ_LEN 2000
#define N_SENDS 2
#define N_UC 4
#define N_BW 4                   /* B -> A WRITEs */
#define BW_LEN 2048

/* Offsets into the buffers. */
#define OFF_W   0x00000          /* A's WRITE sources / B's targets */
#define OFF_RD  0x40000          /* READ: B's source, A's target */
#define OFF_S   0x50000          /* SEND sources (A) / receive buffers (B) */
#define OFF_BW  0x80000          /* B -> A WRITE sources (B) / targets (A) */

struct mp_work {
	struct rnic_qp *rc_a, *rc_b, *uc_a, *uc_b, *rev_a, *rev_b;
};

static int
mp_post(struct mp_work *w)
{
	uint32_t la = rnic_mr_lkey(A.mr), lb = rnic_mr_lkey(B.mr);
	uint32_t ra = rnic_mr_rkey(A.mr), rb = rnic_mr_rkey(B.mr);
	uint64_t a = (uintptr_t)A.buf, b = (uintptr_t)B.buf;

	fill(A.buf + OFF_W, N_WRITES * WRITE_LEN, 1);
	fill(B.buf + OFF_RD, READ_LEN, 2);
	fill(A.buf + OFF_S, 8192, 3);
	fill(B.buf + OFF_BW, N_BW * BW_LEN, 4);
	memset(B.buf + OFF_W, 0xee, N_WRITES * WRITE_LEN);
	memset(A.buf + OFF_RD, 0xee, READ_LEN + 64);
	memset(B.buf + OFF_S, 0xee, 16384);
	memset(A.buf + OFF_BW, 0xee, N_BW * BW_LEN);
	/* B's receives: N_SENDS on the RC QP, N_UC on the UC QP. */
	for (int i = 0; i < N_SENDS; i++)
		VERIFY(post_rcv(w->rc_b, 100 + i, b + OFF_S + 1024u * i, 1024, lb) == 0, "recv");
	for (int i = 0; i < N_UC; i++)
		VERIFY(post_rcv(w->uc_b, 200 + i, b + OFF_S + 4096 + 1024u * i, 1024, lb) == 0,
		       "recv");
	/* A: WRITEs, a READ, SENDs on RC; SENDs on UC. */
	for (int i = 0; i < N_WRITES; i++)
		VERIFY(post_op(w->rc_a, RNIC_WR_RDMA_WRITE, i, a + OFF_W + WRITE_LEN * i, WRITE_LEN,
			       la, b + OFF_W + WRITE_LEN * i, rb) == 0, "post WRITE %d", i);
	VERIFY(post_op(w->rc_a, RNIC_WR_RDMA_READ, N_WRITES, a + OFF_RD, READ_LEN, la,
		       b + OFF_RD, rb) == 0, "post READ");
	for (int i = 0; i < N_SENDS; i++)
		VERIFY(post_op(w->rc_a, RNIC_WR_SEND, N_WRITES + 1 + i, a + OFF_S + 512u * i, 512,
			       la, 0, 0) == 0, "post SEND");
	for (int i = 0; i < N_UC; i++)
		VERIFY(post_op(w->uc_a, RNIC_WR_SEND, 300 + i, a + OFF_S + 2048 + 256u * i, 256,
			       la, 0, 0) == 0, "post UC SEND");
	/* B WRITEs into A: A's responder needs mbufs for the ACKs. */
	for (int i = 0; i < N_BW; i++)
		VERIFY(post_op(w->rev_b, RNIC_WR_RDMA_WRITE, 400 + i, b + OFF_BW + BW_LEN * i, BW_LEN,
			       lb, a + OFF_BW + BW_LEN * i, ra) == 0, "post B WRITE");
	return 0;
}

/* Wait for every completion of mp_post and check it and the bytes. */
static int
mp_finish(struct mp_work *w)
{
	const int na = N_WRITES + 1 + N_SENDS + N_UC, nb = N_SENDS + N_UC + N_BW;
	struct rnic_wc wa[32], wb[32];
	int rc_seen = 0, uc_seen = 0, got;

	got = wait_wc(A.cq, wa, na);
	VERIFY(got == na, "A: %d completions, want %d", got, na);
	got = wait_wc(B.cq, wb, nb);
	VERIFY(got == nb, "B: %d completions, want %d", got, nb);
	for (int i = 0; i < na; i++) {
		VERIFY(wa[i].status == RNIC_WC_SUCCESS, "A wc %d (wr_id %" PRIu64 "): %s", i,
		       wa[i].wr_id, rnic_wc_status_str(wa[i].status));
		if (wa[i].qp_num == rnic_qp_num(w->rc_a)) {
			VERIFY(wa[i].wr_id == (uint64_t)rc_seen, "RC completion out of order: "
			       "wr_id %" PRIu64 ", want %d", wa[i].wr_id, rc_seen);
			rc_seen++;
		} else {
			VERIFY(wa[i].qp_num == rnic_qp_num(w->uc_a) &&
			       wa[i].wr_id == 300u + uc_seen, "UC completion wr_id %" PRIu64,
			       wa[i].wr_id);
			uc_seen++;
		}
	}
	for (int i = 0; i < nb; i++)
		VERIFY(wb[i].status == RNIC_WC_SUCCESS, "B wc %d (wr_id %" PRIu64 "): %s", i,
		       wb[i].wr_id, rnic_wc_status_str(wb[i].status));
	VERIFY(memcmp(A.buf + OFF_W, B.buf + OFF_W, N_WRITES * WRITE_LEN) == 0, "WRITE bytes");
	VERIFY(memcmp(A.buf + OFF_RD, B.buf + OFF_RD, READ_LEN) == 0, "READ bytes");
	VERIFY(A.buf[OFF_RD + READ_LEN] == 0xee, "READ wrote past its SGE");
	for (int i = 0; i < N_SENDS; i++)
		VERIFY(memcmp(B.buf + OFF_S + 1024u * i, A.buf + OFF_S + 512u * i, 512) == 0,
		       "SEND %d bytes", i);
	for (int i = 0; i < N_UC; i++)
		VERIFY(memcmp(B.buf + OFF_S + 4096 + 1024u * i, A.buf + OFF_S + 2048 + 256u * i,
			      256) == 0, "UC SEND %d bytes", i);
	VERIFY(memcmp(A.buf + OFF_BW, B.buf + OFF_BW, N_BW * BW_LEN) == 0, "B->A WRITE bytes");
	return 0;
}

static int
mp_qps(struct mp_work *w)
{
	/* Loss timers off: a packet lost for want of an mbuf would hang the
	 * case instead of being hidden by a retransmission. */
	VERIFY(pair_qps(RNIC_QPT_RC, &w->rc_a, &w->rc_b, 0) == 0, "RC pair");
	VERIFY(pair_qps(RNIC_QPT_UC, &w->uc_a, &w->uc_b, 0) == 0, "UC pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &w->rev_a, &w->rev_b, 0) == 0, "reverse RC pair");
	return 0;
}

static int
test_mempool_empty(void)
{
	struct rnic_dev_attr ta = { .mbufs = 1024 };
	struct rte_mbuf **held;
	struct rnic_dev_stats sa, sb, sa0;
	struct rte_mempool *mp;
	struct mp_work w;
	struct rnic_wc wc;
	unsigned int n_held = 0;
	uint8_t before[N_BW * BW_LEN];

	VERIFY(pair_up(port_a, port_b, &ta, NULL) == 0, "devices");
	VERIFY(mp_qps(&w) == 0, "QPs");
	mp = pool_of(&A);
	VERIFY(mp != NULL, "A's pool");
	held = calloc(A.mbufs, sizeof(*held));
	VERIFY(held != NULL, "calloc");

	/* Phase 1: A's pool empty. */
	while (n_held < A.mbufs && (held[n_held] = rte_pktmbuf_alloc(mp)) != NULL)
		n_held++;
	VERIFY(rte_mempool_avail_count(mp) == 0, "%u mbufs left", rte_mempool_avail_count(mp));
	rnic_dev_stats_get(A.dev, &sa0);
	VERIFY(mp_post(&w) == 0, "post");
	memcpy(before, A.buf + OFF_BW, sizeof(before));
	polls(5000);
	rnic_dev_stats_get(A.dev, &sa);
	rnic_dev_stats_get(B.dev, &sb);
	VERIFY(sa.tx_pkts == sa0.tx_pkts, "A sent %" PRIu64 " packets with an empty pool",
	       sa.tx_pkts - sa0.tx_pkts);
	VERIFY(sa.tx_nombuf > sa0.tx_nombuf, "tx_nombuf did not count the stalls");
	VERIFY(rnic_poll_cq(A.cq, 1, &wc) == 0, "A completed wr_id %" PRIu64 " (%s) with an "
	       "empty pool", wc.wr_id, rnic_wc_status_str(wc.status));
	VERIFY(rnic_qp_sq_pending(w.rc_a) == N_WRITES + 1 + N_SENDS, "RC pending %d",
	       rnic_qp_sq_pending(w.rc_a));
	VERIFY(rnic_qp_sq_pending(w.uc_a) == N_UC, "UC pending %d", rnic_qp_sq_pending(w.uc_a));
	/* B's WRITEs reached A's memory (receiving needs no mbuf of A's);
	 * only the ACKs wait. */
	VERIFY(sb.tx_pkts > 0 && sa.rx_pkts > 0, "B sent %" PRIu64 ", A received %" PRIu64,
	       sb.tx_pkts, sa.rx_pkts);
	VERIFY(memcmp(A.buf + OFF_BW, B.buf + OFF_BW, sizeof(before)) == 0,
	       "B's WRITEs did not land in A while A's pool was empty");
	VERIFY(rnic_poll_cq(B.cq, 1, &wc) == 0, "B completed wr_id %" PRIu64 " (%s) without "
	       "an ACK", wc.wr_id, rnic_wc_status_str(wc.status));
	VERIFY(drops(&sa) == 0 && drops(&sb) == 0, "drops while the pool was empty");
	VERIFY(test_qp_state(w.rc_a) == RNIC_QPS_RTS && test_qp_state(w.uc_a) == RNIC_QPS_RTS &&
	       test_qp_state(w.rev_a) == RNIC_QPS_RTS, "a QP left RTS");

	/* The mbufs come back: everything completes. */
	rte_pktmbuf_free_bulk(held, n_held);
	n_held = 0;
	VERIFY(mp_finish(&w) == 0, "after the refill");
	settle();
	rnic_dev_stats_get(A.dev, &sa);
	rnic_dev_stats_get(B.dev, &sb);
	if (drops(&sa) || drops(&sb) || sa.tx_retransmits || sb.tx_retransmits) {
		print_drops("A", &sa);
		print_drops("B", &sb);
		VERIFY(0, "drops or retransmissions");
	}
	VERIFY(pool_full(&A, 0) == 0 && pool_full(&B, 0) == 0, "leak after phase 1");

	/* Phase 2: A keeps only 4 mbufs. */
	while (rte_mempool_avail_count(mp) > 4 &&
	       (held[n_held] = rte_pktmbuf_alloc(mp)) != NULL)
		n_held++;
	VERIFY(rte_mempool_avail_count(mp) == 4, "%u left", rte_mempool_avail_count(mp));
	VERIFY(mp_post(&w) == 0, "post");
	VERIFY(mp_finish(&w) == 0, "with 4 mbufs");
	settle();
	VERIFY(pool_full(&A, n_held) == 0, "leak in phase 2");
	rte_pktmbuf_free_bulk(held, n_held);
	free(held);
	rnic_dev_stats_get(A.dev, &sa);
	rnic_dev_stats_get(B.dev, &sb);
	VERIFY(drops(&sa) == 0 && drops(&sb) == 0, "drops in phase 2");
	VERIFY(pool_full(&A, 0) == 0 && pool_full(&B, 0) == 0, "leak at the end");
	return 0;
}

/* A tiny pool on both sides, traffic both ways at once. */
static int
test_tiny_pools(void)
{
	struct rnic_dev_attr t = { .mbufs = 16 };
	struct rnic_qp *qa, *qb, *ra, *rb;
	struct rnic_wc wc[64];
	const int n = 16;
	const uint32_t len = 16384;   /* 16 packets each */
	int got;

	VERIFY(pair_up(port_a, port_b, &t, &t) == 0, "devices with 16 mbufs");
	VERIFY(pair_qps(RNIC_QPT_RC, &qa, &qb, 0) == 0, "A->B pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &ra, &rb, 0) == 0, "B->A pair");
	RTE_SET_USED(ra);
	RTE_SET_USED(qb);
	fill(A.buf, (size_t)n * len, 5);
	fill(B.buf + BUF_SIZE / 2, (size_t)n * len, 6);
	for (int i = 0; i < n; i++) {
		VERIFY(post_op(qa, RNIC_WR_RDMA_WRITE, i, (uintptr_t)A.buf + (size_t)i * len, len,
			       rnic_mr_lkey(A.mr), (uintptr_t)B.buf + (size_t)i * len,
			       rnic_mr_rkey(B.mr)) == 0, "post A");
		VERIFY(post_op(rb, RNIC_WR_RDMA_WRITE, i,
			       (uintptr_t)B.buf + BUF_SIZE / 2 + (size_t)i * len, len,
			       rnic_mr_lkey(B.mr), (uintptr_t)A.buf + BUF_SIZE / 2 + (size_t)i * len,
			       rnic_mr_rkey(A.mr)) == 0, "post B");
	}
	got = wait_wc(A.cq, wc, n);
	VERIFY(got == n, "A: %d of %d WRITEs completed (both pools held by unacknowledged "
	       "packets?)", got, n);
	for (int i = 0; i < n; i++)
		VERIFY(wc[i].status == RNIC_WC_SUCCESS && wc[i].wr_id == (uint64_t)i, "A wc %d: wr_id %" PRIu64 " %s", i, wc[i].wr_id, rnic_wc_status_str(wc[i].status));
	got = wait_wc(B.cq, wc, n);
	VERIFY(got == n, "B: %d of %d WRITEs completed", got, n);
	for (int i = 0; i < n; i++)
		VERIFY(wc[i].status == RNIC_WC_SUCCESS && wc[i].wr_id == (uint64_t)i, "B wc %d", i);
	VERIFY(memcmp(A.buf, B.buf, (size_t)n * len) == 0, "A->B bytes");
	VERIFY(memcmp(A.buf + BUF_SIZE / 2, B.buf + BUF_SIZE / 2, (size_t)n * len) == 0,
	       "B->A bytes");
	settle();
	VERIFY(pool_full(&A, 0) == 0 && pool_full(&B, 0) == 0, "leak");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rings full                                                          */
/* ------------------------------------------------------------------ */

/* Send and receive queues full: -ENOMEM, nothing corrupted. */
static int
test_queues_full(void)
{
	struct rnic_qp *qa = NULL, *qb = NULL;
	struct rnic_qp_init_attr ia = { .qp_type = RNIC_QPT_RC,
					.cap = { .max_send_wr = 4, .max_recv_wr = 4,
						 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rnic_sge ss[6], rs[6];
	struct rnic_send_wr sw[6], *sbad;
	struct rnic_recv_wr rw[6], *rbad;
	struct rnic_wc wc[8];
	uint32_t la, lb;

	VERIFY(pair_up(port_a, port_b, NULL, NULL) == 0, "devices");
	la = rnic_mr_lkey(A.mr);
	lb = rnic_mr_lkey(B.mr);
	ia.send_cq = ia.recv_cq = A.cq;
	qa = rnic_create_qp(A.pd, &ia);
	ia.send_cq = ia.recv_cq = B.cq;
	qb = rnic_create_qp(B.pd, &ia);
	VERIFY(qa && qb && qp_connect(qa, &B, qb, 14) == 0 && qp_connect(qb, &A, qa, 14) == 0,
	       "QPs");
	fill(A.buf, 6 * 256, 7);
	memset(sw, 0, sizeof(sw));
	memset(rw, 0, sizeof(rw));
	for (int i = 0; i < 6; i++) {
		rs[i] = (struct rnic_sge){ (uintptr_t)B.buf + 1024u * i, 512, lb };
		rw[i] = (struct rnic_recv_wr){ .wr_id = 50 + i, .sg_list = &rs[i], .num_sge = 1,
					       .next = i < 5 ? &rw[i + 1] : NULL };
		ss[i] = (struct rnic_sge){ (uintptr_t)A.buf + 256u * i, 256, la };
		sw[i] = (struct rnic_send_wr){ .wr_id = i, .sg_list = &ss[i], .num_sge = 1,
					       .opcode = RNIC_WR_SEND,
					       .send_flags = RNIC_SEND_SIGNALED,
					       .next = i < 5 ? &sw[i + 1] : NULL };
	}
	VERIFY(rnic_post_recv(qb, rw, &rbad) == -ENOMEM && rbad == &rw[4],
	       "receive queue full: bad_wr %p, want %p", (void *)rbad, (void *)&rw[4]);
	VERIFY(rnic_post_recv(qb, &rw[4], &rbad) == -ENOMEM && rbad == &rw[4], "still full");
	VERIFY(rnic_post_send(qa, sw, &sbad) == -ENOMEM && sbad == &sw[4],
	       "send queue full: bad_wr %p, want %p", (void *)sbad, (void *)&sw[4]);
	VERIFY(rnic_post_send(qa, &sw[4], &sbad) == -ENOMEM && sbad == &sw[4], "still full");
	/* The four that fit complete in order, into the four receives. */
	VERIFY(wait_wc(A.cq, wc, 4) == 4, "send completions");
	for (int i = 0; i < 4; i++)
		VERIFY(wc[i].status == RNIC_WC_SUCCESS && wc[i].wr_id == (uint64_t)i, "send wc %d: "
		       "wr_id %" PRIu64 " %s", i, wc[i].wr_id, rnic_wc_status_str(wc[i].status));
	VERIFY(wait_wc(B.cq, wc, 4) == 4, "receive completions");
	for (int i = 0; i < 4; i++)
		VERIFY(wc[i].status == RNIC_WC_SUCCESS && wc[i].wr_id == 50u + i &&
		       wc[i].byte_len == 256 &&
		       memcmp(B.buf + 1024u * i, A.buf + 256u * i, 256) == 0, "receive %d", i);
	/* Room again: the rest goes through. */
	VERIFY(rnic_post_recv(qb, &rw[4], &rbad) == 0, "post_recv after the queue drained");
	VERIFY(rnic_post_send(qa, &sw[4], &sbad) == 0, "post_send after the queue drained");
	VERIFY(wait_wc(A.cq, wc, 2) == 2 && wc[0].wr_id == 4 && wc[1].wr_id == 5 &&
	       wc[0].status == RNIC_WC_SUCCESS && wc[1].status == RNIC_WC_SUCCESS, "the rest");
	VERIFY(wait_wc(B.cq, wc, 2) == 2 && wc[0].wr_id == 54 && wc[1].wr_id == 55, "receives");
	VERIFY(test_qp_state(qa) == RNIC_QPS_RTS && test_qp_state(qb) == RNIC_QPS_RTS, "states");
	return 0;
}

/* A doorbell ring of 16 entries, 40 QPs posting with nobody polling. */
static int
test_doorbell_ring_full(void)
{
	struct rnic_dev_attr ta = { .mbufs = 4096, .ring_size = 16 };
	enum { NQ = 40 };
	struct rnic_qp *qa[NQ], *qb[NQ];
	struct rnic_wc wc[NQ];
	int got;

	VERIFY(pair_up(port_a, port_b, &ta, NULL) == 0, "devices");
	for (int i = 0; i < NQ; i++)
		VERIFY(pair_qps(i % 2 ? RNIC_QPT_UC : RNIC_QPT_RC, &qa[i], &qb[i], 14) == 0,
		       "pair %d", i);
	fill(A.buf, NQ * 1024, 8);
	memset(B.buf, 0xee, NQ * 1024);
	/* One post_send per QP, one doorbell each: more than the ring holds.
	 * Nothing polls the engine in between: post_send must neither hang
	 * nor drop a doorbell. */
	for (int i = 0; i < NQ; i++)
		VERIFY(post_op(qa[i], RNIC_WR_RDMA_WRITE, i, (uintptr_t)A.buf + 1024u * i, 1000,
			       rnic_mr_lkey(A.mr), (uintptr_t)B.buf + 1024u * i,
			       rnic_mr_rkey(B.mr)) == 0, "post %d", i);
	got = wait_wc(A.cq, wc, NQ);
	VERIFY(got == NQ, "%d of %d WRITEs completed", got, NQ);
	for (int i = 0; i < NQ; i++)
		VERIFY(wc[i].status == RNIC_WC_SUCCESS, "wc %d: %s", i,
		       rnic_wc_status_str(wc[i].status));
	for (int i = 0; i < NQ; i++)
		VERIFY(memcmp(A.buf + 1024u * i, B.buf + 1024u * i, 1000) == 0, "bytes of QP %d", i);
	/* A second round: the ring is reused. */
	for (int i = 0; i < NQ; i++)
		VERIFY(post_op(qa[i], RNIC_WR_RDMA_WRITE, 100 + i, (uintptr_t)A.buf, 8,
			       rnic_mr_lkey(A.mr), (uintptr_t)B.buf + 1024u * i,
			       rnic_mr_rkey(B.mr)) == 0, "post %d", i);
	got = wait_wc(A.cq, wc, NQ);
	VERIFY(got == NQ, "second round: %d of %d", got, NQ);
	return 0;
}

/* The TX -> RX kick ring full while a QP is moved to Error. */
static int
test_kick_ring_full(void)
{
	struct rnic_dev_attr ta = { .mbufs = 4096, .ring_size = 16 };
	enum { NQ = 24 };
	struct rnic_qp *qa[NQ], *qb[NQ], *ea, *eb;
	struct rnic_qp_attr at = { .qp_state = RNIC_QPS_ERR };
	struct rnic_wc wc[NQ + 8];
	struct rnic_dev_stats st;
	int got, flushed = 0, ok = 0;

	VERIFY(pair_up(port_a, port_b, &ta, NULL) == 0, "devices");
	for (int i = 0; i < NQ; i++)
		VERIFY(pair_qps(RNIC_QPT_RC, &qa[i], &qb[i], 14) == 0, "pair %d", i);
	VERIFY(pair_qps(RNIC_QPT_RC, &ea, &eb, 14) == 0, "victim pair");
	for (int i = 0; i < 4; i++)
		VERIFY(post_rcv(ea, 900 + i, (uintptr_t)A.buf + 0x10000 + 512u * i, 512,
				rnic_mr_lkey(A.mr)) == 0, "recv");
	/* The first packet of each QP asks RX (kick) to arm its loss timer:
	 * with only A's TX polled, 24 kicks meet a ring of 15. */
	for (int i = 0; i < NQ; i++)
		VERIFY(post_op(qa[i], RNIC_WR_RDMA_WRITE, i, (uintptr_t)A.buf, 64,
			       rnic_mr_lkey(A.mr), (uintptr_t)B.buf + 64u * i,
			       rnic_mr_rkey(B.mr)) == 0, "post %d", i);
	for (int k = 0; k < 8; k++)
		rnic_dev_poll_tx(A.dev);
	/* Now the victim goes to Error: its kick finds the ring full. */
	VERIFY(rnic_modify_qp(ea, &at, RNIC_QP_STATE) == 0, "to Error");
	VERIFY(post_op(ea, RNIC_WR_RDMA_WRITE, 999, (uintptr_t)A.buf, 8, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf, rnic_mr_rkey(B.mr)) == 0, "post in Error");
	for (int k = 0; k < 8; k++)
		rnic_dev_poll_tx(A.dev);
	got = wait_wc(A.cq, wc, NQ + 5);
	for (int i = 0; i < got; i++) {
		if (wc[i].qp_num == rnic_qp_num(ea)) {
			VERIFY(wc[i].status == RNIC_WC_WR_FLUSH_ERR, "victim wc %s",
			       rnic_wc_status_str(wc[i].status));
			flushed++;
		} else {
			VERIFY(wc[i].status == RNIC_WC_SUCCESS, "wc %d: %s", i,
			       rnic_wc_status_str(wc[i].status));
			ok++;
		}
	}
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(ok == NQ, "%d of %d WRITEs completed", ok, NQ);
	VERIFY(flushed == 5, "the victim flushed %d of its 4 receives and 1 WR", flushed);
	VERIFY(rnic_poll_cq(A.cq, 1, wc) == 0, "extra completion");
	VERIFY(st.kick_overflows > 0, "kick_overflows %" PRIu64, st.kick_overflows);
	return 0;
}

/* The peer's receive ring (64 frames) full: tx_full counts, nothing lost. */
static int
test_link_ring_full(void)
{
	struct rnic_qp *qa, *qb;
	struct rnic_wc wc;
	struct rnic_dev_stats st;
	const uint32_t len = 1u << 20;
	struct test_side saved;

	VERIFY(pair_up(port_c, port_d, NULL, NULL) == 0, "devices on the small ring pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &qa, &qb, 0) == 0, "pair");
	fill(A.buf, len, 9);
	memset(B.buf, 0xee, len);
	VERIFY(post_op(qa, RNIC_WR_RDMA_WRITE, 1, (uintptr_t)A.buf, len, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf, rnic_mr_rkey(B.mr)) == 0, "post");
	/* Only A runs: its frames pile up in front of B. */
	saved = B;
	B.dev = NULL;
	polls(2000);
	B = saved;
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(st.tx_full > 0, "tx_full %" PRIu64, st.tx_full);
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "completion");
	VERIFY(memcmp(A.buf, B.buf, len) == 0, "bytes");
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(drops(&st) == 0 && st.tx_retransmits == 0, "drops or retransmissions");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Destroy and reset while a role's work list names the QP (issue 14)  */
/* ------------------------------------------------------------------ */

/* True when a work list of the device's roles names @p qp (the pointer
 * is only compared, never followed: the QP may be freed). */
static bool
on_a_list(const struct rnic_device *dev, const void *qp)
{
	const struct rnic_qp_list *l[] = { &dev->workers[0].tx.active, &dev->workers[0].rx.rd_active, &dev->workers[0].rx.acks,
					   &dev->workers[0].rx.rexmit };

	for (unsigned int k = 0; k < RTE_DIM(l); k++)
		for (uint32_t i = 0; i < l[k]->n; i++)
			if ((const void *)l[k]->q[i] == qp)
				return true;
	return false;
}

/* Run A alone (B is not polled) until @p cond or the bound. */
#define RUN_A_POLLS 200000L
#define RUN_A_UNTIL(cond) do { \
	struct test_side saved_ = B; \
	B.dev = NULL; \
	for (long it_ = 0; it_ < RUN_A_POLLS && !(cond); it_++) \
		poll_all(); \
	B = saved_; \
} while (0)

/*
 * Two RC QPs on A write ~600 packets into a link B does not read: the
 * link (64) and A's request buffer (512) fill, the loss timer (1 ms)
 * fires, and go-back-N cannot push both QPs' resends into the response
 * buffer (512) at once, so the second stays on the RX role's resend
 * list. Destroying it then must take it off every list: the resend list
 * once named it after destroy, and the next pass followed a freed QP.
 * Resetting the first while it is on lists must keep them consistent:
 * reconnected, it carries traffic again.
 */
static int
test_destroy_on_work_list(void)
{
	struct rnic_qp_attr reset = { .qp_state = RNIC_QPS_RESET };
	struct rnic_qp *q1, *q2, *b1, *b2;
	struct rnic_dev_stats st;
	struct rnic_wc wc;
	const uint32_t len = 300u << 10;
	void *gone;

	VERIFY(pair_up(port_c, port_d, NULL, NULL) == 0, "devices on the small ring pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &q1, &b1, 8) == 0 && pair_qps(RNIC_QPT_RC, &q2, &b2, 8) == 0,
	       "pairs");
	VERIFY(post_op(q1, RNIC_WR_RDMA_WRITE, 1, (uintptr_t)A.buf, len, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf, rnic_mr_rkey(B.mr)) == 0, "post q1");
	VERIFY(post_op(q2, RNIC_WR_RDMA_WRITE, 2, (uintptr_t)A.buf + len, len, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf + len, rnic_mr_rkey(B.mr)) == 0, "post q2");
	RUN_A_UNTIL(A.dev->workers[0].rx.rexmit.n > 0 && on_a_list(A.dev, q2));
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(st.timer_expired > 0 && on_a_list(A.dev, q2),
	       "q2 on the resend list after a timeout (%" PRIu64 " expiries, %u on the list)",
	       st.timer_expired, A.dev->workers[0].rx.rexmit.n);
	gone = q2;
	VERIFY(rnic_destroy_qp(q2) == 0, "destroy q2");
	VERIFY(!on_a_list(A.dev, gone), "a role's list still names the destroyed QP");
	RUN_A_UNTIL(false);   /* under ASan/valgrind a pass following it would report */
	VERIFY(!on_a_list(A.dev, gone), "the destroyed QP came back on a list");

	/* q1: Reset while on lists, reconnect, write again. */
	VERIFY(on_a_list(A.dev, q1) || A.dev->workers[0].tx.active.n == 0, "q1 on a list");
	VERIFY(rnic_modify_qp(q1, &reset, RNIC_QP_STATE) == 0 &&
	       rnic_modify_qp(b1, &reset, RNIC_QP_STATE) == 0, "reset the q1 pair");
	VERIFY(!on_a_list(A.dev, q1), "q1 still on a list after Reset");
	/* q1's first WRITE may have ended before the Reset (retry exceeded:
	 * B was not polled), nothing else. */
	while (rnic_poll_cq(A.cq, 1, &wc) == 1)
		VERIFY(wc.wr_id == 1, "before the Reset: wr %" PRIu64 " %s", wc.wr_id,
		       rnic_wc_status_str(wc.status));	/* New PSNs, as after any reconnect: the old life's packets still in
	 * the link must not pass for the new one's. */
	VERIFY(test_qp_connect(q1, &B, b1, RNIC_MTU_1024, 0x1000, 0x1000, 8, 7) == 0 &&
	       test_qp_connect(b1, &A, q1, RNIC_MTU_1024, 0x1000, 0x1000, 8, 7) == 0, "reconnect");
	fill(A.buf, 4096, 21);
	VERIFY(post_op(q1, RNIC_WR_RDMA_WRITE, 3, (uintptr_t)A.buf, 4096, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf + (1u << 20), rnic_mr_rkey(B.mr)) == 0, "post after reset");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.wr_id == 3 && wc.status == RNIC_WC_SUCCESS,
	       "the reset QP's WRITE: wr_id %" PRIu64 " qp %u %s", wc.wr_id, wc.qp_num,
	       rnic_wc_status_str(wc.status));
	VERIFY(memcmp(A.buf, B.buf + (1u << 20), 4096) == 0, "bytes");
	return 0;
}

/* The lcore poller of the destroy case: every role of A, until told. */
static volatile int poller_run;

static int
poller(void *arg)
{
	struct rnic_device *dev = arg;

	while (poller_run)
		rnic_dev_poll(dev, RNIC_ROLE_ALL);
	return 0;
}

/*
 * The same with an lcore polling A: destroy and Reset now wait for two
 * passes of every role (rnic_dev_quiesce) instead of editing the lists,
 * and each pass drops a QP in Reset. The QPs are destroyed while the
 * lcore runs; afterwards no list names them (a pass that followed one
 * would show under ASan or valgrind).
 */
static int
test_destroy_polled(void)
{
	unsigned int lcore = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	struct rnic_qp *q1, *q2, *b1, *b2;
	struct rnic_dev_stats st;
	const uint32_t len = 300u << 10;
	void *g1, *g2;

	if (lcore >= RTE_MAX_LCORE) {
		printf("  (one lcore: nothing to run the poller on)\n");
		return 0;
	}
	VERIFY(pair_up(port_c, port_d, NULL, NULL) == 0, "devices on the small ring pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &q1, &b1, 8) == 0 && pair_qps(RNIC_QPT_RC, &q2, &b2, 8) == 0,
	       "pairs");
	VERIFY(post_op(q1, RNIC_WR_RDMA_WRITE, 1, (uintptr_t)A.buf, len, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf, rnic_mr_rkey(B.mr)) == 0 &&
	       post_op(q2, RNIC_WR_RDMA_WRITE, 2, (uintptr_t)A.buf + len, len, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf + len, rnic_mr_rkey(B.mr)) == 0, "posts");
	poller_run = 1;
	rnic_dev_set_polled(A.dev, true);
	VERIFY(rte_eal_remote_launch(poller, A.dev, lcore) == 0, "launch the poller");
	/* B is not polled: wait (up to 10 s) for A's first loss timeout
	 * (its resends). */
	{
		const uint64_t end = rte_get_timer_cycles() + 10 * rte_get_timer_hz();

		do
			rnic_dev_stats_get(A.dev, &st);
		while (st.timer_expired == 0 && rte_get_timer_cycles() < end);
	}
	if (st.timer_expired == 0) {
		poller_run = 0;
		rte_eal_wait_lcore(lcore);
		VERIFY(0, "no loss timeout on A within 10 s");
	}
	g1 = q1;
	g2 = q2;
	VERIFY(rnic_destroy_qp(q2) == 0 && rnic_destroy_qp(q1) == 0, "destroy while polled");
	poller_run = 0;
	rte_eal_wait_lcore(lcore);
	rnic_dev_set_polled(A.dev, false);
	VERIFY(!on_a_list(A.dev, g1) && !on_a_list(A.dev, g2), "a list still names one");
	VERIFY(A.dev->graveyard == NULL, "a QP was parked: the lcore did not quiesce");
	return 0;
}

/* ------------------------------------------------------------------ */
/* CQ overflow                                                         */
/* ------------------------------------------------------------------ */

static int
count_events(uint32_t qpn, enum rnic_event_type type, int *other)
{
	struct rnic_async_event ev;
	int n = 0;

	*other = 0;
	while (rnic_get_async_event(A.dev, &ev) == 1) {
		if (ev.qp_num == qpn && ev.type == type)
			n++;
		else
			(*other)++;
	}
	return n;
}

static int
test_cq_overflow(void)
{
	struct rnic_cq *small_a, *rsmall_a, *ssmall_a;
	struct rnic_qp *qa, *qb, *ga, *gb, *ua, *ub, *uc, *ucb;
	struct rnic_wc wc[16];
	struct rnic_dev_stats st;
	uint64_t overflows;
	uint32_t la, rb;
	int n, other, got;

	VERIFY(pair_up(port_a, port_b, NULL, NULL) == 0, "devices");
	la = rnic_mr_lkey(A.mr);
	rb = rnic_mr_rkey(B.mr);
	small_a = rnic_create_cq(A.dev, 4);
	rsmall_a = rnic_create_cq(A.dev, 2);
	VERIFY(small_a && rsmall_a, "CQs");
	/* qa: send CQ of 4; ga: a bystander on A's big CQ. */
	qa = mkqp_cq(&A, RNIC_QPT_RC, small_a, A.cq, 64, 16);
	qb = mkqp(&B, RNIC_QPT_RC);
	VERIFY(qa && qb && qp_connect(qa, &B, qb, 14) == 0 && qp_connect(qb, &A, qa, 14) == 0,
	       "overflowing pair");
	VERIFY(pair_qps(RNIC_QPT_RC, &ga, &gb, 14) == 0, "bystander pair");
	fill(A.buf, 65536, 10);
	for (int i = 0; i < 10; i++)
		VERIFY(post_op(qa, RNIC_WR_RDMA_WRITE, i, (uintptr_t)A.buf + 256u * i, 256, la,
			       (uintptr_t)B.buf + 256u * i, rb) == 0, "post %d", i);
	VERIFY(wait_error(qa) == RNIC_QPS_ERR, "the QP whose CQ overflowed is %s",
	       rnic_qp_state_str(test_qp_state(qa)));
	VERIFY(rnic_cq_overflowed(small_a), "the CQ does not report the overflow");
	VERIFY(!rnic_cq_overflowed(A.cq), "the other CQ reports an overflow");
	n = count_events(rnic_qp_num(qa), RNIC_EVENT_CQ_ERR, &other);
	VERIFY(n == 1 && other == 0, "%d CQ_ERR events for the QP (want 1), %d others", n, other);
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(st.cq_overflow >= 1, "cq_overflow %" PRIu64, st.cq_overflow);
	/* What fitted is there, in order. */
	got = rnic_poll_cq(small_a, 16, wc);
	VERIFY(got == 4, "%d completions in the CQ of 4", got);
	for (int i = 0; i < got; i++)
		VERIFY(wc[i].wr_id == (uint64_t)i && wc[i].status == RNIC_WC_SUCCESS, "wc %d", i);
	/* The bystander on the other CQ keeps working: WRITE, then READ. */
	fill(A.buf + 0x20000, 5000, 11);
	VERIFY(post_op(ga, RNIC_WR_RDMA_WRITE, 77, (uintptr_t)A.buf + 0x20000, 5000, la,
		       (uintptr_t)B.buf + 0x20000, rb) == 0, "bystander WRITE");
	VERIFY(wait_wc(A.cq, wc, 1) == 1 && wc[0].status == RNIC_WC_SUCCESS && wc[0].wr_id == 77,
	       "bystander WRITE completion");
	VERIFY(memcmp(A.buf + 0x20000, B.buf + 0x20000, 5000) == 0, "bystander WRITE bytes");
	fill(B.buf + 0x30000, 3000, 12);
	VERIFY(post_op(ga, RNIC_WR_RDMA_READ, 78, (uintptr_t)A.buf + 0x30000, 3000, la,
		       (uintptr_t)B.buf + 0x30000, rb) == 0, "bystander READ");
	VERIFY(wait_wc(A.cq, wc, 1) == 1 && wc[0].status == RNIC_WC_SUCCESS && wc[0].wr_id == 78,
	       "bystander READ completion");
	VERIFY(memcmp(A.buf + 0x30000, B.buf + 0x30000, 3000) == 0, "bystander READ bytes");
	VERIFY(test_qp_state(ga) == RNIC_QPS_RTS && test_qp_state(gb) == RNIC_QPS_RTS, "bystander state");

	/* Receive side: a UC QP whose receive CQ holds 2 gets 4 SENDs. */
	ua = mkqp_cq(&A, RNIC_QPT_UC, A.cq, rsmall_a, 16, 16);
	ub = mkqp(&B, RNIC_QPT_UC);
	VERIFY(ua && ub && qp_connect(ua, &B, ub, 0) == 0 && qp_connect(ub, &A, ua, 0) == 0,
	       "UC pair");
	for (int i = 0; i < 4; i++)
		VERIFY(post_rcv(ua, 500 + i, (uintptr_t)A.buf + 0x40000 + 512u * i, 512, la) == 0,
		       "recv");
	for (int i = 0; i < 4; i++)
		VERIFY(post_op(ub, RNIC_WR_SEND, 600 + i, (uintptr_t)B.buf, 100,
			       rnic_mr_lkey(B.mr), 0, 0) == 0, "UC SEND");
	VERIFY(wait_wc(B.cq, wc, 4) == 4, "UC send completions");
	settle();
	VERIFY(test_qp_state(ua) == RNIC_QPS_ERR, "UC QP is %s", rnic_qp_state_str(test_qp_state(ua)));
	VERIFY(rnic_cq_overflowed(rsmall_a), "the receive CQ does not report the overflow");
	n = count_events(rnic_qp_num(ua), RNIC_EVENT_CQ_ERR, &other);
	VERIFY(n == 1 && other == 0, "%d CQ_ERR events for the UC QP (want 1), %d others", n,
	       other);
	got = rnic_poll_cq(rsmall_a, 16, wc);
	VERIFY(got == 2 && wc[0].wr_id == 500 && wc[1].wr_id == 501 &&
	       wc[0].status == RNIC_WC_SUCCESS, "%d receive completions", got);
	/* And the bystander still works after that. */
	VERIFY(post_op(ga, RNIC_WR_RDMA_WRITE, 79, (uintptr_t)A.buf, 64, la, (uintptr_t)B.buf,
		       rb) == 0, "bystander WRITE");
	VERIFY(wait_wc(A.cq, wc, 1) == 1 && wc[0].status == RNIC_WC_SUCCESS && wc[0].wr_id == 79,
	       "bystander WRITE completion");

	/* Send side of UC, whose completions the TX role makes on transmit
	 * and pushes at the end of its pass: a send CQ of 2 gets 4. */
	ssmall_a = rnic_create_cq(A.dev, 2);
	VERIFY(ssmall_a, "CQ");
	uc = mkqp_cq(&A, RNIC_QPT_UC, ssmall_a, A.cq, 16, 16);
	ucb = mkqp(&B, RNIC_QPT_UC);
	VERIFY(uc && ucb && qp_connect(uc, &B, ucb, 0) == 0 && qp_connect(ucb, &A, uc, 0) == 0,
	       "UC send pair");
	rnic_dev_stats_get(A.dev, &st);
	overflows = st.cq_overflow;
	for (int i = 0; i < 4; i++)
		VERIFY(post_op(uc, RNIC_WR_RDMA_WRITE, 700 + i, (uintptr_t)A.buf + 64u * i, 64, la,
			       (uintptr_t)B.buf + 0x50000 + 64u * i, rb) == 0, "UC WRITE %d", i);
	VERIFY(wait_error(uc) == RNIC_QPS_ERR, "the UC QP whose send CQ overflowed is %s",
	       rnic_qp_state_str(test_qp_state(uc)));
	VERIFY(rnic_cq_overflowed(ssmall_a), "the send CQ does not report the overflow");
	n = count_events(rnic_qp_num(uc), RNIC_EVENT_CQ_ERR, &other);
	VERIFY(n == 1 && other == 0, "%d CQ_ERR events for the UC sender (want 1), %d others", n,
	       other);
	rnic_dev_stats_get(A.dev, &st);
	VERIFY(st.cq_overflow - overflows >= 2, "cq_overflow +%" PRIu64 " (want >= 2)",
	       st.cq_overflow - overflows);
	got = rnic_poll_cq(ssmall_a, 16, wc);
	VERIFY(got == 2 && wc[0].wr_id == 700 && wc[1].wr_id == 701 &&
	       wc[0].status == RNIC_WC_SUCCESS && wc[1].status == RNIC_WC_SUCCESS,
	       "%d send completions (want 700, 701)", got);
	VERIFY(rnic_destroy_qp(qa) == 0 && rnic_destroy_qp(ua) == 0 && rnic_destroy_qp(uc) == 0,
	       "destroy");
	VERIFY(rnic_destroy_cq(small_a) == 0 && rnic_destroy_cq(rsmall_a) == 0 &&
	       rnic_destroy_cq(ssmall_a) == 0, "the overflowed CQs cannot be destroyed");
	return 0;
}

/*
 * The async event ring (1024) full: 1100 UC QPs share a send CQ of one
 * entry and nobody reads events. Each QP that overflows goes to Error and
 * raises one event; those that find the ring full count in event_drops.
 * A QP on another CQ still works.
 */
static int
test_event_ring_full(void)
{
	struct rnic_dev_attr ta = { .mbufs = 8192, .max_qps = 2048 };
	enum { NQ = 1100 };
	struct rnic_qp **q = calloc(NQ, sizeof(*q));
	struct rnic_qp *ga, *gb, *peer;
	struct rnic_async_event ev;
	struct rnic_dev_stats st;
	struct rnic_cq *one;
	struct rnic_wc wc;
	int events = 0, in_err = 0;

	VERIFY(q != NULL, "calloc");
	VERIFY(pair_up(port_a, port_b, &ta, NULL) == 0, "devices");
	one = rnic_create_cq(A.dev, 1);
	peer = mkqp(&B, RNIC_QPT_UC);   /* every UC QP of A sends to it */
	VERIFY(one != NULL && peer != NULL, "CQ, peer");
	for (int i = 0; i < NQ; i++) {
		q[i] = mkqp_cq(&A, RNIC_QPT_UC, one, A.cq, 2, 2);
		VERIFY(q[i] != NULL && qp_connect(q[i], &B, peer, 0) == 0, "QP %d: %s", i,
		       rte_strerror(rte_errno));
		VERIFY(post_op(q[i], RNIC_WR_SEND, i, (uintptr_t)A.buf, 8, rnic_mr_lkey(A.mr),
			       0, 0) == 0, "post %d", i);
	}
	settle();
	rnic_dev_stats_get(A.dev, &st);
	while (rnic_get_async_event(A.dev, &ev) == 1) {
		VERIFY(ev.type == RNIC_EVENT_CQ_ERR, "event type %d", ev.type);
		events++;
	}
	for (int i = 0; i < NQ; i++)
		in_err += test_qp_state(q[i]) == RNIC_QPS_ERR;
	VERIFY(in_err == NQ - 1, "%d of %d QPs in Error (one completion fitted)", in_err, NQ);
	VERIFY(events == 1023, "%d events queued, want the ring's 1023", events);
	VERIFY(st.event_drops == (uint64_t)(NQ - 1 - 1023), "event_drops %" PRIu64 ", want %d",
	       st.event_drops, NQ - 1 - 1023);
	VERIFY(rnic_poll_cq(one, 1, &wc) == 1 && wc.status == RNIC_WC_SUCCESS, "the one "
	       "completion that fitted");
	/* The device still serves a QP on another CQ. */
	VERIFY(pair_qps(RNIC_QPT_RC, &ga, &gb, 14) == 0, "RC pair");
	fill(A.buf + 4096, 3000, 14);
	VERIFY(post_op(ga, RNIC_WR_RDMA_WRITE, 1, (uintptr_t)A.buf + 4096, 3000,
		       rnic_mr_lkey(A.mr), (uintptr_t)B.buf + 4096, rnic_mr_rkey(B.mr)) == 0,
	       "post");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 1,
	       "WRITE on another CQ");
	VERIFY(memcmp(A.buf + 4096, B.buf + 4096, 3000) == 0, "bytes");
	free(q);
	return 0;
}

/* ------------------------------------------------------------------ */
/* More objects than configured                                        */
/* ------------------------------------------------------------------ */

static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats s;

	rte_malloc_get_socket_stats((int)rte_socket_id(), &s);
	return s.heap_allocsz_bytes;
}

static int
test_max_qps(void)
{
	struct rnic_dev_attr ta = { .mbufs = 4096, .max_qps = 5, .max_mrs = 4, .max_cqs = 3 };
	struct rnic_qp *q[5], *extra, *qb;
	struct rnic_qp_init_attr ia = { .qp_type = RNIC_QPT_RC,
					.cap = { .max_send_wr = 16, .max_recv_wr = 16 } };
	struct rnic_cq *cqs[3] = { NULL };
	struct rnic_mr *mrs[4] = { NULL };
	struct rnic_wc wc;
	size_t before;
	int ncq = 0, nmr = 0;

	VERIFY(pair_up(port_a, port_b, &ta, NULL) == 0, "devices");
	ia.send_cq = ia.recv_cq = A.cq;
	for (int i = 0; i < 5; i++) {
		q[i] = rnic_create_qp(A.pd, &ia);
		VERIFY(q[i] != NULL, "QP %d of 5: %s", i, rte_strerror(rte_errno));
	}
	before = heap_used();
	rte_errno = 0;
	extra = rnic_create_qp(A.pd, &ia);
	VERIFY(extra == NULL && rte_errno == ENOSPC, "a sixth QP with max_qps 5: %p, rte_errno %d",
	       (void *)extra, rte_errno);
	ia.qp_num = 0x123456;
	rte_errno = 0;
	extra = rnic_create_qp(A.pd, &ia);
	VERIFY(extra == NULL && rte_errno == ENOSPC, "a sixth QP with an explicit QPN: "
	       "rte_errno %d (%s)", rte_errno, rte_strerror(rte_errno));
	ia.qp_num = 0;
	VERIFY(heap_used() == before, "the refused creates leaked %zd bytes",
	       (ssize_t)(heap_used() - before));
	/* The existing QPs are unaffected: one of them carries a WRITE. */
	qb = mkqp(&B, RNIC_QPT_RC);
	VERIFY(qb && qp_connect(q[4], &B, qb, 14) == 0 && qp_connect(qb, &A, q[4], 14) == 0,
	       "connect");
	fill(A.buf, 4096, 13);
	VERIFY(post_op(q[4], RNIC_WR_RDMA_WRITE, 5, (uintptr_t)A.buf, 4096, rnic_mr_lkey(A.mr),
		       (uintptr_t)B.buf, rnic_mr_rkey(B.mr)) == 0, "post");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "WRITE");
	VERIFY(memcmp(A.buf, B.buf, 4096) == 0, "bytes");
	/* Room again after a destroy. */
	VERIFY(rnic_destroy_qp(q[0]) == 0, "destroy");
	q[0] = rnic_create_qp(A.pd, &ia);
	VERIFY(q[0] != NULL, "create after a destroy: %s", rte_strerror(rte_errno));

	/* MRs: A already registered one of its 4. */
	for (nmr = 0; nmr < 3; nmr++) {
		mrs[nmr] = rnic_reg_mr(A.pd, A.buf + 4096 * (nmr + 1), 4096,
				       RNIC_ACCESS_LOCAL_WRITE);
		VERIFY(mrs[nmr] != NULL, "MR %d: %s", nmr, rte_strerror(rte_errno));
	}
	before = heap_used();
	rte_errno = 0;
	VERIFY(rnic_reg_mr(A.pd, A.buf, 4096, RNIC_ACCESS_LOCAL_WRITE) == NULL &&
	       rte_errno == ENOSPC, "a fifth MR with max_mrs 4: rte_errno %d", rte_errno);
	VERIFY(heap_used() == before, "the refused reg_mr leaked");
	/* CQs: A already has one of its 3. */
	for (ncq = 0; ncq < 2; ncq++) {
		cqs[ncq] = rnic_create_cq(A.dev, 16);
		VERIFY(cqs[ncq] != NULL, "CQ %d: %s", ncq, rte_strerror(rte_errno));
	}
	before = heap_used();
	rte_errno = 0;
	VERIFY(rnic_create_cq(A.dev, 16) == NULL && rte_errno == ENOSPC,
	       "a fourth CQ with max_cqs 3: rte_errno %d", rte_errno);
	VERIFY(heap_used() == before, "the refused create_cq leaked");
	VERIFY(rnic_destroy_cq(cqs[0]) == 0, "destroy CQ");
	cqs[0] = rnic_create_cq(A.dev, 16);
	VERIFY(cqs[0] != NULL, "create_cq after a destroy: %s", rte_strerror(rte_errno));

	/* Nothing holds a reference it should not: all of it goes away. */
	for (int i = 0; i < 5; i++)
		VERIFY(rnic_destroy_qp(q[i]) == 0, "destroy QP %d", i);
	for (int i = 0; i < nmr; i++)
		VERIFY(rnic_dereg_mr(mrs[i]) == 0, "dereg MR %d", i);
	for (int i = 0; i < ncq; i++)
		VERIFY(rnic_destroy_cq(cqs[i]) == 0, "destroy CQ %d", i);
	VERIFY(rnic_destroy_cq(A.cq) == 0, "the QPs' CQ still has references");
	A.cq = NULL;
	return 0;
}

/* ------------------------------------------------------------------ */

static int
port_pairs(void)
{
	if (rnic_port_ring_pair("exA", "exB", 4096, &port_a, &port_b) != 0)
		return -1;
	/* A small link for the receive-ring-full case. */
	if (rnic_port_ring_pair("exC", "exD", 64, &port_c, &port_d) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, watchdog);
	if (port_pairs() != 0) {
		printf("FAIL ring pairs: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
		return 1;
	}
	RUN(test_mempool_empty(), "mempool empty: WRs wait, nothing lost or leaked");
	RUN(test_tiny_pools(), "pools of 16 mbufs, traffic both ways");
	RUN(test_queues_full(), "send and receive queues full");
	RUN(test_doorbell_ring_full(), "doorbell ring full, unpolled");
	RUN(test_kick_ring_full(), "kick ring full while a QP goes to Error");
	RUN(test_link_ring_full(), "peer's receive ring full");
	RUN(test_destroy_on_work_list(), "destroy and reset a QP on the roles' work lists");
	RUN(test_destroy_polled(), "destroy QPs while an lcore polls the device");
	RUN(test_cq_overflow(), "CQ overflow: QP to Error, async event, others unaffected");
	RUN(test_event_ring_full(), "async event ring full");
	RUN(test_max_qps(), "more QPs, MRs, CQs than configured");
	printf("%u passed, %u failed\n", n_pass, n_fail);
	rte_eal_cleanup();
	return n_fail ? 1 : 0;
}
