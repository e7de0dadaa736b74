#!/bin/sh
# Every offloadctl command checks its writes, standard output included: into
# a full device (/dev/full: ENOSPC) or a pipe whose reader has gone (EPIPE)
# the command exits non-zero and says so on stderr, instead of exiting 0 with
# half its output lost. And a non-zero exit always comes with a sentence on
# stderr: doctor finding a warning, a failure found by a benchmark.
#   test_output_errors.sh OFFLOADCTL DTC
set -u
ctl=$1
dtc=$2
. "$(dirname "$0")/harness.sh"
[ -w /dev/full ] || { echo "SKIP: no writable /dev/full on this machine"; exit 77; }
printf 'abc' > "$tmp/abc"
mkdir "$tmp/sys"

# full ARGS...: offloadctl ARGS > /dev/full exits non-zero, saying it could not write its output
full() {
    "$ctl" "$@" >/dev/full 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        bad "offloadctl $* > /dev/full exited 0"
    elif ! grep -q "cannot write to standard output: No space left on device" "$tmp/err"; then
        bad "offloadctl $* > /dev/full (exit $rc): no sentence about the output: $(head -c 300 "$tmp/err")"
    else
        ok
    fi
}

full --dtb none list
full --dtb none list --json
full --dtb none list --csv
full --dtb none doctor
full --dtb none doctor --json
full --version
full --help
full --dtb none list --help
full bench --help
full --dtb none bench memcpy --max 256 --time 0.01
full --dtb none bench memcpy --max 256 --time 0.01 --json
full --dtb none bench memcpy --size 64 --iterations 10
full --dtb none bench memcpy --size 64 --iterations 10 --csv
if "$ctl" --dtb none dgst "$tmp/abc" >/dev/null 2>&1; then # the CPU's OpenSSL is built
    full --dtb none dgst "$tmp/abc"
    full --dtb none dgst -r "$tmp/abc"
    head -c 4096 /dev/zero >"$tmp/zero4k"
    full --dtb none enc -c aes-128-ecb -K 000102030405060708090a0b0c0d0e0f -in "$tmp/zero4k"
    full --dtb none selftest
    full --dtb none selftest --json
    full --dtb none bench cipher -a sha256 --sizes 16 --rounds 1 --time 1ms
    full --dtb none bench cipher -a sha256 --sizes 16 --rounds 1 --time 1ms --csv
fi
if "$ctl" --dtb builtin list >/dev/null 2>&1; then # the virtual board (OFFLOAD_WITH_SIM)
    full --dtb builtin list
    full --dtb builtin bench spi --device /bus@100000/spi@2100000/loopback@0 -S 16 -I 2
    full --dtb builtin bench spi --device /bus@100000/spi@2100000/loopback@0 -S 16 -I 2 --json
fi

# EPIPE: the reader is gone before the first write; SIGPIPE does not kill the
# program silently, the write fails and the exit status and stderr say so
{ sleep 0.3; "$ctl" --dtb none list 2>"$tmp/err"; echo $? >"$tmp/rc"; } | true
wait
rc=$(cat "$tmp/rc")
if [ "$rc" -ne 0 ] && grep -q "cannot write to standard output: Broken pipe" "$tmp/err"; then ok
else bad "offloadctl list into a closed pipe: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi

# doctor with a warning (an enabled engine without a CPU address) says so on stderr
cat >"$tmp/noreg.dts" <<'EOD'
/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	crypto {
		compatible = "inside-secure,safexcel-eip97ies";
		status = "okay";
	};
};
EOD
"$dtc" -q -I dts -O dtb -o "$tmp/noreg.dtb" "$tmp/noreg.dts" || { echo "FAIL: dtc"; exit 1; }
"$ctl" --dtb "$tmp/noreg.dtb" doctor >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^warning: .*\[no-cpu-address\]' "$tmp/out" &&
   grep -q "doctor: 1 warning found (exit status 1)" "$tmp/err"; then ok
else bad "doctor with a warning: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi
"$ctl" --dtb "$tmp/noreg.dtb" doctor --json >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "1 warning found" "$tmp/err" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["warnings"] == 1' "$tmp/out"; then ok
else bad "doctor --json with a warning: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi

# dmatest that cannot run says why (and stays valid JSON on stdout)
"$ctl" dmatest --sysfs-root "$tmp/sys" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "dmatest module is not loaded" "$tmp/err"; then ok
else bad "dmatest without the module: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi

test_done
