//! The lane diagram of `skb-cache`: two short runs of the page's configuration, with both
//! caches off and both on, and where flow 0's skbs are allocated and freed in each.

use super::profile::SERVER_2019_RR;
use super::{run_input, world, Input};
use serde::{Deserialize, Serialize};

/// Flows of the short runs behind the lane diagram: at most this many (one per thread is
/// enough to place flow 0 where the full run places it).
pub const LANE_FLOWS: u32 = 64;

/// Flow 0's first skbs under one setting of the caches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneSet {
    pub rx_cache: bool,
    pub tx_cache: bool,
    /// The CPU that takes flow 0's interrupts (RSS) and the CPU of its thread.
    pub irq_cpu: Option<crate::sim::machine::CpuId>,
    pub app_cpu: Option<crate::sim::machine::CpuId>,
    /// Allocations and frees in time order of allocation (rx and tx interleaved).
    pub lanes: Vec<world::Lane>,
}

/// The data of the CPU-lane diagram: flow 0's skbs with both caches off and both on, the
/// page's other parameters kept (RPS included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneDiagram {
    pub rps: bool,
    /// Flows and window of the short runs (the caption says so).
    pub flows: u32,
    pub measure_us: u64,
    pub off: LaneSet,
    pub on: LaneSet,
}

/// The configuration of a lane run: `input` with at most [`LANE_FLOWS`] flows, a 0.5 ms
/// warm-up and a 0.3 ms window, both caches `on` or off.
pub(super) fn lane_input(input: &Input, on: bool) -> Input {
    Input {
        flows: input.flows.min(LANE_FLOWS),
        warmup_us: 500,
        measure_us: 300,
        tcp_rx_skb_cache: on,
        tcp_tx_skb_cache: on,
        ..*input
    }
}

/// The two short runs of `base` ([`lane_input`]) with the caches off and on: where flow 0's
/// skbs are allocated and freed. Light (a few ms natively), so the page draws it on the main
/// thread.
pub fn lane_diagram(base: &Input, seed: u64) -> LaneDiagram {
    let small = lane_input(base, false);
    let set = |on: bool| {
        let input = lane_input(base, on);
        let (r, _) = run_input(&input, SERVER_2019_RR, seed);
        let lanes: Vec<world::Lane> = r.lanes.into_iter().filter(|l| l.flow == 0).collect();
        LaneSet {
            rx_cache: on,
            tx_cache: on,
            irq_cpu: lanes.iter().find(|l| l.rx).map(|l| l.alloc_cpu),
            app_cpu: Some(world::app_cpu(0, input.threads, input.config(SERVER_2019_RR).n_cpus())),
            lanes,
        }
    };
    LaneDiagram { rps: base.rps, flows: small.flows, measure_us: small.measure_us, off: set(false), on: set(true) }
}
