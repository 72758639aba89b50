#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where write_lat's time goes: merge the latency traces of the two ends.

  scripts/lat-trace.py CLIENT_DUMP SERVER_DUMP
  scripts/lat-trace.py --selftest

The dumps are what rnic-perf writes with RNIC_LAT_TRACE=FILE when built
with meson -Dlat_trace=true (lib/core/rnic_trace.h; scripts/lat-trace.sh
runs it all). Both processes read the same TSC, so their records merge
into one timeline. A round starts at the client's post; the script
prints, as medians over the rounds (the first and last tenth left out):

  - the timeline of one round, every step of both ends, in ns after the
    client's post;
  - each half of the round trip split into its steps: the requester's
    post to its doorbell, building the request, its rte_eth_tx_burst,
    the wait until the other end's RX burst that holds it (the link and
    whatever that end was doing), parsing, the responder's step, the
    rest of that RX pass, and the way back to the application;
  - for the slowest 1% of the one-way trips (TAIL), the step that took
    most of each trip's excess over the steps' medians, how often each
    step did and by how much: where write_lat's p99 comes from.
"""
import struct
import sys
from statistics import median

POINTS = {1: "post", 2: "doorbell", 3: "tx_flush", 4: "tx_done", 5: "rx_burst",
          6: "parsed", 7: "handled", 8: "rx_end", 9: "seen"}
POST, DOORBELL, TX_FLUSH, TX_DONE, RX_BURST, PARSED, HANDLED, RX_END, SEEN = range(1, 10)
# RC request opcodes that end a message (IBA 9.2: SEND/WRITE last/only)
REQ_LAST = {0x04, 0x05, 0x0a, 0x0b, 0x16, 0x17, 0x08, 0x09}


def load(path):
    """(hz, [(tsc, point, arg)])"""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 16 or data[:8] != b"RNICTRC1":
        raise SystemExit(f"lat-trace: {path}: not a latency trace (no RNICTRC1 header)")
    hz = struct.unpack_from("<Q", data, 8)[0]
    recs = []
    for off in range(16, len(data) - 15, 16):
        tsc, point, _lcore, arg = struct.unpack_from("<QHHI", data, off)
        recs.append((tsc, point, arg))
    recs.sort()
    return hz, recs


def half(events, t0, req, resp):
    """One way: @req's post at or after @t0 to @resp seeing it. @events:
    the round's (tsc, side, point, arg). Returns {step: ticks} or None."""
    def first(side, point, after, pred=lambda e: True):
        for e in events:
            if e[0] >= after and e[1] == side and e[2] == point and pred(e):
                return e
        return None
    post = first(req, POST, t0)
    if post is None:
        return None
    db = first(req, DOORBELL, post[0])
    fl = db and first(req, TX_FLUSH, db[0])
    done = fl and first(req, TX_DONE, fl[0])
    hd = done and first(resp, HANDLED, fl[0], lambda e: e[3] in REQ_LAST)
    if hd is None:
        return None
    burst = max((e for e in events if e[1] == resp and e[2] == RX_BURST and e[0] <= hd[0]),
                default=None)
    parsed = burst and first(resp, PARSED, burst[0])
    end = first(resp, RX_END, hd[0])
    seen = end and first(resp, SEEN, end[0])
    if None in (burst, parsed, end, seen) or burst[0] < fl[0]:
        return None
    return {"post -> doorbell": db[0] - post[0],
            "build the request": fl[0] - db[0],
            "rte_eth_tx_burst": done[0] - fl[0],
            "until the peer's RX burst": burst[0] - done[0],
            "rx burst -> parsed": parsed[0] - burst[0],
            "parsed -> handled": hd[0] - parsed[0],
            "handled -> end of the RX pass": end[0] - hd[0],
            "end of the pass -> seen": seen[0] - end[0],
            "one way": seen[0] - post[0]}


def analyse(cli, srv, hz):
    """The report's lines for the two sorted record lists."""
    ns = 1e9 / hz
    ev = sorted([(t, "C", p, a) for t, p, a in cli] + [(t, "S", p, a) for t, p, a in srv])
    lo = max(cli[0][0], srv[0][0])
    hi = min(cli[-1][0], srv[-1][0])
    ev = [e for e in ev if lo <= e[0] <= hi]
    posts = [i for i, e in enumerate(ev) if e[1] == "C" and e[2] == POST]
    rounds = list(zip(posts, posts[1:]))
    cut = len(rounds) // 10
    rounds = rounds[cut:len(rounds) - cut]
    if len(rounds) < 10:
        raise SystemExit(f"lat-trace: only {len(rounds)} rounds in both traces")
    steps, out = {}, []
    rt = [ev[b][0] - ev[a][0] for a, b in rounds]
    halves = {"C": [], "S": []}
    for a, b in rounds:
        t0 = ev[a][0]
        seen = {}
        for e in ev[a:b]:
            k = (e[1], e[2])
            seen[k] = seen.get(k, 0) + 1
            steps.setdefault((k, seen[k]), []).append(e[0] - t0)
        h1 = half(ev[a:b], t0, "C", "S")
        if h1 is not None:
            halves["C"].append(h1)
            h2 = half(ev[a:b], t0 + h1["one way"], "S", "C")
            if h2 is not None:
                halves["S"].append(h2)
    out.append(f"rounds: {len(rounds)}  round trip median {median(rt) * ns:.0f} ns "
               f"(half {median(rt) * ns / 2:.0f} ns)")
    out.append("timeline of a round (median ns after the client's post; steps seen in "
               "at least half the rounds; C client, S server, #n: the n-th time in the round):")
    for (k, n), v in sorted(steps.items(), key=lambda kv: median(kv[1])):
        if len(v) >= len(rounds) / 2:
            out.append(f"  {median(v) * ns:7.0f}  {k[0]} {POINTS.get(k[1], k[1])} #{n}")
    for req, name in (("C", "client -> server"), ("S", "server -> client")):
        hs = halves[req]
        if not hs:
            out.append(f"{name}: no complete one-way path found")
            continue
        med = {step: median(h[step] for h in hs) for step in hs[0]}
        out.append(f"{name} ({len(hs)} rounds), median ns of each step:")
        for step, m in med.items():
            out.append(f"  {m * ns:7.0f}  {step}")
        tail = slowest(hs, TAIL)
        out.append(f"{name}, its slowest {TAIL * 100:g}% ({len(tail)} rounds, one way "
                   f"{min(h['one way'] for h in tail) * ns:.0f} ns and over): the step that "
                   f"took most of each one's excess over the medians, how often, its median "
                   f"excess there:")
        for step, (n, ex) in dominant(tail, med).items():
            out.append(f"  {n * 100 / len(tail):5.1f}%  {ex * ns:+7.0f}  {step}")
    return out


# The share of one-way trips whose steps the tail lines break down: where
# write_lat's p99 comes from.
TAIL = 0.01


def slowest(hs, share):
    """The one-way trips (step dicts) of @hs in the slowest @share, at
    least one."""
    n = max(1, int(len(hs) * share))
    return sorted(hs, key=lambda h: h["one way"])[-n:]


def dominant(tail, med):
    """For the trips @tail: {step: (trips whose largest excess over @med
    was in it, the median of that excess)}, most frequent first."""
    by = {}
    for h in tail:
        step = max((s for s in h if s != "one way"), key=lambda s: h[s] - med[s])
        by.setdefault(step, []).append(h[step] - med[step])
    return {s: (len(v), median(v)) for s, v in
            sorted(by.items(), key=lambda kv: -len(kv[1]))}


def selftest():
    hz = 1_000_000_000
    cli, srv = [], []
    for r in range(100):
        t = 10_000 * r
        # one round in a hundred, the client's request waits 2000 ns
        # more for the server's RX burst (the tail lines must find it)
        slow = 2000 if r == 50 else 0
        cli += [(t, POST, 0), (t + 100, DOORBELL, 1), (t + 250, TX_FLUSH, 1), (t + 450, TX_DONE, 1)]
        srv += [(t + slow + 700, RX_BURST, 1), (t + slow + 800, PARSED, 0),
                (t + slow + 880, HANDLED, 0x0a), (t + slow + 1000, RX_END, 1),
                (t + slow + 1100, SEEN, 1)]
        cli += [(t + 50, RX_BURST, 1), (t + 60, PARSED, 0), (t + 70, HANDLED, 0x11), (t + 80, RX_END, 1)]
        s = t + slow + 1150
        srv += [(s, POST, 0), (s + 100, DOORBELL, 1), (s + 250, TX_FLUSH, 1), (s + 450, TX_DONE, 1)]
        cli += [(s + 600, RX_BURST, 1), (s + 700, PARSED, 0), (s + 780, HANDLED, 0x0a),
                (s + 900, RX_END, 1), (s + 1000, SEEN, 0)]
    out = analyse(sorted(cli), sorted(srv), hz)
    text = "\n".join(out)
    want = ["round trip median 10000 ns", "   1100  one way", "   1000  one way",
            "    250  until the peer's RX burst", "    150  until the peer's RX burst",
            "    120  handled -> end of the RX pass",
            "client -> server, its slowest 1% (1 rounds, one way 3100 ns and over)",
            "  100.0%    +2000  until the peer's RX burst"]
    bad = [w for w in want if w not in text]
    if bad:
        print(text)
        raise SystemExit(f"lat-trace selftest: missing {bad}")
    print("lat-trace selftest: ok")


def main(argv):
    if argv[1:] == ["--selftest"]:
        selftest()
        return 0
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    hz, cli = load(argv[1])
    hz2, srv = load(argv[2])
    if hz != hz2 or not cli or not srv:
        raise SystemExit("lat-trace: the two traces differ in TSC rate, or one is empty")
    print("\n".join(analyse(cli, srv, hz)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
