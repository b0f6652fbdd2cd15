//! How every chart lays itself out for the width it is drawn at, in one place: font sizes,
//! margins and label areas, tick counts, the title (wrapped, never cut off) and the legend.
//!
//! The legend has its own strip under the plot at every width, so it never covers a point:
//! entries flow left to right and wrap to a new row where the next one does not fit (one entry a
//! row on a 360 px phone, one row on a desktop), and a label longer than the strip wraps onto
//! lines of its own. The machine page's overlays did this first with fixed rows (one entry a row
//! below 440 CSS px); this module makes it the rule for every chart kind (sweep, plot, overlay,
//! ktls-recursion's stack chart).
//!
//! Sizes here are CSS pixels; [`Theme::s`](super::Theme::s) turns them into device pixels.
//! Text widths come from the backend where it can measure them (the canvas) and never fall
//! below [`text_width`], an estimate as wide as DejaVu Sans (wider than Roboto or Arial), so a
//! height computed before drawing ([`chart_height`]) leaves room for what is then drawn.

use super::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

mod legend;
pub use super::text::text_width;
use legend::place_legend;
pub use legend::{draw_legend, split_legend, LegendEntry, Marker, Swatch};

/// Below this many CSS pixels a chart is laid out for a phone: smaller fonts and margins.
pub const NARROW_BELOW_CSS_PX: f64 = 520.0;

/// A chart's height for its width before its title and legend: 5:9, never flatter than this
/// (a phone-width chart keeps room for its labels).
pub const MIN_PLOT_HEIGHT_CSS_PX: f64 = 260.0;

/// The sizes of a chart drawn `css_w` CSS pixels wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    pub css_w: f64,
    pub narrow: bool,
    /// Font size of the title.
    pub title: u32,
    /// Font size of tick labels, axis descriptions, legend and marks.
    pub text: u32,
    pub margin: u32,
    /// Right margin: the last x tick label is centred on the plot's edge, room for its half.
    pub margin_right: u32,
    pub x_label_area: u32,
}

impl Sizes {
    pub fn for_width(css_w: f64) -> Sizes {
        let css_w = if css_w.is_finite() && css_w > 0.0 { css_w } else { 720.0 };
        if css_w < NARROW_BELOW_CSS_PX {
            Sizes { css_w, narrow: true, title: 14, text: 11, margin: 8, margin_right: 16, x_label_area: 40 }
        } else {
            Sizes { css_w, narrow: false, title: 17, text: 13, margin: 12, margin_right: 28, x_label_area: 46 }
        }
    }

    /// The sizes of `area`, drawn at `theme.px` device pixels per CSS pixel.
    pub fn of<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, theme: &Theme) -> Sizes {
        Sizes::for_width(f64::from(area.dim_in_pixel().0) / theme.px)
    }

    fn title_line(&self) -> f64 {
        f64::from(self.title) * 1.35
    }

    fn legend_line(&self) -> f64 {
        f64::from(self.text) * 1.45
    }

    /// A tick label: `v` with `decimals`, and on a phone large values shortened with a
    /// suffix ("10M", "2.5M", "250k") so that a label takes four characters, not eight.
    pub fn tick(&self, v: f64, decimals: usize) -> String {
        let a = v.abs();
        let (div, suffix) = match () {
            _ if !self.narrow || !a.is_finite() || a < 1e4 => return format!("{v:.decimals$}"),
            _ if a >= 1e6 => (1e6, "M"),
            _ => (1e3, "k"),
        };
        let short = format!("{:.2}", v / div);
        format!("{}{suffix}", short.trim_end_matches('0').trim_end_matches('.'))
    }

    /// The right margin when the last x tick label reads about `widest_x`: centred on the
    /// plot's right edge, half of it sticks out.
    pub fn margin_right_for(&self, widest_x: &str) -> u32 {
        let half = text_width(widest_x, f64::from(self.text)) / 2.0 + 4.0;
        self.margin_right.max(half.ceil() as u32)
    }

    /// Width of the y label area: the widest tick label, a gap, the rotated axis description.
    pub fn y_label_area(&self, widest_tick: &str) -> u32 {
        let text = f64::from(self.text);
        let needed = text_width(widest_tick, text) + 10.0 + text * 1.4 + 6.0;
        let floor = if self.narrow { 40.0 } else { 64.0 };
        needed.max(floor).ceil() as u32
    }

    /// How many x tick labels fit `plot_w` CSS pixels when the widest reads `widest`: a label
    /// and a gap of more than a character each, at least 2 and at most `max`. (Plotters takes
    /// it as a most: the finest of its round steps, 1, 2 or 5 times a power of ten, that
    /// gives no more labels.)
    pub fn x_ticks(&self, plot_w: f64, widest: &str, max: usize) -> usize {
        let text = f64::from(self.text);
        let per_label = text_width(widest, text) + 1.2 * text;
        ((plot_w / per_label).floor().max(0.0) as usize).clamp(2, max.max(2))
    }

    /// How many y tick labels fit `plot_h` CSS pixels: one per 2.6 text heights, 2 to 10.
    pub fn y_ticks(&self, plot_h: f64) -> usize {
        ((plot_h / (2.6 * f64::from(self.text))).floor().max(0.0) as usize).clamp(2, 10)
    }

    /// The font size of an axis description `desc` along `length` CSS pixels of axis: the text
    /// size, smaller where the description would run past the plot's ends (never below 8).
    pub fn desc_font(&self, desc: &str, length: f64) -> u32 {
        let w = text_width(desc, f64::from(self.text));
        if w <= length.max(0.0) {
            self.text
        } else {
            ((f64::from(self.text) * length / w).floor().max(0.0) as u32).clamp(8, self.text)
        }
    }

    /// The plot's own height inside a chart area `area_h` CSS pixels high (margins and the x
    /// label area taken off).
    pub fn plot_h(&self, area_h: f64) -> f64 {
        (area_h - f64::from(2 * self.margin + self.x_label_area)).max(0.0)
    }
}

/// `text` in lines no wider than `max_w` by `measure` (words kept whole where they fit; a word
/// wider than a line is cut between characters). Never empty for a non-empty text.
pub fn wrap(text: &str, max_w: f64, measure: &dyn Fn(&str) -> f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        if measure(&candidate) <= max_w || line.is_empty() && measure(word) <= max_w {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for c in word.chars() {
            let longer = format!("{line}{c}");
            if !line.is_empty() && measure(&longer) > max_w {
                lines.push(std::mem::replace(&mut line, c.to_string()));
            } else {
                line = longer;
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The title's lines in a chart `css_w` wide.
fn title_lines(title: &str, sizes: &Sizes, measure: &dyn Fn(&str) -> f64) -> Vec<String> {
    wrap(title, sizes.css_w - 2.0 * f64::from(sizes.margin), measure)
}

/// The estimate of a text's width at `size` CSS pixels, as a measure for [`wrap`].
fn estimate(size: u32) -> impl Fn(&str) -> f64 {
    move |t: &str| text_width(t, f64::from(size))
}

/// A chart's height in CSS pixels for its width: the plot's 5:9 (at least
/// [`MIN_PLOT_HEIGHT_CSS_PX`]), plus the title's lines and the legend's strip.
pub fn chart_height(css_w: f64, title: Option<&str>, legend: &[&str]) -> f64 {
    let sizes = Sizes::for_width(css_w);
    let plot = (sizes.css_w * 5.0 / 9.0).max(MIN_PLOT_HEIGHT_CSS_PX);
    let title_h = title.map_or(0.0, |t| title_height(&title_lines(t, &sizes, &estimate(sizes.title)), &sizes));
    let legend_h = place_legend(legend, &sizes, &estimate(sizes.text)).1;
    (plot + title_h + legend_h).round()
}

fn title_height(lines: &[String], sizes: &Sizes) -> f64 {
    if lines.is_empty() {
        0.0
    } else {
        lines.len() as f64 * sizes.title_line() + f64::from(sizes.margin)
    }
}

/// The width of `text` in `font`, in CSS pixels: the backend's measure, never below the
/// estimate of [`text_width`].
fn measured<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str, size: u32, theme: &Theme) -> f64 {
    let style = TextStyle::from(("sans-serif", theme.si(size as i32)).into_font());
    let real = area.estimate_text_size(text, &style).map_or(0.0, |(w, _)| f64::from(w) / theme.px);
    real.max(text_width(text, f64::from(size)))
}

/// Draws `title` centred at the top of `area` (wrapped onto as many lines as it needs) and
/// returns the area under it.
pub fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    theme: &Theme,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let sizes = Sizes::of(area, theme);
    let lines = title_lines(title, &sizes, &|t| measured(area, t, sizes.title, theme));
    if lines.is_empty() {
        return Ok(area.clone());
    }
    let (w, _) = area.dim_in_pixel();
    let font = ("sans-serif", theme.si(sizes.title as i32))
        .into_font()
        .color(&theme.text)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        let y = f64::from(sizes.margin) + i as f64 * sizes.title_line();
        area.draw(&Text::new(line.clone(), ((w / 2) as i32, (y * theme.px) as i32), font.clone()))?;
    }
    let height = (title_height(&lines, &sizes) * theme.px).round() as u32;
    Ok(area.split_vertically(height).1)
}

#[cfg(test)]
mod tests;
