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
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Known engine bugs that are reported but not fixed yet (doc/fuzzing.md,
 * "Findings") would stop every fuzz run within seconds. FZ_TOLERATE in the
 * environment names the ones to step over (space separated), so fuzzing
 * goes on past them; fuzz/run-short.sh sets it, the regression tests in
 * fuzz/regressions/<target>/known-engine-bug/ do not.
 */
static inline int
fz_tolerate(const char *name)
{
	const char *t = getenv("FZ_TOLERATE");
	size_t n = strlen(name);

	for (const char *p = t; p != NULL && (p = strstr(p, name)) != NULL; p += n)
		if ((p == t || p[-1] == ' ' || p[-1] == ',') &&
		    (p[n] == 0 || p[n] == ' ' || p[n] == ','))
			return 1;
	return 0;
}

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
