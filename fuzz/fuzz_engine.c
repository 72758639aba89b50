/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine fixture of fuzz_responder and fuzz_requester.
 *
 * One softrnic device lives on port A of an in-process ring pair for the
 * whole run (EAL is initialised once); the harness owns port B, injects
 * frames there with rte_eth_tx_burst and polls the engine by hand
 * (rnic_dev_poll_tx/rx/timer) until it is quiet, as test/responder/harness.c
 * does. Three QPs: RC 0x11, UC 0x12, UD 0x13, peers 0x22/0x23/-.
 *
 * Memory: one arena mapped at a fixed VA (so inputs are reproducible) holds
 * four MRs with canary gaps around them:
 *   T  4096 B  local write + remote write/read/atomic (every QP may write)
 *   RO 1024 B  remote read only: no byte may ever change
 *   R  16 receive slots of 512 B, local write only; a receive's two SGEs
 *      cover [32,224) and [256,480) of its slot, the rest must not change
 *   L  4096 B  the requester's local buffers: sources must not change,
 *      READ and atomic targets may
 * Before each input the arena is refilled with a fixed pattern; after it,
 * every byte outside what was granted (T, posted receive SGEs, READ/atomic
 * target SGEs) must still hold the pattern.
 *
 * Every input starts from the same state: the QPs go RESET -> INIT -> RTR
 * -> RTS, SEND_WITH_INV's invalidations are undone, receives are posted
 * (RC 4, UC 2, UD 2). The RC QP has selective repeat (RNIC_QP_SR: SRETHs,
 * SACKs, placement ahead, READ responses in any order) when the input's
 * length is odd, go-back-N when even: both modes meet every input. The input is a list of records; at its end every QP
 * is moved to Error and the engine polled until quiet, so every posted
 * receive and send WR must have completed exactly once, in order, with a
 * status in the enum; then the QPs are reset and both mbuf pools (the
 * engine's and the harness's) must be back at their start counts.
 *
 * Every frame the engine sends is parsed (ICRC checked): it must be a valid
 * RC frame from the engine's addresses to the RC peer QP (UC/UD QPs never
 * send here), and in responder mode a response.
 *
 * Record format (repeated until the input ends, at most 64 records):
 *   ctl0  bits 0-1: QP (0 RC, 1 UC, 2 UD, 3 keep the fuzzer's dest QPN)
 *         bit 2: set the opcode's transport bits to the QP's
 *         bit 3: tidy BTH: TVer 0, P_Key 0xFFFF, length rounded up to 4,
 *                pad count no larger than the payload room
 *         bit 4: patch keys: RETH/AtomicETH VA+rkey into one of the MRs
 *                (low 2 bits of the rkey pick T/RO/R, 3 = leave raw),
 *                IETH rkey likewise, DETH Q_Key to the UD QP's, and a
 *                WRITE's SRETH (BTH SR bit) as its RETH
 *         bit 5: post one more receive on the QP first
 *         bit 6: poll the engine until quiet after this frame
 *         bit 7: corrupt the ICRC
 *   ctl1  bit 0: PSN relative: PSN = base + (int8)byte 11 of BTH, base the
 *                QP's expected PSN for requests, the RC QP's first send
 *                PSN for responses
 *   len   two bytes, little endian, & 0x3ff: the BTH+ext+payload bytes
 *   body  len bytes (fewer if the input ends): BTH, extended headers,
 *         payload; the harness adds Eth/IPv4/UDP before and the ICRC after
 * Requester mode first reads one byte n (1 + n % 6 WRs) and one byte per WR
 * choosing it from a menu (see wr_menu) and posts them on the RC QP.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "rnic_wire.h"
#include "rnic_core.h"
#include "rnic_verbs.h"
#include "fuzz_common.h"
#include "fuzz_engine.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static const uint8_t ENGINE_MAC[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t PEER_MAC[6] = { 0x02, 0, 0, 0, 0, 0x01 };
#define ENGINE_IP RTE_IPV4(10, 0, 0, 2)
#define PEER_IP RTE_IPV4(10, 0, 0, 1)

enum { Q_RC, Q_UC, Q_UD, NQ };
static const uint32_t QPN[NQ] = { 0x11, 0x12, 0x13 };
static const uint32_t PEER_QPN[NQ] = { 0x22, 0x23, 0 };
#define UD_QKEY 0x11111111u
#define RQ_PSN0 0xfffff0u     /* responders start just before the wrap */
#define SQ_PSN0 0xfffffau     /* so does the RC requester */

/* The arena. */
#define ARENA_VA  0x300000000000ull
#define ARENA_LEN 0x5000u
#define OFF_T     0x0100u
#define LEN_T     4096u
#define OFF_RO    0x1200u
#define LEN_RO    1024u
#define OFF_R     0x1700u
#define SLOT      512u
#define NSLOTS    16u
#define LEN_R     (SLOT * NSLOTS)
#define OFF_L     0x3800u
#define LEN_L     4096u
#define RSGE0_OFF 32u
#define RSGE0_LEN 192u
#define RSGE1_OFF 256u
#define RSGE1_LEN 224u

#define MAX_RECORDS 64
#define MAX_BODY 1024u
#define MAX_WRS 6
#define QUIET_ITERS 3
#define MAX_ITERS 4000
#define NSTATUS (RNIC_WC_GENERAL_ERR + 1)

struct fifo {
	uint64_t id[32];
	unsigned int head, tail;
};

static struct {
	bool ready;
	struct rte_mempool *pool, *dev_pool;
	unsigned int pool_start, dev_pool_start;
	uint16_t port_eng, port_test;
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *scq, *rcq;
	struct rnic_qp *qp[NQ];
	struct rnic_mr *mr_t, *mr_ro, *mr_r, *mr_l;
	uint8_t *arena;
	uint8_t pattern[ARENA_LEN];
	uint8_t grant[ARENA_LEN];
	/* per input */
	uint64_t gen;
	enum fz_mode mode;
	unsigned int next_slot;
	struct fifo rq[NQ];
	struct fifo sq;
	uint8_t sq_wc_opcode[32];   /* expected WC opcode, by sq fifo position */
	uint64_t out_frames;
	bool verbose;               /* FZ_VERBOSE=1: counters per input */
	bool rc_sr;                 /* the RC QP has selective repeat */
	struct rnic_dev_stats last;
} F;

static uint8_t frame_buf[2048];

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static int
port_test_setup(uint16_t p)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(p, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL, F.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p);
	return rc;
}

static struct rnic_mr *
reg(uint32_t off, uint32_t len, int access)
{
	struct rnic_mr *mr = rnic_reg_mr(F.pd, F.arena + off, len, access);

	FZ_CHECK(mr != NULL, "reg_mr: %s", rte_strerror(rte_errno));
	return mr;
}

static void
qp_to_rts(int q)
{
	struct rnic_qp *qp = F.qp[q];
	struct rnic_qp_attr a;
	int mask, rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RESET;
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	FZ_CHECK(rc == 0, "QP 0x%x to Reset: %d", QPN[q], rc);

	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	a.qkey = UD_QKEY;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC;
	mask = RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
	       (q == Q_UD ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS);
	rc = rnic_modify_qp(qp, &a, mask);
	FZ_CHECK(rc == 0, "QP 0x%x to Init: %d", QPN[q], rc);

	a.qp_state = RNIC_QPS_RTR;
	mask = RNIC_QP_STATE;
	if (q != Q_UD) {
		a.path_mtu = RNIC_MTU_256;
		a.dest_qp_num = PEER_QPN[q];
		a.rq_psn = RQ_PSN0;
		memcpy(a.ah_attr.dmac, PEER_MAC, 6);
		a.ah_attr.dip = rte_cpu_to_be_32(PEER_IP);
		mask |= RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN;
		if (q == Q_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			a.sr = F.rc_sr;
			mask |= RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER | RNIC_QP_SR;
		}
	}
	rc = rnic_modify_qp(qp, &a, mask);
	FZ_CHECK(rc == 0, "QP 0x%x to RTR: %d", QPN[q], rc);

	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = SQ_PSN0;
	mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN;
	if (q == Q_RC) {
		/* No loss timer (0 = infinite): the wall clock must not decide
		 * what an input does. RNR waits still use the wheel. */
		a.timeout = 0;
		a.retry_cnt = 3;
		a.rnr_retry = 2;
		a.max_rd_atomic = 4;
		mask |= RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
			RNIC_QP_MAX_QP_RD_ATOMIC;
	}
	rc = rnic_modify_qp(qp, &a, mask);
	FZ_CHECK(rc == 0, "QP 0x%x to RTS: %d", QPN[q], rc);
}

void
fz_engine_init(void)
{
	static char *eal_argv[] = {
		"fuzz", "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
		"--log-level=*:error", "--no-telemetry", "-l", "0", NULL,
	};
	struct rnic_dev_attr da;
	struct rnic_qp_init_attr ia;
	char name[RTE_MEMPOOL_NAMESIZE];
	void *p;
	int rc;

	if (F.ready)
		return;
	rc = rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv);
	FZ_CHECK(rc >= 0, "EAL init: %s", rte_strerror(rte_errno));
	F.pool = rte_pktmbuf_pool_create("fz_pool", 1023, 0, 0,
					 RTE_PKTMBUF_HEADROOM + 2048, rte_socket_id());
	FZ_CHECK(F.pool != NULL, "mbuf pool: %s", rte_strerror(rte_errno));
	rc = rnic_port_ring_pair("fzE", "fzT", 4096, &F.port_eng, &F.port_test);
	FZ_CHECK(rc == 0, "ring pair: %d", rc);
	FZ_CHECK(port_test_setup(F.port_test) == 0, "test port setup");

	memset(&da, 0, sizeof(da));
	da.port_id = F.port_eng;
	memcpy(da.mac, ENGINE_MAC, 6);
	da.ipv4 = rte_cpu_to_be_32(ENGINE_IP);
	da.mbufs = 2048;
	da.mtu = 1024;
	F.dev = rnic_dev_create(&da);
	FZ_CHECK(F.dev != NULL, "rnic_dev_create: %s", rte_strerror(rte_errno));
	rnic_dev_set_polled(F.dev, false);
	snprintf(name, sizeof(name), "rnic_pool%u", F.port_eng);
	F.dev_pool = rte_mempool_lookup(name);
	FZ_CHECK(F.dev_pool != NULL, "no mempool %s", name);

	F.pd = rnic_alloc_pd(F.dev);
	F.scq = rnic_create_cq(F.dev, 256);
	F.rcq = rnic_create_cq(F.dev, 256);
	FZ_CHECK(F.pd && F.scq && F.rcq, "PD/CQ: %s", rte_strerror(rte_errno));

	p = mmap((void *)(uintptr_t)ARENA_VA, ARENA_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	FZ_CHECK(p != MAP_FAILED && (uintptr_t)p == ARENA_VA,
		 "cannot map the arena at 0x%llx", ARENA_VA);
	F.arena = p;
	for (uint32_t i = 0; i < ARENA_LEN; i++)
		F.pattern[i] = (uint8_t)(i * 7 + (i >> 8) * 3 + 1);
	F.mr_t = reg(OFF_T, LEN_T, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
		     RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC);
	F.mr_ro = reg(OFF_RO, LEN_RO, RNIC_ACCESS_REMOTE_READ);
	F.mr_r = reg(OFF_R, LEN_R, RNIC_ACCESS_LOCAL_WRITE);
	F.mr_l = reg(OFF_L, LEN_L, RNIC_ACCESS_LOCAL_WRITE);

	for (int q = 0; q < NQ; q++) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = F.scq;
		ia.recv_cq = F.rcq;
		ia.qp_type = q == Q_RC ? RNIC_QPT_RC : q == Q_UC ? RNIC_QPT_UC : RNIC_QPT_UD;
		ia.qp_num = QPN[q];
		ia.sq_sig_all = true;
		ia.cap = (struct rnic_qp_cap){ .max_send_wr = 16, .max_recv_wr = 16,
					       .max_send_sge = 2, .max_recv_sge = 2,
					       .max_inline_data = 64 };
		F.qp[q] = rnic_create_qp(F.pd, &ia);
		FZ_CHECK(F.qp[q] != NULL, "create_qp 0x%x: %s", QPN[q], rte_strerror(rte_errno));
		qp_to_rts(q);
	}
	F.verbose = getenv("FZ_VERBOSE") != NULL;
	rnic_dev_stats_get(F.dev, &F.last);
	F.pool_start = rte_mempool_avail_count(F.pool);
	F.dev_pool_start = rte_mempool_avail_count(F.dev_pool);
	F.ready = true;
}

/* ------------------------------------------------------------------ */
/* The engine's output and completions                                 */
/* ------------------------------------------------------------------ */

static void
check_out_frame(const struct rte_mbuf *m)
{
	struct rnic_pkt pkt;
	enum rnic_pkt_err e = rnic_pkt_parse_mbuf(m, true, &pkt);

	F.out_frames++;
	if (F.verbose) {
		char line[512];

		rnic_pkt_format(line, sizeof(line), &pkt);
		fprintf(stderr, "  out %s: %s\n", rnic_pkt_err_name[e], line);
	}
	FZ_CHECK(e == RNIC_PKT_ERR_OK, "the engine sent a bad frame: %s", rnic_pkt_err_name[e]);
	FZ_CHECK(memcmp(pkt.l.dst_mac, PEER_MAC, 6) == 0 &&
		 memcmp(pkt.l.src_mac, ENGINE_MAC, 6) == 0 &&
		 pkt.l.dst_ip == rte_cpu_to_be_32(PEER_IP) &&
		 pkt.l.src_ip == rte_cpu_to_be_32(ENGINE_IP), "sent with wrong addresses");
	/* Known bug "uc-nak": a UC WRITE that fails its checks is NAKed with
	 * an RC ACKNOWLEDGE to the UC peer (and the UC QP goes to Error). */
	if (pkt.bth.opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK) &&
	    pkt.bth.dqpn == PEER_QPN[Q_UC] && fz_tolerate("uc-nak"))
		return;
	FZ_CHECK(rnic_opcode_allowed(pkt.bth.opcode, RNIC_TRANSPORT_RC) &&
		 pkt.bth.dqpn == PEER_QPN[Q_RC],
		 "sent %s to QPN 0x%x: only the RC QP talks here",
		 rnic_opcode_name(pkt.bth.opcode), pkt.bth.dqpn);
	if (F.mode == FZ_RESPONDER)
		FZ_CHECK(pkt.op->mask & RNIC_M_RESP, "responder sent a request %s",
			 pkt.op->name);
}

static unsigned int
drain_port(void)
{
	struct rte_mbuf *pkts[32];
	unsigned int n = rte_eth_rx_burst(F.port_test, 0, pkts, RTE_DIM(pkts));

	for (unsigned int i = 0; i < n; i++) {
		check_out_frame(pkts[i]);
		rte_pktmbuf_free(pkts[i]);
	}
	return n;
}

static int
qp_index(uint32_t qpn)
{
	for (int q = 0; q < NQ; q++)
		if (QPN[q] == qpn)
			return q;
	return -1;
}

static void
drain_cqs(void)
{
	struct rnic_wc wc[64];
	int n;

	while ((n = rnic_poll_cq(F.rcq, RTE_DIM(wc), wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct rnic_wc *w = &wc[i];
			int q = qp_index(w->qp_num);
			struct fifo *f;

			FZ_CHECK(q >= 0, "receive completion for QPN 0x%x", w->qp_num);
			FZ_CHECK(w->status < NSTATUS, "status %u", w->status);
			f = &F.rq[q];
			FZ_CHECK(f->head != f->tail, "QP 0x%x: receive completion (wr_id 0x%"
				 PRIx64 " %s) with none posted", QPN[q], w->wr_id,
				 rnic_wc_status_str(w->status));
			FZ_CHECK(w->wr_id == f->id[f->head % 32], "QP 0x%x: receive wr_id 0x%"
				 PRIx64 ", expected 0x%" PRIx64 " (in order, once)", QPN[q],
				 w->wr_id, f->id[f->head % 32]);
			f->head++;
			if (w->status == RNIC_WC_SUCCESS) {
				FZ_CHECK(w->opcode == RNIC_WC_RECV ||
					 w->opcode == RNIC_WC_RECV_RDMA_WITH_IMM,
					 "receive opcode %u", w->opcode);
				FZ_CHECK(w->byte_len <= RSGE0_LEN + RSGE1_LEN,
					 "receive byte_len %u", w->byte_len);
			}
		}
	}
	FZ_CHECK(!rnic_cq_overflowed(F.rcq), "receive CQ overflowed");
	while ((n = rnic_poll_cq(F.scq, RTE_DIM(wc), wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct rnic_wc *w = &wc[i];
			struct fifo *f = &F.sq;

			FZ_CHECK(w->qp_num == QPN[Q_RC], "send completion on QPN 0x%x (wr_id 0x%"
				 PRIx64 ", %s): nothing was posted there", w->qp_num, w->wr_id,
				 rnic_wc_status_str(w->status));
			FZ_CHECK(w->status < NSTATUS, "status %u", w->status);
			FZ_CHECK(f->head != f->tail, "send completion (wr_id 0x%" PRIx64
				 ", %s) with none outstanding", w->wr_id,
				 rnic_wc_status_str(w->status));
			FZ_CHECK(w->wr_id == f->id[f->head % 32], "send wr_id 0x%" PRIx64
				 ", expected 0x%" PRIx64 " (in order, once)", w->wr_id,
				 f->id[f->head % 32]);
			if (w->status == RNIC_WC_SUCCESS)
				FZ_CHECK(w->opcode == F.sq_wc_opcode[f->head % 32],
					 "send WC opcode %u, WR wants %u", w->opcode,
					 F.sq_wc_opcode[f->head % 32]);
			f->head++;
		}
	}
	FZ_CHECK(!rnic_cq_overflowed(F.scq), "send CQ overflowed");
}

/* Poll until a few rounds in a row did nothing (bounded). */
static void
settle(void)
{
	unsigned int quiet = 0;

	for (unsigned int it = 0; it < MAX_ITERS && quiet < QUIET_ITERS; it++) {
		unsigned int w = rnic_dev_poll_tx(F.dev);

		w += rnic_dev_poll_rx(F.dev);
		w += rnic_dev_poll_timer(F.dev);
		w += drain_port();
		w += rnic_dev_tx_backlog(F.dev);
		quiet = w ? 0 : quiet + 1;
	}
	drain_cqs();
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

static void
grant(uint32_t off, uint32_t len)
{
	memset(F.grant + off, 1, len);
}

static void
post_recv(int q)
{
	struct rnic_sge sge[2];
	struct rnic_recv_wr wr, *bad;
	struct fifo *f = &F.rq[q];
	uint32_t slot;
	int rc;

	if (F.next_slot >= NSLOTS)
		return;
	slot = OFF_R + F.next_slot * SLOT;
	sge[0] = (struct rnic_sge){ (uintptr_t)F.arena + slot + RSGE0_OFF, RSGE0_LEN,
				    rnic_mr_lkey(F.mr_r) };
	sge[1] = (struct rnic_sge){ (uintptr_t)F.arena + slot + RSGE1_OFF, RSGE1_LEN,
				    rnic_mr_lkey(F.mr_r) };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (F.gen << 8) | 0x80 | F.next_slot;
	wr.sg_list = sge;
	wr.num_sge = 2;
	rc = rnic_post_recv(F.qp[q], &wr, &bad);
	FZ_CHECK(rc == 0, "post_recv on QP 0x%x: %d", QPN[q], rc);
	grant(slot + RSGE0_OFF, RSGE0_LEN);
	grant(slot + RSGE1_OFF, RSGE1_LEN);
	f->id[f->tail++ % 32] = wr.wr_id;
	F.next_slot++;
}

/* The requester's menu of WRs; @p i picks the destination slot in L. */
static void
post_wr(unsigned int i, uint8_t choice)
{
	uint32_t dst = OFF_L + 0x400 + i * 0x200;
	uint64_t src = (uintptr_t)F.arena + OFF_L;
	uint32_t lkey = rnic_mr_lkey(F.mr_l);
	struct rnic_sge sge[2];
	struct rnic_send_wr wr, *bad;
	uint8_t wc_op;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (F.gen << 8) | i;
	wr.sg_list = sge;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = 0x10000 + (uint64_t)i * 0x1000;
	wr.wr.rdma.rkey = 0x77;
	switch (choice % 8) {
	case 0:   /* WRITE, two packets */
		wr.opcode = RNIC_WR_RDMA_WRITE;
		sge[0] = (struct rnic_sge){ src, 300, lkey };
		wr.num_sge = 1;
		wc_op = RNIC_WC_RDMA_WRITE;
		break;
	case 1:   /* READ 400 B into two SGEs: two response packets */
		wr.opcode = RNIC_WR_RDMA_READ;
		sge[0] = (struct rnic_sge){ (uintptr_t)F.arena + dst + 16, 200, lkey };
		sge[1] = (struct rnic_sge){ (uintptr_t)F.arena + dst + 240, 200, lkey };
		wr.num_sge = 2;
		grant(dst + 16, 200);
		grant(dst + 240, 200);
		wc_op = RNIC_WC_RDMA_READ;
		break;
	case 2:
		wr.opcode = RNIC_WR_SEND;
		sge[0] = (struct rnic_sge){ src + 0x40, 100, lkey };
		wr.num_sge = 1;
		wc_op = RNIC_WC_SEND;
		break;
	case 3:
	case 4:
		wr.opcode = choice % 8 == 3 ? RNIC_WR_ATOMIC_CMP_AND_SWP :
					      RNIC_WR_ATOMIC_FETCH_AND_ADD;
		sge[0] = (struct rnic_sge){ (uintptr_t)F.arena + dst + 16, 8, lkey };
		wr.num_sge = 1;
		wr.wr.atomic.remote_addr = 0x10000 + (uint64_t)i * 0x1000;
		wr.wr.atomic.rkey = 0x77;
		wr.wr.atomic.compare_add = 0x1111;
		wr.wr.atomic.swap = 0x2222;
		grant(dst + 16, 8);
		wc_op = choice % 8 == 3 ? RNIC_WC_COMP_SWAP : RNIC_WC_FETCH_ADD;
		break;
	case 5:   /* READ 8 B: one response packet */
		wr.opcode = RNIC_WR_RDMA_READ;
		sge[0] = (struct rnic_sge){ (uintptr_t)F.arena + dst + 16, 8, lkey };
		wr.num_sge = 1;
		grant(dst + 16, 8);
		wc_op = RNIC_WC_RDMA_READ;
		break;
	case 6:   /* zero-length WRITE_WITH_IMM */
		wr.opcode = RNIC_WR_RDMA_WRITE_WITH_IMM;
		wr.num_sge = 0;
		wr.imm_data = rte_cpu_to_be_32(0xabcd0000u | i);
		wc_op = RNIC_WC_RDMA_WRITE;
		break;
	default:  /* inline SEND */
		wr.opcode = RNIC_WR_SEND;
		wr.send_flags |= RNIC_SEND_INLINE;
		sge[0] = (struct rnic_sge){ src + 0x100, 16, lkey };
		wr.num_sge = 1;
		wc_op = RNIC_WC_SEND;
		break;
	}
	rc = rnic_post_send(F.qp[Q_RC], &wr, &bad);
	FZ_CHECK(rc == 0, "post_send WR %u (menu %u): %d", i, choice % 8, rc);
	F.sq_wc_opcode[F.sq.tail % 32] = wc_op;
	F.sq.id[F.sq.tail++ % 32] = wr.wr_id;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

static const struct rnic_mr *
mr_pick(unsigned int sel, uint32_t *off, uint32_t *len)
{
	switch (sel & 3) {
	case 0: *off = OFF_T; *len = LEN_T; return F.mr_t;
	case 1: *off = OFF_RO; *len = LEN_RO; return F.mr_ro;
	case 2: *off = OFF_R; *len = LEN_R; return F.mr_r;
	default: return NULL;
	}
}

/* Put a VA/rkey pair somewhere in or just around one of the MRs. */
static void
patch_key(uint8_t *va_p, uint8_t *rkey_p, uint8_t *len_p)
{
	rte_be64_t va_be;
	rte_be32_t k_be, l_be;
	uint64_t va;
	uint32_t k, off, len;
	const struct rnic_mr *mr;

	memcpy(&k_be, rkey_p, 4);
	k = rte_be_to_cpu_32(k_be);
	mr = mr_pick(k, &off, &len);
	if (mr == NULL)
		return;
	k_be = rte_cpu_to_be_32(rnic_mr_rkey(mr));
	memcpy(rkey_p, &k_be, 4);
	if (va_p != NULL) {
		memcpy(&va_be, va_p, 8);
		va = rte_be_to_cpu_64(va_be);
		va = (uintptr_t)F.arena + off + va % (len + 64) - 32;
		va_be = rte_cpu_to_be_64(va);
		memcpy(va_p, &va_be, 8);
	}
	if (len_p != NULL) {
		memcpy(&l_be, len_p, 4);
		l_be = rte_cpu_to_be_32(rte_be_to_cpu_32(l_be) & 0x1fff);
		memcpy(len_p, &l_be, 4);
	}
}

static uint32_t
psn_base(int q, const struct rnic_opcode_info *op)
{
	struct rnic_qp_attr a;

	if (op != NULL && (op->mask & RNIC_M_RESP))
		return SQ_PSN0;
	rnic_query_qp(F.qp[q], &a, 0, NULL);
	return a.rq_psn;
}

/* Build one frame around @p body; returns its length. */
static uint32_t
make_frame(uint8_t ctl0, uint8_t ctl1, const uint8_t *body_in, uint32_t blen)
{
	uint8_t *f = frame_buf, *b;
	const uint32_t hl = RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN;
	struct rte_ether_hdr *eth = (void *)f;
	struct rte_ipv4_hdr *ip = (void *)(f + RNIC_ETH_HLEN);
	struct rte_udp_hdr *udp = (void *)(f + RNIC_ETH_HLEN + RNIC_IPV4_HLEN);
	int q = ctl0 & 3;
	uint32_t icrc, total;

	b = f + hl;
	memcpy(b, body_in, blen);
	if (ctl0 & 0x08)   /* tidy: round the length up to 4 */
		while (blen & 3)
			b[blen++] = 0;
	if (blen >= RNIC_BTH_LEN) {
		struct rnic_bth *bth = (void *)b;
		const struct rnic_opcode_info *op;

		if (q != 3) {
			rnic_put24(bth->dqpn, QPN[q]);
			if (ctl0 & 0x04)
				bth->opcode = (uint8_t)((bth->opcode & 0x1f) |
					(q == Q_RC ? RNIC_TRANSPORT_RC :
					 q == Q_UC ? RNIC_TRANSPORT_UC : RNIC_TRANSPORT_UD));
		}
		op = rnic_opcode_info(bth->opcode);
		if (ctl0 & 0x08) {
			uint32_t room = op && blen >= op->length ? blen - op->length : 0;
			uint8_t pad = __bth_pad(bth);

			if (pad > room)
				pad = (uint8_t)room;
			bth->flags = (uint8_t)((bth->flags & (RNIC_BTH_SE | RNIC_BTH_MIG)) |
					       (pad << RNIC_BTH_PAD_SHIFT));
			bth->pkey = rte_cpu_to_be_16(RNIC_DEFAULT_PKEY);
		}
		if (ctl1 & 0x01) {
			uint32_t base = psn_base(q == 3 ? Q_RC : q, op);

			rnic_put24(bth->psn, rnic_psn_add(base, (uint32_t)(int32_t)(int8_t)bth->psn[2]));
		}
		if ((ctl0 & 0x10) && op != NULL) {
			if ((op->mask & RNIC_M_RETH) &&
			    blen >= (uint32_t)op->offset[RNIC_EXT_RETH] + RNIC_RETH_LEN) {
				uint8_t *r = b + op->offset[RNIC_EXT_RETH];

				patch_key(r, r + 8, r + 12);
			}
			if ((op->mask & RNIC_M_ATMETH) &&
			    blen >= (uint32_t)op->offset[RNIC_EXT_ATMETH] + RNIC_ATMETH_LEN) {
				uint8_t *a = b + op->offset[RNIC_EXT_ATMETH];

				patch_key(a, a + 8, NULL);
			}
			if ((op->mask & RNIC_M_WRITE) && (bth->ack & RNIC_BTH_SR) &&
			    blen >= (uint32_t)op->length + RNIC_SRETH_LEN) {
				uint8_t *r = b + op->length;   /* SRETH: RETH's layout first */

				patch_key(r, r + 8, r + 12);
			}
			if ((op->mask & RNIC_M_IETH) &&
			    blen >= (uint32_t)op->offset[RNIC_EXT_IETH] + RNIC_IETH_LEN)
				patch_key(NULL, b + op->offset[RNIC_EXT_IETH], NULL);
			if ((op->mask & RNIC_M_DETH) &&
			    blen >= (uint32_t)op->offset[RNIC_EXT_DETH] + RNIC_DETH_LEN) {
				rte_be32_t qk = rte_cpu_to_be_32(UD_QKEY);

				memcpy(b + op->offset[RNIC_EXT_DETH], &qk, 4);
			}
		}
	}
	total = hl + blen + RNIC_ICRC_LEN;
	memcpy(&eth->dst_addr, ENGINE_MAC, 6);
	memcpy(&eth->src_addr, PEER_MAC, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(total - RNIC_ETH_HLEN));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(PEER_IP);
	ip->dst_addr = rte_cpu_to_be_32(ENGINE_IP);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(0xc123);
	udp->dst_port = rte_cpu_to_be_16(RNIC_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(total - RNIC_ETH_HLEN - RNIC_IPV4_HLEN));
	udp->dgram_cksum = 0;
	icrc = rte_cpu_to_le_32(rnic_icrc_calc_buf(f, RNIC_ETH_HLEN, total));
	if (ctl0 & 0x80)
		icrc ^= 0x5a5a5a5a;
	memcpy(f + total - RNIC_ICRC_LEN, &icrc, 4);
	return total;
}

static void
inject(const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	char *d;

	FZ_CHECK(m != NULL, "harness pool empty");
	d = rte_pktmbuf_append(m, (uint16_t)len);
	FZ_CHECK(d != NULL, "frame of %u does not fit an mbuf", len);
	memcpy(d, f, len);
	if (rte_eth_tx_burst(F.port_test, 0, &m, 1) != 1) {
		/* The ring is full: let the engine take some, then retry. */
		settle();
		FZ_CHECK(rte_eth_tx_burst(F.port_test, 0, &m, 1) == 1, "cannot inject");
	}
}

/* ------------------------------------------------------------------ */
/* One input                                                           */
/* ------------------------------------------------------------------ */

static void
begin_input(void)
{
	F.gen++;
	memcpy(F.arena, F.pattern, ARENA_LEN);
	memset(F.grant, 0, sizeof(F.grant));
	grant(OFF_T, LEN_T);   /* remote write/atomic may change all of T */
	/* SEND_WITH_INV may have invalidated an rkey in the last input. */
	F.mr_t->rkey_valid = 1;
	F.mr_ro->rkey_valid = 1;
	F.mr_r->rkey_valid = 1;
	F.mr_l->rkey_valid = 1;
	F.next_slot = 0;
	memset(F.rq, 0, sizeof(F.rq));
	memset(&F.sq, 0, sizeof(F.sq));
	for (int i = 0; i < 4; i++)
		post_recv(Q_RC);
	post_recv(Q_UC);
	post_recv(Q_UC);
	post_recv(Q_UD);
	post_recv(Q_UD);
}

/* FZ_VERBOSE: what the input made the engine do (counter deltas). */
static void
report(void)
{
	struct rnic_dev_stats st;
	const uint64_t *now = (const uint64_t *)&st, *was = (const uint64_t *)&F.last;

	rnic_dev_stats_get(F.dev, &st);
	fprintf(stderr, "input %" PRIu64 ": out_frames=%" PRIu64, F.gen, F.out_frames);
	for (unsigned int i = 0; i < rnic_dev_stat_count; i++)
		if (now[i] != was[i])
			fprintf(stderr, " %s=%" PRIu64, rnic_dev_stat_names[i], now[i] - was[i]);
	for (unsigned int i = 0; i < RTE_DIM(st.drop_reason) && i < RNIC_PKT_ERR_MAX; i++)
		if (st.drop_reason[i] != F.last.drop_reason[i])
			fprintf(stderr, " drop.%s=%" PRIu64, rnic_pkt_err_name[i],
				st.drop_reason[i] - F.last.drop_reason[i]);
	fprintf(stderr, "\n");
	F.last = st;
	F.out_frames = 0;
}

/*
 * Memory outside the granted ranges must still hold the pattern. A plain
 * loop over the arena, instrumented for libFuzzer's comparison tracing,
 * cost three quarters of each input's time (60k traced compares), so the
 * scan is kept out of the coverage instrumentation (it guides nothing) and
 * goes a word at a time; the byte loop only names the first changed byte.
 */
#if defined(__clang__)
__attribute__((noinline, no_sanitize("coverage")))
#endif
static void
check_arena(void)
{
	uint64_t a, p, g, bad = 0;

	/* Eight bytes at a time first (grant[] is 0 or 1 per byte). */
	for (uint32_t i = 0; i < ARENA_LEN; i += 8) {
		memcpy(&a, F.arena + i, 8);
		memcpy(&p, F.pattern + i, 8);
		memcpy(&g, F.grant + i, 8);
		bad |= (a ^ p) & ~(g * 0xff);
	}
	if (bad == 0)
		return;
	for (uint32_t i = 0; i < ARENA_LEN; i++)
		FZ_CHECK(F.grant[i] || F.arena[i] == F.pattern[i],
			 "byte 0x%x of the arena changed (0x%02x -> 0x%02x): %s", i,
			 F.pattern[i], F.arena[i],
			 i >= OFF_RO && i < OFF_RO + LEN_RO ? "remote-read-only MR" :
			 i >= OFF_R && i < OFF_R + LEN_R ? "receive MR outside posted SGEs" :
			 i >= OFF_L && i < OFF_L + LEN_L ? "requester buffer, not a READ/atomic target" :
			 "canary outside every MR");
}

static void
end_input(void)
{
	struct rnic_qp_attr a;

	settle();
	if (F.verbose)
		report();
	/* Error flushes what is left: after it every WR has completed. */
	for (int q = 0; q < NQ; q++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = RNIC_QPS_ERR;
		FZ_CHECK(rnic_modify_qp(F.qp[q], &a, RNIC_QP_STATE) == 0, "to Error");
	}
	settle();
	for (int q = 0; q < NQ; q++)
		FZ_CHECK(F.rq[q].head == F.rq[q].tail,
			 "QP 0x%x: %u posted receives never completed (after Error)",
			 QPN[q], F.rq[q].tail - F.rq[q].head);
	FZ_CHECK(F.sq.head == F.sq.tail, "%u send WRs never completed (after Error)",
		 F.sq.tail - F.sq.head);
	check_arena();
	for (int q = 0; q < NQ; q++)
		qp_to_rts(q);
	settle();
	FZ_CHECK(rte_mempool_avail_count(F.pool) == F.pool_start,
		 "harness pool: %u of %u mbufs back", rte_mempool_avail_count(F.pool),
		 F.pool_start);
	FZ_CHECK(rte_mempool_avail_count(F.dev_pool) == F.dev_pool_start,
		 "engine pool: %u of %u mbufs back (leak)", rte_mempool_avail_count(F.dev_pool),
		 F.dev_pool_start);
}

void
fz_engine_run(enum fz_mode mode, const uint8_t *data, size_t size)
{
	size_t at = 0;
	unsigned int nrec = 0;

	fz_engine_init();
	F.mode = mode;
	if (F.rc_sr != (size & 1)) {
		F.rc_sr = size & 1;
		qp_to_rts(Q_RC);
		settle();
	}
	begin_input();
	if (mode == FZ_REQUESTER) {
		unsigned int n;

		if (size < 1)
			goto out;
		n = 1 + data[at++] % MAX_WRS;
		for (unsigned int i = 0; i < n && at < size; i++)
			post_wr(i, data[at++]);
		settle();   /* the requests go out (and are dropped) */
	}
	while (at + 4 <= size && nrec++ < MAX_RECORDS) {
		uint8_t ctl0 = data[at], ctl1 = data[at + 1];
		uint32_t blen = (data[at + 2] | (uint32_t)data[at + 3] << 8) & 0x3ff;
		uint32_t flen;
		int q = ctl0 & 3;

		at += 4;
		if (blen > size - at)
			blen = (uint32_t)(size - at);
		if ((ctl0 & 0x20) && q != 3)
			post_recv(q);
		flen = make_frame(ctl0, ctl1, data + at, blen);
		at += blen;
		if (F.verbose) {
			struct rnic_pkt pkt;
			char line[512];
			enum rnic_pkt_err e = rnic_pkt_parse_buf(frame_buf, flen, true, &pkt);

			rnic_pkt_format(line, sizeof(line), &pkt);
			fprintf(stderr, "  in  %s: %s\n", rnic_pkt_err_name[e], line);
		}
		inject(frame_buf, flen);
		if (ctl0 & 0x40)
			settle();
	}
out:
	end_input();
}
