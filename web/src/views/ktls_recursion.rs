//! The views of `ktls-recursion`: the stack budget bar, the growing call trace and the skb
//! graph (all three stepped through one free walk by one transport), the stack-vs-depth chart
//! per fix, and the synthetic oops.
//!
//! The player renders each view on its own, so the views that step through the walk share it
//! through [`use_walk`]: one [`WalkTrace`] per run (core's view data "walk", from the run
//! store: computed once per parameter set, never per frame), one position, and one transport,
//! drawn by whichever of those views rendered first. The chart's data is core's "chart".
//! Everything drawn comes from core; nothing here simulates.

mod call_trace;
mod chart;
pub mod depth;
mod skb_graph;
mod stack_bar;

use super::{CustomView, ViewCtx};
use crate::components::transport::Transport;
use crate::run::{use_view_data, RunKey, ViewLoad};
use crate::store::{self, Topic};
use skblab_core::experiments::ktls_recursion::{GraphNode, SkbRole, StackEntry, TraceFrame, WalkTrace};
use skblab_core::ViewQuery;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

pub const EXPERIMENT: &str = skblab_core::experiments::ktls_recursion::ID;
pub const VIEWS: &[(&str, CustomView)] =
    &[("stack", stack), ("trace", trace), ("graph", graph), ("chart", chart), ("oops", oops)];

/// The stack budget bar, stepped through the walk.
pub fn stack(ctx: &ViewCtx) -> Html {
    html! { <stack_bar::StackView run={ctx.run_key()} /> }
}

/// The growing call trace, stepped through the walk.
pub fn trace(ctx: &ViewCtx) -> Html {
    html! { <call_trace::TraceView run={ctx.run_key()} /> }
}

/// The skb graph, stepped through the walk.
pub fn graph(ctx: &ViewCtx) -> Html {
    html! { <skb_graph::GraphView run={ctx.run_key()} /> }
}

/// Stack use against nesting depth, per fix (and the pinned run A's, dashed).
pub fn chart(ctx: &ViewCtx) -> Html {
    let pinned = ctx.pinned.as_ref().map(|a| a.key.clone());
    html! { <chart::ChartView run={ctx.run_key()} {pinned} dark={ctx.dark} /> }
}

/// The synthetic oops.
pub fn oops(ctx: &ViewCtx) -> Html {
    chart::oops(ctx)
}

/// Props of the views that step through the walk.
#[derive(Properties, PartialEq)]
pub struct WalkProps {
    pub run: RunKey,
}

/// A walk and what the views look up in it often.
pub struct WalkData {
    pub trace: Arc<WalkTrace>,
    /// Indexes into `trace.graph.nodes` per nesting level (level 1 first), heads first.
    pub rows: Vec<Vec<usize>>,
    /// skb id → index into `trace.graph.nodes`.
    pub node_index: HashMap<u32, usize>,
}

impl WalkData {
    fn new(trace: Arc<WalkTrace>) -> WalkData {
        let nodes = &trace.graph.nodes;
        let n_levels = nodes.iter().map(|n| n.level).max().unwrap_or(0) as usize;
        let mut rows = vec![Vec::new(); n_levels];
        for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.level > 0) {
            rows[n.level as usize - 1].push(i);
        }
        for row in &mut rows {
            row.sort_by_key(|&i| (role_order(nodes[i].role), nodes[i].id));
        }
        let node_index = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        WalkData { trace, rows, node_index }
    }

    /// Positions run from 0 (only the close() path on the stack) to the number of frames.
    pub fn n_positions(&self) -> usize {
        self.trace.frames.len() + 1
    }

    /// The trace frame shown at `position` (none at 0).
    pub fn frame(&self, position: usize) -> Option<&TraceFrame> {
        position.checked_sub(1).and_then(|i| self.trace.frames.get(i))
    }

    /// The call stack at `position`, outermost first.
    pub fn stack(&self, position: usize) -> Vec<StackEntry> {
        match position {
            0 => self.trace.base.clone(),
            p => self.trace.stack_at(p - 1),
        }
    }

    /// Stack bytes in use at `position` (what the overflowing call needed, at the overflow).
    pub fn used_bytes(&self, position: usize) -> u64 {
        match self.frame(position) {
            Some(f) => f.stack_used_bytes,
            None => self.trace.base.iter().map(|e| e.frame_bytes).sum(),
        }
    }

    pub fn node(&self, id: u32) -> Option<&GraphNode> {
        self.node_index.get(&id).map(|&i| &self.trace.graph.nodes[i])
    }
}

fn role_order(role: SkbRole) -> u8 {
    match role {
        SkbRole::StrpHead => 0,
        SkbRole::StrpClone => 1,
        SkbRole::Tcp => 2,
        SkbRole::Other => 3,
    }
}

/// The one walk the stepping views share (the player shows one page at a time).
#[derive(Default)]
struct Shared {
    /// The walk the views step through and what it was built from.
    trace: Option<Arc<WalkTrace>>,
    walk: Option<Rc<WalkData>>,
    position: usize,
    /// The view that draws the transport: `(rank, subscription id)`, the lowest rank wins.
    owner: Option<(u8, u64)>,
}

impl Shared {
    /// The views' data of `trace`, built only when it is another walk than the last one.
    fn ensure(&mut self, trace: &Arc<WalkTrace>) -> Rc<WalkData> {
        match (&self.walk, &self.trace) {
            (Some(w), Some(t)) if Arc::ptr_eq(t, trace) => w.clone(),
            _ => {
                let walk = Rc::new(WalkData::new(trace.clone()));
                self.trace = Some(trace.clone());
                self.walk = Some(walk.clone());
                self.position = 0;
                walk
            }
        }
    }
}

thread_local! {
    static SHARED: RefCell<Shared> = RefCell::default();
}

/// Tells every stepping view to redraw.
fn notify_all() {
    store::notify(Topic::Walk);
}

/// A stepping view left: if it drew the transport, another one takes it over.
fn on_leave(id: u64) {
    let was_owner = SHARED.with(|s| {
        let mut s = s.borrow_mut();
        let was_owner = s.owner.is_some_and(|(_, o)| o == id);
        if was_owner {
            s.owner = None;
        }
        was_owner
    });
    if was_owner {
        notify_all();
    }
}

fn set_position(position: usize) {
    SHARED.with(|s| s.borrow_mut().position = position);
    notify_all();
}

/// What a stepping view gets from [`use_walk`].
pub struct WalkHandle {
    pub walk: Rc<WalkData>,
    pub position: usize,
    /// Some(transport) for the one view that draws it.
    pub transport: Option<Html>,
}

/// The shared walk of `run` (core's view data "walk"), the shared position, and the transport
/// if this view owns it; until the walk is there, the note to show instead. `rank` decides
/// which view draws the transport (lowest wins: stack, then trace, then graph), so that it
/// does not depend on the order in which Yew renders the views.
#[hook]
pub fn use_walk(run: &RunKey, rank: u8) -> Result<WalkHandle, Html> {
    let id = store::use_topic(Topic::Walk, Some(on_leave));
    // Views mount in one render pass, and one may have taken the transport from another
    // before that one subscribed: redraw all once so exactly one of them draws it.
    use_effect_with(id, |_| notify_all());
    let trace = match use_view_data::<WalkTrace>(run.clone(), ViewQuery::new("walk")) {
        ViewLoad::Ready(trace) => trace,
        other => return Err(other.note().unwrap_or_default()),
    };
    let (walk, position, owns, displaced) = SHARED.with(|s| {
        let mut s = s.borrow_mut();
        let walk = s.ensure(&trace);
        let displaced = match s.owner {
            Some((r, o)) if o != id && r > rank => Some(o),
            _ => None,
        };
        if s.owner.is_none() || displaced.is_some() {
            s.owner = Some((rank, id));
        }
        let position = s.position.min(walk.n_positions() - 1);
        (walk, position, s.owner.is_some_and(|(_, o)| o == id), displaced)
    });
    // The view that drew the transport so far redraws without it.
    if displaced.is_some() {
        notify_all();
    }
    let transport = owns.then(|| {
        html! { <Transport n_frames={walk.n_positions()} {position} on_change={Callback::from(set_position)} unit="step" /> }
    });
    Ok(WalkHandle { walk, position, transport })
}
