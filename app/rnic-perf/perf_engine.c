/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: ports, devices, and which thread polls which engine role.
 *
 * Mappings (the main lcore always posts work requests and polls CQs):
 *   default           each device, all roles, on a worker lcore of its own
 *   --rtc             every role of every device on one worker lcore
 *   --pipeline        TX roles on worker 1, RX roles on worker 2, timer
 *                     roles on worker 3 (wrapping when there are fewer)
 *   --engine-on-main  no worker: the main lcore polls the engines between
 *                     posting and polling (one thread per process)
 *   --config FILE     the "lcores" section of a softrnic configuration
 * Idle pollers yield (as softrnic does) so that lcores sharing a CPU on a
 * small machine still make progress.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include <rte_alarm.h>
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rnic_config.h"
#include "perf.h"
#include "rnic_attach.h"

#define MAX_PER_LCORE 8

struct lc_plan {
	unsigned int n;
	struct rnic_device *dev[MAX_PER_LCORE];
	unsigned int roles[MAX_PER_LCORE];
	int side[MAX_PER_LCORE];
};

static struct lc_plan plans[RTE_MAX_LCORE];
static struct perf_side *main_sides;
static unsigned int main_nsides;
static bool on_main;
static uint32_t stop_flag;
static bool launched;
static unsigned int idle_count;

static const char *
role_str(unsigned int roles)
{
	static char b[32];

	if (roles == RNIC_ROLE_ALL)
		return "all";
	b[0] = '\0';
	if (roles & RNIC_ROLE_TX)
		strcat(b, "tx,");
	if (roles & RNIC_ROLE_RX)
		strcat(b, "rx,");
	if (roles & RNIC_ROLE_TIMER)
		strcat(b, "timer,");
	if (b[0])
		b[strlen(b) - 1] = '\0';
	return b;
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

static const char *
port_name(uint16_t port)
{
	static char n[RTE_ETH_NAME_MAX_LEN];

	if (rte_eth_dev_get_name_by_port(port, n) != 0)
		snprintf(n, sizeof(n), "port%u", port);
	return n;
}

/*
 * @p nq RX and TX queues. net_memif pairs TX queue i with the peer's RX
 * queue i and refuses more TX rings than the peer has RX queues, so a
 * one-queue peer (dpdk-testpmd) needs nq = 1: the engine then shares the
 * TX queue between requests and responses, and the TX and RX roles of the
 * device need one thread. Two rnic-perf processes use nq = 2 (requests on
 * queue 0, responses on queue 1; the RX role polls both), as the engine's
 * own port setup does.
 */
static int
port_setup_own(struct perf_side *s, uint16_t nq)
{
	struct rte_eth_conf conf = {0};
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_eth_dev_info info;
	int rc;

	snprintf(name, sizeof(name), "perf_rx%u", s->port_id);
	s->rxpool = rte_pktmbuf_pool_create(name, 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					    rte_socket_id());
	if (s->rxpool == NULL) {
		fprintf(stderr, "rnic-perf: port %s: RX mbuf pool: %s (give EAL more memory, "
			"e.g. -m 1024)\n", port_name(s->port_id), rte_strerror(rte_errno));
		return -1;
	}
	rc = rte_eth_dev_info_get(s->port_id, &info);
	if (rc == 0 && (info.max_rx_queues < nq || info.max_tx_queues < nq))
		nq = 1;
	if (rc == 0)
		rc = rte_eth_dev_configure(s->port_id, nq, nq, &conf);
	for (uint16_t q = 0; rc == 0 && q < nq; q++) {
		rc = rte_eth_rx_queue_setup(s->port_id, q, 1024, rte_eth_dev_socket_id(s->port_id),
					    NULL, s->rxpool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(s->port_id, q, 1024,
						    rte_eth_dev_socket_id(s->port_id), NULL);
	}
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: port %s setup: %s\n", port_name(s->port_id),
			strerror(-rc));
		return -1;
	}
	/* A memif client whose server is not listening yet fails to start:
	 * retry for a while (the peer may still be starting). */
	for (int tries = 0;; tries++) {
		rc = rte_eth_dev_start(s->port_id);
		if (rc == 0)
			break;
		if (tries >= 200) {
			fprintf(stderr, "rnic-perf: port %s does not start: %s (is the memif "
				"server running?)\n", port_name(s->port_id), strerror(-rc));
			return -1;
		}
		rte_delay_ms(100);
	}
	rte_eth_promiscuous_enable(s->port_id);
	s->own_port_setup = true;
	return 0;
}

/*
 * Wait for the link. A memif client that reached the socket before its
 * server started the port is turned away and does not try again by
 * itself: with @p redial, restart the port every 2 s while the link
 * stays down. Only the dialling end may do that. A memif server's
 * listener takes a new connection by itself, and restarting it is
 * harmful: rte_eth_dev_stop runs memif's disconnect in this thread, which
 * frees the control channel's message queue while the interrupt thread
 * may be answering that client's handshake on it (DPDK 22.11 locks
 * neither against the other; SIGSEGV in memif_msg_send_from_queue). Both
 * ends enter this wait within a millisecond of each other, so a server
 * that also restarted did so right in the client's redial handshake.
 */
int
perf_link_wait(struct perf_side *s, double secs, bool redial)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_get_tsc_cycles();
	uint64_t end = now + (uint64_t)(secs * (double)hz), retry = now + 2 * hz;
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(s->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		now = rte_get_tsc_cycles();
		if (perf_quit) {
			fprintf(stderr, "rnic-perf: port %s: interrupted while waiting for the "
				"link\n", port_name(s->port_id));
			return -1;
		}
		if (now > end) {
			fprintf(stderr, "rnic-perf: port %s: link still down after %.0f s (is the "
				"peer running?)\n", port_name(s->port_id), secs);
			return -1;
		}
		if (redial && s->own_port_setup && now > retry) {
			rte_eth_dev_stop(s->port_id);
			rte_eth_dev_start(s->port_id);
			retry = now + 2 * hz;
		}
		rte_delay_us_sleep(1000);
	}
}

static bool
impaired(const struct perf_opts *o)
{
	return o->impair;
}

/* --loss etc.: net_impair over the client's end of the ring pair, both
 * directions (so requests and responses see the same loss); the client's
 * device uses the impair port. */
static int
impair_link(const struct perf_opts *o, struct perf_side *client)
{
	char ring[RTE_ETH_NAME_MAX_LEN], args[RTE_ETH_NAME_MAX_LEN + 360];
	const char *name = "net_impair_perf";

	if (rte_eth_dev_get_name_by_port(client->port_id, ring) != 0)
		return -1;
	snprintf(args, sizeof(args),
		 "port=%s,drop=%.6f,dup=%.6f,reorder=%.6f,corrupt=%.6f,seed=%" PRIu64,
		 ring, o->loss, o->dup, o->reorder, o->corrupt, o->impair_seed);
	if (o->bottleneck != NULL)
		snprintf(args + strlen(args), sizeof(args) - strlen(args), ",%s", o->bottleneck);
	if (rte_vdev_init(name, args) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &client->port_id) != 0) {
		fprintf(stderr, "rnic-perf: net_impair refused \"%s\"\n", args);
		return -1;
	}
	fprintf(stderr, "impair: link %s\n", args);
	return 0;
}

/* The impair port's counters, on stderr after the run: what it did. */
void
perf_engine_impair_report(const struct perf_opts *o, const struct perf_side *client)
{
	static const char *const names[] = {
		"tx_impair_dropped", "rx_impair_dropped", "tx_impair_duplicated",
		"rx_impair_duplicated", "tx_impair_reordered", "rx_impair_reordered",
		"tx_impair_corrupted", "rx_impair_corrupted", "tx_bottleneck_marked",
		"tx_bottleneck_dropped", "tx_bottleneck_depth_max", "tx_bottleneck_depth_p99",
	};
	uint64_t v;
	uint64_t id;

	if (!impaired(o))
		return;
	fprintf(stderr, "impair:");
	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (rte_eth_xstats_get_id_by_name(client->port_id, names[i], &id) == 0 &&
		    rte_eth_xstats_get_by_id(client->port_id, &id, &v, 1) == 1)
			fprintf(stderr, " %s=%" PRIu64, names[i], v);
	fprintf(stderr, "\n");
}

/* Find the DPDK ports of the sides. */
int
perf_engine_ports(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
		  unsigned int nsides)
{
	if (o->link == LINK_ATTACH) {   /* the daemon's ports */
		if (impaired(o)) {
			fprintf(stderr, "rnic-perf: --loss, --dup, --reorder and --corrupt go with "
				"--link ring (an attached run uses the daemon's links)\n");
			return -1;
		}
		return 0;
	}
	if (o->link == LINK_RING) {
		const char *na = "perf_a", *nb = "perf_b";

		if (cfg != NULL) {
			na = cfg->ports[0].name;
			nb = cfg->ports[1].name;
		}
		if (rnic_port_ring_pair(na, nb, o->ring_size, &sides[0].port_id,
					&sides[1].port_id) != 0) {
			fprintf(stderr, "rnic-perf: cannot create the ring pair (give EAL more "
				"memory?)\n");
			return -1;
		}
		return impaired(o) ? impair_link(o, &sides[0]) : 0;
	}
	if (impaired(o)) {
		fprintf(stderr, "rnic-perf: --loss, --dup, --reorder and --corrupt go with "
			"--link ring\n");
		return -1;
	}
	/* pair / memif: the ports come from --vdev, in order, or by name
	 * from the configuration. */
	{
		unsigned int k = 0;
		uint16_t pid;

		if (cfg != NULL) {
			for (unsigned int i = 0; i < nsides; i++) {
				char name[RNIC_CFG_DEVICE_MAX];
				char *comma;

				snprintf(name, sizeof(name), "%s", cfg->ports[i].device);
				comma = strchr(name, ',');
				if (comma)
					*comma = '\0';
				if (rte_eth_dev_get_port_by_name(name, &sides[i].port_id) != 0) {
					fprintf(stderr, "rnic-perf: ports[%u].device: no DPDK port "
						"named \"%s\" (add --vdev=%s to the EAL arguments)\n",
						i, name, cfg->ports[i].device);
					return -1;
				}
			}
		} else {
			RTE_ETH_FOREACH_DEV(pid) {
				if (k < nsides)
					sides[k].port_id = pid;
				k++;
			}
			if (k < nsides) {
				fprintf(stderr, "rnic-perf: --link %s needs %u DPDK port%s, EAL has %u "
					"(add --vdev=net_memif0,role=...,socket=...)\n",
					o->link == LINK_PAIR ? "pair" : "memif", nsides,
					nsides > 1 ? "s" : "", k);
				return -1;
			}
		}
	}
	for (unsigned int i = 0; i < nsides; i++) {
		uint16_t nq = o->queues ? o->queues : o->link == LINK_PAIR ? 1 : 2;

		if (cfg != NULL && cfg->ports[i].queues)
			nq = cfg->ports[i].queues;
		if (port_setup_own(&sides[i], nq) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static uint32_t
pow2_ge(uint64_t v)
{
	uint32_t r = 1;

	while (r < v && r < (1u << 30))
		r <<= 1;
	return r;
}

/* --attach: the sides on the daemon's ports (both: 0 and 1; one: the
 * server on 1, the client on 0, or 0 when the daemon has one port). */
static int
attach_devices(const struct perf_opts *o, struct perf_side *sides, unsigned int nsides)
{
	struct rnic_device *devs[RNIC_ATT_MAX_PORTS];
	unsigned int n;
	int rc = rnic_attach_open(o->attach, devs, RNIC_ATT_MAX_PORTS, &n);

	if (rc != 0) {
		fprintf(stderr, "rnic-perf: --attach %s: %s\n", o->attach, strerror(-rc));
		return -1;
	}
	if (n < nsides) {
		fprintf(stderr, "rnic-perf: --attach %s: the daemon has %u port%s, %u needed\n",
			o->attach, n, n == 1 ? "" : "s", nsides);
		for (unsigned int i = 0; i < n; i++)
			rnic_dev_destroy(devs[i]);
		return -1;
	}
	for (unsigned int i = 0; i < n; i++) {
		int side = nsides == 2 ? (int)i : (i == (o->server && n > 1 ? 1u : 0u) ? 0 : -1);

		if (side < 0 || (unsigned int)side >= nsides) {
			rnic_dev_destroy(devs[i]);
			continue;
		}
		sides[side].dev = devs[i];
		rnic_dev_get_addr(devs[i], sides[side].mac, &sides[side].ip);
	}
	return 0;
}

int
perf_engine_devices(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
		    unsigned int nsides)
{
	if (o->link == LINK_ATTACH)
		return attach_devices(o, sides, nsides);
	const struct perf_params *p = &o->p;
	uint64_t maxsz = perf_max_size(p);
	uint64_t pkts = maxsz / p->mtu + 1;
	uint64_t per_qp = RTE_MIN((uint64_t)p->tx_depth * pkts, 512u);
	uint64_t mbufs = (uint64_t)p->qps * per_qp * (p->duplex ? 1 : 1) +
			 2ull * o->ring_size + 16384;
	uint32_t payload = (uint32_t)RTE_MIN((uint64_t)p->mtu, RTE_MAX(maxsz, (uint64_t)8));

	for (unsigned int i = 0; i < nsides; i++) {
		struct perf_side *s = &sides[i];
		struct rnic_dev_attr a = {
			.port_id = s->port_id,
			.max_qps = RTE_MAX(1024u, pow2_ge((uint64_t)p->qps + 16)),
			.max_mrs = 64,
			.max_cqs = 16,
			.mbufs = (uint32_t)RTE_MIN(mbufs, 1ull << 23),
			.mbuf_size = (uint32_t)RTE_MAX(512u, RTE_PKTMBUF_HEADROOM +
						       RTE_ALIGN_CEIL(payload + 128u, 64u)),
			/* Never fewer doorbell slots than WRs that can be
			 * outstanding: with --engine-on-main a full doorbell
			 * ring would wait for the very thread that waits. */
			.ring_size = RTE_MAX(4096u, pow2_ge((uint64_t)p->qps * p->tx_depth * 2 + 64)),
			.mtu = (uint16_t)p->mtu,
			.max_inflight = o->inflight,
			.cnp_dscp = 48,   /* as ports[].cnp_dscp's default */
			.no_port_setup = s->own_port_setup,
		};
		unsigned int ci = i;   /* config port of this side */

		s->mac[0] = 0x02;
		s->mac[5] = (uint8_t)(s->idx + 1);
		s->ip = rte_cpu_to_be_32(0x0a000000u | (uint32_t)(s->idx + 1));
		if (cfg != NULL && ci < cfg->n_ports) {
			const struct rnic_cfg_port *cp = &cfg->ports[ci];

			/* its lcore mapping polls worker 0 of each device */
			if (cp->workers > 1) {
				fprintf(stderr, "rnic-perf: ports[%u].workers: %u, but rnic-perf runs "
					"one worker per device (softrnic runs several)\n", ci,
					cp->workers);
				return -1;
			}
			if (cp->has_mac)
				memcpy(s->mac, cp->mac, 6);
			s->ip = cp->ipv4;
			a.burst = cp->burst;
			a.mbufs = RTE_MAX(a.mbufs, cp->mbufs);
			a.max_qps = RTE_MAX(a.max_qps, cp->max_qps);
			a.ring_size = RTE_MAX(a.ring_size, cp->ring_size);
			if (o->inflight == 0)
				a.max_inflight = cp->max_inflight;
			a.no_ecn = !cp->ecn;
			a.cnp_dscp = cp->cnp_dscp;
			a.cnp_interval_us = cp->cnp_interval_us;
			a.no_dcqcn = !cp->dcqcn_on;
			a.dcqcn = cp->dcqcn;
		}
		if (o->dcqcn_set) {
			a.no_dcqcn = o->no_dcqcn;
			a.dcqcn = o->dcqcn;
		}
		memcpy(a.mac, s->mac, 6);
		a.ipv4 = s->ip;
		s->dev = rnic_dev_create(&a);
		if (s->dev == NULL) {
			fprintf(stderr, "rnic-perf: device on port %s: %s%s\n", port_name(s->port_id),
				rte_strerror(rte_errno), rte_errno == ENOMEM ?
				" (give EAL more memory, e.g. -m 2048; 16384 QPs want -m 4096)" : "");
			return -1;
		}
		rnic_telemetry_add_device(s->dev, s->idx == 0 ? "client" : "server");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lcores                                                              */
/* ------------------------------------------------------------------ */

static int
plan_add(unsigned int lc, struct perf_side *s, unsigned int roles)
{
	struct lc_plan *pl = &plans[lc];

	for (unsigned int k = 0; k < pl->n; k++) {
		if (pl->dev[k] == s->dev) {
			pl->roles[k] |= roles;
			return 0;
		}
	}
	if (pl->n == MAX_PER_LCORE)
		return -1;
	pl->dev[pl->n] = s->dev;
	pl->side[pl->n] = s->idx;
	pl->roles[pl->n++] = roles;
	return 0;
}

/* --timer-every N: the timer role runs every Nth loop (1: every loop, as
 * the softrnic daemon does). */
static unsigned int timer_every = 1;

static int
engine_main(void *arg)
{
	struct lc_plan *pl = arg;
	unsigned int idle = 0, loop = 0;

	while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
		unsigned int work = 0;
		bool tmr = ++loop >= timer_every;

		if (tmr)
			loop = 0;
		for (unsigned int i = 0; i < pl->n; i++) {
			unsigned int r = pl->roles[i];

			/* The timer role every timer_every passes, unless alone. */
			if (!tmr && r != RNIC_ROLE_TIMER)
				r &= ~(unsigned int)RNIC_ROLE_TIMER;
			work += rnic_dev_poll(pl->dev[i], r);
		}
		rnic_poll_idle(work, &idle);
	}
	return 0;
}

/* --pipeline: TX roles on worker 1, RX on worker 2, timer on worker 3. */
static int
plan_pipeline(struct perf_side *sides, unsigned int nsides, const unsigned int *workers,
	      unsigned int nw)
{
	for (unsigned int i = 0; i < nsides; i++) {
		if (rnic_dev_shared_txq(sides[i].dev) && nw > 1) {
			fprintf(stderr, "rnic-perf: --pipeline: the device on port %s has one "
				"TX queue shared by its TX and RX roles (net_memif with a "
				"1-queue peer): they must be polled by one lcore; use --rtc "
				"or the default mapping\n", port_name(sides[i].port_id));
			return -1;
		}
		plan_add(workers[0], &sides[i], RNIC_ROLE_TX);
		plan_add(workers[1 % nw], &sides[i], RNIC_ROLE_RX);
		plan_add(workers[2 % nw], &sides[i], RNIC_ROLE_TIMER);
	}
	if (nw < 3)
		fprintf(stderr, "rnic-perf: --pipeline wants 3 worker lcores, EAL has %u: "
			"roles share lcores\n", nw);
	return 0;
}

/* --config: the lcores section; a device it does not name gets all its
 * roles on a worker of its own (or the main lcore, with no worker). */
static int
plan_config(const struct rnic_config *cfg, struct perf_side *sides, unsigned int nsides,
	    const unsigned int *workers, unsigned int nw)
{
	bool named[2] = { false, false };

	for (unsigned int i = 0; i < cfg->n_lcores; i++) {
		const struct rnic_cfg_lcore *l = &cfg->lcores[i];

		if (l->port_idx >= (int)nsides)
			continue;
		if (!rte_lcore_is_enabled(l->lcore) ||
		    (unsigned int)l->lcore == rte_get_main_lcore()) {
			fprintf(stderr, "rnic-perf: lcores[%u].lcore: %d is not an enabled "
				"worker lcore (check the EAL --lcores argument)\n", i, l->lcore);
			return -1;
		}
		plan_add(l->lcore, &sides[l->port_idx], l->roles);
		named[l->port_idx] = true;
	}
	for (unsigned int i = 0; i < nsides; i++) {
		const struct rnic_cfg_port *cp = &cfg->ports[i];

		if (rnic_dev_shared_txq(sides[i].dev) && named[i] &&
		    cp->worker_lcore[0][RNIC_CFG_ROLE_TX] != cp->worker_lcore[0][RNIC_CFG_ROLE_RX]) {
			fprintf(stderr, "rnic-perf: ports[%u] has one TX queue shared by its "
				"tx and rx roles: put them on one lcore\n", i);
			return -1;
		}
		if (named[i])
			continue;
		if (nw == 0) {
			on_main = true;
			continue;
		}
		plan_add(workers[i % nw], &sides[i], RNIC_ROLE_ALL);
	}
	return 0;
}

/* Which lcore polls which roles of which device, by @p map. */
static int
plan_map(enum perf_map map, const struct rnic_config *cfg, struct perf_side *sides,
	 unsigned int nsides, const unsigned int *workers, unsigned int nw)
{
	switch (map) {
	case MAP_MAIN:
		on_main = true;
		return 0;
	case MAP_DEFAULT:
		if (nw < nsides)
			fprintf(stderr, "rnic-perf: %u device(s) on %u worker lcore(s): some share "
				"one (give EAL more lcores, e.g. --lcores=0@0,1@1,2@1)\n", nsides, nw);
		for (unsigned int i = 0; i < nsides; i++)
			plan_add(workers[i % nw], &sides[i], RNIC_ROLE_ALL);
		return 0;
	case MAP_RTC:
		for (unsigned int i = 0; i < nsides; i++)
			plan_add(workers[0], &sides[i], RNIC_ROLE_ALL);
		return 0;
	case MAP_PIPELINE:
		return plan_pipeline(sides, nsides, workers, nw);
	case MAP_CONFIG:
		return plan_config(cfg, sides, nsides, workers, nw);
	}
	return 0;
}

/* Each planned lcore runs engine_main. */
static int
launch_plans(struct perf_side *sides, unsigned int nsides)
{
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < nsides; i++)
		rnic_dev_set_polled(sides[i].dev, true);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		for (unsigned int k = 0; k < plans[lc].n; k++)
			rnic_telemetry_add_lcore(lc, plans[lc].dev[k], plans[lc].roles[k]);
		if (plans[lc].n && rte_eal_remote_launch(engine_main, &plans[lc], lc) != 0) {
			fprintf(stderr, "rnic-perf: cannot launch lcore %u\n", lc);
			perf_engine_stop(sides, nsides);
			return -1;
		}
	}
	launched = true;
	return 0;
}

int
perf_engine_launch(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
		   unsigned int nsides)
{
	unsigned int workers[RTE_MAX_LCORE], nw = 0, lc;
	enum perf_map map = o->map;

	if (o->link == LINK_ATTACH) {   /* the daemon's lcores poll */
		memset(plans, 0, sizeof(plans));
		on_main = false;
		return 0;
	}
	RTE_LCORE_FOREACH_WORKER(lc)
		workers[nw++] = lc;
	timer_every = o->timer_every ? o->timer_every : 1;
	memset(plans, 0, sizeof(plans));
	main_sides = sides;
	main_nsides = nsides;
	on_main = false;
	if (map != MAP_MAIN && map != MAP_CONFIG && nw == 0) {
		/* Fine for one thread per process (memif); say so when the
		 * user asked for a mapping that needs workers. */
		if (map != MAP_DEFAULT)
			fprintf(stderr, "rnic-perf: no worker lcore: the main lcore runs the "
				"engines; give EAL more lcores, e.g. --lcores=0@0,1@1\n");
		map = MAP_MAIN;
	}
	if (plan_map(map, cfg, sides, nsides, workers, nw) != 0)
		return -1;
	if (on_main) {
		/* Every device on the main lcore: nothing else polls. */
		for (unsigned int i = 0; i < nsides; i++)
			rnic_dev_set_polled(sides[i].dev, false);
		return 0;
	}
	return launch_plans(sides, nsides);
}

/* One line per polling thread, for the test information block. */
void
perf_engine_describe(FILE *f)
{
	if (on_main) {
		fprintf(f, " Engine lcores   : main lcore %u (all roles, with the application)\n",
			rte_get_main_lcore());
		return;
	}
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		if (plans[lc].n == 0)
			continue;
		fprintf(f, " Engine lcore %-3u:", lc);
		for (unsigned int k = 0; k < plans[lc].n; k++)
			fprintf(f, " %s=%s", plans[lc].side[k] == 0 ? "client" : "server",
				role_str(plans[lc].roles[k]));
		fprintf(f, "\n");
	}
}

bool
perf_engine_on_main(void)
{
	return on_main;
}

void
perf_poll(bool idle)
{
	static unsigned int loop;

	if (on_main) {
		bool tmr = ++loop >= timer_every;

		if (tmr)
			loop = 0;
		for (unsigned int i = 0; i < main_nsides; i++) {
			rnic_dev_poll_tx(main_sides[i].dev);
			rnic_dev_poll_rx(main_sides[i].dev);
			if (tmr)
				rnic_dev_poll_timer(main_sides[i].dev);
		}
		return;
	}
	/* The engine's idle step: it yields sooner where this lcore shares
	 * its CPU with another (--pipeline's timer lcore on CPU 0). */
	rnic_poll_idle(idle ? 0 : 1, &idle_count);
}

void
perf_engine_stop(struct perf_side *sides, unsigned int nsides)
{
	if (launched) {
		__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
		rte_eal_mp_wait_lcore();
		launched = false;
	}
	for (unsigned int i = 0; i < nsides; i++)
		if (sides[i].dev != NULL)
			rnic_dev_set_polled(sides[i].dev, false);
	on_main = false;
}

static uint32_t intr_barrier;

static void
intr_barrier_cb(void *arg)
{
	RTE_SET_USED(arg);
	__atomic_store_n(&intr_barrier, 1, __ATOMIC_RELEASE);
}

/* Let the interrupt thread run one more round: an alarm it fires after
 * what it already had queued (memif's deferred unregistrations). */
static void
intr_sync(void)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	__atomic_store_n(&intr_barrier, 0, __ATOMIC_RELEASE);
	if (rte_eal_alarm_set(1, intr_barrier_cb, NULL) != 0)
		return;
	while (!__atomic_load_n(&intr_barrier, __ATOMIC_ACQUIRE) && rte_get_tsc_cycles() < end)
		rte_delay_us_sleep(1000);
}

/*
 * Close the ports. @p wait_disconnect: the memif server side, whose peer
 * closed first. net_memif frees its shared regions on disconnect in the
 * interrupt thread without a lock against rte_eth_dev_stop/close, so wait
 * until the link is down and then for an alarm, which that same thread
 * runs after the disconnect (test/memif has the same order).
 */
void
perf_engine_close(struct perf_side *sides, unsigned int nsides, bool wait_disconnect)
{
	for (unsigned int i = 0; i < nsides; i++) {
		struct perf_side *s = &sides[i];

		if (wait_disconnect && s->own_port_setup) {
			uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
			struct rte_eth_link link;

			for (;;) {
				memset(&link, 0, sizeof(link));
				if (rte_eth_link_get_nowait(s->port_id, &link) == 0 &&
				    link.link_status == RTE_ETH_LINK_DOWN)
					break;
				if (rte_get_tsc_cycles() > end)
					break;
				rte_delay_us_sleep(1000);
			}
			intr_sync();
		}
		perf_side_destroy(s);
		if (s->own_port_setup) {
			rte_eth_dev_stop(s->port_id);
			rte_eth_dev_close(s->port_id);
			rte_mempool_free(s->rxpool);
			s->rxpool = NULL;
			s->own_port_setup = false;
		}
	}
}
