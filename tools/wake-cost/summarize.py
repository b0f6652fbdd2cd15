"""Medians over runs of wake.c's per-run medians (ns), with the spread (min-max over runs).
Usage: python3 tools/wake-cost/summarize.py data/wake-cost/FILE.txt"""
import re
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.match(r"run=\d+ (\w+) (\w+) gap_us=(\d+)", line)
    if not m:
        continue
    key = (m.group(1), m.group(2), int(m.group(3)))
    for metric in ("call", "cpu", "wake", "rt"):
        p = re.search(metric + r" p10=\d+ p50=(\d+) p90=(\d+)", line)
        if p:
            rows.setdefault(key, {}).setdefault(metric, []).append(int(p.group(1)))
print("kind     mode    gap_us  runs  call p50          cpu p50           wake p50           rt p50")
for key in sorted(rows):
    cells = []
    for metric in ("call", "cpu", "wake", "rt"):
        v = rows[key].get(metric)
        if v:
            cells.append(f"{statistics.median(v):7.0f} [{min(v)}-{max(v)}]".ljust(18))
        else:
            cells.append("-".ljust(18))
    n = len(rows[key]["call"])
    print(f"{key[0]:8} {key[1]:7} {key[2]:6} {n:5}  " + " ".join(cells))
