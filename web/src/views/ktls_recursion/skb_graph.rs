//! The skb graph at close: heads and clones as boxes (frags, users, dataref), frag_list edges
//! from each skb to the skbs on its list, one row per nesting level, the skb being freed at
//! the current position highlighted and the ones already freed faded.
//!
//! Bounded: the default scenario has about 1,500 skbs over as many levels, so only a window of
//! [`LEVELS_SHOWN`] levels around the current skb is drawn, at most [`PER_ROW_SHOWN`] skbs a
//! row, with a label for what is left out.

use super::{use_walk, WalkData, WalkProps};
use crate::svg;
use crate::views::fit::{self, use_fit, Fit};
use skblab_core::experiments::ktls_recursion::graph::RootCall;
use skblab_core::experiments::ktls_recursion::{GraphNode, SkbKind, SkbRole, TraceEvent};
use std::collections::{HashMap, HashSet};
use yew::prelude::*;

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
    narrow: Option<(f64, f64)>,
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
                narrow: None,
            },
            Fit::Narrow(w) => GraphGeom {
                w,
                per_row: NARROW_PER_ROW,
                label_w: NARROW_LABEL_W,
                box_w: ((w - NARROW_LABEL_W) / NARROW_PER_ROW as f64 - 8.0).min(BOX_W),
                box_h: NARROW_BOX_H,
                row_h: NARROW_ROW_H,
                top_y: NARROW_TOP_Y,
                narrow: Some((fit::FONT, fit::SMALL_FONT)),
            },
        }
    }

    /// A text's font size: `wide` on the desktop, the narrow label or small size on a phone.
    fn font(&self, wide: f64, small: bool) -> f64 {
        self.narrow.map_or(wide, |(big, little)| if small { little } else { big })
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
            g.font(12.0, true),
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
                g.font(11.0, true),
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
        if g.narrow.is_some() { "narrow" } else { "wide" }
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
            g.font(13.0, false),
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
            g.font(13.0, false),
            first - 1
        );
    } else if walk.trace.graph.roots.is_empty() {
        let (x, size) = (g.w / 2.0, g.font(13.0, false));
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
            g.font(12.0, true),
            roots_text(walk)
        );
    } else if let Some((big, little)) = g.narrow {
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

/// An skb's box at `(x, y)`, `current` and/or `freed`: its role and id, then its frags, its
/// frag_list's length, users and dataref (on a narrow box over two lines).
fn node_box(s: &mut String, n: &GraphNode, (x, y): (f64, f64), (current, freed): (bool, bool), g: &GraphGeom) {
    let faded = freed && !current;
    let (fill, stroke, width) = match (current, freed) {
        (true, _) => ("var(--accent-soft, #e3edf9)", "var(--accent, #1f5fa8)", "3"),
        (false, true) => ("none", "var(--border)", "1"),
        (false, false) => ("var(--surface, #fff)", "var(--fg)", "1.2"),
    };
    svg!(
        s,
        r#"<g class="skb{}{}" data-skb="{}""#,
        if current { " current" } else { "" },
        if freed { " freed" } else { "" },
        n.id
    );
    // Optional attributes: constant markup.
    s.push_str(if current {
        r#" data-current="true""#
    } else if faded {
        r#" opacity="0.45""#
    } else {
        ""
    });
    svg!(
        s,
        r#"><rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{}" stroke="{}" stroke-width="{}""#,
        x,
        y,
        g.box_w,
        g.box_h,
        fill,
        stroke,
        width
    );
    s.push_str(if faded { r#" stroke-dasharray="4 3">"# } else { ">" });
    let cx = x + g.box_w / 2.0;
    if let Some((big, little)) = g.narrow {
        return node_box_narrow(s, n, (cx, y), freed, (big, little));
    }
    svg!(
        s,
        concat!(
            "<title>skb {} ({}), level {}, data block {}: {} page frags, {} skbs on its frag_list, users {}, dataref {}{}</title></rect>",
            r#"<text x="{}" y="{}" font-size="13" text-anchor="middle" font-weight="600">{} #{}</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="middle">{} frags · list {} · u{} d{}</text></g>"#
        ),
        n.id,
        role_name(n),
        n.level,
        n.data,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref,
        if freed { ", freed" } else { "" },
        cx,
        y + 18.0,
        role_name(n),
        n.id,
        cx,
        y + 35.0,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref
    );
}

/// The text of an skb's box on a narrow box: role and id, then id's frags, then the list,
/// users and dataref, each line centred on `cx`.
fn node_box_narrow(s: &mut String, n: &GraphNode, (cx, y): (f64, f64), freed: bool, (big, little): (f64, f64)) {
    svg!(
        s,
        concat!(
            "<title>skb {} ({}), level {}, data block {}: {} page frags, {} skbs on its frag_list, users {}, dataref {}{}</title></rect>",
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" font-weight="600">{}</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">#{} · {} frags</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">list {} · u{} d{}</text></g>"#
        ),
        n.id,
        role_name(n),
        n.level,
        n.data,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref,
        if freed { ", freed" } else { "" },
        cx,
        y + 17.0,
        big,
        role_name(n),
        cx,
        y + 32.0,
        little,
        n.id,
        n.nr_frags,
        cx,
        y + 47.0,
        little,
        n.frag_list.len(),
        n.users,
        n.dataref
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_window_stays_inside_the_graph() {
        assert_eq!(level_window(1, 6105), (1, 6));
        assert_eq!(level_window(248, 6105), (245, 250));
        assert_eq!(level_window(6105, 6105), (6100, 6105));
        assert_eq!(level_window(3, 2), (1, 2));
        assert_eq!(level_window(0, 0), (1, 0));
    }

    #[test]
    fn a_long_row_is_cut_around_the_current_skb() {
        let row: Vec<usize> = (0..100).collect();
        assert_eq!(row_window(&row, Some(50), PER_ROW_SHOWN), &[48, 49, 50, 51]);
        assert_eq!(row_window(&row, Some(99), PER_ROW_SHOWN), &[96, 97, 98, 99]);
        assert_eq!(row_window(&row, None, PER_ROW_SHOWN), &[0, 1, 2, 3]);
        assert_eq!(row_window(&row, Some(50), NARROW_PER_ROW), &[49, 50]);
    }

    #[test]
    fn the_graph_window_has_boxes_edges_and_the_current_skb() {
        use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
        use skblab_core::Experiment;
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
        let position = walk.n_positions() / 2;
        let current = walk.frame(position).and_then(|f| f.node);
        let svg = graph_svg(&walk, position, current, Fit::Wide);
        assert!(svg.starts_with("<svg viewBox=\"0 0 640 "), "{svg}");
        assert!(svg.contains("data-testid=\"skb-graph\"") && svg.contains("role=\"img\""));
        assert!(svg.matches("<g class=\"skb").count() >= LEVELS_SHOWN, "a box per level at least");
        assert!(svg.contains("<line "), "frag_list edges");
        if let Some(id) = current {
            assert!(svg.contains(&format!("data-skb=\"{id}\" data-current=\"true\"")));
        }
        assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count());
        assert_eq!(svg.matches("<title>").count(), svg.matches("<rect").count());
    }

    #[test]
    fn an_empty_close_draws_no_box_and_says_why() {
        use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
        use skblab_core::Experiment;
        let p = KtlsRecursion.params_from(&["tcp_rx_skb_cache=false".to_string()]).expect("valid");
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&p)));
        assert_eq!(walk.n_positions(), 1);
        for fit in [Fit::Wide, Fit::Narrow(300.0)] {
            let svg = graph_svg(&walk, 0, None, fit);
            assert!(svg.contains("nothing is left for close() to free"), "{svg}");
            assert!(svg.contains("aria-label=\"skb graph: the socket holds no skb at close\""), "{svg}");
            assert_eq!(svg.matches("<g class=\"skb").count(), 0);
        }
    }

    #[test]
    fn a_narrow_box_gets_two_skbs_a_row_every_text_legible_and_inside_its_box() {
        use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
        use skblab_core::Experiment;
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
        for position in [0, walk.n_positions() / 2, walk.n_positions() - 1] {
            let current = walk.frame(position).and_then(|f| f.node);
            let m = graph_svg(&walk, position, current, Fit::Narrow(300.0));
            assert!(m.starts_with("<svg viewBox=\"0 0 300 ") && m.contains("data-fit=\"narrow\""), "{m}");
            let sizes = fit::text_font_sizes(&m);
            assert!(sizes.iter().all(|&f| f >= fit::SMALL_FONT), "{sizes:?}");
            assert!(m.matches("<g class=\"skb").count() <= LEVELS_SHOWN * NARROW_PER_ROW);
        }
        let g = GraphGeom::new(Fit::Narrow(300.0));
        // The longest lines of a box: role and id, frags, list.
        for line in ["strp clone", "#99999 · 17 frags", "list 99 · u9 d9"] {
            let font = if line == "strp clone" { fit::BOLD * fit::FONT } else { fit::SMALL_FONT };
            assert!(fit::text_w(line, font) + 6.0 <= g.box_w, "{line}: {} in {}", fit::text_w(line, font), g.box_w);
        }
    }
}
