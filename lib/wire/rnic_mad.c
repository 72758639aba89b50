/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MAD codec. Each message is a table of fields as IBA vol. 1 chapter
 * 12.6 lays them out: byte offset in the message (after the 24-byte MAD
 * header), bit offset from the most significant bit of that byte, width in
 * bits; numeric fields map onto a host integer of the struct, fields of
 * whole bytes (GIDs, private data) onto a byte array. One walker decodes
 * and encodes every message.
 */
#include <string.h>

#include "rnic_mad.h"

struct cm_field {
	uint16_t byte;     /* from the start of the message data */
	uint8_t bit;       /* from the MSB of that byte */
	uint16_t width;    /* bits; a byte array when size is 0 */
	uint16_t off;      /* offsetof in the host struct */
	uint8_t size;      /* host integer size: 1, 2, 4, 8; 0: bytes */
};

#define F(type, member, byte_, bit_, width_) \
	{ (byte_), (bit_), (width_), offsetof(type, member), sizeof(((type *)0)->member) }
#define B(type, member, byte_) \
	{ (byte_), 0, sizeof(((type *)0)->member) * 8, offsetof(type, member), 0 }

#define R struct rnic_cm_req
static const struct cm_field req_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, service_id, 8, 0, 64),
	F(R, local_ca_guid, 16, 0, 64), F(R, local_qkey, 28, 0, 32),
	F(R, local_qpn, 32, 0, 24), F(R, responder_resources, 35, 0, 8),
	F(R, local_eecn, 36, 0, 24), F(R, initiator_depth, 39, 0, 8),
	F(R, remote_eecn, 40, 0, 24), F(R, remote_cm_response_timeout, 43, 0, 5),
	F(R, transport_service_type, 43, 5, 2), F(R, e2e_flow_control, 43, 7, 1),
	F(R, starting_psn, 44, 0, 24), F(R, local_cm_response_timeout, 47, 0, 5),
	F(R, retry_count, 47, 5, 3), F(R, pkey, 48, 0, 16), F(R, path_mtu, 50, 0, 4),
	F(R, rdc_exists, 50, 4, 1), F(R, rnr_retry_count, 50, 5, 3),
	F(R, max_cm_retries, 51, 0, 4), F(R, srq, 51, 4, 1), F(R, ext_transport_type, 51, 5, 3),
	F(R, primary_local_lid, 52, 0, 16), F(R, primary_remote_lid, 54, 0, 16),
	B(R, primary_local_gid, 56), B(R, primary_remote_gid, 72),
	F(R, primary_flow_label, 88, 0, 20), F(R, primary_packet_rate, 91, 2, 6),
	F(R, primary_traffic_class, 92, 0, 8), F(R, primary_hop_limit, 93, 0, 8),
	F(R, primary_sl, 94, 0, 4), F(R, primary_subnet_local, 94, 4, 1),
	F(R, primary_local_ack_timeout, 95, 0, 5),
	B(R, private_data, 140),
};
#undef R

#define R struct rnic_cm_mra
static const struct cm_field mra_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, remote_comm_id, 4, 0, 32),
	F(R, message_mraed, 8, 0, 2), F(R, service_timeout, 9, 0, 5),
	B(R, private_data, 10),
};
#undef R

#define R struct rnic_cm_rej
static const struct cm_field rej_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, remote_comm_id, 4, 0, 32),
	F(R, message_rejected, 8, 0, 2), F(R, reject_info_length, 9, 0, 7),
	F(R, reason, 10, 0, 16), B(R, ari, 12), B(R, private_data, 84),
};
#undef R

#define R struct rnic_cm_rep
static const struct cm_field rep_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, remote_comm_id, 4, 0, 32),
	F(R, local_qkey, 8, 0, 32), F(R, local_qpn, 12, 0, 24),
	F(R, local_eecn, 16, 0, 24), F(R, starting_psn, 20, 0, 24),
	F(R, responder_resources, 24, 0, 8), F(R, initiator_depth, 25, 0, 8),
	F(R, target_ack_delay, 26, 0, 5), F(R, failover_accepted, 26, 5, 2),
	F(R, e2e_flow_control, 26, 7, 1), F(R, rnr_retry_count, 27, 0, 3),
	F(R, srq, 27, 3, 1), F(R, local_ca_guid, 28, 0, 64), B(R, private_data, 36),
};
#undef R

#define R struct rnic_cm_rtu
static const struct cm_field rtu_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, remote_comm_id, 4, 0, 32), B(R, private_data, 8),
};
#undef R

#define R struct rnic_cm_dreq
static const struct cm_field dreq_fields[] = {
	F(R, local_comm_id, 0, 0, 32), F(R, remote_comm_id, 4, 0, 32),
	F(R, remote_qpn, 8, 0, 24), B(R, private_data, 12),
};
#undef R

#define R struct rnic_cm_sidr_req
static const struct cm_field sidr_req_fields[] = {
	F(R, request_id, 0, 0, 32), F(R, pkey, 4, 0, 16), F(R, service_id, 8, 0, 64),
	B(R, private_data, 16),
};
#undef R

#define R struct rnic_cm_sidr_rep
static const struct cm_field sidr_rep_fields[] = {
	F(R, request_id, 0, 0, 32), F(R, status, 4, 0, 8), F(R, info_length, 5, 0, 8),
	F(R, qpn, 8, 0, 24), F(R, service_id, 12, 0, 64), F(R, qkey, 20, 0, 32),
	B(R, info, 24), B(R, private_data, 96),
};
#undef R
#undef F
#undef B

static const struct {
	uint16_t attr;
	const char *name;
	const struct cm_field *f;
	unsigned int n;
} cm_msgs[] = {
	{ RNIC_CM_REQ, "REQ", req_fields, sizeof(req_fields) / sizeof(req_fields[0]) },
	{ RNIC_CM_MRA, "MRA", mra_fields, sizeof(mra_fields) / sizeof(mra_fields[0]) },
	{ RNIC_CM_REJ, "REJ", rej_fields, sizeof(rej_fields) / sizeof(rej_fields[0]) },
	{ RNIC_CM_REP, "REP", rep_fields, sizeof(rep_fields) / sizeof(rep_fields[0]) },
	{ RNIC_CM_RTU, "RTU", rtu_fields, sizeof(rtu_fields) / sizeof(rtu_fields[0]) },
	{ RNIC_CM_DREQ, "DREQ", dreq_fields, sizeof(dreq_fields) / sizeof(dreq_fields[0]) },
	{ RNIC_CM_DREP, "DREP", rtu_fields, sizeof(rtu_fields) / sizeof(rtu_fields[0]) },
	{ RNIC_CM_SIDR_REQ, "SIDR_REQ", sidr_req_fields,
	  sizeof(sidr_req_fields) / sizeof(sidr_req_fields[0]) },
	{ RNIC_CM_SIDR_REP, "SIDR_REP", sidr_rep_fields,
	  sizeof(sidr_rep_fields) / sizeof(sidr_rep_fields[0]) },
};

static int
msg_index(uint16_t attr)
{
	for (unsigned int i = 0; i < sizeof(cm_msgs) / sizeof(cm_msgs[0]); i++)
		if (cm_msgs[i].attr == attr)
			return (int)i;
	return -1;
}

const char *
rnic_cm_attr_name(uint16_t attr_id)
{
	int i = msg_index(attr_id);

	return i < 0 ? NULL : cm_msgs[i].name;
}

/* Big-endian bits [bit, bit + width) from byte @p p (width <= 64). */
static uint64_t
get_bits(const uint8_t *p, unsigned int bit, unsigned int width)
{
	unsigned int nbytes = (bit + width + 7) / 8;
	unsigned __int128 v = 0;

	for (unsigned int i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	v >>= nbytes * 8 - bit - width;
	return (uint64_t)(v & (((unsigned __int128)1 << width) - 1));
}

static void
put_bits(uint8_t *p, unsigned int bit, unsigned int width, uint64_t val)
{
	unsigned int nbytes = (bit + width + 7) / 8, shift = nbytes * 8 - bit - width;
	unsigned __int128 v = 0, mask = (((unsigned __int128)1 << width) - 1) << shift;

	for (unsigned int i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	v = (v & ~mask) | (((unsigned __int128)val << shift) & mask);
	for (unsigned int i = nbytes; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t
host_get(const void *s, const struct cm_field *f)
{
	const uint8_t *p = (const uint8_t *)s + f->off;

	switch (f->size) {
	case 1: return *p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static void
host_put(void *s, const struct cm_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)s + f->off;

	switch (f->size) {
	case 1: *p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static void
hdr_decode(const uint8_t *b, struct rnic_mad_hdr *h)
{
	h->base_version = b[0];
	h->mgmt_class = b[1];
	h->class_version = b[2];
	h->method = b[3];
	h->status = (uint16_t)get_bits(b + 4, 0, 16);
	h->class_specific = (uint16_t)get_bits(b + 6, 0, 16);
	h->tid = get_bits(b + 8, 0, 64);
	h->attr_id = (uint16_t)get_bits(b + 16, 0, 16);
	h->attr_mod = (uint32_t)get_bits(b + 20, 0, 32);
}

enum rnic_mad_err
rnic_cm_decode(const uint8_t *buf, size_t len, struct rnic_cm_msg *msg)
{
	const uint8_t *d = buf + RNIC_MAD_HDR_LEN;
	int i;

	memset(msg, 0, sizeof(*msg));
	if (len < RNIC_MAD_LEN)
		return RNIC_MAD_SHORT;
	hdr_decode(buf, &msg->hdr);
	if (msg->hdr.base_version != RNIC_MAD_BASE_VERSION)
		return RNIC_MAD_VERSION;
	if (msg->hdr.mgmt_class != RNIC_MGMT_CLASS_CM ||
	    msg->hdr.class_version != RNIC_CM_CLASS_VERSION)
		return RNIC_MAD_CLASS;
	if (msg->hdr.method != RNIC_MAD_METHOD_SEND)
		return RNIC_MAD_METHOD;
	i = msg_index(msg->hdr.attr_id);
	if (i < 0)
		return RNIC_MAD_ATTR;
	for (unsigned int k = 0; k < cm_msgs[i].n; k++) {
		const struct cm_field *f = &cm_msgs[i].f[k];

		if (f->size == 0)
			memcpy((uint8_t *)&msg->req + f->off, d + f->byte, f->width / 8);
		else
			host_put(&msg->req, f, get_bits(d + f->byte, f->bit, f->width));
	}
	return RNIC_MAD_OK;
}

int
rnic_cm_encode(const struct rnic_cm_msg *msg, uint8_t buf[RNIC_MAD_LEN])
{
	const struct rnic_mad_hdr *h = &msg->hdr;
	uint8_t *d = buf + RNIC_MAD_HDR_LEN;
	int i = msg_index(h->attr_id);

	if (i < 0)
		return -1;
	memset(buf, 0, RNIC_MAD_LEN);
	buf[0] = h->base_version;
	buf[1] = h->mgmt_class;
	buf[2] = h->class_version;
	buf[3] = h->method;
	put_bits(buf + 4, 0, 16, h->status);
	put_bits(buf + 6, 0, 16, h->class_specific);
	put_bits(buf + 8, 0, 64, h->tid);
	put_bits(buf + 16, 0, 16, h->attr_id);
	put_bits(buf + 20, 0, 32, h->attr_mod);
	for (unsigned int k = 0; k < cm_msgs[i].n; k++) {
		const struct cm_field *f = &cm_msgs[i].f[k];

		if (f->size == 0)
			memcpy(d + f->byte, (const uint8_t *)&msg->req + f->off, f->width / 8);
		else
			put_bits(d + f->byte, f->bit, f->width, host_get(&msg->req, f));
	}
	return 0;
}

int
rnic_cma_hdr_decode(const uint8_t *pdata, size_t len, struct rnic_cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < RNIC_CMA_HDR_LEN || pdata[0] != 0)
		return -1;
	h->ip_version = pdata[1] >> 4;
	if (h->ip_version != 4 && h->ip_version != 6)
		return -1;
	h->src_port = (uint16_t)(pdata[2] << 8 | pdata[3]);
	memcpy(h->src_addr, pdata + 4, 16);
	memcpy(h->dst_addr, pdata + 20, 16);
	return 0;
}

void
rnic_cma_hdr_encode(const struct rnic_cma_hdr *h, uint8_t *pdata)
{
	pdata[0] = 0;
	pdata[1] = (uint8_t)(h->ip_version << 4);
	pdata[2] = (uint8_t)(h->src_port >> 8);
	pdata[3] = (uint8_t)h->src_port;
	memcpy(pdata + 4, h->src_addr, 16);
	memcpy(pdata + 20, h->dst_addr, 16);
}
