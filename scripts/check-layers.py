#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that includes between the library's directories only go down.

The layers of liboffload, top to bottom (docs/architecture.md):

    src/core -> src/policy -> backends/* -> src/driver -> src/platform -> src/dt -> src/util

src/hw (register facts) is a leaf that backends and the models share.
src/sim (liboffload-sim) implements the platform's simulation provider: it
may include src/platform/sim_provider.h and the leaves (hw, dt, util), never
the library above them. A backend includes no other backend. The public
headers (<offload/...>) are the contract every part may use, except
liboffload-sim's <offload/sim.h>, which only liboffload-sim and the programs
linking it (the CLI, the Python module, the tests) include; only quoted
includes ("dir/file.h") are edges of the graph.

Usage: check-layers.py [--root DIR] [--graph]
Exit 0 when every edge goes down and the directory graph has no cycle,
1 otherwise (each offending include is printed as file:line), 2 on bad usage.
"""
import argparse
import os
import re
import sys

# rank: a directory may include directories of a lower rank only
RANKS = {
    "src/core": 70,
    "src/policy": 60,
    "backends": 50,      # every backends/<engine>
    "src/driver": 40,
    "src/platform": 30,
    "src/dt": 20,
    "src/util": 10,
    "src/hw": 0,
}
# liboffload-sim: beside the library, reaching it only through the provider header
SIM_MAY = {"src/hw", "src/dt", "src/util"}
SIM_SEAM = "src/platform/sim_provider.h"
SCANNED = ("src", "backends")
SKIP = ("src/offloadctl",)   # the CLI includes only public headers (its own check: none here)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# liboffload-sim's public header: for the programs that link it, never for liboffload
SIM_HEADER = re.compile(r'^\s*#\s*include\s+[<"]offload/sim\.h[>"]')


def module_of(rel):
    """The module (directory) a repository-relative path belongs to, or None."""
    parts = rel.split("/")
    if parts[0] == "backends" and len(parts) > 2:
        return "backends/" + parts[1]
    if parts[0] == "src" and len(parts) > 2:
        return "src/" + parts[1]
    return None


def rank_of(mod):
    if mod.startswith("backends/"):
        return RANKS["backends"]
    return RANKS.get(mod)


def resolve(root, src_rel, inc):
    """Repository-relative path of a quoted include, or None if it is not a project file."""
    here = os.path.dirname(src_rel)
    for base in (here, "src", "backends"):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def scan(root):
    """Edges between modules, and the library's includes of <offload/sim.h> (file, line)."""
    edges = []  # (from_module, to_module, file, line, included path)
    sim_header = []
    for top in SCANNED:
        for dirpath, _dirs, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                if rel.startswith(SKIP):
                    continue
                src_mod = module_of(rel)
                if not src_mod:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        if src_mod != "src/sim" and SIM_HEADER.match(line):
                            sim_header.append((rel, n))
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(root, rel, m.group(1))
                        if not target:
                            continue
                        dst_mod = module_of(target)
                        if dst_mod and dst_mod != src_mod:
                            edges.append((src_mod, dst_mod, rel, n, target))
    return edges, sim_header


def violation(src, dst, target):
    """Why the edge src -> dst is not allowed, or None."""
    if src == "src/sim":
        if dst in SIM_MAY or target == SIM_SEAM:
            return None
        return "liboffload-sim reaches the library only through " + SIM_SEAM
    if dst == "src/sim":
        return "only the platform's simulation provider interface may lead to the models"
    rs, rd = rank_of(src), rank_of(dst)
    if rs is None or rd is None:
        return "unknown module"
    if src.startswith("backends/") and dst.startswith("backends/"):
        return "a backend includes no other backend (an engine is one directory)"
    if rd >= rs:
        return "upward include (%s is not below %s)" % (dst, src)
    return None


def cycles(edges):
    graph = {}
    for s, d, *_ in edges:
        graph.setdefault(s, set()).add(d)
    found, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                c = stack[stack.index(m):]
                k = c.index(min(c))
                c = c[k:] + c[:k]
                if c + [c[0]] not in found:
                    found.append(c + [c[0]])
            elif not state.get(m):
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if not state.get(n):
            visit(n)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--graph", action="store_true", help="print the module graph (edges and counts)")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    if not os.path.isdir(os.path.join(root, "src")):
        print("check-layers: %s has no src/" % root, file=sys.stderr)
        return 2
    edges, sim_header = scan(root)
    if a.graph:
        count = {}
        for s, d, *_ in edges:
            count[(s, d)] = count.get((s, d), 0) + 1
        for (s, d), c in sorted(count.items()):
            print("%-18s -> %-18s %3d include%s" % (s, d, c, "" if c == 1 else "s"))
    bad = 0
    for s, d, f, n, t in edges:
        why = violation(s, d, t)
        if why:
            print("%s:%d: includes %s: %s" % (f, n, t, why))
            bad += 1
    for f, n in sim_header:
        print("%s:%d: includes <offload/sim.h>: liboffload knows the models only as the simulation "
              "provider (%s)" % (f, n, SIM_SEAM))
        bad += 1
    for c in cycles(edges):
        print("cycle between directories: " + " -> ".join(c))
        bad += 1
    if bad:
        print("check-layers: %d problem%s" % (bad, "" if bad == 1 else "s"))
        return 1
    print("check-layers: %d includes between modules, all downward, no cycle" % len(edges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
