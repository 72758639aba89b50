/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDs, MRs, CQs, QPs and AHs: each ibv_* object wraps its rnic_* object
 * (doc/ibverbs.md). Errors are the errno values rdma-core's providers
 * give: NULL with errno for the create calls, the errno itself (not -1)
 * for modify, query and destroy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "sib.h"

static struct sib_context *
ctx_of(struct ibv_context *c)
{
	return SIB_CTX(c);
}

static void *
fail_null(int e)
{
	errno = e;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* PD, MR                                                              */
/* ------------------------------------------------------------------ */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct sib_pd *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return fail_null(ENOMEM);
	p->pd = rnic_alloc_pd(ctx_of(context)->dev);
	if (p->pd == NULL) {
		free(p);
		return fail_null(ENOMEM);
	}
	p->ibpd.context = context;
	return &p->ibpd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct sib_pd *p = (struct sib_pd *)pd;
	int rc = 0;

	if (sib_live_enter()) {
		rc = rnic_dealloc_pd(p->pd);
		sib_live_leave();
	}

	if (rc != 0)
		return sib_err(rc);
	free(p);
	return 0;
}

/* IBV_ACCESS_* beyond the four IBA rights: the optional range (relaxed
 * ordering and later hints) and HUGETLB are hints and are ignored;
 * MW_BIND is accepted (no memory window can be created to use it). */
#define SIB_ACCESS_IBA (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define SIB_ACCESS_HINTS (IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_HUGETLB | IBV_ACCESS_MW_BIND)

static struct ibv_mr *
reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	struct sib_pd *p = (struct sib_pd *)pd;
	struct sib_mr *m;

	if (access & ~(unsigned int)(SIB_ACCESS_IBA | SIB_ACCESS_HINTS))
		/* ZERO_BASED, ON_DEMAND, REMOTE_ATOMIC_WRITE, FLUSH: not offered */
		return fail_null(EOPNOTSUPP);
	if (length == 0 || length > UINT32_MAX)
		return fail_null(EINVAL);
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return fail_null(ENOMEM);
	/* iova: what peers and SGEs name the first byte by (ibv_reg_mr_iova2) */
	m->mr = rnic_reg_mr_iova(p->pd, addr, length, iova, (int)(access & SIB_ACCESS_IBA));
	if (m->mr == NULL) {
		free(m);
		return fail_null(rte_errno);
	}
	m->ibmr.context = pd->context;
	m->ibmr.pd = pd;
	m->ibmr.addr = addr;
	m->ibmr.length = length;
	m->ibmr.lkey = rnic_mr_lkey(m->mr);
	m->ibmr.rkey = rnic_mr_rkey(m->mr);
	return &m->ibmr;
}

#undef ibv_reg_mr
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

#undef ibv_reg_mr_iova
struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	struct sib_mr *m = (struct sib_mr *)mr;
	int rc = 0;

	if (sib_live_enter()) {
		rc = rnic_dereg_mr(m->mr);
		sib_live_leave();
	}

	if (rc != 0)
		return sib_err(rc);
	free(m);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct sib_cq *q;

	if (cqe <= 0 || (unsigned int)cqe > RNIC_MAX_CQE || comp_vector != 0)
		return fail_null(EINVAL);
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return fail_null(ENOMEM);
	q->cq = rnic_create_cq(ctx_of(context)->dev, (uint32_t)cqe);
	if (q->cq == NULL) {
		int e = rte_errno;

		free(q);
		return fail_null(e == ENOSPC ? ENOMEM : e);
	}
	q->ibcq.context = context;
	q->ibcq.channel = channel;
	q->ibcq.cq_context = cq_context;
	q->ibcq.cqe = cqe;
	pthread_mutex_init(&q->ibcq.mutex, NULL);
	pthread_cond_init(&q->ibcq.cond, NULL);
	if (channel != NULL) {
		q->chan = (struct sib_channel *)channel;
		__atomic_fetch_add(&channel->refcnt, 1, __ATOMIC_RELAXED);
	}
	return &q->ibcq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct sib_cq *q = (struct sib_cq *)cq;
	int rc = 0;

	if (sib_live_enter()) {
		sib_notify_forget(q);
		rc = rnic_destroy_cq(q->cq);
		sib_live_leave();
	}
	if (rc != 0)
		return sib_err(rc);
	if (cq->channel != NULL)
		__atomic_fetch_sub(&cq->channel->refcnt, 1, __ATOMIC_RELAXED);
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(q);
	return 0;
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Address vectors                                                     */
/* ------------------------------------------------------------------ */

/* An ibv_ah_attr (RoCEv2: a GRH with the peer's GID) as the engine's
 * address: the destination GID (IPv4-mapped or IPv6), the source GID
 * index (the engine refuses one that is missing or of the other family:
 * EINVAL), MAC by ARP or neighbour discovery, traffic class, hop limit and
 * flow label from the GRH, the port's VLAN with the service level as
 * priority. */
static int
av_to_rnic(struct sib_context *c, const struct ibv_ah_attr *in, struct rnic_ah_attr *out)
{
	uint8_t mac[6];
	uint32_t ip;
	uint16_t vlan;
	int rc;

	if (!in->is_global)
		return EINVAL;         /* RoCE addresses by GID: a GRH is required */
	if (in->grh.sgid_index >= rnic_dev_gid_count(c->dev) ||
	    (in->port_num != 0 && in->port_num != 1) || in->sl > 7)
		return EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->dgid, in->grh.dgid.raw, 16);
	if (rnic_gid_is_ipv4(out->dgid))
		memset(out->dgid, 0, 12);   /* ::ffff:a.b.c.d -> dip */
	out->sgid_index = in->grh.sgid_index;
	out->flow_label = in->grh.flow_label & 0xfffff;
	out->tos = in->grh.traffic_class;
	out->ttl = in->grh.hop_limit;
	sib_engine_port_addr(c->sdev->port_idx, mac, &ip, &vlan);
	if (vlan != 0) {
		out->vlan = true;
		out->vlan_tci = (uint16_t)(vlan | (in->sl << 13));
	}
	rc = sib_engine_resolve(c->dev, in->grh.dgid.raw, out->dmac);
	return rc == 0 ? 0 : (rc == -ETIMEDOUT ? EHOSTUNREACH : sib_err(rc));
}

static void
av_from_rnic(const struct rnic_ah_attr *in, struct ibv_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->is_global = 1;
	out->port_num = 1;
	if (rnic_gid_is_ipv4(in->dgid)) {
		out->grh.dgid.raw[10] = 0xff;
		out->grh.dgid.raw[11] = 0xff;
		memcpy(&out->grh.dgid.raw[12], &in->dip, 4);
	} else {
		memcpy(out->grh.dgid.raw, in->dgid, 16);
		out->grh.flow_label = in->flow_label;
	}
	out->grh.sgid_index = in->sgid_index;
	out->grh.hop_limit = in->ttl;
	out->grh.traffic_class = in->tos;
	out->sl = in->vlan ? (uint8_t)(in->vlan_tci >> 13) : 0;
}

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sib_pd *p = (struct sib_pd *)pd;
	struct rnic_ah_attr ra;
	struct sib_ah *a;
	int rc = av_to_rnic(ctx_of(pd->context), attr, &ra);

	if (rc != 0)
		return fail_null(rc);
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return fail_null(ENOMEM);
	a->ah = rnic_create_ah(p->pd, &ra);
	if (a->ah == NULL) {
		free(a);
		return fail_null(rte_errno);
	}
	a->ibah.context = pd->context;
	a->ibah.pd = pd;
	return &a->ibah;
}

int
ibv_destroy_ah(struct ibv_ah *ah)
{
	struct sib_ah *a = (struct sib_ah *)ah;
	int rc = 0;

	if (sib_live_enter()) {
		rc = rnic_destroy_ah(a->ah);
		sib_live_leave();
	}

	if (rc != 0)
		return sib_err(rc);
	free(a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

static struct ibv_qp *
create_qp(struct ibv_context *context, struct ibv_pd *pd, struct ibv_qp_init_attr_ex *ia,
	  bool is_ex)
{
	struct sib_context *c = ctx_of(context);
	struct rnic_qp_init_attr ra = {0};
	struct rnic_qp_init_attr got;
	struct rnic_qp_attr qa;
	struct sib_qp *q;

	if (ia->srq != NULL)
		return fail_null(EOPNOTSUPP);     /* no SRQ */
	if (ia->send_cq == NULL || ia->recv_cq == NULL)
		return fail_null(EINVAL);
	if (ia->qp_type != IBV_QPT_RC && ia->qp_type != IBV_QPT_UC && ia->qp_type != IBV_QPT_UD)
		return fail_null(EOPNOTSUPP);
	ra.send_cq = ((struct sib_cq *)ia->send_cq)->cq;
	ra.recv_cq = ((struct sib_cq *)ia->recv_cq)->cq;
	ra.qp_type = (enum rnic_qp_type)ia->qp_type;
	ra.sq_sig_all = ia->sq_sig_all != 0;
	ra.cap.max_send_wr = ia->cap.max_send_wr ? ia->cap.max_send_wr : 1;
	ra.cap.max_recv_wr = ia->cap.max_recv_wr;
	ra.cap.max_send_sge = ia->cap.max_send_sge;
	ra.cap.max_recv_sge = ia->cap.max_recv_sge;
	ra.cap.max_inline_data = ia->cap.max_inline_data;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return fail_null(ENOMEM);
	q->qp = rnic_create_qp(((struct sib_pd *)pd)->pd, &ra);
	if (q->qp == NULL) {
		int e = rte_errno;

		free(q);
		return fail_null(e == ENOSPC ? ENOMEM : e);
	}
	/* What the QP got: rdma-core writes it back into the caller's caps. */
	if (rnic_query_qp(q->qp, &qa, 0, &got) == 0) {
		ia->cap.max_send_wr = got.cap.max_send_wr;
		ia->cap.max_recv_wr = got.cap.max_recv_wr;
		ia->cap.max_send_sge = got.cap.max_send_sge;
		ia->cap.max_recv_sge = got.cap.max_recv_sge;
		ia->cap.max_inline_data = got.cap.max_inline_data;
	}
	q->ctx = c;
	q->max_send_sge = ia->cap.max_send_sge;
	q->max_inline = ia->cap.max_inline_data;
	struct ibv_qp *qp = &q->qpx.qp_base;

	qp->context = context;
	qp->qp_context = ia->qp_context;
	qp->pd = pd;
	qp->send_cq = ia->send_cq;
	qp->recv_cq = ia->recv_cq;
	qp->qp_num = rnic_qp_num(q->qp);
	qp->handle = qp->qp_num;
	qp->state = IBV_QPS_RESET;
	qp->qp_type = ia->qp_type;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	if (is_ex)
		sib_qp_ex_init(q, ia->send_ops_flags);
	pthread_mutex_lock(&c->qlock);
	q->next = c->qps;
	c->qps = q;
	pthread_mutex_unlock(&c->qlock);
	return qp;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_context = attr->qp_context, .send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq, .srq = attr->srq, .cap = attr->cap,
		.qp_type = attr->qp_type, .sq_sig_all = attr->sq_sig_all,
	};
	struct ibv_qp *qp = create_qp(pd->context, pd, &ia, false);

	if (qp != NULL)
		attr->cap = ia.cap;
	return qp;
}

#define SIB_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		      IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		      IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV)

struct ibv_qp *sib_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);

struct ibv_qp *
sib_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	bool ops = attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || attr->pd == NULL)
		return fail_null(EINVAL);
	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return fail_null(EOPNOTSUPP);
	if (ops && (attr->send_ops_flags & ~(uint64_t)SIB_SEND_OPS))
		return fail_null(EOPNOTSUPP);
	return create_qp(context, attr->pd, attr, ops);
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct sib_qp *q = (struct sib_qp *)qp;

	return q->is_ex ? &q->qpx : NULL;
}

struct ibv_qp *sib_qp_by_num(struct sib_context *c, uint32_t qpn);

struct ibv_qp *
sib_qp_by_num(struct sib_context *c, uint32_t qpn)
{
	struct ibv_qp *found = NULL;

	pthread_mutex_lock(&c->qlock);
	for (struct sib_qp *q = c->qps; q != NULL; q = q->next)
		if (q->qpx.qp_base.qp_num == qpn) {
			found = &q->qpx.qp_base;
			break;
		}
	pthread_mutex_unlock(&c->qlock);
	return found;
}

/* The IBV_QP_* bits rnic_modify_qp knows (the same values). */
#define SIB_QP_MASK ((1 << 21) - 1)

int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct sib_qp *q = (struct sib_qp *)qp;
	struct rnic_qp_attr ra;
	int rc;

	if (mask & ~SIB_QP_MASK)
		return EOPNOTSUPP;    /* rate limit and later attributes */
	memset(&ra, 0, sizeof(ra));
	ra.qp_state = (enum rnic_qp_state)attr->qp_state;
	ra.cur_qp_state = (enum rnic_qp_state)attr->cur_qp_state;
	ra.path_mtu = (enum rnic_mtu)attr->path_mtu;
	ra.qkey = attr->qkey;
	ra.rq_psn = attr->rq_psn;
	ra.sq_psn = attr->sq_psn;
	ra.dest_qp_num = attr->dest_qp_num;
	ra.qp_access_flags = (int)(attr->qp_access_flags & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE);
	ra.cap.max_send_wr = attr->cap.max_send_wr;
	ra.cap.max_recv_wr = attr->cap.max_recv_wr;
	ra.cap.max_send_sge = attr->cap.max_send_sge;
	ra.cap.max_recv_sge = attr->cap.max_recv_sge;
	ra.cap.max_inline_data = attr->cap.max_inline_data;
	ra.pkey_index = attr->pkey_index;
	ra.en_sqd_async_notify = attr->en_sqd_async_notify;
	ra.sq_draining = attr->sq_draining;
	ra.max_rd_atomic = attr->max_rd_atomic;
	ra.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	ra.min_rnr_timer = attr->min_rnr_timer;
	ra.port_num = attr->port_num;
	ra.timeout = attr->timeout;
	ra.retry_cnt = attr->retry_cnt;
	ra.rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_AV) {
		rc = av_to_rnic(q->ctx, &attr->ah_attr, &ra.ah_attr);
		if (rc != 0)
			return rc;
	}
	if (!sib_live_enter())
		return ENODEV;
	rc = rnic_modify_qp(q->qp, &ra, mask);
	sib_live_leave();
	if (rc != 0)
		return sib_err(rc);
	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct sib_qp *q = (struct sib_qp *)qp;
	struct rnic_qp_init_attr ri;
	struct rnic_qp_attr ra;
	int rc = rnic_query_qp(q->qp, &ra, mask, &ri);

	if (rc != 0)
		return sib_err(rc);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)ra.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)ra.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)ra.path_mtu;
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qkey = ra.qkey;
	attr->rq_psn = ra.rq_psn;
	attr->sq_psn = ra.sq_psn;
	attr->dest_qp_num = ra.dest_qp_num;
	attr->qp_access_flags = (unsigned int)ra.qp_access_flags;
	attr->cap.max_send_wr = ri.cap.max_send_wr;
	attr->cap.max_recv_wr = ri.cap.max_recv_wr;
	attr->cap.max_send_sge = ri.cap.max_send_sge;
	attr->cap.max_recv_sge = ri.cap.max_recv_sge;
	attr->cap.max_inline_data = ri.cap.max_inline_data;
	if (qp->qp_type != IBV_QPT_UD)
		av_from_rnic(&ra.ah_attr, &attr->ah_attr);
	attr->pkey_index = ra.pkey_index;
	attr->en_sqd_async_notify = ra.en_sqd_async_notify;
	attr->sq_draining = ra.sq_draining;
	attr->max_rd_atomic = ra.max_rd_atomic;
	attr->max_dest_rd_atomic = ra.max_dest_rd_atomic;
	attr->min_rnr_timer = ra.min_rnr_timer;
	attr->port_num = 1;
	attr->timeout = ra.timeout;
	attr->retry_cnt = ra.retry_cnt;
	attr->rnr_retry = ra.rnr_retry;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = ri.sq_sig_all;
	}
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	struct sib_qp *q = (struct sib_qp *)qp;
	struct sib_context *c = q->ctx;
	int rc = 0;

	if (sib_live_enter()) {
		rc = rnic_destroy_qp(q->qp);
		sib_live_leave();
	}

	if (rc != 0)
		return sib_err(rc);
	pthread_mutex_lock(&c->qlock);
	for (struct sib_qp **pp = &c->qps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	pthread_mutex_unlock(&c->qlock);
	sib_qp_ex_free(q);
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	free(q);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Not offered: SRQ, multicast                                         */
/* ------------------------------------------------------------------ */

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)pd;
	(void)attr;
	return fail_null(EOPNOTSUPP);
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	(void)srq;
	(void)attr;
	(void)mask;
	return EOPNOTSUPP;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	(void)srq;
	(void)attr;
	return EOPNOTSUPP;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return EOPNOTSUPP;
}

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}
