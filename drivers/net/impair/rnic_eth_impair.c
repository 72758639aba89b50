/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_impair: a virtual ethdev stacked on another port. Its burst functions
 * pass packets through the impairment engine (impair_engine.c) on the way
 * to or from the underlying port; its control ops configure, start and stop
 * the underlying port. Usage, devargs and threading: rnic_eth_impair.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "impair_sdk.h"
#include "impair_pvt.h"
#include "rnic_eth_impair.h"

RTE_LOG_REGISTER(rnic_impair_logtype, pmd.net.impair, NOTICE);
#define IMPAIR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rnic_impair_logtype, \
		"net_impair: " fmt "\n", ##__VA_ARGS__)

#ifndef RTE_ETH_QUEUE_STATE_STOPPED
#define RTE_ETH_QUEUE_STATE_STOPPED 0
#define RTE_ETH_QUEUE_STATE_STARTED 1
#endif

/* Packets emitted but not yet taken by the application (RX stash) or the
 * underlying port (TX backlog). Refilled only when empty, so one
 * engine call's output always fits. */
#define IMPAIR_RING 128
#define IMPAIR_RING_MASK (IMPAIR_RING - 1)
_Static_assert(IMPAIR_RING >= IMPAIR_OUT_MAX, "fifo holds one engine run");
_Static_assert((IMPAIR_RING & IMPAIR_RING_MASK) == 0, "fifo size power of 2");

struct impair_fifo {
	uint16_t head;
	uint16_t n;
	struct rte_mbuf *m[IMPAIR_RING];
};

struct impair_port;

/*
 * The bottleneck (issue 18): a TX queue's egress limited to rate_mbps,
 * a FIFO of at most queue_pkts packets before it (tail drop), and RED-
 * style ECN marking on entry (as a switch): depth d < ecn_kmin none,
 * ecn_kmin <= d < ecn_kmax with probability ecn_pmax (d - kmin) /
 * (kmax - kmin), d >= ecn_kmax every ECN-capable packet. Port-wide
 * devargs, per TX queue state.
 */
#define IMPAIR_SHAPER_MAX 4096
struct impair_shaper_cfg {
	uint32_t rate_mbps;    /* 0: no bottleneck */
	uint32_t queue_pkts;   /* 1..IMPAIR_SHAPER_MAX */
	uint32_t kmin, kmax;   /* packets */
	uint64_t pmax_thr;     /* ecn_pmax scaled to 2^32 */
	uint64_t tsc_per_kbit; /* TSC cycles to send 1000 bits */
};

struct impair_shaper {
	uint32_t head, n;
	uint64_t next_tsc;     /* when the head may leave */
	uint64_t rng;
	uint64_t marked, dropped, depth_max, depth_samples;
	uint32_t hist[IMPAIR_SHAPER_MAX + 1];   /* depth met by each arrival */
	struct rte_mbuf *m[IMPAIR_SHAPER_MAX];
};

/* Written by the lcore polling rx queue qid; stats also read by control. */
struct impair_rxq {
	struct impair_port *port;
	uint16_t qid;
	struct impair_engine eng;
	struct impair_fifo stash;
	uint64_t pkts;
	uint64_t bytes;
	uint64_t discarded;    /* held or stashed packets freed at stop */
} __rte_cache_aligned;

/*
 * Written by the lcore sending on tx queue qid and, for idle releases, by
 * the lcore polling rx queue qid; lock serialises the two (uncontended
 * when, as usual, one lcore polls both).
 */
struct impair_txq {
	struct impair_port *port;
	uint16_t qid;
	rte_spinlock_t lock;
	struct impair_engine eng;
	struct impair_fifo backlog;
	uint64_t pkts;
	uint64_t bytes;
	uint64_t discarded;    /* backlog the underlying port refused at stop */
} __rte_cache_aligned;

/* dev_private. */
struct impair_port {
	struct rte_eth_dev *dev;
	uint16_t port_id;
	char lower_name[RTE_ETH_NAME_MAX_LEN];
	uint16_t lower;        /* valid when lower_ok */
	bool lower_ok;
	bool started;
	struct impair_cfg cfg[2]; /* [RNIC_IMPAIR_TX], [RNIC_IMPAIR_RX] */
	struct impair_shaper_cfg shc;
	/* The bottleneck is the port's, one queue for every TX queue (a
	 * switch port: softrnic's RX role sends its ACKs and resends on a TX
	 * queue of its own, and they share the link with the data); shlock
	 * is taken inside a TX queue's lock. */
	rte_spinlock_t shlock;
	struct impair_shaper sh;
};

/* Impair ports by port id, for the rnic_impair_* calls (control path). */
static struct impair_port *impair_ports[RTE_MAX_ETHPORTS];

static const char *const impair_dir_name[2] = { "tx", "rx" };

/* The xstats of one direction, in rnic_impair_counts order. */
#define IMPAIR_XSTATS(X) \
	X(seen) X(passed) X(dropped) X(duplicated) X(reordered) \
	X(corrupted) X(copy_failed) X(held)

static const struct {
	const char *name;
	size_t off;
} impair_xstats[] = {
#define IMPAIR_XSTAT_ENTRY(f) { #f, offsetof(struct rnic_impair_counts, f) },
	IMPAIR_XSTATS(IMPAIR_XSTAT_ENTRY)
#undef IMPAIR_XSTAT_ENTRY
};
/* The bottleneck's (the port's one queue), after them. Reading the depths
 * unlocked is a snapshot. */
static const char *const impair_sh_xstats[] = {
	"tx_bottleneck_marked", "tx_bottleneck_dropped", "tx_bottleneck_depth",
	"tx_bottleneck_depth_max", "tx_bottleneck_depth_p99",
};
#define IMPAIR_NB_XSTATS (2 * RTE_DIM(impair_xstats) + RTE_DIM(impair_sh_xstats))

/* ---- fifo ------------------------------------------------------------ */

static uint16_t
impair_fifo_pop(struct impair_fifo *f, struct rte_mbuf **out, uint16_t max)
{
	uint16_t i, k = RTE_MIN(f->n, max);

	for (i = 0; i < k; i++)
		out[i] = f->m[(f->head + i) & IMPAIR_RING_MASK];
	f->head = (f->head + k) & IMPAIR_RING_MASK;
	f->n -= k;
	return k;
}

/* Caller guarantees room (see IMPAIR_RING). */
static void
impair_fifo_push(struct impair_fifo *f, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		f->m[(f->head + f->n + i) & IMPAIR_RING_MASK] = m[i];
	f->n += n;
}

static uint16_t
impair_fifo_free(struct impair_fifo *f)
{
	uint16_t k = f->n;

	while (f->n > 0) {
		rte_pktmbuf_free(f->m[f->head]);
		f->head = (f->head + 1) & IMPAIR_RING_MASK;
		f->n--;
	}
	return k;
}

/* ---- data path ------------------------------------------------------- */

/* Send on the underlying port; returns how many it took. */
static uint16_t
impair_tx_send(struct impair_txq *q, struct rte_mbuf **m, uint16_t n)
{
	uint32_t len[IMPAIR_RING];
	uint16_t i, sent;

	for (i = 0; i < n; i++)
		len[i] = m[i]->pkt_len;
	sent = rte_eth_tx_burst(q->port->lower, q->qid, m, n);
	for (i = 0; i < sent; i++)
		q->bytes += len[i];
	q->pkts += sent;
	return sent;
}

/* Push the backlog out; true when it is empty. Lock held. */
static bool
impair_tx_flush(struct impair_txq *q)
{
	struct impair_fifo *f = &q->backlog;

	while (f->n > 0) {
		uint16_t c = RTE_MIN(f->n, IMPAIR_RING - f->head);
		uint16_t sent = impair_tx_send(q, &f->m[f->head], c);

		f->head = (f->head + sent) & IMPAIR_RING_MASK;
		f->n -= sent;
		if (sent < c)
			return false;
	}
	return true;
}

/* Send engine output, keeping what the port refuses; true if all went.
 * Lock held, backlog empty. */
static bool
impair_tx_emit(struct impair_txq *q, struct rte_mbuf **out, uint16_t k)
{
	uint16_t sent = impair_tx_send(q, out, k);

	if (sent == k)
		return true;
	impair_fifo_push(&q->backlog, out + sent, k - sent);
	return false;
}

/* The IPv4 header of @p m, or NULL (not IPv4, not contiguous). */
static struct rte_ipv4_hdr *
impair_ipv4(struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t type;

	if (m->data_len < off + sizeof(struct rte_ipv4_hdr))
		return NULL;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == RTE_ETHER_TYPE_VLAN) {
		off += 4;
		type = (uint16_t)(p[16] << 8 | p[17]);
	}
	if (type != RTE_ETHER_TYPE_IPV4 || m->data_len < off + sizeof(struct rte_ipv4_hdr))
		return NULL;
	return (struct rte_ipv4_hdr *)(p + off);
}

/* Into the bottleneck's queue: tail drop, RED marking. q's lock held. */
static void
impair_shaper_put(struct impair_txq *q, struct rte_mbuf **m, uint16_t k)
{
	const struct impair_shaper_cfg *c = &q->port->shc;
	struct impair_shaper *sh = &q->port->sh;

	if (k == 0)
		return;
	rte_spinlock_lock(&q->port->shlock);
	for (uint16_t i = 0; i < k; i++) {
		uint32_t d = sh->n;
		struct rte_ipv4_hdr *ip;
		bool mark;

		sh->depth_samples++;
		sh->hist[RTE_MIN(d, (uint32_t)IMPAIR_SHAPER_MAX)]++;
		if (d >= c->queue_pkts) {
			rte_pktmbuf_free(m[i]);
			sh->dropped++;
			continue;
		}
		/* marking is on when ecn_kmax is set */
		mark = c->kmax > 0 &&
		       (d >= c->kmax ||
			(d >= c->kmin &&
			 rnic_impair_xorshift(&sh->rng) < c->pmax_thr * (d - c->kmin) / (c->kmax - c->kmin)));
		ip = mark ? impair_ipv4(m[i]) : NULL;
		if (ip != NULL && (ip->type_of_service & 3) != 0 &&
		    (ip->type_of_service & 3) != 3) {
			ip->type_of_service |= 3;   /* CE: the ICRC masks it */
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
			sh->marked++;
		}
		sh->m[(sh->head + sh->n) % IMPAIR_SHAPER_MAX] = m[i];
		sh->n++;
		if (sh->n > sh->depth_max)
			sh->depth_max = sh->n;
	}
	rte_spinlock_unlock(&q->port->shlock);
}

/* Out of the bottleneck's queue, at its rate, through @p q's underlying
 * queue (whichever TX queue put a packet in). q's lock held, its backlog
 * empty. */
static void
impair_shaper_release(struct impair_txq *q)
{
	const struct impair_shaper_cfg *c = &q->port->shc;
	struct impair_shaper *sh = &q->port->sh;
	uint64_t now = rte_rdtsc();

	if (__atomic_load_n(&sh->n, __ATOMIC_RELAXED) == 0 ||
	    !rte_spinlock_trylock(&q->port->shlock))
		return;   /* another queue is releasing: it sends for all */
	while (sh->n > 0 && (int64_t)(now - sh->next_tsc) >= 0) {
		struct rte_mbuf *m = sh->m[sh->head];
		uint64_t t = (uint64_t)m->pkt_len * 8 * c->tsc_per_kbit / 1000;

		if (impair_tx_send(q, &m, 1) == 0)
			break;   /* the port is full: the head waits */
		sh->head = (sh->head + 1) % IMPAIR_SHAPER_MAX;
		sh->n--;
		/* A link that was idle gives no credit for the idle time. */
		sh->next_tsc = (sh->next_tsc + t > now ? sh->next_tsc : now) + t;
	}
	rte_spinlock_unlock(&q->port->shlock);
}

/* The bottleneck's queue emptied (stop, release): counted as @p q's. */
static void
impair_shaper_free(struct impair_txq *q)
{
	struct impair_shaper *sh = &q->port->sh;

	rte_spinlock_lock(&q->port->shlock);
	while (sh->n > 0) {
		rte_pktmbuf_free(sh->m[sh->head]);
		sh->head = (sh->head + 1) % IMPAIR_SHAPER_MAX;
		sh->n--;
		q->discarded++;
	}
	rte_spinlock_unlock(&q->port->shlock);
}

/*
 * The return value counts the application's packets taken: dropped ones
 * included, so the caller never resends them. When the underlying port is
 * full the surplus waits in the backlog and later calls return 0 until it
 * drains, which keeps the port's back-pressure visible.
 */
static uint16_t
impair_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct impair_txq *q = queue;
	const struct impair_cfg *c = &q->port->cfg[RNIC_IMPAIR_TX];
	struct rte_mbuf *out[IMPAIR_OUT_MAX];
	uint16_t done = 0, k;

	rte_spinlock_lock(&q->lock);
	if (!impair_tx_flush(q))
		goto unlock;
	if (q->port->shc.rate_mbps) {
		/* Behind a bottleneck: everything taken goes into its queue
		 * (or is dropped at its tail); it leaves at the rate. */
		impair_shaper_release(q);
		k = n == 0 ? rnic_impair_engine_idle(&q->eng, c, out) : 0;
		impair_shaper_put(q, out, k);
		while (done < n) {
			uint16_t chunk = RTE_MIN(n - done, IMPAIR_BURST);

			k = rnic_impair_engine_run(&q->eng, c, pkts + done, chunk, out);
			done += chunk;
			impair_shaper_put(q, out, k);
		}
		impair_shaper_release(q);
		goto unlock;
	}
	if (n == 0) {
		k = rnic_impair_engine_idle(&q->eng, c, out);
		if (k > 0)
			impair_tx_emit(q, out, k);
		goto unlock;
	}
	while (done < n) {
		uint16_t chunk = RTE_MIN(n - done, IMPAIR_BURST);

		k = rnic_impair_engine_run(&q->eng, c, pkts + done, chunk, out);
		done += chunk;
		if (k > 0 && !impair_tx_emit(q, out, k))
			break;
	}
unlock:
	rte_spinlock_unlock(&q->lock);
	return done;
}

/*
 * An rx poll counts as an idle poll of the tx queues that go with it, so
 * TX packets held for reordering leave even when the application has
 * stopped sending. With r = tx queues / rx queues (softrnic: two TX
 * queues per worker, one RX queue), rx queue k goes with tx queues
 * k*r .. k*r + r - 1. The unlocked reads are only a hint to skip the lock.
 */
static void
impair_tx_poke_one(struct impair_port *p, uint16_t qid)
{
	struct rte_eth_dev_data *d = p->dev->data;
	struct rte_mbuf *out[RNIC_IMPAIR_MAX_DEPTH];
	struct impair_txq *q;
	uint16_t k;

	if (qid >= d->nb_tx_queues)
		return;
	q = d->tx_queues[qid];
	if (q == NULL ||
	    (__atomic_load_n(&q->eng.nb_held, __ATOMIC_RELAXED) == 0 &&
	     __atomic_load_n(&q->backlog.n, __ATOMIC_RELAXED) == 0 &&
	     __atomic_load_n(&p->sh.n, __ATOMIC_RELAXED) == 0))
		return;
	if (!rte_spinlock_trylock(&q->lock))
		return;
	if (impair_tx_flush(q)) {
		k = rnic_impair_engine_idle(&q->eng, &p->cfg[RNIC_IMPAIR_TX],
					    out);
		if (p->shc.rate_mbps) {
			impair_shaper_put(q, out, k);
			impair_shaper_release(q);
		} else if (k > 0) {
			impair_tx_emit(q, out, k);
		}
	}
	rte_spinlock_unlock(&q->lock);
}

static void
impair_tx_poke(struct impair_port *p, uint16_t rxq)
{
	const struct rte_eth_dev_data *d = p->dev->data;
	uint16_t r = d->nb_rx_queues > 0 && d->nb_tx_queues > d->nb_rx_queues ?
		     d->nb_tx_queues / d->nb_rx_queues : 1;

	for (uint16_t j = 0; j < r; j++)
		impair_tx_poke_one(p, (uint16_t)(rxq * r + j));
}

static uint16_t
impair_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct impair_rxq *q = queue;
	struct impair_port *p = q->port;
	const struct impair_cfg *c = &p->cfg[RNIC_IMPAIR_RX];
	struct rte_mbuf *in[IMPAIR_BURST], *out[IMPAIR_OUT_MAX];
	uint16_t got, nb, k, take, i;

	impair_tx_poke(p, q->qid);
	got = impair_fifo_pop(&q->stash, pkts, n);
	if (got < n && q->stash.n == 0) {
		nb = rte_eth_rx_burst(p->lower, q->qid, in,
				      RTE_MIN(n - got, IMPAIR_BURST));
		if (nb > 0)
			k = rnic_impair_engine_run(&q->eng, c, in, nb, out);
		else
			k = rnic_impair_engine_idle(&q->eng, c, out);
		take = RTE_MIN(k, n - got);
		memcpy(pkts + got, out, take * sizeof(out[0]));
		got += take;
		impair_fifo_push(&q->stash, out + take, k - take);
	}
	for (i = 0; i < got; i++)
		q->bytes += pkts[i]->pkt_len;
	q->pkts += got;
	return got;
}

/* ---- control path ---------------------------------------------------- */

/* Find the underlying port by name; copy its MAC address. */
static int
impair_lower_resolve(struct impair_port *p, bool quiet)
{
	struct rte_eth_dev_data *d = p->dev->data;
	uint16_t pid;

	if (rte_eth_dev_get_port_by_name(p->lower_name, &pid) != 0) {
		p->lower_ok = false;
		if (!quiet)
			IMPAIR_LOG(ERR, "%s: underlying port %s not found; "
				   "its vdev must be listed (or created) "
				   "before this one", d->name, p->lower_name);
		return -ENODEV;
	}
	if (pid == p->port_id) {
		if (!quiet)
			IMPAIR_LOG(ERR, "%s: cannot sit on itself", d->name);
		return -EINVAL;
	}
	p->lower = pid;
	p->lower_ok = true;
	if (rte_eth_macaddr_get(pid, &d->mac_addrs[0]) != 0)
		memset(&d->mac_addrs[0], 0, sizeof(d->mac_addrs[0]));
	return 0;
}

static int
impair_link_set(struct rte_eth_dev *dev, const struct rte_eth_link *link)
{
	uint64_t nv, old;

	RTE_BUILD_BUG_ON(sizeof(*link) != sizeof(nv));
	memcpy(&nv, link, sizeof(nv));
	old = __atomic_exchange_n((uint64_t *)&dev->data->dev_link, nv,
				  __ATOMIC_SEQ_CST);
	return old == nv ? -1 : 0;
}

/* The underlying port's link while started, down otherwise. */
static int
impair_link_update(struct rte_eth_dev *dev, int wait)
{
	struct impair_port *p = dev->data->dev_private;
	struct rte_eth_link link;
	int ret = -1;

	memset(&link, 0, sizeof(link));
	if (p->started && p->lower_ok)
		ret = wait ? rte_eth_link_get(p->lower, &link) :
			     rte_eth_link_get_nowait(p->lower, &link);
	if (ret != 0) {
		memset(&link, 0, sizeof(link));
		link.link_status = RTE_ETH_LINK_DOWN;
		link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	}
	return impair_link_set(dev, &link);
}

static int
impair_dev_configure(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;
	struct rte_eth_dev_data *d = dev->data;
	int ret;

	ret = impair_lower_resolve(p, false);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_configure(p->lower, d->nb_rx_queues,
				    d->nb_tx_queues, &d->dev_conf);
	if (ret != 0)
		IMPAIR_LOG(ERR, "%s: configuring %s: %s", d->name,
			   p->lower_name, rte_strerror(-ret));
	return ret;
}

static int
impair_dev_start(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;
	struct rte_eth_dev_data *d = dev->data;
	uint16_t i;
	int ret;

	ret = rte_eth_dev_start(p->lower);
	if (ret != 0) {
		IMPAIR_LOG(ERR, "%s: starting %s: %s", d->name,
			   p->lower_name, rte_strerror(-ret));
		return ret;
	}
	for (i = 0; i < d->nb_rx_queues; i++)
		d->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < d->nb_tx_queues; i++)
		d->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	p->started = true;
	impair_link_update(dev, 0);
	return 0;
}

/* Held TX packets still go out (the underlying port is up until the end of
 * this call); held or stashed RX packets are freed and counted as
 * imissed. */
static int
impair_dev_stop(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;
	struct rte_eth_dev_data *d = dev->data;
	struct rte_mbuf *out[RNIC_IMPAIR_MAX_DEPTH];
	uint16_t i, k, sent;
	int ret;

	for (i = 0; i < d->nb_tx_queues; i++) {
		struct impair_txq *q = d->tx_queues[i];

		if (q == NULL)
			continue;
		rte_spinlock_lock(&q->lock);
		impair_tx_flush(q);
		k = rnic_impair_engine_release(&q->eng, out);
		sent = k > 0 ? impair_tx_send(q, out, k) : 0;
		rte_pktmbuf_free_bulk(out + sent, k - sent);
		q->discarded += k - sent;
		q->discarded += impair_fifo_free(&q->backlog);
		impair_shaper_free(q);
		rte_spinlock_unlock(&q->lock);
		d->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (i = 0; i < d->nb_rx_queues; i++) {
		struct impair_rxq *q = d->rx_queues[i];

		if (q == NULL)
			continue;
		q->discarded += rnic_impair_engine_discard(&q->eng);
		q->discarded += impair_fifo_free(&q->stash);
		d->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	p->started = false;
	ret = rte_eth_dev_stop(p->lower);
	impair_link_update(dev, 0);
	return ret;
}

static void
impair_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct impair_rxq *q = dev->data->rx_queues[qid];

	if (q == NULL)
		return;
	rnic_impair_engine_discard(&q->eng);
	impair_fifo_free(&q->stash);
	rte_free(q);
}

static void
impair_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct impair_txq *q = dev->data->tx_queues[qid];

	if (q == NULL)
		return;
	rnic_impair_engine_discard(&q->eng);
	impair_fifo_free(&q->backlog);
	impair_shaper_free(q);
	rte_free(q);
}

/* The underlying port stays (stopped, configured): its creator owns it. */
static int
impair_dev_close(struct rte_eth_dev *dev)
{
	struct rte_eth_dev_data *d = dev->data;
	uint16_t i;

	for (i = 0; i < d->nb_rx_queues; i++) {
		impair_rx_queue_release(dev, i);
		d->rx_queues[i] = NULL;
	}
	for (i = 0; i < d->nb_tx_queues; i++) {
		impair_tx_queue_release(dev, i);
		d->tx_queues[i] = NULL;
	}
	impair_ports[d->port_id] = NULL;
	return 0;
}

static int
impair_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp)
{
	struct impair_port *p = dev->data->dev_private;
	struct impair_rxq *q;
	int ret;

	if (!p->lower_ok)
		return -ENODEV;
	ret = rte_eth_rx_queue_setup(p->lower, qid, nb_desc, socket_id, conf,
				     mp);
	if (ret != 0)
		return ret;
	q = rte_zmalloc_socket("impair_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			       (int)socket_id);
	if (q == NULL)
		return -ENOMEM;
	q->port = p;
	q->qid = qid;
	rnic_impair_engine_init(&q->eng, &p->cfg[RNIC_IMPAIR_RX],
				RNIC_IMPAIR_RX, qid);
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
impair_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	struct impair_port *p = dev->data->dev_private;
	struct impair_txq *q;
	int ret;

	if (!p->lower_ok)
		return -ENODEV;
	ret = rte_eth_tx_queue_setup(p->lower, qid, nb_desc, socket_id, conf);
	if (ret != 0)
		return ret;
	q = rte_zmalloc_socket("impair_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			       (int)socket_id);
	if (q == NULL)
		return -ENOMEM;
	q->port = p;
	q->qid = qid;
	rte_spinlock_init(&q->lock);
	rnic_impair_engine_init(&q->eng, &p->cfg[RNIC_IMPAIR_TX],
				RNIC_IMPAIR_TX, qid);
	if (qid == 0) {
		rte_spinlock_init(&p->shlock);
		p->sh.rng = 0x9e3779b97f4a7c15ULL ^ p->cfg[RNIC_IMPAIR_TX].p.seed;
		if (p->sh.rng == 0)
			p->sh.rng = 1;
	}
	dev->data->tx_queues[qid] = q;
	return 0;
}

/* The underlying port's limits and capabilities, one MAC address. */
static int
impair_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct impair_port *p = dev->data->dev_private;
	struct rte_eth_dev_info li;

	info->max_mac_addrs = 1;
	info->max_rx_queues = 1;
	info->max_tx_queues = 1;
	info->max_rx_pktlen = RTE_ETHER_MAX_LEN;
	if (impair_lower_resolve(p, true) != 0 ||
	    rte_eth_dev_info_get(p->lower, &li) != 0)
		return 0;
	info->max_rx_queues = li.max_rx_queues;
	info->max_tx_queues = li.max_tx_queues;
	info->max_rx_pktlen = li.max_rx_pktlen;
	info->min_rx_bufsize = li.min_rx_bufsize;
	info->min_mtu = li.min_mtu;
	info->max_mtu = li.max_mtu;
	info->rx_desc_lim = li.rx_desc_lim;
	info->tx_desc_lim = li.tx_desc_lim;
	info->rx_offload_capa = li.rx_offload_capa;
	info->tx_offload_capa = li.tx_offload_capa;
	info->rx_queue_offload_capa = li.rx_queue_offload_capa;
	info->tx_queue_offload_capa = li.tx_queue_offload_capa;
	info->flow_type_rss_offloads = li.flow_type_rss_offloads;
	info->speed_capa = li.speed_capa;
	info->default_rxportconf = li.default_rxportconf;
	info->default_txportconf = li.default_txportconf;
	return 0;
}

static int
impair_promiscuous_enable(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;

	return p->lower_ok ? rte_eth_promiscuous_enable(p->lower) : -ENODEV;
}

static int
impair_promiscuous_disable(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;

	return p->lower_ok ? rte_eth_promiscuous_disable(p->lower) : -ENODEV;
}

static int
impair_allmulticast_enable(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;

	return p->lower_ok ? rte_eth_allmulticast_enable(p->lower) : -ENODEV;
}

static int
impair_allmulticast_disable(struct rte_eth_dev *dev)
{
	struct impair_port *p = dev->data->dev_private;

	return p->lower_ok ? rte_eth_allmulticast_disable(p->lower) : -ENODEV;
}

static int
impair_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct impair_port *p = dev->data->dev_private;

	return p->lower_ok ? rte_eth_dev_set_mtu(p->lower, mtu) : -ENODEV;
}

/* What crossed this port: delivered to the application (rx), accepted by
 * the underlying port (tx); packets freed at stop as imissed / oerrors. */
static int
impair_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct rte_eth_dev_data *d = dev->data;
	uint16_t i;

	for (i = 0; i < d->nb_rx_queues; i++) {
		const struct impair_rxq *q = d->rx_queues[i];

		if (q == NULL)
			continue;
		st->ipackets += q->pkts;
		st->ibytes += q->bytes;
		st->imissed += q->discarded;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[i] = q->pkts;
			st->q_ibytes[i] = q->bytes;
		}
	}
	for (i = 0; i < d->nb_tx_queues; i++) {
		const struct impair_txq *q = d->tx_queues[i];

		if (q == NULL)
			continue;
		st->opackets += q->pkts;
		st->obytes += q->bytes;
		st->oerrors += q->discarded;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_opackets[i] = q->pkts;
			st->q_obytes[i] = q->bytes;
		}
	}
	return 0;
}

static int
impair_stats_reset(struct rte_eth_dev *dev)
{
	struct rte_eth_dev_data *d = dev->data;
	uint16_t i;

	for (i = 0; i < d->nb_rx_queues; i++) {
		struct impair_rxq *q = d->rx_queues[i];

		if (q != NULL)
			q->pkts = q->bytes = q->discarded = 0;
	}
	for (i = 0; i < d->nb_tx_queues; i++) {
		struct impair_txq *q = d->tx_queues[i];

		if (q != NULL)
			q->pkts = q->bytes = q->discarded = 0;
	}
	return 0;
}

static struct impair_engine *
impair_queue_engine(struct rte_eth_dev_data *d, int dir, uint16_t i)
{
	if (dir == RNIC_IMPAIR_TX) {
		struct impair_txq *q = i < d->nb_tx_queues ?
				       d->tx_queues[i] : NULL;

		return q != NULL ? &q->eng : NULL;
	} else {
		struct impair_rxq *q = i < d->nb_rx_queues ?
				       d->rx_queues[i] : NULL;

		return q != NULL ? &q->eng : NULL;
	}
}

static void
impair_counts_sum(struct impair_port *p, int dir, struct rnic_impair_counts *s)
{
	struct rte_eth_dev_data *d = p->dev->data;
	uint16_t i, n = RTE_MAX(d->nb_rx_queues, d->nb_tx_queues);

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		const struct impair_engine *e = impair_queue_engine(d, dir, i);

		if (e == NULL)
			continue;
		s->seen += e->cnt.seen;
		s->passed += e->cnt.passed;
		s->dropped += e->cnt.dropped;
		s->duplicated += e->cnt.duplicated;
		s->reordered += e->cnt.reordered;
		s->corrupted += e->cnt.corrupted;
		s->copy_failed += e->cnt.copy_failed;
		s->held += e->nb_held;
	}
}

static int
impair_xstats_get_names(struct rte_eth_dev *dev,
			struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int dir, i, k = 0;

	RTE_SET_USED(dev);
	if (names == NULL || size < IMPAIR_NB_XSTATS)
		return IMPAIR_NB_XSTATS;
	for (dir = 0; dir < 2; dir++)
		for (i = 0; i < RTE_DIM(impair_xstats); i++, k++)
			snprintf(names[k].name, sizeof(names[k].name),
				 "%s_impair_%s", impair_dir_name[dir],
				 impair_xstats[i].name);
	for (i = 0; i < RTE_DIM(impair_sh_xstats); i++, k++)
		snprintf(names[k].name, sizeof(names[k].name), "%s", impair_sh_xstats[i]);
	return IMPAIR_NB_XSTATS;
}

/* The depth 99% of arrivals met or found below it. */
static uint64_t
impair_depth_p99(const struct impair_port *p)
{
	uint64_t total = p->sh.depth_samples, acc = 0;
	uint32_t depth;

	if (total == 0)
		return 0;
	for (depth = 0; depth <= IMPAIR_SHAPER_MAX; depth++) {
		acc += p->sh.hist[depth];
		if (acc * 100 >= total * 99)
			break;
	}
	return depth;
}

static int
impair_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		  unsigned int n)
{
	struct impair_port *p = dev->data->dev_private;
	struct rnic_impair_counts s;
	unsigned int dir, i, k = 0;

	if (xs == NULL || n < IMPAIR_NB_XSTATS)
		return IMPAIR_NB_XSTATS;
	for (dir = 0; dir < 2; dir++) {
		impair_counts_sum(p, dir, &s);
		for (i = 0; i < RTE_DIM(impair_xstats); i++, k++) {
			xs[k].id = k;
			memcpy(&xs[k].value,
			       (const char *)&s + impair_xstats[i].off,
			       sizeof(xs[k].value));
		}
	}
	{
		uint64_t v[RTE_DIM(impair_sh_xstats)] = {
			p->sh.marked, p->sh.dropped, __atomic_load_n(&p->sh.n, __ATOMIC_RELAXED),
			p->sh.depth_max, impair_depth_p99(p),
		};

		for (i = 0; i < RTE_DIM(v); i++, k++) {
			xs[k].id = k;
			xs[k].value = v[i];
		}
	}
	return IMPAIR_NB_XSTATS;
}

/* rte_eth_xstats_reset() calls only this: reset the basic stats too. */
static int
impair_xstats_reset(struct rte_eth_dev *dev)
{
	struct rte_eth_dev_data *d = dev->data;
	uint16_t i, n = RTE_MAX(d->nb_rx_queues, d->nb_tx_queues);
	int dir;

	for (dir = 0; dir < 2; dir++)
		for (i = 0; i < n; i++) {
			struct impair_engine *e =
				impair_queue_engine(d, dir, i);

			if (e != NULL)
				memset(&e->cnt, 0, sizeof(e->cnt));
		}
	{
		struct impair_port *p = d->dev_private;

		rte_spinlock_lock(&p->shlock);
		p->sh.marked = p->sh.dropped = p->sh.depth_max = 0;
		p->sh.depth_samples = 0;
		memset(p->sh.hist, 0, sizeof(p->sh.hist));
		rte_spinlock_unlock(&p->shlock);
	}
	return impair_stats_reset(dev);
}

static const struct eth_dev_ops impair_ops = {
	.dev_configure = impair_dev_configure,
	.dev_start = impair_dev_start,
	.dev_stop = impair_dev_stop,
	.dev_close = impair_dev_close,
	.link_update = impair_link_update,
	.promiscuous_enable = impair_promiscuous_enable,
	.promiscuous_disable = impair_promiscuous_disable,
	.allmulticast_enable = impair_allmulticast_enable,
	.allmulticast_disable = impair_allmulticast_disable,
	.mtu_set = impair_mtu_set,
	.stats_get = impair_stats_get,
	.stats_reset = impair_stats_reset,
	.xstats_get = impair_xstats_get,
	.xstats_reset = impair_xstats_reset,
	.xstats_get_names = impair_xstats_get_names,
	.dev_infos_get = impair_dev_infos_get,
	.rx_queue_setup = impair_rx_queue_setup,
	.rx_queue_release = impair_rx_queue_release,
	.tx_queue_setup = impair_tx_queue_setup,
	.tx_queue_release = impair_tx_queue_release,
};

/* ---- devargs --------------------------------------------------------- */

#define IMPAIR_KEYS_HELP \
	"port, [tx_|rx_]{drop,dup,reorder,reorder_depth,reorder_idle," \
	"corrupt,seed,drop_pkts}, rate_mbps, queue_pkts, ecn_kmin, ecn_kmax, ecn_pmax"

enum impair_key {
	IMPAIR_KEY_DROP,
	IMPAIR_KEY_DUP,
	IMPAIR_KEY_REORDER,
	IMPAIR_KEY_REORDER_DEPTH,
	IMPAIR_KEY_REORDER_IDLE,
	IMPAIR_KEY_CORRUPT,
	IMPAIR_KEY_SEED,
	IMPAIR_KEY_DROP_PKTS,
	IMPAIR_KEY_COUNT,
};

static const char *const impair_key_name[IMPAIR_KEY_COUNT] = {
	[IMPAIR_KEY_DROP] = "drop",
	[IMPAIR_KEY_DUP] = "dup",
	[IMPAIR_KEY_REORDER] = "reorder",
	[IMPAIR_KEY_REORDER_DEPTH] = "reorder_depth",
	[IMPAIR_KEY_REORDER_IDLE] = "reorder_idle",
	[IMPAIR_KEY_CORRUPT] = "corrupt",
	[IMPAIR_KEY_SEED] = "seed",
	[IMPAIR_KEY_DROP_PKTS] = "drop_pkts",
};

/* Devargs of one direction, before validation by rnic_impair_cfg_load(). */
struct impair_dir_args {
	struct rnic_impair_params p;
	uint64_t list[RNIC_IMPAIR_MAX_DROP_PKTS];
};

static int
impair_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno != 0 || *end != '\0' ? -EINVAL : 0;
}

static int
impair_parse_prob(const char *s, double *v)
{
	char *end;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !(*v >= 0.0 && *v <= 1.0))
		return -EINVAL;
	return 0;
}

/* "3:7:12" -> list; entries >= 1. */
static int
impair_parse_list(const char *s, struct impair_dir_args *a)
{
	char buf[RNIC_IMPAIR_MAX_DROP_PKTS * 21];
	char *tok, *save = NULL;
	uint16_t n = 0;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		uint64_t v;

		if (n == RNIC_IMPAIR_MAX_DROP_PKTS ||
		    impair_parse_u64(tok, &v) != 0 || v == 0)
			return -EINVAL;
		a->list[n++] = v;
	}
	if (n == 0)
		return -EINVAL;
	a->p.drop_pkts = a->list;
	a->p.nb_drop_pkts = n;
	return 0;
}

static int
impair_parse_one(const char *dev, const char *key, enum impair_key k,
		 const char *val, struct impair_dir_args *a)
{
	uint64_t v = 0;
	int ret = 0;

	switch (k) {
	case IMPAIR_KEY_DROP:
		ret = impair_parse_prob(val, &a->p.drop);
		break;
	case IMPAIR_KEY_DUP:
		ret = impair_parse_prob(val, &a->p.dup);
		break;
	case IMPAIR_KEY_REORDER:
		ret = impair_parse_prob(val, &a->p.reorder);
		break;
	case IMPAIR_KEY_CORRUPT:
		ret = impair_parse_prob(val, &a->p.corrupt);
		break;
	case IMPAIR_KEY_REORDER_DEPTH:
		ret = impair_parse_u64(val, &v);
		if (ret == 0 && (v < 1 || v > RNIC_IMPAIR_MAX_DEPTH)) {
			IMPAIR_LOG(ERR, "%s: %s=%s: must be 1..%d", dev, key,
				   val, RNIC_IMPAIR_MAX_DEPTH);
			return -EINVAL;
		}
		a->p.reorder_depth = (uint16_t)v;
		break;
	case IMPAIR_KEY_REORDER_IDLE:
		ret = impair_parse_u64(val, &v);
		if (ret == 0 && (v < 1 || v > UINT32_MAX)) {
			IMPAIR_LOG(ERR, "%s: %s=%s: must be 1..%" PRIu32, dev,
				   key, val, UINT32_MAX);
			return -EINVAL;
		}
		a->p.reorder_idle = (uint32_t)v;
		break;
	case IMPAIR_KEY_SEED:
		ret = impair_parse_u64(val, &a->p.seed);
		break;
	case IMPAIR_KEY_DROP_PKTS:
		ret = impair_parse_list(val, a);
		if (ret != 0) {
			IMPAIR_LOG(ERR, "%s: %s=%s: want up to %d packet "
				   "numbers >= 1 separated by ':'", dev, key,
				   val == NULL ? "" : val,
				   RNIC_IMPAIR_MAX_DROP_PKTS);
			return ret;
		}
		break;
	case IMPAIR_KEY_COUNT:
		return -EINVAL;
	}
	if (ret != 0)
		IMPAIR_LOG(ERR, "%s: %s=%s: %s", dev, key,
			   val == NULL ? "" : val,
			   k == IMPAIR_KEY_DROP || k == IMPAIR_KEY_DUP ||
			   k == IMPAIR_KEY_REORDER || k == IMPAIR_KEY_CORRUPT ?
			   "probability must be a decimal in [0,1]" :
			   "must be a decimal integer");
	return ret;
}

/* The bottleneck's port-wide devargs: 0 when @p key was one (and its value
 * good), -1 when its value was bad (logged), 1 when it is another key. */
static int
impair_shaper_key(const char *dev, const char *key, const char *val,
		  struct impair_shaper_cfg *c)
{
	uint64_t v = 0;
	double d = 0;
	int ret;

	if (strcmp(key, "ecn_pmax") == 0) {
		ret = impair_parse_prob(val, &d);
		if (ret != 0) {
			IMPAIR_LOG(ERR, "%s: ecn_pmax=%s: probability must be a decimal in [0,1]",
				   dev, val == NULL ? "" : val);
			return -1;
		}
		c->pmax_thr = (uint64_t)(d * 4294967296.0);
		return 0;
	}
	if (strcmp(key, "rate_mbps") != 0 && strcmp(key, "queue_pkts") != 0 &&
	    strcmp(key, "ecn_kmin") != 0 && strcmp(key, "ecn_kmax") != 0)
		return 1;
	ret = impair_parse_u64(val, &v);
	if (ret != 0 || v > (strcmp(key, "rate_mbps") == 0 ? 10000000u : IMPAIR_SHAPER_MAX) ||
	    (strcmp(key, "queue_pkts") == 0 && v == 0)) {
		IMPAIR_LOG(ERR, "%s: %s=%s: must be a decimal integer, %s", dev, key,
			   val == NULL ? "" : val,
			   strcmp(key, "rate_mbps") == 0 ? "0..10000000 (Mb/s)" :
			   "0..4096 packets (queue_pkts at least 1)");
		return -1;
	}
	if (strcmp(key, "rate_mbps") == 0) {
		c->rate_mbps = (uint32_t)v;
		c->tsc_per_kbit = v ? rte_get_tsc_hz() / (v * 1000) : 0;
	} else if (strcmp(key, "queue_pkts") == 0) {
		c->queue_pkts = (uint32_t)v;
	} else if (strcmp(key, "ecn_kmin") == 0) {
		c->kmin = (uint32_t)v;
	} else {
		c->kmax = (uint32_t)v;
	}
	return 0;
}

/* Split "tx_drop" into direction (0/1, or -1 for both) and key. */
static int
impair_key_split(const char *key, int *dir, enum impair_key *k)
{
	int i;

	*dir = -1;
	if (strncmp(key, "tx_", 3) == 0) {
		*dir = RNIC_IMPAIR_TX;
		key += 3;
	} else if (strncmp(key, "rx_", 3) == 0) {
		*dir = RNIC_IMPAIR_RX;
		key += 3;
	}
	for (i = 0; i < IMPAIR_KEY_COUNT; i++)
		if (strcmp(key, impair_key_name[i]) == 0) {
			*k = (enum impair_key)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * Two passes over the pairs: unprefixed keys (both directions) first,
 * then tx_/rx_ keys, so a prefixed key wins wherever it stands.
 */
static int
impair_parse_kvlist(const char *dev, const struct rte_kvargs *kv,
		    struct impair_port *p, struct impair_dir_args a[2])
{
	bool have_port = false;
	unsigned int i;
	int pass, dir, d, ret, sk;
	enum impair_key k;

	for (i = 0; i < kv->count; i++) {
		const char *key = kv->pairs[i].key;
		const char *val = kv->pairs[i].value;

		if (strcmp(key, "port") == 0) {
			if (val == NULL || *val == '\0' ||
			    strlen(val) >= sizeof(p->lower_name)) {
				IMPAIR_LOG(ERR, "%s: port=%s: want an ethdev "
					   "name", dev, val == NULL ? "" : val);
				return -EINVAL;
			}
			strcpy(p->lower_name, val);
			have_port = true;
		} else if ((sk = impair_shaper_key(dev, key, val, &p->shc)) < 0) {
			return -EINVAL;
		} else if (sk == 1 && impair_key_split(key, &dir, &k) != 0) {
			IMPAIR_LOG(ERR, "%s: unknown devarg '%s' (valid: %s)",
				   dev, key, IMPAIR_KEYS_HELP);
			return -EINVAL;
		}
	}
	if (!have_port) {
		IMPAIR_LOG(ERR, "%s: missing port=<underlying ethdev name>",
			   dev);
		return -EINVAL;
	}
	if (p->shc.queue_pkts == 0)
		p->shc.queue_pkts = 256;
	if (p->shc.kmin > p->shc.kmax) {
		IMPAIR_LOG(ERR, "%s: ecn_kmin=%u exceeds ecn_kmax=%u", dev, p->shc.kmin,
			   p->shc.kmax);
		return -EINVAL;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < kv->count; i++) {
			const char *key = kv->pairs[i].key;

			if (strcmp(key, "port") == 0 || impair_key_split(key, &dir, &k) != 0)
				continue;   /* port and the bottleneck's keys */
			if ((dir < 0) != (pass == 0))
				continue;
			for (d = 0; d < 2; d++) {
				if (dir >= 0 && d != dir)
					continue;
				ret = impair_parse_one(dev, key, k,
						       kv->pairs[i].value,
						       &a[d]);
				if (ret != 0)
					return ret;
			}
		}
	return 0;
}

static int
impair_parse_args(const char *dev, const char *args, struct impair_port *p)
{
	struct impair_dir_args a[2];
	struct rte_kvargs *kv;
	int d, ret;

	for (d = 0; d < 2; d++) {
		memset(&a[d], 0, sizeof(a[d]));
		a[d].p = p->cfg[d].p; /* the defaults */
	}
	if (*args == '\0') {
		IMPAIR_LOG(ERR, "%s: missing port=<underlying ethdev name>",
			   dev);
		return -EINVAL;
	}
	kv = rte_kvargs_parse(args, NULL);
	if (kv == NULL) {
		IMPAIR_LOG(ERR, "%s: cannot parse devargs '%s'", dev, args);
		return -EINVAL;
	}
	ret = impair_parse_kvlist(dev, kv, p, a);
	rte_kvargs_free(kv);
	for (d = 0; d < 2 && ret == 0; d++) {
		ret = rnic_impair_cfg_load(&p->cfg[d], &a[d].p);
		if (ret != 0)
			IMPAIR_LOG(ERR, "%s: invalid %s parameters", dev,
				   impair_dir_name[d]);
	}
	return ret;
}

/* ---- vdev ------------------------------------------------------------ */

static int
impair_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_dev_name(&vdev->device);
	const struct rte_devargs *da = rte_dev_devargs(&vdev->device);
	const char *args = da != NULL && da->args != NULL ? da->args : "";
	int numa = rte_dev_numa_node(&vdev->device);
	struct rte_ether_addr *mac = NULL;
	struct impair_port *p = NULL;
	struct rte_eth_dev *dev;
	int d, ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		IMPAIR_LOG(ERR, "%s: secondary processes are not supported",
			   name);
		return -ENOTSUP;
	}
	if (impair_sdk_check(NULL, NULL) != 0) {
		IMPAIR_LOG(ERR, "%s: built for DPDK 22.11 without the driver "
			   "SDK headers, running on %s", name, rte_version());
		return -ENOTSUP;
	}
	p = rte_zmalloc_socket(name, sizeof(*p), RTE_CACHE_LINE_SIZE, numa);
	mac = rte_zmalloc_socket(name, sizeof(*mac), 0, numa);
	if (p == NULL || mac == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	for (d = 0; d < 2; d++)
		rnic_impair_cfg_init(&p->cfg[d]);
	ret = impair_parse_args(name, args, p);
	if (ret != 0)
		goto fail;

	dev = rte_eth_dev_allocate(name);
	if (dev == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	if (impair_sdk_check(dev, name) != 0) {
		IMPAIR_LOG(ERR, "%s: ethdev layout differs from DPDK 22.11's",
			   name);
		rte_eth_dev_release_port(dev);
		ret = -ENOTSUP;
		goto fail;
	}
	p->dev = dev;
	p->port_id = dev->data->port_id;
	dev->data->dev_private = p;
	dev->data->mac_addrs = mac;
	dev->data->numa_node = numa;
	dev->device = &vdev->device;
	dev->dev_ops = &impair_ops;
	dev->rx_pkt_burst = impair_rx_burst;
	dev->tx_pkt_burst = impair_tx_burst;
	if (impair_lower_resolve(p, true) != 0)
		IMPAIR_LOG(NOTICE, "%s: port %s not there yet, looking again "
			   "at configure", name, p->lower_name);
	rte_eth_dev_probing_finish(dev);
	if (impair_sdk_check_port(dev, name) != 0) {
		IMPAIR_LOG(ERR, "%s: ethdev port id not where DPDK 22.11 has "
			   "it", name);
		rte_eth_dev_release_port(dev); /* frees p and mac */
		return -ENOTSUP;
	}
	impair_ports[p->port_id] = p;
	IMPAIR_LOG(INFO, "%s: port %u on %s", name, p->port_id,
		   p->lower_name);
	return 0;
fail:
	rte_free(mac);
	rte_free(p);
	return ret;
}

static int
impair_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;
	struct impair_port *p;
	uint16_t pid;

	dev = rte_eth_dev_allocated(rte_dev_name(&vdev->device));
	if (dev == NULL)
		return 0;
	pid = dev->data->port_id;
	p = dev->data->dev_private;
	if (p != NULL && p->started)
		rte_eth_dev_stop(pid);
	return rte_eth_dev_close(pid);
}

static struct rte_vdev_driver impair_vdev_drv = {
	.probe = impair_probe,
	.remove = impair_remove,
};

RTE_PMD_REGISTER_VDEV(net_impair, impair_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_impair,
	"port=<ethdev name> "
	"[tx_|rx_]drop=<0..1> [tx_|rx_]dup=<0..1> [tx_|rx_]reorder=<0..1> "
	"[tx_|rx_]reorder_depth=<1..64> [tx_|rx_]reorder_idle=<polls> "
	"[tx_|rx_]corrupt=<0..1> [tx_|rx_]seed=<uint64> "
	"[tx_|rx_]drop_pkts=<n>:<n>:...");

/* ---- run-time control ------------------------------------------------ */

static int
impair_api_port(uint16_t port_id, int dir, struct impair_port **p)
{
	if (port_id >= RTE_MAX_ETHPORTS || impair_ports[port_id] == NULL)
		return -ENODEV;
	if (dir != RNIC_IMPAIR_TX && dir != RNIC_IMPAIR_RX)
		return -EINVAL;
	*p = impair_ports[port_id];
	return 0;
}

int
rnic_impair_set_hook(uint16_t port_id, int dir, rnic_impair_hook_t fn,
		     void *arg)
{
	struct impair_port *p;
	int ret = impair_api_port(port_id, dir, &p);

	if (ret != 0)
		return ret;
	p->cfg[dir].hook_arg = arg;
	p->cfg[dir].hook = fn;
	return 0;
}

int
rnic_impair_set_params(uint16_t port_id, int dir,
		       const struct rnic_impair_params *params)
{
	struct impair_port *p;
	int ret = impair_api_port(port_id, dir, &p);

	if (ret != 0)
		return ret;
	return rnic_impair_cfg_load(&p->cfg[dir], params);
}

int
rnic_impair_get_params(uint16_t port_id, int dir,
		       struct rnic_impair_params *params)
{
	struct impair_port *p;
	int ret = impair_api_port(port_id, dir, &p);

	if (ret != 0)
		return ret;
	if (params == NULL)
		return -EINVAL;
	*params = p->cfg[dir].p;
	return 0;
}

int
rnic_impair_get_counts(uint16_t port_id, int dir,
		       struct rnic_impair_counts *c)
{
	struct impair_port *p;
	int ret = impair_api_port(port_id, dir, &p);

	if (ret != 0)
		return ret;
	if (c == NULL)
		return -EINVAL;
	impair_counts_sum(p, dir, c);
	return 0;
}
