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

static int
soak_once(const struct soak_side *sp, const struct soak_common *c, struct soak_result *r,
	  volatile int *quit)
{
	struct msg *msgs = calloc(c->messages, sizeof(*msgs));
	uint64_t s = c->seed | 1, posted = 0, done = 0, sends = 0, fadds = 0;
	uint64_t recv_posted = 0, recv_next = 0, send_expect = 0, fadd_expect = 0;
	uint64_t counter0, t0, deadline, rt0 = retransmits(sp);
	uint64_t *counter = (uint64_t *)(sp->rmem + sp->counter_off);
	int rc = 0;

	if (msgs == NULL)
		return -1;
	memset(r, 0, sizeof(*r));
	counter0 = __atomic_load_n(counter, __ATOMIC_RELAXED);
	for (; recv_posted < c->depth; recv_posted++)
		if (post_recv(sp, c, recv_posted) != 0)
			goto fail;
	t0 = rte_get_tsc_cycles();
	deadline = t0 + rte_get_tsc_hz() * c->timeout_s;
	while (done < c->messages) {
		struct rnic_wc wc[32];
		int n;

		if (*quit || rte_get_tsc_cycles() > deadline) {
			fprintf(stderr, "soak: timed out after %" PRIu64 " of %" PRIu64 " messages\n",
				done, c->messages);
			goto fail;
		}
		/* Keep depth messages in flight. */
		while (posted < c->messages && posted - done < c->depth) {
			struct msg *m = &msgs[posted];
			uint32_t slot = (uint32_t)(posted % c->depth);
			uint8_t *l = sp->lmem + (uint64_t)slot * SOAK_MAX_SIZE;
			uint8_t *rm = sp->rmem + (uint64_t)slot * SOAK_MAX_SIZE;
			struct rnic_sge sge = { (uintptr_t)l, 0, rnic_mr_lkey(sp->lmr) };
			struct rnic_send_wr wr = { .wr_id = posted, .sg_list = &sge, .num_sge = 1,
						   .send_flags = RNIC_SEND_SIGNALED };
			struct rnic_send_wr *bad;

			m->op = (uint8_t)(rng(&s) % OP_N);
			m->size = m->op == OP_FADD ? 8 :
				  (uint32_t)(8 + rng(&s) % (c->max_size - 7));
			sge.length = m->size;
			wr.wr.rdma.remote_addr = (uintptr_t)rm;
			wr.wr.rdma.rkey = rnic_mr_rkey(sp->rmr);
			switch (m->op) {
			case OP_WRITE:
				pattern(l, m->size, posted);
				wr.opcode = RNIC_WR_RDMA_WRITE;
				break;
			case OP_READ:
				pattern(rm, m->size, posted);
				memset(l, 0, m->size);
				wr.opcode = RNIC_WR_RDMA_READ;
				break;
			case OP_SEND:
				m->seq = sends++;
				pattern(l, m->size, m->seq);
				wr.opcode = RNIC_WR_SEND;
				break;
			default:
				m->seq = fadds++;
				wr.opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
				wr.wr.atomic.remote_addr = (uintptr_t)counter;
				wr.wr.atomic.rkey = rnic_mr_rkey(sp->rmr);
				wr.wr.atomic.compare_add = 1;
				break;
			}
			if (rnic_post_send(sp->qp, &wr, &bad) != 0)
				goto fail;
			posted++;
		}
		/* Requester completions: in order, each checked. */
		n = rnic_poll_cq(sp->scq, RTE_DIM(wc), wc);
		for (int k = 0; k < n; k++) {
			struct msg *m;
			uint32_t slot;
			const uint8_t *l, *rm;

			if (wc[k].status != RNIC_WC_SUCCESS) {
				fprintf(stderr, "soak: message %" PRIu64 " failed: %s\n", wc[k].wr_id,
					rnic_wc_status_str(wc[k].status));
				r->lost++;
				goto fail;
			}
			if (wc[k].wr_id != done) {
				fprintf(stderr, "soak: completion %" PRIu64 " out of order (want %"
					PRIu64 ")\n", wc[k].wr_id, done);
				if (wc[k].wr_id < done)
					r->duplicated++;
				else
					r->lost++;
				goto fail;
			}
			m = &msgs[done];
			slot = (uint32_t)(done % c->depth);
			l = sp->lmem + (uint64_t)slot * SOAK_MAX_SIZE;
			rm = sp->rmem + (uint64_t)slot * SOAK_MAX_SIZE;
			if (m->op == OP_WRITE && !pattern_ok(rm, m->size, done))
				r->corrupted++;
			if (m->op == OP_READ && !pattern_ok(l, m->size, done))
				r->corrupted++;
			if (m->op == OP_FADD) {
				uint64_t got;

				memcpy(&got, l, 8);
				/* Exactly once, in order: the k-th add saw start + k. */
				if (got != counter0 + fadd_expect) {
					if (got < counter0 + fadd_expect)
						r->duplicated++;
					else
						r->lost++;
				}
				fadd_expect++;
			}
			r->bytes += m->size;
			done++;
		}
		/* Responder-side receives: SENDs arrive once, in order, intact. */
		n = rnic_poll_cq(sp->peer_rcq, RTE_DIM(wc), wc);
		for (int k = 0; k < n; k++) {
			uint32_t slot = (uint32_t)(recv_next % c->depth);
			const uint8_t *p = sp->rmem + sp->recv_off + (uint64_t)slot * SOAK_MAX_SIZE;
			uint64_t seq;

			if (wc[k].status != RNIC_WC_SUCCESS || wc[k].wr_id != recv_next) {
				fprintf(stderr, "soak: receive %" PRIu64 ": %s\n", wc[k].wr_id,
					rnic_wc_status_str(wc[k].status));
				r->lost++;
				goto fail;
			}
			memcpy(&seq, p, 8);
			if (seq != send_expect) {
				if (seq < send_expect)
					r->duplicated++;
				else
					r->lost++;
			} else if (!pattern_ok(p, wc[k].byte_len, seq)) {
				r->corrupted++;
			}
			send_expect = seq + 1;
			recv_next++;
			if (post_recv(sp, c, recv_posted++) != 0)
				goto fail;
		}
	}
	/* The last receives may still be on their way: bounded wait. */
	for (uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	     send_expect < sends && rte_get_tsc_cycles() < end; rte_pause()) {
		struct rnic_wc wc;

		if (rnic_poll_cq(sp->peer_rcq, 1, &wc) == 1) {
			uint64_t seq;
			const uint8_t *p = sp->rmem + sp->recv_off +
				(uint64_t)(recv_next % c->depth) * SOAK_MAX_SIZE;

			memcpy(&seq, p, 8);
			if (wc.status != RNIC_WC_SUCCESS || seq != send_expect ||
			    !pattern_ok(p, wc.byte_len, seq))
				r->corrupted++;
			send_expect++;
			recv_next++;
		}
	}
	if (send_expect != sends)
		r->lost += sends - send_expect;
	if (__atomic_load_n(counter, __ATOMIC_RELAXED) != counter0 + fadds) {
		fprintf(stderr, "soak: counter %" PRIu64 " want %" PRIu64 "\n",
			*counter, counter0 + fadds);
		r->corrupted++;
	}
	r->messages = done;
	r->elapsed_s = (double)(rte_get_tsc_cycles() - t0) / rte_get_tsc_hz();
	r->retransmits = retransmits(sp) - rt0;
	free(msgs);
	return rc;
fail:
	r->messages = done;
	r->retransmits = retransmits(sp) - rt0;
	free(msgs);
	return -1;
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
