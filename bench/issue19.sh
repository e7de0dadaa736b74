#!/bin/sh
# Every measurement of issue #19 in one run, in the order of bench/README.md:
# the instruction counts first (callgrind: exact on any machine), then the
# wall-clock ratios, which keep only rounds in which other processes took
# under 5 % of the CPUs (each table says how many it kept; BUSY: none was
# quiet). On a shared machine run it when nothing else does. The last lines
# give a verdict per target of the issue (met / NOT MET with the ratio; not
# judged when its rounds were busy), from bench/issue19_verdict.py.
# Quiet, it should take about 5 minutes (the memcpy sweeps took 40, 57 and
# about 30 s on 2026-12-02 06:22, callgrind 1:45 here, estimated); when
# rounds are busy each size runs up to --max-rounds, and at load 11 on 2 CPUs
# the first memcpy sweep alone was still running after 8 minutes.
#   sh bench/issue19.sh [BUILD_DIR] [DTB_DIR]     default build ../shared/dtb
set -u
build=${1:-build}
dtbs=${2:-../shared/dtb}
ctl=$build/src/offloadctl/offloadctl
here=$(dirname "$0")
out=$(mktemp -d "${TMPDIR:-/tmp}/issue19.XXXXXX")
t0=$(date +%s)
run() { echo; echo "\$ $*"; "$@"; }
# run_to FILE CMD...: the command's output into $out/FILE as well as on stdout
run_to() { f=$out/$1; shift; echo; echo "\$ $*"; "$@" > "$f"; r=$?; cat "$f"; return $r; }
# memcpy_json NAME ARGS...: a bench memcpy sweep saved as JSON, shown as a table
memcpy_json() {
	n=$1; shift
	echo; echo "\$ $ctl --dtb none bench memcpy $* --json   ($(date +%T))"
	"$ctl" --dtb none bench memcpy "$@" --json > "$out/$n.json"
	python3 "$here/issue19_verdict.py" table "$out/$n.json"
}

run sh "$here/memcpy_callgrind.sh" "$build"
run sh "$here/crypto_callgrind.sh" "$build"
run sh "$here/ctx_open_callgrind.sh" "$build" "$dtbs/k3-j721e-evm.dtb"
# the streaming-store threshold and where its cache size came from
run_to list.txt "$ctl" --dtb none list
# memcpy: back to back against memcpy and the two-thread copies, after idle, beside a busy core
memcpy_json memcpy_b2b --min 64 --max 256M --peers 2thr,2thr-nt --rounds 5 --time 3 --max-rounds 30
memcpy_json memcpy_idle --min 4K --max 256M --mode idle --rounds 5 --time 6 --max-rounds 30
memcpy_json memcpy_busy --min 4K --max 256M --busy --rounds 5 --time 3 --max-rounds 30
# crypto sessions and the one-shot hash against OpenSSL called directly (as crypto_overhead.sh)
run_to cipher_sessions.json "$ctl" --dtb none bench cipher --ab evp,cpu -a aes-128-gcm,aes-128-cbc,sha256 \
	--sizes 16,8192 --time 0.25 --rounds 11 --max-rounds 60 --quiet 5 --json
run_to cipher_oneshot.json "$ctl" --dtb none bench cipher --ab evp,cpu -a sha256 --sizes 16,8192 --oneshot \
	--time 0.25 --rounds 11 --max-rounds 60 --quiet 5 --json
# context open of the 122 KB J721E tree
run_to ctx_open.txt "$build/bench/bench_dt_discover" "$dtbs/k3-j721e-evm.dtb" 3000 5
# the queue beside DPDK's dmadev (built where DPDK is installed)
if [ -x "$build/bench/dmadev_compare" ]; then
	run_to dmadev.txt "$build/bench/dmadev_compare" --time 10 --rounds 5
else
	echo "SKIP: $build/bench/dmadev_compare not built (DPDK not installed: scripts/setup-debian.sh)" |
		tee "$out/dmadev.txt"
fi
echo
python3 "$here/issue19_verdict.py" verdict "$out"
echo "issue19.sh: $(($(date +%s) - t0)) s; the raw outputs are in $out"
