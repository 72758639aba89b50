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
# Then perftest ('rnic-perf -- --perftest' against the guest's perftest 6.06):
# ib_write_bw, ib_read_bw, ib_send_bw 4096 B both ways, ib_read_bw served
# and (65536 B) driven under 1% loss, ib_read_bw -a driven, ib_write_lat
# and ib_read_lat 1025 B both ways, ib_send_lat 1025 B softrnic serving,
# ib_atomic_bw FETCH_AND_ADD softrnic serving and CMP_AND_SWAP softrnic as
# client. Pass: both exit 0, the guest printed its
# results, softrnic "verified: ops=N ... errors=0" (it checks the data).
# The guest's perftest runs with -F: without it, a bandwidth test whose
# clock calibration fails under TCG ("Correlation coefficient r^2: ... <
# 0.9") exits 1 at its report ("Can't produce a report") after a good run.
# SOFTRNIC_INTEROP_PERFTEST=full runs the whole perftest matrix of
# doc/interop.md instead (no pingpong cases; about 10 minutes);
# SOFTRNIC_INTEROP_PERFTEST=cases SOFTRNIC_INTEROP_CASES='read client all 5;...'
# runs only the perftest cases named (run_pt_case's arguments);
# SOFTRNIC_INTEROP_PERFTEST=none runs only the pingpong cases (make
# test-asan). SOFTRNIC_INTEROP_KEEP=1 keeps softrnic's logs (counters) of
# every case.
#
# Environment faults (doc/interop.md, "Environment faults"): a case that
# fails while the guest shows a fault of its own (its QEMU exited, its
# virtio-net transmit queue stalled: "NETDEV WATCHDOG", its kernel
# answering no TCP from the host: guest_net, its perftest refused to
# report: "Can't produce a report") is run once more, on a
# rebooted guest if need be, and the second run decides: PASS (the line
# names the first run's fault) or FAIL (a fault in both runs is a FAIL
# too). Every other failure is a FAIL at once. A guest that does not come
# up again leaves the remaining cases ENV-FAIL (not run); a fourth guest
# fault in one run leaves them FAIL. Exit status: 1 if any case FAILed;
# else 77 (skip, with the reason) if the guest did not boot (twice) or more
# than half the cases are ENV-FAIL; else 0. SOFTRNIC_INTEROP_ENV_FATAL=1
# makes any ENV-FAIL fail the suite.
#
# Exit 77 (skip, with the reason) also when the machine cannot do it: not
# root, no /dev/net/tun, no harness, setup.sh failed (QEMU/kernel not
# installable, no mirror), or SOFTRNIC_INTEROP=0. Teardown always stops the
# guest and takes the bridge down unless other guests still use it.
#
# Then rnic-rping against the guest's rping, connected by the CM (issue
# 21): rp_case below; SOFTRNIC_INTEROP_RPING=0 leaves them out.
#
# Then (with IBVERBS_LIBDIR) Debian's unmodified ibv_*_pingpong and
# perftest binaries over softrnic's libibverbs.so.1 against the same
# programs over rxe, both roles, and under 1% loss (iv_case below);
# SOFTRNIC_INTEROP_IBVERBS=0 leaves them out, SOFTRNIC_INTEROP_IV_CASES
# runs only the ones named. With them, rdma_cm programs over softrnic's
# librdmacm.so.1 (cm_case below); SOFTRNIC_INTEROP_CM=0 leaves them out,
# SOFTRNIC_INTEROP_CM_CASES runs only the ones named.
#
# usage: run_interop.sh RNIC_PINGPONG_BINARY [RNIC_PERF_BINARY [IBVERBS_LIBDIR]]
set -u
PP=$1
PT=${2:-}
IBV_LIB=${3:-}
[ -n "$IBV_LIB" ] && IBV_LIB=$(realpath "$IBV_LIB")
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
[ -z "$PT" ] || [ -x "$PT" ] || { echo "FAIL: no rnic-perf at $PT"; exit 1; }

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
    if [ -n "${SOFTRNIC_INTEROP_KEEP:-}" ]; then
        echo "interop: softrnic's logs kept in $OUT"
    else
        rm -rf "$OUT"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

t0=$(date +%s.%N)
# Not with meson's LD_LIBRARY_PATH (it points at build/lib/ibverbs for the
# tests that load softrnic's libibverbs.so.1): the initramfs copies the
# guest's programs with the libraries ldd finds, and it must find the
# host's libibverbs/librdmacm, not ours at a path the guest lacks.
if ! env -u LD_LIBRARY_PATH timeout 900 "$HARNESS/setup.sh" > "$OUT/setup.log" 2>&1; then
    tail -5 "$OUT/setup.log"
    skip "harness setup.sh failed (QEMU, kernel or packages not installable here)"
fi
echo "interop: setup $(echo "$(date +%s.%N) - $t0" | bc) s"
started=1
CON=$RXE_WORK/logs/$NAME.console.log

# boot_guest: (re)start the guest and wait until rxe0 is up; on failure
# print why and return 1. Nothing of softrnic's runs meanwhile.
boot_guest() {
    "$R" stop "$NAME" >/dev/null 2>&1
    if ! "$R" start "$NAME" "$GUEST_IP/24" > "$OUT/start.log" 2>&1; then
        cat "$OUT/start.log"; echo "interop: the guest did not start"; return 1
    fi
    if ! "$R" wait "$NAME" 180; then
        tail -20 "$CON" 2>/dev/null; echo "interop: the guest did not come up"; return 1
    fi
}
if ! boot_guest && ! boot_guest; then
    skip "environment: the guest did not boot (twice), nothing of softrnic's ran"
fi

# wait_for FILE PATTERN SECONDS [guest]: bounded poll for PATTERN in FILE;
# with "guest", give up as soon as the guest's QEMU is gone (it will not
# write FILE any more).
wait_for() {
    local end=$(( $(date +%s) + $3 )) polls=0
    while [ "$(date +%s)" -le $end ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        if [ "${4:-}" = guest ] && [ $(( ++polls % 10 )) = 0 ] && ! guest_alive; then
            return 1
        fi
        sleep 0.1
    done
    return 1
}
# guest_alive: the guest's QEMU runs (cheap: its pid file, no harness call).
guest_alive() {
    kill -0 "$(cat "$RXE_WORK/run/$NAME.pid" 2>/dev/null)" 2>/dev/null
}

pass=0; fail=0; envf=0; forgiven=0; lossy_retried=0; results=()

# The guest's health: QEMU alive and its virtio-net transmit queue not
# stalled. A TCG guest's transmit queue can stall for good under heavy
# load (its kernel logs "NETDEV WATCHDOG ... transmit queue 0 timed out"
# every 5 s); after that nothing it sends arrives. A reboot cures both.
# The watchdog fires only once the stalled queue has filled, which the
# few frames of the cases' TCP side channel take many cases to do, so
# the guest's network is probed from the host's kernel too (guest_net).
guest_fault() {
    if ! "$R" status "$NAME" >/dev/null 2>&1; then
        echo "the guest's QEMU exited"
    elif tr -d '\r' < "$CON" 2>/dev/null | grep -q "NETDEV WATCHDOG"; then
        echo "the guest's virtio-net transmit queue stalled (NETDEV WATCHDOG)"
    elif ! guest_net; then
        echo "the guest's kernel answers no TCP from the host over the bridge" \
             "(3 connects to its port $PROBE_PORT, 3 s each, neither refused nor accepted)"
    else
        return 1
    fi
}
# guest_net: 0 if the guest's kernel answers a TCP connect from the host
# (over rxebr0 and the guest's tap: the out-of-band path, no softrnic
# code on it) to a port nothing listens on: a live kernel refuses it at
# once (RST), a guest whose network carries nothing lets it time out.
# Three tries of 3 s, so a guest busy for a moment is not taken for dead.
PROBE_PORT=9
guest_net() {
    local i err
    for i in 1 2 3; do
        err=$(timeout 3 bash -c "exec 3<>/dev/tcp/$GUEST_IP/$PROBE_PORT" 2>&1) && return 0
        case $err in *"Connection refused"*) return 0 ;; esac
    done
    return 1
}
reboots=0; guest_down=
# ensure_guest: reboot a faulty guest; 1 if there is no usable guest, with
# guest_down=ENV (a reboot did not come up: nothing of softrnic's is
# involved) or FAIL (a fourth fault in one run: a flake does not recur so
# often, softrnic's traffic may be what wedges the guest).
ensure_guest() {
    local why
    [ -n "$guest_down" ] && return 1
    why=$(guest_fault) || return 0
    tr -d '\r' < "$CON" 2>/dev/null | grep -m2 "NETDEV WATCHDOG"
    if [ $reboots -ge 3 ]; then
        echo "interop: $why, after 3 reboots: not running the remaining cases"
        guest_down=FAIL; return 1
    fi
    reboots=$((reboots + 1))
    echo "interop: $why; rebooting the guest ($reboots)"
    boot_guest || { guest_down=ENV; return 1; }
}

# env_fault GUEST_LOG: for a failed case, the guest's own fault that a
# flake of the emulation explains (printed), if any: QEMU gone, the guest's
# transmit queue stalled, perftest's refusal to report (printed after its
# run completed, then it exits 1; -F prevents it). Only these, and only
# with the guest's own evidence: a guest that merely timed out or exited
# non-zero is a FAIL.
env_fault() {
    guest_fault && return 0
    if grep -q "Can't produce a report" "$1" 2>/dev/null; then
        echo "the guest's perftest refused to report (its CPU-frequency check:" \
             "$(grep -m1 -o 'Correlation coefficient.*' "$1" 2>/dev/null || echo 'no r^2 line'))"
        return 0
    fi
    return 1
}

# judged CASE_FUNCTION ARGS...: run a case (which sets V=PASS|FAIL|ENV, T
# its tag, D the detail), once more if it was ENV, and record it. One
# environment fault is forgiven; the same fault again is a FAIL, since it
# could then be softrnic's doing (a traffic storm can wedge a TCG guest).
judged() {
    local first
    "$@"
    if [ "$V" = ENV ] && [ -z "$NOTRUN" ]; then
        first=$D
        echo "interop: $T: environment fault ($first): running it once more" >&2
        "$@"
        if [ -n "$NOTRUN" ]; then
            D="$D  [the first run: ENV-FAIL, $first]"
        elif [ "$V" = ENV ]; then
            V=FAIL D="$D  [an environment fault in both runs: not forgiven twice]"
        else
            forgiven=$((forgiven + 1))
            D="$D  [second run; the first: ENV-FAIL, $first]"
        fi
    fi
    case $V in
        PASS) pass=$((pass + 1)); results+=("PASS      $T  $D") ;;
        ENV) envf=$((envf + 1)); results+=("ENV-FAIL  $T  $D (the environment's, not softrnic's)") ;;
        *) fail=$((fail + 1)); results+=("FAIL      $T  $D") ;;
    esac
    echo "${results[-1]}" >&2
}

# not_passed [FAIL_DETAIL]: the verdict of a case that did not pass: ENV
# when the guest shows a fault of its own (env_fault), else FAIL; the logs
# shown either way. Reads the caller's tag, hlog, glog, hrc and grc.
not_passed() {
    local why
    if why=$(env_fault "$glog"); then
        V=ENV D="softrnic rc=$hrc guest rc=${grc:-none}: $why"
        show_logs "$tag" ENV-FAIL "$hlog" "$glog"
    else
        V=FAIL D="softrnic rc=$hrc guest rc=${grc:-none}${1:+ $1}"
        show_logs "$tag" FAIL "$hlog" "$glog"
    fi
}

# show_logs TAG VERDICT HOST_LOG GUEST_LOG: a failed attempt's logs.
show_logs() {
    echo "---- $1 ($2): softrnic"; cat "$3"; echo "---- $1 ($2): guest"; cat "$4" 2>/dev/null
}

# pp_case TYPE ROLE(softrnic's: client|server) SIZE ITERS [lossy]
pp_case() {
    local t=$1 role=$2 s=$3 n=$4 lossy=${5:-}
    local tag="$t-$role-$s${lossy:+-lossy}" eal=("${EAL[@]}") port=()
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" hrc grc= why
    local gcmd="timeout 120 ibv_${t}_pingpong -d rxe0 -g 1 -n $n -s $s"
    T=$tag NOTRUN=
    if ! ensure_guest; then
        V=$guest_down D="not run: no usable guest" NOTRUN=1; return
    fi
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
    wait_for "$glog" "^RC=" 60 guest && grc=$(sed -n 's/^RC=//p' "$glog")
    local el=$(echo "$(date +%s.%N) - $ts" | bc)
    local usec=$(sed -n 's/.* = \([0-9.]*\) usec\/iter/\1/p' "$glog" 2>/dev/null)
    if [ "$hrc" = 0 ] && grep -q "verified: messages=$n .* errors=0" "$hlog" && [ "$grc" = 0 ] &&
       grep -q "iters in" "$glog"; then
        V=PASS D="n=$n  guest ${usec} usec/iter  (${el%.*} s)"
    else
        not_passed
    fi
}
run_case() { judged pp_case "$@"; }

if [ "${SOFTRNIC_INTEROP_PERFTEST:-ci}" = ci ] || [ "${SOFTRNIC_INTEROP_PERFTEST:-ci}" = none ]; then
    run_case rc client 4096 100
    run_case rc server 4096 100
    run_case uc client 4096 100
    run_case uc server 4096 100
    run_case ud client 1024 100
    run_case ud server 1024 100
    run_case rc client 4096 100 lossy
    run_case rc server 4096 100 lossy
fi

# guest_ll6: wait until the guest's link-local IPv6 address is usable (a
# guest just booted still runs duplicate address detection on it:
# tentative, rxe cannot send from it and ibv_create_ah fails; at most
# 10 s) and put it in GLL6.
guest_ll6() {
    GLL6=
    rm -f "$SHARE/$NAME-ll6.txt"
    "$R" con "$NAME" "i=0; while ip -6 addr show dev eth0 | grep -q tentative && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; ip -6 -o addr show dev eth0 | awk '{print \$4}' | cut -d/ -f1 > /share/$NAME-ll6.txt; echo DAD-DONE >> /share/$NAME-ll6.txt" 1 >/dev/null
    wait_for "$SHARE/$NAME-ll6.txt" DAD-DONE 15 guest && GLL6=$(grep -m1 '^fe80' "$SHARE/$NAME-ll6.txt")
}

# rdma_cm (issue 21): rnic-rping against the guest's unmodified rping,
# connected by the CM over QP1 (REQ/REP/RTU, DREQ/DREP), 10 pings of 64
# bytes each way of the protocol (the client's buffer RDMA READ by the
# server, written back into the client's sink), validated (-V) by the
# client. Pass: both exit 0, softrnic says "iterations=10 errors=0", the
# guest printed its 10 ping lines.
RP=${RNIC_RPING:-$(dirname "$PP")/../rnic-rping/rnic-rping}
# rp_case ROLE(softrnic's: server|client) [ipv6]: with ipv6, over
# link-local addresses (softrnic's fe80::2, the guest's own).
rp_case() {
    local role=$1 v6=${2:-} tag="rping-$1${2:+-ipv6}" glog hlog hrc grc= why pat
    local saddr=$ENGINE_IP gaddr=$GUEST_IP gbind=$GUEST_IP ip6=()
    glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log"
    T=$tag NOTRUN=
    if ! ensure_guest; then
        V=$guest_down D="not run: no usable guest" NOTRUN=1; return
    fi
    if [ -n "$v6" ]; then
        guest_ll6
        saddr=fe80::2%eth0 gaddr=$GLL6 gbind=$GLL6%eth0 ip6=(--ip6 fe80::2)
    fi
    rm -f "$glog"
    local ts=$(date +%s.%N)
    if [ "$role" = server ]; then
        timeout 100 "$RP" "${EAL[@]}" -- -s -C 10 -S 64 -v --ip $ENGINE_IP "${ip6[@]}" \
            --timeout 80 > "$hlog" 2>&1 &
        bg=$!
        if wait_for "$hlog" "listening on port" 30; then
            "$R" con "$NAME" "timeout 60 rping -c -a $saddr -C 10 -S 64 -v -V > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        fi
        wait "$bg"; hrc=$?; bg=
        pat='^ping data: rdma-ping-'
    else
        "$R" con "$NAME" "timeout 60 rping -s -a $gbind -C 10 -S 64 -v > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        timeout 100 "$RP" "${EAL[@]}" -- -c -w -a $gaddr -C 10 -S 64 -V --ip $ENGINE_IP \
            "${ip6[@]}" --timeout 80 > "$hlog" 2>&1
        hrc=$?
        pat='^server ping data: rdma-ping-'
    fi
    wait_for "$glog" "^RC=" 60 guest && grc=$(sed -n 's/^RC=//p' "$glog")
    local el=$(echo "$(date +%s.%N) - $ts" | bc) pings
    pings=$(grep -c "$pat" "$glog" 2>/dev/null)
    if [ "$hrc" = 0 ] && grep -q "iterations=10 errors=0" "$hlog" && [ "$grc" = 0 ] &&
       [ "$pings" = 10 ]; then
        V=PASS D="10 pings, guest printed $pings  (${el%.*} s)"
    else
        not_passed "guest pings=${pings:-0}"
    fi
}
if [ -x "$RP" ] && [ "${SOFTRNIC_INTEROP_RPING:-1}" != 0 ]; then
    judged rp_case server
    judged rp_case client
    judged rp_case server ipv6
    judged rp_case client ipv6
fi

# perftest cases (rnic-perf --perftest). softrnic's AF_PACKET ring gets 8192
# frames: the PMD's default 512 overflows when this 2-CPU host deschedules
# the poller during a multi-MiB READ response burst (doc/interop.md).
run_pt_case() { judged pt_case "$@"; }
PT_EAL=("${EAL[@]/%iface=rxeveth0p/iface=rxeveth0p,framecnt=8192}")

# wait_host PID GUEST_LOG: wait for softrnic's side; if the guest's command
# already ended (RC= line) or its QEMU exited and softrnic is still waiting
# 20 s later, stop it.
wait_host() {
    local pid=$1 glog=$2 gend= polls=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ -z "$gend" ] && grep -q "^RC=" "$glog" 2>/dev/null; then gend=$(date +%s); fi
        # a guest whose QEMU exited will not answer: as if its command ended
        if [ -z "$gend" ] && [ $(( ++polls % 10 )) = 0 ] && ! guest_alive; then
            gend=$(date +%s)
        fi
        if [ -n "$gend" ] && [ $(( $(date +%s) - gend )) -gt 20 ]; then
            echo "interop: guest side ended 20 s ago, stopping softrnic" >&2
            kill "$pid" 2>/dev/null
        fi
        sleep 0.1
    done
    wait "$pid"
}

# end_pair PID GUEST_LOG GUEST_PROGRAM: wait for softrnic's side (PID),
# then for the guest's "RC=" line (10 s only when softrnic's side failed:
# the guest's program may wait for it forever; then it is killed). Sets
# the caller's hrc and grc (empty: the guest's never ended) and clears bg.
end_pair() {
    wait_host "$1" "$2"; hrc=$?; bg=
    local gwait=60
    [ "$hrc" != 0 ] && gwait=10
    grc=
    if wait_for "$2" "^RC=" $gwait guest; then
        grc=$(sed -n 's/^RC=//p' "$2")
    else
        "$R" con "$NAME" "killall $3" 1 >/dev/null 2>&1
    fi
}

# run_pt_case TEST ROLE(softrnic's: client|server) SIZE ITERS [lossy] [softrnic options]
#   TEST: write|read|send (ib_<t>_bw), atomic-fa|atomic-cs (ib_atomic_bw
#   -A FETCH_AND_ADD|CMP_AND_SWAP), write_lat|send_lat|read_lat; SIZE: bytes,
#   or "all" for -a (2..8 MiB). Pass: both exit 0, the guest printed its
#   result line(s) (not ib_read_lat's server, which prints none), softrnic
#   "verified: ops=<iters x sizes> ... errors=0". The guest's perftest
#   runs with -F (see the header).
pt_case() {
    local t=$1 role=$2 s=$3 n=$4 lossy=${5:-}
    local eal=("${PT_EAL[@]}") hextra=(${6:-}) opt=() gbin host_t=$t nsz=1 last=$s
    if [ -n "$lossy" ]; then eal+=("${LOSSY[@]}"); hextra+=(--port-id 1); fi
    case $t in
        write|read|send) gbin=ib_${t}_bw ;;
        atomic-fa) gbin=/share/ib_atomic_bw; host_t=atomic; opt=(-A FETCH_AND_ADD) ;;
        atomic-cs) gbin=/share/ib_atomic_bw; host_t=atomic; opt=(-A CMP_AND_SWAP) ;;
        *) gbin=ib_$t ;;
    esac
    if [ "$s" = all ]; then opt+=(-a); nsz=23; last=8388608
    elif [ "${t#atomic}" = "$t" ]; then opt+=(-s "$s")
    else last=8; fi
    local tag="pt-$t-$role-$s${lossy:+-lossy}${6:+-${6// /}}"
    T=$tag NOTRUN=
    if ! ensure_guest; then
        V=$guest_down D="not run: no usable guest" NOTRUN=1; return
    fi
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" hrc grc= why
    local gcmd="timeout $PT_GT $gbin -d rxe0 -x 1 -F ${opt[*]} -n $n"
    rm -f "$glog"
    local ts=$(date +%s.%N)
    if [ "$role" = client ]; then
        "$R" con "$NAME" "$gcmd > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        timeout $((PT_GT + 30)) "$PT" "${eal[@]}" -- --perftest --test $host_t --ip $ENGINE_IP "${opt[@]}" \
            -n $n --timeout $PT_GT "${hextra[@]}" $GUEST_IP > "$hlog" 2>&1 &
        bg=$!
    else
        timeout $((PT_GT + 30)) "$PT" "${eal[@]}" -- --perftest --test $host_t --ip $ENGINE_IP "${opt[@]}" \
            -n $n --timeout $PT_GT "${hextra[@]}" > "$hlog" 2>&1 &
        bg=$!
        if wait_for "$hlog" "listening on port" 30; then
            "$R" con "$NAME" "$gcmd 10.99.0.1 > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        fi
    fi
    wait_host "$bg" "$glog"; hrc=$?; bg=
    wait_for "$glog" "^RC=" 60 guest && grc=$(sed -n 's/^RC=//p' "$glog")
    local el=$(echo "$(date +%s.%N) - $ts" | bc)
    local row=$(grep -E "^ *$last +$n " "$glog" 2>/dev/null | tail -1 | tr -s ' \t' ' ')
    local need_row=1
    [ "$t" = read_lat ] && [ "$role" = client ] && need_row=
    if [ "$hrc" = 0 ] && grep -q "verified: ops=$((n * nsz)) .* errors=0" "$hlog" && [ "$grc" = 0 ] &&
       { [ -z "$need_row" ] || [ -n "$row" ]; }; then
        V=PASS D="n=$n  guest:${row:- (server prints no figures)}  (${el%.*} s)"
        # With -F perftest goes on when its clock calibration fails; its
        # figures are then meaningless (0 or inf), the run is not.
        grep -q "Correlation coefficient" "$glog" 2>/dev/null &&
            D="$D  (guest clock calibration failed: its figures are void)"
    else
        not_passed
    fi
}

if [ -n "$PT" ] && [ "${SOFTRNIC_INTEROP_PERFTEST:-ci}" != none ]; then
    PT_GT=120
    # ib_atomic_bw is not in the harness's initramfs: run the host's copy
    # (same perftest package and libraries) from the guest's /share.
    cp /usr/bin/ib_atomic_bw "$SHARE/" 2>/dev/null ||
        echo "interop: no /usr/bin/ib_atomic_bw on the host; the atomic cases will fail"
    if [ "${SOFTRNIC_INTEROP_PERFTEST:-ci}" = cases ]; then
        # Only the perftest cases named in SOFTRNIC_INTEROP_CASES, each the
        # arguments of run_pt_case, separated by ';' (for reproducing one).
        PT_GT=150
        IFS=';' read -ra picked <<< "${SOFTRNIC_INTEROP_CASES:-}"
        for c in "${picked[@]}"; do
            eval "run_pt_case $c"
        done
    elif [ "${SOFTRNIC_INTEROP_PERFTEST:-ci}" = full ]; then
        # The whole matrix of doc/interop.md (about 10 minutes).
        PT_GT=150
        for t in write read send; do for s in 64 1024 1025 4096 65536; do
            n=500; [ $s = 65536 ] && n=200
            for r in server client; do run_pt_case $t $r $s $n; done
        done; done
        for t in atomic-fa atomic-cs; do for r in server client; do run_pt_case $t $r 8 500; done; done
        for t in write_lat send_lat read_lat; do for s in 64 1024 1025 4096 65536; do
            n=100; [ $s = 65536 ] && n=50
            for r in server client; do run_pt_case $t $r $s $n; done
        done; done
        for t in write read send write_lat send_lat read_lat; do
            for r in server client; do run_pt_case $t $r all 5; done
        done
        for r in server client; do
            run_pt_case write $r 4096 300 lossy; run_pt_case write $r 65536 100 lossy
            run_pt_case read $r 4096 300 lossy; run_pt_case read $r 65536 100 lossy
            run_pt_case send $r 4096 300 lossy; run_pt_case atomic-fa $r 8 300 lossy
            run_pt_case write_lat $r 4096 100 lossy; run_pt_case send_lat $r 4096 100 lossy
            run_pt_case read_lat $r 4096 100 lossy
        done
    else
        run_pt_case write client 4096 200
        run_pt_case write server 4096 200
        run_pt_case read client 4096 200
        run_pt_case read server 4096 200
        # softrnic serving READs while 1% of its link is lost (a duplicate
        # READ train used to cost a READ slot and end in a fatal NAK)
        run_pt_case read server 4096 300 lossy
        # softrnic reading under 1% loss, and 2 B..8 MiB while the guest
        # drops READ response bursts: READs resumed at the missing PSN
        run_pt_case read client 65536 100 lossy
        run_pt_case read client all 5
        run_pt_case send client 4096 200
        run_pt_case send server 4096 200
        run_pt_case write_lat client 1025 100
        run_pt_case write_lat server 1025 100
        run_pt_case read_lat client 1025 100
        run_pt_case read_lat server 1025 100
        run_pt_case send_lat server 1025 100
        run_pt_case atomic-fa server 8 300
        run_pt_case atomic-cs client 8 300
    fi
fi

# Unmodified libibverbs programs (issue 19, doc/ibverbs.md): Debian's own
# /usr/bin ibv_*_pingpong and perftest binaries over softrnic's
# libibverbs.so.1 (LD_LIBRARY_PATH=$IBV_LIB, SOFTRNIC_CONFIG a JSON file
# written here: net_af_packet on rxeveth0p, softrnic's IP; "lossy" puts
# net_impair dropping 1% of softrnic's frames in between), against the
# same programs over rxe in the guest. GID index 0 on softrnic (its one
# RoCEv2 GID), 1 in the guest. Pass: both exit 0, the client printed its
# result (pingpong's "iters in" line; with -c the received buffers were
# checked), the server printed its row where perftest prints one.
# With "ipv6" (issue 21) both sides use their IPv6 GID instead: the
# guest's link-local one (index 0; its neighbour discovery finds
# softrnic's MAC, softrnic's finds the guest's), softrnic's fe80::2
# (index 1 of its table: ports[].ipv6).
# iv_case PROGRAM ROLE(softrnic's: client|server) "ARGS" [lossy|""] [ipv6]
iv_case() {
    local prog=$1 role=$2 args=$3 lossy=${4:-} v6=${5:-}
    local short=${prog#ibv_}; short=${short#ib_}
    local tag="ibv-$short-$role${lossy:+-lossy}${v6:+-ipv6}" gidopt=-x gbin=$prog pat cfg
    local ggid=1 hgid=0
    [ -n "$v6" ] && ggid=0 hgid=1
    [ "${prog#ibv_}" != "$prog" ] && gidopt=-g
    [ "$prog" = ib_atomic_bw ] && gbin=/share/ib_atomic_bw
    [ "${args#*CMP_AND_SWAP}" != "$args" ] && tag="$tag-cs"
    case $prog in
        ibv_*) pat='iters in' ;;
        *_lat) pat='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' ;;
        *) pat='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+[[:space:]]+[0-9.]+[[:space:]]*$' ;;
    esac
    T=$tag NOTRUN=
    if ! ensure_guest; then
        V=$guest_down D="not run: no usable guest" NOTRUN=1; return
    fi
    cfg=$OUT/ibverbs${lossy:+-lossy}.json
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" hrc grc= why
    [ -n "$v6" ] && guest_ll6
    local gcmd="timeout 100 $gbin -d rxe0 $gidopt $ggid $args"
    local hcmd=(env SOFTRNIC_CONFIG="$cfg" LD_LIBRARY_PATH="$IBV_LIB" SOFTRNIC_STATS=1
                timeout 130 /usr/bin/$prog -d softrnic_0 $gidopt $hgid $args)
    rm -f "$glog"
    local ts=$(date +%s.%N)
    if [ "$role" = client ]; then
        "$R" con "$NAME" "$gcmd > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
        (cd "$OUT" && exec "${hcmd[@]}" $GUEST_IP) > "$hlog" 2>&1 &
        bg=$!
    else
        (cd "$OUT" && exec "${hcmd[@]}") > "$hlog" 2>&1 &
        bg=$!
        # the program listens on TCP 18515 once its device is open
        local end=$(( $(date +%s) + 30 ))
        while [ "$(date +%s)" -le $end ] && kill -0 "$bg" 2>/dev/null &&
              [ -z "$(ss -Hltn 'sport = :18515' 2>/dev/null)" ]; do sleep 0.1; done
        "$R" con "$NAME" "$gcmd 10.99.0.1 > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
    fi
    end_pair "$bg" "$glog" "${gbin##*/}"
    local el=$(echo "$(date +%s.%N) - $ts" | bc)
    local clog=$hlog slog=$glog row srow=1 cpat=$pat spat=$pat gpat=$pat
    # With -F the guest's perftest reports after a failed clock
    # calibration ("Correlation coefficient r^2: ... < 0.9", the TCG
    # guest's clock): its figures are then inf or nan, its row is still
    # its report (pt_case's row pattern takes them too).
    grep -q "Correlation coefficient" "$glog" 2>/dev/null &&
        gpat=${pat//'[0-9.]+'/'([0-9.]+|inf|-?nan)'}
    if [ "$role" = server ]; then clog=$glog slog=$hlog cpat=$gpat; else spat=$gpat; fi
    row=$(grep -E "$cpat" "$clog" 2>/dev/null | tail -1 | tr -s ' \t' ' ')
    case $prog in
        ib_*_bw|ib_write_lat|ib_send_lat) grep -qE "$spat" "$slog" 2>/dev/null || srow= ;;
    esac
    if [ "$hrc" = 0 ] && [ "$grc" = 0 ] && [ -n "$row" ] && [ -n "$srow" ]; then
        V=PASS D="args=\"$args\"  client:$row  (${el%.*} s)"
        grep -q "Correlation coefficient" "$glog" 2>/dev/null &&
            D="$D  (guest clock calibration failed: its figures are void)"
    else
        not_passed "args=\"$args\""
    fi
}
# iv_config FILE [lossy]: the library's configuration (config/README.md).
iv_config() {
    local dev=net_af_packet0 extra=
    if [ -n "${2:-}" ]; then
        dev=net_impair0
        extra=', "--vdev=net_impair0,port=net_af_packet0,drop=0.01,seed=7"'
    fi
    cat > "$1" <<EOF
{
  "eal": ["--no-huge", "--no-pci", "--no-shconf", "-m", "512", "--no-telemetry",
          "--log-level=*:warning", "--file-prefix=softrnic_ibv_interop_$$",
          "--vdev=net_af_packet0,iface=rxeveth0p,framecnt=8192"$extra],
  "ports": [{"name": "rxe", "device": "$dev", "ipv4": "$ENGINE_IP", "ipv6": "fe80::2",
             "mtu": 1024}]
}
EOF
}
# A lossy case that FAILs is run once more and the second run decides
# (the line names the first failure): against the emulated guest, 1% loss
# with perftest's fixed retry count (7) and timeout (14: 67 ms) ends in
# RETRY_EXC_ERR now and then (about 1 run in 20 of ib_read_bw, the guest
# silent for 8 timeouts in a row; doc/interop.md "Flakes"). Two failures
# in a row fail the suite.
run_iv_case() {
    judged iv_case "$@"
    if [ "${4:-}" = lossy ] && [ "$V" != PASS ] && [ "$V" != ENV ]; then
        local first=$D
        unset 'results[-1]'
        fail=$((fail - 1))
        echo "interop: $T: failed under loss ($first): running it once more" >&2
        judged iv_case "$@"
        unset 'results[-1]'
        case $V in
            PASS) pass=$((pass - 1)); lossy_retried=$((lossy_retried + 1))
                  D="$D  [second run; the first FAILed: $first]" ;;
            ENV) envf=$((envf - 1)); D="$D  [the first run FAILed: $first]" ;;
            *) fail=$((fail - 1)); D="$D  [failed twice; the first: $first]" ;;
        esac
        case $V in
            PASS) pass=$((pass + 1)); results+=("PASS      $T  $D") ;;
            ENV) envf=$((envf + 1)); results+=("ENV-FAIL  $T  $D (the environment's, not softrnic's)") ;;
            *) fail=$((fail + 1)); results+=("FAIL      $T  $D") ;;
        esac
        echo "${results[-1]}" >&2
    fi
}

# rdma_cm programs (issue 21): Debian's unmodified ib_write_bw -R,
# ucmatose and rping over softrnic's librdmacm.so.1 (beside its
# libibverbs.so.1 in $IBV_LIB), against the same programs over the guest's
# kernel rdma_cm and rxe: the connection by the IB CM over QP1, the data
# over the QP it connected. A server is started first and the client once
# it listens: softrnic's says so through SOFTRNIC_RDMACM_READY, the
# guest's is seen in `rdma resource show cm_id` (state LISTEN). Pass: both
# exit 0 and the client printed its result (perftest's row, ucmatose's
# "test complete" after 100 messages each way, rping's 10 validated
# pings). With ipv6: link-local addresses (softrnic's fe80::2, the
# guest's own), which perftest 4.5's -R does not take (IPv4 only).
# cm_case PROGRAM ROLE(softrnic's: client|server) [ipv6]
cm_case() {
    local prog=$1 role=$2 v6=${3:-}
    local tag="cm-${prog#ib_}-$role${v6:+-ipv6}" sargs cargs pat haddr=$ENGINE_IP gaddr=$GUEST_IP
    local sb=
    T=$tag NOTRUN=
    if ! ensure_guest; then
        V=$guest_down D="not run: no usable guest" NOTRUN=1; return
    fi
    if [ -n "$v6" ]; then
        # an IPv4 wildcard listener takes no IPv6 request (the kernel's
        # rule, and softrnic's): the server binds its link-local address
        guest_ll6
        haddr=fe80::2%eth0 gaddr=$GLL6 sb=fe80::2
        [ "$role" = client ] && sb=$GLL6%eth0
    fi
    case $prog in
        ib_write_bw) sargs="-R -F -n 1000"; cargs="$sargs"
                     pat='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+[[:space:]]+[0-9.]+[[:space:]]*$' ;;
        ucmatose) sargs="-C 100${sb:+ -b $sb}"; cargs="-C 100 -s"; pat='^test complete' ;;
        udaddy) sargs="-C 100${sb:+ -b $sb}"; cargs="-C 100 -s"; pat='^test complete' ;;
        rping) sargs="-s -v -C 10${sb:+ -a $sb}"; cargs="-c -v -V -C 10 -a"
               pat='^ping data: rdma-ping-9:' ;;
    esac
    local glog="$SHARE/$NAME-$tag.log" hlog="$OUT/$tag.host.log" note="$OUT/$tag.ready"
    local gready="$SHARE/$NAME-$tag.ready" hrc grc= why
    local hcmd=(env SOFTRNIC_CONFIG="$OUT/ibverbs.json" LD_LIBRARY_PATH="$IBV_LIB"
                SOFTRNIC_STATS=1 SOFTRNIC_RDMACM_READY="$note" timeout 100 /usr/bin/$prog)
    rm -f "$glog" "$gready" "$note"
    local ts=$(date +%s.%N)
    if [ "$role" = server ]; then
        (cd "$OUT" && exec "${hcmd[@]}" $sargs) > "$hlog" 2>&1 &
        bg=$!
        wait_for "$note" '^listen' 30 &&
            "$R" con "$NAME" "timeout 90 $prog $cargs $haddr > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log &" 1 >/dev/null
    else
        "$R" con "$NAME" "(timeout 90 $prog $sargs > /share/$NAME-$tag.log 2>&1; echo RC=\$? >> /share/$NAME-$tag.log) & i=0; while ! rdma resource show cm_id 2>/dev/null | grep -q LISTEN && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done; echo LISTENING > /share/$NAME-$tag.ready" 1 >/dev/null
        if wait_for "$gready" LISTENING 40 guest; then
            (cd "$OUT" && exec "${hcmd[@]}" $cargs $gaddr) > "$hlog" 2>&1 &
        else
            (echo "interop: the guest's $prog did not listen"; exit 9) > "$hlog" 2>&1 &
        fi
        bg=$!
    fi
    end_pair "$bg" "$glog" "$prog"
    local el=$(echo "$(date +%s.%N) - $ts" | bc) clog=$hlog row
    [ "$role" = server ] && clog=$glog
    row=$(grep -E "$pat" "$clog" 2>/dev/null | tail -1 | tr -s ' \t' ' ')
    if [ "$hrc" = 0 ] && [ "$grc" = 0 ] && [ -n "$row" ]; then
        V=PASS D="client:$row  (${el%.*} s)"
    else
        not_passed
    fi
}

if [ -n "$IBV_LIB" ] && [ "${SOFTRNIC_INTEROP_IBVERBS:-1}" != 0 ]; then
    iv_config "$OUT/ibverbs.json"
    iv_config "$OUT/ibverbs-lossy.json" lossy
    [ -f "$SHARE/ib_atomic_bw" ] || cp /usr/bin/ib_atomic_bw "$SHARE/" 2>/dev/null
    IV_BW="-F -n 1000"
    if [ -n "${SOFTRNIC_INTEROP_IV_CASES:-}${SOFTRNIC_INTEROP_CM_CASES:-}" ]; then
        # only the cases named, each run_iv_case's arguments, ';' between
        IFS=";" read -ra picked <<< "${SOFTRNIC_INTEROP_IV_CASES:-}"
        for c in "${picked[@]}"; do eval "run_iv_case $c"; done
        # and the rdma_cm cases named: cm_case's arguments, ';' between
        IFS=';' read -ra picked <<< "${SOFTRNIC_INTEROP_CM_CASES:-}"
        for c in "${picked[@]}"; do eval "judged cm_case $c"; done
    else
        for r in client server; do
            run_iv_case ibv_rc_pingpong $r "-c -n 200"
            run_iv_case ibv_uc_pingpong $r "-c -n 200"
            run_iv_case ibv_ud_pingpong $r "-c -n 200 -s 1024"
            run_iv_case ib_write_bw $r "$IV_BW"
            run_iv_case ib_read_bw $r "$IV_BW"
            run_iv_case ib_send_bw $r "$IV_BW"
            run_iv_case ib_atomic_bw $r "$IV_BW"
            run_iv_case ib_write_lat $r "-F"
            run_iv_case ib_send_lat $r "-F"
            run_iv_case ib_read_lat $r "-F"
        done
        # rdma_cm programs over librdmacm.so.1 (issue 21)
        if [ -e "$IBV_LIB/librdmacm.so.1" ] && [ "${SOFTRNIC_INTEROP_CM:-1}" != 0 ]; then
            # ib_write_bw -R with softrnic serving only: as client, perftest
            # 4.5-0.17 connects its data QP right after its handshake, before
            # the TCG guest's listener is up; the REJ (8) sends it into a
            # retry loop that reuses the ids it has just destroyed and
            # crashes (doc/interop.md). Its -R is IPv4 only.
            judged cm_case ib_write_bw server
            for r in client server; do
                judged cm_case ucmatose $r
                judged cm_case rping $r
                judged cm_case udaddy $r
                judged cm_case ucmatose $r ipv6
                judged cm_case rping $r ipv6
            done
            judged cm_case udaddy client ipv6
        fi
        # RoCEv2 over IPv6 (issue 21): link-local GIDs, neighbour discovery
        for r in client server; do
            run_iv_case ibv_rc_pingpong $r "-c -n 200" "" ipv6
            run_iv_case ibv_ud_pingpong $r "-c -n 200 -s 1024" "" ipv6
            run_iv_case ib_write_bw $r "$IV_BW" "" ipv6
        done
        run_iv_case ib_read_bw client "$IV_BW" "" ipv6
        for r in client server; do
            run_iv_case ibv_rc_pingpong $r "-c -n 200" lossy
            run_iv_case ib_write_bw $r "$IV_BW" lossy
            run_iv_case ib_read_bw $r "$IV_BW" lossy
            run_iv_case ib_send_bw $r "$IV_BW" lossy
            run_iv_case ib_write_lat $r "-F" lossy
        done
    fi
fi

printf '%s\n' "${results[@]}"
echo "interop: $pass passed, $fail failed, $envf not run (ENV-FAIL: no usable guest);" \
     "$forgiven environment faults forgiven, $reboots guest reboots," \
     "${lossy_retried:-0} lossy cases passed on a second run" \
     "($(echo "$(date +%s.%N) - $t0" | bc | cut -d. -f1) s)"
# A softrnic failure always fails the suite; environment faults alone do
# not, unless SOFTRNIC_INTEROP_ENV_FATAL=1 or they left most cases unjudged.
[ $fail = 0 ] || exit 1
if [ $envf -gt 0 ]; then
    [ "${SOFTRNIC_INTEROP_ENV_FATAL:-0}" = 1 ] && { echo "FAIL: ENV-FAIL with SOFTRNIC_INTEROP_ENV_FATAL=1"; exit 1; }
    [ $((envf * 2)) -gt $((pass + envf)) ] &&
        skip "environment: $envf of $((pass + envf)) cases not run, no usable guest (ENV-FAIL above)"
fi
exit 0
