/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser and builder. Both walk the opcode table for the extended
 * headers; neither reads or writes past the buffer it is given.
 */
#include <stdio.h>
#include <inttypes.h>
#include <arpa/inet.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include <rte_memcpy.h>

#include "rnic_wire.h"

/* Bytes the parser reads of a frame's start: every header stack fits. */
#define RNIC_PARSE_MAX 128

const char *const rnic_pkt_err_str[RNIC_PKT_ERR_MAX] = {
#define RNIC_PKT_ERR_STR(n, s) [RNIC_PKT_ERR_##n] = s,
	RNIC_PKT_ERRORS(RNIC_PKT_ERR_STR)
#undef RNIC_PKT_ERR_STR
};

const char *const rnic_pkt_err_name[RNIC_PKT_ERR_MAX] = {
#define RNIC_PKT_ERR_NAME(n, s) [RNIC_PKT_ERR_##n] = #n,
	RNIC_PKT_ERRORS(RNIC_PKT_ERR_NAME)
#undef RNIC_PKT_ERR_NAME
};

static void __rte_unused
wire_build_checks(void)
{
	RTE_BUILD_BUG_ON(sizeof(struct rnic_bth) != RNIC_BTH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_reth) != RNIC_RETH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_aeth) != RNIC_AETH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_atmeth) != RNIC_ATMETH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_atmack) != RNIC_ATMACK_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_deth) != RNIC_DETH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_sreth) != RNIC_SRETH_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct rnic_sack) != RNIC_SACK_LEN);
	RTE_BUILD_BUG_ON(RNIC_ETH_HLEN + RNIC_VLAN_HLEN + RNIC_IPV6_HLEN + RNIC_UDP_HLEN +
			 RNIC_BTH_LEN + RNIC_AETH_LEN + RNIC_SACK_LEN > RNIC_PARSE_MAX);
	/* The longest stack that can carry an SRETH (WRITE Only with
	 * immediate) still fits the bytes the parser reads. */
	RTE_BUILD_BUG_ON(RNIC_ETH_HLEN + RNIC_VLAN_HLEN + RNIC_IPV6_HLEN + RNIC_UDP_HLEN +
			 RNIC_BTH_LEN + RNIC_RETH_LEN + RNIC_IMMDT_LEN + RNIC_SRETH_LEN >
			 RNIC_PARSE_MAX);
	RTE_BUILD_BUG_ON(sizeof(struct rte_ether_hdr) != RNIC_ETH_HLEN);
	RTE_BUILD_BUG_ON(sizeof(struct rte_vlan_hdr) != RNIC_VLAN_HLEN);
	RTE_BUILD_BUG_ON(sizeof(struct rte_ipv4_hdr) != RNIC_IPV4_HLEN);
	RTE_BUILD_BUG_ON(sizeof(struct rte_udp_hdr) != RNIC_UDP_HLEN);
	RTE_BUILD_BUG_ON(sizeof(struct rte_ipv6_hdr) != RNIC_IPV6_HLEN);
	RTE_BUILD_BUG_ON(RNIC_MAX_HDR_LEN > RNIC_PARSE_MAX);
}

/* Read the extended headers the opcode names, from @p bth. */
/* The extended header @p x of @p op inside the headers at @p bth. */
#define EXT_AT(op, bth, x) ((const void *)((bth) + (op)->offset[RNIC_EXT_##x]))

static void
ext_read(const struct rnic_opcode_info *op, const uint8_t *bth,
	 struct rnic_ext_fields *e)
{
	rnic_opmask_t m = op->mask;

	/* *e is zero already, but for the SACK map (rnic_pkt_clear). */
	if (m & RNIC_M_DETH) {
		e->deth_qkey = __deth_qkey(EXT_AT(op, bth, DETH));
		e->deth_sqp = __deth_sqp(EXT_AT(op, bth, DETH));
	}
	if (m & RNIC_M_RETH) {
		e->reth_va = __reth_va(EXT_AT(op, bth, RETH));
		e->reth_rkey = __reth_rkey(EXT_AT(op, bth, RETH));
		e->reth_len = __reth_len(EXT_AT(op, bth, RETH));
	}
	if (m & RNIC_M_ATMETH) {
		e->atm_va = __atmeth_va(EXT_AT(op, bth, ATMETH));
		e->atm_rkey = __atmeth_rkey(EXT_AT(op, bth, ATMETH));
		e->atm_swap_add = __atmeth_swap_add(EXT_AT(op, bth, ATMETH));
		e->atm_cmp = __atmeth_cmp(EXT_AT(op, bth, ATMETH));
	}
	if (m & RNIC_M_AETH) {
		e->aeth_syn = __aeth_syn(EXT_AT(op, bth, AETH));
		e->aeth_msn = __aeth_msn(EXT_AT(op, bth, AETH));
	}
	if (m & RNIC_M_ATMACK)
		e->atmack_orig = __atmack_orig(EXT_AT(op, bth, ATMACK));
	if (m & RNIC_M_IMMDT)
		memcpy(&e->imm, EXT_AT(op, bth, IMMDT), RNIC_IMMDT_LEN);
	if (m & RNIC_M_IETH) {
		rte_be32_t k;

		memcpy(&k, EXT_AT(op, bth, IETH), RNIC_IETH_LEN);
		e->ieth_rkey = rte_be_to_cpu_32(k);
	}
}

/* The extension headers ext_write_all writes. */
#define EXT_HDRS (RNIC_M_RETH | RNIC_M_AETH | RNIC_M_ATMETH | RNIC_M_ATMACK | RNIC_M_IMMDT | \
		  RNIC_M_IETH | RNIC_M_DETH | RNIC_M_CNP)

static inline void
reth_write(uint8_t *at, const struct rnic_ext_fields *e)
{
	struct rnic_reth *r = (void *)at;

	r->va = rte_cpu_to_be_64(e->reth_va);
	r->rkey = rte_cpu_to_be_32(e->reth_rkey);
	r->len = rte_cpu_to_be_32(e->reth_len);
}

static void
ext_write_all(const struct rnic_opcode_info *op, uint8_t *bth,
	      const struct rnic_ext_fields *e)
{
	if (op->mask & RNIC_M_DETH) {
		struct rnic_deth *d = (void *)(bth + op->offset[RNIC_EXT_DETH]);
		d->qkey = rte_cpu_to_be_32(e->deth_qkey);
		d->rsvd = 0;
		rnic_put24(d->sqp, e->deth_sqp);
	}
	if (op->mask & RNIC_M_RETH)
		reth_write(bth + op->offset[RNIC_EXT_RETH], e);
	if (op->mask & RNIC_M_ATMETH) {
		struct rnic_atmeth *a = (void *)(bth + op->offset[RNIC_EXT_ATMETH]);
		a->va = rte_cpu_to_be_64(e->atm_va);
		a->rkey = rte_cpu_to_be_32(e->atm_rkey);
		a->swap_add = rte_cpu_to_be_64(e->atm_swap_add);
		a->cmp = rte_cpu_to_be_64(e->atm_cmp);
	}
	if (op->mask & RNIC_M_AETH) {
		struct rnic_aeth *a = (void *)(bth + op->offset[RNIC_EXT_AETH]);
		a->smsn = rte_cpu_to_be_32(((uint32_t)e->aeth_syn << 24) |
					   (e->aeth_msn & RNIC_PSN_MASK));
	}
	if (op->mask & RNIC_M_ATMACK) {
		struct rnic_atmack *a = (void *)(bth + op->offset[RNIC_EXT_ATMACK]);
		a->orig = rte_cpu_to_be_64(e->atmack_orig);
	}
	if (op->mask & RNIC_M_IMMDT)
		memcpy(bth + op->offset[RNIC_EXT_IMMDT], &e->imm, 4);
	if (op->mask & RNIC_M_IETH) {
		rte_be32_t k = rte_cpu_to_be_32(e->ieth_rkey);
		memcpy(bth + op->offset[RNIC_EXT_IETH], &k, 4);
	}
	if (op->mask & RNIC_M_CNP)
		memset(bth + op->offset[RNIC_EXT_CNP], 0, RNIC_CNP_RSVD_LEN);
}

/* The extension headers of @p op: a WRITE First's or Only's RETH here,
 * and no call where the opcode has none (WRITE and SEND Middle and
 * Last...), instead of ext_write_all's test of every header (ring 64 B
 * 1.010x, 16384 QPs 1.010x by in-run A/B, doc/benchmarks.md). */
static __rte_always_inline void
ext_write(const struct rnic_opcode_info *op, uint8_t *bth, const struct rnic_ext_fields *e)
{
	const rnic_opmask_t hdrs = op->mask & EXT_HDRS;

	if (hdrs == RNIC_M_RETH)
		reth_write(bth + op->offset[RNIC_EXT_RETH], e);
	else if (hdrs != 0)
		ext_write_all(op, bth, e);
}

/* Bytes of the selective-repeat header of opcode @p op: a SACK on an
 * ACK, an SRETH on a SEND or WRITE, none elsewhere (0). */
static uint32_t
sr_hdr_len(const struct rnic_opcode_info *op)
{
	if (op->mask & RNIC_M_ATOMIC)
		return 0;
	if (op->mask & RNIC_M_ACK)
		return RNIC_SACK_LEN;
	return (op->mask & (RNIC_M_SEND | RNIC_M_WRITE)) ? RNIC_SRETH_LEN : 0;
}

static void
sreth_read(const struct rnic_opcode_info *op, const uint8_t *p, struct rnic_ext_fields *e)
{
	const struct rnic_sreth *s = (const void *)p;

	if (op->mask & RNIC_M_ACK) {
		const struct rnic_sack *k = (const void *)p;

		e->sr_aux = rte_be_to_cpu_32(k->epsn);
		for (unsigned int w = 0; w < RNIC_SACK_WORDS; w++)
			e->sack[w] = rte_be_to_cpu_64(k->map[w]);
		return;
	}
	e->sr_va = rte_be_to_cpu_64(s->va);
	e->sr_key = rte_be_to_cpu_32(s->key);
	e->sr_len = rte_be_to_cpu_32(s->len);
	e->sr_aux = rte_be_to_cpu_32(s->aux);
}

static void
sreth_write(const struct rnic_opcode_info *op, uint8_t *p, const struct rnic_ext_fields *e)
{
	struct rnic_sreth *s = (void *)p;

	if (op->mask & RNIC_M_ACK) {
		struct rnic_sack *k = (void *)p;

		k->epsn = rte_cpu_to_be_32(e->sr_aux);
		for (unsigned int w = 0; w < RNIC_SACK_WORDS; w++)
			k->map[w] = rte_cpu_to_be_64(e->sack[w]);
		return;
	}
	s->va = rte_cpu_to_be_64(e->sr_va);
	s->key = rte_cpu_to_be_32(e->sr_key);
	s->len = rte_cpu_to_be_32(e->sr_len);
	s->aux = rte_cpu_to_be_32(e->sr_aux);
}

static enum rnic_pkt_err parse_ipv6(const uint8_t *hdr, uint32_t len, uint32_t l3,
				    struct rnic_pkt *pkt);
static enum rnic_pkt_err parse_l4(const uint8_t *hdr, uint32_t l4, uint32_t ip_plen,
				  struct rnic_pkt *pkt);

/*
 * Parse the headers. @p hdr holds the first @p avail bytes of a frame of
 * @p len bytes, with avail >= min(len, RNIC_PARSE_MAX): every header read
 * is checked against len first, and no header ends past RNIC_PARSE_MAX.
 */
static enum rnic_pkt_err
parse_hdrs(const uint8_t *hdr, uint32_t len, struct rnic_pkt *pkt)
{
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip;
	uint32_t l3, ip_len;
	uint16_t etype, frag;

	rnic_pkt_clear(pkt);
	pkt->frame_len = len;
	if (len < RNIC_ETH_HLEN)
		return RNIC_PKT_ERR_TRUNC_L2;
	eth = (const void *)hdr;
	memcpy(pkt->l.dst_mac, &eth->dst_addr, 6);
	memcpy(pkt->l.src_mac, &eth->src_addr, 6);
	etype = rte_be_to_cpu_16(eth->ether_type);
	l3 = RNIC_ETH_HLEN;
	if (etype == RTE_ETHER_TYPE_VLAN) {
		const struct rte_vlan_hdr *vh;

		if (len < RNIC_ETH_HLEN + RNIC_VLAN_HLEN)
			return RNIC_PKT_ERR_TRUNC_L2;
		vh = (const void *)(hdr + RNIC_ETH_HLEN);
		pkt->l.vlan = true;
		pkt->l.vlan_tci = rte_be_to_cpu_16(vh->vlan_tci);
		etype = rte_be_to_cpu_16(vh->eth_proto);
		l3 += RNIC_VLAN_HLEN;
	}
	if (etype == RTE_ETHER_TYPE_IPV6)
		return parse_ipv6(hdr, len, l3, pkt);
	if (etype != RTE_ETHER_TYPE_IPV4)
		return RNIC_PKT_ERR_OTHER_L2;
	pkt->l3_off = (uint16_t)l3;
	if (len < l3 + RNIC_IPV4_HLEN)
		return RNIC_PKT_ERR_TRUNC_L3;
	ip = (const void *)(hdr + l3);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5)
		return RNIC_PKT_ERR_IP_VERSION;
	if (ip->next_proto_id != IPPROTO_UDP)
		return RNIC_PKT_ERR_OTHER_L4;
	pkt->l.src_ip = ip->src_addr;
	pkt->l.dst_ip = ip->dst_addr;
	pkt->l.tos = ip->type_of_service;
	pkt->l.ttl = ip->time_to_live;
	if ((ip->version_ihl & 0xf) != 5)
		return RNIC_PKT_ERR_IP_OPTIONS;
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	if (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		return RNIC_PKT_ERR_IP_FRAG;
	/* Ethernet may pad short frames: the IPv4 length decides the end. */
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (ip_len < RNIC_IPV4_HLEN + RNIC_UDP_HLEN || l3 + ip_len > len)
		return RNIC_PKT_ERR_IP_LEN;
	if (rte_ipv4_cksum(ip) != 0)   /* a correct header sums to all ones */
		return RNIC_PKT_ERR_IP_CSUM;
	return parse_l4(hdr, l3 + RNIC_IPV4_HLEN, ip_len - RNIC_IPV4_HLEN, pkt);
}

/* IPv6 at @p l3: no extension headers (a RoCEv2 frame carries none), the
 * payload length decides the end (Ethernet may pad). */
static enum rnic_pkt_err
parse_ipv6(const uint8_t *hdr, uint32_t len, uint32_t l3, struct rnic_pkt *pkt)
{
	const struct rte_ipv6_hdr *ip6;
	uint32_t vtc, plen;

	pkt->l3_off = (uint16_t)l3;
	pkt->l.ipv6 = true;
	if (len < l3 + RNIC_IPV6_HLEN)
		return RNIC_PKT_ERR_TRUNC_L3;
	ip6 = (const void *)(hdr + l3);
	vtc = rte_be_to_cpu_32(ip6->vtc_flow);
	if ((vtc >> 28) != 6)
		return RNIC_PKT_ERR_IP_VERSION;
	if (ip6->proto != IPPROTO_UDP)
		return RNIC_PKT_ERR_OTHER_L4;
	memcpy(pkt->l.src_ip6, ip6->src_addr, 16);
	memcpy(pkt->l.dst_ip6, ip6->dst_addr, 16);
	pkt->l.tos = (uint8_t)(vtc >> 20);
	pkt->l.flow_label = vtc & 0xfffff;
	pkt->l.ttl = ip6->hop_limits;
	plen = rte_be_to_cpu_16(ip6->payload_len);
	if (plen < RNIC_UDP_HLEN || l3 + RNIC_IPV6_HLEN + plen > len)
		return RNIC_PKT_ERR_IP_LEN;
	return parse_l4(hdr, l3 + RNIC_IPV6_HLEN, plen, pkt);
}

/* UDP at @p l4, @p ip_plen bytes of IP payload, then BTH, the extended
 * headers and the pad. */
static enum rnic_pkt_err
parse_l4(const uint8_t *hdr, uint32_t l4, uint32_t ip_plen, struct rnic_pkt *pkt)
{
	const struct rte_udp_hdr *udp = (const void *)(hdr + l4);
	const struct rnic_bth *bth;
	const struct rnic_opcode_info *op;
	uint32_t udp_len, l4_payload, hdrs, room;

	pkt->l.udp_sport = rte_be_to_cpu_16(udp->src_port);
	pkt->l.udp_dport = rte_be_to_cpu_16(udp->dst_port);
	if (pkt->l.udp_dport != RNIC_ROCE_UDP_PORT)
		return RNIC_PKT_ERR_OTHER_PORT;
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len != ip_plen)
		return RNIC_PKT_ERR_UDP_LEN;
	pkt->frame_len = l4 + udp_len;
	l4_payload = udp_len - RNIC_UDP_HLEN;
	if (l4_payload < RNIC_BTH_LEN + RNIC_ICRC_LEN)
		return RNIC_PKT_ERR_TRUNC_BTH;
	pkt->bth_off = (uint16_t)(l4 + RNIC_UDP_HLEN);
	bth = (const void *)(hdr + pkt->bth_off);
	pkt->bth.opcode = __bth_opcode(bth);
	pkt->bth.se = __bth_se(bth);
	pkt->bth.mig = __bth_mig(bth);
	pkt->bth.pad = __bth_pad(bth);
	pkt->bth.tver = __bth_tver(bth);
	pkt->bth.pkey = __bth_pkey(bth);
	pkt->bth.fecn = __bth_fecn(bth);
	pkt->bth.becn = __bth_becn(bth);
	pkt->bth.dqpn = __bth_dqpn(bth);
	pkt->bth.ackreq = __bth_ackreq(bth);
	pkt->bth.sr = __bth_sr(bth);
	pkt->bth.psn = __bth_psn(bth);
	if (pkt->bth.tver != 0)
		return RNIC_PKT_ERR_TVER;
	op = rnic_opcode_info(pkt->bth.opcode);
	if (op == NULL)
		return RNIC_PKT_ERR_OPCODE;
	pkt->op = op;
	if (l4_payload < (uint32_t)op->length + RNIC_ICRC_LEN)
		return RNIC_PKT_ERR_TRUNC_EXT;
	ext_read(op, (const uint8_t *)bth, &pkt->ext);
	hdrs = op->length;
	if (pkt->bth.sr) {
		/* Only SEND, WRITE and ACK packets carry one. */
		uint32_t srl = sr_hdr_len(op);

		if (srl == 0)
			return RNIC_PKT_ERR_SRETH;
		if (l4_payload < hdrs + srl + RNIC_ICRC_LEN)
			return RNIC_PKT_ERR_TRUNC_EXT;
		sreth_read(op, (const uint8_t *)bth + hdrs, &pkt->ext);
		hdrs += srl;
	}
	pkt->payload_off = (uint16_t)(pkt->bth_off + hdrs);
	room = l4_payload - hdrs - RNIC_ICRC_LEN;  /* payload + pad */
	if (room & 3)
		return RNIC_PKT_ERR_PAD;
	if (pkt->bth.pad > room)
		return RNIC_PKT_ERR_PAD;
	if (!(op->mask & RNIC_M_PAYLOAD) && room != 0)
		return RNIC_PKT_ERR_PAYLOAD;
	pkt->payload_len = room - pkt->bth.pad;
	return RNIC_PKT_ERR_OK;
}

enum rnic_pkt_err
rnic_pkt_parse_buf(const uint8_t *frame, uint32_t len, bool check_icrc,
		   struct rnic_pkt *pkt)
{
	enum rnic_pkt_err e = parse_hdrs(frame, len, pkt);
	uint32_t fl;

	if (e != RNIC_PKT_ERR_OK)
		return e;
	fl = pkt->frame_len;
	memcpy(&pkt->icrc_wire, frame + fl - RNIC_ICRC_LEN, 4);
	pkt->icrc_wire = rte_le_to_cpu_32(pkt->icrc_wire);
	if (check_icrc && rnic_icrc_calc_buf(frame, pkt->l3_off, fl) != pkt->icrc_wire)
		return RNIC_PKT_ERR_ICRC;
	return RNIC_PKT_ERR_OK;
}

/* @p ahead: as rnic_pkt_parse_mbuf_ahead's, or 0 to compute the ICRC
 * (when @p check_icrc). */
static inline enum rnic_pkt_err
parse_mbuf(const struct rte_mbuf *m, bool check_icrc, uint64_t ahead, struct rnic_pkt *pkt)
{
	uint8_t tmp[RNIC_PARSE_MAX];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t avail = RTE_MIN(len, (uint32_t)sizeof(tmp));
	const uint8_t *hdr;
	const void *ic;
	uint32_t icrc;
	enum rnic_pkt_err e;

	if (avail == 0) {
		memset(pkt, 0, sizeof(*pkt));
		return RNIC_PKT_ERR_TRUNC_L2;
	}
	hdr = rte_pktmbuf_read(m, 0, avail, tmp);
	if (hdr == NULL) {
		memset(pkt, 0, sizeof(*pkt));
		return RNIC_PKT_ERR_TRUNC_L2;
	}
	e = parse_hdrs(hdr, len, pkt);
	if (e != RNIC_PKT_ERR_OK)
		return e;
	ic = rte_pktmbuf_read(m, pkt->frame_len - RNIC_ICRC_LEN, 4, &icrc);
	memcpy(&pkt->icrc_wire, ic, 4);
	pkt->icrc_wire = rte_le_to_cpu_32(pkt->icrc_wire);
	if (!check_icrc)
		return RNIC_PKT_ERR_OK;
	if (ahead != 0 && pkt->l3_off == RNIC_ETH_HLEN && pkt->frame_len == m->data_len)
		return (uint32_t)ahead == pkt->icrc_wire ? RNIC_PKT_ERR_OK : RNIC_PKT_ERR_ICRC;
	if (rnic_icrc_calc_mbuf(m, pkt->l3_off, pkt->frame_len) != pkt->icrc_wire)
		return RNIC_PKT_ERR_ICRC;
	return RNIC_PKT_ERR_OK;
}

enum rnic_pkt_err
rnic_pkt_parse_mbuf(const struct rte_mbuf *m, bool check_icrc, struct rnic_pkt *pkt)
{
	return parse_mbuf(m, check_icrc, 0, pkt);
}

enum rnic_pkt_err
rnic_pkt_parse_mbuf_ahead(const struct rte_mbuf *m, uint64_t ahead, struct rnic_pkt *pkt)
{
	return parse_mbuf(m, true, ahead, pkt);
}

void
rnic_pkt_icrc_ahead(struct rte_mbuf *const *m, unsigned int n, uint64_t *ahead)
{
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *h = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint32_t len = m[i]->data_len;
		uint16_t et;

		ahead[i] = 0;
		if (m[i]->nb_segs != 1 || len < RNIC_ETH_HLEN || len > RNIC_ICRC_AHEAD_MAX)
			continue;
		memcpy(&et, h + 12, sizeof(et));
		if (et != RTE_BE16(RTE_ETHER_TYPE_IPV4) && et != RTE_BE16(RTE_ETHER_TYPE_IPV6))
			continue;
		/* 0 where the frame is too short for its headers: the parse
		 * refuses it before the ICRC */
		ahead[i] = (UINT64_C(1) << 32) | rnic_icrc_calc_buf(h, RNIC_ETH_HLEN, len);
	}
}

/* Whether a 20-byte IPv4 header (no options) has a correct checksum:
 * its 16-bit words sum to all ones (RFC 1071), summed here as five
 * 32-bit words and folded, the same sum; rte_ipv4_cksum walks the
 * header two bytes a step for any length. Header prediction only: the
 * parser keeps rte_ipv4_cksum, and test_wire's test_rc_write holds the
 * two to the same answer on headers with a bit flipped. */
static inline bool
ipv4_hdr20_ok(const struct rte_ipv4_hdr *ip)
{
	uint32_t w[5];
	uint64_t sum;

	memcpy(w, ip, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	sum = (sum & UINT32_MAX) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);   /* <= 0x1ffff */
	sum = (sum & 0xffff) + (sum >> 16);   /* <= 0x10000, which folds to 1: no match either */
	return sum == 0xffff;
}

/* Eth, IPv4, UDP and BTH: where a WRITE Middle's or Last's payload
 * starts; a First's and an Only's after their RETH. */
#define WR_HLEN (RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN + RNIC_BTH_LEN)

bool
rnic_pkt_rc_write(const struct rte_mbuf *m, uint64_t ahead, struct rnic_rc_write *f)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip = (const void *)(h + RNIC_ETH_HLEN);
	const struct rte_udp_hdr *udp = (const void *)(ip + 1);
	const struct rnic_bth *bth = (const void *)(udp + 1);
	const struct rnic_reth *reth = (const void *)(bth + 1);
	uint32_t len = m->data_len, hlen, room, icrc;
	uint16_t et;
	uint8_t pad;
	bool has_reth;

	if (m->nb_segs != 1 || len < WR_HLEN + RNIC_ICRC_LEN)
		return false;
	memcpy(&et, h + 12, sizeof(et));
	if (et != RTE_BE16(RTE_ETHER_TYPE_IPV4) || ip->version_ihl != 0x45 ||
	    ip->next_proto_id != IPPROTO_UDP ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) ||
	    rte_be_to_cpu_16(ip->total_length) != len - RNIC_ETH_HLEN ||
	    udp->dst_port != RTE_BE16(RNIC_ROCE_UDP_PORT) ||
	    rte_be_to_cpu_16(udp->dgram_len) != len - RNIC_ETH_HLEN - RNIC_IPV4_HLEN ||
	    __bth_tver(bth) != 0 || __bth_sr(bth))
		return false;
	switch (bth->opcode) {
	case RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_FIRST):
	case RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_ONLY):
		has_reth = true;
		break;
	case RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_MIDDLE):
	case RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_WRITE_LAST):
		has_reth = false;
		break;
	default:
		return false;
	}
	hlen = WR_HLEN + (has_reth ? RNIC_RETH_LEN : 0);
	if (len < hlen + RNIC_ICRC_LEN)
		return false;
	room = len - hlen - RNIC_ICRC_LEN;
	pad = __bth_pad(bth);
	if ((room & 3) || pad > room || !ipv4_hdr20_ok(ip))
		return false;
	memcpy(&icrc, h + len - RNIC_ICRC_LEN, sizeof(icrc));
	if (rte_le_to_cpu_32(icrc) != ((ahead >> 32) ? (uint32_t)ahead :
				      rnic_icrc_calc_mbuf(m, RNIC_ETH_HLEN, len)))
		return false;
	f->dst_mac = h;
	f->va = has_reth ? __reth_va(reth) : 0;
	f->rkey = has_reth ? __reth_rkey(reth) : 0;
	f->dma_len = has_reth ? __reth_len(reth) : 0;
	f->payload_len = room - pad;
	f->dst_ip = ip->dst_addr;
	f->dqpn = __bth_dqpn(bth);
	f->psn = __bth_psn(bth);
	f->pkey = __bth_pkey(bth);
	f->payload_off = (uint16_t)hlen;
	f->opcode = bth->opcode;
	f->tos = ip->type_of_service;
	f->ackreq = __bth_ackreq(bth);
	return true;
}

bool
rnic_pkt_peek_dqpn(const struct rte_mbuf *m, uint32_t *dqpn)
{
	uint8_t tmp[RNIC_ETH_HLEN + RNIC_VLAN_HLEN + RNIC_IPV6_HLEN + RNIC_UDP_HLEN +
		    RNIC_BTH_LEN];
	uint32_t len = RTE_MIN((uint32_t)sizeof(tmp), rte_pktmbuf_pkt_len(m)), l3 = RNIC_ETH_HLEN;
	const uint8_t *h = rte_pktmbuf_read(m, 0, len, tmp);
	const struct rte_ether_hdr *eth = (const void *)h;
	uint32_t l4;
	uint16_t et;

	if (h == NULL || len < RNIC_ETH_HLEN)
		return false;
	et = rte_be_to_cpu_16(eth->ether_type);
	if (et == RTE_ETHER_TYPE_VLAN && len >= RNIC_ETH_HLEN + RNIC_VLAN_HLEN) {
		et = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(h + RNIC_ETH_HLEN))->eth_proto);
		l3 += RNIC_VLAN_HLEN;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(h + l3);

		l4 = l3 + RNIC_IPV4_HLEN;
		if (len < l4 + RNIC_UDP_HLEN + RNIC_BTH_LEN || ip->next_proto_id != IPPROTO_UDP ||
		    ip->version_ihl != RTE_IPV4_VHL_DEF)
			return false;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip6 = (const void *)(h + l3);

		l4 = l3 + RNIC_IPV6_HLEN;
		if (len < l4 + RNIC_UDP_HLEN + RNIC_BTH_LEN || ip6->proto != IPPROTO_UDP)
			return false;
	} else {
		return false;
	}
	if (rte_be_to_cpu_16(((const struct rte_udp_hdr *)(h + l4))->dst_port) !=
	    RNIC_ROCE_UDP_PORT)
		return false;
	*dqpn = __bth_dqpn((const struct rnic_bth *)(h + l4 + RNIC_UDP_HLEN));
	return true;
}

uint32_t
rnic_pkt_hdr_len(uint8_t opcode, bool vlan, bool ipv6)
{
	const struct rnic_opcode_info *op = rnic_opcode_info(opcode);

	if (op == NULL)
		return 0;
	return RNIC_ETH_HLEN + (vlan ? RNIC_VLAN_HLEN : 0) + rnic_l3_hlen(ipv6) +
	       RNIC_UDP_HLEN + op->length;
}

/* The IPv4 header of a frame from @p l, @p l4_len bytes of UDP after it. */
static void
build_ipv4(struct rte_ipv4_hdr *ip, const struct rnic_l2l3 *l, uint32_t l4_len)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = l->tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(RNIC_IPV4_HLEN + l4_len));
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = l->ttl ? l->ttl : RNIC_IPV4_TTL_DEFAULT;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	ip->src_addr = l->src_ip;
	ip->dst_addr = l->dst_ip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* The IPv6 header of a frame from @p l. */
static void
build_ipv6(struct rte_ipv6_hdr *ip6, const struct rnic_l2l3 *l, uint32_t l4_len)
{
	ip6->vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)l->tos << 20) |
					 (l->flow_label & 0xfffff));
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
	ip6->proto = IPPROTO_UDP;
	ip6->hop_limits = l->ttl ? l->ttl : RNIC_IPV6_HOPS_DEFAULT;
	memcpy(ip6->src_addr, l->src_ip6, 16);
	memcpy(ip6->dst_addr, l->dst_ip6, 16);
}

uint32_t
rnic_pkt_build_hdrs(uint8_t *dst, uint32_t cap, const struct rnic_l2l3 *l,
		    const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
		    uint32_t payload_len)
{
	const struct rnic_opcode_info *op = rnic_opcode_info(b->opcode);
	uint32_t hlen = rnic_pkt_hdr_len(b->opcode, l->vlan, l->ipv6);
	uint8_t pad = rnic_pad_len(payload_len);
	uint32_t udp_len, l3 = RNIC_ETH_HLEN, l3h = rnic_l3_hlen(l->ipv6);
	uint32_t srl = b->sr && op != NULL ? sr_hdr_len(op) : 0;
	uint16_t etype = l->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	struct rte_ether_hdr *eth = (void *)dst;
	struct rte_udp_hdr *udp;
	struct rnic_bth *bth;

	/* Bounding payload_len first keeps the length sums below from wrapping. */
	if (op == NULL || hlen + srl > cap || payload_len > UINT16_MAX)
		return 0;
	hlen += srl;
	udp_len = RNIC_UDP_HLEN + op->length + srl + payload_len + pad + RNIC_ICRC_LEN;
	if (udp_len + RNIC_IPV4_HLEN > UINT16_MAX)
		return 0;   /* IPv4's total length (IPv6's payload length: the same bound kept) */
	memcpy(&eth->dst_addr, l->dst_mac, 6);
	memcpy(&eth->src_addr, l->src_mac, 6);
	if (l->vlan) {
		struct rte_vlan_hdr *vh = (void *)(dst + RNIC_ETH_HLEN);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(l->vlan_tci);
		vh->eth_proto = rte_cpu_to_be_16(etype);
		l3 += RNIC_VLAN_HLEN;
	} else {
		eth->ether_type = rte_cpu_to_be_16(etype);
	}
	if (l->ipv6)
		build_ipv6((void *)(dst + l3), l, udp_len);
	else
		build_ipv4((void *)(dst + l3), l, udp_len);
	udp = (void *)(dst + l3 + l3h);
	udp->src_port = rte_cpu_to_be_16(l->udp_sport);
	udp->dst_port = rte_cpu_to_be_16(RNIC_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	udp->dgram_cksum = 0;
	bth = (void *)(dst + l3 + l3h + RNIC_UDP_HLEN);
	bth->opcode = b->opcode;
	bth->flags = (uint8_t)((b->se ? RNIC_BTH_SE : 0) | (b->mig ? RNIC_BTH_MIG : 0) |
			       (pad << RNIC_BTH_PAD_SHIFT));
	bth->pkey = rte_cpu_to_be_16(b->pkey);
	bth->fb = (uint8_t)((b->fecn ? RNIC_BTH_FECN : 0) | (b->becn ? RNIC_BTH_BECN : 0));
	rnic_put24(bth->dqpn, b->dqpn);
	bth->ack = (uint8_t)((b->ackreq ? RNIC_BTH_ACKREQ : 0) | (b->sr ? RNIC_BTH_SR : 0));
	rnic_put24(bth->psn, b->psn & RNIC_PSN_MASK);
	ext_write(op, (uint8_t *)bth, ext);
	if (srl)
		sreth_write(op, (uint8_t *)bth + op->length, ext);
	return hlen;
}

void
rnic_pkt_tmpl_init(struct rnic_pkt_tmpl *t, const struct rnic_l2l3 *l, uint16_t pkey,
		   uint32_t dqpn)
{
	const struct rnic_bth_fields b = { .opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_ACK),
					   .pkey = pkey, .dqpn = dqpn };
	const struct rnic_ext_fields ext = {0};
	uint32_t l3h = rnic_l3_hlen(l->ipv6);
	uint8_t *ip;
	struct rnic_bth *bth;

	memset(t, 0, sizeof(*t));
	t->ipv6 = l->ipv6;
	t->l3_off = l->vlan ? RNIC_ETH_HLEN + RNIC_VLAN_HLEN : RNIC_ETH_HLEN;
	t->len = (uint8_t)(t->l3_off + l3h + RNIC_UDP_HLEN + RNIC_BTH_LEN);
	rnic_pkt_build_hdrs(t->hdr, sizeof(t->hdr), l, &b, &ext, 0);
	/* What changes per packet is left zero. */
	memset(t->hdr + t->len, 0, sizeof(t->hdr) - t->len);
	ip = t->hdr + t->l3_off;
	if (l->ipv6) {
		((struct rte_ipv6_hdr *)ip)->payload_len = 0;
	} else {
		((struct rte_ipv4_hdr *)ip)->total_length = 0;
		((struct rte_ipv4_hdr *)ip)->hdr_checksum = 0;
	}
	((struct rte_udp_hdr *)(ip + l3h))->dgram_len = 0;
	bth = (struct rnic_bth *)(ip + l3h + RNIC_UDP_HLEN);
	bth->opcode = 0;
	bth->flags = 0;
	bth->ack = 0;
	rnic_put24(bth->psn, 0);
	if (!l->ipv6)
		t->ip_sum = __rte_raw_cksum(ip, RNIC_IPV4_HLEN, 0);
}

uint32_t
rnic_pkt_tmpl_build(uint8_t *dst, uint32_t cap, const struct rnic_pkt_tmpl *t,
		    const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
		    uint32_t payload_len)
{
	const struct rnic_opcode_info *op = rnic_opcode_info(b->opcode);
	uint8_t pad = rnic_pad_len(payload_len);
	uint32_t udp_len, hlen, sum, srl = b->sr && op != NULL ? sr_hdr_len(op) : 0;
	struct rnic_bth *bth;
	uint8_t *l4;
	rte_be16_t tl;

	if (op == NULL || payload_len > UINT16_MAX)
		return 0;
	hlen = t->len + op->length - RNIC_BTH_LEN + srl;
	udp_len = RNIC_UDP_HLEN + op->length + srl + payload_len + pad + RNIC_ICRC_LEN;
	if (hlen > cap || udp_len + RNIC_IPV4_HLEN > UINT16_MAX)
		return 0;
	if (unlikely(t->ipv6)) {
		struct rte_ipv6_hdr *ip6;

		rte_memcpy(dst, t->hdr, RNIC_TMPL_MAX <= cap ? RNIC_TMPL_MAX : t->len);
		ip6 = (struct rte_ipv6_hdr *)(dst + t->l3_off);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)udp_len);
		l4 = (uint8_t *)(ip6 + 1);
	} else {
		struct rte_ipv4_hdr *ip;

		rte_memcpy(dst, t->hdr, RNIC_TMPL_V4 <= cap ? RNIC_TMPL_V4 : t->len);
		ip = (struct rte_ipv4_hdr *)(dst + t->l3_off);
		tl = rte_cpu_to_be_16((uint16_t)(RNIC_IPV4_HLEN + udp_len));
		ip->total_length = tl;
		/* The template's sum plus the one word that changed (RFC 1624). */
		sum = t->ip_sum + tl;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip->hdr_checksum = (uint16_t)~sum;
		l4 = (uint8_t *)(ip + 1);
	}
	((struct rte_udp_hdr *)l4)->dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	bth = (struct rnic_bth *)(l4 + RNIC_UDP_HLEN);
	bth->opcode = b->opcode;
	bth->flags = (uint8_t)((b->se ? RNIC_BTH_SE : 0) | (pad << RNIC_BTH_PAD_SHIFT));
	bth->ack = (uint8_t)((b->ackreq ? RNIC_BTH_ACKREQ : 0) | (b->sr ? RNIC_BTH_SR : 0));
	rnic_put24(bth->psn, b->psn & RNIC_PSN_MASK);
	ext_write(op, (uint8_t *)bth, ext);
	if (srl)
		sreth_write(op, (uint8_t *)bth + op->length, ext);
	return hlen;
}

uint32_t
rnic_pkt_build_buf(uint8_t *dst, uint32_t cap, const struct rnic_l2l3 *l,
		   const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
		   const void *payload, uint32_t payload_len)
{
	uint32_t hlen, pad = rnic_pad_len(payload_len), total;
	uint32_t icrc;

	hlen = rnic_pkt_build_hdrs(dst, cap, l, b, ext, payload_len);
	if (hlen == 0)
		return 0;
	total = hlen + payload_len + pad + RNIC_ICRC_LEN;
	if (total > cap)
		return 0;
	if (payload_len)
		memcpy(dst + hlen, payload, payload_len);
	memset(dst + hlen + payload_len, 0, pad);
	icrc = rte_cpu_to_le_32(rnic_icrc_calc_buf(dst, l->vlan ? RNIC_ETH_HLEN + RNIC_VLAN_HLEN :
							     RNIC_ETH_HLEN, total));
	memcpy(dst + total - RNIC_ICRC_LEN, &icrc, 4);
	return total;
}

void
rnic_pkt_finish_icrc_mbuf(struct rte_mbuf *m, uint32_t l3_off)
{
	uint32_t len = rte_pktmbuf_pkt_len(m), icrc, off = 0, pos, left = RNIC_ICRC_LEN;
	const uint8_t *src = (const uint8_t *)&icrc;

	if (len < l3_off + RNIC_ICRC_LEN)
		return;
	pos = len - RNIC_ICRC_LEN;
	if (m->nb_segs == 1) {
		/* The frame being built is ours alone: one pass in place. */
		uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);

		icrc = rte_cpu_to_le_32(rnic_icrc_calc_inplace(l3, pos - l3_off));
		memcpy(l3 + pos - l3_off, &icrc, RNIC_ICRC_LEN);
		return;
	}
	icrc = rte_cpu_to_le_32(rnic_icrc_calc_mbuf(m, l3_off, len));
	/* The 4 ICRC bytes may straddle up to four segments. */
	for (struct rte_mbuf *s = m; s != NULL && left > 0; s = s->next) {
		uint32_t seg_hi = off + s->data_len;

		if (pos < seg_hi) {
			uint32_t n = RTE_MIN(left, seg_hi - pos);

			memcpy(rte_pktmbuf_mtod_offset(s, uint8_t *, pos - off), src, n);
			src += n;
			pos += n;
			left -= n;
		}
		off = seg_hi;
	}
}

int
rnic_pkt_format(char *buf, size_t size, const struct rnic_pkt *pkt)
{
	const struct rnic_ext_fields *e = &pkt->ext;
	rnic_opmask_t m;
	int n;

	if (pkt->op == NULL)
		return snprintf(buf, size, "opcode=0x%02x", pkt->bth.opcode);
	m = pkt->op->mask;
	n = snprintf(buf, size,
		     "%s dqpn=0x%06x psn=%u se=%d ackreq=%d mig=%d pad=%u pkey=0x%04x "
		     "fecn=%d becn=%d sport=%u payload=%u",
		     pkt->op->name, pkt->bth.dqpn, pkt->bth.psn, pkt->bth.se,
		     pkt->bth.ackreq, pkt->bth.mig, pkt->bth.pad, pkt->bth.pkey,
		     pkt->bth.fecn, pkt->bth.becn, pkt->l.udp_sport, pkt->payload_len);
#define APPEND(...) do { \
		if (n >= 0 && (size_t)n < size) \
			n += snprintf(buf + n, size - n, __VA_ARGS__); \
	} while (0)
	if (m & RNIC_M_DETH)
		APPEND(" deth(qkey=0x%08x,sqp=0x%06x)", e->deth_qkey, e->deth_sqp);
	if (m & RNIC_M_RETH)
		APPEND(" reth(va=0x%" PRIx64 ",rkey=0x%08x,len=%u)", e->reth_va,
		       e->reth_rkey, e->reth_len);
	if (m & RNIC_M_ATMETH)
		APPEND(" atomiceth(va=0x%" PRIx64 ",rkey=0x%08x,swap_add=0x%" PRIx64
		       ",cmp=0x%" PRIx64 ")", e->atm_va, e->atm_rkey, e->atm_swap_add,
		       e->atm_cmp);
	if (m & RNIC_M_AETH)
		APPEND(" aeth(syndrome=0x%02x,msn=%u)", e->aeth_syn, e->aeth_msn);
	if (m & RNIC_M_ATMACK)
		APPEND(" atomicacketh(orig=0x%" PRIx64 ")", e->atmack_orig);
	if (m & RNIC_M_IMMDT)
		APPEND(" immdt=0x%08x", rte_be_to_cpu_32(e->imm));
	if (m & RNIC_M_IETH)
		APPEND(" ieth(rkey=0x%08x)", e->ieth_rkey);
	if (pkt->bth.sr && (m & RNIC_M_ACK))
		APPEND(" sack(epsn=%u,map=%016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64 ")",
		       e->sr_aux, e->sack[3], e->sack[2], e->sack[1], e->sack[0]);
	else if (pkt->bth.sr)
		APPEND(" sreth(va=0x%" PRIx64 ",key=0x%08x,len=%u,aux=%u)", e->sr_va, e->sr_key,
		       e->sr_len, e->sr_aux);
	if (pkt->l.ipv6) {
		char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, pkt->l.src_ip6, src, sizeof(src));
		inet_ntop(AF_INET6, pkt->l.dst_ip6, dst, sizeof(dst));
		APPEND(" ipv6(src=%s,dst=%s,tclass=0x%02x,flow=0x%05x,hlim=%u)", src, dst,
		       pkt->l.tos, pkt->l.flow_label, pkt->l.ttl);
	}
#undef APPEND
	return n;
}
