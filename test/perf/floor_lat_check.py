#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf-floor-lat: rnic-bench-floor-lat's server and client over net_memif
for a short run. Both must exit 0 (the server only when the client's last
byte told it to, with no bad frame; the client after every round's
answer), and the client must print its report line with rounds > 0 and
p50 <= p99. Not a figure: scripts/bench.py takes those.

usage: floor_lat_check.py RNIC_BENCH_FLOOR_LAT
"""
import os
import re
import subprocess
import sys
import tempfile


def main(prog):
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
                                               "--", "--server"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            cli = subprocess.run([prog] + eal + [f"--file-prefix=flc{os.getpid()}",
                                                 f"--lcores=0@{cc}",
                                                 f"--vdev=net_memif0,role=client,{memif}",
                                                 "--", "--client", "-D", "0.3"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=60)
            sout, _ = srv.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            print("FAIL: timed out")
            return 1
    errs = []
    if cli.returncode != 0:
        errs.append(f"client exited {cli.returncode}: {cli.stdout.strip()}")
    if srv.returncode != 0:
        errs.append(f"server exited {srv.returncode}: {sout.strip()}")
    m = re.search(r"^floor_lat: size=2 rounds=(\d+) p50_us=([0-9.]+) p99_us=([0-9.]+)$",
                  cli.stdout, re.M)
    if m is None:
        errs.append(f"no report line in: {cli.stdout.strip()}")
    elif int(m.group(1)) == 0 or float(m.group(2)) > float(m.group(3)):
        errs.append(f"report out of order: {m.group(0)}")
    for e in errs:
        print("FAIL: " + e)
    if not errs:
        print("ok: " + m.group(0))
    return 1 if errs else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
