/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perftest-peer: the peer of perftest's ib_write_bw / ib_read_bw
 * (linux-rdma/perftest, "Data ex. method: Ethernet") on a softrnic engine
 * (issue 7, doc/interop.md).
 *
 *   rnic-perftest-peer [EAL args] -- --test write|read [-s size] [-n iters]
 *                      [-t tx_depth] [-p tcp_port] [--ip A.B.C.D]
 *                      [--port-id N] [--timeout secs] [server_ip]
 *
 * Without server_ip softrnic is the server (the guest runs
 * "ib_write_bw -d rxe0 -x 1 <softrnic host ip>"); with it softrnic is the
 * client of a guest "ib_write_bw -d rxe0 -x 1" server.
 *
 * Out-of-band exchange (TCP, default port 18515, over the host kernel
 * stack), as perftest 6.x does it for a half-duplex BW test: every
 * exchange is "client writes, then reads; server reads, then writes", each
 * message read/written whole:
 *   1. version string, 16 bytes ("6.06", NUL padded; peers refuse < 5.70)
 *   2. cycle buffer (page size) and cache line size, 4 bytes each, big endian
 *   3. MTU as the decimal enum ibv_mtu value, 2 bytes ("3" = 1024)
 *   4. QP record, 108 bytes: "%04x:%04x:%06x:%06x:%08x:%016llx:" LID,
 *      out_reads, QPN, PSN, RKey, VAddr, then the 16 GID bytes "%02x:" each,
 *      then "%08x:" SRQN (perftest's KEY_PRINT_FMT_GID, a NUL at the end);
 *      then both sides connect their QPs
 *   5. the same record twice more (print, then "after RTR" sync)
 *   6. the client runs; then one record exchange (the server waits in it)
 *   7. BW reports: size, iters (8 bytes each), peak, average (MB/s) and
 *      message rate (Mpps) as big-endian doubles
 *   8. close: one more record exchange, then each side writes "done\0".
 *
 * The engine is polled from this one thread during every socket wait.
 * Checks: as the client, every WR completes with success (iters of them);
 * for read the bytes read must differ from the local fill pattern unless the
 * guest's buffer happens to hold it. As the server, the QP must stay
 * healthy (no async error) and, for write, the first message bytes must have
 * been overwritten. Prints "verified: ops=N bytes=B errors=E".
 */
#include <arpa/inet.h>
#include <byteswap.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "rnic_verbs.h"

#define REC_LEN 108          /* KEY_MSG_SIZE_GID */
#define VER_LEN 16           /* MAX_VERSION */
#define PT_VERSION "6.06"
#define FILL 0x7b
#define MAX_RD 16            /* softrnic's max (dest) rd_atomic */
#define CYCLE 4096           /* our page size (perftest's cycle buffer) */

enum test { T_WRITE, T_READ };

struct opts {
	enum test test;
	uint32_t size, iters, tx_depth;
	uint16_t tcp_port, port_id;
	rte_be32_t ip;
	unsigned int timeout_s;
	const char *server;
};

struct dest {
	uint32_t lid, out_reads, qpn, psn, rkey, srqn;
	uint64_t vaddr;
	uint8_t gid[16];
};

static struct rnic_device *dev;
static uint64_t deadline;
static int sock = -1;
static bool is_client;

static void
engine_poll(void)
{
	rnic_dev_poll_tx(dev);
	rnic_dev_poll_rx(dev);
	rnic_dev_poll_timer(dev);
}

static bool
expired(void)
{
	return rte_get_tsc_cycles() > deadline;
}

static int
wait_fd(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };

	while (!expired()) {
		int n = poll(&p, 1, 1);

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
		engine_poll();
	}
	errno = ETIMEDOUT;
	return -1;
}

static int
xfer(void *buf, size_t len, bool wr)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;

		if (wait_fd(sock, wr ? POLLOUT : POLLIN) != 0)
			return -1;
		n = wr ? write(sock, (char *)buf + done, len - done) :
			 read(sock, (char *)buf + done, len - done);
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* perftest's ctx_xchg_data: the client writes first, the server reads first. */
static int
xchg(const void *mine, void *theirs, size_t len)
{
	if (is_client)
		return xfer((void *)(uintptr_t)mine, len, true) || xfer(theirs, len, false) ? -1 : 0;
	return xfer(theirs, len, false) || xfer((void *)(uintptr_t)mine, len, true) ? -1 : 0;
}

static void
rec_fmt(const struct dest *d, char rec[REC_LEN])
{
	int o;

	memset(rec, 0, REC_LEN);
	o = snprintf(rec, REC_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":", d->lid,
		     d->out_reads, d->qpn, d->psn, d->rkey, d->vaddr);
	for (int i = 0; i < 16; i++)
		o += snprintf(rec + o, REC_LEN - o, "%02x:", d->gid[i]);
	snprintf(rec + o, REC_LEN - o, "%08x:", d->srqn);
}

static int
rec_parse(const char rec[REC_LEN], struct dest *d)
{
	char buf[REC_LEN + 1], *save = NULL, *tok;
	unsigned long long v[23];
	int n = 0;

	memcpy(buf, rec, REC_LEN);
	buf[REC_LEN] = '\0';
	for (tok = strtok_r(buf, ":", &save); tok != NULL && n < 23;
	     tok = strtok_r(NULL, ":", &save)) {
		char *end;

		v[n++] = strtoull(tok, &end, 16);
		if (*end != '\0')
			return -1;
	}
	if (n != 23)
		return -1;
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	for (int i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)v[6 + i];
	d->srqn = (uint32_t)v[22];
	return 0;
}

static int
hand_shake(const struct dest *me, struct dest *rem)
{
	char mine[REC_LEN], theirs[REC_LEN];
	struct dest tmp;

	rec_fmt(me, mine);
	if (xchg(mine, theirs, REC_LEN) != 0) {
		perror("rnic-perftest-peer: QP record exchange");
		return -1;
	}
	if (rec_parse(theirs, rem ? rem : &tmp) != 0) {
		fprintf(stderr, "rnic-perftest-peer: couldn't parse <%.*s>\n", REC_LEN, theirs);
		return -1;
	}
	return 0;
}

static uint64_t
be_u64(uint64_t v)
{
	return rte_cpu_to_be_64(v);
}

static uint64_t
be_dbl(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return rte_cpu_to_be_64(u);
}

static double
dbl_be(uint64_t u)
{
	double d;

	u = rte_be_to_cpu_64(u);
	memcpy(&d, &u, 8);
	return d;
}

static int
xchg_reports(uint64_t size, uint64_t iters, double bw, double rate, double *rem_bw)
{
	uint64_t m[5] = { be_u64(size), be_u64(iters), be_dbl(bw), be_dbl(bw), be_dbl(rate) };
	uint64_t r[5];

	for (int i = 0; i < 5; i++)
		if (xchg(&m[i], &r[i], 8) != 0)
			return -1;
	*rem_bw = dbl_be(r[3]);
	return 0;
}

static int
connect_qp(struct rnic_qp *qp, const struct dest *me, const struct dest *rem)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct rnic_qp_attr a = { 0 };
	rte_be32_t rip;
	int rc;

	if (memcmp(rem->gid, v4mapped, 12) != 0) {
		fprintf(stderr, "rnic-perftest-peer: the peer's GID is not IPv4-mapped (run "
			"perftest with -x 1: RoCEv2 ::ffff:a.b.c.d)\n");
		return -1;
	}
	memcpy(&rip, rem->gid + 12, 4);
	a.ah_attr.dip = rip;
	a.ah_attr.ttl = 64;
	rc = rnic_dev_arp_resolve(dev, rip, a.ah_attr.dmac, 5000);
	if (rc != 0) {
		fprintf(stderr, "rnic-perftest-peer: ARP: %s\n", strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = RNIC_MTU_1024;
	a.dest_qp_num = rem->qpn;
	a.rq_psn = rem->psn;
	a.max_dest_rd_atomic = MAX_RD;
	a.min_rnr_timer = 12;
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
			    RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC |
			    RNIC_QP_MIN_RNR_TIMER);
	if (rc != 0) {
		fprintf(stderr, "rnic-perftest-peer: modify QP to RTR: %s\n", strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = me->psn;
	a.timeout = 17;          /* ~0.5 s: TCG guests are slow */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = (uint8_t)RTE_MAX(1u, RTE_MIN(rem->out_reads, (uint32_t)MAX_RD));
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			    RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
	if (rc != 0) {
		fprintf(stderr, "rnic-perftest-peer: modify QP to RTS: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

static int
open_sock(const struct opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(o->tcp_port) };
	int lfd, one = 1;

	if (o->server != NULL) {
		if (inet_pton(AF_INET, o->server, &sa.sin_addr) != 1)
			return -1;
		for (;;) {
			sock = socket(AF_INET, SOCK_STREAM, 0);
			if (sock < 0)
				return -1;
			if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)) == 0)
				break;
			close(sock);
			sock = -1;
			if (expired()) {
				fprintf(stderr, "rnic-perftest-peer: couldn't connect to %s:%u\n",
					o->server, o->tcp_port);
				return -1;
			}
			for (int i = 0; i < 200; i++) {
				engine_poll();
				usleep(500);
			}
		}
	} else {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0)
			return -1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 1) != 0) {
			fprintf(stderr, "rnic-perftest-peer: couldn't listen to port %u: %s\n",
				o->tcp_port, strerror(errno));
			close(lfd);
			return -1;
		}
		printf("rnic-perftest-peer: listening on port %u\n", o->tcp_port);
		fflush(stdout);
		if (wait_fd(lfd, POLLIN) != 0 || (sock = accept(lfd, NULL, NULL)) < 0) {
			perror("rnic-perftest-peer: accept");
			close(lfd);
			return -1;
		}
		close(lfd);
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* Steps 1-3: versions, cycle buffer + cache line, MTU. */
static int
prelude(void)
{
	char my_ver[VER_LEN] = PT_VERSION, rem_ver[VER_LEN + 1] = { 0 };
	uint32_t m[2] = { htonl(CYCLE), htonl(64) }, r[2];
	char my_mtu[2] = "3", rem_mtu[2];

	if (xchg(my_ver, rem_ver, VER_LEN) != 0)
		return -1;
	printf("  remote perftest version: %s\n", rem_ver);
	if (atof(rem_ver) < 5.70) {
		fprintf(stderr, "rnic-perftest-peer: perftest version %s < 5.70 not supported\n",
			rem_ver);
		return -1;
	}
	if (xchg(&m[0], &r[0], 4) != 0 || xchg(&m[1], &r[1], 4) != 0 ||
	    xchg(my_mtu, rem_mtu, 2) != 0)
		return -1;
	printf("  remote cycle buffer %u, cache line %u, MTU enum %.1s\n", ntohl(r[0]),
	       ntohl(r[1]), rem_mtu);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-perftest-peer [EAL args] -- --test write|read [-s size] "
		"[-n iters] [-t tx_depth] [-p tcp_port] [--ip A.B.C.D] [--port-id N] "
		"[--timeout secs] [server_ip]\n");
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "test", required_argument, NULL, 'X' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "ip", required_argument, NULL, 'I' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .test = T_WRITE, .size = 65536, .iters = 1000, .tx_depth = 64,
			    .tcp_port = 18515, .timeout_s = 120 };
	o->ip = inet_addr("10.99.0.2");
	while ((c = getopt_long(argc, argv, "s:n:t:p:", lo, NULL)) != -1) {
		switch (c) {
		case 'X':
			if (strcmp(optarg, "write") == 0)
				o->test = T_WRITE;
			else if (strcmp(optarg, "read") == 0)
				o->test = T_READ;
			else
				return -1;
			break;
		case 's': o->size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': o->iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': o->tx_depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': o->tcp_port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'I':
			if (inet_pton(AF_INET, optarg, &o->ip) != 1)
				return -1;
			break;
		case 'P': o->port_id = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'T': o->timeout_s = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	if (optind == argc - 1)
		o->server = argv[optind];
	else if (optind < argc)
		return -1;
	if (o->size == 0 || o->size > (1u << 23) || o->iters == 0 || o->tx_depth == 0 ||
	    o->tx_depth > 512)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *tn[] = { [T_WRITE] = "RDMA_Write", [T_READ] = "RDMA_Read" };
	struct rnic_qp_init_attr qa = { 0 };
	struct rnic_qp_attr a = { 0 };
	struct dest me = { 0 }, rem = { 0 };
	struct rnic_dev_attr da = { 0 };
	uint32_t posted = 0, done = 0, errors = 0;
	uint64_t bytes_ok = 0, region;
	double usec = 0, rem_bw = 0;
	struct timeval t0, t1;
	struct rnic_mr *mr;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	uint8_t *buf;
	struct opts o;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rnic-perftest-peer: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	if (parse_args(argc, argv, &o) != 0) {
		usage();
		return 1;
	}
	is_client = o.server != NULL;
	if (!rte_eth_dev_is_valid_port(o.port_id)) {
		fprintf(stderr, "rnic-perftest-peer: no port %u (add --vdev=net_af_packet0,"
			"iface=rxeveth0p)\n", o.port_id);
		return 1;
	}
	da.port_id = o.port_id;
	da.ipv4 = o.ip;
	da.mtu = 1024;
	da.mbufs = 8192;
	da.max_qps = 16;
	dev = rnic_dev_create(&da);
	if (dev == NULL) {
		fprintf(stderr, "rnic-perftest-peer: device: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rnic_dev_set_polled(dev, false);
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz() * o.timeout_s;

	/* perftest's BUFF_SIZE(size, cycle buffer), twice: local + remote halves. */
	region = RTE_MAX((uint64_t)o.size, (uint64_t)CYCLE);
	buf = aligned_alloc(4096, RTE_ALIGN_CEIL(2 * region, 4096));
	if (buf == NULL)
		return 1;
	memset(buf, FILL, 2 * region);
	pd = rnic_alloc_pd(dev);
	mr = pd ? rnic_reg_mr(pd, buf, 2 * region, RNIC_ACCESS_LOCAL_WRITE |
			      RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			      RNIC_ACCESS_REMOTE_ATOMIC) : NULL;
	cq = rnic_create_cq(dev, o.tx_depth + 16);
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = RNIC_QPT_RC;
	qa.cap = (struct rnic_qp_cap){ .max_send_wr = o.tx_depth, .max_recv_wr = 1,
				       .max_send_sge = 1, .max_recv_sge = 1 };
	qp = mr && cq ? rnic_create_qp(pd, &qa) : NULL;
	if (qp == NULL) {
		fprintf(stderr, "rnic-perftest-peer: PD/MR/CQ/QP: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	a.qp_state = RNIC_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC;
	if (rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			   RNIC_QP_ACCESS_FLAGS) != 0) {
		fprintf(stderr, "rnic-perftest-peer: modify QP to INIT failed\n");
		return 1;
	}

	srand48(getpid() * time(NULL));
	me.qpn = rnic_qp_num(qp);
	me.psn = lrand48() & 0xffffff;
	me.out_reads = MAX_RD;
	me.rkey = rnic_mr_rkey(mr);
	me.vaddr = (uintptr_t)buf + region;  /* the remote half, as perftest */
	me.gid[10] = me.gid[11] = 0xff;
	memcpy(me.gid + 12, &o.ip, 4);
	printf("  %s BW, softrnic %s, size %u, iters %u\n", tn[o.test],
	       is_client ? "client" : "server", o.size, o.iters);
	printf("  local address:  QPN 0x%06x, PSN 0x%06x, OUT 0x%02x, RKey 0x%08x, "
	       "VAddr 0x%016" PRIx64 ", GID ::ffff:%u.%u.%u.%u\n", me.qpn, me.psn, me.out_reads,
	       me.rkey, me.vaddr, me.gid[12], me.gid[13], me.gid[14], me.gid[15]);
	fflush(stdout);

	if (open_sock(&o) != 0 || prelude() != 0 || hand_shake(&me, &rem) != 0)
		return 1;
	printf("  remote address: QPN 0x%06x, PSN 0x%06x, OUT 0x%02x, RKey 0x%08x, "
	       "VAddr 0x%016" PRIx64 ", GID ::ffff:%u.%u.%u.%u\n", rem.qpn, rem.psn,
	       rem.out_reads, rem.rkey, rem.vaddr, rem.gid[12], rem.gid[13], rem.gid[14],
	       rem.gid[15]);
	fflush(stdout);
	if (connect_qp(qp, &me, &rem) != 0)
		return 1;
	/* the "print" exchange, then the one after RTR */
	if (hand_shake(&me, NULL) != 0 || hand_shake(&me, NULL) != 0)
		return 1;

	gettimeofday(&t0, NULL);
	if (is_client) {
		struct rnic_sge sge = { .addr = (uintptr_t)buf, .length = o.size,
					.lkey = rnic_mr_lkey(mr) };

		if (o.test == T_READ)
			memset(buf, FILL, o.size);
		while (done < o.iters && errors == 0) {
			struct rnic_wc wc[32];

			while (posted < o.iters && posted - done < o.tx_depth) {
				struct rnic_send_wr wr = {
					.wr_id = posted, .sg_list = &sge, .num_sge = 1,
					.opcode = o.test == T_WRITE ? RNIC_WR_RDMA_WRITE :
								      RNIC_WR_RDMA_READ,
					.send_flags = RNIC_SEND_SIGNALED,
				}, *bad;

				wr.wr.rdma.remote_addr = rem.vaddr;
				wr.wr.rdma.rkey = rem.rkey;
				if (rnic_post_send(qp, &wr, &bad) != 0) {
					fprintf(stderr, "rnic-perftest-peer: post_send failed\n");
					errors++;
					break;
				}
				posted++;
			}
			engine_poll();
			n = rnic_poll_cq(cq, RTE_DIM(wc), wc);
			if (n == 0 && expired()) {
				fprintf(stderr, "rnic-perftest-peer: timed out after %u s: %u of %u "
					"completed\n", o.timeout_s, done, o.iters);
				errors++;
				break;
			}
			for (int i = 0; i < n; i++) {
				if (wc[i].status != RNIC_WC_SUCCESS) {
					fprintf(stderr, "rnic-perftest-peer: WR %" PRIu64 ": %s (%d)\n",
						wc[i].wr_id, rnic_wc_status_str(wc[i].status),
						wc[i].status);
					errors++;
					continue;
				}
				done++;
				bytes_ok += o.size;
			}
		}
		gettimeofday(&t1, NULL);
		usec = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_usec - t0.tv_usec);
		if (o.test == T_READ && errors == 0) {
			uint32_t same = 0;

			for (uint32_t k = 0; k < o.size; k++)
				same += buf[k] == FILL;
			printf("  read data: %u of %u bytes differ from the local fill\n",
			       o.size - same, o.size);
		}
	}
	/* Client: end-of-run sync; server: waits here (polling) for the client. */
	if (hand_shake(&me, NULL) != 0)
		errors++;
	if (!is_client) {
		gettimeofday(&t1, NULL);
		usec = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_usec - t0.tv_usec);
	}
	{
		double mbs = usec > 0 ? (double)o.size * done / usec : 0;  /* MB/s, 1e6 */
		double rate = usec > 0 ? done / usec : 0;                  /* Mpps */

		if (errors == 0 && xchg_reports(o.size, is_client ? done : o.iters,
						mbs * 1e6 / 1048576.0, rate, &rem_bw) != 0)
			errors++;
	}
	if (errors == 0 && hand_shake(&me, NULL) != 0)
		errors++;
	if (errors == 0 && xfer((char *)"done", 5, true) != 0)
		errors++;
	{
		char tail[8];
		(void)!xfer(tail, 5, false);  /* the peer's "done"; it may just close */
	}
	close(sock);

	if (!is_client) {
		struct rnic_qp_attr qa2;
		struct rnic_qp_init_attr ia;

		if (rnic_query_qp(qp, &qa2, RNIC_QP_STATE, &ia) == 0 &&
		    qa2.qp_state != RNIC_QPS_RTS) {
			fprintf(stderr, "rnic-perftest-peer: QP in state %d after the run\n",
				qa2.qp_state);
			errors++;
		}
		if (o.test == T_WRITE) {
			uint32_t same = 0, len = RTE_MIN(o.size, (uint32_t)region);

			for (uint32_t k = 0; k < len; k++)
				same += buf[region + k] == FILL;
			printf("  written data: %u of %u bytes overwritten\n", len - same, len);
			if (len >= 16 && same == len) {
				fprintf(stderr, "rnic-perftest-peer: nothing was written\n");
				errors++;
			}
		}
		done = errors == 0 ? o.iters : 0;
		bytes_ok = (uint64_t)done * o.size;
		printf("  client reported: %.2f MB/s\n", rem_bw);
	} else {
		printf("  %u ops of %u B in %.3f s = %.3f Gbit/s, %.4f Mpps\n", done, o.size,
		       usec / 1e6, usec > 0 ? bytes_ok * 8e-3 / usec : 0,
		       usec > 0 ? done / usec : 0);
	}
	/* Let the last ACKs and responses leave. */
	{
		uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;

		while (rte_get_tsc_cycles() < end)
			engine_poll();
	}
	printf("verified: ops=%u bytes=%" PRIu64 " errors=%u\n", done, bytes_ok, errors);
	fflush(stdout);
	rnic_destroy_qp(qp);
	rnic_destroy_cq(cq);
	rnic_dereg_mr(mr);
	rnic_dealloc_pd(pd);
	rnic_dev_destroy(dev);
	rte_eal_cleanup();
	return errors == 0 && done == o.iters ? 0 : 1;
}
