//! The views of every experiment, looked up by (experiment id, view name) in one place.
//!
//! A lesson step lists view names (`views = ["diagram", "chart"]`); the playground shows all of
//! an experiment's views. Adding an experiment's views means adding a module here and two
//! match arms; the player does not change.

pub mod high_order_alloc;
pub mod ktls_recursion;
pub mod skb_layout;

use skblab_core::{Params, RunOutput};
use std::rc::Rc;
use yew::prelude::*;

/// What every view gets: the resolved parameters, the run's output, and the colour scheme.
#[derive(Clone, PartialEq)]
pub struct ViewCtx {
    pub experiment: &'static str,
    /// The values the run used (presets filled in).
    pub resolved: Params,
    pub output: Rc<RunOutput>,
    pub dark: bool,
}

/// Every view name an experiment draws, in display order.
pub fn names(experiment: &str) -> &'static [&'static str] {
    match experiment {
        skblab_core::experiments::skb_layout::ID => skb_layout::VIEWS,
        skblab_core::experiments::ktls_recursion::ID => ktls_recursion::VIEWS,
        skblab_core::experiments::high_order_alloc::ID => high_order_alloc::VIEWS,
        _ => &[],
    }
}

/// The view `name` of the context's experiment (a short note for an unknown name, so that a
/// typo in a lesson shows up on the page instead of silently drawing nothing).
pub fn render(name: &str, ctx: &ViewCtx) -> Html {
    let drawn = match ctx.experiment {
        skblab_core::experiments::skb_layout::ID => skb_layout::render(name, ctx),
        skblab_core::experiments::ktls_recursion::ID => ktls_recursion::render(name, ctx),
        skblab_core::experiments::high_order_alloc::ID => high_order_alloc::render(name, ctx),
        _ => None,
    };
    drawn.unwrap_or_else(|| {
        html! { <p class="muted">{ format!("(no view named '{name}' for {})", ctx.experiment) }</p> }
    })
}

/// True if the experiment's `run()` is too slow for the main thread (a full sweep): the player
/// then does not call it ([`placeholder_output`] stands in) and the experiment's views get their
/// data from the Web Worker ([`crate::worker`]).
pub fn runs_in_worker(experiment: &str) -> bool {
    experiment == skblab_core::experiments::high_order_alloc::ID
}

/// A metric of a heavy experiment's `run()` under `params` (default seed), if the worker has
/// already computed it; questions grade from it instead of re-running the model.
pub fn precomputed_metric(experiment: &str, params: &Params, metric: &str, row: Option<&(String, f64)>) -> Option<f64> {
    if experiment == skblab_core::experiments::high_order_alloc::ID {
        high_order_alloc::sweep::metric(params, skblab_core::DEFAULT_SEED, metric, row)
    } else {
        None
    }
}

/// The empty output the player hands to the views of an experiment that [`runs_in_worker`]
/// (it carries the seed; the views fetch their numbers themselves).
pub fn placeholder_output(experiment: &'static str, seed: u64) -> RunOutput {
    RunOutput::new(experiment, seed, Vec::new())
}

/// The reproduce page's section of an experiment that [`runs_in_worker`].
pub fn reproduce_in_worker(experiment: &str) -> Html {
    match experiment {
        skblab_core::experiments::high_order_alloc::ID => high_order_alloc::reproduce(),
        _ => html! { <p class="muted">{ format!("(no reproduce view for {experiment})") }</p> },
    }
}
