#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of the fuzz targets (fuzz/corpus/<target>/).

  parser     frames split out of captures the test suite makes (rnic-wire-gen
             writes every opcode plus broken frames; softrnic with
             config/transmit-pcap.json writes what the engine transmits),
             one file per distinct kind of frame, each with the harness's
             one-byte prefix (0x00: one segment) and a few with cuts
  responder  crafted request sequences (record format in fuzz_engine.c)
  requester  crafted WR menus plus response sequences
  config     every config/*.json

usage: make-corpus.py [--pcap FILE]... [--out DIR] [--configs DIR]
Only the standard library: pcap files are read by hand.
"""
import argparse
import glob
import hashlib
import os
import shutil
import struct
import sys


def read_pcap(path):
    """Yield the frames of a classic pcap file."""
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack_from('<I', data, 0)[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        end = '<'
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        end = '>'
    else:
        raise SystemExit(f'{path}: not a pcap file')
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(end + 'IIII', data, off)
        off += 16
        yield data[off:off + incl]
        off += incl


def frame_kind(fr):
    """A coarse key: ethertype, IP proto, UDP port, opcode, length class."""
    if len(fr) < 14:
        return ('short', len(fr))
    et = struct.unpack_from('>H', fr, 12)[0]
    l3 = 14
    if et == 0x8100 and len(fr) >= 18:
        et = struct.unpack_from('>H', fr, 16)[0]
        l3 = 18
    if et != 0x0800 or len(fr) < l3 + 28:
        return ('l2', et, min(len(fr), 64))
    proto = fr[l3 + 9]
    dport = struct.unpack_from('>H', fr, l3 + 22)[0]
    op = fr[l3 + 28] if len(fr) > l3 + 28 else -1
    lc = 0 if len(fr) < 100 else 1 if len(fr) < 400 else 2
    return ('ip', l3, proto, dport, op, lc)


def write(dirpath, name, blob):
    os.makedirs(dirpath, exist_ok=True)
    with open(os.path.join(dirpath, name), 'wb') as f:
        f.write(blob)


def parser_corpus(pcaps, out, limit=48, max_len=1200):
    seen, picked = set(), []
    for p in pcaps:
        for fr in read_pcap(p):
            k = frame_kind(fr)
            if k in seen or len(fr) > max_len:
                continue
            seen.add(k)
            picked.append(fr)
    picked = picked[:limit]
    d = os.path.join(out, 'parser')
    for fr in picked:
        blob = b'\x00' + fr
        write(d, hashlib.sha1(blob).hexdigest()[:16], blob)
    # A few chains: cut inside the headers, at the 128-byte header window,
    # and inside the ICRC.
    for fr in picked[:6]:
        n = len(fr)
        for cuts in ([13], [40, 20], [127], [max(0, n - 7)] if n > 8 else [0]):
            cuts = [min(c, 255) for c in cuts]
            blob = bytes([len(cuts)] + cuts) + fr
            write(d, hashlib.sha1(blob).hexdigest()[:16], blob)
    return len(os.listdir(d))


# --------------------------------------------------------------------------
# Engine records (see fuzz_engine.c)

RC, UC, UD, RAW = 0, 1, 2, 3
FIX_T, TIDY, PATCH, POST, SETTLE, BADICRC = 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
PSN_REL = 0x01
TRANSPORT = {RC: 0x00, UC: 0x20, UD: 0x60}


def bth(opcode, rel=0, ackreq=True, se=False, sr=False):
    flags = 0x80 if se else 0
    return struct.pack('>BBHB3sB3s', opcode, flags, 0xffff, 0, b'\0\0\0',
                       (0x80 if ackreq else 0) | (0x01 if sr else 0),
                       struct.pack('>I', rel & 0xff)[1:])


def sreth(va, key, length, aux=0):
    # selective repeat (BTH SR bit): a WRITE's is patched like a RETH
    return struct.pack('>QIII', va, key, length, aux)


def sack(epsn, *words):
    return struct.pack('>I4Q', epsn, *(list(words) + [0] * (4 - len(words))))


def odd(blob):
    # fuzz_engine: an input of odd length runs with the RC QP in
    # selective-repeat mode; a trailing byte is no record
    return blob if len(blob) % 2 else blob + b'\0'


def reth(off, length, mr=0):
    # fuzz_engine: va = base + va % (len + 64) - 32; rkey low 2 bits pick the MR
    return struct.pack('>QII', off + 32, mr, length)


def atmeth(off, swap, cmp, mr=0):
    return struct.pack('>QIQQ', off + 32, mr, swap, cmp)


def aeth(syn, msn):
    return struct.pack('>I', (syn << 24) | (msn & 0xffffff))


def deth():
    return struct.pack('>IB3s', 0, 0, b'\0\0\x44')


def rec(qp, body, ctl0=FIX_T | TIDY | PATCH | SETTLE, ctl1=PSN_REL):
    # The pad count that the harness's rounding up to 4 will need.
    body = bytearray(body)
    body[1] |= ((-len(body)) % 4) << 4
    body = bytes(body)
    return struct.pack('<BBH', qp | ctl0, ctl1, len(body)) + body


def pay(n, seed=1):
    return bytes((i * 7 + seed) & 0xff for i in range(n))


def responder_corpus(out):
    c = {}
    c['rc_send_only'] = rec(RC, bth(0x04) + pay(64))
    c['rc_send_only_imm'] = rec(RC, bth(0x05) + b'\x12\x34\x56\x78' + pay(20))
    c['rc_send_inv'] = rec(RC, bth(0x17) + struct.pack('>I', 0) + pay(8))
    c['rc_send_multi'] = (rec(RC, bth(0x00, ackreq=False) + pay(256)) +
                          rec(RC, bth(0x01, ackreq=False) + pay(256, 2)) +
                          rec(RC, bth(0x02) + pay(10, 3)))
    c['rc_write_only'] = rec(RC, bth(0x0a) + reth(0, 64) + pay(64))
    c['rc_write_only_imm'] = rec(RC, bth(0x0b) + reth(100, 16) + b'\0\0\0\1' + pay(16))
    c['rc_write_multi'] = (rec(RC, bth(0x06, ackreq=False) + reth(0, 600) + pay(256)) +
                           rec(RC, bth(0x07, ackreq=False) + pay(256, 2)) +
                           rec(RC, bth(0x08) + pay(88, 3)))
    c['rc_write_ro_mr'] = rec(RC, bth(0x0a) + reth(0, 16, mr=1) + pay(16))
    c['rc_write_oob'] = rec(RC, bth(0x0a) + reth(4090, 16) + pay(16))
    c['rc_read'] = rec(RC, bth(0x0c) + reth(0, 300))
    c['rc_read_ro'] = rec(RC, bth(0x0c) + reth(8, 700, mr=1))
    c['rc_read_dup'] = (rec(RC, bth(0x0c) + reth(0, 300)) +
                        rec(RC, bth(0x0c, rel=-2) + reth(0, 300)))
    c['rc_cmp_swap'] = rec(RC, bth(0x13) + atmeth(8, 0x1111, 0x0))
    c['rc_fetch_add'] = rec(RC, bth(0x14) + atmeth(16, 5, 0))
    c['rc_atomic_dup'] = (rec(RC, bth(0x14) + atmeth(16, 5, 0)) +
                          rec(RC, bth(0x14, rel=-1) + atmeth(16, 5, 0)))
    c['rc_atomic_unaligned'] = rec(RC, bth(0x13) + atmeth(3, 1, 2))
    c['rc_dup_send'] = (rec(RC, bth(0x04) + pay(8)) + rec(RC, bth(0x04, rel=-1) + pay(8)))
    c['rc_psn_gap'] = (rec(RC, bth(0x04, rel=3) + pay(8)) + rec(RC, bth(0x04) + pay(8)))
    c['rc_rnr'] = b''.join(rec(RC, bth(0x04) + pay(8, i)) for i in range(6))
    c['rc_bad_sequence'] = rec(RC, bth(0x01) + pay(256))
    c['rc_bad_icrc'] = rec(RC, bth(0x04) + pay(8), ctl0=FIX_T | TIDY | BADICRC | SETTLE)
    c['rc_post_more'] = b''.join(rec(RC, bth(0x04) + pay(32, i),
                                     ctl0=FIX_T | TIDY | POST | SETTLE) for i in range(6))
    c['rc_ack_ghost'] = rec(RC, bth(0x11) + aeth(0x1f, 1))
    c['uc_send_only'] = rec(UC, bth(0x24) + pay(40))
    c['uc_send_multi'] = (rec(UC, bth(0x20) + pay(256)) + rec(UC, bth(0x22) + pay(3)))
    c['uc_write_only'] = rec(UC, bth(0x2a) + reth(200, 32) + pay(32))
    c['uc_write_imm'] = rec(UC, bth(0x2b) + reth(200, 4) + b'\0\0\0\2' + pay(4))
    c['ud_send_only'] = rec(UD, bth(0x64) + deth() + pay(100))
    c['ud_send_imm'] = rec(UD, bth(0x65) + deth() + b'\0\0\0\3' + pay(12))
    c['mixed_batch'] = (rec(RC, bth(0x04) + pay(8), ctl0=FIX_T | TIDY) +
                        rec(UC, bth(0x24) + pay(8), ctl0=FIX_T | TIDY) +
                        rec(UD, bth(0x64) + deth() + pay(8), ctl0=FIX_T | TIDY | PATCH) +
                        rec(RC, bth(0x0a, rel=1) + reth(64, 8) + pay(8)))
    # selective repeat (odd length): packets ahead placed, then the gap
    c['sr_write_ahead'] = odd(rec(RC, bth(0x0a, rel=2, sr=True) + reth(0, 16) +
                                  sreth(32, 0, 16) + pay(16)) +
                              rec(RC, bth(0x0a, rel=1, sr=True) + reth(64, 16) +
                                  sreth(96, 0, 16) + pay(16)) +
                              rec(RC, bth(0x0a, sr=True) + reth(128, 16) + sreth(160, 0, 16) +
                                  pay(16)))
    c['sr_write_multi_reversed'] = odd(
        rec(RC, bth(0x08, rel=2, sr=True) + sreth(544, 0, 600, 512) + pay(88, 3)) +
        rec(RC, bth(0x07, rel=1, ackreq=False, sr=True) + sreth(288, 0, 600, 256) + pay(256, 2)) +
        rec(RC, bth(0x06, ackreq=False, sr=True) + reth(0, 600) + sreth(32, 0, 600, 0) +
            pay(256)))
    c['sr_send_ahead'] = odd(rec(RC, bth(0x02, rel=1, sr=True) + sreth(256, 0, 300) + pay(44)) +
                             rec(RC, bth(0x00, ackreq=False, sr=True) + sreth(0, 0, 300) +
                                 pay(256)))
    c['sr_read_ahead'] = odd(rec(RC, bth(0x0c, rel=1) + reth(0, 300)) +
                             rec(RC, bth(0x04, sr=True) + sreth(0, 0, 8) + pay(8)))
    d = os.path.join(out, 'responder')
    for k, v in c.items():
        write(d, k, v)
    return len(c)


# Requester WR menu (fuzz_engine.c post_wr): PSNs each WR takes at PMTU 256.
WRITE, READ400, SEND, CMP, FADD, READ8, WIMM, SENDINL = range(8)
PSNS = {WRITE: 2, READ400: 2, SEND: 1, CMP: 1, FADD: 1, READ8: 1, WIMM: 1, SENDINL: 1}


def wrs(*menu):
    return bytes([len(menu) - 1]) + bytes(menu)


def resp(opcode, rel, *parts):
    return rec(RC, bth(opcode, rel=rel) + b''.join(parts))


def requester_corpus(out):
    c = {}
    c['write_ack'] = wrs(WRITE) + resp(0x11, 1, aeth(0x1f, 1))
    c['write_coalesced'] = wrs(WRITE, SEND, WIMM) + resp(0x11, 3, aeth(0x00, 3))
    c['read400'] = wrs(READ400) + resp(0x0d, 0, aeth(0, 0), pay(256)) + \
        resp(0x0f, 1, aeth(0, 1), pay(144))
    c['read400_middle'] = wrs(READ400) + resp(0x0d, 0, aeth(0, 0), pay(256)) + \
        resp(0x0e, 1, pay(144))
    c['read8'] = wrs(READ8) + resp(0x10, 0, aeth(0, 1), pay(8))
    c['read_short'] = wrs(READ8) + resp(0x10, 0, aeth(0, 1), pay(4))
    c['cmp_swap'] = wrs(CMP) + resp(0x12, 0, aeth(0, 1), struct.pack('>Q', 0x1111))
    c['fetch_add'] = wrs(FADD) + resp(0x12, 0, aeth(0, 1), struct.pack('>Q', 7))
    c['nak_seq'] = wrs(SEND, SEND) + resp(0x11, 1, aeth(0x60, 0)) + resp(0x11, 1, aeth(0x1f, 2))
    c['rnr_nak'] = wrs(SEND) + resp(0x11, 0, aeth(0x21, 0)) + resp(0x11, 0, aeth(0x1f, 1))
    c['nak_inv_req'] = wrs(WRITE, SEND) + resp(0x11, 0, aeth(0x61, 0))
    c['nak_rem_access'] = wrs(READ8, WRITE) + resp(0x11, 0, aeth(0x62, 0))
    c['nak_rem_op'] = wrs(FADD, SEND) + resp(0x11, 0, aeth(0x63, 0))
    c['ghost_ack'] = wrs(SEND) + resp(0x11, -5, aeth(0x1f, 0)) + resp(0x11, 0, aeth(0x1f, 1))
    c['dup_read_resp'] = wrs(READ8, SEND) + resp(0x10, 0, aeth(0, 1), pay(8)) + \
        resp(0x10, 0, aeth(0, 1), pay(8)) + resp(0x11, 1, aeth(0x1f, 2))
    c['all_six'] = (wrs(WRITE, READ8, SEND, CMP, FADD, SENDINL) +
                    resp(0x11, 1, aeth(0x1f, 1)) + resp(0x10, 2, aeth(0, 2), pay(8)) +
                    resp(0x11, 3, aeth(0x1f, 3)) +
                    resp(0x12, 4, aeth(0, 4), struct.pack('>Q', 1)) +
                    resp(0x12, 5, aeth(0, 5), struct.pack('>Q', 2)) +
                    resp(0x11, 6, aeth(0x1f, 6)))
    c['read_then_ack_implicit'] = wrs(SEND, READ8) + resp(0x10, 1, aeth(0, 2), pay(8))
    c['no_response'] = wrs(WRITE, READ400, CMP)
    # selective repeat (odd length): SACKs, READ responses out of order
    c['sr_sack'] = odd(wrs(SEND, SEND, SEND, SEND) +
                       rec(RC, bth(0x11, rel=0, sr=True) + aeth(0x1f, 1) + sack(0, 0b1100)))
    c['sr_read_reversed'] = odd(wrs(READ400) + resp(0x0f, 1, aeth(0, 1), pay(144)) +
                                resp(0x0d, 0, aeth(0, 0), pay(256)))
    c['sr_read_two'] = odd(wrs(READ400, READ400) + resp(0x0f, 3, aeth(0, 2), pay(144)) +
                           resp(0x0d, 2, aeth(0, 1), pay(256)) + resp(0x0f, 1, aeth(0, 1),
                                                                     pay(144)))
    d = os.path.join(out, 'requester')
    for k, v in c.items():
        write(d, k, v)
    return len(c)


def config_corpus(cfgdir, out):
    d = os.path.join(out, 'config')
    os.makedirs(d, exist_ok=True)
    n = 0
    for p in sorted(glob.glob(os.path.join(cfgdir, '*.json'))):
        shutil.copy(p, os.path.join(d, os.path.basename(p)))
        n += 1
    return n


def attach_corpus(out):
    """fuzz_attach: operations on the shared rings (see its header)."""
    def swqe(qp, op, flags, length, off):
        return bytes([7, qp, op, flags, length, off])

    def poll(n=15):
        return bytes([5, n])

    def consume(port):
        return bytes([6, port])

    c = {}
    # traffic that works: WRITE, READ, SEND, atomics, UD SEND; consumed
    c['write_read'] = (swqe(0, 0, 0, 8, 0) + swqe(0, 4, 0, 8, 16) + poll() + consume(0) +
                       poll() + consume(0))
    c['send_recv'] = swqe(1, 2, 0, 4, 0) + poll() + consume(0) + consume(1)
    c['atomics'] = swqe(0, 6, 0, 0, 8) + swqe(0, 5, 0, 0, 16) + poll() + consume(0)
    c['ud_send'] = swqe(2, 2, 0, 2, 0) + poll() + consume(0)
    c['inline'] = swqe(0, 0, 0x8, 3, 0) + poll() + consume(0)
    # lies: a producer index far ahead, a receive WQE with 200 SGEs, a
    # send WQE with a bad opcode and SGE count, a CQ consumer index ahead
    c['sq_pi_ahead'] = bytes([2, 0, 0x80]) + struct.pack('>I', 0x80000000) + poll()
    c['rq_pi_back'] = bytes([3, 1, 0x80]) + struct.pack('>I', 0xffffffff) + poll()
    c['rwqe_sges'] = (bytes([1, 0, 1, 16]) + struct.pack('<QII', 7, 200, 0) +
                      bytes([3, 0, 1]) + poll())
    c['swqe_opcode'] = (bytes([0, 1, 0, 64]) + struct.pack('<QBBBB', 9, 0xff, 2, 40, 0) +
                        bytes(52) + bytes([2, 1, 1]) + poll())
    c['cq_ci_ahead'] = (swqe(0, 0, 0, 1, 0) + bytes([4, 0]) + struct.pack('>I', 0x7fffffff) +
                        poll() + consume(0))
    c['ud_bad_ah'] = (bytes([0, 2, 0, 64]) + struct.pack('<QBBBBIIIQQQIII', 3, 2, 2, 0, 0,
                                                          0, 0, 0, 0, 0, 0, 77, 1, 0x11) +
                      bytes([2, 2, 1]) + poll())
    d = os.path.join(out, 'attach')
    for k, v in c.items():
        write(d, k, v)
    return len(c)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('--pcap', action='append', default=[])
    ap.add_argument('--out', default=os.path.join(here, 'corpus'))
    ap.add_argument('--configs', default=os.path.join(here, '..', 'config'))
    a = ap.parse_args()
    if a.pcap:
        shutil.rmtree(os.path.join(a.out, 'parser'), ignore_errors=True)
        print('parser', parser_corpus(a.pcap, a.out))
    for name, fn in (('responder', responder_corpus), ('requester', requester_corpus),
                     ('attach', attach_corpus)):
        shutil.rmtree(os.path.join(a.out, name), ignore_errors=True)
        print(name, fn(a.out))
    shutil.rmtree(os.path.join(a.out, 'config'), ignore_errors=True)
    print('config', config_corpus(a.configs, a.out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
