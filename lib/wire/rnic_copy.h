/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A payload's copy between a frame and registered memory where the
 * message is short: the transmit path's copy into the frame below
 * RNIC_ICRC_COPY_SEAL_MIN and the receive path's placing of a WRITE.
 */
#ifndef RNIC_COPY_H
#define RNIC_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Copy @p n bytes from @p s to @p d, which do not overlap. Up to 64 bytes
 * inline, as two moves of a fixed size that overlap in the middle where
 * @p n is not a power of two (16-byte moves from 16 bytes, 8, 4, then
 * single bytes); longer copies are memcpy's. At ring 64 B the call into
 * glibc's memmove for each payload cost more than the copy itself
 * (doc/benchmarks.md, "What each change bought", 2026-11-29).
 */
static inline void
rnic_copy_small(void *d, const void *s, size_t n)
{
	uint8_t *dd = d;
	const uint8_t *ss = s;

	if (n > 64) {
		memcpy(d, s, n);
	} else if (n >= 32) {
		memcpy(dd, ss, 16);
		memcpy(dd + 16, ss + 16, 16);
		memcpy(dd + n - 32, ss + n - 32, 16);
		memcpy(dd + n - 16, ss + n - 16, 16);
	} else if (n >= 16) {
		memcpy(dd, ss, 16);
		memcpy(dd + n - 16, ss + n - 16, 16);
	} else if (n >= 8) {
		memcpy(dd, ss, 8);
		memcpy(dd + n - 8, ss + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dd, ss, 4);
		memcpy(dd + n - 4, ss + n - 4, 4);
	} else if (n != 0) {
		dd[0] = ss[0];
		dd[n / 2] = ss[n / 2];
		dd[n - 1] = ss[n - 1];
	}
}

#endif /* RNIC_COPY_H */
