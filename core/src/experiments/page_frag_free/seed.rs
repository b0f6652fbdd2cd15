//! The seed's numbers for page-frag-free (seed 002: the perf shares of the router and the gains
//! on the two machines) and the reproduce table that sets the model's figures beside them.

use super::runs::{summary, Shares};
use super::{machines, pair, Fix, Input, MachineKind, PageFragFree, ID};
use crate::experiment::Experiment;
use crate::output::{ReproCell, ReproRow, Reproduction};
use crate::params::{Choice, Params, Value};
use crate::sources;

/// Labels of the reproduce rows (the CLI contract).
pub const X86_ROW: &str = "x86 micro-benchmark";
pub const A53_ROW: &str = "cortex-a53 64 B";
/// The seed's perf call graph under mlx5e_poll_tx_cq (% of all samples): (row, column, value).
pub const SEED_SHARES: [(&str, &str, f64); 4] = [
    ("napi_consume_skb", "napi_consume_skb_pct", 16.34),
    ("__free_pages_ok", "free_pages_ok_pct", 12.65),
    ("free_one_page", "free_one_page_pct", 11.86),
    ("queued_spin_lock_slowpath", "spin_free_pct", 10.10),
];
/// Seed 002's other three frames of the graph: `_raw_spin_lock` beside the slowpath under
/// free_one_page, and the self time of page_frag_free and skb_release_data.
pub const SEED_RAW_SPIN_LOCK_PCT: f64 = 0.65;
pub const SEED_PAGE_FRAG_FREE_SELF_PCT: f64 = 1.55;
pub const SEED_SKB_RELEASE_DATA_SELF_PCT: f64 = 1.44;
/// All seven frames of the seed's graph: the router table's independent numbers (name, %).
pub const SEED_FRAMES: [(&str, f64); 7] = [
    ("napi_consume_skb", 16.34),
    ("__free_pages_ok", 12.65),
    ("free_one_page", 11.86),
    ("queued_spin_lock_slowpath", 10.10),
    ("_raw_spin_lock", SEED_RAW_SPIN_LOCK_PCT),
    ("page_frag_free", SEED_PAGE_FRAG_FREE_SELF_PCT),
    ("skb_release_data", SEED_SKB_RELEASE_DATA_SELF_PCT),
];

/// The seed's gain on a benchmark machine (the router has none: 0).
pub fn gain_target(kind: MachineKind) -> f64 {
    match kind {
        MachineKind::X86Bench => SEED_GAIN_X86_PCT,
        MachineKind::CortexA53 => SEED_GAIN_A53_PCT,
        MachineKind::Router => 0.0,
    }
}
/// Jesper Dangaard Brouer's micro-benchmark gain and Ilias Apalodimas's Cortex-A53 gain.
pub const SEED_GAIN_X86_PCT: f64 = 7.0;
pub const SEED_GAIN_A53_PCT: f64 = 11.0;

pub(super) fn repro_row(label: &str, metric: &'static str, measured: f64, simulated: f64) -> ReproRow {
    ReproRow { label: label.to_string(), cells: vec![ReproCell { metric, measured, simulated, spread: None }] }
}

pub(super) fn reproduction(rows: Vec<ReproRow>, seed: u64) -> Reproduction {
    let mut r = Reproduction { experiment: ID, citation: sources::SEED_002, key_name: "row", rows, notes: Vec::new() };
    r.notes.push(format!(
        "share_pct: % of all CPU time, perf --children (_raw_spin_lock, page_frag_free, skb_release_data: own time beside their siblings); machine: {}; seed {seed}",
        machines::ROUTER.name
    ));
    r
}

/// Simulated numbers of the reproduce table for one seed: the router's seven frames before
/// the fix ([`SEED_FRAMES`]), then the two gains.
pub fn reproduce_figures(seed: u64) -> Vec<f64> {
    let e = &PageFragFree;
    let mut out = Vec::new();
    let router = Input::new(&e.defaults());
    let before = summary(&machines::ROUTER, &router, Fix::Before, seed);
    out.extend(frames(&Shares::of(&before.flame)));
    for kind in [MachineKind::X86Bench, MachineKind::CortexA53] {
        let params = machine_defaults(kind);
        out.push(pair(&params, seed).gain_pct);
    }
    out
}

/// The defaults with `machine` set (the machine's own defaults then apply).
pub fn machine_defaults(kind: MachineKind) -> Params {
    let mut p = PageFragFree.defaults();
    p.set("machine", Value::Choice(kind.name().to_string())).expect("a machine name");
    p
}

/// Seed 002 beside one seed's simulation.
pub fn reproduce(seed: u64) -> Reproduction {
    table(&reproduce_figures(seed), seed)
}

/// Figures of [`reproduce_figures`]: seven router frames, then the two gains.
pub const FIGURES: usize = 9;

/// The reproduce table of the nine figures of [`reproduce_figures`].
pub(super) fn table(f: &[f64], seed: u64) -> Reproduction {
    let mut rows: Vec<ReproRow> =
        SEED_FRAMES.iter().zip(f).map(|((label, m), &s)| repro_row(label, "share_pct", *m, s)).collect();
    rows.push(repro_row(X86_ROW, "gain_pct", SEED_GAIN_X86_PCT, f[7]));
    rows.push(repro_row(A53_ROW, "gain_pct", SEED_GAIN_A53_PCT, f[8]));
    reproduction(rows, seed)
}

/// The seven frames of a before-the-fix profile, in [`SEED_FRAMES`] order.
pub fn frames(s: &Shares) -> [f64; 7] {
    [
        s.napi_consume_skb,
        s.free_pages_ok,
        s.free_one_page,
        s.spin_free,
        s.raw_spin_lock_free,
        s.page_frag_free_self,
        s.skb_release_data_self,
    ]
}
