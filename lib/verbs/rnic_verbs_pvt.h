/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations shared by the files of the verbs layer. */
#ifndef RNIC_VERBS_PVT_H
#define RNIC_VERBS_PVT_H

#include "rnic_core.h"
#include "rnic_verbs.h"

extern int rnic_verbs_logtype;
#define RNIC_LOG(level, fmt, ...) RNIC_LOG_T(rnic_verbs_logtype, level, fmt, ##__VA_ARGS__)

/* Free a QP no role can reach any more (rnic_qp.c). */
void rnic_qp_free(struct rnic_qp *qp);

#endif /* RNIC_VERBS_PVT_H */
