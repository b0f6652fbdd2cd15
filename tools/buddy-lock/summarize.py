#!/usr/bin/env python3
"""Summarizes buddy-lock.bt output: per merge / split step count, the samples, mean and
median ns per loop iteration, and the count-weighted least-squares slope of the mean and
of the median over the step count (ns per step; the probe's constant cost drops out).
Usage: summarize.py FILE...  (MIN_COUNT=N in the environment)"""
import re
import sys


def parse(text):
    stats, hists, cur = {}, {}, None
    for line in text.splitlines():
        m = re.match(r"@(\w+)_ns\[(\d+)\]: count (\d+), average (\d+)", line)
        if m:
            stats.setdefault(m[1], {})[int(m[2])] = (int(m[3]), int(m[4]))
            continue
        m = re.match(r"@(\w+)_hist\[(\d+)\]:", line)
        if m:
            cur = hists.setdefault(m[1], {}).setdefault(int(m[2]), [])
            continue
        m = re.match(r"\[(\d+), (\d+|\.\.\.)\)\s+(\d+)", line)
        if m and cur is not None:
            lo = int(m[1])
            hi = lo + 25 if m[2] == "..." else int(m[2])
            cur.append(((lo + hi) / 2, int(m[3])))
        elif not line.strip():
            cur = None
    return stats, hists


def median(buckets):
    n = sum(c for _, c in buckets)
    acc = 0
    for mid, c in sorted(buckets):
        acc += c
        if 2 * acc >= n:
            return mid
    return float("nan")


def slope(points):
    w = sum(c for _, _, c in points)
    if w == 0 or len(points) < 2:
        return float("nan")
    mx = sum(x * c for x, _, c in points) / w
    my = sum(y * c for _, y, c in points) / w
    sxx = sum(c * (x - mx) ** 2 for x, _, c in points)
    sxy = sum(c * (x - mx) * (y - my) for x, y, c in points)
    return sxy / sxx if sxx else float("nan")


def summary(path, min_count):
    """Per loop (drain, refill): the 0-step mean, the slope of the means over steps >= 0 and
    over steps >= 1 (groups of at least min_count samples)."""
    stats, hists = parse(open(path).read())
    out = {}
    for name, rows in sorted(stats.items()):
        print(f"{path} {name}: steps samples mean median")
        pts = []
        for k in sorted(rows):
            n, mean = rows[k]
            med = median(hists.get(name, {}).get(k, []))
            print(f"  {k} {n} {mean} {med:.0f}")
            if n >= min_count:
                pts.append((k, mean, n))
        base = rows[0][1] if 0 in rows else float("nan")
        out[name] = (base, slope(pts), slope([p for p in pts if p[0] >= 1]))
        print(f"  0-step mean {base} ns; slope over steps >= 0: {out[name][1]:.1f} ns/step, "
              f"over steps >= 1: {out[name][2]:.1f}")
    return out


def middle(xs):
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return float("nan")
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def main():
    """Usage: summarize.py FILE... (MIN_COUNT from the environment, default 20); with several
    files, the median over them of each figure."""
    import os
    min_count = int(os.environ.get("MIN_COUNT", "20"))
    runs = [summary(p, min_count) for p in sys.argv[1:]]
    if len(runs) > 1:
        for name in sorted({n for r in runs for n in r}):
            got = [r[name] for r in runs if name in r]
            print(f"median over {len(got)} runs, {name}: 0-step {middle([g[0] for g in got]):.0f} ns, "
                  f"slope >= 0 {middle([g[1] for g in got]):.1f} ns/step, >= 1 {middle([g[2] for g in got]):.1f}")


main()
