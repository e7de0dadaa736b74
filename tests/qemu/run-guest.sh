#!/bin/sh
# Boot Debian's 6.12 kernel under qemu (TCG) with a busybox initramfs and run
# the given static test binaries in the guest, as in
# ../shared/hw/qemu-kernel-tests.md. Used to test the AF_ALG (kcapi) backend,
# which the build machine's kernel lacks.
#
#   tests/qemu/run-guest.sh [-e VAR=VALUE]... [-f FILE]... BINARY...
#
# -f copies FILE into the guest as /data/<basename>.
#
# Each binary runs with the -e variables set; it exits 0 (pass), 77 (skip) or
# anything else (fail). Prints the guest log; exits 0 only when every binary
# passed or skipped (marker GUEST-TESTS-RC=0 and qemu exit code 1, the
# isa-debug-exit convention), 77 when qemu or the kernel package is missing.
# The extracted kernel is cached in $OFFLOAD_QEMU_CACHE (default
# /var/tmp/liboffload-qemu).
set -eu

envs=""
files=""
while [ $# -gt 0 ]; do
    case "$1" in
        -e) envs="$envs export $2;"; shift 2 ;;
        -f) files="$files $2"; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-e VAR=VALUE]... BINARY..." >&2; exit 2; }

for t in qemu-system-x86_64 busybox cpio depmod xz; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed (scripts/setup-debian.sh)"; exit 77; }
done

cache=${OFFLOAD_QEMU_CACHE:-/var/tmp/liboffload-qemu}
mkdir -p "$cache"
if [ ! -f "$cache/kver" ]; then
    kpkg=$(apt-cache depends linux-image-6.12-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
    [ -n "$kpkg" ] || { echo "SKIP: cannot resolve linux-image-6.12-amd64 (apt-get update?)"; exit 77; }
    (cd "$cache" && apt-get download "$kpkg" >/dev/null 2>&1) || { echo "SKIP: apt-get download $kpkg failed"; exit 77; }
    rm -rf "$cache/kroot"
    dpkg-deb -x "$cache"/"${kpkg}"_*.deb "$cache/kroot"
    rm -f "$cache"/*.deb
    kver=$(ls "$cache/kroot/lib/modules")
    depmod -b "$cache/kroot" "$kver"
    echo "$kver" > "$cache/kver"
fi
kver=$(cat "$cache/kver")
kroot=$cache/kroot
mods=$kroot/lib/modules/$kver

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
S=$work/root
mkdir -p "$S/bin" "$S/sbin" "$S/proc" "$S/sys" "$S/dev" "$S/lib/modules/$kver" "$S/tmp"
cp "$(command -v busybox)" "$S/bin/busybox"
for a in $(busybox --list-full); do
    [ -e "$S/$a" ] || { mkdir -p "$S/$(dirname "$a")"; ln -s /bin/busybox "$S/$a"; }
done

# Crypto modules the tests need, with their dependencies (modules.dep lines).
want="af_alg algif_skcipher algif_aead algif_hash crypto_user gcm ghash-generic des_generic
      des3_ede md5 sha1_generic sha256_generic sha512_generic hmac cbc ctr ecb gf128mul libdes"
for m in $want; do
    m_=$(echo "$m" | tr - _)
    line=$(grep -E "/($m|$m_)\.ko(\.xz|\.zst)?:" "$mods/modules.dep" || true)
    [ -n "$line" ] || continue
    for f in $(echo "$line" | tr -d ':'); do
        dst=$S/lib/modules/$kver/${f%.xz}
        [ -f "$dst" ] && continue
        mkdir -p "$(dirname "$dst")"
        case "$f" in
            *.xz) xz -dc "$mods/$f" > "$dst" ;;
            *) cp "$mods/$f" "$dst" ;;
        esac
    done
done
cp "$mods"/modules.builtin* "$mods/modules.order" "$S/lib/modules/$kver/"
depmod -b "$S" "$kver"

mkdir -p "$S/data"
for f in $files; do cp "$f" "$S/data/"; done
n=0
for b in "$@"; do
    n=$((n + 1))
    cp "$b" "$S/bin/t$n-$(basename "$b")"
done
cat > "$S/init" <<INIT
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
$envs
rc=0
for t in /bin/t[0-9]*; do
    echo "=== \$t"
    "\$t"; r=\$?
    if [ \$r -eq 77 ]; then echo "=== \$t SKIPPED"; elif [ \$r -ne 0 ]; then echo "=== \$t FAILED rc=\$r"; rc=1; fi
done
echo "GUEST-TESTS-RC=\$rc"
printf "\\\\\$(printf %03o \$rc)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
INIT
chmod 755 "$S/init"
(cd "$S" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -6 > "$work/initrd.gz"

set +e
{ timeout 600 qemu-system-x86_64 -nographic -no-reboot -m 1024 -nic none \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
    -kernel "$kroot/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
    -append 'console=ttyS0 quiet panic=-1' </dev/null 2>&1; echo $? > "$work/qrc"; } |
    tr -d '\r' > "$work/guest.log"
set -e
qrc=$(cat "$work/qrc")
cat "$work/guest.log"
# Pass needs the marker AND qemu exit code 1 (the guest wrote 0 to isa-debug-exit).
if grep -q '^GUEST-TESTS-RC=0' "$work/guest.log" && [ "$qrc" = 1 ]; then
    exit 0
fi
echo "guest tests failed (qemu exit code $qrc)"
exit 1
