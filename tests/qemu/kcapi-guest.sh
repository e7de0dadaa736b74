#!/bin/sh
# Run the crypto known-answer and cross-check programs against the AF_ALG
# (kcapi) backend in a qemu guest with Debian's 6.12 kernel.
#
#   tests/qemu/kcapi-guest.sh [BUILD_DIR]     (default: build)
#
# Links test_kat and test_crosscheck statically against BUILD_DIR/liboffload.a,
# libkcapi.a, libcrypto.a and libfdt.a, then boots them with run-guest.sh.
# Exit 0 pass, 1 fail, 77 skipped (qemu or the kernel package unavailable).
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -f "$build/liboffload.a" ] || { echo "no $build/liboffload.a: build first"; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for t in test_kat test_crosscheck; do
    # libcrypto.a pulls in dlopen/getaddrinfo: harmless warnings for a static binary.
    ${CC:-cc} -O2 -static -o "$out/$t" tests/crypto/$t.c src/offloadctl/kat_vectors.c \
        src/offloadctl/kat_run.c -Iinclude -I"$build/include" -Isrc/offloadctl \
        "$build/liboffload.a" -lkcapi -lcrypto -lfdt -lpthread -ldl 2>&1 |
        grep -v -e 'statically linked' -e 'in function' || true
    [ -x "$out/$t" ] || { echo "static link of $t failed"; exit 1; }
done
# test_kat sees the real /proc/crypto; test_crosscheck's selection test uses
# a stand-in that says safexcel drivers serve cbc(aes) and sha256.
exec sh tests/qemu/run-guest.sh -e OFFLOAD_BACKENDS=kcapi \
    -e OFFLOAD_TEST_PROC_STANDIN=/data/proc_crypto_hw_standin.txt \
    -f tests/crypto/data/proc_crypto_hw_standin.txt "$out/test_kat" "$out/test_crosscheck"
