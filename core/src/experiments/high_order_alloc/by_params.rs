//! The runs of high-order-alloc from untyped [`Params`], for callers that hold them (the
//! tests and examples, the web app's tests and benchmark, the machine fit of `skblab
//! calibrate --machine`): each reads the typed [`Input`] once and calls the typed function.

use super::report::{detail, PointDetail};
use super::runs::{expected_events, machine, point_runs, simulate_on, stream_config, trace, SweepPoint, Trace};
use super::world::{StreamConfig, StreamSim};
use super::{FragOrder, HighOrderAlloc, Input};
use crate::experiment::Experiment;
use crate::model::Runner;
use crate::output::Reproduction;
use crate::params::Params;
use crate::sim::machine::MachineProfile;

/// The run configuration on an explicit machine profile ([`stream_config`]).
pub fn config_on(machine: MachineProfile, params: &Params, flows: u32, order: FragOrder) -> StreamConfig {
    stream_config(machine, &Input::from(params), flows, order)
}

/// The run configuration for `flows` flows at `order`.
pub fn config(params: &Params, flows: u32, order: FragOrder) -> StreamConfig {
    let i = Input::from(params);
    stream_config(machine(&i), &i, flows, order)
}

/// Runs one configuration to its end.
pub fn simulate(params: &Params, threads: u32, order: FragOrder, seed: u64) -> StreamSim {
    let i = Input::from(params);
    simulate_on(machine(&i), &i, threads, order, seed)
}

/// Both orders at `threads` flows on `seed` alone (whatever `seeds` says).
pub fn sweep_point(params: &Params, threads: u32, seed: u64) -> SweepPoint {
    let i = Input { seeds: 1, ..Input::from(params) };
    point_runs(&machine(&i), &i, threads, seed, &mut Runner::plain()).remove(0)
}

/// The first `max_events` events of a run, one frame each ([`trace`]).
pub fn traced_run(params: &Params, threads: u32, order: FragOrder, seed: u64, max_events: u64) -> Trace {
    trace(&Input::from(params), threads, order, seed, max_events)
}

/// Perf report, lock stats and /proc views of one run ([`detail`]).
pub fn profile(params: &Params, threads: u32, order: FragOrder, seed: u64) -> PointDetail {
    detail(&Input::from(params), threads, order, seed)
}

/// Events one run of `flows` flows is expected to handle ([`expected_events`]).
pub fn expected_events_per_run(params: &Params, flows: u32) -> u64 {
    expected_events(&Input::from(params), flows)
}

/// The benchmark workload (native `examples/bench_sim.rs`, wasm `web/tests/bench.rs`): the
/// sweep of `params` for flows 1..=30 on `seed`, calling `after_point(flows)` after each point
/// so the caller (which owns the clock) can time it; returns the simulated events of both orders.
pub fn bench_sweep_events(params: &Params, seed: u64, mut after_point: impl FnMut(u32)) -> u64 {
    let mut events = 0;
    for n in 1..=30 {
        let p = sweep_point(params, n, seed);
        events += p.order3.outcome.events + p.order0.outcome.events;
        after_point(n);
    }
    events
}

/// Seed 000 beside the simulation of `params`.
pub fn reproduce(params: &Params, seed: u64) -> Reproduction {
    let e = &HighOrderAlloc;
    e.compare(params, &e.run(params, seed)).expect("high-order-alloc has a seed table")
}
