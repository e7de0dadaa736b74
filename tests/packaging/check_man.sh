#!/bin/sh
# The section-3 man pages docs/gen_man.py made: one per function the library
# exports under its current name (default version), liboffload(3), each
# rendered by man -l without a groff warning; and every such function in the
# grouped synopsis at the top of offload/offload.h.
#   check_man.sh MAN3_DIR LIBRARY OFFLOAD_H
set -eu
dir=$1
lib=$2
umbrella=$3

command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not installed (binutils)"; exit 77; }
command -v man >/dev/null 2>&1 || { echo "SKIP: man not installed (man-db)"; exit 77; }

fail=0
funcs=$(nm -D --defined-only --with-symbol-versions "$lib" | awk '$2 == "T" { print $3 }' |
        grep '@@' | sed 's/@@.*//' | sort -u)
[ -n "$funcs" ] || { echo "FAIL: no exported function in $lib"; exit 1; }
n=0
for f in $funcs liboffload; do
    page="$dir/$f.3"
    if [ ! -s "$page" ]; then
        echo "FAIL: no man page $page"
        fail=1
        continue
    fi
    n=$((n + 1))
    for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
        grep -q "^\.SH $s\$" "$page" || { echo "FAIL: $f.3 has no $s section"; fail=1; }
    done
    # groff's warnings (man-db passes --warnings on as -w); the text must
    # also name the function.
    out=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>"$page.err" | col -b) || {
        echo "FAIL: man -l $page failed: $(cat "$page.err")"; fail=1; }
    if [ -s "$page.err" ]; then
        echo "FAIL: man -l $page warns:"; sed 's/^/  /' "$page.err"; fail=1
    fi
    rm -f "$page.err"
    printf '%s\n' "$out" | grep -q "$f" || { echo "FAIL: $f.3 renders without its name"; fail=1; }
done
for f in $funcs; do
    case $f in offload_*) ;; *) continue ;; esac
    grep -q "[ *]$f()" "$umbrella" || { echo "FAIL: $f is not in the synopsis of $(basename "$umbrella")"; fail=1; }
done
[ "$fail" -eq 0 ] || exit 1
echo "ok: $n man pages, each rendered without warnings; every exported function in the synopsis"
