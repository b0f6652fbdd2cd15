//! Every view of every experiment, drawn from core's [`ViewSpec`]s.
//!
//! A lesson step names views by id (`views = ["chart", "profile"]`); the playground shows all
//! of an experiment's views. Tables, seed comparisons, text views and charts of columns are
//! drawn here from the run's [`RunOutput`](skblab_core::RunOutput) alone ([`generic`], flame graphs in [`flame`]); only `ViewSpec::Custom` views
//! have code of their own, looked up in the one table [`custom`] — the only place in the web
//! crate that names experiments.

pub mod cross_cpu_free;
pub mod flame;
pub mod generic;
pub mod high_order_alloc;
pub mod ktls_recursion;
pub mod skb_cache;
pub mod skb_layout;

use crate::run::RunState;
use skblab_core::{Experiment, Params, ViewSpec};
use std::rc::Rc;
use yew::prelude::*;

/// What every view gets: the experiment, the resolved parameters, the run, the colour scheme.
#[derive(Clone)]
pub struct ViewCtx {
    pub experiment: &'static dyn Experiment,
    /// The values the run used (presets filled in).
    pub resolved: Params,
    pub run: Rc<RunState>,
    pub seed: u64,
    pub dark: bool,
}

impl PartialEq for ViewCtx {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.resolved == other.resolved
            && self.run == other.run
            && self.seed == other.seed
            && self.dark == other.dark
    }
}

/// A custom view: a function of the context.
type CustomView = fn(&ViewCtx) -> Html;

/// The custom views: (experiment id, view id) → the function that draws it. Adding a lesson
/// with a diagram no chart can draw adds a line here and a module beside this one.
const CUSTOM: &[(&str, &str, CustomView)] = {
    use skblab_core::experiments::{
        cross_cpu_free as xcpu, high_order_alloc as hoa, ktls_recursion as ktls, skb_cache as sc, skb_layout as skb,
    };
    &[
        (skb::ID, "diagram", skb_layout::diagram),
        (skb::ID, "chart", skb_layout::mtu_chart),
        (skb::ID, "frags-chart", skb_layout::frags_chart),
        (hoa::ID, "trace", high_order_alloc::trace),
        (xcpu::ID, "lanes", cross_cpu_free::lanes_view),
        (sc::ID, "lanes", skb_cache::lanes),
        (ktls::ID, "stack", ktls_recursion::stack),
        (ktls::ID, "trace", ktls_recursion::trace),
        (ktls::ID, "graph", ktls_recursion::graph),
        (ktls::ID, "chart", ktls_recursion::chart),
        (ktls::ID, "oops", ktls_recursion::oops),
    ]
};

/// The custom view `id` of `experiment`.
pub fn custom(experiment: &str, id: &str) -> Option<CustomView> {
    CUSTOM.iter().find(|(e, v, _)| *e == experiment && *v == id).map(|c| c.2)
}

/// Every view id of the experiment, in display order.
pub fn names(experiment: &dyn Experiment) -> Vec<&'static str> {
    experiment.views().iter().map(ViewSpec::id).collect()
}

/// The view `id` of the context's experiment (a short note for an unknown id, so that a typo
/// in a lesson shows up on the page instead of silently drawing nothing).
pub fn render(id: &str, ctx: &ViewCtx) -> Html {
    let e = ctx.experiment;
    let spec = e.views().into_iter().find(|v| v.id() == id);
    let drawn = match &spec {
        // A custom view that draws an SVG gets an "SVG" export under it (the button hides
        // itself by CSS where the view has no <svg>).
        Some(ViewSpec::Custom { id }) => custom(e.id(), id).map(|draw| {
            let name = format!("{}-{id}", e.id());
            html! {
                <div class="view-wrap">
                    { draw(ctx) }
                    <p class="view-export"><crate::components::export::SvgExport {name} /></p>
                </div>
            }
        }),
        Some(spec) => Some(generic::render(spec, ctx)),
        None => None,
    };
    drawn.unwrap_or_else(|| html! { <p class="muted">{ format!("(no view named '{id}' for {})", e.id()) }</p> })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_custom_view_core_declares_has_code_and_every_entry_is_declared() {
        for e in skblab_core::experiments() {
            for v in e.views() {
                if let ViewSpec::Custom { id } = v {
                    assert!(custom(e.id(), id).is_some(), "{} declares custom view '{id}' without code", e.id());
                }
            }
        }
        for (exp, id, _) in CUSTOM {
            let e = skblab_core::find(exp).expect("a registered experiment");
            assert!(
                e.views().iter().any(|v| matches!(v, ViewSpec::Custom { id: i } if i == id)),
                "custom view '{id}' of {exp} is not declared by core"
            );
        }
    }
}
