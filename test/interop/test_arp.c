/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP answer and resolve (issue 7, interop with Linux Soft-RoCE), no QEMU:
 * one engine on port A of a ring pair, polled by hand; this test owns
 * port B and plays the Linux peer with crafted ARP frames.
 *  - a request for the engine's IP is answered, and the asker is learned;
 *  - a request for another IP is neither answered nor learned;
 *  - rnic_dev_arp_resolve for an unknown IP broadcasts well-formed ARP
 *    requests (sender = engine, target = the IP) and times out; a reply
 *    from the peer fills the cache and the next resolve returns its MAC;
 *  - a reply for another IP is not learned;
 *  - issue 13: a request or reply for us from a multicast, broadcast or
 *    zero sender MAC (Ethernet source or ARP sender) or from a sender
 *    claiming the engine's own IP is neither answered nor learned, and
 *    counts in arp_ignored; a priority-tagged request (VID 0) is answered
 *    with the same tag, an untagged one untagged;
 *  - issue 21: a request tagged with a VLAN the port is not on is not
 *    answered and counts in drop_vlan; on a port on VLAN 100, a request
 *    tagged 100 is answered with its tag, untagged, VID 0 and VID 200
 *    ones are dropped; VLAN 4095 is refused.
 * Last line: "N passed, M failed"; exit status 1 on any failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "test_common.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_P[6] = { 0x52, 0x54, 0, 0x99, 0x6b, 0x0b };
static const uint8_t MAC_Q[6] = { 0x52, 0x54, 0, 0x99, 0xe2, 0x0c };
static const uint8_t MAC_V[6] = { 0x52, 0x54, 0, 0x99, 0x71, 0x0d };
static uint16_t port_a, port_b;
static struct rte_mempool *pool_b;
static struct rnic_device *dev;

#define UNTAGGED (-1)

/* An ARP frame from port B: Ethernet source @p eth_src, ARP sender
 * @p sha/@p sip; to @p dst_mac (NULL: broadcast); 802.1Q TCI @p vlan
 * unless UNTAGGED. */
static void
send_arp_ex(uint16_t op, const uint8_t *eth_src, const uint8_t *sha, uint32_t sip,
	    const uint8_t *dst_mac, uint32_t tip, int vlan)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool_b);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *r = (struct rte_arp_hdr *)(eth + 1);

	memset(eth, 0, 64);
	if (dst_mac)
		memcpy(&eth->dst_addr, dst_mac, 6);
	else
		memset(&eth->dst_addr, 0xff, 6);
	memcpy(&eth->src_addr, eth_src, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	if (vlan != UNTAGGED) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16((uint16_t)vlan);
		vh->eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
		r = (struct rte_arp_hdr *)(vh + 1);
	}
	r->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	r->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	r->arp_hlen = 6;
	r->arp_plen = 4;
	r->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&r->arp_data.arp_sha, sha, 6);
	r->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	if (dst_mac)
		memcpy(&r->arp_data.arp_tha, dst_mac, 6);
	r->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	m->data_len = m->pkt_len = vlan != UNTAGGED ? 64 : 60;
	if (rte_eth_tx_burst(port_b, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

static void
send_arp(uint16_t op, const uint8_t *src_mac, uint32_t sip, const uint8_t *dst_mac, uint32_t tip)
{
	send_arp_ex(op, src_mac, src_mac, sip, dst_mac, tip, UNTAGGED);
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

/* Frames the engine sent to port B: count ARP ones matching @p op, check the last. */
static unsigned int
collect_arp(uint16_t op, struct rte_arp_hdr *last, uint8_t *last_dst)
{
	struct rte_mbuf *pk[64];
	unsigned int cnt = 0;
	uint16_t n;

	while ((n = rte_eth_rx_burst(port_b, 0, pk, RTE_DIM(pk))) > 0) {
		for (uint16_t i = 0; i < n; i++) {
			struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pk[i], struct rte_ether_hdr *);
			struct rte_arp_hdr *r = (struct rte_arp_hdr *)(eth + 1);

			if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) &&
			    r->arp_opcode == rte_cpu_to_be_16(op)) {
				cnt++;
				*last = *r;
				memcpy(last_dst, &eth->dst_addr, 6);
			}
		}
		rte_pktmbuf_free_bulk(pk, n);
	}
	return cnt;
}

/* Every frame the engine sent to port B, the last one copied to @p buf
 * (at most @p len bytes, *got its length). @return how many. */
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

static uint64_t
arp_ignored(void)
{
	struct rnic_dev_stats st;

	rnic_dev_stats_get(dev, &st);
	return st.arp_ignored;
}

/*
 * Issue 13: frames for our IP that no host could have sent. @p eth_src and
 * @p sha as sent; a request (answered when valid) and a reply, each of
 * which must be ignored: no frame back, no cache entry for @p sip (nor a
 * changed one), arp_ignored up by one each.
 */
static void
check_ignored(const char *what, const uint8_t *eth_src, const uint8_t *sha, uint32_t sip,
	      uint32_t ip_a)
{
	uint8_t frame[128], mac[6], before[6];
	uint64_t ign = arp_ignored();
	bool had = rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(sip), before) == 0;
	size_t got;
	unsigned int n;

	send_arp_ex(RTE_ARP_OP_REQUEST, eth_src, sha, sip, NULL, ip_a, UNTAGGED);
	send_arp_ex(RTE_ARP_OP_REPLY, eth_src, sha, sip, MAC_A, ip_a, UNTAGGED);
	poll_engine();
	n = collect_frames(frame, sizeof(frame), &got);
	EXPECT(n == 0, "%s: %u frames sent back (to %02x:%02x:%02x:%02x:%02x:%02x)", what, n,
	      frame[0], frame[1], frame[2], frame[3], frame[4], frame[5]);
	if (had)
		EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(sip), mac) == 0 &&
		      memcmp(mac, before, 6) == 0, "%s: cache entry changed", what);
	else
		EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(sip), mac) == -ENOENT,
		      "%s: learned %02x:%02x:%02x:%02x:%02x:%02x", what, mac[0], mac[1], mac[2],
		      mac[3], mac[4], mac[5]);
	EXPECT(arp_ignored() == ign + 2, "%s: arp_ignored %" PRIu64 " -> %" PRIu64 ", want +2",
	      what, ign, arp_ignored());
}

/* Issue 13: a tagged request is answered with its tag. */
static void
check_vlan_reply(uint16_t tci, uint32_t ip_p, uint32_t ip_a)
{
	uint8_t frame[128], mac[6];
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);
	const struct rte_arp_hdr *r = (const struct rte_arp_hdr *)(vh + 1);
	size_t got;
	unsigned int n;

	send_arp_ex(RTE_ARP_OP_REQUEST, MAC_V, MAC_V, ip_p, NULL, ip_a, tci);
	poll_engine();
	n = collect_frames(frame, sizeof(frame), &got);
	EXPECT(n == 1 && got >= 60, "TCI 0x%04x: %u frames back, %zu bytes", tci, n, got);
	if (n != 1 || got < sizeof(*eth) + sizeof(*vh) + sizeof(*r))
		return;
	EXPECT(eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN),
	      "TCI 0x%04x: reply untagged (ethertype 0x%04x)", tci,
	      rte_be_to_cpu_16(eth->ether_type));
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
		return;
	EXPECT(vh->vlan_tci == rte_cpu_to_be_16(tci) &&
	      vh->eth_proto == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP),
	      "TCI 0x%04x: reply tag 0x%04x proto 0x%04x", tci, rte_be_to_cpu_16(vh->vlan_tci),
	      rte_be_to_cpu_16(vh->eth_proto));
	EXPECT(memcmp(&eth->dst_addr, MAC_V, 6) == 0 && memcmp(&eth->src_addr, MAC_A, 6) == 0 &&
	      r->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REPLY) &&
	      memcmp(&r->arp_data.arp_sha, MAC_A, 6) == 0 &&
	      r->arp_data.arp_sip == rte_cpu_to_be_32(ip_a) &&
	      memcmp(&r->arp_data.arp_tha, MAC_V, 6) == 0 &&
	      r->arp_data.arp_tip == rte_cpu_to_be_32(ip_p), "TCI 0x%04x: reply fields", tci);
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == 0 &&
	      memcmp(mac, MAC_V, 6) == 0, "TCI 0x%04x: asker learned", tci);
}

/* Issue 21: requests of VLANs the port is not on (@p tcis, UNTAGGED for
 * none) are not answered and count in drop_vlan, one each. */
static void
check_vlan_dropped(const int *tcis, unsigned int k, uint32_t ip_p, uint32_t ip_a,
		   const char *what)
{
	struct rnic_dev_stats st0, st1;
	uint8_t frame[128];
	size_t got;
	unsigned int n;

	rnic_dev_stats_get(dev, &st0);
	for (unsigned int i = 0; i < k; i++)
		send_arp_ex(RTE_ARP_OP_REQUEST, MAC_V, MAC_V, ip_p, NULL, ip_a, tcis[i]);
	poll_engine();
	n = collect_frames(frame, sizeof(frame), &got);
	rnic_dev_stats_get(dev, &st1);
	EXPECT(n == 0 && st1.drop_vlan == st0.drop_vlan + k && st1.arp_replies == st0.arp_replies,
	      "%s: %u frames back (want 0), drop_vlan +%" PRIu64 " (want +%u)", what, n,
	      st1.drop_vlan - st0.drop_vlan, k);
}

int
main(int argc, char **argv)
{
	struct rnic_dev_attr a = { .mtu = 1024, .mbufs = 2048 };
	struct rte_eth_conf conf = { 0 };
	const uint32_t ip_a = RTE_IPV4(10, 99, 0, 2), ip_p = RTE_IPV4(10, 99, 0, 11),
		       ip_q = RTE_IPV4(10, 99, 0, 12), ip_x = RTE_IPV4(10, 99, 0, 99);
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct rte_arp_hdr r;
	uint8_t mac[6], dst[6];
	int rc;

	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n0 passed, 1 failed\n");
		return 1;
	}
	if (rnic_port_ring_pair("arp_a", "arp_b", 1024, &port_a, &port_b) != 0)
		goto setup_fail;
	pool_b = rte_pktmbuf_pool_create("arp_pool_b", 1024, 0, 0, 2048, rte_socket_id());
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
	a.ipv4 = rte_cpu_to_be_32(ip_a);
	dev = rnic_dev_create(&a);
	if (dev == NULL)
		goto setup_fail;

	/* Nothing known yet. */
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == -ENOENT, "empty cache");

	/* A request for us: answered, and the asker learned. */
	send_arp(RTE_ARP_OP_REQUEST, MAC_P, ip_p, NULL, ip_a);
	poll_engine();
	EXPECT(collect_arp(RTE_ARP_OP_REPLY, &r, dst) == 1, "one ARP reply");
	EXPECT(memcmp(dst, MAC_P, 6) == 0, "reply to the asker's MAC");
	EXPECT(memcmp(&r.arp_data.arp_sha, MAC_A, 6) == 0 &&
	      r.arp_data.arp_sip == rte_cpu_to_be_32(ip_a) &&
	      r.arp_data.arp_tip == rte_cpu_to_be_32(ip_p), "reply fields");
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == 0 &&
	      memcmp(mac, MAC_P, 6) == 0, "asker learned from its request");

	/* A request for someone else: ignored. */
	send_arp(RTE_ARP_OP_REQUEST, MAC_Q, ip_q, NULL, ip_x);
	poll_engine();
	EXPECT(collect_arp(RTE_ARP_OP_REPLY, &r, dst) == 0, "no reply for another IP");
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_q), mac) == -ENOENT,
	      "not learned from a request for another IP");

	/* Resolve an unknown IP: requests go out, then it times out. */
	rc = rnic_dev_arp_resolve(dev, rte_cpu_to_be_32(ip_q), mac, 300);
	EXPECT(rc == -ETIMEDOUT, "resolve without an answer: %d", rc);
	rc = (int)collect_arp(RTE_ARP_OP_REQUEST, &r, dst);
	EXPECT(rc >= 1 && rc <= 3, "ARP requests sent while resolving: %d", rc);
	EXPECT(memcmp(dst, bcast, 6) == 0, "request broadcast");
	EXPECT(memcmp(&r.arp_data.arp_sha, MAC_A, 6) == 0 &&
	      r.arp_data.arp_sip == rte_cpu_to_be_32(ip_a) &&
	      r.arp_data.arp_tip == rte_cpu_to_be_32(ip_q) &&
	      r.arp_hardware == rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) &&
	      r.arp_protocol == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	      r.arp_hlen == 6 && r.arp_plen == 4, "request fields");

	/* A reply for another IP is not learned; the reply to us is. */
	send_arp(RTE_ARP_OP_REPLY, MAC_Q, ip_q, MAC_A, ip_x);
	poll_engine();
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_q), mac) == -ENOENT,
	      "reply to another IP not learned");
	send_arp(RTE_ARP_OP_REPLY, MAC_Q, ip_q, MAC_A, ip_a);
	poll_engine();
	rc = rnic_dev_arp_resolve(dev, rte_cpu_to_be_32(ip_q), mac, 0);
	EXPECT(rc == 0 && memcmp(mac, MAC_Q, 6) == 0, "resolved from the reply: %d", rc);
	EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == 0 &&
	      memcmp(mac, MAC_P, 6) == 0, "earlier entry kept");
	EXPECT(rnic_dev_arp_resolve(dev, 0, mac, 10) == -EINVAL, "IP 0 refused");
	EXPECT(arp_ignored() == 0, "nothing ignored so far: %" PRIu64, arp_ignored());

	/* Issue 13: senders no host can be, and senders claiming our IP. */
	{
		static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x07 };
		static const uint8_t zero[6];
		const uint32_t ip_r = RTE_IPV4(10, 99, 0, 21);

		check_ignored("broadcast sender MAC", bcast, bcast, ip_r, ip_a);
		check_ignored("multicast sender MAC", mcast, mcast, ip_r, ip_a);
		check_ignored("multicast Ethernet source", mcast, MAC_Q, ip_r, ip_a);
		check_ignored("broadcast ARP sender", MAC_Q, bcast, ip_r, ip_a);
		check_ignored("zero sender MAC", zero, zero, ip_r, ip_a);
		check_ignored("zero ARP sender", MAC_Q, zero, ip_r, ip_a);
		/* An entry the cache has must not move to a group address. */
		check_ignored("known IP, broadcast sender", MAC_P, bcast, ip_p, ip_a);
		/* Someone else claiming our address: a request for it (the
		 * gratuitous form) and a reply. */
		check_ignored("sender claims our IP", MAC_Q, MAC_Q, ip_a, ip_a);
		EXPECT(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_a), mac) == -ENOENT,
		      "our own IP never in the cache");
	}

	/* Issue 13: a priority-tagged request (VID 0: the port's, which has
	 * no VLAN) gets an answer with the same tag (PCP 1; PCP 7 DEI), the
	 * untagged one still an untagged answer. Issue 21: a request tagged
	 * with a VLAN the port is not on (VID 100 PCP 3, VID 4094) is not
	 * ours: no answer, counted in drop_vlan. */
	check_vlan_reply(0x2000, ip_p, ip_a);
	check_vlan_reply(0xf000, ip_p, ip_a);
	{
		static const int other[] = { 0x6064, 0xffe };

		check_vlan_dropped(other, 2, ip_p, ip_a, "untagged port: VID 100, VID 4094");
	}
	send_arp(RTE_ARP_OP_REQUEST, MAC_P, ip_p, NULL, ip_a);
	poll_engine();
	EXPECT(collect_arp(RTE_ARP_OP_REPLY, &r, dst) == 1 && memcmp(dst, MAC_P, 6) == 0,
	      "untagged request, untagged reply");
	{
		struct rnic_dev_stats st;

		rnic_dev_stats_get(dev, &st);
		EXPECT(st.arp_replies == 4 && st.arp_ignored == 16,
		      "arp_replies %" PRIu64 " (want 4), arp_ignored %" PRIu64 " (want 16)",
		      st.arp_replies, st.arp_ignored);
	}

	/* Issue 21: the same port on VLAN 100: a request tagged 100 (PCP 2)
	 * is answered with its tag; untagged, priority-tagged (VID 0) and
	 * VLAN 200 ones are not ours (drop_vlan). */
	rnic_dev_destroy(dev);
	a.vlan = 100;
	dev = rnic_dev_create(&a);
	if (dev == NULL)
		goto setup_fail;
	check_vlan_reply(0x4064, ip_p, ip_a);
	{
		static const int other[] = { UNTAGGED, 0x2000, 0x00c8 };

		check_vlan_dropped(other, 3, ip_p, ip_a, "VLAN 100 port: untagged, VID 0, VID 200");
	}
	a.vlan = 4095;
	EXPECT(rnic_dev_create(&a) == NULL, "VLAN 4095 refused");

	rnic_dev_destroy(dev);
	printf("%u passed, %u failed\n", test_verify_passed, test_verify_failed);
	return test_verify_failed ? 1 : 0;
setup_fail:
	printf("FAIL setup: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
	return 1;
}
