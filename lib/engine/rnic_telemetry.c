/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-telemetry.py endpoints:
 *   /softrnic/qps             port name -> its QPNs, ascending; a port with
 *                             more than fit in one answer is cut, and
 *                             "next": {port: first QPN left out} says so
 *   /softrnic/qps,<port>[,<start>]
 *                             one port's QPNs from <start> up, at most
 *                             RNIC_TEL_QPS_PAGE: {"port", "total", "qpns",
 *                             "next" (only while more follow)}
 *   /softrnic/qp,<qpn>        one QP (or <port>:<qpn>): state, PSNs, queues,
 *                             unacknowledged packets, retransmissions
 *   /softrnic/stats[,<port>]  counters, per-reason drops (all ports summed
 *                             without a parameter), and the port's own
 *                             drop counters (port_*: what the PMD dropped
 *                             before the engine saw it)
 *   /softrnic/lcores          lcore -> port (and worker) roles, the NUMA
 *                             node of the lcore and of the port, loop
 *                             iterations
 * Numbers in parameters are strict: decimal without leading zeros, or 0x
 * and hex digits; no spaces, signs or anything after them. Anything else
 * is refused (the answer is null).
 * Values are read while the lcores run (relaxed loads): a snapshot, not a
 * transaction. Every callback holds tel_lock while it looks at a device,
 * and a device leaves the tables under it (rnic_telemetry_remove_device,
 * which rnic_dev_destroy runs as a destroy hook before anything is freed), so no answer ever
 * reads a destroyed device.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "rnic_engine_pvt.h"

#define MAX_TEL_DEVS 64
#define MAX_TEL_LCORES 128
/* QPNs in one answer: an array holds at most RTE_TEL_MAX_ARRAY_ENTRIES,
 * and the whole answer must fit DPDK's 16 KiB output buffer, where a QPN
 * takes up to 9 characters: /softrnic/qps without a parameter shares
 * RNIC_TEL_QPS_ALL among the ports. */
#define RNIC_TEL_QPS_PAGE 512
#define RNIC_TEL_QPS_ALL 1024

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	char name[32];
	struct rnic_device *dev;
} tel_devs[MAX_TEL_DEVS];
static unsigned int n_tel_devs;

static struct {
	unsigned int lcore;
	struct rnic_device *dev;
	unsigned int worker;
	unsigned int roles;
} tel_lcores[MAX_TEL_LCORES];
static unsigned int n_tel_lcores;

static const char *const qp_types[] = { [RNIC_QPT_RC] = "RC", [RNIC_QPT_UC] = "UC",
					[RNIC_QPT_UD] = "UD" };

/*
 * The number in s[0..len): decimal without a leading zero, or 0x/0X and
 * hex digits, at most @p max. No whitespace, sign or suffix: "16" and
 * "0x10" are 16; " 16", "+16", "16 ", "016", "0x", "1e3" are refused.
 */
static int
tel_parse_num(const char *s, size_t len, uint32_t max, uint32_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len == 0)
		return -EINVAL;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len > 1 && s[0] == '0') {
		return -EINVAL;
	}
	for (; i < len; i++) {
		unsigned int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned int)(s[i] - '0');
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned int)(s[i] - 'a' + 10);
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned int)(s[i] - 'A' + 10);
		else
			return -EINVAL;
		v = v * base + d;
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

/* The published device named s[0..len), or -1. Caller holds tel_lock. */
static int
tel_dev_find(const char *s, size_t len)
{
	for (unsigned int i = 0; i < n_tel_devs; i++)
		if (len > 0 && strncmp(tel_devs[i].name, s, len) == 0 &&
		    tel_devs[i].name[len] == '\0')
			return (int)i;
	return -1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The QPNs of @p dev from @p start up, ascending, at most @p max of them
 * into the new array @p a; *next the first QPN left out, -1 if none;
 * *total every QPN of the device. Caller holds tel_lock.
 */
static int
tel_qpn_page(struct rnic_device *dev, uint32_t start, unsigned int max,
	     struct rte_tel_data *a, int64_t *next, uint64_t *total)
{
	uint32_t slots = dev->qp_mask + 1, n = 0, all = 0;
	uint32_t *q = malloc(sizeof(*q) * slots);

	if (q == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < slots; k++) {
		struct rnic_qp *qp = LOAD_ACQ(&dev->qps[k]);
		uint32_t qpn;

		if (qp == NULL)
			continue;
		qpn = qp->qpn;
		all++;
		if (qpn >= start)
			q[n++] = qpn;
	}
	qsort(q, n, sizeof(*q), cmp_u32);
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (uint32_t i = 0; i < n && i < max; i++)
		rte_tel_data_add_array_u64(a, q[i]);
	*next = n > max ? (int64_t)q[max] : -1;
	*total = all;
	free(q);
	return 0;
}

/* /softrnic/qps: every port, each cut at its share of RNIC_TEL_QPS_ALL. */
static int
tel_qps_all(struct rte_tel_data *d)
{
	unsigned int share = n_tel_devs ? RNIC_TEL_QPS_ALL / n_tel_devs : 0;
	struct rte_tel_data *cut = NULL;

	share = RTE_MIN(RTE_MAX(share, 1u), (unsigned int)RNIC_TEL_QPS_PAGE);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < n_tel_devs; i++) {
		struct rte_tel_data *a = rte_tel_data_alloc();
		uint64_t total;
		int64_t next;

		if (a == NULL || tel_qpn_page(tel_devs[i].dev, 0, share, a, &next, &total) != 0) {
			rte_tel_data_free(a);
			rte_tel_data_free(cut);
			return -ENOMEM;
		}
		rte_tel_data_add_dict_container(d, tel_devs[i].name, a, 0);
		if (next < 0)
			continue;
		if (cut == NULL) {
			cut = rte_tel_data_alloc();
			if (cut == NULL)
				return -ENOMEM;
			rte_tel_data_start_dict(cut);
		}
		rte_tel_data_add_dict_u64(cut, tel_devs[i].name, (uint64_t)next);
	}
	if (cut != NULL)
		rte_tel_data_add_dict_container(d, "next", cut, 0);
	return 0;
}

static int
tel_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const char *comma;
	struct rte_tel_data *a;
	uint32_t start = 0;
	uint64_t total;
	int64_t next;
	int i, rc;

	RTE_SET_USED(cmd);
	if (params == NULL || *params == '\0')
		return tel_qps_all(d);
	/* <port> or <port>,<start> */
	comma = strchr(params, ',');
	if (comma != NULL &&
	    tel_parse_num(comma + 1, strlen(comma + 1), RNIC_PSN_MASK, &start) != 0)
		return -EINVAL;
	i = tel_dev_find(params, comma ? (size_t)(comma - params) : strlen(params));
	if (i < 0)
		return -ENOENT;
	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rc = tel_qpn_page(tel_devs[i].dev, start, RNIC_TEL_QPS_PAGE, a, &next, &total);
	if (rc != 0) {
		rte_tel_data_free(a);
		return rc;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "port", tel_devs[i].name);
	rte_tel_data_add_dict_u64(d, "total", total);
	rte_tel_data_add_dict_container(d, "qpns", a, 0);
	if (next >= 0)
		rte_tel_data_add_dict_u64(d, "next", (uint64_t)next);
	return 0;
}

static int
tel_qp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const char *colon = params ? strchr(params, ':') : NULL;
	const char *num = colon ? colon + 1 : params;
	struct rnic_qp *qp = NULL;
	const char *port = NULL;
	uint32_t qpn;

	RTE_SET_USED(cmd);
	if (params == NULL || tel_parse_num(num, strlen(num), RNIC_PSN_MASK, &qpn) != 0)
		return -EINVAL;
	if (colon != NULL) {
		int i = tel_dev_find(params, (size_t)(colon - params));

		if (i < 0)
			return -ENOENT;
		qp = rnic_qp_lookup(tel_devs[i].dev, qpn);
		port = tel_devs[i].name;
	}
	for (unsigned int i = 0; colon == NULL && i < n_tel_devs && qp == NULL; i++) {
		qp = rnic_qp_lookup(tel_devs[i].dev, qpn);
		port = tel_devs[i].name;
	}
	if (qp == NULL)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "port", port);
	rte_tel_data_add_dict_u64(d, "qpn", qp->qpn);
	rte_tel_data_add_dict_string(d, "type", qp_types[qp->type]);
	rte_tel_data_add_dict_string(d, "state", rnic_qp_state_str(rnic_qp_state_get(qp)));
	rte_tel_data_add_dict_u64(d, "dest_qpn", qp->attr.dest_qp_num);
	rte_tel_data_add_dict_u64(d, "pmtu", qp->pmtu);
	rte_tel_data_add_dict_u64(d, "sq_psn", LOAD_RLX(&qp->req.psn));
	rte_tel_data_add_dict_u64(d, "rq_psn", LOAD_RLX(&qp->resp.epsn));
	rte_tel_data_add_dict_u64(d, "msn", LOAD_RLX(&qp->resp.msn));
	rte_tel_data_add_dict_u64(d, "sq_outstanding",
				  LOAD_RLX(&qp->app.sq_pi) - LOAD_RLX(&qp->comp.sq_done));
	rte_tel_data_add_dict_u64(d, "rq_posted", LOAD_RLX(&qp->app.rq_pi) - LOAD_RLX(&qp->resp.rq_ci));
	rte_tel_data_add_dict_u64(d, "unacked_packets",
				  LOAD_RLX(&qp->req.mq.tail) - LOAD_RLX(&qp->comp.mq_head));
	rte_tel_data_add_dict_u64(d, "retransmits", LOAD_RLX(&qp->comp.n_rexmit));
	rte_tel_data_add_dict_u64(d, "timeouts", LOAD_RLX(&qp->comp.n_timeout));
	rte_tel_data_add_dict_u64(d, "naks_received", LOAD_RLX(&qp->comp.n_nak));
	rte_tel_data_add_dict_u64(d, "errors", LOAD_RLX(&qp->comp.n_err));
	/* DCQCN (TX's, read relaxed: a snapshot): 0 Mb/s = unpaced */
	rte_tel_data_add_dict_u64(d, "cnps_received", LOAD_RLX(&qp->comp.cnp_seen));
	rte_tel_data_add_dict_u64(d, "cc_rate_mbps",
				  LOAD_RLX(&qp->req.cc.limited) ? LOAD_RLX(&qp->req.cc.rc_mbps) : 0);
	rte_tel_data_add_dict_u64(d, "cc_target_mbps", LOAD_RLX(&qp->req.cc.rt_mbps));
	rte_tel_data_add_dict_u64(d, "cc_alpha_1024",
				  LOAD_RLX(&qp->req.cc.alpha) >> (RNIC_DCQCN_ALPHA_SHIFT - 10));
	return 0;
}

static void
add_stats(struct rte_tel_data *d, const struct rnic_dev_stats *s)
{
	const uint64_t *v = (const uint64_t *)s;
	char name[64];

	for (unsigned int i = 0; i < rnic_dev_stat_count; i++)
		rte_tel_data_add_dict_u64(d, rnic_dev_stat_names[i], v[i]);
	for (unsigned int e = 1; e < RNIC_PKT_ERR_MAX && e < RTE_DIM(s->drop_reason); e++) {
		snprintf(name, sizeof(name), "drop_reason_%s", rnic_pkt_err_name[e]);
		rte_tel_data_add_dict_u64(d, name, s->drop_reason[e]);
	}
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rnic_dev_stats sum = {0}, s;
	struct rnic_dev_objs objs = {0}, o;
	struct rte_eth_stats es;
	uint64_t imissed = 0, ierrors = 0, oerrors = 0, nombuf = 0;
	bool found = false;

	RTE_SET_USED(cmd);
	for (unsigned int i = 0; i < n_tel_devs; i++) {
		if (params && *params && strcmp(params, tel_devs[i].name) != 0)
			continue;
		rnic_dev_stats_get(tel_devs[i].dev, &s);
		for (size_t k = 0; k < sizeof(s) / sizeof(uint64_t); k++)
			((uint64_t *)&sum)[k] += ((uint64_t *)&s)[k];
		rnic_dev_objs_get(tel_devs[i].dev, &o);
		objs.pds += o.pds;
		objs.mrs += o.mrs;
		objs.cqs += o.cqs;
		objs.qps += o.qps;
		objs.ahs += o.ahs;
		/* Frames the port dropped before the engine could see them:
		 * no receive buffer (the PMD refills from the engine's pool on
		 * NICs and net_memif), a full receive ring, bad frames. */
		if (rte_eth_stats_get(tel_devs[i].dev->port_id, &es) == 0) {
			imissed += es.imissed;
			ierrors += es.ierrors;
			oerrors += es.oerrors;
			nombuf += es.rx_nombuf;
		}
		found = true;
	}
	if (!found && params && *params)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	add_stats(d, &sum);
	rte_tel_data_add_dict_u64(d, "port_rx_nombuf", nombuf);
	rte_tel_data_add_dict_u64(d, "port_imissed", imissed);
	rte_tel_data_add_dict_u64(d, "port_ierrors", ierrors);
	rte_tel_data_add_dict_u64(d, "port_oerrors", oerrors);
	/* The objects that exist now (leaks show here). */
	rte_tel_data_add_dict_u64(d, "objs_pds", objs.pds);
	rte_tel_data_add_dict_u64(d, "objs_mrs", objs.mrs);
	rte_tel_data_add_dict_u64(d, "objs_cqs", objs.cqs);
	rte_tel_data_add_dict_u64(d, "objs_qps", objs.qps);
	rte_tel_data_add_dict_u64(d, "objs_ahs", objs.ahs);
	return 0;
}

static int
tel_cmd_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const role_names[3] = { "tx", "rx", "timer" };

	RTE_SET_USED(cmd);
	if (params != NULL && *params != '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < n_tel_lcores; i++) {
		struct rnic_device *dev = tel_lcores[i].dev;
		int k = -1;
		struct rte_tel_data *a;
		char key[48], val[96];

		for (unsigned int j = 0; j < n_tel_devs && k < 0; j++)
			if (tel_devs[j].dev == dev)
				k = (int)j;
		if (k < 0)
			continue;
		a = rte_tel_data_alloc();
		if (a == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		for (unsigned int r = 0; r < RTE_DIM(role_names); r++) {
			const struct rnic_worker *wk = &dev->workers[tel_lcores[i].worker];
			const uint64_t *iter[] = { &wk->tx.iter, &wk->rx.iter, &wk->tmr.iter };
			char who[48];

			if (!(tel_lcores[i].roles & (1u << r)))
				continue;
			if (dev->n_workers > 1)
				snprintf(who, sizeof(who), "%s.w%u", tel_devs[k].name, wk->id);
			else
				snprintf(who, sizeof(who), "%s", tel_devs[k].name);
			snprintf(val, sizeof(val), "%s:%s node=%d port_node=%d iterations=%" PRIu64,
				 who, role_names[r], (int)rte_lcore_to_socket_id(tel_lcores[i].lcore),
				 rte_eth_dev_socket_id(dev->port_id), LOAD_RLX(iter[r]));
			rte_tel_data_add_array_string(a, val);
		}
		snprintf(key, sizeof(key), "lcore%u_%u", tel_lcores[i].lcore, i);
		rte_tel_data_add_dict_container(d, key, a, 0);
	}
	return 0;
}

/* What DPDK calls: each endpoint under tel_lock. */
#define TEL_LOCKED(fn) \
static int \
fn##_locked(const char *cmd, const char *params, struct rte_tel_data *d) \
{ \
	int rc; \
	pthread_mutex_lock(&tel_lock); \
	rc = fn(cmd, params, d); \
	pthread_mutex_unlock(&tel_lock); \
	return rc; \
}
TEL_LOCKED(tel_qps)
TEL_LOCKED(tel_qp)
TEL_LOCKED(tel_stats)
TEL_LOCKED(tel_cmd_lcores)

/* A device being destroyed leaves telemetry first. */
static void
tel_dev_destroyed(struct rnic_device *dev)
{
	rnic_telemetry_remove_device(dev);
}

int
rnic_telemetry_add_device(struct rnic_device *dev, const char *name)
{
	static bool registered;
	size_t len = name ? strlen(name) : 0;
	int rc = 0;

	/* ',' and ':' separate parameters; the name must fit whole. */
	if (dev == NULL || len == 0 || len >= sizeof(tel_devs[0].name) ||
	    strpbrk(name, ",:") != NULL)
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	if (n_tel_devs == MAX_TEL_DEVS || tel_dev_find(name, len) >= 0) {
		rc = -EINVAL;
		goto out;
	}
	if (!registered) {
		rte_telemetry_register_cmd("/softrnic/qps", tel_qps_locked,
					   "QPNs per port (cut ones: \"next\"). Parameters: "
					   "none, or port[,start] for one page");
		rte_telemetry_register_cmd("/softrnic/qp", tel_qp_locked,
					   "One QP. Parameter: qpn or port:qpn");
		rte_telemetry_register_cmd("/softrnic/stats", tel_stats_locked,
					   "Counters and drops by reason. Parameter: port (optional)");
		rte_telemetry_register_cmd("/softrnic/lcores", tel_cmd_lcores_locked,
					   "Engine lcores, their port roles and loop iterations");
		registered = true;
	}
	rc = rnic_dev_add_destroy_hook(dev, tel_dev_destroyed);
	if (rc != 0)
		goto out;
	memcpy(tel_devs[n_tel_devs].name, name, len + 1);
	tel_devs[n_tel_devs].dev = dev;
	n_tel_devs++;
out:
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

int
rnic_telemetry_add_worker_lcore(unsigned int lcore, struct rnic_device *dev, unsigned int worker,
				unsigned int roles)
{
	int rc = -ENOENT;

	if (dev == NULL || worker >= dev->n_workers)
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; i < n_tel_devs; i++) {
		if (tel_devs[i].dev != dev)
			continue;
		if (n_tel_lcores == MAX_TEL_LCORES) {
			rc = -ENOSPC;
			break;
		}
		tel_lcores[n_tel_lcores].lcore = lcore;
		tel_lcores[n_tel_lcores].dev = dev;
		tel_lcores[n_tel_lcores].worker = worker;
		tel_lcores[n_tel_lcores].roles = roles;
		n_tel_lcores++;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

int
rnic_telemetry_add_lcore(unsigned int lcore, struct rnic_device *dev, unsigned int roles)
{
	return rnic_telemetry_add_worker_lcore(lcore, dev, 0, roles);
}

int
rnic_telemetry_remove_device(struct rnic_device *dev)
{
	int rc = -ENOENT;
	unsigned int n = 0;

	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; i < n_tel_devs; i++) {
		if (tel_devs[i].dev == dev) {
			rc = 0;
			continue;
		}
		tel_devs[n++] = tel_devs[i];
	}
	n_tel_devs = n;
	n = 0;
	for (unsigned int i = 0; i < n_tel_lcores; i++)
		if (tel_lcores[i].dev != dev)
			tel_lcores[n++] = tel_lcores[i];
	n_tel_lcores = n;
	/* Unlocked, no endpoint can still be looking at @p dev. */
	pthread_mutex_unlock(&tel_lock);
	return rc;
}
