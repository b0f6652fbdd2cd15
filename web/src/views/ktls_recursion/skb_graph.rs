//! The skb graph at close: heads and clones as boxes (frags, users, dataref), frag_list edges
//! from each skb to the skbs on its list, one row per nesting level, the skb being freed at
//! the current position highlighted and the ones already freed faded.
//!
//! Bounded: the default scenario has about 1,500 skbs over as many levels, so only a window of
//! [`LEVELS_SHOWN`] levels around the current skb is drawn, at most [`PER_ROW_SHOWN`] skbs a
//! row, with a label for what is left out.

use super::{use_walk, WalkData, WalkProps};
use crate::svg;
use crate::views::fit::{use_fit, Fit, Fonts};
use skblab_core::experiments::ktls_recursion::graph::RootCall;
use skblab_core::experiments::ktls_recursion::{GraphNode, SkbKind, SkbRole, TraceEvent};
use std::collections::{HashMap, HashSet};
use yew::prelude::*;

mod node;
use node::node_box;

/// Which stepping view draws the transport (see [`use_walk`]).
const RANK: u8 = 2;
const VIEW_W: f64 = 640.0;
const ROW_H: f64 = 74.0;
const TOP_Y: f64 = 44.0;
const BOX_W: f64 = 138.0;
const BOX_H: f64 = 44.0;
/// Room on the left for the level numbers.
const LEVEL_LABEL_W: f64 = 48.0;
pub const LEVELS_SHOWN: usize = 6;
pub const PER_ROW_SHOWN: usize = 4;
/// On a narrow box: skbs a row, the level column, the box and row heights (three lines of
/// text a box), and the room above the first row (the socket's line and its roots').
const NARROW_PER_ROW: usize = 2;
const NARROW_LABEL_W: f64 = 44.0;
const NARROW_BOX_H: f64 = 54.0;
const NARROW_ROW_H: f64 = 82.0;
const NARROW_TOP_Y: f64 = 58.0;

/// Where the window's boxes go: the desktop layout, or one as wide as a narrow box (one user
/// unit a CSS pixel) with two skbs a row, three lines a box and the given font sizes.
struct GraphGeom {
    w: f64,
    per_row: usize,
    label_w: f64,
    box_w: f64,
    box_h: f64,
    row_h: f64,
    top_y: f64,
    fonts: Fonts,
}

impl GraphGeom {
    fn new(fit: Fit) -> GraphGeom {
        match fit {
            Fit::Wide => GraphGeom {
                w: VIEW_W,
                per_row: PER_ROW_SHOWN,
                label_w: LEVEL_LABEL_W,
                box_w: BOX_W,
                box_h: BOX_H,
                row_h: ROW_H,
                top_y: TOP_Y,
                fonts: Fonts(None),
            },
            Fit::Narrow(w) => GraphGeom {
                w,
                per_row: NARROW_PER_ROW,
                label_w: NARROW_LABEL_W,
                box_w: ((w - NARROW_LABEL_W) / NARROW_PER_ROW as f64 - 8.0).min(BOX_W),
                box_h: NARROW_BOX_H,
                row_h: NARROW_ROW_H,
                top_y: NARROW_TOP_Y,
                fonts: Fonts::of(fit),
            },
        }
    }
}

/// Levels (1-based, inclusive) of the window around `level`.
fn level_window(level: u32, n_levels: usize) -> (usize, usize) {
    let first_max = n_levels.saturating_sub(LEVELS_SHOWN - 1).max(1);
    let first = (level as usize).saturating_sub(LEVELS_SHOWN / 2).clamp(1, first_max);
    (first, (first + LEVELS_SHOWN - 1).min(n_levels))
}

/// The part of a row that is drawn: up to `per_row` skbs, around the current one.
fn row_window(row: &[usize], current: Option<usize>, per_row: usize) -> &[usize] {
    if row.len() <= per_row {
        return row;
    }
    let at = current.and_then(|c| row.iter().position(|&i| i == c)).unwrap_or(0);
    let first = at.saturating_sub(per_row / 2).min(row.len() - per_row);
    &row[first..first + per_row]
}

/// skbs whose `__kfree_skb` returned by `position`: their descriptor is gone.
fn freed_by(walk: &WalkData, position: usize) -> HashSet<u32> {
    let frames = walk.trace.frames.iter().take(position);
    frames
        .filter(|f| matches!(f.event, TraceEvent::Return { function: "__kfree_skb" }))
        .filter_map(|f| f.node)
        .collect()
}

pub(super) fn role_name(n: &GraphNode) -> &'static str {
    match (n.role, n.kind) {
        (SkbRole::StrpHead, _) => "strp head",
        (SkbRole::StrpClone, _) => "strp clone",
        (SkbRole::Tcp, _) => "tcp skb",
        (_, SkbKind::Clone) => "clone",
        _ => "skb",
    }
}

#[function_component(GraphView)]
pub fn graph_view(props: &WalkProps) -> Html {
    let (node, fit) = use_fit();
    let h = match use_walk(&props.run, RANK) {
        Ok(h) => h,
        Err(note) => return note,
    };
    let walk = &h.walk;
    let g = &walk.trace.graph;
    let current = walk.frame(h.position).and_then(|f| f.node);
    html! {
        <figure class="ktls-view card-flat">
            <figcaption>
                <strong>{"skb graph at close"}</strong>
                <span class="ktls-nums">{ format!("{} skbs, {} levels of frag_list nesting", g.nodes.len(), g.nesting_levels) }</span>
            </figcaption>
            { h.transport }
            <div ref={node}>{ svg::into_html(graph_svg(walk, h.position, current, fit)) }</div>
        </figure>
    }
}

/// The window of the graph as SVG markup.
fn graph_svg(walk: &WalkData, position: usize, current: Option<u32>, fit: Fit) -> String {
    let g = GraphGeom::new(fit);
    let cur_index = current.and_then(|id| walk.node_index.get(&id).copied());
    let cur_level = cur_index.map_or(1, |i| walk.trace.graph.nodes[i].level);
    let (first, last) = level_window(cur_level, walk.rows.len());
    let freed = freed_by(walk, position);
    let below = if last < walk.rows.len() { 40.0 } else { 8.0 };
    let height = g.top_y + (last + 1 - first) as f64 * g.row_h + below + if first > 1 { 18.0 } else { 0.0 };
    // Where each drawn skb's box is, for the edges; the boxes are written after the edges.
    let mut at: HashMap<u32, (f64, f64)> = HashMap::new();
    let boxes = &mut String::new();
    for level in first..=last {
        let row = &walk.rows[level - 1];
        let shown = row_window(row, cur_index, g.per_row);
        let y = g.top_y + (level - first) as f64 * g.row_h + if first > 1 { 18.0 } else { 0.0 };
        let slot = (g.w - g.label_w) / shown.len().max(1) as f64;
        svg!(
            boxes,
            r#"<text class="dim" x="4" y="{}" font-size="{}">L{}</text>"#,
            y + g.box_h / 2.0 + 4.0,
            g.fonts.size(12.0, true),
            level
        );
        for (k, &i) in shown.iter().enumerate() {
            let n = &walk.trace.graph.nodes[i];
            let x = g.label_w + slot * (k as f64 + 0.5) - g.box_w / 2.0;
            at.insert(n.id, (x, y));
            node_box(boxes, n, (x, y), (Some(n.id) == current, freed.contains(&n.id)), &g);
        }
        if row.len() > shown.len() {
            svg!(
                boxes,
                r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="end">+{} more on this level</text>"#,
                g.w - 4.0,
                y - 4.0,
                g.fonts.size(11.0, true),
                row.len() - shown.len()
            );
        }
    }
    let s = &mut String::new();
    let label = graph_label(walk.rows.len(), first, last);
    svg!(
        s,
        r#"<svg viewBox="0 0 {} {}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg" data-testid="skb-graph" data-levels-shown="{}-{}" data-fit="{}">"#,
        g.w,
        height,
        label,
        first,
        last,
        g.fonts.data_fit()
    );
    top_label(s, walk, first, &g);
    edges(s, walk, &at, &g);
    s.push_str(boxes);
    if last < walk.rows.len() {
        svg!(
            s,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">⋮ {} more levels below</text>"#,
            g.w / 2.0,
            height - 12.0,
            g.fonts.size(13.0, false),
            walk.rows.len() - last
        );
    }
    s.push_str("</svg>");
    std::mem::take(s)
}

/// The graph's text alternative: which levels are drawn, or that close() holds no skb.
fn graph_label(levels: usize, first: usize, last: usize) -> String {
    match levels {
        0 => "skb graph: the socket holds no skb at close".to_string(),
        n => format!("skb graph, levels {first} to {last} of {n}"),
    }
}

/// What is above the window: the socket (level 1 shown) or the levels left out.
fn top_label(s: &mut String, walk: &WalkData, first: usize, g: &GraphGeom) {
    if first > 1 {
        svg!(
            s,
            r#"<text class="dim" x="{}" y="22" font-size="{}" text-anchor="middle">⋮ levels 1 – {} above</text>"#,
            g.w / 2.0,
            g.fonts.size(13.0, false),
            first - 1
        );
    } else if walk.trace.graph.roots.is_empty() {
        let (x, size) = (g.w / 2.0, g.fonts.size(13.0, false));
        svg!(
            s,
            r#"<text class="dim" x="{}" y="22" font-size="{}" text-anchor="middle">the socket holds no skb at close</text>"#,
            x,
            size
        );
        svg!(
            s,
            r#"<text class="dim" x="{}" y="40" font-size="{}" text-anchor="middle">({})</text>"#,
            x,
            g.fonts.size(12.0, true),
            roots_text(walk)
        );
    } else if let Some((big, little)) = g.fonts.0 {
        // Two lines: the socket, then its roots.
        svg!(
            s,
            concat!(
                r#"<text class="dim" x="{}" y="18" font-size="{}" text-anchor="middle">level 1: held by the socket</text>"#,
                r#"<text class="dim" x="{}" y="36" font-size="{}" text-anchor="middle">({})</text>"#
            ),
            g.w / 2.0,
            big,
            g.w / 2.0,
            little,
            roots_text(walk)
        );
    } else {
        svg!(
            s,
            r#"<text class="dim" x="{}" y="22" font-size="13" text-anchor="middle">level 1: held by the socket ({})</text>"#,
            g.w / 2.0,
            roots_text(walk)
        );
    }
}

/// The socket's references this walk frees, by what holds them: "1 root: rx skb cache" in the
/// seed's scenario; without the cache, that nothing is left at close.
fn roots_text(walk: &WalkData) -> String {
    let mut names: Vec<&str> = walk
        .trace
        .graph
        .roots
        .iter()
        .map(|r| match r.call {
            RootCall::ReceiveQueuePurge => "receive queue",
            RootCall::RxSkbCache => "rx skb cache",
        })
        .collect();
    names.dedup();
    match walk.trace.graph.roots.len() {
        0 => "no root: nothing is left for close() to free".to_string(),
        n => format!("{n} root{}: {}", if n == 1 { "" } else { "s" }, names.join(", ")),
    }
}

fn edges(s: &mut String, walk: &WalkData, at: &HashMap<u32, (f64, f64)>, g: &GraphGeom) {
    for (&id, &(px, py)) in at {
        let Some(n) = walk.node(id) else { continue };
        for c in &n.frag_list {
            if let Some(&(cx, cy)) = at.get(c) {
                svg!(
                    s,
                    r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="var(--muted)" stroke-width="1.5"/>"#,
                    px + g.box_w / 2.0,
                    py + g.box_h,
                    cx + g.box_w / 2.0,
                    cy
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
