#!/bin/bash
# What waking a blocked thread on another (idle) CPU costs the waker on this machine:
#   bash tools/wake-cost/run.sh [RUNS] > data/wake-cost/DATE-MACHINE.txt
# Builds wake.c with the system cc, prints the machine (CPU, kernel, cpuidle driver and the
# haltpoll parameters, clocksource, load), then RUNS times the matrix: futex / eventfd / pipe
# x block at three gaps (50 us, 200 us, 2 ms: how long the wakee's CPU has been idle) and
# the controls (spin: the wakee awake and polling, nothing to wake; nowait: no wakee; same:
# both threads on CPU 0, the wakee preempting the waker; local: both on CPU 0, the wakee
# SCHED_IDLE so that the call is the local wakeup alone), 1,000 wakeups each (a tenth more
# to warm up). summarize.py prints the medians over runs.
# Reads sysfs only; changes no setting.
set -euo pipefail
runs=${1:-3}
. "$(dirname "$0")/../lib/header.sh"
build_tool wake
header "$runs"
echo "# clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "# cpuidle: driver $(cat /sys/devices/system/cpu/cpuidle/current_driver)," \
	"governor $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || echo -)"
for s in /sys/devices/system/cpu/cpu1/cpuidle/state*; do
	[ -e "$s/name" ] && echo "# idle state $(basename "$s"): $(cat "$s/name") latency $(cat "$s/latency") us, usage $(cat "$s/usage")"
done
for p in /sys/module/haltpoll/parameters/*; do
	[ -e "$p" ] && echo "# haltpoll $(basename "$p")=$(cat "$p")"
done
echo "# hypervisor: $( (dmesg 2>/dev/null || true) | grep -o 'Hypervisor detected: .*\|setup PV IPIs\|x2apic enabled' | paste -sd';' )"
echo "# cmdline idle/haltpoll: $(grep -o 'idle=[^ ]*\|[a-z_]*haltpoll[^ ]*' /proc/cmdline | paste -sd' ' || true)"
header_load before
for run in $(seq "$runs"); do
	for kind in futex eventfd pipe; do
		for gap in 50 200 2000; do
			n=1000
			echo "run=$run $("$bin/wake" "$kind" block "$gap" "$n")"
		done
		for mode in spin nowait same local; do
			echo "run=$run $("$bin/wake" "$kind" "$mode" 200 1000)"
		done
	done
done
header_load after
