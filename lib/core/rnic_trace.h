/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency trace: a TSC stamp at each step a message takes through the
 * engine (doc/benchmarks.md, "Latency (2026-11-27)"). Built only
 * with meson -Dlat_trace=true; otherwise RNIC_TRACE compiles to nothing
 * and rnic_trace_start() returns -ENOTSUP.
 *
 * The records of all threads go to one array (a relaxed fetch-add picks
 * the slot), in the order their slots were taken. Two processes on one
 * machine share the TSC, so scripts/lat-trace.py merges their dumps
 * into one timeline.
 */
#ifndef RNIC_TRACE_H
#define RNIC_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* The steps, in the order a message passes them. */
enum rnic_trace_point {
	RNIC_TP_POST = 1,        /* the application posts a work request */
	RNIC_TP_DOORBELL,        /* the TX role took doorbells from its ring (or,
				  * where no lcore polls, a post scheduled its QP) */
	RNIC_TP_TX_FLUSH,        /* rte_eth_tx_burst is called (arg: frames) */
	RNIC_TP_TX_DONE,         /* and returned (arg: frames it took) */
	RNIC_TP_RX_BURST,        /* rte_eth_rx_burst returned frames (arg: how many) */
	RNIC_TP_PARSED,          /* one frame parsed and its ICRC checked */
	RNIC_TP_HANDLED,         /* its responder or completer step is done */
	RNIC_TP_RX_END,          /* the RX role's pass that had work is over */
	RNIC_TP_APP_SEEN,        /* the application saw the message (arg 1: the passive end) */
	RNIC_TP_MAX
};

/* One record: 16 bytes, as the dump holds them. */
struct rnic_trace_rec {
	uint64_t tsc;
	uint16_t point;
	uint16_t lcore;
	uint32_t arg;
};

/* Records from here on, up to @p n of them (later ones are counted, not
 * kept): 0, -ENOTSUP (not built in), -ENOMEM. */
int rnic_trace_start(size_t n);

/* Write the records to @p path: the 16-byte header "RNICTRC1" and the
 * TSC's rate in Hz (little-endian u64), then the records. 0 or -errno
 * (-ENOTSUP when not built in, -EINVAL when never started). */
int rnic_trace_dump(const char *path);

#ifdef RNIC_LAT_TRACE
void rnic_trace_rec(enum rnic_trace_point p, uint32_t arg);
#define RNIC_TRACE(p, arg) rnic_trace_rec((p), (arg))
#else
#define RNIC_TRACE(p, arg) do { } while (0)
#endif

#endif /* RNIC_TRACE_H */
