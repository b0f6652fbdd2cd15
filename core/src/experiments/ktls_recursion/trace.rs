//! What the page's stepping views draw: the skbs alive at close ([`GraphView`]) and the free
//! walk step by step ([`WalkTrace`]), the "walk" view data the stack, trace and graph views
//! share.

use super::graph::{self, SkbGraph, SkbKind, SkbRole};
use super::stack::{StackEntry, GUARD_PAGE_BYTES};
use super::walk::{TraceEvent, TraceFrame, WalkResult, Walker, TRACE_FRAMES_MAX};
use super::KtlsInput;
use crate::params::Params;
use serde::{Deserialize, Serialize};

/// One skb of the graph as the web app draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNode {
    pub id: u32,
    pub kind: SkbKind,
    pub role: SkbRole,
    /// The data block (head + shared info) it points at: a clone shares its original's.
    pub data: u32,
    pub nr_frags: u32,
    /// The skbs on this skb's (shared) frag_list, in order.
    pub frag_list: Vec<u32>,
    pub users: u32,
    pub dataref: u32,
    /// Nesting level below the socket (1 = held by the socket).
    pub level: u32,
}

/// The skbs alive at close, and which the socket holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphView {
    pub nodes: Vec<GraphNode>,
    pub roots: Vec<graph::Root>,
    pub nesting_levels: u32,
}

impl GraphView {
    pub fn of(g: &SkbGraph) -> GraphView {
        // Levels from the roots down the frag_lists, breadth first (the first level found).
        let mut level = vec![0u32; g.skbs.len()];
        let mut queue = std::collections::VecDeque::new();
        for r in &g.roots {
            if level[r.skb as usize] == 0 {
                level[r.skb as usize] = 1;
                queue.push_back(r.skb);
            }
        }
        while let Some(id) = queue.pop_front() {
            for &c in g.children(id) {
                if level[c as usize] == 0 {
                    level[c as usize] = level[id as usize] + 1;
                    queue.push_back(c);
                }
            }
        }
        let nodes = g
            .skbs
            .iter()
            .filter(|s| !s.freed)
            .map(|s| {
                let d = &g.data[s.data as usize];
                GraphNode {
                    id: s.id,
                    kind: s.kind,
                    role: s.role,
                    data: s.data,
                    nr_frags: d.nr_frags,
                    frag_list: d.frag_list.clone(),
                    users: s.users,
                    dataref: d.dataref,
                    level: level[s.id as usize],
                }
            })
            .collect();
        GraphView { nodes, roots: g.roots.clone(), nesting_levels: g.nesting_levels() }
    }
}

/// The whole free walk, step by step, for the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkTrace {
    pub input: KtlsInput,
    pub graph: GraphView,
    /// The close() path below the walk, outermost first.
    pub base: Vec<StackEntry>,
    pub frames: Vec<TraceFrame>,
    /// True if the walk had more than [`TRACE_FRAMES_MAX`] events (the summary is complete).
    pub truncated: bool,
    pub thread_size_bytes: u64,
    pub guard_page_bytes: u64,
    pub summary: WalkResult,
}

impl WalkTrace {
    /// The walk of `input`, with its trace.
    pub fn of_input(input: &KtlsInput) -> WalkTrace {
        let input = *input;
        let g = input.graph();
        let graph = GraphView::of(&g);
        let walker = Walker::new(g, input.walk, true);
        let base = walker.base().to_vec();
        let (summary, frames, _) = walker.run();
        let frames = frames.expect("trace was requested");
        WalkTrace {
            input,
            graph,
            base,
            truncated: frames.len() >= TRACE_FRAMES_MAX,
            frames,
            thread_size_bytes: input.walk.thread_size_bytes,
            guard_page_bytes: GUARD_PAGE_BYTES,
            summary,
        }
    }

    /// The call stack after step `step` (outermost first): the base plus every call not yet
    /// returned. Steps past the end give the last stack.
    pub fn stack_at(&self, step: usize) -> Vec<StackEntry> {
        let mut stack = self.base.clone();
        for f in self.frames.iter().take(step.saturating_add(1)) {
            match &f.event {
                TraceEvent::Call { function, frame_bytes } => {
                    stack.push(StackEntry { function, frame_bytes: *frame_bytes })
                }
                TraceEvent::Return { .. } => {
                    stack.pop();
                }
                TraceEvent::Note => {}
            }
        }
        stack
    }
}

/// The walk of validated `params`, with its trace (the web's view tests).
pub fn walk_trace(params: &Params) -> WalkTrace {
    WalkTrace::of_input(&KtlsInput::from(params))
}
