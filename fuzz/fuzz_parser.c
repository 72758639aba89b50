/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_parser: the frame parser on arbitrary bytes, with three oracles.
 *
 * Input: byte 0 & 7 = k cuts; the next k bytes give the lengths (1..256) of
 * the first k segments of an mbuf chain; the rest of the input is the frame.
 * (Corpus files made from captures carry a 0x00 prefix byte: no cuts.)
 *
 *  1. rnic_pkt_parse_buf (ICRC checked) and rnic_pkt_parse_mbuf over the
 *     same bytes split into a chain must agree: same outcome, same fields.
 *     Every segment is its own exactly-sized heap block, so ASan sees a
 *     read past any segment end.
 *  2. ICRC off must give the same outcome, except ICRC -> OK.
 *  3. A frame that parses is rebuilt with rnic_pkt_build_buf from the
 *     parsed fields and payload; the rebuilt frame must parse (ICRC on) to
 *     the same fields and payload, and rebuilding it again must give the
 *     same bytes.
 *
 * No EAL: the chain is made of hand-filled struct rte_mbuf, which is all
 * rte_pktmbuf_read and the ICRC walk look at.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rnic_wire.h"
#include "fuzz_common.h"

#define MAX_SEGS 8
#define BUILD_CAP (70u * 1024)

static uint8_t build1[BUILD_CAP], build2[BUILD_CAP];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static bool
l2l3_equal(const struct rnic_l2l3 *a, const struct rnic_l2l3 *b, bool ttl)
{
	return memcmp(a->dst_mac, b->dst_mac, 6) == 0 &&
	       memcmp(a->src_mac, b->src_mac, 6) == 0 &&
	       a->vlan == b->vlan && a->vlan_tci == b->vlan_tci &&
	       a->src_ip == b->src_ip && a->dst_ip == b->dst_ip && a->tos == b->tos &&
	       (!ttl || a->ttl == b->ttl) && a->udp_sport == b->udp_sport &&
	       a->udp_dport == b->udp_dport;
}

static bool
bth_equal(const struct rnic_bth_fields *a, const struct rnic_bth_fields *b)
{
	return a->opcode == b->opcode && a->se == b->se && a->mig == b->mig &&
	       a->fecn == b->fecn && a->becn == b->becn && a->ackreq == b->ackreq &&
	       a->pad == b->pad && a->tver == b->tver && a->pkey == b->pkey &&
	       a->dqpn == b->dqpn && a->psn == b->psn;
}

static bool
ext_equal(const struct rnic_ext_fields *a, const struct rnic_ext_fields *b)
{
	return a->reth_va == b->reth_va && a->reth_rkey == b->reth_rkey &&
	       a->reth_len == b->reth_len && a->aeth_syn == b->aeth_syn &&
	       a->aeth_msn == b->aeth_msn && a->atm_va == b->atm_va &&
	       a->atm_rkey == b->atm_rkey && a->atm_swap_add == b->atm_swap_add &&
	       a->atm_cmp == b->atm_cmp && a->atmack_orig == b->atmack_orig &&
	       a->imm == b->imm && a->ieth_rkey == b->ieth_rkey &&
	       a->deth_qkey == b->deth_qkey && a->deth_sqp == b->deth_sqp;
}

/* Everything both parsers fill in, field by field. */
static bool
pkt_equal(const struct rnic_pkt *a, const struct rnic_pkt *b)
{
	return l2l3_equal(&a->l, &b->l, true) && bth_equal(&a->bth, &b->bth) &&
	       ext_equal(&a->ext, &b->ext) && a->op == b->op &&
	       a->l3_off == b->l3_off && a->bth_off == b->bth_off &&
	       a->payload_off == b->payload_off && a->payload_len == b->payload_len &&
	       a->frame_len == b->frame_len && a->icrc_wire == b->icrc_wire;
}

struct chain {
	struct rte_mbuf *seg[MAX_SEGS];
	unsigned int n;
};

static void
chain_free(struct chain *c)
{
	for (unsigned int i = 0; i < c->n; i++) {
		free(c->seg[i]->buf_addr);
		free(c->seg[i]);
	}
	c->n = 0;
}

/* Split @p frame into segments of the given lengths (the rest last). */
static void
chain_make(struct chain *c, const uint8_t *frame, uint32_t len,
	   const uint8_t *cuts, unsigned int ncuts)
{
	uint32_t off = 0;

	c->n = 0;
	for (unsigned int i = 0; i <= ncuts && (off < len || c->n == 0); i++) {
		uint32_t seg = i < ncuts ? (uint32_t)cuts[i] + 1 : len - off;
		struct rte_mbuf *m;

		if (seg > len - off)
			seg = len - off;
		m = aligned_alloc(RTE_CACHE_LINE_SIZE,
				  RTE_ALIGN_CEIL(sizeof(*m), RTE_CACHE_LINE_SIZE));
		FZ_CHECK(m != NULL, "out of memory");
		memset(m, 0, sizeof(*m));
		/* malloc(0) may return NULL; keep a 1-byte block for empty frames. */
		m->buf_addr = malloc(seg ? seg : 1);
		FZ_CHECK(m->buf_addr != NULL, "out of memory");
		if (seg)
			memcpy(m->buf_addr, frame + off, seg);
		m->buf_len = (uint16_t)seg;
		m->data_off = 0;
		m->data_len = (uint16_t)seg;
		if (c->n > 0)
			c->seg[c->n - 1]->next = m;
		c->seg[c->n++] = m;
		off += seg;
	}
	c->seg[0]->nb_segs = (uint16_t)c->n;
	c->seg[0]->pkt_len = len;
}

static void check_frame(const uint8_t *frame, uint32_t len, const uint8_t *cuts,
			unsigned int ncuts);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int ncuts;
	const uint8_t *frame;
	uint8_t *copy;
	uint32_t len;

	if (size < 1 || size > 65536)
		return 0;
	ncuts = data[0] & 7;
	if (size < 1 + ncuts)
		return 0;
	len = (uint32_t)(size - 1 - ncuts);
	if (len > UINT16_MAX)   /* data_len is 16 bits */
		return 0;
	/*
	 * An exactly-sized heap copy: aligned as every real frame is (mbuf
	 * data, libpcap's buffer; the parser reads through DPDK's header
	 * structs, which UBSan holds to their 2-byte alignment), and ASan
	 * catches a read past its end.
	 */
	copy = malloc(len ? len : 1);
	FZ_CHECK(copy != NULL, "out of memory");
	memcpy(copy, data + 1 + ncuts, len);
	frame = copy;
	check_frame(frame, len, data + 1, ncuts);
	free(copy);
	return 0;
}

static void
check_frame(const uint8_t *frame, uint32_t len, const uint8_t *cuts, unsigned int ncuts)
{
	struct rnic_pkt p1, p2, p3, p4;
	enum rnic_pkt_err e1, e2, e3, e4;
	uint32_t n1, n2;
	struct chain c;

	/* 1. flat vs chained. */
	e1 = rnic_pkt_parse_buf(frame, len, true, &p1);
	FZ_CHECK((unsigned int)e1 < RNIC_PKT_ERR_MAX, "outcome %d", e1);
	chain_make(&c, frame, len, cuts, ncuts);
	e2 = rnic_pkt_parse_mbuf(c.seg[0], true, &p2);
	chain_free(&c);
	FZ_CHECK(e1 == e2, "parse_buf %s, parse_mbuf %s (%u segments)",
		 rnic_pkt_err_name[e1], rnic_pkt_err_name[e2], ncuts + 1);
	FZ_CHECK(pkt_equal(&p1, &p2), "fields differ (%s)", rnic_pkt_err_name[e1]);

	/* 2. ICRC off. */
	e3 = rnic_pkt_parse_buf(frame, len, false, &p3);
	FZ_CHECK(e3 == (e1 == RNIC_PKT_ERR_ICRC ? RNIC_PKT_ERR_OK : e1),
		 "icrc on %s, off %s", rnic_pkt_err_name[e1], rnic_pkt_err_name[e3]);
	if (e1 != RNIC_PKT_ERR_OK)
		return;

	/* A parsed frame is well-formed. */
	FZ_CHECK(p1.op != NULL && p1.op == rnic_opcode_info(p1.bth.opcode), "op");
	FZ_CHECK(p1.frame_len <= len, "frame_len %u > %u", p1.frame_len, len);
	FZ_CHECK((uint32_t)p1.payload_off + p1.payload_len + p1.bth.pad + RNIC_ICRC_LEN ==
		 p1.frame_len, "lengths off=%u len=%u pad=%u frame=%u", p1.payload_off,
		 p1.payload_len, p1.bth.pad, p1.frame_len);
	FZ_CHECK(p1.bth.tver == 0 && p1.bth.pad == rnic_pad_len(p1.payload_len),
		 "tver %u pad %u for %u", p1.bth.tver, p1.bth.pad, p1.payload_len);
	FZ_CHECK(p1.payload_len == 0 || (p1.op->mask & RNIC_M_PAYLOAD),
		 "payload on %s", p1.op->name);

	/* 3. Rebuild from the fields, parse back, rebuild again. */
	n1 = rnic_pkt_build_buf(build1, sizeof(build1), &p1.l, &p1.bth, &p1.ext,
				frame + p1.payload_off, p1.payload_len);
	FZ_CHECK(n1 == p1.frame_len, "rebuilt %u bytes, parsed frame %u", n1, p1.frame_len);
	e4 = rnic_pkt_parse_buf(build1, n1, true, &p4);
	FZ_CHECK(e4 == RNIC_PKT_ERR_OK, "rebuilt frame: %s", rnic_pkt_err_name[e4]);
	/* The builder writes TTL 64 for 0; everything else must survive. */
	FZ_CHECK(l2l3_equal(&p1.l, &p4.l, p1.l.ttl != 0) &&
		 (p1.l.ttl != 0 || p4.l.ttl == 64), "addressing changed");
	FZ_CHECK(bth_equal(&p1.bth, &p4.bth), "BTH changed");
	FZ_CHECK(ext_equal(&p1.ext, &p4.ext), "extended headers changed");
	FZ_CHECK(p4.op == p1.op && p4.l3_off == p1.l3_off && p4.bth_off == p1.bth_off &&
		 p4.payload_off == p1.payload_off && p4.payload_len == p1.payload_len &&
		 p4.frame_len == p1.frame_len, "layout changed");
	FZ_CHECK(memcmp(build1 + p4.payload_off, frame + p1.payload_off,
			p1.payload_len) == 0, "payload changed");
	n2 = rnic_pkt_build_buf(build2, sizeof(build2), &p4.l, &p4.bth, &p4.ext,
				build1 + p4.payload_off, p4.payload_len);
	FZ_CHECK(n2 == n1 && memcmp(build1, build2, n1) == 0, "rebuild not idempotent");
}
