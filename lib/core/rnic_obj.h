/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Objects and keys (seed CxtMgt, VirtToPhys): PD, MR, AH and CQ, the key
 * layout and the memory check every access of the engine goes through.
 * The control thread creates and destroys them; the data path only reads
 * them, through the device's tables, except the two fields marked below.
 */
#ifndef RNIC_OBJ_H
#define RNIC_OBJ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "rnic_types.h"

struct rte_ring;

/*
 * L_Key / R_Key layout: (MR table index << 8) | an 8-bit variant bumped
 * at every registration, so a lookup is O(1) and a re-registered slot
 * gets a different key (IBA 10.6.2: keys are opaque to the consumer).
 */
#define RNIC_KEY_VARIANT_BITS 8
#define RNIC_KEY_VARIANT_MASK ((1u << RNIC_KEY_VARIANT_BITS) - 1)

static inline uint32_t
rnic_key_index(uint32_t key)
{
	return key >> RNIC_KEY_VARIANT_BITS;
}

static inline uint32_t
rnic_key_make(uint32_t index, uint32_t variant)
{
	return (index << RNIC_KEY_VARIANT_BITS) | (variant & RNIC_KEY_VARIANT_MASK);
}

/* Memory check results, seed 7.1.3. */
enum rnic_memchk {
	RNIC_MEMCHK_OK = 0,
	RNIC_MEMCHK_LENGTH_ERR = 1,
	RNIC_MEMCHK_KEY_ERR = 2,
	RNIC_MEMCHK_FLAGS_ERR = 3,
	RNIC_MEMCHK_PD_ERR = 4,
};

struct rnic_mr {
	struct rnic_pd *pd;
	uint8_t *addr;
	/* The address peers and work requests name the MR's first byte by
	 * (verbs' IOVA; addr unless registered with another): R_Key accesses
	 * are checked against [iova, iova + length) and reach addr + (va -
	 * iova); local SGEs are translated when posted (rnic_mr_local). */
	uint64_t iova;
	uint64_t length;
	uint32_t lkey;
	uint32_t rkey;
	int access;
	uint32_t index;
	/* [MR-RKEY] W: control thread before the MR is published, then only
	 * the RX role (SEND_WITH_INV invalidates it), release; R: RX and TX
	 * memory checks, acquire. */
	uint8_t rkey_valid;
	/* [MR-VALID] W: control thread (0 at dereg, before unpublishing),
	 * release; R: memory checks, acquire. */
	uint8_t valid;
};

struct rnic_pd {
	struct rnic_device *dev;
	uint32_t handle;
	uint32_t refs;                 /* control thread */
	TAILQ_ENTRY(rnic_pd) next;     /* dev->pds: freed with the device */
};

struct rnic_ah_int {
	struct rnic_ah pub;
	struct rnic_pd *pd;
	uint32_t handle;               /* a remote device's (rnic_remote.h) */
	TAILQ_ENTRY(rnic_ah_int) next; /* dev->ahs */
};

/*
 * A CQ: a ring of 32-byte work completions with a sequence word per slot
 * ([CQ-SEQ]), as an RNIC's CQ with its owner bit. Producers: the QPs'
 * completers (RX role for RC and receives, TX role for UC/UD sends), any
 * number; consumer: the application's poll_cq. The application reads only
 * the slots (a completion's sequence word says it is there) and its own
 * index; the producers read that index only when the CQ looks full. An
 * rte_ring's producer took a locked compare-and-swap on the line the
 * application polls and a load of the application's index on every push
 * (doc/benchmarks.md).
 */
struct rnic_cq {
	struct rnic_device *dev;
	struct rnic_wc *wc;            /* slots, mask + 1 of them */
	/* [CQ-SEQ] slot i holds position p (p & mask == i) once seq[i] == p + 1:
	 * W: the producer that claimed p, release, after the slot; R: poll_cq,
	 * acquire, then the slot. */
	uint32_t *seq;
	/* [SQ-HINT] slot i's send completion's hint (0: none), written
	 * before seq[i] */
	uint64_t *hint;
	uint32_t mask;
	uint32_t depth;                /* completions the CQ holds (cqe) */
	/* [CQ-OVF] W: any producer, only ever 1 (idempotent), release;
	 * R: the application, acquire. */
	uint8_t overflow;
	uint32_t refs;                 /* control thread */
	TAILQ_ENTRY(rnic_cq) next;     /* dev->cqs */
	/* [CQ-HEAD] the next position to claim: producers, compare-and-swap */
	uint32_t head __attribute__((aligned(64)));
	/* [CQ-CI] ci as a producer last read it (never ahead of ci): any
	 * producer, release / acquire (a producer that uses another's reading
	 * is ordered after the reads of the slots it frees); a stale one only
	 * makes a producer read ci again */
	uint32_t ci_seen;
	/* [CQ-CI] positions consumed: W: poll_cq, release, after reading the
	 * slots; R: a producer that finds the CQ full by ci_seen, acquire. */
	uint32_t ci __attribute__((aligned(64)));
};

/* rnic_mr_check (VirtToPhys, seed 7.1.3): in rnic_dev.h, inline. */

/* Where remote address @p va of @p mr (checked by rnic_mr_check) is in
 * this process; NULL @p mr (a zero-length access): @p va itself. */
static inline uint64_t
rnic_mr_host(const struct rnic_mr *mr, uint64_t va)
{
	return mr == NULL ? va : (uint64_t)(uintptr_t)mr->addr + (va - mr->iova);
}

/*
 * A local SGE's address as posted (in its MR's IOVA space) -> where it is
 * in this process, for MRs registered with an IOVA other than their
 * address (dev->iova_mrs). An SGE outside its MR's IOVA range becomes an
 * address no MR covers, so that the engine's check fails it. Other SGEs
 * are left as they are.
 */
uint64_t rnic_mr_local(struct rnic_device *dev, uint32_t lkey, uint64_t addr, uint32_t len);

/* The MR @p key names with a valid R_Key in @p pd, or NULL. */
struct rnic_mr *rnic_mr_by_rkey(struct rnic_device *dev, struct rnic_pd *pd, uint32_t key);

/* Push the @p n completions at @p wc in order, each with its [SQ-HINT]
 * (@p hint: NULL for none); returns how many fit (the rest overflowed:
 * the CQ says so, [CQ-OVF], and the caller moves their QPs to Error). */
unsigned int rnic_cq_push_burst(struct rnic_cq *cq, const struct rnic_wc *wc,
				const uint64_t *hint, unsigned int n);

#endif /* RNIC_OBJ_H */
