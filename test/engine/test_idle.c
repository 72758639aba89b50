/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic_lcore_cpu_shared, the test behind rnic_poll_idle's early yield
 * (doc/reliability.md, "lcores that share a CPU"): run with an --lcores
 * map, and after "--" the answer expected for each lcore of it, 1 or 0.
 * Lcores that are not enabled and LCORE_ID_ANY answer 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "rnic_engine.h"

int
main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv), fail = 0;
	unsigned int lc = 0, last = 0;

	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	for (int i = 1; i < argc; i++, lc++) {
		bool want = atoi(argv[i]) != 0, got = rnic_lcore_cpu_shared(lc);

		if (!rte_lcore_is_enabled(lc)) {
			printf("FAIL lcore %u is not enabled: the map and the answers disagree\n", lc);
			fail++;
			continue;
		}
		printf("%s lcore %u: shared %d, want %d\n", got == want ? "ok" : "FAIL", lc, got,
		       want);
		fail += got != want;
		last = lc;
	}
	if (argc < 2) {
		printf("FAIL no expected answers given\n");
		fail++;
	}
	if (rnic_lcore_cpu_shared(LCORE_ID_ANY) || rnic_lcore_cpu_shared(last + 1)) {
		printf("FAIL LCORE_ID_ANY or an lcore that is not enabled counts as shared\n");
		fail++;
	}
	rte_eal_cleanup();
	return fail ? 1 : 0;
}
