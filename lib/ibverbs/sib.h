/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libibverbs.so.1 over softrnic (issue 19, doc/ibverbs.md): the objects
 * behind the public libibverbs structures. Each wraps the ibv_* struct
 * the application sees (first member, so the pointer the application
 * holds is the wrapper's) and the rnic_* object of lib/verbs.
 *
 * Compiled against Debian's <infiniband/verbs.h> (libibverbs-dev): the
 * layouts are the ones unmodified programs were built with.
 */
#ifndef SIB_H
#define SIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rnic_verbs.h"

/* One per configured port: softrnic_<index>. */
struct sib_device {
	struct ibv_device ibdev;
	/* Where rdma-core's struct verbs_device keeps its ops: NULL, so a
	 * provider library linked into the program (perftest links libmlx5
	 * and libefa) sees a device that is not its own. */
	const void *verbs_ops;
	unsigned int port_idx;
	__be64 guid;
};

/* Asynchronous events a context holds before the program reads them. */
#define SIB_EVQ 64

struct sib_context {
	struct verbs_context vctx;   /* the ibv_context is its last member */
	struct sib_device *sdev;
	struct rnic_device *dev;
	pthread_mutex_t qlock;       /* qps: async events name QPs by number */
	struct sib_qp *qps;
	/* asynchronous events for this context's QPs, routed here from the
	 * engine's ring by the poller thread (sib_async_pump); async_fd is an
	 * eventfd (semaphore) counting them, so poll() on it works */
	struct sib_context *next;    /* all open contexts (sib_device.c) */
	pthread_mutex_t evlock;
	struct rnic_async_event evq[SIB_EVQ];
	unsigned int evh, evn;
};

struct sib_pd {
	struct ibv_pd ibpd;
	struct rnic_pd *pd;
};

struct sib_mr {
	struct ibv_mr ibmr;
	struct rnic_mr *mr;
};

struct sib_channel {
	struct ibv_comp_channel ch;
	pthread_mutex_t lock;
	unsigned int head, n, cap;   /* FIFO of CQs that fired */
	struct sib_cq **fired;
};

struct sib_cq {
	struct ibv_cq ibcq;
	struct rnic_cq *cq;
	struct sib_channel *chan;
	bool armed;                  /* under the engine's notify lock */
	unsigned int empty_polls;    /* consecutive, by the polling thread */
};

struct sib_ah {
	struct ibv_ah ibah;
	struct rnic_ah *ah;
};

#define SIB_WR_BATCH 32

/* The ibv_wr_* builder between ibv_wr_start and ibv_wr_complete. */
struct sib_wr_builder {
	unsigned int n, cap;
	struct rnic_send_wr *wr;
	struct rnic_sge *sge;        /* cap * max_send_sge */
	uint8_t *inl;                /* cap * max_inline: inline data copied */
	int err;                     /* first error, reported by complete */
};

struct sib_qp {
	struct ibv_qp_ex qpx;        /* qp_base is its first member */
	struct rnic_qp *qp;
	struct sib_context *ctx;
	uint32_t max_send_sge, max_inline;
	uint16_t vlan;               /* the port's VLAN, 0 for none */
	bool is_ex;                  /* created by ibv_create_qp_ex with send ops */
	struct sib_wr_builder b;
	struct sib_qp *next;         /* ctx->qps */
};

/* ---- sib_engine.c: the in-process engine ---- */

/* Configured ports (0 when the configuration is missing or bad: the
 * reason is printed once). */
unsigned int sib_engine_ports(void);
const char *sib_engine_port_name(unsigned int idx);
/* The port's address from the configuration (mac all zero when not set). */
void sib_engine_port_addr(unsigned int idx, uint8_t mac[6], uint32_t *ipv4_be, uint16_t *vlan);
/* Start the engine (first call) and take a reference; the device of port
 * @p idx, or NULL with errno set. */
struct rnic_device *sib_engine_get(unsigned int idx);
/* Drop a reference; the last one stops the pollers and frees the devices. */
void sib_engine_put(void);
/* The engine is still there (not torn down at exit): true with the read
 * side of its life lock held, to be dropped by sib_live_leave. */
bool sib_live_enter(void);
void sib_live_leave(void);
/* Run the poller thread's roles once if nobody does right now. */
unsigned int sib_engine_help(void);
/* Resolve @p ip to a MAC on @p dev: waits for the link, then ARP. */
int sib_engine_resolve(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6]);
/* Completion events: arm @p cq (its channel fires when it holds a
 * completion), and forget it (destroy). */
void sib_notify_arm(struct sib_cq *cq);
void sib_async_pump(void);
void sib_notify_forget(struct sib_cq *cq);

/* ---- sib_post.c ---- */
int sib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int sib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int sib_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc);
int sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void sib_qp_ex_init(struct sib_qp *q, uint64_t send_ops_flags);
void sib_qp_ex_free(struct sib_qp *q);

/* errno from a negative return of lib/verbs */
static inline int
sib_err(int rc)
{
	return rc < 0 ? -rc : rc;
}

#define SIB_CTX(c) ((struct sib_context *)((uint8_t *)(c) - \
	__builtin_offsetof(struct sib_context, vctx.context)))

#endif /* SIB_H */
