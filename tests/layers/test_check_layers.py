#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering check's own test (ctest layers_selftest).

scripts/check-layers.py runs on a scratch copy of src/ and backends/: the
copy passes as the tree does; then one bad include at a time is planted in
it (an upward include, a cycle, one backend including another, the models
reaching into the library, the library including liboffload-sim's header)
and the check must fail, naming the file and line it was planted at and
the rule. A check that cannot fail would pass every tree.

Usage: test_check_layers.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
SCRIPT = os.path.join(SRC or ".", "scripts", "check-layers.py")
fails = 0


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def copy_tree(dst):
    for top in ("src", "backends"):
        shutil.copytree(os.path.join(SRC, top), os.path.join(dst, top))


def plant(root, rel, line):
    """Insert `line` after the first #include of file `rel`; its line number."""
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    at = next(i for i, t in enumerate(text) if t.startswith("#include")) + 1
    text.insert(at, line)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(text))
    return at + 1


def check(name, ok, detail):
    global fails
    if ok:
        print("ok: " + name)
    else:
        print("FAIL: %s\n%s" % (name, detail))
        fails += 1


def main():
    if not SRC or not os.path.isfile(SCRIPT):
        print("usage: test_check_layers.py SOURCE_DIR", file=sys.stderr)
        return 2
    # (name, file to plant in, line, what the message must say)
    cases = [
        ("upward include (dt -> core)", "src/dt/discover.c", '#include "core/internal.h"',
         "upward include (src/core is not below src/dt)"),
        ("upward include (platform -> policy)", "src/platform/mmio.c", '#include "policy/policy.h"',
         "upward include (src/policy is not below src/platform)"),
        ("backend includes a backend", "backends/dspi/probe.c", '#include "udma/udma.h"',
         "a backend includes no other backend"),
        ("backend includes the models", "backends/eip97/probe.c", '#include "sim/sim.h"',
         "only the platform's simulation provider interface may lead to the models"),
        ("models include the library", "src/sim/sim.c", '#include "core/internal.h"',
         "liboffload-sim reaches the library only through src/platform/sim_provider.h"),
        ("library includes <offload/sim.h>", "src/core/context.c", "#include <offload/sim.h>",
         "includes <offload/sim.h>: liboffload knows the models only as the simulation provider"),
    ]
    with tempfile.TemporaryDirectory(prefix="layers-") as tmp:
        clean = os.path.join(tmp, "clean")
        copy_tree(clean)
        rc, out = run(clean)
        check("the tree as it is passes", rc == 0 and "all downward, no cycle" in out, out)
        for name, rel, line, want in cases:
            root = os.path.join(tmp, "case")
            shutil.rmtree(root, ignore_errors=True)
            copy_tree(root)
            n = plant(root, rel, line)
            rc, out = run(root)
            where = "%s:%d:" % (rel, n)
            check(name, rc == 1 and any(l.startswith(where) and want in l for l in out.splitlines()),
                  "exit %d, wanted a line starting %s with \"%s\" in:\n%s" % (rc, where, want, out))
        # a cycle: util -> dt is upward, and dt -> util closes the loop
        root = os.path.join(tmp, "cycle")
        copy_tree(root)
        plant(root, "src/util/util.c", '#include "dt/dt.h"')
        rc, out = run(root)
        check("a cycle between directories", rc == 1 and
              "cycle between directories: src/dt -> src/util -> src/dt" in out, out)
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
