/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "rnic_app_peer.h"
#include "rnic_verbs.h"

#include <string.h>

struct rnic_device *
rnic_app_peer_dev(const char *prog, uint16_t port_id, rte_be32_t ipv4, uint32_t mbufs)
{
	return rnic_app_peer_dev6(prog, port_id, ipv4, NULL, mbufs);
}

struct rnic_device *
rnic_app_peer_dev6(const char *prog, uint16_t port_id, rte_be32_t ipv4, const uint8_t *ipv6,
		   uint32_t mbufs)
{
	struct rnic_dev_attr da = {
		.port_id = port_id, .ipv4 = ipv4, .mtu = 1024, .mbufs = mbufs, .max_qps = 16,
	};
	struct rnic_device *dev;

	if (ipv6 != NULL) {
		memcpy(da.ipv6[0], ipv6, 16);   /* GID 1 */
		da.n_ipv6 = 1;
	}
	if (!rte_eth_dev_is_valid_port(port_id)) {
		fprintf(stderr, "%s: no port %u (add --vdev=net_af_packet0,iface=rxeveth0p)\n",
			prog, port_id);
		return NULL;
	}
	dev = rnic_dev_create(&da);
	if (dev == NULL) {
		fprintf(stderr, "%s: device: %s\n", prog, rte_strerror(rte_errno));
		return NULL;
	}
	rnic_dev_set_polled(dev, false);   /* the peer's own thread polls it */
	return dev;
}
