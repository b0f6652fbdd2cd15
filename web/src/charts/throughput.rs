//! `high-order-alloc`'s chart: TCP_STREAM throughput (Gbit/s) against flows for order-3 and
//! order-0 page frags, the simulated sweep as lines (filled point by point while the worker
//! runs) and the seed's measured points as markers.
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use skblab_core::experiments::high_order_alloc::SeedTable;

/// Mbit/s per Gbit/s.
const MBPS_PER_GBPS: f64 = 1000.0;

/// The chart's data, in Gbit/s.
#[derive(Debug, Clone, PartialEq)]
pub struct Throughput {
    pub caption: String,
    /// The x axis runs 1..=max_threads from the start, so points fill it without rescaling.
    pub max_threads: u32,
    /// `(flows, Gbit/s)` of the simulation, in flow order (may be partial).
    pub sim_order3_gbps: Vec<(u32, f64)>,
    pub sim_order0_gbps: Vec<(u32, f64)>,
    /// The seed's measured points inside the x range.
    pub seed_order3_gbps: Vec<(u32, f64)>,
    pub seed_order0_gbps: Vec<(u32, f64)>,
}

impl Throughput {
    /// From simulated rows `(flows, order3 Mbit/s, order0 Mbit/s)` and the seed's table.
    pub fn new(caption: String, max_threads: u32, sim_rows_mbps: &[(u32, f64, f64)], seed: &SeedTable) -> Throughput {
        let gbps = |mbps: f64| mbps / MBPS_PER_GBPS;
        let seed_rows = seed.rows.iter().filter(|r| r.threads <= max_threads);
        Throughput {
            caption,
            max_threads,
            sim_order3_gbps: sim_rows_mbps.iter().map(|r| (r.0, gbps(r.1))).collect(),
            sim_order0_gbps: sim_rows_mbps.iter().map(|r| (r.0, gbps(r.2))).collect(),
            seed_order3_gbps: seed_rows.clone().map(|r| (r.threads, gbps(f64::from(r.order3_mbps)))).collect(),
            seed_order0_gbps: seed_rows.map(|r| (r.threads, gbps(f64::from(r.order0_mbps)))).collect(),
        }
    }

    fn y_max(&self) -> f64 {
        let all = [&self.sim_order3_gbps, &self.sim_order0_gbps, &self.seed_order3_gbps, &self.seed_order0_gbps];
        let top = all.iter().flat_map(|s| s.iter().map(|p| p.1)).fold(0.0, f64::max);
        if top > 0.0 {
            top * 1.08
        } else {
            1.0
        }
    }
}

/// Draws `data` onto `area`.
pub fn draw_throughput<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &Throughput,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let text = |size: i32| ("sans-serif", size).into_font().color(&theme.text);
    let x_hi = f64::from(data.max_threads.max(2));
    let mut chart = ChartBuilder::on(area)
        .caption(&data.caption, text(17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.5..x_hi + 0.5, 0.0..data.y_max())?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc("flows (netperf/netserver pairs)")
        .y_desc("throughput [Gbit/s]")
        .label_style(text(13))
        .axis_desc_style(text(13))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    let xy = |s: &[(u32, f64)]| s.iter().map(|&(n, v)| (f64::from(n), v)).collect::<Vec<_>>();
    for (name, series, color) in [
        ("sim order-3", &data.sim_order3_gbps, theme.series[0]),
        ("sim order-0", &data.sim_order0_gbps, theme.series[1]),
    ] {
        let points = xy(series);
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3)));
    }
    let o3 = theme.series[0];
    chart
        .draw_series(xy(&data.seed_order3_gbps).into_iter().map(|p| TriangleMarker::new(p, 5, o3.stroke_width(1))))?
        .label("seed order-3")
        .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 5, o3.stroke_width(1)));
    let o0 = theme.series[1];
    chart
        .draw_series(xy(&data.seed_order0_gbps).into_iter().map(|p| Cross::new(p, 4, o0.stroke_width(2))))?
        .label("seed order-0")
        .legend(move |(x, y)| Cross::new((x + 9, y), 4, o0.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(13))
        .draw()?;
    area.present()
}

/// A text alternative of the chart for screen readers.
pub fn describe(data: &Throughput) -> String {
    let last = |s: &[(u32, f64)]| {
        s.last().map_or("no points yet".to_string(), |p| format!("{:.0} Gbit/s at {} flows", p.1, p.0))
    };
    format!(
        "Throughput against flows, 1 to {}: simulated order-3 {}, order-0 {}; seed points shown as markers.",
        data.max_threads,
        last(&data.sim_order3_gbps),
        last(&data.sim_order0_gbps)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::high_order_alloc::seed_table;

    fn render_svg(data: &Throughput) -> String {
        crate::charts::render_svg((720, 400), |area, theme| draw_throughput(area, data, theme))
    }

    #[test]
    fn draws_both_orders_the_seed_markers_and_the_legend() {
        let rows = [(1, 41_000.0, 35_000.0), (2, 83_000.0, 71_000.0), (3, 120_000.0, 106_000.0)];
        let data = Throughput::new("t".into(), 30, &rows, &seed_table());
        assert_eq!(data.seed_order3_gbps.len(), 30);
        assert!((data.sim_order3_gbps[0].1 - 41.0).abs() < 1e-9);
        let svg = render_svg(&data);
        for word in ["sim order-3", "sim order-0", "seed order-3", "seed order-0", "Gbit/s", "<polyline", "<circle"] {
            assert!(svg.contains(word), "missing {word}");
        }
        assert!(describe(&data).contains("120 Gbit/s at 3 flows"));
    }

    #[test]
    fn empty_and_short_sweeps_draw() {
        let data = Throughput::new(String::new(), 1, &[], &seed_table());
        assert_eq!(data.seed_order0_gbps.len(), 1);
        assert!(render_svg(&data).starts_with("<svg"));
        assert!(describe(&data).contains("no points yet"));
    }
}
