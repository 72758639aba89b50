/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of write_lat over net_memif (doc/benchmarks.md, section 2b
 * and "The floors"): the ping-pong of rnic-perf write_lat -s 2 between a
 * memif client and server process, one thread each, with only what any
 * RoCEv2 engine on DPDK mbufs with a CPU ICRC must do per message:
 *   the client writes the round's byte into its source and sends a WRITE
 *     Only of -s bytes: an mbuf, the headers from a template, the payload
 *     copied, the ICRC sealed (softrnic's rnic_icrc_calc_inplace), a
 *     reference kept for retransmission, rte_eth_tx_burst;
 *   each end receives with rte_eth_rx_burst: the ICRCs of the burst
 *     (softrnic's rnic_pkt_icrc_ahead), the headers (destination MAC and
 *     IP, IPv4 checksum, UDP port), the QP (state, P_Key, PSN) and the MR
 *     (R_Key, PD, access, bounds) from their tables, the payload placed;
 *     an ACK frees the frames it acknowledges;
 *   the server, seeing the byte change, sends it back the same way; each
 *     end acknowledges a WRITE after its own next WRITE went out (as
 *     softrnic does where the application polls the engine), one ACK a
 *     pass.
 * The client reports half of each round trip, as write_lat does:
 * "floor_lat: size=S rounds=N p50_us=X p99_us=Y". It sends a zero byte
 * at the end, which tells the server to exit. No statistics, no timers
 * firing, no other opcodes: a floor for the one-way latency on this
 * machine, not an engine.
 *
 * usage: rnic-bench-floor-lat [EAL args: one lcore, a net_memif port]
 *                              -- --server|--client [-s BYTES] [-D SECONDS]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "floor.h"

#define BURST 32
#define WINDOW 64                   /* unacknowledged WRITEs kept */
#define MR_BYTES 4096
#define LKEY 0x0101
#define RKEY 0x0203
#define IOVA 0x100000
#define LINK_WAIT_S 20
#define SERVER_IDLE_S 30            /* the server's limit without a frame */

struct end {
	uint16_t port;
	uint8_t me;                          /* 1: the client (A), 2: the server */
	uint32_t size;
	struct rte_mempool *pool;
	uint8_t wtmpl[L3 + W_HLEN], atmpl[L3 + A_HLEN];
	uint8_t *src, *dst;                  /* this end's source and target */
	struct fmr *mrs[TABLE];
	struct fqp *qps[TABLE];
	struct fqp qp;
	struct fmr src_mr, dst_mr;
	uint32_t psn, acked;                 /* next PSN, oldest unacknowledged */
	struct rte_mbuf *held[WINDOW];
	struct fqp *ack_owed;
	uint64_t bad;
};

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-bench-floor-lat [EAL args] -- --server|--client "
		"[-s BYTES 1..1024] [-D SECONDS]\n");
	exit(2);
}

static int
end_init(struct end *e, uint16_t port, uint8_t me, uint32_t size)
{
	struct rte_eth_conf conf = { .rxmode = { .mtu = 1500 } };
	static int pd;

	memset(e, 0, sizeof(*e));
	e->port = port;
	e->me = me;
	e->size = size;
	e->pool = rte_pktmbuf_pool_create("floor_lat", 4096, 256, 0,
					  RTE_PKTMBUF_HEADROOM + 4096 + 128, rte_socket_id());
	e->src = rte_zmalloc(NULL, MR_BYTES, 64);
	e->dst = rte_zmalloc(NULL, MR_BYTES, 64);
	if (e->pool == NULL || e->src == NULL || e->dst == NULL)
		return -1;
	floor_tmpl_write(e->wtmpl, size, me == 2);
	floor_tmpl_ack(e->atmpl, me == 2);
	e->src_mr = (struct fmr){ .addr = e->src, .iova = (uint64_t)(uintptr_t)e->src,
				  .length = MR_BYTES, .key = LKEY, .pd = &pd, .valid = 1 };
	e->dst_mr = (struct fmr){ .addr = e->dst, .iova = IOVA, .length = MR_BYTES, .key = RKEY,
				  .access = ACCESS_REMOTE_WRITE, .pd = &pd, .valid = 1 };
	e->mrs[LKEY >> 8] = &e->src_mr;
	e->mrs[RKEY >> 8] = &e->dst_mr;
	e->qp = (struct fqp){ .qpn = QPN, .pkey = 0xffff, .state = QPS_RTS, .pd = &pd };
	e->qps[QPN] = &e->qp;
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, e->pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL) != 0)
		return -1;
	return 0;
}

static bool
link_is(uint16_t port, uint16_t status)
{
	struct rte_eth_link l;

	memset(&l, 0, sizeof(l));
	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == status;
}

/*
 * Start the port and wait for the memif link, as rnic-perf does
 * (perf_engine.c, perf_link_wait): a client whose server is not
 * listening yet fails to start, and one that came too early is turned
 * away for good, so the client (@p redial) retries the start and
 * restarts the port every 2 s while the link is down; the server must
 * not (a restart races memif's handshake in the interrupt thread).
 */
static bool
link_up(uint16_t port, bool redial)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_get_tsc_cycles() + LINK_WAIT_S * hz;
	uint64_t retry = rte_get_tsc_cycles() + 2 * hz;

	while (rte_eth_dev_start(port) != 0) {
		if (!redial || rte_get_tsc_cycles() > end)
			return false;
		rte_delay_ms(100);
	}
	while (!link_is(port, RTE_ETH_LINK_UP)) {
		if (rte_get_tsc_cycles() > end)
			return false;
		if (redial && rte_get_tsc_cycles() > retry) {
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			retry = rte_get_tsc_cycles() + 2 * hz;
		}
		rte_delay_ms(1);
	}
	return true;
}

static void
alarm_cb(void *arg)
{
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

/* Close the port. The server (@p after_peer) waits for the client to
 * close first and for the interrupt thread to be done with the
 * disconnect (net_memif frees its regions there, unlocked against
 * rte_eth_dev_stop): the link down, then an alarm of its own. */
static void
port_close(uint16_t port, bool after_peer)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	static int fired;

	if (after_peer) {
		while (!link_is(port, RTE_ETH_LINK_DOWN) && rte_get_tsc_cycles() < end)
			rte_delay_ms(1);
		if (rte_eal_alarm_set(1, alarm_cb, &fired) == 0)
			while (!__atomic_load_n(&fired, __ATOMIC_ACQUIRE) &&
			       rte_get_tsc_cycles() < end)
				rte_delay_ms(1);
	}
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
}

/* Send this end's source (the byte just written) as a WRITE Only of
 * e->size bytes, kept until acknowledged; false if it could not. */
static bool
send_write(struct end *e)
{
	const uint8_t *src = mr_check(e->mrs, LKEY, e->src_mr.pd, 0,
				      (uint64_t)(uintptr_t)e->src, e->size);
	struct rte_mbuf *m;

	if (src == NULL || ((e->psn - e->acked) & RNIC_PSN_MASK) >= WINDOW ||
	    (m = rte_pktmbuf_alloc(e->pool)) == NULL)
		return false;
	m->data_len = (uint16_t)floor_write_build(rte_pktmbuf_mtod(m, uint8_t *), e->wtmpl, e->psn,
						  true, IOVA, RKEY, src, e->size);
	m->pkt_len = m->data_len;
	rte_mbuf_refcnt_update(m, 1);   /* kept until acknowledged */
	if (rte_eth_tx_burst(e->port, 0, &m, 1) != 1) {
		rte_mbuf_refcnt_update(m, -1);
		rte_pktmbuf_free(m);
		return false;
	}
	e->held[e->psn % WINDOW] = m;
	e->psn = (e->psn + 1) & RNIC_PSN_MASK;
	return true;
}

/* The ACK owed for the WRITEs received, if any. */
static void
send_ack(struct end *e)
{
	struct fqp *qp = e->ack_owed;
	struct rte_mbuf *m;

	if (qp == NULL || (m = rte_pktmbuf_alloc(e->pool)) == NULL)
		return;
	m->data_len = (uint16_t)floor_ack_build(rte_pktmbuf_mtod(m, uint8_t *), e->atmpl,
						(qp->epsn - 1) & RNIC_PSN_MASK, qp->msn);
	m->pkt_len = m->data_len;
	if (rte_eth_tx_burst(e->port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return;   /* owed still */
	}
	e->ack_owed = NULL;
}

/* One receive pass: WRITEs placed (their ACK owed), ACKs taken. */
static unsigned int
poll_rx(struct end *e)
{
	struct rte_mbuf *m[BURST];
	uint64_t ahead[BURST];
	unsigned int n = rte_eth_rx_burst(e->port, 0, m, BURST);

	if (n == 0)
		return 0;
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint32_t len = m[i]->data_len, psn;
		bool ackreq = false;

		if (floor_opcode(f, len) == RNIC_OP_ACK) {
			struct rte_mbuf *done[WINDOW];
			uint32_t upto, k = 0;

			if (!floor_ack_rx(f, len, ahead[i], e->me, &psn)) {
				e->bad++;
				continue;
			}
			upto = (psn + 1) & RNIC_PSN_MASK;
			if (((upto - e->acked) & RNIC_PSN_MASK) > ((e->psn - e->acked) & RNIC_PSN_MASK))
				continue;   /* not of an outstanding PSN */
			for (; e->acked != upto; e->acked = (e->acked + 1) & RNIC_PSN_MASK)
				done[k++] = e->held[e->acked % WINDOW];
			rte_pktmbuf_free_bulk(done, k);
		} else {
			struct fqp *qp = floor_write_rx(f, len, ahead[i], e->qps, e->mrs, e->me,
							&ackreq);

			if (qp == NULL)
				e->bad++;
			else if (ackreq)
				e->ack_owed = qp;
		}
	}
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The client: rounds for @p secs after a warm-up, the half round trips
 * in TSC cycles into @p v (at most @p cap); their number, or -1. */
static long
client(struct end *e, double secs, uint64_t *v, size_t cap)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_get_tsc_cycles();
	uint64_t t_meas = start + hz / 2, t_end = t_meas + (uint64_t)(secs * (double)hz);
	volatile const uint8_t *seen = e->dst + e->size - 1;
	size_t n = 0;

	for (uint64_t i = 0;; i++) {
		uint8_t b = (uint8_t)(i % 250 + 1);
		uint64_t t0, t1, deadline;

		e->src[e->size - 1] = b;
		t0 = rte_get_tsc_cycles();
		deadline = t0 + 10 * hz;
		if (!send_write(e))
			return -1;
		send_ack(e);   /* for the server's last WRITE: after this one */
		while (*seen != b) {
			poll_rx(e);
			if (rte_get_tsc_cycles() > deadline) {
				fprintf(stderr, "rnic-bench-floor-lat: no answer for 10 s\n");
				return -1;
			}
		}
		t1 = rte_get_tsc_cycles();
		if (t0 >= t_meas && n < cap)
			v[n++] = (t1 - t0) / 2;
		if (t1 >= t_end)
			break;
	}
	/* The end: a zero byte; the server exits when it sees it. */
	e->src[e->size - 1] = 0;
	if (!send_write(e))
		return -1;
	send_ack(e);
	return (long)n;
}

/* The server: answers each new byte with its own WRITE until a zero. */
static int
server(struct end *e)
{
	volatile const uint8_t *seen = e->dst + e->size - 1;
	uint64_t hz = rte_get_tsc_hz(), idle_end = rte_get_tsc_cycles() + SERVER_IDLE_S * hz;
	uint8_t last = 0;

	for (;;) {
		if (poll_rx(e) != 0)
			idle_end = rte_get_tsc_cycles() + SERVER_IDLE_S * hz;
		else if (rte_get_tsc_cycles() > idle_end)
			return -1;
		if (*seen == last)
			continue;
		last = *seen;
		if (last == 0)
			return 0;
		memcpy(e->src, e->dst, e->size);
		if (!send_write(e))
			return -1;
		send_ack(e);   /* for the client's WRITE: after the answer */
	}
}

int
main(int argc, char **argv)
{
	int eal = rte_eal_init(argc, argv), c, is_server = -1, rc;
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 'S' }, { "client", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	static struct end e;
	uint32_t size = 2;
	double secs = 3;
	uint64_t *v;
	long n;

	if (eal < 0) {
		fprintf(stderr, "rnic-bench-floor-lat: EAL init failed\n");
		return 2;
	}
	argc -= eal;
	argv += eal;
	while ((c = getopt_long(argc, argv, "s:D:", lo, NULL)) != -1) {
		switch (c) {
		case 'S': is_server = 1; break;
		case 'C': is_server = 0; break;
		case 's': size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'D': secs = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	if (is_server < 0 || size == 0 || size > 1024 || secs <= 0 ||
	    rte_eth_dev_count_avail() == 0)
		usage();
	if (end_init(&e, 0, is_server ? 2 : 1, size) != 0 || !link_up(0, !is_server)) {
		fprintf(stderr, "rnic-bench-floor-lat: port 0 not set up or its link not up\n");
		return 1;
	}
	if (is_server) {
		rc = server(&e);
		if (rc != 0 || e.bad)
			fprintf(stderr, "rnic-bench-floor-lat: server %s, %" PRIu64 " bad frames\n",
				rc ? "stopped" : "done", e.bad);
		port_close(0, true);
		/* No rte_eal_cleanup for the memif server, as in rnic-perf
		 * (rnic_perf.c): DPDK 22.11's net_memif frees its listener's
		 * interrupt handle on close without unregistering it, and
		 * the cleanup unmaps memory while the interrupt thread may
		 * still read that handle (SIGSEGV in rte_intr_fd_get, about
		 * one run in ten here). */
		fflush(NULL);
		_exit(rc != 0 || e.bad ? 1 : 0);
	}
	v = malloc(sizeof(*v) * (size_t)(secs * 4e6 + 16));
	if (v == NULL)
		return 1;
	n = client(&e, secs, v, (size_t)(secs * 4e6 + 16));
	if (n <= 0 || e.bad) {
		fprintf(stderr, "rnic-bench-floor-lat: %ld rounds, %" PRIu64 " bad frames\n", n,
			e.bad);
		return 1;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	printf("floor_lat: size=%u rounds=%ld p50_us=%.3f p99_us=%.3f\n", size, n,
	       (double)v[n / 2] * 1e6 / (double)rte_get_tsc_hz(),
	       (double)v[(size_t)((double)n * 0.99)] * 1e6 / (double)rte_get_tsc_hz());
	free(v);
	port_close(0, false);
	rte_eal_cleanup();
	return 0;
}
