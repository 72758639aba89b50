#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""rnic-perf output check (suite 'perf'): short ring runs of every test.

Each case runs rnic-perf with a small iteration count and checks what a
user (or a script) reads: exit status 0, nothing on stderr that reports an
error, perftest's column header line, exactly one row per message size with
every field a number (integers for #bytes and #iterations, all values
non-negative, bandwidth and rates positive), the closing dashed line, and
the --out_json file. Not a timed test: no figure is compared with a goal.

usage: perf_check.py RNIC_PERF [GROUP]   (GROUP: bw, lat, more, memif; default
all but memif, which runs a server and a client process over net_memif)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BW_HDR = re.compile(r"^ #bytes\s+#iterations\s+BW peak\[(MB|Gb)/sec\]\s+"
                    r"BW average\[(MB|Gb)/sec\]\s+MsgRate\[Mpps\]\s*$")
LAT_HDR = re.compile(r"^ #bytes #iterations\s+t_min\[usec\]\s+t_max\[usec\]\s+"
                     r"t_typical\[usec\]\s+t_avg\[usec\]\s+t_stdev\[usec\]\s+"
                     r"99% percentile\[usec\]\s+99\.9% percentile\[usec\]\s*$")
DASHES = re.compile(r"^-{40,}$")
ALL_SIZES = [2 << i for i in range(23)]          # 2 B .. 8 MiB


def eal_args():
    cpus = sorted(os.sched_getaffinity(0))
    cs = "(" + ",".join(str(c) for c in cpus) + ")"
    # Four lcores floating over the CPUs we have: --pipeline wants three
    # engine lcores beside the main one.
    lcores = ",".join(f"{i}@{cs}" for i in range(4))
    return ["--no-huge", "--no-pci", "--no-shconf", "-m", "1024", "--no-telemetry",
            "--log-level=*:warning", f"--file-prefix=perfchk{os.getpid()}",
            f"--lcores={lcores}"]


def check_run(prog, args, sizes, lat, gbits=False):
    """Run one case; return a list of problems (empty: passed)."""
    with tempfile.TemporaryDirectory() as tmp:
        jpath = os.path.join(tmp, "out.json")
        cmd = [prog] + eal_args() + ["--"] + args + ["--out_json", jpath, "--no-progress"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            return [f"timed out: {' '.join(cmd)}"]
        errs = []
        if p.returncode != 0:
            errs.append(f"exit status {p.returncode}")
        for line in p.stderr.splitlines():
            if line.startswith("rnic-perf:"):
                errs.append(f"stderr: {line}")
        lines = p.stdout.splitlines()
        hdr = LAT_HDR if lat else BW_HDR
        idx = [i for i, l in enumerate(lines) if hdr.match(l)]
        if len(idx) != 1:
            errs.append(f"{len(idx)} result header lines, want 1")
        else:
            if not lat and (("Gb/sec" in lines[idx[0]]) != gbits):
                errs.append("header units do not match --report_gbits")
            rows = []
            for l in lines[idx[0] + 1:]:
                if DASHES.match(l):
                    break
                rows.append(l)
            else:
                errs.append("no closing dashed line after the rows")
            want_fields = 9 if lat else 5
            got_sizes = []
            for r in rows:
                f = r.split()
                if len(f) != want_fields:
                    errs.append(f"row {r!r}: {len(f)} fields, want {want_fields}")
                    continue
                try:
                    size, iters = int(f[0]), int(f[1])
                    vals = [float(x) for x in f[2:]]
                except ValueError:
                    errs.append(f"row {r!r}: not numbers")
                    continue
                got_sizes.append(size)
                if iters <= 0 or any(v < 0 or v != v for v in vals):
                    errs.append(f"row {r!r}: non-positive count or negative value")
                if not lat and (vals[1] <= 0 or vals[2] <= 0):
                    errs.append(f"row {r!r}: zero bandwidth or message rate")
                if lat and not (vals[0] <= vals[2] <= vals[1]):
                    errs.append(f"row {r!r}: t_min <= t_typical <= t_max does not hold")
            if got_sizes != sizes:
                errs.append(f"sizes {got_sizes}, want {sizes}")
        try:
            with open(jpath) as jf:
                j = json.load(jf)
            if len(j["results"]) != len(sizes) or "test" not in j["test_info"]:
                errs.append("--out_json: wrong number of results")
        except (OSError, ValueError, KeyError) as e:
            errs.append(f"--out_json: {e}")
        if errs:
            errs.append("stdout:\n" + p.stdout[-3000:] + "\nstderr:\n" + p.stderr[-3000:])
        return errs


def check_memif(prog, client_args, sizes, lat):
    """Two processes over net_memif: both must exit 0 and print the rows."""
    sock = f"/tmp/rnic-perf-check-{os.getpid()}.sock"
    port = str(20000 + os.getpid() % 20000)
    cpus = sorted(os.sched_getaffinity(0))
    cs = "(" + ",".join(str(c) for c in cpus) + ")"
    base = ["--no-huge", "--no-pci", "--no-shconf", "-m", "1024", "--no-telemetry",
            "--log-level=pmd.net.memif:error", "--log-level=*:warning", f"--lcores=0@{cs}"]
    memif = f"socket={sock},socket-abstract=no"
    srv = subprocess.Popen([prog] + base + [f"--file-prefix=pcs{os.getpid()}",
                           f"--vdev=net_memif0,role=server,{memif}", "--",
                           "--link", "memif", "--server", "-p", port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errs = []
    try:
        cli = subprocess.run([prog] + base + [f"--file-prefix=pcc{os.getpid()}",
                             f"--vdev=net_memif0,role=client,{memif}", "--",
                             "--link", "memif", "--client", "-p", port, "--no-progress"] +
                             client_args, capture_output=True, text=True, timeout=120)
        sout, serr = srv.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.communicate()
        return ["timed out"]
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    hdr = LAT_HDR if lat else BW_HDR
    for who, rc, out, err in (("client", cli.returncode, cli.stdout, cli.stderr),
                              ("server", srv.returncode, sout, serr)):
        if rc != 0:
            errs.append(f"{who} exit status {rc}")
        lines = out.splitlines()
        idx = [i for i, l in enumerate(lines) if hdr.match(l)]
        if len(idx) != 1:
            errs.append(f"{who}: {len(idx)} header lines")
            continue
        rows = []
        for l in lines[idx[0] + 1:]:
            if DASHES.match(l):
                break
            rows.append(l.split())
        if [int(r[0]) for r in rows if r and r[0].isdigit()] != sizes:
            errs.append(f"{who}: rows {rows}, want sizes {sizes}")
        if errs:
            errs.append(f"{who} stdout:\n{out[-2000:]}\n{who} stderr:\n{err[-2000:]}")
    return errs


def cases(group):
    bw = [
        (["write_bw", "-s", "4096", "-n", "500", "--rtc"], [4096], False),
        (["read_bw", "-s", "4096", "-n", "500", "-o", "4"], [4096], False),
        (["send_bw", "-s", "1024", "-n", "500"], [1024], False),
        (["atomic_bw", "-n", "500"], [8], False),
        (["atomic_bw", "-n", "500", "-A", "CMP_AND_SWAP", "--engine-on-main"], [8], False),
        (["--test", "write", "--bw", "-a", "-n", "8", "--rtc"], ALL_SIZES, False),
    ]
    lat = [
        (["write_lat", "-s", "64", "-n", "200", "--rtc"], [64], True),
        (["read_lat", "-n", "200"], [2], True),
        (["send_lat", "-s", "256", "-n", "200"], [256], True),
        (["atomic_lat", "-n", "200", "--engine-on-main"], [8], True),
        (["--test", "send", "--lat", "-c", "UD", "-a", "-n", "20", "-m", "1024"],
         [s for s in ALL_SIZES if s <= 1024], True),
    ]
    cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config")
    more = [
        (["--config", os.path.join(cfg, "perf-ring-pipeline.json"), "write_bw", "-s", "256",
          "-n", "500"], [256], False),
        (["--config", os.path.join(cfg, "perf-ring-rtc.json"), "send_lat", "-s", "64",
          "-n", "100"], [64], True),
        (["write_bw", "-c", "UC", "-s", "2048", "-n", "500", "-b", "--report_gbits"],
         [2048], False, True),
        (["send_bw", "-c", "UD", "-s", "512", "-n", "500", "-m", "512"], [512], False),
        (["write_bw", "-q", "8", "-t", "16", "-l", "4", "-I", "64", "-s", "64", "-n", "200",
          "--pipeline"], [64], False),
        (["send_bw", "-b", "-s", "64", "-n", "300", "-q", "2"], [64], False),
        (["write_bw", "-s", "65536", "-m", "4096", "-D", "1", "--margin", "0.2"], [65536], False),
        (["read_lat", "-s", "8192", "-n", "50", "-D", "1"], [8192], True),
    ]
    return {"bw": bw, "lat": lat, "more": more}.get(group) or (bw + lat + more)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    prog = sys.argv[1]
    group = sys.argv[2] if len(sys.argv) > 2 else "all"
    passed = failed = 0
    if group == "memif":
        for args, sizes, lat in (
                (["write_bw", "-s", "1024", "-n", "2000"], [1024], False),
                (["send_bw", "-b", "-s", "256", "-n", "1000", "-c", "UC"], [256], False),
                (["read_lat", "-s", "64", "-n", "200"], [64], True)):
            errs = check_memif(prog, args, sizes, lat)
            print(("FAIL " if errs else "ok   ") + "memif " + " ".join(args))
            for e in errs:
                print("   ", e)
            failed += 1 if errs else 0
            passed += 0 if errs else 1
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    for c in cases(group):
        args, sizes, lat = c[0], c[1], c[2]
        gbits = len(c) > 3 and c[3]
        errs = check_run(prog, args, sizes, lat, gbits)
        name = " ".join(args)
        if errs:
            failed += 1
            print(f"FAIL {name}")
            for e in errs:
                print("   ", e)
        else:
            passed += 1
            print(f"ok   {name}")
    # A bad option must fail with a message that says what is allowed,
    # not run. -D 0 was refused by a message that named 0 as allowed.
    for bad, want in ((["-s", "banana"], "rnic-perf:"),
                      (["-D", "0"], "-D (duration) should be over 0 and at most 86400 s")):
        p = subprocess.run([prog] + eal_args() + ["--", "write_bw"] + bad,
                           capture_output=True, text=True, timeout=60)
        what = "a bad " + " ".join(bad)
        if p.returncode == 0 or want not in p.stderr:
            failed += 1
            print(f"FAIL {what}: exit {p.returncode}, stderr {p.stderr[-300:]!r}")
        else:
            passed += 1
            print(f"ok   {what} is refused")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
