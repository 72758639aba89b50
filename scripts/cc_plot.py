#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Per-flow rate over time into a shared bottleneck, DCQCN off and on
(issue 18, doc/congestion.md).

Runs rnic-perf write_bw with N QPs (64 KiB messages, a completion every 4)
on the ring pair into the cc section's bottleneck (scripts/bench.py:
CC_BOTTLENECK), once with DCQCN off and once on, each with --flow-trace,
and draws both traces, one panel each, into OUT (PNG) with Debian's
python3-matplotlib. Prints one line per run:

  cc-plot: flows=N mode=off|dcqcn gbps=G jain=J drops=D trace=CSV

usage: scripts/cc_plot.py [--build DIR] [--flows N] [--secs S] [--out PNG]
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import CC_BOTTLENECK, CC_DCQCN, CC_RATE_MBPS, EAL  # noqa: E402


def run(perf, flows, mode, secs, trace, prefix):
    cmd = ([perf] + EAL + ["-m", "4096", f"--file-prefix={prefix}",
                           f"--lcores=0@0,1@{1 if os.cpu_count() > 1 else 0}", "--",
                           "--rtc", "--no-progress", "write_bw", "-s", "65536", "-Q", "4",
                           "-q", str(flows), "-D", str(secs), "--report_gbits", "-v",
                           "--bottleneck", CC_BOTTLENECK,
                           "--dcqcn", f"enabled={int(mode == 'dcqcn')},{CC_DCQCN}",
                           "--flow-trace", trace])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=secs + 120)
    out = p.stdout
    if p.returncode != 0:
        sys.exit(f"cc-plot: rnic-perf exited {p.returncode}:\n{out[-2000:]}")
    row = re.search(r"^\s*65536\s+\d+\s+[\d.]+\s+([\d.]+)", out, re.M)
    jain = re.search(r"jain=([\d.]+)", out)
    drops = re.search(r"tx_bottleneck_dropped=(\d+)", out)
    print(f"cc-plot: flows={flows} mode={mode} gbps={row.group(1) if row else '?'} "
          f"jain={jain.group(1) if jain else '?'} drops={drops.group(1) if drops else '?'} "
          f"trace={trace}")


def load(trace):
    with open(trace) as f:
        rows = list(csv.reader(f))
    t = [float(r[0]) for r in rows[1:]]
    flows = [[float(r[i]) for r in rows[1:]] for i in range(1, len(rows[0]))]
    return t, flows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--flows", type=int, default=4)
    ap.add_argument("--secs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "doc", "congestion-flows.png"))
    a = ap.parse_args()
    perf = os.path.join(a.build, "app", "rnic-perf", "rnic-perf")
    tmp = tempfile.mkdtemp(prefix="cc-plot.")
    traces = {}
    for mode in ("off", "dcqcn"):
        traces[mode] = os.path.join(tmp, f"flows-{mode}.csv")
        run(perf, a.flows, mode, a.secs, traces[mode], f"ccplot{os.getpid()}{mode}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("cc-plot: no plot (python3-matplotlib missing)")
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True, sharey=True)
    for ax, mode in zip(axes, ("off", "dcqcn")):
        t, flows = load(traces[mode])
        for i, f in enumerate(flows):
            ax.plot(t, f, linewidth=0.9, label=f"QP {i}")
        ax.plot(t, [sum(v) for v in zip(*flows)], "k--", linewidth=0.8, label="sum")
        ax.axhline(CC_RATE_MBPS / 1000, color="grey", linewidth=0.6)
        ax.set_title(f"DCQCN {'on' if mode == 'dcqcn' else 'off'}: {len(flows)} QPs into a "
                     f"{CC_RATE_MBPS / 1000:g} Gb/s bottleneck")
        ax.set_ylabel("Gb/s (50 ms)")
        ax.grid(True, linewidth=0.3)
    axes[0].legend(fontsize=7, ncol=len(flows) + 1, loc="upper right")
    axes[1].set_xlabel("seconds from the first completion")
    fig.tight_layout()
    fig.savefig(a.out, dpi=90)
    print(f"cc-plot: wrote {a.out}")


if __name__ == "__main__":
    main()
