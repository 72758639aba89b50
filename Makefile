# Convenience wrapper over meson. `make run` installs what is missing, builds
# and runs the demo; `make test` installs, builds and runs every test: the
# meson suite, the same suite under ASan + UBSan, a short fuzz run and the
# valgrind checks (doc/fuzzing.md). CI runs exactly `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
MESON_TEST_ARGS ?= --print-errorlogs

# Sanitizer runtime settings for test-asan (why: doc/fuzzing.md). meson
# test sets much the same when they are unset; spelled out so the suite
# behaves the same under any runner:
#  - halt_on_error/abort_on_error: a UBSan report (gcc's checks recover by
#    default) or an ASan report fails the test instead of scrolling past;
#  - detect_leaks=1: the suite is LeakSanitizer clean. DPDK's own heaps
#    (rte_malloc, mempools) are invisible to ASan/LSan, nothing else needs
#    an exception with --no-huge.
ASAN_ENV = ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_summary=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_summary=1:print_stacktrace=1

# valgrind memcheck: the unit tests that run without hugepages (see
# doc/fuzzing.md for the list and the one timing bound it relaxes).
VALGRIND = valgrind --error-exitcode=1 --leak-check=full -q \
	--suppressions=fuzz/valgrind-dpdk.supp
EAL_TEST_ARGS = --no-huge --no-pci --no-shconf -m 256 '--log-level=*:warning' --no-telemetry

.PHONY: all deps build run test test-unit test-asan asan fuzz-short valgrind bench ibverbs-demo clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	bash scripts/demo.sh $(BUILD)

# The single CI command: each stage stops the run on failure.
test:
	@echo "== make test: test-unit (started $$(date -u +%T))"
	$(MAKE) --no-print-directory test-unit
	@echo "== make test: test-asan (started $$(date -u +%T))"
	$(MAKE) --no-print-directory test-asan
	@echo "== make test: fuzz-short (started $$(date -u +%T))"
	$(MAKE) --no-print-directory fuzz-short
	@echo "== make test: valgrind (started $$(date -u +%T))"
	$(MAKE) --no-print-directory valgrind
	@echo "== make test: unit, asan, fuzz-short and valgrind all passed ($$(date -u +%T))"
	@echo "stages: 4 passed, 0 failed"

test-unit: build
	meson test -C $(BUILD) $(MESON_TEST_ARGS)

# The whole meson suite with ASan + UBSan (gcc). The QEMU interop suite
# runs here with its pingpong cases only (SOFTRNIC_INTEROP_PERFTEST=none:
# rnic-pingpong against rdma_rxe, RC/UC/UD both ways and RC under loss,
# one guest boot, about 30 s; meson's 900 s timeout bounds it), so the
# interop peer's exit paths are LeakSanitizer-checked too; the perftest
# cases run once, in test-unit (doc/interop.md).
test-asan: deps
	[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false
	ninja -C $(ASAN_BUILD)
	$(ASAN_ENV) SOFTRNIC_INTEROP_PERFTEST=none meson test -C $(ASAN_BUILD) $(MESON_TEST_ARGS)

asan: test-asan

# libFuzzer targets (clang) for FUZZ_SECONDS each over the seed corpora;
# SKIPPED (exit 0) without clang/libFuzzer.
fuzz-short: deps
	bash fuzz/run-short.sh

valgrind: build
	$(VALGRIND) $(BUILD)/test/config/test_config --samples config
	$(VALGRIND) $(BUILD)/test/wire/test_wire $(EAL_TEST_ARGS)
	$(VALGRIND) $(BUILD)/test/timer/test_timer $(EAL_TEST_ARGS)
	for t in parser config responder requester; do \
		FUZZREGRESS_QUIET=1 $(VALGRIND) $(BUILD)/test/fuzzregress/fuzzregress-$$t \
			fuzz/regressions/$$t fuzz/corpus/$$t || exit 1; \
	done
	bash fuzz/valgrind-config-unit.sh "$(VALGRIND)" $(BUILD)/test/config/test_config

# Benchmarks (printed figures, not tests): the ICRC micro-benchmark, then
# scripts/bench.sh (scripts/bench.py: testpmd baselines vs rnic-perf over
# memif, bandwidth and latency; engine only; 16384 QPs), each figure the
# median of BENCH_ROUNDS (3) interleaved runs (doc/benchmarks.md).
bench: build
	meson test -C $(BUILD) --benchmark --verbose
	bash scripts/bench.sh $(BUILD)

# Debian's unmodified ibverbs-utils and perftest binaries over softrnic's
# libibverbs.so.1, two processes on net_memif, every program with its
# defaults and with -a (doc/ibverbs.md); one line per program.
ibverbs-demo: build
	/usr/bin/python3 test/ibverbs/run_ibverbs.py $(BUILD)/lib/ibverbs --set full

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
