#!/bin/sh
# Session overhead of the CPU crypto backend against OpenSSL EVP called
# directly in the same process (target: >= 95 % at 8 KiB, >= 80 % at 16 B for
# AES-128-GCM and SHA256), with `openssl speed -evp` beside it.
#   bench/crypto_overhead.sh [OFFLOADCTL]     (default build/src/offloadctl/offloadctl)
# Paired ABBA rounds of 20 ms; the table's change is cpu vs evp.
set -eu
ctl=${1:-build/src/offloadctl/offloadctl}
echo "== offloadctl bench cipher --ab evp,cpu (same process, interleaved)"
"$ctl" --dtb none bench cipher --ab evp,cpu -a aes-128-gcm,sha256 --sizes 16,8192 \
    --time 20ms --rounds 41
echo
echo "== openssl speed -evp (separate process, for scale)"
for a in aes-128-gcm sha256; do
    for n in 16 8192; do
        openssl speed -seconds 2 -bytes $n -evp $a 2>/dev/null | tail -1
    done
done
