/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf command line: perftest's flags where they apply (same letters,
 * same long names, same defaults), plus the softrnic topology options.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf.h"

void
perf_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [EAL args] -- TEST [options]            (TEST: write_bw, read_lat, ...)\n"
"       %s [EAL args] -- --test VERB --bw|--lat [options]\n"
"       %s --config FILE TEST [options]            (EAL args from the file)\n"
"       %s [EAL args] -- --perftest --test TEST [options] [server_ip]\n"
"                          perftest's peer: ib_write_bw etc. on another host run\n"
"                          against softrnic over perftest's own TCP exchange\n"
"                          (doc/interop.md; -- --perftest --help for its options)\n"
"\n"
"Tests (perftest's names): send_bw send_lat write_bw write_lat read_bw read_lat\n"
"  atomic_bw atomic_lat; an ib_ prefix is accepted (ib_write_bw).\n"
"  --test send|write|read|atomic  the verb; with --bw (default) or --lat\n"
"\n"
"perftest options:\n"
"  -s, --size=B            message size (bw 65536, lat 2, atomic 8)\n"
"  -a, --all               every size 2 B .. 8 MiB, powers of two\n"
"  -n, --iters=N           messages per QP and size (bw 5000, lat 1000)\n"
"  -D, --duration=S        run S seconds per size instead of -n\n"
"      --margin=S          -D warm-up not measured (default min(1, S/5))\n"
"  -q, --qp=N              QPs (bw only, 1..16384)\n"
"  -c, --connection=T      RC (default), UC or UD\n"
"  -m, --mtu=B             path MTU 256..4096 (default 1024)\n"
"  -t, --tx-depth=N        outstanding WRs per QP (bw 128)\n"
"  -r, --rx-depth=N        receive WQEs per QP for send tests (512)\n"
"  -l, --post_list=N       WRs per post_send call (1)\n"
"  -Q, --cq-mod=N          a completion every N WRs (100, at most -t)\n"
"  -I, --inline_size=B     send messages up to B bytes inline (0, at most 1024)\n"
"  -o, --outs=N            outstanding READ/atomic operations (16)\n"
"  -A, --atomic_type=T     CMP_AND_SWAP or FETCH_AND_ADD (default)\n"
"  -b, --bidirectional     both sides send (bw only)\n"
"  -N, --noPeak            do not compute the peak bandwidth\n"
"  -u, --qp-timeout=T      RC local ACK timeout 4.096 us * 2^T (14; 0 = none)\n"
"      --report_gbits      Gb/sec instead of MB/sec (MB = 2^20 bytes, as perftest)\n"
"      --out_json FILE     also write the results as JSON\n"
"  -p, --port=P            TCP port of the out-of-band exchange (18515)\n"
"\n"
"softrnic topology:\n"
"  --link ring             both ends in this process on an in-process ring pair (default)\n"
"  --link pair             both ends in this process on the first two DPDK ports\n"
"                          (e.g. two net_memif ports to a dpdk-testpmd forwarding between them)\n"
"  --link memif --server   one end, on the net_memif port; waits for the client\n"
"  --link memif --client [HOST]  the other end; connects to HOST (127.0.0.1) and drives\n"
"  --rtc                   run to completion: every engine role of every device on one worker lcore\n"
"  --pipeline              TX, RX and timer roles on three separate worker lcores\n"
"  --engine-on-main        the main lcore also runs the engines (one thread per process)\n"
"                          (default: each device on its own worker lcore; the main lcore posts and polls)\n"
"  --config FILE           softrnic JSON config: its eal, ports and lcores sections\n"
"  --ring-size=N           ring pair size (default 4096)\n"
"  --queues=N              pair/memif ports: RX and TX queues (pair 1, for testpmd; memif 2)\n"
"  --timer-every=N         poll the timer role every Nth engine loop (1, as softrnic)\n"
"  --no-progress           no progress lines on stderr\n"
"  -v, --verbose           engine counters after each size\n",
		prog, prog, prog, prog);
}

static const char *const verb_names[] = { "send", "write", "read", "atomic" };

static int
parse_test_word(const char *w, struct perf_opts *o)
{
	char buf[32];
	char *us;

	if (strncmp(w, "ib_", 3) == 0)
		w += 3;
	snprintf(buf, sizeof(buf), "%s", w);
	us = strchr(buf, '_');
	if (us == NULL)
		return -1;
	*us++ = '\0';
	for (unsigned int v = 0; v < 4; v++) {
		if (strcmp(buf, verb_names[v]) != 0)
			continue;
		if (strcmp(us, "bw") == 0)
			o->p.kind = KIND_BW;
		else if (strcmp(us, "lat") == 0)
			o->p.kind = KIND_LAT;
		else
			return -1;
		o->p.verb = v;
		return 0;
	}
	return -1;
}

static int
num(const char *arg, const char *what, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "rnic-perf: %s should be between %" PRIu64 " and %" PRIu64
			" (got \"%s\")\n", what, lo, hi, arg);
		return -1;
	}
	*out = v;
	return 0;
}

enum {
	OPT_TEST = 256, OPT_BW, OPT_LAT, OPT_GBITS, OPT_JSON, OPT_LINK, OPT_SERVER, OPT_CLIENT,
	OPT_RTC, OPT_PIPELINE, OPT_MAIN, OPT_CONFIG, OPT_RING, OPT_MARGIN, OPT_NOPROG,
	OPT_QUEUES, OPT_TIMER_EVERY,
};

int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	static const struct option lo[] = {
		{ "test", required_argument, NULL, OPT_TEST },
		{ "bw", no_argument, NULL, OPT_BW },
		{ "lat", no_argument, NULL, OPT_LAT },
		{ "size", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "iters", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "margin", required_argument, NULL, OPT_MARGIN },
		{ "qp", required_argument, NULL, 'q' },
		{ "connection", required_argument, NULL, 'c' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "post_list", required_argument, NULL, 'l' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "inline_size", required_argument, NULL, 'I' },
		{ "outs", required_argument, NULL, 'o' },
		{ "atomic_type", required_argument, NULL, 'A' },
		{ "bidirectional", no_argument, NULL, 'b' },
		{ "noPeak", no_argument, NULL, 'N' },
		{ "qp-timeout", required_argument, NULL, 'u' },
		{ "report_gbits", no_argument, NULL, OPT_GBITS },
		{ "out_json", required_argument, NULL, OPT_JSON },
		{ "port", required_argument, NULL, 'p' },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "server", no_argument, NULL, OPT_SERVER },
		{ "client", no_argument, NULL, OPT_CLIENT },
		{ "rtc", no_argument, NULL, OPT_RTC },
		{ "pipeline", no_argument, NULL, OPT_PIPELINE },
		{ "engine-on-main", no_argument, NULL, OPT_MAIN },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "queues", required_argument, NULL, OPT_QUEUES },
		{ "timer-every", required_argument, NULL, OPT_TIMER_EVERY },
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct perf_params *p = &o->p;
	bool test_set = false, kind_set = false;
	unsigned int n_maps = 0;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	p->verb = VERB_WRITE;
	p->kind = KIND_BW;
	p->conn = RNIC_QPT_RC;
	p->qps = 1;
	p->mtu = 1024;
	p->post_list = 1;
	p->out_reads = 16;
	p->atomic_type = ATOMIC_FETCH_AND_ADD;
	p->margin = -1;
	p->qp_timeout = 14;   /* perftest's DEF_QP_TIME */
	o->link = LINK_RING;
	o->tcp_port = PERF_DEF_PORT;
	o->host = "127.0.0.1";
	o->ring_size = 4096;
	o->progress = true;
	optind = 1;
	opterr = 1;
	/* '+': stop at the first non-option? No: permute, so that the test
	 * name may come first or last, as with perftest's server name. */
	while ((c = getopt_long(argc, argv, "s:an:D:q:c:m:t:r:l:Q:I:o:A:bNu:p:vh", lo, NULL)) != -1) {
		switch (c) {
		case OPT_TEST:
			for (v = 0; v < 4 && strcmp(optarg, verb_names[v]) != 0; v++)
				;
			if (v == 4) {
				fprintf(stderr, "rnic-perf: --test: \"%s\" is not one of send, write, "
					"read, atomic\n", optarg);
				return -1;
			}
			p->verb = (uint32_t)v;
			test_set = true;
			break;
		case OPT_BW:
		case OPT_LAT:
			p->kind = c == OPT_BW ? KIND_BW : KIND_LAT;
			kind_set = true;
			break;
		case 's':
			if (num(optarg, "-s (size)", 0, PERF_MAX_SIZE, &p->size))
				return -1;
			o->size_set = true;
			break;
		case 'a':
			p->all_sizes = 1;
			break;
		case 'n':
			if (num(optarg, "-n (iterations)", 5, 100000000000ull, &p->iters))
				return -1;
			o->iters_set = true;
			break;
		case 'D': {
			char *end;

			p->duration = strtod(optarg, &end);
			if (*end != '\0' || !(p->duration > 0) || p->duration > 86400) {
				fprintf(stderr, "rnic-perf: -D (duration) should be over 0 and at most 86400 s\n");
				return -1;
			}
			break;
		}
		case OPT_MARGIN: {
			char *end;

			p->margin = strtod(optarg, &end);
			if (*end != '\0' || p->margin < 0) {
				fprintf(stderr, "rnic-perf: --margin should be >= 0 seconds\n");
				return -1;
			}
			break;
		}
		case 'q':
			if (num(optarg, "-q (QPs)", 1, PERF_MAX_QPS, &v))
				return -1;
			p->qps = (uint32_t)v;
			break;
		case 'c':
			if (strcasecmp(optarg, "RC") == 0)
				p->conn = RNIC_QPT_RC;
			else if (strcasecmp(optarg, "UC") == 0)
				p->conn = RNIC_QPT_UC;
			else if (strcasecmp(optarg, "UD") == 0)
				p->conn = RNIC_QPT_UD;
			else {
				fprintf(stderr, "rnic-perf: -c: \"%s\" is not RC, UC or UD\n", optarg);
				return -1;
			}
			break;
		case 'm':
			if (num(optarg, "-m (MTU)", 256, 4096, &v))
				return -1;
			if (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096) {
				fprintf(stderr, "rnic-perf: -m: MTU must be 256, 512, 1024, 2048 or 4096\n");
				return -1;
			}
			p->mtu = (uint32_t)v;
			break;
		case 't':
			if (num(optarg, "-t (TX depth)", 1, 32768, &v))
				return -1;
			p->tx_depth = (uint32_t)v;
			o->tx_set = true;
			break;
		case 'r':
			if (num(optarg, "-r (RX depth)", 1, 16384, &v))
				return -1;
			p->rx_depth = (uint32_t)v;
			o->rx_set = true;
			break;
		case 'l':
			if (num(optarg, "-l (post list)", 1, 1024, &v))
				return -1;
			p->post_list = (uint32_t)v;
			break;
		case 'Q':
			if (num(optarg, "-Q (CQ moderation)", 1, 1024, &v))
				return -1;
			p->cq_mod = (uint32_t)v;
			o->cq_mod_set = true;
			break;
		case 'I':
			if (num(optarg, "-I (inline size)", 0, 1024, &v))
				return -1;
			p->inline_size = (uint32_t)v;
			break;
		case 'o':
			if (num(optarg, "-o (outstanding reads)", 1, 16, &v))
				return -1;
			p->out_reads = (uint32_t)v;
			break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWAP") == 0)
				p->atomic_type = ATOMIC_CMP_AND_SWAP;
			else if (strcmp(optarg, "FETCH_AND_ADD") == 0)
				p->atomic_type = ATOMIC_FETCH_AND_ADD;
			else {
				fprintf(stderr, "rnic-perf: -A: choose CMP_AND_SWAP or FETCH_AND_ADD\n");
				return -1;
			}
			break;
		case 'b':
			p->duplex = 1;
			break;
		case 'N':
			p->no_peak = 1;
			break;
		case 'u':
			if (num(optarg, "-u (QP timeout)", 0, 31, &v))
				return -1;
			p->qp_timeout = (uint32_t)v;
			break;
		case OPT_GBITS:
			o->gbits = true;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case 'p':
			if (num(optarg, "-p (TCP port)", 1, 65535, &v))
				return -1;
			o->tcp_port = (uint16_t)v;
			break;
		case OPT_LINK:
			if (strcmp(optarg, "ring") == 0)
				o->link = LINK_RING;
			else if (strcmp(optarg, "pair") == 0)
				o->link = LINK_PAIR;
			else if (strcmp(optarg, "memif") == 0)
				o->link = LINK_MEMIF;
			else {
				fprintf(stderr, "rnic-perf: --link: \"%s\" is not ring, pair or memif\n",
					optarg);
				return -1;
			}
			break;
		case OPT_SERVER:
			o->server = true;
			break;
		case OPT_CLIENT:
			o->client = true;
			break;
		case OPT_RTC:
			o->map = MAP_RTC;
			n_maps++;
			break;
		case OPT_PIPELINE:
			o->map = MAP_PIPELINE;
			n_maps++;
			break;
		case OPT_MAIN:
			o->map = MAP_MAIN;
			n_maps++;
			break;
		case OPT_CONFIG:
			o->config = optarg;
			break;
		case OPT_RING:
			if (num(optarg, "--ring-size", 64, 1u << 20, &v))
				return -1;
			if (v & (v - 1)) {
				fprintf(stderr, "rnic-perf: --ring-size must be a power of two\n");
				return -1;
			}
			o->ring_size = (uint32_t)v;
			break;
		case OPT_QUEUES:
			if (num(optarg, "--queues", 1, 2, &v))
				return -1;
			o->queues = (uint16_t)v;
			break;
		case OPT_TIMER_EVERY:
			if (num(optarg, "--timer-every", 1, 4096, &v))
				return -1;
			o->timer_every = (uint32_t)v;
			break;
		case OPT_NOPROG:
			o->progress = false;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			perf_usage(stdout, "rnic-perf");
			exit(0);
		default:
			return -1;
		}
	}
	for (int i = optind; i < argc; i++) {
		struct perf_opts save = *o;

		if (parse_test_word(argv[i], o) == 0) {
			if (test_set || kind_set) {
				fprintf(stderr, "rnic-perf: \"%s\" and --test/--bw/--lat: give one\n",
					argv[i]);
				return -1;
			}
			test_set = kind_set = true;
			continue;
		}
		*o = save;
		if (o->client && (o->link == LINK_MEMIF || o->config != NULL) &&
		    strcmp(o->host, "127.0.0.1") == 0) {
			o->host = argv[i];
			continue;
		}
		fprintf(stderr, "rnic-perf: unexpected argument \"%s\"\n", argv[i]);
		return -1;
	}
	if (n_maps > 1) {
		fprintf(stderr, "rnic-perf: --rtc, --pipeline and --engine-on-main exclude each other\n");
		return -1;
	}
	if (o->config && n_maps == 0)
		o->map = MAP_CONFIG;
	if (o->server && o->client) {
		fprintf(stderr, "rnic-perf: --server or --client, not both\n");
		return -1;
	}
	/* With --config the ports section decides the link (rnic_perf.c). */
	if (o->config == NULL && o->link == LINK_MEMIF && o->server == o->client) {
		fprintf(stderr, "rnic-perf: --link memif needs --server or --client\n");
		return -1;
	}
	if (o->config == NULL && o->link != LINK_MEMIF && (o->server || o->client)) {
		fprintf(stderr, "rnic-perf: --server/--client go with --link memif\n");
		return -1;
	}
	/* perftest's defaults */
	if (!o->size_set)
		p->size = p->kind == KIND_BW ? 65536 : 2;
	if (p->verb == VERB_ATOMIC)
		p->size = 8;
	if (!o->iters_set)
		p->iters = p->kind == KIND_BW ? 5000 : 1000;
	if (!o->tx_set)
		p->tx_depth = p->kind == KIND_BW ? 128 : 1;
	if (!o->rx_set)
		p->rx_depth = 512;
	if (!o->cq_mod_set)
		p->cq_mod = 100;
	if (p->cq_mod > p->tx_depth)
		p->cq_mod = p->tx_depth;
	if (p->verb == VERB_READ || p->verb == VERB_ATOMIC)
		p->inline_size = 0;
	if (p->duration > 0 && p->margin < 0)
		p->margin = p->duration / 5 < 1.0 ? p->duration / 5 : 1.0;
	if (p->margin < 0)
		p->margin = 0;
	{
		char err[200];

		if (perf_check_params(p, err, sizeof(err)) != 0) {
			fprintf(stderr, "rnic-perf: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* Checks shared by both ends (the server re-checks what the client sent). */
int
perf_check_params(const struct perf_params *p, char *err, size_t len)
{
	if (p->verb > VERB_ATOMIC || p->kind > KIND_LAT) {
		snprintf(err, len, "unknown test");
		return -1;
	}
	if (p->conn != RNIC_QPT_RC && p->conn != RNIC_QPT_UC && p->conn != RNIC_QPT_UD) {
		snprintf(err, len, "unknown connection type");
		return -1;
	}
	if ((p->verb == VERB_READ || p->verb == VERB_ATOMIC) && p->conn != RNIC_QPT_RC) {
		snprintf(err, len, "%s needs -c RC", p->verb == VERB_READ ? "read" : "atomic");
		return -1;
	}
	if (p->verb == VERB_WRITE && p->conn == RNIC_QPT_UD) {
		snprintf(err, len, "write needs -c RC or UC (UD has no RDMA WRITE)");
		return -1;
	}
	if (p->conn == RNIC_QPT_UD && !p->all_sizes && p->size > p->mtu) {
		snprintf(err, len, "UD messages are at most one MTU (-s %" PRIu64 " > -m %u)",
			 p->size, p->mtu);
		return -1;
	}
	if (p->kind == KIND_LAT && p->qps != 1) {
		snprintf(err, len, "latency tests use one QP (as perftest)");
		return -1;
	}
	if (p->kind == KIND_LAT && p->duplex) {
		snprintf(err, len, "-b goes with bandwidth tests");
		return -1;
	}
	if (p->kind == KIND_LAT && p->verb == VERB_WRITE && !p->all_sizes && p->size == 0) {
		snprintf(err, len, "write_lat needs -s 1 or more (the peer watches the last byte)");
		return -1;
	}
	if (p->size > PERF_MAX_SIZE || p->qps == 0 || p->qps > PERF_MAX_QPS ||
	    p->tx_depth == 0 || p->post_list == 0 || p->cq_mod == 0 || p->rx_depth == 0 ||
	    p->out_reads == 0 || p->out_reads > 16 || p->inline_size > 1024 || p->qp_timeout > 31 ||
	    (p->mtu & (p->mtu - 1)) || p->mtu < 256 || p->mtu > 4096) {
		snprintf(err, len, "parameter out of range");
		return -1;
	}
	if (p->post_list > p->tx_depth) {
		snprintf(err, len, "-l (%u) must not exceed -t (%u)", p->post_list, p->tx_depth);
		return -1;
	}
	if ((uint64_t)p->qps * p->tx_depth > (1u << 22)) {
		snprintf(err, len, "-q x -t is at most 4194304 outstanding WRs");
		return -1;
	}
	return 0;
}

const char *
perf_test_name(const struct perf_params *p)
{
	static const char *const n[4] = { "Send", "RDMA_Write", "RDMA_Read", "Atomic" };

	return n[p->verb & 3];
}

void
perf_sizes(const struct perf_params *p, uint64_t *sizes, unsigned int *n)
{
	*n = 0;
	if (p->verb == VERB_ATOMIC) {
		sizes[(*n)++] = 8;
		return;
	}
	if (!p->all_sizes) {
		sizes[(*n)++] = p->size;
		return;
	}
	for (uint64_t s = 2; s <= PERF_MAX_SIZE; s <<= 1) {
		if (p->conn == RNIC_QPT_UD && s > p->mtu)
			break;
		sizes[(*n)++] = s;
	}
}

uint64_t
perf_max_size(const struct perf_params *p)
{
	uint64_t sizes[32];
	unsigned int n;

	perf_sizes(p, sizes, &n);
	return sizes[n - 1];
}
