#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cross-check the CM MAD encoder (lib/wire/rnic_mad.c, issue 21) with tshark.

rnic-mad-gen writes CM MADs (REQ with an rdma_cm IPv4 header, REP, RTU,
REJ, DREQ, DREP; three of each, every field a distinct value) in RoCEv2 UD
SENDs to QP1 and prints, per frame, the values it encoded under tshark's
field names. tshark's InfiniBand dissector must decode every frame as that
CM message, with every listed field equal. Two REQ fields are left out:
Wireshark reads the primary flow label from two bytes only, and the packet
rate one byte off (a REQ whose bytes 88-91 are 12:34:10:03 shows flow
label 0x123, rate 0x12); the layout encoded is IBA table 106's as the Linux kernel's
ibta_vol1_c12.h places it (flow label: the top 20 bits of bytes 88-91,
packet rate: the low 6 bits of byte 91).

usage: cm_tshark_check.py --gen PATH --tshark PATH
Exit status: 0 pass, 1 fail, 77 skip (no tshark).
"""
import argparse
import ipaddress
import json
import os
import subprocess
import sys
import tempfile

SKIP_FIELDS = {"infiniband.cm.req.prim_flowlabel", "infiniband.cm.req.prim_pktrate"}


def walk(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (dict, list)):
                walk(v, out)
            else:
                out.setdefault(k, v)
    elif isinstance(node, list):
        for v in node:
            walk(v, out)


def same(want, got):
    if isinstance(want, int):
        try:
            return int(got, 0) == want
        except (TypeError, ValueError):
            return False
    try:
        return ipaddress.ip_address(want) == ipaddress.ip_address(got)
    except ValueError:
        return want == got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="")
    args = ap.parse_args()
    if not args.tshark or not os.access(args.tshark, os.X_OK):
        print("SKIP: tshark not found")
        return 77
    fails = []
    with tempfile.TemporaryDirectory(prefix="rnic-cm.") as tmp:
        path = os.path.join(tmp, "cm.pcap")
        r = subprocess.run([args.gen, path], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            print(f"FAIL: rnic-mad-gen exit {r.returncode}: {r.stderr}")
            return 1
        want = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
        t = subprocess.run([args.tshark, "-r", path, "-T", "json"], capture_output=True,
                           text=True, timeout=120)
        if t.returncode != 0:
            print(f"FAIL: tshark exit {t.returncode}: {t.stderr}")
            return 1
        pkts = json.loads(t.stdout)
    if len(pkts) != len(want) or len(want) != 18:
        fails.append(f"{len(pkts)} frames decoded, {len(want)} written (want 18)")
    checked = 0
    for w, p in zip(want, pkts):
        got = {}
        walk(p["_source"]["layers"].get("infiniband", {}), got)
        # an IPv4-mapped GID shows as its IPv4 address
        for k in ("infiniband.cm.req.prim_localgid", "infiniband.cm.req.prim_remotegid"):
            if k in w and k + "_ipv4" in got:
                got[k] = "::ffff:" + got[k + "_ipv4"]
        for k, v in w.items():
            if k in ("frame", "name") or k in SKIP_FIELDS:
                continue
            if k not in got:
                fails.append(f"frame {w['frame']} {w['name']}: tshark shows no {k}")
            elif not same(v, got[k]):
                fails.append(f"frame {w['frame']} {w['name']}: {k}: tshark {got[k]!r}, "
                             f"encoded {v!r}")
            else:
                checked += 1
    for f in fails:
        print("FAIL " + f)
    print(f"{len(want)} CM MADs, {checked} fields equal in tshark")
    print("PASS" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
