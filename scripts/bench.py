#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""softrnic benchmarks in one go (make bench; scripts/bench.sh runs this).

doc/benchmarks.md has the method, the results and how to read them.

  scripts/bench.py [BUILD_DIR] [--dry-run] [--only SECTIONS] [--selftest]

  BUILD_DIR      default: build
  --dry-run      print the plan (every command of the first round, the
                 order of all rounds) and start nothing
  --only LIST    a comma-separated subset of memif,lat,ring,qps,scale,loss,cc,attach (the
                 BENCH_SWEEP sweep comes with ring)
  --selftest     check the parsing, the medians, the flags and the report
                 lines on canned outputs (seconds; meson test perf-bench-selftest)

What is measured (every figure BENCH_ROUNDS times, the median reported):
 memif  dpdk-testpmd txonly -> rxonly over net_memif at the frame sizes an
        RDMA WRITE of 64 B, 1 KiB and 4 KiB puts on the wire at PMTU 1024
        and 4096 (the baseline), and rnic-perf write_bw between a memif
        client and server process at the same sizes; the ratio of
        delivered data frames per second. At the one-frame sizes (64 B,
        1 KiB, 4 KiB at PMTU 4096) also test/perf/rnic-bench-floor-lat
        --bw, the same workload with only the work any RoCEv2 engine on
        mbufs and a CPU ICRC must do (what this machine allows), against
        testpmd and softrnic.
 lat    rnic-perf raw_lat (one frame at a time through a dpdk-testpmd
        --forward-mode=macswap that sends it back) as the baseline, and
        rnic-perf write_lat -s 2 between a memif client and server:
        p50 and p99 of half the round trip, and their ratios; and
        test/perf/rnic-bench-floor-lat, the same ping-pong with only the
        work any RoCEv2 engine on mbufs and a CPU ICRC must do (what this
        machine allows), against both.
 ring   rnic-perf write_bw on the in-process ring pair, both QP ends on
        ONE engine lcore (--rtc), the main lcore posting and polling; at
        64 B also test/perf/rnic-bench-floor, the same workload with only
        the work any RoCEv2 engine on mbufs and a CPU ICRC must do (what
        this machine allows an engine lcore), and the engine's ratio to it.
 qps    16384 QPs configured and active against 1 QP (ring, --rtc), and
        the engine's state per QP (test/perf/perf_state); and the same
        ratio of test/perf/rnic-bench-floor (-q 16384 -t 4 against its
        one-QP form): what this machine allows an engine at many QPs.
 scale  test/perf/rnic-bench-scale on a ring pair of N queue pairs, each
        worker's lcore posting and polling its own QPs: 2 workers on the
        two CPUs against 1 worker, 2 QP pairs each, at 64 B (PMTU 1024)
        and 4 KiB (PMTU 4096); and 16384 QP pairs over 2 workers against
        2 QP pairs over 2 workers (issue 16).
 loss   rnic-perf write_bw 64 KiB (PMTU 1024, --rtc) on the ring pair through
        net_impair dropping 0, 0.1%, 1% and 5% of the packets each way
        (--loss; impair seed = the round): goodput against the loss-free run
        over the same impair port, in the same mode. mode=gbn: go-back-N
        with fast retransmit and the RTT-based RTO, what any RoCE peer
        gets; mode=sr: softrnic's selective repeat (rnic-perf --sr, both
        ends), with a 128-request window (--inflight 128: SR's costs do
        not grow with the window, go-back-N's do) (issue 17).
 cc     rnic-perf write_bw 64 KiB, 2, 4 and 8 QPs into one bottleneck
        (--bottleneck: the client's egress at 5 Gb/s behind a 256-packet
        queue, RED marking kmin 20, kmax 100, pmax 0.2), DCQCN off and on
        (--dcqcn, line 10 Gb/s): drops, utilisation (goodput / 5 Gb/s),
        Jain's index of the QPs' rates, the queue's p99 depth (issue 18).
 attach rnic-perf write_bw 64 KiB and 4 KiB (PMTU 1024) with both ends in
        one process on a ring pair, the engine on one lcore (--rtc), against
        the same through a softrnic daemon (config/gateway.json: the ring
        pair and its one engine lcore in the daemon, rnic-perf --attach
        posting and polling through the shared rings): the attached
        application's goodput over the in-process one (issue 20). The
        application is on the first CPU and the engine lcore on the second
        in both.
 c2c    before every memif and lat measurement, test/perf/perf_c2c for
        0.2 s: the round trip of a cache line between the two CPUs. memif
        figures follow it, and on a VM it changes while the VM runs (up to
        10x here); the c2c line and the progress lines show it.

One line per figure on stdout (then warnings, the summary and the time):
  bench: test=write size=S link=memif softrnic_mpps=X baseline_mpps=Y ratio=Z pmtu=P frame=F ...
  bench: test=write link=memif worst_ratio=R (size=S pmtu=P)
  bench: test=floor_bw size=S link=memif frame=F floor_mpps=X baseline_mpps=Y floor_ratio=X/Y softrnic_ratio_pmtuP=S/X ...
  bench: test=lat size=2 link=memif softrnic_p50_us=A softrnic_p99_us=B baseline_p50_us=C baseline_p99_us=D ratio_p50=A/C ratio_p99=B/D ...
  bench: test=floor_lat size=2 link=memif floor_p50_us=E floor_p99_us=F floor_ratio_p50=E/C softrnic_ratio_p50=A/E ...
  bench: c2c_rtt_ns=N cpus=A,B min=.. max=.. n=..
  bench: test=write size=S link=ring softrnic_mpps=X gbps=G pmtu=P ...
  bench: test=floor size=64 link=ring ratio=R softrnic_mpps=X floor_mpps=Y ...
  bench: qps=16384 ratio=R state_bytes_per_qp=B qps1_mpps=X qps16384_mpps=Y heap_state_bytes_per_qp=H ...
  bench: test=floor_qps qps=16384 ratio=F softrnic_ratio=R floor1_mpps=X floor16384_mpps=Y ...
  bench: test=scale workers=2 size=S pmtu=P scaling=X workers1_mpps=A workers2_mpps=B ...
  bench: test=scale workers=2 qps=16384 ratio=R qps2_mpps=A qps16384_mpps=B ...
  bench: test=loss loss=P mode=gbn|sr goodput_ratio=X gbps=G lossfree_gbps=B ...
  bench: test=attach size=S ratio=R attached_gbps=A inproc_gbps=B ...
  bench: test=cc flows=N mode=dcqcn|off drops=D utilization=U jain=J p99_queue=Q
         retransmits=R goodput_ratio=G gbps=X ...
    (utilization: what the bottleneck carried, frames as its shaper counts
    them, over its rate; goodput_ratio: the payload delivered over it)
  bench: warning ...
The fixed fields come first; after them min=/max= of the samples, n= (the
samples taken; fewer than the rounds when a measurement failed even after
its retries) and, for a figure with no sample at all, nan and failed=1
(the exit status is then 1). Ratios are ratios of medians; the memif
lines' *_paired= ones are medians of each round's own ratio (its two
samples taken seconds apart), which an unsteady machine mixes less.
Progress, one line per measurement, and retries go to stderr.

Rounds: each round takes every figure once; baseline and softrnic take
turns (which goes first alternates per round) and the order of the sizes
rotates from round to round, so that a burst of other load hits all alike.
Unsteady figures are taken again: after the rounds, every group whose
figures are read together (a memif size and its testpmd baseline,
write_lat, raw_lat and the latency floor, the 1- and 16384-QP runs, ring
64 B and its floor; another ring size alone) in which a figure's samples
spread more than 1.5x (max/min) is measured BENCH_EXTRA (default 2) more
times, taking turns as the rounds do; the medians are then of all its
samples (n= says how many). Whether to take more is decided on the
rounds' samples alone, and every sample is kept.
A measurement that fails (a memif link that does not come up, a process
that dies or times out, a report that does not parse) is retried twice,
said on stderr with its logs kept under /tmp; never silently zero.

Flags: a figure whose samples spread more than 1.5x (max/min), and two
baselines at frame sizes within 10% of each other (1086 and 1098 B) whose
medians differ by more than 1.5x, get a "bench: warning" line.

CPUs: with two CPUs each side of a link gets its own: testpmd txonly,
the rnic-perf client (one thread: it posts and runs its engine) and the
raw_lat pinger on the first; testpmd rxonly/macswap and the rnic-perf
server on the second. Engine-only runs put the application on the first
and the one engine lcore on the second.

Memory: every DPDK process of the run (testpmd, rnic-perf, the daemon)
runs on 2 MiB hugepages, as DPDK is deployed: run as root, the bench
mounts hugetlbfs at /dev/hugepages where it is not mounted, reserves 3072
pages (6 GiB) and gives both back at the end. Where that cannot be done,
or with BENCH_HUGEPAGES=0, every process runs with --no-huge (4 KiB
pages). The header line says which: memory=hugepages-2M or
memory=no-huge (and why).

Bounded: every process has a deadline and is stopped (TERM, then KILL, by
its process group) on exit, Ctrl-C included. BENCH_SECONDS (default 3) is
the length of each measurement, BENCH_ROUNDS (default 3) how many times
each figure is taken, BENCH_EXTRA (default 2) how many more times an
unsteady one is, BENCH_SWEEP=DIR also runs an -a sweep on the ring
and writes DIR/write_bw_sweep_{1024,4096}.json and, with
python3-matplotlib, DIR/write_bw_sweep.png. TESTPMD names dpdk-testpmd.
BENCH_FAIL=REGEX (a test hook) makes every measurement whose name matches
fail, to see the retry and nan paths.
"""

import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SPREAD_LIMIT = 1.5         # max/min of a figure's samples
NEIGHBOUR_FRAMES = 1.10    # baselines at frames this close ...
NEIGHBOUR_LIMIT = 1.5      # ... must agree within this factor
RETRIES = 2
# Samples each group of an unsteady figure gets beyond the rounds
# (settle_plan; BENCH_EXTRA overrides).
EXTRA_ROUNDS = 2

EAL = ["--no-huge", "--no-pci", "--no-shconf", "--no-telemetry",
       "--log-level=pmd.net.memif:error", "--log-level=*:warning"]
# With hugepages (Hugepages.setup): EAL[0] becomes this, so that a killed
# process leaves no hugepage files behind.
EAL_HUGE = "--huge-unlink"
# 2 MiB pages the bench wants free: the largest of its processes that run
# at once (-m 4096) with room for one still exiting.
HUGE_PAGES = 3072
HUGE_DIR = "/dev/hugepages"

# (size, pmtu) of the memif table, in report order.
MEMIF_CASES = [(64, 1024), (64, 4096), (1024, 1024), (1024, 4096), (4096, 1024), (4096, 4096)]
RING_CASES = [(64, 1024), (1024, 1024), (4096, 1024), (4096, 4096)]
# The ring case measured beside rnic-bench-floor.
FLOOR_CASE = (64, 1024)
LAT_SIZE = 2
# (size, pmtu) of the scale section; each at 1 and 2 workers, 2 QP pairs.
SCALE_CASES = [(64, 1024), (4096, 4096)]
SCALE_QPS = 2
# Link loss of the loss section (rnic-perf --loss), the first the baseline,
# and its recovery modes (rnic-perf options of each).
LOSS_CASES = ["0", "0.1%", "1%", "5%"]
LOSS_MODES = {"gbn": [], "sr": ["--sr", "--inflight", "128"]}
# The cc section's bottleneck and flows (rnic-perf --bottleneck, -q).
CC_RATE_MBPS = 5000
CC_BOTTLENECK = f"rate_mbps={CC_RATE_MBPS},queue_pkts=256,ecn_kmin=20,ecn_kmax=100,ecn_pmax=0.2"
# DCQCN on that link: NVIDIA's defaults but the alpha period (the paper's
# K, 55 us), set above this software link's RTT (hundreds of us with
# sender, bottleneck and receiver on one lcore): with 55 us alpha only
# learns of a cut's effect after several periods of marks, cuts too deep
# and the window-limited QPs leave the queue empty (0.81-0.86 of the
# bottleneck; 1000 us: 0.86-0.89, doc/congestion.md).
CC_DCQCN = "line_mbps=10000,alpha_period=1000"
CC_FLOWS = [2, 4, 8]
CC_MODES = ["off", "dcqcn"]
# rnic-perf's completion moderation for the single-QP message rates (memif,
# ring, the 1-QP run of qps): a completion every 32 WRs, so that with
# perftest's 128 outstanding the application never has fewer than 96
# posted, more than the engine's 64-deep window (max_inflight). With
# perftest's -Q 100 it learns of free room only every 100 WRs and its
# send queue drains to 28 between completions, which the engine then
# waits on: memif 64 B 4.3-5.2 against 6.6-6.9 M msgs/s, ring 64 B 4.8
# against 5.1-5.3 (2026-11-27, AMD VM; doc/benchmarks.md).
BW_CQ_MOD = ["-Q", "32"]

# Message sizes of the attach section (write_bw, PMTU 1024).
ATTACH_SIZES = [65536, 4096]
SECTIONS = ("memif", "lat", "ring", "qps", "scale", "loss", "cc", "attach")
MEMIF_KINDS = ("testpmd", "memif", "floor_bw", "raw_lat", "write_lat", "floor_lat")
# The memif sizes measured beside rnic-bench-floor-lat --bw: those whose
# WRITE is one frame (a WRITE Only) at some PMTU of the table.
FLOOR_BW_SIZES = [64, 1024, 4096]


# ---------------------------------------------------------------------
# Pure logic: frame sizes, parsing, statistics, report lines (selftested)
# ---------------------------------------------------------------------

def frame_len(pay, first):
    """Frame length of an RDMA WRITE packet: Ethernet 14 + IPv4 20 + UDP 8 +
    BTH 12 (+ RETH 16 on First/Only) + payload + pad to 4 + ICRC 4."""
    return 14 + 20 + 8 + 12 + (16 if first else 0) + pay + (4 - pay % 4) % 4 + 4


def frames_of(size, pmtu):
    """Data frames of one WRITE message and their mean length (rounded)."""
    lens, off, first = [], 0, True
    while off < size or first:
        p = min(size - off, pmtu)
        lens.append(frame_len(p, first))
        off += p
        first = False
        if size == 0:
            break
    n = len(lens)
    return n, (sum(lens) + n // 2) // n


def perf_row(text):
    """The row of numbers under rnic-perf's (perftest's) column header, or
    None. Only the first row counts (one size per run here)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(" #bytes"):
            # stderr lines (flows:, counters) may come between them
            for row in lines[i + 1:]:
                if row[:1].isalpha():
                    continue
                try:
                    return [float(x) for x in row.split()]
                except ValueError:
                    return None
    return None


def parse_bw(text, size):
    """rnic-perf write_bw: {'mpps', 'gbps'|'mbs'} of the row, or None."""
    row = perf_row(text)
    if row is None or len(row) != 5 or int(row[0]) != size or row[4] <= 0:
        return None
    return {"mpps": row[4], "bw": row[3]}


def parse_lat(text, size):
    """rnic-perf *_lat: {'p50' (t_typical), 'p99', 'min', 'p999'} in usec, or None."""
    row = perf_row(text)
    if row is None or len(row) != 9 or int(row[0]) != size or row[1] < 1 or row[4] <= 0:
        return None
    return {"min": row[2], "p50": row[4], "p99": row[7], "p999": row[8]}


def testpmd_rx_pps(text):
    """Every Rx-pps sample of a testpmd --stats-period report, in order."""
    return [float(m.group(1)) for m in re.finditer(r"Rx-pps:\s+(\d+)", text)]


def baseline_of(samples, want):
    """Packets/s of one testpmd run from its per-second Rx-pps samples:
    the ones while packets flow, the first (ramp-up) left out, at most
    @want of them, their median; None without a full second of traffic."""
    flowing = [s for s in samples if s > 0]
    full = flowing[1:want + 1]
    if not full:
        return None
    return statistics.median(full)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt(x, digits):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def spread(xs):
    """max/min of the samples (None when fewer than two, or a zero)."""
    xs = [x for x in xs if x is not None]
    if len(xs) < 2 or min(xs) <= 0:
        return None
    return max(xs) / min(xs)


def stats_fields(name, xs, digits):
    """' NAME_min=.. NAME_max=.. NAME_n=K' of a figure's samples."""
    xs = [x for x in xs if x is not None]
    lo = min(xs) if xs else None
    hi = max(xs) if xs else None
    pre = f"{name}_" if name else ""
    return f" {pre}min={fmt(lo, digits)} {pre}max={fmt(hi, digits)} {pre}n={len(xs)}"


def spread_warnings(what, figures):
    """'bench: warning spread ...' lines for the figures (name, samples,
    digits) of one report line whose samples spread over SPREAD_LIMIT."""
    out = []
    for name, xs, digits in figures:
        s = spread(xs)
        if s is not None and s > SPREAD_LIMIT:
            vals = [fmt(x, digits) for x in xs if x is not None]
            vals = ",".join(vals) if len(vals) <= 8 else f"{len(vals)}"
            out.append(f"bench: warning spread {what} figure={name} max/min={s:.2f} "
                       f"samples={vals} (over {SPREAD_LIMIT}x: the machine was not "
                       f"steady, see doc/benchmarks.md)")
    return out


def neighbour_warnings(base):
    """Baselines (frame -> samples) at frame sizes within NEIGHBOUR_FRAMES
    of each other whose medians differ by more than NEIGHBOUR_LIMIT."""
    out = []
    frames = sorted(base)
    for i, f1 in enumerate(frames):
        for f2 in frames[i + 1:]:
            if f2 > f1 * NEIGHBOUR_FRAMES:
                continue
            m1, m2 = median(base[f1]), median(base[f2])
            if m1 is None or m2 is None or m1 <= 0 or m2 <= 0:
                continue
            r = max(m1, m2) / min(m1, m2)
            if r > NEIGHBOUR_LIMIT:
                out.append(f"bench: warning baseline frame={f1} baseline_mpps={m1 / 1e6:.4f} "
                           f"disagrees with frame={f2} baseline_mpps={m2 / 1e6:.4f} "
                           f"({r:.2f}x apart; frames within "
                           f"{round((NEIGHBOUR_FRAMES - 1) * 100)}% should agree within "
                           f"{NEIGHBOUR_LIMIT}x)")
    return out


def paired_ratio(a, b):
    """The median of a[i] / b[i] over the rounds (and extra rounds) that
    have both samples, or None. Sample i of two figures was taken in the
    same round, seconds apart, where the medians of each may come from
    different minutes of an unsteady machine."""
    return median([ratio(x, y) for x, y in zip(a, b) if x is not None and y is not None])


def memif_line(size, pmtu, nfr, flen, soft_msgs, base_pps):
    """The memif report line and its warnings. @soft_msgs: rnic-perf message
    rates (M/s) per round; @base_pps: testpmd packets/s per round.
    Returns (line, warnings, ratio of medians, paired ratio)."""
    soft = [None if m is None else m * nfr for m in soft_msgs]
    base = [None if b is None else b / 1e6 for b in base_pps]
    sm, bm = median(soft), median(base)
    rp = paired_ratio(soft, base)
    line = (f"bench: test=write size={size} link=memif softrnic_mpps={fmt(sm, 4)} "
            f"baseline_mpps={fmt(bm, 4)} ratio={fmt(ratio(sm, bm), 3)} pmtu={pmtu} frame={flen}"
            + stats_fields("softrnic", soft, 4) + stats_fields("baseline", base, 4)
            + f" ratio_paired={fmt(rp, 3)}")
    if sm is None or bm is None:
        line += " failed=1"
    what = f"test=write size={size} link=memif pmtu={pmtu} frame={flen}"
    warn = spread_warnings(what, [("softrnic_mpps", soft, 4)])
    return line, warn, ratio(sm, bm), rp


def baseline_warnings(base):
    """Spread of each baseline (frame -> packets/s per round), once per
    frame (two lines may share one), then the neighbour check."""
    out = []
    for f in sorted(base):
        out += spread_warnings(f"test=write link=memif frame={f}",
                               [("baseline_mpps", [None if b is None else b / 1e6 for b in base[f]], 4)])
    return out + neighbour_warnings(base)


def worst_line(ratios, paired=None):
    """@ratios: (ratio or None, size, pmtu) of the memif lines; @paired
    the same of their paired ratios."""
    ok = [r for r in ratios if r[0] is not None]
    if not ok:
        return "bench: test=write link=memif worst_ratio=nan failed=1"
    r, size, pmtu = min(ok, key=lambda x: x[0])
    line = f"bench: test=write link=memif worst_ratio={r:.3f} (size={size} pmtu={pmtu})"
    okp = [x for x in paired or [] if x[0] is not None]
    if okp:
        r, size, pmtu = min(okp, key=lambda x: x[0])
        line += f" worst_ratio_paired={r:.3f} (size={size} pmtu={pmtu})"
    return line


def floor_bw_of(size, pmtu):
    """Whether memif case (@size, @pmtu) has rnic-bench-floor-lat --bw
    beside it: one WRITE Only a message, at a FLOOR_BW_SIZES size."""
    return size in FLOOR_BW_SIZES and frames_of(size, pmtu)[0] == 1


def parse_floor_bw(text, size):
    """rnic-bench-floor-lat --bw's client: {'mpps'} (messages = frames), or None."""
    m = re.search(rf"^floor_bw: size={size} msgs=(\d+) secs=[0-9.]+ msgs_per_s=([0-9.]+)$",
                  text, re.M)
    if m is None or int(m.group(1)) == 0:
        return None
    return {"mpps": float(m.group(2)) / 1e6}


def floor_bw_line(size, floor, base_pps, soft):
    """The floor's memif line: @floor its per-round M msgs/s (one frame
    each), @base_pps testpmd's packets/s per round at the frame, @soft
    {pmtu: rnic-perf M msgs/s per round} of the memif cases it stands
    beside (one frame a message too)."""
    flen = frame_len(size, True)
    base = [None if b is None else b / 1e6 for b in base_pps]
    fm, bm = median(floor), median(base)
    line = (f"bench: test=floor_bw size={size} link=memif frame={flen} floor_mpps={fmt(fm, 4)} "
            f"baseline_mpps={fmt(bm, 4)} floor_ratio={fmt(ratio(fm, bm), 3)}"
            + "".join(f" softrnic_ratio_pmtu{p}={fmt(ratio(median(soft[p]), fm), 3)}"
                      for p in sorted(soft))
            + stats_fields("floor", floor, 4)
            + f" floor_ratio_paired={fmt(paired_ratio(floor, base), 3)}"
            + "".join(f" softrnic_ratio_paired_pmtu{p}={fmt(paired_ratio(soft[p], floor), 3)}"
                      for p in sorted(soft)))
    if fm is None or bm is None:
        line += " failed=1"
    return line, spread_warnings(f"test=floor_bw size={size} link=memif",
                                 [("floor_mpps", floor, 4)])


def lat_line(size, frame, soft, base):
    """@soft, @base: per-round {'p50', 'p99'} dicts (or None)."""
    def col(xs, k):
        return [None if x is None else x[k] for x in xs]
    sp50, sp99, bp50, bp99 = col(soft, "p50"), col(soft, "p99"), col(base, "p50"), col(base, "p99")
    a, b, c, d = median(sp50), median(sp99), median(bp50), median(bp99)
    line = (f"bench: test=lat size={size} link=memif softrnic_p50_us={fmt(a, 2)} "
            f"softrnic_p99_us={fmt(b, 2)} baseline_p50_us={fmt(c, 2)} baseline_p99_us={fmt(d, 2)} "
            f"ratio_p50={fmt(ratio(a, c), 3)} ratio_p99={fmt(ratio(b, d), 3)} frame={frame}"
            + stats_fields("softrnic_p50", sp50, 2) + stats_fields("softrnic_p99", sp99, 2)
            + stats_fields("baseline_p50", bp50, 2) + stats_fields("baseline_p99", bp99, 2))
    if None in (a, b, c, d):
        line += " failed=1"
    what = f"test=lat size={size} link=memif"
    warn = spread_warnings(what, [("softrnic_p50_us", sp50, 2), ("baseline_p50_us", bp50, 2)])
    return line, warn


def parse_floor_lat(text, size):
    """rnic-bench-floor-lat's client: {'p50', 'p99'} in usec, or None."""
    m = re.search(rf"^floor_lat: size={size} rounds=(\d+) p50_us=([0-9.]+) p99_us=([0-9.]+)$",
                  text, re.M)
    if m is None or int(m.group(1)) == 0:
        return None
    return {"p50": float(m.group(2)), "p99": float(m.group(3))}


def floor_lat_line(size, floor, soft, base):
    """@floor, @soft, @base: per-round {'p50', 'p99'} dicts (or None) of
    the floor, write_lat and raw_lat."""
    def col(xs, k):
        return [None if x is None else x[k] for x in xs]
    fp50 = col(floor, "p50")
    f50, f99, s50, b50 = median(fp50), median(col(floor, "p99")), median(col(soft, "p50")), \
        median(col(base, "p50"))
    line = (f"bench: test=floor_lat size={size} link=memif floor_p50_us={fmt(f50, 2)} "
            f"floor_p99_us={fmt(f99, 2)} floor_ratio_p50={fmt(ratio(f50, b50), 3)} "
            f"softrnic_ratio_p50={fmt(ratio(s50, f50), 3)}" + stats_fields("floor_p50", fp50, 2))
    if None in (f50, f99, s50, b50):
        line += " failed=1"
    return line, spread_warnings(f"test=floor_lat size={size} link=memif",
                                 [("floor_p50_us", fp50, 2)])


def ring_line(size, pmtu, runs):
    """@runs: per-round parse_bw dicts (or None)."""
    mpps = [None if r is None else r["mpps"] for r in runs]
    gbps = [None if r is None else r["bw"] for r in runs]
    line = (f"bench: test=write size={size} link=ring softrnic_mpps={fmt(median(mpps), 6)} "
            f"gbps={fmt(median(gbps), 2)} pmtu={pmtu}" + stats_fields("", mpps, 6))
    if median(mpps) is None:
        line += " failed=1"
    warn = spread_warnings(f"test=write size={size} link=ring pmtu={pmtu}",
                           [("softrnic_mpps", mpps, 6)])
    return line, warn


def qps_line(one, many, state, heap):
    """@one, @many: per-round message rates (M/s) of 1 and 16384 QPs."""
    a, b = median(many), median(one)
    line = (f"bench: qps=16384 ratio={fmt(ratio(a, b), 3)} state_bytes_per_qp={state if state else 'nan'} "
            f"qps1_mpps={fmt(b, 6)} qps16384_mpps={fmt(a, 6)} "
            f"heap_state_bytes_per_qp={heap if heap else 'nan'}"
            + stats_fields("qps1", one, 6) + stats_fields("qps16384", many, 6))
    if a is None or b is None or not state:
        line += " failed=1"
    warn = spread_warnings("qps=16384", [("qps1_mpps", one, 6), ("qps16384_mpps", many, 6)])
    return line, warn


def floor_qps_line(one, many, fone, fmany):
    """@one, @many: per-round message rates (M/s) of the engine at 1 and
    16384 QPs; @fone, @fmany: of rnic-bench-floor's one-QP form and of its
    -q 16384 -t 4."""
    r_eng = ratio(median(many), median(one))
    r_floor = ratio(median(fmany), median(fone))
    line = (f"bench: test=floor_qps qps=16384 ratio={fmt(r_floor, 3)} "
            f"softrnic_ratio={fmt(r_eng, 3)} floor1_mpps={fmt(median(fone), 6)} "
            f"floor16384_mpps={fmt(median(fmany), 6)}"
            + stats_fields("floor1", fone, 6) + stats_fields("floor16384", fmany, 6))
    if r_floor is None:
        line += " failed=1"
    warn = spread_warnings("test=floor_qps qps=16384",
                           [("floor1_mpps", fone, 6), ("floor16384_mpps", fmany, 6)])
    return line, warn


def scale_line(size, pmtu, one, two):
    """@one, @two: per-round message rates (M/s) of 1 and 2 workers."""
    a, b = median(two), median(one)
    line = (f"bench: test=scale workers=2 size={size} pmtu={pmtu} scaling={fmt(ratio(a, b), 3)} "
            f"workers1_mpps={fmt(b, 6)} workers2_mpps={fmt(a, 6)}"
            + stats_fields("workers1", one, 6) + stats_fields("workers2", two, 6))
    if a is None or b is None:
        line += " failed=1"
    warn = spread_warnings(f"test=scale size={size} pmtu={pmtu}",
                           [("workers1_mpps", one, 6), ("workers2_mpps", two, 6)])
    return line, warn


def scale_qps_line(few, many):
    """@few, @many: per-round message rates (M/s) of SCALE_QPS and 16384 QP
    pairs, both over 2 workers."""
    a, b = median(many), median(few)
    line = (f"bench: test=scale workers=2 qps=16384 ratio={fmt(ratio(a, b), 3)} "
            f"qps{SCALE_QPS}_mpps={fmt(b, 6)} qps16384_mpps={fmt(a, 6)}"
            + stats_fields(f"qps{SCALE_QPS}", few, 6) + stats_fields("qps16384", many, 6))
    if a is None or b is None:
        line += " failed=1"
    warn = spread_warnings("test=scale qps=16384", [(f"qps{SCALE_QPS}_mpps", few, 6),
                                                    ("qps16384_mpps", many, 6)])
    return line, warn


def attach_line(size, attached, inproc):
    """@attached, @inproc: per-round parse_bw dicts (or None)."""
    a = [None if r is None else r["bw"] for r in attached]
    b = [None if r is None else r["bw"] for r in inproc]
    line = (f"bench: test=attach size={size} ratio={fmt(ratio(median(a), median(b)), 3)} "
            f"attached_gbps={fmt(median(a), 2)} inproc_gbps={fmt(median(b), 2)}"
            + stats_fields("attached", a, 2) + stats_fields("inproc", b, 2))
    if median(a) is None or median(b) is None:
        line += " failed=1"
    warn = spread_warnings(f"test=attach size={size}", [("attached_gbps", a, 2),
                                                        ("inproc_gbps", b, 2)])
    return line, warn


def loss_line(loss, runs, base, mode="gbn"):
    """@runs, @base: per-round parse_bw dicts (or None) at @loss and at 0."""
    g = [None if r is None else r["bw"] for r in runs]
    b = [None if r is None else r["bw"] for r in base]
    line = (f"bench: test=loss loss={loss} mode={mode} goodput_ratio={fmt(ratio(median(g), median(b)), 3)} "
            f"gbps={fmt(median(g), 2)} lossfree_gbps={fmt(median(b), 2)}" + stats_fields("", g, 2))
    if median(g) is None or median(b) is None:
        line += " failed=1"
    return line, spread_warnings(f"test=loss loss={loss} mode={mode}", [("gbps", g, 2)])


def parse_cc(text):
    """rnic-perf --bottleneck -q N -v: goodput, the flows line and the
    bottleneck's counters, or None."""
    bw = parse_bw(text, 65536)
    fl = re.search(r"^flows: n=\d+ gbps=[0-9.,]+ jain=([0-9.]+)$", text, re.M)
    dr = re.search(r"tx_bottleneck_dropped=(\d+)", text)
    p99 = re.search(r"tx_bottleneck_depth_p99=(\d+)", text)
    rt = re.search(r"^counters \(client\):.*?(?: tx_retransmits=(\d+)|$)", text, re.M)
    link = re.search(r"^link: tx_gbps=([0-9.]+)$", text, re.M)
    if bw is None or not fl or not dr or not p99 or not link:
        return None
    return {"mpps": bw["mpps"], "bw": bw["bw"], "jain": float(fl.group(1)),
            "drops": int(dr.group(1)), "p99": int(p99.group(1)),
            "rexmit": int(rt.group(1)) if rt and rt.group(1) else 0,
            "link": float(link.group(1))}


def cc_line(flows, mode, runs):
    """@runs: per-round parse_cc dicts (or None)."""
    def med(k):
        return median([None if r is None else r[k] for r in runs])
    bw, link = med("bw"), med("link")
    rate = CC_RATE_MBPS / 1000
    util = None if link is None else link / rate
    good = None if bw is None else bw / rate
    line = (f"bench: test=cc flows={flows} mode={mode} drops={fmt(med('drops'), 0)} "
            f"utilization={fmt(util, 3)} jain={fmt(med('jain'), 3)} "
            f"p99_queue={fmt(med('p99'), 0)} retransmits={fmt(med('rexmit'), 0)} "
            f"goodput_ratio={fmt(good, 3)} gbps={fmt(bw, 2)}"
            + stats_fields("gbps", [None if r is None else r["bw"] for r in runs], 2)
            + stats_fields("link_gbps", [None if r is None else r["link"] for r in runs], 3))
    if bw is None:
        line += " failed=1"
    return line, []


def parse_floor(text):
    """rnic-bench-floor's msgs_per_s= as {"mpps": X}, or None."""
    m = re.search(r"^floor: .*msgs_per_s=([0-9.]+)", text, re.M)
    return {"mpps": float(m.group(1)) / 1e6} if m else None


def floor_line(size, ring, floor):
    """@ring, @floor: per-round parse_bw / parse_floor dicts (or None)."""
    a = [None if r is None else r["mpps"] for r in ring]
    b = [None if r is None else r["mpps"] for r in floor]
    line = (f"bench: test=floor size={size} link=ring ratio={fmt(ratio(median(a), median(b)), 3)} "
            f"softrnic_mpps={fmt(median(a), 6)} floor_mpps={fmt(median(b), 6)}"
            + stats_fields("floor", b, 6))
    if median(a) is None or median(b) is None:
        line += " failed=1"
    return line, spread_warnings(f"test=floor size={size} link=ring", [("floor_mpps", b, 6)])


def parse_scale(text):
    """rnic-bench-scale's msgs_mpps= as {"mpps": X}, or None."""
    m = re.search(r"^bench: test=scale .*msgs_mpps=([0-9.]+)", text, re.M)
    return {"mpps": float(m.group(1))} if m else None


def c2c_line(ns, cpu0, cpu1):
    """The cache line round trips measured before the memif measurements."""
    line = (f"bench: c2c_rtt_ns={fmt(median(ns), 0)} cpus={cpu0},{cpu1}" + stats_fields("", ns, 0))
    return line, spread_warnings("c2c (memif figures follow it)", [("c2c_rtt_ns", ns, 0)])


def parse_state(text):
    """perf_state's state_bytes_per_qp= and heap_state_bytes_per_qp=."""
    s = re.search(r"^state_bytes_per_qp=(\d+)", text, re.M)
    h = re.search(r"heap_state_bytes_per_qp=(\d+)", text)
    return (int(s.group(1)) if s else None), (int(h.group(1)) if h else None)


def rotate(xs, k):
    k %= max(len(xs), 1)
    return xs[k:] + xs[:k]


def plan_round(rnd, sections):
    """The measurements of round @rnd (0-based), in order: tuples
    (kind, params). Baseline and softrnic take turns, which goes first
    alternating per round; the sizes rotate one step per round."""
    soft_first = rnd % 2 == 1
    out = []
    if "memif" in sections:
        done = set()
        for size, pmtu in rotate(MEMIF_CASES, rnd):
            _, flen = frames_of(size, pmtu)
            pair = [("memif", (size, pmtu))]
            if flen not in done:
                done.add(flen)
                pair.insert(1 if soft_first else 0, ("testpmd", (flen,)))
            if floor_bw_of(size, pmtu) and ("floor_bw", (size,)) not in done:
                done.add(("floor_bw", (size,)))
                pair.insert(0 if soft_first else len(pair), ("floor_bw", (size,)))
            out += pair
    if "lat" in sections:
        _, flen = frames_of(LAT_SIZE, 1024)
        trio = [("raw_lat", (flen,)), ("floor_lat", (LAT_SIZE,)), ("write_lat", (LAT_SIZE,))]
        out += trio[::-1] if soft_first else trio
    if "ring" in sections:
        for c in rotate(RING_CASES, rnd):
            pair = ([("floor", (c[0],))] if c == FLOOR_CASE else []) + [("ring", c)]
            out += pair[::-1] if soft_first else pair
    if "qps" in sections:
        quad = [("qps", (1,)), ("floor_qps", (1,)), ("qps", (16384,)), ("floor_qps", (16384,))]
        out += quad[::-1] if soft_first else quad
    if "scale" in sections:
        for size, pmtu in rotate(SCALE_CASES, rnd):
            pair = [("scale", (1, size, pmtu, SCALE_QPS)), ("scale", (2, size, pmtu, SCALE_QPS))]
            out += pair[::-1] if soft_first else pair
        out.append(("scale", (2, 64, 1024, 16384)))
    if "loss" in sections:
        for loss in LOSS_CASES:
            pair = [("loss", (loss, m)) for m in LOSS_MODES]
            out += pair[::-1] if soft_first else pair
    if "cc" in sections:
        for flows in rotate(CC_FLOWS, rnd):
            pair = [("cc", (flows, m)) for m in CC_MODES]
            out += pair[::-1] if soft_first else pair
    if "attach" in sections:
        for size in rotate(ATTACH_SIZES, rnd):
            pair = [("inproc", (size,)), ("attach", (size,))]
            out += pair[::-1] if soft_first else pair
    return out


def sample_value(kind, v):
    """The figure whose spread decides a sample's group (settle_plan):
    packets/s of testpmd, p50 of the latencies, else messages/s."""
    if v is None:
        return None
    if kind == "testpmd":
        return v
    return v["p50"] if "lat" in kind else v["mpps"]


def settle_groups(sections):
    """The measurements whose figures are read together (a ratio's two
    sides), in the order they are taken."""
    groups = []
    if "memif" in sections:
        for size, pmtu in MEMIF_CASES:
            groups.append((("testpmd", (frames_of(size, pmtu)[1],)), ("memif", (size, pmtu)))
                          + ((("floor_bw", (size,)),) if floor_bw_of(size, pmtu) else ()))
    if "lat" in sections:
        groups.append((("raw_lat", (frames_of(LAT_SIZE, 1024)[1],)), ("floor_lat", (LAT_SIZE,)),
                       ("write_lat", (LAT_SIZE,))))
    if "ring" in sections:
        groups += [(("ring", c),) + ((("floor", (c[0],)),) if c == FLOOR_CASE else ())
                   for c in RING_CASES]
    if "qps" in sections:
        groups.append((("qps", (1,)), ("qps", (16384,))))
        groups.append((("floor_qps", (1,)), ("floor_qps", (16384,))))
    return groups


def settle_plan(samples, sections):
    """The measurements to take again after the rounds: every member of
    each group (settle_groups) one of whose figures spread more than
    SPREAD_LIMIT over the rounds, each once, in group order. Decided on the
    rounds' samples alone, and what the extra rounds give is kept whatever
    it is: a low sample is outvoted, never dropped."""
    out = []
    for g in settle_groups(sections):
        unsteady = False
        for kind, params in g:
            s = spread([sample_value(kind, v) for v in samples.get((kind, params), [])])
            unsteady |= s is not None and s > SPREAD_LIMIT
        if unsteady:
            out += [m for m in g if m not in out]
    return out


def mname(kind, params):
    """A measurement's name (logs, BENCH_FAIL)."""
    return kind + "-" + "-".join(str(p) for p in params)


# ---------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------

class Interrupted(Exception):
    pass


class Procs:
    """Every process started, each in its own process group (so that a
    child's children go with it), stopped by TERM then KILL."""

    def __init__(self):
        self.live = []

    def start(self, argv, out_path):
        # No signal between the fork and the bookkeeping: a Ctrl-C there
        # would leave a process nobody stops. The child unblocks them (a
        # signal mask survives exec).
        sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
        try:
            with open(out_path, "wb") as out:
                p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, sigs))
            self.live.append(p)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return p

    def _signal(self, p, sig):
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, p, grace=5.0):
        """TERM, up to @grace s to exit, then KILL. Its exit status (or None)."""
        if p.poll() is None:
            self._signal(p, signal.SIGTERM)
            try:
                p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None:
            self._signal(p, signal.SIGKILL)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        else:
            # Its group may outlive it (nothing here forks, but be sure).
            self._signal(p, signal.SIGKILL)
        if p in self.live:
            self.live.remove(p)
        return p.returncode

    def wait(self, p, secs):
        """Wait up to @secs for @p; on time out stop it. (rc, timed_out)"""
        try:
            rc = p.wait(timeout=secs)
            self.stop(p)
            return rc, False
        except subprocess.TimeoutExpired:
            self.stop(p, grace=2.0)
            return p.returncode, True

    def stop_all(self):
        for p in list(self.live):
            if p.poll() is None:
                self._signal(p, signal.SIGTERM)
        end = time.monotonic() + 2.0
        for p in list(self.live):
            try:
                p.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in list(self.live):
            self._signal(p, signal.SIGKILL)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.live.clear()


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def tail(text, n=5):
    return "\n".join(text.rstrip().splitlines()[-n:])


# ---------------------------------------------------------------------
# Memory: 2 MiB hugepages where they can be had, as DPDK is deployed
# ---------------------------------------------------------------------

def meminfo(key):
    m = re.search(rf"^{key}:\s+(\d+)", read("/proc/meminfo"), re.M)
    return int(m.group(1)) if m else 0


class Hugepages:
    """Every EAL of the run on 2 MiB hugepages (BENCH_HUGEPAGES=0: never):
    with 4 KiB pages (--no-huge) 16384 QPs' contexts, queues and mbufs
    span tens of thousands of pages, and the TLB misses alone cost 16384
    QPs 1.2x (doc/benchmarks.md). As root the pages are reserved here (and
    hugetlbfs mounted) and given back at the end; elsewhere the run falls
    back to --no-huge. The mode is printed in the header line."""

    def __init__(self):
        self.mode = "no-huge"
        self.why = ""
        self.restore = None     # nr_hugepages to put back
        self.mounted = False

    def setup(self):
        if os.environ.get("BENCH_HUGEPAGES", "auto") == "0":
            self.why = "BENCH_HUGEPAGES=0"
            return
        if meminfo("Hugepagesize") != 2048:
            self.why = "no 2 MiB hugepages"
            return
        if not os.path.ismount(HUGE_DIR):
            try:
                os.makedirs(HUGE_DIR, exist_ok=True)
                subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev",
                                HUGE_DIR], check=True, capture_output=True, timeout=30)
                self.mounted = True
            except (OSError, subprocess.SubprocessError) as e:
                self.why = f"no hugetlbfs at {HUGE_DIR} ({e})"
                return
        free = meminfo("HugePages_Free")
        if free < HUGE_PAGES:
            nr = "/proc/sys/vm/nr_hugepages"
            try:
                total = int(read(nr).strip())
                with open(nr, "w") as f:
                    f.write(str(total + HUGE_PAGES - free))
                self.restore = total
            except (OSError, ValueError) as e:
                self.why = f"cannot reserve hugepages ({e})"
                self.teardown()
                return
            free = meminfo("HugePages_Free")
            if free < HUGE_PAGES:
                self.why = f"only {free} of {HUGE_PAGES} hugepages could be reserved"
                self.teardown()
                return
        self.mode = "hugepages"
        EAL[0] = EAL_HUGE

    def teardown(self):
        EAL[0] = "--no-huge"
        if self.restore is not None:
            try:
                with open("/proc/sys/vm/nr_hugepages", "w") as f:
                    f.write(str(self.restore))
            except OSError:
                pass
            self.restore = None
        if self.mounted:
            subprocess.run(["umount", HUGE_DIR], capture_output=True, timeout=30)
            self.mounted = False

    def line(self):
        if self.mode == "hugepages":
            return f"memory=hugepages-2M free={meminfo('HugePages_Free')}"
        return f"memory=no-huge ({self.why})"


# ---------------------------------------------------------------------
# The measurements
# ---------------------------------------------------------------------

class Bench:
    def __init__(self, build, secs, rounds, sections, dry_run=False, extra=EXTRA_ROUNDS):
        self.build = build
        self.secs = secs
        self.rounds = rounds
        self.extra = extra
        self.sections = sections
        self.dry = dry_run
        self.perf = os.path.join(build, "app/rnic-perf/rnic-perf")
        self.state = os.path.join(build, "test/perf/perf_state")
        self.c2c = os.path.join(build, "test/perf/perf_c2c")
        self.scale = os.path.join(build, "test/perf/rnic-bench-scale")
        self.floor = os.path.join(build, "test/perf/rnic-bench-floor")
        self.floor_lat = os.path.join(build, "test/perf/rnic-bench-floor-lat")
        self.softrnic = os.path.join(build, "app/softrnic/softrnic")
        self.gateway = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "config",
                                    "gateway.json")
        self.c2c_ns = []   # the probe before each memif measurement
        self.testpmd = os.environ.get("TESTPMD") or shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"
        self.fail_re = re.compile(os.environ["BENCH_FAIL"]) if os.environ.get("BENCH_FAIL") else None
        cpus = sorted(os.sched_getaffinity(0))
        self.cpu0, self.cpu1 = cpus[0], (cpus[1] if len(cpus) > 1 else cpus[0])
        self.procs = Procs()
        self.huge = Hugepages()
        self.tmp = "/tmp/softrnic-bench.DRYRUN" if dry_run else tempfile.mkdtemp(prefix="softrnic-bench.")
        self.seq = 0
        self.port_base = 20000 + os.getpid() % 20000

    # Unique names per attempt: a fresh memif socket, TCP port and EAL
    # file prefix, so that nothing a failed attempt left behind is reused.
    def _ids(self, tag):
        self.seq += 1
        n = self.seq
        sock = os.path.join(self.tmp, f"memif{n}.sock")
        port = 20000 + (self.port_base - 20000 + n) % 40000
        prefix = f"bench{os.getpid()}_{n}"
        return n, sock, port, prefix, os.path.join(self.tmp, f"{n}-{tag}")

    def _memif(self, role, sock):
        return f"--vdev=net_memif0,role={role},socket={sock},socket-abstract=no"

    def _rnic_perf(self, cpu, prefix, memif, args, mem=1024):
        return ([self.perf] + EAL + ["-m", str(mem), f"--file-prefix={prefix}", f"--lcores=0@{cpu}"]
                + ([memif] if memif else []) + ["--"] + args)

    def _testpmd(self, cpu, prefix, memif, args):
        return ([self.testpmd] + EAL + ["-m", "1024", f"--file-prefix={prefix}",
                                        f"--lcores=0@{cpu},1@{cpu}", memif, "--"]
                + args + ["--nb-cores=1", "--stats-period=1"])

    def _ring_cmd(self, prefix, args):
        return ([self.perf] + EAL + ["-m", "4096", f"--file-prefix={prefix}",
                                     f"--lcores=0@{self.cpu0},1@{self.cpu1}", "--",
                                     "--rtc", "--no-progress"] + args)

    def _failing(self, name, argv):
        """BENCH_FAIL: the measurement runs /bin/false instead."""
        if self.fail_re and self.fail_re.search(name):
            return ["/bin/false"] + argv[1:]
        return argv

    def _wait_started(self, log, server, secs=10.0):
        """Wait until the testpmd writing @log has started its port and
        forwarding. Its memif socket appears earlier, when the port is
        probed, but a memif client that connects before the server port
        is started is turned away and (testpmd's) never tries again: the
        link then stays down for good."""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if "start packet forwarding" in read(log):
                return True
            if server.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    # One attempt of each kind: (value or None, reason, {log name: path}).

    def _try_testpmd(self, name, flen):
        """testpmd txonly -> rxonly at frame @flen: the receiver's packets/s."""
        n, sock, _, prefix, log = self._ids(name)
        mb = (flen + 256 + 63) // 64 * 64 if flen + 256 > 2176 else 2176
        rx_cmd = self._failing(name, self._testpmd(self.cpu1, prefix + "r", self._memif("server", sock),
                                                   ["--forward-mode=rxonly"]))
        tx_cmd = self._testpmd(self.cpu0, prefix + "t", self._memif("client", sock),
                               ["--forward-mode=txonly", f"--mbuf-size={mb}", f"--txpkts={flen}"])
        logs = {"rx": log + "-rx.txt", "tx": log + "-tx.txt"}
        if self.dry:
            return [rx_cmd, tx_cmd]
        rx = self.procs.start(rx_cmd, logs["rx"])
        if not self._wait_started(logs["rx"], rx):
            self.procs.stop(rx)
            return None, "the rxonly testpmd did not start its memif server", logs
        tx = self.procs.start(tx_cmd, logs["tx"])
        # Collect 1 (ramp-up) + secs full per-second samples while packets
        # flow, or whatever came within the deadline; no traffic at all
        # after 10 s is a link that did not come up.
        t0 = time.monotonic()
        end = t0 + self.secs + 25
        reason = None
        while True:
            time.sleep(0.2)
            flowing = [s for s in testpmd_rx_pps(read(logs["rx"])) if s > 0]
            if len(flowing) >= self.secs + 1:
                break
            if rx.poll() is not None or tx.poll() is not None:
                reason = "a testpmd exited early"
                break
            if not flowing and time.monotonic() > t0 + 10:
                reason = "no traffic 10 s after the sender started (memif link down?)"
                break
            if time.monotonic() > end:
                reason = f"only {len(flowing)} second(s) of traffic in {self.secs + 25} s"
                break
        self.procs.stop(tx)
        self.procs.stop(rx)
        v = baseline_of(testpmd_rx_pps(read(logs["rx"])), self.secs)
        if v is None:
            return None, reason or "no Rx-pps samples", logs
        return v, None, logs

    def _try_memif_pair(self, name, client_args, parse):
        """rnic-perf --link memif: server on cpu1, client (driving) on cpu0."""
        n, sock, port, prefix, log = self._ids(name)
        srv_cmd = self._failing(name, self._rnic_perf(
            self.cpu1, prefix + "s", self._memif("server", sock),
            ["--link", "memif", "--server", "-p", str(port)]))
        cli_cmd = self._rnic_perf(self.cpu0, prefix + "c", self._memif("client", sock),
                                  ["--link", "memif", "--client", "-p", str(port)] + client_args
                                  + ["-D", str(self.secs), "--no-progress"])
        logs = {"client": log + "-client.txt", "server": log + "-server.txt"}
        if self.dry:
            return [srv_cmd, cli_cmd]
        srv = self.procs.start(srv_cmd, logs["server"])
        cli = self.procs.start(cli_cmd, logs["client"])
        # The client drives and ends first or with the server; a server
        # that dies before leaves the client waiting for it (TCP connect
        # 60 s, a stuck measurement 10 s): stop it then.
        end = time.monotonic() + self.secs + 50
        srv_dead = None
        while cli.poll() is None and time.monotonic() < end:
            if srv.poll() not in (None, 0):
                if srv_dead is None:
                    srv_dead = time.monotonic()
                elif time.monotonic() > srv_dead + 2:
                    break
            time.sleep(0.05)
        to = cli.poll() is None
        rc = self.procs.stop(cli, grace=2.0)
        srv_rc, _ = self.procs.wait(srv, 10)
        v = parse(read(logs["client"]))
        if srv_dead is not None and to:
            return None, f"the server exited with status {srv_rc} before the client", logs
        if to:
            return None, f"the client timed out after {self.secs + 50} s", logs
        if rc != 0:
            return None, f"the client exited with status {rc}", logs
        if v is None:
            return None, "no result row in the client's report", logs
        return v, None, logs

    def _try_floor_lat(self, name, size, bw=False):
        """rnic-bench-floor-lat (@bw: --bw): server on cpu1, client on cpu0."""
        n, sock, _, prefix, log = self._ids(name)

        def cmd(cpu, role, args):
            return ([self.floor_lat] + EAL + ["-m", "1024", f"--file-prefix={prefix}{role[0]}",
                                              f"--lcores=0@{cpu}", self._memif(role, sock), "--"]
                    + args)
        mode = ["--bw"] if bw else []
        srv_cmd = self._failing(name, cmd(self.cpu1, "server", ["--server", "-s", str(size)] + mode))
        cli_cmd = cmd(self.cpu0, "client", ["--client", "-s", str(size), "-D", str(self.secs)]
                      + mode)
        logs = {"client": log + "-client.txt", "server": log + "-server.txt"}
        if self.dry:
            return [srv_cmd, cli_cmd]
        srv = self.procs.start(srv_cmd, logs["server"])
        cli = self.procs.start(cli_cmd, logs["client"])
        rc, to = self.procs.wait(cli, self.secs + 40)
        srv_rc, srv_to = self.procs.wait(srv, 10)
        v = (parse_floor_bw if bw else parse_floor_lat)(read(logs["client"]), size)
        if to:
            return None, f"the client timed out after {self.secs + 40} s", logs
        if rc != 0:
            return None, f"the client exited with status {rc}", logs
        if srv_to or srv_rc != 0:
            return None, "the server " + ("did not stop" if srv_to else
                                          f"exited with status {srv_rc}"), logs
        if v is None:
            return None, "no result line in the client's report", logs
        return v, None, logs

    def _try_raw_lat(self, name, flen):
        """testpmd macswap (cpu1) reflecting rnic-perf raw_lat's frames (cpu0)."""
        n, sock, _, prefix, log = self._ids(name)
        tp_cmd = self._failing(name, self._testpmd(
            self.cpu1, prefix + "m", self._memif("server", sock),
            ["--forward-mode=macswap", "--port-topology=loop"]))
        cli_cmd = self._rnic_perf(self.cpu0, prefix + "c", self._memif("client", sock),
                                  ["--link", "memif", "--client", "raw_lat", "-s", str(flen),
                                   "-D", str(self.secs), "--no-progress"])
        logs = {"client": log + "-client.txt", "testpmd": log + "-macswap.txt"}
        if self.dry:
            return [tp_cmd, cli_cmd]
        tp = self.procs.start(tp_cmd, logs["testpmd"])
        if not self._wait_started(logs["testpmd"], tp):
            self.procs.stop(tp)
            return None, "the macswap testpmd did not start its memif server", logs
        cli = self.procs.start(cli_cmd, logs["client"])
        rc, to = self.procs.wait(cli, self.secs + 40)
        self.procs.stop(tp)
        v = parse_lat(read(logs["client"]), flen)
        if to:
            return None, f"raw_lat timed out after {self.secs + 40} s", logs
        if rc != 0:
            return None, f"raw_lat exited with status {rc}", logs
        if v is None:
            return None, "no result row in raw_lat's report", logs
        return v, None, logs

    def _try_attach(self, name, size):
        """The daemon (gateway.json, its engine lcore on cpu1) and rnic-perf
        --attach with both ends (on cpu0)."""
        import json
        n, _, _, prefix, log = self._ids(name)
        sock = os.path.join(self.tmp, f"attach{n}.sock")
        with open(self.gateway) as f:
            cfg = json.load(f)
        # the daemon on the same memory as the in-process runs it is
        # compared with
        cfg["eal"] = ([EAL[0] if a == "--no-huge" else a for a in cfg["eal"]
                       if not a.startswith("--lcores")]
                      + [f"--lcores=0@{self.cpu0},1@{self.cpu1}", f"--file-prefix={prefix}d"])
        cfg["attach"]["socket"] = sock
        cfg_path = log + "-gateway.json"
        cli_cmd = self._rnic_perf(self.cpu0, prefix + "c", None,
                                  ["--attach", sock, "write_bw", "-s", str(size), "-D",
                                   str(self.secs), "--report_gbits", "--no-progress"], mem=256)
        d_cmd = self._failing(name, [self.softrnic, "--config", cfg_path])
        logs = {"daemon": log + "-daemon.txt", "client": log + "-client.txt"}
        if self.dry:
            return [d_cmd, cli_cmd]
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        d = self.procs.start(d_cmd, logs["daemon"])
        end = time.monotonic() + 20
        while "serving until stopped" not in read(logs["daemon"]):
            if d.poll() is not None or time.monotonic() > end:
                self.procs.stop(d)
                return None, "the daemon did not come up", logs
            time.sleep(0.05)
        cli = self.procs.start(cli_cmd, logs["client"])
        rc, to = self.procs.wait(cli, self.secs + 60)
        d_rc = self.procs.stop(d, grace=10)
        v = parse_bw(read(logs["client"]), size)
        if to:
            return None, f"the attached rnic-perf timed out after {self.secs + 60} s", logs
        if rc != 0:
            return None, f"the attached rnic-perf exited with status {rc}", logs
        if d_rc != 0:
            return None, f"the daemon's clean stop exited with status {d_rc}", logs
        if v is None:
            return None, "no result row in the client's report", logs
        return v, None, logs

    def _try_ring(self, name, args, parse, limit=120):
        prefix = self._ids(name)[3]
        return self._try_cmd(name, self._ring_cmd(prefix, args), parse, limit)

    def _try_cmd(self, name, argv, parse, limit=120):
        """One process that prints its own result row."""
        log = self._ids(name)[4]
        cmd = self._failing(name, argv)
        logs = {"out": log + ".txt"}
        if self.dry:
            return [cmd]
        p = self.procs.start(cmd, logs["out"])
        rc, to = self.procs.wait(p, self.secs + limit)
        v = parse(read(logs["out"]))
        if to:
            return None, f"timed out after {self.secs + limit} s", logs
        if rc != 0:
            return None, f"exited with status {rc}", logs
        if v is None:
            return None, "no result row in the report", logs
        return v, None, logs

    def attempt(self, kind, params):
        """The commands (dry run) or one attempt of measurement (@kind, @params)."""
        name = mname(kind, params)
        secs = str(self.secs)
        if kind == "testpmd":
            return self._try_testpmd(name, params[0])
        if kind == "memif":
            size, pmtu = params
            return self._try_memif_pair(name, ["write_bw", "-s", str(size), "-m", str(pmtu)]
                                        + BW_CQ_MOD, lambda t: parse_bw(t, size))
        if kind == "write_lat":
            size = params[0]
            return self._try_memif_pair(name, ["write_lat", "-s", str(size)],
                                        lambda t: parse_lat(t, size))
        if kind == "raw_lat":
            return self._try_raw_lat(name, params[0])
        if kind == "floor_lat":
            return self._try_floor_lat(name, params[0])
        if kind == "floor_bw":
            return self._try_floor_lat(name, params[0], bw=True)
        if kind == "ring":
            size, pmtu = params
            return self._try_ring(name, ["write_bw", "-s", str(size), "-m", str(pmtu), "-D", secs,
                                         "--report_gbits"] + BW_CQ_MOD,
                                  lambda t: parse_bw(t, size))
        if kind == "qps":
            # 4 WRs in flight per QP (65536 in all), a ring pair deep enough
            # to hold them and a 4.3 s ACK timeout (-u 20): with perftest's
            # 67 ms (-u 14) the queueing delay of 65536 packets on one lcore
            # would look like loss (doc/benchmarks.md). The 1-QP run uses
            # the same link, perftest's -t 128 and BW_CQ_MOD (with -t 4 a
            # completion comes every 4 WRs anyway).
            q = params[0]
            extra = ["-t", "4", "-u", "20"] if q > 1 else BW_CQ_MOD
            return self._try_ring(name, ["write_bw", "-s", "64", "-q", str(q)] + extra
                                  + ["-D", secs, "--ring-size", "131072"],
                                  lambda t: parse_bw(t, 64))
        if kind == "floor":
            cmd = ([self.floor] + EAL + ["-m", "1024", f"--file-prefix={self._ids(name)[3]}",
                                         f"--lcores=0@{self.cpu0},1@{self.cpu1}", "--",
                                         "-s", str(params[0]), "-D", secs])
            return self._try_cmd(name, cmd, parse_floor)
        if kind == "floor_qps":
            # The qps runs' floors: the one-QP form against -q 16384 -t 4
            q = params[0]
            cmd = ([self.floor] + EAL + ["-m", "1024", f"--file-prefix={self._ids(name)[3]}",
                                         f"--lcores=0@{self.cpu0},1@{self.cpu1}", "--",
                                         "-s", "64", "-D", secs]
                   + (["-q", str(q), "-t", "4"] if q > 1 else []))
            return self._try_cmd(name, cmd, parse_floor)
        if kind == "scale":
            # As the qps section: 4 WRs in flight per QP pair, a 4.3 s
            # ACK timeout and a deep ring when there are 16384 of them.
            w, size, pmtu, q = params
            extra = (["-t", "4", "-u", "20", "--ring-size", "131072"] if q > 64 else [])
            lcores = ",".join(f"{i}@{c}" for i, c in enumerate([self.cpu0, self.cpu1][:w]))
            cmd = ([self.scale] + EAL + ["-m", "4096" if q > 64 else "1024",
                                         f"--file-prefix={self._ids('scaleprefix')[3]}",
                                         f"--lcores={lcores}", "--", "-w", str(w), "-s", str(size),
                                         "-m", str(pmtu), "-q", str(q), "-D", secs] + extra)
            return self._try_cmd(name, cmd, parse_scale)
        if kind == "loss":
            # perftest's write_bw at PMTU 1024; the seed changes per
            # attempt so that a retry is not the same loss pattern.
            self.loss_seed = getattr(self, "loss_seed", 0) + 1
            return self._try_ring(name, ["write_bw", "-s", "65536", "-D", secs, "--report_gbits",
                                         "--loss", params[0], "--impair-seed", str(self.loss_seed)]
                                  + LOSS_MODES[params[1]], lambda t: parse_bw(t, 65536))
        if kind == "inproc":
            return self._try_ring(name, ["write_bw", "-s", str(params[0]), "-D", secs,
                                         "--report_gbits"], lambda t: parse_bw(t, params[0]))
        if kind == "attach":
            return self._try_attach(name, params[0])
        if kind == "cc":
            flows, mode = params
            return self._try_ring(name, ["write_bw", "-s", "65536", "-q", str(flows), "-D", secs,
                                         "--report_gbits", "-v", "--bottleneck", CC_BOTTLENECK,
                                         "--dcqcn", f"enabled={int(mode == 'dcqcn')},"
                                         + CC_DCQCN], parse_cc)
        raise ValueError(kind)

    def c2c_probe(self):
        """perf_c2c for 0.2 s between the two CPUs: ns per cache line round
        trip, or None (one CPU, not built, failed)."""
        if self.cpu0 == self.cpu1 or not os.access(self.c2c, os.X_OK):
            return None
        n, _, _, _, log = self._ids("c2c")
        p = self.procs.start([self.c2c, str(self.cpu0), str(self.cpu1), "0.2"], log + ".txt")
        rc, to = self.procs.wait(p, 10)
        m = re.search(r"c2c_rtt_ns=(\d+)", read(log + ".txt"))
        return int(m.group(1)) if m and rc == 0 and not to else None

    def measure(self, kind, params, label):
        """One sample: up to 1 + RETRIES attempts. The value or None."""
        name = mname(kind, params)
        for att in range(1 + RETRIES):
            c2c = self.c2c_probe() if kind in MEMIF_KINDS else None
            if c2c is not None:
                self.c2c_ns.append(c2c)
            t0 = time.monotonic()
            v, reason, logs = self.attempt(kind, params)
            if v is not None:
                show = (f"{v / 1e6:.4f} Mpps" if kind == "testpmd" else
                        f"p50 {v['p50']:.2f} us p99 {v['p99']:.2f} us" if "lat" in kind else
                        f"{v['mpps']:.4f} M msgs/s")
                print(f"bench: {label} {name}: {show} ({time.monotonic() - t0:.1f} s"
                      + (f", c2c {c2c} ns" if c2c is not None else "") + ")", file=sys.stderr)
                return v
            keep = f"/tmp/softrnic-bench-fail-{os.getpid()}-{name}-{att + 1}"
            kept = []
            for what, path in logs.items():
                if os.path.exists(path):
                    shutil.copyfile(path, f"{keep}-{what}.txt")
                    kept.append(f"{keep}-{what}.txt")
            nxt = (f"retry {att + 1}/{RETRIES}" if att < RETRIES else
                   "no more retries: this round has no sample")
            print(f"bench: {label} {name} failed ({reason}); {nxt}; logs: {' '.join(kept)}",
                  file=sys.stderr)
            for path in kept:
                t = tail(read(path), 4)
                if t:
                    print("  | " + t.replace("\n", "\n  | "), file=sys.stderr)
            time.sleep(0.5)
        return None

    # -----------------------------------------------------------------

    def dry_run(self):
        print(f"bench: plan: {self.rounds} rounds x {self.secs} s, sections {','.join(self.sections)}, "
              f"CPUs {self.cpu0} and {self.cpu1}")
        for rnd in range(self.rounds):
            print(f"bench: round {rnd + 1}: " + " ".join(mname(k, p) for k, p in plan_round(rnd, self.sections)))
        print("bench: the commands of round 1 (socket, port and prefix change per attempt):")
        for kind, params in plan_round(0, self.sections):
            for cmd in self.attempt(kind, params):
                print(f"  {mname(kind, params)}: {' '.join(cmd)}")
        if "memif" in self.sections or "lat" in self.sections:
            print(f"  before each memif/lat measurement: {self.c2c} {self.cpu0} {self.cpu1} 0.2")
        if "qps" in self.sections:
            print(f"  state: {self.state} {' '.join(EAL)} -m 512 --file-prefix=...")
        print(f"bench: then {self.extra} more rounds of each pair with a figure spread over "
              f"{SPREAD_LIMIT}x (BENCH_EXTRA)")
        if os.environ.get("BENCH_SWEEP") and "ring" in self.sections:
            print("  sweep: rnic-perf --rtc write_bw -a -m {1024,4096} -D 1 --margin 0.2 ...")

    def run(self):
        start = time.monotonic()
        try:
            with open("/proc/cpuinfo") as f:
                model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        except OSError:
            model = "?"
        load = " ".join(read("/proc/loadavg").split()[:3])
        print(f"bench: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {os.cpu_count()} CPUs "
              f"({model}), load average {load}, {self.secs} s per measurement, "
              f"{self.rounds} rounds, {self.huge.line()}", flush=True)

        samples = {}   # (kind, params) -> [value or None per round]
        for rnd in range(self.rounds):
            label = f"[round {rnd + 1}/{self.rounds}]"
            for kind, params in plan_round(rnd, self.sections):
                samples.setdefault((kind, params), []).append(self.measure(kind, params, label))
        again = settle_plan(samples, self.sections)
        if again and self.extra:
            print(f"bench: unsteady, {self.extra} more rounds of: "
                  + " ".join(mname(k, p) for k, p in again), file=sys.stderr)
        for ext in range(self.extra if again else 0):
            label = f"[extra {ext + 1}/{self.extra}]"
            for kind, params in (again if ext % 2 == 0 else again[::-1]):
                samples[(kind, params)].append(self.measure(kind, params, label))

        failed = False
        lines, warns = [], []
        if "memif" in self.sections:
            base_by_frame = {}
            ratios, paired = [], []
            for size, pmtu in MEMIF_CASES:
                nfr, flen = frames_of(size, pmtu)
                base = samples[("testpmd", (flen,))]
                base_by_frame[flen] = base
                line, w, r, rp = memif_line(size, pmtu, nfr, flen,
                                            [None if m is None else m["mpps"]
                                             for m in samples[("memif", (size, pmtu))]], base)
                lines.append(line)
                warns += w
                ratios.append((r, size, pmtu))
                paired.append((rp, size, pmtu))
            warns += baseline_warnings(base_by_frame)
            lines.append(worst_line(ratios, paired))
            for size in FLOOR_BW_SIZES:
                soft = {pmtu: [None if m is None else m["mpps"]
                               for m in samples[("memif", (sz, pmtu))]]
                        for sz, pmtu in MEMIF_CASES if sz == size and floor_bw_of(sz, pmtu)}
                line, w = floor_bw_line(size, [None if m is None else m["mpps"]
                                               for m in samples[("floor_bw", (size,))]],
                                        samples[("testpmd", (frame_len(size, True),))], soft)
                lines.append(line)
                warns += w
        if "lat" in self.sections:
            _, flen = frames_of(LAT_SIZE, 1024)
            line, w = lat_line(LAT_SIZE, flen, samples[("write_lat", (LAT_SIZE,))],
                               samples[("raw_lat", (flen,))])
            lines.append(line)
            warns += w
            line, w = floor_lat_line(LAT_SIZE, samples[("floor_lat", (LAT_SIZE,))],
                                     samples[("write_lat", (LAT_SIZE,))],
                                     samples[("raw_lat", (flen,))])
            lines.append(line)
            warns += w
        if self.c2c_ns:
            line, w = c2c_line(self.c2c_ns, self.cpu0, self.cpu1)
            lines.append(line)
            warns += w
        if "ring" in self.sections:
            for size, pmtu in RING_CASES:
                line, w = ring_line(size, pmtu, samples[("ring", (size, pmtu))])
                lines.append(line)
                warns += w
            line, w = floor_line(FLOOR_CASE[0], samples[("ring", FLOOR_CASE)],
                                 samples[("floor", (FLOOR_CASE[0],))])
            lines.append(line)
            warns += w
        if "qps" in self.sections:
            n, _, _, prefix, log = self._ids("state")
            p = self.procs.start([self.state] + EAL + ["-m", "512", f"--file-prefix={prefix}"],
                                 log + ".txt")
            self.procs.wait(p, 120)
            state, heap = parse_state(read(log + ".txt"))
            if state is None:
                print("bench: perf_state gave no state_bytes_per_qp:\n" + tail(read(log + ".txt")),
                      file=sys.stderr)
            one = [None if r is None else r["mpps"] for r in samples[("qps", (1,))]]
            many = [None if r is None else r["mpps"] for r in samples[("qps", (16384,))]]
            line, w = qps_line(one, many, state, heap)
            lines.append(line)
            warns += w
            line, w = floor_qps_line(one, many,
                                     [None if r is None else r["mpps"]
                                      for r in samples[("floor_qps", (1,))]],
                                     [None if r is None else r["mpps"]
                                      for r in samples[("floor_qps", (16384,))]])
            lines.append(line)
            warns += w
        if "scale" in self.sections:
            def mpps(params):
                return [None if r is None else r["mpps"] for r in samples[("scale", params)]]
            for size, pmtu in SCALE_CASES:
                line, w = scale_line(size, pmtu, mpps((1, size, pmtu, SCALE_QPS)),
                                     mpps((2, size, pmtu, SCALE_QPS)))
                lines.append(line)
                warns += w
            line, w = scale_qps_line(mpps((2, 64, 1024, SCALE_QPS)), mpps((2, 64, 1024, 16384)))
            lines.append(line)
            warns += w
        if "cc" in self.sections:
            for flows in CC_FLOWS:
                for mode in CC_MODES:
                    line, w = cc_line(flows, mode, samples[("cc", (flows, mode))])
                    lines.append(line)
                    warns += w
        if "attach" in self.sections:
            for size in ATTACH_SIZES:
                line, w = attach_line(size, samples[("attach", (size,))],
                                      samples[("inproc", (size,))])
                lines.append(line)
                warns += w
        if "loss" in self.sections:
            for mode in LOSS_MODES:
                for loss in LOSS_CASES[1:]:
                    line, w = loss_line(loss, samples[("loss", (loss, mode))],
                                        samples[("loss", (LOSS_CASES[0], mode))], mode)
                    lines.append(line)
                    warns += w
        for line in lines + warns:
            print(line)
            failed |= "failed=1" in line
        sys.stdout.flush()

        if os.environ.get("BENCH_SWEEP") and "ring" in self.sections:
            self.sweep(os.environ["BENCH_SWEEP"])
        print(f"bench: done in {time.monotonic() - start:.0f} s"
              + (" (some figures failed: failed=1 above)" if failed else ""), flush=True)
        return 1 if failed else 0

    def sweep(self, d):
        """The -a sweep on the ring for doc/benchmarks.md's plot."""
        os.makedirs(d, exist_ok=True)
        for pmtu in (1024, 4096):
            out = os.path.join(d, f"write_bw_sweep_{pmtu}.json")
            n, _, _, prefix, log = self._ids(f"sweep{pmtu}")
            p = self.procs.start(self._ring_cmd(prefix, ["write_bw", "-a", "-m", str(pmtu), "-D", "1",
                                                         "--margin", "0.2", "--out_json", out,
                                                         "--report_gbits"]), log + ".txt")
            rc, to = self.procs.wait(p, 300)
            if rc == 0 and not to:
                print(f"bench: sweep pmtu={pmtu} -> {out}")
            else:
                print(f"bench: sweep pmtu={pmtu} failed ({'timed out' if to else f'status {rc}'}):\n"
                      + tail(read(log + ".txt")), file=sys.stderr)
        try:
            import json
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("bench: no plot (python3-matplotlib missing)")
            return
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for pmtu in (1024, 4096):
            try:
                with open(f"{d}/write_bw_sweep_{pmtu}.json") as f:
                    r = json.load(f)["results"]
            except (OSError, ValueError, KeyError):
                continue
            ax.plot([x["MsgSize"] for x in r], [x["BW_average"] for x in r], marker="o",
                    label=f"PMTU {pmtu}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size [bytes]")
        ax.set_ylabel("BW average [Gb/sec]")
        ax.set_title("rnic-perf write_bw, ring pair, one engine lcore (--rtc)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"{d}/write_bw_sweep.png", dpi=110)
        print(f"bench: plot -> {d}/write_bw_sweep.png")

    def cleanup(self):
        # A second Ctrl-C must not cut the cleanup short.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        self.procs.stop_all()
        self.huge.teardown()
        if not self.dry:
            shutil.rmtree(self.tmp, ignore_errors=True)


# ---------------------------------------------------------------------
# --selftest: canned outputs
# ---------------------------------------------------------------------

CANNED_BW = """\
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 64         5231245          168.51             159.66               2.615902
---------------------------------------------------------------------------------------
"""
CANNED_LAT = """\
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       778961        0.51           8620.95      0.61             1.00           35.46            0.83                   1.91   
---------------------------------------------------------------------------------------
"""
CANNED_TESTPMD = """\
  ######################## NIC statistics for port 0  ########################
  RX-packets: 0          RX-missed: 0          RX-bytes:  0
  Rx-pps:            0          Rx-bps:            0
  Rx-pps:      1600123          Rx-bps:  1
  Rx-pps:      1770000          Rx-bps:  1
  Rx-pps:      1780000          Rx-bps:  1
  Rx-pps:      1770500          Rx-bps:  1
  Rx-pps:       300000          Rx-bps:  1
"""


def selftest():
    errors = []

    def check(what, got, want):
        if got != want:
            errors.append(f"{what}: got {got!r}, want {want!r}")

    # Frame sizes: those of doc/benchmarks.md's table, and write_lat's 2 B.
    check("frames 64/1024", frames_of(64, 1024), (1, 138))
    check("frames 64/4096", frames_of(64, 4096), (1, 138))
    check("frames 1024/1024", frames_of(1024, 1024), (1, 1098))
    check("frames 4096/1024", frames_of(4096, 1024), (4, 1086))
    check("frames 4096/4096", frames_of(4096, 4096), (1, 4170))
    check("frames 2/1024", frames_of(2, 1024), (1, 78))
    # Parsing.
    check("bw", parse_bw(CANNED_BW, 64), {"mpps": 2.615902, "bw": 159.66})
    check("bw wrong size", parse_bw(CANNED_BW, 1024), None)
    check("bw truncated", parse_bw(CANNED_BW.split(" 64 ")[0], 64), None)
    check("bw garbage", parse_bw(" #bytes x\n 64 abc 1 2 3\n", 64), None)
    check("lat", parse_lat(CANNED_LAT, 2), {"min": 0.51, "p50": 0.61, "p99": 0.83, "p999": 1.91})
    check("lat as bw", parse_bw(CANNED_LAT, 2), None)
    pps = testpmd_rx_pps(CANNED_TESTPMD)
    check("testpmd samples", len(pps), 6)
    check("baseline (ramp-up left out)", baseline_of(pps, 3), 1770500.0)
    check("baseline at most want", baseline_of(pps, 2), 1775000.0)
    check("baseline one second", baseline_of([0, 5, 7], 3), 7)
    check("baseline none", baseline_of([0, 0, 3], 3), None)
    check("state", parse_state("x\nstate_bytes_per_qp=1816 sizeof...\nheap_state_bytes_per_qp=2328\n"),
          (1816, 2328))
    # Statistics.
    check("median odd", median([3, None, 1, 2]), 2)
    check("median even", median([1, 4]), 2.5)
    check("median none", median([None, None]), None)
    check("fmt nan", fmt(None, 3), "nan")
    check("ratio nan", ratio(1.0, None), None)
    check("spread", spread([1.0, 2.0, None]), 2.0)
    check("spread one", spread([1.0, None]), None)
    # Report lines: ratio of medians, min/max, nan and failed=1, flags.
    line, warn, r, rp = memif_line(64, 1024, 1, 138, [2.0, 2.2, 2.4], [8e6, 9e6, 4e6])
    check("memif line", line,
          "bench: test=write size=64 link=memif softrnic_mpps=2.2000 baseline_mpps=8.0000 "
          "ratio=0.275 pmtu=1024 frame=138 softrnic_min=2.0000 softrnic_max=2.4000 softrnic_n=3 "
          "baseline_min=4.0000 baseline_max=9.0000 baseline_n=3 ratio_paired=0.250")
    check("memif spread not the baseline's", warn, [])
    # Two modes (quick 8/18, slow 4/6; the last round's pair split by a
    # change): the medians' ratio sets a quick baseline against a slow
    # softrnic figure, the rounds' own ratios mostly do not.
    line, warn, r, rp = memif_line(64, 1024, 1, 138, [8.0, 4.0, 4.1, 8.2, 4.0],
                                   [18e6, 6e6, 5.8e6, 19e6, 18.5e6])
    check("memif paired", (round(r, 3), round(rp, 3)), (0.228, 0.444))
    check("paired skips a missing side", round(paired_ratio([1.0, None, 3.0], [2.0, 1.0, None, 9.0]), 3),
          0.5)
    check("paired none", paired_ratio([None], [1.0]), None)
    line, warn, r, rp = memif_line(64, 1024, 1, 138, [2.0, 3.2, 2.4], [8e6, 9e6, 4e6])
    check("memif spread flagged", [w.split(" figure=")[1].split()[0] for w in warn], ["softrnic_mpps"])
    bw = baseline_warnings({138: [8e6, 9e6, 4e6], 1098: [2e6, 2e6, 2e6]})
    check("baseline spread once per frame", [w.split()[5] for w in bw], ["frame=138"])
    line, warn, r, rp = memif_line(4096, 1024, 4, 1086, [0.5, None, 0.6], [2e6, 2e6, 2e6])
    check("memif frames x msgs", line.split()[4], "softrnic_mpps=2.2000")
    check("memif partial n", "softrnic_n=2" in line and "failed=1" not in line, True)
    line, warn, r, rp = memif_line(64, 4096, 1, 138, [None, None, None], [8e6, 8e6, 8e6])
    check("memif failed", (line.split()[4], line.split()[6], line.endswith(" failed=1"), r, rp),
          ("softrnic_mpps=nan", "ratio=nan", True, None, None))
    check("worst", worst_line([(0.3, 64, 1024), (None, 64, 4096), (0.25, 1024, 1024)]),
          "bench: test=write link=memif worst_ratio=0.250 (size=1024 pmtu=1024)")
    check("worst paired", worst_line([(0.3, 64, 1024), (0.25, 1024, 1024)],
                                     [(0.5, 64, 1024), (0.6, 1024, 1024)]),
          "bench: test=write link=memif worst_ratio=0.250 (size=1024 pmtu=1024) "
          "worst_ratio_paired=0.500 (size=64 pmtu=1024)")
    check("worst none", worst_line([(None, 64, 1024)]),
          "bench: test=write link=memif worst_ratio=nan failed=1")
    nw = neighbour_warnings({138: [8e6], 1086: [2e6, 1.9e6, 2.1e6], 1098: [6.9e6, 7e6, 1e6], 4170: [1e6]})
    check("neighbours flagged", [w.split()[3:4] + w.split()[7:8] for w in nw],
          [["frame=1086", "frame=1098"]])
    check("neighbours agree", neighbour_warnings({1086: [2e6], 1098: [2.9e6], 4170: [9e6]}), [])
    line, warn = lat_line(2, 78, [{"p50": 0.6, "p99": 0.9}, {"p50": 0.62, "p99": 0.8}, None],
                          [{"p50": 0.2, "p99": 0.3}] * 3)
    check("lat line", line.split()[:10],
          ["bench:", "test=lat", "size=2", "link=memif", "softrnic_p50_us=0.61",
           "softrnic_p99_us=0.85", "baseline_p50_us=0.20", "baseline_p99_us=0.30",
           "ratio_p50=3.050", "ratio_p99=2.833"])
    check("floor_bw parse", parse_floor_bw("floor_bw: size=64 msgs=36000000 secs=3.000 "
                                           "msgs_per_s=12000000\n", 64), {"mpps": 12.0})
    check("floor_bw parse other size", parse_floor_bw("floor_bw: size=64 msgs=36000000 secs=3.000 "
                                                      "msgs_per_s=12000000\n", 1024), None)
    check("floor_bw parse none", parse_floor_bw("floor_bw: size=64 msgs=0 secs=3.000 "
                                                "msgs_per_s=0\n", 64), None)
    check("floor_bw of", [floor_bw_of(*c) for c in MEMIF_CASES], [True, True, True, True, False, True])
    line, warn = floor_bw_line(64, [12.0, 6.0, 12.4], [18e6, 19e6, None],
                               {1024: [8.0, 8.2, 4.0], 4096: [8.4, None, 8.1]})
    check("floor_bw line", line, "bench: test=floor_bw size=64 link=memif frame=138 floor_mpps=12.0000 "
          "baseline_mpps=18.5000 floor_ratio=0.649 softrnic_ratio_pmtu1024=0.667 "
          "softrnic_ratio_pmtu4096=0.688 floor_min=6.0000 floor_max=12.4000 floor_n=3 "
          "floor_ratio_paired=0.491 softrnic_ratio_paired_pmtu1024=0.667 "
          "softrnic_ratio_paired_pmtu4096=0.677")
    check("floor_bw spread", len(warn), 1)
    line, warn = floor_bw_line(4096, [None, None], [5e6], {4096: [2.3]})
    check("floor_bw failed", (line.split()[4:7], line.endswith("failed=1")),
          (["frame=4170", "floor_mpps=nan", "baseline_mpps=5.0000"], True))
    check("floor_lat parse", parse_floor_lat("floor_lat: size=2 rounds=318929 p50_us=0.445 "
                                             "p99_us=0.710\n", 2), {"p50": 0.445, "p99": 0.71})
    check("floor_lat parse none", parse_floor_lat("floor_lat: size=2 rounds=0 p50_us=0.000 "
                                                  "p99_us=0.000\n", 2), None)
    line, warn = floor_lat_line(2, [{"p50": 0.3, "p99": 0.5}, None, {"p50": 0.32, "p99": 0.6}],
                                [{"p50": 0.62, "p99": 1.8}] * 3, [{"p50": 0.2, "p99": 0.3}] * 3)
    check("floor_lat line", line, "bench: test=floor_lat size=2 link=memif floor_p50_us=0.31 "
          "floor_p99_us=0.55 floor_ratio_p50=1.550 softrnic_ratio_p50=2.000 floor_p50_min=0.30 "
          "floor_p50_max=0.32 floor_p50_n=2")
    line, warn = lat_line(2, 78, [None] * 3, [{"p50": 0.2, "p99": 0.3}] * 3)
    check("lat failed", ("softrnic_p50_us=nan" in line, "ratio_p50=nan" in line,
                         line.endswith("failed=1")), (True, True, True))
    line, warn = ring_line(64, 1024, [{"mpps": 2.1, "bw": 1.07}, {"mpps": 2.13, "bw": 1.09},
                                      {"mpps": 2.0, "bw": 1.02}])
    check("ring line", line, "bench: test=write size=64 link=ring softrnic_mpps=2.100000 gbps=1.07 "
          "pmtu=1024 min=2.000000 max=2.130000 n=3")
    check("floor parse", parse_floor("floor: size=64 burst=32 window=64 cq_mod=32 "
                                     "msgs_per_s=13921163 ns_per_msg=71.8 placed=48688289\n"),
          {"mpps": 13.921163})
    check("floor parse none", parse_floor("rnic-bench-floor: 0 placed of 32 sent, 0 bad\n"), None)
    line, warn = floor_line(64, [{"mpps": 5.0}, {"mpps": 5.5}, None],
                            [{"mpps": 13.2}, {"mpps": 13.9}, {"mpps": 13.3}])
    check("floor line", line, "bench: test=floor size=64 link=ring ratio=0.395 softrnic_mpps=5.250000 "
          "floor_mpps=13.300000 floor_min=13.200000 floor_max=13.900000 floor_n=3")
    line, warn = floor_line(64, [{"mpps": 5.0}] * 3, [None] * 3)
    check("floor failed", ("ratio=nan" in line, line.endswith("failed=1")), (True, True))
    line, warn = c2c_line([127, 1600, 130], 0, 1)
    check("c2c line", (line, len(warn)), ("bench: c2c_rtt_ns=130 cpus=0,1 min=127 max=1600 n=3", 1))
    line, warn = qps_line([2.4, 2.5, 2.45], [0.9, 0.8, 1.0], 1816, 2328)
    check("qps line", line.split()[:7],
          ["bench:", "qps=16384", "ratio=0.367", "state_bytes_per_qp=1816", "qps1_mpps=2.450000",
           "qps16384_mpps=0.900000", "heap_state_bytes_per_qp=2328"])
    line, warn = floor_qps_line([2.4, 2.5, 2.45], [0.9, 0.8, 1.0], [10.0, 12.0, 11.0],
                                [8.0, None, 8.8])
    check("floor qps line", line.split()[:7],
          ["bench:", "test=floor_qps", "qps=16384", "ratio=0.764", "softrnic_ratio=0.367",
           "floor1_mpps=11.000000", "floor16384_mpps=8.400000"])
    line, warn = floor_qps_line([2.4], [0.9], [None], [8.0])
    check("floor qps failed", line.endswith("failed=1"), True)
    line, warn = scale_line(64, 1024, [3.0, 3.2, 3.1], [5.9, None, 5.5])
    check("scale line", line.split()[:8],
          ["bench:", "test=scale", "workers=2", "size=64", "pmtu=1024", "scaling=1.839",
           "workers1_mpps=3.100000", "workers2_mpps=5.700000"])
    line, warn = scale_qps_line([5.0, 5.0, 5.0], [None] * 3)
    check("scale qps failed", ("ratio=nan" in line, line.endswith("failed=1")), (True, True))
    check("parse scale", parse_scale("x\nbench: test=scale workers=2 size=64 pmtu=1024 qps=2 "
                                     "msgs_mpps=5.1234 gbps=2.62\n"), {"mpps": 5.1234})
    line, warn = loss_line("1%", [{"bw": 9.0, "mpps": 0}, None, {"bw": 10.0, "mpps": 0}],
                           [{"bw": 36.0, "mpps": 0}] * 3)
    check("loss line", line, "bench: test=loss loss=1% mode=gbn goodput_ratio=0.264 gbps=9.50 "
          "lossfree_gbps=36.00 min=9.00 max=10.00 n=2")
    line, warn = loss_line("1%", [{"bw": 30.0, "mpps": 0}] * 3, [{"bw": 32.0, "mpps": 0}] * 3,
                           "sr")
    check("loss line sr", line.split()[:5], ["bench:", "test=loss", "loss=1%", "mode=sr",
                                             "goodput_ratio=0.938"])
    line, warn = loss_line("5%", [None] * 3, [{"bw": 36.0, "mpps": 0}] * 3)
    check("loss failed", ("goodput_ratio=nan" in line, line.endswith("failed=1")), (True, True))
    line, warn = attach_line(65536, [{"bw": 9.0, "mpps": 0}, {"bw": 10.0, "mpps": 0}, None],
                             [{"bw": 10.0, "mpps": 0}] * 3)
    check("attach line", line, "bench: test=attach size=65536 ratio=0.950 attached_gbps=9.50 "
          "inproc_gbps=10.00 attached_min=9.00 attached_max=10.00 attached_n=2 "
          "inproc_min=10.00 inproc_max=10.00 inproc_n=3")
    check("attach plan", [k for k, _ in plan_round(1, ("attach",))],
          ["attach", "inproc", "attach", "inproc"])
    canned_cc = (" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
                 "flows: n=4 gbps=1.055,1.038,1.038,1.020 jain=0.999\n"
                 " 65536      19100            4.58               4.17                 0.007958\n"
                 "counters (client): tx_pkts=5 tx_retransmits=12 acks_rcvd=3\n"
                 "impair: tx_impair_dropped=0 tx_bottleneck_dropped=7 tx_bottleneck_depth_p99=89\n"
                 "link: tx_gbps=4.4950\n")
    check("parse cc", parse_cc(canned_cc),
          {"mpps": 0.007958, "bw": 4.17, "jain": 0.999, "drops": 7, "p99": 89, "rexmit": 12,
           "link": 4.495})
    check("parse cc no flows", parse_cc(canned_cc.replace("flows:", "x:")), None)
    check("parse cc no link", parse_cc(canned_cc.replace("link:", "x:")), None)
    line, warn = cc_line(4, "dcqcn", [parse_cc(canned_cc), None, parse_cc(canned_cc)])
    check("cc line", line.split()[:11],
          ["bench:", "test=cc", "flows=4", "mode=dcqcn", "drops=7", "utilization=0.899",
           "jain=0.999", "p99_queue=89", "retransmits=12", "goodput_ratio=0.834", "gbps=4.17"])
    # The plan: every figure once per round, turns and rotation.
    sec = list(SECTIONS)
    p0, p1 = plan_round(0, sec), plan_round(1, sec)
    check("plan once each", sorted(p0) == sorted(p1) and len(p0) == len(set(p0)), True)
    check("plan baselines", sorted(p[1][0] for p in p0 if p[0] == "testpmd"), [138, 1086, 1098, 4170])
    check("plan turns r0", p0[:3], [("testpmd", (138,)), ("memif", (64, 1024)), ("floor_bw", (64,))])
    check("plan turns r1", p1[:3], [("floor_bw", (64,)), ("memif", (64, 4096)), ("testpmd", (138,))])
    check("plan floor_bw sizes", sorted(p[1][0] for p in p0 if p[0] == "floor_bw"), [64, 1024, 4096])
    check("plan lat turns", [k for k, _ in p0 if "lat" in k] + [k for k, _ in p1 if "lat" in k],
          ["raw_lat", "floor_lat", "write_lat", "write_lat", "floor_lat", "raw_lat"])
    check("plan ring rotates", [p for k, p in p1 if k == "ring"][0], (1024, 1024))
    check("plan floor turns", [(k, p) for k, p in p0 if k in ("ring", "floor")][:2]
          + [(k, p) for k, p in p1 if k in ("ring", "floor")][-2:],
          [("floor", (64,)), ("ring", (64, 1024)), ("ring", (64, 1024)), ("floor", (64,))])
    check("plan floor qps turns", [(k, p) for k, p in p0 if k in ("qps", "floor_qps")],
          [("qps", (1,)), ("floor_qps", (1,)), ("qps", (16384,)), ("floor_qps", (16384,))])
    check("plan scale turns", [p for k, p in p0 if k == "scale"][:2] + [p for k, p in p1 if k == "scale"][:2],
          [(1, 64, 1024, 2), (2, 64, 1024, 2), (2, 4096, 4096, 2), (1, 4096, 4096, 2)])

    # Extra rounds: only the groups with an unsteady figure, each member
    # once (testpmd's 138 B baseline serves both 64 B lines).
    bw = lambda *xs: [None if x is None else {"mpps": x} for x in xs]
    steady = {("testpmd", (138,)): [20e6, 21e6, 22e6], ("memif", (64, 1024)): bw(5.0, 5.5, 6.0),
              ("memif", (64, 4096)): bw(5.0, 5.2, None), ("ring", (64, 1024)): bw(5.0, 5.1, 4.9),
              ("write_lat", (2,)): [{"p50": 0.6}] * 3, ("raw_lat", (78,)): [{"p50": 0.22}] * 3,
              ("qps", (1,)): bw(4.0, 4.1, 4.2), ("qps", (16384,)): bw(3.0, 3.1, 2.9)}
    check("settle steady", settle_plan(steady, SECTIONS), [])
    check("settle one sample", settle_plan({("ring", (64, 1024)): bw(1.0, None, None)},
                                           ["ring"]), [])
    unsteady = dict(steady)
    unsteady[("testpmd", (138,))] = [7.87e6, 8.8e6, 18.17e6]
    unsteady[("write_lat", (2,))] = [{"p50": 0.6}, {"p50": 1.2}, None]
    unsteady[("qps", (16384,))] = bw(2.0, 3.1, 3.05)
    check("settle unsteady", settle_plan(unsteady, SECTIONS),
          [("testpmd", (138,)), ("memif", (64, 1024)), ("floor_bw", (64,)), ("memif", (64, 4096)),
           ("raw_lat", (78,)), ("floor_lat", (2,)), ("write_lat", (2,)), ("qps", (1,)),
           ("qps", (16384,))])
    check("settle sections", settle_plan(unsteady, ["ring", "qps"]),
          [("qps", (1,)), ("qps", (16384,))])
    unsteady[("floor", (64,))] = bw(13.0, 6.0, 13.5)
    check("settle floor", settle_plan(unsteady, ["ring"]), [("ring", (64, 1024)), ("floor", (64,))])

    for e in errors:
        print("bench selftest: FAIL " + e)
    print(f"bench selftest: {'FAILED' if errors else 'ok'} ({len(errors)} of the checks failed)")
    return 1 if errors else 0


# ---------------------------------------------------------------------

def main(argv):
    build, dry, only = "build", False, None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--selftest":
            return selftest()
        if a == "--dry-run":
            dry = True
        elif a == "--only" and args:
            only = args.pop(0)
        elif a.startswith("--only="):
            only = a.split("=", 1)[1]
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        elif a.startswith("-"):
            print(f"bench: unknown option {a} (--help)", file=sys.stderr)
            return 2
        else:
            build = a
    sections = list(SECTIONS)
    if only:
        sections = [s for s in SECTIONS if s in only.split(",")]
        bad = set(only.split(",")) - set(SECTIONS)
        if bad or not sections:
            print(f"bench: --only takes {','.join(SECTIONS)}", file=sys.stderr)
            return 2
    try:
        secs = int(os.environ.get("BENCH_SECONDS", "3"))
        rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
        extra = int(os.environ.get("BENCH_EXTRA", str(EXTRA_ROUNDS)))
    except ValueError:
        print("bench: BENCH_SECONDS, BENCH_ROUNDS and BENCH_EXTRA are whole numbers",
              file=sys.stderr)
        return 2
    if secs < 1 or rounds < 1 or extra < 0:
        print("bench: BENCH_SECONDS and BENCH_ROUNDS are at least 1, BENCH_EXTRA at least 0",
              file=sys.stderr)
        return 2

    b = Bench(build, secs, rounds, sections, dry_run=dry, extra=extra)
    if dry:
        b.dry_run()
        return 0
    for f in (b.perf, b.state):
        if not os.access(f, os.X_OK):
            print(f"bench: {f} is missing: build first (make build)", file=sys.stderr)
            return 1
    if not os.access(b.testpmd, os.X_OK):
        print("bench: dpdk-testpmd not found (Debian package dpdk-dev)", file=sys.stderr)
        return 1

    def on_signal(sig, frame):
        raise Interrupted(signal.Signals(sig).name)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        b.huge.setup()
        return b.run()
    except Interrupted as e:
        print(f"bench: {e}: stopping every process started", file=sys.stderr)
        return 130
    finally:
        b.cleanup()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
