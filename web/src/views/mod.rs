//! Every view of every experiment, drawn from core's [`ViewSpec`]s.
//!
//! A lesson step names views by id (`views = ["chart", "profile"]`); the playground shows all
//! of an experiment's views. Tables, seed comparisons, text views and charts of columns are
//! drawn here from the run's [`RunOutput`](skblab_core::RunOutput) alone ([`generic`], flame
//! graphs in [`flame`]); only `ViewSpec::Custom` views have code of their own: one module per
//! experiment, which registers its views itself (`EXPERIMENT`, its id, and `VIEWS`, its view
//! ids with the functions that draw them); `build.rs` finds every such module and names it in
//! the one `custom_modules!` call, so a new module needs no edit here. A custom
//! view reads what core computes for it (`Experiment::view_data`) from the run store
//! ([`crate::run::use_view_data`]); it never calls the simulation.

pub mod fit;
pub mod flame;
pub mod generic;
pub mod text_diff;

/// Declares the custom-view modules and the table of their views; the call is written by
/// `build.rs` (every `views/<name>.rs` with a `pub const VIEWS`).
macro_rules! custom_modules {
    ($($module:ident),+ $(,)?) => {
        $(pub mod $module;)+
        /// Every custom-view module's (experiment id, views).
        const MODULES: &[(&str, &[(&str, CustomView)])] = &[$(($module::EXPERIMENT, $module::VIEWS)),+];
    };
}

include!(concat!(env!("OUT_DIR"), "/custom_views.rs"));
with_custom_modules!(custom_modules);

use crate::run::{RunKey, RunState};
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
    /// The run pinned as A ("compare two runs": [`crate::pages::player::state::Pin`]), when
    /// the views may show it beside this one (B): a chart draws A's lines too, a flame graph
    /// its change, text views A beside B. `None` unpinned, and while the step's question is open.
    pub pinned: Option<Rc<RunState>>,
}

impl ViewCtx {
    /// The key of the run the views show (for the run store's view data).
    pub fn run_key(&self) -> RunKey {
        RunKey { experiment: self.experiment, params: self.resolved.clone(), seed: self.seed }
    }

    /// The pinned run's output, once it is done (text views and flame graphs need all of it).
    pub fn pinned_output(&self) -> Option<Rc<skblab_core::RunOutput>> {
        self.pinned.as_ref().and_then(|a| a.output.clone())
    }
}

impl PartialEq for ViewCtx {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.resolved == other.resolved
            && self.run == other.run
            && self.seed == other.seed
            && self.dark == other.dark
            && self.pinned == other.pinned
    }
}

/// A custom view: a function of the context.
pub type CustomView = fn(&ViewCtx) -> Html;

/// Every custom view: (experiment id, view id, the function that draws it).
fn all_custom() -> impl Iterator<Item = (&'static str, &'static str, CustomView)> {
    MODULES.iter().flat_map(|(e, views)| views.iter().map(move |(v, f)| (*e, *v, *f)))
}

/// The custom view `id` of `experiment`.
pub fn custom(experiment: &str, id: &str) -> Option<CustomView> {
    all_custom().find(|(e, v, _)| *e == experiment && *v == id).map(|c| c.2)
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
        for (exp, id, _) in all_custom() {
            let e = skblab_core::find(exp).expect("a registered experiment");
            assert!(
                e.views().iter().any(|v| matches!(v, ViewSpec::Custom { id: i } if *i == id)),
                "custom view '{id}' of {exp} is not declared by core"
            );
        }
        let mut ids: Vec<_> = all_custom().map(|(e, v, _)| (e, v)).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "a custom view is registered twice");
    }

    /// Core's data for a view (defaults, seed 1), as it comes from the worker: JSON.
    fn data_json(experiment: &str, query: skblab_core::ViewQuery) -> skblab_core::ViewData {
        let e = skblab_core::find(experiment).unwrap();
        let data = e.view_data(&e.defaults(), 1, &query).expect("view data");
        skblab_core::ViewData::from_json(data.to_json())
    }

    #[test]
    fn core_view_data_reads_into_the_views_own_structs() {
        use skblab_core::ViewQuery;
        let lanes = data_json(cross_cpu_free::EXPERIMENT, ViewQuery::new("lanes"));
        let lanes = lanes.decode::<cross_cpu_free::Lanes>().unwrap();
        assert!(!lanes.events.is_empty() && lanes.cpus.len() == lanes.counters.len());
        let diagram = data_json(skb_cache::EXPERIMENT, ViewQuery::new("lanes"));
        let diagram = diagram.decode::<skblab_core::experiments::skb_cache::LaneDiagram>().unwrap();
        assert!(!diagram.off.lanes.is_empty() && !diagram.on.lanes.is_empty());
    }
}
