//! The custom view of `cross-cpu-free` (seed 001): one lane per CPU of the receiver with the
//! first skbs' allocations and frees (a free on another CPU is an arrow across lanes, red when
//! it took SLUB's slow path), the slab page each object came from and whose active slab that
//! was, and the slow-path counters per CPU. Everything drawn comes from core's view data
//! "lanes" (`skblab_core::experiments::cross_cpu_free::lanes`, read from the run store into
//! the struct below); nothing here simulates.

use super::{CustomView, ViewCtx};
use crate::charts::table::{num, DataTable};
use crate::components::export::CsvExport;
use crate::run::{use_view_data, RunKey, ViewLoad};
use crate::svg;
use crate::views::fit::{self, use_fit, Fit, Fonts};
use serde::{Deserialize, Serialize};
use skblab_core::experiments::cross_cpu_free as xcpu;
use skblab_core::ViewQuery;
use std::rc::Rc;
use yew::prelude::*;

pub const EXPERIMENT: &str = xcpu::ID;
pub const VIEWS: &[(&str, CustomView)] = &[("lanes", lanes_view)];

/// The fields of core's `Lanes` this view reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lanes {
    pub cpus: Vec<(u16, String)>,
    pub caches: Vec<(String, u32, u32)>,
    pub events: Vec<LaneEvent>,
    pub slowpath_frees_per_skb: f64,
    pub counters: Vec<(u64, u64, u64)>,
    pub skbs: u64,
}

/// The fields of core's `LaneEvent` this view reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneEvent {
    pub t_ns: u64,
    pub cpu: u16,
    pub skb: u32,
    pub free: bool,
    pub cache: u16,
    pub fast: bool,
    pub path: String,
    pub slab_pfn: u32,
    pub slab_owner: Option<u16>,
}

/// The lane view under the page's parameters.
pub fn lanes_view(ctx: &ViewCtx) -> Html {
    html! { <LaneView run={ctx.run_key()} /> }
}

#[derive(Properties, PartialEq)]
pub struct LaneProps {
    pub run: RunKey,
}

#[function_component(LaneView)]
fn lane_view(props: &LaneProps) -> Html {
    let data = use_view_data::<Lanes>(props.run.clone(), ViewQuery::new("lanes"));
    let (node, fit) = use_fit();
    let ViewLoad::Ready(data) = &data else { return data.note().unwrap_or_default() };
    html! {
        <>
            <div ref={node}>{ svg::into_html(markup(data, fit)) }</div>
            <p class="view-csv"><CsvExport name="cross-cpu-free-counters" table={Rc::new(counter_table(data))} /></p>
        </>
    }
}

/// The counters table's numbers (per skb, unrounded), for its CSV export.
fn counter_table(d: &Lanes) -> DataTable {
    let per = |n: u64| num(Some(n as f64 / d.skbs.max(1) as f64));
    let mut t = DataTable::new(["cpu", "role", "free fast / skb", "free slow / skb", "list_lock / skb"]);
    for ((cpu, role), (fast, slow, ll)) in d.cpus.iter().zip(&d.counters) {
        t.push([cpu.to_string(), role.to_string(), per(*fast), per(*slow), per(*ll)]);
    }
    t
}

/// The desktop drawing's width (user units; the SVG scales to its box) and its lanes' left
/// end, right of the CPU labels. A narrow box gets a drawing as wide as it is, the labels
/// above each lane and the lanes across the whole width.
const W: f64 = 600.0;
const LEFT: f64 = 64.0;
const NARROW_LEFT: f64 = 8.0;
const LANE_H: f64 = 66.0;
const TOP: f64 = 14.0;
/// Lanes drawn at most (a dispatcher's further readers are summarised in the counters).
const MAX_LANES: usize = 5;

/// Where things go: the lanes drawn (CPU ids, in order), the time axis, the figure's size, and
/// on a narrow box the labels' font sizes (CSS pixels: one user unit is one there).
struct Geometry {
    lanes: Vec<u16>,
    t0: u64,
    span: f64,
    h: f64,
    w: f64,
    left: f64,
    fonts: Fonts,
}

impl Geometry {
    fn new(d: &Lanes, fit: Fit) -> Self {
        let lanes: Vec<u16> = d.cpus.iter().take(MAX_LANES).map(|c| c.0).collect();
        let h = TOP + LANE_H * lanes.len() as f64 + 22.0;
        let (t0, t1) = d.events.iter().fold((u64::MAX, 0), |(a, b), e| (a.min(e.t_ns), b.max(e.t_ns)));
        let span = (t1.saturating_sub(t0)).max(1) as f64;
        let (w, left) = match fit {
            Fit::Wide => (W, LEFT),
            Fit::Narrow(w) => (w, NARROW_LEFT),
        };
        Geometry { lanes, t0, span, h, w, left, fonts: Fonts::of(fit) }
    }
    fn lane_of(&self, cpu: u16) -> Option<usize> {
        self.lanes.iter().position(|&c| c == cpu)
    }
    fn x(&self, t: u64) -> f64 {
        self.left + 12.0 + (t.saturating_sub(self.t0)) as f64 / self.span * (self.w - self.left - 30.0)
    }
    fn y(&self, lane: usize) -> f64 {
        TOP + LANE_H * lane as f64 + LANE_H * 0.62
    }
}

fn markup(d: &Lanes, fit: Fit) -> String {
    let s = &mut String::new();
    let g = Geometry::new(d, fit);
    header(s, d, &g);
    lane_lines(s, d, &g);
    // Arrows first (under the dots): from each object's allocation to its free elsewhere.
    arrows(s, d, &g);
    for e in &d.events {
        let Some(l) = g.lane_of(e.cpu) else { continue };
        dot(s, d, e, g.x(e.t_ns), g.y(l) + (e.cache as f64 - 1.0) * 8.0);
    }
    svg!(
        s,
        r#"<text class="xcpu-axis" x="{}" y="{}" style="{}">{} µs of simulated time →</text></svg>"#,
        g.left,
        g.h - 8.0,
        g.fonts.style(true),
        format_args!("{:.1}", g.span / 1000.0)
    );
    legend(s, d);
    counters(s, d);
    s.push_str("</figure>");
    std::mem::take(s)
}

/// The figure's opening, its caption with the slow-path pill, and the svg's opening and
/// arrow-head marker.
fn header(s: &mut String, d: &Lanes, g: &Geometry) {
    svg!(
        s,
        concat!(
            r#"<figure class="xcpu card-flat" data-testid="xcpu-lanes" data-slow-per-skb="{}">"#,
            r#"<figcaption><strong>Allocations and frees of the first skbs, per CPU</strong> "#,
            r#"<span class="pill {}">{} slow-path frees per skb</span></figcaption>"#,
            r#"<svg viewBox="0 0 {} {}" role="img" aria-label="CPU lanes: dots are allocations (filled) and frees (rings); arrows cross lanes where an skb is freed on another CPU; red means SLUB's slow path" xmlns="http://www.w3.org/2000/svg" class="diagram-svg xcpu-svg" data-fit="{}">"#,
            r#"<defs><marker id="xcpu-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="xcpu-head"/></marker></defs>"#
        ),
        format_args!("{:.2}", d.slowpath_frees_per_skb),
        if d.slowpath_frees_per_skb < 0.5 { "pill-ok" } else { "pill-bad" },
        format_args!("{:.2}", d.slowpath_frees_per_skb),
        g.w,
        g.h,
        g.fonts.data_fit()
    );
}

/// One line per lane with its CPU number and role: the number left of the lane and the role
/// above it, or on a narrow box both above it.
fn lane_lines(s: &mut String, d: &Lanes, g: &Geometry) {
    for (i, cpu) in g.lanes.iter().enumerate() {
        let role = d.cpus.iter().find(|c| c.0 == *cpu).map_or("", |c| c.1.as_str());
        let name = format!("CPU {cpu}");
        let ((cpu_x, cpu_y), role_x) = match g.fonts.0 {
            // Bold: wider than regular text.
            Some((big, _)) => ((4.0, g.y(i) - 20.0), 4.0 + fit::BOLD * fit::text_w(&name, big) + 8.0),
            None => ((4.0, g.y(i) + 5.0), LEFT),
        };
        svg!(
            s,
            concat!(
                r#"<line class="xcpu-lane" x1="{}" x2="{}" y1="{}" y2="{}"/>"#,
                r#"<text class="xcpu-cpu" x="{}" y="{}" style="{}">{}</text><text class="xcpu-role" x="{}" y="{}" style="{}">{}</text>"#
            ),
            g.left,
            g.w - 10.0,
            g.y(i),
            g.y(i),
            cpu_x,
            cpu_y,
            g.fonts.style(false),
            name,
            role_x,
            g.y(i) - 20.0,
            g.fonts.style(true),
            role
        );
    }
}

/// An arrow from each object's allocation to its free on another (drawn) lane.
fn arrows(s: &mut String, d: &Lanes, g: &Geometry) {
    for f in d.events.iter().filter(|e| e.free) {
        let Some(a) = d.events.iter().find(|a| !a.free && a.skb == f.skb && a.cache == f.cache) else { continue };
        let (Some(la), Some(lf)) = (g.lane_of(a.cpu), g.lane_of(f.cpu)) else { continue };
        if la == lf {
            continue;
        }
        svg!(
            s,
            r#"<line class="xcpu-arrow {}" x1="{}" y1="{}" x2="{}" y2="{}" marker-end="url(#xcpu-arrow)"/>"#,
            if f.fast { "fast" } else { "slow" },
            g.x(a.t_ns),
            g.y(la),
            g.x(f.t_ns),
            g.y(lf) - 6.0
        );
    }
}

fn dot(s: &mut String, d: &Lanes, e: &LaneEvent, cx: f64, cy: f64) {
    let cache = d.caches.get(e.cache as usize).map_or("?", |c| c.0.as_str());
    let owner = match e.slab_owner {
        Some(c) if c == e.cpu => format!("this CPU's (CPU {c}) active slab"),
        Some(c) => format!("CPU {c}'s active slab"),
        None => "nobody's active slab".to_string(),
    };
    svg!(
        s,
        r#"<circle class="xcpu-dot c{} {} {}" cx="{}" cy="{}" r="5"><title>skb {} {} on CPU {}: {} ({}); slab page pfn {}, {}</title></circle>"#,
        e.cache.min(2),
        if e.free { "free" } else { "alloc" },
        if e.fast { "fast" } else { "slow" },
        cx,
        cy,
        e.skb,
        if e.free { "free" } else { "alloc" },
        e.cpu,
        cache,
        e.path,
        e.slab_pfn,
        owner
    );
}

/// Which cache each dot colour is, and the slab page of the first skb's objects.
fn legend(s: &mut String, d: &Lanes) {
    s.push_str(r#"<ul class="xcpu-legend">"#);
    for (i, (name, size, order)) in d.caches.iter().enumerate() {
        let first_free = d.events.iter().find(|e| e.free && e.cache as usize == i);
        let page = match first_free {
            Some(e) => {
                let owner = match e.slab_owner {
                    Some(c) if c == e.cpu => "the freeing CPU's own active slab: fast path".to_string(),
                    Some(c) => format!("CPU {c}'s active slab, freed on CPU {}: slow path", e.cpu),
                    None => format!("no CPU's active slab, freed on CPU {}: slow path", e.cpu),
                };
                format!("first free: slab page pfn {}, {owner}", e.slab_pfn)
            }
            None => "no free recorded yet".to_string(),
        };
        svg!(
            s,
            r#"<li><span class="xcpu-chip c{}"></span><strong>{}</strong> ({} B objects, order-{} slabs): {}</li>"#,
            i.min(2),
            name,
            size,
            order,
            page
        );
    }
    s.push_str(r#"<li><span class="xcpu-chip ring"></span>filled dot: allocation; ring: free; red: slow path; arrow: freed on another CPU</li></ul>"#);
}

/// Slow-path counters per CPU (per skb of the short window).
fn counters(s: &mut String, d: &Lanes) {
    let per = |n: u64| n as f64 / d.skbs.max(1) as f64;
    s.push_str(r#"<table class="xcpu-counters" data-testid="xcpu-counters"><thead><tr><th>CPU</th><th>free fast / skb</th><th>free slow / skb</th><th>list_lock / skb</th></tr></thead><tbody>"#);
    for ((cpu, role), (fast, slow, ll)) in d.cpus.iter().zip(&d.counters) {
        svg!(
            s,
            r#"<tr><td>{} {}</td><td>{}</td><td class="{}">{}</td><td>{}</td></tr>"#,
            cpu,
            role,
            format_args!("{:.2}", per(*fast)),
            if *slow > 0 { "bad" } else { "" },
            format_args!("{:.2}", per(*slow)),
            format_args!("{:.3}", per(*ll))
        );
    }
    s.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::Experiment;

    fn lanes() -> Lanes {
        let data = xcpu::CrossCpuFree.view_data(&xcpu::CrossCpuFree.defaults(), 1, &ViewQuery::new("lanes"));
        let data = skblab_core::ViewData::from_json(data.expect("lane data").to_json());
        (*data.decode::<Lanes>().expect("the view reads it")).clone()
    }

    #[test]
    fn the_lanes_on_a_desktop_and_on_a_narrow_box() {
        let d = lanes();
        let wide = markup(&d, Fit::Wide);
        assert!(wide.contains("viewBox=\"0 0 600 ") && wide.contains("data-fit=\"wide\"") && !wide.contains("font-size"));
        let narrow = markup(&d, Fit::Narrow(300.0));
        assert!(narrow.contains("viewBox=\"0 0 300 ") && narrow.contains("data-fit=\"narrow\""));
        let sizes = fit::text_font_sizes(&narrow);
        assert!(!sizes.is_empty() && sizes.iter().all(|&f| f >= fit::SMALL_FONT), "{sizes:?}");
        // Each lane's label and role fit on the line above it.
        let g = Geometry::new(&d, Fit::Narrow(300.0));
        for (cpu, role) in &d.cpus {
            let end = 4.0 + fit::BOLD * fit::text_w(&format!("CPU {cpu}"), fit::FONT) + 8.0 + fit::text_w(role, fit::SMALL_FONT);
            assert!(end <= g.w, "{role}: {end}");
        }
    }
}
