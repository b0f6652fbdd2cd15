//! The trace's lane timeline: one row per thread, one column per frame of a window ending at
//! the current frame, coloured by what the thread's CPU does, with page-frag refill ticks; and
//! under it the zone->lock holder and wait queue.

use super::{Trace, WINDOW};
use crate::svg;
use crate::views::fit::{self, Fit};
use skblab_core::sim::trace::{Lane, LockView};

/// Geometry of the desktop lane timeline, in SVG user units.
const LABEL_W: f64 = 150.0;
const CELLS_W: f64 = 500.0;
const ROW_H: f64 = 17.0;
const TOP: f64 = 8.0;
/// A narrow box's cells are at least this wide (CSS pixels): the window shows fewer frames.
pub(super) const NARROW_CELL_MIN_W: f64 = 8.0;
/// A narrow box's window shows at least this many frames.
pub(super) const NARROW_WINDOW_MIN: usize = 10;

/// Where the lanes go: the label column, the cells' width, the frames a row shows, and the
/// labels' font size on a narrow box (there one user unit is a CSS pixel).
pub(super) struct LaneGeom {
    pub(super) label_w: f64,
    pub(super) cells_w: f64,
    pub(super) window: usize,
    font: Option<f64>,
}

impl LaneGeom {
    /// The desktop layout, or one as wide as a narrow box whose label column is as wide as
    /// the longest label and whose window shows as many frames as fit.
    pub(super) fn new(fit: Fit, labels: &[String]) -> LaneGeom {
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
pub(super) fn lane_label(lane: &Lane) -> String {
    format!("cpu {:>2} {}", lane.cpu, lane.thread)
}

/// One row per thread, one column per frame of the window; colour = state; a green tick where
/// `skb_page_frag_refill()` installed a page on that CPU. SVG markup.
pub(super) fn lanes_svg(trace: &Trace, pos: usize, fit: Fit) -> String {
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
pub(super) const LEGEND: &str = concat!(
    r#"<div class="hoa-legend">"#,
    r#"<span><svg width="14" height="12"><rect class="st-Running" x="1" y="1" width="12" height="10" rx="2"/></svg> runs</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-HoldingLock" x="1" y="1" width="12" height="10" rx="2"/></svg> holds zone-&gt;lock</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Spinning" x="1" y="1" width="12" height="10" rx="2"/></svg> spins on zone-&gt;lock</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Runnable" x="1" y="1" width="12" height="10" rx="2"/></svg> waits for its CPU</span>"#,
    r#"<span><svg width="14" height="12"><rect class="st-Sleeping" x="1" y="1" width="12" height="10" rx="2"/></svg> sleeps</span>"#,
    r#"<span><svg width="14" height="12"><path class="refill-mark" d="M3 11 l4 -8 l4 8 z"/></svg> page-frag refill</span>"#,
    "</div>"
);

pub(super) fn lock_queues(s: &mut String, locks: &[LockView]) {
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
