#!/usr/bin/env python3
# Recompute every known-answer vector with independent implementations
# (Python's hashlib/hmac and the 'cryptography' package) so that a typo in
# src/offloadctl/kat_vectors.c cannot pass unnoticed.
#   check_vectors.py KAT_DUMP
import hashlib, hmac, subprocess, sys

try:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
    except ImportError:
        TripleDES = algorithms.TripleDES
except ImportError:
    print("SKIP: python3-cryptography not installed")
    sys.exit(77)

def h(x):
    return b"" if x == "-" else bytes.fromhex(x)

bad = 0
lines = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout.splitlines()
for line in lines:
    f = line.split("\t")
    if f[0] == "cipher":
        name, key, iv, aad, pt, ct, tag = f[1], h(f[2]), h(f[3]), h(f[4]), h(f[5]), h(f[6]), h(f[7])
        mode = name.rsplit("-", 1)[1]
        if name.startswith("AES") and mode == "GCM":
            out = AESGCM(key).encrypt(iv, pt, aad or None)
            got, gtag = out[:len(pt)], out[len(pt):][:len(tag)]
        else:
            if name == "DES-ECB":
                alg, m = TripleDES(key * 3), modes.ECB()
            elif name == "DES-EDE3-CBC":
                alg, m = TripleDES(key), modes.CBC(iv)
            else:
                alg = algorithms.AES(key)
                m = {"ECB": modes.ECB(), "CBC": modes.CBC(iv) if iv else None,
                     "CTR": modes.CTR(iv) if iv else None}[mode]
            e = Cipher(alg, m).encryptor()
            got, gtag = e.update(pt) + e.finalize(), b""
        ok = got == ct and gtag == tag
    else:
        name, key, msg, rep, dig = f[1], f[2], h(f[3]) * int(f[4]), f[4], h(f[5])
        base = name.replace("HMAC-", "").lower()
        got = (hmac.new(h(key), msg, base).digest() if name.startswith("HMAC")
               else hashlib.new(base, msg).digest())
        ok = got == dig
    print(("ok  " if ok else "BAD ") + line[:100])
    bad += not ok
print(f"{len(lines)} vectors, {bad} wrong")
sys.exit(1 if bad else 0)
