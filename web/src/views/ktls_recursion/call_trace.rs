//! The growing call trace at the current position, oops-style: newest frame at the top, the
//! skb being freed and what just happened above it, the close() path at the bottom.
//!
//! Bounded: the newest [`NEWEST_SHOWN`] walk frames are listed, the rest of the recursion is
//! folded into one line, as the kernel's own traces of deep recursion read.

use super::skb_graph::role_name;
use super::{use_walk, WalkData, WalkProps};
use skblab_core::experiments::ktls_recursion::StackEntry;
use yew::prelude::*;

/// Which stepping view draws the transport (see [`use_walk`]).
const RANK: u8 = 1;
/// Walk frames listed one by one, newest first.
const NEWEST_SHOWN: usize = 24;

/// One line of the trace and how it is marked.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    text: String,
    class: &'static str,
}

fn line(text: String, class: &'static str) -> Line {
    Line { text, class }
}

/// `(entry, stack bytes in use with it)` for every entry, outermost first.
fn with_usage(stack: &[StackEntry]) -> Vec<(StackEntry, u64)> {
    let mut used = 0;
    stack
        .iter()
        .map(|e| {
            used += e.frame_bytes;
            (*e, used)
        })
        .collect()
}

fn frame_line(e: &StackEntry, used: u64, thread: u64) -> Line {
    let size = if e.frame_bytes == 0 { "inlined".to_string() } else { format!("{} B", e.frame_bytes) };
    let text = format!("  {:<24} {:>8} {:>8} B", e.function, size, used);
    match () {
        _ if used > thread => line(format!("{text}  <-- past THREAD_SIZE {thread} B"), "bad"),
        _ if e.frame_bytes == 0 => line(text, "dim"),
        _ => line(text, ""),
    }
}

/// The trace's lines at `position`.
fn trace_lines(walk: &WalkData, position: usize) -> Vec<Line> {
    let t = &walk.trace;
    let thread = t.thread_size_bytes;
    let mut out = vec![head_line(walk, position)];
    if let Some(f) = walk.frame(position) {
        out.push(line(format!("  {}", f.text), if f.overflow { "bad" } else { "now" }));
    }
    out.push(line(format!("  {:<24} {:>8} {:>8}", "Call Trace (newest first)", "frame", "in use"), "dim"));
    let usage = with_usage(&walk.stack(position));
    let (base, calls) = usage.split_at(t.base.len().min(usage.len()));
    for (e, used) in calls.iter().rev().take(NEWEST_SHOWN) {
        out.push(frame_line(e, *used, thread));
    }
    if calls.len() > NEWEST_SHOWN {
        let hidden = &calls[..calls.len() - NEWEST_SHOWN];
        let bytes: u64 = hidden.iter().map(|(e, _)| e.frame_bytes).sum();
        out.push(line(format!("  [... {} more frames of the recursion, {bytes} B ...]", hidden.len()), "dim"));
    }
    out.push(line("  -- close() path --".to_string(), "dim"));
    out.extend(base.iter().rev().map(|(e, used)| frame_line(e, *used, thread)));
    out
}

fn head_line(walk: &WalkData, position: usize) -> Line {
    let Some(f) = walk.frame(position) else {
        return line("before the walk: tcp_disconnect is about to free the socket's skbs".to_string(), "");
    };
    let what = f.node.and_then(|id| walk.node(id)).map_or("-".to_string(), |n| {
        format!("{} #{} ({} frags, {} on its frag_list)", role_name(n), n.id, n.nr_frags, n.frag_list.len())
    });
    line(format!("freeing {what} at nesting level {}", f.level), if f.overflow { "bad" } else { "" })
}

#[function_component(TraceView)]
pub fn trace_view(props: &WalkProps) -> Html {
    let h = match use_walk(&props.run, RANK) {
        Ok(h) => h,
        Err(note) => return note,
    };
    let lines = trace_lines(&h.walk, h.position);
    let truncated = h.walk.trace.truncated;
    html! {
        <figure class="ktls-view card-flat">
            <figcaption>
                <strong>{"Call trace"}</strong>
                <span class="ktls-nums">{ format!("step {} of {}", h.position, h.walk.n_positions() - 1) }</span>
                if truncated {
                    <span class="pill">{"trace cut at its first 20,000 events"}</span>
                }
            </figcaption>
            { h.transport }
            <pre class="ktls-trace ktls-columns" data-testid="call-trace" aria-live="off" tabindex="0">
                { for lines.iter().map(|l| html! { <span class={l.class}>{ &l.text }{"\n"}</span> }) }
            </pre>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
    use skblab_core::Experiment;

    #[test]
    fn the_last_step_of_the_default_walk_shows_the_overflow() {
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
        let lines = trace_lines(&walk, walk.n_positions() - 1);
        assert!(lines.iter().any(|l| l.class == "bad" && l.text.contains("past THREAD_SIZE")), "{lines:#?}");
        assert!(lines.iter().any(|l| l.text.contains("more frames of the recursion")));
        assert!(lines.len() < NEWEST_SHOWN + 24, "bounded: {}", lines.len());
    }

    #[test]
    fn position_zero_is_the_close_path() {
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
        let lines = trace_lines(&walk, 0);
        assert!(lines.iter().any(|l| l.text.contains("tcp_disconnect")));
        assert!(lines.iter().all(|l| l.class != "bad"));
    }
}
