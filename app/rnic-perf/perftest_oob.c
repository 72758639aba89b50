/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's Ethernet out-of-band exchange (perftest_oob.h). Every exchange
 * is perftest's ctx_xchg_data: the client writes, then reads; the server
 * reads, then writes; each message whole:
 *   1. version string, 16 bytes ("6.06", NUL padded; peers refuse < 5.70)
 *   2. cycle buffer (page size) and cache line size, 4 bytes each, big
 *      endian; both sides use the larger of the two
 *   3. MTU as the decimal enum ibv_mtu value, 2 bytes ("3" = 1024)
 *   4. QP records, 108 bytes: "%04x:%04x:%06x:%06x:%08x:%016llx:" LID,
 *      out_reads, QPN, PSN, RKey, VAddr, then the 16 GID bytes "%02x:" each,
 *      then "%08x:" SRQN (KEY_PRINT_FMT_GID, NUL at the end); perftest
 *      reuses this exchange as its sync step everywhere
 *   5. BW reports: size, iters (8 bytes each), peak, average (MB/s) and
 *      message rate (Mpps) as big-endian doubles
 *   6. close: one record exchange, then each side writes "done\0" and
 *      closes.
 */
#include "perftest_oob.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "rnic_app_sock.h"

static int sock = -1;
static bool is_client;
static void (*poll_hook)(void);
static uint64_t deadline;

void
pt_oob_init(bool client, void (*poll)(void), uint64_t dl)
{
	is_client = client;
	poll_hook = poll;
	deadline = dl;
}

static int
xfer(void *buf, size_t len, bool wr)
{
	return rnic_app_sock_xfer(sock, buf, len, wr, deadline, poll_hook);
}

static int
xchg(const void *mine, void *theirs, size_t len)
{
	if (is_client)
		return xfer((void *)(uintptr_t)mine, len, true) || xfer(theirs, len, false) ? -1 : 0;
	return xfer(theirs, len, false) || xfer((void *)(uintptr_t)mine, len, true) ? -1 : 0;
}

static void
rec_fmt(const struct pt_dest *d, char rec[PT_REC_LEN])
{
	int o;

	memset(rec, 0, PT_REC_LEN);
	o = snprintf(rec, PT_REC_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":", d->lid,
		     d->out_reads, d->qpn, d->psn, d->rkey, d->vaddr);
	for (int i = 0; i < 16; i++)
		o += snprintf(rec + o, PT_REC_LEN - o, "%02x:", d->gid[i]);
	snprintf(rec + o, PT_REC_LEN - o, "%08x:", d->srqn);
}

static int
rec_parse(const char rec[PT_REC_LEN], struct pt_dest *d)
{
	char buf[PT_REC_LEN + 1], *save = NULL, *tok;
	unsigned long long v[23];
	int n = 0;

	memcpy(buf, rec, PT_REC_LEN);
	buf[PT_REC_LEN] = '\0';
	for (tok = strtok_r(buf, ":", &save); tok != NULL && n < 23;
	     tok = strtok_r(NULL, ":", &save)) {
		char *end;

		v[n++] = strtoull(tok, &end, 16);
		if (*end != '\0')
			return -1;
	}
	if (n != 23)
		return -1;
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	for (int i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)v[6 + i];
	d->srqn = (uint32_t)v[22];
	return 0;
}

int
pt_hand_shake(const struct pt_dest *me, struct pt_dest *rem)
{
	char mine[PT_REC_LEN], theirs[PT_REC_LEN];
	struct pt_dest tmp;

	rec_fmt(me, mine);
	if (xchg(mine, theirs, PT_REC_LEN) != 0) {
		perror("rnic-perf: QP record exchange");
		return -1;
	}
	if (rec_parse(theirs, rem ? rem : &tmp) != 0) {
		fprintf(stderr, "rnic-perf: couldn't parse <%.*s>\n", PT_REC_LEN, theirs);
		return -1;
	}
	return 0;
}

static uint64_t
be_dbl(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return rte_cpu_to_be_64(u);
}

static double
dbl_be(uint64_t u)
{
	double d;

	u = rte_be_to_cpu_64(u);
	memcpy(&d, &u, 8);
	return d;
}

int
pt_xchg_reports(uint64_t size, uint64_t iters, double bw, double rate, double *rem_bw)
{
	uint64_t m[5] = { rte_cpu_to_be_64(size), rte_cpu_to_be_64(iters), be_dbl(bw), be_dbl(bw),
			  be_dbl(rate) };
	uint64_t r[5];

	for (int i = 0; i < 5; i++)
		if (xchg(&m[i], &r[i], 8) != 0) {
			perror("rnic-perf: BW report exchange");
			return -1;
		}
	*rem_bw = dbl_be(r[3]);
	return 0;
}

int
pt_open(const char *server, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int lfd, one = 1;

	if (server != NULL) {
		if (inet_pton(AF_INET, server, &sa.sin_addr) != 1)
			return -1;
		sock = rnic_app_sock_connect("rnic-perf", server, &sa, deadline, poll_hook);
		if (sock < 0)
			return -1;
	} else {
		sock = rnic_app_sock_accept("rnic-perf", port, &lfd, deadline, poll_hook);
		if (lfd >= 0)
			close(lfd);
		if (sock < 0)
			return -1;
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

int
pt_prelude(uint32_t cycle_buffer, uint32_t cache_line, int mtu_enum, struct pt_peer *peer)
{
	char my_ver[PT_VER_LEN] = PT_VERSION;
	uint32_t m[2] = { htonl(cycle_buffer), htonl(cache_line) }, r[2];
	char my_mtu[2] = { (char)('0' + mtu_enum), 0 }, rem_mtu[3] = { 0 };

	memset(peer, 0, sizeof(*peer));
	if (xchg(my_ver, peer->version, PT_VER_LEN) != 0)
		return -1;
	printf("  remote perftest version: %s\n", peer->version);
	if (atof(peer->version) < 5.70) {
		fprintf(stderr, "rnic-perf: perftest version %s < 5.70 not supported\n",
			peer->version);
		return -1;
	}
	if (xchg(&m[0], &r[0], 4) != 0 || xchg(&m[1], &r[1], 4) != 0 ||
	    xchg(my_mtu, rem_mtu, 2) != 0)
		return -1;
	peer->cycle_buffer = ntohl(r[0]);
	peer->cache_line = ntohl(r[1]);
	peer->mtu_enum = atoi(rem_mtu);
	printf("  remote cycle buffer %u, cache line %u, MTU enum %d\n", peer->cycle_buffer,
	       peer->cache_line, peer->mtu_enum);
	return 0;
}

int
pt_close(const struct pt_dest *me)
{
	if (pt_hand_shake(me, NULL) != 0)
		return -1;
	if (xfer((char *)"done", 5, true) != 0) {
		perror("rnic-perf: write done");
		return -1;
	}
	return 0;
}

void
pt_wait_eof(unsigned int max_ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * max_ms;
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char tail[64];

	if (sock < 0)
		return;
	while (rte_get_tsc_cycles() < end) {
		int n = poll(&p, 1, 1);

		if (n > 0) {
			ssize_t r = read(sock, tail, sizeof(tail));

			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
				break;
		}
		poll_hook();
	}
}

void
pt_shutdown(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
}
