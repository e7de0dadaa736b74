#!/bin/sh
# liboffload.so contains no model code and no virtual board; liboffload-sim.so
# does, under its own SONAME, exporting only offload_sim_*.
#   check_models_apart.sh LIBOFFLOAD_SO LIBOFFLOAD_SIM_SO
set -eu
lib=$1 sim=$2
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not installed"; exit 77; }
command -v readelf >/dev/null 2>&1 || { echo "SKIP: readelf not installed"; exit 77; }
fail=0
# every symbol, local ones too (the build keeps its symbol table)
if nm "$lib" | grep -E ' (ofl_sim_|offload_sim_)' >/dev/null; then
    echo "FAIL: $lib has model symbols:"; nm "$lib" | grep -E ' (ofl_sim_|offload_sim_)' | head; fail=1
fi
# the virtual board's root compatible (src/sim/virtual-board.dts)
if grep -q 'liboffload,virtual-board' "$lib"; then
    echo "FAIL: $lib carries the virtual board"; fail=1
fi
grep -q 'liboffload,virtual-board' "$sim" || { echo "FAIL: $sim has no virtual board"; fail=1; }
nm "$sim" | grep -q ' ofl_sim_udma_create' || { echo "FAIL: $sim has no UDMA model"; fail=1; }
readelf -d "$sim" | grep -q 'SONAME.*liboffload-sim\.so\.0' || { echo "FAIL: $sim SONAME"; fail=1; }
bad=$(nm -D --defined-only "$sim" | awk '$2 ~ /[TDBR]/ && $3 !~ /^offload_sim_/ {print $3}')
[ -z "$bad" ] || { echo "FAIL: $sim exports $bad"; fail=1; }
[ $fail -eq 0 ] && echo "ok: no model in $(basename "$lib"); models in $(basename "$sim")"
exit $fail
