//! Calibration of the 2011 Xen guest profile against seed 001: two fitted constants, each
//! inside a sourced physical range; every other constant of [`XEN_GUEST_2011`] is sourced or
//! an assumption (docs/cross-cpu-free.md).
//!
//! Objective: the squared relative errors of the 64-byte datagram counts before and after
//! the split, plus the squared error of their ratio (weighted ×4: the ratio is what the split
//! costs, the lesson's point), averaged over seeds. The search is a bounded coordinate
//! descent: each round tries each constant ± a step, keeps improvements, halves the step.

use super::profile::{HostProfile, XEN_GUEST_2011};
use super::{run_input, seed, CrossCpuFree, Input};
use crate::experiment::Experiment;
use serde::Serialize;

/// A fitted constant: name, unit, plausible range and where the range comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Constant {
    pub name: &'static str,
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    pub source: &'static str,
}

/// The fitted constants of the udp-iperf profile.
pub const CONSTANTS: [Constant; 2] = [
    Constant {
        name: "xen_tx_ns",
        unit: "ns/packet",
        min: 500.0,
        max: 6000.0,
        source: "Menon et al., \"Optimizing Network Virtualization in Xen\" (USENIX ATC 2006) and Santos et al., \"Bridging the Gap between Software and Hardware Techniques for I/O Virtualization\" (USENIX ATC 2008): per-packet guest + hypervisor costs of PV netfront of a few µs on 2006–2008 CPUs",
    },
    Constant {
        name: "slab_fast_cycles",
        unit: "cycles",
        min: 20.0,
        max: 150.0,
        source: "SLUB fast path: tens of cycles per kmem_cache_alloc/free (Christoph Lameter's SLUB announcements, 2007–2011; Jesper Dangaard Brouer's slab_bulk_test01 numbers on netdev, 2015), plus a cold object line",
    },
];

/// Most rounds `calibrate` runs.
pub const MAX_ROUNDS: u32 = 40;

/// The profile with `values` (in [`CONSTANTS`] order) applied.
pub fn with_values(values: &[f64]) -> HostProfile {
    let mut p = XEN_GUEST_2011;
    p.xen_tx_ns = values[0].round().max(0.0) as u64;
    p.slub.fast_cycles = values[1].round().max(1.0) as u64;
    p
}

/// The committed values.
pub fn committed() -> Vec<f64> {
    vec![XEN_GUEST_2011.xen_tx_ns as f64, XEN_GUEST_2011.slub.fast_cycles as f64]
}

/// A score: objective (lower is better) and the figures behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub objective: f64,
    pub figures: Vec<(String, f64)>,
}

/// Runs the 64-byte before/after pair with `values` over `seeds`.
pub fn score(values: &[f64], seeds: &[u64]) -> Score {
    let p = with_values(values);
    let base = Input::from(&CrossCpuFree.defaults());
    let (mut b, mut a) = (0.0, 0.0);
    for &s in seeds {
        b += run_input(&Input { datagram_bytes: 64, shinfo_split: false, ..base }, p, s, false).2.datagrams;
        a += run_input(&Input { datagram_bytes: 64, shinfo_split: true, ..base }, p, s, false).2.datagrams;
    }
    let n = seeds.len().max(1) as f64;
    let (b, a) = (b / n, a / n);
    let eb = (b - seed::BEFORE_DATAGRAMS as f64) / seed::BEFORE_DATAGRAMS as f64;
    let ea = (a - seed::AFTER_DATAGRAMS as f64) / seed::AFTER_DATAGRAMS as f64;
    let er = (a / b - seed::ratio()) / seed::ratio();
    Score {
        objective: eb * eb + ea * ea + 4.0 * er * er,
        figures: vec![
            ("before_datagrams".into(), b),
            ("after_datagrams".into(), a),
            ("before_err_pct".into(), eb * 100.0),
            ("after_err_pct".into(), ea * 100.0),
            ("ratio".into(), a / b),
        ],
    }
}

/// The result of [`calibrate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub values: Vec<f64>,
    pub score: Score,
    pub rounds: u32,
}

/// Pattern search from the committed values, inside the ranges, at most `rounds` rounds:
/// each round scores the 3×3 grid of ±step around the current point (so moves along both
/// constants at once are tried too), moves to the best, and halves the steps when the centre
/// is best.
pub fn calibrate(rounds: u32, seeds: &[u64]) -> Report {
    let mut v = committed();
    let mut best = score(&v, seeds);
    let mut step: Vec<f64> = CONSTANTS.iter().map(|c| (c.max - c.min) / 64.0).collect();
    let mut done = 0;
    for _ in 0..rounds.min(MAX_ROUNDS) {
        done += 1;
        let mut next = None;
        for dx in [-1.0, 0.0, 1.0] {
            for dy in [-1.0, 0.0, 1.0] {
                if dx == 0.0 && dy == 0.0 {
                    continue;
                }
                let t = vec![
                    (v[0] + dx * step[0]).clamp(CONSTANTS[0].min, CONSTANTS[0].max),
                    (v[1] + dy * step[1]).clamp(CONSTANTS[1].min, CONSTANTS[1].max),
                ];
                let s = score(&t, seeds);
                if s.objective < next.as_ref().map_or(best.objective, |(_, b): &(Vec<f64>, Score)| b.objective) {
                    next = Some((t, s));
                }
            }
        }
        match next {
            Some((t, s)) => {
                v = t;
                best = s;
            }
            None => {
                for s in &mut step {
                    *s /= 2.0;
                }
                if step[0] < 2.0 && step[1] < 0.5 {
                    break;
                }
            }
        }
    }
    Report { values: v, score: best, rounds: done }
}

/// ±10 % of each constant: the objective's figures at each end.
pub fn sensitivity(seeds: &[u64]) -> Vec<(&'static str, f64, Score, Score)> {
    let v = committed();
    CONSTANTS
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut lo = v.clone();
            lo[i] *= 0.9;
            let mut hi = v.clone();
            hi[i] *= 1.1;
            (c.name, v[i], score(&lo, seeds), score(&hi, seeds))
        })
        .collect()
}
