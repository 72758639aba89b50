/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rnic-perf --perftest: the peer of perftest's ib_write_bw, ib_read_bw,
 * ib_send_bw, ib_atomic_bw, ib_write_lat, ib_send_lat and ib_read_lat
 * (linux-rdma/perftest 6.x, RC, "Data ex. method: Ethernet") on a softrnic
 * engine (issue 7, doc/interop.md): perftest's own out-of-band exchange
 * over TCP, so a perftest on another host runs against softrnic as
 * against any RNIC.
 *
 *   rnic-perf [EAL args] -- --perftest --test TEST [-s size] [-a] [-n iters]
 *                      [-t tx_depth] [-A CMP_AND_SWAP|FETCH_AND_ADD] [-u qp_timeout]
 *                      [-p tcp_port] [--ip A.B.C.D] [--port-id N]
 *                      [--timeout secs] [server_ip]
 *   TEST: write|read|send|atomic (bandwidth, also write_bw..., ib_write_bw...)
 *         or write_lat|send_lat|read_lat
 *   -u: softrnic's QP local ACK timeout, 4.096 us * 2^u (default 17, ~0.5 s)
 *
 * Without server_ip softrnic is the server (the guest runs
 * "ib_send_bw -d rxe0 -x 1 <softrnic host ip>"); with it softrnic is the
 * client of a guest "ib_send_bw -d rxe0 -x 1" server. Give both sides the
 * same -s/-a/-n (and -A for atomic): perftest does not send them.
 *
 * The out-of-band steps are perftest_oob.c's; their order per test (from
 * perftest's src/<test>.c mains, RC, one QP, iterations, not duplex):
 *   all:        versions, cycle buffer + cache line, MTU
 *   records:    write_lat/read_lat exchange 2 QP records before connecting
 *               the QP, the others 1; all exchange 2 more after (print,
 *               then the "after RTR" sync)
 *   write/read/atomic bw: the client runs (-a: every size back to back,
 *               no sync); then one record exchange (the server waits in
 *               it), the BW reports, close
 *   send_bw:    per size: the server posts its receives, record exchange,
 *               run (the server's run_iter_bw_server re-posts receives as
 *               they complete), and with -a one more record exchange;
 *               then close (no BW reports)
 *   write_lat:  per size the ping-pong, no sync between sizes, no close
 *   send_lat:   per size: both post receives, record exchange, ping-pong;
 *               then close
 *   read_lat:   the client runs every size then closes; the server closes
 *               at once
 *
 * Checks, softrnic's side (perftest's own are its exit status and printed
 * results):
 *   - every WR and receive completes with success, iters per size;
 *   - data the guest sends is random but fixed (perftest fills its buffer
 *     once), so softrnic keeps a mirror of the guest's buffer: every byte
 *     received (send_bw and send_lat server and client: the guest's send
 *     buffer at perftest's cycling offsets; read_bw and read_lat client:
 *     the guest's buffer read back) must equal what earlier messages
 *     delivered at the same offset, and no message may leave the FILL
 *     pattern its landing area was reset to before each receive or READ;
 *   - write_lat: every incoming message must be exactly what perftest
 *     sends (its zeroed buffer, the iteration counter in the last byte,
 *     and with -a the last counters of the smaller sizes);
 *   - atomic as client: every returned value is checked (FetchAdd returns
 *     the slot's previous value + 1 per op, CmpSwap chains compare = the
 *     last value, swap = a new one), then a CmpSwap(x, x) per slot checks
 *     each final value; as server: each 64-byte slot perftest targets ends
 *     at its start value + its number of FetchAdds, or unchanged for its
 *     CmpSwap(0, 0), and no other byte of the buffer moved;
 *   - write_bw server: the written area is no longer the FILL pattern;
 *     every server: the QP is still RTS after the run.
 * Prints perftest-style BW or latency lines, then
 * "verified: ops=N bytes=B errors=E".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "perftest_oob.h"
#include "rnic_app_peer.h"
#include "rnic_engine.h"
#include "rnic_verbs.h"

#define FILL 0x7b
#define MAX_RD 16            /* softrnic's max (dest) rd_atomic */
#define CYCLE 4096           /* our page size (perftest's cycle buffer) */
#define CACHE_LINE 64
#define MAX_SIZE (1u << 23)  /* perftest's MAX_SIZE, the top of -a */
#define SLOT_MEM (64u << 20) /* receive / READ landing slots, at most */
#define ATOMIC_SIZE 8

enum test { T_WRITE, T_READ, T_SEND, T_ATOMIC, T_WRITE_LAT, T_SEND_LAT, T_READ_LAT };

static const struct {
	const char *name, *alt, *title;
	bool lat;
	int pre_records;         /* QP record exchanges before connecting */
} TI[] = {
	[T_WRITE] = { "write", "write_bw", "RDMA_Write BW", false, 1 },
	[T_READ] = { "read", "read_bw", "RDMA_Read BW", false, 1 },
	[T_SEND] = { "send", "send_bw", "Send BW", false, 1 },
	[T_ATOMIC] = { "atomic", "atomic_bw", "Atomic BW", false, 1 },
	[T_WRITE_LAT] = { "write_lat", NULL, "RDMA_Write Latency", true, 2 },
	[T_SEND_LAT] = { "send_lat", NULL, "Send Latency", true, 1 },
	[T_READ_LAT] = { "read_lat", NULL, "RDMA_Read Latency", true, 2 },
};

struct opts {
	enum test test;
	bool all, fadd;
	uint32_t size, iters, tx_depth;
	uint8_t qp_timeout;
	uint16_t tcp_port, port_id;
	rte_be32_t ip;
	unsigned int timeout_s;
	const char *server;
};

static struct opts o;
static struct rnic_device *dev;
static struct rnic_cq *cq;
static struct rnic_qp *qp;
static uint32_t lkey;
static struct pt_dest me, rem;
static bool is_client;
static uint64_t deadline;
static uint32_t cycle = CYCLE, cline = CACHE_LINE;  /* the larger of both sides' */

/* arena: [ local half | remote half (advertised) | landing slots ] */
static uint8_t *loc, *rmt, *slots;
static uint64_t region, slot_len;

/* the sizes of the run, the largest last */
static uint64_t sizes[24], nsizes, max_s;
/* the buffers' allocation */
static uint8_t *arena;

/* mirror of the guest's buffer as learnt from what it sent or returned */
static uint8_t *mirror, *known;

static uint64_t errors, ops, bytes, check_ops;
static uint64_t *tstamp;     /* latency: post time per iteration */

#define ERR(...) do { \
	if (errors++ < 20) \
		fprintf(stderr, "rnic-perf: " __VA_ARGS__); \
} while (0)

static void
engine_poll(void)
{
	rnic_dev_poll(dev, RNIC_ROLE_ALL);
}

static bool
expired(void)
{
	return rte_get_tsc_cycles() > deadline;
}

/* perftest's INC() and the cycling offset of message j (increase_loc_addr,
 * increase_rem_addr): sizes up to half the cycle buffer step through it by
 * INC, larger ones always use offset 0. */
static uint64_t
inc_of(uint64_t s)
{
	return s > cline ? RTE_ALIGN_CEIL(s, cline) : cline;
}

static uint64_t
cyc_off(uint64_t s, uint64_t j)
{
	uint64_t inc = inc_of(s);

	if (s > cycle / 2)
		return 0;
	return (j % (cycle / inc)) * inc;
}

/* Compare len bytes that the guest's buffer holds at off with what earlier
 * messages showed there; learn the bytes not seen yet. A message that still
 * holds the FILL its landing area was reset to (>= 16 bytes) is an error. */
static void
mirror_check(const uint8_t *data, uint64_t off, uint64_t len, uint64_t msg)
{
	uint64_t bad = 0, first = UINT64_MAX, fill = 0;

	for (uint64_t k = 0; k < len; k++) {
		fill += data[k] == FILL;
		if (!known[off + k]) {
			known[off + k] = 1;
			mirror[off + k] = data[k];
		} else if (mirror[off + k] != data[k]) {
			if (bad++ == 0)
				first = k;
		}
	}
	if (bad)
		ERR("message %" PRIu64 " (%" PRIu64 " B at guest offset %" PRIu64 "): %" PRIu64
		    " bytes differ from earlier messages, first at %" PRIu64 "\n", msg, len, off,
		    bad, first);
	if (len >= 16 && fill == len)
		ERR("message %" PRIu64 " (%" PRIu64 " B): no data arrived (landing area still "
		    "0x%02x)\n", msg, len, FILL);
}

static int
wait_wc(struct rnic_wc *wc)
{
	for (;;) {
		int n = rnic_poll_cq(cq, 1, wc);

		if (n > 0)
			return 0;
		if (expired()) {
			ERR("timed out after %u s waiting for a completion\n", o.timeout_s);
			return -1;
		}
		engine_poll();
	}
}

static bool
wc_ok(const struct rnic_wc *wc, const char *what)
{
	if (wc->status == RNIC_WC_SUCCESS)
		return true;
	ERR("%s wr_id %" PRIu64 ": %s (%d)\n", what, wc->wr_id, rnic_wc_status_str(wc->status),
	    wc->status);
	return false;
}

static int
post_recv_slot(uint32_t slot, uint64_t s)
{
	struct rnic_sge sge = { .addr = (uintptr_t)slots + slot * s, .length = (uint32_t)s,
				.lkey = lkey };
	struct rnic_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(slots + slot * s, FILL, s);
	if (rnic_post_recv(qp, &wr, &bad) != 0) {
		ERR("post_recv failed\n");
		return -1;
	}
	return 0;
}

static int
post_one(enum rnic_wr_opcode op, uint64_t wr_id, uint64_t laddr, uint32_t len, uint64_t raddr)
{
	struct rnic_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct rnic_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = RNIC_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rem.rkey;
	if (rnic_post_send(qp, &wr, &bad) != 0) {
		ERR("post_send failed\n");
		return -1;
	}
	return 0;
}

static double
now_us(void)
{
	struct timeval t;

	gettimeofday(&t, NULL);
	return t.tv_sec * 1e6 + t.tv_usec;
}

/* the last size's figures, for the BW report exchange (perftest sends its
 * last my_bw_rep) */
static double last_mbs, last_rate;

static void
bw_line(uint64_t s, uint64_t n, double usec)
{
	double mbs = usec > 0 ? (double)s * n / usec * 1e6 / 1048576.0 : 0;

	last_mbs = mbs;
	last_rate = usec > 0 ? n / usec : 0;

	printf(" %-7" PRIu64 "    %-10" PRIu64 "   %-12.2f   %-12.2f   %.6f   (softrnic, %.3f s)\n",
	       s, n, mbs, mbs, usec > 0 ? n / usec : 0, usec / 1e6);
	fflush(stdout);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* perftest's print_report_lat: deltas between consecutive posts, halved
 * for the ping-pongs, sorted; the 2 largest dropped (LAT_MEASURE_TAIL). */
static void
lat_line(uint64_t s, uint64_t n, int rtt_factor)
{
	uint64_t cnt = n - 1, *d;
	double q = rte_get_tsc_hz() / 1e6 * rtt_factor, sum = 0, var = 0, avg;

	if (n < 4)
		return;
	d = malloc(cnt * sizeof(*d));
	if (d == NULL)
		return;
	for (uint64_t i = 0; i < cnt; i++)
		d[i] = tstamp[i + 1] - tstamp[i];
	qsort(d, cnt, sizeof(*d), cmp_u64);
	cnt -= 2;
	for (uint64_t i = 0; i < cnt; i++)
		sum += d[i] / q;
	avg = sum / cnt;
	for (uint64_t i = 0; i < cnt; i++)
		var += (d[i] / q - avg) * (d[i] / q - avg);
	printf(" %-7" PRIu64 " %-10" PRIu64 " %-10.2f %-10.2f %-10.2f %-10.2f %-10.2f %-10.2f "
	       "%-10.2f (softrnic)\n", s, n, d[0] / q, d[cnt] / q,
	       (cnt % 2 ? d[cnt / 2] : (d[cnt / 2 - 1] + d[cnt / 2]) / 2) / q, avg,
	       sqrt(var / cnt), d[(uint64_t)ceil(cnt * 0.99)] / q,
	       d[(uint64_t)ceil(cnt * 0.999)] / q);
	fflush(stdout);
	free(d);
}

/* ---- bandwidth, softrnic as client ----------------------------------- */

struct atomic_slot {
	uint64_t compare, swap;
	bool first;
};

/* start value of the 8 bytes at off in the remote half (softrnic server) */
static uint64_t
atomic_v0(uint64_t off)
{
	uint64_t k = off / CACHE_LINE + 1;

	return 0x5a5a000000000000ull | k << 16 | k;
}

static uint64_t atomic_cur[CYCLE / 8];
static bool atomic_known[CYCLE / 8];

static void
atomic_verify(uint64_t j, const struct atomic_slot *a, uint64_t got, uint64_t nslots)
{
	uint64_t k = j % nslots;

	if (a->first) {
		atomic_known[k] = true;
		atomic_cur[k] = o.fadd ? got + 1 : got;  /* CmpSwap(0, 0) never changes it */
		return;
	}
	if (got != a->compare)
		ERR("%s %" PRIu64 " on slot %" PRIu64 ": returned 0x%016" PRIx64 ", expected "
		    "0x%016" PRIx64 "\n", o.fadd ? "FetchAdd" : "CmpSwap", j, k, got, a->compare);
	atomic_cur[k] = o.fadd ? a->compare + 1 : a->swap;
}

/* One size of a bandwidth run as client: what is posted and completed. */
struct bw_run {
	uint64_t s, posted, done;
	uint64_t window;             /* WRs in flight at most */
	uint64_t nslot;              /* READ / atomic landing slots */
	uint64_t aslots;             /* atomic: perftest's cycling slots */
	struct atomic_slot as[512];
};

/* Fill @p wr (its wr_id, sg_list and flags set) for WR @p j of @p b. */
static void
bw_fill_wr(struct bw_run *b, uint64_t j, struct rnic_send_wr *wr, struct rnic_sge *sge)
{
	uint64_t off = cyc_off(b->s, j), laddr = (uintptr_t)loc + off;
	enum rnic_wr_opcode op;

	switch (o.test) {
	case T_WRITE: op = RNIC_WR_RDMA_WRITE; break;
	case T_SEND: op = RNIC_WR_SEND; break;
	case T_READ:
		op = RNIC_WR_RDMA_READ;
		laddr = (uintptr_t)slots + (j % b->nslot) * b->s;
		memset((void *)(uintptr_t)laddr, FILL, b->s);
		break;
	default: {
		struct atomic_slot *a = &b->as[j % b->nslot];
		uint64_t k = j % b->aslots;

		op = o.fadd ? RNIC_WR_ATOMIC_FETCH_AND_ADD : RNIC_WR_ATOMIC_CMP_AND_SWP;
		laddr = (uintptr_t)slots + (j % b->nslot) * 8;
		*(uint64_t *)(uintptr_t)laddr = 0x7b7b7b7b7b7b7b7bull;
		a->first = !atomic_known[k];
		a->compare = a->first ? 0 : atomic_cur[k];
		a->swap = a->first ? 0 : (j + 1) * 0x9e3779b97f4a7c15ull;
		/* FetchAdd adds 1 (perftest's ATOMIC_ADD_VALUE) and is
		 * expected to return the slot's current value */
		wr->wr.atomic.compare_add = o.fadd ? 1 : a->compare;
		wr->wr.atomic.swap = a->swap;
		break;
	}
	}
	*sge = (struct rnic_sge){ .addr = laddr, .length = (uint32_t)b->s, .lkey = lkey };
	wr->opcode = op;
	if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD || op == RNIC_WR_ATOMIC_CMP_AND_SWP) {
		wr->wr.atomic.remote_addr = rem.vaddr + off;
		wr->wr.atomic.rkey = rem.rkey;
	} else if (op != RNIC_WR_SEND) {
		wr->wr.rdma.remote_addr = rem.vaddr + off;
		wr->wr.rdma.rkey = rem.rkey;
	}
}

/* Post until the window is full or every iteration is posted. */
static int
bw_post(struct bw_run *b)
{
	while (b->posted < o.iters && b->posted - b->done < b->window) {
		uint64_t j = b->posted;
		struct rnic_sge sge;
		struct rnic_send_wr wr = { .wr_id = j, .sg_list = &sge, .num_sge = 1,
					   .send_flags = RNIC_SEND_SIGNALED }, *bad;

		bw_fill_wr(b, j, &wr, &sge);
		if (rnic_post_send(qp, &wr, &bad) != 0) {
			ERR("post_send %" PRIu64 " failed\n", j);
			return -1;
		}
		b->posted++;
	}
	return 0;
}

/* Take the completions there are, in order, each checked. */
static int
bw_reap(struct bw_run *b)
{
	struct rnic_wc wc[32];
	int n = rnic_poll_cq(cq, RTE_DIM(wc), wc);

	if (n == 0 && expired()) {
		ERR("timed out after %u s: %" PRIu64 " of %u completed (size %" PRIu64 ")\n",
		    o.timeout_s, b->done, o.iters, b->s);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t j = wc[i].wr_id;

		if (!wc_ok(&wc[i], "WR"))
			return -1;
		if (j != b->done)
			ERR("completion for WR %" PRIu64 " while %" PRIu64 " was due\n", j, b->done);
		if (o.test == T_READ)
			mirror_check(slots + (j % b->nslot) * b->s, cyc_off(b->s, j), b->s, j);
		else if (o.test == T_ATOMIC)
			atomic_verify(j, &b->as[j % b->nslot],
				      *(uint64_t *)(slots + (j % b->nslot) * 8), b->aslots);
		b->done++;
		ops++;
		bytes += b->s;
	}
	return 0;
}

/* After an atomic run: one CmpSwap(x, x) per slot used returns x if the
 * last op landed. */
static int
atomic_check_final(const struct bw_run *b)
{
	uint64_t used = RTE_MIN((uint64_t)o.iters, b->aslots);

	for (uint64_t k = 0; k < used; k++) {
		struct rnic_sge sge = { .addr = (uintptr_t)slots, .length = 8, .lkey = lkey };
		struct rnic_send_wr wr = { .wr_id = 1ull << 40, .sg_list = &sge, .num_sge = 1,
					   .opcode = RNIC_WR_ATOMIC_CMP_AND_SWP,
					   .send_flags = RNIC_SEND_SIGNALED }, *bad;
		struct rnic_wc wc;

		wr.wr.atomic.remote_addr = rem.vaddr + cyc_off(ATOMIC_SIZE, k);
		wr.wr.atomic.rkey = rem.rkey;
		wr.wr.atomic.compare_add = wr.wr.atomic.swap = atomic_cur[k];
		if (rnic_post_send(qp, &wr, &bad) != 0 || wait_wc(&wc) != 0 ||
		    !wc_ok(&wc, "check CmpSwap"))
			return -1;
		if (*(uint64_t *)slots != atomic_cur[k])
			ERR("slot %" PRIu64 " holds 0x%016" PRIx64 " after the run, expected "
			    "0x%016" PRIx64 "\n", k, *(uint64_t *)slots, atomic_cur[k]);
		check_ops++;
	}
	printf("  atomic: %" PRIu64 " returned values checked, %" PRIu64 " slots' final "
	       "values checked\n", b->done, used);
	return 0;
}

static int
client_bw(uint64_t s)
{
	struct bw_run b = { .s = s, .window = o.tx_depth };
	double t0, t1;

	if (o.test == T_READ) {
		b.nslot = RTE_MIN((uint64_t)o.tx_depth, RTE_MAX(1ul, (uint64_t)SLOT_MEM / s));
		b.window = b.nslot;
	} else if (o.test == T_ATOMIC) {
		b.aslots = cycle / inc_of(ATOMIC_SIZE);  /* perftest's cycling slots */
		b.window = b.nslot = RTE_MIN((uint64_t)o.tx_depth, b.aslots);
	}
	t0 = now_us();
	while (b.done < o.iters) {
		if (bw_post(&b) != 0)
			return -1;
		engine_poll();
		if (bw_reap(&b) != 0)
			return -1;
	}
	t1 = now_us();
	bw_line(s, b.done, t1 - t0);
	if (o.test == T_ATOMIC)
		return atomic_check_final(&b);
	return 0;
}

/* ---- send_bw, softrnic as server -------------------------------------- */

static int
server_send_bw(uint64_t s)
{
	uint64_t nslot = RTE_MIN((uint64_t)RTE_MIN(o.iters, 512u), RTE_MAX(1ul, SLOT_MEM / s));
	uint64_t posted = 0, rcnt = 0;
	double t0 = 0;

	for (; posted < nslot; posted++)
		if (post_recv_slot((uint32_t)posted, s) != 0)
			return -1;
	if (pt_hand_shake(&me, NULL) != 0)
		return -1;
	while (rcnt < o.iters) {
		struct rnic_wc wc;
		uint64_t slot;

		if (wait_wc(&wc) != 0)
			return -1;
		if (!wc_ok(&wc, "receive"))
			return -1;
		if (rcnt == 0)
			t0 = now_us();
		slot = wc.wr_id;
		if (wc.opcode != RNIC_WC_RECV || wc.byte_len != s || slot >= nslot)
			ERR("receive %" PRIu64 ": opcode %u, %u bytes, slot %" PRIu64 " (expected a "
			    "%" PRIu64 "-byte SEND)\n", rcnt, wc.opcode, wc.byte_len, slot, s);
		else
			mirror_check(slots + slot * s, cyc_off(s, rcnt), s, rcnt);
		rcnt++;
		ops++;
		bytes += wc.byte_len;
		if (posted < o.iters && slot < nslot) {
			if (post_recv_slot((uint32_t)slot, s) != 0)
				return -1;
			posted++;
		}
	}
	bw_line(s, rcnt, now_us() - t0);
	return 0;
}

/* ---- latency ping-pongs ----------------------------------------------- */

/* Byte k (below the last) of what ib_write_lat sends: its buffer is zeroed once,
 * the last byte of each message carries the iteration counter, and with -a
 * the last bytes of the smaller sizes keep their final counter. */
static uint8_t
write_lat_expected(uint64_t k)
{
	if (o.all && k >= 1 && ((k + 1) & k) == 0)
		return (uint8_t)o.iters;
	return 0;
}

static int
write_lat(uint64_t s)
{
	volatile uint8_t *pollb = rmt + s - 1;
	uint8_t *postb = loc + s - 1;
	uint64_t scnt = 0, rcnt = 0, ccnt = 0;

	while (scnt < o.iters || ccnt < o.iters || rcnt < o.iters) {
		if (rcnt < o.iters && !(scnt < 1 && !is_client)) {
			uint64_t bad = 0, first = 0;

			rcnt++;
			while (*pollb != (uint8_t)rcnt) {
				if (expired()) {
					ERR("timed out waiting for message %" PRIu64 " of %" PRIu64
					    " B (last byte 0x%02x)\n", rcnt, s, *pollb);
					return -1;
				}
				engine_poll();
			}
			for (uint64_t k = 0; k + 1 < s; k++)
				if (rmt[k] != write_lat_expected(k) && bad++ == 0)
					first = k;
			if (bad)
				ERR("message %" PRIu64 " of %" PRIu64 " B: %" PRIu64 " bytes not what "
				    "ib_write_lat sends, first at %" PRIu64 " (0x%02x)\n", rcnt, s, bad,
				    first, rmt[first]);
			memset(rmt, FILL, s - 1);
			ops++;
			bytes += s;
		}
		if (scnt < o.iters) {
			tstamp[scnt] = rte_rdtsc();
			*postb = (uint8_t)++scnt;
			if (post_one(RNIC_WR_RDMA_WRITE, scnt, (uintptr_t)loc, (uint32_t)s, rem.vaddr))
				return -1;
		}
		if (ccnt < o.iters) {
			struct rnic_wc wc;

			if (wait_wc(&wc) != 0 || !wc_ok(&wc, "RDMA WRITE"))
				return -1;
			ccnt++;
		}
	}
	lat_line(s, o.iters, 2);
	return 0;
}

static int
send_lat(uint64_t s)
{
	uint64_t nslot = RTE_MIN((uint64_t)o.iters, 16ul), posted = 0, scnt = 0, rcnt = 0;
	uint64_t ccnt = 0;

	for (; posted < nslot; posted++)
		if (post_recv_slot((uint32_t)posted, s) != 0)
			return -1;
	if (pt_hand_shake(&me, NULL) != 0)
		return -1;
	while (scnt < o.iters || rcnt < o.iters) {
		if (rcnt < o.iters && !(scnt < 1 && is_client)) {
			struct rnic_wc wc;

			for (;;) {
				if (wait_wc(&wc) != 0)
					return -1;
				if (wc.opcode != RNIC_WC_RECV) {
					if (!wc_ok(&wc, "SEND"))
						return -1;
					ccnt++;
					continue;
				}
				break;
			}
			if (!wc_ok(&wc, "receive"))
				return -1;
			if (wc.byte_len != s || wc.wr_id >= nslot)
				ERR("receive %" PRIu64 ": %u bytes, slot %" PRIu64 " (expected %" PRIu64
				    ")\n", rcnt, wc.byte_len, wc.wr_id, s);
			else
				mirror_check(slots + wc.wr_id * s, 0, s, rcnt);
			rcnt++;
			ops++;
			bytes += wc.byte_len;
			if (posted < o.iters && wc.wr_id < nslot) {
				if (post_recv_slot((uint32_t)wc.wr_id, s) != 0)
					return -1;
				posted++;
			}
		}
		if (scnt < o.iters) {
			tstamp[scnt] = rte_rdtsc();
			scnt++;
			if (post_one(RNIC_WR_SEND, 1ull << 32 | scnt, (uintptr_t)loc, (uint32_t)s, 0))
				return -1;
		}
	}
	while (ccnt < o.iters) {
		struct rnic_wc wc;

		if (wait_wc(&wc) != 0 || !wc_ok(&wc, "SEND"))
			return -1;
		if (wc.opcode == RNIC_WC_RECV)
			ERR("unexpected receive after the run\n");
		ccnt++;
	}
	lat_line(s, o.iters, 2);
	return 0;
}

static int
read_lat(uint64_t s)
{
	for (uint64_t j = 0; j < o.iters; j++) {
		struct rnic_wc wc;

		memset(slots, FILL, s);
		tstamp[j] = rte_rdtsc();
		if (post_one(RNIC_WR_RDMA_READ, j, (uintptr_t)slots, (uint32_t)s, rem.vaddr) != 0 ||
		    wait_wc(&wc) != 0 || !wc_ok(&wc, "RDMA READ"))
			return -1;
		mirror_check(slots, 0, s, j);
		ops++;
		bytes += s;
	}
	lat_line(s, o.iters, 1);
	return 0;
}

/* ---- setup ------------------------------------------------------------- */

static int
connect_qp(void)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct rnic_qp_attr a = { 0 };
	rte_be32_t rip;
	int rc;

	if (memcmp(rem.gid, v4mapped, 12) != 0) {
		fprintf(stderr, "rnic-perf: the peer's GID is not IPv4-mapped (run "
			"perftest with -x 1: RoCEv2 ::ffff:a.b.c.d)\n");
		return -1;
	}
	memcpy(&rip, rem.gid + 12, 4);
	a.ah_attr.dip = rip;
	a.ah_attr.ttl = 64;
	rc = rnic_dev_arp_resolve(dev, rip, a.ah_attr.dmac, 5000);
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: ARP: %s\n", strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = RNIC_MTU_1024;
	a.dest_qp_num = rem.qpn;
	a.rq_psn = rem.psn;
	a.max_dest_rd_atomic = MAX_RD;
	a.min_rnr_timer = 12;
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
			    RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC |
			    RNIC_QP_MIN_RNR_TIMER);
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: modify QP to RTR: %s\n", strerror(-rc));
		return -1;
	}
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = me.psn;
	a.timeout = o.qp_timeout;  /* default 17, ~0.5 s: TCG guests are slow */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = (uint8_t)RTE_MAX(1u, RTE_MIN(rem.out_reads, (uint32_t)MAX_RD));
	rc = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			    RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
	if (rc != 0) {
		fprintf(stderr, "rnic-perf: modify QP to RTS: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: rnic-perf [EAL args] -- --perftest --test TEST [-s size] [-a] "
		"[-n iters] [-t tx_depth] [-A CMP_AND_SWAP|FETCH_AND_ADD] [-u qp_timeout] [-p tcp_port] "
		"[--ip A.B.C.D] [--port-id N] [--timeout secs] [server_ip]\n"
		"  TEST: write|read|send|atomic (bandwidth; also write_bw, ib_write_bw, ...)\n"
		"        or write_lat|send_lat|read_lat\n"
		"  Without server_ip softrnic serves: run ib_<TEST> -d <dev> -x <gid> <softrnic ip>\n"
		"  on the peer; with it, softrnic connects to a perftest server there.\n");
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "test", required_argument, NULL, 'X' },
		{ "size", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "iters", required_argument, NULL, 'n' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "atomic_type", required_argument, NULL, 'A' },
		{ "port", required_argument, NULL, 'p' },
		{ "ip", required_argument, NULL, 'I' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "qp-timeout", required_argument, NULL, 'u' }, { NULL, 0, NULL, 0 },
	};
	bool size_set = false, test_set = false;
	int c;

	o = (struct opts){ .test = T_WRITE, .size = 65536, .iters = 1000, .tx_depth = 64,
			   .tcp_port = 18515, .timeout_s = 120, .fadd = true, .qp_timeout = 17 };
	o.ip = inet_addr("10.99.0.2");
	while ((c = getopt_long(argc, argv, "s:an:t:p:A:u:", lo, NULL)) != -1) {
		switch (c) {
		case 'X':
			test_set = false;
			if (strncmp(optarg, "ib_", 3) == 0)
				optarg += 3;   /* perftest's program names */
			for (unsigned int t = 0; t < RTE_DIM(TI); t++)
				if (strcmp(optarg, TI[t].name) == 0 ||
				    (TI[t].alt && strcmp(optarg, TI[t].alt) == 0)) {
					o.test = (enum test)t;
					test_set = true;
				}
			if (!test_set)
				return -1;
			break;
		case 's':
			o.size = (uint32_t)strtoul(optarg, NULL, 0);
			size_set = true;
			break;
		case 'a': o.all = true; break;
		case 'n': o.iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': o.tx_depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'A':
			if (strcmp(optarg, "FETCH_AND_ADD") == 0)
				o.fadd = true;
			else if (strcmp(optarg, "CMP_AND_SWAP") == 0)
				o.fadd = false;
			else
				return -1;
			break;
		case 'p': o.tcp_port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'I':
			if (inet_pton(AF_INET, optarg, &o.ip) != 1)
				return -1;
			break;
		case 'P': o.port_id = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'T': o.timeout_s = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'u':
			o.qp_timeout = (uint8_t)strtoul(optarg, NULL, 0);
			if (o.qp_timeout > 31)
				return -1;
			break;
		default: return -1;
		}
	}
	if (optind == argc - 1)
		o.server = argv[optind];
	else if (optind < argc)
		return -1;
	if (!size_set && TI[o.test].lat)
		o.size = 2;  /* perftest's DEF_SIZE_LAT */
	if (o.test == T_ATOMIC) {
		if (o.all || (size_set && o.size != ATOMIC_SIZE)) {
			fprintf(stderr, "rnic-perf: atomic is 8 bytes, no -s, no -a (as "
				"perftest)\n");
			return -1;
		}
		o.size = ATOMIC_SIZE;
	}
	/* perftest: MIN_ITER 5; tx_depth is cut to iters */
	if (o.size == 0 || o.size > MAX_SIZE || o.iters < 5 || o.tx_depth == 0 ||
	    o.tx_depth > 512)
		return -1;
	if (TI[o.test].lat && o.iters < 4)
		return -1;
	o.tx_depth = RTE_MIN(o.tx_depth, o.iters);
	return 0;
}

/* perftest -a: 2^1 .. 2^23; else the one size */
static void
plan_sizes(void)
{
	nsizes = 0;
	if (o.all)
		for (uint64_t s = 2; s <= MAX_SIZE; s <<= 1)
			sizes[nsizes++] = s;
	else
		sizes[nsizes++] = o.size;
	max_s = sizes[nsizes - 1];
}

/* The arena, the mirror and the timestamps, the arena filled as perftest
 * fills its buffer. @return the arena's length, 0 when out of memory. */
static uint64_t
alloc_buffers(void)
{
	uint64_t arena_len;

	/* perftest's BUFF_SIZE(size, cycle buffer) per half, then the slots */
	region = RTE_MAX(max_s, (uint64_t)CYCLE);
	/* landing slots: at most 512 (receives, READs in flight) of the largest
	 * size, within SLOT_MEM (the per-size counts are cut to fit) */
	slot_len = RTE_MAX(RTE_MIN((uint64_t)SLOT_MEM, max_s * 512), (uint64_t)CYCLE);
	arena_len = RTE_ALIGN_CEIL(2 * region + slot_len, 4096);
	arena = aligned_alloc(4096, arena_len);
	mirror = malloc(region);
	known = calloc(region, 1);
	tstamp = calloc(o.iters, sizeof(*tstamp));
	if (arena == NULL || mirror == NULL || known == NULL || tstamp == NULL) {
		fprintf(stderr, "rnic-perf: out of memory\n");
		return 0;
	}
	loc = arena;
	rmt = arena + region;
	slots = arena + 2 * region;
	memset(arena, FILL, arena_len);
	if (o.test == T_WRITE_LAT)
		memset(loc, 0, region);  /* perftest zeroes write_lat's buffer */
	else
		for (uint64_t k = 0; k < region; k++)
			loc[k] = (uint8_t)(k * 7 + 1);
	return arena_len;
}

/* PD, the arena's MR, the CQ and the RC QP, brought to INIT. */
static int
create_qp(uint64_t arena_len)
{
	struct rnic_qp_init_attr qa = { 0 };
	struct rnic_qp_attr a = { 0 };
	struct rnic_pd *pd;
	struct rnic_mr *mr;

	pd = rnic_alloc_pd(dev);
	mr = pd ? rnic_reg_mr(pd, arena, arena_len, RNIC_ACCESS_LOCAL_WRITE |
			      RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			      RNIC_ACCESS_REMOTE_ATOMIC) : NULL;
	cq = rnic_create_cq(dev, 2 * 512 + 64);
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = RNIC_QPT_RC;
	qa.cap = (struct rnic_qp_cap){ .max_send_wr = 512, .max_recv_wr = 512,
				       .max_send_sge = 1, .max_recv_sge = 1 };
	qp = mr && cq ? rnic_create_qp(pd, &qa) : NULL;
	if (qp == NULL) {
		fprintf(stderr, "rnic-perf: PD/MR/CQ/QP: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	lkey = rnic_mr_lkey(mr);
	me.rkey = rnic_mr_rkey(mr);
	a.qp_state = RNIC_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			    RNIC_ACCESS_REMOTE_ATOMIC;
	if (rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
			   RNIC_QP_ACCESS_FLAGS) != 0) {
		fprintf(stderr, "rnic-perf: modify QP to INIT failed\n");
		return -1;
	}
	return 0;
}

/* This side's QP record, and the test and local address lines. */
static void
print_local(void)
{
	srand48(getpid() * time(NULL));
	me.qpn = rnic_qp_num(qp);
	me.psn = lrand48() & 0xffffff;
	me.out_reads = MAX_RD;
	me.vaddr = (uintptr_t)rmt;  /* the remote half, as perftest */
	me.gid[10] = me.gid[11] = 0xff;
	memcpy(me.gid + 12, &o.ip, 4);
	printf("  %s%s, softrnic %s, size %s%" PRIu64 ", iters %u", TI[o.test].title,
	       o.test == T_ATOMIC ? (o.fadd ? " FETCH_AND_ADD" : " CMP_AND_SWAP") : "",
	       is_client ? "client" : "server", o.all ? "2.." : "", max_s, o.iters);
	if (!TI[o.test].lat)
		printf(", tx_depth %u", o.tx_depth);
	printf("\n  local address:  QPN 0x%06x, PSN 0x%06x, OUT 0x%02x, RKey 0x%08x, "
	       "VAddr 0x%016" PRIx64 ", GID ::ffff:%u.%u.%u.%u\n", me.qpn, me.psn, me.out_reads,
	       me.rkey, me.vaddr, me.gid[12], me.gid[13], me.gid[14], me.gid[15]);
	fflush(stdout);
}

/* perftest's exchange up to a connected QP: the prelude, the QP records,
 * connecting, and the syncs after it. */
static int
oob_connect(void)
{
	struct pt_peer peer;

	if (pt_open(o.server, o.tcp_port) != 0 || pt_prelude(CYCLE, CACHE_LINE, 3, &peer) != 0)
		return -1;
	cycle = RTE_MAX((uint32_t)CYCLE, peer.cycle_buffer);
	cline = RTE_MAX((uint32_t)CACHE_LINE, peer.cache_line);
	if (cycle > region || cycle / cline > CYCLE / 8 || cline % CACHE_LINE != 0) {
		fprintf(stderr, "rnic-perf: cycle buffer %u / cache line %u not "
			"supported\n", cycle, cline);
		return -1;
	}
	if (o.test == T_ATOMIC)      /* distinct non-zero start values per slot */
		for (uint64_t off = 0; off < cycle; off += CACHE_LINE) {
			uint64_t v = atomic_v0(off);

			memcpy(rmt + off, &v, 8);
		}
	for (int i = 0; i < TI[o.test].pre_records; i++)
		if (pt_hand_shake(&me, &rem) != 0)
			return -1;
	printf("  remote address: QPN 0x%06x, PSN 0x%06x, OUT 0x%02x, RKey 0x%08x, "
	       "VAddr 0x%016" PRIx64 ", GID ::ffff:%u.%u.%u.%u\n", rem.qpn, rem.psn,
	       rem.out_reads, rem.rkey, rem.vaddr, rem.gid[12], rem.gid[13], rem.gid[14],
	       rem.gid[15]);
	fflush(stdout);
	if (connect_qp() != 0)
		return -1;
	/* the "print" exchange, then the one after RTR */
	if (pt_hand_shake(&me, NULL) != 0 || pt_hand_shake(&me, NULL) != 0)
		return -1;
	return 0;
}

/* @p fn for every size while it succeeds. */
static int
each_size(int (*fn)(uint64_t s))
{
	int rc = 0;

	for (uint64_t i = 0; i < nsizes && rc == 0; i++)
		rc = fn(sizes[i]);
	return rc;
}

/* send_bw: per size, the client syncs and sends, the server receives; with
 * -a one more sync after each size. */
static int
run_send_bw(void)
{
	int rc = 0;

	for (uint64_t i = 0; i < nsizes && rc == 0; i++) {
		if (is_client)
			rc = pt_hand_shake(&me, NULL) != 0 ? -1 : client_bw(sizes[i]);
		else
			rc = server_send_bw(sizes[i]);
		if (rc == 0 && o.all && pt_hand_shake(&me, NULL) != 0)
			rc = -1;
	}
	return rc;
}

/* The test, every size, in perftest's order of exchanges. */
static int
run_test(void)
{
	double rem_bw = 0;
	int rc = 0;

	if (TI[o.test].lat)
		printf(" #bytes  #iters     t_min      t_max      t_typical  t_avg      t_stdev    "
		       "99%%        99.9%%  [usec]\n");
	else
		printf(" #bytes     #iterations  BW peak[MB/s]  BW average[MB/s]  MsgRate[Mpps]\n");
	switch (o.test) {
	case T_WRITE:
	case T_READ:
	case T_ATOMIC:
		/* a passive server: the guest's ops are checked after the run */
		if (is_client)
			rc = each_size(client_bw);
		/* end-of-run sync (the server waits in it), BW reports, close */
		if (rc == 0 && (pt_hand_shake(&me, NULL) != 0 ||
				pt_xchg_reports(max_s, o.iters, last_mbs, last_rate, &rem_bw) != 0 ||
				pt_close(&me) != 0))
			rc = -1;
		if (!is_client)
			printf("  guest reported: %.2f MB/s\n", rem_bw);
		return rc;
	case T_SEND:
		rc = run_send_bw();
		break;
	case T_WRITE_LAT:
		return each_size(write_lat);
	case T_SEND_LAT:
		rc = each_size(send_lat);
		break;
	case T_READ_LAT:
		if (is_client)
			rc = each_size(read_lat);
		break;
	}
	if (rc == 0 && pt_close(&me) != 0)
		rc = -1;
	return rc;
}

/* The operations (and for a passive server their bytes) the run must
 * account for. */
static uint64_t
expected_ops(uint64_t *pbytes)
{
	uint64_t sum = 0;

	*pbytes = 0;
	if (!is_client && o.test == T_ATOMIC) {
		*pbytes = (uint64_t)o.iters * ATOMIC_SIZE;
		return o.iters;
	}
	if (!is_client && (o.test == T_WRITE || o.test == T_READ || o.test == T_READ_LAT)) {
		for (uint64_t i = 0; i < nsizes; i++)
			sum += sizes[i];
		*pbytes = o.iters * sum;
	}
	return (uint64_t)o.iters * nsizes;
}

/* A QP the guest drove, or a ping-pong's, must still be RTS. */
static void
check_qp_state(void)
{
	struct rnic_qp_attr qa2;
	struct rnic_qp_init_attr ia;

	if (is_client && o.test != T_WRITE_LAT && o.test != T_SEND_LAT)
		return;
	if (rnic_query_qp(qp, &qa2, RNIC_QP_STATE, &ia) == 0 && qa2.qp_state != RNIC_QPS_RTS)
		ERR("QP in state %d after the run\n", qa2.qp_state);
}

/* write_bw server: the guest's WRITEs replaced the FILL pattern. */
static void
check_written(void)
{
	uint64_t same = 0, len = RTE_MIN(max_s, region);

	for (uint64_t k = 0; k < len; k++)
		same += rmt[k] == FILL;
	printf("  written data: %" PRIu64 " of %" PRIu64 " bytes overwritten\n", len - same, len);
	if (len >= 16 && same == len)
		ERR("nothing was written\n");
}

/* atomic_bw server: each slot's final value, and no other byte moved. */
static int
check_atomic_server(void)
{
	uint64_t moved = 0, total = 0, nsl = 0;
	uint32_t *hits = calloc(cycle / CACHE_LINE, sizeof(*hits));

	if (hits == NULL) {
		fprintf(stderr, "rnic-perf: out of memory\n");
		return -1;
	}
	for (uint64_t j = 0; j < o.iters; j++)
		hits[cyc_off(ATOMIC_SIZE, j) / CACHE_LINE]++;
	for (uint64_t off = 0; off < cycle; off += CACHE_LINE) {
		uint64_t v0 = atomic_v0(off), want, v;

		memcpy(&v, rmt + off, 8);
		want = o.fadd ? v0 + hits[off / CACHE_LINE] : v0;
		if (v != want)
			ERR("slot at +%" PRIu64 " = 0x%016" PRIx64 ", expected 0x%016" PRIx64
			    " (%u %s)\n", off, v, want, hits[off / CACHE_LINE],
			    o.fadd ? "FetchAdds of 1" : "CmpSwap(0, 0)");
		nsl += hits[off / CACHE_LINE] > 0;
		total += v - v0;
		memset(rmt + off, FILL, 8);
	}
	free(hits);
	for (uint64_t k = 0; k < region; k++)
		moved += rmt[k] != FILL;
	if (moved)
		ERR("%" PRIu64 " bytes outside the atomic slots changed\n", moved);
	printf("  atomic: %" PRIu64 " slots hit, total added %" PRIu64 " (%s)\n", nsl,
	       total, o.fadd ? "FetchAdd of 1 per op" : "CmpSwap(0, 0) changes nothing");
	return 0;
}

/* The engine's view; for a passive server a lower bound on what the
 * guest's READs / atomics / WRITEs must have made it do. */
static void
check_engine(void)
{
	struct rnic_dev_stats st;
	struct rte_eth_stats es;
	uint64_t need = 0, have = 0;
	const char *what = NULL;

	rnic_dev_stats_get(dev, &st);
	printf("  engine: rx_pkts %" PRIu64 " tx_pkts %" PRIu64 " acks_sent %" PRIu64
	       " naks_sent %" PRIu64 " rnr_naks_sent %" PRIu64 " read_resp_sent %" PRIu64
	       " atomic_resp_sent %" PRIu64 " dup_requests %" PRIu64 " tx_retransmits %"
	       PRIu64 " timer_expired %" PRIu64 " drop_bad_resp %" PRIu64 " drop_ghost_resp %"
	       PRIu64 " naks_rcvd %" PRIu64 "\n", st.rx_pkts, st.tx_pkts, st.acks_sent,
	       st.naks_sent, st.rnr_naks_sent, st.read_resp_sent, st.atomic_resp_sent,
	       st.dup_requests, st.tx_retransmits, st.timer_expired, st.drop_bad_resp,
	       st.drop_ghost_resp, st.naks_rcvd);
	if (rte_eth_stats_get(o.port_id, &es) == 0)
		printf("  port %u: ipackets %" PRIu64 " opackets %" PRIu64 " imissed %" PRIu64
		       " ierrors %" PRIu64 " oerrors %" PRIu64 " rx_nombuf %" PRIu64 "\n",
		       o.port_id, es.ipackets, es.opackets, es.imissed, es.ierrors, es.oerrors,
		       es.rx_nombuf);
	for (uint64_t i = 0; i < nsizes; i++)
		need += (uint64_t)o.iters * ((sizes[i] + 1023) / 1024);
	if (!is_client && (o.test == T_READ || o.test == T_READ_LAT)) {
		what = "READ response packets";
		have = st.read_resp_sent;
	} else if (!is_client && o.test == T_ATOMIC) {
		what = "atomic responses";
		have = st.atomic_resp_sent;
		need = o.iters;
	} else if (!is_client && o.test == T_WRITE) {
		what = "packets received";
		have = st.rx_pkts;
	}
	if (what != NULL && have < need)
		ERR("%s: %" PRIu64 ", the guest's %u ops need at least %" PRIu64 "\n", what,
		    have, o.iters, need);
}

/* The checks after the run and the "verified:" line: the exit status. */
static int
verify_and_report(void)
{
	uint64_t pbytes, expect_ops = expected_ops(&pbytes);

	check_qp_state();
	if (!is_client && o.test == T_WRITE)
		check_written();
	if (!is_client && o.test == T_ATOMIC && check_atomic_server() != 0)
		return 1;
	check_engine();
	if (!is_client && o.test != T_SEND && o.test != T_SEND_LAT && o.test != T_WRITE_LAT) {
		/* passive server: the guest's ops, counted once everything checked out */
		ops = errors == 0 ? expect_ops : 0;
		bytes = errors == 0 ? pbytes : 0;
	}
	if (check_ops)
		printf("  %" PRIu64 " extra CmpSwap ops checked the final slot values\n", check_ops);
	printf("verified: ops=%" PRIu64 " bytes=%" PRIu64 " errors=%" PRIu64 "\n", ops, bytes,
	       errors);
	fflush(stdout);
	return errors == 0 && ops == expect_ops ? 0 : 1;
}

/* The socket; the device, which frees its QP, CQ, MR and PD; the buffers. */
static void
free_all(void)
{
	pt_shutdown();
	rnic_dev_destroy(dev);
	dev = NULL;
	qp = NULL;
	cq = NULL;
	free(arena);
	free(mirror);
	free(known);
	free(tstamp);
	arena = loc = rmt = slots = mirror = known = NULL;
	tstamp = NULL;
}

int
perftest_peer_main(int argc, char **argv)
{
	uint64_t arena_len;
	int n, rc, status = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rnic-perf: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	/* From here every exit goes through "out", which frees what this
	 * holds (free_all). */
	if (parse_args(argc, argv) != 0) {
		usage();
		goto out;
	}
	is_client = o.server != NULL;
	plan_sizes();
	dev = rnic_app_peer_dev("rnic-perf", o.port_id, o.ip, 16384);
	if (dev == NULL)
		goto out;
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz() * o.timeout_s;
	pt_oob_init(is_client, engine_poll, deadline);
	arena_len = alloc_buffers();
	if (arena_len == 0 || create_qp(arena_len) != 0)
		goto out;
	print_local();
	if (oob_connect() != 0)
		goto out;
	rc = run_test();
	if (rc != 0 && errors == 0)
		errors++;
	/* Keep answering (ACKs, READ responses) until the guest has gone. */
	pt_wait_eof(rc == 0 ? 10000 : 1000);
	pt_shutdown();
	status = verify_and_report();
out:
	free_all();
	rte_eal_cleanup();
	return status;
}
