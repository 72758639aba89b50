/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device: one DPDK port, its packet pool, the doorbell ring and the
 * object tables. The port gets one RX queue and two TX queues so that the
 * TX lcore (requests) and the RX lcore (responses) never share a queue.
 * A port that offers a single TX queue (net_pcap with one tx_pcap, for
 * instance) gets one, shared by both software TX buffers: then the TX and
 * RX roles must be polled by one thread (rnic_dev_shared_txq).
 */
#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "rnic_verbs_pvt.h"

RTE_LOG_REGISTER(rnic_verbs_logtype, softrnic.verbs, INFO);

static uint32_t
pow2_at_least(uint32_t v)
{
	return rte_align32pow2(v < 2 ? 2 : v);
}

static int
port_setup(struct rnic_device *dev)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	uint16_t p = dev->port_id, ntxq, nrxq;
	int rc;

	rc = rte_eth_dev_info_get(p, &info);
	if (rc != 0)
		return rc;
	if (info.max_rx_queues < 1 || info.max_tx_queues < 1) {
		RNIC_LOG(ERR, "port %u has %u RX and %u TX queues, softrnic needs one of each",
			 p, info.max_rx_queues, info.max_tx_queues);
		return -ENOTSUP;
	}
	/*
	 * Two TX queues when the port has them (and the caller did not ask for
	 * one), else one shared queue. As many RX queues as TX queues where
	 * the port allows: links like net_memif pair the peer's TX queue i
	 * with our RX queue i, and a softrnic peer sends on two. The RX lcore
	 * polls every RX queue.
	 */
	ntxq = info.max_tx_queues >= 2 && dev->attr.queues != 1 ? 2 : 1;
	nrxq = RTE_MIN(ntxq, info.max_rx_queues);
	rc = rte_eth_dev_configure(p, nrxq, ntxq, &conf);
	if (rc != 0)
		return rc;
	for (uint16_t q = 0; q < nrxq; q++) {
		rc = rte_eth_rx_queue_setup(p, q, dev->attr.rxq_desc,
					    rte_eth_dev_socket_id(p), NULL, dev->pool);
		if (rc != 0)
			return rc;
	}
	dev->nb_rxq = nrxq;
	for (uint16_t q = 0; q < ntxq; q++) {
		rc = rte_eth_tx_queue_setup(p, q, dev->attr.txq_desc,
					    rte_eth_dev_socket_id(p), NULL);
		if (rc != 0)
			return rc;
	}
	if (ntxq == 1) {
		dev->rx.txb.queue = RNIC_TXQ_REQ;
		RNIC_LOG(INFO, "port %u has one TX queue: requests and responses share it, "
			 "so the TX and RX roles must be polled by one lcore", p);
	}
	rc = rte_eth_dev_start(p);
	if (rc != 0)
		return rc;
	/* Ports like af_packet on a bridge see others' frames: we filter by
	 * MAC ourselves, and must see broadcast ARP. */
	rte_eth_promiscuous_enable(p);
	return 0;
}

static void
dev_free(struct rnic_device *dev)
{
	rte_mempool_free(dev->pool);
	rte_ring_free(dev->db_ring);
	rte_ring_free(dev->kick_ring);
	rte_ring_free(dev->ev_ring);
	rnic_timer_svc_free(dev->tmr.svc);
	rte_ring_free(dev->tmr_in);
	rte_ring_free(dev->tmr_out);
	rte_free(dev->qps);
	rte_free(dev->mrs);
	rte_free(dev->tx.active.q);
	rte_free(dev->rx.rd_active.q);
	rte_free(dev->rx.acks.q);
	rte_free(dev->rx.rexmit.q);
	rte_free(dev);
}

/* Fill the documented defaults of the zero fields; false when a value is
 * out of range. */
static bool
attr_defaults(struct rnic_dev_attr *a)
{
	if (!a->max_qps) a->max_qps = 1024;
	if (!a->max_mrs) a->max_mrs = 1024;
	if (!a->max_cqs) a->max_cqs = 256;
	if (!a->mbufs) a->mbufs = 16384;
	if (!a->mbuf_size) a->mbuf_size = RTE_PKTMBUF_HEADROOM + 4096 + 128;
	if (!a->ring_size) a->ring_size = 4096;
	if (!a->burst) a->burst = 32;
	if (!a->mtu) a->mtu = 4096;
	if (!a->rxq_desc) a->rxq_desc = 1024;
	if (!a->txq_desc) a->txq_desc = 1024;
	return a->max_qps <= RNIC_MAX_QPS && rte_is_power_of_2(a->mtu) && a->queues <= 2 &&
	       a->mtu >= 256 && a->mtu <= 4096 && a->burst <= RNIC_MAX_BURST &&
	       a->mbufs >= 2 && a->mbuf_size >= RTE_PKTMBUF_HEADROOM + 256 + 128 &&
	       a->mbuf_size <= UINT16_MAX && rte_is_power_of_2(a->ring_size);
}

/* An rte_ring of @p n elements of @p esize bytes named @p what<port>. */
static struct rte_ring *
dev_ring(const struct rnic_device *dev, const char *what, unsigned int esize,
	 unsigned int n, unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "rnic_%s%u", what, dev->port_id);
	return rte_ring_create_elem(name, esize, n, rte_socket_id(), flags);
}

/* A work list with room for every QP slot (each QP is on it at most once). */
static bool
qp_list_alloc(struct rnic_qp_list *l, const struct rnic_device *dev, const char *what)
{
	l->q = rte_zmalloc(what, sizeof(*l->q) * (dev->qp_mask + 1), 0);
	return l->q != NULL;
}

/* The pool, the rings, the timer service and the tables. */
static int
dev_alloc(struct rnic_device *dev)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t slots = dev->qp_mask + 1;

	snprintf(name, sizeof(name), "rnic_pool%u", dev->port_id);
	/* A per-lcore cache of 256, smaller for small pools: DPDK refuses a
	 * cache over 2/3 of the pool, and each lcore's cache strands up to
	 * 1.5 times its size where other lcores cannot get at it. */
	dev->pool = rte_pktmbuf_pool_create(name, dev->attr.mbufs,
					    RTE_MIN(256u, dev->attr.mbufs / 32), 0,
					    (uint16_t)dev->attr.mbuf_size, rte_socket_id());
	/* [DB] at most one doorbell per QP is ever queued: a ring with a
	 * slot for each never fills (RNIC_DEV_DB_LOST covers the rest). */
	dev->db_ring = dev_ring(dev, "db", sizeof(void *), slots, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	dev->kick_ring = dev_ring(dev, "kick", sizeof(uint32_t), dev->attr.ring_size,
				  RING_F_SC_DEQ);
	dev->ev_ring = dev_ring(dev, "ev", sizeof(struct rnic_async_event), RNIC_EVENT_RING,
				RING_F_SC_DEQ);
	/* One loss and one RNR timer per QP: at most one command per timer
	 * per event, so room for two per QP can never fill. */
	dev->tmr_in = dev_ring(dev, "tmi", sizeof(struct rnic_timer_event),
			       rte_align32pow2(4 * slots), RING_F_SC_DEQ);
	dev->tmr_out = dev_ring(dev, "tmo", sizeof(struct rnic_timer_event), dev->attr.ring_size,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (dev->tmr_in != NULL && dev->tmr_out != NULL)
		dev->tmr.svc = rnic_timer_svc_create(slots, RNIC_TIMER_TICK_NS, dev->tmr_in,
						     dev->tmr_out);
	dev->qps = rte_zmalloc("rnic_qps", sizeof(*dev->qps) * slots, 0);
	dev->max_mrs = dev->attr.max_mrs;
	dev->mrs = rte_zmalloc("rnic_mrs", sizeof(*dev->mrs) * dev->max_mrs, 0);
	if (!qp_list_alloc(&dev->tx.active, dev, "rnic_txact") ||
	    !qp_list_alloc(&dev->rx.rd_active, dev, "rnic_rdact") ||
	    !qp_list_alloc(&dev->rx.acks, dev, "rnic_acks") ||
	    !qp_list_alloc(&dev->rx.rexmit, dev, "rnic_rexmit") ||
	    dev->pool == NULL || dev->db_ring == NULL || dev->kick_ring == NULL ||
	    dev->ev_ring == NULL || dev->qps == NULL || dev->mrs == NULL || dev->tmr.svc == NULL)
		return -ENOMEM;
	return 0;
}

/* The caller configured the port (no_port_setup): with one TX queue,
 * share it; poll the RX queues it set up (at most two). */
static void
port_adopt(struct rnic_device *dev)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(dev->port_id, &info) != 0)
		return;
	if (info.nb_tx_queues == 1)
		dev->rx.txb.queue = RNIC_TXQ_REQ;
	dev->nb_rxq = RTE_MAX(RTE_MIN(info.nb_rx_queues, (uint16_t)2), (uint16_t)1);
}

struct rnic_device *
rnic_dev_create(const struct rnic_dev_attr *a)
{
	struct rnic_device *dev;
	int rc;

	if (a == NULL || !rte_eth_dev_is_valid_port(a->port_id)) {
		rte_errno = a == NULL ? EINVAL : ENODEV;
		return NULL;
	}
	dev = rte_zmalloc("rnic_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE);
	if (dev == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->attr = *a;
	if (!attr_defaults(&dev->attr)) {
		rte_errno = EINVAL;
		goto fail;
	}
	dev->port_id = a->port_id;
	dev->nb_rxq = 1;
	dev->ipv4 = a->ipv4;
	if (rte_is_zero_ether_addr((const struct rte_ether_addr *)a->mac))
		rte_eth_macaddr_get(a->port_id, (struct rte_ether_addr *)dev->mac);
	else
		memcpy(dev->mac, a->mac, 6);
	dev->tsc_hz = rte_get_tsc_hz();
	dev->qp_mask = pow2_at_least(dev->attr.max_qps) - 1;
	if (dev_alloc(dev) != 0) {
		RNIC_LOG(ERR, "port %u: out of memory creating the device", a->port_id);
		rte_errno = ENOMEM;
		goto fail;
	}
	dev->next_qpn = RNIC_FIRST_QPN;
	TAILQ_INIT(&dev->pds);
	TAILQ_INIT(&dev->cqs);
	TAILQ_INIT(&dev->ahs);
	/* An eighth of the pool is kept from requests (rnic_dev.h mq_limit):
	 * room for ACKs and responses, and for what per-lcore caches hold. */
	dev->mq_limit = dev->attr.mbufs - RTE_MAX(dev->attr.mbufs / 8, 1u);
	dev->tx.txb.port = dev->rx.txb.port = a->port_id;
	dev->tx.txb.queue = RNIC_TXQ_REQ;
	dev->rx.txb.queue = RNIC_TXQ_RESP;
	if (a->no_port_setup) {
		port_adopt(dev);
		return dev;
	}
	rc = port_setup(dev);
	if (rc != 0) {
		RNIC_LOG(ERR, "port %u setup failed: %s", a->port_id, strerror(-rc));
		rte_errno = -rc;
		goto fail;
	}
	return dev;
fail:
	rc = rte_errno;
	dev_free(dev);
	rte_errno = rc;
	return NULL;
}

/* Free what rnic_destroy_qp could not (a role did not quiesce). */
static void
graveyard_free(struct rnic_device *dev)
{
	while (dev->graveyard != NULL) {
		struct rnic_qp *qp = dev->graveyard;

		dev->graveyard = qp->grave_next;
		rnic_qp_free(qp);
	}
}

void
rnic_dev_destroy(struct rnic_device *dev)
{
	if (dev == NULL)
		return;
	/* Telemetry first: once it returns nothing reads the device. */
	rnic_dev_run_destroy_hooks(dev);
	STORE_REL(&dev->polled, 0);   /* [POLLED] */
	for (uint32_t i = 0; i <= dev->qp_mask; i++)
		if (dev->qps[i] != NULL)
			rnic_destroy_qp(dev->qps[i]);
	graveyard_free(dev);
	for (uint32_t i = 0; i < dev->max_mrs; i++)
		if (dev->mrs[i] != NULL)
			rnic_dereg_mr(dev->mrs[i]);
	/* With the QPs and MRs gone nothing holds a reference to these. */
	while (!TAILQ_EMPTY(&dev->ahs))
		rnic_destroy_ah(&TAILQ_FIRST(&dev->ahs)->pub);
	while (!TAILQ_EMPTY(&dev->cqs))
		rnic_destroy_cq(TAILQ_FIRST(&dev->cqs));
	while (!TAILQ_EMPTY(&dev->pds))
		rnic_dealloc_pd(TAILQ_FIRST(&dev->pds));
	rte_pktmbuf_free_bulk(dev->rx.free, dev->rx.n_free);
	rte_pktmbuf_free_bulk(dev->tx.txb.pkts, dev->tx.txb.n);
	rte_pktmbuf_free_bulk(dev->rx.txb.pkts, dev->rx.txb.n);
	if (!dev->attr.no_port_setup)
		rte_eth_dev_stop(dev->port_id);
	dev_free(dev);
}

void
rnic_dev_set_polled(struct rnic_device *dev, bool polled)
{
	STORE_REL(&dev->polled, polled ? 1 : 0);   /* [POLLED] */
}

bool
rnic_dev_shared_txq(const struct rnic_device *dev)
{
	return dev->tx.txb.queue == dev->rx.txb.queue;
}

void
rnic_dev_get_addr(const struct rnic_device *dev, uint8_t mac[6], rte_be32_t *ipv4)
{
	memcpy(mac, dev->mac, 6);
	*ipv4 = dev->ipv4;
}

int
rnic_get_async_event(struct rnic_device *dev, struct rnic_async_event *ev)
{
	return rte_ring_sc_dequeue_elem(dev->ev_ring, ev, sizeof(*ev)) == 0 ? 1 : 0;
}
