/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HeaderParser (seed chapter 5) on the RX role: rte_eth_rx_burst, validate
 * Ethernet/IPv4/UDP/BTH/extended headers and the ICRC through the wire
 * library, hand ARP to rnic_arp.c, find the QP, and hand requests to the
 * responder and responses to requester receive. Every drop is counted by
 * reason. Received mbufs are never modified: with net_ring the sender's
 * retransmission list may hold the very same buffer.
 */
#include <rte_ethdev.h>

#include "rnic_engine_pvt.h"

/* IBA 10.9.1: the low 15 bits name the partition; one side must be a
 * full member (the top bit). */
#define PKEY_PARTITION_MASK 0x7fff
#define PKEY_FULL_MEMBER    0x8000

static bool
pkey_match(uint16_t a, uint16_t b)
{
	return (a & PKEY_PARTITION_MASK) == (b & PKEY_PARTITION_MASK) &&
	       ((a | b) & PKEY_FULL_MEMBER);
}

/* A frame the parser called other L2: ARP (tagged or not) goes to ARP. */
static bool
rx_arp(struct rnic_device *dev, const struct rte_mbuf *m, struct rnic_dev_stats *st)
{
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *eh = rte_pktmbuf_read(m, 0, sizeof(eb), &eb);
	uint32_t l3 = sizeof(eb);
	uint16_t et = eh ? rte_be_to_cpu_16(eh->ether_type) : 0;
	rte_be16_t tci = 0;

	if (et == RTE_ETHER_TYPE_VLAN) {
		struct rte_vlan_hdr vb;
		const struct rte_vlan_hdr *vh = rte_pktmbuf_read(m, l3, sizeof(vb), &vb);

		et = vh ? rte_be_to_cpu_16(vh->eth_proto) : 0;
		tci = vh ? vh->vlan_tci : 0;
		l3 += sizeof(vb);
	}
	if (et != RTE_ETHER_TYPE_ARP)
		return false;
	rnic_arp_input(dev, m, l3, l3 != sizeof(eb), tci, st);
	return true;
}

/* A frame the parser refused: ARP, or a drop counted by its reason. */
static void
rx_not_roce(struct rnic_device *dev, const struct rte_mbuf *m, enum rnic_pkt_err e,
	    struct rnic_dev_stats *st)
{
	if (e < RTE_DIM(st->drop_reason))
		st->drop_reason[e]++;
	if (e == RNIC_PKT_ERR_OTHER_L2 && rx_arp(dev, m, st))
		return;
	if (rnic_pkt_err_is_other(e))
		st->drop_not_roce++;
	else if (e == RNIC_PKT_ERR_ICRC)
		st->drop_icrc++;
	else
		st->drop_malformed++;
}

static void
rx_one(struct rnic_device *dev, struct rte_mbuf *m, struct rnic_dev_stats *st)
{
	struct rnic_pkt pkt;
	enum rnic_pkt_err e;
	struct rnic_qp *qp;
	rnic_opmask_t mask;

	st->rx_pkts++;
	st->rx_bytes += m->pkt_len;
	e = rnic_pkt_parse_mbuf(m, true, &pkt);
	if (e != RNIC_PKT_ERR_OK) {
		rx_not_roce(dev, m, e, st);
		return;
	}
	if (memcmp(pkt.l.dst_mac, dev->mac, 6) != 0 || pkt.l.dst_ip != dev->ipv4) {
		st->drop_wrong_dst++;
		return;
	}
	mask = pkt.op->mask;
	if (mask & RNIC_M_CNP) {
		st->cnp_rcvd++;
		return;
	}
	qp = rnic_qp_lookup(dev, pkt.bth.dqpn);
	if (qp == NULL) {
		st->drop_no_qp++;
		return;
	}
	if (!rnic_opcode_allowed(pkt.bth.opcode, rnic_qp_transport(qp))) {
		/* The parser cannot know the QP: its reason is counted here. */
		st->drop_opcode++;
		st->drop_reason[RNIC_PKT_ERR_OPCODE_TRANSPORT]++;
		return;
	}
	if (!pkey_match(pkt.bth.pkey, qp->attr.pkey)) {
		st->drop_pkey++;
		return;
	}
	if (mask & RNIC_M_RESP)
		rnic_comp_rx(dev, qp, m, &pkt);
	else
		rnic_resp_rx(dev, qp, m, &pkt);
}

/* Kicks (rnic_qp_kick): QPs another thread asked the completer about. */
static unsigned int
rx_kicks(struct rnic_device *dev, struct rnic_dev_stats *st)
{
	uint32_t kicks[32];
	unsigned int n;

	n = rte_ring_mc_dequeue_burst_elem(dev->kick_ring, kicks, sizeof(kicks[0]),
					   RTE_DIM(kicks), NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct rnic_qp *qp = rnic_qp_lookup(dev, kicks[i]);

		if (qp != NULL)
			rnic_comp_kick(dev, qp);
	}
	/* [KICK] kicks that did not fit the ring: look at every QP. A kick
	 * is idempotent, so a spurious one costs nothing but time. */
	if (rnic_dev_rescan(dev, &dev->kick_lost, &dev->rx.kick_lost_seen, rnic_comp_kick)) {
		st->kick_overflows++;
		n++;
	}
	return n;
}

unsigned int
rnic_dev_poll_rx(struct rnic_device *dev)
{
	struct rnic_dev_rx *rx = &dev->rx;
	struct rnic_dev_stats *st = &rx->st;
	struct rte_mbuf *pkts[RNIC_MAX_BURST];
	uint16_t burst = dev->attr.burst;
	unsigned int work = 0, n;

	rnic_txbuf_flush(&rx->txb, st);
	if (unlikely(LOAD_RLX(&dev->arp_req_gen) != rx->arp_req_sent))
		rnic_arp_request(dev, st);
	work += rx_kicks(dev, st);
	work += rnic_resp_pump_reads(dev);
	/* Each request can need one response right away: only take in
	 * what the response buffer can answer. */
	for (uint16_t q = 0; q < dev->nb_rxq; q++) {
		if (RNIC_TXBUF_SIZE - rx->txb.n < (uint32_t)burst * 2)
			break;
		n = rte_eth_rx_burst(dev->port_id, q, pkts, burst);
		for (unsigned int i = 0; i < n; i++) {
			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			rx_one(dev, pkts[i], st);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		work += n;
	}
	rnic_resp_flush_acks(dev);
	work += rnic_comp_rexmit(dev);
	work += rnic_comp_timer_events(dev);
	rnic_rx_free_flush(dev);
	rnic_txbuf_flush(&rx->txb, st);
	rnic_dev_iter_done(&rx->iter);
	return work;
}
