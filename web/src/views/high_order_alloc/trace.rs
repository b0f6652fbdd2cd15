//! The "trace" view: a step-through player over the first events of a small run (core's
//! `traced_run`): what every thread's CPU does (lanes, with page-frag refill markers), the
//! per-CPU list counts, the zone->lock holder and wait queue, and /proc/buddyinfo changing as
//! blocks split and merge.
//!
//! The trace is computed once per (parameters, seed, flows, order) and bounded by
//! [`MAX_EVENTS`] frames; stepping only indexes into it. The transport is the shared
//! [`Transport`] component (buttons, slider, keys while focused).

use super::HoaProps;
use crate::components::transport::Transport;
use skblab_core::experiments::high_order_alloc::{traced_run, FragOrder, Trace};
use skblab_core::sim::trace::{LockView, TraceFrame};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Events recorded per trace: every frame copies every lane, so keep it bounded.
pub const MAX_EVENTS: u64 = 2000;
/// Flow counts offered (a small run: each flow is two threads, two lanes).
const FLOW_CHOICES: &[u32] = &[1, 2, 4, 8];
const DEFAULT_FLOWS: u32 = 4;
/// Frames shown in the lane timeline, ending at the current one.
const WINDOW: usize = 40;

#[function_component(TraceView)]
pub fn trace_view(props: &HoaProps) -> Html {
    let order = use_state_eq(|| 3u32);
    let flows = use_state_eq(|| DEFAULT_FLOWS);
    let position = use_state_eq(|| 0usize);
    let trace = use_memo((props.params.clone(), props.seed, *flows, *order), |(p, seed, flows, order)| {
        traced_run(p, *flows, FragOrder::from_order(*order), *seed, MAX_EVENTS)
    });
    {
        let position = position.clone();
        use_effect_with(trace.clone(), move |_| position.set(0));
    }
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
            if let Some(frame) = trace.frames.get(pos) {
                { frame_html(&trace, pos, frame) }
            } else {
                <p class="muted">{"(no events)"}</p>
            }
        </figure>
    }
}

fn frame_html(trace: &Trace, pos: usize, frame: &TraceFrame) -> Html {
    let prev = pos.checked_sub(1).and_then(|p| trace.frames.get(p));
    html! {
        <>
            <p class="hoa-event">
                { format!("t = {:.3} µs · event {}: {}", frame.time_ns as f64 / 1000.0, frame.index, frame.event) }
            </p>
            { lanes_svg(trace, pos) }
            { legend() }
            { lock_queues(&frame.locks) }
            { refills(trace, pos, frame) }
            { lane_table(frame) }
            { buddyinfo(frame, prev) }
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

/// Geometry of the lane timeline, in SVG user units.
const LABEL_W: f64 = 150.0;
const CELLS_W: f64 = 500.0;
const ROW_H: f64 = 17.0;
const TOP: f64 = 8.0;

/// One row per thread, one column per frame of the window; colour = state; a green tick where
/// `skb_page_frag_refill()` installed a page on that CPU.
fn lanes_svg(trace: &Trace, pos: usize) -> Html {
    let Some(frame) = trace.frames.get(pos) else { return html! {} };
    let start = (pos + 1).saturating_sub(WINDOW);
    let cell_w = CELLS_W / WINDOW as f64;
    let height = TOP + ROW_H * frame.lanes.len() as f64 + 4.0;
    let cells = (start..=pos).flat_map(|f| {
        let col = (f - start) as f64;
        let fr = &trace.frames[f];
        fr.lanes.iter().enumerate().map(move |(i, lane)| {
            let (x, y) = (LABEL_W + col * cell_w, TOP + i as f64 * ROW_H);
            let refilled = fr.refills.iter().any(|r| r.cpu == lane.cpu);
            html! { <>
                <rect class={format!("st-{:?}", lane.state)} x={x.to_string()} y={y.to_string()}
                    width={(cell_w - 1.0).to_string()} height={(ROW_H - 3.0).to_string()} rx="2" />
                if refilled {
                    <path class="refill-mark" d={format!("M{} {} l4 -7 l4 7 z", x + cell_w / 2.0 - 4.0, y + ROW_H - 4.0)} />
                }
            </> }
        })
    });
    let now_x = LABEL_W + (pos - start) as f64 * cell_w;
    let labels = frame.lanes.iter().enumerate().map(|(i, lane)| {
        let y = TOP + i as f64 * ROW_H + 12.0;
        html! { <text x="4" y={y.to_string()}>{ format!("cpu {:>2} {}", lane.cpu, lane.thread) }</text> }
    });
    html! {
        <svg class="hoa-lanes" viewBox={format!("0 0 {} {height}", LABEL_W + CELLS_W)} role="img"
            aria-label={format!("Thread states over events {start} to {pos}")} data-testid="trace-lanes">
            <rect class="now" x={(now_x - 1.0).to_string()} y="0" width={(cell_w + 1.0).to_string()} height={height.to_string()} />
            { for labels }
            { for cells }
        </svg>
    }
}

fn legend() -> Html {
    let item = |class: &str, text: &str| {
        html! { <span><svg width="14" height="12"><rect class={class.to_string()} x="1" y="1" width="12" height="10" rx="2" /></svg>{ format!(" {text}") }</span> }
    };
    html! {
        <div class="hoa-legend">
            { item("st-Running", "runs") }{ item("st-HoldingLock", "holds zone->lock") }
            { item("st-Spinning", "spins on zone->lock") }{ item("st-Runnable", "waits for its CPU") }
            { item("st-Sleeping", "sleeps") }
            <span><svg width="14" height="12"><path class="refill-mark" d="M3 11 l4 -8 l4 8 z" /></svg>{" page-frag refill"}</span>
        </div>
    }
}

fn lock_queues(locks: &[LockView]) -> Html {
    html! {
        <div data-testid="zone-lock-queue">
            { for locks.iter().map(|l| html! {
                <div class="hoa-lock" data-node={l.node.to_string()} data-waiting={l.waiting_cpus.len().to_string()}>
                    <strong>{ format!("node {} zone->lock:", l.node) }</strong>
                    { match l.holder_cpu {
                        Some(c) => html! { <span class="cpu-chip holder">{ format!("cpu {c} holds") }</span> },
                        None => html! { <span class="muted">{"free"}</span> },
                    } }
                    if !l.waiting_cpus.is_empty() {
                        <span class="muted">{ format!("queue ({}):", l.waiting_cpus.len()) }</span>
                        { for l.waiting_cpus.iter().map(|c| html! { <span class="cpu-chip waiter">{ format!("cpu {c}") }</span> }) }
                    }
                </div>
            }) }
        </div>
    }
}

fn refills(trace: &Trace, pos: usize, frame: &TraceFrame) -> Html {
    let so_far = trace.frames[..=pos].iter().flat_map(|f| &f.refills);
    let (total, from_buddy) = so_far.fold((0, 0), |(t, b), r| (t + 1, b + usize::from(r.source.contains("buddy"))));
    html! {
        <div class="hoa-legend" data-testid="trace-refills">
            <span>{ format!("page-frag refills so far: {total} ({from_buddy} from the buddy allocator under zone->lock)") }</span>
            { for frame.refills.iter().map(|r| html! {
                <span class="cpu-chip">{ format!("cpu {} flow {}: order-{} pfn {} from {}", r.cpu, r.flow, r.order, r.pfn, r.source) }</span>
            }) }
        </div>
    }
}

fn lane_table(frame: &TraceFrame) -> Html {
    html! {
        <details>
            <summary>{"Threads now (CPU, state, kernel function, pages on the CPU's per-CPU lists)"}</summary>
            <table class="results grid hoa-lane-table">
                <thead><tr><th>{"thread"}</th><th class="num">{"cpu"}</th><th>{"state"}</th><th>{"function"}</th><th class="num">{"pcp count"}</th></tr></thead>
                <tbody>{ for frame.lanes.iter().map(|l| html! {
                    <tr><td>{ &l.thread }</td><td class="num">{ l.cpu }</td><td>{ l.state.word() }</td>
                        <td><code>{ &l.function }</code></td><td class="num">{ l.pcp_count }</td></tr>
                }) }</tbody>
            </table>
        </details>
    }
}

/// `/proc/buddyinfo` of the frame, with the counts that changed since the previous frame marked.
fn buddyinfo(frame: &TraceFrame, prev: Option<&TraceFrame>) -> Html {
    let lines = frame.buddyinfo.iter().enumerate().map(|(i, line)| {
        let before = prev.and_then(|p| p.buddyinfo.get(i)).map_or(line.as_str(), String::as_str);
        let parts = diff_tokens(before, line).into_iter().map(|(text, changed)| {
            if changed {
                html! { <mark class="changed">{ text }</mark> }
            } else {
                html! { { text } }
            }
        });
        html! { <>{ for parts }{"\n"}</> }
    });
    html! {
        <div>
            <p class="muted">{"/proc/buddyinfo (free blocks per order 0..10; changed counts highlighted)"}</p>
            <pre class="hoa-pre hoa-buddy" data-testid="buddyinfo">{ for lines }</pre>
        </div>
    }
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
    use skblab_core::experiments::high_order_alloc::HighOrderAlloc;
    use skblab_core::Experiment;

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
        let params = HighOrderAlloc.defaults();
        let trace = traced_run(&params, DEFAULT_FLOWS, FragOrder::Order3, 1, MAX_EVENTS);
        assert!(trace.frames.len() as u64 <= MAX_EVENTS && !trace.frames.is_empty());
        let last = trace.frames.last().unwrap();
        assert_eq!(last.lanes.len(), 2 * DEFAULT_FLOWS as usize);
        assert!(!last.locks.is_empty() && !last.buddyinfo.is_empty());
        assert!(trace.frames.iter().any(|f| !f.refills.is_empty()), "some refill in the first events");
    }
}
