#!/bin/sh
# offloadctl enc/dec/dgst must be byte-identical to the openssl command line.
#   openssl_cli.sh OFFLOADCTL
set -eu
ctl=$1
command -v openssl >/dev/null 2>&1 || { echo "SKIP: openssl command not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# 0, 1 block, odd sizes for CTR, and more than 64 KiB
head -c 200000 /dev/urandom > "$t/r"
for n in 0 16 48 1024 70000 131072; do head -c $n "$t/r" > "$t/in$n"; done
head -c 37 "$t/r" > "$t/odd37"
fail=0
check() { # what file1 file2
    if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
K16=000102030405060708090a0b0c0d0e0f
K24=${K16}1011121314151617
K32=${K16}101112131415161718191a1b1c1d1e1f
IV16=f0e0d0c0b0a090807060504030201000
IV8=0011223344556677
legacy=""
openssl enc -des-ecb -nopad -K 0123456789abcdef -in "$t/in16" >/dev/null 2>&1 || legacy="-provider legacy -provider default"
for spec in "aes-128-ecb $K16 -" "aes-192-cbc $K24 $IV16" "aes-256-cbc $K32 $IV16" \
            "aes-128-ctr $K16 $IV16" "aes-256-ctr $K32 $IV16" "des-ecb 0123456789abcdef -" \
            "des-ede3-cbc $K24 $IV8"; do
    set -- $spec
    c=$1 k=$2 iv=$3
    ivo=""; [ "$iv" = - ] || ivo="-iv $iv"
    prov=""; [ "$c" = des-ecb ] && prov=$legacy
    for f in in0 in16 in48 in1024 in70000 in131072 odd37; do
        case "$c:$f" in *ctr*) ;; *:odd37) continue ;; esac
        # shellcheck disable=SC2086
        openssl enc -$c -nopad $prov -K $k $ivo -in "$t/$f" -out "$t/o.ssl"
        # shellcheck disable=SC2086
        "$ctl" --dtb none enc -c $c -K $k $ivo -in "$t/$f" -out "$t/o.ctl"
        check "enc $c $f" "$t/o.ssl" "$t/o.ctl"
        # shellcheck disable=SC2086
        "$ctl" --dtb none dec -c $c -K $k $ivo < "$t/o.ssl" > "$t/d.ctl"
        check "dec $c $f" "$t/$f" "$t/d.ctl"
    done
done
# a length that is not a whole block must fail, as with openssl -nopad
if "$ctl" --dtb none enc -c aes-128-cbc -K $K16 -iv $IV16 -in "$t/odd37" > /dev/null 2>&1; then
    echo "FAIL enc accepted a partial block"; fail=1
else
    echo "ok   partial block refused"
fi
for a in md5 sha1 sha224 sha256 sha384 sha512; do
    (cd "$t" && openssl dgst -$a in0 in1024 in131072 > d.ssl && "$ctl" --dtb none dgst -$a in0 in1024 in131072 > d.ctl)
    check "dgst -$a" "$t/d.ssl" "$t/d.ctl"
    (cd "$t" && openssl dgst -$a -hmac "secret key" in70000 > h.ssl && "$ctl" --dtb none dgst -$a -hmac "secret key" in70000 > h.ctl)
    check "dgst -$a -hmac (file)" "$t/h.ssl" "$t/h.ctl"
    openssl dgst -$a -hmac k < "$t/in48" > "$t/s.ssl"
    "$ctl" --dtb none dgst -$a -hmac k < "$t/in48" > "$t/s.ctl"
    check "dgst -$a -hmac (stdin)" "$t/s.ssl" "$t/s.ctl"
    (cd "$t" && openssl dgst -r -$a in1024 > r.ssl && "$ctl" --dtb none dgst -r -$a in1024 > r.ctl)
    check "dgst -r -$a" "$t/r.ssl" "$t/r.ctl"
done
# no algorithm: openssl's default is SHA-256, labelled "SHA256" (an explicit -sha256 says "SHA2-256")
(cd "$t" && openssl dgst in0 in1024 > d.ssl && "$ctl" --dtb none dgst in0 in1024 > d.ctl)
check "dgst (default)" "$t/d.ssl" "$t/d.ctl"
(cd "$t" && openssl dgst -hmac "secret key" in70000 > h.ssl && "$ctl" --dtb none dgst -hmac "secret key" in70000 > h.ctl)
check "dgst -hmac (default, file)" "$t/h.ssl" "$t/h.ctl"
openssl dgst < "$t/in48" > "$t/s.ssl"
"$ctl" --dtb none dgst < "$t/in48" > "$t/s.ctl"
check "dgst (default, stdin)" "$t/s.ssl" "$t/s.ctl"
# a lone leading "-" ends the options as "--" does: alone it means stdin
(cd "$t" && openssl dgst -sha1 - < in48 > m.ssl && "$ctl" --dtb none dgst -sha1 - < in48 > m.ctl)
check "dgst -sha1 -" "$t/m.ssl" "$t/m.ctl"
(cd "$t" && openssl dgst -r -hmac k - < in48 > m.ssl && "$ctl" --dtb none dgst -r -hmac k - < in48 > m.ctl)
check "dgst -r -hmac k -" "$t/m.ssl" "$t/m.ctl"
(cd "$t" && openssl dgst - in0 < in48 > m.ssl && "$ctl" --dtb none dgst - in0 < in48 > m.ctl)
check "dgst - FILE" "$t/m.ssl" "$t/m.ctl"
exit $fail
