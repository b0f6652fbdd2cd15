//! The stack budget bar: THREAD_SIZE drawn to scale, the close() path at the bottom, the walk's
//! frames filling upward as the learner steps, and the guard page above in red hatching.
//!
//! The kernel stack grows down in memory toward the guard page below it; the bar is drawn
//! growing up so that "full" is at the top. A frame that does not fit is drawn crossing the
//! THREAD_SIZE line (widened, since 16 bytes would be invisible at this scale). Beside the bar a
//! zoom shows the top [`ZOOM_BYTES`] of the stack at a scale where every frame is labelled.

use super::{use_walk, WalkData, WalkProps};
use crate::svg;
use crate::views::fit::{self, use_fit, Fit, Fonts};
use skblab_core::experiments::ktls_recursion::StackEntry;
use yew::prelude::*;

mod marks;
use marks::{overflow_band, scale_labels, used_marker, zoom};

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
/// On a narrow box: the guard band's, the bar's and the zoom's heights (the zoom goes under
/// the bar, as wide as the box), and the room for the zoom's title between them.
const NARROW_GUARD_H: f64 = 56.0;
const NARROW_BAR_H: f64 = 250.0;
const NARROW_ZOOM_H: f64 = 250.0;
const NARROW_ZOOM_GAP: f64 = 48.0;

/// Where the parts go. The desktop drawing has the zoom beside the bar; on a narrow box (one
/// user unit a CSS pixel, `fonts` the label and small sizes) the bar takes the width its
/// scale and notes leave, and the zoom goes under it across the whole width.
struct BarGeom {
    w: f64,
    h: f64,
    bar_x: f64,
    bar_w: f64,
    guard_h: f64,
    bar_h: f64,
    zoom_x: f64,
    zoom_w: f64,
    zoom_top: f64,
    zoom_h: f64,
    fonts: Fonts,
}

impl BarGeom {
    fn new(fit: Fit) -> BarGeom {
        let Some(w) = fit.narrow() else {
            let limit = TOP_Y + GUARD_H;
            return BarGeom {
                w: VIEW_W,
                h: limit + BAR_H + 30.0,
                bar_x: BAR_X,
                bar_w: BAR_W,
                guard_h: GUARD_H,
                bar_h: BAR_H,
                zoom_x: ZOOM_X,
                zoom_w: ZOOM_W,
                zoom_top: limit,
                zoom_h: BAR_H,
                fonts: Fonts(None),
            };
        };
        let (big, small) = (fit::FONT, fit::SMALL_FONT);
        // Left: the scale's widest label; right: the widest note beside the bar.
        let bar_x = 16.0 + fit::text_w("THREAD_SIZE", small);
        let notes = fit::text_w("used 16384 B", big).max(fit::text_w("8192 B, unmapped", small));
        let bar_w = (w - bar_x - notes - 16.0).max(24.0);
        let zoom_top = TOP_Y + NARROW_GUARD_H + NARROW_BAR_H + NARROW_ZOOM_GAP;
        BarGeom {
            w,
            h: zoom_top + NARROW_ZOOM_H + 14.0,
            bar_x,
            bar_w,
            guard_h: NARROW_GUARD_H,
            bar_h: NARROW_BAR_H,
            zoom_x: 8.0,
            zoom_w: w - 16.0,
            zoom_top,
            zoom_h: NARROW_ZOOM_H,
            fonts: Fonts::of(fit),
        }
    }

    fn limit_y(&self) -> f64 {
        TOP_Y + self.guard_h
    }

    fn bottom_y(&self) -> f64 {
        self.limit_y() + self.bar_h
    }

    /// The label a band `width` × `height` carries: all of it, on a narrow box only its bytes
    /// when all does not fit, or none.
    fn band_label<'a>(&self, label: &'a str, width: f64, height: f64) -> Option<&'a str> {
        let Some((_, small)) = self.fonts.0 else { return (height >= LABEL_MIN_H).then_some(label) };
        if height < small + 3.0 {
            return None;
        }
        let short = label.rsplit(" · ").next().unwrap_or(label);
        [label, short].into_iter().find(|l| fit::text_w(l, small) + 4.0 <= width)
    }
}

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
    let (node, fit) = use_fit();
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
            <div ref={node}>{ svg::into_html(bar_svg(walk, h.position, (used, overflow), fit)) }</div>
            { legend() }
        </figure>
    }
}

/// The bar and its zoom as SVG markup.
fn bar_svg(walk: &WalkData, position: usize, (used, overflow): (u64, bool), fit: Fit) -> String {
    let g = BarGeom::new(fit);
    let t = &walk.trace;
    let thread = t.thread_size_bytes.max(1);
    let y = |bytes: u64| g.bottom_y() - bytes.min(thread) as f64 * g.bar_h / thread as f64;
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
        r#"<svg viewBox="0 0 {} {}" role="img" aria-label="Stack budget: {} of {} bytes in use, {} frames{}" xmlns="http://www.w3.org/2000/svg" data-fit="{}">"#,
        g.w,
        g.h,
        used,
        thread,
        stack.len(),
        if overflow { "; the last call does not fit" } else { "" },
        g.fonts.data_fit()
    );
    s.push_str(DEFS);
    guard_band(s, t.input.walk.vmap_stack, t.guard_page_bytes, &g);
    svg!(
        s,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="var(--border)" stroke-width="1.5"/>"#,
        g.bar_x,
        g.limit_y(),
        g.bar_w,
        g.bar_h
    );
    band_rect(s, &base, (g.bar_x, g.bar_w), &y, &g);
    for b in &bands {
        band_rect(s, b, (g.bar_x, g.bar_w), &y, &g);
    }
    scale_labels(s, thread, &g);
    zoom(s, &stack, (used, thread), &y, &g);
    match over {
        Some(b) => overflow_band(s, &b, thread, &y, &g),
        None => used_marker(s, used, &y, &g),
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

fn guard_band(s: &mut String, vmap_stack: bool, guard_page_bytes: u64, g: &BarGeom) {
    let text_x = g.bar_x + g.bar_w + 10.0;
    svg!(
        s,
        r#"<g data-testid="guard-page"><rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="var(--bad, #b3261e)" stroke-dasharray="4 3"/>"#,
        g.bar_x,
        TOP_Y,
        g.bar_w,
        g.guard_h,
        if vmap_stack { "url(#ktls-hatch)" } else { "url(#ktls-hatch-grey)" }
    );
    let (big, small) = (g.fonts.size(13.0, false), g.fonts.size(11.0, true));
    let (class, title, note) = if vmap_stack {
        ("bad", "guard page".to_string(), format!("{guard_page_bytes} B, unmapped"))
    } else {
        ("dim", "no guard page".to_string(), "other memory".to_string())
    };
    svg!(
        s,
        r#"<text class="{}" x="{}" y="{}" font-size="{}">{}</text><text class="dim" x="{}" y="{}" font-size="{}">{}</text>"#,
        class,
        text_x,
        TOP_Y + 22.0,
        big,
        title,
        text_x,
        TOP_Y + 38.0,
        small,
        note
    );
    svg!(
        s,
        r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">↑ stack grows (down in memory)</text></g>"#,
        g.bar_x + g.bar_w / 2.0,
        TOP_Y - 10.0,
        small
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
fn band_rect(s: &mut String, b: &Band, (bar_x, bar_w): (f64, f64), y: &dyn Fn(u64) -> f64, g: &BarGeom) {
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
    let font = g.fonts.size(11.0, true);
    match g.band_label(&b.label, bar_w, height) {
        None => {}
        Some(label) if matches!(b.class, "base" | "folded") => {
            svg!(s, r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle">{}</text>"#, x, ty, font, label);
        }
        Some(label) => svg!(
            s,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" class="on-fill" style="fill: #fff">{}</text>"#,
            x,
            ty,
            font,
            label
        ),
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

#[cfg(test)]
mod tests;
