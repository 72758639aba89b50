/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_requester: see fuzz_engine.c for the fixture, the input format and the
 * checks. A few WRs (WRITE, READ, SEND, atomics) are posted on the RC QP first;
 * the frames that follow are mostly its responses (ACK/NAK, READ responses,
 * atomic ACKs) with fuzzer-chosen PSN, syndrome and payload.
 */
#include "fuzz_common.h"
#include "fuzz_engine.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_engine_init();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_engine_run(FZ_REQUESTER, data, size);
	return 0;
}
