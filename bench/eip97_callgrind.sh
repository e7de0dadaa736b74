#!/bin/sh
# The library's own instructions per one-block (16 B) AES-128-CBC request on
# the EIP97 (argument checks, packet and token, context pointer and control
# words, result descriptor, doorbells, processed-counter read, result check,
# acknowledge), measured with callgrind on the EIP97 model (sim).
#
#   sh bench/eip97_callgrind.sh [BUILD_DIR] [ROUNDS] [coherent|noncoherent]
#
# Counts the main thread only (--separate-threads=yes: the model's thread is
# apart), only inside offload_cipher_session_run (--toggle-collect), with the
# spinning while the model works toggled back out (eip97_wait_progress,
# nested toggle), and subtracts the inclusive cost of ofl_sim_mmio_*() (the
# model's side of each register access; on silicon one load or store), of
# ofl_sim_mem_clean/inval (the model's emulation of a cache operation; the
# CPU's own cache instructions stay counted) and of c_open, the session's
# one-time backend setup at its first request (context record and bounce
# buffer allocation, key written once; reported apart). Target: <= 1500.
set -eu
build=${1:-build}
rounds=${2:-2000}
mode=${3:-coherent}
prog=$build/bench/eip97_percall
[ -x "$prog" ] || { echo "eip97_callgrind: build $prog first (cmake --build $build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "eip97_callgrind: valgrind is not installed" >&2; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.out" \
	--toggle-collect=offload_cipher_session_run --toggle-collect=eip97_wait_progress \
	"$prog" "$rounds" "$mode" >"$out/stdout" 2>"$out/stderr" ||
	{ cat "$out/stderr" >&2; exit 1; }
cat "$out/stdout"
reqs=$(sed -n 's/^eip97_percall: \([0-9]*\) measured.*/\1/p' "$out/stdout")
reqs=$((reqs + 1)) # the warm-up request is measured too
main=$(ls "$out"/cg.out*-01 2>/dev/null | head -1)
[ -n "$main" ] || main=$(ls "$out"/cg.out* | head -1)
total=$(callgrind_annotate "$main" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) *(100.0%) *PROGRAM TOTALS.*/\1/p' | tr -d ,)
# one line per function: the ones naming the object file ("... [path]"); the others repeat them
model=$(callgrind_annotate --inclusive=yes --threshold=100 "$main" 2>/dev/null |
	awk '/:ofl_sim_(mmio_(read|write)(32|64)|mem_(clean|inval)) \[/{gsub(",","",$1); s+=$1} END{print s+0}')
setup=$(callgrind_annotate --inclusive=yes --threshold=100 "$main" 2>/dev/null |
	awk '/cipher.c:c_open \[/{gsub(",","",$1); s+=$1} END{print s+0}')
own=$((total - model - setup))
echo "callgrind, main thread, inside offload_cipher_session_run, waiting excluded: $total Ir"
echo "  of which the model (ofl_sim_mmio_*, ofl_sim_mem_*, inclusive): $model Ir"
echo "  of which the session's one-time setup at its first request (c_open, inclusive): $setup Ir"
echo "  library's own work: $own Ir for $reqs requests = $((own / reqs)) Ir per request (sim, $mode)"
