#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the Python binding costs per call: each offload call beside the
nearest thing Python does natively with the same C code underneath
(memoryview slice assignment = memcpy, hashlib and the cryptography package =
OpenSSL), on the CPU backend. Every run checks the bytes it produced.

    PYTHONPATH=build/bindings/python/pkg python3 bench/python_overhead.py

Prints the median time per call of 11 rounds and offload's time relative to
the native one (1.00 = no overhead).
"""
import hashlib
import os
import statistics
import sys
import time

import offload

try:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
except ImportError:
    AESGCM = None


def per_call(fn, min_time=0.05, rounds=11):
    n = 1
    while True:  # calls per round so that a round lasts about min_time
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t >= min_time / 4:
            break
        n *= 4
    n = max(1, int(n * (min_time / 4) / max(time.perf_counter() - t, 1e-9)) * 4)
    samples = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n)
    return statistics.median(samples)


def row(what, ours, native, size):
    rate = f"{size / ours / 1e6:9.1f} MB/s" if size >= 4096 else ""
    print(f"{what:34s} {ours * 1e9:12.0f} ns {native * 1e9:12.0f} ns  {ours / native:5.2f}  {rate}")


def check(ok, what):
    if not ok:
        sys.exit(f"python_overhead: {what}: wrong data")


def main():
    ctx = offload.Context(source=offload.DtSource.NONE, no_env=True)
    print(f"liboffload {offload.version()}, Python {sys.version.split()[0]}, CPU backend")
    print(f"{'call':34s} {'offload':>15s} {'native':>15s}  ratio")
    for size in (64, 4096, 1 << 26):
        src = os.urandom(size)
        dst = bytearray(size)
        view = memoryview(dst)
        ours = per_call(lambda: ctx.memcpy(dst, src), min_time=0.2 if size > 1 << 20 else 0.05)
        check(dst == src, "memcpy")
        dst[:] = bytes(size)
        native = per_call(lambda: view.__setitem__(slice(None), src), min_time=0.2 if size > 1 << 20 else 0.05)
        check(dst == src, "slice copy")
        row(f"memcpy {size} B", ours, native, size)

    q = offload.Queue(ctx, depth=2)
    src, dst = os.urandom(4096), bytearray(4096)

    def job():
        q.copy(dst, src)
        q.submit()
        q.wait()
    ours = per_call(job)
    check(dst == src, "queue")
    view = memoryview(dst)
    row("queue copy+submit+wait 4096 B", ours, per_call(lambda: view.__setitem__(slice(None), src)), 4096)
    q.close()

    for size in (16, 8192, 1 << 20):
        data = os.urandom(size)
        ours = per_call(lambda: ctx.hash(offload.HashAlg.SHA256, data))
        check(ctx.hash(offload.HashAlg.SHA256, data).digest == hashlib.sha256(data).digest(), "sha256")
        row(f"hash SHA256 {size} B", ours, per_call(lambda: hashlib.sha256(data).digest()), size)

    if AESGCM is None:
        print("(AES-GCM rows need python3-cryptography)")
    else:
        key, iv = os.urandom(16), os.urandom(12)
        aes = AESGCM(key)
        for size in (16, 8192, 1 << 20):
            data = os.urandom(size)
            ours = per_call(lambda: ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, data))
            r = ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, data)
            check(r.data + r.tag == aes.encrypt(iv, data, None), "aes-gcm")
            row(f"cipher AES-128-GCM {size} B", ours, per_call(lambda: aes.encrypt(iv, data, None)), size)
    ctx.close()


if __name__ == "__main__":
    main()
