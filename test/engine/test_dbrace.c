/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [DB] under a real race: the TX role tells the application it took a
 * QP's doorbell (db_seen) only when a turn finds the SQ empty, then reads
 * the doorbell record (sq_pi) once more and keeps the QP if that found
 * WQEs (rnic_tx.c tx_settle); the application stores sq_pi, then loads
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
 * Then the same with NQ QPs at once and a device burst of BURST frames:
 * a WRITE on each, the spin, a second on each, all 2 * NQ completions
 * (in order per QP). A pass then finds many QPs idle (tx_walk settles
 * them with one fence, rnic_tx.c tx_settle: at the pass's end, or in
 * the walk once TX_IDLE_BATCH, 32, are noted, which NQ exceeds) and
 * is cut by the burst in the middle of the list, where a QP taken off
 * must leave the QPs still to be visited in this cycle on its unvisited
 * part. A QP lost from the list, or kept off it with WQEs posted, leaves
 * its WRs uncompleted.
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
#define BUF_SIZE 12288u
#define NQ       48u     /* the second race's QPs: more than TX_IDLE_BATCH */
#define BURST    40u     /* the devices' burst: passes cut short */
#define SLOT     (BUF_SIZE / NQ)   /* each QP's part of the buffers */

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

/* The 2 * NQ completions of round @p i of race_many, within WAIT_SEC:
 * each QP's WRs in order (wr_id: the QP's index << 32, then 2i, 2i + 1). */
static int
wait_many(uint64_t i)
{
	const uint64_t end = rte_rdtsc() + WAIT_SEC * rte_get_tsc_hz();
	uint64_t next[NQ];
	unsigned int got = 0;

	for (unsigned int q = 0; q < NQ; q++)
		next[q] = 2 * i;
	while (got < 2 * NQ) {
		struct rnic_wc wc[2 * NQ];
		int n = rnic_poll_cq(A.cq, (int)(2 * NQ - got), wc);

		VERIFY(n >= 0, "poll_cq %d", n);
		for (int k = 0; k < n; k++) {
			unsigned int q = (unsigned int)(wc[k].wr_id >> 32);

			VERIFY(wc[k].status == RNIC_WC_SUCCESS && q < NQ &&
			       (uint32_t)wc[k].wr_id == (uint32_t)next[q],
			       "round %" PRIu64 ": completion wr_id %#" PRIx64 " status %d", i,
			       wc[k].wr_id, wc[k].status);
			next[q]++;
		}
		got += (unsigned int)n;
		if (n == 0) {
			VERIFY(rte_rdtsc() < end, "round %" PRIu64 ": %u of %u WRs completed in "
			       "%u s: a QP left TX's list with WRs posted", i, got, 2 * NQ, WAIT_SEC);
			rte_pause();
		}
	}
	return 0;
}

static int
race_many(struct rnic_qp **qa, unsigned int *rounds)
{
	const uint64_t end = rte_rdtsc() + RUN_SEC * rte_get_tsc_hz();
	uint32_t x = 54321;

	for (uint64_t i = 0; i < ROUNDS && rte_rdtsc() < end; i++) {
		uint32_t off = (uint32_t)(i % (SLOT / 16)) * 16;
		uint64_t spin;

		for (unsigned int q = 0; q < NQ; q++) {
			memcpy(A.buf + q * SLOT + off, &i, 8);
			VERIFY(post_write(qa[q], (uint64_t)q << 32 | 2 * i, q * SLOT + off) == 0,
			       "QP %u post %" PRIu64, q, 2 * i);
		}
		x = x * 1103515245u + 12345u;
		spin = rte_rdtsc() + ((x >> 16) % 3000u);
		while (rte_rdtsc() < spin)
			;
		for (unsigned int q = 0; q < NQ; q++)
			VERIFY(post_write(qa[q], (uint64_t)q << 32 | (2 * i + 1),
					  q * SLOT + off + 8) == 0, "QP %u post %" PRIu64, q, 2 * i + 1);
		if (wait_many(i) != 0)
			return -1;
		for (unsigned int q = 0; q < NQ; q++)
			VERIFY(memcmp(B.buf + q * SLOT + off, &i, 8) == 0,
			       "round %" PRIu64 ": QP %u's bytes did not arrive", i, q);
		*rounds = (unsigned int)(i + 1);
	}
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
	struct rnic_dev_attr da = { .mtu = 1024, .mbufs = 4096, .burst = BURST };
	struct rnic_dev_stats st;
	struct rnic_qp *qa[NQ] = { NULL }, *qb[NQ] = { NULL };
	unsigned int worker, rounds = 0, rounds_many = 0;
	uint64_t db_one = 0;
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
	if (test_rc_pairs(&A, &B, NULL, qa, qb, NQ) != 0) {
		printf("FAIL QPs\n");
		goto out;
	}
	rnic_dev_set_polled(A.dev, true);
	rnic_dev_set_polled(B.dev, true);
	if (rte_eal_remote_launch(engine_lcore, NULL, worker) != 0) {
		printf("FAIL launch\n");
		goto out;
	}
	rc = race(qa[0], &rounds);
	rnic_dev_stats_get(A.dev, &st);
	db_one = st.doorbells;
	if (rc == 0)
		rc = race_many(qa, &rounds_many);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	rnic_dev_stats_get(A.dev, &st);
	printf("%u rounds (%u WRs), %" PRIu64 " doorbells; %u QPs: %u rounds (%u WRs), %" PRIu64
	       " doorbells\n", rounds, 2 * rounds, db_one, NQ, rounds_many, 2 * NQ * rounds_many,
	       st.doorbells - db_one);
	/* Not vacuous: rounds ran (even on one shared CPU, some hundreds),
	 * and some second posts found the first one's doorbell still owed,
	 * so they reached TX only through its second read of sq_pi or its
	 * walk. */
	if (rc == 0 && (!TEST_CHECK(rounds >= 100, "only %u rounds in %u s", rounds, RUN_SEC) ||
			!TEST_CHECK(db_one < 2ull * rounds, "%" PRIu64 " doorbells for %u "
				    "WRs: no post found a doorbell owed, the race was not reached",
				    db_one, 2 * rounds) ||
			!TEST_CHECK(rounds_many >= 100, "only %u rounds of %u QPs in %u s",
				    rounds_many, NQ, RUN_SEC) ||
			!TEST_CHECK(st.doorbells - db_one < 2ull * NQ * rounds_many,
				    "%" PRIu64 " doorbells for %u WRs on %u QPs: the race was not "
				    "reached", st.doorbells - db_one, 2 * NQ * rounds_many, NQ)))
		rc = -1;
out:
	/* nobody polls now: destroying a QP takes it off the lists itself */
	if (A.dev != NULL)
		rnic_dev_set_polled(A.dev, false);
	if (B.dev != NULL)
		rnic_dev_set_polled(B.dev, false);
	test_rc_pairs_destroy(qa, qb, NQ);
	printf("%s\n", rc == 0 && test_verify_failed == 0 ? "PASS" : "FAIL");
	return rc == 0 && test_verify_failed == 0 ? 0 : 1;
}
