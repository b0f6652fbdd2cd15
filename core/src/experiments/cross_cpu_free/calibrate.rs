//! Calibration of the 2011 Xen guest profile against seed 001: two fitted constants, each
//! inside a sourced physical range; every other constant of [`XEN_GUEST_2011`] is sourced or
//! an assumption (docs/cross-cpu-free.md).
//!
//! Objective: the squared relative errors of the 64-byte datagram counts before and after
//! the split, plus the squared error of their ratio (weighted ×4: the ratio is what the split
//! costs, the lesson's point), on the mean over seeds. The search and the ±10 % sensitivity
//! are the platform's ([`crate::calibrate`]): `skblab calibrate cross-cpu-free`.

use super::profile::{HostProfile, XEN_GUEST_2011};
use super::{run_input, seed, CrossCpuFree, Input};
use crate::calibrate::{Calibration, Constant, PairError, Score};
use crate::experiment::Experiment;

/// The fitted constants of the udp-iperf profile.
pub static CONSTANTS: [Constant; 2] = [
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
    let e = PairError::of((b, a), (seed::BEFORE_DATAGRAMS as f64, seed::AFTER_DATAGRAMS as f64));
    Score {
        objective: e.objective,
        figures: vec![
            ("before_datagrams".into(), b),
            ("after_datagrams".into(), a),
            ("before_err_pct".into(), e.before * 100.0),
            ("after_err_pct".into(), e.after * 100.0),
            ("after_over_before_pct".into(), a / b * 100.0),
        ],
    }
}

/// The registry's calibration of the udp-iperf profile.
pub struct XcpuCalibration;

impl Calibration for XcpuCalibration {
    fn title(&self) -> String {
        format!("cross-cpu-free: {} against seed 001 (64 B before/after)", XEN_GUEST_2011.name)
    }
    fn constants(&self) -> &'static [Constant] {
        &CONSTANTS
    }
    fn committed(&self) -> Vec<f64> {
        committed()
    }
    fn score(&self, values: &[f64], seeds: &[u64]) -> Score {
        score(values, seeds)
    }
}
