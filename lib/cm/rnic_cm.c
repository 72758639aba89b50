/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM agent (rnic_cm.h): QP1 of a device, the CM MADs through it
 * (lib/wire/rnic_mad.h), one state machine per connection (IBA vol. 1
 * 12.9, the passive and active sides of connection establishment and
 * release), rdma_cm's IP service on top. Everything runs in the thread
 * that calls rnic_cm_poll and the rnic_cm_* calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "rnic_cm.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "rnic_wire.h"

#define CM_RECVS        32
#define CM_SENDS        32
#define CM_SLOT         (RNIC_UD_GRH_LEN + RNIC_MAD_LEN)
#define CM_EVENTS       64
#define CM_RESOLVE_MS   1          /* ask ARP/ND, do not wait: retried */
#define CM_AH_RETRY_US  1000       /* a MAD waiting for its peer's MAC: first */
#define CM_QP_RESOLVE_MS 2000      /* accept/REP: the data QP needs the MAC now */
/* What this side asks the peer to wait for an answer: 4.096 us * 2^t. */
#define CM_RESP_TIMEOUT 16          /* ~268 ms */
#define CM_MAX_RETRIES  15
#define CM_ACK_TIMEOUT  14          /* the data QP's local ACK timeout, ~67 ms */
#define CM_MIN_RNR      12
/* An MRA's service timeout: 4.096 us * 2^24, ~69 s, as Linux's rdma_cm */
#define CM_MRA_TIMEOUT  24
/* A REQ or SIDR_REQ for a port nobody listens on waits this long for a
 * listener before it is refused (REJ 8, SIDR status 1): a server that
 * listens again right after its first connection (perftest's -R: its
 * client connects the data QP right after their handshake) gets it. */
#define CM_HOLD_MS      100
#define CM_HOLDS        8

enum cm_state {
	CM_LISTEN,
	CM_REQ_RCVD,        /* passive: the application decides */
	CM_REP_SENT,        /* passive: waiting for RTU */
	CM_REQ_SENT,        /* active: waiting for REP */
	CM_ESTABLISHED,
	CM_DREQ_SENT,       /* waiting for DREP */
	CM_CLOSED,          /* released (DREP seen or sent): answers duplicates */
};

struct rnic_cm_id {
	TAILQ_ENTRY(rnic_cm_id) next;
	struct rnic_cm *cm;
	enum cm_state state;
	uint16_t port;               /* listener; the peer's for a connection */
	uint32_t local_id, remote_id;
	struct rnic_qp *qp;
	uint32_t remote_qpn;
	/* PSNs as the Linux CM reads IBA 12.7: a REQ's starting PSN is the
	 * one the passive side sends from (the active side's receive PSN), a
	 * REP's the one the active side sends from. */
	uint32_t sq_psn, rq_psn;
	uint8_t peer_gid[16];
	uint32_t peer_gsi;           /* the QP the peer's MADs come from (1) */
	uint8_t sgid_index;
	struct rnic_ah *ah;          /* to the peer's QP1 */
	uint8_t last[RNIC_MAD_LEN];  /* what a retry or a duplicate resends */
	bool have_last;
	uint64_t deadline;           /* TSC; 0: no timer */
	bool timed;                  /* last waits for an answer (retried) */
	bool ah_wait;                /* last not sent: no MAC for the peer yet */
	uint64_t ah_step;            /* TSC: the next look for it, doubling */
	uint64_t ah_until;           /* TSC: the last one */
	uint64_t timeout_tsc;
	unsigned int retries;
	uint8_t max_retries;         /* per message: ours (active), the REQ's (passive) */
	struct rnic_cm_msg req;      /* passive: the REQ */
	struct rnic_cm_param param;
	uint8_t path_mtu;
	void *ctx;                   /* the caller's (rnic_cm_id_set_context) */
	bool ud;                     /* the UDP port space: SIDR, no connection */
	bool orphan;                 /* released: no events, freed when closed */
	bool dead;                   /* freed at the end of this poll */
};

struct rnic_cm {
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp1;
	struct rnic_mr *mr;
	uint8_t *buf;                /* CM_RECVS receive slots, then CM_SENDS */
	unsigned int send_next, sends_out;
	TAILQ_HEAD(, rnic_cm_id) ids;
	struct rnic_cm_event ev[CM_EVENTS];
	unsigned int ev_head, ev_n;
	struct rnic_cm_stats st;
	uint64_t guid;
	uint64_t tid_next;
	uint64_t hz;
	uint8_t mtu_code;            /* the device's RoCE MTU as IBA codes it */
	/* requests for a port with no listener, held (CM_HOLD_MS) */
	struct cm_hold {
		uint64_t deadline;   /* TSC; 0: a free slot */
		struct rnic_cm_msg m;
		uint8_t src_gid[16], dst_gid[16];
		uint32_t src_qp;
	} hold[CM_HOLDS];
	bool no_hold;                /* replaying a held request: refuse it */
};

/* ------------------------------------------------------------------ */

static uint64_t
cm_timeout_tsc(const struct rnic_cm *cm, uint8_t code)
{
	/* 4.096 us * 2^code, IBA 12.7.30; at least 1 ms. */
	uint64_t us = (4096ull << (code > 31 ? 31 : code)) / 1000;

	return cm->hz * (us < 1000 ? 1000 : us) / 1000000;
}

static void
cm_event(struct rnic_cm *cm, const struct rnic_cm_event *ev)
{
	if (cm->ev_n == CM_EVENTS) {
		cm->st.mads_dropped++;   /* the application is not polling */
		return;
	}
	cm->ev[(cm->ev_head + cm->ev_n++) % CM_EVENTS] = *ev;
}

static void
cm_event_simple(struct rnic_cm_id *id, enum rnic_cm_event_type t, uint16_t reason)
{
	struct rnic_cm_event ev;

	if (id->orphan) {
		/* released by its owner: the connection's end frees it */
		if (t == RNIC_CM_EV_DISCONNECTED || t == RNIC_CM_EV_UNREACHABLE ||
		    t == RNIC_CM_EV_REJECTED)
			id->dead = true;
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = t;
	ev.id = id;
	ev.ud = id->ud;
	ev.timed_out = t == RNIC_CM_EV_UNREACHABLE;   /* the other kind is on_sidr_rep's */
	ev.reject_reason = reason;
	memcpy(ev.peer_gid, id->peer_gid, 16);
	ev.peer_port = id->port;
	ev.param = id->param;
	cm_event(id->cm, &ev);
}

static int
post_recv_slot(struct rnic_cm *cm, unsigned int i)
{
	struct rnic_sge sg = { (uintptr_t)(cm->buf + (size_t)i * CM_SLOT), CM_SLOT,
			       rnic_mr_lkey(cm->mr) };
	struct rnic_recv_wr wr = { .wr_id = i, .sg_list = &sg, .num_sge = 1 }, *bad;

	return rnic_post_recv(cm->qp1, &wr, &bad);
}

/* An address handle to QP1 at @p gid, from GID @p sgid_index. */
static struct rnic_ah *
cm_ah(struct rnic_cm *cm, const uint8_t gid[16], uint8_t sgid_index)
{
	struct rnic_ah_attr a;

	memset(&a, 0, sizeof(a));
	memcpy(a.dgid, gid, 16);
	if (rnic_gid_is_ipv4(gid))
		memset(a.dgid, 0, 12);
	a.sgid_index = sgid_index;
	/* The MAC: cached, or asked for (answered while the device is
	 * polled; the MAD waits for it, see cm_send_msg). */
	if (rnic_dev_resolve_gid(cm->dev, gid, a.dmac, CM_RESOLVE_MS) != 0)
		return NULL;
	return rnic_create_ah(cm->pd, &a);
}

/* Send the MAD @p mad to QP @p dqpn (the peer's GSI: 1, or whichever QP
 * its MAD came from) through @p ah. */
static int
cm_send_to(struct rnic_cm *cm, struct rnic_ah *ah, const uint8_t mad[RNIC_MAD_LEN],
	   uint32_t dqpn)
{
	unsigned int slot;
	uint8_t *p;
	struct rnic_sge sg;
	struct rnic_send_wr wr, *bad;

	if (ah == NULL || cm->sends_out == CM_SENDS) {
		cm->st.mads_dropped++;
		return -ENOBUFS;
	}
	slot = cm->send_next;
	cm->send_next = (cm->send_next + 1) % CM_SENDS;
	p = cm->buf + (size_t)(CM_RECVS + slot) * CM_SLOT;
	memcpy(p, mad, RNIC_MAD_LEN);
	sg = (struct rnic_sge){ (uintptr_t)p, RNIC_MAD_LEN, rnic_mr_lkey(cm->mr) };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = CM_RECVS + slot;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = RNIC_GSI_QKEY;
	if (rnic_post_send(cm->qp1, &wr, &bad) != 0) {
		cm->st.mads_dropped++;
		return -EIO;
	}
	cm->sends_out++;
	cm->st.mads_sent++;
	return 0;
}

static void
cm_hdr(struct rnic_cm *cm, struct rnic_cm_msg *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = RNIC_MAD_BASE_VERSION;
	m->hdr.mgmt_class = RNIC_MGMT_CLASS_CM;
	m->hdr.class_version = RNIC_CM_CLASS_VERSION;
	m->hdr.method = RNIC_MAD_METHOD_SEND;
	m->hdr.attr_id = attr;
	m->hdr.tid = tid ? tid : cm->tid_next++;
}

/* Encode @p m, remember it for retries, send it; start the timer. */
static int
cm_send_msg(struct rnic_cm_id *id, struct rnic_cm_msg *m, bool timed)
{
	struct rnic_cm *cm = id->cm;

	if (rnic_cm_encode(m, id->last) != 0)
		return -EINVAL;
	id->have_last = true;
	if (id->ah == NULL)
		id->ah = cm_ah(cm, id->peer_gid, id->sgid_index);
	id->timed = timed;
	if (timed)
		id->retries = id->max_retries;
	if (id->ah == NULL) {
		/* The peer's MAC is not known yet: look again 1 ms on, then
		 * twice as long each time, for as long as a timed message's
		 * retries would run. An answer (a SIDR_REP, an RTU) waits as
		 * long: its peer, which asked, retries for its own timeouts,
		 * and a slow ARP reply must not lose the answer for good. */
		uint64_t now = rte_get_tsc_cycles();

		id->ah_wait = true;
		id->ah_step = cm->hz * CM_AH_RETRY_US / 1000000;
		id->ah_until = now + id->timeout_tsc * ((uint64_t)id->max_retries + 1);
		id->deadline = now + id->ah_step;
		return 0;
	}
	id->deadline = timed ? rte_get_tsc_cycles() + id->timeout_tsc : 0;
	return cm_send_to(cm, id->ah, id->last, id->peer_gsi);
}

static void
qp_to_error(struct rnic_qp *qp)
{
	struct rnic_qp_attr a = { .qp_state = RNIC_QPS_ERR };

	if (qp != NULL)
		rnic_modify_qp(qp, &a, RNIC_QP_STATE);
}

/* ------------------------------------------------------------------ */
/* QP transitions along a REQ/REP                                      */
/* ------------------------------------------------------------------ */

static int
qp_init(struct rnic_qp *qp)
{
	struct rnic_qp_attr a;

	memset(&a, 0, sizeof(a));
	if (rnic_query_qp(qp, &a, RNIC_QP_STATE, NULL) == 0 && a.qp_state == RNIC_QPS_INIT)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC;
	return rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			      RNIC_QP_ACCESS_FLAGS);
}

/* RTR then RTS towards the peer: its QPN and first PSN, ours. */
static int
qp_connect(struct rnic_cm_id *id, uint32_t dqpn, uint32_t rq_psn, uint8_t mtu_code,
	   uint8_t max_dest_rd, uint8_t max_rd, uint8_t retry, uint8_t rnr_retry,
	   uint8_t tclass, uint8_t hops, uint32_t flow, uint8_t ack_timeout)
{
	struct rnic_cm *cm = id->cm;
	struct rnic_qp_attr a;
	int rc;

	if (id->qp == NULL)
		return -EINVAL;   /* forgotten: being destroyed */
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = (enum rnic_mtu)(mtu_code < cm->mtu_code ? mtu_code : cm->mtu_code);
	if (a.path_mtu < RNIC_MTU_256)
		a.path_mtu = RNIC_MTU_256;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = max_dest_rd;
	a.min_rnr_timer = CM_MIN_RNR;
	memcpy(a.ah_attr.dgid, id->peer_gid, 16);
	if (rnic_gid_is_ipv4(id->peer_gid))
		memset(a.ah_attr.dgid, 0, 12);
	a.ah_attr.sgid_index = id->sgid_index;
	a.ah_attr.tos = tclass;
	a.ah_attr.ttl = hops;
	a.ah_attr.flow_label = flow & 0xfffff;
	rc = rnic_dev_resolve_gid(cm->dev, id->peer_gid, a.ah_attr.dmac, CM_QP_RESOLVE_MS);
	if (rc != 0)
		return rc;
	rc = rnic_modify_qp(id->qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
			    RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC |
			    RNIC_QP_MIN_RNR_TIMER);
	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = id->sq_psn;
	a.timeout = ack_timeout ? ack_timeout : CM_ACK_TIMEOUT;
	a.retry_cnt = retry & 7;
	a.rnr_retry = rnr_retry & 7;
	a.max_rd_atomic = max_rd;
	return rnic_modify_qp(id->qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			      RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
}

/* ------------------------------------------------------------------ */
/* Public calls                                                        */
/* ------------------------------------------------------------------ */

struct rnic_cm *
rnic_cm_create(struct rnic_device *dev, struct rnic_pd *pd)
{
	struct rnic_cm *cm;
	struct rnic_qp_init_attr ia;
	struct rnic_qp_attr a;
	struct rnic_dev_attr da;
	uint8_t mac[6];
	rte_be32_t ip;

	if (dev == NULL || pd == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	cm = rte_zmalloc("rnic_cm", sizeof(*cm), 0);
	if (cm == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	cm->dev = dev;
	cm->pd = pd;
	TAILQ_INIT(&cm->ids);
	cm->hz = rte_get_tsc_hz();
	cm->tid_next = rte_rand() << 16;
	rnic_dev_get_attr(dev, &da);
	cm->mtu_code = da.mtu >= 4096 ? 5 : da.mtu >= 2048 ? 4 : da.mtu >= 1024 ? 3 :
		       da.mtu >= 512 ? 2 : 1;
	rnic_dev_get_addr(dev, mac, &ip);
	/* EUI-64 from the MAC, as RoCE ports derive their node GUID. */
	cm->guid = (uint64_t)(mac[0] ^ 2) << 56 | (uint64_t)mac[1] << 48 |
		   (uint64_t)mac[2] << 40 | 0xfffe000000ull | (uint64_t)mac[3] << 16 |
		   (uint64_t)mac[4] << 8 | mac[5];
	cm->buf = rte_zmalloc("rnic_cm_buf", (size_t)(CM_RECVS + CM_SENDS) * CM_SLOT, 64);
	cm->cq = rnic_create_cq(dev, 2 * (CM_RECVS + CM_SENDS));
	if (cm->buf == NULL || cm->cq == NULL)
		goto fail;
	cm->mr = rnic_reg_mr(pd, cm->buf, (size_t)(CM_RECVS + CM_SENDS) * CM_SLOT,
			     RNIC_ACCESS_LOCAL_WRITE);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cm->cq;
	ia.qp_type = RNIC_QPT_UD;
	ia.qp_num = RNIC_GSI_QPN;
	ia.cap.max_send_wr = CM_SENDS;
	ia.cap.max_recv_wr = CM_RECVS;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	cm->qp1 = cm->mr ? rnic_create_qp(pd, &ia) : NULL;
	if (cm->qp1 == NULL)
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qkey = RNIC_GSI_QKEY;
	if (rnic_modify_qp(cm->qp1, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			   RNIC_QP_QKEY) != 0)
		goto fail;
	a.qp_state = RNIC_QPS_RTR;
	if (rnic_modify_qp(cm->qp1, &a, RNIC_QP_STATE) != 0)
		goto fail;
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = 0;
	if (rnic_modify_qp(cm->qp1, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN) != 0)
		goto fail;
	for (unsigned int i = 0; i < CM_RECVS; i++)
		if (post_recv_slot(cm, i) != 0)
			goto fail;
	return cm;
fail:
	rnic_cm_destroy(cm);
	rte_errno = rte_errno ? rte_errno : ENOMEM;
	return NULL;
}

void
rnic_cm_destroy(struct rnic_cm *cm)
{
	struct rnic_cm_id *id;

	if (cm == NULL)
		return;
	while ((id = TAILQ_FIRST(&cm->ids)) != NULL)
		rnic_cm_destroy_id(id);
	if (cm->qp1)
		rnic_destroy_qp(cm->qp1);
	if (cm->mr)
		rnic_dereg_mr(cm->mr);
	if (cm->cq)
		rnic_destroy_cq(cm->cq);
	rte_free(cm->buf);
	rte_free(cm);
}

static struct rnic_cm_id *
id_new(struct rnic_cm *cm, enum cm_state st)
{
	struct rnic_cm_id *id = rte_zmalloc("rnic_cm_id", sizeof(*id), 0);

	if (id == NULL)
		return NULL;
	id->cm = cm;
	id->state = st;
	do {
		id->local_id = (uint32_t)rte_rand();
	} while (id->local_id == 0);
	id->timeout_tsc = cm_timeout_tsc(cm, CM_RESP_TIMEOUT);
	id->max_retries = CM_MAX_RETRIES;
	id->peer_gsi = RNIC_GSI_QPN;
	TAILQ_INSERT_TAIL(&cm->ids, id, next);
	return id;
}

void
rnic_cm_destroy_id(struct rnic_cm_id *id)
{
	struct rnic_cm *cm;

	if (id == NULL)
		return;
	cm = id->cm;
	/* Events still queued for it would point at freed memory. */
	for (unsigned int i = 0; i < cm->ev_n; i++) {
		struct rnic_cm_event *e = &cm->ev[(cm->ev_head + i) % CM_EVENTS];

		if (e->id == id)
			e->id = NULL;
		if (e->listen_id == id)
			e->listen_id = NULL;
	}
	TAILQ_REMOVE(&cm->ids, id, next);
	if (id->ah)
		rnic_destroy_ah(id->ah);
	rte_free(id);
}

void
rnic_cm_release_id(struct rnic_cm_id *id)
{
	if (id == NULL)
		return;
	id->qp = NULL;
	id->ctx = NULL;
	if (id->state == CM_REQ_RCVD)
		rnic_cm_reject(id);       /* never accepted: the peer hears no */
	if (id->state == CM_ESTABLISHED)
		rnic_cm_disconnect(id);
	if (id->state == CM_DREQ_SENT && !id->dead)
		id->orphan = true;
	else
		rnic_cm_destroy_id(id);
}

void
rnic_cm_id_forget_qp(struct rnic_cm_id *id)
{
	if (id != NULL)
		id->qp = NULL;
}

void
rnic_cm_id_set_context(struct rnic_cm_id *id, void *ctx)
{
	if (id != NULL)
		id->ctx = ctx;
}

void *
rnic_cm_id_context(const struct rnic_cm_id *id)
{
	return id ? id->ctx : NULL;
}

struct rnic_qp *
rnic_cm_id_qp(const struct rnic_cm_id *id)
{
	return id ? id->qp : NULL;
}

void
rnic_cm_stats_get(const struct rnic_cm *cm, struct rnic_cm_stats *st)
{
	*st = cm->st;
}

static void cm_hold_replay(struct rnic_cm *cm);

static struct rnic_cm_id *
listen_ps(struct rnic_cm *cm, uint16_t port, bool ud)
{
	struct rnic_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->state == CM_LISTEN && id->port == port && id->ud == ud) {
			rte_errno = EADDRINUSE;
			return NULL;
		}
	id = id_new(cm, CM_LISTEN);
	if (id == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	id->port = port;
	id->ud = ud;
	cm_hold_replay(cm);   /* requests that came a little early */
	return id;
}

struct rnic_cm_id *
rnic_cm_listen(struct rnic_cm *cm, uint16_t port)
{
	return listen_ps(cm, port, false);
}

struct rnic_cm_id *
rnic_cm_listen_ud(struct rnic_cm *cm, uint16_t port)
{
	return listen_ps(cm, port, true);
}

/* The active side's id towards port @p port at @p dgid from GID
 * @p sgid_index (its GID into @p sgid); NULL with rte_errno for bad
 * arguments (EINVAL) or no memory. */
static struct rnic_cm_id *
active_id(struct rnic_cm *cm, const uint8_t dgid[16], uint8_t sgid_index, uint16_t port,
	  const struct rnic_cm_param *param, uint8_t sgid[16])
{
	struct rnic_cm_id *id;

	if (cm == NULL || dgid == NULL || param == NULL ||
	    param->private_data_len > RNIC_CM_PDATA_MAX ||
	    rnic_dev_query_gid(cm->dev, sgid_index, sgid) != 0 ||
	    rnic_gid_is_ipv4(sgid) != rnic_gid_is_ipv4(dgid)) {
		rte_errno = EINVAL;
		return NULL;
	}
	id = id_new(cm, CM_REQ_SENT);
	if (id == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	id->port = port;
	id->param = *param;
	id->sgid_index = sgid_index;
	memcpy(id->peer_gid, dgid, 16);
	return id;
}

/* The rdma_cm header of a REQ or SIDR_REQ from @p sgid to @p dgid. */
static void
cma_hdr_fill(const uint8_t sgid[16], const uint8_t dgid[16], uint8_t *pdata)
{
	struct rnic_cma_hdr h;

	memset(&h, 0, sizeof(h));
	h.ip_version = rnic_gid_is_ipv4(sgid) ? 4 : 6;
	h.src_port = (uint16_t)(0x8000 | (rte_rand() & 0x7fff));
	if (h.ip_version == 4) {
		memcpy(h.src_addr + 12, sgid + 12, 4);
		memcpy(h.dst_addr + 12, dgid + 12, 4);
	} else {
		memcpy(h.src_addr, sgid, 16);
		memcpy(h.dst_addr, dgid, 16);
	}
	rnic_cma_hdr_encode(&h, pdata);
}

struct rnic_cm_id *
rnic_cm_resolve_ud(struct rnic_cm *cm, const uint8_t dgid[16], uint8_t sgid_index,
		   uint16_t port, const struct rnic_cm_param *param)
{
	struct rnic_cm_id *id;
	struct rnic_cm_msg m;
	uint8_t sgid[16];

	id = active_id(cm, dgid, sgid_index, port, param, sgid);
	if (id == NULL)
		return NULL;
	id->ud = true;
	cm_hdr(cm, &m, RNIC_CM_SIDR_REQ, 0);
	m.sidr_req.request_id = id->local_id;
	m.sidr_req.pkey = RNIC_DEFAULT_PKEY;
	m.sidr_req.service_id = RNIC_CM_SID_PS_UDP | port;
	cma_hdr_fill(sgid, dgid, m.sidr_req.private_data);
	memcpy(m.sidr_req.private_data + RNIC_CMA_HDR_LEN, param->private_data,
	       param->private_data_len);
	if (cm_send_msg(id, &m, true) != 0 && id->ah == NULL) {
		rnic_cm_destroy_id(id);
		rte_errno = EHOSTUNREACH;
		return NULL;
	}
	return id;
}

/* The answer to a SIDR_REQ: @p status, and with RNIC_CM_SIDR_OK the QP
 * and Q_Key that serve it. Kept as the id's last message (a duplicate
 * SIDR_REQ gets it again). */
static int
send_sidr_rep(struct rnic_cm_id *id, uint8_t status, uint32_t qpn, uint32_t qkey,
	      const struct rnic_cm_param *param)
{
	struct rnic_cm_msg m;

	cm_hdr(id->cm, &m, RNIC_CM_SIDR_REP, id->req.hdr.tid);
	m.sidr_rep.request_id = id->remote_id;
	m.sidr_rep.status = status;
	m.sidr_rep.service_id = id->req.sidr_req.service_id;
	if (status == RNIC_CM_SIDR_OK) {
		m.sidr_rep.qpn = qpn & 0xffffff;
		m.sidr_rep.qkey = qkey;
	}
	if (param != NULL)
		memcpy(m.sidr_rep.private_data, param->private_data, param->private_data_len);
	id->state = CM_CLOSED;
	return cm_send_msg(id, &m, false);
}

int
rnic_cm_accept_ud(struct rnic_cm_id *id, uint32_t qpn, uint32_t qkey,
		  const struct rnic_cm_param *param)
{
	if (id == NULL || !id->ud || id->state != CM_REQ_RCVD || param == NULL ||
	    param->private_data_len > RNIC_CM_PDATA_MAX)
		return -EINVAL;
	return send_sidr_rep(id, RNIC_CM_SIDR_OK, qpn, qkey, param);
}

struct rnic_cm_id *
rnic_cm_connect(struct rnic_cm *cm, struct rnic_qp *qp, const uint8_t dgid[16],
		uint8_t sgid_index, uint16_t port, const struct rnic_cm_param *param)
{
	struct rnic_cm_id *id;
	struct rnic_cm_msg m;
	struct rnic_cm_req *q = &m.req;
	uint8_t sgid[16];

	if (qp == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	id = active_id(cm, dgid, sgid_index, port, param, sgid);
	if (id == NULL)
		return NULL;
	if (qp_init(qp) != 0) {
		rnic_cm_destroy_id(id);
		rte_errno = EINVAL;
		return NULL;
	}
	id->qp = qp;
	id->rq_psn = (uint32_t)rte_rand() & RNIC_PSN_MASK;
	cm_hdr(cm, &m, RNIC_CM_REQ, 0);
	q->local_comm_id = id->local_id;
	q->service_id = RNIC_CM_SID_PS_TCP | port;
	q->local_ca_guid = cm->guid;
	q->local_qpn = rnic_qp_num(qp);
	q->responder_resources = param->responder_resources;
	q->initiator_depth = param->initiator_depth;
	q->remote_cm_response_timeout = CM_RESP_TIMEOUT;
	q->transport_service_type = 0;   /* RC */
	q->e2e_flow_control = 1;
	q->starting_psn = id->rq_psn;    /* the passive side sends from it */
	q->local_cm_response_timeout = CM_RESP_TIMEOUT;
	q->retry_count = param->retry_count & 7;
	q->pkey = RNIC_DEFAULT_PKEY;
	q->path_mtu = param->path_mtu && param->path_mtu < cm->mtu_code ? param->path_mtu :
		      cm->mtu_code;
	q->rnr_retry_count = param->rnr_retry_count & 7;
	q->max_cm_retries = CM_MAX_RETRIES;
	q->primary_local_lid = q->primary_remote_lid = 0xffff;   /* RoCE: permissive */
	memcpy(q->primary_local_gid, sgid, 16);
	memcpy(q->primary_remote_gid, dgid, 16);
	q->primary_hop_limit = 64;
	q->primary_subnet_local = 1;
	q->primary_local_ack_timeout = param->ack_timeout ? param->ack_timeout : CM_ACK_TIMEOUT;
	q->primary_traffic_class = param->tclass;
	cma_hdr_fill(sgid, dgid, q->private_data);
	memcpy(q->private_data + RNIC_CMA_HDR_LEN, param->private_data,
	       param->private_data_len);
	if (cm_send_msg(id, &m, true) != 0 && id->ah == NULL) {
		rnic_cm_destroy_id(id);
		rte_errno = EHOSTUNREACH;
		return NULL;
	}
	return id;
}

int
rnic_cm_accept(struct rnic_cm_id *id, struct rnic_qp *qp, const struct rnic_cm_param *param)
{
	const struct rnic_cm_req *q;
	struct rnic_cm_msg m;
	uint8_t resp, init;
	int rc;

	if (id == NULL || qp == NULL || param == NULL || id->state != CM_REQ_RCVD || id->ud ||
	    param->private_data_len > RNIC_CM_REP_PDATA)
		return -EINVAL;
	q = &id->req.req;
	id->qp = qp;
	id->sq_psn = q->starting_psn;                       /* we send from it */
	id->rq_psn = (uint32_t)rte_rand() & RNIC_PSN_MASK;  /* the peer sends from it */
	/* What each side may have outstanding: no more than the other serves. */
	resp = RTE_MIN(param->responder_resources, q->initiator_depth);
	init = RTE_MIN(param->initiator_depth, q->responder_resources);
	rc = qp_init(qp);
	if (rc == 0)
		rc = qp_connect(id, q->local_qpn, id->rq_psn,
				param->path_mtu && param->path_mtu < q->path_mtu ? param->path_mtu :
				q->path_mtu, resp, init,
				q->retry_count, q->rnr_retry_count, q->primary_traffic_class,
				q->primary_hop_limit, q->primary_flow_label,
				param->ack_timeout ? param->ack_timeout : q->primary_local_ack_timeout);
	if (rc != 0) {
		qp_to_error(qp);
		return rc < 0 ? rc : -rc;
	}
	id->param = *param;
	cm_hdr(id->cm, &m, RNIC_CM_REP, id->req.hdr.tid);
	m.rep.local_comm_id = id->local_id;
	m.rep.remote_comm_id = id->remote_id;
	m.rep.local_qpn = rnic_qp_num(qp);
	m.rep.starting_psn = id->rq_psn;
	m.rep.responder_resources = resp;
	m.rep.initiator_depth = init;
	m.rep.target_ack_delay = 15;
	m.rep.failover_accepted = 0;
	m.rep.e2e_flow_control = 1;
	m.rep.rnr_retry_count = param->rnr_retry_count & 7;
	m.rep.local_ca_guid = id->cm->guid;
	memcpy(m.rep.private_data, param->private_data, param->private_data_len);
	id->state = CM_REP_SENT;
	id->timeout_tsc = cm_timeout_tsc(id->cm, q->remote_cm_response_timeout);
	return cm_send_msg(id, &m, true);
}

static void
send_rej(struct rnic_cm *cm, struct rnic_ah *ah, uint32_t dqpn, uint32_t local_id,
	 uint32_t remote_id, uint8_t which, uint16_t reason, uint64_t tid)
{
	struct rnic_cm_msg m;
	uint8_t mad[RNIC_MAD_LEN];

	cm_hdr(cm, &m, RNIC_CM_REJ, tid);
	m.rej.local_comm_id = local_id;
	m.rej.remote_comm_id = remote_id;
	m.rej.message_rejected = which;
	m.rej.reason = reason;
	if (rnic_cm_encode(&m, mad) == 0 && cm_send_to(cm, ah, mad, dqpn) == 0)
		cm->st.rej_sent++;
}

int
rnic_cm_reject(struct rnic_cm_id *id)
{
	if (id == NULL || id->state != CM_REQ_RCVD)
		return -EINVAL;
	if (id->ud)
		return send_sidr_rep(id, RNIC_CM_SIDR_REJECT, 0, 0, NULL);
	if (id->ah == NULL)
		id->ah = cm_ah(id->cm, id->peer_gid, id->sgid_index);
	send_rej(id->cm, id->ah, id->peer_gsi, id->local_id, id->remote_id, 0,
		 RNIC_CM_REJ_CONSUMER, id->req.hdr.tid);
	id->state = CM_CLOSED;
	return 0;
}

int
rnic_cm_disconnect(struct rnic_cm_id *id)
{
	struct rnic_cm_msg m;

	if (id == NULL || id->state != CM_ESTABLISHED)
		return -EINVAL;
	qp_to_error(id->qp);
	cm_hdr(id->cm, &m, RNIC_CM_DREQ, 0);
	m.dreq.local_comm_id = id->local_id;
	m.dreq.remote_comm_id = id->remote_id;
	m.dreq.remote_qpn = id->remote_qpn;
	id->state = CM_DREQ_SENT;
	return cm_send_msg(id, &m, true);
}

/* ------------------------------------------------------------------ */
/* MADs in                                                             */
/* ------------------------------------------------------------------ */

static struct rnic_cm_id *
find_local(struct rnic_cm *cm, uint32_t local_id)
{
	struct rnic_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->state != CM_LISTEN && id->local_id == local_id)
			return id;
	return NULL;
}

static int
gid_index(struct rnic_cm *cm, const uint8_t gid[16])
{
	uint8_t g[16];

	for (unsigned int i = 0; rnic_dev_query_gid(cm->dev, i, g) == 0; i++)
		if (memcmp(g, gid, 16) == 0)
			return (int)i;
	return -1;
}

/* The application has not answered a REQ yet and the peer asks again: an
 * MRA tells it to wait (IBA 12.6.6), as Linux's rdma_cm does (it arms a
 * delayed MRA for every REQ it passes up, sent on a duplicate). */
static void
send_mra(struct rnic_cm_id *id, uint64_t tid)
{
	struct rnic_cm *cm = id->cm;
	struct rnic_cm_msg m;
	uint8_t mad[RNIC_MAD_LEN];

	if (id->ah == NULL)
		id->ah = cm_ah(cm, id->peer_gid, id->sgid_index);
	cm_hdr(cm, &m, RNIC_CM_MRA, tid);
	m.mra.local_comm_id = id->local_id;
	m.mra.remote_comm_id = id->remote_id;
	m.mra.message_mraed = 0;   /* the REQ */
	m.mra.service_timeout = CM_MRA_TIMEOUT;
	if (rnic_cm_encode(&m, mad) == 0 && cm_send_to(cm, id->ah, mad, id->peer_gsi) == 0)
		cm->st.mra_sent++;
}

/* Keep a request for a port nobody listens on, CM_HOLD_MS at most (a
 * repeat of one already kept is dropped). false: refuse it now (a replay,
 * or no room). */
static bool
cm_hold(struct rnic_cm *cm, const struct rnic_cm_msg *m, const uint8_t src_gid[16],
	const uint8_t dst_gid[16], uint32_t src_qp)
{
	struct cm_hold *free_slot = NULL;

	if (cm->no_hold)
		return false;
	for (unsigned int i = 0; i < CM_HOLDS; i++) {
		struct cm_hold *h = &cm->hold[i];

		if (h->deadline == 0) {
			if (free_slot == NULL)
				free_slot = h;
		} else if (h->m.hdr.attr_id == m->hdr.attr_id && h->m.hdr.tid == m->hdr.tid &&
			   memcmp(h->src_gid, src_gid, 16) == 0) {
			return true;   /* its retransmission */
		}
	}
	if (free_slot == NULL)
		return false;
	free_slot->m = *m;
	memcpy(free_slot->src_gid, src_gid, 16);
	memcpy(free_slot->dst_gid, dst_gid, 16);
	free_slot->src_qp = src_qp;
	free_slot->deadline = rte_get_tsc_cycles() + cm->hz * CM_HOLD_MS / 1000;
	cm->st.held++;
	return true;
}

static void on_req(struct rnic_cm *cm, const struct rnic_cm_msg *m, const uint8_t src_gid[16],
		   uint32_t src_qp);
static void on_sidr_req(struct rnic_cm *cm, const struct rnic_cm_msg *m,
			const uint8_t src_gid[16], const uint8_t dst_gid[16], uint32_t src_qp);

/* Held requests again: each that a listener now takes, and each whose
 * time is up (refused now). */
static void
cm_hold_replay(struct rnic_cm *cm)
{
	uint64_t now = rte_get_tsc_cycles();

	for (unsigned int i = 0; i < CM_HOLDS; i++) {
		struct cm_hold *h = &cm->hold[i];
		struct cm_hold c;

		if (h->deadline == 0)
			continue;
		if (now < h->deadline) {
			/* only when a listener for it exists now */
			bool ud = h->m.hdr.attr_id == RNIC_CM_SIDR_REQ;
			uint64_t sid = ud ? h->m.sidr_req.service_id : h->m.req.service_id;
			struct rnic_cm_id *id;
			bool found = false;

			TAILQ_FOREACH(id, &cm->ids, next)
				if (id->state == CM_LISTEN && id->ud == ud && id->port == (sid & 0xffff))
					found = true;
			if (!found)
				continue;
		}
		c = *h;
		h->deadline = 0;
		cm->no_hold = true;
		if (c.m.hdr.attr_id == RNIC_CM_SIDR_REQ)
			on_sidr_req(cm, &c.m, c.src_gid, c.dst_gid, c.src_qp);
		else
			on_req(cm, &c.m, c.src_gid, c.src_qp);
		cm->no_hold = false;
	}
}

/* A CONNECT_REQUEST for listener @p lid of the new id @p id: the private
 * data after rdma_cm's header in @p pdata, the peer's rdma_cm port. */
static void
request_event(struct rnic_cm_event *ev, struct rnic_cm_id *id, struct rnic_cm_id *lid,
	      const uint8_t *pdata, uint16_t peer_port)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = RNIC_CM_EV_CONNECT_REQUEST;
	ev->id = id;
	ev->listen_id = lid;
	memcpy(ev->param.private_data, pdata + RNIC_CMA_HDR_LEN, RNIC_CM_PDATA_MAX);
	ev->param.private_data_len = RNIC_CM_PDATA_MAX;
	memcpy(ev->peer_gid, id->peer_gid, 16);
	ev->peer_port = peer_port;
	ev->local_gid_index = id->sgid_index;
}

static void
on_req(struct rnic_cm *cm, const struct rnic_cm_msg *m, const uint8_t src_gid[16],
       uint32_t src_qp)
{
	const struct rnic_cm_req *q = &m->req;
	struct rnic_cm_id *id, *lid = NULL;
	struct rnic_cma_hdr h;
	struct rnic_cm_event ev;
	int sidx;

	/* A duplicate: the same connection from the same peer. */
	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->state != CM_LISTEN && !id->ud && id->remote_id == q->local_comm_id &&
		    memcmp(id->peer_gid, src_gid, 16) == 0) {
			if (id->state == CM_REP_SENT && id->have_last && !id->ah_wait)
				cm_send_to(cm, id->ah, id->last, id->peer_gsi);
			else if (id->state == CM_REQ_RCVD)
				send_mra(id, m->hdr.tid);
			return;
		}
	if ((q->service_id & ~0xffffull) == RNIC_CM_SID_PS_TCP)
		TAILQ_FOREACH(id, &cm->ids, next)
			if (id->state == CM_LISTEN && !id->ud && id->port == (q->service_id & 0xffff)) {
				lid = id;
				break;
			}
	if (lid == NULL && cm_hold(cm, m, src_gid, q->primary_remote_gid, src_qp))
		return;
	sidx = gid_index(cm, q->primary_remote_gid);
	if (lid == NULL || sidx < 0 || q->transport_service_type != 0 ||
	    rnic_cma_hdr_decode(q->private_data, sizeof(q->private_data), &h) != 0) {
		struct rnic_ah *ah = cm_ah(cm, src_gid, sidx < 0 ? 0 : (uint8_t)sidx);

		send_rej(cm, ah, src_qp, 0, q->local_comm_id, 0,
			 lid == NULL ? RNIC_CM_REJ_INVALID_SERVICE : RNIC_CM_REJ_CONSUMER,
			 m->hdr.tid);
		if (ah)
			rnic_destroy_ah(ah);
		return;
	}
	id = id_new(cm, CM_REQ_RCVD);
	if (id == NULL) {
		cm->st.mads_dropped++;
		return;
	}
	id->req = *m;
	/* the REQ says how often either side may send a message again */
	id->max_retries = q->max_cm_retries;
	id->peer_gsi = src_qp;
	id->remote_id = q->local_comm_id;
	id->remote_qpn = q->local_qpn;
	id->sgid_index = (uint8_t)sidx;
	memcpy(id->peer_gid, src_gid, 16);
	id->port = h.src_port;
	request_event(&ev, id, lid, q->private_data, h.src_port);
	ev.param.responder_resources = q->responder_resources;
	ev.param.initiator_depth = q->initiator_depth;
	ev.param.retry_count = q->retry_count;
	ev.param.rnr_retry_count = q->rnr_retry_count;
	ev.peer_qpn = q->local_qpn;
	cm_event(cm, &ev);
}

static void
on_rep(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	const struct rnic_cm_rep *r = &m->rep;
	struct rnic_cm_id *id = find_local(cm, r->remote_comm_id);
	struct rnic_cm_msg rtu;
	uint8_t init;

	if (id == NULL)
		return;
	if (id->state == CM_ESTABLISHED && id->remote_id == r->local_comm_id) {
		/* our RTU was lost: send it again */
		cm_hdr(cm, &rtu, RNIC_CM_RTU, m->hdr.tid);
		rtu.rtu.local_comm_id = id->local_id;
		rtu.rtu.remote_comm_id = id->remote_id;
		cm_send_msg(id, &rtu, false);
		return;
	}
	if (id->state != CM_REQ_SENT)
		return;
	id->remote_id = r->local_comm_id;
	id->remote_qpn = r->local_qpn;
	id->sq_psn = r->starting_psn;
	init = RTE_MIN(id->param.initiator_depth, r->responder_resources);
	if (qp_connect(id, r->local_qpn, id->rq_psn,
		       id->param.path_mtu ? id->param.path_mtu : cm->mtu_code,
		       id->param.responder_resources, init, id->param.retry_count,
		       r->rnr_retry_count, id->param.tclass, 64, 0, id->param.ack_timeout) != 0) {
		qp_to_error(id->qp);
		send_rej(cm, id->ah, id->peer_gsi, id->local_id, id->remote_id, 1,
			 RNIC_CM_REJ_CONSUMER, m->hdr.tid);
		id->state = CM_CLOSED;
		id->deadline = 0;
		cm_event_simple(id, RNIC_CM_EV_REJECTED, RNIC_CM_REJ_CONSUMER);
		return;
	}
	id->param.responder_resources = r->responder_resources;
	id->param.initiator_depth = r->initiator_depth;
	memcpy(id->param.private_data, r->private_data, RNIC_CM_PDATA_MAX);
	id->param.private_data_len = RNIC_CM_PDATA_MAX;
	cm_hdr(cm, &rtu, RNIC_CM_RTU, m->hdr.tid);
	rtu.rtu.local_comm_id = id->local_id;
	rtu.rtu.remote_comm_id = id->remote_id;
	id->state = CM_ESTABLISHED;
	cm_send_msg(id, &rtu, false);
	cm_event_simple(id, RNIC_CM_EV_ESTABLISHED, 0);
}

static void
on_rtu(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	struct rnic_cm_id *id = find_local(cm, m->rtu.remote_comm_id);

	if (id == NULL || id->state != CM_REP_SENT || id->remote_id != m->rtu.local_comm_id)
		return;
	id->state = CM_ESTABLISHED;
	id->deadline = 0;
	cm_event_simple(id, RNIC_CM_EV_ESTABLISHED, 0);
}

static void
on_rej(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	struct rnic_cm_id *id = find_local(cm, m->rej.remote_comm_id);

	if (id == NULL || (id->state != CM_REQ_SENT && id->state != CM_REP_SENT))
		return;
	qp_to_error(id->qp);
	id->state = CM_CLOSED;
	id->deadline = 0;
	cm_event_simple(id, RNIC_CM_EV_REJECTED, m->rej.reason);
}

static void
on_dreq(struct rnic_cm *cm, const struct rnic_cm_msg *m, const uint8_t src_gid[16],
	uint32_t src_qp)
{
	struct rnic_cm_id *id = find_local(cm, m->dreq.remote_comm_id);
	struct rnic_cm_msg d;

	cm_hdr(cm, &d, RNIC_CM_DREP, m->hdr.tid);
	d.rtu.local_comm_id = m->dreq.remote_comm_id;
	d.rtu.remote_comm_id = m->dreq.local_comm_id;
	if (id == NULL || id->remote_id != m->dreq.local_comm_id) {
		/* not ours (any more): a DREP all the same, as IBA 12.9.8.4 */
		uint8_t mad[RNIC_MAD_LEN];
		struct rnic_ah *ah = cm_ah(cm, src_gid, (uint8_t)RTE_MAX(gid_index(cm, src_gid), 0));

		if (ah && rnic_cm_encode(&d, mad) == 0)
			cm_send_to(cm, ah, mad, src_qp);
		if (ah)
			rnic_destroy_ah(ah);
		return;
	}
	if (id->state == CM_ESTABLISHED || id->state == CM_DREQ_SENT || id->state == CM_REP_SENT) {
		qp_to_error(id->qp);
		id->state = CM_CLOSED;
		cm_send_msg(id, &d, false);
		cm_event_simple(id, RNIC_CM_EV_DISCONNECTED, 0);
	} else if (id->state == CM_CLOSED) {
		cm_send_msg(id, &d, false);   /* our DREP was lost */
	}
}

static void
on_drep(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	struct rnic_cm_id *id = find_local(cm, m->rtu.remote_comm_id);

	if (id == NULL || id->state != CM_DREQ_SENT)
		return;
	id->state = CM_CLOSED;
	id->deadline = 0;
	cm_event_simple(id, RNIC_CM_EV_DISCONNECTED, 0);
}

static void
on_mra(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	struct rnic_cm_id *id = find_local(cm, m->mra.remote_comm_id);

	if (id != NULL && id->deadline != 0)
		id->deadline = rte_get_tsc_cycles() + cm_timeout_tsc(cm, m->mra.service_timeout) +
			       id->timeout_tsc;
}

/* SIDR_REQ (the UDP port space): a listener on the port hears of it; a
 * duplicate gets the answer already sent; none: status 1. */
static void
on_sidr_req(struct rnic_cm *cm, const struct rnic_cm_msg *m, const uint8_t src_gid[16],
	    const uint8_t dst_gid[16], uint32_t src_qp)
{
	const struct rnic_cm_sidr_req *q = &m->sidr_req;
	struct rnic_cm_id *id, *lid = NULL;
	struct rnic_cma_hdr h;
	struct rnic_cm_event ev;
	int sidx = gid_index(cm, dst_gid);

	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->state != CM_LISTEN && id->ud && id->remote_id == q->request_id &&
		    memcmp(id->peer_gid, src_gid, 16) == 0) {
			/* its answer again, unless it still waits for the
			 * MAC; one given up on is looked for once more */
			if (id->state == CM_CLOSED && id->have_last && !id->ah_wait) {
				if (id->ah == NULL)
					id->ah = cm_ah(cm, id->peer_gid, id->sgid_index);
				cm_send_to(cm, id->ah, id->last, id->peer_gsi);
			}
			return;
		}
	if ((q->service_id & ~0xffffull) == RNIC_CM_SID_PS_UDP)
		TAILQ_FOREACH(id, &cm->ids, next)
			if (id->state == CM_LISTEN && id->ud && id->port == (q->service_id & 0xffff)) {
				lid = id;
				break;
			}
	if (lid == NULL && cm_hold(cm, m, src_gid, dst_gid, src_qp))
		return;
	id = id_new(cm, CM_REQ_RCVD);
	if (id == NULL) {
		cm->st.mads_dropped++;
		return;
	}
	id->ud = true;
	id->req = *m;
	id->peer_gsi = src_qp;
	id->remote_id = q->request_id;
	id->sgid_index = (uint8_t)(sidx < 0 ? 0 : sidx);
	memcpy(id->peer_gid, src_gid, 16);
	if (lid == NULL || sidx < 0 ||
	    rnic_cma_hdr_decode(q->private_data, sizeof(q->private_data), &h) != 0) {
		send_sidr_rep(id, RNIC_CM_SIDR_UNSUPPORTED, 0, 0, NULL);
		return;   /* kept, CLOSED: a duplicate gets the same answer */
	}
	id->port = h.src_port;
	request_event(&ev, id, lid, q->private_data, h.src_port);
	ev.ud = true;
	cm_event(cm, &ev);
}

/* SIDR_REP: the service's QP and Q_Key (ESTABLISHED), or why not
 * (UNREACHABLE with the status). */
static void
on_sidr_rep(struct rnic_cm *cm, const struct rnic_cm_msg *m)
{
	const struct rnic_cm_sidr_rep *r = &m->sidr_rep;
	struct rnic_cm_id *id = find_local(cm, r->request_id);
	struct rnic_cm_event ev;

	if (id == NULL || !id->ud || id->state != CM_REQ_SENT)
		return;
	id->state = CM_CLOSED;
	id->deadline = 0;
	id->remote_qpn = r->qpn;
	memset(&ev, 0, sizeof(ev));
	ev.type = r->status == RNIC_CM_SIDR_OK ? RNIC_CM_EV_ESTABLISHED : RNIC_CM_EV_UNREACHABLE;
	ev.reject_reason = r->status;
	ev.ud = true;
	ev.id = id;
	ev.peer_qpn = r->qpn;
	ev.qkey = r->qkey;
	memcpy(ev.peer_gid, id->peer_gid, 16);
	ev.local_gid_index = id->sgid_index;
	memcpy(ev.param.private_data, r->private_data, RNIC_CM_PDATA_MAX);
	ev.param.private_data_len = RNIC_CM_PDATA_MAX;
	if (!id->orphan)
		cm_event(cm, &ev);
	else
		id->dead = true;
}

/* A receive slot: the GRH area, then the MAD. */
static void
on_recv(struct rnic_cm *cm, const struct rnic_wc *wc)
{
	const uint8_t *p = cm->buf + (size_t)wc->wr_id * CM_SLOT;
	uint8_t src_gid[16], dst_gid[16];
	struct rnic_cm_msg m;

	cm->st.mads_rcvd++;
	/* From the peer's GSI (QP1) as a rule; answers go to whichever QP
	 * the MAD came from, as the MAD layer's responses do. */
	if (wc->status != RNIC_WC_SUCCESS || wc->byte_len < RNIC_UD_GRH_LEN + RNIC_MAD_LEN) {
		cm->st.mads_dropped++;
		return;
	}
	/* The sender's address: an IPv6 header is the GRH; else 20 zero
	 * bytes and the IPv4 header. */
	memset(src_gid, 0, sizeof(src_gid));
	memset(dst_gid, 0, sizeof(dst_gid));
	if ((p[0] >> 4) == 6) {
		memcpy(src_gid, p + 8, 16);
		memcpy(dst_gid, p + 24, 16);
	} else {
		src_gid[10] = src_gid[11] = dst_gid[10] = dst_gid[11] = 0xff;
		memcpy(src_gid + 12, p + 20 + 12, 4);
		memcpy(dst_gid + 12, p + 20 + 16, 4);
	}
	if (rnic_cm_decode(p + RNIC_UD_GRH_LEN, RNIC_MAD_LEN, &m) != RNIC_MAD_OK) {
		cm->st.mads_dropped++;
		return;
	}
	switch (m.hdr.attr_id) {
	case RNIC_CM_REQ: on_req(cm, &m, src_gid, wc->src_qp); break;
	case RNIC_CM_REP: on_rep(cm, &m); break;
	case RNIC_CM_RTU: on_rtu(cm, &m); break;
	case RNIC_CM_REJ: on_rej(cm, &m); break;
	case RNIC_CM_DREQ: on_dreq(cm, &m, src_gid, wc->src_qp); break;
	case RNIC_CM_DREP: on_drep(cm, &m); break;
	case RNIC_CM_MRA: on_mra(cm, &m); break;
	case RNIC_CM_SIDR_REQ: on_sidr_req(cm, &m, src_gid, dst_gid, wc->src_qp); break;
	case RNIC_CM_SIDR_REP: on_sidr_rep(cm, &m); break;
	default: cm->st.mads_dropped++; break;
	}
}

/* Retries of REQ, REP and DREQ; a connection out of retries fails. */
static void
cm_timers(struct rnic_cm *cm)
{
	uint64_t now = rte_get_tsc_cycles();
	struct rnic_cm_id *id;

	cm_hold_replay(cm);

	TAILQ_FOREACH(id, &cm->ids, next) {
		if (id->deadline == 0 || now < id->deadline)
			continue;
		if (id->ah_wait) {
			/* the MAC, until ah_until (cm_send_msg) */
			id->ah = cm_ah(cm, id->peer_gid, id->sgid_index);
			if (id->ah != NULL) {
				id->ah_wait = false;
				id->deadline = id->timed ? now + id->timeout_tsc : 0;
				cm_send_to(cm, id->ah, id->last, id->peer_gsi);
				continue;
			}
			if (now < id->ah_until) {
				id->ah_step = RTE_MIN(id->ah_step * 2, id->timeout_tsc);
				id->deadline = RTE_MIN(now + id->ah_step, id->ah_until);
				continue;
			}
			id->ah_wait = false;
		} else if (id->retries > 0 && id->have_last) {
			id->retries--;
			id->deadline = now + id->timeout_tsc;
			cm->st.retries++;
			cm_send_to(cm, id->ah, id->last, id->peer_gsi);
			continue;
		}
		id->deadline = 0;
		qp_to_error(id->qp);
		if (id->state == CM_DREQ_SENT) {
			id->state = CM_CLOSED;
			cm_event_simple(id, RNIC_CM_EV_DISCONNECTED, 0);
		} else {
			id->state = CM_CLOSED;
			cm_event_simple(id, RNIC_CM_EV_UNREACHABLE, RNIC_CM_REJ_TIMEOUT);
		}
	}
}

int
rnic_cm_poll(struct rnic_cm *cm, struct rnic_cm_event *ev)
{
	struct rnic_wc wc[16];
	int n;

	if (cm == NULL || ev == NULL)
		return -EINVAL;
	while ((n = rnic_poll_cq(cm->cq, (int)RTE_DIM(wc), wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id < CM_RECVS) {
				on_recv(cm, &wc[i]);
				if (post_recv_slot(cm, (unsigned int)wc[i].wr_id) != 0)
					cm->st.mads_dropped++;
			} else if (cm->sends_out > 0) {
				cm->sends_out--;
			}
		}
	}
	cm_timers(cm);
	for (struct rnic_cm_id *id = TAILQ_FIRST(&cm->ids), *nx; id != NULL; id = nx) {
		nx = TAILQ_NEXT(id, next);
		if (id->dead)
			rnic_cm_destroy_id(id);
	}
	if (cm->ev_n == 0)
		return 0;
	*ev = cm->ev[cm->ev_head];
	cm->ev_head = (cm->ev_head + 1) % CM_EVENTS;
	cm->ev_n--;
	return 1;
}
