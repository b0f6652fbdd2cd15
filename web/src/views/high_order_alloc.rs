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

/// Styles of these views (colours are the app's CSS variables, so dark mode follows).
const STYLE: &str = r#"
.hoa-view { display: flex; flex-direction: column; gap: 0.6rem; }
.hoa-view figcaption, .hoa-head { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: baseline; }
.hoa-head figcaption { flex: 1 1 auto; }
.hoa-head .btn { flex: none; }
.hoa-view canvas { width: 100%; height: auto; }
.hoa-progress { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 0.8rem; font-size: 0.85rem; color: var(--muted); }
.hoa-bar { flex: 1 1 12rem; height: 0.55rem; border-radius: 4px; background: var(--border); overflow: hidden; }
.hoa-bar-fill { height: 100%; background: var(--accent); transition: width 120ms linear; }
.hoa-time { font-variant-numeric: tabular-nums; }
.hoa-error { color: var(--bad); }
.hoa-pre { font-family: var(--mono); font-size: 0.78rem; margin: 0; overflow: auto; max-height: 30rem; white-space: pre; }
.hoa-lanes { width: 100%; height: auto; display: block; }
.hoa-lanes text { fill: var(--fg); font-family: var(--mono); font-size: 13px; }
.hoa-lanes .now { fill: var(--accent); opacity: 0.18; }
.st-Running { fill: #3f8fd8; } .st-Spinning { fill: #d0453a; } .st-HoldingLock { fill: #e8a33c; }
.st-Runnable { fill: #9aa4b4; } .st-Sleeping { fill: transparent; stroke: var(--border); }
.refill-mark { fill: #2a9d5c; }
.hoa-event { font-family: var(--mono); font-size: 0.82rem; min-height: 2.4em; }
.hoa-lock { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; font-size: 0.85rem; }
.cpu-chip { font-family: var(--mono); font-size: 0.78rem; padding: 0.05rem 0.4rem; border-radius: 6px; border: 1px solid var(--border); }
.cpu-chip.holder { background: #e8a33c; color: #1d2430; border-color: #e8a33c; }
.cpu-chip.waiter { background: var(--bad-soft); color: var(--bad); }
.hoa-legend { display: flex; flex-wrap: wrap; gap: 0.8rem; font-size: 0.8rem; color: var(--muted); }
.hoa-legend svg { vertical-align: middle; }
.hoa-buddy .changed { background: var(--accent-soft); color: var(--accent); font-weight: 700; }
.hoa-lane-table td, .hoa-lane-table th { font-size: 0.8rem; padding: 0.1rem 0.5rem; }
.hoa-controls { display: flex; flex-wrap: wrap; gap: 0.8rem; align-items: center; font-size: 0.85rem; }
"#;

/// The `<style>` every view here carries (identical copies are harmless).
pub fn style() -> Html {
    html! { <style>{ STYLE }</style> }
}
