# SPDX-License-Identifier: MIT
"""Helpers shared by the offload test suites."""
import gc
import os
import re
import sys
import threading
import unittest

import offload

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "..", "include", "offload"))

try:
    import numpy
except ImportError:  # python3-numpy is optional
    numpy = None

needs_numpy = unittest.skipIf(numpy is None, "numpy is not installed for this interpreter (python3-numpy)")


def open_ctx(**kw):
    """A context with no device tree and no environment influence (CPU and kernel backends)."""
    kw.setdefault("source", offload.DtSource.NONE)
    kw.setdefault("no_env", True)
    return offload.Context(**kw)


_CRYPTO_CAPS = offload.Cap.CIPHER | offload.Cap.HASH
_crypto_missing = {}


def crypto_missing(**kw):
    """Why a context opened as open_ctx(**kw) has no crypto backend, or None if it has one.

    Asked of the library, not of the build options: no usable device lists
    Cap.CIPHER and Cap.HASH, and a SHA-256 there is refused with
    NotSupported (ENOTSUP, the library's "no device implements it"); that
    message is the reason. A device that claims the capabilities makes the
    answer None, so a false claim fails the crypto tests instead of skipping
    them. (A build without OpenSSL on a kernel without AF_ALG has no backend.)
    """
    key = tuple(sorted(kw.items()))
    if key not in _crypto_missing:
        with open_ctx(**kw) as ctx:
            reason = None
            if not any(d.usable and (d.caps & _CRYPTO_CAPS) == _CRYPTO_CAPS for d in ctx.devices()):
                try:
                    ctx.hash(offload.HashAlg.SHA256, b"")
                except offload.NotSupported as e:
                    reason = f"no crypto backend: {e.strerror}"
        _crypto_missing[key] = reason
    return _crypto_missing[key]


def needs_crypto(**kw):
    """Decorator: skip the test (or every test of the class) when crypto_missing(**kw)."""
    def deco(obj):
        reason = crypto_missing(**kw)
        return unittest.skip(reason)(obj) if reason else obj
    return deco


def shared_dtb(name):
    """Path of a real board's .dtb in shared/dtb, or skip the test."""
    d = os.environ.get("OFFLOAD_TEST_SHARED_DTB") or os.path.join(HERE, "..", "..", "..", "..", "shared", "dtb")
    p = os.path.join(d, name)
    if not os.path.exists(p):
        raise unittest.SkipTest(f"{p} is not there (real boards' trees live in shared/dtb)")
    return p


def header_text(name):
    with open(os.path.join(INCLUDE, name), encoding="utf-8") as f:
        return f.read()


def header_defines(name, prefix):
    """#define PREFIXNAME value pairs (simple integer or OR-ed defines) from a public header."""
    out = {}
    text = header_text(name)
    for m in re.finditer(r"^#define (" + prefix + r"\w+)\s+(.+)$", text, re.M):
        out[m.group(1)] = m.group(2).strip()
    return out


def header_enum(name, enum_name):
    """Members of `enum enum_name { A = 1, ... }` in a public header, as {name: value}."""
    text = header_text(name)
    body = re.search(r"enum " + enum_name + r"\s*\{(.*?)\};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return {m.group(1): int(m.group(2), 0) for m in re.finditer(r"(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)", body)}


def gil_released_during(call, tries=50):
    """True if another Python thread ran while `call()` was inside the library.

    With a long switch interval the main thread keeps the GIL through plain
    Python code, so a helper thread that counts (and yields with sleep(0))
    can only advance while the main thread has released the GIL: that is,
    inside `call`. Repeated because the OS may not schedule the helper in a
    given window; a call that holds the GIL never lets it advance.
    """
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
            # sleep(0) gives the GIL back at once so the main thread is not held up.
            import time
            time.sleep(0)

    old = sys.getswitchinterval()
    t = threading.Thread(target=spin, daemon=True)
    t.start()
    try:
        sys.setswitchinterval(30.0)
        for _ in range(tries):
            before = count[0]
            call()
            if count[0] != before:
                return True
        return False
    finally:
        sys.setswitchinterval(old)
        stop.set()
        t.join()


def h(s):
    return bytes.fromhex(s.replace(" ", ""))


def _attempt(fn):
    try:
        fn()
    except (offload.Error, TypeError, BufferError, ValueError):
        pass


def assert_no_leak(test, fn, rounds=1000):
    """Fail `test` if `fn` (errors allowed) leaves Python allocations behind.

    sys.getallocatedblocks() after warm-up runs: a leak of one object per
    call shows as hundreds of blocks over `rounds` calls.
    """
    if sys.getallocatedblocks() == 0:
        test.skipTest("no block count with this allocator (PYTHONMALLOC=malloc, as under ASan)")
    for _ in range(50):  # warm caches (enum members, interned strings, method caches)
        _attempt(fn)
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(rounds):
        _attempt(fn)
    gc.collect()
    grown = sys.getallocatedblocks() - before
    # One object leaked per call is >= rounds blocks; allocator and cache noise is tens.
    test.assertLess(grown, rounds // 4, f"{grown} blocks left behind by {rounds} calls")
