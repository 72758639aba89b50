/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery and the GID table (issue 21), no QEMU: one
 * engine on port A of a ring pair, polled by hand; this test owns port B
 * and plays a Linux peer with crafted ICMPv6 frames (checksums from DPDK's
 * rte_ipv6_udptcp_cksum). The formats of the engine's advertisements are
 * checked by scapy in the responder cases (nd_solicit); here:
 *  - rnic_dev_nd_resolve for an unknown address sends well-formed
 *    solicitations (from the port's first IPv6 GID to the target's
 *    solicited-node group and MAC, hop limit 255, a source link-layer
 *    option, the checksum right) and times out; an advertisement to us
 *    fills the neighbour cache and the next resolve returns its MAC;
 *  - an advertisement to another unicast address is not learned; a
 *    solicitation for one of our addresses teaches us the solicitor;
 *  - rnic_dev_resolve_gid takes the IPv6 path for an IPv6 GID and ARP for
 *    an IPv4-mapped one; multicast targets and a port without IPv6 are
 *    refused;
 *  - the GID table: IPv4-mapped GID 0, then the IPv6 addresses; ::,
 *    multicast, IPv4-mapped and duplicate addresses refused at creation;
 *    address handles whose source GID is missing or of the other family
 *    refused (EINVAL).
 * Last line: "N passed, M failed"; exit status 1 on any failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "test_common.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_P[6] = { 0x52, 0x54, 0, 0x99, 0x6b, 0x0b };
static const uint8_t MAC_Q[6] = { 0x52, 0x54, 0, 0x99, 0xe2, 0x0c };
static const uint8_t IP6_A[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a };
static const uint8_t IP6_A2[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a };
static const uint8_t IP6_P[16] = { 0xfd, [14] = 0x01, [15] = 0x11 };
static const uint8_t IP6_Q[16] = { 0xfd, [14] = 0x02, [15] = 0x12 };
static const uint8_t IP6_X[16] = { 0xfd, [15] = 0x99 };
static uint16_t port_a, port_b;
static struct rte_mempool *pool_b;
static struct rnic_device *dev;

/* An ICMPv6 ND message (@p type 135/136, @p flags) from port B with one
 * link-layer option @p opt_type carrying @p lla. */
static void
send_nd(uint8_t type, uint8_t flags, const uint8_t *eth_src, const uint8_t *eth_dst,
	const uint8_t src[16], const uint8_t dst[16], const uint8_t target[16],
	uint8_t opt_type, const uint8_t *lla)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool_b);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	uint16_t plen = 32, sum;

	memset(eth, 0, 128);
	memcpy(&eth->dst_addr, eth_dst, 6);
	memcpy(&eth->src_addr, eth_src, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(plen);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = 255;
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = opt_type;
	icmp[25] = 1;
	memcpy(icmp + 26, lla, 6);
	sum = rte_ipv6_udptcp_cksum(ip6, icmp);
	memcpy(icmp + 2, &sum, 2);
	m->data_len = m->pkt_len = (uint16_t)(sizeof(*eth) + sizeof(*ip6) + plen);
	if (rte_eth_tx_burst(port_b, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

static void
poll_engine(void)
{
	for (int i = 0; i < 64; i++) {
		rnic_dev_poll_tx(dev);
		rnic_dev_poll_rx(dev);
		rnic_dev_poll_timer(dev);
	}
}

/* Frames the engine sent to port B; the last one copied to @p buf. */
static unsigned int
collect_frames(uint8_t *buf, size_t len, size_t *got)
{
	struct rte_mbuf *pk[64];
	unsigned int cnt = 0;
	uint16_t n;

	*got = 0;
	while ((n = rte_eth_rx_burst(port_b, 0, pk, RTE_DIM(pk))) > 0) {
		for (uint16_t i = 0; i < n; i++) {
			*got = RTE_MIN((size_t)rte_pktmbuf_data_len(pk[i]), len);
			memcpy(buf, rte_pktmbuf_mtod(pk[i], uint8_t *), *got);
			cnt++;
		}
		rte_pktmbuf_free_bulk(pk, n);
	}
	return cnt;
}

/* The solicitation the engine sent for @p target (frame @p f, @p len). */
static void
check_ns(const uint8_t *f, size_t len, const uint8_t target[16])
{
	const struct rte_ether_hdr *eth = (const void *)f;
	const struct rte_ipv6_hdr *ip6 = (const void *)(eth + 1);
	const uint8_t *icmp = (const uint8_t *)(ip6 + 1);
	const uint8_t group[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff, [13] = target[13],
				    [14] = target[14], [15] = target[15] };
	const uint8_t gmac[6] = { 0x33, 0x33, 0xff, target[13], target[14], target[15] };

	EXPECT(len >= sizeof(*eth) + sizeof(*ip6) + 32, "NS length %zu", len);
	if (len < sizeof(*eth) + sizeof(*ip6) + 32)
		return;
	EXPECT(memcmp(&eth->dst_addr, gmac, 6) == 0 && memcmp(&eth->src_addr, MAC_A, 6) == 0 &&
	      eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6), "NS Ethernet header");
	EXPECT((rte_be_to_cpu_32(ip6->vtc_flow) >> 28) == 6 && ip6->proto == IPPROTO_ICMPV6 &&
	      ip6->hop_limits == 255 && rte_be_to_cpu_16(ip6->payload_len) == 32,
	      "NS IPv6 header: nh %u hlim %u plen %u", ip6->proto, ip6->hop_limits,
	      rte_be_to_cpu_16(ip6->payload_len));
	EXPECT(memcmp(ip6->src_addr, IP6_A, 16) == 0 && memcmp(ip6->dst_addr, group, 16) == 0,
	      "NS from our first IPv6 address to the solicited-node group");
	EXPECT(icmp[0] == 135 && icmp[1] == 0 && memcmp(icmp + 8, target, 16) == 0,
	      "NS type %u code %u and target", icmp[0], icmp[1]);
	EXPECT(icmp[24] == 1 && icmp[25] == 1 && memcmp(icmp + 26, MAC_A, 6) == 0,
	      "NS source link-layer option");
	EXPECT(rte_ipv6_udptcp_cksum_verify(ip6, icmp) == 0, "NS ICMPv6 checksum");
}

static void
test_resolve(void)
{
	uint8_t f[256], mac[6], gid[16];
	size_t got;
	int rc;

	EXPECT(rnic_dev_nd_lookup(dev, IP6_P, mac) == -ENOENT, "empty cache");
	rc = rnic_dev_nd_resolve(dev, IP6_P, mac, 300);
	EXPECT(rc == -ETIMEDOUT, "resolve without an answer: %d", rc);
	rc = (int)collect_frames(f, sizeof(f), &got);
	EXPECT(rc >= 1 && rc <= 3, "solicitations sent while resolving: %d", rc);
	check_ns(f, got, IP6_P);

	/* An advertisement to another unicast address: not ours to learn. */
	send_nd(136, 0x60, MAC_P, MAC_A, IP6_P, IP6_X, IP6_P, 2, MAC_P);
	poll_engine();
	EXPECT(rnic_dev_nd_lookup(dev, IP6_P, mac) == -ENOENT, "NA to another address learned");
	/* The answer to our solicitation. */
	send_nd(136, 0x60, MAC_P, MAC_A, IP6_P, IP6_A, IP6_P, 2, MAC_P);
	poll_engine();
	rc = rnic_dev_nd_resolve(dev, IP6_P, mac, 0);
	EXPECT(rc == 0 && memcmp(mac, MAC_P, 6) == 0, "resolved from the advertisement: %d", rc);
	rc = rnic_dev_resolve_gid(dev, IP6_P, mac, 0);
	EXPECT(rc == 0 && memcmp(mac, MAC_P, 6) == 0, "resolve_gid takes the IPv6 path: %d", rc);

	/* A solicitation for our second address teaches us the solicitor. */
	send_nd(135, 0, MAC_Q, (const uint8_t[6]){ 0x33, 0x33, 0xff, 0, 0, 0x0a }, IP6_Q,
		(const uint8_t[16]){ 0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 0x0a }, IP6_A2, 1,
		MAC_Q);
	poll_engine();
	EXPECT(collect_frames(f, sizeof(f), &got) == 1, "the solicitation answered");
	EXPECT(rnic_dev_nd_lookup(dev, IP6_Q, mac) == 0 && memcmp(mac, MAC_Q, 6) == 0,
	      "solicitor learned");
	EXPECT(rnic_dev_nd_lookup(dev, IP6_P, mac) == 0 && memcmp(mac, MAC_P, 6) == 0,
	      "earlier entry kept");

	/* IPv4-mapped: ARP (nothing answers: times out after a request). */
	memset(gid, 0, sizeof(gid));
	gid[10] = gid[11] = 0xff;
	gid[12] = 10, gid[13] = 99, gid[14] = 0, gid[15] = 77;
	rc = rnic_dev_resolve_gid(dev, gid, mac, 50);
	EXPECT(rc == -ETIMEDOUT, "IPv4-mapped GID: ARP, timed out: %d", rc);
	rc = (int)collect_frames(f, sizeof(f), &got);
	EXPECT(rc >= 1 && got >= 14 && f[12] == 0x08 && f[13] == 0x06,
	      "IPv4-mapped GID resolved by ARP (%d frames, ethertype %02x%02x)", rc, f[12], f[13]);
	gid[0] = 0xff;
	EXPECT(rnic_dev_nd_resolve(dev, gid, mac, 10) == -EINVAL, "multicast target refused");
}

static void
test_gid_table(struct rnic_dev_attr *a)
{
	struct rnic_ah_attr ah;
	struct rnic_pd *pd = rnic_alloc_pd(dev);
	struct rnic_ah *h;
	uint8_t g[16];

	EXPECT(rnic_dev_gid_count(dev) == 3, "GIDs: %u", rnic_dev_gid_count(dev));
	EXPECT(rnic_dev_query_gid(dev, 0, g) == 0 && g[10] == 0xff && g[11] == 0xff &&
	      memcmp(g + 12, &a->ipv4, 4) == 0, "GID 0: the IPv4 address, IPv4-mapped");
	EXPECT(rnic_dev_query_gid(dev, 1, g) == 0 && memcmp(g, IP6_A, 16) == 0, "GID 1");
	EXPECT(rnic_dev_query_gid(dev, 2, g) == 0 && memcmp(g, IP6_A2, 16) == 0, "GID 2");
	EXPECT(rnic_dev_query_gid(dev, 3, g) == -EINVAL, "GID 3: past the end");

	EXPECT(pd != NULL, "PD");
	memset(&ah, 0, sizeof(ah));
	memcpy(ah.dmac, MAC_P, 6);
	memcpy(ah.dgid, IP6_P, 16);
	ah.sgid_index = 2;
	h = rnic_create_ah(pd, &ah);
	EXPECT(h != NULL, "IPv6 AH from GID 2");
	rnic_destroy_ah(h);
	ah.sgid_index = 0;
	EXPECT(rnic_create_ah(pd, &ah) == NULL && rte_errno == EINVAL,
	      "IPv6 AH from the IPv4 GID refused");
	ah.sgid_index = 3;
	EXPECT(rnic_create_ah(pd, &ah) == NULL && rte_errno == EINVAL,
	      "AH from a GID past the table refused");
	memset(ah.dgid, 0, 16);
	ah.dip = rte_cpu_to_be_32(RTE_IPV4(10, 99, 0, 11));
	ah.sgid_index = 1;
	EXPECT(rnic_create_ah(pd, &ah) == NULL && rte_errno == EINVAL,
	      "IPv4 AH from an IPv6 GID refused");
	ah.sgid_index = 0;
	h = rnic_create_ah(pd, &ah);
	EXPECT(h != NULL, "IPv4 AH from GID 0");
	rnic_destroy_ah(h);
	rnic_dealloc_pd(pd);
}

int
main(int argc, char **argv)
{
	struct rnic_dev_attr a = { .mtu = 1024, .mbufs = 2048 };
	struct rte_eth_conf conf = { 0 };
	struct rnic_device *bad;
	uint8_t mac[6];
	int rc;

	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n0 passed, 1 failed\n");
		return 1;
	}
	if (rnic_port_ring_pair("nd_a", "nd_b", 1024, &port_a, &port_b) != 0)
		goto setup_fail;
	pool_b = rte_pktmbuf_pool_create("nd_pool_b", 1024, 0, 0, 2048, rte_socket_id());
	if (pool_b == NULL)
		goto setup_fail;
	rc = rte_eth_dev_configure(port_b, 1, 1, &conf);
	rc = rc ?: rte_eth_rx_queue_setup(port_b, 0, 512, rte_socket_id(), NULL, pool_b);
	rc = rc ?: rte_eth_tx_queue_setup(port_b, 0, 512, rte_socket_id(), NULL);
	rc = rc ?: rte_eth_dev_start(port_b);
	if (rc != 0)
		goto setup_fail;
	a.port_id = port_a;
	memcpy(a.mac, MAC_A, 6);
	a.ipv4 = rte_cpu_to_be_32(RTE_IPV4(10, 99, 0, 2));

	/* A port without IPv6 cannot resolve IPv6. */
	dev = rnic_dev_create(&a);
	if (dev == NULL)
		goto setup_fail;
	EXPECT(rnic_dev_nd_resolve(dev, IP6_P, mac, 10) == -EINVAL, "no IPv6 address: EINVAL");
	EXPECT(rnic_dev_gid_count(dev) == 1, "one GID without IPv6");
	rnic_dev_destroy(dev);

	/* Addresses a port cannot have. */
	{
		static const uint8_t bad6[][16] = {
			{ 0 },                                          /* :: */
			{ 0xff, 0x02, [15] = 1 },                       /* multicast */
			{ [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 },      /* IPv4-mapped */
		};

		for (unsigned int i = 0; i < RTE_DIM(bad6); i++) {
			memcpy(a.ipv6[0], bad6[i], 16);
			a.n_ipv6 = 1;
			bad = rnic_dev_create(&a);
			EXPECT(bad == NULL, "bad IPv6 address %u refused", i);
			if (bad)
				rnic_dev_destroy(bad);
		}
		memcpy(a.ipv6[0], IP6_A, 16);
		memcpy(a.ipv6[1], IP6_A, 16);
		a.n_ipv6 = 2;
		bad = rnic_dev_create(&a);
		EXPECT(bad == NULL, "duplicate IPv6 address refused");
		if (bad)
			rnic_dev_destroy(bad);
	}

	memcpy(a.ipv6[0], IP6_A, 16);
	memcpy(a.ipv6[1], IP6_A2, 16);
	a.n_ipv6 = 2;
	dev = rnic_dev_create(&a);
	if (dev == NULL)
		goto setup_fail;
	test_gid_table(&a);
	test_resolve();
	{
		struct rnic_dev_stats st;

		rnic_dev_stats_get(dev, &st);
		EXPECT(st.nd_replies == 1 && st.nd_ignored == 0,
		      "nd_replies %" PRIu64 " (want 1), nd_ignored %" PRIu64 " (want 0)",
		      st.nd_replies, st.nd_ignored);
	}
	rnic_dev_destroy(dev);
	printf("%u passed, %u failed\n", test_verify_passed, test_verify_failed);
	return test_verify_failed ? 1 : 0;
setup_fail:
	printf("FAIL setup: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
	return 1;
}
