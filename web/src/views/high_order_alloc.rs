//! The views of `high-order-alloc` (seed 000): the throughput chart filled point by point by the
//! sweep worker, the sim-vs-seed table, the step-through trace player, the perf report, and
//! the /proc views.
//!
//! This experiment's `run()` is the full 60-run sweep, too slow for the main thread, so the
//! player never calls it ([`super::runs_in_worker`]); the chart and the table share one sweep
//! computed by the Web Worker ([`sweep::use_sweep`]). The trace (a few thousand events of a
//! small run) and the detail views (one run) are computed here once per parameter set.
//! Everything drawn comes from core; nothing here simulates.

mod chart;
mod detail;
pub mod sweep;
mod table;
mod trace;

use super::ViewCtx;
use yew::prelude::*;

pub const VIEWS: &[&str] = &["chart", "table", "trace", "profile", "buddyinfo"];

pub fn render(name: &str, ctx: &ViewCtx) -> Option<Html> {
    let (params, seed, dark) = (ctx.resolved.clone(), ctx.output.seed, ctx.dark);
    Some(match name {
        "chart" => html! { <chart::ChartView {params} {seed} {dark} /> },
        "table" => html! { <table::TableView {params} {seed} /> },
        "trace" => html! { <trace::TraceView {params} {seed} /> },
        "profile" => html! { <detail::ProfileView {params} {seed} /> },
        "buddyinfo" => html! { <detail::BuddyinfoView {params} {seed} /> },
        _ => return None,
    })
}

/// The reproduce page's section: the default sweep in the worker, as a table.
pub fn reproduce() -> Html {
    html! { <table::ReproduceDefaults /> }
}

/// Props of every view here: the resolved parameters and the seed.
#[derive(Properties, PartialEq)]
pub struct HoaProps {
    pub params: skblab_core::Params,
    pub seed: u64,
}
