/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HeaderParser (seed chapter 5) on the RX role: rte_eth_rx_burst, validate
 * Ethernet/IPv4/UDP/BTH/extended headers and the ICRC through the wire
 * library, hand ARP to rnic_arp.c, find the QP, and hand requests to the
 * responder and responses to requester receive. Every drop is counted by
 * reason. Received mbufs are never modified: with net_ring the sender's
 * retransmission list may hold the very same buffer.
 */
#include <rte_ethdev.h>

#include "rnic_engine_pvt.h"

/* IBA 10.9.1: the low 15 bits name the partition; one side must be a
 * full member (the top bit). */
#define PKEY_PARTITION_MASK 0x7fff
#define PKEY_FULL_MEMBER    0x8000
#define RX_PREFETCH         4        /* frames ahead: covers a frame's processing */
#define RX_PREFETCH_QP      2        /* QPs ahead where frames are steered: their
					     * frame's headers are in */
#define RX_BTH_OFFSET       (RNIC_ETH_HLEN + RNIC_IPV4_HLEN + RNIC_UDP_HLEN)

static bool
pkey_match(uint16_t a, uint16_t b)
{
	return (a & PKEY_PARTITION_MASK) == (b & PKEY_PARTITION_MASK) &&
	       ((a | b) & PKEY_FULL_MEMBER);
}

/* The frame's VLAN is the port's (untagged and priority-tagged frames
 * are VID 0, a port without a VLAN's), as a NIC's VLAN filter: a tagged
 * frame on a port without that VLAN, or an untagged one on a VLAN port,
 * is not for us (issue 21). */
static inline bool
vlan_ok(const struct rnic_worker *wk, bool tagged, uint16_t tci_host)
{
	return (tagged ? (tci_host & 0xfff) : 0) == wk->dev->attr.vlan;
}

/* A frame the parser called other L2 (ARP, tagged or not, goes to ARP)
 * or, being IPv6, other L4 (neighbour discovery). @return true when it
 * was one of those. */
static bool
rx_control(struct rnic_worker *wk, const struct rte_mbuf *m, enum rnic_pkt_err e,
	   struct rnic_dev_stats *st)
{
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *eh = rte_pktmbuf_read(m, 0, sizeof(eb), &eb);
	uint32_t l3 = sizeof(eb);
	uint16_t et = eh ? rte_be_to_cpu_16(eh->ether_type) : 0;
	rte_be16_t tci = 0;

	if (et == RTE_ETHER_TYPE_VLAN) {
		struct rte_vlan_hdr vb;
		const struct rte_vlan_hdr *vh = rte_pktmbuf_read(m, l3, sizeof(vb), &vb);

		et = vh ? rte_be_to_cpu_16(vh->eth_proto) : 0;
		tci = vh ? vh->vlan_tci : 0;
		l3 += sizeof(vb);
	}
	if (!(et == RTE_ETHER_TYPE_ARP && e == RNIC_PKT_ERR_OTHER_L2) &&
	    !(et == RTE_ETHER_TYPE_IPV6 && e == RNIC_PKT_ERR_OTHER_L4))
		return false;
	if (!vlan_ok(wk, l3 != sizeof(eb), rte_be_to_cpu_16(tci))) {
		st->drop_vlan++;
		return true;
	}
	if (et == RTE_ETHER_TYPE_IPV6)
		return rnic_nd_input(wk, m, l3, l3 != sizeof(eb), tci, st);
	rnic_arp_input(wk, m, l3, l3 != sizeof(eb), tci, st);
	return true;
}

/* A frame the parser refused: ARP, or a drop counted by its reason. */
static void
rx_not_roce(struct rnic_worker *wk, const struct rte_mbuf *m, enum rnic_pkt_err e,
	    struct rnic_dev_stats *st)
{
	if (e < RTE_DIM(st->drop_reason))
		st->drop_reason[e]++;
	if ((e == RNIC_PKT_ERR_OTHER_L2 || e == RNIC_PKT_ERR_OTHER_L4) && rx_control(wk, m, e, st))
		return;
	if (rnic_pkt_err_is_other(e))
		st->drop_not_roce++;
	else if (e == RNIC_PKT_ERR_ICRC)
		st->drop_icrc++;
	else
		st->drop_malformed++;
}

/*
 * Header prediction: a packet of an RC WRITE to this port, untagged (a
 * port without a VLAN), its QP's P_Key, no congestion mark, that the
 * responder executes as the common case, goes from its headers straight
 * to the responder's fast path. @return false, with nothing done, for
 * every other frame: rx_one parses it in full and decides.
 */
static inline bool
rx_fast(struct rnic_worker *wk, struct rte_mbuf *m, uint64_t icrc)
{
	const struct rnic_device *dev = wk->dev;
	struct rnic_rc_write f;
	struct rnic_qp *qp;

	if (!rnic_pkt_rc_write(m, icrc, &f))
		return false;
	/* (a frame declined from here on is traced as parsed twice) */
	RNIC_TRACE(RNIC_TP_PARSED, RNIC_PKT_ERR_OK);
	if (dev->attr.vlan != 0 || f.dst_ip != dev->ipv4 || memcmp(f.dst_mac, dev->mac, 6) != 0 ||
	    (f.tos & RNIC_ECN_MASK) == RNIC_ECN_CE)
		return false;
	qp = rnic_qp_lookup(wk->dev, f.dqpn);
	if (qp == NULL || !pkey_match(f.pkey, qp->attr.pkey) ||
	    !rnic_resp_rx_rc_write(wk, qp, m, &f))
		return false;
	RNIC_TRACE(RNIC_TP_HANDLED, f.opcode);
	return true;
}

/* @p icrc: the frame's ICRC computed ahead (rnic_pkt_icrc_ahead), or 0 */
static void
rx_one(struct rnic_worker *wk, struct rte_mbuf *m, uint64_t icrc, struct rnic_dev_stats *st)
{
	struct rnic_pkt pkt;
	enum rnic_pkt_err e;
	struct rnic_qp *qp;
	rnic_opmask_t mask;

	st->rx_pkts++;
	st->rx_bytes += m->pkt_len;
	if (rx_fast(wk, m, icrc)) {
		st->rx_fast++;
		return;
	}
	e = rnic_pkt_parse_mbuf_ahead(m, icrc, &pkt);
	RNIC_TRACE(RNIC_TP_PARSED, e);
	if (e != RNIC_PKT_ERR_OK) {
		rx_not_roce(wk, m, e, st);
		return;
	}
	if (unlikely(!vlan_ok(wk, pkt.l.vlan, pkt.l.vlan_tci))) {
		st->drop_vlan++;
		return;
	}
	if (memcmp(pkt.l.dst_mac, wk->dev->mac, 6) != 0 || !rnic_dev_is_local(wk->dev, &pkt.l)) {
		st->drop_wrong_dst++;
		return;
	}
	st->rx_ipv6 += pkt.l.ipv6;
	mask = pkt.op->mask;
	qp = rnic_qp_lookup(wk->dev, pkt.bth.dqpn);
	if (mask & RNIC_M_CNP) {
		/* For the requester's reaction point (TX applies it). */
		st->cnp_rcvd++;
		if (qp != NULL)
			STORE_REL(&qp->comp.cnp_seen, qp->comp.cnp_seen + 1);   /* [CNP] */
		return;
	}
	if (qp == NULL) {
		st->drop_no_qp++;
		return;
	}
	if (!rnic_opcode_allowed(pkt.bth.opcode, rnic_qp_transport(qp))) {
		/* The parser cannot know the QP: its reason is counted here. */
		st->drop_opcode++;
		st->drop_reason[RNIC_PKT_ERR_OPCODE_TRANSPORT]++;
		return;
	}
	if (!pkey_match(pkt.bth.pkey, qp->attr.pkey)) {
		st->drop_pkey++;
		return;
	}
	if (unlikely(pkt.bth.sr) && !qp->attr.sr) {
		/* an SRETH for a QP not set up for selective repeat: its
		 * payload offset is not what a standard peer meant either */
		st->drop_sr_off++;
		return;
	}
	if (unlikely((pkt.l.tos & RNIC_ECN_MASK) == RNIC_ECN_CE))
		rnic_np_ce(wk, qp, &pkt, st);   /* and the packet goes on */
	if (mask & RNIC_M_RESP)
		rnic_comp_rx(wk, qp, m, &pkt);
	else
		rnic_resp_rx(wk, qp, m, &pkt);
	RNIC_TRACE(RNIC_TP_HANDLED, pkt.bth.opcode);
}

/* Kicks (rnic_qp_kick): QPs another thread asked the completer about. */
static unsigned int
rx_kicks(struct rnic_worker *wk, struct rnic_dev_stats *st)
{
	uint32_t kicks[32];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst_elem(wk->kick_ring, kicks, sizeof(kicks[0]),
					   RTE_DIM(kicks), NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct rnic_qp *qp = rnic_qp_lookup(wk->dev, kicks[i]);

		if (qp != NULL)
			rnic_comp_kick(wk, qp);
	}
	/* [KICK] kicks that did not fit the ring: look at every QP. A kick
	 * is idempotent, so a spurious one costs nothing but time. */
	if (rnic_dev_rescan(wk, &wk->kick_lost, &wk->rx.kick_lost_seen, rnic_comp_kick)) {
		st->kick_overflows++;
		n++;
	}
	return n;
}

/*
 * [STEER] Whose frame @p m is: this worker's (it processes it), another
 * worker's (handed to its steering ring: the QP's owner by number, frames
 * that are not RoCEv2 to worker 0, which runs ARP), or lost (that ring
 * was full: counted, the caller frees it).
 */
enum steer { STEER_HERE, STEER_AWAY, STEER_DROP };

static enum steer
rx_steer(struct rnic_worker *wk, struct rte_mbuf *m, struct rnic_dev_stats *st)
{
	struct rnic_device *dev = wk->dev;
	uint16_t owner = 0;
	uint32_t dqpn;

	if (rnic_pkt_peek_dqpn(m, &dqpn))
		owner = rnic_qpn_worker(dev, dqpn);
	if (owner == wk->id)
		return STEER_HERE;
	if (rte_ring_mp_enqueue(dev->workers[owner].steer_ring, m) != 0) {
		st->drop_steer++;
		return STEER_DROP;
	}
	st->rx_steered++;
	return STEER_AWAY;
}

/* A burst from the port (@p steer: sort it among the workers first) or
 * from the steering ring; the mbufs it keeps are freed after. */
/* The two lines a RoCEv2 frame's headers span (RETH ends at byte 70). */
static inline void
rx_prefetch_frame(const struct rte_mbuf *m)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_prefetch0(h);
	rte_prefetch0(h + RTE_CACHE_LINE_SIZE);
}

/* The QP a frame names and the lines of it its handler reads: the
 * three control lines (type, the attributes read per packet, the state,
 * the header template an ACK or READ response is built from:
 * rnic_qp_prefetch_ctl), and the two lines of the
 * responder (a request) or of the completer and the requester's
 * MultiQueue (a response); at 16384 QPs each missed (1.05x over the
 * first line, the state and one line of the role, the requester's
 * lines 1.02x more, doc/benchmarks.md). A hint only: it reads a BTH at
 * the untagged IPv4 (or IPv6, by the ethertype's low byte) offset
 * without checking the frame, which parsing does in full later. */
static inline void
rx_prefetch_qp(struct rnic_device *dev, const struct rte_mbuf *m, const struct rnic_qp **prev)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rnic_bth *bth;
	struct rnic_qp *qp;
	uint32_t off = RX_BTH_OFFSET;

	if (rte_pktmbuf_data_len(m) < RNIC_ETH_HLEN)
		return;
	if (h[13] == (RTE_ETHER_TYPE_IPV6 & 0xff))
		off += RNIC_IPV6_HLEN - RNIC_IPV4_HLEN;
	if (rte_pktmbuf_data_len(m) < off + RNIC_BTH_LEN)
		return;
	bth = (const void *)(h + off);
	qp = LOAD_RLX(&dev->qps[__bth_dqpn(bth) & dev->qp_mask]);   /* [QP-TABLE] */
	if (qp == NULL || qp == *prev)   /* a burst of one QP's frames */
		return;
	*prev = qp;
	rnic_qp_prefetch_ctl(qp);   /* the state among them */
	if (bth->opcode >= RNIC_OP_READ_RESP_FIRST && bth->opcode <= RNIC_OP_ATOMIC_ACK) {
		rte_prefetch0(&qp->comp);
		rte_prefetch0((const char *)&qp->comp + RTE_CACHE_LINE_SIZE);
		rte_prefetch0(&qp->req);
		rte_prefetch0((const char *)&qp->req + RTE_CACHE_LINE_SIZE);
	} else {
		rte_prefetch0(&qp->resp);
		rte_prefetch0((const char *)&qp->resp + RTE_CACHE_LINE_SIZE);
		/* a SEND or a WRITE with immediate takes a receive WQE: the
		 * RQ's place, off the three control lines */
		if (rnic_opcode_mask(bth->opcode) & (RNIC_M_SEND | RNIC_M_IMMDT))
			rte_prefetch0(&qp->rq);
	}
}

static void
rx_burst(struct rnic_worker *wk, struct rte_mbuf **pkts, unsigned int n, bool steer,
	 struct rnic_dev_stats *st)
{
	const struct rnic_qp *hinted = NULL;
	unsigned int nfree = 0;
	uint64_t icrc[RNIC_MAX_BURST];

	/* With thousands of QPs busy the frames of a burst are long out of
	 * cache: fetch every mbuf header of the burst at once, then each
	 * frame's headers RX_PREFETCH frames ahead of its use. */
	for (unsigned int i = 0; i < n; i++)
		rte_prefetch0(pkts[i]);
	for (unsigned int i = 0; i < n && i < RX_PREFETCH; i++)
		rx_prefetch_frame(pkts[i]);
	/* The short frames' ICRCs back to back, where their chains overlap
	 * (ring 64 B 1.08x, doc/benchmarks.md); not where most frames may be
	 * steered to another worker, which would compute theirs again. */
	if (!steer) {
		rnic_pkt_icrc_ahead(pkts, n, icrc);
		/* That read every frame's first line, the BTH in it: the QPs
		 * of the whole burst are fetched at once, a turn ahead of the
		 * first frame's (16384 QPs 1.02x over RX_PREFETCH_QP frames
		 * ahead, doc/benchmarks.md). */
		for (unsigned int i = 0; i < n; i++)
			rx_prefetch_qp(wk->dev, pkts[i], &hinted);
	}
	for (unsigned int i = 0; i < n; i++) {
		if (i + RX_PREFETCH < n)
			rx_prefetch_frame(pkts[i + RX_PREFETCH]);
		if (steer && i + RX_PREFETCH_QP < n)
			rx_prefetch_qp(wk->dev, pkts[i + RX_PREFETCH_QP], &hinted);
		if (steer) {
			enum steer to = rx_steer(wk, pkts[i], st);

			if (to == STEER_AWAY)
				continue;
			if (to == STEER_DROP) {
				pkts[nfree++] = pkts[i];
				continue;
			}
		}
		rx_one(wk, pkts[i], steer ? 0 : icrc[i], st);
		pkts[nfree++] = pkts[i];
	}
	/* Freed with the MultiQueue's mbufs (rnic_rx_free_flush): one bulk
	 * free a pass, after the application's turn where it polls. */
	for (unsigned int i = 0; i < nfree; i++) {
		if (wk->rx.n_free == RNIC_RX_FREE_BATCH)
			rnic_rx_free_flush(wk);
		wk->rx.free[wk->rx.n_free++] = pkts[i];
	}
}

unsigned int
rnic_worker_poll_rx(struct rnic_worker *wk)
{
	struct rnic_device *dev = wk->dev;
	struct rnic_dev_rx *rx = &wk->rx;
	struct rnic_dev_stats *st = &rx->st;
	struct rte_mbuf *pkts[RNIC_MAX_BURST];
	uint16_t burst = dev->attr.burst;
	const bool steer = dev->n_workers > 1;
	unsigned int work = 0, n;
	bool keep;

	/* What the last pass owed and kept goes to the port first. */
	if (rx->acks_owed) {
		STORE_RLX(&rx->acks_owed, 0);   /* [ACK-OWED] */
		rnic_resp_flush_acks(wk);
	}
	rnic_txbuf_flush(&rx->txb, st);
	rnic_rx_free_flush(wk);
	if (unlikely(wk->id == 0 && LOAD_RLX(&dev->arp_req_gen) != rx->arp_req_sent))
		rnic_arp_request(wk, st);
	if (unlikely(wk->id == 0 && LOAD_RLX(&dev->nd_req_gen) != rx->nd_req_sent))
		rnic_nd_request(wk, st);
	work += rx_kicks(wk, st);
	work += rnic_resp_pump_reads(wk);
	/* Each request can need one response right away: only take in
	 * what the response buffer can answer. The queues from the last:
	 * on a link that pairs queues (net_memif) a softrnic peer's
	 * responses arrive on the odd one (plan_queues), and a pass that
	 * takes requests last ends on the message an application waits
	 * for, not on the ACK behind it. */
	for (uint16_t i = wk->nb_rxq; i-- > 0; ) {
		if (RNIC_TXBUF_SIZE - rx->txb.n < (uint32_t)burst * 2)
			break;
		n = rte_eth_rx_burst(dev->port_id, (uint16_t)(wk->rxq_first + i), pkts, burst);
		if (n != 0)
			RNIC_TRACE(RNIC_TP_RX_BURST, n);
		rx_burst(wk, pkts, n, steer, st);
		work += n;
	}
	if (steer && RNIC_TXBUF_SIZE - rx->txb.n >= (uint32_t)burst * 2) {
		n = rte_ring_sc_dequeue_burst(wk->steer_ring, (void **)pkts, burst, NULL);
		rx_burst(wk, pkts, n, false, st);
		work += n;
	}
	/* Where the application's thread polls the engine itself (no lcore
	 * does: [POLLED]), a pass that ended a request message or completed
	 * a receive (the responder says so) leaves its ACKs owed, and keeps
	 * the frames it built and the mbufs it is to free, for the start of
	 * the next pass ([ACK-OWED]): the application so sees the message
	 * before the ACK's build and rte_eth_tx_burst, and its reply goes out
	 * before them (write_lat, doc/benchmarks.md). rnic_dev_tx_backlog
	 * counts the ACKs and frames, and a QP reset or destroyed meanwhile
	 * sends what it owes first (rnic_dev_forget_qp).
	 * Any other pass (READ responses, resends), and every pass of an
	 * engine lcore (where the ACK would only wait), sends at once. */
	keep = rx->delivered && !LOAD_RLX(&dev->polled);   /* [POLLED] */
	if (keep)
		rnic_resp_owe_acks(wk);
	else
		rnic_resp_flush_acks(wk);
	/* Such a pass also leaves its resends and timer events, and the
	 * timer role (rnic_worker_poll), to the next pass, unless the last
	 * pass left them already: the application sees its message some
	 * 25 ns sooner (traced, doc/benchmarks.md), and nothing waits more
	 * than a pass. */
	if (keep && !rx->tail_deferred) {
		rx->tail_deferred = 1;
	} else {
		rx->tail_deferred = 0;
		work += rnic_comp_rexmit(wk);
		work += rnic_comp_timer_events(wk);
	}
	rnic_cqe_flush(wk);   /* every completion of the pass */
	if (!keep) {
		rnic_rx_free_flush(wk);
		rnic_txbuf_flush(&rx->txb, st);
	}
	rx->delivered = 0;
	if (work != 0)
		RNIC_TRACE(RNIC_TP_RX_END, work);
	rnic_dev_iter_done(&rx->iter);
	return work;
}
