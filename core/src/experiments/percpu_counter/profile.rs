//! The machine of seed 003 as data: "a dual xeon box" with ~150-200k TCP connections.
//!
//! The post names no CPU model. ASSUMPTION: two Broadwell-EP sockets of 14 cores with
//! Hyper-Threading (e.g. Xeon E5-2680 v4: 2.4 GHz, 3.3 GHz turbo, 35 MiB L3), 56 logical
//! CPUs, a common dual-socket server in 2018. Which constants `skblab calibrate
//! percpu-counter` fits (at most 8, each in a sourced range) is in [`super::calibrate`];
//! their values and sources in docs/percpu-counter.md. The fitted values below are what the
//! calibration printed; everything else is sourced or derived (comment per field).

use super::world::CounterCosts;
use crate::sim::machine::{MachineProfile, SERVER_2019};

/// Topology and line latencies of the dual Xeon (fitted: the two line transfers).
pub const DUAL_XEON_2018: MachineProfile = MachineProfile {
    name: "2 x 14-core Broadwell-EP Xeon, HT (seed 003, 2018; model assumption)",
    sockets: 2,
    cores_per_socket: 14,
    threads_per_core: 2,
    // Spec sheet (E5-2680 v4); not used by this world, which counts ns, not cycles.
    turbo_max_mhz: 3300,
    turbo_all_core_mhz: 2900,
    // Fitted: a locked RMW pulling the line from another core of the socket (ring).
    line_same_socket_ns: 99,
    // Fitted: ... from a core of the other socket (QPI snoop).
    line_cross_socket_ns: 139,
    // Literature: the SMT sibling shares L1/L2.
    line_same_core_ns: 8,
    // Literature: an L3 hit on Broadwell-EP, ~50 cycles at 2.4 GHz.
    line_llc_ns: 20,
    // The remaining fields belong to the TCP_STREAM world and are unused here.
    ..SERVER_2019
};

/// The costs of this world (fitted: atomic_ns, percpu_call_ns, timer_work_ns, tick_jitter_ns).
pub const COSTS_2018: CounterCosts = CounterCosts {
    atomic_ns: 21,
    percpu_call_ns: 50,
    // Derived: an unlocked add to a line in L1 is 1-2 cycles (Agner Fog's tables).
    local_op_ns: 1,
    timer_work_ns: 4123,
    tick_jitter_ns: 22_033,
    // Derived: irqsave/restore + two adds under fbc->lock, ~25 cycles at 2.4 GHz.
    fold_hold_ns: 10,
    // Fitted: how long a line stays in its writer's L2 under the server's other work.
    l2_residency_ns: 7_795,
};

/// The workload (fitted: timers_per_min; raises_per_min follows it, see docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    pub timers_per_min: u32,
    pub raises_per_min: u32,
    /// ASSUMPTION: a send needing more than the forward alloc asks for 1..8 pages (≤ 32 KiB).
    pub raise_pages_max: u32,
}

pub const RATES_2018: Rates = Rates { timers_per_min: 277, raises_per_min: 277, raise_pages_max: 8 };
