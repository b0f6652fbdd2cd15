//! The command line that replays a run: `skblab run <id> --set name=value … --seed N`, with the
//! fewest settings whose resolution ([`Experiment::resolve`]) gives the run's values. The page
//! shows it under every run ("Copy as CLI"); the CLI resolves it the same way, so the line
//! reproduces the run bit for bit (`core/tests/replay.rs` checks it over random settings).

use crate::experiment::Experiment;
use crate::params::Params;

/// `name=value` settings, in parameter order, that resolve to the same values as `params`.
///
/// Starts from every parameter's resolved value and drops, one at a time, each setting the
/// others already imply (its default, or a preset's value for it). A setting that equals its
/// default but differs from a chosen preset's value stays, since the CLI would take the preset's.
pub fn settings(e: &dyn Experiment, params: &Params) -> Vec<String> {
    let target = e.resolve(params);
    let mut keep: Vec<String> = target.specs().iter().map(|s| format!("{}={}", s.name, target.value(s.name))).collect();
    let mut i = 0;
    while i < keep.len() {
        let mut without = keep.clone();
        without.remove(i);
        if resolves_to(e, &without, &target) {
            keep = without;
        } else {
            i += 1;
        }
    }
    keep
}

/// True when `settings`, parsed as the CLI parses them and resolved, give `target`'s values.
pub fn resolves_to(e: &dyn Experiment, settings: &[String], target: &Params) -> bool {
    Params::from_settings(e.id(), e.specs(), settings).is_ok_and(|p| e.resolve(&p).iter().eq(target.iter()))
}

/// The whole command: `skblab run <id> [--set name=value]… --seed <seed>`.
pub fn command(e: &dyn Experiment, params: &Params, seed: u64) -> String {
    let mut line = format!("skblab run {}", e.id());
    for s in settings(e, params) {
        line.push_str(" --set ");
        line.push_str(&s);
    }
    line.push_str(&format!(" --seed {seed}"));
    line
}
