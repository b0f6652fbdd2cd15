//! Calibration of the router's one fitted constant against seed 002.
//!
//! The router's table has seven independent numbers (the perf graph's frames: the inclusive
//! shares of `napi_consume_skb`, `__free_pages_ok`, `free_one_page`,
//! `queued_spin_lock_slowpath` and `_raw_spin_lock`, and the two small frames `page_frag_free`
//! and `skb_release_data`); the fitting budget (one constant per three numbers) allows two.
//! One is fitted: the load the router carried ([`super::machines::ROUTER_LOAD`]), which its
//! thread states but the stored archives do not have. Every hardware and kernel-path value is
//! the catalogue's and every per-packet cost is sourced (`machines.rs`), so the x86 and
//! Cortex-A53 gains are predictions: nothing is fitted to them ([`constants`] is empty). (The
//! x86 host's driver recycling, [`super::machines::X86_RECYCLE`], is fitted to another table,
//! the XDP paper's forwarding rates: `examples/x86_recycle_fit.rs`.)
//!
//! Objective (lower is better, percentage points): the sum over the seven frames of
//! |simulated − seed|, plus 2 × the drop above 1 % (the router carried its traffic: "cannot
//! keep up" is the lock at its knee, not 79 % loss), plus twice the points by which spinning
//! under the free path *after* the fix exceeds 0.8 % (the seed: contention gone).
//!
//! `skblab calibrate page-frag-free [--sensitivity]` fits it; commit the printed value into
//! `machines.rs` (`ROUTER_LOAD`).

use super::machines::{machine, ForwardingBox, MachineKind};
use super::runs::{drop_pct, summary};
use super::seed::{frames, SEED_FRAMES};
use super::{machine_defaults, Fix, Input, Shares};
use crate::calibrate::{Calibration, Constant, Score};
use crate::params::{Params, Value};

const ROUTER_FIT: [Constant; 1] = [Constant {
    name: "offered_kpps",
    unit: "kpps",
    min: 1500.0,
    max: 15000.0,
    source: "the router's carried load: between a loaded 100 Gbit router's few Mpps and line rate at 800 B",
}];

/// The fitted constants of `kind` (none for the two benchmark machines: predictions).
pub fn constants(kind: MachineKind) -> &'static [Constant] {
    match kind {
        MachineKind::Router => &ROUTER_FIT,
        MachineKind::X86Bench | MachineKind::CortexA53 => &[],
    }
}

/// The committed values of `kind`'s fitted constants.
pub fn committed(kind: MachineKind) -> Vec<f64> {
    constants(kind).iter().map(|_| f64::from(machine(kind).offered_kpps)).collect()
}

/// `kind`'s box and its default parameters with `values` for its fitted constants (rounded,
/// clamped to their ranges).
pub fn with_values(kind: MachineKind, values: &[f64]) -> (ForwardingBox, Params) {
    let mut b = machine(kind).clone();
    let mut params = machine_defaults(kind);
    for (c, &v) in constants(kind).iter().zip(values) {
        b.offered_kpps = ((v.clamp(c.min, c.max) / 10.0).round() * 10.0) as u32;
        params.set(c.name, Value::Int(i64::from(b.offered_kpps))).expect("inside the spec");
    }
    (b, params)
}

/// Runs `kind`'s default setting with `values` on `seeds` (mean) and scores it.
pub fn score(kind: MachineKind, values: &[f64], seeds: &[u64]) -> Score {
    let (b, params) = with_values(kind, values);
    let i = Input::new(&params);
    let n = seeds.len().max(1) as f64;
    let mut sum = [0.0; 7];
    let (mut spin_after, mut drop) = (0.0, 0.0);
    let per_seed = crate::calibrate::par_map(seeds, |&seed| {
        let after = Shares::of(&summary(&b, &i, Fix::After, seed).flame).spin_free;
        (after, summary(&b, &i, Fix::Before, seed))
    });
    for (after, before) in per_seed {
        spin_after += after / n;
        drop += drop_pct(&i, &before) / n;
        for (a, v) in sum.iter_mut().zip(frames(&Shares::of(&before.flame))) {
            *a += v / n;
        }
    }
    let misses: f64 = SEED_FRAMES.iter().zip(sum).map(|((_, seed), sim)| (sim - seed).abs()).sum();
    let objective = misses + 2.0 * (drop - 1.0).max(0.0) + 2.0 * (spin_after - 0.8).max(0.0);
    let mut figures: Vec<(String, f64)> = SEED_FRAMES.iter().zip(sum).map(|((n, _), v)| (n.to_string(), v)).collect();
    figures.push(("queued_spin_lock_slowpath after".to_string(), spin_after));
    figures.push(("drop_pct".to_string(), drop));
    Score { objective, figures }
}

/// One machine's calibration, for the platform's `skblab calibrate` ([`crate::calibrate`]).
pub struct MachineCalibration(pub MachineKind);

/// The router's (what `skblab calibrate page-frag-free` fits), and the two benchmark
/// machines' (no constant: their scores are the prediction errors of their gains).
pub static ROUTER_CALIBRATION: MachineCalibration = MachineCalibration(MachineKind::Router);
pub static X86_CALIBRATION: MachineCalibration = MachineCalibration(MachineKind::X86Bench);
pub static A53_CALIBRATION: MachineCalibration = MachineCalibration(MachineKind::CortexA53);

/// The calibration of `kind`.
pub fn of(kind: MachineKind) -> &'static MachineCalibration {
    match kind {
        MachineKind::Router => &ROUTER_CALIBRATION,
        MachineKind::X86Bench => &X86_CALIBRATION,
        MachineKind::CortexA53 => &A53_CALIBRATION,
    }
}

impl Calibration for MachineCalibration {
    fn title(&self) -> String {
        format!("page-frag-free calibration of {} against seed 002", machine(self.0).name)
    }

    fn constants(&self) -> &'static [Constant] {
        constants(self.0)
    }

    fn committed(&self) -> Vec<f64> {
        committed(self.0)
    }

    fn score(&self, values: &[f64], seeds: &[u64]) -> Score {
        if self.0 == MachineKind::Router {
            return score(self.0, values, seeds);
        }
        let params = machine_defaults(self.0);
        let n = seeds.len().max(1) as f64;
        let gain = crate::calibrate::par_map(seeds, |&s| super::pair(&params, s).gain_pct).iter().sum::<f64>() / n;
        let target = super::seed::gain_target(self.0);
        Score { objective: (gain - target).abs(), figures: vec![("gain_pct".to_string(), gain)] }
    }
}
