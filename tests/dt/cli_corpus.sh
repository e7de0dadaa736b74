#!/bin/sh
# offloadctl list / doctor on the real boards: key lines and exit statuses.
# Usage: cli_corpus.sh OFFLOADCTL SHARED_DTB_DIR FIXTURE_DIR
# Expected lines come from hw/*.md and from reading the blobs with dtc.
set -u
ctl=$1
dtb=$2
fix=$3
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err" "$out.bad"' EXIT

for b in k3-j721e-evm k3-am654-base-board k3-am642-evm armada-3720-espressobin \
         fsl-ls1028a-qds fsl-ls1028a-rdb bcm2711-rpi-4-b; do
    if [ ! -r "$dtb/$b.dtb" ]; then
        echo "skip: $dtb/$b.dtb is not readable (the shared DTB corpus is absent)"
        exit 77
    fi
done

# run NAME EXPECTED_STATUS ARGS...: run offloadctl, check its exit status.
run() {
    name=$1
    want=$2
    shift 2
    "$ctl" "$@" >"$out" 2>"$err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, want $want ($*)"
        sed 's/^/    /' "$err"
        fail=1
    fi
}

# has NAME FIXED-STRING: the last output contains the line fragment.
has() {
    if ! grep -qF -- "$2" "$out"; then
        echo "FAIL $1: no line with: $2"
        fail=1
    fi
}

count() {
    n=$(grep -cF -- "$2" "$out")
    if [ "$n" -ne "$3" ]; then
        echo "FAIL $1: $n lines with '$2', want $3"
        fail=1
    fi
}

json_ok() {
    if ! python3 -m json.tool "$out" >/dev/null 2>&1; then
        echo "FAIL $1: output is not valid JSON"
        fail=1
    fi
}

# --- list
run list-j721e 0 list --dtb "$dtb/k3-j721e-evm.dtb"
has list-j721e "node:       /bus@100000/bus@30000000/dma-controller@31150000"
has list-j721e "address:    0x31150000 (0x100 bytes)"
has list-j721e "coherent:   yes: dma-coherent on /bus@100000/bus@30000000"
has list-j721e "burst:      256 B"
has list-j721e "classes:    normal 64 B, H 256 B, UH 256 B (0 = no such channel class); memcpy on UH channels"
has list-j721e "align:      256 B"
has list-j721e "mode:       none: Linux k3-udma.c j721e_mcu_data"

run list-j721e-json 0 list --json --dtb "$dtb/k3-j721e-evm.dtb"
json_ok list-j721e-json
has list-j721e-json '"burst_by_class": [64, 256, 256]'
has list-j721e-json '"coherent_node": "/bus@100000/bus@30000000"'

run list-am654 0 list --dtb "$dtb/k3-am654-base-board.dtb"
has list-am654 "coherent:   yes: dma-coherent on /bus@100000/bus@30800000"
has list-am654 "burst:      64 B: Linux k3-udma.c am654_main_data has no BURST_SIZE flag"

run list-am642 0 list --dtb "$dtb/k3-am642-evm.dtb"
has list-am642 "node:       /bus@f4000/bus@48000000/dma-controller@485c0100"
has list-am642 "cache:      streaming"
has list-am642 "mode:       tr15-bchan"
has list-am642 "mode:       none: Linux k3-udma.c am64_pktdma_data"

run list-espressobin 0 list --dtb "$dtb/armada-3720-espressobin.dtb"
has list-espressobin "address:    0xd0090000 (0x20000 bytes): reg[0] 0x90000 -> 0xd0090000 by the ranges of /soc/internal-regs@d0000000"
has list-espressobin "coherent:   no: no dma-coherent or dma-noncoherent on /soc/internal-regs@d0000000/crypto@90000"
has list-espressobin "soc:        I/O-coherent interconnect: Marvell Armada 37xx"

run list-qds 0 list --dtb "$dtb/fsl-ls1028a-qds.dtb"
count list-qds "mode:       xspi-pio" 3
count list-qds "status:     okay" 4

run list-rdb 0 list --dtb "$dtb/fsl-ls1028a-rdb.dtb"
count list-rdb "status:     disabled" 3
count list-rdb "usable:     no: disabled in the device tree" 3

run list-rpi 0 list --dtb "$dtb/bcm2711-rpi-4-b.dtb"
count list-rpi "[" 1
has list-rpi "[0] cpu (cpu)"

# --- doctor (device-tree findings only: the AF_ALG finding depends on the
# running kernel and is checked in the qemu guest, tests/qemu)
run doctor-espressobin 1 doctor --backends cpu --dtb "$dtb/armada-3720-espressobin.dtb"
has doctor-espressobin "warning: /soc/internal-regs@d0000000/crypto@90000: the SoC is I/O-coherent but the node is not marked dma-coherent"
has doctor-espressobin "mark EIP97 as dma-coherent"
has doctor-espressobin "+3..326 %"
has doctor-espressobin "action:   add \`dma-coherent;\` to /soc/internal-regs@d0000000/crypto@90000"
has doctor-espressobin "doctor: 1 warning, 1 note"

run doctor-espressobin-json 1 doctor --backends cpu --json --dtb "$dtb/armada-3720-espressobin.dtb"
json_ok doctor-espressobin-json
has doctor-espressobin-json '"warnings": 1,'
has doctor-espressobin-json '"code": "missing-dma-coherent"'

run doctor-qds 0 doctor --backends cpu --dtb "$dtb/fsl-ls1028a-qds.dtb"
count doctor-qds "[dspi-pio-mode]" 3
has doctor-qds "1845.2 vs 1846.5 kbps"
has doctor-qds "FIFO 4 entries"

run doctor-rdb 0 doctor --backends cpu --dtb "$dtb/fsl-ls1028a-rdb.dtb"
count doctor-rdb "engine present but disabled" 3

run doctor-j721e 0 doctor --backends cpu --dtb "$dtb/k3-j721e-evm.dtb"
has doctor-j721e "info: /bus@100000/bus@30000000/dma-controller@31150000: best memcpy channel class: UH, burst 256 B (normal 64, H 256, UH 256 B), copy alignment 256 B"
has doctor-j721e "info: /bus@100000/bus@28380000/bus@28380000/dma-controller@285c0000: no memcpy"

run doctor-am642 0 doctor --backends cpu --dtb "$dtb/k3-am642-evm.dtb"
has doctor-am642 "best memcpy channel class: normal, burst 64 B (normal 64, H 0, UH 0 B), copy alignment 64 B"

run doctor-rpi 0 doctor --backends cpu --json --dtb "$dtb/bcm2711-rpi-4-b.dtb"
json_ok doctor-rpi
has doctor-rpi '"code": "no-engines"'

# --- a broken blob: exit 1, the message names the offset
head -c 200 "$fix/inherit.dtb" >"$out.bad"
run list-truncated 1 list --dtb "$out.bad"
if ! grep -qF "truncated blob: the header (offset 0x4) says" "$err"; then
    echo "FAIL list-truncated: stderr lacks the offset: $(cat "$err")"
    fail=1
fi
run doctor-missing 1 doctor --backends cpu --dtb /nonexistent.dtb

[ "$fail" -eq 0 ] && echo "offloadctl corpus: all checks passed"
exit "$fail"
