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
 * With --bw, the floor of rnic-perf write_bw over net_memif instead (the
 * bench's memif section), in the same processes and placement: the
 * client (one thread, as rnic-perf's, where the application and the
 * engine take turns) writes 64-byte work requests into a send queue of
 * 128 and stores its producer index, a completion every 32; its
 * requester reads them, checks the source MR and sends WRITE Onlys as
 * above, in bursts of up to 32 (rte_pktmbuf_alloc_bulk, one
 * rte_eth_tx_burst), at most 64 unacknowledged, AckReq on the last of a
 * burst; the server receives as above and sends one ACK a receive pass;
 * the client's ACKs free the frames and write the completions of the
 * signaled requests. Each WRITE carries its number in its first 8 bytes
 * (the application writes it into the source, at the request's offset
 * of a 1 MiB MR); the server checks, each pass, that the last WRITE
 * placed holds the number it counted. A last WRITE numbered all ones,
 * posted at the end, tells it to exit; it then checks that each slot of
 * its target holds the number of the last WRITE to it. The client
 * reports "floor_bw: size=S msgs=N secs=T msgs_per_s=X", the requests
 * completed in -D seconds after half a second of warm-up.
 *
 * usage: rnic-bench-floor-lat [EAL args: one lcore, a net_memif port]
 *                              -- --server|--client [--bw] [-s BYTES] [-D SECONDS]
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
#define MR_BYTES (1u << 20)
#define MAX_SIZE 4096               /* --bw; the latency's -s up to 1024 */
#define SQ_DEPTH 128                /* --bw: rnic-perf's -t 128 */
#define CQ_MOD 32                   /* --bw: and its -Q 32 */
#define END_MARK UINT64_MAX         /* --bw: the last WRITE's number */
#define LKEY 0x0101
#define RKEY 0x0203
#define IOVA 0x100000
#define LINK_WAIT_S 20
#define SERVER_IDLE_S 30            /* the server's limit without a frame */
#define TX_WAIT_S 5                 /* a WRITE's limit for the port to take it */

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
	/* --bw: (signaled << 63) | wr_id of each held frame, by PSN; the
	 * completions written (wr_ids) for the application to read. */
	uint64_t held_wr[WINDOW];
	uint64_t cq[WINDOW];
	uint32_t cq_pi;
	uint32_t fetched;                    /* --bw: requests taken from the SQ */
	struct fqp *ack_owed;
	uint64_t placed, bad;
};

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-bench-floor-lat [EAL args] -- --server|--client [--bw] "
		"[-s BYTES 1..1024, with --bw 8..%u] [-D SECONDS]\n", MAX_SIZE);
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
					  RTE_PKTMBUF_HEADROOM + MAX_SIZE + 128, rte_socket_id());
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
	/* The port may take nothing for a while: net_memif's server sends
	 * only into the slots its client's rx_burst handed back, none before
	 * the client's first (the client sends before it receives), so a
	 * client preempted there leaves the server's first answer waiting.
	 * Retried, for at most TX_WAIT_S. */
	for (uint64_t end = rte_get_tsc_cycles() + TX_WAIT_S * rte_get_tsc_hz();
	     rte_eth_tx_burst(e->port, 0, &m, 1) != 1;) {
		if (rte_get_tsc_cycles() > end) {
			fprintf(stderr, "rnic-bench-floor-lat: port took no frame for %d s\n",
				TX_WAIT_S);
			rte_mbuf_refcnt_update(m, -1);
			rte_pktmbuf_free(m);
			return false;
		}
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

		/* --bw's longer frames: their ICRC now, as softrnic's parse
		 * computes it past RNIC_ICRC_AHEAD_MAX */
		if (ahead[i] == 0 && m[i]->nb_segs == 1 && len > RNIC_ICRC_AHEAD_MAX)
			ahead[i] = (UINT64_C(1) << 32) | rnic_icrc_calc_buf(f, L3, len);

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
			for (; e->acked != upto; e->acked = (e->acked + 1) & RNIC_PSN_MASK) {
				uint64_t wr = e->held_wr[e->acked % WINDOW];

				done[k++] = e->held[e->acked % WINDOW];
				if (wr >> 63)   /* never full: WINDOW completions */
					e->cq[e->cq_pi++ % WINDOW] = wr & ~(UINT64_C(1) << 63);
			}
			rte_pktmbuf_free_bulk(done, k);
		} else {
			struct fqp *qp = floor_write_rx(f, len, ahead[i], e->qps, e->mrs, e->me,
							&ackreq);

			if (qp == NULL) {
				e->bad++;
				continue;
			}
			e->placed++;
			if (ackreq)
				e->ack_owed = qp;
		}
	}
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

/*
 * --bw: send the requests posted in @p sq (up to @p posted) as WRITE
 * Onlys, at most BURST and the window's room, AckReq on the last; how
 * many went out. The rest wait for the next pass.
 */
static unsigned int
send_writes(struct end *e, const struct wqe *sq, uint32_t posted)
{
	uint32_t inflight = (e->psn - e->acked) & RNIC_PSN_MASK;
	unsigned int n = RTE_MIN(RTE_MIN((uint32_t)BURST, WINDOW - inflight), posted - e->fetched);
	struct rte_mbuf *m[BURST];
	unsigned int sent;

	if (n == 0 || rte_pktmbuf_alloc_bulk(e->pool, m, n) != 0)
		return 0;
	if (!floor_writes_build(m, n, sq, SQ_DEPTH, e->fetched, e->psn, e->wtmpl, e->mrs,
				e->src_mr.pd, e->held, e->held_wr, WINDOW - 1)) {
		e->bad++;   /* the application's own MR: never */
		return 0;
	}
	sent = rte_eth_tx_burst(e->port, 0, m, (uint16_t)n);
	floor_unsent_free(m, sent, n);   /* built again next time */
	e->fetched += sent;
	e->psn = (e->psn + sent) & RNIC_PSN_MASK;
	return sent;
}

/* --bw: the application's request number @p k, numbered in its payload,
 * into @p sq; the last (@p k's payload END_MARK) too. */
static void
post_write(struct end *e, struct wqe *sq, uint32_t k, uint64_t num)
{
	uint64_t off = (uint64_t)(k % (MR_BYTES / e->size)) * e->size;
	struct wqe *w = &sq[k % SQ_DEPTH];

	memcpy(e->src + off, &num, sizeof(num));
	w->wr_id = k;
	w->laddr = (uint64_t)(uintptr_t)(e->src + off);
	w->raddr = IOVA + off;
	w->len = e->size;
	w->lkey = LKEY;
	w->rkey = RKEY;
	w->signaled = (k + 1) % CQ_MOD == 0 || num == END_MARK;
}

/*
 * --bw, the client: post, send, take the ACKs, one thread, for half a
 * second and then @p secs; then the END_MARK request once the others
 * went out, and every completion. The requests completed in the measured
 * interval into *@p msgs and its TSC cycles into *@p cycles; 0, or -1
 * when no ACK came for 10 s.
 */
static int
client_bw(struct end *e, double secs, uint64_t *msgs, uint64_t *cycles)
{
	static struct wqe sq[SQ_DEPTH];
	uint64_t hz = rte_get_tsc_hz(), now = rte_get_tsc_cycles();
	uint64_t t_meas = now + hz / 2, t_end = t_meas + (uint64_t)(secs * (double)hz);
	uint64_t t0 = 0, done0 = 0, progress = now;
	uint32_t posted = 0, done = 0, cq_ci = 0, acked = e->acked;
	bool ending = false;

	for (;;) {
		while (cq_ci != e->cq_pi)
			done = (uint32_t)e->cq[cq_ci++ % WINDOW] + 1;
		if (ending && done == posted)
			return 0;
		now = rte_get_tsc_cycles();
		if (!ending && t0 == 0 && now >= t_meas) {
			t0 = now;
			done0 = done;
		}
		if (!ending && now >= t_end) {
			*msgs = done - done0;
			*cycles = now - t0;
			ending = true;
			post_write(e, sq, posted, END_MARK);   /* room: SQ_DEPTH > WINDOW */
			posted++;
		}
		while (!ending && posted - done < SQ_DEPTH) {
			post_write(e, sq, posted, posted);
			posted++;
		}
		send_writes(e, sq, posted);
		poll_rx(e);
		if (e->acked != acked || e->acked == e->psn) {
			acked = e->acked;
			progress = now;
		} else if (now > progress + 10 * hz) {
			fprintf(stderr, "rnic-bench-floor-lat: no ACK for 10 s\n");
			return -1;
		}
	}
}

/* --bw, the server: place, check, acknowledge until the END_MARK WRITE. */
static int
server_bw(struct end *e)
{
	uint64_t hz = rte_get_tsc_hz(), idle_end = rte_get_tsc_cycles() + SERVER_IDLE_S * hz;
	uint64_t seen = 0, num, per_mr = MR_BYTES / e->size;

	for (;;) {
		if (poll_rx(e) != 0)
			idle_end = rte_get_tsc_cycles() + SERVER_IDLE_S * hz;
		else if (rte_get_tsc_cycles() > idle_end)
			return -1;
		send_ack(e);
		if (e->placed == seen)
			continue;
		seen = e->placed;
		memcpy(&num, e->dst + ((seen - 1) % per_mr) * e->size, sizeof(num));
		if (num == END_MARK)
			break;
		if (num != seen - 1) {
			fprintf(stderr, "rnic-bench-floor-lat: WRITE %" PRIu64 " holds %" PRIu64
				"\n", seen - 1, num);
			return -1;
		}
	}
	/* Its ACK may be owed still: until it went out. */
	for (uint64_t end = rte_get_tsc_cycles() + hz; e->ack_owed != NULL &&
	     rte_get_tsc_cycles() < end;)
		send_ack(e);
	/* Every slot of the target holds the number of the last WRITE to it
	 * (the END_MARK one its mark; a slot never written, zero). */
	for (uint64_t j = 0; j < per_mr; j++) {
		uint64_t k = seen - 1 - (seen - 1 + per_mr - j) % per_mr;
		uint64_t want = seen - 1 < j ? 0 : k == seen - 1 ? END_MARK : k;

		memcpy(&num, e->dst + j * e->size, sizeof(num));
		if (num != want) {
			fprintf(stderr, "rnic-bench-floor-lat: slot %" PRIu64 " holds %" PRIu64
				", not %" PRIu64 "\n", j, num, want);
			return -1;
		}
	}
	return 0;
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
	int eal = rte_eal_init(argc, argv), c, is_server = -1, bw = 0, rc;
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 'S' }, { "client", no_argument, NULL, 'C' },
		{ "bw", no_argument, NULL, 'B' }, { NULL, 0, NULL, 0 },
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
		case 'B': bw = 1; break;
		case 's': size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'D': secs = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	if (is_server < 0 || size < (bw ? sizeof(uint64_t) : 1) || size > (bw ? MAX_SIZE : 1024) ||
	    secs <= 0 || rte_eth_dev_count_avail() == 0)
		usage();
	if (end_init(&e, 0, is_server ? 2 : 1, size) != 0 || !link_up(0, !is_server)) {
		fprintf(stderr, "rnic-bench-floor-lat: port 0 not set up or its link not up\n");
		return 1;
	}
	if (is_server) {
		rc = bw ? server_bw(&e) : server(&e);
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
	if (bw) {
		uint64_t msgs = 0, cycles = 0;

		if (client_bw(&e, secs, &msgs, &cycles) != 0 || e.bad || cycles == 0) {
			fprintf(stderr, "rnic-bench-floor-lat: --bw client failed, %" PRIu64
				" bad\n", e.bad);
			return 1;
		}
		printf("floor_bw: size=%u msgs=%" PRIu64 " secs=%.3f msgs_per_s=%.0f\n", size, msgs,
		       (double)cycles / (double)rte_get_tsc_hz(),
		       (double)msgs * (double)rte_get_tsc_hz() / (double)cycles);
		port_close(0, false);
		rte_eal_cleanup();
		return 0;
	}
	v = malloc(sizeof(*v) * (size_t)(secs * 4e6 + 16));
	if (v == NULL)
		return 1;
	n = client(&e, secs, v, (size_t)(secs * 4e6 + 16));
	if (n <= 0 || e.bad) {
		fprintf(stderr, "rnic-bench-floor-lat: %ld rounds, %" PRIu64 " bad frames\n", n,
			e.bad);
		free(v);
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
