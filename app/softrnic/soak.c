/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The soak: RC WRITE, READ, SEND and FetchAdd mixed over one QP pair,
 * pipelined, every message checked: content (a pattern keyed by the
 * message number), exactly-once and in-order delivery of SENDs (the
 * sequence number leads the payload), completion order (wr_id), and the
 * atomics by the values they return and the counter's final value. Run
 * twice in one process: on a clean QP pair (the goodput baseline), then on
 * a pair whose link goes through net_impair.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "soak.h"

enum { OP_WRITE, OP_READ, OP_SEND, OP_FADD, OP_N };

struct msg {
	uint8_t op;
	uint32_t size;
	uint64_t seq;        /* SEND sequence / atomic ordinal */
};

static uint64_t
rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Message @p i's bytes: its number first, then a keyed pattern. */
static void
pattern(uint8_t *p, uint32_t len, uint64_t i)
{
	uint64_t s = (i + 1) * 0x9e3779b97f4a7c15ull;

	for (uint32_t k = 0; k < len; k++) {
		if ((k & 7) == 0)
			rng(&s);
		p[k] = (uint8_t)(s >> ((k & 7) * 8));
	}
	if (len >= 8)
		memcpy(p, &i, 8);
}

static bool
pattern_ok(const uint8_t *p, uint32_t len, uint64_t i)
{
	uint8_t tmp[SOAK_MAX_SIZE];

	pattern(tmp, len, i);
	return memcmp(tmp, p, len) == 0;
}

static uint64_t
retransmits(const struct soak_side *sp)
{
	struct rnic_dev_stats a, b;

	rnic_dev_stats_get(sp->dev, &a);
	rnic_dev_stats_get(sp->peer_dev, &b);
	return a.tx_retransmits + b.tx_retransmits;
}

static int
post_recv(const struct soak_side *sp, const struct soak_common *c, uint64_t j)
{
	uint32_t slot = (uint32_t)(j % c->depth);
	struct rnic_sge sge = {
		(uintptr_t)(sp->rmem + sp->recv_off + (uint64_t)slot * SOAK_MAX_SIZE),
		SOAK_MAX_SIZE, rnic_mr_lkey(sp->rmr) };
	struct rnic_recv_wr wr = { .wr_id = j, .sg_list = &sge, .num_sge = 1 };
	struct rnic_recv_wr *bad;

	return rnic_post_recv(sp->peer, &wr, &bad);
}

/* One run over one QP pair: what is in flight and what is expected next. */
struct soak_run {
	const struct soak_side *sp;
	const struct soak_common *c;
	struct soak_result *r;
	struct msg *msgs;
	uint64_t s;                          /* the message mix's generator */
	uint64_t posted, done, sends, fadds;
	uint64_t recv_posted, recv_next, send_expect, fadd_expect;
	uint64_t *counter, counter0;         /* the FetchAdd target, its start */
};

/* Slot @p j's place in the requester's and the responder's MR. */
static uint8_t *
lslot(const struct soak_run *st, uint64_t j)
{
	return st->sp->lmem + (j % st->c->depth) * SOAK_MAX_SIZE;
}

static uint8_t *
rslot(const struct soak_run *st, uint64_t j)
{
	return st->sp->rmem + (j % st->c->depth) * SOAK_MAX_SIZE;
}

/* Message number @p st->posted: draw its operation and size, fill the
 * data it carries, post it. */
static int
soak_post_one(struct soak_run *st)
{
	const struct soak_side *sp = st->sp;
	struct msg *m = &st->msgs[st->posted];
	uint8_t *l = lslot(st, st->posted), *rm = rslot(st, st->posted);
	struct rnic_sge sge = { (uintptr_t)l, 0, rnic_mr_lkey(sp->lmr) };
	struct rnic_send_wr wr = { .wr_id = st->posted, .sg_list = &sge, .num_sge = 1,
				   .send_flags = RNIC_SEND_SIGNALED };
	struct rnic_send_wr *bad;

	m->op = (uint8_t)(rng(&st->s) % OP_N);
	m->size = m->op == OP_FADD ? 8 : (uint32_t)(8 + rng(&st->s) % (st->c->max_size - 7));
	sge.length = m->size;
	wr.wr.rdma.remote_addr = (uintptr_t)rm;
	wr.wr.rdma.rkey = rnic_mr_rkey(sp->rmr);
	switch (m->op) {
	case OP_WRITE:
		pattern(l, m->size, st->posted);
		wr.opcode = RNIC_WR_RDMA_WRITE;
		break;
	case OP_READ:
		pattern(rm, m->size, st->posted);
		memset(l, 0, m->size);
		wr.opcode = RNIC_WR_RDMA_READ;
		break;
	case OP_SEND:
		m->seq = st->sends++;
		pattern(l, m->size, m->seq);
		wr.opcode = RNIC_WR_SEND;
		break;
	default:
		m->seq = st->fadds++;
		wr.opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)st->counter;
		wr.wr.atomic.rkey = rnic_mr_rkey(sp->rmr);
		wr.wr.atomic.compare_add = 1;
		break;
	}
	if (rnic_post_send(sp->qp, &wr, &bad) != 0)
		return -1;
	st->posted++;
	return 0;
}

/* Message @p st->done completed: its data, or the value its FetchAdd
 * returned (exactly once, in order: the k-th add saw start + k). */
static void
soak_check_done(struct soak_run *st)
{
	const struct msg *m = &st->msgs[st->done];
	struct soak_result *r = st->r;

	if (m->op == OP_WRITE && !pattern_ok(rslot(st, st->done), m->size, st->done))
		r->corrupted++;
	if (m->op == OP_READ && !pattern_ok(lslot(st, st->done), m->size, st->done))
		r->corrupted++;
	if (m->op == OP_FADD) {
		uint64_t got;

		memcpy(&got, lslot(st, st->done), 8);
		if (got != st->counter0 + st->fadd_expect) {
			if (got < st->counter0 + st->fadd_expect)
				r->duplicated++;
			else
				r->lost++;
		}
		st->fadd_expect++;
	}
	r->bytes += m->size;
	st->done++;
}

/* A requester completion: in order, each checked. */
static int
on_send_wc(struct soak_run *st, const struct rnic_wc *wc)
{
	struct soak_result *r = st->r;

	if (wc->status != RNIC_WC_SUCCESS) {
		fprintf(stderr, "soak: message %" PRIu64 " failed: %s\n", wc->wr_id,
			rnic_wc_status_str(wc->status));
		r->lost++;
		return -1;
	}
	if (wc->wr_id != st->done) {
		fprintf(stderr, "soak: completion %" PRIu64 " out of order (want %" PRIu64 ")\n",
			wc->wr_id, st->done);
		if (wc->wr_id < st->done)
			r->duplicated++;
		else
			r->lost++;
		return -1;
	}
	soak_check_done(st);
	return 0;
}

/* The next receive's slot in the responder's MR. */
static const uint8_t *
recv_slot(const struct soak_run *st)
{
	return st->sp->rmem + st->sp->recv_off +
	       (uint64_t)(st->recv_next % st->c->depth) * SOAK_MAX_SIZE;
}

/* A responder-side receive: SENDs arrive once, in order, intact. */
static int
on_recv_wc(struct soak_run *st, const struct rnic_wc *wc)
{
	struct soak_result *r = st->r;
	const uint8_t *p = recv_slot(st);
	uint64_t seq;

	if (wc->status != RNIC_WC_SUCCESS || wc->wr_id != st->recv_next) {
		fprintf(stderr, "soak: receive %" PRIu64 ": %s\n", wc->wr_id,
			rnic_wc_status_str(wc->status));
		r->lost++;
		return -1;
	}
	memcpy(&seq, p, 8);
	if (seq != st->send_expect) {
		if (seq < st->send_expect)
			r->duplicated++;
		else
			r->lost++;
	} else if (!pattern_ok(p, wc->byte_len, seq)) {
		r->corrupted++;
	}
	st->send_expect = seq + 1;
	st->recv_next++;
	return post_recv(st->sp, st->c, st->recv_posted++) != 0 ? -1 : 0;
}

/* The completions @p cq has, each to @p on_wc, up to the first failure. */
static int
soak_reap(struct soak_run *st, struct rnic_cq *cq,
	  int (*on_wc)(struct soak_run *st, const struct rnic_wc *wc))
{
	struct rnic_wc wc[32];
	int n = rnic_poll_cq(cq, RTE_DIM(wc), wc);

	for (int k = 0; k < n; k++)
		if (on_wc(st, &wc[k]) != 0)
			return -1;
	return 0;
}

/* Every message completed: the last receives may still be on their way
 * (a bounded wait); then what never arrived, and the counter's value. */
static void
soak_finish(struct soak_run *st)
{
	struct soak_result *r = st->r;

	for (uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	     st->send_expect < st->sends && rte_get_tsc_cycles() < end; rte_pause()) {
		struct rnic_wc wc;

		if (rnic_poll_cq(st->sp->peer_rcq, 1, &wc) == 1) {
			const uint8_t *p = recv_slot(st);
			uint64_t seq;

			memcpy(&seq, p, 8);
			if (wc.status != RNIC_WC_SUCCESS || seq != st->send_expect ||
			    !pattern_ok(p, wc.byte_len, seq))
				r->corrupted++;
			st->send_expect++;
			st->recv_next++;
		}
	}
	if (st->send_expect != st->sends)
		r->lost += st->sends - st->send_expect;
	if (__atomic_load_n(st->counter, __ATOMIC_RELAXED) != st->counter0 + st->fadds) {
		fprintf(stderr, "soak: counter %" PRIu64 " want %" PRIu64 "\n",
			*st->counter, st->counter0 + st->fadds);
		r->corrupted++;
	}
}

/* depth messages kept in flight until every one completed, each checked. */
static int
soak_pump(struct soak_run *st, volatile int *quit, uint64_t deadline)
{
	const struct soak_common *c = st->c;

	while (st->done < c->messages) {
		if (*quit || rte_get_tsc_cycles() > deadline) {
			fprintf(stderr, "soak: timed out after %" PRIu64 " of %" PRIu64 " messages\n",
				st->done, c->messages);
			return -1;
		}
		while (st->posted < c->messages && st->posted - st->done < c->depth)
			if (soak_post_one(st) != 0)
				return -1;
		if (soak_reap(st, st->sp->scq, on_send_wc) != 0 ||
		    soak_reap(st, st->sp->peer_rcq, on_recv_wc) != 0)
			return -1;
	}
	return 0;
}

static int
soak_once(const struct soak_side *sp, const struct soak_common *c, struct soak_result *r,
	  volatile int *quit)
{
	struct soak_run st = {
		.sp = sp, .c = c, .r = r, .s = c->seed | 1,
		.counter = (uint64_t *)(sp->rmem + sp->counter_off),
	};
	uint64_t t0, rt0 = retransmits(sp);
	int rc = -1;

	st.msgs = calloc(c->messages, sizeof(*st.msgs));
	if (st.msgs == NULL)
		return -1;
	memset(r, 0, sizeof(*r));
	st.counter0 = __atomic_load_n(st.counter, __ATOMIC_RELAXED);
	for (; st.recv_posted < c->depth; st.recv_posted++)
		if (post_recv(sp, c, st.recv_posted) != 0)
			break;
	t0 = rte_get_tsc_cycles();
	if (st.recv_posted == c->depth &&
	    soak_pump(&st, quit, t0 + rte_get_tsc_hz() * c->timeout_s) == 0) {
		soak_finish(&st);
		r->elapsed_s = (double)(rte_get_tsc_cycles() - t0) / rte_get_tsc_hz();
		rc = 0;
	}
	r->messages = st.done;
	r->retransmits = retransmits(sp) - rt0;
	free(st.msgs);
	return rc;
}

int
rnic_soak_run(const struct soak_side *clean_side, const struct soak_side *imp_side,
	      const struct soak_common *c, volatile int *quit, char *line, size_t len)
{
	struct soak_result clean, imp;
	double ratio;
	int rc;

	if (c->max_size < 8 || c->max_size > SOAK_MAX_SIZE || c->depth == 0 || c->messages == 0) {
		fprintf(stderr, "soak: bad parameters\n");
		snprintf(line, len, "soak: bad parameters");
		return -1;
	}
	rc = soak_once(clean_side, c, &clean, quit);
	printf("soak: baseline messages=%" PRIu64 " seconds=%.3f retransmits=%" PRIu64 "\n",
	       clean.messages, clean.elapsed_s, clean.retransmits);
	if (rc != 0 || clean.lost || clean.duplicated || clean.corrupted) {
		snprintf(line, len, "soak: messages=%" PRIu64 " lost=%" PRIu64 " duplicated=%" PRIu64
			 " corrupted=%" PRIu64 " retransmits=%" PRIu64 " goodput_ratio=0",
			 clean.messages, clean.lost, clean.duplicated, clean.corrupted,
			 clean.retransmits);
		return -1;
	}
	rc = soak_once(imp_side, c, &imp, quit);
	ratio = imp.elapsed_s > 0 && clean.elapsed_s > 0 && clean.bytes ?
		((double)imp.bytes / imp.elapsed_s) / ((double)clean.bytes / clean.elapsed_s) : 0;
	printf("soak: impaired messages=%" PRIu64 " seconds=%.3f\n", imp.messages, imp.elapsed_s);
	snprintf(line, len, "soak: messages=%" PRIu64 " lost=%" PRIu64 " duplicated=%" PRIu64
		 " corrupted=%" PRIu64 " retransmits=%" PRIu64 " goodput_ratio=%.3f",
		 imp.messages, imp.lost, imp.duplicated, imp.corrupted, imp.retransmits, ratio);
	if (rc != 0 || imp.lost || imp.duplicated || imp.corrupted || imp.messages != c->messages)
		return -1;
	return 0;
}
