/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The RoCEv2 wire library: the IBA opcode table, header layouts and accessors,
 * the ICRC (IBA annex A17), 24-bit PSN arithmetic, and a frame parser and
 * builder that read the opcode table. Nothing outside this library knows a
 * header offset.
 */
#ifndef RNIC_WIRE_H
#define RNIC_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_vect.h>

struct rte_mbuf;

/* ------------------------------------------------------------------ */
/* Constants                                                           */
/* ------------------------------------------------------------------ */

#define RNIC_ROCE_UDP_PORT   4791
#define RNIC_UDP_SPORT_MIN   0xC000  /**< RoCEv2 source ports for flow entropy */
#define RNIC_ETH_HLEN        14
#define RNIC_VLAN_HLEN       4
#define RNIC_IPV4_HLEN       20
#define RNIC_IPV6_HLEN       40
#define RNIC_UDP_HLEN        8
#define RNIC_BTH_LEN         12
#define RNIC_RETH_LEN        16
#define RNIC_AETH_LEN        4
#define RNIC_ATMETH_LEN      28
#define RNIC_ATMACK_LEN      8
#define RNIC_IMMDT_LEN       4
#define RNIC_IETH_LEN        4
#define RNIC_DETH_LEN        8
#define RNIC_CNP_RSVD_LEN    16
/** softrnic's selective-repeat header (doc/reliability.md), after the
 *  opcode's own headers when the BTH's RNIC_BTH_SR bit is set; only
 *  between QPs both configured for selective repeat. */
#define RNIC_SRETH_LEN       20
/** ... and on an ACK, its SACK: the expected PSN and a 256-bit map. */
#define RNIC_SACK_WORDS      4
#define RNIC_SACK_LEN        (4 + 8 * RNIC_SACK_WORDS)
#define RNIC_ICRC_LEN        4
#define RNIC_DEFAULT_PKEY    0xFFFF
#define RNIC_MAX_MSG_LEN     (1u << 31)  /**< IBA: 2^31 bytes per message */
#define RNIC_IPV4_TTL_DEFAULT 64         /**< IPv4 TTL when none is set */
/** IBA 11.4.1.1: a UD receive buffer starts with 40 bytes for the GRH
 *  (RoCEv2 carries none: they get the IPv6 header, or 20 zero bytes and
 *  the IPv4 header, as rxe and ConnectX write them). */
#define RNIC_UD_GRH_LEN      40
/** IBA 10.2.5: a work request's Q_Key with the top bit set means the
 *  QP's own Q_Key. */
#define RNIC_QKEY_USE_QP     0x80000000u
/** Atomic operands are 8 bytes at an 8-byte-aligned address (IBA 9.4.5). */
#define RNIC_ATOMIC_LEN      8
/** IPv6 hop limit when none is set. */
#define RNIC_IPV6_HOPS_DEFAULT 64
/** Longest header stack: Eth + VLAN + IPv6 + UDP + BTH + AtomicETH. */
#define RNIC_MAX_HDR_LEN     (RNIC_ETH_HLEN + RNIC_VLAN_HLEN + RNIC_IPV6_HLEN + \
			      RNIC_UDP_HLEN + RNIC_BTH_LEN + RNIC_ATMETH_LEN)

/* ------------------------------------------------------------------ */
/* Opcodes (IBA vol. 1 table 38) and the opcode table                  */
/* ------------------------------------------------------------------ */

/** Transport service, the top three bits of the opcode. */
enum rnic_transport {
	RNIC_TRANSPORT_RC = 0x00,
	RNIC_TRANSPORT_UC = 0x20,
	RNIC_TRANSPORT_RD = 0x40,
	RNIC_TRANSPORT_UD = 0x60,
	RNIC_TRANSPORT_CNP = 0x80,  /**< RoCEv2 congestion notification */
};

/** The low five bits of an opcode: the operation within a transport. */
enum rnic_op {
	RNIC_OP_SEND_FIRST = 0x00,
	RNIC_OP_SEND_MIDDLE = 0x01,
	RNIC_OP_SEND_LAST = 0x02,
	RNIC_OP_SEND_LAST_IMM = 0x03,
	RNIC_OP_SEND_ONLY = 0x04,
	RNIC_OP_SEND_ONLY_IMM = 0x05,
	RNIC_OP_WRITE_FIRST = 0x06,
	RNIC_OP_WRITE_MIDDLE = 0x07,
	RNIC_OP_WRITE_LAST = 0x08,
	RNIC_OP_WRITE_LAST_IMM = 0x09,
	RNIC_OP_WRITE_ONLY = 0x0a,
	RNIC_OP_WRITE_ONLY_IMM = 0x0b,
	RNIC_OP_READ_REQ = 0x0c,
	RNIC_OP_READ_RESP_FIRST = 0x0d,
	RNIC_OP_READ_RESP_MIDDLE = 0x0e,
	RNIC_OP_READ_RESP_LAST = 0x0f,
	RNIC_OP_READ_RESP_ONLY = 0x10,
	RNIC_OP_ACK = 0x11,
	RNIC_OP_ATOMIC_ACK = 0x12,
	RNIC_OP_CMP_SWAP = 0x13,
	RNIC_OP_FETCH_ADD = 0x14,
	RNIC_OP_SEND_LAST_INV = 0x16,
	RNIC_OP_SEND_ONLY_INV = 0x17,
};

/** Full 8-bit opcodes as they appear in BTH. */
#define RNIC_OPC(t, o) ((uint8_t)((t) | (o)))
#define RNIC_OPCODE_CNP 0x81

/**
 * Header and role bits of an opcode. A distinct type from the opcode byte:
 * testing mask bits against an opcode is a class of bug (rxe had one).
 */
typedef uint32_t rnic_opmask_t;
enum {
	RNIC_M_RETH = 1u << 0,
	RNIC_M_AETH = 1u << 1,
	RNIC_M_ATMETH = 1u << 2,
	RNIC_M_ATMACK = 1u << 3,
	RNIC_M_IMMDT = 1u << 4,
	RNIC_M_IETH = 1u << 5,
	RNIC_M_DETH = 1u << 6,
	RNIC_M_CNP = 1u << 7,     /**< 16 reserved bytes after BTH */
	RNIC_M_PAYLOAD = 1u << 8,
	RNIC_M_FIRST = 1u << 9,
	RNIC_M_MIDDLE = 1u << 10,
	RNIC_M_LAST = 1u << 11,
	RNIC_M_ONLY = RNIC_M_FIRST | RNIC_M_LAST,
	RNIC_M_REQ = 1u << 12,    /**< a request (goes to the responder) */
	RNIC_M_RESP = 1u << 13,   /**< a response (goes to requester receive) */
	RNIC_M_SEND = 1u << 14,
	RNIC_M_WRITE = 1u << 15,
	RNIC_M_READ = 1u << 16,   /**< READ request or READ response */
	RNIC_M_ATOMIC = 1u << 17, /**< CmpSwap, FetchAdd or Atomic ACK */
	RNIC_M_ACK = 1u << 18,    /**< plain ACKNOWLEDGE */
	RNIC_M_RC = 1u << 20,     /**< transports that allow the opcode */
	RNIC_M_UC = 1u << 21,
	RNIC_M_UD = 1u << 22,
	RNIC_M_CONSUMES_RWQE = 1u << 23,  /**< responder takes a receive WQE */
};

/** Extended headers in wire order (IBA 9.2). */
enum rnic_ext {
	RNIC_EXT_DETH,
	RNIC_EXT_RETH,
	RNIC_EXT_ATMETH,
	RNIC_EXT_AETH,
	RNIC_EXT_ATMACK,
	RNIC_EXT_IMMDT,
	RNIC_EXT_IETH,
	RNIC_EXT_CNP,
	RNIC_EXT_MAX,
};

/** One row of the opcode table. */
struct rnic_opcode_info {
	const char *name;          /**< NULL: opcode not supported */
	rnic_opmask_t mask;
	uint8_t length;            /**< BTH + extended headers, bytes */
	uint8_t offset[RNIC_EXT_MAX]; /**< from BTH start; 0 = absent */
};

extern const struct rnic_opcode_info rnic_opcode_table[256];

/** Header length (BTH and extended headers) for each extended header. */
extern const uint8_t rnic_ext_len[RNIC_EXT_MAX];
extern const rnic_opmask_t rnic_ext_mask[RNIC_EXT_MAX];

/**
 * Clear @p n bytes (at least 16; a constant, so the loop unrolls) with
 * 16-byte stores: for the few hundred bytes of a per-packet struct, GCC's
 * memset is `rep stos`, whose start-up costs more than the stores.
 */
static __rte_always_inline void
rnic_zero_small(void *p, size_t n)
{
#if defined(RTE_ARCH_X86)
	uint8_t *d = p;
	size_t i;

	for (i = 0; i + 16 < n; i += 16) {
		_mm_storeu_si128((__m128i *)(void *)(d + i), _mm_setzero_si128());
		__asm__ volatile("");   /* or GCC makes a memset of the loop again */
	}
	_mm_storeu_si128((__m128i *)(void *)(d + n - 16), _mm_setzero_si128());
#else
	memset(p, 0, n);
#endif
}

static inline const struct rnic_opcode_info *
rnic_opcode_info(uint8_t opcode)
{
	const struct rnic_opcode_info *oi = &rnic_opcode_table[opcode];
	return oi->name ? oi : NULL;
}

static inline const char *
rnic_opcode_name(uint8_t opcode)
{
	const char *n = rnic_opcode_table[opcode].name;
	return n ? n : "UNKNOWN";
}

static inline rnic_opmask_t
rnic_opcode_mask(uint8_t opcode)
{
	return rnic_opcode_table[opcode].mask;
}

/** Transport mask bit (RNIC_M_RC/UC/UD) for a transport. */
static inline rnic_opmask_t
rnic_transport_mask(enum rnic_transport t)
{
	switch (t) {
	case RNIC_TRANSPORT_RC: return RNIC_M_RC;
	case RNIC_TRANSPORT_UC: return RNIC_M_UC;
	case RNIC_TRANSPORT_UD: return RNIC_M_UD;
	default: return 0;
	}
}

/** True when @p opcode is defined and allowed on transport @p t. */
static inline bool
rnic_opcode_allowed(uint8_t opcode, enum rnic_transport t)
{
	return (rnic_opcode_table[opcode].mask & rnic_transport_mask(t)) != 0;
}

/* ------------------------------------------------------------------ */
/* Raw header layouts (network byte order)                             */
/* ------------------------------------------------------------------ */

struct rnic_bth {
	uint8_t opcode;
	uint8_t flags;       /**< SE:1 M:1 PadCnt:2 TVer:4 */
	rte_be16_t pkey;
	uint8_t fb;          /**< FECN:1 BECN:1 resv:6 (masked in the ICRC) */
	uint8_t dqpn[3];
	uint8_t ack;         /**< AckReq:1 resv:7 */
	uint8_t psn[3];
} __rte_packed;

struct rnic_reth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be32_t len;
} __rte_packed;

struct rnic_aeth {
	rte_be32_t smsn;     /**< syndrome:8 MSN:24 */
} __rte_packed;

struct rnic_atmeth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be64_t swap_add;
	rte_be64_t cmp;
} __rte_packed;

struct rnic_atmack {
	rte_be64_t orig;
} __rte_packed;

/*
 * SRETH (softrnic, selective repeat). On a SEND/WRITE packet: where its
 * payload goes, so the responder can place it out of order. WRITE: va is
 * this packet's remote address, key the R_Key, len the message length,
 * aux this packet's offset in the message. SEND: va the offset in the
 * message, key the message's receive sequence number (the responder's
 * receive WQE index: SENDs and WRITEs with immediate counted from 0 at
 * RTS), len the message length, aux 0.
 */
struct rnic_sreth {
	rte_be64_t va;
	rte_be32_t key;
	rte_be32_t len;
	rte_be32_t aux;
} __rte_packed;

/*
 * The SACK an ACK carries in its place (softrnic, selective repeat): the
 * responder's expected PSN and a map of the RNIC_SACK_WORDS * 64 PSNs
 * from it, bit i (bit i % 64 of word i / 64, each word big-endian) set
 * when PSN epsn + i has been received and placed. The ePSN's top bit
 * (RNIC_SACK_DROPPED) says a request past the ePSN arrived that could
 * not be placed (a READ or atomic request, or past the map) and was
 * dropped: the requester resends from the ePSN at once, as it would on
 * a sequence NAK, instead of waiting for its timer.
 */
#define RNIC_SACK_DROPPED 0x80000000u
struct rnic_sack {
	rte_be32_t epsn;
	rte_be64_t map[RNIC_SACK_WORDS];
} __rte_packed;

struct rnic_deth {
	rte_be32_t qkey;
	uint8_t rsvd;
	uint8_t sqp[3];
} __rte_packed;

/* ------------------------------------------------------------------ */
/* Two-level accessors: __x(hdr) reads a raw header, byte order inside. */
/* ------------------------------------------------------------------ */

/* Always inlined: in a caller as large as the RX burst GCC left
 * __reth_rkey and __reth_len as calls (ring 64 B 1.015x inlined, by
 * in-run A/B, doc/benchmarks.md). */
#define RNIC_HDR_ACC static __rte_always_inline

static inline uint32_t rnic_get24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline void rnic_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

#define RNIC_BTH_SE     0x80
#define RNIC_BTH_MIG    0x40
#define RNIC_BTH_PAD_SHIFT 4
#define RNIC_BTH_PAD_MASK  0x30
#define RNIC_BTH_TVER_MASK 0x0f
/* The ECN field, the low two bits of the IPv4 TOS byte (RFC 3168). */
#define RNIC_ECN_MASK   0x03
#define RNIC_ECN_ECT0   0x02
#define RNIC_ECN_CE     0x03
#define RNIC_BTH_FECN   0x80
#define RNIC_BTH_BECN   0x40
#define RNIC_BTH_ACKREQ 0x80
/** A reserved bit of the AckReq byte (IBA: sent as 0): softrnic's
 *  selective repeat, negotiated per QP, sets it on packets that carry an
 *  SRETH. Never set towards a standard peer. */
#define RNIC_BTH_SR     0x01

RNIC_HDR_ACC uint8_t __bth_opcode(const struct rnic_bth *b) { return b->opcode; }
RNIC_HDR_ACC bool __bth_se(const struct rnic_bth *b) { return b->flags & RNIC_BTH_SE; }
RNIC_HDR_ACC bool __bth_mig(const struct rnic_bth *b) { return b->flags & RNIC_BTH_MIG; }
static inline uint8_t __bth_pad(const struct rnic_bth *b)
{ return (b->flags & RNIC_BTH_PAD_MASK) >> RNIC_BTH_PAD_SHIFT; }
RNIC_HDR_ACC uint8_t __bth_tver(const struct rnic_bth *b) { return b->flags & RNIC_BTH_TVER_MASK; }
RNIC_HDR_ACC uint16_t __bth_pkey(const struct rnic_bth *b) { return rte_be_to_cpu_16(b->pkey); }
RNIC_HDR_ACC bool __bth_fecn(const struct rnic_bth *b) { return b->fb & RNIC_BTH_FECN; }
RNIC_HDR_ACC bool __bth_becn(const struct rnic_bth *b) { return b->fb & RNIC_BTH_BECN; }
RNIC_HDR_ACC uint32_t __bth_dqpn(const struct rnic_bth *b) { return rnic_get24(b->dqpn); }
RNIC_HDR_ACC bool __bth_ackreq(const struct rnic_bth *b) { return b->ack & RNIC_BTH_ACKREQ; }
RNIC_HDR_ACC bool __bth_sr(const struct rnic_bth *b) { return b->ack & RNIC_BTH_SR; }
RNIC_HDR_ACC uint32_t __bth_psn(const struct rnic_bth *b) { return rnic_get24(b->psn); }

RNIC_HDR_ACC uint64_t __reth_va(const struct rnic_reth *r) { return rte_be_to_cpu_64(r->va); }
RNIC_HDR_ACC uint32_t __reth_rkey(const struct rnic_reth *r) { return rte_be_to_cpu_32(r->rkey); }
RNIC_HDR_ACC uint32_t __reth_len(const struct rnic_reth *r) { return rte_be_to_cpu_32(r->len); }
RNIC_HDR_ACC uint8_t __aeth_syn(const struct rnic_aeth *a) { return rte_be_to_cpu_32(a->smsn) >> 24; }
RNIC_HDR_ACC uint32_t __aeth_msn(const struct rnic_aeth *a) { return rte_be_to_cpu_32(a->smsn) & 0xffffff; }
RNIC_HDR_ACC uint64_t __atmeth_va(const struct rnic_atmeth *a) { return rte_be_to_cpu_64(a->va); }
RNIC_HDR_ACC uint32_t __atmeth_rkey(const struct rnic_atmeth *a) { return rte_be_to_cpu_32(a->rkey); }
RNIC_HDR_ACC uint64_t __atmeth_swap_add(const struct rnic_atmeth *a) { return rte_be_to_cpu_64(a->swap_add); }
RNIC_HDR_ACC uint64_t __atmeth_cmp(const struct rnic_atmeth *a) { return rte_be_to_cpu_64(a->cmp); }
RNIC_HDR_ACC uint64_t __atmack_orig(const struct rnic_atmack *a) { return rte_be_to_cpu_64(a->orig); }
RNIC_HDR_ACC uint32_t __deth_qkey(const struct rnic_deth *d) { return rte_be_to_cpu_32(d->qkey); }
RNIC_HDR_ACC uint32_t __deth_sqp(const struct rnic_deth *d) { return rnic_get24(d->sqp); }

/* ------------------------------------------------------------------ */
/* AETH syndromes (IBA 9.7.5.1)                                        */
/* ------------------------------------------------------------------ */

#define RNIC_AETH_TYPE_MASK   0xe0
#define RNIC_AETH_ACK         0x00  /**< low 5 bits: credit count */
#define RNIC_AETH_RNR_NAK     0x20  /**< low 5 bits: RNR timer code */
#define RNIC_AETH_NAK         0x60  /**< low 5 bits: NAK code */
#define RNIC_NAK_PSN_SEQ      0
#define RNIC_NAK_INVALID_REQ  1
#define RNIC_NAK_REMOTE_ACCESS 2
#define RNIC_NAK_REMOTE_OP    3
#define RNIC_NAK_INVALID_RD   4
#define RNIC_AETH_CREDIT_INVALID 0x1f  /**< end-to-end credits not used */
/** The low five bits of a syndrome: credit count, RNR timer or NAK code. */
#define RNIC_AETH_VALUE_MASK  0x1f

/* ------------------------------------------------------------------ */
/* PSN arithmetic on the 24-bit space (seed 001)                       */
/* ------------------------------------------------------------------ */

#define RNIC_PSN_MASK   0xffffffu
#define RNIC_PSN_WINDOW (1u << 23)

static inline uint32_t rnic_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & RNIC_PSN_MASK;
}

/** Signed distance a - b in [-2^23, 2^23). */
static inline int32_t rnic_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

enum rnic_psn_region {
	RNIC_PSN_EXPECTED,   /**< equal to the expected PSN */
	RNIC_PSN_DUPLICATE,  /**< within 2^23 before it: already seen */
	RNIC_PSN_INVALID,    /**< ahead of it: a gap */
};

/** Where @p psn falls relative to the responder's expected PSN @p epsn. */
static inline enum rnic_psn_region
rnic_psn_classify(uint32_t psn, uint32_t epsn)
{
	int32_t d = rnic_psn_diff(psn, epsn);

	if (d == 0)
		return RNIC_PSN_EXPECTED;
	return d < 0 ? RNIC_PSN_DUPLICATE : RNIC_PSN_INVALID;
}

/* ------------------------------------------------------------------ */
/* ICRC (IBA annex A17, RoCEv2)                                        */
/* ------------------------------------------------------------------ */

/**
 * Compute the ICRC of a flat RoCEv2 frame. IPv4 or IPv6, by the version
 * nibble of the IP header (annex A17.3: the IPv6 traffic class, flow label
 * and hop limit are masked, as the IPv4 TOS, TTL and checksum).
 * @param frame  Ethernet frame, starting at the destination MAC.
 * @param l3_off offset of the IP header.
 * @param len    frame length including the 4 ICRC bytes.
 * @return the ICRC as it reads from the wire least-significant byte first.
 */
uint32_t rnic_icrc_calc_buf(const uint8_t *frame, uint32_t l3_off, uint32_t len);

/** Same over an mbuf chain; @p len counts the ICRC bytes too. */
uint32_t rnic_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len);

/**
 * The ICRC of the frame whose IP header is at @p l3, over the @p n bytes
 * from there up to the ICRC, in one pass: the masked fields are set to
 * ones in place and restored before it returns. Only for a frame nobody
 * else reads meanwhile (one being built). @return as rnic_icrc_calc_buf.
 */
uint32_t rnic_icrc_calc_inplace(uint8_t *l3, uint32_t n);

/** Payloads from this long are copied and CRCed in one pass where the CPU
 * has the 256-bit fold (VPCLMULQDQ and AVX2, no AVX-512). */
#define RNIC_ICRC_COPY_SEAL_MIN 512

/**
 * Fill in a frame being built and return its ICRC: copy the @p len bytes
 * at @p src to @p l3 + @p hlen (after the headers, @p hlen bytes from the
 * IP header at @p l3), zero the @p pad bytes after them, and compute the
 * ICRC over [l3, l3 + hlen + len + pad) as rnic_icrc_calc_inplace does.
 * Where the CPU allows, from RNIC_ICRC_COPY_SEAL_MIN bytes, in one pass:
 * the payload is read once, not copied and then read again.
 */
uint32_t rnic_icrc_copy_seal(uint8_t *l3, uint32_t hlen, const void *src, uint32_t len,
			     uint32_t pad);

/** Reflected CRC-32 (zlib's crc32) continuing from @p crc: ISA-L's, or
 * where the CPU has VPCLMULQDQ and no AVX-512 softrnic's own (a PCLMUL CRC
 * for 32-287 bytes, the 256-bit fold from 288). */
uint32_t rnic_crc32(uint32_t crc, const void *buf, uint64_t len);

/* ------------------------------------------------------------------ */
/* Parsed packet                                                       */
/* ------------------------------------------------------------------ */

/** Parse outcomes: an X-macro, expanded into the enum and the name table. */
#define RNIC_PKT_ERRORS(_) \
	_(OK, "ok") \
	_(OTHER_L2, "not IP (ARP, other ethertype)") \
	_(OTHER_L4, "IP but not UDP (IPv6: also any extension header)") \
	_(OTHER_PORT, "UDP but not port 4791") \
	_(TRUNC_L2, "frame shorter than its Ethernet/VLAN header") \
	_(TRUNC_L3, "frame shorter than its IP header") \
	_(IP_VERSION, "IP version (or IPv4 IHL) invalid for the ethertype") \
	_(IP_OPTIONS, "IPv4 options present") \
	_(IP_FRAG, "IPv4 fragment") \
	_(IP_LEN, "IP total/payload length disagrees with the frame") \
	_(IP_CSUM, "IPv4 header checksum bad") \
	_(UDP_LEN, "UDP length disagrees with the IP length") \
	_(TRUNC_BTH, "shorter than BTH plus ICRC") \
	_(TVER, "BTH transport version is not 0") \
	_(OPCODE, "unknown or unsupported opcode") \
	_(OPCODE_TRANSPORT, "opcode not allowed on the QP's transport") \
	_(TRUNC_EXT, "shorter than the opcode's extended headers") \
	_(PAD, "pad count does not fit the length") \
	_(PAYLOAD, "payload length invalid for the opcode") \
	_(SRETH, "BTH SR bit on an opcode that carries no SRETH") \
	_(ICRC, "ICRC mismatch")

enum rnic_pkt_err {
#define RNIC_PKT_ERR_ENUM(n, s) RNIC_PKT_ERR_##n,
	RNIC_PKT_ERRORS(RNIC_PKT_ERR_ENUM)
#undef RNIC_PKT_ERR_ENUM
	RNIC_PKT_ERR_MAX
};

extern const char *const rnic_pkt_err_str[RNIC_PKT_ERR_MAX];
extern const char *const rnic_pkt_err_name[RNIC_PKT_ERR_MAX];

/** True for outcomes that mean "not RoCEv2 at all" rather than malformed. */
static inline bool rnic_pkt_err_is_other(enum rnic_pkt_err e)
{
	return e == RNIC_PKT_ERR_OTHER_L2 || e == RNIC_PKT_ERR_OTHER_L4 ||
	       e == RNIC_PKT_ERR_OTHER_PORT;
}

/** Extended-header field values, host order; used to build and to parse. */
struct rnic_ext_fields {
	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint8_t aeth_syn;
	uint32_t aeth_msn;
	uint64_t atm_va;
	uint32_t atm_rkey;
	uint64_t atm_swap_add;
	uint64_t atm_cmp;
	uint64_t atmack_orig;
	rte_be32_t imm;          /**< ImmDt is opaque: kept in wire order */
	uint32_t ieth_rkey;
	uint32_t deth_qkey;
	uint32_t deth_sqp;
	/* SRETH, when the BTH's SR bit is set (rnic_bth_fields.sr) */
	uint64_t sr_va;
	uint32_t sr_key;
	uint32_t sr_len;
	uint32_t sr_aux;         /* the SACK's ePSN on an ACK */
	/* The SACK's map on an ACK; last, and left as it was by the parser
	 * unless the frame is an ACK with the SR bit (not cleared per packet). */
	uint64_t sack[RNIC_SACK_WORDS];
};

/** Addressing of a frame (outer headers), network order where noted. */
struct rnic_l2l3 {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	bool vlan;
	bool ipv6;               /**< IPv6 (src_ip6/dst_ip6), else IPv4 */
	uint16_t vlan_tci;       /**< host order */
	rte_be32_t src_ip;       /**< IPv4 */
	rte_be32_t dst_ip;
	uint8_t src_ip6[16];     /**< IPv6 */
	uint8_t dst_ip6[16];
	uint32_t flow_label;     /**< IPv6, host order, 20 bits */
	uint8_t tos;             /**< DSCP and ECN (IPv6: the traffic class) */
	uint8_t ttl;             /**< IPv6: the hop limit */
	uint16_t udp_sport;      /**< host order */
	uint16_t udp_dport;      /**< host order */
};

/** The BTH fields, host order. */
struct rnic_bth_fields {
	uint8_t opcode;
	bool se, mig, fecn, becn, ackreq;
	bool sr;             /**< RNIC_BTH_SR: an SRETH follows the opcode's headers */
	uint8_t pad;
	uint8_t tver;
	uint16_t pkey;
	uint32_t dqpn;
	uint32_t psn;
};

/** Everything the parser learnt from one frame. */
struct rnic_pkt {
	struct rnic_l2l3 l;
	struct rnic_bth_fields bth;
	const struct rnic_opcode_info *op;  /**< NULL before BTH is known */
	uint16_t l3_off;
	uint16_t bth_off;
	uint16_t payload_off;    /**< from frame start */
	uint32_t payload_len;    /**< without pad and ICRC */
	uint32_t frame_len;
	uint32_t icrc_wire;      /**< ICRC as read (LSB first) */
	struct rnic_ext_fields ext;   /**< last: its SACK map is not cleared */
};

/** Zero every field of @p e but the SACK map: only an ACK with the SR
 * bit carries one, and it is read and written only then. */
static __rte_always_inline void
rnic_ext_clear(struct rnic_ext_fields *e)
{
	RTE_BUILD_BUG_ON(offsetof(struct rnic_ext_fields, sack) + sizeof(e->sack) !=
			 sizeof(*e));
	rnic_zero_small(e, offsetof(struct rnic_ext_fields, sack));
}

/** Zero every field of @p pkt but its SACK map (rnic_ext_clear). */
static __rte_always_inline void
rnic_pkt_clear(struct rnic_pkt *pkt)
{
	RTE_BUILD_BUG_ON(offsetof(struct rnic_pkt, ext.sack) + sizeof(pkt->ext.sack) !=
			 sizeof(*pkt));
	rnic_zero_small(pkt, offsetof(struct rnic_pkt, ext.sack));
}

/** IP header bytes: 40 for IPv6, 20 for IPv4 (no options are built). */
static inline uint32_t rnic_l3_hlen(bool ipv6)
{
	return ipv6 ? RNIC_IPV6_HLEN : RNIC_IPV4_HLEN;
}

/**
 * Parse and validate a flat frame: Eth[/802.1Q]/IPv4 or IPv6/UDP 4791/BTH/ext, pad,
 * and (when @p check_icrc) the ICRC. Never reads past @p len.
 * @return RNIC_PKT_ERR_OK or the reason the frame is not a valid RoCEv2 frame.
 */
enum rnic_pkt_err rnic_pkt_parse_buf(const uint8_t *frame, uint32_t len,
				     bool check_icrc, struct rnic_pkt *pkt);

/**
 * The destination QP of a RoCEv2 frame, from the BTH at its fixed place
 * after Ethernet [802.1Q] IPv4-or-IPv6 UDP 4791, without validating anything
 * else (steering before the full parse). @return false when the frame is not
 * IP/UDP to port 4791 or too short to hold a BTH.
 */
bool rnic_pkt_peek_dqpn(const struct rte_mbuf *m, uint32_t *dqpn);

/** Same over a (possibly multi-segment) mbuf. */
enum rnic_pkt_err rnic_pkt_parse_mbuf(const struct rte_mbuf *m, bool check_icrc,
				      struct rnic_pkt *pkt);

/** Frames up to this long (Ethernet header to ICRC) get their ICRC
 * computed ahead of parsing (rnic_pkt_icrc_ahead). */
#define RNIC_ICRC_AHEAD_MAX (RNIC_ETH_HLEN + 512 + RNIC_ICRC_LEN)

/**
 * The ICRCs of a burst of received frames, computed one after another
 * before any of them is parsed: a short frame's CRC is a chain of
 * dependent multiplications, which back to back the CPU can overlap and
 * between two parses cannot (ring 64 B 1.08x, doc/benchmarks.md). @p ahead[i]
 * becomes (1 << 32) | the ICRC of @p m[i] taken as an untagged IPv4 or
 * IPv6 frame whose ICRC ends its one segment, or 0 where @p m[i] is none
 * of that or longer than RNIC_ICRC_AHEAD_MAX. Reads nothing past a
 * segment's data; a frame it misjudges is checked in full by
 * rnic_pkt_parse_mbuf_ahead.
 */
void rnic_pkt_icrc_ahead(struct rte_mbuf *const *m, unsigned int n, uint64_t *ahead);

/** rnic_pkt_parse_mbuf with the ICRC checked, against @p ahead (from
 * rnic_pkt_icrc_ahead) where that covers the frame as parsed (no VLAN tag,
 * no bytes after the ICRC), else computed. */
enum rnic_pkt_err rnic_pkt_parse_mbuf_ahead(const struct rte_mbuf *m, uint64_t ahead,
					    struct rnic_pkt *pkt);

/**
 * The common request in the fields its fast path reads
 * (rnic_pkt_rc_write): a packet of an RC RDMA WRITE without immediate.
 */
struct rnic_rc_write {
	const uint8_t *dst_mac;
	uint64_t va;             /**< RETH (First, Only; else 0) */
	uint32_t rkey;           /**< RETH (First, Only; else 0) */
	uint32_t dma_len;        /**< RETH (First, Only; else 0) */
	uint32_t payload_len;    /**< without pad and ICRC */
	uint32_t dst_ip;         /**< network order */
	uint32_t dqpn;
	uint32_t psn;
	uint16_t pkey;
	uint16_t payload_off;    /**< from frame start */
	uint8_t opcode;          /**< RC WRITE First, Middle, Last or Only */
	uint8_t tos;
	bool ackreq;
};

/**
 * Header prediction on receive: whether @p m is an untagged IPv4 RC RDMA
 * WRITE First, Middle, Last or Only in one segment, without SRETH and
 * without bytes after its ICRC, that rnic_pkt_parse_mbuf_ahead(@p m,
 * @p ahead) would accept (every check it makes, the ICRC included:
 * against @p ahead where that holds one, else computed); its fields in
 * @p f when so. Any other frame is false, to be parsed in full: a cheaper
 * test of the one form, not a second parser.
 */
bool rnic_pkt_rc_write(const struct rte_mbuf *m, uint64_t ahead, struct rnic_rc_write *f);

/**
 * The headers of one connection, prebuilt (ReqPktGen/RespPktGen's
 * template): Ethernet [802.1Q] IPv4-or-IPv6 UDP and BTH with everything
 * that does not change from packet to packet (addresses, ports, TOS, TTL,
 * flow label, P_Key, destination QP). Per packet only the lengths, the
 * IPv4 checksum (incrementally, from the template's sum), the opcode, SE,
 * pad, AckReq and PSN are written.
 */
#define RNIC_TMPL_V4 64              /**< bytes copied for an IPv4 template */
#define RNIC_TMPL_MAX 96             /**< bytes copied for an IPv6 template */
struct rnic_pkt_tmpl {
	/* These 8 bytes first: a holder that places hdr on a cache line's
	 * start keeps them on the line before (struct rnic_qp, with its
	 * other hot fields), and an IPv4 frame's copy then reads one line. */
	uint8_t l3_off;              /**< 14, or 18 with a VLAN tag */
	uint8_t len;                 /**< bytes up to the end of BTH */
	bool ipv6;
	uint32_t ip_sum;             /**< the IPv4 header's word sum with total
				      *   length and checksum 0, not folded */
	uint8_t hdr[RNIC_TMPL_MAX];  /**< Eth .. BTH; the rest zero */
};

/** Fill @p t for frames from @p l to QP @p dqpn in partition @p pkey. */
void rnic_pkt_tmpl_init(struct rnic_pkt_tmpl *t, const struct rnic_l2l3 *l, uint16_t pkey,
			uint32_t dqpn);

/**
 * Write the headers of one packet from the template @p t (the BTH's
 * variable fields from @p b: opcode, se, ackreq, psn; the rest of @p b is
 * the template's) and the extended headers from @p ext into @p dst.
 * @return as rnic_pkt_build_hdrs, whose bytes it writes for the same input.
 */
uint32_t rnic_pkt_tmpl_build(uint8_t *dst, uint32_t cap, const struct rnic_pkt_tmpl *t,
			     const struct rnic_bth_fields *b, const struct rnic_ext_fields *ext,
			     uint32_t payload_len);

/**
 * Write Eth[/802.1Q]/IPv4-or-IPv6/UDP/BTH/extended headers for
 * @p bth->opcode into @p dst using the opcode table. IP and UDP lengths
 * cover @p payload_len, the pad implied by it (set in BTH) and the ICRC.
 * The IPv4 checksum is filled in; the UDP checksum is 0, over IPv4 and
 * over IPv6 alike (what rxe and RoCE NICs send: the ICRC protects the
 * packet; RFC 6935/6936 allow zero for such tunnels).
 * @return header bytes written, or 0 if the opcode is unknown or @p cap is
 *         too small.
 */
uint32_t rnic_pkt_build_hdrs(uint8_t *dst, uint32_t cap,
			     const struct rnic_l2l3 *l,
			     const struct rnic_bth_fields *bth,
			     const struct rnic_ext_fields *ext,
			     uint32_t payload_len);

/** Bytes of pad that make @p payload_len a multiple of 4. */
static inline uint8_t rnic_pad_len(uint32_t payload_len)
{
	return (uint8_t)((4 - (payload_len & 3)) & 3);
}

/** Header bytes (Eth..ext) for an opcode, or 0 if unknown. */
uint32_t rnic_pkt_hdr_len(uint8_t opcode, bool vlan, bool ipv6);

/**
 * Build a complete flat frame (headers, payload, zero pad, ICRC) into @p dst.
 * @return the frame length, or 0 if it does not fit @p cap.
 */
uint32_t rnic_pkt_build_buf(uint8_t *dst, uint32_t cap,
			    const struct rnic_l2l3 *l,
			    const struct rnic_bth_fields *bth,
			    const struct rnic_ext_fields *ext,
			    const void *payload, uint32_t payload_len);

/**
 * Fill in the ICRC of a frame in an mbuf whose last 4 bytes are reserved
 * for it (single or multi-segment).
 */
void rnic_pkt_finish_icrc_mbuf(struct rte_mbuf *m, uint32_t l3_off);

/** RoCEv2 UDP source port for a QP, in 0xC000-0xFFFF. */
static inline uint16_t rnic_udp_sport(uint32_t qpn)
{
	uint32_t h = qpn * 2654435761u;
	return (uint16_t)(RNIC_UDP_SPORT_MIN | ((h >> 16) & 0x3fff));
}

/** Format a one-line description of a parsed packet (rnic-pcap, logs). */
int rnic_pkt_format(char *buf, size_t size, const struct rnic_pkt *pkt);

#endif /* RNIC_WIRE_H */
