#!/usr/bin/env bash
# A short fuzz run (CI, `make fuzz-short`): build the libFuzzer targets in
# build-fuzz with clang and run each over its seed corpus for a bounded
# time. Exits non-zero when any target finds a crash or a failed check
# (the input is kept under build-fuzz/fuzz-artifacts/<target>/), 0 and
# "SKIPPED" when clang or libFuzzer is not there.
#
# Environment: FUZZ_SECONDS (per target, default 30), FUZZ_TARGETS
# (default: parser responder requester config mad attach), BUILD (default build-fuzz).
set -uo pipefail
cd "$(dirname "$0")/.."

secs=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-"parser responder requester config mad attach"}
build=${BUILD:-build-fuzz}

skip() {
    echo "fuzz-short: SKIPPED: $*"
    exit 0
}

# Debian's clang-14 package installs clang-14; the clang symlink is the
# "clang" package's.
CLANG=$(command -v clang || command -v clang-14) \
    || skip "no clang (install clang-14 and libclang-rt-14-dev)"
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    > "$probe/p.c"
"$CLANG" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1 \
    || skip "clang cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-14-dev)"

# -Dwerror=false: clang warns where gcc does not (lib/ is built with gcc
# -Werror in the ordinary build); a clang-only warning must not hide what
# the fuzzers find.
if [ ! -f "$build/build.ninja" ]; then
    CC=$CLANG meson setup "$build" -Dfuzz=true -Dtests=false -Db_lundef=false -Db_lto=false \
        -Dwerror=false >"$probe/setup.log" 2>&1 || { cat "$probe/setup.log"; exit 1; }
fi
ninja -C "$build" >"$probe/build.log" 2>&1 || { tail -50 "$probe/build.log"; exit 1; }

# Known engine bugs, reported and kept as expected-failure regression tests
# (fuzz/regressions/<target>/known-engine-bug/, doc/fuzzing.md "Findings"):
# step over them so the short run looks for new ones. Drop a name here
# once its fix lands.
export FZ_TOLERATE=${FZ_TOLERATE-""}   # no known engine bugs left

failed=0
summary=()
for t in $targets; do
    bin="$build/fuzz/fuzz_$t"
    work="$probe/$t"
    art="$build/fuzz-artifacts/$t"
    mkdir -p "$work" "$art"
    # New units go to the scratch directory, never into fuzz/corpus/.
    timeout $((secs + 120)) "$bin" -max_total_time="$secs" -timeout=20 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" \
        "$work" "fuzz/corpus/$t" >"$probe/$t.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$probe/$t.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$probe/$t.log")
    cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$probe/$t.log" | tail -1)
    if [ $rc -eq 0 ]; then
        summary+=("fuzz_$t: ok, ${execs:-?} execs, ${rate:-?}/s, ${cov:-no coverage line}")
    else
        failed=1
        summary+=("fuzz_$t: FAILED (exit $rc), artifacts in $art")
        grep -E 'FUZZ CHECK FAILED|ERROR: |runtime error|SUMMARY|Test unit written' \
            "$probe/$t.log" | head -20
        cp "$probe/$t.log" "$art/log.txt"
    fi
done
printf '%s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
    echo "fuzz-short: FAILED (reproduce: $build/fuzz/fuzz_TARGET ARTIFACT)"
    exit 1
fi
echo "fuzz-short: passed (${secs}s per target)"
