/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder harness for crafted packets (driven by cases.py).
 *
 * One engine, the responder under test, sits on port A of a ring pair; this
 * program owns port B: it injects the frames of an input pcap there with
 * rte_eth_tx_burst and collects whatever the engine answers with
 * rte_eth_rx_burst into an output pcap. The QP (RC, UC or UD, fixed QPN)
 * is set up from the command line and brought to RTS; the memory region
 * the requests target is mapped at a fixed VA so that a script can put
 * that VA into RETH/AtomicETH before the run (see --info).
 *
 * Frames go in one group at a time (--burst N, or --groups a,b,c); after
 * each group the engine is polled by hand (TX, RX, timer) until nothing
 * happened for --quiet iterations in a row: no wall-clock waits. At the
 * end one JSON line reports the MR bytes before and after, the receive and
 * send completions, the QP state and every engine counter by name.
 *
 * For the hostile-input cases the harness also keeps, whatever the case:
 *  - a guard page on each side of the MR (registered is only the middle):
 *    "guard_changed" counts guard bytes that changed;
 *  - a second MR (all rights) in another PD, at --mr-addr + 256 MiB:
 *    "other_va"/"other_rkey" name it, "other_changed" counts its bytes
 *    that changed;
 *  - a bystander RC QP (0x7e, peer 0x7f) with its own MR and CQ: after
 *    the last group (and after the counters and completions above were
 *    taken) the harness WRITEs 64 bytes to it and expects one ACK and the
 *    bytes in place: "bystander" is "ok" or what went wrong;
 *  - then every QP goes to Reset and both mbuf pools (the engine's and the
 *    harness's) must be full again: "pool_missing" counts what is not.
 * --pmtu is the QP's path MTU; for UD, which has none, the device's MTU.
 * --state leaves the QP under test in Reset, Init, RTR or Error instead of
 * RTS; --sends w<len>,r<len>,s<len> posts RDMA WRITE / READ / SEND WRs on
 * it first (their packets are the frames sent before the first group;
 * --timeout sets the QP's local ACK timeout, 0 = none; --retry-cnt and
 * --rnr-retry its retry counts, --max-rd-atomic its READs/atomics in
 * flight, 1 by default). The engine's port has IPv6 address fd00::2 (GID
 * 1) beside 10.0.0.2; --ipv6 makes the QP's AV fd00::2 -> fd00::1.
 *
 * usage: harness [EAL args] -- --info [setup options]
 *        harness [EAL args] -- --in IN.pcap --out OUT.pcap [setup options]
 * Exit status: 0 ran (the script judges the report), 1 setup error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pcap/pcap.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "rnic_wire.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define MAX_FRAMES 1024
#define MAX_WC 1024
#define MAX_LATE 16

static const uint8_t ENGINE_MAC[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t PEER_MAC[6] = { 0x02, 0, 0, 0, 0, 0x01 };
#define ENGINE_IP RTE_IPV4(10, 0, 0, 2)
#define PEER_IP RTE_IPV4(10, 0, 0, 1)
static const uint8_t ENGINE_IP6[16] = { 0xfd, [15] = 2 };   /* fd00::2 */
static const uint8_t PEER_IP6[16] = { 0xfd, [15] = 1 };     /* fd00::1 */

struct opts {
	bool info;
	const char *in, *out;
	enum rnic_qp_type type;
	uint32_t qpn, dqpn, rq_psn, sq_psn, pmtu;
	uint32_t min_rnr_timer, max_dest_rd_atomic;
	int qp_access, mr_access;
	uint32_t qkey;
	uint16_t pkey;
	uint32_t recvs, recv_size, recv_sge;
	uint64_t mr_size, mr_addr;
	uint32_t mr_fill;
	uint32_t burst;
	uint32_t groups[MAX_FRAMES];
	uint32_t n_groups;
	uint32_t late_at[MAX_LATE], late_n[MAX_LATE], n_late;
	uint32_t quiet;
	enum rnic_qp_state state;
	uint32_t timeout, retry_cnt, rnr_retry, max_rd_atomic;
	const char *sends;
	bool ipv6;               /* the QP's AV: fd00::2 -> fd00::1 (GID 1) */
	bool sr;                 /* selective repeat (RNIC_QP_SR) */
};

static struct opts o = {
	.type = RNIC_QPT_RC, .qpn = 0x11, .dqpn = 0x22, .rq_psn = 0x100,
	.sq_psn = 0x500, .pmtu = 256, .min_rnr_timer = 14, .max_dest_rd_atomic = 4,
	.qp_access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
		     RNIC_ACCESS_REMOTE_ATOMIC,
	.mr_access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
		     RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC,
	.qkey = 0x11111111, .pkey = 0xffff, .recvs = 4, .recv_size = 512,
	.recv_sge = 1, .mr_size = 4096, .mr_addr = 0x200000000000ull, .mr_fill = 1,
	.burst = 1, .quiet = 2000, .state = RNIC_QPS_RTS, .timeout = 14, .retry_cnt = 7,
	.rnr_retry = 7, .max_rd_atomic = 1,
};

#define GUARD 4096                    /* guard bytes on each side of the MR */
#define OTHER_OFF (256ull << 20)      /* the other PD's MR: --mr-addr + this */
#define OTHER_SIZE 4096
#define BYST_QPN 0x7e
#define BYST_PEER 0x7f
#define LBUF_SIZE 65536               /* requester buffers (--sends) */

static int
parse_access(const char *s)
{
	int a = 0;

	if (strcmp(s, "none") == 0)
		return 0;
	for (; *s; s++) {
		switch (*s) {
		case 'l': a |= RNIC_ACCESS_LOCAL_WRITE; break;
		case 'w': a |= RNIC_ACCESS_REMOTE_WRITE; break;
		case 'r': a |= RNIC_ACCESS_REMOTE_READ; break;
		case 'a': a |= RNIC_ACCESS_REMOTE_ATOMIC; break;
		default: return -1;
		}
	}
	return a;
}

static uint64_t
num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "harness: bad number for %s: %s\n", what, s);
		exit(1);
	}
	return v;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: harness [EAL args] -- (--info | --in IN --out OUT) [options]\n"
		"  --type rc|uc|ud --qpn N --dqpn N --rq-psn N --sq-psn N --pmtu BYTES\n"
		"  --min-rnr-timer N --max-dest-rd-atomic N --qp-access [lwra]|none\n"
		"  --mr-access [lwra]|none --qkey N --pkey N --recvs N --recv-size B\n"
		"  --recv-sge N --mr-size B --mr-addr VA --mr-fill SEED --burst N\n"
		"  --groups a,b,c --late-recvs GROUP:N (repeatable) --quiet ITERS\n"
		"  --state reset|init|rtr|rts|err --timeout N --retry-cnt N --rnr-retry N\n"
		"  --max-rd-atomic N --sends w<len>,r<len>,s<len> --ipv6 --sr\n");
	exit(1);
}

static void
parse_args(int argc, char **argv)
{
	enum { O_INFO = 256, O_IN, O_OUT, O_TYPE, O_QPN, O_DQPN, O_RQPSN, O_SQPSN,
	       O_PMTU, O_RNR, O_MDRA, O_QPACC, O_MRACC, O_QKEY, O_PKEY, O_RECVS,
	       O_RSIZE, O_RSGE, O_MRSIZE, O_MRADDR, O_MRFILL, O_BURST, O_GROUPS,
	       O_LATE, O_QUIET, O_STATE, O_TIMEOUT, O_SENDS, O_RETRY, O_RNRRETRY, O_IPV6, O_SR,
	       O_MRA };
	static const struct option lo[] = {
		{ "info", no_argument, NULL, O_INFO },
		{ "in", required_argument, NULL, O_IN },
		{ "out", required_argument, NULL, O_OUT },
		{ "type", required_argument, NULL, O_TYPE },
		{ "qpn", required_argument, NULL, O_QPN },
		{ "dqpn", required_argument, NULL, O_DQPN },
		{ "rq-psn", required_argument, NULL, O_RQPSN },
		{ "sq-psn", required_argument, NULL, O_SQPSN },
		{ "pmtu", required_argument, NULL, O_PMTU },
		{ "min-rnr-timer", required_argument, NULL, O_RNR },
		{ "max-dest-rd-atomic", required_argument, NULL, O_MDRA },
		{ "qp-access", required_argument, NULL, O_QPACC },
		{ "mr-access", required_argument, NULL, O_MRACC },
		{ "qkey", required_argument, NULL, O_QKEY },
		{ "pkey", required_argument, NULL, O_PKEY },
		{ "recvs", required_argument, NULL, O_RECVS },
		{ "recv-size", required_argument, NULL, O_RSIZE },
		{ "recv-sge", required_argument, NULL, O_RSGE },
		{ "mr-size", required_argument, NULL, O_MRSIZE },
		{ "mr-addr", required_argument, NULL, O_MRADDR },
		{ "mr-fill", required_argument, NULL, O_MRFILL },
		{ "burst", required_argument, NULL, O_BURST },
		{ "groups", required_argument, NULL, O_GROUPS },
		{ "late-recvs", required_argument, NULL, O_LATE },
		{ "quiet", required_argument, NULL, O_QUIET },
		{ "state", required_argument, NULL, O_STATE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "sends", required_argument, NULL, O_SENDS },
		{ "retry-cnt", required_argument, NULL, O_RETRY },
		{ "rnr-retry", required_argument, NULL, O_RNRRETRY },
		{ "ipv6", no_argument, NULL, O_IPV6 },
		{ "sr", no_argument, NULL, O_SR },
		{ "max-rd-atomic", required_argument, NULL, O_MRA },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case O_INFO: o.info = true; break;
		case O_IN: o.in = optarg; break;
		case O_OUT: o.out = optarg; break;
		case O_TYPE:
			if (strcmp(optarg, "rc") == 0)
				o.type = RNIC_QPT_RC;
			else if (strcmp(optarg, "uc") == 0)
				o.type = RNIC_QPT_UC;
			else if (strcmp(optarg, "ud") == 0)
				o.type = RNIC_QPT_UD;
			else
				usage();
			break;
		case O_QPN: o.qpn = (uint32_t)num(optarg, "--qpn"); break;
		case O_DQPN: o.dqpn = (uint32_t)num(optarg, "--dqpn"); break;
		case O_RQPSN: o.rq_psn = (uint32_t)num(optarg, "--rq-psn"); break;
		case O_SQPSN: o.sq_psn = (uint32_t)num(optarg, "--sq-psn"); break;
		case O_PMTU: o.pmtu = (uint32_t)num(optarg, "--pmtu"); break;
		case O_RNR: o.min_rnr_timer = (uint32_t)num(optarg, "--min-rnr-timer"); break;
		case O_MDRA: o.max_dest_rd_atomic = (uint32_t)num(optarg, "--max-dest-rd-atomic"); break;
		case O_QPACC:
			o.qp_access = parse_access(optarg);
			if (o.qp_access < 0)
				usage();
			break;
		case O_MRACC:
			o.mr_access = parse_access(optarg);
			if (o.mr_access < 0)
				usage();
			break;
		case O_QKEY: o.qkey = (uint32_t)num(optarg, "--qkey"); break;
		case O_PKEY: o.pkey = (uint16_t)num(optarg, "--pkey"); break;
		case O_RECVS: o.recvs = (uint32_t)num(optarg, "--recvs"); break;
		case O_RSIZE: o.recv_size = (uint32_t)num(optarg, "--recv-size"); break;
		case O_RSGE: o.recv_sge = (uint32_t)num(optarg, "--recv-sge"); break;
		case O_MRSIZE: o.mr_size = num(optarg, "--mr-size"); break;
		case O_MRADDR: o.mr_addr = num(optarg, "--mr-addr"); break;
		case O_MRFILL: o.mr_fill = (uint32_t)num(optarg, "--mr-fill"); break;
		case O_BURST: o.burst = (uint32_t)num(optarg, "--burst"); break;
		case O_GROUPS: {
			char *s = optarg, *tok, *save = NULL;

			o.n_groups = 0;
			while ((tok = strtok_r(s, ",", &save)) != NULL && o.n_groups < MAX_FRAMES) {
				o.groups[o.n_groups++] = (uint32_t)num(tok, "--groups");
				s = NULL;
			}
			break;
		}
		case O_LATE: {
			char *colon = strchr(optarg, ':');

			if (colon == NULL || o.n_late == MAX_LATE)
				usage();
			*colon = 0;
			o.late_at[o.n_late] = (uint32_t)num(optarg, "--late-recvs group");
			o.late_n[o.n_late] = (uint32_t)num(colon + 1, "--late-recvs count");
			o.n_late++;
			break;
		}
		case O_QUIET: o.quiet = (uint32_t)num(optarg, "--quiet"); break;
		case O_STATE:
			if (strcmp(optarg, "reset") == 0)
				o.state = RNIC_QPS_RESET;
			else if (strcmp(optarg, "init") == 0)
				o.state = RNIC_QPS_INIT;
			else if (strcmp(optarg, "rtr") == 0)
				o.state = RNIC_QPS_RTR;
			else if (strcmp(optarg, "rts") == 0)
				o.state = RNIC_QPS_RTS;
			else if (strcmp(optarg, "err") == 0)
				o.state = RNIC_QPS_ERR;
			else
				usage();
			break;
		case O_TIMEOUT: o.timeout = (uint32_t)num(optarg, "--timeout"); break;
		case O_SENDS: o.sends = optarg; break;
		case O_RETRY: o.retry_cnt = (uint32_t)num(optarg, "--retry-cnt"); break;
		case O_RNRRETRY: o.rnr_retry = (uint32_t)num(optarg, "--rnr-retry"); break;
		case O_IPV6: o.ipv6 = true; break;
		case O_SR: o.sr = true; break;
		case O_MRA: o.max_rd_atomic = (uint32_t)num(optarg, "--max-rd-atomic"); break;
		default: usage();
		}
	}
	if (optind != argc || (!o.info && (o.in == NULL || o.out == NULL)) ||
	    o.burst == 0 || o.recv_sge == 0 || o.recv_sge > 8 || o.mr_size == 0 ||
	    o.mr_size > (64u << 20))
		usage();
}

/* ------------------------------------------------------------------ */

static struct rnic_device *dev;
static struct rnic_pd *pd, *pd2;
static struct rnic_cq *rcq, *scq, *byst_cq;
static struct rnic_mr *mr, *rmr, *other_mr, *byst_mr, *lmr;
static struct rnic_qp *qp, *byst;
static uint8_t *mr_buf, *mr_before, *recv_buf;
static uint8_t *guard_lo, *guard_hi, guard_before[2][GUARD];
static uint8_t *other_buf, other_before[OTHER_SIZE];
static uint8_t *byst_buf, *lbuf;
static uint32_t n_sends;
static uint32_t recv_slots, recv_next;
static uint16_t port_eng, port_test;
static struct rte_mempool *pool;

static void
fill(uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8) * 3);
}

static int
post_recvs(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rnic_sge sge[8];
		struct rnic_recv_wr wr = { .wr_id = recv_next, .sg_list = sge,
					   .num_sge = (int)o.recv_sge };
		struct rnic_recv_wr *bad;
		uint8_t *base;
		uint32_t per, left;
		int rc;

		if (recv_next >= recv_slots)
			return -ENOSPC;
		base = recv_buf + (size_t)recv_next * o.recv_size;
		/* Split the receive buffer over recv_sge SGEs. */
		per = o.recv_size / o.recv_sge;
		left = o.recv_size;
		for (uint32_t k = 0; k < o.recv_sge; k++) {
			uint32_t len = k + 1 == o.recv_sge ? left : per;

			sge[k] = (struct rnic_sge){ (uintptr_t)base + (o.recv_size - left), len,
						    rnic_mr_lkey(rmr) };
			left -= len;
		}
		rc = rnic_post_recv(qp, &wr, &bad);
		if (rc != 0)
			return rc;
		recv_next++;
	}
	return 0;
}

/* The bystander RC QP: RTS, peer BYST_PEER, ePSN 0x1000, PMTU 256. */
static int
bystander_setup(void)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = byst_cq, .recv_cq = byst_cq, .qp_type = RNIC_QPT_RC,
		.qp_num = BYST_QPN,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct rnic_qp_attr a = {0};
	int rc;

	byst = rnic_create_qp(pd, &ia);
	if (byst == NULL) {
		fprintf(stderr, "harness: bystander QP: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE;
	rc = rnic_modify_qp(byst, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			    RNIC_QP_ACCESS_FLAGS);
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = RNIC_MTU_256;
	a.dest_qp_num = BYST_PEER;
	a.rq_psn = 0x1000;
	a.max_dest_rd_atomic = 1;
	memcpy(a.ah_attr.dmac, PEER_MAC, 6);
	a.ah_attr.dip = rte_cpu_to_be_32(PEER_IP);
	rc = rc ?: rnic_modify_qp(byst, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
				  RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
				  RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = 0x2000;
	a.timeout = 0;
	a.max_rd_atomic = 1;
	rc = rc ?: rnic_modify_qp(byst, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
				  RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
				  RNIC_QP_MAX_QP_RD_ATOMIC);
	if (rc != 0)
		fprintf(stderr, "harness: bystander to RTS: %d\n", rc);
	return rc;
}

/* --sends: w<len> RDMA WRITE, r<len> RDMA READ, s<len> SEND, signaled. */
static int
post_sends(void)
{
	char *spec, *tok, *save = NULL;
	uint32_t off = 0;
	int rc = 0;

	if (o.sends == NULL || *o.sends == '\0')
		return 0;
	spec = strdup(o.sends);
	if (spec == NULL)
		return -1;
	for (tok = strtok_r(spec, ",", &save); tok != NULL && rc == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t len = (uint32_t)num(tok + 1, "--sends length");
		struct rnic_sge sge = { (uintptr_t)lbuf + off, len, rnic_mr_lkey(lmr) };
		struct rnic_send_wr wr = {
			.wr_id = n_sends, .sg_list = &sge, .num_sge = 1,
			.send_flags = RNIC_SEND_SIGNALED,
		};
		struct rnic_send_wr *bad;

		switch (tok[0]) {
		case 'w': wr.opcode = RNIC_WR_RDMA_WRITE; break;
		case 'r': wr.opcode = RNIC_WR_RDMA_READ; break;
		case 's': wr.opcode = RNIC_WR_SEND; break;
		default: rc = -EINVAL; continue;
		}
		if (off + len > LBUF_SIZE) {
			rc = -EINVAL;
			continue;
		}
		wr.wr.rdma.remote_addr = 0x10000 + off;
		wr.wr.rdma.rkey = 0x1234;
		rc = rnic_post_send(qp, &wr, &bad);
		off += RTE_ALIGN_CEIL(len, 64u);
		n_sends++;
	}
	free(spec);
	if (rc != 0)
		fprintf(stderr, "harness: --sends %s: %d\n", o.sends, rc);
	return rc;
}

static int
port_test_setup(uint16_t p)
{
	struct rte_eth_conf conf = {0};
	int rc;

	rc = rte_eth_dev_configure(p, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p);
	return rc;
}

static int
setup(void)
{
	/* cnp_dscp 48: softrnic's config default (the API's is 0). The
	 * longest CNP interval: the cases that mark two frames of one burst
	 * CE want one CNP, and with the default 50 us a test process
	 * preempted between the two frames sent two (make test's ASan
	 * stage, 2026-11-27). */
	struct rnic_dev_attr da = { .mtu = 4096, .mbufs = 4096, .cnp_dscp = 48,
				    .cnp_interval_us = RNIC_CNP_INTERVAL_US_MAX };
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp_attr a = {0};
	int rc, mask;
	void *p;

	/* UD has no path MTU attribute: the port's active MTU bounds it, so
	 * a UD setup's --pmtu is the device's. */
	if (o.type == RNIC_QPT_UD)
		da.mtu = (uint16_t)o.pmtu;

	pool = rte_pktmbuf_pool_create("resp_test", 2048, 0, 0, 10240, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "harness: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	rc = rnic_port_ring_pair("respE", "respT", 4096, &port_eng, &port_test);
	if (rc != 0) {
		fprintf(stderr, "harness: ring pair: %s\n", strerror(-rc));
		return -1;
	}
	if (port_test_setup(port_test) != 0) {
		fprintf(stderr, "harness: test port setup failed\n");
		return -1;
	}
	da.port_id = port_eng;
	memcpy(da.mac, ENGINE_MAC, 6);
	da.ipv4 = rte_cpu_to_be_32(ENGINE_IP);
	memcpy(da.ipv6[0], ENGINE_IP6, 16);   /* GID 1 */
	da.n_ipv6 = 1;
	dev = rnic_dev_create(&da);
	if (dev == NULL) {
		fprintf(stderr, "harness: rnic_dev_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	rnic_dev_set_polled(dev, false);
	pd = rnic_alloc_pd(dev);
	rcq = rnic_create_cq(dev, MAX_WC);
	scq = rnic_create_cq(dev, MAX_WC);
	if (pd == NULL || rcq == NULL || scq == NULL) {
		fprintf(stderr, "harness: PD/CQ: %s\n", rte_strerror(rte_errno));
		return -1;
	}

	/* The target MR at a fixed VA, so --info and the real run agree, with
	 * a guard page on each side that no request may touch. */
	p = mmap((void *)(uintptr_t)(o.mr_addr - GUARD), o.mr_size + 2 * GUARD,
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	if (p == MAP_FAILED || (uint64_t)(uintptr_t)p != o.mr_addr - GUARD) {
		fprintf(stderr, "harness: cannot map the MR at 0x%" PRIx64 ": %s\n",
			o.mr_addr, p == MAP_FAILED ? strerror(errno) : "got another address");
		return -1;
	}
	guard_lo = p;
	mr_buf = guard_lo + GUARD;
	guard_hi = mr_buf + o.mr_size;
	fill(guard_lo, GUARD, 99);
	fill(guard_hi, GUARD, 98);
	memcpy(guard_before[0], guard_lo, GUARD);
	memcpy(guard_before[1], guard_hi, GUARD);
	fill(mr_buf, o.mr_size, o.mr_fill);
	mr_before = malloc(o.mr_size);
	if (mr_before == NULL)
		return -1;
	memcpy(mr_before, mr_buf, o.mr_size);
	mr = rnic_reg_mr(pd, mr_buf, o.mr_size, o.mr_access);
	if (mr == NULL) {
		fprintf(stderr, "harness: reg_mr: %s\n", rte_strerror(rte_errno));
		return -1;
	}

	/* Receive buffers: a second MR, local write only. */
	recv_slots = o.recvs;
	for (uint32_t i = 0; i < o.n_late; i++)
		recv_slots += o.late_n[i];
	recv_buf = rte_zmalloc("resp_recv", (size_t)RTE_MAX(recv_slots, 1u) *
			       RTE_MAX(o.recv_size, 1u), 64);
	if (recv_buf == NULL)
		return -1;
	rmr = rnic_reg_mr(pd, recv_buf, (size_t)RTE_MAX(recv_slots, 1u) *
			  RTE_MAX(o.recv_size, 1u), RNIC_ACCESS_LOCAL_WRITE);
	if (rmr == NULL) {
		fprintf(stderr, "harness: reg_mr (receive): %s\n", rte_strerror(rte_errno));
		return -1;
	}

	/* An MR with every right, in another PD, at a fixed VA. */
	pd2 = rnic_alloc_pd(dev);
	p = mmap((void *)(uintptr_t)(o.mr_addr + OTHER_OFF), OTHER_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (pd2 == NULL || p == MAP_FAILED || (uint64_t)(uintptr_t)p != o.mr_addr + OTHER_OFF) {
		fprintf(stderr, "harness: cannot set up the other PD's MR\n");
		return -1;
	}
	other_buf = p;
	fill(other_buf, OTHER_SIZE, 97);
	memcpy(other_before, other_buf, OTHER_SIZE);
	other_mr = rnic_reg_mr(pd2, other_buf, OTHER_SIZE, RNIC_ACCESS_LOCAL_WRITE |
			       RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			       RNIC_ACCESS_REMOTE_ATOMIC);
	/* The bystander's memory and the requester buffers (--sends). */
	byst_buf = rte_zmalloc("resp_byst", 4096, 64);
	lbuf = rte_zmalloc("resp_lbuf", LBUF_SIZE, 64);
	if (other_mr == NULL || byst_buf == NULL || lbuf == NULL)
		return -1;
	byst_mr = rnic_reg_mr(pd, byst_buf, 4096, RNIC_ACCESS_LOCAL_WRITE |
			      RNIC_ACCESS_REMOTE_WRITE);
	fill(lbuf, LBUF_SIZE, 96);
	lmr = rnic_reg_mr(pd, lbuf, LBUF_SIZE, RNIC_ACCESS_LOCAL_WRITE);
	byst_cq = rnic_create_cq(dev, 16);
	if (byst_mr == NULL || lmr == NULL || byst_cq == NULL) {
		fprintf(stderr, "harness: bystander setup: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (bystander_setup() != 0)
		return -1;

	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = o.type;
	ia.qp_num = o.qpn;
	ia.cap = (struct rnic_qp_cap){ .max_send_wr = 16,
				       .max_recv_wr = RTE_MAX(recv_slots, 1u),
				       .max_send_sge = 1, .max_recv_sge = o.recv_sge };
	qp = rnic_create_qp(pd, &ia);
	if (qp == NULL) {
		fprintf(stderr, "harness: create_qp 0x%x: %s\n", o.qpn, rte_strerror(rte_errno));
		return -1;
	}

	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	a.pkey = o.pkey;
	a.qkey = o.qkey;
	a.qp_access_flags = o.qp_access;
	mask = RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT;
	mask |= o.type == RNIC_QPT_UD ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS;
	if (o.state == RNIC_QPS_RESET)
		return 0;   /* no receives can be posted in Reset */
	if ((rc = rnic_modify_qp(qp, &a, mask)) != 0) {
		fprintf(stderr, "harness: to Init: %d\n", rc);
		return -1;
	}
	if (o.state == RNIC_QPS_INIT)
		return post_recvs(o.recvs) == 0 ? 0 : -1;
	a.qp_state = RNIC_QPS_RTR;
	mask = RNIC_QP_STATE;
	if (o.type != RNIC_QPT_UD) {
		enum rnic_mtu m = RNIC_MTU_256;

		while (m < RNIC_MTU_4096 && rnic_mtu_bytes(m) < o.pmtu)
			m++;
		if (rnic_mtu_bytes(m) != o.pmtu) {
			fprintf(stderr, "harness: bad --pmtu %u\n", o.pmtu);
			return -1;
		}
		a.path_mtu = m;
		a.dest_qp_num = o.dqpn;
		a.rq_psn = o.rq_psn;
		memcpy(a.ah_attr.dmac, PEER_MAC, 6);
		a.ah_attr.dip = rte_cpu_to_be_32(PEER_IP);
		if (o.ipv6) {
			memcpy(a.ah_attr.dgid, PEER_IP6, 16);
			a.ah_attr.sgid_index = 1;
		}
		mask |= RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN;
		if (o.type == RNIC_QPT_RC) {
			a.max_dest_rd_atomic = (uint8_t)o.max_dest_rd_atomic;
			a.min_rnr_timer = (uint8_t)o.min_rnr_timer;
			mask |= RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
			if (o.sr) {
				a.sr = 1;
				mask |= RNIC_QP_SR;
			}
		}
	}
	if ((rc = rnic_modify_qp(qp, &a, mask)) != 0) {
		fprintf(stderr, "harness: to RTR: %d\n", rc);
		return -1;
	}
	if (o.state == RNIC_QPS_RTR)
		return post_recvs(o.recvs) == 0 ? 0 : -1;
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = o.sq_psn;
	mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN;
	if (o.type == RNIC_QPT_RC) {
		a.timeout = (uint8_t)o.timeout;
		a.retry_cnt = (uint8_t)o.retry_cnt;
		a.rnr_retry = (uint8_t)o.rnr_retry;
		a.max_rd_atomic = (uint8_t)o.max_rd_atomic;
		mask |= RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
			RNIC_QP_MAX_QP_RD_ATOMIC;
	}
	if ((rc = rnic_modify_qp(qp, &a, mask)) != 0) {
		fprintf(stderr, "harness: to RTS: %d\n", rc);
		return -1;
	}
	if (post_recvs(o.recvs) != 0) {
		fprintf(stderr, "harness: post_recv failed\n");
		return -1;
	}
	if (o.state == RNIC_QPS_ERR) {
		a.qp_state = RNIC_QPS_ERR;
		if ((rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE)) != 0) {
			fprintf(stderr, "harness: to Error: %d\n", rc);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */

struct frame {
	uint8_t *data;
	uint32_t len;
};

static struct frame frames[MAX_FRAMES];
static uint32_t n_frames;
static pcap_dumper_t *dumper;
static uint32_t out_total;
static uint64_t poll_iters;
static uint32_t unprompted;   /* frames sent before the first injection */

static int
read_input(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *pc;
	int rc;

	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		fprintf(stderr, "harness: %s: %s\n", path, err);
		return -1;
	}
	while ((rc = pcap_next_ex(pc, &h, &d)) == 1) {
		if (n_frames == MAX_FRAMES || h->caplen != h->len) {
			fprintf(stderr, "harness: %s: too many or truncated frames\n", path);
			pcap_close(pc);
			return -1;
		}
		frames[n_frames].data = malloc(h->caplen);
		if (frames[n_frames].data == NULL)
			return -1;
		memcpy(frames[n_frames].data, d, h->caplen);
		frames[n_frames].len = h->caplen;
		n_frames++;
	}
	pcap_close(pc);
	if (rc != PCAP_ERROR_BREAK) {
		fprintf(stderr, "harness: %s: read error\n", path);
		return -1;
	}
	return 0;
}

/* Collect what the engine sent; returns frames received. */
static unsigned int
collect(void)
{
	struct rte_mbuf *pkts[32];
	unsigned int n = rte_eth_rx_burst(port_test, 0, pkts, RTE_DIM(pkts));

	for (unsigned int i = 0; i < n; i++) {
		static uint8_t flat[16384];
		struct pcap_pkthdr h = {0};
		const void *d = rte_pktmbuf_read(pkts[i], 0, RTE_MIN(pkts[i]->pkt_len,
							sizeof(flat)), flat);

		out_total++;
		/* Timestamps count frames, so the capture is reproducible. */
		h.ts.tv_sec = out_total;
		h.caplen = h.len = RTE_MIN(pkts[i]->pkt_len, (uint32_t)sizeof(flat));
		pcap_dump((u_char *)dumper, &h, d);
		rte_pktmbuf_free(pkts[i]);
	}
	return n;
}

/* Poll the engine until --quiet iterations in a row did nothing. */
static int
settle(void)
{
	uint32_t quiet = 0;
	uint64_t iters = 0;

	while (quiet < o.quiet) {
		unsigned int w = rnic_dev_poll_tx(dev);

		w += rnic_dev_poll_rx(dev);
		w += rnic_dev_poll_timer(dev);
		w += collect();
		w += rnic_dev_tx_backlog(dev);
		quiet = w ? 0 : quiet + 1;
		if (++iters > 50u * 1000 * 1000) {
			fprintf(stderr, "harness: the engine never went quiet\n");
			return -1;
		}
	}
	poll_iters += iters;
	return 0;
}

static int
inject(uint32_t first, uint32_t n)
{
	struct rte_mbuf *m[64];
	uint32_t sent = 0;

	while (sent < n) {
		uint32_t k = RTE_MIN(n - sent, (uint32_t)RTE_DIM(m)), done;

		if (rte_pktmbuf_alloc_bulk(pool, m, k) != 0)
			return -1;
		for (uint32_t i = 0; i < k; i++) {
			const struct frame *f = &frames[first + sent + i];
			char *d = rte_pktmbuf_append(m[i], (uint16_t)f->len);

			if (d == NULL) {
				rte_pktmbuf_free_bulk(m, k);
				return -1;
			}
			memcpy(d, f->data, f->len);
		}
		done = rte_eth_tx_burst(port_test, 0, m, (uint16_t)k);
		if (done != k) {
			rte_pktmbuf_free_bulk(m + done, k - done);
			return -1;
		}
		sent += k;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static void
print_hex(const uint8_t *p, uint64_t n)
{
	static const char hx[] = "0123456789abcdef";

	putchar('"');
	for (uint64_t i = 0; i < n; i++) {
		putchar(hx[p[i] >> 4]);
		putchar(hx[p[i] & 15]);
	}
	putchar('"');
}

static void
print_wcs(const char *name, struct rnic_cq *cq, bool recv)
{
	struct rnic_wc wc[MAX_WC];
	int n = rnic_poll_cq(cq, MAX_WC, wc);

	printf(",\"%s\":[", name);
	for (int i = 0; i < n; i++) {
		const struct rnic_wc *w = &wc[i];

		printf("%s{\"wr_id\":%" PRIu64 ",\"status\":%u,\"status_str\":\"%s\","
		       "\"opcode\":%u,\"wc_flags\":%u,\"qp_num\":%u,\"byte_len\":%u,"
		       "\"imm\":%u,\"inv_rkey\":%u,\"src_qp\":%u",
		       i ? "," : "", w->wr_id, w->status, rnic_wc_status_str(w->status),
		       w->opcode, w->wc_flags, w->qp_num, w->byte_len,
		       rte_be_to_cpu_32(w->imm_data), w->invalidated_rkey, w->src_qp);
		if (recv && w->status == RNIC_WC_SUCCESS && w->wr_id < recv_slots) {
			/* The bytes that landed in that receive's buffer. */
			uint32_t len = RTE_MIN(w->byte_len, o.recv_size);

			printf(",\"data\":");
			print_hex(recv_buf + (size_t)w->wr_id * o.recv_size, len);
		}
		putchar('}');
	}
	putchar(']');
}

static uint32_t
changed(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint32_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += a[i] != b[i];
	return c;
}

/*
 * Another QP of the same engine still serves: a WRITE Only of 64 bytes to
 * the bystander must be answered by one ACK of its PSN and land in its
 * memory. Returns NULL when it did, else what went wrong.
 */
static const char *
bystander_check(void)
{
	static char why[160];
	static uint8_t frame[512];
	uint8_t pay[64];
	struct rnic_l2l3 l = {
		.src_ip = rte_cpu_to_be_32(PEER_IP), .dst_ip = rte_cpu_to_be_32(ENGINE_IP),
		.ttl = 64, .udp_sport = 0xc0de, .udp_dport = RNIC_ROCE_UDP_PORT,
	};
	struct rnic_bth_fields b = {
		.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY), .ackreq = true,
		.pkey = RNIC_DEFAULT_PKEY, .dqpn = BYST_QPN, .psn = 0x1000,
	};
	struct rnic_ext_fields e = { .reth_va = (uintptr_t)byst_buf,
				     .reth_rkey = rnic_mr_rkey(byst_mr), .reth_len = 64 };
	struct rte_mbuf *m, *pkts[32];
	struct rnic_pkt pkt;
	uint32_t n, quiet = 0, got = 0;
	uint64_t iters = 0;
	bool ack_ok = false;

	memcpy(l.src_mac, PEER_MAC, 6);
	memcpy(l.dst_mac, ENGINE_MAC, 6);
	fill(pay, sizeof(pay), 77);
	n = rnic_pkt_build_buf(frame, sizeof(frame), &l, &b, &e, pay, sizeof(pay));
	m = rte_pktmbuf_alloc(pool);
	if (n == 0 || m == NULL || rte_pktmbuf_append(m, (uint16_t)n) == NULL) {
		rte_pktmbuf_free(m);
		return "cannot build the bystander's WRITE";
	}
	memcpy(rte_pktmbuf_mtod(m, void *), frame, n);
	if (rte_eth_tx_burst(port_test, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return "cannot inject the bystander's WRITE";
	}
	while (quiet < o.quiet && ++iters < 50u * 1000 * 1000) {
		unsigned int w = rnic_dev_poll_tx(dev) + rnic_dev_poll_rx(dev) +
				 rnic_dev_poll_timer(dev) + rnic_dev_tx_backlog(dev);
		uint16_t k = rte_eth_rx_burst(port_test, 0, pkts, RTE_DIM(pkts));

		for (uint16_t i = 0; i < k; i++) {
			got++;
			ack_ok = rnic_pkt_parse_mbuf(pkts[i], true, &pkt) == RNIC_PKT_ERR_OK &&
				 pkt.bth.opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK) &&
				 pkt.bth.dqpn == BYST_PEER && pkt.bth.psn == 0x1000 &&
				 (pkt.ext.aeth_syn & RNIC_AETH_TYPE_MASK) == RNIC_AETH_ACK;
		}
		rte_pktmbuf_free_bulk(pkts, k);
		quiet = w + k ? 0 : quiet + 1;
	}
	if (got != 1 || !ack_ok) {
		snprintf(why, sizeof(why), "the bystander QP 0x%x answered %u frames (want one "
			 "ACK of PSN 0x1000)%s", BYST_QPN, got, got == 1 ? ", not that ACK" : "");
		return why;
	}
	if (memcmp(byst_buf, pay, sizeof(pay)) != 0)
		return "the bystander's WRITE did not land";
	return NULL;
}

/* Every QP to Reset, then both pools must be full: nothing leaked. */
static void
pool_check(uint32_t *eng_missing, uint32_t *test_missing)
{
	struct rnic_qp_attr a = { .qp_state = RNIC_QPS_RESET };
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *ep;

	rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	rnic_modify_qp(byst, &a, RNIC_QP_STATE);
	for (uint32_t q = 0; q < o.quiet; q++) {
		struct rte_mbuf *pkts[32];
		unsigned int w = rnic_dev_poll_tx(dev) + rnic_dev_poll_rx(dev) +
				 rnic_dev_poll_timer(dev);
		uint16_t k = rte_eth_rx_burst(port_test, 0, pkts, RTE_DIM(pkts));

		rte_pktmbuf_free_bulk(pkts, k);
		if (w + k)
			q = 0;
	}
	snprintf(name, sizeof(name), "rnic_pool%u", port_eng);
	ep = rte_mempool_lookup(name);
	*eng_missing = ep == NULL ? UINT32_MAX : ep->size - rte_mempool_avail_count(ep);
	*test_missing = pool->size - rte_mempool_avail_count(pool);
}

static void
report(const uint32_t *out_per_group, uint32_t n_groups)
{
	struct rnic_dev_stats st;
	struct rnic_qp_attr qa;
	struct rnic_async_event ev;
	bool first = true;
	const char *byst_why;
	uint32_t eng_missing, test_missing;
	static uint8_t lfill[LBUF_SIZE];

	/* What the case did, before the bystander's own traffic. */
	rnic_dev_stats_get(dev, &st);
	rnic_query_qp(qp, &qa, 0, NULL);
	byst_why = bystander_check();
	pool_check(&eng_missing, &test_missing);
	fill(lfill, LBUF_SIZE, 96);
	printf("REPORT {\"mr_va\":%" PRIu64 ",\"rkey\":%u,\"lkey\":%u,\"recv_lkey\":%u,"
	       "\"qpn\":%u,\"qp_state\":\"%s\",\"rq_psn\":%u,\"frames_in\":%u,"
	       "\"frames_out\":%u,\"unprompted\":%u,\"poll_iters\":%" PRIu64 ","
	       "\"guard_changed\":%u,\"other_va\":%" PRIu64 ",\"other_rkey\":%u,"
	       "\"other_changed\":%u,\"lbuf_changed\":%u,\"bystander\":\"%s\","
	       "\"pool_missing\":{\"engine\":%u,\"harness\":%u},"
	       "\"out_per_group\":[",
	       (uint64_t)(uintptr_t)mr_buf, rnic_mr_rkey(mr), rnic_mr_lkey(mr),
	       rnic_mr_lkey(rmr), rnic_qp_num(qp), rnic_qp_state_str(qa.qp_state),
	       qa.rq_psn, n_frames, out_total, unprompted, poll_iters,
	       changed(guard_lo, guard_before[0], GUARD) + changed(guard_hi, guard_before[1], GUARD),
	       (uint64_t)(uintptr_t)other_buf, rnic_mr_rkey(other_mr),
	       changed(other_buf, other_before, OTHER_SIZE), changed(lbuf, lfill, LBUF_SIZE),
	       byst_why ? byst_why : "ok", eng_missing, test_missing);
	for (uint32_t i = 0; i < n_groups; i++)
		printf("%s%u", i ? "," : "", out_per_group[i]);
	printf("],\"mr_before\":");
	print_hex(mr_before, o.mr_size);
	printf(",\"mr_after\":");
	print_hex(mr_buf, o.mr_size);
	/* The requester buffers' start (--sends' READ data lands there). */
	printf(",\"lbuf_head\":");
	print_hex(lbuf, 4096);
	print_wcs("recv_wcs", rcq, true);
	print_wcs("send_wcs", scq, false);
	printf(",\"events\":[");
	while (rnic_get_async_event(dev, &ev) == 1) {
		printf("%s{\"type\":%d,\"qp_num\":%u}", first ? "" : ",", ev.type, ev.qp_num);
		first = false;
	}
	printf("],\"stats\":{");
	for (unsigned int i = 0; i < rnic_dev_stat_count; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", rnic_dev_stat_names[i],
		       ((const uint64_t *)&st)[i]);
	printf("},\"drop_reason\":{");
	for (unsigned int i = 0; i < RNIC_PKT_ERR_MAX && i < RTE_DIM(st.drop_reason); i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", rnic_pkt_err_name[i],
		       st.drop_reason[i]);
	printf("}}\n");
}

int
main(int argc, char **argv)
{
	static uint32_t out_per_group[MAX_FRAMES];
	uint32_t n_groups = 0, at = 0;
	pcap_t *dead;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "harness: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	parse_args(argc, argv);
	if (setup() != 0)
		return 1;
	if (o.info) {
		printf("INFO {\"mr_va\":%" PRIu64 ",\"rkey\":%u,\"lkey\":%u,\"qpn\":%u,"
		       "\"other_va\":%" PRIu64 ",\"other_rkey\":%u,\"sq_psn\":%u}\n",
		       (uint64_t)(uintptr_t)mr_buf, rnic_mr_rkey(mr), rnic_mr_lkey(mr),
		       rnic_qp_num(qp), (uint64_t)(uintptr_t)other_buf, rnic_mr_rkey(other_mr),
		       o.sq_psn);
		fflush(stdout);
		rnic_dev_destroy(dev);
		rte_eal_cleanup();
		return 0;
	}
	if (read_input(o.in) != 0)
		return 1;
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	dumper = dead ? pcap_dump_open(dead, o.out) : NULL;
	if (dumper == NULL) {
		fprintf(stderr, "harness: cannot write %s\n", o.out);
		return 1;
	}
	/* Settle first: nothing may come out before the first frame goes in
	 * but the requests of --sends. */
	if (post_sends() != 0)
		return 1;
	if (settle() != 0)
		return 1;
	unprompted = out_total;
	while (at < n_frames) {
		uint32_t k = n_groups < o.n_groups ? o.groups[n_groups] : o.burst;
		uint32_t before = out_total;

		k = RTE_MIN(RTE_MAX(k, 1u), n_frames - at);
		if (inject(at, k) != 0) {
			fprintf(stderr, "harness: inject failed\n");
			return 1;
		}
		at += k;
		if (settle() != 0)
			return 1;
		out_per_group[n_groups++] = out_total - before;
		/* Receives posted late, after group N (1-based). */
		for (uint32_t i = 0; i < o.n_late; i++)
			if (o.late_at[i] == n_groups && post_recvs(o.late_n[i]) != 0) {
				fprintf(stderr, "harness: late post_recv failed\n");
				return 1;
			}
	}
	pcap_dump_flush(dumper);
	pcap_dump_close(dumper);
	pcap_close(dead);
	report(out_per_group, n_groups);
	fflush(stdout);
	rnic_dev_destroy(dev);
	rte_eal_cleanup();
	return 0;
}
