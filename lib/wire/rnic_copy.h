/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A payload's copy between a frame and registered memory where the
 * message is short: the transmit path's copy into the frame below
 * RNIC_ICRC_COPY_SEAL_MIN and the receive path's placing of a WRITE.
 */
#ifndef RNIC_COPY_H
#define RNIC_COPY_H

#include <stddef.h>
#include <string.h>

#include <rte_memcpy.h>

/*
 * Copy @p n bytes from @p s to @p d, which do not overlap: up to 64 bytes
 * with DPDK's inline rte_memcpy (a few moves, no call), longer ones with
 * memcpy (glibc's, whose wide loops the longer payloads keep). At ring
 * 64 B the call into glibc's memmove for each payload cost more than the
 * copy itself (doc/benchmarks.md, "What each change bought", 2026-11-29).
 */
static inline void
rnic_copy_small(void *d, const void *s, size_t n)
{
	if (n <= 64)
		rte_memcpy(d, s, n);
	else
		memcpy(d, s, n);
}

#endif /* RNIC_COPY_H */
