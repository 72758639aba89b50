/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timer role: TimerControl (seed 3.4.2) on its own lcore. Commands
 * (SET / RESTART / STOP, seed 7.1.4) come from the RX lcore's completer
 * through dev->tmr_in; expiries go back through dev->tmr_out. The RNR wait
 * still runs on the RX lcore's TSC list (rnic_comp_timers).
 */
#include <sched.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "rnic_engine.h"

unsigned int
rnic_dev_poll(struct rnic_device *dev, unsigned int roles)
{
	unsigned int work = 0;

	if (roles & RNIC_ROLE_TX)
		work += rnic_dev_poll_tx(dev);
	if (roles & RNIC_ROLE_RX)
		work += rnic_dev_poll_rx(dev);
	if (roles & RNIC_ROLE_TIMER)
		work += rnic_dev_poll_timer(dev);
	return work;
}

void
rnic_poll_idle(unsigned int work, unsigned int *idle)
{
	if (work) {
		*idle = 0;
	} else if (++*idle > 64) {
		sched_yield();
		*idle = 0;
	} else {
		rte_pause();
	}
}

unsigned int
rnic_dev_poll_timer(struct rnic_device *dev)
{
	uint64_t now_ns;

	/* TSC to ns with a multiply and a shift, no 128-bit division (it
	 * was a twentieth of an idle engine loop). Set on first use by the
	 * one thread that polls the timer role. */
	if (unlikely(dev->tsc_ns_mult == 0))
		dev->tsc_ns_mult = (uint64_t)(((unsigned __int128)1000000000u << 32) /
					      dev->tsc_hz);
	now_ns = (uint64_t)(((unsigned __int128)rte_get_tsc_cycles() * dev->tsc_ns_mult) >> 32);
	unsigned int work = rnic_timer_svc_poll(dev->tsvc, now_ns);

	__atomic_fetch_add(&dev->iter[2], 1, __ATOMIC_RELEASE);
	return work;
}
