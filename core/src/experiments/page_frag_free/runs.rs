//! The runs of page-frag-free: a setting's [`ForwardConfig`], one kernel's run and what it
//! leaves ([`RunSummary`], [`Shares`]), the pair before and after the fix that is a point's
//! worlds, and the events a pair is expected to take.

use super::machines::{ForwardingBox, TX_AND_ALLOC_CYCLES};
use super::world::{self, ForwardConfig, ForwardSim};
use super::{Fix, Input, ZONE_PAGES};
use crate::model::Runner;
use crate::params::Choice;
use crate::sim::profile::FlameGraph;
use crate::sim::qspinlock::LockStats;
use crate::sim::world::{Outcome, World as _};
use serde::Serialize;
use std::sync::Mutex;

/// The run configuration of the input with the fix `fix`, on `b` (calibration varies `b`).
pub fn config(b: &ForwardingBox, i: &Input, fix: Fix) -> ForwardConfig {
    let sockets = i.sockets.min(i.cpus).max(1);
    let mut machine = b.clone();
    machine.cpu = b.cpu.with_topology(sockets, i.cpus.div_ceil(sockets));
    ForwardConfig {
        machine,
        cores: i.cpus,
        smt: i.smt,
        rx_queues: i.rx_queues,
        tx_irq: i.tx_irq,
        fix: fix == Fix::After,
        offered_pps: i.offered_pps(),
        recycle_pct: i.recycle_pct,
        pcp_batch: i.pcp_batch,
        pcp_high: i.pcp_high,
        zone_pages: ZONE_PAGES,
        warmup_ns: i.warmup_us_run() * 1000,
        measure_ns: i.measure_us * 1000,
    }
}

/// One setting run to its end.
pub fn simulate(b: &ForwardingBox, i: &Input, fix: Fix, seed: u64) -> ForwardSim {
    let mut sim = ForwardSim::new(config(b, i, fix), seed);
    sim.run();
    sim
}

/// What one simulated run gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub mpps: f64,
    pub stats: world::ForwardStats,
    pub lock: LockStats,
    pub flame: FlameGraph,
    pub perf_text: String,
    pub zoneinfo: String,
    /// Events handled and whether the event cap stopped the run.
    pub outcome: Outcome,
}

/// Shares (in % of all CPU time) the seed reports, from a run's profile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shares {
    pub napi_consume_skb: f64,
    pub free_pages_ok: f64,
    pub free_one_page: f64,
    /// free_one_page's own time: holding zone->lock (buddy merges, zone and page lines).
    pub free_one_page_self: f64,
    /// queued_spin_lock_slowpath under napi_consume_skb (the free path).
    pub spin_free: f64,
    /// queued_spin_lock_slowpath anywhere (the free path and rmqueue_bulk).
    pub spin_all: f64,
    /// _raw_spin_lock's own time under the free path (the uncontended acquire and its line).
    pub raw_spin_lock_free: f64,
    pub page_frag_free_self: f64,
    pub skb_release_data_self: f64,
    pub free_pcppages_bulk: f64,
    pub rmqueue_bulk: f64,
}

impl Shares {
    pub fn of(f: &FlameGraph) -> Shares {
        Shares {
            napi_consume_skb: f.share_pct("napi_consume_skb"),
            free_pages_ok: f.share_pct("__free_pages_ok"),
            free_one_page: f.share_pct("free_one_page"),
            free_one_page_self: f.self_pct("free_one_page"),
            spin_free: f.share_under_pct(&["napi_consume_skb"], "queued_spin_lock_slowpath"),
            spin_all: f.share_pct("queued_spin_lock_slowpath"),
            raw_spin_lock_free: (f.share_under_pct(&["napi_consume_skb"], "_raw_spin_lock")
                - f.share_under_pct(&["napi_consume_skb"], "queued_spin_lock_slowpath"))
            .max(0.0),
            page_frag_free_self: f.self_pct("page_frag_free"),
            skb_release_data_self: f.self_pct("skb_release_data"),
            free_pcppages_bulk: f.share_pct("free_pcppages_bulk"),
            rmqueue_bulk: f.share_pct("rmqueue_bulk"),
        }
    }
}

/// What the run `sim` of `fix` on `b` left.
fn summarize(b: &ForwardingBox, sim: &ForwardSim, fix: Fix) -> RunSummary {
    let mpps = sim.throughput_pps() / 1e6;
    let title = format!("perf report, {}, {} the fix: {mpps:.2} Mpps", b.kind.name(), fix.name());
    let report = sim.profile.report(title.clone());
    let shown: Vec<u16> = sim.busy_cpus().into_iter().take(2).collect();
    RunSummary {
        mpps,
        stats: sim.stats.clone(),
        lock: LockStats::sum(sim.zones.iter().map(|z| &z.lock.stats)),
        flame: report.flame(fix.name(), title),
        perf_text: report.text,
        zoneinfo: sim.zones.iter().map(|z| z.zoneinfo_pagesets(&shown)).collect(),
        outcome: sim.outcome(),
    }
}

/// One setting on `b`, run and summarized.
pub fn summary(b: &ForwardingBox, i: &Input, fix: Fix, seed: u64) -> RunSummary {
    summarize(b, &simulate(b, i, fix, seed), fix)
}

/// Packets offered in the measured window but not forwarded, % (RX ring overflow, full send
/// queues): never negative, as a packet counts as forwarded only if it arrived in the window.
pub fn drop_pct(_i: &Input, s: &RunSummary) -> f64 {
    let offered = s.stats.offered.max(1) as f64;
    (offered - s.stats.forwarded as f64) / offered * 100.0
}

/// Both fixes of one setting, and the gain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub before: RunSummary,
    pub after: RunSummary,
    pub gain_pct: f64,
}

/// The worlds of a point: the setting on `b` before and then after the fix, through `runner`.
pub fn pair_worlds(b: &ForwardingBox, i: &Input, seed: u64, runner: &mut Runner) -> Pair {
    let mut run = |fix: Fix| {
        let mut sim = ForwardSim::new(config(b, i, fix), seed);
        runner.run(&format!("{fix:?}"), &mut sim);
        summarize(b, &sim, fix)
    };
    let (before, after) = (run(Fix::Before), run(Fix::After));
    let gain_pct = (after.mpps / before.mpps.max(1e-9) - 1.0) * 100.0;
    Pair { before, after, gain_pct }
}

/// The pair the last plain run of a point left on the input's own machine, for `finish`: a
/// run computes its one point and then finishes it in the same process (the CLI's `run`, the
/// page worker's whole run), and `finish` shows the pair's profiles. A finish that finds
/// another pair here simulates it again (same input, same seed: the same numbers).
static LAST_PAIR: Mutex<Option<(Input, u64, Pair)>> = Mutex::new(None);

/// Keeps `pair` (of `i` and `seed`) for [`take_pair`].
pub(super) fn keep_pair(i: &Input, seed: u64, pair: &Pair) {
    let mut last = LAST_PAIR.lock().unwrap_or_else(|e| e.into_inner());
    *last = Some((i.clone(), seed, pair.clone()));
}

/// The pair [`keep_pair`] kept, if it is `i`'s on `seed`.
pub(super) fn take_pair(i: &Input, seed: u64) -> Option<Pair> {
    let mut last = LAST_PAIR.lock().unwrap_or_else(|e| e.into_inner());
    match last.take() {
        Some((kept, s, pair)) if kept == *i && s == seed => Some(pair),
        other => {
            *last = other;
            None
        }
    }
}

/// Events a pair is expected to take (both runs over warm-up and window). Each run forwards
/// the offered load, at most what its RX CPUs carry (`rx_pkt_cycles` plus the modelled TX
/// completion and allocator work per packet, at the all-core clock); before the fix also at
/// most about 1.5 pages per µs per node through `zone->lock` (each page freed takes it). A
/// packet takes 2 events (RX, TX completion), 1.6 more for a CPU woken from idle (in
/// proportion to the RX CPUs' idle share), and before the fix 4 per page that reaches the
/// allocator with 4 per refill of `pcp_batch` pages. Fitted on the model's own counts: within
/// 0.46–2.6× of them over 300 random valid settings of the three machines (0.63–1.25× for nine
/// in ten); the router's default pair, 565,467 events, is expected at 501,552. Each run is
/// capped at [`world::MAX_EVENTS_PER_RUN`].
pub fn expected_events(b: &ForwardingBox, i: &Input) -> u64 {
    let window_us = (i.warmup_us_run() + i.measure_us) as f64;
    let rx_cpus = f64::from(i.rx_queues.min(i.logical_cpus()).max(1));
    let cpu_pkts_us = rx_cpus * b.cpu.turbo_all_core_mhz as f64 / (b.rx_pkt_cycles as f64 + TX_AND_ALLOC_CYCLES);
    let allocated = 1.0 - f64::from(i.recycle_pct) / 100.0;
    let offered_us = i.offered_pps() as f64 / 1e6;
    let run = |fix: Fix| {
        let mut pkts_us = offered_us.min(cpu_pkts_us);
        let mut per_pkt = 2.0;
        if fix == Fix::Before && allocated > 0.0 {
            pkts_us = pkts_us.min(1.5 * f64::from(i.sockets) / allocated);
            per_pkt += 4.0 * allocated * (1.0 + 1.0 / f64::from(i.pcp_batch));
        }
        per_pkt += 1.6 * (1.0 - pkts_us / cpu_pkts_us);
        // Overloaded, the run goes on until the window's last arrivals leave the rings, which
        // hold at most a ring each and at most what arrived since the start.
        let tail_us = if offered_us > pkts_us {
            (world::RX_RING as f64 * f64::from(i.rx_queues) / offered_us)
                .min(window_us)
                .min(world::TAIL_MAX_NS as f64 / 1e3)
        } else {
            0.0
        };
        (((window_us + tail_us) * pkts_us * per_pkt) as u64).clamp(1, world::MAX_EVENTS_PER_RUN)
    };
    run(Fix::Before) + run(Fix::After)
}
