/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-bench-icrc: ICRC throughput (rnic_icrc_calc_buf over a whole RoCEv2
 * frame: masked pseudo header plus ISA-L CRC) against zlib's crc32 over the
 * same bytes, at 64 B, 256 B, 1 KB and 4 KB frames (or the frame sizes
 * given as arguments). About 0.2 s per size
 * and function, timed with clock_gettime, so no EAL is needed. Prints
 *   bench: icrc size=S isal_gbps=X zlib_gbps=Y ratio=Z
 * (Gbit/s of frames checked; ratio = isal_gbps / zlib_gbps). isal_gbps is
 * softrnic's ICRC: ISA-L's CRC, or on CPUs with VPCLMULQDQ and no AVX-512
 * its own (the short-frame CRC, which masks IPv4 headers as it loads them,
 * under 288 bytes, the 256-bit fold from there), and on CPUs with
 * VPCLMULQDQ and AVX-512 the short-frame CRC and for frames over 512 bytes
 * the 512-bit fold (RNIC_ICRC_NO_FOLD=1: ISA-L only); the name stays for
 * the records in doc/benchmarks.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "rnic_wire.h"

#define BENCH_TARGET_S 0.2

static volatile uint32_t bench_sink;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
run_icrc(const uint8_t *f, uint32_t len, uint64_t iters)
{
	uint32_t acc = 0;

	for (uint64_t i = 0; i < iters; i++)
		acc += rnic_icrc_calc_buf(f, RNIC_ETH_HLEN, len);
	bench_sink += acc;
}

static void
run_zlib(const uint8_t *f, uint32_t len, uint64_t iters)
{
	uint32_t acc = 0;

	for (uint64_t i = 0; i < iters; i++)
		acc += (uint32_t)crc32(0L, f, len);
	bench_sink += acc;
}

/* Grow the iteration count until a run lasts 20 ms, then scale to ~0.2 s. */
static double
measure_gbps(void (*fn)(const uint8_t *, uint32_t, uint64_t),
	     const uint8_t *f, uint32_t len)
{
	uint64_t iters = 64;
	double t0, dt;

	for (;;) {
		t0 = now_s();
		fn(f, len, iters);
		dt = now_s() - t0;
		if (dt >= 0.02)
			break;
		iters *= 2;
	}
	iters = (uint64_t)((double)iters * BENCH_TARGET_S / dt) + 1;
	t0 = now_s();
	fn(f, len, iters);
	dt = now_s() - t0;
	return (double)iters * len * 8 / dt / 1e9;   /* Gbit/s of frame */
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 256, 1024, 4096 };
	const uint32_t hlen = RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN +
			      RNIC_BTH_LEN;
	unsigned int n = argc > 1 ? (unsigned int)argc - 1 : RTE_DIM(sizes);

	for (unsigned int i = 0; i < n; i++) {
		uint32_t len = argc > 1 ? (uint32_t)strtoul(argv[i + 1], NULL, 0) : sizes[i];
		uint32_t plen = len - hlen - RNIC_ICRC_LEN;

		if (len < hlen + RNIC_ICRC_LEN || len > 65536) {
			fprintf(stderr, "rnic-bench-icrc: a frame of %u bytes? (%u to 65536)\n", len,
				hlen + RNIC_ICRC_LEN);
			return 2;
		}
		struct rnic_bth_fields b = {
			.opcode = RNIC_OPC(RNIC_TRANSPORT_RC, RNIC_OP_SEND_ONLY),
			.pkey = RNIC_DEFAULT_PKEY, .dqpn = 0x11, .psn = 1,
		};
		struct rnic_ext_fields e;
		struct rnic_l2l3 l;
		uint8_t *f = malloc(len);
		double isal, zl;

		if (f == NULL)
			return 1;
		memset(&e, 0, sizeof(e));
		memset(&l, 0, sizeof(l));
		l.src_ip = rte_cpu_to_be_32(0x0a000001);
		l.dst_ip = rte_cpu_to_be_32(0x0a000002);
		l.udp_sport = rnic_udp_sport(b.dqpn);
		/* A full frame of exactly len bytes: headers, payload, ICRC. */
		if (rnic_pkt_build_hdrs(f, len, &l, &b, &e, plen) != hlen) {
			fprintf(stderr, "rnic-bench-icrc: cannot build a %u byte frame\n", len);
			free(f);
			return 1;
		}
		for (uint32_t k = hlen; k < len; k++)
			f[k] = (uint8_t)(k * 7);
		/* Sanity: ISA-L's CRC is zlib's CRC. */
		if (rnic_crc32(0, f, len) != (uint32_t)crc32(0L, f, len)) {
			fprintf(stderr, "rnic-bench-icrc: rnic_crc32 != zlib crc32\n");
			free(f);
			return 1;
		}
		isal = measure_gbps(run_icrc, f, len);
		zl = measure_gbps(run_zlib, f, len);
		printf("bench: icrc size=%u isal_gbps=%.2f zlib_gbps=%.2f ratio=%.2f\n",
		       len, isal, zl, isal / zl);
		fflush(stdout);
		free(f);
	}
	return 0;
}
