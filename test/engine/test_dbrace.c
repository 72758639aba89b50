/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [DB] under a real race: the TX role tells the application it took a
 * QP's doorbell (db_seen) only when a turn finds the SQ empty, then reads
 * the doorbell record (sq_pi) once more and keeps the QP if that found
 * WQEs (rnic_tx.c tx_qp_idle); the application stores sq_pi, then loads
 * db_seen and rings unless a doorbell is still owed (rnic_post.c). If
 * either side skipped its second step, a post landing while TX concludes
 * the QP's turn would ring no doorbell and never be sent.
 *
 * Two devices on an in-process ring pair, polled by an engine lcore (the
 * test's second lcore, on its own CPU) while this thread posts: an RC
 * WRITE, a spin of a varying length (0 to about 3000 cycles, so that the
 * second post sweeps across TX's handling of the first), a second WRITE,
 * then both completions, each wait bounded. Every WR must complete, in
 * order and successfully, and the written bytes must arrive. Runs for a
 * bounded time (RUN_SEC) or ROUNDS rounds.
 *
 * Arguments: the EAL's, with two lcores on two CPUs (--lcores=0@0,1@1).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "rnic_verbs.h"
#include "test_common.h"

#define ROUNDS   200000u
#define RUN_SEC  2u      /* the rounds stop here at the latest */
#define WAIT_SEC 2u      /* a completion later than this is a lost doorbell */
#define BUF_SIZE 4096u

static struct test_side A, B;
static int stop;   /* W: main, release; R: the engine lcore, acquire */

static int
engine_lcore(void *arg)
{
	RTE_SET_USED(arg);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		test_poll_pair(&A, &B);
	return 0;
}

static int
post_write(struct rnic_qp *qp, uint64_t id, uint32_t off)
{
	struct rnic_sge sge = { (uintptr_t)(A.buf + off), 8, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = RNIC_WR_RDMA_WRITE,
		.send_flags = RNIC_SEND_SIGNALED,
	};
	struct rnic_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)(B.buf + off);
	wr.wr.rdma.rkey = rnic_mr_rkey(B.mr);
	return rnic_post_send(qp, &wr, &bad);
}

/* The completion of WR @p id, within WAIT_SEC. */
static int
wait_one(uint64_t id)
{
	const uint64_t end = rte_rdtsc() + WAIT_SEC * rte_get_tsc_hz();
	struct rnic_wc wc;

	for (;;) {
		int n = rnic_poll_cq(A.cq, 1, &wc);

		if (n == 1)
			break;
		VERIFY(n == 0, "poll_cq %d", n);
		VERIFY(rte_rdtsc() < end, "WR %" PRIu64 " not completed in %u s: its post rang no "
		       "doorbell and TX did not see it", id, WAIT_SEC);
		rte_pause();
	}
	VERIFY(wc.status == RNIC_WC_SUCCESS && wc.wr_id == id,
	       "completion of WR %" PRIu64 ": status %d wr_id %" PRIu64, id, wc.status, wc.wr_id);
	return 0;
}

static int
race(struct rnic_qp *qa, unsigned int *rounds)
{
	const uint64_t end = rte_rdtsc() + RUN_SEC * rte_get_tsc_hz();
	uint32_t x = 12345;

	for (uint64_t i = 0; i < ROUNDS && rte_rdtsc() < end; i++) {
		uint32_t off = (uint32_t)(i % (BUF_SIZE / 16)) * 16;
		uint64_t spin;

		memcpy(A.buf + off, &i, 8);
		VERIFY(post_write(qa, 2 * i, off) == 0, "post %" PRIu64, 2 * i);
		x = x * 1103515245u + 12345u;
		spin = rte_rdtsc() + ((x >> 16) % 3000u);
		while (rte_rdtsc() < spin)
			;
		VERIFY(post_write(qa, 2 * i + 1, off + 8) == 0, "post %" PRIu64, 2 * i + 1);
		if (wait_one(2 * i) != 0 || wait_one(2 * i + 1) != 0)
			return -1;
		VERIFY(memcmp(B.buf + off, &i, 8) == 0, "round %" PRIu64 ": the bytes did not arrive",
		       i);
		*rounds = (unsigned int)(i + 1);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct rnic_qp_init_attr ia = {
		.qp_type = RNIC_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rnic_dev_attr da = { .mtu = 1024, .mbufs = 4096 };
	struct rnic_dev_stats st;
	struct rnic_qp *qa = NULL, *qb = NULL;
	unsigned int worker, rounds = 0;
	uint16_t pa, pb;
	int rc = -1;

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		printf("FAIL this test wants a second lcore (--lcores=0@0,1@1)\n");
		return 1;
	}
	if (rnic_port_ring_pair("dbr_a", "dbr_b", 1024, &pa, &pb) != 0) {
		printf("FAIL ring pair\n");
		return 1;
	}
	da.port_id = pa;
	if (test_side_up(&A, &da, 1, 256, BUF_SIZE, 64) != 0)
		goto out;
	da.port_id = pb;
	if (test_side_up(&B, &da, 2, 256, BUF_SIZE, 64) != 0)
		goto out;
	ia.send_cq = ia.recv_cq = A.cq;
	qa = rnic_create_qp(A.pd, &ia);
	ia.send_cq = ia.recv_cq = B.cq;
	qb = rnic_create_qp(B.pd, &ia);
	if (qa == NULL || qb == NULL ||
	    test_qp_connect(qa, &B, qb, RNIC_MTU_1024, 0, 0, 14, 7) != 0 ||
	    test_qp_connect(qb, &A, qa, RNIC_MTU_1024, 0, 0, 14, 7) != 0) {
		printf("FAIL QPs\n");
		goto out;
	}
	rnic_dev_set_polled(A.dev, true);
	rnic_dev_set_polled(B.dev, true);
	if (rte_eal_remote_launch(engine_lcore, NULL, worker) != 0) {
		printf("FAIL launch\n");
		goto out;
	}
	rc = race(qa, &rounds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	rnic_dev_stats_get(A.dev, &st);
	printf("%u rounds (%u WRs), %" PRIu64 " doorbells\n", rounds, 2 * rounds, st.doorbells);
	/* Not vacuous: rounds ran (even on one shared CPU, some hundreds),
	 * and some second posts found the first one's doorbell still owed,
	 * so they reached TX only through its second read of sq_pi or its
	 * walk. */
	if (rc == 0 && (!TEST_CHECK(rounds >= 100, "only %u rounds in %u s", rounds, RUN_SEC) ||
			!TEST_CHECK(st.doorbells < 2ull * rounds, "%" PRIu64 " doorbells for %u "
				    "WRs: no post found a doorbell owed, the race was not reached",
				    st.doorbells, 2 * rounds)))
		rc = -1;
out:
	/* nobody polls now: destroying a QP takes it off the lists itself */
	if (A.dev != NULL)
		rnic_dev_set_polled(A.dev, false);
	if (B.dev != NULL)
		rnic_dev_set_polled(B.dev, false);
	if (qa != NULL)
		rnic_destroy_qp(qa);
	if (qb != NULL)
		rnic_destroy_qp(qb);
	printf("%s\n", rc == 0 && test_verify_failed == 0 ? "PASS" : "FAIL");
	return rc == 0 && test_verify_failed == 0 ? 0 : 1;
}
