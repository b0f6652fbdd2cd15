//! The views of `skb-layout`: the head buffer drawn to scale, and two sweep charts.
//!
//! Sizes come from core ([`LayoutInput::segments`], [`LayoutInput::layout`]); this module only
//! maps bytes to pixels and picks labels.

mod sweeps;

use super::ViewCtx;
use crate::components::chart::{Chart, ChartData};
use skblab_core::experiments::skb_layout::{kmalloc_name, LayoutInput, Segment, SkbLayout};
use std::rc::Rc;
use sweeps::{frags_sweep, mtu_sweep};
use yew::prelude::*;

/// The head buffer drawn to scale.
pub fn diagram(ctx: &ViewCtx) -> Html {
    html! { <Diagram input={SkbLayout::input(&ctx.resolved)} /> }
}

/// Head size and kmalloc object size against the MTU.
pub fn mtu_chart(ctx: &ViewCtx) -> Html {
    let data = Rc::new(mtu_sweep(&SkbLayout::input(&ctx.resolved)));
    let caption = data.caption.clone();
    html! { <Chart data={ChartData::from(data)} dark={ctx.dark} {caption} name="skb-layout-mtu" /> }
}

/// Head size and kmalloc object size against MAX_SKB_FRAGS.
pub fn frags_chart(ctx: &ViewCtx) -> Html {
    let data = Rc::new(frags_sweep(&SkbLayout::input(&ctx.resolved)));
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
    let input = &props.input;
    let layout = input.layout();
    let segments = input.segments();
    let object_bytes = layout.kmalloc_bucket_bytes.max(1);
    let scale = (VIEW_W - 2.0 * MARGIN_X) / object_bytes as f64;
    let x = |bytes: u64| MARGIN_X + bytes as f64 * scale;
    let class_name = if layout.from_page_allocator {
        format!(
            "page allocator ({} B, order-{})",
            object_bytes,
            (object_bytes / input.page_size_bytes).trailing_zeros()
        )
    } else {
        format!("kmalloc-{}", kmalloc_name(object_bytes))
    };
    let half_page = input.page_size_bytes / 2;
    let tick = tick_bytes(object_bytes);
    let rects = segments.iter().filter(|s| s.size_bytes > 0).map(|s| segment_rect(s, layout.max_skb_frags, input, &x));
    let summary = format!(
        "{} bytes requested (SKB_DATA_ALIGN(pad + frame) {} + shinfo {}) → {class_name}; {} bytes unused; truesize {}",
        layout.head_bytes,
        layout.data_aligned_bytes,
        layout.shinfo_aligned_bytes,
        layout.waste_bytes,
        layout.truesize_bytes
    );
    html! {
        <figure class="diagram card-flat" data-testid="diagram" data-object-bytes={object_bytes.to_string()}>
            <figcaption>
                <strong>{ format!("{class_name} object: {object_bytes} bytes") }</strong>
                <span class={classes!("pill", if layout.fits_half_page { "pill-ok" } else { "pill-bad" })}>
                    { if layout.fits_half_page { "fits half a page" } else { "over half a page" } }
                </span>
            </figcaption>
            <svg viewBox={format!("0 0 {VIEW_W} {VIEW_H}")} role="img" aria-label={summary.clone()}
                xmlns="http://www.w3.org/2000/svg" class="diagram-svg">
                <rect class="object" x={MARGIN_X.to_string()} y={(BAR_Y - 6.0).to_string()}
                    width={(VIEW_W - 2.0 * MARGIN_X).to_string()} height={(BAR_H + 12.0).to_string()} rx="6" />
                { for rects }
                if half_page <= object_bytes {
                    <line class="half-page" x1={x(half_page).to_string()} x2={x(half_page).to_string()}
                        y1="30" y2={(BAR_Y + BAR_H + 8.0).to_string()} />
                    <text class="half-page-label" x={x(half_page).to_string()} y="24" text-anchor={edge_anchor(x(half_page))}>
                        { format!("half page: {half_page}") }
                    </text>
                }
                { ruler(object_bytes, tick, &x) }
            </svg>
            <p class="diagram-summary">{ summary }</p>
            { legend(&segments, layout.max_skb_frags) }
        </figure>
    }
}

fn segment_rect(s: &Segment, n_frags: u64, input: &LayoutInput, x: &dyn Fn(u64) -> f64) -> Html {
    let (x0, x1) = (x(s.offset_bytes), x(s.offset_bytes + s.size_bytes));
    let w = (x1 - x0).max(0.5);
    let text = (w >= LABEL_MIN_W).then(|| {
        let cx = x0 + w / 2.0;
        html! {
            <>
                <text class="seg-label" x={cx.to_string()} y={(BAR_Y + 28.0).to_string()} text-anchor="middle">
                    { label(s.name, n_frags) }
                </text>
                <text class="seg-size" x={cx.to_string()} y={(BAR_Y + 48.0).to_string()} text-anchor="middle">
                    { format!("{} B", s.size_bytes) }
                </text>
            </>
        }
    });
    let slot_w = if n_frags > 0 { w / n_frags as f64 } else { 0.0 };
    let slots = (s.name == "frags" && n_frags <= MAX_DRAWN_FRAGS && slot_w >= 1.5).then(|| {
        let y2 = BAR_Y + if text.is_some() { 10.0 } else { BAR_H };
        (1..n_frags)
            .map(|i| {
                let sx = x(s.offset_bytes + i * input.frag_bytes);
                html! { <line class="frag-slot" x1={sx.to_string()} x2={sx.to_string()}
                y1={BAR_Y.to_string()} y2={y2.to_string()} /> }
            })
            .collect::<Html>()
    });
    html! {
        <g class={format!("seg seg-{}", s.name)} data-segment={s.name}>
            <rect x={x0.to_string()} y={BAR_Y.to_string()} width={w.to_string()} height={BAR_H.to_string()}>
                <title>{ format!("{}: offset {}, {} bytes — {}", label(s.name, n_frags), s.offset_bytes, s.size_bytes, help(s.name)) }</title>
            </rect>
            { slots }
            { text }
        </g>
    }
}

fn ruler(object_bytes: u64, tick: u64, x: &dyn Fn(u64) -> f64) -> Html {
    let y = BAR_Y + BAR_H + 10.0;
    let ticks = (0..=object_bytes / tick).map(|i| i * tick);
    html! {
        <g class="ruler">
            <line x1={x(0).to_string()} x2={x(object_bytes).to_string()} y1={y.to_string()} y2={y.to_string()} />
            { for ticks.map(|b| {
                let anchor = if b == 0 { "start" } else if b == object_bytes { "end" } else { "middle" };
                html! {
                    <>
                        <line x1={x(b).to_string()} x2={x(b).to_string()} y1={y.to_string()} y2={(y + 6.0).to_string()} />
                        <text x={x(b).to_string()} y={(y + 24.0).to_string()} text-anchor={anchor}>{ b }</text>
                    </>
                }
            }) }
        </g>
    }
}

fn legend(segments: &[Segment], n_frags: u64) -> Html {
    html! {
        <table class="legend">
            <thead><tr><th scope="col">{"span"}</th><th scope="col" class="num">{"offset"}</th>
                <th scope="col" class="num">{"bytes"}</th><th scope="col">{"what"}</th></tr></thead>
            <tbody>
                { for segments.iter().map(|s| html! {
                    <tr class={format!("seg-{}", s.name)}>
                        <th scope="row"><span class="chip" aria-hidden="true"></span>{ label(s.name, n_frags) }</th>
                        <td class="num">{ s.offset_bytes }</td>
                        <td class="num">{ s.size_bytes }</td>
                        <td class="muted">{ help(s.name) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
