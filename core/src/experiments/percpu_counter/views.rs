//! The views of `percpu-counter` that the ramp does not own: the perf report and its flame
//! graph, the shared line's travels under the atomic, the error-bound table, and the plot of
//! the shared value's error over time inside its bound.

use super::{
    chains, config_on, error_bound_pages, outcome, render_tcp_mem, simulate, Counter, Hop, Input, World, COSTS_2018,
    DUAL_XEON_2018, PAGE_BYTES,
};
use crate::output::{Plot, PlotBand, PlotLine, TextView};
use crate::params::Choice;
use crate::sim::machine::MachineProfile;
use std::fmt::Write as _;

/// The perf report of `counter` (and its flame graph), the line's travels under the atomic,
/// the bound table and the ramp's `tcp_mem` crossing, from the run `sel` of `counter` at
/// `cpus` cores and its `ramp`.
pub(super) fn text_views(
    i: &Input,
    sel: World,
    ramp: &World,
    seed: u64,
) -> (Vec<TextView>, crate::sim::profile::FlameGraph) {
    let o = outcome(&sel);
    let title = format!(
        "perf report: {} connections on {} CPUs, counter {}, {:.3} % of CPU in the accounting",
        i.connections,
        i.nr_cpus(),
        i.counter.name(),
        o.cpu_pct
    );
    let report = sel.profile.report(title.clone());
    // The accounting alone: "[everything else]" (99 % of the CPU) would leave it a sliver.
    let mut flame = report.flame(
        "profile",
        format!(
            "{} on {} CPUs: the {:.3} % of CPU time in the accounting (everything else left out)",
            i.counter.name(),
            i.nr_cpus(),
            o.cpu_pct
        ),
    );
    let other = crate::sim::profile::CallChains::symbol(chains::Stack::Other);
    flame.stacks.retain(|s| s.frames.last().map(String::as_str) != Some(other));
    let atomic = if i.counter == Counter::Atomic {
        sel
    } else {
        simulate(config_on(&DUAL_XEON_2018, COSTS_2018, i, i.cpus, Counter::Atomic), seed)
    };
    let texts = vec![
        TextView::new("profile", title, report.text),
        TextView::new(
            "line",
            format!("tcp_memory_allocated's cache line under the atomic, from the second tick ({} CPUs)", i.nr_cpus()),
            render_hops(&atomic.hops, &atomic.cfg.machine),
        ),
        TextView::new(
            "bound",
            "error bounds: batch x CPUs (percpu_counter) and reserve x CPUs (6.0)",
            render_bounds(i),
        ),
        TextView::new("tcp_mem", "net.ipv4.tcp_mem and the ramp towards it", render_tcp_mem(i, ramp)),
    ];
    (texts, flame)
}

/// The steady load: shared value − true sum over time, inside the ± bound band.
pub(super) fn error_plot(i: &Input, sel: &World) -> Plot {
    let ms = |ns: u64| ns as f64 / 1e6;
    let bound = sel.cfg.error_bound_pages() as f64;
    let points: Vec<(f64, f64)> =
        sel.samples.iter().map(|s| (ms(s.at_ns), (s.shared_pages - s.true_pages) as f64)).collect();
    let band = PlotBand {
        name: format!("bound: ±{bound:.0} pages"),
        points: points.iter().map(|&(x, _)| (x, -bound, bound)).collect(),
    };
    Plot {
        id: "error-time".to_string(),
        title: format!("Shared value − true sum over time, {} on {} CPUs (steady load)", i.counter.name(), i.nr_cpus()),
        x_label: "time (ms)".to_string(),
        y_label: "pages (4 KiB)".to_string(),
        lines: vec![PlotLine { name: "shared − true (sim)".to_string(), points, dashed: false }],
        bands: vec![band],
        hlines: Vec::new(),
        marks: Vec::new(),
        y_from_zero: false,
    }
}

/// One line per locked RMW: when, which CPU, where the line came from, wait and cost.
pub fn render_hops(hops: &[Hop], m: &MachineProfile) -> String {
    let mut s = String::from("   time_us  cpu  path    line came from        wait_ns  cost_ns\n");
    for h in hops {
        let from = match h.from {
            None => "memory/L3".to_string(),
            Some(f) if f == h.cpu => "own cache".to_string(),
            Some(f) if m.pos(f).socket != m.pos(h.cpu).socket => format!("cpu {f} (other socket)"),
            Some(f) if m.pos(f).core == m.pos(h.cpu).core => format!("cpu {f} (SMT sibling)"),
            Some(f) => format!("cpu {f} (same socket)"),
        };
        let path = match h.path {
            chains::Path::Raise => "raise ",
            chains::Path::Reduce => "reduce",
            chains::Path::Forced => "forced",
        };
        let _ = writeln!(
            s,
            "{:>10.3}  {:>3}  {path}  {from:<20} {:>8} {:>8}",
            h.at_ns as f64 / 1000.0,
            h.cpu,
            h.wait_ns,
            h.work_ns
        );
    }
    s
}

/// The bound at a few CPU counts, with this run's batch and reserve.
pub fn render_bounds(i: &Input) -> String {
    let mut s = String::from("  CPUs  batch  batch x CPUs (pages)  = MiB   reserve x CPUs (pages)  = MiB\n");
    let mib = |pages: i64| pages as f64 * PAGE_BYTES as f64 / (1 << 20) as f64;
    let mut counts = vec![16, 56, 64, 128, 256, 512, i.nr_cpus()];
    counts.sort_unstable();
    counts.dedup();
    for n in counts {
        let b = i.batch_at(n);
        let pc = error_bound_pages(Counter::PercpuCounter, b, i.reserve_pages(), n);
        let rs = error_bound_pages(Counter::PcpuReserve, b, i.reserve_pages(), n);
        let _ = writeln!(s, "{n:>6}  {b:>5}  {pc:>20}  {:>5.0}   {rs:>20}  {:>5.0}", mib(pc), mib(rs));
    }
    s.push_str("With the default batch the bound grows as 2 x CPUs^2: 256 CPUs, batch 512 -> 131072 pages = 512 MiB\n(Mathieu Desnoyers' arithmetic, 2024, mm RSS counter thread).\n");
    s
}
