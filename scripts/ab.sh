#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# In-run A/B (doc/benchmarks.md, "Small differences: two variants in one
# run"): builds rnic-perf with meson -Dab_toggle=true in build-ab, where
# the engine switches between the two variants of the change under test
# (RNIC_AB(), lib/core/rnic_ab.h) about every 10 ms (RNIC_AB_MS), and runs
# TEST (write_bw unless named: send_bw, read_bw...) on the in-process
# ring pair RUNS times: the application on
# CPU 0, the one engine lcore (both ends) on CPU 1, --rtc, as the bench's
# ring and qps sections. Each run prints the variants' TX work per
# microsecond and their ratio; the last line sums them up. Without any
# RNIC_AB() site the two variants are the same code (an A/A run: the
# spread of the ratio is the method's noise).
#
#   scripts/ab.sh RUNS [TEST] [arguments]
#   scripts/ab.sh 8 -s 64 -q 16384 -t 4 -u 20 -D 4
#   scripts/ab.sh 6 send_bw -c UD -s 64 -Q 1 -D 3
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: scripts/ab.sh RUNS [TEST] [arguments]}
shift
test=write_bw
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    test=$1
    shift
fi
if [ ! -d build-ab ]; then
    meson setup build-ab -Dab_toggle=true -Dtests=false >/dev/null
fi
ninja -C build-ab app/rnic-perf/rnic-perf >/dev/null
perf=build-ab/app/rnic-perf/rnic-perf
mem=(-m 4096)
if ! grep -qs ' /dev/hugepages hugetlbfs' /proc/mounts ||
   [ "$(awk '/HugePages_Free/{print $2}' /proc/meminfo)" -lt 2048 ]; then
    mem=(--no-huge -m 4096)   # 4 KiB pages: the TLB counts at many QPs
    echo "ab.sh: no 4 GiB of free hugepages at /dev/hugepages: --no-huge" >&2
fi
out=$(mktemp /tmp/ab.XXXXXX)
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
    timeout 120 "$perf" "${mem[@]}" --no-pci --no-shconf --no-telemetry \
        --log-level='*:warning' --file-prefix=ab$$ --lcores=0@0,1@1 -- \
        --rtc --no-progress "$test" --ring-size 131072 "$@" 2>&1 |
        grep '^ab:' | tee -a "$out" || echo "ab.sh: run $i printed no ab: line" >&2
done
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ratio=/) { r = substr($i, 7); n++; s += r;
       if (r > 1) up++; if (n == 1 || r < lo) lo = r; if (n == 1 || r > hi) hi = r } }
     END { if (n) printf "ab: runs=%d variant1_higher=%d mean_ratio=%.4f min=%.4f max=%.4f\n",
           n, up, s / n, lo, hi; else { print "ab: no runs"; exit 1 } }' "$out"
