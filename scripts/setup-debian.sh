#!/bin/sh
# The one list of the Debian 12 packages liboffload needs, in three groups:
#   demo: what building and running the library and offloadctl need (compiler,
#         CMake, pkg-config, the libraries, dtc for the built-in virtual board,
#         man-db to read offloadctl(1)): scripts/demo.sh;
#   test: the test command's toolchain on top (clang, Check, Doxygen, libabigail
#         for the ABI check, Python and its test modules, valgrind, qemu and
#         what the kernel tests unpack):
#         scripts/test.sh;
#   bench: what the benchmarks compare the library with beyond the test
#         toolchain: DPDK's dmadev and its software dma_skeleton device
#         (bench/dmadev_compare.c, issue #19).
#   setup-debian.sh           install every group (the default)
#   setup-debian.sh --demo    install the demo group only
#   setup-debian.sh [--demo] --list   print the packages, one a line; install nothing
# Run as root (or via sudo) to install. Idempotent.
set -eu

DEMO_PACKAGES="
build-essential
cmake
pkg-config
libfdt-dev
device-tree-compiler
libkcapi-dev
libssl-dev
man-db
"

TEST_PACKAGES="
clang
libclang-rt-14-dev
openssl
check
doxygen
abigail-tools
python3
python3-dev
python3-pip
python3-pytest
python3-numpy
python3-cryptography
python3-setuptools
python3-wheel
python3-venv
python3-mypy
valgrind
qemu-system-x86
busybox-static
cpio
kmod
xz-utils
zstd
gcc-aarch64-linux-gnu
gcc-arm-linux-gnueabihf
qemu-user
qemu-system-arm
"

BENCH_PACKAGES="
libdpdk-dev
librte-dma-skeleton23
"

PACKAGES="$DEMO_PACKAGES $TEST_PACKAGES $BENCH_PACKAGES"
list=false
cross=true
for arg in "$@"; do
    case $arg in
    --demo) PACKAGES=$DEMO_PACKAGES; cross=false ;;
    --all) PACKAGES="$DEMO_PACKAGES $TEST_PACKAGES $BENCH_PACKAGES"; cross=true ;;
    --list) list=true ;;
    *) echo "usage: setup-debian.sh [--demo | --all] [--list]" >&2; exit 2 ;;
    esac
done
if $list; then
    for p in $PACKAGES; do echo "$p"; done
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then exec sudo "$0" "$@"; fi
    echo "setup-debian.sh: must run as root" >&2
    exit 1
fi

# The cross builds (cmake/toolchain-*.cmake, scripts/cross-sysroot.sh) take the
# target's -dev packages with apt-get download, which needs the foreign
# architectures' package lists; nothing of them is installed on the host.
# The demo builds for the host only and leaves dpkg's architectures alone.
need_update=0
for a in $($cross && echo arm64 armhf); do
    if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
        dpkg --add-architecture "$a"
        need_update=1
    fi
done

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ] || [ "$need_update" = 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    # A foreign-architecture index can fail to update (wrong size from a mirror
    # mid-sync) while the native ones are fine; let the install decide.
    # Several set-ups may run at once (parallel builds on one machine): wait
    # for the dpkg lock instead of failing on it.
    lock="-o DPkg::Lock::Timeout=900"
    # shellcheck disable=SC2086
    apt-get $lock update || true
    # shellcheck disable=SC2086
    [ -z "$missing" ] || apt-get $lock install -y --no-install-recommends $missing
fi
echo "setup-debian.sh: all packages present"
