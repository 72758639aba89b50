#!/usr/bin/env bash
# Install what softrnic needs to build and test, from Debian 12's packages.
# Idempotent and quick when everything is present. Run as root (or via sudo).
set -euo pipefail

# dpdk-dev: dpdk-testpmd, dpdk-telemetry.py, and dpdk-dumpcap / dpdk-pdump
# (test/capture); test/capture also uses tshark, stdbuf (coreutils) and
# mount (util-linux), which every Debian system has. python3-matplotlib:
# the bandwidth plot of scripts/bench.sh (doc/benchmarks.md). universal-ctags:
# the function-length check of test/layers. libibverbs-dev: the headers
# softrnic's libibverbs.so.1 is built against; ibverbs-utils and perftest:
# the unmodified programs the ibverbs suite runs over it (doc/ibverbs.md);
# librdmacm-dev and rdmacm-utils likewise for softrnic's librdmacm.so.1
# (rping, ucmatose; perftest's -R).
pkgs=(
    build-essential pkg-config meson ninja-build
    libdpdk-dev dpdk-dev libnuma-dev libjansson-dev libisal-dev
    zlib1g-dev libpcap-dev
    python3-scapy tshark iproute2 python3-matplotlib
    clang-14 libclang-rt-14-dev valgrind universal-ctags
    libibverbs-dev ibverbs-utils perftest librdmacm-dev rdmacm-utils
)

missing=()
for p in "${pkgs[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] \
        || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "install-deps: all packages present"
fi
