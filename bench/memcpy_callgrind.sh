#!/bin/sh
# Instructions per small copy: plain memcpy, the library's inline
# offload_memcpy() (the public header's fast path) and the exported
# offload_memcpy() that FFI binds, counted by callgrind (exact, the same on
# a busy machine). Each runs bench/memcpy_percall at N and 2N copies; the
# difference over N is one call with its share of the loop. "added" is
# over memcpy (issue #19's target: <= 2 ns per call at 64 B).
#
#   sh bench/memcpy_callgrind.sh [BUILD_DIR] [N] [SIZES]   default build 100000 "64 256 1024 4096"
set -eu
build=${1:-build}
n=${2:-100000}
sizes=${3:-64 256 1024 4096}
. "$(dirname "$0")/callgrind_lib.sh"
cg_setup memcpy_callgrind "$build/bench/memcpy_percall"
per() {
	a=$(cg_ir "$1" "$2" "$n")
	b=$(cg_ir "$1" "$2" $((2 * n)))
	echo $(((b - a + n / 2) / n))
}
printf '%6s %10s %10s %8s %10s %8s\n' bytes memcpy inline added symbol added
for s in $sizes; do
	m=$(per memcpy "$s")
	i=$(per inline "$s")
	y=$(per symbol "$s")
	printf '%6s %10s %10s %+8d %10s %+8d\n' "$s" "$m" "$i" $((i - m)) "$y" $((y - m))
done
echo "instructions per call (the loop's included in each); callgrind, $n and $((2 * n)) copies"
