//! The stack budget bar: THREAD_SIZE drawn to scale, the close() path at the bottom, the walk's
//! frames filling upward as the learner steps, and the guard page above in red hatching.
//!
//! The kernel stack grows down in memory toward the guard page below it; the bar is drawn
//! growing up so that "full" is at the top. A frame that does not fit is drawn crossing the
//! THREAD_SIZE line (widened, since 16 bytes would be invisible at this scale). Beside the bar a
//! zoom shows the top [`ZOOM_BYTES`] of the stack at a scale where every frame is labelled.

use super::{use_walk, WalkData, WalkProps};
use skblab_core::experiments::ktls_recursion::StackEntry;
use yew::prelude::*;

/// Which stepping view draws the transport (see [`use_walk`]).
const RANK: u8 = 0;
const VIEW_W: f64 = 600.0;
const BAR_X: f64 = 112.0;
const BAR_W: f64 = 130.0;
/// Top of the guard page band.
const TOP_Y: f64 = 34.0;
/// Height of the guard page band (not to scale: a 4 KiB page would squeeze the bar).
const GUARD_H: f64 = 64.0;
const BAR_H: f64 = 440.0;
const LIMIT_Y: f64 = TOP_Y + GUARD_H;
const BOTTOM_Y: f64 = LIMIT_Y + BAR_H;
const VIEW_H: f64 = BOTTOM_Y + 30.0;
/// Bands drawn one by one at most; older walk frames fold into one band.
const BANDS_MAX: usize = 600;
/// A band needs this height (user units) to carry its label.
const LABEL_MIN_H: f64 = 13.0;
/// Bytes the zoom shows, ending a little above the top of the stack.
const ZOOM_BYTES: u64 = 512;
/// Room above the top of the stack in the zoom, so that a nearby THREAD_SIZE line shows.
const ZOOM_HEADROOM_BYTES: u64 = 48;
const ZOOM_X: f64 = 424.0;
const ZOOM_W: f64 = 160.0;
/// Height the overflowing frame is drawn with, whatever its size.
const OVERFLOW_H: f64 = 18.0;

/// One band of the bar: a frame, or several folded together.
struct Band {
    label: String,
    offset_bytes: u64,
    size_bytes: u64,
    class: &'static str,
}

fn fill_of(function: &str) -> &'static str {
    match function {
        "kfree_skb" => "kfree",
        "skb_release_data" => "release",
        "__free_pages_ok" | "free_one_page" => "pages",
        _ => "other",
    }
}

/// The walk's frames above the close() path as bands, oldest first, inlined ones left out.
fn walk_bands(stack: &[StackEntry], n_base: usize, base_bytes: u64) -> Vec<Band> {
    let mut offset = base_bytes;
    let mut bands: Vec<Band> = Vec::new();
    for e in stack.iter().skip(n_base).filter(|e| e.frame_bytes > 0) {
        let label = format!("{} · {} B", e.function, e.frame_bytes);
        bands.push(Band { label, offset_bytes: offset, size_bytes: e.frame_bytes, class: fill_of(e.function) });
        offset += e.frame_bytes;
    }
    if bands.len() > BANDS_MAX {
        let folded = bands.len() - BANDS_MAX + 1;
        let size: u64 = bands[..folded].iter().map(|b| b.size_bytes).sum();
        let first = Band {
            label: format!("{folded} frames · {size} B"),
            offset_bytes: base_bytes,
            size_bytes: size,
            class: "folded",
        };
        bands.splice(..folded, std::iter::once(first));
    }
    bands
}

#[function_component(StackView)]
pub fn stack_view(props: &WalkProps) -> Html {
    let h = use_walk(&props.params, RANK);
    let walk = &h.walk;
    let frame = walk.frame(h.position);
    let overflow = frame.is_some_and(|f| f.overflow);
    let thread = walk.trace.thread_size_bytes;
    let used = walk.used_bytes(h.position);
    let depth = frame.map_or(0, |f| f.level);
    html! {
        <figure class="ktls-view ktls-stack card-flat" data-testid="stack-bar" data-overflow={overflow.to_string()}
            data-used-bytes={used.to_string()} data-depth={depth.to_string()}>
            <figcaption>
                <strong>{"Kernel stack"}</strong>
                <span class="ktls-nums">{"used "}<strong>{ format!("{used} / {thread} B") }</strong></span>
                <span class="ktls-nums">{"nesting level "}<strong>{ depth }</strong></span>
                if overflow {
                    <span class="pill pill-bad">{"overflow"}</span>
                }
            </figcaption>
            { h.transport }
            { bar_svg(walk, h.position, used, overflow) }
            { legend() }
        </figure>
    }
}

fn bar_svg(walk: &WalkData, position: usize, used: u64, overflow: bool) -> Html {
    let t = &walk.trace;
    let thread = t.thread_size_bytes.max(1);
    let y = |bytes: u64| BOTTOM_Y - bytes.min(thread) as f64 * BAR_H / thread as f64;
    let stack = walk.stack(position);
    let n_base = t.base.len();
    let base_bytes: u64 = t.base.iter().map(|e| e.frame_bytes).sum();
    let mut bands = walk_bands(&stack, n_base, base_bytes);
    let over = if overflow { bands.pop() } else { None };
    let base = Band {
        label: format!("close() path · {base_bytes} B"),
        offset_bytes: 0,
        size_bytes: base_bytes,
        class: "base",
    };
    let summary = format!(
        "Stack budget: {used} of {thread} bytes in use, {} frames{}",
        stack.len(),
        if overflow { "; the last call does not fit" } else { "" }
    );
    html! {
        <svg viewBox={format!("0 0 {VIEW_W} {VIEW_H}")} role="img" aria-label={summary} xmlns="http://www.w3.org/2000/svg">
            { defs() }
            { guard_band(t.input.walk.vmap_stack, t.guard_page_bytes) }
            <rect x={BAR_X.to_string()} y={LIMIT_Y.to_string()} width={BAR_W.to_string()} height={BAR_H.to_string()}
                fill="none" stroke="var(--border)" stroke-width="1.5" />
            { band_rect(&base, &y) }
            { for bands.iter().map(|b| band_rect(b, &y)) }
            { scale_labels(thread) }
            { zoom(&stack, used, thread, &y) }
            if let Some(b) = over {
                { overflow_band(&b, thread, &y) }
            } else {
                { used_marker(used, &y) }
            }
        </svg>
    }
}

fn defs() -> Html {
    html! {
        <defs>
            <pattern id="ktls-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <rect width="8" height="8" fill="var(--bad-soft, #fbe6e4)" />
                <line x1="0" y1="0" x2="0" y2="8" stroke="var(--bad, #b3261e)" stroke-width="3" />
            </pattern>
            <pattern id="ktls-hatch-grey" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <line x1="0" y1="0" x2="0" y2="8" stroke="var(--muted)" stroke-width="2" />
            </pattern>
        </defs>
    }
}

fn guard_band(vmap_stack: bool, guard_page_bytes: u64) -> Html {
    let (fill, line1, line2) = if vmap_stack {
        ("url(#ktls-hatch)", "guard page".to_string(), format!("{guard_page_bytes} B, unmapped"))
    } else {
        ("url(#ktls-hatch-grey)", "no guard page".to_string(), "other memory".to_string())
    };
    let text_x = BAR_X + BAR_W + 10.0;
    html! {
        <g data-testid="guard-page">
            <rect x={BAR_X.to_string()} y={TOP_Y.to_string()} width={BAR_W.to_string()} height={GUARD_H.to_string()}
                fill={fill} stroke="var(--bad, #b3261e)" stroke-dasharray="4 3" />
            <text class={if vmap_stack { "bad" } else { "dim" }} x={text_x.to_string()} y={(TOP_Y + 22.0).to_string()}
                font-size="13">{ line1 }</text>
            <text class="dim" x={text_x.to_string()} y={(TOP_Y + 38.0).to_string()} font-size="11">{ line2 }</text>
            <text class="dim" x={(BAR_X + BAR_W / 2.0).to_string()} y={(TOP_Y - 10.0).to_string()} font-size="11"
                text-anchor="middle">{"↑ stack grows (down in memory)"}</text>
        </g>
    }
}

fn band_fill(class: &str) -> &'static str {
    match class {
        "kfree" => "var(--accent, #1f5fa8)",
        "release" => "var(--seg-shinfo, #e08a3c)",
        "pages" => "var(--ok, #1c7a4a)",
        "base" => "var(--seg-headroom, #b9c4d3)",
        "folded" => "var(--accent-soft, #e3edf9)",
        "over" => "var(--bad, #b3261e)",
        _ => "var(--muted)",
    }
}

fn band_rect(b: &Band, y: &dyn Fn(u64) -> f64) -> Html {
    band_rect_at(b, (BAR_X, BAR_W), y)
}

/// A band in the bar whose left edge and width are `(bar_x, bar_w)`.
fn band_rect_at(b: &Band, (bar_x, bar_w): (f64, f64), y: &dyn Fn(u64) -> f64) -> Html {
    let (top, bottom) = (y(b.offset_bytes + b.size_bytes), y(b.offset_bytes));
    let height = (bottom - top).max(0.3);
    let label = (height >= LABEL_MIN_H).then(|| {
        let text_class = if matches!(b.class, "base" | "folded") { "" } else { "on-fill" };
        html! {
            <text x={(bar_x + bar_w / 2.0).to_string()} y={(top + height / 2.0 + 4.0).to_string()} font-size="11"
                text-anchor="middle" class={text_class} style={(!text_class.is_empty()).then_some("fill: #fff")}>
                { &b.label }
            </text>
        }
    });
    html! {
        <g class={format!("band band-{}", b.class)}>
            <rect x={bar_x.to_string()} y={top.to_string()} width={bar_w.to_string()} height={height.to_string()}
                fill={band_fill(b.class)} stroke="var(--surface, #fff)" stroke-width={if height > 2.0 { "0.5" } else { "0" }}>
                <title>{ format!("{}, from byte {}", b.label, b.offset_bytes) }</title>
            </rect>
            { label }
        </g>
    }
}

/// What the band colours mean.
fn legend() -> Html {
    let items =
        [("kfree", "kfree_skb"), ("release", "skb_release_data"), ("pages", "page freeing"), ("base", "close() path")];
    html! {
        <p class="ktls-legend">
            { for items.iter().map(|(class, name)| html! {
                <span><span class="chip" style={format!("background: {}", band_fill(class))}></span>{ *name }</span>
            }) }
        </p>
    }
}

/// The top of the stack magnified: every frame in the window drawn to the zoom's scale, the
/// THREAD_SIZE line and the guard page when they are in it, and a box on the bar marking it.
fn zoom(stack: &[StackEntry], used: u64, thread: u64, y: &dyn Fn(u64) -> f64) -> Html {
    let top = used.max(ZOOM_BYTES - ZOOM_HEADROOM_BYTES) + ZOOM_HEADROOM_BYTES;
    let bottom = top - ZOOM_BYTES;
    let yz = |b: u64| BOTTOM_Y - (b.clamp(bottom, top) - bottom) as f64 * BAR_H / ZOOM_BYTES as f64;
    let mut offset = 0;
    let mut bands = Vec::new();
    for (i, e) in stack.iter().enumerate() {
        let (start, end) = (offset, offset + e.frame_bytes);
        offset = end;
        if e.frame_bytes > 0 && end > bottom {
            let over = end > thread && i + 1 == stack.len();
            let label = format!("{} · {} B", e.function, e.frame_bytes);
            let class = if over { "over" } else { fill_of(e.function) };
            bands.push(Band { label, offset_bytes: start, size_bytes: e.frame_bytes, class });
        }
    }
    let (w, x) = (ZOOM_W.to_string(), ZOOM_X.to_string());
    let limit = (thread > bottom && thread < top).then(|| {
        let yl = yz(thread);
        html! {
            <>
                <rect x={x.clone()} y={LIMIT_Y.to_string()} width={w.clone()} height={(yl - LIMIT_Y).to_string()}
                    fill="url(#ktls-hatch)" />
                <line x1={(ZOOM_X - 4.0).to_string()} x2={(ZOOM_X + ZOOM_W + 4.0).to_string()} y1={yl.to_string()}
                    y2={yl.to_string()} stroke="var(--bad, #b3261e)" stroke-width="2" />
            </>
        }
    });
    html! {
        <g class="zoom" data-testid="stack-zoom">
            <rect x={(BAR_X - 3.0).to_string()} y={y(top).to_string()} width={(BAR_W + 6.0).to_string()}
                height={(y(bottom) - y(top)).max(2.0).to_string()} fill="none" stroke="var(--fg)" stroke-dasharray="3 2" />
            <text class="dim" x={(ZOOM_X + ZOOM_W / 2.0).to_string()} y={(LIMIT_Y - 10.0).to_string()} font-size="11"
                text-anchor="middle">{ format!("zoom: bytes {bottom}–{top}") }</text>
            <rect x={x.clone()} y={LIMIT_Y.to_string()} width={w.clone()} height={BAR_H.to_string()}
                fill="none" stroke="var(--border)" stroke-width="1.5" />
            { limit }
            { for bands.iter().map(|b| band_rect_at(b, (ZOOM_X, ZOOM_W), &yz)) }
        </g>
    }
}

fn scale_labels(thread: u64) -> Html {
    let x = (BAR_X - 12.0).to_string();
    let mid = (LIMIT_Y + BAR_H / 2.0).to_string();
    html! {
        <g class="scale">
            <line x1={(BAR_X - 4.0).to_string()} x2={(BAR_X + BAR_W + 4.0).to_string()} y1={LIMIT_Y.to_string()}
                y2={LIMIT_Y.to_string()} stroke="var(--bad, #b3261e)" stroke-width="2" />
            <text x={x.clone()} y={(LIMIT_Y - 2.0).to_string()} font-size="11" text-anchor="end">{"THREAD_SIZE"}</text>
            <text class="dim" x={x.clone()} y={(LIMIT_Y + 12.0).to_string()} font-size="11" text-anchor="end">
                { format!("{thread} B") }</text>
            <text class="dim" x={x.clone()} y={mid} font-size="11" text-anchor="end">{ format!("{} B", thread / 2) }</text>
            <text class="dim" x={x} y={BOTTOM_Y.to_string()} font-size="11" text-anchor="end">{"0"}</text>
        </g>
    }
}

fn used_marker(used: u64, y: &dyn Fn(u64) -> f64) -> Html {
    let yu = y(used);
    let x2 = BAR_X + BAR_W + 8.0;
    html! {
        <g class="used-marker">
            <line x1={BAR_X.to_string()} x2={x2.to_string()} y1={yu.to_string()} y2={yu.to_string()}
                stroke="var(--fg)" stroke-width="1.5" />
            <text x={(x2 + 4.0).to_string()} y={(yu + 4.0).to_string()} font-size="12">{ format!("used {used} B") }</text>
        </g>
    }
}

/// The frame that did not fit: drawn straddling THREAD_SIZE, reaching into the guard page.
fn overflow_band(b: &Band, thread: u64, y: &dyn Fn(u64) -> f64) -> Html {
    let past = (b.offset_bytes + b.size_bytes).saturating_sub(thread);
    let top = LIMIT_Y - OVERFLOW_H / 2.0;
    let x2 = BAR_X + BAR_W + 8.0;
    let start_y = y(b.offset_bytes).max(LIMIT_Y);
    html! {
        <g class="overflow-frame" data-testid="overflow-frame">
            <rect x={(BAR_X - 6.0).to_string()} y={top.to_string()} width={(BAR_W + 12.0).to_string()}
                height={(OVERFLOW_H.max(start_y - top)).to_string()} fill="var(--bad, #b3261e)" stroke="var(--fg)"
                stroke-width="1.5">
                <title>{ format!("{} does not fit: {past} B past THREAD_SIZE", b.label) }</title>
            </rect>
            <text x={(BAR_X + BAR_W / 2.0).to_string()} y={(top + 13.0).to_string()} font-size="11" text-anchor="middle"
                style="fill: #fff" font-weight="700">{ &b.label }</text>
            <text class="bad" x={x2.to_string()} y={(LIMIT_Y + 26.0).to_string()} font-size="12">
                { format!("{past} B past THREAD_SIZE") }</text>
            <text class="dim" x={x2.to_string()} y={(LIMIT_Y + 42.0).to_string()} font-size="11">
                { format!("needs {} B", b.offset_bytes + b.size_bytes) }</text>
        </g>
    }
}
