/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The check macro of the programs of this folder (compiled against
 * Debian's verbs and rdma_cm headers, not DPDK's: test/lib's helpers are
 * not theirs): a line "ok   ..." or "FAIL ... (file:line)" per check, the
 * failures counted in `failed`, which main returns.
 */
#ifndef SIB_TEST_CHECK_H
#define SIB_TEST_CHECK_H

#include <stdio.h>

static int failed;

#define CHECK(cond, ...) do { \
	if (cond) { \
		printf("ok   "); printf(__VA_ARGS__); printf("\n"); \
	} else { \
		printf("FAIL "); printf(__VA_ARGS__); printf(" (%s:%d)\n", __FILE__, __LINE__); \
		failed++; \
	} \
} while (0)

#endif /* SIB_TEST_CHECK_H */
