#!/bin/sh
# Every measurement of issue #19 in one run, in the order of bench/README.md:
# the instruction counts first (callgrind: exact on any machine), then the
# wall-clock ratios, which keep only rounds in which other processes took
# under 5 % of the CPUs (each table says how many it kept; BUSY: none was
# quiet). On a shared machine run it when nothing else does.
#   sh bench/issue19.sh [BUILD_DIR] [DTB_DIR]     default build ../shared/dtb
set -u
build=${1:-build}
dtbs=${2:-../shared/dtb}
ctl=$build/src/offloadctl/offloadctl
run() { echo; echo "\$ $*"; "$@"; }

run sh bench/memcpy_callgrind.sh "$build"
run sh bench/crypto_callgrind.sh "$build"
run sh bench/ctx_open_callgrind.sh "$build" "$dtbs/k3-j721e-evm.dtb"
# memcpy: back to back against memcpy and the two-thread copies, after idle, beside a busy core
run "$ctl" --dtb none bench memcpy --min 64 --max 256M --peers 2thr,2thr-nt --rounds 5 --time 3 --max-rounds 30
run "$ctl" --dtb none bench memcpy --min 4K --max 256M --mode idle --rounds 5 --time 6 --max-rounds 30
run "$ctl" --dtb none bench memcpy --min 4K --max 256M --busy --rounds 5 --time 3 --max-rounds 30
# crypto sessions and the one-shot hash against OpenSSL called directly
run sh bench/crypto_overhead.sh "$ctl"
# context open of the 122 KB J721E tree
run "$build/bench/bench_dt_discover" "$dtbs/k3-j721e-evm.dtb" 3000 5
# the queue beside DPDK's dmadev (built where DPDK is installed)
if [ -x "$build/bench/dmadev_compare" ]; then
	run "$build/bench/dmadev_compare" --time 10 --rounds 5
else
	echo "SKIP: $build/bench/dmadev_compare not built (DPDK not installed: scripts/setup-debian.sh)"
fi
