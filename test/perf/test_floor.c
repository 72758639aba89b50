/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floors' frames and checks (test/perf/floor.h), so that a floor's
 * figure is the cost of real RoCEv2 work:
 *   - the WRITE Only and ACK frames it builds are what softrnic's own
 *     parser (rnic_pkt_parse_buf, ICRC checked) reads back, field by
 *     field;
 *   - floor_write_rx places a good WRITE and moves the QP on, and turns
 *     away, touching nothing, a frame with a payload byte changed (the
 *     ICRC), the IPv4 checksum wrong (TTL changed: outside the ICRC), a
 *     repeated PSN, a wrong R_Key, a target past the MR, a QP not in RTS,
 *     the wrong destination; floor_ack_rx likewise.
 */
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "floor.h"
#include "test_common.h"

#define FRAME_MAX 2048
#define MR_BYTES 4096
#define IOVA 0x100000
#define RKEY 0x0203

struct fixture {
	uint8_t tmpl[L3 + W_HLEN], atmpl[L3 + A_HLEN];
	uint8_t src[MR_BYTES], dst[MR_BYTES];
	struct fmr mr;
	struct fqp qp;
	struct fmr *mrs[TABLE];
	struct fqp *qps[TABLE];
	int pd;
};

static void
fixture_init(struct fixture *x, uint32_t len)
{
	memset(x, 0, sizeof(*x));
	for (unsigned int i = 0; i < MR_BYTES; i++)
		x->src[i] = (uint8_t)(i * 13 + 5);
	floor_tmpl_write(x->tmpl, len, false);
	floor_tmpl_ack(x->atmpl, true);
	x->mr = (struct fmr){ .addr = x->dst, .iova = IOVA, .length = MR_BYTES, .key = RKEY,
			      .access = ACCESS_REMOTE_WRITE, .pd = &x->pd, .valid = 1 };
	x->qp = (struct fqp){ .qpn = QPN, .pkey = 0xffff, .state = QPS_RTS, .pd = &x->pd };
	x->mrs[RKEY >> 8] = &x->mr;
	x->qps[QPN] = &x->qp;
}

/* What rnic_pkt_icrc_ahead gives for a flat IPv4 frame. */
static uint64_t
ahead_of(const uint8_t *f, uint32_t len)
{
	return (UINT64_C(1) << 32) | rnic_icrc_calc_buf(f, L3, len);
}

/* A WRITE of @p len bytes built by the floor, as softrnic parses it. */
static int
write_parses(uint32_t len)
{
	static struct fixture x;
	uint8_t f[FRAME_MAX];
	struct rnic_pkt pkt;
	uint32_t flen;

	fixture_init(&x, len);
	flen = floor_write_build(f, x.tmpl, 0x123456, true, IOVA + 8, RKEY, x.src, len);
	VERIFY(flen == L3 + W_HLEN + len + (4 - len % 4) % 4 + RNIC_ICRC_LEN, "length %u", flen);
	VERIFY(rnic_pkt_parse_buf(f, flen, true, &pkt) == RNIC_PKT_ERR_OK, "%u B: not parsed", len);
	VERIFY(pkt.bth.opcode == RNIC_OP_WRITE_ONLY && pkt.bth.psn == 0x123456 &&
	       pkt.bth.dqpn == QPN && pkt.bth.ackreq && pkt.bth.pkey == 0xffff &&
	       pkt.bth.pad == (4 - len % 4) % 4, "%u B: BTH", len);
	VERIFY(pkt.ext.reth_va == IOVA + 8 && pkt.ext.reth_rkey == RKEY &&
	       pkt.ext.reth_len == len && pkt.payload_len == len &&
	       memcmp(f + pkt.payload_off, x.src, len) == 0, "%u B: RETH or payload", len);
	VERIFY(!pkt.l.ipv6 && pkt.l.dst_ip == rte_cpu_to_be_32(0x0a000002) &&
	       pkt.l.dst_mac[5] == 2 && pkt.l.udp_dport == UDP_PORT, "%u B: addresses", len);
	return 0;
}

/* The receive side: a good WRITE placed once; each bad form turned away
 * with the target and the QP untouched. */
static int
write_checks(void)
{
	static struct fixture x;
	uint8_t good[FRAME_MAX], f[FRAME_MAX], zero[MR_BYTES] = {0};
	const uint32_t len = 64;
	uint32_t flen;
	bool ackreq = false;

	fixture_init(&x, len);
	flen = floor_write_build(good, x.tmpl, 0, true, IOVA, RKEY, x.src, len);

	struct { const char *what; uint32_t off; uint8_t xor_; uint32_t rkey; uint64_t va;
		 uint8_t state; uint8_t me; } bad[] = {
		{ "a payload byte", L3 + W_HLEN + 7, 0x40, RKEY, IOVA, QPS_RTS, 2 },
		{ "the TTL (IPv4 checksum)", L3 + 8, 0x01, RKEY, IOVA, QPS_RTS, 2 },
		{ "the R_Key", 0, 0, RKEY + 1, IOVA, QPS_RTS, 2 },
		{ "past the MR", 0, 0, RKEY, IOVA + MR_BYTES - len + 1, QPS_RTS, 2 },
		{ "the QP's state", 0, 0, RKEY, IOVA, QPS_RTS - 1, 2 },
		{ "the destination", 0, 0, RKEY, IOVA, QPS_RTS, 1 },
	};
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		uint32_t n = floor_write_build(f, x.tmpl, 0, true, bad[i].va, bad[i].rkey, x.src,
					       len);

		f[bad[i].off] ^= bad[i].xor_;
		x.qp.state = bad[i].state;
		VERIFY(floor_write_rx(f, n, ahead_of(f, n), x.qps, x.mrs, bad[i].me, &ackreq) == NULL,
		       "%s changed: taken", bad[i].what);
		VERIFY(x.qp.epsn == 0 && memcmp(x.dst, zero, sizeof(zero)) == 0,
		       "%s changed: the QP or the target touched", bad[i].what);
		x.qp.state = QPS_RTS;
	}
	VERIFY(floor_write_rx(good, flen, ahead_of(good, flen), x.qps, x.mrs, 2, &ackreq) == &x.qp,
	       "a good WRITE refused");
	VERIFY(ackreq && x.qp.epsn == 1 && x.qp.msn == 1 && memcmp(x.dst, x.src, len) == 0,
	       "a good WRITE: PSN %u MSN %u, AckReq %d", x.qp.epsn, x.qp.msn, ackreq);
	VERIFY(floor_write_rx(good, flen, ahead_of(good, flen), x.qps, x.mrs, 2, &ackreq) == NULL &&
	       x.qp.epsn == 1, "the same PSN again: taken");
	return 0;
}

/* The ACK: softrnic parses it; floor_ack_rx takes it at port A only and
 * not with a byte changed. */
static int
ack_checks(void)
{
	static struct fixture x;
	uint8_t f[FRAME_MAX];
	struct rnic_pkt pkt;
	uint32_t flen, psn = 0;

	fixture_init(&x, 64);
	flen = floor_ack_build(f, x.atmpl, 0x00abcd, 77);
	VERIFY(rnic_pkt_parse_buf(f, flen, true, &pkt) == RNIC_PKT_ERR_OK, "the ACK not parsed");
	VERIFY(pkt.bth.opcode == RNIC_OP_ACK && pkt.bth.psn == 0x00abcd &&
	       pkt.ext.aeth_syn == 0 && pkt.ext.aeth_msn == 77 && pkt.l.dst_mac[5] == 1,
	       "the ACK's fields");
	VERIFY(floor_ack_rx(f, flen, ahead_of(f, flen), 1, &psn) && psn == 0x00abcd,
	       "a good ACK refused");
	VERIFY(!floor_ack_rx(f, flen, ahead_of(f, flen), 2, &psn), "an ACK for B taken at A");
	f[L3 + A_HLEN - 1] ^= 1;   /* the MSN: the ICRC no longer matches */
	VERIFY(!floor_ack_rx(f, flen, ahead_of(f, flen), 1, &psn), "a changed ACK taken");
	return 0;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1, 2, 3, 64, 1021, 1024 };
	int rc = 0;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "test_floor: EAL init failed\n");
		return 2;
	}
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		rc |= write_parses(sizes[i]);
	rc |= write_checks();
	rc |= ack_checks();
	printf("test_floor: %u checks passed, %u failed\n", test_verify_passed, test_verify_failed);
	rte_eal_cleanup();
	return rc != 0 || test_verify_failed ? 1 : 0;
}
