//! Core's [`Plot`]: (x, y) lines that are not a sweep's columns (a quantity over simulated
//! time), with filled bands under them, labelled horizontal reference lines (a limit) and
//! labelled vertical marks (the moments something happened).
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::layout::{self, LegendEntry, Sizes, Swatch};
use super::record::ChartBoxes;
use super::summary::{Line, Lines};
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

/// Whether the marks' labels go along the plot's top edge: where fewer line points are (a
/// rising ramp leaves the lower half free, a falling one the upper).
fn marks_at_top(p: &Plot, (y_lo, y_hi): (f64, f64)) -> bool {
    let ym = (y_lo + y_hi) / 2.0;
    let (upper, lower) =
        p.lines.iter().flat_map(|l| l.points.iter()).fold(
            (0, 0),
            |(u, l), q| {
                if q.1 > ym {
                    (u + 1, l)
                } else {
                    (u, l + 1)
                }
            },
        );
    upper <= lower
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

/// The lines of `p` as numbers (its summary and keyboard cursor).
pub fn lines(p: &Plot) -> Lines {
    Lines {
        x_label: p.x_label.clone(),
        y_label: p.y_label.clone(),
        x_names: Vec::new(),
        lines: p.lines.iter().map(|l| Line::new(l.name.clone(), l.points.iter().copied())).collect(),
    }
}

/// The legend of `p`, in drawing order: bands, reference lines, lines.
fn legend(p: &Plot, theme: &Theme) -> Vec<LegendEntry> {
    let bands = p.bands.iter().enumerate().map(|(i, b)| {
        LegendEntry::new(b.name.clone(), Swatch::Band { color: theme.series[(i + 1) % 3], outlined: false })
    });
    let hlines = p.hlines.iter().map(|(label, _)| {
        LegendEntry::new(label.clone(), Swatch::Line { color: theme.marker, width: 2, dashed: true, marker: None })
    });
    let lines = p.lines.iter().enumerate().map(|(i, l)| {
        LegendEntry::new(
            l.name.clone(),
            Swatch::Line { color: theme.line(i), width: 3, dashed: l.dashed, marker: None },
        )
    });
    bands.chain(hlines).chain(lines).collect()
}

/// The chart's height in CSS pixels when drawn `css_w` wide (its legend included).
pub fn height_css(p: &Plot, css_w: f64) -> f64 {
    let legend = legend(p, &Theme::LIGHT);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    layout::chart_height(css_w, None, &labels)
}

/// Draws `p` onto `area`: the plot, the legend in a strip under it.
pub fn draw_plot<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Plot,
    theme: &Theme,
) -> Result<ChartBoxes, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let sizes = Sizes::of(area, theme);
    let ((x_lo, x_hi), (y_lo, y_hi)) = ranges(p);
    let magnitude = y_lo.abs().max(y_hi.abs());
    let entries = legend(p, theme);
    let (plot_area, strip) = layout::split_legend(area, &entries, theme);
    let widest_y = [y_tick(y_lo, magnitude), y_tick(y_hi, magnitude)].into_iter().max_by_key(String::len);
    let widest_x = [format!("{x_lo:.1}"), format!("{x_hi:.1}")].into_iter().max_by_key(String::len).unwrap_or_default();
    let axes = super::Axes {
        x: (x_lo, x_hi),
        y: (y_lo, y_hi),
        desc: (&p.x_label, &p.y_label),
        widest: (&widest_x, &widest_y.unwrap_or_default()),
        most_labels: (8, 6),
        tick: (&|x| format!("{x:.1}"), &|y| y_tick(*y, magnitude)),
    };
    let (mut chart, plot_h) = super::xy_chart(&plot_area, &sizes, &axes, theme)?;
    for (i, band) in p.bands.iter().enumerate() {
        let mut outline: Vec<(f64, f64)> = band.points.iter().map(|q| (q.0, q.2)).collect();
        outline.extend(band.points.iter().rev().map(|q| (q.0, q.1)));
        super::draw_band(&mut chart, outline, theme.series[(i + 1) % 3])?;
    }
    for (_, y) in &p.hlines {
        super::draw_hline(&mut chart, (x_lo, x_hi), *y, theme.marker, theme)?;
    }
    for (i, line) in p.lines.iter().enumerate() {
        let style = theme.line(i).stroke_width(theme.s(2));
        if line.dashed {
            chart.draw_series(DashedLineSeries::new(line.points.clone(), theme.s(5), theme.s(3), style))?;
        } else {
            chart.draw_series(LineSeries::new(line.points.clone(), style))?;
        }
    }
    draw_marks(&mut chart, p, ((x_lo, x_hi), (y_lo, y_hi)), (&sizes, plot_h), theme)?;
    let legend = layout::draw_legend(&strip, &entries, theme)?;
    area.present()?;
    Ok(ChartBoxes::of_chart(&chart, legend))
}

/// The plot's marks: a vertical line each, labelled along the edge the lines leave free
/// ([`marks_at_top`]), one label under the other so two close moments stay legible. A label
/// is written on the side of its line with more room, and its value goes on a line of its own
/// where label and value do not fit there (a phone).
fn draw_marks<DB: DrawingBackend>(
    chart: &mut super::XyChart<'_, DB>,
    p: &Plot,
    ((x_lo, x_hi), (y_lo, y_hi)): ((f64, f64), (f64, f64)),
    (sizes, plot_h): (&Sizes, f64),
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (top, line_h) = (marks_at_top(p, (y_lo, y_hi)), f64::from(sizes.text) * 1.3);
    let plot_w = (x_hi - x_lo).max(f64::MIN_POSITIVE);
    let plot_w_css = f64::from(chart.plotting_area().dim_in_pixel().0) / theme.px;
    // The first label a little off the edge, each next one under the one before.
    let mut offset = 0.06 * plot_h;
    for (label, x) in &p.marks {
        let color = theme.text.mix(0.75);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(*x, y_lo), (*x, y_hi)],
            color.stroke_width(theme.s(1)),
        )))?;
        let right_half = *x > (x_lo + x_hi) / 2.0;
        let room = plot_w_css * if right_half { (x - x_lo) / plot_w } else { (x_hi - x) / plot_w } - 6.0;
        let words = format!("{label}: {x:.2}");
        let lines = if layout::text_width(&words, f64::from(sizes.text)) <= room {
            vec![words]
        } else {
            vec![format!("{label}:"), format!("{x:.2}")]
        };
        let anchor =
            Pos::new(if right_half { HPos::Right } else { HPos::Left }, if top { VPos::Top } else { VPos::Bottom });
        let style = ("sans-serif", theme.si(sizes.text as i32)).into_font().color(&theme.text).pos(anchor);
        let dx = if right_half { -theme.si(4) } else { theme.si(4) };
        let n = lines.len();
        // Each line on a patch of the background: legible where it crosses a line of the plot.
        let backdrop = theme.background.mix(0.8).filled();
        let text_h = theme.si((sizes.text as f64 * 1.2).round() as i32);
        for (i, line) in lines.into_iter().enumerate() {
            // From the top edge down; from the bottom edge up (the last line lowest).
            let from_edge = offset + if top { i as f64 } else { (n - 1 - i) as f64 } * line_h;
            let dy = (from_edge * theme.px).round() as i32 * if top { 1 } else { -1 };
            let at = (*x, if top { y_hi } else { y_lo });
            let w = chart.plotting_area().estimate_text_size(&line, &style).map_or(0, |(w, _)| w as i32);
            let (x0, x1) = if right_half { (dx - w - 2, dx + 2) } else { (dx - 2, dx + w + 2) };
            let (y0, y1) = if top { (dy, dy + text_h) } else { (dy - text_h, dy) };
            let patch = Rectangle::new([(x0, y0), (x1, y1)], backdrop);
            chart.draw_series(std::iter::once(
                EmptyElement::at(at) + patch + Text::new(line, (dx, dy), style.clone()),
            ))?;
        }
        offset += n as f64 * line_h + 2.0;
    }
    Ok(())
}

/// `b` (the current run's plot) with the same plot of the pinned run `a` beside it ("compare
/// two runs"): A's lines added dashed, the legend naming each line's run ("… (A)", "… (B)");
/// A's bands, reference lines and marks are left out, so the plot stays readable.
pub fn with_pinned(b: &Plot, a: &Plot) -> Plot {
    let mut out = b.clone();
    for l in &mut out.lines {
        l.name = format!("{} (B)", l.name);
    }
    out.lines.extend(a.lines.iter().map(|l| skblab_core::PlotLine {
        name: format!("{} (A)", l.name),
        points: l.points.clone(),
        dashed: true,
    }));
    out
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
    fn a_pinned_plot_adds_the_other_runs_lines_dashed_and_names_both() {
        let mut a = plot();
        a.lines[0].points[1].1 = 6_300_000.0;
        let both = with_pinned(&plot(), &a);
        let names: Vec<&str> = both.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["true sum (B)", "reads (B)", "true sum (A)", "reads (A)"]);
        assert!(both.lines[2].dashed && both.lines[2].points[1].1 == 6_300_000.0);
        assert_eq!((both.marks.len(), both.bands.len()), (2, 1), "B's marks and bands only");
        assert!(table(&both).to_csv().lines().next().unwrap().contains("true sum (A)"));
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
    fn mark_labels_go_along_the_edge_the_lines_leave_free() {
        // Both lines rise from the lower left to the upper right: as many points each side.
        let mut p = plot();
        p.lines[0].points = (0..20).map(|i| (f64::from(i), f64::from(i))).collect();
        p.lines[1].points = (0..20).map(|i| (f64::from(i), f64::from(i) - 2.0)).collect();
        p.hlines.clear();
        p.bands.clear();
        assert!(marks_at_top(&p, ranges(&p).1), "a tie: the top");
        p.lines[1].points = (0..20).map(|_| (1.0, 15.0)).collect();
        assert!(!marks_at_top(&p, ranges(&p).1), "most points high: the bottom");
    }

    #[test]
    fn at_phone_and_desktop_width_no_text_overlaps_and_the_legend_is_off_the_plot() {
        for (css_w, px) in [(290.0, 2.0), (330.0, 1.0), (720.0, 1.0), (1000.0, 2.0)] {
            let h = height_css(&plot(), css_w);
            let size = ((css_w * px) as u32, (h * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_plot(a, &plot(), t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
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
