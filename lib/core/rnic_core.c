/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What both sides of the core share at run time: the QP and MR lookups
 * (CxtMgt, VirtToPhys, seed 7.1.3), the QP's move to Error, kicks, CQ
 * pushes, and the quiescence the control thread waits for.
 */
#include <errno.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "rnic_core.h"

RTE_LOG_REGISTER(rnic_core_logtype, softrnic.core, INFO);

__thread uint32_t rnic_thread_num;

bool rnic_cpu_demote;

/* Read once: CPUID may trap to the hypervisor. Under valgrind, whose
 * CPU has no CLDEMOTE (nor decodes it), false. */
RTE_INIT(rnic_cpu_init)
{
	rnic_cpu_demote = rte_cpu_get_flag_enabled(RTE_CPUFLAG_CLDEMOTE) > 0;
}

uint32_t
rnic_thread_num_new(void)
{
	static uint32_t last;

	rnic_thread_num = __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
	return rnic_thread_num;
}

const char *const rnic_dev_stat_names[] = {
#define RNIC_STAT_NAME(n) #n,
	RNIC_DEV_COUNTERS(RNIC_STAT_NAME)
#undef RNIC_STAT_NAME
};
const unsigned int rnic_dev_stat_count = RTE_DIM(rnic_dev_stat_names);

static const char *const qp_state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

const char *
rnic_qp_state_str(enum rnic_qp_state s)
{
	return (unsigned int)s < RTE_DIM(qp_state_names) ? qp_state_names[s] : "?";
}

static const char *const wc_status_names[] = {
	"success", "local length error", "local QP operation error",
	"local EE context operation error", "local protection error",
	"WR flushed", "memory window bind error", "bad response error",
	"local access error", "remote invalid request error",
	"remote access error", "remote operation error",
	"transport retry counter exceeded", "RNR retry counter exceeded",
	"local RDD violation error", "remote invalid RD request",
	"operation aborted", "invalid EE context number",
	"invalid EE context state", "fatal error", "response timeout error",
	"general error",
};

const char *
rnic_wc_status_str(enum rnic_wc_status s)
{
	if ((unsigned int)s >= RTE_DIM(wc_status_names))
		return "unknown";
	return wc_status_names[s];
}

void
rnic_dev_objs_get(const struct rnic_device *dev, struct rnic_dev_objs *o)
{
	memset(o, 0, sizeof(*o));
	if (dev == NULL || dev->ops != NULL)
		return;
	o->pds = LOAD_RLX(&dev->live_pds);
	o->mrs = LOAD_RLX(&dev->live_mrs);
	o->ahs = LOAD_RLX(&dev->live_ahs);
	o->cqs = LOAD_RLX(&dev->n_cqs);
	o->qps = LOAD_RLX(&dev->n_qps);
}

void
rnic_dev_stats_get(const struct rnic_device *dev, struct rnic_dev_stats *st)
{
	const size_t n = sizeof(*st) / sizeof(uint64_t);
	uint64_t *dst = (uint64_t *)st;

	if (unlikely(dev->ops != NULL)) {   /* the daemon's (rnic_remote.h) */
		dev->ops->stats_get(dev, st);
		return;
	}
	memset(st, 0, sizeof(*st));
	for (unsigned int w = 0; w < dev->n_workers; w++) {
		const struct rnic_dev_stats *parts[] = { &dev->workers[w].tx.st,
							 &dev->workers[w].rx.st };

		for (unsigned int p = 0; p < RTE_DIM(parts); p++) {
			const uint64_t *src = (const uint64_t *)parts[p];

			for (size_t i = 0; i < n; i++)
				dst[i] += LOAD_RLX(&src[i]);
		}
	}
}

struct rnic_qp *
rnic_qp_lookup(struct rnic_device *dev, uint32_t qpn)
{
	struct rnic_qp *qp = LOAD_ACQ(&dev->qps[qpn & dev->qp_mask]);   /* [QP-TABLE] */

	return (qp != NULL && qp->qpn == qpn) ? qp : NULL;
}

void
rnic_qp_to_error(struct rnic_qp *qp)
{
	uint8_t s = LOAD_ACQ(&qp->state);   /* [QP-STATE] */

	do {
		if (s == RNIC_QPS_ERR || s == RNIC_QPS_RESET)
			return;
	} while (!__atomic_compare_exchange_n(&qp->state, &s, (uint8_t)RNIC_QPS_ERR, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	/* Wake the completer so it flushes even with no traffic. */
	rnic_qp_kick(qp);
}

void
rnic_qp_kick(struct rnic_qp *qp)
{
	/* [KICK] the caller's earlier stores (the state, sq_fetch) are
	 * released by the enqueue, or by the counter's RMW. */
	if (rte_ring_mp_enqueue_elem(qp->w->kick_ring, &qp->qpn, sizeof(uint32_t)) != 0)
		__atomic_fetch_add(&qp->w->kick_lost, 1, __ATOMIC_RELEASE);
}

unsigned int
rnic_cq_push_burst(struct rnic_cq *cq, const struct rnic_wc *wc, const uint64_t *hint,
		   unsigned int n)
{
	uint32_t h = LOAD_RLX(&cq->head), k;

	/* [CQ-HEAD] claim as many of the n positions as the CQ has room for */
	do {
		uint32_t used = h - LOAD_ACQ(&cq->ci_seen);

		if (used + n > cq->depth) {
			uint32_t ci = LOAD_ACQ(&cq->ci);   /* [CQ-CI] */

			STORE_REL(&cq->ci_seen, ci);
			used = h - ci;
		}
		k = used >= cq->depth ? 0 : RTE_MIN(n, cq->depth - used);
		if (k == 0)
			break;
	} while (!__atomic_compare_exchange_n(&cq->head, &h, h + k, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = h + i;

		cq->wc[p & cq->mask] = wc[i];
		cq->hint[p & cq->mask] = hint != NULL ? hint[i] : 0;   /* [SQ-HINT] */
		STORE_REL(&cq->seq[p & cq->mask], p + 1);   /* [CQ-SEQ] */
	}
	if (k < n)
		STORE_REL(&cq->overflow, 1);   /* [CQ-OVF] */
	return k;
}

uint64_t
rnic_mr_local(struct rnic_device *dev, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct rnic_mr *mr = rnic_mr_slot(dev, lkey);
	uint64_t base = (uint64_t)(uintptr_t)(mr ? mr->addr : NULL);

	if (mr == NULL || mr->lkey != lkey || mr->iova == base)
		return addr;
	if (addr < mr->iova || len > mr->length || addr - mr->iova > mr->length - len)
		return UINT64_MAX;   /* outside it: no MR covers this */
	return base + (addr - mr->iova);
}

struct rnic_mr *
rnic_mr_by_rkey(struct rnic_device *dev, struct rnic_pd *pd, uint32_t key)
{
	struct rnic_mr *mr = rnic_mr_slot(dev, key);

	if (mr == NULL || mr->rkey != key || mr->pd != pd || !LOAD_ACQ(&mr->rkey_valid))
		return NULL;
	return mr;
}

/* The pass counter of role i % 3 (TX, RX, timer) of worker i / 3. */
static uint64_t *
worker_iter(struct rnic_device *dev, unsigned int i)
{
	struct rnic_worker *w = &dev->workers[i / 3];

	return i % 3 == 0 ? &w->tx.iter : i % 3 == 1 ? &w->rx.iter : &w->tmr.iter;
}

bool
rnic_dev_quiesce(struct rnic_device *dev)
{
	const unsigned int n = 3u * dev->n_workers;
	uint64_t start[3 * RNIC_MAX_WORKERS], deadline;
	bool ok = true;

	if (!LOAD_ACQ(&dev->polled))   /* [POLLED] */
		return true;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < n; i++)
		start[i] = LOAD_ACQ(worker_iter(dev, i));   /* [ITER] */
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	for (unsigned int i = 0; i < n && ok; i++) {
		while (LOAD_ACQ(worker_iter(dev, i)) < start[i] + 2) {
			if (rte_get_tsc_cycles() >= deadline) {
				ok = false;
				break;
			}
			rte_pause();
		}
	}
	if (!ok)
		RNIC_LOG_T(rnic_core_logtype, WARNING,
			   "port %u: a polled role did not answer within 1 s; what it may "
			   "still use is kept until the device is destroyed", dev->port_id);
	return ok;
}

int
rnic_dev_add_destroy_hook(struct rnic_device *dev, rnic_dev_hook_t *fn)
{
	for (unsigned int i = 0; i < RNIC_DEV_HOOKS; i++) {
		if (dev->destroy_hooks[i] == fn)
			return 0;
		if (dev->destroy_hooks[i] == NULL) {
			dev->destroy_hooks[i] = fn;
			return 0;
		}
	}
	return -ENOSPC;
}

void
rnic_dev_run_destroy_hooks(struct rnic_device *dev)
{
	for (unsigned int i = 0; i < RNIC_DEV_HOOKS; i++) {
		rnic_dev_hook_t *fn = dev->destroy_hooks[i];

		dev->destroy_hooks[i] = NULL;
		if (fn != NULL)
			fn(dev);
	}
}

/* Remove every entry naming @p qp from @p l, clearing its flag @p on. */
static void
list_forget(struct rnic_qp_list *l, const struct rnic_qp *qp, uint8_t *on)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->q[i] == qp)
			rnic_qp_list_del(l, i--, on);
}

void
rnic_dev_forget_qp(struct rnic_device *dev, struct rnic_qp *qp)
{
	struct rnic_worker *w = qp->w;

	if (dev->forget_hook != NULL)
		dev->forget_hook(qp);
	list_forget(&w->tx.active, qp, &qp->req.scheduled);
	rnic_qp_db_settle(qp, false);   /* [DB] as TX does when it drops the QP */
	list_forget(&w->rx.rd_active, qp, &qp->resp.rd_active);
	list_forget(&w->rx.acks, qp, &qp->resp.on_ack_list);
	list_forget(&w->rx.rexmit, qp, &qp->comp.on_rexmit_list);
}
