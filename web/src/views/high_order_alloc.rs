//! The custom view of `high-order-alloc` (seed 000): the step-through trace player. Its chart,
//! seed table, perf report and /proc views are generic views of the run core declares.
//! Everything drawn comes from core (its view data "trace", computed in the sweep worker);
//! nothing here simulates.

mod trace;

use super::{CustomView, ViewCtx};
use crate::run::RunKey;
use yew::prelude::*;

pub const EXPERIMENT: &str = skblab_core::experiments::high_order_alloc::ID;
pub const VIEWS: &[(&str, CustomView)] = &[("trace", trace)];

/// The trace player of a small run under the page's parameters.
pub fn trace(ctx: &ViewCtx) -> Html {
    html! { <trace::TraceView run={ctx.run_key()} /> }
}

/// Props of the trace player: the run whose parameters and seed it replays.
#[derive(Properties, PartialEq)]
pub struct HoaProps {
    pub run: RunKey,
}
