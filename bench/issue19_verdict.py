#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue #19's targets, one verdict line each, from the outputs bench/issue19.sh saved.

    issue19_verdict.py table FILE.json       a bench memcpy --json sweep as a table
    issue19_verdict.py verdict DIR           every target: met / not met / not judged

A wall-clock figure counts only from rounds the benchmark kept as quiet (other
processes under 5 % of the CPUs); a row that had none (BUSY) or a file that is
missing gives "not judged", never "met". After idle, the sweep also times plain
memcpy in a second pass function (ratio_aa, the harness's own A/A bias): a
library ratio that misses its floor by less than the A/A's distance from 1.00
is "NOT RESOLVED", never "met" nor "NOT MET".
"""
import json
import os
import re
import sys

KIB, MIB = 1 << 10, 1 << 20


def human(n):
    if n >= MIB and n % MIB == 0:
        return "%d MiB" % (n // MIB)
    if n >= KIB and n % KIB == 0:
        return "%d KiB" % (n // KIB)
    return "%d B" % n


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("  (%s: %s)" % (path, e))
        return None


def kept(row):
    """Rounds kept, as the tables say: 'BUSY' when none was quiet."""
    if row.get("quiet") is False:
        return "BUSY 0/%d" % row["rounds_tried"]
    return "%d/%d" % (row["rounds"], row["rounds_tried"])


def table(path):
    d = load(path)
    if not d:
        return 1
    print("%9s %9s %9s %6s %6s %9s %9s %6s %9s %6s %10s" % (
        "size", "lib MB/s", "memcpy", "ratio", "A/A", "2thr", "2thr-nt", "/best2", "overhead", "fail",
        "rounds"))
    for r in d["rows"]:
        two = r.get("two_thread_MBps")
        nt = r.get("two_thread_nt_MBps")
        best = r.get("ratio_best_two_thread")
        aa = r.get("ratio_aa")
        print("%9s %9.0f %9.0f %6.2f %6s %9s %9s %6s %7.1f ns %6d %10s" % (
            human(r["size"]), r["lib_MBps"], r["memcpy_MBps"], r["ratio"],
            "-" if aa is None else "%.2f" % aa,
            "-" if two is None else "%.0f" % two, "-" if nt is None else "%.0f" % nt,
            "-" if best is None else "%.2f" % best, r["overhead_ns"], r["failures"], kept(r)))
    return 0


class Verdicts:
    def __init__(self):
        self.met = self.missed = self.unjudged = self.unresolved = 0

    def say(self, target, ok, figure, busy=False, bias=None):
        """bias: a missed target's harness A/A ratio when the miss is within it."""
        if busy or ok is None:
            self.unjudged += 1
            word = "not judged"
        elif ok:
            self.met += 1
            word = "met"
        elif bias is not None:
            self.unresolved += 1
            word = "NOT RESOLVED (harness A/A %.2f)" % bias
        else:
            self.missed += 1
            word = "NOT MET"
        print("  %-62s %-10s %s" % (target, word, figure))


def within_bias(x, floor, aa):
    """x misses floor by less than the A/A ratio's own distance from 1.00 (rounded
    to the JSON's 4 decimals, so that float noise decides no row)."""
    return aa is not None and round(floor - x, 4) < round(abs(aa - 1.0), 4)


def memcpy_targets(v, d, what, key, floor, smallest, tag):
    """Every row from `smallest` up: row[key] >= floor; a miss within the row's
    A/A bias (ratio_aa, --mode idle) is not resolved."""
    if not d:
        v.say("memcpy %s: %s >= %.2f" % (tag, what, floor), None, "no output")
        return
    for r in d["rows"]:
        if r["size"] < smallest:
            continue
        x = r.get(key)
        busy = r.get("quiet") is False
        if r["failures"]:
            v.say("memcpy %s %s: copies verified" % (tag, human(r["size"])), False,
                  "%d mismatches" % r["failures"])
        aa = r.get("ratio_aa") if key == "ratio" else None
        v.say("memcpy %s %s: %s >= %.2f" % (tag, human(r["size"]), what, floor),
              None if x is None else x >= floor,
              ("%.2f" % x if x is not None else "-") + " (rounds %s%s)" % (
                  kept(r), "" if aa is None else "; A/A %.2f" % aa),
              busy, aa if x is not None and within_bias(x, floor, aa) else None)


def percall_targets(v, d):
    if not d:
        v.say("memcpy per call below 4 KiB: <= 2 ns added", None, "no output")
        return
    for r in d["rows"]:
        if r["size"] >= 4 * KIB:
            continue
        v.say("memcpy per call %s: <= 2.0 ns added over memcpy" % human(r["size"]),
              r["overhead_ns"] <= 2.0, "%+.1f ns (rounds %s)" % (r["overhead_ns"], kept(r)),
              r.get("quiet") is False)


def cipher_targets(v, d, oneshot):
    if not d:
        v.say("crypto %s" % ("one-shot hash" if oneshot else "sessions"), None, "no output")
        return
    res = {}
    for r in d["results"]:
        res[(r["alg"], r["size"], r["config"])] = r
    floors = {16: 0.85} if oneshot else {16: 0.90, 8192: 0.97}
    for row in d.get("ab", {}).get("rows", []):
        for c in row["cells"]:
            if c["size"] not in floors:
                continue
            a, b = res.get((row["alg"], c["size"], "evp")), res.get((row["alg"], c["size"], "cpu"))
            busy = any(x is None or x.get("quiet") is False for x in (a, b))
            ratio = 1.0 + c["change_percent"] / 100.0
            name = ("offload_hash() / EVP_Digest() %s" % row["alg"]) if oneshot else \
                "%s session / EVP" % row["alg"]
            v.say("crypto %s %d B: >= %.2f" % (name, c["size"], floors[c["size"]]),
                  ratio >= floors[c["size"]],
                  "%.3f (noise %.1f %%; rounds EVP %s)" % (ratio, c["noise_percent"],
                                                       ", library ".join(kept(x) if x else "-" for x in (a, b))),
                  busy)


def text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def ctx_open_target(v, t):
    m = t and re.search(r"^offload_ctx_open \(all\)\s+min\s+([\d.]+) us\s+median\s+([\d.]+) us(.*)$",
                        t, re.M)
    if not m:
        v.say("context open, 122 KB J721E tree: <= 250 us", None, "no output")
        return
    med = float(m.group(2))
    v.say("context open, 122 KB J721E tree: median <= 250 us", med <= 250.0,
          "%.1f us" % med, "BUSY" in m.group(3))


def dmadev_target(v, t):
    m = t and re.search(r"^\s*32\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([-\d.]+)\s+(.*)$", t, re.M)
    if not m:
        why = "skipped: " + t.strip().splitlines()[-1] if t and "SKIP" in t else "no output"
        v.say("queue vs DPDK dmadev, batch 32: >= 4x cheaper per op", None, why)
        return
    x = float(m.group(4))
    v.say("queue vs DPDK dmadev, batch 32: >= 4x cheaper per op", x >= 4.0,
          "%.1fx (%s vs %s ns; rounds %s)" % (x, m.group(2), m.group(3), m.group(6).strip()),
          "BUSY" in m.group(6))


def cache_target(v, t):
    if not t:
        v.say("streaming-store threshold from sysfs cache sizes", None, "no output")
        return
    m = re.search(r"non-temporal from ([^(]*)\(([^)]*\))", t)
    if not m:
        v.say("streaming-store threshold from sysfs cache sizes", None,
              "no threshold stated (not x86-64?)")
        return
    v.say("streaming-store threshold from sysfs cache sizes", "(sysfs)" in m.group(2),
          "from %s(%s" % (m.group(1), m.group(2)))


def verdict(out):
    v = Verdicts()
    j = lambda n: load(os.path.join(out, n)) if os.path.exists(os.path.join(out, n)) else None
    b2b, idle, busy = j("memcpy_b2b.json"), j("memcpy_idle.json"), j("memcpy_busy.json")
    print("issue #19 targets (wall-clock figures only from quiet rounds; BUSY rows are not judged):")
    memcpy_targets(v, b2b, "x memcpy", "ratio", 0.95, 4 * KIB, "back to back")
    memcpy_targets(v, idle, "x memcpy", "ratio", 0.95, 4 * KIB, "after idle")
    memcpy_targets(v, busy, "x memcpy", "ratio", 0.95, 4 * KIB, "other core busy")
    memcpy_targets(v, b2b, "x best two-thread copy", "ratio_best_two_thread", 0.95, 4 * MIB,
                   "back to back")
    percall_targets(v, b2b)
    cache_target(v, text(os.path.join(out, "list.txt")))
    cipher_targets(v, j("cipher_sessions.json"), False)
    cipher_targets(v, j("cipher_oneshot.json"), True)
    ctx_open_target(v, text(os.path.join(out, "ctx_open.txt")))
    dmadev_target(v, text(os.path.join(out, "dmadev.txt")))
    print("issue #19: %d met, %d not met, %d not judged (busy or not run)%s" % (
        v.met, v.missed, v.unjudged,
        ", %d not resolved (within the harness's A/A bias)" % v.unresolved if v.unresolved else ""))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "table":
        return table(argv[2])
    if len(argv) == 3 and argv[1] == "verdict":
        return verdict(argv[2])
    sys.stderr.write("usage: issue19_verdict.py table FILE.json | verdict DIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
