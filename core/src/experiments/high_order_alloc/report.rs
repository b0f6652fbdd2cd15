//! The views of `high-order-alloc` besides the chart: the summary (crossover and plateau, in
//! words), /proc/buddyinfo, zoneinfo pagesets, lock_stat and the perf report of the profiled
//! run, and the notes that say why a cell has no throughput.

use super::runs::{machine, simulate_on, summarize, RunSummary};
use super::world::{StreamSim, LOCK_OPS};
use super::{crossover, plateau, FragOrder, Input, StreamStats};
use crate::output::{count, Cell, RunOutput, TextView};
use crate::sim::profile::ProfileReport;
use crate::sim::qspinlock::LOCK_STAT_HEADER;
use crate::sim::world::World;
use serde::Serialize;

/// Below this lead of order 0 over order 3 (at its largest, from the crossover on) a
/// crossover is within the seed-to-seed spread of a cell (up to ~3 % at windows of
/// [`MIN_STEADY_MEASURE_US`] and more; docs/high-order-alloc.md, "Measurement").
pub const CROSSOVER_MIN_LEAD_PCT: f64 = 3.0;

/// The crossover as the summary and the comparison say it, or why it is not meaningful (a
/// sweep of one flow count; a lead within the seed-to-seed spread).
pub fn crossover_text(rows: &[(u32, f64, f64)]) -> String {
    if rows.len() < 2 {
        return "not meaningful (a crossover needs a sweep over at least two flow counts)".to_string();
    }
    let Some(n) = crossover(rows) else { return "none".to_string() };
    let lead =
        rows.iter().filter(|r| r.0 >= n).map(|r| (r.2 / r.1.max(1e-9) - 1.0) * 100.0).fold(f64::NEG_INFINITY, f64::max);
    if lead < CROSSOVER_MIN_LEAD_PCT {
        format!(
            "{n} flows, not meaningful: order-0 leads by at most {lead:.2} % from there on, within the seed-to-seed spread (~{CROSSOVER_MIN_LEAD_PCT:.0} %)"
        )
    } else {
        format!("{n} flows")
    }
}

/// `(threads, order-3 cell missing, order-0 cell missing)` of every row of a run's table.
pub(super) fn missing_cells(out: &RunOutput) -> Vec<(u32, bool, bool)> {
    let col = |name| out.column_index(name);
    let (Some(t), Some(o3), Some(o0)) = (col("threads"), col("order3_mbps"), col("order0_mbps")) else {
        return Vec::new();
    };
    out.rows
        .iter()
        .filter_map(|r| Some((r[t].as_f64()? as u32, r[o3] == Cell::Missing, r[o0] == Cell::Missing)))
        .collect()
}

/// The text views, the flame graph of the profiled run, and the notes the output carries
/// (a short window; why a row has no throughput).
pub(super) fn views(
    i: &Input,
    rows: &[(u32, f64, f64)],
    missing: &[(u32, bool, bool)],
    seed: u64,
) -> (Vec<TextView>, crate::sim::profile::FlameGraph, Vec<String>) {
    let (n, order) = (i.profile_threads, i.profile_order);
    let d = detail(i, n, order, seed);
    let summary = format!(
        "crossover (order-0 ahead from here on): {}\norder-3 peak over 20..30 flows: {}\n",
        crossover_text(rows),
        plateau(rows).map_or("n/a".to_string(), |(n, v)| format!("{v:.0} Mbit/s at {n} flows")),
    );
    let mut summary = summary;
    let (notes, out_notes) = run_notes(i, rows, missing, seed, &d.summary, n, order);
    for note in notes {
        summary.push_str(&format!("note: {note}\n"));
    }
    let o = if order == FragOrder::Order3 { 3 } else { 0 };
    // No throughput in a profile's title (perf prints none): a question hides the chart that
    // shows it, and a title one knob away would give it away.
    let flows = count(n, "flow");
    let flame = d.profile.flame("profile", format!("{flows}, order-{o} frags"));
    let texts = vec![
        TextView::new("summary", "summary", summary),
        TextView::new("buddyinfo", format!("/proc/buddyinfo after {flows}, order {o}"), d.buddyinfo),
        TextView::new(
            "zoneinfo",
            format!("/proc/zoneinfo pagesets (first CPUs), {flows}, order {o}"),
            d.zoneinfo_pagesets,
        ),
        TextView::new(
            "lock_stat",
            format!("/proc/lock_stat zone->lock, {flows}, order {o} (times in us)"),
            d.lock_stat,
        ),
        TextView::new(
            "profile",
            format!("perf report, {flows}, order {o}: {:.1} % spinning on zone->lock", d.summary.spin_pct),
            d.profile.text,
        ),
    ];
    (texts, flame, out_notes)
}

/// Shortest measurement window whose cells are steady: below it a cell's seed-to-seed spread
/// (min–max over 5 seeds) exceeds ~3 % at one flow (6.7 % at 200 us, 5.3 % at 500 us, 3.9 % at 1000 us, 1.9 % at 2000 us; ≤ 2.4 % at 30 flows) (docs/high-order-alloc.md, "Measurement").
pub const MIN_STEADY_MEASURE_US: u64 = 1000;

/// What a reader must know about a run besides its numbers: allocations that failed, a window
/// too short to measure, runs cut short by the event bound. Rows at 0 Mbit/s or without a
/// meaningful throughput are re-run to say why (they are rare, so this costs little). The
/// summary shows the first list; the second (the short window, the rows without throughput)
/// also goes to the output's notes.
fn run_notes(
    i: &Input,
    rows: &[(u32, f64, f64)],
    missing: &[(u32, bool, bool)],
    seed: u64,
    profiled: &RunSummary,
    n: u32,
    order: FragOrder,
) -> (Vec<String>, Vec<String>) {
    let mut notes = Vec::new();
    let mut out_notes = Vec::new();
    if i.measure_us < MIN_STEADY_MEASURE_US {
        let note = format!(
            "measure_us = {} is below {MIN_STEADY_MEASURE_US} us: each cell counts a few dozen skbs, so it moves by several % with the seed",
            i.measure_us
        );
        notes.push(note.clone());
        out_notes.push(note);
    }
    let o = if order == FragOrder::Order3 { 3 } else { 0 };
    if let Some(s) = alloc_note(&profiled.stats) {
        notes.push(format!("{n} flows, order {o}: {s}"));
    }
    // Every flow count with a zero or missing cell, in row order.
    let mut empty: Vec<(u32, f64, f64)> = rows.to_vec();
    for &(t, m3, m0) in missing {
        if m3 || m0 {
            empty.retain(|r| r.0 != t);
            // -1: not shown (a short count or a capped run), 0: measured as 0.
            empty.push((t, if m3 { -1.0 } else { 1.0 }, if m0 { -1.0 } else { 1.0 }));
        }
    }
    empty.sort_by_key(|r| r.0);
    for &(t, o3, o0) in &empty {
        for (mbps, ord, label) in [(o3, FragOrder::Order3, 3), (o0, FragOrder::Order0, 0)] {
            if mbps > 0.0 {
                continue;
            }
            let sim = simulate_on(machine(i), i, t, ord, seed);
            let why = alloc_note(&sim.stats).unwrap_or_else(|| {
                if sim.outcome().truncated {
                    "the run hit its event bound before the window ended".to_string()
                } else {
                    "no receiver finished a recvmsg inside the measurement window (window too short?)".to_string()
                }
            });
            let shown = if mbps < 0.0 { "no throughput shown" } else { "0 Mbit/s" };
            let note = format!("{t} flows, order {label}: {shown}: {why}");
            notes.push(note.clone());
            out_notes.push(note);
        }
    }
    (notes, out_notes)
}

/// A one-line account of failed or drained allocations, if any.
fn alloc_note(s: &StreamStats) -> Option<String> {
    if s.alloc_failures > 0 {
        Some(format!(
            "{} order-0 allocations failed (the zone was empty even after draining the per-CPU lists {} times): senders backed off, throughput is memory-bound",
            s.alloc_failures, s.pcp_drains
        ))
    } else if s.pcp_drains > 0 {
        Some(format!(
            "the buddy ran empty {} times; draining the per-CPU lists let the allocations go on",
            s.pcp_drains
        ))
    } else {
        None
    }
}

/// Everything the detail views show for one setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointDetail {
    pub summary: RunSummary,
    pub profile: ProfileReport,
    pub buddyinfo: String,
    pub zoneinfo_pagesets: String,
    pub lock_stat: String,
}

/// Perf report, lock stats and /proc views of one run.
pub fn detail(i: &Input, threads: u32, order: FragOrder, seed: u64) -> PointDetail {
    let sim = simulate_on(machine(i), i, threads, order, seed);
    let o = if order == FragOrder::Order3 { 3 } else { 0 };
    let title = format!("perf report: {} over lo, order-{o} frags", count(threads, "TCP_STREAM flow"));
    let buddyinfo: String = sim.zones.iter().map(|z| z.free_area.buddyinfo_line(z.node, "Normal") + "\n").collect();
    let cpus = sim.thread_cpus();
    // The first four distinct CPUs the threads run on (on a small machine threads share CPUs).
    let mut shown: Vec<u16> = Vec::new();
    for c in cpus {
        if shown.len() < 4 && !shown.contains(&c) {
            shown.push(c);
        }
    }
    let zoneinfo_pagesets = sim.zones.iter().map(|z| z.zoneinfo_pagesets(&shown)).collect::<Vec<_>>().join("");
    PointDetail {
        summary: summarize(&sim),
        profile: sim.profile.report(title),
        buddyinfo,
        zoneinfo_pagesets,
        lock_stat: lock_stat(&sim),
    }
}

/// /proc/lock_stat's zone->lock lines per node, then the hold time per operation: the lines
/// and list steps each does under the lock (docs/high-order-alloc.md, "Lock hold times").
fn lock_stat(sim: &StreamSim) -> String {
    let mut lock_stat = format!("{LOCK_STAT_HEADER}\n");
    for z in &sim.zones {
        lock_stat.push_str(&format!("node {} {}\n", z.node, z.lock.lock_stat_line().trim_start()));
    }
    lock_stat.push_str("\nholdtime by caller (both nodes):      holds   avg (ns)\n");
    for (k, name) in LOCK_OPS.iter().enumerate() {
        let n = sim.stats.lock_ops[k];
        if n > 0 {
            let avg = sim.stats.lock_hold_ns[k] as f64 / n as f64;
            lock_stat.push_str(&format!("  {name:<32} {n:>8} {avg:>10.0}\n"));
        }
    }
    lock_stat
}
