#!/bin/sh
# What a new user meets in the first hour, from a clone on a minimal Debian:
#  - scripts/demo.sh installs only what the demo needs (setup-debian.sh --demo):
#    a compiler, CMake, pkg-config, the libraries, dtc, man-db -- never the test
#    toolchain (qemu, valgrind, clang, doxygen, Check, mypy, numpy ...), which
#    scripts/test.sh installs (all groups: one list in one file), and leaves
#    dpkg's foreign architectures alone;
#  - the README names git where it says "from a clone", and how to read the man page;
#  - a LICENSE at the root for the licence the sources name (SPDX MIT).
#   check_first_hour.sh SOURCE_DIR
set -u
src=$1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
setup="$src/scripts/setup-debian.sh"

demo=$(sh "$setup" --demo --list) || bad "setup-debian.sh --demo --list failed"
all=$(sh "$setup" --list) || bad "setup-debian.sh --list failed"
for p in build-essential cmake pkg-config libfdt-dev libssl-dev libkcapi-dev device-tree-compiler man-db; do
    echo "$demo" | grep -qx "$p" || bad "the demo group lacks $p"
done
for p in qemu-system-x86 valgrind clang doxygen check python3-mypy python3-numpy python3-pytest busybox-static; do
    echo "$demo" | grep -qx "$p" && bad "the demo group installs the test tool $p"
    echo "$all" | grep -qx "$p" || bad "the full set lacks $p"
done
for p in $demo; do echo "$all" | grep -qx "$p" || bad "the full set lacks the demo's $p"; done
[ "$(echo "$all" | sort | uniq -d)" = "" ] || bad "a package is listed twice: $(echo "$all" | sort | uniq -d)"
grep -q 'setup-debian.sh --demo' "$src/scripts/demo.sh" || bad "demo.sh does not install the demo group only"
grep -Eq 'setup-debian.sh( |$)' "$src/scripts/test.sh" && ! grep -q 'setup-debian.sh --demo' "$src/scripts/test.sh" ||
    bad "test.sh does not install everything"
sh "$setup" --bogus >/dev/null 2>&1 && bad "setup-debian.sh --bogus accepted"
# The demo leaves dpkg's architectures alone; the full set adds arm64 and armhf
# for the cross builds. Run against stand-ins of id, dpkg, dpkg-query and
# apt-get that log their arguments (every package "installed", no foreign
# architecture yet).
fake=$(mktemp -d)
for t in id dpkg dpkg-query apt-get; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/log"\n' "$t" "$fake" > "$fake/$t"
done
printf 'case "$1" in -W) printf "install ok installed" ;; esac\n' >> "$fake/dpkg-query"
printf 'echo 0\n' >> "$fake/id"
chmod +x "$fake/id" "$fake/dpkg" "$fake/dpkg-query" "$fake/apt-get"
PATH="$fake:$PATH" sh "$setup" --demo >/dev/null 2>&1 || bad "setup-debian.sh --demo failed with every package present"
grep -q 'add-architecture' "$fake/log" 2>/dev/null && bad "setup-debian.sh --demo changes dpkg's architectures"
: > "$fake/log"
PATH="$fake:$PATH" sh "$setup" >/dev/null 2>&1 || bad "setup-debian.sh failed with every package present"
grep -q 'dpkg --add-architecture arm64' "$fake/log" || bad "setup-debian.sh does not add arm64 for the cross builds"
rm -rf "$fake"

# README: git before "from a clone", and the man page readable on a minimal Debian
head -n 12 "$src/README.md" | grep -q 'git' || bad "README: git is not named where it says 'from a clone'"
grep -q 'man-db' "$src/README.md" || bad "README: does not say how to read the man page (man-db)"

# LICENSE: the MIT text the SPDX identifiers name
lic="$src/LICENSE"
if [ -r "$lic" ]; then
    head -n 1 "$lic" | grep -qx 'MIT License' || bad "LICENSE is not the MIT licence: $(head -n 1 "$lic")"
    grep -q 'Permission is hereby granted, free of charge' "$lic" || bad "LICENSE: not the MIT text"
else
    bad "no LICENSE at the root"
fi
other=$(grep -rhoIE 'SPDX-License-Identifier: [A-Za-z0-9.+-]+' "$src/src" "$src/include" "$src/backends" \
        "$src/bindings" "$src/tests" "$src/scripts" 2>/dev/null | sort -u | grep -v ': MIT$')
[ -z "$other" ] || bad "sources name another licence than the root LICENSE: $other"
[ "$fails" -eq 0 ] && echo "ok: demo group, README prerequisites, LICENSE"
exit "$fails"
