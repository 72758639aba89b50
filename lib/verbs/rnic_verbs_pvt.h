/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations shared by the files of the verbs layer. */
#ifndef RNIC_VERBS_PVT_H
#define RNIC_VERBS_PVT_H

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_core.h"
#include "rnic_verbs.h"

extern int rnic_verbs_logtype;
#define RNIC_LOG(level, fmt, ...) RNIC_LOG_T(rnic_verbs_logtype, level, fmt, ##__VA_ARGS__)

/* A constructor's failure (DPDK's convention): rte_errno = @p e, NULL. */
static inline void *
rnic_fail_null(int e)
{
	rte_errno = e;
	return NULL;
}

/* Zeroed memory for an object, or NULL with rte_errno ENOMEM. */
static inline void *
rnic_obj_zalloc(const char *name, size_t size)
{
	void *p = rte_zmalloc(name, size, RTE_CACHE_LINE_SIZE);

	if (p == NULL)
		rte_errno = ENOMEM;
	return p;
}

/* Free a QP no role can reach any more (rnic_qp.c). */
void rnic_qp_free(struct rnic_qp *qp);

#endif /* RNIC_VERBS_PVT_H */
