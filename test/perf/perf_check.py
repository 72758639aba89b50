#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""rnic-perf output check (suite 'perf'): short ring runs of every test.

Each case runs rnic-perf with a small iteration count and checks what a
user (or a script) reads: exit status 0, nothing on stderr that reports an
error, perftest's column header line, exactly one row per message size with
every field a number, the closing dashed line, and the --out_json file.
The figures must agree with what was asked and what moved (check_row):
- #bytes is each size asked for (-s, or every size of -a), in order;
- #iterations is -n times -q, twice that with -b (both directions add
  up); with -D a duration, whatever ran in it, at least one;
- bandwidth: BW average > 0 and at most BW peak; MsgRate > 0, and
  BW average = MsgRate x #bytes in the report's units (MB = 2^20 bytes,
  Gb = 10^9 bits) within the rounding of the two printed figures; in the
  --out_json file also MsgRate x seconds = #iterations (one direction);
- latency: 0 < t_min <= t_typical <= t_max, t_min <= t_avg <= t_max,
  t_typical <= 99% <= 99.9% <= t_max, t_stdev >= 0 and at most half the
  spread;
- --out_json: its test_info (qps, mtu, units) is what was asked, and each
  result has the printed row's #bytes and #iterations and its figures
  within the printed rounding.
Every comparison allows exactly the rounding of the printed digits: no
timing threshold, nothing that depends on how fast the machine is.

usage: perf_check.py RNIC_PERF [GROUP]   (GROUP: bw, lat, more, memif; default
all but memif, which runs a server and a client process over net_memif, and
raw_lat against a dpdk-testpmd that reflects its frames)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BW_HDR = re.compile(r"^ #bytes\s+#iterations\s+BW peak\[(MB|Gb)/sec\]\s+"
                    r"BW average\[(MB|Gb)/sec\]\s+MsgRate\[Mpps\]\s*$")
LAT_HDR = re.compile(r"^ #bytes #iterations\s+t_min\[usec\]\s+t_max\[usec\]\s+"
                     r"t_typical\[usec\]\s+t_avg\[usec\]\s+t_stdev\[usec\]\s+"
                     r"99% percentile\[usec\]\s+99\.9% percentile\[usec\]\s*$")
DASHES = re.compile(r"^-{40,}$")
ALL_SIZES = [2 << i for i in range(23)]          # 2 B .. 8 MiB
LAT_COLS = ["t_min", "t_max", "t_typical", "t_avg", "t_stdev", "99_percentile",
            "99.9_percentile"]                   # the --out_json keys, in column order
BW_COLS = ["BW_peak", "BW_average", "MsgRate"]


def flow_trace_check(path, nqp, total_bits):
    """None when rnic-perf's --flow-trace CSV at PATH is sound, else why."""
    try:
        with open(path) as f:
            rows = [line.strip().split(",") for line in f if line.strip()]
    except OSError as e:
        return f"no trace file ({e})"
    want = ["t_s"] + [f"qp{i}_gbps" for i in range(nqp)]
    if not rows or rows[0] != want:
        return f"header {rows[0] if rows else None}, want {want}"
    data = [[float(v) for v in r] for r in rows[1:]]
    if len(data) < 2 or any(len(r) != nqp + 1 for r in data):
        return f"{len(data)} rows, or a row without {nqp} rates"
    if any(b[0] <= a[0] for a, b in zip(data, data[1:])) or data[0][0] <= 0:
        return "times not increasing"
    if any(v < 0 for r in data for v in r[1:]):
        return "a negative rate"
    bits, prev = 0.0, 0.0
    for r in data:
        bits += sum(r[1:]) * 1e9 * (r[0] - prev)
        prev = r[0]
    if bits <= 0 or bits > total_bits * 1.01:
        return f"rates integrate to {bits:.0f} bits, moved {total_bits}"
    return None


def opt(args, short, long, default=None):
    """The value of option -short/--long in @args, or @default."""
    for i, a in enumerate(args):
        if a in (short, "--" + long) and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--" + long + "="):
            return a.split("=", 1)[1]
    return default


def want_iters(args, lat):
    """#iterations each row must show, or None under -D (a duration)."""
    if opt(args, "-D", "duration") is not None:
        return None
    n = int(opt(args, "-n", "iters", 1000 if lat else 5000))
    if lat:
        return n
    duplex = "-b" in args or "--bidirectional" in args
    return n * int(opt(args, "-q", "qp", 1)) * (2 if duplex else 1)


def ulp(text):
    """Half a unit in the last printed digit of @text: its rounding."""
    return 0.5 * 10.0 ** -(len(text.split(".", 1)[1]) if "." in text else 0)


def close(a, a_ulp, b, b_ulp):
    """a and b, each rounded to within its ulp, may be the same number."""
    return abs(a - b) <= a_ulp + b_ulp + 1e-9 * max(abs(a), abs(b))


def check_row(f, lat, gbits, size, iters):
    """The fields @f of one result row (strings, as printed); @size and
    @iters what it must show (@iters None: any count above 0). Returns a
    list of problems."""
    errs = []
    got_size, got_iters = int(f[0]), int(f[1])
    v = [float(x) for x in f[2:]]
    if got_size != size:
        errs.append(f"#bytes {got_size}, want {size}")
    if iters is not None and got_iters != iters:
        errs.append(f"#iterations {got_iters}, want {iters} (-n x -q, x2 with -b)")
    if got_iters <= 0:
        errs.append(f"#iterations {got_iters}, want at least 1")
    if any(x != x or x < 0 for x in v):
        errs.append("a negative or NaN figure")
    if lat:
        t_min, t_max, typ, avg, stdev, p99, p999 = v
        if not 0 < t_min <= typ <= t_max:
            errs.append("0 < t_min <= t_typical <= t_max does not hold")
        if not t_min <= avg <= t_max:
            errs.append("t_min <= t_avg <= t_max does not hold")
        if not typ <= p99 <= p999 <= t_max:
            errs.append("t_typical <= 99% <= 99.9% <= t_max does not hold")
        if stdev > (t_max - t_min) / 2 + ulp(f[6]) + ulp(f[3]) + ulp(f[2]):
            errs.append("t_stdev over half of t_max - t_min")
    else:
        peak, avg, rate = v
        if rate <= 0:
            errs.append("MsgRate is not above 0")
        # avg = rate x size in the units; the bounds of rate's rounding
        # carried through, plus avg's own
        unit = 1e9 / 8 if gbits else 1048576.0
        lo = (rate - ulp(f[4])) * 1e6 * got_size / unit
        hi = (rate + ulp(f[4])) * 1e6 * got_size / unit
        # A BW average that rounds to 0.00 (2 B at 1500 messages/s on a
        # loaded machine: 0.003 MB/s) is above 0 all the same.
        if not ((avg > 0 or (rate > 0 and hi < 2 * ulp(f[3]))) and avg <= peak):
            errs.append("0 < BW average <= BW peak does not hold")
        if not lo - ulp(f[3]) - 1e-9 <= avg <= hi + ulp(f[3]) + 1e-9:
            errs.append(f"BW average {f[3]} is not MsgRate {f[4]} Mpps x {got_size} B "
                        f"({lo:.6f}..{hi:.6f})")
    return [f"row {' '.join(f)!r}: {e}" for e in errs]


def check_json(j, rows, args, lat, gbits):
    """The --out_json document @j against the printed @rows (field lists)."""
    errs = []
    info = j["test_info"]
    if "test" not in info:
        errs.append("--out_json: no test in test_info")
    if info["qps"] != int(opt(args, "-q", "qp", 1)):
        errs.append(f"--out_json: qps {info['qps']}, want -q")
    if opt(args, "-m", "mtu") is not None and info["mtu"] != int(opt(args, "-m", "mtu")):
        errs.append(f"--out_json: mtu {info['mtu']}, want -m")
    units = "usec" if lat else "Gb/sec" if gbits else "MB/sec"
    if info["units"] != units:
        errs.append(f"--out_json: units {info['units']!r}, want {units!r}")
    res = j["results"]
    if len(res) != len(rows):
        errs.append(f"--out_json: {len(res)} results, {len(rows)} rows printed")
        return errs
    duplex = not lat and ("-b" in args or "--bidirectional" in args)
    for r, f in zip(res, rows):
        where = f"--out_json MsgSize {r['MsgSize']}"
        if r["MsgSize"] != int(f[0]) or r["n_iterations"] != int(f[1]):
            errs.append(f"{where}: MsgSize/n_iterations {r['MsgSize']}/{r['n_iterations']}, "
                        f"printed {f[0]}/{f[1]}")
        # the file has 3 decimals of latencies and 6 of bandwidths
        for key, text in zip(LAT_COLS if lat else BW_COLS, f[2:]):
            if not close(r[key], 5e-4 if lat else 5e-7, float(text), ulp(text)):
                errs.append(f"{where}: {key} {r[key]}, printed {text}")
        if not lat and not duplex:
            # MsgRate = n_iterations / seconds, both printed to 6 decimals
            rate, secs = r["MsgRate"], r["seconds"]
            lo = (rate - 5e-7) * 1e6 * max(secs - 5e-7, 0)
            hi = (rate + 5e-7) * 1e6 * (secs + 5e-7)
            if not lo - 1e-6 <= r["n_iterations"] <= hi + 1e-6:
                errs.append(f"{where}: MsgRate {rate} Mpps x {secs} s is not "
                            f"{r['n_iterations']} iterations")
    return errs


def eal_args():
    cpus = sorted(os.sched_getaffinity(0))
    cs = "(" + ",".join(str(c) for c in cpus) + ")"
    # Four lcores floating over the CPUs we have: --pipeline wants three
    # engine lcores beside the main one.
    lcores = ",".join(f"{i}@{cs}" for i in range(4))
    return ["--no-huge", "--no-pci", "--no-shconf", "-m", "1024", "--no-telemetry",
            "--log-level=*:warning", f"--file-prefix=perfchk{os.getpid()}",
            f"--lcores={lcores}"]


def check_rows(rows, args, sizes, lat, gbits):
    """The printed rows (field lists): one per size of @sizes, each with
    the right figures (check_row)."""
    errs = []
    want_fields = 9 if lat else 5
    if [r[0] for r in rows] != [str(s) for s in sizes]:
        errs.append(f"sizes {[r[0] for r in rows]}, want {sizes}")
    for r, size in zip(rows, sizes):
        if len(r) != want_fields:
            errs.append(f"row {' '.join(r)!r}: {len(r)} fields, want {want_fields}")
            continue
        try:
            errs += check_row(r, lat, gbits, size, want_iters(args, lat))
        except ValueError:
            errs.append(f"row {' '.join(r)!r}: not numbers")
    return errs


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
            rows = [r.split() for r in rows]
            errs += check_rows(rows, args, sizes, lat, gbits)
            try:
                with open(jpath) as jf:
                    errs += check_json(json.load(jf), rows, args, lat, gbits)
            except (OSError, ValueError, KeyError, TypeError) as e:
                errs.append(f"--out_json: {e!r}")
        if errs:
            errs.append("stdout:\n" + p.stdout[-3000:] + "\nstderr:\n" + p.stderr[-3000:])
        return errs


def check_memif(prog, client_args, sizes, lat):
    """Two processes over net_memif: both must exit 0 and print the rows,
    each with the figures check_rows wants."""
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
        # the server prints the run's figures as the client does
        errs += [f"{who}: {e}" for e in check_rows(rows, client_args, sizes, lat, False)]
        if errs:
            errs.append(f"{who} stdout:\n{out[-2000:]}\n{who} stderr:\n{err[-2000:]}")
    return errs


def raw_attempt(prog, testpmd, args, n):
    """One rnic-perf @args (raw_lat) against a fresh dpdk-testpmd (socket
    and prefixes of attempt @n): the client's CompletedProcess, or None
    when it timed out, and the tail of testpmd's stderr."""
    sock = f"/tmp/rnic-perf-check-raw-{os.getpid()}-{n}.sock"
    cpus = sorted(os.sched_getaffinity(0))
    base = ["--no-huge", "--no-pci", "--no-shconf", "-m", "1024", "--no-telemetry",
            "--log-level=pmd.net.memif:error", "--log-level=*:warning"]
    memif = f"socket={sock},socket-abstract=no"
    with tempfile.TemporaryFile(mode="w+") as tp_err:
        tp = subprocess.Popen([testpmd] + base + [f"--file-prefix=pct{os.getpid()}n{n}",
                              f"--lcores=0@{cpus[-1]},1@{cpus[-1]}",
                              f"--vdev=net_memif0,role=server,{memif}", "--",
                              "--forward-mode=macswap", "--port-topology=loop", "--nb-cores=1",
                              "--stats-period=1"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=tp_err)
        cli = None
        try:
            # testpmd listens once its EAL is up: up to 20 s on a loaded machine
            for _ in range(400):
                if os.path.exists(sock) or tp.poll() is not None:
                    break
                time.sleep(0.05)
            cli = subprocess.run([prog] + base + [f"--file-prefix=pcr{os.getpid()}n{n}",
                                 f"--lcores=0@{cpus[0]}", f"--vdev=net_memif0,role=client,{memif}",
                                 "--", "--link", "memif", "--client", "--no-progress"] + args,
                                 capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            pass
        finally:
            died = tp.poll()
            tp.terminate()
            try:
                tp.wait(timeout=10)
            except subprocess.TimeoutExpired:
                tp.kill()
                tp.wait()
            if os.path.exists(sock):
                os.unlink(sock)
            tp_err.seek(0)
            note = tp_err.read()[-1500:]
            if died is not None:
                note = f"dpdk-testpmd had exited with status {died} before the end\n" + note
    return cli, note


def check_raw(prog, size, iters):
    """raw_lat against a dpdk-testpmd that reflects the frames (macswap):
    exit 0 and one latency row with the figures check_rows wants. None
    when there is no dpdk-testpmd (Debian package dpdk-dev). A run whose
    memif link never came up (testpmd not listening in time, or gone) is
    tried once more, and says so, as make bench does."""
    testpmd = shutil.which("dpdk-testpmd")
    if testpmd is None:
        return None
    args = ["raw_lat", "-s", str(size), "-n", str(iters)]
    for n in range(2):
        cli, tp_note = raw_attempt(prog, testpmd, args, n)
        if cli is None:
            return ["timed out", f"dpdk-testpmd stderr:\n{tp_note}"]
        link_failed = ("link still down" in cli.stderr or "does not start" in cli.stderr or
                       "dpdk-testpmd had exited" in tp_note)
        if n == 0 and cli.returncode != 0 and link_failed:
            print(f"retry raw_lat: the memif link did not come up "
                  f"(dpdk-testpmd stderr: {tp_note.strip()[-300:] or 'empty'})")
            continue
        break
    errs = [] if cli.returncode == 0 else [f"exit status {cli.returncode}"]
    lines = cli.stdout.splitlines()
    idx = [i for i, l in enumerate(lines) if LAT_HDR.match(l)]
    if len(idx) != 1:
        errs.append(f"{len(idx)} header lines")
    else:
        rows = []
        for l in lines[idx[0] + 1:]:
            if DASHES.match(l):
                break
            rows.append(l.split())
        errs += check_rows(rows, args, [size], True, False)
    if errs:
        errs.append(f"stdout:\n{cli.stdout[-2000:]}\nstderr:\n{cli.stderr[-2000:]}\n"
                    f"dpdk-testpmd stderr:\n{tp_note}")
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
        # An impaired link (issue 17): every message still completes.
        (["write_bw", "-s", "4096", "-n", "300", "--loss", "1%", "--dup", "0.01",
          "--reorder", "1%", "--corrupt", "1%", "--impair-seed", "3"], [4096], False),
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
        errs = check_raw(prog, 78, 500)
        if errs is None:
            print("skip raw_lat (no dpdk-testpmd to reflect the frames)")
        else:
            print(("FAIL " if errs else "ok   ") + "memif raw_lat -s 78 -n 500 (dpdk-testpmd macswap)")
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
    if group in ("more", "all"):
        # --loss is net_impair on the link: its counters say it dropped.
        p = subprocess.run([prog] + eal_args() + ["--", "write_bw", "-s", "4096", "-n", "200",
                                                  "--loss", "2%", "--no-progress"],
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"^impair: .*tx_impair_dropped=(\d+)", p.stderr, re.M)
        if p.returncode != 0 or m is None or int(m.group(1)) == 0:
            failed += 1
            print("FAIL write_bw --loss 2%: no impair line with drops\n" + p.stderr[-2000:])
        else:
            passed += 1
            print(f"ok   write_bw --loss 2% (dropped {m.group(1)})")
    if group in ("more", "all"):
        trace_dir = tempfile.mkdtemp(prefix="perf-check.")
        trace = os.path.join(trace_dir, "flows.csv")
        # --bottleneck (issue 18): a 2 Gb/s egress with ECN marking, two
        # QPs, DCQCN on a 4 Gb/s line: CE marks come back as CNPs that cut
        # the rates; each QP's rate and their fairness are printed.
        p = subprocess.run([prog] + eal_args() + [
            "--", "write_bw", "-s", "65536", "-q", "2", "-n", "300", "--no-progress", "-v",
            "--bottleneck", "rate_mbps=2000,queue_pkts=128,ecn_kmin=10,ecn_kmax=60,ecn_pmax=0.2",
            "--dcqcn", "line_mbps=4000", "-Q", "4", "--flow-trace", trace],
            capture_output=True, text=True, timeout=120)
        fl = re.search(r"^flows: n=2 gbps=([0-9.]+),([0-9.]+) jain=([0-9.]+)$", p.stderr, re.M)
        mk = re.search(r"tx_bottleneck_marked=(\d+)", p.stderr)
        cuts = re.search(r"cnp_rate_cuts=(\d+)", p.stderr)
        if p.returncode != 0 or not fl or not mk or int(mk.group(1)) == 0 or not cuts \
                or float(fl.group(1)) + float(fl.group(2)) > 2.0 * 1.01:
            failed += 1
            print("FAIL write_bw --bottleneck: no flows line, marks, rate cuts, or faster than "
                  "the bottleneck\n" + p.stderr[-2500:])
        else:
            passed += 1
            print(f"ok   write_bw --bottleneck 2 Gb/s, 2 QPs: {fl.group(1)}+{fl.group(2)} Gb/s, "
                  f"jain {fl.group(3)}, {mk.group(1)} CE marks, {cuts.group(1)} rate cuts")
        # --flow-trace: a header naming both QPs, rows in time order, and
        # the rates integrated over the rows no more than what was moved
        why = flow_trace_check(trace, 2, 2 * 300 * 65536 * 8)
        shutil.rmtree(trace_dir, ignore_errors=True)
        if why:
            failed += 1
            print("FAIL write_bw --flow-trace: " + why)
        else:
            passed += 1
            print("ok   write_bw --flow-trace: per-QP rates every 50 ms, consistent")
    if group in ("more", "all"):
        # --tclass (issue 21): the QPs' IPv4 TOS. ECN bits 3 (CE) on every
        # packet make each responder a congestion notification point: CE
        # counted, CNPs sent (without --tclass the other runs see none).
        p = subprocess.run([prog] + eal_args() + [
            "--", "write_bw", "-s", "4096", "-n", "200", "--no-progress", "-v",
            "--tclass", "3"], capture_output=True, text=True, timeout=120)
        ce = re.findall(r"ecn_ce_rcvd=(\d+)", p.stderr)
        cnp = re.findall(r"cnp_sent=(\d+)", p.stderr)
        if p.returncode != 0 or not ce or not cnp or min(map(int, ce)) == 0 \
                or min(map(int, cnp)) == 0:
            failed += 1
            print("FAIL write_bw --tclass 3: no CE marks or CNPs on both sides\n" + p.stderr[-2000:])
        else:
            passed += 1
            print(f"ok   write_bw --tclass 3: CE received {'/'.join(ce)}, CNPs sent {'/'.join(cnp)}")
    # A bad option must fail with a message that says what is allowed,
    # not run. -D 0 was refused by a message that named 0 as allowed.
    for bad, want in ((["-s", "banana"], "rnic-perf:"),
                      (["-D", "0"], "-D (duration) should be over 0 and at most 86400 s"),
                      (["--tclass", "256"], "--tclass"),
                      (["--dcqcn", "rpg_ai_rat=5"], "--dcqcn: unknown key \"rpg_ai_rat\""),
                      (["--dcqcn", "rpg_min_dec_fac=101"], "--dcqcn: a value is out of range")):
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
