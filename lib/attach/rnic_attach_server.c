/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's side of the attach protocol (rnic_attach.h,
 * rnic_attach_proto.h, doc/design.md "Applications attached to the
 * daemon").
 *
 * Threads: the main thread owns the socket, every application record and
 * every object table (control requests, teardown, async events). The
 * doorbell role runs on the engine lcores: each lcore serves the rings in
 * its slot array, which only the main thread changes (a slot is published
 * with release and unpublished, then the main thread waits for the lcore
 * to finish two passes, [ATT-QUIESCE], before it frees what the slot
 * named). An object's rings are served by one thread at a time: its
 * lcore with a trylock, the main thread (posting what is pending before a
 * modify, destroy or stop) with the lock.
 *
 * Trust: an application may write anything into its rings at any time.
 * Indices are read once and bounded by the ring's depth, each WQE is
 * copied out of shared memory before it is checked, handles are looked up
 * in the application's own tables, and memfds are accepted only when
 * sealed against shrinking (a shrunk file would fault the daemon on
 * access). A ring whose indices break the rules faults its QP (Error,
 * counted in violations); nothing outside the application's own objects
 * is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_log.h>
#include <rte_pause.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "rnic_attach.h"
#include "rnic_core.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"

RTE_LOG_REGISTER(rnic_attach_logtype, softrnic.attach, INFO);
#define ATT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rnic_attach_logtype, "attach: " fmt "\n", ##__VA_ARGS__)

#define ATT_BATCH 32            /* WQEs or completions per ring per pass */
#define ATT_EVENTS 256          /* async events kept per application */
#define ATT_QUIESCE_MS 1000

enum att_kind { ATT_K_QP = 1, ATT_K_CQ = 2 };

/* What an lcore slot names: an attached QP's or CQ's rings. */
struct att_obj {
	uint8_t kind;
	rte_spinlock_t lock;     /* who serves the rings now */
	int lcore;               /* whose slot, -1: none */
	uint32_t slot;
};

struct att_cq {
	struct att_obj o;        /* first */
	struct att_app *app;
	struct rnic_cq *cq;
	uint16_t port;
	uint32_t cqe;            /* unconsumed completions at most */
	uint32_t mask;           /* ring depth - 1 */
	uint32_t pi;             /* completions put in the ring */
	uint32_t refs;           /* QPs that use it */
	struct rnic_att_cq_ring *ring;
	size_t map_len;
};

struct att_qp {
	struct att_obj o;        /* first */
	struct att_app *app;
	struct rnic_qp *qp;
	uint16_t port;
	uint32_t pd, scq, rcq;   /* handles */
	enum rnic_qp_type type;
	struct rnic_qp_cap cap;
	uint32_t sq_depth, sq_stride, rq_depth, rq_stride;
	uint32_t sq_ci, rq_ci;   /* what the engine took: the daemon's count */
	uint8_t fault;           /* W: whoever serves the rings; R: any (relaxed) */
	struct rnic_att_qp_ring *ring;
	uint8_t *sq, *rq;
	size_t map_len;
};

struct att_pd {
	struct rnic_pd *pd;
	uint16_t port;
	uint32_t refs;           /* MRs, QPs and AHs in it */
};

struct att_mr {
	struct rnic_mr *mr;
	uint32_t pd;
	void *map;               /* the pieces, mapped together */
	size_t map_len;
	uint64_t length;
};

struct att_ah {
	struct rnic_ah *ah;
	uint32_t pd;
};

struct att_ev {
	uint16_t port;
	struct rnic_async_event ev;
};

struct att_app {
	int fd;
	uint32_t id;
	pid_t pid;
	uid_t uid;
	bool hello;
	bool bye;                /* it said goodbye: not a death */
	struct rnic_att_page *page;
	struct att_pd **pd;      /* by handle - 1, limits' sizes */
	struct att_mr **mr;
	struct att_cq **cq;
	struct att_qp **qp;
	struct att_ah **ah;
	uint32_t n_pd, n_mr, n_cq, n_qp, n_ah;
	uint32_t ah_cap;         /* entries of ah[]: the doorbell role reads it */
	uint64_t mr_bytes;
	struct att_ev ev[ATT_EVENTS];
	uint32_t ev_head, ev_tail;
};

/* One lcore's doorbell role. Its slots: W: main (release), R: the lcore
 * (acquire); epoch: W: the lcore ([ATT-QUIESCE]). */
struct att_lc {
	uint64_t epoch;
	uint32_t n;              /* slots in use at most (high-water mark) */
	uint32_t cap;
	uint64_t wqes, cqes, violations;   /* W: the lcore */
	struct att_obj **slot;
} __rte_cache_aligned;

struct rnic_attach_server {
	int lfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned int n_ports;
	struct rnic_device *dev[RNIC_ATT_MAX_PORTS];
	char name[RNIC_ATT_MAX_PORTS][32];
	/* the lcore that runs worker w's TX role of port p, or -1 */
	int owner[RNIC_ATT_MAX_PORTS][RNIC_MAX_WORKERS];
	struct rnic_attach_limits lim;
	struct att_app **apps;   /* lim.max_apps */
	uint32_t next_id;
	uint32_t apps_total, apps_died;
	uint64_t requests;
	uint64_t violations;     /* found by the main thread */
	bool lcores_stopped;
	struct att_lc *lc[RTE_MAX_LCORE];
	long page_size;
	uint64_t snap_tsc;       /* when the telemetry snapshot was taken */
};

/* Telemetry's /softrnic/attach: a snapshot the main thread refreshes as
 * it serves (at most every 100 ms), so the telemetry thread never walks
 * tables the main thread changes. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rnic_att_server_stats tel_snap;
static bool tel_live;

static int
tel_attach(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rnic_att_server_stats s;
	bool live;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	pthread_mutex_lock(&tel_lock);
	s = tel_snap;
	live = tel_live;
	pthread_mutex_unlock(&tel_lock);
	if (!live)
		return -ENOENT;
	rte_tel_data_start_dict(d);
#define TEL_U(f) rte_tel_data_add_dict_u64(d, #f, s.f)
	TEL_U(apps); TEL_U(apps_total); TEL_U(apps_died); TEL_U(pds); TEL_U(mrs);
	TEL_U(cqs); TEL_U(qps); TEL_U(ahs); TEL_U(dev_pds); TEL_U(dev_mrs); TEL_U(dev_cqs);
	TEL_U(dev_qps); TEL_U(dev_ahs); TEL_U(mr_bytes); TEL_U(wqes); TEL_U(cqes);
	TEL_U(violations); TEL_U(requests);
#undef TEL_U
	return 0;
}

static void
tel_refresh(struct rnic_attach_server *srv, bool force)
{
	struct rnic_att_server_stats s;
	uint64_t now = rte_get_tsc_cycles();

	if (!force && now - srv->snap_tsc < rte_get_tsc_hz() / 10)
		return;
	srv->snap_tsc = now;
	rnic_attach_server_stats(srv, &s);
	pthread_mutex_lock(&tel_lock);
	tel_snap = s;
	tel_live = true;
	pthread_mutex_unlock(&tel_lock);
}

/* ------------------------------------------------------------------ */
/* Shared memory                                                       */
/* ------------------------------------------------------------------ */

/* A memfd of @p size bytes, sealed so that nobody can shrink or grow it,
 * mapped here at *@p map. @return the fd, or a negative errno. */
static int
shm_create(const char *name, size_t size, void **map)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = -errno;

		close(fd);
		return e;
	}
	*map = p;
	return fd;
}

static size_t
page_round(const struct rnic_attach_server *srv, size_t n)
{
	return RTE_ALIGN_CEIL(n, (size_t)srv->page_size);
}

/* ------------------------------------------------------------------ */
/* Lcore slots                                                          */
/* ------------------------------------------------------------------ */

static int
slot_publish(struct rnic_attach_server *srv, struct att_obj *o, int lcore)
{
	struct att_lc *l = lcore >= 0 ? srv->lc[lcore] : NULL;
	uint32_t i;

	o->lcore = -1;
	if (l == NULL)
		return -ENODEV;
	for (i = 0; i < l->cap; i++)
		if (l->slot[i] == NULL)
			break;
	if (i == l->cap)
		return -ENOSPC;
	o->lcore = lcore;
	o->slot = i;
	STORE_REL(&l->slot[i], o);
	if (i >= l->n)
		STORE_REL(&l->n, i + 1);
	return 0;
}

static void
slot_unpublish(struct rnic_attach_server *srv, struct att_obj *o)
{
	if (o->lcore < 0)
		return;
	STORE_SC(&srv->lc[o->lcore]->slot[o->slot], NULL);
}

/* [ATT-QUIESCE] Wait until every lcore finished two passes that began
 * after the caller's last unpublish. False when one did not answer in
 * time: the caller then must not free what a slot named. */
static bool
lcores_quiesce(struct rnic_attach_server *srv)
{
	uint64_t seen[RTE_MAX_LCORE], end;
	unsigned int lc;

	if (srv->lcores_stopped)
		return true;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (srv->lc[lc] != NULL)
			seen[lc] = LOAD_SC(&srv->lc[lc]->epoch);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * ATT_QUIESCE_MS / 1000;
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		if (srv->lc[lc] == NULL)
			continue;
		while (LOAD_SC(&srv->lc[lc]->epoch) - seen[lc] < 2) {
			if (rte_get_tsc_cycles() > end) {
				ATT_LOG(ERR, "lcore %u does not serve its rings", lc);
				return false;
			}
			rte_pause();
		}
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The doorbell role                                                   */
/* ------------------------------------------------------------------ */

/* The application broke @p q's ring rules: its QP goes to Error and the
 * rings are no longer read. */
static void
qp_fault(struct att_qp *q, uint64_t *violations)
{
	STORE_RLX(&q->fault, 1);
	STORE_REL(&q->ring->fault, 1);
	rnic_qp_to_error(q->qp);
	(*violations)++;
}

/* Entries an application published in a ring of @p depth: its producer
 * index against ours; more than the ring holds is a fault (UINT32_MAX). */
static inline uint32_t
ring_pending(const uint32_t *pi_shared, uint32_t ci, uint32_t depth)
{
	uint32_t pi = LOAD_ACQ(pi_shared);
	uint32_t n = pi - ci;

	return n > depth ? UINT32_MAX : n;
}

/* Receive WQEs from the ring into the engine. */
static unsigned int
qp_forward_rq(struct att_qp *q, uint64_t *violations)
{
	struct rnic_recv_wr wr[ATT_BATCH], *bad = NULL;
	struct rnic_sge sge[ATT_BATCH][RNIC_ATT_MAX_SGE];
	uint32_t n = ring_pending(&q->ring->rq_pi, q->rq_ci, q->rq_depth), i;
	int rc;

	if (n == 0)
		return 0;
	if (n == UINT32_MAX) {
		qp_fault(q, violations);
		return 0;
	}
	n = RTE_MIN(n, (uint32_t)ATT_BATCH);
	for (i = 0; i < n; i++) {
		const uint8_t *slot = q->rq + (size_t)((q->rq_ci + i) & (q->rq_depth - 1)) *
					      q->rq_stride;
		struct rnic_att_rwqe h;

		memcpy(&h, slot, sizeof(h));   /* once: the application may change it */
		if (h.num_sge > q->cap.max_recv_sge || h.num_sge > RNIC_ATT_MAX_SGE) {
			qp_fault(q, violations);
			return 0;
		}
		memcpy(sge[i], slot + sizeof(h), h.num_sge * sizeof(struct rnic_sge));
		wr[i] = (struct rnic_recv_wr){ .wr_id = h.wr_id, .sg_list = sge[i],
					       .num_sge = (int)h.num_sge,
					       .next = i + 1 < n ? &wr[i + 1] : NULL };
	}
	rc = rnic_post_recv(q->qp, wr, &bad);
	if (rc != 0 && rc != -ENOMEM) {
		qp_fault(q, violations);
		return 0;
	}
	n = rc == 0 ? n : (uint32_t)(bad - wr);   /* -ENOMEM: the rest later */
	q->rq_ci += n;
	STORE_REL(&q->ring->rq_ci, q->rq_ci);
	return n;
}

/* Copy the send WQE at ring index @p idx into @p wr (its SGEs or inline
 * bytes into @p sge); false when it breaks the rules. */
static bool
swqe_take(struct att_qp *q, uint32_t idx, struct rnic_send_wr *wr, struct rnic_sge *sge,
	  uint8_t *inl)
{
	const uint8_t *slot = q->sq + (size_t)(idx & (q->sq_depth - 1)) * q->sq_stride;
	struct rnic_att_swqe h;

	memcpy(&h, slot, sizeof(h));       /* once: the application may change it */
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = h.wr_id;
	wr->opcode = (enum rnic_wr_opcode)h.opcode;
	wr->send_flags = h.send_flags;
	wr->imm_data = h.imm_inv;
	if (h.opcode >= RNIC_WR_MAX)
		return false;
	if (h.send_flags & RNIC_SEND_INLINE) {
		if (h.inline_len > q->cap.max_inline_data || h.inline_len > q->sq_stride - sizeof(h))
			return false;
		memcpy(inl, slot + sizeof(h), h.inline_len);
		sge[0] = (struct rnic_sge){ .addr = (uint64_t)(uintptr_t)inl,
					    .length = h.inline_len };
		wr->num_sge = h.inline_len ? 1 : 0;
	} else {
		if (h.num_sge > q->cap.max_send_sge || h.num_sge > RNIC_ATT_MAX_SGE)
			return false;
		memcpy(sge, slot + sizeof(h), h.num_sge * sizeof(struct rnic_sge));
		wr->num_sge = h.num_sge;
	}
	wr->sg_list = sge;
	switch (wr->opcode) {
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		wr->wr.atomic.remote_addr = h.remote_addr;
		wr->wr.atomic.rkey = h.rkey;
		wr->wr.atomic.compare_add = h.compare_add;
		wr->wr.atomic.swap = h.swap;
		break;
	default:
		wr->wr.rdma.remote_addr = h.remote_addr;
		wr->wr.rdma.rkey = h.rkey;
		break;
	}
	if (q->type == RNIC_QPT_UD) {
		struct att_app *app = q->app;
		struct att_ah *ah = h.ah - 1u < app->ah_cap ? LOAD_ACQ(&app->ah[h.ah - 1]) : NULL;

		/* The AH must be the application's, in the QP's PD. The main
		 * thread publishes a record with release and frees one only
		 * after [ATT-QUIESCE]. */
		if (ah == NULL || ah->pd != q->pd)
			return false;
		wr->wr.ud.ah = ah->ah;
		wr->wr.ud.remote_qpn = h.remote_qpn;
		wr->wr.ud.remote_qkey = h.remote_qkey;
	}
	return true;
}

/* Send WQEs from the ring into the engine. */
static unsigned int
qp_forward_sq(struct att_qp *q, uint64_t *violations)
{
	struct rnic_send_wr wr[ATT_BATCH], *bad = NULL;
	struct rnic_sge sge[ATT_BATCH][RNIC_ATT_MAX_SGE];
	uint8_t *inl = NULL;
	uint32_t n = ring_pending(&q->ring->sq_pi, q->sq_ci, q->sq_depth), i;
	uint8_t inl_buf[ATT_BATCH / 4][RNIC_ATT_MAX_INLINE];
	unsigned int n_inl = 0;
	int rc;

	if (n == 0)
		return 0;
	if (n == UINT32_MAX) {
		qp_fault(q, violations);
		return 0;
	}
	n = RTE_MIN(n, (uint32_t)ATT_BATCH);
	for (i = 0; i < n; i++) {
		/* Inline WQEs take a buffer each; a batch holds a few. */
		if (n_inl == RTE_DIM(inl_buf)) {
			n = i;
			break;
		}
		inl = inl_buf[n_inl];
		if (!swqe_take(q, q->sq_ci + i, &wr[i], sge[i], inl)) {
			qp_fault(q, violations);
			return 0;
		}
		if (wr[i].send_flags & RNIC_SEND_INLINE)
			n_inl++;
		wr[i].next = NULL;
		if (i > 0)
			wr[i - 1].next = &wr[i];
	}
	if (n == 0)
		return 0;
	rc = rnic_post_send(q->qp, wr, &bad);
	if (rc != 0 && rc != -ENOMEM) {
		qp_fault(q, violations);
		return 0;
	}
	n = rc == 0 ? n : (uint32_t)(bad - wr);
	q->sq_ci += n;
	STORE_REL(&q->ring->sq_ci, q->sq_ci);
	return n;
}

/* Everything an application published on @p q, as far as the engine's
 * queues take it. The caller holds q->o.lock. */
static unsigned int
qp_forward(struct att_qp *q, uint64_t *violations)
{
	unsigned int work = 0;

	if (LOAD_RLX(&q->fault))
		return 0;
	/* Receives first: a loopback pair's SEND then finds its receive. */
	work += qp_forward_rq(q, violations);
	if (!LOAD_RLX(&q->fault))
		work += qp_forward_sq(q, violations);
	return work;
}

/* Completions from the engine's CQ into the application's ring, while
 * it has room. The caller holds c->o.lock. */
static unsigned int
cq_forward(struct att_cq *c)
{
	struct rnic_wc wc[ATT_BATCH];
	uint32_t used = c->pi - LOAD_ACQ(&c->ring->ci);
	uint32_t room;
	int n;

	/* An index beyond the ring is the application's lie: no room. */
	room = used > c->cqe ? 0 : c->cqe - used;
	if (room == 0)
		return 0;
	n = rnic_poll_cq(c->cq, (int)RTE_MIN(room, (uint32_t)ATT_BATCH), wc);
	for (int i = 0; i < n; i++)
		c->ring->wc[(c->pi + (uint32_t)i) & c->mask] = wc[i];
	if (n > 0) {
		c->pi += (uint32_t)n;
		STORE_REL(&c->ring->pi, c->pi);
	}
	if (unlikely(!c->ring->overflow) && rnic_cq_overflowed(c->cq))
		STORE_REL(&c->ring->overflow, 1);
	return (unsigned int)RTE_MAX(n, 0);
}

void
rnic_attach_server_set_polled(struct rnic_attach_server *srv, bool polled)
{
	srv->lcores_stopped = !polled;
}

unsigned int
rnic_attach_server_poll(struct rnic_attach_server *srv, unsigned int lcore)
{
	struct att_lc *l;
	unsigned int work = 0;
	uint32_t n;

	if (srv == NULL || lcore >= RTE_MAX_LCORE || (l = srv->lc[lcore]) == NULL)
		return 0;
	n = LOAD_ACQ(&l->n);
	for (uint32_t i = 0; i < n; i++) {
		struct att_obj *o = LOAD_ACQ(&l->slot[i]);

		if (o == NULL)
			continue;
		if (o->kind == ATT_K_QP) {
			struct att_qp *q = (struct att_qp *)o;
			unsigned int w;

			/* Nothing new (the indices in shared memory: a lie only
			 * delays the liar's own WQEs): no lock. */
			if (LOAD_RLX(&q->fault) ||
			    (LOAD_ACQ(&q->ring->sq_pi) == LOAD_RLX(&q->ring->sq_ci) &&
			     LOAD_ACQ(&q->ring->rq_pi) == LOAD_RLX(&q->ring->rq_ci)))
				continue;
			if (!rte_spinlock_trylock(&o->lock))
				continue;
			w = qp_forward(q, &l->violations);
			rte_spinlock_unlock(&o->lock);
			l->wqes += w;
			work += w;
		} else {
			unsigned int w;

			if (!rte_spinlock_trylock(&o->lock))
				continue;
			w = cq_forward((struct att_cq *)o);
			rte_spinlock_unlock(&o->lock);
			l->cqes += w;
			work += w;
		}
	}
	/* [ATT-QUIESCE] this pass is over; the next one reads the slots
	 * after this store. */
	STORE_SC(&l->epoch, l->epoch + 1);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return work;
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

static void
limits_default(struct rnic_attach_limits *l)
{
	if (l->max_apps == 0)
		l->max_apps = 16;
	if (l->max_pds == 0)
		l->max_pds = 16;
	if (l->max_mrs == 0)
		l->max_mrs = 256;
	if (l->max_mr_bytes == 0)
		l->max_mr_bytes = 1ull << 30;
	if (l->max_cqs == 0)
		l->max_cqs = 64;
	if (l->max_cqe == 0)
		l->max_cqe = 65536;
	if (l->max_qps == 0)
		l->max_qps = 256;
	if (l->max_ahs == 0)
		l->max_ahs = 256;
}

struct rnic_attach_server *
rnic_attach_server_create(const char *path, struct rnic_device *const *devs,
			  const char *const *names, unsigned int n_ports,
			  const struct rnic_attach_limits *lim)
{
	struct rnic_attach_server *srv;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (path == NULL || strlen(path) >= sizeof(sa.sun_path) || n_ports == 0 ||
	    n_ports > RNIC_ATT_MAX_PORTS) {
		errno = EINVAL;
		return NULL;
	}
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL)
		return NULL;
	srv->lim = lim != NULL ? *lim : (struct rnic_attach_limits){0};
	limits_default(&srv->lim);
	if (srv->lim.max_cqe > RNIC_MAX_CQE)
		srv->lim.max_cqe = RNIC_MAX_CQE;
	srv->apps = calloc(srv->lim.max_apps, sizeof(*srv->apps));
	srv->page_size = sysconf(_SC_PAGESIZE);
	if (srv->apps == NULL) {
		free(srv);
		return NULL;
	}
	srv->n_ports = n_ports;
	for (unsigned int p = 0; p < n_ports; p++) {
		srv->dev[p] = devs[p];
		snprintf(srv->name[p], sizeof(srv->name[p]), "%s",
			 names != NULL && names[p] != NULL ? names[p] : "port");
		for (unsigned int w = 0; w < RNIC_MAX_WORKERS; w++)
			srv->owner[p][w] = -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	/* Its directory (/run/softrnic) may be new: one level is made. */
	{
		char dir[sizeof(srv->path)];
		char *slash;

		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			if (mkdir(dir, 0755) != 0 && errno != EEXIST)
				ATT_LOG(WARNING, "cannot make %s: %s", dir, strerror(errno));
		}
	}
	/* A socket left by a daemon that died is replaced; anything else
	 * at the path is not ours to remove. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			ATT_LOG(ERR, "%s exists and is not a socket", path);
			free(srv->apps);
			free(srv);
			errno = EEXIST;
			return NULL;
		}
		unlink(path);
	}
	srv->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (srv->lfd < 0 || bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(srv->lfd, 16) != 0) {
		int e = errno;

		ATT_LOG(ERR, "cannot listen on %s: %s", path, strerror(e));
		if (srv->lfd >= 0)
			close(srv->lfd);
		free(srv->apps);
		free(srv);
		errno = e;
		return NULL;
	}
	{
		static bool registered;

		if (!registered)
			rte_telemetry_register_cmd("/softrnic/attach", tel_attach,
						   "Attached applications: what the daemon holds for "
						   "them and has served (a snapshot, 100 ms)");
		registered = true;
	}
	tel_refresh(srv, true);
	ATT_LOG(INFO, "listening on %s (%u ports; per application: %u QPs, %u MRs, %u CQs of "
		"%u, %" PRIu64 " MiB)", path, n_ports, srv->lim.max_qps, srv->lim.max_mrs,
		srv->lim.max_cqs, srv->lim.max_cqe, srv->lim.max_mr_bytes >> 20);
	return srv;
}

int
rnic_attach_server_add_lcore(struct rnic_attach_server *srv, unsigned int lcore,
			     struct rnic_device *dev, unsigned int worker, unsigned int roles)
{
	unsigned int p;
	struct att_lc *l;

	if (srv == NULL || lcore >= RTE_MAX_LCORE || worker >= RNIC_MAX_WORKERS)
		return -EINVAL;
	for (p = 0; p < srv->n_ports; p++)
		if (srv->dev[p] == dev)
			break;
	if (p == srv->n_ports)
		return -EINVAL;
	if (!(roles & RNIC_ROLE_TX))
		return 0;
	l = srv->lc[lcore];
	if (l == NULL) {
		void *p;

		/* the process heap (not DPDK's): leak checkers see what it holds */
		if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, sizeof(*l)) != 0)
			return -ENOMEM;
		l = memset(p, 0, sizeof(*l));
		l->cap = srv->lim.max_apps * (srv->lim.max_qps + srv->lim.max_cqs);
		l->slot = calloc(l->cap, sizeof(*l->slot));
		if (l->slot == NULL) {
			free(l);
			return -ENOMEM;
		}
		srv->lc[lcore] = l;
	}
	srv->owner[p][worker] = (int)lcore;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */
/* ------------------------------------------------------------------ */

/* A free handle in a table of @p cap entries (index + 1), or 0. */
static uint32_t
handle_free(void *const *tab, uint32_t cap)
{
	for (uint32_t i = 0; i < cap; i++)
		if (tab[i] == NULL)
			return i + 1;
	return 0;
}

static struct att_pd *
app_pd(const struct rnic_attach_server *srv, const struct att_app *app, uint32_t h)
{
	return h - 1u < srv->lim.max_pds ? app->pd[h - 1] : NULL;
}

static struct att_cq *
app_cq(const struct rnic_attach_server *srv, const struct att_app *app, uint32_t h)
{
	return h - 1u < srv->lim.max_cqs ? app->cq[h - 1] : NULL;
}

static struct att_qp *
app_qp(const struct rnic_attach_server *srv, const struct att_app *app, uint32_t h)
{
	return h - 1u < srv->lim.max_qps ? app->qp[h - 1] : NULL;
}

static struct att_mr *
app_mr(const struct rnic_attach_server *srv, const struct att_app *app, uint32_t h)
{
	return h - 1u < srv->lim.max_mrs ? app->mr[h - 1] : NULL;
}

static struct att_ah *
app_ah(const struct rnic_attach_server *srv, const struct att_app *app, uint32_t h)
{
	return h - 1u < srv->lim.max_ahs ? app->ah[h - 1] : NULL;
}

static int
qp_free(struct rnic_attach_server *srv, struct att_app *app, uint32_t h)
{
	struct att_qp *q = app->qp[h - 1];

	rnic_qp_to_error(q->qp);
	rnic_destroy_qp(q->qp);
	app_pd(srv, app, q->pd)->refs--;
	app_cq(srv, app, q->scq)->refs--;
	app_cq(srv, app, q->rcq)->refs--;
	munmap(q->ring, q->map_len);
	free(q);
	app->qp[h - 1] = NULL;
	app->n_qp--;
	return 0;
}

static int
cq_free(struct rnic_attach_server *srv, struct att_app *app, uint32_t h)
{
	struct att_cq *c = app->cq[h - 1];

	RTE_SET_USED(srv);
	rnic_destroy_cq(c->cq);
	munmap(c->ring, c->map_len);
	free(c);
	app->cq[h - 1] = NULL;
	app->n_cq--;
	return 0;
}

static void
mr_free(struct att_app *app, uint32_t h, struct rnic_attach_server *srv)
{
	struct att_mr *m = app->mr[h - 1];

	rnic_dereg_mr(m->mr);   /* quiesces the engine: nothing reaches the map after */
	munmap(m->map, m->map_len);
	app_pd(srv, app, m->pd)->refs--;
	app->mr_bytes -= m->length;
	free(m);
	app->mr[h - 1] = NULL;
	app->n_mr--;
}

/* The caller unpublished app->ah[h - 1] and waited ([ATT-QUIESCE]). */
static void
ah_free(struct att_app *app, struct att_ah *a, struct rnic_attach_server *srv)
{
	rnic_destroy_ah(a->ah);
	app_pd(srv, app, a->pd)->refs--;
	free(a);
	app->n_ah--;
}

/* Everything @p app holds, in dependency order. With lcores running,
 * its rings leave their slots first. */
static void
app_free(struct rnic_attach_server *srv, struct att_app *app)
{
	bool quiet;

	for (uint32_t i = 0; i < srv->lim.max_qps; i++)
		if (app->qp[i] != NULL)
			slot_unpublish(srv, &app->qp[i]->o);
	for (uint32_t i = 0; i < srv->lim.max_cqs; i++)
		if (app->cq[i] != NULL)
			slot_unpublish(srv, &app->cq[i]->o);
	quiet = lcores_quiesce(srv);
	if (!quiet) {
		/* An lcore that does not answer may still be in these rings:
		 * the QPs go to Error and their records and rings stay (a leak,
		 * said once), rather than be freed under it. */
		ATT_LOG(ERR, "application %u: its rings may still be in use: %u QPs and %u CQs "
			"kept", app->id, app->n_qp, app->n_cq);
		for (uint32_t i = 0; i < srv->lim.max_qps; i++)
			if (app->qp[i] != NULL) {
				rnic_qp_to_error(app->qp[i]->qp);
				app->qp[i] = NULL;
			}
		for (uint32_t i = 0; i < srv->lim.max_cqs; i++)
			app->cq[i] = NULL;
		app->n_qp = app->n_cq = 0;
	}
	for (uint32_t i = 0; i < srv->lim.max_qps; i++)
		if (app->qp[i] != NULL)
			qp_free(srv, app, i + 1);
	for (uint32_t i = 0; i < srv->lim.max_ahs; i++)
		if (app->ah[i] != NULL && quiet) {
			struct att_ah *a = app->ah[i];

			app->ah[i] = NULL;
			ah_free(app, a, srv);
		}
	for (uint32_t i = 0; i < srv->lim.max_mrs; i++)
		if (app->mr[i] != NULL)
			mr_free(app, i + 1, srv);
	for (uint32_t i = 0; i < srv->lim.max_cqs; i++)
		if (app->cq[i] != NULL)
			cq_free(srv, app, i + 1);
	for (uint32_t i = 0; i < srv->lim.max_pds; i++)
		if (app->pd[i] != NULL) {
			if (app->pd[i]->refs == 0)   /* else objects kept above use it */
				rnic_dealloc_pd(app->pd[i]->pd);
			free(app->pd[i]);
			app->pd[i] = NULL;
			app->n_pd--;
		}
	if (app->page != NULL) {
		STORE_REL(&app->page->state, RNIC_ATT_GONE);
		munmap(app->page, (size_t)srv->page_size);
	}
	if (app->fd >= 0)
		close(app->fd);
	free(app->pd);
	free(app->mr);
	free(app->cq);
	free(app->qp);
	free(app->ah);
	free(app);
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

struct att_req {
	struct rnic_att_msg m;
	size_t len;
	int fds[RNIC_ATT_MAX_FDS];
	unsigned int n_fds;
	/* the reply's fd, if any (closed here after sending) */
	int out_fd;
};

static int
req_hello(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	void *page;
	int fd;

	if (r->m.hello.magic != RNIC_ATT_MAGIC || r->m.hello.version != RNIC_ATT_VERSION)
		return -EPROTO;
	if (app->hello)
		return -EALREADY;
	fd = shm_create("softrnic-app", (size_t)srv->page_size, &page);
	if (fd < 0)
		return fd;
	app->page = page;
	app->page->magic = RNIC_ATT_MAGIC;
	STORE_REL(&app->page->state, RNIC_ATT_UP);
	app->hello = true;
	r->out_fd = fd;
	r->m.hello_rep.n_ports = srv->n_ports;
	r->m.hello_rep.page_size = (uint32_t)srv->page_size;
	ATT_LOG(INFO, "application %u (pid %d, uid %u) attached", app->id, (int)app->pid,
		(unsigned int)app->uid);
	return 0;
}

static int
req_port(struct rnic_attach_server *srv, struct att_req *r)
{
	struct rnic_att_port_info *pi = &r->m.port_rep;
	uint32_t p = r->m.port.port;
	struct rnic_device *dev;

	if (p >= srv->n_ports)
		return -EINVAL;
	dev = srv->dev[p];
	memset(pi, 0, sizeof(*pi));
	rnic_dev_get_attr(dev, &pi->attr);
	rnic_dev_get_addr(dev, pi->mac, &pi->ipv4);
	pi->n_gid = (uint8_t)rnic_dev_gid_count(dev);
	for (unsigned int i = 0; i < pi->n_gid && i < RNIC_GID_TBL_LEN; i++)
		rnic_dev_query_gid(dev, i, pi->gid[i]);
	snprintf(pi->name, sizeof(pi->name), "%s", srv->name[p]);
	return 0;
}

static int
req_alloc_pd(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	uint32_t p = r->m.port.port, h;
	struct att_pd *a;

	if (p >= srv->n_ports)
		return -EINVAL;
	h = handle_free((void *const *)app->pd, srv->lim.max_pds);
	if (h == 0)
		return -ENOSPC;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	a->pd = rnic_alloc_pd(srv->dev[p]);
	if (a->pd == NULL) {
		free(a);
		return -ENOMEM;
	}
	a->port = (uint16_t)p;
	app->pd[h - 1] = a;
	app->n_pd++;
	r->m.obj_rep.handle = h;
	return 0;
}

static int
req_dealloc_pd(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	uint32_t h = r->m.obj.handle;
	struct att_pd *a = app_pd(srv, app, h);

	if (a == NULL)
		return -EINVAL;
	if (a->refs)
		return -EBUSY;
	rnic_dealloc_pd(a->pd);
	free(a);
	app->pd[h - 1] = NULL;
	app->n_pd--;
	return 0;
}

/* Map the memfd pieces of a REG_MR request together; NULL with *err. */
static void *
mr_map(struct rnic_attach_server *srv, struct att_req *r, size_t *len, int *err)
{
	const __typeof__(r->m.reg_mr) *q = &r->m.reg_mr;
	uint64_t total = 0;
	uint8_t *base;

	*err = -EINVAL;
	if (q->n_pieces == 0 || q->n_pieces > RNIC_ATT_MAX_PIECES)
		return NULL;
	for (uint32_t i = 0; i < q->n_pieces; i++) {
		const struct rnic_att_piece *pc = &q->piece[i];
		struct stat st;
		int seals;

		if (pc->fd >= r->n_fds || pc->length == 0 ||
		    pc->offset % (uint64_t)srv->page_size || pc->length % (uint64_t)srv->page_size ||
		    pc->offset + pc->length < pc->offset || total + pc->length < total)
			return NULL;
		/* Only a memfd that can never shrink: the daemon would fault
		 * on pages a truncation took away. */
		seals = fcntl(r->fds[pc->fd], F_GET_SEALS);
		if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(r->fds[pc->fd], &st) != 0 ||
		    (uint64_t)st.st_size < pc->offset + pc->length) {
			*err = -EBADF;
			return NULL;
		}
		total += pc->length;
	}
	if (q->length == 0 || q->offset + q->length < q->offset || q->offset + q->length > total)
		return NULL;
	*err = -ENOMEM;
	base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	total = 0;
	for (uint32_t i = 0; i < q->n_pieces; i++) {
		const struct rnic_att_piece *pc = &q->piece[i];

		if (mmap(base + total, pc->length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 r->fds[pc->fd], (off_t)pc->offset) == MAP_FAILED) {
			*err = -errno;
			munmap(base, total + pc->length);
			return NULL;
		}
		total += pc->length;
	}
	*len = total;
	return base;
}

static int
req_reg_mr(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	const __typeof__(r->m.reg_mr) *q = &r->m.reg_mr;
	struct att_pd *pd = app_pd(srv, app, q->pd);
	struct att_mr *m;
	uint32_t h;
	int err;

	if (pd == NULL)
		return -EINVAL;
	h = handle_free((void *const *)app->mr, srv->lim.max_mrs);
	if (h == 0)
		return -ENOSPC;
	if (q->length > srv->lim.max_mr_bytes - app->mr_bytes)
		return -ENOSPC;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->map = mr_map(srv, r, &m->map_len, &err);
	if (m->map == NULL) {
		free(m);
		return err;
	}
	m->mr = rnic_reg_mr_iova(pd->pd, (uint8_t *)m->map + q->offset, q->length, q->iova,
				 q->access);
	if (m->mr == NULL) {
		err = -rte_errno;
		munmap(m->map, m->map_len);
		free(m);
		return err;
	}
	m->pd = q->pd;
	m->length = q->length;
	pd->refs++;
	app->mr[h - 1] = m;
	app->n_mr++;
	app->mr_bytes += q->length;
	r->m.obj_rep.handle = h;
	r->m.obj_rep.lkey = rnic_mr_lkey(m->mr);
	r->m.obj_rep.rkey = rnic_mr_rkey(m->mr);
	return 0;
}

static int
req_dereg_mr(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	if (app_mr(srv, app, r->m.obj.handle) == NULL)
		return -EINVAL;
	mr_free(app, r->m.obj.handle, srv);
	return 0;
}

static int
req_create_cq(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	uint32_t p = r->m.create_cq.port, cqe = r->m.create_cq.cqe, h, depth;
	struct att_cq *c;
	void *map;
	int fd, rc;

	if (p >= srv->n_ports || cqe == 0)
		return -EINVAL;
	if (cqe > srv->lim.max_cqe)
		return -EINVAL;
	h = handle_free((void *const *)app->cq, srv->lim.max_cqs);
	if (h == 0)
		return -ENOSPC;
	depth = rte_align32pow2(cqe);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->map_len = page_round(srv, sizeof(struct rnic_att_cq_ring) +
				     (size_t)depth * sizeof(struct rnic_wc));
	fd = shm_create("softrnic-cq", c->map_len, &map);
	if (fd < 0) {
		free(c);
		return fd;
	}
	c->ring = map;
	c->cq = rnic_create_cq(srv->dev[p], cqe);
	if (c->cq == NULL) {
		rc = -rte_errno;
		goto fail;
	}
	c->o.kind = ATT_K_CQ;
	rte_spinlock_init(&c->o.lock);
	c->app = app;
	c->port = (uint16_t)p;
	c->cqe = cqe;
	c->mask = depth - 1;
	rc = slot_publish(srv, &c->o, srv->owner[p][0]);
	if (rc != 0) {
		rnic_destroy_cq(c->cq);
		goto fail;
	}
	app->cq[h - 1] = c;
	app->n_cq++;
	r->m.create_cq_rep.handle = h;
	r->m.create_cq_rep.depth = depth;
	r->m.create_cq_rep.size = c->map_len;
	r->out_fd = fd;
	return 0;
fail:
	munmap(map, c->map_len);
	close(fd);
	free(c);
	return rc;
}

static int
req_destroy_cq(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_cq *c = app_cq(srv, app, r->m.obj.handle);

	if (c == NULL)
		return -EINVAL;
	if (c->refs)
		return -EBUSY;
	slot_unpublish(srv, &c->o);
	if (!lcores_quiesce(srv))
		return -EBUSY;   /* published no more: its lcore is stuck */
	return cq_free(srv, app, r->m.obj.handle);
}

/* The rings' geometry of a QP with capacities @p cap. */
static void
qp_geometry(struct rnic_attach_server *srv, struct att_qp *q)
{
	uint32_t sq_body = RTE_MAX(q->cap.max_send_sge * (uint32_t)sizeof(struct rnic_sge),
				   q->cap.max_inline_data);
	uint32_t rq_body = q->cap.max_recv_sge * (uint32_t)sizeof(struct rnic_sge);

	q->sq_depth = rte_align32pow2(RTE_MAX(q->cap.max_send_wr, 1u));
	q->rq_depth = rte_align32pow2(RTE_MAX(q->cap.max_recv_wr, 1u));
	q->sq_stride = RTE_ALIGN_CEIL((uint32_t)sizeof(struct rnic_att_swqe) + sq_body, 64u);
	q->rq_stride = RTE_ALIGN_CEIL((uint32_t)sizeof(struct rnic_att_rwqe) + rq_body, 16u);
	q->map_len = page_round(srv, sizeof(struct rnic_att_qp_ring) +
				     (size_t)q->sq_depth * q->sq_stride +
				     (size_t)q->rq_depth * q->rq_stride);
}

static int
req_create_qp(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	const __typeof__(r->m.create_qp) *a = &r->m.create_qp;
	struct att_pd *pd = app_pd(srv, app, a->pd);
	struct att_cq *scq = app_cq(srv, app, a->send_cq), *rcq = app_cq(srv, app, a->recv_cq);
	struct rnic_qp_init_attr ia;
	struct rnic_qp_attr qa;
	struct att_qp *q;
	uint32_t h;
	void *map;
	int fd, rc;

	if (pd == NULL || scq == NULL || rcq == NULL || scq->port != pd->port ||
	    rcq->port != pd->port)
		return -EINVAL;
	/* The daemon's QP1 (the CM's) and any number it hands out itself:
	 * an application takes what it is given. */
	if (a->qp_num != 0)
		return -EINVAL;
	if (a->cap.max_send_sge > RNIC_ATT_MAX_SGE || a->cap.max_recv_sge > RNIC_ATT_MAX_SGE ||
	    a->cap.max_inline_data > RNIC_ATT_MAX_INLINE)
		return -EINVAL;
	h = handle_free((void *const *)app->qp, srv->lim.max_qps);
	if (h == 0)
		return -ENOSPC;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	ia = (struct rnic_qp_init_attr){ .send_cq = scq->cq, .recv_cq = rcq->cq,
					 .cap = a->cap, .qp_type = (enum rnic_qp_type)a->qp_type,
					 .sq_sig_all = a->sq_sig_all != 0 };
	q->qp = rnic_create_qp(pd->pd, &ia);
	if (q->qp == NULL) {
		rc = -rte_errno;
		free(q);
		return rc;
	}
	rnic_query_qp(q->qp, &qa, 0, &ia);
	q->cap = qa.cap;
	q->type = ia.qp_type;
	qp_geometry(srv, q);
	fd = shm_create("softrnic-qp", q->map_len, &map);
	if (fd < 0) {
		rc = fd;
		goto fail_qp;
	}
	q->ring = map;
	q->sq = (uint8_t *)map + sizeof(struct rnic_att_qp_ring);
	q->rq = q->sq + (size_t)q->sq_depth * q->sq_stride;
	q->o.kind = ATT_K_QP;
	rte_spinlock_init(&q->o.lock);
	q->app = app;
	q->port = pd->port;
	q->pd = a->pd;
	q->scq = a->send_cq;
	q->rcq = a->recv_cq;
	rc = slot_publish(srv, &q->o, srv->owner[pd->port][rnic_qp_worker(q->qp)]);
	if (rc != 0)
		goto fail_map;
	pd->refs++;
	scq->refs++;
	rcq->refs++;
	app->qp[h - 1] = q;
	app->n_qp++;
	r->m.create_qp_rep = (__typeof__(r->m.create_qp_rep)){
		.handle = h, .qpn = rnic_qp_num(q->qp), .cap = q->cap,
		.sq_depth = q->sq_depth, .sq_stride = q->sq_stride,
		.rq_depth = q->rq_depth, .rq_stride = q->rq_stride,
		.sq_off = sizeof(struct rnic_att_qp_ring),
		.rq_off = sizeof(struct rnic_att_qp_ring) + (uint64_t)q->sq_depth * q->sq_stride,
		.size = q->map_len };
	r->out_fd = fd;
	return 0;
fail_map:
	munmap(map, q->map_len);
	close(fd);
fail_qp:
	rnic_destroy_qp(q->qp);
	free(q);
	return rc;
}

static int
req_modify_qp(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_qp *q = app_qp(srv, app, r->m.modify_qp.handle);
	uint64_t violations = 0;
	int rc;

	if (q == NULL)
		return -EINVAL;
	/* What the application posted before this call reaches the engine
	 * before the QP changes state, as in one process. */
	rte_spinlock_lock(&q->o.lock);
	qp_forward(q, &violations);
	rc = rnic_modify_qp(q->qp, &r->m.modify_qp.attr, r->m.modify_qp.mask);
	rte_spinlock_unlock(&q->o.lock);
	srv->violations += violations;
	return rc;
}

static int
req_query_qp(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_qp *q = app_qp(srv, app, r->m.modify_qp.handle);
	struct rnic_qp_init_attr ia;

	if (q == NULL)
		return -EINVAL;
	return rnic_query_qp(q->qp, &r->m.modify_qp.attr, r->m.modify_qp.mask, &ia);
}

static int
req_destroy_qp(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_qp *q = app_qp(srv, app, r->m.obj.handle);

	if (q == NULL)
		return -EINVAL;
	slot_unpublish(srv, &q->o);
	if (!lcores_quiesce(srv))
		return -EBUSY;
	return qp_free(srv, app, r->m.obj.handle);
}

static int
req_create_ah(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_pd *pd = app_pd(srv, app, r->m.create_ah.pd);
	struct att_ah *a;
	uint32_t h;

	if (pd == NULL)
		return -EINVAL;
	h = handle_free((void *const *)app->ah, srv->lim.max_ahs);
	if (h == 0)
		return -ENOSPC;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	a->ah = rnic_create_ah(pd->pd, &r->m.create_ah.attr);
	if (a->ah == NULL) {
		int rc = -rte_errno;

		free(a);
		return rc;
	}
	a->pd = r->m.create_ah.pd;
	pd->refs++;
	STORE_REL(&app->ah[h - 1], a);
	app->n_ah++;
	r->m.obj_rep.handle = h;
	return 0;
}

static int
req_destroy_ah(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	struct att_ah *a = app_ah(srv, app, r->m.obj.handle);

	if (a == NULL)
		return -EINVAL;
	/* A send WQE naming it may be in a ring: the doorbell role reads
	 * the table, so it must pass before the record goes. */
	STORE_SC(&app->ah[r->m.obj.handle - 1], NULL);
	if (!lcores_quiesce(srv))
		return 0;   /* the handle is gone; the record is kept */
	ah_free(app, a, srv);
	return 0;
}

static int
req_async_event(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	uint32_t p = r->m.port.port;

	if (p >= srv->n_ports)
		return -EINVAL;
	memset(&r->m.event_rep, 0, sizeof(r->m.event_rep));
	/* The oldest event of that port; others keep their order. */
	for (uint32_t i = app->ev_head; i != app->ev_tail; i++) {
		struct att_ev *e = &app->ev[i % ATT_EVENTS];

		if (e->port != p)
			continue;
		r->m.event_rep.have = 1;
		r->m.event_rep.ev = e->ev;
		for (uint32_t j = i; j != app->ev_head; j--)
			app->ev[j % ATT_EVENTS] = app->ev[(j - 1) % ATT_EVENTS];
		app->ev_head++;
		break;
	}
	STORE_REL(&app->page->events, app->ev_tail - app->ev_head);
	return 0;
}

static int
req_stats(struct rnic_attach_server *srv, struct att_req *r)
{
	uint32_t p = r->m.port.port;

	if (p >= srv->n_ports)
		return -EINVAL;
	rnic_dev_stats_get(srv->dev[p], &r->m.stats_rep);
	return 0;
}

static int
req_resolve(struct rnic_attach_server *srv, struct att_req *r)
{
	uint32_t p = r->m.resolve.port;
	uint8_t gid[16];
	int rc;

	if (p >= srv->n_ports)
		return -EINVAL;
	memcpy(gid, r->m.resolve.gid, 16);
	/* Bounded: the main thread serves every application. */
	rc = rnic_dev_resolve_gid(srv->dev[p], gid, r->m.resolve_rep.mac,
				  RTE_MIN(r->m.resolve.timeout_ms, 3000u));
	return rc;
}

void
rnic_attach_server_stats(struct rnic_attach_server *srv, struct rnic_att_server_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->apps_total = srv->apps_total;
	st->apps_died = srv->apps_died;
	st->requests = srv->requests;
	st->violations = srv->violations;
	for (uint32_t i = 0; i < srv->lim.max_apps; i++) {
		const struct att_app *a = srv->apps[i];

		if (a == NULL)
			continue;
		st->apps++;
		st->pds += a->n_pd;
		st->mrs += a->n_mr;
		st->cqs += a->n_cq;
		st->qps += a->n_qp;
		st->ahs += a->n_ah;
		st->mr_bytes += a->mr_bytes;
	}
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct att_lc *l = srv->lc[lc];

		if (l == NULL)
			continue;
		st->wqes += LOAD_RLX(&l->wqes);
		st->cqes += LOAD_RLX(&l->cqes);
		st->violations += LOAD_RLX(&l->violations);
	}
	for (unsigned int p = 0; p < srv->n_ports; p++) {
		struct rnic_dev_objs o;

		rnic_dev_objs_get(srv->dev[p], &o);
		st->dev_pds += o.pds;
		st->dev_mrs += o.mrs;
		st->dev_cqs += o.cqs;
		st->dev_qps += o.qps;
		st->dev_ahs += o.ahs;
	}
}

/* One request of @p app into r (the reply in place). */
static int
dispatch(struct rnic_attach_server *srv, struct att_app *app, struct att_req *r)
{
	/* Every request's fixed part must be there; the union's members
	 * are read only for their op. */
	if (r->len < offsetof(struct rnic_att_msg, hello))
		return -EPROTO;
	if (!app->hello && r->m.op != RNIC_ATT_HELLO)
		return -EPROTO;
	if (r->m.op != RNIC_ATT_REG_MR && r->n_fds != 0)
		return -EINVAL;
	switch (r->m.op) {
	case RNIC_ATT_HELLO: return req_hello(srv, app, r);
	case RNIC_ATT_PORT: return req_port(srv, r);
	case RNIC_ATT_ALLOC_PD: return req_alloc_pd(srv, app, r);
	case RNIC_ATT_DEALLOC_PD: return req_dealloc_pd(srv, app, r);
	case RNIC_ATT_REG_MR: return req_reg_mr(srv, app, r);
	case RNIC_ATT_DEREG_MR: return req_dereg_mr(srv, app, r);
	case RNIC_ATT_CREATE_CQ: return req_create_cq(srv, app, r);
	case RNIC_ATT_DESTROY_CQ: return req_destroy_cq(srv, app, r);
	case RNIC_ATT_CREATE_QP: return req_create_qp(srv, app, r);
	case RNIC_ATT_MODIFY_QP: return req_modify_qp(srv, app, r);
	case RNIC_ATT_QUERY_QP: return req_query_qp(srv, app, r);
	case RNIC_ATT_DESTROY_QP: return req_destroy_qp(srv, app, r);
	case RNIC_ATT_CREATE_AH: return req_create_ah(srv, app, r);
	case RNIC_ATT_DESTROY_AH: return req_destroy_ah(srv, app, r);
	case RNIC_ATT_ASYNC_EVENT: return req_async_event(srv, app, r);
	case RNIC_ATT_STATS: return req_stats(srv, r);
	case RNIC_ATT_RESOLVE: return req_resolve(srv, r);
	case RNIC_ATT_SERVER_STATS:
		rnic_attach_server_stats(srv, &r->m.server_rep);
		return 0;
	case RNIC_ATT_BYE:
		app->bye = true;   /* freed when the socket closes, next */
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Receive one message and its fds; 0 when the peer closed, -1 on error. */
static ssize_t
msg_recv(int fd, struct att_req *r)
{
	char cbuf[CMSG_SPACE(sizeof(int) * RNIC_ATT_MAX_FDS)];
	struct iovec iov = { .iov_base = &r->m, .iov_len = sizeof(r->m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	memset(&r->m, 0, sizeof(r->m));
	r->n_fds = 0;
	r->out_fd = -1;
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n <= 0)
		return n;
	r->n_fds = rnic_att_take_fds(&mh, r->fds, RNIC_ATT_MAX_FDS);
	r->len = (size_t)n;
	/* A truncated message or fd list is refused as a whole. */
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		r->len = 0;
	return n;
}

static int
msg_send(int fd, const struct rnic_att_msg *m, int out_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	rnic_att_put_fds(&mh, cbuf, &out_fd, out_fd >= 0 ? 1 : 0);
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* One request from @p app; false when the application is gone. */
static bool
app_request(struct rnic_attach_server *srv, struct att_app *app)
{
	struct att_req r;
	ssize_t n = msg_recv(app->fd, &r);
	bool ok;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (n < 0)
		return true;
	srv->requests++;
	r.m.status = r.len == 0 ? -EPROTO : dispatch(srv, app, &r);
	for (unsigned int i = 0; i < r.n_fds; i++)
		close(r.fds[i]);
	ok = msg_send(app->fd, &r.m, r.m.status == 0 ? r.out_fd : -1) == 0;
	if (r.out_fd >= 0)
		close(r.out_fd);
	return ok;
}

static void
app_accept(struct rnic_attach_server *srv)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct att_app *app;
	uint32_t slot;
	int fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	for (slot = 0; slot < srv->lim.max_apps; slot++)
		if (srv->apps[slot] == NULL)
			break;
	app = slot < srv->lim.max_apps ? calloc(1, sizeof(*app)) : NULL;
	if (app != NULL) {
		app->pd = calloc(srv->lim.max_pds, sizeof(*app->pd));
		app->mr = calloc(srv->lim.max_mrs, sizeof(*app->mr));
		app->cq = calloc(srv->lim.max_cqs, sizeof(*app->cq));
		app->qp = calloc(srv->lim.max_qps, sizeof(*app->qp));
		app->ah = calloc(srv->lim.max_ahs, sizeof(*app->ah));
		app->ah_cap = srv->lim.max_ahs;
	}
	if (app == NULL || app->pd == NULL || app->mr == NULL || app->cq == NULL ||
	    app->qp == NULL || app->ah == NULL) {
		/* Told why before the door closes: its HELLO gets -EUSERS. */
		struct rnic_att_msg m = { .op = RNIC_ATT_HELLO,
					  .status = slot < srv->lim.max_apps ? -ENOMEM : -EUSERS };
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (app != NULL) {
			app->fd = -1;
			app_free(srv, app);
		}
		if (poll(&pf, 1, 100) == 1)
			(void)!recv(fd, &m.hello, sizeof(m.hello), MSG_DONTWAIT);
		(void)msg_send(fd, &m, -1);
		ATT_LOG(WARNING, "application refused: %s", slot < srv->lim.max_apps ?
			"out of memory" : "max_apps applications attached");
		close(fd);
		return;
	}
	app->fd = fd;
	app->id = ++srv->next_id;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
		app->pid = cred.pid;
		app->uid = cred.uid;
	}
	srv->apps[slot] = app;
	srv->apps_total++;
}

/* An application is gone (it closed the socket, exited or was killed):
 * everything it held goes, its QPs first moved to Error. */
static void
app_gone(struct rnic_attach_server *srv, uint32_t slot)
{
	struct att_app *app = srv->apps[slot];
	bool had = app->n_qp || app->n_mr || app->n_cq || app->n_pd || app->n_ah;

	if (!app->bye && had)
		srv->apps_died++;
	ATT_LOG(INFO, "application %u (pid %d) %s: %u QPs, %u MRs, %u CQs freed", app->id,
		(int)app->pid, app->bye || !had ? "detached" : "died (no goodbye)", app->n_qp,
		app->n_mr, app->n_cq);
	for (uint32_t i = 0; i < srv->lim.max_qps; i++)
		if (app->qp[i] != NULL && app->qp[i]->qp != NULL)
			rnic_qp_to_error(app->qp[i]->qp);
	srv->apps[slot] = NULL;
	app_free(srv, app);
	tel_refresh(srv, true);   /* what it held is gone: shown at once */
}

/* Async events of the ports to the applications whose QPs they name
 * (the rest, of the daemon's own QPs, are dropped: a gateway has none). */
static void
route_events(struct rnic_attach_server *srv)
{
	for (unsigned int p = 0; p < srv->n_ports; p++) {
		struct rnic_async_event ev;

		while (rnic_get_async_event(srv->dev[p], &ev) == 1) {
			for (uint32_t a = 0; a < srv->lim.max_apps; a++) {
				struct att_app *app = srv->apps[a];
				bool mine = false;

				if (app == NULL)
					continue;
				for (uint32_t i = 0; i < srv->lim.max_qps && !mine; i++)
					mine = app->qp[i] != NULL && app->qp[i]->port == p &&
					       app->qp[i]->qp != NULL &&
					       rnic_qp_num(app->qp[i]->qp) == ev.qp_num;
				if (!mine)
					continue;
				if (app->ev_tail - app->ev_head == ATT_EVENTS)
					app->ev_head++;   /* the oldest goes */
				app->ev[app->ev_tail % ATT_EVENTS] =
					(struct att_ev){ .port = (uint16_t)p, .ev = ev };
				app->ev_tail++;
				if (app->page != NULL)
					STORE_REL(&app->page->events,
						  app->ev_tail - app->ev_head);
				break;
			}
		}
	}
}

int
rnic_attach_server_serve(struct rnic_attach_server *srv, int timeout_ms)
{
	struct pollfd *pf;
	uint32_t *who;
	unsigned int n = 1;
	int served = 0, rc;

	if (srv == NULL)
		return -EINVAL;
	pf = calloc(srv->lim.max_apps + 1, sizeof(*pf));
	who = calloc(srv->lim.max_apps + 1, sizeof(*who));
	if (pf == NULL || who == NULL) {
		free(pf);
		free(who);
		return -ENOMEM;
	}
	pf[0] = (struct pollfd){ .fd = srv->lfd, .events = POLLIN };
	for (uint32_t a = 0; a < srv->lim.max_apps; a++)
		if (srv->apps[a] != NULL) {
			pf[n] = (struct pollfd){ .fd = srv->apps[a]->fd, .events = POLLIN };
			who[n++] = a;
		}
	rc = poll(pf, n, timeout_ms);
	if (rc > 0) {
		for (unsigned int i = 1; i < n; i++) {
			if (pf[i].revents == 0)
				continue;
			if ((pf[i].revents & POLLIN) && app_request(srv, srv->apps[who[i]])) {
				served++;
				continue;
			}
			if (pf[i].revents & (POLLHUP | POLLERR | POLLNVAL | POLLIN))
				app_gone(srv, who[i]);
		}
		if (pf[0].revents & POLLIN)
			app_accept(srv);
	}
	route_events(srv);
	tel_refresh(srv, false);
	free(pf);
	free(who);
	return served;
}

/* Every WQE of @p qp completed (flushed, in Error). */
static bool
qp_flushed(const struct rnic_qp *qp)
{
	return LOAD_ACQ(&qp->comp.sq_done) == LOAD_RLX(&qp->app.sq_pi) &&
	       (qp->attr.cap.max_recv_wr == 0 ||
		LOAD_ACQ(&qp->resp.rq_ci) == LOAD_RLX(&qp->app.rq_pi));
}

unsigned int
rnic_attach_server_stop(struct rnic_attach_server *srv, unsigned int timeout_ms)
{
	unsigned int errored = 0;
	uint64_t end, violations = 0;
	bool busy;

	if (srv == NULL)
		return 0;
	for (uint32_t a = 0; a < srv->lim.max_apps; a++) {
		struct att_app *app = srv->apps[a];

		if (app == NULL)
			continue;
		if (app->page != NULL)
			STORE_REL(&app->page->state, RNIC_ATT_STOPPING);
		for (uint32_t i = 0; i < srv->lim.max_qps; i++) {
			struct att_qp *q = app->qp[i];
			struct rnic_qp_attr at = { .qp_state = RNIC_QPS_ERR };

			if (q == NULL)
				continue;
			rte_spinlock_lock(&q->o.lock);
			qp_forward(q, &violations);
			if (rnic_modify_qp(q->qp, &at, RNIC_QP_STATE) == 0)
				errored++;
			rte_spinlock_unlock(&q->o.lock);
		}
	}
	srv->violations += violations;
	/* The lcores flush the QPs and forward the completions; wait until
	 * the engine's CQs are empty (an application that does not poll
	 * keeps some there: bounded). */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * timeout_ms / 1000;
	do {
		busy = false;
		for (uint32_t a = 0; a < srv->lim.max_apps && !busy; a++) {
			struct att_app *app = srv->apps[a];

			for (uint32_t i = 0; app != NULL && i < srv->lim.max_qps && !busy; i++)
				busy = app->qp[i] != NULL && !qp_flushed(app->qp[i]->qp);
			for (uint32_t i = 0; app != NULL && i < srv->lim.max_cqs && !busy; i++)
				busy = app->cq[i] != NULL && rnic_cq_count(app->cq[i]->cq) > 0;
		}
		if (busy)
			rte_delay_us_sleep(1000);
	} while (busy && rte_get_tsc_cycles() < end);
	ATT_LOG(INFO, "stop: %u attached QPs moved to Error, completions %s", errored,
		busy ? "still pending at the timeout" : "delivered");
	return errored;
}

void
rnic_attach_server_destroy(struct rnic_attach_server *srv)
{
	if (srv == NULL)
		return;
	srv->lcores_stopped = true;
	pthread_mutex_lock(&tel_lock);
	tel_live = false;
	pthread_mutex_unlock(&tel_lock);
	for (uint32_t a = 0; a < srv->lim.max_apps; a++)
		if (srv->apps[a] != NULL) {
			struct att_app *app = srv->apps[a];

			srv->apps[a] = NULL;
			app_free(srv, app);
		}
	close(srv->lfd);
	unlink(srv->path);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (srv->lc[lc] != NULL) {
			free(srv->lc[lc]->slot);
			free(srv->lc[lc]);
		}
	free(srv->apps);
	free(srv);
}
