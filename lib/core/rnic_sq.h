/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send and receive queue entries, and the doorbell (seed 7.1.1, PIO
 * doorbell). The application writes WQEs into the queue memory, publishes
 * its producer index (the doorbell record, [SQ-PI] / [RQ-PI]) and, for
 * the send queue, rings a 64-bit doorbell on the device's doorbell ring
 * when the TX role might not look at the QP otherwise ([DB], rnic_qp.h).
 */
#ifndef RNIC_SQ_H
#define RNIC_SQ_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "rnic_types.h"
#include "rnic_wire.h"

/*
 * Doorbell (seed 7.1.1): 64 bits
 *   [4:0] opcode  [5] F  [31:6] offset (16 B units)
 *   [39:32] size (16 B units)  [63:40] QPN
 * The fields describe the first WQEs of a batch; the TX role takes how
 * many WQEs there are from the doorbell record (sq_pi), which is always
 * current, so later posts to a QP whose doorbell is still queued ring no
 * new one.
 */
#define RNIC_DB_OPCODE_MASK 0x1fu
#define RNIC_DB_FENCE_SHIFT 5
#define RNIC_DB_OFF_SHIFT   6
#define RNIC_DB_OFF_MASK    0x3ffffffu
#define RNIC_DB_SIZE_SHIFT  32
#define RNIC_DB_SIZE_MAX    0xffu     /* 16-byte units: a WQE slot's bound */
#define RNIC_DB_QPN_SHIFT   40
#define RNIC_WQE_UNIT       16        /* bytes: offset and size unit */

static inline uint64_t
rnic_db_make(uint8_t opcode, bool fence, uint32_t off16, uint8_t size16, uint32_t qpn)
{
	return (uint64_t)(opcode & RNIC_DB_OPCODE_MASK) |
	       ((uint64_t)fence << RNIC_DB_FENCE_SHIFT) |
	       ((uint64_t)(off16 & RNIC_DB_OFF_MASK) << RNIC_DB_OFF_SHIFT) |
	       ((uint64_t)size16 << RNIC_DB_SIZE_SHIFT) |
	       ((uint64_t)(qpn & RNIC_PSN_MASK) << RNIC_DB_QPN_SHIFT);
}

static inline uint32_t
rnic_db_qpn(uint64_t db)
{
	return (uint32_t)(db >> RNIC_DB_QPN_SHIFT);
}

/*
 * Send queue entry: one fixed-size slot per WQE. The application writes
 * it before [SQ-PI]; the TX role reads it, and writes status only when
 * the WQE is bad (before [MQ-TAIL], for the completer to report): the
 * lines of a good WQE are not taken from the application's cache by a
 * write. The slot is the application's again when the completer
 * completes the WQE ([SQ-DONE]).
 */
struct rnic_wqe {
	uint64_t wr_id;
	uint8_t opcode;          /* enum rnic_wr_opcode */
	uint8_t flags;           /* enum rnic_send_flags */
	uint8_t num_sge;
	uint8_t status;          /* enum rnic_wc_status: WQEParser, a bad WQE */
	uint32_t total_len;
	union {
		rte_be32_t imm;
		uint32_t inv_rkey;
	};
	uint32_t rkey;
	uint64_t remote_addr;
	struct rnic_sge sge[];   /* or inline bytes; then the extension */
} __rte_aligned(RNIC_WQE_UNIT);

/*
 * What only atomics (RC) and UD sends carry, after the SGEs or inline
 * bytes (at the QP's sq_ext_off, rnic_wqe_ext): a WRITE, READ or SEND on
 * an RC QP with one SGE is then one 64-byte slot, one cache line for the
 * application to write and the TX role to read.
 */
struct rnic_wqe_ext {
	union {
		struct {
			uint64_t compare_add;
			uint64_t swap;
		} atomic;
		struct {
			uint32_t qpn;
			uint32_t qkey;
			struct rnic_ah_attr ah;
		} ud;
	};
};

#define RNIC_WQE_EXT_ATOMIC sizeof(((struct rnic_wqe_ext *)0)->atomic)
#define RNIC_WQE_EXT_UD sizeof(((struct rnic_wqe_ext *)0)->ud)
_Static_assert(sizeof(struct rnic_wqe) + sizeof(struct rnic_sge) + RNIC_WQE_EXT_ATOMIC <=
	       RTE_CACHE_LINE_SIZE, "an RC WQE with one SGE in one cache line");

#define RNIC_WQE_HDR_SIZE (sizeof(struct rnic_wqe))
/* The largest slot a doorbell's size field can name. */
#define RNIC_SQ_MAX_STRIDE (RNIC_DB_SIZE_MAX * RNIC_WQE_UNIT)

/* Receive queue entry: the application writes it before [RQ-PI]; the RX
 * role reads it and completes it ([RQ-CI]). */
struct rnic_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t total_len;
	struct rnic_sge sge[];
};

#endif /* RNIC_SQ_H */
