#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Traffic capture with dpdk-dumpcap and dpdk-pdump on softrnic's ports.

As root, with 2 MB hugepages (reserved for the run, touched once before
anything is timed, and given back at the end) and a hugetlbfs mount (an
existing one, else a private mount that is removed at the end), the test
runs the softrnic daemon as a DPDK primary with multi-process on. The
configuration is config/capture.json's topology (ring pair p0/p1 with RC,
UC and UD QPs) plus a second ring pair w0/w1, and a workload of its own:

  1. a warm-up: RC WRITE of 64 B on w0 -> w1 for WARMUP_MS. Nobody captures
     w0/w1; the warm-up only gives the capture tools time to attach before
     p0/p1 carry their first packet;
  2. every opcode once per size on p0 -> p1, each message verified: RC
     write, write_imm, read, send, send_imm, send_inv, cmp_swap, fetch_add,
     UC write, write_imm, send, send_imm, UD send, send_imm, at sizes 0, 1,
     PMTU and 4*PMTU+1 (UD up to the PMTU). A few hundred packets per port:
     fewer than the capture rings hold, so nothing can be dropped.

When the daemon logs the DPDK names of its ports ("capture: ports[0] "p0"
is DPDK port 0, -i net_ring_p0"), the test attaches, with the daemon's
--file-prefix,
  - dpdk-dumpcap -i net_ring_p0 -c CAP_LIMIT -w p0.pcapng  (pcapng, both
    directions), and
  - dpdk-pdump --pdump device_id=net_ring_p1,queue=*,rx-dev=...,tx-dev=...,
    total-num-mbufs=8191 (two pcap files),
each bounded; both tools stop by themselves when the primary exits. The
daemon's workload must verify without errors and the daemon must exit 0.
Then:
  - p0.pcapng holds exactly p0's tx_pkts + rx_pkts (the daemon's final
    counters), and p1's files exactly p1's rx_pkts and tx_pkts;
  - rnic-pcap on each file: every frame is RoCE, ICRC good, nothing
    malformed, and p0's capture holds every opcode the workload produces;
  - the frames p0 sent (dumpcap) are, byte for byte and in order, the frames
    p1 received (dpdk-pdump), and the other way round;
  - tshark (when installed) decodes every frame as InfiniBand over UDP 4791,
    with opcode, destination QP and PSN equal to the bytes on the wire and
    to rnic-pcap's decode, and no frame is malformed or carries an expert
    error.

Exit status: 0 pass, 1 fail, 77 skip: not root, no dpdk-dumpcap, or
hugepages / hugetlbfs unavailable (each says why).

usage: capture_check.py --softrnic PATH --rnic-pcap PATH --config PATH
                        [--dumpcap PATH] [--pdump PATH] [--tshark PATH]
"""
import argparse
import json
import mmap
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from roce_tshark import tshark_flags  # noqa: E402  (test/lib, plain Python)

WARMUP_MS = 4000          # time the capture tools get to attach
HUGEPAGES = 256           # 2 MB pages: 512 MB for the daemon and both tools
CAP_LIMIT = 100000        # dpdk-dumpcap -c: a bound; the run makes far fewer
PDUMP_MBUFS = 8191        # dpdk-pdump's pool (its default, 65535, is 150 MB)
ATTACH_S = 30             # bound on each tool's attach
RUN_S = 120               # bound on the daemon's run after attach
EXIT_S = 30               # bound on the tools noticing the primary's exit
HP_SYSFS = "/sys/kernel/mm/hugepages/hugepages-2048kB"

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, flush=True)


def skip(msg):
    print("SKIP: " + msg, flush=True)
    sys.exit(77)


# ---------------------------------------------------------------------------
# Processes whose output is read as it comes

class Proc:
    """A child whose stdout+stderr lines are collected by a thread."""

    def __init__(self, name, argv, cwd=None):
        self.name = name
        self.argv = argv
        self.lines = []
        self.cond = threading.Condition()
        self.done = False
        self.p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True,
                                  errors="replace", start_new_session=True)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.done = True
            self.cond.notify_all()

    def wait_for(self, regex, timeout):
        """First match of @regex among the lines, waiting at most @timeout
        seconds; None if the process ends or time runs out first."""
        r = re.compile(regex)
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for line in self.lines[seen:]:
                    m = r.search(line)
                    if m:
                        return m
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if self.done or left <= 0:
                    return None
                self.cond.wait(left)

    def wait(self, timeout):
        """Exit status, or None if still running after @timeout seconds."""
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self.t.join(timeout=10)
        return rc

    def stop(self):
        """SIGINT, then SIGKILL: for a child that outlived its bound."""
        if self.p.poll() is not None:
            return
        for sig, grace in ((signal.SIGINT, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                return
            if self.wait(grace) is not None:
                return

    def text(self):
        with self.cond:
            return "\n".join(self.lines)

    def tail(self, n=15):
        with self.cond:
            return "\n".join("    " + l for l in self.lines[-n:])


# ---------------------------------------------------------------------------
# Hugepages and hugetlbfs: take what is needed, give back what was taken

def default_2m():
    """Whether the default hugepage size (that of a mount without a
    pagesize option) is 2 MB."""
    with open("/proc/meminfo") as f:
        return any(re.match(r"Hugepagesize:\s+2048 kB", line) for line in f)


class Huge:
    def __init__(self):
        self.orig_nr = None
        self.mounted = None
        self.dir = None

    def _read(self, name):
        with open(os.path.join(HP_SYSFS, name)) as f:
            return int(f.read())

    def reserve(self, need):
        if not os.path.isdir(HP_SYSFS):
            skip(f"no 2 MB hugepage support ({HP_SYSFS} is missing)")
        free = self._read("free_hugepages")
        if free >= need:
            print(f"hugepages: {free} free 2 MB pages, none reserved")
            return
        nr = self._read("nr_hugepages")
        try:
            with open(os.path.join(HP_SYSFS, "nr_hugepages"), "w") as f:
                f.write(str(nr + need - free))
            self.orig_nr = nr
        except OSError as exc:
            skip(f"cannot reserve hugepages: writing {HP_SYSFS}/nr_hugepages: {exc}")
        got = self._read("free_hugepages")
        if got < need:
            skip(f"cannot reserve hugepages: {got} of {need} free 2 MB pages "
                 f"after raising nr_hugepages to {nr + need - free} (memory "
                 f"too fragmented or too small)")
        print(f"hugepages: nr_hugepages {nr} -> {nr + need - free} "
              f"({got} free 2 MB pages)")

    def mount(self, tmp):
        with open("/proc/mounts") as f:
            for line in f:
                dev, mnt, fstype, opts = line.split()[:4]
                if fstype == "hugetlbfs" and ("pagesize=2M" in opts or
                                              ("pagesize" not in opts and
                                               default_2m())):
                    self.dir = mnt.replace("\\040", " ")
                    print(f"hugetlbfs: using the existing mount {self.dir}")
                    return
        d = os.path.join(tmp, "huge")
        os.mkdir(d)
        r = subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M",
                            "nodev", d], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            skip(f"no hugetlbfs mounted and mounting one at {d} failed: "
                 f"{r.stderr.strip()}")
        self.mounted = self.dir = d
        print(f"hugetlbfs: mounted at {d}")

    def prefault(self, prefix, pages):
        """Touch @pages free 2 MB pages once through a file in the mount,
        then remove it. Under a hypervisor, the first touch of guest memory
        that the host has not backed (or has taken back while the machine
        was idle) can cost 20 ms a page: 5 s for 512 MB, measured on a KVM
        guest. Paid here, before anything is timed; without it, it lands in
        dpdk-pdump's mempool creation, and the daemon's warm-up can end
        before dpdk-pdump has attached."""
        path = os.path.join(self.dir, prefix + "-prefault")
        t = time.monotonic()
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError as exc:
            print(f"hugepages: no prefault ({path}: {exc})")
            return
        try:
            os.ftruncate(fd, pages << 21)
            m = mmap.mmap(fd, pages << 21)
            try:
                for i in range(pages):
                    m[i << 21] = 0
            finally:
                m.close()
            print(f"hugepages: {pages} pages touched once in "
                  f"{time.monotonic() - t:.2f} s")
        except (OSError, ValueError) as exc:
            print(f"hugepages: prefault of {pages} pages failed: {exc}")
        finally:
            os.close(fd)
            os.unlink(path)

    def release(self, prefix):
        if self.dir and not self.mounted:
            # An existing mount: remove the files of this run's prefix.
            for n in os.listdir(self.dir):
                if n.startswith(prefix):
                    try:
                        os.unlink(os.path.join(self.dir, n))
                    except OSError:
                        pass
        if self.mounted:
            r = subprocess.run(["umount", self.mounted], capture_output=True,
                               text=True, timeout=30)
            if r.returncode != 0:
                print(f"warning: umount {self.mounted}: {r.stderr.strip()}")
        if self.orig_nr is not None:
            try:
                with open(os.path.join(HP_SYSFS, "nr_hugepages"), "w") as f:
                    f.write(str(self.orig_nr))
                print(f"hugepages: nr_hugepages back to {self.orig_nr}")
            except OSError as exc:
                print(f"warning: cannot restore nr_hugepages to {self.orig_nr}: {exc}")


# ---------------------------------------------------------------------------
# The run's configuration

SIZES = [0, 1, 1024, 4097]          # ONLY, ONLY, ONLY at the PMTU, FIRST..LAST
RC_OPS = ["write", "write_imm", "read", "send", "send_imm", "send_inv",
          "cmp_swap", "fetch_add"]
UC_OPS = ["write", "write_imm", "send", "send_imm"]
UD_OPS = ["send", "send_imm"]

# What p0 sends and receives under that workload (rnic-pcap's names).
_RCUC = ["SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE",
         "SEND_ONLY", "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST",
         "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMMEDIATE",
         "RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMMEDIATE"]
EXPECTED_OPCODES = set(
    ["RC_" + n for n in _RCUC] + ["UC_" + n for n in _RCUC] +
    ["RC_RDMA_READ_REQUEST", "RC_RDMA_READ_RESPONSE_FIRST",
     "RC_RDMA_READ_RESPONSE_MIDDLE", "RC_RDMA_READ_RESPONSE_LAST",
     "RC_RDMA_READ_RESPONSE_ONLY", "RC_ACKNOWLEDGE", "RC_ATOMIC_ACKNOWLEDGE",
     "RC_CMP_SWAP", "RC_FETCH_ADD", "RC_SEND_LAST_WITH_INVALIDATE",
     "RC_SEND_ONLY_WITH_INVALIDATE", "UD_SEND_ONLY", "UD_SEND_ONLY_WITH_IMMEDIATE"])

# IBA table 38: the opcode byte of each name (transport in the top 3 bits).
_LOW = {n: i for i, n in enumerate(_RCUC)}
_LOW.update({"RDMA_READ_REQUEST": 0x0C, "RDMA_READ_RESPONSE_FIRST": 0x0D,
             "RDMA_READ_RESPONSE_MIDDLE": 0x0E, "RDMA_READ_RESPONSE_LAST": 0x0F,
             "RDMA_READ_RESPONSE_ONLY": 0x10, "ACKNOWLEDGE": 0x11,
             "ATOMIC_ACKNOWLEDGE": 0x12, "CMP_SWAP": 0x13, "FETCH_ADD": 0x14,
             "SEND_LAST_WITH_INVALIDATE": 0x16, "SEND_ONLY_WITH_INVALIDATE": 0x17})
_XPORT = {"RC": 0x00, "UC": 0x20, "UD": 0x60}


def opcode_of(name):
    t, _, low = name.partition("_")
    if t not in _XPORT or low not in _LOW:
        return None
    return _XPORT[t] | _LOW[low]


# Where an ASan primary puts its hugepage memory: a secondary maps it at the
# same addresses, and DPDK's default hint (4 GiB) lies in ASan's shadow gap,
# so an ASan build would land wherever mmap puts it, near the libraries,
# where a secondary often has something mapped already ("Cannot reserve ...
# please use '--base-virtaddr'"). 32 TiB is application memory for ASan and
# free in an ordinary process.
ASAN_BASE_VIRTADDR = "0x200000000000"


def is_asan(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def make_config(base, prefix, huge_dir, asan):
    cfg = json.loads(json.dumps(base))
    lcores = [a for a in cfg["eal"] if a.startswith("--lcores")]
    cfg["eal"] = ["--no-pci", "--file-prefix=" + prefix, "--huge-dir=" + huge_dir,
                  "--no-telemetry"] + (lcores or ["--lcores=0@0,1@1,2@1"])
    if asan:
        cfg["eal"].append("--base-virtaddr=" + ASAN_BASE_VIRTADDR)
    ports = {p["name"] for p in cfg["ports"]}
    if not {"p0", "p1"} <= ports:
        raise SystemExit(f"{base}: the capture test needs ports p0 and p1")
    cfg["ports"] += [
        {"name": "w0", "ring_peer": "w1", "mac": "02:00:00:00:0f:01", "ipv4": "10.0.15.1"},
        {"name": "w1", "ring_peer": "w0", "mac": "02:00:00:00:0f:02", "ipv4": "10.0.15.2"}]
    cfg["lcores"] += [{"lcore": 1, "port": "w0", "roles": "all"},
                      {"lcore": 2, "port": "w1", "roles": "all"}]
    cfg["mrs"] += [
        {"name": "warm_a_buf", "port": "w0", "size": 4096, "access": ["local_write"]},
        {"name": "warm_b_buf", "port": "w1", "size": 4096,
         "access": ["local_write", "remote_write"]}]
    cfg["cqs"] += [{"name": "cq_w0", "port": "w0", "depth": 1024},
                   {"name": "cq_w1", "port": "w1", "depth": 1024}]
    cfg["qps"] += [
        {"name": "warm_a", "port": "w0", "type": "RC", "send_cq": "cq_w0",
         "recv_cq": "cq_w0", "remote": {"qp": "warm_b"}},
        {"name": "warm_b", "port": "w1", "type": "RC", "send_cq": "cq_w1",
         "recv_cq": "cq_w1", "remote": {"qp": "warm_a"}, "access": ["remote_write"]}]
    work = [{"qp": "warm_a", "opcode": "write", "size": 64, "duration_ms": WARMUP_MS,
             "local_mr": "warm_a_buf", "remote_mr": "warm_b_buf"}]
    for qp, ops, sizes in (("rc_a", RC_OPS, SIZES), ("uc_a", UC_OPS, SIZES),
                           ("ud_a", UD_OPS, [s for s in SIZES if s <= 1024])):
        for op in ops:
            e = {"qp": qp, "opcode": op, "count": 2,
                 "local_mr": qp + "_buf", "remote_mr": qp[:-1] + "b_buf"}
            if op == "send_inv":
                e["remote_mr"] = "rc_b_inv"
            if op in ("cmp_swap", "fetch_add"):
                e["count"] = 4
            else:
                e["sizes"] = sizes
            work.append(e)
    cfg["workload"] = work
    cfg["options"] = {"stats_interval_ms": 0, "exit_when_done": True,
                      "timeout_s": RUN_S}
    return cfg


# ---------------------------------------------------------------------------
# Reading captures (no scapy needed)

def read_pcap(path):
    """-> [frame bytes] of a libpcap file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: {len(data)} bytes, no pcap header")
    magic = struct.unpack_from("<I", data)[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack_from(e + "IIII", data, off)
        if incl != orig:
            raise ValueError(f"{path}: frame {len(out) + 1} truncated ({incl} of {orig})")
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def read_pcapng(path):
    """-> [frame bytes] of the Enhanced Packet Blocks of a pcapng file."""
    with open(path, "rb") as f:
        data = f.read()
    off, out, e = 0, [], "<"
    while off + 12 <= len(data):
        btype = struct.unpack_from(e + "I", data, off)[0]
        if btype == 0x0A0D0D0A:   # section header: its byte order
            e = "<" if struct.unpack_from("<I", data, off + 8)[0] == 0x1A2B3C4D else ">"
        blen = struct.unpack_from(e + "I", data, off + 4)[0]
        if blen < 12 or off + blen > len(data):
            raise ValueError(f"{path}: bad block length {blen} at offset {off}")
        if btype == 6:
            caplen, orig = struct.unpack_from(e + "II", data, off + 20)
            if caplen != orig:
                raise ValueError(f"{path}: frame {len(out) + 1} truncated "
                                 f"({caplen} of {orig})")
            out.append(data[off + 28:off + 28 + caplen])
        off += blen
    return out


def wire_fields(frame):
    """(opcode, dqpn, psn, destination IPv4) of an untagged RoCEv2 frame."""
    if len(frame) < 54 or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 0x0F) * 4
    bth = 14 + ihl + 8
    dip = ".".join(str(b) for b in frame[30:34])
    return (frame[bth], int.from_bytes(frame[bth + 5:bth + 8], "big"),
            int.from_bytes(frame[bth + 9:bth + 12], "big") & 0xFFFFFF, dip)


def rnic_pcap(tool, path):
    """-> ([(name, dqpn, psn, icrc)] per frame, summary dict)."""
    r = subprocess.run([tool, path], capture_output=True, text=True, timeout=120)
    frames, summary = [], None
    for line in r.stdout.splitlines():
        if line.startswith("summary: "):
            summary = dict(kv.split("=") for kv in line[9:].split())
            summary = {k: int(v) for k, v in summary.items()}
            continue
        tok = line.split()
        kv = dict(t.split("=", 1) for t in tok[2:] if "=" in t and "(" not in t)
        frames.append((tok[1], int(kv.get("dqpn", "-1"), 0),
                       int(kv.get("psn", "-1"), 0), kv.get("icrc")))
    if r.returncode != 0 or summary is None:
        fail(f"rnic-pcap {path}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    return frames, summary or {}


# ---------------------------------------------------------------------------
# tshark

def check_tshark(tshark, flags, label, path, frames, ours):
    r = subprocess.run([tshark] + flags + [
        "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f",
        "-e", "frame.number", "-e", "udp.dstport", "-e", "infiniband.bth.opcode",
        "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"],
        capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"tshark {label}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
        return
    rows = [l.split("\t") for l in r.stdout.splitlines()]
    if len(rows) != len(frames):
        fail(f"tshark {label}: {len(rows)} frames, the file has {len(frames)}")
    bad = 0
    for i, (row, raw) in enumerate(zip(rows, frames)):
        w = wire_fields(raw)
        try:
            got = (int(row[2]), int(row[3], 16), int(row[4]))
        except (ValueError, IndexError):
            got = None
        if row[1:2] != ["4791"] or got is None or w is None or got != w[:3]:
            bad += 1
            if bad <= 5:
                fail(f"tshark {label} frame {i + 1}: udp.dstport/opcode/dqpn/psn "
                     f"{row[1:]} vs the wire {w[:3] if w else None}")
        elif i < len(ours) and opcode_of(ours[i][0]) != got[0]:
            bad += 1
            if bad <= 5:
                fail(f"tshark {label} frame {i + 1}: opcode {got[0]:#x}, rnic-pcap "
                     f"says {ours[i][0]}")
    r = subprocess.run([tshark] + flags + [
        "-r", path, "-Y", "_ws.malformed || _ws.expert.severity >= error"],
        capture_output=True, text=True, timeout=300)
    badlines = [l for l in r.stdout.splitlines() if l.strip()]
    if r.returncode != 0 or badlines:
        fail(f"tshark {label}: {len(badlines)} malformed or expert-error frames: "
             f"{badlines[:3]} {r.stderr.strip()[-200:]}")
    if not bad and r.returncode == 0 and not badlines:
        print(f"tshark {label}: {len(rows)} frames decoded as InfiniBand on UDP 4791, "
              "fields equal to the wire and rnic-pcap, none malformed")


# ---------------------------------------------------------------------------

def daemon_end(d):
    """The daemon's last lines, when it has exited."""
    if d.p.poll() is None:
        return ""
    return f"\nthe daemon exited {d.p.returncode}:\n{d.tail(25)}"


def stats_of(out):
    st = {}
    for m in re.finditer(r"^stats: port=(\S+) tx_pkts=(\d+) rx_pkts=(\d+)", out, re.M):
        st[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return st


def check_file(args, label, path, reader, want_frames):
    """rnic-pcap's verdict on one capture; -> (raw frames, rnic-pcap frames)."""
    if not os.path.exists(path):
        fail(f"{label}: {path} was not written")
        return [], []
    try:
        raw = reader(path)
    except ValueError as exc:
        fail(f"{label}: {exc}")
        return [], []
    ours, s = rnic_pcap(args.rnic_pcap, path)
    n = len(raw)
    want = {"frames": n, "roce": n, "icrc_ok": n, "icrc_bad": 0, "malformed": 0,
            "other": 0}
    if s != want:
        fail(f"rnic-pcap {label}: {s}, expected {want}")
    if n != want_frames:
        fail(f"{label}: {n} frames, the daemon's counters say {want_frames}"
             + (" (the tool attached after the port's traffic began: the "
                f"{WARMUP_MS} ms warm-up was too short?)" if n < want_frames else ""))
    if s == want and n == want_frames:
        print(f"rnic-pcap {label}: frames={n} (= the daemon's counters), all RoCE, "
              "ICRC good, none malformed")
    return raw, ours


def run(args, tmp, huge, prefix):
    with open(args.config) as f:
        base = json.load(f)
    asan = is_asan(args.softrnic)
    if asan:
        print(f"softrnic is an ASan build: --base-virtaddr={ASAN_BASE_VIRTADDR}")
    cfg = make_config(base, prefix, huge.dir, asan)
    cfg_path = os.path.join(tmp, "capture-run.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    p0_file = os.path.join(tmp, "p0.pcapng")
    p1_rx, p1_tx = os.path.join(tmp, "p1-rx.pcap"), os.path.join(tmp, "p1-tx.pcap")
    procs = []
    try:
        d = Proc("softrnic", [args.softrnic, "--config", cfg_path], cwd=tmp)
        procs.append(d)
        m = d.wait_for(r'capture: ports\[\d+\] "p1" is DPDK port \d+, -i (\S+)|'
                       r'capture: not available: .*', ATTACH_S)
        if m is None or m.group(1) is None:
            fail("the daemon did not log its capture port names within "
                 f"{ATTACH_S} s: {m.group(0) if m else 'nothing'}\n{d.tail()}")
            return
        t_ports = time.monotonic()
        names = dict(re.findall(r'capture: ports\[\d+\] "(\w+)" is DPDK port \d+, '
                                r'-i (\S+)', d.text()))
        avail = d.wait_for(r"capture: available.*", 1)
        print(f"softrnic: {avail.group(0) if avail else '(no capture: available line)'}")
        print(f"softrnic: p0 is {names['p0']}, p1 is {names['p1']}")

        stdbuf = ["stdbuf", "-oL"]   # their "capturing" lines go to stdout
        dc = Proc("dpdk-dumpcap", stdbuf + [
            args.dumpcap, "--file-prefix=" + prefix, "-q", "-i", names["p0"],
            "-c", str(CAP_LIMIT), "-w", p0_file], cwd=tmp)
        procs.append(dc)
        if dc.wait_for(r"Capturing on '%s'" % re.escape(names["p0"]), ATTACH_S) is None:
            fail(f"dpdk-dumpcap did not start capturing within {ATTACH_S} s"
                 + (" (the daemon had already exited)" if d.p.poll() is not None
                    else "") + f":\n{dc.tail()}" + daemon_end(d))
            return
        print(f"dpdk-dumpcap: capturing on {names['p0']} into p0.pcapng "
              f"({time.monotonic() - t_ports:.2f} s after the daemon named its ports; "
              f"the warm-up lasts {WARMUP_MS / 1000:g} s)")
        pd = None
        if args.pdump:
            pd = Proc("dpdk-pdump", stdbuf + [
                args.pdump, "--file-prefix=" + prefix, "--", "--pdump",
                f"device_id={names['p1']},queue=*,rx-dev={p1_rx},tx-dev={p1_tx},"
                f"total-num-mbufs={PDUMP_MBUFS}"],
                cwd=tmp)
            procs.append(pd)
            if pd.wait_for(r"capture for \(1\) tuples", ATTACH_S) is None:
                fail(f"dpdk-pdump did not start capturing within {ATTACH_S} s"
                     + (" (the daemon had already exited)" if d.p.poll() is not None
                        else "") + f":\n{pd.tail()}" + daemon_end(d))
                return
            print(f"dpdk-pdump: capturing on {names['p1']} into p1-rx.pcap, p1-tx.pcap "
                  f"({time.monotonic() - t_ports:.2f} s after)")
        else:
            print("dpdk-pdump: SKIPPED (not installed)")

        rc = d.wait(RUN_S + WARMUP_MS / 1000)
        out = d.text()
        if rc is None:
            fail(f"the daemon did not finish within {RUN_S} s:\n{d.tail()}")
            return
        verified = re.search(r"^verified: messages=(\d+) bytes=\d+ errors=(\d+)$", out, re.M)
        if rc != 0 or not verified or verified.group(2) != "0":
            fail(f"softrnic exited {rc}:\n{d.tail(25)}")
        else:
            print(f"softrnic: exit 0, {verified.group(0)}")
        st = stats_of(out)
        for t in (dc, pd):
            if t is None:
                continue
            trc = t.wait(EXIT_S)
            if trc is None:
                fail(f"{t.name} was still running {EXIT_S} s after the primary exited:"
                     f"\n{t.tail()}")
                t.stop()
            elif trc != 0:
                fail(f"{t.name} exited {trc}:\n{t.tail()}")
            elif "Primary process is no longer active" not in t.text():
                fail(f"{t.name} ended before the primary did:\n{t.tail()}")
        if "p0" not in st or "p1" not in st:
            fail(f"no final stats lines for p0 and p1:\n{d.tail(25)}")
            return
    finally:
        for p in procs:
            p.stop()

    (t0, r0), (t1, r1) = st["p0"], st["p1"]
    raw0, ours0 = check_file(args, "p0.pcapng (dpdk-dumpcap)", p0_file, read_pcapng,
                             t0 + r0)
    names0 = {f[0] for f in ours0}
    missing = EXPECTED_OPCODES - names0
    if missing and ours0:
        fail(f"p0.pcapng lacks opcodes {sorted(missing)}")
    elif ours0:
        print(f"rnic-pcap p0.pcapng: all {len(EXPECTED_OPCODES)} opcodes of the "
              f"workload present: {len(names0)} distinct")
    for i, (f, raw) in enumerate(zip(ours0, raw0)):
        w = wire_fields(raw)
        if w is None or (opcode_of(f[0]), f[1], f[2]) != w[:3]:
            fail(f"p0.pcapng frame {i + 1}: rnic-pcap {f} vs the wire {w}")
            break
    if args.pdump:
        rx1, ours_rx1 = check_file(args, "p1-rx.pcap (dpdk-pdump)", p1_rx, read_pcap, r1)
        tx1, ours_tx1 = check_file(args, "p1-tx.pcap (dpdk-pdump)", p1_tx, read_pcap, t1)
        ip1 = next(p["ipv4"] for p in cfg["ports"] if p["name"] == "p1")
        sent0 = [f for f in raw0 if (wire_fields(f) or (0, 0, 0, ""))[3] == ip1]
        recv0 = [f for f in raw0 if (wire_fields(f) or (0, 0, 0, ""))[3] != ip1]
        for what, a, b in (("p0 sent / p1 received", sent0, rx1),
                           ("p1 sent / p0 received", tx1, recv0)):
            if a != b:
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                             min(len(a), len(b)))
                fail(f"{what}: dpdk-dumpcap and dpdk-pdump disagree: {len(a)} vs "
                     f"{len(b)} frames, first difference at frame {first + 1}")
            else:
                print(f"{what}: {len(a)} frames, identical byte for byte in both "
                      "captures")
    if args.tshark:
        flags = tshark_flags(args.tshark, p0_file)
        todo = [("p0.pcapng", p0_file, raw0, ours0)]
        if args.pdump:
            todo += [("p1-rx.pcap", p1_rx, rx1, ours_rx1),
                     ("p1-tx.pcap", p1_tx, tx1, ours_tx1)]
        for label, path, raw, ours in todo:
            if raw:
                check_tshark(args.tshark, flags, label, path, raw, ours)
    else:
        print("tshark: SKIPPED (not installed)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--softrnic", required=True)
    ap.add_argument("--rnic-pcap", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--dumpcap", default="")
    ap.add_argument("--pdump", default="")
    ap.add_argument("--tshark", default="")
    args = ap.parse_args()
    args.softrnic = os.path.abspath(args.softrnic)
    args.rnic_pcap = os.path.abspath(args.rnic_pcap)
    args.config = os.path.abspath(args.config)
    args.dumpcap = args.dumpcap or shutil.which("dpdk-dumpcap") or ""
    args.pdump = args.pdump or shutil.which("dpdk-pdump") or ""
    if os.geteuid() != 0:
        skip("needs root (reserves hugepages, mounts hugetlbfs, and DPDK "
             "multi-process runs under /var/run/dpdk)")
    if not args.dumpcap:
        skip("dpdk-dumpcap is not installed (Debian package dpdk-dev)")
    if not shutil.which("stdbuf"):
        skip("stdbuf (coreutils) is missing: the capture tools' progress lines "
             "would only show when they exit")
    # meson's timeout sends SIGTERM: clean up on the way out.
    signal.signal(signal.SIGTERM, lambda s, f: sys.exit(1))
    prefix = f"rnic-capture-{os.getpid()}"
    huge = Huge()
    tmp = tempfile.mkdtemp(prefix="rnic-capture.")
    try:
        huge.reserve(HUGEPAGES)
        huge.mount(tmp)
        huge.prefault(prefix, HUGEPAGES)
        run(args, tmp, huge, prefix)
    finally:
        huge.release(prefix)
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
        if failures:
            print(f"(files kept in {tmp})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
