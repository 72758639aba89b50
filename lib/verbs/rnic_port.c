/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports for the in-process topologies. */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>

#include "rnic_verbs_pvt.h"

int
rnic_port_ring_pair(const char *name_a, const char *name_b, unsigned int ring_size,
		    uint16_t *port_a, uint16_t *port_b)
{
	char n[RTE_RING_NAMESIZE];
	struct rte_ring *a2b, *b2a;
	struct rte_ring *rx_a[1], *tx_a[2], *rx_b[1], *tx_b[2];
	int pa, pb;

	if (name_a == NULL || name_b == NULL || !rte_is_power_of_2(ring_size))
		return -EINVAL;
	snprintf(n, sizeof(n), "rp_%s", name_a);
	/* Multi-producer: both TX queues of a port feed the same ring. */
	a2b = rte_ring_create(n, ring_size, rte_socket_id(), RING_F_SC_DEQ);
	snprintf(n, sizeof(n), "rp_%s", name_b);
	b2a = rte_ring_create(n, ring_size, rte_socket_id(), RING_F_SC_DEQ);
	if (a2b == NULL || b2a == NULL) {
		rte_ring_free(a2b);
		rte_ring_free(b2a);
		return -rte_errno;
	}
	rx_a[0] = b2a;
	tx_a[0] = tx_a[1] = a2b;
	rx_b[0] = a2b;
	tx_b[0] = tx_b[1] = b2a;
	pa = rte_eth_from_rings(name_a, rx_a, 1, tx_a, 2, rte_socket_id());
	pb = rte_eth_from_rings(name_b, rx_b, 1, tx_b, 2, rte_socket_id());
	if (pa < 0 || pb < 0)
		return -rte_errno;
	*port_a = (uint16_t)pa;
	*port_b = (uint16_t)pb;
	return 0;
}
