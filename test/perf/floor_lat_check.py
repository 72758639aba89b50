#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf-floor-lat: rnic-bench-floor-lat's server and client over net_memif
for a short run. Both must exit 0 (the server only when the client's last
byte told it to, with no bad frame; the client after every round's
answer), and the client must print its report line with rounds > 0 and
p50 <= p99. Then the same with --bw at 64 B and at 4 KiB (a frame longer
than net_memif's 2 KiB buffers): the server exits 0 only on the last
WRITE's mark, every pass's last WRITE having held its number and every
slot of its target the number of the last WRITE to it, with no bad
frame; the client after every completion, its line with messages > 0.
Not a figure: scripts/bench.py takes those.

usage: floor_lat_check.py RNIC_BENCH_FLOOR_LAT
"""
import os
import re
import subprocess
import sys
import tempfile


def run(prog, mode, size):
    """Server and client of one short run: (client, errors)."""
    cpus = sorted(os.sched_getaffinity(0))
    cs, cc = cpus[-1], cpus[0]
    with tempfile.TemporaryDirectory(prefix="floor-lat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        eal = ["--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "-m", "256",
               "--log-level=pmd.net.memif:error", "--log-level=*:warning"]
        memif = f"socket={sock},socket-abstract=no"
        srv = subprocess.Popen([prog] + eal + [f"--file-prefix=fls{os.getpid()}",
                                               f"--lcores=0@{cs}",
                                               f"--vdev=net_memif0,role=server,{memif}",
                                               "--", "--server", "-s", str(size)] + mode,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            cli = subprocess.run([prog] + eal + [f"--file-prefix=flc{os.getpid()}",
                                                 f"--lcores=0@{cc}",
                                                 f"--vdev=net_memif0,role=client,{memif}",
                                                 "--", "--client", "-s", str(size), "-D", "0.3"]
                                 + mode,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=60)
            sout, _ = srv.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            return None, [f"{' '.join(mode)} -s {size}: timed out"]
    errs = []
    if cli.returncode != 0:
        errs.append(f"client exited {cli.returncode}: {cli.stdout.strip()}")
    if srv.returncode != 0:
        errs.append(f"server exited {srv.returncode}: {sout.strip()}")
    return cli, errs


def main(prog):
    cli, errs = run(prog, [], 2)
    ok = []
    if cli is not None:
        m = re.search(r"^floor_lat: size=2 rounds=(\d+) p50_us=([0-9.]+) p99_us=([0-9.]+)$",
                      cli.stdout, re.M)
        if m is None:
            errs.append(f"no report line in: {cli.stdout.strip()}")
        elif int(m.group(1)) == 0 or float(m.group(2)) > float(m.group(3)):
            errs.append(f"report out of order: {m.group(0)}")
        else:
            ok.append(m.group(0))
    for size in (64, 4096):
        cli, e = run(prog, ["--bw"], size)
        errs += e
        if cli is None:
            continue
        m = re.search(rf"^floor_bw: size={size} msgs=(\d+) secs=([0-9.]+) msgs_per_s=([0-9.]+)$",
                      cli.stdout, re.M)
        if m is None:
            errs.append(f"--bw -s {size}: no report line in: {cli.stdout.strip()}")
        elif int(m.group(1)) == 0 or float(m.group(3)) <= 0:
            errs.append(f"--bw -s {size}: nothing moved: {m.group(0)}")
        else:
            ok.append(m.group(0))
    for e in errs:
        print("FAIL: " + e)
    if not errs:
        print("ok: " + "; ".join(ok))
    return 1 if errs else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
