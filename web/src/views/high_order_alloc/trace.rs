//! The "trace" view: a step-through player over the first events of a small run (core's view
//! data "trace", `traced_run`): what every thread's CPU does (lanes, with page-frag refill
//! markers), the per-CPU list counts, the zone->lock holder and wait queue, and
//! /proc/buddyinfo changing as blocks split and merge.
//!
//! The trace is computed once per (parameters, seed, flows, order) in the sweep worker (2000
//! events of up to 8 flows take more than a frame) and bounded by core's `TRACE_EVENTS`
//! frames; stepping only indexes into it. The transport is the shared [`Transport`] component
//! (buttons, slider, keys while focused).

use super::HoaProps;
use crate::components::transport::Transport;
use crate::run::{use_view_data, ViewLoad};
use crate::svg;
use crate::views::fit::{self, use_fit, Fit};
use serde::{Deserialize, Serialize};
use skblab_core::sim::trace::LaneState as CoreLaneState;
use skblab_core::ViewQuery;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The fields of core's `high_order_alloc::Trace` this view reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub threads: u32,
    pub order: u32,
    pub frames: Vec<TraceFrame>,
    pub complete: bool,
}

/// Core's `TraceFrame` (the machine after one event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFrame {
    pub index: u64,
    pub time_ns: u64,
    pub event: String,
    pub lanes: Vec<Lane>,
    pub refills: Vec<RefillMarker>,
    pub locks: Vec<LockView>,
    pub buddyinfo: Vec<String>,
}

/// Core's `sim::trace::Lane` (one thread in a frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub cpu: u16,
    pub thread: String,
    pub state: LaneState,
    pub function: String,
    pub pcp_count: u32,
}

/// Core's `sim::trace::LaneState`, by its variant names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneState {
    Running,
    Spinning,
    HoldingLock,
    Runnable,
    Sleeping,
}

impl LaneState {
    /// Core's words for the state.
    fn word(self) -> &'static str {
        let core = match self {
            LaneState::Running => CoreLaneState::Running,
            LaneState::Spinning => CoreLaneState::Spinning,
            LaneState::HoldingLock => CoreLaneState::HoldingLock,
            LaneState::Runnable => CoreLaneState::Runnable,
            LaneState::Sleeping => CoreLaneState::Sleeping,
        };
        core.word()
    }
}

/// Core's `sim::trace::LockView` (a zone lock at the end of a step).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockView {
    pub node: u32,
    pub holder_cpu: Option<u16>,
    pub waiting_cpus: Vec<u16>,
}

/// Core's `RefillMarker` (`skb_page_frag_refill()` installed a new page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefillMarker {
    pub cpu: u16,
    pub flow: u32,
    pub order: u32,
    pub pfn: u32,
    pub source: String,
}

/// Flow counts offered (a small run: each flow is two threads, two lanes; core takes up to
/// `TRACE_FLOWS_MAX`).
const FLOW_CHOICES: &[u32] = &[1, 2, 4, 8];
const DEFAULT_FLOWS: u32 = 4;
/// Frames shown in the lane timeline, ending at the current one.
const WINDOW: usize = 40;

#[function_component(TraceView)]
pub fn trace_view(props: &HoaProps) -> Html {
    let order = use_state_eq(|| 3u32);
    let flows = use_state_eq(|| DEFAULT_FLOWS);
    let position = use_state_eq(|| 0usize);
    let query = ViewQuery::new("trace").with("flows", i64::from(*flows)).with("order", i64::from(*order));
    let trace = use_view_data::<Trace>(props.run.clone(), query.clone());
    let (node, fit) = use_fit();
    {
        let position = position.clone();
        use_effect_with((props.run.clone(), query), move |_| position.set(0));
    }
    let ViewLoad::Ready(trace) = trace else {
        return html! {
            <figure class="hoa-view card-flat" data-testid="trace-player" data-position="0">
                <figcaption><strong>{ "Event trace" }</strong></figcaption>
                { controls(order, flows) }
                { trace.note().unwrap_or_default() }
            </figure>
        };
    };
    let n = trace.frames.len();
    let pos = (*position).min(n.saturating_sub(1));
    let on_change = {
        let position = position.clone();
        Callback::from(move |p: usize| position.set(p))
    };
    let caption = format!(
        "Event trace: {} flows, order-{} frags, first {n} events{}",
        trace.threads,
        trace.order,
        if trace.complete { " (whole run)" } else { "" }
    );
    html! {
        <figure class="hoa-view card-flat" data-testid="trace-player" data-position={pos.to_string()}>
            <figcaption><strong>{ caption }</strong></figcaption>
            { controls(order, flows) }
            <Transport n_frames={n} position={pos} {on_change} unit="event" />
            <div ref={node}>
            if let Some(frame) = trace.frames.get(pos) {
                { frame_html(&trace, pos, frame, fit) }
            } else {
                <p class="muted">{"(no events)"}</p>
            }
            </div>
        </figure>
    }
}

fn frame_html(trace: &Trace, pos: usize, frame: &TraceFrame, fit: Fit) -> Html {
    let prev = pos.checked_sub(1).and_then(|p| trace.frames.get(p));
    let s = &mut String::new();
    svg!(
        s,
        r#"<p class="hoa-event">{}</p>"#,
        format_args!("t = {:.3} µs · event {}: {}", frame.time_ns as f64 / 1000.0, frame.index, frame.event)
    );
    s.push_str(&lanes_svg(trace, pos, fit));
    s.push_str(LEGEND);
    lock_queues(s, &frame.locks);
    refills(s, trace, pos, frame);
    let after = &mut String::new();
    buddyinfo(after, frame, prev);
    html! {
        <>
            { svg::into_html(std::mem::take(s)) }
            <details>
                <summary>{"Threads now (CPU, state, kernel function, pages on the CPU's per-CPU lists)"}</summary>
                { svg::into_html(lane_table(frame)) }
            </details>
            { svg::into_html(std::mem::take(after)) }
        </>
    }
}

fn controls(order: UseStateHandle<u32>, flows: UseStateHandle<u32>) -> Html {
    let on_order = Callback::from(move |e: Event| {
        if let Some(v) = e.target_dyn_into::<HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
            order.set(v);
        }
    });
    let current_flows = *flows;
    let on_flows = Callback::from(move |e: Event| {
        if let Some(v) = e.target_dyn_into::<HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
            flows.set(v);
        }
    });
    html! {
        <div class="hoa-controls">
            <label>{"frags "}
                <select onchange={on_order} data-testid="trace-order">
                    <option value="3" selected=true>{"order-3 (sysctl 0)"}</option>
                    <option value="0">{"order-0 (sysctl 1)"}</option>
                </select>
            </label>
            <label>{"flows "}
                <select onchange={on_flows} data-testid="trace-flows">
                    { for FLOW_CHOICES.iter().map(|f| html! {
                        <option value={f.to_string()} selected={*f == current_flows}>{ f }</option>
                    }) }
                </select>
            </label>
        </div>
    }
}

/// Geometry of the desktop lane timeline, in SVG user units.
const LABEL_W: f64 = 150.0;
const CELLS_W: f64 = 500.0;
const ROW_H: f64 = 17.0;
const TOP: f64 = 8.0;
/// A narrow box's cells are at least this wide (CSS pixels): the window shows fewer frames.
const NARROW_CELL_MIN_W: f64 = 8.0;
/// A narrow box's window shows at least this many frames.
const NARROW_WINDOW_MIN: usize = 10;

/// Where the lanes go: the label column, the cells' width, the frames a row shows, and the
/// labels' font size on a narrow box (there one user unit is a CSS pixel).
struct LaneGeom {
    label_w: f64,
    cells_w: f64,
    window: usize,
    font: Option<f64>,
}

impl LaneGeom {
    /// The desktop layout, or one as wide as a narrow box whose label column is as wide as
    /// the longest label and whose window shows as many frames as fit.
    fn new(fit: Fit, labels: &[String]) -> LaneGeom {
        let Some(w) = fit.narrow() else {
            return LaneGeom { label_w: LABEL_W, cells_w: CELLS_W, window: WINDOW, font: None };
        };
        let font = fit::SMALL_FONT;
        let label_w = labels.iter().map(|l| fit::mono_w(l, font)).fold(0.0, f64::max) + 10.0;
        let cells_w = (w - label_w).max(NARROW_CELL_MIN_W * NARROW_WINDOW_MIN as f64);
        let window = ((cells_w / NARROW_CELL_MIN_W) as usize).clamp(NARROW_WINDOW_MIN, WINDOW);
        LaneGeom { label_w, cells_w, window, font: Some(font) }
    }
}

/// A lane's label.
fn lane_label(lane: &Lane) -> String {
    format!("cpu {:>2} {}", lane.cpu, lane.thread)
}

/// One row per thread, one column per frame of the window; colour = state; a green tick where
/// `skb_page_frag_refill()` installed a page on that CPU. SVG markup.
fn lanes_svg(trace: &Trace, pos: usize, fit: Fit) -> String {
    let s = &mut String::new();
    let Some(frame) = trace.frames.get(pos) else { return std::mem::take(s) };
    let labels: Vec<String> = frame.lanes.iter().map(lane_label).collect();
    let g = LaneGeom::new(fit, &labels);
    let start = (pos + 1).saturating_sub(g.window);
    let cell_w = g.cells_w / g.window as f64;
    let height = TOP + ROW_H * frame.lanes.len() as f64 + 4.0;
    let now_x = g.label_w + (pos - start) as f64 * cell_w;
    svg!(
        s,
        concat!(
            r#"<svg class="hoa-lanes" viewBox="0 0 {} {}" role="img" aria-label="Thread states over events {} to {}" data-testid="trace-lanes" data-fit="{}">"#,
            r#"<rect class="now" x="{}" y="0" width="{}" height="{}"/>"#
        ),
        g.label_w + g.cells_w,
        height,
        start,
        pos,
        if g.font.is_some() { "narrow" } else { "wide" },
        now_x - 1.0,
        cell_w + 1.0,
        height
    );
    let style = g.font.map_or(String::new(), |f| format!("font-size: {f}px"));
    for (i, label) in labels.iter().enumerate() {
        let y = TOP + i as f64 * ROW_H + 12.0;
        svg!(s, r#"<text x="4" y="{}" style="{}">{}</text>"#, y, style, label);
    }
    for f in start..=pos {
        let col = (f - start) as f64;
        let fr = &trace.frames[f];
        for (i, lane) in fr.lanes.iter().enumerate() {
            let (x, y) = (g.label_w + col * cell_w, TOP + i as f64 * ROW_H);
            svg!(
                s,
                r#"<rect class="st-{}" x="{}" y="{}" width="{}" height="{}" rx="2"/>"#,
                format_args!("{:?}", lane.state),
                x,
                y,
                cell_w - 1.0,
                ROW_H - 3.0
            );
            if fr.refills.iter().any(|r| r.cpu == lane.cpu) {
                svg!(
                    s,
                    r#"<path class="refill-mark" d="M{} {} l4 -7 l4 7 z"/>"#,
                    x + cell_w / 2.0 - 4.0,
                    y + ROW_H - 4.0
                );
            }
        }
    }
    s.push_str("</svg>");
    std::mem::take(s)
}

/// What the lane colours mean (constant markup).
const LEGEND: &str = concat!(
    r#"<div class="hoa-legend">"#,
    r#"<span><svg width="14" height="12"><rect class="st-Running" x="1" y="1" width="12" height="10" rx="2"/></svg> runs</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-HoldingLock" x="1" y="1" width="12" height="10" rx="2"/></svg> holds zone-&gt;lock</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Spinning" x="1" y="1" width="12" height="10" rx="2"/></svg> spins on zone-&gt;lock</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Runnable" x="1" y="1" width="12" height="10" rx="2"/></svg> waits for its CPU</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Sleeping" x="1" y="1" width="12" height="10" rx="2"/></svg> sleeps</span>"#,
    r#"<span><svg width="14" height="12"><path class="refill-mark" d="M3 11 l4 -8 l4 8 z"/></svg> page-frag refill</span>"#,
    "</div>"
);

fn lock_queues(s: &mut String, locks: &[LockView]) {
    s.push_str(r#"<div data-testid="zone-lock-queue">"#);
    for l in locks {
        svg!(
            s,
            r#"<div class="hoa-lock" data-node="{}" data-waiting="{}"><strong>node {} zone-&gt;lock:</strong>"#,
            l.node,
            l.waiting_cpus.len(),
            l.node
        );
        match l.holder_cpu {
            Some(c) => svg!(s, r#"<span class="cpu-chip holder">cpu {} holds</span>"#, c),
            None => s.push_str(r#"<span class="muted">free</span>"#),
        }
        if !l.waiting_cpus.is_empty() {
            svg!(s, r#"<span class="muted">queue ({}):</span>"#, l.waiting_cpus.len());
            for c in &l.waiting_cpus {
                svg!(s, r#"<span class="cpu-chip waiter">cpu {}</span>"#, c);
            }
        }
        s.push_str("</div>");
    }
    s.push_str("</div>");
}

fn refills(s: &mut String, trace: &Trace, pos: usize, frame: &TraceFrame) {
    let so_far = trace.frames[..=pos].iter().flat_map(|f| &f.refills);
    let (total, from_buddy) = so_far.fold((0, 0), |(t, b), r| (t + 1, b + usize::from(r.source.contains("buddy"))));
    svg!(
        s,
        r#"<div class="hoa-legend" data-testid="trace-refills"><span>page-frag refills so far: {} ({} from the buddy allocator under zone-&gt;lock)</span>"#,
        total,
        from_buddy
    );
    for r in &frame.refills {
        svg!(
            s,
            r#"<span class="cpu-chip">cpu {} flow {}: order-{} pfn {} from {}</span>"#,
            r.cpu,
            r.flow,
            r.order,
            r.pfn,
            r.source
        );
    }
    s.push_str("</div>");
}

/// The table of the threads now (inside a `<details>` drawn by `html!`, which keeps it open
/// across frames).
fn lane_table(frame: &TraceFrame) -> String {
    let s = &mut String::from(concat!(
        r#"<table class="results grid hoa-lane-table"><thead><tr><th>thread</th><th class="num">cpu</th>"#,
        r#"<th>state</th><th>function</th><th class="num">pcp count</th></tr></thead><tbody>"#
    ));
    for l in &frame.lanes {
        svg!(
            s,
            r#"<tr><td>{}</td><td class="num">{}</td><td>{}</td><td><code>{}</code></td><td class="num">{}</td></tr>"#,
            l.thread,
            l.cpu,
            l.state.word(),
            l.function,
            l.pcp_count
        );
    }
    s.push_str("</tbody></table>");
    std::mem::take(s)
}

/// `/proc/buddyinfo` of the frame, with the counts that changed since the previous frame marked.
fn buddyinfo(s: &mut String, frame: &TraceFrame, prev: Option<&TraceFrame>) {
    s.push_str(concat!(
        r#"<div><p class="muted">/proc/buddyinfo (free blocks per order 0..10; changed counts highlighted)</p>"#,
        r#"<pre class="hoa-pre hoa-buddy" data-testid="buddyinfo" tabindex="0">"#
    ));
    for (i, line) in frame.buddyinfo.iter().enumerate() {
        let before = prev.and_then(|p| p.buddyinfo.get(i)).map_or(line.as_str(), String::as_str);
        for (text, changed) in diff_tokens(before, line) {
            if changed {
                svg!(s, r#"<mark class="changed">{}</mark>"#, text);
            } else {
                svg!(s, "{}", text);
            }
        }
        s.push('\n');
    }
    s.push_str("</pre></div>");
}

/// `current` cut into runs of spaces and words, each word flagged if it differs from the word
/// at the same place in `before`.
pub fn diff_tokens(before: &str, current: &str) -> Vec<(String, bool)> {
    let words_before: Vec<&str> = before.split_whitespace().collect();
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut word_index = 0;
    let mut rest = current;
    while !rest.is_empty() {
        let is_space = rest.starts_with(char::is_whitespace);
        let end = rest.find(|c: char| c.is_whitespace() != is_space).unwrap_or(rest.len());
        let (token, tail) = rest.split_at(end);
        let changed = !is_space && words_before.get(word_index) != Some(&token);
        if !is_space {
            word_index += 1;
        }
        out.push((token.to_string(), changed));
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::high_order_alloc::{HighOrderAlloc, TRACE_EVENTS};
    use skblab_core::Experiment;

    /// Core's trace data of a small run, read as this view reads it (from its JSON).
    fn traced(flows: u32) -> Trace {
        let query = ViewQuery::new("trace").with("flows", flows.into()).with("order", 3);
        let data = HighOrderAlloc.view_data(&HighOrderAlloc.defaults(), 1, &query).expect("trace data");
        let trace = skblab_core::ViewData::from_json(data.to_json()).decode::<Trace>().expect("the view reads it");
        (*trace).clone()
    }

    #[test]
    fn diff_marks_changed_counts_and_keeps_spacing() {
        let got = diff_tokens("Node 0, zone Normal  1  2  3", "Node 0, zone Normal  1  4  3");
        let text: String = got.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(text, "Node 0, zone Normal  1  4  3");
        let changed: Vec<&str> = got.iter().filter(|t| t.1).map(|t| t.0.as_str()).collect();
        assert_eq!(changed, ["4"]);
    }

    #[test]
    fn a_small_trace_is_bounded_and_has_lanes_locks_and_buddyinfo() {
        let trace = traced(DEFAULT_FLOWS);
        assert!(trace.frames.len() as u64 <= TRACE_EVENTS && !trace.frames.is_empty());
        let last = trace.frames.last().unwrap();
        assert_eq!(last.lanes.len(), 2 * DEFAULT_FLOWS as usize);
        assert!(!last.locks.is_empty() && !last.buddyinfo.is_empty());
        assert!(trace.frames.iter().any(|f| !f.refills.is_empty()), "some refill in the first events");
    }

    #[test]
    fn the_lanes_locks_refills_and_buddyinfo_as_markup() {
        let trace = traced(DEFAULT_FLOWS);
        let pos = trace.frames.len() - 1;
        let frame = &trace.frames[pos];
        let lanes = lanes_svg(&trace, pos, Fit::Wide);
        assert!(lanes.starts_with("<svg class=\"hoa-lanes\" viewBox=\"0 0 650 "), "{lanes}");
        assert!(lanes.contains("data-testid=\"trace-lanes\"") && lanes.ends_with("</svg>"));
        let cells = lanes.matches("<rect class=\"st-").count();
        assert_eq!(cells, WINDOW.min(pos + 1) * frame.lanes.len(), "a cell per lane and frame of the window");
        assert_eq!(lanes.matches("<text ").count(), frame.lanes.len());
        let s = &mut String::new();
        lock_queues(s, &frame.locks);
        assert!(s.starts_with("<div data-testid=\"zone-lock-queue\">") && s.contains("zone-&gt;lock:"));
        s.clear();
        refills(s, &trace, pos, frame);
        assert!(s.contains("data-testid=\"trace-refills\"") && s.contains("page-frag refills so far: "));
        s.clear();
        buddyinfo(s, frame, None);
        assert!(s.contains("data-testid=\"buddyinfo\" tabindex=\"0\">Node 0, zone") && !s.contains("<mark"), "{s}");
        assert!(lane_table(frame).matches("<tr>").count() == frame.lanes.len() + 1);
    }

    #[test]
    fn a_narrow_box_gets_lanes_of_its_width_with_every_label_beside_its_row() {
        let trace = traced(8);
        let pos = trace.frames.len() - 1;
        let lanes = lanes_svg(&trace, pos, Fit::Narrow(300.0));
        let labels: Vec<String> = trace.frames[pos].lanes.iter().map(lane_label).collect();
        let g = LaneGeom::new(Fit::Narrow(300.0), &labels);
        assert!((g.label_w + g.cells_w - 300.0).abs() < 1e-9, "as wide as the box");
        assert!(lanes.contains(&format!("viewBox=\"0 0 {} ", g.label_w + g.cells_w)) && lanes.contains("data-fit=\"narrow\""));
        assert!(g.window >= NARROW_WINDOW_MIN && g.cells_w / g.window as f64 >= NARROW_CELL_MIN_W);
        assert!(labels.iter().all(|l| fit::mono_w(l, fit::SMALL_FONT) + 4.0 <= g.label_w), "labels fit their column");
        assert_eq!(lanes.matches("font-size: 11.5px").count(), labels.len());
        assert_eq!(lanes.matches("<rect class=\"st-").count(), g.window.min(pos + 1) * labels.len());
    }
}
