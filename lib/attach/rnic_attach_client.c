/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's side of the attach protocol (rnic_attach.h): a
 * daemon's ports as devices whose operations (rnic_remote.h) are control
 * requests over the socket and ring accesses in shared memory.
 *
 * Threads, as for a device in the process (rnic_types.h): control calls
 * from one thread at a time (a connection's requests are serialised by
 * its lock anyway), post_send/post_recv on one QP and poll_cq on one CQ
 * from one thread each.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_errno.h>

#include "rnic_attach.h"
#include "rnic_attach_client.h"
#include "rnic_core.h"

/* A control request waits at most this long for its reply (a resolve
 * takes up to 3 s in the daemon). */
#define ATT_CALL_TIMEOUT_MS 30000

struct att_conn {
	int fd;
	pthread_mutex_t lock;
	unsigned int refs;       /* devices open on it */
	struct rnic_att_page *page;
	size_t page_len;
	unsigned int n_ports;
	bool dead;               /* the daemon closed the socket */
};

struct att_cq_c {
	struct rnic_device *dev; /* first (rnic_obj_dev) */
	uint32_t handle;
	uint32_t mask, ci;
	struct rnic_att_cq_ring *ring;
	size_t len;
	TAILQ_ENTRY(att_cq_c) next;
};

struct att_qp_c {
	struct rnic_device *dev; /* first (rnic_obj_dev) */
	uint32_t handle, qpn;
	enum rnic_qp_type type;
	enum rnic_qp_state state;   /* as the last modify left it */
	struct rnic_qp_cap cap;
	struct rnic_pd *pd;
	struct att_cq_c *scq, *rcq;
	struct rnic_att_qp_ring *ring;
	uint8_t *sq, *rq;
	uint32_t sq_depth, sq_stride, rq_depth, rq_stride;
	uint32_t sq_pi, rq_pi;
	uint32_t sq_ci_seen, rq_ci_seen;
	size_t len;
	TAILQ_ENTRY(att_qp_c) next;
};

struct att_mr_c {
	struct rnic_mr *mr;
	TAILQ_ENTRY(att_mr_c) next;
};

/* A device's remote state (dev->remote). */
struct att_dev_c {
	struct att_conn *c;
	uint32_t port;
	char name[32];
	TAILQ_HEAD(, rnic_pd) pds;
	TAILQ_HEAD(, att_mr_c) mrs;
	TAILQ_HEAD(, att_cq_c) cqs;
	TAILQ_HEAD(, att_qp_c) qps;
	TAILQ_HEAD(, rnic_ah_int) ahs;
};

static const struct rnic_dev_ops att_ops;

static struct att_dev_c *
dev_c(const struct rnic_device *dev)
{
	return dev->remote;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

static int
conn_send(struct att_conn *c, const struct rnic_att_msg *m, const int *fds, unsigned int n_fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * RNIC_ATT_MAX_FDS)];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	rnic_att_put_fds(&mh, cbuf, fds, n_fds);
	return sendmsg(c->fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -errno;
}

static int
conn_recv(struct att_conn *c, struct rnic_att_msg *m, int *out_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * RNIC_ATT_MAX_FDS)];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };
	ssize_t n;
	int rc;

	rc = poll(&pf, 1, ATT_CALL_TIMEOUT_MS);
	if (rc == 0)
		return -ETIMEDOUT;
	if (rc < 0)
		return -errno;
	n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n == 0 ? -ENODEV : -errno;
	rnic_att_take_one_fd(&mh, out_fd);
	return n == (ssize_t)sizeof(*m) ? 0 : -EPROTO;
}

/*
 * One request: @p m in, the reply in @p m; @p fds go with it, the reply's
 * fd (if any) to *@p out_fd. @return the reply's status, or a negative
 * errno of the transport (-ENODEV once the daemon is gone).
 */
static int
call(struct att_conn *c, uint32_t op, struct rnic_att_msg *m, const int *fds,
     unsigned int n_fds, int *out_fd)
{
	int rc;

	if (out_fd != NULL)
		*out_fd = -1;
	m->op = op;
	m->status = 0;
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		return -ENODEV;
	}
	rc = conn_send(c, m, fds, n_fds);
	if (rc == 0)
		rc = conn_recv(c, m, out_fd);
	if (rc == -ENODEV || rc == -EPIPE || rc == -ECONNRESET)
		c->dead = true;
	pthread_mutex_unlock(&c->lock);
	if (rc == 0 && m->op != op)
		rc = -EPROTO;
	if (rc != 0) {
		if (out_fd != NULL && *out_fd >= 0) {
			close(*out_fd);
			*out_fd = -1;
		}
		return c->dead ? -ENODEV : rc;
	}
	if (m->status != 0 && out_fd != NULL && *out_fd >= 0) {
		close(*out_fd);
		*out_fd = -1;
	}
	return m->status;
}

static int
dcall(const struct rnic_device *dev, uint32_t op, struct rnic_att_msg *m)
{
	return call(dev_c(dev)->c, op, m, NULL, 0, NULL);
}

/* Map the memfd a reply sent (@p len bytes); NULL on failure. */
static void *
map_reply(int fd, size_t len)
{
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void *
fail_null(int rc)
{
	rte_errno = rc < 0 ? -rc : EIO;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* PD, MR, AH                                                          */
/* ------------------------------------------------------------------ */

static struct rnic_pd *
c_alloc_pd(struct rnic_device *dev)
{
	struct rnic_att_msg m = { .port.port = dev_c(dev)->port };
	struct rnic_pd *pd;
	int rc = dcall(dev, RNIC_ATT_ALLOC_PD, &m);

	if (rc != 0)
		return fail_null(rc);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		struct rnic_att_msg d = { .obj.handle = m.obj_rep.handle };

		dcall(dev, RNIC_ATT_DEALLOC_PD, &d);
		return fail_null(-ENOMEM);
	}
	pd->dev = dev;
	pd->handle = m.obj_rep.handle;
	TAILQ_INSERT_TAIL(&dev_c(dev)->pds, pd, next);
	return pd;
}

static int
c_dealloc_pd(struct rnic_pd *pd)
{
	struct rnic_att_msg m = { .obj.handle = pd->handle };
	int rc = dcall(pd->dev, RNIC_ATT_DEALLOC_PD, &m);

	if (rc != 0 && rc != -ENODEV)
		return rc;
	TAILQ_REMOVE(&dev_c(pd->dev)->pds, pd, next);
	free(pd);
	return 0;
}

static struct rnic_mr *
c_reg_mr(struct rnic_pd *pd, void *addr, uint64_t length, uint64_t iova, int access)
{
	struct rnic_device *dev = pd->dev;
	struct rnic_att_msg m = {0};
	struct att_share sh;
	struct att_mr_c *mc;
	struct rnic_mr *mr;
	int rc;

	rc = att_mem_share((uintptr_t)addr, length, &sh);
	if (rc != 0)
		return fail_null(rc);
	m.reg_mr.pd = pd->handle;
	m.reg_mr.access = access;
	m.reg_mr.iova = iova;
	m.reg_mr.length = length;
	m.reg_mr.offset = sh.offset;
	m.reg_mr.n_pieces = sh.n_pieces;
	memcpy(m.reg_mr.piece, sh.piece, sizeof(sh.piece[0]) * sh.n_pieces);
	rc = call(dev_c(dev)->c, RNIC_ATT_REG_MR, &m, sh.fds, sh.n_fds, NULL);
	if (rc != 0)
		return fail_null(rc);
	mr = calloc(1, sizeof(*mr));
	mc = calloc(1, sizeof(*mc));
	if (mr == NULL || mc == NULL) {
		struct rnic_att_msg d = { .obj.handle = m.obj_rep.handle };

		dcall(dev, RNIC_ATT_DEREG_MR, &d);
		free(mr);
		free(mc);
		return fail_null(-ENOMEM);
	}
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->lkey = m.obj_rep.lkey;
	mr->rkey = m.obj_rep.rkey;
	mr->access = access;
	mr->index = m.obj_rep.handle;
	mr->valid = 1;
	mr->rkey_valid = 1;
	mc->mr = mr;
	TAILQ_INSERT_TAIL(&dev_c(dev)->mrs, mc, next);
	return mr;
}

static int
c_dereg_mr(struct rnic_mr *mr)
{
	struct rnic_device *dev = mr->pd->dev;
	struct rnic_att_msg m = { .obj.handle = mr->index };
	struct att_mr_c *mc;
	int rc = dcall(dev, RNIC_ATT_DEREG_MR, &m);

	if (rc != 0 && rc != -ENODEV)
		return rc;
	TAILQ_FOREACH(mc, &dev_c(dev)->mrs, next)
		if (mc->mr == mr)
			break;
	if (mc != NULL) {
		TAILQ_REMOVE(&dev_c(dev)->mrs, mc, next);
		free(mc);
	}
	free(mr);
	return 0;
}

static struct rnic_ah *
c_create_ah(struct rnic_pd *pd, const struct rnic_ah_attr *attr)
{
	struct rnic_att_msg m = { .create_ah = { .pd = pd->handle, .attr = *attr } };
	struct rnic_ah_int *ah;
	int rc = dcall(pd->dev, RNIC_ATT_CREATE_AH, &m);

	if (rc != 0)
		return fail_null(rc);
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		struct rnic_att_msg d = { .obj.handle = m.obj_rep.handle };

		dcall(pd->dev, RNIC_ATT_DESTROY_AH, &d);
		return fail_null(-ENOMEM);
	}
	ah->pub.attr = *attr;
	ah->pd = pd;
	ah->handle = m.obj_rep.handle;
	TAILQ_INSERT_TAIL(&dev_c(pd->dev)->ahs, ah, next);
	return &ah->pub;
}

static int
c_destroy_ah(struct rnic_ah *pub)
{
	struct rnic_ah_int *ah = (struct rnic_ah_int *)pub;
	struct rnic_device *dev = ah->pd->dev;
	struct rnic_att_msg m = { .obj.handle = ah->handle };
	int rc = dcall(dev, RNIC_ATT_DESTROY_AH, &m);

	if (rc != 0 && rc != -ENODEV)
		return rc;
	TAILQ_REMOVE(&dev_c(dev)->ahs, ah, next);
	free(ah);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

static struct rnic_cq *
c_create_cq(struct rnic_device *dev, uint32_t cqe)
{
	struct rnic_att_msg m = { .create_cq = { .port = dev_c(dev)->port, .cqe = cqe } };
	struct att_cq_c *cq;
	int fd, rc = call(dev_c(dev)->c, RNIC_ATT_CREATE_CQ, &m, NULL, 0, &fd);

	if (rc != 0)
		return fail_null(rc);
	cq = calloc(1, sizeof(*cq));
	if (cq != NULL)
		cq->ring = map_reply(fd, m.create_cq_rep.size);
	else
		close(fd);
	if (cq == NULL || cq->ring == NULL || m.create_cq_rep.depth < cqe ||
	    (m.create_cq_rep.depth & (m.create_cq_rep.depth - 1))) {
		struct rnic_att_msg d = { .obj.handle = m.create_cq_rep.handle };

		if (cq != NULL && cq->ring != NULL)
			munmap(cq->ring, m.create_cq_rep.size);
		free(cq);
		dcall(dev, RNIC_ATT_DESTROY_CQ, &d);
		return fail_null(-ENOMEM);
	}
	cq->dev = dev;
	cq->handle = m.create_cq_rep.handle;
	cq->mask = m.create_cq_rep.depth - 1;
	cq->len = m.create_cq_rep.size;
	TAILQ_INSERT_TAIL(&dev_c(dev)->cqs, cq, next);
	return (struct rnic_cq *)cq;
}

static int
c_destroy_cq(struct rnic_cq *cq_)
{
	struct att_cq_c *cq = (struct att_cq_c *)cq_;
	struct rnic_att_msg m = { .obj.handle = cq->handle };
	int rc = dcall(cq->dev, RNIC_ATT_DESTROY_CQ, &m);

	if (rc != 0 && rc != -ENODEV)
		return rc;
	TAILQ_REMOVE(&dev_c(cq->dev)->cqs, cq, next);
	munmap(cq->ring, cq->len);
	free(cq);
	return 0;
}

static int
c_poll_cq(struct rnic_cq *cq_, int n, struct rnic_wc *wc)
{
	struct att_cq_c *cq = (struct att_cq_c *)cq_;
	uint32_t avail = LOAD_ACQ(&cq->ring->pi) - cq->ci;
	uint32_t k;

	if (avail > cq->mask + 1)   /* not the daemon's: nothing trusted */
		return 0;
	k = RTE_MIN(avail, (uint32_t)n);
	for (uint32_t i = 0; i < k; i++)
		wc[i] = cq->ring->wc[(cq->ci + i) & cq->mask];
	if (k > 0) {
		cq->ci += k;
		STORE_REL(&cq->ring->ci, cq->ci);
	}
	return (int)k;
}

static unsigned int
c_cq_count(const struct rnic_cq *cq_)
{
	const struct att_cq_c *cq = (const struct att_cq_c *)cq_;
	uint32_t avail = LOAD_ACQ(&cq->ring->pi) - LOAD_RLX(&cq->ring->ci);

	return avail > cq->mask + 1 ? 0 : avail;
}

static bool
c_cq_overflowed(const struct rnic_cq *cq_)
{
	const struct att_cq_c *cq = (const struct att_cq_c *)cq_;

	return LOAD_ACQ(&cq->ring->overflow) != 0;
}

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

static struct rnic_qp *
c_create_qp(struct rnic_pd *pd, struct rnic_qp_init_attr *ia)
{
	struct rnic_device *dev = pd->dev;
	struct att_cq_c *scq = (struct att_cq_c *)ia->send_cq, *rcq = (struct att_cq_c *)ia->recv_cq;
	struct rnic_att_msg m = {0};
	const __typeof__(m.create_qp_rep) *r = &m.create_qp_rep;
	struct att_qp_c *qp;
	int fd, rc;

	if (scq == NULL || rcq == NULL || scq->dev != dev || rcq->dev != dev)
		return fail_null(-EINVAL);
	m.create_qp = (__typeof__(m.create_qp)){
		.pd = pd->handle, .send_cq = scq->handle, .recv_cq = rcq->handle,
		.qp_type = ia->qp_type, .qp_num = ia->qp_num, .sq_sig_all = ia->sq_sig_all,
		.cap = ia->cap };
	rc = call(dev_c(dev)->c, RNIC_ATT_CREATE_QP, &m, NULL, 0, &fd);
	if (rc != 0)
		return fail_null(rc);
	qp = calloc(1, sizeof(*qp));
	if (qp != NULL)
		qp->ring = map_reply(fd, r->size);
	else
		close(fd);
	/* The geometry must fit the mapping: a daemon's mistake must not
	 * make this process write outside it. */
	if (qp == NULL || qp->ring == NULL || r->sq_depth == 0 || r->rq_depth == 0 ||
	    (r->sq_depth & (r->sq_depth - 1)) || (r->rq_depth & (r->rq_depth - 1)) ||
	    r->sq_stride < sizeof(struct rnic_att_swqe) + RTE_MAX(r->cap.max_send_sge * 16u,
								  r->cap.max_inline_data) ||
	    r->rq_stride < sizeof(struct rnic_att_rwqe) + r->cap.max_recv_sge * 16u ||
	    r->sq_off < sizeof(struct rnic_att_qp_ring) ||
	    r->sq_off + (uint64_t)r->sq_depth * r->sq_stride > r->rq_off ||
	    r->rq_off + (uint64_t)r->rq_depth * r->rq_stride > r->size) {
		struct rnic_att_msg d = { .obj.handle = r->handle };

		if (qp != NULL && qp->ring != NULL)
			munmap(qp->ring, r->size);
		free(qp);
		dcall(dev, RNIC_ATT_DESTROY_QP, &d);
		return fail_null(qp == NULL ? -ENOMEM : -EPROTO);
	}
	qp->dev = dev;
	qp->handle = r->handle;
	qp->qpn = r->qpn;
	qp->type = ia->qp_type;
	qp->state = RNIC_QPS_RESET;
	qp->cap = r->cap;
	qp->pd = pd;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->sq = (uint8_t *)qp->ring + r->sq_off;
	qp->rq = (uint8_t *)qp->ring + r->rq_off;
	qp->sq_depth = r->sq_depth;
	qp->sq_stride = r->sq_stride;
	qp->rq_depth = r->rq_depth;
	qp->rq_stride = r->rq_stride;
	qp->len = r->size;
	ia->cap = r->cap;
	TAILQ_INSERT_TAIL(&dev_c(dev)->qps, qp, next);
	return (struct rnic_qp *)qp;
}

static int
c_destroy_qp(struct rnic_qp *qp_)
{
	struct att_qp_c *qp = (struct att_qp_c *)qp_;
	struct rnic_att_msg m = { .obj.handle = qp->handle };
	int rc = dcall(qp->dev, RNIC_ATT_DESTROY_QP, &m);

	if (rc != 0 && rc != -ENODEV)
		return rc;
	TAILQ_REMOVE(&dev_c(qp->dev)->qps, qp, next);
	munmap(qp->ring, qp->len);
	free(qp);
	return 0;
}

static uint32_t
c_qp_num(const struct rnic_qp *qp)
{
	return ((const struct att_qp_c *)qp)->qpn;
}

static int
c_modify_qp(struct rnic_qp *qp_, struct rnic_qp_attr *attr, int mask)
{
	struct att_qp_c *qp = (struct att_qp_c *)qp_;
	struct rnic_att_msg m = { .modify_qp = { .handle = qp->handle, .mask = mask,
						 .attr = *attr } };
	int rc = dcall(qp->dev, RNIC_ATT_MODIFY_QP, &m);

	if (rc == 0 && (mask & RNIC_QP_STATE))
		qp->state = attr->qp_state;
	return rc;
}

static int
c_query_qp(struct rnic_qp *qp_, struct rnic_qp_attr *attr, int mask,
	   struct rnic_qp_init_attr *ia)
{
	struct att_qp_c *qp = (struct att_qp_c *)qp_;
	struct rnic_att_msg m = { .modify_qp = { .handle = qp->handle, .mask = mask } };
	int rc = dcall(qp->dev, RNIC_ATT_QUERY_QP, &m);

	if (rc != 0)
		return rc;
	*attr = m.modify_qp.attr;
	if (ia != NULL) {
		ia->send_cq = (struct rnic_cq *)qp->scq;
		ia->recv_cq = (struct rnic_cq *)qp->rcq;
		ia->cap = qp->cap;
		ia->qp_type = qp->type;
		ia->qp_num = qp->qpn;
	}
	return 0;
}

/* As rnic_post.c's send_wr_check, against the capacities the daemon gave. */
static int
send_wr_check(const struct att_qp_c *qp, const struct rnic_send_wr *wr, uint64_t *total)
{
	if ((unsigned int)wr->opcode >= RNIC_WR_MAX || wr->num_sge < 0 ||
	    (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
	    (wr->num_sge > 0 && wr->sg_list == NULL) ||
	    (qp->type == RNIC_QPT_UD && wr->wr.ud.ah == NULL))
		return -EINVAL;
	*total = 0;
	for (int i = 0; i < wr->num_sge; i++)
		*total += wr->sg_list[i].length;
	if ((wr->send_flags & RNIC_SEND_INLINE) && *total > qp->cap.max_inline_data)
		return -EINVAL;
	if (qp->type == RNIC_QPT_UD) {
		const struct rnic_ah_int *ah = (const struct rnic_ah_int *)wr->wr.ud.ah;

		if (ah->pd == NULL || ah->pd->dev != qp->dev)
			return -EINVAL;
	}
	return 0;
}

static void
swqe_fill(struct att_qp_c *qp, uint8_t *slot, const struct rnic_send_wr *wr, uint64_t total)
{
	struct rnic_att_swqe h = {
		.wr_id = wr->wr_id, .opcode = (uint8_t)wr->opcode,
		.send_flags = (uint8_t)wr->send_flags, .imm_inv = wr->imm_data };

	switch (wr->opcode) {
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		h.remote_addr = wr->wr.atomic.remote_addr;
		h.rkey = wr->wr.atomic.rkey;
		h.compare_add = wr->wr.atomic.compare_add;
		h.swap = wr->wr.atomic.swap;
		break;
	case RNIC_WR_SEND_WITH_INV:
		h.imm_inv = wr->invalidate_rkey;
		break;
	default:
		h.remote_addr = wr->wr.rdma.remote_addr;
		h.rkey = wr->wr.rdma.rkey;
		break;
	}
	if (qp->type == RNIC_QPT_UD) {
		h.ah = ((const struct rnic_ah_int *)wr->wr.ud.ah)->handle;
		h.remote_qpn = wr->wr.ud.remote_qpn;
		h.remote_qkey = wr->wr.ud.remote_qkey;
	}
	if (wr->send_flags & RNIC_SEND_INLINE) {
		uint8_t *dst = slot + sizeof(h);

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
		h.inline_len = (uint32_t)total;
	} else {
		h.num_sge = (uint8_t)wr->num_sge;
		memcpy(slot + sizeof(h), wr->sg_list, sizeof(struct rnic_sge) * wr->num_sge);
	}
	memcpy(slot, &h, sizeof(h));
}

static bool
state_may_send(enum rnic_qp_state s)
{
	return s == RNIC_QPS_RTS || s == RNIC_QPS_SQD || s == RNIC_QPS_SQE || s == RNIC_QPS_ERR;
}

static int
c_post_send(struct rnic_qp *qp_, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr)
{
	struct att_qp_c *qp = (struct att_qp_c *)qp_;
	uint32_t pi = qp->sq_pi;
	int rc = 0;

	if (wr == NULL || !state_may_send(qp->state))
		rc = -EINVAL;
	for (; rc == 0 && wr != NULL; wr = wr->next) {
		uint64_t total;

		rc = send_wr_check(qp, wr, &total);
		if (rc != 0)
			break;
		/* At most max_send_wr in the ring, as the engine's queue. */
		if (pi - qp->sq_ci_seen >= qp->cap.max_send_wr) {
			qp->sq_ci_seen = LOAD_ACQ(&qp->ring->sq_ci);
			if (pi - qp->sq_ci_seen >= qp->cap.max_send_wr) {
				rc = -ENOMEM;
				break;
			}
		}
		swqe_fill(qp, qp->sq + (size_t)(pi & (qp->sq_depth - 1)) * qp->sq_stride, wr,
			  total);
		pi++;
	}
	if (pi != qp->sq_pi) {
		qp->sq_pi = pi;
		STORE_REL(&qp->ring->sq_pi, pi);   /* the doorbell */
	}
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;
	return rc;
}

static int
c_post_recv(struct rnic_qp *qp_, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr)
{
	struct att_qp_c *qp = (struct att_qp_c *)qp_;
	uint32_t pi = qp->rq_pi;
	int rc = 0;

	if (wr == NULL || qp->state == RNIC_QPS_RESET || qp->cap.max_recv_wr == 0)
		rc = -EINVAL;
	for (; rc == 0 && wr != NULL; wr = wr->next) {
		struct rnic_att_rwqe h = { .wr_id = wr->wr_id, .num_sge = (uint32_t)wr->num_sge };
		uint8_t *slot;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL)) {
			rc = -EINVAL;
			break;
		}
		if (pi - qp->rq_ci_seen >= qp->cap.max_recv_wr) {
			qp->rq_ci_seen = LOAD_ACQ(&qp->ring->rq_ci);
			if (pi - qp->rq_ci_seen >= qp->cap.max_recv_wr) {
				rc = -ENOMEM;
				break;
			}
		}
		slot = qp->rq + (size_t)(pi & (qp->rq_depth - 1)) * qp->rq_stride;
		memcpy(slot, &h, sizeof(h));
		memcpy(slot + sizeof(h), wr->sg_list, sizeof(struct rnic_sge) * wr->num_sge);
		pi++;
	}
	if (pi != qp->rq_pi) {
		qp->rq_pi = pi;
		STORE_REL(&qp->ring->rq_pi, pi);
	}
	if (bad_wr != NULL)
		*bad_wr = rc == 0 ? NULL : wr;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

static int
c_get_async_event(struct rnic_device *dev, struct rnic_async_event *ev)
{
	struct att_conn *c = dev_c(dev)->c;
	struct rnic_att_msg m = { .port.port = dev_c(dev)->port };

	/* The daemon counts the events waiting on the application page: no
	 * request while there are none. Events of every port share it, so a
	 * request may find none for this one. */
	if (LOAD_ACQ(&c->page->events) == 0)
		return 0;
	if (dcall(dev, RNIC_ATT_ASYNC_EVENT, &m) != 0 || !m.event_rep.have)
		return 0;
	*ev = m.event_rep.ev;
	return 1;
}

static void
c_stats_get(const struct rnic_device *dev, struct rnic_dev_stats *st)
{
	struct rnic_att_msg m = { .port.port = dev_c(dev)->port };

	if (dcall(dev, RNIC_ATT_STATS, &m) == 0)
		*st = m.stats_rep;
	else
		memset(st, 0, sizeof(*st));
}

static int
c_resolve_gid(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6],
	      unsigned int timeout_ms)
{
	struct rnic_att_msg m = { .resolve = { .port = dev_c(dev)->port,
					       .timeout_ms = timeout_ms } };
	int rc;

	memcpy(m.resolve.gid, gid, 16);
	rc = dcall(dev, RNIC_ATT_RESOLVE, &m);
	if (rc == 0)
		memcpy(mac, m.resolve_rep.mac, 6);
	return rc;
}

static void
conn_put(struct att_conn *c)
{
	struct rnic_att_msg m = {0};

	if (--c->refs > 0)
		return;
	/* The daemon frees what is left, and counts this as a goodbye,
	 * not a death. */
	call(c, RNIC_ATT_BYE, &m, NULL, 0, NULL);
	close(c->fd);
	if (c->page != NULL)
		munmap(c->page, c->page_len);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void
c_dev_destroy(struct rnic_device *dev)
{
	struct att_dev_c *d = dev_c(dev);
	bool last = d->c->refs == 1;

	/* The last device's objects go with the connection (the daemon
	 * frees them when it closes); otherwise one by one. */
	while (!TAILQ_EMPTY(&d->qps)) {
		struct att_qp_c *qp = TAILQ_FIRST(&d->qps);

		if (last || c_destroy_qp((struct rnic_qp *)qp) != 0) {
			TAILQ_REMOVE(&d->qps, qp, next);
			munmap(qp->ring, qp->len);
			free(qp);
		}
	}
	while (!TAILQ_EMPTY(&d->ahs)) {
		struct rnic_ah_int *ah = TAILQ_FIRST(&d->ahs);

		if (last || c_destroy_ah(&ah->pub) != 0) {
			TAILQ_REMOVE(&d->ahs, ah, next);
			free(ah);
		}
	}
	while (!TAILQ_EMPTY(&d->mrs)) {
		struct att_mr_c *mc = TAILQ_FIRST(&d->mrs);

		if (last || c_dereg_mr(mc->mr) != 0) {
			TAILQ_REMOVE(&d->mrs, mc, next);
			free(mc->mr);
			free(mc);
		}
	}
	while (!TAILQ_EMPTY(&d->cqs)) {
		struct att_cq_c *cq = TAILQ_FIRST(&d->cqs);

		if (last || c_destroy_cq((struct rnic_cq *)cq) != 0) {
			TAILQ_REMOVE(&d->cqs, cq, next);
			munmap(cq->ring, cq->len);
			free(cq);
		}
	}
	while (!TAILQ_EMPTY(&d->pds)) {
		struct rnic_pd *pd = TAILQ_FIRST(&d->pds);

		if (last || c_dealloc_pd(pd) != 0) {
			TAILQ_REMOVE(&d->pds, pd, next);
			free(pd);
		}
	}
	conn_put(d->c);
	free(d);
	free(dev);
}

static const struct rnic_dev_ops att_ops = {
	.dev_destroy = c_dev_destroy,
	.alloc_pd = c_alloc_pd,
	.dealloc_pd = c_dealloc_pd,
	.reg_mr = c_reg_mr,
	.dereg_mr = c_dereg_mr,
	.create_cq = c_create_cq,
	.destroy_cq = c_destroy_cq,
	.poll_cq = c_poll_cq,
	.cq_count = c_cq_count,
	.cq_overflowed = c_cq_overflowed,
	.create_qp = c_create_qp,
	.destroy_qp = c_destroy_qp,
	.qp_num = c_qp_num,
	.modify_qp = c_modify_qp,
	.query_qp = c_query_qp,
	.post_send = c_post_send,
	.post_recv = c_post_recv,
	.create_ah = c_create_ah,
	.destroy_ah = c_destroy_ah,
	.get_async_event = c_get_async_event,
	.stats_get = c_stats_get,
	.resolve_gid = c_resolve_gid,
};

/* A device for port @p port of @p c, its attributes from the daemon. */
static struct rnic_device *
dev_make(struct att_conn *c, uint32_t port)
{
	struct rnic_att_msg m = { .port.port = port };
	struct rnic_device *dev;
	struct att_dev_c *d;
	int rc = call(c, RNIC_ATT_PORT, &m, NULL, 0, NULL);

	if (rc != 0)
		return fail_null(rc);
	dev = aligned_alloc(RTE_CACHE_LINE_SIZE,
			    RTE_ALIGN_CEIL(sizeof(*dev), (size_t)RTE_CACHE_LINE_SIZE));
	d = calloc(1, sizeof(*d));
	if (dev == NULL || d == NULL) {
		free(dev);
		free(d);
		return fail_null(-ENOMEM);
	}
	memset(dev, 0, sizeof(*dev));
	dev->attr = m.port_rep.attr;
	dev->port_id = UINT16_MAX;
	memcpy(dev->mac, m.port_rep.mac, 6);
	dev->ipv4 = m.port_rep.ipv4;
	dev->n_gid = RTE_MIN(m.port_rep.n_gid, (uint8_t)RNIC_GID_TBL_LEN);
	memcpy(dev->gid, m.port_rep.gid, sizeof(dev->gid));
	dev->n_workers = 1;
	dev->ops = &att_ops;
	dev->remote = d;
	d->c = c;
	d->port = port;
	memcpy(d->name, m.port_rep.name, sizeof(d->name));
	d->name[sizeof(d->name) - 1] = '\0';
	TAILQ_INIT(&d->pds);
	TAILQ_INIT(&d->mrs);
	TAILQ_INIT(&d->cqs);
	TAILQ_INIT(&d->qps);
	TAILQ_INIT(&d->ahs);
	c->refs++;
	return dev;
}

int
rnic_attach_open(const char *path, struct rnic_device **devs, unsigned int max, unsigned int *n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rnic_att_msg m = { .hello = { RNIC_ATT_MAGIC, RNIC_ATT_VERSION } };
	struct att_conn *c;
	int fd, rc;

	*n = 0;
	if (path == NULL || strlen(path) >= sizeof(sa.sun_path) || devs == NULL || max == 0)
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		goto fail;
	}
	rc = call(c, RNIC_ATT_HELLO, &m, NULL, 0, &fd);
	if (rc != 0)
		goto fail;
	c->page_len = m.hello_rep.page_size;
	c->page = map_reply(fd, c->page_len);
	if (c->page == NULL || c->page->magic != RNIC_ATT_MAGIC || m.hello_rep.n_ports == 0 ||
	    m.hello_rep.n_ports > RNIC_ATT_MAX_PORTS) {
		rc = -EPROTO;
		goto fail;
	}
	c->n_ports = m.hello_rep.n_ports;
	c->refs = 1;   /* held while the devices are made */
	for (uint32_t p = 0; p < c->n_ports && *n < max; p++) {
		devs[*n] = dev_make(c, p);
		if (devs[*n] == NULL) {
			rc = -rte_errno;
			while (*n > 0)
				c_dev_destroy(devs[--(*n)]);
			conn_put(c);
			return rc;
		}
		(*n)++;
	}
	conn_put(c);
	return 0;
fail:
	if (c->page != NULL)
		munmap(c->page, c->page_len);
	if (c->fd >= 0)
		close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return rc;
}

bool
rnic_dev_is_attached(const struct rnic_device *dev)
{
	return dev != NULL && dev->ops == &att_ops;
}

const char *
rnic_attach_port_name(const struct rnic_device *dev)
{
	return rnic_dev_is_attached(dev) ? dev_c(dev)->name : NULL;
}

int
rnic_attach_server_stats_get(struct rnic_device *dev, struct rnic_att_server_stats *st)
{
	struct rnic_att_msg m = {0};
	int rc;

	if (!rnic_dev_is_attached(dev))
		return -EINVAL;
	rc = dcall(dev, RNIC_ATT_SERVER_STATS, &m);
	if (rc == 0)
		*st = m.server_rep;
	return rc;
}

int
rnic_attach_state(const struct rnic_device *dev)
{
	if (!rnic_dev_is_attached(dev))
		return -EINVAL;
	return (int)LOAD_ACQ(&dev_c(dev)->c->page->state);
}
