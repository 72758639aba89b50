/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The attach protocol between a softrnic daemon and its applications
 * (issue 20, doc/design.md "Applications attached to the daemon"):
 *
 *  - control: one request, one reply, over a unix SOCK_SEQPACKET socket
 *    (struct rnic_att_msg both ways); file descriptors (memfds) travel
 *    beside a message as SCM_RIGHTS;
 *  - data: per QP a send and a receive ring, per CQ a completion ring, in
 *    memfds the daemon creates and both sides map; the application
 *    produces WQEs and consumes completions, the daemon's lcores consume
 *    WQEs and produce completions; no request on this path;
 *  - memory: what an application registers lives in memfds sealed against
 *    shrinking, which the daemon maps; an MR's IOVA is the application's
 *    address, so work requests and peers name its bytes as before.
 *
 * Everything the daemon reads from an application (a message, a ring
 * index, a WQE) is copied first and checked against the daemon's own
 * record (rnic_attach_server.c): the application is not trusted.
 */
#ifndef RNIC_ATTACH_PROTO_H
#define RNIC_ATTACH_PROTO_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "rnic_types.h"

#define RNIC_ATT_MAGIC   0x534e5241u   /* "ARNS" */
/* 2: struct rnic_qp_attr (in MODIFY_QP and QUERY_QP) reordered */
#define RNIC_ATT_VERSION 2u

/* Largest SGE count and inline data of an attached QP (the engine's). */
#define RNIC_ATT_MAX_SGE    32u
#define RNIC_ATT_MAX_INLINE 1024u

/* Largest message, and most fds beside one (an MR's memfd pieces). */
#define RNIC_ATT_MSG_MAX   1536u
#define RNIC_ATT_MAX_FDS   16u
#define RNIC_ATT_MAX_PORTS 16u

enum rnic_att_op {
	RNIC_ATT_HELLO = 1,      /* -> ports, the application page's fd */
	RNIC_ATT_PORT,           /* port -> its attributes and GIDs */
	RNIC_ATT_ALLOC_PD,
	RNIC_ATT_DEALLOC_PD,
	RNIC_ATT_REG_MR,         /* + the pieces' memfds */
	RNIC_ATT_DEREG_MR,
	RNIC_ATT_CREATE_CQ,      /* -> the completion ring's memfd */
	RNIC_ATT_DESTROY_CQ,
	RNIC_ATT_CREATE_QP,      /* -> the send/receive rings' memfd */
	RNIC_ATT_MODIFY_QP,
	RNIC_ATT_QUERY_QP,
	RNIC_ATT_DESTROY_QP,
	RNIC_ATT_CREATE_AH,
	RNIC_ATT_DESTROY_AH,
	RNIC_ATT_ASYNC_EVENT,    /* port -> one event, if any */
	RNIC_ATT_STATS,          /* port -> its counters */
	RNIC_ATT_RESOLVE,        /* port, GID -> MAC */
	RNIC_ATT_SERVER_STATS,   /* -> struct rnic_att_server_stats */
	RNIC_ATT_BYE,            /* the application is done: everything it
				  * holds goes, and it is not counted as died */
	RNIC_ATT_OP_MAX,
};

/* The daemon's objects, as every application sees them (SERVER_STATS,
 * telemetry /softrnic/attach): what it holds for applications now, and
 * its ports' own object counts. */
struct rnic_att_server_stats {
	uint32_t apps;           /* attached now */
	uint32_t apps_total;     /* ever attached */
	uint32_t apps_died;      /* gone without saying goodbye (exit or kill
				  * without closing their devices) */
	uint32_t pds, mrs, cqs, qps, ahs;   /* held for applications */
	uint32_t dev_pds, dev_mrs, dev_cqs, dev_qps, dev_ahs; /* on the ports */
	uint64_t mr_bytes;       /* registered by applications (their MRs' lengths) */
	uint64_t wqes;           /* WQEs taken from applications' rings */
	uint64_t cqes;           /* completions put into their rings */
	uint64_t violations;     /* ring indices or WQEs out of bounds */
	uint64_t requests;       /* control requests served */
};

struct rnic_att_piece {
	uint32_t fd;             /* index among the message's fds */
	uint32_t pad;
	uint64_t offset;         /* in that memfd, page aligned */
	uint64_t length;         /* page multiple */
};
#define RNIC_ATT_MAX_PIECES RNIC_ATT_MAX_FDS

struct rnic_att_port_info {
	struct rnic_dev_attr attr;
	uint8_t mac[6];
	uint8_t n_gid;
	uint8_t pad;
	rte_be32_t ipv4;
	uint8_t gid[RNIC_GID_TBL_LEN][16];
	char name[32];
};

/* One control message. Requests fill op and the request's members,
 * replies status (0 or a negative errno) and the reply's. */
struct rnic_att_msg {
	uint32_t op;
	int32_t status;
	union {
		struct {
			uint32_t magic, version;
		} hello;
		struct {
			uint32_t n_ports;
			uint32_t page_size;     /* of the application page */
		} hello_rep;
		struct {
			uint32_t port;
		} port;                         /* PORT, ALLOC_PD, ASYNC_EVENT, STATS */
		struct rnic_att_port_info port_rep;
		struct {
			uint32_t handle;        /* DEALLOC_PD, DEREG_MR, DESTROY_* */
		} obj;
		struct {
			uint32_t handle;        /* ALLOC_PD, CREATE_AH, REG_MR */
			uint32_t lkey, rkey;
		} obj_rep;
		struct {
			uint32_t pd;
			int32_t access;
			uint64_t iova;          /* the application's address */
			uint64_t length;
			uint64_t offset;        /* iova's offset in the pieces */
			uint32_t n_pieces;
			uint32_t pad;
			struct rnic_att_piece piece[RNIC_ATT_MAX_PIECES];
		} reg_mr;
		struct {
			uint32_t port;
			uint32_t cqe;
		} create_cq;
		struct {
			uint32_t handle;
			uint32_t depth;         /* entries in the ring (power of 2) */
			uint64_t size;          /* bytes of the memfd */
		} create_cq_rep;
		struct {
			uint32_t pd, send_cq, recv_cq;
			uint32_t qp_type;
			uint32_t qp_num;
			uint8_t sq_sig_all;
			struct rnic_qp_cap cap;
		} create_qp;
		struct {
			uint32_t handle;
			uint32_t qpn;
			struct rnic_qp_cap cap;
			uint32_t sq_depth, sq_stride, rq_depth, rq_stride;
			uint64_t sq_off, rq_off, size;
		} create_qp_rep;
		struct {
			uint32_t handle;
			int32_t mask;
			struct rnic_qp_attr attr;
		} modify_qp;                    /* MODIFY_QP, QUERY_QP, their replies */
		struct {
			uint32_t pd;
			uint32_t pad;
			struct rnic_ah_attr attr;
		} create_ah;
		struct {
			uint32_t have;
			struct rnic_async_event ev;
		} event_rep;
		struct rnic_dev_stats stats_rep;
		struct {
			uint32_t port;
			uint32_t timeout_ms;
			uint8_t gid[16];
		} resolve;
		struct {
			uint8_t mac[6];
		} resolve_rep;
		struct rnic_att_server_stats server_rep;
	};
};
_Static_assert(sizeof(struct rnic_att_msg) <= RNIC_ATT_MSG_MAX, "a message fits");

/* ------------------------------------------------------------------ */
/* Shared memory                                                       */
/* ------------------------------------------------------------------ */

/* The application page (HELLO): the daemon's word to an application
 * without a request. */
enum rnic_att_state { RNIC_ATT_UP = 1, RNIC_ATT_STOPPING = 2, RNIC_ATT_GONE = 3 };
struct rnic_att_page {
	uint32_t magic;
	uint32_t state;          /* enum rnic_att_state; W: daemon */
	uint32_t events;         /* async events waiting for it; W: daemon */
};

/* A send WQE in an application's send ring: 64 bytes, then num_sge
 * struct rnic_sge, or inline_len bytes of inline data. */
struct rnic_att_swqe {
	uint64_t wr_id;
	uint8_t opcode;          /* enum rnic_wr_opcode */
	uint8_t send_flags;      /* enum rnic_send_flags */
	uint8_t num_sge;
	uint8_t pad;
	uint32_t imm_inv;        /* imm_data (wire order) or invalidate_rkey */
	uint32_t inline_len;
	uint32_t rkey;
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint32_t ah;             /* UD: the AH's handle */
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	uint32_t pad2;
};
_Static_assert(sizeof(struct rnic_att_swqe) == 64, "a send WQE header in 64 bytes");

/* A receive WQE: 16 bytes, then num_sge struct rnic_sge. */
struct rnic_att_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t pad;
};

/* The head of a QP's memfd; the send ring at sq_off, the receive ring at
 * rq_off (CREATE_QP's reply). Producer and consumer indices count
 * entries and wrap at 2^32; slot = index & (depth - 1). */
struct rnic_att_qp_ring {
	uint32_t sq_pi;          /* W: application (release) */
	uint32_t rq_pi;
	uint8_t app_pad[56];
	uint32_t sq_ci;          /* W: daemon (release): entries taken */
	uint32_t rq_ci;
	uint32_t fault;          /* W: daemon: the application broke the
				  * ring's rules (the QP was moved to Error) */
	uint8_t daemon_pad[52];
};
_Static_assert(sizeof(struct rnic_att_qp_ring) == 128, "two cache lines");

/* The head of a CQ's memfd; struct rnic_wc entries follow (depth, a
 * power of 2). The daemon keeps at most the CQ's cqe unconsumed. */
struct rnic_att_cq_ring {
	uint32_t ci;             /* W: application (release) */
	uint8_t app_pad[60];
	uint32_t pi;             /* W: daemon (release) */
	uint32_t overflow;       /* W: daemon: the CQ overflowed */
	uint8_t daemon_pad[56];
	struct rnic_wc wc[];
};
_Static_assert(sizeof(struct rnic_att_cq_ring) == 128, "two cache lines");

/* Attach @p n fds (at most RNIC_ATT_MAX_FDS) to message header @p mh as
 * SCM_RIGHTS, in @p cbuf (CMSG_SPACE(sizeof(int) * RNIC_ATT_MAX_FDS)
 * bytes); none: no control data. */
static inline void
rnic_att_put_fds(struct msghdr *mh, void *cbuf, const int *fds, unsigned int n)
{
	struct cmsghdr *c;

	if (n == 0)
		return;
	memset(cbuf, 0, CMSG_SPACE(sizeof(int) * n));
	mh->msg_control = cbuf;
	mh->msg_controllen = CMSG_SPACE(sizeof(int) * n);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
}

/* The fds a received message @p mh carries: up to @p max into @p fds
 * (their count returned); any beyond are closed. */
static inline unsigned int
rnic_att_take_fds(struct msghdr *mh, int *fds, unsigned int max)
{
	unsigned int n = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n < max)
				fds[n++] = f;
			else
				close(f);
		}
	}
	return n;
}

/* A reply's fd (one at most) into *@p out_fd (-1: none); with no
 * @p out_fd, or beyond one, closed. */
static inline void
rnic_att_take_one_fd(struct msghdr *mh, int *out_fd)
{
	int fd = -1;

	if (out_fd != NULL)
		*out_fd = -1;
	if (rnic_att_take_fds(mh, &fd, 1) == 1) {
		if (out_fd != NULL)
			*out_fd = fd;
		else
			close(fd);
	}
}

#endif /* RNIC_ATTACH_PROTO_H */
