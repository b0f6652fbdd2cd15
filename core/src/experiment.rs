//! The experiment registry: every lesson's model behind one trait.
//!
//! An experiment is a pure function of (validated parameters, seed). It exports its parameter
//! spec as data; the CLI, the web app and the lessons checker only go through this trait, so a
//! new experiment needs no code outside `core/src/experiments/` and this registry.

use crate::output::{Reproduction, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};

/// The default seed of every run (printed first by the CLI so any run can be replayed).
pub const DEFAULT_SEED: u64 = 1;

pub trait Experiment: Sync {
    /// Permanent id, used by the CLI, URLs and lesson files (kebab-case).
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// One sentence: what the experiment reproduces.
    fn summary(&self) -> &'static str;
    fn specs(&self) -> Vec<ParamSpec>;
    /// The values a run will really use. Experiments with presets fill every parameter the
    /// user did not set explicitly from the chosen preset; others return `params` unchanged.
    fn resolve(&self, params: &Params) -> Params {
        params.clone()
    }
    /// Runs the model. `params` must come from this experiment's spec (validation happened
    /// when they were built); the ranges of the spec bound the work of one run.
    fn run(&self, params: &Params, seed: u64) -> RunOutput;
    /// The seed post's figures beside the model's, if the experiment has a seed table.
    fn reproduce(&self, seed: u64) -> Option<Reproduction>;

    /// Defaults overridden by `name=value` settings.
    fn params_from(&self, settings: &[String]) -> Result<Params, ParamError> {
        Params::from_settings(self.id(), &self.specs(), settings)
    }
}

/// Every experiment, in lesson order.
pub fn experiments() -> &'static [&'static dyn Experiment] {
    &[
        &crate::experiments::skb_layout::SkbLayout,
        &crate::experiments::high_order_alloc::HighOrderAlloc,
        &crate::experiments::ktls_recursion::KtlsRecursion,
    ]
}

/// Looks an experiment up by id; the error lists the known ids.
pub fn find(id: &str) -> Result<&'static dyn Experiment, ParamError> {
    experiments().iter().copied().find(|e| e.id() == id).ok_or_else(|| ParamError::UnknownExperiment {
        id: id.to_string(),
        known: experiments().iter().map(|e| e.id().to_string()).collect(),
    })
}
