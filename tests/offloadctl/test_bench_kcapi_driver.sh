#!/bin/sh
# bench cipher's per-configuration kernel driver (SPEC kcapi:driver=NAME, the
# kcapi backend's OFFLOAD_KCAPI_DRIVER) against stand-in /proc/crypto files
# (tests/crypto/data): a cra_driver_name the file does not list, or lists as
# internal, is refused as a run-time error (exit 1, one sentence naming it);
# a malformed SPEC is a usage error (exit 2). A listed driver gets past the
# check: on a kernel without AF_ALG (the build machine) the run then fails
# with the backend's AF_ALG reason, with AF_ALG the side runs on af_alg under
# that driver's name. The real two-driver A/B runs in the x86 guest
# (tests/qemu, kernel_kcapi_virtio).
#   test_bench_kcapi_driver.sh OFFLOADCTL DATA_DIR WITH_KCAPI(1|0)
set -u
ctl=$1
data=$2
if [ "${3:-1}" != 1 ]; then
    echo "SKIP: built without the kcapi backend (OFFLOAD_WITH_KCAPI off)"
    exit 77
fi
. "$(dirname "$0")/harness.sh"
a3720=$data/proc_crypto_a3720.txt
bc="-a aes-128-cbc --sizes 16 --rounds 1 --time 2ms --csv"

# expect CODE PATTERN WHAT ARGS...: exit status CODE and PATTERN in stderr
expect() {
    code=$1 pat=$2 what=$3
    shift 3
    OFFLOAD_PROC_CRYPTO=$a3720 "$ctl" --dtb none "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$what: exit $rc, not $code: $(head -c 300 "$tmp/err")"; return; fi
    if grep -Eq -- "$pat" "$tmp/err"; then ok; else bad "$what: no /$pat/ in: $(head -c 400 "$tmp/err")"; fi
}

# a name /proc/crypto does not list: refused, whichever side names it
expect 1 'configuration "kcapi:driver=no-such-aes": .*no crypto driver "no-such-aes"' \
    "unknown driver (A)" bench cipher --ab kcapi:driver=no-such-aes,cpu $bc
expect 1 'configuration "kcapi:driver=cbc-aes-c": .*no crypto driver "cbc-aes-c"' \
    "prefix of a listed driver (B)" bench cipher --a cpu --b kcapi:driver=cbc-aes-c $bc
expect 1 'configuration "driver=CBC-AES-CE": .*no crypto driver "CBC-AES-CE"' \
    "driver names are case-sensitive" bench cipher --config driver=CBC-AES-CE $bc
# listed, but internal (the kernel refuses to bind it from user space)
expect 1 'no crypto driver "__cbc-aes-neonbs"' \
    "internal driver" bench cipher --config kcapi:driver=__cbc-aes-neonbs $bc
# listed, but its self-test has not passed
expect 1 'no crypto driver "safexcel-gcm-aes"' \
    "driver that failed its self-test" bench cipher --config kcapi:driver=safexcel-gcm-aes $bc
# malformed SPECs: usage errors
expect 2 'bad configuration "kcapi:driver="' "empty driver" bench cipher --config kcapi:driver= $bc
expect 2 'bad configuration "cpu:driver=cbc-aes-ce"' "driver on the cpu backend" \
    bench cipher --config cpu:driver=cbc-aes-ce $bc
expect 2 'bad configuration "backends=cpu:driver=cbc-aes-ce"' "driver without kcapi allowed" \
    bench cipher --config backends=cpu:driver=cbc-aes-ce $bc
long=$(printf '%0130d' 0)
expect 2 "bad configuration" "driver name longer than the kernel's" bench cipher --config "driver=$long" $bc

# listed drivers (the engine's and the CPU's) pass the check
for d in safexcel-cbc-aes cbc-aes-ce; do
    if OFFLOAD_PROC_CRYPTO=$a3720 "$ctl" --dtb none bench cipher --config kcapi:driver=$d $bc >"$tmp/out" 2>"$tmp/err"; then
        if grep -Eq "^aes-128-cbc,enc,[^,]*,kcapi,$d,16," "$tmp/out"; then ok; else bad "driver $d: not reported: $(head -c 400 "$tmp/out")"; fi
    elif grep -q 'socket(AF_ALG) failed' "$tmp/err"; then
        if grep -q 'no crypto driver' "$tmp/err"; then bad "driver $d refused: $(cat "$tmp/err")"; else ok; fi
    else
        bad "driver $d: $(head -c 400 "$tmp/err")"
    fi
done
test_done
