/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-bench-scale: RC WRITE throughput of two devices with N workers each
 * on an in-process ring pair of N queue pairs, where each worker's lcore
 * also posts and polls the completions of its own QPs, so that the N
 * lcores are the N workers and share nothing on the data path (issue 16:
 * "each worker posting and polling its own QPs").
 *
 *   rnic-bench-scale [EAL] -- -w N -s SIZE [-m PMTU] [-D SECS] [-q QPS]
 *                            [-t DEPTH] [-u TIMEOUT] [--ring-size R]
 *
 * QP pair i lives on worker i % N on both devices (auto QPNs are handed
 * out round robin over the workers) and completes into its worker's CQ.
 * Prints one line:
 *   bench: test=scale workers=N size=S pmtu=P qps=Q msgs_mpps=X gbps=G
 * The ratio of two runs (N = 2 against N = 1) is the scaling figure of
 * scripts/bench.py. Bounded: -D seconds plus setup; a worker that makes no
 * progress for 5 s ends the run with an error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "test_common.h"

#define MAX_W 16
#define MARGIN 0.2         /* of -D: warm-up not measured */

static struct {
	unsigned int workers, qps, depth, cq_mod, ring_size;
	uint32_t size, pmtu;
	double secs;
	uint8_t timeout;
} opt = { .workers = 1, .qps = 1, .depth = 128, .size = 64, .pmtu = 1024, .secs = 3,
	  .timeout = 14, .ring_size = 4096 };

static struct test_side A, B;
static struct rnic_cq *cq_a[MAX_W], *cq_b[MAX_W];
static struct rnic_qp **qa, **qb;
/* WRITEs in flight per QP pair, each on its own line: the workers' lcores
 * must share no line (that would be the benchmark's bottleneck). */
static struct {
	unsigned int n;
} __rte_cache_aligned *inflight;

/* What each worker's lcore measured. */
static struct {
	uint64_t done0, done1;   /* messages completed at the measured span's ends */
	uint64_t t0, t1;
	int err;
} __rte_cache_aligned res[MAX_W];

static int
parse(int argc, char **argv)
{
	static const struct option lo[] = { { "ring-size", required_argument, NULL, 'R' },
					    { NULL, 0, NULL, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "w:s:m:D:q:t:u:", lo, NULL)) != -1) {
		switch (c) {
		case 'w': opt.workers = (unsigned int)atoi(optarg); break;
		case 's': opt.size = (uint32_t)atoi(optarg); break;
		case 'm': opt.pmtu = (uint32_t)atoi(optarg); break;
		case 'D': opt.secs = atof(optarg); break;
		case 'q': opt.qps = (unsigned int)atoi(optarg); break;
		case 't': opt.depth = (unsigned int)atoi(optarg); break;
		case 'u': opt.timeout = (uint8_t)atoi(optarg); break;
		case 'R': opt.ring_size = (unsigned int)atoi(optarg); break;
		default: return -1;
		}
	}
	opt.cq_mod = RTE_MIN(opt.depth, 16u);
	if (opt.workers == 0 || opt.workers > MAX_W || opt.qps < opt.workers || opt.depth == 0 ||
	    opt.depth % opt.cq_mod || opt.size == 0 || opt.secs <= 0 ||
	    rnic_mtu_bytes((enum rnic_mtu)(rte_log2_u32(opt.pmtu) - 7)) != opt.pmtu) {
		fprintf(stderr, "rnic-bench-scale: bad options (see the header of bench_scale.c)\n");
		return -1;
	}
	return 0;
}

/* Bytes of the buffer each worker's WRITEs take: the source at 0 (read
 * by all), the target of worker w at (1 + w) slots, so that no two
 * workers write one cache line. */
static size_t
slot(void)
{
	return RTE_ALIGN_CEIL((size_t)opt.size, 4096);
}

static int
side(struct test_side *s, uint16_t port, uint8_t last, struct rnic_cq **cqs)
{
	struct rnic_dev_attr a = {
		.port_id = port, .workers = (uint16_t)opt.workers,
		.max_qps = RTE_MAX(opt.qps, 64u),
		.mbufs = RTE_MAX(16384u, 2 * opt.qps * opt.depth * ((opt.size + opt.pmtu - 1) /
								     opt.pmtu)),
	};

	if (test_side_up(s, &a, last, 64, (size_t)slot() * (opt.workers + 1), 4096) != 0)
		return -1;
	for (unsigned int w = 0; w < opt.workers; w++) {
		cqs[w] = rnic_create_cq(s->dev, opt.qps / opt.workers * opt.depth + 64);
		if (cqs[w] == NULL)
			return -1;
	}
	rnic_dev_set_polled(s->dev, true);
	return 0;
}

static struct rnic_qp *
mkqp(struct test_side *s, struct rnic_cq *cq)
{
	struct rnic_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = RNIC_QPT_RC,
		.cap = { .max_send_wr = opt.depth, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return rnic_create_qp(s->pd, &ia);
}

/* QP pair i on worker i % N of both devices, connected. */
static int
qps_up(void)
{
	enum rnic_mtu mtu = (enum rnic_mtu)(rte_log2_u32(opt.pmtu) - 7);

	qa = calloc(opt.qps, sizeof(*qa));
	qb = calloc(opt.qps, sizeof(*qb));
	inflight = rte_zmalloc("inflight", opt.qps * sizeof(*inflight), RTE_CACHE_LINE_SIZE);
	if (qa == NULL || qb == NULL || inflight == NULL)
		return -1;
	for (unsigned int i = 0; i < opt.qps; i++) {
		unsigned int w = i % opt.workers;

		qa[i] = mkqp(&A, cq_a[w]);
		qb[i] = mkqp(&B, cq_b[w]);
		if (qa[i] == NULL || qb[i] == NULL || rnic_qp_worker(qa[i]) != w ||
		    rnic_qp_worker(qb[i]) != w) {
			fprintf(stderr, "rnic-bench-scale: QP pair %u not on worker %u\n", i, w);
			return -1;
		}
		if (test_qp_connect(qa[i], &B, qb[i], mtu, 0, 0, opt.timeout, 7) != 0 ||
		    test_qp_connect(qb[i], &A, qa[i], mtu, 0, 0, opt.timeout, 7) != 0)
			return -1;
	}
	return 0;
}

/* Keep QP @p i's window full: cq_mod WRITEs at a time, the last signaled. */
static void
post(unsigned int i)
{
	struct rnic_sge sge = { .addr = (uintptr_t)A.buf, .length = opt.size,
				.lkey = rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr[16], *bad;

	while (inflight[i].n + opt.cq_mod <= opt.depth) {
		for (unsigned int j = 0; j < opt.cq_mod; j++) {
			wr[j] = (struct rnic_send_wr){
				.wr_id = i, .sg_list = &sge, .num_sge = 1,
				.opcode = RNIC_WR_RDMA_WRITE,
				.send_flags = j + 1 == opt.cq_mod ? RNIC_SEND_SIGNALED : 0,
				.next = j + 1 < opt.cq_mod ? &wr[j + 1] : NULL,
			};
			wr[j].wr.rdma.remote_addr = (uintptr_t)B.buf +
						    slot() * (1 + i % opt.workers);
			wr[j].wr.rdma.rkey = rnic_mr_rkey(B.mr);
		}
		if (rnic_post_send(qa[i], wr, &bad) != 0)
			return;
		inflight[i].n += opt.cq_mod;
	}
}

static int
worker_main(void *arg)
{
	unsigned int w = (unsigned int)(uintptr_t)arg;
	uint64_t hz = rte_get_tsc_hz(), start = rte_get_tsc_cycles(), done = 0, last = start;
	uint64_t t0 = start + (uint64_t)(opt.secs * MARGIN * (double)hz);
	uint64_t t1 = start + (uint64_t)(opt.secs * (double)hz);
	bool measuring = false;
	struct rnic_wc wc[32];

	/* Fill every window once; then a completion refills its own QP's
	 * (a scan of thousands of mostly full QPs would be the bottleneck). */
	for (unsigned int i = w; i < opt.qps; i += opt.workers)
		post(i);
	for (;;) {
		uint64_t now;
		int n;

		rnic_worker_poll(A.dev, w, RNIC_ROLE_ALL);
		rnic_worker_poll(B.dev, w, RNIC_ROLE_ALL);
		n = rnic_poll_cq(cq_a[w], RTE_DIM(wc), wc);
		for (int k = 0; k < n; k++) {
			if (wc[k].status != RNIC_WC_SUCCESS) {
				fprintf(stderr, "rnic-bench-scale: worker %u: %s\n", w,
					rnic_wc_status_str(wc[k].status));
				res[w].err = -1;
				return -1;
			}
			inflight[wc[k].wr_id].n -= opt.cq_mod;
			done += opt.cq_mod;
		}
		for (int k = 0; k < n; k++)
			post((unsigned int)wc[k].wr_id);
		now = rte_get_tsc_cycles();
		if (n > 0)
			last = now;
		else if (now - last > 5 * hz) {
			fprintf(stderr, "rnic-bench-scale: worker %u: no progress for 5 s\n", w);
			res[w].err = -1;
			return -1;
		}
		if (!measuring && now >= t0) {
			measuring = true;
			res[w].done0 = done;
			res[w].t0 = now;
		}
		if (now >= t1) {
			res[w].done1 = done;
			res[w].t1 = now;
			return 0;
		}
	}
}

int
main(int argc, char **argv)
{
	int eal = rte_eal_init(argc, argv);
	unsigned int lc, w;
	uint16_t pa, pb;
	double mps = 0;

	if (eal < 0 || parse(argc - eal, argv + eal) != 0)
		return 2;
	if (rte_lcore_count() < opt.workers) {
		fprintf(stderr, "rnic-bench-scale: %u workers need %u lcores (EAL -l/--lcores)\n",
			opt.workers, opt.workers);
		return 2;
	}
	if (rnic_port_ring_pair_n("scA", "scB", opt.ring_size, opt.workers, &pa, &pb) != 0 ||
	    side(&A, pa, 1, cq_a) != 0 || side(&B, pb, 2, cq_b) != 0 || qps_up() != 0) {
		fprintf(stderr, "rnic-bench-scale: setup failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	/* Worker 0 on the main lcore, worker k on the k-th worker lcore. */
	w = 1;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (w == opt.workers)
			break;
		rte_eal_remote_launch(worker_main, (void *)(uintptr_t)w++, lc);
	}
	worker_main((void *)0);
	rte_eal_mp_wait_lcore();
	for (w = 0; w < opt.workers; w++) {
		if (res[w].err)
			return 1;
		mps += (double)(res[w].done1 - res[w].done0) * (double)rte_get_tsc_hz() /
		       (double)(res[w].t1 - res[w].t0);
	}
	printf("bench: test=scale workers=%u size=%u pmtu=%u qps=%u msgs_mpps=%.4f gbps=%.2f\n",
	       opt.workers, opt.size, opt.pmtu, opt.qps, mps / 1e6, mps * opt.size * 8 / 1e9);
	return 0;
}
