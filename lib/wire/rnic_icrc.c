/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC for RoCEv2 (IBA annex A17): CRC-32 over 8 bytes of 0xFF standing for
 * the LRH, the IPv4 header with TOS, TTL and checksum set to ones (IPv6:
 * traffic class, flow label and hop limit), the UDP header with its
 * checksum set to ones, BTH with its FECN/BECN/reserved byte
 * set to ones, then everything up to the ICRC. ISA-L does the CRC: it takes
 * a seed, so the masked header block and each mbuf segment chain cheaply.
 */
#include <isa-l/crc.h>

#include <rte_mbuf.h>

#include "rnic_wire.h"

/* Masked pseudo-header: LRH stand-in + IP + UDP + BTH. */
#define ICRC_LRH_LEN 8
#define ICRC_HDRS_V4 (RNIC_IPV4_HLEN + RNIC_UDP_HLEN + RNIC_BTH_LEN)
#define ICRC_HDRS_V6 (RNIC_IPV6_HLEN + RNIC_UDP_HLEN + RNIC_BTH_LEN)
#define ICRC_PH_MAX (ICRC_LRH_LEN + ICRC_HDRS_V6)
/* The CRC state after the 8 bytes of 0xFF (zlib.crc32(b"\xff" * 8)); a
 * unit test checks it against rnic_crc32. */
#define ICRC_SEED_LRH 0x2144df1cu
/* The masked bytes, from the start of the IPv4 header. */
#define ICRC_IP_TOS  1
#define ICRC_IP_TTL  8
#define ICRC_IP_CSUM 10
/* From the start of the IPv6 header: traffic class and flow label (the
 * low nibble of byte 0 and bytes 1-3), the hop limit. */
#define ICRC_IP6_TCFL 0
#define ICRC_IP6_HOPS 7
/* From the start of the UDP header. */
#define ICRC_UDP_CSUM 6
#define ICRC_BTH_FB   (RNIC_UDP_HLEN + 4)
/* Frames up to this long (from the IPv4 header) are checked in one CRC
 * pass over a masked copy: cheaper than two passes (doc/benchmarks.md). */
#define ICRC_COPY_MAX 512

#ifdef RTE_ARCH_X86
/*
 * ISA-L's AVX-512 CRC returns with the upper halves of the vector registers
 * dirty and leaves clearing them to the caller (intel/isa-l#24). Until they
 * are cleared every legacy-SSE instruction after it, ours and DPDK's, pays
 * the AVX-SSE transition: a 1 KB ICRC took 265 ns instead of 75 ns.
 */
__attribute__((target("avx"))) static void
icrc_vzeroupper(void)
{
	__builtin_ia32_vzeroupper();
}

static int icrc_has_avx = -1;

#ifdef RNIC_ISAL_CRC_BY8
/*
 * Small buffers (a 64 B WRITE's frame, an ACK) go straight to ISA-L's
 * SSE4.1/PCLMUL variant, which ISA-L exports but does not declare. Its
 * dispatcher costs an indirect jump on every call, and the variants it
 * picks on AVX machines a vzeroupper after: together more than the CRC
 * of a 78 B frame here (doc/benchmarks.md, "What each change bought").
 * Larger buffers go there too unless the CPU has VPCLMULQDQ, the only
 * case in which the dispatcher picks a faster variant (AVX-512, 16 lanes
 * of 64 bytes): without it, it picks the same 8-lane fold and only adds
 * its cost (one CRC, buffers in L2, on the 2-vCPU Intel VM without
 * VPCLMULQDQ: 256 B 59 against 92 cycles, 1100 B 194 against 205, 4150 B
 * 949 against 979).
 */
uint32_t crc32_gzip_refl_by8(uint32_t crc, const unsigned char *buf, uint64_t len);
#define ICRC_DIRECT_MAX 256
/* Buffers shorter than this go to crc32_gzip_refl_by8 (0: none, the CPU
 * lacks PCLMUL or SSE4.1; UINT64_MAX: all, it lacks VPCLMULQDQ). */
static uint64_t icrc_direct_max;
#endif

static void
icrc_cpu_init(void)
{
	__builtin_cpu_init();
	icrc_has_avx = __builtin_cpu_supports("avx");
#ifdef RNIC_ISAL_CRC_BY8
	if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1"))
		icrc_direct_max = 0;
	else if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq"))
		icrc_direct_max = ICRC_DIRECT_MAX;
	else
		icrc_direct_max = UINT64_MAX;
#endif
}
#endif

uint32_t
rnic_crc32(uint32_t crc, const void *buf, uint64_t len)
{
#ifdef RTE_ARCH_X86
	if (unlikely(icrc_has_avx < 0))
		icrc_cpu_init();
#ifdef RNIC_ISAL_CRC_BY8
	if (len < icrc_direct_max)
		return crc32_gzip_refl_by8(crc, (const unsigned char *)buf, len);
#endif
#endif
	crc = crc32_gzip_refl(crc, (const unsigned char *)buf, len);
#ifdef RTE_ARCH_X86
	if (icrc_has_avx)
		icrc_vzeroupper();
#endif
	return crc;
}

/* IP + UDP + BTH bytes of the frame whose IP header is at @p l3. */
static inline uint32_t
icrc_hdrs(const uint8_t *l3)
{
	return (l3[0] >> 4) == 6 ? ICRC_HDRS_V6 : ICRC_HDRS_V4;
}

/* Set the invariant-masked fields of the headers at @p l3 to ones. */
static inline void
icrc_mask(uint8_t *l3)
{
	uint8_t *udp;

	if ((l3[0] >> 4) == 6) {
		l3[ICRC_IP6_TCFL] |= 0x0f;
		l3[ICRC_IP6_TCFL + 1] = l3[ICRC_IP6_TCFL + 2] = l3[ICRC_IP6_TCFL + 3] = 0xff;
		l3[ICRC_IP6_HOPS] = 0xff;
		udp = l3 + RNIC_IPV6_HLEN;
	} else {
		l3[ICRC_IP_TOS] = 0xff;
		l3[ICRC_IP_TTL] = 0xff;
		l3[ICRC_IP_CSUM] = l3[ICRC_IP_CSUM + 1] = 0xff;
		udp = l3 + RNIC_IPV4_HLEN;
	}
	udp[ICRC_UDP_CSUM] = udp[ICRC_UDP_CSUM + 1] = 0xff;
	udp[ICRC_BTH_FB] = 0xff;         /* FECN/BECN/resv6 */
}

/* Build the masked pseudo header (@p hdrs bytes of IP/UDP/BTH at @p l3). */
static void
icrc_pseudo(uint8_t ph[ICRC_PH_MAX], const uint8_t *l3, uint32_t hdrs)
{
	memset(ph, 0xff, ICRC_LRH_LEN);
	memcpy(ph + ICRC_LRH_LEN, l3, hdrs);
	icrc_mask(ph + ICRC_LRH_LEN);
}

uint32_t
rnic_icrc_calc_inplace(uint8_t *l3, uint32_t n)
{
	uint8_t saved[ICRC_HDRS_V6];
	uint32_t crc, hdrs = icrc_hdrs(l3);

	if (n < hdrs)
		return 0;
	memcpy(saved, l3, hdrs);
	icrc_mask(l3);
	crc = rnic_crc32(ICRC_SEED_LRH, l3, n);
	memcpy(l3, saved, hdrs);
	return crc;
}

/* A short frame: one pass over a masked copy of [l3, l3 + n). */
static uint32_t
icrc_copy(const uint8_t *l3, uint32_t n)
{
	uint8_t buf[ICRC_COPY_MAX];

	memcpy(buf, l3, n);
	icrc_mask(buf);
	return rnic_crc32(ICRC_SEED_LRH, buf, n);
}

uint32_t
rnic_icrc_calc_buf(const uint8_t *frame, uint32_t l3_off, uint32_t len)
{
	uint8_t ph[ICRC_PH_MAX];
	uint32_t hdrs, start, crc;

	if (len < l3_off + ICRC_HDRS_V4 + RNIC_ICRC_LEN)
		return 0;
	hdrs = icrc_hdrs(frame + l3_off);
	start = l3_off + hdrs;
	if (len < start + RNIC_ICRC_LEN)
		return 0;
	if (len - RNIC_ICRC_LEN - l3_off <= ICRC_COPY_MAX)
		return icrc_copy(frame + l3_off, len - RNIC_ICRC_LEN - l3_off);
	icrc_pseudo(ph, frame + l3_off, hdrs);
	crc = rnic_crc32(0, ph, ICRC_LRH_LEN + hdrs);
	return rnic_crc32(crc, frame + start, len - RNIC_ICRC_LEN - start);
}

uint32_t
rnic_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint8_t ph[ICRC_PH_MAX], tmp[ICRC_HDRS_V6];
	uint32_t hdrs, start, end, off, crc;
	const uint8_t *l3;

	if (len < l3_off + ICRC_HDRS_V4 + RNIC_ICRC_LEN || len > rte_pktmbuf_pkt_len(m))
		return 0;
	l3 = rte_pktmbuf_read(m, l3_off, 1, tmp);
	hdrs = icrc_hdrs(l3);
	start = l3_off + hdrs;
	if (len < start + RNIC_ICRC_LEN)
		return 0;
	if (len <= m->data_len && len - RNIC_ICRC_LEN - l3_off <= ICRC_COPY_MAX)
		return icrc_copy(rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off),
				 len - RNIC_ICRC_LEN - l3_off);
	l3 = rte_pktmbuf_read(m, l3_off, hdrs, tmp);
	icrc_pseudo(ph, l3, hdrs);
	crc = rnic_crc32(0, ph, ICRC_LRH_LEN + hdrs);

	/* Walk the segments over [start, len - 4). */
	end = len - RNIC_ICRC_LEN;
	off = 0;
	for (const struct rte_mbuf *s = m; s != NULL && off < end; s = s->next) {
		uint32_t seg_lo = off, seg_hi = off + s->data_len;
		uint32_t lo = RTE_MAX(seg_lo, start), hi = RTE_MIN(seg_hi, end);

		if (lo < hi)
			crc = rnic_crc32(crc, rte_pktmbuf_mtod_offset(s, const uint8_t *,
						lo - seg_lo), hi - lo);
		off = seg_hi;
	}
	return crc;
}
