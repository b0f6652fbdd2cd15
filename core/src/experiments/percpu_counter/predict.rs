//! Seed 003 as a prediction: its table's bookkeeping (2 independent numbers, nothing fitted),
//! the prediction error, the quantities the figures depend on with their sourced ranges (for
//! `skblab reproduce --bands`), a run with them set to other values, and the knob relations
//! the real system fixes in sign.

use super::profile::{costs_on, WORKLOAD};
use super::{columns, core_ladder, point_outcomes_on, point_worlds_on, row_of, Input, PercpuCounter, ID};
use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{Experiment, Monotone};
use crate::model::Runner;
use crate::output::RunOutput;
use crate::sim::catalogue::{Quantity, BROADWELL_EP, BROADWELL_EP_2018};
use crate::sim::machine::MachineProfile;

/// The table's short name.
pub const TABLE: &str = "seed003";

/// Seed 003's table: two independent numbers (0.70 % and 0.36 %), no constant fitted to them.
pub fn table() -> TableSpec {
    TableSpec {
        experiment: ID,
        table: TABLE,
        title: "seed 003: % of CPU in tcp_memory_allocated, atomic (0.70) vs percpu_counter (0.36), dual Xeon",
        targets: 2,
        arithmetic: false,
        fitted: Vec::new(),
    }
}

/// The prediction error of both figures on the mean of `seeds`, and the known gaps.
pub fn check(seeds: &[u64]) -> Option<TableCheck> {
    let mut c = TableCheck::from_reproduction(&PercpuCounter.reproduce_mean(seeds)?);
    c.gaps = vec![
        "the workload is not in the seed: sends_per_min (60/min, 6-600), send_bytes and srtt_us are assumptions; the charges and reclaims follow from them by 4.x's rules, and the send rate dominates the band".into(),
        "the server's other cache traffic (traffic_mb_s, 1 GB/s per CPU, 0.1-10 GB/s) is an assumption".into(),
        "Olof's three percpu functions are not named; the model's split is an assumption".into(),
        "the patch is not in our archive: that every charge sums the counter (__percpu_counter_sum under fbc->lock) is our reading of its 'summing up the percpu copies'; had it summed only at the hard limit, as the 2006 conversion of the same field did, the percpu_counter figure would be near 0.05 %".into(),
    ];
    Some(c)
}

/// The catalogue quantities and workload assumptions the figures depend on, with their ranges.
pub fn uncertain() -> Vec<(&'static str, Quantity)> {
    let (f, k, w) = (BROADWELL_EP, BROADWELL_EP_2018, WORKLOAD);
    vec![
        ("line_smt_ns", f.line_smt_ns),
        ("line_same_socket_ns", f.line_same_socket_ns),
        ("line_cross_socket_ns", f.line_cross_socket_ns),
        ("line_llc_ns", f.line_llc_ns),
        ("dram_ns", f.dram_ns),
        ("locked_rmw_ns", f.locked_rmw_ns),
        ("copy_mlp", f.copy_mlp),
        ("turbo_all_core_mhz", f.turbo_all_core_mhz),
        ("percpu_add_cycles", k.percpu_add_cycles),
        ("percpu_fold_cycles", k.percpu_fold_cycles),
        ("this_cpu_op_cycles", k.this_cpu_op_cycles),
        ("timer_fire_cycles", k.timer_fire_cycles),
        ("idle_exit_ns", k.idle_exit_ns),
        ("sends_per_min", w.sends_per_min),
        ("send_bytes", w.send_bytes),
        ("srtt_us", w.srtt_us),
        ("traffic_mb_s", w.traffic_mb_s),
        ("connections", w.connections),
    ]
}

/// The rows of a run of `input` with the quantities of [`uncertain`] set to `values`.
pub fn run_perturbed(input: &Input, seed: u64, values: &[f64]) -> Option<RunOutput> {
    let names = uncertain();
    if values.len() != names.len() {
        return None;
    }
    let (mut f, mut k) = (BROADWELL_EP, BROADWELL_EP_2018);
    let mut i = input.clone();
    for ((name, q), &v) in names.iter().zip(values) {
        let q = q.with_value(v);
        if let Some(slot) = f.quantity_mut(name).or_else(|| k.quantity_mut(name)) {
            *slot = q;
            continue;
        }
        match *name {
            "sends_per_min" => i.sends_per_min = q.int() as u32,
            "send_bytes" => i.send_bytes = q.int(),
            "srtt_us" => i.srtt_us = q.int(),
            "traffic_mb_s" => i.traffic_mb_s = q.int(),
            "connections" => i.connections = q.int() as u32,
            _ => return None,
        }
    }
    let m = MachineProfile::from_catalogue(super::DUAL_XEON_2018.name, &f, &k, 2, 14, 2);
    let costs = costs_on(&f, &k);
    i.atomic_ns = costs.atomic_ns;
    let mut out = RunOutput::new(ID, seed, columns());
    for cores in core_ladder(input) {
        let worlds = point_worlds_on(&m, costs, &i, cores, seed, &mut Runner::plain());
        out.push_row(row_of(&i, cores, worlds));
    }
    Some(out)
}

/// The two figures (atomic, percpu_counter % of CPU) at `i.cpus` cores with the quantities of
/// [`uncertain`] at their values, on the mean of `seeds` (tests and docs).
pub fn figures(i: &Input, seeds: &[u64]) -> (f64, f64) {
    let (m, c) = (super::DUAL_XEON_2018, super::COSTS_2018);
    let n = seeds.len().max(1) as f64;
    let per_seed = crate::calibrate::par_map(seeds, |&s| point_outcomes_on(&m, c, i, i.cpus, s));
    per_seed.iter().fold((0.0, 0.0), |(a, p), o| (a + o[0].cpu_pct / n, p + o[1].cpu_pct / n))
}

/// Knob relations the real system fixes in sign. Not `sends_per_min`: in 4.x a send re-arms
/// the write timer, so a connection that sends again within the timer's delay τ never
/// reclaims, and the reclaims per connection, λ·(1 − λτ/2) here, fall once λτ > 1 (with the
/// 50 ms srtt, from ~9 sends/s). Below that the atomic's cost rises with the rate:
/// `core/tests/percpu_counter_stream.rs` checks both sides.
pub fn monotone() -> Vec<Monotone> {
    let m = |param, column, rises, why| Monotone { param, column, rises, tolerance_pct: 3.0, why, unless: &[] };
    vec![
        m(
            "atomic_ns",
            "atomic_cpu_pct",
            true,
            "a dearer locked op holds the line longer: its own cost and the queue behind it grow",
        ),
        m(
            "connections",
            "atomic_cpu_pct",
            true,
            "more connections at the same rates: more updates per CPU and longer bursts at the tick",
        ),
        m(
            "traffic_mb_s",
            "percpu_counter_cpu_pct",
            true,
            "more of the server's own traffic evicts the percpu code and s32 lines between calls (capacity)",
        ),
        m(
            "reserve_bytes",
            "pcpu_reserve_cpu_pct",
            false,
            "a larger per-CPU reserve reaches the shared atomic less often",
        ),
    ]
}
