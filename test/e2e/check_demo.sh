#!/usr/bin/env bash
# usage: check_demo.sh SOFTRNIC CONFIG [WORKERS]
# Runs softrnic on a config and checks its exit status and the last line
# `verified: messages=N bytes=B errors=0` with N > 0. With WORKERS, also
# that every port has that many workers, each owning a QP and polled by an
# lcore (workers.sh). With CHECK_IPV6=1, also that every port received
# RoCEv2 over IPv6 (its stats line's rx_ipv6 > 0). With CHECK_GREP=RE,
# also that a line of the output matches RE.
set -uo pipefail
. "$(dirname "$0")/workers.sh"
out=$(timeout 240 "$1" --config "$2" 2>&1)
rc=$?
echo "$out" | tail -20
last=$(echo "$out" | tail -1)
if [ $# -ge 3 ]; then
    echo "$out" | grep -E "^(workers|lcore):"
    if ! check_workers "$out" "$3"; then echo "0 passed, 1 failed"; exit 1; fi
fi
if [ $rc -ne 0 ]; then echo "FAIL: softrnic exited $rc"; echo "0 passed, 1 failed"; exit 1; fi
if ! [[ "$last" =~ ^verified:\ messages=([0-9]+)\ bytes=([0-9]+)\ errors=0$ ]] || [ "${BASH_REMATCH[1]}" -eq 0 ]; then
    echo "FAIL: last line is '$last'"; echo "0 passed, 1 failed"; exit 1
fi
if [ "${CHECK_IPV6:-0}" = 1 ]; then
    n=$(echo "$out" | grep -c '^stats: port=.* rx_ipv6=[1-9]')
    ports=$(echo "$out" | grep -c '^stats: port=')
    if [ "$ports" -eq 0 ] || [ "$n" -ne "$ports" ]; then
        echo "FAIL: $n of $ports ports received IPv6"; echo "0 passed, 1 failed"; exit 1
    fi
fi
if [ -n "${CHECK_GREP:-}" ] && ! grep -qE "$CHECK_GREP" <<<"$out"; then
    echo "FAIL: no line matches '$CHECK_GREP'"; echo "0 passed, 1 failed"; exit 1
fi
echo "1 passed, 0 failed"
