/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timer role. The RNR wait runs on the RX lcore's TSC list today
 * (rnic_comp_timers); the loss timer moves here onto lib/timer's wheel
 * with the reliability work (seed 3.4.2).
 */
#include "rnic_engine.h"

unsigned int
rnic_dev_poll_timer(struct rnic_device *dev)
{
	__atomic_fetch_add(&dev->iter[2], 1, __ATOMIC_RELEASE);
	return 0;
}
