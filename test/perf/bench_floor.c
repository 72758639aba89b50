/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of the engine-only 64 B figure (doc/benchmarks.md, section
 * 2b and "The floors"): RC WRITEs of one QP from port A to port B of an
 * in-process ring pair, both ends on one lcore, the application posting
 * and polling on another, as rnic-perf write_bw --link ring --rtc
 * (-t 128 -Q 32) does; but the "engine" does only what any RoCEv2 engine
 * on DPDK mbufs with a CPU ICRC has to do per message, in bursts, with
 * none of softrnic's generality (test/perf/floor.h has the per-frame
 * work):
 *   the application: a 64-byte work request written into a send queue of
 *     128 and the producer index stored (a doorbell a request), a
 *     completion every -Q requests read from a completion ring;
 *   requester: the producer index and the requests read, the source MR
 *     checked, an mbuf each, the WRITE Only built from a template and
 *     sealed, a reference kept for retransmission, rte_eth_tx_burst; at
 *     most -w requests unacknowledged, AckReq on the last of a burst;
 *   responder: rte_eth_rx_burst, the burst's ICRCs, the headers, the QP
 *     and the target MR from their tables, the payload placed, the frames
 *     freed, one ACK a burst;
 *   requester again: the ACKs received and checked, the frames they
 *     acknowledge freed, the completions of signaled requests written,
 *     the retransmission deadline moved on, and checked once a pass (an
 *     ACK missing for a second ends the run as a failure).
 * Not done: other opcodes and transports, loss, statistics. A floor for
 * what the engine's lcore can reach on this machine, not an engine.
 * With -q N, the same for N QP pairs with -t DEPTH requests outstanding
 * on each (many_main), the floor of the bench's 16384-QP figure. Prints
 * "floor: ... msgs_per_s=X" and checks that every message was placed in
 * order with its data (exit 1 otherwise).
 *
 * usage: rnic-bench-floor [EAL args: two lcores] -- [-s BYTES] [-D SECONDS]
 *                          [-b BURST] [-w WINDOW] [-Q CQ_MOD]
 *                          [-q QPS [-t DEPTH]]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "floor.h"
#include "rnic_verbs.h"

#define MAX_BURST 64
#define MAX_WINDOW 1024
#define RING_SIZE 4096
#define LKEY 0x0101                /* the source MR's: index 1 */
#define RKEY 0x0203                /* the target MR's: index 2 */
#define IOVA 0x100000
#define MR_BYTES (1u << 20)
#define SQ_DEPTH 128
#define CQ_DEPTH 1024
#define MAX_QPS 16384
#define MAX_DEPTH 16

struct opts {
	uint32_t size;
	double secs;
	unsigned int burst, window, cq_mod;
	unsigned int qps, depth;   /* -q: the many-QP form (many_main) */
};

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
	struct fmr *const *mrs;              /* by lkey */
	const void *pd;
	uint64_t deadline;                   /* for the oldest unacknowledged */
	bool stalled;                        /* the deadline passed */
	struct queues *q;
	/* Requests taken from the SQ and acknowledged, as counts: the PSN of
	 * request k is k & RNIC_PSN_MASK (both ends start at 0). */
	uint32_t fetched, acked;
	uint64_t held_wr[MAX_WINDOW];        /* (signaled << 63) | wr_id by PSN */
	uint8_t tmpl[L3 + W_HLEN];
	struct rte_mbuf *held[MAX_WINDOW];   /* retransmission buffer by PSN */
};

struct resp {
	uint16_t port;
	uint8_t tmpl[L3 + A_HLEN];           /* the ACK's */
	struct fqp *const *qps;              /* by QPN */
	struct fmr *const *mrs;              /* by rkey */
	uint64_t placed, bad;
};

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-bench-floor [EAL args] -- [-s BYTES 1..1024] [-D SECONDS] "
		"[-b BURST 1..%u] [-w WINDOW 1..%u] [-Q CQ_MOD] [-q QPS 1..%u [-t DEPTH 1..%u] "
		"]\n", MAX_BURST, MAX_WINDOW, MAX_QPS, MAX_DEPTH);
	exit(2);
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .size = 64, .secs = 3, .burst = 32, .window = 64, .cq_mod = 32,
			    .depth = 4 };
	while ((c = getopt(argc, argv, "s:D:b:w:Q:q:t:")) != -1) {
		switch (c) {
		case 's': o->size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'D': o->secs = strtod(optarg, NULL); break;
		case 'b': o->burst = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w': o->window = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'Q': o->cq_mod = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'q': o->qps = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': o->depth = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (o->size == 0 || o->size > 1024 || o->secs <= 0 || o->burst == 0 ||
	    o->burst > MAX_BURST || o->window == 0 || o->window > MAX_WINDOW ||
	    !rte_is_power_of_2(o->window) || o->window < o->burst || o->cq_mod == 0 ||
	    o->qps > MAX_QPS || o->depth == 0 || o->depth > MAX_DEPTH ||
	    !rte_is_power_of_2(o->depth) || o->depth > o->burst)
		usage();
}

static void
req_init(struct req *r, uint16_t port, uint32_t size, struct queues *q, struct fmr *const *mrs,
	 const void *pd)
{
	memset(r, 0, sizeof(*r));
	r->port = port;
	r->q = q;
	r->mrs = mrs;
	r->pd = pd;
	floor_tmpl_write(r->tmpl, size, false);
}

static void
resp_init(struct resp *s, uint16_t port, struct fqp *const *qps, struct fmr *const *mrs)
{
	memset(s, 0, sizeof(*s));
	s->port = port;
	s->qps = qps;
	s->mrs = mrs;
	floor_tmpl_ack(s->tmpl, true);
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
	/* the application's own MR: never fails */
	if (!floor_writes_build(m, n, r->q->sq, SQ_DEPTH, r->fetched, r->fetched, r->tmpl, r->mrs,
				r->pd, r->held, r->held_wr, MAX_WINDOW - 1))
		return 0;
	sent = rte_eth_tx_burst(r->port, 0, m, (uint16_t)n);
	floor_unsent_free(m, sent, n);   /* taken again next time */
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
	struct fqp *acked = NULL;

	if (n == 0)
		return 0;
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		bool ackreq = false;
		struct fqp *qp = floor_write_rx(rte_pktmbuf_mtod(m[i], const uint8_t *),
						m[i]->data_len, ahead[i], s->qps, s->mrs, 2,
						&ackreq);

		if (qp == NULL) {
			s->bad++;
			continue;
		}
		if (ackreq)
			acked = qp;
		ok++;
	}
	rte_pktmbuf_free_bulk(m, n);
	s->placed += ok;
	if (acked != NULL && (ack = rte_pktmbuf_alloc(pool)) != NULL) {
		ack->data_len = (uint16_t)floor_ack_build(rte_pktmbuf_mtod(ack, uint8_t *), s->tmpl,
							  (acked->epsn - 1) & RNIC_PSN_MASK,
							  acked->msn);
		ack->pkt_len = ack->data_len;
		if (rte_eth_tx_burst(s->port, 0, &ack, 1) != 1)
			rte_pktmbuf_free(ack);
	}
	return n;
}

/* Take the ACKs: free what they acknowledge, the completions of the
 * signaled requests among them, the retransmission deadline moved. */
static void
req_acks(struct req *r, uint64_t now)
{
	struct rte_mbuf *m[MAX_BURST];
	uint64_t ahead[MAX_BURST];
	unsigned int n = rte_eth_rx_burst(r->port, 0, m, MAX_BURST);

	if (n == 0)
		return;
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t psn, n_acked, k = 0;
		struct rte_mbuf *done[MAX_WINDOW];

		if (!floor_ack_rx(rte_pktmbuf_mtod(m[i], const uint8_t *), m[i]->data_len, ahead[i],
				  1, &psn))
			continue;
		n_acked = (psn + 1 - r->acked) & RNIC_PSN_MASK;
		if (n_acked > r->fetched - r->acked)
			continue;   /* not of an outstanding PSN */
		for (uint32_t end = r->acked + n_acked; r->acked != end; r->acked++) {
			uint64_t wr = r->held_wr[r->acked & (MAX_WINDOW - 1)];

			done[k++] = r->held[r->acked & (MAX_WINDOW - 1)];
			if (wr >> 63) {   /* never full: deeper than the SQ */
				struct cqe *c = &r->q->cq[r->q->cq_pi % CQ_DEPTH];

				c->wr_id = wr & ~(UINT64_C(1) << 63);
				c->status = 0;
				__atomic_store_n(&r->q->cq_pi, r->q->cq_pi + 1, __ATOMIC_RELEASE);
			}
		}
		rte_pktmbuf_free_bulk(done, k);
		if (k != 0)
			r->deadline = now + rte_get_tsc_hz();
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
		unsigned int inflight = r->fetched - r->acked;
		uint64_t now = rte_rdtsc();   /* once a pass, as the engine */

		if (inflight != 0 && now > r->deadline) {
			r->stalled = true;
			break;
		}
		if (inflight < e->o->window &&
		    req_send(r, e->pa, RTE_MIN(e->o->burst, e->o->window - inflight)) != 0 &&
		    inflight == 0)
			r->deadline = now + rte_get_tsc_hz();
		while (resp_recv(e->s, e->pb, e->o) != 0)
			;
		req_acks(r, now);
	}
	return 0;
}

/* A WRITE of @p len bytes from offset @p off of the source MR to the same
 * offset of the target, as the application writes it. */
static void
wqe_fill(struct wqe *w, uint64_t wr_id, const uint8_t *src, uint64_t off, uint32_t len,
	 bool signaled)
{
	w->wr_id = wr_id;
	w->laddr = (uint64_t)(uintptr_t)(src + off);
	w->raddr = IOVA + off;
	w->len = len;
	w->lkey = LKEY;
	w->rkey = RKEY;
	w->signaled = signaled;
}

/* The measured interval of an application's loop: half a second of
 * warm-up, then -D seconds. */
struct interval {
	uint64_t start, end, t_start, done0;
};

static void
interval_init(struct interval *iv, const struct opts *o)
{
	uint64_t hz = rte_get_tsc_hz();

	iv->start = rte_get_tsc_cycles() + hz / 2;
	iv->end = iv->start + (uint64_t)(o->secs * (double)hz);
	iv->t_start = 0;
	iv->done0 = 0;
}

/* With @p done messages completed so far: true once the interval is over,
 * with the messages it saw in *@p msgs and its TSC cycles in *@p cycles. */
static bool
interval_over(struct interval *iv, uint64_t done, uint64_t *msgs, uint64_t *cycles)
{
	uint64_t now = rte_get_tsc_cycles();

	if (iv->t_start == 0 && now >= iv->start) {
		iv->t_start = now;
		iv->done0 = done;
	}
	if (now < iv->end)
		return false;
	*msgs = done - iv->done0;
	*cycles = now - iv->t_start;
	return true;
}

/* The application: post while the SQ has room, a completion every
 * cq_mod requests; the messages completed in the measured interval and
 * its length in TSC cycles. */
static void
app_run(struct queues *q, const struct opts *o, const uint8_t *src, uint64_t *msgs,
	uint64_t *cycles)
{
	struct interval iv;
	uint64_t done = 0;
	uint32_t posted = 0, per_line = MR_BYTES / o->size;

	interval_init(&iv, o);
	for (uint64_t iter = 0;; iter++) {
		while (__atomic_load_n(&q->cq_pi, __ATOMIC_ACQUIRE) != q->cq_ci) {
			done = q->cq[q->cq_ci % CQ_DEPTH].wr_id + 1;
			__atomic_store_n(&q->cq_ci, q->cq_ci + 1, __ATOMIC_RELEASE);
		}
		while (posted - done < SQ_DEPTH) {
			wqe_fill(&q->sq[posted % SQ_DEPTH], posted, src,
				 (uint64_t)(posted % per_line) * o->size, o->size,
				 (posted + 1) % o->cq_mod == 0);
			__atomic_store_n(&q->sq_pi, ++posted, __ATOMIC_RELEASE);
		}
		if (iter % 64 == 0 && interval_over(&iv, done, msgs, cycles))
			break;
	}
	q->stop = 1;
}

/*
 * The many-QP form (-q N, against rnic-perf write_bw -q N -t DEPTH: the
 * bench's qps section): N RC QP pairs, DEPTH requests outstanding on
 * each, a completion for the last of each DEPTH. On top of the one-QP
 * form's work per message, what any engine must do per QP:
 *   the application: DEPTH requests written into the QP's send queue,
 *     its producer index stored and a doorbell (the QP's index) put on a
 *     ring to the engine, once the QP's completion has come back;
 *   requester: the doorbells taken, a burst's worth a pass; each QP's
 *     producer index and requests read, its PSNs and references kept per
 *     QP, AckReq on the last of its requests;
 *   responder: the QP found in a table by the BTH's QP number, its PSN
 *     checked and moved on; an ACK to each QP that asked;
 *   requester again: the ACK's QP found by its number, its references
 *     freed, the completion written (whether a request was signaled and
 *     its wr_id read back from the send queue) to the one completion ring.
 * The state per QP is as small as it can be: the application's line with
 * the producer index, the requester's line (PSNs, references), the
 * responder's 32 bytes, DEPTH send-queue lines. Not done, as in the
 * one-QP form: loss, other opcodes; and no timer per QP: the run fails
 * when no ACK at all comes for a second.
 */
struct mqp {
	uint32_t sq_pi;                        /* application: requests posted */
	uint32_t fetched __rte_aligned(64);    /* requester: PSNs taken */
	uint32_t acked;                        /* and acknowledged */
	struct rte_mbuf *held[MAX_DEPTH];      /* references by PSN % DEPTH */
} __rte_aligned(64);

struct many {
	const struct opts *o;
	struct mqp *qp;              /* A's requesters, N */
	struct wqe *sq;              /* their send queues, DEPTH each */
	struct fqp *resp;            /* B's responders, N */
	struct fqp **qtab;           /* B's QP table, by QP number */
	uint32_t qmask;
	struct rte_ring *db;         /* doorbells (QP indices): application -> engine */
	struct cqe *cq;              /* completions: engine -> application */
	uint32_t cq_mask;
	struct fmr *const *mra, *const *mrb;
	const void *pda;
	uint16_t porta, portb;
	struct rte_mempool *pa, *pb;
	uint8_t wtmpl[L3 + W_HLEN], atmpl[L3 + A_HLEN];
	uint32_t *retry;             /* QPs a full link cut short, to go first */
	uint32_t retry_head, retry_tail, retry_mask;
	uint32_t next[MAX_BURST];    /* doorbells taken a pass ahead, their lines */
	unsigned int n_next;         /* prefetched meanwhile */
	uint64_t sent, acked, placed, bad, deadline;
	bool stalled;
	uint32_t cq_pi __rte_aligned(64);   /* engine: completions written */
	uint32_t cq_ci __rte_aligned(64);   /* application: completions read */
	volatile int stop __rte_aligned(64);
};

/* The BTH's destination QP of a frame (a hint for prefetching: the
 * frame's checks come after). */
static inline uint32_t
many_dqpn(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	return m->data_len >= L3 + 28 + 12 ? __bth_dqpn((const struct rnic_bth *)(f + L3 + 28))
					   : 0;
}

/* The requests of up to a burst's worth of QPs with a doorbell, built,
 * sealed and sent; returns the frames sent. */
static unsigned int
many_send(struct many *f)
{
	const unsigned int depth = f->o->depth, per = f->o->burst / depth;
	struct rte_mbuf *m[MAX_BURST];
	uint32_t qs[MAX_BURST], pq[MAX_BURST];
	unsigned int nq = 0, n = 0, sent;

	for (unsigned int j = 0; j < f->n_next; j++)
		qs[nq++] = f->next[j];
	while (nq < per && f->retry_head != f->retry_tail)
		qs[nq++] = f->retry[f->retry_head++ & f->retry_mask];
	/* The next pass's doorbells, and their QPs' lines while this pass
	 * runs: at many QPs every one is a miss otherwise. */
	f->n_next = rte_ring_sc_dequeue_burst_elem(f->db, f->next, sizeof(uint32_t), per, NULL);
	for (unsigned int j = 0; j < f->n_next; j++) {
		const struct mqp *q = &f->qp[f->next[j]];
		const struct wqe *w = &f->sq[(size_t)f->next[j] * depth];

		rte_prefetch0(&q->sq_pi);
		rte_prefetch0(&q->fetched);
		for (unsigned int k = 0; k < depth; k++)
			rte_prefetch0(w + k);
	}
	if (nq == 0)
		return 0;
	for (unsigned int j = 0; j < nq; j++) {
		struct mqp *q = &f->qp[qs[j]];
		uint32_t k0 = n, cnt = __atomic_load_n(&q->sq_pi, __ATOMIC_ACQUIRE) - q->fetched;

		if (cnt == 0)
			continue;
		if (rte_pktmbuf_alloc_bulk(f->pa, m + n, cnt) != 0) {
			f->retry[f->retry_tail++ & f->retry_mask] = qs[j];
			continue;
		}
		for (uint32_t k = 0; k < cnt; k++) {
			uint32_t psn = (q->fetched + k) & RNIC_PSN_MASK;
			const struct wqe *w = &f->sq[(size_t)qs[j] * depth + (psn & (depth - 1))];
			const uint8_t *src = mr_check(f->mra, w->lkey, f->pda, 0, w->laddr, w->len);
			struct rte_mbuf *b = m[k0 + k];

			if (src == NULL)   /* the application's own MR: never */
				rte_panic("rnic-bench-floor: a bad request\n");
			b->data_len = (uint16_t)floor_write_build_qp(
				rte_pktmbuf_mtod(b, uint8_t *), f->wtmpl, QPN + qs[j], psn,
				k == cnt - 1, w->raddr, w->rkey, src, w->len);
			b->pkt_len = b->data_len;
			rte_mbuf_refcnt_update(b, 1);   /* kept until acknowledged */
			q->held[psn & (depth - 1)] = b;
			pq[k0 + k] = qs[j];
		}
		n += cnt;
	}
	sent = n == 0 ? 0 : rte_eth_tx_burst(f->porta, 0, m, (uint16_t)n);
	for (unsigned int i = 0; i < sent; i++)
		f->qp[pq[i]].fetched++;
	/* Not sent: not kept either; the QP goes first next time. */
	for (unsigned int i = sent; i < n; i++) {
		if (i == sent || pq[i] != pq[i - 1])
			f->retry[f->retry_tail++ & f->retry_mask] = pq[i];
		rte_mbuf_refcnt_update(m[i], -1);
		rte_pktmbuf_free(m[i]);
	}
	f->sent += sent;
	return sent;
}

/* A burst of WRITEs checked, placed and freed; an ACK to each QP that
 * asked for one. */
static unsigned int
many_recv(struct many *f)
{
	struct rte_mbuf *m[MAX_BURST], *ack[MAX_BURST];
	struct fqp *owed[MAX_BURST];
	uint64_t ahead[MAX_BURST];
	unsigned int n = rte_eth_rx_burst(f->portb, 0, m, (uint16_t)f->o->burst), na = 0, sent;

	if (n == 0)
		return 0;
	for (unsigned int i = 0; i < n; i++)   /* the QPs' table slots, then the QPs */
		rte_prefetch0(&f->qtab[many_dqpn(m[i]) & f->qmask]);
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		const struct fqp *qp = f->qtab[many_dqpn(m[i]) & f->qmask];

		if (qp != NULL)
			rte_prefetch0(qp);
	}
	for (unsigned int i = 0; i < n; i++) {
		bool ackreq = false;
		struct fqp *qp = floor_write_rx_tbl(rte_pktmbuf_mtod(m[i], const uint8_t *),
						    m[i]->data_len, ahead[i], f->qtab, f->qmask,
						    f->mrb, 2, &ackreq);

		if (qp == NULL) {
			f->bad++;
			continue;
		}
		f->placed++;
		if (ackreq)
			owed[na++] = qp;
	}
	rte_pktmbuf_free_bulk(m, n);
	if (na == 0 || rte_pktmbuf_alloc_bulk(f->pb, ack, na) != 0)
		return n;   /* none sent: the run stalls, and fails */
	for (unsigned int j = 0; j < na; j++) {
		ack[j]->data_len = (uint16_t)floor_ack_build_qp(
			rte_pktmbuf_mtod(ack[j], uint8_t *), f->atmpl, owed[j]->qpn,
			(owed[j]->epsn - 1) & RNIC_PSN_MASK, owed[j]->msn);
		ack[j]->pkt_len = ack[j]->data_len;
	}
	sent = rte_eth_tx_burst(f->portb, 0, ack, (uint16_t)na);
	if (sent < na)
		rte_pktmbuf_free_bulk(ack + sent, na - sent);
	return n;
}

/* The ACKs: each one's QP, its references freed, its completions. */
static void
many_acks(struct many *f, uint64_t now)
{
	const unsigned int depth = f->o->depth;
	struct rte_mbuf *m[MAX_BURST];
	uint64_t ahead[MAX_BURST];
	unsigned int n = rte_eth_rx_burst(f->porta, 0, m, MAX_BURST);

	if (n == 0)
		return;
	for (unsigned int i = 0; i < n; i++) {   /* the ACKs' QPs and send queues */
		uint32_t qi = many_dqpn(m[i]) - QPN;

		if (qi < f->o->qps) {
			rte_prefetch0(&f->qp[qi].fetched);
			for (unsigned int k = 0; k < depth; k++)
				rte_prefetch0(&f->sq[(size_t)qi * depth + k]);
		}
	}
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *done[MAX_DEPTH];
		uint32_t dqpn, psn, qi, n_acked, k = 0;
		struct mqp *q;

		if (!floor_ack_rx_qp(rte_pktmbuf_mtod(m[i], const uint8_t *), m[i]->data_len,
				     ahead[i], 1, &dqpn, &psn) ||
		    (qi = dqpn - QPN) >= f->o->qps) {
			f->bad++;
			continue;
		}
		q = &f->qp[qi];
		n_acked = (psn + 1 - q->acked) & RNIC_PSN_MASK;
		if (n_acked > q->fetched - q->acked)
			continue;   /* not of an outstanding PSN */
		for (uint32_t end = q->acked + n_acked; q->acked != end; q->acked++) {
			const struct wqe *w = &f->sq[(size_t)qi * depth + (q->acked & (depth - 1))];

			done[k++] = q->held[q->acked & (depth - 1)];
			if (w->signaled) {   /* never full: a completion a QP at most */
				struct cqe *c = &f->cq[f->cq_pi & f->cq_mask];

				c->wr_id = w->wr_id;
				c->status = 0;
				__atomic_store_n(&f->cq_pi, f->cq_pi + 1, __ATOMIC_RELEASE);
			}
		}
		rte_pktmbuf_free_bulk(done, k);
		f->acked += k;
		if (k != 0)
			f->deadline = now + rte_get_tsc_hz();
	}
	rte_pktmbuf_free_bulk(m, n);
}

static int
many_engine(void *arg)
{
	struct many *f = arg;

	while (!f->stop) {
		uint64_t now = rte_rdtsc();   /* once a pass, as the engine */
		bool idle = f->sent == f->acked;

		if (!idle && now > f->deadline) {
			f->stalled = true;
			break;
		}
		if (many_send(f) != 0 && idle)
			f->deadline = now + rte_get_tsc_hz();
		while (many_recv(f) != 0)
			;
		many_acks(f, now);
	}
	return 0;
}

/* The application: DEPTH requests to QP @p qi, the last signaled, and its
 * doorbell; *posted counts every request, which gives each its slot of the
 * MRs (every slot taken in turn, so that the end's check covers them). */
static void
many_post(struct many *f, uint32_t qi, const uint8_t *src, uint64_t *posted)
{
	const struct opts *o = f->o;
	struct mqp *q = &f->qp[qi];
	uint32_t pi = q->sq_pi, per_line = MR_BYTES / o->size;

	for (uint32_t k = 0; k < o->depth; k++) {
		wqe_fill(&f->sq[(size_t)qi * o->depth + ((pi + k) & (o->depth - 1))], qi, src,
			 (uint64_t)(*posted % per_line) * o->size, o->size, k == o->depth - 1);
		(*posted)++;
	}
	__atomic_store_n(&q->sq_pi, pi + o->depth, __ATOMIC_RELEASE);
	if (rte_ring_sp_enqueue_elem(f->db, &qi, sizeof(qi)) != 0)
		rte_panic("rnic-bench-floor: the doorbell ring is full\n");   /* a QP at most */
}

/* The application of the many-QP form: every QP's first requests, then a
 * QP's next ones as its completion comes back; as app_run. */
static void
many_app(struct many *f, const uint8_t *src, uint64_t *msgs, uint64_t *cycles)
{
	const struct opts *o = f->o;
	struct interval iv;
	uint64_t done = 0, posted = 0;

	interval_init(&iv, o);
	for (uint32_t qi = 0; qi < o->qps; qi++)
		many_post(f, qi, src, &posted);
	for (uint64_t iter = 0;; iter++) {
		while (__atomic_load_n(&f->cq_pi, __ATOMIC_ACQUIRE) != f->cq_ci) {
			uint32_t qi = (uint32_t)f->cq[f->cq_ci & f->cq_mask].wr_id;

			__atomic_store_n(&f->cq_ci, f->cq_ci + 1, __ATOMIC_RELEASE);
			done += o->depth;
			many_post(f, qi, src, &posted);
		}
		if (iter % 64 == 0 && interval_over(&iv, done, msgs, cycles))
			break;
	}
	f->stop = 1;
}

/* The many-QP form's run; 0, or 1 when a message was lost or misplaced. */
static int
many_main(const struct opts *o, unsigned int lcore, uint16_t porta, uint16_t portb,
	  uint8_t *src, uint8_t *mr, struct fmr *const *mra, struct fmr *const *mrb,
	  const void *pda, const void *pdb)
{
	uint32_t nq = o->qps, tab = rte_align32pow2(QPN + nq), ring = rte_align32pow2(nq + 1);
	uint64_t msgs = 0, cycles = 1, hz = rte_get_tsc_hz(), outstanding, covered;
	struct many *f = rte_zmalloc(NULL, sizeof(*f), 64);
	unsigned int mbufs = nq * o->depth + 8192;

	if (f == NULL)
		return 2;
	*f = (struct many){ .o = o, .mra = mra, .mrb = mrb, .pda = pda, .porta = porta,
			    .portb = portb, .qmask = tab - 1, .cq_mask = ring - 1,
			    .retry_mask = ring - 1 };
	f->qp = rte_zmalloc(NULL, sizeof(*f->qp) * nq, 64);
	f->sq = rte_zmalloc(NULL, sizeof(*f->sq) * nq * o->depth, 64);
	f->resp = rte_zmalloc(NULL, sizeof(*f->resp) * nq, 64);
	f->qtab = rte_zmalloc(NULL, sizeof(*f->qtab) * tab, 64);
	f->cq = rte_zmalloc(NULL, sizeof(*f->cq) * ring, 64);
	f->retry = rte_zmalloc(NULL, sizeof(*f->retry) * ring, 64);
	f->db = rte_ring_create_elem("floor_db", sizeof(uint32_t), ring, rte_socket_id(),
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	/* every request's frame can be held: DEPTH a QP, and bursts besides */
	f->pa = rte_pktmbuf_pool_create("floor_ma", mbufs, 256, 0, RTE_PKTMBUF_HEADROOM + 2048,
					rte_socket_id());
	f->pb = rte_pktmbuf_pool_create("floor_mb", 8192, 256, 0, RTE_PKTMBUF_HEADROOM + 2048,
					rte_socket_id());
	if (f->qp == NULL || f->sq == NULL || f->resp == NULL || f->qtab == NULL ||
	    f->cq == NULL || f->retry == NULL || f->db == NULL || f->pa == NULL || f->pb == NULL) {
		fprintf(stderr, "rnic-bench-floor: out of memory for %u QPs\n", nq);
		return 2;
	}
	if (port_start(porta, f->pa) != 0 || port_start(portb, f->pb) != 0) {
		fprintf(stderr, "rnic-bench-floor: no ring ports\n");
		return 2;
	}
	floor_tmpl_write(f->wtmpl, o->size, false);
	floor_tmpl_ack(f->atmpl, true);
	for (uint32_t i = 0; i < nq; i++) {
		f->resp[i] = (struct fqp){ .qpn = QPN + i, .pkey = 0xffff, .state = QPS_RTS,
					   .pd = pdb };
		f->qtab[QPN + i] = &f->resp[i];
	}
	if (rte_eal_remote_launch(many_engine, f, lcore) != 0) {
		fprintf(stderr, "rnic-bench-floor: cannot launch lcore %u\n", lcore);
		return 2;
	}
	many_app(f, src, &msgs, &cycles);
	rte_eal_wait_lcore(lcore);
	/* Every message sent was placed, in order on its QP (the responder
	 * checks the PSNs), and each slot of the target holds what the source
	 * did: the slots of all but the last requests posted, which may not
	 * have been sent. */
	outstanding = (uint64_t)nq * o->depth;
	covered = RTE_MIN(f->placed > outstanding ? f->placed - outstanding : 0,
			  (uint64_t)(MR_BYTES / o->size));
	if (f->stalled || f->bad || f->placed == 0 || f->placed != f->sent ||
	    memcmp(mr, src, covered * o->size) != 0) {
		fprintf(stderr, "rnic-bench-floor: %" PRIu64 " placed of %" PRIu64 " sent, %" PRIu64
			" bad%s\n", f->placed, f->sent, f->bad, f->stalled ? ", no ACK for 1 s" : "");
		return 1;
	}
	printf("floor: size=%u qps=%u depth=%u burst=%u msgs_per_s=%.0f ns_per_msg=%.1f "
	       "placed=%" PRIu64 "\n", o->size, nq, o->depth, o->burst,
	       (double)msgs * (double)hz / (double)cycles,
	       (double)cycles / (double)hz * 1e9 / (double)msgs, f->placed);
	return 0;
}

int
main(int argc, char **argv)
{
	int eal = rte_eal_init(argc, argv);
	struct rte_mempool *pa, *pb;
	struct queues *q;
	uint8_t *src, *mr;
	struct req *r;
	struct resp *s;
	struct opts o;
	struct engine e;
	static struct fmr *mra[TABLE], *mrb[TABLE];
	static struct fqp *qpb[TABLE];
	static int pda, pdb;
	unsigned int lcore;
	uint16_t porta, portb;
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
	src = rte_malloc(NULL, MR_BYTES, 64);
	mr = rte_zmalloc(NULL, MR_BYTES, 64);
	/* The ring pair rnic-perf --link ring runs on. */
	if (src == NULL || mr == NULL ||
	    rnic_port_ring_pair("floor_a", "floor_b", RING_SIZE, &porta, &portb) != 0) {
		fprintf(stderr, "rnic-bench-floor: no memory or no ring ports\n");
		return 1;
	}
	for (uint32_t i = 0; i < MR_BYTES; i++)
		src[i] = (uint8_t)(i / o.size * 7 + 1);
	/* Each end's tables, as two devices' would be: A's source MR, B's QP
	 * and target MR; the PDs are only compared. */
	mra[LKEY >> 8] = &(struct fmr){ .addr = src, .iova = (uint64_t)(uintptr_t)src,
					.length = MR_BYTES, .key = LKEY, .pd = &pda, .valid = 1 };
	mrb[RKEY >> 8] = &(struct fmr){ .addr = mr, .iova = IOVA, .length = MR_BYTES,
					.key = RKEY, .access = ACCESS_REMOTE_WRITE, .pd = &pdb,
					.valid = 1 };
	if (o.qps != 0) {
		int rc = many_main(&o, lcore, porta, portb, src, mr, mra, mrb, &pda, &pdb);

		rte_eal_cleanup();
		return rc;
	}
	/* The engine's pools: one a port, 4 KiB of data room, a cache of 256. */
	pa = rte_pktmbuf_pool_create("floor_a", 8192, 256, 0, RTE_PKTMBUF_HEADROOM + 4096 + 128,
				     rte_socket_id());
	pb = rte_pktmbuf_pool_create("floor_b", 8192, 256, 0, RTE_PKTMBUF_HEADROOM + 4096 + 128,
				     rte_socket_id());
	q = rte_zmalloc(NULL, sizeof(*q), 64);
	r = rte_zmalloc(NULL, sizeof(*r), 64);
	s = rte_zmalloc(NULL, sizeof(*s), 64);
	if (pa == NULL || pb == NULL || q == NULL || r == NULL || s == NULL ||
	    port_start(porta, pa) != 0 || port_start(portb, pb) != 0) {
		fprintf(stderr, "rnic-bench-floor: out of memory\n");
		return 1;
	}
	qpb[QPN] = &(struct fqp){ .qpn = QPN, .pkey = 0xffff, .state = QPS_RTS, .pd = &pdb };
	req_init(r, porta, o.size, q, mra, &pda);
	resp_init(s, portb, qpb, mrb);
	e = (struct engine){ .o = &o, .r = r, .s = s, .pa = pa, .pb = pb };
	if (rte_eal_remote_launch(engine_main, &e, lcore) != 0) {
		fprintf(stderr, "rnic-bench-floor: cannot launch lcore %u\n", lcore);
		return 1;
	}
	app_run(q, &o, src, &msgs, &cycles);
	rte_eal_wait_lcore(lcore);
	/* Every message sent was placed, in order (the responder checks the
	 * PSNs), and each slot of the target holds what the source did. */
	if (r->stalled || s->bad || s->placed == 0 || s->placed != r->fetched ||
	    memcmp(mr, src, RTE_MIN(s->placed, MR_BYTES / o.size) * o.size) != 0) {
		fprintf(stderr, "rnic-bench-floor: %" PRIu64 " placed of %u sent, %" PRIu64
			" bad%s\n", s->placed, r->fetched, s->bad,
			r->stalled ? ", no ACK for 1 s" : "");
		return 1;
	}
	printf("floor: size=%u burst=%u window=%u cq_mod=%u msgs_per_s=%.0f ns_per_msg=%.1f "
	       "placed=%" PRIu64 "\n", o.size, o.burst, o.window, o.cq_mod,
	       (double)msgs * (double)hz / (double)cycles,
	       (double)cycles / (double)hz * 1e9 / (double)msgs, s->placed);
	rte_eal_cleanup();
	return 0;
}
