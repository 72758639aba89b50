/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the daemon's attach server against a hostile
 * application's shared rings (issue 20: "the daemon never trusts a
 * pointer, index or length from an application's shared memory").
 *
 * One process plays both: a softrnic daemon (two devices on a ring pair,
 * an attach server whose doorbell role and engine this thread polls, so
 * every run is deterministic) and an application that speaks the protocol
 * by hand. Every input starts from the same state: the application
 * attaches, makes a PD, an MR (a sealed memfd), a CQ per port, an RC QP
 * on each port connected to the other and a UD QP, all in RTS with
 * receives posted. The input is then a list of operations on the shared
 * memory the daemon reads (any bytes into send and receive ring slots,
 * any producer index, any CQ consumer index), well-formed send WQEs
 * (fields from the input) so traffic flows, and polling passes. Then the
 * application goes away without a word (its socket closed) and the daemon
 * must free everything: the devices' object counts back to what they were,
 * every mbuf back in its pool. A crash, an ASan/UBSan report or a failed
 * check is a finding.
 *
 * Operations (one byte, then operands; a short input just ends):
 *   0 qp slot len bytes[len]   bytes into send ring slot (qp: 0 RC port 0,
 *                              1 RC port 1, 2 UD port 0)
 *   1 qp slot len bytes[len]   the same, receive ring
 *   2 qp d [u32]               sq_pi += d, or (d >= 0x80) sq_pi = u32
 *   3 qp d [u32]               rq_pi likewise
 *   4 port u32                 the CQ's consumer index
 *   5 n                        n % 16 + 1 polling passes
 *   6 port                     consume the CQ as an application would
 *   7 qp op flags len off      a well-formed send WQE, published
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "fuzz_common.h"
#include "rnic_attach.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"

#define MR_LEN 65536
#define NQP 3

static struct {
	bool ready;
	struct rnic_device *dev[2];
	struct rte_mempool *pool[2];
	unsigned int pool_start[2];
	struct rnic_attach_server *srv;
	char path[108];
	unsigned int lcore;
	struct rnic_dev_objs base[2];
	/* the application, per input */
	int fd;
	uint32_t pd[2], mr[2], lkey[2], rkey[2], cq[2], qp[NQP], qpn[NQP];
	uint8_t *mem;            /* the MR's memory, one memfd for both PDs */
	struct rnic_att_cq_ring *cqr[2];
	size_t cq_len[2];
	uint32_t cq_mask[2], cq_ci[2];
	struct rnic_att_qp_ring *qr[NQP];
	size_t q_len[NQP];
	uint64_t sq_off[NQP], rq_off[NQP];
	uint32_t sq_depth[NQP], sq_stride[NQP], rq_depth[NQP], rq_stride[NQP];
} F = { .fd = -1 };

static const int QP_PORT[NQP] = { 0, 1, 0 };

static void
poll_all(unsigned int passes)
{
	for (unsigned int i = 0; i < passes; i++) {
		rnic_attach_server_poll(F.srv, F.lcore);
		for (int d = 0; d < 2; d++)
			rnic_worker_poll(F.dev[d], 0, RNIC_ROLE_ALL);
	}
}

/* One request: sent, served by the daemon (this thread), answered. */
static int
call(struct rnic_att_msg *m, uint32_t op, int in_fd, int *out_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = -1;

	m->op = op;
	rnic_att_put_fds(&mh, cbuf, &in_fd, in_fd >= 0 ? 1 : 0);
	FZ_CHECK(sendmsg(F.fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m), "sendmsg op %u", op);
	for (int i = 0; i < 10 && n < 0; i++) {
		rnic_attach_server_serve(F.srv, 0);
		mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		n = recvmsg(F.fd, &mh, MSG_DONTWAIT);
	}
	FZ_CHECK(n == (ssize_t)sizeof(*m), "no reply to op %u", op);
	rnic_att_take_one_fd(&mh, out_fd);
	return m->status;
}

static void *
map_fd(int fd, size_t len)
{
	void *p;

	FZ_CHECK(fd >= 0, "no fd in the reply");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	FZ_CHECK(p != MAP_FAILED, "mmap");
	return p;
}

static void
modify(int q, struct rnic_qp_attr *a, int mask)
{
	struct rnic_att_msg m = { .modify_qp = { .handle = F.qp[q], .mask = mask, .attr = *a } };

	FZ_CHECK(call(&m, RNIC_ATT_MODIFY_QP, -1, NULL) == 0, "modify QP %d", q);
}

static void
qp_rts(int q)
{
	struct rnic_qp_attr a = { .qp_state = RNIC_QPS_INIT, .port_num = 1, .qkey = 0x11,
				  .qp_access_flags = RNIC_ACCESS_REMOTE_WRITE |
						     RNIC_ACCESS_REMOTE_READ |
						     RNIC_ACCESS_REMOTE_ATOMIC };
	struct rnic_device *peer = F.dev[1 - QP_PORT[q]];
	rte_be32_t ip;

	if (q == 2) {
		modify(q, &a, RNIC_QP_STATE | RNIC_QP_QKEY | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT);
		a.qp_state = RNIC_QPS_RTR;
		modify(q, &a, RNIC_QP_STATE);
		a.qp_state = RNIC_QPS_RTS;
		modify(q, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN);
		return;
	}
	modify(q, &a, RNIC_QP_STATE | RNIC_QP_ACCESS_FLAGS | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT);
	a = (struct rnic_qp_attr){ .qp_state = RNIC_QPS_RTR, .path_mtu = RNIC_MTU_1024,
				   .dest_qp_num = F.qpn[1 - q], .rq_psn = 0xfffff0,
				   .max_dest_rd_atomic = 4, .min_rnr_timer = 1 };
	rnic_dev_get_addr(peer, a.ah_attr.dmac, &ip);
	a.ah_attr.dip = ip;
	modify(q, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
		  RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	a = (struct rnic_qp_attr){ .qp_state = RNIC_QPS_RTS, .sq_psn = 0xfffff0, .timeout = 1,
				   .retry_cnt = 1, .rnr_retry = 1, .max_rd_atomic = 4 };
	modify(q, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
		  RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
}

/* The application's objects, fresh. */
static void
app_setup(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rnic_att_msg m = { .hello = { RNIC_ATT_MAGIC, RNIC_ATT_VERSION } };
	int fd, mfd;

	F.fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, F.path, sizeof(F.path));
	FZ_CHECK(F.fd >= 0 && connect(F.fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect");
	FZ_CHECK(call(&m, RNIC_ATT_HELLO, -1, &fd) == 0, "HELLO");
	close(fd);
	mfd = memfd_create("fz-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	FZ_CHECK(mfd >= 0 && ftruncate(mfd, 2 * MR_LEN) == 0 &&
		 fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "memfd");
	F.mem = mmap(NULL, 2 * MR_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	FZ_CHECK(F.mem != MAP_FAILED, "mmap");
	for (int p = 0; p < 2; p++) {
		m = (struct rnic_att_msg){ .port.port = (uint32_t)p };
		FZ_CHECK(call(&m, RNIC_ATT_ALLOC_PD, -1, NULL) == 0, "ALLOC_PD");
		F.pd[p] = m.obj_rep.handle;
		m = (struct rnic_att_msg){ .reg_mr = {
			.pd = F.pd[p], .access = RNIC_ACCESS_ALL,
			.iova = (uintptr_t)F.mem + (uint64_t)p * MR_LEN, .length = MR_LEN,
			.offset = (uint64_t)p * MR_LEN, .n_pieces = 1,
			.piece = { { .fd = 0, .offset = 0, .length = 2 * MR_LEN } } } };
		FZ_CHECK(call(&m, RNIC_ATT_REG_MR, mfd, NULL) == 0, "REG_MR");
		F.mr[p] = m.obj_rep.handle;
		F.lkey[p] = m.obj_rep.lkey;
		F.rkey[p] = m.obj_rep.rkey;
		m = (struct rnic_att_msg){ .create_cq = { .port = (uint32_t)p, .cqe = 64 } };
		FZ_CHECK(call(&m, RNIC_ATT_CREATE_CQ, -1, &fd) == 0, "CREATE_CQ");
		F.cq[p] = m.create_cq_rep.handle;
		F.cq_len[p] = m.create_cq_rep.size;
		F.cq_mask[p] = m.create_cq_rep.depth - 1;
		F.cq_ci[p] = 0;
		F.cqr[p] = map_fd(fd, F.cq_len[p]);
	}
	close(mfd);
	for (int q = 0; q < NQP; q++) {
		int p = QP_PORT[q];

		m = (struct rnic_att_msg){ .create_qp = {
			.pd = F.pd[p], .send_cq = F.cq[p], .recv_cq = F.cq[p],
			.qp_type = q == 2 ? RNIC_QPT_UD : RNIC_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
				 .max_recv_sge = 2, .max_inline_data = 64 } } };
		FZ_CHECK(call(&m, RNIC_ATT_CREATE_QP, -1, &fd) == 0, "CREATE_QP");
		F.qp[q] = m.create_qp_rep.handle;
		F.qpn[q] = m.create_qp_rep.qpn;
		F.q_len[q] = m.create_qp_rep.size;
		F.sq_off[q] = m.create_qp_rep.sq_off;
		F.rq_off[q] = m.create_qp_rep.rq_off;
		F.sq_depth[q] = m.create_qp_rep.sq_depth;
		F.sq_stride[q] = m.create_qp_rep.sq_stride;
		F.rq_depth[q] = m.create_qp_rep.rq_depth;
		F.rq_stride[q] = m.create_qp_rep.rq_stride;
		F.qr[q] = map_fd(fd, F.q_len[q]);
	}
	for (int q = 0; q < NQP; q++)
		qp_rts(q);
}

/* The application vanishes: the daemon must free everything. */
static void
app_gone(void)
{
	close(F.fd);
	F.fd = -1;
	for (int i = 0; i < 4; i++)
		rnic_attach_server_serve(F.srv, 0);
	poll_all(4);
	for (int p = 0; p < 2; p++)
		munmap(F.cqr[p], F.cq_len[p]);
	for (int q = 0; q < NQP; q++)
		munmap(F.qr[q], F.q_len[q]);
	munmap(F.mem, 2 * MR_LEN);
	for (int d = 0; d < 2; d++) {
		struct rnic_dev_objs o;

		rnic_dev_objs_get(F.dev[d], &o);
		FZ_CHECK(memcmp(&o, &F.base[d], sizeof(o)) == 0,
			 "port %d after the application went: %u PDs %u MRs %u CQs %u QPs "
			 "(before: %u %u %u %u)", d, o.pds, o.mrs, o.cqs, o.qps, F.base[d].pds,
			 F.base[d].mrs, F.base[d].cqs, F.base[d].qps);
	}
	{
		struct rnic_att_server_stats st;

		rnic_attach_server_stats(F.srv, &st);
		FZ_CHECK(st.apps == 0 && st.qps == 0 && st.mrs == 0 && st.cqs == 0 && st.pds == 0,
			 "the server still holds objects");
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *eal_argv[] = {
		"fuzz", "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
		"--log-level=*:error", "--no-telemetry", "-l", "0", NULL,
	};
	uint16_t port[2];
	const char *names[2] = { "p0", "p1" };
	char dir[] = "/tmp/fz-attach-XXXXXX";

	(void)argc;
	(void)argv;
	FZ_CHECK(rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) >= 0, "EAL init: %s",
		 rte_strerror(rte_errno));
	FZ_CHECK(rnic_port_ring_pair("fzA0", "fzA1", 1024, &port[0], &port[1]) == 0, "ring pair");
	for (int d = 0; d < 2; d++) {
		struct rnic_dev_attr a = { .port_id = port[d], .mbufs = 2048, .mtu = 1024,
					   .ipv4 = rte_cpu_to_be_32(0x0a0b0c01 + d),
					   .mac = { 2, 0, 0, 0, 0xfa, (uint8_t)(d + 1) } };
		char pool[RTE_MEMPOOL_NAMESIZE];

		F.dev[d] = rnic_dev_create(&a);
		FZ_CHECK(F.dev[d] != NULL, "device: %s", rte_strerror(rte_errno));
		rnic_dev_set_polled(F.dev[d], false);
		rnic_dev_objs_get(F.dev[d], &F.base[d]);
		snprintf(pool, sizeof(pool), "rnic_pool%u", port[d]);
		F.pool[d] = rte_mempool_lookup(pool);
		FZ_CHECK(F.pool[d] != NULL, "no mempool %s", pool);
		F.pool_start[d] = rte_mempool_avail_count(F.pool[d]);
	}
	FZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(F.path, sizeof(F.path), "%s/attach.sock", dir);
	F.srv = rnic_attach_server_create(F.path, F.dev, names, 2,
					  &(struct rnic_attach_limits){ .max_apps = 2 });
	FZ_CHECK(F.srv != NULL, "attach server: %s", strerror(errno));
	F.lcore = rte_lcore_id();
	for (int d = 0; d < 2; d++)
		FZ_CHECK(rnic_attach_server_add_lcore(F.srv, F.lcore, F.dev[d], 0,
						      RNIC_ROLE_ALL) == 0, "add_lcore");
	/* This thread polls between its control calls. */
	rnic_attach_server_set_polled(F.srv, false);
	F.ready = true;
	return 0;
}

/* Input reader: a byte, or 0 past the end. */
struct rd {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t
rd8(struct rd *r)
{
	return r->at < r->n ? r->p[r->at++] : 0;
}

static uint32_t
rd32(struct rd *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | rd8(r);
	return v;
}

/* A well-formed send WQE from a few input bytes, published. */
static void
op_swqe(struct rd *r)
{
	int q = rd8(r) % NQP, p = QP_PORT[q];
	uint8_t op = rd8(r), fl = rd8(r), len = rd8(r), off = rd8(r);
	struct rnic_att_qp_ring *ring = F.qr[q];
	uint32_t pi = ring->sq_pi;
	uint8_t *slot = (uint8_t *)ring + F.sq_off[q] +
			(size_t)(pi & (F.sq_depth[q] - 1)) * F.sq_stride[q];
	struct rnic_att_swqe h = { .wr_id = pi, .opcode = op % RNIC_WR_MAX,
				   .send_flags = (uint8_t)((fl & 0x7) | RNIC_SEND_SIGNALED),
				   .num_sge = 1, .rkey = F.rkey[1 - p],
				   .remote_addr = (uintptr_t)F.mem + (uint64_t)(1 - p) * MR_LEN +
						  (uint64_t)off * 64,
				   .ah = 0, .remote_qpn = F.qpn[1], .remote_qkey = 0x11 };
	struct rnic_sge s = { .addr = (uintptr_t)F.mem + (uint64_t)p * MR_LEN + off,
			      .length = (uint32_t)len * 16u, .lkey = F.lkey[p] };

	if (h.opcode == RNIC_WR_ATOMIC_CMP_AND_SWP || h.opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD) {
		s.length = 8;
		h.remote_addr &= ~7ull;
	}
	memcpy(slot, &h, sizeof(h));
	memcpy(slot + sizeof(h), &s, sizeof(s));
	__atomic_store_n(&ring->sq_pi, pi + 1, __ATOMIC_RELEASE);
}

static uint8_t *
ring_slot(int q, bool sq, uint8_t idx)
{
	uint8_t *base = (uint8_t *)F.qr[q] + (sq ? F.sq_off[q] : F.rq_off[q]);
	uint32_t depth = sq ? F.sq_depth[q] : F.rq_depth[q];
	uint32_t stride = sq ? F.sq_stride[q] : F.rq_stride[q];

	return base + (size_t)(idx & (depth - 1)) * stride;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { .p = data, .n = size };

	app_setup();
	/* A receive on each RC QP, as a well-behaved application posts. */
	for (int q = 0; q < 2; q++) {
		struct rnic_att_qp_ring *ring = F.qr[q];
		struct rnic_att_rwqe h = { .wr_id = 100 + q, .num_sge = 1 };
		struct rnic_sge s = { .addr = (uintptr_t)F.mem + (uint64_t)q * MR_LEN + 32768,
				      .length = 4096, .lkey = F.lkey[q] };
		uint8_t *slot = ring_slot(q, false, 0);

		memcpy(slot, &h, sizeof(h));
		memcpy(slot + sizeof(h), &s, sizeof(s));
		__atomic_store_n(&ring->rq_pi, 1, __ATOMIC_RELEASE);
	}
	while (r.at < r.n) {
		uint8_t op = rd8(&r) % 8;

		switch (op) {
		case 0:
		case 1: {
			int q = rd8(&r) % NQP;
			uint8_t idx = rd8(&r), len = rd8(&r);
			uint8_t *slot = ring_slot(q, op == 0, idx);
			uint32_t stride = op == 0 ? F.sq_stride[q] : F.rq_stride[q];

			for (uint32_t i = 0; i < len && i < stride; i++)
				slot[i] = rd8(&r);
			break;
		}
		case 2:
		case 3: {
			struct rnic_att_qp_ring *ring = F.qr[rd8(&r) % NQP];
			uint32_t *pi = op == 2 ? &ring->sq_pi : &ring->rq_pi;
			uint8_t d = rd8(&r);

			__atomic_store_n(pi, d < 0x80 ? *pi + d : rd32(&r), __ATOMIC_RELEASE);
			break;
		}
		case 4: {
			int p = rd8(&r) & 1;

			__atomic_store_n(&F.cqr[p]->ci, rd32(&r), __ATOMIC_RELEASE);
			break;
		}
		case 5:
			poll_all(rd8(&r) % 16 + 1);
			break;
		case 6: {
			int p = rd8(&r) & 1;
			uint32_t pi = __atomic_load_n(&F.cqr[p]->pi, __ATOMIC_ACQUIRE);

			/* The daemon never runs ahead of the ring's depth from
			 * the consumer index it last saw from us... unless we
			 * lied: only read what is inside the ring. */
			while (F.cq_ci[p] != pi && pi - F.cq_ci[p] <= F.cq_mask[p] + 1) {
				volatile struct rnic_wc *wc =
					&F.cqr[p]->wc[F.cq_ci[p] & F.cq_mask[p]];

				(void)wc->status;
				F.cq_ci[p]++;
			}
			__atomic_store_n(&F.cqr[p]->ci, F.cq_ci[p], __ATOMIC_RELEASE);
			break;
		}
		case 7:
			op_swqe(&r);
			break;
		}
	}
	poll_all(64);
	app_gone();
	/* What is still on the link arrives for QPs that are gone (dropped);
	 * then every mbuf is back. */
	poll_all(8);
	for (int d = 0; d < 2; d++)
		FZ_CHECK(rte_mempool_avail_count(F.pool[d]) == F.pool_start[d],
			 "port %d: %u of %u mbufs back (leak)", d,
			 rte_mempool_avail_count(F.pool[d]), F.pool_start[d]);
	return 0;
}
