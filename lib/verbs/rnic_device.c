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

#include "rnic_pvt.h"

RTE_LOG_REGISTER(rnic_logtype, softrnic.verbs, INFO);

const char *const rnic_dev_stat_names[] = {
#define RNIC_STAT_NAME(n) #n,
	RNIC_DEV_COUNTERS(RNIC_STAT_NAME)
#undef RNIC_STAT_NAME
};
const unsigned int rnic_dev_stat_count = RTE_DIM(rnic_dev_stat_names);

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
		dev->txb_resp.queue = RNIC_TXQ_REQ;
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
	rnic_timer_svc_free(dev->tsvc);
	rte_ring_free(dev->tmr_in);
	rte_ring_free(dev->tmr_out);
	rte_free(dev->qps);
	rte_free(dev->mrs);
	rte_free(dev->tx_active);
	rte_free(dev->rd_active);
	rte_free(dev->ack_list);
	rte_free(dev->tmr_list);
	rte_free(dev);
}

struct rnic_device *
rnic_dev_create(const struct rnic_dev_attr *a)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rnic_device *dev;
	struct rte_ether_addr ea;
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
	if (!dev->attr.max_qps) dev->attr.max_qps = 1024;
	if (!dev->attr.max_mrs) dev->attr.max_mrs = 1024;
	if (!dev->attr.max_cqs) dev->attr.max_cqs = 256;
	if (!dev->attr.mbufs) dev->attr.mbufs = 16384;
	if (!dev->attr.mbuf_size)
		dev->attr.mbuf_size = RTE_PKTMBUF_HEADROOM + 4096 + 128;
	if (!dev->attr.ring_size) dev->attr.ring_size = 4096;
	if (!dev->attr.burst) dev->attr.burst = 32;
	dev->nb_rxq = 1;
	if (!dev->attr.mtu) dev->attr.mtu = 4096;
	if (!dev->attr.rxq_desc) dev->attr.rxq_desc = 1024;
	if (!dev->attr.txq_desc) dev->attr.txq_desc = 1024;
	if (dev->attr.max_qps > (1u << 20) || !rte_is_power_of_2(dev->attr.mtu) ||
	    dev->attr.queues > 2 ||
	    dev->attr.mtu < 256 || dev->attr.mtu > 4096 || dev->attr.burst > RNIC_MAX_BURST ||
	    dev->attr.mbufs < 2 ||
	    dev->attr.mbuf_size < RTE_PKTMBUF_HEADROOM + 256 + 128 ||
	    dev->attr.mbuf_size > UINT16_MAX || !rte_is_power_of_2(dev->attr.ring_size)) {
		rte_errno = EINVAL;
		goto fail;
	}
	dev->port_id = a->port_id;
	dev->ipv4 = a->ipv4;
	if (rte_is_zero_ether_addr((const struct rte_ether_addr *)a->mac)) {
		rte_eth_macaddr_get(a->port_id, &ea);
		memcpy(dev->mac, &ea, 6);
	} else {
		memcpy(dev->mac, a->mac, 6);
	}
	dev->tsc_hz = rte_get_tsc_hz();

	snprintf(name, sizeof(name), "rnic_pool%u", a->port_id);
	/* A per-lcore cache of 256, smaller for small pools: DPDK refuses a
	 * cache over 2/3 of the pool, and each lcore's cache strands up to
	 * 1.5 times its size where other lcores cannot get at it. */
	dev->pool = rte_pktmbuf_pool_create(name, dev->attr.mbufs,
					    RTE_MIN(256u, dev->attr.mbufs / 32), 0,
					    (uint16_t)dev->attr.mbuf_size, rte_socket_id());
	snprintf(name, sizeof(name), "rnic_db%u", a->port_id);
	dev->db_ring = rte_ring_create(name, dev->attr.ring_size, rte_socket_id(),
				       RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rnic_kick%u", a->port_id);
	dev->kick_ring = rte_ring_create_elem(name, sizeof(uint32_t), dev->attr.ring_size,
					      rte_socket_id(), 0);
	snprintf(name, sizeof(name), "rnic_ev%u", a->port_id);
	dev->ev_ring = rte_ring_create_elem(name, sizeof(struct rnic_async_event), 1024,
					    rte_socket_id(), RING_F_SC_DEQ);
	dev->qp_mask = pow2_at_least(dev->attr.max_qps) - 1;
	/* One loss timer per QP: at most one command per QP per event, so
	 * room for two per QP can never fill. */
	snprintf(name, sizeof(name), "rnic_tmi%u", a->port_id);
	dev->tmr_in = rte_ring_create_elem(name, sizeof(struct rnic_timer_event),
					   pow2_at_least(2 * (dev->qp_mask + 1)) * 2,
					   rte_socket_id(), RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rnic_tmo%u", a->port_id);
	dev->tmr_out = rte_ring_create_elem(name, sizeof(struct rnic_timer_event),
					    dev->attr.ring_size, rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (dev->tmr_in != NULL && dev->tmr_out != NULL)
		dev->tsvc = rnic_timer_svc_create(dev->qp_mask + 1, 1000, dev->tmr_in,
						  dev->tmr_out);
	dev->qps = rte_zmalloc("rnic_qps", sizeof(*dev->qps) * (dev->qp_mask + 1), 0);
	dev->max_mrs = dev->attr.max_mrs;
	dev->mrs = rte_zmalloc("rnic_mrs", sizeof(*dev->mrs) * dev->max_mrs, 0);
	dev->tx_active = rte_zmalloc("rnic_txact", sizeof(void *) * (dev->qp_mask + 1), 0);
	dev->rd_active = rte_zmalloc("rnic_rdact", sizeof(void *) * (dev->qp_mask + 1), 0);
	dev->ack_list = rte_zmalloc("rnic_acks", sizeof(void *) * (dev->qp_mask + 1), 0);
	dev->tmr_list = rte_zmalloc("rnic_tmrs", sizeof(void *) * (dev->qp_mask + 1), 0);
	if (dev->pool == NULL || dev->db_ring == NULL || dev->kick_ring == NULL ||
	    dev->ev_ring == NULL || dev->qps == NULL || dev->mrs == NULL ||
	    dev->tx_active == NULL || dev->rd_active == NULL || dev->ack_list == NULL || dev->tmr_list == NULL || dev->tsvc == NULL) {
		RNIC_LOG(ERR, "port %u: out of memory creating the device", a->port_id);
		rte_errno = ENOMEM;
		goto fail;
	}
	dev->next_qpn = 0x10;
	TAILQ_INIT(&dev->pds);
	TAILQ_INIT(&dev->cqs);
	TAILQ_INIT(&dev->ahs);
	/* An eighth of the pool is kept from requests (rnic_pvt.h mq_limit):
	 * room for ACKs and responses, and for what per-lcore caches hold. */
	dev->mq_limit = dev->attr.mbufs - RTE_MAX(dev->attr.mbufs / 8, 1u);
	dev->txb_req.port = dev->txb_resp.port = a->port_id;
	dev->txb_req.queue = RNIC_TXQ_REQ;
	dev->txb_resp.queue = RNIC_TXQ_RESP;
	if (!a->no_port_setup) {
		rc = port_setup(dev);
		if (rc != 0) {
			RNIC_LOG(ERR, "port %u setup failed: %s", a->port_id, strerror(-rc));
			rte_errno = -rc;
			goto fail;
		}
	} else {
		struct rte_eth_dev_info info;

		/* The caller configured the port: with one TX queue, share it;
		 * poll the RX queues it set up (at most two). */
		if (rte_eth_dev_info_get(a->port_id, &info) == 0) {
			if (info.nb_tx_queues == 1)
				dev->txb_resp.queue = RNIC_TXQ_REQ;
			dev->nb_rxq = RTE_MAX(RTE_MIN(info.nb_rx_queues, (uint16_t)2), (uint16_t)1);
		}
	}
	return dev;
fail:
	rc = rte_errno;
	dev_free(dev);
	rte_errno = rc;
	return NULL;
}

void
rnic_dev_destroy(struct rnic_device *dev)
{
	if (dev == NULL)
		return;
	/* Telemetry first: once it returns no endpoint reads the device. */
	rnic_telemetry_remove_device(dev);
	dev->polled = 0;
	for (uint32_t i = 0; i <= dev->qp_mask; i++)
		if (dev->qps[i] != NULL)
			rnic_destroy_qp(dev->qps[i]);
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
	rte_pktmbuf_free_bulk(dev->txb_req.pkts, dev->txb_req.n);
	rte_pktmbuf_free_bulk(dev->txb_resp.pkts, dev->txb_resp.n);
	if (!dev->attr.no_port_setup)
		rte_eth_dev_stop(dev->port_id);
	dev_free(dev);
}

void
rnic_dev_set_polled(struct rnic_device *dev, bool polled)
{
	STORE_REL(&dev->polled, polled ? 1 : 0);
}

bool
rnic_dev_shared_txq(const struct rnic_device *dev)
{
	return dev->txb_req.queue == dev->txb_resp.queue;
}

unsigned int
rnic_dev_tx_backlog(const struct rnic_device *dev)
{
	/* Each count is written by its lcore after rte_eth_tx_burst returns. */
	return LOAD_ACQ(&dev->txb_req.n) + LOAD_ACQ(&dev->txb_resp.n);
}

int
rnic_qp_sq_pending(const struct rnic_qp *qp)
{
	if (qp == NULL)
		return -EINVAL;
	/* sq_pi: the caller's own index; sq_fetch: released by the TX lcore
	 * once the WQE's last packet is in the TX buffer. */
	return (int)(LOAD_ACQ(&qp->sq_pi) - LOAD_ACQ(&qp->req.sq_fetch));
}

void
rnic_dev_get_addr(const struct rnic_device *dev, uint8_t mac[6], rte_be32_t *ipv4)
{
	memcpy(mac, dev->mac, 6);
	*ipv4 = dev->ipv4;
}

/*
 * Wait until every polling role has finished an iteration that started
 * after the caller's last store: then no lcore still uses what the caller
 * unpublished. Bounded: an lcore that stopped polling is not waited for
 * past one second.
 */
void
rnic_dev_quiesce(struct rnic_device *dev)
{
	uint64_t start[3], deadline;

	if (!LOAD_ACQ(&dev->polled))
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int r = 0; r < 3; r++)
		start[r] = LOAD_ACQ(&dev->iter[r]);
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	for (int r = 0; r < 3; r++)
		while (LOAD_ACQ(&dev->iter[r]) < start[r] + 2 &&
		       rte_get_tsc_cycles() < deadline)
			rte_pause();
}

void
rnic_dev_stats_get(const struct rnic_device *dev, struct rnic_dev_stats *st)
{
	const struct rnic_dev_stats *parts[3] = { &dev->st_tx.s, &dev->st_rx.s,
						  &dev->st_timer.s };
	const uint64_t *src;
	uint64_t *dst = (uint64_t *)st;
	const size_t n = sizeof(*st) / sizeof(uint64_t);

	memset(st, 0, sizeof(*st));
	for (int p = 0; p < 3; p++) {
		src = (const uint64_t *)parts[p];
		for (size_t i = 0; i < n; i++)
			dst[i] += LOAD_RLX(&src[i]);
	}
}

int
rnic_get_async_event(struct rnic_device *dev, struct rnic_async_event *ev)
{
	return rte_ring_sc_dequeue_elem(dev->ev_ring, ev, sizeof(*ev)) == 0 ? 1 : 0;
}

/* Push what is buffered; returns what went out. */
uint32_t
rnic_txbuf_flush(struct rnic_txbuf *b, struct rnic_dev_stats *st)
{
	uint16_t sent;

	if (b->n == 0)
		return 0;
	sent = rte_eth_tx_burst(b->port, b->queue, b->pkts, (uint16_t)RTE_MIN(b->n, 512u));
	if (sent < b->n) {
		memmove(b->pkts, b->pkts + sent, (b->n - sent) * sizeof(b->pkts[0]));
		st->tx_full++;
	}
	b->n -= sent;
	st->tx_pkts += sent;
	return sent;
}
