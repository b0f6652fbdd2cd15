//! A line chart of one or more series over a swept parameter, with an optional horizontal
//! reference line (the half page) and a marker at the learner's current setting.
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One line of a sweep chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub ys: Vec<f64>,
}

/// The data of a sweep chart; `xs` and every `ys` have the same length.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub caption: String,
    pub x_label: String,
    pub y_label: String,
    pub xs: Vec<f64>,
    pub series: Vec<Series>,
    /// A labelled horizontal line (e.g. "half page" at 2048).
    pub hline: Option<(String, f64)>,
    /// The current x, marked by a vertical line and dots on every series.
    pub marker_x: Option<f64>,
}

impl Sweep {
    fn x_range(&self) -> (f64, f64) {
        let lo = self.xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi > lo {
            (lo, hi)
        } else {
            (0.0, 1.0)
        }
    }

    fn y_max(&self) -> f64 {
        let ys = self.series.iter().flat_map(|s| s.ys.iter().copied());
        let top = ys.chain(self.hline.iter().map(|h| h.1)).fold(0.0, f64::max);
        if top > 0.0 {
            top * 1.08
        } else {
            1.0
        }
    }

    /// The y of series `i` at the x closest to `x`.
    fn y_near(&self, i: usize, x: f64) -> Option<f64> {
        let (idx, _) = self.xs.iter().enumerate().min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))?;
        self.series.get(i)?.ys.get(idx).copied()
    }
}

/// Draws `data` onto `area`.
pub fn draw_sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &Sweep,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let (x_lo, x_hi) = data.x_range();
    let text = |size: i32| ("sans-serif", size).into_font().color(&theme.text);
    let mut chart = ChartBuilder::on(area)
        .caption(&data.caption, text(17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(x_lo..x_hi, 0.0..data.y_max())?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .label_style(text(13))
        .axis_desc_style(text(13))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    if let Some((label, y)) = &data.hline {
        let color = theme.series[2];
        chart
            .draw_series(DashedLineSeries::new(vec![(x_lo, *y), (x_hi, *y)], 6, 4, color.stroke_width(2)))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    }
    for (i, series) in data.series.iter().enumerate() {
        let color = theme.series[i % 2];
        let points = data.xs.iter().copied().zip(series.ys.iter().copied());
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(series.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3)));
    }
    if let Some(x) = data.marker_x {
        let top = data.y_max();
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, top)], theme.marker.mix(0.7))))?;
        let dots: Vec<(f64, f64)> = (0..data.series.len()).filter_map(|i| data.y_near(i, x).map(|y| (x, y))).collect();
        chart.draw_series(dots.into_iter().map(|p| Circle::new(p, 5, theme.marker.filled())))?;
    }
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

    fn render_svg(data: &Sweep) -> String {
        crate::charts::render_svg((640, 360), |area, theme| draw_sweep(area, data, theme))
    }

    #[test]
    fn draws_series_labels_and_marker() {
        let data = Sweep {
            caption: "test".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            xs: vec![0.0, 1.0, 2.0],
            series: vec![Series { name: "alpha".into(), ys: vec![1.0, 2.0, 4.0] }],
            hline: Some(("half".into(), 3.0)),
            marker_x: Some(1.0),
        };
        let svg = render_svg(&data);
        assert!(svg.starts_with("<svg"), "{svg}");
        for word in ["alpha", "half", "test", "<polyline", "<circle"] {
            assert!(svg.contains(word), "missing {word} in {svg}");
        }
    }

    #[test]
    fn empty_data_does_not_panic() {
        let data = Sweep {
            caption: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            xs: vec![],
            series: vec![],
            hline: None,
            marker_x: None,
        };
        assert!(render_svg(&data).starts_with("<svg"));
    }
}
