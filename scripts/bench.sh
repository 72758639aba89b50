#!/usr/bin/env bash
# softrnic benchmarks in one go (make bench): scripts/bench.py does the
# work (Debian's python3, standard library only); its docstring has the
# options and the environment (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SWEEP),
# doc/benchmarks.md the method, the results and how to read them.
#
#   scripts/bench.sh [BUILD_DIR] [--dry-run] [--only memif,lat,ring,qps] [--selftest]
exec /usr/bin/python3 "$(dirname "$0")/bench.py" "$@"
