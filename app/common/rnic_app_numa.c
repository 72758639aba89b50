/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include <numa.h>

#include "rnic_app_numa.h"

#define PAGE 4096

void *
rnic_app_numa_alloc(size_t size, int node, bool *numa)
{
	void *p = NULL;

	*numa = false;
	if (node >= 0 && numa_available() >= 0 && node <= numa_max_node()) {
		p = numa_alloc_onnode(size, node);
		if (p != NULL) {
			*numa = true;
			return p;
		}
	}
	if (posix_memalign(&p, PAGE, size) != 0)
		return NULL;
	return p;
}

void
rnic_app_numa_free(void *p, size_t size, bool numa)
{
	if (p == NULL)
		return;
	if (numa)
		numa_free(p, size);
	else
		free(p);
}

unsigned int
rnic_app_numa_check(const struct rnic_app_place *p, unsigned int n, FILE *out)
{
	unsigned int warned = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (p[i].lcore_node < 0 || p[i].port_node < 0 || p[i].lcore_node == p[i].port_node)
			continue;
		fprintf(out, "warning: lcore %u (NUMA node %d) serves %s worker %u, whose port is "
			"on node %d: pick an lcore on node %d (EAL --lcores)\n", p[i].lcore,
			p[i].lcore_node, p[i].port, p[i].worker, p[i].port_node, p[i].port_node);
		warned++;
	}
	return warned;
}
