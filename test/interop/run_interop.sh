#!/bin/bash
# Suite 'interop' (issue 7, doc/interop.md): softrnic against the Linux
# kernel's Soft-RoCE (rdma_rxe) in a QEMU TCG guest, through the harness of
# $RXE_HARNESS (default /work/shared/interop; read-only, see its README).
#
# Reduced matrix, one guest booted once per run: ibv_{rc,uc,ud}_pingpong with
# rnic-pingpong as client and as server, then RC both ways with net_impair
# dropping 1% of softrnic's frames. Pass: each side's exit status 0, the
# guest printed its result lines, softrnic checked every byte and
# completion ("verified: ... errors=0").
# Then perftest (rnic-perftest-peer): ib_write_bw and ib_read_bw, 4096 B,
# softrnic as client and as server. Pass: both exit 0, the guest printed
# its results table, softrnic "verified: ops=N ... errors=0".
#
# Exit 77 (skip, with the reason) when the machine cannot do it: not root,
# no /dev/net/tun, no harness, setup.sh failed (QEMU/kernel not
# installable, no mirror), or SOFTRNIC_INTEROP=0. Teardown always stops the
# guest and takes the bridge down unless other guests still use it.
#
# usage: run_interop.sh RNIC_PINGPONG_BINARY RNIC_PERFTEST_PEER_BINARY
set -u
PP=$1
PT=${2:-}
HARNESS=${RXE_HARNESS:-/work/shared/interop}
R=$HARNESS/run-rxe-peer.sh
export RXE_WORK=${RXE_WORK:-/var/tmp/rxe-ci}
NAME=ci$(( $$ % 100000 ))
GUEST_IP=10.99.0.31
ENGINE_IP=10.99.0.32
OUT=$(mktemp -d /tmp/softrnic-interop.XXXXXX)
EAL=(--no-huge --no-pci --no-shconf -m 512 --log-level='*:warning' --no-telemetry
     --vdev=net_af_packet0,iface=rxeveth0p)
LOSSY=(--vdev=net_impair0,port=net_af_packet0,drop=0.01,seed=7)
SHARE=$RXE_WORK/share
bg=
started=

skip() { echo "SKIP interop: $*"; exit 77; }
[ "${SOFTRNIC_INTEROP:-1}" = 0 ] && skip "SOFTRNIC_INTEROP=0"
[ "$(id -u)" = 0 ] || skip "needs root (bridge, tap, veth, AF_PACKET)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
[ -x "$R" ] && [ -x "$HARNESS/setup.sh" ] || skip "no Soft-RoCE harness at $HARNESS (set RXE_HARNESS)"
[ -x "$PP" ] || { echo "FAIL: no rnic-pingpong at $PP"; exit 1; }
[ -z "$PT" ] || [ -x "$PT" ] || { echo "FAIL: no rnic-perftest-peer at $PT"; exit 1; }

cleanup() {
    [ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
    if [ -n "$started" ]; then
        "$R" stop "$NAME" >/dev/null 2>&1
        # Take the bridge down unless another guest (another RXE_WORK) uses it.
        if [ -z "$(ls /sys/class/net/rxebr0/brif 2>/dev/null | grep -v '^rxeveth0$')" ]; then
            "$R" bridge-down >/dev/null 2>&1
        else
            echo "interop: bridge rxebr0 left up: other guests use it"
        fi
    fi
    rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

t0=$(date +%s.%N)
if ! timeout 900 "$HARNESS/setup.sh" > "$OUT/setup.log" 2>&1; then
    tail -5 "$OUT/setup.log"
    skip "harness setup.sh failed (QEMU, kernel or packages not installable here)"
fi
echo "interop: setup $(echo "$(date +%s.%N) - $t0" | bc) s"
started=1
"$R" start "$NAME" "$GUEST_IP/24" > "$OUT/start.log" 2>&1 || { cat "$OUT/start.log"; echo "FAIL: guest start"; exit 1; }
if ! "$R" wait "$NAME" 180; then
    tail -20 "$RXE_WORK/logs/$NAME.console.log"; echo "FAIL: guest did not come up"; exit 1
fi

# wait_for FILE PATTERN SECONDS: bounded poll for PATTERN in FILE.
wait_for() {
    local end=$(( $(date +%s) + $3 ))
    while [ "$(date +%s)" -le $end ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

pass=0; fail=0; results=()
# case TYPE ROLE(softrnic's: client|server) SIZE ITERS [lossy]
run_case() {
    local t=$1 role=$2 s=$3 n=$4 lossy=${5:-}
    local tag="$t-$role-$s${lossy:+-lossy}" eal=("${EAL[@]}") port=()
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" hrc grc=
    local gcmd="timeout 120 ibv_${t}_pingpong -d rxe0 -g 1 -n $n -s $s"
    [ -n "$lossy" ] && eal+=("${LOSSY[@]}") && port=(--port-id 1)
    rm -f "$glog"
    local ts=$(date +%s.%N)
    if [ "$role" = client ]; then
        "$R" con "$NAME" "$gcmd > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        timeout 150 "$PP" "${eal[@]}" -- "${port[@]}" --$t --ip $ENGINE_IP -n $n -s $s \
            --timeout 120 $GUEST_IP > "$hlog" 2>&1
        hrc=$?
    else
        timeout 150 "$PP" "${eal[@]}" -- "${port[@]}" --$t --ip $ENGINE_IP -n $n -s $s \
            --timeout 120 > "$hlog" 2>&1 &
        bg=$!
        if wait_for "$hlog" "listening on port" 30; then
            "$R" con "$NAME" "$gcmd 10.99.0.1 > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        fi
        wait "$bg"; hrc=$?; bg=
    fi
    wait_for "$glog" "^RC=" 60 && grc=$(sed -n 's/^RC=//p' "$glog")
    local el=$(echo "$(date +%s.%N) - $ts" | bc)
    local usec=$(sed -n 's/.* = \([0-9.]*\) usec\/iter/\1/p' "$glog" 2>/dev/null)
    if [ "$hrc" = 0 ] && grep -q "verified: messages=$n .* errors=0" "$hlog" && [ "$grc" = 0 ] &&
       grep -q "iters in" "$glog"; then
        pass=$((pass + 1)); results+=("PASS  $tag  n=$n  guest ${usec} usec/iter  (${el%.*} s)")
    else
        fail=$((fail + 1)); results+=("FAIL  $tag  softrnic rc=$hrc guest rc=${grc:-none}")
        echo "---- $tag: softrnic"; cat "$hlog"; echo "---- $tag: guest"; cat "$glog" 2>/dev/null
    fi
}

run_case rc client 4096 100
run_case rc server 4096 100
run_case uc client 4096 100
run_case uc server 4096 100
run_case ud client 1024 100
run_case ud server 1024 100
run_case rc client 4096 100 lossy
run_case rc server 4096 100 lossy

# perftest case TEST(write|read) ROLE(softrnic's) SIZE ITERS
run_pt_case() {
    local t=$1 role=$2 s=$3 n=$4 lossy=${5:-}
    local eal=("${EAL[@]}") extra=()
    if [ -n "$lossy" ]; then eal+=("${LOSSY[@]}"); extra=(--port-id 1); fi
    local tag="pt-$t-$role-$s${lossy:+-lossy}"
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" hrc grc=
    local gcmd="timeout 120 ib_${t}_bw -d rxe0 -x 1 -s $s -n $n"
    rm -f "$glog"
    local ts=$(date +%s.%N)
    if [ "$role" = client ]; then
        "$R" con "$NAME" "$gcmd > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        timeout 150 "$PT" "${eal[@]}" -- --test $t --ip $ENGINE_IP -n $n -s $s \
            --timeout 120 "${extra[@]}" $GUEST_IP > "$hlog" 2>&1
        hrc=$?
    else
        timeout 150 "$PT" "${eal[@]}" -- --test $t --ip $ENGINE_IP -n $n -s $s \
            --timeout 120 "${extra[@]}" > "$hlog" 2>&1 &
        bg=$!
        if wait_for "$hlog" "listening on port" 30; then
            "$R" con "$NAME" "$gcmd 10.99.0.1 > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        fi
        wait "$bg"; hrc=$?; bg=
    fi
    wait_for "$glog" "^RC=" 60 && grc=$(sed -n 's/^RC=//p' "$glog")
    local el=$(echo "$(date +%s.%N) - $ts" | bc)
    local row=$(grep -A1 '#bytes' "$glog" 2>/dev/null | tail -1 | tr -s ' \t' ' ')
    if [ "$hrc" = 0 ] && grep -q "verified: ops=$n .* errors=0" "$hlog" && [ "$grc" = 0 ] &&
       grep -q "^ *$s *$n " "$glog"; then
        pass=$((pass + 1)); results+=("PASS  $tag  n=$n  guest:$row  (${el%.*} s)")
    else
        fail=$((fail + 1)); results+=("FAIL  $tag  softrnic rc=$hrc guest rc=${grc:-none}")
        echo "---- $tag: softrnic"; cat "$hlog"; echo "---- $tag: guest"; cat "$glog" 2>/dev/null
    fi
}

if [ -n "$PT" ]; then
    run_pt_case write client 4096 200
    run_pt_case write server 4096 200
    run_pt_case read client 4096 200
    run_pt_case read server 4096 200
    # softrnic serving READs while 1% of its link is lost (a duplicate
    # READ train used to cost a READ slot and end in a fatal NAK)
    run_pt_case read server 4096 300 lossy
fi

printf '%s\n' "${results[@]}"
echo "interop: $pass passed, $fail failed ($(echo "$(date +%s.%N) - $t0" | bc | cut -d. -f1) s)"
[ $fail = 0 ]
