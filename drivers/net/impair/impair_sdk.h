/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IMPAIR_SDK_H
#define IMPAIR_SDK_H

/*
 * The driver-side view of ethdev and the vdev bus.
 *
 * A PMD needs DPDK's driver SDK headers (ethdev_driver.h,
 * bus_vdev_driver.h). Debian 12's libdpdk-dev (DPDK 22.11) does not
 * install them, so when they are absent this file declares the part of the
 * DPDK 22.11 driver ABI that net_impair touches: the internal structures as
 * prefixes (ethdev allocates them; we never take their size), the full
 * eth_dev_ops table (ethdev reads every slot), and the internal functions,
 * which librte_ethdev / librte_bus_vdev export under version INTERNAL.
 * The static asserts pin every offset we rely on to the 22.11 layout, and
 * the probe refuses to run on another DPDK release (impair_sdk_check()).
 * Where the SDK headers are installed they are used instead.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_version.h>

#if __has_include(<ethdev_driver.h>) && __has_include(<bus_vdev_driver.h>)

#include <ethdev_driver.h>
#include <bus_vdev_driver.h>

#define IMPAIR_SDK_COMPAT 0

#else /* no driver SDK: declare the DPDK 22.11 layout */

#if RTE_VERSION < RTE_VERSION_NUM(22, 11, 0, 0) || \
	RTE_VERSION >= RTE_VERSION_NUM(22, 12, 0, 0)
#error "net_impair: install DPDK driver SDK headers (DPDK is not 22.11)"
#endif

#define IMPAIR_SDK_COMPAT 1

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_os.h>

struct rte_driver {
	RTE_TAILQ_ENTRY(rte_driver) next;
	const char *name;
	const char *alias;
};

struct rte_device {
	RTE_TAILQ_ENTRY(rte_device) next;
	const char *name;
	const char *bus_info;
	const struct rte_driver *driver;
	const struct rte_bus *bus;
	int numa_node;
	struct rte_devargs *devargs;
};

struct rte_vdev_device {
	RTE_TAILQ_ENTRY(rte_vdev_device) next;
	struct rte_device device;
};

struct rte_vdev_driver {
	RTE_TAILQ_ENTRY(rte_vdev_driver) next;
	struct rte_driver driver;
	int (*probe)(struct rte_vdev_device *dev);
	int (*remove)(struct rte_vdev_device *dev);
	void *dma_map;
	void *dma_unmap;
	uint32_t drv_flags;
};

void rte_vdev_register(struct rte_vdev_driver *driver);

#define RTE_PMD_REGISTER_VDEV(nm, vdrv) \
RTE_INIT(vdrvinitfn_ ## vdrv) \
{ \
	(vdrv).driver.name = RTE_STR(nm); \
	rte_vdev_register(&vdrv); \
} \
RTE_PMD_EXPORT_NAME(nm, __COUNTER__)

struct rte_eth_dev;

/* Slots are named as in DPDK where we fill them; rsvd_<first>_<last> keep
 * the indices of the ones we leave NULL. */
struct eth_dev_ops {
	int (*dev_configure)(struct rte_eth_dev *dev);           /* 0 */
	int (*dev_start)(struct rte_eth_dev *dev);
	int (*dev_stop)(struct rte_eth_dev *dev);
	const void *rsvd_3_4[2];
	int (*dev_close)(struct rte_eth_dev *dev);               /* 5 */
	const void *rsvd_6;
	int (*link_update)(struct rte_eth_dev *dev, int wait);   /* 7 */
	const void *rsvd_8;
	int (*promiscuous_enable)(struct rte_eth_dev *dev);      /* 9 */
	int (*promiscuous_disable)(struct rte_eth_dev *dev);
	int (*allmulticast_enable)(struct rte_eth_dev *dev);
	int (*allmulticast_disable)(struct rte_eth_dev *dev);
	const void *rsvd_13_16[4];
	int (*mtu_set)(struct rte_eth_dev *dev, uint16_t mtu);   /* 17 */
	int (*stats_get)(struct rte_eth_dev *dev, struct rte_eth_stats *st);
	int (*stats_reset)(struct rte_eth_dev *dev);
	int (*xstats_get)(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
			  unsigned int n);
	int (*xstats_reset)(struct rte_eth_dev *dev);
	int (*xstats_get_names)(struct rte_eth_dev *dev,
				struct rte_eth_xstat_name *names,
				unsigned int size);              /* 22 */
	const void *rsvd_23;
	int (*dev_infos_get)(struct rte_eth_dev *dev,
			     struct rte_eth_dev_info *info);     /* 24 */
	const void *rsvd_25_40[16];
	int (*rx_queue_setup)(struct rte_eth_dev *dev, uint16_t qid,
			      uint16_t nb_desc, unsigned int socket_id,
			      const struct rte_eth_rxconf *conf,
			      struct rte_mempool *mp);           /* 41 */
	void (*rx_queue_release)(struct rte_eth_dev *dev, uint16_t qid);
	const void *rsvd_43_44[2];
	int (*tx_queue_setup)(struct rte_eth_dev *dev, uint16_t qid,
			      uint16_t nb_desc, unsigned int socket_id,
			      const struct rte_eth_txconf *conf); /* 45 */
	void (*tx_queue_release)(struct rte_eth_dev *dev, uint16_t qid);
	const void *rsvd_47_112[66];
};

/* Prefix of the per-port shared data, up to the last field we use. */
struct rte_eth_dev_data {
	char name[RTE_ETH_NAME_MAX_LEN];
	void **rx_queues;
	void **tx_queues;
	uint16_t nb_rx_queues;
	uint16_t nb_tx_queues;
	struct rte_eth_dev_sriov sriov;
	void *dev_private;
	struct rte_eth_link dev_link;
	struct rte_eth_conf dev_conf;
	uint16_t mtu;
	uint32_t min_rx_buf_size;
	uint64_t rx_mbuf_alloc_failed;
	struct rte_ether_addr *mac_addrs;
	uint64_t mac_pool_sel[RTE_ETH_NUM_RECEIVE_MAC_ADDR];
	struct rte_ether_addr *hash_mac_addrs;
	uint16_t port_id;
	uint8_t state_bits; /* promiscuous, dev_started, ... bit-fields */
	uint8_t rx_queue_state[RTE_MAX_QUEUES_PER_PORT];
	uint8_t tx_queue_state[RTE_MAX_QUEUES_PER_PORT];
	uint32_t dev_flags;
	int numa_node;
};

/* Prefix of the per-port process-local record (an rte_eth_devices[] slot). */
struct rte_eth_dev {
	eth_rx_burst_t rx_pkt_burst;
	eth_tx_burst_t tx_pkt_burst;
	void *tx_pkt_prepare;
	void *rx_queue_count;
	void *rx_descriptor_status;
	void *tx_descriptor_status;
	struct rte_eth_dev_data *data;
	void *process_private;
	const struct eth_dev_ops *dev_ops;
	struct rte_device *device;
	struct rte_intr_handle *intr_handle;
};

struct rte_eth_dev *rte_eth_dev_allocate(const char *name);
struct rte_eth_dev *rte_eth_dev_allocated(const char *name);
int rte_eth_dev_release_port(struct rte_eth_dev *eth_dev);
void rte_eth_dev_probing_finish(struct rte_eth_dev *dev);

/* DPDK 22.11 x86-64 layout, read off its ethdev_driver.h, dev_driver.h and
 * bus_vdev_driver.h with offsetof(). */
#define IMPAIR_OPS_AT(f, slot) \
	_Static_assert(offsetof(struct eth_dev_ops, f) == \
		       (slot) * sizeof(void *), "eth_dev_ops." #f)
IMPAIR_OPS_AT(dev_close, 5);
IMPAIR_OPS_AT(link_update, 7);
IMPAIR_OPS_AT(promiscuous_enable, 9);
IMPAIR_OPS_AT(mtu_set, 17);
IMPAIR_OPS_AT(xstats_get_names, 22);
IMPAIR_OPS_AT(dev_infos_get, 24);
IMPAIR_OPS_AT(rx_queue_setup, 41);
IMPAIR_OPS_AT(tx_queue_setup, 45);
IMPAIR_OPS_AT(tx_queue_release, 46);
_Static_assert(sizeof(struct eth_dev_ops) == 113 * sizeof(void *),
	       "eth_dev_ops has 113 slots in 22.11");
_Static_assert(offsetof(struct rte_eth_dev, data) == 48, "rte_eth_dev.data");
_Static_assert(offsetof(struct rte_eth_dev, device) == 72,
	       "rte_eth_dev.device");
_Static_assert(offsetof(struct rte_eth_dev_data, dev_private) == 96,
	       "rte_eth_dev_data.dev_private");
_Static_assert(offsetof(struct rte_eth_dev_data, dev_link) == 104,
	       "rte_eth_dev_data.dev_link");
_Static_assert(offsetof(struct rte_eth_dev_data, mac_addrs) == 2400,
	       "rte_eth_dev_data.mac_addrs");
_Static_assert(offsetof(struct rte_eth_dev_data, port_id) == 3440,
	       "rte_eth_dev_data.port_id");
_Static_assert(offsetof(struct rte_eth_dev_data, rx_queue_state) == 3443,
	       "rte_eth_dev_data.rx_queue_state");
_Static_assert(offsetof(struct rte_eth_dev_data, numa_node) == 5496,
	       "rte_eth_dev_data.numa_node");
_Static_assert(sizeof(struct rte_device) == 64, "rte_device");
_Static_assert(offsetof(struct rte_vdev_device, device) == 16,
	       "rte_vdev_device.device");
_Static_assert(offsetof(struct rte_vdev_driver, probe) == 48,
	       "rte_vdev_driver.probe");
_Static_assert(sizeof(struct rte_vdev_driver) == 88, "rte_vdev_driver");

#endif /* driver SDK or compat */

/*
 * With the compat declarations, refuse to drive a DPDK whose internal
 * layout may differ from the one compiled in: another release at run time
 * (ABI 23 spans 22.11 to 23.07), or an ethdev record whose fields are not
 * where we think. impair_sdk_check(NULL, NULL) checks the release;
 * impair_sdk_check(dev, name) right after rte_eth_dev_allocate() checks the
 * name it wrote; impair_sdk_check_port() after rte_eth_dev_probing_finish()
 * checks the port id it wrote. Each returns 0 or -ENOTSUP.
 */
static inline int
impair_sdk_check(const struct rte_eth_dev *dev, const char *name)
{
	if (!IMPAIR_SDK_COMPAT)
		return 0;
	if (strncmp(rte_version(), "DPDK 22.11", 10) != 0)
		return -ENOTSUP;
	if (dev != NULL && strcmp(dev->data->name, name) != 0)
		return -ENOTSUP;
	return 0;
}

static inline int
impair_sdk_check_port(const struct rte_eth_dev *dev, const char *name)
{
	uint16_t pid;

	if (!IMPAIR_SDK_COMPAT)
		return 0;
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0 ||
	    pid != dev->data->port_id)
		return -ENOTSUP;
	return 0;
}

#endif /* IMPAIR_SDK_H */
