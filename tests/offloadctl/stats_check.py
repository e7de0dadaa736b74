# SPDX-License-Identifier: MIT
"""offloadctl's statistics (stats.c, through stats_tool) against Python's statistics module.

Random samples of 1 to 200 values -- rates, times, negative and equal values
among them -- and for each: mean, median, sample standard deviation, relative
standard deviation in percent of the mean, min and max, to 1e-12 relative.
    stats_check.py STATS_TOOL
"""
import math
import random
import statistics
import subprocess
import sys

rng = random.Random(20261129)
samples = [[5.0], [1.0, 2.0], [3.0, 3.0, 3.0]]
for _ in range(300):
    n = rng.randint(1, 200)
    kind = rng.choice(("rate", "time", "signed", "ties"))
    if kind == "rate":
        s = [rng.uniform(1e3, 1e9) for _ in range(n)]
    elif kind == "time":
        s = [float(rng.randint(1, 10**12)) for _ in range(n)]
    elif kind == "signed":
        s = [rng.uniform(-100, 100) for _ in range(n)]
    else:
        s = [float(rng.randint(0, 3)) for _ in range(n)]
    samples.append(s)

text = "".join(" ".join(repr(x) for x in s) + "\n" for s in samples)
out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True).stdout
rows = out.splitlines()
assert len(rows) == len(samples), (len(rows), len(samples))


def close(got, want, what, s):
    if math.isnan(want):
        assert math.isnan(got), f"{what}: {got} for {s[:5]}..., expected nan"
    else:
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-9), f"{what}: {got} != {want} for {s[:5]}..."


for s, row in zip(samples, rows):
    n, mean, median, sd, rsd, lo, hi = row.split()
    assert int(n) == len(s)
    close(float(mean), statistics.mean(s), "mean", s)
    close(float(median), statistics.median(s), "median", s)
    want_sd = statistics.stdev(s) if len(s) > 1 else math.nan
    close(float(sd), want_sd, "stddev", s)
    m = statistics.mean(s)
    close(float(rsd), 100.0 * want_sd / m if len(s) > 1 and m > 0 else math.nan, "rsd", s)
    close(float(lo), min(s), "min", s)
    close(float(hi), max(s), "max", s)
print(f"ok: {len(samples)} samples agree with Python's statistics module")
