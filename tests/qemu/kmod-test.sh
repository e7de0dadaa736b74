#!/bin/sh
# The offload_dma module (kmod/, issue #17) in the loop: build it against the
# guest kernel's own linux-headers (build-module.sh, with W=1: a warning is a
# failure), and boot the machine with it and the guest programs (suite kmod,
# suites/kmod.sh): guest_offload_dma, and on the DMA machines guest_lib_dma. On machines without a memcpy-capable DMA controller (the
# PC, arm64 virt) the test engine kmod/tests/fake goes in beside it.
#
#   kmod-test.sh --build DIR --cache DIR --machine NAME [--sysroot DIR] --bin GUEST...
#   kmod-test.sh --build DIR --cache DIR --build-only MACHINE...
#     --build-only  only build the module (and, for amd64, the test engine)
#                   for each MACHINE's kernel, warning-free
#
# Everything goes to DIR/kmod-MACHINE (modules and initramfs): the machine's
# other suites keep their own initramfs (kernel-test.sh keeps one per build
# tree and machine). Exit status: kernel-test.sh's (0, 1, 77).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=""
cache=""
machine=""
sysroot=""
bin=""
only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --machine) machine=$2; shift 2 ;;
        --sysroot) sysroot=$2; shift 2 ;;
        --bin) bin="$bin --bin $2"; shift 2 ;;
        --build-only) shift; only="$*"; break ;;
        *) echo "kmod-test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$build" ] || [ -z "$cache" ] || { [ -z "$only" ] && { [ -z "$machine" ] || [ -z "$bin" ]; }; }; then
    echo "usage: kmod-test.sh --build DIR --cache DIR (--machine NAME [--sysroot DIR] --bin GUEST... | --build-only MACHINE...)" >&2
    exit 2
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)

# build_for MACHINE: the module (and the test engine where it is needed) for
# MACHINE's kernel; sets ko, fake. Exits with build-module.sh's status.
build_for() {
    out=$build/kmod-$1
    mkdir -p "$out"
    rc=0
    ko=$(sh "$here/build-module.sh" --build "$out" --cache "$cache" --machine "$1" \
        --name offload_dma --src "$top/kmod" --w1) || rc=$?
    [ "$rc" = 0 ] || exit "$rc"
    fake=""
    case "$1" in
        x86 | virt-arm64)
            fake=$(sh "$here/build-module.sh" --build "$out" --cache "$cache" --machine "$1" \
                --name offload_dma_fake --src "$top/kmod/tests/fake" --w1) || rc=$?
            [ "$rc" = 0 ] || exit "$rc"
            ;;
    esac
}

if [ -n "$only" ]; then
    for m in $only; do
        build_for "$m"
        echo "ok $m: $ko $fake (W=1, no warning)"
    done
    exit 0
fi

build_for "$machine"
# shellcheck disable=SC2086 # $bin: --bin PATH pairs (build paths have no spaces)
set -- --build "$build/kmod-$machine" --cache "$cache" --machine "$machine" $bin \
    --module "$ko" --suite "$here/suites/kmod.sh"
[ -z "$fake" ] || set -- "$@" --module "$fake"
[ -z "$sysroot" ] || set -- "$@" --sysroot "$sysroot"
exec sh "$here/kernel-test.sh" "$@" kmod
