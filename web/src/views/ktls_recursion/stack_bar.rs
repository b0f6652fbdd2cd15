//! The stack budget bar: THREAD_SIZE drawn to scale, the close() path at the bottom, the walk's
//! frames filling upward as the learner steps, and the guard page above in red hatching.
//!
//! The kernel stack grows down in memory toward the guard page below it; the bar is drawn
//! growing up so that "full" is at the top. A frame that does not fit is drawn crossing the
//! THREAD_SIZE line (widened, since 16 bytes would be invisible at this scale). Beside the bar a
//! zoom shows the top [`ZOOM_BYTES`] of the stack at a scale where every frame is labelled.

use super::{use_walk, WalkData, WalkProps};
use crate::svg;
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
    let h = match use_walk(&props.run, RANK) {
        Ok(h) => h,
        Err(note) => return note,
    };
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
            { svg::into_html(bar_svg(walk, h.position, used, overflow)) }
            { legend() }
        </figure>
    }
}

/// The bar and its zoom as SVG markup.
fn bar_svg(walk: &WalkData, position: usize, used: u64, overflow: bool) -> String {
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
    let s = &mut String::new();
    svg!(
        s,
        r#"<svg viewBox="0 0 {} {}" role="img" aria-label="Stack budget: {} of {} bytes in use, {} frames{}" xmlns="http://www.w3.org/2000/svg">"#,
        VIEW_W,
        VIEW_H,
        used,
        thread,
        stack.len(),
        if overflow { "; the last call does not fit" } else { "" }
    );
    s.push_str(DEFS);
    guard_band(s, t.input.walk.vmap_stack, t.guard_page_bytes);
    svg!(
        s,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="var(--border)" stroke-width="1.5"/>"#,
        BAR_X,
        LIMIT_Y,
        BAR_W,
        BAR_H
    );
    band_rect(s, &base, (BAR_X, BAR_W), &y);
    for b in &bands {
        band_rect(s, b, (BAR_X, BAR_W), &y);
    }
    scale_labels(s, thread);
    zoom(s, &stack, used, thread, &y);
    match over {
        Some(b) => overflow_band(s, &b, thread, &y),
        None => used_marker(s, used, &y),
    }
    s.push_str("</svg>");
    std::mem::take(s)
}

/// The hatch patterns (constant markup, no data in it).
const DEFS: &str = concat!(
    r#"<defs><pattern id="ktls-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
    r#"<rect width="8" height="8" fill="var(--bad-soft, #fbe6e4)"/>"#,
    r#"<line x1="0" y1="0" x2="0" y2="8" stroke="var(--bad, #b3261e)" stroke-width="3"/></pattern>"#,
    r#"<pattern id="ktls-hatch-grey" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
    r#"<line x1="0" y1="0" x2="0" y2="8" stroke="var(--muted)" stroke-width="2"/></pattern></defs>"#
);

fn guard_band(s: &mut String, vmap_stack: bool, guard_page_bytes: u64) {
    let text_x = BAR_X + BAR_W + 10.0;
    svg!(
        s,
        r#"<g data-testid="guard-page"><rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="var(--bad, #b3261e)" stroke-dasharray="4 3"/>"#,
        BAR_X,
        TOP_Y,
        BAR_W,
        GUARD_H,
        if vmap_stack { "url(#ktls-hatch)" } else { "url(#ktls-hatch-grey)" }
    );
    if vmap_stack {
        svg!(
            s,
            r#"<text class="bad" x="{}" y="{}" font-size="13">guard page</text><text class="dim" x="{}" y="{}" font-size="11">{} B, unmapped</text>"#,
            text_x,
            TOP_Y + 22.0,
            text_x,
            TOP_Y + 38.0,
            guard_page_bytes
        );
    } else {
        svg!(
            s,
            r#"<text class="dim" x="{}" y="{}" font-size="13">no guard page</text><text class="dim" x="{}" y="{}" font-size="11">other memory</text>"#,
            text_x,
            TOP_Y + 22.0,
            text_x,
            TOP_Y + 38.0
        );
    }
    svg!(
        s,
        r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="middle">↑ stack grows (down in memory)</text></g>"#,
        BAR_X + BAR_W / 2.0,
        TOP_Y - 10.0
    );
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

/// A band in the bar whose left edge and width are `(bar_x, bar_w)`.
fn band_rect(s: &mut String, b: &Band, (bar_x, bar_w): (f64, f64), y: &dyn Fn(u64) -> f64) {
    let (top, bottom) = (y(b.offset_bytes + b.size_bytes), y(b.offset_bytes));
    let height = (bottom - top).max(0.3);
    svg!(
        s,
        r#"<g class="band band-{}"><rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="var(--surface, #fff)" stroke-width="{}"><title>{}, from byte {}</title></rect>"#,
        b.class,
        bar_x,
        top,
        bar_w,
        height,
        band_fill(b.class),
        if height > 2.0 { "0.5" } else { "0" },
        b.label,
        b.offset_bytes
    );
    let (x, ty) = (bar_x + bar_w / 2.0, top + height / 2.0 + 4.0);
    if height < LABEL_MIN_H {
    } else if matches!(b.class, "base" | "folded") {
        svg!(s, r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#, x, ty, b.label);
    } else {
        svg!(
            s,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" class="on-fill" style="fill: #fff">{}</text>"#,
            x,
            ty,
            b.label
        );
    }
    s.push_str("</g>");
}

/// What the band colours mean.
fn legend() -> Html {
    let items =
        [("kfree", "kfree_skb"), ("release", "skb_release_data"), ("pages", "page freeing"), ("base", "close() path")];
    let s = &mut String::from(r#"<p class="ktls-legend">"#);
    for (class, name) in items {
        svg!(s, r#"<span><span class="chip" style="background: {}"></span>{}</span>"#, band_fill(class), name);
    }
    s.push_str("</p>");
    svg::into_html(std::mem::take(s))
}

/// The top of the stack magnified: every frame in the window drawn to the zoom's scale, the
/// THREAD_SIZE line and the guard page when they are in it, and a box on the bar marking it.
fn zoom(s: &mut String, stack: &[StackEntry], used: u64, thread: u64, y: &dyn Fn(u64) -> f64) {
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
    svg!(
        s,
        concat!(
            r#"<g class="zoom" data-testid="stack-zoom">"#,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="var(--fg)" stroke-dasharray="3 2"/>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="middle">zoom: bytes {}–{}</text>"#,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="var(--border)" stroke-width="1.5"/>"#
        ),
        BAR_X - 3.0,
        y(top),
        BAR_W + 6.0,
        (y(bottom) - y(top)).max(2.0),
        ZOOM_X + ZOOM_W / 2.0,
        LIMIT_Y - 10.0,
        bottom,
        top,
        ZOOM_X,
        LIMIT_Y,
        ZOOM_W,
        BAR_H
    );
    if thread > bottom && thread < top {
        let yl = yz(thread);
        svg!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#ktls-hatch)"/>"#,
            ZOOM_X,
            LIMIT_Y,
            ZOOM_W,
            yl - LIMIT_Y
        );
        limit_line(s, (ZOOM_X - 4.0, ZOOM_X + ZOOM_W + 4.0), yl);
    }
    for b in &bands {
        band_rect(s, b, (ZOOM_X, ZOOM_W), &yz);
    }
    s.push_str("</g>");
}

/// The THREAD_SIZE line from `x1` to `x2` at height `y`.
fn limit_line(s: &mut String, (x1, x2): (f64, f64), y: f64) {
    svg!(s, r#"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="var(--bad, #b3261e)" stroke-width="2"/>"#, x1, x2, y, y);
}

fn scale_labels(s: &mut String, thread: u64) {
    let x = BAR_X - 12.0;
    s.push_str(r#"<g class="scale">"#);
    limit_line(s, (BAR_X - 4.0, BAR_X + BAR_W + 4.0), LIMIT_Y);
    svg!(
        s,
        concat!(
            r#"<text x="{}" y="{}" font-size="11" text-anchor="end">THREAD_SIZE</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="end">{} B</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="end">{} B</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="end">0</text></g>"#
        ),
        x,
        LIMIT_Y - 2.0,
        x,
        LIMIT_Y + 12.0,
        thread,
        x,
        LIMIT_Y + BAR_H / 2.0,
        thread / 2,
        x,
        BOTTOM_Y
    );
}

fn used_marker(s: &mut String, used: u64, y: &dyn Fn(u64) -> f64) {
    let yu = y(used);
    let x2 = BAR_X + BAR_W + 8.0;
    svg!(
        s,
        concat!(
            r#"<g class="used-marker"><line x1="{}" x2="{}" y1="{}" y2="{}" stroke="var(--fg)" stroke-width="1.5"/>"#,
            r#"<text x="{}" y="{}" font-size="12">used {} B</text></g>"#
        ),
        BAR_X,
        x2,
        yu,
        yu,
        x2 + 4.0,
        yu + 4.0,
        used
    );
}

/// The frame that did not fit: drawn straddling THREAD_SIZE, reaching into the guard page.
fn overflow_band(s: &mut String, b: &Band, thread: u64, y: &dyn Fn(u64) -> f64) {
    let past = (b.offset_bytes + b.size_bytes).saturating_sub(thread);
    let top = LIMIT_Y - OVERFLOW_H / 2.0;
    let x2 = BAR_X + BAR_W + 8.0;
    let start_y = y(b.offset_bytes).max(LIMIT_Y);
    svg!(
        s,
        concat!(
            r#"<g class="overflow-frame" data-testid="overflow-frame">"#,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="var(--bad, #b3261e)" stroke="var(--fg)" stroke-width="1.5">"#,
            r#"<title>{} does not fit: {} B past THREAD_SIZE</title></rect>"#,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" style="fill: #fff" font-weight="700">{}</text>"#,
            r#"<text class="bad" x="{}" y="{}" font-size="12">{} B past THREAD_SIZE</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11">needs {} B</text></g>"#
        ),
        BAR_X - 6.0,
        top,
        BAR_W + 12.0,
        OVERFLOW_H.max(start_y - top),
        b.label,
        past,
        BAR_X + BAR_W / 2.0,
        top + 13.0,
        b.label,
        x2,
        LIMIT_Y + 26.0,
        past,
        x2,
        LIMIT_Y + 42.0,
        b.offset_bytes + b.size_bytes
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
    use skblab_core::Experiment;

    #[test]
    fn the_bar_at_the_start_and_at_the_overflow() {
        let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
        let svg = |position: usize| {
            let overflow = walk.frame(position).is_some_and(|f| f.overflow);
            bar_svg(&walk, position, walk.used_bytes(position), overflow)
        };
        let start = svg(0);
        assert!(start.starts_with("<svg viewBox=\"0 0 600 568\" role=\"img\" aria-label=\"Stack budget: "), "{start}");
        for part in
            ["data-testid=\"guard-page\"", "data-testid=\"stack-zoom\"", "class=\"used-marker\"", "close() path"]
        {
            assert!(start.contains(part), "missing {part}");
        }
        assert!(!start.contains("overflow-frame"));
        let end = svg(walk.n_positions() - 1);
        assert!(end.contains("data-testid=\"overflow-frame\""), "the default walk overflows");
        assert!(end.contains("B past THREAD_SIZE</title>") && !end.contains("used-marker"));
        assert_eq!(end.matches("<svg").count(), 1);
        assert_eq!(end.matches("<g").count(), end.matches("</g>").count());
    }
}
