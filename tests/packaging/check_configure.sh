#!/bin/sh
# The configure step a new user reads: nothing that is not an error may look
# like one. A configure of this source tree (with clang when it is installed:
# it lacks -mtls-dialect=gnu2) prints no "- Failed" check and no "missing
# components" line (Doxygen's unused dot); the summary says instead what the
# build uses (TLS descriptors, docs).
#   check_configure.sh SOURCE_DIR CMAKE
set -u
src=$1
cmake=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offload-configure.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=cc
command -v clang >/dev/null 2>&1 && cc=clang
CC=$cc "$cmake" -S "$src" -B "$tmp/b" -DOFFLOAD_BUILD_TESTS=OFF -DOFFLOAD_BUILD_PYTHON=OFF \
    >"$tmp/out" 2>&1 || { echo "FAIL: configure failed:"; cat "$tmp/out"; exit 1; }
fails=0
if grep -E -- '- Failed$|missing components' "$tmp/out"; then
    echo "FAIL: the configure output above reads like an error ($cc)"
    fails=1
fi
for want in "TLS descriptors :" "docs (Doxygen)  :"; do
    grep -qF -- "$want" "$tmp/out" || { echo "FAIL: no '$want' line in the summary"; fails=1; }
done
[ "$fails" -eq 0 ] && echo "ok: the configure output with $cc has no false alarm" && grep -E "TLS descriptors|docs \(" "$tmp/out"
exit "$fails"
