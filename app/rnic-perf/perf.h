/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: a perftest-style benchmark for softrnic. Shared types.
 *
 * A run has one or two "sides" (an rnic_device with its PD, CQs, one MR
 * and QPs). Side 0 is the client (it drives the test), side 1 the server.
 * With --link ring or --link pair both sides live in this process; with
 * --link memif this process holds one of them and the other is in a peer
 * process reached over net_memif, with the out-of-band exchange on TCP.
 */
#ifndef RNIC_PERF_H
#define RNIC_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"

enum perf_verb { VERB_SEND, VERB_WRITE, VERB_READ, VERB_ATOMIC };
enum perf_kind { KIND_BW, KIND_LAT };
enum perf_link { LINK_RING, LINK_PAIR, LINK_MEMIF, LINK_ATTACH };
enum perf_map { MAP_DEFAULT, MAP_RTC, MAP_PIPELINE, MAP_MAIN, MAP_CONFIG };
enum perf_atomic { ATOMIC_CMP_AND_SWAP, ATOMIC_FETCH_AND_ADD };

#define PERF_MAX_SIZE      (8u << 20)   /* -a goes up to 8 MiB, as perftest */
#define PERF_MAX_QPS       16384u
#define PERF_UD_GRH        40u
#define PERF_DEF_PORT      18515
#define PERF_MAX_LAT_SAMPLES (64u << 20)

/* The options that define a test: what the client sends the server. */
struct perf_params {
	uint32_t verb;           /* enum perf_verb */
	uint32_t kind;           /* enum perf_kind */
	uint32_t all_sizes;      /* -a */
	uint32_t conn;           /* enum rnic_qp_type */
	uint64_t size;           /* -s */
	uint64_t iters;          /* -n */
	double duration;         /* -D seconds, 0: iterations */
	double margin;           /* warm-up excluded from a -D measurement */
	uint32_t qps;            /* -q */
	uint32_t mtu;            /* -m bytes */
	uint32_t tx_depth;       /* -t */
	uint32_t rx_depth;       /* -r */
	uint32_t post_list;      /* -l */
	uint32_t cq_mod;         /* -Q */
	uint32_t inline_size;    /* -I */
	uint32_t out_reads;      /* -o */
	uint32_t duplex;         /* -b */
	uint32_t atomic_type;    /* -A */
	uint32_t no_peak;        /* -N */
	uint32_t qp_timeout;     /* -u: local ACK timeout, 4.096 us * 2^u (14) */
};

struct perf_opts {
	struct perf_params p;
	bool gbits;              /* --report_gbits */
	const char *json;        /* --out_json */
	enum perf_link link;
	bool server, client;     /* --link memif */
	const char *host;        /* client: where the server listens */
	const char *attach;      /* --attach: the daemon's socket (LINK_ATTACH) */
	uint16_t tcp_port;       /* -p */
	enum perf_map map;
	const char *config;      /* --config */
	uint32_t ring_size;      /* --ring-size: each direction of the ring pair */
	uint16_t queues;         /* --queues: 0 = pair 1, memif 2 */
	uint32_t timer_every;    /* --timer-every: timer role every Nth loop */
	/* --loss, --dup, --reorder, --corrupt (fractions), --impair-seed: a
	 * net_impair over the client's end of the ring pair, both directions */
	double loss, dup, reorder, corrupt;
	uint64_t impair_seed;
	bool impair;             /* one of them given (0 too: the same link) */
	const char *bottleneck;  /* --bottleneck: net_impair's rate_mbps=... keys */
	const char *flow_trace;  /* --flow-trace: per-QP rate every 50 ms, CSV */
	uint32_t inflight;       /* --inflight: rnic_dev_attr.max_inflight (0: default) */
	uint8_t tclass;          /* --tclass: the AH's IPv4 TOS (perftest's traffic class) */
	bool no_ecn;             /* --no-ecn: the AVs ask for Not-ECT */
	bool sr;                 /* --sr: selective repeat where the peer has it too */
	bool dcqcn_set;          /* --dcqcn given: dcqcn and no_dcqcn below */
	bool no_dcqcn;
	struct rnic_dcqcn_params dcqcn;
	bool raw;                /* raw_lat: frame ping-pong, no RDMA (perf_run_raw) */
	bool progress;           /* progress lines on stderr for long runs */
	bool verbose;            /* engine counters after each size */
	bool size_set, iters_set, tx_set, cq_mod_set, rx_set;
};

/* One end: a device and everything on it. */
struct perf_side {
	int idx;                 /* 0 client, 1 server */
	uint16_t port_id;
	bool own_port_setup;     /* we configured the port (1 RX + 1 TX) */
	struct rte_mempool *rxpool;
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *scq, *rcq;
	struct rnic_mr *mr;
	uint8_t *buf;            /* [0, half): local buffer; [half, 2*half): remote target */
	uint64_t half;
	uint8_t mac[6];
	rte_be32_t ip;
	uint32_t nqp;
	struct rnic_qp **qp;
	uint32_t *psn;           /* each QP's start PSN */
	struct rnic_ah *ah;      /* UD: to the peer */
	/* The peer, as seen from this side. */
	uint8_t peer_mac[6];
	rte_be32_t peer_ip;
	uint32_t *peer_qpn, *peer_psn;
	uint64_t peer_addr;      /* the peer's remote-target area */
	uint32_t peer_rkey;
	bool peer_sr;            /* the peer asked for selective repeat too */
	uint32_t peer_qkey;
};

static inline uint8_t *
side_local(const struct perf_side *s)
{
	return s->buf;
}

static inline uint8_t *
side_target(const struct perf_side *s)
{
	return s->buf + s->half;
}

/* One measurement, what a report row shows. */
struct perf_result {
	uint64_t size;
	uint64_t iters;          /* bw: messages completed in the measured span */
	double secs;
	double bw_peak;          /* bytes/s */
	double bw_avg;           /* bytes/s */
	double msg_rate;         /* messages/s */
	/* latency, usec */
	double t_min, t_max, t_typical, t_avg, t_stdev, t_99, t_999;
	uint64_t errors;
};

/* perf_args.c */
int perf_parse_args(int argc, char **argv, struct perf_opts *o);
void perf_usage(FILE *f, const char *prog);
const char *perf_test_name(const struct perf_params *p);
void perf_sizes(const struct perf_params *p, uint64_t *sizes, unsigned int *n);
uint64_t perf_max_size(const struct perf_params *p);
int perf_check_params(const struct perf_params *p, char *err, size_t len);

/* perf_engine.c: devices, lcores and polling */
struct rnic_config;
int perf_engine_ports(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
		      unsigned int nsides);
int perf_engine_devices(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
			unsigned int nsides);
int perf_engine_launch(struct perf_opts *o, struct rnic_config *cfg, struct perf_side *sides,
		       unsigned int nsides);
void perf_engine_stop(struct perf_side *sides, unsigned int nsides);
void perf_engine_impair_report(const struct perf_opts *o, const struct perf_side *client);
void perf_engine_close(struct perf_side *sides, unsigned int nsides, bool wait_disconnect);
void perf_engine_describe(FILE *f);
/* Called by the application whenever it loops: polls the engines when the
 * main lcore runs them (--rtc=main), else backs off when @p idle. */
void perf_poll(bool idle);
bool perf_engine_on_main(void);
/* @p redial: restart the port while the link is down (not a memif server). */
int perf_link_wait(struct perf_side *s, double secs, bool redial);

/* perf_qp.c: PD, MR, CQs and QPs */
int perf_side_create(const struct perf_opts *o, struct perf_side *s);
int perf_side_connect(const struct perf_opts *o, struct perf_side *s);
void perf_side_destroy(struct perf_side *s);
void perf_pattern(uint8_t *p, uint64_t n, uint32_t seed);
int64_t perf_pattern_check(const uint8_t *p, uint64_t n, uint32_t seed);

/* perf_test.c: the measurements */
struct perf_oob;
extern volatile int perf_quit;
int perf_run_local(const struct perf_opts *o, struct perf_side *a, struct perf_side *b,
		   uint64_t size, struct perf_result *r);
int perf_run_client(const struct perf_opts *o, struct perf_side *a, struct perf_oob *oob,
		    uint64_t size, struct perf_result *r);
int perf_run_server(const struct perf_opts *o, struct perf_side *b, struct perf_oob *oob,
		    uint64_t size, struct perf_result *r);
int perf_check_counters(struct perf_side *s, bool verbose, bool lossy);
/* raw_lat: one frame at a time through the peer (a reflector such as
 * dpdk-testpmd --forward-mode=macswap) and back; half the round trip. */
int perf_run_raw(const struct perf_opts *o, struct perf_side *s, struct perf_result *r);

/* perf_oob.c: the TCP exchange of --link memif */
enum perf_msg {
	PM_PARAMS = 1, PM_PARAMS_OK, PM_INFO, PM_SIZE, PM_READY, PM_DONE,
	PM_RESULT, PM_FIN, PM_CLOSED, PM_ERROR,
};
struct perf_oob {
	int fd;
	int listen_fd;
	uint32_t last_type;      /* type of the last message received */
};
int perf_oob_server(struct perf_oob *b, uint16_t port, double secs);
int perf_oob_client(struct perf_oob *b, const char *host, uint16_t port, double secs);
int perf_oob_send(struct perf_oob *b, uint32_t type, const void *data, uint32_t len);
/* Receive one message of @p type (any type when 0) into @p data (at most
 * @p cap bytes); returns its length or -1. */
int perf_oob_recv(struct perf_oob *b, uint32_t type, void *data, uint32_t cap, double secs);
/* Non-blocking: 1 when a message is waiting, 0 if not, -1 when the peer is gone. */
int perf_oob_pending(struct perf_oob *b);
void perf_oob_close(struct perf_oob *b);
int perf_exchange_info(struct perf_oob *b, struct perf_side *s, bool sr);

/* perf_report.c */
void perf_print_info(const struct perf_opts *o, const struct perf_side *s, bool is_server);
void perf_print_addresses(const struct perf_opts *o, const struct perf_side *s);
void perf_print_header(const struct perf_opts *o);
void perf_print_row(const struct perf_opts *o, const struct perf_result *r);
void perf_print_footer(void);
int perf_json_write(const struct perf_opts *o, const struct perf_result *r, unsigned int n);

#endif /* RNIC_PERF_H */
