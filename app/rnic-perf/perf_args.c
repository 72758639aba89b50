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
"  raw_lat: no RDMA, a latency baseline: -s B Ethernet frames (default 64, 60..1514)\n"
"  sent one at a time on the --link memif --client port to a peer that reflects\n"
"  them (dpdk-testpmd --forward-mode=macswap), half the round trip reported\n"
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
"  --attach SOCKET         the ends on a running softrnic daemon's ports (issue 20:\n"
"                          config/gateway.json), no engine in this process: both in\n"
"                          this process (its ports 0 and 1), or with --server (port 1)\n"
"                          / --client [HOST] (port 0) one per process\n"
"  --rtc                   run to completion: every engine role of every device on one worker lcore\n"
"  --pipeline              TX, RX and timer roles on three separate worker lcores\n"
"  --engine-on-main        the main lcore also runs the engines (one thread per process)\n"
"                          (default: each device on its own worker lcore; the main lcore posts and polls)\n"
"  --config FILE           softrnic JSON config: its eal, ports and lcores sections\n"
"  --ring-size=N           ring pair size (default 4096)\n"
"  --queues=N              pair/memif ports: RX and TX queues (pair 1, for testpmd; memif 2)\n"
"  --timer-every=N         poll the timer role every Nth engine loop (1, as softrnic)\n"
"  --dcqcn=K=V[,K=V...]    DCQCN's reaction point: enabled=0|1 and the parameters of\n"
"                          the config's ports[].dcqcn (line_mbps, rpg_time_reset,\n"
"                          rpg_byte_reset, rpg_threshold, rpg_ai_rate, rpg_hai_rate,\n"
"                          rpg_min_rate, rpg_min_dec_fac, rate_reduce_monitor_period,\n"
"                          initial_alpha_value, alpha_period, dce_tcp_g_shift)\n"
"  --inflight=N            RC requests outstanding per QP, 16..512 (the device's\n"
"                          max_inflight; default 64)\n"
"  --tclass=N              the QPs' traffic class, 0..255, as perftest's: the IPv4\n"
"                          TOS (DSCP << 2 | ECN; ECN 0: the device's ECT(0))\n"
"  --no-ecn                the QPs send Not-ECT (the device marks ECT(0) otherwise)\n"
"  --sr                    RC: selective repeat (softrnic's extension), used when\n"
"                          the peer passes --sr too (told in the address exchange)\n"
"\n"
"impaired link (--link ring; net_impair on the client's end, both directions):\n"
"  --loss=P, --dup=P, --reorder=P, --corrupt=P\n"
"                          drop, duplicate, reorder (by up to 4 packets), corrupt\n"
"                          each packet with probability P: a fraction (0.01) or a\n"
"                          percentage (1%%)\n"
"  --impair-seed=N         the impairments' random seed (1)\n"
"  --bottleneck=rate_mbps=N[,queue_pkts=N,ecn_kmin=N,ecn_kmax=N,ecn_pmax=P]\n"
"                          the client's egress limited to N Mb/s behind a queue\n"
"                          with tail drop and RED-style ECN marking; with -q > 1\n"
"                          each QP's rate and their fairness follow on stderr\n"
"  --flow-trace=FILE       bandwidth tests: each QP's rate every 50 ms (the first\n"
"                          64 QPs), CSV (t_s,qp0_gbps,...) written at the end\n"
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
	if (strcmp(w, "raw_lat") == 0) {
		o->raw = true;
		o->p.kind = KIND_LAT;
		return 0;
	}
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
	OPT_QUEUES, OPT_TIMER_EVERY, OPT_LOSS, OPT_DUP, OPT_REORDER, OPT_CORRUPT, OPT_ISEED, OPT_INFLIGHT,
	OPT_TCLASS,
	OPT_NO_ECN, OPT_SR, OPT_ATTACH,
	OPT_DCQCN, OPT_BOTTLENECK, OPT_FLOW_TRACE,
};

/* What the option groups share while parsing: whether the test was named
 * and how many lcore mappings were given. */
struct parse_state {
	bool test_set, kind_set;
	unsigned int n_maps;
};

/* An option group: 0 when it took option @p c, -1 on a bad value (the
 * message printed), 1 when @p c is none of its options. */
typedef int (*opt_group_fn)(int c, const char *arg, struct perf_opts *o, struct parse_state *st);

static void
set_defaults(struct perf_opts *o)
{
	struct perf_params *p = &o->p;

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
	o->impair_seed = 1;
	o->progress = true;
}

/* --test, --bw, --lat */
static int
opt_test(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	uint32_t v;

	switch (c) {
	case OPT_TEST:
		for (v = 0; v < 4 && strcmp(arg, verb_names[v]) != 0; v++)
			;
		if (v == 4) {
			fprintf(stderr, "rnic-perf: --test: \"%s\" is not one of send, write, "
				"read, atomic\n", arg);
			return -1;
		}
		o->p.verb = v;
		st->test_set = true;
		return 0;
	case OPT_BW:
	case OPT_LAT:
		o->p.kind = c == OPT_BW ? KIND_BW : KIND_LAT;
		st->kind_set = true;
		return 0;
	default:
		return 1;
	}
}

/* How much and how long: -s, -a, -n, -D, --margin. */
static int
opt_amount(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	struct perf_params *p = &o->p;
	char *end;

	RTE_SET_USED(st);
	switch (c) {
	case 's':
		if (num(arg, "-s (size)", 0, PERF_MAX_SIZE, &p->size))
			return -1;
		o->size_set = true;
		return 0;
	case 'a':
		p->all_sizes = 1;
		return 0;
	case 'n':
		if (num(arg, "-n (iterations)", 5, 100000000000ull, &p->iters))
			return -1;
		o->iters_set = true;
		return 0;
	case 'D':
		p->duration = strtod(arg, &end);
		if (*end != '\0' || !(p->duration > 0) || p->duration > 86400) {
			fprintf(stderr, "rnic-perf: -D (duration) should be over 0 and at most 86400 s\n");
			return -1;
		}
		return 0;
	case OPT_MARGIN:
		p->margin = strtod(arg, &end);
		if (*end != '\0' || p->margin < 0) {
			fprintf(stderr, "rnic-perf: --margin should be >= 0 seconds\n");
			return -1;
		}
		return 0;
	default:
		return 1;
	}
}

/* The connection: -q, -c, -m, -u, -b. */
static int
opt_connection(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	struct perf_params *p = &o->p;
	uint64_t v;

	RTE_SET_USED(st);
	switch (c) {
	case 'q':
		if (num(arg, "-q (QPs)", 1, PERF_MAX_QPS, &v))
			return -1;
		p->qps = (uint32_t)v;
		return 0;
	case 'c':
		if (strcasecmp(arg, "RC") == 0)
			p->conn = RNIC_QPT_RC;
		else if (strcasecmp(arg, "UC") == 0)
			p->conn = RNIC_QPT_UC;
		else if (strcasecmp(arg, "UD") == 0)
			p->conn = RNIC_QPT_UD;
		else {
			fprintf(stderr, "rnic-perf: -c: \"%s\" is not RC, UC or UD\n", arg);
			return -1;
		}
		return 0;
	case 'm':
		if (num(arg, "-m (MTU)", 256, 4096, &v))
			return -1;
		if (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096) {
			fprintf(stderr, "rnic-perf: -m: MTU must be 256, 512, 1024, 2048 or 4096\n");
			return -1;
		}
		p->mtu = (uint32_t)v;
		return 0;
	case 'u':
		if (num(arg, "-u (QP timeout)", 0, 31, &v))
			return -1;
		p->qp_timeout = (uint32_t)v;
		return 0;
	case 'b':
		p->duplex = 1;
		return 0;
	default:
		return 1;
	}
}

/* The work requests: -t, -r, -l, -Q, -I, -o, -A. */
static int
opt_wr(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	static const struct {
		int c;
		const char *what;
		uint64_t lo, hi;
	} range[] = {
		{ 't', "-t (TX depth)", 1, 32768 }, { 'r', "-r (RX depth)", 1, 16384 },
		{ 'l', "-l (post list)", 1, 1024 }, { 'Q', "-Q (CQ moderation)", 1, 1024 },
		{ 'I', "-I (inline size)", 0, 1024 }, { 'o', "-o (outstanding reads)", 1, 16 },
	};
	struct perf_params *p = &o->p;
	uint64_t v = 0;

	RTE_SET_USED(st);
	for (unsigned int i = 0; i < RTE_DIM(range); i++)
		if (range[i].c == c && num(arg, range[i].what, range[i].lo, range[i].hi, &v))
			return -1;
	switch (c) {
	case 't':
		p->tx_depth = (uint32_t)v;
		o->tx_set = true;
		return 0;
	case 'r':
		p->rx_depth = (uint32_t)v;
		o->rx_set = true;
		return 0;
	case 'l':
		p->post_list = (uint32_t)v;
		return 0;
	case 'Q':
		p->cq_mod = (uint32_t)v;
		o->cq_mod_set = true;
		return 0;
	case 'I':
		p->inline_size = (uint32_t)v;
		return 0;
	case 'o':
		p->out_reads = (uint32_t)v;
		return 0;
	case 'A':
		if (strcmp(arg, "CMP_AND_SWAP") == 0)
			p->atomic_type = ATOMIC_CMP_AND_SWAP;
		else if (strcmp(arg, "FETCH_AND_ADD") == 0)
			p->atomic_type = ATOMIC_FETCH_AND_ADD;
		else {
			fprintf(stderr, "rnic-perf: -A: choose CMP_AND_SWAP or FETCH_AND_ADD\n");
			return -1;
		}
		return 0;
	default:
		return 1;
	}
}

/* The report: -N, --report_gbits, --out_json, --no-progress, -v, -h. */
static int
opt_report(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	RTE_SET_USED(st);
	switch (c) {
	case 'N':
		o->p.no_peak = 1;
		return 0;
	case OPT_GBITS:
		o->gbits = true;
		return 0;
	case OPT_JSON:
		o->json = arg;
		return 0;
	case OPT_NOPROG:
		o->progress = false;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		perf_usage(stdout, "rnic-perf");
		exit(0);
	default:
		return 1;
	}
}

/* Where the ends are: --link, --server, --client, -p, --config. */
static int
opt_link(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	uint64_t v;

	RTE_SET_USED(st);
	switch (c) {
	case OPT_LINK:
		if (strcmp(arg, "ring") == 0)
			o->link = LINK_RING;
		else if (strcmp(arg, "pair") == 0)
			o->link = LINK_PAIR;
		else if (strcmp(arg, "memif") == 0)
			o->link = LINK_MEMIF;
		else {
			fprintf(stderr, "rnic-perf: --link: \"%s\" is not ring, pair or memif\n",
				arg);
			return -1;
		}
		return 0;
	case OPT_SERVER:
		o->server = true;
		return 0;
	case OPT_CLIENT:
		o->client = true;
		return 0;
	case 'p':
		if (num(arg, "-p (TCP port)", 1, 65535, &v))
			return -1;
		o->tcp_port = (uint16_t)v;
		return 0;
	case OPT_CONFIG:
		o->config = arg;
		return 0;
	case OPT_ATTACH:
		o->attach = arg;
		o->link = LINK_ATTACH;
		return 0;
	default:
		return 1;
	}
}

/* A probability: "0.01" or "1%". */
static int
prob(const char *arg, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%' && end[1] == '\0') {
		v /= 100.0;
		end++;
	}
	if (errno || end == arg || *end != '\0' || !(v >= 0.0 && v <= 1.0)) {
		fprintf(stderr, "rnic-perf: %s should be a fraction 0..1 or a percentage "
			"0%%..100%%, not \"%s\"\n", what, arg);
		return -1;
	}
	*out = v;
	return 0;
}

/* The impaired link: --loss, --dup, --reorder, --corrupt, --impair-seed. */
static int
opt_impair(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	RTE_SET_USED(st);
	if ((c >= OPT_LOSS && c <= OPT_ISEED) || c == OPT_BOTTLENECK)
		o->impair = true;
	switch (c) {
	case OPT_LOSS:
		return prob(arg, "--loss", &o->loss);
	case OPT_DUP:
		return prob(arg, "--dup", &o->dup);
	case OPT_REORDER:
		return prob(arg, "--reorder", &o->reorder);
	case OPT_CORRUPT:
		return prob(arg, "--corrupt", &o->corrupt);
	case OPT_ISEED:
		return num(arg, "--impair-seed", 1, UINT64_MAX, &o->impair_seed);
	case OPT_BOTTLENECK:
		if (strncmp(arg, "rate_mbps=", 10) != 0 || strlen(arg) > 160) {
			fprintf(stderr, "rnic-perf: --bottleneck: want rate_mbps=N[,queue_pkts=N,"
				"ecn_kmin=N,ecn_kmax=N,ecn_pmax=P] (drivers/net/impair/README.md)\n");
			return -1;
		}
		o->bottleneck = arg;
		return 0;
	case OPT_FLOW_TRACE:
		o->flow_trace = arg;
		return 0;
	default:
		return 1;
	}
}

/* --dcqcn enabled=1,line_mbps=10000,...: the names of ports[].dcqcn. */
static int
parse_dcqcn(const char *arg, struct perf_opts *o)
{
	struct rnic_dcqcn_params *d = &o->dcqcn;
	char buf[512], *tok, *save = NULL;
	static const struct { const char *k; size_t off; } keys[] = {
#define K(n, f) { n, offsetof(struct rnic_dcqcn_params, f) }
		K("line_mbps", line_mbps), K("rpg_time_reset", rpg_time_reset_us),
		K("rpg_byte_reset", rpg_byte_reset), K("rpg_threshold", rpg_threshold),
		K("rpg_ai_rate", rpg_ai_rate_mbps), K("rpg_hai_rate", rpg_hai_rate_mbps),
		K("rpg_min_rate", rpg_min_rate_mbps), K("rpg_min_dec_fac", rpg_min_dec_fac),
		K("rate_reduce_monitor_period", rate_reduce_monitor_period_us),
		K("initial_alpha_value", initial_alpha_value), K("alpha_period", alpha_period_us),
		K("dce_tcp_g_shift", dce_tcp_g_shift),
#undef K
	};

	if (!o->dcqcn_set)
		rnic_dcqcn_defaults(d, 100000);
	o->dcqcn_set = true;
	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "rnic-perf: --dcqcn: too long\n");
		return -1;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v;
		unsigned int i;

		if (eq == NULL) {
			fprintf(stderr, "rnic-perf: --dcqcn: \"%s\" is not KEY=VALUE\n", tok);
			return -1;
		}
		*eq++ = '\0';
		if (num(eq, tok, 0, UINT32_MAX, &v))
			return -1;
		if (strcmp(tok, "enabled") == 0) {
			o->no_dcqcn = v == 0;
			continue;
		}
		for (i = 0; i < RTE_DIM(keys) && strcmp(tok, keys[i].k) != 0; i++)
			;
		if (i == RTE_DIM(keys)) {
			fprintf(stderr, "rnic-perf: --dcqcn: unknown key \"%s\"\n", tok);
			return -1;
		}
		*(uint32_t *)((char *)d + keys[i].off) = (uint32_t)v;
	}
	if (!rnic_dcqcn_params_ok(d)) {
		fprintf(stderr, "rnic-perf: --dcqcn: a value is out of range (doc/congestion.md)\n");
		return -1;
	}
	return 0;
}

/* The engine: --rtc, --pipeline, --engine-on-main, --ring-size, --queues,
 * --timer-every. */
static int
opt_engine(int c, const char *arg, struct perf_opts *o, struct parse_state *st)
{
	uint64_t v;

	switch (c) {
	case OPT_RTC:
	case OPT_PIPELINE:
	case OPT_MAIN:
		o->map = c == OPT_RTC ? MAP_RTC : c == OPT_PIPELINE ? MAP_PIPELINE : MAP_MAIN;
		st->n_maps++;
		return 0;
	case OPT_RING:
		if (num(arg, "--ring-size", 64, 1u << 20, &v))
			return -1;
		if (v & (v - 1)) {
			fprintf(stderr, "rnic-perf: --ring-size must be a power of two\n");
			return -1;
		}
		o->ring_size = (uint32_t)v;
		return 0;
	case OPT_QUEUES:
		if (num(arg, "--queues", 1, 2, &v))
			return -1;
		o->queues = (uint16_t)v;
		return 0;
	case OPT_TIMER_EVERY:
		if (num(arg, "--timer-every", 1, 4096, &v))
			return -1;
		o->timer_every = (uint32_t)v;
		return 0;
	case OPT_DCQCN:
		return parse_dcqcn(arg, o);
	case OPT_INFLIGHT:
		if (num(arg, "--inflight", RNIC_INFLIGHT_MIN, RNIC_INFLIGHT_MAX, &v))
			return -1;
		o->inflight = (uint32_t)v;
		return 0;
	case OPT_TCLASS:
		if (num(arg, "--tclass", 0, 255, &v))
			return -1;
		o->tclass = (uint8_t)v;
		return 0;
	case OPT_NO_ECN:
		o->no_ecn = true;
		return 0;
	case OPT_SR:
		o->sr = true;
		return 0;
	default:
		return 1;
	}
}

static int
parse_options(int argc, char **argv, struct perf_opts *o, struct parse_state *st)
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
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "queues", required_argument, NULL, OPT_QUEUES },
		{ "timer-every", required_argument, NULL, OPT_TIMER_EVERY },
		{ "loss", required_argument, NULL, OPT_LOSS },
		{ "dup", required_argument, NULL, OPT_DUP },
		{ "reorder", required_argument, NULL, OPT_REORDER },
		{ "corrupt", required_argument, NULL, OPT_CORRUPT },
		{ "impair-seed", required_argument, NULL, OPT_ISEED },
		{ "inflight", required_argument, NULL, OPT_INFLIGHT },
		{ "tclass", required_argument, NULL, OPT_TCLASS },
		{ "no-ecn", no_argument, NULL, OPT_NO_ECN },
		{ "sr", no_argument, NULL, OPT_SR },
		{ "dcqcn", required_argument, NULL, OPT_DCQCN },
		{ "bottleneck", required_argument, NULL, OPT_BOTTLENECK },
		{ "flow-trace", required_argument, NULL, OPT_FLOW_TRACE },
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const opt_group_fn groups[] = {
		opt_test, opt_amount, opt_connection, opt_wr, opt_report, opt_link, opt_engine,
		opt_impair,
	};
	int c;

	optind = 1;
	opterr = 1;
	/* '+': stop at the first non-option? No: permute, so that the test
	 * name may come first or last, as with perftest's server name. */
	while ((c = getopt_long(argc, argv, "s:an:D:q:c:m:t:r:l:Q:I:o:A:bNu:p:vh", lo, NULL)) != -1) {
		int rc = 1;

		for (unsigned int g = 0; g < RTE_DIM(groups) && rc == 1; g++)
			rc = groups[g](c, optarg, o, st);
		if (rc != 0)   /* a bad value, or getopt's '?' */
			return -1;
	}
	return 0;
}

/* What is left: the test name (write_bw...) and, for a client, the host. */
static int
parse_operands(int argc, char **argv, struct perf_opts *o, struct parse_state *st)
{
	for (int i = optind; i < argc; i++) {
		struct perf_opts save = *o;

		if (parse_test_word(argv[i], o) == 0) {
			if (st->test_set || st->kind_set) {
				fprintf(stderr, "rnic-perf: \"%s\" and --test/--bw/--lat: give one\n",
					argv[i]);
				return -1;
			}
			st->test_set = st->kind_set = true;
			continue;
		}
		*o = save;
		if (o->client && (o->link == LINK_MEMIF || o->link == LINK_ATTACH ||
				  o->config != NULL) &&
		    strcmp(o->host, "127.0.0.1") == 0) {
			o->host = argv[i];
			continue;
		}
		fprintf(stderr, "rnic-perf: unexpected argument \"%s\"\n", argv[i]);
		return -1;
	}
	return 0;
}

/* Options that exclude or need each other. */
static int
check_topology(struct perf_opts *o, const struct parse_state *st)
{
	if (st->n_maps > 1) {
		fprintf(stderr, "rnic-perf: --rtc, --pipeline and --engine-on-main exclude each other\n");
		return -1;
	}
	if (o->config && st->n_maps == 0)
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
	if (o->config == NULL && o->link != LINK_MEMIF && o->link != LINK_ATTACH &&
	    (o->server || o->client)) {
		fprintf(stderr, "rnic-perf: --server/--client go with --link memif or --attach\n");
		return -1;
	}
	if (o->link == LINK_ATTACH && (o->config != NULL || o->raw || st->n_maps > 0)) {
		fprintf(stderr, "rnic-perf: --attach runs no engine here: not with --config, "
			"raw_lat, --rtc, --pipeline or --engine-on-main\n");
		return -1;
	}
	if (o->raw && (o->config != NULL || o->link != LINK_MEMIF || !o->client ||
		       o->p.all_sizes || o->p.verb != VERB_WRITE)) {
		fprintf(stderr, "rnic-perf: raw_lat goes with --link memif --client (the peer "
			"reflects frames: dpdk-testpmd --forward-mode=macswap), one -s\n");
		return -1;
	}
	return 0;
}

/* perftest's defaults for what was not given. */
static void
apply_test_defaults(struct perf_opts *o)
{
	struct perf_params *p = &o->p;

	if (!o->size_set)
		p->size = o->raw ? 64 : p->kind == KIND_BW ? 65536 : 2;
	if (o->raw && o->queues == 0)
		o->queues = 1;   /* the reflector (testpmd) has one queue */
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
}

int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	struct parse_state st = { false, false, 0 };
	char err[200];

	set_defaults(o);
	if (parse_options(argc, argv, o, &st) != 0 || parse_operands(argc, argv, o, &st) != 0 ||
	    check_topology(o, &st) != 0)
		return -1;
	apply_test_defaults(o);
	if (o->raw && (o->p.size < 60 || o->p.size > 1514)) {
		fprintf(stderr, "rnic-perf: raw_lat: -s is the frame length, 60..1514 bytes\n");
		return -1;
	}
	if (perf_check_params(&o->p, err, sizeof(err)) != 0) {
		fprintf(stderr, "rnic-perf: %s\n", err);
		return -1;
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
