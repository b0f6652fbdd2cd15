//! The stack bar's marks: the THREAD_SIZE line and scale, the "used" marker, the frame that
//! does not fit (drawn straddling THREAD_SIZE into the guard page), and the zoom on the top of
//! the stack where every frame is labelled.

use super::{band_rect, fill_of, Band, BarGeom, OVERFLOW_H, ZOOM_BYTES, ZOOM_HEADROOM_BYTES};
use crate::svg;
use skblab_core::experiments::ktls_recursion::StackEntry;

/// The top of the stack magnified: every frame in the window drawn to the zoom's scale, the
/// THREAD_SIZE line and the guard page when they are in it, and a box on the bar marking it.
pub(super) fn zoom(s: &mut String, stack: &[StackEntry], (used, thread): (u64, u64), y: &dyn Fn(u64) -> f64, g: &BarGeom) {
    let top = used.max(ZOOM_BYTES - ZOOM_HEADROOM_BYTES) + ZOOM_HEADROOM_BYTES;
    let bottom = top - ZOOM_BYTES;
    let zoom_bottom = g.zoom_top + g.zoom_h;
    let yz = |b: u64| zoom_bottom - (b.clamp(bottom, top) - bottom) as f64 * g.zoom_h / ZOOM_BYTES as f64;
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
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">zoom: bytes {}–{}</text>"#,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="var(--border)" stroke-width="1.5"/>"#
        ),
        g.bar_x - 3.0,
        y(top),
        g.bar_w + 6.0,
        (y(bottom) - y(top)).max(2.0),
        g.zoom_x + g.zoom_w / 2.0,
        g.zoom_top - 10.0,
        g.fonts.size(11.0, true),
        bottom,
        top,
        g.zoom_x,
        g.zoom_top,
        g.zoom_w,
        g.zoom_h
    );
    if thread > bottom && thread < top {
        let yl = yz(thread);
        svg!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#ktls-hatch)"/>"#,
            g.zoom_x,
            g.zoom_top,
            g.zoom_w,
            yl - g.zoom_top
        );
        limit_line(s, (g.zoom_x - 4.0, g.zoom_x + g.zoom_w + 4.0), yl);
    }
    for b in &bands {
        band_rect(s, b, (g.zoom_x, g.zoom_w), &yz, g);
    }
    s.push_str("</g>");
}

/// The THREAD_SIZE line from `x1` to `x2` at height `y`.
fn limit_line(s: &mut String, (x1, x2): (f64, f64), y: f64) {
    svg!(s, r#"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="var(--bad, #b3261e)" stroke-width="2"/>"#, x1, x2, y, y);
}

pub(super) fn scale_labels(s: &mut String, thread: u64, g: &BarGeom) {
    let x = g.bar_x - 12.0;
    let (limit, font) = (g.limit_y(), g.fonts.size(11.0, true));
    s.push_str(r#"<g class="scale">"#);
    limit_line(s, (g.bar_x - 4.0, g.bar_x + g.bar_w + 4.0), limit);
    svg!(
        s,
        concat!(
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="end">THREAD_SIZE</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="end">{} B</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="end">{} B</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="end">0</text></g>"#
        ),
        x,
        limit - 2.0,
        font,
        x,
        limit + if g.fonts.0.is_some() { 14.0 } else { 12.0 },
        font,
        thread,
        x,
        limit + g.bar_h / 2.0,
        font,
        thread / 2,
        x,
        g.bottom_y(),
        font
    );
}

pub(super) fn used_marker(s: &mut String, used: u64, y: &dyn Fn(u64) -> f64, g: &BarGeom) {
    let yu = y(used);
    let x2 = g.bar_x + g.bar_w + 8.0;
    svg!(
        s,
        concat!(
            r#"<g class="used-marker"><line x1="{}" x2="{}" y1="{}" y2="{}" stroke="var(--fg)" stroke-width="1.5"/>"#,
            r#"<text x="{}" y="{}" font-size="{}">used {} B</text></g>"#
        ),
        g.bar_x,
        x2,
        yu,
        yu,
        x2 + 4.0,
        yu + 4.0,
        g.fonts.size(12.0, false),
        used
    );
}

/// The frame that did not fit: drawn straddling THREAD_SIZE, reaching into the guard page.
pub(super) fn overflow_band(s: &mut String, b: &Band, thread: u64, y: &dyn Fn(u64) -> f64, g: &BarGeom) {
    let past = (b.offset_bytes + b.size_bytes).saturating_sub(thread);
    let limit = g.limit_y();
    let top = limit - OVERFLOW_H / 2.0;
    let x2 = g.bar_x + g.bar_w + 8.0;
    let start_y = y(b.offset_bytes).max(limit);
    let (w, font) = (g.bar_w + 12.0, g.fonts.size(11.0, true));
    svg!(
        s,
        concat!(
            r#"<g class="overflow-frame" data-testid="overflow-frame">"#,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="var(--bad, #b3261e)" stroke="var(--fg)" stroke-width="1.5">"#,
            r#"<title>{} does not fit: {} B past THREAD_SIZE</title></rect>"#
        ),
        g.bar_x - 6.0,
        top,
        w,
        OVERFLOW_H.max(start_y - top),
        b.label,
        past
    );
    if let Some(label) = g.band_label(&b.label, w, OVERFLOW_H) {
        svg!(
            s,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" style="fill: #fff" font-weight="700">{}</text>"#,
            g.bar_x + g.bar_w / 2.0,
            top + 13.0,
            font,
            label
        );
    }
    // Beside the bar: one line on the desktop, two on a narrow box.
    let lines: Vec<(String, &str, f64)> = match g.fonts.0 {
        None => vec![(format!("{past} B past THREAD_SIZE"), "bad", 12.0)],
        Some((big, _)) => vec![(format!("{past} B past"), "bad", big), ("THREAD_SIZE".to_string(), "bad", big)],
    };
    let mut ty = limit + 26.0;
    for (text, class, size) in lines {
        svg!(s, r#"<text class="{}" x="{}" y="{}" font-size="{}">{}</text>"#, class, x2, ty, size, text);
        ty += 16.0;
    }
    svg!(
        s,
        r#"<text class="dim" x="{}" y="{}" font-size="{}">needs {} B</text></g>"#,
        x2,
        ty,
        font,
        b.offset_bytes + b.size_bytes
    );
}
