/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the application's side of lib/attach (rnic_attach_client.c,
 * rnic_attach_mem.c). */
#ifndef RNIC_ATTACH_CLIENT_H
#define RNIC_ATTACH_CLIENT_H

#include <stdint.h>

#include <rte_common.h>

#include "rnic_attach_proto.h"

/* What a REG_MR request sends for [addr, addr + len): memfd pieces that
 * cover its pages in order, the fds they name, and addr's offset in them. */
struct att_share {
	uint64_t offset;
	unsigned int n_pieces;
	struct rnic_att_piece piece[RNIC_ATT_MAX_PIECES];
	unsigned int n_fds;
	int fds[RNIC_ATT_MAX_FDS];
};

/* Make [addr, addr + len) reachable by the daemon (rnic_attach_mem.c).
 * 0, or -EFAULT (memory that cannot be shared; why on stderr), -ENOMEM,
 * or another negative errno. */
int att_mem_share(uintptr_t addr, uint64_t len, struct att_share *out);

#endif /* RNIC_ATTACH_CLIENT_H */
