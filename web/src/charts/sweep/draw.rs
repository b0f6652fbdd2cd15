//! Drawing a [`Sweep`]: the title, the plot (bands behind the series, the pinned run's dashed
//! lines, the measured points, the marker at the current setting) and the legend in its strip
//! under the plot.

use super::{y_decimals, Band, Sweep};
use crate::charts::layout::{self, LegendEntry, Marker, Sizes, Swatch};
use crate::charts::record::ChartBoxes;
use crate::charts::table::num;
use crate::charts::{shade, xy_chart, Axes, Theme, XyChart};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The legend of `data`, in drawing order: the reference line, one entry per kind of band, the
/// series, the measured points.
fn legend(data: &Sweep, theme: &Theme) -> Vec<LegendEntry> {
    let mut out = Vec::new();
    if let Some((label, _)) = &data.hline {
        out.push(LegendEntry::new(
            label,
            Swatch::Line { color: theme.series[2], width: 2, dashed: true, marker: None },
        ));
    }
    let drawn = |model: bool| data.bands.iter().find(|b| b.model == model && band_outline(data, b).len() >= 3);
    if let Some(b) = drawn(false) {
        let swatch = Swatch::Band { color: theme.line(b.series), outlined: false };
        out.push(LegendEntry::new("shaded: min-max over the seeds", swatch));
    }
    if let Some(b) = drawn(true) {
        let swatch = Swatch::Band { color: theme.line(b.series), outlined: true };
        out.push(LegendEntry::new("outlined: model band (catalogue constants in their ranges)", swatch));
    }
    out.extend(data.series.iter().enumerate().map(|(i, s)| LegendEntry::line(s.name.clone(), theme.line(i))));
    for (i, s, _) in data.pinned_lines() {
        let swatch =
            Swatch::Line { color: shade(theme.line(i), theme.text, 0.35), width: 2, dashed: true, marker: None };
        out.push(LegendEntry::new(s.name.clone(), swatch));
    }
    if let Some(x) = data.pinned.as_ref().and_then(|p| p.marker_x) {
        let swatch = Swatch::Line { color: theme.marker, width: 1, dashed: true, marker: None };
        out.push(LegendEntry::new(format!("A's setting ({})", num(Some(x))), swatch));
    }
    for (i, o) in data.overlays.iter().enumerate() {
        let color = theme.line(i);
        let marker = if i % 2 == 0 { Marker::Triangle { color, filled: false } } else { Marker::Cross(color) };
        out.push(LegendEntry::new(o.name.clone(), Swatch::Marker(marker)));
    }
    out
}

/// The chart's height in CSS pixels when drawn `css_w` wide (its title and legend included).
pub fn height_css(data: &Sweep, css_w: f64) -> f64 {
    let legend = legend(data, &Theme::LIGHT);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    layout::chart_height(css_w, Some(data.caption.as_str()), &labels)
}

/// Draws `data` onto `area`: the title, the plot, the legend in a strip under it.
pub fn draw_sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &Sweep,
    theme: &Theme,
) -> Result<ChartBoxes, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let sizes = Sizes::of(area, theme);
    let ((x_lo, x_hi), y_max) = (data.x_range(), data.y_max());
    let decimals = y_decimals(y_max);
    let entries = legend(data, theme);
    let (plot_area, strip) = layout::split_legend(&layout::draw_title(area, &data.caption, theme)?, &entries, theme);
    let widest_x = [sizes.tick(x_lo, 0), sizes.tick(x_hi, 0)].into_iter().max_by_key(String::len).unwrap_or_default();
    // Integer x (flows, frags): at most one label per integer, so a short axis does not
    // repeat "1 1 1 2 2 2"; and no more than fit side by side.
    let per_integer = ((x_hi - x_lo).floor() as usize + 1).clamp(2, 10);
    let axes = Axes {
        x: (x_lo, x_hi),
        y: (0.0, y_max),
        desc: (&data.x_label, &data.y_label),
        widest: (&widest_x, &sizes.tick(y_max, decimals)),
        most_labels: (per_integer, usize::MAX),
        tick: (&|x| sizes.tick(*x, 0), &|y| sizes.tick(*y, decimals)),
    };
    let (mut chart, _) = xy_chart(&plot_area, &sizes, &axes, theme)?;
    if let Some((_, y)) = &data.hline {
        crate::charts::draw_hline(&mut chart, (x_lo, x_hi), *y, theme.series[2], theme)?;
    }
    draw_bands(&mut chart, data, theme)?;
    for (i, series) in data.series.iter().enumerate() {
        let color = theme.line(i);
        let points: Vec<(f64, f64)> = data.xs.iter().copied().zip(series.ys.iter().copied()).collect();
        if data.dots {
            chart.draw_series(points.iter().map(|&p| Circle::new(p, theme.si(3), color.filled())))?;
        }
        chart.draw_series(LineSeries::new(points, color.stroke_width(theme.s(2))))?;
    }
    draw_pinned(&mut chart, data, theme)?;
    draw_overlays(&mut chart, data, theme)?;
    draw_marker(&mut chart, data, theme)?;
    let legend = layout::draw_legend(&strip, &entries, theme)?;
    area.present()?;
    Ok(ChartBoxes::of_chart(&chart, legend))
}

/// A band's outline: its upper edge left to right, its lower edge back (finite points only).
fn band_outline(data: &Sweep, band: &Band) -> Vec<(f64, f64)> {
    let lo = data.xs.iter().copied().zip(band.lo.iter().copied());
    let hi = data.xs.iter().copied().zip(band.hi.iter().copied());
    hi.chain(lo.rev()).filter(|(x, y)| x.is_finite() && y.is_finite()).collect()
}

/// The bands behind the series: the seeds' spread shaded, the model band (catalogue constants)
/// shaded lighter with an outline; one legend entry says what every band of a kind is.
fn draw_bands<DB: DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    data: &Sweep,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for band in &data.bands {
        let color = theme.line(band.series);
        let outline = band_outline(data, band);
        if outline.len() < 3 {
            continue;
        }
        if band.model {
            let (fill, stroke) = (color.mix(0.1).filled(), color.stroke_width(theme.s(1)));
            let mut closed = outline.clone();
            closed.push(outline[0]);
            chart.draw_series(std::iter::once(Polygon::new(outline, fill)))?;
            chart.draw_series(std::iter::once(PathElement::new(closed, stroke)))?;
        } else {
            crate::charts::draw_band(chart, outline, color)?;
        }
    }
    Ok(())
}

/// The overlaid measured points (e.g. the seed's numbers), triangles and crosses in turn.
fn draw_overlays<DB: DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    data: &Sweep,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, overlay) in data.overlays.iter().enumerate() {
        let color = theme.line(i);
        let points = overlay.points.iter().copied();
        if i % 2 == 0 {
            chart.draw_series(points.map(|p| TriangleMarker::new(p, theme.si(5), color.stroke_width(theme.s(1)))))?;
        } else {
            chart.draw_series(points.map(|p| Cross::new(p, theme.si(4), color.stroke_width(theme.s(2)))))?;
        }
    }
    Ok(())
}

/// The pinned run A: its lines dashed, a shade darker (lighter in dark mode) than B's, and
/// its current x as a dashed vertical line.
fn draw_pinned<DB: DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    data: &Sweep,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, _, points) in data.pinned_lines() {
        let stroke = shade(theme.line(i), theme.text, 0.35).stroke_width(theme.s(2));
        chart.draw_series(DashedLineSeries::new(points, theme.s(7), theme.s(5), stroke))?;
    }
    if let Some(x) = data.pinned.as_ref().and_then(|p| p.marker_x) {
        let stroke = theme.marker.mix(0.7).stroke_width(theme.s(1));
        chart.draw_series(DashedLineSeries::new(vec![(x, 0.0), (x, data.y_max())], theme.s(5), theme.s(4), stroke))?;
    }
    Ok(())
}

/// The vertical marker at `data.marker_x`, with a dot where it crosses each series.
fn draw_marker<DB: DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    data: &Sweep,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if let Some(x) = data.marker_x {
        let top = data.y_max();
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, top)], theme.marker.mix(0.7))))?;
        let dots: Vec<(f64, f64)> = (0..data.series.len()).filter_map(|i| data.y_near(i, x).map(|y| (x, y))).collect();
        chart.draw_series(dots.into_iter().map(|p| Circle::new(p, theme.si(5), theme.marker.filled())))?;
    }
    Ok(())
}
