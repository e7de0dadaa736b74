#!/bin/sh
# bench/issue19_verdict.py judges each target of issue #19 from saved outputs:
# a quiet row at or above its floor is met, below it NOT MET, a BUSY row or a
# missing output never met. Hand-written outputs, values chosen on both sides
# of each floor.
set -eu
py=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
row() { # size ratio best2 overhead quiet
	printf '{"size": %s, "lib_MBps": 1000, "memcpy_MBps": 1000, "ratio": %s, %s"overhead_ns": %s, "rounds": 5, "rounds_tried": 5, "quiet": %s, "failures": 0}' \
		"$1" "$2" "$3" "$4" "$5"
}
{
	echo '{"rows": ['
	row 64 0.90 '' 1.9 true; echo ,
	row 256 0.90 '' 2.1 true; echo ,
	row 4096 0.95 '' 0 true; echo ,
	row 4194304 0.99 '"ratio_best_two_thread": 0.94, ' 0 true; echo ,
	row 16777216 0.99 '"ratio_best_two_thread": 0.96, ' 0 false
	echo ']}'
} > "$d/memcpy_b2b.json"
echo 'mode: memcpy: ... non-temporal from 12 MiB (3/4 of the 32 MiB L3 (sysfs) over 2 CPUs; x)' > "$d/list.txt"
echo 'offload_ctx_open (all)       min    131.2 us  median    250.1 us  mean    223.5 us  (600 runs; 5 of 5 rounds kept)' > "$d/ctx_open.txt"
out=$(python3 "$py" verdict "$d")
echo "$out"
expect() {
	echo "$out" | grep -F -- "$1" | grep -q -- "$2" || { echo "FAIL: '$1' should say '$2'"; exit 1; }
}
expect "back to back 4 KiB: x memcpy >= 0.95" " met "
expect "back to back 4 MiB: x best two-thread copy >= 0.95" "NOT MET    0.94"
expect "back to back 16 MiB: x best two-thread copy >= 0.95" "not judged 0.96"
expect "per call 64 B: <= 2.0 ns" " met "
expect "per call 256 B: <= 2.0 ns" "NOT MET    +2.1 ns"
expect "after idle: x memcpy >= 0.95" "not judged no output"
expect "sysfs cache sizes" " met "
expect "context open" "NOT MET    250.1 us"
expect "dmadev" "not judged"
echo "$out" | grep -q "^issue #19: 4 met, 3 not met, 7 not judged" || { echo "FAIL: the count line"; exit 1; }
echo "ok"
