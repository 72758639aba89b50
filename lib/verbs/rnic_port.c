/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports for the in-process topologies. */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>

#include "rnic_verbs_pvt.h"

#define RING_PAIR_MAX_Q 8   /* net_ring: at most 16 TX queues, two per pair */

int
rnic_port_ring_pair_n(const char *name_a, const char *name_b, unsigned int ring_size,
		      unsigned int nq, uint16_t *port_a, uint16_t *port_b)
{
	char n[RTE_RING_NAMESIZE];
	struct rte_ring *a2b[RING_PAIR_MAX_Q], *b2a[RING_PAIR_MAX_Q];
	struct rte_ring *tx_a[2 * RING_PAIR_MAX_Q], *tx_b[2 * RING_PAIR_MAX_Q];
	int pa, pb;

	if (name_a == NULL || name_b == NULL || !rte_is_power_of_2(ring_size) || nq == 0 ||
	    nq > RING_PAIR_MAX_Q)
		return -EINVAL;
	for (unsigned int k = 0; k < nq; k++) {
		/* Multi-producer: both TX queues of a worker feed one ring. */
		snprintf(n, sizeof(n), "rp_%s_%u", name_a, k);
		a2b[k] = rte_ring_create(n, ring_size, rte_socket_id(), RING_F_SC_DEQ);
		snprintf(n, sizeof(n), "rp_%s_%u", name_b, k);
		b2a[k] = rte_ring_create(n, ring_size, rte_socket_id(), RING_F_SC_DEQ);
		if (a2b[k] == NULL || b2a[k] == NULL) {
			for (unsigned int j = 0; j <= k; j++) {
				rte_ring_free(a2b[j]);
				rte_ring_free(b2a[j]);
			}
			return -rte_errno;
		}
		tx_a[2 * k] = tx_a[2 * k + 1] = a2b[k];
		tx_b[2 * k] = tx_b[2 * k + 1] = b2a[k];
	}
	pa = rte_eth_from_rings(name_a, b2a, nq, tx_a, 2 * nq, rte_socket_id());
	pb = rte_eth_from_rings(name_b, a2b, nq, tx_b, 2 * nq, rte_socket_id());
	if (pa < 0 || pb < 0)
		return -rte_errno;
	*port_a = (uint16_t)pa;
	*port_b = (uint16_t)pb;
	return 0;
}

int
rnic_port_ring_pair(const char *name_a, const char *name_b, unsigned int ring_size,
		    uint16_t *port_a, uint16_t *port_b)
{
	return rnic_port_ring_pair_n(name_a, name_b, ring_size, 1, port_a, port_b);
}
