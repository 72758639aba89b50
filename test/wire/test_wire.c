/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the RoCEv2 wire library (lib/wire).
 *
 * Covers, negative cases first:
 *  - every parse error of enum rnic_pkt_err produced by a crafted frame
 *    (OPCODE_TRANSPORT excepted: it is a per-QP check the parser cannot
 *    make, so the test checks rnic_opcode_allowed() for it instead);
 *  - truncation at every byte length of several frames, in exactly sized
 *    heap buffers so that ASan catches an overread, and truncation with
 *    consistent IPv4/UDP lengths (TRUNC_BTH, TRUNC_EXT, PAD, ICRC);
 *  - ICRC coverage: which bytes the ICRC protects and which it masks;
 *  - builder refusals (unknown opcode, short buffer, oversized payload);
 *  - golden frames written by scapy, built byte for byte and parsed back;
 *  - the opcode table: every row's length and offsets recomputed from its
 *    header bits in wire order, the IBA table 38 header sets, the set of
 *    defined opcodes, role bits, and the transports each opcode allows;
 *  - PSN arithmetic at the 24-bit wrap and at the 2^23 boundaries;
 *  - rnic_crc32 against zlib's crc32, including chaining;
 *  - rnic_icrc_copy_seal (payload copy and ICRC in one pass) against the
 *    builder's frame and the zlib reference, IPv4 and IPv6;
 *  - the ICRC against an independent reference built on zlib;
 *  - build/parse round trips of every opcode, with and without VLAN, over
 *    many payload sizes, through flat buffers and single-segment mbufs;
 *  - header prediction (rnic_pkt_rc_write) against the parser;
 *  - the ICRC, the parser and rnic_pkt_finish_icrc_mbuf over frames split
 *    into 2, 3 and many mbuf segments, with boundaries inside the headers
 *    and inside the ICRC, and an mbuf chain built the way TX builds one.
 *
 * Prints "N passed, M failed" (N, M count checks) and exits non-zero on
 * any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "rnic_copy.h"
#include "rnic_mad.h"
#include "rnic_wire.h"
#include "test_common.h"

static struct rte_mempool *mp;
static bool err_seen[RNIC_PKT_ERR_MAX];

#define ERRN(e) rnic_pkt_err_name[(e) < RNIC_PKT_ERR_MAX ? (e) : 0]

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd64(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static uint32_t
rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static void
rnd_bytes(uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd32();
}

static void *
xmalloc(size_t n)
{
	/* Exactly @p n bytes (at least one for malloc(0)): ASan sees overreads. */
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		printf("out of memory\n");
		exit(2);
	}
	return p;
}

static void *
xdup(const void *src, size_t n)
{
	void *p = xmalloc(n);

	if (n)
		memcpy(p, src, n);
	return p;
}

/* Random but valid addressing, BTH and extended header values. */
static void
rnd_fields(uint8_t opcode, bool vlan, struct rnic_l2l3 *l,
	   struct rnic_bth_fields *b, struct rnic_ext_fields *e)
{
	uint32_t r = rnd32();

	memset(l, 0, sizeof(*l));
	memset(b, 0, sizeof(*b));
	memset(e, 0, sizeof(*e));
	rnd_bytes(l->dst_mac, 6);
	rnd_bytes(l->src_mac, 6);
	l->vlan = vlan;
	l->vlan_tci = (uint16_t)rnd32();
	l->src_ip = rnd32();
	l->dst_ip = rnd32();
	l->tos = (uint8_t)rnd32();
	l->ttl = (uint8_t)(1 + rnd32() % 255);
	l->udp_sport = rnic_udp_sport(rnd32());
	l->udp_dport = RNIC_ROCE_UDP_PORT;
	b->opcode = opcode;
	b->se = r & 1;
	b->mig = r & 2;
	b->fecn = r & 4;
	b->becn = r & 8;
	b->ackreq = r & 16;
	b->pkey = (uint16_t)rnd32();
	b->dqpn = rnd32() & 0xffffff;
	b->psn = rnd32() & RNIC_PSN_MASK;
	e->reth_va = rnd64();
	e->reth_rkey = rnd32();
	e->reth_len = rnd32();
	e->aeth_syn = (uint8_t)rnd32();
	e->aeth_msn = rnd32() & 0xffffff;
	e->atm_va = rnd64();
	e->atm_rkey = rnd32();
	e->atm_swap_add = rnd64();
	e->atm_cmp = rnd64();
	e->atmack_orig = rnd64();
	e->imm = rnd32();
	e->ieth_rkey = rnd32();
	e->deth_qkey = rnd32();
	e->deth_sqp = rnd32() & 0xffffff;
}

/* Build a frame into a fresh exactly sized buffer; *len gets its length. */
static uint8_t *
make_frame(uint8_t opcode, bool vlan, uint32_t plen, uint32_t *len)
{
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	uint32_t total = rnic_pkt_hdr_len(opcode, vlan, false) + plen + rnic_pad_len(plen) +
			 RNIC_ICRC_LEN;
	uint8_t *payload = xmalloc(plen), *f = xmalloc(total);

	rnd_fields(opcode, vlan, &l, &b, &e);
	rnd_bytes(payload, plen);
	*len = rnic_pkt_build_buf(f, total, &l, &b, &e, payload, plen);
	free(payload);
	if (*len != total) {
		free(f);
		return NULL;
	}
	return f;
}

static uint32_t
l3_of(const uint8_t *f)
{
	return f[12] == 0x81 && f[13] == 0x00 ? RNIC_ETH_HLEN + RNIC_VLAN_HLEN :
						 RNIC_ETH_HLEN;
}

static void
fix_ip_csum(uint8_t *f, uint32_t l3)
{
	struct rte_ipv4_hdr *ip = (void *)(f + l3);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Set the IPv4 total length to @p ip_len, UDP's to match, fix the checksum. */
static void
set_l3_len(uint8_t *f, uint32_t l3, uint32_t ip_len)
{
	struct rte_ipv4_hdr *ip = (void *)(f + l3);
	struct rte_udp_hdr *udp = (void *)(f + l3 + RNIC_IPV4_HLEN);

	ip->total_length = rte_cpu_to_be_16((uint16_t)ip_len);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(ip_len - RNIC_IPV4_HLEN));
	fix_ip_csum(f, l3);
}

static void
fix_icrc(uint8_t *f, uint32_t len)
{
	uint32_t icrc = rte_cpu_to_le_32(rnic_icrc_calc_buf(f, l3_of(f), len));

	memcpy(f + len - RNIC_ICRC_LEN, &icrc, 4);
}

/*
 * Independent ICRC reference: zlib's crc32 over 8 bytes of ones, then the
 * IPv4/UDP/BTH headers with the masked fields set to ones through the DPDK
 * header structs, then the rest of the frame up to the ICRC.
 */
static uint32_t
ref_icrc(const uint8_t *f, uint32_t l3, uint32_t len)
{
	uint32_t n = 8 + len - l3 - RNIC_ICRC_LEN;
	uint8_t *t = xmalloc(n);
	struct rte_ipv4_hdr *ip = (void *)(t + 8);
	struct rte_udp_hdr *udp = (void *)(ip + 1);
	struct rnic_bth *bth = (void *)(udp + 1);
	uint32_t crc;

	memset(t, 0xff, 8);
	memcpy(t + 8, f + l3, len - l3 - RNIC_ICRC_LEN);
	ip->type_of_service = 0xff;
	ip->time_to_live = 0xff;
	ip->hdr_checksum = 0xffff;
	udp->dgram_cksum = 0xffff;
	bth->fb = 0xff;
	crc = (uint32_t)crc32(0L, t, n);
	free(t);
	return crc;
}

/* Segment a flat frame into an mbuf chain of the given segment lengths. */
static struct rte_mbuf *
make_chain(const uint8_t *f, uint32_t len, const uint32_t *seg, unsigned int nseg)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	for (unsigned int i = 0; i < nseg; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint32_t n = i == nseg - 1 ? len - off : seg[i];
		char *p;

		if (m == NULL || n > rte_pktmbuf_tailroom(m)) {
			printf("make_chain: mbuf alloc or size failed\n");
			exit(2);
		}
		p = rte_pktmbuf_append(m, (uint16_t)n);
		if (n)
			memcpy(p, f + off, n);
		off += n;
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		tail = m;
	}
	return head;
}

/* Overwrite bytes [off, off + n) of a chain. */
static void
chain_write(struct rte_mbuf *m, uint32_t off, const void *src, uint32_t n)
{
	const uint8_t *s = src;

	for (; m != NULL && n > 0; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		uint32_t k = RTE_MIN(n, (uint32_t)m->data_len - off);

		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, off), s, k);
		s += k;
		n -= k;
		off = 0;
	}
}

/* Two parses agree: every byte the parser clears, and the SACK map where
 * the frame has one (an SR ACK; elsewhere the parser leaves it alone). */
static bool
pkt_same(const struct rnic_pkt *a, const struct rnic_pkt *b)
{
	if (memcmp(a, b, offsetof(struct rnic_pkt, ext.sack)) != 0)
		return false;
	if (a->bth.sr && a->op != NULL && (a->op->mask & RNIC_M_ACK))
		return memcmp(a->ext.sack, b->ext.sack, sizeof(a->ext.sack)) == 0;
	return true;
}

/*
 * Parse a copy of @p f (exactly @p len bytes) through the flat, the single
 * segment and a three segment mbuf path; all three must give @p want.
 */
static int
check_err(const uint8_t *f, uint32_t len, bool check_icrc,
	  enum rnic_pkt_err want, int line)
{
	uint8_t *c = xdup(f, len);
	struct rnic_pkt pkt, pm;
	enum rnic_pkt_err e, em;
	struct rte_mbuf *m;
	uint32_t seg[3] = { len / 3, len / 3, 0 };

	/* A parse that fails may stop before the SACK map: start both alike. */
	memset(&pkt, 0, sizeof(pkt));
	memset(&pm, 0, sizeof(pm));
	e = rnic_pkt_parse_buf(c, len, check_icrc, &pkt);
	free(c);
	if (e < RNIC_PKT_ERR_MAX)
		err_seen[e] = true;
	VERIFY(e == want, "(line %d, len %u) got %s want %s", line, len,
	       ERRN(e), ERRN(want));

	m = make_chain(f, len, seg, 1);
	em = rnic_pkt_parse_mbuf(m, check_icrc, &pm);
	rte_pktmbuf_free(m);
	VERIFY(em == want, "(line %d, 1 seg) got %s", line, ERRN(em));
	VERIFY(pkt_same(&pkt, &pm), "(line %d, 1 seg)", line);

	m = make_chain(f, len, seg, 3);
	em = rnic_pkt_parse_mbuf(m, check_icrc, &pm);
	rte_pktmbuf_free(m);
	VERIFY(em == want, "(line %d, 3 seg) got %s", line, ERRN(em));
	VERIFY(pkt_same(&pkt, &pm), "(line %d, 3 seg)", line);
	return 0;
}

#define CHECK_ERR(f, len, want) \
	VERIFY(check_err(f, len, true, want, __LINE__) == 0, "")
#define CHECK_ERR_NOICRC(f, len, want) \
	VERIFY(check_err(f, len, false, want, __LINE__) == 0, "")

/* ------------------------------------------------------------------ */
/* Negative cases                                                      */
/* ------------------------------------------------------------------ */

/* Non-RoCE and malformed L2/L3/L4 headers. */
static int
test_err_outer(void)
{
	uint32_t len, vlen;
	uint8_t *base = make_frame(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY),
				   false, 8, &len);
	uint8_t *vbase = make_frame(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY),
				    true, 8, &vlen);
	uint8_t f[256], opt[256];
	const uint32_t l3 = RNIC_ETH_HLEN;
	struct rte_ipv4_hdr *ip = (void *)(f + l3);
	struct rte_udp_hdr *udp = (void *)(f + l3 + RNIC_IPV4_HLEN);

	VERIFY(base != NULL && vbase != NULL, "");
	CHECK_ERR(base, len, RNIC_PKT_ERR_OK);
	CHECK_ERR(vbase, vlen, RNIC_PKT_ERR_OK);

	/* TRUNC_L2: shorter than Ethernet, or than Ethernet + 802.1Q. */
	for (uint32_t n = 0; n < RNIC_ETH_HLEN; n++)
		CHECK_ERR(base, n, RNIC_PKT_ERR_TRUNC_L2);
	for (uint32_t n = RNIC_ETH_HLEN; n < RNIC_ETH_HLEN + RNIC_VLAN_HLEN; n++)
		CHECK_ERR(vbase, n, RNIC_PKT_ERR_TRUNC_L2);

	/* OTHER_L2: ARP, IPv6, ARP inside 802.1Q; an ARP header alone is enough. */
	memcpy(f, base, len);
	f[12] = 0x08, f[13] = 0x06;
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_L2);
	CHECK_ERR(f, RNIC_ETH_HLEN, RNIC_PKT_ERR_OTHER_L2);
	f[12] = 0x86, f[13] = 0xdd;
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_VERSION);  /* IPv4 in an IPv6 ethertype */
	memcpy(f, vbase, vlen);
	f[16] = 0x08, f[17] = 0x06;
	CHECK_ERR(f, vlen, RNIC_PKT_ERR_OTHER_L2);

	/* TRUNC_L3: an IPv4 ethertype but no room for the IPv4 header. */
	for (uint32_t n = RNIC_ETH_HLEN; n < RNIC_ETH_HLEN + RNIC_IPV4_HLEN; n++)
		CHECK_ERR(base, n, RNIC_PKT_ERR_TRUNC_L3);
	for (uint32_t n = 18; n < 18 + RNIC_IPV4_HLEN; n++)
		CHECK_ERR(vbase, n, RNIC_PKT_ERR_TRUNC_L3);

	/* IP_VERSION: version 6 in an IPv4 ethertype; IHL below 5. */
	memcpy(f, base, len);
	ip->version_ihl = 0x65;
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_VERSION);
	memcpy(f, base, len);
	ip->version_ihl = 0x44;
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_VERSION);

	/* OTHER_L4: TCP. */
	memcpy(f, base, len);
	ip->next_proto_id = IPPROTO_TCP;
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_L4);

	/* IP_OPTIONS: a well-formed header with 4 bytes of options (NOPs, EOL). */
	memcpy(opt, base, l3 + RNIC_IPV4_HLEN);
	memcpy(opt + l3 + RNIC_IPV4_HLEN, "\x01\x01\x01\x00", 4);
	memcpy(opt + l3 + RNIC_IPV4_HLEN + 4, base + l3 + RNIC_IPV4_HLEN,
	       len - l3 - RNIC_IPV4_HLEN);
	((struct rte_ipv4_hdr *)(opt + l3))->version_ihl = 0x46;
	((struct rte_ipv4_hdr *)(opt + l3))->total_length =
		rte_cpu_to_be_16((uint16_t)(len - l3 + 4));
	fix_ip_csum(opt, l3);
	CHECK_ERR(opt, len + 4, RNIC_PKT_ERR_IP_OPTIONS);

	/* IP_FRAG: more-fragments, or a non-zero offset; DF alone is fine. */
	memcpy(f, base, len);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_FRAG);
	ip->fragment_offset = rte_cpu_to_be_16(1);
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_FRAG);
	ip->fragment_offset = 0;  /* flags are under the ICRC: recompute it */
	fix_ip_csum(f, l3);
	fix_icrc(f, len);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OK);

	/* IP_LEN: longer than the frame; shorter than IPv4 + UDP. */
	memcpy(f, base, len);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - l3 + 1));
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_LEN);
	ip->total_length = rte_cpu_to_be_16(RNIC_IPV4_HLEN + RNIC_UDP_HLEN - 1);
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_LEN);
	ip->total_length = 0;
	fix_ip_csum(f, l3);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_LEN);

	/* IP_CSUM: a flipped checksum bit; a TTL change without a new sum. */
	memcpy(f, base, len);
	ip->hdr_checksum ^= rte_cpu_to_be_16(1);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_CSUM);
	memcpy(f, base, len);
	ip->time_to_live--;
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_CSUM);

	/* OTHER_PORT: UDP to another port (4792, DNS). */
	memcpy(f, base, len);
	udp->dst_port = rte_cpu_to_be_16(RNIC_ROCE_UDP_PORT + 1);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_PORT);
	udp->dst_port = rte_cpu_to_be_16(53);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_PORT);

	/* UDP_LEN: UDP length longer or shorter than IPv4's says. */
	memcpy(f, base, len);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - l3 - RNIC_IPV4_HLEN + 4));
	CHECK_ERR(f, len, RNIC_PKT_ERR_UDP_LEN);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - l3 - RNIC_IPV4_HLEN - 4));
	CHECK_ERR(f, len, RNIC_PKT_ERR_UDP_LEN);

	/* Ethernet padding after the IPv4 datagram is not part of the frame. */
	memset(f, 0, sizeof(f));
	memcpy(f, base, len);
	CHECK_ERR(f, len + 17, RNIC_PKT_ERR_OK);
	free(base);
	free(vbase);
	return 0;
}

/* BTH and extended header errors. */
static int
test_err_bth(void)
{
	const uint8_t send_only = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY);
	const uint8_t ack = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK);
	uint32_t len, len0, alen;
	uint8_t *base = make_frame(send_only, false, 8, &len);
	uint8_t *empty = make_frame(send_only, false, 0, &len0);
	uint8_t *a = make_frame(ack, false, 0, &alen);
	const uint32_t l3 = RNIC_ETH_HLEN, bo = l3 + RNIC_IPV4_HLEN + RNIC_UDP_HLEN;
	uint8_t f[256];
	struct rnic_bth *bth = (void *)(f + bo);

	VERIFY(base != NULL && empty != NULL && a != NULL, "");

	/* TRUNC_BTH: UDP payload shorter than BTH + ICRC. */
	for (uint32_t n = 0; n < RNIC_BTH_LEN + RNIC_ICRC_LEN; n++) {
		memcpy(f, base, len);
		set_l3_len(f, l3, RNIC_IPV4_HLEN + RNIC_UDP_HLEN + n);
		CHECK_ERR(f, bo + n, RNIC_PKT_ERR_TRUNC_BTH);
	}

	/* TVER: every non-zero transport version. */
	for (uint8_t v = 1; v <= RNIC_BTH_TVER_MASK; v++) {
		memcpy(f, base, len);
		bth->flags |= v;
		fix_icrc(f, len);
		CHECK_ERR(f, len, RNIC_PKT_ERR_TVER);
	}

	/* OPCODE: every opcode the table does not define. */
	for (unsigned int o = 0; o < 256; o++) {
		memcpy(f, base, len);
		bth->opcode = (uint8_t)o;
		if (rnic_opcode_info((uint8_t)o) != NULL)
			continue;
		fix_icrc(f, len);
		CHECK_ERR(f, len, RNIC_PKT_ERR_OPCODE);
	}

	/* TRUNC_EXT: 8 bytes after BTH, relabelled as opcodes with longer ext. */
	memcpy(f, base, len);
	bth->opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP);
	fix_icrc(f, len);
	CHECK_ERR(f, len, RNIC_PKT_ERR_TRUNC_EXT);
	bth->opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY);
	fix_icrc(f, len);
	CHECK_ERR(f, len, RNIC_PKT_ERR_TRUNC_EXT);
	bth->opcode = RNIC_OPCODE_CNP;
	fix_icrc(f, len);
	CHECK_ERR(f, len, RNIC_PKT_ERR_TRUNC_EXT);
	/* ...but 8 bytes make a valid UD_SEND_ONLY (DETH) with no payload. */
	bth->opcode = RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY);
	fix_icrc(f, len);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OK);

	/* PAD: pad count larger than payload + pad. */
	for (uint8_t p = 1; p <= 3; p++) {
		memcpy(f, empty, len0);
		bth->flags |= (uint8_t)(p << RNIC_BTH_PAD_SHIFT);
		fix_icrc(f, len0);
		CHECK_ERR(f, len0, RNIC_PKT_ERR_PAD);
		memcpy(f, a, alen);
		bth->flags |= (uint8_t)(p << RNIC_BTH_PAD_SHIFT);
		fix_icrc(f, alen);
		CHECK_ERR(f, alen, RNIC_PKT_ERR_PAD);
		/* A pad count within the 8 bytes is fine and shortens the payload. */
		memcpy(f, base, len);
		bth->flags |= (uint8_t)(p << RNIC_BTH_PAD_SHIFT);
		fix_icrc(f, len);
		CHECK_ERR(f, len, RNIC_PKT_ERR_OK);
	}
	/* PAD: payload + pad not a multiple of 4. */
	for (uint32_t cut = 1; cut <= 3; cut++) {
		memcpy(f, base, len);
		set_l3_len(f, l3, len - l3 + cut);
		fix_icrc(f, len + cut);
		CHECK_ERR(f, len + cut, RNIC_PKT_ERR_PAD);
	}

	/* ICRC: a flipped bit in each ICRC byte; off when not checked. */
	for (uint32_t i = 0; i < RNIC_ICRC_LEN; i++) {
		memcpy(f, base, len);
		f[len - RNIC_ICRC_LEN + i] ^= 0x10;
		CHECK_ERR(f, len, RNIC_PKT_ERR_ICRC);
		CHECK_ERR_NOICRC(f, len, RNIC_PKT_ERR_OK);
	}
	free(base);
	free(empty);
	free(a);
	return 0;
}

/* PAYLOAD: bytes after the headers of opcodes that carry none. */
static int
test_err_payload(void)
{
	const uint8_t ops[] = {
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ATOMIC_ACK),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_READ_REQ),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_FETCH_ADD),
		RNIC_OPCODE_CNP,
	};

	for (unsigned int i = 0; i < RTE_DIM(ops); i++) {
		const uint32_t sizes[] = { 1, 4, 64 };

		for (unsigned int j = 0; j < RTE_DIM(sizes); j++) {
			uint32_t len;
			uint8_t *f = make_frame(ops[i], j == 1, sizes[j], &len);

			VERIFY(f != NULL, "opcode 0x%02x", ops[i]);
			CHECK_ERR(f, len, RNIC_PKT_ERR_PAYLOAD);
			free(f);
		}
	}
	return 0;
}

/*
 * Cut a frame at every length from 0 to its full size, each copy in an
 * exactly sized buffer. With the IPv4 length left alone the error is fixed
 * by where the cut falls; with the lengths rewritten to match, the parser
 * must find the shortage in BTH, the extended headers, the pad or the ICRC.
 */
static int
test_err_truncation(void)
{
	const struct {
		uint8_t opcode;
		bool vlan;
		uint32_t plen;
	} cases[] = {
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), false, 5 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY_IMM), true, 17 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP), false, 0 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ATOMIC_ACK), true, 0 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK), false, 0 },
		{ RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY_IMM), true, 3 },
		{ RNIC_OPCODE_CNP, false, 0 },
	};

	for (unsigned int c = 0; c < RTE_DIM(cases); c++) {
		const struct rnic_opcode_info *op = rnic_opcode_info(cases[c].opcode);
		uint32_t len, l3 = cases[c].vlan ? 18 : 14;
		uint32_t bo = l3 + RNIC_IPV4_HLEN + RNIC_UDP_HLEN;
		uint8_t *f = make_frame(cases[c].opcode, cases[c].vlan, cases[c].plen, &len);
		uint8_t pad;

		VERIFY(f != NULL && op != NULL, "case %u", c);
		pad = __bth_pad((const struct rnic_bth *)(f + bo));
		for (uint32_t n = 0; n <= len; n++) {
			enum rnic_pkt_err want;

			if (n < l3)
				want = RNIC_PKT_ERR_TRUNC_L2;
			else if (n < l3 + RNIC_IPV4_HLEN)
				want = RNIC_PKT_ERR_TRUNC_L3;
			else if (n < len)
				want = RNIC_PKT_ERR_IP_LEN;
			else
				want = RNIC_PKT_ERR_OK;
			CHECK_ERR(f, n, want);
		}
		for (uint32_t n = bo; n < len; n++) {
			uint8_t *t = xdup(f, n);
			uint32_t l4 = n - bo, room;
			enum rnic_pkt_err want;

			set_l3_len(t, l3, n - l3);
			room = l4 - op->length - RNIC_ICRC_LEN;
			if (l4 < RNIC_BTH_LEN + RNIC_ICRC_LEN)
				want = RNIC_PKT_ERR_TRUNC_BTH;
			else if (l4 < (uint32_t)op->length + RNIC_ICRC_LEN)
				want = RNIC_PKT_ERR_TRUNC_EXT;
			else if ((room & 3) || pad > room)
				want = RNIC_PKT_ERR_PAD;
			else if (!(op->mask & RNIC_M_PAYLOAD) && room != 0)
				want = RNIC_PKT_ERR_PAYLOAD;
			else
				want = RNIC_PKT_ERR_ICRC;
			CHECK_ERR(t, n, want);
			free(t);
		}
		free(f);
	}
	return 0;
}

/*
 * The selective-repeat headers (RNIC_BTH_SR): an SRETH on SEND/WRITE, a
 * SACK on an ACK, built after the opcode's own headers by both builders,
 * read back with the payload offset moved on; the bit refused on an
 * opcode that carries neither, and a frame that ends inside one; every
 * field at its place (big-endian).
 */
static int
test_sreth(void)
{
	const uint8_t ok_ops[] = {
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_MIDDLE),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY_IMM),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_LAST_INV),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK),
	};
	const uint8_t bad_ops[] = {
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_READ_REQ),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_READ_RESP_MIDDLE),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ATOMIC_ACK),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_FETCH_ADD),
	};

	for (unsigned int i = 0; i < RTE_DIM(ok_ops) + RTE_DIM(bad_ops); i++) {
		bool ok = i < RTE_DIM(ok_ops);
		uint8_t op = ok ? ok_ops[i] : bad_ops[i - RTE_DIM(ok_ops)];
		const struct rnic_opcode_info *oi = rnic_opcode_info(op);
		uint32_t plen = (oi->mask & RNIC_M_PAYLOAD) ? 8 : 0, len, hl, bth, srl;
		uint8_t f[256], g[256], payload[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		struct rnic_l2l3 l;
		struct rnic_bth_fields b;
		struct rnic_ext_fields e;
		struct rnic_pkt_tmpl t;
		struct rnic_pkt pkt;

		rnd_fields(op, false, &l, &b, &e);
		b.sr = true;
		b.mig = b.fecn = b.becn = false;
		e.sr_va = 0x0102030405060708ull;
		e.sr_key = 0x11223344;
		e.sr_len = 0x55667788;
		e.sr_aux = 0x99aabbcc;
		for (unsigned int w = 0; w < RNIC_SACK_WORDS; w++)
			e.sack[w] = 0x0101010101010101ull * (w + 1);
		srl = !ok ? 0 : (oi->mask & RNIC_M_ACK) ? RNIC_SACK_LEN : RNIC_SRETH_LEN;
		len = rnic_pkt_build_buf(f, sizeof(f), &l, &b, &e, payload, plen);
		hl = rnic_pkt_hdr_len(op, false, false);
		VERIFY(len == hl + srl + plen + RNIC_ICRC_LEN, "%s: %u bytes", oi->name, len);
		bth = RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN;
		VERIFY((f[bth + 8] & RNIC_BTH_SR) && ((f[bth + 8] & RNIC_BTH_ACKREQ) != 0) == b.ackreq,
		       "%s: AckReq byte 0x%02x", oi->name, f[bth + 8]);
		if (srl == RNIC_SRETH_LEN)
			VERIFY(memcmp(f + hl, "\x01\x02\x03\x04\x05\x06\x07\x08\x11\x22\x33\x44"
				      "\x55\x66\x77\x88\x99\xaa\xbb\xcc", RNIC_SRETH_LEN) == 0,
			       "%s: SRETH bytes", oi->name);
		if (srl == RNIC_SACK_LEN) {
			/* ePSN, then each word big-endian, word 0 first. */
			VERIFY(memcmp(f + hl, "\x99\xaa\xbb\xcc", 4) == 0, "SACK ePSN");
			for (unsigned int k = 0; k < 8 * RNIC_SACK_WORDS; k++)
				VERIFY(f[hl + 4 + k] == k / 8 + 1, "SACK byte %u", k);
		}
		/* The template builder writes the same bytes. */
		rnic_pkt_tmpl_init(&t, &l, b.pkey, b.dqpn);
		VERIFY(rnic_pkt_tmpl_build(g, sizeof(g), &t, &b, &e, plen) == hl + srl &&
		       memcmp(f, g, hl + srl) == 0, "%s: template differs", oi->name);
		if (!ok) {
			CHECK_ERR(f, len, RNIC_PKT_ERR_SRETH);
			continue;
		}
		CHECK_ERR(f, len, RNIC_PKT_ERR_OK);
		VERIFY(rnic_pkt_parse_buf(f, len, true, &pkt) == RNIC_PKT_ERR_OK, "");
		if (srl == RNIC_SACK_LEN)
			VERIFY(pkt.bth.sr && pkt.ext.sr_aux == e.sr_aux &&
			       memcmp(pkt.ext.sack, e.sack, sizeof(e.sack)) == 0, "SACK fields");
		else
			VERIFY(pkt.bth.sr && pkt.ext.sr_va == e.sr_va && pkt.ext.sr_key == e.sr_key &&
			       pkt.ext.sr_len == e.sr_len && pkt.ext.sr_aux == e.sr_aux,
			       "%s: SRETH fields", oi->name);
		VERIFY(pkt.payload_off == hl + srl && pkt.payload_len == plen &&
		       memcmp(f + pkt.payload_off, payload, plen) == 0, "%s: payload", oi->name);
		if (oi->mask & RNIC_M_RETH)
			VERIFY(pkt.ext.reth_va == e.reth_va, "%s: RETH", oi->name);
		/* Ends inside the SRETH (lengths rewritten to match). */
		if (plen == 0) {
			uint32_t cut = hl + 8 + RNIC_ICRC_LEN;

			set_l3_len(f, RNIC_ETH_HLEN, cut - RNIC_ETH_HLEN);
			CHECK_ERR(f, cut, RNIC_PKT_ERR_TRUNC_EXT);
		}
	}
	return 0;
}

/* Every error but the per-QP OPCODE_TRANSPORT came out of a crafted frame. */
static int
test_err_coverage(void)
{
	for (int e = 0; e < RNIC_PKT_ERR_MAX; e++) {
		VERIFY(rnic_pkt_err_name[e] != NULL && rnic_pkt_err_str[e] != NULL,
		       "error %d", e);
		if (e == RNIC_PKT_ERR_OPCODE_TRANSPORT)
			continue;
		VERIFY(err_seen[e], "%s never produced", rnic_pkt_err_name[e]);
	}
	VERIFY(strcmp(rnic_pkt_err_name[RNIC_PKT_ERR_OK], "OK") == 0, "");
	VERIFY(strcmp(rnic_pkt_err_name[RNIC_PKT_ERR_ICRC], "ICRC") == 0, "");
	VERIFY(!rnic_pkt_err_is_other(RNIC_PKT_ERR_OK), "");
	VERIFY(rnic_pkt_err_is_other(RNIC_PKT_ERR_OTHER_L2), "");
	VERIFY(rnic_pkt_err_is_other(RNIC_PKT_ERR_OTHER_L4), "");
	VERIFY(rnic_pkt_err_is_other(RNIC_PKT_ERR_OTHER_PORT), "");
	VERIFY(!rnic_pkt_err_is_other(RNIC_PKT_ERR_ICRC), "");
	return 0;
}

/* What the ICRC protects, and the fields it masks (IBA A17.3.3). */
static int
test_icrc_coverage(void)
{
	uint32_t len;
	uint8_t *base = make_frame(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY),
				   false, 12, &len);
	const uint32_t l3 = RNIC_ETH_HLEN, l4 = l3 + RNIC_IPV4_HLEN;
	const uint32_t bo = l4 + RNIC_UDP_HLEN;
	uint8_t f[256];
	struct rte_ipv4_hdr *ip = (void *)(f + l3);
	struct rte_udp_hdr *udp = (void *)(f + l4);

	VERIFY(base != NULL, "");
	/* Masked: TOS (ECN marking), TTL, IPv4 and UDP checksums, FECN/BECN. */
	memcpy(f, base, len);
	ip->type_of_service |= 0x03;
	ip->time_to_live -= 1;
	fix_ip_csum(f, l3);
	udp->dgram_cksum = rte_cpu_to_be_16(0x1234);
	f[bo + 4] ^= RNIC_BTH_FECN | RNIC_BTH_BECN | 0x3f;
	CHECK_ERR(f, len, RNIC_PKT_ERR_OK);
	/* Not covered: the Ethernet header. */
	memcpy(f, base, len);
	f[0] ^= 0xff;
	f[11] ^= 0xff;
	CHECK_ERR(f, len, RNIC_PKT_ERR_OK);
	/*
	 * Covered: every other byte from IPv4 to the ICRC. Flip the top bit of
	 * each, skipping the bytes another check rejects first (version/IHL,
	 * total length, fragment offset, protocol, UDP port and length, opcode).
	 */
	for (uint32_t i = l3; i < len - RNIC_ICRC_LEN; i++) {
		bool masked = i == l3 + 1 || i == l3 + 8 || i == l3 + 10 ||
			      i == l3 + 11 || i == l4 + 6 || i == l4 + 7 || i == bo + 4;
		bool checked = i == l3 || i == l3 + 2 || i == l3 + 3 || i == l3 + 7 ||
			       i == l3 + 9 || (i >= l4 + 2 && i <= l4 + 5) || i == bo;

		if (checked)
			continue;
		memcpy(f, base, len);
		f[i] ^= 0x80;
		if (i < l4)
			fix_ip_csum(f, l3);
		CHECK_ERR(f, len, masked ? RNIC_PKT_ERR_OK : RNIC_PKT_ERR_ICRC);
	}
	free(base);
	return 0;
}

/* The builder refuses what it cannot build and never writes past @p cap. */
static int
test_build_refusals(void)
{
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	static uint8_t payload[65536];
	uint8_t *f;
	uint32_t hl;

	rnd_fields(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), false, &l, &b, &e);
	hl = rnic_pkt_hdr_len(b.opcode, false, false);
	VERIFY(hl == 14 + 20 + 8 + 12, "%u", hl);
	VERIFY(rnic_pkt_hdr_len(b.opcode, true, false) == hl + 4, "");
	VERIFY(rnic_pkt_hdr_len(0x15, false, false) == 0, "");

	for (uint32_t cap = 0; cap < hl; cap++) {
		f = xmalloc(cap);
		VERIFY(rnic_pkt_build_hdrs(f, cap, &l, &b, &e, 0) == 0, "cap %u", cap);
		free(f);
	}
	for (uint32_t cap = 0; cap < hl + 8; cap++) {
		f = xmalloc(cap);
		VERIFY(rnic_pkt_build_buf(f, cap, &l, &b, &e, payload, 4) == 0,
		       "cap %u", cap);
		free(f);
	}
	f = xmalloc(hl + 8);
	VERIFY(rnic_pkt_build_buf(f, hl + 8, &l, &b, &e, payload, 4) == hl + 8, "");
	VERIFY(rnic_pkt_build_hdrs(f, hl, &l, &b, &e, 4) == hl, "");
	free(f);

	/* Unknown opcodes. */
	f = xmalloc(256);
	for (unsigned int o = 0; o < 256; o++) {
		b.opcode = (uint8_t)o;
		if (rnic_opcode_info(b.opcode) != NULL)
			continue;
		VERIFY(rnic_pkt_build_buf(f, 256, &l, &b, &e, payload, 4) == 0, "0x%02x", o);
		VERIFY(rnic_pkt_build_hdrs(f, 256, &l, &b, &e, 4) == 0, "0x%02x", o);
	}
	b.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY);

	/* IPv4 total length limit: 65535. */
	VERIFY(rnic_pkt_build_hdrs(f, 256, &l, &b, &e, 65488) == hl, "");
	VERIFY(rnic_pkt_build_hdrs(f, 256, &l, &b, &e, 65489) == 0, "");
	/* Lengths that would wrap 32-bit arithmetic must not pass. */
	VERIFY(rnic_pkt_build_hdrs(f, 256, &l, &b, &e, UINT32_MAX - 15) == 0, "");
	VERIFY(rnic_pkt_build_hdrs(f, 256, &l, &b, &e, UINT32_MAX) == 0, "");
	VERIFY(rnic_pkt_build_buf(f, 256, &l, &b, &e, payload, UINT32_MAX - 15) == 0, "");
	VERIFY(rnic_pkt_build_buf(f, 256, &l, &b, &e, payload, UINT32_MAX - 51) == 0, "");
	free(f);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Golden frames                                                       */
/* ------------------------------------------------------------------ */

/*
 * Frames written by scapy 2.5.0 (scapy.contrib.roce BTH and its ICRC, with
 * RETH, ImmDt, AtomicETH, AtomicAckETH, DETH and IETH layers as defined in
 * scapy_xcheck.py) from the field values in golden[] below: an anchor for
 * the byte layout that a symmetric builder/parser mistake cannot pass.
 * Common to all: 02:00:00:00:00:01 -> 02:00:00:00:00:02, 10.0.0.1 ->
 * 10.0.0.2, TOS 2, TTL 64, DF, IP id 0, UDP 0xc123 -> 4791, checksum 0.
 */
/* scapy: BTH / RETH / ImmDt / Raw */
static const uint8_t golden_write_only_imm[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x02, 0x00, 0x48, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x26, 0xa1, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23,
	0x12, 0xb7, 0x00, 0x34, 0x00, 0x00, 0x0b, 0xb0, 0x80, 0x01, 0x40, 0x12,
	0x34, 0x56, 0x80, 0xab, 0xcd, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
	0x07, 0x08, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x05, 0xde, 0xad,
	0xbe, 0xef, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00, 0xa9, 0xc1,
	0xe6, 0x1d,
};
/* scapy: BTH / AETH / AtomicAckETH */
static const uint8_t golden_atomic_ack[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x02, 0x00, 0x38, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x26, 0xb1, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23,
	0x12, 0xb7, 0x00, 0x24, 0x00, 0x00, 0x12, 0x40, 0xff, 0xff, 0x00, 0x00,
	0x0a, 0xbc, 0x00, 0xff, 0xff, 0xff, 0x1f, 0x65, 0x43, 0x21, 0x88, 0x77,
	0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xf0, 0x37, 0xf8, 0x0d,
};
/* scapy: BTH / AtomicETH */
static const uint8_t golden_cmp_swap[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x02, 0x00, 0x48, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x26, 0xa1, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23,
	0x12, 0xb7, 0x00, 0x34, 0x00, 0x00, 0x13, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00, 0x00,
	0x10, 0x00, 0xa1, 0xb2, 0xc3, 0xd4, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
	0x44, 0x44, 0x55, 0x55, 0x66, 0x66, 0x77, 0x77, 0x88, 0x88, 0xac, 0x96,
	0x7f, 0x0e,
};
/* scapy: BTH / DETH / ImmDt / Raw */
static const uint8_t golden_ud_send_only_imm_vlan[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x81, 0x00, 0x60, 0x64, 0x08, 0x00, 0x45, 0x02, 0x00, 0x3c, 0x00, 0x00,
	0x40, 0x00, 0x40, 0x11, 0x26, 0xad, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00,
	0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x65, 0x90,
	0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00, 0x80, 0x00, 0x00, 0x80, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x01, 0x02, 0x03, 0x04, 0x61, 0x62,
	0x63, 0x00, 0x4d, 0xb0, 0x55, 0xba,
};
/* scapy: BTH / IETH / Raw */
static const uint8_t golden_send_only_inv[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x02, 0x00, 0x38, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x26, 0xb1, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23,
	0x12, 0xb7, 0x00, 0x24, 0x00, 0x00, 0x17, 0x80, 0xff, 0xff, 0x00, 0xfe,
	0xdc, 0xba, 0x00, 0x00, 0x00, 0x07, 0x0b, 0xad, 0xca, 0xfe, 0x31, 0x32,
	0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x6d, 0x5e, 0x62, 0x2f,
};
/* scapy: BTH / CNPPadding */
static const uint8_t golden_cnp[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x02, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x26, 0xad, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc1, 0x23,
	0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
	0x01, 0x23, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0xdd,
	0x50, 0x88,
};

static const struct {
	const char *name;
	const uint8_t *bytes;
	uint32_t len;
	bool vlan;
	uint16_t tci;
	struct rnic_bth_fields bth;
	struct rnic_ext_fields ext;
	const char *payload;
	uint32_t plen;
} golden[] = {
#define G(n) #n, golden_##n, sizeof(golden_##n)
	{ G(write_only_imm), false, 0,
	  { .opcode = 0x0b, .se = true, .becn = true, .ackreq = true, .pkey = 0x8001,
	    .dqpn = 0x123456, .psn = 0xabcdef },
	  { .reth_va = 0x0102030405060708ull, .reth_rkey = 0x11223344, .reth_len = 5,
	    .imm = RTE_BE32(0xdeadbeef) }, "hello", 5 },
	{ G(atomic_ack), false, 0,
	  { .opcode = 0x12, .mig = true, .pkey = 0xffff, .dqpn = 0x000abc,
	    .psn = 0xffffff },
	  { .aeth_syn = 0x1f, .aeth_msn = 0x654321,
	    .atmack_orig = 0x8877665544332211ull }, "", 0 },
	{ G(cmp_swap), false, 0,
	  { .opcode = 0x13, .ackreq = true, .pkey = 0xffff, .dqpn = 0x000001, .psn = 0 },
	  { .atm_va = 0x00007f0000001000ull, .atm_rkey = 0xa1b2c3d4,
	    .atm_swap_add = 0x1111222233334444ull, .atm_cmp = 0x5555666677778888ull },
	  "", 0 },
	{ G(ud_send_only_imm_vlan), true, (3 << 13) | 100,
	  { .opcode = 0x65, .se = true, .pkey = 0xffff, .dqpn = 0x000002,
	    .psn = 0x800000 },
	  { .deth_qkey = 0x80010000, .deth_sqp = 0x000011, .imm = RTE_BE32(0x01020304) },
	  "abc", 3 },
	{ G(send_only_inv), false, 0,
	  { .opcode = 0x17, .se = true, .pkey = 0xffff, .dqpn = 0xfedcba, .psn = 7 },
	  { .ieth_rkey = 0x0badcafe }, "12345678", 8 },
	{ G(cnp), false, 0,
	  { .opcode = RNIC_OPCODE_CNP, .becn = true, .pkey = 0xffff, .dqpn = 0x000123,
	    .psn = 0 },
	  { 0 }, "", 0 },
#undef G
};

static int
test_golden(void)
{
	for (unsigned int i = 0; i < RTE_DIM(golden); i++) {
		struct rnic_l2l3 l;
		struct rnic_pkt pkt;
		uint8_t *f = xmalloc(golden[i].len);
		enum rnic_pkt_err e;
		uint32_t n;

		memset(&l, 0, sizeof(l));
		memcpy(l.dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
		memcpy(l.src_mac, "\x02\x00\x00\x00\x00\x01", 6);
		l.vlan = golden[i].vlan;
		l.vlan_tci = golden[i].tci;
		l.src_ip = RTE_BE32(RTE_IPV4(10, 0, 0, 1));
		l.dst_ip = RTE_BE32(RTE_IPV4(10, 0, 0, 2));
		l.tos = 2;
		l.ttl = 64;
		l.udp_sport = 0xc123;
		n = rnic_pkt_build_buf(f, golden[i].len, &l, &golden[i].bth, &golden[i].ext,
				       golden[i].payload, golden[i].plen);
		VERIFY(n == golden[i].len, "%s: built %u bytes, scapy %u", golden[i].name,
		       n, golden[i].len);
		for (uint32_t k = 0; k < n; k++)
			VERIFY(f[k] == golden[i].bytes[k], "%s: byte %u is 0x%02x, scapy 0x%02x",
			       golden[i].name, k, f[k], golden[i].bytes[k]);
		free(f);

		e = rnic_pkt_parse_buf(golden[i].bytes, golden[i].len, true, &pkt);
		VERIFY(e == RNIC_PKT_ERR_OK, "%s: %s", golden[i].name, ERRN(e));
		VERIFY(pkt.bth.opcode == golden[i].bth.opcode && pkt.bth.psn == golden[i].bth.psn &&
		       pkt.bth.dqpn == golden[i].bth.dqpn && pkt.bth.pkey == golden[i].bth.pkey &&
		       pkt.bth.se == golden[i].bth.se && pkt.bth.mig == golden[i].bth.mig &&
		       pkt.bth.becn == golden[i].bth.becn && pkt.bth.ackreq == golden[i].bth.ackreq,
		       "%s", golden[i].name);
		VERIFY(memcmp(&pkt.ext, &golden[i].ext,
			      pkt.bth.sr && (pkt.op->mask & RNIC_M_ACK) ?
			      sizeof(pkt.ext) : offsetof(struct rnic_ext_fields, sack)) == 0,
		       "%s", golden[i].name);
		VERIFY(pkt.payload_len == golden[i].plen &&
		       memcmp(golden[i].bytes + pkt.payload_off, golden[i].payload,
			      golden[i].plen) == 0, "%s", golden[i].name);
		VERIFY(pkt.l.vlan == golden[i].vlan && pkt.l.vlan_tci == golden[i].tci, "");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The opcode table                                                    */
/* ------------------------------------------------------------------ */

/* Extended headers of each opcode, as IBA vol. 1 table 38 lists them. */
static rnic_opmask_t
iba_ext(uint8_t opc)
{
	uint8_t t = opc & 0xe0, o = opc & 0x1f;

	if (opc == RNIC_OPCODE_CNP)
		return RNIC_M_CNP;
	if (t == RNIC_TRANSPORT_UD)
		return o == RNIC_OP_SEND_ONLY ? RNIC_M_DETH :
		       o == RNIC_OP_SEND_ONLY_IMM ? RNIC_M_DETH | RNIC_M_IMMDT : ~0u;
	if (t != RNIC_TRANSPORT_RC && t != RNIC_TRANSPORT_UC)
		return ~0u;
	switch (o) {
	case RNIC_OP_SEND_FIRST: case RNIC_OP_SEND_MIDDLE: case RNIC_OP_SEND_LAST:
	case RNIC_OP_SEND_ONLY: case RNIC_OP_WRITE_MIDDLE: case RNIC_OP_WRITE_LAST:
		return 0;
	case RNIC_OP_SEND_LAST_IMM: case RNIC_OP_SEND_ONLY_IMM:
	case RNIC_OP_WRITE_LAST_IMM:
		return RNIC_M_IMMDT;
	case RNIC_OP_WRITE_FIRST: case RNIC_OP_WRITE_ONLY:
		return RNIC_M_RETH;
	case RNIC_OP_WRITE_ONLY_IMM:
		return RNIC_M_RETH | RNIC_M_IMMDT;
	}
	if (t != RNIC_TRANSPORT_RC)
		return ~0u;
	switch (o) {
	case RNIC_OP_READ_REQ:
		return RNIC_M_RETH;
	case RNIC_OP_READ_RESP_FIRST: case RNIC_OP_READ_RESP_LAST:
	case RNIC_OP_READ_RESP_ONLY: case RNIC_OP_ACK:
		return RNIC_M_AETH;
	case RNIC_OP_READ_RESP_MIDDLE:
		return 0;
	case RNIC_OP_ATOMIC_ACK:
		return RNIC_M_AETH | RNIC_M_ATMACK;
	case RNIC_OP_CMP_SWAP: case RNIC_OP_FETCH_ADD:
		return RNIC_M_ATMETH;
	case RNIC_OP_SEND_LAST_INV: case RNIC_OP_SEND_ONLY_INV:
		return RNIC_M_IETH;
	}
	return ~0u;  /* not an opcode we implement */
}

static const char *const iba_name[32] = {
	"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE",
	"SEND_ONLY", "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST",
	"RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMMEDIATE",
	"RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA_READ_REQUEST",
	"RDMA_READ_RESPONSE_FIRST", "RDMA_READ_RESPONSE_MIDDLE",
	"RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY", "ACKNOWLEDGE",
	"ATOMIC_ACKNOWLEDGE", "CMP_SWAP", "FETCH_ADD", "?",
	"SEND_LAST_WITH_INVALIDATE", "SEND_ONLY_WITH_INVALIDATE",
	"?", "?", "?", "?", "?", "?", "?", "?",
};

static int
test_opcode_table(void)
{
	/* Wire order (IBA 9.2) and sizes, written out independently. */
	static const struct {
		enum rnic_ext x;
		rnic_opmask_t bit;
		uint8_t len;
	} order[] = {
		{ RNIC_EXT_DETH, RNIC_M_DETH, 8 },
		{ RNIC_EXT_RETH, RNIC_M_RETH, 16 },
		{ RNIC_EXT_ATMETH, RNIC_M_ATMETH, 28 },
		{ RNIC_EXT_AETH, RNIC_M_AETH, 4 },
		{ RNIC_EXT_ATMACK, RNIC_M_ATMACK, 8 },
		{ RNIC_EXT_IMMDT, RNIC_M_IMMDT, 4 },
		{ RNIC_EXT_IETH, RNIC_M_IETH, 4 },
		{ RNIC_EXT_CNP, RNIC_M_CNP, 16 },
	};
	const rnic_opmask_t ext_bits = RNIC_M_DETH | RNIC_M_RETH | RNIC_M_ATMETH |
		RNIC_M_AETH | RNIC_M_ATMACK | RNIC_M_IMMDT | RNIC_M_IETH | RNIC_M_CNP;
	unsigned int defined = 0;

	RTE_BUILD_BUG_ON(RTE_DIM(order) != RNIC_EXT_MAX);
	for (unsigned int i = 0; i < RNIC_EXT_MAX; i++) {
		VERIFY(rnic_ext_len[order[i].x] == order[i].len, "ext %u", i);
		VERIFY(rnic_ext_mask[order[i].x] == order[i].bit, "ext %u", i);
	}

	for (unsigned int o = 0; o < 256; o++) {
		const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);
		const char *name = rnic_opcode_table[o].name;
		rnic_opmask_t m = rnic_opcode_mask((uint8_t)o), want = iba_ext((uint8_t)o);
		uint8_t t = o & 0xe0;
		uint32_t off = RNIC_BTH_LEN;

		if (oi == NULL) {
			/* Undefined: no name, no bits, allowed nowhere. */
			VERIFY(name == NULL && m == 0, "0x%02x", o);
			VERIFY(strcmp(rnic_opcode_name((uint8_t)o), "UNKNOWN") == 0, "0x%02x", o);
			VERIFY(want == ~0u, "0x%02x: IBA opcode missing from the table", o);
			continue;
		}
		defined++;
		VERIFY(oi == &rnic_opcode_table[o] && rnic_opcode_name((uint8_t)o) == name,
		       "0x%02x", o);
		VERIFY(want != ~0u, "0x%02x %s: not an IBA opcode", o, name);
		VERIFY((m & ext_bits) == want, "%s: ext bits 0x%x, IBA 0x%x", name,
		       m & ext_bits, want);

		/* Recompute offsets and length from the header bits, wire order. */
		for (unsigned int i = 0; i < RNIC_EXT_MAX; i++) {
			enum rnic_ext x = order[i].x;

			if (m & rnic_ext_mask[x]) {
				VERIFY(oi->offset[x] == off, "%s ext %d at %u, want %u",
				       name, x, oi->offset[x], off);
				off += rnic_ext_len[x];
			} else {
				VERIFY(oi->offset[x] == 0, "%s ext %d", name, x);
			}
		}
		VERIFY(oi->length == off, "%s length %u, want %u", name, oi->length, off);

		/* Transports: exactly the one the top three bits name. */
		VERIFY(rnic_opcode_allowed((uint8_t)o, RNIC_TRANSPORT_RC) ==
		       (t == RNIC_TRANSPORT_RC), "%s", name);
		VERIFY(rnic_opcode_allowed((uint8_t)o, RNIC_TRANSPORT_UC) ==
		       (t == RNIC_TRANSPORT_UC), "%s", name);
		VERIFY(rnic_opcode_allowed((uint8_t)o, RNIC_TRANSPORT_UD) ==
		       (t == RNIC_TRANSPORT_UD), "%s", name);
		VERIFY(!rnic_opcode_allowed((uint8_t)o, RNIC_TRANSPORT_RD), "%s", name);
		VERIFY(!rnic_opcode_allowed((uint8_t)o, RNIC_TRANSPORT_CNP), "%s", name);
		VERIFY(__builtin_popcount(m & (RNIC_M_RC | RNIC_M_UC | RNIC_M_UD)) ==
		       (t == RNIC_TRANSPORT_CNP ? 0 : 1), "%s", name);
		/* Names as IBA table 38 spells them (CMP_SWAP shortened). */
		if (o == RNIC_OPCODE_CNP) {
			VERIFY(strcmp(name, "CNP") == 0, "%s", name);
		} else {
			char want_name[64];

			snprintf(want_name, sizeof(want_name), "%s_%s",
				 t == RNIC_TRANSPORT_RC ? "RC" :
				 t == RNIC_TRANSPORT_UC ? "UC" : "UD", iba_name[o & 0x1f]);
			VERIFY(strcmp(name, want_name) == 0, "0x%02x: %s, want %s", o,
			       name, want_name);
		}

		/* Role bits against the name. */
		VERIFY(!!(m & RNIC_M_SEND) == (strstr(name, "_SEND_") != NULL), "%s", name);
		VERIFY(!!(m & RNIC_M_WRITE) == (strstr(name, "_RDMA_WRITE_") != NULL),
		       "%s", name);
		VERIFY(!!(m & RNIC_M_READ) == (strstr(name, "_RDMA_READ_") != NULL),
		       "%s", name);
		VERIFY(!!(m & RNIC_M_ATOMIC) == (strstr(name, "ATOMIC") != NULL ||
						 strstr(name, "CMP_SWAP") != NULL ||
						 strstr(name, "FETCH_ADD") != NULL), "%s", name);
		VERIFY(!!(m & RNIC_M_ACK) == (strcmp(name, "RC_ACKNOWLEDGE") == 0), "%s", name);
		VERIFY(!!(m & RNIC_M_RESP) == (strstr(name, "RESPONSE") != NULL ||
					       strstr(name, "ACKNOWLEDGE") != NULL), "%s", name);
		VERIFY(!!(m & RNIC_M_REQ) == (o != RNIC_OPCODE_CNP && !(m & RNIC_M_RESP)),
		       "%s", name);
		VERIFY(!!(m & RNIC_M_PAYLOAD) ==
		       ((m & (RNIC_M_SEND | RNIC_M_WRITE)) ||
			((m & RNIC_M_READ) && (m & RNIC_M_RESP))), "%s", name);
		if (strstr(name, "_FIRST"))
			VERIFY((m & (RNIC_M_ONLY | RNIC_M_MIDDLE)) == RNIC_M_FIRST, "%s", name);
		else if (strstr(name, "_MIDDLE"))
			VERIFY((m & (RNIC_M_ONLY | RNIC_M_MIDDLE)) == RNIC_M_MIDDLE, "%s", name);
		else if (strstr(name, "_LAST"))
			VERIFY((m & (RNIC_M_ONLY | RNIC_M_MIDDLE)) == RNIC_M_LAST, "%s", name);
		else if (o != RNIC_OPCODE_CNP)
			VERIFY((m & (RNIC_M_ONLY | RNIC_M_MIDDLE)) == RNIC_M_ONLY, "%s", name);
		/* A receive WQE: the last packet of a send, or a write with imm. */
		VERIFY(!!(m & RNIC_M_CONSUMES_RWQE) ==
		       (((m & RNIC_M_SEND) || ((m & RNIC_M_WRITE) && (m & RNIC_M_IMMDT))) &&
			(m & RNIC_M_LAST)), "%s", name);
		VERIFY(!!(m & RNIC_M_IMMDT) == (strstr(name, "WITH_IMMEDIATE") != NULL),
		       "%s", name);
		VERIFY(!!(m & RNIC_M_IETH) == (strstr(name, "WITH_INVALIDATE") != NULL),
		       "%s", name);
		VERIFY(oi->length + RNIC_ETH_HLEN + RNIC_VLAN_HLEN + RNIC_IPV4_HLEN +
		       RNIC_UDP_HLEN <= RNIC_MAX_HDR_LEN, "%s", name);
	}
	/* RC 0x00-0x14, 0x16, 0x17; UC 0x20-0x2b; UD 0x64, 0x65; CNP. */
	VERIFY(defined == 23 + 12 + 2 + 1, "%u opcodes", defined);
	VERIFY(rnic_opcode_mask(RNIC_OPCODE_CNP) == RNIC_M_CNP, "");
	VERIFY(rnic_transport_mask(RNIC_TRANSPORT_RD) == 0, "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* PSN arithmetic                                                      */
/* ------------------------------------------------------------------ */

static enum rnic_psn_region
ref_classify(uint32_t psn, uint32_t epsn)
{
	uint32_t ahead = (psn - epsn) & RNIC_PSN_MASK;

	if (ahead == 0)
		return RNIC_PSN_EXPECTED;
	return ahead < RNIC_PSN_WINDOW ? RNIC_PSN_INVALID : RNIC_PSN_DUPLICATE;
}

static int
test_psn(void)
{
	const uint32_t W = RNIC_PSN_WINDOW, M = RNIC_PSN_MASK;
	const uint32_t epsns[] = { 0, 1, W - 1, W, W + 1, M - 1, M, 0x123456 };
	uint8_t b[3];

	/* 24-bit field access. */
	rnic_put24(b, 0xabcdef);
	VERIFY(b[0] == 0xab && b[1] == 0xcd && b[2] == 0xef, "");
	VERIFY(rnic_get24(b) == 0xabcdef, "");
	rnic_put24(b, 0x1fedcba);
	VERIFY(rnic_get24(b) == 0xfedcba, "");

	/* Addition wraps at 2^24. */
	VERIFY(rnic_psn_add(M, 1) == 0, "");
	VERIFY(rnic_psn_add(M - 1, 5) == 3, "");
	VERIFY(rnic_psn_add(0, M) == M, "");
	VERIFY(rnic_psn_add(0, M + 1) == 0, "");
	VERIFY(rnic_psn_add(W, W) == 0, "");
	VERIFY(rnic_psn_add(5, 0) == 5, "");

	/* Signed distance in [-2^23, 2^23). */
	VERIFY(rnic_psn_diff(0, M) == 1, "");
	VERIFY(rnic_psn_diff(M, 0) == -1, "");
	VERIFY(rnic_psn_diff(3, M - 1) == 5, "");
	VERIFY(rnic_psn_diff(W - 1, 0) == (int32_t)W - 1, "");
	VERIFY(rnic_psn_diff(W, 0) == -(int32_t)W, "");
	VERIFY(rnic_psn_diff(0, W) == -(int32_t)W, "");
	VERIFY(rnic_psn_diff(W + 1, 0) == -(int32_t)W + 1, "");
	VERIFY(rnic_psn_diff(7, 7) == 0, "");

	for (unsigned int i = 0; i < RTE_DIM(epsns); i++) {
		uint32_t e = epsns[i];

		VERIFY(rnic_psn_classify(e, e) == RNIC_PSN_EXPECTED, "e=%u", e);
		VERIFY(rnic_psn_classify(rnic_psn_add(e, 1), e) == RNIC_PSN_INVALID, "e=%u", e);
		VERIFY(rnic_psn_classify(rnic_psn_add(e, W - 1), e) == RNIC_PSN_INVALID,
		       "e=%u", e);
		VERIFY(rnic_psn_classify(rnic_psn_add(e, W), e) == RNIC_PSN_DUPLICATE,
		       "e=%u", e);
		VERIFY(rnic_psn_classify(rnic_psn_add(e, W + 1), e) == RNIC_PSN_DUPLICATE,
		       "e=%u", e);
		VERIFY(rnic_psn_classify(rnic_psn_add(e, M), e) == RNIC_PSN_DUPLICATE,
		       "e=%u", e);
		VERIFY(rnic_psn_diff(rnic_psn_add(e, W - 1), e) == (int32_t)W - 1, "e=%u", e);
		VERIFY(rnic_psn_diff(rnic_psn_add(e, W), e) == -(int32_t)W, "e=%u", e);
	}
	/* Every PSN against three expected PSNs, including both wrap points. */
	for (unsigned int i = 0; i < 3; i++) {
		uint32_t e = i == 0 ? 0 : i == 1 ? M : W, bad = 0;
		uint32_t counts[3] = { 0 };

		for (uint32_t p = 0; p <= M; p++) {
			enum rnic_psn_region r = rnic_psn_classify(p, e);

			counts[r]++;
			bad += r != ref_classify(p, e) ||
			       rnic_psn_add(e, (uint32_t)rnic_psn_diff(p, e)) != p;
		}
		VERIFY(bad == 0, "e=%u: %u PSNs misclassified", e, bad);
		VERIFY(counts[RNIC_PSN_EXPECTED] == 1 && counts[RNIC_PSN_DUPLICATE] == W &&
		       counts[RNIC_PSN_INVALID] == W - 1, "e=%u", e);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* CRC-32 and ICRC                                                     */
/* ------------------------------------------------------------------ */

static int
test_crc32(void)
{
	static uint8_t buf[4096 + 128];
	/* Around 32 (the short-buffer CRC), 256 (ISA-L's lanes and the 512-bit
	 * fold's four accumulators) and 288 (the 256-bit fold on CPUs with
	 * VPCLMULQDQ and no AVX-512), and every remainder the folds leave. */
	const uint32_t lens[] = { 0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 63, 64, 65, 127,
				  255, 256, 287, 288, 289, 319, 320, 321, 351, 352,
				  383, 384, 415, 1000, 1024, 1100, 4095, 4096 + 31,
				  4096 + 63 };

	rnd_bytes(buf, sizeof(buf));
	VERIFY(rnic_crc32(0, "123456789", 9) == 0xcbf43926u, "check value");
	VERIFY(rnic_crc32(0, buf, 0) == 0, "");
	/* Every length up to past the fold's start: the short-buffer CRC
	 * (32-287 bytes) has a path for each remainder mod 16 and each number
	 * of lanes; a register carried in from before, too. */
	for (uint32_t n = 0; n <= 320; n++)
		for (uint32_t a = 0; a < 4; a++) {
			uint32_t seed = n * 0x9e3779b9u + a;

			VERIFY(rnic_crc32(seed, buf + a, n) ==
				       (uint32_t)crc32(seed, buf + a, n),
			       "len %u align %u seed %08x", n, a, seed);
		}
	for (unsigned int i = 0; i < RTE_DIM(lens); i++) {
		uint32_t n = lens[i];

		for (uint32_t a = 0; a < 4; a++) {  /* unaligned starts too */
			uint32_t z = (uint32_t)crc32(0L, buf + a, n);

			VERIFY(rnic_crc32(0, buf + a, n) == z, "len %u align %u", n, a);
			/* Chained, split anywhere, either way round. */
			for (uint32_t cut = 0; cut <= n; cut += 1 + n / 7) {
				uint32_t c = rnic_crc32(0, buf + a, cut);

				VERIFY(rnic_crc32(c, buf + a + cut, n - cut) == z,
				       "len %u cut %u", n, cut);
				c = (uint32_t)crc32(0L, buf + a, cut);
				VERIFY(rnic_crc32(c, buf + a + cut, n - cut) == z, "");
				c = rnic_crc32(0, buf + a, cut);
				VERIFY((uint32_t)crc32(c, buf + a + cut, n - cut) == z, "");
			}
		}
	}
	return 0;
}

/* The library's ICRC equals the zlib reference for every opcode. */
static int
test_icrc_reference(void)
{
	for (unsigned int o = 0; o < 256; o++) {
		const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);

		if (oi == NULL)
			continue;
		for (uint32_t plen = 0; plen <= (oi->mask & RNIC_M_PAYLOAD ? 9u : 0u); plen++) {
			for (int v = 0; v < 2; v++) {
				uint32_t len, icrc, l3 = v ? 18 : 14;
				uint8_t *f = make_frame((uint8_t)o, v, plen, &len);

				VERIFY(f != NULL, "%s", oi->name);
				memcpy(&icrc, f + len - 4, 4);
				icrc = rte_le_to_cpu_32(icrc);
				VERIFY(icrc == ref_icrc(f, l3, len), "%s plen %u vlan %d",
				       oi->name, plen, v);
				VERIFY(rnic_icrc_calc_buf(f, l3, len) == icrc, "");
				free(f);
			}
		}
	}
	return 0;
}

/*
 * The one-pass ICRCs: in place on a frame being built (which must come
 * back unchanged) and over a masked copy for a received frame up to 512
 * bytes from the IPv4 header, both against the zlib reference, at sizes
 * around the copy limit; and every IPv4 frame of 44-300 bytes from its IP
 * header (an ACK, WRITEs and SENDs of 0-260 bytes), which the short-buffer
 * CRC reads with the masks applied as it loads (random TOS, TTL, FECN and
 * BECN: a mask not applied changes the CRC).
 */
static int
test_icrc_one_pass(void)
{
	const uint32_t plens[] = { 0, 1, 64, 200, 400, 450, 451, 452, 456, 460, 500, 1024, 4096 };
	const uint8_t ops[] = { RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY),
				RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY),
				RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK) };
	const uint32_t n_short = 261 * 2 + 1;

	for (unsigned int i = 0; i < RTE_DIM(plens) + n_short; i++) {
		/* The listed sizes as WRITEs, then the short frames. */
		uint32_t plen = i < RTE_DIM(plens) ? plens[i] : (i - RTE_DIM(plens)) / 2;
		uint8_t op = i < RTE_DIM(plens) ? ops[0] :
			     i == RTE_DIM(plens) + n_short - 1 ? ops[2] :
			     ops[(i - RTE_DIM(plens)) & 1];

		for (int v = 0; v < 2; v++) {
			uint32_t len, l3 = v ? 18 : 14;
			uint8_t *f = make_frame(op, v, op == ops[2] ? 0 : plen, &len);
			uint8_t *copy = xmalloc(len);
			uint32_t want;

			VERIFY(f != NULL, "frame");
			want = ref_icrc(f, l3, len);
			memcpy(copy, f, len);
			VERIFY(rnic_icrc_calc_buf(f, l3, len) == want, "buf plen %u op %u vlan %d",
			       plen, op, v);
			VERIFY(rnic_icrc_calc_inplace(f + l3, len - l3 - RNIC_ICRC_LEN) == want,
			       "in place plen %u op %u vlan %d", plen, op, v);
			VERIFY(memcmp(f, copy, len) == 0, "in place changed the frame");
			/* The largest short WRITE cut at every length: frames on
			 * the wire are whole 4-byte words, a malformed one need
			 * not be, and the masks then sit at every offset in
			 * the lanes. */
			for (uint32_t cut = l3 + 40 + RNIC_ICRC_LEN;
			     op == ops[0] && plen == 260 && cut <= len; cut++) {
				VERIFY(rnic_icrc_calc_buf(f, l3, cut) == ref_icrc(f, l3, cut),
				       "cut at %u vlan %d", cut, v);
				VERIFY(rnic_icrc_calc_inplace(f + l3, cut - l3 - RNIC_ICRC_LEN) ==
					       ref_icrc(f, l3, cut), "in place, cut at %u", cut);
			}
			free(copy);
			free(f);
		}
	}
	return 0;
}

/*
 * The short-frame ICRCs read nothing outside the frame: a frame of every
 * length up to 320 bytes from its IP header placed right after an
 * inaccessible page (its IP header first on the next page) and right
 * before one (its last byte the page's last), against the zlib reference.
 * The AVX-512 short CRC loads whole 64-byte blocks with the bytes outside
 * the frame masked off; a block read unmasked would fault here.
 */
static int
test_icrc_bounds(void)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	uint32_t len;
	uint8_t *f = make_frame(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY), false, 320, &len);

	VERIFY(map != MAP_FAILED && f != NULL, "mmap");
	VERIFY(mprotect(map, pg, PROT_NONE) == 0 && mprotect(map + 2 * pg, pg, PROT_NONE) == 0,
	       "mprotect");
	for (uint32_t n = RNIC_IPV4_HLEN + RNIC_UDP_HLEN + RNIC_BTH_LEN;
	     n <= len - RNIC_ETH_HLEN - RNIC_ICRC_LEN; n++) {
		/* the reference over the frame cut after n bytes of it */
		uint32_t want = ref_icrc(f, RNIC_ETH_HLEN, RNIC_ETH_HLEN + n + RNIC_ICRC_LEN);
		uint8_t *first = map + pg, *last = map + 2 * pg - n;

		memcpy(first, f + RNIC_ETH_HLEN, n);
		memcpy(last, f + RNIC_ETH_HLEN, n);
		VERIFY(rnic_icrc_calc_inplace(first, n) == want, "after a guard page, %u bytes", n);
		VERIFY(rnic_icrc_calc_inplace(last, n) == want, "before a guard page, %u bytes", n);
	}
	free(f);
	munmap(map, 3 * pg);
	return 0;
}

/* The template builder writes what rnic_pkt_build_hdrs writes, for every
 * opcode, with and without VLAN, at payload lengths around the pad. */
static int
test_tmpl_build(void)
{
	for (unsigned int o = 0; o < 256; o++) {
		const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);

		if (oi == NULL)
			continue;
		for (uint32_t plen = 0; plen < 9; plen++) {
			for (int v = 0; v < 2; v++) {
				struct rnic_l2l3 l;
				struct rnic_bth_fields b;
				struct rnic_ext_fields e;
				struct rnic_pkt_tmpl t;
				uint8_t a[256], c[256];
				uint32_t ha, hc;

				rnd_fields((uint8_t)o, v, &l, &b, &e);
				b.mig = b.fecn = b.becn = false;   /* not per packet */
				rnic_pkt_tmpl_init(&t, &l, b.pkey, b.dqpn);
				memset(a, 0xa5, sizeof(a));
				memset(c, 0xa5, sizeof(c));
				ha = rnic_pkt_build_hdrs(a, sizeof(a), &l, &b, &e, plen);
				hc = rnic_pkt_tmpl_build(c, sizeof(c), &t, &b, &e, plen);
				VERIFY(ha != 0 && ha == hc, "%s: %u vs %u bytes", oi->name, ha, hc);
				VERIFY(memcmp(a, c, ha) == 0, "%s plen %u vlan %d: headers differ",
				       oi->name, plen, v);
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Round trips                                                         */
/* ------------------------------------------------------------------ */

static int
round_trip(uint8_t opcode, bool vlan, uint32_t plen)
{
	const struct rnic_opcode_info *oi = rnic_opcode_info(opcode);
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	struct rnic_pkt pkt, pm;
	const struct rnic_ext_fields *x = &pkt.ext;
	uint32_t l3 = vlan ? 18 : 14, pad = rnic_pad_len(plen);
	uint32_t hlen, total, got, icrc;
	uint8_t *payload, *f, *small;
	rnic_opmask_t m;
	struct rte_mbuf *mb;
	enum rnic_pkt_err err;

	VERIFY(oi != NULL, "0x%02x", opcode);
	m = oi->mask;
	rnd_fields(opcode, vlan, &l, &b, &e);
	if (plen == 5)
		l.ttl = 0;  /* the builder's default */
	hlen = rnic_pkt_hdr_len(opcode, vlan, false);
	VERIFY(hlen == l3 + RNIC_IPV4_HLEN + RNIC_UDP_HLEN + oi->length, "%s", oi->name);
	total = hlen + plen + pad + RNIC_ICRC_LEN;
	payload = xmalloc(plen);
	rnd_bytes(payload, plen);

	/* One byte short: refused, and ASan sees any write past the end. */
	small = xmalloc(total - 1);
	got = rnic_pkt_build_buf(small, total - 1, &l, &b, &e, payload, plen);
	free(small);
	VERIFY(got == 0, "%s plen %u", oi->name, plen);

	f = xmalloc(total);
	got = rnic_pkt_build_buf(f, total, &l, &b, &e, payload, plen);
	VERIFY(got == total, "%s plen %u: %u != %u", oi->name, plen, got, total);
	err = rnic_pkt_parse_buf(f, total, true, &pkt);
	VERIFY(err == RNIC_PKT_ERR_OK, "%s plen %u vlan %d: %s", oi->name, plen, vlan,
	       ERRN(err));

	/* Outer headers. */
	VERIFY(memcmp(pkt.l.dst_mac, l.dst_mac, 6) == 0, "");
	VERIFY(memcmp(pkt.l.src_mac, l.src_mac, 6) == 0, "");
	VERIFY(pkt.l.vlan == vlan, "");
	VERIFY(pkt.l.vlan_tci == (vlan ? l.vlan_tci : 0), "");
	VERIFY(pkt.l.src_ip == l.src_ip && pkt.l.dst_ip == l.dst_ip, "");
	VERIFY(pkt.l.tos == l.tos, "");
	VERIFY(pkt.l.ttl == (l.ttl ? l.ttl : 64), "ttl %u", pkt.l.ttl);
	VERIFY(pkt.l.udp_sport == l.udp_sport, "");
	VERIFY(pkt.l.udp_dport == RNIC_ROCE_UDP_PORT, "");
	VERIFY(pkt.l3_off == l3, "");
	VERIFY(pkt.bth_off == l3 + RNIC_IPV4_HLEN + RNIC_UDP_HLEN, "");
	VERIFY(pkt.frame_len == total, "");

	/* BTH. */
	VERIFY(pkt.op == oi, "");
	VERIFY(pkt.bth.opcode == opcode, "");
	VERIFY(pkt.bth.se == b.se && pkt.bth.mig == b.mig, "");
	VERIFY(pkt.bth.fecn == b.fecn && pkt.bth.becn == b.becn, "");
	VERIFY(pkt.bth.ackreq == b.ackreq, "");
	VERIFY(pkt.bth.pad == pad, "pad %u", pkt.bth.pad);
	VERIFY(pkt.bth.tver == 0, "");
	VERIFY(pkt.bth.pkey == b.pkey, "");
	VERIFY(pkt.bth.dqpn == b.dqpn, "");
	VERIFY(pkt.bth.psn == b.psn, "");

	/* Extended headers: the opcode's are kept, the others read as zero. */
#define EXT(bit, field) VERIFY(x->field == ((m & (bit)) ? e.field : 0), \
			       "%s " #field, oi->name)
	EXT(RNIC_M_RETH, reth_va);
	EXT(RNIC_M_RETH, reth_rkey);
	EXT(RNIC_M_RETH, reth_len);
	EXT(RNIC_M_AETH, aeth_syn);
	EXT(RNIC_M_AETH, aeth_msn);
	EXT(RNIC_M_ATMETH, atm_va);
	EXT(RNIC_M_ATMETH, atm_rkey);
	EXT(RNIC_M_ATMETH, atm_swap_add);
	EXT(RNIC_M_ATMETH, atm_cmp);
	EXT(RNIC_M_ATMACK, atmack_orig);
	EXT(RNIC_M_IMMDT, imm);
	EXT(RNIC_M_IETH, ieth_rkey);
	EXT(RNIC_M_DETH, deth_qkey);
	EXT(RNIC_M_DETH, deth_sqp);
#undef EXT
	if (m & RNIC_M_CNP)
		for (uint32_t i = 0; i < RNIC_CNP_RSVD_LEN; i++)
			VERIFY(f[pkt.bth_off + oi->offset[RNIC_EXT_CNP] + i] == 0, "");
	if (m & RNIC_M_DETH)
		VERIFY(f[pkt.bth_off + oi->offset[RNIC_EXT_DETH] + 4] == 0, "DETH rsvd");

	/* Payload, zero pad, ICRC. */
	VERIFY(pkt.payload_off == hlen, "");
	VERIFY(pkt.payload_len == plen, "%u", pkt.payload_len);
	VERIFY(plen == 0 || memcmp(f + hlen, payload, plen) == 0, "");
	for (uint32_t i = 0; i < pad; i++)
		VERIFY(f[hlen + plen + i] == 0, "");
	memcpy(&icrc, f + total - 4, 4);
	VERIFY(pkt.icrc_wire == rte_le_to_cpu_32(icrc), "");
	VERIFY(pkt.icrc_wire == ref_icrc(f, l3, total), "");

	/* The headers-only builder writes the same bytes. */
	small = xmalloc(hlen);
	VERIFY(rnic_pkt_build_hdrs(small, hlen, &l, &b, &e, plen) == hlen, "");
	VERIFY(memcmp(small, f, hlen) == 0, "");
	free(small);

	/* Same result from a single-segment mbuf. */
	mb = make_chain(f, total, &total, 1);
	err = rnic_pkt_parse_mbuf(mb, true, &pm);
	rte_pktmbuf_free(mb);
	VERIFY(err == RNIC_PKT_ERR_OK, "%s", ERRN(err));
	VERIFY(pkt_same(&pkt, &pm), "");

	/* And the formatter names the opcode. */
	{
		char line[512];
		int n = rnic_pkt_format(line, sizeof(line), &pkt);

		VERIFY(n > 0 && (size_t)n < sizeof(line), "");
		VERIFY(strncmp(line, oi->name, strlen(oi->name)) == 0, "%s", line);
	}
	free(f);
	free(payload);
	return 0;
}

static int
test_round_trip(void)
{
	const uint32_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 63, 255, 256, 1024, 4096 };

	for (int rep = 0; rep < 3; rep++)
		for (unsigned int o = 0; o < 256; o++) {
			const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);

			if (oi == NULL)
				continue;
			for (int v = 0; v < 2; v++)
				for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
					if (s > 0 && !(oi->mask & RNIC_M_PAYLOAD))
						break;
					VERIFY(round_trip((uint8_t)o, v, sizes[s]) == 0,
					       "%s vlan %d plen %u", oi->name, v, sizes[s]);
				}
		}
	return 0;
}

/* ------------------------------------------------------------------ */
/* RoCEv2 over IPv6 (issue 21)                                         */
/* ------------------------------------------------------------------ */

/*
 * Independent IPv6 ICRC reference (IBA annex A17.3; what rxe masks): zlib's
 * crc32 over 8 bytes of ones, the IPv6 header with traffic class, flow
 * label and hop limit set to ones (the version nibble kept), UDP with its
 * checksum set to ones, BTH with FECN/BECN/resv6 set to ones, the rest.
 */
static uint32_t
ref_icrc6(const uint8_t *f, uint32_t l3, uint32_t len)
{
	uint32_t n = 8 + len - l3 - RNIC_ICRC_LEN;
	uint8_t *t = xmalloc(n);
	struct rte_ipv6_hdr *ip6 = (void *)(t + 8);
	struct rte_udp_hdr *udp = (void *)(ip6 + 1);
	struct rnic_bth *bth = (void *)(udp + 1);
	uint32_t crc;

	memset(t, 0xff, 8);
	memcpy(t + 8, f + l3, len - l3 - RNIC_ICRC_LEN);
	ip6->vtc_flow |= rte_cpu_to_be_32(0x0fffffff);
	ip6->hop_limits = 0xff;
	udp->dgram_cksum = 0xffff;
	bth->fb = 0xff;
	crc = (uint32_t)crc32(0L, t, n);
	free(t);
	return crc;
}

static void
rnd_ipv6(struct rnic_l2l3 *l)
{
	l->ipv6 = true;
	rnd_bytes(l->src_ip6, 16);
	rnd_bytes(l->dst_ip6, 16);
	l->flow_label = rnd32() & 0xfffff;
	l->src_ip = l->dst_ip = 0;
}

/*
 * rnic_pkt_icrc_ahead over one burst of mixed frames, then
 * rnic_pkt_parse_mbuf_ahead on each: every verdict is rnic_pkt_parse_mbuf's
 * whatever the frame (IPv4, IPv6, VLAN, bytes after the ICRC, two
 * segments, a bad ICRC, cut short), an ICRC is computed ahead exactly for
 * the untagged one-segment IP frames up to RNIC_ICRC_AHEAD_MAX bytes, and
 * it is the frame's.
 */
static int
test_icrc_ahead(void)
{
	static const uint32_t plens[] = { 0, 1, 64, 200, 452, 460, 1024 };
	enum { PLAIN4, VLAN4, PLAIN6, TRAILER4, BAD4, SEGS4, CUT4, BAD6_TRAILER, KINDS };
	const uint8_t op = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY);
	struct rte_mbuf *m[RTE_DIM(plens) * KINDS];
	uint64_t ahead[RTE_DIM(m)];
	uint32_t flat_len[RTE_DIM(m)], icrc_ok = 0, icrc_bad = 0, other = 0;
	unsigned int n = 0;

	for (unsigned int p = 0; p < RTE_DIM(plens); p++) {
		for (unsigned int k = 0; k < KINDS; k++, n++) {
			const bool v6 = k == PLAIN6 || k == BAD6_TRAILER;
			uint32_t plen = plens[p], len, hlen, cap;
			struct rnic_l2l3 l;
			struct rnic_bth_fields b;
			struct rnic_ext_fields e;
			uint8_t *payload = xmalloc(plen), *f;
			const uint32_t seg[] = { 40 };

			rnd_fields(op, k == VLAN4, &l, &b, &e);
			if (v6)
				rnd_ipv6(&l);
			rnd_bytes(payload, plen);
			hlen = rnic_pkt_hdr_len(op, k == VLAN4, v6);
			cap = hlen + plen + rnic_pad_len(plen) + RNIC_ICRC_LEN + 6;
			f = xmalloc(cap);
			len = rnic_pkt_build_buf(f, cap, &l, &b, &e, payload, plen);
			VERIFY(len == cap - 6, "build plen %u kind %u: %u", plen, k, len);
			if (k == TRAILER4 || k == BAD6_TRAILER) {
				memset(f + len, 0, 6);   /* a minimum frame's padding */
				len += 6;
			}
			if (k == BAD4 || k == BAD6_TRAILER)
				f[len - (k == BAD6_TRAILER ? 6 : 0) - 1] ^= 0x40;   /* the ICRC */
			if (k == CUT4)
				len--;
			flat_len[n] = len;
			m[n] = k == SEGS4 ? make_chain(f, len, seg, 2) : make_chain(f, len, NULL, 1);
			free(payload);
			free(f);
		}
	}
	rnic_pkt_icrc_ahead(m, n, ahead);
	for (unsigned int i = 0; i < n; i++) {
		const unsigned int k = i % KINDS;
		const bool want = (k == PLAIN4 || k == PLAIN6 || k == TRAILER4 || k == BAD4 ||
				   k == CUT4 || k == BAD6_TRAILER) && flat_len[i] <= RNIC_ICRC_AHEAD_MAX;
		struct rnic_pkt p1, p2;
		enum rnic_pkt_err e1 = rnic_pkt_parse_mbuf(m[i], true, &p1);
		enum rnic_pkt_err e2 = rnic_pkt_parse_mbuf_ahead(m[i], ahead[i], &p2);

		VERIFY(e1 == e2, "frame %u (kind %u, %u bytes): %d ahead, %d not", i, k,
		       flat_len[i], e2, e1);
		VERIFY((ahead[i] != 0) == want, "frame %u (kind %u, %u bytes): ahead %d", i, k,
		       flat_len[i], ahead[i] != 0);
		if (want && (k == PLAIN4 || k == PLAIN6))
			VERIFY((uint32_t)ahead[i] == p1.icrc_wire, "frame %u: the ICRC ahead", i);
		icrc_ok += e1 == RNIC_PKT_ERR_OK;
		icrc_bad += e1 == RNIC_PKT_ERR_ICRC;
		other += e1 != RNIC_PKT_ERR_OK && e1 != RNIC_PKT_ERR_ICRC;
		rte_pktmbuf_free(m[i]);
	}
	/* good, bad and malformed frames among them */
	VERIFY(icrc_ok == RTE_DIM(plens) * 5 && icrc_bad == RTE_DIM(plens) * 2 &&
	       other == RTE_DIM(plens), "%u ok, %u bad ICRC, %u other", icrc_ok, icrc_bad, other);
	return 0;
}

/*
 * Header prediction (rnic_pkt_rc_write) against the parser: over valid
 * frames of the one form (the four RC WRITE packets without immediate)
 * and its neighbours (other opcodes, VLAN, IPv6, padding after the ICRC,
 * two segments) and over frames with a header byte changed (then the
 * IPv4 checksum and the ICRC fixed, or not), truncated or with a bad
 * ICRC, the fast test says yes exactly where rnic_pkt_parse_mbuf accepts
 * an untagged IPv4 RC WRITE First, Middle, Last or Only without SRETH
 * that ends its one segment, and then reads the fields it does; with the
 * ICRC computed ahead (rnic_pkt_icrc_ahead) or not.
 */
static int
test_rc_write(void)
{
	static const uint8_t ours[] = {
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_FIRST),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_MIDDLE),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_LAST),
	};
	static const uint8_t others[] = {
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY_IMM),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_LAST_IMM),
		RNIC_OPC(RNIC_TRANSPORT_UC, RNIC_OP_WRITE_ONLY),
		RNIC_OPC(RNIC_TRANSPORT_UC, RNIC_OP_WRITE_MIDDLE),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY),
		RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_MIDDLE),
	};
	unsigned int yes = 0, no_ok = 0, no_err = 0;

	for (unsigned int it = 0; it < 8000; it++) {
		const uint32_t r = rnd32();
		const uint8_t op = r % 4 ? ours[(r >> 2) % RTE_DIM(ours)] :
				   others[(r >> 2) % RTE_DIM(others)];
		const bool vlan = (r >> 5) % 8 == 0, v6 = (r >> 8) % 8 == 0;
		const uint32_t plen = (r >> 11) % 16 == 0 ? 1024 + rnd32() % 8 :
				      (r >> 11) % 16 < 4 ? 0 : rnd32() % 300;
		const unsigned int how = (r >> 15) % 8;
		uint32_t hlen = rnic_pkt_hdr_len(op, vlan, v6), cap, len, l3, ic;
		struct rnic_l2l3 l;
		struct rnic_bth_fields b;
		struct rnic_ext_fields e;
		struct rnic_rc_write f;
		struct rnic_pkt p;
		struct rte_mbuf *m;
		uint8_t *payload = xmalloc(plen), *fr;
		uint64_t ahead = 0;
		enum rnic_pkt_err err;
		bool fast, want;

		rnd_fields(op, vlan, &l, &b, &e);
		if (v6)
			rnd_ipv6(&l);
		b.sr = false;
		rnd_bytes(payload, plen);
		cap = hlen + plen + rnic_pad_len(plen) + RNIC_ICRC_LEN + 8;
		fr = xmalloc(cap);
		len = rnic_pkt_build_buf(fr, cap, &l, &b, &e, payload, plen);
		VERIFY(len == cap - 8, "build %#x plen %u: %u", op, plen, len);
		l3 = l3_of(fr);
		if (how == 1 || how == 2) {
			/* a header byte changed (half the time one the test
			 * looks at: IPv4 version and length, fragment bits
			 * and protocol, BTH's opcode, flags and AckReq/SR
			 * byte), then (2) the sums made good */
			const uint32_t bth = hlen - (uint32_t)rnic_opcode_info(op)->length;
			const uint32_t at[] = { l3, l3 + 6, l3 + 9, bth, bth + 1, bth + 8 };

			fr[rnd32() % 2 ? at[rnd32() % RTE_DIM(at)] : rnd32() % hlen] ^=
				(uint8_t)(1u << (rnd32() % 8));
			if (how == 2) {
				if (!v6 && (fr[l3] >> 4) == 4 && l3 + (fr[l3] & 0xfu) * 4 <= cap)
					fix_ip_csum(fr, l3);
				ic = rte_cpu_to_le_32(rnic_icrc_calc_buf(fr, l3, len));
				memcpy(fr + len - RNIC_ICRC_LEN, &ic, 4);
			}
		} else if (how == 3) {
			fr[len - 1 - rnd32() % RNIC_ICRC_LEN] ^= 0x10;   /* the ICRC */
		} else if (how == 4) {
			len -= 1 + rnd32() % (len - 1);   /* cut short */
		} else if (how == 5) {
			memset(fr + len, 0, 8);   /* Ethernet padding after the ICRC */
			len += 1 + rnd32() % 8;
		}
		if (how == 6 && len > 60) {
			const uint32_t seg[] = { 20 + rnd32() % (len - 40) };

			m = make_chain(fr, len, seg, 2);
		} else {
			m = make_chain(fr, len, NULL, 1);
		}
		if (r & (1u << 31))
			rnic_pkt_icrc_ahead(&m, 1, &ahead);
		fast = rnic_pkt_rc_write(m, ahead, &f);
		err = rnic_pkt_parse_mbuf(m, true, &p);
		want = err == RNIC_PKT_ERR_OK && memchr(ours, p.bth.opcode, sizeof(ours)) &&
		       !p.l.vlan && !p.l.ipv6 && !p.bth.sr && m->nb_segs == 1 &&
		       p.frame_len == m->pkt_len;
		EXPECT(fast == want, "frame %u (opcode %#x vlan %d ipv6 %d plen %u how %u): "
		       "fast %d, parse %s", it, op, vlan, v6, plen, how, fast, ERRN(err));
		if (fast && want) {
			EXPECT(memcmp(f.dst_mac, p.l.dst_mac, 6) == 0 && f.va == p.ext.reth_va &&
			       f.rkey == p.ext.reth_rkey && f.dma_len == p.ext.reth_len &&
			       f.payload_len == p.payload_len && f.payload_off == p.payload_off &&
			       f.dst_ip == p.l.dst_ip && f.dqpn == p.bth.dqpn &&
			       f.psn == p.bth.psn && f.pkey == p.bth.pkey && f.tos == p.l.tos &&
			       f.ackreq == p.bth.ackreq && f.opcode == p.bth.opcode,
			       "frame %u: the fields differ", it);
		}
		yes += fast;
		no_ok += !fast && err == RNIC_PKT_ERR_OK;
		no_err += !fast && err != RNIC_PKT_ERR_OK;
		rte_pktmbuf_free(m);
		free(payload);
		free(fr);
	}
	/* each side of the test met often */
	VERIFY(yes >= 1000 && no_ok >= 1000 && no_err >= 1000, "%u fast, %u parsed in full, "
	       "%u refused", yes, no_ok, no_err);
	return 0;
}

/*
 * rnic_icrc_copy_seal (TX's copy of the payload with the ICRC, in one pass
 * where the CPU has a fold: 256-bit with VPCLMULQDQ, 512-bit with AVX-512
 * too) against the frame the builder makes
 * and the zlib reference: the payload and pad copied and zeroed, the
 * headers as they were, the ICRC equal, nothing written where the ICRC
 * goes. The receive side's rnic_icrc_calc_buf and _mbuf over the same
 * frames. IPv4 and IPv6, with and without VLAN, payloads around the one-pass
 * threshold and the fold's steps.
 */
static int
test_icrc_copy_seal(void)
{
	static const uint32_t plens[] = { 0, 1, 3, 64, 287, 511, 512, 513, 515, 540, 575,
					  576, 600, 1000, 1024, 1025, 2047, 4093, 4096 };
	/* then 2048-2111: every remainder mod 64, so that the 512-bit fold's
	 * end meets every count of bytes left after its last step (0-16
	 * with the pad) */
	const unsigned int n_lens = RTE_DIM(plens) + 64;
	const uint8_t ops[] = { RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY),
				RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY) };

	for (unsigned int i = 0; i < n_lens; i++)
		for (unsigned int k = 0; k < 8; k++) {
			uint8_t op = ops[k & 1];
			bool vlan = k & 2, v6 = k & 4;
			uint32_t plen = i < RTE_DIM(plens) ? plens[i] : 2048 + i - RTE_DIM(plens);
			uint32_t pad = rnic_pad_len(plen), l3 = vlan ? 18 : 14;
			uint32_t hlen = rnic_pkt_hdr_len(op, vlan, v6) - l3, len, total, icrc, ref;
			struct rte_mbuf *mb;
			struct rnic_l2l3 l;
			struct rnic_bth_fields b;
			struct rnic_ext_fields e;
			uint8_t *payload = xmalloc(plen + 1), *f, *g;

			total = l3 + hlen + plen + pad + RNIC_ICRC_LEN;
			f = xmalloc(total);
			g = xmalloc(total);
			rnd_fields(op, vlan, &l, &b, &e);
			if (v6)
				rnd_ipv6(&l);
			rnd_bytes(payload, plen);
			len = rnic_pkt_build_buf(f, total, &l, &b, &e, payload, plen);
			VERIFY(len == total, "plen %u", plen);
			memcpy(g, f, l3 + hlen);
			memset(g + l3 + hlen, 0x5a, total - l3 - hlen);
			icrc = rnic_icrc_copy_seal(g + l3, hlen, payload, plen, pad);
			ref = v6 ? ref_icrc6(f, l3, len) : ref_icrc(f, l3, len);
			VERIFY(icrc == ref, "plen %u op %u vlan %d v6 %d", plen, op, vlan, v6);
			/* The receive side's check, flat and in one mbuf (from
			 * 512 bytes the fold reads the frame where it lies). */
			VERIFY(rnic_icrc_calc_buf(f, l3, len) == ref, "calc_buf plen %u v6 %d", plen, v6);
			mb = rte_pktmbuf_alloc(mp);
			VERIFY(mb != NULL && rte_pktmbuf_append(mb, (uint16_t)len) != NULL, "mbuf");
			memcpy(rte_pktmbuf_mtod(mb, uint8_t *), f, len);
			icrc = rnic_icrc_calc_mbuf(mb, l3, len);
			rte_pktmbuf_free(mb);
			VERIFY(icrc == ref, "calc_mbuf plen %u v6 %d", plen, v6);
			VERIFY(memcmp(g, f, len - RNIC_ICRC_LEN) == 0, "plen %u: frame differs", plen);
			for (uint32_t j = len - RNIC_ICRC_LEN; j < len; j++)
				VERIFY(g[j] == 0x5a, "plen %u: wrote the ICRC's place", plen);
			free(payload);
			free(f);
			free(g);
		}
	return 0;
}

/* Build, parse (flat, one and three segments), template, ICRC of one IPv6
 * frame; the masked fields change nothing, an address byte breaks it. */
static int
round_trip6(uint8_t opcode, bool vlan, uint32_t plen)
{
	const struct rnic_opcode_info *oi = rnic_opcode_info(opcode);
	uint32_t l3 = vlan ? 18 : 14, pad = rnic_pad_len(plen), hlen, total, icrc;
	const uint32_t seg3[] = { l3 + 20, 30 };
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	struct rnic_pkt pkt, pm;
	struct rnic_pkt_tmpl t;
	uint8_t *payload, *f, hdr[256];
	struct rte_ipv6_hdr *ip6;
	struct rte_mbuf *mb;
	enum rnic_pkt_err err;
	uint32_t dqpn;

	rnd_fields(opcode, vlan, &l, &b, &e);
	rnd_ipv6(&l);
	if (plen == 5)
		l.ttl = 0;   /* the builder's default hop limit */
	hlen = rnic_pkt_hdr_len(opcode, vlan, true);
	VERIFY(hlen == l3 + RNIC_IPV6_HLEN + RNIC_UDP_HLEN + oi->length, "%s", oi->name);
	total = hlen + plen + pad + RNIC_ICRC_LEN;
	payload = xmalloc(plen);
	rnd_bytes(payload, plen);
	f = xmalloc(total);
	VERIFY(rnic_pkt_build_buf(f, total, &l, &b, &e, payload, plen) == total, "%s", oi->name);
	VERIFY(f[l3 - 2] == 0x86 && f[l3 - 1] == 0xdd, "ethertype");
	ip6 = (void *)(f + l3);
	VERIFY(rte_be_to_cpu_32(ip6->vtc_flow) ==
	       ((6u << 28) | ((uint32_t)l.tos << 20) | l.flow_label), "vtc_flow");
	VERIFY(rte_be_to_cpu_16(ip6->payload_len) == total - l3 - RNIC_IPV6_HLEN, "");
	VERIFY(ip6->proto == IPPROTO_UDP, "");
	VERIFY(((struct rte_udp_hdr *)(ip6 + 1))->dgram_cksum == 0, "UDP checksum 0");

	err = rnic_pkt_parse_buf(f, total, true, &pkt);
	VERIFY(err == RNIC_PKT_ERR_OK, "%s plen %u vlan %d: %s", oi->name, plen, vlan, ERRN(err));
	VERIFY(pkt.l.ipv6 && pkt.l3_off == l3, "");
	VERIFY(memcmp(pkt.l.src_ip6, l.src_ip6, 16) == 0, "");
	VERIFY(memcmp(pkt.l.dst_ip6, l.dst_ip6, 16) == 0, "");
	VERIFY(pkt.l.tos == l.tos && pkt.l.flow_label == l.flow_label, "");
	VERIFY(pkt.l.ttl == (l.ttl ? l.ttl : RNIC_IPV6_HOPS_DEFAULT), "hops %u", pkt.l.ttl);
	VERIFY(pkt.bth_off == l3 + RNIC_IPV6_HLEN + RNIC_UDP_HLEN, "");
	VERIFY(pkt.frame_len == total && pkt.payload_off == hlen && pkt.payload_len == plen, "");
	VERIFY(pkt.bth.opcode == opcode && pkt.bth.dqpn == b.dqpn && pkt.bth.psn == b.psn, "");
	VERIFY(pkt.bth.pkey == b.pkey && pkt.bth.pad == pad && pkt.bth.ackreq == b.ackreq, "");
	if (oi->mask & RNIC_M_RETH)
		VERIFY(pkt.ext.reth_va == e.reth_va && pkt.ext.reth_len == e.reth_len, "");
	if (oi->mask & RNIC_M_DETH)
		VERIFY(pkt.ext.deth_qkey == e.deth_qkey && pkt.ext.deth_sqp == e.deth_sqp, "");
	VERIFY(plen == 0 || memcmp(f + hlen, payload, plen) == 0, "");
	memcpy(&icrc, f + total - 4, 4);
	VERIFY(rte_le_to_cpu_32(icrc) == ref_icrc6(f, l3, total), "%s: ICRC vs reference",
	       oi->name);
	VERIFY(rnic_icrc_calc_inplace(f + l3, total - l3 - RNIC_ICRC_LEN) == pkt.icrc_wire, "");

	/* The template and the headers-only builder write the same bytes. */
	b.mig = b.fecn = b.becn = false;
	VERIFY(rnic_pkt_build_hdrs(hdr, sizeof(hdr), &l, &b, &e, plen) == hlen, "");
	VERIFY(memcmp(hdr, f, pkt.bth_off) == 0, "Eth/IPv6/UDP as the full build");
	rnic_pkt_tmpl_init(&t, &l, b.pkey, b.dqpn);
	{
		uint8_t c[256];

		memset(c, 0xa5, sizeof(c));
		VERIFY(rnic_pkt_tmpl_build(c, sizeof(c), &t, &b, &e, plen) == hlen, "");
		VERIFY(memcmp(c, hdr, hlen) == 0, "%s vlan %d: template differs", oi->name, vlan);
	}

	/* mbufs: one segment, three segments (the IPv6 header split). */
	mb = make_chain(f, total, &total, 1);
	err = rnic_pkt_parse_mbuf(mb, true, &pm);
	VERIFY(err == RNIC_PKT_ERR_OK && pkt_same(&pkt, &pm), "%s", ERRN(err));
	VERIFY(rnic_pkt_peek_dqpn(mb, &dqpn) && dqpn == b.dqpn, "peek");
	rte_pktmbuf_free(mb);
	if (total > seg3[0] + seg3[1]) {
		mb = make_chain(f, total, seg3, 3);
		VERIFY(rnic_icrc_calc_mbuf(mb, l3, total) == pkt.icrc_wire, "3 segments");
		err = rnic_pkt_parse_mbuf(mb, true, &pm);
		VERIFY(err == RNIC_PKT_ERR_OK && pkt_same(&pkt, &pm), "");
		chain_write(mb, total - 4, "\0\0\0\0", 4);
		rnic_pkt_finish_icrc_mbuf(mb, l3);
		VERIFY(rnic_icrc_calc_mbuf(mb, l3, total) == pkt.icrc_wire, "");
		VERIFY(rnic_pkt_parse_mbuf(mb, true, &pm) == RNIC_PKT_ERR_OK, "finish_icrc");
		rte_pktmbuf_free(mb);
	}

	/* Invariant masking: traffic class, flow label, hop limit may change
	 * on the way; an address may not. */
	ip6->vtc_flow ^= rte_cpu_to_be_32(0x0ff12345);
	ip6->hop_limits ^= 0x3c;
	((struct rte_udp_hdr *)(ip6 + 1))->dgram_cksum = 0x1234;
	VERIFY(rnic_pkt_parse_buf(f, total, true, &pm) == RNIC_PKT_ERR_OK, "masked fields");
	ip6->src_addr[15] ^= 1;
	VERIFY(rnic_pkt_parse_buf(f, total, true, &pm) == RNIC_PKT_ERR_ICRC, "address");
	free(f);
	free(payload);
	return 0;
}

/* Every opcode over IPv6, tagged and not; the outer-header refusals. */
static int
test_ipv6(void)
{
	const uint32_t sizes[] = { 0, 1, 3, 5, 64, 1024, 4096 };
	struct rnic_l2l3 l;
	struct rnic_bth_fields b;
	struct rnic_ext_fields e;
	uint8_t f[512], g[512];
	uint32_t len, l3 = RNIC_ETH_HLEN;
	struct rte_ipv6_hdr *ip6 = (void *)(f + l3);
	struct rte_udp_hdr *udp = (void *)(ip6 + 1);
	uint8_t payload[64] = { 0 };

	for (unsigned int o = 0; o < 256; o++) {
		const struct rnic_opcode_info *oi = rnic_opcode_info((uint8_t)o);

		if (oi == NULL)
			continue;
		for (int v = 0; v < 2; v++)
			for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
				if (s > 0 && !(oi->mask & RNIC_M_PAYLOAD))
					break;
				VERIFY(round_trip6((uint8_t)o, v, sizes[s]) == 0,
				       "%s vlan %d plen %u", oi->name, v, sizes[s]);
			}
	}

	rnd_fields(RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY), false, &l, &b, &e);
	rnd_ipv6(&l);
	len = rnic_pkt_build_buf(g, sizeof(g), &l, &b, &e, payload, sizeof(payload));
	VERIFY(len == 14 + 40 + 8 + 12 + 16 + 64 + 4, "%u", len);
	/* TRUNC_L3: an IPv6 ethertype, no room for its header. */
	for (uint32_t n = l3; n < l3 + RNIC_IPV6_HLEN; n++)
		CHECK_ERR(g, n, RNIC_PKT_ERR_TRUNC_L3);
	/* IP_VERSION: version 4 under the IPv6 ethertype. */
	memcpy(f, g, len);
	f[l3] = (uint8_t)((f[l3] & 0x0f) | 0x40);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_VERSION);
	/* OTHER_L4: TCP, or a hop-by-hop extension header. */
	memcpy(f, g, len);
	ip6->proto = IPPROTO_TCP;
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_L4);
	ip6->proto = 0;
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_L4);
	/* IP_LEN: past the frame; shorter than UDP. */
	memcpy(f, g, len);
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)(len - l3 - RNIC_IPV6_HLEN + 1));
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_LEN);
	ip6->payload_len = rte_cpu_to_be_16(RNIC_UDP_HLEN - 1);
	CHECK_ERR(f, len, RNIC_PKT_ERR_IP_LEN);
	/* UDP_LEN: disagrees with the payload length. */
	memcpy(f, g, len);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - l3 - RNIC_IPV6_HLEN - 4));
	CHECK_ERR(f, len, RNIC_PKT_ERR_UDP_LEN);
	/* OTHER_PORT. */
	memcpy(f, g, len);
	udp->dst_port = rte_cpu_to_be_16(RNIC_ROCE_UDP_PORT + 1);
	CHECK_ERR(f, len, RNIC_PKT_ERR_OTHER_PORT);
	/* Ethernet padding after the IPv6 payload is not part of the frame. */
	memcpy(f, g, len);
	memset(f + len, 0, 8);
	CHECK_ERR(f, len + 8, RNIC_PKT_ERR_OK);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CM MADs (issue 21; field layout cross-checked by wire-cm-tshark)    */
/* ------------------------------------------------------------------ */

/* Random bytes through decode -> encode -> decode: the second decode
 * equals the first (every field maps back onto the bits it came from),
 * and a MAD encoded from a decoded one keeps every bit a field covers. */
static int
test_cm_mad(void)
{
	static const uint16_t attrs[] = { RNIC_CM_REQ, RNIC_CM_MRA, RNIC_CM_REJ, RNIC_CM_REP,
					  RNIC_CM_RTU, RNIC_CM_DREQ, RNIC_CM_DREP,
					  RNIC_CM_SIDR_REQ, RNIC_CM_SIDR_REP };
	uint8_t mad[RNIC_MAD_LEN], again[RNIC_MAD_LEN];
	struct rnic_cm_msg a, b;
	struct rnic_cma_hdr h, h2;

	for (int rep = 0; rep < 200; rep++)
		for (unsigned int i = 0; i < RTE_DIM(attrs); i++) {
			rnd_bytes(mad, sizeof(mad));
			mad[0] = RNIC_MAD_BASE_VERSION;
			mad[1] = RNIC_MGMT_CLASS_CM;
			mad[2] = RNIC_CM_CLASS_VERSION;
			mad[3] = RNIC_MAD_METHOD_SEND;
			mad[16] = (uint8_t)(attrs[i] >> 8);
			mad[17] = (uint8_t)attrs[i];
			VERIFY(rnic_cm_decode(mad, sizeof(mad), &a) == RNIC_MAD_OK, "decode 0x%x",
			       attrs[i]);
			VERIFY(rnic_cm_encode(&a, again) == 0, "encode");
			VERIFY(rnic_cm_decode(again, sizeof(again), &b) == RNIC_MAD_OK, "decode again");
			VERIFY(memcmp(&a, &b, sizeof(a)) == 0, "%s: decode(encode(decode)) differs",
			       rnic_cm_attr_name(attrs[i]));
			/* the MAD header but its 2 reserved bytes (18, 19) */
			VERIFY(memcmp(mad, again, 18) == 0 && memcmp(mad + 20, again + 20, 4) == 0,
			       "MAD header kept");
		}
	/* Known values at IBA's places: REQ local QPN (byte 32, 24 bits),
	 * starting PSN (44), retry count (low 3 bits of 47), the private
	 * data at 140; REJ reason (10, 16 bits). */
	memset(&a, 0, sizeof(a));
	a.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = 7, .class_version = 2,
				       .method = 3, .tid = 0x0102030405060708ull,
				       .attr_id = RNIC_CM_REQ };
	a.req.local_qpn = 0xabcdef;
	a.req.starting_psn = 0x123456;
	a.req.retry_count = 5;
	a.req.local_cm_response_timeout = 0x1f;
	a.req.private_data[0] = 0x77;
	VERIFY(rnic_cm_encode(&a, mad) == 0, "");
	VERIFY(mad[8] == 1 && mad[15] == 8 && mad[17] == 0x10, "TID and attribute ID");
	VERIFY(mad[24 + 32] == 0xab && mad[24 + 33] == 0xcd && mad[24 + 34] == 0xef, "QPN");
	VERIFY(mad[24 + 44] == 0x12 && mad[24 + 46] == 0x56 && mad[24 + 47] == 0xfd,
	       "PSN, response timeout and retry count: %02x", mad[24 + 47]);
	VERIFY(mad[24 + 140] == 0x77 && mad[RNIC_MAD_LEN - 1] == 0, "private data");
	memset(&a, 0, sizeof(a));
	a.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = 7, .class_version = 2,
				       .method = 3, .attr_id = RNIC_CM_REJ };
	a.rej.reason = RNIC_CM_REJ_INVALID_SERVICE;
	a.rej.message_rejected = 2;
	VERIFY(rnic_cm_encode(&a, mad) == 0 && mad[24 + 10] == 0 && mad[24 + 11] == 8 &&
	       mad[24 + 8] == 0x80, "REJ reason and message rejected");
	/* SIDR (tshark has no SIDR dissector: IBA tables 119 and 120 as the
	 * kernel's ibta_vol1_c12.h places them): SIDR_REQ's P_Key at 4, its
	 * service ID at 8, private data at 16; SIDR_REP's status at 4, QPN
	 * at 8 (24 bits), service ID at 12, Q_Key at 20, private data at 96. */
	memset(&a, 0, sizeof(a));
	a.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = 7, .class_version = 2,
				       .method = 3, .attr_id = RNIC_CM_SIDR_REQ };
	a.sidr_req.request_id = 0x11223344;
	a.sidr_req.pkey = 0xffff;
	a.sidr_req.service_id = RNIC_CM_SID_PS_UDP | 7174;
	a.sidr_req.private_data[0] = 0x5a;
	VERIFY(rnic_cm_encode(&a, mad) == 0 && mad[17] == 0x17 && mad[24] == 0x11 &&
	       mad[24 + 3] == 0x44 && mad[24 + 4] == 0xff && mad[24 + 5] == 0xff &&
	       mad[24 + 12] == 0x01 && mad[24 + 13] == 0x11 && mad[24 + 14] == 0x1c &&
	       mad[24 + 15] == 0x06 && mad[24 + 16] == 0x5a, "SIDR_REQ fields at IBA's places");
	memset(&a, 0, sizeof(a));
	a.hdr = (struct rnic_mad_hdr){ .base_version = 1, .mgmt_class = 7, .class_version = 2,
				       .method = 3, .attr_id = RNIC_CM_SIDR_REP };
	a.sidr_rep.request_id = 0x11223344;
	a.sidr_rep.status = 2;
	a.sidr_rep.qpn = 0xabcdef;
	a.sidr_rep.service_id = RNIC_CM_SID_PS_UDP | 7174;
	a.sidr_rep.qkey = RNIC_CMA_UDP_QKEY;
	a.sidr_rep.private_data[0] = 0x5b;
	VERIFY(rnic_cm_encode(&a, mad) == 0 && mad[17] == 0x18 && mad[24 + 4] == 2 &&
	       mad[24 + 8] == 0xab && mad[24 + 10] == 0xef && mad[24 + 11] == 0 &&
	       mad[24 + 19] == 0x06 && mad[24 + 20] == 0x01 && mad[24 + 23] == 0x67 &&
	       mad[24 + 96] == 0x5b, "SIDR_REP fields at IBA's places");
	/* Refusals. */
	a.hdr.attr_id = 0x0019;   /* LAP: not carried */
	VERIFY(rnic_cm_encode(&a, mad) == -1, "unknown attribute encoded");
	a.hdr.attr_id = RNIC_CM_RTU;
	VERIFY(rnic_cm_encode(&a, mad) == 0, "");
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN - 1, &b) == RNIC_MAD_SHORT, "short");
	mad[0] = 2;
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN, &b) == RNIC_MAD_VERSION, "base version");
	mad[0] = 1, mad[1] = 0x81;
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN, &b) == RNIC_MAD_CLASS, "class");
	mad[1] = 7, mad[2] = 1;
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN, &b) == RNIC_MAD_CLASS, "class version");
	mad[2] = 2, mad[3] = 0x81;
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN, &b) == RNIC_MAD_METHOD, "method");
	mad[3] = 3, mad[17] = 0x19;
	VERIFY(rnic_cm_decode(mad, RNIC_MAD_LEN, &b) == RNIC_MAD_ATTR && b.hdr.attr_id == 0x19,
	       "attribute");
	VERIFY(rnic_cm_attr_name(0x19) == NULL && strcmp(rnic_cm_attr_name(0x16), "DREP") == 0, "");
	/* The rdma_cm header. */
	memset(&h, 0, sizeof(h));
	h.ip_version = 6;
	h.src_port = 0xbeef;
	rnd_bytes(h.src_addr, 16);
	rnd_bytes(h.dst_addr, 16);
	rnic_cma_hdr_encode(&h, mad);
	VERIFY(mad[0] == 0 && mad[1] == 0x60 && mad[2] == 0xbe && mad[3] == 0xef, "cma header");
	VERIFY(rnic_cma_hdr_decode(mad, RNIC_CMA_HDR_LEN, &h2) == 0 &&
	       memcmp(&h, &h2, sizeof(h)) == 0, "cma round trip");
	VERIFY(rnic_cma_hdr_decode(mad, RNIC_CMA_HDR_LEN - 1, &h2) == -1, "cma short");
	mad[1] = 0x50;
	VERIFY(rnic_cma_hdr_decode(mad, RNIC_CMA_HDR_LEN, &h2) == -1, "cma IP version 5");
	mad[1] = 0x40, mad[0] = 1;
	VERIFY(rnic_cma_hdr_decode(mad, RNIC_CMA_HDR_LEN, &h2) == -1, "cma version 1");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Multi-segment mbufs                                                 */
/* ------------------------------------------------------------------ */

/*
 * Check one segmentation of frame @p f: ICRC, parse, and
 * rnic_pkt_finish_icrc_mbuf rewriting a zeroed ICRC.
 */
static int
check_chain(const uint8_t *f, uint32_t len, const uint32_t *seg, unsigned int nseg,
	    const struct rnic_pkt *ref)
{
	struct rte_mbuf *m = make_chain(f, len, seg, nseg);
	static uint8_t lin[8192];
	struct rnic_pkt pkt;
	enum rnic_pkt_err e;
	const uint8_t zero[4] = { 0 }, flip = 0x5a;
	uint32_t l3 = ref->l3_off;
	const void *p;

	VERIFY(rte_pktmbuf_pkt_len(m) == len && m->nb_segs == nseg, "");
	VERIFY(rnic_icrc_calc_mbuf(m, l3, len) == ref->icrc_wire,
	       "nseg %u seg0 %u", nseg, seg[0]);
	e = rnic_pkt_parse_mbuf(m, true, &pkt);
	VERIFY(e == RNIC_PKT_ERR_OK, "nseg %u seg0 %u: %s", nseg, seg[0], ERRN(e));
	VERIFY(pkt_same(&pkt, ref), "nseg %u", nseg);

	chain_write(m, len - RNIC_ICRC_LEN, zero, 4);
	VERIFY(rnic_pkt_parse_mbuf(m, true, &pkt) == RNIC_PKT_ERR_ICRC, "");
	rnic_pkt_finish_icrc_mbuf(m, l3);
	p = rte_pktmbuf_read(m, 0, len, lin);
	VERIFY(p != NULL && memcmp(p, f, len) == 0, "finish_icrc nseg %u seg0 %u",
	       nseg, seg[0]);
	VERIFY(rte_mbuf_check(m, 1, NULL) == 0, "");

	/* A changed payload or BTH byte is caught across segments too. */
	chain_write(m, len - RNIC_ICRC_LEN - 1, &flip, 1);
	VERIFY(rnic_pkt_parse_mbuf(m, true, &pkt) == RNIC_PKT_ERR_ICRC, "");
	rte_pktmbuf_free(m);
	return 0;
}

static int
test_multiseg(void)
{
	const struct {
		uint8_t opcode;
		bool vlan;
		uint32_t plen;
	} cases[] = {
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), false, 1024 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_CMP_SWAP), false, 0 },
		{ RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY_IMM), true, 3 },
		{ RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY), false, 0 },
		{ RNIC_OPCODE_CNP, true, 0 },
	};
	static uint32_t seg[8192];

	for (unsigned int c = 0; c < RTE_DIM(cases); c++) {
		uint32_t len;
		uint8_t *f = make_frame(cases[c].opcode, cases[c].vlan, cases[c].plen, &len);
		struct rnic_pkt ref;
		uint32_t l3, bo, cuts[16], nc = 0;

		VERIFY(f != NULL, "");
		VERIFY(rnic_pkt_parse_buf(f, len, true, &ref) == RNIC_PKT_ERR_OK, "");
		l3 = ref.l3_off;
		bo = ref.bth_off;

		/* Two segments, every cut, empty first or last segment included. */
		for (uint32_t cut = 0; cut <= len; cut++) {
			seg[0] = cut;
			VERIFY(check_chain(f, len, seg, 2, &ref) == 0, "cut %u", cut);
		}

		/* Three segments: cuts in Eth, IPv4, UDP, BTH, ext, payload, ICRC. */
		cuts[nc++] = 5;
		cuts[nc++] = l3 + 3;
		cuts[nc++] = l3 + RNIC_IPV4_HLEN + 2;
		cuts[nc++] = bo + 1;
		cuts[nc++] = bo + 5;
		cuts[nc++] = bo + RNIC_BTH_LEN;
		cuts[nc++] = bo + RNIC_BTH_LEN + 2;
		cuts[nc++] = ref.payload_off + 1;
		cuts[nc++] = len - 4;
		cuts[nc++] = len - 3;
		cuts[nc++] = len - 2;
		cuts[nc++] = len - 1;
		for (uint32_t i = 0; i < nc; i++)
			for (uint32_t j = i + 1; j < nc; j++) {
				if (cuts[j] <= cuts[i] || cuts[j] > len)
					continue;
				seg[0] = cuts[i];
				seg[1] = cuts[j] - cuts[i];
				VERIFY(check_chain(f, len, seg, 3, &ref) == 0,
				       "cuts %u %u", cuts[i], cuts[j]);
			}

		/* Many segments: fixed sizes 1..9, then random sizes. */
		for (uint32_t sz = 1; sz <= 9; sz++) {
			uint32_t n = (len + sz - 1) / sz;

			for (uint32_t i = 0; i < n; i++)
				seg[i] = sz;
			VERIFY(check_chain(f, len, seg, n, &ref) == 0, "size %u", sz);
		}
		for (int rep = 0; rep < 20; rep++) {
			uint32_t n = 0, off = 0;

			while (off < len) {
				uint32_t s = RTE_MIN(1 + rnd32() % 48, len - off);

				seg[n++] = s;
				off += s;
			}
			VERIFY(check_chain(f, len, seg, n, &ref) == 0, "random %d", rep);
		}
		free(f);
	}
	return 0;
}

/*
 * The TX shape: headers built in one mbuf, the payload in others, the pad
 * and ICRC room in the last, then rnic_pkt_finish_icrc_mbuf. Also a frame
 * followed by Ethernet padding inside the mbuf.
 */
static int
test_mbuf_tx(void)
{
	const uint32_t sizes[] = { 0, 1, 3, 4, 255, 1024, 3000 };

	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		struct rnic_l2l3 l;
		struct rnic_bth_fields b;
		struct rnic_ext_fields e;
		uint32_t plen = sizes[s], pad = rnic_pad_len(plen), total, hlen;
		uint8_t opc = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY_IMM);
		uint8_t *payload = xmalloc(plen), *flat;
		struct rte_mbuf *h, *m, *t;
		struct rnic_pkt pkt;
		static uint8_t lin[8192];
		const void *p;
		char *w;

		rnd_fields(opc, s & 1, &l, &b, &e);
		rnd_bytes(payload, plen);
		hlen = rnic_pkt_hdr_len(opc, s & 1, false);
		total = hlen + plen + pad + RNIC_ICRC_LEN;
		flat = xmalloc(total);
		VERIFY(rnic_pkt_build_buf(flat, total, &l, &b, &e, payload, plen) == total, "");

		h = rte_pktmbuf_alloc(mp);
		m = rte_pktmbuf_alloc(mp);
		t = rte_pktmbuf_alloc(mp);
		VERIFY(h != NULL && m != NULL && t != NULL, "");
		w = rte_pktmbuf_append(h, (uint16_t)hlen);
		VERIFY(rnic_pkt_build_hdrs((uint8_t *)w, hlen, &l, &b, &e, plen) == hlen, "");
		w = rte_pktmbuf_append(m, (uint16_t)(plen / 2));
		VERIFY(w != NULL, "");
		memcpy(w, payload, plen / 2);
		w = rte_pktmbuf_append(t, (uint16_t)(plen - plen / 2 + pad + RNIC_ICRC_LEN));
		VERIFY(w != NULL, "");
		memcpy(w, payload + plen / 2, plen - plen / 2);
		memset(w + plen - plen / 2, 0, pad + RNIC_ICRC_LEN);
		VERIFY(rte_pktmbuf_chain(h, m) == 0 && rte_pktmbuf_chain(h, t) == 0, "");
		rnic_pkt_finish_icrc_mbuf(h, s & 1 ? 18 : 14);
		p = rte_pktmbuf_read(h, 0, total, lin);
		VERIFY(p != NULL && memcmp(p, flat, total) == 0, "plen %u", plen);
		VERIFY(rnic_pkt_parse_mbuf(h, true, &pkt) == RNIC_PKT_ERR_OK, "");
		VERIFY(pkt.payload_len == plen && pkt.frame_len == total, "");

		/* Ethernet padding after the datagram: ignored by parser and ICRC. */
		w = rte_pktmbuf_append(h, 20);
		VERIFY(w != NULL, "");
		memset(w, 0xee, 20);
		VERIFY(rnic_pkt_parse_mbuf(h, true, &pkt) == RNIC_PKT_ERR_OK, "");
		VERIFY(pkt.frame_len == total && pkt.payload_len == plen, "");
		VERIFY(rnic_icrc_calc_mbuf(h, s & 1 ? 18 : 14, total) == pkt.icrc_wire, "");
		/* Lengths past the mbuf or too short for BTH give 0, not a read. */
		VERIFY(rnic_icrc_calc_mbuf(h, 14, rte_pktmbuf_pkt_len(h) + 1) == 0, "");
		VERIFY(rnic_icrc_calc_mbuf(h, 14, 14 + 40 + 3) == 0, "");
		VERIFY(rnic_icrc_calc_buf(flat, 14, 14 + 40 + 3) == 0, "");
		rte_pktmbuf_free(h);
		free(flat);
		free(payload);
	}
	return 0;
}

/* rnic_copy_small: every length to 80 at every alignment of either end
 * of 16, exactly the bytes asked for, none before or after. */
static int
test_copy_small(void)
{
	uint8_t src[128], dst[128], want[128];

	for (unsigned int n = 0; n <= 80; n++)
		for (unsigned int so = 0; so < 16; so++)
			for (unsigned int doff = 0; doff < 16; doff++) {
				for (unsigned int i = 0; i < sizeof(src); i++) {
					src[i] = (uint8_t)(i * 7 + n + so);
					dst[i] = want[i] = (uint8_t)~(i * 3 + doff);
				}
				memcpy(want + 16 + doff, src + so, n);
				rnic_copy_small(dst + 16 + doff, src + so, n);
				VERIFY(memcmp(dst, want, sizeof(dst)) == 0,
				       "length %u, source offset %u, destination offset %u", n, so,
				       doff);
			}
	return 0;
}

/* ------------------------------------------------------------------ */

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} tests[] = {
		/* Negative cases first. */
		{ "err_outer", test_err_outer },
		{ "err_bth", test_err_bth },
		{ "err_payload", test_err_payload },
		{ "err_truncation", test_err_truncation },
		{ "sreth", test_sreth },
		{ "err_coverage", test_err_coverage },
		{ "icrc_coverage", test_icrc_coverage },
		{ "build_refusals", test_build_refusals },
		/* Then the positive ones. */
		{ "golden", test_golden },
		{ "opcode_table", test_opcode_table },
		{ "psn", test_psn },
		{ "crc32", test_crc32 },
		{ "icrc_bounds", test_icrc_bounds },
		{ "icrc_reference", test_icrc_reference },
		{ "icrc_one_pass", test_icrc_one_pass },
		{ "tmpl_build", test_tmpl_build },
		{ "round_trip", test_round_trip },
		{ "multiseg", test_multiseg },
		{ "mbuf_tx", test_mbuf_tx },
		{ "ipv6", test_ipv6 },
		{ "icrc_copy_seal", test_icrc_copy_seal },
		{ "copy_small", test_copy_small },
		{ "icrc_ahead", test_icrc_ahead },
		{ "rc_write", test_rc_write },
		{ "cm_mad", test_cm_mad },
	};
	unsigned int failed_tests = 0;

	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return 2;
	}
	mp = rte_pktmbuf_pool_create("wire_test", 4095, 0, 0,
				     8192 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (mp == NULL) {
		printf("mbuf pool: %s\n", rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 2;
	}
	for (unsigned int i = 0; i < RTE_DIM(tests); i++) {
		unsigned int before = test_verify_passed;
		int rc = tests[i].fn();

		printf("%-16s %s (%u checks)\n", tests[i].name, rc == 0 ? "ok" : "FAILED",
		       test_verify_passed - before);
		failed_tests += rc != 0;
		/* Every mbuf went back to the pool. */
		if (rc == 0 && !TEST_CHECK(rte_mempool_in_use_count(mp) == 0, "%s: %u mbufs leaked",
					    tests[i].name, rte_mempool_in_use_count(mp)))
			failed_tests++;
	}
	printf("%u passed, %u failed\n", test_verify_passed, test_verify_failed);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return test_verify_failed == 0 && failed_tests == 0 ? 0 : 1;
}
