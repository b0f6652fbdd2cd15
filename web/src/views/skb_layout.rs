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
use crate::views::fit::{self, use_fit, Fit};
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

/// Width of the desktop drawing in SVG user units; the SVG scales to its box. A narrow box
/// gets a drawing as wide as it is ([`Fit::Narrow`]): user units are CSS pixels there.
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

/// The drawing's width and text sizes: the desktop drawing, or one as wide as a narrow box.
struct Geom {
    w: f64,
    /// On a narrow box, the font sizes (CSS pixels) of the labels and of the ruler and sizes,
    /// written on each text (`style`, above the stylesheet's desktop sizes).
    narrow: Option<(f64, f64)>,
}

impl Geom {
    fn new(fit: Fit) -> Geom {
        match fit {
            Fit::Wide => Geom { w: VIEW_W, narrow: None },
            Fit::Narrow(w) => Geom { w, narrow: Some((fit::FONT, fit::SMALL_FONT)) },
        }
    }

    /// The `style` of a label (`small`: a size or a ruler number) on a narrow box.
    fn style(&self, small: bool) -> String {
        match self.narrow {
            Some((big, little)) => format!("font-size: {}px", if small { little } else { big }),
            None => String::new(),
        }
    }

    /// Whether a segment `w` units wide carries `label` and `size` inside the bar.
    fn has_text(&self, w: f64, label: &str, size: &str) -> bool {
        match self.narrow {
            Some((big, little)) => fit::text_w(label, big).max(fit::text_w(size, little)) + 6.0 <= w,
            None => w >= LABEL_MIN_W,
        }
    }

    /// The most ruler intervals: 8 on the desktop; on a narrow box, as many as leave each
    /// number (up to 5 digits) its width and a gap.
    fn max_intervals(&self) -> u64 {
        match self.narrow {
            Some((_, little)) => ((self.w - 2.0 * MARGIN_X) / (fit::text_w("00000", little) + 14.0)).floor().max(1.0) as u64,
            None => 8,
        }
    }
}

/// Text anchor that keeps a label `half_w` half wide near `x` inside a drawing `w` wide.
fn edge_anchor(x: f64, w: f64, half_w: f64) -> &'static str {
    if x > w - half_w {
        "end"
    } else if x < half_w {
        "start"
    } else {
        "middle"
    }
}

/// Distance between ruler ticks: a power of two giving at most `max_intervals` intervals.
fn tick_bytes(total_bytes: u64, max_intervals: u64) -> u64 {
    let mut tick = 64;
    while total_bytes / tick > max_intervals {
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
    let (node, fit) = use_fit();
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
            <div ref={node}>{ svg::into_html(diagram_markup(&props.input, fit)) }</div>
            <p class="view-csv"><CsvExport name="skb-layout-legend" table={Rc::new(legend)} /></p>
        </>
    }
}

/// The whole figure as markup: caption, the SVG drawing, summary and legend table.
fn diagram_markup(input: &LayoutInput, fit: Fit) -> String {
    let g = Geom::new(fit);
    let layout = input.layout();
    let segments = input.segments();
    let object_bytes = layout.kmalloc_bucket_bytes.max(1);
    let scale = (g.w - 2.0 * MARGIN_X) / object_bytes as f64;
    let x = |bytes: u64| MARGIN_X + bytes as f64 * scale;
    let class_name = class_name(input, object_bytes, layout.from_page_allocator);
    let half_page = input.page_size_bytes / 2;
    let tick = tick_bytes(object_bytes, g.max_intervals());
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
            r#"<svg viewBox="0 0 {} {}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg" class="diagram-svg" data-fit="{}">"#,
            r#"<rect class="object" x="{}" y="{}" width="{}" height="{}" rx="6"/>"#
        ),
        object_bytes,
        class_name,
        object_bytes,
        if layout.fits_half_page { "pill-ok" } else { "pill-bad" },
        if layout.fits_half_page { "fits half a page" } else { "over half a page" },
        g.w,
        VIEW_H,
        summary,
        if g.narrow.is_some() { "narrow" } else { "wide" },
        MARGIN_X,
        BAR_Y - 6.0,
        g.w - 2.0 * MARGIN_X,
        BAR_H + 12.0
    );
    for seg in segments.iter().filter(|seg| seg.size_bytes > 0) {
        segment_rect(s, seg, layout.max_skb_frags, input, &x, &g);
    }
    if half_page <= object_bytes {
        let xh = x(half_page);
        let text = format!("half page: {half_page}");
        let half_w = g.narrow.map_or(110.0, |(big, _)| fit::text_w(&text, big) / 2.0 + 4.0);
        svg!(
            s,
            concat!(
                r#"<line class="half-page" x1="{}" x2="{}" y1="30" y2="{}"/>"#,
                r#"<text class="half-page-label" x="{}" y="24" text-anchor="{}" style="{}">{}</text>"#
            ),
            xh,
            xh,
            BAR_Y + BAR_H + 8.0,
            xh,
            edge_anchor(xh, g.w, half_w),
            g.style(false),
            text
        );
    }
    ruler(s, object_bytes, tick, &x, &g);
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

fn segment_rect(
    s: &mut String,
    seg: &Segment,
    n_frags: u64,
    input: &LayoutInput,
    x: &dyn Fn(u64) -> f64,
    g: &Geom,
) {
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
    let size = format!("{} B", seg.size_bytes);
    let has_text = g.has_text(w, &name, &size);
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
                r#"<text class="seg-label" x="{}" y="{}" text-anchor="middle" style="{}">{}</text>"#,
                r#"<text class="seg-size" x="{}" y="{}" text-anchor="middle" style="{}">{}</text>"#
            ),
            cx,
            BAR_Y + 28.0,
            g.style(false),
            name,
            cx,
            BAR_Y + 48.0,
            g.style(true),
            size
        );
    }
    s.push_str("</g>");
}

fn ruler(s: &mut String, object_bytes: u64, tick: u64, x: &dyn Fn(u64) -> f64, g: &Geom) {
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
            r#"<line x1="{}" x2="{}" y1="{}" y2="{}"/><text x="{}" y="{}" text-anchor="{}" style="{}">{}</text>"#,
            xb,
            xb,
            y,
            y + 6.0,
            xb,
            y + 24.0,
            anchor,
            g.style(true),
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
        let m = diagram_markup(&input, Fit::Wide);
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

    #[test]
    fn a_narrow_box_gets_a_drawing_of_its_width_with_legible_spaced_labels() {
        for (name, value) in [("mtu", 1500), ("mtu", 9000), ("max_skb_frags", 45)] {
            let mut params = SkbLayout.defaults();
            params.set_text(name, &value.to_string()).expect("a valid value");
            let input = SkbLayout::input(&params);
            let m = diagram_markup(&input, Fit::Narrow(300.0));
            assert!(m.contains("<svg viewBox=\"0 0 300 170\"") && m.contains("data-fit=\"narrow\""), "{m}");
            // Every text carries a phone's font size (user units are CSS pixels here).
            let texts = m.matches("<text ").count();
            let sized = m.matches("style=\"font-size: 13px\"").count() + m.matches("style=\"font-size: 11.5px\"").count();
            assert_eq!(sized, texts, "{name}={value}");
            // Ruler numbers are a number's width and a gap apart.
            let g = Geom::new(Fit::Narrow(300.0));
            let object = input.layout().kmalloc_bucket_bytes;
            let tick = tick_bytes(object, g.max_intervals());
            let gap = tick as f64 * (300.0 - 2.0 * MARGIN_X) / object as f64;
            assert!(gap >= fit::text_w(&object.to_string(), fit::SMALL_FONT) + 8.0, "{name}={value}: {gap}");
        }
        // The desktop drawing is the same as before: 1000 units wide, no sizes written.
        let wide = diagram_markup(&SkbLayout::input(&SkbLayout.defaults()), Fit::Wide);
        assert!(wide.contains("viewBox=\"0 0 1000 170\"") && !wide.contains("font-size"));
    }
}
