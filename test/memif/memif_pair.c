/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loopback demo over two processes joined by net_memif (suite 'memif').
 *
 * One executable, started once: the launcher forks a server and a client
 * before either initialises DPDK. Each child runs its own EAL (a per-run
 * --file-prefix, --no-huge --no-pci --no-shconf, two lcores floating over
 * the CPUs we may use) with a net_memif vdev on a per-run socket, one
 * softrnic device on that port and ONE engine lcore polling TX, RX and the
 * timer; the main lcore is the application. The two processes talk out of
 * band over a SOCK_SEQPACKET socketpair made before the fork (perftest's
 * TCP exchange): MACs/IPs, QPNs, start PSNs, MR addresses and rkeys, then a
 * lockstep READY/DONE per message.
 *
 * The client runs every opcode the loopback demo runs: WRITE,
 * WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, SEND_WITH_INV, CmpSwap and
 * FetchAdd on RC, WRITE and SEND on UC, SEND on UD, sizes 0, 1, PMTU-1,
 * PMTU, PMTU+1, 10*PMTU+3 and 1 MiB (UD up to PMTU) at PMTU 1024, start
 * PSNs just below 0xFFFFFF. Nothing is shared between the processes but
 * the link, so both sides derive payloads from pattern(seed = message
 * number) and each checks what it can see:
 *  - the server posts a receive per SEND-like message and checks the
 *    completion (status, opcode, byte_len, imm, invalidated rkey, UD
 *    source QP) and every byte, plus no byte past the end;
 *  - WRITEs (RC and UC) are read back by the client over RC into a second
 *    buffer and compared, and then the server checks its own memory;
 *  - READ: the server pre-fills its region, the client checks the bytes;
 *  - atomics: the client checks the returned original, the server the
 *    final value;
 *  - SEND_WITH_INV: the server registers a fresh MR per message and sends
 *    its rkey; finally the client READs through the last invalidated rkey
 *    and must get a remote access error.
 * Last, both engines' counters must show no drop and no retransmission.
 *
 * Port layout: net_memif pairs TX queue i of one side with RX queue i of
 * the other, and the server refuses a client that offers more TX rings
 * than the server has RX queues ("Invalid ring index"). By default the
 * test configures 1 RX + 1 TX itself (rnic_dev_attr.no_port_setup): the
 * engine then shares its TX queue between requests and responses, which
 * is allowed because one lcore polls every role. With --engine-port-setup
 * rnic_dev_create sets the port up: two RX and two TX queues on each side,
 * and the RX lcore polls both RX queues.
 *
 * Teardown works around two net_memif bugs (see server_wait_disconnect):
 * both engines stop polling, the client closes its port first, and the
 * server closes its own only after its interrupt thread has handled
 * memif's disconnect, without ever using an EAL alarm.
 *
 * Each child prints "verified: messages=N bytes=B errors=E" (N: messages
 * it checked something of); the launcher waits for both (bounded, killing
 * them on timeout) and prints "N passed, M failed" last: messages passed
 * on each side plus each side's counter check; a child that fails,
 * crashes or times out adds a failure. Usage:
 * memif_pair [--timeout=S] [--engine-port-setup] [--workers=N] [extra EAL args
 * for both children]. --workers=N (implies --engine-port-setup): devices
 * with N workers (2N queues each way), one engine lcore per worker; the
 * QPs spread over the workers, and frames that reach another worker than
 * their QP's are steered to it.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "test_common.h"

#define PMTU       1024u
#define BIG        (1u << 20)
#define REGION     (4u << 20)
#define OFF_DATA   0u            /* server: WRITE/READ target; client: source */
#define OFF_RECV   (2u << 20)    /* server: receive buffer */
#define OFF_BACK   (2u << 20)    /* client: READ-back buffer */
#define OFF_ATOM   (REGION - 64) /* the atomic counter / result */
#define SLACK      64u           /* bytes past a message that must stay 0xee */
#define UD_GRH     40u
#define QKEY       0x11111111u
#define INV_BUF    4096u
#define OOB_MS     60000         /* out-of-band wait */
#define WC_SEC     10.0          /* completion wait */
#define LINK_SEC   20.0          /* memif link-up wait */

enum role { SERVER, CLIENT };
enum { Q_RC, Q_UC, Q_UD, NQ };
static const char *const qname[NQ] = { "RC", "UC", "UD" };

enum kind {
	K_WRITE, K_WRITE_IMM, K_READ, K_SEND, K_SEND_IMM, K_SEND_INV,
	K_FADD, K_CAS, K_CAS_MISS, K_INV_CHECK,
};
static const char *const kname[] = {
	"WRITE", "WRITE_IMM", "READ", "SEND", "SEND_IMM", "SEND_INV",
	"FetchAdd", "CmpSwap", "CmpSwap(miss)", "READ(invalidated rkey)",
};

struct item {
	uint8_t q;
	uint8_t kind;
	uint32_t len;
	uint32_t seed;
};

static struct item plan[160];
static unsigned int n_plan;

/* Out-of-band messages. */
enum { OOB_HELLO = 1, OOB_QPS, OOB_READY, OOB_DONE, OOB_FIN, OOB_ABORT };

struct oob {
	uint32_t type;
	uint32_t idx;
	uint8_t mac[6];
	uint16_t pad;
	uint32_t ip;              /* network order */
	uint32_t qpn[NQ];
	uint32_t psn[NQ];
	uint64_t addr;            /* QPS: MR base; READY: invalidate target */
	uint32_t rkey;            /* QPS: MR rkey; READY: rkey to invalidate */
	uint32_t pad2;
};

/* What a child hands the launcher. */
struct result {
	int32_t pass, fail;
	uint64_t msgs, bytes, errors;
};

struct proc {
	enum role role;
	const char *tag;
	int fd;                   /* socketpair end */
	uint16_t port;
	struct rte_mempool *rxpool;
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_mr *mr;
	uint8_t *buf;
	struct rnic_qp *qp[NQ];
	struct rnic_ah *ah;
	uint8_t mac[6];
	rte_be32_t ip;
	uint32_t psn[NQ];
	struct oob peer;          /* HELLO then QPS fields */
	/* server: the buffers of the fresh MRs of SEND_WITH_INV */
	uint8_t *inv_buf[16];
	unsigned int n_inv;
	/* client: the last invalidated rkey and its address */
	uint32_t inv_rkey;
	uint64_t inv_addr;
	bool peer_gone;           /* the out-of-band link broke */
	uint32_t fin_seen;        /* teardown FINs (1 << idx) already received */
	bool link_was_up;
	struct result res;
};

static uint32_t engine_stop;
static unsigned int n_workers = 1;   /* --workers */

/* ------------------------------------------------------------------ */
/* The shared plan and pattern                                         */
/* ------------------------------------------------------------------ */

static void
add(uint8_t q, uint8_t kind, uint32_t len)
{
	plan[n_plan] = (struct item){ q, kind, len, n_plan + 1 };
	n_plan++;
}

static void
build_plan(void)
{
	static const uint32_t sizes[] = { 0, 1, PMTU - 1, PMTU, PMTU + 1, 10 * PMTU + 3, BIG };
	static const uint8_t rc_kinds[] = { K_WRITE, K_WRITE_IMM, K_READ, K_SEND, K_SEND_IMM,
					    K_SEND_INV };

	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		for (unsigned int k = 0; k < RTE_DIM(rc_kinds); k++)
			add(Q_RC, rc_kinds[k], sizes[s]);
		add(Q_UC, K_WRITE, sizes[s]);
		add(Q_UC, K_SEND, sizes[s]);
		if (sizes[s] <= PMTU)
			add(Q_UD, K_SEND, sizes[s]);
	}
	add(Q_RC, K_FADD, 8);
	add(Q_RC, K_CAS, 8);
	add(Q_RC, K_CAS_MISS, 8);
	add(Q_RC, K_FADD, 8);
	add(Q_RC, K_INV_CHECK, 8);   /* last: it takes the RC pair to Error */
}

static uint8_t
pat(size_t i, uint32_t seed)
{
	return (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ seed);
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(i, seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
static long
mismatch(const uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(i, seed))
			return (long)i;
	return -1;
}

/* Index of the first of @p n bytes that is not 0xee, or -1. */
static long
not_ee(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xee)
			return (long)i;
	return -1;
}

/* Atomics: the server's initial counter and the FetchAdd operand. */
static uint64_t
atom_init(uint32_t seed)
{
	return 0x0123456789abcdefull * seed ^ ((uint64_t)seed << 40);
}

static uint64_t
atom_add(uint32_t seed)
{
	return 0x100000001ull + seed;
}

static bool
has_recv(const struct item *it)
{
	return it->kind == K_WRITE_IMM || it->kind == K_SEND || it->kind == K_SEND_IMM ||
	       it->kind == K_SEND_INV;
}

/* ------------------------------------------------------------------ */
/* Out of band                                                         */
/* ------------------------------------------------------------------ */

static int
oob_send(struct proc *p, struct oob *m)
{
	ssize_t n = send(p->fd, m, sizeof(*m), MSG_NOSIGNAL);

	if (n != (ssize_t)sizeof(*m)) {
		p->peer_gone = true;
		TEST_FAIL("out-of-band send type %u: %s", m->type,
			  n < 0 ? strerror(errno) : "short");
	}
	return 0;
}

static int
oob_simple(struct proc *p, uint32_t type, uint32_t idx)
{
	struct oob m = { .type = type, .idx = idx };

	return oob_send(p, &m);
}

/* Wait (bounded) for message @p type with index @p idx. */
static int
oob_recv(struct proc *p, uint32_t type, uint32_t idx, struct oob *m)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	ssize_t n;
	int rc;

	do {
		rc = poll(&pfd, 1, OOB_MS);
	} while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		p->peer_gone = true;
		TEST_FAIL("timeout waiting for out-of-band message %u (%u)", type, idx);
	}
	n = recv(p->fd, m, sizeof(*m), 0);
	if (n != (ssize_t)sizeof(*m)) {
		p->peer_gone = true;
		TEST_FAIL("out-of-band: %s",
			  n == 0 ? "the peer is gone" : n < 0 ? strerror(errno) : "short message");
	}
	if (m->type == OOB_ABORT) {
		printf("[%s] the peer aborted at message %u\n", p->tag, m->idx);
		return -1;
	}
	if (m->type == OOB_FIN && m->idx >= 2 && !(type == OOB_FIN && idx == m->idx)) {
		printf("[%s] the peer is closing\n", p->tag);
		p->fin_seen |= 1u << m->idx;
		return -1;
	}
	VERIFY(m->type == type && m->idx == idx, "out-of-band: got %u (%u), want %u (%u)",
	       m->type, m->idx, type, idx);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Engine and waits                                                    */
/* ------------------------------------------------------------------ */

/* An engine lcore: every role of one worker, yielding when idle so two
 * busy processes on two CPUs both make progress. */
static struct rnic_device *engine_dev;

static int
engine_main(void *arg)
{
	unsigned int worker = (unsigned int)(uintptr_t)arg, idle = 0;

	while (!__atomic_load_n(&engine_stop, __ATOMIC_ACQUIRE)) {
		rnic_poll_idle(rnic_worker_poll(engine_dev, worker, RNIC_ROLE_ALL), &idle);
	}
	return 0;
}

static void
idle_step(unsigned int *idle)
{
	if (++*idle > 16) {
		sched_yield();
		*idle = 0;
	} else {
		rte_pause();
	}
}

static uint64_t
deadline(double secs)
{
	return rte_get_tsc_cycles() + (uint64_t)(secs * (double)rte_get_tsc_hz());
}

static int
wait_wc(struct proc *p, struct rnic_wc *wc)
{
	uint64_t end = deadline(WC_SEC);
	unsigned int idle = 0;

	for (;;) {
		if (rnic_poll_cq(p->cq, 1, wc) == 1)
			return 0;
		if (rte_get_tsc_cycles() > end)
			return -1;
		idle_step(&idle);
	}
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

/* 1 RX + 1 TX queue: see the header comment for why not softrnic's 1+2. */
/* --engine-port-setup: rnic_dev_create configures and starts the port
 * itself (two RX and two TX queues on both sides) instead of the test. */
static bool engine_port_setup;

static int dev_setup(struct proc *p);

static int
port_start(struct proc *p)
{
	struct rte_eth_conf conf = {0};
	int rc;

	if (rte_eth_dev_count_avail() != 1)
		TEST_FAIL("%u ports, want the one net_memif (is the memif PMD loaded?)",
		     rte_eth_dev_count_avail());
	RTE_ETH_FOREACH_DEV(p->port)
		break;
	if (engine_port_setup)
		return dev_setup(p);   /* starts the port */
	p->rxpool = rte_pktmbuf_pool_create("memif_rx", 8191, 256, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (p->rxpool == NULL)
		TEST_FAIL("rx pool: %s", rte_strerror(rte_errno));
	rc = rte_eth_dev_configure(p->port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p->port, 0, 1024, rte_eth_dev_socket_id(p->port),
					    NULL, p->rxpool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p->port, 0, 1024, rte_eth_dev_socket_id(p->port),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p->port);
	if (rc != 0)
		TEST_FAIL("port %u setup: %s", p->port, strerror(-rc));
	return 0;
}

static int
link_wait(struct proc *p)
{
	uint64_t t0 = rte_get_tsc_cycles(), end = deadline(LINK_SEC);
	struct rte_eth_link link;
	unsigned int idle = 0;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			break;
		if (rte_get_tsc_cycles() > end)
			TEST_FAIL("memif link still down after %.0f s", LINK_SEC);
		idle_step(&idle);
	}
	p->link_was_up = true;
	printf("[%s] memif link up after %.1f ms\n", p->tag,
	       (double)(rte_get_tsc_cycles() - t0) * 1e3 / (double)rte_get_tsc_hz());
	return 0;
}

static int
dev_setup(struct proc *p)
{
	struct rnic_dev_attr a = {
		.port_id = p->port, .ipv4 = p->ip, .mbufs = 8192, .mtu = PMTU,
		.no_port_setup = !engine_port_setup, .workers = (uint16_t)n_workers,
	};
	int access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
		     RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;

	memcpy(a.mac, p->mac, 6);
	p->dev = rnic_dev_create(&a);
	if (p->dev == NULL)
		TEST_FAIL("rnic_dev_create: %s", rte_strerror(rte_errno));
	if (rnic_dev_shared_txq(p->dev) != !engine_port_setup)
		TEST_FAIL("TX queue sharing is not what the port layout implies");
	p->pd = rnic_alloc_pd(p->dev);
	p->cq = rnic_create_cq(p->dev, 1024);
	if (posix_memalign((void **)&p->buf, 4096, REGION) != 0)
		p->buf = NULL;
	if (p->pd == NULL || p->cq == NULL || p->buf == NULL)
		TEST_FAIL("PD/CQ/buffer");
	memset(p->buf, 0xee, REGION);
	p->mr = rnic_reg_mr(p->pd, p->buf, REGION, access);
	if (p->mr == NULL)
		TEST_FAIL("reg_mr: %s", rte_strerror(rte_errno));
	for (int q = 0; q < NQ; q++) {
		struct rnic_qp_init_attr ia = {
			.send_cq = p->cq, .recv_cq = p->cq,
			.qp_type = q == Q_RC ? RNIC_QPT_RC : q == Q_UC ? RNIC_QPT_UC : RNIC_QPT_UD,
			.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
				 .max_recv_sge = 2, .max_inline_data = 64 },
		};

		/* UC on RC's worker: the RC READ that reads a UC WRITE back is
		 * ordered after it only on one worker (QPs of different
		 * workers are not ordered, as IBA allows). UD lands on the
		 * other worker. */
		if (q == Q_UC && n_workers > 1)
			ia.qp_num = rnic_qp_num(p->qp[Q_RC]) + n_workers;
		p->qp[q] = rnic_create_qp(p->pd, &ia);
		if (p->qp[q] == NULL)
			TEST_FAIL("create %s QP: %s", qname[q], rte_strerror(rte_errno));
		/* Just below the wrap; 1 MiB messages cross it. */
		p->psn[q] = (p->role == SERVER ? 0xffffe0u : 0xfffff0u) + (uint32_t)q;
	}
	return 0;
}

static int
qp_connect(struct proc *p, int q)
{
	struct test_qp_conn c = {
		.dmac = p->peer.mac, .dip = p->peer.ip, .dest_qpn = p->peer.qpn[q], .qkey = QKEY,
		.mtu = RNIC_MTU_1024, .sq_psn = p->psn[q], .rq_psn = p->peer.psn[q],
		.timeout = 17,   /* ~0.5 s: nothing is lost here, so no retransmission */
		.retry_cnt = 7,
	};
	enum rnic_qp_state to;
	int rc = test_qp_to_rts(p->qp[q], &c, &to);

	if (rc)
		TEST_FAIL("%s to %s: %d", qname[q], rnic_qp_state_str(to), rc);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Server: prepare, then verify what arrived                           */
/* ------------------------------------------------------------------ */

static int
server_item(struct proc *p, unsigned int idx)
{
	const struct item *it = &plan[idx];
	uint8_t *data = p->buf + OFF_DATA, *rbuf = p->buf + OFF_RECV;
	uint64_t *ctr = (uint64_t *)(void *)(p->buf + OFF_ATOM);
	uint32_t grh = it->q == Q_UD ? UD_GRH : 0, inv_rkey = 0, len = it->len;
	struct oob ready = { .type = OOB_READY, .idx = idx };
	struct oob done;
	struct rnic_wc wc;
	long bad;

	switch (it->kind) {
	case K_WRITE:
	case K_WRITE_IMM:
		memset(data, 0xee, len + SLACK);
		break;
	case K_READ:
		fill(data, len, it->seed);
		break;
	case K_FADD:
	case K_CAS:
	case K_CAS_MISS:
		*ctr = atom_init(it->seed);
		break;
	case K_SEND_INV: {
		struct rnic_mr *mr;
		uint8_t *b;

		if (p->n_inv == RTE_DIM(p->inv_buf) || posix_memalign((void **)&b, 64, INV_BUF))
			TEST_FAIL("no room for another invalidation MR");
		memset(b, 0x5a, INV_BUF);
		mr = rnic_reg_mr(p->pd, b, INV_BUF, RNIC_ACCESS_REMOTE_READ);
		if (mr == NULL) {
			free(b);
			TEST_FAIL("reg_mr for SEND_WITH_INV: %s", rte_strerror(rte_errno));
		}
		p->inv_buf[p->n_inv++] = b;   /* the MR goes with the device */
		inv_rkey = rnic_mr_rkey(mr);
		ready.rkey = inv_rkey;
		ready.addr = (uintptr_t)b;
		break;
	}
	default:
		break;
	}
	if (has_recv(it)) {
		struct rnic_sge sge = { (uintptr_t)rbuf, len + grh + SLACK, rnic_mr_lkey(p->mr) };
		struct rnic_recv_wr rwr = { .wr_id = it->seed, .sg_list = &sge, .num_sge = 1 };
		struct rnic_recv_wr *rbad;
		int rc;

		memset(rbuf, 0xee, len + grh + 2 * SLACK);
		rc = rnic_post_recv(p->qp[it->q], &rwr, &rbad);
		VERIFY(rc == 0, "post_recv: %d", rc);
	}
	if (oob_send(p, &ready) != 0 || oob_recv(p, OOB_DONE, idx, &done) != 0)
		return -2;

	/* The client has its completions (and has read WRITEs back). */
	if (has_recv(it)) {
		uint8_t want_op = it->kind == K_WRITE_IMM ? RNIC_WC_RECV_RDMA_WITH_IMM :
				  RNIC_WC_RECV;

		if (wait_wc(p, &wc) != 0)
			TEST_FAIL("no receive completion");
		VERIFY(wc.status == RNIC_WC_SUCCESS && wc.wr_id == it->seed,
		      "status %s wr_id %" PRIu64, rnic_wc_status_str(wc.status), wc.wr_id);
		VERIFY(wc.qp_num == rnic_qp_num(p->qp[it->q]), "qp_num %u", wc.qp_num);
		VERIFY(wc.opcode == want_op, "opcode %u want %u", wc.opcode, want_op);
		VERIFY(wc.byte_len == len + grh, "byte_len %u want %u", wc.byte_len, len + grh);
		if (it->kind == K_SEND_IMM || it->kind == K_WRITE_IMM)
			VERIFY((wc.wc_flags & RNIC_WC_WITH_IMM) &&
			      wc.imm_data == rte_cpu_to_be_32(it->seed),
			      "flags %#x imm %#x", wc.wc_flags, rte_be_to_cpu_32(wc.imm_data));
		else if (it->kind == K_SEND_INV)
			VERIFY((wc.wc_flags & RNIC_WC_WITH_INV) && wc.invalidated_rkey == inv_rkey,
			      "flags %#x invalidated %#x want %#x", wc.wc_flags,
			      wc.invalidated_rkey, inv_rkey);
		else
			VERIFY(wc.wc_flags == (it->q == Q_UD ? RNIC_WC_GRH : 0), "flags %#x",
			      wc.wc_flags);
		if (it->q == Q_UD) {
			VERIFY(wc.src_qp == p->peer.qpn[Q_UD], "src_qp %#x", wc.src_qp);
			/* the GRH area: 20 zero bytes, the sender's IPv4 header */
			VERIFY((wc.wc_flags & RNIC_WC_GRH) && rbuf[0] == 0 && rbuf[19] == 0 &&
			      rbuf[20] == 0x45 && rbuf[29] == 17, "GRH area %02x..%02x %02x %02x",
			      rbuf[0], rbuf[19], rbuf[20], rbuf[29]);
		}
		if (it->kind != K_WRITE_IMM) {
			bad = mismatch(rbuf + grh, len, it->seed);
			VERIFY(bad < 0, "received bytes differ at %ld", bad);
			bad = not_ee(rbuf + grh + len, SLACK);
			VERIFY(bad < 0, "receive wrote past byte_len (+%ld)", bad);
			p->res.bytes += len;
		}
	}
	switch (it->kind) {
	case K_WRITE:
	case K_WRITE_IMM:
		bad = mismatch(data, len, it->seed);
		VERIFY(bad < 0, "written bytes differ at %ld", bad);
		bad = not_ee(data + len, SLACK);
		VERIFY(bad < 0, "WRITE past its end (+%ld)", bad);
		p->res.bytes += len;
		break;
	case K_FADD:
		VERIFY(*ctr == atom_init(it->seed) + atom_add(it->seed), "counter %#" PRIx64, *ctr);
		p->res.bytes += 8;
		break;
	case K_CAS:
		VERIFY(*ctr == ~atom_init(it->seed), "counter %#" PRIx64, *ctr);
		p->res.bytes += 8;
		break;
	case K_CAS_MISS:
		VERIFY(*ctr == atom_init(it->seed), "counter %#" PRIx64, *ctr);
		p->res.bytes += 8;
		break;
	case K_INV_CHECK: {
		struct rnic_qp_attr at;

		/* The NAK it sent took the responder QP to Error. */
		rnic_query_qp(p->qp[Q_RC], &at, 0, NULL);
		VERIFY(at.qp_state == RNIC_QPS_ERR, "RC responder in state %s",
		      rnic_qp_state_str(at.qp_state));
		break;
	}
	default:
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Client: post, complete, verify                                      */
/* ------------------------------------------------------------------ */

static int
client_post_wait(struct proc *p, int q, struct rnic_send_wr *wr, uint8_t want_status,
		 uint8_t want_op, const char *what)
{
	struct rnic_send_wr *bad;
	struct rnic_wc wc;
	int rc;

	rc = rnic_post_send(p->qp[q], wr, &bad);
	VERIFY(rc == 0, "%s: post_send %d", what, rc);
	if (wait_wc(p, &wc) != 0)
		TEST_FAIL("%s: no completion", what);
	VERIFY(wc.status == want_status && wc.wr_id == wr->wr_id,
	      "%s: status %s wr_id %" PRIu64, what, rnic_wc_status_str(wc.status), wc.wr_id);
	if (want_status == RNIC_WC_SUCCESS)
		VERIFY(wc.opcode == want_op, "%s: opcode %u want %u", what, wc.opcode, want_op);
	return 0;
}

static int
client_item(struct proc *p, unsigned int idx)
{
	const struct item *it = &plan[idx];
	uint8_t *src = p->buf + OFF_DATA, *back = p->buf + OFF_BACK;
	uint64_t *res = (uint64_t *)(void *)(p->buf + OFF_ATOM);
	uint32_t len = it->len, seed = it->seed;
	uint64_t raddr = p->peer.addr + OFF_DATA;
	struct rnic_sge sge = { (uintptr_t)src, len, rnic_mr_lkey(p->mr) };
	struct rnic_send_wr wr = { .wr_id = seed, .sg_list = &sge, .num_sge = 1,
				   .send_flags = RNIC_SEND_SIGNALED };
	uint8_t want_op = RNIC_WC_SEND, want_status = RNIC_WC_SUCCESS;
	struct oob ready;
	char what[64];
	long bad;

	snprintf(what, sizeof(what), "#%u %s %s len %u", idx, qname[it->q], kname[it->kind], len);
	if (oob_recv(p, OOB_READY, idx, &ready) != 0)
		return -2;
	switch (it->kind) {
	case K_WRITE:
	case K_WRITE_IMM:
		fill(src, len, seed);
		wr.opcode = it->kind == K_WRITE ? RNIC_WR_RDMA_WRITE : RNIC_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = rte_cpu_to_be_32(seed);
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = p->peer.rkey;
		want_op = RNIC_WC_RDMA_WRITE;
		break;
	case K_READ:
		memset(src, 0xee, len + SLACK);
		wr.opcode = RNIC_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = p->peer.rkey;
		want_op = RNIC_WC_RDMA_READ;
		break;
	case K_SEND:
	case K_SEND_IMM:
	case K_SEND_INV:
		fill(src, len, seed);
		wr.opcode = it->kind == K_SEND ? RNIC_WR_SEND :
			    it->kind == K_SEND_IMM ? RNIC_WR_SEND_WITH_IMM : RNIC_WR_SEND_WITH_INV;
		if (it->kind == K_SEND_IMM)
			wr.imm_data = rte_cpu_to_be_32(seed);
		if (it->kind == K_SEND_INV) {
			wr.invalidate_rkey = ready.rkey;
			p->inv_rkey = ready.rkey;
			p->inv_addr = ready.addr;
		}
		if (it->q == Q_UD) {
			wr.wr.ud.ah = p->ah;
			wr.wr.ud.remote_qpn = p->peer.qpn[Q_UD];
			wr.wr.ud.remote_qkey = QKEY;
		}
		break;
	case K_FADD:
	case K_CAS:
	case K_CAS_MISS:
		*res = 0x5a5a5a5a5a5a5a5aull;
		sge = (struct rnic_sge){ (uintptr_t)res, 8, rnic_mr_lkey(p->mr) };
		wr.opcode = it->kind == K_FADD ? RNIC_WR_ATOMIC_FETCH_AND_ADD :
			    RNIC_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = p->peer.addr + OFF_ATOM;
		wr.wr.atomic.rkey = p->peer.rkey;
		wr.wr.atomic.compare_add = it->kind == K_FADD ? atom_add(seed) :
					   it->kind == K_CAS ? atom_init(seed) : atom_init(seed) + 1;
		wr.wr.atomic.swap = it->kind == K_CAS ? ~atom_init(seed) : 1;
		want_op = it->kind == K_FADD ? RNIC_WC_FETCH_ADD : RNIC_WC_COMP_SWAP;
		break;
	case K_INV_CHECK:
		VERIFY(p->inv_rkey != 0, "no SEND_WITH_INV ran");
		wr.opcode = RNIC_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = p->inv_addr;
		wr.wr.rdma.rkey = p->inv_rkey;
		want_status = RNIC_WC_REM_ACCESS_ERR;
		break;
	}
	if (client_post_wait(p, it->q, &wr, want_status, want_op, what) != 0)
		return -1;

	switch (it->kind) {
	case K_READ:
		bad = mismatch(src, len, seed);
		VERIFY(bad < 0, "%s: bytes differ at %ld", what, bad);
		bad = not_ee(src + len, SLACK);
		VERIFY(bad < 0, "%s: READ past its end (+%ld)", what, bad);
		p->res.bytes += len;
		break;
	case K_WRITE:
	case K_WRITE_IMM: {
		/* Read the region back over RC. For UC this also orders: the
		 * READ follows the WRITE's packets through the same queues
		 * (the two QPs are on one worker: dev_setup). */
		struct rnic_sge bsge = { (uintptr_t)back, len, rnic_mr_lkey(p->mr) };
		struct rnic_send_wr rd = { .wr_id = seed | (1ull << 32), .sg_list = &bsge,
					   .num_sge = 1, .opcode = RNIC_WR_RDMA_READ,
					   .send_flags = RNIC_SEND_SIGNALED };

		memset(back, 0xee, len + SLACK);
		rd.wr.rdma.remote_addr = raddr;
		rd.wr.rdma.rkey = p->peer.rkey;
		if (client_post_wait(p, Q_RC, &rd, RNIC_WC_SUCCESS, RNIC_WC_RDMA_READ, what) != 0)
			return -1;
		bad = mismatch(back, len, seed);
		VERIFY(bad < 0, "%s: read-back differs at %ld", what, bad);
		bad = not_ee(back + len, SLACK);
		VERIFY(bad < 0, "%s: read-back past its end (+%ld)", what, bad);
		p->res.bytes += len;
		break;
	}
	case K_FADD:
	case K_CAS:
	case K_CAS_MISS:
		VERIFY(*res == atom_init(seed), "%s: returned %#" PRIx64 " want %#" PRIx64,
		      what, *res, atom_init(seed));
		p->res.bytes += 8;
		break;
	default:
		break;
	}
	if (oob_simple(p, OOB_DONE, idx) != 0)
		return -2;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One side                                                            */
/* ------------------------------------------------------------------ */

static int
counters_check(struct proc *p)
{
	struct rnic_dev_stats st;
	uint64_t bad;

	rnic_dev_stats_get(p->dev, &st);
	printf("[%s] tx_pkts=%" PRIu64 " rx_pkts=%" PRIu64 " tx_full=%" PRIu64
	       " acks_sent=%" PRIu64 " acks_rcvd=%" PRIu64 " naks_sent=%" PRIu64
	       " naks_rcvd=%" PRIu64 " read_resp=%" PRIu64 " atomic_resp=%" PRIu64
	       " timer_expired=%" PRIu64 "\n",
	       p->tag, st.tx_pkts, st.rx_pkts, st.tx_full, st.acks_sent, st.acks_rcvd,
	       st.naks_sent, st.naks_rcvd, st.read_resp_sent, st.atomic_resp_sent,
	       st.timer_expired);
	bad = st.drop_not_roce + st.drop_malformed + st.drop_icrc + st.drop_no_qp +
	      st.drop_qp_state + st.drop_pkey + st.drop_qkey + st.drop_opcode +
	      st.drop_psn_invalid + st.drop_ghost_resp + st.drop_bad_resp + st.drop_uc_gap +
	      st.drop_wrong_dst + st.tx_retransmits + st.dup_requests +
	      st.rnr_naks_sent + st.rnr_naks_rcvd + st.cq_overflow + st.drop_steer;
	if (n_workers > 1) {
		unsigned int on[8] = {0}, used = 0;

		for (int q = 0; q < NQ; q++)
			on[rnic_qp_worker(p->qp[q])]++;
		for (unsigned int w = 0; w < n_workers; w++)
			used += on[w] > 0;
		printf("[%s] %u workers, QPs per worker:", p->tag, n_workers);
		for (unsigned int w = 0; w < n_workers; w++)
			printf(" %u", on[w]);
		printf(", rx_steered=%" PRIu64 "\n", st.rx_steered);
		if (used != n_workers)
			TEST_FAIL("a worker has no QP");
	}
	if (bad) {
		for (unsigned int i = 0; i < rnic_dev_stat_count; i++) {
			uint64_t v = ((const uint64_t *)&st)[i];

			if (v && (strncmp(rnic_dev_stat_names[i], "drop_", 5) == 0 ||
				  strstr(rnic_dev_stat_names[i], "retrans") ||
				  strstr(rnic_dev_stat_names[i], "rnr") ||
				  strcmp(rnic_dev_stat_names[i], "dup_requests") == 0 ||
				  strcmp(rnic_dev_stat_names[i], "cq_overflow") == 0))
				printf("[%s]   %s=%" PRIu64 "\n", p->tag, rnic_dev_stat_names[i], v);
		}
		TEST_FAIL("drops, retransmissions or RNR on a lossless link");
	}
	/* The only NAK of the run: the READ through the invalidated rkey. */
	VERIFY((p->role == SERVER ? st.naks_sent : st.naks_rcvd) == 1,
	      "naks_sent=%" PRIu64 " naks_rcvd=%" PRIu64, st.naks_sent, st.naks_rcvd);
	return 0;
}

/* Discard out-of-band messages until FIN @p idx (teardown steps), bounded. */
static int
oob_wait_fin(struct proc *p, uint32_t idx)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	struct oob m;

	while (!p->peer_gone) {
		if (p->fin_seen & (1u << idx))
			return 0;
		if (poll(&pfd, 1, OOB_MS) <= 0 ||
		    recv(p->fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m)) {
			p->peer_gone = true;
			break;
		}
		if (m.type == OOB_FIN && m.idx >= 2)
			p->fin_seen |= 1u << m.idx;
	}
	return -1;
}

static uint32_t intr_barrier;

static void
intr_barrier_cb(void *arg)
{
	uint64_t v;

	if (read(*(int *)arg, &v, sizeof(v)) == (ssize_t)sizeof(v))
		__atomic_store_n(&intr_barrier, 1, __ATOMIC_RELEASE);
}

/*
 * Run an empty callback on the EAL interrupt thread and wait for it: every
 * handler that thread was running has then returned. An eventfd of our
 * own, not rte_eal_alarm_set: an alarm leaves a callback registered that
 * rte_eal_cleanup unregisters, which makes the interrupt thread re-read
 * every interrupt handle; memif's listener handle is freed by then (see
 * server_wait_disconnect), and the heap is being unmapped under it.
 */
static void
intr_thread_barrier(void)
{
	struct rte_intr_handle *h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	uint64_t one = 1, end = deadline(LINK_SEC);
	unsigned int idle = 0;

	if (h == NULL || efd < 0 || rte_intr_fd_set(h, efd) != 0 ||
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(h, intr_barrier_cb, &efd) != 0)
		goto out;
	if (write(efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		while (!__atomic_load_n(&intr_barrier, __ATOMIC_ACQUIRE) &&
		       rte_get_tsc_cycles() < end)
			idle_step(&idle);
	rte_intr_callback_unregister_sync(h, intr_barrier_cb, &efd);
out:
	rte_intr_instance_free(h);
	if (efd >= 0)
		close(efd);
}

/*
 * The server side of the close. The client has closed its port, so this
 * process's interrupt thread runs memif's disconnect, which frees the
 * shared regions; rte_eth_dev_stop/close run the same code, and net_memif
 * does not lock the two against each other (overlapping them crashed the
 * interrupt thread in rte_free). So wait for the link to go down (the
 * first thing that disconnect does), then for the interrupt thread.
 * Another net_memif bug (DPDK 22.11 and later): closing a server frees its
 * listener's interrupt handle without unregistering its callback, so after
 * rte_eth_dev_close nothing may make the interrupt thread walk its handles
 * again: hence no EAL alarm in this process.
 */
static void
server_wait_disconnect(struct proc *p)
{
	uint64_t end = deadline(LINK_SEC);
	struct rte_eth_link link;
	unsigned int idle = 0;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN)
			break;
		if (rte_get_tsc_cycles() > end) {
			printf("[%s] memif link still up after the client closed\n", p->tag);
			return;
		}
		idle_step(&idle);
	}
	intr_thread_barrier();
}

/*
 * Teardown in an order net_memif survives: both engines stop polling
 * before either port closes; the client closes first; the server closes
 * once its interrupt thread has handled the disconnect.
 */
static void
side_close(struct proc *p, bool launched)
{
	if (launched) {
		__atomic_store_n(&engine_stop, 1, __ATOMIC_RELEASE);
		rte_eal_mp_wait_lcore();
		rnic_dev_set_polled(p->dev, false);
	}
	if (p->role == SERVER) {
		if (!p->peer_gone && oob_simple(p, OOB_FIN, 2) == 0 && oob_wait_fin(p, 3) == 0 &&
		    p->link_was_up)
			server_wait_disconnect(p);
	} else {
		oob_wait_fin(p, 2);
	}
	if (p->ah != NULL)
		rnic_destroy_ah(p->ah);
	if (p->dev != NULL)
		rnic_dev_destroy(p->dev);   /* QPs, CQs and MRs with it */
	if (engine_port_setup && p->dev != NULL)
		rte_eth_dev_close(p->port);   /* rnic_dev_destroy stopped it */
	for (unsigned int i = 0; i < p->n_inv; i++)
		free(p->inv_buf[i]);
	free(p->buf);
	if (p->rxpool != NULL) {
		rte_eth_dev_stop(p->port);
		rte_eth_dev_close(p->port);
		rte_mempool_free(p->rxpool);
	}
	if (p->role == CLIENT && !p->peer_gone)
		oob_simple(p, OOB_FIN, 3);
}

static int
run_side(struct proc *p)
{
	struct oob m = { .type = OOB_HELLO };
	unsigned int lcore;
	uint64_t t0;
	bool launched = false;
	int rc = -1;

	p->mac[0] = 0x02;
	p->mac[5] = p->role == SERVER ? 1 : 2;
	p->ip = rte_cpu_to_be_32(0x0a000000u | p->mac[5]);

	/* The server listens from probe on and accepts once started; the
	 * client connects when started, so it starts after the server. */
	if (p->role == CLIENT && oob_recv(p, OOB_HELLO, 0, &p->peer) != 0)
		goto out;
	if (port_start(p) != 0)
		goto out;
	memcpy(m.mac, p->mac, 6);
	m.ip = p->ip;
	if (oob_send(p, &m) != 0)
		goto out;
	if (p->role == SERVER && oob_recv(p, OOB_HELLO, 0, &p->peer) != 0)
		goto out;
	if (link_wait(p) != 0 || (!engine_port_setup && dev_setup(p) != 0))
		goto out;

	engine_dev = p->dev;
	rnic_dev_set_polled(p->dev, true);
	lcore = (unsigned int)-1;
	for (unsigned int w = 0; w < n_workers; w++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		VERIFY_GOTO(lcore < RTE_MAX_LCORE, out, "no lcore for engine worker %u", w);
		VERIFY_GOTO(rte_eal_remote_launch(engine_main, (void *)(uintptr_t)w, lcore) == 0,
			    out, "cannot launch the engine lcore of worker %u", w);
		launched = true;
	}

	/* QPNs, start PSNs, the MR each side may address. */
	memset(&m, 0, sizeof(m));
	m.type = OOB_QPS;
	for (int q = 0; q < NQ; q++) {
		m.qpn[q] = rnic_qp_num(p->qp[q]);
		m.psn[q] = p->psn[q];
	}
	m.addr = (uintptr_t)p->buf;
	m.rkey = rnic_mr_rkey(p->mr);
	if (oob_send(p, &m) != 0 || oob_recv(p, OOB_QPS, 0, &m) != 0)
		goto out;
	memcpy(p->peer.qpn, m.qpn, sizeof(m.qpn));
	memcpy(p->peer.psn, m.psn, sizeof(m.psn));
	p->peer.addr = m.addr;
	p->peer.rkey = m.rkey;
	for (int q = 0; q < NQ; q++)
		if (qp_connect(p, q) != 0)
			goto out;
	if (p->role == CLIENT) {
		struct rnic_ah_attr aa = {0};

		memcpy(aa.dmac, p->peer.mac, 6);
		aa.dip = p->peer.ip;
		p->ah = rnic_create_ah(p->pd, &aa);
		VERIFY_GOTO(p->ah != NULL, out, "create_ah");
	}
	/* Both sides at RTS before the first READY. */
	if (oob_simple(p, OOB_FIN, 0) != 0 || oob_recv(p, OOB_FIN, 0, &m) != 0)
		goto out;
	printf("[%s] port %u: RC %#x UC %#x UD %#x up, peer RC %#x UC %#x UD %#x, "
	       "%u messages\n", p->tag, p->port, rnic_qp_num(p->qp[Q_RC]),
	       rnic_qp_num(p->qp[Q_UC]), rnic_qp_num(p->qp[Q_UD]), p->peer.qpn[Q_RC],
	       p->peer.qpn[Q_UC], p->peer.qpn[Q_UD], n_plan);

	t0 = rte_get_tsc_cycles();
	for (unsigned int i = 0; i < n_plan; i++) {
		int r = p->role == SERVER ? server_item(p, i) : client_item(p, i);

		if (r == 0) {
			p->res.pass++;
			if (p->role == CLIENT || plan[i].kind != K_READ)   /* checked something */
				p->res.msgs++;
			continue;
		}
		p->res.fail++;
		printf("[%s] stopping at message %u (%s %s len %u)\n", p->tag, i,
		       qname[plan[i].q], kname[plan[i].kind], plan[i].len);
		if (r == -1)   /* the link to the peer still works: tell it */
			oob_simple(p, OOB_ABORT, i);
		goto out;
	}
	printf("[%s] %u messages in %.1f ms\n", p->tag, n_plan,
	       (double)(rte_get_tsc_cycles() - t0) * 1e3 / (double)rte_get_tsc_hz());
	if (oob_simple(p, OOB_FIN, 1) != 0 || oob_recv(p, OOB_FIN, 1, &m) != 0)
		goto out;
	if (counters_check(p) == 0)
		p->res.pass++;
	else
		p->res.fail++;
	rc = 0;
out:
	side_close(p, launched);
	p->res.errors = test_verify_failed;
	if (rc != 0 && p->res.errors == 0)   /* no check failed here: the peer's did */
		p->res.errors = 1;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Launcher                                                            */
/* ------------------------------------------------------------------ */

struct child {
	const char *tag;
	pid_t pid;
	int res_fd;
	int status;
	bool reaped;
};

/* The CPUs we may run on, as an EAL cpuset: "(0,1)". */
static void
cpu_list(char *out, size_t n)
{
	cpu_set_t cs;
	size_t o = 0;

	out[0] = '\0';
	if (sched_getaffinity(0, sizeof(cs), &cs) != 0) {
		snprintf(out, n, "0");
		return;
	}
	o += (size_t)snprintf(out + o, n - o, "(");
	for (int c = 0; c < CPU_SETSIZE && o < n - 8; c++)
		if (CPU_ISSET(c, &cs))
			o += (size_t)snprintf(out + o, n - o, "%s%d", out[o - 1] == '(' ? "" : ",", c);
	snprintf(out + o, n - o, ")");
}

static void
runtime_dir(char *out, size_t n, const char *prefix)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		snprintf(out, n, "/var/run/dpdk/%s", prefix);
	else
		snprintf(out, n, "%s/dpdk/%s", xdg != NULL ? xdg : "/tmp", prefix);
}

static int
child_main(enum role role, int fd, int res_fd, const char *sock, const char *prefix,
	   const char *cpus, int n_extra, char **extra, const char *argv0)
{
	struct proc p = { .role = role, .tag = role == SERVER ? "server" : "client", .fd = fd };
	char a_prefix[96], a_lcores[300], a_vdev[300], rdir[200];
	char *eargv[64];
	int eargc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_verify_tag = p.tag;
	snprintf(a_prefix, sizeof(a_prefix), "--file-prefix=%s", prefix);
	{
		int off = snprintf(a_lcores, sizeof(a_lcores), "--lcores=0@%s", cpus);

		for (unsigned int w = 0; w < n_workers && off > 0 && (size_t)off < sizeof(a_lcores);
		     w++)
			off += snprintf(a_lcores + off, sizeof(a_lcores) - (size_t)off, ",%u@%s",
					w + 1, cpus);
	}
	snprintf(a_vdev, sizeof(a_vdev),
		 "--vdev=net_memif0,id=0,role=%s,socket=%s,socket-abstract=no,"
		 "mac=02:00:00:00:00:%02x", role == SERVER ? "server" : "client", sock,
		 role == SERVER ? 1 : 2);
	eargv[eargc++] = (char *)(uintptr_t)argv0;
	eargv[eargc++] = (char *)(uintptr_t)"--no-huge";
	eargv[eargc++] = (char *)(uintptr_t)"--no-pci";
	eargv[eargc++] = (char *)(uintptr_t)"--no-shconf";
	eargv[eargc++] = a_prefix;
	eargv[eargc++] = (char *)(uintptr_t)"-m";
	eargv[eargc++] = (char *)(uintptr_t)"512";
	eargv[eargc++] = (char *)(uintptr_t)"--no-telemetry";
	/* With --no-shconf memif warns that it has no IPC for secondaries.
	 * A PMD loaded as a plugin takes the FIRST matching --log-level. */
	eargv[eargc++] = (char *)(uintptr_t)"--log-level=pmd.net.memif:error";
	eargv[eargc++] = (char *)(uintptr_t)"--log-level=*:warning";
	eargv[eargc++] = a_lcores;
	eargv[eargc++] = a_vdev;
	for (int i = 0; i < n_extra && eargc < (int)RTE_DIM(eargv) - 1; i++)
		eargv[eargc++] = extra[i];
	eargv[eargc] = NULL;

	if (rte_eal_init(eargc, eargv) < 0) {
		printf("[%s] FAIL: EAL init: %s\n", p.tag, rte_strerror(rte_errno));
		p.res.errors = 1;
		p.res.fail = 1;
	} else {
		snprintf(rdir, sizeof(rdir), "%s", rte_eal_get_runtime_dir());
		if (run_side(&p) != 0 && p.res.fail == 0)
			p.res.fail = 1;
		rte_eal_cleanup();
		rmdir(rdir);   /* empty with --no-shconf */
	}
	printf("[%s] verified: messages=%" PRIu64 " bytes=%" PRIu64 " errors=%" PRIu64 "\n",
	       p.tag, p.res.msgs, p.res.bytes, p.res.errors);
	if (write(res_fd, &p.res, sizeof(p.res)) != (ssize_t)sizeof(p.res))
		return 1;
	return p.res.errors || p.res.fail ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct child ch[2] = { { .tag = "server" }, { .tag = "client" } };
	char sock[108], prefix[2][64], cpus[256], rdir[200];
	int sp[2], rp[2][2], n_pass = 0, n_fail = 0, alive = 0, timeout_s = 240;
	int n_extra = 0;
	char **extra = calloc((size_t)argc + 1, sizeof(char *));
	sigset_t chld, old;
	struct timespec t_start, now;
	bool timed_out = false;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--timeout=", 10) == 0)
			timeout_s = atoi(argv[i] + 10);
		else if (strcmp(argv[i], "--engine-port-setup") == 0)
			engine_port_setup = true;   /* inherited by the forked children */
		else if (strncmp(argv[i], "--workers=", 10) == 0) {
			n_workers = (unsigned int)atoi(argv[i] + 10);
			engine_port_setup = true;
			if (n_workers < 1 || n_workers > 8)
				n_workers = 1;
		}
		else
			extra[n_extra++] = argv[i];
	}
	build_plan();
	snprintf(sock, sizeof(sock), "/tmp/rnic-memif-%d.sock", (int)getpid());
	for (int r = 0; r < 2; r++)
		snprintf(prefix[r], sizeof(prefix[r]), "rnic_memif_%d_%s", (int)getpid(),
			 r == SERVER ? "s" : "c");
	cpu_list(cpus, sizeof(cpus));
	unlink(sock);
	printf("memif_pair: %u messages, socket %s, lcores on cpus %s, timeout %d s\n", n_plan,
	       sock, cpus, timeout_s);
	fflush(stdout);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) != 0 || pipe(rp[0]) != 0 ||
	    pipe(rp[1]) != 0) {
		printf("socketpair/pipe: %s\n0 passed, 1 failed\n", strerror(errno));
		return 1;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	for (int r = 0; r < 2; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			printf("fork: %s\n", strerror(errno));
			break;
		}
		if (pid == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			close(sp[1 - r]);
			close(rp[r][0]);
			close(rp[1 - r][0]);
			close(rp[1 - r][1]);
			int rc = child_main((enum role)r, sp[r], rp[r][1], sock, prefix[r], cpus,
					    n_extra, extra, argv[0]);

			free(extra);
			exit(rc);   /* exit, not _exit: LeakSanitizer runs at exit */
		}
		ch[r].pid = pid;
		alive++;
	}
	close(sp[0]);
	close(sp[1]);
	for (int r = 0; r < 2; r++) {
		close(rp[r][1]);
		ch[r].res_fd = rp[r][0];
	}

	/* Wait for both, bounded: SIGCHLD stays blocked and is taken here. */
	while (alive > 0) {
		struct timespec ts;
		double left;
		pid_t pid;
		int st;

		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (int r = 0; r < 2; r++)
				if (ch[r].pid == pid && !ch[r].reaped) {
					ch[r].reaped = true;
					ch[r].status = st;
					alive--;
				}
		if (alive == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_s - (double)(now.tv_sec - t_start.tv_sec) -
		       (double)(now.tv_nsec - t_start.tv_nsec) * 1e-9;
		if (left <= 0) {
			printf("memif_pair: timeout after %d s, killing the children\n", timeout_s);
			timed_out = true;
			for (int r = 0; r < 2; r++)
				if (ch[r].pid > 0 && !ch[r].reaped)
					kill(ch[r].pid, SIGKILL);
			for (int r = 0; r < 2; r++)
				if (ch[r].pid > 0 && !ch[r].reaped) {
					waitpid(ch[r].pid, &ch[r].status, 0);
					ch[r].reaped = true;
				}
			break;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sigtimedwait(&chld, NULL, &ts);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);

	for (int r = 0; r < 2; r++) {
		struct result res;
		bool got = ch[r].pid > 0 &&
			   read(ch[r].res_fd, &res, sizeof(res)) == (ssize_t)sizeof(res);

		if (ch[r].pid <= 0) {
			printf("memif_pair: %s never started\n", ch[r].tag);
			n_fail++;
			continue;
		}
		if (WIFSIGNALED(ch[r].status))
			printf("memif_pair: %s killed by signal %d\n", ch[r].tag,
			       WTERMSIG(ch[r].status));
		else
			printf("memif_pair: %s exited with %d\n", ch[r].tag,
			       WEXITSTATUS(ch[r].status));
		if (got) {
			n_pass += res.pass;
			n_fail += res.fail;
		}
		if (!got || !WIFEXITED(ch[r].status) || WEXITSTATUS(ch[r].status) != 0) {
			if (!got || res.fail == 0)
				n_fail++;
		}
		runtime_dir(rdir, sizeof(rdir), prefix[r]);
		rmdir(rdir);   /* in case the child died before removing it */
	}
	if (timed_out)
		n_fail++;
	unlink(sock);
	printf("memif_pair: %.2f s in all\n", (double)(now.tv_sec - t_start.tv_sec) +
	       (double)(now.tv_nsec - t_start.tv_nsec) * 1e-9);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	free(extra);
	return n_fail ? 1 : 0;
}
