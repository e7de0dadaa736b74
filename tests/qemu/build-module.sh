#!/bin/sh
# Build an out-of-tree kernel module for a guest kernel of kernel-test.sh:
# against the linux-headers package of the very kernel package the machine
# profile boots (its version from the meta-package), cross-compiled with
# Debian's cross gcc, with the host's linux-kbuild (Multi-Arch: foreign, the
# programs Kbuild runs: fixdep, modpost). Nothing is installed: the packages
# are unpacked into the kernel cache, and the module is cached in the build
# tree until its sources or the kernel change.
#
#   build-module.sh --build DIR --cache DIR --machine NAME --name MOD
#                   (--src DIR | --linux-source PATH...)
#     --src DIR            a module's own sources (a Kbuild or Makefile in DIR)
#     --linux-source PATH  a file of Debian's linux-source package, e.g.
#                          drivers/dma/dmatest.c: built as module MOD
#     --w1                 with the kernel's extra warnings (make W=1), and
#                          any warning fails the build
#   Prints the path of MOD.ko. Exit status: 0 built (or cached); 1 the build
#   failed; 77 a package cannot be had (1 with OFFLOAD_REQUIRE_KERNEL_TESTS=1).
#
# By hand, for a module of your own (issue #17's dmaengine module):
#   sh tests/qemu/build-module.sh --build build-aarch64 --cache build/qemu-cache \
#       --machine raspi3b --name offload_dma --src path/to/module
# then give the .ko to kernel-test.sh with --module.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
# stdout is the module's path: every message goes to stderr.
exec 5>&1 1>&2

build=""
cache=""
machine=""
name=""
src=""
lsrc=""
w1=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --machine) machine=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --src) src=$(cd "$2" && pwd); shift 2 ;;
        --linux-source) lsrc="$lsrc $2"; shift 2 ;;
        --w1) w1="W=1"; shift ;;
        *) echo "build-module.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$build" ] || [ -z "$cache" ] || [ -z "$machine" ] || [ -z "$name" ] ||
    { [ -z "$src" ] && [ -z "$lsrc" ]; }; then
    echo "usage: build-module.sh --build DIR --cache DIR --machine NAME --name MOD (--src DIR | --linux-source PATH...)" >&2
    exit 2
fi
# shellcheck source=machines/x86.sh
. "$here/machines/$machine.sh"
[ "$M_ARCH" = amd64 ] || cache=$cache/$M_META
mkdir -p "$cache"
case "$M_ARCH" in
    arm64) karch=arm64; cross=aarch64-linux-gnu- ;;
    armhf) karch=arm; cross=arm-linux-gnueabihf- ;;
    amd64) karch=x86; cross="" ;;
    *) echo "build-module.sh: no cross compiler known for $M_ARCH" >&2; exit 2 ;;
esac
command -v "${cross}gcc" >/dev/null 2>&1 || unavailable "${cross}gcc is not installed (scripts/setup-debian.sh)"

exec 6>"$cache/.modlock"
flock 6

# The kernel package and its version: linux-image-<kver>, version V.
kpkg=$(apt-cache depends "$M_META:$M_ARCH" 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
[ -n "$kpkg" ] || unavailable "apt-cache cannot resolve $M_META:$M_ARCH (apt-get update needed?)"
kpkg=${kpkg%%:*}
kver=${kpkg#linux-image-}
base=${kver%-*}                                  # 6.12.117+deb12
major=$(echo "$base" | cut -d. -f1-2)            # 6.12
pver=$(apt-cache policy "$kpkg:$M_ARCH" | awk '/Candidate:/{print $2; exit}')

hdr=$cache/headers-$kver
if [ ! -f "$hdr/.ready" ]; then
    rm -rf "$hdr" "$cache/hdr.dl"
    mkdir -p "$cache/hdr.dl" "$hdr"
    if ! (cd "$cache/hdr.dl" && apt-get -q download "linux-headers-$kver:$M_ARCH" \
            "linux-headers-$base-common" "linux-kbuild-$base:$(dpkg --print-architecture)" >apt.log 2>&1); then
        tail -3 "$cache/hdr.dl/apt.log" >&2 || true
        rm -rf "$cache/hdr.dl" "$hdr"
        unavailable "apt-get download of linux-headers-$kver failed"
    fi
    for d in "$cache"/hdr.dl/*.deb; do dpkg-deb -x "$d" "$hdr"; done
    rm -rf "$cache/hdr.dl"
    # The flavour's Makefile includes the common tree by its absolute path.
    sed -i "s|include /usr/src/|include $hdr/usr/src/|" "$hdr/usr/src/linux-headers-$kver/Makefile"
    touch "$hdr/.ready"
fi
kdir=$hdr/usr/src/linux-headers-$kver

# Files of Debian's linux-source of the same version.
if [ -n "$lsrc" ]; then
    ls_dir=$cache/linux-source-$pver
    need=""
    for f in $lsrc; do [ -f "$ls_dir/$f" ] || need="$need linux-source-$major/$f"; done
    if [ -n "$need" ]; then
        mkdir -p "$cache/src.dl" "$ls_dir"
        if ! (cd "$cache/src.dl" && apt-get -q download "linux-source-$major=$pver" >apt.log 2>&1); then
            tail -3 "$cache/src.dl/apt.log" >&2 || true
            rm -rf "$cache/src.dl"
            unavailable "apt-get download linux-source-$major=$pver failed"
        fi
        # shellcheck disable=SC2086
        dpkg-deb --fsys-tarfile "$cache"/src.dl/*.deb | tar -xO "./usr/src/linux-source-$major.tar.xz" |
            xz -dc | tar -x -C "$ls_dir" --strip-components=1 $need
        rm -rf "$cache/src.dl"
    fi
fi

out=$build/qemu-modules/$name
key=$( { echo "$kver $cross $w1"; [ -z "$src" ] || find "$src" -type f -exec sha256sum {} +;
         for f in $lsrc; do sha256sum "$ls_dir/$f"; done; } | sha256sum | cut -c1-16)
if [ -f "$out/$name.ko" ] && [ "$(cat "$out/.key" 2>/dev/null)" = "$key" ]; then
    echo "$out/$name.ko" >&5
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"
if [ -n "$src" ]; then
    cp -r "$src"/. "$out/"
else
    objs=""
    for f in $lsrc; do cp "$ls_dir/$f" "$out/"; objs="$objs $(basename "${f%.c}").o"; done
    echo "obj-m := $name.o" >"$out/Kbuild"
    # One file of the module's own name builds as it is; else a composite.
    # shellcheck disable=SC2086
    [ "$(echo $objs)" = "$name.o" ] || echo "$name-y :=$objs" >>"$out/Kbuild"
fi
# No pahole here: the module carries no BTF (CONFIG_DEBUG_INFO_BTF_MODULES off
# for this build only); the kernel loads it all the same.
if ! make -C "$kdir" M="$out" ARCH="$karch" CROSS_COMPILE="$cross" \
        CONFIG_DEBUG_INFO_BTF_MODULES= $w1 modules >"$out/build.log" 2>&1; then
    tail -20 "$out/build.log"
    echo "FAIL: the $name module does not build against linux-headers-$kver"
    exit 1
fi
if [ -n "$w1" ] && grep -q 'warning:' "$out/build.log"; then
    grep -A3 'warning:' "$out/build.log" | head -40
    echo "FAIL: the $name module builds with warnings (W=1) against linux-headers-$kver"
    exit 1
fi
echo "$key" >"$out/.key"
echo "$out/$name.ko" >&5
