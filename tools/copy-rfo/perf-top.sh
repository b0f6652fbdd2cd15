#!/bin/bash
# Where the sender's CPU goes per KiB sent, by the sampled leaf function, for one TCP flow over
# loopback (sender on CPU 0; receiver on CPU 1 "cross" or CPU 0 "same"):
#   bash tools/copy-rfo/perf-top.sh [SECONDS] > data/copy-rfo/DATE-MACHINE-perf.txt
# perf record -e cpu-clock -F 4999 -a -g around iperf3 -c 127.0.0.1 -A0 -l SIZE -t SECONDS,
# then the CPU 0 samples of iperf3 by leaf (a sample on _raw_spin_unlock_irqrestore, where a
# guest's cpu-clock sample lands after an irqs-off stretch, is named with its caller) in ns per
# KiB sent = samples x sample period / (bytes / 1024). Changes no setting.
set -euo pipefail
secs=${1:-6}
tmp=$(mktemp -d)
. "$(dirname "$0")/../lib/header.sh"
header "$secs"
echo "# perf: $(perf --version)"
header_load before
for place in cross same; do
	cpu=$([ "$place" = same ] && echo 0 || echo 1)
	for size in 1024 4096 8192 16384 32768 65536; do
		iperf3 -s -A"$cpu" -1 -D -p 5298 >/dev/null 2>&1
		sleep 0.3
		perf record -q -e cpu-clock -F 4999 -a -g -o "$tmp/rec.data" -- \
			iperf3 -c 127.0.0.1 -p 5298 -A0 -l "$size" -t "$secs" -J >"$tmp/out.json" 2>/dev/null
		bytes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['end']['sum_sent']['bytes'])" "$tmp/out.json")
		perf script -i "$tmp/rec.data" -C 0 2>/dev/null | awk -v b="$bytes" -v tag="place=$place size=$size" '
			BEGIN { RS = "" }
			/^ *iperf3/ {
				split($0, L, "\n"); top = L[2]
				sub(/^[ \t]*[0-9a-f]+ /, "", top); sub(/\+0x.*/, "", top)
				if (top ~ /unlock_irqrestore/) { c2 = L[3]; sub(/^[ \t]*[0-9a-f]+ /, "", c2); sub(/\+0x.*/, "", c2); top = top "<" c2 }
				split(L[1], h, " "); for (i in h) if (h[i] ~ /^[0-9]+$/ && h[i + 1] ~ /cpu-clock/) per = h[i]
				c[top]++; t++
			}
			END {
				printf "%s bytes=%.0f samples=%d leaf=ALL ns_per_kib=%.1f\n", tag, b, t, t * per / (b / 1024)
				for (k in c) if (c[k] / t > 0.02) printf "%s share=%.1f%% leaf=%s ns_per_kib=%.1f\n", tag, 100 * c[k] / t, k, c[k] * per / (b / 1024)
			}' | sort -t= -k4,4 -rn
		sleep 0.3
	done
done
header_load after
rm -rf "$tmp"
