#!/bin/sh
# SPDX-License-Identifier: MIT
# `pip install ./bindings/python` as a user does it, against the library as
# installed from this build: stage `cmake --install` in a temporary DESTDIR,
# let pkg-config find it there, build the module into a fresh venv of the
# given interpreter, and import and use it from outside the source tree.
#   pip_install.sh CMAKE BUILD_DIR BINDINGS_DIR PYTHON
set -eu
cmake=$1 build=$2 src=$3 py=$4

if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
    echo "SKIP: $py cannot create a venv with pip (install python3-venv)"
    exit 77
fi
# Offline: the build uses the interpreter's own setuptools and wheel.
if ! "$py" -c 'import setuptools, wheel' 2>/dev/null; then
    echo "SKIP: $py has no setuptools and wheel to build with (python3-setuptools, python3-wheel)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset PYTHONPATH

DESTDIR="$tmp/stage" "$cmake" --install "$build" >/dev/null
pc=$(find "$tmp/stage" -name offload.pc | head -n 1)
[ -n "$pc" ] || { echo "no offload.pc was installed"; exit 1; }
# The .pc file names the configured prefix; the sysroot maps it into the stage.
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/stage"
echo "pkg-config: $(pkg-config --cflags --libs offload)"

"$py" -m venv --system-site-packages "$tmp/venv"
# A copy, so that the build does not leave build/ and *.egg-info in the tree;
# no index and no build isolation: setuptools comes from the system.
cp -R "$src" "$tmp/src"
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
"$tmp/venv/bin/python" -m pip install --no-build-isolation --no-index --no-deps -q "$tmp/src"

cd "$tmp"
"$tmp/venv/bin/python" - "$tmp" <<'PY'
import hashlib, os, sys
import offload, offload._offload as ext

tmp = sys.argv[1]
for f in (offload.__file__, ext.__file__):
    assert f.startswith(os.path.join(tmp, "venv")), f"imported {f}, not the installed module"
pkg = os.path.dirname(offload.__file__)
for f in ("py.typed", "__init__.pyi"):
    assert os.path.exists(os.path.join(pkg, f)), f"{f} was not installed"
# The extension must load the staged liboffload, found through its rpath.
with open("/proc/self/maps") as m:
    libs = {l.split()[-1] for l in m if "liboffload.so" in l}
assert libs and all(l.startswith(os.path.join(tmp, "stage")) for l in libs), libs
with offload.Context(source=offload.DtSource.NONE, no_env=True) as ctx:
    src = os.urandom(65536)
    dst = bytearray(len(src))
    r = ctx.memcpy(dst, src)
    assert dst == src and r.backend == "cpu", r
    if any(d.usable and offload.Cap.HASH in d.caps for d in ctx.devices()):
        d = ctx.hash(offload.HashAlg.SHA256, b"abc").digest
        assert d == hashlib.sha256(b"abc").digest(), d.hex()
    else:  # no crypto backend (no OpenSSL, no AF_ALG): the library must say so
        try:
            ctx.hash(offload.HashAlg.SHA256, b"abc")
        except offload.NotSupported as e:
            print(f"hash not checked, no crypto backend: {e.strerror}")
        else:
            raise AssertionError("hash ran although no device lists Cap.HASH")
print(f"installed offload {offload.__version__} works: {ext.__file__}")
PY
