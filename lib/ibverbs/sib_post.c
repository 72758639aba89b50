/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path behind <infiniband/verbs.h>'s inline verbs: ops.post_send,
 * ops.post_recv, ops.poll_cq, ops.req_notify_cq, and the ibv_qp_ex work
 * request builder (ibv_wr_start .. ibv_wr_complete). Work requests are
 * converted to rnic_* ones in batches on the stack and posted with one
 * doorbell per batch; completions likewise.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "sib.h"

_Static_assert((int)RNIC_WC_GRH == (int)IBV_WC_GRH &&
	       (int)RNIC_WC_WITH_IMM == (int)IBV_WC_WITH_IMM &&
	       (int)RNIC_WC_WITH_INV == (int)IBV_WC_WITH_INV, "completion flags as libibverbs'");

/* ibv_sge and rnic_sge are the same three fields */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct rnic_sge), "sge layout");
_Static_assert(offsetof(struct ibv_sge, lkey) == offsetof(struct rnic_sge, lkey), "sge layout");

#define SIB_EMPTY_YIELD 64

#define SIB_SEND_FLAGS (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static int
send_wr_conv(const struct ibv_send_wr *in, struct rnic_send_wr *out, enum ibv_qp_type t)
{
	if ((unsigned int)in->opcode > IBV_WR_SEND_WITH_INV || (in->send_flags & ~SIB_SEND_FLAGS))
		return EINVAL;
	memset(out, 0, sizeof(*out));
	out->wr_id = in->wr_id;
	out->sg_list = (struct rnic_sge *)in->sg_list;
	out->num_sge = in->num_sge;
	out->opcode = (enum rnic_wr_opcode)in->opcode;
	out->send_flags = in->send_flags;
	out->imm_data = in->imm_data;
	if (t == IBV_QPT_UD) {
		if (in->wr.ud.ah == NULL)
			return EINVAL;
		out->wr.ud.ah = ((struct sib_ah *)in->wr.ud.ah)->ah;
		out->wr.ud.remote_qpn = in->wr.ud.remote_qpn;
		out->wr.ud.remote_qkey = in->wr.ud.remote_qkey;
	} else if (in->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   in->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		out->wr.atomic.remote_addr = in->wr.atomic.remote_addr;
		out->wr.atomic.compare_add = in->wr.atomic.compare_add;
		out->wr.atomic.swap = in->wr.atomic.swap;
		out->wr.atomic.rkey = in->wr.atomic.rkey;
	} else {
		out->wr.rdma.remote_addr = in->wr.rdma.remote_addr;
		out->wr.rdma.rkey = in->wr.rdma.rkey;
	}
	return 0;
}

int
sib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct sib_qp *q = (struct sib_qp *)ibqp;
	struct rnic_send_wr rw[SIB_WR_BATCH], *rbad = NULL;
	struct ibv_send_wr *src[SIB_WR_BATCH];

	while (wr != NULL) {
		unsigned int n = 0;
		int rc = 0;

		for (; wr != NULL && n < SIB_WR_BATCH; wr = wr->next) {
			rc = send_wr_conv(wr, &rw[n], ibqp->qp_type);
			if (rc != 0)
				break;
			rw[n].next = NULL;
			if (n > 0)
				rw[n - 1].next = &rw[n];
			src[n++] = wr;
		}
		if (n > 0) {
			int prc = rnic_post_send(q->qp, rw, &rbad);

			if (prc != 0) {
				*bad = src[rbad != NULL ? rbad - rw : 0];
				return sib_err(prc);
			}
		}
		if (rc != 0) {
			*bad = wr;
			return rc;
		}
	}
	return 0;
}

int
sib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct sib_qp *q = (struct sib_qp *)ibqp;
	struct rnic_recv_wr rw[SIB_WR_BATCH], *rbad = NULL;
	struct ibv_recv_wr *src[SIB_WR_BATCH];

	while (wr != NULL) {
		unsigned int n = 0;
		int prc;

		for (; wr != NULL && n < SIB_WR_BATCH; wr = wr->next) {
			rw[n] = (struct rnic_recv_wr){
				.wr_id = wr->wr_id, .sg_list = (struct rnic_sge *)wr->sg_list,
				.num_sge = wr->num_sge,
			};
			if (n > 0)
				rw[n - 1].next = &rw[n];
			src[n++] = wr;
		}
		prc = rnic_post_recv(q->qp, rw, &rbad);
		if (prc != 0) {
			*bad = src[rbad != NULL ? rbad - rw : 0];
			return sib_err(prc);
		}
	}
	return 0;
}

int
sib_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct sib_cq *q = (struct sib_cq *)ibcq;
	struct rnic_wc rw[SIB_WR_BATCH];
	int done = 0;

	while (done < n) {
		int want = n - done < SIB_WR_BATCH ? n - done : SIB_WR_BATCH;
		int got = rnic_poll_cq(q->cq, want, rw);

		if (got == 0 && done == 0 && sib_engine_help() != 0)
			got = rnic_poll_cq(q->cq, want, rw);

		for (int i = 0; i < got; i++) {
			struct ibv_wc *w = &wc[done + i];

			w->wr_id = rw[i].wr_id;
			w->status = (enum ibv_wc_status)rw[i].status;
			w->opcode = (enum ibv_wc_opcode)rw[i].opcode;
			w->vendor_err = rw[i].vendor_err;
			w->byte_len = rw[i].byte_len;
			w->imm_data = rw[i].imm_data;
			w->qp_num = rw[i].qp_num;
			w->src_qp = rw[i].src_qp;
			/* WITH_IMM and WITH_INV have ibv's values; no GRH flag: the
			 * engine leaves a UD receive's GRH area untouched */
			w->wc_flags = rw[i].wc_flags & (IBV_WC_GRH | IBV_WC_WITH_IMM | IBV_WC_WITH_INV);
			w->pkey_index = 0;
			w->slid = 0;
			w->sl = rw[i].sl;
			w->dlid_path_bits = 0;
		}
		done += got;
		if (got < want)
			break;
	}
	/* A program that spins on an empty CQ may share its CPU with the
	 * engine's poller (a small machine, or more threads than cores):
	 * every SIB_EMPTY_YIELD empty polls, let it run. With a CPU of its
	 * own the poller is unaffected, and the yield returns at once. */
	if (done == 0 && ++q->empty_polls >= SIB_EMPTY_YIELD) {
		q->empty_polls = 0;
		sched_yield();
	}
	return done;
}

int
sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct sib_cq *q = (struct sib_cq *)ibcq;

	/* Solicited-only arms fire on any completion: an event more than IBA
	 * asks for, never one fewer (doc/ibverbs.md). */
	(void)solicited_only;
	if (q->chan != NULL)
		sib_notify_arm(q);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ibv_qp_ex: the work request builder                                 */
/* ------------------------------------------------------------------ */

static struct sib_qp *
qx(struct ibv_qp_ex *x)
{
	return (struct sib_qp *)x;
}

static struct rnic_send_wr *
b_new(struct ibv_qp_ex *x, enum rnic_wr_opcode op)
{
	struct sib_wr_builder *b = &qx(x)->b;
	struct rnic_send_wr *w;

	if (b->n == b->cap) {
		if (b->err == 0)
			b->err = ENOMEM;
		return NULL;
	}
	w = &b->wr[b->n];
	memset(w, 0, sizeof(*w));
	w->wr_id = x->wr_id;
	w->send_flags = x->wr_flags;
	w->opcode = op;
	w->sg_list = &b->sge[b->n * (qx(x)->max_send_sge ? qx(x)->max_send_sge : 1)];
	b->n++;
	return w;
}

static struct rnic_send_wr *
b_last(struct ibv_qp_ex *x)
{
	struct sib_wr_builder *b = &qx(x)->b;

	return b->n > 0 && b->err == 0 ? &b->wr[b->n - 1] : NULL;
}

static void
x_rdma(struct ibv_qp_ex *x, enum rnic_wr_opcode op, uint32_t rkey, uint64_t addr)
{
	struct rnic_send_wr *w = b_new(x, op);

	if (w != NULL) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = addr;
	}
}

static void
x_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	x_rdma(x, RNIC_WR_RDMA_WRITE, rkey, addr);
}

static void
x_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
	x_rdma(x, RNIC_WR_RDMA_WRITE_WITH_IMM, rkey, addr);
	if (b_last(x) != NULL)
		b_last(x)->imm_data = imm;
}

static void
x_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	x_rdma(x, RNIC_WR_RDMA_READ, rkey, addr);
}

static void
x_atomic(struct ibv_qp_ex *x, enum rnic_wr_opcode op, uint32_t rkey, uint64_t addr,
	 uint64_t cmp_add, uint64_t swap)
{
	struct rnic_send_wr *w = b_new(x, op);

	if (w != NULL) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = addr;
		w->wr.atomic.compare_add = cmp_add;
		w->wr.atomic.swap = swap;
	}
}

static void
x_cas(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t cmp, uint64_t swap)
{
	x_atomic(x, RNIC_WR_ATOMIC_CMP_AND_SWP, rkey, addr, cmp, swap);
}

static void
x_faa(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
	x_atomic(x, RNIC_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void
x_send(struct ibv_qp_ex *x)
{
	b_new(x, RNIC_WR_SEND);
}

static void
x_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct rnic_send_wr *w = b_new(x, RNIC_WR_SEND_WITH_IMM);

	if (w != NULL)
		w->imm_data = imm;
}

static void
x_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct rnic_send_wr *w = b_new(x, RNIC_WR_SEND_WITH_INV);

	if (w != NULL)
		w->invalidate_rkey = rkey;
}

static void
x_unsupported(struct ibv_qp_ex *x)
{
	struct sib_wr_builder *b = &qx(x)->b;

	if (b->err == 0)
		b->err = EOPNOTSUPP;
}

static void
x_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	(void)rkey;
	x_unsupported(x);
}

static void
x_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
	  const struct ibv_mw_bind_info *info)
{
	(void)mw;
	(void)rkey;
	(void)info;
	x_unsupported(x);
}

static void
x_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t sz, uint16_t mss)
{
	(void)hdr;
	(void)sz;
	(void)mss;
	x_unsupported(x);
}

static void
x_xrc(struct ibv_qp_ex *x, uint32_t srqn)
{
	(void)srqn;
	x_unsupported(x);
}

static void
x_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, const void *wr)
{
	(void)rkey;
	(void)addr;
	(void)wr;
	x_unsupported(x);
}

static void
x_ud(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct rnic_send_wr *w = b_last(x);

	if (w == NULL)
		return;
	if (ah == NULL) {
		qx(x)->b.err = EINVAL;
		return;
	}
	w->wr.ud.ah = ((struct sib_ah *)ah)->ah;
	w->wr.ud.remote_qpn = qpn;
	w->wr.ud.remote_qkey = qkey;
}

static void
x_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sg)
{
	struct rnic_send_wr *w = b_last(x);
	struct sib_qp *q = qx(x);

	if (w == NULL)
		return;
	if (n > (q->max_send_sge ? q->max_send_sge : 1)) {
		q->b.err = EINVAL;
		return;
	}
	memcpy(w->sg_list, sg, n * sizeof(*sg));
	w->num_sge = (int)n;
}

static void
x_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge s = { .addr = addr, .length = length, .lkey = lkey };

	x_sge_list(x, 1, &s);
}

static void
x_inline_list(struct ibv_qp_ex *x, size_t n, const struct ibv_data_buf *bufs)
{
	struct rnic_send_wr *w = b_last(x);
	struct sib_qp *q = qx(x);
	uint8_t *dst;
	size_t len = 0;

	if (w == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		len += bufs[i].length;
	if (len > q->max_inline) {
		q->b.err = EINVAL;
		return;
	}
	/* Inline data is the caller's to reuse once the call returns: copy
	 * it now; the SQ takes its own copy at wr_complete. */
	dst = &q->b.inl[(size_t)(w - q->b.wr) * q->max_inline];
	for (size_t i = 0, off = 0; i < n; off += bufs[i].length, i++)
		memcpy(dst + off, bufs[i].addr, bufs[i].length);
	w->sg_list[0] = (struct rnic_sge){ .addr = (uintptr_t)dst, .length = (uint32_t)len };
	w->num_sge = 1;
	w->send_flags |= RNIC_SEND_INLINE;
}

static void
x_inline(struct ibv_qp_ex *x, void *addr, size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	x_inline_list(x, 1, &b);
}

static void
x_start(struct ibv_qp_ex *x)
{
	qx(x)->b.n = 0;
	qx(x)->b.err = 0;
}

static int
x_complete(struct ibv_qp_ex *x)
{
	struct sib_wr_builder *b = &qx(x)->b;
	struct rnic_send_wr *bad = NULL;
	int rc = b->err;

	if (rc == 0 && b->n > 0) {
		for (unsigned int i = 0; i + 1 < b->n; i++)
			b->wr[i].next = &b->wr[i + 1];
		b->wr[b->n - 1].next = NULL;
		rc = sib_err(rnic_post_send(qx(x)->qp, b->wr, &bad));
	}
	b->n = 0;
	b->err = 0;
	return rc;
}

static void
x_abort(struct ibv_qp_ex *x)
{
	qx(x)->b.n = 0;
	qx(x)->b.err = 0;
}

void
sib_qp_ex_init(struct sib_qp *q, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *x = &q->qpx;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	unsigned int sges;

	(void)send_ops_flags;     /* create_qp_ex refused the ops not offered */
	if (ibv_query_qp(&x->qp_base, &qa, 0, &ia) != 0)
		return;
	sges = ia.cap.max_send_sge ? ia.cap.max_send_sge : 1;
	q->max_send_sge = sges;
	q->max_inline = ia.cap.max_inline_data;
	q->b.cap = ia.cap.max_send_wr;
	q->b.wr = calloc(q->b.cap, sizeof(*q->b.wr));
	q->b.sge = calloc((size_t)q->b.cap * sges, sizeof(*q->b.sge));
	q->b.inl = q->max_inline ? calloc(q->b.cap, q->max_inline) : NULL;
	if (q->b.wr == NULL || q->b.sge == NULL || (q->max_inline && q->b.inl == NULL)) {
		sib_qp_ex_free(q);
		return;      /* ibv_qp_to_qp_ex then says NULL */
	}
	x->wr_atomic_cmp_swp = x_cas;
	x->wr_atomic_fetch_add = x_faa;
	x->wr_bind_mw = x_bind_mw;
	x->wr_local_inv = x_local_inv;
	x->wr_rdma_read = x_read;
	x->wr_rdma_write = x_write;
	x->wr_rdma_write_imm = x_write_imm;
	x->wr_send = x_send;
	x->wr_send_imm = x_send_imm;
	x->wr_send_inv = x_send_inv;
	x->wr_send_tso = x_send_tso;
	x->wr_set_ud_addr = x_ud;
	x->wr_set_xrc_srqn = x_xrc;
	x->wr_set_inline_data = x_inline;
	x->wr_set_inline_data_list = x_inline_list;
	x->wr_set_sge = x_sge;
	x->wr_set_sge_list = x_sge_list;
	x->wr_start = x_start;
	x->wr_complete = x_complete;
	x->wr_abort = x_abort;
	x->wr_atomic_write = x_atomic_write;
	q->is_ex = true;
}

void
sib_qp_ex_free(struct sib_qp *q)
{
	free(q->b.wr);
	free(q->b.sge);
	free(q->b.inl);
	q->b.wr = NULL;
	q->b.sge = NULL;
	q->b.inl = NULL;
	q->is_ex = false;
}
