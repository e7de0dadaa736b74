#!/bin/sh
# offloadctl bench memcpy as scripts use it: the dmatest summary line, the
# JSON and CSV shapes, dmatest-style runs, usage errors. Nothing here judges
# speed; the runs are short and every copy is still verified by the tool.
#   test_bench_memcpy.sh OFFLOADCTL
set -u
ctl=$1
# No device tree: the CPU is then the only copy device, whatever else is built.
dt="--dtb none"
. "$(dirname "$0")/harness.sh"

# expect STATUS CMD...: run, keep stdout in $tmp/out, compare the exit status
expect() {
    want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else
        bad "'$*' exited $got, expected $want"; sed 's/^/  /' "$tmp/err" | head -5; fi
}

summary='^offloadctl: cpu-copy0: summary [0-9]+ tests, 0 failures [0-9]+\.[0-9][0-9] iops [0-9]+ KB/s \(0\)$'

expect 0 "$ctl" $dt bench memcpy --max 4K --time 0.02
if tail -n 1 "$tmp/out" | grep -Eq "$summary"; then ok; else bad "sweep summary line: $(tail -n 1 "$tmp/out")"; fi
[ "$(grep -Ec '^ +(64 B|256 B|1 KiB|4 KiB) ' "$tmp/out")" -eq 4 ] && ok || bad "sweep rows"
# The summary line is the largest size's alone; the line before counts the whole sweep.
grep -Eq '^offloadctl: sweep: [0-9]+ library copies at 4 sizes verified, 0 failures; summary of the largest size, 4 KiB:$' "$tmp/out" &&
    ok || bad "sweep verification line"
tail -n 1 "$tmp/out" | grep -Eq "summary [0-9]+ tests" && ok || bad "sweep summary"
# The A/A control runs in --mode idle only: back to back the table has no A/A column.
grep -Eq '^ +size +lib MB/s +memcpy MB/s +ratio +lib/call ' "$tmp/out" && ! grep -q 'A/A' "$tmp/out" &&
    ok || bad "b2b column heads (no A/A): $(grep ' size ' "$tmp/out")"

# The default top size follows the memory the process may use: under a
# 300 MB address-space limit it is the 16 MiB floor (2 x 16 MiB of buffers).
if [ -n "${OFFLOAD_TEST_EMULATOR:-}" ]; then
    # The limit would bind the emulator, which reserves the guest's address
    # space and its own allocations under it, not only offloadctl.
    echo "SKIP (part, under $OFFLOAD_TEST_EMULATOR): ulimit -v limits the emulator itself; default-size check not run"
    : >"$tmp/err"
else
    (ulimit -v 300000 2>/dev/null && "$ctl" $dt bench memcpy --min 16M --time 0.01) >"$tmp/out" 2>"$tmp/err"
fi
if [ -n "${OFFLOAD_TEST_EMULATOR:-}" ]; then
    :
elif grep -q AddressSanitizer "$tmp/err"; then
    echo "note: the sanitizer runtime cannot start under ulimit -v; default-size check not run"
elif head -n 1 "$tmp/out" | grep -q ' 16 MiB .. 16 MiB (the address-space limit (ulimit -v) left [0-9]* MiB / 8, power of 4, 16..256 MiB; --max to change) x4'; then
    ok
else
    bad "default sweep top under ulimit -v: $(head -n 1 "$tmp/out") $(head -n 3 "$tmp/err")"
fi

expect 0 "$ctl" $dt bench memcpy --max 1K --time 0.02 --json
python3 - "$tmp/out" <<'EOP' && ok || bad "sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["bench"] == "memcpy" and d["mode"] == "sweep"
assert [r["size"] for r in d["rows"]] == [64, 256, 1024], d["rows"]
for r in d["rows"]:
    assert r["failures"] == 0 and r["tests"] > 0 and r["device"] == "cpu" and r["sim"] is False
    assert r["lib_MBps"] > 0 and r["memcpy_MBps"] > 0
assert d["summary"]["failures"] == 0 and d["summary"]["status"] == 0
EOP

expect 0 "$ctl" $dt bench memcpy --max 256 --time 0.02 --csv
head -n 1 "$tmp/out" | grep -qx 'case,thread,device,backend,sim,mode,ring_size,kick_batch,buffer_size_B,number_of_buffers,memory_MB,ns_per_op,bandwidth_Gbps,MOps,tests,failures' && ok || bad "CSV header"
[ "$(grep -c '^library,0,cpu,cpu,0,sync,' "$tmp/out")" -eq 2 ] && [ "$(grep -c '^memcpy,' "$tmp/out")" -eq 2 ] && ok || bad "CSV rows"

# The two-thread references, the idle and busy modes, quiet rounds: the
# columns and fields are there and every copy still verifies (no speed judged).
peers=2thr
# The streaming-store peer exists where the program says so (x86-64); under
# qemu-user the shell's uname is the host's, not the program's architecture.
if "$ctl" $dt bench memcpy --min 4K --max 4K --time 0.001 --peers 2thr-nt 2>&1 >/dev/null |
        grep -q "no streaming stores on this architecture"; then
    peers=2thr
else
    peers=2thr,2thr-nt
fi
expect 0 "$ctl" $dt bench memcpy --min 16K --max 1M --time 0.05 --peers $peers --quiet 100 --json
python3 - "$tmp/out" "$peers" <<'EOP' && ok || bad "sweep JSON with peers"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["copy_mode"] == "b2b" and d["busy"] is False
for r in d["rows"]:
    assert r["failures"] == 0 and r["quiet"] is None and r["rounds"] == 1, r
    has = r["size"] >= 65536
    assert ("two_thread_MBps" in r) == has, r
    assert ("two_thread_nt_MBps" in r) == (has and "nt" in sys.argv[2]), r
    assert ("ratio_best_two_thread" in r) == has, r
    assert ("ratio_best_two_thread_of_medians" in r) == has, r
    if has:
        best = max(r["two_thread_MBps"], r.get("two_thread_nt_MBps", 0))
        assert abs(r["ratio_best_two_thread_of_medians"] - r["lib_MBps"] / best) < 1e-3, r
        assert r["ratio_best_two_thread"] > 0, r
    assert "ratio_aa" not in r and "memcpy_aa_MBps" not in r, r
    assert r["copies_per_buffer"] >= (2 if r["size"] >= 65536 else 1), r
EOP
expect 0 "$ctl" $dt bench memcpy --min 4M --max 4M --time 0.05 --mode idle --idle 1ms --busy --peers 2thr
grep -q 'every pass after 1 ms idle; another process spins on CPU' "$tmp/out" && ok || bad "idle/busy header"
grep -Eq '^ +4 MiB .* cpu +[0-9]+ ' "$tmp/out" && ok || bad "idle/busy row"
# --mode idle: the A/A control (memcpy timed by a second pass function) as a
# column after the ratio, explained under the table, in JSON and in CSV.
grep -Eq '^ +size +lib MB/s +memcpy MB/s +ratio +A/A +2thr MB/s ' "$tmp/out" && ok ||
    bad "idle column heads: $(grep ' size ' "$tmp/out")"
grep -Eq '^ +4 MiB +[0-9]+ +[0-9]+ +[0-9]+\.[0-9][0-9] +[0-9]+\.[0-9][0-9] +[0-9]+ ' "$tmp/out" && ok ||
    bad "idle row with A/A: $(grep 'MiB' "$tmp/out")"
grep -q "^A/A: plain memcpy timed by a second pass function" "$tmp/out" && ok || bad "A/A line"
expect 0 "$ctl" $dt bench memcpy --min 4K --max 16K --time 0.02 --mode idle --idle 1ms --json
python3 - "$tmp/out" <<'EOP' && ok || bad "idle JSON with the A/A control"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["copy_mode"] == "idle"
assert [r["size"] for r in d["rows"]] == [4096, 16384], d["rows"]
for r in d["rows"]:
    assert r["failures"] == 0 and r["memcpy_MBps"] > 0 and r["memcpy_aa_MBps"] > 0, r
    assert r["memcpy_aa_ns_per_call"] > 0, r
    # the MB/s are medians, and so is the ratio of them; ratio and ratio_aa
    # come from the paired passes (cli_paired_ratio(), test_stats.c)
    assert abs(r["ratio_aa_of_medians"] - r["memcpy_aa_MBps"] / r["memcpy_MBps"]) < 1e-3, r
    assert abs(r["ratio_of_medians"] - r["lib_MBps"] / r["memcpy_MBps"]) < 1e-3, r
    assert r["ratio"] > 0 and r["ratio_aa"] > 0, r
EOP
expect 0 "$ctl" $dt bench memcpy --min 4K --max 4K --time 0.02 --mode idle --idle 1ms --csv
[ "$(grep -c '^memcpy-aa,0,memcpy,libc,0,sync,0,1,4096,16,' "$tmp/out")" -eq 1 ] &&
    [ "$(grep -c '^memcpy,' "$tmp/out")" -eq 1 ] && ok || bad "idle CSV rows: $(cat "$tmp/out")"
expect 0 "$ctl" $dt bench memcpy --max 256 --time 0.04 --rounds 2 --max-rounds 5 --csv
[ "$(grep -c '^library,0,cpu,cpu,0,sync,' "$tmp/out")" -eq 2 ] && ok || bad "CSV rows with rounds"
expect 2 "$ctl" $dt bench memcpy --peers 3thr
expect 2 "$ctl" $dt bench memcpy --mode fast
expect 2 "$ctl" $dt bench memcpy --rounds 3 --max-rounds 2
expect 2 "$ctl" $dt bench memcpy --quiet 0
expect 2 "$ctl" $dt bench memcpy --size 1K --iterations 5 --busy
expect 2 "$ctl" $dt bench memcpy --size 1K --iterations 5 --mode idle
expect 2 "$ctl" $dt bench memcpy --async --peers 2thr

# dmatest-style runs: one line per thread plus a total, exact test counts.
for mode in "" --async; do
    expect 0 "$ctl" $dt bench memcpy --size 5M --iterations 3 --threads 2 $mode
    for t in 0 1; do
        grep -Eq "^offloadctl: cpu-copy$t: summary 3 tests, 0 failures [0-9.]+ iops [0-9]+ KB/s \(0\)$" "$tmp/out" &&
            ok || bad "run$mode: thread $t line"
    done
    grep -Eq '^offloadctl: cpu-total: summary 6 tests, 0 failures' "$tmp/out" && ok || bad "run$mode: total line"
done
expect 0 "$ctl" $dt bench memcpy --size 100 --iterations 1000 --align 17 --async --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total"]["tests"] == 1000 and d["total"]["failures"] == 0 and d["async"] is True' "$tmp/out" && ok || bad "run JSON"
expect 0 "$ctl" $dt bench memcpy --size 1K --iterations 10 --dev cpu
expect 0 "$ctl" $dt bench memcpy --size 1K --iterations 10 --dev 0
expect 0 "$ctl" $dt bench memcpy --size 1K --iterations 10 --backend cpu
expect 0 "$ctl" $dt bench memcpy --sweep --size 1M --time 0.02 --async

# --ab against a model says so (sim) in its header and JSON, and writes no
# threshold from it. The builtin tree's UDMA; a 32-bit host has none to use.
"$ctl" --sim bench memcpy --ab cpu,udma --max 256 --time 0.03 >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "no usable memcpy device of backend 'udma'" "$tmp/err"; then
    echo "note: no direct UDMA on this host: --ab's sim label not checked"
else
    head -n 1 "$tmp/out" | grep -q '^bench memcpy --ab cpu,udma: cpu (device [0-9]*) against udma (device [0-9]*, sim), .*\[sim: a model, not hardware\]$' &&
        ok || bad "--ab header without the sim label: $(head -n 1 "$tmp/out")"
    expect 0 "$ctl" --sim bench memcpy --ab cpu,udma --max 256 --time 0.03 --json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["a_sim"] is False and d["b_sim"] is True' "$tmp/out" &&
        ok || bad "--ab JSON sim fields: $(head -c 200 "$tmp/out")"
    expect 1 "$ctl" --sim bench memcpy --ab cpu,udma --max 256 --time 0.03 --write-threshold="$tmp/thr"
    grep -q "a crossover measured on a model (sim) says nothing of the hardware" "$tmp/err" && [ ! -e "$tmp/thr" ] &&
        ok || bad "--write-threshold from a model: $(head -c 200 "$tmp/err")"
fi

# Usage errors exit 2, failures to find a device exit 1.
expect 2 "$ctl" $dt bench memcpy --size 0
expect 2 "$ctl" $dt bench memcpy --size 12Q
expect 2 "$ctl" $dt bench memcpy --align 4096
expect 2 "$ctl" $dt bench memcpy --threads 0
expect 2 "$ctl" $dt bench memcpy --sweep --threads 2
expect 2 "$ctl" $dt bench memcpy --min 1M --max 1K
expect 2 "$ctl" $dt bench memcpy --json --csv
expect 2 "$ctl" $dt bench memcpy --dev cpu --backend cpu
expect 2 "$ctl" $dt bench memcpy --no-such-option
expect 2 "$ctl" $dt bench memcpy extra-argument
expect 1 "$ctl" $dt bench memcpy --size 64 --iterations 1 --dev no-such-device
# an unknown backend name is a usage error (2); a known one with no device here fails (1)
expect 2 "$ctl" $dt bench memcpy --size 64 --iterations 1 --backend nosuchbackend
expect 1 "$ctl" $dt bench memcpy --size 64 --iterations 1 --backend udma
expect 2 "$ctl" $dt --backends warpdrive bench memcpy --size 64 --iterations 1
expect 0 "$ctl" $dt bench memcpy --help
grep -q -- '--iterations' "$tmp/out" && ok || bad "bench memcpy --help"
expect 2 "$ctl" $dt bench
expect 0 "$ctl" $dt bench --help
grep -q '^  memcpy ' "$tmp/out" && ok || bad "bench --help lists memcpy"

test_done
