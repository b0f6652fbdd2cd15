//! The runs of high-order-alloc: the machine and the [`StreamConfig`] of a setting, the worlds
//! of one point (both frag orders at one flow count, per seed) and what they leave, the
//! events a run is expected to take, and the trace player's short run.

use super::world::{StreamConfig, StreamSim, StreamStats, TraceFrame, MAX_EVENTS_PER_RUN};
use super::{FragOrder, Input};
use crate::experiment::ViewQuery;
use crate::model::Runner;
use crate::sim::machine::{MachineProfile, SERVER_2019};
use crate::sim::qspinlock::LockStats;
use crate::sim::world::{Outcome, World};
use serde::{Deserialize, Serialize};

/// The 2019 server with the parameters that override its constants applied.
pub fn machine(i: &Input) -> MachineProfile {
    machine_from(SERVER_2019, i)
}

/// `base` with the parameters that override its constants applied. An L3 hit crosses the
/// same mesh as a core-to-core transfer (core to the line's L3 slice and back; a transfer
/// adds the snoop of the owning core), so `line_transfer_ns` scales `line_llc_ns` in
/// proportion (model assumption; at the catalogue's mesh nothing changes). Without it a
/// slower mesh made a lagging receiver faster: its queue grew, the payload left the sender's
/// L2 for the L3, and an L3 hit stayed at 26 ns while a transfer cost 97 (one order-3 flow
/// +17 % from 85 to 97 ns; docs/high-order-alloc.md, "One flow against the mesh").
pub fn machine_from(base: MachineProfile, i: &Input) -> MachineProfile {
    let mesh = base.line_same_socket_ns.max(1);
    let llc = (base.line_llc_ns * i.line_transfer_ns + mesh / 2) / mesh;
    MachineProfile {
        line_same_socket_ns: i.line_transfer_ns,
        line_cross_socket_ns: i.cross_socket_ns,
        line_llc_ns: llc.max(1),
        ..base
    }
}

/// The run configuration for `flows` flows at `order` on `machine` (calibration varies the
/// profile); the topology (sockets, cores online per socket) comes from the input.
pub fn stream_config(machine: MachineProfile, i: &Input, flows: u32, order: FragOrder) -> StreamConfig {
    // validate() rejects fewer cores than sockets; the clamp only keeps an unvalidated call
    // from building a socket without cores.
    let sockets = i.sockets.min(i.cpus);
    StreamConfig {
        machine: machine.with_topology(sockets, i.cpus.div_ceil(sockets)),
        input: i.clone(),
        flows,
        high_order_alloc_disable: order.disable(),
        zone_pages: ZONE_PAGES,
        waiting: None,
    }
}

/// Pages per node: 512 MiB, far more than the flows keep in flight (bounded by sndbuf and
/// pcp_high), small enough for the browser.
pub const ZONE_PAGES: u32 = 1 << 17;

/// One configuration run to its end.
pub fn simulate_on(m: MachineProfile, i: &Input, flows: u32, order: FragOrder, seed: u64) -> StreamSim {
    let mut sim = StreamSim::new(stream_config(m, i, flows, order), seed);
    sim.run();
    sim
}

/// Summary of one simulated run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub mbps: f64,
    pub stats: StreamStats,
    /// Events handled, and whether the event bound truncated the run.
    pub outcome: Outcome,
    /// zone->lock statistics summed over the nodes.
    pub lock: LockStats,
    pub spin_pct: f64,
}

/// Both orders at `threads` flows on one seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    pub threads: u32,
    pub order3_mbps: f64,
    pub order0_mbps: f64,
    pub order3: RunSummary,
    pub order0: RunSummary,
}

pub(super) fn summarize(sim: &StreamSim) -> RunSummary {
    RunSummary {
        mbps: sim.throughput_mbps(),
        stats: sim.stats.clone(),
        outcome: sim.outcome(),
        lock: LockStats::sum(sim.zones.iter().map(|z| &z.lock.stats)),
        spin_pct: sim.profile.report(String::new()).spin_pct,
    }
}

/// The worlds of one point on `m`: for each of the input's `seeds` seeds from `seed` on, an
/// order-3 and an order-0 run at `flows` flows, through `runner`.
pub fn point_runs(m: &MachineProfile, i: &Input, flows: u32, seed: u64, runner: &mut Runner) -> Vec<SweepPoint> {
    (0..u64::from(i.seeds.max(1)))
        .map(|k| {
            let s = seed.wrapping_add(k);
            let mut run = |order: FragOrder| {
                let mut sim = StreamSim::new(stream_config(m.clone(), i, flows, order), s);
                runner.run(&format!("{order:?}, seed {s}"), &mut sim);
                summarize(&sim)
            };
            let (o3, o0) = (run(FragOrder::Order3), run(FragOrder::Order0));
            SweepPoint { threads: flows, order3_mbps: o3.mbps, order0_mbps: o0.mbps, order3: o3, order0: o0 }
        })
        .collect()
}

/// The simulated time of a run from its start to the end of its window, in whole µs.
fn end_us(i: &Input) -> u64 {
    i.warmup_us + i.measure_us + 1
}

/// Events one run of `flows` flows is expected to handle: each busy thread takes an event
/// about every 1,050 ns plus 6.2 of the mesh's line transfers (`line_transfer_ns`), over its
/// warm-up and window; the busy threads are the flows' two per flow, at most the cores
/// online plus a third more for their SMT siblings (a sibling adds about a third of a core).
/// Fitted on the model's own counts when every page of the copy loop took two events (within
/// 0.8–1.5× of them from 1 to 64 flows on 1 to 56 cores at the default lists), then scaled by
/// the default sweep's events since a send's copy runs as one batch (4,812,833 → 2,623,643,
/// ×0.545: order-3 runs ×0.86, order-0 runs ×0.32, so this over-counts order 0 and
/// under-counts order 3 by up to about 1.7×). One flow sending 64 KiB with `pcp_batch` 1
/// takes more events per µs. The world's own cap ([`super::world::EVENTS_PER_THREAD_US`]) is
/// far above.
pub fn expected_events(i: &Input, flows: u32) -> u64 {
    let threads_x3 = 3 * 2 * u64::from(flows);
    let cores_x3 = 3 * u64::from(i.cpus) + if i.smt { u64::from(i.cpus) } else { 0 };
    let busy_x3 = threads_x3.min(cores_x3);
    let per_thread_ms = 5_450_000 / (5_800 + 34 * i.line_transfer_ns);
    let events = busy_x3 * end_us(i) * per_thread_ms / 3_000;
    events.clamp(1, MAX_EVENTS_PER_RUN)
}

/// The step-through player's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub threads: u32,
    pub order: u32,
    pub seed: u64,
    /// CPU of every thread, in lane order.
    pub cpus: Vec<u16>,
    pub frames: Vec<TraceFrame>,
    /// True if the run ended (end time) before `max_events`.
    pub complete: bool,
}

/// Events the trace player records: every frame copies every lane, so keep it bounded.
pub const TRACE_EVENTS: u64 = 2000;
/// Most flows of the trace player's small run (each flow is two threads, two lanes).
pub const TRACE_FLOWS_MAX: i64 = 8;

/// The trace player's data for `query` ("trace" with `flows` in 1..=[`TRACE_FLOWS_MAX`] and
/// `order` 0 or 3): the first [`TRACE_EVENTS`] events of that small run.
pub(super) fn trace_data(i: &Input, seed: u64, query: &ViewQuery) -> Option<Trace> {
    let flows = query.arg_in("flows", 1, TRACE_FLOWS_MAX)?;
    let order = match query.arg_in("order", 0, 3)? {
        0 => FragOrder::Order0,
        3 => FragOrder::Order3,
        _ => return None,
    };
    (query.name == "trace").then(|| trace(i, flows as u32, order, seed, TRACE_EVENTS))
}

/// The first `max_events` events of a run, one frame each (keep `threads` and `max_events`
/// small: every frame copies every lane).
pub fn trace(i: &Input, threads: u32, order: FragOrder, seed: u64, max_events: u64) -> Trace {
    let mut sim = StreamSim::new(stream_config(machine(i), i, threads, order), seed);
    sim.enable_trace();
    let complete = !sim.run_for(max_events);
    Trace {
        threads,
        order: if order == FragOrder::Order3 { 3 } else { 0 },
        seed,
        cpus: sim.thread_cpus(),
        frames: sim.take_trace(),
        complete,
    }
}
