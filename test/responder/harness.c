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
	.burst = 1, .quiet = 2000,
};

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
		"  --groups a,b,c --late-recvs GROUP:N (repeatable) --quiet ITERS\n");
	exit(1);
}

static void
parse_args(int argc, char **argv)
{
	enum { O_INFO = 256, O_IN, O_OUT, O_TYPE, O_QPN, O_DQPN, O_RQPSN, O_SQPSN,
	       O_PMTU, O_RNR, O_MDRA, O_QPACC, O_MRACC, O_QKEY, O_PKEY, O_RECVS,
	       O_RSIZE, O_RSGE, O_MRSIZE, O_MRADDR, O_MRFILL, O_BURST, O_GROUPS,
	       O_LATE, O_QUIET };
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
static struct rnic_pd *pd;
static struct rnic_cq *rcq, *scq;
static struct rnic_mr *mr, *rmr;
static struct rnic_qp *qp;
static uint8_t *mr_buf, *mr_before, *recv_buf;
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
	struct rnic_dev_attr da = { .mtu = 4096, .mbufs = 4096 };
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp_attr a = {0};
	int rc, mask;
	void *p;

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

	/* The target MR at a fixed VA, so --info and the real run agree. */
	p = mmap((void *)(uintptr_t)o.mr_addr, o.mr_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (uint64_t)(uintptr_t)p != o.mr_addr) {
		fprintf(stderr, "harness: cannot map the MR at 0x%" PRIx64 ": %s\n",
			o.mr_addr, p == MAP_FAILED ? strerror(errno) : "got another address");
		return -1;
	}
	mr_buf = p;
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
	if ((rc = rnic_modify_qp(qp, &a, mask)) != 0) {
		fprintf(stderr, "harness: to Init: %d\n", rc);
		return -1;
	}
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
		mask |= RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN;
		if (o.type == RNIC_QPT_RC) {
			a.max_dest_rd_atomic = (uint8_t)o.max_dest_rd_atomic;
			a.min_rnr_timer = (uint8_t)o.min_rnr_timer;
			mask |= RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
		}
	}
	if ((rc = rnic_modify_qp(qp, &a, mask)) != 0) {
		fprintf(stderr, "harness: to RTR: %d\n", rc);
		return -1;
	}
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = o.sq_psn;
	mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN;
	if (o.type == RNIC_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
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

static void
report(const uint32_t *out_per_group, uint32_t n_groups)
{
	struct rnic_dev_stats st;
	struct rnic_qp_attr qa;
	struct rnic_async_event ev;
	bool first = true;

	rnic_dev_stats_get(dev, &st);
	rnic_query_qp(qp, &qa, 0, NULL);
	printf("REPORT {\"mr_va\":%" PRIu64 ",\"rkey\":%u,\"lkey\":%u,\"recv_lkey\":%u,"
	       "\"qpn\":%u,\"qp_state\":\"%s\",\"rq_psn\":%u,\"frames_in\":%u,"
	       "\"frames_out\":%u,\"unprompted\":%u,\"poll_iters\":%" PRIu64 ","
	       "\"out_per_group\":[",
	       (uint64_t)(uintptr_t)mr_buf, rnic_mr_rkey(mr), rnic_mr_lkey(mr),
	       rnic_mr_lkey(rmr), rnic_qp_num(qp), rnic_qp_state_str(qa.qp_state),
	       qa.rq_psn, n_frames, out_total, unprompted, poll_iters);
	for (uint32_t i = 0; i < n_groups; i++)
		printf("%s%u", i ? "," : "", out_per_group[i]);
	printf("],\"mr_before\":");
	print_hex(mr_before, o.mr_size);
	printf(",\"mr_after\":");
	print_hex(mr_buf, o.mr_size);
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
		printf("INFO {\"mr_va\":%" PRIu64 ",\"rkey\":%u,\"lkey\":%u,\"qpn\":%u}\n",
		       (uint64_t)(uintptr_t)mr_buf, rnic_mr_rkey(mr), rnic_mr_lkey(mr),
		       rnic_qp_num(qp));
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
	/* Settle first: nothing may come out before the first frame goes in. */
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
