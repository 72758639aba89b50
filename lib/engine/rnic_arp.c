/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP for the device's IPv4 address on the RX role: answer requests,
 * learn senders into the cache (a seqlock per entry: RX writes, any
 * thread reads), and broadcast the requests a control thread asks for
 * (rnic_dev_arp_resolve).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "rnic_engine_pvt.h"

/* ARP frames are padded to the Ethernet minimum (without FCS). */
#define ARP_FRAME_MIN 60
/* rnic_dev_arp_resolve asks again this often (1/5 s). */
#define ARP_RETRY_PER_S 5

static inline unsigned int
arp_slot(rte_be32_t ip)
{
	uint32_t h = rte_be_to_cpu_32(ip) * 2654435761u;   /* Knuth's multiplicative hash */

	return (h >> 26) & (RNIC_ARP_CACHE - 1);
}

/* RX: remember @p ip -> @p mac ([ARP] seqlock writer). */
static void
arp_learn(struct rnic_worker *wk, rte_be32_t ip, const uint8_t *mac)
{
	struct rnic_arp_ent *e = &wk->dev->arp[arp_slot(ip)];
	uint32_t seq = LOAD_RLX(&e->seq);

	if (ip == 0 || (mac[0] & 1))
		return;
	if (e->ip == ip && memcmp(e->mac, mac, 6) == 0 && !(seq & 1) && seq)
		return;
	STORE_RLX(&e->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->ip = ip;
	memcpy(e->mac, mac, 6);
	STORE_REL(&e->seq, seq + 2);   /* [ARP] */
}

int
rnic_dev_arp_lookup(const struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6])
{
	const struct rnic_arp_ent *e;

	if (dev == NULL || mac == NULL)
		return -EINVAL;
	e = &dev->arp[arp_slot(ip)];
	for (;;) {
		uint32_t s1 = LOAD_ACQ(&e->seq);   /* [ARP] */
		rte_be32_t eip;
		uint8_t m[6];

		if (s1 == 0)
			return -ENOENT;
		if (s1 & 1) {
			rte_pause();
			continue;
		}
		eip = e->ip;
		memcpy(m, e->mac, 6);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LOAD_RLX(&e->seq) != s1)
			continue;
		if (eip != ip)
			return -ENOENT;
		memcpy(mac, m, 6);
		return 0;
	}
}

int
rnic_resolve_wait(struct rnic_device *dev, rnic_resolve_lookup_t *lookup,
		  rnic_resolve_ask_t *ask, const void *addr, uint8_t mac[6],
		  unsigned int timeout_ms)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t now = rte_get_tsc_cycles();
	uint64_t end = now + hz * timeout_ms / 1000, next = now;

	for (;;) {
		if (lookup(dev, addr, mac) == 0)
			return 0;
		now = rte_get_tsc_cycles();
		if (now >= end)
			return -ETIMEDOUT;
		if (now >= next) {
			ask(dev, addr);
			next = now + hz / ARP_RETRY_PER_S;
		}
		if (!LOAD_ACQ(&dev->polled))   /* [POLLED]: this thread is the poller */
			rnic_dev_poll_rx(dev);
		else
			sched_yield();
	}
}

static int
arp_lookup_cb(struct rnic_device *dev, const void *addr, uint8_t mac[6])
{
	rte_be32_t ip;

	memcpy(&ip, addr, sizeof(ip));
	return rnic_dev_arp_lookup(dev, ip, mac);
}

static void
arp_ask_cb(struct rnic_device *dev, const void *addr)
{
	rte_be32_t ip;

	memcpy(&ip, addr, sizeof(ip));
	STORE_REL(&dev->arp_req_ip, ip);
	__atomic_fetch_add(&dev->arp_req_gen, 1, __ATOMIC_RELEASE);   /* [ARP-REQ] */
}

int
rnic_dev_arp_resolve(struct rnic_device *dev, rte_be32_t ip, uint8_t mac[6],
		     unsigned int timeout_ms)
{
	if (dev == NULL || mac == NULL || ip == 0)
		return -EINVAL;
	if (unlikely(dev->ops != NULL)) {   /* asked of the daemon (rnic_remote.h) */
		uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };

		memcpy(gid + 12, &ip, 4);
		return dev->ops->resolve_gid(dev, gid, mac, timeout_ms);
	}
	return rnic_resolve_wait(dev, arp_lookup_cb, arp_ask_cb, &ip, mac, timeout_ms);
}

/* An ARP frame of @p op from our address to @p dst_mac (@p tci: 802.1Q
 * tag or none); the ARP body is returned for the caller to finish. */
static struct rte_arp_hdr *
arp_frame(struct rnic_worker *wk, struct rte_mbuf *out, const uint8_t *dst_mac,
	  bool tagged, rte_be16_t tci, uint16_t op)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(out, struct rte_ether_hdr *);
	size_t l2 = sizeof(*eth) + (tagged ? sizeof(struct rte_vlan_hdr) : 0);
	struct rte_arp_hdr *r = (struct rte_arp_hdr *)((uint8_t *)eth + l2);

	/* Byte copies: neither address is 2-byte aligned for certain (the
	 * requester's sits at an odd offset of a received frame). */
	memcpy(&eth->dst_addr, dst_mac, RTE_ETHER_ADDR_LEN);
	memcpy(&eth->src_addr, wk->dev->mac, RTE_ETHER_ADDR_LEN);
	if (tagged) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = tci;
		vh->eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	} else {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	}
	r->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	r->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	r->arp_hlen = RTE_ETHER_ADDR_LEN;
	r->arp_plen = sizeof(rte_be32_t);
	r->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&r->arp_data.arp_sha, wk->dev->mac, 6);
	r->arp_data.arp_sip = wk->dev->ipv4;
	out->data_len = out->pkt_len = RTE_MAX(l2 + sizeof(*r), (size_t)ARP_FRAME_MIN);
	memset((uint8_t *)(r + 1), 0, out->data_len - l2 - sizeof(*r));
	return r;
}

/* An mbuf for an ARP frame on the RX role's TX buffer, or NULL. */
static struct rte_mbuf *
arp_alloc(struct rnic_worker *wk, struct rnic_dev_stats *st)
{
	struct rte_mbuf *out;

	if (!rnic_txbuf_room(&wk->rx.txb))
		return NULL;
	out = rte_pktmbuf_alloc(wk->dev->pool);
	if (out == NULL)
		st->tx_nombuf++;
	return out;
}

void
rnic_arp_request(struct rnic_worker *wk, struct rnic_dev_stats *st)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t gen = LOAD_ACQ(&wk->dev->arp_req_gen);   /* [ARP-REQ] */
	struct rte_arp_hdr *r;
	struct rte_mbuf *out;

	if (gen == wk->rx.arp_req_sent)
		return;
	out = arp_alloc(wk, st);
	if (out == NULL)
		return;
	wk->rx.arp_req_sent = gen;
	r = arp_frame(wk, out, bcast, false, 0, RTE_ARP_OP_REQUEST);
	memset(&r->arp_data.arp_tha, 0, 6);
	r->arp_data.arp_tip = LOAD_ACQ(&wk->dev->arp_req_ip);
	rnic_txbuf_add(&wk->rx.txb, out);
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
void
rnic_arp_input(struct rnic_worker *wk, const struct rte_mbuf *m, uint32_t l3,
	       bool tagged, rte_be16_t tci, struct rnic_dev_stats *st)
{
	struct rte_ether_hdr eb;
	struct rte_arp_hdr ah_buf;
	const struct rte_ether_hdr *eh = rte_pktmbuf_read(m, 0, sizeof(eb), &eb);
	const struct rte_arp_hdr *ah = rte_pktmbuf_read(m, l3, sizeof(ah_buf), &ah_buf);
	struct rte_arp_hdr *r;
	struct rte_mbuf *out;

	if (eh == NULL || ah == NULL ||
	    ah->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    ah->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != sizeof(rte_be32_t) ||
	    ah->arp_data.arp_tip != wk->dev->ipv4)
		return;
	if ((ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) &&
	     ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REPLY)) ||
	    arp_bad_sender_mac(eh->src_addr.addr_bytes) ||
	    arp_bad_sender_mac(ah->arp_data.arp_sha.addr_bytes) ||
	    ah->arp_data.arp_sip == wk->dev->ipv4) {
		st->arp_ignored++;
		return;
	}
	arp_learn(wk, ah->arp_data.arp_sip, (const uint8_t *)&ah->arp_data.arp_sha);
	if (ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		return;
	out = arp_alloc(wk, st);
	if (out == NULL)
		return;
	r = arp_frame(wk, out, ah->arp_data.arp_sha.addr_bytes, tagged, tci, RTE_ARP_OP_REPLY);
	r->arp_data.arp_tha = ah->arp_data.arp_sha;
	r->arp_data.arp_tip = ah->arp_data.arp_sip;
	rnic_txbuf_add(&wk->rx.txb, out);
	st->arp_replies++;
}
