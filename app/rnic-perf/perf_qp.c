/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: the verbs objects of one side. One PD, one MR over a buffer
 * in two halves (the local half is the source of WRITE/SEND and the
 * destination of READ and atomics; the target half is what the peer
 * writes, reads or receives into), a send CQ and a receive CQ shared by
 * all QPs, as perftest does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "perf.h"

void
perf_pattern(uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
int64_t
perf_pattern_check(const uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ seed))
			return (int64_t)i;
	return -1;
}

static bool
is_send(const struct perf_params *p)
{
	return p->verb == VERB_SEND;
}

int
perf_side_create(const struct perf_opts *o, struct perf_side *s)
{
	const struct perf_params *p = &o->p;
	uint64_t maxsz = perf_max_size(p);
	uint32_t sdepth, rdepth;
	const int access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			   RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;

	s->half = RTE_ALIGN_CEIL(RTE_MAX(maxsz, (uint64_t)64) + PERF_UD_GRH + 64, 4096);
	if (posix_memalign((void **)&s->buf, 4096, 2 * s->half) != 0) {
		s->buf = NULL;
		fprintf(stderr, "rnic-perf: cannot allocate %" PRIu64 " bytes\n", 2 * s->half);
		return -1;
	}
	memset(s->buf, 0, 2 * s->half);
	s->nqp = p->qps;
	s->qp = calloc(s->nqp, sizeof(*s->qp));
	s->psn = calloc(s->nqp, sizeof(*s->psn));
	s->peer_qpn = calloc(s->nqp, sizeof(*s->peer_qpn));
	s->peer_psn = calloc(s->nqp, sizeof(*s->peer_psn));
	if (!s->qp || !s->psn || !s->peer_qpn || !s->peer_psn)
		return -1;
	s->pd = rnic_alloc_pd(s->dev);
	if (s->pd == NULL)
		return -1;
	s->mr = rnic_reg_mr(s->pd, s->buf, 2 * s->half, access);
	if (s->mr == NULL) {
		fprintf(stderr, "rnic-perf: reg_mr: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	/* Deep enough never to overflow: at most tx_depth WRs (and so
	 * completions) per QP, and every posted receive. */
	sdepth = (uint32_t)RTE_MIN((uint64_t)p->qps * RTE_MAX(p->tx_depth, 16u) + 64, 1ull << 22);
	rdepth = is_send(p) ? (uint32_t)RTE_MIN((uint64_t)p->qps * p->rx_depth + 64, 1ull << 22) : 64;
	s->scq = rnic_create_cq(s->dev, sdepth);
	s->rcq = rnic_create_cq(s->dev, rdepth);
	if (s->scq == NULL || s->rcq == NULL) {
		fprintf(stderr, "rnic-perf: create_cq: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (uint32_t i = 0; i < s->nqp; i++) {
		struct rnic_qp_init_attr ia = {
			.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = p->conn,
			.cap = {
				/* Latency tests keep a little slack: the ACK of a
				 * ping may come after the pong. Bandwidth tests one
				 * slot: the engine frees a slot just after its
				 * completion shows. */
				.max_send_wr = p->kind == KIND_LAT ? RTE_MAX(p->tx_depth, 16u) :
					       p->tx_depth + 1,
				.max_recv_wr = is_send(p) ? p->rx_depth : 1,
				.max_send_sge = 1, .max_recv_sge = 1,
				.max_inline_data = p->inline_size,
			},
		};

		s->qp[i] = rnic_create_qp(s->pd, &ia);
		if (s->qp[i] == NULL) {
			fprintf(stderr, "rnic-perf: create_qp #%u: %s%s\n", i, rte_strerror(rte_errno),
				rte_errno == ENOMEM ? " (give EAL more memory with -m)" : "");
			return -1;
		}
		/* A start PSN that differs per QP and side, like perftest's random one. */
		s->psn[i] = (rnic_qp_num(s->qp[i]) * 0x9e3779b1u + (uint32_t)s->idx * 0x1234567u) &
			    0xffffffu;
	}
	return 0;
}

/* Reset -> Init -> RTR -> RTS with the peer's QPNs, PSNs and address. */
int
perf_side_connect(const struct perf_opts *o, struct perf_side *s)
{
	const struct perf_params *p = &o->p;
	bool ud = p->conn == RNIC_QPT_UD, rc = p->conn == RNIC_QPT_RC;

	for (uint32_t i = 0; i < s->nqp; i++) {
		struct rnic_qp_attr a = {0};
		int mask, r;

		a.qp_state = RNIC_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x11111111;   /* perftest's DEF_QKEY */
		a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
				    RNIC_ACCESS_REMOTE_ATOMIC;
		mask = RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
		       (ud ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS);
		r = rnic_modify_qp(s->qp[i], &a, mask);
		if (r == 0) {
			a.qp_state = RNIC_QPS_RTR;
			mask = RNIC_QP_STATE;
			if (!ud) {
				a.path_mtu = (enum rnic_mtu)(rte_log2_u32(p->mtu) - 7);
				a.dest_qp_num = s->peer_qpn[i];
				a.rq_psn = s->peer_psn[i];
				memcpy(a.ah_attr.dmac, s->peer_mac, 6);
				a.ah_attr.dip = s->peer_ip;
				a.ah_attr.tos = o->tclass;
				a.ah_attr.not_ect = o->no_ecn;
				mask |= RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN;
				if (rc) {
					a.max_dest_rd_atomic = (uint8_t)p->out_reads;
					a.min_rnr_timer = 1;   /* 0.01 ms: send_bw may outrun the receives */
					mask |= RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
					if (o->sr && s->peer_sr) {
						a.sr = 1;
						mask |= RNIC_QP_SR;
					}
				}
			}
			r = rnic_modify_qp(s->qp[i], &a, mask);
		}
		if (r == 0) {
			a.qp_state = RNIC_QPS_RTS;
			a.sq_psn = s->psn[i];
			a.timeout = (uint8_t)p->qp_timeout;
			a.retry_cnt = 7;
			a.rnr_retry = 7;
			a.max_rd_atomic = (uint8_t)p->out_reads;
			mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN;
			if (rc)
				mask |= RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
					RNIC_QP_MAX_QP_RD_ATOMIC;
			r = rnic_modify_qp(s->qp[i], &a, mask);
		}
		if (r != 0) {
			fprintf(stderr, "rnic-perf: QP %#x cannot reach RTS: %s\n",
				rnic_qp_num(s->qp[i]), strerror(-r));
			return -1;
		}
	}
	if (ud) {
		struct rnic_ah_attr aa = {0};

		memcpy(aa.dmac, s->peer_mac, 6);
		aa.dip = s->peer_ip;
		aa.tos = o->tclass;
		aa.not_ect = o->no_ecn;
		s->ah = rnic_create_ah(s->pd, &aa);
		if (s->ah == NULL) {
			fprintf(stderr, "rnic-perf: create_ah: %s\n", rte_strerror(rte_errno));
			return -1;
		}
		s->peer_qkey = 0x11111111;
	}
	return 0;
}

void
perf_side_destroy(struct perf_side *s)
{
	if (s->dev != NULL)   /* before its QPs go: telemetry may be asking */
		rnic_telemetry_remove_device(s->dev);
	if (s->ah != NULL)
		rnic_destroy_ah(s->ah);
	s->ah = NULL;
	for (uint32_t i = 0; s->qp != NULL && i < s->nqp; i++)
		if (s->qp[i] != NULL)
			rnic_destroy_qp(s->qp[i]);
	if (s->mr != NULL)
		rnic_dereg_mr(s->mr);
	if (s->scq != NULL)
		rnic_destroy_cq(s->scq);
	if (s->rcq != NULL)
		rnic_destroy_cq(s->rcq);
	if (s->pd != NULL)
		rnic_dealloc_pd(s->pd);
	s->mr = NULL;
	s->scq = s->rcq = NULL;
	s->pd = NULL;
	if (s->dev != NULL)
		rnic_dev_destroy(s->dev);
	s->dev = NULL;
	free(s->buf);
	free(s->qp);
	free(s->psn);
	free(s->peer_qpn);
	free(s->peer_psn);
	s->buf = NULL;
	s->qp = NULL;
	s->psn = s->peer_qpn = s->peer_psn = NULL;
}
