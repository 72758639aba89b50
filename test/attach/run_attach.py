#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Applications attached to the daemon (issue 20).

  run_attach.py SOFTRNIC ATTACH_APP IBV_LIB CONFIG three-apps
  run_attach.py SOFTRNIC ATTACH_APP IBV_LIB CONFIG api

three-apps: the daemon with three attached applications.

softrnic runs config/gateway.json (two ports joined by a ring pair, one
engine lcore, the attach socket in a fresh directory). Then:

  - two unmodified ibv_rc_pingpong (Debian's ibverbs-utils) attach through
    softrnic's libibverbs.so.1 (SOFTRNIC_ATTACH) and ping-pong between
    the daemon's two ports, each validating every buffer it receives (-c;
    the server sleeps on completion events, -e);
  - a third application (attach_app loop 0: WRITE, READ, SEND, atomics
    and UD between its own QPs on both ports, every byte checked) is
    killed with SIGKILL in the middle of its transfers;
  - the survivors must finish with their data checked; the killed one's
    R_Key must be NAKed afterwards (a WRITE to it ends REM_ACCESS_ERR),
    the daemon must say it died, and what it held must be gone: the
    daemon's object counts (SERVER_STATS: held for applications, and on
    its ports) back to what they were before any application came;
  - SIGTERM stops the daemon cleanly (exit status 0).

Prints `attach: apps=3 killed=1 survivors_ok=2 leaked=0` and exits 0, or
the first failure and 1. 77 (skipped) where ibverbs-utils is missing.

api: attach_app's own cases, one application after another (no
ibverbs programs, so it also runs in the sanitizer build): loop, errors
(bad WRs complete with an error, bad calls fail, limits), memory (what
can be registered; moved while another thread writes), hostile (a raw
protocol client with lies: only its own QPs fault), then nothing left;
then wait-stop: the daemon's SIGTERM flushes an attached QP's receives
into its CQ before the daemon exits. Prints `attach-api: ok ...`.

Every wait is bounded.
"""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SOFTRNIC, ATTACH_APP, IBV_LIB, CONFIG, MODE = sys.argv[1:6]
PINGPONG = shutil.which("ibv_rc_pingpong")


def fail(msg, *logs):
    print(f"FAIL: {msg}")
    for name, text in logs:
        print(f"---- {name}\n{text}")
    sys.exit(1)


_pending = {}


def read_until(proc, pattern, secs, what):
    """Lines of @proc's stdout until one matches @pattern (bounded). The
    pipe is read raw: a buffered reader would hide lines from select."""
    end = time.monotonic() + secs
    fd = proc.stdout.fileno()
    buf = _pending.get(fd, b"")
    seen = []
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            text = line.decode(errors="replace")
            seen.append(text)
            m = re.search(pattern, text)
            if m:
                _pending[fd] = buf
                return m, "\n".join(seen)
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([fd], [], [], min(left, 0.2))
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buf += chunk
    fail(f"{what}: no line matching {pattern!r} within {secs} s", (what, "\n".join(seen)))


def app(*args, timeout=60):
    r = subprocess.run([ATTACH_APP, SOCK, *args], capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        fail(f"attach_app {' '.join(args)}: exit {r.returncode}",
             ("stdout", r.stdout), ("stderr", r.stderr))
    return r.stdout


def stats():
    out = app("stats")
    m = re.search(r"^stats: (.*)$", out, re.M)
    if not m:
        fail("no stats line", ("stdout", out))
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


def pingpong_env():
    env = dict(os.environ)
    env["SOFTRNIC_ATTACH"] = SOCK
    env["LD_LIBRARY_PATH"] = IBV_LIB
    return env


def run_pair(port, iters):
    """ibv_rc_pingpong server (port 1, events) and client (port 0): both
    validate what they receive. The client tries again while the server
    is not listening yet (bounded)."""
    base = [PINGPONG, "-g", "0", "-n", str(iters), "-s", "4096", "-c", "-p", str(port)]
    srv = subprocess.Popen(base + ["-d", "softrnic_1", "-e"], env=pingpong_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    end = time.monotonic() + 20
    while True:
        cli = subprocess.Popen(base + ["-d", "softrnic_0", "127.0.0.1"], env=pingpong_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # a refused TCP connect ends the client at once; anything else runs
        # (or, on a fast machine, may even be done already)
        try:
            cli.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            break
        if cli.returncode == 0:
            break
        out = cli.stdout.read()
        if "Couldn't connect" not in out or time.monotonic() > end:
            srv.kill()
            fail("ibv_rc_pingpong client did not start", ("client", out))
    return srv, cli


def finish(proc, name, secs):
    try:
        out, _ = proc.communicate(timeout=secs)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        fail(f"{name} did not finish within {secs} s", (name, out))
    return proc.returncode, out


def start_daemon():
    global SOCK
    tmp = tempfile.mkdtemp(prefix="softrnic-attach-")
    SOCK = os.path.join(tmp, "attach.sock")
    with open(CONFIG) as f:
        cfg = json.load(f)
    cfg["attach"]["socket"] = SOCK
    cfg["options"] = {"stats_interval_ms": 0, "exit_when_done": False, "timeout_s": 0}
    cfg_path = os.path.join(tmp, "gateway.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    daemon = subprocess.Popen([SOFTRNIC, "--config", cfg_path], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    return tmp, daemon


def stop_daemon(daemon, dlog):
    daemon.send_signal(signal.SIGTERM)
    rc, out = finish(daemon, "daemon", 30)
    if rc != 0:
        fail(f"the daemon's clean stop: exit {rc}", ("daemon", dlog + out.decode()))
    return out.decode()


def left_behind(base):
    """Wait (bounded) until the daemon holds nothing for applications and
    its ports' counts are back at @base; the sum of what is left."""
    end = time.monotonic() + 10
    while True:
        after = stats()
        held = sum(after[k] for k in ("qps", "mrs", "cqs", "pds", "ahs"))
        dev_diff = sum(abs(after[k] - base[k]) for k in
                       ("dev_qps", "dev_mrs", "dev_cqs", "dev_pds", "dev_ahs"))
        if (held == 0 and dev_diff == 0 and after["apps"] == 1) or time.monotonic() > end:
            return held + dev_diff, after


def three_apps(daemon, procs):
    _, dlog = read_until(daemon, r"^softrnic: serving until stopped", 30, "daemon")
    base = stats()
    if base["apps"] != 1 or base["qps"] or base["mrs"] or base["cqs"]:
        fail(f"the daemon holds objects before any application: {base}")

    # The victim, then the two survivors beside it.
    victim = subprocess.Popen([ATTACH_APP, SOCK, "loop", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    procs.append(victim)
    m, _ = read_until(victim, r"^ready rkey=(\S+) addr=(\S+) qpn=(\d+)", 30, "victim")
    rkey, addr = m.group(1), m.group(2)
    before = stats()
    srv, cli = run_pair(18700 + os.getpid() % 1000, 20000)
    procs += [srv, cli]
    # Mid-transfer: once the daemon has taken 2000 more WQEs from the
    # rings (the victim's and the pingpongs'), kill it - while the
    # pingpongs still run.
    end = time.monotonic() + 30
    while True:
        during = stats()
        if during["wqes"] >= before["wqes"] + 2000 and during["apps"] == 4:
            break
        if time.monotonic() > end or victim.poll() is not None:
            fail(f"the victim and the pingpongs do not run together: {during}",
                 ("victim", victim.stdout.read().decode() if victim.poll() is not None
                  else ""))
    if cli.poll() is not None or srv.poll() is not None:
        fail("the pingpongs were over before the victim was killed (make them longer)")
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)

    ok = 0
    for p, name in ((cli, "ibv_rc_pingpong client"), (srv, "ibv_rc_pingpong server")):
        rc, out = finish(p, name, 120)
        if rc != 0 or "iters in" not in out:
            fail(f"{name}: exit {rc}", (name, out))
        ok += 1

    # The killed one's R_Key: NAKed (its MR is gone; its PD too).
    out = app("probe", rkey, addr)
    if "status=remote access error" not in out:
        fail("the probe's WRITE was not NAKed", ("probe", out))

    # Nothing left behind: the counts are what they were at the start.
    leaked, after = left_behind(base)
    if leaked or after["apps"] != 1:
        fail(f"left behind: {after} (before: {base})")
    if after["apps_died"] != 1:
        fail(f"the daemon counts {after['apps_died']} deaths, not 1: {after}")
    if after["violations"]:
        fail(f"ring violations without a hostile application: {after}")
    stop_daemon(daemon, dlog)
    print(f"attach: apps=3 killed=1 survivors_ok={ok} leaked={leaked}")


def api(daemon, procs):
    _, dlog = read_until(daemon, r"^softrnic: serving until stopped", 30, "daemon")
    base = stats()
    lines = []
    for args in (("loop", "40"), ("errors",), ("memory",), ("hostile",)):
        out = app(*args, timeout=120)
        lines.append(out.strip().splitlines()[-1])
    leaked, after = left_behind(base)
    if leaked:
        fail(f"left behind: {after} (before: {base})")
    if after["apps_died"] != 1:   # the hostile client closed its socket holding everything
        fail(f"deaths: {after['apps_died']}, the hostile client's alone expected: {after}")
    # A clean stop while an application waits on its receives.
    ws = subprocess.Popen([ATTACH_APP, SOCK, "wait-stop"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    procs.append(ws)
    read_until(ws, r"^ready$", 30, "wait-stop")
    dout = stop_daemon(daemon, dlog)
    rc, out = finish(ws, "wait-stop", 30)
    if rc != 0:
        fail(f"wait-stop: exit {rc}", ("wait-stop", out.decode()), ("daemon", dout))
    if not re.search(r"^attach: stop: \d+ attached QPs moved to Error, completions delivered",
                     dlog + dout, re.M):
        fail("the daemon did not deliver the flushed completions", ("daemon", dlog + dout))
    lines.append(out.decode().strip().splitlines()[-1])
    print("attach-api: ok; " + "; ".join(lines))


if MODE == "three-apps" and not PINGPONG:
    print("SKIP: ibv_rc_pingpong not installed (ibverbs-utils)")
    sys.exit(77)
tmp, daemon = start_daemon()
procs = [daemon]
try:
    {"three-apps": three_apps, "api": api}[MODE](daemon, procs)
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
