/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control, the notification point (issue 18; RoCEv2 annex
 * A17.9): a packet that arrives Congestion Experienced makes its QP send
 * a CNP to the peer QP (for UD, to the datagram's source QP and address),
 * at most one per cnp_interval_us. The reaction point is DCQCN
 * (rnic_dcqcn.h, applied by the TX role).
 */

#include <rte_cycles.h>

#include "rnic_engine_pvt.h"

/*
 * A CNP as RoCEv2 defines it: BTH opcode 0x81, the peer's QPN, BECN set,
 * the QP's P_Key, PSN 0, 16 reserved bytes of zero and an ICRC; IPv4 with
 * the device's CNP DSCP and Not-ECT (a switch must not mark it), UDP
 * source port and addresses as the QP's other packets.
 */
static void
np_send_cnp(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
	    struct rnic_dev_stats *st)
{
	struct rnic_bth_fields b = {
		.opcode = RNIC_OPCODE_CNP, .becn = true, .pkey = qp->attr.pkey,
		.dqpn = qp->attr.dest_qp_num, .psn = 0,
	};
	struct rnic_ext_fields ext = { 0 };
	struct rnic_l2l3 l = qp->l2;
	struct rte_mbuf *m;
	uint8_t *p;

	if (qp->type == RNIC_QPT_UD) {
		/* back to where the datagram came from */
		memset(&l, 0, sizeof(l));
		memcpy(l.src_mac, wk->dev->mac, 6);
		memcpy(l.dst_mac, pkt->l.src_mac, 6);
		l.ipv6 = pkt->l.ipv6;
		l.src_ip = pkt->l.dst_ip;    /* the address it was sent to */
		l.dst_ip = pkt->l.src_ip;
		memcpy(l.src_ip6, pkt->l.dst_ip6, 16);
		memcpy(l.dst_ip6, pkt->l.src_ip6, 16);
		l.vlan = pkt->l.vlan;
		l.vlan_tci = pkt->l.vlan_tci;
		l.ttl = RNIC_IPV4_TTL_DEFAULT;
		l.udp_sport = rnic_udp_sport(qp->qpn);
		l.udp_dport = RNIC_ROCE_UDP_PORT;
		b.dqpn = pkt->ext.deth_sqp;
	}

	l.tos = (uint8_t)(wk->dev->attr.cnp_dscp << 2);
	m = rnic_pkt_alloc(wk->dev, st, NULL, &l, &b, &ext, 0, &p);
	if (m == NULL)
		return;
	rnic_pkt_seal(m, rnic_l3_off(&l));
	rnic_txbuf_add(&wk->rx.txb, m);
	st->cnp_sent++;
}

void
rnic_np_ce(struct rnic_worker *wk, struct rnic_qp *qp, const struct rnic_pkt *pkt,
	   struct rnic_dev_stats *st)
{
	enum rnic_qp_state s = rnic_qp_state_get(qp);
	uint64_t now;

	st->ecn_ce_rcvd++;
	/* A UD QP notifies the sender of the datagram (one CNP per interval
	 * for all of them); only a UD request carries its source QP. */
	if ((s != RNIC_QPS_RTR && s != RNIC_QPS_RTS && s != RNIC_QPS_SQD) ||
	    (qp->type == RNIC_QPT_UD && !(pkt->op->mask & RNIC_M_DETH)))
		return;
	now = rte_rdtsc();
	if (qp->resp.cnp_tsc != 0 && now - qp->resp.cnp_tsc < wk->dev->cnp_gap_tsc)
		return;
	if (!rnic_txbuf_room(&wk->rx.txb))
		return;   /* the next CE mark asks again */
	qp->resp.cnp_tsc = now;
	np_send_cnp(wk, qp, pkt, st);
}
