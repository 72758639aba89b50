/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RNIC_ETH_IMPAIR_H
#define RNIC_ETH_IMPAIR_H

/**
 * @file
 * net_impair: a virtual ethdev that sits on another ethdev port and drops,
 * duplicates, reorders and corrupts the packets crossing it, so the RoCEv2
 * engine's loss recovery can be tested on a perfect software link.
 *
 * Usage, on any DPDK application linked with this driver:
 *
 *     --vdev=net_ring0 --vdev=net_impair0,port=net_ring0,tx_drop=0.01
 *
 * The application opens and polls only the impair port. Its configure,
 * queue setup, start and stop configure and start the underlying port
 * with the same queue counts; tx_burst on queue q impairs and then sends on
 * the underlying port's queue q, rx_burst on queue q reads the underlying
 * queue q and then impairs. Link state and MAC address are the underlying
 * port's. Closing the impair port leaves the underlying port stopped, not
 * closed: whoever created it owns it.
 *
 * Order: vdevs are probed in command-line order, so the underlying vdev
 * must be listed before the impair vdev. The underlying port is looked up
 * by name at probe (for the MAC address) and again at configure; if it is
 * still missing at configure, rte_eth_dev_configure() fails with -ENODEV.
 * A port created at run time (rte_eth_from_rings()) must likewise exist
 * before rte_vdev_init("net_impairN", "port=...").
 *
 * Devargs (unprefixed keys set both directions; tx_ and rx_ keys set one
 * and override the unprefixed value whatever their order):
 *
 *     port=<name>            underlying ethdev name (required)
 *     [tx_|rx_]drop=P        drop with probability P (decimal, 0..1)
 *     [tx_|rx_]dup=P         send a deep copy right after the packet
 *     [tx_|rx_]reorder=P     hold the packet back, see below
 *     [tx_|rx_]reorder_depth=N  a held packet is released after 1..N later
 *                            packets (uniform); 1..RNIC_IMPAIR_MAX_DEPTH,
 *                            default 4
 *     [tx_|rx_]reorder_idle=N   all held packets are released after N
 *                            consecutive polls that brought no packet,
 *                            default 16, so nothing stays stuck when
 *                            traffic stops
 *     [tx_|rx_]corrupt=P     flip one byte, see RNIC_IMPAIR_CORRUPT_TAIL
 *     [tx_|rx_]seed=N        seed of the direction's xorshift64* generator,
 *                            default 1; same seed, same decisions
 *     [tx_|rx_]drop_pkts=A:B:C  drop exactly these 1-based packet numbers
 *
 * Packet numbers count the packets offered to a direction on one queue,
 * from 1, before impairment (duplicates get no number). On a single-queue
 * port, as in tests, that is simply the n-th packet sent or received.
 *
 * Per packet, the hook (if set) runs first; an action other than
 * RNIC_IMPAIR_PASS is applied as the only impairment of that packet.
 * Otherwise a listed drop_pkts number is dropped; otherwise the random
 * impairments are drawn, independently, in the order drop, corrupt, dup,
 * reorder. Every packet consumes the same number of random draws, so the
 * set of packets dropped for a seed does not depend on the other
 * probabilities.
 *
 * TX held packets are also released by rx_burst polls on the same queue id
 * of the impair port and by rte_eth_tx_burst() with zero packets: each
 * counts as an idle poll of the TX direction.
 *
 * Thread safety: each queue is polled by one lcore, as for any ethdev.
 * rnic_impair_set_params() and rnic_impair_set_hook() must be called while
 * the port is idle (stopped, or no lcore in its burst functions) or from
 * the lcore that polls it; a change takes effect at the next burst.
 * rnic_impair_get_counts() may be called from anywhere; it reads counters
 * that the polling lcores keep writing, so a concurrent read is a
 * snapshot, not a consistent cut.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Direction: packets the application sends (tx_burst). */
#define RNIC_IMPAIR_TX 0
/** Direction: packets the application receives (rx_burst). */
#define RNIC_IMPAIR_RX 1

/** Most packets one direction of one queue holds back for reordering. */
#define RNIC_IMPAIR_MAX_DEPTH 64
/** Most entries in a drop_pkts list. */
#define RNIC_IMPAIR_MAX_DROP_PKTS 256

/**
 * Corruption flips (XOR 0xff) the byte at offset pkt_len - 5: the last
 * byte before the 4-byte ICRC trailer of a RoCEv2 packet. For a data
 * packet that is the last payload (or pad) byte; for an ACK it is in the
 * AETH. Ethernet, IP, UDP and BTH headers are untouched, so the packet
 * still parses and fails only its ICRC check. Packets shorter than
 * RNIC_IMPAIR_CORRUPT_MIN_LEN are passed unchanged (and not counted).
 */
#define RNIC_IMPAIR_CORRUPT_TAIL 5
/** Ethernet + IPv4 + UDP: corruption never touches these 42 bytes. */
#define RNIC_IMPAIR_CORRUPT_MIN_OFF 42
/** Shortest packet that is corrupted: 42 header bytes, 1 byte, ICRC. */
#define RNIC_IMPAIR_CORRUPT_MIN_LEN \
	(RNIC_IMPAIR_CORRUPT_MIN_OFF + RNIC_IMPAIR_CORRUPT_TAIL)

/** What a hook asks for one packet. */
enum rnic_impair_action {
	RNIC_IMPAIR_PASS = 0, /**< no forced action: drop_pkts/random apply */
	RNIC_IMPAIR_DROP,     /**< free the packet */
	RNIC_IMPAIR_DUP,      /**< forward it and a deep copy */
	RNIC_IMPAIR_CORRUPT,  /**< flip the byte described above */
	RNIC_IMPAIR_DELAY,    /**< hold it for exactly reorder_depth later
			       *   packets (or until the idle release) */
};

/**
 * Per-packet hook, called on the polling lcore before any other decision.
 *
 * @param m
 *   The packet. The hook may read it; it must not free or modify it.
 * @param pkt_no
 *   Its 1-based number on this direction and queue.
 * @param arg
 *   The argument given to rnic_impair_set_hook().
 * @return
 *   An enum rnic_impair_action value; anything else counts as PASS.
 */
typedef int (*rnic_impair_hook_t)(struct rte_mbuf *m, uint64_t pkt_no,
				  void *arg);

/** One direction's impairment program. */
struct rnic_impair_params {
	double drop;            /**< probability, 0..1 */
	double dup;             /**< probability, 0..1 */
	double reorder;         /**< probability, 0..1 */
	double corrupt;         /**< probability, 0..1 */
	uint16_t reorder_depth; /**< 1..RNIC_IMPAIR_MAX_DEPTH */
	uint32_t reorder_idle;  /**< idle polls before held packets go, >= 1 */
	uint64_t seed;          /**< generator seed */
	/** Packet numbers to drop, any order; NULL when nb_drop_pkts is 0. */
	const uint64_t *drop_pkts;
	uint16_t nb_drop_pkts;  /**< 0..RNIC_IMPAIR_MAX_DROP_PKTS */
};

/** What one direction did, summed over its queues. */
struct rnic_impair_counts {
	uint64_t seen;        /**< packets offered (numbered) */
	uint64_t passed;      /**< packets handed on, copies included */
	uint64_t dropped;     /**< packets freed by drop/drop_pkts/hook */
	uint64_t duplicated;  /**< copies made */
	uint64_t reordered;   /**< packets held back (reorder or DELAY) */
	uint64_t corrupted;   /**< packets with a flipped byte */
	uint64_t copy_failed; /**< dup or copy-before-corrupt found no mbuf */
	uint64_t held;        /**< packets held back right now */
};

/**
 * Install (or, with fn NULL, remove) the per-packet hook of a direction.
 *
 * @param port_id
 *   An impair port.
 * @param dir
 *   RNIC_IMPAIR_TX or RNIC_IMPAIR_RX.
 * @param fn
 *   The hook, or NULL.
 * @param arg
 *   Passed to every call of fn.
 * @return
 *   0, or -ENODEV if port_id is not an impair port, -EINVAL for a bad dir.
 */
int rnic_impair_set_hook(uint16_t port_id, int dir, rnic_impair_hook_t fn,
			 void *arg);

/**
 * Replace a direction's impairment program. The direction's generators
 * restart from p->seed and its packet numbering restarts at 1, so
 * drop_pkts in @p p count from the next packet. Held packets stay held.
 *
 * @return
 *   0, or -ENODEV if port_id is not an impair port, -EINVAL for a bad dir,
 *   a NULL @p p, a probability outside 0..1, a reorder_depth or
 *   reorder_idle out of range, or a drop_pkts entry of 0.
 */
int rnic_impair_set_params(uint16_t port_id, int dir,
			   const struct rnic_impair_params *p);

/**
 * Read a direction's impairment program. p->drop_pkts points into the
 * driver and stays valid until the next rnic_impair_set_params() on that
 * direction or the port's close.
 *
 * @return
 *   0, -ENODEV or -EINVAL as for rnic_impair_set_params().
 */
int rnic_impair_get_params(uint16_t port_id, int dir,
			   struct rnic_impair_params *p);

/**
 * Read what a direction did since probe or the last
 * rte_eth_xstats_reset(). The same values are the port's xstats named
 * "<tx|rx>_impair_<field>", e.g. "tx_impair_dropped".
 *
 * @return
 *   0, -ENODEV or -EINVAL as for rnic_impair_set_params().
 */
int rnic_impair_get_counts(uint16_t port_id, int dir,
			   struct rnic_impair_counts *c);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_ETH_IMPAIR_H */
