/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-mad-gen: CM MADs encoded by lib/wire/rnic_mad.c, each in a RoCEv2
 * UD SEND to QP1 (GSI Q_Key, source QP 1), written to a pcap for tshark to
 * decode (test/wire/cm_tshark_check.py). Every field of every message gets
 * a distinct value derived from a seed; the values are printed as one JSON
 * object per frame, keyed by tshark's field names, so that the check can
 * compare what tshark reads with what was encoded. Each MAD is decoded
 * back with rnic_cm_decode first: the generator exits 1 if that does not
 * give the same message.
 * usage: rnic-mad-gen OUT.pcap
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <pcap/pcap.h>

#include <rte_ip.h>

#include "rnic_mad.h"
#include "rnic_wire.h"

static pcap_dumper_t *dumper;
static unsigned int frames;

static void
emit(const uint8_t mad[RNIC_MAD_LEN], uint32_t psn)
{
	struct rnic_l2l3 l = {
		.src_mac = { 2, 0, 0, 0, 0, 1 }, .dst_mac = { 2, 0, 0, 0, 0, 2 },
		.src_ip = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1)),
		.dst_ip = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2)), .ttl = 64,
		.udp_sport = 0xc001, .udp_dport = RNIC_ROCE_UDP_PORT,
	};
	struct rnic_bth_fields b = { .opcode = RNIC_OPC(RNIC_TRANSPORT_UD, RNIC_OP_SEND_ONLY),
				     .pkey = RNIC_DEFAULT_PKEY, .dqpn = RNIC_GSI_QPN, .psn = psn };
	struct rnic_ext_fields e = { .deth_qkey = RNIC_GSI_QKEY, .deth_sqp = RNIC_GSI_QPN };
	uint8_t f[512];
	uint32_t len = rnic_pkt_build_buf(f, sizeof(f), &l, &b, &e, mad, RNIC_MAD_LEN);
	struct pcap_pkthdr h = { .ts = { 1700000000 + frames, 0 }, .caplen = len, .len = len };

	pcap_dump((u_char *)dumper, &h, f);
	frames++;
}

static void
gid_str(const uint8_t g[16], char *out)
{
	inet_ntop(AF_INET6, g, out, INET6_ADDRSTRLEN);
}

/* Encode, decode back, compare, emit; print the header's fields. */
static int
one(struct rnic_cm_msg *m, uint32_t seed)
{
	uint8_t mad[RNIC_MAD_LEN];
	struct rnic_cm_msg back;

	m->hdr.base_version = RNIC_MAD_BASE_VERSION;
	m->hdr.mgmt_class = RNIC_MGMT_CLASS_CM;
	m->hdr.class_version = RNIC_CM_CLASS_VERSION;
	m->hdr.method = RNIC_MAD_METHOD_SEND;
	m->hdr.tid = 0x1122334400000000ull | seed;
	if (rnic_cm_encode(m, mad) != 0 || rnic_cm_decode(mad, sizeof(mad), &back) != RNIC_MAD_OK ||
	    memcmp(&back, m, sizeof(back)) != 0) {
		fprintf(stderr, "rnic-mad-gen: %s does not decode to what was encoded\n",
			rnic_cm_attr_name(m->hdr.attr_id));
		return -1;
	}
	emit(mad, seed);
	printf("{\"frame\": %u, \"name\": \"%s\", \"infiniband.mad.baseversion\": 1, "
	       "\"infiniband.mad.mgmtclass\": 7, \"infiniband.mad.classversion\": 2, "
	       "\"infiniband.mad.method\": 3, \"infiniband.mad.transactionid\": %" PRIu64 ", "
	       "\"infiniband.mad.attributeid\": %u", frames, rnic_cm_attr_name(m->hdr.attr_id),
	       m->hdr.tid, m->hdr.attr_id);
	return 0;
}

int
main(int argc, char **argv)
{
	pcap_t *p;
	struct rnic_cm_msg m;
	char g1[INET6_ADDRSTRLEN], g2[INET6_ADDRSTRLEN];
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
		return 2;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	dumper = p ? pcap_dump_open(p, argv[1]) : NULL;
	if (dumper == NULL) {
		fprintf(stderr, "rnic-mad-gen: cannot write %s\n", argv[1]);
		return 1;
	}
	for (uint32_t s = 1; s <= 3 && rc == 0; s++) {
		struct rnic_cm_req *q = &m.req;
		struct rnic_cma_hdr ch = { .ip_version = 4, .src_port = (uint16_t)(40000 + s) };

		/* REQ: an rdma_cm connection to port 7470 + s over IPv4. */
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_REQ;
		q->local_comm_id = 0xabc00000u + s;
		q->service_id = RNIC_CM_SID_PS_TCP | (7470 + s);
		q->local_ca_guid = 0x0200000000000100ull + s;
		q->local_qkey = 0;
		q->local_qpn = 0x100 + s;
		q->responder_resources = (uint8_t)(s + 1);
		q->initiator_depth = (uint8_t)(s + 2);
		q->remote_cm_response_timeout = (uint8_t)(16 + s);
		q->transport_service_type = 0;
		q->e2e_flow_control = s & 1;
		q->starting_psn = 0xfedc00 + s;
		q->local_cm_response_timeout = (uint8_t)(20 + s);
		q->retry_count = (uint8_t)(s + 4);
		q->pkey = 0xffff;
		q->path_mtu = 3;
		q->rnr_retry_count = 7;
		q->max_cm_retries = 15;
		q->srq = s == 2;
		q->primary_local_lid = 0xffff;
		q->primary_remote_lid = 0xffff;
		q->primary_local_gid[10] = q->primary_local_gid[11] = 0xff;
		q->primary_local_gid[12] = 10, q->primary_local_gid[15] = (uint8_t)s;
		q->primary_remote_gid[10] = q->primary_remote_gid[11] = 0xff;
		q->primary_remote_gid[12] = 10, q->primary_remote_gid[15] = 2;
		q->primary_flow_label = 0x12340 + s;
		q->primary_packet_rate = (uint8_t)(2 + s);
		q->primary_traffic_class = (uint8_t)(0x20 + s);
		q->primary_hop_limit = 64;
		q->primary_sl = (uint8_t)s;
		q->primary_subnet_local = 1;
		q->primary_local_ack_timeout = (uint8_t)(14 + s);
		ch.src_addr[12] = 10, ch.src_addr[15] = (uint8_t)s;
		ch.dst_addr[12] = 10, ch.dst_addr[15] = 2;
		rnic_cma_hdr_encode(&ch, q->private_data);
		q->private_data[RNIC_CMA_HDR_LEN] = (uint8_t)(0xa0 + s);
		if (one(&m, s * 10 + 1) != 0) {
			rc = 1;
			break;
		}
		gid_str(q->primary_local_gid, g1);
		gid_str(q->primary_remote_gid, g2);
		printf(", \"infiniband.cm.req.serviceid\": %" PRIu64 ", "
		       "\"infiniband.cm.req.localcaguid\": %" PRIu64 ", \"infiniband.cm.req.localqkey\": 0, "
		       "\"infiniband.cm.req.localqpn\": %u, \"infiniband.cm.req.responderres\": %u, "
		       "\"infiniband.cm.req.initdepth\": %u, \"infiniband.cm.req.remoteresptout\": %u, "
		       "\"infiniband.cm.req.transpsvctype\": 0, \"infiniband.cm.req.e2eflowctrl\": %u, "
		       "\"infiniband.cm.req.startpsn\": %u, \"infiniband.cm.req.localresptout\": %u, "
		       "\"infiniband.cm.req.retrcount\": %u, \"infiniband.cm.req.pkey\": 65535, "
		       "\"infiniband.cm.req.pppmtu\": 3, \"infiniband.cm.req.rnrretrcount\": 7, "
		       "\"infiniband.cm.req.maxcmretr\": 15, \"infiniband.cm.req.srq\": %u, "
		       "\"infiniband.cm.req.prim_localgid\": \"%s\", \"infiniband.cm.req.prim_remotegid\": \"%s\", "
		       "\"infiniband.cm.req.prim_flowlabel\": %u, \"infiniband.cm.req.prim_pktrate\": %u, "
		       "\"infiniband.cm.req.prim_tfcclass\": %u, \"infiniband.cm.req.prim_hoplim\": 64, "
		       "\"infiniband.cm.req.prim_sl\": %u, \"infiniband.cm.req.prim_subnetlocal\": 1, "
		       "\"infiniband.cm.req.prim_localacktout\": %u, \"infiniband.cm.req.ip_cm.ipv\": 4, "
		       "\"infiniband.cm.req.ip_cm.sport\": %u, \"infiniband.cm.req.ip_cm.sip4\": \"10.0.0.%u\", "
		       "\"infiniband.cm.req.ip_cm.dip4\": \"10.0.0.2\"}\n",
		       q->service_id, q->local_ca_guid, q->local_qpn, q->responder_resources,
		       q->initiator_depth, q->remote_cm_response_timeout, q->e2e_flow_control,
		       q->starting_psn, q->local_cm_response_timeout, q->retry_count, q->srq, g1, g2,
		       q->primary_flow_label, q->primary_packet_rate, q->primary_traffic_class,
		       q->primary_sl, q->primary_local_ack_timeout, ch.src_port, s);

		/* REP */
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_REP;
		m.rep.local_comm_id = 0x5e000000u + s;
		m.rep.remote_comm_id = 0xabc00000u + s;
		m.rep.local_qpn = 0x200 + s;
		m.rep.starting_psn = 0x123400 + s;
		m.rep.responder_resources = (uint8_t)s;
		m.rep.initiator_depth = (uint8_t)(s + 5);
		m.rep.target_ack_delay = (uint8_t)(10 + s);
		m.rep.failover_accepted = (uint8_t)(s % 3);
		m.rep.e2e_flow_control = 1;
		m.rep.rnr_retry_count = (uint8_t)(s + 3);
		m.rep.srq = s == 3;
		m.rep.local_ca_guid = 0x0200000000000200ull + s;
		m.rep.private_data[0] = (uint8_t)s;
		if (one(&m, s * 10 + 2) != 0) {
			rc = 1;
			break;
		}
		printf(", \"infiniband.cm.rep.remotecommid\": %u, \"infiniband.cm.rep.localqkey\": 0, "
		       "\"infiniband.cm.rep.localqpn\": %u, \"infiniband.cm.rep.startpsn\": %u, "
		       "\"infiniband.cm.rep.respres\": %u, \"infiniband.cm.rep.initdepth\": %u, "
		       "\"infiniband.cm.rep.tgtackdelay\": %u, \"infiniband.cm.rep.failoveracc\": %u, "
		       "\"infiniband.cm.rep.e2eflowctrl\": 1, \"infiniband.cm.rep.rnrretrcount\": %u, "
		       "\"infiniband.cm.rep.srq\": %u, \"infiniband.cm.rep.localcaguid\": %" PRIu64 "}\n",
		       m.rep.remote_comm_id, m.rep.local_qpn, m.rep.starting_psn,
		       m.rep.responder_resources, m.rep.initiator_depth, m.rep.target_ack_delay,
		       m.rep.failover_accepted, m.rep.rnr_retry_count, m.rep.srq,
		       m.rep.local_ca_guid);

		/* RTU, REJ, DREQ, DREP */
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_RTU;
		m.rtu.local_comm_id = 0xabc00000u + s;
		m.rtu.remote_comm_id = 0x5e000000u + s;
		if (one(&m, s * 10 + 3) != 0) {
			rc = 1;
			break;
		}
		printf(", \"infiniband.cm.rtu.localcommid\": %u, \"infiniband.cm.rtu.remotecommid\": %u}\n",
		       m.rtu.local_comm_id, m.rtu.remote_comm_id);
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_REJ;
		m.rej.local_comm_id = 0x5e100000u + s;
		m.rej.remote_comm_id = 0xabc00000u + s;
		m.rej.message_rejected = (uint8_t)(s % 3);
		m.rej.reject_info_length = (uint8_t)(s * 9);
		m.rej.reason = s == 1 ? RNIC_CM_REJ_INVALID_SERVICE : (uint16_t)(20 + s);
		if (one(&m, s * 10 + 4) != 0) {
			rc = 1;
			break;
		}
		printf(", \"infiniband.cm.rej.localcommid\": %u, \"infiniband.cm.rej.remotecommid\": %u, "
		       "\"infiniband.cm.rej.msgrej\": %u, \"infiniband.cm.rej.rejinfolen\": %u, "
		       "\"infiniband.cm.rej.reason\": %u}\n", m.rej.local_comm_id,
		       m.rej.remote_comm_id, m.rej.message_rejected, m.rej.reject_info_length,
		       m.rej.reason);
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_DREQ;
		m.dreq.local_comm_id = 0xabc00000u + s;
		m.dreq.remote_comm_id = 0x5e000000u + s;
		m.dreq.remote_qpn = 0x200 + s;
		if (one(&m, s * 10 + 5) != 0) {
			rc = 1;
			break;
		}
		printf(", \"infiniband.cm.dreq.localcommid\": %u, \"infiniband.cm.dreq.remotecommid\": %u, "
		       "\"infiniband.cm.req.remoteqpneecn\": %u}\n", m.dreq.local_comm_id,
		       m.dreq.remote_comm_id, m.dreq.remote_qpn);
		memset(&m, 0, sizeof(m));
		m.hdr.attr_id = RNIC_CM_DREP;
		m.rtu.local_comm_id = 0x5e000000u + s;
		m.rtu.remote_comm_id = 0xabc00000u + s;
		if (one(&m, s * 10 + 6) != 0) {
			rc = 1;
			break;
		}
		printf(", \"infiniband.cm.drsp.localcommid\": %u, \"infiniband.cm.drsp.remotecommid\": %u}\n",
		       m.rtu.local_comm_id, m.rtu.remote_comm_id);
	}
	pcap_dump_close(dumper);
	pcap_close(p);
	return rc;
}
