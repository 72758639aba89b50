/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery (RFC 4861) for the port's IPv6 GIDs on the RX
 * role, ARP's counterpart (rnic_arp.c): answer neighbour solicitations for
 * our addresses with an advertisement, learn solicitors and advertisers
 * into the neighbour cache (a seqlock per entry: RX writes, any thread
 * reads), and send the solicitations a control thread asks for
 * (rnic_dev_nd_resolve) to the target's solicited-node multicast address.
 * Only what a RoCE endpoint needs: no router or redirect messages, no
 * duplicate address detection of our own (the configuration owns the
 * addresses), no reachability state machine (an entry is kept until a
 * newer message for the same address replaces it).
 */
#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_pause.h>

#include "rnic_engine_pvt.h"

#define ND_HOP_LIMIT 255          /* RFC 4861 7.1: on-link only */
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ND_OPT_SLLA 1             /* source link-layer address */
#define ND_OPT_TLLA 2             /* target link-layer address */
#define ND_NA_FLAG_SOLICITED 0x40
#define ND_NA_FLAG_OVERRIDE 0x20
#define ND_MSG_LEN 24             /* type, code, checksum, flags, target */
#define ND_OPT_LLA_LEN 8          /* type, length 1, MAC */
#define ND_FRAME_MAX 128

static inline unsigned int
nd_slot(const uint8_t ip6[16])
{
	uint32_t h;

	memcpy(&h, ip6 + 12, 4);
	h = rte_be_to_cpu_32(h) * 2654435761u;   /* the interface ID's low half */
	return (h >> 26) & (RNIC_ARP_CACHE - 1);
}

/* RX: remember @p ip6 -> @p mac ([ARP] seqlock writer, as arp_learn). */
static void
nd_learn(struct rnic_worker *wk, const uint8_t ip6[16], const uint8_t *mac)
{
	struct rnic_nd_ent *e = &wk->dev->nd[nd_slot(ip6)];
	uint32_t seq = LOAD_RLX(&e->seq);

	if (memcmp(e->ip6, ip6, 16) == 0 && memcmp(e->mac, mac, 6) == 0 && !(seq & 1) && seq)
		return;
	STORE_RLX(&e->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(e->ip6, ip6, 16);
	memcpy(e->mac, mac, 6);
	STORE_REL(&e->seq, seq + 2);   /* [ARP] */
}

int
rnic_dev_nd_lookup(const struct rnic_device *dev, const uint8_t ip6[16], uint8_t mac[6])
{
	const struct rnic_nd_ent *e;

	if (dev == NULL || ip6 == NULL || mac == NULL)
		return -EINVAL;
	e = &dev->nd[nd_slot(ip6)];
	for (;;) {
		uint32_t s1 = LOAD_ACQ(&e->seq);   /* [ARP] */
		uint8_t eip[16], m[6];

		if (s1 == 0)
			return -ENOENT;
		if (s1 & 1) {
			rte_pause();
			continue;
		}
		memcpy(eip, e->ip6, 16);
		memcpy(m, e->mac, 6);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LOAD_RLX(&e->seq) != s1)
			continue;
		if (memcmp(eip, ip6, 16) != 0)
			return -ENOENT;
		memcpy(mac, m, 6);
		return 0;
	}
}

/* The port's first IPv6 GID (the source of our solicitations), or NULL. */
static const uint8_t *
nd_first_ipv6(const struct rnic_device *dev)
{
	for (uint8_t i = 0; i < dev->n_gid; i++)
		if (!rnic_gid_is_ipv4(dev->gid[i]))
			return dev->gid[i];
	return NULL;
}

static int
nd_lookup_cb(struct rnic_device *dev, const void *addr, uint8_t mac[6])
{
	return rnic_dev_nd_lookup(dev, addr, mac);
}

/* [ARP-REQ]: the address, then the generation. */
static void
nd_ask_cb(struct rnic_device *dev, const void *addr)
{
	const uint8_t *ip6 = addr;

	for (unsigned int i = 0; i < 16; i++)
		STORE_RLX(&dev->nd_req_ip6[i], ip6[i]);
	__atomic_fetch_add(&dev->nd_req_gen, 1, __ATOMIC_RELEASE);
}

int
rnic_dev_nd_resolve(struct rnic_device *dev, const uint8_t ip6[16], uint8_t mac[6],
		    unsigned int timeout_ms)
{
	if (dev != NULL && ip6 != NULL && mac != NULL && unlikely(dev->ops != NULL))
		return dev->ops->resolve_gid(dev, ip6, mac, timeout_ms);
	if (dev == NULL || ip6 == NULL || mac == NULL || ip6[0] == 0xff ||
	    rnic_gid_is_ipv4(ip6) || nd_first_ipv6(dev) == NULL)
		return -EINVAL;
	return rnic_resolve_wait(dev, nd_lookup_cb, nd_ask_cb, ip6, mac, timeout_ms);
}

int
rnic_dev_resolve_gid(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6],
		     unsigned int timeout_ms)
{
	rte_be32_t ip;

	if (dev == NULL || gid == NULL)
		return -EINVAL;
	if (unlikely(dev->ops != NULL))   /* asked of the daemon (rnic_remote.h) */
		return dev->ops->resolve_gid(dev, gid, mac, timeout_ms);
	if (!rnic_gid_is_ipv4(gid))
		return rnic_dev_nd_resolve(dev, gid, mac, timeout_ms);
	memcpy(&ip, gid + 12, 4);
	return rnic_dev_arp_resolve(dev, ip, mac, timeout_ms);
}

/* The solicited-node multicast address of @p ip6 (RFC 4291 2.7.1). */
static void
nd_solicited_node(const uint8_t ip6[16], uint8_t out[16])
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(out, pfx, 13);
	memcpy(out + 13, ip6 + 13, 3);
}

/* An ICMPv6 ND frame of @p type from @p src to @p dst (@p dst_mac), with
 * @p target and one link-layer address option (our MAC) of @p opt. */
static struct rte_mbuf *
nd_frame(struct rnic_worker *wk, struct rnic_dev_stats *st, const uint8_t *dst_mac,
	 bool tagged, rte_be16_t tci, const uint8_t src[16], const uint8_t dst[16],
	 uint8_t type, uint8_t flags, const uint8_t target[16], uint8_t opt)
{
	struct rte_mbuf *out;
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip6;
	uint8_t *icmp;
	uint32_t l3 = RNIC_ETH_HLEN + (tagged ? RNIC_VLAN_HLEN : 0);
	uint16_t plen = ND_MSG_LEN + ND_OPT_LLA_LEN;

	if (!rnic_txbuf_room(&wk->rx.txb))
		return NULL;
	out = rte_pktmbuf_alloc(wk->dev->pool);
	if (out == NULL) {
		st->tx_nombuf++;
		return NULL;
	}
	eth = rte_pktmbuf_mtod(out, struct rte_ether_hdr *);
	memcpy(&eth->dst_addr, dst_mac, 6);
	memcpy(&eth->src_addr, wk->dev->mac, 6);
	if (tagged) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = tci;
		vh->eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	} else {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	}
	ip6 = rte_pktmbuf_mtod_offset(out, struct rte_ipv6_hdr *, l3);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(plen);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = ND_HOP_LIMIT;
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
	icmp = (uint8_t *)(ip6 + 1);
	memset(icmp, 0, plen);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[ND_MSG_LEN] = opt;
	icmp[ND_MSG_LEN + 1] = 1;          /* length in units of 8 bytes */
	memcpy(icmp + ND_MSG_LEN + 2, wk->dev->mac, 6);
	/* The pseudo header's next header is ip6->proto: ICMPv6's sum. */
	{
		uint16_t sum = rte_ipv6_udptcp_cksum(ip6, icmp);

		memcpy(icmp + 2, &sum, 2);
	}
	out->data_len = out->pkt_len = (uint16_t)(l3 + RNIC_IPV6_HLEN + plen);
	return out;
}

void
rnic_nd_request(struct rnic_worker *wk, struct rnic_dev_stats *st)
{
	uint32_t gen = LOAD_ACQ(&wk->dev->nd_req_gen);   /* [ARP-REQ] */
	const uint8_t *src = nd_first_ipv6(wk->dev);
	uint8_t target[16], dst[16], mac[6];
	struct rte_mbuf *out;

	if (gen == wk->rx.nd_req_sent)
		return;
	wk->rx.nd_req_sent = gen;
	if (src == NULL)
		return;
	for (unsigned int i = 0; i < 16; i++)
		target[i] = LOAD_RLX(&wk->dev->nd_req_ip6[i]);
	nd_solicited_node(target, dst);
	mac[0] = mac[1] = 0x33;            /* RFC 2464 7: 33:33 + low 32 bits */
	memcpy(mac + 2, dst + 12, 4);
	out = nd_frame(wk, st, mac, wk->dev->attr.vlan != 0,
		       rte_cpu_to_be_16(wk->dev->attr.vlan), src, dst, ICMP6_NS, 0, target,
		       ND_OPT_SLLA);
	if (out != NULL)
		rnic_txbuf_add(&wk->rx.txb, out);
	else
		wk->rx.nd_req_sent = gen - 1;   /* try again on the next pass */
}

/* Index of @p ip6 among the port's GIDs, or -1. */
static int
nd_local(const struct rnic_device *dev, const uint8_t ip6[16])
{
	for (uint8_t i = 0; i < dev->n_gid; i++)
		if (memcmp(dev->gid[i], ip6, 16) == 0)
			return i;
	return -1;
}

/* The link-layer address option @p type in the options [@p o, @p end), or
 * NULL; false when an option is malformed (length 0 or past the end). */
static bool
nd_find_lla(const uint8_t *o, const uint8_t *end, uint8_t type, const uint8_t **lla)
{
	*lla = NULL;
	while (o < end) {
		uint32_t len;

		if (end - o < 2 || o[1] == 0)
			return false;
		len = (uint32_t)o[1] * 8;
		if ((uint32_t)(end - o) < len)
			return false;
		if (o[0] == type && len == ND_OPT_LLA_LEN)
			*lla = o + 2;
		o += len;
	}
	return true;
}

/* A MAC no host can send from: multicast/broadcast (I/G bit) or zero. */
static bool
nd_bad_mac(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac[0] & 1) || memcmp(mac, zero, 6) == 0;
}

/*
 * An IPv6 frame that is not RoCEv2 (@p l3: its IPv6 header). Neighbour
 * solicitations and advertisements that RFC 4861 7.1 calls valid (hop
 * limit 255, ICMPv6 checksum, code 0, target not multicast, options well
 * formed, no source link-layer option from the unspecified address) are
 * handled; other ICMPv6 and other IPv6 are not ours. Not handled and
 * counted in nd_ignored: invalid ND messages, a solicitation from the
 * unspecified address (duplicate address detection: the configuration
 * owns our addresses), a sender claiming one of our addresses or a
 * multicast/zero link-layer address.
 * A solicitation for one of our addresses (sent to it or to its
 * solicited-node group) is answered, unicast, with a solicited, override
 * advertisement carrying our MAC, and the solicitor (with its source
 * link-layer option) is learned. An advertisement sent to one of our
 * addresses or to all nodes is learned (target -> its target link-layer
 * option). @return false when the frame is not ICMPv6 ND.
 */
bool
rnic_nd_input(struct rnic_worker *wk, const struct rte_mbuf *m, uint32_t l3, bool tagged,
	      rte_be16_t tci, struct rnic_dev_stats *st)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	uint8_t buf[ND_FRAME_MAX], sn[16];
	const struct rte_ipv6_hdr *ip6;
	const uint8_t *icmp, *lla, *target, *src_mac;
	uint32_t plen, avail = rte_pktmbuf_pkt_len(m) > l3 ? rte_pktmbuf_pkt_len(m) - l3 : 0;
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *eh = rte_pktmbuf_read(m, 0, sizeof(eb), &eb);
	int local;

	if (eh == NULL || avail < RNIC_IPV6_HLEN + ND_MSG_LEN)
		return false;
	ip6 = rte_pktmbuf_read(m, l3, RTE_MIN(avail, (uint32_t)sizeof(buf)), buf);
	if (ip6 == NULL || ip6->proto != IPPROTO_ICMPV6)
		return false;
	icmp = (const uint8_t *)(ip6 + 1);
	if (icmp[0] != ICMP6_NS && icmp[0] != ICMP6_NA)
		return false;
	plen = rte_be_to_cpu_16(ip6->payload_len);
	target = icmp + 8;
	if (plen < ND_MSG_LEN || RNIC_IPV6_HLEN + plen > RTE_MIN(avail, (uint32_t)sizeof(buf)) ||
	    ip6->hop_limits != ND_HOP_LIMIT || icmp[1] != 0 || target[0] == 0xff ||
	    rte_ipv6_udptcp_cksum_verify(ip6, icmp) != 0 ||
	    !nd_find_lla(icmp + ND_MSG_LEN, icmp + plen,
			 icmp[0] == ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA, &lla)) {
		st->nd_ignored++;
		return true;
	}
	local = nd_local(wk->dev, target);
	src_mac = eh->src_addr.addr_bytes;
	if (icmp[0] == ICMP6_NA) {
		/* Advertisements for our own addresses are someone else's
		 * claim: not learned (as ARP's sender-is-us rule). */
		if (nd_local(wk->dev, ip6->dst_addr) < 0 &&
		    memcmp(ip6->dst_addr, all_nodes, 16) != 0)
			return true;   /* not for us */
		if (local >= 0 || lla == NULL || nd_bad_mac(lla) || nd_bad_mac(src_mac)) {
			st->nd_ignored++;
			return true;
		}
		nd_learn(wk, target, lla);
		return true;
	}
	/* A solicitation: for one of our addresses, sent to it or its group. */
	if (local < 0 || rnic_gid_is_ipv4(target))
		return true;   /* not for us */
	nd_solicited_node(target, sn);
	if (memcmp(ip6->dst_addr, target, 16) != 0 && memcmp(ip6->dst_addr, sn, 16) != 0)
		return true;
	if (rnic_gid_is_ipv4(ip6->src_addr) || ip6->src_addr[0] == 0xff ||
	    nd_local(wk->dev, ip6->src_addr) >= 0 || nd_bad_mac(src_mac) ||
	    (lla != NULL && nd_bad_mac(lla))) {
		/* :: (duplicate address detection; it never carries SLLA),
		 * multicast, ourselves, a MAC no host has */
		st->nd_ignored++;
		return true;
	}
	if (lla != NULL)
		nd_learn(wk, ip6->src_addr, lla);
	{
		struct rte_mbuf *out = nd_frame(wk, st, lla != NULL ? lla : src_mac, tagged, tci,
						target, ip6->src_addr, ICMP6_NA,
						ND_NA_FLAG_SOLICITED | ND_NA_FLAG_OVERRIDE,
						target, ND_OPT_TLLA);

		if (out == NULL)
			return true;
		rnic_txbuf_add(&wk->rx.txb, out);
		st->nd_replies++;
	}
	return true;
}
