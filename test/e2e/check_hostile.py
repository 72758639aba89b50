#!/usr/bin/python3
"""The daemon under hostile configurations and signals (issue 13 items 2-4).

usage: check_hostile.py SOFTRNIC [CASE...]

Each case writes a configuration into a temporary directory, runs the
daemon on it with a time bound, and checks its exit status and output:

  burst-256        ports[].burst at its limit moves verified traffic, and
                   257 is refused naming the field (the RX role of 257..512
                   never polled: rx_pkts=0, retry exceeded)
  many-ports       18 ports polled by one lcore (the lcore's table held 16:
                   UBSan index out of bounds, neighbours corrupted)
  sigint-setup     SIGINT while a large MR is being filled: exit 130 and
                   "interrupted: signal=SIGINT phase=setup", not exit 0 with
                   "verified: messages=0 ... errors=0"
  sigterm-workload SIGTERM (what `timeout` sends) during a workload: 143 and
                   "phase=workload"
  sigint-serving   SIGINT to a daemon with nothing left to run: the normal
                   stop, exit 0
  workers-default  2 workers per port and no lcores[]: each worker of each
                   port on the next lcore, round robin, and verified traffic
                   (issue 16)
  workers-queues   2 workers on a net_pcap port with one TX queue: refused,
                   naming ports[0].workers and the queues the port has;
                   "queues": 1 with a worker's tx and rx roles on two lcores:
                   refused, naming the worker

No sleep synchronises anything: a signal is sent once the daemon has
printed the line that says it reached the phase under test.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

EAL = ["--no-huge", "--no-pci", "--no-shconf", "-m", "512", "--no-telemetry",
       "--lcores=0@0,1@1,2@1"]
ACCESS = ["local_write", "remote_write", "remote_read"]


def pair_config(n_pairs=1, burst=None, one_lcore=False, big_mr=0, workload=True,
                duration_ms=0, workers=None):
    """n_pairs ring pairs, an RC QP pair and a verified WRITE on each
    (with @workers: that many workers per port, and a pair per worker)."""
    cfg = {"eal": EAL, "ports": [], "lcores": [], "mrs": [], "cqs": [], "qps": [],
           "workload": [], "options": {"stats_interval_ms": 0, "timeout_s": 60}}
    for k in range(2 * n_pairs):
        p = {"name": f"p{k}", "ring_peer": f"p{k ^ 1}",
             "mac": f"02:00:00:00:{k >> 8:02x}:{(k & 0xff) + 1:02x}",
             "ipv4": f"10.0.{k >> 8}.{(k & 0xff) + 1}"}
        if burst is not None:
            p["burst"] = burst
        if workers is not None:
            p["workers"] = workers
        if n_pairs > 1:
            p.update(mbufs=1024, ring_size=256, max_qps=4, max_mrs=4, max_cqs=4)
        cfg["ports"].append(p)
        if one_lcore:
            cfg["lcores"].append({"lcore": 1, "port": f"p{k}"})
        cfg["mrs"].append({"name": f"m{k}", "port": f"p{k}", "size": 262144,
                           "access": ACCESS, "fill": {"pattern": "random", "seed": k + 1}})
        cfg["cqs"].append({"name": f"c{k}", "port": f"p{k}", "depth": 256})
        cfg["qps"].append({"name": f"q{k}", "port": f"p{k}", "type": "RC",
                           "send_cq": f"c{k}", "recv_cq": f"c{k}",
                           "remote": {"qp": f"q{k ^ 1}"}, "pmtu": 1024})
    for w in range(1, workers or 1):   # auto QPNs: the next pair on the next worker
        for k in range(2 * n_pairs):
            cfg["qps"].append({"name": f"q{k}w{w}", "port": f"p{k}", "type": "RC",
                               "send_cq": f"c{k}", "recv_cq": f"c{k}",
                               "remote": {"qp": f"q{k ^ 1}w{w}"}, "pmtu": 1024})
        for k in range(0, 2 * n_pairs, 2) if workload else ():
            cfg["workload"].append({"qp": f"q{k}w{w}", "opcode": "write", "count": 16,
                                    "sizes": [1, 4096, 65536], "local_mr": f"m{k}",
                                    "remote_mr": f"m{k + 1}"})
    if big_mr:
        # After the small MRs, so their "mr:" lines come before its fill.
        cfg["mrs"].append({"name": "big", "port": "p0", "size": big_mr,
                           "access": ["local_write"], "fill": {"pattern": "counter"}})
    for k in range(0, 2 * n_pairs, 2) if workload else ():
        w = {"qp": f"q{k}", "opcode": "write", "sizes": [1, 4096, 65536],
             "local_mr": f"m{k}", "remote_mr": f"m{k + 1}"}
        if duration_ms:
            w["duration_ms"] = duration_ms
        else:
            w["count"] = 16
        cfg["workload"].append(w)
    return cfg


def run(prog, cfg, tmp, name, timeout=120, signal_after=None, sig=signal.SIGINT):
    """Run the daemon on @cfg; with @signal_after (a stdout prefix) send
    @sig once a line starting so appears. Returns (exit status, output)."""
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.Popen([prog, "--config", path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out, sent = [], False
    deadline = time.monotonic() + timeout
    try:
        for line in p.stdout:
            out.append(line)
            if signal_after and not sent and line.startswith(signal_after):
                p.send_signal(sig)
                sent = True
            if time.monotonic() > deadline:
                break
        rc = p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        out.append("(killed: over the time bound)\n")
        rc = None
    if signal_after and not sent:
        out.append(f"(never printed a line starting {signal_after!r})\n")
        rc = None
    return rc, "".join(out)


def last_line(out):
    lines = [l for l in out.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def case_burst_256(prog, tmp):
    errs = []
    rc, out = run(prog, pair_config(burst=256), tmp, "burst256")
    if rc != 0 or not last_line(out).startswith("verified:") or \
            not last_line(out).endswith("errors=0") or "messages=48 " not in last_line(out):
        errs.append(f"burst 256: exit {rc}, last line {last_line(out)!r}")
    rc, out = run(prog, pair_config(burst=257), tmp, "burst257")
    if rc != 1 or "ports[0].burst: 257 is out of range 1..256" not in out:
        errs.append(f"burst 257: exit {rc}, output {out[-300:]!r}")
    return errs


def case_many_ports(prog, tmp):
    rc, out = run(prog, pair_config(n_pairs=9, one_lcore=True), tmp, "ports18")
    ll = last_line(out)
    if rc != 0 or ll != f"verified: messages={9 * 48} bytes={9 * 16 * (1 + 4096 + 65536)} errors=0":
        return [f"18 ports on one lcore: exit {rc}, last line {ll!r}", out[-1500:]]
    return []


def case_sigint_setup(prog, tmp):
    # 4 GiB filled byte by byte takes seconds; the signal comes right
    # after the last small MR's line, before or during that fill.
    cfg = pair_config(big_mr=4 << 30)
    t0 = time.monotonic()
    rc, out = run(prog, cfg, tmp, "setup", signal_after="mr: name=m1 ")
    took = time.monotonic() - t0
    ll = last_line(out)
    errs = []
    if rc != 128 + signal.SIGINT or ll != "interrupted: signal=SIGINT phase=setup":
        errs.append(f"SIGINT during setup: exit {rc}, last line {ll!r}")
    if "verified:" in out:
        errs.append("an interrupted setup printed a verified line")
    print(f"     (setup interrupted, exit {rc} after {took:.1f} s)")
    return errs


def case_sigterm_workload(prog, tmp):
    cfg = pair_config(duration_ms=60000)
    rc, out = run(prog, cfg, tmp, "workload", signal_after="softrnic: 2 ports",
                  sig=signal.SIGTERM)
    ll = last_line(out)
    if rc != 128 + signal.SIGTERM or ll != "interrupted: signal=SIGTERM phase=workload":
        return [f"SIGTERM during the workload: exit {rc}, last line {ll!r}"]
    return []


def case_sigint_serving(prog, tmp):
    cfg = pair_config(workload=False)
    rc, out = run(prog, cfg, tmp, "serving", signal_after="softrnic: serving")
    if rc != 0 or "interrupted" in out or not last_line(out).startswith("stats: "):
        return [f"SIGINT to a serving daemon: exit {rc}, last line {last_line(out)!r}"]
    return []


def case_workers_default(prog, tmp):
    rc, out = run(prog, pair_config(workers=2), tmp, "workers-default")
    ll, errs = last_line(out), []
    if rc != 0 or ll != f"verified: messages={2 * 48} bytes={2 * 16 * (1 + 4096 + 65536)} errors=0":
        errs.append(f"2 workers, default lcores: exit {rc}, last line {ll!r}")
    for want in ("workers: port=p0 workers=2 qps=1,1", "workers: port=p1 workers=2 qps=1,1",
                 "lcore: id=1 polls=p0/w0:all,p1/w0:all",
                 "lcore: id=2 polls=p0/w1:all,p1/w1:all"):
        if want not in out.splitlines():
            errs.append(f"no line {want!r}")
    return errs + ([out[-1500:]] if errs else [])


def refused(prog, cfg, tmp, name, want):
    """Run @cfg: the daemon must exit 1 with the line @want."""
    rc, out = run(prog, cfg, tmp, name)
    if rc != 1 or want not in out.splitlines():
        return [f"{name}: exit {rc}, want the line {want!r}; output {out[-400:]!r}"]
    return []


def case_workers_queues(prog, tmp):
    pcap = os.path.join(tmp, "out.pcap")
    cfg = {"eal": EAL[:-1] + ["--lcores=0@0,1@1", f"--vdev=net_pcap0,tx_pcap={pcap}"],
           "ports": [{"name": "p0", "device": "net_pcap0", "ipv4": "10.0.0.1",
                      "mbufs": 4096, "workers": 2}]}
    errs = refused(prog, cfg, tmp, "workers-pcap",
                   "softrnic: ports[0].workers: 2 workers need 2 TX queues and an RX queue, "
                   "but DPDK port \"net_pcap0\" has 1 TX and 1 RX queue(s): lower "
                   "\"workers\" or give the device more queues")
    cfg = pair_config(workers=2, workload=False)
    for k in (0, 1):
        cfg["ports"][k]["queues"] = 1
    cfg["lcores"] = [{"lcore": 1, "port": "p0", "worker": 0}, {"lcore": 1, "port": "p1"},
                     {"lcore": 2, "port": "p1", "worker": 1},
                     {"lcore": 1, "port": "p0", "worker": 1, "roles": ["tx", "timer"]},
                     {"lcore": 2, "port": "p0", "worker": 1, "roles": ["rx"]}]
    return errs + refused(prog, cfg, tmp, "workers-shared",
                          "softrnic: lcores[]: port \"p0\" (ports[0]) worker 1 has a single "
                          "TX queue, shared by its \"tx\" and \"rx\" roles: they must be on "
                          "one lcore, not on lcores 1 and 2")


CASES = {
    "burst-256": case_burst_256,
    "many-ports": case_many_ports,
    "sigint-setup": case_sigint_setup,
    "sigterm-workload": case_sigterm_workload,
    "sigint-serving": case_sigint_serving,
    "workers-default": case_workers_default,
    "workers-queues": case_workers_queues,
}


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    prog = sys.argv[1]
    names = sys.argv[2:] or list(CASES)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="softrnic-hostile-") as tmp:
        for n in names:
            errs = CASES[n](prog, tmp)
            print(("FAIL " if errs else "ok   ") + n)
            for e in errs:
                print("    " + e)
            failed += bool(errs)
            passed += not errs
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
