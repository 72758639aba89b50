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
 * perftest has. doc/user-guide.md has the commands.
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

int
main(int argc, char **argv)
{
	struct perf_opts o;
	struct rnic_config *cfg = NULL;
	struct perf_side sides[2];
	struct perf_result results[32];
	struct perf_oob oob = { .fd = -1, .listen_fd = -1 };
	uint64_t sizes[32];
	unsigned int nsizes, nres = 0, nsides;
	char **eal_argv = argv, err[512];
	int eal_argc = argc, rc, status = 0;
	bool memif = false, server = false, eal_from_cfg = false, oob_ok = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* "-- --perftest ...": perftest's peer over perftest's own exchange. */
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			if (strcmp(argv[i + 1], "--perftest") == 0) {
				memmove(&argv[i + 1], &argv[i + 2],
					(size_t)(argc - i - 1) * sizeof(char *));
				return perftest_peer_main(argc - 1, argv);
			}
			break;
		}
	}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		perf_usage(stdout, "rnic-perf");
		return 0;
	}
	/* "rnic-perf --config FILE ...": the EAL arguments come from the file. */
	if (argc >= 3 && strcmp(argv[1], "--config") == 0) {
		cfg = rnic_config_load_file(argv[2], err, sizeof(err));
		if (cfg == NULL) {
			fprintf(stderr, "rnic-perf: %s: %s\n", argv[2], err);
			return 1;
		}
		eal_argc = (int)cfg->eal_argc + 1;
		eal_argv = calloc((size_t)eal_argc + 1, sizeof(char *));
		if (eal_argv == NULL) {
			fprintf(stderr, "rnic-perf: out of memory\n");
			rnic_config_free(cfg);
			return 1;
		}
		eal_argv[0] = argv[0];
		for (unsigned int i = 0; i < cfg->eal_argc; i++)
			eal_argv[i + 1] = cfg->eal_argv[i];
		eal_from_cfg = true;
	}
	rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "rnic-perf: EAL init failed: %s (on a machine without hugepages "
			"give --no-huge --no-pci --no-shconf -m 1024)\n", rte_strerror(rte_errno));
		rnic_config_free(cfg);
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
	if (perf_parse_args(argc, argv, &o) != 0) {
		fprintf(stderr, "(rnic-perf -- --help for the options)\n");
		status = 2;
		goto out_eal;
	}
	if (o.config != NULL && cfg == NULL) {
		cfg = rnic_config_load_file(o.config, err, sizeof(err));
		if (cfg == NULL) {
			fprintf(stderr, "rnic-perf: %s: %s\n", o.config, err);
			status = 1;
			goto out_eal;
		}
	}
	if (cfg != NULL) {
		/* The ports section decides the topology. */
		if (cfg->n_ports >= 2 && cfg->ports[0].ring_peer_idx == 1)
			o.link = LINK_RING;
		else if (cfg->n_ports >= 2 && cfg->ports[0].ring_peer_idx < 0)
			o.link = LINK_PAIR;
		else if (cfg->n_ports == 1 && cfg->ports[0].ring_peer_idx < 0)
			o.link = LINK_MEMIF;
		else {
			fprintf(stderr, "rnic-perf: %s: want two ring_peer ports, two device ports "
				"or one device port\n", o.config);
			status = 1;
			goto out_eal;
		}
		if (o.link == LINK_MEMIF && o.server == o.client) {
			fprintf(stderr, "rnic-perf: a one-port configuration is one end of --link "
				"memif: add --server or --client\n");
			status = 1;
			goto out_eal;
		}
		if (o.link != LINK_MEMIF && (o.server || o.client)) {
			fprintf(stderr, "rnic-perf: --server/--client go with a one-port "
				"(memif) configuration\n");
			status = 1;
			goto out_eal;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	memif = o.link == LINK_MEMIF;
	server = memif && o.server;
	nsides = memif ? 1 : 2;
	memset(sides, 0, sizeof(sides));
	sides[0].idx = server ? 1 : 0;
	sides[1].idx = 1;

	if (perf_engine_ports(&o, cfg, sides, nsides) != 0) {
		status = 1;
		goto out_eal;
	}
	if (memif) {
		/* The server takes the client's test parameters. */
		if (server) {
			struct perf_params p;

			if (perf_oob_server(&oob, o.tcp_port, 600) != 0 ||
			    perf_oob_recv(&oob, PM_PARAMS, &p, sizeof(p), 30) != (int)sizeof(p)) {
				status = 1;
				goto out_ports;
			}
			if (perf_check_params(&p, err, sizeof(err)) != 0) {
				perf_oob_send(&oob, PM_ERROR, err, (uint32_t)strlen(err) + 1);
				status = 1;
				goto out_ports;
			}
			o.p = p;
			perf_oob_send(&oob, PM_PARAMS_OK, NULL, 0);
		} else {
			if (perf_oob_client(&oob, o.host, o.tcp_port, 60) != 0 ||
			    perf_oob_send(&oob, PM_PARAMS, &o.p, sizeof(o.p)) != 0 ||
			    perf_oob_recv(&oob, PM_PARAMS_OK, NULL, 0, 30) < 0) {
				status = 1;
				goto out_ports;
			}
		}
		oob_ok = true;
	}
	if (perf_engine_devices(&o, cfg, sides, nsides) != 0) {
		status = 1;
		goto out_ports;
	}
	for (unsigned int i = 0; i < nsides; i++) {
		if (perf_side_create(&o, &sides[i]) != 0) {
			status = 1;
			goto out_ports;
		}
	}
	if (memif) {
		if (perf_exchange_info(&oob, &sides[0]) != 0) {
			status = 1;
			goto out_ports;
		}
	} else {
		peer_local(&sides[0], &sides[1]);
		peer_local(&sides[1], &sides[0]);
	}
	for (unsigned int i = 0; i < nsides; i++) {
		if (perf_side_connect(&o, &sides[i]) != 0 ||
		    (sides[i].own_port_setup && perf_link_wait(&sides[i], 20) != 0)) {
			status = 1;
			goto out_ports;
		}
	}
	if (perf_engine_launch(&o, cfg, sides, nsides) != 0) {
		status = 1;
		goto out_ports;
	}
	perf_print_info(&o, &sides[0], server);
	perf_print_addresses(&o, &sides[0]);
	perf_print_header(&o);
	perf_sizes(&o.p, sizes, &nsizes);

	if (server) {
		for (;;) {
			uint64_t size;
			int m = server_next(&oob, &size);

			if (m == PM_FIN)
				break;
			if (m != PM_SIZE || nres == RTE_DIM(results)) {
				oob_ok = false;
				status = 1;
				break;
			}
			if (perf_run_server(&o, &sides[0], &oob, size, &results[nres]) != 0)
				status = 1;
			perf_print_row(&o, &results[nres]);
			if (results[nres].errors)
				status = 1;
			nres++;
		}
	} else {
		for (unsigned int i = 0; i < nsizes && !perf_quit; i++) {
			struct perf_result *r = &results[nres++];

			if (memif)
				rc = perf_run_client(&o, &sides[0], &oob, sizes[i], r);
			else
				rc = perf_run_local(&o, &sides[0], &sides[1], sizes[i], r);
			perf_print_row(&o, r);
			for (unsigned int k = 0; k < nsides; k++)
				if (perf_check_counters(&sides[k], o.verbose) != 0)
					rc = -1;
			if (rc != 0) {
				status = 1;
				fprintf(stderr, "rnic-perf: size %" PRIu64 " failed: stopping\n",
					sizes[i]);
				break;
			}
		}
		if (memif && oob_ok && perf_oob_send(&oob, PM_FIN, NULL, 0) != 0)
			oob_ok = false;
	}
	perf_print_footer();
	if (o.json != NULL && !server && perf_json_write(&o, results, nres) != 0)
		status = 1;

	/*
	 * Teardown. Over net_memif, both engines stop before either port
	 * closes, the client closes first and the server once its interrupt
	 * thread has handled the disconnect (test/memif explains why).
	 */
	if (memif && oob_ok) {
		if (server) {
			perf_engine_stop(sides, nsides);
			if (perf_oob_send(&oob, PM_FIN, NULL, 0) != 0 ||
			    perf_oob_recv(&oob, PM_CLOSED, NULL, 0, 30) < 0)
				status = 1;
			perf_engine_close(sides, nsides, true);
		} else {
			if (wait_polling(&oob, PM_FIN, 30) != 0)
				status = 1;
			perf_engine_stop(sides, nsides);
			perf_engine_close(sides, nsides, false);
			perf_oob_send(&oob, PM_CLOSED, NULL, 0);
		}
	} else {
		perf_engine_stop(sides, nsides);
		perf_engine_close(sides, nsides, false);
	}
	goto out_eal;
out_ports:
	perf_engine_stop(sides, nsides);
	perf_engine_close(sides, nsides, false);
out_eal:
	rnic_app_capture_uninit();
	perf_oob_close(&oob);
	rnic_config_free(cfg);
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
	if (server) {
		fflush(NULL);
		_exit(status);
	}
	rte_eal_cleanup();
	return status;
}
