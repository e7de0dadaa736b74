#!/bin/sh
# The exported ABI against the released ones and against the symbol map:
#  - every symbol@version of a released list (abi/liboffload-X.Y.Z.symbols)
#    is still exported with that version (as default or as compat version);
#  - every exported symbol has a version, and that version is a node of the
#    map (src/offload.map);
#  - every function the public headers declare is in a version node of the
#    map (an OFFLOAD_API function missing from the map would be silently
#    local: *, and a released one silently gone).
#   check_abi.sh LIBRARY MAP ABI_DIR HEADER...
set -eu
lib=$1
map=$2
abidir=$3
shift 3

command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not installed (binutils)"; exit 77; }

fail=0
# name@VER for every defined dynamic symbol; @@ (default) and @ (compat)
# both bind a released caller, so they are compared alike.
exports=$(nm -D --defined-only --with-symbol-versions "$lib" | awk '$2 != "A" { print $3 }' |
          sed 's/@@/@/' | sort -u)
nodes=$(sed -e 's|/\*.*\*/||g' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z0-9_.]*\)[[:space:]]*{.*/\1/p')
[ -n "$nodes" ] || { echo "FAIL: no version node found in $map"; exit 1; }

released=0
for list in "$abidir"/liboffload-*.symbols; do
    [ -e "$list" ] || continue
    released=$((released + 1))
    while read -r sym; do
        case $sym in ''|'#'*) continue ;; esac
        if ! printf '%s\n' "$exports" | grep -qxF "$sym"; then
            now=$(printf '%s\n' "$exports" | grep "^${sym%@*}@" || true)
            echo "FAIL: $sym of $(basename "$list") is not exported${now:+ (now: $now)}"
            fail=1
        fi
    done <"$list"
done
[ "$released" -gt 0 ] || { echo "FAIL: no released symbol list in $abidir"; exit 1; }

for e in $exports; do
    case $e in
    *@*) v=${e#*@}
         printf '%s\n' "$nodes" | grep -qxF "$v" ||
             { echo "FAIL: $e: version $v is not a node of $(basename "$map")"; fail=1; } ;;
    *)   echo "FAIL: $e is exported without a version (in no node of $(basename "$map"))"; fail=1 ;;
    esac
done

# The map's global entries (names only: patterns would hide what they match).
listed=$(sed -e 's|/\*.*\*/||g' "$map" | tr ';' '\n' |
         sed -n 's/^[[:space:]]*\(offload_[A-Za-z0-9_]*\)[[:space:]]*$/\1/p' | sort -u)
if sed -e 's|/\*.*\*/||g' "$map" | grep -q 'offload_[A-Za-z0-9_]*\*'; then
    echo "FAIL: $(basename "$map") has a glob over offload_*: list each symbol in its release's node"
    fail=1
fi
for h in "$@"; do
    for f in $(grep -hE '^[A-Za-z].*[ *]offload_[a-z0-9_]+\(' "$h" |
               sed -E 's/.*[ *](offload_[a-z0-9_]+)\(.*/\1/'); do
        printf '%s\n' "$listed" | grep -qxF "$f" ||
            { echo "FAIL: $f is declared in $(basename "$h") but in no node of $(basename "$map")"; fail=1; }
    done
done

[ "$fail" -eq 0 ] || exit 1
echo "ok: $(printf '%s\n' "$exports" | wc -l) versioned exports; $released released list(s) intact; nodes: $(echo $nodes)"
