//! The machine of seed 003 as data: "a dual xeon box" with ~150-200k TCP connections.
//!
//! The post names no CPU model. ASSUMPTION: two Broadwell-EP sockets of 14 cores with
//! Hyper-Threading (e.g. Xeon E5-2680 v4), 56 logical CPUs, a common dual-socket server in
//! 2018: the catalogue's `BROADWELL_EP` family with its `BROADWELL_EP_2018` kernel costs
//! (`crate::sim::catalogue`). Nothing here is fitted: every hardware and kernel-path cost is the
//! catalogue's, and the workload (the rates) is a named assumption with a range
//! ([`WORKLOAD`]). Seed 003's two figures are a prediction (docs/percpu-counter.md).

use super::world::{CounterCosts, SUM_STEP_CYCLES, TIMER_SOCKET_LINES};
use crate::sim::catalogue::{Basis, Family, KernelCosts, Quantity, BROADWELL_EP, BROADWELL_EP_2018};
use crate::sim::machine::MachineProfile;

/// The dual Xeon: Broadwell-EP, 2 × 14 cores, HT, a 2018 kernel; every field the catalogue's.
pub const DUAL_XEON_2018: MachineProfile = MachineProfile::from_catalogue(
    "2 x 14-core Broadwell-EP Xeon, HT (seed 003, 2018; model assumption)",
    &BROADWELL_EP,
    &BROADWELL_EP_2018,
    2,
    14,
    2,
);

/// `cycles` at `mhz` in ns, rounded (const).
const fn ns(cycles: u64, mhz: u64) -> u64 {
    (cycles * 1000 + mhz / 2) / mhz
}

/// The world's costs on `family` with `kernel`'s path costs, at the all-core clock.
pub const fn costs_on(family: &Family, kernel: &KernelCosts) -> CounterCosts {
    let mhz = family.turbo_all_core_mhz.int();
    CounterCosts {
        atomic_ns: family.locked_rmw_ns.int(),
        percpu_call_ns: ns(kernel.percpu_add_cycles.int(), mhz),
        local_op_ns: ns(kernel.this_cpu_op_cycles.int(), mhz),
        timer_work_ns: ns(kernel.timer_fire_cycles.int(), mhz) + TIMER_SOCKET_LINES * family.dram_ns.int(),
        tick_jitter_ns: kernel.idle_exit_ns.int(),
        fold_hold_ns: ns(kernel.percpu_fold_cycles.int(), mhz),
        sum_step_ns: ns(SUM_STEP_CYCLES, mhz),
        sum_mlp: family.copy_mlp.int(),
    }
}

/// The costs of the dual Xeon.
pub const COSTS_2018: CounterCosts = costs_on(&BROADWELL_EP, &BROADWELL_EP_2018);

/// The workload: what seed 003 says (the connections) and what it does not (the rates, the
/// other work's cache traffic), each with its range and reason. The parameters' defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    pub connections: Quantity,
    /// Responses per connection per minute (each after a one-frame request).
    pub sends_per_min: Quantity,
    /// Bytes per response.
    pub send_bytes: Quantity,
    /// Smoothed round trip of the connections (µs).
    pub srtt_us: Quantity,
    /// MB/s the rest of the server's work brings into each CPU's core L2.
    pub traffic_mb_s: Quantity,
}

const fn w(value: f64, min: f64, max: f64, unit: &'static str, basis: Basis, source: &'static str) -> Quantity {
    Quantity { value, min, max, unit, basis, source }
}

/// Seed 003's workload.
pub const WORKLOAD: Workload = Workload {
    connections: w(175_000.0, 150_000.0, 200_000.0, "connections", Basis::Measured, "seed 003: \"~150-200k TCP connections\""),
    sends_per_min: w(
        60.0,
        6.0,
        600.0,
        "/min per connection",
        Basis::Assumed,
        "not in the seed: one request/response per connection per second (0.1-10/s) on a front end's long-lived connections",
    ),
    send_bytes: w(
        16_384.0,
        2_048.0,
        262_144.0,
        "bytes",
        Basis::Assumed,
        "not in the seed: a response of a few packets (more than one MSS: with one packet the loss probe waits 200 ms more and the delayed-ACK timer, not tcp_write_timer, would reclaim, against the seed's call path)",
    ),
    srtt_us: w(
        50_000.0,
        10_000.0,
        150_000.0,
        "us",
        Basis::Assumed,
        "not in the seed: ~150-200k connections per server are a front end's clients, over the internet (tens of ms)",
    ),
    traffic_mb_s: w(
        1000.0,
        100.0,
        10_000.0,
        "MB/s per CPU",
        Basis::Assumed,
        "not in the seed: the server's other work (sockets, skbs, payload, the application) streams 0.1-10 GB/s per CPU through its L2",
    ),
};
