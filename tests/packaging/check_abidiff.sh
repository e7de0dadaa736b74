#!/bin/sh
# The types of the exported functions (struct layouts, enums, signatures)
# against the released ABI, with libabigail: abidw describes this build's
# liboffload.so restricted to the public headers, abidiff compares it with
# abi/liboffload-X.Y.Z.abi (abidw of that release's build, also restricted
# to its public headers). Added functions are fine (--no-added-syms); any
# other change (a struct that changed size or layout, a function whose
# released version changed its type, one removed) fails, except what
# abi/liboffload.abignore suppresses, each entry with its reason (a
# size-carrying input struct that grew at its end).
#   check_abidiff.sh LIBRARY HEADERS_DIR ABI_DIR
set -eu
lib=$1
hdrs=$2
abidir=$3

for tool in abidw abidiff; do
    command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed (abigail-tools)"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offload-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

abidw --headers-dir "$hdrs" --no-corpus-path --drop-private-types "$lib" >"$tmp/now.abi"
n=0
for base in "$abidir"/liboffload-*.abi; do
    [ -e "$base" ] || continue
    # A baseline describes one architecture's layouts (x86-64 for 0.1.0).
    want=$(sed -n "1s/.*architecture='\([^']*\)'.*/\1/p" "$base")
    have=$(sed -n "1s/.*architecture='\([^']*\)'.*/\1/p" "$tmp/now.abi")
    if [ "$want" != "$have" ]; then
        echo "note: $(basename "$base") is for $want, this library for $have: not compared"
        continue
    fi
    n=$((n + 1))
    supp=
    [ -e "$abidir/liboffload.abignore" ] && supp="--suppressions $abidir/liboffload.abignore"
    # shellcheck disable=SC2086 # $supp is one option and its argument, or nothing
    if ! abidiff --no-added-syms $supp "$base" "$tmp/now.abi" >"$tmp/diff.txt" 2>&1; then
        echo "FAIL: the ABI of $(basename "$base" .abi) changed:"
        cat "$tmp/diff.txt"
        exit 1
    fi
done
[ -n "$(ls "$abidir"/liboffload-*.abi 2>/dev/null)" ] || { echo "FAIL: no released .abi in $abidir"; exit 1; }
[ "$n" -gt 0 ] || { echo "SKIP: no released .abi for this architecture in $abidir"; exit 77; }
echo "ok: $n released ABI(s) unchanged (abidiff)"
