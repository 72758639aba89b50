/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliable delivery under exact, deterministic losses (seed 3.4.5, 3.4.2).
 * Engine A sits on a net_impair port over one end of a ring pair; a hook
 * drops (or duplicates) exactly the packet a case names, by opcode and
 * occurrence, in either direction. Both engines and both timers are polled
 * by hand from this thread. Each case checks the data, the completion
 * status and that the recovery path it targets actually ran: losing the
 * last packet or an ACK can only be repaired by the loss timer. Start
 * PSNs sit just below 0xFFFFFF so recovery crosses the wrap.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_malloc.h>

#include "rnic_eth_impair.h"
#include "rnic_qp.h"        /* test_karn_timer reads the RTT estimator */
#include "rnic_verbs.h"
#include "rnic_wire.h"
#include "test_common.h"

static int n_pass, n_fail;

#define BUF (4u << 20)

static struct test_side A, B;
static uint16_t imp_port;
static bool b_alive = true;

/* The impairment rule of the running case. */
struct rule {
	int opcode;          /* BTH opcode to match, -1 = none */
	int nth;             /* 1-based occurrence to act on */
	int nth2;            /* and this one too (0: none) */
	int action;          /* RNIC_IMPAIR_DROP or _DUP */
	int seen;
	int hits;
	int all;             /* act on every match from nth on (peer gone) */
	uint64_t nths;       /* and these: bit i acts on occurrence i + 1 */
	uint64_t dup_nths;   /* these are duplicated instead */
	bool sack_only;      /* match only ACKs that carry a non-empty SACK */
	int watch;           /* occurrence whose passing records ... */
	int watch_rd;        /* ... how many READ requests A had sent then */
	uint64_t watch_rto;  /* ... and A's rto_expired then */
};
static struct rule rules[2];   /* [RNIC_IMPAIR_TX], [RNIC_IMPAIR_RX] */

#define OPC(o) RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_##o)

/* READ requests A sent (test_read_resume), and its responder mimicry. */
static struct { uint32_t psn, len; uint64_t va; } rd_reqs[8];
static int n_rd_reqs;
static bool as_rxe;   /* answer a resumed READ as rxe does: Middle/Last */

/*
 * rxe replays a READ asked again from PSN p > first as the continuation of
 * the old answer: Middle (or Last) at p, where softrnic's responder (like
 * other IBA responders) starts afresh with First (or Only). Turn B's First
 * into a Middle (dropping its AETH) or its Only into a Last, and re-seal.
 */
static void
first_to_continuation(struct rte_mbuf *m, const struct rnic_pkt *pkt)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (pkt->bth.opcode == OPC(READ_RESP_ONLY)) {
		p[pkt->bth_off] = OPC(READ_RESP_LAST);
	} else {
		memmove(p + 4, p, pkt->bth_off + RNIC_BTH_LEN);   /* AETH out */
		rte_pktmbuf_adj(m, 4);
		p = rte_pktmbuf_mtod(m, uint8_t *);
		p[pkt->bth_off] = OPC(READ_RESP_MIDDLE);
		ip = (struct rte_ipv4_hdr *)(p + pkt->l3_off);
		udp = (struct rte_udp_hdr *)(ip + 1);
		ip->total_length = rte_cpu_to_be_16(rte_be_to_cpu_16(ip->total_length) - 4);
		udp->dgram_len = rte_cpu_to_be_16(rte_be_to_cpu_16(udp->dgram_len) - 4);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	rnic_pkt_finish_icrc_mbuf(m, pkt->l3_off);
}

/* A's requests outstanding as the link sees them: the PSN of each WRITE
 * packet A sends against the last ACK it got (test_window). */
static struct { bool on; uint32_t acked; int max; } win;

static void
window_track(const struct rule *r, const struct rnic_pkt *pkt)
{
	uint8_t op = pkt->bth.opcode;

	if (r == &rules[RNIC_IMPAIR_RX] && op == OPC(ACK))
		win.acked = pkt->bth.psn;
	else if (r == &rules[RNIC_IMPAIR_TX] && op >= OPC(WRITE_FIRST) && op <= OPC(WRITE_ONLY))
		win.max = RTE_MAX(win.max, (int)((pkt->bth.psn - win.acked) & 0xffffff));
}

/* test_cnp: A's requests marked Congestion Experienced on the way (as a
 * switch would), what they carried before, and the CNPs A receives. */
static struct {
	bool on;
	int requests, ect0;
	int cnps;
	struct rnic_pkt cnp;       /* the first CNP's fields */
	uint8_t rsvd_or;           /* OR of its 16 reserved bytes */
	bool cnp_icrc_ok;
} ce;

static void
ce_mark(struct rte_mbuf *m, const struct rnic_pkt *pkt)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pkt->l3_off);

	ce.requests++;
	ce.ect0 += (ip->type_of_service & RNIC_ECN_MASK) == RNIC_ECN_ECT0;
	ip->type_of_service |= RNIC_ECN_CE;   /* the ICRC masks the TOS byte */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static void
ce_cnp_seen(struct rte_mbuf *m, const struct rnic_pkt *pkt)
{
	const uint8_t *rsvd = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						      pkt->bth_off + RNIC_BTH_LEN);
	struct rnic_pkt full;

	if (ce.cnps++ > 0)
		return;
	ce.cnp = *pkt;
	ce.rsvd_or = 0;
	for (int i = 0; i < RNIC_CNP_RSVD_LEN; i++)
		ce.rsvd_or |= rsvd[i];
	ce.cnp_icrc_ok = rnic_pkt_parse_mbuf(m, true, &full) == RNIC_PKT_ERR_OK;
}

static uint64_t stat_a(const char *name);

static int
hook(struct rte_mbuf *m, uint64_t pkt_no, void *arg)
{
	struct rule *r = arg;
	struct rnic_pkt pkt;

	RTE_SET_USED(pkt_no);
	if (rnic_pkt_parse_mbuf(m, false, &pkt) != RNIC_PKT_ERR_OK)
		return RNIC_IMPAIR_PASS;
	if (win.on)
		window_track(r, &pkt);
	if (ce.on && r == &rules[RNIC_IMPAIR_TX] && !(pkt.op->mask & RNIC_M_CNP))
		ce_mark(m, &pkt);
	if (ce.on && r == &rules[RNIC_IMPAIR_RX] && pkt.bth.opcode == RNIC_OPCODE_CNP)
		ce_cnp_seen(m, &pkt);
	if (r == &rules[RNIC_IMPAIR_TX] && pkt.bth.opcode == OPC(READ_REQ) &&
	    n_rd_reqs < (int)RTE_DIM(rd_reqs))
		rd_reqs[n_rd_reqs++] = (typeof(rd_reqs[0])){ pkt.bth.psn, pkt.ext.reth_len,
							       pkt.ext.reth_va };
	if (r == &rules[RNIC_IMPAIR_RX] && as_rxe && n_rd_reqs > 1 &&
	    pkt.bth.psn == rd_reqs[n_rd_reqs - 1].psn &&
	    (pkt.bth.opcode == OPC(READ_RESP_FIRST) || pkt.bth.opcode == OPC(READ_RESP_ONLY)))
		first_to_continuation(m, &pkt);
	if (r->opcode < 0)
		return RNIC_IMPAIR_PASS;
	if (pkt.bth.opcode != r->opcode)
		return RNIC_IMPAIR_PASS;
	if (r->watch && r->seen + 1 == r->watch) {
		r->watch_rd = n_rd_reqs;
		r->watch_rto = stat_a("rto_expired");
	}
	if (r->sack_only && (!pkt.bth.sr || !(pkt.ext.sack[0] | pkt.ext.sack[1] |
					      pkt.ext.sack[2] | pkt.ext.sack[3])))
		return RNIC_IMPAIR_PASS;
	r->seen++;
	if (r->seen <= 64 && ((r->dup_nths >> (r->seen - 1)) & 1)) {
		r->hits++;
		return RNIC_IMPAIR_DUP;
	}
	if (r->seen == r->nth || (r->nth2 && r->seen == r->nth2) ||
	    (r->all && r->seen >= r->nth) ||
	    (r->seen <= 64 && ((r->nths >> (r->seen - 1)) & 1))) {
		r->hits++;
		return r->action;
	}
	return RNIC_IMPAIR_PASS;
}

static void
set_rule(int dir, int opcode, int nth, int action)
{
	rules[dir] = (struct rule){ .opcode = opcode, .nth = nth, .action = action };
}

static void
poll_all(void)
{
	test_poll_pair(&A, b_alive ? &B : NULL);
}

/* Poll until @p n completions arrive or about 5 s of TSC pass. */
static int
wait_wc(struct rnic_cq *cq, struct rnic_wc *wc, int n)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	int got = 0;

	while (got < n && rte_get_tsc_cycles() < end) {
		poll_all();
		got += rnic_poll_cq(cq, n - got, wc + got);
	}
	return got;
}

/* A's window (max_inflight), below the default and not a multiple of
 * the AckReq period (16): every case also runs with TX held at it. At
 * least 25 for test_renak. */
#define A_INFLIGHT 40
#define A_LINE_MBPS 1000
#define CNP_DSCP 26   /* not softrnic's config default (48): the attribute works */

static int
side_init(struct test_side *s, uint16_t port, uint8_t last, uint32_t inflight)
{
	struct rnic_dev_attr a = { .port_id = port, .mbufs = 8192, .max_inflight = inflight,
				   .cnp_dscp = CNP_DSCP };

	/* DCQCN on a 1 Gb/s line: after a CNP, A's pace is measurable. Its
	 * rate increase steps 1 s and 1 GiB apart: the rate stays cut while
	 * the test looks, however slowly a loaded machine runs it (with
	 * NVIDIA's 300 us it was back at the line, unpaced, when 6 copies of
	 * this test shared 2 CPUs). */
	rnic_dcqcn_defaults(&a.dcqcn, A_LINE_MBPS);
	a.dcqcn.rpg_time_reset_us = 1000000;
	a.dcqcn.rpg_byte_reset = 1u << 30;

	return test_side_up(s, &a, last, 1024, BUF, 64);
}

static struct rnic_qp *
mkqp(struct test_side *s)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = RNIC_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
			 .max_recv_sge = 2 },
	};
	return rnic_create_qp(s->pd, &ia);
}

/* Timeout 8: 4.096 us * 2^8 = 1 ms. A case that must recover without the
 * timer sets 18 (1 s) so that an expiry means the fast path failed. */
static uint8_t qp_timeout = 8;

/* Selective repeat on both QPs of the next fresh_pair (the test_sr_* cases). */
static bool sr_on;

static int
qp_up(struct rnic_qp *qp, struct test_side *peer, struct rnic_qp *pqp, uint32_t sq_psn,
      uint32_t rq_psn, uint8_t retry)
{
	struct test_qp_conn c = {
		.dmac = peer->mac, .dip = peer->ip, .dest_qpn = rnic_qp_num(pqp),
		.qkey = 0x11111111, .mtu = RNIC_MTU_1024, .sq_psn = sq_psn, .rq_psn = rq_psn,
		.timeout = qp_timeout, .retry_cnt = retry, .sr = sr_on,
	};

	return test_qp_to_rts(qp, &c, NULL);
}

static struct rnic_qp *qa, *qb;
static uint32_t psn_base = 0xfffff0;

/* A fresh connected pair per case, PSNs just below the wrap. */
static int
fresh_pair(uint8_t retry)
{
	if (qa) {
		rnic_destroy_qp(qa);
		rnic_destroy_qp(qb);
	}
	qa = mkqp(&A);
	qb = mkqp(&B);
	psn_base = (psn_base + 0x10) & 0xffffff;
	if (psn_base < 0xffff00)
		psn_base = 0xfffff0;
	if (!qa || !qb || qp_up(qa, &B, qb, psn_base, psn_base - 8, retry) ||
	    qp_up(qb, &A, qa, psn_base - 8, psn_base, retry))
		return -1;
	set_rule(RNIC_IMPAIR_TX, -1, 0, 0);
	set_rule(RNIC_IMPAIR_RX, -1, 0, 0);
	return 0;
}

static uint64_t
stat_a(const char *name)
{
	struct rnic_dev_stats s;

	rnic_dev_stats_get(A.dev, &s);
	for (unsigned int i = 0; i < rnic_dev_stat_count; i++)
		if (strcmp(rnic_dev_stat_names[i], name) == 0)
			return ((uint64_t *)&s)[i];
	return UINT64_MAX;
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 9));
}

/* Post one signaled WR of @p op and check it completes, data intact. */
static int
run_op(enum rnic_wr_opcode op, uint32_t len, uint32_t seed, enum rnic_wc_status want)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, len, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr = { .wr_id = seed, .sg_list = &sge, .num_sge = 1,
				   .opcode = op, .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_send_wr *bad;
	struct rnic_wc wc;

	if (op == RNIC_WR_RDMA_READ) {
		fill(B.buf, len, seed);
		memset(A.buf, 0, len);
	} else {
		fill(A.buf, len, seed);
		memset(B.buf, 0, len);
	}
	wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
	wr.wr.rdma.rkey = rnic_mr_rkey(B.mr);
	VERIFY(rnic_post_send(qa, &wr, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1, "no completion");
	VERIFY(wc.wr_id == seed && wc.status == want, "status %s want %s",
	       rnic_wc_status_str(wc.status), rnic_wc_status_str(want));
	if (want == RNIC_WC_SUCCESS)
		VERIFY(memcmp(A.buf, B.buf, len) == 0, "data differs");
	return 0;
}


/* One case: drop/dup the nth packet of an opcode in a direction. */
static int
loss_case(const char *name, int dir, int opcode, int nth, int action,
	  enum rnic_wr_opcode op, uint32_t len, bool need_timer)
{
	uint64_t rx0 = stat_a("tx_retransmits"), te0 = stat_a("timer_expired");
	uint64_t ro0 = stat_a("rto_expired");

	VERIFY(fresh_pair(7) == 0, "%s: setup", name);
	set_rule(dir, opcode, nth, action);
	VERIFY(run_op(op, len, (uint32_t)(nth * 100 + opcode), RNIC_WC_SUCCESS) == 0, "%s", name);
	VERIFY(rules[dir].hits == 1, "%s: the rule fired %d times", name, rules[dir].hits);
	if (action == RNIC_IMPAIR_DROP)
		VERIFY(stat_a("tx_retransmits") > rx0, "%s: nothing was retransmitted", name);
	/* The timer: the RTO where earlier ACKs of the case gave RTT samples,
	 * the local ACK timeout where none came. */
	if (need_timer)
		VERIFY(stat_a("timer_expired") + stat_a("rto_expired") > te0 + ro0,
		       "%s: the loss timer did not fire", name);
	printf("ok %s (retransmits %" PRIu64 ", timer expiries %" PRIu64 ", RTO %" PRIu64
	       ")\n", name, stat_a("tx_retransmits") - rx0, stat_a("timer_expired") - te0,
	       stat_a("rto_expired") - ro0);
	return 0;
}

static int
test_atomic_once(void)
{
	uint64_t *target = (uint64_t *)(B.buf + 8192), *res = (uint64_t *)A.buf;
	struct rnic_sge sge = { (uintptr_t)res, 8, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				   .opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD,
				   .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_send_wr *bad;
	struct rnic_wc wc;

	VERIFY(fresh_pair(7) == 0, "setup");
	*target = 1000;
	set_rule(RNIC_IMPAIR_RX, OPC(ATOMIC_ACK), 1, RNIC_IMPAIR_DROP);
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = rnic_mr_rkey(B.mr);
	wr.wr.atomic.compare_add = 1;
	VERIFY(rnic_post_send(qa, &wr, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "completion");
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "rule");
	/* The retried request is a duplicate: answered from the saved result. */
	VERIFY(*target == 1001 && *res == 1000, "executed twice? target %" PRIu64
	       " result %" PRIu64, *target, *res);
	printf("ok atomic ACK lost: executed once\n");
	return 0;
}

/*
 * Four atomics in flight, the first one's ACK lost: the later ACKs show
 * the loss at once, the requester resends from the head (the responder
 * answers the duplicates from its saved results) without waiting for the
 * loss timer (1 s here, so an expiry means the fast path failed).
 */
static int
test_atomic_ack_lost_in_train(void)
{
	uint64_t *target = (uint64_t *)(B.buf + 8192), *res = (uint64_t *)A.buf;
	uint64_t te0 = stat_a("timer_expired"), rx0 = stat_a("tx_retransmits");
	struct rnic_send_wr wrs[4], *bad;
	struct rnic_sge sges[4];
	struct rnic_wc wc[4];
	int rc;

	qp_timeout = 18;
	rc = fresh_pair(7);
	qp_timeout = 8;
	VERIFY(rc == 0, "setup");
	*target = 5000;
	for (int i = 0; i < 4; i++) {
		sges[i] = (struct rnic_sge){ (uintptr_t)&res[i], 8, rnic_mr_lkey(A.mr) };
		wrs[i] = (struct rnic_send_wr){ .wr_id = 400 + i, .sg_list = &sges[i],
			.num_sge = 1, .opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = RNIC_SEND_SIGNALED, .next = i < 3 ? &wrs[i + 1] : NULL };
		wrs[i].wr.atomic.remote_addr = (uintptr_t)target;
		wrs[i].wr.atomic.rkey = rnic_mr_rkey(B.mr);
		wrs[i].wr.atomic.compare_add = 1;
	}
	set_rule(RNIC_IMPAIR_RX, OPC(ATOMIC_ACK), 1, RNIC_IMPAIR_DROP);
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 4) == 4, "completions");
	for (int i = 0; i < 4; i++)
		VERIFY(wc[i].wr_id == 400u + i && wc[i].status == RNIC_WC_SUCCESS &&
		       res[i] == 5000u + i, "op %d: %s, fetched %" PRIu64, i,
		       rnic_wc_status_str(wc[i].status), res[i]);
	VERIFY(*target == 5004, "target %" PRIu64 ", want 5004 (each op once)", *target);
	VERIFY(stat_a("tx_retransmits") > rx0, "nothing resent");
	VERIFY(stat_a("timer_expired") == te0, "recovered by the loss timer, not by the "
	       "later ACKs");
	printf("ok atomic ACK lost in a train of 4: resent at the next ACK, executed once\n");
	return 0;
}

/*
 * Loss recovery from measured RTTs (issue 17). Each case first completes
 * a few WRITEs so that the requester has RTT samples, and sets a local
 * ACK timeout of 1 s: a recovery that had to wait for it shows as a
 * timer_expired, the RTO's as rto_expired.
 */
static uint64_t stat_b(const char *name);

static int
rto_pair(void)
{
	qp_timeout = 18;
	int rc = fresh_pair(7);

	qp_timeout = 8;
	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < 4; i++)
		if (run_op(RNIC_WR_RDMA_WRITE, 64, 900 + i, RNIC_WC_SUCCESS) != 0)
			return -1;
	return 0;
}

/* WRITEs @p first .. @p first + @p n - 1 (at most 64) of post_writes'
 * layout: 64 bytes each, A's bytes to the same offset of B, one post list. */
static int
post_writes_from(unsigned int first, unsigned int n, uint32_t seed)
{
	static struct rnic_send_wr wrs[64];
	static struct rnic_sge sges[64];
	struct rnic_send_wr *bad;

	for (unsigned int k = 0; k < n; k++) {
		unsigned int i = first + k;

		sges[k] = (struct rnic_sge){ (uintptr_t)A.buf + 64 * i, 64, rnic_mr_lkey(A.mr) };
		wrs[k] = (struct rnic_send_wr){ .wr_id = seed + i, .sg_list = &sges[k],
			.num_sge = 1, .opcode = RNIC_WR_RDMA_WRITE,
			.send_flags = RNIC_SEND_SIGNALED, .next = k + 1 < n ? &wrs[k + 1] : NULL };
		wrs[k].wr.rdma.remote_addr = (uintptr_t)B.buf + 64 * i;
		wrs[k].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	return rnic_post_send(qa, wrs, &bad);
}

/* @p n 64-byte WRITEs in one post list, each to its own 64 bytes of B. */
static int
post_writes(unsigned int n, uint32_t seed)
{
	fill(A.buf, 64 * n, seed);
	memset(B.buf, 0, 64 * n);
	return post_writes_from(0, n, seed);
}

/* All @p n WRITEs of post_writes completed, in order, data in place. */
static int
writes_done(unsigned int n, uint32_t seed)
{
	struct rnic_wc wc[64];

	VERIFY(wait_wc(A.cq, wc, (int)n) == (int)n, "completions");
	for (unsigned int i = 0; i < n; i++)
		VERIFY(wc[i].wr_id == seed + i && wc[i].status == RNIC_WC_SUCCESS,
		       "WR %u: wr_id %" PRIu64 " %s", i, wc[i].wr_id,
		       rnic_wc_status_str(wc[i].status));
	VERIFY(memcmp(A.buf, B.buf, 64 * n) == 0, "data differs");
	return 0;
}

/* The last packet lost: nothing follows it to draw a NAK; the resend
 * comes from the loss timer, counted as an RTO expiry and not as the
 * local ACK timeout's (no retry spent). What this does not show is when:
 * the timer armed with the QP's first packet, before any RTT sample,
 * runs the IBA timeout (1.07 s here) and is not re-armed by the samples
 * that follow, so a tail lost in the QP's first IBA timeout is resent
 * only then (its expiry finds the setup's progress, re-arms with the
 * RTO, and that one resends). Known, left (doc/reliability.md). */
static int
test_tail_loss_rto(void)
{
	uint64_t te0, ro0, t0, us;

	VERIFY(rto_pair() == 0, "setup");
	te0 = stat_a("timer_expired");
	ro0 = stat_a("rto_expired");
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1, RNIC_IMPAIR_DROP);
	t0 = rte_get_tsc_cycles();
	VERIFY(run_op(RNIC_WR_RDMA_WRITE, 64, 950, RNIC_WC_SUCCESS) == 0, "the lost WRITE");
	us = (rte_get_tsc_cycles() - t0) * 1000000 / rte_get_tsc_hz();
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 1, "the rule fired %d times",
	       rules[RNIC_IMPAIR_TX].hits);
	VERIFY(stat_a("rto_expired") > ro0, "the RTO did not fire");
	VERIFY(stat_a("timer_expired") == te0, "recovered by the 1 s local ACK timeout");
	printf("ok tail loss resent on an RTO expiry (%" PRIu64 " of them), not the local ACK "
	       "timeout's, after %" PRIu64 " us\n", stat_a("rto_expired") - ro0, us);
	return 0;
}

/*
 * Karn's rule (RFC 6298 section 3): the answer to a request resent on a
 * timer may answer either copy, so it gives no RTT sample; a request sent
 * once does. A's estimator is read from its QP's completer state (this
 * thread polls both engines: nothing moves it meanwhile). Were the resent
 * request's answer sampled, the sample would include the wait for the
 * resend (test_tail_loss_rto: the IBA timeout's 1.07 s here) against the
 * setup's few microseconds. Go-back-N samples a WRITE's ACK in the
 * completer's run of one-packet entries (release_run: every packet of a
 * message is an entry); selective repeat in release_acked's loop, and a
 * READ's first response in sr_read_resp (go-back-N takes no sample from
 * READs, doc/reliability.md).
 */
static int sr_pair(void);

static int
test_karn_timer(bool sr, enum rnic_wr_opcode op, uint32_t len, int drop_opcode)
{
	uint32_t s0, v0;
	uint64_t ro0;
	bool moved = false;

	VERIFY((sr ? sr_pair() : rto_pair()) == 0, "setup");
	s0 = qa->comp.srtt8;
	v0 = qa->comp.rttvar4;
	VERIFY(s0 != 0, "no RTT sample from the setup's WRITEs");
	ro0 = stat_a("rto_expired");
	set_rule(RNIC_IMPAIR_TX, drop_opcode, 1, RNIC_IMPAIR_DROP);
	VERIFY(run_op(op, len, 960, RNIC_WC_SUCCESS) == 0, "the lost request");
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 1 && stat_a("rto_expired") > ro0,
	       "not resent on the RTO (%d drops)", rules[RNIC_IMPAIR_TX].hits);
	VERIFY(qa->comp.srtt8 == s0 && qa->comp.rttvar4 == v0,
	       "the resent request's answer was sampled: srtt %u -> %u, rttvar %u -> %u (ticks x8, x4)",
	       s0, qa->comp.srtt8, v0, qa->comp.rttvar4);
	/* The estimator is live: requests sent once are sampled. */
	set_rule(RNIC_IMPAIR_TX, -1, 0, 0);
	for (uint32_t i = 0; i < 4 && !moved; i++) {
		VERIFY(run_op(op, len, 970 + i, RNIC_WC_SUCCESS) == 0, "request %u", i);
		moved = qa->comp.srtt8 != s0 || qa->comp.rttvar4 != v0;
	}
	VERIFY(moved, "4 requests sent once gave no RTT sample");
	printf("ok Karn, %u-byte %s%s: no RTT sample from the answer to one resent on the RTO, "
	       "one from one sent once (srtt %u ticks)\n", len,
	       op == RNIC_WR_RDMA_READ ? "READs" : "WRITEs", sr ? " (selective repeat)" : "",
	       qa->comp.srtt8 / 8);
	return 0;
}

/* A 100-packet WRITE on A's 40-request window, nothing lost: the link
 * never sees more than 40 of A's packets unacknowledged, sees that many,
 * and the WRITE completes with no timer expiry. */
static int
test_window(void)
{
	uint64_t te0, ro0;

	VERIFY(rto_pair() == 0, "setup");
	te0 = stat_a("timer_expired");
	ro0 = stat_a("rto_expired");
	win.on = true;
	win.max = 0;
	win.acked = (psn_base + 3) & 0xffffff;   /* rto_pair's 4 WRITEs */
	VERIFY(run_op(RNIC_WR_RDMA_WRITE, 100 * 1024, 1100, RNIC_WC_SUCCESS) == 0, "the WRITE");
	win.on = false;
	VERIFY(win.max == A_INFLIGHT, "at most %d packets outstanding, and that many: %d",
	       A_INFLIGHT, win.max);
	VERIFY(stat_a("timer_expired") == te0 && stat_a("rto_expired") == ro0,
	       "the window waited for a timer");
	printf("ok a 100-packet WRITE through a %d-request window, no timer\n", A_INFLIGHT);
	return 0;
}

/*
 * The notification point (issue 18): 24 WRITEs from A sent ECT(0), marked
 * CE on the link, reach B in one burst. B answers with CNPs, at most one
 * per 50 us (the default cnp_interval_us) - one, unless the burst took
 * longer - each a RoCEv2 CNP to A's QP: opcode 0x81, BECN, PSN 0, the
 * P_Key, 16 zero bytes, a valid ICRC, B's CNP DSCP and Not-ECT. The WRITEs
 * complete as usual.
 */
static int
test_cnp(void)
{
	uint64_t sent0, rcvd0, ce0, t0, t1, cnps;

	VERIFY(rto_pair() == 0, "setup");
	VERIFY(stat_b("ecn_ce_rcvd") == 0 && stat_b("cnp_sent") == 0,
	       "CNPs on an unmarked link");
	sent0 = stat_b("cnp_sent");
	rcvd0 = stat_a("cnp_rcvd");
	ce0 = stat_b("ecn_ce_rcvd");
	memset(&ce, 0, sizeof(ce));
	ce.on = true;
	VERIFY(post_writes(24, 3000) == 0, "post");
	for (int i = 0; i < 4; i++)
		rnic_dev_poll(A.dev, RNIC_ROLE_TX);
	t0 = rte_rdtsc();
	rnic_dev_poll(B.dev, RNIC_ROLE_ALL);
	t1 = rte_rdtsc();
	VERIFY(writes_done(24, 3000) == 0, "the 24 WRITEs");
	ce.on = false;
	cnps = stat_b("cnp_sent") - sent0;
	VERIFY(ce.requests == 24 && ce.ect0 == 24, "%d of %d requests were ECT(0)", ce.ect0,
	       ce.requests);
	VERIFY(stat_b("ecn_ce_rcvd") - ce0 == 24, "B saw %" PRIu64 " CE marks",
	       stat_b("ecn_ce_rcvd") - ce0);
	VERIFY(cnps >= 1 && cnps <= 1 + (t1 - t0) * 1000000 / rte_get_tsc_hz() / 50,
	       "%" PRIu64 " CNPs in %" PRIu64 " us", cnps,
	       (t1 - t0) * 1000000 / rte_get_tsc_hz());
	VERIFY(stat_a("cnp_rcvd") - rcvd0 == cnps && ce.cnps == (int)cnps,
	       "A counted %" PRIu64 " CNPs, its link saw %d", stat_a("cnp_rcvd") - rcvd0, ce.cnps);
	VERIFY(ce.cnp.bth.dqpn == rnic_qp_num(qa) && ce.cnp.bth.becn && !ce.cnp.bth.fecn &&
	       ce.cnp.bth.psn == 0 && ce.cnp.bth.pkey == 0xffff && !ce.cnp.bth.ackreq,
	       "CNP BTH: dqpn 0x%x becn %d fecn %d psn %u pkey 0x%x", ce.cnp.bth.dqpn,
	       ce.cnp.bth.becn, ce.cnp.bth.fecn, ce.cnp.bth.psn, ce.cnp.bth.pkey);
	VERIFY(ce.rsvd_or == 0 && ce.cnp.payload_len == 0 && ce.cnp_icrc_ok,
	       "CNP body: reserved bytes 0x%x, payload %u, ICRC %s", ce.rsvd_or,
	       ce.cnp.payload_len, ce.cnp_icrc_ok ? "ok" : "bad");
	VERIFY(ce.cnp.l.tos == CNP_DSCP << 2, "CNP TOS 0x%x, want DSCP %d, Not-ECT", ce.cnp.l.tos,
	       CNP_DSCP);
	printf("ok CE-marked requests answered by %" PRIu64 " CNP (RoCEv2 format, DSCP %d)\n",
	       cnps, CNP_DSCP);

	/* The reaction point: A's QP cut its rate on the CNP (alpha 1023/1024:
	 * to about half of the 1 Gb/s line) and paces what it sends next, so
	 * 64 KiB take at least their time at the line rate (a lower bound:
	 * no machine is too slow for it); unpaced they take a few us. */
	{
		uint64_t cuts0 = stat_a("cnp_rate_cuts"), t2, us;
		uint32_t rate;

		t2 = rte_rdtsc();
		VERIFY(run_op(RNIC_WR_RDMA_WRITE, 65536, 3100, RNIC_WC_SUCCESS) == 0, "paced WRITE");
		us = (rte_rdtsc() - t2) * 1000000 / rte_get_tsc_hz();
		rate = rnic_qp_cc_rate_mbps(qa);
		VERIFY(stat_a("cnp_rate_cuts") - cuts0 == 1, "%" PRIu64 " rate cuts for one CNP", stat_a("cnp_rate_cuts") - cuts0);
		VERIFY(rate >= 500 && rate < A_LINE_MBPS, "A's rate %u Mb/s after one cut", rate);
		VERIFY(us >= 65536ull * 8 / A_LINE_MBPS, "64 KiB in %" PRIu64 " us: not paced", us);
		printf("ok ... and A paces to %u Mb/s: 64 KiB in %" PRIu64 " us\n", rate, us);
	}
	return 0;
}

/* The first of 8 WRITEs lost, and its resend too: the NAK's go-back-N
 * loses it again, the responder stays silent (the rest is out of
 * sequence), the RTO resends once more. */
static int
test_lost_resend(void)
{
	uint64_t te0, ro0;

	VERIFY(rto_pair() == 0, "setup");
	te0 = stat_a("timer_expired");
	ro0 = stat_a("rto_expired");
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_TX].nth2 = 9;
	VERIFY(post_writes(8, 1000) == 0, "post");
	VERIFY(writes_done(8, 1000) == 0, "the 8 WRITEs");
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 2, "the rule fired %d times",
	       rules[RNIC_IMPAIR_TX].hits);
	VERIFY(stat_a("rto_expired") > ro0, "the RTO did not fire");
	VERIFY(stat_a("timer_expired") == te0, "recovered by the 1 s local ACK timeout");
	printf("ok lost resend recovered by the RTO\n");
	return 0;
}

/*
 * The responder NAKs again: 24 WRITEs, the first lost, and its resend
 * too. The responder NAKs the first gap; the resend's 23 followers reach
 * it more than RESP_RENAK_US (100 us) after that NAK, so it NAKs again,
 * and the requester (its resend older than an RTO by then) goes back.
 * Polled step by step, with a 200 us wait for the responder's clock.
 */
static int
test_renak(void)
{
	uint64_t te0, nr0;

	VERIFY(rto_pair() == 0, "setup");
	te0 = stat_a("timer_expired");
	nr0 = stat_b("naks_repeated");
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_TX].nth2 = 25;
	VERIFY(post_writes(24, 2000) == 0, "post");
	for (int i = 0; i < 4; i++)   /* A sends the 24 (the first lost) */
		rnic_dev_poll(A.dev, RNIC_ROLE_TX);
	rnic_dev_poll(B.dev, RNIC_ROLE_ALL);   /* B NAKs the gap */
	for (int i = 0; i < 4; i++)   /* A takes the NAK, resends (the first lost) */
		rnic_dev_poll(A.dev, RNIC_ROLE_RX | RNIC_ROLE_TX);
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 2, "the rule fired %d times before B's "
	       "second look", rules[RNIC_IMPAIR_TX].hits);
	rte_delay_us_block(200);
	rnic_dev_poll(B.dev, RNIC_ROLE_ALL);   /* 23 out of sequence, 200 us on */
	VERIFY(stat_b("naks_repeated") > nr0, "the responder did not NAK again");
	VERIFY(writes_done(24, 2000) == 0, "the 24 WRITEs");
	VERIFY(stat_a("timer_expired") == te0, "recovered by the 1 s local ACK timeout");
	printf("ok the responder repeats its NAK when the resend is lost too (%" PRIu64
	       " repeated)\n", stat_b("naks_repeated") - nr0);
	return 0;
}

static int
test_rnr(void)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 100, rnic_mr_lkey(A.mr) };
	struct rnic_sge rsge = { (uintptr_t)B.buf, 200, rnic_mr_lkey(B.mr) };
	struct rnic_send_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_recv_wr rwr = { .wr_id = 6, .sg_list = &rsge, .num_sge = 1 };
	struct rnic_send_wr *bad;
	struct rnic_recv_wr *rbad;
	struct rnic_wc wc;
	uint64_t rnr0 = stat_a("rnr_naks_rcvd");

	VERIFY(fresh_pair(7) == 0, "setup");
	fill(A.buf, 100, 3);
	VERIFY(rnic_post_send(qa, &wr, &bad) == 0, "post");
	for (int i = 0; i < 20000 && stat_a("rnr_naks_rcvd") < rnr0 + 3; i++)
		poll_all();
	VERIFY(stat_a("rnr_naks_rcvd") >= rnr0 + 3, "no RNR NAKs");
	VERIFY(rnic_poll_cq(A.cq, 1, &wc) == 0, "completed without a receive");
	VERIFY(rnic_post_recv(qb, &rwr, &rbad) == 0, "post_recv");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "send completion");
	VERIFY(wait_wc(B.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS &&
	       wc.byte_len == 100, "recv completion");
	VERIFY(memcmp(A.buf, B.buf, 100) == 0, "data");
	printf("ok RNR NAK then receive posted (%" PRIu64 " RNR NAKs)\n",
	       stat_a("rnr_naks_rcvd") - rnr0);
	return 0;
}

/* The peer vanishes: retries run out, the WQE fails, the rest flush in order. */
static int
test_peer_gone(void)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 3000, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wrs[3], *bad;
	struct rnic_wc wc[3];
	struct rnic_qp_attr at;

	VERIFY(fresh_pair(3) == 0, "setup");
	for (int i = 0; i < 3; i++) {
		wrs[i] = (struct rnic_send_wr){ .wr_id = 70 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED,
			.next = i < 2 ? &wrs[i + 1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	b_alive = false;
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_FIRST), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_TX].all = 1;   /* and every packet after: gone */
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 3) == 3, "completions");
	VERIFY(wc[0].wr_id == 70 && wc[0].status == RNIC_WC_RETRY_EXC_ERR, "first: %s",
	       rnic_wc_status_str(wc[0].status));
	VERIFY(wc[1].wr_id == 71 && wc[1].status == RNIC_WC_WR_FLUSH_ERR, "second");
	VERIFY(wc[2].wr_id == 72 && wc[2].status == RNIC_WC_WR_FLUSH_ERR, "third");
	rnic_query_qp(qa, &at, 0, NULL);
	VERIFY(at.qp_state == RNIC_QPS_ERR, "state %d", at.qp_state);
	b_alive = true;
	/* drain what B missed so later cases start clean */
	for (int i = 0; i < 1000; i++)
		poll_all();
	printf("ok peer gone: retry exceeded then flushed in order\n");
	return 0;
}

/*
 * Many READs in flight while their responses are lost: the requester goes
 * back N and the responder sees a train of duplicate READs, then new ones.
 * Answers must stay in PSN order and a new READ must not be refused
 * because a replay still holds its slot. First one exact loss, then 30
 * rounds of 16 READs with 3% of the responses dropped at random.
 */
static int
test_reads_under_loss(void)
{
	struct rnic_send_wr wrs[16], *bad;
	struct rnic_sge sges[16];
	struct rnic_wc wc[16];
	struct rnic_impair_params ip = { .reorder_depth = 4, .reorder_idle = 16, .seed = 11 };

	VERIFY(fresh_pair(7) == 0, "setup");
	fill(B.buf, 16 * 4096, 5);
	for (int round = 0; round < 31; round++) {
		if (round == 0) {
			set_rule(RNIC_IMPAIR_RX, OPC(READ_RESP_FIRST), 2, RNIC_IMPAIR_DROP);
		} else if (round == 1) {
			set_rule(RNIC_IMPAIR_RX, -1, 0, 0);
			ip.drop = 0.03;
			VERIFY(rnic_impair_set_params(imp_port, RNIC_IMPAIR_RX, &ip) == 0, "params");
		}
		memset(A.buf, 0, 16 * 4096);
		for (int i = 0; i < 16; i++) {
			sges[i] = (struct rnic_sge){ (uintptr_t)A.buf + i * 4096, 4096,
						     rnic_mr_lkey(A.mr) };
			wrs[i] = (struct rnic_send_wr){ .wr_id = 200 + i, .sg_list = &sges[i],
				.num_sge = 1, .opcode = RNIC_WR_RDMA_READ,
				.send_flags = RNIC_SEND_SIGNALED, .next = i < 15 ? &wrs[i + 1] : NULL };
			wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + i * 4096;
			wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
		}
		VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post round %d", round);
		VERIFY(wait_wc(A.cq, wc, 16) == 16, "round %d: completions", round);
		for (int i = 0; i < 16; i++)
			VERIFY(wc[i].wr_id == 200u + i && wc[i].status == RNIC_WC_SUCCESS,
			       "round %d wc %d: wr_id %" PRIu64 " %s", round, i, wc[i].wr_id,
			       rnic_wc_status_str(wc[i].status));
		VERIFY(memcmp(A.buf, B.buf, 16 * 4096) == 0, "round %d: data", round);
	}
	ip.drop = 0;
	rnic_impair_set_params(imp_port, RNIC_IMPAIR_RX, &ip);
	printf("ok 16 READs in flight under response loss (31 rounds)\n");
	return 0;
}

static uint64_t
stat_b(const char *name)
{
	struct rnic_dev_stats s;

	rnic_dev_stats_get(B.dev, &s);
	for (unsigned int i = 0; i < rnic_dev_stat_count; i++)
		if (strcmp(rnic_dev_stat_names[i], name) == 0)
			return ((uint64_t *)&s)[i];
	return UINT64_MAX;
}

/*
 * A READ response lost in the middle of a long READ: the requester asks
 * again from the first missing response (PSN, VA and length moved on by
 * what arrived), not for the whole READ, and takes the answer whether the
 * responder starts it afresh (First, as softrnic and IBA responders) or
 * continues (Middle, as rxe). Found against rxe: a requester re-asking
 * whole 8 MiB READs over a lossy path never got one through.
 */
static int
test_read_resume(bool rxe_style, int drop_opc, int nth, uint32_t len)
{
	uint64_t rs0 = stat_a("read_resumes"), sent0 = stat_b("read_resp_sent");
	uint32_t npkt = (len + 1023) / 1024, miss = drop_opc == OPC(READ_RESP_LAST) ?
			npkt - 1 : (uint32_t)nth, off = miss * 1024;
	const char *name = rxe_style ? "answered as rxe (Middle)" : "answered afresh (First)";

	VERIFY(fresh_pair(7) == 0, "setup");
	n_rd_reqs = 0;
	as_rxe = rxe_style;
	set_rule(RNIC_IMPAIR_RX, drop_opc, nth, RNIC_IMPAIR_DROP);
	VERIFY(run_op(RNIC_WR_RDMA_READ, len, 77 + nth, RNIC_WC_SUCCESS) == 0, "%s", name);
	as_rxe = false;
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "the drop did not happen");
	VERIFY(n_rd_reqs == 2, "%d READ requests, want the original and one resume", n_rd_reqs);
	VERIFY(rd_reqs[1].psn == ((rd_reqs[0].psn + miss) & 0xffffff) &&
	       rd_reqs[1].va == rd_reqs[0].va + off && rd_reqs[1].len == len - off,
	       "resume asked PSN %#x VA +%" PRIu64 " len %u, want PSN %#x VA +%u len %u",
	       rd_reqs[1].psn, rd_reqs[1].va - rd_reqs[0].va, rd_reqs[1].len,
	       (rd_reqs[0].psn + miss) & 0xffffff, off, len - off);
	VERIFY(stat_a("read_resumes") == rs0 + 1, "read_resumes did not count it");
	VERIFY(stat_b("read_resp_sent") - sent0 <= 2 * npkt - miss,
	       "the responder sent %" PRIu64 " responses, more than %u",
	       stat_b("read_resp_sent") - sent0, 2 * npkt - miss);
	printf("ok READ resumed from response %u of %u, %s\n", miss, npkt, name);
	return 0;
}

/*
 * A responder that answers every READ but the head one (its only response
 * is always lost): the answers to the second READ show the peer alive, so
 * they hold the loss timer back, but every resend still spends a retry and
 * the head READ must end in retry exceeded, the second flushed, in bounded
 * time, not loop. @p sampled: after WRITEs that gave the QP RTT samples,
 * so that RTO resends (which spend no retry) run too: the IBA timeout
 * still runs from the last progress, not from the last answer.
 */
static int
test_head_never_answered(bool sampled)
{
	struct rnic_sge sges[2] = {
		{ (uintptr_t)A.buf, 512, rnic_mr_lkey(A.mr) },
		{ (uintptr_t)A.buf + 4096, 2000, rnic_mr_lkey(A.mr) },
	};
	struct rnic_send_wr wrs[2], *bad;
	struct rnic_wc wc[2];
	uint64_t te0 = stat_a("timer_expired");
	int hits;

	VERIFY(fresh_pair(3) == 0, "setup");
	for (uint32_t i = 0; sampled && i < 4; i++)
		VERIFY(run_op(RNIC_WR_RDMA_WRITE, 64, 700 + i, RNIC_WC_SUCCESS) == 0, "WRITE");
	te0 = stat_a("timer_expired");
	for (int i = 0; i < 2; i++) {
		wrs[i] = (struct rnic_send_wr){ .wr_id = 300 + i, .sg_list = &sges[i],
			.num_sge = 1, .opcode = RNIC_WR_RDMA_READ,
			.send_flags = RNIC_SEND_SIGNALED, .next = i == 0 ? &wrs[1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + i * 4096;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	set_rule(RNIC_IMPAIR_RX, OPC(READ_RESP_ONLY), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_RX].all = 1;
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 2) == 2, "the QP did not give up");
	VERIFY(wc[0].wr_id == 300 && wc[0].status == RNIC_WC_RETRY_EXC_ERR, "first: %s",
	       rnic_wc_status_str(wc[0].status));
	VERIFY(wc[1].wr_id == 301 && wc[1].status == RNIC_WC_WR_FLUSH_ERR, "second: %s",
	       rnic_wc_status_str(wc[1].status));
	hits = rules[RNIC_IMPAIR_RX].hits;
	set_rule(RNIC_IMPAIR_RX, -1, 0, 0);
	VERIFY(hits >= 4, "only %d answers lost: retry count 3 means 4 tries", hits);
	printf("ok head READ never answered, later one answered%s: retry exceeded after %d "
	       "tries, %" PRIu64 " timer expiries\n", sampled ? " (RTT sampled)" : "", hits,
	       stat_a("timer_expired") - te0);
	return 0;
}

/*
 * A coalesced ACK lost: four WRITEs posted at once are answered by fewer
 * ACKs than messages (the responder coalesces per burst); the first ACK is
 * dropped, and the later one (or the timer) must complete all four.
 */
static int
test_coalesced_ack_lost(void)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 2000, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wrs[4], *bad;
	struct rnic_wc wc[4];
	uint64_t acks0 = stat_a("acks_rcvd");

	VERIFY(fresh_pair(7) == 0, "setup");
	fill(A.buf, 2000, 77);
	for (int i = 0; i < 4; i++) {
		wrs[i] = (struct rnic_send_wr){ .wr_id = 90 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED,
			.next = i < 3 ? &wrs[i + 1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + i * 2048;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	set_rule(RNIC_IMPAIR_RX, OPC(ACK), 1, RNIC_IMPAIR_DROP);
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 4) == 4, "completions");
	for (int i = 0; i < 4; i++) {
		VERIFY(wc[i].wr_id == 90u + i && wc[i].status == RNIC_WC_SUCCESS, "wc %d: %s", i,
		       rnic_wc_status_str(wc[i].status));
		VERIFY(memcmp(A.buf, B.buf + i * 2048, 2000) == 0, "data %d", i);
	}
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "rule");
	/* Fewer ACKs arrived than messages completed: one covered several. */
	VERIFY(stat_a("acks_rcvd") - acks0 >= 1 && stat_a("acks_rcvd") - acks0 < 4,
	       "acks %" PRIu64, stat_a("acks_rcvd") - acks0);
	printf("ok coalesced ACK lost (%" PRIu64 " ACKs received for 4 messages)\n",
	       stat_a("acks_rcvd") - acks0);
	return 0;
}

/*
 * A WQE that fails while TX is still segmenting it (a 600-packet WRITE
 * stalls at the 512-packet window, the peer is gone, retries run out):
 * exactly one RETRY_EXC_ERR for it, one flush for the next, nothing more.
 * (The flush once wrapped sq_done past the fetch index: 2^32 completions.)
 */
static int
test_fail_mid_wqe(void)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 600 * 1024, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wrs[2], *bad;
	struct rnic_wc wc[4];
	int n = 0;

	VERIFY(fresh_pair(1) == 0, "setup");
	for (int i = 0; i < 2; i++) {
		wrs[i] = (struct rnic_send_wr){ .wr_id = 80 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = RNIC_WR_RDMA_WRITE, .send_flags = RNIC_SEND_SIGNALED,
			.next = i == 0 ? &wrs[1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	b_alive = false;
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_FIRST), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_TX].all = 1;
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	n = wait_wc(A.cq, wc, 2);
	VERIFY(n == 2, "got %d completions", n);
	VERIFY(wc[0].wr_id == 80 && wc[0].status == RNIC_WC_RETRY_EXC_ERR, "first: %s",
	       rnic_wc_status_str(wc[0].status));
	VERIFY(wc[1].wr_id == 81 && wc[1].status == RNIC_WC_WR_FLUSH_ERR, "second: %s",
	       rnic_wc_status_str(wc[1].status));
	for (int i = 0; i < 5000; i++)
		poll_all();
	VERIFY(rnic_poll_cq(A.cq, 4, wc) == 0, "extra completions after the flush");
	VERIFY(!rnic_cq_overflowed(A.cq), "CQ overflowed");
	b_alive = true;
	for (int i = 0; i < 1000; i++)
		poll_all();
	printf("ok WQE failed mid-transmission: one error, one flush, nothing more\n");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Selective repeat (issue 17, doc/reliability.md)                      */
/* ------------------------------------------------------------------ */

/* rto_pair with selective repeat on both QPs: RTT samples, 1 s IBA
 * timeout (an expiry of it means recovery failed). */
static int
sr_pair(void)
{
	int rc;

	sr_on = true;
	rc = rto_pair();
	sr_on = false;
	return rc;
}

struct sr_counts { uint64_t rexmit, sr_resent, rto, te, placed, dup, sacks; };

static void
sr_counts(struct sr_counts *c)
{
	c->rexmit = stat_a("tx_retransmits");
	c->sr_resent = stat_a("sr_resent");
	c->rto = stat_a("rto_expired");
	c->te = stat_a("timer_expired");
	c->placed = stat_b("sr_placed");
	c->dup = stat_b("sr_dup");
	c->sacks = stat_a("sr_sacks_rcvd");
}

/*
 * @p n WRITEs of 64 bytes in one post list over SR QPs, the WRITE Onlys
 * numbered in @p drops (bit i: the (i+1)th on the wire, resends counted)
 * lost. Every one completes, in order, data in place, never through the
 * IBA timeout; *d gets what the counters moved by.
 */
static int
sr_writes(const char *name, unsigned int n, uint64_t drops, int action,
	  struct sr_counts *d)
{
	struct sr_counts c0, c1;

	VERIFY(sr_pair() == 0, "%s: setup", name);
	sr_counts(&c0);
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 0, action);
	rules[RNIC_IMPAIR_TX].nths = drops;
	VERIFY(post_writes(n, 3000) == 0, "%s: post", name);
	VERIFY(writes_done(n, 3000) == 0, "%s: the %u WRITEs", name, n);
	VERIFY(rules[RNIC_IMPAIR_TX].hits == __builtin_popcountll(drops),
	       "%s: the rule fired %d times", name, rules[RNIC_IMPAIR_TX].hits);
	sr_counts(&c1);
	VERIFY(c1.te == c0.te, "%s: recovered by the 1 s local ACK timeout", name);
	*d = (struct sr_counts){ c1.rexmit - c0.rexmit, c1.sr_resent - c0.sr_resent,
				 c1.rto - c0.rto, 0, c1.placed - c0.placed, c1.dup - c0.dup,
				 c1.sacks - c0.sacks };
	return 0;
}

/*
 * Holes with packets after them: each is resent once on the SACK, and
 * only the holes are (go-back-N resends everything after the first).
 * The packets after a hole were placed ahead. An RTO that a descheduled
 * test thread lets expire may add resends of its own: the exact count is
 * checked when none did.
 */
static int
test_sr_holes(const char *name, unsigned int n, uint64_t drops)
{
	unsigned int holes = (unsigned int)__builtin_popcountll(drops);
	struct sr_counts d;

	if (sr_writes(name, n, drops, RNIC_IMPAIR_DROP, &d) != 0)
		return -1;
	VERIFY(d.sacks > 0 && d.placed > 0, "%s: no SACK (%" PRIu64 ") or nothing placed "
	       "ahead (%" PRIu64 ")", name, d.sacks, d.placed);
	VERIFY(d.sr_resent == holes, "%s: %" PRIu64 " resent on SACKs, want %u", name,
	       d.sr_resent, holes);
	VERIFY(d.rto > 0 || d.rexmit == holes, "%s: %" PRIu64 " retransmissions, want %u",
	       name, d.rexmit, holes);
	printf("ok SR %s: %" PRIu64 " resent, %" PRIu64 " placed ahead, %" PRIu64 " SACKs\n",
	       name, d.rexmit, d.placed, d.sacks);
	return 0;
}

/* The last packet lost: no SACK can show it, the RTO resends it (not the
 * 1 s IBA timeout), and it alone. */
static int
test_sr_tail(void)
{
	struct sr_counts d;

	if (sr_writes("the last packet lost", 8, 1u << 7, RNIC_IMPAIR_DROP, &d) != 0)
		return -1;
	VERIFY(d.rto > 0, "the RTO did not fire");
	VERIFY(d.sr_resent == 0, "%" PRIu64 " resent on a SACK", d.sr_resent);
	printf("ok SR the last packet lost: resent after %" PRIu64 " RTO expiries\n", d.rto);
	return 0;
}

/* A hole's resend lost too: no later packet draws another SACK; the RTO
 * resends what no SACK covered. */
static int
test_sr_lost_resend(void)
{
	struct sr_counts d;

	/* the 2nd, and the 9th WRITE Only on the wire: its resend */
	if (sr_writes("a resend lost", 8, (1u << 1) | (1u << 8), RNIC_IMPAIR_DROP, &d) != 0)
		return -1;
	VERIFY(d.sr_resent >= 1 && d.rto > 0, "SACK resends %" PRIu64 ", RTO expiries %"
	       PRIu64, d.sr_resent, d.rto);
	printf("ok SR a lost resend: recovered by the RTO (%" PRIu64 " retransmissions)\n",
	       d.rexmit);
	return 0;
}

/* The SACK lost: the hole and what follows it wait for the RTO, then the
 * resend is answered. */
static int
test_sr_lost_sack(void)
{
	struct sr_counts c0, c1;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 2, RNIC_IMPAIR_DROP);
	set_rule(RNIC_IMPAIR_RX, OPC(ACK), 1, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_RX].sack_only = true;
	VERIFY(post_writes(8, 3100) == 0, "post");
	VERIFY(writes_done(8, 3100) == 0, "the 8 WRITEs");
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 1 && rules[RNIC_IMPAIR_RX].hits == 1,
	       "the rules fired %d and %d times", rules[RNIC_IMPAIR_TX].hits,
	       rules[RNIC_IMPAIR_RX].hits);
	sr_counts(&c1);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	VERIFY(c1.rto > c0.rto || c1.sr_resent > c0.sr_resent,
	       "neither the RTO nor a later SACK resent the hole");
	printf("ok SR the SACK lost (%d SACKs seen after it, %" PRIu64 " RTO)\n",
	       rules[RNIC_IMPAIR_RX].seen - 1, c1.rto - c0.rto);
	return 0;
}

/*
 * Reordering, no loss: one WRITE held back on the link (for 2 later
 * packets, or to the end of the burst) reaches the responder after ones
 * behind it, which are placed ahead and SACKed; fewer than 3 packets
 * overtook it, so it is not resent on the SACK.
 */
static int
test_sr_reorder(unsigned int nth, uint16_t depth)
{
	struct rnic_impair_params p, saved;
	struct sr_counts d;
	int rc;

	VERIFY(rnic_impair_get_params(imp_port, RNIC_IMPAIR_TX, &p) == 0, "params");
	saved = p;
	p.reorder_depth = depth;
	VERIFY(rnic_impair_set_params(imp_port, RNIC_IMPAIR_TX, &p) == 0, "params");
	rc = sr_writes("reorder", 8, 1ull << (nth - 1), RNIC_IMPAIR_DELAY, &d);
	rnic_impair_set_params(imp_port, RNIC_IMPAIR_TX, &saved);
	if (rc != 0)
		return -1;
	VERIFY(d.placed > 0, "nothing arrived ahead of the held packet");
	VERIFY(d.sr_resent == 0, "%" PRIu64 " spurious resends on a SACK", d.sr_resent);
	VERIFY(d.rto > 0 || d.rexmit == 0, "%" PRIu64 " retransmissions", d.rexmit);
	printf("ok SR WRITE %u of 8 held for %u packets: %" PRIu64 " placed ahead, no resend\n",
	       nth, depth, d.placed);
	return 0;
}

/* A hole, and a packet after it duplicated on the link: the copy is
 * recognised (sr_dup), placed once, the hole alone resent. */
/*
 * WRITEs to the same bytes, the first one lost: the later ones are placed
 * ahead, then the first is resent and executed. IBA orders the WRITEs of
 * a QP, so the last one's bytes must be what stays (the resend must not
 * overwrite bytes a later, already placed, WRITE wrote).
 */
static int
test_sr_overlap(void)
{
	static struct rnic_send_wr wrs[8];
	static struct rnic_sge sges[8];
	struct rnic_send_wr *bad;
	struct rnic_wc wc[8];
	struct sr_counts c0, c1;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1, RNIC_IMPAIR_DROP);
	fill(A.buf, 64 * 8, 3300);
	memset(B.buf, 0, 128);
	for (unsigned int i = 0; i < 8; i++) {
		/* 64 bytes each; the odd ones half over the even ones' target */
		sges[i] = (struct rnic_sge){ (uintptr_t)A.buf + 64 * i, 64, rnic_mr_lkey(A.mr) };
		wrs[i] = (struct rnic_send_wr){ .wr_id = 3300 + i, .sg_list = &sges[i],
			.num_sge = 1, .opcode = RNIC_WR_RDMA_WRITE,
			.send_flags = RNIC_SEND_SIGNALED, .next = i + 1 < 8 ? &wrs[i + 1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + (i & 1) * 32;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 8) == 8, "completions");
	for (unsigned int i = 0; i < 8; i++)
		VERIFY(wc[i].wr_id == 3300 + i && wc[i].status == RNIC_WC_SUCCESS, "WR %u: %s", i,
		       rnic_wc_status_str(wc[i].status));
	sr_counts(&c1);
	VERIFY(c1.placed > c0.placed, "nothing was placed ahead of the hole");
	/* B[0..32) from WRITE 6 (its first half), B[32..96) from WRITE 7 */
	VERIFY(memcmp(B.buf, A.buf + 64 * 6, 32) == 0,
	       "bytes 0..31 are not the last WRITE's to them (a resent earlier WRITE won)");
	VERIFY(memcmp(B.buf + 32, A.buf + 64 * 7, 64) == 0,
	       "bytes 32..95 are not the last WRITE's to them");
	printf("ok SR overlapping WRITEs, the first lost: the last one's bytes stay\n");
	return 0;
}

static int
test_sr_dup_ahead(void)
{
	struct sr_counts c0, c1;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 2, RNIC_IMPAIR_DROP);
	rules[RNIC_IMPAIR_TX].dup_nths = 1u << 4;   /* the 5th */
	VERIFY(post_writes(8, 3200) == 0, "post");
	VERIFY(writes_done(8, 3200) == 0, "the 8 WRITEs");
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 2, "the rule fired %d times",
	       rules[RNIC_IMPAIR_TX].hits);
	sr_counts(&c1);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	VERIFY(c1.dup - c0.dup == 1, "%" PRIu64 " duplicates ahead recognised",
	       c1.dup - c0.dup);
	VERIFY(c1.sr_resent - c0.sr_resent == 1, "%" PRIu64 " resent on SACKs",
	       c1.sr_resent - c0.sr_resent);
	printf("ok SR a duplicated packet ahead of a hole: placed once, the hole alone resent\n");
	return 0;
}

struct sr_read_counts { uint64_t resumes, rexmit, rto, te; };

static void
sr_read_counts(struct sr_read_counts *c)
{
	c->resumes = stat_a("read_resumes");
	c->rexmit = stat_a("tx_retransmits");
	c->rto = stat_a("rto_expired");
	c->te = stat_a("timer_expired");
}

/*
 * READs over SR QPs, each of @p len bytes into its own place, posted in
 * one list; the READ response of opcode @p opc numbered @p nth (on the
 * wire) lost. All complete, data in place, never through the 1 s IBA
 * timeout; *d: the counters' moves.
 */
static int
sr_reads(const char *name, unsigned int n, uint32_t len, int opc, int nth,
	 struct sr_read_counts *d)
{
	static struct rnic_send_wr wrs[4];
	static struct rnic_sge sges[4];
	struct sr_read_counts c0, c1;
	struct rnic_send_wr *bad;
	struct rnic_wc wc[4];

	VERIFY(sr_pair() == 0, "%s: setup", name);
	sr_read_counts(&c0);
	set_rule(RNIC_IMPAIR_RX, opc, nth, RNIC_IMPAIR_DROP);
	fill(B.buf, (size_t)len * n, 51);
	memset(A.buf, 0, (size_t)len * n);
	for (unsigned int i = 0; i < n; i++) {
		sges[i] = (struct rnic_sge){ (uintptr_t)A.buf + (size_t)len * i, len,
					     rnic_mr_lkey(A.mr) };
		wrs[i] = (struct rnic_send_wr){ .wr_id = 5000 + i, .sg_list = &sges[i],
			.num_sge = 1, .opcode = RNIC_WR_RDMA_READ, .send_flags = RNIC_SEND_SIGNALED,
			.next = i + 1 < n ? &wrs[i + 1] : NULL };
		wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + (size_t)len * i;
		wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	}
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "%s: post", name);
	VERIFY(wait_wc(A.cq, wc, (int)n) == (int)n, "%s: completions", name);
	for (unsigned int i = 0; i < n; i++)
		VERIFY(wc[i].wr_id == 5000 + i && wc[i].status == RNIC_WC_SUCCESS, "%s: WR %u: %s",
		       name, i, rnic_wc_status_str(wc[i].status));
	VERIFY(memcmp(A.buf, B.buf, (size_t)len * n) == 0, "%s: data differs", name);
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "%s: the rule fired %d times", name,
	       rules[RNIC_IMPAIR_RX].hits);
	sr_read_counts(&c1);
	VERIFY(c1.te == c0.te, "%s: recovered by the 1 s local ACK timeout", name);
	*d = (struct sr_read_counts){ c1.resumes - c0.resumes, c1.rexmit - c0.rexmit,
				      c1.rto - c0.rto, 0 };
	return 0;
}

/* A READ's 3rd response (of 8) lost: the 4th..8th go in place as they
 * come, and the hole alone is asked for, once (go-back-N asks for the
 * 3rd..8th again). An RTO a descheduled thread lets expire may add one
 * ask each. */
static int
test_sr_read_hole(void)
{
	struct sr_read_counts d;

	if (sr_reads("a READ response in the middle lost", 1, 8000, OPC(READ_RESP_MIDDLE), 2,
		     &d) != 0)
		return -1;
	VERIFY(d.resumes >= 1 && d.rexmit <= 1 + d.rto,
	       "%" PRIu64 " asked again, %" PRIu64 " retransmissions, %" PRIu64 " RTO",
	       d.resumes, d.rexmit, d.rto);
	printf("ok SR a READ's 3rd response lost: the hole alone asked again (%" PRIu64
	       " retransmissions)\n", d.rexmit);
	return 0;
}

/* A READ's last response lost: nothing after it can show the hole; the
 * RTO (READs time the round trip with SR) asks for it, not the 1 s IBA
 * timeout. */
static int
test_sr_read_tail(void)
{
	struct sr_read_counts d;

	if (sr_reads("a READ's last response lost", 1, 8000, OPC(READ_RESP_LAST), 1, &d) != 0)
		return -1;
	VERIFY(d.rto > 0 && d.resumes >= 1, "RTO %" PRIu64 ", asked again %" PRIu64, d.rto,
	       d.resumes);
	printf("ok SR a READ's last response lost: asked again after the RTO\n");
	return 0;
}

/* Two READs, the first one's 2nd response lost: the second's responses
 * (which show the first's stream is over) go in place, the first's hole
 * is asked for, and neither READ is asked for whole. */
static int
test_sr_read_two(void)
{
	struct sr_read_counts d;

	if (sr_reads("two READs, a response of the first lost", 2, 6000, OPC(READ_RESP_MIDDLE),
		     1, &d) != 0)
		return -1;
	/* Every retransmission a hole asked for: the second READ, whose
	 * responses were all in place, is never asked for again (it was,
	 * whole, after an RTO, when completing the first consumed its map). */
	VERIFY(d.resumes >= 1 && d.rexmit == d.resumes,
	       "%" PRIu64 " asked again, %" PRIu64 " retransmissions, %" PRIu64 " RTO",
	       d.resumes, d.rexmit, d.rto);
	printf("ok SR two READs, the first's hole asked for alone (%" PRIu64
	       " retransmissions, %" PRIu64 " asked again, %" PRIu64 " RTO)\n", d.rexmit, d.resumes,
	       d.rto);
	return 0;
}

/*
 * SR: FetchAdd, 4 WRITEs, FetchAdd, 2 WRITEs in one post list; the first
 * atomic's answer lost. The second's answer shows it: that answer is
 * kept (its result written, the WQE completed in turn), and only the
 * first atomic is asked again - the WRITEs between were executed (their
 * place in the PSNs says so) and the second atomic was answered. Every
 * WQE completes in order, each atomic ran once. Go-back-N resent all 7.
 */
static int
sr_atomic_answer_try(bool *no_rto)
{
	uint64_t *target = (uint64_t *)(B.buf + 8192), *res = (uint64_t *)(A.buf + 8192);
	static const enum rnic_wr_opcode ops[8] = {
		RNIC_WR_ATOMIC_FETCH_AND_ADD, RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE,
		RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE, RNIC_WR_ATOMIC_FETCH_AND_ADD,
		RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE,
	};
	struct rnic_send_wr wrs[8], *bad;
	struct rnic_sge sges[8];
	struct rnic_wc wc[8];
	struct sr_counts c0, c1;
	uint64_t early0;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	early0 = stat_a("sr_early_answers");
	*target = 7000;
	res[0] = res[1] = 0;
	fill(A.buf, 64 * 8, 77);
	memset(B.buf, 0, 64 * 8);
	for (int i = 0, k = 0; i < 8; i++) {
		bool atomic = ops[i] == RNIC_WR_ATOMIC_FETCH_AND_ADD;

		sges[i] = atomic ? (struct rnic_sge){ (uintptr_t)&res[k++], 8, rnic_mr_lkey(A.mr) }
				 : (struct rnic_sge){ (uintptr_t)A.buf + 64 * i, 64,
						      rnic_mr_lkey(A.mr) };
		wrs[i] = (struct rnic_send_wr){ .wr_id = 700 + i, .sg_list = &sges[i], .num_sge = 1,
			.opcode = ops[i], .send_flags = RNIC_SEND_SIGNALED,
			.next = i < 7 ? &wrs[i + 1] : NULL };
		if (atomic) {
			wrs[i].wr.atomic.remote_addr = (uintptr_t)target;
			wrs[i].wr.atomic.rkey = rnic_mr_rkey(B.mr);
			wrs[i].wr.atomic.compare_add = 1;
		} else {
			wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + 64 * i;
			wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
		}
	}
	set_rule(RNIC_IMPAIR_RX, OPC(ATOMIC_ACK), 1, RNIC_IMPAIR_DROP);
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 8) == 8, "completions");
	for (int i = 0; i < 8; i++)
		VERIFY(wc[i].wr_id == 700u + i && wc[i].status == RNIC_WC_SUCCESS, "WR %d: %s", i,
		       rnic_wc_status_str(wc[i].status));
	VERIFY(res[0] == 7000 && res[1] == 7001, "fetched %" PRIu64 ", %" PRIu64, res[0], res[1]);
	VERIFY(*target == 7002, "target %" PRIu64 ", want 7002 (each atomic once)", *target);
	for (int i = 0; i < 8; i++)
		VERIFY(ops[i] != RNIC_WR_RDMA_WRITE || memcmp(A.buf + 64 * i, B.buf + 64 * i, 64) == 0,
		       "WRITE %d: data differs", i);
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "the rule fired %d times", rules[RNIC_IMPAIR_RX].hits);
	sr_counts(&c1);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	VERIFY(stat_a("sr_early_answers") - early0 == 1, "%" PRIu64 " answers kept ahead, want 1",
	       stat_a("sr_early_answers") - early0);
	*no_rto = c1.rto == c0.rto;
	if (!*no_rto)
		return 0;
	VERIFY(c1.rexmit - c0.rexmit == 1, "%" PRIu64 " retransmissions, want 1 (the first "
	       "atomic)", c1.rexmit - c0.rexmit);
	printf("ok SR an atomic's answer lost before a later atomic's: 1 resent, the later "
	       "answer kept, the WRITEs between released when the first completed\n");
	return 0;
}

/* sr_atomic_answer_try until one try had no RTO (the RTO of a descheduled
 * test thread may come first; at most 3 tries): without the release of
 * what the responder executed after the first atomic, every try waits for
 * an RTO to complete the WRITEs after it. */
static int
test_sr_atomic_answer_lost(void)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		bool no_rto = false;

		if (sr_atomic_answer_try(&no_rto) != 0)
			return -1;
		if (no_rto)
			return 0;
	}
	VERIFY(false, "3 tries, each needed an RTO");
	return -1;
}

/*
 * SR: FetchAdd then a 6000-byte READ; the atomic's answer lost. The
 * READ's responses show it: they go in place while the atomic waits (go-
 * back-N dropped them and asked for the READ again), the atomic alone is
 * asked again, and the READ completes from what came, never asked again.
 */
static int
test_sr_atomic_then_read(void)
{
	uint64_t *target = (uint64_t *)(B.buf + 16384), *res = (uint64_t *)(A.buf + 16384);
	struct rnic_sge sges[2] = {
		{ (uintptr_t)res, 8, rnic_mr_lkey(A.mr) },
		{ (uintptr_t)A.buf, 6000, rnic_mr_lkey(A.mr) },
	};
	struct rnic_send_wr wrs[2], *bad;
	struct sr_read_counts c0, c1;
	struct rnic_wc wc[2];

	VERIFY(sr_pair() == 0, "setup");
	sr_read_counts(&c0);
	*target = 9000;
	*res = 0;
	fill(B.buf, 6000, 88);
	memset(A.buf, 0, 6000);
	wrs[0] = (struct rnic_send_wr){ .wr_id = 800, .sg_list = &sges[0], .num_sge = 1,
		.opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD, .send_flags = RNIC_SEND_SIGNALED,
		.next = &wrs[1] };
	wrs[0].wr.atomic.remote_addr = (uintptr_t)target;
	wrs[0].wr.atomic.rkey = rnic_mr_rkey(B.mr);
	wrs[0].wr.atomic.compare_add = 3;
	wrs[1] = (struct rnic_send_wr){ .wr_id = 801, .sg_list = &sges[1], .num_sge = 1,
		.opcode = RNIC_WR_RDMA_READ, .send_flags = RNIC_SEND_SIGNALED };
	wrs[1].wr.rdma.remote_addr = (uintptr_t)B.buf;
	wrs[1].wr.rdma.rkey = rnic_mr_rkey(B.mr);
	set_rule(RNIC_IMPAIR_RX, OPC(ATOMIC_ACK), 1, RNIC_IMPAIR_DROP);
	n_rd_reqs = 0;
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 2) == 2, "completions");
	VERIFY(n_rd_reqs == 1, "%d READ requests on the wire, want 1 (never asked again)",
	       n_rd_reqs);
	for (int i = 0; i < 2; i++)
		VERIFY(wc[i].wr_id == 800u + i && wc[i].status == RNIC_WC_SUCCESS, "WR %d: %s", i,
		       rnic_wc_status_str(wc[i].status));
	VERIFY(*res == 9000 && *target == 9003, "fetched %" PRIu64 ", target %" PRIu64
	       " (want 9000, 9003: the atomic once)", *res, *target);
	VERIFY(memcmp(A.buf, B.buf, 6000) == 0, "READ data differs");
	VERIFY(rules[RNIC_IMPAIR_RX].hits == 1, "the rule fired %d times", rules[RNIC_IMPAIR_RX].hits);
	sr_read_counts(&c1);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	/* The RTO of a descheduled test thread may add asks of its own. */
	VERIFY((c1.rexmit - c0.rexmit == 1 && c1.resumes == c0.resumes) || c1.rto > c0.rto,
	       "%" PRIu64 " retransmissions (want 1, the atomic), the READ asked again %" PRIu64
	       " times (want 0)", c1.rexmit - c0.rexmit, c1.resumes - c0.resumes);
	printf("ok SR an atomic's answer lost before a READ's responses: they stay in place, "
	       "%" PRIu64 " resent\n", c1.rexmit - c0.rexmit);
	return 0;
}

/*
 * SR: 8 WRITEs, the 2nd lost, and its resend (drawn by the SACKs of the
 * 3 packets after it) lost too; as soon as that resend is gone, 8 more
 * WRITEs. Their SACKs show packets sent after the resend held: it is
 * lost (RACK, sr_lost_resends), and the hole goes again at once, not an
 * RTO after the resend. When the RTO's own clock allowed the resend
 * first (a descheduled test thread), the case is tried again, at most
 * 3 times; without the RACK rule no try counts one.
 */
static int
test_sr_resend_lost_rack(void)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t lost0, end;
		struct sr_counts c0, c1;

		VERIFY(sr_pair() == 0, "setup");
		sr_counts(&c0);
		lost0 = stat_a("sr_lost_resends");
		set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 0, RNIC_IMPAIR_DROP);
		rules[RNIC_IMPAIR_TX].nths = (1u << 1) | (1u << 8);
		fill(A.buf, 64 * 16, 3200);
		memset(B.buf, 0, 64 * 16);
		VERIFY(post_writes_from(0, 8, 3200) == 0, "post 8");
		end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
		while (rules[RNIC_IMPAIR_TX].hits < 2 && rte_get_tsc_cycles() < end)
			poll_all();
		VERIFY(rules[RNIC_IMPAIR_TX].hits == 2, "the resend never went: %d drops",
		       rules[RNIC_IMPAIR_TX].hits);
		VERIFY(post_writes_from(8, 8, 3200) == 0, "post 8 more");
		VERIFY(writes_done(16, 3200) == 0, "the 16 WRITEs");
		sr_counts(&c1);
		VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
		if (stat_a("sr_lost_resends") == lost0)
			continue;
		VERIFY(c1.sr_resent - c0.sr_resent == 2, "%" PRIu64 " SACK resends, want 2",
		       c1.sr_resent - c0.sr_resent);
		printf("ok SR a lost resend found lost by packets sent after it: resent again "
		       "before its RTO (try %d, %" PRIu64 " RTO)\n", attempt + 1, c1.rto - c0.rto);
		return 0;
	}
	VERIFY(false, "3 tries, none found the lost resend by the packets sent after it");
	return -1;
}

/*
 * SR: WRITE, READ, FetchAdd, 3 WRITEs, the first WRITE lost. The
 * responder holds the READ and the atomic that came ahead (recorded,
 * executed in order once the hole is filled; they were dropped and had
 * to be sent again), the SACK says so, and the WRITE alone is resent:
 * one READ request on the wire, the atomic executed once.
 */
static int
test_sr_read_atomic_held(void)
{
	static const enum rnic_wr_opcode ops[6] = {
		RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ, RNIC_WR_ATOMIC_FETCH_AND_ADD,
		RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE,
	};
	uint64_t *target = (uint64_t *)(B.buf + 16384), *res = (uint64_t *)(A.buf + 16384);
	struct rnic_send_wr wrs[6], *bad;
	struct rnic_sge sges[6];
	struct rnic_wc wc[6];
	struct sr_counts c0, c1;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	*target = 40;
	*res = 0;
	fill(A.buf, 64 * 6, 91);
	fill(B.buf + 1024, 64, 92);
	memset(B.buf, 0, 64 * 6);
	for (int i = 0; i < 6; i++) {
		wrs[i] = (struct rnic_send_wr){ .wr_id = 900 + i, .sg_list = &sges[i], .num_sge = 1,
			.opcode = ops[i], .send_flags = RNIC_SEND_SIGNALED,
			.next = i < 5 ? &wrs[i + 1] : NULL };
		if (ops[i] == RNIC_WR_ATOMIC_FETCH_AND_ADD) {
			sges[i] = (struct rnic_sge){ (uintptr_t)res, 8, rnic_mr_lkey(A.mr) };
			wrs[i].wr.atomic.remote_addr = (uintptr_t)target;
			wrs[i].wr.atomic.rkey = rnic_mr_rkey(B.mr);
			wrs[i].wr.atomic.compare_add = 2;
		} else if (ops[i] == RNIC_WR_RDMA_READ) {
			sges[i] = (struct rnic_sge){ (uintptr_t)A.buf + 1024, 64, rnic_mr_lkey(A.mr) };
			wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + 1024;
			wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
		} else {
			sges[i] = (struct rnic_sge){ (uintptr_t)A.buf + 64 * i, 64, rnic_mr_lkey(A.mr) };
			wrs[i].wr.rdma.remote_addr = (uintptr_t)B.buf + 64 * i;
			wrs[i].wr.rdma.rkey = rnic_mr_rkey(B.mr);
		}
	}
	set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1, RNIC_IMPAIR_DROP);
	n_rd_reqs = 0;
	VERIFY(rnic_post_send(qa, wrs, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, wc, 6) == 6, "completions");
	for (int i = 0; i < 6; i++)
		VERIFY(wc[i].wr_id == 900u + i && wc[i].status == RNIC_WC_SUCCESS, "WR %d: %s", i,
		       rnic_wc_status_str(wc[i].status));
	for (int i = 0; i < 6; i++)
		VERIFY(ops[i] != RNIC_WR_RDMA_WRITE || memcmp(A.buf + 64 * i, B.buf + 64 * i, 64) == 0,
		       "WRITE %d: data differs", i);
	VERIFY(memcmp(A.buf + 1024, B.buf + 1024, 64) == 0, "READ data differs");
	VERIFY(*res == 40 && *target == 42, "fetched %" PRIu64 ", target %" PRIu64, *res, *target);
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 1, "the rule fired %d times", rules[RNIC_IMPAIR_TX].hits);
	sr_counts(&c1);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	VERIFY(n_rd_reqs == 1, "%d READ requests on the wire, want 1", n_rd_reqs);
	/* an RTO of a descheduled test thread resends the unSACKed hole only */
	VERIFY(c1.rexmit - c0.rexmit == 1 || c1.rto > c0.rto,
	       "%" PRIu64 " retransmissions, want 1 (the lost WRITE)", c1.rexmit - c0.rexmit);
	VERIFY(c1.placed - c0.placed == 5, "%" PRIu64 " placed ahead, want 5 (READ and atomic "
	       "among them)", c1.placed - c0.placed);
	printf("ok SR a READ and an atomic held ahead of a hole: the hole alone resent\n");
	return 0;
}

/* One READ of @p len bytes from B's @p off to A's @p off, signaled. */
static int
post_read(uint64_t id, uint32_t off, uint32_t len)
{
	struct rnic_sge sge = { (uintptr_t)A.buf + off, len, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				   .opcode = RNIC_WR_RDMA_READ, .send_flags = RNIC_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)B.buf + off;
	wr.wr.rdma.rkey = rnic_mr_rkey(B.mr);
	return rnic_post_send(qa, &wr, &bad);
}

/*
 * SR: a 4 KiB READ and a 1 KiB READ; the first's 2nd response lost, so
 * the second's response shows the hole and it is asked again, and that
 * ask (the 3rd READ request on the wire) lost too. Three more READs
 * posted once it is gone are answered while the hole still waits: the
 * responder serves what is asked again before anything newer, so the ask
 * was lost, and it goes again at once (sr_lost_resends), not an RTO after
 * it. Tried again (at most 3 times) when an RTO came first.
 */
static int
test_sr_reask_lost(void)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t lost0, end;
		struct sr_counts c0, c1;
		struct rnic_wc wc[5];

		VERIFY(sr_pair() == 0, "setup");
		sr_counts(&c0);
		lost0 = stat_a("sr_lost_resends");
		fill(B.buf, 8192, 61);
		memset(A.buf, 0, 8192);
		set_rule(RNIC_IMPAIR_RX, OPC(READ_RESP_MIDDLE), 1, RNIC_IMPAIR_DROP);
		set_rule(RNIC_IMPAIR_TX, OPC(READ_REQ), 3, RNIC_IMPAIR_DROP);
		VERIFY(post_read(1000, 0, 4096) == 0 && post_read(1001, 4096, 1024) == 0, "post 2");
		end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
		while (rules[RNIC_IMPAIR_TX].hits < 1 && rte_get_tsc_cycles() < end)
			poll_all();
		VERIFY(rules[RNIC_IMPAIR_TX].hits == 1, "the hole was never asked for");
		for (unsigned int i = 0; i < 3; i++)
			VERIFY(post_read(1002 + i, 5120 + 1024 * i, 1024) == 0, "post READ %u", 2 + i);
		VERIFY(wait_wc(A.cq, wc, 5) == 5, "completions");
		for (int i = 0; i < 5; i++)
			VERIFY(wc[i].wr_id == 1000u + i && wc[i].status == RNIC_WC_SUCCESS, "WR %d: %s",
			       i, rnic_wc_status_str(wc[i].status));
		VERIFY(memcmp(A.buf, B.buf, 8192) == 0, "READ data differs");
		sr_counts(&c1);
		VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
		if (stat_a("sr_lost_resends") == lost0)
			continue;
		printf("ok SR a READ's hole asked again, the ask lost: the answers to READs sent "
		       "after it show it, asked again before its RTO (try %d)\n", attempt + 1);
		return 0;
	}
	VERIFY(false, "3 tries, none found the lost ask by the answers after it");
	return -1;
}

/* A 10 KiB SEND with its 3rd packet lost: the packets after it land in
 * the receive ahead (their SRETH names receive and offset), the hole is
 * resent, the receive completes once with every byte. */
static int
test_sr_send(void)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 10 * 1024, rnic_mr_lkey(A.mr) };
	struct rnic_sge rsge = { (uintptr_t)B.buf, 16 * 1024, rnic_mr_lkey(B.mr) };
	struct rnic_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_recv_wr rwr = { .wr_id = 8, .sg_list = &rsge, .num_sge = 1 };
	struct rnic_send_wr *bad;
	struct rnic_recv_wr *rbad;
	struct sr_counts c0, c1;
	struct rnic_wc wc;

	VERIFY(sr_pair() == 0, "setup");
	sr_counts(&c0);
	set_rule(RNIC_IMPAIR_TX, OPC(SEND_MIDDLE), 2, RNIC_IMPAIR_DROP);
	fill(A.buf, 10 * 1024, 77);
	memset(B.buf, 0, 16 * 1024);
	VERIFY(rnic_post_recv(qb, &rwr, &rbad) == 0, "post_recv");
	VERIFY(rnic_post_send(qa, &wr, &bad) == 0, "post");
	VERIFY(wait_wc(A.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "send completion");
	VERIFY(wait_wc(B.cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS &&
	       wc.byte_len == 10 * 1024 && wc.wr_id == 8, "recv completion");
	VERIFY(memcmp(A.buf, B.buf, 10 * 1024) == 0, "data");
	VERIFY(rnic_poll_cq(B.cq, 1, &wc) == 0, "a second receive completion");
	sr_counts(&c1);
	VERIFY(rules[RNIC_IMPAIR_TX].hits == 1, "the rule fired %d times",
	       rules[RNIC_IMPAIR_TX].hits);
	VERIFY(c1.placed - c0.placed >= 3 && c1.sr_resent - c0.sr_resent == 1,
	       "placed ahead %" PRIu64 ", resent on SACKs %" PRIu64, c1.placed - c0.placed,
	       c1.sr_resent - c0.sr_resent);
	VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
	printf("ok SR a SEND's middle packet lost: %" PRIu64 " packets placed ahead in the "
	       "receive, one resent\n", c1.placed - c0.placed);
	return 0;
}

/*
 * SR: a READ, then 8 WRITEs; the READ's answer and the answer to its
 * first re-ask are lost, and so is the 2nd WRITE. The ACK that covers
 * the 1st WRITE passes the READ (its answer is missing: asked again) and
 * carries the SACK of WRITEs 3-8: the hole is resent on it at once, while
 * the READ still waits (its second re-ask, a lost tail, waits for the
 * RTO). It used to be resent only after that RTO: an ACK that passed a
 * READ or atomic had its SACK ignored (the soak's longest stalls). Tried
 * again (at most 3 times) when an RTO came before the SACK.
 */
static int
test_sr_hole_behind_read(void)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		struct rule *w = &rules[RNIC_IMPAIR_TX];
		struct sr_counts c0, c1;
		struct rnic_wc wc[9];

		VERIFY(sr_pair() == 0, "setup");
		sr_counts(&c0);
		n_rd_reqs = 0;
		fill(B.buf + 32768, 1024, 71);
		memset(A.buf + 32768, 0, 1024);
		fill(A.buf, 64 * 8, 3200);
		memset(B.buf, 0, 64 * 8);
		set_rule(RNIC_IMPAIR_RX, OPC(READ_RESP_ONLY), 0, RNIC_IMPAIR_DROP);
		rules[RNIC_IMPAIR_RX].nths = 3;   /* the 1st and 2nd */
		set_rule(RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 2, RNIC_IMPAIR_DROP);
		w->watch = 9;   /* the 2nd's resend */
		w->watch_rd = -1;
		VERIFY(post_read(3199, 32768, 1024) == 0, "post the READ");
		VERIFY(post_writes_from(0, 8, 3200) == 0, "post the WRITEs");
		VERIFY(wait_wc(A.cq, wc, 9) == 9, "completions");
		for (int i = 0; i < 9; i++)
			VERIFY(wc[i].wr_id == 3199u + i && wc[i].status == RNIC_WC_SUCCESS,
			       "WR %d: wr_id %" PRIu64 " %s", i, wc[i].wr_id,
			       rnic_wc_status_str(wc[i].status));
		VERIFY(memcmp(A.buf + 32768, B.buf + 32768, 1024) == 0, "READ data differs");
		VERIFY(memcmp(A.buf, B.buf, 64 * 8) == 0, "WRITE data differs");
		VERIFY(rules[RNIC_IMPAIR_RX].hits == 2 && w->hits == 1,
		       "the rules fired %d and %d times", rules[RNIC_IMPAIR_RX].hits, w->hits);
		VERIFY(w->watch_rd >= 1, "the hole was never resent");
		sr_counts(&c1);
		VERIFY(c1.te == c0.te, "recovered by the 1 s local ACK timeout");
		if (w->watch_rd <= 2 && w->watch_rto == c0.rto) {
			printf("ok SR a hole behind a READ whose answer is missing: resent on the "
			       "SACK, after READ request %d, before any RTO (try %d)\n",
			       w->watch_rd, attempt + 1);
			return 0;
		}
		printf("# try %d: the hole was resent after READ request %d and %" PRIu64
		       " RTO expiries\n", attempt + 1, w->watch_rd, w->watch_rto - c0.rto);
	}
	VERIFY(false, "3 tries: the hole behind the READ waited for the RTO each time");
	return -1;
}

int
main(int argc, char **argv)
{
	uint16_t pa, pb;
	char args[64];

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	if (rnic_port_ring_pair("lsA", "lsB", 4096, &pa, &pb) != 0)
		return 1;
	snprintf(args, sizeof(args), "port=net_ring_lsA");   /* rte_eth_from_rings prefixes net_ring_ */
	if (rte_vdev_init("net_impair_t0", args) != 0 ||
	    rte_eth_dev_get_port_by_name("net_impair_t0", &imp_port) != 0) {
		printf("cannot create net_impair\n");
		return 1;
	}
	rnic_impair_set_hook(imp_port, RNIC_IMPAIR_TX, hook, &rules[RNIC_IMPAIR_TX]);
	rnic_impair_set_hook(imp_port, RNIC_IMPAIR_RX, hook, &rules[RNIC_IMPAIR_RX]);
	if (side_init(&A, imp_port, 1, A_INFLIGHT) != 0 || side_init(&B, pb, 2, 0) != 0) {
		printf("setup failed\n");
		return 1;
	}
#define RUN(x) do { if ((x) == 0) n_pass++; else n_fail++; } while (0)
	RUN(test_peer_gone());
	RUN(test_fail_mid_wqe());
	RUN(loss_case("first packet of a WRITE lost", RNIC_IMPAIR_TX, OPC(WRITE_FIRST), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_WRITE, 10 * 1024 + 7, false));
	RUN(loss_case("middle packet of a WRITE lost", RNIC_IMPAIR_TX, OPC(WRITE_MIDDLE), 4,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_WRITE, 10 * 1024 + 7, false));
	RUN(loss_case("last packet of a WRITE lost", RNIC_IMPAIR_TX, OPC(WRITE_LAST), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_WRITE, 10 * 1024 + 7, true));
	RUN(loss_case("only packet of a WRITE lost", RNIC_IMPAIR_TX, OPC(WRITE_ONLY), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_WRITE, 512, true));
	RUN(loss_case("final ACK lost", RNIC_IMPAIR_RX, OPC(ACK), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_WRITE, 3000, true));
	RUN(loss_case("READ request lost", RNIC_IMPAIR_TX, OPC(READ_REQ), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_READ, 8000, true));
	RUN(loss_case("READ response First lost", RNIC_IMPAIR_RX, OPC(READ_RESP_FIRST), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_READ, 8000, false));
	RUN(loss_case("READ response Middle lost", RNIC_IMPAIR_RX, OPC(READ_RESP_MIDDLE), 3,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_READ, 8000, false));
	RUN(loss_case("READ response Last lost", RNIC_IMPAIR_RX, OPC(READ_RESP_LAST), 1,
		      RNIC_IMPAIR_DROP, RNIC_WR_RDMA_READ, 8000, true));
	RUN(loss_case("duplicate READ request while responses flow", RNIC_IMPAIR_TX,
		      OPC(READ_REQ), 1, RNIC_IMPAIR_DUP, RNIC_WR_RDMA_READ, 20000, false));
	RUN(test_read_resume(false, OPC(READ_RESP_MIDDLE), 3, 20 * 1024 + 5));
	RUN(test_read_resume(true, OPC(READ_RESP_MIDDLE), 3, 20 * 1024 + 5));
	RUN(test_read_resume(false, OPC(READ_RESP_LAST), 1, 20 * 1024 + 5));
	RUN(test_read_resume(true, OPC(READ_RESP_LAST), 1, 20 * 1024 + 5));
	RUN(test_head_never_answered(false));
	RUN(test_head_never_answered(true));
	RUN(test_coalesced_ack_lost());
	RUN(test_reads_under_loss());
	RUN(test_atomic_once());
	RUN(test_atomic_ack_lost_in_train());
	RUN(test_rnr());
	RUN(test_window());
	RUN(test_cnp());
	RUN(test_tail_loss_rto());
	RUN(test_karn_timer(false, RNIC_WR_RDMA_WRITE, 64, OPC(WRITE_ONLY)));
	RUN(test_karn_timer(false, RNIC_WR_RDMA_WRITE, 3000, OPC(WRITE_LAST)));
	RUN(test_karn_timer(true, RNIC_WR_RDMA_WRITE, 64, OPC(WRITE_ONLY)));
	RUN(test_karn_timer(true, RNIC_WR_RDMA_READ, 64, OPC(READ_REQ)));
	RUN(test_lost_resend());
	RUN(test_renak());
	RUN(test_sr_holes("one hole", 8, 1u << 1));
	RUN(test_sr_holes("three holes", 24, (1u << 2) | (1u << 6) | (1u << 11)));
	RUN(test_sr_tail());
	RUN(test_sr_lost_resend());
	RUN(test_sr_resend_lost_rack());
	RUN(test_sr_lost_sack());
	RUN(test_sr_reorder(2, 2));
	RUN(test_sr_reorder(7, 4));
	RUN(test_sr_dup_ahead());
	RUN(test_sr_overlap());
	RUN(test_sr_send());
	RUN(test_sr_read_hole());
	RUN(test_sr_read_tail());
	RUN(test_sr_read_two());
	RUN(test_sr_atomic_answer_lost());
	RUN(test_sr_atomic_then_read());
	RUN(test_sr_read_atomic_held());
	RUN(test_sr_reask_lost());
	RUN(test_sr_hole_behind_read());
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
