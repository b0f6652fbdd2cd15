#!/bin/bash
# What re-arming a TCP socket's timers costs per transaction on this machine:
#   bash tools/timer-cost/run.sh [SECONDS] > data/timer-cost/DATE-MACHINE.txt
# A loopback TCP ping-pong (sockperf server + sockperf ping-pong, one flow, 64-byte
# messages, on 127.0.0.1) runs twice for SECONDS:
#   1. under `perf record -e timer:timer_start -g`: the timers __mod_timer (re)queued on the
#      wheel, counted by the TCP function that re-armed them (sk_reset_timer's callers); a
#      re-arm that stays in its bucket returns early and fires no event;
#   2. under `perf record -a -g -e cpu-clock`, for the CPU time spent in the three re-arms
#      (tcp_send_delayed_ack, tcp_rearm_rto, tcp_schedule_loss_probe, each with its
#      sk_reset_timer -> __mod_timer) over every CPU.
# The transactions of each run are sockperf's received messages. Prints the raw lines; the
# figures (ns per call of each re-arm, with its caller's timeout computation) are derived by
# summarize.py at the end.
# Changes no setting; needs root for perf.
set -euo pipefail
secs=${1:-10}
port=${PORT:-12399}
out=${OUT:-/tmp/timer-cost}
mkdir -p "$out"
. "$(dirname "$0")/../lib/header.sh"
header "$secs"
echo "# sockperf: $(sockperf --version 2>&1 | head -1); perf: $(perf --version)"
header_load before
sockperf sr --tcp -i 127.0.0.1 -p "$port" >"$out/server.log" 2>&1 &
srv=$!
trap 'kill "$srv" 2>/dev/null || true' EXIT
sleep 1
# Round trips of the whole run (perf records the warm-up too): the [Total Run] line.
msgs() { sed -n 's/.*Total Run.*ReceivedMessages=\([0-9]*\).*/\1/p' | head -1; }

# 1. Enqueues: the timer:timer_start tracepoint fires when __mod_timer (re)queues a timer on
# the wheel (not when a re-arm stays in its bucket), with the call chain that armed it.
perf record -q -a -g -e timer:timer_start -o "$out/start.data" -- \
	sockperf pp --tcp -i 127.0.0.1 -p "$port" -m 64 -t "$secs" >"$out/pp1.txt" 2>&1
echo "## run 1 (timer:timer_start): sockperf"
grep -E "Summary|ReceivedMessages|avg-lat" "$out/pp1.txt" || true
perf script -i "$out/start.data" -F comm,ip,sym 2>/dev/null >"$out/start.txt"
echo "## run 1: timer_start events, and those under sk_reset_timer by its caller"
echo "all $(grep -c enqueue_timer "$out/start.txt")"
echo "sk_reset_timer $(grep -cw sk_reset_timer "$out/start.txt")"
awk '$2 == "sk_reset_timer" { getline; print "  from", $2 }' "$out/start.txt" | sort | uniq -c | sort -rn
n1=$(msgs <"$out/pp1.txt")

# 2. CPU time.
perf record -q -a -g -e cpu-clock -F 4999 -o "$out/perf.data" -- \
	sockperf pp --tcp -i 127.0.0.1 -p "$port" -m 64 -t "$secs" >"$out/pp2.txt" 2>&1
echo "## run 2 (perf): sockperf"
grep -E "Summary|ReceivedMessages|avg-lat" "$out/pp2.txt" || true
n2=$(msgs <"$out/pp2.txt")
perf report -i "$out/perf.data" --children --sort sym --stdio -g none 2>/dev/null >"$out/report.txt"
echo "## run 2 (perf): cpu-clock at 4999 Hz on all $(nproc) CPUs (idle included) for $secs s;" \
	"children / self % of all samples"
grep -m2 "^# Samples\|^# Event count" "$out/report.txt" || true
grep -E "\] (sk_reset_timer|mod_timer|__mod_timer|lock_timer_base|tcp_send_delayed_ack|tcp_rearm_rto|tcp_schedule_loss_probe|tcp_v4_rcv|tcp_sendmsg|tcp_recvmsg|do_idle|entry_SYSCALL_64)\s*$" "$out/report.txt" || true
echo "## transactions: run 1 $n1, run 2 $n2"
echo "## run 2: the three re-arms per side (summarize.py; transactions of run 2, both ends)"
perf script -i "$out/perf.data" -F comm,ip,sym 2>/dev/null | python3 "$(dirname "$0")/summarize.py" "$n2"
header_load after
