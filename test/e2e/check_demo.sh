#!/usr/bin/env bash
# usage: check_demo.sh SOFTRNIC CONFIG [WORKERS]
# Runs softrnic on a config and checks its exit status and the last line
# `verified: messages=N bytes=B errors=0` with N > 0. With WORKERS, also
# that every port has that many workers, each owning a QP and polled by an
# lcore (workers.sh).
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
echo "1 passed, 0 failed"
