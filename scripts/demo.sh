#!/usr/bin/env bash
# The main job on the embedded default: the loopback RDMA demo. Two engines
# joined by an in-process ring pair run every opcode on RC, UC and UD with
# byte-for-byte verification; exits 0 only when everything verified.
set -euo pipefail
B=${1:-build}
cd "$(dirname "$0")/.."
exec "$B"/app/softrnic/softrnic --config config/loopback.json
