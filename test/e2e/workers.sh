#!/usr/bin/env bash
# Sourced by check_demo.sh and check_soak.sh. check_workers OUT N: the
# daemon's output OUT says every port has N workers, each owning at least
# one QP ("workers: port=P workers=N qps=a,b,..."), and an lcore polls
# every worker of every port ("lcore: id=L polls=P/wK:roles,...").
# Prints what is wrong and returns 1, or returns 0.
check_workers() {
    local out=$1 n=$2 lines line port k bad=0 counts
    lines=$(echo "$out" | grep '^workers: ')
    if [ -z "$lines" ]; then echo "FAIL: no 'workers:' line"; return 1; fi
    while read -r line; do
        if ! [[ "$line" =~ ^workers:\ port=([^ ]+)\ workers=([0-9]+)\ qps=([0-9,]+)$ ]]; then
            echo "FAIL: bad line '$line'"; return 1
        fi
        port=${BASH_REMATCH[1]}
        if [ "${BASH_REMATCH[2]}" -ne "$n" ]; then
            echo "FAIL: port $port has ${BASH_REMATCH[2]} workers, want $n"; bad=1
        fi
        IFS=, read -ra counts <<<"${BASH_REMATCH[3]}"
        for ((k = 0; k < ${#counts[@]}; k++)); do
            if [ "${counts[k]}" -eq 0 ]; then
                echo "FAIL: port $port worker $k owns no QP"; bad=1
            fi
            if ! grep -Eq "^lcore: id=[0-9]+ polls=(.*,)?$port/w$k:" <<<"$out"; then
                echo "FAIL: no lcore polls port $port worker $k"; bad=1
            fi
        done
    done <<<"$lines"
    return $bad
}
