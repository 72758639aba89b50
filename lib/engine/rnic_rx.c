/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HeaderParser (seed chapter 5) on the RX lcore: rte_eth_rx_burst, validate
 * Ethernet/IPv4/UDP/BTH/extended headers and the ICRC through the wire
 * library, answer ARP for our address, find the QP, and hand requests to
 * the responder and responses to requester receive. Every drop is counted
 * by reason. Received mbufs are never modified: with net_ring the sender's
 * retransmission list may hold the very same buffer.
 */
#include <rte_arp.h>
#include <rte_ethdev.h>

#include "rnic_engine.h"

#include <errno.h>
#include <sched.h>

#include <rte_cycles.h>

static inline unsigned int
arp_slot(rte_be32_t ip)
{
	uint32_t h = rte_be_to_cpu_32(ip) * 2654435761u;

	return (h >> 26) & (RNIC_ARP_CACHE - 1);
}

/* RX lcore: remember @p ip -> @p mac (seqlock writer). */
static void
arp_learn(struct rnic_device *dev, rte_be32_t ip, const uint8_t *mac)
{
	unsigned int i = arp_slot(ip);
	uint32_t seq = __atomic_load_n(&dev->arp[i].seq, __ATOMIC_RELAXED);

	if (ip == 0 || (mac[0] & 1))
		return;
	if (dev->arp[i].ip == ip && memcmp(dev->arp[i].mac, mac, 6) == 0 && !(seq & 1) && seq)
		return;
	__atomic_store_n(&dev->arp[i].seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	dev->arp[i].ip = ip;
	memcpy(dev->arp[i].mac, mac, 6);
	__atomic_store_n(&dev->arp[i].seq, seq + 2, __ATOMIC_RELEASE);
}

int
rnic_dev_arp_lookup(const struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6])
{
	unsigned int i = arp_slot(ip);

	if (dev == NULL || mac == NULL)
		return -EINVAL;
	for (;;) {
		uint32_t s1 = __atomic_load_n(&dev->arp[i].seq, __ATOMIC_ACQUIRE);
		rte_be32_t eip;
		uint8_t m[6];

		if (s1 == 0)
			return -ENOENT;
		if (s1 & 1) {
			rte_pause();
			continue;
		}
		eip = dev->arp[i].ip;
		memcpy(m, dev->arp[i].mac, 6);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&dev->arp[i].seq, __ATOMIC_RELAXED) != s1)
			continue;
		if (eip != ip)
			return -ENOENT;
		memcpy(mac, m, 6);
		return 0;
	}
}

int
rnic_dev_arp_resolve(struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6],
		     unsigned int timeout_ms)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t now = rte_get_tsc_cycles();
	uint64_t end = now + hz * timeout_ms / 1000, next = now;

	if (dev == NULL || mac == NULL || ip == 0)
		return -EINVAL;
	for (;;) {
		if (rnic_dev_arp_lookup(dev, ip, mac) == 0)
			return 0;
		now = rte_get_tsc_cycles();
		if (now >= end)
			return -ETIMEDOUT;
		if (now >= next) {
			STORE_REL(&dev->arp_req_ip, ip);
			__atomic_fetch_add(&dev->arp_req_gen, 1, __ATOMIC_RELEASE);
			next = now + hz / 5;
		}
		if (!LOAD_ACQ(&dev->polled))
			rnic_dev_poll_rx(dev);
		else
			sched_yield();
	}
}

/* RX lcore: broadcast an ARP request for the IP a control thread asked for. */
static void
arp_request(struct rnic_device *dev, struct rnic_dev_stats *st)
{
	uint32_t gen = LOAD_ACQ(&dev->arp_req_gen);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *r;
	struct rte_mbuf *out;

	if (gen == dev->arp_req_sent || !rnic_txbuf_room(&dev->txb_resp))
		return;
	out = rte_pktmbuf_alloc(dev->pool);
	if (out == NULL) {
		st->tx_nombuf++;
		return;
	}
	dev->arp_req_sent = gen;
	eth = rte_pktmbuf_mtod(out, struct rte_ether_hdr *);
	memset(&eth->dst_addr, 0xff, 6);
	memcpy(&eth->src_addr, dev->mac, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	r = (struct rte_arp_hdr *)(eth + 1);
	r->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	r->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	r->arp_hlen = 6;
	r->arp_plen = 4;
	r->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	memcpy(&r->arp_data.arp_sha, dev->mac, 6);
	r->arp_data.arp_sip = dev->ipv4;
	memset(&r->arp_data.arp_tha, 0, 6);
	r->arp_data.arp_tip = LOAD_ACQ(&dev->arp_req_ip);
	out->data_len = out->pkt_len = RTE_MAX(sizeof(*eth) + sizeof(*r), (size_t)60);
	memset((uint8_t *)(r + 1), 0, out->data_len - sizeof(*eth) - sizeof(*r));
	rnic_txbuf_add(&dev->txb_resp, out);
}

/* A MAC no host can send from: multicast/broadcast (I/G bit) or zero. */
static bool
arp_bad_sender_mac(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac[0] & 1) || memcmp(mac, zero, 6) == 0;
}

/*
 * An ARP frame: learn the sender of any request or reply addressed to our
 * IPv4 address (a reply to our request, or a peer asking for us, which is
 * about to talk to us), and answer requests for our address. A request
 * that came with an 802.1Q tag (@p tagged, @p tci) is answered with the
 * same tag: the asker is on that VLAN. Frames for our address that no
 * host could have sent are ignored, neither learned nor answered, and
 * counted in arp_ignored: a multicast, broadcast or zero sender MAC (in
 * the Ethernet header or the ARP body: an answer would go to every host,
 * and the cache would send RoCE frames to them), a sender claiming our
 * own IPv4 (someone else holds or spoofs it: learning it would point our
 * own address elsewhere), an opcode other than request or reply.
 */
static void
arp_input(struct rnic_device *dev, const struct rte_mbuf *m, const struct rte_ether_hdr *eh,
	  uint32_t l3, bool tagged, rte_be16_t tci, struct rnic_dev_stats *st)
{
	struct rte_arp_hdr ah_buf;
	const struct rte_arp_hdr *ah;
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *r;
	struct rte_mbuf *out;
	size_t l2 = sizeof(*eth) + (tagged ? sizeof(struct rte_vlan_hdr) : 0);

	ah = rte_pktmbuf_read(m, l3, sizeof(ah_buf), &ah_buf);
	if (ah == NULL || ah->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    ah->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ah->arp_hlen != 6 || ah->arp_plen != 4 ||
	    ah->arp_data.arp_tip != dev->ipv4)
		return;
	if ((ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) &&
	     ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REPLY)) ||
	    arp_bad_sender_mac(eh->src_addr.addr_bytes) ||
	    arp_bad_sender_mac(ah->arp_data.arp_sha.addr_bytes) ||
	    ah->arp_data.arp_sip == dev->ipv4) {
		st->arp_ignored++;
		return;
	}
	arp_learn(dev, ah->arp_data.arp_sip, (const uint8_t *)&ah->arp_data.arp_sha);
	if (ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		return;
	if (!rnic_txbuf_room(&dev->txb_resp))
		return;
	out = rte_pktmbuf_alloc(dev->pool);
	if (out == NULL) {
		st->tx_nombuf++;
		return;
	}
	eth = rte_pktmbuf_mtod(out, struct rte_ether_hdr *);
	memcpy(&eth->dst_addr, &ah->arp_data.arp_sha, 6);
	memcpy(&eth->src_addr, dev->mac, 6);
	if (tagged) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = tci;
		vh->eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	} else {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	}
	r = (struct rte_arp_hdr *)((uint8_t *)eth + l2);
	r->arp_hardware = ah->arp_hardware;
	r->arp_protocol = ah->arp_protocol;
	r->arp_hlen = 6;
	r->arp_plen = 4;
	r->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	memcpy(&r->arp_data.arp_sha, dev->mac, 6);
	r->arp_data.arp_sip = dev->ipv4;
	r->arp_data.arp_tha = ah->arp_data.arp_sha;
	r->arp_data.arp_tip = ah->arp_data.arp_sip;
	out->data_len = out->pkt_len = RTE_MAX(l2 + sizeof(*r), (size_t)60);
	memset((uint8_t *)(r + 1), 0, out->data_len - l2 - sizeof(*r));
	rnic_txbuf_add(&dev->txb_resp, out);
	st->arp_replies++;
}

static bool
pkey_match(uint16_t a, uint16_t b)
{
	/* The low 15 bits name the partition; one side must be a full member. */
	return (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
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
		if (e < RTE_DIM(st->drop_reason))
			st->drop_reason[e]++;
		if (e == RNIC_PKT_ERR_OTHER_L2) {
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
			if (et == RTE_ETHER_TYPE_ARP) {
				arp_input(dev, m, eh, l3, l3 != sizeof(eb), tci, st);
				return;
			}
		}
		if (rnic_pkt_err_is_other(e))
			st->drop_not_roce++;
		else if (e == RNIC_PKT_ERR_ICRC)
			st->drop_icrc++;
		else
			st->drop_malformed++;
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
	if (!rnic_opcode_allowed(pkt.bth.opcode,
				 qp->type == RNIC_QPT_RC ? RNIC_TRANSPORT_RC :
				 qp->type == RNIC_QPT_UC ? RNIC_TRANSPORT_UC :
				 RNIC_TRANSPORT_UD)) {
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

unsigned int
rnic_dev_poll_rx(struct rnic_device *dev)
{
	struct rnic_dev_stats *st = &dev->st_rx.s;
	struct rte_mbuf *pkts[512];
	uint32_t kicks[32];
	unsigned int work = 0, n;
	uint16_t burst = dev->attr.burst;

	rnic_txbuf_flush(&dev->txb_resp, st);
	if (unlikely(LOAD_RLX(&dev->arp_req_gen) != dev->arp_req_sent))
		arp_request(dev, st);
	n = rte_ring_mc_dequeue_burst_elem(dev->kick_ring, kicks, sizeof(kicks[0]),
					   RTE_DIM(kicks), NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct rnic_qp *qp = rnic_qp_lookup(dev, kicks[i]);

		if (qp != NULL)
			rnic_comp_kick(dev, qp);
	}
	work += n;
	/* Kicks that did not fit the ring (rnic_qp_kick): look at every QP.
	 * A kick is idempotent, so a spurious one costs nothing but time. */
	if (unlikely(LOAD_RLX(&dev->kick_lost)) &&
	    __atomic_exchange_n(&dev->kick_lost, 0, __ATOMIC_ACQ_REL)) {
		st->kick_overflows++;
		for (uint32_t i = 0; i <= dev->qp_mask; i++) {
			struct rnic_qp *qp = LOAD_ACQ(&dev->qps[i]);

			if (qp != NULL)
				rnic_comp_kick(dev, qp);
		}
		work++;
	}
	work += rnic_resp_pump_reads(dev);
	/* Each request can need one response right away: only take in
	 * what the response buffer can answer. */
	for (uint16_t q = 0; q < dev->nb_rxq; q++) {
		if (RNIC_TXBUF_SIZE - dev->txb_resp.n < (uint32_t)burst * 2)
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
	work += rnic_comp_timers(dev);
	work += rnic_comp_timer_events(dev);
	rnic_txbuf_flush(&dev->txb_resp, st);
	__atomic_fetch_add(&dev->iter[1], 1, __ATOMIC_RELEASE);
	return work;
}
