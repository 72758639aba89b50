#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unmodified libibverbs programs over softrnic (issue 19, doc/ibverbs.md).

Runs Debian's own /usr/bin binaries (ibverbs-utils, perftest) with
LD_LIBRARY_PATH at softrnic's libibverbs.so.1: ibv_devices and ibv_devinfo
on an in-process ring pair, every other program as a server and a client
process joined by net_memif. Each case gets its own memif socket, EAL file
prefix and TCP port, and a time limit; a case passes when both processes
exit 0 and print what the program prints on success (the result table, the
iteration line), and fails on any error line. Prints one line per case:

  ibverbs: program=ib_write_bw args="..." result=PASS

usage: run_ibverbs.py LIBDIR [--set quick|full] [--only NAME] [--loss P] [--sanitized]

--sanitized: the library was built with ASan + UBSan (gcc); their runtimes
are preloaded into the programs, leak detection off (perftest's own
allocations are not freed at exit), any other report fails the case.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (program, args, check) - check: a regex the client's output must match
PP_ITERS = r"\d+ iters in [\d.]+ seconds"
PERF_BW = r"^\s*\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$"
PERF_LAT = r"^\s*\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+"

QUICK = [
    ("ibv_rc_pingpong", "-g 0 -c -n 200", PP_ITERS),
    ("ibv_rc_pingpong", "-g 0 -c -n 200 -e", PP_ITERS),
    ("ibv_rc_pingpong", "-g 0 -c -n 20 -s 200000", PP_ITERS),
    ("ibv_uc_pingpong", "-g 0 -c -n 200", PP_ITERS),
    ("ibv_ud_pingpong", "-g 0 -c -n 200", PP_ITERS),
    ("ib_write_bw", "-F", PERF_BW),
    ("ib_read_bw", "-F", PERF_BW),
    ("ib_send_bw", "-F", PERF_BW),
    ("ib_atomic_bw", "-F", PERF_BW),
    ("ib_atomic_bw", "-F -A CMP_AND_SWAP", PERF_BW),
    ("ib_write_lat", "-F", PERF_LAT),
    ("ib_send_lat", "-F", PERF_LAT),
    ("ib_read_lat", "-F", PERF_LAT),
    ("ib_send_lat", "-F -c UD", PERF_LAT),
    ("ib_send_bw", "-F -e", PERF_BW),
]
FULL = QUICK + [
    ("ib_write_bw", "-F -a", PERF_BW),
    ("ib_read_bw", "-F -a", PERF_BW),
    ("ib_send_bw", "-F -a", PERF_BW),
    # 100 round trips per size: 1000 (the default) of 8 MiB take minutes
    # on two vCPUs
    ("ib_write_lat", "-F -a -n 100", PERF_LAT),
    ("ib_send_lat", "-F -a -n 100", PERF_LAT),
    ("ib_read_lat", "-F -a -n 100", PERF_LAT),
    ("ib_write_bw", "-F -q 4", PERF_BW),
]
# Programs that connect through rdma_cm (librdmacm.so.1 over softrnic,
# issue 21): (program, server args, client args, check). {srv} is the
# server's address, {port} the rdma_cm port; the server is ready when the
# library notes its listener (SOFTRNIC_RDMACM_READY).
CM_DONE = r"^test complete"
RPING_10 = r"(?s)(ping data: rdma-ping-\d+.*){10}"
RDMACM = [
    ("ucmatose", "-p {port}", "-s {srv} -p {port}", CM_DONE),
    ("ucmatose", "-p {port} -c 4 -C 50 -S 4000", "-s {srv} -p {port} -c 4 -C 50 -S 4000",
     CM_DONE),
    ("ucmatose", "-b {srv6} -p {port}", "-s {srv6} -p {port}", CM_DONE),
    ("rping", "-s -v -C 10 -p {port}", "-c -v -C 10 -a {srv} -p {port}", RPING_10),
    ("ib_write_bw", "-R -F -p {port}", "-R -F -p {port} {srv}", PERF_BW),
    ("ib_read_bw", "-R -F -p {port}", "-R -F -p {port} {srv}", PERF_BW),
    ("ib_send_bw", "-R -F -p {port}", "-R -F -p {port} {srv}", PERF_BW),
    ("ib_write_lat", "-R -F -p {port}", "-R -F -p {port} {srv}", PERF_LAT),
    # the UDP port space: SIDR finds the server's UD QP
    ("udaddy", "", "-s {srv}", CM_DONE),   # its -p is the port space; port 7174
    ("udaddy", "-b {srv6}", "-s {srv6}", CM_DONE),
    ("ib_send_bw", "-R -c UD -F -p {port}", "-R -c UD -F -p {port} {srv}", PERF_BW),
    ("ib_send_lat", "-R -c UD -F -p {port}", "-R -c UD -F -p {port} {srv}", PERF_LAT),
    # refused: an IPv6 request to a listener bound to an IPv4 address (REJ
    # 28, as the kernel); rping's CM thread then calls exit(-1) while main
    # frees its verbs objects, which must not crash (255, not SIGSEGV).
    # The server is stopped once the client has ended.
    ("rping", "-s -a {srv} -C 3 -p {port}", "-c -a {srv6} -C 3 -p {port}",
     r"RDMA_CM_EVENT_REJECTED, error 28", 255),
]
SRV_IP, SRV_IP6 = "10.0.9.1", "fd00::9:1"
BAD = re.compile(r"(?i)\b(error|failed|couldn't|unable|invalid|mismatch)\b")
# memif's multi-process hook, off with --no-shconf or a second prefix: not ours
BENIGN = re.compile(r"mp action callback|^EAL: |rte_pmd_memif_probe")


# 4 KiB-MTU frames in one memif buffer each, 2048 of them per ring: a burst
# of 16 outstanding 128 KiB READ responses (512 frames) fits (with memif's
# default 2 KiB buffers a frame takes three and the 1024-slot ring overflows).
MEMIF_RING = "rsize=11,bsize=8192"


def eal(prefix, extra):
    return ["--no-huge", "--no-pci", "-m", "512", "--no-telemetry",
            "--log-level=*:warning", "--log-level=pmd.net.memif:error",
            "--file-prefix=" + prefix, "--lcores=0@0"] + extra


def write_configs(tmp, case_id, loss):
    sock = os.path.join(tmp, "memif%d.sock" % case_id)
    cfgs = {}
    for role, ip, mac in (("server", "10.0.9.1", "02:00:00:00:09:01"),
                          ("client", "10.0.9.2", "02:00:00:00:09:02")):
        vdev = "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no,%s" % (role, sock,
                                                                            MEMIF_RING)
        extra = [vdev]
        port = {"name": role, "device": "net_memif0", "mac": mac, "ipv4": ip,
                "ipv6": ["fd00::9:%s" % ip.rsplit(".", 1)[1]]}
        if loss and role == "client":
            # the client's port through net_impair: loss both ways
            extra.append("--vdev=net_impair0,port=net_memif0,drop=%s,seed=%d"
                         % (loss, 7 + case_id))
            port["device"] = "net_impair0"
        cfg = {"eal": eal("sib%d_%s_%d" % (os.getpid(), role, case_id), extra),
               "ports": [port]}
        path = os.path.join(tmp, "%s%d.json" % (role, case_id))
        with open(path, "w") as f:
            json.dump(cfg, f)
        cfgs[role] = path
    return cfgs


def tcp_listening(port):
    """True when something listens on TCP @port (read from /proc, so the
    server's single accept is not spent on a probe)."""
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[3] == "0A" and int(parts[1].split(":")[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def bad_lines(text):
    return [l for l in text.splitlines() if BAD.search(l) and not BENIGN.search(l)]


SAN_ENV = {}


def sanitizer_env():
    libs = []
    for lib in ("libasan.so", "libubsan.so"):
        p = subprocess.run(["gcc", "-print-file-name=" + lib], stdout=subprocess.PIPE,
                           text=True).stdout.strip()
        if not os.path.isabs(p):
            raise SystemExit("ibverbs: --sanitized but gcc has no %s" % lib)
        libs.append(p)
    return {"LD_PRELOAD": " ".join(libs),
            "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=1",
            "UBSAN_OPTIONS": "halt_on_error=1:abort_on_error=1:print_stacktrace=1"}


def base_env(libdir):
    return dict(os.environ, LD_LIBRARY_PATH=libdir, **SAN_ENV)


def run_pair(libdir, tmp, case_id, prog, args, check, loss, limit, cm_args=None,
             want_rc=0):
    """A server and a client process. cm_args: the client's arguments of
    an rdma_cm program (RDMACM); else both take @args, the client the
    server's name, and they meet over TCP first (perftest, pingpong).
    want_rc other than 0: the client must exit with it, and the server is
    stopped once the client has ended (its result is not judged)."""
    cfgs = write_configs(tmp, case_id, loss)
    port = free_port()
    env = base_env(libdir)
    senv = dict(env, SOFTRNIC_CONFIG=cfgs["server"])
    cenv = dict(env, SOFTRNIC_CONFIG=cfgs["client"])
    if cm_args is None:
        argv = ["/usr/bin/" + prog] + args.split() + ["-p", str(port)]
        cargv = argv + ["localhost"]
        what = "TCP %d" % port

        def ready():
            return tcp_listening(port)
    else:
        fill = {"srv": SRV_IP, "srv6": SRV_IP6, "port": port}
        argv = ["/usr/bin/" + prog] + args.format(**fill).split()
        cargv = ["/usr/bin/" + prog] + cm_args.format(**fill).split()
        note = os.path.join(tmp, "ready%d" % case_id)
        if os.path.exists(note):
            os.unlink(note)   # a run of the same case before (main's retry)
        senv["SOFTRNIC_RDMACM_READY"] = note
        what = "rdma_cm port %d" % port

        def ready():
            return os.path.exists(note) and os.path.getsize(note) > 0
    deadline = time.monotonic() + limit
    srv = subprocess.Popen(argv, env=senv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    why = None
    while not ready():
        if srv.poll() is not None:
            why = "server exited (%d) before listening" % srv.returncode
            break
        if time.monotonic() > deadline:
            why = "server not listening on %s within %d s" % (what, limit)
            break
        time.sleep(0.05)
    cout = ""
    crc = None
    if why is None:
        try:
            cli = subprocess.run(cargv, env=cenv, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=max(1, deadline - time.monotonic()))
            cout, crc = cli.stdout, cli.returncode
        except subprocess.TimeoutExpired as e:
            cout = e.stdout or ""
            if isinstance(cout, bytes):
                cout = cout.decode(errors="replace")
            why = "client still running after %d s" % limit
    if want_rc != 0:
        srv.terminate()
    try:
        sout, _ = srv.communicate(timeout=max(1, deadline - time.monotonic() + 5))
    except subprocess.TimeoutExpired:
        srv.kill()
        sout, _ = srv.communicate()
        why = why or "server still running after %d s" % limit
    if why is None and crc != want_rc:
        why = "client exit %d (want %d)" % (crc, want_rc)
    if want_rc != 0:
        if why is None and not re.search(check, cout, re.M):
            why = "no /%s/ in the client's output" % check
        return why, cout, sout
    if why is None and srv.returncode != 0:
        why = "server exit %d" % srv.returncode
    if why is None and not re.search(check, cout, re.M):
        why = "no result line in the client's output"
    if why is None and (bad_lines(cout) or bad_lines(sout)):
        why = "error output: " + (bad_lines(cout) + bad_lines(sout))[0].strip()
    return why, cout, sout


def run_local(libdir, tmp, prog):
    cfg = {"eal": eal("sib%d_loop" % os.getpid(), []),
           "ports": [{"name": "p0", "ring_peer": "p1", "mac": "02:00:00:00:08:01",
                      "ipv4": "10.0.8.1"},
                     {"name": "p1", "ring_peer": "p0", "mac": "02:00:00:00:08:02",
                      "ipv4": "10.0.8.2"}]}
    path = os.path.join(tmp, "loop.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    env = dict(base_env(libdir), SOFTRNIC_CONFIG=path)
    r = subprocess.run(["/usr/bin/" + prog] + (["-v"] if prog == "ibv_devinfo" else []),
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    out = r.stdout
    if r.returncode != 0:
        return "exit %d" % r.returncode, out
    if prog == "ibv_devices":
        # GUIDs are EUI-64 from the configured MACs
        for name, guid in (("softrnic_0", "000000fffe000801"), ("softrnic_1", "000000fffe000802")):
            if not re.search(r"\s%s\s+%s" % (name, guid), out):
                return "%s with GUID %s not listed" % (name, guid), out
    else:
        for want in (r"hca_id:\s+softrnic_0", r"hca_id:\s+softrnic_1",
                     r"state:\s+PORT_ACTIVE", r"link_layer:\s+Ethernet",
                     r"GID\[\s*0\]:\s+::ffff:10\.0\.8\.1, RoCE v2",
                     r"GID\[\s*0\]:\s+::ffff:10\.0\.8\.2, RoCE v2"):
            if not re.search(want, out):
                return "missing /%s/" % want, out
    return None, out


# ------------------------------------------------------------------
# --compare: the cost of the libibverbs layer (doc/ibverbs.md)
# ------------------------------------------------------------------

def bw_row(text):
    """(MB/s average, M msgs/s) of a perftest-style result row, or None."""
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", line)
        if m:
            return float(m.group(4)), float(m.group(5))
    return None


def compare_one(libdir, tmp, n, kind, size, secs, cpus):
    """One write_bw measurement over a fresh memif link: rnic-perf (the
    native rnic_* API) or Debian's ib_write_bw over libibverbs.so.1. Server
    on cpus[1], client on cpus[0], each process on its one CPU."""
    port = free_port()
    sock = os.path.join(tmp, "cmp%d.sock" % n)
    pfx = "sibcmp%d_%d" % (os.getpid(), n)
    perf = os.path.join(os.path.dirname(os.path.dirname(libdir)), "app/rnic-perf/rnic-perf")
    cmds, envs = {}, {}
    for role, cpu in (("server", cpus[1]), ("client", cpus[0])):
        vdev = "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no,%s" % (role, sock,
                                                                            MEMIF_RING)
        if kind == "native":
            cmd = [perf, "--no-huge", "--no-pci", "--no-telemetry", "-m", "1024",
                   "--log-level=pmd.net.memif:error", "--log-level=*:warning",
                   "--file-prefix=%s%s" % (pfx, role[0]), "--lcores=0@%d" % cpu, vdev, "--",
                   "--link", "memif", "--" + role, "-p", str(port)]
            if role == "client":
                cmd += ["write_bw", "-s", str(size), "-D", str(secs), "--no-progress"]
            env = dict(os.environ)
        else:
            cfg = {"eal": eal(pfx + role[0], [vdev]),
                   "ports": [{"name": role, "device": "net_memif0",
                              "mac": "02:00:00:00:07:0%d" % (1 if role == "server" else 2),
                              "ipv4": "10.0.7.%d" % (1 if role == "server" else 2)}]}
            path = os.path.join(tmp, "cmp%d%s.json" % (n, role))
            with open(path, "w") as f:
                json.dump(cfg, f)
            cmd = ["taskset", "-c", str(cpu), "/usr/bin/ib_write_bw", "-F", "-s", str(size),
                   "-D", str(secs), "-p", str(port)] + (["localhost"] if role == "client" else [])
            env = dict(base_env(libdir), SOFTRNIC_CONFIG=path)
        cmds[role], envs[role] = cmd, env
    srv = subprocess.Popen(cmds["server"], env=envs["server"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    end = time.monotonic() + 30
    while not tcp_listening(port) and srv.poll() is None and time.monotonic() < end:
        time.sleep(0.05)
    try:
        cli = subprocess.run(cmds["client"], env=envs["client"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=secs + 60)
        out = cli.stdout if cli.returncode == 0 else ""
    except subprocess.TimeoutExpired:
        out = ""
    try:
        srv.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.communicate()
    return bw_row(out)


def compare(libdir, tmp, rounds, secs):
    cpus = sorted(os.sched_getaffinity(0))
    cpus = (cpus[0], cpus[1] if len(cpus) > 1 else cpus[0])
    n = 0
    for size in (64, 4096, 65536):
        res = {"native": [], "ibverbs": []}
        for r in range(rounds):
            order = ("native", "ibverbs") if r % 2 == 0 else ("ibverbs", "native")
            for kind in order:
                n += 1
                v = compare_one(libdir, tmp, n, kind, size, secs, cpus)
                if v is not None:
                    res[kind].append(v)
        med = {}
        for kind, vals in res.items():
            vals = sorted(vals)
            med[kind] = vals[len(vals) // 2] if vals else None
        if med["native"] is None or med["ibverbs"] is None:
            print("bench: test=ibverbs size=%d FAILED (native %d/%d, ibverbs %d/%d samples)"
                  % (size, len(res["native"]), rounds, len(res["ibverbs"]), rounds))
            continue
        print("bench: test=ibverbs op=write_bw size=%d link=memif native_mbs=%.1f "
              "ibverbs_mbs=%.1f native_mmsgs=%.4f ibverbs_mmsgs=%.4f ratio=%.3f rounds=%d"
              % (size, med["native"][0], med["ibverbs"][0], med["native"][1],
                 med["ibverbs"][1], med["ibverbs"][0] / med["native"][0], rounds), flush=True)
    return 0


# perftest's message when its measurement of the CPU's clock rate failed.
CALIBRATION_FAILED = "Correlation coefficient r^2"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("libdir")
    ap.add_argument("--set", choices=("quick", "full"), default="quick")
    ap.add_argument("--only", help="run only cases of this program")
    ap.add_argument("--no-rdmacm", action="store_true",
                    help="leave out the rdma_cm programs (librdmacm.so.1)")
    ap.add_argument("--loss", help="drop probability on the client's port (net_impair)")
    ap.add_argument("--limit", type=int, default=90, help="seconds per case")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--compare", action="store_true",
                    help="measure rnic-perf write_bw against ib_write_bw instead")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3)
    o = ap.parse_args()
    if o.sanitized:
        SAN_ENV.update(sanitizer_env())
    libdir = os.path.abspath(o.libdir)
    if not os.path.exists(os.path.join(libdir, "libibverbs.so.1")):
        print("ibverbs: %s/libibverbs.so.1 is not built (libibverbs-dev missing?)" % libdir)
        return 1
    if o.compare:
        tmp = tempfile.mkdtemp(prefix="softrnic-ibverbs-")
        try:
            return compare(libdir, tmp, o.rounds, o.seconds)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    cases = [(p, a, None, c, 0) for p, a, c in (QUICK if o.set == "quick" else FULL)]
    if os.path.exists(os.path.join(libdir, "librdmacm.so.1")) and not o.no_rdmacm:
        cases += [c if len(c) == 5 else c + (0,) for c in RDMACM]
    elif not o.no_rdmacm:
        print("ibverbs: %s/librdmacm.so.1 is not built (librdmacm-dev missing?)" % libdir)
        return 1
    if o.only:
        cases = [c for c in cases if c[0] == o.only]
    tmp = tempfile.mkdtemp(prefix="softrnic-ibverbs-")
    failed = ran = 0
    try:
        for prog in ("ibv_devices", "ibv_devinfo"):
            if o.only and o.only != prog:
                continue
            why, out = run_local(libdir, tmp, prog)
            ran += 1
            print('ibverbs: program=%s args="%s" result=%s%s' % (
                prog, "-v" if prog == "ibv_devinfo" else "", "PASS" if why is None else "FAIL",
                "" if why is None else " (%s)" % why), flush=True)
            if why is not None:
                failed += 1
                print(out)
        for i, (prog, args, cm_args, check, want_rc) in enumerate(cases):
            t0 = time.monotonic()
            ran += 1
            why, cout, sout = run_pair(libdir, tmp, i, prog, args, check, o.loss, o.limit,
                                       cm_args, want_rc)
            if why is not None and CALIBRATION_FAILED in cout + sout:
                # perftest measures the CPU's clock against gettimeofday
                # before its latency test; on a busy machine the fit can
                # fail, and it then prints every latency as inf (no
                # result line), though every message went through. Its
                # own measurement, not softrnic's: once more.
                print('ibverbs: program=%s: perftest\'s clock calibration failed ("%s"), '
                      'running it again' % (prog, CALIBRATION_FAILED), flush=True)
                why, cout, sout = run_pair(libdir, tmp, i, prog, args, check, o.loss, o.limit,
                                           cm_args, want_rc)
            shown = args if cm_args is None else "%s | %s" % (args, cm_args)
            print('ibverbs: program=%s args="%s"%s result=%s%s time=%.1fs' % (
                prog, shown, " loss=%s" % o.loss if o.loss else "",
                "PASS" if why is None else "FAIL", "" if why is None else " (%s)" % why,
                time.monotonic() - t0), flush=True)
            if why is not None:
                failed += 1
                print("--- client output:\n%s--- server output:\n%s---" % (cout, sout))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ibverbs: %d cases, %d failed" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
