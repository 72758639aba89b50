/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Management datagrams of the InfiniBand communication manager (IBA vol. 1
 * chapters 13.4 and 12.6) as RoCEv2 carries them: a 256-byte MAD in a UD
 * SEND to QP1 (the GSI) with the GSI Q_Key. The common MAD header and the
 * CM messages REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ and SIDR_REP
 * are decoded into host
 * structs and encoded from them, field by field as IBA's message tables
 * place them (byte offset, bit offset from the most significant bit,
 * width); the rdma_cm IP header that RDMA CM puts at the start of a REQ's
 * private data likewise. Issue 21: the CM state machine builds on these.
 */
#ifndef RNIC_MAD_H
#define RNIC_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RNIC_MAD_LEN          256          /**< every MAD, padded */
#define RNIC_MAD_HDR_LEN      24           /**< common MAD header */
#define RNIC_CM_DATA_LEN      (RNIC_MAD_LEN - RNIC_MAD_HDR_LEN)
#define RNIC_GSI_QPN          1
#define RNIC_GSI_QKEY         0x80010000u  /**< IBA 13.4.6.2 */
#define RNIC_MAD_BASE_VERSION 1
#define RNIC_MGMT_CLASS_CM    0x07
#define RNIC_CM_CLASS_VERSION 2
#define RNIC_MAD_METHOD_SEND  0x03

/** CM attribute IDs (IBA table 104). */
enum rnic_cm_attr {
	RNIC_CM_REQ = 0x0010,
	RNIC_CM_MRA = 0x0011,
	RNIC_CM_REJ = 0x0012,
	RNIC_CM_REP = 0x0013,
	RNIC_CM_RTU = 0x0014,
	RNIC_CM_DREQ = 0x0015,
	RNIC_CM_DREP = 0x0016,
	RNIC_CM_SIDR_REQ = 0x0017,
	RNIC_CM_SIDR_REP = 0x0018,
};

/** Private data of each message (bytes). */
#define RNIC_CM_REQ_PDATA  92
#define RNIC_CM_MRA_PDATA  222
#define RNIC_CM_REJ_PDATA  148
#define RNIC_CM_REJ_ARI    72
#define RNIC_CM_REP_PDATA  196
#define RNIC_CM_RTU_PDATA  224
#define RNIC_CM_DREQ_PDATA 220
#define RNIC_CM_DREP_PDATA 224
#define RNIC_CM_SIDR_REQ_PDATA 216
#define RNIC_CM_SIDR_REP_PDATA 136
#define RNIC_CM_SIDR_REP_INFO  72

/** The common MAD header (IBA 13.4.3), host order. */
struct rnic_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

/** REQ (IBA table 106); the alternate path is not carried (zero). */
struct rnic_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;                /**< 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;
	uint8_t initiator_depth;
	uint32_t remote_eecn;
	uint8_t remote_cm_response_timeout; /**< 5 bits: 4.096 us * 2^t */
	uint8_t transport_service_type;    /**< 2 bits: 0 RC, 1 UC */
	uint8_t e2e_flow_control;          /**< 1 bit */
	uint32_t starting_psn;             /**< 24 bits */
	uint8_t local_cm_response_timeout; /**< 5 bits */
	uint8_t retry_count;               /**< 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;                  /**< 4 bits, enum rnic_mtu + 1 (IBA) */
	uint8_t rdc_exists;
	uint8_t rnr_retry_count;           /**< 3 bits */
	uint8_t max_cm_retries;            /**< 4 bits */
	uint8_t srq;
	uint8_t ext_transport_type;        /**< 3 bits */
	uint16_t primary_local_lid;
	uint16_t primary_remote_lid;
	uint8_t primary_local_gid[16];
	uint8_t primary_remote_gid[16];
	uint32_t primary_flow_label;       /**< 20 bits */
	uint8_t primary_packet_rate;       /**< 6 bits */
	uint8_t primary_traffic_class;
	uint8_t primary_hop_limit;
	uint8_t primary_sl;                /**< 4 bits */
	uint8_t primary_subnet_local;
	uint8_t primary_local_ack_timeout; /**< 5 bits */
	uint8_t private_data[RNIC_CM_REQ_PDATA];
};

/** MRA (IBA table 107). */
struct rnic_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t message_mraed;             /**< 2 bits: 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;           /**< 5 bits */
	uint8_t private_data[RNIC_CM_MRA_PDATA];
};

/** REJ (IBA table 108); reasons in table 109. */
struct rnic_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t message_rejected;          /**< 2 bits: 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_length;        /**< 7 bits */
	uint16_t reason;
	uint8_t ari[RNIC_CM_REJ_ARI];
	uint8_t private_data[RNIC_CM_REJ_PDATA];
};

#define RNIC_CM_REJ_TIMEOUT          1
#define RNIC_CM_REJ_INVALID_SERVICE  8   /**< no listener for the service ID */
#define RNIC_CM_REJ_CONSUMER         28  /**< the application said no */
#define RNIC_CM_REJ_STALE_CONN       10

/** REP (IBA table 110). */
struct rnic_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;                /**< 24 bits */
	uint32_t local_eecn;
	uint32_t starting_psn;             /**< 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;          /**< 5 bits */
	uint8_t failover_accepted;         /**< 2 bits */
	uint8_t e2e_flow_control;
	uint8_t rnr_retry_count;           /**< 3 bits */
	uint8_t srq;
	uint64_t local_ca_guid;
	uint8_t private_data[RNIC_CM_REP_PDATA];
};

/** RTU (table 111) and DREP (table 113): the two communication IDs. */
struct rnic_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[RNIC_CM_RTU_PDATA];
};

/** DREQ (IBA table 112). */
struct rnic_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;               /**< 24 bits */
	uint8_t private_data[RNIC_CM_DREQ_PDATA];
};

/** SIDR_REQ (IBA table 119): which QP serves a service ID (UD). */
struct rnic_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[RNIC_CM_SIDR_REQ_PDATA];
};

/** SIDR_REP (IBA table 120); status values in table 121. */
struct rnic_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;
	uint8_t info_length;
	uint32_t qpn;                      /**< 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t info[RNIC_CM_SIDR_REP_INFO];
	uint8_t private_data[RNIC_CM_SIDR_REP_PDATA];
};

#define RNIC_CM_SIDR_OK          0   /**< the QP and Q_Key are valid */
#define RNIC_CM_SIDR_UNSUPPORTED 1   /**< no service for the service ID */
#define RNIC_CM_SIDR_REJECT      2   /**< the service provider said no */

/** A decoded CM MAD. */
struct rnic_cm_msg {
	struct rnic_mad_hdr hdr;           /**< hdr.attr_id says which member */
	union {
		struct rnic_cm_req req;
		struct rnic_cm_mra mra;
		struct rnic_cm_rej rej;
		struct rnic_cm_rep rep;
		struct rnic_cm_rtu rtu;        /**< also DREP */
		struct rnic_cm_dreq dreq;
		struct rnic_cm_sidr_req sidr_req;
		struct rnic_cm_sidr_rep sidr_rep;
	};
};

/** Decode outcomes. */
enum rnic_mad_err {
	RNIC_MAD_OK,
	RNIC_MAD_SHORT,        /**< fewer than 256 bytes */
	RNIC_MAD_VERSION,      /**< base version not 1 */
	RNIC_MAD_CLASS,        /**< not the CM class, or class version not 2 */
	RNIC_MAD_METHOD,       /**< not Send */
	RNIC_MAD_ATTR,         /**< an attribute ID this CM does not know */
};

/**
 * Decode the CM MAD in @p buf (@p len bytes, at least 256).
 * @return RNIC_MAD_OK with @p msg filled, or why not (@p msg->hdr is
 *         filled whenever the header could be read).
 */
enum rnic_mad_err rnic_cm_decode(const uint8_t *buf, size_t len, struct rnic_cm_msg *msg);

/**
 * Encode @p msg (its hdr.attr_id names the message) into the 256 bytes at
 * @p buf; bytes no field covers are zero. @return 0, or -1 for an unknown
 * attribute ID.
 */
int rnic_cm_encode(const struct rnic_cm_msg *msg, uint8_t buf[RNIC_MAD_LEN]);

/** A message's name ("REQ", ...), or NULL. */
const char *rnic_cm_attr_name(uint16_t attr_id);

/* ------------------------------------------------------------------ */
/* The rdma_cm IP service (RDMA CM's "IB/RoCE IP" addressing)          */
/* ------------------------------------------------------------------ */

/** Service IDs of the TCP port space: this | destination port. */
#define RNIC_CM_SID_PS_TCP   0x0000000001060000ull
/** ... and of the UDP port space (UD QPs, resolved by SIDR). */
#define RNIC_CM_SID_PS_UDP   0x0000000001110000ull
/** The Q_Key of UD QPs of the UDP port space (rdma_cm's RDMA_UDP_QKEY). */
#define RNIC_CMA_UDP_QKEY    0x01234567u
/** Bytes of the rdma_cm header at the start of a REQ's private data. */
#define RNIC_CMA_HDR_LEN     36

/** The rdma_cm header: version 0, IP version, the active side's port,
 *  its address and the passive side's (IPv4 as ::ffff:a.b.c.d style:
 *  the address in the last 4 bytes). */
struct rnic_cma_hdr {
	uint8_t ip_version;      /**< 4 or 6 */
	uint16_t src_port;       /**< host order */
	uint8_t src_addr[16];
	uint8_t dst_addr[16];
};

/** @return 0 with @p h filled from @p pdata, -1 when it is not a version
 *  0 header of IPv4 or IPv6. */
int rnic_cma_hdr_decode(const uint8_t *pdata, size_t len, struct rnic_cma_hdr *h);

/** Write @p h into the first RNIC_CMA_HDR_LEN bytes of @p pdata. */
void rnic_cma_hdr_encode(const struct rnic_cma_hdr *h, uint8_t *pdata);

#endif /* RNIC_MAD_H */
