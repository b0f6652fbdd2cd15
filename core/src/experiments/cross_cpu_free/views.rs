//! The text views and the flame graph of a `cross-cpu-free` run: iperf's (or netperf's)
//! report, where each receiver CPU's time goes (perf-style), SLUB's per-CPU slow-path
//! counters, and the receiver's busy time as one flame graph.

use super::world::RunResult;
use super::{per_60s, Input, Summary, Workload};
use crate::output::TextView;
use crate::sim::profile::FlameGraph;
use std::fmt::Write as _;

/// The text views and the flame graph of `input`'s run `r` (summarized as `s`).
pub(super) fn of(input: &Input, r: &RunResult, s: &Summary) -> (Vec<TextView>, FlameGraph) {
    let title = match input.workload {
        Workload::UdpIperf => format!(
            "receiver CPU time, udp-iperf {} B, consumer={}, shinfo_split={}, defer_free={}",
            input.datagram_bytes,
            crate::params::Choice::name(input.consumer),
            input.shinfo_split,
            input.defer_free
        ),
        Workload::Tcp100g => {
            format!("receiver CPU time, tcp-100g, defer_free={}: {:.1} Gbit/s", input.defer_free, s.mbps / 1000.0)
        }
    };
    let texts = vec![
        TextView::new("iperf", "iperf / netperf report (simulated)", iperf_text(input, s, r)),
        TextView::new("profile", "where the time goes (perf-style, % of each CPU)", profile_text(r, &title)),
        TextView::new("counters", "SLUB slow-path counters per CPU", counters_text(r)),
    ];
    (texts, flame(r, &title))
}

/// iperf's client and server report for a run, in the seed's layout.
fn iperf_text(input: &Input, s: &Summary, r: &RunResult) -> String {
    let mut out = String::new();
    if input.workload == Workload::Tcp100g {
        let rfs = if input.rfs { "RFS on" } else { "RSS only, RFS off" };
        let _ = writeln!(out, "netperf -t TCP_STREAM (one flow, 100 Gbit/s NIC, {rfs}, page recycling failing)");
        let _ = writeln!(out, "defer_free (skb_attempt_defer_free): {}", if input.defer_free { "on" } else { "off" });
        let _ = writeln!(out, "Throughput: {:.0} Mbit/s ({:.1} Gbit/s)", s.mbps, s.mbps / 1000.0);
        let _ = writeln!(out, "Frames received (1448 B payload each), scaled to 60 s: {:.0}", s.datagrams);
        simulated_line(&mut out, r, "");
        return out;
    }
    let bytes = s.datagrams * f64::from(input.datagram_bytes);
    let _ = writeln!(out, "iperf -c qarun -m -t 60 -u -b 10000M -l {}", input.datagram_bytes);
    let _ = writeln!(out, "Sending {} byte datagrams", input.datagram_bytes);
    let _ = writeln!(out, "[ ID] Interval       Transfer     Bandwidth");
    let _ = writeln!(out, "[  3]  0.0-60.0 sec  {:>5.0} MBytes  {:>5.0} Mbits/sec", bytes / 1048576.0, s.mbps);
    let _ = writeln!(out, "[  3] Sent {:.0} datagrams", per_60s(r.sent, r.measure_ns));
    let _ = writeln!(out, "[  3] Server Report:");
    let total = per_60s(r.received + r.dropped, r.measure_ns);
    let lost = per_60s(r.dropped, r.measure_ns);
    let _ = writeln!(out, "[  3]  0.0-60.0 sec  {:>5.0} Mbits/sec  {lost:.0}/{total:.0} ({:.1}%)", s.mbps, s.lost_pct);
    simulated_line(&mut out, r, " scaled to 60 s");
    out
}

/// A report's last line: the simulated window (`scaled`: what the report scales it to), the
/// events it took and whether the event cap stopped it.
fn simulated_line(out: &mut String, r: &RunResult, scaled: &str) {
    let cap = if r.capped { ", STOPPED AT THE EVENT CAP" } else { "" };
    let _ =
        writeln!(out, "\n(simulated: {:.1} ms window{scaled}; {} events{cap})", r.measure_ns as f64 / 1e6, r.events);
}

/// Receiver CPUs the profile and the flame graph show (the rest are more of the same readers).
const PROFILE_CPUS: usize = 5;

/// Where each receiver CPU's time goes: one perf report per CPU (`perf report -C`), in % of
/// the window (the idle task holds the rest).
fn profile_text(r: &RunResult, title: &str) -> String {
    let mut out = format!("{title}\n");
    for (cpu, role) in r.rx_cpus.iter().take(PROFILE_CPUS) {
        let c = *cpu as usize;
        let busy_pct = r.rx_time.busy(c) as f64 / r.measure_ns.max(1) as f64 * 100.0;
        let report = r.rx_time.with_idle(c, r.measure_ns).report(format!("CPU {cpu} ({role}): {busy_pct:.1} % busy"));
        let _ = write!(out, "\n{}", report.text);
    }
    if r.rx_cpus.len() > PROFILE_CPUS {
        let _ = writeln!(out, "\n({} more readers not shown)", r.rx_cpus.len() - PROFILE_CPUS);
    }
    out
}

/// The receiver's busy time as one flame graph (id `flame`), a root frame per CPU.
fn flame(r: &RunResult, title: &str) -> FlameGraph {
    let parts = r
        .rx_cpus
        .iter()
        .take(PROFILE_CPUS)
        .map(|(cpu, role)| {
            let label = format!("CPU {cpu} ({role})");
            (label.clone(), r.rx_time.cpus[*cpu as usize].report(label.clone()).flame("", label))
        })
        .collect();
    FlameGraph::nest("flame", title, parts)
}

/// Per-CPU slow-path counters of the receiver (the lane view's numbers, as text).
fn counters_text(r: &RunResult) -> String {
    let mut out = String::from("receiver, per CPU, in the window:\n");
    let _ = writeln!(
        out,
        "{:<34} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "CPU", "alloc fast", "alloc slow", "free fast", "free slow", "list_lock"
    );
    for (cpu, role) in &r.rx_cpus {
        let s = &r.rx_slub[*cpu as usize];
        let _ = writeln!(
            out,
            "{:<34} {:>10} {:>10} {:>10} {:>10} {:>10}",
            format!("{cpu} {role}"),
            s.alloc_fastpath,
            s.alloc_slowpath,
            s.free_fastpath,
            s.free_slowpath,
            s.list_lock
        );
    }
    if r.workload == Workload::UdpIperf {
        let _ = writeln!(out, "\nsender, per vCPU (vCPU 0 takes netfront's interrupt and its tx_buf_gc):");
        for (cpu, s) in r.tx_slub.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:<34} {:>10} {:>10} {:>10} {:>10} {:>10}",
                format!("{cpu}"),
                s.alloc_fastpath,
                s.alloc_slowpath,
                s.free_fastpath,
                s.free_slowpath,
                s.list_lock
            );
        }
    }
    let _ = writeln!(out, "\ncaches (object bytes, slab order):");
    for (name, size, order) in &r.caches {
        let _ = writeln!(out, "  {name:<20} {size:>5} B  order {order}");
    }
    let _ = writeln!(out, "\n/sys/kernel/slab/*/ (CONFIG_SLUB_STATS):\n{}", r.sysfs);
    out
}
