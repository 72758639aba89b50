/* SPDX-License-Identifier: BSD-3-Clause */
/* The soak runner of softrnic (see soak.c). */
#ifndef SOFTRNIC_SOAK_H
#define SOFTRNIC_SOAK_H

#include <stddef.h>
#include <stdint.h>

#include "rnic_verbs.h"

#define SOAK_MAX_SIZE 16384

/* One connected RC pair, requester side and responder side. */
struct soak_side {
	struct rnic_device *dev, *peer_dev;
	struct rnic_qp *qp, *peer;
	struct rnic_cq *scq;       /* requester's send CQ */
	struct rnic_cq *peer_rcq;  /* responder's receive CQ */
	uint8_t *lmem;             /* requester MR: depth slots of SOAK_MAX_SIZE */
	struct rnic_mr *lmr;
	uint8_t *rmem;             /* responder MR: depth WRITE/READ slots, then
				    * depth receive slots at recv_off, then the
				    * 8-byte atomic counter at counter_off */
	struct rnic_mr *rmr;
	uint64_t recv_off;
	uint64_t counter_off;
};

struct soak_common {
	uint64_t messages;
	uint32_t max_size;         /* 8..SOAK_MAX_SIZE */
	uint32_t depth;            /* messages in flight */
	uint64_t seed;
	uint32_t timeout_s;
};

struct soak_result {
	uint64_t messages, lost, duplicated, corrupted, retransmits, bytes;
	double elapsed_s;
};

/** Both runs. Prints progress lines and leaves the result line, to be
 * printed last, in @p line. @return 0 when nothing was lost, duplicated
 * or corrupted. */
int rnic_soak_run(const struct soak_side *clean, const struct soak_side *impaired,
		  const struct soak_common *c, volatile int *quit, char *line, size_t len);

/** MR bytes a side needs for @p depth. */
static inline uint64_t
soak_mr_size(uint32_t depth)
{
	return (uint64_t)depth * SOAK_MAX_SIZE * 2 + 64;
}

#endif
