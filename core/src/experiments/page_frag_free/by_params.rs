//! The runs of page-frag-free from untyped [`Params`], for callers that hold them (the tests
//! and examples): each reads the typed input once, with the machine's defaults applied
//! ([`Input::new`]), and calls the typed function.

use super::machines::{machine, ForwardingBox};
use super::runs::{config, pair_worlds, simulate, summary, Pair, RunSummary};
use super::world::{ForwardConfig, ForwardSim};
use super::{Fix, Input};
use crate::model::Runner;
use crate::params::Params;

/// The run configuration of `params` with the fix `fix`, on `b` ([`config`]).
pub fn config_on(b: &ForwardingBox, params: &Params, fix: Fix) -> ForwardConfig {
    config(b, &Input::new(params), fix)
}

/// Runs one setting to its end.
pub fn simulate_on(b: &ForwardingBox, params: &Params, fix: Fix, seed: u64) -> ForwardSim {
    simulate(b, &Input::new(params), fix, seed)
}

/// One setting on `b`, summarized.
pub fn summary_on(b: &ForwardingBox, params: &Params, fix: Fix, seed: u64) -> RunSummary {
    summary(b, &Input::new(params), fix, seed)
}

/// The setting of `params` before and after the fix, on the machine it chooses.
pub fn pair(params: &Params, seed: u64) -> Pair {
    let i = Input::new(params);
    pair_worlds(machine(i.machine), &i, seed, &mut Runner::plain())
}
