/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-pcap: decode a capture, one line per frame, and a summary line.
 * Reads pcap through libpcap, so captures from tcpdump, tshark and
 * dpdk-dumpcap (pcapng) all work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

#include <pcap/pcap.h>

#include "rnic_wire.h"

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-q] FILE.pcap\n"
		"  -q  print only the summary line\n"
		"Prints one line per frame and ends with\n"
		"summary: frames=N roce=R icrc_ok=K icrc_bad=B malformed=M other=O\n",
		prog);
}

int
main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t frames = 0, roce = 0, ok = 0, bad = 0, malformed = 0, other = 0;
	bool quiet = false;
	pcap_t *p;
	int c, rc;

	while ((c = getopt(argc, argv, "qh")) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		usage(argv[0]);
		return 2;
	}
	p = pcap_open_offline(argv[optind], errbuf);
	if (p == NULL) {
		fprintf(stderr, "rnic-pcap: %s: %s\n", argv[optind], errbuf);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "rnic-pcap: %s: link type %d is not Ethernet\n",
			argv[optind], pcap_datalink(p));
		pcap_close(p);
		return 1;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct rnic_pkt pkt;
		enum rnic_pkt_err e;
		char line[512];

		frames++;
		/* A truncated capture (snaplen) is judged on what was captured. */
		e = rnic_pkt_parse_buf(data, h->caplen, true, &pkt);
		if (e == RNIC_PKT_ERR_OK || e == RNIC_PKT_ERR_ICRC) {
			roce++;
			if (e == RNIC_PKT_ERR_OK)
				ok++;
			else
				bad++;
			if (!quiet) {
				rnic_pkt_format(line, sizeof(line), &pkt);
				printf("%llu %s icrc=%s\n", (unsigned long long)frames,
				       line, e == RNIC_PKT_ERR_OK ? "ok" : "bad");
			}
		} else if (rnic_pkt_err_is_other(e)) {
			other++;
			if (!quiet)
				printf("%llu other: %s\n", (unsigned long long)frames,
				       rnic_pkt_err_str[e]);
		} else {
			malformed++;
			if (!quiet)
				printf("%llu malformed: %s (%s)\n", (unsigned long long)frames,
				       rnic_pkt_err_name[e], rnic_pkt_err_str[e]);
		}
	}
	if (rc == -1) {
		fprintf(stderr, "rnic-pcap: %s: %s\n", argv[optind], pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	pcap_close(p);
	printf("summary: frames=%llu roce=%llu icrc_ok=%llu icrc_bad=%llu malformed=%llu other=%llu\n",
	       (unsigned long long)frames, (unsigned long long)roce,
	       (unsigned long long)ok, (unsigned long long)bad,
	       (unsigned long long)malformed, (unsigned long long)other);
	return 0;
}
