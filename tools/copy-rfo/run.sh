#!/bin/bash
# What a copy into a buffer costs the writing CPU when the buffer's lines were last read by a
# thread on the other CPU, against the same copy into lines this CPU holds:
#   bash tools/copy-rfo/run.sh [RUNS] > data/copy-rfo/DATE-MACHINE.txt
# Builds copy.c with the system cc, prints the machine (CPU, flags that matter for the user
# copy, kernel, memory cgroup, load), then RUNS times the matrix: copy size 4 / 16 / 64 KiB x
# ring of 0.5, 1, 2 and 4 MiB (about the in-flight bytes of one TCP flow on loopback; this
# guest has 1 MiB of L2 per vCPU) x mode (own: no
# reader; xhand: a reader on CPU 1 takes each buffer without reading it; xread: the reader on
# CPU 1 copies each buffer out, as the receiver copies a page frag out; same: that reader on
# CPU 0; ownstep / xstep / samestep: the same in lock-step, the writer filling the whole ring
# while the reader waits, then the reader copying the whole ring out while the writer waits, so
# that only where the lines sit differs). summarize.py prints the medians over runs. Changes
# no setting.
set -euo pipefail
runs=${1:-3}
. "$(dirname "$0")/../lib/header.sh"
build_tool copy
header "$runs"
echo "# flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -x 'smap\|smep\|erms\|fsrm\|hypervisor' | paste -sd' ')"
echo "# caches: $(lscpu | grep -i 'cache' | sed 's/  */ /g' | paste -sd';')"
echo "# cgroup: $(grep memory /proc/self/cgroup)"
header_load before
for run in $(seq "$runs"); do
	for size in 4096 16384 65536; do
		for ring in 524288 1048576 2097152 4194304; do
			pool=$((ring / size))
			n=$((1000000000 / size))
			for mode in own xhand xread same ownstep xstep samestep; do
				echo "run=$run ring=$ring $("$bin/copy" "$mode" "$size" "$pool" "$n")"
			done
		done
	done
done
header_load after
