//! A chart of a run's columns, as core declares it ([`ChartSpec`]): the x column against
//! the y columns (rows so far, so a sweep in progress fills the chart), with the seed post's
//! table overlaid as markers. No experiment-specific code: everything comes from the spec
//! and the [`RunOutput`].

use super::sweep::{Overlay, Series, Sweep};
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
                .collect();
            let name = format!("seed: {}", label.trim_end_matches(" (sim)"));
            chart.overlays.push(Overlay { name, points });
        }
    }
    chart
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let svg =
            crate::charts::render_svg((720, 400), |area, theme| crate::charts::sweep::draw_sweep(area, &chart, theme));
        for word in ["order-3 frags (sim)", "seed: order-0 frags", "Gbit/s", "<polyline"] {
            assert!(svg.contains(word), "missing {word}");
        }
    }
}
