/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's entry points for the threads that run it: one pass of a
 * set of roles, the idle step of an lcore loop, the timer role
 * (TimerControl, seed 3.4.2, on its own lcore: commands come from the RX
 * role's completer through tmr_in, expiries go back through tmr_out), and
 * what is still queued in the engine.
 */
#include <errno.h>
#include <sched.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_per_lcore.h>
#include <rte_pause.h>

#include "rnic_engine_pvt.h"

/* An idle poller yields the CPU after this many empty passes; one whose
 * CPU is also another lcore's after the second (rnic_poll_idle). */
#define IDLE_YIELD_PASSES 64
#define IDLE_YIELD_PASSES_SHARED 1

/* Whether this thread's lcore shares a CPU with another EAL lcore:
 * -1 not known yet, then 0 or 1. */
static RTE_DEFINE_PER_LCORE(int, cpu_shared) = -1;

unsigned int
rnic_worker_poll(struct rnic_device *dev, unsigned int worker, unsigned int roles)
{
	struct rnic_worker *wk = &dev->workers[worker];
	struct rnic_pass_clock clk = { .tsc = 0 };
	unsigned int work = 0;

	if (roles & RNIC_ROLE_TX)
		work += rnic_worker_poll_tx(wk, &clk);
	if (roles & RNIC_ROLE_RX)
		work += rnic_worker_poll_rx(wk);
	/* A pass that delivered a message to an application that polls
	 * leaves the timer role to the next (rnic_worker_poll_rx). */
	if ((roles & RNIC_ROLE_TIMER) && !((roles & RNIC_ROLE_RX) && wk->rx.tail_deferred))
		work += rnic_worker_poll_timer(wk, &clk);
	return work;
}

unsigned int
rnic_dev_poll(struct rnic_device *dev, unsigned int roles)
{
	unsigned int work = 0;

	for (unsigned int w = 0; w < dev->n_workers; w++)
		work += rnic_worker_poll(dev, w, roles);
	return work;
}

unsigned int
rnic_dev_poll_tx(struct rnic_device *dev)
{
	return rnic_dev_poll(dev, RNIC_ROLE_TX);
}

unsigned int
rnic_dev_poll_rx(struct rnic_device *dev)
{
	return rnic_dev_poll(dev, RNIC_ROLE_RX);
}

unsigned int
rnic_dev_poll_timer(struct rnic_device *dev)
{
	return rnic_dev_poll(dev, RNIC_ROLE_TIMER);
}

bool
rnic_lcore_cpu_shared(unsigned int self)
{
	unsigned int i;
	rte_cpuset_t mine, both;

	if (self >= RTE_MAX_LCORE || !rte_lcore_is_enabled(self))
		return false;
	mine = rte_lcore_cpuset(self);
	if (CPU_COUNT(&mine) != 1)
		return false;
	RTE_LCORE_FOREACH(i) {
		rte_cpuset_t other;

		if (i == self)
			continue;
		other = rte_lcore_cpuset(i);
		CPU_AND(&both, &mine, &other);
		if (CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

/*
 * The idle step of a polling loop. A poller with a CPU of its own spins
 * (rte_pause) through IDLE_YIELD_PASSES empty passes before it yields.
 * Pollers sharing one CPU (two engine lcores on a 2-CPU machine) hand
 * it over after their second empty pass instead: the kernel does not
 * preempt a spinning poller for a long while (a time slice,
 * milliseconds), and one that finds a little work every few
 * microseconds never reaches 64 empty passes, so its peer starved; the
 * soak's round trips were 50-200 us (doc/reliability.md).
 */
void
rnic_poll_idle(unsigned int work, unsigned int *idle)
{
	int shared = RTE_PER_LCORE(cpu_shared);

	if (unlikely(shared < 0))
		RTE_PER_LCORE(cpu_shared) = shared = rnic_lcore_cpu_shared(rte_lcore_id());
	if (work) {
		*idle = 0;
	} else if (++*idle > (shared ? IDLE_YIELD_PASSES_SHARED : IDLE_YIELD_PASSES)) {
		sched_yield();
		*idle = 0;
	} else {
		rte_pause();
	}
}

unsigned int
rnic_worker_poll_timer(struct rnic_worker *wk, struct rnic_pass_clock *clk)
{
	struct rnic_dev_timer *t = &wk->tmr;
	uint64_t tsc, now_ns;
	unsigned int work = 0;

	/* Nothing armed, nothing to take in (a responder's wheel, mostly):
	 * no TSC read either, where the TX role did not read it this pass.
	 * On the memif server the read was 86% of this role's samples
	 * (doc/benchmarks.md). */
	if (!rnic_pass_clock_read(clk) && rnic_timer_svc_idle(t->svc)) {
		rnic_dev_iter_done(&t->iter);
		return 0;
	}
	tsc = rnic_pass_tsc(clk);
	/* The wheel moves in ticks of RNIC_TIMER_TICK_NS: a pass less than
	 * a tick after the last has no new tick to expire, and the starts
	 * and stops it would take in can wait for the next (timeouts are
	 * tens of microseconds and more). An engine loop passes here every
	 * few hundred ns; run to completion over memif, this role took
	 * about 5% of the server's samples (perf) when it ran every pass. */
	if (tsc >= t->next_tsc) {
		/* TSC to ns with a multiply and a shift, no 128-bit division
		 * (it was a twentieth of an idle engine loop). */
		if (unlikely(t->tsc_ns_mult == 0)) {
			t->tsc_ns_mult = (uint64_t)(((unsigned __int128)NS_PER_S << 32) /
						    wk->dev->tsc_hz);
			t->tick_tsc = RNIC_TIMER_TICK_NS * wk->dev->tsc_hz / NS_PER_S;
		}
		t->next_tsc = tsc + t->tick_tsc;
		now_ns = (uint64_t)(((unsigned __int128)tsc * t->tsc_ns_mult) >> 32);
		work = rnic_timer_svc_poll(t->svc, now_ns);
	}
	rnic_dev_iter_done(&t->iter);
	return work;
}

unsigned int
rnic_dev_tx_backlog(const struct rnic_device *dev)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < dev->n_workers; w++)
		n += LOAD_ACQ(&dev->workers[w].tx.txb.n) +
		     LOAD_ACQ(&dev->workers[w].rx.txb.n) +   /* [TXB] */
		     LOAD_RLX(&dev->workers[w].rx.acks_owed);   /* [ACK-OWED] */
	return n;
}

int
rnic_qp_sq_pending(const struct rnic_qp *qp)
{
	if (qp == NULL)
		return -EINVAL;
	/* sq_pi: the caller's own index; sq_fetch: released by the TX role
	 * once the WQE's last packet is in the TX buffer. */
	return (int)(LOAD_RLX(&qp->app.sq_pi) - LOAD_ACQ(&qp->req.sq_fetch));   /* [SQ-FETCH] */
}
