/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers the C tests share: see test_common.h. */
#include <stdarg.h>
#include <string.h>

#include <rte_malloc.h>

#include "test_common.h"

unsigned int test_verify_passed, test_verify_failed;
const char *test_verify_tag;

void
test_verify_report(const char *func, int line, const char *cond, const char *fmt, ...)
{
	char msg[1024];
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the macros' newline, and the blank messages some checks give */
	for (n = strlen(msg); n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '); n--)
		msg[n - 1] = '\0';
	printf("%s%s%sFAIL %s:%d: %s%s%s\n", test_verify_tag ? "[" : "",
	       test_verify_tag ? test_verify_tag : "", test_verify_tag ? "] " : "", func, line,
	       cond ? cond : "", cond && msg[0] ? ": " : "", msg);
	fflush(stdout);
	test_verify_failed++;
}

int
test_side_up(struct test_side *s, const struct rnic_dev_attr *attr, uint8_t last,
	     uint32_t cq_entries, size_t buf_size, size_t align)
{
	struct rnic_dev_attr a = *attr;

	s->port = a.port_id;
	s->mac[0] = 0x02;
	s->mac[5] = last;
	memcpy(a.mac, s->mac, 6);
	s->ip = rte_cpu_to_be_32(0x0a000000u | last);
	a.ipv4 = s->ip;
	s->mbufs = a.mbufs ? a.mbufs : 16384;
	s->dev = rnic_dev_create(&a);
	if (s->dev == NULL)
		return -1;
	s->pd = rnic_alloc_pd(s->dev);
	s->cq = rnic_create_cq(s->dev, cq_entries);
	s->buf = rte_zmalloc("test_buf", buf_size, align);
	if (s->pd == NULL || s->cq == NULL || s->buf == NULL)
		return -1;
	s->mr = rnic_reg_mr(s->pd, s->buf, buf_size, RNIC_ACCESS_LOCAL_WRITE |
			    RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC);
	return s->mr == NULL ? -1 : 0;
}

unsigned int
test_poll_pair(const struct test_side *a, const struct test_side *b)
{
	unsigned int w = 0;

	w += rnic_dev_poll_tx(a->dev);
	if (b != NULL)
		w += rnic_dev_poll_tx(b->dev);
	w += rnic_dev_poll_rx(a->dev);
	if (b != NULL)
		w += rnic_dev_poll_rx(b->dev);
	w += rnic_dev_poll_timer(a->dev);
	if (b != NULL)
		w += rnic_dev_poll_timer(b->dev);
	return w;
}

int
test_wait_wc(struct rnic_cq *cq, struct rnic_wc *wc, int n, long max_rounds,
	     unsigned int (*poll)(void))
{
	int got = 0;

	for (long it = 0; it < max_rounds && got < n; it++) {
		poll();
		got += rnic_poll_cq(cq, n - got, wc + got);
	}
	return got;
}

enum rnic_qp_state
test_qp_state(struct rnic_qp *qp)
{
	struct rnic_qp_attr a;

	rnic_query_qp(qp, &a, 0, NULL);
	return a.qp_state;
}

int
test_qp_to_rts(struct rnic_qp *qp, const struct test_qp_conn *c, enum rnic_qp_state *failed)
{
	struct rnic_qp_init_attr ia;
	struct rnic_qp_attr a = {0};
	enum rnic_qp_type t;
	int rc;

	rnic_query_qp(qp, &a, 0, &ia);
	t = ia.qp_type;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qkey = c->qkey;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC;
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			    (t == RNIC_QPT_UD ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS));
	if (rc)
		goto out;
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;   /* 0.01 ms */
	a.sr = c->sr;
	memcpy(a.ah_attr.dmac, c->dmac, 6);
	a.ah_attr.dip = c->dip;
	rc = rnic_modify_qp(qp, &a, t == RNIC_QPT_UD ? RNIC_QP_STATE :
			    t == RNIC_QPT_UC ? (RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
						RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN) :
			    (RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
			     RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER |
			     (c->sr ? RNIC_QP_SR : 0)));
	if (rc)
		goto out;
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = c->sq_psn;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	rc = rnic_modify_qp(qp, &a, t == RNIC_QPT_RC ?
			    (RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			     RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC) :
			    (RNIC_QP_STATE | RNIC_QP_SQ_PSN));
out:
	if (rc && failed != NULL)
		*failed = a.qp_state;
	return rc;
}

int
test_qp_connect(struct rnic_qp *qp, const struct test_side *peer, struct rnic_qp *pqp,
		enum rnic_mtu mtu, uint32_t sq_psn, uint32_t rq_psn, uint8_t timeout,
		uint8_t retry_cnt)
{
	struct test_qp_conn c = {
		.dmac = peer->mac, .dip = peer->ip, .dest_qpn = rnic_qp_num(pqp),
		.qkey = 0x11111111, .mtu = mtu, .sq_psn = sq_psn, .rq_psn = rq_psn,
		.timeout = timeout, .retry_cnt = retry_cnt,
	};

	return test_qp_to_rts(qp, &c, NULL);
}

int
test_rc_pairs(struct test_side *a, struct test_side *b, const struct rnic_qp_init_attr *attr,
	      struct rnic_qp **qa, struct rnic_qp **qb, unsigned int n)
{
	static const struct rnic_qp_init_attr rc = {
		.qp_type = RNIC_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rnic_qp_init_attr ia = attr != NULL ? *attr : rc;

	for (unsigned int q = 0; q < n; q++) {
		ia.send_cq = ia.recv_cq = a->cq;
		qa[q] = rnic_create_qp(a->pd, &ia);
		ia.send_cq = ia.recv_cq = b->cq;
		qb[q] = rnic_create_qp(b->pd, &ia);
		if (qa[q] == NULL || qb[q] == NULL ||
		    test_qp_connect(qa[q], b, qb[q], RNIC_MTU_1024, 0, 0, 14, 7) != 0 ||
		    test_qp_connect(qb[q], a, qa[q], RNIC_MTU_1024, 0, 0, 14, 7) != 0)
			return -1;
	}
	return 0;
}

void
test_rc_pairs_destroy(struct rnic_qp **qa, struct rnic_qp **qb, unsigned int n)
{
	for (unsigned int q = 0; q < n; q++) {
		if (qa[q] != NULL)
			rnic_destroy_qp(qa[q]);
		if (qb[q] != NULL)
			rnic_destroy_qp(qb[q]);
		qa[q] = qb[q] = NULL;
	}
}
