"""Medians over runs of copy.c's per-run median ns per KiB, with the spread (min-max), and of
stream.sh's sender and receiver us per send.
Usage: python3 tools/copy-rfo/summarize.py data/copy-rfo/FILE.txt [data/copy-rfo/FILE-stream.txt]"""
import re
import statistics
import sys


def kv(line):
    return dict(re.findall(r"(\w+)=([\w.]+)", line))


def spread(v):
    return f"{statistics.median(v):7.1f} [{min(v):.1f}-{max(v):.1f}]".ljust(24)


rows, reader = {}, {}
for line in open(sys.argv[1]):
    if line.startswith("run="):
        d = kv(line)
        key = (int(d["size"]), int(d["ring"]), d["mode"])
        rows.setdefault(key, []).append(float(d["median_ns_per_kib"]))
        if "reader_median_ns_per_kib" in d:
            reader.setdefault(key, []).append(float(d["reader_median_ns_per_kib"]))
print("size   ring_kib  mode      runs  writer ns/KiB median [min-max]  reader ns/KiB (lock-step)")
for key in sorted(rows):
    r = spread(reader[key]) if key in reader else "-"
    print(f"{key[0]:6} {key[1] // 1024:8}  {key[2]:9} {len(rows[key]):4}  {spread(rows[key])}  {r}")
if len(sys.argv) > 2:
    cells = {}
    for line in open(sys.argv[2]):
        if line.startswith("place="):
            d = kv(line)
            key = (d["place"], int(d["size"]))
            for m in ("sender_us_per_send", "receiver_us_per_send", "gbytes_per_s"):
                cells.setdefault(key, {}).setdefault(m, []).append(float(d[m]))
    print("\nplace  size   sender us/send          receiver us/send        GB/s")
    for key in sorted(cells):
        c = cells[key]
        print(f"{key[0]:6} {key[1]:6} " + " ".join(spread(c[m]) for m in
              ("sender_us_per_send", "receiver_us_per_send", "gbytes_per_s")))
