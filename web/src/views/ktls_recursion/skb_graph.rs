//! The skb graph at close: heads and clones as boxes (frags, users, dataref), frag_list edges
//! from each skb to the skbs on its list, one row per nesting level, the skb being freed at
//! the current position highlighted and the ones already freed faded.
//!
//! Bounded: the default scenario has about 18,000 skbs over 6,105 levels, so only a window of
//! [`LEVELS_SHOWN`] levels around the current skb is drawn, at most [`PER_ROW_SHOWN`] skbs a
//! row, with a label for what is left out.

use super::{use_walk, WalkData, WalkProps};
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

/// Levels (1-based, inclusive) of the window around `level`.
fn level_window(level: u32, n_levels: usize) -> (usize, usize) {
    let first_max = n_levels.saturating_sub(LEVELS_SHOWN - 1).max(1);
    let first = (level as usize).saturating_sub(LEVELS_SHOWN / 2).clamp(1, first_max);
    (first, (first + LEVELS_SHOWN - 1).min(n_levels))
}

/// The part of a row that is drawn: up to [`PER_ROW_SHOWN`] skbs, around the current one.
fn row_window(row: &[usize], current: Option<usize>) -> &[usize] {
    if row.len() <= PER_ROW_SHOWN {
        return row;
    }
    let at = current.and_then(|c| row.iter().position(|&i| i == c)).unwrap_or(0);
    let first = at.saturating_sub(PER_ROW_SHOWN / 2).min(row.len() - PER_ROW_SHOWN);
    &row[first..first + PER_ROW_SHOWN]
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
    let h = use_walk(&props.params, RANK);
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
            { graph_svg(walk, h.position, current) }
        </figure>
    }
}

fn graph_svg(walk: &WalkData, position: usize, current: Option<u32>) -> Html {
    let cur_index = current.and_then(|id| walk.node_index.get(&id).copied());
    let cur_level = cur_index.map_or(1, |i| walk.trace.graph.nodes[i].level);
    let (first, last) = level_window(cur_level, walk.rows.len());
    let freed = freed_by(walk, position);
    // Where each drawn skb's box is, for the edges.
    let mut at: HashMap<u32, (f64, f64)> = HashMap::new();
    let mut boxes = Vec::new();
    for level in first..=last {
        let row = &walk.rows[level - 1];
        let shown = row_window(row, cur_index);
        let y = TOP_Y + (level - first) as f64 * ROW_H + if first > 1 { 18.0 } else { 0.0 };
        let slot = (VIEW_W - LEVEL_LABEL_W) / shown.len().max(1) as f64;
        boxes.push(html! {
            <text class="dim" x="4" y={(y + BOX_H / 2.0 + 4.0).to_string()} font-size="12">{ format!("L{level}") }</text>
        });
        for (k, &i) in shown.iter().enumerate() {
            let n = &walk.trace.graph.nodes[i];
            let x = LEVEL_LABEL_W + slot * (k as f64 + 0.5) - BOX_W / 2.0;
            at.insert(n.id, (x, y));
            boxes.push(node_box(n, x, y, Some(n.id) == current, freed.contains(&n.id)));
        }
        if row.len() > shown.len() {
            boxes.push(more_label(row.len() - shown.len(), y));
        }
    }
    let edges = edges(walk, &at);
    let below = if last < walk.rows.len() { 40.0 } else { 8.0 };
    let height = TOP_Y + (last + 1 - first) as f64 * ROW_H + below + if first > 1 { 18.0 } else { 0.0 };
    let summary = format!("skb graph, levels {first} to {last} of {}", walk.rows.len());
    html! {
        <svg viewBox={format!("0 0 {VIEW_W} {height}")} role="img" aria-label={summary.clone()}
            xmlns="http://www.w3.org/2000/svg" data-testid="skb-graph" data-levels-shown={format!("{first}-{last}")}>
            { top_label(walk, first) }
            { for edges }
            { for boxes }
            if last < walk.rows.len() {
                <text class="dim" x={(VIEW_W / 2.0).to_string()} y={(height - 12.0).to_string()} font-size="13"
                    text-anchor="middle">{ format!("⋮ {} more levels below", walk.rows.len() - last) }</text>
            }
        </svg>
    }
}

fn top_label(walk: &WalkData, first: usize) -> Html {
    let text = if first > 1 {
        format!("⋮ levels 1 – {} above", first - 1)
    } else {
        let n_roots = walk.trace.graph.roots.len();
        format!("level 1: held by the socket ({n_roots} roots: receive queue, rx skb cache)")
    };
    html! { <text class="dim" x={(VIEW_W / 2.0).to_string()} y="22" font-size="13" text-anchor="middle">{ text }</text> }
}

fn edges(walk: &WalkData, at: &HashMap<u32, (f64, f64)>) -> Vec<Html> {
    let mut out = Vec::new();
    for (&id, &(px, py)) in at {
        let Some(n) = walk.node(id) else { continue };
        for c in &n.frag_list {
            if let Some(&(cx, cy)) = at.get(c) {
                out.push(html! {
                    <line x1={(px + BOX_W / 2.0).to_string()} y1={(py + BOX_H).to_string()}
                        x2={(cx + BOX_W / 2.0).to_string()} y2={cy.to_string()}
                        stroke="var(--muted)" stroke-width="1.5" />
                });
            }
        }
    }
    out
}

fn node_box(n: &GraphNode, x: f64, y: f64, current: bool, freed: bool) -> Html {
    let (fill, stroke, width) = match (current, freed) {
        (true, _) => ("var(--accent-soft, #e3edf9)", "var(--accent, #1f5fa8)", "3"),
        (false, true) => ("none", "var(--border)", "1"),
        (false, false) => ("var(--surface, #fff)", "var(--fg)", "1.2"),
    };
    let cx = (x + BOX_W / 2.0).to_string();
    let detail = format!("{} frags · list {} · u{} d{}", n.nr_frags, n.frag_list.len(), n.users, n.dataref);
    let title = format!(
        "skb {} ({}), level {}: {} page frags, {} skbs on its frag_list, users {}, dataref {}{}",
        n.id,
        role_name(n),
        n.level,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref,
        if freed { ", freed" } else { "" }
    );
    html! {
        <g class={classes!("skb", current.then_some("current"), freed.then_some("freed"))}
            data-skb={n.id.to_string()} data-current={current.then_some("true")} opacity={(freed && !current).then_some("0.45")}>
            <rect x={x.to_string()} y={y.to_string()} width={BOX_W.to_string()} height={BOX_H.to_string()} rx="6"
                fill={fill} stroke={stroke} stroke-width={width} stroke-dasharray={(freed && !current).then_some("4 3")}>
                <title>{ title }</title>
            </rect>
            <text x={cx.clone()} y={(y + 18.0).to_string()} font-size="13" text-anchor="middle" font-weight="600">
                { format!("{} #{}", role_name(n), n.id) }</text>
            <text class="dim" x={cx} y={(y + 35.0).to_string()} font-size="11" text-anchor="middle">{ detail }</text>
        </g>
    }
}

fn more_label(hidden: usize, y: f64) -> Html {
    html! {
        <text class="dim" x={(VIEW_W - 4.0).to_string()} y={(y - 4.0).to_string()} font-size="11" text-anchor="end">
            { format!("+{hidden} more on this level") }</text>
    }
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
        assert_eq!(row_window(&row, Some(50)), &[48, 49, 50, 51]);
        assert_eq!(row_window(&row, Some(99)), &[96, 97, 98, 99]);
        assert_eq!(row_window(&row, None), &[0, 1, 2, 3]);
    }
}
