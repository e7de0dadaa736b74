#!/bin/sh
# The library's own instructions per SPI message and per byte on the direct
# DSPI backend (XSPI flow, virtual board loopback at 25 MHz), measured with
# callgrind (sim).
#
#   sh bench/dspi_callgrind.sh [BUILD_DIR] [SIZE] [ROUNDS] [XFERS]
#
# XFERS (default 1) splits each message into that many transfers.
#
# Counts only inside offload_spi_transfer (--toggle-collect) and subtracts the
# inclusive cost of ofl_sim_mmio_*(), the model's side of each register
# access (on silicon one load or store, plus the bus latency callgrind cannot
# see). What remains is the core's validation and the backend's flow.
set -eu
build=${1:-build}
size=${2:-4096}
rounds=${3:-20}
xfers=${4:-1}
prog=$build/bench/dspi_percall
[ -x "$prog" ] || { echo "dspi_callgrind: build $prog first (cmake --build $build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "dspi_callgrind: valgrind is not installed" >&2; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" --toggle-collect=offload_spi_transfer \
	"$prog" "$size" "$rounds" "$xfers" >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
cat "$out/stdout"
frames=$(sed -n 's/.*measured, \([0-9]*\) frames each.*/\1/p' "$out/stdout")
total=$(callgrind_annotate "$out/cg.out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) *(100.0%) *PROGRAM TOTALS.*/\1/p' | tr -d ,)
model=$(callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" 2>/dev/null |
	awk '/:ofl_sim_mmio_(read|write)(16|32|64) \[/{gsub(",","",$1); s+=$1} END{print s+0}')
own=$((total - model))
per=$((own / rounds))
echo "callgrind, inside offload_spi_transfer: $total Ir; the model (ofl_sim_mmio_*, inclusive): $model Ir"
echo "  library's own work: $per Ir per $size-byte message, $((per / size)) Ir per byte, $((per / frames)) Ir per frame (sim)"
