//! The ktls-recursion chart: peak kernel stack against frag_list nesting depth, one line per
//! fix, with THREAD_SIZE drawn across and every overflowing point marked.
//!
//! The numbers come from core ([`stack_vs_depth`]); this module only lays them out. Generic
//! over the plotters backend: the canvas in the browser, SVG in the tests.

use super::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use skblab_core::experiments::ktls_recursion::{chart_depths, stack_vs_depth, DepthPoint, FIXES};
use skblab_core::Params;

/// One line: a fix and its points.
#[derive(Debug, Clone, PartialEq)]
pub struct FixSeries {
    pub fix: &'static str,
    pub points: Vec<DepthPoint>,
}

/// The chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct StackVsDepth {
    /// The THREAD_SIZE the learner set (the `bigger-stack` fix doubles it for its own walk).
    pub thread_size_bytes: u64,
    pub series: Vec<FixSeries>,
}

impl StackVsDepth {
    /// Every fix in [`FIXES`] over [`chart_depths`], other knobs from `params`.
    pub fn from_params(params: &Params) -> StackVsDepth {
        let depths = chart_depths();
        let series = FIXES.iter().map(|&f| FixSeries { fix: f.name(), points: stack_vs_depth(params, f, &depths) });
        StackVsDepth { thread_size_bytes: params.int("thread_size_bytes") as u64, series: series.collect() }
    }

    fn depth_max(&self) -> u32 {
        let d = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.depth)).max().unwrap_or(0);
        d.max(1)
    }

    fn bytes_max(&self) -> u64 {
        let top = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.stack_used_bytes_max)).max();
        top.unwrap_or(0).max(self.thread_size_bytes).max(1)
    }
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

/// Draws `data` onto `area`.
pub fn draw_stack_vs_depth<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &StackVsDepth,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let text = |size: i32| ("sans-serif", size).into_font().color(&theme.text);
    let (x_hi, y_hi) = (data.depth_max() as f64, data.bytes_max() as f64 * 1.08);
    let mut chart = ChartBuilder::on(area)
        .caption("Peak kernel stack vs. nesting depth", text(17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
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
    let thread = data.thread_size_bytes as f64;
    chart
        .draw_series(DashedLineSeries::new(vec![(0.0, thread), (x_hi, thread)], 6, 4, limit.stroke_width(2)))?
        .label(format!("THREAD_SIZE {} B", data.thread_size_bytes))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], limit.stroke_width(2)));
    for (i, s) in data.series.iter().enumerate() {
        let color = fix_color(theme, i);
        let points = s.points.iter().map(|p| (p.depth as f64, p.stack_used_bytes_max as f64));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(s.fix)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3)));
        let overflows = s.points.iter().filter(|p| p.overflow);
        chart.draw_series(overflows.map(|p| Cross::new((p.depth as f64, p.stack_used_bytes_max as f64), 4, color)))?;
    }
    // One legend entry for the overflow markers.
    let mark = theme.text;
    chart
        .draw_series(std::iter::empty::<Cross<(f64, f64), i32>>())?
        .label("× overflow (walk stopped)")
        .legend(move |(x, y)| Cross::new((x + 9, y), 4, mark));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(13))
        .draw()?;
    area.present()
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::ktls_recursion::specs;

    fn render_svg(data: &StackVsDepth) -> String {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (720, 400)).into_drawing_area();
            draw_stack_vs_depth(&area, data, &Theme::LIGHT).expect("chart draws");
        }
        svg
    }

    #[test]
    fn draws_every_fix_the_limit_and_overflow_marks() {
        let data = StackVsDepth::from_params(&Params::defaults(&specs()));
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
