#!/bin/sh
# Instructions per offload_ctx_open() of a board's tree (copy, validation,
# discovery, policy, backends; the context's free included), counted by
# callgrind: exact and the same on a busy machine (issue #19: 5.1 M for the
# 122 KB k3-j721e-evm tree, half of it validating, before it was cut).
#
#   sh bench/ctx_open_callgrind.sh [BUILD_DIR] [DTB] [N]
#
# Runs bench_dt_discover --opens at 10 and 10 + N opens; the difference over
# N is one open, the process's start-up and the once-per-process set-up
# (OpenSSL's tables, the cache sizes read from sysfs) excluded.
set -eu
build=${1:-build}
dtb=${2:-../shared/dtb/k3-j721e-evm.dtb}
n=${3:-100}
[ -r "$dtb" ] || { echo "ctx_open_callgrind: no $dtb" >&2; exit 2; }
. "$(dirname "$0")/callgrind_lib.sh"
cg_setup ctx_open_callgrind "$build/bench/bench_dt_discover"
a=$(cg_ir --opens 10 "$dtb")
b=$(cg_ir --opens $((10 + n)) "$dtb")
per=$(((b - a + n / 2) / n))
echo "$(basename "$dtb"): $per instructions per offload_ctx_open() + offload_ctx_free() (callgrind, $n opens)"
# where they go: the inclusive cost of the open's parts in the larger run, per open
callgrind_annotate --inclusive=yes --threshold=100 "$cg_out/cg" 2>/dev/null |
	awk -v n=$((10 + n)) '/:(ofl_dt_validate|ofl_dt_discover|ofl_policy_compute|ofl_dt_path_dup|discover|ofl_dt_load_blob|offload_ctx_open|offload_ctx_free) \[/ {
		gsub(",", "", $1); match($0, /:[a-z_]+ \[/); name = substr($0, RSTART + 1, RLENGTH - 3)
		printf "  %-24s %9d per open (inclusive)\n", name, $1 / n }'
