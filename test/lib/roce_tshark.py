# SPDX-License-Identifier: BSD-3-Clause
"""tshark options for the test scripts that check RoCE captures with it
(test/wire/scapy_xcheck.py, test/capture/capture_check.py). Plain Python:
no scapy needed.

A script finds this folder from its own location:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "lib"))
"""
import subprocess


def tshark_flags(tshark, sample):
    """Switch off the heuristic guesses about what an InfiniBand payload
    carries (RPC over RDMA, SMB Direct, iSER, Ethernet over IB...): our
    payloads are test patterns, and a guess that throws on them says
    nothing about the RoCE headers. @sample: a capture to probe whether
    this tshark knows the eth_over_ib heuristic."""
    r = subprocess.run([tshark, "-G", "heuristic-decodes"],
                       capture_output=True, text=True, timeout=60)
    flags = []
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if (len(f) >= 2 and f[0] == "infiniband.payload"
                and f[1] != "ethertype"):
            flags += ["--disable-protocol", f[1]]
    probe = subprocess.run([tshark, "--disable-heuristic", "eth_over_ib",
                            "-r", sample, "-c", "1"], capture_output=True,
                           timeout=60)
    if probe.returncode == 0:
        flags += ["--disable-heuristic", "eth_over_ib"]
    return flags
