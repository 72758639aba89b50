/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Connection management (issue 21): the InfiniBand CM over QP1 as RoCEv2
 * peers speak it (IBA vol. 1 chapter 12; MADs in UD SENDs to QP1 with the
 * GSI Q_Key), in the shape of rdma_cm: a listener on a port of the TCP
 * port space (service ID 0x1060000 | port, the rdma_cm IP header at the
 * start of a REQ's private data), connect, accept, reject, disconnect, and
 * events. One rnic_cm per device owns QP1; the calling thread drives it
 * with rnic_cm_poll (MADs in, retransmissions on time), the device being
 * polled by that thread or by lcores as for any QP.
 *
 * What it does: REQ -> REP -> RTU, both sides; REJ (no listener: reason 8,
 * invalid service ID, once the request has waited 100 ms for a listener
 * that may be about to come up; rnic_cm_reject: 28, consumer reject);
 * DREQ -> DREP; retries of REQ, REP and DREQ after the peer's CM response timeout, up to
 * its max CM retries (then the connection fails: UNREACHABLE, the QP to
 * Error); a duplicate REQ is answered with the same REP, a duplicate DREQ
 * with a DREP; a duplicate REQ the application has not answered yet with
 * an MRA (one received extends the wait); SIDR for the UDP port space.
 * Not done: LAP/APR (alternate paths).
 */
#ifndef RNIC_CM_H
#define RNIC_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "rnic_mad.h"

struct rnic_device;
struct rnic_pd;
struct rnic_qp;
struct rnic_cm;
struct rnic_cm_id;

/** Private data an application may add: REQ's minus the rdma_cm header. */
#define RNIC_CM_PDATA_MAX (RNIC_CM_REQ_PDATA - RNIC_CMA_HDR_LEN)

/** What a connection asks for or agrees to (as rdma_conn_param). */
struct rnic_cm_param {
	uint8_t responder_resources;   /**< READs/atomics it serves at once */
	uint8_t initiator_depth;       /**< READs/atomics it has outstanding */
	uint8_t retry_count;           /**< 0..7 */
	uint8_t rnr_retry_count;       /**< 0..7 (7: forever) */
	uint8_t path_mtu;              /**< enum rnic_mtu, at most; 0: the port's */
	uint8_t ack_timeout;           /**< the QP's local ACK timeout (IBA code); 0: 14 */
	uint8_t tclass;                /**< active side: the path's traffic class */
	uint8_t private_data[RNIC_CM_PDATA_MAX];
	uint8_t private_data_len;
};

enum rnic_cm_event_type {
	RNIC_CM_EV_CONNECT_REQUEST,    /**< a REQ for a listener: accept or reject */
	RNIC_CM_EV_ESTABLISHED,        /**< the QP is in RTS, both sides know */
	RNIC_CM_EV_REJECTED,           /**< the peer said no (reason in the event) */
	RNIC_CM_EV_UNREACHABLE,        /**< no answer after every retry */
	RNIC_CM_EV_DISCONNECTED,       /**< DREQ/DREP done: the QP is in Error */
};

struct rnic_cm_event {
	enum rnic_cm_event_type type;
	struct rnic_cm_id *id;         /**< the connection */
	struct rnic_cm_id *listen_id;  /**< CONNECT_REQUEST: its listener */
	struct rnic_cm_param param;    /**< what the peer asked for or agreed */
	uint16_t reject_reason;        /**< REJECTED */
	uint8_t peer_gid[16];          /**< the peer's address (GID) */
	uint16_t peer_port;            /**< CONNECT_REQUEST: its rdma_cm port */
	uint32_t peer_qpn;             /**< CONNECT_REQUEST: the peer's QP number */
	uint8_t local_gid_index;       /**< CONNECT_REQUEST: our GID it was sent to */
	bool ud;                       /**< the UDP port space (SIDR) */
	bool timed_out;                /**< UNREACHABLE: no answer (else a SIDR status) */
	uint32_t qkey;                 /**< UD ESTABLISHED: the service's Q_Key */
};

/** The CM of @p dev: QP1 and its buffers in @p pd. NULL with rte_errno set. */
struct rnic_cm *rnic_cm_create(struct rnic_device *dev, struct rnic_pd *pd);

/** Disconnect nothing, free everything (QP1 included). */
void rnic_cm_destroy(struct rnic_cm *cm);

/**
 * Handle the MADs that arrived and the retransmissions due; @return 1 with
 * @p ev filled when an event is ready, 0 when none, <0 on an error.
 */
int rnic_cm_poll(struct rnic_cm *cm, struct rnic_cm_event *ev);

/** Listen on rdma_cm port @p port (service ID RNIC_CM_SID_PS_TCP | port). */
struct rnic_cm_id *rnic_cm_listen(struct rnic_cm *cm, uint16_t port);

/**
 * Connect @p qp (RC, in Reset or Init) to port @p port at @p dgid (an
 * IPv4-mapped or IPv6 GID), from the port's GID @p sgid_index. Sends a
 * REQ; the outcome comes as ESTABLISHED (the QP in RTS), REJECTED or
 * UNREACHABLE. @return the connection, or NULL with rte_errno.
 */
struct rnic_cm_id *rnic_cm_connect(struct rnic_cm *cm, struct rnic_qp *qp,
				   const uint8_t dgid[16], uint8_t sgid_index, uint16_t port,
				   const struct rnic_cm_param *param);

/**
 * Accept a CONNECT_REQUEST with @p qp (RC, in Reset or Init): the QP goes
 * to RTR and RTS along the REQ's path and a REP goes out; ESTABLISHED
 * follows the peer's RTU. @return 0 or -errno.
 */
int rnic_cm_accept(struct rnic_cm_id *id, struct rnic_qp *qp, const struct rnic_cm_param *param);

/**
 * The UDP port space (SIDR, IBA 12.11): listen for SIDR_REQs on rdma_cm
 * port @p port (service ID RNIC_CM_SID_PS_UDP | port); each comes as a
 * CONNECT_REQUEST with ud set, answered by rnic_cm_accept_ud (SIDR_REP:
 * the QP number and Q_Key that serve it) or rnic_cm_reject (status 2). A
 * SIDR_REQ for a port nobody listens on is answered with status 1.
 */
struct rnic_cm_id *rnic_cm_listen_ud(struct rnic_cm *cm, uint16_t port);
int rnic_cm_accept_ud(struct rnic_cm_id *id, uint32_t qpn, uint32_t qkey,
		      const struct rnic_cm_param *param);
/**
 * Ask which UD QP serves port @p port at @p dgid (SIDR_REQ, retried as a
 * REQ is): ESTABLISHED with ud set, peer_qpn and qkey, or UNREACHABLE
 * (reject_reason: the SIDR_REP's status, or the timeout).
 */
struct rnic_cm_id *rnic_cm_resolve_ud(struct rnic_cm *cm, const uint8_t dgid[16],
				      uint8_t sgid_index, uint16_t port,
				      const struct rnic_cm_param *param);

/** Refuse a CONNECT_REQUEST (REJ, reason 28: consumer reject). */
int rnic_cm_reject(struct rnic_cm_id *id);

/** Start a disconnect: the QP to Error, a DREQ out; DISCONNECTED follows. */
int rnic_cm_disconnect(struct rnic_cm_id *id);

/** Forget a connection or a listener (after its last event). */
void rnic_cm_destroy_id(struct rnic_cm_id *id);

/**
 * Let the CM finish a connection on its own: the QP is forgotten (the
 * caller may destroy it); an established connection is disconnected (DREQ)
 * and freed when DREP comes or the retries end, with no event; one already
 * disconnecting likewise; any other is freed now. @p id is gone for the
 * caller either way.
 */
void rnic_cm_release_id(struct rnic_cm_id *id);

/** Forget the QP of a connection (it is about to be destroyed). */
void rnic_cm_id_forget_qp(struct rnic_cm_id *id);

/** The caller's pointer for a connection or a listener (NULL until set). */
void rnic_cm_id_set_context(struct rnic_cm_id *id, void *ctx);
void *rnic_cm_id_context(const struct rnic_cm_id *id);

/** The QP of a connection (NULL for a listener or before accept). */
struct rnic_qp *rnic_cm_id_qp(const struct rnic_cm_id *id);

/** CM counters: MADs in and out by kind, and the ones dropped. */
struct rnic_cm_stats {
	uint64_t mads_rcvd, mads_sent, mads_dropped, retries, rej_sent, mra_sent;
	uint64_t held;   /* requests that waited for a listener (CM_HOLD_MS) */
};
void rnic_cm_stats_get(const struct rnic_cm *cm, struct rnic_cm_stats *st);

#endif /* RNIC_CM_H */
