#!/bin/sh
# A target sysroot for the cross builds (cmake/toolchain-*.cmake): Debian's
# own packages of the target architecture, fetched with `apt-get download`
# and unpacked with `dpkg-deb -x`, never installed. Installing them is not
# possible side by side with the host's: libfdt-dev is not Multi-Arch in
# Debian 12 and conflicts with the host's, and libssl-dev:arm64 may demand
# another libssl3 than the host has. The sysroot holds the C library, the
# -dev packages the build needs and their run-time libraries, so that both
# the cross compiler (--sysroot) and qemu-user (QEMU_LD_PREFIX) use it.
#
#   cross-sysroot.sh ARCH DIR      ARCH is a Debian architecture (arm64, armhf)
#
# Idempotent and cached: DIR/.packages names the package versions it was
# made from; it is remade only when apt's candidates change. The .debs are
# kept in DIR.debs/ (a second build tree can point at the same DIR).
# Exit status: 0 ready; 1 apt cannot resolve or download a package (run
# scripts/setup-debian.sh, which adds the foreign architectures).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: cross-sysroot.sh ARCH DIR" >&2
    exit 2
fi
arch=$1
dir=$2

# The libraries the build links and the run-time libraries they load.
PACKAGES="libc6 libc6-dev linux-libc-dev libgcc-s1 libfdt1 libfdt-dev libssl3 libssl-dev
    libkcapi1 libkcapi-dev check libsubunit0 libsubunit-dev"

mkdir -p "$(dirname "$dir")"
exec 7>"$dir.lock"
flock 7

# Candidate versions (one apt-cache call: each one reads the whole cache):
# the sysroot is remade when one changes.
want=$(apt-cache policy $(for p in $PACKAGES; do printf '%s:%s ' "$p" "$arch"; done) 2>/dev/null |
    awk '/^[^ ]/ { p = $1; sub(/:$/, "", p) } /^  Candidate:/ && $2 != "(none)" { print p "=" $2 }')
for p in $PACKAGES; do
    if ! printf '%s\n' "$want" | grep -q "^$p:$arch="; then
        if [ -f "$dir/.packages" ]; then
            echo "cross-sysroot.sh: apt-cache does not know $p:$arch; using the sysroot as it is"
            exit 0
        fi
        echo "cross-sysroot.sh: apt-cache does not know $p:$arch (run scripts/setup-debian.sh: it adds the $arch architecture)" >&2
        exit 1
    fi
done
want="$want
"
if [ -f "$dir/.packages" ] && [ "$(cat "$dir/.packages")" = "$(printf %s "$want")" ]; then
    exit 0
fi

debs=$dir.debs
mkdir -p "$debs"
printf %s "$want" | while read -r pv; do
    p=${pv%%=*}
    v=${pv#*=}
    # apt-get download names the file pkg_version_arch.deb, epoch escaped.
    f=$(echo "${p%%:*}_${v}_$arch.deb" | sed 's/:/%3a/')
    [ -f "$debs/$f" ] && continue
    if ! (cd "$debs" && apt-get -q download "$pv" >apt.log 2>&1); then
        tail -3 "$debs/apt.log" >&2 || true
        echo "cross-sysroot.sh: apt-get download $pv failed" >&2
        exit 1
    fi
done
rm -rf "$dir.new"
mkdir -p "$dir.new"
printf %s "$want" | while read -r pv; do
    p=${pv%%=*}
    v=${pv#*=}
    f=$(echo "${p%%:*}_${v}_$arch.deb" | sed 's/:/%3a/')
    dpkg-deb -x "$debs/$f" "$dir.new"
done
# Absolute symlinks (libfoo.so -> /lib/<triplet>/libfoo.so.1) would point
# at the host: make them relative to the sysroot.
find "$dir.new" -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in
        /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$dir.new$t")" "$l" ;;
    esac
done
printf %s "$want" >"$dir.new/.packages"
rm -rf "$dir"
mv "$dir.new" "$dir"
# Old versions' .debs are not needed again.
keep=$(printf %s "$want" | while read -r pv; do
    p=${pv%%=*}; v=${pv#*=}; echo "${p%%:*}_${v}_$arch.deb" | sed 's/:/%3a/'; done)
for f in "$debs"/*.deb; do
    echo "$keep" | grep -qxF "$(basename "$f")" || rm -f "$f"
done
echo "cross-sysroot.sh: $arch sysroot ready in $dir"
