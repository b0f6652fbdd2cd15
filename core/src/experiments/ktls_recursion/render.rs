//! Text views: a synthetic oops in the style of the kernel's (our own format, marked as
//! simulated) and a per-level stack table.
//!
//! What Linux does: on a guard-page hit x86_64 prints "BUG: stack guard page was hit",
//! "kernel stack overflow (double-fault)" and a call trace, innermost frame first, built by
//! the unwinder from return addresses on the stack. We print the model's frames instead:
//! name, frame size and the bytes in use, inlined (0-byte) frames left out as the real
//! unwinder leaves them out, and the long middle of the recursion folded into one line.

use super::stack::StackEntry;
use super::walk::{Overflow, WalkResult};
use std::fmt::Write as _;

/// Innermost frames printed before the fold.
const INNER_FRAMES_SHOWN: usize = 8;
/// Outermost recursion frames printed after the fold (before the close() path).
const OUTER_FRAMES_SHOWN: usize = 4;

/// What the header says about the run.
pub struct OopsContext<'a> {
    pub fix: &'a str,
    pub rx_cache: bool,
    pub tcp_skbs: u32,
    pub thread_size_bytes: u64,
    pub base_frames: usize,
}

impl OopsContext<'_> {
    fn setup(&self) -> String {
        format!(
            "fix: {}, rx cache {}, {} TCP skbs received",
            self.fix,
            if self.rx_cache { "on" } else { "off" },
            self.tcp_skbs
        )
    }
}

/// The oops, or a one-paragraph all-clear when the walk fit.
pub fn render_oops(ctx: &OopsContext<'_>, result: &WalkResult) -> String {
    match &result.overflow {
        Some(o) => render_overflow(ctx, o),
        None => format!(
            "skblab (simulated): no overflow. close() freed {} skbs over {} nesting levels; \
             peak stack {} of {} bytes ({} to spare). {}\n",
            result.skbs_freed.len(),
            result.depth_reached,
            result.stack_used_bytes_max,
            ctx.thread_size_bytes,
            ctx.thread_size_bytes.saturating_sub(result.stack_used_bytes_max),
            ctx.setup()
        ),
    }
}

fn render_overflow(ctx: &OopsContext<'_>, o: &Overflow) -> String {
    let mut s = String::from("skblab simulated oops -- a model's output, not a kernel log\n");
    if o.guard_page_hit {
        s.push_str("BUG (sim): the frame below ran into the CONFIG_VMAP_STACK guard page\n");
        s.push_str("BUG (sim): kernel stack overflow -> double fault, task killed\n");
    } else {
        s.push_str("BUG (sim): stack overrun with no guard page: the frame is written over\n");
        s.push_str("           whatever memory lies below the stack (silent corruption)\n");
    }
    let _ = writeln!(s, "  task: close() of a kTLS socket; {}", ctx.setup());
    let _ = writeln!(
        s,
        "  THREAD_SIZE {} B; calling {} ({} B) at nesting level {} needs {} B",
        ctx.thread_size_bytes, o.function, o.frame_bytes, o.level, o.needed_bytes
    );
    s.push_str("Call chain (innermost first): function, frame size, stack in use with it\n");
    for line in trace_lines(o, ctx.base_frames) {
        s.push_str(&line);
    }
    s.push_str("---[ end of simulated trace ]---\n");
    s
}

/// One line per shown frame, innermost first, with the folded middle.
fn trace_lines(o: &Overflow, base_frames: usize) -> Vec<String> {
    // Cumulative bytes, outermost first, then keep the visible (non-inlined) frames.
    let mut used = 0;
    let mut frames: Vec<(usize, StackEntry, u64)> = Vec::new();
    for (i, e) in o.stack.iter().enumerate() {
        used += e.frame_bytes;
        if e.frame_bytes > 0 {
            frames.push((i, *e, used));
        }
    }
    frames.reverse();
    let line = |e: &StackEntry, used: u64, mark: &str| {
        format!("  {:<26} {:>4} B {:>6} B{mark}\n", e.function, e.frame_bytes, used)
    };
    let split = frames.iter().position(|(i, _, _)| *i < base_frames).unwrap_or(frames.len());
    let (walk, base) = frames.split_at(split);
    let mut out = Vec::new();
    let fold = walk.len() > INNER_FRAMES_SHOWN + OUTER_FRAMES_SHOWN + 1;
    for (n, (_, e, u)) in walk.iter().enumerate() {
        let hidden = fold && n >= INNER_FRAMES_SHOWN && n < walk.len() - OUTER_FRAMES_SHOWN;
        if hidden {
            if n == INNER_FRAMES_SHOWN {
                let folded = &walk[INNER_FRAMES_SHOWN..walk.len() - OUTER_FRAMES_SHOWN];
                let bytes: u64 = folded.iter().map(|(_, e, _)| e.frame_bytes).sum();
                let calls = folded.iter().filter(|(_, e, _)| e.function == "kfree_skb").count();
                out.push(format!("  ... {} more frames ({calls} x kfree_skb), {bytes} B ...\n", folded.len()));
            }
            continue;
        }
        out.push(line(e, *u, if n == 0 { "  <-- does not fit" } else { "" }));
    }
    out.extend(base.iter().map(|(_, e, u)| line(e, *u, "")));
    out
}

/// Stack in use on entering each nesting level: all levels up to 24, else the first and
/// last ten.
pub fn render_stack_table(result: &WalkResult, thread_size_bytes: u64, base_bytes: u64) -> String {
    let mut s = format!("close() path below the walk: {base_bytes} B of {thread_size_bytes} B\n");
    s.push_str("level  stack_used_bytes  delta_bytes  left_bytes\n");
    let levels = &result.level_stack_bytes;
    let n = levels.len();
    let mut prev = base_bytes;
    for (i, &used) in levels.iter().enumerate() {
        let shown = n <= 24 || i < 10 || i >= n - 10;
        if shown {
            let left = thread_size_bytes as i64 - used as i64;
            let delta = used as i64 - prev as i64;
            let _ = writeln!(s, "{:>5}  {:>16}  {:>11}  {:>10}", i + 1, used, delta, left);
        } else if i == 10 {
            let _ = writeln!(s, "  ...  ({} levels)", n - 20);
        }
        prev = used;
    }
    match &result.overflow {
        Some(o) => {
            let _ = writeln!(s, "overflow: {} at level {} needs {} B", o.function, o.level, o.needed_bytes);
        }
        None => {
            let _ = writeln!(s, "peak: {} B, no overflow", result.stack_used_bytes_max);
        }
    }
    s
}
