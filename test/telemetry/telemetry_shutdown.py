#!/usr/bin/python3
# Issue 13: softrnic stopped by SIGINT while two telemetry clients poll
# /softrnic/qps and /softrnic/qp,<n> without pause. The telemetry thread
# must never look at a device that is being (or has been) destroyed: each
# of RUNS runs must exit 0 and print its stats lines. Then rnic-perf, which
# tears its devices down the same way when a test ends: PERF_RUNS short
# write_bw runs, polled the same way until they exit, must each exit 0.
# Before the fix every run of both died with SIGSEGV (exit -11 / 139).
# Usage: telemetry_shutdown.py SOFTRNIC RUNS [RNIC_PERF PERF_RUNS]
# Exit 77 (skip) when the telemetry runtime directory cannot be used.
import json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time

softrnic = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
rnic_perf = sys.argv[3] if len(sys.argv) > 3 else None
perf_runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
RUN_DEADLINE = 10.0          # seconds for one run, start to exit (one takes ~0.2 s)
TOTAL_DEADLINE = 45.0        # seconds for all of them
MIN_REPLIES = 20             # answers each client must have had before SIGINT

# The daemon says when a signal becomes the normal stop (before, SIGINT
# reports an interrupted run, exit 130). Builds without that line took any
# signal as the normal stop, and may not flush stdout into a pipe: for
# them the telemetry answers alone say it is up.
with open(softrnic, "rb") as f:
    ready_text = "softrnic: serving until stopped" \
        if b"serving until stopped" in f.read() else None

tmp = tempfile.mkdtemp()
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def rundir_of(prefix):
    if os.geteuid() == 0:
        return "/var/run/dpdk/" + prefix
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk", prefix)


class Client(threading.Thread):
    """Sends one command over one connection, again and again, until the
    daemon goes away or stop is set; counts the answers."""

    def __init__(self, sock_path, cmd):
        super().__init__(daemon=True)
        self.sock_path, self.cmd = sock_path, cmd
        self.replies = 0
        self.nulls = 0
        self.stop = False
        self.answered = threading.Event()

    def run(self):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.settimeout(RUN_DEADLINE)
            s.connect(self.sock_path)
            s.recv(4096)                          # the greeting
            while not self.stop:
                s.send(self.cmd.encode())
                data = s.recv(1 << 20)
                if not data:
                    break                         # the daemon closed it
                reply = json.loads(data.decode())[self.cmd.split(",")[0]]
                if not reply:
                    # null before the QP exists (at start, when stdout does
                    # not say the daemon serves) and once the device is
                    # unpublished at shutdown; in between never
                    if self.replies:
                        self.nulls += 1
                    continue
                self.replies += 1
                if self.replies >= MIN_REPLIES:
                    self.answered.set()
        except (OSError, ValueError):
            pass                                  # the daemon went away mid-answer
        finally:
            self.answered.set()


def one_run(i):
    prefix = "rnicteldown%d_%d" % (os.getpid(), i)
    cfg = {
        "eal": ["--no-huge", "--no-pci", "-m", "128", "--file-prefix=" + prefix,
                "--lcores=0@0,1@1", "--log-level=*:warning"],
        "ports": [
            {"name": "p0", "ring_peer": "p1", "mac": "02:00:00:00:00:01",
             "ipv4": "10.0.0.1", "mbufs": 512, "max_qps": 64},
            {"name": "p1", "ring_peer": "p0", "mac": "02:00:00:00:00:02",
             "ipv4": "10.0.0.2", "mbufs": 512, "max_qps": 64}],
        "cqs": [{"name": "c0", "port": "p0"}, {"name": "c1", "port": "p1"}],
        "qps": [
            {"name": "a", "port": "p0", "type": "RC", "qpn": 17, "send_cq": "c0",
             "recv_cq": "c0", "remote": {"qp": "b"}},
            {"name": "b", "port": "p1", "type": "RC", "qpn": 18, "send_cq": "c1",
             "recv_cq": "c1", "remote": {"qp": "a"}}],
        "options": {"stats_interval_ms": 0, "exit_when_done": False}}
    path = os.path.join(tmp, "down%d.json" % i)
    with open(path, "w") as f:
        json.dump(cfg, f)
    rundir = rundir_of(prefix)
    sock_path = os.path.join(rundir, "dpdk_telemetry.v2")
    deadline = min(time.monotonic() + RUN_DEADLINE, total_end)
    proc = subprocess.Popen([softrnic, "--config", path], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    ready = threading.Event()

    def reader():
        for line in proc.stdout:
            lines.append(line)
            if ready_text is not None and ready_text in line:
                ready.set()
        ready.set()                               # EOF: it exited

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    if ready_text is None:
        ready.set()
    clients = []
    try:
        # Bounded polls, no fixed sleeps: the daemon serves, the socket is
        # there, and both clients have been answered MIN_REPLIES times.
        if not ready.wait(max(0.0, deadline - time.monotonic())):
            check(False, "run %d: not serving within %.0f s" % (i, RUN_DEADLINE))
            return None
        while not os.path.exists(sock_path) and proc.poll() is None and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is not None:
            check(False, "run %d: exited early %s: %s" % (i, proc.returncode,
                                                           "".join(lines)[-500:]))
            return None
        if not os.path.exists(sock_path):
            return "skip"                         # serving, but no telemetry socket
        clients = [Client(sock_path, "/softrnic/qps"), Client(sock_path, "/softrnic/qp,17")]
        for c in clients:
            c.start()
        for c in clients:
            c.answered.wait(max(0.0, deadline - time.monotonic()))
        for c in clients:
            nulls = c.nulls
            check(nulls == 0 and c.replies >= MIN_REPLIES,
                  "run %d: client %s: %d answers, %d null" % (i, c.cmd, c.replies, nulls))
        # Stop it while both clients keep asking.
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            check(False, "run %d: no exit within %.0f s of start" % (i, RUN_DEADLINE))
        rt.join(5)
        out = "".join(lines)
        check(proc.returncode == 0 and "stats: port=p0" in out and "stats: port=p1" in out,
              "run %d: exit %s: %s" % (i, proc.returncode, out[-600:]))
    finally:
        for c in clients:
            c.stop = True
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in clients:
            c.join(5)
        shutil.rmtree(rundir, ignore_errors=True)


def perf_run(i):
    """rnic-perf write_bw to its end while both clients poll."""
    prefix = "rnicperfdown%d_%d" % (os.getpid(), i)
    rundir = rundir_of(prefix)
    sock_path = os.path.join(rundir, "dpdk_telemetry.v2")
    deadline = min(time.monotonic() + RUN_DEADLINE, total_end)
    proc = subprocess.Popen([rnic_perf, "--no-huge", "--no-pci", "-m", "256",
                             "--file-prefix=" + prefix, "--lcores=0@0,1@1",
                             "--log-level=*:warning", "--", "write_bw", "-n", "2000",
                             "-q", "2", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    clients = []
    try:
        while not os.path.exists(sock_path) and proc.poll() is None and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        if not os.path.exists(sock_path):
            if proc.poll() is None:
                return "skip"
            check(False, "perf run %d: exit %s before telemetry" % (i, proc.returncode))
            return None
        # The QPs' numbers are not known in advance: one client asks for
        # all of them, the other for the client port's page.
        clients = [Client(sock_path, "/softrnic/qps"), Client(sock_path, "/softrnic/qps,client")]
        for c in clients:
            c.start()
        try:
            out = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0]
            check(False, "perf run %d: no exit within %.0f s" % (i, RUN_DEADLINE))
        check(proc.returncode == 0, "perf run %d: exit %s: %s" % (i, proc.returncode,
                                                                  out[-600:]))
        check(any(c.replies > 0 for c in clients), "perf run %d: telemetry never answered" % i)
    finally:
        for c in clients:
            c.stop = True
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in clients:
            c.join(5)
        shutil.rmtree(rundir, ignore_errors=True)


start = time.monotonic()
total_end = start + TOTAL_DEADLINE
try:
    for i in range(runs):
        if time.monotonic() >= total_end:
            check(False, "only %d of %d runs within %.0f s" % (i, runs, TOTAL_DEADLINE))
            break
        if one_run(i) == "skip":
            print("SKIPPED: no telemetry socket under", rundir_of("rnicteldown"))
            sys.exit(77)
    print("softrnic: %d runs in %.1f s" % (runs, time.monotonic() - start))
    for i in range(perf_runs if rnic_perf else 0):
        if time.monotonic() >= total_end:
            check(False, "only %d of %d rnic-perf runs within %.0f s" %
                  (i, perf_runs, TOTAL_DEADLINE))
            break
        if perf_run(i) == "skip":
            print("SKIPPED: rnic-perf has no telemetry socket")
            sys.exit(77)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("%.1f s in all" % (time.monotonic() - start))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
