//! The views of `skb-layout`: the head buffer drawn to scale, and two sweep charts.
//!
//! Sizes come from core ([`LayoutInput::segments`], [`LayoutInput::layout`]); this module only
//! maps bytes to pixels and picks labels.

mod sweeps;

use super::{CustomView, ViewCtx};
use crate::charts::table::DataTable;
use crate::components::chart::{Chart, ChartData};
use crate::components::export::CsvExport;
use crate::svg;
use skblab_core::experiments::skb_layout::{LayoutInput, Segment, SkbLayout};
use skblab_core::sim::skb::kmalloc_suffix;
use std::rc::Rc;
use crate::charts::sweep::Sweep;
use sweeps::{frags_sweep, mtu_sweep};
use yew::prelude::*;

pub const EXPERIMENT: &str = skblab_core::experiments::skb_layout::ID;
pub const VIEWS: &[(&str, CustomView)] = &[("diagram", diagram), ("chart", mtu_chart), ("frags-chart", frags_chart)];

/// The head buffer drawn to scale.
pub fn diagram(ctx: &ViewCtx) -> Html {
    html! { <Diagram input={SkbLayout::input(&ctx.resolved)} /> }
}

/// `sweep` of the context's run, and of the pinned run A beside it (dashed) if any.
fn with_pinned(ctx: &ViewCtx, sweep: fn(&LayoutInput) -> Sweep) -> Rc<Sweep> {
    let mut data = sweep(&SkbLayout::input(&ctx.resolved));
    if let Some(a) = &ctx.pinned {
        data.pin(&sweep(&SkbLayout::input(&a.key.params)));
    }
    Rc::new(data)
}

/// Head size and kmalloc object size against the MTU.
pub fn mtu_chart(ctx: &ViewCtx) -> Html {
    let data = with_pinned(ctx, mtu_sweep);
    let caption = data.caption.clone();
    html! { <Chart data={ChartData::from(data)} dark={ctx.dark} {caption} name="skb-layout-mtu" /> }
}

/// Head size and kmalloc object size against MAX_SKB_FRAGS.
pub fn frags_chart(ctx: &ViewCtx) -> Html {
    let data = with_pinned(ctx, frags_sweep);
    let caption = data.caption.clone();
    html! { <Chart data={ChartData::from(data)} dark={ctx.dark} {caption} name="skb-layout-frags" testid="frags-chart" /> }
}

/// Width of the drawing in SVG user units; the SVG scales to its box.
const VIEW_W: f64 = 1000.0;
const MARGIN_X: f64 = 12.0;
const BAR_Y: f64 = 58.0;
const BAR_H: f64 = 64.0;
const VIEW_H: f64 = 170.0;
/// Below this width (user units) a segment carries no text inside the bar.
const LABEL_MIN_W: f64 = 84.0;
/// Frag slots are drawn one by one up to this many.
const MAX_DRAWN_FRAGS: u64 = 64;

fn label(name: &str, n_frags: u64) -> String {
    match name {
        "headroom" => "headroom".into(),
        "ethernet" => "Ethernet hdr".into(),
        "payload" => "payload (MTU)".into(),
        "tailroom" => "tailroom".into(),
        "shinfo" => "shinfo fixed".into(),
        "frags" => format!("frags[{n_frags}]"),
        "shinfo_pad" => "align pad".into(),
        other => other.into(),
    }
}

fn help(name: &str) -> &'static str {
    match name {
        "headroom" => "NET_SKB_PAD (+ NET_IP_ALIGN) bytes reserved in front of the frame",
        "ethernet" => "the 14-byte Ethernet header (ETH_HLEN)",
        "payload" => "MTU bytes of IP packet",
        "tailroom" => "room after the frame, up to the shared info (alignment and ksize() slack)",
        "shinfo" => "struct skb_shared_info before its frags array",
        "frags" => "skb_frag_t frags[MAX_SKB_FRAGS]: one slot per page fragment",
        "shinfo_pad" => "SKB_DATA_ALIGN padding after the shared info",
        _ => "",
    }
}

/// Text anchor that keeps a label near `x` inside the drawing.
fn edge_anchor(x: f64) -> &'static str {
    if x > VIEW_W - 110.0 {
        "end"
    } else if x < 110.0 {
        "start"
    } else {
        "middle"
    }
}

/// Distance between ruler ticks: a power of two giving at most 8 intervals.
fn tick_bytes(total_bytes: u64) -> u64 {
    let mut tick = 64;
    while total_bytes / tick > 8 {
        tick *= 2;
    }
    tick
}

#[derive(Properties, PartialEq)]
pub struct DiagramProps {
    pub input: LayoutInput,
}

#[function_component(Diagram)]
pub fn diagram(props: &DiagramProps) -> Html {
    let n_frags = props.input.layout().max_skb_frags;
    let mut legend = DataTable::new(["span", "offset (bytes)", "bytes", "what"]);
    for seg in props.input.segments() {
        legend.push([
            label(seg.name, n_frags),
            seg.offset_bytes.to_string(),
            seg.size_bytes.to_string(),
            help(seg.name).into(),
        ]);
    }
    html! {
        <>
            { svg::into_html(diagram_markup(&props.input)) }
            <p class="view-csv"><CsvExport name="skb-layout-legend" table={Rc::new(legend)} /></p>
        </>
    }
}

/// The whole figure as markup: caption, the SVG drawing, summary and legend table.
fn diagram_markup(input: &LayoutInput) -> String {
    let layout = input.layout();
    let segments = input.segments();
    let object_bytes = layout.kmalloc_bucket_bytes.max(1);
    let scale = (VIEW_W - 2.0 * MARGIN_X) / object_bytes as f64;
    let x = |bytes: u64| MARGIN_X + bytes as f64 * scale;
    let class_name = class_name(input, object_bytes, layout.from_page_allocator);
    let half_page = input.page_size_bytes / 2;
    let tick = tick_bytes(object_bytes);
    let summary = format!(
        "{} bytes requested (SKB_DATA_ALIGN(pad + frame) {} + shinfo {}) → {class_name}; {} bytes unused; truesize {}",
        layout.head_bytes,
        layout.data_aligned_bytes,
        layout.shinfo_aligned_bytes,
        layout.waste_bytes,
        layout.truesize_bytes
    );
    let s = &mut String::new();
    svg!(
        s,
        concat!(
            r#"<figure class="diagram card-flat" data-testid="diagram" data-object-bytes="{}">"#,
            r#"<figcaption><strong>{} object: {} bytes</strong><span class="pill {}">{}</span></figcaption>"#,
            r#"<svg viewBox="0 0 {} {}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg" class="diagram-svg">"#,
            r#"<rect class="object" x="{}" y="{}" width="{}" height="{}" rx="6"/>"#
        ),
        object_bytes,
        class_name,
        object_bytes,
        if layout.fits_half_page { "pill-ok" } else { "pill-bad" },
        if layout.fits_half_page { "fits half a page" } else { "over half a page" },
        VIEW_W,
        VIEW_H,
        summary,
        MARGIN_X,
        BAR_Y - 6.0,
        VIEW_W - 2.0 * MARGIN_X,
        BAR_H + 12.0
    );
    for seg in segments.iter().filter(|seg| seg.size_bytes > 0) {
        segment_rect(s, seg, layout.max_skb_frags, input, &x);
    }
    if half_page <= object_bytes {
        let xh = x(half_page);
        svg!(
            s,
            concat!(
                r#"<line class="half-page" x1="{}" x2="{}" y1="30" y2="{}"/>"#,
                r#"<text class="half-page-label" x="{}" y="24" text-anchor="{}">half page: {}</text>"#
            ),
            xh,
            xh,
            BAR_Y + BAR_H + 8.0,
            xh,
            edge_anchor(xh),
            half_page
        );
    }
    ruler(s, object_bytes, tick, &x);
    svg!(s, r#"</svg><p class="diagram-summary">{}</p>"#, summary);
    legend(s, &segments, layout.max_skb_frags);
    s.push_str("</figure>");
    std::mem::take(s)
}

/// The slab cache (or page allocation) an object of `object_bytes` comes from.
fn class_name(input: &LayoutInput, object_bytes: u64, from_page_allocator: bool) -> String {
    if from_page_allocator {
        format!(
            "page allocator ({} B, order-{})",
            object_bytes,
            (object_bytes / input.page_size_bytes).trailing_zeros()
        )
    } else {
        format!("kmalloc-{}", kmalloc_suffix(object_bytes))
    }
}

fn segment_rect(s: &mut String, seg: &Segment, n_frags: u64, input: &LayoutInput, x: &dyn Fn(u64) -> f64) {
    let (x0, x1) = (x(seg.offset_bytes), x(seg.offset_bytes + seg.size_bytes));
    let w = (x1 - x0).max(0.5);
    let name = label(seg.name, n_frags);
    svg!(
        s,
        r#"<g class="seg seg-{}" data-segment="{}"><rect x="{}" y="{}" width="{}" height="{}"><title>{}: offset {}, {} bytes — {}</title></rect>"#,
        seg.name,
        seg.name,
        x0,
        BAR_Y,
        w,
        BAR_H,
        name,
        seg.offset_bytes,
        seg.size_bytes,
        help(seg.name)
    );
    let has_text = w >= LABEL_MIN_W;
    let slot_w = if n_frags > 0 { w / n_frags as f64 } else { 0.0 };
    if seg.name == "frags" && n_frags <= MAX_DRAWN_FRAGS && slot_w >= 1.5 {
        let y2 = BAR_Y + if has_text { 10.0 } else { BAR_H };
        for i in 1..n_frags {
            let sx = x(seg.offset_bytes + i * input.frag_bytes);
            svg!(s, r#"<line class="frag-slot" x1="{}" x2="{}" y1="{}" y2="{}"/>"#, sx, sx, BAR_Y, y2);
        }
    }
    if has_text {
        let cx = x0 + w / 2.0;
        svg!(
            s,
            concat!(
                r#"<text class="seg-label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                r#"<text class="seg-size" x="{}" y="{}" text-anchor="middle">{} B</text>"#
            ),
            cx,
            BAR_Y + 28.0,
            name,
            cx,
            BAR_Y + 48.0,
            seg.size_bytes
        );
    }
    s.push_str("</g>");
}

fn ruler(s: &mut String, object_bytes: u64, tick: u64, x: &dyn Fn(u64) -> f64) {
    let y = BAR_Y + BAR_H + 10.0;
    svg!(s, r#"<g class="ruler"><line x1="{}" x2="{}" y1="{}" y2="{}"/>"#, x(0), x(object_bytes), y, y);
    for b in (0..=object_bytes / tick).map(|i| i * tick) {
        let anchor = if b == 0 {
            "start"
        } else if b == object_bytes {
            "end"
        } else {
            "middle"
        };
        let xb = x(b);
        svg!(
            s,
            r#"<line x1="{}" x2="{}" y1="{}" y2="{}"/><text x="{}" y="{}" text-anchor="{}">{}</text>"#,
            xb,
            xb,
            y,
            y + 6.0,
            xb,
            y + 24.0,
            anchor,
            b
        );
    }
    s.push_str("</g>");
}

fn legend(s: &mut String, segments: &[Segment], n_frags: u64) {
    s.push_str(concat!(
        r#"<div class="table-scroll" tabindex="0" role="region" aria-label="legend"><table class="legend"><thead><tr><th scope="col">span</th><th scope="col" class="num">offset</th>"#,
        r#"<th scope="col" class="num">bytes</th><th scope="col">what</th></tr></thead><tbody>"#
    ));
    for seg in segments {
        svg!(
            s,
            concat!(
                r#"<tr class="seg-{}"><th scope="row"><span class="chip" aria-hidden="true"></span>{}</th>"#,
                r#"<td class="num">{}</td><td class="num">{}</td><td class="muted">{}</td></tr>"#
            ),
            seg.name,
            label(seg.name, n_frags),
            seg.offset_bytes,
            seg.size_bytes,
            help(seg.name)
        );
    }
    s.push_str("</tbody></table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::Experiment;

    #[test]
    fn the_diagram_draws_every_segment_the_ruler_and_the_legend() {
        let input = SkbLayout::input(&SkbLayout.defaults());
        let m = diagram_markup(&input);
        assert!(
            m.starts_with("<figure class=\"diagram card-flat\" data-testid=\"diagram\" data-object-bytes=\""),
            "{m}"
        );
        assert!(
            m.contains("<svg viewBox=\"0 0 1000 170\" role=\"img\" aria-label=\"")
                && m.contains("class=\"diagram-svg\"")
        );
        let drawn = input.segments().iter().filter(|seg| seg.size_bytes > 0).count();
        assert_eq!(m.matches("<g class=\"seg seg-").count(), drawn);
        assert_eq!(m.matches("<tr class=\"seg-").count(), input.segments().len());
        assert!(m.contains("data-segment=\"frags\"") && m.contains("<g class=\"ruler\">"));
        assert!(m.contains(" → kmalloc-") || m.contains(" → page allocator"), "summary, with → as text");
        assert_eq!(m.matches("<g").count(), m.matches("</g>").count());
    }
}
