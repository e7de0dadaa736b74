#!/bin/sh
# Set everything up, build with -Wall -Wextra -Werror, and run every test.
#   scripts/test.sh            gcc build (build/) with the docs (Doxygen, warnings
#                              are errors), a clang -Werror build (build-clang/)
#                              to keep both compilers clean, then every test; the
#                              last line is the verdict: tests passed, failed and
#                              skipped (each skip's reason above it) and the
#                              clang build's result
#   scripts/test.sh --asan     AddressSanitizer + UndefinedBehaviorSanitizer build
#                              (build-asan/) and every test
#   scripts/test.sh --cross    cross builds for aarch64 and armhf (cmake/toolchain-
#                              *.cmake; build-aarch64/, build-arm/): gcc -Werror
#                              build and the whole suite under qemu-user, then a
#                              clang -Werror build of each (build-*-clang/)
#   scripts/test.sh --configs  the optional parts switched off one at a time
#                              (OFFLOAD_WITH_SIM, _OPENSSL, _KCAPI; build-no*/):
#                              -Werror build and every test (with OPENSSL=OFF
#                              on a kernel without AF_ALG there is no crypto
#                              backend: the Python crypto tests then skip,
#                              saying so, and the rest still run)
set -eu
cd "$(dirname "$0")/.."

sh scripts/setup-debian.sh

if [ "${1:-}" = "--configs" ]; then
    jobs=$(nproc 2>/dev/null || echo 2)
    for opt in SIM OPENSSL KCAPI; do
        d=build-no$(echo "$opt" | tr 'A-Z' 'a-z')
        cmake -S . -B "$d" -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_DOCS=OFF -DOFFLOAD_WITH_$opt=OFF
        cmake --build "$d" -j "$jobs"
        ctest --test-dir "$d" --output-on-failure -j "$jobs"
    done
    exit 0
fi

if [ "${1:-}" = "--cross" ]; then
    jobs=$(nproc 2>/dev/null || echo 2)
    rc=0
    for t in aarch64-linux-gnu:arm64 arm-linux-gnueabihf:armhf; do
        triplet=${t%%:*}
        arch=${t#*:}
        d=build-${triplet%%-*}
        # The kernel tests share build/'s guest kernels (tests/qemu).
        cmake -S . -B "$d" -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_DOCS=OFF \
            -DCMAKE_TOOLCHAIN_FILE="$(pwd)/cmake/toolchain-$triplet.cmake" \
            -DOFFLOAD_QEMU_CACHE="$(pwd)/build/qemu-cache"
        cmake --build "$d" -j "$jobs"
        # clang, same sysroot: warning-free is what is checked.
        if CC=clang cmake -S . -B "$d-clang" -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_DOCS=OFF \
               -DOFFLOAD_BUILD_TESTS=OFF -DCMAKE_TOOLCHAIN_FILE="$(pwd)/cmake/toolchain-$triplet.cmake" \
               -DOFFLOAD_SYSROOT="$(pwd)/$d/sysroot-$arch" &&
           cmake --build "$d-clang" -j "$jobs"; then
            step="$triplet clang -Werror build=ok"
        else
            step="$triplet clang -Werror build=FAILED (see above)"
        fi
        # Every test under qemu-user; the verdict lists the parts of tests that
        # user emulation cannot run ("partly ...: SKIP (part, under qemu-user)").
        ctest --test-dir "$d" --output-on-failure -j "$jobs" \
            --output-junit "$(pwd)/$d/ctest-junit.xml" \
            --test-output-size-passed 65536 --test-output-size-failed 1048576 || rc=1
        echo "test.sh --cross: $triplet, every test under qemu-user and the $arch guest kernels:"
        python3 scripts/verdict.py "$d/ctest-junit.xml" --step "$step" || rc=1
    done
    exit "$rc"
fi

dir=build
extra=""
if [ "${1:-}" = "--asan" ]; then
    dir=build-asan
    # The kernel tests share build/'s unpacked guest kernel (tests/qemu).
    extra="-DOFFLOAD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DOFFLOAD_QEMU_CACHE=$(pwd)/build/qemu-cache"
fi
jobs=$(nproc 2>/dev/null || echo 2)

# gcc is the compiler of record (CC picks it when a build directory is new).
# shellcheck disable=SC2086
# (Tests on explicitly: a build/ the demo configured without them keeps that in its cache.)
CC=${CC:-gcc} cmake -S . -B "$dir" -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_TESTS=ON $extra
cmake --build "$dir" -j "$jobs"
if [ "$dir" = build ]; then
    cmake --build "$dir" --target docs
fi
# The same sources must also build warning-free under clang: built before the
# tests, its result is part of the verdict below.
steps=""
if [ "$dir" = build ]; then
    if CC=clang cmake -S . -B build-clang -DOFFLOAD_WERROR=ON -DOFFLOAD_BUILD_DOCS=OFF &&
       cmake --build build-clang -j "$jobs"; then
        steps="clang -Werror build=ok"
    else
        steps="clang -Werror build=FAILED (see above)"
    fi
fi
# ASan's leak checker and Check's fork mode get along; abort on the first report.
# The JUnit report keeps each test's output, so the verdict can give the skips' reasons.
rc=0
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
        --output-junit "$(pwd)/$dir/ctest-junit.xml" \
        --test-output-size-passed 65536 --test-output-size-failed 1048576 || rc=$?
# The last line says how many tests passed, failed and were skipped (and why, above it).
if [ -n "$steps" ]; then
    python3 scripts/verdict.py "$dir/ctest-junit.xml" --step "$steps" || rc=1
else
    python3 scripts/verdict.py "$dir/ctest-junit.xml" || rc=1
fi
exit "$rc"
