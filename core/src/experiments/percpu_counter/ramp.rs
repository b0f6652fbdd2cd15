//! The ramp, `percpu-counter`'s second mode: the steady load's world started just below
//! `tcp_mem[2]` with timers returning nothing, so the true sum climbs through the limit and
//! the run measures how late the raise path's check sees it and how many pages it let
//! through meanwhile; with `tcp_mem` from RAM as `tcp_init_mem()` computes it, and the
//! ramp's text view and plot.

use super::{
    config_on, Counter, CounterCosts, Input, Ramp, Sample, World, WorldConfig, MAX_UPDATES_PER_RUN, PAGE_BYTES,
};
use crate::output::{Plot, PlotLine};
use crate::params::Choice;
use crate::sim::machine::MachineProfile;
use std::fmt::Write as _;

/// `tcp_init_mem()` (net/ipv4/tcp.c, 4.x to 6.x): limit = max(nr_free_buffer_pages() / 16,
/// 128), `tcp_mem = [limit / 4 × 3, limit, 2 × tcp_mem[0]]` pages (4.7, 6.25 and 9.4 % of the
/// buffer pages). ASSUMPTION: `nr_free_buffer_pages()` at boot ≈ all of RAM (the kernel takes
/// off its own pages and the high watermarks, a few %).
pub fn tcp_mem_pages(ram_gib: u32) -> [i64; 3] {
    let buffer_pages = i64::from(ram_gib) * (1 << 30) / PAGE_BYTES;
    let limit = (buffer_pages / 16).max(128);
    [limit / 4 * 3, limit, limit / 4 * 3 * 2]
}

/// How long the ramp runs before the true sum is expected to reach `tcp_mem[2]` (ns): the
/// window opens this far below the limit at the expected growth, so the plot shows the
/// approach. The crossing itself, and when the kernel sees it, come from the simulation.
pub const RAMP_LEAD_NS: u64 = 1_000_000;

/// First sample interval of the ramp plot (ns; doubled as the run grows, see `World`).
pub const RAMP_SAMPLE_NS: u64 = 5_000;

/// The ramp of `counter` with `cores` cores online: the steady load's world, started
/// [`RAMP_LEAD_NS`] of expected growth below `tcp_mem[2]`, timers returning nothing, for the
/// lead plus `measure_us` at most (and the update cap); it stops soon after the kernel sees
/// the limit.
pub fn ramp_config(m: &MachineProfile, costs: CounterCosts, i: &Input, cores: u32, counter: Counter) -> WorldConfig {
    let mut cfg = config_on(m, costs, i, cores, counter);
    let limit = tcp_mem_pages(i.ram_gib)[2];
    // Expected pages charged per second: raises × mean pages per raise (uniform 1..=max).
    let per_s =
        u64::from(cfg.connections) * u64::from(cfg.raises_per_hour) / 3600 * u64::from(1 + cfg.raise_pages_max) / 2;
    let lead = (per_s * RAMP_LEAD_NS / 1_000_000_000) as i64;
    cfg.ramp = Some(Ramp { base_pages: (limit - lead).max(0), limit_pages: limit });
    cfg.sample_every_ns = RAMP_SAMPLE_NS;
    let rate = u64::from(cfg.connections) * u64::from(cfg.raises_per_hour + cfg.timers_per_hour) / 3600;
    cfg.duration_ns = (RAMP_LEAD_NS + i.measure_us * 1000).min(MAX_UPDATES_PER_RUN * 1_000_000_000 / rate.max(1));
    cfg
}

/// The ramp's figures: pages charged past `tcp_mem[2]` before the kernel saw it, and how
/// late it saw it (ms). If the window ended first, both are what had piled up by its end.
pub fn ramp_outcome(w: &World) -> (i64, f64) {
    let c = &w.crossing;
    let Some(true_at) = c.true_at_ns else { return (0, 0.0) };
    match (c.overshoot_pages(), c.late_ns()) {
        (Some(pages), Some(ns)) => (pages, ns as f64 / 1e6),
        _ => (w.true_pages - c.true_pages_at_cross, w.cfg.duration_ns.saturating_sub(true_at) as f64 / 1e6),
    }
}

/// tcp_mem from RAM, and what the ramp saw.
pub fn render_tcp_mem(i: &Input, ramp: &World) -> String {
    let [low, pressure, high] = tcp_mem_pages(i.ram_gib);
    let gib = |pages: i64| pages as f64 * PAGE_BYTES as f64 / (1u64 << 30) as f64;
    let mut s = format!(
        "RAM {} GiB -> tcp_init_mem(): limit = buffer pages / 16\n\
         tcp_mem[0] {low:>10} pages ({:.1} GiB)  below: no pressure\n\
         tcp_mem[1] {pressure:>10} pages ({:.1} GiB)  over: sk_enter_memory_pressure()\n\
         tcp_mem[2] {high:>10} pages ({:.1} GiB)  over: __sk_mem_raise_allocated() suppresses the charge\n\n",
        i.ram_gib,
        gib(low),
        gib(pressure),
        gib(high)
    );
    let c = &ramp.crossing;
    let ms = |ns: u64| ns as f64 / 1e6;
    let _ = writeln!(
        s,
        "ramp: {} CPUs, counter {}, starts at {} pages, timers return nothing",
        ramp.cfg.nr_cpus(),
        ramp.cfg.counter.name(),
        ramp.cfg.ramp.map_or(0, |r| r.base_pages)
    );
    match (c.true_at_ns, c.seen_at_ns) {
        (None, _) => s.push_str("the true sum did not reach tcp_mem[2] in the window\n"),
        (Some(t), Some(seen)) => {
            let _ = writeln!(s, "true sum over tcp_mem[2] at {:.3} ms", ms(t));
            let _ = writeln!(
                s,
                "the raise path's check first sees it at {:.3} ms: {:.3} ms late, {} pages charged past the limit meanwhile",
                ms(seen),
                ms(seen.saturating_sub(t)),
                c.true_pages_at_seen - c.true_pages_at_cross
            );
        }
        (Some(t), None) => {
            let _ = writeln!(
                s,
                "true sum over tcp_mem[2] at {:.3} ms; the check had not seen it when the window ended at {:.3} ms",
                ms(t),
                ms(ramp.cfg.duration_ns)
            );
        }
    }
    s
}

/// The plot's name for the shared value: what the check reads, except under the patch, whose
/// check sums every CPU's part (the true sum but for folds waiting for the lock).
fn shared_label(counter: Counter) -> &'static str {
    match counter {
        Counter::PercpuCounter => "fbc->count (the check sums every CPU: the true sum)",
        Counter::Atomic | Counter::PcpuReserve => "what the check reads",
    }
}

/// The ramp: the true sum and what the raise path's check reads, against `tcp_mem[2]`, with
/// the two moments marked. Pages over ms.
pub(super) fn crossing_plot(i: &Input, ramp: &World) -> Plot {
    let ms = |ns: u64| ns as f64 / 1e6;
    let line = |name: &str, f: fn(&Sample) -> i64, dashed| PlotLine {
        name: name.to_string(),
        points: ramp.samples.iter().map(|s| (ms(s.at_ns), f(s) as f64)).collect(),
        dashed,
    };
    let mut marks = Vec::new();
    if let Some(t) = ramp.crossing.true_at_ns {
        marks.push(("true sum crosses".to_string(), ms(t)));
    }
    if let Some(t) = ramp.crossing.seen_at_ns {
        marks.push(("kernel sees it".to_string(), ms(t)));
    }
    let limit = ramp.cfg.ramp.map_or(0, |r| r.limit_pages);
    Plot {
        id: "crossing".to_string(),
        title: format!(
            "Ramp to tcp_mem[2], {} on {} CPUs: true sum vs what the check reads",
            i.counter.name(),
            i.nr_cpus()
        ),
        x_label: "time (ms)".to_string(),
        y_label: "pages (4 KiB)".to_string(),
        lines: vec![line("true sum", |s| s.true_pages, false), line(shared_label(i.counter), |s| s.shared_pages, true)],
        bands: Vec::new(),
        hlines: vec![("tcp_mem[2] limit".to_string(), limit as f64)],
        marks,
        y_from_zero: false,
    }
}
