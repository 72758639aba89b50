/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's memory per QP (suite 'perf'; scripts/bench.sh prints it).
 *
 * "State" is what the engine keeps per QP besides its queues (SQ, RQ, the
 * MultiQueue of unacknowledged packets) and data buffers:
 *   - struct rnic_qp (context: attributes, requester, completer and
 *     responder state),
 *   - the responder's READ/atomic resources, max_dest_rd_atomic of them,
 *   - the device's per-QP slots: the QPN table and the TX/READ/ACK/timer
 *     work lists (one pointer each), the two timers (wheel links and
 *     deadline, TimerControl parameters), the timer command ring and
 *     the send-queue hints ([SQ-HINT]).
 * The first two come from sizeof over lib/verbs/rnic_pvt.h; the slots are
 * measured on the DPDK heap (two devices differing only in max_qps), and
 * so is a QP (heap delta of creating QPs, less its queue allocations), to
 * cross-check the sizeof figure with the allocator's overhead in.
 *
 * usage: perf_state [EAL args] [-- --rd-atomic N --qps N]
 * Last line: "state_bytes_per_qp=B heap_state_bytes_per_qp=H ..."; exit 0
 * unless something could not be created.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "rnic_core.h"
#include "rnic_verbs.h"

static size_t
heap_used(void)
{
	size_t sum = 0;

	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	}
	return sum;
}

static struct rnic_device *
mkdev(uint16_t port, uint32_t max_qps, uint8_t last)
{
	struct rnic_dev_attr a = {
		.port_id = port, .max_qps = max_qps, .mbufs = 512, .ring_size = 1024,
		.mac = { 2, 0, 0, 0, 0, last }, .ipv4 = rte_cpu_to_be_32(0x0a000000u | last),
	};

	return rnic_dev_create(&a);
}

int
main(int argc, char **argv)
{
	uint32_t rd = 16, nq = 4096;
	const uint32_t small = 1024, big = 16384;
	uint16_t pa, pb;
	struct rnic_device *da, *db;
	size_t h0, h1, h2, h3, h4;
	int rc = rte_eal_init(argc, argv);

	if (rc < 0) {
		printf("perf_state: EAL init failed\n");
		return 1;
	}
	for (int i = rc + 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--rd-atomic") == 0)
			rd = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--qps") == 0)
			nq = (uint32_t)atoi(argv[++i]);
	}
	if (rd < 1 || rd > 16 || nq < 1 || nq > 8192) {
		printf("perf_state: --rd-atomic 1..16, --qps 1..8192\n");
		return 2;
	}
	if (rnic_port_ring_pair("st_a", "st_b", 1024, &pa, &pb) != 0) {
		printf("perf_state: ring pair failed\n");
		return 1;
	}

	/* Per-QP device slots: the same device with 1024 and 16384 QP slots. */
	h0 = heap_used();
	da = mkdev(pa, small, 1);
	h1 = heap_used();
	db = mkdev(pb, big, 2);
	h2 = heap_used();
	if (da == NULL || db == NULL) {
		printf("perf_state: device creation failed\n");
		return 1;
	}
	double slot = (double)((h2 - h1) - (h1 - h0)) / (double)(big - small);

	/* QPs: RC, one WR and one SGE each way, no inline, brought to RTR so
	 * the responder resources exist. */
	struct rnic_pd *pd = rnic_alloc_pd(db);
	struct rnic_cq *cq = rnic_create_cq(db, 64);
	struct rnic_qp **qps = calloc(nq, sizeof(*qps));
	uint32_t sq_bytes = 0, rq_bytes = 0, mq_bytes = 0;

	if (pd == NULL || cq == NULL || qps == NULL)
		return 1;
	h3 = heap_used();
	for (uint32_t i = 0; i < nq; i++) {
		struct rnic_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = RNIC_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct rnic_qp_attr a = {0};

		qps[i] = rnic_create_qp(pd, &ia);
		if (qps[i] == NULL) {
			printf("perf_state: create_qp #%u failed\n", i);
			return 1;
		}
		a.qp_state = RNIC_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
		rc = rnic_modify_qp(qps[i], &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
				    RNIC_QP_ACCESS_FLAGS);
		a.qp_state = RNIC_QPS_RTR;
		a.path_mtu = RNIC_MTU_1024;
		a.dest_qp_num = 0x100 + i;
		a.max_dest_rd_atomic = (uint8_t)rd;
		a.min_rnr_timer = 1;
		a.ah_attr.dmac[0] = 2;
		a.ah_attr.dip = rte_cpu_to_be_32(0x0a000001u);
		if (rc == 0)
			rc = rnic_modify_qp(qps[i], &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
					    RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
					    RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
		if (rc != 0) {
			printf("perf_state: modify_qp #%u failed: %d\n", i, rc);
			return 1;
		}
	}
	h4 = heap_used();
	sq_bytes = (qps[0]->sq_mask + 1) * qps[0]->sq_stride;
	rq_bytes = (qps[0]->rq_mask + 1) * qps[0]->rq_stride;
	mq_bytes = (qps[0]->req.mq.mask + 1) * (uint32_t)sizeof(struct rnic_mq_ent);

	double qp_heap = (double)(h4 - h3) / nq;
	/* rte_malloc puts a header before each of the three queue allocations
	 * and rounds each to a cache line: count them with the queues. The
	 * header's size is measured, not assumed (128 B in Debian's DPDK
	 * 22.11; this tool used to assume 64 and counted 192 B of queue
	 * headers per QP as state). */
	size_t hq = heap_used();
	void *probe = rte_malloc("perf_state_probe", RTE_CACHE_LINE_SIZE, RTE_CACHE_LINE_SIZE);
	size_t elem_hdr = probe != NULL ? heap_used() - hq - RTE_CACHE_LINE_SIZE : 64;

	rte_free(probe);
	double queues = (double)(RTE_CACHE_LINE_ROUNDUP(sq_bytes) + RTE_CACHE_LINE_ROUNDUP(rq_bytes) +
				 RTE_CACHE_LINE_ROUNDUP(mq_bytes)) + 3.0 * (double)elem_hdr;
	size_t qp_struct = sizeof(struct rnic_qp), res = rd * sizeof(struct rnic_rd_res);
	double state = (double)qp_struct + (double)res + slot;
	double heap_state = qp_heap - queues + slot;

	printf("perf_state: sizeof(struct rnic_qp)=%zu  sizeof(struct rnic_rd_res)=%zu x "
	       "max_dest_rd_atomic %u = %zu\n", qp_struct, sizeof(struct rnic_rd_res), rd, res);
	printf("perf_state: device slot per QP (QPN table, 4 work lists, 2 timers, timer ring) "
	       "= %.1f bytes (heap, %u vs %u slots)\n", slot, big, small);
	printf("perf_state: heap per QP = %.1f bytes over %u QPs, of which queues %.0f "
	       "(SQ %u, RQ %u, MultiQueue %u, each to a cache line, 3 headers of %zu)\n",
	       qp_heap, nq, queues, sq_bytes, rq_bytes, mq_bytes, elem_hdr);
	printf("state_bytes_per_qp=%.0f heap_state_bytes_per_qp=%.0f qp_struct=%zu rd_res=%zu "
	       "slot=%.0f queues=%.0f\n", state, heap_state, qp_struct, res, slot, queues);
	for (uint32_t i = 0; i < nq; i++)
		rnic_destroy_qp(qps[i]);
	free(qps);
	rnic_destroy_cq(cq);
	rnic_dealloc_pd(pd);
	rnic_dev_destroy(da);
	rnic_dev_destroy(db);
	rte_eal_cleanup();
	return 0;
}
