# SPDX-License-Identifier: MIT
"""Ciphers, AEAD and hashes: standard known answers, independent cross-checks
(hashlib, hmac, and the `cryptography` package when present), sessions, bad input."""
import errno
import hashlib
import hmac
import os
import unittest

import offload
from support import gil_released_during, h, needs_crypto, numpy, needs_numpy, open_ctx

try:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
except ImportError:  # python3-cryptography is optional
    AESGCM = None

needs_cryptography = unittest.skipIf(AESGCM is None, "the cryptography package is not installed (python3-cryptography)")

A = offload.CipherAlg
H = offload.HashAlg

# NIST SP 800-38A, key and plaintext of F.1.1 / F.2.1 / F.5.1.
SP38A_KEY = h("2b7e151628aed2a6abf7158809cf4f3c")
SP38A_PT = h("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
             "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
SP38A_ECB = h("3ad77bb40d7a3660a89ecaf32466ef97 f5d3d58503b9699de785895a96fdbaaf"
              "43b1cd7f598ece23881b00e3ed030688 7b0c785e27e8ad3f8223207104725dd4")
SP38A_CBC_IV = h("000102030405060708090a0b0c0d0e0f")
SP38A_CBC = h("7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2"
              "73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7")
SP38A_CTR_IV = h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
SP38A_CTR = h("874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff"
              "5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee")

# The GCM specification's test cases 1-4 (McGrew & Viega), as used with SP 800-38D.
GCM_K3 = h("feffe9928665731c6d6a8f9467308308")
GCM_IV3 = h("cafebabefacedbaddecaf888")
GCM_P = h("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
          "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
GCM_C3 = h("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
           "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")
GCM_AAD4 = h("feedfacedeadbeeffeedfacedeadbeefabaddad2")
# NIST CAVP gcmEncryptExtIV128.rsp: (key, IV, PT, CT, tag) of Count 0 with IVlen 8 and 1024.
GCM_CAVP_IV = [
    (h("15b2d414826453f9e1c7dd0b69d8d1eb"), h("b6"), h("8cfa255530c6fbc19d51bd4aeb39c91b"),
     h("4822cb98bd5f5d921ee19285c9032375"), h("8a40670ebac98cf4e9cc1bf8f803167d")),
    (h("71eebc49c8fb773b2224eaff3ad68714"),
     h("07e961e67784011f72faafd95b0eb64089c8de15ad685ec57e63d56e679d3e20"
       "2b18b75fcbbec3185ffc41653bc2ac4ae6ae8be8c85636f353a9d19a86100d0b"
       "d035cc6bdefcab4318ac7b1a08b819427ad8f6abc782466c6ebd4d6a0dd76e78"
       "389b0a2a66506bb85f038ffc1da220c24f3817c7b2d02c5e8fc5e7e3be5074bc"),
     h("705da82292143d2c949dc4ba014f6396"), h("032363cf0828a03553478bec0f51f372"),
     h("c681b2c568feaa21900bc44b86aeb946")),
]
GCM_CASES = [
    # key, iv, aad, plaintext, ciphertext, tag
    (bytes(16), bytes(12), None, b"", b"", h("58e2fccefa7e3061367f1d57a4e7455a")),
    (bytes(16), bytes(12), None, bytes(16), h("0388dace60b6a392f328c2b971b2fe78"),
     h("ab6e47d42cec13bdf53a67b21257bddf")),
    (GCM_K3, GCM_IV3, None, GCM_P, GCM_C3, h("4d5c2af327cd64a62cf35abd2ba6fab4")),
    (GCM_K3, GCM_IV3, GCM_AAD4, GCM_P[:60], GCM_C3[:60], h("5bc94fbc3221a5db94fae95ae7121a47")),
]

# FIPS 81 appendix B/C: DES "Now is the time for all ".
DES_KEY = h("0123456789abcdef")
DES_PT = h("4e6f772069732074 68652074696d6520 666f7220616c6c20")
DES_ECB = h("3fa40e8a984d4815 6a271787ab8883f9 893d51ec4b563b53")
DES_CBC_IV = h("1234567890abcdef")
DES_CBC = h("e5c7cdde872bf27c 43e934008c389c0f 683788499a7c05f6")

HASH_ABC = {  # FIPS 180 examples and RFC 1321 A.5
    H.MD5: "900150983cd24fb0d6963f7d28e17f72",
    H.SHA1: "a9993e364706816aba3e25717850c26c9cd0d89d",
    H.SHA224: "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
    H.SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    H.SHA384: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
              "8086072ba1e7cc2358baeca134c825a7",
    H.SHA512: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
              "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
}
HMAC_KATS = [  # RFC 4231 cases 1-2, RFC 2202 case 1, RFC 2104
    (H.HMAC_SHA256, b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (H.HMAC_SHA256, b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (H.HMAC_SHA1, b"\x0b" * 20, b"Hi There", "b617318655057264e28bc0b6fb378c8ef146be00"),
    (H.HMAC_MD5, b"\x0b" * 16, b"Hi There", "9294727a3638bb1c13f48ef8158bfc9d"),
]
HASHLIB_NAME = {H.MD5: "md5", H.SHA1: "sha1", H.SHA224: "sha224", H.SHA256: "sha256",
                H.SHA384: "sha384", H.SHA512: "sha512"}


@needs_crypto(backends="cpu")  # every class below: they check the cpu backend's OpenSSL
class CryptoCase(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx(backends="cpu")

    def tearDown(self):
        self.ctx.close()

    def assert_cpu(self, res):
        self.assertIsInstance(res, offload.Result)
        self.assertEqual(res.backend, "cpu")
        self.assertTrue(res.driver.startswith("openssl"), res.driver)
        self.assertEqual(res.dev, self.ctx.find("cpu"))
        self.assertEqual(res.flags, offload.ResFlag.CPU)


class TestCipher(CryptoCase):
    def roundtrip(self, alg, key, iv, pt, ct):
        r = self.ctx.cipher(alg, key, iv, pt)
        self.assertIsInstance(r, offload.CipherResult)
        self.assertEqual(r.data, ct)
        self.assertIsNone(r.tag)
        self.assert_cpu(r.result)
        self.assertEqual(self.ctx.cipher(alg, key, iv, ct, encrypt=False).data, pt)
        self.assertEqual(self.ctx.cipher(alg, key, iv, ct, False).data, pt)

    def test_sp800_38a(self):
        self.roundtrip(A.AES_ECB, SP38A_KEY, None, SP38A_PT, SP38A_ECB)
        self.roundtrip(A.AES_CBC, SP38A_KEY, SP38A_CBC_IV, SP38A_PT, SP38A_CBC)
        self.roundtrip(A.AES_CTR, SP38A_KEY, SP38A_CTR_IV, SP38A_PT, SP38A_CTR)
        # CTR takes any length.
        self.roundtrip(A.AES_CTR, SP38A_KEY, SP38A_CTR_IV, SP38A_PT[:21], SP38A_CTR[:21])

    def test_des(self):
        self.roundtrip(A.DES_ECB, DES_KEY, None, DES_PT, DES_ECB)
        # EDE with K1 = K2 = K3 is single DES, so FIPS 81's CBC example holds for 3DES-CBC.
        self.roundtrip(A.DES3_CBC, DES_KEY * 3, DES_CBC_IV, DES_PT, DES_CBC)

    def test_gcm_cases(self):
        for k, (key, iv, aad, pt, ct, tag) in enumerate(GCM_CASES, 1):
            with self.subTest(case=k):
                r = self.ctx.cipher(A.AES_GCM, key, iv, pt, aad=aad)
                self.assertEqual((r.data, r.tag), (ct, tag))
                self.assert_cpu(r.result)
                d = self.ctx.cipher(A.AES_GCM, key, iv, ct, encrypt=False, aad=aad, tag=tag)
                self.assertEqual(d.data, pt)
                self.assertIsNone(d.tag)
                # Truncated tags are the leading bytes (SP 800-38D 5.2.1.2).
                for n in (4, 8, 12, 13, 14, 15):
                    r = self.ctx.cipher(A.AES_GCM, key, iv, pt, aad=aad, tag_len=n)
                    self.assertEqual(r.tag, tag[:n])
                    self.assertEqual(self.ctx.cipher(A.AES_GCM, key, iv, ct, False, aad, tag[:n], n).data, pt)

    def test_gcm_truncated_tag_needs_tag_len(self):
        # Whoever supplies the tag must not pick its length: without tag_len a
        # decrypt takes only a full 16-byte tag (as pyca/cryptography's GCM does).
        key, iv, aad, pt, ct, tag = GCM_CASES[3]
        with offload.CipherSession(self.ctx, A.AES_GCM, key) as s:
            runs = {
                "cipher": lambda t, **kw: self.ctx.cipher(A.AES_GCM, key, iv, ct, encrypt=False, aad=aad,
                                                          tag=t, **kw),
                "session": lambda t, **kw: s.run(iv, ct, encrypt=False, aad=aad, tag=t, **kw),
            }
            for name, run in runs.items():
                for n in (4, 8, 12, 15):
                    with self.subTest(name, n=n):
                        with self.assertRaises(ValueError) as cm:
                            run(tag[:n])
                        self.assertIn("tag_len", str(cm.exception))
                        self.assertEqual(run(tag[:n], tag_len=n).data, pt)
                with self.subTest(name, n=17):
                    with self.assertRaises(ValueError):
                        run(tag + b"x")
                with self.subTest(name, n=16):
                    self.assertEqual(run(tag).data, pt)
                    self.assertEqual(run(tag, tag_len=16).data, pt)

    def test_out_of_range_algorithm_is_named(self):
        # A value that does not fit in the C enum must not reach the library as another one.
        for v in ((1 << 32) + 4, (1 << 64) + 4, 1 << 70, -(1 << 40)):
            calls = {
                "cipher": lambda: self.ctx.cipher(v, bytes(16), bytes(12), b"x"),
                "hash": lambda: self.ctx.hash(v, b"x"),
                "CipherSession": lambda: offload.CipherSession(self.ctx, v, bytes(16)),
                "HashSession": lambda: offload.HashSession(self.ctx, v),
            }
            for what, call in calls.items():
                with self.subTest(what, v=v):
                    with self.assertRaises((OverflowError, ValueError)) as cm:
                        call()
                    self.assertIn(str(v), str(cm.exception))

    def test_encrypt_takes_only_bool(self):
        # encrypt='no' is truthy: it must not encrypt, it must be refused.
        with offload.CipherSession(self.ctx, A.AES_CBC, SP38A_KEY) as s:
            for v in ("no", "", 0, 1, None):
                with self.subTest(v=v):
                    with self.assertRaises(TypeError) as cm:
                        self.ctx.cipher(A.AES_CBC, SP38A_KEY, SP38A_CBC_IV, SP38A_PT, encrypt=v)
                    self.assertIn("encrypt", str(cm.exception))
                    with self.assertRaises(TypeError) as cm:
                        s.run(SP38A_CBC_IV, SP38A_PT, v)
                    self.assertIn("encrypt", str(cm.exception))

    def test_gcm_any_iv_length(self):
        # NIST CAVP gcmEncryptExtIV128.rsp, [Keylen = 128] [PTlen = 128] [AADlen = 0]
        # [Taglen = 128] Count = 0 of [IVlen = 8] and of [IVlen = 1024] (SP 800-38D 7.1:
        # such IVs are hashed into the counter block; only the CPU does it).
        for key, iv, pt, ct, tag in GCM_CAVP_IV:
            with self.subTest(iv_len=len(iv)):
                r = self.ctx.cipher(A.AES_GCM, key, iv, pt)
                self.assertEqual((r.data, r.tag), (ct, tag))
                self.assert_cpu(r.result)
                self.assertEqual(self.ctx.cipher(A.AES_GCM, key, iv, ct, False, tag=tag).data, pt)
                with offload.CipherSession(self.ctx, A.AES_GCM, key) as s:
                    self.assertEqual(s.run(iv, pt).data, ct)
                    self.assertEqual(s.run(GCM_IV3, pt).data,
                                     self.ctx.cipher(A.AES_GCM, key, GCM_IV3, pt).data)
                    self.assertEqual(s.run(iv, ct, False, tag=tag).data, pt)
        # OpenSSL takes 1024 bits at most: a longer IV is refused, not truncated
        with self.assertRaises(offload.NotSupported) as cm:
            self.ctx.cipher(A.AES_GCM, bytes(16), bytes(129), b"x")
        self.assertEqual(cm.exception.errno, errno.ENOTSUP)
        self.assertIn("128 bytes", cm.exception.strerror)

    @needs_cryptography
    def test_gcm_iv_lengths_against_cryptography(self):
        key, pt, aad = bytes(range(16)), bytes(range(50)), b"hdr"
        for n in (8, 13, 16, 64, 127, 128):  # the lengths pyca/cryptography takes
            with self.subTest(iv_len=n):
                iv = bytes((7 * i + n) & 0xFF for i in range(n))
                want = AESGCM(key).encrypt(iv, pt, aad)
                r = self.ctx.cipher(A.AES_GCM, key, iv, pt, aad=aad)
                self.assertEqual(r.data + r.tag, want)

    def test_tag_mismatch(self):
        key, iv, aad, pt, ct, tag = GCM_CASES[3]
        bad = bytes([tag[0] ^ 1]) + tag[1:]
        out = bytearray(b"\xaa" * len(ct))
        with self.assertRaises(offload.TagMismatch) as cm:
            self.ctx.cipher(A.AES_GCM, key, iv, ct, encrypt=False, aad=aad, tag=bad, out=out)
        self.assertEqual(cm.exception.errno, errno.EBADMSG)
        self.assertEqual(out, bytes(len(ct)))  # no plaintext released: zeroed
        with self.assertRaises(offload.TagMismatch):
            self.ctx.cipher(A.AES_GCM, key, iv, ct, encrypt=False, aad=aad[:-1], tag=tag)
        with self.assertRaises(offload.TagMismatch):
            self.ctx.cipher(A.AES_GCM, key, iv, ct[:-1] + bytes([ct[-1] ^ 0x80]), encrypt=False,
                            aad=aad, tag=tag)

    def test_out_and_in_place(self):
        out = bytearray(64)
        r = self.ctx.cipher(A.AES_CBC, SP38A_KEY, SP38A_CBC_IV, SP38A_PT, out=out)
        self.assertIs(r.data, out)
        self.assertEqual(out, SP38A_CBC)
        buf = bytearray(SP38A_CBC)
        r = self.ctx.cipher(A.AES_CBC, SP38A_KEY, SP38A_CBC_IV, buf, encrypt=False, out=buf)
        self.assertIs(r.data, buf)
        self.assertEqual(buf, SP38A_PT)
        # Partial overlap is refused.
        buf = bytearray(80)
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.cipher(A.AES_CTR, SP38A_KEY, SP38A_CTR_IV, memoryview(buf)[0:64],
                            out=memoryview(buf)[16:80])

    def test_bad_input(self):
        cases = {
            "AES key of 15 bytes": lambda: self.ctx.cipher(A.AES_CBC, bytes(15), bytes(16), bytes(16)),
            "DES key of 16 bytes": lambda: self.ctx.cipher(A.DES_ECB, bytes(16), None, bytes(8)),
            "CBC IV of 12 bytes": lambda: self.ctx.cipher(A.AES_CBC, bytes(16), bytes(12), bytes(16)),
            "CBC without IV": lambda: self.ctx.cipher(A.AES_CBC, bytes(16), None, bytes(16)),
            "CBC length 15": lambda: self.ctx.cipher(A.AES_CBC, bytes(16), bytes(16), bytes(15)),
            "DES length 12": lambda: self.ctx.cipher(A.DES_ECB, bytes(8), None, bytes(12)),
            "AAD with CBC": lambda: self.ctx.cipher(A.AES_CBC, bytes(16), bytes(16), bytes(16), aad=b"x"),
            "tag_len with CBC": lambda: self.ctx.cipher(A.AES_CBC, bytes(16), bytes(16), bytes(16), tag_len=16),
            "GCM tag of 5": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", tag_len=5),
            "GCM tag of 17": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", tag_len=17),
            "GCM decrypt without tag": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", False),
            "tag_len when decrypting": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", False,
                                                              tag_len=16),
            "tag and tag_len differ": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", False,
                                                             tag=bytes(16), tag_len=12),
            "tag given to encrypt": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), bytes(12), b"x", tag=bytes(16)),
            "GCM IV of 0 bytes": lambda: self.ctx.cipher(A.AES_GCM, bytes(16), b"", b"x"),
            "unknown algorithm": lambda: self.ctx.cipher(99, bytes(16), bytes(16), bytes(16)),
            "huge algorithm": lambda: self.ctx.cipher(1 << 70, bytes(16), bytes(16), bytes(16)),
            "out of the wrong size": lambda: self.ctx.cipher(A.AES_ECB, bytes(16), None, bytes(16),
                                                            out=bytearray(32)),
        }
        for what, call in cases.items():
            with self.subTest(what):
                with self.assertRaises(offload.InvalidArgument) as cm:
                    call()
                self.assertEqual(cm.exception.errno, errno.EINVAL)
                self.assertTrue(cm.exception.strerror)
        with self.assertRaises(TypeError):
            self.ctx.cipher("aes", bytes(16), None, bytes(16))
        with self.assertRaises(TypeError):
            self.ctx.cipher(A.AES_ECB, "key", None, bytes(16))
        with self.assertRaises(TypeError):
            self.ctx.cipher(A.AES_ECB, bytes(16), None, bytes(16), out=bytes(16))  # read-only out
        with self.assertRaises(BufferError):
            self.ctx.cipher(A.AES_ECB, bytes(16), None, memoryview(bytes(32))[::2])

    def test_empty_input(self):
        # ECB/CBC/CTR of nothing: nothing (crypto.h); GCM of nothing still has a tag (case 1).
        self.assertEqual(self.ctx.cipher(A.AES_CBC, SP38A_KEY, SP38A_CBC_IV, b"").data, b"")
        self.assertEqual(self.ctx.cipher(A.AES_CTR, SP38A_KEY, SP38A_CTR_IV, bytearray()).data, b"")

    @needs_cryptography
    def test_against_cryptography(self):
        for key_len in (16, 24, 32):
            for n in (0, 1, 15, 16, 17, 1000, 4096 + 3):
                with self.subTest(key_len=key_len, n=n):
                    key, iv, aad, pt = os.urandom(key_len), os.urandom(12), os.urandom(n % 41), os.urandom(n)
                    want = AESGCM(key).encrypt(iv, pt, aad or None)
                    r = self.ctx.cipher(A.AES_GCM, key, iv, pt, aad=aad or None)
                    self.assertEqual(r.data + r.tag, want)
                    civ = os.urandom(16)
                    enc = Cipher(algorithms.AES(key), modes.CTR(civ)).encryptor()
                    self.assertEqual(self.ctx.cipher(A.AES_CTR, key, civ, pt).data,
                                     enc.update(pt) + enc.finalize())
                    blocks = pt[: len(pt) // 16 * 16]
                    enc = Cipher(algorithms.AES(key), modes.CBC(civ)).encryptor()
                    self.assertEqual(self.ctx.cipher(A.AES_CBC, key, civ, blocks).data,
                                     enc.update(blocks) + enc.finalize())

    @needs_numpy
    def test_numpy_in_place(self):
        a = numpy.frombuffer(bytearray(SP38A_PT), dtype=numpy.uint32)
        self.ctx.cipher(A.AES_ECB, SP38A_KEY, None, a, out=a)
        self.assertEqual(a.tobytes(), SP38A_ECB)

    def test_gil_released(self):
        data = bytes(4 << 20)
        self.assertTrue(gil_released_during(lambda: self.ctx.cipher(A.AES_CTR, SP38A_KEY, SP38A_CTR_IV, data)))


class TestCipherSession(CryptoCase):
    def test_known_answers(self):
        with offload.CipherSession(self.ctx, A.AES_CBC, SP38A_KEY) as s:
            self.assertEqual(s.alg, A.AES_CBC)
            self.assertIs(s.context, self.ctx)
            for _ in range(3):
                r = s.run(SP38A_CBC_IV, SP38A_PT)
                self.assertEqual(r.data, SP38A_CBC)
                self.assert_cpu(r.result)
                self.assertEqual(s.run(SP38A_CBC_IV, SP38A_CBC, encrypt=False).data, SP38A_PT)
        self.assertTrue(s.closed)
        key, iv, aad, pt, ct, tag = GCM_CASES[3]
        s = offload.CipherSession(self.ctx, A.AES_GCM, bytearray(key), dev="cpu")
        r = s.run(iv, pt, aad=aad)
        self.assertEqual((r.data, r.tag), (ct, tag))
        self.assertEqual(s.run(iv, ct, False, aad, tag).data, pt)
        with self.assertRaises(offload.TagMismatch):
            s.run(iv, ct, False, aad, bytes(16))
        s.close()
        s.close()
        with self.assertRaises(offload.Closed):
            s.run(iv, pt)
        with self.assertRaises(offload.Closed):
            s.__enter__()

    def test_open_errors(self):
        with self.assertRaises(offload.InvalidArgument):
            offload.CipherSession(self.ctx, A.AES_CBC, bytes(17))
        with self.assertRaises(offload.InvalidArgument):
            offload.CipherSession(self.ctx, 42, bytes(16))
        with self.assertRaises(offload.NoDevice):
            offload.CipherSession(self.ctx, A.AES_CBC, bytes(16), dev=self.ctx.device_count)
        with self.assertRaises(TypeError):
            offload.CipherSession(self.ctx, A.AES_CBC, None)
        s = offload.CipherSession(self.ctx, A.AES_CBC, bytes(16))
        with self.assertRaises(offload.Busy):
            s.__init__(self.ctx, A.AES_CBC, bytes(16))
        with self.assertRaises(offload.InvalidArgument):
            s.run(bytes(16), bytes(15))
        s.close()


class TestHash(CryptoCase):
    def test_known_answers(self):
        for alg, want in HASH_ABC.items():
            with self.subTest(alg=alg.name):
                r = self.ctx.hash(alg, b"abc")
                self.assertIsInstance(r, offload.HashResult)
                self.assertEqual(r.digest.hex(), want)
                self.assert_cpu(r.result)
        self.assertEqual(self.ctx.hash(H.SHA256, b"").digest.hex(),
                         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        self.assertEqual(self.ctx.hash(H.MD5, b"message digest").digest.hex(),
                         "f96b697d7cb7938d525a2f31aaf161d0")
        self.assertEqual(self.ctx.hash(H.SHA256, b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").digest.hex(),
                         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        for alg, key, data, want in HMAC_KATS:
            with self.subTest(alg=alg.name, key=key):
                self.assertEqual(self.ctx.hash(alg, data, key=key).digest.hex(), want)

    def test_against_hashlib(self):
        for n in (0, 1, 55, 56, 64, 1000, 65536 + 7):
            data = os.urandom(n)
            for alg, name in HASHLIB_NAME.items():
                with self.subTest(alg=alg.name, n=n):
                    self.assertEqual(self.ctx.hash(alg, data).digest, hashlib.new(name, data).digest())
                    key = os.urandom(n % 150)  # including keys longer than the block
                    self.assertEqual(self.ctx.hash(H(alg | 0x100), data, key).digest,
                                     hmac.new(key, data, name).digest())

    def test_bad_input(self):
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.hash(H.SHA256, b"abc", key=b"k")  # key for a plain hash
        with self.assertRaises(offload.InvalidArgument) as cm:
            self.ctx.hash(H.HMAC_SHA256, b"abc")  # HMAC without a key: b"" says empty
        self.assertIn("needs a key", str(cm.exception))
        self.assertEqual(self.ctx.hash(H.HMAC_SHA256, b"abc", b"").digest,
                         hmac.new(b"", b"abc", "sha256").digest())
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.hash(0x107, b"abc")
        with self.assertRaises(TypeError):
            self.ctx.hash(H.SHA256, "abc")
        with self.assertRaises(TypeError):
            self.ctx.hash(None, b"abc")

    def test_gil_released(self):
        data = bytes(4 << 20)
        self.assertTrue(gil_released_during(lambda: self.ctx.hash(H.SHA256, data)))


class TestHashSession(CryptoCase):
    def test_million_a(self):
        with offload.HashSession(self.ctx, H.SHA256) as s:
            self.assertEqual(s.alg, H.SHA256)
            self.assertEqual(s.digest_size, 32)
            chunk = b"a" * 1000
            for _ in range(1000):
                s.update(chunk)
            r = s.final()
            # FIPS 180-2: one million 'a'.
            self.assertEqual(r.digest.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
            self.assert_cpu(r.result)
            # final() resets the session for a new message.
            s.update(b"ab")
            s.update(memoryview(b"c"))
            self.assertEqual(s.final().digest.hex(), HASH_ABC[H.SHA256])
            self.assertEqual(s.final().digest, hashlib.sha256(b"").digest())
        self.assertTrue(s.closed)

    def test_hmac_session(self):
        alg, key, data, want = HMAC_KATS[1]
        s = offload.HashSession(self.ctx, alg, key, dev="cpu")
        for b in data.split(b" "):
            s.update(b)
            s.update(b" ")
        s.final()  # "... " with a trailing space is another message; start over
        s.update(data)
        self.assertEqual(s.final().digest.hex(), want)
        self.assertEqual(s.digest_size, 32)
        s.close()

    def test_errors(self):
        with self.assertRaises(offload.InvalidArgument):
            offload.HashSession(self.ctx, 3000)
        with self.assertRaises(offload.InvalidArgument):
            offload.HashSession(self.ctx, H.SHA1, b"key")
        with self.assertRaises(offload.InvalidArgument):
            offload.HashSession(self.ctx, H.HMAC_SHA1)
        with self.assertRaises(offload.NoDevice):
            offload.HashSession(self.ctx, H.SHA1, dev=self.ctx.device_count)
        s = offload.HashSession(self.ctx, H.MD5)
        with self.assertRaises(TypeError):
            s.update("text")
        with self.assertRaises(BufferError):
            s.update(memoryview(b"abcdef")[::2])
        s.update(b"abc")
        self.assertEqual(s.final().digest.hex(), HASH_ABC[H.MD5])  # the refused updates added nothing
        s.close()
        for call in (lambda: s.update(b"x"), s.final, s.__enter__):
            with self.assertRaises(offload.Closed):
                call()

    def test_gil_released(self):
        data = bytes(4 << 20)
        with offload.HashSession(self.ctx, H.SHA512) as s:
            self.assertTrue(gil_released_during(lambda: s.update(data)))

    def test_one_thread_at_a_time(self):
        # A second thread's call while the first is inside update() (GIL
        # released) is refused with Busy instead of racing in the library.
        # The second thread adds nothing (empty updates), so the digest is
        # known whatever the interleaving.
        import threading
        s = offload.HashSession(self.ctx, H.SHA256)
        big = os.urandom(4 << 20)
        errors = []

        def work():
            try:
                for _ in range(8):
                    s.update(big)
            except Exception as e:  # reported below
                errors.append(repr(e))
        t = threading.Thread(target=work)
        t.start()
        while t.is_alive():
            try:
                s.update(b"")
            except offload.Busy as e:
                self.assertEqual(e.errno, errno.EBUSY)
        t.join()
        self.assertEqual(errors, [])
        self.assertEqual(s.final().digest, hashlib.sha256(big * 8).digest())
        s.close()


if __name__ == "__main__":
    unittest.main()
