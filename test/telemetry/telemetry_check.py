#!/usr/bin/python3
# Starts softrnic in serve mode with telemetry on, queries every /softrnic
# endpoint over the DPDK telemetry socket (as dpdk-telemetry.py does), checks
# the answers, then stops softrnic with SIGTERM and checks a clean exit.
# Exit 77 (skip) when the telemetry runtime directory cannot be used.
import json, os, re, signal, socket, subprocess, sys, tempfile, time

softrnic = sys.argv[1]
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def macro_names(header, macro):
    """The names an X-macro lists: _(name) or _(NAME, "text")."""
    with open(os.path.join(src, header)) as f:
        text = f.read()
    body = re.search(r"#define " + macro + r"\(_\)((?:.*\\\n)*.*)", text).group(1)
    return re.findall(r"_\((\w+)", body)


# Every engine counter and every drop reason, from the headers that define
# them: each must be visible in /softrnic/stats (issue 8: every drop or
# error counted by reason and visible in telemetry).
counter_names = macro_names("lib/verbs/rnic_verbs.h", "RNIC_DEV_COUNTERS")
reason_names = ["drop_reason_" + n for n in
                macro_names("lib/wire/rnic_wire.h", "RNIC_PKT_ERRORS") if n != "OK"]
passed = failed = 0

def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)

prefix = "rnictel%d" % os.getpid()
cfg = {
    "eal": ["--no-huge", "--no-pci", "-m", "256", "--file-prefix=" + prefix,
            "--lcores=0@0,1@1,2@1"],
    "ports": [
        {"name": "p0", "ring_peer": "p1", "mac": "02:00:00:00:00:01", "ipv4": "10.0.0.1"},
        {"name": "p1", "ring_peer": "p0", "mac": "02:00:00:00:00:02", "ipv4": "10.0.0.2"}],
    "cqs": [{"name": "c0", "port": "p0"}, {"name": "c1", "port": "p1"}],
    "qps": [
        {"name": "a", "port": "p0", "type": "RC", "qpn": 17, "send_cq": "c0", "recv_cq": "c0",
         "remote": {"qp": "b"}, "sq_psn": 100},
        {"name": "b", "port": "p1", "type": "UC", "qpn": 18, "send_cq": "c1", "recv_cq": "c1",
         "state": "INIT"}],
    "options": {"stats_interval_ms": 0, "exit_when_done": False}}
# b is UC in INIT: a's remote must be the same type, so give a an address
cfg["qps"][0]["remote"] = {"mac": "02:00:00:00:00:02", "ipv4": "10.0.0.2", "qpn": 99}

tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "serve.json")
with open(path, "w") as f:
    json.dump(cfg, f)
rundir = "/var/run/dpdk/" + prefix if os.geteuid() == 0 else \
    os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk", prefix)
sock_path = os.path.join(rundir, "dpdk_telemetry.v2")

proc = subprocess.Popen([softrnic, "--config", path], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
deadline = time.monotonic() + 30
while not os.path.exists(sock_path) and proc.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)   # polling for the socket to appear, bounded
if not os.path.exists(sock_path):
    proc.kill()
    out = proc.communicate()[0]
    print(out[-2000:])
    print("SKIPPED: no telemetry socket at", sock_path)
    sys.exit(77)

def query(cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(sock_path)
    s.recv(4096)                      # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20).decode())
    s.close()
    return reply[cmd.split(",")[0]]

try:
    # The engine is up once its lcores report iterations.
    for _ in range(200):
        lc = query("/softrnic/lcores")
        if lc and all(any("iterations=" in r and not r.endswith("=0") for r in v)
                      for v in lc.values()):
            break
        time.sleep(0.05)
    qps = query("/softrnic/qps")
    check(qps == {"p0": [17], "p1": [18]}, "qps %r" % qps)
    qp = query("/softrnic/qp,17")
    check(qp is not None and qp["state"] == "RTS" and qp["type"] == "RC" and
          qp["port"] == "p0" and qp["dest_qpn"] == 99 and qp["sq_psn"] == 100 and
          qp["unacked_packets"] == 0, "qp,17 %r" % qp)
    qp = query("/softrnic/qp,p1:18")
    check(qp is not None and qp["state"] == "INIT" and qp["type"] == "UC", "qp,p1:18 %r" % qp)
    check(query("/softrnic/qp,p0:18") is None, "qp,p0:18 should not exist")
    check(query("/softrnic/qp,zz") is None, "qp,zz should be refused")
    st = query("/softrnic/stats")
    check(st is not None and "drop_reason_ICRC" in st and "tx_pkts" in st and
          st["drop_malformed"] == 0, "stats %r" % (st and list(st)[:5]))
    check(len(counter_names) > 30 and len(reason_names) > 15,
          "counter names from the headers: %r %r" % (counter_names, reason_names))
    port_names = ["port_rx_nombuf", "port_imissed", "port_ierrors",
                  "port_oerrors"]
    missing = [n for n in counter_names + reason_names + port_names
               if st is None or not isinstance(st.get(n), int)]
    check(not missing, "not in /softrnic/stats: %s" % ", ".join(missing))
    check(query("/softrnic/stats,p1") is not None, "stats,p1")
    check(query("/softrnic/stats,nope") is None, "stats,nope should be refused")
    lc = query("/softrnic/lcores")
    roles = sorted(r.split(" ")[0] for v in lc.values() for r in v)
    check(roles == ["p0:rx", "p0:timer", "p0:tx", "p1:rx", "p1:timer", "p1:tx"],
          "lcores %r" % lc)
finally:
    proc.send_signal(signal.SIGTERM)
    try:
        out = proc.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0]
        check(False, "softrnic did not stop on SIGTERM")
check(proc.returncode == 0, "softrnic exit %s: %s" % (proc.returncode, out[-500:]))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
