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
 *  - a reply for another IP is not learned.
 * Last line: "N passed, M failed"; exit status 1 on any failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rnic_verbs.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_P[6] = { 0x52, 0x54, 0, 0x99, 0x6b, 0x0b };
static const uint8_t MAC_Q[6] = { 0x52, 0x54, 0, 0x99, 0xe2, 0x0c };
static uint16_t port_a, port_b;
static struct rte_mempool *pool_b;
static struct rnic_device *dev;
static unsigned int passed, failed;

#define CHECK(c, ...) do { \
	if (c) { passed++; } else { failed++; printf("FAIL %s:%d: ", __func__, __LINE__); \
		printf(__VA_ARGS__); printf("\n"); } } while (0)

static void
send_arp(uint16_t op, const uint8_t *src_mac, uint32_t sip, const uint8_t *dst_mac, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool_b);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *r = (struct rte_arp_hdr *)(eth + 1);

	memset(eth, 0, 60);
	if (dst_mac)
		memcpy(&eth->dst_addr, dst_mac, 6);
	else
		memset(&eth->dst_addr, 0xff, 6);
	memcpy(&eth->src_addr, src_mac, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	r->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	r->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	r->arp_hlen = 6;
	r->arp_plen = 4;
	r->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&r->arp_data.arp_sha, src_mac, 6);
	r->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	if (dst_mac)
		memcpy(&r->arp_data.arp_tha, dst_mac, 6);
	r->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	m->data_len = m->pkt_len = 60;
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
	CHECK(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == -ENOENT, "empty cache");

	/* A request for us: answered, and the asker learned. */
	send_arp(RTE_ARP_OP_REQUEST, MAC_P, ip_p, NULL, ip_a);
	poll_engine();
	CHECK(collect_arp(RTE_ARP_OP_REPLY, &r, dst) == 1, "one ARP reply");
	CHECK(memcmp(dst, MAC_P, 6) == 0, "reply to the asker's MAC");
	CHECK(memcmp(&r.arp_data.arp_sha, MAC_A, 6) == 0 &&
	      r.arp_data.arp_sip == rte_cpu_to_be_32(ip_a) &&
	      r.arp_data.arp_tip == rte_cpu_to_be_32(ip_p), "reply fields");
	CHECK(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == 0 &&
	      memcmp(mac, MAC_P, 6) == 0, "asker learned from its request");

	/* A request for someone else: ignored. */
	send_arp(RTE_ARP_OP_REQUEST, MAC_Q, ip_q, NULL, ip_x);
	poll_engine();
	CHECK(collect_arp(RTE_ARP_OP_REPLY, &r, dst) == 0, "no reply for another IP");
	CHECK(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_q), mac) == -ENOENT,
	      "not learned from a request for another IP");

	/* Resolve an unknown IP: requests go out, then it times out. */
	rc = rnic_dev_arp_resolve(dev, rte_cpu_to_be_32(ip_q), mac, 300);
	CHECK(rc == -ETIMEDOUT, "resolve without an answer: %d", rc);
	rc = (int)collect_arp(RTE_ARP_OP_REQUEST, &r, dst);
	CHECK(rc >= 1 && rc <= 3, "ARP requests sent while resolving: %d", rc);
	CHECK(memcmp(dst, bcast, 6) == 0, "request broadcast");
	CHECK(memcmp(&r.arp_data.arp_sha, MAC_A, 6) == 0 &&
	      r.arp_data.arp_sip == rte_cpu_to_be_32(ip_a) &&
	      r.arp_data.arp_tip == rte_cpu_to_be_32(ip_q) &&
	      r.arp_hardware == rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) &&
	      r.arp_protocol == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	      r.arp_hlen == 6 && r.arp_plen == 4, "request fields");

	/* A reply for another IP is not learned; the reply to us is. */
	send_arp(RTE_ARP_OP_REPLY, MAC_Q, ip_q, MAC_A, ip_x);
	poll_engine();
	CHECK(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_q), mac) == -ENOENT,
	      "reply to another IP not learned");
	send_arp(RTE_ARP_OP_REPLY, MAC_Q, ip_q, MAC_A, ip_a);
	poll_engine();
	rc = rnic_dev_arp_resolve(dev, rte_cpu_to_be_32(ip_q), mac, 0);
	CHECK(rc == 0 && memcmp(mac, MAC_Q, 6) == 0, "resolved from the reply: %d", rc);
	CHECK(rnic_dev_arp_lookup(dev, rte_cpu_to_be_32(ip_p), mac) == 0 &&
	      memcmp(mac, MAC_P, 6) == 0, "earlier entry kept");
	CHECK(rnic_dev_arp_resolve(dev, 0, mac, 10) == -EINVAL, "IP 0 refused");

	rnic_dev_destroy(dev);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
setup_fail:
	printf("FAIL setup: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
	return 1;
}
