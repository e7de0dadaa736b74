#!/bin/sh
# The library's own instructions per UDMA memcpy descriptor (build, submit,
# completion), measured with callgrind on the J721E UDMA model (sim).
#
#   sh bench/udma_callgrind.sh [BUILD_DIR] [ROUNDS]
#
# Counts the main thread only (--separate-threads=yes: the model's thread is
# apart), only inside offload_queue_copy/submit/poll (--toggle-collect), and
# subtracts the inclusive cost of ofl_sim_mmio_*(), the model's side of each
# register access (on silicon that is one load or store). Target: <= 1000.
set -eu
build=${1:-build}
rounds=${2:-200}
prog=$build/bench/udma_percall
[ -x "$prog" ] || { echo "udma_callgrind: build $prog first (cmake --build $build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "udma_callgrind: valgrind is not installed" >&2; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.out" \
	--toggle-collect=offload_queue_copy --toggle-collect=offload_queue_submit \
	--toggle-collect=offload_queue_poll "$prog" "$rounds" >"$out/stdout" 2>"$out/stderr" ||
	{ cat "$out/stderr" >&2; exit 1; }
cat "$out/stdout"
jobs=$(sed -n 's/^udma_percall: \([0-9]*\) measured.*/\1/p' "$out/stdout")
main=$(ls "$out"/cg.out*-01 2>/dev/null | head -1)
[ -n "$main" ] || main=$(ls "$out"/cg.out* | head -1)
total=$(callgrind_annotate "$main" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) *(100.0%) *PROGRAM TOTALS.*/\1/p' | tr -d ,)
# one line per function: the ones naming the object file ("... [path]"); the others repeat them
model=$(callgrind_annotate --inclusive=yes --threshold=100 "$main" 2>/dev/null |
	awk '/:ofl_sim_mmio_(read|write)(32|64) \[/{gsub(",","",$1); s+=$1} END{print s+0}')
own=$((total - model))
echo "callgrind, main thread, inside offload_queue_{copy,submit,poll}: $total Ir"
echo "  of which the model (ofl_sim_mmio_*, inclusive): $model Ir"
echo "  library's own work: $own Ir for $jobs descriptors = $((own / jobs)) Ir per descriptor (sim)"
