#!/bin/sh
# Set everything up, build, and run the main job: list this machine's
# devices with the policy's reasons, then benchmark memcpy on what it has.
set -eu
cd "$(dirname "$0")/.."

# Only what the demo needs: no test toolchain (scripts/test.sh installs that).
sh scripts/setup-debian.sh --demo
cmake -S . -B build -DOFFLOAD_BUILD_TESTS=OFF
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
./build/src/offloadctl/offloadctl list
./build/src/offloadctl/offloadctl bench memcpy
