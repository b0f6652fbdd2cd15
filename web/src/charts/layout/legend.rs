//! The legend of every chart, in its own strip under the plot: entries flow left to right and
//! wrap to a new row where the next one does not fit, a label longer than the strip wraps onto
//! lines of its own, and each entry has its swatch (a line, a band, a marker).

use super::{measured, wrap, Sizes};
use crate::charts::record::Rect;
use crate::charts::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A legend swatch's width, the gap after it, and the gap between two entries of a row.
pub(super) const SWATCH_CSS_PX: f64 = 18.0;
pub(super) const SWATCH_GAP_CSS_PX: f64 = 6.0;
pub(super) const ENTRY_GAP_CSS_PX: f64 = 16.0;
/// Left and right padding of the legend strip, and its padding above and below the rows.
pub(super) const STRIP_PAD_X_CSS_PX: f64 = 10.0;
pub(super) const STRIP_PAD_Y_CSS_PX: f64 = 6.0;

/// A marker drawn on a line or alone, as the chart draws its points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Marker {
    Dot(RGBColor),
    /// A hollow circle.
    Circle(RGBColor),
    /// A larger hollow circle around a point (a cell the fit saw).
    Ring(RGBColor),
    Triangle {
        color: RGBColor,
        filled: bool,
    },
    Cross(RGBColor),
}

/// What a legend entry draws before its label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A line `width` CSS pixels wide, solid or dashed, with an optional marker on its middle.
    Line {
        color: RGBColor,
        width: u32,
        dashed: bool,
        marker: Option<Marker>,
    },
    /// A shaded band: filled with the colour's tint, or outlined over a lighter tint.
    Band {
        color: RGBColor,
        outlined: bool,
    },
    /// A vertical min–max whisker with a dot on it (a median and its spread).
    Whisker(RGBColor),
    Marker(Marker),
}

/// One entry of a chart's legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

impl LegendEntry {
    pub fn new(label: impl Into<String>, swatch: Swatch) -> LegendEntry {
        LegendEntry { label: label.into(), swatch }
    }

    /// A solid line of the chart's usual width.
    pub fn line(label: impl Into<String>, color: RGBColor) -> LegendEntry {
        LegendEntry::new(label, Swatch::Line { color, width: 3, dashed: false, marker: None })
    }
}

/// Where a legend entry goes in its strip (CSS pixels from the strip's top left): its swatch's
/// left edge and its first line's centre, and its label's lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placed {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) lines: Vec<String>,
}

/// Flows `labels` into rows in a strip `sizes.css_w` wide; the places and the strip's height
/// (0 without entries).
pub(super) fn place_legend(labels: &[&str], sizes: &Sizes, measure: &dyn Fn(&str) -> f64) -> (Vec<Placed>, f64) {
    if labels.is_empty() {
        return (Vec::new(), 0.0);
    }
    let width = (sizes.css_w - 2.0 * STRIP_PAD_X_CSS_PX).max(40.0);
    let label_max = width - SWATCH_CSS_PX - SWATCH_GAP_CSS_PX;
    let line_h = sizes.legend_line();
    let (mut x, mut row_top, mut row_h) = (0.0, 0.0f64, 0.0f64);
    let mut placed = Vec::new();
    for label in labels {
        let lines = wrap(label, label_max, measure);
        let label_w = lines.iter().map(|l| measure(l)).fold(0.0, f64::max);
        let entry_w = SWATCH_CSS_PX + SWATCH_GAP_CSS_PX + label_w;
        if x > 0.0 && x + entry_w > width {
            (x, row_top, row_h) = (0.0, row_top + row_h, 0.0);
        }
        let entry_h = lines.len().max(1) as f64 * line_h;
        placed.push(Placed { x: STRIP_PAD_X_CSS_PX + x, y: STRIP_PAD_Y_CSS_PX + row_top + line_h / 2.0, lines });
        row_h = row_h.max(entry_h);
        x += entry_w + ENTRY_GAP_CSS_PX;
    }
    (placed, row_top + row_h + 2.0 * STRIP_PAD_Y_CSS_PX)
}

/// Splits `area` into the plot's area and the legend's strip under it, sized for `legend`.
pub fn split_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    theme: &Theme,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let sizes = Sizes::of(area, theme);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    let (_, strip_h) = place_legend(&labels, &sizes, &|t| measured(area, t, sizes.text, theme));
    let (_, h) = area.dim_in_pixel();
    area.split_vertically(h.saturating_sub((strip_h * theme.px).round() as u32))
}

/// Draws `legend` in `strip` (from [`split_legend`]); the box its entries cover, if any.
pub fn draw_legend<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    theme: &Theme,
) -> Result<Option<Rect>, DrawingAreaErrorKind<DB::ErrorType>> {
    let sizes = Sizes::of(strip, theme);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    let measure = |t: &str| measured(strip, t, sizes.text, theme);
    let (placed, _) = place_legend(&labels, &sizes, &measure);
    let font = ("sans-serif", theme.si(sizes.text as i32))
        .into_font()
        .color(&theme.text)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let (left, top) = (strip.get_pixel_range().0.start, strip.get_pixel_range().1.start);
    let px = |css: f64| (css * theme.px).round() as i32;
    let mut covered: Option<Rect> = None;
    for (entry, p) in legend.iter().zip(&placed) {
        draw_swatch(strip, entry.swatch, (px(p.x), px(p.y)), theme)?;
        let text_x = p.x + SWATCH_CSS_PX + SWATCH_GAP_CSS_PX;
        for (i, line) in p.lines.iter().enumerate() {
            let y = p.y + i as f64 * sizes.legend_line();
            strip.draw(&Text::new(line.clone(), (px(text_x), px(y)), font.clone()))?;
        }
        let label_w = p.lines.iter().map(|l| measure(l)).fold(0.0, f64::max);
        let half = sizes.legend_line() / 2.0;
        let last_y = p.y + (p.lines.len().max(1) - 1) as f64 * sizes.legend_line();
        let entry = Rect::new(
            f64::from(left) + p.x * theme.px,
            f64::from(top) + (p.y - half) * theme.px,
            f64::from(left) + (text_x + label_w) * theme.px,
            f64::from(top) + (last_y + half) * theme.px,
        );
        covered = Some(covered.map_or(entry, |c| c.union(&entry)));
    }
    Ok(covered)
}

/// Draws a swatch whose left edge and vertical centre are at `(x, y)` (device pixels in `area`).
fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    (x, y): (i32, i32),
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let w = theme.si(SWATCH_CSS_PX as i32);
    let middle = (x + w / 2, y);
    match swatch {
        Swatch::Line { color, width, dashed, marker } => {
            let stroke = color.stroke_width(theme.s(width));
            if dashed {
                let third = w / 3;
                area.draw(&PathElement::new(vec![(x, y), (x + third, y)], stroke))?;
                area.draw(&PathElement::new(vec![(x + w - third, y), (x + w, y)], stroke))?;
            } else {
                area.draw(&PathElement::new(vec![(x, y), (x + w, y)], stroke))?;
            }
            if let Some(m) = marker {
                draw_marker(area, m, middle, theme)?;
            }
        }
        Swatch::Band { color, outlined } => {
            let h = theme.si(5);
            let fill = color.mix(if outlined { 0.1 } else { 0.22 }).filled();
            area.draw(&Rectangle::new([(x, y - h), (x + w, y + h)], fill))?;
            if outlined {
                area.draw(&Rectangle::new([(x, y - h), (x + w, y + h)], color.stroke_width(theme.s(1))))?;
            }
        }
        Swatch::Whisker(color) => {
            let r = theme.si(4);
            area.draw(&PathElement::new(
                vec![(middle.0, y - 2 * r), (middle.0, y + 2 * r)],
                color.stroke_width(theme.s(2)),
            ))?;
            area.draw(&Circle::new(middle, r, color.filled()))?;
        }
        Swatch::Marker(m) => draw_marker(area, m, middle, theme)?,
    }
    Ok(())
}

fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    marker: Marker,
    at: (i32, i32),
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let r = theme.si(4);
    match marker {
        Marker::Dot(c) => area.draw(&Circle::new(at, r, c.filled())),
        Marker::Circle(c) => area.draw(&Circle::new(at, r, c.stroke_width(theme.s(2)))),
        Marker::Ring(c) => area.draw(&Circle::new(at, r + theme.si(3), c.stroke_width(theme.s(1)))),
        Marker::Triangle { color, filled: true } => area.draw(&TriangleMarker::new(at, r + 1, color.filled())),
        Marker::Triangle { color, filled: false } => {
            area.draw(&TriangleMarker::new(at, theme.si(5), color.stroke_width(theme.s(1))))
        }
        Marker::Cross(c) => area.draw(&Cross::new(at, r, c.stroke_width(theme.s(2)))),
    }
}
