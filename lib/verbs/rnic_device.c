/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device: one DPDK port, its packet pool, its workers and the object
 * tables. Each worker gets its own TX queues (two where the port has them,
 * so that its TX role (requests) and RX role (responses) never share a
 * queue; one otherwise, and then both roles must be polled by one thread,
 * rnic_dev_shared_txq) and its share of the RX queues. Memory is taken on
 * the port's NUMA socket. The port's MTU is raised for the RoCE MTU, RSS
 * is on where the port offers it and has several RX queues.
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

/* The largest IPv4 packet a RoCE MTU of @p mtu needs: IPv4, UDP, BTH, the
 * longest extended headers, the payload, pad and ICRC. */
#define ROCE_IP_OVERHEAD (RNIC_IPV4_HLEN + RNIC_UDP_HLEN + RNIC_BTH_LEN + RNIC_ATMETH_LEN + \
			  RNIC_ICRC_LEN)

/*
 * Queues: each worker gets two TX queues when the port has them (one for
 * its TX role's requests, one for its RX role's responses, so the two can
 * run on different lcores) and the caller did not ask for one, else one
 * it shares. As many RX queues as TX queues where the port allows (links
 * like net_memif pair the peer's TX queue i with our RX queue i), split
 * evenly among the workers; with fewer RX queues than workers, those
 * without one receive through the steering ring ([STEER]).
 */
static int
plan_queues(struct rnic_device *dev, uint16_t max_tx, uint16_t max_rx, uint16_t *ntxq,
	    uint16_t *nrxq)
{
	uint16_t nw = dev->n_workers, per;

	if (max_tx < nw || max_rx < 1) {
		RNIC_LOG(ERR, "port %u has %u TX and %u RX queues: %u workers need %u TX "
			 "queues and an RX queue", dev->port_id, max_tx, max_rx, nw, nw);
		return -ENOTSUP;
	}
	per = max_tx >= 2 * nw && dev->attr.queues != 1 ? 2 : 1;
	*ntxq = per * nw;
	*nrxq = RTE_MIN(*ntxq, max_rx);
	for (uint16_t w = 0; w < nw; w++) {
		struct rnic_worker *wk = &dev->workers[w];

		wk->txq_req = (uint16_t)(per * w);
		wk->txq_resp = (uint16_t)(per * w + per - 1);
		wk->tx.txb.queue = wk->txq_req;
		wk->rx.txb.queue = wk->txq_resp;
		wk->nb_rxq = 0;
	}
	for (uint16_t q = 0; q < *nrxq; q++) {
		struct rnic_worker *wk = &dev->workers[*nrxq >= nw ? q * nw / *nrxq : q];

		if (wk->nb_rxq++ == 0)
			wk->rxq_first = q;
	}
	if (per == 1 && nw == 1)
		RNIC_LOG(INFO, "port %u has one TX queue: requests and responses share it, "
			 "so the TX and RX roles must be polled by one lcore", dev->port_id);
	return 0;
}

/* RSS over the IP addresses and UDP ports where the port offers it and
 * has several RX queues: a QP's frames then keep to one queue. */
static void
port_rss(struct rte_eth_conf *conf, const struct rte_eth_dev_info *info, uint16_t nrxq)
{
	uint64_t hf = info->flow_type_rss_offloads & (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP);

	if (nrxq < 2 || hf == 0)
		return;
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_hf = hf;
}

/* The port's MTU for the device's RoCE MTU; a port that cannot take it
 * lowers the RoCE MTU (a virtual port without MTU control keeps it).
 * max_rx_pktlen is no guide: net_memif and net_af_packet both report 1518
 * and no MTU control, and memif carries 4 KiB frames (chained) where
 * af_packet's ring does not: a port whose frames are smaller says so in
 * rnic_dev_attr.mtu (ports[].mtu). */
static void
port_mtu(struct rnic_device *dev, const struct rte_eth_dev_info *info)
{
	uint32_t want = dev->attr.mtu + (uint32_t)ROCE_IP_OVERHEAD;
	uint16_t cur;

	if (rte_eth_dev_get_mtu(dev->port_id, &cur) == 0 && cur >= want)
		return;
	if (info->max_mtu >= want && rte_eth_dev_set_mtu(dev->port_id, (uint16_t)want) == 0)
		return;
	while (dev->attr.mtu > 256 && info->max_mtu < dev->attr.mtu + (uint32_t)ROCE_IP_OVERHEAD &&
	       info->max_mtu != UINT16_MAX && info->max_mtu != 0)
		dev->attr.mtu /= 2;
	RNIC_LOG(INFO, "port %u: MTU %u for RoCE MTU %u (port max %u)", dev->port_id,
		 rte_eth_dev_get_mtu(dev->port_id, &cur) == 0 ? cur : 0, dev->attr.mtu,
		 info->max_mtu);
}

/* Log the port's link as it is now (a real NIC takes a few seconds after
 * start; rnic_dev_link_wait waits for it). */
static void
link_report(const struct rnic_device *dev)
{
	struct rte_eth_link link;
	char text[RTE_ETH_LINK_MAX_STR_LEN];

	if (rte_eth_link_get_nowait(dev->port_id, &link) != 0)
		return;
	rte_eth_link_to_str(text, sizeof(text), &link);
	RNIC_LOG(INFO, "port %u: %s, %u workers, RoCE MTU %u, NUMA socket %d", dev->port_id,
		 text, dev->n_workers, dev->attr.mtu, rte_eth_dev_socket_id(dev->port_id));
}

static int
port_setup(struct rnic_device *dev)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	uint16_t p = dev->port_id, ntxq, nrxq;
	int sock = rte_eth_dev_socket_id(p), rc;

	rc = rte_eth_dev_info_get(p, &info);
	if (rc == 0)
		rc = plan_queues(dev, info.max_tx_queues, info.max_rx_queues, &ntxq, &nrxq);
	if (rc != 0)
		return rc;
	port_rss(&conf, &info, nrxq);
	/* IPv4 checksums by the port where it offers them (the ICRC masks
	 * the field, so it may be filled in after the ICRC). */
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
		dev->tx_ip_cksum = true;
	}
	rc = rte_eth_dev_configure(p, nrxq, ntxq, &conf);
	if (rc != 0)
		return rc;
	port_mtu(dev, &info);
	for (uint16_t q = 0; q < nrxq && rc == 0; q++)
		rc = rte_eth_rx_queue_setup(p, q, RTE_MIN(dev->attr.rxq_desc, info.rx_desc_lim.nb_max),
					    sock, NULL, dev->pool);
	for (uint16_t q = 0; q < ntxq && rc == 0; q++)
		rc = rte_eth_tx_queue_setup(p, q, RTE_MIN(dev->attr.txq_desc, info.tx_desc_lim.nb_max),
					    sock, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p);
	if (rc != 0)
		return rc;
	/* Ports like af_packet on a bridge see others' frames: we filter by
	 * MAC ourselves, and must see broadcast ARP. */
	rte_eth_promiscuous_enable(p);
	link_report(dev);
	return 0;
}

static void
worker_free(struct rnic_worker *w)
{
	rte_ring_free(w->db_ring);
	rte_ring_free(w->kick_ring);
	rte_ring_free(w->steer_ring);
	rnic_timer_svc_free(w->tmr.svc);
	rte_ring_free(w->tmr_in);
	rte_ring_free(w->tmr_out);
	rte_free(w->tx.active.q);
	rte_free(w->rx.rd_active.q);
	rte_free(w->rx.acks.q);
	rte_free(w->rx.rexmit.q);
}

static void
dev_free(struct rnic_device *dev)
{
	for (uint16_t w = 0; dev->workers != NULL && w < dev->n_workers; w++)
		worker_free(&dev->workers[w]);
	rte_free(dev->workers);
	rte_mempool_free(dev->pool);
	rte_ring_free(dev->ev_ring);
	rte_free(dev->qps);
	rte_free(dev->sq_hint);
	rte_free(dev->mrs);
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
	if (!a->workers) a->workers = 1;
	if (!a->max_inflight) a->max_inflight = RNIC_INFLIGHT_DEFAULT;
	if (!a->cnp_interval_us) a->cnp_interval_us = RNIC_CNP_INTERVAL_US_DEFAULT;
	if (a->dcqcn.line_mbps == 0) {
		struct rnic_dcqcn_params d = a->dcqcn;

		rnic_dcqcn_defaults(&a->dcqcn, 100000);
		if (d.rpg_time_reset_us || d.rpg_byte_reset || d.alpha_period_us)
			return false;   /* parameters without a line rate */
	}
	return a->max_qps <= RNIC_MAX_QPS && rte_is_power_of_2(a->mtu) && a->queues <= 2 &&
	       a->mtu >= 256 && a->mtu <= 4096 && a->burst <= RNIC_MAX_BURST &&
	       a->mbufs >= 2 && a->mbuf_size >= RTE_PKTMBUF_HEADROOM + 256 + 128 &&
	       a->mbuf_size <= UINT16_MAX && rte_is_power_of_2(a->ring_size) &&
	       a->workers <= RNIC_MAX_WORKERS && a->workers <= a->max_qps &&
	       a->max_inflight >= RNIC_INFLIGHT_MIN && a->max_inflight <= RNIC_INFLIGHT_MAX &&
	       a->cnp_dscp <= 63 && a->cnp_interval_us <= RNIC_CNP_INTERVAL_US_MAX &&
	       a->vlan <= 4094 &&
	       rnic_dcqcn_params_ok(&a->dcqcn);
}

/* The NUMA socket of the device's memory: the port's, or the caller's
 * when the port does not say. */
static int
dev_socket(const struct rnic_device *dev)
{
	int s = rte_eth_dev_socket_id(dev->port_id);

	return s >= 0 ? s : (int)rte_socket_id();
}

/* An rte_ring of @p n elements of @p esize bytes named @p what<port>_<w>. */
static struct rte_ring *
dev_ring(const struct rnic_device *dev, const char *what, unsigned int w, unsigned int esize,
	 unsigned int n, unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "rnic_%s%u_%u", what, dev->port_id, w);
	return rte_ring_create_elem(name, esize, n, dev_socket(dev), flags);
}

/* A work list with room for every QP slot (each QP is on it at most once). */
static bool
qp_list_alloc(struct rnic_qp_list *l, const struct rnic_device *dev, const char *what)
{
	l->q = rte_zmalloc_socket(what, sizeof(*l->q) * (dev->qp_mask + 1), 0, dev_socket(dev));
	return l->q != NULL;
}

/* Worker @p id's rings, timer service and work lists. */
static int
worker_alloc(struct rnic_device *dev, uint16_t id)
{
	struct rnic_worker *w = &dev->workers[id];
	uint32_t slots = dev->qp_mask + 1;

	w->dev = dev;
	w->id = id;
	w->mq_limit = RTE_MAX(dev->mq_limit / dev->n_workers, 1u);
	w->tx.txb.port = w->rx.txb.port = dev->port_id;
	/* [DB] at most one doorbell per QP is ever queued: a ring with a
	 * slot for each never fills ([DB-LOST] covers the rest). */
	w->db_ring = dev_ring(dev, "db", id, sizeof(void *), slots,
			      RING_F_SC_DEQ | RING_F_EXACT_SZ);
	w->kick_ring = dev_ring(dev, "kick", id, sizeof(uint32_t), dev->attr.ring_size,
				RING_F_SC_DEQ);
	w->steer_ring = dev_ring(dev, "steer", id, sizeof(void *), dev->attr.ring_size,
				 RING_F_SC_DEQ);
	/* One loss and one RNR timer per QP: at most one command per timer
	 * per event, so room for two per QP can never fill. */
	w->tmr_in = dev_ring(dev, "tmi", id, sizeof(struct rnic_timer_event),
			     rte_align32pow2(4 * slots), RING_F_SC_DEQ);
	w->tmr_out = dev_ring(dev, "tmo", id, sizeof(struct rnic_timer_event),
			      dev->attr.ring_size, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->tmr_in != NULL && w->tmr_out != NULL)
		w->tmr.svc = rnic_timer_svc_create(slots, RNIC_TIMER_TICK_NS, w->tmr_in,
						   w->tmr_out);
	if (!qp_list_alloc(&w->tx.active, dev, "rnic_txact") ||
	    !qp_list_alloc(&w->rx.rd_active, dev, "rnic_rdact") ||
	    !qp_list_alloc(&w->rx.acks, dev, "rnic_acks") ||
	    !qp_list_alloc(&w->rx.rexmit, dev, "rnic_rexmit") ||
	    w->db_ring == NULL || w->kick_ring == NULL || w->steer_ring == NULL ||
	    w->tmr.svc == NULL)
		return -ENOMEM;
	return 0;
}

/* The pool, the rings, the workers and the tables. */
static int
dev_alloc(struct rnic_device *dev)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t slots = dev->qp_mask + 1;
	int sock = dev_socket(dev);

	snprintf(name, sizeof(name), "rnic_pool%u", dev->port_id);
	/* A per-lcore cache of 256, smaller for small pools: DPDK refuses a
	 * cache over 2/3 of the pool, and each lcore's cache strands up to
	 * 1.5 times its size where other lcores cannot get at it. */
	dev->pool = rte_pktmbuf_pool_create(name, dev->attr.mbufs,
					    RTE_MIN(256u, dev->attr.mbufs / 32), 0,
					    (uint16_t)dev->attr.mbuf_size, sock);
	dev->ev_ring = dev_ring(dev, "ev", 0, sizeof(struct rnic_async_event), RNIC_EVENT_RING,
				RING_F_SC_DEQ);
	dev->qps = rte_zmalloc_socket("rnic_qps", sizeof(*dev->qps) * slots, 0, sock);
	dev->sq_hint = rte_zmalloc_socket("rnic_sq_hint", sizeof(*dev->sq_hint) * slots,
					  RTE_CACHE_LINE_SIZE, sock);
	dev->max_mrs = dev->attr.max_mrs;
	dev->mrs = rte_zmalloc_socket("rnic_mrs", sizeof(*dev->mrs) * dev->max_mrs, 0, sock);
	dev->n_workers = dev->attr.workers;
	dev->workers = rte_zmalloc_socket("rnic_workers", sizeof(*dev->workers) * dev->n_workers,
					  RTE_CACHE_LINE_SIZE, sock);
	if (dev->pool == NULL || dev->ev_ring == NULL || dev->qps == NULL || dev->sq_hint == NULL ||
	    dev->mrs == NULL ||
	    dev->workers == NULL)
		return -ENOMEM;
	for (uint16_t w = 0; w < dev->n_workers; w++)
		if (worker_alloc(dev, w) != 0)
			return -ENOMEM;
	return 0;
}

/* The caller configured the port (no_port_setup): the queues it set up
 * are planned as rnic_dev_create would have. */
static int
port_adopt(struct rnic_device *dev)
{
	struct rte_eth_dev_info info;
	uint16_t ntxq, nrxq;
	int rc = rte_eth_dev_info_get(dev->port_id, &info);

	if (rc != 0)
		return rc;
	if (info.nb_tx_queues == 1)
		dev->attr.queues = 1;
	return plan_queues(dev, info.nb_tx_queues, info.nb_rx_queues, &ntxq, &nrxq);
}

/* The GID table (rnic_dev_attr.ipv6): the IPv4 address as an IPv4-mapped
 * GID first when there is one, then the IPv6 addresses. */
static int
gid_table_init(struct rnic_device *dev, const struct rnic_dev_attr *a)
{
	static const uint8_t zero[16];

	if (a->n_ipv6 > RNIC_IPV6_MAX)
		return -EINVAL;
	dev->n_gid = 0;
	if (a->ipv4 != 0) {
		uint8_t *g = dev->gid[dev->n_gid++];

		memset(g, 0, 16);
		g[10] = g[11] = 0xff;
		memcpy(g + 12, &a->ipv4, 4);
	}
	for (uint8_t i = 0; i < a->n_ipv6; i++) {
		const uint8_t *v6 = a->ipv6[i];

		if (memcmp(v6, zero, 16) == 0 || v6[0] == 0xff || rnic_gid_is_ipv4(v6))
			return -EINVAL;   /* ::, multicast, or an IPv4 address */
		for (uint8_t j = 0; j < i; j++)
			if (memcmp(a->ipv6[j], v6, 16) == 0)
				return -EINVAL;
		memcpy(dev->gid[dev->n_gid++], v6, 16);
	}
	return 0;
}

/* The device's attributes, address and tables; the port not touched. */
static int
dev_init(struct rnic_device *dev, const struct rnic_dev_attr *a)
{
	struct rte_ether_addr mac;

	dev->attr = *a;
	if (!attr_defaults(&dev->attr))
		return -EINVAL;
	dev->port_id = a->port_id;
	dev->ipv4 = a->ipv4;
	if (gid_table_init(dev, a) != 0)
		return -EINVAL;
	memcpy(&mac, a->mac, RTE_ETHER_ADDR_LEN);   /* a->mac: no alignment promised */
	if (rte_is_zero_ether_addr(&mac))
		rte_eth_macaddr_get(a->port_id, &mac);
	memcpy(dev->mac, &mac, RTE_ETHER_ADDR_LEN);
	dev->tsc_hz = rte_get_tsc_hz();
	dev->cnp_gap_tsc = dev->tsc_hz * dev->attr.cnp_interval_us / 1000000u;
	dev->tsc_per_us = RTE_MAX(dev->tsc_hz / 1000000u, (uint64_t)1);
	dev->qp_mask = pow2_at_least(dev->attr.max_qps) - 1;
	/* An eighth of the pool is kept from requests (rnic_dev.h mq_limit):
	 * room for ACKs and responses, and for what per-lcore caches hold. */
	dev->mq_limit = dev->attr.mbufs - RTE_MAX(dev->attr.mbufs / 8, 1u);
	dev->next_qpn = RNIC_FIRST_QPN;
	TAILQ_INIT(&dev->pds);
	TAILQ_INIT(&dev->cqs);
	TAILQ_INIT(&dev->ahs);
	if (dev_alloc(dev) != 0) {
		RNIC_LOG(ERR, "port %u: out of memory creating the device", a->port_id);
		return -ENOMEM;
	}
	return 0;
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
	dev = rte_zmalloc_socket("rnic_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE,
				 rte_eth_dev_socket_id(a->port_id));
	if (dev == NULL)
		dev = rte_zmalloc("rnic_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE);
	if (dev == NULL)
		return rnic_fail_null(ENOMEM);
	rc = dev_init(dev, a);
	if (rc == 0)
		rc = a->no_port_setup ? port_adopt(dev) : port_setup(dev);
	if (rc != 0) {
		if (rc != -EINVAL && rc != -ENOMEM)
			RNIC_LOG(ERR, "port %u setup failed: %s", a->port_id, strerror(-rc));
		dev_free(dev);
		return rnic_fail_null(-rc);
	}
	return dev;
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
	if (RNIC_REMOTE(dev)) {
		dev->ops->dev_destroy(dev);
		return;
	}
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
	for (uint16_t i = 0; i < dev->n_workers; i++) {
		struct rnic_worker *w = &dev->workers[i];
		void *m;

		rte_pktmbuf_free_bulk(w->rx.free, w->rx.n_free);
		rnic_tx_stash_drop(&w->tx);
		rte_pktmbuf_free_bulk(w->tx.txb.pkts, w->tx.txb.n);
		rte_pktmbuf_free_bulk(w->rx.txb.pkts, w->rx.txb.n);
		while (rte_ring_sc_dequeue(w->steer_ring, &m) == 0)
			rte_pktmbuf_free(m);
	}
	if (!dev->attr.no_port_setup)
		rte_eth_dev_stop(dev->port_id);
	dev_free(dev);
}

void
rnic_dev_set_polled(struct rnic_device *dev, bool polled)
{
	if (RNIC_REMOTE(dev))
		return;   /* the daemon's lcores poll it */
	STORE_REL(&dev->polled, polled ? 1 : 0);   /* [POLLED] */
}

bool
rnic_dev_shared_txq(const struct rnic_device *dev)
{
	if (RNIC_REMOTE(dev))
		return false;
	return dev->workers[0].txq_req == dev->workers[0].txq_resp;
}

int
rnic_dev_link_wait(struct rnic_device *dev, unsigned int timeout_ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * timeout_ms / 1000;
	struct rte_eth_link link;

	if (dev == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(dev))
		return 0;   /* the daemon brought its ports up */
	for (;;) {
		if (rte_eth_link_get_nowait(dev->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP) {
			link_report(dev);
			return 0;
		}
		if (rte_get_tsc_cycles() >= end)
			return -ETIMEDOUT;
		rte_delay_ms(10);
	}
}

unsigned int
rnic_dev_workers(const struct rnic_device *dev)
{
	return dev->n_workers;
}

void
rnic_dev_get_addr(const struct rnic_device *dev, uint8_t mac[6], rte_be32_t *ipv4)
{
	memcpy(mac, dev->mac, 6);
	*ipv4 = dev->ipv4;
}

unsigned int
rnic_dev_gid_count(const struct rnic_device *dev)
{
	return dev->n_gid;
}

int
rnic_dev_query_gid(const struct rnic_device *dev, unsigned int index, uint8_t gid[16])
{
	if (dev == NULL || gid == NULL || index >= dev->n_gid)
		return -EINVAL;
	memcpy(gid, dev->gid[index], 16);
	return 0;
}

void
rnic_dev_get_attr(const struct rnic_device *dev, struct rnic_dev_attr *attr)
{
	*attr = dev->attr;
}

int
rnic_get_async_event(struct rnic_device *dev, struct rnic_async_event *ev)
{
	if (RNIC_REMOTE(dev))
		return dev->ops->get_async_event(dev, ev);
	return rte_ring_sc_dequeue_elem(dev->ev_ring, ev, sizeof(*ev)) == 0 ? 1 : 0;
}
