//! Core's [`Plot`]: (x, y) lines that are not a sweep's columns (a quantity over simulated
//! time), with filled bands under them, labelled horizontal reference lines (a limit) and
//! labelled vertical marks (the moments something happened).
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::table::{num, DataTable};
use super::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use skblab_core::Plot;

/// The x and y ranges of everything drawn; y fits the data (a level far from 0 stays
/// readable) unless the plot asks to start at 0, with a margin so lines do not touch the frame.
fn ranges(p: &Plot) -> ((f64, f64), (f64, f64)) {
    let xs = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| q.0))
        .chain(p.bands.iter().flat_map(|b| b.points.iter().map(|q| q.0)))
        .chain(p.marks.iter().map(|m| m.1));
    let ys = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| q.1))
        .chain(p.bands.iter().flat_map(|b| b.points.iter().flat_map(|q| [q.1, q.2])))
        .chain(p.hlines.iter().map(|h| h.1));
    let span = |it: &mut dyn Iterator<Item = f64>| {
        it.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
    };
    let (x_lo, x_hi) = span(&mut xs.into_iter());
    let (y_lo, y_hi) = span(&mut ys.into_iter());
    let x = if x_lo.is_finite() && x_hi > x_lo { (x_lo, x_hi) } else { (0.0, 1.0) };
    let (y_lo, y_hi) = if y_lo.is_finite() { (y_lo, y_hi) } else { (0.0, 1.0) };
    let y_lo = if p.y_from_zero { y_lo.min(0.0) } else { y_lo };
    let pad = ((y_hi - y_lo) * 0.08).max(1.0);
    let y = (if p.y_from_zero && y_lo >= 0.0 { 0.0 } else { y_lo - pad }, y_hi + pad);
    (x, y)
}

/// A y tick label short enough for a phone: millions and thousands with a suffix.
fn y_tick(y: f64, magnitude: f64) -> String {
    if y.abs() < magnitude * 1e-9 {
        "0".to_string()
    } else if magnitude >= 1e6 {
        format!("{:.3}M", y / 1e6)
    } else if magnitude >= 1e4 {
        let k = y / 1e3;
        if (k - k.round()).abs() < 0.05 {
            format!("{k:.0}k")
        } else {
            format!("{k:.1}k")
        }
    } else {
        format!("{y:.0}")
    }
}

/// The legend's corner: the one whose quarter of the plot holds the fewest line points, so
/// the legend hides as little of the data as it can (a rising ramp leaves the lower right).
fn legend_corner(p: &Plot, (x_lo, x_hi): (f64, f64), (y_lo, y_hi): (f64, f64)) -> SeriesLabelPosition {
    let (xm, ym) = ((x_lo + x_hi) / 2.0, (y_lo + y_hi) / 2.0);
    let points = || p.lines.iter().flat_map(|l| l.points.iter());
    let count = |left: bool, upper: bool| points().filter(|q| (q.0 < xm) == left && (q.1 > ym) == upper).count();
    // On a tie the first wins: below a rising line, then the usual upper left.
    let corners = [
        (count(false, false), SeriesLabelPosition::LowerRight),
        (count(true, true), SeriesLabelPosition::UpperLeft),
        (count(false, true), SeriesLabelPosition::UpperRight),
        (count(true, false), SeriesLabelPosition::LowerLeft),
    ];
    corners.into_iter().min_by_key(|c| c.0).map_or(SeriesLabelPosition::UpperLeft, |c| c.1)
}

/// The numbers of `p` as a table (the chart's CSV): one row per x of any line or band, a
/// column per line (in the y unit), per band edge and per reference line; the marks last, one
/// row each, named in a "mark" column.
pub fn table(p: &Plot) -> DataTable {
    let unit = |name: &str| format!("{name} ({})", p.y_label);
    let mut columns = vec![p.x_label.clone()];
    columns.extend(p.lines.iter().map(|l| unit(&l.name)));
    for b in &p.bands {
        columns.extend([unit(&format!("{} min", b.name)), unit(&format!("{} max", b.name))]);
    }
    columns.extend(p.hlines.iter().map(|h| unit(&h.0)));
    columns.push("mark".to_string());
    let mut xs: Vec<f64> = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| q.0))
        .chain(p.bands.iter().flat_map(|b| b.points.iter().map(|q| q.0)))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut t = DataTable::new(columns);
    for x in xs {
        let mut row = vec![num(Some(x))];
        row.extend(p.lines.iter().map(|l| num(l.points.iter().find(|q| q.0 == x).map(|q| q.1))));
        for b in &p.bands {
            let at = b.points.iter().find(|q| q.0 == x);
            row.extend([num(at.map(|q| q.1)), num(at.map(|q| q.2))]);
        }
        row.extend(p.hlines.iter().map(|h| num(Some(h.1))));
        row.push(String::new());
        t.push(row);
    }
    for (label, x) in &p.marks {
        let mut row = vec![num(Some(*x))];
        row.extend(std::iter::repeat_n(String::new(), p.lines.len() + 2 * p.bands.len() + p.hlines.len()));
        row.push(label.clone());
        t.push(row);
    }
    t
}

/// Draws `p` onto `area`.
pub fn draw_plot<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Plot,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let ((x_lo, x_hi), (y_lo, y_hi)) = ranges(p);
    let magnitude = y_lo.abs().max(y_hi.abs());
    let legend = legend_corner(p, (x_lo, x_hi), (y_lo, y_hi));
    // Mark labels go to the edge the legend leaves free.
    let legend_below = matches!(legend, SeriesLabelPosition::LowerRight | SeriesLabelPosition::LowerLeft);
    let text = |size: i32| ("sans-serif", theme.si(size)).into_font().color(&theme.text);
    let mut chart = ChartBuilder::on(area)
        .margin(theme.s(12))
        .margin_right(theme.s(28))
        .x_label_area_size(theme.s(40))
        .y_label_area_size(theme.s(64))
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .label_style(text(13))
        .axis_desc_style(text(13))
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|x| format!("{x:.1}"))
        .y_label_formatter(&|y| y_tick(*y, magnitude))
        .draw()?;
    for (i, band) in p.bands.iter().enumerate() {
        let color = theme.series[(i + 1) % 3];
        let mut outline: Vec<(f64, f64)> = band.points.iter().map(|q| (q.0, q.2)).collect();
        outline.extend(band.points.iter().rev().map(|q| (q.0, q.1)));
        super::draw_band(&mut chart, outline, Some(&band.name), color, theme)?;
    }
    for (label, y) in &p.hlines {
        super::draw_hline(&mut chart, (x_lo, x_hi), *y, label, theme.marker, theme)?;
    }
    for (i, line) in p.lines.iter().enumerate() {
        let color = theme.line(i);
        let style = color.stroke_width(theme.s(2));
        let drawn = if line.dashed {
            chart.draw_series(DashedLineSeries::new(line.points.clone(), theme.s(5), theme.s(3), style))?
        } else {
            chart.draw_series(LineSeries::new(line.points.clone(), style))?
        };
        drawn.label(line.name.clone()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + theme.si(18), y)], color.stroke_width(theme.s(3)))
        });
    }
    draw_marks(&mut chart, p, ((x_lo, x_hi), (y_lo, y_hi)), legend_below, theme)?;
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(13))
        .draw()?;
    area.present()
}

/// The plot's marks: a vertical line each, labelled at staggered heights so two close moments
/// stay legible, at the edge the legend leaves free (the top if `legend_below`).
fn draw_marks<DB: DrawingBackend>(
    chart: &mut super::XyChart<'_, DB>,
    p: &Plot,
    ((x_lo, x_hi), (y_lo, y_hi)): ((f64, f64), (f64, f64)),
    legend_below: bool,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (k, (label, x)) in p.marks.iter().enumerate() {
        let color = theme.text.mix(0.75);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(*x, y_lo), (*x, y_hi)],
            color.stroke_width(theme.s(1)),
        )))?;
        // A label past the middle is written to the left of its line, so it stays inside.
        let step = (y_hi - y_lo) * (0.06 + 0.09 * k as f64);
        let (y, v) = if legend_below { (y_hi - step, VPos::Top) } else { (y_lo + step, VPos::Bottom) };
        let right_half = *x > (x_lo + x_hi) / 2.0;
        let anchor = if right_half { HPos::Right } else { HPos::Left };
        let style = ("sans-serif", theme.si(12)).into_font().color(&theme.text).pos(Pos::new(anchor, v));
        let words = if right_half { format!("{label}: {x:.2} ") } else { format!(" {label}: {x:.2}") };
        chart.draw_series(std::iter::once(Text::new(words, (*x, y), style)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::{PlotBand, PlotLine};

    fn plot() -> Plot {
        Plot {
            id: "p".into(),
            title: "ramp".into(),
            x_label: "time (ms)".into(),
            y_label: "pages".into(),
            lines: vec![
                PlotLine {
                    name: "true sum".into(),
                    points: vec![(0.0, 6_287_000.0), (2.0, 6_295_000.0)],
                    dashed: false,
                },
                PlotLine { name: "reads".into(), points: vec![(0.0, 6_284_000.0), (2.0, 6_292_000.0)], dashed: true },
            ],
            bands: vec![PlotBand { name: "bound".into(), points: vec![(0.0, 6_280_000.0, 6_287_000.0)] }],
            hlines: vec![("tcp_mem[2]".into(), 6_291_456.0)],
            marks: vec![("crosses".into(), 1.1), ("seen".into(), 1.9)],
            y_from_zero: false,
        }
    }

    #[test]
    fn draws_lines_band_limit_and_marks_with_a_fitted_axis() {
        let svg = crate::charts::render_svg((720, 400), |area, theme| draw_plot(area, &plot(), theme));
        for word in ["true sum", "reads", "tcp_mem[2]", "crosses: 1.10", "seen: 1.90", "bound", "<polygon", "6.29"] {
            assert!(svg.contains(word), "missing {word}");
        }
        let ((_, _), (lo, hi)) = ranges(&plot());
        assert!(lo > 6_000_000.0 && hi < 6_400_000.0, "y fits the data: {lo}..{hi}");
        assert!(plot().describe().contains("tcp_mem[2] at 6291456"));
        let csv = table(&plot()).to_csv();
        assert!(csv.starts_with("time (ms),true sum (pages),reads (pages),bound min (pages),bound max (pages),tcp_mem[2] (pages),mark\n"), "{csv}");
        assert!(csv.contains(",seen\n"), "{csv}");
        assert_eq!(y_tick(0.0, 14_336.0), "0");
        assert_eq!(y_tick(-10_000.0, 14_336.0), "-10k");
        assert_eq!(y_tick(2_500.0, 14_336.0), "2.5k");
        assert_eq!(y_tick(6_291_456.0, 6_300_000.0), "6.291M");
    }

    #[test]
    fn the_legend_takes_the_emptiest_corner() {
        // Both lines rise from the lower left to the upper right: the lower right is empty.
        let mut p = plot();
        p.lines[0].points = (0..20).map(|i| (f64::from(i), f64::from(i))).collect();
        p.lines[1].points = (0..20).map(|i| (f64::from(i), f64::from(i) - 2.0)).collect();
        p.hlines.clear();
        p.bands.clear();
        let (x, y) = ranges(&p);
        let corner = legend_corner(&p, x, y);
        assert!(matches!(corner, SeriesLabelPosition::LowerRight), "{corner:?}");
    }

    #[test]
    fn an_empty_or_flat_plot_draws() {
        let mut p = Plot::default();
        assert!(crate::charts::render_svg((360, 260), |a, t| draw_plot(a, &p, t)).starts_with("<svg"));
        p.lines.push(PlotLine { name: "zero".into(), points: vec![(0.0, 0.0), (1.0, 0.0)], dashed: false });
        let (_, (lo, hi)) = ranges(&p);
        assert!(lo < 0.0 && hi > 0.0, "a flat line gets a range around it: {lo}..{hi}");
        assert!(crate::charts::render_svg((360, 260), |a, t| draw_plot(a, &p, t)).starts_with("<svg"));
    }
}
