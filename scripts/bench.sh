#!/usr/bin/env bash
# softrnic benchmarks in one go (make bench). doc/benchmarks.md has the
# method, the results and how to read them.
#
#   scripts/bench.sh [BUILD_DIR]        (default: build)
#
# 1. Baseline: dpdk-testpmd txonly -> rxonly over net_memif, at the frame
#    sizes an RDMA WRITE of 64 B, 1 KiB and 4 KiB puts on the wire at PMTU
#    1024 and 4096; then rnic-perf write_bw over the same kind of memif link
#    (client and server processes), and the ratio of delivered data frames.
# 2. Engine only: rnic-perf write_bw on the in-process ring pair, both QP
#    ends on ONE engine lcore (--rtc), the main lcore posting and polling.
# 3. 16384 QPs configured and active against 1 QP, and the engine's state
#    per QP (test/perf/perf_state).
#
# One line per measurement:
#   bench: test=write size=S link=memif softrnic_mpps=X baseline_mpps=Y ratio=Z pmtu=P frame=F
#   bench: test=write size=S link=ring softrnic_mpps=X gbps=G pmtu=P
#   bench: qps=16384 ratio=R state_bytes_per_qp=B
# (pmtu= and frame= follow the fixed fields: the same size runs at two PMTUs.)
#
# CPUs: with two CPUs each side of a link gets its own: testpmd txonly and
# the rnic-perf client (which posts, and runs its engine on the same
# thread: --engine-on-main) on the first, testpmd rxonly and the rnic-perf
# server on the second. Engine-only runs put the application on the first
# and the one engine lcore on the second. Bounded in time (about 4 minutes
# here; every command has a timeout); every process started is stopped on
# exit. BENCH_SECONDS (default 3) sets the length of each measurement,
# BENCH_ROUNDS (default 2) how many times each is taken (the best counts);
# BENCH_SWEEP=DIR also runs an -a sweep on the ring and writes
# DIR/write_bw_sweep_{1024,4096}.json and, with python3-matplotlib,
# DIR/write_bw_sweep.png.
set -u -o pipefail

BUILD=${1:-build}
SECS=${BENCH_SECONDS:-3}
ROUNDS=${BENCH_ROUNDS:-2}
PERF=$BUILD/app/rnic-perf/rnic-perf
STATE=$BUILD/test/perf/perf_state
TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || echo /usr/bin/dpdk-testpmd)}
TMP=$(mktemp -d /tmp/softrnic-bench.XXXXXX)
SOCK=$TMP/memif.sock
TCP_PORT=$((20000 + $$ % 20000))
PIDS=()

for f in "$PERF" "$STATE"; do
    [ -x "$f" ] || { echo "bench: $f is missing: build first (make build)" >&2; exit 1; }
done
[ -x "$TESTPMD" ] || { echo "bench: dpdk-testpmd not found (Debian package dpdk-dev)" >&2; exit 1; }

cleanup() {
    for p in "${PIDS[@]:-}"; do
        [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
    done
    sleep 0.5
    for p in "${PIDS[@]:-}"; do
        [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The CPUs we may use: the first two (or one, twice).
read -r CPU0 CPU1 < <(/usr/bin/env python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(c[0], c[1] if len(c)>1 else c[0])')
EAL="--no-huge --no-pci --no-shconf --no-telemetry --log-level=pmd.net.memif:error --log-level=*:warning"
MEMIF="socket=$SOCK,socket-abstract=no"

# Frame length of an RDMA WRITE packet: Ethernet 14 + IPv4 20 + UDP 8 +
# BTH 12 (+ RETH 16 on First/Only) + payload + pad to 4 + ICRC 4.
frame_len() {   # payload first(0/1)
    local pay=$1 reth=$(( $2 ? 16 : 0 ))
    echo $(( 14 + 20 + 8 + 12 + reth + pay + (4 - pay % 4) % 4 + 4 ))
}
# Data frames per message and their mean length.
frames_of() {   # size pmtu -> "n mean"
    local size=$1 pmtu=$2 n total=0 off=0 first=1 p
    n=$(( (size + pmtu - 1) / pmtu )); [ "$n" -eq 0 ] && n=1
    while [ $off -lt $size ] || [ $first -eq 1 ]; do
        p=$(( size - off < pmtu ? size - off : pmtu ))
        total=$(( total + $(frame_len $p $first) ))
        off=$(( off + p )); first=0
        [ $size -eq 0 ] && break
    done
    echo "$n $(( (total + n / 2) / n ))"
}

# The row of a perftest-style report: the line after the column header.
row_field() {   # file field#
    awk -v f="$2" '/#bytes/ { getline; print $f; exit }' "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }

# ---------------------------------------------------------------------
# 1. testpmd baseline: delivered packets/s at the receiver.
# ---------------------------------------------------------------------
baseline_mpps() {   # frame_len
    local len=$1 mb=$(( $1 + 256 > 2176 ? ($1 + 256 + 63) / 64 * 64 : 2176 ))
    local rx=$TMP/tp_rx_$len.txt tx=$TMP/tp_tx_$len.txt rxp txp
    rm -f "$SOCK"
    timeout $(( SECS + 25 )) "$TESTPMD" $EAL -m 1024 --file-prefix=bench_rx$$ \
        --lcores="0@$CPU1,1@$CPU1" --vdev="net_memif0,role=server,$MEMIF" -- \
        --forward-mode=rxonly --nb-cores=1 --stats-period=1 >"$rx" 2>&1 &
    rxp=$!; PIDS+=("$rxp")
    for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
    timeout $(( SECS + 20 )) "$TESTPMD" $EAL -m 1024 --file-prefix=bench_tx$$ \
        --lcores="0@$CPU0,1@$CPU0" --vdev="net_memif0,role=client,$MEMIF" -- \
        --forward-mode=txonly --mbuf-size="$mb" --txpkts="$len" --nb-cores=1 \
        --stats-period=1 >"$tx" 2>&1 &
    txp=$!; PIDS+=("$txp")
    sleep $(( SECS + 3 ))
    kill -TERM "$txp" 2>/dev/null; wait "$txp" 2>/dev/null
    kill -TERM "$rxp" 2>/dev/null; wait "$rxp" 2>/dev/null
    # Per-second Rx-pps samples while packets flow: the first (ramp up)
    # and the last (the sender stopping) are left out, the median taken.
    grep -a 'Rx-pps:' "$rx" | awk '$2 > 0 { print $2 }' |
        awk '{ v[NR] = $1 } END { for (i = 2; i < NR; i++) print v[i]; if (NR <= 2) for (i = 1; i <= NR; i++) print v[i] }' |
        median | awk '{ printf "%.4f", $1 / 1e6 }'
}

# ---------------------------------------------------------------------
# rnic-perf write_bw over net_memif: client on CPU0, server on CPU1.
# ---------------------------------------------------------------------
memif_mpps() {   # size pmtu -> messages/s in millions
    local size=$1 pmtu=$2 out=$TMP/memif_${size}_$pmtu.txt srv=$TMP/memif_srv_${size}_$pmtu.txt sp
    rm -f "$SOCK"
    timeout $(( SECS + 60 )) "$PERF" $EAL -m 1024 --file-prefix=bench_s$$ --lcores="0@$CPU1" \
        --vdev="net_memif0,role=server,$MEMIF" -- --link memif --server -p "$TCP_PORT" \
        >"$srv" 2>&1 &
    sp=$!; PIDS+=("$sp")
    timeout $(( SECS + 50 )) "$PERF" $EAL -m 1024 --file-prefix=bench_c$$ --lcores="0@$CPU0" \
        --vdev="net_memif0,role=client,$MEMIF" -- --link memif --client -p "$TCP_PORT" \
        write_bw -s "$size" -m "$pmtu" -D "$SECS" --no-progress >"$out" 2>&1
    local rc=$?
    wait "$sp" 2>/dev/null
    if [ $rc -ne 0 ]; then
        local keep=/tmp/softrnic-bench-fail-$$-memif-$size-$pmtu
        cp "$out" "$keep-client.txt"; cp "$srv" "$keep-server.txt"
        echo "bench: rnic-perf memif write_bw -s $size -m $pmtu failed (rc $rc), logs in $keep-*.txt:" >&2
        tail -n 5 "$out" "$srv" >&2
        echo 0; return
    fi
    row_field "$out" 5
}

ring_run() {   # out-file rnic-perf-args...
    local out=$1; shift
    timeout $(( SECS + 120 )) "$PERF" $EAL -m 4096 --file-prefix=bench_r$$ \
        --lcores="0@$CPU0,1@$CPU1" -- --rtc --no-progress "$@" >"$out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        cp "$out" "/tmp/softrnic-bench-fail-$$-ring.txt"
        echo "bench: rnic-perf $* failed (rc $rc), log in /tmp/softrnic-bench-fail-$$-ring.txt:" >&2
        tail -n 5 "$out" >&2
    fi
    return $rc
}

start=$(date +%s)
echo "bench: $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1-3 /proc/loadavg), ${SECS} s per measurement"

max2() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? a : b }'; }

# Best of ROUNDS measurements, baseline and softrnic taking turns, so a
# burst of other load on the machine hits both alike.
declare -A BASE DONE_BASE
for case in "64 1024" "64 4096" "1024 1024" "1024 4096" "4096 1024" "4096 4096"; do
    read -r size pmtu <<<"$case"
    read -r nfr flen < <(frames_of "$size" "$pmtu")
    msgs=0
    for _ in $(seq "$ROUNDS"); do
        if [ -z "${DONE_BASE[$flen]:-}" ]; then
            BASE[$flen]=$(max2 "${BASE[$flen]:-0}" "$(baseline_mpps "$flen")")
        fi
        msgs=$(max2 "$msgs" "$(memif_mpps "$size" "$pmtu")")
    done
    DONE_BASE[$flen]=1
    base=${BASE[$flen]}
    awk -v s="$size" -v p="$pmtu" -v f="$flen" -v n="$nfr" -v m="$msgs" -v b="$base" 'BEGIN {
        x = m * n
        printf "bench: test=write size=%d link=memif softrnic_mpps=%.4f baseline_mpps=%.4f ratio=%.3f pmtu=%d frame=%d\n",
               s, x, b, (b > 0 ? x / b : 0), p, f }'
done

# ---------------------------------------------------------------------
# 2. Engine only: one engine lcore runs both QP ends.
# ---------------------------------------------------------------------
for case in "64 1024" "1024 1024" "4096 1024" "4096 4096"; do
    read -r size pmtu <<<"$case"
    out=$TMP/ring_${size}_$pmtu.txt
    mpps=0; gbps=0
    for _ in $(seq "$ROUNDS"); do
        if ring_run "$out" write_bw -s "$size" -m "$pmtu" -D "$SECS" --report_gbits; then
            m=$(row_field "$out" 5)
            if [ "$(max2 "$m" "$mpps")" = "$m" ]; then mpps=$m; gbps=$(row_field "$out" 4); fi
        fi
    done
    echo "bench: test=write size=$size link=ring softrnic_mpps=$mpps gbps=$gbps pmtu=$pmtu"
done

# ---------------------------------------------------------------------
# 3. 16384 QPs against 1 QP (64 B WRITEs, ring, one engine lcore).
# ---------------------------------------------------------------------
# 4 WRs in flight per QP (65536 in all), a ring pair deep enough to hold
# them and a 4.3 s ACK timeout (-u 20): with perftest's 67 ms (-u 14) the
# queueing delay of 65536 packets on one lcore would look like loss (see
# doc/benchmarks.md). The 1-QP run uses the same link and perftest's -t 128.
one=0; many=0
for _ in $(seq "$ROUNDS"); do
    if ring_run "$TMP/q1.txt" write_bw -s 64 -q 1 -D "$SECS" --ring-size 131072; then
        one=$(max2 "$one" "$(row_field "$TMP/q1.txt" 5)")
    fi
    if ring_run "$TMP/q16k.txt" write_bw -s 64 -q 16384 -t 4 -u 20 -D "$SECS" --ring-size 131072; then
        many=$(max2 "$many" "$(row_field "$TMP/q16k.txt" 5)")
    fi
done
timeout 120 "$STATE" $EAL -m 512 --file-prefix=bench_st$$ >"$TMP/state.txt" 2>&1
state=$(sed -n 's/^state_bytes_per_qp=\([0-9]*\).*/\1/p' "$TMP/state.txt")
heap=$(sed -n 's/.*heap_state_bytes_per_qp=\([0-9]*\).*/\1/p' "$TMP/state.txt")
awk -v a="$many" -v b="$one" -v s="${state:-0}" -v h="${heap:-0}" 'BEGIN {
    printf "bench: qps=16384 ratio=%.3f state_bytes_per_qp=%d qps1_mpps=%s qps16384_mpps=%s heap_state_bytes_per_qp=%d\n",
           (b > 0 ? a / b : 0), s, b, a, h }'

# ---------------------------------------------------------------------
# Optional: the -a sweep for doc/benchmarks.md's plot.
# ---------------------------------------------------------------------
if [ -n "${BENCH_SWEEP:-}" ]; then
    mkdir -p "$BENCH_SWEEP"
    for pmtu in 1024 4096; do
        ring_run "$TMP/sweep_$pmtu.txt" write_bw -a -m "$pmtu" -D 1 --margin 0.2 \
            --out_json "$BENCH_SWEEP/write_bw_sweep_$pmtu.json" --report_gbits &&
            echo "bench: sweep pmtu=$pmtu -> $BENCH_SWEEP/write_bw_sweep_$pmtu.json"
    done
    PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # Debian's, with python3-matplotlib
    "$PY" - "$BENCH_SWEEP" <<'EOF' || echo "bench: no plot (python3-matplotlib missing?)"
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = sys.argv[1]
fig, ax = plt.subplots(figsize=(7, 4.2))
for pmtu in (1024, 4096):
    r = json.load(open(f"{d}/write_bw_sweep_{pmtu}.json"))["results"]
    ax.plot([x["MsgSize"] for x in r], [x["BW_average"] for x in r], marker="o", label=f"PMTU {pmtu}")
ax.set_xscale("log", base=2)
ax.set_xlabel("message size [bytes]")
ax.set_ylabel("BW average [Gb/sec]")
ax.set_title("rnic-perf write_bw, ring pair, one engine lcore (--rtc)")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(f"{d}/write_bw_sweep.png", dpi=110)
print(f"bench: plot -> {d}/write_bw_sweep.png")
EOF
fi
echo "bench: done in $(( $(date +%s) - start )) s"
