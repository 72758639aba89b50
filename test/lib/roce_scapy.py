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
