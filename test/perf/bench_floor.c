/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of the engine-only 64 B figure (doc/benchmarks.md, "What this
 * machine allows at 64 B"): RC WRITEs of one QP from port A to port B of
 * an in-process ring pair, both ends on one lcore, the application
 * posting and polling on another, as rnic-perf write_bw --link ring --rtc
 * (-t 128 -Q 32) does; but the "engine" does only what any RoCEv2 engine
 * on DPDK mbufs with a CPU ICRC has to do per message, in bursts, with
 * none of softrnic's generality:
 *   the application: a 64-byte work request written into a send queue of
 *     128 and the producer index stored (a doorbell a request), a
 *     completion every -Q requests read from a completion ring;
 *   requester: the producer index and the requests read, an mbuf each,
 *     the headers from a template (PSN, AckReq and the RETH written), the
 *     payload copied from the source buffer, the ICRC sealed (softrnic's
 *     rnic_icrc_calc_inplace), a reference kept for retransmission,
 *     rte_eth_tx_burst; at most -w requests unacknowledged;
 *   responder: rte_eth_rx_burst, the burst's ICRCs (softrnic's
 *     rnic_pkt_icrc_ahead), Ethernet/IPv4/UDP/BTH/RETH checked, the QP and
 *     the R_Key checked, the PSN checked, the payload placed, the frames
 *     freed, one coalesced ACK a burst, built and sealed the same way;
 *   requester again: the ACK received, checked and parsed, the frames it
 *     acknowledges freed, the completions of signaled requests written.
 * No QP table, no MR table, no timers, no statistics, no other opcodes:
 * a floor for what the engine's lcore can reach on this machine, not an
 * engine. Prints "floor: ... msgs_per_s=X" and checks that every message
 * was placed in order with its data (exit 1 otherwise).
 *
 * usage: rnic-bench-floor [EAL args: two lcores] -- [-s BYTES] [-D SECONDS]
 *                          [-b BURST] [-w WINDOW] [-Q CQ_MOD]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "rnic_wire.h"

#define MAX_BURST 64
#define MAX_WINDOW 1024
#define RING_SIZE 4096
#define UDP_PORT 4791
#define QPN 0x11
#define RKEY 0x1234
#define MR_BYTES (1u << 20)
#define SQ_DEPTH 128
#define CQ_DEPTH 1024

/* The WRITE's headers after the IP header: UDP, BTH, RETH. */
#define L3 14u
#define W_HLEN (20u + 8u + 12u + 16u)
#define A_HLEN (20u + 8u + 12u + 4u)

struct opts {
	uint32_t size;
	double secs;
	unsigned int burst, window, cq_mod;
};

/* A work request as the application writes it: one cache line. */
struct wqe {
	uint64_t wr_id;
	uint64_t laddr, raddr;
	uint32_t len, rkey;
	uint8_t signaled;
} __rte_aligned(64);

struct cqe {
	uint64_t wr_id;
	uint32_t status;
};

/* The queues between the application and the engine, each index on a
 * line of its own. */
struct queues {
	uint32_t sq_pi __rte_aligned(64);   /* application: requests posted */
	uint32_t cq_pi __rte_aligned(64);   /* engine: completions written */
	uint32_t cq_ci __rte_aligned(64);   /* application: completions read */
	volatile int stop __rte_aligned(64);
	struct wqe sq[SQ_DEPTH];
	struct cqe cq[CQ_DEPTH] __rte_aligned(64);
};

struct req {
	uint16_t port;
	struct queues *q;
	uint32_t fetched;                    /* requests taken from the SQ */
	uint64_t held_wr[MAX_WINDOW];        /* (signaled << 63) | wr_id by PSN */
	uint8_t tmpl[L3 + W_HLEN];
	uint32_t psn, acked;                 /* next PSN, oldest unacknowledged */
	struct rte_mbuf *held[MAX_WINDOW];   /* retransmission buffer by PSN */
};

struct resp {
	uint16_t port;
	uint8_t tmpl[L3 + A_HLEN];
	uint32_t qpn, epsn, msn;
	uint32_t rkey;
	uint8_t *mr;
	uint64_t iova, placed, bad;
};

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-bench-floor [EAL args] -- [-s BYTES 4..1024] [-D SECONDS] "
		"[-b BURST 1..%u] [-w WINDOW 1..%u] [-Q CQ_MOD]\n", MAX_BURST, MAX_WINDOW);
	exit(2);
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .size = 64, .secs = 3, .burst = 32, .window = 64, .cq_mod = 32 };
	while ((c = getopt(argc, argv, "s:D:b:w:Q:")) != -1) {
		switch (c) {
		case 's': o->size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'D': o->secs = strtod(optarg, NULL); break;
		case 'b': o->burst = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w': o->window = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'Q': o->cq_mod = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (o->size < 4 || o->size > 1024 || o->size % 4 || o->secs <= 0 || o->burst == 0 ||
	    o->burst > MAX_BURST || o->window == 0 || o->window > MAX_WINDOW ||
	    !rte_is_power_of_2(o->window) || o->window < o->burst || o->cq_mod == 0)
		usage();
}

/* Ethernet and IPv4 (checksum included: every frame of a size has the
 * same IP header) and UDP of a frame with @p l4 bytes after the IP header. */
static void
tmpl_l2l4(uint8_t *t, uint32_t l4)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t + L3);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(t, 0, L3 + 28);
	t[0] = 2; t[5] = 2; t[6] = 2; t[11] = 1;
	t[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(49152);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4);
}

static void
req_init(struct req *r, uint16_t port, uint32_t size, struct queues *q)
{
	struct rnic_bth *b = (struct rnic_bth *)(r->tmpl + L3 + 28);

	memset(r, 0, sizeof(*r));
	r->port = port;
	r->q = q;
	tmpl_l2l4(r->tmpl, 8 + 12 + 16 + size + RNIC_ICRC_LEN);
	b->opcode = RNIC_OP_WRITE_ONLY;
	b->pkey = rte_cpu_to_be_16(0xffff);
	rnic_put24(b->dqpn, QPN);
}

static void
resp_init(struct resp *s, uint16_t port, uint8_t *mr)
{
	struct rnic_bth *b = (struct rnic_bth *)(s->tmpl + L3 + 28);

	memset(s, 0, sizeof(*s));
	s->port = port;
	s->qpn = QPN;
	s->rkey = RKEY;
	s->mr = mr;
	s->iova = 0x100000;
	tmpl_l2l4(s->tmpl, 8 + 12 + 4 + RNIC_ICRC_LEN);
	b->opcode = RNIC_OP_ACK;
	b->pkey = rte_cpu_to_be_16(0xffff);
	rnic_put24(b->dqpn, QPN);
}

/* Build and send the posted requests, up to @p n; returns how many went
 * out. Every request is a WRITE of one packet. */
static unsigned int
req_send(struct req *r, struct rte_mempool *pool, unsigned int n)
{
	struct rte_mbuf *m[MAX_BURST];
	uint32_t posted = __atomic_load_n(&r->q->sq_pi, __ATOMIC_ACQUIRE);
	unsigned int sent;

	n = RTE_MIN(n, posted - r->fetched);
	if (n == 0 || rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct wqe *w = &r->q->sq[(r->fetched + i) % SQ_DEPTH];
		uint8_t *f = rte_pktmbuf_mtod(m[i], uint8_t *);
		struct rnic_bth *b = (struct rnic_bth *)(f + L3 + 28);
		struct rnic_reth *e = (struct rnic_reth *)(b + 1);
		uint32_t psn = (r->psn + i) & RNIC_PSN_MASK, icrc;
		uint32_t flen = L3 + W_HLEN + w->len + RNIC_ICRC_LEN;

		memcpy(f, r->tmpl, sizeof(r->tmpl));
		rnic_put24(b->psn, psn);
		b->ack = i == n - 1 ? RNIC_BTH_ACKREQ : 0;
		e->va = rte_cpu_to_be_64(w->raddr);
		e->rkey = rte_cpu_to_be_32(w->rkey);
		e->len = rte_cpu_to_be_32(w->len);
		memcpy(f + L3 + W_HLEN, (const void *)(uintptr_t)w->laddr, w->len);
		icrc = rte_cpu_to_le_32(rnic_icrc_calc_inplace(f + L3, W_HLEN + w->len));
		memcpy(f + flen - RNIC_ICRC_LEN, &icrc, RNIC_ICRC_LEN);
		m[i]->data_len = (uint16_t)flen;
		m[i]->pkt_len = flen;
		rte_mbuf_refcnt_update(m[i], 1);   /* kept until acknowledged */
		r->held[psn & (MAX_WINDOW - 1)] = m[i];
		r->held_wr[psn & (MAX_WINDOW - 1)] = ((uint64_t)w->signaled << 63) | w->wr_id;
	}
	sent = rte_eth_tx_burst(r->port, 0, m, (uint16_t)n);
	/* Not sent: not kept either, and taken again next time. */
	for (unsigned int i = sent; i < n; i++) {
		rte_mbuf_refcnt_update(m[i], -1);
		rte_pktmbuf_free(m[i]);
	}
	r->psn = (r->psn + sent) & RNIC_PSN_MASK;
	r->fetched += sent;
	return sent;
}

/* Check, place and free a burst of WRITEs; one ACK for the burst. */
static unsigned int
resp_recv(struct resp *s, struct rte_mempool *pool, const struct opts *o)
{
	struct rte_mbuf *m[MAX_BURST], *ack;
	uint64_t ahead[MAX_BURST];
	unsigned int n = rte_eth_rx_burst(s->port, 0, m, (uint16_t)o->burst), ok = 0;
	bool ack_owed = false;

	if (n == 0)
		return 0;
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + L3);
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
		const struct rnic_bth *b = (const struct rnic_bth *)(udp + 1);
		const struct rnic_reth *e = (const struct rnic_reth *)(b + 1);
		uint32_t len = m[i]->data_len, icrc, plen;
		uint64_t va;

		if (len < L3 + W_HLEN + RNIC_ICRC_LEN || f[12] != 0x08 || f[13] != 0 ||
		    ip->version_ihl != 0x45 || ip->next_proto_id != IPPROTO_UDP ||
		    rte_be_to_cpu_16(ip->total_length) != len - L3 ||
		    udp->dst_port != rte_cpu_to_be_16(UDP_PORT) || !(ahead[i] >> 32)) {
			s->bad++;
			continue;
		}
		memcpy(&icrc, f + len - RNIC_ICRC_LEN, RNIC_ICRC_LEN);
		if ((uint32_t)ahead[i] != rte_le_to_cpu_32(icrc) ||
		    b->opcode != RNIC_OP_WRITE_ONLY || __bth_dqpn(b) != s->qpn ||
		    __bth_psn(b) != s->epsn) {
			s->bad++;
			continue;
		}
		plen = len - L3 - W_HLEN - RNIC_ICRC_LEN;
		va = __reth_va(e);
		if (__reth_rkey(e) != s->rkey || __reth_len(e) != plen || va < s->iova ||
		    va - s->iova > MR_BYTES - plen) {
			s->bad++;
			continue;
		}
		memcpy(s->mr + (va - s->iova), f + L3 + W_HLEN, plen);
		s->epsn = (s->epsn + 1) & RNIC_PSN_MASK;
		s->msn = (s->msn + 1) & 0xffffff;
		ack_owed |= __bth_ackreq(b);
		ok++;
	}
	rte_pktmbuf_free_bulk(m, n);
	s->placed += ok;
	if (ack_owed && (ack = rte_pktmbuf_alloc(pool)) != NULL) {
		uint8_t *f = rte_pktmbuf_mtod(ack, uint8_t *);
		struct rnic_bth *b = (struct rnic_bth *)(f + L3 + 28);
		struct rnic_aeth *a = (struct rnic_aeth *)(b + 1);
		uint32_t icrc;

		memcpy(f, s->tmpl, sizeof(s->tmpl));
		rnic_put24(b->psn, (s->epsn - 1) & RNIC_PSN_MASK);
		a->smsn = rte_cpu_to_be_32(s->msn);   /* syndrome 0: ACK */
		icrc = rte_cpu_to_le_32(rnic_icrc_calc_inplace(f + L3, A_HLEN));
		memcpy(f + L3 + A_HLEN, &icrc, RNIC_ICRC_LEN);
		ack->data_len = ack->pkt_len = L3 + A_HLEN + RNIC_ICRC_LEN;
		if (rte_eth_tx_burst(s->port, 0, &ack, 1) != 1)
			rte_pktmbuf_free(ack);
	}
	return n;
}

/* Take the ACKs: free what they acknowledge, a completion every -Q. */
static void
req_acks(struct req *r)
{
	struct rte_mbuf *m[MAX_BURST];
	uint64_t ahead[MAX_BURST];
	unsigned int n = rte_eth_rx_burst(r->port, 0, m, MAX_BURST);

	if (n == 0)
		return;
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		const struct rnic_bth *b = (const struct rnic_bth *)(f + L3 + 28);
		const struct rnic_aeth *a = (const struct rnic_aeth *)(b + 1);
		uint32_t icrc, psn, upto, k = 0;
		struct rte_mbuf *done[MAX_WINDOW];

		memcpy(&icrc, f + L3 + A_HLEN, RNIC_ICRC_LEN);
		if (m[i]->data_len != L3 + A_HLEN + RNIC_ICRC_LEN || !(ahead[i] >> 32) ||
		    (uint32_t)ahead[i] != rte_le_to_cpu_32(icrc) ||
		    b->opcode != RNIC_OP_ACK || __aeth_syn(a) != 0)
			continue;
		psn = __bth_psn(b);
		upto = (psn + 1) & RNIC_PSN_MASK;
		if (((upto - r->acked) & RNIC_PSN_MASK) > ((r->psn - r->acked) & RNIC_PSN_MASK))
			continue;   /* not of an outstanding PSN */
		while (r->acked != upto) {
			uint64_t wr = r->held_wr[r->acked & (MAX_WINDOW - 1)];

			done[k++] = r->held[r->acked & (MAX_WINDOW - 1)];
			if (wr >> 63) {   /* never full: deeper than the SQ */
				struct cqe *c = &r->q->cq[r->q->cq_pi % CQ_DEPTH];

				c->wr_id = wr & ~(UINT64_C(1) << 63);
				c->status = 0;
				__atomic_store_n(&r->q->cq_pi, r->q->cq_pi + 1, __ATOMIC_RELEASE);
			}
			r->acked = (r->acked + 1) & RNIC_PSN_MASK;
		}
		rte_pktmbuf_free_bulk(done, k);
	}
	rte_pktmbuf_free_bulk(m, n);
}

static int
port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = { .rxmode = { .mtu = 1500 } };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL) != 0)
		return -1;
	return rte_eth_dev_start(port);
}

struct engine {
	const struct opts *o;
	struct req *r;
	struct resp *s;
	struct rte_mempool *pa, *pb;
};

/* The engine's lcore: both ends, until the application says stop. */
static int
engine_main(void *arg)
{
	struct engine *e = arg;
	struct req *r = e->r;

	while (!r->q->stop) {
		unsigned int inflight = (r->psn - r->acked) & RNIC_PSN_MASK;

		if (inflight < e->o->window)
			req_send(r, e->pa, RTE_MIN(e->o->burst, e->o->window - inflight));
		while (resp_recv(e->s, e->pb, e->o) != 0)
			;
		req_acks(r);
	}
	return 0;
}

/* The application: post while the SQ has room, a completion every
 * cq_mod requests; the messages completed in the measured interval and
 * its length in TSC cycles. */
static void
app_run(struct queues *q, const struct opts *o, const uint8_t *src, uint64_t *msgs,
	uint64_t *cycles)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_get_tsc_cycles();
	uint64_t start = t0 + hz / 2, end = start + (uint64_t)(o->secs * (double)hz);
	uint64_t done = 0, done0 = 0, t_start = 0, now;
	uint32_t posted = 0, per_line = MR_BYTES / o->size;

	for (uint64_t iter = 0;; iter++) {
		while (__atomic_load_n(&q->cq_pi, __ATOMIC_ACQUIRE) != q->cq_ci) {
			done = q->cq[q->cq_ci % CQ_DEPTH].wr_id + 1;
			__atomic_store_n(&q->cq_ci, q->cq_ci + 1, __ATOMIC_RELEASE);
		}
		while (posted - done < SQ_DEPTH) {
			struct wqe *w = &q->sq[posted % SQ_DEPTH];
			uint64_t off = (uint64_t)(posted % per_line) * o->size;

			w->wr_id = posted;
			w->laddr = (uint64_t)(uintptr_t)(src + off);
			w->raddr = 0x100000 + off;
			w->len = o->size;
			w->rkey = RKEY;
			w->signaled = (posted + 1) % o->cq_mod == 0;
			__atomic_store_n(&q->sq_pi, ++posted, __ATOMIC_RELEASE);
		}
		if (iter % 64)
			continue;
		now = rte_get_tsc_cycles();
		if (t_start == 0 && now >= start) {
			t_start = now;
			done0 = done;
		}
		if (now >= end) {
			*msgs = done - done0;
			*cycles = now - t_start;
			break;
		}
	}
	q->stop = 1;
}

int
main(int argc, char **argv)
{
	int eal = rte_eal_init(argc, argv);
	struct rte_ring *a2b, *b2a;
	struct rte_mempool *pa, *pb;
	struct queues *q;
	uint8_t *src, *mr;
	struct req *r;
	struct resp *s;
	struct opts o;
	struct engine e;
	unsigned int lcore;
	int porta, portb;
	uint64_t msgs = 0, cycles = 1, hz = rte_get_tsc_hz();

	if (eal < 0) {
		fprintf(stderr, "rnic-bench-floor: EAL init failed\n");
		return 2;
	}
	parse_opts(argc - eal, argv + eal, &o);
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "rnic-bench-floor: needs two lcores (--lcores=0@0,1@1)\n");
		return 2;
	}
	a2b = rte_ring_create("floor_a2b", RING_SIZE, rte_socket_id(), RING_F_SC_DEQ);
	b2a = rte_ring_create("floor_b2a", RING_SIZE, rte_socket_id(), RING_F_SC_DEQ);
	/* The engine's pools: one a port, 4 KiB of data room, a cache of 256. */
	pa = rte_pktmbuf_pool_create("floor_a", 8192, 256, 0, RTE_PKTMBUF_HEADROOM + 4096 + 128,
				     rte_socket_id());
	pb = rte_pktmbuf_pool_create("floor_b", 8192, 256, 0, RTE_PKTMBUF_HEADROOM + 4096 + 128,
				     rte_socket_id());
	src = rte_malloc(NULL, MR_BYTES, 64);
	mr = rte_zmalloc(NULL, MR_BYTES, 64);
	q = rte_zmalloc(NULL, sizeof(*q), 64);
	r = rte_zmalloc(NULL, sizeof(*r), 64);
	s = rte_zmalloc(NULL, sizeof(*s), 64);
	if (a2b == NULL || b2a == NULL || pa == NULL || pb == NULL || src == NULL || mr == NULL ||
	    q == NULL || r == NULL || s == NULL) {
		fprintf(stderr, "rnic-bench-floor: out of memory\n");
		return 1;
	}
	porta = rte_eth_from_rings("floor_a", &b2a, 1, &a2b, 1, rte_socket_id());
	portb = rte_eth_from_rings("floor_b", &a2b, 1, &b2a, 1, rte_socket_id());
	if (porta < 0 || portb < 0 || port_start((uint16_t)porta, pa) != 0 ||
	    port_start((uint16_t)portb, pb) != 0) {
		fprintf(stderr, "rnic-bench-floor: no ring ports\n");
		return 1;
	}
	for (uint32_t i = 0; i < MR_BYTES; i++)
		src[i] = (uint8_t)(i / o.size * 7 + 1);
	req_init(r, (uint16_t)porta, o.size, q);
	resp_init(s, (uint16_t)portb, mr);
	e = (struct engine){ .o = &o, .r = r, .s = s, .pa = pa, .pb = pb };
	if (rte_eal_remote_launch(engine_main, &e, lcore) != 0) {
		fprintf(stderr, "rnic-bench-floor: cannot launch lcore %u\n", lcore);
		return 1;
	}
	app_run(q, &o, src, &msgs, &cycles);
	rte_eal_wait_lcore(lcore);
	/* Every message sent was placed, in order (the responder checks the
	 * PSNs), and each slot of the target holds what the source did. */
	if (s->bad || s->placed == 0 || s->placed != r->fetched ||
	    memcmp(mr, src, RTE_MIN(s->placed, MR_BYTES / o.size) * o.size) != 0) {
		fprintf(stderr, "rnic-bench-floor: %" PRIu64 " placed of %u sent, %" PRIu64
			" bad\n", s->placed, r->fetched, s->bad);
		return 1;
	}
	printf("floor: size=%u burst=%u window=%u cq_mod=%u msgs_per_s=%.0f ns_per_msg=%.1f "
	       "placed=%" PRIu64 "\n", o.size, o.burst, o.window, o.cq_mod,
	       (double)msgs * (double)hz / (double)cycles,
	       (double)cycles / (double)hz * 1e9 / (double)msgs, s->placed);
	rte_eal_cleanup();
	return 0;
}
