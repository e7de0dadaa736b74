#!/bin/sh
# Session and one-shot overhead of the CPU crypto backend against OpenSSL EVP
# called directly in the same process as a plain OpenSSL program would
# (src/offloadctl/evp_ref.h; issue #19's targets: AES-128-GCM, AES-128-CBC
# and SHA-256 sessions >= 0.90x EVP at 16 B and >= 0.97x at 8 KiB, the
# one-shot offload_hash() >= 0.85x EVP_Digest() at 16 B), with `openssl speed
# -evp` beside it. The wall-clock ratios need a quiet machine: rounds in
# which other processes took 5 % of the CPUs or more are run again (up to
# --max-rounds) and every line says how many were kept;
# bench/crypto_callgrind.sh gives the instruction counts, which do not
# depend on the load.
#   bench/crypto_overhead.sh [OFFLOADCTL]     (default build/src/offloadctl/offloadctl)
set -eu
ctl=${1:-build/src/offloadctl/offloadctl}
echo "== offloadctl bench cipher --ab evp,cpu (sessions, same process, interleaved)"
"$ctl" --dtb none bench cipher --ab evp,cpu -a aes-128-gcm,aes-128-cbc,sha256 --sizes 16,8192 \
    --time 0.25 --rounds 11 --max-rounds 60 --quiet 5
echo
echo "== offloadctl bench cipher --ab evp,cpu --oneshot (offload_hash() vs EVP_Digest())"
"$ctl" --dtb none bench cipher --ab evp,cpu -a sha256 --sizes 16,8192 --oneshot \
    --time 0.25 --rounds 11 --max-rounds 60 --quiet 5
echo
echo "== openssl speed -evp (separate process, for scale)"
for a in aes-128-gcm aes-128-cbc sha256; do
    for n in 16 8192; do
        openssl speed -seconds 2 -bytes $n -evp $a 2>/dev/null | tail -1
    done
done
