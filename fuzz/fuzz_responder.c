/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_responder: see fuzz_engine.c for the fixture, the input format and the
 * checks. Frames go to an RC, a UC and a UD QP with receives posted;
 * nothing is posted on the send side, so no send completion may appear.
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
	fz_engine_run(FZ_RESPONDER, data, size);
	return 0;
}
