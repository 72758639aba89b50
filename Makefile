# Convenience wrapper over meson. `make run` installs what is missing, builds
# and runs the demo; `make test` installs, builds and runs every test.
BUILD ?= build
MESON_TEST_ARGS ?= --print-errorlogs

.PHONY: all deps build run test bench asan clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	bash scripts/demo.sh $(BUILD)

test: build
	meson test -C $(BUILD) $(MESON_TEST_ARGS)

bench: build
	meson test -C $(BUILD) --benchmark --verbose

asan: deps
	[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	meson test -C build-asan $(MESON_TEST_ARGS)

clean:
	rm -rf $(BUILD) build-asan
