/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine fixture shared by fuzz_responder and fuzz_requester: one
 * long-lived softrnic device on port A of a ring pair, the harness on port
 * B; see fuzz_engine.c for the input format and the checks.
 */
#ifndef FUZZ_ENGINE_H
#define FUZZ_ENGINE_H

#include <stddef.h>
#include <stdint.h>

enum fz_mode {
	FZ_RESPONDER,   /* frames are requests (mostly) to three QPs */
	FZ_REQUESTER,   /* WRs posted on the RC QP, then response frames */
};

/* Initialise EAL and the engine once (idempotent). */
void fz_engine_init(void);

/* Run one input in @p mode. */
void fz_engine_run(enum fz_mode mode, const uint8_t *data, size_t size);

#endif
