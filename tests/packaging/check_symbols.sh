#!/bin/sh
# The libraries' ABI surface: SONAME liboffload.so.<major>, only offload_*
# symbols exported by the shared library and global in the static one
# (whose other symbols must be local, so that a program linking it beside
# its own udma_* or dspi_* code meets no clash), and every function the
# given headers declare present in both.
#   check_symbols.sh LIBRARY SONAME ARCHIVE HEADER...
set -eu
lib=$1
want_soname=$2
archive=$3
shift 3

for tool in readelf nm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed (binutils)"; exit 77; }
done

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "$want_soname" ]; then
    echo "FAIL: SONAME of $lib is '$soname', expected '$want_soname'"
    exit 1
fi

# Defined dynamic symbols; the version script's node name shows up as an
# absolute symbol (type A), which is not an export.
exports=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$exports" | grep -v '^offload_' || true)
if [ -n "$bad" ]; then
    echo "FAIL: $lib exports symbols outside offload_*:"
    printf '  %s\n' $bad
    exit 1
fi

# The archive: every global definition (any type but undefined and weak
# undefined) is offload_*.
aglobals=$(nm -g --defined-only "$archive" | awk 'NF == 3 { print $3 }' | sort -u)
abad=$(printf '%s\n' "$aglobals" | grep -v '^offload_' || true)
if [ -n "$abad" ]; then
    echo "FAIL: $archive has $(printf '%s\n' "$abad" | wc -l) global symbols outside offload_*, e.g.:"
    printf '  %s\n' $(printf '%s\n' "$abad" | head -8)
    exit 1
fi

missing=""
amissing=""
count=0
for h in "$@"; do
    for f in $(grep -hE '^[A-Za-z].*[ *]offload_[a-z0-9_]+\(' "$h" |
               sed -E 's/.*[ *](offload_[a-z0-9_]+)\(.*/\1/'); do
        count=$((count + 1))
        printf '%s\n' "$exports" | grep -qx "$f" || missing="$missing $f"
        printf '%s\n' "$aglobals" | grep -qx "$f" || amissing="$amissing $f"
    done
done
if [ -n "$missing" ]; then
    echo "FAIL: declared but not exported:$missing"
    exit 1
fi
if [ -n "$amissing" ]; then
    echo "FAIL: declared but not defined in $archive:$amissing"
    exit 1
fi
echo "ok: SONAME $soname, $(printf '%s\n' "$exports" | wc -l) exports, all offload_*; $(printf '%s\n' "$aglobals" | wc -l) archive globals, all offload_*; $count declared functions present in both"
