#!/bin/sh
# `cmake --install` into a fresh prefix, then build a small program against
# the installed library the three ways users do: pkg-config (shared),
# pkg-config --static (liboffload.a plus Libs.private), and CMake's
# find_package(offload). Each program runs and must print "ok".
#   check_install.sh BUILD_DIR C_COMPILER CMAKE [CFLAGS]
# CFLAGS: what a program needs to use this build's library (the sanitizer
# flags of a sanitizer build, whose library needs their runtime first).
# A cross build (cmake/toolchain-*.cmake) sets OFFLOAD_TEST_RUN (the emulator
# that runs the target's programs, shell words), OFFLOAD_TEST_SYSROOT and
# OFFLOAD_TEST_TOOLCHAIN: the programs are then built for the target against
# its sysroot and run under the emulator.
set -eu
build=$1
cc=$2
cmake=$3
cflags=${4:-}
emu=${OFFLOAD_TEST_RUN:-}
cmake_cross=""
if [ -n "${OFFLOAD_TEST_SYSROOT:-}" ]; then
    cflags="$cflags --sysroot=$OFFLOAD_TEST_SYSROOT"
    # The target's .pc files (libcrypto, libkcapi of Requires.private); their
    # paths are the target's /usr, which the compiler finds in its sysroot.
    triplet=$("$cc" -dumpmachine)
    export PKG_CONFIG_LIBDIR="$OFFLOAD_TEST_SYSROOT/usr/lib/$triplet/pkgconfig:$OFFLOAD_TEST_SYSROOT/usr/share/pkgconfig"
    cmake_cross="-DCMAKE_TOOLCHAIN_FILE=$OFFLOAD_TEST_TOOLCHAIN -DOFFLOAD_SYSROOT=$OFFLOAD_TEST_SYSROOT"
fi

command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offload-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
pc=$(find "$prefix" -name offload.pc)
[ -n "$pc" ] || { echo "FAIL: no offload.pc installed"; exit 1; }
for f in bin/offloadctl include/offload/offload.h include/offload/version.h; do
    [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
[ -n "$(find "$prefix" -name offloadctl.1)" ] || { echo "FAIL: offloadctl.1 not installed"; exit 1; }
# The library's man(3) pages, when this build made them (Doxygen found).
if [ -e "$build/docs/man3/liboffload.3" ]; then
    for f in liboffload.3 offload_ctx_open.3 offload_dev_get_info.3; do
        [ -n "$(find "$prefix" -path "*/man3/$f")" ] || { echo "FAIL: man page $f not installed"; exit 1; }
    done
fi
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$libdir/pkgconfig"

# offload.pc names the prefix it was installed to (not the configure-time
# one), is a complete text file and points nowhere invented.
grep -qx "prefix=$prefix" "$pc" || { echo "FAIL: offload.pc prefix is not $prefix:"; head -n 1 "$pc"; exit 1; }
[ "$(tail -c 1 "$pc" | od -An -c | tr -d ' ')" = '\n' ] || { echo "FAIL: offload.pc lacks a final newline"; exit 1; }
if grep -q 'example\.invalid' "$pc"; then echo "FAIL: offload.pc has a placeholder URL"; exit 1; fi
[ -n "$(find "$prefix" -name policy.md)" ] || { echo "FAIL: docs/policy.md (cited by the reasons) not installed"; exit 1; }
# The installed tool runs from the prefix without LD_LIBRARY_PATH or ldconfig.
# shellcheck disable=SC2086 # emu is a command and its arguments
out=$(env -u LD_LIBRARY_PATH $emu "$prefix/bin/offloadctl" version 2>&1) ||
    { echo "FAIL: installed offloadctl does not run from $prefix: $out"; exit 1; }

cat >"$tmp/hello.c" <<'EOC'
#include <offload/offload.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	size_t n = (size_t)9 << 20; /* large enough for the CPU backend's worker threads */
	unsigned char *a = malloc(n), *b = malloc(n);

	if (!ctx || !a || !b || offload_version() != OFFLOAD_VERSION_NUMBER)
		return 1;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (offload_ctx_open(ctx, &o) < 0) {
		fprintf(stderr, "%s\n", offload_last_error(ctx));
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = (unsigned char)(i * 7 + i / 4099);
	if (offload_memcpy(ctx, b, a, n) < 0 || memcmp(a, b, n) != 0)
		return 1;
	offload_ctx_free(ctx);
	free(a);
	free(b);
	printf("ok %s\n", offload_version_string());
	return 0;
}
EOC

run() { # name binary
    # shellcheck disable=SC2086
    out=$(LD_LIBRARY_PATH="$libdir" $emu "$2") || { echo "FAIL: $1 program exited $?"; exit 1; }
    case $out in ok*) ;; *) echo "FAIL: $1 program printed '$out'"; exit 1 ;; esac
}

# Shared, through pkg-config.
# shellcheck disable=SC2046
"$cc" -Wall -Werror $cflags -o "$tmp/hello-shared" "$tmp/hello.c" $(pkg-config --cflags --libs offload)
readelf -d "$tmp/hello-shared" | grep -q 'NEEDED.*liboffload\.so\.0' ||
    { echo "FAIL: pkg-config --libs did not link liboffload.so.0"; exit 1; }
run shared "$tmp/hello-shared"

# Static: liboffload.a, with what pkg-config --static says it needs.
libs=$(pkg-config --static --libs offload | sed 's/-loffload/-Wl,-Bstatic -loffload -Wl,-Bdynamic/')
# shellcheck disable=SC2046,SC2086
"$cc" -Wall -Werror $cflags -o "$tmp/hello-static" "$tmp/hello.c" $(pkg-config --cflags offload) $libs
if readelf -d "$tmp/hello-static" | grep -q 'NEEDED.*liboffload'; then
    echo "FAIL: the static link still needs liboffload.so"; exit 1
fi
run static "$tmp/hello-static"

# CMake's package config.
mkdir -p "$tmp/cm"
cp "$tmp/hello.c" "$tmp/cm/"
cat >"$tmp/cm/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.20)
project(hello C)
find_package(offload 0.2 REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE offload::offload)
EOC
# shellcheck disable=SC2086
"$cmake" -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" $cmake_cross \
    -Doffload_DIR="$libdir/cmake/offload" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" \
    >"$tmp/cm.log" 2>&1 &&
    "$cmake" --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1 || {
    cat "$tmp/cm.log"; echo "FAIL: find_package(offload) build"; exit 1; }
run cmake "$tmp/cm/build/hello"

echo "ok: installed to a fresh prefix; shared, static and CMake builds ran"
