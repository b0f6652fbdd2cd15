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
use crate::views::fit::{use_fit, Fit};
use skblab_core::experiments::high_order_alloc::{Trace, TraceFrame};
use skblab_core::ViewQuery;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

mod lanes;
use lanes::{lanes_svg, lock_queues, LEGEND};

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
        "Event trace: {}, order-{} frags, first {n} events{}",
        skblab_core::output::count(trace.threads, "flow"),
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
mod tests;
