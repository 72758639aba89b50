/* SPDX-License-Identifier: BSD-3-Clause */
/* The latency trace (rnic_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "rnic_trace.h"

#ifdef RNIC_LAT_TRACE

static struct rnic_trace_rec *recs;
static size_t cap;
static size_t next;   /* slots taken, kept or not */

int
rnic_trace_start(size_t n)
{
	struct rnic_trace_rec *r;

	if (n == 0)
		return -EINVAL;
	r = calloc(n, sizeof(*r));   /* touched now, not on the traced path */
	if (r == NULL)
		return -ENOMEM;
	free(recs);
	recs = r;
	cap = n;
	__atomic_store_n(&next, 0, __ATOMIC_RELEASE);
	return 0;
}

void
rnic_trace_rec(enum rnic_trace_point p, uint32_t arg)
{
	size_t i;

	if (recs == NULL)
		return;
	i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	if (i >= cap)
		return;
	recs[i].tsc = rte_rdtsc();
	recs[i].point = (uint16_t)p;
	recs[i].lcore = (uint16_t)rte_lcore_id();
	recs[i].arg = arg;
}

int
rnic_trace_dump(const char *path)
{
	size_t n = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
	uint64_t hz = rte_get_tsc_hz();
	FILE *f;
	int rc = 0;

	if (recs == NULL)
		return -EINVAL;
	if (n > cap)
		n = cap;
	f = fopen(path, "wb");
	if (f == NULL)
		return -errno;
	if (fwrite("RNICTRC1", 8, 1, f) != 1 || fwrite(&hz, sizeof(hz), 1, f) != 1 ||
	    (n != 0 && fwrite(recs, sizeof(recs[0]), n, f) != n))
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

#else

int
rnic_trace_start(size_t n)
{
	(void)n;
	return -ENOTSUP;
}

int
rnic_trace_dump(const char *path)
{
	(void)path;
	return -ENOTSUP;
}

#endif
