#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The verdict of a test run, last, from ctest's JUnit report (ctest --output-junit FILE).

ctest's own summary says "Skipped" and no more. This lists, above the last line:
every failed test, every skipped test with its reason (the "SKIP: ..." line the
test printed, the project's convention), and the cases a passing suite left
out ("SKIP name: ..." lines inside a passing test). The last line counts the
tests passed, failed and skipped, followed by the results of the other steps
given with --step (e.g. --step "clang -Werror build=ok").

    verdict.py JUNIT.xml [--step NAME=RESULT ...]

Exit status 0 when no test failed and every step says "ok", else 1.
"""
import re
import sys
import xml.etree.ElementTree as ET

SKIP_LINE = re.compile(r"^\s*SKIP\b:?\s*(.*)$")


def reason(out):
    """The test's own words for why it did not run: its first SKIP line, else its last line."""
    lines = [l for l in (out or "").splitlines() if l.strip()]
    for l in lines:
        m = SKIP_LINE.match(l)
        if m:
            return m.group(1).strip() or l.strip()
    return lines[-1].strip() if lines else "no reason printed"


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    steps = []
    args = argv[2:]
    while args:
        if args[0] != "--step" or len(args) < 2 or "=" not in args[1]:
            print(f"verdict.py: unexpected argument {args[0]!r}", file=sys.stderr)
            return 2
        steps.append(tuple(args[1].split("=", 1)))
        args = args[2:]
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test.sh: no test results ({argv[1]}: {e}); 0 passed, 0 failed, 0 skipped"
              + "".join(f"; {n}: {r}" for n, r in steps))
        return 1
    passed, failed, skipped, partial = [], [], [], []
    for tc in root.iter("testcase"):
        name, status = tc.get("name", "?"), tc.get("status", "")
        out = tc.findtext("system-out") or ""
        if tc.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped.append((name, reason(out)))
        elif tc.find("failure") is not None or status == "fail":
            failed.append(name)
        else:
            passed.append(name)
            partial += [(name, l.strip()) for l in out.splitlines() if SKIP_LINE.match(l)]
    for name in failed:
        print(f"FAILED  {name}")
    for name, why in skipped:
        print(f"skipped {name}: {why}")
    for name, line in partial:
        print(f"partly  {name}: {line}")
    print(f"test.sh: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped of "
          f"{len(passed) + len(failed) + len(skipped)} tests"
          + "".join(f"; {n}: {r}" for n, r in steps))
    return 0 if not failed and all(r == "ok" for _, r in steps) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
