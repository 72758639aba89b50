/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the libFuzzer harnesses (fuzz/) and the regression driver that
 * replays their findings with gcc (test/fuzzregress/): the entry points and
 * one way to fail. A harness check that fails is an oracle violation, not a
 * crash of the code under test, so it says which check and then aborts:
 * libFuzzer records the input, the regression driver's test fails.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "FUZZ CHECK FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		fflush(stderr); \
		abort(); \
	} \
} while (0)

#endif
