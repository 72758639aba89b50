# SPDX-License-Identifier: BSD-3-Clause
"""The RoCEv2 extended headers scapy.contrib.roce does not define (IBA 9.3),
for the test scripts that build or dissect frames with scapy
(test/wire/scapy_xcheck.py, test/responder/cases.py).

scapy's BTH computes the ICRC over whatever is layered under it, so these
headers, the payload and the pad all go under BTH.

Importing this module raises ImportError when scapy is missing: the
scripts import it inside their own try block and skip (exit 77).

A script finds this folder from its own location:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "lib"))
"""
import struct
import zlib

from scapy.all import Packet
from scapy.fields import ByteField, IntField, XIntField, XLongField, \
    X3BytesField


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   IntField("dlen", 0)]


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   XLongField("swap_add", 0), XLongField("cmp", 0)]


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


class DETH(Packet):
    name = "DETH"
    fields_desc = [XIntField("qkey", 0), ByteField("resv", 0),
                   X3BytesField("sqp", 0)]


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


class IETH(Packet):
    name = "IETH"
    fields_desc = [XIntField("rkey", 0)]


def icrc_ipv6(raw, l3):
    """(ICRC computed, ICRC on the wire) of the RoCEv2 frame @raw (bytes)
    whose IPv6 header is at offset @l3. scapy's BTH computes the ICRC over
    IPv4 only; this one is written from IBA annex A17: CRC-32 over 8 bytes
    of ones (the LRH), the IPv6, UDP and BTH headers with traffic class,
    flow label, hop limit, UDP checksum and the BTH FECN/BECN/resv6 byte
    set to ones, then the rest up to the ICRC."""
    plen = int.from_bytes(raw[l3 + 4:l3 + 6], "big")
    end = l3 + 40 + plen
    b = bytearray(raw[l3:end - 4])
    b[0] |= 0x0F                        # traffic class, high nibble
    b[1] = b[2] = b[3] = 0xFF           # traffic class low nibble, flow label
    b[7] = 0xFF                         # hop limit
    b[40 + 6] = b[40 + 7] = 0xFF        # UDP checksum
    b[40 + 8 + 4] = 0xFF                # BTH FECN/BECN/resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF
    return struct.pack("<I", crc), raw[end - 4:end]


def seal_ipv6(raw, l3=14):
    """@raw (an IPv6 RoCEv2 frame scapy built, its ICRC left zero) with
    the ICRC written in."""
    plen = int.from_bytes(raw[l3 + 4:l3 + 6], "big")
    end = l3 + 40 + plen
    good, _ = icrc_ipv6(raw, l3)
    return raw[:end - 4] + good + raw[end:]
