//! The custom view of `high-order-alloc` (seed 000): the step-through trace player. Its chart,
//! seed table, perf report and /proc views are generic views of the run core declares.
//! Everything drawn comes from core; nothing here simulates.

mod trace;

use super::ViewCtx;
use yew::prelude::*;

/// The trace player of a small run under the page's parameters.
pub fn trace(ctx: &ViewCtx) -> Html {
    let (params, seed) = (ctx.resolved.clone(), ctx.seed);
    html! { <trace::TraceView {params} {seed} /> }
}

/// Props of the trace player: the resolved parameters and the seed.
#[derive(Properties, PartialEq)]
pub struct HoaProps {
    pub params: skblab_core::Params,
    pub seed: u64,
}
