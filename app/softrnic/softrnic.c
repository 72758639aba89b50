/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softrnic: the appliance daemon. Brings up the ports, MRs, CQs and QPs a
 * JSON configuration declares, runs the engine roles on lcores, optionally
 * runs the configured workload with byte-for-byte verification (or, for a
 * peer outside the process, until every request has been transmitted),
 * prints counters, and shuts down cleanly on SIGINT/SIGTERM.
 *
 * With an "attach" section (config/gateway.json) it also serves
 * applications attached over a unix socket (lib/attach, issue 20): their
 * control requests on the main thread, their rings on the engine lcores,
 * until stopped; a stop errors their QPs and delivers the flushed
 * completions before anything is freed.
 *
 *   softrnic --config FILE                (EAL arguments from the file)
 *   softrnic [EAL args] -- --config FILE  (EAL arguments from the command line)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rnic_app_capture.h"
#include "rnic_app_numa.h"
#include "rnic_attach.h"
#include "rnic_cm.h"
#include "rnic_config.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"
#include "soak.h"

static volatile int quit;
/* The lcores run until stop_lcores (not until a signal: a clean stop of
 * attached applications needs them to flush their QPs first). */
static volatile int lcores_quit;
/* A signal stops the daemon. Once it serves (setup and workloads done, it
 * only runs until stopped) that is the normal end; before, the run was
 * interrupted: @c interrupted records the signal and @c phase what it cut
 * short, and the exit status is 128 + the signal, never a pass. */
static volatile int serving;
static volatile int interrupted;
static const char *volatile phase = "setup";

/* The daemon's own log type ("softrnic.app"). */
RTE_LOG_REGISTER(softrnic_logtype, softrnic.app, INFO);

struct port_rt {
	uint16_t port_id;
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cm *cm;      /* when one of its QPs is connected by the CM */
};

/* One (device, worker) an lcore polls, and which of its roles. */
struct lcore_poll {
	struct rnic_device *dev;
	unsigned int worker;
	unsigned int roles;
};

/* What one lcore polls: n (device, worker) entries. Sized at launch for
 * every worker of every port of the configuration, so any number of them
 * can share an lcore. */
struct lcore_rt {
	unsigned int n;
	struct lcore_poll *poll;
};

static struct rnic_config *cfg;
static struct port_rt *ports;
static struct rnic_mr **mrs;
static uint8_t **mr_mem;
static bool *mr_numa;   /* mr_mem[i] came from libnuma (rnic_app_numa_free) */
static struct rnic_cq **cqs;
static struct rnic_qp **qps;
static struct lcore_rt lcores[RTE_MAX_LCORE];
/* Attached applications (cfg->attach.present): set before the lcores
 * start, freed after they stop. */
static struct rnic_attach_server *attach_srv;

static void
on_signal(int sig)
{
	if (!serving && !interrupted)
		interrupted = sig;
	quit = 1;
}

/* The line that says a run was cut short (stdout, the last line, and
 * stderr); the exit status for it. */
static int
report_interrupted(void)
{
	const char *name = interrupted == SIGINT ? "SIGINT" :
			   interrupted == SIGTERM ? "SIGTERM" : "signal";

	fprintf(stderr, "softrnic: interrupted by %s during %s: not a complete run\n",
		name, phase);
	printf("interrupted: signal=%s phase=%s\n", name, phase);
	return 128 + interrupted;
}

/* The engine loop of one lcore: the data plane every iteration; an idle
 * poller yields so pollers sharing a CPU still make progress. */
static int
lcore_main(void *arg)
{
	struct lcore_rt *l = arg;
	unsigned int idle = 0, lc = rte_lcore_id();

	while (!__atomic_load_n(&lcores_quit, __ATOMIC_RELAXED)) {
		unsigned int work = 0;

		/* The doorbell role first: attached applications' WQEs reach
		 * the TX role in this pass, their completions go out after. */
		if (attach_srv != NULL)
			work += rnic_attach_server_poll(attach_srv, lc);
		for (unsigned int i = 0; i < l->n; i++)
			work += rnic_worker_poll(l->poll[i].dev, l->poll[i].worker,
						 l->poll[i].roles);
		rnic_poll_idle(work, &idle);
	}
	return 0;
}

/* Stop the engine lcores and wait for them; from then on nobody polls
 * the devices, so control calls (dereg, destroy) need not wait for the
 * roles to answer (rnic_dev_set_polled). */
static void
stop_lcores(void)
{
	quit = 1;
	lcores_quit = 1;
	rte_eal_mp_wait_lcore();
	for (unsigned int i = 0; ports != NULL && i < cfg->n_ports; i++)
		if (ports[i].dev != NULL)
			rnic_dev_set_polled(ports[i].dev, false);
}

/* The ring pairs: each pair once, when its second port comes. */
static int
create_ring_pairs(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];

		if (p->ring_peer_idx >= 0) {
			if ((unsigned int)p->ring_peer_idx > i)
				continue;   /* created with its peer below */
			/* a queue pair per worker: worker k talks to worker k */
			int rc = rnic_port_ring_pair_n(cfg->ports[p->ring_peer_idx].name, p->name,
						       4096, p->workers,
						       &ports[p->ring_peer_idx].port_id,
						       &ports[i].port_id);

			if (rc != 0) {
				fprintf(stderr, "softrnic: ports[%u]: cannot create the ring pair "
					"(%u queue pairs): %s\n", i, p->workers, strerror(-rc));
				return -1;
			}
		}
	}
	return 0;
}

/* An impaired ring port: net_impair over its end of the pair. */
static int
create_impairs(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		char name[64], args[RNIC_CFG_DEVICE_MAX + 64];

		if (p->impair[0] == '\0')
			continue;
		snprintf(name, sizeof(name), "net_impair_%s", p->name);
		snprintf(args, sizeof(args), "port=net_ring_%s,%s", p->name, p->impair);
		if (rte_vdev_init(name, args) != 0 ||
		    rte_eth_dev_get_port_by_name(name, &ports[i].port_id) != 0) {
			fprintf(stderr, "softrnic: ports[%u].impair: net_impair rejected \"%s\"\n",
				i, p->impair);
			return -1;
		}
	}
	return 0;
}

/* Why rnic_dev_create failed on ports[@p i]: a port with fewer TX queues
 * than the workers (each needs one of its own) is named as such. */
static void
dev_create_failed(unsigned int i, uint16_t port_id)
{
	const struct rnic_cfg_port *p = &cfg->ports[i];
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	int err = rte_errno;

	if (rte_eth_dev_info_get(port_id, &info) == 0 &&
	    (info.max_tx_queues < p->workers || info.max_rx_queues < 1)) {
		rte_eth_dev_get_name_by_port(port_id, name);
		fprintf(stderr, "softrnic: ports[%u].workers: %u workers need %u TX queues and an "
			"RX queue, but DPDK port \"%s\" has %u TX and %u RX queue(s): lower "
			"\"workers\" or give the device more queues\n", i, p->workers, p->workers,
			name, info.max_tx_queues, info.max_rx_queues);
		return;
	}
	fprintf(stderr, "softrnic: ports[%u]: %s\n", i, rte_strerror(err));
}

/* A device on every port (a "device" port is looked up by its name, the
 * part before the first comma), with its PD. */
static int
create_devices(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		struct rnic_dev_attr a = {
			.ipv4 = p->ipv4, .max_qps = p->max_qps, .max_mrs = p->max_mrs,
			.max_cqs = p->max_cqs, .mbufs = p->mbufs, .ring_size = p->ring_size,
			.burst = p->burst, .queues = p->queues, .workers = p->workers,
			.max_inflight = p->max_inflight, .no_ecn = !p->ecn,
			.cnp_dscp = p->cnp_dscp, .cnp_interval_us = p->cnp_interval_us,
			.no_dcqcn = !p->dcqcn_on, .dcqcn = p->dcqcn, .vlan = p->vlan, .mtu = p->mtu,
			.n_ipv6 = p->n_ipv6,
		};

		memcpy(a.ipv6, p->ipv6, sizeof(a.ipv6));
		if (p->ring_peer_idx < 0) {
			char name[RNIC_CFG_DEVICE_MAX];
			char *comma;

			snprintf(name, sizeof(name), "%s", p->device);
			comma = strchr(name, ',');
			if (comma)
				*comma = '\0';
			if (rte_eth_dev_get_port_by_name(name, &ports[i].port_id) != 0) {
				fprintf(stderr, "softrnic: ports[%u].device: no DPDK port named \"%s\" "
					"(add --vdev=%s to the EAL arguments)\n", i, name, p->device);
				return -1;
			}
		}
		a.port_id = ports[i].port_id;
		if (p->has_mac)
			memcpy(a.mac, p->mac, 6);
		ports[i].dev = rnic_dev_create(&a);
		if (ports[i].dev == NULL) {
			dev_create_failed(i, ports[i].port_id);
			return -1;
		}
		ports[i].pd = rnic_alloc_pd(ports[i].dev);
		rnic_telemetry_add_device(ports[i].dev, p->name);
	}
	return 0;
}

/* What to give dpdk-dumpcap -i. A secondary process has no net_impair
 * driver, so an impaired port is captured on its net_ring below: the
 * wire side (after TX impairment, before RX impairment). */
static void
announce_capture_ports(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		char what[RNIC_CFG_DEVICE_MAX + 32], lower[RNIC_CFG_DEVICE_MAX + 16];
		uint16_t pid = ports[i].port_id;

		snprintf(lower, sizeof(lower), "net_ring_%s", p->name);
		if (p->impair[0] != '\0')
			rte_eth_dev_get_port_by_name(lower, &pid);
		snprintf(what, sizeof(what), "ports[%u] \"%s\"%s", i, p->name,
			 p->impair[0] != '\0' ? " (its wire side, under net_impair)" : "");
		rnic_app_capture_port(softrnic_logtype, "softrnic", what, pid);
	}
}

static int
setup_ports(void)
{
	ports = calloc(cfg->n_ports, sizeof(*ports));
	if (create_ring_pairs() != 0 || create_impairs() != 0 || create_devices() != 0)
		return -1;
	announce_capture_ports();
	return 0;
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* How many bytes of an MR are filled between two looks at @c quit. */
#define MR_FILL_CHECK (1u << 20)

/* Each MR: its memory, filled as configured, registered and announced. */
static int
setup_mrs(void)
{
	for (unsigned int i = 0; i < cfg->n_mrs; i++) {
		const struct rnic_cfg_mr *m = &cfg->mrs[i];
		uint64_t seed = m->fill_seed | 1;

		/* On the port's NUMA node, where the engine reads and writes it. */
		mr_mem[i] = rnic_app_numa_alloc(m->size,
						rte_eth_dev_socket_id(ports[m->port_idx].port_id),
						&mr_numa[i]);
		if (mr_mem[i] == NULL) {
			fprintf(stderr, "softrnic: mrs[%u].size: cannot allocate %" PRIu64 " bytes\n",
				i, m->size);
			return -1;
		}
		/* A large MR takes seconds to fill: a signal stops it. */
		for (uint64_t b = 0; b < m->size; b++) {
			if ((b & (MR_FILL_CHECK - 1)) == 0 && quit)
				return -1;
			mr_mem[i][b] = m->fill == RNIC_CFG_FILL_BYTE ? m->fill_value :
				       m->fill == RNIC_CFG_FILL_COUNTER ? (uint8_t)b :
				       m->fill == RNIC_CFG_FILL_RANDOM ? (uint8_t)xorshift(&seed) : 0;
		}
		mrs[i] = rnic_reg_mr(ports[m->port_idx].pd, mr_mem[i], m->size, m->access);
		if (mrs[i] == NULL) {
			fprintf(stderr, "softrnic: mrs[%u]: %s\n", i, rte_strerror(rte_errno));
			return -1;
		}
		/* What a peer outside this process needs to address the MR. */
		printf("mr: name=%s port=%s addr=0x%" PRIxPTR " length=%" PRIu64
		       " lkey=0x%x rkey=0x%x\n", m->name, cfg->ports[m->port_idx].name,
		       (uintptr_t)mr_mem[i], m->size, rnic_mr_lkey(mrs[i]), rnic_mr_rkey(mrs[i]));
	}
	return 0;
}

/* The CQs, then the QPs on them. */
static int
create_cqs_qps(void)
{
	for (unsigned int i = 0; i < cfg->n_cqs; i++) {
		cqs[i] = rnic_create_cq(ports[cfg->cqs[i].port_idx].dev, cfg->cqs[i].depth);
		if (cqs[i] == NULL) {
			fprintf(stderr, "softrnic: cqs[%u]: %s\n", i, rte_strerror(rte_errno));
			return -1;
		}
	}
	for (unsigned int i = 0; i < cfg->n_qps; i++) {
		const struct rnic_cfg_qp *q = &cfg->qps[i];
		struct rnic_qp_init_attr ia = {
			.send_cq = cqs[q->send_cq_idx], .recv_cq = cqs[q->recv_cq_idx],
			.cap = q->cap, .qp_type = q->type, .qp_num = q->qpn,
		};

		qps[i] = rnic_create_qp(ports[q->port_idx].pd, &ia);
		if (qps[i] == NULL) {
			fprintf(stderr, "softrnic: qps[%u] (%s): %s\n", i, q->name,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

/* The QP's DSCP and ECN choice ("ecn": absent, the port's; true, ECT(0)
 * (0x2) whatever the port says) in @p aa. */
static void
qp_tos(const struct rnic_cfg_qp *q, struct rnic_ah_attr *aa)
{
	aa->tos = (uint8_t)(q->dscp << 2 | (q->ecn == 1 ? 0x2 : 0));
	aa->not_ect = q->ecn == 0;
}

/* GID @p idx of port @p port_idx (0: its IPv4 address, then its IPv6
 * ones) as the destination of @p aa, whose dgid is zero. */
static void
cfg_port_gid(unsigned int port_idx, uint8_t idx, struct rnic_ah_attr *aa)
{
	const struct rnic_cfg_port *p = &cfg->ports[port_idx];

	if (idx == 0 || idx > p->n_ipv6)
		aa->dip = p->ipv4;
	else
		memcpy(aa->dgid, p->ipv6[idx - 1], 16);
}

/* RTR of connected QP @p q: its remote (a QP of this configuration or
 * an address), path MTU, PSN and responder resources. @return the mask. */
static int
qp_rtr_attr(const struct rnic_cfg_qp *q, struct rnic_qp_attr *a)
{
	const struct rnic_cfg_remote *r = &q->remote;
	int mask = RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
		   RNIC_QP_RQ_PSN;

	if (q->sr) {
		a->sr = 1;
		mask |= RNIC_QP_SR;
	}

	if (r->qp_idx >= 0) {
		const struct rnic_cfg_qp *pq = &cfg->qps[r->qp_idx];

		rnic_dev_get_addr(ports[pq->port_idx].dev, a->ah_attr.dmac, &a->ah_attr.dip);
		memset(a->ah_attr.dgid, 0, sizeof(a->ah_attr.dgid));
		cfg_port_gid(pq->port_idx, pq->gid_index, &a->ah_attr);
		a->dest_qp_num = rnic_qp_num(qps[r->qp_idx]);
	} else {
		memcpy(a->ah_attr.dmac, r->mac, 6);
		if (r->ipv6)
			memcpy(a->ah_attr.dgid, r->ipv6_addr, 16);
		else
			a->ah_attr.dip = r->ipv4;
		a->dest_qp_num = r->qpn;
	}
	a->ah_attr.sgid_index = q->gid_index;
	if (cfg->ports[q->port_idx].vlan) {
		a->ah_attr.vlan = true;
		a->ah_attr.vlan_tci = (uint16_t)(cfg->ports[q->port_idx].vlan | q->sl << 13);
	}
	qp_tos(q, &a->ah_attr);
	a->path_mtu = q->pmtu;
	a->rq_psn = q->rq_psn;
	a->max_dest_rd_atomic = q->max_dest_rd_atomic;
	a->min_rnr_timer = q->min_rnr_timer;
	if (q->type == RNIC_QPT_RC)
		mask |= RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
	return mask;
}

/* QP @p i through INIT, RTR and RTS, as far as its configured state. */
/* QP @p i is an end of a pair the CM connects (remote.cm_port): the one
 * that connects (@p active) or the one that listens. */
static bool
qp_cm_end(unsigned int i, bool *active)
{
	const struct rnic_cfg_qp *q = &cfg->qps[i];
	const struct rnic_cfg_qp *peer = q->remote.qp_idx >= 0 ? &cfg->qps[q->remote.qp_idx] : NULL;

	*active = peer != NULL && q->remote.cm_port != 0;
	return *active || (peer != NULL && peer->remote.cm_port != 0 &&
			   peer->remote.qp_idx == (int)i);
}

static int
qp_bring_up(unsigned int i)
{
	const struct rnic_cfg_qp *q = &cfg->qps[i];
	struct rnic_qp_attr a = {0};
	bool ud = q->type == RNIC_QPT_UD, rc = q->type == RNIC_QPT_RC, active;
	bool by_cm = qp_cm_end(i, &active);
	int rc_;

	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.pkey = q->pkey;
	a.qkey = q->qkey;
	a.qp_access_flags = q->access;
	rc_ = rnic_modify_qp(qps[i], &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			     (ud ? RNIC_QP_QKEY : RNIC_QP_ACCESS_FLAGS));
	/* A pair the CM connects stops in Init: the CM takes it on (cm_connect). */
	if (rc_ == 0 && q->state >= RNIC_QPS_RTR && !by_cm) {
		a.qp_state = RNIC_QPS_RTR;
		rc_ = rnic_modify_qp(qps[i], &a, ud ? RNIC_QP_STATE : qp_rtr_attr(q, &a));
	}
	if (rc_ == 0 && q->state >= RNIC_QPS_RTS && !by_cm) {
		a.qp_state = RNIC_QPS_RTS;
		a.sq_psn = q->sq_psn;
		a.timeout = q->timeout;
		a.retry_cnt = q->retry_cnt;
		a.rnr_retry = q->rnr_retry;
		a.max_rd_atomic = q->max_rd_atomic;
		rc_ = rnic_modify_qp(qps[i], &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN |
				     (rc ? RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
				      RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC : 0));
	}
	if (rc_ != 0) {
		fprintf(stderr, "softrnic: qps[%u] (%s): cannot reach %s: %s\n", i, q->name,
			rnic_qp_state_str(q->state), strerror(-rc_));
		return -1;
	}
	return 0;
}

/* The CM's parameters from a QP's configuration. */
static void
cm_param(const struct rnic_cfg_qp *q, struct rnic_cm_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = q->max_dest_rd_atomic;
	p->initiator_depth = q->max_rd_atomic;
	p->retry_count = q->retry_cnt;
	p->rnr_retry_count = q->rnr_retry;
	p->path_mtu = (uint8_t)q->pmtu;
}

/*
 * The pairs of qps[].remote.cm_port (issue 21), once the lcores poll the
 * devices: a CM on each port concerned, the listening end listens on the
 * port, the other connects to the listener's address (its port's GID at
 * its gid_index) from its own; each request is accepted with the QP
 * waiting for it. Every pair ESTABLISHED within 10 s, or an error.
 * "cm: pairs=N established" when done.
 */
static int
cm_connect(void)
{
	unsigned int n = 0, est = 0, accepted = 0;
	int *passive = calloc(cfg->n_qps + 1, sizeof(int));
	struct rnic_cm_id **lid = calloc(cfg->n_qps + 1, sizeof(*lid));
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	int rc = -1;

	if (passive == NULL || lid == NULL)
		goto out;
	for (unsigned int i = 0; i < cfg->n_qps; i++) {
		const struct rnic_cfg_qp *q = &cfg->qps[i], *pq;
		struct rnic_cm_param p;
		uint8_t dgid[16];
		bool active;

		passive[i] = -1;
		if (!qp_cm_end(i, &active) || !active)
			continue;
		pq = &cfg->qps[q->remote.qp_idx];
		for (int k = 0; k < 2; k++) {
			struct port_rt *pr = &ports[k ? pq->port_idx : q->port_idx];

			if (pr->cm == NULL && (pr->cm = rnic_cm_create(pr->dev, pr->pd)) == NULL) {
				fprintf(stderr, "softrnic: CM on port %s: %s\n",
					cfg->ports[k ? pq->port_idx : q->port_idx].name,
					rte_strerror(rte_errno));
				goto out;
			}
		}
		lid[i] = rnic_cm_listen(ports[pq->port_idx].cm, q->remote.cm_port);
		if (lid[i] == NULL) {
			fprintf(stderr, "softrnic: %s: cm_port %u: listen on port %s: %s\n", q->name,
				q->remote.cm_port, cfg->ports[pq->port_idx].name,
				rte_strerror(rte_errno));
			goto out;
		}
		passive[i] = q->remote.qp_idx;
		if (rnic_dev_query_gid(ports[pq->port_idx].dev, pq->gid_index, dgid) != 0) {
			fprintf(stderr, "softrnic: %s: no GID %u on port %s\n", q->name,
				pq->gid_index, cfg->ports[pq->port_idx].name);
			goto out;
		}
		cm_param(q, &p);
		if (rnic_cm_connect(ports[q->port_idx].cm, qps[i], dgid, q->gid_index,
				    q->remote.cm_port, &p) == NULL) {
			fprintf(stderr, "softrnic: %s: CM connect: %s\n", q->name,
				rte_strerror(rte_errno));
			goto out;
		}
		n++;
	}
	while (est < 2 * n && !quit) {
		if (rte_get_tsc_cycles() > end) {
			fprintf(stderr, "softrnic: CM: %u of %u ends established after 10 s\n", est,
				2 * n);
			goto out;
		}
		for (unsigned int pi = 0; pi < cfg->n_ports; pi++) {
			struct rnic_cm_event ev;

			while (ports[pi].cm != NULL && rnic_cm_poll(ports[pi].cm, &ev) == 1) {
				if (ev.type == RNIC_CM_EV_ESTABLISHED) {
					est++;
					continue;
				}
				if (ev.type != RNIC_CM_EV_CONNECT_REQUEST) {
					fprintf(stderr, "softrnic: CM: event %d (reason %u) on port %s\n",
						ev.type, ev.reject_reason, cfg->ports[pi].name);
					goto out;
				}
				for (unsigned int i = 0; i < cfg->n_qps; i++) {
					struct rnic_cm_param p;

					if (lid[i] != ev.listen_id || passive[i] < 0)
						continue;
					cm_param(&cfg->qps[passive[i]], &p);
					if (rnic_cm_accept(ev.id, qps[passive[i]], &p) != 0) {
						fprintf(stderr, "softrnic: %s: CM accept failed\n",
							cfg->qps[passive[i]].name);
						goto out;
					}
					accepted++;
					passive[i] = -1;   /* a second request: not for it */
					break;
				}
			}
		}
	}
	printf("cm: pairs=%u established (%u accepted)\n", n, accepted);
	rc = quit ? -1 : 0;
out:
	free(passive);
	free(lid);
	return rc;
}

/* Each port's QPs per worker, "workers: port=p0 workers=2 qps=2,2": QPNs
 * pick the worker (rnic_qp_worker), so this shows how they spread. */
static void
announce_workers(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		unsigned int n[RNIC_CFG_WORKERS_MAX] = {0};
		char line[RNIC_CFG_WORKERS_MAX * 12] = "";
		size_t len = 0;

		for (unsigned int q = 0; q < cfg->n_qps; q++)
			if (cfg->qps[q].port_idx == (int)i)
				n[rnic_qp_worker(qps[q]) % RNIC_CFG_WORKERS_MAX]++;
		for (unsigned int w = 0; w < cfg->ports[i].workers; w++)
			len += snprintf(line + len, sizeof(line) - len, "%s%u", w ? "," : "", n[w]);
		printf("workers: port=%s workers=%u qps=%s\n", cfg->ports[i].name,
		       cfg->ports[i].workers, line);
	}
}

static int
setup_objects(void)
{
	mrs = calloc(cfg->n_mrs + 1, sizeof(*mrs));
	mr_mem = calloc(cfg->n_mrs + 1, sizeof(*mr_mem));
	mr_numa = calloc(cfg->n_mrs + 1, sizeof(*mr_numa));
	cqs = calloc(cfg->n_cqs + 1, sizeof(*cqs));
	qps = calloc(cfg->n_qps + 1, sizeof(*qps));
	if (mrs == NULL || mr_mem == NULL || mr_numa == NULL || cqs == NULL || qps == NULL) {
		fprintf(stderr, "softrnic: out of memory\n");
		return -1;
	}
	if (setup_mrs() != 0 || create_cqs_qps() != 0)
		return -1;
	announce_workers();
	/* Second pass: every QPN is known, bring each QP to its state. */
	for (unsigned int i = 0; i < cfg->n_qps; i++)
		if (cfg->qps[i].state != RNIC_QPS_RESET && qp_bring_up(i) != 0)
			return -1;
	return 0;
}

/* Every worker of every port: what one lcore may poll at most. */
static unsigned int
port_workers_total(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++)
		n += cfg->ports[i].workers;
	return n;
}

/* Add @p roles of worker @p worker of @p dev to what lcore @p rt polls: a
 * (device, worker) it already polls gains the roles, any other takes the
 * next of its slots (one per worker of every port). */
static int
lcore_add(struct lcore_rt *rt, struct rnic_device *dev, unsigned int worker, unsigned int roles)
{
	unsigned int cap = port_workers_total();

	for (unsigned int k = 0; k < rt->n; k++) {
		if (rt->poll[k].dev == dev && rt->poll[k].worker == worker) {
			rt->poll[k].roles |= roles;
			return 0;
		}
	}
	if (rt->poll == NULL) {
		rt->poll = calloc(cap, sizeof(*rt->poll));
		if (rt->poll == NULL) {
			fprintf(stderr, "softrnic: lcores[]: out of memory\n");
			return -1;
		}
	}
	if (rt->n >= cap)   /* each (device, worker) once: cannot happen */
		return -1;
	rt->poll[rt->n++] = (struct lcore_poll){ dev, worker, roles };
	return 0;
}

static void
lcores_free(void)
{
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		free(lcores[lc].poll);
		memset(&lcores[lc], 0, sizeof(lcores[lc]));
	}
}

/* One TX queue per worker (net_pcap with one tx_pcap, "queues": 1...): a
 * worker's TX role's requests and its RX role's responses share it, and a
 * DPDK TX queue has one caller at a time. */
static int
check_shared_txq(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];

		if (!rnic_dev_shared_txq(ports[i].dev))
			continue;
		for (unsigned int w = 0; w < p->workers; w++) {
			const int *l = p->worker_lcore[w];

			if (l[RNIC_CFG_ROLE_TX] == l[RNIC_CFG_ROLE_RX])
				continue;
			fprintf(stderr, "softrnic: lcores[]: port \"%s\" (ports[%u]) worker %u has a "
				"single TX queue, shared by its \"tx\" and \"rx\" roles: they must "
				"be on one lcore, not on lcores %d and %d\n", p->name, i, w,
				l[RNIC_CFG_ROLE_TX], l[RNIC_CFG_ROLE_RX]);
			return -1;
		}
	}
	return 0;
}

/* The lcores[] entries: each (port, worker, roles) on its lcore. */
static int
map_named_lcores(void)
{
	for (unsigned int i = 0; i < cfg->n_lcores; i++) {
		const struct rnic_cfg_lcore *l = &cfg->lcores[i];

		if (!rte_lcore_is_enabled(l->lcore) || l->lcore == (int)rte_get_main_lcore()) {
			fprintf(stderr, "softrnic: lcores[%u].lcore: %d is not an enabled worker "
				"lcore (check the EAL -l/--lcores argument)\n", i, l->lcore);
			return -1;
		}
		if (lcore_add(&lcores[l->lcore], ports[l->port_idx].dev, l->worker, l->roles) != 0)
			return -1;
	}
	return 0;
}

/* Ports nobody named: all roles of each worker on the next lcore, round
 * robin over the EAL's worker lcores. */
static int
map_default_lcores(void)
{
	unsigned int next = rte_get_next_lcore(-1, 1, 0);

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		const int *l0 = p->worker_lcore[0];

		if (l0[0] >= 0 || l0[1] >= 0 || l0[2] >= 0)
			continue;   /* named: every role of every worker placed */
		for (unsigned int w = 0; w < p->workers; w++) {
			if (next >= RTE_MAX_LCORE) {
				fprintf(stderr, "softrnic: no worker lcore left for ports[%u] "
					"(give EAL more lcores, e.g. --lcores=0@0,1@1,2@1)\n", i);
				return -1;
			}
			if (lcore_add(&lcores[next], ports[i].dev, w, RNIC_ROLE_ALL) != 0)
				return -1;
			next = rte_get_next_lcore(next, 1, 1);
		}
	}
	return 0;
}

/* "all", or the roles joined by '+'. */
static const char *
roles_str(unsigned int roles, char *buf, size_t len)
{
	static const char *const names[] = { "tx", "rx", "timer" };
	size_t n = 0;

	if (roles == RNIC_ROLE_ALL)
		return "all";
	buf[0] = '\0';
	for (unsigned int r = 0; r < RTE_DIM(names); r++)
		if (roles & (1u << r))
			n += snprintf(buf + n, len - n, "%s%s", n ? "+" : "", names[r]);
	return buf;
}

/* Lcore @p lc's line: "lcore: id=1 polls=p0/w0:all,p1/w1:tx+rx", and its
 * entries on telemetry's /softrnic/lcores. */
static void
announce_lcore(unsigned int lc)
{
	const struct lcore_rt *rt = &lcores[lc];
	char line[1024], roles[32];
	size_t n = 0;

	for (unsigned int k = 0; k < rt->n; k++) {
		const struct lcore_poll *e = &rt->poll[k];
		unsigned int pi = 0;

		while (ports[pi].dev != e->dev)
			pi++;
		if (n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, "%s%s/w%u:%s", k ? "," : "",
				      cfg->ports[pi].name, e->worker,
				      roles_str(e->roles, roles, sizeof(roles)));
		if (rnic_telemetry_add_worker_lcore(lc, e->dev, e->worker, e->roles) == -ENOSPC)
			fprintf(stderr, "softrnic: telemetry keeps no more lcore entries: lcore "
				"%u %s/w%u not listed\n", lc, cfg->ports[pi].name, e->worker);
		/* An lcore on another NUMA node than its port: say so. */
		{
			struct rnic_app_place pl = {
				.lcore = lc, .lcore_node = (int)rte_lcore_to_socket_id(lc),
				.port = cfg->ports[pi].name, .worker = e->worker,
				.port_node = rte_eth_dev_socket_id(ports[pi].port_id),
			};

			rnic_app_numa_check(&pl, 1, stderr);
		}
	}
	printf("lcore: id=%u polls=%s\n", lc, line);
}

/* The attach server (config "attach"): its socket, and which lcore is
 * the doorbell role of each worker (the one polling its TX role). */
static int
attach_setup(void)
{
	const struct rnic_cfg_attach *at = &cfg->attach;
	struct rnic_attach_limits lim = {
		.max_apps = at->max_apps, .max_pds = at->max_pds, .max_mrs = at->max_mrs,
		.max_mr_bytes = at->max_mr_bytes, .max_cqs = at->max_cqs,
		.max_cqe = at->max_cqe, .max_qps = at->max_qps, .max_ahs = at->max_ahs };
	struct rnic_device **devs;
	const char **names;

	if (!at->present)
		return 0;
	devs = calloc(cfg->n_ports, sizeof(*devs));
	names = calloc(cfg->n_ports, sizeof(*names));
	if (devs == NULL || names == NULL) {
		free(devs);
		free(names);
		return -1;
	}
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		devs[i] = ports[i].dev;
		names[i] = cfg->ports[i].name;
	}
	attach_srv = rnic_attach_server_create(at->socket, devs, names, cfg->n_ports, &lim);
	free(devs);
	free(names);
	if (attach_srv == NULL) {
		fprintf(stderr, "softrnic: attach.socket: cannot listen on %s: %s\n", at->socket,
			strerror(errno));
		return -1;
	}
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		for (unsigned int k = 0; k < lcores[lc].n; k++)
			rnic_attach_server_add_lcore(attach_srv, lc, lcores[lc].poll[k].dev,
						     lcores[lc].poll[k].worker,
						     lcores[lc].poll[k].roles);
	printf("attach: socket=%s max_apps=%u\n", at->socket, at->max_apps);
	return 0;
}

/* What the attach server holds for applications: one line. */
static void
attach_report(void)
{
	struct rnic_att_server_stats st;

	rnic_attach_server_stats(attach_srv, &st);
	printf("attach: apps=%u apps_total=%u apps_died=%u qps=%u mrs=%u cqs=%u pds=%u ahs=%u "
	       "wqes=%" PRIu64 " cqes=%" PRIu64 " requests=%" PRIu64 " violations=%" PRIu64 "\n",
	       st.apps, st.apps_total, st.apps_died, st.qps, st.mrs, st.cqs, st.pds, st.ahs,
	       st.wqes, st.cqes, st.requests, st.violations);
}

/* A clean stop of the attached applications while the lcores still run:
 * their QPs in Error, the flushed completions in their rings. */
static void
attach_stop(void)
{
	if (attach_srv == NULL)
		return;
	rnic_attach_server_stop(attach_srv, cfg->attach.stop_timeout_ms);
}

/* After the lcores stopped: what they held is freed, the socket closed. */
static void
attach_free(void)
{
	if (attach_srv == NULL)
		return;
	attach_report();
	rnic_attach_server_destroy(attach_srv);
	attach_srv = NULL;
}

static int
launch_lcores(void)
{
	if (check_shared_txq() != 0 || map_named_lcores() != 0 || map_default_lcores() != 0 ||
	    attach_setup() != 0)
		return -1;
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		rnic_dev_set_polled(ports[i].dev, true);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		if (lcores[lc].n == 0)
			continue;
		announce_lcore(lc);
		rte_eal_remote_launch(lcore_main, &lcores[lc], lc);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Workload                                                            */
/* ------------------------------------------------------------------ */

struct wl_stats {
	uint64_t messages, bytes, errors;
	uint64_t transmitted;    /* WRs of wait "transmit" entries */
};

static void
print_stats(void)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		struct rnic_dev_stats s;
		const uint64_t *v = (const uint64_t *)&s;
		uint64_t drops = 0;

		rnic_dev_stats_get(ports[i].dev, &s);
		/* Every counter named drop_* (RNIC_DEV_COUNTERS, in order). */
		for (unsigned int k = 0; k < rnic_dev_stat_count; k++)
			if (strncmp(rnic_dev_stat_names[k], "drop_", 5) == 0)
				drops += v[k];
		printf("stats: port=%s tx_pkts=%" PRIu64 " rx_pkts=%" PRIu64 " acks=%" PRIu64
		       "/%" PRIu64 " naks=%" PRIu64 "/%" PRIu64 " retransmits=%" PRIu64
		       " drops=%" PRIu64 " completions=%" PRIu64 " steered=%" PRIu64
		       " rx_ipv6=%" PRIu64 "\n",
		       cfg->ports[i].name, s.tx_pkts, s.rx_pkts, s.acks_sent, s.acks_rcvd,
		       s.naks_sent, s.naks_rcvd, s.tx_retransmits,
		       drops, s.completions, s.rx_steered, s.rx_ipv6);
		if (getenv("SOFTRNIC_STATS")) {
			printf("stats-all: port=%s", cfg->ports[i].name);
			for (unsigned int k = 0; k < rnic_dev_stat_count; k++)
				if (v[k])
					printf(" %s=%" PRIu64, rnic_dev_stat_names[k], v[k]);
			printf("\n");
		}
	}
}

static uint64_t deadline_tsc;

static bool
timed_out(void)
{
	return quit || (deadline_tsc && rte_get_tsc_cycles() > deadline_tsc);
}

/* Wait for one completion on @p cq. */
static int
wait_one(struct rnic_cq *cq, struct rnic_wc *wc)
{
	while (!timed_out()) {
		if (rnic_poll_cq(cq, 1, wc) == 1)
			return 0;
		rte_pause();
	}
	return -ETIMEDOUT;
}

static void
pattern(uint8_t *p, uint32_t len, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1;

	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)xorshift(&s);
}

/* A workload entry's QP, CQs and MRs, and how its messages are checked. */
struct work_ctx {
	const struct rnic_cfg_work *w;
	const struct rnic_cfg_qp *q;
	struct rnic_qp *qp;
	struct rnic_cq *scq;
	uint8_t *lmem, *rmem;
	struct rnic_mr *lmr, *rmr;
	bool atomic;
	/* verified entries: the peer QP and its receive CQ */
	int peer;
	struct rnic_qp *pqp;
	struct rnic_cq *prcq;
	bool needs_recv;          /* the peer consumes a receive per message */
	uint32_t ud_off;          /* the GRH before a UD receive's data */
	uint64_t atomic_start;    /* the remote counter when a size starts */
};

/* What every workload entry has: its QP, send CQ, MRs and opcode. */
static void
work_ctx_base(struct work_ctx *c, const struct rnic_cfg_work *w)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->q = &cfg->qps[w->qp_idx];
	c->qp = qps[w->qp_idx];
	c->scq = cqs[c->q->send_cq_idx];
	c->lmem = mr_mem[w->local_mr_idx];
	c->lmr = mrs[w->local_mr_idx];
	c->rmem = w->remote_mr_idx >= 0 ? mr_mem[w->remote_mr_idx] : NULL;
	c->rmr = w->remote_mr_idx >= 0 ? mrs[w->remote_mr_idx] : NULL;
	c->atomic = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ||
		    w->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

/* A verified entry: its peer QP in this process (UD: a UD QP on the
 * remote MR's port), which must exist where there is something to check. */
static int
work_ctx_peer(struct work_ctx *c)
{
	const struct rnic_cfg_work *w = c->w;
	const struct rnic_cfg_qp *q = c->q;

	c->peer = q->has_remote ? q->remote.qp_idx : -1;
	c->needs_recv = w->opcode == RNIC_WR_SEND || w->opcode == RNIC_WR_SEND_WITH_IMM ||
			w->opcode == RNIC_WR_SEND_WITH_INV ||
			w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM;
	c->ud_off = q->type == RNIC_QPT_UD ? 40 : 0;
	if (q->type == RNIC_QPT_UD) {
		for (unsigned int i = 0; i < cfg->n_qps && c->peer < 0; i++)
			if (cfg->qps[i].type == RNIC_QPT_UD && (int)i != w->qp_idx &&
			    c->rmr != NULL &&
			    cfg->qps[i].port_idx == cfg->mrs[w->remote_mr_idx].port_idx)
				c->peer = (int)i;
		if (c->peer < 0) {
			fprintf(stderr, "softrnic: workload on %s: no UD peer QP\n", q->name);
			return -1;
		}
	}
	c->pqp = c->peer >= 0 ? qps[c->peer] : NULL;
	c->prcq = c->peer >= 0 ? cqs[cfg->qps[c->peer].recv_cq_idx] : NULL;
	if ((c->needs_recv || w->verify) && (c->rmem == NULL || c->pqp == NULL) && !c->atomic) {
		fprintf(stderr, "softrnic: workload on %s: needs a remote_mr and a local peer QP "
			"to verify\n", q->name);
		return -1;
	}
	return 0;
}

/* Message @p i of size index @p si: the data where it starts (a pattern
 * keyed by both) cleared where it lands, and the peer's receive. */
static int
work_prepare(const struct work_ctx *c, unsigned int si, uint32_t size, uint64_t i)
{
	const struct rnic_cfg_work *w = c->w;

	if (!c->atomic) {
		if (w->opcode == RNIC_WR_RDMA_READ) {
			pattern(c->rmem, size, i + si * 7919);
			memset(c->lmem, 0, size);
		} else {
			pattern(c->lmem, size, i + si * 7919);
			if (c->rmem)
				memset(c->rmem, 0, size + c->ud_off);
		}
	}
	if (c->needs_recv) {
		struct rnic_sge rs = { (uintptr_t)c->rmem, size + c->ud_off, rnic_mr_lkey(c->rmr) };
		struct rnic_recv_wr rw = { .wr_id = i, .sg_list = &rs, .num_sge = 1 };
		struct rnic_recv_wr *rbad;

		if (w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)
			rw.num_sge = 0;
		if (rnic_post_recv(c->pqp, &rw, &rbad) != 0)
			return -1;
	}
	return 0;
}

/* The remote side of message @p i: address and key, the MR a send_inv
 * invalidates, the atomic operands, the UD address handle. */
static void
work_remote(const struct work_ctx *c, uint64_t i, struct rnic_send_wr *wr,
	    struct rnic_mr **inv_mr, struct rnic_ah **ah)
{
	const struct rnic_cfg_work *w = c->w;

	wr->imm_data = rte_cpu_to_be_32((uint32_t)i);
	wr->wr.rdma.remote_addr = (uintptr_t)c->rmem;
	wr->wr.rdma.rkey = c->rmr ? rnic_mr_rkey(c->rmr) : 0;
	if (w->opcode == RNIC_WR_SEND_WITH_INV) {
		/* A fresh MR on the peer for each message: the send invalidates it. */
		*inv_mr = rnic_reg_mr(ports[cfg->qps[c->peer].port_idx].pd, c->rmem, 64,
				      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
		wr->invalidate_rkey = rnic_mr_rkey(*inv_mr);
	}
	if (c->atomic) {
		uint64_t cur = c->atomic_start + i;

		wr->wr.atomic.remote_addr = (uintptr_t)c->rmem;
		wr->wr.atomic.rkey = rnic_mr_rkey(c->rmr);
		wr->wr.atomic.compare_add = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? cur : 1;
		wr->wr.atomic.swap = cur + 1;
	}
	if (c->q->type == RNIC_QPT_UD) {
		struct rnic_ah_attr aa = {0};

		rnic_dev_get_addr(ports[cfg->qps[c->peer].port_idx].dev, aa.dmac, &aa.dip);
		memset(aa.dgid, 0, sizeof(aa.dgid));
		cfg_port_gid(cfg->qps[c->peer].port_idx, cfg->qps[c->peer].gid_index, &aa);
		aa.sgid_index = c->q->gid_index;
		qp_tos(c->q, &aa);
		*ah = rnic_create_ah(ports[c->q->port_idx].pd, &aa);
		wr->wr.ud.ah = *ah;
		wr->wr.ud.remote_qpn = rnic_qp_num(c->pqp);
		wr->wr.ud.remote_qkey = cfg->qps[c->peer].qkey;
	}
}

/* The peer's receive completion of message @p i: length, invalidated
 * rkey, immediate data. */
static bool
work_recv_ok(const struct work_ctx *c, uint32_t size, uint64_t i, const struct rnic_mr *inv_mr)
{
	const struct rnic_cfg_work *w = c->w;
	struct rnic_wc rwc;

	return !(wait_one(c->prcq, &rwc) != 0 || rwc.status != RNIC_WC_SUCCESS ||
		 rwc.byte_len != size + c->ud_off ||
		 (w->opcode == RNIC_WR_SEND_WITH_INV &&
		  (!(rwc.wc_flags & RNIC_WC_WITH_INV) ||
		   rwc.invalidated_rkey != rnic_mr_rkey(inv_mr))) ||
		 ((w->opcode == RNIC_WR_SEND_WITH_IMM ||
		   w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM) &&
		  rwc.imm_data != rte_cpu_to_be_32((uint32_t)i)));
}

/* The data of message @p i arrived (an atomic: returned the counter). */
static bool
work_data_ok(const struct work_ctx *c, uint32_t size, uint64_t i)
{
	bool ok;

	if (c->atomic) {
		uint64_t got;

		memcpy(&got, c->lmem, 8);
		return got == c->atomic_start + i;
	}
	if (c->w->opcode == RNIC_WR_RDMA_READ)
		return memcmp(c->lmem, c->rmem, size) == 0;
	ok = memcmp(c->lmem, c->rmem + c->ud_off, size) == 0;
	/* UC completes on transmit, before the data lands:
	 * give delivery a bounded time. */
	for (uint64_t t = rte_get_tsc_cycles() + rte_get_tsc_hz();
	     !ok && c->q->type == RNIC_QPT_UC && rte_get_tsc_cycles() < t; rte_pause())
		ok = memcmp(c->lmem, c->rmem + c->ud_off, size) == 0;
	return ok;
}

/* Message @p i of size index @p si, posted, completed and checked.
 * -1 ends the entry. */
static int
work_message(struct work_ctx *c, struct wl_stats *ws, unsigned int si, uint32_t size,
	     uint64_t i)
{
	const struct rnic_cfg_work *w = c->w;
	struct rnic_sge sge = { (uintptr_t)c->lmem, size, rnic_mr_lkey(c->lmr) };
	struct rnic_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = size ? 1 : 0,
		.opcode = w->opcode, .send_flags = RNIC_SEND_SIGNALED,
	};
	struct rnic_send_wr *bad;
	struct rnic_mr *inv_mr = NULL;
	struct rnic_ah *ah = NULL;
	struct rnic_wc wc;
	int rc;

	if (w->inline_data)
		wr.send_flags |= RNIC_SEND_INLINE;
	if (work_prepare(c, si, size, i) != 0) {
		ws->errors++;
		return -1;
	}
	work_remote(c, i, &wr, &inv_mr, &ah);
	rc = rnic_post_send(c->qp, &wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "softrnic: %s: post_send: %s\n", c->q->name, strerror(-rc));
		ws->errors++;
		return -1;
	}
	if (wait_one(c->scq, &wc) != 0 || wc.status != RNIC_WC_SUCCESS) {
		fprintf(stderr, "softrnic: %s %s size %u #%" PRIu64 ": %s\n", c->q->name,
			rnic_cfg_opcode_name(w->opcode), size, i,
			timed_out() ? "timed out" : rnic_wc_status_str(wc.status));
		ws->errors++;
		return -1;
	}
	if (c->needs_recv && !work_recv_ok(c, size, i, inv_mr)) {
		fprintf(stderr, "softrnic: %s %s size %u #%" PRIu64 ": bad receive completion\n",
			c->q->name, rnic_cfg_opcode_name(w->opcode), size, i);
		ws->errors++;
	}
	if (inv_mr)
		rnic_dereg_mr(inv_mr);
	if (ah)
		rnic_destroy_ah(ah);
	if (w->verify && !work_data_ok(c, size, i)) {
		fprintf(stderr, "softrnic: %s %s size %u #%" PRIu64 ": data mismatch\n",
			c->q->name, rnic_cfg_opcode_name(w->opcode), size, i);
		ws->errors++;
	}
	ws->messages++;
	ws->bytes += size;
	return 0;
}

/* A verified atomic entry with a count: the counter moved by that much. */
static void
work_check_counter(const struct work_ctx *c, struct wl_stats *ws)
{
	const struct rnic_cfg_work *w = c->w;
	uint64_t fin;

	if (!c->atomic || !w->verify || c->rmem == NULL)
		return;
	memcpy(&fin, c->rmem, 8);
	if (fin != c->atomic_start + (w->count ? w->count : 0) && w->count) {
		fprintf(stderr, "softrnic: %s: final atomic value %" PRIu64 " want %" PRIu64 "\n",
			c->q->name, fin, c->atomic_start + w->count);
		ws->errors++;
	}
}

/* A workload entry whose peer is in this process: every message waited
 * for and checked, for count messages or duration_ms per size. */
static int
run_work(const struct rnic_cfg_work *w, struct wl_stats *ws)
{
	struct work_ctx c;

	work_ctx_base(&c, w);
	if (work_ctx_peer(&c) != 0)
		return -1;
	for (unsigned int si = 0; si < w->n_sizes; si++) {
		uint32_t size = c.atomic ? 8 : w->sizes[si];
		uint64_t count = w->count ? w->count : UINT64_MAX;
		uint64_t end_tsc = w->duration_ms ?
			rte_get_tsc_cycles() + rte_get_tsc_hz() * w->duration_ms / 1000 : 0;

		c.atomic_start = 0;
		if (c.atomic && c.rmem)
			memcpy(&c.atomic_start, c.rmem, 8);
		for (uint64_t i = 0; i < count; i++) {
			if (end_tsc && rte_get_tsc_cycles() > end_tsc)
				break;
			if (timed_out()) {
				ws->errors++;
				return -1;
			}
			if (work_message(&c, ws, si, size, i) != 0)
				return -1;
		}
		work_check_counter(&c, ws);
	}
	return 0;
}

/*
 * Wait until the engine has transmitted every WR posted on @p qp: none is
 * left in the send queue and the device's software TX buffers are empty,
 * so every packet went through rte_eth_tx_burst. A QP that makes no
 * progress for a second is stuck (RC send window or max_rd_atomic full,
 * with no peer to acknowledge).
 */
static int
wait_transmitted(const char *name, struct rnic_device *dev, struct rnic_qp *qp)
{
	uint64_t hz = rte_get_tsc_hz(), stuck_at = rte_get_tsc_cycles() + hz;
	int last = -1;

	for (;;) {
		int pending = rnic_qp_sq_pending(qp);
		unsigned int backlog = rnic_dev_tx_backlog(dev);

		if (pending == 0 && backlog == 0)
			return 0;
		if (pending != last) {
			last = pending;
			stuck_at = rte_get_tsc_cycles() + hz;
		}
		if (timed_out() || rte_get_tsc_cycles() > stuck_at) {
			fprintf(stderr, "softrnic: %s: %s with %d WRs not transmitted and %u packets "
				"buffered%s\n", name, timed_out() ? "timed out" : "stuck", pending,
				backlog, pending ? " (with no peer, RC stops at its send window or "
				"max_rd_atomic)" : "");
			return -ETIMEDOUT;
		}
		rte_pause();
	}
}

/* The address handle of a UD QP's configured remote. */
static struct rnic_ah *
transmit_ah(const struct rnic_cfg_qp *q)
{
	struct rnic_ah_attr aa = {0};
	struct rnic_ah *ah;

	memcpy(aa.dmac, q->remote.mac, 6);
	if (q->remote.ipv6)
		memcpy(aa.dgid, q->remote.ipv6_addr, 16);
	else
		aa.dip = q->remote.ipv4;
	aa.sgid_index = q->gid_index;
	if (cfg->ports[q->port_idx].vlan) {
		aa.vlan = true;
		aa.vlan_tci = (uint16_t)(cfg->ports[q->port_idx].vlan | q->sl << 13);
	}
	qp_tos(q, &aa);
	ah = rnic_create_ah(ports[q->port_idx].pd, &aa);
	if (ah == NULL)
		fprintf(stderr, "softrnic: %s: create_ah: %s\n", q->name, rte_strerror(rte_errno));
	return ah;
}

/* WR number @p n of the run's transmit entries (see run_work_transmit). */
static void
transmit_fill_wr(const struct work_ctx *c, struct rnic_ah *ah, uint64_t n,
		 struct rnic_send_wr *wr)
{
	const struct rnic_cfg_work *w = c->w;

	if (w->inline_data)
		wr->send_flags |= RNIC_SEND_INLINE;
	if (w->opcode == RNIC_WR_SEND_WITH_INV)
		wr->invalidate_rkey = c->rmr ? rnic_mr_rkey(c->rmr) : 0;
	else
		wr->imm_data = rte_cpu_to_be_32((uint32_t)n);
	if (c->atomic) {
		wr->wr.atomic.remote_addr = (uintptr_t)c->rmem;
		wr->wr.atomic.rkey = rnic_mr_rkey(c->rmr);
		wr->wr.atomic.compare_add = w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? n : 1;
		wr->wr.atomic.swap = n + 1;
	} else if (c->q->type == RNIC_QPT_UD) {
		wr->wr.ud.ah = ah;
		wr->wr.ud.remote_qpn = c->q->remote.qpn;
		wr->wr.ud.remote_qkey = c->q->qkey;
	} else {
		wr->wr.rdma.remote_addr = (uintptr_t)c->rmem;
		wr->wr.rdma.rkey = c->rmr ? rnic_mr_rkey(c->rmr) : 0;
	}
}

/* Post WR @p i of the entry's size @p size; UC and UD wait for its
 * completion. 0, or a negative errno. */
static int
transmit_one(const struct work_ctx *c, struct rnic_ah *ah, struct wl_stats *ws, uint32_t size,
	     uint64_t i)
{
	const struct rnic_cfg_work *w = c->w;
	bool on_transmit = c->q->type != RNIC_QPT_RC;   /* UC/UD complete on transmit */
	uint64_t n = ws->transmitted;
	struct rnic_sge sge = { (uintptr_t)c->lmem, size, rnic_mr_lkey(c->lmr) };
	struct rnic_send_wr wr = {
		.wr_id = n, .sg_list = &sge, .num_sge = size ? 1 : 0, .opcode = w->opcode,
		.send_flags = on_transmit ? RNIC_SEND_SIGNALED : 0,
	};
	struct rnic_send_wr *bad;
	struct rnic_wc wc;
	int rc;

	if (timed_out())
		return -ETIMEDOUT;
	transmit_fill_wr(c, ah, n, &wr);
	rc = rnic_post_send(c->qp, &wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "softrnic: %s: post_send: %s%s\n", c->q->name, strerror(-rc),
			rc == -ENOMEM ? " (send queue full: with no peer, RC WRs "
			"never complete)" : "");
		return rc;
	}
	ws->transmitted++;
	if (on_transmit &&
	    (wait_one(c->scq, &wc) != 0 || wc.status != RNIC_WC_SUCCESS || wc.wr_id != n)) {
		fprintf(stderr, "softrnic: %s %s size %u #%" PRIu64 ": %s\n", c->q->name,
			rnic_cfg_opcode_name(w->opcode), size, i,
			timed_out() ? "timed out" : rnic_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

/*
 * A workload entry with wait "transmit": the peer is outside this process
 * and may not exist (a capture port). RC WRs are posted unsignaled and
 * never waited for: nothing may acknowledge them (give such a QP timeout 0,
 * the infinite local ACK timeout, or it retransmits and finally fails with
 * RETRY_EXC_ERR). UC and UD complete on transmit and each completion is
 * checked. The entry ends when the engine has transmitted everything.
 *
 * What goes out (config/README.md): the local MR as it is, from offset 0
 * (no pattern is written, so payloads are its fill). WR number n of the
 * run (counting transmit entries only) has wr_id n and immediate data n;
 * cmp_swap compares with n and swaps in n + 1, fetch_add adds 1; send_inv
 * invalidates the remote MR's rkey; the remote MR's address and rkey stand
 * for the peer's buffer; a UD QP sends to its remote with its own qkey.
 */
static int
run_work_transmit(const struct rnic_cfg_work *w, struct wl_stats *ws)
{
	struct work_ctx c;
	struct rnic_ah *ah = NULL;
	int rc = 0;

	work_ctx_base(&c, w);
	if (c.q->type == RNIC_QPT_UD) {
		ah = transmit_ah(c.q);
		if (ah == NULL) {
			ws->errors++;
			return -1;
		}
	}
	for (unsigned int si = 0; si < w->n_sizes && rc == 0; si++) {
		uint32_t size = c.atomic ? 8 : w->sizes[si];

		for (uint64_t i = 0; i < w->count && rc == 0; i++)
			rc = transmit_one(&c, ah, ws, size, i);
	}
	if (rc == 0)
		rc = wait_transmitted(c.q->name, ports[c.q->port_idx].dev, c.qp);
	if (ah)
		rnic_destroy_ah(ah);
	if (rc != 0) {
		ws->errors++;
		return -1;
	}
	return 0;
}

/* One side of the soak: the QP, its peer, and MRs of their own. */
static int
soak_side(int qi, uint32_t depth, struct soak_side *sd, uint8_t **mem)
{
	const struct rnic_cfg_qp *q = &cfg->qps[qi];
	int pi = q->remote.qp_idx;
	const struct rnic_cfg_qp *pq = &cfg->qps[pi];
	uint64_t size = soak_mr_size(depth);
	const int all = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;

	memset(sd, 0, sizeof(*sd));
	if (posix_memalign((void **)&mem[0], 4096, size) != 0 ||
	    posix_memalign((void **)&mem[1], 4096, size) != 0)
		return -1;
	memset(mem[0], 0, size);
	memset(mem[1], 0, size);
	sd->dev = ports[q->port_idx].dev;
	sd->peer_dev = ports[pq->port_idx].dev;
	sd->qp = qps[qi];
	sd->peer = qps[pi];
	sd->scq = cqs[q->send_cq_idx];
	sd->peer_rcq = cqs[pq->recv_cq_idx];
	sd->lmem = mem[0];
	sd->rmem = mem[1];
	sd->lmr = rnic_reg_mr(ports[q->port_idx].pd, mem[0], size, all);
	sd->rmr = rnic_reg_mr(ports[pq->port_idx].pd, mem[1], size, all);
	sd->recv_off = (uint64_t)depth * SOAK_MAX_SIZE;
	sd->counter_off = 2 * (uint64_t)depth * SOAK_MAX_SIZE;
	return sd->lmr && sd->rmr ? 0 : -1;
}

static int
run_soak(char *line, size_t len)
{
	const struct rnic_cfg_soak *k = &cfg->soak;
	struct soak_common c = {
		.messages = k->messages, .max_size = k->max_size, .depth = k->depth,
		.seed = k->seed, .timeout_s = k->timeout_s,
	};
	struct soak_side clean, imp;
	uint8_t *mem[4] = {0};
	int rc = -1;

	if (soak_side(k->baseline_qp_idx, k->depth, &clean, &mem[0]) == 0 &&
	    soak_side(k->qp_idx, k->depth, &imp, &mem[2]) == 0)
		rc = rnic_soak_run(&clean, &imp, &c, &quit, line, len);
	else
		snprintf(line, len, "soak: cannot set up the MRs");
	stop_lcores();
	rnic_dereg_mr(clean.lmr);
	rnic_dereg_mr(clean.rmr);
	rnic_dereg_mr(imp.lmr);
	rnic_dereg_mr(imp.rmr);
	for (int i = 0; i < 4; i++)
		free(mem[i]);
	return rc;
}

/* Everything setup_ports and setup_objects made, however far they got:
 * the devices (each frees its QPs, CQs, MRs and PDs), the MRs' memory and
 * the arrays. The lcores must have stopped. */
static void
free_objects(void)
{
	for (unsigned int i = 0; ports != NULL && i < cfg->n_ports; i++) {
		rnic_cm_destroy(ports[i].cm);   /* its QP1 before the device */
		rnic_dev_destroy(ports[i].dev);
	}
	for (unsigned int i = 0; mr_mem != NULL && i < cfg->n_mrs; i++)
		rnic_app_numa_free(mr_mem[i], cfg->mrs[i].size, mr_numa[i]);
	free(mr_mem);
	free(mr_numa);
	mr_numa = NULL;
	free(mrs);
	free(cqs);
	free(qps);
	free(ports);
	mr_mem = NULL;
	mrs = NULL;
	cqs = NULL;
	qps = NULL;
	ports = NULL;
}

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s --config FILE\n"
		"       %s [EAL args] -- --config FILE\n", prog, prog);
}

/* "softrnic --config FILE": the configuration, and the EAL arguments
 * from it in a new *eal_argv. */
static int
config_eal_args(char **argv, int *eal_argc, char ***eal_argv)
{
	const char *path = argv[2];
	char err[512];

	cfg = rnic_config_load_file(path, err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "softrnic: %s: %s\n", path, err);
		return -1;
	}
	*eal_argc = (int)cfg->eal_argc + 1;
	*eal_argv = calloc(*eal_argc + 1, sizeof(char *));
	(*eal_argv)[0] = argv[0];
	for (unsigned int i = 0; i < cfg->eal_argc; i++)
		(*eal_argv)[i + 1] = cfg->eal_argv[i];
	return 0;
}

/* "softrnic [EAL args] -- --config FILE": the arguments after EAL's.
 * 0, or the exit status. */
static int
config_from_args(int argc, char **argv)
{
	const char *path = NULL;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			path = argv[++i];
	}
	if (path == NULL) {
		usage(argv[0]);
		return 2;
	}
	cfg = rnic_config_load_file(path, err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "softrnic: %s: %s\n", path, err);
		return 1;
	}
	return 0;
}

/* Setup failed: stop the lcores launched and free everything. The exit
 * status. */
static int
setup_failed(char **eal_argv, bool eal_from_cfg)
{
	stop_lcores();
	attach_free();
	rnic_app_capture_uninit();
	free_objects();
	lcores_free();
	rnic_config_free(cfg);
	cfg = NULL;
	rte_eal_cleanup();
	if (eal_from_cfg)
		free(eal_argv);
	return interrupted ? report_interrupted() : 1;
}

/* The workload entries in order, until a signal. @return how many were
 * wait "transmit" entries. */
static unsigned int
run_workloads(struct wl_stats *ws)
{
	unsigned int n_transmit = 0;

	for (unsigned int i = 0; i < cfg->n_work && !quit; i++) {
		const struct rnic_cfg_work *w = &cfg->work[i];
		uint64_t before = ws->messages, tx_before = ws->transmitted;
		uint64_t errs = ws->errors;

		if (w->wait == RNIC_CFG_WAIT_TRANSMIT) {
			n_transmit++;
			run_work_transmit(w, ws);
			printf("workload: qp=%s opcode=%s transmitted=%" PRIu64 " errors=%" PRIu64
			       "\n", cfg->qps[w->qp_idx].name, rnic_cfg_opcode_name(w->opcode),
			       ws->transmitted - tx_before, ws->errors - errs);
			continue;
		}
		run_work(w, ws);
		printf("workload: qp=%s opcode=%s messages=%" PRIu64 " errors=%" PRIu64 "\n",
		       cfg->qps[w->qp_idx].name, rnic_cfg_opcode_name(w->opcode),
		       ws->messages - before, ws->errors - errs);
	}
	return n_transmit;
}

/* The soak, the counters, the workloads' result (they ran before it) and
 * the soak's result line (the last). The exit status. */
static int
soak(const struct wl_stats *ws)
{
	char line[256] = "soak: not run";
	int status;

	phase = "soak";
	status = run_soak(line, sizeof(line)) == 0 ? 0 : 1;
	print_stats();
	if (cfg->n_work) {
		printf("verified: messages=%" PRIu64 " bytes=%" PRIu64 " errors=%" PRIu64 "\n",
		       ws->messages, ws->bytes, ws->errors);
		if (ws->errors)
			status = 1;
	}
	printf("%s\n", line);
	return status;
}

/* Until SIGINT or SIGTERM, the counters every stats_interval_ms. */
static void
serve(void)
{
	uint64_t next = rte_get_tsc_cycles();

	/* From here a signal is the normal stop. */
	__atomic_store_n(&serving, 1, __ATOMIC_SEQ_CST);
	if (!quit)
		printf("softrnic: serving until stopped (SIGINT or SIGTERM)\n");
	while (!quit) {
		if (cfg->options.stats_interval_ms && rte_get_tsc_cycles() >= next) {
			print_stats();
			if (attach_srv != NULL)
				attach_report();
			next = rte_get_tsc_cycles() +
			       rte_get_tsc_hz() * cfg->options.stats_interval_ms / 1000;
		}
		if (attach_srv != NULL)
			rnic_attach_server_serve(attach_srv, 10);
		else
			rte_delay_ms(10);
	}
}


/* With the lcores stopped: the counters and the workloads' result lines.
 * The exit status. */
static int
report_workloads(const struct wl_stats *ws, unsigned int n_transmit)
{
	print_stats();
	if (cfg->n_work > n_transmit) {
		printf("verified: messages=%" PRIu64 " bytes=%" PRIu64 " errors=%" PRIu64 "\n",
		       ws->messages, ws->bytes, ws->errors);
	}
	if (n_transmit)   /* the last line: what a capture must hold */
		printf("transmitted: wrs=%" PRIu64 "\n", ws->transmitted);
	if (cfg->n_work)
		return ws->errors ? 1 : 0;
	return 0;
}

int
main(int argc, char **argv)
{
	char **eal_argv = argv;
	int eal_argc = argc, rc, status;
	struct wl_stats ws = {0};
	unsigned int n_transmit;
	bool eal_from_cfg = argc >= 3 && strcmp(argv[1], "--config") == 0;

	/* Line by line, also into a pipe: a supervisor (or a test) reads
	 * the "mr:" and "softrnic: ... up" lines while the daemon runs. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* "softrnic --config FILE": the EAL arguments come from the file. */
	if (eal_from_cfg && config_eal_args(argv, &eal_argc, &eal_argv) != 0)
		return 1;
	rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "softrnic: EAL init failed: %s\n", rte_strerror(rte_errno));
		rnic_config_free(cfg);
		cfg = NULL;
		if (eal_from_cfg)
			free(eal_argv);
		return 1;
	}
	/* dpdk-dumpcap / dpdk-pdump attach as secondaries when they can. */
	rnic_app_capture_init(softrnic_logtype, "softrnic");
	if (!eal_from_cfg) {
		status = config_from_args(argc - rc, argv + rc);
		if (status != 0)
			return status;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup_ports() != 0 || setup_objects() != 0 || launch_lcores() != 0 ||
	    cm_connect() != 0)
		return setup_failed(eal_argv, eal_from_cfg);
	if (!quit)
		phase = "workload";
	printf("softrnic: %u ports, %u QPs up\n", cfg->n_ports, cfg->n_qps);
	deadline_tsc = cfg->options.timeout_s ?
		rte_get_tsc_cycles() + rte_get_tsc_hz() * cfg->options.timeout_s : 0;
	n_transmit = run_workloads(&ws);
	if (cfg->soak.present && !quit) {
		status = soak(&ws);
		attach_stop();
		stop_lcores();
		attach_free();
	} else {
		if (cfg->n_work == 0 || !cfg->options.exit_when_done)
			serve();
		attach_stop();
		stop_lcores();
		attach_free();
		status = report_workloads(&ws, n_transmit);
	}
	if (interrupted)
		status = report_interrupted();
	free_objects();
	lcores_free();
	rnic_config_free(cfg);
	rnic_app_capture_uninit();
	rte_eal_cleanup();
	if (eal_from_cfg)
		free(eal_argv);
	return status;
}
