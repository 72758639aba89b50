/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine inside the program's process (doc/ibverbs.md): the JSON
 * configuration named by SOFTRNIC_CONFIG (default
 * /etc/softrnic/ibverbs.json) gives the EAL arguments and the ports; the
 * first ibv_open_device initialises EAL, creates one rnic_device per port
 * and starts the pollers; the last ibv_close_device stops them and frees
 * the devices. EAL itself stays up until the process exits (DPDK 22.11
 * cannot initialise it twice).
 *
 * Attached (SOFTRNIC_ATTACH=SOCKET, issue 20): no configuration, no EAL,
 * no engine here: the devices are a running softrnic daemon's ports
 * (lib/attach), found when the device list is first asked for and kept
 * while a context is open; the poller thread only fires completion
 * events and pumps async events.
 *
 * Pollers: each lcore the configuration's "lcores" names runs its
 * (port, worker, roles); one poller thread (a registered non-EAL thread)
 * runs every role no lcore takes, and the completion events of armed
 * CQs. The program's own threads keep the CPU affinity they had:
 * rte_eal_init pins the calling thread to the main lcore, which is undone.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_spinlock.h>

#include "rnic_attach.h"
#include "rnic_config.h"
#include "rnic_engine.h"
#include "sib.h"

#define SIB_DEFAULT_CONFIG "/etc/softrnic/ibverbs.json"
#define SIB_MAX_POLL 256
#define SIB_LINK_WAIT_MS 10000
#define SIB_ARP_WAIT_MS 3000

struct sib_poll {
	struct rnic_device *dev;
	unsigned int worker, roles;
};

struct sib_plan {
	unsigned int n;
	struct sib_poll p[SIB_MAX_POLL];
};

static struct {
	pthread_once_t once;
	struct rnic_config *cfg;      /* NULL: no usable configuration */
	pthread_mutex_t lock;         /* start/stop, ARP (one control thread) */
	bool eal_up, eal_failed;
	unsigned int refs;
	uint16_t *port_id;
	struct rnic_device **dev;
	/* pollers */
	pthread_t thread;
	bool thread_running;
	uint32_t stop;
	struct sib_plan thread_plan;
	struct sib_plan *lcore_plan;  /* [RTE_MAX_LCORE] */
	/* the poller thread's plan: it, or a program thread polling an empty
	 * CQ (sib_engine_help), runs it; one at a time */
	rte_spinlock_t plan_lock;
	bool plan_running;
	/* completion events */
	rte_spinlock_t nlock;
	uint32_t n_armed;
	unsigned int armed_cap;
	struct sib_cq **armed;
	/* attached (SOFTRNIC_ATTACH): the daemon's socket, its ports as
	 * listed when first asked (names, addresses), the devices while
	 * open (refs > 0) */
	const char *attach;
	unsigned int att_ports;
	char att_name[RNIC_ATT_MAX_PORTS][32];
	uint8_t att_mac[RNIC_ATT_MAX_PORTS][6];
	uint32_t att_ip[RNIC_ATT_MAX_PORTS];
	uint16_t att_vlan[RNIC_ATT_MAX_PORTS];
	struct rnic_device *att_dev[RNIC_ATT_MAX_PORTS];
} eng = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.nlock = RTE_SPINLOCK_INITIALIZER,
	.plan_lock = RTE_SPINLOCK_INITIALIZER,
};

/* Attach to the daemon: its ports as devices in eng.att_dev. */
static int
attach_open(void)
{
	unsigned int n;
	int rc = rnic_attach_open(eng.attach, eng.att_dev, RNIC_ATT_MAX_PORTS, &n);

	if (rc != 0) {
		fprintf(stderr, "softrnic ibverbs: SOFTRNIC_ATTACH=%s: cannot attach: %s "
			"(is the daemon running? doc/ibverbs.md \"Attached\")\n", eng.attach,
			strerror(-rc));
		return rc;
	}
	if (eng.att_ports == 0) {   /* the first time: the list the program sees */
		for (unsigned int i = 0; i < n; i++) {
			struct rnic_dev_attr a;

			snprintf(eng.att_name[i], sizeof(eng.att_name[i]), "%s",
				 rnic_attach_port_name(eng.att_dev[i]));
			rnic_dev_get_addr(eng.att_dev[i], eng.att_mac[i], &eng.att_ip[i]);
			rnic_dev_get_attr(eng.att_dev[i], &a);
			eng.att_vlan[i] = a.vlan;
		}
		eng.att_ports = n;
	} else if (n != eng.att_ports) {
		fprintf(stderr, "softrnic ibverbs: the daemon at %s has %u ports now, %u "
			"before\n", eng.attach, n, eng.att_ports);
	}
	return 0;
}

static void
attach_close(void)
{
	for (unsigned int i = 0; i < RNIC_ATT_MAX_PORTS; i++)
		if (eng.att_dev[i] != NULL) {
			rnic_dev_destroy(eng.att_dev[i]);
			eng.att_dev[i] = NULL;
		}
}

static void
load_config(void)
{
	const char *path = getenv("SOFTRNIC_CONFIG");
	char err[512];

	eng.attach = getenv("SOFTRNIC_ATTACH");
	if (eng.attach != NULL && eng.attach[0] != '\0') {
		/* The ports are listed now; the devices stay open until the
		 * program opens and closes a context (or exits). */
		if (attach_open() == 0)
			eng.refs = 0;
		return;
	}
	eng.attach = NULL;
	if (path == NULL || path[0] == '\0')
		path = SIB_DEFAULT_CONFIG;
	eng.cfg = rnic_config_load_file(path, err, sizeof(err));
	if (eng.cfg == NULL) {
		fprintf(stderr, "softrnic ibverbs: no devices: configuration %s: %s (set "
			"SOFTRNIC_CONFIG to a softrnic JSON file; doc/ibverbs.md)\n", path, err);
		return;
	}
	if (eng.cfg->n_ports == 0) {
		fprintf(stderr, "softrnic ibverbs: no devices: %s has no ports\n", path);
		rnic_config_free(eng.cfg);
		eng.cfg = NULL;
	}
}

unsigned int
sib_engine_ports(void)
{
	pthread_once(&eng.once, load_config);
	if (eng.attach != NULL)
		return eng.att_ports;
	return eng.cfg != NULL ? eng.cfg->n_ports : 0;
}

const char *
sib_engine_port_name(unsigned int idx)
{
	if (eng.attach != NULL)
		return eng.att_name[idx];
	return eng.cfg->ports[idx].name;
}

void
sib_engine_port_addr(unsigned int idx, uint8_t mac[6], uint32_t *ipv4_be, uint16_t *vlan)
{
	const struct rnic_cfg_port *p;

	if (eng.attach != NULL) {
		memcpy(mac, eng.att_mac[idx], 6);
		*ipv4_be = eng.att_ip[idx];
		*vlan = eng.att_vlan[idx];
		return;
	}
	p = &eng.cfg->ports[idx];
	memset(mac, 0, 6);
	if (p->has_mac)
		memcpy(mac, p->mac, 6);
	*ipv4_be = p->ipv4;
	*vlan = p->vlan;
}

/* ------------------------------------------------------------------ */
/* EAL and ports                                                       */
/* ------------------------------------------------------------------ */

static int
eal_start(void)
{
	struct rnic_config *cfg = eng.cfg;
	char **argv = calloc(cfg->eal_argc + 2, sizeof(char *));
	cpu_set_t saved;
	bool have_aff;
	int rc;

	if (argv == NULL)
		return -ENOMEM;
	argv[0] = (char *)"softrnic-ibverbs";
	for (unsigned int i = 0; i < cfg->eal_argc; i++)
		argv[i + 1] = cfg->eal_argv[i];
	have_aff = pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) == 0;
	rc = rte_eal_init((int)cfg->eal_argc + 1, argv);
	if (have_aff)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	free(argv);     /* EAL keeps pointers to the strings, not the array */
	if (rc < 0) {
		fprintf(stderr, "softrnic ibverbs: EAL initialisation failed: %s (the \"eal\" "
			"arguments of the configuration)\n", rte_strerror(rte_errno));
		return -ENODEV;
	}
	return 0;
}

static int
ports_create(void)
{
	struct rnic_config *cfg = eng.cfg;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];

		if (p->ring_peer_idx >= 0 && (unsigned int)p->ring_peer_idx < i) {
			int rc = rnic_port_ring_pair_n(cfg->ports[p->ring_peer_idx].name, p->name,
						       4096, p->workers,
						       &eng.port_id[p->ring_peer_idx],
						       &eng.port_id[i]);
			if (rc != 0) {
				fprintf(stderr, "softrnic ibverbs: ports[%u]: ring pair: %s\n", i,
					strerror(-rc));
				return rc;
			}
		}
	}
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		char name[RNIC_CFG_DEVICE_MAX + 64], args[RNIC_CFG_DEVICE_MAX + 64], *comma;

		if (p->impair[0] != '\0') {
			snprintf(name, sizeof(name), "net_impair_%s", p->name);
			snprintf(args, sizeof(args), "port=net_ring_%s,%s", p->name, p->impair);
			if (rte_vdev_init(name, args) != 0 ||
			    rte_eth_dev_get_port_by_name(name, &eng.port_id[i]) != 0) {
				fprintf(stderr, "softrnic ibverbs: ports[%u].impair: net_impair "
					"rejected \"%s\"\n", i, p->impair);
				return -EINVAL;
			}
		} else if (p->ring_peer_idx < 0) {
			snprintf(name, sizeof(name), "%s", p->device);
			comma = strchr(name, ',');
			if (comma != NULL)
				*comma = '\0';
			if (rte_eth_dev_get_port_by_name(name, &eng.port_id[i]) != 0) {
				fprintf(stderr, "softrnic ibverbs: ports[%u].device: no DPDK port "
					"named \"%s\" (add --vdev=%s to \"eal\")\n", i, name,
					p->device);
				return -ENODEV;
			}
		}
	}
	return 0;
}

static int
devices_create(void)
{
	struct rnic_config *cfg = eng.cfg;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];
		struct rnic_dev_attr a = {
			.port_id = eng.port_id[i], .ipv4 = p->ipv4, .max_qps = p->max_qps,
			.max_mrs = p->max_mrs, .max_cqs = p->max_cqs, .mbufs = p->mbufs,
			.ring_size = p->ring_size, .burst = p->burst, .queues = p->queues,
			.workers = p->workers, .max_inflight = p->max_inflight,
			.no_ecn = !p->ecn, .cnp_dscp = p->cnp_dscp,
			.cnp_interval_us = p->cnp_interval_us, .no_dcqcn = !p->dcqcn_on,
			.dcqcn = p->dcqcn, .vlan = p->vlan, .mtu = p->mtu,
			.n_ipv6 = p->n_ipv6,
		};

		memcpy(a.ipv6, p->ipv6, sizeof(a.ipv6));
		if (p->has_mac)
			memcpy(a.mac, p->mac, 6);
		eng.dev[i] = rnic_dev_create(&a);
		if (eng.dev[i] == NULL) {
			fprintf(stderr, "softrnic ibverbs: ports[%u] (%s): device: %s\n", i, p->name,
				rte_strerror(rte_errno));
			return -ENODEV;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pollers and completion events                                       */
/* ------------------------------------------------------------------ */

static void
channel_fire(struct sib_cq *cq)
{
	struct sib_channel *ch = cq->chan;
	uint64_t one = 1;

	pthread_mutex_lock(&ch->lock);
	if (ch->n == ch->cap) {
		unsigned int cap = ch->cap ? 2 * ch->cap : 16;
		struct sib_cq **f = malloc(cap * sizeof(*f));

		if (f == NULL) {
			pthread_mutex_unlock(&ch->lock);
			return;    /* the CQ stays armed: fired again next pass */
		}
		for (unsigned int i = 0; i < ch->n; i++)
			f[i] = ch->fired[(ch->head + i) % ch->cap];
		free(ch->fired);
		ch->fired = f;
		ch->cap = cap;
		ch->head = 0;
	}
	ch->fired[(ch->head + ch->n) % ch->cap] = cq;
	ch->n++;
	pthread_mutex_unlock(&ch->lock);
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		return;    /* eventfd at its maximum: the reader is far behind */
	cq->armed = false;
}

static void
notify_check(void)
{
	if (__atomic_load_n(&eng.n_armed, __ATOMIC_ACQUIRE) == 0)
		return;
	rte_spinlock_lock(&eng.nlock);
	for (unsigned int i = 0; i < eng.n_armed;) {
		struct sib_cq *cq = eng.armed[i];

		if (rnic_cq_count(cq->cq) > 0) {
			channel_fire(cq);
			if (!cq->armed) {
				eng.armed[i] = eng.armed[--eng.n_armed];
				continue;
			}
		}
		i++;
	}
	rte_spinlock_unlock(&eng.nlock);
}

void
sib_notify_arm(struct sib_cq *cq)
{
	rte_spinlock_lock(&eng.nlock);
	if (!cq->armed) {
		if (eng.n_armed == eng.armed_cap) {
			unsigned int cap = eng.armed_cap ? 2 * eng.armed_cap : 16;
			struct sib_cq **a = realloc(eng.armed, cap * sizeof(*a));

			if (a == NULL) {
				rte_spinlock_unlock(&eng.nlock);
				return;
			}
			eng.armed = a;
			eng.armed_cap = cap;
		}
		cq->armed = true;
		eng.armed[eng.n_armed] = cq;
		__atomic_store_n(&eng.n_armed, eng.n_armed + 1, __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&eng.nlock);
}

void
sib_notify_forget(struct sib_cq *cq)
{
	rte_spinlock_lock(&eng.nlock);
	for (unsigned int i = 0; i < eng.n_armed; i++)
		if (eng.armed[i] == cq) {
			eng.armed[i] = eng.armed[--eng.n_armed];
			break;
		}
	cq->armed = false;
	rte_spinlock_unlock(&eng.nlock);
	if (cq->chan != NULL) {
		struct sib_channel *ch = cq->chan;

		pthread_mutex_lock(&ch->lock);
		for (unsigned int i = 0; i < ch->n; i++)
			if (ch->fired[(ch->head + i) % ch->cap] == cq)
				ch->fired[(ch->head + i) % ch->cap] = NULL;
		pthread_mutex_unlock(&ch->lock);
	}
}

static unsigned int
plan_poll(const struct sib_plan *pl)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < pl->n; i++)
		work += rnic_worker_poll(pl->p[i].dev, pl->p[i].worker, pl->p[i].roles);
	return work;
}

static int
lcore_loop(void *arg)
{
	const struct sib_plan *pl = arg;
	unsigned int idle = 0;

	while (!__atomic_load_n(&eng.stop, __ATOMIC_RELAXED))
		rnic_poll_idle(plan_poll(pl), &idle);
	return 0;
}

/*
 * The poller thread shares the machine with the program's threads (one
 * that sleeps in ibv_get_cq_event needs a CPU the moment its event
 * fires). It spins while there is work; after SIB_NAP_AFTER_US without
 * any it naps SIB_NAP_US at a time (timer slack 1 us), so an idle
 * program leaves the CPU free and a busy one keeps the spinning poller.
 */
#define SIB_NAP_AFTER_US 200
#define SIB_NAP_US 20

static void *
thread_loop(void *arg)
{
	const struct sib_plan *pl = arg;
	uint64_t hz = rte_get_tsc_hz(), nap_after = hz * SIB_NAP_AFTER_US / 1000000;
	uint64_t last_work = rte_get_tsc_cycles();
	unsigned int idle = 0, passes = 0;
	bool registered = rte_thread_register() == 0;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!__atomic_load_n(&eng.stop, __ATOMIC_RELAXED)) {
		unsigned int work = 0;
		uint64_t now;

		if (rte_spinlock_trylock(&eng.plan_lock)) {
			work = plan_poll(pl);
			rte_spinlock_unlock(&eng.plan_lock);
		}
		notify_check();
		/* asynchronous events are rare and not urgent: looked for when
		 * idle and every 256th busy pass, not on every pass (a mutex
		 * trylock and a ring per open context) */
		if (work == 0 || (++passes & 255) == 0)
			sib_async_pump();
		if (work != 0) {
			last_work = rte_get_tsc_cycles();
			idle = 0;
			continue;
		}
		now = rte_get_tsc_cycles();
		if (pl->n == 0 || now - last_work > nap_after)
			usleep(SIB_NAP_US);
		else
			rnic_poll_idle(work, &idle);
	}
	if (registered)
		rte_thread_unregister();
	return NULL;
}

static int
plan_add(struct sib_plan *pl, struct rnic_device *dev, unsigned int worker, unsigned int roles)
{
	if (pl->n == SIB_MAX_POLL)
		return -ENOSPC;
	pl->p[pl->n++] = (struct sib_poll){ .dev = dev, .worker = worker, .roles = roles };
	return 0;
}

static int
pollers_start(void)
{
	struct rnic_config *cfg = eng.cfg;
	int rc = 0;

	memset(&eng.thread_plan, 0, sizeof(eng.thread_plan));
	memset(eng.lcore_plan, 0, RTE_MAX_LCORE * sizeof(*eng.lcore_plan));
	for (unsigned int i = 0; rc == 0 && i < cfg->n_ports; i++) {
		const struct rnic_cfg_port *p = &cfg->ports[i];

		for (unsigned int w = 0; rc == 0 && w < p->workers; w++) {
			unsigned int left = RNIC_ROLE_ALL;

			for (unsigned int r = 0; p->worker_lcore != NULL && r < RNIC_CFG_NROLES; r++) {
				int lc = p->worker_lcore[w][r];

				if (lc < 0)
					continue;
				if (!rte_lcore_is_enabled((unsigned int)lc) ||
				    (unsigned int)lc == rte_get_main_lcore()) {
					fprintf(stderr, "softrnic ibverbs: lcores: lcore %d is not a "
						"worker lcore of \"eal\"\n", lc);
					return -EINVAL;
				}
				rc = plan_add(&eng.lcore_plan[lc], eng.dev[i], w, 1u << r);
				left &= ~(1u << r);
			}
			if (rc == 0 && left != 0)
				rc = plan_add(&eng.thread_plan, eng.dev[i], w, left);
		}
	}
	if (rc != 0)
		return rc;
	eng.stop = 0;
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (eng.lcore_plan[lc].n > 0 &&
		    rte_eal_remote_launch(lcore_loop, &eng.lcore_plan[lc], lc) != 0)
			return -EBUSY;
	eng.plan_running = true;
	rc = pthread_create(&eng.thread, NULL, thread_loop, &eng.thread_plan);
	if (rc != 0) {
		eng.plan_running = false;
		return -rc;
	}
	eng.thread_running = true;
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		rnic_dev_set_polled(eng.dev[i], true);
	return 0;
}

/*
 * Run the poller thread's roles once from a program thread that found its
 * CQ empty, if nobody runs them right now: a program that spins on
 * ibv_poll_cq then moves its own packets (run to completion) instead of
 * waiting for the poller to be scheduled on a CPU it may share.
 */
unsigned int
sib_engine_help(void)
{
	unsigned int work = 0;

	if (eng.thread_plan.n == 0 || !rte_spinlock_trylock(&eng.plan_lock))
		return 0;
	if (eng.plan_running)
		work = plan_poll(&eng.thread_plan);
	rte_spinlock_unlock(&eng.plan_lock);
	return work;
}

/* The poller thread, stopped and joined. */
static void
thread_stop(void)
{
	rte_spinlock_lock(&eng.plan_lock);
	eng.plan_running = false;
	rte_spinlock_unlock(&eng.plan_lock);
	__atomic_store_n(&eng.stop, 1, __ATOMIC_RELAXED);
	if (eng.thread_running)
		pthread_join(eng.thread, NULL);
	eng.thread_running = false;
}

static void
pollers_stop(void)
{
	thread_stop();
	rte_eal_mp_wait_lcore();
	for (unsigned int i = 0; eng.dev != NULL && i < eng.cfg->n_ports; i++)
		if (eng.dev[i] != NULL)
			rnic_dev_set_polled(eng.dev[i], false);
}

/*
 * DPDK 22.11's net_memif handles a peer's disconnect on the interrupt
 * thread without a lock against rte_eth_dev_stop on the control thread:
 * two ends stopping at once can free the regions twice ("EAL: Error:
 * Invalid memory"). The memif server's end therefore waits (at most
 * 500 ms) for its client to go first, then 50 ms more for its interrupt
 * thread to finish the disconnect (memif marks the link down before it
 * frees); a client stops at once.
 */
static void
memif_server_wait(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_eth_link link;
	uint64_t end;

	if (rte_eth_dev_info_get(port_id, &info) != 0 || info.device == NULL ||
	    strcmp(info.driver_name, "net_memif") != 0)
		return;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL || strstr(da->args, "role=server") == NULL)
		return;
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;
	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port_id, &link) != 0 ||
		    link.link_status == RTE_ETH_LINK_DOWN) {
			rte_delay_us_sleep(50000);
			return;
		}
		rte_delay_us_sleep(1000);
	} while (rte_get_tsc_cycles() < end);
}

/* SOFTRNIC_STATS=1: a device's non-zero counters on stderr as it goes
 * (what a run did, for a failure nothing else explains). */
static void
stats_dump_dev(struct rnic_device *dev, const char *name)
{
	struct rnic_dev_stats st;
	const uint64_t *v = (const uint64_t *)&st;
	const char *e = getenv("SOFTRNIC_STATS");

	if (e == NULL || strcmp(e, "1") != 0)
		return;
	rnic_dev_stats_get(dev, &st);
	fprintf(stderr, "\nsoftrnic stats %s:", name);
	for (unsigned int k = 0; k < rnic_dev_stat_count; k++)
		if (v[k])
			fprintf(stderr, " %s=%" PRIu64, rnic_dev_stat_names[k], v[k]);
	fprintf(stderr, "\n");
}

static void attach_stop(void);

static void
engine_teardown(void)
{
	if (eng.attach != NULL) {
		attach_stop();
		return;
	}
	pollers_stop();
	for (unsigned int i = 0; eng.dev != NULL && i < eng.cfg->n_ports; i++)
		if (eng.dev[i] != NULL) {
			stats_dump_dev(eng.dev[i], eng.cfg->ports[i].name);
			memif_server_wait(eng.port_id[i]);
			rnic_dev_destroy(eng.dev[i]);
			eng.dev[i] = NULL;
		}
}

/* Attached: the devices (again, after a full close) and the thread that
 * fires completion events; the daemon's lcores run the engine. */
static int
attach_start(void)
{
	int rc = 0;

	if (eng.att_dev[0] == NULL)
		rc = attach_open();
	if (rc != 0)
		return rc;
	memset(&eng.thread_plan, 0, sizeof(eng.thread_plan));
	eng.stop = 0;
	eng.plan_running = true;
	rc = pthread_create(&eng.thread, NULL, thread_loop, &eng.thread_plan);
	if (rc != 0) {
		eng.plan_running = false;
		attach_close();
		return -rc;
	}
	eng.thread_running = true;
	return 0;
}

static void
attach_stop(void)
{
	thread_stop();
	for (unsigned int i = 0; i < eng.att_ports; i++)
		if (eng.att_dev[i] != NULL)
			stats_dump_dev(eng.att_dev[i], eng.att_name[i]);
	attach_close();
}

static int
engine_start(void)
{
	int rc;

	if (eng.attach != NULL)
		return attach_start();
	if (eng.eal_failed)
		return -ENODEV;
	if (!eng.eal_up) {
		eng.port_id = calloc(eng.cfg->n_ports, sizeof(*eng.port_id));
		eng.dev = calloc(eng.cfg->n_ports, sizeof(*eng.dev));
		eng.lcore_plan = calloc(RTE_MAX_LCORE, sizeof(*eng.lcore_plan));
		if (eng.port_id == NULL || eng.dev == NULL || eng.lcore_plan == NULL)
			return -ENOMEM;
		rc = eal_start();
		if (rc == 0)
			rc = ports_create();
		if (rc != 0) {
			eng.eal_failed = true;
			return rc;
		}
		eng.eal_up = true;
	}
	rc = devices_create();
	if (rc == 0)
		rc = pollers_start();
	if (rc != 0)
		engine_teardown();
	return rc;
}

struct rnic_device *
sib_engine_get(unsigned int idx)
{
	struct rnic_device *dev = NULL;
	int rc = 0;

	if (idx >= sib_engine_ports()) {
		errno = ENODEV;
		return NULL;
	}
	pthread_mutex_lock(&eng.lock);
	if (eng.refs == 0)
		rc = engine_start();
	if (rc == 0) {
		eng.refs++;
		dev = eng.attach != NULL ? eng.att_dev[idx] : eng.dev[idx];
	}
	pthread_mutex_unlock(&eng.lock);
	if (dev == NULL)
		errno = -rc;
	return dev;
}

void
sib_engine_put(void)
{
	pthread_mutex_lock(&eng.lock);
	if (eng.refs > 0 && --eng.refs == 0)
		engine_teardown();
	pthread_mutex_unlock(&eng.lock);
}

/* The engine's life against the program's other threads: a thread that
 * calls exit() while another still tears its objects down (rping's CM
 * thread does on a rejected connection while main frees its buffers) runs
 * the destructor below under it. The verbs that destroy or modify take the
 * read side; the destructor takes the write side and marks the engine
 * gone, after which those verbs touch no engine memory: destroys succeed
 * (as on a disassociated device), the rest fail with ENODEV. */
static pthread_rwlock_t life = PTHREAD_RWLOCK_INITIALIZER;
static bool gone;

bool
sib_live_enter(void)
{
	pthread_rwlock_rdlock(&life);
	if (!gone)
		return true;
	pthread_rwlock_unlock(&life);
	return false;
}

void
sib_live_leave(void)
{
	pthread_rwlock_unlock(&life);
}

/* At exit: stop the engine if the program did not close its devices, and
 * close the ports and EAL, so a memif server's socket file and EAL's
 * runtime files do not outlive the process. */
static void __attribute__((destructor))
sib_engine_exit(void)
{
	pthread_rwlock_wrlock(&life);
	gone = true;
	pthread_rwlock_unlock(&life);
	if (eng.attach != NULL) {   /* the daemon frees what is left: a goodbye */
		pthread_mutex_lock(&eng.lock);
		if (eng.refs > 0)
			attach_stop();
		else
			attach_close();
		eng.refs = 0;
		pthread_mutex_unlock(&eng.lock);
		return;
	}
	if (!eng.eal_up)
		return;
	pthread_mutex_lock(&eng.lock);
	engine_teardown();
	eng.refs = 0;
	for (unsigned int i = 0; i < eng.cfg->n_ports; i++)
		rte_eth_dev_close(eng.port_id[i]);
	rte_eal_cleanup();
	eng.eal_up = false;
	pthread_mutex_unlock(&eng.lock);
}

int
sib_engine_resolve(struct rnic_device *dev, const uint8_t gid[16], uint8_t mac[6])
{
	int rc;

	if (rnic_dev_resolve_gid(dev, gid, mac, 0) == 0)   /* cached */
		return 0;
	pthread_mutex_lock(&eng.lock);
	rc = rnic_dev_link_wait(dev, SIB_LINK_WAIT_MS);
	if (rc == 0)
		rc = rnic_dev_resolve_gid(dev, gid, mac, SIB_ARP_WAIT_MS);
	pthread_mutex_unlock(&eng.lock);
	return rc;
}
