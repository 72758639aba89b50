/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-wire-gen: write a pcap of RoCEv2 frames built by the wire library,
 * for rnic-pcap, tshark and scapy to read back.
 *
 * Valid frames: one of every opcode in rnic_opcode_table (RC, UC, UD, CNP),
 * payload opcodes once per payload size (0, 1, 3, 4, 255, 1024), one 802.1Q
 * frame, and two frames whose ICRC-masked fields changed in flight (ECN CE
 * and TTL rewritten by a router, FECN/BECN set by a switch); every opcode
 * once more over IPv6, an IPv6 frame in 802.1Q and one whose traffic
 * class, flow label and hop limit changed in flight. Unless --clean:
 * frames with a corrupted ICRC, payload, BTH or IPv6 address byte, one RoCE frame cut
 * short by the capture, one ARP frame and one non-RoCE UDP frame.
 *
 * The counts are known by construction and printed as
 *   expect: frames=N roce=R icrc_ok=K icrc_bad=B malformed=M other=O
 * in the format of rnic-pcap's summary line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "rnic_wire.h"

#define GEN_MAX_FRAME 2048
#define GEN_SNAPLEN   65535

enum gen_kind {
	GEN_ICRC_OK,
	GEN_ICRC_BAD,
	GEN_MALFORMED,
	GEN_OTHER,
};

struct gen {
	pcap_dumper_t *d;
	unsigned int frames, icrc_ok, icrc_bad, malformed, other;
	uint32_t seq;        /**< varies field values from frame to frame */
};

static const uint32_t gen_sizes[] = { 0, 1, 3, 4, 255, 1024 };

static void
gen_emit(struct gen *g, const uint8_t *f, uint32_t caplen, uint32_t len,
	 enum gen_kind k)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	/* Fixed timestamps: the same build writes the same bytes. */
	h.ts.tv_sec = 1700000000 + g->frames / 1000;
	h.ts.tv_usec = (g->frames % 1000) * 1000;
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)g->d, &h, f);
	g->frames++;
	switch (k) {
	case GEN_ICRC_OK: g->icrc_ok++; break;
	case GEN_ICRC_BAD: g->icrc_bad++; break;
	case GEN_MALFORMED: g->malformed++; break;
	case GEN_OTHER: g->other++; break;
	}
}

/* 2001:db8::1 and ::2 (RFC 3849's documentation prefix). */
static void
gen_ipv6(struct rnic_l2l3 *l, uint32_t flow)
{
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t b6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	l->ipv6 = true;
	l->src_ip = l->dst_ip = 0;
	memcpy(l->src_ip6, a6, 16);
	memcpy(l->dst_ip6, b6, 16);
	l->flow_label = flow & 0xfffff;
}

static void
gen_l2l3(struct rnic_l2l3 *l, uint32_t dqpn)
{
	static const uint8_t a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

	memset(l, 0, sizeof(*l));
	memcpy(l->src_mac, a, 6);
	memcpy(l->dst_mac, b, 6);
	l->src_ip = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
	l->dst_ip = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	l->tos = 0x02;      /* ECT(0), as RoCEv2 congestion control wants */
	l->ttl = 64;
	l->udp_sport = rnic_udp_sport(dqpn);
	l->udp_dport = RNIC_ROCE_UDP_PORT;
}

/* Build one frame of @p opcode; field values follow g->seq. */
static uint32_t
gen_build(struct gen *g, uint8_t *f, uint8_t opcode, uint32_t plen, bool vlan, bool ipv6)
{
	const struct rnic_opcode_info *oi = rnic_opcode_info(opcode);
	uint32_t s = g->seq++;
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	uint8_t payload[GEN_MAX_FRAME];

	memset(&b, 0, sizeof(b));
	memset(&e, 0, sizeof(e));
	b.opcode = opcode;
	b.dqpn = 0x000100 + (s & 0xff);
	/* PSNs run across the 24-bit wrap. */
	b.psn = rnic_psn_add(RNIC_PSN_MASK - 99, s);
	b.pkey = RNIC_DEFAULT_PKEY;
	b.se = (oi->mask & RNIC_M_LAST) && (oi->mask & RNIC_M_REQ);
	b.ackreq = (oi->mask & RNIC_M_REQ) && (s & 1);
	b.mig = true;
	b.becn = opcode == RNIC_OPCODE_CNP;
	gen_l2l3(&l, b.dqpn);
	l.vlan = vlan;
	l.vlan_tci = (3 << 13) | 100;   /* PCP 3, VLAN 100 */
	if (ipv6)
		gen_ipv6(&l, 0x12345 + s);
	e.reth_va = 0x7f0000000000ull + 0x1000ull * s;
	e.reth_rkey = 0x1000 + s;
	e.reth_len = plen ? plen : 4096;
	e.aeth_syn = opcode == RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK) && (s & 1) ?
		     RNIC_AETH_NAK | RNIC_NAK_PSN_SEQ :
		     RNIC_AETH_ACK | RNIC_AETH_CREDIT_INVALID;
	e.aeth_msn = s;
	e.atm_va = 0x7f0000100000ull + 8ull * s;
	e.atm_rkey = 0x2000 + s;
	e.atm_swap_add = 0x1111111111111111ull * (s % 15 + 1);
	e.atm_cmp = 0x0123456789abcdefull;
	e.atmack_orig = 0xfedcba9876543210ull - s;
	e.imm = rte_cpu_to_be_32(0xcafe0000u + s);
	e.ieth_rkey = 0x3000 + s;
	e.deth_qkey = 0x11111111;
	e.deth_sqp = 0x000200 + (s & 0xff);
	for (uint32_t i = 0; i < plen; i++)
		payload[i] = (uint8_t)(i + s);
	return rnic_pkt_build_buf(f, GEN_MAX_FRAME, &l, &b, &e, payload, plen);
}

static void
gen_fix_ip_csum(uint8_t *f, uint32_t l3)
{
	struct rte_ipv4_hdr *ip = (void *)(f + l3);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static int
gen_valid(struct gen *g)
{
	const uint8_t write_only = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY);
	const uint8_t ack = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK);
	uint8_t f[GEN_MAX_FRAME];
	uint32_t len;

	for (unsigned int o = 0; o < 256; o++) {
		const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);
		unsigned int n;

		if (oi == NULL)
			continue;
		n = oi->mask & RNIC_M_PAYLOAD ? RTE_DIM(gen_sizes) : 1;
		for (unsigned int i = 0; i < n; i++) {
			len = gen_build(g, f, (uint8_t)o, gen_sizes[i], false, false);
			if (len == 0)
				return -1;
			gen_emit(g, f, len, len, GEN_ICRC_OK);
		}
		/* Once more over IPv6 (issue 21). */
		len = gen_build(g, f, (uint8_t)o, n > 1 ? 3 : 0, false, true);
		if (len == 0)
			return -1;
		gen_emit(g, f, len, len, GEN_ICRC_OK);
	}

	/* IPv6 in 802.1Q; IPv6 whose traffic class (CE), flow label and hop
	 * limit changed on the way: masked, the ICRC holds. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_FIRST), 256, true, true);
	if (len == 0)
		return -1;
	gen_emit(g, f, len, len, GEN_ICRC_OK);
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY), 64, false, true);
	if (len == 0)
		return -1;
	f[RNIC_ETH_HLEN + 1] |= RTE_IPV4_HDR_ECN_CE << 4;
	f[RNIC_ETH_HLEN + 3] ^= 0x5a;
	f[RNIC_ETH_HLEN + 7]--;
	gen_emit(g, f, len, len, GEN_ICRC_OK);

	/* 802.1Q. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), 64, true, false);
	if (len == 0)
		return -1;
	gen_emit(g, f, len, len, GEN_ICRC_OK);

	/* A router marked CE and decremented TTL: masked, the ICRC holds. */
	len = gen_build(g, f, write_only, 128, false, false);
	if (len == 0)
		return -1;
	f[RNIC_ETH_HLEN + 1] |= RTE_IPV4_HDR_ECN_CE;
	f[RNIC_ETH_HLEN + 8]--;
	gen_fix_ip_csum(f, RNIC_ETH_HLEN);
	gen_emit(g, f, len, len, GEN_ICRC_OK);

	/* A switch set FECN and BECN in BTH: masked as well. */
	len = gen_build(g, f, ack, 0, false, false);
	if (len == 0)
		return -1;
	f[RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN + 4] |=
		RNIC_BTH_FECN | RNIC_BTH_BECN;
	gen_emit(g, f, len, len, GEN_ICRC_OK);
	return 0;
}

static int
gen_invalid(struct gen *g)
{
	const uint32_t bth = RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN;
	uint8_t f[GEN_MAX_FRAME];
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint32_t len;

	/* ICRC byte flipped. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), 64, false, false);
	if (len == 0)
		return -1;
	f[len - 2] ^= 0x01;
	gen_emit(g, f, len, len, GEN_ICRC_BAD);

	/* A payload byte flipped. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY), 256, false, false);
	if (len == 0)
		return -1;
	f[len - 100] ^= 0x40;
	gen_emit(g, f, len, len, GEN_ICRC_BAD);

	/* A PSN bit flipped in BTH. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY), 32, false, false);
	if (len == 0)
		return -1;
	f[bth + 11] ^= 0x04;
	gen_emit(g, f, len, len, GEN_ICRC_BAD);

	/* An IPv6 source address byte flipped. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), 64, false, true);
	if (len == 0)
		return -1;
	f[RNIC_ETH_HLEN + 8 + 15] ^= 0x01;
	gen_emit(g, f, len, len, GEN_ICRC_BAD);

	/* Cut by the capture's snap length: 100 of 1082 bytes. */
	len = gen_build(g, f, RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), 1024, false, false);
	if (len == 0)
		return -1;
	gen_emit(g, f, 100, len, GEN_MALFORMED);

	/* ARP request: who has 10.0.0.2, tell 10.0.0.1. */
	memset(f, 0, 42);
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(f + 12, "\x08\x06\x00\x01\x08\x00\x06\x04\x00\x01", 10);
	memcpy(f + 22, "\x02\x00\x00\x00\x00\x01\x0a\x00\x00\x01", 10);
	memcpy(f + 38, "\x0a\x00\x00\x02", 4);
	gen_emit(g, f, 42, 42, GEN_OTHER);

	/* UDP to another port: a DNS query header with no questions. */
	len = RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN + 12;
	memset(f, 0, len);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip = (void *)(f + RNIC_ETH_HLEN);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(RNIC_IPV4_HLEN + RNIC_UDP_HLEN + 12);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	gen_fix_ip_csum(f, RNIC_ETH_HLEN);
	udp = (void *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(40000);
	udp->dst_port = rte_cpu_to_be_16(53);
	udp->dgram_len = rte_cpu_to_be_16(RNIC_UDP_HLEN + 12);
	memcpy(udp + 1, "\x12\x34\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 12);
	gen_emit(g, f, len, len, GEN_OTHER);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	bool clean = false, bad = false;
	struct gen g;
	pcap_t *p;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--clean") == 0)
			clean = true;
		else if (out == NULL && argv[i][0] != '-')
			out = argv[i];
		else
			bad = true;
	}
	if (out == NULL || bad) {
		fprintf(stderr, "usage: %s OUT.pcap [--clean]\n"
			"  --clean  write only the valid RoCEv2 frames\n", argv[0]);
		return 2;
	}
	memset(&g, 0, sizeof(g));
	p = pcap_open_dead(DLT_EN10MB, GEN_SNAPLEN);
	if (p == NULL) {
		fprintf(stderr, "rnic-wire-gen: pcap_open_dead failed\n");
		return 1;
	}
	g.d = pcap_dump_open(p, out);
	if (g.d == NULL) {
		fprintf(stderr, "rnic-wire-gen: %s: %s\n", out, pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	if (gen_valid(&g) != 0 || (!clean && gen_invalid(&g) != 0)) {
		fprintf(stderr, "rnic-wire-gen: building a frame failed\n");
		pcap_dump_close(g.d);
		pcap_close(p);
		return 1;
	}
	if (pcap_dump_flush(g.d) != 0) {
		fprintf(stderr, "rnic-wire-gen: %s: write failed\n", out);
		pcap_dump_close(g.d);
		pcap_close(p);
		return 1;
	}
	pcap_dump_close(g.d);
	pcap_close(p);
	printf("expect: frames=%u roce=%u icrc_ok=%u icrc_bad=%u malformed=%u other=%u\n",
	       g.frames, g.icrc_ok + g.icrc_bad, g.icrc_ok, g.icrc_bad, g.malformed,
	       g.other);
	return 0;
}
