//! The custom view of `skb-cache` (seed 004): CPU lanes of one flow — the CPU that takes its
//! interrupts and the CPU of its thread — with each skb's allocation and free, caches off
//! above and both caches on below, so the free visibly moves (or, with RPS, does not). A
//! table under the drawing says the same in text. Everything comes from core's view data
//! "lanes" (`skblab_core::experiments::skb_cache::lane_diagram`, read from the run store);
//! nothing here simulates.

use super::{CustomView, ViewCtx};
use crate::run::{use_view_data, RunKey, ViewLoad};
use crate::svg;
use skblab_core::experiments::skb_cache::{self as sc, world::Lane, LaneDiagram, LaneSet};
use skblab_core::ViewQuery;
use yew::prelude::*;

pub const EXPERIMENT: &str = sc::ID;
pub const VIEWS: &[(&str, CustomView)] = &[("lanes", lanes)];

/// The lane diagram under the page's parameters.
pub fn lanes(ctx: &ViewCtx) -> Html {
    html! { <Lanes run={ctx.run_key()} /> }
}

#[derive(Properties, PartialEq)]
pub struct LanesProps {
    pub run: RunKey,
}

#[function_component(Lanes)]
fn lanes_component(props: &LanesProps) -> Html {
    let data = use_view_data::<LaneDiagram>(props.run.clone(), ViewQuery::new("lanes"));
    let ViewLoad::Ready(data) = &data else { return data.note().unwrap_or_default() };
    let params = &props.run.params;
    let current = params.bool("tcp_rx_skb_cache") || params.bool("tcp_tx_skb_cache");
    svg::into_html(markup(data, current))
}

const W: f64 = 600.0;
/// Left margin for the lane labels.
const LEFT: f64 = 140.0;
const LANE_H: f64 = 60.0;
const PANEL_HEAD: f64 = 46.0;
const PANEL_GAP: f64 = 18.0;
/// skbs drawn per panel (four request/response pairs).
const MAX_SKBS: usize = 8;

/// The CPUs of a panel in lane order, each with what runs there.
fn rows(d: &LaneDiagram, set: &LaneSet) -> Vec<(u16, &'static str)> {
    let (irq, app) = (set.irq_cpu, set.app_cpu);
    match (irq, app) {
        (Some(i), Some(a)) if i == a => vec![(i, "IRQ + thread")],
        (Some(i), Some(a)) if d.rps => vec![(i, "driver IRQ"), (a, "softirq+thread")],
        (Some(i), Some(a)) => vec![(i, "IRQ + softirq"), (a, "thread")],
        (Some(i), None) => vec![(i, "IRQ")],
        (None, Some(a)) => vec![(a, "thread")],
        (None, None) => Vec::new(),
    }
}

fn panel_h(d: &LaneDiagram, set: &LaneSet) -> f64 {
    PANEL_HEAD + LANE_H * rows(d, set).len().max(1) as f64 + 8.0
}

fn markup(d: &LaneDiagram, current_on: bool) -> String {
    let s = &mut String::new();
    let h = panel_h(d, &d.off) + PANEL_GAP + panel_h(d, &d.on) + 6.0;
    let (n_off, same_off) = rx_frees(&d.off);
    let (n_on, same_on) = rx_frees(&d.on);
    let label = format!(
        "CPU lanes of one flow. Caches off: {same_off} of {n_off} rx skbs freed on the CPU that allocated them. Both caches on: {same_on} of {n_on}.{}",
        if d.rps { " RPS is on." } else { "" }
    );
    svg!(
        s,
        concat!(
            r#"<figure class="skbl card-flat" data-testid="skb-lanes" data-rx-home-off="{}" data-rx-home-on="{}">"#,
            r#"<figcaption><strong>Where flow 0's skbs are allocated and freed</strong> "#,
            r#"<span class="muted">(first skbs of a {} ms run with {} flows, same parameters{})</span></figcaption>"#,
            r#"<svg viewBox="0 0 {} {}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg" class="diagram-svg skbl-svg">"#,
            r#"<defs><marker id="skbl-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="skbl-head"/></marker></defs>"#
        ),
        same_off,
        same_on,
        format_args!("{:.1}", d.measure_us as f64 / 1000.0),
        d.flows,
        if d.rps { ", RPS on" } else { "" },
        W,
        h,
        label
    );
    let mut y0 = 0.0;
    for (set, title, is_current) in [(&d.off, "caches off", !current_on), (&d.on, "both caches on", current_on)] {
        panel(s, d, set, title, is_current, y0);
        y0 += panel_h(d, set) + PANEL_GAP;
    }
    s.push_str("</svg>");
    legend(s);
    table(s, d);
    s.push_str("</figure>");
    std::mem::take(s)
}

/// rx skbs freed, and how many of them on the CPU that allocated them.
fn rx_frees(set: &LaneSet) -> (usize, usize) {
    let freed: Vec<_> =
        set.lanes.iter().filter(|l| l.rx).filter_map(|l| l.free_cpu.map(|c| c == l.alloc_cpu)).collect();
    (freed.len(), freed.iter().filter(|&&same| same).count())
}

/// The y of lane `lane` in the panel starting at `y0`.
fn lane_y(y0: f64, lane: usize) -> f64 {
    y0 + PANEL_HEAD + LANE_H * lane as f64 + LANE_H * 0.55
}

/// One panel (caches off or on) starting at `y0`: its title and count, a lane per CPU, and
/// the first skbs.
fn panel(s: &mut String, d: &LaneDiagram, set: &LaneSet, title: &str, is_current: bool, y0: f64) {
    let rows = rows(d, set);
    let (n, same) = rx_frees(set);
    svg!(
        s,
        r#"<text class="skbl-title" x="4" y="{}">{}{}</text><text class="skbl-count" x="{}" y="{}" text-anchor="end">rx freed at home: {} of {}</text>"#,
        y0 + 22.0,
        title,
        if is_current { " (these settings)" } else { "" },
        W - 6.0,
        y0 + 22.0,
        same,
        n
    );
    for (i, (cpu, role)) in rows.iter().enumerate() {
        let y = lane_y(y0, i);
        svg!(
            s,
            concat!(
                r#"<line class="skbl-lane" x1="{}" x2="{}" y1="{}" y2="{}"/>"#,
                r#"<text class="skbl-cpu" x="4" y="{}">CPU {}</text><text class="skbl-role" x="4" y="{}">{}</text>"#
            ),
            LEFT,
            W - 8.0,
            y,
            y,
            y - 4.0,
            cpu,
            y + 17.0,
            role
        );
    }
    let lane_of = |cpu: u16| rows.iter().position(|r| r.0 == cpu);
    let step = (W - LEFT - 30.0) / MAX_SKBS as f64;
    for (k, l) in set.lanes.iter().take(MAX_SKBS).enumerate() {
        let Some(la) = lane_of(l.alloc_cpu) else { continue };
        skb(s, l, LEFT + 20.0 + step * k as f64, la, l.free_cpu.and_then(lane_of), y0);
    }
}

/// One skb at column `x` of the panel starting at `y0`: allocated on lane `la`, freed on
/// `free_lane` (None: not freed yet), an arrow between two lanes, and its kind on top.
fn skb(s: &mut String, l: &Lane, x: f64, la: usize, free_lane: Option<usize>, y0: f64) {
    let y = |lane: usize| lane_y(y0, lane);
    let home = l.free_cpu == Some(l.alloc_cpu);
    let class = match (l.free_cpu, home) {
        (None, _) => "open",
        (Some(_), true) => "home",
        (Some(_), false) => "away",
    };
    svg!(s, r#"<g class="skbl-skb {}">"#, class);
    // Allocation: a filled dot (rx) or square (tx) on the allocating CPU's lane.
    let (ax, fx) = match free_lane {
        Some(lf) if lf == la => (x - 9.0, x + 9.0),
        _ => (x, x),
    };
    if let Some(lf) = free_lane {
        if lf != la {
            let dir = if lf > la { 1.0 } else { -1.0 };
            svg!(
                s,
                r#"<line class="skbl-arrow" x1="{}" y1="{}" x2="{}" y2="{}" marker-end="url(#skbl-arrow)"/>"#,
                ax,
                y(la) + dir * 8.0,
                fx,
                y(lf) - dir * 10.0
            );
        }
    }
    mark(s, "skbl-alloc", l.rx, ax, y(la));
    if let Some(lf) = free_lane {
        mark(s, "skbl-free", l.rx, fx, y(lf));
    }
    svg!(
        s,
        r#"<text class="skbl-kind" x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
        x,
        y0 + PANEL_HEAD - 4.0,
        if l.rx { "rx" } else { "tx" }
    );
}

/// A dot (rx) or square (tx) of `class` centred on (`cx`, `cy`).
fn mark(s: &mut String, class: &str, rx: bool, cx: f64, cy: f64) {
    if rx {
        svg!(s, r#"<circle class="{}" cx="{}" cy="{}" r="7"/>"#, class, cx, cy);
    } else {
        svg!(s, r#"<rect class="{}" x="{}" y="{}" width="13" height="13"/>"#, class, cx - 6.5, cy - 6.5);
    }
}

fn legend(s: &mut String) {
    s.push_str(concat!(
        r#"<ul class="skbl-legend">"#,
        r#"<li><span class="skbl-chip dot"></span>rx, <span class="skbl-chip sq"></span>tx skb: filled where allocated, hollow where freed (alone: parked)</li>"#,
        r#"<li><span class="skbl-chip home"></span>freed or reused on its own CPU; <span class="skbl-chip away"></span>freed on another (arrow; on SLAB an alien free when that CPU is on the other node, on SLUB a slow-path free)</li>"#,
        r#"</ul>"#
    ));
}

/// The same skbs as a table (the text alternative of the drawing).
fn table(s: &mut String, d: &LaneDiagram) {
    s.push_str(r#"<details class="skbl-details"><summary>The skbs as a table</summary><table class="skbl-table" data-testid="skb-lanes-table"><thead><tr><th>caches</th><th>skb</th><th>alloc CPU</th><th>free CPU</th><th>freed by</th><th>SLUB</th></tr></thead><tbody>"#);
    for (set, name) in [(&d.off, "off"), (&d.on, "on")] {
        for l in set.lanes.iter().take(MAX_SKBS) {
            let free = l.free_cpu.map_or("-".to_string(), |c| c.to_string());
            svg!(
                s,
                r#"<tr><td>{}</td><td>{}</td><td>{}</td><td class="{}">{}</td><td>{}</td><td>{}</td></tr>"#,
                name,
                if l.rx { "rx" } else { "tx" },
                l.alloc_cpu,
                if l.free_cpu.is_some_and(|c| c != l.alloc_cpu) { "away" } else { "" },
                free,
                l.where_freed,
                if l.path.is_empty() { "-" } else { &*l.path }
            );
        }
    }
    s.push_str("</tbody></table></details>");
}
