#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""liboffload from Python: list the devices and the decisions made for them,
copy a buffer, and round-trip AES-GCM, printing which backend ran each step.

    python3 docs/example.py [board.dtb]

Without an argument the device tree is the default one ($OFFLOAD_DTB, the
running system's /sys/firmware/fdt, or the built-in virtual board).
"""
import os
import sys

import offload


def show(what: str, result: offload.Result) -> None:
    sim = " (sim)" if offload.ResFlag.SIM in result.flags else ""
    print(f"{what}: ran on device {result.dev} by backend {result.backend!r}, "
          f"driver {result.driver!r}{sim}")


def main() -> None:
    dtb = sys.argv[1] if len(sys.argv) > 1 else None
    with offload.Context(dtb) as ctx:
        print(f"liboffload {offload.version()}, device tree: {ctx.dt_source}")
        for d in ctx.devices():
            state = "usable" if d.usable else "not usable"
            print(f"  [{d.index}] {d.name} ({d.kind}): {state}, backend {d.backend or '-'}: {d.usable_reason}")
            if d.dt_path:
                print(f"      cache {d.cache_mode.name.lower()}: {d.cache_reason}")
                print(f"      burst {d.burst_bytes} B: {d.burst_reason}")
                print(f"      threshold {d.threshold_bytes} B: {d.threshold_reason}")

        # memcpy between any buffers (bytearray, mmap, numpy arrays, ...), zero-copy.
        src = os.urandom(1 << 20)
        dst = bytearray(len(src))
        show("memcpy 1 MiB", ctx.memcpy(dst, src))
        if dst != src:
            sys.exit("memcpy: data differs")

        # AES-128-GCM: encrypt with additional data, decrypt and verify the tag.
        key, iv, aad = os.urandom(16), os.urandom(12), b"header"
        msg = b"liboffload says hello from Python"
        try:
            enc = ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, msg, aad=aad)
        except offload.NotSupported as e:
            # No device implements it: a build without OpenSSL on a kernel without AF_ALG.
            print(f"AES-GCM skipped: [errno {e.errno}] {e.strerror}")
            return
        show("AES-GCM encrypt", enc.result)
        if enc.tag is None:
            sys.exit("AES-GCM: no tag")
        dec = ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, enc.data, encrypt=False, aad=aad, tag=enc.tag)
        show("AES-GCM decrypt", dec.result)
        if dec.data != msg:
            sys.exit("AES-GCM: round trip differs")
        bad = bytes([enc.tag[0] ^ 1]) + enc.tag[1:]
        try:
            ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, enc.data, encrypt=False, aad=aad, tag=bad)
        except offload.TagMismatch as e:
            print(f"forged tag refused: [errno {e.errno}] {e.strerror}")
        else:
            sys.exit("AES-GCM: a forged tag was accepted")
        print("AES-GCM round trip ok")


if __name__ == "__main__":
    main()
