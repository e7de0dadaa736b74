#!/bin/sh
# Kernel-in-the-loop tests: boot Debian's own 6.12 amd64 kernel (taken out of
# its package, never installed) under qemu-system-x86_64 with TCG and a
# busybox initramfs that holds the project's own test binaries, and turn the
# guest's verdict into this script's exit code. The recipe and its pitfalls:
# ../shared/hw/qemu-kernel-tests.md.
#
#   kernel-test.sh [options] SUITE
#     --build DIR    build tree: the initramfs is cached in DIR/qemu-initramfs
#     --cache DIR    kernel cache (default DIR/qemu-cache of --build)
#     --machine NAME machine profile tests/qemu/machines/NAME.sh (default x86:
#                    the PC; virt-arm64, raspi3b, sabrelite, nuri): the qemu
#                    machine, Debian's kernel package for it, its device tree
#     --sysroot DIR  the target's sysroot of a cross build: the libraries the
#                    programs load come from there (cmake/DebianCross.cmake)
#     --bin FILE     a program to put in the guest's /bin (repeatable)
#     --data FILE    a file to put in the guest's /data (repeatable)
#     --module FILE  an out-of-tree module (.ko) for the guest kernel, put in
#                    /lib/modules/<kver>/extra, modprobe-able (repeatable)
#     --linux-module NAME=PATH  module NAME built from file PATH of Debian's
#                    linux-source (e.g. dmatest=drivers/dma/dmatest.c) against
#                    the guest kernel's linux-headers (build-module.sh; cached)
#     --suite FILE   a suite of its own: FILE (sh, sourced by the guest's /init
#                    with its step functions) runs as suite basename(FILE .sh)
#     --unavailable REASON   only report that the tests cannot run (77 or 1)
#   SUITE is one of the suites of guest-init.sh (kcapi-generic, kcapi-accel,
#   kcapi-ce, dmabuf, cli; selftest-* check this script's verdict), one given
#   with --suite, or "shell" (an interactive guest shell for debugging:
#   poweroff -f leaves it).
#
# Exit status: 0 the guest ran the suite and every step passed; 1 a step
# failed, the guest panicked, hung (timeout) or never reported; 77 the kernel
# tests cannot run here (qemu, busybox, ... not installed, or the kernel
# package cannot be resolved or downloaded) or the guest kernel lacks what the
# suite needs. With OFFLOAD_REQUIRE_KERNEL_TESTS=1 (set by .ci/run) every 77
# becomes 1: in CI the kernel tests must run, a missing network or package is
# a failure there and never a silent pass.
#
# Environment: OFFLOAD_QEMU_KERNEL_META (x86 only, default
# linux-image-6.12-amd64), the meta-package that names the current ABI
# package; OFFLOAD_QEMU_TIMEOUT (seconds, default 420) bounds one boot.
#
# An out-of-tree module for a guest kernel is built against the same
# package's linux-headers: tests/qemu/build-module.sh (cross-compiled, cached).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# shellcheck source=lib.sh
. "$here/lib.sh"

build=""
cache=""
bins=""
datas=""
kmods=""
lmods=""
suites=""
machine=x86
sysroot=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --machine) machine=$2; shift 2 ;;
        --sysroot) sysroot=$2; shift 2 ;;
        --bin) bins="$bins $(abspath "$2")"; shift 2 ;;
        --data) datas="$datas $(abspath "$2")"; shift 2 ;;
        --module) kmods="$kmods $(abspath "$2")"; shift 2 ;;
        --linux-module) lmods="$lmods $2"; shift 2 ;;
        --suite) suites="$suites $(abspath "$2")"; shift 2 ;;
        # A build without the backends only says why (tests/qemu/CMakeLists.txt).
        --unavailable) unavailable "$2" ;;
        -*) echo "kernel-test.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -ne 1 ] || [ -z "$build" ]; then
    echo "usage: kernel-test.sh --build DIR [--cache DIR] [--bin FILE]... [--data FILE]... SUITE" >&2
    exit 2
fi
suite=$1
build=$(cd "$build" && pwd)
[ -f "$here/machines/$machine.sh" ] || { echo "kernel-test.sh: no machine profile $machine" >&2; exit 2; }
# shellcheck source=machines/x86.sh
. "$here/machines/$machine.sh"
cache=${cache:-$build/qemu-cache}
meta=$M_META
# The amd64 kernel keeps the cache's top level (shared with older trees);
# every other kernel has a directory of its own.
cache_top=$cache
[ "$M_ARCH" = amd64 ] || cache=$cache/$meta
boot_timeout=${OFFLOAD_QEMU_TIMEOUT:-420}
# The suite's CPU and kernel parameters (cpu, extra); a suite given with
# --suite runs with the machine's defaults (those of its shell).
pick_suite() {
    machine_suite "$suite" && return 0
    for f in $suites; do
        [ "$(basename "$f" .sh)" = "$suite" ] && { machine_suite shell; return 0; }
    done
    echo "kernel-test.sh: machine $machine has no suite $suite" >&2
    exit 2
}
pick_suite

for t in "$M_QEMU" $M_QEMU_USER cpio depmod xz dpkg-deb apt-cache apt-get flock timeout \
         sha256sum ldd gzip; do
    command -v "$t" >/dev/null 2>&1 ||
        unavailable "$t is not installed (run scripts/setup-debian.sh)"
done
[ -n "$M_QEMU_USER" ] || command -v busybox >/dev/null 2>&1 ||
    unavailable "busybox is not installed (run scripts/setup-debian.sh)"
if [ -n "$M_DTB" ]; then
    command -v fdtput >/dev/null 2>&1 || unavailable "fdtput is not installed (device-tree-compiler)"
fi
if [ -n "$M_QEMU_USER" ] && [ -n "$bins" ] && [ -z "$sysroot" ]; then
    echo "kernel-test.sh: machine $machine runs $M_ARCH programs: give --sysroot" >&2
    exit 2
fi

# ---------------------------------------------------------------- the kernel
# $cache/kroot holds boot/vmlinuz-*, boot/config-* and the crypto module
# directories of the ABI package the meta-package names; $cache/package and
# $cache/kver say which. A newer ABI package replaces it; when apt cannot
# resolve the meta-package (no package lists, no network) a cached kernel
# is still used.
fetch_kernel() {
    mkdir -p "$cache"
    exec 8>"$cache/.lock"
    flock 8
    # The meta-package moves to a new ABI package now and then: ask apt at
    # most once an hour (each suite calls this; apt-cache takes about a second).
    # What the unpacked tree holds (bumped when that changes: device trees).
    layout=2
    if [ -f "$cache/kver" ] && [ -n "$(find "$cache/resolved" -mmin -60 2>/dev/null)" ] &&
        [ "$(cat "$cache/layout" 2>/dev/null)" = "$layout" ]; then
        flock -u 8
        return 0
    fi
    resolve() { apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}'; }
    kpkg=$(resolve)
    if [ -z "$kpkg" ] && [ ! -f "$cache/kver" ] && [ "$(id -u)" = 0 ]; then
        # A fresh machine (a CI image) may have no package lists yet. A
        # foreign-architecture index can fail while the native ones are fine
        # (pitfall 1): try the resolution again whatever update says.
        echo "note: $meta unknown to apt-cache; running apt-get update"
        apt-get -q update >/dev/null 2>&1 || true
        kpkg=$(resolve)
    fi
    if [ -z "$kpkg" ]; then
        if [ -f "$cache/kver" ]; then
            echo "note: cannot resolve $meta with apt-cache; using the cached $(cat "$cache/package")"
            flock -u 8
            return 0
        fi
        unavailable "apt-cache cannot resolve $meta to a kernel package (apt-get update needed, or no network)"
    fi
    if [ -f "$cache/kver" ] && [ "$(cat "$cache/package")" = "$kpkg" ] &&
        [ "$(cat "$cache/layout" 2>/dev/null)" = "$layout" ]; then
        touch "$cache/resolved"
        flock -u 8
        return 0
    fi
    echo "fetching $kpkg (resolved from $meta) into $cache"
    rm -rf "$cache/dl" "$cache/kroot.new"
    mkdir -p "$cache/dl" "$cache/kroot.new"
    # Downloading as root into a directory _apt cannot read only warns.
    if ! (cd "$cache/dl" && apt-get -q download "$kpkg" >apt.log 2>&1); then
        tail -3 "$cache/dl/apt.log" 2>/dev/null || true
        rm -rf "$cache/dl" "$cache/kroot.new"
        unavailable "apt-get download $kpkg failed (no network or mirror?)"
    fi
    # Only what the guest needs: the image, its config and the crypto modules.
    # Only what the guest needs: the image, its config and the crypto
    # modules, under lib/modules (bookworm) or usr/lib/modules (merged /usr
    # packages); tar complains about the layout that is absent, so its
    # status is not the verdict: the files below are.
    for m in lib/modules usr/lib/modules; do
        set -- "$@" "./$m/*/modules.builtin*" "./$m/*/modules.order"
        for d in $M_MODDIRS; do set -- "$@" "./$m/*/$d/*"; done
    done
    # The boards' device trees (the package's usr/lib/linux-image-<kver>/),
    # for every profile that boots this kernel.
    set -- "$@" "./usr/lib/linux-image-*"
    dpkg-deb --fsys-tarfile "$cache"/dl/*.deb |
        tar -x -C "$cache/kroot.new" --wildcards './boot/vmlinuz-*' './boot/config-*' "$@" \
            2>/dev/null || true
    if [ -d "$cache/kroot.new/usr/lib/modules" ] && [ ! -d "$cache/kroot.new/lib/modules" ]; then
        mv "$cache/kroot.new/usr/lib/modules" "$cache/kroot.new/lib/modules"
    fi
    kv=$(find "$cache/kroot.new/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | head -1)
    if [ -z "$kv" ] || [ ! -f "$cache/kroot.new/boot/vmlinuz-$kv" ] ||
        [ ! -f "$cache/kroot.new/lib/modules/$kv/modules.order" ]; then
        rm -rf "$cache/dl" "$cache/kroot.new"
        echo "FAIL: $kpkg has no boot/vmlinuz-<version> with its lib/modules/<version>"
        exit 1
    fi
    # The package ships no modules.dep (pitfall 3): build it for the subset.
    depmod -b "$cache/kroot.new" "$kv"
    rm -rf "$cache/kroot" "$cache/dl"
    mv "$cache/kroot.new" "$cache/kroot"
    echo "$kv" >"$cache/kver"
    echo "$kpkg" >"$cache/package"
    echo "$layout" >"$cache/layout"
    touch "$cache/resolved"
    flock -u 8
}

# ---------------------------------------------------------------- busybox
# The host's busybox-static for the host's architecture; for another, the
# same package of the target (apt-get download, cached with the kernel).
busybox=""
fetch_busybox() {
    if [ -z "$M_QEMU_USER" ]; then
        busybox=$(command -v busybox)
        return 0
    fi
    busybox=$cache/busybox/bin/busybox
    [ -x "$busybox" ] && return 0
    mkdir -p "$cache/bb.dl"
    if ! (cd "$cache/bb.dl" && apt-get -q download "busybox-static:$M_ARCH" >apt.log 2>&1); then
        tail -3 "$cache/bb.dl/apt.log" 2>/dev/null || true
        rm -rf "$cache/bb.dl"
        unavailable "apt-get download busybox-static:$M_ARCH failed (run scripts/setup-debian.sh, no network?)"
    fi
    rm -rf "$cache/busybox"
    dpkg-deb -x "$cache"/bb.dl/*.deb "$cache/busybox"
    rm -rf "$cache/bb.dl"
}

# ---------------------------------------------------------------- the initramfs
# Modules the suites need (M_MODULES of the machine), with their dependencies
# taken from modules.dep. Accelerated drivers are loaded explicitly by the
# suites that test them.

# The shared libraries (and loader) a program or library loads, as paths in
# the guest: ldd, or for another architecture the target's own loader
# (--list) under qemu-user with the sysroot.
libs_of() {
    if [ -n "$M_QEMU_USER" ]; then
        case "$(head -c 4 "$1" 2>/dev/null)" in "$(printf '\177ELF')") ;; *) return 0 ;; esac
        for ld in "$sysroot"/lib/ld-linux*.so.*; do :; done
        QEMU_LD_PREFIX=$sysroot "$M_QEMU_USER" "$ld" --list "$1" 2>/dev/null |
            awk '/=> \//{print $3} /^[ \t]*\//{print $1}'
    else
        ldd "$1" 2>/dev/null | awk '/=> \//{print $3} /^[ \t]*\//{print $1}'
    fi
}

# Where the guest's file $1 comes from: the sysroot's copy if there is one.
src_of() {
    if [ -n "$sysroot" ] && [ -e "$sysroot$1" ]; then echo "$sysroot$1"; else echo "$1"; fi
}

# Copy path (and, for a program or library, every library it loads) into $S.
add_with_libs() {
    dst=$S$1
    mkdir -p "$(dirname "$dst")"
    [ -e "$dst" ] || cp -L "$(src_of "$1")" "$dst"
    libs_of "$(src_of "$1")" | while read -r lib; do
        [ -e "$S$lib" ] && continue
        mkdir -p "$S$(dirname "$lib")"
        cp -L "$(src_of "$lib")" "$S$lib"
    done
}

build_initramfs() {
    kv=$(cat "$cache/kver")
    mods=$cache/kroot/lib/modules/$kv
    out=$build/qemu-initramfs
    mkdir -p "$out"
    exec 9>"$out/.lock"
    flock 9
    # The image is rebuilt when any input changed: programs and the shared
    # libraries they load, data, kernel, this script.
    if [ -n "$sysroot" ]; then
        # The target's OpenSSL: its pkg-config file names its modules directory.
        modulesdir=$(PKG_CONFIG_LIBDIR=$(echo "$sysroot"/usr/lib/*/pkgconfig) PKG_CONFIG_SYSROOT_DIR='' \
            pkg-config --variable=modulesdir libcrypto 2>/dev/null || true)
    else
        modulesdir=$(pkg-config --variable=modulesdir libcrypto 2>/dev/null ||
            openssl version -m 2>/dev/null | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
    fi
    key=$( { echo "$kv $machine"; sha256sum "$0" "$here/guest-init.sh" "$here/machines/$machine.sh" "$busybox";
             for b in $bins $datas $kmods $suites; do sha256sum "$b"; done
             for b in $bins; do libs_of "$b"; done | sort -u | while read -r l; do src_of "$l"; done |
                 xargs -r sha256sum
             [ -n "$modulesdir" ] && [ -f "$(src_of "$modulesdir/legacy.so")" ] &&
                 sha256sum "$(src_of "$modulesdir/legacy.so")"
             true; } | sha256sum | cut -c1-16)
    img=$out/initramfs-$machine-$key.cpio.gz
    if [ -f "$img" ]; then
        flock -u 9
        return 0
    fi
    rm -f "$out"/initramfs-"$machine"-*.cpio.gz
    S=$out/root
    rm -rf "$S"
    mkdir -p "$S/bin" "$S/sbin" "$S/usr/bin" "$S/usr/sbin" "$S/proc" "$S/sys" "$S/dev" \
        "$S/tmp" "$S/data" "$S/etc" "$S/lib/modules/$kv"
    cp "$busybox" "$S/bin/busybox"
    [ -n "$M_QEMU_USER" ] || add_with_libs "$busybox"
    # shellcheck disable=SC2086 # M_QEMU_USER is empty for the host's architecture
    for a in $($M_QEMU_USER "$busybox" --list-full); do
        [ -e "$S/$a" ] || ln -s /bin/busybox "$S/$a"
    done
    for m in $M_MODULES; do
        m_=$(echo "$m" | tr - _)
        line=$(grep -E "/($m|$m_)\.ko(\.xz|\.zst)?:" "$mods/modules.dep" || true)
        [ -n "$line" ] || continue # built into this kernel
        for f in $(echo "$line" | tr -d ':'); do
            dst=$S/lib/modules/$kv/${f%.*}
            case "$f" in *.ko) dst=$S/lib/modules/$kv/$f ;; esac
            [ -f "$dst" ] && continue
            mkdir -p "$(dirname "$dst")"
            # Decompressed at build time: busybox's modprobe then loads them
            # without the kernel's "Invalid ELF header" noise (pitfall 4).
            case "$f" in
                *.xz) xz -dc "$mods/$f" >"$dst" ;;
                *.zst) zstd -qdc "$mods/$f" >"$dst" ;;
                *) cp "$mods/$f" "$dst" ;;
            esac
        done
    done
    cp "$mods"/modules.builtin* "$mods/modules.order" "$S/lib/modules/$kv/"
    if [ -n "$kmods" ]; then
        mkdir -p "$S/lib/modules/$kv/extra"
        for k in $kmods; do cp "$k" "$S/lib/modules/$kv/extra/"; done
    fi
    depmod -b "$S" "$kv"
    # Dynamic programs with their libraries at the same paths (including a
    # build tree's liboffload.so named by RUNPATH), and OpenSSL's legacy
    # provider for single DES: a static libcrypto.a cannot load it.
    for b in $bins; do
        add_with_libs "$b"
        ln -sf "$b" "$S/bin/$(basename "$b")"
    done
    if [ -n "$modulesdir" ] && [ -f "$(src_of "$modulesdir/legacy.so")" ]; then
        add_with_libs "$modulesdir/legacy.so"
    fi
    for d in $datas; do cp "$d" "$S/data/"; done
    mkdir -p "$S/suites"
    for f in $suites; do cp "$f" "$S/suites/"; done
    echo "root:x:0:0:root:/:/bin/sh" >"$S/etc/passwd"
    echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$S/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$S/etc/group"
    cp "$here/guest-init.sh" "$S/init"
    chmod 755 "$S/init"
    (cd "$S" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$img.tmp"
    mv "$img.tmp" "$img"
    rm -rf "$S"
    flock -u 9
}

# ---------------------------------------------------------------- the device tree
# The machine's own tree (dumped from qemu, or the kernel package's), edited
# by the profile for the suites (machine_dtb), cached beside the initramfs.
dtb=""
make_dtb() {
    [ -n "$M_DTB" ] || return 0
    kv=$(cat "$cache/kver")
    base=$build/qemu-initramfs/$machine-base.dtb
    if [ "$M_DTB" = dump ]; then
        # shellcheck disable=SC2046,SC2086
        "$M_QEMU" $(machine_args) -machine dumpdtb="$base.tmp" -nographic >/dev/null 2>&1 </dev/null || true
        [ -s "$base.tmp" ] || { echo "FAIL: $M_QEMU cannot dump the $machine device tree"; exit 1; }
        mv "$base.tmp" "$base"
    else
        src=$(find "$cache/kroot/usr/lib" -path "*/linux-image-$kv/$M_DTB" 2>/dev/null | head -1)
        [ -n "$src" ] || { echo "FAIL: $(cat "$cache/package") has no $M_DTB"; exit 1; }
        cp "$src" "$base"
    fi
    dtb=$build/qemu-initramfs/$machine.dtb
    if command -v machine_dtb >/dev/null 2>&1; then
        machine_dtb "$base" "$dtb.tmp"
        mv "$dtb.tmp" "$dtb"
    else
        mv "$base" "$dtb"
    fi
}

# ---------------------------------------------------------------- boot
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(now)
fetch_kernel
fetch_busybox
for lm in $lmods; do
    set +e
    ko=$(sh "$here/build-module.sh" --build "$build" --cache "${cache_top:-$cache}" --machine "$machine" \
        --name "${lm%%=*}" --linux-source "${lm#*=}")
    r=$?
    set -e
    [ "$r" = 0 ] || { [ "$r" = 77 ] && unavailable "the ${lm%%=*} module cannot be built here"; exit 1; }
    kmods="$kmods $ko"
done
t1=$(now)
build_initramfs
# shellcheck disable=SC2034 # used by machine_args of the profiles
cpu=""
extra=""
pick_suite
make_dtb
t2=$(now)
echo "kernel $(cat "$cache/package"): ready in $(secs "$t0" "$t1") s; initramfs: $(secs "$t1" "$t2") s ($(du -k "$img" | cut -f1) KiB)"
kv=$(cat "$cache/kver")
kernel=$cache/kroot/boot/vmlinuz-$kv

# Debugging (shell): OFFLOAD_QEMU_CPU=max gives the accelerated drivers' CPU,
# OFFLOAD_QEMU_APPEND adds kernel parameters.
if [ "$suite" = shell ]; then
    cpu=${OFFLOAD_QEMU_CPU:-$cpu}
    extra="$extra ${OFFLOAD_QEMU_APPEND:-}"
fi

nonce=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
logdir=$build/qemu-logs
mkdir -p "$logdir"
log=$logdir/$machine-$suite.log
[ "$machine" = x86 ] && log=$logdir/$suite.log
qemu_args="-nographic -no-reboot $(machine_args) -kernel $kernel -initrd $img"
[ -z "$dtb" ] || qemu_args="$qemu_args -dtb $dtb"
append="console=$M_CONSOLE quiet panic=-1 offload.suite=$suite offload.nonce=$nonce offload.exit=$M_EXIT $extra"
if [ "$suite" = shell ]; then
    # shellcheck disable=SC2086
    exec "$M_QEMU" $qemu_args -append "$append"
fi

start=$(now)
set +e
# shellcheck disable=SC2086
timeout -k 10 "$boot_timeout" "$M_QEMU" $qemu_args -append "$append" </dev/null >"$log.raw" 2>&1 &
qpid=$!
if [ "$M_EXIT" = marker ]; then
    # No exit device: once the verdict line is out (and the UART drained), the
    # host stops qemu itself (timeout passes the signal on); a hang still ends
    # at the timeout.
    while kill -0 "$qpid" 2>/dev/null; do
        if grep -q "^GUEST-TESTS-RC=[0-9]* $nonce" "$log.raw" 2>/dev/null; then
            sleep 2
            kill -TERM "$qpid" 2>/dev/null
            break
        fi
        sleep 0.5
    done
fi
wait "$qpid"
echo $? >"$log.rc"
tr -d '\r' <"$log.raw" >"$log"
rm -f "$log.raw"
set -e
qrc=$(cat "$log.rc")
rm -f "$log.rc"
cat "$log"
echo "--- $suite on $machine: kernel $kv, qemu exit code $qrc, boot to exit $(secs "$start" "$(now)") s (log: $log)"

# The verdict needs the marker line with this boot's nonce AND, where the
# machine has an exit device, qemu's exit code matching it: isa-debug-exit and
# testdev make qemu exit with (value << 1) | 1, while a poweroff or a kernel
# panic gives 0 and a timeout 124 or 137.
grc=$(sed -n "s/^GUEST-TESTS-RC=\([0-9]*\) $nonce\$/\1/p" "$log" | tail -1)
if [ -z "$grc" ]; then
    case "$qrc" in
        124 | 137) echo "FAIL: the guest did not finish within $boot_timeout s" ;;
        0) echo "FAIL: the guest stopped without a verdict (kernel panic or /init died)" ;;
        *) echo "FAIL: no verdict from the guest" ;;
    esac
    exit 1
fi
if [ "$M_EXIT" != marker ] && [ "$qrc" != $(((grc << 1) | 1)) ]; then
    echo "FAIL: the guest reported $grc but qemu exited with $qrc"
    exit 1
fi
case "$grc" in
    0) echo "PASS: $suite"; exit 0 ;;
    77)
        # A step that skipped says why on its "SKIP:" lines: the reason names them.
        why=$(grep '^SKIP: ' "$log" | sed 's/^SKIP: //' | sort -u | head -3 | tr '\n' ';' | sed 's/;$//')
        unavailable "${why:-the guest kernel lacks what suite $suite needs} (see the log above)" ;;
    *) echo "FAIL: $suite"; exit 1 ;;
esac
