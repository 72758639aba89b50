/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf: perftest's report layout. The test information block, the
 * address lines, then one row per message size under perftest's column
 * headers:
 *   bandwidth: #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
 *              (Gb/sec with --report_gbits; MB = 2^20 bytes, Gb = 10^9 bits,
 *              as perftest computes them)
 *   latency:   #bytes #iterations t_min t_max t_typical t_avg t_stdev
 *              99% percentile 99.9% percentile, in usec
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_lcore.h>

#include "perf.h"

#define RESULT_LINE \
	"---------------------------------------------------------------------------------------\n"

static const char *
conn_str(uint32_t c)
{
	return c == RNIC_QPT_RC ? "RC" : c == RNIC_QPT_UC ? "UC" : "UD";
}

static const char *
link_str(enum perf_link l)
{
	return l == LINK_RING ? "ring pair" : l == LINK_PAIR ? "port pair" : "net_memif";
}

static void
test_title(const struct perf_opts *o, char *b, size_t n)
{
	const struct perf_params *p = &o->p;

	if (o->raw) {
		snprintf(b, n, "Raw frame Latency Test");
		return;
	}
	snprintf(b, n, "%s %s%s%s%s", perf_test_name(p),
		 p->verb == VERB_ATOMIC ?
		 (p->atomic_type == ATOMIC_CMP_AND_SWAP ? "CMP_AND_SWAP " : "FETCH_AND_ADD ") : "",
		 p->kind == KIND_BW && p->duplex ? "Bidirectional " : "",
		 p->kind == KIND_BW && p->post_list > 1 ? "Post List " : "",
		 p->kind == KIND_BW ? "BW Test" : "Latency Test");
}

void
perf_print_info(const struct perf_opts *o, const struct perf_side *s, bool is_server)
{
	const struct perf_params *p = &o->p;
	char title[96];

	RTE_SET_USED(s);
	test_title(o, title, sizeof(title));
	printf(RESULT_LINE);
	printf("                    %s\n", title);
	if (o->raw) {
		printf(" Device          : net_memif port, no softrnic device (no RDMA)\n");
		printf(" Frame           : %" PRIu64 "[B] Ethernet, type 0x88b5, one in flight\n",
		       p->size);
		printf(" Peer            : reflects every frame (dpdk-testpmd "
		       "--forward-mode=macswap)\n");
		printf(" Reported        : half the round trip, as write_lat\n");
		if (p->duration > 0)
			printf(" Duration        : %.1f s (%.1f s warm-up not measured)\n",
			       p->duration, p->margin);
		printf(RESULT_LINE);
		return;
	}
	printf(" Dual-port       : OFF          Device         : softrnic (%s)\n", link_str(o->link));
	printf(" Number of qps   : %-5u        Transport type : IB\n", p->qps);
	printf(" Connection type : %s           Using SRQ      : OFF\n", conn_str(p->conn));
	if (!is_server || p->duplex)
		printf(" TX depth        : %u\n", p->tx_depth);
	if (p->post_list > 1)
		printf(" Post List       : %u\n", p->post_list);
	if (p->verb == VERB_SEND && (is_server || p->duplex || o->link != LINK_MEMIF))
		printf(" RX depth        : %u\n", p->rx_depth);
	if (p->kind == KIND_BW)
		printf(" CQ Moderation   : %u\n", p->cq_mod);
	printf(" Mtu             : %u[B]\n", p->mtu);
	printf(" Link type       : Ethernet\n");
	if (p->verb != VERB_READ && p->verb != VERB_ATOMIC)
		printf(" Max inline data : %u[B]\n", p->inline_size);
	else
		printf(" Outstand reads  : %u\n", p->out_reads);
	printf(" rdma_cm QPs     : OFF\n");
	printf(" Data ex. method : %s\n", o->link == LINK_MEMIF ? "Ethernet (TCP)" : "in-process");
	if (p->duration > 0)
		printf(" Duration        : %.1f s per size (%.1f s warm-up not measured)\n",
		       p->duration, p->margin);
	perf_engine_describe(stdout);
	printf(RESULT_LINE);
}

static void
addr_line(const char *who, uint32_t qpn, uint32_t psn, uint32_t rkey, uint64_t va,
	  const uint8_t *mac, rte_be32_t ip, const struct perf_params *p)
{
	const uint8_t *a = (const uint8_t *)&ip;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", who, 0, qpn, psn);
	if (p->verb == VERB_READ || p->verb == VERB_ATOMIC)
		printf(" OUT %#04x", p->out_reads);
	if (p->verb != VERB_SEND)
		printf(" RKey %#08x VAddr %#016" PRIx64, rkey, va);
	printf("\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:%02d:%02d:%02d:%02d"
	       "  MAC %02x:%02x:%02x:%02x:%02x:%02x\n", a[0], a[1], a[2], a[3],
	       mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

/* The local and remote address lines of side @p s (at most 4 QPs each). */
void
perf_print_addresses(const struct perf_opts *o, const struct perf_side *s)
{
	const uint32_t show = RTE_MIN(s->nqp, 4u);

	for (uint32_t i = 0; i < show; i++)
		addr_line("local", rnic_qp_num(s->qp[i]), s->psn[i], rnic_mr_rkey(s->mr),
			  (uint64_t)(uintptr_t)side_target(s), s->mac, s->ip, &o->p);
	if (s->nqp > show)
		printf(" ... and %u more local QPs\n", s->nqp - show);
	for (uint32_t i = 0; i < show; i++)
		addr_line("remote", s->peer_qpn[i], s->peer_psn[i], s->peer_rkey, s->peer_addr,
			  s->peer_mac, s->peer_ip, &o->p);
	if (s->nqp > show)
		printf(" ... and %u more remote QPs\n", s->nqp - show);
	printf(RESULT_LINE);
}

void
perf_print_header(const struct perf_opts *o)
{
	if (o->p.kind == KIND_BW)
		printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n",
		       o->gbits ? "Gb/sec" : "MB/sec", o->gbits ? "Gb/sec" : "MB/sec");
	else
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
		       "99.9%% percentile[usec]\n");
	fflush(stdout);
}

static double
bw_units(const struct perf_opts *o, double bytes_per_s)
{
	return o->gbits ? bytes_per_s * 8 / 1e9 : bytes_per_s / 1048576.0;
}

void
perf_print_row(const struct perf_opts *o, const struct perf_result *r)
{
	if (o->p.kind == KIND_BW) {
		double avg = bw_units(o, r->bw_avg);

		printf(avg < 0.1 && o->gbits ?
		       " %-7" PRIu64 "    %-10" PRIu64 "       %-10.6f         %-10.6f           %-7.6f\n" :
		       " %-7" PRIu64 "    %-10" PRIu64 "       %-10.2f         %-10.2f           %-7.6f\n",
		       r->size, r->iters, bw_units(o, r->bw_peak), avg, r->msg_rate / 1e6);
	} else {
		printf(" %-7" PRIu64 " %-10" PRIu64 "    %-7.2f        %-7.2f      %-7.2f          "
		       "%-7.2f        %-7.2f          %-7.2f                %-7.2f\n",
		       r->size, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev,
		       r->t_99, r->t_999);
	}
	fflush(stdout);
}

void
perf_print_footer(void)
{
	printf(RESULT_LINE);
	fflush(stdout);
}

int
perf_json_write(const struct perf_opts *o, const struct perf_result *r, unsigned int n)
{
	const struct perf_params *p = &o->p;
	char title[96];
	FILE *f = fopen(o->json, "w");

	if (f == NULL) {
		fprintf(stderr, "rnic-perf: --out_json %s: %s\n", o->json, strerror(errno));
		return -1;
	}
	test_title(o, title, sizeof(title));
	for (char *c = title; *c; c++)
		if (*c == ' ')
			*c = '_';
	fprintf(f, "{\n\"test_info\": {\n\"test\": \"%s\",\n\"link\": \"%s\",\n"
		"\"connection\": \"%s\",\n\"qps\": %u,\n\"mtu\": %u,\n\"tx_depth\": %u,\n"
		"\"post_list\": %u,\n\"cq_mod\": %u,\n\"inline_size\": %u,\n\"out_reads\": %u,\n"
		"\"duration\": %.3f,\n\"engine_on_main\": %s,\n\"units\": \"%s\"\n},\n\"results\": [\n",
		title, o->link == LINK_RING ? "ring" : o->link == LINK_PAIR ? "pair" : "memif",
		conn_str(p->conn), p->qps, p->mtu, p->tx_depth, p->post_list, p->cq_mod,
		p->inline_size, p->out_reads, p->duration, perf_engine_on_main() ? "true" : "false",
		p->kind == KIND_LAT ? "usec" : o->gbits ? "Gb/sec" : "MB/sec");
	for (unsigned int i = 0; i < n; i++) {
		if (p->kind == KIND_BW)
			fprintf(f, "{\"MsgSize\": %" PRIu64 ", \"n_iterations\": %" PRIu64
				", \"BW_peak\": %.6f, \"BW_average\": %.6f, \"MsgRate\": %.6f, "
				"\"seconds\": %.6f}%s\n", r[i].size, r[i].iters,
				bw_units(o, r[i].bw_peak), bw_units(o, r[i].bw_avg),
				r[i].msg_rate / 1e6, r[i].secs, i + 1 < n ? "," : "");
		else
			fprintf(f, "{\"MsgSize\": %" PRIu64 ", \"n_iterations\": %" PRIu64
				", \"t_min\": %.3f, \"t_max\": %.3f, \"t_typical\": %.3f, "
				"\"t_avg\": %.3f, \"t_stdev\": %.3f, \"99_percentile\": %.3f, "
				"\"99.9_percentile\": %.3f}%s\n", r[i].size, r[i].iters, r[i].t_min,
				r[i].t_max, r[i].t_typical, r[i].t_avg, r[i].t_stdev, r[i].t_99,
				r[i].t_999, i + 1 < n ? "," : "");
	}
	fprintf(f, "]\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}
