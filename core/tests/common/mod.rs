//! Helpers several integration tests share: a run under settings, a column's metric, random
//! valid settings, one high-order-alloc flow on a fitted machine ([`one_flow_stream`]), a stub experiment for the checkers' self-tests ([`stub`]). Each test binary compiles this module and uses a part of it.
#![allow(dead_code, reason = "each test binary compiles this module and uses a part of it")]

pub mod stub;

use proptest::prelude::*;
use skblab_core::experiments::high_order_alloc::{config_on, FragOrder, HighOrderAlloc, StreamConfig, StreamSim};
use skblab_core::sim::machine::MachineProfile;
use skblab_core::sim::world::World as _;
use skblab_core::{Experiment, ParamKind, ParamSpec, Params, RunOutput, Value};

/// `settings` (`name=value`) as `e`'s parameters, the defaults otherwise.
pub fn params(e: &dyn Experiment, settings: &[&str]) -> Params {
    let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    e.params_from(&s).expect("valid settings")
}

/// A run of `e` under `settings`, seed 1.
pub fn run(e: &dyn Experiment, settings: &[&str]) -> RunOutput {
    e.run(&params(e, settings), 1)
}

/// Column `name`'s metric of `out`.
pub fn metric(out: &RunOutput, name: &str) -> f64 {
    out.metric(name, None).unwrap_or_else(|| panic!("column {name}"))
}

/// Random settings of `e`, one `name=value` per parameter, each value drawn by `value`.
pub fn settings(e: &dyn Experiment, value: fn(&ParamSpec) -> BoxedStrategy<String>) -> BoxedStrategy<Vec<String>> {
    let parts: Vec<BoxedStrategy<String>> = e
        .specs()
        .into_iter()
        .map(|s| {
            let name = s.name;
            value(&s).prop_map(move |v| format!("{name}={v}")).boxed()
        })
        .collect();
    parts.boxed()
}

/// An `Int` parameter's grid: `min + k * step` for `k` in `0..=top`, and its default on it.
#[derive(Debug, Clone, Copy)]
pub struct IntGrid {
    pub min: i64,
    pub step: i64,
    pub top: i64,
    pub default: i64,
}

impl IntGrid {
    /// The `k`-th value.
    pub fn at(self, k: i64) -> i64 {
        self.min + k * self.step
    }

    /// The largest value.
    pub fn max(self) -> i64 {
        self.at(self.top)
    }
}

/// A valid value of `spec`, as text (the CLI's and URLs' form): an `Int` drawn by `int` from
/// its grid cut to `max_steps` steps above the minimum (the default clamped into it); a power
/// of two, a bool or a choice drawn uniformly.
pub fn valid_value(
    spec: &ParamSpec,
    max_steps: i64,
    int: impl FnOnce(IntGrid) -> BoxedStrategy<i64>,
) -> BoxedStrategy<String> {
    match spec.kind.clone() {
        ParamKind::Int { min, max, step } => {
            let step = step.max(1);
            let top = ((max - min) / step).min(max_steps);
            let default = match spec.default {
                Value::Int(v) => v.clamp(min, min + top * step),
                _ => min,
            };
            int(IntGrid { min, step, top, default }).prop_map(|v| v.to_string()).boxed()
        }
        ParamKind::Pow2 { min, max } => {
            let exps: Vec<u32> = (0..63).filter(|s| (min..=max).contains(&(1i64 << s))).collect();
            proptest::sample::select(exps).prop_map(|s| (1i64 << s).to_string()).boxed()
        }
        ParamKind::Bool => proptest::sample::select(vec!["true", "false"]).prop_map(str::to_string).boxed(),
        ParamKind::Choice { options } => proptest::sample::select(options.to_vec()).prop_map(str::to_string).boxed(),
    }
}

/// One high-order-alloc flow of `kib` KiB sends at order 3 on `cpus` cores of `machine` (one
/// socket, no SMT, orders 1..3 on the per-CPU lists), run to its end on seed 1 after `tweak`
/// changed its configuration (waiting, the socket buffer, the window).
pub fn one_flow_stream(
    machine: MachineProfile,
    cpus: u32,
    kib: u32,
    tweak: impl FnOnce(&mut StreamConfig),
) -> StreamSim {
    let set = [
        format!("cpus={cpus}"),
        "sockets=1".to_string(),
        "smt=false".to_string(),
        "pcp_high_order=true".to_string(),
        format!("msg_bytes={}", kib * 1024),
    ];
    let p = HighOrderAlloc.params_from(&set).expect("valid settings");
    let mut cfg = config_on(machine, &p, 1, FragOrder::Order3);
    tweak(&mut cfg);
    let mut sim = StreamSim::new(cfg, 1);
    sim.run();
    sim
}
