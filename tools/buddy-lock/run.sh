#!/bin/bash
# Measures the buddy's work under zone->lock on this machine (root, bpftrace with BTF):
#   bash tools/buddy-lock/run.sh [SECONDS]
# 1. two page-allocator loops (load.c, one per vCPU) under buddy-lock.bt;
# 2. an iperf3 loopback stream (order-3 page frags) under buddy-lock.bt;
# 3. probe-cost.bt around getppid (getppid.c): the same timing around a syscall that does
#    almost nothing, meant to bound the probe's own share of each iteration (on a loaded
#    guest it varies more than the iteration itself: docs/calibration.md);
# 4. the core clock (clock.c) and summarize.py's table: per merge / split step count the
#    mean ns per loop iteration under zone->lock, and the slope over the steps.
set -euo pipefail
secs=${1:-15}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/buddy-lock}
mkdir -p "$out"
gcc -O2 -o "$out/load" "$here/load.c"
gcc -O2 -o "$out/getppid" "$here/getppid.c"
gcc -O2 -o "$out/clock" "$here/clock.c"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
trace() { # name, then the load command
	local name=$1; shift
	bpftrace "$here/buddy-lock.bt" $((secs + 2)) > "$out/$name.txt" 2>&1 &
	local bt=$!
	sleep 2
	"$@"
	wait $bt
}
pages() {
	"$out/load" 64 "$secs" > /dev/null & local other=$!
	"$out/load" 64 "$secs" > /dev/null
	wait $other
}
stream() {
	iperf3 -s -1 -p 5299 > /dev/null 2>&1 & local server=$!
	sleep 0.5
	iperf3 -c 127.0.0.1 -p 5299 -t "$secs" > /dev/null
	wait $server
}
uptime > "$out/load-before.txt"
trace pages pages
trace stream stream
"$out/getppid" $((secs + 4)) & gp=$!
sleep 0.5
bpftrace "$here/probe-cost.bt" "$secs" "$gp" > "$out/probe-cost.txt" 2>&1 || true
wait $gp
uptime > "$out/load-after.txt"
for i in 1 2 3; do "$out/clock" 3000; done > "$out/clock.txt"
python3 "$here/summarize.py" "$out/pages.txt" "$out/stream.txt" "$out/probe-cost.txt"
cat "$out/clock.txt" "$out/load-before.txt" "$out/load-after.txt"
