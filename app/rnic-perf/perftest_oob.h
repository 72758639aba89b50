/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's Ethernet out-of-band exchange (linux-rdma/perftest 6.x,
 * "Data ex. method: Ethernet"), as spoken by rnic-perf --perftest. Facts from
 * perftest's src/perftest_communication.c; see perftest_peer.c for
 * the order of the steps per test.
 *
 * Every call polls the engine (the poll hook) while it waits on the socket
 * and gives up at the deadline (TSC cycles).
 */
#ifndef PERFTEST_OOB_H
#define PERFTEST_OOB_H

#include <stdbool.h>
#include <stdint.h>

#define PT_REC_LEN 108       /* KEY_MSG_SIZE_GID */
#define PT_VER_LEN 16        /* MAX_VERSION */
#define PT_VERSION "6.06"

/* One side's QP record (perftest's struct pingpong_dest, as sent). */
struct pt_dest {
	uint32_t lid, out_reads, qpn, psn, rkey, srqn;
	uint64_t vaddr;
	uint8_t gid[16];
};

/* What the prelude learnt from the peer. */
struct pt_peer {
	char version[PT_VER_LEN + 1];
	uint32_t cycle_buffer, cache_line;
	int mtu_enum;
};

/* client: softrnic connects (perftest's client writes first in every
 * exchange); poll: called while waiting; deadline: rte TSC cycles. */
void pt_oob_init(bool client, void (*poll)(void), uint64_t deadline);
/* Connect to server:port, or listen on port and accept one peer (prints
 * "rnic-perf: listening on port N" first). */
int pt_open(const char *server, uint16_t port);
/* Versions, cycle buffer + cache line, MTU (enum ibv_mtu). */
int pt_prelude(uint32_t cycle_buffer, uint32_t cache_line, int mtu_enum, struct pt_peer *peer);
/* One QP record exchange (ctx_hand_shake); rem may be NULL (sync only). */
int pt_hand_shake(const struct pt_dest *me, struct pt_dest *rem);
/* xchg_bw_reports: size, iters, peak, average (MB/s), message rate. */
int pt_xchg_reports(uint64_t size, uint64_t iters, double bw, double rate, double *rem_bw);
/* ctx_close_connection: one record exchange, then "done\0". */
int pt_close(const struct pt_dest *me);
/* Poll the engine until the peer closes the socket or max_ms pass. */
void pt_wait_eof(unsigned int max_ms);
void pt_shutdown(void);

/* "rnic-perf [EAL args] -- --perftest ...", with --perftest taken out of
 * argv: the whole run as perftest's peer (perftest_peer.c), EAL init
 * included. Returns the exit status. */
int perftest_peer_main(int argc, char **argv);

#endif
