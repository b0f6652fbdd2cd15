//! A chart of a run's columns, as core declares it ([`ChartSpec`]): the x column against
//! the y columns (rows so far, so a sweep in progress fills the chart), with the seed post's
//! table overlaid as markers, and a band for every y column the output also has as
//! `<column>_min` and `<column>_max` (a spread over seeds). No experiment-specific code: everything comes from the spec
//! and the [`RunOutput`]. [`add_model_bands`] adds core's uncertainty band where the seed
//! table's rows are the chart's x (a row label that reads as the x) and its metrics its columns.

use super::sweep::{Band, Overlay, Series, Sweep};
use skblab_core::validate::Bands;
use skblab_core::{ChartSpec, RunOutput};

/// The chart data of `spec` over `out` (rows so far) and, if the spec asks, `seed`'s points;
/// `x_range` is the sweep's full x range (known before its rows are).
pub fn column_chart(spec: &ChartSpec, out: &RunOutput, seed: Option<&RunOutput>, x_range: Option<(f64, f64)>) -> Sweep {
    let mut chart = Sweep::new(spec.title, spec.x_label, spec.y_label);
    chart.x_range = x_range;
    chart.dots = true;
    let xs = out.column_f64(spec.x);
    // Rows whose x is a number; every series uses the same rows.
    let rows: Vec<usize> = (0..out.rows.len()).filter(|&i| xs[i].is_some()).collect();
    chart.xs = rows.iter().filter_map(|&i| xs[i]).collect();
    for (column, label) in spec.ys {
        let ys = out.column_f64(column);
        let values = rows.iter().map(|&i| ys[i].map_or(f64::NAN, |y| y / spec.y_divisor)).collect();
        chart.series.push(Series { name: label.to_string(), ys: values });
        let bound = |suffix: &str| {
            let name = format!("{column}_{suffix}");
            out.columns.iter().any(|c| c.name == name).then(|| {
                let v = out.column_f64(&name);
                rows.iter().map(|&i| v[i].map_or(f64::NAN, |y| y / spec.y_divisor)).collect::<Vec<f64>>()
            })
        };
        if let (Some(lo), Some(hi)) = (bound("min"), bound("max")) {
            chart.bands.push(Band { series: chart.series.len() - 1, lo, hi, model: false });
        }
    }
    if let Some(seed) = seed.filter(|_| spec.seed_overlay) {
        let (lo, hi) = x_range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let sx = seed.column_f64(spec.x);
        for (column, label) in spec.ys {
            let sy = seed.column_f64(column);
            let points = sx
                .iter()
                .zip(&sy)
                .filter_map(|(x, y)| Some((((*x)?), (*y)? / spec.y_divisor)))
                .filter(|(x, _)| (lo..=hi).contains(x))
                .collect::<Vec<_>>();
            // A line the seed has no number for gets no legend entry: the legend must not list a
            // seed point that does not exist.
            if points.is_empty() {
                continue;
            }
            let name = format!("seed: {}", label.trim_end_matches(" (sim)"));
            chart.overlays.push(Overlay { name, points });
        }
    }
    chart
}

/// Adds `bands` to `chart` (of `spec`) for every y column that is a banded metric at some x
/// (the band's row label read as a number); NaN at the other x. True if any was added.
pub fn add_model_bands(chart: &mut Sweep, spec: &ChartSpec, bands: &Bands) -> bool {
    let mut added = false;
    for (i, (column, _)) in spec.ys.iter().enumerate() {
        let at = |x: f64| {
            let cell =
                bands.cells.iter().find(|c| c.metric == *column && c.label.trim().parse::<f64>().ok() == Some(x));
            cell.map_or([f64::NAN; 2], |c| c.band.map(|v| v / spec.y_divisor))
        };
        let edges: Vec<[f64; 2]> = chart.xs.iter().map(|&x| at(x)).collect();
        if edges.iter().any(|e| e[0].is_finite()) {
            let (lo, hi) = (edges.iter().map(|e| e[0]).collect(), edges.iter().map(|e| e[1]).collect());
            chart.bands.push(Band { series: i, lo, hi, model: true });
            added = true;
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::summary::Cursor;
    use skblab_core::{experiments::high_order_alloc as hoa, Cell, Experiment, ViewSpec};

    fn spec() -> ChartSpec {
        let views = hoa::HighOrderAlloc.views();
        views
            .into_iter()
            .find_map(|v| match v {
                ViewSpec::Chart { chart, .. } => Some(chart),
                _ => None,
            })
            .expect("high-order-alloc declares a chart")
    }

    #[test]
    fn partial_rows_fill_the_chart_and_the_seed_overlays_inside_the_range() {
        let e = &hoa::HighOrderAlloc;
        let params = e.defaults();
        let mut out = RunOutput::new(hoa::ID, 1, e.columns(&params));
        for n in 1..=3 {
            out.push_row(vec![Cell::Int(n), Cell::Float(41_000.0 * n as f64), Cell::Float(35_000.0 * n as f64)]);
        }
        let seed = e.seed_output().unwrap();
        let chart = column_chart(&spec(), &out, Some(&seed), Some((1.0, 5.0)));
        assert_eq!(chart.xs, vec![1.0, 2.0, 3.0]);
        assert!((chart.series[0].ys[2] - 123.0).abs() < 1e-9, "Mbit/s drawn in Gbit/s");
        assert_eq!(chart.overlays.len(), 2);
        assert_eq!(chart.overlays[0].points.len(), 5, "seed points inside 1..=5 flows only");
        assert!(chart.describe().contains("123 at 3"), "{}", chart.describe());
        assert!(chart.bands.is_empty(), "one seed: no band");
        let svg =
            crate::charts::render_svg((720, 400), |area, theme| crate::charts::sweep::draw_sweep(area, &chart, theme));
        for word in ["order-3 frags (sim)", "seed: order-0 frags", "Gbit/s", "<polyline"] {
            assert!(svg.contains(word), "missing {word}");
        }
    }

    #[test]
    fn min_and_max_columns_draw_a_band_behind_their_series() {
        let e = &hoa::HighOrderAlloc;
        let mut params = e.defaults();
        params.set("seeds", skblab_core::Value::Int(3)).unwrap();
        params.set("max_threads", skblab_core::Value::Int(2)).unwrap();
        let mut out = RunOutput::new(hoa::ID, 1, e.columns(&params));
        for n in 1..=2 {
            let f = |v: f64| Cell::Float(v * n as f64);
            out.push_row(vec![
                Cell::Int(n),
                f(41_000.0),
                f(35_000.0),
                f(40_000.0),
                f(42_000.0),
                f(34_000.0),
                f(36_000.0),
            ]);
        }
        let chart = column_chart(&spec(), &out, None, None);
        assert_eq!(chart.bands.len(), 2);
        assert_eq!((chart.bands[0].series, chart.bands[1].series), (0, 1));
        assert_eq!(chart.bands[0].lo, vec![40.0, 80.0]);
        assert_eq!(chart.bands[1].hi, vec![36.0, 72.0]);
        assert!(chart.describe().contains("spread 68 to 72"), "{}", chart.describe());
        // The keyboard cursor reads each point's spread after its value.
        let said = chart.lines().announce(Cursor { line: 1, point: 1 }).unwrap();
        assert!(said.ends_with(", 70 Gbit/s (seeds' spread 68–72 Gbit/s)"), "{said}");
    }

    #[test]
    fn a_model_band_is_drawn_where_the_rows_are_the_x() {
        use skblab_core::validate::{BandCell, Bands};
        let e = &hoa::HighOrderAlloc;
        let mut out = RunOutput::new(hoa::ID, 1, e.columns(&e.defaults()));
        for n in 1..=3 {
            out.push_row(vec![Cell::Int(n), Cell::Float(41_000.0 * n as f64), Cell::Float(35_000.0 * n as f64)]);
        }
        let mut chart = column_chart(&spec(), &out, None, None);
        let cell = |label: &str, band| BandCell { label: label.into(), metric: "order3_mbps".into(), band };
        let cells = vec![cell("2", [70_000.0, 90_000.0]), cell("3", [100_000.0, 140_000.0])];
        let b = Bands { experiment: hoa::ID.into(), samples: 4, ran: 4, seed: 1, quantities: Vec::new(), cells };
        assert!(add_model_bands(&mut chart, &spec(), &b));
        assert_eq!(chart.bands.len(), 1, "order-0 has no band cell");
        assert!(chart.bands[0].model && chart.bands[0].lo[0].is_nan() && chart.bands[0].hi[2] == 140.0);
        assert!(chart.describe().contains("model band 100 to 140"), "{}", chart.describe());
        let lines = chart.lines();
        let said = |point| lines.announce(Cursor { line: 0, point }).unwrap();
        assert!(said(2).ends_with(", 123 Gbit/s (model band 100–140 Gbit/s)"), "{}", said(2));
        assert!(said(0).ends_with(", 41 Gbit/s"), "no band at 1 thread: {}", said(0));
        let svg = crate::charts::render_svg((720, 400), |a, t| crate::charts::sweep::draw_sweep(a, &chart, t));
        assert!(svg.contains("model band (catalogue constants"), "legend");
        let csv = chart.table().to_csv();
        assert!(csv.lines().next().unwrap().contains("order-3 frags (sim) band lo (Gbit/s)"), "{csv}");
    }
}
