#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Where write_lat's time goes (doc/benchmarks.md): builds rnic-perf with
# the latency trace (meson -Dlat_trace=true, in build-trace), runs
# write_lat -s 2 between a memif server (CPU 1) and client (CPU 0) as
# `make bench` does, and merges their traces (scripts/lat-trace.py).
#
#   scripts/lat-trace.sh [SECONDS]     default 1
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-1}
if [ ! -d build-trace ]; then
    meson setup build-trace -Dlat_trace=true -Dtests=false >/dev/null
fi
ninja -C build-trace app/rnic-perf/rnic-perf >/dev/null
perf=build-trace/app/rnic-perf/rnic-perf
tmp=$(mktemp -d /tmp/lat-trace.XXXXXX)
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$((20000 + $$ % 10000))
eal=(--no-huge --no-pci --no-shconf --no-telemetry --log-level=pmd.net.memif:error
     --log-level='*:warning' -m 1024)
RNIC_LAT_TRACE=$tmp/server.bin $perf "${eal[@]}" --file-prefix=lt$$s --lcores=0@1 \
    --vdev=net_memif0,role=server,socket=$tmp/memif.sock,socket-abstract=no -- \
    --link memif --server -p $port >"$tmp/server.txt" 2>&1 &
srv=$!
# the client retries its out-of-band connect until the server listens
RNIC_LAT_TRACE=$tmp/client.bin timeout $((secs + 60)) $perf "${eal[@]}" --file-prefix=lt$$c \
    --lcores=0@0 --vdev=net_memif0,role=client,socket=$tmp/memif.sock,socket-abstract=no -- \
    --link memif --client -p $port write_lat -s 2 -D "$secs" --no-progress | tail -n 3
wait "$srv"
srv=
python3 scripts/lat-trace.py "$tmp/client.bin" "$tmp/server.bin"
