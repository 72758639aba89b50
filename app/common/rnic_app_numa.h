/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement for the applications (libnuma): memory for MRs on the
 * port's node, and a check that each engine lcore sits on the node of the
 * port it serves.
 */
#ifndef RNIC_APP_NUMA_H
#define RNIC_APP_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * @p size bytes, page aligned, on NUMA node @p node (numa_alloc_onnode)
 * where libnuma works and @p node >= 0, else from the heap. *@p numa says
 * which, for rnic_app_numa_free. NULL when out of memory.
 */
void *rnic_app_numa_alloc(size_t size, int node, bool *numa);
void rnic_app_numa_free(void *p, size_t size, bool numa);

/* One engine lcore and what it serves. A node of -1: unknown. */
struct rnic_app_place {
	unsigned int lcore;
	int lcore_node;
	const char *port;        /* the port's name, for the message */
	int port_node;
	unsigned int worker;
};

/*
 * Warn (one line each to @p out) about every lcore that sits on another
 * NUMA node than the port it serves: its packets and the port's memory
 * would cross the interconnect. @return the number of warnings.
 */
unsigned int rnic_app_numa_check(const struct rnic_app_place *p, unsigned int n, FILE *out);

#endif /* RNIC_APP_NUMA_H */
