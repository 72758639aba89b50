#!/usr/bin/env bash
# usage: check_soak.sh SOFTRNIC CONFIG [WORKERS]
# Runs the soak (config/soak.json: 1% drop + dup + reorder + corrupt) and
# checks: exit 0, and the last line
#   soak: messages=N lost=0 duplicated=0 corrupted=0 retransmits=R goodput_ratio=X
# with N > 0 and R > 0 (the impairment really forced recovery). Workloads
# that ran before the soak must have verified with errors=0. With WORKERS,
# also that every port has that many workers, each owning a QP and polled
# by an lcore (workers.sh). With CHECK_IPV6=1, also that every port
# received RoCEv2 over IPv6 (its stats line's rx_ipv6 > 0).
set -uo pipefail
. "$(dirname "$0")/workers.sh"
out=$(timeout 280 "$1" --config "$2" 2>&1)
rc=$?
echo "$out" | grep -E "^(soak|stats|softrnic|workload|verified|workers|lcore)" | tail -24
last=$(echo "$out" | tail -1)
if [ $# -ge 3 ] && ! check_workers "$out" "$3"; then echo "0 passed, 1 failed"; exit 1; fi
ver=$(echo "$out" | grep '^verified: ')
if [ -n "$ver" ] && ! [[ "$ver" =~ ^verified:\ messages=[1-9][0-9]*\ bytes=[0-9]+\ errors=0$ ]]; then
    echo "FAIL: the workloads before the soak: '$ver'"; echo "0 passed, 1 failed"; exit 1
fi
re='^soak: messages=([0-9]+) lost=0 duplicated=0 corrupted=0 retransmits=([0-9]+) goodput_ratio=[0-9.]+$'
if [ $rc -ne 0 ]; then echo "FAIL: softrnic exited $rc"; echo "0 passed, 1 failed"; exit 1; fi
if ! [[ "$last" =~ $re ]] || [ "${BASH_REMATCH[1]}" -eq 0 ] || [ "${BASH_REMATCH[2]}" -eq 0 ]; then
    echo "FAIL: last line is '$last'"; echo "0 passed, 1 failed"; exit 1
fi
if [ "${CHECK_IPV6:-0}" = 1 ]; then
    n=$(echo "$out" | grep -c '^stats: port=.* rx_ipv6=[1-9]')
    ports=$(echo "$out" | grep -c '^stats: port=')
    if [ "$ports" -eq 0 ] || [ "$n" -ne "$ports" ]; then
        echo "FAIL: $n of $ports ports received IPv6"; echo "0 passed, 1 failed"; exit 1
    fi
fi
echo "1 passed, 0 failed"
