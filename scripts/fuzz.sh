#!/bin/sh
# Build a fuzz target (clang, libFuzzer, ASan + UBSan) in build-fuzz/ and run
# it for a bounded time, seeded with the DT fixtures and, when present, the
# real boards in ../shared/dtb.
#   scripts/fuzz.sh [SECONDS] [TARGET]      default 60, fuzz_dt
# TARGET fuzz_dt: load, discovery, policy and a CPU-only open.
# TARGET fuzz_sim: an open with the sim world (OFFLOAD_CTX_SIM, odd inputs
#   also non-coherent); every usable device copies, allocates a DMA buffer
#   and runs a queue job; seeded also with the virtual board and the udma
#   test boards. A hang over 10 s per input is reported as a timeout.
# New inputs accumulate in build-fuzz/fuzz-corpus[-sim]; a crash is written
# to build-fuzz/ as crash-* / leak-* / timeout-* and the script fails.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
target=${2:-fuzz_dt}

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DOFFLOAD_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
    -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_PYTHON=OFF -DOFFLOAD_BUILD_DOCS=OFF >/dev/null
case $target in
fuzz_dt)
    cmake --build build-fuzz -j 2 --target fuzz_dt offload_dt_fixtures
    corpus=build-fuzz/fuzz-corpus
    seeds=build-fuzz/tests/dt/fixtures ;;
fuzz_sim)
    cmake --build build-fuzz -j 2 --target fuzz_sim offload_dt_fixtures udma_fixtures
    corpus=build-fuzz/fuzz-corpus-sim
    # libFuzzer takes seed directories: the boards with models, gathered in one
    mkdir -p build-fuzz/seeds-sim
    cp build-fuzz/src/sim/virtual-board.dtb build-fuzz/tests/udma/fixtures/*.dtb build-fuzz/seeds-sim/
    seeds="build-fuzz/seeds-sim build-fuzz/tests/dt/fixtures" ;;
*)
    echo "unknown target $target (fuzz_dt, fuzz_sim)" >&2
    exit 2 ;;
esac

mkdir -p "$corpus"
if [ -d ../shared/dtb ]; then
    seeds="$seeds ../shared/dtb"
fi
cd build-fuzz
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ./tests/fuzz/$target -max_total_time="$secs" -max_len=131072 -timeout=10 \
        -dict=../tests/fuzz/dt.dict -print_final_stats=1 \
        "${corpus#build-fuzz/}" $(for s in $seeds; do case $s in /*) echo "$s";; *) echo "../$s";; esac; done)
