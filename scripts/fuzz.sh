#!/bin/sh
# Build the device-tree fuzz target (clang, libFuzzer, ASan + UBSan) in
# build-fuzz/ and run it for a bounded time, seeded with the DT fixtures and,
# when present, the real boards in ../shared/dtb.
#   scripts/fuzz.sh [SECONDS]      default 60
# New inputs accumulate in build-fuzz/fuzz-corpus; a crash is written to
# build-fuzz/ as crash-* / leak-* and the script fails.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DOFFLOAD_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
    -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_PYTHON=OFF -DOFFLOAD_BUILD_DOCS=OFF >/dev/null
cmake --build build-fuzz -j 2 --target fuzz_dt offload_dt_fixtures

corpus=build-fuzz/fuzz-corpus
mkdir -p "$corpus"
seeds=build-fuzz/tests/dt/fixtures
if [ -d ../shared/dtb ]; then
    seeds="$seeds ../shared/dtb"
fi
cd build-fuzz
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ./tests/fuzz/fuzz_dt -max_total_time="$secs" -max_len=131072 -timeout=10 \
        -dict=../tests/fuzz/dt.dict -print_final_stats=1 \
        fuzz-corpus $(for s in $seeds; do case $s in /*) echo "$s";; *) echo "../$s";; esac; done)
