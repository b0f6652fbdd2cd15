"""Per-transaction socket-timer work from run.sh's perf.data (its `perf script` text on stdin).

A sample is one 1/4999 s tick of one CPU. For each of the three re-arms a tcp_rr side makes per
transaction (the delayed ACK's, the RTO's in tcp_event_new_data_sent, the tail loss probe's), the
samples whose call chain holds its function (sk_reset_timer's own samples are given to the
function that called it: the delayed ACK's is tail-called from tcp_rcv_established), turned into
ns per call with the transactions (argv[1], both ends on loopback: two calls of each per round trip).
"""
import sys

HZ = 4999
KINDS = {
    "delayed ACK (tcp_send_delayed_ack)": ("tcp_send_delayed_ack",),
    "RTO (tcp_rearm_rto)": ("tcp_rearm_rto", "tcp_rearm_rto.part.0"),
    "loss probe (tcp_schedule_loss_probe)": ("tcp_schedule_loss_probe", "tcp_schedule_loss_probe.part.0"),
}
SRT_PARENT = {"tcp_rcv_established": "delayed ACK (tcp_send_delayed_ack)",
              "tcp_send_delayed_ack": "delayed ACK (tcp_send_delayed_ack)",
              "tcp_event_new_data_sent": "RTO (tcp_rearm_rto)",
              "tcp_rearm_rto": "RTO (tcp_rearm_rto)", "tcp_rearm_rto.part.0": "RTO (tcp_rearm_rto)",
              "tcp_schedule_loss_probe": "loss probe (tcp_schedule_loss_probe)",
              "tcp_schedule_loss_probe.part.0": "loss probe (tcp_schedule_loss_probe)"}
transactions = int(sys.argv[1])
counts = {k: 0 for k in KINDS}
total = 0
for block in sys.stdin.read().split("\n\n"):
    lines = [l.split() for l in block.strip().split("\n") if l.strip()]
    if not lines:
        continue
    total += 1
    syms = [l[1] if len(l) > 1 else "?" for l in lines[1:]]
    kind = None
    for k, names in KINDS.items():
        if any(n in syms for n in names):
            kind = k
            break
    if kind is None and "sk_reset_timer" in syms:
        i = syms.index("sk_reset_timer")
        kind = SRT_PARENT.get(syms[i + 1] if i + 1 < len(syms) else "")
    if kind:
        counts[kind] += 1
print(f"samples {total} ({total / HZ:.2f} CPU-s), transactions {transactions}")
all_ns = 0.0
for k, n in counts.items():
    ns = n / HZ * 1e9 / transactions / 2
    all_ns += ns
    print(f"{k}: {n} samples, {ns:.1f} ns per call")
print(f"all three: {all_ns:.1f} ns per side per transaction, {all_ns / 3:.1f} ns per call")
