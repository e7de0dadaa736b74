#!/bin/sh
# offloadctl(1) COMMON OPTIONS: --dtb and --sim are "accepted by every command,
# before or after the command name" -- and honoured: each command runs on the
# device tree they name, with the models they attach. The espressobin tree has
# one EIP97 (crypto@90000) and the built-in virtual board an EIP97, a DSPI and
# a UDMA; with --sim every engine is a model, whose drivers end in "-sim".
# bench cipher offloads above the EIP97's threshold (2048 B, docs/policy.md), so
# 8192 B must run on the model and 16 B on the CPU.
#   test_common_opts.sh OFFLOADCTL
set -u
ctl=$1
. "$(dirname "$0")/harness.sh"
esp=/work/shared/dtb/armada-3720-espressobin.dtb

# run ARGS...: offloadctl's stdout+stderr in $tmp/out; a non-zero exit is a failure
run() {
    if "$ctl" "$@" >"$tmp/out" 2>&1; then ok; else bad "offloadctl $* exited $?: $(head -c 300 "$tmp/out")"; fi
}
has() { if grep -Eq -- "$1" "$tmp/out"; then ok; else bad "$2: no /$1/ in: $(head -c 400 "$tmp/out")"; fi; }
hasnt() { if grep -Eq -- "$1" "$tmp/out"; then bad "$2: /$1/ in: $(head -c 400 "$tmp/out")"; else ok; fi; }

bc="-a aes-128-cbc --sizes 16,8192 --rounds 1 --time 20ms --csv"
# the common options before and after the command name
for pos in before after; do
    if [ $pos = before ]; then run --dtb builtin --sim bench cipher $bc; else run bench cipher $bc --dtb builtin --sim; fi
    has '^aes-128-cbc,enc,auto,eip97,eip97-ring[0-9]-sim,8192,' "bench cipher --dtb builtin --sim ($pos): 8192 B on the sim EIP97"
    has '^aes-128-cbc,enc,auto,cpu,[^,]*,16,' "bench cipher --dtb builtin --sim ($pos): 16 B on the CPU"
done
# the CSV's device and sim columns: the model is labelled sim, the CPU is not
has '^alg,.*,device,sim$' "bench cipher CSV header: device and sim columns"
has '^aes-128-cbc,enc,auto,eip97,eip97-ring[0-9]-sim,8192,.*,crypto@[0-9a-f]+,1$' "bench cipher CSV: the sim EIP97 row"
has '^aes-128-cbc,enc,auto,cpu,.*,cpu,0$' "bench cipher CSV: the CPU row"
run --dtb builtin --sim bench cipher -a sha256 --sizes 8192 --rounds 1 --time 20ms --json
has '"dir": "digest", "config": "auto", "device": "crypto@[0-9a-f]+", "backend": "eip97"' "bench cipher JSON: a digest on the sim EIP97"
has '"sim": true' "bench cipher JSON: sim"
run --dtb builtin --sim bench cipher -a aes-128-cbc,sha256 --sizes 16,8192 --rounds 1 --time 20ms
hasnt 'testing speed of .* on cpu' "bench cipher text: the header names no device (it changes with the size)"
has '^test 1 \(128 bit key, 8192 byte blocks\): .*\(crypto@[0-9a-f]+: eip97, eip97-ring[0-9]-sim \[sim: a model, not hardware\];' "bench cipher text: the sim line"
has '^test 0 \(16 byte blocks\): .*\(cpu: cpu, ' "bench cipher text: a digest has no key size"
if [ -r "$esp" ]; then
    run --dtb "$esp" --sim bench cipher $bc
    has '^aes-128-cbc,enc,auto,eip97,eip97-ring[0-9]-sim,8192,' "bench cipher on the espressobin twin"
else
    echo "note: $esp not readable: espressobin cases skipped"
fi
# a SPEC starts from the common options; its keys override them
run --dtb builtin --sim bench cipher $bc --config cpu
hasnt ',eip97,' "bench cipher --config cpu: the allow-list overrides"
run --dtb builtin --sim bench cipher $bc --config dtb=none
hasnt ',eip97,' "bench cipher --config dtb=none: the SPEC's tree overrides --dtb"
run --dtb builtin bench cipher $bc --config label=x
has '^aes-128-cbc,enc,x,eip97,eip97-ring[0-9]-sim,8192,' "bench cipher --config label=x: --dtb builtin carried into the SPEC"
# without --sim or --dtb nothing changes: the CPU serves (no device tree, no models)
run --dtb none bench cipher $bc
hasnt ',eip97,' "bench cipher --dtb none"

# every other command on the built-in board with models
K=000102030405060708090a0b0c0d0e0f
head -c 8192 /dev/zero > "$tmp/in"
run --dtb builtin --sim enc -c aes-128-cbc -K $K -iv $K -in "$tmp/in" -out "$tmp/enc" -V
has 'on eip97 \(eip97-ring[0-9]-sim\)' "enc -V"
run dec -c aes-128-cbc -K $K -iv $K -in "$tmp/enc" -out "$tmp/dec" -V --dtb builtin --sim
has 'on eip97 \(eip97-ring[0-9]-sim\)' "dec -V"
if cmp -s "$tmp/in" "$tmp/dec"; then ok; else bad "enc/dec on the model: round trip differs"; fi
run --dtb builtin --sim dgst -sha256 -V "$tmp/in"
has 'eip97 \(eip97-ring[0-9]-sim\)' "dgst -V"
run --dtb builtin --sim selftest
has 'eip97-ring[0-9]-sim' "selftest"
# the summary marks the model, and the EIP97 cannot hash an empty message
# (its driver gives it to software): those passes are not the engine's
has '^crypto@[0-9a-f]+/eip97 \[sim: a model, not hardware\]: [0-9]+ passed \([0-9]+ on the model, [0-9]+ in software on the CPU\)' "selftest summary"
has '^alg: SHA256 +\([^)]*\) on crypto@[0-9a-f]+/eip97: passed \[.*\] \(in software on the CPU, not the engine\)' "selftest: the empty message in software"
hasnt '^cpu/cpu \[sim' "selftest: the CPU is not a model"
run --dtb builtin --sim selftest --json
has '"backend": "eip97", "alg": "SHA256", "driver": "[^"]*", "hardware": false, "sim": false, "software": true' "selftest JSON: software result"
has '"backend": "eip97", "alg": "SHA256", "driver": "eip97-ring[0-9]-sim", "hardware": false, "sim": true, "software": false' "selftest JSON: model result"
run --dtb builtin --sim list
has '^device tree: builtin' "list"
run --dtb builtin --sim doctor
has '^device tree: builtin' "doctor"
# findings about this machine's kernel (dma-buf exporters) are not the board's
has '^info \(this host, not the device tree.s board\): .*\[dma-buf-exporters\]' "doctor on another board's tree: host findings labelled"
run --dtb none doctor
hasnt 'this host' "doctor without a tree: the host is the machine"
run --dtb builtin doctor --json
has '"this_host": true, "code": "dma-buf-exporters"' "doctor JSON: this_host"
# list says which backends serve nothing here and why
run --backends cpu list
has '^backend [a-z0-9]+: absent: excluded by the backend allow-list "cpu"' "list: absent backends"
run --backends cpu list --json
has '"absent": \[\{"backend": "[a-z0-9]+", "reason": "excluded by the backend allow-list \\"cpu\\""' "list JSON: absent backends"
# A 32-bit build refuses the virtual board's ring-accelerator UDMA (docs/fidelity.md M7):
# the program, not the shell's uname, says which it is (qemu-user runs it).
udma32=0
if "$ctl" --dtb builtin list 2>/dev/null | grep -qF "$udma32_reason"; then
    udma32=1
fi
run --dtb builtin --sim bench memcpy --size 65536 --iterations 4
if [ $udma32 = 1 ]; then
    has 'device cpu \(backend cpu' "bench memcpy --size on a 32-bit host: the CPU, the UDMA refused"
else
    has '\+sim' "bench memcpy --size"
fi
run --dtb builtin --sim bench spi --device /bus@100000/spi@2100000/loopback@0 -S 64 -I 2
has 'dspi-sim' "bench spi"
# --sim-trace FILE: the models' register accesses, before or after the command name
if [ $udma32 = 1 ]; then
    if "$ctl" --sim-trace "$tmp/trace" --dtb builtin --sim bench memcpy --size 4096 --iterations 1 --backend udma >"$tmp/out" 2>&1; then
        bad "--backend udma on a 32-bit host: the refused UDMA copied"
    else
        has "no usable memcpy device with backend 'udma'" "--backend udma on a 32-bit host"
    fi
else
    run --sim-trace "$tmp/trace" --dtb builtin --sim bench memcpy --size 4096 --iterations 1 --backend udma
    if grep -Eq '^W32 0x30b[0-9a-f]{5} 0x[0-9a-f]{8} TCFG tchan [0-9]+$' "$tmp/trace"; then ok; else bad "--sim-trace: no TCFG write in: $(head -c 300 "$tmp/trace")"; fi
fi
rm -f "$tmp/trace"
run --dtb builtin --sim bench spi --device /bus@100000/spi@2100000/loopback@0 -S 4 -I 1 --sim-trace "$tmp/trace"
if grep -Eq '^W16 0x2100034 0x[0-9a-f]{4} PUSHR_TX$' "$tmp/trace"; then ok; else bad "--sim-trace after the command: no PUSHR_TX in: $(head -c 300 "$tmp/trace")"; fi
if "$ctl" --sim-trace /nonexistent-dir/trace --dtb builtin list >"$tmp/out" 2>&1; then
    bad "--sim-trace to an unwritable file succeeded"
else
    has 'OFFLOAD_SIM_TRACE=/nonexistent-dir/trace: cannot append to it' "--sim-trace unwritable: the message"
fi
# --device takes the index `list` prints, as bench memcpy --dev does: on the
# virtual board [1] is the EIP97 model. SHA-256("abc") is FIPS 180-2's example.
printf abc >"$tmp/abc"
run --dtb builtin dgst -sha256 --device 1 -V "$tmp/abc"
has '= ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad$' "dgst --device 1: the digest"
has ': eip97 \(eip97-ring[0-9]-sim\)' "dgst --device 1: ran on the EIP97 model"
if "$ctl" --dtb builtin dgst -sha256 --device 99 "$tmp/abc" >"$tmp/out" 2>&1; then
    bad "dgst --device 99 succeeded"
else
    has 'no device 99' "dgst --device 99: the message"
fi
test_done
