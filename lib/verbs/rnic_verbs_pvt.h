/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations shared by the files of the verbs layer. */
#ifndef RNIC_VERBS_PVT_H
#define RNIC_VERBS_PVT_H

#include <errno.h>
#include <stddef.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_core.h"
#include "rnic_verbs.h"
#include "rnic_trace.h"

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

/* True when @p dev is a daemon's port seen from an attached application:
 * the call goes to dev->ops (rnic_remote.h). */
#define RNIC_REMOTE(dev) unlikely((dev)->ops != NULL)
_Static_assert(offsetof(struct rnic_qp, dev) == 0 && offsetof(struct rnic_cq, dev) == 0,
	       "QPs and CQs begin with their device (rnic_obj_dev)");

/* Free a QP no role can reach any more (rnic_qp.c). */
void rnic_qp_free(struct rnic_qp *qp);

#endif /* RNIC_VERBS_PVT_H */
