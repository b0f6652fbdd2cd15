//! The ktls-recursion chart: peak kernel stack against frag_list nesting depth, one line per
//! fix, with THREAD_SIZE drawn across and every overflowing point marked.
//!
//! The numbers come from core (its view data "chart", [`StackVsDepth`]); this module only
//! lays them out. Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use crate::charts::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
pub use skblab_core::experiments::ktls_recursion::StackVsDepth;

/// The deepest depth on the axis (at least 1).
fn depth_max(data: &StackVsDepth) -> u32 {
    let d = data.series.iter().flat_map(|s| s.points.iter().map(|p| p.depth)).max().unwrap_or(0);
    d.max(1)
}

/// The top of the byte axis: the highest point or THREAD_SIZE (at least 1).
fn bytes_max(data: &StackVsDepth) -> u64 {
    let top = data.series.iter().flat_map(|s| s.points.iter().map(|p| p.stack_used_bytes_max)).max();
    top.unwrap_or(0).max(data.thread_size_bytes).max(1)
}

/// Five colours, one per fix, readable on the theme's background.
fn fix_color(theme: &Theme, i: usize) -> RGBColor {
    let extra = if theme.background.0 > 128 {
        [RGBColor(28, 140, 84), RGBColor(150, 70, 180)]
    } else {
        [RGBColor(92, 201, 140), RGBColor(196, 140, 230)]
    };
    match i {
        0 => theme.marker,
        1 => theme.series[0],
        2 => extra[0],
        3 => theme.series[1],
        _ => extra[1],
    }
}

/// Line widths per fix: the three fixes that stay flat overlap, so they are drawn as nested
/// stripes (wide under narrow) instead of hiding each other.
const WIDTHS: [u32; 5] = [2, 7, 4, 2, 2];
/// Width of the legend column right of the plot, in pixels.
const LEGEND_W: u32 = 190;

/// Draws `data` onto `area`: the plot on the left, its legend in a column on the right (the
/// lines fill the whole plot, so a legend inside it would hide one).
pub fn draw_stack_vs_depth<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &StackVsDepth,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let (w, _) = area.dim_in_pixel();
    let (plot, side) = area.split_horizontally(w.saturating_sub(LEGEND_W));
    let text = |size: i32| ("sans-serif", theme.si(size)).into_font().color(&theme.text);
    let (x_hi, y_hi) = (depth_max(data) as f64, bytes_max(data) as f64 * 1.08);
    let mut chart = ChartBuilder::on(&plot)
        .caption("Peak kernel stack vs. nesting depth", text(17))
        .margin(theme.s(12))
        // The last x tick label is centred on the plot's edge: room for its right half.
        .margin_right(theme.s(28))
        .x_label_area_size(theme.s(40))
        .y_label_area_size(theme.s(64))
        .build_cartesian_2d(0.0..x_hi, 0.0..y_hi)?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc("nesting depth (TLS records)")
        .y_desc("stack used, max (bytes)")
        .label_style(text(13))
        .axis_desc_style(text(13))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    let limit = theme.series[2];
    for bytes in [data.thread_size_bytes, 2 * data.thread_size_bytes] {
        let line = vec![(0.0, bytes as f64), (x_hi, bytes as f64)];
        chart.draw_series(DashedLineSeries::new(line, 6, 4, limit.stroke_width(theme.s(2))))?;
    }
    for (i, s) in data.series.iter().enumerate() {
        let color = fix_color(theme, i);
        let points = s.points.iter().map(|p| (p.depth as f64, p.stack_used_bytes_max as f64));
        chart.draw_series(LineSeries::new(points, color.stroke_width(WIDTHS[i % WIDTHS.len()])))?;
        let overflows = s.points.iter().filter(|p| p.overflow);
        chart.draw_series(overflows.map(|p| Cross::new((p.depth as f64, p.stack_used_bytes_max as f64), 3, color)))?;
    }
    draw_legend(&side, data, theme)?;
    area.present()
}

/// The legend column: one swatch per fix, the THREAD_SIZE lines, the overflow mark.
fn draw_legend<DB: DrawingBackend>(
    side: &DrawingArea<DB, Shift>,
    data: &StackVsDepth,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", theme.si(13)).into_font().color(&theme.text);
    let row = |i: usize| 56 + 22 * i as i32;
    let swatch = |y: i32| vec![(4, y), (26, y)];
    for (i, s) in data.series.iter().enumerate() {
        let color = fix_color(theme, i);
        side.draw(&PathElement::new(swatch(row(i)), color.stroke_width(theme.s(4))))?;
        side.draw(&Text::new(s.fix.as_str(), (34, row(i) - 7), font.clone()))?;
    }
    let n = data.series.len();
    let limit = theme.series[2];
    side.draw(&PathElement::new(swatch(row(n)), limit.stroke_width(theme.s(2))))?;
    side.draw(&Text::new(format!("THREAD_SIZE {} B", data.thread_size_bytes), (34, row(n) - 7), font.clone()))?;
    side.draw(&Text::new("and 2 × (bigger-stack)", (34, row(n + 1) - 10), font.clone()))?;
    side.draw(&Cross::new((15, row(n + 2)), 4, theme.text))?;
    side.draw(&Text::new("overflow: walk stopped", (34, row(n + 2) - 7), font))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::ktls_recursion::{KtlsRecursion, FIXES};
    use skblab_core::Experiment;

    fn render_svg(data: &StackVsDepth) -> String {
        crate::charts::render_svg((720, 400), |area, theme| draw_stack_vs_depth(area, data, theme))
    }

    #[test]
    fn draws_every_fix_the_limit_and_overflow_marks() {
        let data = StackVsDepth::of(&KtlsRecursion.defaults());
        assert_eq!(data.series.len(), FIXES.len());
        assert!(data.series[0].points.iter().any(|p| p.overflow), "fix none overflows somewhere on the axis");
        let svg = render_svg(&data);
        assert!(svg.starts_with("<svg"), "{svg}");
        for word in ["none", "no-rx-cache", "iterative-free", "strparser-flatten", "bigger-stack", "THREAD_SIZE 16384"]
        {
            assert!(svg.contains(word), "missing {word}");
        }
        assert!(svg.matches("<polyline").count() >= FIXES.len(), "one line per fix");
    }

    #[test]
    fn empty_data_does_not_panic() {
        let data = StackVsDepth { thread_size_bytes: 0, series: vec![] };
        assert!(render_svg(&data).starts_with("<svg"));
    }
}
