#!/usr/bin/env bash
# The main job on an embedded default. Until the engine lands this decodes a
# capture that the build generates; it then becomes the loopback RDMA demo.
set -euo pipefail
B=${1:-build}
"$B"/test/wire/rnic-wire-gen "$B"/demo.pcap
"$B"/app/rnic-pcap/rnic-pcap "$B"/demo.pcap
