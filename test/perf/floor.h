/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the floors (rnic-bench-floor, rnic-bench-floor-lat) share: the
 * header templates, the header checks, the QP and MR tables of a
 * minimal RoCEv2 engine. Port A's MAC and IPv4 address end in 1, B's
 * in 2; one RC QP, number QPN, at each end (the _qp and _tbl forms: QP
 * numbers from QPN up, for rnic-bench-floor -q).
 */
#ifndef FLOOR_H
#define FLOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rnic_wire.h"

#define UDP_PORT 4791
#define QPN 0x11
#define TABLE 1024                  /* QPs and MRs, indexed as the engine's */
#define QPS_RTS 3
#define ACCESS_REMOTE_WRITE 2

/* The WRITE's headers after the IP header: UDP, BTH, RETH. */
#define L3 14u
#define W_HLEN (20u + 8u + 12u + 16u)
#define A_HLEN (20u + 8u + 12u + 4u)

struct fmr {
	uint8_t *addr;
	uint64_t iova, length;
	uint32_t key;
	int access;
	const void *pd;
	uint8_t valid;
};

struct fqp {
	uint32_t qpn, epsn, msn;
	uint16_t pkey;
	uint8_t state;
	const void *pd;
};

/* Ethernet and IPv4 (checksum included: every frame of a size has the
 * same IP header) and UDP of a frame with @p l4 bytes after the IP header,
 * from port A (MAC and IP ending in 1) to B (2), or back (@p to_a). */
static inline void
tmpl_l2l4(uint8_t *t, uint32_t l4, bool to_a)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t + L3);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t dst = to_a ? 1 : 2, src = to_a ? 2 : 1;

	memset(t, 0, L3 + 28);
	t[0] = 2; t[5] = dst; t[6] = 2; t[11] = src;
	t[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000000 | src);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000000 | dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(49152);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4);
}

/* The MR of @p key in @p t if it is valid and allows @p access to
 * [va, va + len) for @p pd; @p va as the MR's iova counts. */
static inline const uint8_t *
mr_check(struct fmr *const *t, uint32_t key, const void *pd, int access, uint64_t va,
	 uint32_t len)
{
	const struct fmr *mr = t[(key >> 8) & (TABLE - 1)];

	if (mr == NULL || !mr->valid || mr->key != key || mr->pd != pd ||
	    (mr->access & access) != access || va < mr->iova || len > mr->length ||
	    va - mr->iova > mr->length - len)
		return NULL;
	return mr->addr + (va - mr->iova);
}

/* Whether the 20-byte IPv4 header at @p h sums to all ones (its
 * checksum is right): five 32-bit words, folded. */
static inline bool
ip4_sum_ok(const void *h)
{
	uint32_t w[5];
	uint64_t sum;

	memcpy(w, h, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* Ethernet, IPv4 (checksum included) and UDP of a received frame of
 * @p len bytes from @p src to @p dst (last byte of the MAC, of the IP)
 * with at least @p hlen bytes of headers from the IP header on. */
static inline bool
l2l4_ok(const uint8_t *f, uint32_t len, uint32_t hlen, uint8_t dst)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + L3);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	static const uint8_t mac[5] = { 2, 0, 0, 0, 0 };

	return len >= L3 + hlen + RNIC_ICRC_LEN && memcmp(f, mac, 5) == 0 && f[5] == dst &&
	       f[12] == 0x08 && f[13] == 0 && ip->version_ihl == 0x45 &&
	       ip->next_proto_id == IPPROTO_UDP && (ip->fragment_offset & rte_cpu_to_be_16(0x3fff)) == 0 &&
	       rte_be_to_cpu_16(ip->total_length) == len - L3 &&
	       ip->dst_addr == rte_cpu_to_be_32(0x0a000000 | dst) && ip4_sum_ok(ip) &&
	       udp->dst_port == rte_cpu_to_be_16(UDP_PORT) &&
	       rte_be_to_cpu_16(udp->dgram_len) == len - L3 - 20;
}

/* The headers of a WRITE Only of @p len bytes (its IP and UDP lengths,
 * its pad count) to port A (@p to_a) or B, up to the RETH. */
static inline void
floor_tmpl_write(uint8_t t[L3 + W_HLEN], uint32_t len, bool to_a)
{
	struct rnic_bth *b = (struct rnic_bth *)(t + L3 + 28);
	uint32_t pad = (4 - (len & 3)) & 3;

	memset(t, 0, L3 + W_HLEN);
	tmpl_l2l4(t, 8 + 12 + 16 + len + pad + RNIC_ICRC_LEN, to_a);
	b->opcode = RNIC_OP_WRITE_ONLY;
	b->flags = (uint8_t)(pad << RNIC_BTH_PAD_SHIFT);
	b->pkey = rte_cpu_to_be_16(0xffff);
	rnic_put24(b->dqpn, QPN);
}

/* The headers of an ACK to port A (@p to_a) or B, up to the AETH. */
static inline void
floor_tmpl_ack(uint8_t t[L3 + A_HLEN], bool to_a)
{
	struct rnic_bth *b = (struct rnic_bth *)(t + L3 + 28);

	memset(t, 0, L3 + A_HLEN);
	tmpl_l2l4(t, 8 + 12 + 4 + RNIC_ICRC_LEN, to_a);
	b->opcode = RNIC_OP_ACK;
	b->pkey = rte_cpu_to_be_16(0xffff);
	rnic_put24(b->dqpn, QPN);
}

/* A WRITE Only to QP @p dqpn built at @p f from its template
 * (floor_tmpl_write of @p len) and sealed; its length. */
static inline uint32_t
floor_write_build_qp(uint8_t *f, const uint8_t *tmpl, uint32_t dqpn, uint32_t psn, bool ackreq,
		     uint64_t va, uint32_t rkey, const uint8_t *src, uint32_t len)
{
	struct rnic_bth *b = (struct rnic_bth *)(f + L3 + 28);
	struct rnic_reth *e = (struct rnic_reth *)(b + 1);
	uint32_t pad = (4 - (len & 3)) & 3, icrc;

	memcpy(f, tmpl, L3 + W_HLEN);
	rnic_put24(b->dqpn, dqpn);
	rnic_put24(b->psn, psn);
	b->ack = ackreq ? RNIC_BTH_ACKREQ : 0;
	e->va = rte_cpu_to_be_64(va);
	e->rkey = rte_cpu_to_be_32(rkey);
	e->len = rte_cpu_to_be_32(len);
	memcpy(f + L3 + W_HLEN, src, len);
	memset(f + L3 + W_HLEN + len, 0, pad);
	icrc = rte_cpu_to_le_32(rnic_icrc_calc_inplace(f + L3, W_HLEN + len + pad));
	memcpy(f + L3 + W_HLEN + len + pad, &icrc, RNIC_ICRC_LEN);
	return L3 + W_HLEN + len + pad + RNIC_ICRC_LEN;
}

/* The same to the one QP, QPN. */
static inline uint32_t
floor_write_build(uint8_t *f, const uint8_t *tmpl, uint32_t psn, bool ackreq, uint64_t va,
		  uint32_t rkey, const uint8_t *src, uint32_t len)
{
	return floor_write_build_qp(f, tmpl, QPN, psn, ackreq, va, rkey, src, len);
}

/* An ACK to QP @p dqpn up to @p psn, MSN @p msn, built at @p f and
 * sealed; its length. */
static inline uint32_t
floor_ack_build_qp(uint8_t *f, const uint8_t *tmpl, uint32_t dqpn, uint32_t psn, uint32_t msn)
{
	struct rnic_bth *b = (struct rnic_bth *)(f + L3 + 28);
	struct rnic_aeth *a = (struct rnic_aeth *)(b + 1);
	uint32_t icrc;

	memcpy(f, tmpl, L3 + A_HLEN);
	rnic_put24(b->dqpn, dqpn);
	rnic_put24(b->psn, psn);
	a->smsn = rte_cpu_to_be_32(msn);   /* syndrome 0: ACK */
	icrc = rte_cpu_to_le_32(rnic_icrc_calc_inplace(f + L3, A_HLEN));
	memcpy(f + L3 + A_HLEN, &icrc, RNIC_ICRC_LEN);
	return L3 + A_HLEN + RNIC_ICRC_LEN;
}

static inline uint32_t
floor_ack_build(uint8_t *f, const uint8_t *tmpl, uint32_t psn, uint32_t msn)
{
	return floor_ack_build_qp(f, tmpl, QPN, psn, msn);
}

/* A work request as the application writes it: one cache line. */
struct wqe {
	uint64_t wr_id;
	uint64_t laddr, raddr;
	uint32_t len, lkey, rkey;
	uint8_t signaled;
} __rte_aligned(64);

/*
 * The requests @p sq[(first + i) % depth], i < @p n, as WRITE Onlys to
 * QPN into @p m (AckReq on the last), PSN @p psn0 + i, each source MR
 * checked (@p mrs, @p pd) and each frame given a second reference, kept
 * with (signaled << 63) | wr_id in @p held and @p held_wr at its PSN &
 * @p hmask until acknowledged. False, with @p m freed, where a source
 * check fails.
 */
static inline bool
floor_writes_build(struct rte_mbuf **m, unsigned int n, const struct wqe *sq, uint32_t depth,
		   uint32_t first, uint32_t psn0, const uint8_t *tmpl, struct fmr *const *mrs,
		   const void *pd, struct rte_mbuf **held, uint64_t *held_wr, uint32_t hmask)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct wqe *w = &sq[(first + i) % depth];
		uint32_t psn = (psn0 + i) & RNIC_PSN_MASK;
		const uint8_t *src = mr_check(mrs, w->lkey, pd, 0, w->laddr, w->len);

		if (src == NULL) {
			rte_pktmbuf_free_bulk(m, n);
			return false;
		}
		m[i]->data_len = (uint16_t)floor_write_build_qp(rte_pktmbuf_mtod(m[i], uint8_t *),
								tmpl, QPN, psn, i == n - 1, w->raddr,
								w->rkey, src, w->len);
		m[i]->pkt_len = m[i]->data_len;
		rte_mbuf_refcnt_update(m[i], 1);   /* kept until acknowledged */
		held[psn & hmask] = m[i];
		held_wr[psn & hmask] = ((uint64_t)w->signaled << 63) | w->wr_id;
	}
	return true;
}

/* The frames of @p m from @p sent to @p n, which rte_eth_tx_burst did not
 * take: not kept either (their request is built again next time). */
static inline void
floor_unsent_free(struct rte_mbuf **m, unsigned int sent, unsigned int n)
{
	for (unsigned int i = sent; i < n; i++) {
		rte_mbuf_refcnt_update(m[i], -1);
		rte_pktmbuf_free(m[i]);
	}
}

/* The frame's BTH opcode, or -1 where it is too short to have a BTH. */
static inline int
floor_opcode(const uint8_t *f, uint32_t len)
{
	return len >= L3 + 20 + 8 + 12 ? f[L3 + 28] : -1;
}

/*
 * A received WRITE Only to port @p me (1 for A, 2 for B) of @p len
 * bytes, @p ahead its ICRC from rnic_pkt_icrc_ahead: headers, ICRC, QP
 * (state, P_Key, PSN) and MR (R_Key, PD, access, bounds) checked, the
 * payload placed and the QP's PSN and MSN moved on. Returns the QP, or
 * NULL for a frame to drop; *ackreq: whether it asked for an ACK.
 */
static inline struct fqp *
floor_write_rx_tbl(const uint8_t *f, uint32_t len, uint64_t ahead, struct fqp *const *qps,
		   uint32_t qmask, struct fmr *const *mrs, uint8_t me, bool *ackreq)
{
	const struct rnic_bth *b = (const struct rnic_bth *)(f + L3 + 28);
	const struct rnic_reth *e = (const struct rnic_reth *)(b + 1);
	uint32_t icrc, plen, dqpn;
	struct fqp *qp;
	uint8_t *dst;

	if (!l2l4_ok(f, len, W_HLEN, me) || !(ahead >> 32))
		return NULL;
	memcpy(&icrc, f + len - RNIC_ICRC_LEN, RNIC_ICRC_LEN);
	dqpn = __bth_dqpn(b);
	qp = qps[dqpn & qmask];
	if ((uint32_t)ahead != rte_le_to_cpu_32(icrc) || __bth_tver(b) != 0 ||
	    b->opcode != RNIC_OP_WRITE_ONLY || qp == NULL || qp->qpn != dqpn ||
	    qp->state != QPS_RTS || __bth_pkey(b) != qp->pkey || __bth_psn(b) != qp->epsn)
		return NULL;
	plen = len - L3 - W_HLEN - RNIC_ICRC_LEN;
	if (__bth_pad(b) > plen)
		return NULL;
	plen -= __bth_pad(b);
	dst = __reth_len(e) != plen ? NULL :
		(uint8_t *)(uintptr_t)mr_check(mrs, __reth_rkey(e), qp->pd, ACCESS_REMOTE_WRITE,
					       __reth_va(e), plen);
	if (dst == NULL)
		return NULL;
	memcpy(dst, f + L3 + W_HLEN, plen);
	qp->epsn = (qp->epsn + 1) & RNIC_PSN_MASK;
	qp->msn = (qp->msn + 1) & 0xffffff;
	*ackreq = __bth_ackreq(b);
	return qp;
}

/* The same with a QP table of TABLE entries. */
static inline struct fqp *
floor_write_rx(const uint8_t *f, uint32_t len, uint64_t ahead, struct fqp *const *qps,
	       struct fmr *const *mrs, uint8_t me, bool *ackreq)
{
	return floor_write_rx_tbl(f, len, ahead, qps, TABLE - 1, mrs, me, ackreq);
}

/* A received ACK to port @p me, checked as floor_write_rx's frames; true
 * with its QP in *dqpn and the PSN it acknowledges up to in *psn. */
static inline bool
floor_ack_rx_qp(const uint8_t *f, uint32_t len, uint64_t ahead, uint8_t me, uint32_t *dqpn,
		uint32_t *psn)
{
	const struct rnic_bth *b = (const struct rnic_bth *)(f + L3 + 28);
	const struct rnic_aeth *a = (const struct rnic_aeth *)(b + 1);
	uint32_t icrc;

	if (len != L3 + A_HLEN + RNIC_ICRC_LEN || !l2l4_ok(f, len, A_HLEN, me) || !(ahead >> 32))
		return false;
	memcpy(&icrc, f + L3 + A_HLEN, RNIC_ICRC_LEN);
	if ((uint32_t)ahead != rte_le_to_cpu_32(icrc) || __bth_tver(b) != 0 ||
	    b->opcode != RNIC_OP_ACK || __aeth_syn(a) != 0)
		return false;
	*dqpn = __bth_dqpn(b);
	*psn = __bth_psn(b);
	return true;
}

/* The same for the one QP, QPN. */
static inline bool
floor_ack_rx(const uint8_t *f, uint32_t len, uint64_t ahead, uint8_t me, uint32_t *psn)
{
	uint32_t dqpn;

	return floor_ack_rx_qp(f, len, ahead, me, &dqpn, psn) && dqpn == QPN;
}

#endif
