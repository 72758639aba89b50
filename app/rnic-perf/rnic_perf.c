/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: a perftest-style benchmark (ib_write_bw and friends) for the
 * softrnic engine, which runs in this process.
 *
 *   rnic-perf [EAL args] -- write_bw -s 4096 -D 5
 *   rnic-perf [EAL args] -- --test read --lat -a
 *   rnic-perf --config config/perf-ring-rtc.json write_bw -s 64
 *
 * Topologies (--link): "ring", both QP ends in this process on an
 * in-process ring pair; "pair", both ends on the first two DPDK ports
 * (two net_memif ports to a dpdk-testpmd that forwards between them);
 * "memif", one end per process over net_memif, the server waiting for
 * the client, which drives the test, with an out-of-band TCP exchange as
 * perftest has. doc/user-guide.md has the commands. raw_lat is no RDMA
 * test but the link's own latency (a frame ping-pong through a reflecting
 * dpdk-testpmd), the baseline that scripts/bench.py sets write_lat against.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rnic_app_capture.h"
#include "rnic_config.h"
#include "perf.h"
#include "perftest_oob.h"
#include "rnic_trace.h"

/* RNIC_LAT_TRACE=FILE: the records kept (16 B each; write_lat takes about
 * 20 per round trip, so a second or two of it). */
#define TRACE_RECS (1u << 22)

/* rnic-perf's own log type ("rnic_perf.app"). */
RTE_LOG_REGISTER(rnic_perf_logtype, rnic_perf.app, INFO);

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	perf_quit = 1;
}

static void
peer_local(struct perf_side *s, const struct perf_side *peer)
{
	memcpy(s->peer_mac, peer->mac, 6);
	s->peer_ip = peer->ip;
	s->peer_addr = (uintptr_t)side_target(peer);
	s->peer_rkey = rnic_mr_rkey(peer->mr);
	s->peer_sr = true;   /* one process, one --sr */
	for (uint32_t i = 0; i < s->nqp; i++) {
		s->peer_qpn[i] = rnic_qp_num(peer->qp[i]);
		s->peer_psn[i] = peer->psn[i];
	}
}

/* Wait for the next message (SIZE or FIN) while the engine keeps running. */
static int
server_next(struct perf_oob *oob, uint64_t *size)
{
	uint64_t end = rte_get_tsc_cycles() + 600 * rte_get_tsc_hz(), next = 0;
	uint8_t buf[16];

	for (;;) {
		uint64_t now = rte_get_tsc_cycles();

		if (now >= next) {
			int pend = perf_oob_pending(oob);

			if (pend < 0)
				return -1;
			if (pend > 0)
				break;
			next = now + rte_get_tsc_hz() / 2000;
		}
		if (perf_quit || now > end)
			return -1;
		perf_poll(true);
	}
	{
		/* perf_oob_recv with type 0 takes any message. */
		int n = perf_oob_recv(oob, 0, buf, sizeof(buf), 30);

		if (n == (int)sizeof(uint64_t) && oob->last_type == PM_SIZE) {
			memcpy(size, buf, sizeof(*size));
			return PM_SIZE;
		}
		if (n == 0 && oob->last_type == PM_FIN)
			return PM_FIN;
	}
	return -1;
}

/* Wait for @p type while polling the engine (the peer may still need it). */
static int
wait_polling(struct perf_oob *oob, uint32_t type, double secs)
{
	uint64_t end = rte_get_tsc_cycles() + (uint64_t)(secs * (double)rte_get_tsc_hz());

	for (;;) {
		int pend = perf_oob_pending(oob);

		if (pend < 0)
			return -1;
		if (pend > 0)
			return perf_oob_recv(oob, type, NULL, 0, 10) < 0 ? -1 : 0;
		if (perf_quit || rte_get_tsc_cycles() > end)
			return -1;
		for (int i = 0; i < 64; i++)
			perf_poll(true);
	}
}

/* Everything one run holds, from the options to the results. */
struct perf_run {
	struct perf_opts o;
	struct rnic_config *cfg;
	struct perf_side sides[2];
	unsigned int nsides;
	struct perf_oob oob;
	struct perf_result results[32];
	unsigned int nres;
	bool memif, server;      /* --link memif; this process is its server */
	bool oob_ok;             /* the out-of-band exchange is still in step */
};

/* "-- --perftest ...": perftest's peer over perftest's own exchange. Drops
 * "--perftest" from @p argv and says so. */
static bool
perftest_wanted(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			if (strcmp(argv[i + 1], "--perftest") == 0) {
				memmove(&argv[i + 1], &argv[i + 2],
					(size_t)(argc - i - 1) * sizeof(char *));
				return true;
			}
			break;
		}
	}
	return false;
}

/* "rnic-perf --config FILE ...": the EAL arguments come from the file, in
 * a new *eal_argv (freed by the caller when it is not @p argv). */
static int
eal_args_from_config(int argc, char **argv, struct rnic_config **cfg, int *eal_argc,
		     char ***eal_argv)
{
	char err[512];

	if (argc < 3 || strcmp(argv[1], "--config") != 0)
		return 0;
	*cfg = rnic_config_load_file(argv[2], err, sizeof(err));
	if (*cfg == NULL) {
		fprintf(stderr, "rnic-perf: %s: %s\n", argv[2], err);
		return -1;
	}
	*eal_argc = (int)(*cfg)->eal_argc + 1;
	*eal_argv = calloc((size_t)*eal_argc + 1, sizeof(char *));
	if (*eal_argv == NULL) {
		fprintf(stderr, "rnic-perf: out of memory\n");
		rnic_config_free(*cfg);
		*cfg = NULL;
		return -1;
	}
	(*eal_argv)[0] = argv[0];
	for (unsigned int i = 0; i < (*cfg)->eal_argc; i++)
		(*eal_argv)[i + 1] = (*cfg)->eal_argv[i];
	return 0;
}

/* With a configuration its ports section decides the topology. */
static int
link_from_config(struct perf_opts *o, const struct rnic_config *cfg)
{
	if (cfg->n_ports >= 2 && cfg->ports[0].ring_peer_idx == 1)
		o->link = LINK_RING;
	else if (cfg->n_ports >= 2 && cfg->ports[0].ring_peer_idx < 0)
		o->link = LINK_PAIR;
	else if (cfg->n_ports == 1 && cfg->ports[0].ring_peer_idx < 0)
		o->link = LINK_MEMIF;
	else {
		fprintf(stderr, "rnic-perf: %s: want two ring_peer ports, two device ports "
			"or one device port\n", o->config);
		return -1;
	}
	if (o->link == LINK_MEMIF && o->server == o->client) {
		fprintf(stderr, "rnic-perf: a one-port configuration is one end of --link "
			"memif: add --server or --client\n");
		return -1;
	}
	if (o->link != LINK_MEMIF && (o->server || o->client)) {
		fprintf(stderr, "rnic-perf: --server/--client go with a one-port "
			"(memif) configuration\n");
		return -1;
	}
	return 0;
}

/* The options, and the configuration they name: 0, or the exit status. */
static int
parse_run(struct perf_run *r, int argc, char **argv)
{
	char err[512];

	if (perf_parse_args(argc, argv, &r->o) != 0) {
		fprintf(stderr, "(rnic-perf -- --help for the options)\n");
		return 2;
	}
	if (r->o.config != NULL && r->cfg == NULL) {
		r->cfg = rnic_config_load_file(r->o.config, err, sizeof(err));
		if (r->cfg == NULL) {
			fprintf(stderr, "rnic-perf: %s: %s\n", r->o.config, err);
			return 1;
		}
	}
	if (r->cfg != NULL && link_from_config(&r->o, r->cfg) != 0)
		return 1;
	return 0;
}

/* --link memif: the client sends its test parameters, the server takes them. */
static int
exchange_params(struct perf_run *r)
{
	struct perf_params p;
	char err[512];

	if (!r->server)
		return perf_oob_client(&r->oob, r->o.host, r->o.tcp_port, 60) != 0 ||
		       perf_oob_send(&r->oob, PM_PARAMS, &r->o.p, sizeof(r->o.p)) != 0 ||
		       perf_oob_recv(&r->oob, PM_PARAMS_OK, NULL, 0, 30) < 0 ? -1 : 0;
	if (perf_oob_server(&r->oob, r->o.tcp_port, 600) != 0 ||
	    perf_oob_recv(&r->oob, PM_PARAMS, &p, sizeof(p), 30) != (int)sizeof(p))
		return -1;
	if (perf_check_params(&p, err, sizeof(err)) != 0) {
		perf_oob_send(&r->oob, PM_ERROR, err, (uint32_t)strlen(err) + 1);
		return -1;
	}
	r->o.p = p;
	perf_oob_send(&r->oob, PM_PARAMS_OK, NULL, 0);
	return 0;
}

/* Devices, QPs connected to the peer's, and the engines running. */
static int
setup_sides(struct perf_run *r)
{
	struct perf_side *sides = r->sides;

	if (r->memif) {
		if (exchange_params(r) != 0)
			return -1;
		r->oob_ok = true;
	}
	if (perf_engine_devices(&r->o, r->cfg, sides, r->nsides) != 0)
		return -1;
	for (unsigned int i = 0; i < r->nsides; i++)
		if (perf_side_create(&r->o, &sides[i]) != 0)
			return -1;
	if (r->memif) {
		if (perf_exchange_info(&r->oob, &sides[0], r->o.sr) != 0)
			return -1;
	} else {
		peer_local(&sides[0], &sides[1]);
		peer_local(&sides[1], &sides[0]);
	}
	for (unsigned int i = 0; i < r->nsides; i++)
		if (perf_side_connect(&r->o, &sides[i]) != 0 ||
		    (sides[i].own_port_setup && perf_link_wait(&sides[i], 20, !r->server) != 0))
			return -1;
	return perf_engine_launch(&r->o, r->cfg, sides, r->nsides);
}

/* The memif server: one measurement per size the client asks for, until
 * its FIN. */
static int
serve_sizes(struct perf_run *r)
{
	int status = 0;

	for (;;) {
		struct perf_result *res;
		uint64_t size;
		int m = server_next(&r->oob, &size);

		if (m == PM_FIN)
			break;
		if (m != PM_SIZE || r->nres == RTE_DIM(r->results)) {
			r->oob_ok = false;
			return 1;
		}
		res = &r->results[r->nres];
		if (perf_run_server(&r->o, &r->sides[0], &r->oob, size, res) != 0)
			status = 1;
		perf_print_row(&r->o, res);
		if (res->errors)
			status = 1;
		r->nres++;
	}
	return status;
}

/* The driving end: every size, in this process or with the memif server. */
static int
drive_sizes(struct perf_run *r)
{
	uint64_t sizes[32];
	unsigned int nsizes;
	int status = 0;

	perf_sizes(&r->o.p, sizes, &nsizes);
	for (unsigned int i = 0; i < nsizes && !perf_quit; i++) {
		struct perf_result *res = &r->results[r->nres++];
		int rc;

		if (r->memif)
			rc = perf_run_client(&r->o, &r->sides[0], &r->oob, sizes[i], res);
		else
			rc = perf_run_local(&r->o, &r->sides[0], &r->sides[1], sizes[i], res);
		perf_print_row(&r->o, res);
		for (unsigned int k = 0; k < r->nsides; k++)
			if (perf_check_counters(&r->sides[k], r->o.verbose, r->o.impair) != 0)
				rc = -1;
		if (rc != 0) {
			status = 1;
			fprintf(stderr, "rnic-perf: size %" PRIu64 " failed: stopping\n", sizes[i]);
			break;
		}
	}
	if (r->memif && r->oob_ok && perf_oob_send(&r->oob, PM_FIN, NULL, 0) != 0)
		r->oob_ok = false;
	return status;
}

/*
 * Teardown. Over net_memif, both engines stop before either port
 * closes, the client closes first and the server once its interrupt
 * thread has handled the disconnect (test/memif explains why).
 */
static int
teardown(struct perf_run *r)
{
	int status = 0;

	if (!r->memif || !r->oob_ok) {
		perf_engine_stop(r->sides, r->nsides);
		if (r->nsides > 0)
			perf_engine_impair_report(&r->o, &r->sides[0]);
		perf_engine_close(r->sides, r->nsides, false);
	} else if (r->server) {
		perf_engine_stop(r->sides, r->nsides);
		if (perf_oob_send(&r->oob, PM_FIN, NULL, 0) != 0 ||
		    perf_oob_recv(&r->oob, PM_CLOSED, NULL, 0, 30) < 0)
			status = 1;
		perf_engine_close(r->sides, r->nsides, true);
	} else {
		if (wait_polling(&r->oob, PM_FIN, 30) != 0)
			status = 1;
		perf_engine_stop(r->sides, r->nsides);
		perf_engine_close(r->sides, r->nsides, false);
		perf_oob_send(&r->oob, PM_CLOSED, NULL, 0);
	}
	return status;
}

/* raw_lat: the port only, no device and no out-of-band exchange (the peer
 * is a frame reflector, not rnic-perf). */
static int
run_raw(struct perf_run *r)
{
	int status = 0;

	r->nsides = 1;
	if (perf_engine_ports(&r->o, r->cfg, r->sides, 1) != 0)
		return 1;
	if (perf_link_wait(&r->sides[0], 20, true) != 0) {
		perf_engine_close(r->sides, 1, false);
		return 1;
	}
	perf_print_info(&r->o, &r->sides[0], false);
	perf_print_header(&r->o);
	if (perf_run_raw(&r->o, &r->sides[0], &r->results[0]) != 0)
		status = 1;
	r->nres = 1;
	perf_print_row(&r->o, &r->results[0]);
	perf_print_footer();
	if (r->o.json != NULL && perf_json_write(&r->o, r->results, r->nres) != 0)
		status = 1;
	perf_engine_close(r->sides, 1, false);
	return status;
}

/* Ports, devices, the measurements and the report: the exit status. */
static int
run_test(struct perf_run *r)
{
	int status;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (r->o.raw)
		return run_raw(r);
	/* One end per process: memif, or attached with --server/--client. */
	r->memif = r->o.link == LINK_MEMIF ||
		   (r->o.link == LINK_ATTACH && (r->o.server || r->o.client));
	r->server = r->memif && r->o.server;
	r->nsides = r->memif ? 1 : 2;
	memset(r->sides, 0, sizeof(r->sides));
	r->sides[0].idx = r->server ? 1 : 0;
	r->sides[1].idx = 1;
	if (perf_engine_ports(&r->o, r->cfg, r->sides, r->nsides) != 0)
		return 1;
	if (setup_sides(r) != 0) {
		perf_engine_stop(r->sides, r->nsides);
		perf_engine_close(r->sides, r->nsides, false);
		return 1;
	}
	perf_print_info(&r->o, &r->sides[0], r->server);
	perf_print_addresses(&r->o, &r->sides[0]);
	perf_print_header(&r->o);
	status = r->server ? serve_sizes(r) : drive_sizes(r);
	perf_print_footer();
	if (r->o.json != NULL && !r->server && perf_json_write(&r->o, r->results, r->nres) != 0)
		status = 1;
	if (teardown(r) != 0)
		status = 1;
	return status;
}

int
main(int argc, char **argv)
{
	static struct perf_run r = { .oob = { .fd = -1, .listen_fd = -1 } };
	char **eal_argv = argv;
	int eal_argc = argc, rc, status;
	const char *trace;
	bool eal_from_cfg;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (perftest_wanted(argc, argv))
		return perftest_peer_main(argc - 1, argv);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		perf_usage(stdout, "rnic-perf");
		return 0;
	}
	if (eal_args_from_config(argc, argv, &r.cfg, &eal_argc, &eal_argv) != 0)
		return 1;
	eal_from_cfg = eal_argv != argv;
	rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "rnic-perf: EAL init failed: %s (on a machine without hugepages "
			"give --no-huge --no-pci --no-shconf -m 1024)\n", rte_strerror(rte_errno));
		rnic_config_free(r.cfg);
		if (eal_from_cfg)
			free(eal_argv);
		return 1;
	}
	/* dpdk-dumpcap / dpdk-pdump attach as secondaries when they can. */
	rnic_app_capture_init(rnic_perf_logtype, "rnic-perf");
	if (!eal_from_cfg) {
		argc -= rc;
		argv += rc;
	}
	status = parse_run(&r, argc, argv);
	trace = getenv("RNIC_LAT_TRACE");
	if (status == 0 && trace != NULL && (rc = rnic_trace_start(TRACE_RECS)) != 0) {
		fprintf(stderr, "rnic-perf: RNIC_LAT_TRACE: %s (build with meson -Dlat_trace=true)\n",
			strerror(-rc));
		status = 1;
	}
	if (status == 0)
		status = run_test(&r);
	if (trace != NULL && status == 0 && (rc = rnic_trace_dump(trace)) != 0) {
		fprintf(stderr, "rnic-perf: RNIC_LAT_TRACE %s: %s\n", trace, strerror(-rc));
		status = 1;
	}
	rnic_app_capture_uninit();
	perf_oob_close(&r.oob);
	rnic_config_free(r.cfg);
	if (eal_from_cfg)
		free(eal_argv);
	/*
	 * DPDK 22.11's net_memif frees a server port's listener interrupt
	 * handle on close without unregistering its callback, and
	 * rte_eal_cleanup unmaps memory while the interrupt thread may still
	 * walk that handle (SIGSEGV in rte_intr_fd_get, now and then). The
	 * memif server leaves without EAL cleanup: the port is closed (its
	 * socket file removed), the process exits.
	 */
	if (r.server) {
		fflush(NULL);
		_exit(status);
	}
	rte_eal_cleanup();
	return status;
}
