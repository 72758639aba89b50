/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC for RoCEv2 (IBA annex A17): CRC-32 over 8 bytes of 0xFF standing for
 * the LRH, the IPv4 header with TOS, TTL and checksum set to ones (IPv6:
 * traffic class, flow label and hop limit), the UDP header with its
 * checksum set to ones, BTH with its FECN/BECN/reserved byte
 * set to ones, then everything up to the ICRC. ISA-L does the CRC: it takes
 * a seed, so the masked header block and each mbuf segment chain cheaply.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

static inline void icrc_mask(uint8_t *l3);

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

static bool icrc_has_avx;

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

/*
 * CPUs with VPCLMULQDQ but not AVX-512 (AMD Zen 3, for one) get nothing
 * faster from ISA-L 2.30 than its 8-lane 128-bit fold, which runs there
 * at about 12 bytes a nanosecond: on the 2-vCPU AMD EPYC VM 60% of the
 * engine lcore went to it at 4 KiB (doc/benchmarks.md, "The ICRC on AMD
 * Zen 3"). The fold below carries two 256-bit accumulators (four 128-bit
 * lanes, 64 B a step). One CRC of a buffer in L1 there: 1.2-1.3x ISA-L's
 * speed at 320-576 bytes, 1.5-1.9x from 1 KiB up; at 256 bytes and below
 * ISA-L is as fast or faster, so buffers from ICRC_FOLD_MIN bytes take
 * it. Four accumulators were no faster (164 ns for 4 KiB either way: the
 * multiplier's throughput is the bound, not its latency).
 *
 * A step multiplies each 128-bit lane by x^D modulo P (D the distance it
 * moves forward, in bits) and adds the data there, the way the Linux
 * kernel's and zlib's PCLMUL CRCs fold 128-bit lanes. In the bit-reflected
 * domain the lane's low quadword (the earlier bytes) is multiplied by
 * k(D + 32) and the high by k(D - 32), k(n) = reflect32(x^n mod P) << 1,
 * P = 0x104C11DB7. The lanes are folded into one 16-byte remainder whose
 * CRC (register starting at zero) followed by the bytes left over equals
 * the CRC of the whole buffer: ISA-L's fold finishes those 16-47 bytes.
 * RNIC_ICRC_NO_FOLD in the environment turns it off, and the short-buffer
 * CRC below with it (for A/B runs of one binary).
 */
#define ICRC_FOLD_MIN 288
#define ICRC_K544 0x154442bd4ull /* D = 512: the 64-byte step */
#define ICRC_K480 0x1c6e41596ull
#define ICRC_K288 0x0f1da05aaull /* D = 256: one accumulator into the next */
#define ICRC_K224 0x15a546366ull
#define ICRC_K160 0x1751997d0ull /* D = 128: lane into lane */
#define ICRC_K96  0x0ccaa009eull
#if defined(__GNUC__) && !defined(RNIC_ICRC_NO_FOLD)
#define ICRC_FOLD 1
#include <immintrin.h>

static bool icrc_has_fold;

/* acc * k (each lane's quadwords by k's) + data: one fold step. */
#define ICRC_FOLD256(acc, k, data)                                            \
	_mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(acc, k, 0x00), \
					  _mm256_clmulepi64_epi128(acc, k, 0x11)), \
			 data)

/* Load 32 bytes at @p p, and store them at @p d when copying. */
static inline __attribute__((always_inline, target("avx2,vpclmulqdq,pclmul"))) __m256i
icrc_ld(const uint8_t *p, uint8_t *d, const bool copy)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);

	if (copy)
		_mm256_storeu_si256((__m256i *)d, v);
	return v;
}

/*
 * Fold the @p pre bytes at @p pb (a multiple of 64: zero, or from 64),
 * then the @p len bytes at @p p, into the 16 bytes at @p rem, the CRC
 * register @p reg added to the first four bytes. When @p copy, the bytes
 * at @p p are copied to @p d on the way. len >= 64 when pre is zero.
 * Returns where the bytes not folded (under 32) start.
 */
static inline __attribute__((always_inline, target("avx2,vpclmulqdq,pclmul"))) const uint8_t *
icrc_fold_run(uint32_t reg, const uint8_t *pb, uint64_t pre, const uint8_t *p, uint64_t len,
	      uint8_t *d, uint8_t rem[16], const bool copy)
{
	const __m256i k512 = _mm256_set_epi64x(ICRC_K480, ICRC_K544, ICRC_K480, ICRC_K544);
	const __m256i k256 = _mm256_set_epi64x(ICRC_K224, ICRC_K288, ICRC_K224, ICRC_K288);
	const __m128i k128 = _mm_set_epi64x(ICRC_K96, ICRC_K160);
	const __m256i r = _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)reg);
	const uint8_t *end = p + len, *end64 = p + (len & ~(uint64_t)63);
	__m256i a0, a1;
	__m128i lo, hi;

	if (pre > 0) {
		const uint8_t *pbend = pb + pre;

		a0 = _mm256_xor_si256(icrc_ld(pb, NULL, false), r);
		a1 = icrc_ld(pb + 32, NULL, false);
		for (pb += 64; pb < pbend; pb += 64) {
			a0 = ICRC_FOLD256(a0, k512, icrc_ld(pb, NULL, false));
			a1 = ICRC_FOLD256(a1, k512, icrc_ld(pb + 32, NULL, false));
		}
	} else {
		a0 = _mm256_xor_si256(icrc_ld(p, d, copy), r);
		a1 = icrc_ld(p + 32, d + 32, copy);
		p += 64;
		d += 64;
	}
	for (; p < end64; p += 64, d += 64) {
		a0 = ICRC_FOLD256(a0, k512, icrc_ld(p, d, copy));
		a1 = ICRC_FOLD256(a1, k512, icrc_ld(p + 32, d + 32, copy));
	}
	a0 = ICRC_FOLD256(a0, k256, a1);
	if (p + 32 <= end) {
		a0 = ICRC_FOLD256(a0, k256, icrc_ld(p, d, copy));
		p += 32;
	}
	lo = _mm256_castsi256_si128(a0);
	hi = _mm256_extracti128_si256(a0, 1);
	lo = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(lo, k128, 0x00),
					 _mm_clmulepi64_si128(lo, k128, 0x11)), hi);
	_mm_storeu_si128((__m128i *)rem, lo);
	return p;
}

/* A fold's two forms (copying or not) as one function for the CPU it
 * needs: @p run inlined with copy a constant in each. */
#define ICRC_FOLD_BODY(name, run, tgt)                                           \
	__attribute__((target(tgt))) static const uint8_t *                      \
	name(uint32_t reg, const uint8_t *pb, uint64_t pre, const uint8_t *p,     \
	     uint64_t len, uint8_t *d, uint8_t rem[16], const bool copy)          \
	{                                                                        \
		if (copy)                                                        \
			return run(reg, pb, pre, p, len, d, rem, true);          \
		return run(reg, pb, pre, p, len, d, rem, false);                 \
	}

ICRC_FOLD_BODY(icrc_fold256_body, icrc_fold_run, "avx2,vpclmulqdq,pclmul")

/*
 * The same fold with AVX-512 (CPUs with AVX512F and VPCLMULQDQ: AMD Zen 4,
 * Intel Ice Lake and later), where ISA-L's own AVX-512 CRC beat the 256-bit
 * fold above (doc/benchmarks.md): four 512-bit accumulators (sixteen
 * 128-bit lanes, 256 bytes a step, as ISA-L's by16). What it adds to
 * ISA-L's is the copy (TX writes the payload into the frame as it folds
 * it) and the headers masked as they are loaded (a mask or-ed into the
 * first 64 bytes: no copy of them, no write to the frame, whose
 * just-written bytes a wide load then waited for: 1.036-1.073x by in-run
 * A/B against masking in place or in a copy). Its end
 * is short, for frames of 1 KiB: the 0-3 whole blocks after the last
 * step go to the accumulators side by side, the four merge as a tree,
 * and the merged lanes and the 0-3 whole 16-byte chunks after them fold
 * to the last in one multiplication each (against folding one after
 * another: 1 KiB 1.024x, 4 KiB at PMTU 1024 1.032x by in-run A/B). Needs
 * pre + len >= 256; leaves under 16 bytes.
 */
#define ICRC_K2080 0x11542778aull /* D = 2048: the 256-byte step */
#define ICRC_K2016 0x1322d1430ull
#define ICRC_K416  0x03db1ecdcull /* D = 384: the first lane onto the last */
#define ICRC_K352  0x174359406ull

static bool icrc_has_fold512;
/* The ICRC's masked fields of an IPv4 or IPv6 frame from its IP header
 * (TOS or traffic class and flow label, TTL or hop limit, the IPv4
 * header checksum, the UDP checksum, BTH's FECN/BECN/resv6 byte) as
 * ones, zeros elsewhere: icrc_mask applied to zeros at load time
 * (icrc_cpu_init), so that the fields are named in one place. IPv4's
 * fall in the first 48 bytes, which icrc_small_run's mask covers at
 * every length; IPv6's in the first 64. */
static uint8_t icrc_mask_v4[64], icrc_mask_v6[64];

static inline const uint8_t *
icrc_mask_for(const uint8_t *l3)
{
	return (l3[0] >> 4) == 6 ? icrc_mask_v6 : icrc_mask_v4;
}

#define ICRC_FOLD512(acc, k, data)                                            \
	_mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),     \
				  _mm512_clmulepi64_epi128(acc, k, 0x11), data, 0x96)

/* The stream's 64-byte block @p i: from the @p npre blocks at @p pb, then
 * from @p p (stored at @p d on the way when copying). */
static inline __attribute__((always_inline, target("avx512f,avx2,vpclmulqdq,pclmul"))) __m512i
icrc_blk512(const uint8_t *pb, uint64_t npre, const uint8_t *p, uint8_t *d, uint64_t i,
	    const bool copy)
{
	__m512i v;

	if (i < npre)
		return _mm512_loadu_si512((const void *)(pb + 64 * i));
	i -= npre;
	v = _mm512_loadu_si512((const void *)(p + 64 * i));
	if (copy)
		_mm512_storeu_si512((void *)(d + 64 * i), v);
	return v;
}

/*
 * After the last whole block, k (0-3) 16-byte chunks of the stream may
 * follow: each 128-bit lane j of the merged accumulator moves (3 - j + k)
 * 128 bits (k = 0: lane 3 stays, its constants unused), all in one
 * multiplication, k(D + 32) for the low quadword, k(D - 32) the high.
 */
#define ICRC_KD128 ICRC_K160, ICRC_K96
#define ICRC_KD256 ICRC_K288, ICRC_K224
#define ICRC_KD384 ICRC_K416, ICRC_K352
#define ICRC_KD512 ICRC_K544, ICRC_K480
#define ICRC_KD640 0x1c7569e54ull, 0x0ae0b5394ull
#define ICRC_KD768 0x0df068dc2ull, 0x18cb44e58ull
static const uint64_t icrc_klanes512[4][8] __attribute__((aligned(64))) = {
	{ ICRC_KD384, ICRC_KD256, ICRC_KD128, 0, 0 },
	{ ICRC_KD512, ICRC_KD384, ICRC_KD256, ICRC_KD128 },
	{ ICRC_KD640, ICRC_KD512, ICRC_KD384, ICRC_KD256 },
	{ ICRC_KD768, ICRC_KD640, ICRC_KD512, ICRC_KD384 },
};
#define ICRC_K1056 0x1e88ef372ull /* D = 1024: two accumulators onto two */
#define ICRC_K992  0x14a7fe880ull

/* 16 bytes at @p p (stored at @p d when copying), moved on by @p k's
 * distance (zero: as they are). */
static inline __attribute__((always_inline, target("avx512f,avx2,vpclmulqdq,pclmul"))) __m128i
icrc_chunk128(const uint8_t *p, uint8_t *d, const __m128i *k, const bool copy)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	if (copy)
		_mm_storeu_si128((__m128i *)(void *)d, v);
	if (k == NULL)
		return v;
	return _mm_xor_si128(_mm_clmulepi64_si128(v, *k, 0x00), _mm_clmulepi64_si128(v, *k, 0x11));
}

static inline __attribute__((always_inline, target("avx512f,avx2,vpclmulqdq,pclmul"))) const uint8_t *
icrc_fold512_run(uint32_t reg, const uint8_t *pb, uint64_t pre, const uint8_t *p, uint64_t len,
		 uint8_t *d, uint8_t rem[16], const uint8_t *mask, const bool copy)
{
	const __m512i k2048 = _mm512_set_epi64(ICRC_K2016, ICRC_K2080, ICRC_K2016, ICRC_K2080,
					       ICRC_K2016, ICRC_K2080, ICRC_K2016, ICRC_K2080);
	const __m512i k512 = _mm512_set_epi64(ICRC_K480, ICRC_K544, ICRC_K480, ICRC_K544,
					      ICRC_K480, ICRC_K544, ICRC_K480, ICRC_K544);
	const __m512i k1024 = _mm512_set_epi64(ICRC_K992, ICRC_K1056, ICRC_K992, ICRC_K1056,
					       ICRC_K992, ICRC_K1056, ICRC_K992, ICRC_K1056);
	const __m128i k128 = _mm_set_epi64x(ICRC_K96, ICRC_K160);
	const __m128i k256 = _mm_set_epi64x(ICRC_K224, ICRC_K288);
	const uint64_t npre = pre / 64, nb = npre + len / 64;
	const uint8_t *end = p + len;
	__m512i a0, a1, a2, a3, b0, b1, b2, b3, t;
	__m256i h;
	__m128i r;
	uint64_t i;
	unsigned int k;

	a0 = icrc_blk512(pb, npre, p, d, 0, copy);
	if (mask != NULL)   /* the masked fields as ones, as they are loaded */
		a0 = _mm512_or_si512(a0, _mm512_loadu_si512((const void *)mask));
	a0 = _mm512_xor_si512(a0, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)reg)));
	a1 = icrc_blk512(pb, npre, p, d, 1, copy);
	a2 = icrc_blk512(pb, npre, p, d, 2, copy);
	a3 = icrc_blk512(pb, npre, p, d, 3, copy);
	for (i = 4; i + 4 <= nb; i += 4) {
		a0 = ICRC_FOLD512(a0, k2048, icrc_blk512(pb, npre, p, d, i, copy));
		a1 = ICRC_FOLD512(a1, k2048, icrc_blk512(pb, npre, p, d, i + 1, copy));
		a2 = ICRC_FOLD512(a2, k2048, icrc_blk512(pb, npre, p, d, i + 2, copy));
		a3 = ICRC_FOLD512(a3, k2048, icrc_blk512(pb, npre, p, d, i + 3, copy));
	}
	/* The 0-3 whole blocks left go to the accumulators whose turn they
	 * are (one step, side by side); the four then hold consecutive
	 * blocks from b0 to b3, merged as a tree. */
	switch (nb - i) {
	case 0:
		b0 = a0, b1 = a1, b2 = a2, b3 = a3;
		break;
	case 1:
		a0 = ICRC_FOLD512(a0, k2048, icrc_blk512(pb, npre, p, d, i, copy));
		b0 = a1, b1 = a2, b2 = a3, b3 = a0;
		break;
	case 2:
		a0 = ICRC_FOLD512(a0, k2048, icrc_blk512(pb, npre, p, d, i, copy));
		a1 = ICRC_FOLD512(a1, k2048, icrc_blk512(pb, npre, p, d, i + 1, copy));
		b0 = a2, b1 = a3, b2 = a0, b3 = a1;
		break;
	default:
		a0 = ICRC_FOLD512(a0, k2048, icrc_blk512(pb, npre, p, d, i, copy));
		a1 = ICRC_FOLD512(a1, k2048, icrc_blk512(pb, npre, p, d, i + 1, copy));
		a2 = ICRC_FOLD512(a2, k2048, icrc_blk512(pb, npre, p, d, i + 2, copy));
		b0 = a3, b1 = a0, b2 = a1, b3 = a2;
		break;
	}
	b0 = ICRC_FOLD512(b0, k512, b1);
	b2 = ICRC_FOLD512(b2, k512, b3);
	b0 = ICRC_FOLD512(b0, k1024, b2);
	/* Its four lanes and the k whole chunks of 16 after it, to the last
	 * of them in one step; under 16 bytes are left. */
	p += 64 * (nb - npre);
	d += 64 * (nb - npre);
	k = (unsigned int)((end - p) >> 4);
	t = _mm512_xor_si512(_mm512_clmulepi64_epi128(b0, _mm512_load_si512(icrc_klanes512[k]), 0x00),
			     _mm512_clmulepi64_epi128(b0, _mm512_load_si512(icrc_klanes512[k]), 0x11));
	h = _mm256_xor_si256(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64(t, 1));
	r = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
	switch (k) {
	case 0:
		r = _mm_xor_si128(r, _mm512_extracti32x4_epi32(b0, 3));
		break;
	case 1:
		r = _mm_xor_si128(r, icrc_chunk128(p, d, NULL, copy));
		break;
	case 2:
		r = _mm_xor_si128(r, _mm_xor_si128(icrc_chunk128(p, d, &k128, copy),
						   icrc_chunk128(p + 16, d + 16, NULL, copy)));
		break;
	default:
		r = _mm_xor_si128(r, _mm_xor_si128(icrc_chunk128(p, d, &k256, copy),
				       _mm_xor_si128(icrc_chunk128(p + 16, d + 16, &k128, copy),
						     icrc_chunk128(p + 32, d + 32, NULL, copy))));
		break;
	}
	_mm_storeu_si128((__m128i *)(void *)rem, r);
	return p + 16 * k;
}

/* With @p mask (64 bytes or NULL) or-ed into the stream's first 64 bytes
 * as they are loaded: the frame's headers masked without a copy or a
 * write to the frame. */
__attribute__((target("avx512f,avx2,vpclmulqdq,pclmul"))) static const uint8_t *
icrc_fold512_body(uint32_t reg, const uint8_t *pb, uint64_t pre, const uint8_t *p, uint64_t len,
		  uint8_t *d, uint8_t rem[16], const uint8_t *mask, const bool copy)
{
	if (copy)
		return icrc_fold512_run(reg, pb, pre, p, len, d, rem, mask, true);
	return icrc_fold512_run(reg, pb, pre, p, len, d, rem, mask, false);
}

/* A whole frame's ICRC (TX's copy and seal, RX's check of a frame over
 * ICRC_COPY_MAX bytes) by one of the folds: on every CPU with VPCLMULQDQ.
 * A buffer alone (rnic_crc32) by the 256-bit fold only: ISA-L's AVX-512
 * CRC was faster than the 512-bit fold for 342-494 bytes, the most a
 * buffer there takes (rnic-bench-icrc 360 420 512, doc/benchmarks.md). */
static inline bool
icrc_frame_fold(void)
{
	return icrc_has_fold || icrc_has_fold512;
}

/* The 256-bit fold without a copy: d is never written; it walks beside
 * p (no pointer arithmetic on NULL). pre + len >= 288 (ICRC_FOLD_MIN). */
static const uint8_t *
icrc_fold_body(uint32_t reg, const uint8_t *pb, uint64_t pre, const uint8_t *p, uint64_t len,
	       uint8_t rem[16])
{
	return icrc_fold256_body(reg, pb, pre, p, len, (uint8_t *)(uintptr_t)p, rem, false);
}

/*
 * Buffers of ICRC_SMALL_MIN to ICRC_FOLD_MIN bytes (a 64 B WRITE's 120, an
 * ACK's 44, a 256 B WRITE's 312 no longer), on the CPUs with VPCLMULQDQ
 * (icrc_cpu_init says why only those). ISA-L's by8 folds such a buffer
 * one 16-byte lane after another and then reduces through a chain of
 * dependent multiplications; most of its time is that latency (120 bytes:
 * 27.5 ns on the AMD Zen 3 VM, where the code below takes 19; table in
 * doc/benchmarks.md). Here:
 *   - the buffer is taken as preceded by zeros up to a multiple of 16
 *     bytes, which do not change a CRC register that starts at zero, so
 *     every lane is whole: the first holds the first 1-16 bytes shifted up
 *     (the register added to the buffer's first four bytes, as in the
 *     fold above);
 *   - four lanes fold 64 bytes a step, and they and the 0-3 lanes after
 *     them move to the end in one multiplication each (distances of 128 to
 *     768 bits), added together;
 *   - the 128-bit remainder X: X x^32 = A1 x^128 + A2 x^96 + B1 x^64 +
 *     B2 x^32 (A1..B2 its four 32-bit parts, first to last) gives 64 bits
 *     from three independent products, then Barrett's reduction
 *     (mu = x^64 / P) the 32-bit CRC.
 * Constants in the fold's form (reflect33 of the polynomial), derived with
 * a bit-level model and checked against zlib for every length (test_wire).
 */
#define ICRC_SMALL_MIN 32
#define ICRC_K128 0x140d44a2eull /* x^128 mod P */
#define ICRC_K64  0x163cd6124ull /* x^64 mod P */
#define ICRC_MU   0x1f7011641ull /* x^64 / P */
#define ICRC_POLY 0x1db710641ull /* P */

/* Buffers of ICRC_SMALL_MIN up to this go to icrc_small (0: none). */
static uint64_t icrc_small_max;

/* k(D + 32), k(D - 32) for D = 128 i, i = 1..6. */
static const uint64_t icrc_kdist[7][2] __attribute__((aligned(16))) = {
	{0, 0},
	{ICRC_KD128},
	{ICRC_KD256},
	{ICRC_KD384},
	{ICRC_KD512},
	{ICRC_KD640},
	{ICRC_KD768},
};

/* 0x80 (a zero from pshufb), 0..15, 0x80: 16 bytes from +r shift a lane
 * up by 16 - r bytes, from +16+r down by r (0 <= r <= 16). */
static const uint8_t icrc_shuf[48] = {
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

#define ICRC_LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
/* acc * k (each quadword by k's) + data: one 128-bit fold step. */
#define ICRC_FOLD128(acc, k, data)                                            \
	_mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00),       \
				    _mm_clmulepi64_si128(acc, k, 0x11)),      \
		      data)

/*
 * The CRC (zlib's convention) of the 16 bytes @p x with the register at
 * zero: the last step of the CRCs below. X x^32 = A1 x^128 + A2 x^96 +
 * B1 x^64 + B2 x^32 (A1..B2 its four 32-bit parts, first to last) gives
 * 64 bits from three independent products, then Barrett's reduction.
 */
static inline __attribute__((always_inline, target("sse4.1,pclmul"))) uint32_t
icrc_reduce128(__m128i x)
{
	const __m128i lo32 = _mm_set_epi32(0, 0, 0, -1);
	const __m128i kr = _mm_set_epi64x((long long)ICRC_K64, (long long)ICRC_K128);
	const __m128i k96 = _mm_set_epi64x(0, ICRC_K96);
	const __m128i kb = _mm_set_epi64x((long long)ICRC_POLY, (long long)ICRC_MU);
	__m128i v1, v2, q;

	/* A1 and B1 in v1's quadwords, A2 and B2 in v2's. */
	v1 = _mm_and_si128(x, _mm_set_epi32(0, -1, 0, -1));
	v2 = _mm_srli_epi64(x, 32);
	x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(v1, kr, 0x00),
					_mm_clmulepi64_si128(v1, kr, 0x11)),
			  _mm_xor_si128(_mm_clmulepi64_si128(v2, k96, 0x00), _mm_srli_si128(v2, 8)));
	q = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x, lo32), kb, 0x00), lo32);
	x = _mm_xor_si128(x, _mm_clmulepi64_si128(q, kb, 0x10));
	return ~(uint32_t)_mm_extract_epi32(x, 1);
}

/*
 * CRC of @p len bytes at @p b, ICRC_SMALL_MIN <= len (zlib's convention
 * for @p crc and the result). With @p mask, the buffer is read as if
 * or-ed with the 64 bytes there (zero past them) on the way: the ICRC's
 * masked header fields, without a write to the frame or a copy.
 */
static inline __attribute__((always_inline, target("sse4.1,pclmul"))) uint32_t
icrc_small_run(uint32_t crc, const uint8_t *b, uint64_t len, const uint8_t *mask)
{
	const __m128i *kd = (const __m128i *)(const void *)icrc_kdist;
	const __m128i reg = _mm_cvtsi32_si128((int)~crc);
	const uint8_t *p, *end = b + len;
	/* Bytes in the first lane, 1-16; the lanes after it start at b + r. */
	uint32_t r = (uint32_t)((len - 1) & 15) + 1;
	__m128i a0, a1, a2, a3, x;

	a0 = ICRC_LD(b);
	a1 = ICRC_LD(b + r);
	if (mask != NULL) {
		a0 = _mm_or_si128(a0, ICRC_LD(mask));
		a1 = _mm_or_si128(a1, ICRC_LD(mask + r));
	}
	a0 = _mm_shuffle_epi8(_mm_xor_si128(a0, reg), ICRC_LD(icrc_shuf + r));
	a1 = _mm_xor_si128(a1, _mm_shuffle_epi8(reg, ICRC_LD(icrc_shuf + 16 + r)));
	p = b + r + 16;
	if (end - p < 32) {   /* two or three lanes */
		x = ICRC_FOLD128(a0, kd[1], a1);
		if (p < end) {
			a2 = ICRC_LD(p);
			if (mask != NULL)
				a2 = _mm_or_si128(a2, ICRC_LD(mask + r + 16));
			x = ICRC_FOLD128(x, kd[1], a2);
		}
	} else {
		unsigned int k;

		a2 = ICRC_LD(p);
		a3 = ICRC_LD(p + 16);
		if (mask != NULL) {
			a2 = _mm_or_si128(a2, ICRC_LD(mask + r + 16));
			a3 = _mm_or_si128(a3, ICRC_LD(mask + r + 32));
		}
		for (p += 32; end - p >= 64; p += 64) {
			a0 = ICRC_FOLD128(a0, kd[4], ICRC_LD(p));
			a1 = ICRC_FOLD128(a1, kd[4], ICRC_LD(p + 16));
			a2 = ICRC_FOLD128(a2, kd[4], ICRC_LD(p + 32));
			a3 = ICRC_FOLD128(a3, kd[4], ICRC_LD(p + 48));
		}
		k = (unsigned int)((end - p) >> 4);   /* 0-3 lanes after the four */
		x = _mm_xor_si128(ICRC_FOLD128(a0, kd[3 + k], ICRC_FOLD128(a1, kd[2 + k], _mm_setzero_si128())),
				  ICRC_FOLD128(a2, kd[1 + k],
					       k != 0 ? ICRC_FOLD128(a3, kd[k], _mm_setzero_si128()) : a3));
		if (k == 3)
			x = _mm_xor_si128(x, ICRC_FOLD128(ICRC_LD(p), kd[2],
							  ICRC_FOLD128(ICRC_LD(p + 16), kd[1],
								       ICRC_LD(p + 32))));
		else if (k == 2)
			x = _mm_xor_si128(x, ICRC_FOLD128(ICRC_LD(p), kd[1], ICRC_LD(p + 16)));
		else if (k == 1)
			x = _mm_xor_si128(x, ICRC_LD(p));
	}
	return icrc_reduce128(x);
}

__attribute__((target("sse4.1,pclmul"))) static uint32_t
icrc_small(uint32_t crc, const uint8_t *b, uint64_t len)
{
	return icrc_small_run(crc, b, len, NULL);
}

/*
 * The end of a 512-bit fold: the CRC of its 16-byte remainder @p rem
 * followed by the @p t bytes (0-16) that end at @p end, the 16 bytes
 * before @p end being readable. Where ISA-L's by8 took the remainder and
 * the bytes after it from a buffer (7.3% of the engine lcore at ring
 * 4 KiB; 1.014x there by in-run A/B, 1.029x at PMTU 1024, 1.036x at
 * 1 KiB, doc/benchmarks.md): the remainder's first t bytes as a lane of
 * their own (zeros before them leave a register at zero as it is),
 * folded onto its other 16 - t bytes followed by the t bytes, which are
 * the last t of the 16 before @p end. t = 16 is one plain fold step.
 */
static __attribute__((target("sse4.1,pclmul"))) uint32_t
icrc_fold_end(const uint8_t rem[16], const uint8_t *end, uint32_t t)
{
	const __m128i *kd = (const __m128i *)(const void *)icrc_kdist;
	__m128i x = ICRC_LD(rem);

	if (t > 0) {
		const __m128i up = ICRC_LD(icrc_shuf + t);   /* sign set: j < 16 - t */
		__m128i h = _mm_shuffle_epi8(x, up);
		__m128i l = _mm_blendv_epi8(ICRC_LD(end - 16),
					    _mm_shuffle_epi8(x, ICRC_LD(icrc_shuf + 16 + t)), up);

		x = ICRC_FOLD128(h, kd[1], l);
	}
	return icrc_reduce128(x);
}


/*
 * The short-frame ICRC with AVX-512 (AVX512F/BW/VL and VPCLMULQDQ: AMD
 * Zen 4, Intel Ice Lake and later), for an IPv4 frame of up to
 * ICRC_SMALL512_MAX bytes from its IP header. The CRC register starting at
 * ~0 over the 8 bytes of ones is the register at zero over 4 bytes of
 * ones (the first four ones cancel the register), so the stream is those
 * four ones, then the frame masked; read as if preceded by zeros up to a
 * multiple of 64 bytes (zeros leave a register at zero as it is), it is
 * 1-4 whole 64-byte blocks. Each block comes in one masked load that
 * reads nothing before the IP header or past the frame's end; the four
 * ones and the masked fields are or-ed in from icrc_smask512_v4 shifted
 * to the same place. Every 128-bit lane then moves to the end in one
 * multiplication (icrc_kblk512, all of them side by side: no chain of
 * folds), and the lanes are added for icrc_reduce128. Against
 * icrc_small_run's 128-bit lanes, one CRC of 120 bytes in L1 (a 64 B
 * WRITE), independent frames back to back on the Zen 4 VM: 7.5 against
 * 11.6 ns (doc/benchmarks.md).
 */
#define ICRC_SMALL512_MAX 252   /* 4 + 252 bytes: four blocks */
#define ICRC_KD896  0x1ea89367eull, 0x1d7cfc6acull
#define ICRC_KD1024 ICRC_K1056, ICRC_K992
#define ICRC_KD1152 0x1fdc60a7cull, 0x03f41287aull
#define ICRC_KD1280 0x0e3543be0ull, 0x14b57d3f0ull
#define ICRC_KD1408 0x1816ab61cull, 0x10aae2566ull
#define ICRC_KD1536 0x1821d8bc0ull, 0x12e958ac4ull
#define ICRC_KD1664 0x1b35adb0eull, 0x1e7146aacull
#define ICRC_KD1792 0x19159bb02ull, 0x125f17dfcull
#define ICRC_KD1920 0x1db06f64cull, 0x1c47d2a9cull
/* Row r: the distances 128 (4r + 3 - j) for lanes j = 0..3, for the block
 * r blocks before the last (its lane 3 of row 0, distance 0, is added as
 * it is: zeros here). */
static const uint64_t icrc_kblk512[4][8] __attribute__((aligned(64))) = {
	{ ICRC_KD384, ICRC_KD256, ICRC_KD128, 0, 0 },
	{ ICRC_KD896, ICRC_KD768, ICRC_KD640, ICRC_KD512 },
	{ ICRC_KD1408, ICRC_KD1280, ICRC_KD1152, ICRC_KD1024 },
	{ ICRC_KD1920, ICRC_KD1792, ICRC_KD1664, ICRC_KD1536 },
};
/* 64 zeros, the four ones, icrc_mask_v4, zeros: loaded from 64 - z (and
 * 128 - z for the second block), it lines up with a stream padded by z. */
static uint8_t icrc_smask512_v4[192] __attribute__((aligned(64)));
static bool icrc_has_small512;

/* Block @p i of @p nb (all but the last moved on by a multiplication). */
#define ICRC_BLK512(b, i, nb)                                                   	_mm512_xor_si512(_mm512_clmulepi64_epi128(b, _mm512_load_si512(icrc_kblk512[(nb) - 1 - (i)]), 0x00), 			 _mm512_clmulepi64_epi128(b, _mm512_load_si512(icrc_kblk512[(nb) - 1 - (i)]), 0x11))

__attribute__((target("avx512f,avx512bw,avx512vl,avx2,vpclmulqdq,pclmul"))) static uint32_t
icrc_small512_v4(const uint8_t *l3, uint64_t len)
{
	const uint64_t t = len + 4, nb = (t + 63) >> 6;
	const uint32_t z = (uint32_t)(-t & 63), d0 = z + 4;   /* the frame from d0 on */
	const uintptr_t s = (uintptr_t)l3 - d0;   /* block 0; never read before l3 */
	__m512i b0, b1, b2, b3, x, last;
	__m256i h;
	__m128i r;

	b0 = _mm512_maskz_loadu_epi8(d0 < 64 ? ~UINT64_C(0) << d0 : 0, (const void *)s);
	b0 = _mm512_or_si512(b0, _mm512_loadu_si512((const void *)(icrc_smask512_v4 + 64 - z)));
	if (nb == 1) {
		x = ICRC_BLK512(b0, 0, 1);
		last = b0;
	} else {
		b1 = _mm512_maskz_loadu_epi8(d0 <= 64 ? ~UINT64_C(0) : ~UINT64_C(0) << (d0 - 64),
					     (const void *)(s + 64));
		b1 = _mm512_or_si512(b1, _mm512_loadu_si512((const void *)(icrc_smask512_v4 + 128 - z)));
		if (nb == 2) {
			x = _mm512_xor_si512(ICRC_BLK512(b0, 0, 2), ICRC_BLK512(b1, 1, 2));
			last = b1;
		} else if (nb == 3) {
			b2 = _mm512_loadu_si512((const void *)(s + 128));
			x = _mm512_ternarylogic_epi64(ICRC_BLK512(b0, 0, 3), ICRC_BLK512(b1, 1, 3),
						      ICRC_BLK512(b2, 2, 3), 0x96);
			last = b2;
		} else {
			b2 = _mm512_loadu_si512((const void *)(s + 128));
			b3 = _mm512_loadu_si512((const void *)(s + 192));
			x = _mm512_xor_si512(_mm512_ternarylogic_epi64(ICRC_BLK512(b0, 0, 4),
								       ICRC_BLK512(b1, 1, 4),
								       ICRC_BLK512(b2, 2, 4), 0x96),
					     ICRC_BLK512(b3, 3, 4));
			last = b3;
		}
	}
	h = _mm256_xor_si256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
	r = _mm_ternarylogic_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1),
				   _mm512_extracti32x4_epi32(last, 3), 0x96);
	return icrc_reduce128(r);
}

/* The ICRC of the IPv4 frame [l3, l3 + len), icrc_small's sizes. */
__attribute__((target("sse4.1,pclmul"))) static uint32_t
icrc_small_v4(const uint8_t *l3, uint64_t len)
{
	return icrc_small_run(ICRC_SEED_LRH, l3, len, icrc_mask_v4);
}

/* The same, by the CRC the CPU allows: called straight from the frame's
 * callers (each call level its own, as a target function is not inlined
 * into one without the target). */
static inline uint32_t
icrc_short_v4(const uint8_t *l3, uint64_t len)
{
	if (icrc_has_small512 && len <= ICRC_SMALL512_MAX)
		return icrc_small512_v4(l3, len);
	return icrc_small_v4(l3, len);
}

/* The CRC of the fold's remainder @p t and the @p left bytes at @p p,
 * then @p pad zeros (left + pad <= 35). */
static uint32_t
icrc_fold_finish(uint8_t t[16 + 32 + 3], const uint8_t *p, uint64_t left, uint32_t pad)
{
	memcpy(t + 16, p, left);
	memset(t + 16 + left, 0, pad);
	/* Seed ~0: the register starts at ~seed, here zero. */
	if (16 + left + pad >= ICRC_SMALL_MIN && 16 + left + pad < icrc_small_max)
		return icrc_small(UINT32_MAX, t, 16 + left + pad);
	return crc32_gzip_refl_by8(UINT32_MAX, t, 16 + left + pad);
}

static uint32_t
icrc_fold(uint32_t crc, const uint8_t *buf, uint64_t len)
{
	uint8_t t[16 + 32 + 3];
	const uint8_t *p = icrc_fold_body(~crc, NULL, 0, buf, len, t);

	return icrc_fold_finish(t, p, (uint64_t)(buf + len - p), 0);
}
#endif /* ICRC_FOLD */
#endif /* RNIC_ISAL_CRC_BY8 */

/* At load time, before any thread can ask for a CRC: the choices are
 * then read-only. */
static void __attribute__((constructor))
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
#ifdef ICRC_FOLD
	/* Each only where it was measured faster than ISA-L
	 * (doc/benchmarks.md). The 256-bit fold: CPUs with VPCLMULQDQ and
	 * without AVX-512 (AMD Zen 3); on the AVX-512 AMD Zen 4 VM it beat
	 * ISA-L's AVX-512 CRC at 1024-byte frames only, lost at the 1086
	 * bytes of a 1 KiB payload at PMTU 1024 and from 3072 bytes on, and
	 * was even between (rnic-bench-icrc SIZE...); on the AVX-512 AMD VM
	 * of 2026-11-24 an earlier 4-lane PCLMUL CRC lost to ISA-L's by8.
	 * The 512-bit fold: CPUs with AVX-512 and VPCLMULQDQ, for whole
	 * frames (icrc_frame_fold; Zen 4: frame checks of 560-4150 bytes
	 * 1.1-1.7x ISA-L's; ring write_bw by in-run A/B: 4 KiB at PMTU
	 * 4096 1.088x, at PMTU 1024 1.054x, 1 KiB 1.013x).
	 * The short-buffer CRC (icrc_small) needs only PCLMUL and SSE4.1:
	 * CPUs with VPCLMULQDQ, with AVX-512 or without (Zen 4: 2.3-3x ISA-L's
	 * by8 on 64 B WRITE frames; Zen 3: 1.45x on their 120 bytes); not
	 * measured on the Intel VM without VPCLMULQDQ, which keeps ISA-L.
	 * IPv4 frames of up to ICRC_SMALL512_MAX bytes take its 64-byte
	 * blocks where the 512-bit fold runs and AVX512BW/VL allow the masked
	 * byte loads (icrc_small512_v4; Zen 4: ring 64 B 1.054x, 16384 QPs
	 * 1.035x by in-run A/B). */
	bool vpclmul = icrc_direct_max != 0 && __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("vpclmulqdq") &&
		       getenv("RNIC_ICRC_NO_FOLD") == NULL;

	icrc_has_fold = vpclmul && icrc_direct_max == UINT64_MAX;
	icrc_has_fold512 = vpclmul && __builtin_cpu_supports("avx512f");
	icrc_small_max = vpclmul ? ICRC_FOLD_MIN : 0;
	icrc_mask(icrc_mask_v4);   /* zeros read as IPv4: its fields only */
	icrc_has_small512 = icrc_has_fold512 && __builtin_cpu_supports("avx512bw") &&
			    __builtin_cpu_supports("avx512vl") &&
			    getenv("RNIC_ICRC_NO_SMALL512") == NULL;   /* the 128-bit lanes' test */
	memset(icrc_smask512_v4 + 64, 0xff, 4);
	memcpy(icrc_smask512_v4 + 68, icrc_mask_v4, sizeof(icrc_mask_v4));
	icrc_mask_v6[0] = 0x60;    /* read as IPv6 */
	icrc_mask(icrc_mask_v6);
	icrc_mask_v6[0] &= 0x0f;   /* the traffic class's low bits only */
#endif
#endif
}
#endif

uint32_t
rnic_crc32(uint32_t crc, const void *buf, uint64_t len)
{
#ifdef RTE_ARCH_X86
#ifdef ICRC_FOLD
	if (len >= ICRC_FOLD_MIN && icrc_has_fold)
		return icrc_fold(crc, buf, len);
	if (len >= ICRC_SMALL_MIN && len < icrc_small_max)
		return icrc_small(crc, buf, len);
#endif
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
#ifdef ICRC_FOLD
	if (hdrs == ICRC_HDRS_V4 && n < icrc_small_max)
		return icrc_short_v4(l3, n);   /* masks as it reads */
#endif
	memcpy(saved, l3, hdrs);
	icrc_mask(l3);
	crc = rnic_crc32(ICRC_SEED_LRH, l3, n);
	memcpy(l3, saved, hdrs);
	return crc;
}

uint32_t
rnic_icrc_copy_seal(uint8_t *l3, uint32_t hlen, const void *src, uint32_t len, uint32_t pad)
{
#ifdef ICRC_FOLD
	uint32_t hdrs = icrc_hdrs(l3);

	if (icrc_frame_fold() && len >= RNIC_ICRC_COPY_SEAL_MIN && hlen >= hdrs && pad < 4) {
		uint8_t saved[ICRC_HDRS_V6], t[16 + 32 + 3];
		/* Payload bytes copied first, so that the fold reads whole
		 * 64-byte steps of the frame before it reads the source. */
		uint32_t pre = (64 - hlen % 64) % 64;
		const uint8_t *p, *s = (const uint8_t *)src + pre;
		uint64_t left;

		memcpy(l3 + hlen, src, pre);
		if (icrc_has_fold512) {
			/* the headers masked as they are loaded, not in place */
			p = icrc_fold512_body(~ICRC_SEED_LRH, l3, hlen + pre, s, len - pre,
					      l3 + hlen + pre, t, icrc_mask_for(l3), true);
			left = (uint64_t)(s + len - pre - p);
			memcpy(l3 + hlen + len - left, p, left);
			memset(l3 + hlen + len, 0, pad);
			/* Under 16 bytes after the fold's last step (left),
			 * the pad rounding them up to a multiple of 4: 16 at
			 * most (the finish below is a guard). */
			if (left + pad <= 16)
				return icrc_fold_end(t, l3 + hlen + len + pad,
						     (uint32_t)left + pad);
			return icrc_fold_finish(t, p, left, pad);
		}
		memcpy(saved, l3, hdrs);
		icrc_mask(l3);
		p = icrc_fold256_body(~ICRC_SEED_LRH, l3, hlen + pre, s, len - pre,
				      l3 + hlen + pre, t, true);
		memcpy(l3, saved, hdrs);
		left = (uint64_t)(s + len - pre - p);
		memcpy(l3 + hlen + len - left, p, left);
		memset(l3 + hlen + len, 0, pad);
		return icrc_fold_finish(t, p, left, pad);
	}
#endif
	if (len > 0)   /* an ACK's src may be NULL */
		memcpy(l3 + hlen, src, len);
	memset(l3 + hlen + len, 0, pad);
	return rnic_icrc_calc_inplace(l3, hlen + len + pad);
}

#ifdef ICRC_FOLD
/*
 * The ICRC of a frame in one piece, [l3, l3 + n), n > ICRC_COPY_MAX, with
 * a fold (icrc_frame_fold): its first 64 bytes (the headers, 40 or 60
 * bytes from the IP header, and the first bytes after them) masked as
 * they are loaded (the 512-bit fold) or from a masked copy (the 256-bit
 * one), the rest where it lies. One pass; the frame is not written (a
 * received frame may be shared with its sender's MultiQueue).
 */
static uint32_t
icrc_fold_frame(const uint8_t *l3, uint32_t n)
{
	uint8_t h[64], t[16 + 32 + 3];
	const uint8_t *p;

	if (icrc_has_fold512) {
		/* the headers masked as they are loaded; under 16 bytes left */
		p = icrc_fold512_body(~ICRC_SEED_LRH, NULL, 0, l3, n, (uint8_t *)(uintptr_t)l3, t,
				      icrc_mask_for(l3), false);
		return icrc_fold_end(t, l3 + n, (uint32_t)(l3 + n - p));
	}
	memcpy(h, l3, sizeof(h));
	icrc_mask(h);
	p = icrc_fold_body(~ICRC_SEED_LRH, h, sizeof(h), l3 + sizeof(h), n - sizeof(h), t);
	return icrc_fold_finish(t, p, (uint64_t)(l3 + n - p), 0);
}
#endif

/* A short frame: one pass over a masked copy of [l3, l3 + n). */
static uint32_t
icrc_copy(const uint8_t *l3, uint32_t n)
{
	uint8_t buf[ICRC_COPY_MAX];

#ifdef ICRC_FOLD
	if (icrc_hdrs(l3) == ICRC_HDRS_V4 && n < icrc_small_max)
		return icrc_short_v4(l3, n);   /* no copy: masks as it reads */
#endif
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
#ifdef ICRC_FOLD
	if (icrc_frame_fold())
		return icrc_fold_frame(frame + l3_off, len - RNIC_ICRC_LEN - l3_off);
#endif
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
#ifdef ICRC_FOLD
	if (len <= m->data_len && icrc_frame_fold())
		return icrc_fold_frame(rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off),
				       len - RNIC_ICRC_LEN - l3_off);
#endif
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
