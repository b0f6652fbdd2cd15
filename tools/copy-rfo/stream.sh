#!/bin/bash
# The sender's CPU time per send of one TCP flow over loopback on this machine, with the
# receiver on the other CPU (cross) or on the sender's CPU (same):
#   bash tools/copy-rfo/stream.sh [RUNS] [SECONDS] > data/copy-rfo/DATE-MACHINE-stream.txt
# iperf3 -s -A1 (or -A0) / iperf3 -c 127.0.0.1 -A0 -l SIZE -t SECONDS -J. The sender's CPU time
# is iperf3's host_total (getrusage of the client: its syscalls and the softirq work they
# run); us per send = host_total x seconds / (bytes / SIZE). Changes no setting.
set -euo pipefail
runs=${1:-3}
secs=${2:-5}
tmp=$(mktemp -d)
. "$(dirname "$0")/../lib/header.sh"
header "$runs" "$secs"
echo "# iperf3: $(iperf3 --version | head -1)"
echo "# tcp_wmem: $(sysctl -n net.ipv4.tcp_wmem | tr '\t' ' ')"
header_load before
for place in cross same; do
	cpu=$([ "$place" = same ] && echo 0 || echo 1)
	iperf3 -s -A"$cpu" -1 -D -p 5299 -I "$tmp/pid" >/dev/null 2>&1 || true
	for run in $(seq "$runs"); do
		for size in 1024 4096 16384 65536; do
			iperf3 -s -A"$cpu" -1 -D -p 5299 -I "$tmp/pid" >/dev/null 2>&1 || true
			sleep 0.3
			iperf3 -c 127.0.0.1 -p 5299 -A0 -l "$size" -t "$secs" -J >"$tmp/out.json"
			python3 - "$tmp/out.json" "$place" "$run" "$size" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))['end']
place, run, size = sys.argv[2], sys.argv[3], int(sys.argv[4])
s, c = d['sum_sent'], d['cpu_utilization_percent']
sends = s['bytes'] / size
us = c['host_total'] / 100 * s['seconds'] / sends * 1e6
rus = c['remote_total'] / 100 * s['seconds'] / sends * 1e6
print(f"place={place} run={run} size={size} bytes={s['bytes']} seconds={s['seconds']:.3f} "
      f"gbytes_per_s={s['bytes'] / s['seconds'] / 1e9:.3f} sender_cpu={c['host_total']:.1f} "
      f"receiver_cpu={c['remote_total']:.1f} sender_us_per_send={us:.3f} "
      f"receiver_us_per_send={rus:.3f} sender_us_per_kib={us / (size / 1024):.3f}")
PY
			sleep 0.3
		done
	done
done
header_load after
rm -rf "$tmp"
