# SPDX-License-Identifier: MIT
"""Reference and memory leaks of the binding: each call, on its success and
error paths, repeated many times must not leave Python allocations behind
(sys.getallocatedblocks() after warm-up; a leak of one object per call shows
as hundreds of blocks). The library's own allocations are checked by the C
suites under ASan."""
import unittest

import offload
from support import assert_no_leak, crypto_missing, open_ctx

A, H, T = offload.CipherAlg, offload.HashAlg, offload.Transfer


class TestRefLeaks(unittest.TestCase):
    def assert_no_leak(self, fn):
        assert_no_leak(self, fn)

    def test_calls(self):
        ctx = open_ctx()
        src, dst, ro = bytes(256), bytearray(256), memoryview(b"x" * 256)
        q = offload.Queue(ctx, depth=4)
        key, iv = bytes(16), bytes(12)
        # Without a crypto backend the one-shot crypto calls still run (their
        # NotSupported path must not leak either); the sessions cannot open.
        no_crypto = crypto_missing()
        if no_crypto is None:
            hs = offload.HashSession(ctx, H.SHA256)
            cs = offload.CipherSession(ctx, A.AES_GCM, bytes(16))
            tag = ctx.cipher(A.AES_GCM, key, iv, src).tag
        else:
            tag = bytes(16)

        def queue_round():
            q.copy(dst, src, user_data=object())
            q.submit()
            q.wait(timeout=10)

        def hash_session_round():
            hs.update(src)
            hs.final()

        calls = {
            "devices": ctx.devices,
            "device as_dict": lambda: ctx.device("cpu").as_dict(),
            "backend_status": lambda: ctx.backend_status("kcapi"),
            "memcpy": lambda: ctx.memcpy(dst, src),
            "memcpy read-only dst": lambda: ctx.memcpy(ro, src),
            "memcpy length mismatch": lambda: ctx.memcpy(dst, src[:10]),
            "memcpy overlap": lambda: ctx.memcpy(memoryview(dst)[0:8], memoryview(dst)[4:12]),
            "memcpy not contiguous": lambda: ctx.memcpy(memoryview(dst)[::2], src[:128]),
            "memcpy bad dev": lambda: ctx.memcpy(dst, src, dev="nope"),
            "queue round": queue_round,
            "queue full": lambda: [q.copy(bytearray(1), b"x") for _ in range(5)],
            "queue drain": lambda: (q.submit(), q.poll()),
            "cipher gcm": lambda: ctx.cipher(A.AES_GCM, key, iv, src, aad=b"a"),
            "cipher tag mismatch": lambda: ctx.cipher(A.AES_GCM, key, iv, src, False, tag=bytes(16)),
            "cipher decrypt": lambda: ctx.cipher(A.AES_GCM, key, iv, src, False, tag=tag, out=dst),
            "cipher bad key": lambda: ctx.cipher(A.AES_CBC, bytes(15), bytes(16), src),
            "cipher session": lambda: cs.run(iv, src),
            "hash": lambda: ctx.hash(H.HMAC_SHA1, src, b"k"),
            "hash bad": lambda: ctx.hash(H.SHA1, src, b"k"),
            "hash session": hash_session_round,
            "open and close": lambda: offload.HashSession(ctx, H.MD5).close(),
            "spi open error": lambda: offload.Spi(ctx, "/dev/spidev-nonexistent.0"),
            "transfer": lambda: T(b"abc", speed_hz=1, cs_change=True),
            "transfer error": lambda: T(rx=bytearray(1), rx_len=1),
            "context error": lambda: offload.Context(b"\0" * 64, no_env=True),
        }
        sessions = {"cipher session", "hash session"}
        for name, fn in calls.items():
            with self.subTest(call=name):
                if no_crypto and name in sessions:
                    self.skipTest(no_crypto)
                self.assert_no_leak(fn)
        q.close()
        ctx.close()

    def test_context_lifecycle(self):
        with_session = crypto_missing() is None

        def cycle():
            with open_ctx() as ctx:
                q = offload.Queue(ctx, depth=2)
                q.copy(bytearray(4), b"abcd", user_data=[1, 2])
                if with_session:
                    offload.CipherSession(ctx, A.AES_ECB, bytes(16))
        self.assert_no_leak(cycle)


if __name__ == "__main__":
    unittest.main()
