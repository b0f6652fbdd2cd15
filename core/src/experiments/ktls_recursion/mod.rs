//! `ktls-recursion`: closing a kTLS socket frees an skb chain nested so deep that the free
//! recursion runs off the 16 KiB kernel stack (seed 004).
//!
//! What Linux does: `skb_release_data` frees an skb's `frag_list` with `kfree_skb_list`,
//! which calls `kfree_skb` → … → `skb_release_data` on every member, so freeing recurses
//! once per level of frag_list nesting (net/core/skbuff.c). Seed 004 is Jakub Kicinski's
//! reply to Eric Dumazet's "tcp: add one skb cache for rx" (8b27dae5a2e8): `tcp_close` →
//! `tcp_disconnect` → `__kfree_skb` → `skb_release_data` → `kfree_skb` → … until the guard
//! page below the stack was hit, after a 100 MB GET over kTLS on 5.1.0-rc2. The cause is on
//! record, in the fix that quotes the same oops: 4a9c2e3746e6 "net: strparser: partially
//! revert 'strparser: Call skb_unclone conditionally'" (Kicinski, reviewed by Eric Dumazet;
//! Fixes 4e485d06bb8c). strparser built each message on the *TCP skb's shared* frag_list,
//! linking all TCP skbs into one chain as deep as the data received; the rx cache kept the
//! chain's top alive until close. [`graph`] simulates that receive, with the fix.
//!
//! Modules: [`stack`] (frame sizes, THREAD_SIZE, the close() path), [`graph`] (skbs, data,
//! clones, refcounts, the kTLS receive with strparser before and after the fix), [`walk`] (the
//! free walk as a machine over simulated frames), [`render`] (the synthetic oops and the stack
//! table).
//!
//! API for the web app (all `Serialize`, all bounded: at most [`TCP_SKBS_MAX`] TCP skbs and
//! [`RECORDS_MAX`] records, [`TRACE_FRAMES_MAX`] trace frames, [`CHART_POINTS_MAX`] points):
//! - [`WalkTrace::of_input`]`(&KtlsInput) -> WalkTrace`: the skb graph to draw
//!   ([`GraphView`]), the close() path frames ([`WalkTrace::base`]), one [`TraceFrame`] per
//!   call / return / refcount event (stack bytes in use, skb being freed, level, text, overflow
//!   flag), and the summary. The call stack at step `i` is [`WalkTrace::stack_at`]`(i)`
//!   (rebuilt on demand so the trace stays linear in size).
//! - [`stack_vs_depth`]`(&KtlsInput, Fix, &[u32]) -> Vec<DepthPoint>`: peak stack and
//!   overflow per number of TCP skbs received for one fix; [`chart_depths`] gives a default x
//!   axis, and [`StackVsDepth::of_input`] every fix over it (the chart's data).
//!
//! The page gets both as custom view data ([`CustomViews`]): "walk" (light: the three stepping
//! views share it) and "chart" (heavy: four fixes × 65 receives and walks, so the worker).
//! Both types read back from JSON (function names as the model's own `&'static str`).
//!
//! The run is deterministic and uses no randomness; the seed is carried for the CLI only.
//!
//! Files: `mod.rs` (here: the `Model` impl, its columns, custom views and knob relations),
//! `params.rs` (the spec and the typed input), `seed.rs` (seed 004's number and its table),
//! `stack.rs`, `graph.rs`, `walk.rs`, `render.rs` (as above), `trace.rs` (the walk step by step
//! and the graph, for the stepping views), `chart.rs` (the stack-vs-depth chart's data) and
//! `tests.rs` (unit, snapshot, determinism and property tests).

mod chart;
pub mod graph;
mod params;
pub mod render;
mod seed;
pub mod stack;
mod trace;
pub mod walk;

pub use params::{specs, KtlsInput, KtlsParams, SEED_TRANSFER_BYTES, TCP_SKB_BYTES_DEFAULT, TLS_RECORD_BYTES_MAX};
pub use seed::{reproduce, FITTED, SEED_LEVELS_ESTIMATE};

pub use chart::{chart_depths, stack_vs_depth, DepthPoint, FixSeries, StackVsDepth};
pub use trace::{walk_trace, GraphNode, GraphView, WalkTrace};

pub use graph::{
    build_scenario, Fix, Scenario, SkbGraph, SkbKind, SkbRole, Transfer, FIXES, RECORDS_MAX, TCP_SKBS_MAX,
    TLS_RECORD_OVERHEAD_BYTES,
};
pub use stack::{FrameSizes, StackEntry, GUARD_PAGE_BYTES, THREAD_SIZE_BYTES_DEFAULT};
pub use walk::{Overflow, TraceEvent, TraceFrame, WalkConfig, WalkResult, Walker, TRACE_FRAMES_MAX};

use crate::experiment::{Cost, Monotone, Point, ViewData, ViewQuery, ViewSpec};
use crate::model::{CustomViews, Model, Runner};
use crate::output::{mark_row, Cell, Column, Meaning, Row, RunOutput, TextView};
use crate::params::ParamSpec;

pub const ID: &str = "ktls-recursion";

/// Most points of one [`stack_vs_depth`] call.
pub const CHART_POINTS_MAX: usize = 256;

/// The registry entry.
pub struct KtlsRecursion;

/// The result columns (name, unit).
const COLUMNS: [(&str, &str); 21] = [
    ("fix", ""),
    ("tcp_skbs", "skbs"),
    ("records", "records"),
    ("transfer_capped", ""),
    ("transfer_free_levels_max", "levels"),
    ("graph_levels", "levels"),
    ("skbs_total", "skbs"),
    ("thread_size_bytes", "bytes"),
    ("stack_base_bytes", "bytes"),
    ("stack_per_level_bytes", "bytes"),
    ("levels_fit", "levels"),
    ("overflow", ""),
    ("guard_page_hit", ""),
    ("overflow_function", ""),
    ("overflow_level", "levels"),
    ("depth_reached", "levels"),
    ("stack_used_bytes_max", "bytes"),
    ("stack_left_bytes", "bytes"),
    ("skbs_freed", "skbs"),
    ("skbs_left", "skbs"),
    ("calls", "calls"),
];

fn columns() -> Vec<Column> {
    let signed = "THREAD_SIZE minus the deepest stack use: negative by the overflow's size when the stack overflows";
    COLUMNS
        .iter()
        .map(|&(name, unit)| match name {
            "stack_left_bytes" => Column::new(name, unit).signed(signed),
            _ => Column::new(name, unit),
        })
        .collect()
}

/// What the basis of [`meanings`] counts.
const OVERFLOWS: &str = "stack overflow in the walk (without one there is no overflow level)";

/// When each column means something: the receive and the walk are deterministic arithmetic on
/// the parameters, so every value is exact; only the overflow's level needs an overflow (else
/// its 0 would read as a level).
fn meanings() -> Vec<Meaning> {
    COLUMNS
        .iter()
        .map(|&(name, _)| match name {
            "overflow_level" => Meaning::at_least(name, 1, OVERFLOWS),
            _ => Meaning::always(name, "exact: a deterministic receive and walk, or arithmetic on the parameters"),
        })
        .collect()
}

/// The calls one walk of `input` is expected to make ([`WalkResult::calls`]): per skb freed,
/// `kfree_skb`, `__kfree_skb`, `skb_release_all`, `skb_release_data` and `kfree_skb_list`, and
/// with page frags the leaf `__free_pages_ok` → `free_one_page`. A recursive walk down a chain
/// deeper than the stack holds stops at the overflow, after about the share of the skbs that
/// hang in the levels that fit.
fn expected_calls(input: &KtlsInput) -> u64 {
    let g = input.graph();
    let skbs = g.live_skbs() as u64;
    let levels = u64::from(g.nesting_levels());
    let frags = input.nr_frags() > 0;
    let fit = input.walk.sizes.levels_fit(input.walk.thread_size_bytes, frags);
    let walked = if !input.walk.iterative && levels > fit { skbs * fit / levels } else { skbs };
    walked * if frags { 7 } else { 5 }
}

/// Runs the receive and the close() walk of `input` without a trace: the walk's result, the
/// receive (its graph as it was at close) and the graph after the walk.
pub fn run_input(input: &KtlsInput) -> (WalkResult, Transfer, SkbGraph) {
    let before = input.transfer();
    let (result, after) = walk::walk(before.graph.clone(), input.walk);
    (result, before, after)
}

impl Model for KtlsRecursion {
    type Input = KtlsInput;
    /// The walk's result, the receive and the graph after the walk ([`run_input`]).
    type Worlds = (WalkResult, Transfer, SkbGraph);

    const ID: &'static str = ID;
    const TITLE: &'static str = "A kernel stack overflow, frame by frame";
    const SUMMARY: &'static str =
        "Freeing nested frag_lists recurses once per level until the 16 KiB stack hits its guard page (seed 004).";

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn columns(&self, _input: &KtlsInput) -> Vec<Column> {
        columns()
    }

    /// The receive and the walk: no simulated world (no event queue), so nothing for the
    /// checked runner to check; [`graph`] and [`walk`] assert their own invariants.
    fn worlds(&self, input: &KtlsInput, _point: &Point, _seed: u64, _runner: &mut Runner) -> Self::Worlds {
        run_input(input)
    }

    fn row(&self, input: &KtlsInput, _point: &Point, (r, before, after): Self::Worlds) -> Row {
        let sizes = &input.walk.sizes;
        let thread = input.walk.thread_size_bytes;
        let o = r.overflow.as_ref();
        let int = |v: u64| Cell::Int(v as i64);
        let mut row = vec![
            Cell::Text(input.fix.name().to_string()),
            int(u64::from(before.tcp_skbs)),
            int(u64::from(before.records)),
            Cell::Bool(input.transfer_capped),
            int(u64::from(before.free_levels_max)),
            int(u64::from(before.graph.nesting_levels())),
            int(before.graph.live_skbs() as u64),
            int(thread),
            int(sizes.base_bytes()),
            int(sizes.per_level_bytes()),
            int(sizes.levels_fit(thread, input.nr_frags() > 0)),
            Cell::Bool(o.is_some()),
            Cell::Bool(o.is_some_and(|o| o.guard_page_hit)),
            Cell::Text(o.map_or("", |o| o.function).to_string()),
            int(o.map_or(0, |o| o.level as u64)),
            int(r.depth_reached as u64),
            int(r.stack_used_bytes_max),
            Cell::Int(thread as i64 - r.stack_used_bytes_max as i64),
            int(r.skbs_freed.len() as u64),
            int(after.live_skbs() as u64),
            int(r.calls),
        ];
        mark_row(&mut row, &columns(), &meanings(), &[(OVERFLOWS, u64::from(o.is_some()))]);
        row
    }

    /// One walk's calls (the walk is the work; the receive before it is about as long).
    fn events(&self, input: &KtlsInput, _point: &Point) -> u64 {
        expected_calls(input)
    }

    fn meanings(&self, _input: &KtlsInput) -> Vec<Meaning> {
        meanings()
    }

    fn views(&self) -> Vec<ViewSpec> {
        ["stack", "trace", "graph", "chart", "oops"].into_iter().map(|id| ViewSpec::Custom { id }).collect()
    }

    /// The table, the oops and the stack table (the walk again: a few ms, deterministic).
    fn finish(&self, input: &KtlsInput, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for row in rows {
            out.push_row(row);
        }
        let (r, _, _) = run_input(input);
        let sizes = &input.walk.sizes;
        let thread = input.walk.thread_size_bytes;
        let ctx = render::OopsContext {
            fix: input.fix.name(),
            rx_cache: input.scenario.rx_cache,
            tcp_skbs: input.scenario.tcp_skbs(),
            thread_size_bytes: thread,
            base_frames: sizes.base_frames().len(),
        };
        out.views.push(TextView::new("oops", "oops", render::render_oops(&ctx, &r)));
        let table = render::render_stack_table(&r, thread, sizes.base_bytes());
        out.views.push(TextView::new("stack-table", "stack", table));
        out.note_missing(&meanings());
        if input.transfer_capped {
            out.notes.push(format!(
                "transfer: cut at {TCP_SKBS_MAX} TCP skbs or {RECORDS_MAX} TLS records (transfer_capped): more transfer_bytes or tcp_skbs add nothing"
            ));
        }
        out
    }

    /// `finish` walks again for the oops and the stack table.
    fn finish_events(&self, input: &KtlsInput) -> u64 {
        expected_calls(input)
    }

    fn monotone(&self) -> Vec<Monotone> {
        monotone()
    }

    crate::model::capabilities!(seed_tables, custom_views);
}

impl CustomViews<KtlsRecursion> for KtlsRecursion {
    /// "walk" ([`WalkTrace`], shared by the stack, trace and graph views) and "chart"
    /// ([`StackVsDepth`]).
    fn view_data(&self, input: &KtlsInput, _seed: u64, query: &ViewQuery) -> Option<ViewData> {
        match query.name.as_str() {
            "walk" => Some(ViewData::new(WalkTrace::of_input(input))),
            "chart" => Some(ViewData::new(StackVsDepth::of_input(input))),
            _ => None,
        }
    }

    /// The receive and the walk with its trace: a few ms natively. The chart: 260 receives
    /// and walks.
    fn view_cost(&self, _input: &KtlsInput, query: &ViewQuery) -> Cost {
        if query.name == "chart" {
            Cost::Heavy
        } else {
            Cost::Light
        }
    }
}

/// Knob relations the receive and the stack arithmetic fix in sign (exact, tolerance 0): the
/// free pushes the same frames in the same order whatever their sizes, so the first push past
/// THREAD_SIZE comes no earlier with a bigger stack and no later with bigger frames or with
/// page frags to free; and a longer transfer never shortens the chain at close (under
/// 4e485d06bb8c with the rx cache every TCP skb a record crosses adds a level; with the fix or
/// without the cache the chain does not grow). (`syscall_path_bytes` is left out: its 0 means
/// the 512 B table; `tcp_skbs` too: its 0 means "from transfer_bytes".)
pub fn monotone() -> Vec<Monotone> {
    let m =
        |param, rises, why| Monotone { param, column: "depth_reached", rises, tolerance_pct: 0.0, why, unless: &[] };
    vec![
        m("thread_size_bytes", true, "a bigger THREAD_SIZE holds more levels of the recursive free"),
        m("kfree_skb_frame_bytes", false, "every level of the recursion has a kfree_skb frame"),
        m("skb_release_data_frame_bytes", false, "every level of the recursion has a skb_release_data frame"),
        m("inlined_frame_bytes", false, "out-of-line __kfree_skb, skb_release_all, kfree_skb_list cost every level"),
        m("frags_per_skb", false, "a level with frags dips into __free_pages_ok -> free_one_page before it recurses"),
        Monotone {
            param: "transfer_bytes",
            column: "graph_levels",
            rises: true,
            tolerance_pct: 0.0,
            why: "strparser after 4e485d06bb8c links every TCP skb a record crosses one level below the last, and the rx cache keeps the chain until close (4a9c2e3746e6); otherwise the chain does not grow",
            unless: &[],
        },
    ]
}

#[cfg(test)]
mod tests;
