//! The lane view of `cross-cpu-free`: a short window of the same configuration, its first
//! alloc/free events after the warm-up, the CPU roles, the caches and the per-CPU counters.

use super::profile::XEN_GUEST_2011;
use super::{run_input, Input, LaneEvent};
use serde::Serialize;

/// The lane view's data: the first alloc/free events after the warm-up, the CPU roles, the
/// caches and the per-CPU counters of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lanes {
    pub cpus: Vec<(u16, &'static str)>,
    pub caches: Vec<(&'static str, u32, u32)>,
    pub events: Vec<LaneEvent>,
    pub slowpath_frees_per_skb: f64,
    /// Per CPU: (free fast, free slow, list_lock) in the window.
    pub counters: Vec<(u64, u64, u64)>,
    /// skbs freed in the window.
    pub skbs: u64,
}

/// Simulated window of the lane view: enough for its [`super::world::MAX_LANE_EVENTS`] events and
/// per-skb counters, short enough for the page's main thread (a few ms in wasm).
pub const LANES_WARMUP_US: u64 = 3000;
pub const LANES_MEASURE_US: u64 = 1000;

/// The configuration of `input` in the lane view's short window.
pub(super) fn input(input: &Input) -> Input {
    Input { warmup_us: input.warmup_us.min(LANES_WARMUP_US), measure_us: LANES_MEASURE_US, ..*input }
}

/// The data of the lane view for `input` (a short window of the same configuration).
pub fn lanes(input: &Input, seed: u64) -> Lanes {
    let (_, r, s) = run_input(&self::input(input), XEN_GUEST_2011, seed, true);
    Lanes {
        counters: r
            .rx_cpus
            .iter()
            .map(|(c, _)| {
                let x = &r.rx_slub[*c as usize];
                (x.free_fastpath, x.free_slowpath, x.list_lock)
            })
            .collect(),
        skbs: r.rx_skbs_freed,
        cpus: r.rx_cpus,
        caches: r.caches,
        events: r.lanes,
        slowpath_frees_per_skb: s.slowpath_frees_per_skb,
    }
}
