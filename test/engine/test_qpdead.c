/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [QP-DEAD] through the TX role's walk: every QP on the active list when
 * a cycle begins gets a turn in that cycle, also where a pass cut short
 * by the burst takes QPs it found idle off the list (rnic_tx.c
 * tx_settle, rnic_qplist.h rnic_qp_list_del_visited). rnic_dev_quiesce
 * relies on it: after two cycles of the role it takes a QP put in Reset
 * to be off the list, and the QP's memory may go.
 *
 * One thread and nothing left to timing: device A, with a burst of
 * BURST frames, on a ring pair with B; only A's TX role is polled, a
 * pass at a time, and its list, cursor and cycle count ([ITER]) are read
 * between passes. NQ QPs, posted in order: the first N_ONE get one
 * WRITE each, the others N_MANY. The first pass sends the one-WRITE QPs'
 * WRITEs, finds them idle, and stops at the burst in the next QP's turn
 * with them to take off. The QP last on the list when the cycle begins
 * is put in Reset (the store rnic_modify_qp makes before it quiesces);
 * when the cycle ends it must be off the list, and every other QP with
 * WRITEs still to send on it. Taken off with rnic_qp_list_del instead
 * (the list's last QP into the vacated place, behind the cursor), it is
 * not visited in the cycle and stays.
 *
 * Arguments: the EAL's.
 */
#include <inttypes.h>
#include <stdio.h>

#include <rte_eal.h>

#include "rnic_dev.h"       /* the TX role's list, cursor and [ITER] */
#include "rnic_engine.h"
#include "rnic_qp.h"
#include "rnic_verbs.h"
#include "test_common.h"

#define BURST     4u
#define NQ        8u
#define N_ONE     2u      /* QPs with one WRITE; the others N_MANY */
#define N_MANY    3u
#define MAX_PASS  64u     /* a cycle of this list takes a few passes */

static struct test_side A, B;

static int
post_write(struct rnic_qp *qp, uint64_t id)
{
	struct rnic_sge sge = { (uintptr_t)A.buf, 8, rnic_mr_lkey(A.mr) };
	struct rnic_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = RNIC_WR_RDMA_WRITE,
	};
	struct rnic_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
	wr.wr.rdma.rkey = rnic_mr_rkey(B.mr);
	return rnic_post_send(qp, &wr, &bad);
}

static bool
on_list(const struct rnic_qp_list *l, const struct rnic_qp *qp)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->q[i] == qp)
			return true;
	return false;
}

/* A's TX role, a pass at a time, until the cycle running ends; counts
 * the passes that stopped short of the list's end having taken QPs off.
 * @return the passes, 0 when the cycle did not end within MAX_PASS. */
static unsigned int
run_cycle(unsigned int *short_removals)
{
	struct rnic_dev_tx *tx = &A.dev->workers[0].tx;
	const uint64_t iter = tx->iter;

	for (unsigned int pass = 1; pass <= MAX_PASS; pass++) {
		uint32_t n = tx->active.n;

		rnic_dev_poll(A.dev, RNIC_ROLE_TX);
		if (tx->cursor != 0 && tx->active.n < n)
			(*short_removals)++;
		if (tx->iter != iter)
			return pass;
	}
	return 0;
}

static int
check_walk(struct rnic_qp *const *qa)
{
	struct rnic_dev_tx *tx = &A.dev->workers[0].tx;
	unsigned int removals = 0, passes;
	struct rnic_qp *victim;

	for (unsigned int q = 0; q < NQ; q++)
		for (unsigned int k = 0; k < (q < N_ONE ? 1 : N_MANY); k++)
			VERIFY(post_write(qa[q], ((uint64_t)q << 32) | k) == 0, "post on QP %u", q);
	VERIFY(tx->active.n == NQ && tx->cursor == 0, "after the posts: %u QPs on TX's list, "
	       "cursor %u", tx->active.n, tx->cursor);
	victim = tx->active.q[tx->active.n - 1];
	VERIFY(rnic_qp_state_cas(victim, RNIC_QPS_RTS, RNIC_QPS_RESET), "Reset of QP %#x",
	       victim->qpn);
	passes = run_cycle(&removals);
	VERIFY(passes != 0, "the cycle did not end in %u passes", MAX_PASS);
	/* Not vacuous: the case tx_settle's cursor move is for happened. */
	VERIFY(removals > 0, "no pass of the cycle (%u passes) stopped short of the list's end "
	       "having taken idle QPs off", passes);
	VERIFY(!victim->req.scheduled && !on_list(&tx->active, victim),
	       "QP %#x, put in Reset as the cycle began, still on TX's list when it ended "
	       "(%u passes, %u of them short with QPs taken off): not visited in the cycle",
	       victim->qpn, passes, removals);
	/* and no QP with WQEs still to send fell off the list */
	for (unsigned int q = 0; q < NQ; q++)
		VERIFY(qa[q] == victim || qa[q]->req.sq_fetch == qa[q]->app.sq_pi ||
		       on_list(&tx->active, qa[q]), "QP %u off TX's list with %u WQEs to send",
		       q, qa[q]->app.sq_pi - qa[q]->req.sq_fetch);
	printf("the cycle: %u passes, %u short with idle QPs taken off; the QP in Reset "
	       "dropped\n", passes, removals);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rnic_dev_attr da = { .mtu = 1024, .mbufs = 1024, .burst = BURST };
	struct rnic_qp *qa[NQ] = { NULL }, *qb[NQ] = { NULL };
	uint16_t pa, pb;
	int rc = -1;

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	if (rnic_port_ring_pair("qpd_a", "qpd_b", 1024, &pa, &pb) != 0) {
		printf("FAIL ring pair\n");
		return 1;
	}
	da.port_id = pa;
	if (test_side_up(&A, &da, 1, 64, 4096, 64) != 0)
		goto out;
	da.port_id = pb;
	if (test_side_up(&B, &da, 2, 64, 4096, 64) != 0)
		goto out;
	if (test_rc_pairs(&A, &B, NULL, qa, qb, NQ) != 0) {
		printf("FAIL QPs\n");
		goto out;
	}
	rc = check_walk(qa);
out:
	/* nobody polls: destroying a QP takes it off the lists itself */
	test_rc_pairs_destroy(qa, qb, NQ);
	printf("%s\n", rc == 0 && test_verify_failed == 0 ? "PASS" : "FAIL");
	return rc == 0 && test_verify_failed == 0 ? 0 : 1;
}
