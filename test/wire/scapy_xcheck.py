#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cross-check the RoCEv2 wire library against scapy and tshark.

(a) scapy builds a frame of every opcode of our opcode table (IBA table 38
    plus CNP), at several payload sizes, some with 802.1Q, and computes the
    ICRC; rnic-pcap must decode each one with the same opcode name, BTH
    fields and extended-header fields, and icrc=ok. scapy.contrib.roce has
    BTH, AETH and the CNP padding only: RETH, AtomicETH, AtomicAckETH, DETH,
    ImmDt and IETH come from test/lib/roce_scapy.py, and the
    SEND_*_WITH_INVALIDATE opcodes (0x16, 0x17) that scapy's table lacks
    are plain opcode numbers. scapy's BTH computes the ICRC over the BTH's
    payload, so the extended headers, the payload and the zero pad are all
    layered under BTH (pad count set by hand). Two corrupted frames must
    decode with icrc=bad.
(b) rnic-wire-gen --clean: scapy dissects every frame, recomputes its ICRC
    and must agree with the bytes on the wire; its own decode of BTH and
    the extended headers must agree with rnic-pcap's. On the full capture
    scapy's ICRC verdict must match rnic-pcap's for every RoCE frame.
IPv6 (issue 21): every third scapy frame of (a) and rnic-wire-gen's IPv6
frames are RoCEv2 over IPv6. scapy's roce layer computes the ICRC over
IPv4 only, so for IPv6 the ICRC comes from test/lib/roce_scapy.py's
icrc_ipv6(), written from
annex A17 (traffic class, flow label, hop limit, UDP checksum and the BTH
FECN/BECN byte masked to ones); scapy's and tshark's dissection of the
IPv6 header must agree with what rnic-pcap prints.
(c) tshark (skipped with a message if absent) dissects both captures: no
    frame may be malformed or carry an expert error, and its opcode, QPN,
    PSN and extended-header fields must match ours for every frame.

usage: scapy_xcheck.py --rnic-pcap PATH --gen PATH [--tshark PATH]
Exit status: 0 pass, 1 fail, 77 skip (scapy missing).
"""
import argparse
import ipaddress
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))

try:
    from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw, rdpcap, wrpcap, \
        conf as scapy_conf
    from scapy.contrib.roce import BTH, AETH, CNPPadding, \
        _bth_opcodes as SCAPY_OPCODES
    # The extended headers scapy.contrib.roce does not define (IBA 9.3).
    from roce_scapy import RETH, AtomicETH, AtomicAckETH, DETH, ImmDt, IETH, \
        icrc_ipv6
except ImportError as exc:
    print(f"SKIP: scapy is not available ({exc}); install python3-scapy")
    sys.exit(77)

from roce_tshark import tshark_flags  # noqa: E402


# scapy's AETH, under a name that reads as one of ours in the table below.
AETH_ = AETH

# ---------------------------------------------------------------------------
# Our opcode table, written out from IBA vol. 1 table 38: name (as
# rnic-pcap prints it), extended headers in wire order, carries payload.

_RCUC = [
    (0x00, "SEND_FIRST", [], True),
    (0x01, "SEND_MIDDLE", [], True),
    (0x02, "SEND_LAST", [], True),
    (0x03, "SEND_LAST_WITH_IMMEDIATE", [ImmDt], True),
    (0x04, "SEND_ONLY", [], True),
    (0x05, "SEND_ONLY_WITH_IMMEDIATE", [ImmDt], True),
    (0x06, "RDMA_WRITE_FIRST", [RETH], True),
    (0x07, "RDMA_WRITE_MIDDLE", [], True),
    (0x08, "RDMA_WRITE_LAST", [], True),
    (0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", [ImmDt], True),
    (0x0a, "RDMA_WRITE_ONLY", [RETH], True),
    (0x0b, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", [RETH, ImmDt], True),
]
_RC_ONLY = [
    (0x0c, "RDMA_READ_REQUEST", [RETH], False),
    (0x0d, "RDMA_READ_RESPONSE_FIRST", [AETH_], True),
    (0x0e, "RDMA_READ_RESPONSE_MIDDLE", [], True),
    (0x0f, "RDMA_READ_RESPONSE_LAST", [AETH_], True),
    (0x10, "RDMA_READ_RESPONSE_ONLY", [AETH_], True),
    (0x11, "ACKNOWLEDGE", [AETH_], False),
    (0x12, "ATOMIC_ACKNOWLEDGE", [AETH_, AtomicAckETH], False),
    (0x13, "CMP_SWAP", [AtomicETH], False),
    (0x14, "FETCH_ADD", [AtomicETH], False),
    (0x16, "SEND_LAST_WITH_INVALIDATE", [IETH], True),
    (0x17, "SEND_ONLY_WITH_INVALIDATE", [IETH], True),
]

OPCODES = {}  # opcode -> (name, [ext classes], payload)
for _op, _n, _x, _p in _RCUC:
    OPCODES[0x00 | _op] = ("RC_" + _n, _x, _p)
    OPCODES[0x20 | _op] = ("UC_" + _n, _x, _p)
for _op, _n, _x, _p in _RC_ONLY:
    OPCODES[_op] = ("RC_" + _n, _x, _p)
OPCODES[0x64] = ("UD_SEND_ONLY", [DETH], True)
OPCODES[0x65] = ("UD_SEND_ONLY_WITH_IMMEDIATE", [DETH, ImmDt], True)
OPCODES[0x81] = ("CNP", [CNPPadding], False)
BY_NAME = {v[0]: k for k, v in OPCODES.items()}

# Our names for scapy's where they differ.
SCAPY_NAME = {"RC_COMPARE_SWAP": "RC_CMP_SWAP"}
SIZES = [0, 1, 3, 4, 5, 64, 1000]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


# ---------------------------------------------------------------------------
# Helpers

def ext_fields(cls, h):
    """The rnic-pcap keys an extended header instance should produce."""
    if cls is RETH:
        return {"reth.va": h.va, "reth.rkey": h.rkey, "reth.len": h.dlen}
    if cls is AtomicETH:
        return {"atomiceth.va": h.va, "atomiceth.rkey": h.rkey,
                "atomiceth.swap_add": h.swap_add, "atomiceth.cmp": h.cmp}
    if cls is AETH_:
        return {"aeth.syndrome": h.syndrome, "aeth.msn": h.msn}
    if cls is AtomicAckETH:
        return {"atomicacketh.orig": h.orig}
    if cls is DETH:
        return {"deth.qkey": h.qkey, "deth.sqp": h.sqp}
    if cls is ImmDt:
        return {"immdt": h.imm}
    if cls is IETH:
        return {"ieth.rkey": h.rkey}
    return {}  # CNP reserved bytes: not printed


def random_ext(cls, rnd, plen):
    if cls is RETH:
        return RETH(va=rnd.getrandbits(64), rkey=rnd.getrandbits(32),
                    dlen=plen or rnd.getrandbits(31))
    if cls is AtomicETH:
        return AtomicETH(va=rnd.getrandbits(61) << 3, rkey=rnd.getrandbits(32),
                         swap_add=rnd.getrandbits(64), cmp=rnd.getrandbits(64))
    if cls is AETH_:
        return AETH_(syndrome=rnd.getrandbits(8), msn=rnd.getrandbits(24))
    if cls is AtomicAckETH:
        return AtomicAckETH(orig=rnd.getrandbits(64))
    if cls is DETH:
        return DETH(qkey=rnd.getrandbits(32), sqp=rnd.getrandbits(24))
    if cls is ImmDt:
        return ImmDt(imm=rnd.getrandbits(32))
    if cls is IETH:
        return IETH(rkey=rnd.getrandbits(32))
    return CNPPadding()


def ipv6_fields(p):
    """rnic-pcap's ipv6(...) keys from scapy's dissection of @p."""
    ip6 = p[IPv6]
    return {"ipv6.src": ipaddress.IPv6Address(ip6.src).compressed,
            "ipv6.dst": ipaddress.IPv6Address(ip6.dst).compressed,
            "ipv6.tclass": ip6.tc, "ipv6.flow": ip6.fl, "ipv6.hlim": ip6.hlim}


def parse_rnic_pcap(out):
    """rnic-pcap lines -> {frame number: dict}, and the summary line."""
    frames, summary = {}, None
    for line in out.splitlines():
        if line.startswith("summary: "):
            summary = line[len("summary: "):]
            continue
        toks = line.split()
        num = int(toks[0])
        if toks[1] in ("other:", "malformed:"):
            frames[num] = {"kind": toks[1][:-1], "text": line}
            continue
        d = {"kind": "roce", "name": toks[1], "text": line}
        for t in toks[2:]:
            m = re.fullmatch(r"(\w+)\((.*)\)", t)
            if m:
                for kv in m.group(2).split(","):
                    k, v = kv.split("=")
                    try:
                        d[m.group(1) + "." + k] = int(v, 0)
                    except ValueError:   # an IPv6 address
                        d[m.group(1) + "." + k] = v
            else:
                k, v = t.split("=")
                d[k] = v if k == "icrc" else int(v, 0)
        frames[num] = d
    return frames, summary


def run_rnic_pcap(tool, path):
    r = subprocess.run([tool, path], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        fail(f"rnic-pcap {path}: exit {r.returncode}: {r.stderr.strip()}")
        return {}, None
    return parse_rnic_pcap(r.stdout)


def expected_of(p):
    """What rnic-pcap should print for scapy packet @p (built, not raw)."""
    b = p[BTH]
    opc = b.opcode
    name, exts, _ = OPCODES[opc]
    d = {"name": name, "dqpn": b.dqpn, "psn": b.psn, "se": b.solicited,
         "ackreq": b.ackreq, "mig": b.migreq, "pad": b.padcount,
         "pkey": b.pkey, "fecn": b.fecn, "becn": b.becn,
         "sport": p[UDP].sport}
    layer = b.payload
    for cls in exts:
        d.update(ext_fields(cls, layer[cls]))
    if IPv6 in p:
        d.update(ipv6_fields(p))
    return d


def compare(where, want, got):
    if got.get("kind") != "roce":
        fail(f"{where}: not decoded as RoCE: {got.get('text')}")
        return
    for k, v in want.items():
        if got.get(k) != v:
            fail(f"{where}: {k}: rnic-pcap {got.get(k)!r}, expected {v!r}"
                 f" -- {got['text']}")
    extra = {k for k in got if "." in k or k == "immdt"} - set(want)
    if extra:
        fail(f"{where}: unexpected fields {sorted(extra)} -- {got['text']}")


# ---------------------------------------------------------------------------
# (a) scapy builds, rnic-pcap decodes

def part_a(tool, tmp):
    rnd = random.Random(4791)
    pkts, wants = [], []
    # scapy's own table must agree with ours where it has the opcode.
    for opc, sname in SCAPY_OPCODES.items():
        sname = SCAPY_NAME.get(sname, sname)
        if opc in OPCODES and OPCODES[opc][0] != sname:
            fail(f"(a) opcode 0x{opc:02x}: scapy {sname}, "
                 f"ours {OPCODES[opc][0]}")
    missing = sorted(f"0x{o:02x}" for o in OPCODES if o not in SCAPY_OPCODES)
    print(f"(a) opcodes scapy's table lacks, built as numbers: {missing}")

    for opc in sorted(OPCODES):
        name, exts, has_payload = OPCODES[opc]
        for plen in SIZES if has_payload else [0]:
            i = len(pkts)
            pad = (4 - plen % 4) % 4
            bth = BTH(opcode=opc, solicited=rnd.getrandbits(1),
                      migreq=rnd.getrandbits(1), padcount=pad, version=0,
                      pkey=rnd.getrandbits(16), fecn=rnd.getrandbits(1),
                      becn=rnd.getrandbits(1), dqpn=rnd.getrandbits(24),
                      ackreq=rnd.getrandbits(1), psn=rnd.getrandbits(24))
            stack = bth
            for cls in exts:
                stack = stack / random_ext(cls, rnd, plen)
            body = bytes(rnd.getrandbits(8) for _ in range(plen)) + b"\0" * pad
            if body:
                stack = stack / Raw(body)
            udp = UDP(sport=0xC000 | rnd.getrandbits(14), dport=4791)
            if i % 2:
                udp.chksum = 0   # else scapy computes a real UDP checksum
            ip = IP(src="192.168.1.1", dst="192.168.1.2",
                    tos=rnd.getrandbits(8), ttl=rnd.randint(1, 255),
                    flags="DF", id=rnd.getrandbits(16))
            if i % 3 == 2:
                ip = IPv6(src="2001:db8:1::1", dst=f"fe80::{i:x}:2",
                          tc=rnd.getrandbits(8), fl=rnd.getrandbits(20),
                          hlim=rnd.randint(1, 255))
            eth = Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02")
            if i % 5 == 0:
                eth = eth / Dot1Q(vlan=rnd.randint(1, 4094),
                                  prio=rnd.randint(0, 7))
            p = eth / ip / udp / stack
            want = expected_of(p)
            if i % 3 == 2:   # scapy leaves an IPv6 ICRC zero: ours
                raw = bytes(p)
                good, _ = icrc_ipv6(raw, 18 if i % 5 == 0 else 14)
                p = Ether(raw[:-4] + good)
            want["payload"] = plen
            want["icrc"] = "ok"
            pkts.append(p)
            wants.append(want)

    # Two corrupted copies: a payload byte and an ICRC byte.
    for idx, off in ((5, -6), (40, -1)):
        raw = bytearray(bytes(pkts[idx]))
        raw[off] ^= 0x20
        bad = Ether(bytes(raw))
        if bytes(bad) != bytes(raw):
            fail(f"(a) scapy does not keep the corrupted frame {idx} as is")
        pkts.append(bad)
        want = dict(wants[idx])
        want["icrc"] = "bad"
        wants.append(want)

    path = os.path.join(tmp, "scapy.pcap")
    wrpcap(path, pkts)
    frames, summary = run_rnic_pcap(tool, path)
    n = len(pkts)
    want_summary = (f"frames={n} roce={n} icrc_ok={n - 2} icrc_bad=2 "
                    f"malformed=0 other=0")
    if summary != want_summary:
        fail(f"(a) summary {summary!r}, expected {want_summary!r}")
    for i, want in enumerate(wants):
        compare(f"(a) frame {i + 1} {want['name']}", want,
                frames.get(i + 1, {}))
    names = {w["name"] for w in wants}
    if names != set(BY_NAME):
        fail(f"(a) opcodes not built: {sorted(set(BY_NAME) - names)}")
    print(f"(a) {n} scapy frames, {len(names)} opcodes: checked")
    return path


# ---------------------------------------------------------------------------
# (b) rnic-wire-gen frames through scapy

def scapy_decode(raw):
    """scapy's view of a RoCE frame: rnic-pcap keys, ICRC ok or not."""
    p = Ether(raw)
    if BTH not in p:
        return None
    b = p[BTH]
    opc = b.opcode
    d = {"name": OPCODES[opc][0] if opc in OPCODES else f"0x{opc:02x}",
         "dqpn": b.dqpn, "psn": b.psn, "se": b.solicited, "ackreq": b.ackreq,
         "mig": b.migreq, "pad": b.padcount, "pkey": b.pkey, "fecn": b.fecn,
         "becn": b.becn, "sport": p[UDP].sport}
    # scapy dissects only AETH and CNP: read the others with our classes.
    rest = bytes(b.payload)
    for cls in OPCODES.get(opc, ("", [], False))[1]:
        hlen = len(cls())
        d.update(ext_fields(cls, cls(rest[:hlen])))
        rest = rest[hlen:]
    d["payload"] = len(rest) - b.padcount
    if IPv6 in p:
        d.update(ipv6_fields(p))
        calc, wire = icrc_ipv6(raw, 18 if Dot1Q in p else 14)
    else:
        # ICRC: the wire bytes at the end of the IPv4 datagram vs scapy's.
        ip = p[IP]
        end = len(raw) - len(bytes(ip)) + ip.len
        wire, calc = raw[end - 4:end], b.compute_icrc(b"")
    d["icrc"] = "ok" if calc == wire else "bad"
    d["_icrc_wire"], d["_icrc_scapy"] = wire.hex(), calc.hex()
    return d


def part_b(tool, gen, tmp):
    paths = {}
    for mode in ("clean", "full"):
        path = os.path.join(tmp, f"gen-{mode}.pcap")
        args = [gen, path] + (["--clean"] if mode == "clean" else [])
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail(f"(b) {' '.join(args)}: exit {r.returncode}: {r.stderr}")
            continue
        paths[mode] = path
        frames, _ = run_rnic_pcap(tool, path)
        raws = [bytes(p) for p in rdpcap(path)]
        ok = 0
        names = set()
        for i, raw in enumerate(raws, 1):
            ours = frames.get(i, {})
            if ours.get("kind") != "roce":
                continue   # truncated, ARP, DNS: nothing to compare
            s = scapy_decode(raw)
            if s is None:
                fail(f"(b) {mode} frame {i}: scapy finds no BTH")
                continue
            if mode == "clean" and s["icrc"] != "ok":
                fail(f"(b) clean frame {i} {ours['name']}: scapy ICRC "
                     f"{s['_icrc_scapy']}, wire {s['_icrc_wire']}")
            want = {k: v for k, v in s.items() if not k.startswith("_")}
            compare(f"(b) {mode} frame {i}", want, ours)
            ok += s["icrc"] == "ok"
            names.add(ours["name"])
        if mode == "clean":
            if len(raws) == 0 or ok != len(raws):
                fail(f"(b) clean: scapy agrees on {ok} of {len(raws)} ICRCs")
            if names != set(BY_NAME):
                fail(f"(b) clean: opcodes missing from rnic-wire-gen: "
                     f"{sorted(set(BY_NAME) - names)}; extra: "
                     f"{sorted(names - set(BY_NAME))}")
        print(f"(b) rnic-wire-gen {mode}: {len(raws)} frames, scapy ICRC ok "
              f"on {ok}, {len(names)} opcodes: checked")
    return paths


# ---------------------------------------------------------------------------
# (c) tshark

def walk(node, out, path=""):
    """Flatten tshark's JSON tree: 'subtree/field' -> first value."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (dict, list)):
                walk(v, out, k)
            out.setdefault(f"{path}/{k}", v)
            out.setdefault(k, v)
    elif isinstance(node, list):
        for v in node:
            walk(v, out, path)


def tshark_fields(layers):
    f = {}
    walk(layers.get("infiniband", {}), f)
    g = {}

    def num(key, base=0):
        return int(f[key], base) if key in f else None

    def hexbytes(key):
        return int(f[key].replace(":", ""), 16) if key in f else None
    g["opcode"] = num("infiniband.bth.opcode")
    g["dqpn"] = num("infiniband.bth.destqp", 16)
    g["psn"] = num("infiniband.bth.psn")
    g["pad"] = num("infiniband.bth.padcnt")
    g["pkey"] = num("infiniband.bth.p_key")
    g["se"] = num("infiniband.bth.se")
    g["mig"] = num("infiniband.bth.m")
    g["ackreq"] = num("infiniband.bth.a")
    g["reth.va"] = num("infiniband.reth_tree/infiniband.reth.va", 16)
    g["reth.rkey"] = num("infiniband.reth_tree/infiniband.reth.r_key", 16)
    g["reth.len"] = num("infiniband.reth_tree/infiniband.reth.dmalen")
    g["atomiceth.va"] = num("infiniband.atomiceth_tree/infiniband.reth.va", 16)
    g["atomiceth.rkey"] = num(
        "infiniband.atomiceth_tree/infiniband.reth.r_key", 16)
    g["atomiceth.swap_add"] = num("infiniband.atomiceth.swapdt")
    g["atomiceth.cmp"] = num("infiniband.atomiceth.cmpdt")
    g["aeth.syndrome"] = num("infiniband.aeth.syndrome")
    g["aeth.msn"] = num("infiniband.aeth.msn")
    g["atomicacketh.orig"] = num("infiniband.atomicacketh.origremdt")
    g["deth.qkey"] = num("infiniband.deth.q_key", 16)
    g["deth.sqp"] = num("infiniband.deth.srcqp", 16)
    g["immdt"] = hexbytes("infiniband.immdt")
    g["ieth.rkey"] = hexbytes("infiniband.ieth")
    if "ipv6" in layers:
        h = {}
        walk(layers["ipv6"], h)
        for k in ("src", "dst"):
            if "ipv6." + k in h:
                g["ipv6." + k] = ipaddress.IPv6Address(h["ipv6." + k]).compressed
        for k in ("tclass", "flow", "hlim"):
            if "ipv6." + k in h:
                g["ipv6." + k] = int(h["ipv6." + k], 0)
    return {k: v for k, v in g.items() if v is not None}


def bad_keys(node, found):
    """Collect malformed-packet and expert-error markers anywhere."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "_ws.malformed" or k.startswith("_ws.malformed"):
                found.append(k)
            if k == "_ws.expert.severity" and str(v) in ("8388608", "error"):
                found.append(f"expert error: {node.get('_ws.expert.message')}")
            bad_keys(v, found)
    elif isinstance(node, list):
        for v in node:
            bad_keys(v, found)


def part_c(tshark, tool, paths):
    if not tshark or not os.access(tshark, os.X_OK):
        print("(c) SKIPPED: tshark not found")
        return
    flags = tshark_flags(tshark, paths[0][1])
    for label, path in paths:
        r = subprocess.run([tshark] + flags + ["-r", path, "-T", "json"],
                           capture_output=True, text=True, timeout=240)
        if r.returncode != 0:
            fail(f"(c) tshark on {label}: exit {r.returncode}: {r.stderr}")
            continue
        pkts = json.loads(r.stdout)
        frames, _ = run_rnic_pcap(tool, path)
        verbose = subprocess.run([tshark] + flags + ["-r", path, "-V"],
                                 capture_output=True, text=True, timeout=240)
        if "Malformed" in verbose.stdout:
            fail(f"(c) {label}: tshark -V reports a malformed frame")
        checked = 0
        for i, pkt in enumerate(pkts, 1):
            layers = pkt["_source"]["layers"]
            ours = frames.get(i, {})
            problems = []
            bad_keys(layers, problems)
            if "ipv6" in layers:
                # RFC 8200 wants a UDP checksum over IPv6; RoCEv2 senders
                # (rxe, ConnectX, softrnic) send zero, as RFC 6935/6936
                # allow for tunnels, and receivers accept it: tshark's
                # one complaint about such a frame is not a failure.
                problems = [x for x in problems
                            if x != "expert error: Illegal checksum value (0)"]
            if problems:
                fail(f"(c) {label} frame {i}: tshark: {problems}")
            if ours.get("kind") != "roce":
                continue
            if "infiniband" not in layers:
                fail(f"(c) {label} frame {i}: tshark does not see InfiniBand")
                continue
            t = tshark_fields(layers)
            want = dict(ours)
            want["opcode"] = BY_NAME.get(ours["name"], -1)
            for k, v in t.items():
                if want.get(k) != v:
                    fail(f"(c) {label} frame {i} {ours['name']}: {k}: tshark "
                         f"{v!r}, ours {want.get(k)!r}")
            # Every extended-header field we print, tshark shows too.
            for k in want:
                if ("." in k or k == "immdt") and k not in t:
                    fail(f"(c) {label} frame {i} {ours['name']}: tshark "
                         f"lacks {k}")
            checked += 1
        print(f"(c) tshark on {label}: {len(pkts)} frames, {checked} RoCE "
              f"frames compared")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rnic-pcap", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="")
    args = ap.parse_args()
    scapy_conf.verb = 0
    # scapy warns for every IPv6 BTH that it cannot compute its ICRC.
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="rnic-xcheck.") as tmp:
        scapy_pcap = part_a(args.rnic_pcap, tmp)
        paths = part_b(args.rnic_pcap, args.gen, tmp)
        todo = [("scapy frames", scapy_pcap)]
        if "clean" in paths:
            todo.append(("rnic-wire-gen --clean", paths["clean"]))
        part_c(args.tshark, args.rnic_pcap, todo)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
