#!/usr/bin/env bash
# Runs softrnic on a config and checks its exit status and the last line
# `verified: messages=N bytes=B errors=0` with N > 0.
set -uo pipefail
out=$(timeout 240 "$1" --config "$2" 2>&1)
rc=$?
echo "$out" | tail -20
last=$(echo "$out" | tail -1)
if [ $rc -ne 0 ]; then echo "FAIL: softrnic exited $rc"; echo "0 passed, 1 failed"; exit 1; fi
if ! [[ "$last" =~ ^verified:\ messages=([0-9]+)\ bytes=([0-9]+)\ errors=0$ ]] || [ "${BASH_REMATCH[1]}" -eq 0 ]; then
    echo "FAIL: last line is '$last'"; echo "0 passed, 1 failed"; exit 1
fi
echo "1 passed, 0 failed"
