#!/bin/sh
# offloadctl's exit-status rule (offloadctl(1) EXIT STATUS), command by command:
#   0 success; 1 the operation failed (or found a mismatch or a warning);
#   2 usage error: an unknown option or command, a malformed option value, an
#     operand the command does not take -- found before anything is opened.
# Every non-zero exit must come with a message on stderr. Also: enc/dec never
# destroy an existing -out file on failure; messages do not repeat the errno
# text; a directory as input says so; --version; list --csv; dgst's default label.
#   test_exit_codes.sh OFFLOADCTL
set -u
ctl=$1
. "$(dirname "$0")/harness.sh"

# expect STATUS ARGS...: run offloadctl, keep stdout/stderr in $tmp/out, $tmp/err
expect() {
    want=$1; shift
    "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        bad "offloadctl $* exited $got, expected $want"; sed 's/^/  /' "$tmp/err" | head -3
    elif [ "$want" -ne 0 ] && [ ! -s "$tmp/err" ]; then
        bad "offloadctl $* exited $got without a message on stderr"
    else
        ok
    fi
}
# has FILE PATTERN WHAT: FILE contains the extended regex PATTERN
has() { if grep -Eq -- "$2" "$1"; then ok; else bad "$3: no /$2/ in: $(head -c 300 "$1")"; fi; }
hasnt() { if grep -Eq -- "$2" "$1"; then bad "$3: /$2/ in: $(head -c 300 "$1")"; else ok; fi; }

K16=000102030405060708090a0b0c0d0e0f
IV16=f0e0d0c0b0a090807060504030201000
long=$(printf '%0300d' 0 | tr 0 x)
mkdir "$tmp/dir"
printf 'abc' > "$tmp/abc"
echo "not a device tree" > "$tmp/bad.dtb"

# ---- usage errors (2), before anything is opened
expect 2
expect 2 nosuchcommand
expect 2 --bogus list
expect 2 bench
expect 2 bench nosuchbench
expect 2 version extra
expect 2 list extra
expect 2 doctor extra
expect 2 selftest extra
expect 2 dmatest extra
expect 2 bench cipher extra
expect 2 bench memcpy extra
expect 2 --backends "$long" list
has "$tmp/err" "at most 255" "over-long --backends"
expect 2 --backends foo list
has "$tmp/err" "unknown backend 'foo'" "unknown backend"
expect 2 --dtb none bench memcpy --backend ""
expect 2 list --backends cpu,nope
expect 2 --dtb none list --csv --json
expect 2 --dtb none doctor --csv
expect 2 --dtb none selftest --csv
expect 2 --dtb none dgst --json "$tmp/abc"
expect 2 enc -c aes-128-cbc -K 00 -iv $IV16
has "$tmp/err" "needs 16 bytes" "short -K"
expect 2 enc -c aes-128-cbc -K 0 -iv $IV16
expect 2 enc -c aes-128-cbc -K $K16
has "$tmp/err" "needs -iv" "CBC without -iv"
expect 2 enc -c aes-128-cbc -K $K16 -iv 00
expect 2 enc -K $K16
has "$tmp/err" "need -c CIPHER" "enc without -c"
expect 2 enc -c aes-128-gcm -K $K16
has "$tmp/err" "GCM is not offered by enc/dec" "enc -c aes-128-gcm"
expect 2 dec -c nosuch -K $K16
has "$tmp/err" "unknown cipher 'nosuch'" "unknown cipher"
expect 2 enc -c aes-128-ecb -K $K16 extra
expect 2 --dtb none enc --csv -c aes-128-ecb -K $K16
for v in 0 -1 65 x ""; do expect 2 --dtb none bench cipher --rounds "$v"; done
for v in 1,,2 ,1 1, x 0 67108865; do expect 2 --dtb none bench cipher --sizes "$v"; done
# every size below the cipher's block: nothing measured is not a success
expect 2 --dtb none bench cipher -a aes-128-cbc --sizes 15
has "$tmp/err" "nothing was measured: every size of --sizes is smaller than the block" "--sizes below the block"
for v in "" aes-128-cbc, nosuch; do expect 2 --dtb none bench cipher -a "$v"; done
for v in , evp, ,evp; do expect 2 --dtb none bench cipher --ab "$v"; done
for v in sim=2 noncoherent=x "" backends=foo device= nokey=1; do
    expect 2 --dtb none bench cipher --config "$v"; done
for v in 0 x -1 1h; do expect 2 --dtb none bench cipher --time "$v"; done
for v in 0 x 1h; do expect 2 --dtb none bench memcpy --time "$v"; done
# malformed SPI input is found before the (absent) device is opened
expect 2 --dtb none bench spi -D /nonexistent/spidev9.9 -p '\x'
has "$tmp/err" "malformed input string" "bench spi -p '\\x'"
hasnt "$tmp/err" "cannot open" "bench spi -p '\\x'"
# numbers are digits: strtoull alone would take a blank or a sign in front
expect 2 --dtb none bench memcpy --size " 5" --iterations 1
expect 2 --dtb none bench memcpy --size +3 --iterations 1
expect 2 --dtb none bench memcpy --size 64 --iterations " 1"
expect 2 --dtb none bench cipher --rounds +2
expect 2 --dtb none bench spi -D /nonexistent/spidev9.9 -S " 4"
# a directory as bench spi's input file says so; --iter 0 says why nothing was verified
lb=/bus@100000/spi@2100000/loopback@0
expect 1 --dtb builtin bench spi --device $lb -i /
has "$tmp/err" "failed to read input file /: Is a directory" "bench spi -i /"
expect 0 --dtb builtin bench spi --device $lb -S 4 -I 0
has "$tmp/out" "data not verified \\(nothing was transferred: --iter 0\\)" "bench spi -I 0"

# ---- operation failures (1)
expect 1 --dtb /nonexistent.dtb list
n=$(grep -o "No such file or directory" "$tmp/err" | wc -l)
[ "$n" -eq 1 ] && ok || bad "errno text repeated $n times: $(cat "$tmp/err")"
expect 1 --dtb "$tmp/bad.dtb" list
expect 1 --dtb none dgst "$tmp/nonexistent"
expect 1 --dtb none bench memcpy --dev 99 --size 4K --iterations 1
if "$ctl" --dtb builtin list >/dev/null 2>&1; then # the virtual board (OFFLOAD_WITH_SIM)
    expect 1 --dtb builtin bench memcpy --dev crypto@4000000 --size 4K --iterations 1
    has "$tmp/err" "crypto@4000000.*(cannot copy memory|is not usable)" "bench memcpy on a crypto engine"
    hasnt "$tmp/out" "device  \(backend" "bench memcpy on a crypto engine"
    expect 1 --dtb builtin bench memcpy --dev crypto@4000000 --max 4K --time 0.01
    hasnt "$tmp/out" "summary" "bench memcpy sweep on a crypto engine"
fi
# spidev_test's default device, tried when no --device is given, says how to name another
if [ ! -e /dev/spidev1.1 ]; then
    expect 1 --dtb none bench spi
    has "$tmp/err" "cannot open /dev/spidev1.1 \(spidev_test's default device: name yours with --device" \
        "bench spi without --device"
fi
expect 1 dmatest --sysfs-root "$tmp/dir" --json
has "$tmp/out" '^\{"command": "dmatest", .*"status": "module absent", "error": "' "dmatest --json"

# ---- success (0) and output shapes
expect 0 --version
has "$tmp/out" "^offloadctl [0-9]" "--version"
expect 0 -V
expect 0 version
expect 0 --dtb none list --csv
has "$tmp/out" "^index,name,kind,dt_path,compatible,status,backend,usable,sim,caps," "list --csv header"
has "$tmp/out" "^0,cpu,cpu,,,okay,cpu,yes,no," "list --csv cpu row"

# ---- enc/dec/dgst with the CPU's OpenSSL (skipped when it is not built)
if "$ctl" --dtb none enc -c aes-128-ecb -K $K16 </dev/null >/dev/null 2>&1; then
    expect 0 --dtb none dgst "$tmp/abc"
    has "$tmp/out" "^SHA256\(.*abc\)= ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad$" \
        "dgst default label"
    expect 1 --dtb none dgst "$tmp/dir"
    has "$tmp/err" "[Ii]s a directory" "dgst DIR"
    expect 1 --dtb none enc -c aes-128-ecb -K $K16 -in "$tmp/dir"
    has "$tmp/err" "[Ii]s a directory" "enc -in DIR"
    expect 1 --dtb none enc -c aes-128-cbc -K $K16 -iv $IV16 -in "$tmp/abc"
    # ECB takes no IV: a warning (as openssl enc), not an error
    expect 0 --dtb none enc -c aes-128-ecb -K $K16 -iv $IV16 -in /dev/null
    has "$tmp/err" "warning: -iv is not used" "ECB with -iv"

    # -out is replaced only by a complete output, keeping its permissions
    head -c 8192 /dev/zero > "$tmp/in8k"
    printf 'precious\n' > "$tmp/keep"
    chmod 640 "$tmp/keep"
    ( ulimit -f 1; exec "$ctl" --dtb none enc -c aes-128-ecb -K $K16 -in "$tmp/in8k" -out "$tmp/keep" ) \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && ok || bad "enc over the file-size limit exited $rc, expected 1"
    [ "$(cat "$tmp/keep")" = precious ] && ok || bad "enc destroyed -out on failure: $(head -c 40 "$tmp/keep" | od -c | head -1)"
    has "$tmp/err" "File too large" "enc write failure names the reason"
    [ -z "$(find "$tmp" -name '.keep.*')" ] && ok || bad "enc left a temporary file: $(ls -a "$tmp")"
    expect 0 --dtb none enc -c aes-128-ecb -K $K16 -in "$tmp/in8k" -out "$tmp/keep"
    [ "$(wc -c < "$tmp/keep")" -eq 8192 ] && ok || bad "enc -out: $(wc -c < "$tmp/keep") bytes"
    [ "$(stat -c %a "$tmp/keep")" = 640 ] && ok || bad "enc -out mode $(stat -c %a "$tmp/keep"), expected 640"
    ln -s keep "$tmp/link"
    expect 0 --dtb none dec -c aes-128-ecb -K $K16 -in "$tmp/keep" -out "$tmp/link"
    [ -L "$tmp/link" ] && cmp -s "$tmp/keep" "$tmp/in8k" && ok || bad "dec -out through a symlink"
    expect 0 --dtb none enc -c aes-128-ecb -K $K16 -in "$tmp/in8k" -out /dev/null
else
    echo "note: the CPU has no OpenSSL ciphers in this build; enc/dec/dgst checks skipped"
fi

test_done
