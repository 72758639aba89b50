/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement (app/common/rnic_app_numa.c): the check against a fake
 * two-node topology (lcores and ports on either node, unknown nodes), and
 * MR memory from libnuma on node 0 of this machine (or the heap where
 * libnuma does not work), written end to end and freed. No EAL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numa.h>

#include "rnic_app_numa.h"
#include "test_common.h"

static int
test_check(void)
{
	const struct rnic_app_place fake[] = {
		{ .lcore = 1, .lcore_node = 0, .port = "p0", .port_node = 0, .worker = 0 },
		{ .lcore = 9, .lcore_node = 1, .port = "p0", .port_node = 0, .worker = 1 },
		{ .lcore = 2, .lcore_node = 0, .port = "p1", .port_node = 1, .worker = 0 },
		{ .lcore = 10, .lcore_node = 1, .port = "p1", .port_node = 1, .worker = 1 },
		{ .lcore = 3, .lcore_node = -1, .port = "p2", .port_node = 1, .worker = 0 },
		{ .lcore = 4, .lcore_node = 1, .port = "p3", .port_node = -1, .worker = 0 },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int n;

	VERIFY(f != NULL, "memstream");
	n = rnic_app_numa_check(fake, 6, f);
	fclose(f);
	VERIFY(n == 2, "%u warnings", n);
	VERIFY(strstr(buf, "lcore 9 (NUMA node 1) serves p0 worker 1, whose port is on node 0") &&
	       strstr(buf, "lcore 2 (NUMA node 0) serves p1 worker 0, whose port is on node 1") &&
	       !strstr(buf, "lcore 3") && !strstr(buf, "lcore 4"), "%s", buf);
	free(buf);
	return 0;
}

static int
test_alloc(void)
{
	const size_t size = 3u << 20;
	bool numa;
	unsigned char *p = rnic_app_numa_alloc(size, 0, &numa);

	VERIFY(p != NULL, "alloc");
	VERIFY(((uintptr_t)p & 4095) == 0, "page aligned");
	VERIFY(numa == (numa_available() >= 0), "libnuma %d, used %d", numa_available(), numa);
	memset(p, 0x5a, size);
	VERIFY(p[0] == 0x5a && p[size - 1] == 0x5a, "written");
	rnic_app_numa_free(p, size, numa);
	/* An unknown node: the heap. */
	p = rnic_app_numa_alloc(4096, -1, &numa);
	VERIFY(p != NULL && !numa, "node -1");
	rnic_app_numa_free(p, 4096, numa);
	printf("libnuma %s, nodes 0..%d\n", numa_available() >= 0 ? "available" : "not available",
	       numa_available() >= 0 ? numa_max_node() : -1);
	return 0;
}

int
main(void)
{
	int failed = 0;

	failed += test_check() != 0;
	failed += test_alloc() != 0;
	printf("%d passed, %d failed\n", 2 - failed, failed);
	return failed ? 1 : 0;
}
