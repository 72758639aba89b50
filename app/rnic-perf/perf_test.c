/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: the measurements, after perftest's run_iter_bw / run_iter_lat.
 *
 * Bandwidth: per QP, keep at most -t WRs outstanding, post them -l at a
 * time, signal one in -Q (and the last), count a signaled completion as
 * completing every earlier WR of its QP. Rate = completed messages over
 * the span from the first post to the last completion (-n), or over the
 * measured part of -D (after --margin). Peak: the best rate over any
 * window of max(1 ms, a tenth of the span), sampled every 100 us.
 * Send tests keep -r receives posted per QP and repost as they complete.
 *
 * Latency: ping-pong, one message in flight. write_lat: each side watches
 * the last byte of its buffer and writes back (perftest's method); send_lat:
 * each side waits for a receive completion and sends back; both report half
 * the round trip. read_lat / atomic_lat: one operation's round trip.
 *
 * raw_lat (perf_run_raw): no RDMA at all, the latency baseline of the
 * link: one Ethernet frame at a time to a peer that sends it straight
 * back (dpdk-testpmd --forward-mode=macswap), half the round trip.
 *
 * Every completion must succeed; after each size the data that arrived
 * last is compared with what was sent (and the FetchAdd counter with the
 * number of operations), so a fast but wrong engine fails the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "perf.h"
#include "rnic_ab.h"
#include "rnic_attach.h"
#include "rnic_trace.h"

volatile int perf_quit;

#define STUCK_SEC    10.0
#define SAMPLE_US    100
#define TRACE_MS     50
#define TRACE_ROWS   6000
#define TRACE_QPS    64
#define WR_SEQ_BITS  40
#define WR_SEQ_MASK  ((1ull << WR_SEQ_BITS) - 1)

static uint64_t hz;

static uint64_t
tsc(void)
{
	return rte_get_tsc_cycles();
}

static double
secs_of(uint64_t cycles)
{
	return (double)cycles / (double)hz;
}

static uint32_t
seed_of(uint64_t size, int side)
{
	return (uint32_t)(size * 7u + (uint64_t)side * 101u + 1u);
}

/* Where the peer's data lands in a target buffer (UD receives have a GRH). */
static uint32_t
recv_off(const struct perf_params *p)
{
	return p->conn == RNIC_QPT_UD ? PERF_UD_GRH : 0;
}

static bool
is_send(const struct perf_params *p)
{
	return p->verb == VERB_SEND;
}

/* ------------------------------------------------------------------ */
/* Bandwidth: one requester direction                                  */
/* ------------------------------------------------------------------ */

struct sample {
	uint64_t t;
	uint64_t c;
};

struct dir {
	const struct perf_opts *o;
	struct perf_side *s;
	uint64_t size;
	uint64_t iters;              /* per QP, 0: until stopped (-D) */
	uint64_t *scnt, *ccnt;
	/* The poster's other state per QP, in one place (a post reads and
	 * writes all of it; with 16384 QPs each array is a cache miss). */
	struct qp_post {
		uint32_t sig_mod;    /* scnt % cq_mod, kept without a division */
		uint8_t last_sig;    /* the last WR posted on the QP was signaled */
		uint8_t queued;      /* the QP is in ready[] */
	} *qs;
	/* QPs with room for a WR, in the order room appeared: the poster
	 * visits these, not every QP (with 16384 QPs nearly all are full). */
	uint32_t *ready;
	uint32_t ready_head, ready_n;
	uint32_t busy_qps;           /* QPs with WRs outstanding or still to post */
	uint64_t posted, completed;
	bool stopping;
	bool done;
	uint64_t errors;
	struct rnic_send_wr *wr;
	struct rnic_sge *sge;
	/* measurement */
	uint64_t t_first, t_last;    /* first post, last completion */
	uint64_t m_t0, m_c0;         /* -D: measured span start */
	uint64_t m_t1, m_c1;         /* -D: measured span end */
	uint64_t m_ob0, m_ob1;       /* -D on an impaired link: its port's TX bytes then */
	bool measuring;
	struct sample *smp;
	uint32_t n_smp, cap_smp;
	uint64_t next_smp;
	/* --flow-trace: every QP's completions every TRACE_MS from the first
	 * post, TRACE_ROWS rows at most, the first TRACE_QPS QPs */
	uint64_t *tr_cnt, *tr_t;
	uint32_t n_tr;
	uint64_t next_tr;
	uint64_t last_progress;      /* tsc of the last completion */
};

static int
dir_init(struct dir *d, const struct perf_opts *o, struct perf_side *s, uint64_t size)
{
	const struct perf_params *p = &o->p;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->s = s;
	d->size = size;
	d->iters = p->duration > 0 ? 0 : p->iters;
	d->scnt = calloc(s->nqp, sizeof(uint64_t));
	d->ccnt = calloc(s->nqp, sizeof(uint64_t));
	d->qs = calloc(s->nqp, sizeof(*d->qs));
	d->ready = calloc(s->nqp, sizeof(uint32_t));
	d->wr = calloc(p->post_list, sizeof(*d->wr));
	d->sge = calloc(p->post_list, sizeof(*d->sge));
	d->cap_smp = 4096;
	d->smp = malloc(sizeof(*d->smp) * d->cap_smp);
	if (!d->scnt || !d->ccnt || !d->qs || !d->ready || !d->wr ||
	    !d->sge || !d->smp)
		return -1;
	for (uint32_t q = 0; q < s->nqp; q++) {
		d->ready[q] = q;
		d->qs[q].queued = 1;
	}
	d->ready_n = s->nqp;
	d->busy_qps = s->nqp;
	for (uint32_t j = 0; j < p->post_list; j++) {
		struct rnic_send_wr *w = &d->wr[j];
		struct rnic_sge *g = &d->sge[j];

		g->addr = (uintptr_t)side_local(s);
		g->length = (uint32_t)size;
		g->lkey = rnic_mr_lkey(s->mr);
		w->sg_list = g;
		w->num_sge = size ? 1 : 0;
		w->next = j + 1 < p->post_list ? &d->wr[j + 1] : NULL;
		switch (p->verb) {
		case VERB_SEND:
			w->opcode = RNIC_WR_SEND;
			break;
		case VERB_WRITE:
			w->opcode = RNIC_WR_RDMA_WRITE;
			w->wr.rdma.remote_addr = s->peer_addr;
			w->wr.rdma.rkey = s->peer_rkey;
			break;
		case VERB_READ:
			w->opcode = RNIC_WR_RDMA_READ;
			w->wr.rdma.remote_addr = s->peer_addr;
			w->wr.rdma.rkey = s->peer_rkey;
			break;
		default:
			g->length = 8;
			w->num_sge = 1;
			if (p->atomic_type == ATOMIC_FETCH_AND_ADD) {
				w->opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
				w->wr.atomic.compare_add = 1;
			} else {
				w->opcode = RNIC_WR_ATOMIC_CMP_AND_SWP;
				w->wr.atomic.compare_add = 0;
				w->wr.atomic.swap = 0;
			}
			w->wr.atomic.remote_addr = s->peer_addr;
			w->wr.atomic.rkey = s->peer_rkey;
			break;
		}
	}
	return 0;
}

static void
dir_free(struct dir *d)
{
	free(d->scnt);
	free(d->ccnt);
	free(d->qs);
	free(d->ready);
	free(d->wr);
	free(d->sge);
	free(d->smp);
	free(d->tr_cnt);
	free(d->tr_t);
	memset(d, 0, sizeof(*d));
}

static void
dir_sample(struct dir *d, uint64_t now)
{
	if (!d->measuring || now < d->next_smp || d->o->p.no_peak)
		return;
	d->next_smp = now + hz * SAMPLE_US / 1000000;
	if (d->n_smp == d->cap_smp) {
		struct sample *n = realloc(d->smp, sizeof(*n) * d->cap_smp * 2);

		if (n == NULL)
			return;
		d->smp = n;
		d->cap_smp *= 2;
	}
	d->smp[d->n_smp++] = (struct sample){ now, d->completed };
}

/* --flow-trace: a row of every QP's completions, every TRACE_MS. */
static void
dir_trace(struct dir *d, uint64_t now)
{
	uint32_t nq = RTE_MIN(d->s->nqp, (uint32_t)TRACE_QPS);

	if (d->o->flow_trace == NULL || now < d->next_tr || d->n_tr == TRACE_ROWS)
		return;
	if (d->tr_cnt == NULL) {
		d->tr_cnt = calloc((size_t)TRACE_ROWS * nq, sizeof(*d->tr_cnt));
		d->tr_t = calloc(TRACE_ROWS, sizeof(*d->tr_t));
		if (d->tr_cnt == NULL || d->tr_t == NULL) {
			d->n_tr = TRACE_ROWS;   /* no trace */
			return;
		}
	}
	d->next_tr = now + hz * TRACE_MS / 1000;
	d->tr_t[d->n_tr] = now;
	memcpy(&d->tr_cnt[(size_t)d->n_tr * nq], d->ccnt, nq * sizeof(*d->ccnt));
	d->n_tr++;
}

/* --flow-trace FILE: CSV, one row per TRACE_MS interval: its end in
 * seconds from the first row, then each QP's rate over it in Gb/s. */
static void
dir_trace_write(const struct dir *d)
{
	uint32_t nq = RTE_MIN(d->s->nqp, (uint32_t)TRACE_QPS);
	FILE *f;

	if (d->o->flow_trace == NULL || d->tr_cnt == NULL || d->n_tr < 2)
		return;
	f = fopen(d->o->flow_trace, "w");
	if (f == NULL) {
		fprintf(stderr, "rnic-perf: --flow-trace %s: %s\n", d->o->flow_trace,
			strerror(errno));
		return;
	}
	fprintf(f, "t_s");
	for (uint32_t q = 0; q < nq; q++)
		fprintf(f, ",qp%u_gbps", q);
	fprintf(f, "\n");
	for (uint32_t i = 1; i < d->n_tr; i++) {
		double dt = secs_of(d->tr_t[i] - d->tr_t[i - 1]);

		fprintf(f, "%.4f", secs_of(d->tr_t[i] - d->tr_t[0]));
		for (uint32_t q = 0; q < nq; q++) {
			uint64_t c = d->tr_cnt[(size_t)i * nq + q] -
				     d->tr_cnt[(size_t)(i - 1) * nq + q];

			fprintf(f, ",%.4f", (double)c * (double)d->size * 8 / dt / 1e9);
		}
		fprintf(f, "\n");
	}
	fclose(f);
}

/* The bytes the side's port has sent (on an impaired link: what left its
 * bottleneck, frames as the shaper counts them). */
static uint64_t
port_obytes(const struct dir *d)
{
	struct rte_eth_stats st;

	if (rnic_dev_is_attached(d->s->dev))   /* the daemon's port, not ours */
		return 0;
	return rte_eth_stats_get(d->s->port_id, &st) == 0 ? st.obytes : 0;
}

static void
dir_measure_start(struct dir *d, uint64_t now)
{
	d->measuring = true;
	d->m_t0 = now;
	d->m_c0 = d->completed;
	d->m_ob0 = port_obytes(d);
	d->n_smp = 0;
	d->next_smp = 0;
	dir_sample(d, now);
}

/* QP @p q may take another post list now. */
static inline bool
dir_room(const struct dir *d, uint32_t q)
{
	const struct perf_params *p = &d->o->p;

	return (d->iters == 0 || d->scnt[q] < d->iters) &&
	       d->scnt[q] - d->ccnt[q] + p->post_list <= p->tx_depth;
}

static inline void
dir_ready(struct dir *d, uint32_t q)
{
	uint32_t nqp = d->s->nqp, tail = d->ready_head + d->ready_n;

	if (d->qs[q].queued)
		return;
	d->ready[tail >= nqp ? tail - nqp : tail] = q;
	d->ready_n++;
	d->qs[q].queued = 1;
}

/* Post what the window allows on up to @p max_qps of the QPs with room. */
static unsigned int
dir_post(struct dir *d, uint32_t max_qps)
{
	const struct perf_params *p = &d->o->p;
	struct perf_side *s = d->s;
	const bool inl = d->size <= p->inline_size &&
			 (p->verb == VERB_WRITE || p->verb == VERB_SEND);
	unsigned int posted = 0;

	if (d->stopping || d->errors)
		return 0;
	for (uint32_t k = 0; k < max_qps && d->ready_n > 0; k++) {
		uint32_t q = d->ready[d->ready_head];

		if (++d->ready_head == s->nqp)
			d->ready_head = 0;
		d->ready_n--;
		d->qs[q].queued = 0;
		while (dir_room(d, q)) {
			uint64_t n = p->post_list;
			struct rnic_send_wr *bad;
			uint32_t m = d->qs[q].sig_mod;   /* stepped to (seq + 1) % cq_mod */
			int rc;

			if (d->iters && d->iters - d->scnt[q] < n)
				n = d->iters - d->scnt[q];
			for (uint64_t j = 0; j < n; j++) {
				uint64_t seq = d->scnt[q] + j;
				struct rnic_send_wr *w = &d->wr[j];

				if (++m == p->cq_mod)
					m = 0;
				w->wr_id = ((uint64_t)q << WR_SEQ_BITS) | seq;
				w->send_flags = (inl ? RNIC_SEND_INLINE : 0) |
						(m == 0 || (d->iters && seq + 1 == d->iters) ?
						 RNIC_SEND_SIGNALED : 0);
				if (p->conn == RNIC_QPT_UD) {
					w->wr.ud.ah = s->ah;
					w->wr.ud.remote_qpn = s->peer_qpn[q];
					w->wr.ud.remote_qkey = s->peer_qkey;
				}
				w->next = j + 1 < n ? &d->wr[j + 1] : NULL;
			}
			rc = rnic_post_send(s->qp[q], d->wr, &bad);
			d->wr[n - 1].next = n < p->post_list ? &d->wr[n] : NULL;
			if (rc == -ENOMEM && bad != NULL) {
				/* The engine frees a send queue slot just after
				 * the completion is visible: what did not fit is
				 * posted again next time. */
				n = (uint64_t)(bad - d->wr);
				if (n == 0)
					break;
			} else if (rc != 0) {
				fprintf(stderr, "rnic-perf: post_send on QP %#x: %s\n",
					rnic_qp_num(s->qp[q]), strerror(-rc));
				d->errors++;
				return posted;
			}
			if (d->posted == 0)
				d->t_first = tsc();
			d->qs[q].last_sig = (d->wr[n - 1].send_flags & RNIC_SEND_SIGNALED) != 0;
			d->scnt[q] += n;
			/* n <= post_list <= tx_depth: a few subtractions */
			for (m = d->qs[q].sig_mod + (uint32_t)n; m >= p->cq_mod; )
				m -= p->cq_mod;
			d->qs[q].sig_mod = m;
			d->posted += n;
			posted += (unsigned int)n;
			if (rc != 0)
				break;
		}
		if (dir_room(d, q))   /* the send queue was full: again later */
			dir_ready(d, q);
	}
	return posted;
}

/* -D ends: each QP whose last WR went unsignaled gets one signaled WR, so
 * that every WR posted is seen to complete. */
static void
dir_stop(struct dir *d)
{
	const struct perf_params *p = &d->o->p;
	struct perf_side *s = d->s;

	if (d->stopping)
		return;
	d->stopping = true;
	for (uint32_t q = 0; q < s->nqp && !d->errors; q++) {
		struct rnic_send_wr *bad, *w = &d->wr[0];
		uint64_t seq = d->scnt[q];
		int rc;

		if (seq == 0 || d->qs[q].last_sig)
			continue;
		/* The window may be full: wait (the engine drains it). */
		while (d->scnt[q] - d->ccnt[q] + 1 > p->tx_depth && !d->errors && !perf_quit) {
			struct rnic_wc wc[32];
			int n = rnic_poll_cq(s->scq, 32, wc);

			for (int i = 0; i < n; i++) {
				uint32_t wq = (uint32_t)(wc[i].wr_id >> WR_SEQ_BITS);
				uint64_t ws = wc[i].wr_id & WR_SEQ_MASK;

				if (wc[i].status != RNIC_WC_SUCCESS) {
					d->errors++;
					fprintf(stderr, "rnic-perf: completion error on QP %#x: %s\n",
						wc[i].qp_num, rnic_wc_status_str(wc[i].status));
				} else if (wq < s->nqp && ws + 1 > d->ccnt[wq]) {
					d->completed += ws + 1 - d->ccnt[wq];
					d->ccnt[wq] = ws + 1;
				}
			}
			perf_poll(n == 0);
		}
		w->wr_id = ((uint64_t)q << WR_SEQ_BITS) | seq;
		w->send_flags = RNIC_SEND_SIGNALED;
		if (p->conn == RNIC_QPT_UD) {
			w->wr.ud.ah = s->ah;
			w->wr.ud.remote_qpn = s->peer_qpn[q];
			w->wr.ud.remote_qkey = s->peer_qkey;
		}
		w->next = NULL;
		while ((rc = rnic_post_send(s->qp[q], w, &bad)) == -ENOMEM && !perf_quit)
			perf_poll(true);   /* the slot frees just after its completion */
		w->next = p->post_list > 1 ? &d->wr[1] : NULL;
		if (rc != 0) {
			fprintf(stderr, "rnic-perf: post_send: %s\n", strerror(-rc));
			d->errors++;
			break;
		}
		d->scnt[q]++;
		if (++d->qs[q].sig_mod == p->cq_mod)
			d->qs[q].sig_mod = 0;
		d->posted++;
		d->qs[q].last_sig = 1;
	}
	/* From now on a QP is finished when everything it posted completed. */
	d->busy_qps = 0;
	for (uint32_t q = 0; q < s->nqp; q++)
		if (d->ccnt[q] < d->scnt[q])
			d->busy_qps++;
	if (d->busy_qps == 0)
		d->done = true;
}

/* Completions taken per rnic_poll_cq call. */
#define POLL_BATCH 64

static unsigned int
dir_poll(struct dir *d)
{
	struct rnic_wc wc[POLL_BATCH];
	struct perf_side *s = d->s;
	int n = rnic_poll_cq(s->scq, RTE_DIM(wc), wc);
	uint64_t now;

	if (n <= 0)
		return 0;
	now = tsc();
	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)(wc[i].wr_id >> WR_SEQ_BITS);
		uint64_t seq = wc[i].wr_id & WR_SEQ_MASK;

		if (wc[i].status != RNIC_WC_SUCCESS) {
			if (d->errors++ < 5)
				fprintf(stderr, "rnic-perf: completion with error on QP %#x wr %" PRIu64
					": %s (vendor_err %#x)\n", wc[i].qp_num, seq,
					rnic_wc_status_str(wc[i].status), wc[i].vendor_err);
			continue;
		}
		if (q >= s->nqp || seq + 1 <= d->ccnt[q])
			continue;
		d->completed += seq + 1 - d->ccnt[q];
		d->ccnt[q] = seq + 1;
		if (dir_room(d, q))
			dir_ready(d, q);
		if (d->ccnt[q] == d->scnt[q] &&
		    ((d->iters && d->ccnt[q] == d->iters) || (d->stopping && d->qs[q].last_sig)))
			d->busy_qps--;
	}
	d->t_last = now;
	d->last_progress = now;
	dir_sample(d, now);
	dir_trace(d, now);
	if (d->busy_qps == 0 && (d->iters || d->stopping))
		d->done = true;
	return (unsigned int)n;
}

/* The best rate over a window of at least @p w cycles. */
static double
peak_rate(const struct dir *d, uint64_t w)
{
	double best = 0;
	uint32_t j = 0;

	for (uint32_t i = 0; i < d->n_smp; i++) {
		if (j < i)
			j = i;
		while (j < d->n_smp && d->smp[j].t - d->smp[i].t < w)
			j++;
		if (j == d->n_smp)
			break;
		double r = (double)(d->smp[j].c - d->smp[i].c) / secs_of(d->smp[j].t - d->smp[i].t);

		if (r > best)
			best = r;
	}
	return best;
}

/* On an impaired link with several QPs (a shared bottleneck): each QP's
 * rate over the whole run and Jain's fairness index of them, on stderr. */
static void
flows_report(const struct dir *d)
{
	double secs = d->t_last > d->t_first ? secs_of(d->t_last - d->t_first) : 1e-9;
	double sum = 0, sq = 0;
	uint32_t n = d->s->nqp;

	fprintf(stderr, "flows: n=%u gbps=", n);
	for (uint32_t q = 0; q < n; q++) {
		double g = (double)d->ccnt[q] * (double)d->size * 8 / secs / 1e9;

		sum += g;
		sq += g * g;
		if (q < 64)
			fprintf(stderr, "%s%.3f", q ? "," : "", g);
	}
	fprintf(stderr, " jain=%.3f\n", sq > 0 ? sum * sum / (n * sq) : 0.0);
}

static void
dir_result(const struct dir *d, struct perf_result *r)
{
	const struct perf_params *p = &d->o->p;
	uint64_t msgs, t0, t1;
	double secs;

	if (p->duration > 0 && d->m_t1 == 0) {   /* stopped by an error */
		msgs = 0;
		t0 = t1 = 0;
	} else if (p->duration > 0) {
		msgs = d->m_c1 - d->m_c0;
		t0 = d->m_t0;
		t1 = d->m_t1;
	} else {
		msgs = d->completed;
		t0 = d->t_first;
		t1 = d->t_last;
	}
	secs = t1 > t0 ? secs_of(t1 - t0) : 1e-9;
	r->size = d->size;
	r->iters = msgs;
	r->secs = secs;
	r->msg_rate = (double)msgs / secs;
	r->bw_avg = r->msg_rate * (double)d->size;
	if (!p->no_peak) {
		uint64_t span = t1 - t0, w = RTE_MAX(hz / 1000, span / 10);

		r->bw_peak = peak_rate(d, w) * (double)d->size;
		if (r->bw_peak < r->bw_avg)   /* short runs: fewer samples than a window */
			r->bw_peak = r->bw_avg;
	}
	r->errors = d->errors;
	if (d->o->impair && d->s->nqp > 1)
		flows_report(d);
	/* What the link carried in the measured span (headers, ACKs and
	 * resends included): against a bottleneck's rate, its utilisation. */
	if (d->o->impair && p->duration > 0 && t1 > t0)
		fprintf(stderr, "link: tx_gbps=%.4f\n",
			(double)(d->m_ob1 - d->m_ob0) * 8 / secs_of(t1 - t0) / 1e9);
	dir_trace_write(d);
}

/* ------------------------------------------------------------------ */
/* Receives (send tests)                                               */
/* ------------------------------------------------------------------ */

struct rxs {
	const struct perf_opts *o;
	struct perf_side *s;
	uint64_t size;
	uint64_t received;
	uint64_t errors;
	bool active;
};

static int
rx_post(struct rxs *x, uint32_t q, uint32_t n)
{
	struct perf_side *s = x->s;
	struct rnic_sge sge = { (uintptr_t)side_target(s), (uint32_t)s->half,
				rnic_mr_lkey(s->mr) };
	struct rnic_recv_wr w = { .wr_id = q, .sg_list = &sge, .num_sge = 1 };
	struct rnic_recv_wr *bad;

	for (uint32_t i = 0; i < n; i++) {
		int rc = rnic_post_recv(s->qp[q], &w, &bad);

		if (rc != 0) {
			fprintf(stderr, "rnic-perf: post_recv on QP %#x: %s\n",
				rnic_qp_num(s->qp[q]), strerror(-rc));
			x->errors++;
			return -1;
		}
	}
	return 0;
}

/* Fill every receive queue (once per run: they stay posted across sizes). */
static int
rx_prepost(const struct perf_opts *o, struct perf_side *s)
{
	struct rxs x = { .o = o, .s = s };

	for (uint32_t q = 0; q < s->nqp; q++)
		if (rx_post(&x, q, o->p.rx_depth) != 0)
			return -1;
	return 0;
}

static unsigned int
rx_poll(struct rxs *x)
{
	struct rnic_wc wc[64];
	struct perf_side *s = x->s;
	int n = rnic_poll_cq(s->rcq, RTE_DIM(wc), wc);
	uint32_t want = (uint32_t)x->size + recv_off(&x->o->p);

	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)wc[i].wr_id;

		if (wc[i].status != RNIC_WC_SUCCESS || wc[i].byte_len != want) {
			if (x->errors++ < 5)
				fprintf(stderr, "rnic-perf: receive completion on QP %#x: %s, "
					"%u bytes (want %u)\n", wc[i].qp_num,
					rnic_wc_status_str(wc[i].status), wc[i].byte_len, want);
			continue;
		}
		x->received++;
		if (q < s->nqp)
			rx_post(x, q, 1);
	}
	return n > 0 ? (unsigned int)n : 0;
}

/* After a size: take in the receive completions still queued. RC: until
 * @p expect arrived; UC/UD (may drop when the receives ran out): until
 * quiet for 50 ms. */
static int
rx_drain(struct rxs *x, uint64_t expect)
{
	uint64_t quiet = tsc(), end = tsc() + (uint64_t)(STUCK_SEC * (double)hz);
	bool rc = x->o->p.conn == RNIC_QPT_RC;

	while (!perf_quit) {
		unsigned int n = rx_poll(x);

		if (n)
			quiet = tsc();
		if (rc && x->received >= expect)
			return 0;
		if (!rc && (x->received >= expect || tsc() - quiet > hz / 20))
			return 0;
		if (tsc() > end) {
			fprintf(stderr, "rnic-perf: %" PRIu64 " of %" PRIu64 " messages received\n",
				x->received, expect);
			x->errors++;
			return -1;
		}
		perf_poll(n == 0);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Data checks                                                         */
/* ------------------------------------------------------------------ */

/* Fill the areas a size reads from: the requester's local source (seed
 * of side r) and the target of the other side (seed of that side). */
static void
prepare_local(const struct perf_params *p, struct perf_side *s, uint64_t size)
{
	perf_pattern(side_local(s), RTE_MAX(size, (uint64_t)8), seed_of(size, s->idx));
	if (p->verb == VERB_READ) {
		perf_pattern(side_target(s), RTE_MAX(size, (uint64_t)8), seed_of(size, s->idx) ^ 0x55);
	} else if (p->verb == VERB_ATOMIC) {
		memset(side_target(s), 0, 8);
	} else {
		memset(side_target(s), 0, RTE_MAX(size, (uint64_t)8) + recv_off(p));
	}
}

/*
 * Check what side @p dst holds after side @p src_idx sent it @p ops
 * operations of @p size: write/send data at the target, FetchAdd counter.
 * READ is checked on the requester (check_read).
 */
static int
check_target(const struct perf_params *p, const struct perf_side *dst, int src_idx,
	     uint64_t size, uint64_t ops, uint64_t received)
{
	const uint8_t *t = side_target(dst) + recv_off(p);
	int64_t bad = -1;

	if (p->verb == VERB_ATOMIC) {
		uint64_t v;

		if (p->atomic_type != ATOMIC_FETCH_AND_ADD)
			return 0;
		memcpy(&v, side_target(dst), 8);
		if (v != ops) {
			fprintf(stderr, "rnic-perf: FetchAdd counter %" PRIu64 " after %" PRIu64
				" operations\n", v, ops);
			return -1;
		}
		return 0;
	}
	if (p->verb == VERB_READ || size == 0 || (p->verb == VERB_SEND && received == 0))
		return 0;
	/* UC completes on transmit: give the last bytes a moment to land. */
	for (uint64_t end = tsc() + hz; ; ) {
		bad = perf_pattern_check(t, size, seed_of(size, src_idx));
		if (bad < 0 || p->conn == RNIC_QPT_RC || tsc() > end)
			break;
		perf_poll(true);
	}
	if (bad >= 0) {
		fprintf(stderr, "rnic-perf: data check: byte %" PRId64 " of the last %s of %" PRIu64
			" bytes differs\n", bad, p->verb == VERB_SEND ? "receive" : "write", size);
		return -1;
	}
	return 0;
}

static int
check_read(const struct perf_params *p, const struct perf_side *req, int resp_idx,
	   uint64_t size)
{
	int64_t bad;

	if (p->verb != VERB_READ || size == 0)
		return 0;
	bad = perf_pattern_check(side_local(req), size, seed_of(size, resp_idx) ^ 0x55);
	if (bad >= 0) {
		fprintf(stderr, "rnic-perf: data check: byte %" PRId64 " of the last READ of %"
			PRIu64 " bytes differs\n", bad, size);
		return -1;
	}
	return 0;
}

static int
async_events(struct perf_side *s)
{
	struct rnic_async_event ev;
	int n = 0;

	while (s->dev != NULL && rnic_get_async_event(s->dev, &ev) == 1) {
		fprintf(stderr, "rnic-perf: async event %d on QP %#x\n", ev.type, ev.qp_num);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The bandwidth loop                                                  */
/* ------------------------------------------------------------------ */

struct bw_run {
	const struct perf_opts *o;
	struct dir *d[2];            /* requester directions in this process */
	unsigned int nd;
	struct rxs *x[2];            /* receivers in this process (send) */
	unsigned int nx;
	struct perf_oob *oob;        /* memif server: stop on the client's DONE */
};

static int
stuck(struct bw_run *b, uint64_t now)
{
	for (unsigned int i = 0; i < b->nd; i++) {
		struct dir *d = b->d[i];

		if (!d->done && d->posted > d->completed &&
		    now - RTE_MAX(d->last_progress, d->t_first) > (uint64_t)(STUCK_SEC * (double)hz)) {
			fprintf(stderr, "rnic-perf: no completion for %.0f s (%" PRIu64 " of %" PRIu64
				" WRs completed)\n", STUCK_SEC, d->completed, d->posted);
			return 1;
		}
	}
	return 0;
}

static void
progress_line(struct bw_run *b, uint64_t now, uint64_t t_start, uint64_t *last_t,
	      uint64_t *last_c)
{
	uint64_t c = 0;
	double dt = secs_of(now - *last_t), rate;
	uint64_t size = b->d[0]->size;

	for (unsigned int i = 0; i < b->nd; i++)
		c += b->d[i]->completed;
	rate = (double)(c - *last_c) / dt;
	fprintf(stderr, "progress: %5.1f s  size %" PRIu64 "  %.2f MB/sec  %.6f Mpps  %" PRIu64
		" completed\n", secs_of(now - t_start), size, rate * (double)size / 1048576.0,
		rate / 1e6, c);
	*last_t = now;
	*last_c = c;
}

static int
bw_loop(struct bw_run *b)
{
	const struct perf_params *p = &b->o->p;
	uint64_t start = tsc(), now = start;
	uint64_t t_margin = start + (uint64_t)(p->margin * (double)hz);
	uint64_t t_end = start + (uint64_t)(p->duration * (double)hz);
	uint64_t next_prog = start + hz, last_t = start, last_c = 0;
	bool measuring = p->duration == 0;
	/* Visit at most this many QPs between CQ polls. */
	uint32_t qp_batch = 256;
	unsigned int iter = 0;

	for (unsigned int i = 0; i < b->nd; i++) {
		b->d[i]->last_progress = start;
		if (measuring)
			dir_measure_start(b->d[i], start);
	}
	for (;;) {
		unsigned int work = 0;
		bool all_done = true;

		for (unsigned int i = 0; i < b->nd; i++) {
			struct dir *d = b->d[i];

			if (d->done)
				continue;
			all_done = false;
			work += dir_post(d, qp_batch);
			/* As many completions as dir_post visits QPs: one
			 * poll of POLL_BATCH against up to qp_batch QPs
			 * posted to left 16384 QPs short of work (the engine
			 * idle 11% of the time; 1.39 -> 1.71 M msgs/s). */
			for (unsigned int k = 0, n = POLL_BATCH;
			     k < qp_batch / POLL_BATCH && n == POLL_BATCH; k++) {
				n = dir_poll(d);
				work += n;
			}
			if (d->errors)
				return -1;
		}
		for (unsigned int i = 0; i < b->nx; i++) {
			work += rx_poll(b->x[i]);
			if (b->x[i]->errors)
				return -1;
		}
		if (all_done && b->oob == NULL)
			break;
		perf_poll(work == 0);
		/* The clock every 64 turns, busy or idle: a pure responder
		 * (the memif server) has no work of its own in any turn, and
		 * reading the TSC in each was 6% of its CPU on the AMD VM. */
		if ((++iter & 63) != 0)
			continue;
		now = tsc();
		if (p->duration > 0) {
			if (!measuring && now >= t_margin) {
				measuring = true;
				for (unsigned int i = 0; i < b->nd; i++)
					dir_measure_start(b->d[i], now);
			}
			if (now >= t_end) {
				for (unsigned int i = 0; i < b->nd; i++) {
					struct dir *d = b->d[i];

					if (!d->stopping) {
						d->m_t1 = now;
						d->m_c1 = d->completed;
						d->m_ob1 = port_obytes(d);
						dir_stop(d);
					}
				}
			}
		}
		if (b->o->progress && now >= next_prog && b->nd) {
			progress_line(b, now, start, &last_t, &last_c);
			next_prog += hz;
		}
		if (perf_quit) {
			fprintf(stderr, "rnic-perf: interrupted\n");
			return -1;
		}
		if (stuck(b, now))
			return -1;
		if (b->oob != NULL && (iter & 1023) == 0) {
			int pend = perf_oob_pending(b->oob);

			if (pend < 0)
				return -1;
			if (pend > 0 && all_done)
				break;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Latency: ping on one side, pong on the other                        */
/* ------------------------------------------------------------------ */

struct lat_side {
	const struct perf_opts *o;
	struct perf_side *s;
	uint64_t size;
	uint8_t last;                /* write: the marker last seen */
	uint64_t errors;
	bool inl;
};

static void
lat_init(struct lat_side *l, const struct perf_opts *o, struct perf_side *s, uint64_t size)
{
	memset(l, 0, sizeof(*l));
	l->o = o;
	l->s = s;
	l->size = size;
	l->inl = size <= o->p.inline_size &&
		 (o->p.verb == VERB_WRITE || o->p.verb == VERB_SEND);
}

static int
lat_post(struct lat_side *l, uint64_t id)
{
	const struct perf_params *p = &l->o->p;
	struct perf_side *s = l->s;
	struct rnic_sge sge = { (uintptr_t)side_local(s), (uint32_t)l->size, rnic_mr_lkey(s->mr) };
	struct rnic_send_wr w = { .wr_id = id, .sg_list = &sge, .num_sge = l->size ? 1 : 0,
				  .send_flags = RNIC_SEND_SIGNALED | (l->inl ? RNIC_SEND_INLINE : 0) };
	struct rnic_send_wr *bad;
	int rc;

	switch (p->verb) {
	case VERB_SEND:
		w.opcode = RNIC_WR_SEND;
		if (p->conn == RNIC_QPT_UD) {
			w.wr.ud.ah = s->ah;
			w.wr.ud.remote_qpn = s->peer_qpn[0];
			w.wr.ud.remote_qkey = s->peer_qkey;
		}
		break;
	case VERB_WRITE:
		w.opcode = RNIC_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = s->peer_addr;
		w.wr.rdma.rkey = s->peer_rkey;
		break;
	case VERB_READ:
		w.opcode = RNIC_WR_RDMA_READ;
		w.wr.rdma.remote_addr = s->peer_addr;
		w.wr.rdma.rkey = s->peer_rkey;
		break;
	default:
		sge.length = 8;
		w.num_sge = 1;
		w.opcode = p->atomic_type == ATOMIC_FETCH_AND_ADD ? RNIC_WR_ATOMIC_FETCH_AND_ADD :
			   RNIC_WR_ATOMIC_CMP_AND_SWP;
		w.wr.atomic.remote_addr = s->peer_addr;
		w.wr.atomic.rkey = s->peer_rkey;
		w.wr.atomic.compare_add = p->atomic_type == ATOMIC_FETCH_AND_ADD ? 1 : 0;
		break;
	}
	rc = rnic_post_send(s->qp[0], &w, &bad);
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: post_send: %s\n", strerror(-rc));
		l->errors++;
	}
	return rc;
}

/* Reap send completions: -1 on an error, else how many. */
static int
lat_reap(struct lat_side *l)
{
	struct rnic_wc wc[16];
	int n = rnic_poll_cq(l->s->scq, RTE_DIM(wc), wc);

	for (int i = 0; i < n; i++) {
		if (wc[i].status != RNIC_WC_SUCCESS) {
			fprintf(stderr, "rnic-perf: completion with error on QP %#x: %s\n",
				wc[i].qp_num, rnic_wc_status_str(wc[i].status));
			l->errors++;
			return -1;
		}
	}
	return n;
}

/* Receive one message if there is one: 1, 0, or -1 on error. */
static int
lat_recv(struct lat_side *l)
{
	struct rnic_wc wc;
	struct rxs x = { .o = l->o, .s = l->s, .size = l->size };

	if (rnic_poll_cq(l->s->rcq, 1, &wc) != 1)
		return 0;
	if (wc.status != RNIC_WC_SUCCESS || wc.byte_len != l->size + recv_off(&l->o->p)) {
		fprintf(stderr, "rnic-perf: receive completion: %s, %u bytes\n",
			rnic_wc_status_str(wc.status), wc.byte_len);
		l->errors++;
		return -1;
	}
	if (rx_post(&x, 0, 1) != 0) {
		l->errors++;
		return -1;
	}
	return 1;
}

/* The passive end's step: answer a ping if one arrived. */
static int
pong_step(struct lat_side *l)
{
	const struct perf_params *p = &l->o->p;
	int r;

	if (p->verb == VERB_WRITE) {
		volatile uint8_t *t = side_target(l->s) + l->size - 1;
		uint8_t m = *t;

		if (m != l->last && m != 0) {
			RNIC_TRACE(RNIC_TP_APP_SEEN, 1);
			l->last = m;
			side_local(l->s)[l->size - 1] = m;
			if (lat_post(l, m) != 0)
				return -1;
			r = 1;
		} else {
			r = 0;
		}
	} else if (p->verb == VERB_SEND) {
		r = lat_recv(l);
		if (r == 1 && lat_post(l, 0) != 0)
			return -1;
	} else {
		r = 0;   /* READ and atomics need nothing from the responder */
	}
	if (r >= 0 && lat_reap(l) < 0)
		return -1;
	return r;
}

struct lat_samples {
	double *v;
	uint64_t n, cap;
};

static int
samples_add(struct lat_samples *s, double us)
{
	if (s->n == s->cap) {
		uint64_t nc = s->cap ? s->cap * 2 : 4096;
		double *nv;

		if (nc > PERF_MAX_LAT_SAMPLES)
			return -1;
		nv = realloc(s->v, nc * sizeof(double));
		if (nv == NULL)
			return -1;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = us;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* perftest's statistics: sorted samples, the two largest left out of the
 * typical (median), average, deviation and percentiles. */
static void
lat_stats(struct lat_samples *s, uint64_t size, struct perf_result *r)
{
	uint64_t n = s->n, cnt;
	double sum = 0, var = 0;

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->iters = n;
	if (n == 0)
		return;
	qsort(s->v, n, sizeof(double), cmp_double);
	cnt = n > 3 ? n - 2 : n;
	for (uint64_t i = 0; i < cnt; i++)
		sum += s->v[i];
	r->t_avg = sum / (double)cnt;
	for (uint64_t i = 0; i < cnt; i++)
		var += (s->v[i] - r->t_avg) * (s->v[i] - r->t_avg);
	r->t_stdev = sqrt(var / (double)cnt);
	r->t_min = s->v[0];
	r->t_max = s->v[n - 1];
	r->t_typical = cnt % 2 ? s->v[cnt / 2] : (s->v[cnt / 2 - 1] + s->v[cnt / 2]) / 2;
	r->t_99 = s->v[RTE_MIN((uint64_t)ceil((double)cnt * 0.99), n - 1)];
	r->t_999 = s->v[RTE_MIN((uint64_t)ceil((double)cnt * 0.999), n - 1)];
}

#ifdef RNIC_AB_TOGGLE
/* The in-run A/B build (scripts/ab.sh): each round's sample also goes to
 * the variant that was in force when it was posted, and the loop's end
 * prints both variants' p50 and p99 (an "ab-lat:" line). Only this
 * process's variant is known: a peer in another process switches on its
 * own, so there about half a change's effect on the round trip shows. */
static struct lat_samples ab_lat[2];

static void
ab_lat_report(uint64_t size)
{
	struct perf_result r[2];

	for (int v = 0; v < 2; v++) {
		lat_stats(&ab_lat[v], size, &r[v]);
		free(ab_lat[v].v);
		ab_lat[v] = (struct lat_samples){ 0 };
	}
	if (r[0].iters == 0 || r[1].iters == 0)
		return;
	printf("ab-lat: variant0 p50=%.3f p99=%.3f avg=%.4f n=%" PRIu64 " variant1 p50=%.3f "
	       "p99=%.3f avg=%.4f n=%" PRIu64 " ratio_p50=%.4f ratio_p99=%.4f ratio_avg=%.4f\n",
	       r[0].t_typical, r[0].t_99, r[0].t_avg, r[0].iters, r[1].t_typical, r[1].t_99,
	       r[1].t_avg, r[1].iters, r[1].t_typical / r[0].t_typical, r[1].t_99 / r[0].t_99,
	       r[1].t_avg / r[0].t_avg);
}
#endif

/*
 * The active end: @p pong is the peer in this process (ring/pair) or NULL
 * (memif: the peer process answers). Collects one sample per iteration.
 */
static int
lat_loop(const struct perf_opts *o, struct lat_side *ping, struct lat_side *pong,
	 struct lat_samples *smp)
{
	const struct perf_params *p = &o->p;
	const double half = (p->verb == VERB_WRITE || p->verb == VERB_SEND) ? 2.0 : 1.0;
	const double us_per_cycle = 1e6 / (double)hz;
	uint64_t start = tsc(), t_margin = start + (uint64_t)(p->margin * (double)hz);
	uint64_t t_end = start + (uint64_t)(p->duration * (double)hz);
	uint64_t next_prog = start + hz;
	struct perf_side *s = ping->s;

	for (uint64_t i = 0; p->duration > 0 || i < p->iters; i++) {
		uint8_t m = (uint8_t)(i % 250 + 1);
		volatile uint8_t *t = side_target(s) + ping->size - 1;
		uint64_t t0, t1, deadline;
		bool got = false;

		if (p->verb == VERB_WRITE)
			side_local(s)[ping->size - 1] = m;
#ifdef RNIC_AB_TOGGLE
		const int ab_v = RNIC_AB();
#endif
		t0 = tsc();
		if (lat_post(ping, i) != 0)
			return -1;
		deadline = t0 + (uint64_t)(STUCK_SEC * (double)hz);
		while (!got) {
			if (p->verb == VERB_WRITE) {
				got = *t == m;
				if (lat_reap(ping) < 0)
					return -1;
			} else if (p->verb == VERB_SEND) {
				int r = lat_recv(ping);

				if (r < 0)
					return -1;
				got = r == 1;
				if (lat_reap(ping) < 0)
					return -1;
			} else {
				int r = lat_reap(ping);

				if (r < 0)
					return -1;
				got = r > 0;
			}
			if (got) {
				RNIC_TRACE(RNIC_TP_APP_SEEN, 0);
				break;
			}
			if (pong != NULL && pong_step(pong) < 0)
				return -1;
			perf_poll(false);
			if (perf_quit || tsc() > deadline) {
				fprintf(stderr, "rnic-perf: %s\n", perf_quit ? "interrupted" :
					"no answer for 10 s");
				return -1;
			}
		}
		t1 = tsc();
		if (p->duration == 0 || (t0 >= t_margin)) {
			if (samples_add(smp, (double)(t1 - t0) * us_per_cycle / half) != 0)
				break;
#ifdef RNIC_AB_TOGGLE
			if (samples_add(&ab_lat[ab_v], (double)(t1 - t0) * us_per_cycle / half) != 0)
				break;
#endif
		}
		if (p->duration > 0 && t1 >= t_end)
			break;
		if (o->progress && t1 >= next_prog) {
			fprintf(stderr, "progress: %5.1f s  size %" PRIu64 "  %" PRIu64 " iterations\n",
				secs_of(t1 - start), ping->size, i + 1);
			next_prog += hz;
		}
	}
	/* The last send completion may still be on its way, and the peer's
	 * last message waits for this engine's ACK. */
	for (uint64_t end = tsc() + hz / 10; tsc() < end; ) {
		if (lat_reap(ping) < 0 || (pong != NULL && lat_reap(pong) < 0))
			return -1;
		perf_poll(true);
	}
#ifdef RNIC_AB_TOGGLE
	/* After that: the report sorts millions of samples without polling
	 * (hundreds of ms), which before it outlasted a memif server's
	 * retries of its last WRITE ("transport retry counter exceeded"). */
	ab_lat_report(ping->size);
#endif
	return 0;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

static void
sum_into(struct perf_result *r, const struct perf_result *o)
{
	r->iters += o->iters;
	r->bw_avg += o->bw_avg;
	r->bw_peak += o->bw_peak;
	r->msg_rate += o->msg_rate;
	r->errors += o->errors;
}

/* Both ends in this process. */
int
perf_run_local(const struct perf_opts *o, struct perf_side *a, struct perf_side *b,
	       uint64_t size, struct perf_result *r)
{
	const struct perf_params *p = &o->p;
	static bool preposted;
	int rc = 0;

	hz = rte_get_tsc_hz();
	memset(r, 0, sizeof(*r));
	if (is_send(p) && !preposted) {
		if (rx_prepost(o, b) != 0 || (p->duplex && rx_prepost(o, a) != 0))
			return -1;
		if (p->kind == KIND_LAT && rx_prepost(o, a) != 0)
			return -1;
		preposted = true;
	}
	prepare_local(p, a, size);
	prepare_local(p, b, size);
	if (p->kind == KIND_BW) {
		struct dir d[2];
		struct rxs x[2] = { { .o = o, .s = b, .size = size }, { .o = o, .s = a, .size = size } };
		struct bw_run run = { .o = o };

		if (dir_init(&d[0], o, a, size) != 0 || (p->duplex && dir_init(&d[1], o, b, size) != 0))
			return -1;
		run.d[run.nd++] = &d[0];
		if (p->duplex)
			run.d[run.nd++] = &d[1];
		if (is_send(p)) {
			run.x[run.nx++] = &x[0];
			if (p->duplex)
				run.x[run.nx++] = &x[1];
		}
		rc = bw_loop(&run);
		if (rc == 0 && is_send(p)) {
			rc |= rx_drain(&x[0], d[0].completed);
			if (p->duplex)
				rc |= rx_drain(&x[1], d[1].completed);
		}
		if (rc == 0) {
			rc |= check_target(p, b, a->idx, size, d[0].completed, x[0].received);
			rc |= check_read(p, a, b->idx, size);
			if (p->duplex) {
				rc |= check_target(p, a, b->idx, size, d[1].completed, x[1].received);
				rc |= check_read(p, b, a->idx, size);
			}
		}
		dir_result(&d[0], r);
		if (p->duplex) {
			struct perf_result r2;

			dir_result(&d[1], &r2);
			sum_into(r, &r2);
			dir_free(&d[1]);
		}
		r->errors += x[0].errors + x[1].errors;
		dir_free(&d[0]);
	} else {
		struct lat_side ping, pong;
		struct lat_samples smp = {0};

		lat_init(&ping, o, a, size);
		lat_init(&pong, o, b, size);
		rc = lat_loop(o, &ping, &pong, &smp);
		lat_stats(&smp, size, r);
		r->errors = ping.errors + pong.errors;
		free(smp.v);
	}
	if (async_events(a) + async_events(b))
		rc = -1;
	if (rc != 0 && r->errors == 0)
		r->errors = 1;
	return rc != 0 || r->errors ? -1 : 0;
}

/* What the client tells the server at the end of a size, and the answer. */
struct msg_done {
	uint64_t completed;          /* the client's operations */
	uint64_t pad;
};

struct msg_result {
	int32_t ok;
	uint32_t pad;
	uint64_t completed;          /* the server's operations (-b) */
	struct perf_result r;        /* the server's direction (-b) */
};

/* Wait for a message while the engines (and the receives) keep going. */
static int
oob_wait(struct perf_oob *oob, uint32_t type, void *buf, uint32_t cap, struct rxs *x)
{
	uint64_t end = tsc() + 120 * hz, next = 0;

	for (;;) {
		uint64_t now = tsc();

		if (x != NULL && rx_poll(x) == 0 && x->errors)
			return -1;
		if (now >= next) {
			int pend = perf_oob_pending(oob);

			if (pend < 0) {
				fprintf(stderr, "rnic-perf: the peer is gone\n");
				return -1;
			}
			if (pend > 0)
				return perf_oob_recv(oob, type, buf, cap, 30);
			next = now + hz / 2000;
		}
		if (now > end || perf_quit) {
			fprintf(stderr, "rnic-perf: %s waiting for the peer\n",
				perf_quit ? "interrupted" : "timed out");
			return -1;
		}
		perf_poll(true);
	}
}

int
perf_run_client(const struct perf_opts *o, struct perf_side *a, struct perf_oob *oob,
		uint64_t size, struct perf_result *r)
{
	const struct perf_params *p = &o->p;
	static bool preposted;
	struct msg_result res;
	struct msg_done done = {0};
	uint64_t sz = size;
	int rc = 0;

	hz = rte_get_tsc_hz();
	memset(r, 0, sizeof(*r));
	if (is_send(p) && !preposted && (p->duplex || p->kind == KIND_LAT)) {
		if (rx_prepost(o, a) != 0)
			return -1;
		preposted = true;
	}
	prepare_local(p, a, size);
	if (perf_oob_send(oob, PM_SIZE, &sz, sizeof(sz)) != 0 ||
	    oob_wait(oob, PM_READY, NULL, 0, NULL) < 0)
		return -1;
	if (p->kind == KIND_BW) {
		struct dir d;
		struct rxs x = { .o = o, .s = a, .size = size };
		struct bw_run run = { .o = o };

		if (dir_init(&d, o, a, size) != 0)
			return -1;
		run.d[run.nd++] = &d;
		if (is_send(p) && p->duplex)
			run.x[run.nx++] = &x;
		rc = bw_loop(&run);
		dir_result(&d, r);
		done.completed = d.completed;
		dir_free(&d);
		if (perf_oob_send(oob, PM_DONE, &done, sizeof(done)) != 0 ||
		    oob_wait(oob, PM_RESULT, &res, sizeof(res),
			     is_send(p) && p->duplex ? &x : NULL) != (int)sizeof(res))
			return -1;
		if (p->duplex) {
			if (is_send(p) && rc == 0)
				rc |= rx_drain(&x, res.completed);
			if (rc == 0) {
				rc |= check_target(p, a, 1, size, res.completed, x.received);
				rc |= check_read(p, a, 1, size);
			}
			sum_into(r, &res.r);
		} else if (rc == 0) {
			rc |= check_read(p, a, 1, size);
		}
		r->errors += x.errors;
	} else {
		struct lat_side ping;
		struct lat_samples smp = {0};

		lat_init(&ping, o, a, size);
		rc = lat_loop(o, &ping, NULL, &smp);
		lat_stats(&smp, size, r);
		r->errors = ping.errors;
		free(smp.v);
		if (perf_oob_send(oob, PM_DONE, &done, sizeof(done)) != 0 ||
		    oob_wait(oob, PM_RESULT, &res, sizeof(res), NULL) != (int)sizeof(res))
			return -1;
	}
	if (!res.ok) {
		fprintf(stderr, "rnic-perf: the server reports errors (see its output)\n");
		rc = -1;
	}
	if (async_events(a))
		rc = -1;
	if (rc != 0 && r->errors == 0)
		r->errors = 1;
	/* The row the server prints. */
	if (perf_oob_send(oob, PM_RESULT, r, sizeof(*r)) != 0)
		return -1;
	return rc != 0 || r->errors ? -1 : 0;
}

/* The passive side of one size: returns the row the client reports. */
int
perf_run_server(const struct perf_opts *o, struct perf_side *b, struct perf_oob *oob,
		uint64_t size, struct perf_result *r)
{
	const struct perf_params *p = &o->p;
	static bool preposted;
	struct msg_result res = { .ok = 1 };
	struct msg_done done;
	int rc = 0;

	hz = rte_get_tsc_hz();
	memset(r, 0, sizeof(*r));
	if (is_send(p) && !preposted) {
		if (rx_prepost(o, b) != 0)
			return -1;
		preposted = true;
	}
	prepare_local(p, b, size);
	if (perf_oob_send(oob, PM_READY, NULL, 0) != 0)
		return -1;
	if (p->kind == KIND_BW) {
		struct dir d;
		struct rxs x = { .o = o, .s = b, .size = size };
		struct bw_run run = { .o = o, .oob = oob };

		if (p->duplex) {
			if (dir_init(&d, o, b, size) != 0)
				return -1;
			run.d[run.nd++] = &d;
		}
		if (is_send(p))
			run.x[run.nx++] = &x;
		rc = bw_loop(&run);
		if (rc == 0 && perf_oob_recv(oob, PM_DONE, &done, sizeof(done), 30) !=
		    (int)sizeof(done))
			rc = -1;
		if (rc == 0 && is_send(p))
			rc |= rx_drain(&x, done.completed);
		if (rc == 0) {
			rc |= check_target(p, b, 0, size, done.completed, x.received);
			if (p->duplex)
				rc |= check_read(p, b, 0, size);
		}
		if (p->duplex) {
			dir_result(&d, &res.r);
			res.completed = d.completed;
			res.r.errors += d.errors;
			dir_free(&d);
		}
		rc |= x.errors ? -1 : 0;
	} else {
		struct lat_side pong;
		uint64_t next = 0;

		lat_init(&pong, o, b, size);
		for (;;) {
			uint64_t now;
			int pend;

			if (pong_step(&pong) < 0) {
				rc = -1;
				break;
			}
			perf_poll(false);
			now = tsc();
			if (now < next)
				continue;
			next = now + hz / 2000;
			pend = perf_oob_pending(oob);
			if (pend < 0 || perf_quit) {
				rc = -1;
				break;
			}
			if (pend > 0)
				break;
		}
		if (rc == 0 && perf_oob_recv(oob, PM_DONE, &done, sizeof(done), 30) !=
		    (int)sizeof(done))
			rc = -1;
	}
	if (async_events(b) || perf_check_counters(b, o->verbose, o->impair) != 0)
		rc = -1;
	res.ok = rc == 0;
	if (perf_oob_send(oob, PM_RESULT, &res, sizeof(res)) != 0 ||
	    oob_wait(oob, PM_RESULT, r, sizeof(*r), NULL) != (int)sizeof(*r))
		return -1;
	return rc != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* raw_lat: frame ping-pong without RDMA                               */
/* ------------------------------------------------------------------ */

#define RAW_ETHERTYPE 0x88b5   /* IEEE 802 local experimental */
#define RAW_HDR       (RTE_ETHER_HDR_LEN + sizeof(uint64_t))

/* Our frame @p seq: to 02:00:00:00:00:02 from 02:00:00:00:00:01 (rnic-perf's
 * server and client MACs), the sequence number after the Ethernet header. */
static struct rte_mbuf *
raw_frame(struct perf_side *s, uint32_t len, uint64_t seq)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->rxpool);
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, len);
	memcpy(f, macs, sizeof(macs));
	f[12] = RAW_ETHERTYPE >> 8;
	f[13] = RAW_ETHERTYPE & 0xff;
	memcpy(f + RTE_ETHER_HDR_LEN, &seq, sizeof(seq));
	return m;
}

/* Whether @p m is our frame @p seq come back (source and destination
 * swapped or not: the sequence number decides). */
static bool
raw_is(const struct rte_mbuf *m, uint64_t seq)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t v;

	if (rte_pktmbuf_data_len(m) < RAW_HDR || f[12] != (RAW_ETHERTYPE >> 8) ||
	    f[13] != (RAW_ETHERTYPE & 0xff))
		return false;
	memcpy(&v, f + RTE_ETHER_HDR_LEN, sizeof(v));
	return v == seq;
}

/* One round trip of frame @p seq: 0 and its length in cycles in @p rtt,
 * -1 when it does not come back within STUCK_SEC or on a signal. With
 * @p first, the frame is sent again every 100 ms until one comes back:
 * the memif link is up before the reflector forwards (dpdk-testpmd starts
 * forwarding after its ports), and a frame it got before that is gone;
 * @p rtt is then timed from the last copy sent. */
static int
raw_ping(struct perf_side *s, uint32_t len, uint64_t seq, uint64_t *rtt, uint64_t *strays,
	 bool first)
{
	struct rte_mbuf *m = raw_frame(s, len, seq), *rx[32];
	uint64_t t0, deadline, again;

	if (m == NULL) {
		fprintf(stderr, "rnic-perf: raw_lat: out of mbufs\n");
		return -1;
	}
	t0 = tsc();
	deadline = t0 + (uint64_t)(STUCK_SEC * (double)hz);
	again = t0 + hz / 10;
	while (rte_eth_tx_burst(s->port_id, 0, &m, 1) == 0) {
		if (perf_quit || tsc() > deadline) {
			rte_pktmbuf_free(m);
			fprintf(stderr, "rnic-perf: raw_lat: %s\n", perf_quit ? "interrupted" :
				"the port takes no frame for 10 s");
			return -1;
		}
	}
	for (;;) {
		uint16_t n = rte_eth_rx_burst(s->port_id, 0, rx, RTE_DIM(rx));
		uint64_t t1 = tsc();
		bool got = false;

		for (uint16_t k = 0; k < n; k++) {
			if (raw_is(rx[k], seq))
				got = true;
			else
				(*strays)++;
			rte_pktmbuf_free(rx[k]);
		}
		if (got) {
			*rtt = t1 - t0;
			return 0;
		}
		if (first && t1 > again) {
			struct rte_mbuf *c = raw_frame(s, len, seq);

			again = t1 + hz / 10;
			if (c != NULL && rte_eth_tx_burst(s->port_id, 0, &c, 1) == 1)
				t0 = t1;
			else
				rte_pktmbuf_free(c);
		}
		if (perf_quit || t1 > deadline) {
			fprintf(stderr, "rnic-perf: raw_lat: %s\n", perf_quit ? "interrupted" :
				"frame not back after 10 s (does the peer reflect frames? "
				"dpdk-testpmd --forward-mode=macswap)");
			return -1;
		}
	}
}

int
perf_run_raw(const struct perf_opts *o, struct perf_side *s, struct perf_result *r)
{
	const struct perf_params *p = &o->p;
	const double us_per_cycle = 1e6 / (double)rte_get_tsc_hz();
	struct lat_samples smp = {0};
	uint64_t start, t_margin, t_end, next_prog, strays = 0;
	int rc = 0;

	hz = rte_get_tsc_hz();
	start = tsc();
	t_margin = start + (uint64_t)(p->margin * (double)hz);
	t_end = start + (uint64_t)(p->duration * (double)hz);
	next_prog = start + hz;
	for (uint64_t i = 0; p->duration > 0 || i < p->iters; i++) {
		uint64_t rtt, t1;

		if (raw_ping(s, (uint32_t)p->size, i, &rtt, &strays, i == 0) != 0) {
			rc = -1;
			break;
		}
		t1 = tsc();
		if ((p->duration == 0 || t1 - rtt >= t_margin) &&
		    samples_add(&smp, (double)rtt * us_per_cycle / 2.0) != 0)
			break;
		if (p->duration > 0 && t1 >= t_end)
			break;
		if (o->progress && t1 >= next_prog) {
			fprintf(stderr, "progress: %5.1f s  frame %" PRIu64 " B  %" PRIu64
				" round trips\n", secs_of(t1 - start), p->size, i + 1);
			next_prog += hz;
		}
	}
	lat_stats(&smp, p->size, r);
	free(smp.v);
	if (strays)
		fprintf(stderr, "rnic-perf: raw_lat: %" PRIu64 " other frames received (late "
			"or foreign), not counted\n", strays);
	if (rc != 0)
		r->errors = 1;
	return rc;
}

/* Counters that a lossless link must keep at zero (an impaired one: those
 * that no loss explains); all of them with -v. */
int
perf_check_counters(struct perf_side *s, bool verbose, bool lossy)
{
	struct rnic_dev_stats st;
	uint64_t bad;

	if (s->dev == NULL)
		return 0;
	rnic_dev_stats_get(s->dev, &st);
	bad = st.drop_no_qp + st.drop_opcode + st.cq_overflow + st.retry_exceeded +
	      st.rnr_retry_exceeded;
	if (!lossy)
		bad += st.drop_malformed + st.drop_icrc + st.drop_bad_resp;
	if (verbose || bad) {
		fprintf(stderr, "counters (%s):", s->idx == 0 ? "client" : "server");
		for (unsigned int i = 0; i < rnic_dev_stat_count; i++) {
			uint64_t v = ((const uint64_t *)&st)[i];

			if (v)
				fprintf(stderr, " %s=%" PRIu64, rnic_dev_stat_names[i], v);
		}
		fprintf(stderr, "\n");
	}
	if (bad)
		fprintf(stderr, "rnic-perf: the engine dropped or failed packets on a %s "
			"link (see the counters above)\n", lossy ? "merely impaired" : "lossless");
	return bad ? -1 : 0;
}
