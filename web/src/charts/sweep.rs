//! The app's one line chart: series over a swept parameter (the columns of a run, filled as
//! rows arrive), optional overlays of measured points (a seed post's table), an optional
//! horizontal reference line (the half page) and a marker at the learner's current setting.
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::layout::{self, LegendEntry, Marker, Sizes, Swatch};
use super::record::ChartBoxes;
use super::summary::{Line, Lines, Spread};
use super::table::{num, DataTable};
use super::{shade, Theme};
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
    /// Measured points drawn as markers (triangles, crosses, ...), in series colours.
    pub overlays: Vec<Overlay>,
    /// The x axis range when known before the data (a sweep in progress fills it).
    pub x_range: Option<(f64, f64)>,
    /// Draw a dot at every point of every series.
    pub dots: bool,
    /// Spreads drawn as shaded bands behind their series (e.g. min-max over seeds).
    pub bands: Vec<Band>,
    /// A pinned run's lines ("compare two runs"), set by [`Sweep::pin`]: drawn dashed.
    pub pinned: Option<Pinned>,
}

/// The lines of run A beside the chart's own (run B): its own xs (A's sweep may cover other
/// points), series `i` drawn dashed in the colour of the chart's series `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pinned {
    pub xs: Vec<f64>,
    pub series: Vec<Series>,
    /// A's current x (its marker), drawn dashed where it differs from B's.
    pub marker_x: Option<f64>,
}

/// The spread of series `series`: `lo` and `hi` at each of the chart's `xs` (NaN where there is
/// none). `model`: the uncertainty band of the catalogue constants (core's bands), drawn
/// outlined beside the seeds' spread; else the spread over seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub series: usize,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub model: bool,
}

/// Measured points of one series, drawn as markers.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

impl Sweep {
    /// A chart with no series yet.
    pub fn new(caption: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Sweep {
        Sweep {
            caption: caption.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            xs: Vec::new(),
            series: Vec::new(),
            hline: None,
            marker_x: None,
            overlays: Vec::new(),
            x_range: None,
            dots: false,
            bands: Vec::new(),
            pinned: None,
        }
    }

    /// Adds run `a`'s series (the same chart of the pinned run A) beside this one's (run B):
    /// the legend says which is which ("… (A)" dashed, "… (B)" solid), and A's marker where it
    /// is not B's. A's bands and overlays are not drawn: the chart stays readable, the
    /// comparison table has the numbers.
    pub fn pin(&mut self, a: &Sweep) {
        for s in &mut self.series {
            s.name = format!("{} (B)", s.name);
        }
        let series = a.series.iter().map(|s| Series { name: format!("{} (A)", s.name), ys: s.ys.clone() }).collect();
        let marker_x = a.marker_x.filter(|x| Some(*x) != self.marker_x);
        self.pinned = Some(Pinned { xs: a.xs.clone(), series, marker_x });
    }

    /// A's series with their points (finite ones only).
    fn pinned_lines(&self) -> impl Iterator<Item = (usize, &Series, Vec<(f64, f64)>)> {
        self.pinned.iter().flat_map(|p| {
            p.series.iter().enumerate().map(|(i, s)| {
                let points =
                    p.xs.iter().copied().zip(s.ys.iter().copied()).filter(|(x, y)| x.is_finite() && y.is_finite());
                (i, s, points.collect())
            })
        })
    }

    /// A text alternative for screen readers: each series' last point.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("{}: {} against {}", self.caption, self.y_label, self.x_label)];
        for s in &self.series {
            match (self.xs.get(s.ys.len().wrapping_sub(1)), s.ys.last()) {
                (Some(x), Some(y)) => {
                    parts.push(format!("{} {y:.decimals$} at {x:.0}", s.name, decimals = y_decimals(self.y_max())))
                }
                _ => parts.push(format!("{}: no points yet", s.name)),
            }
        }
        for (_, s, points) in self.pinned_lines() {
            if let Some((x, y)) = points.last() {
                parts.push(format!("{} {y:.decimals$} at {x:.0}", s.name, decimals = y_decimals(self.y_max())));
            }
        }
        for b in &self.bands {
            let last = b.lo.iter().zip(&b.hi).rev().find(|(lo, hi)| lo.is_finite() && hi.is_finite());
            if let (Some(name), Some((lo, hi))) = (self.series.get(b.series).map(|s| &s.name), last) {
                let decimals = y_decimals(self.y_max());
                let what = if b.model { "model band" } else { "spread" };
                parts.push(format!("{name} {what} {lo:.decimals$} to {hi:.decimals$} at the last banded point"));
            }
        }
        if !self.overlays.is_empty() {
            parts.push("measured points shown as markers".to_string());
        }
        parts.join("; ")
    }
}

impl Sweep {
    /// The chart's lines as numbers (its summary and keyboard cursor): one per series, with
    /// the bands drawn around it (so the cursor reads a point's spread too), then the measured
    /// points as markers.
    pub fn lines(&self) -> Lines {
        let series = self.series.iter().enumerate().map(|(i, s)| {
            let mut line = Line::new(s.name.clone(), self.xs.iter().copied().zip(s.ys.iter().copied()));
            line.spreads = self.bands.iter().filter(|b| b.series == i).map(|b| self.spread(b)).collect();
            line
        });
        let measured = self.overlays.iter().map(|o| Line::new(o.name.clone(), o.points.iter().copied()).measured());
        Lines {
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            x_names: Vec::new(),
            lines: series.chain(measured).collect(),
        }
    }

    /// Band `b` as the cursor reads it: named as the legend calls it ("model band", or the
    /// seeds' min-max as "seeds' spread"), its edges at each x where both are numbers.
    fn spread(&self, b: &Band) -> Spread {
        let name = if b.model { "model band" } else { "seeds' spread" };
        Spread::new(name, self.xs.iter().zip(b.lo.iter().zip(&b.hi)).map(|(&x, (&lo, &hi))| (x, lo, hi)))
    }

    /// What the chart draws as a table: one row per x of the series (then the x of measured
    /// points that fall between them), a column per series, per band edge (its series' name
    /// with "min" / "max"), per measured overlay and for the reference line.
    pub fn table(&self) -> DataTable {
        let suffix = format!(" ({})", self.y_label);
        let unit = |name: &str| if name.contains(&suffix) { name.to_string() } else { format!("{name}{suffix}") };
        let mut columns = vec![self.x_label.clone()];
        columns.extend(self.series.iter().map(|s| unit(&s.name)));
        let band_name = |b: &Band| self.series.get(b.series).map_or("series", |s| s.name.as_str()).to_string();
        for b in &self.bands {
            let (lo, hi) = if b.model { ("band lo", "band hi") } else { ("min", "max") };
            columns.extend([unit(&format!("{} {lo}", band_name(b))), unit(&format!("{} {hi}", band_name(b)))]);
        }
        columns.extend(self.overlays.iter().map(|o| unit(&o.name)));
        let pinned: &[Series] = self.pinned.as_ref().map_or(&[], |p| &p.series);
        columns.extend(pinned.iter().map(|s| unit(&s.name)));
        columns.extend(self.hline.iter().map(|(name, _)| name.clone()));
        let mut t = DataTable::new(columns);
        let mut xs = self.xs.clone();
        let pinned_xs = self.pinned.as_ref().map_or(&[][..], |p| &p.xs);
        for x in self.overlays.iter().flat_map(|o| o.points.iter().map(|p| &p.0)).chain(pinned_xs) {
            if !xs.contains(x) {
                xs.push(*x);
            }
        }
        for x in xs {
            let at = self.xs.iter().position(|&v| v == x);
            let mut row = vec![num(Some(x))];
            row.extend(self.series.iter().map(|s| num(at.and_then(|i| s.ys.get(i).copied()))));
            for b in &self.bands {
                row.extend([num(at.and_then(|i| b.lo.get(i).copied())), num(at.and_then(|i| b.hi.get(i).copied()))]);
            }
            row.extend(self.overlays.iter().map(|o| num(o.points.iter().find(|p| p.0 == x).map(|p| p.1))));
            let at_a = pinned_xs.iter().position(|&v| v == x);
            row.extend(pinned.iter().map(|s| num(at_a.and_then(|i| s.ys.get(i).copied()))));
            row.extend(self.hline.iter().map(|h| num(Some(h.1))));
            t.push(row);
        }
        t
    }

    fn x_range(&self) -> (f64, f64) {
        let pinned_xs = self.pinned.iter().flat_map(|p| p.xs.iter().copied()).filter(|x| x.is_finite());
        if let Some((lo, hi)) = self.x_range {
            let (lo, hi) = pinned_xs.fold((lo, hi), |(lo, hi), x| (lo.min(x), hi.max(x)));
            return if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
        }
        let all = || self.xs.iter().copied().chain(pinned_xs.clone());
        let lo = all().fold(f64::INFINITY, f64::min);
        let hi = all().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi > lo {
            (lo, hi)
        } else {
            (0.0, 1.0)
        }
    }

    fn y_max(&self) -> f64 {
        let ys = self.series.iter().flat_map(|s| s.ys.iter().copied());
        let measured = self.overlays.iter().flat_map(|o| o.points.iter().map(|p| p.1));
        let bands = self.bands.iter().flat_map(|b| b.hi.iter().copied().filter(|v| v.is_finite()));
        let pinned = self.pinned.iter().flat_map(|p| p.series.iter().flat_map(|s| s.ys.iter().copied()));
        let top = ys
            .chain(measured)
            .chain(bands)
            .chain(pinned.filter(|v| v.is_finite()))
            .chain(self.hline.iter().map(|h| h.1))
            .fold(0.0, f64::max);
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

/// Decimals of the y tick labels for an axis from 0 to `y_max`: whole numbers from 5 up,
/// else enough that no two of the (about ten) ticks read alike ("0 0 0 1 1" on a 0-1 axis).
fn y_decimals(y_max: f64) -> usize {
    if y_max.is_nan() || y_max <= 0.0 || y_max >= 5.0 {
        0
    } else {
        (-(y_max / 5.0).log10()).ceil().clamp(0.0, 6.0) as usize
    }
}

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
    let y_area = sizes.y_label_area(&sizes.tick(y_max, decimals));
    let (w, h) = plot_area.dim_in_pixel();
    let margin_right = sizes.margin_right_for(&widest_x);
    let plot_w = f64::from(w) / theme.px - f64::from(sizes.margin + margin_right + y_area);
    let plot_h = sizes.plot_h(f64::from(h) / theme.px);
    // Integer x (flows, frags): at most one label per integer, so a short axis does not
    // repeat "1 1 1 2 2 2"; and no more than fit side by side.
    let per_integer = ((x_hi - x_lo).floor() as usize + 1).clamp(2, 10);
    let x_labels = sizes.x_ticks(plot_w, &widest_x, per_integer);
    let text = |size: u32| ("sans-serif", theme.si(size as i32)).into_font().color(&theme.text);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(theme.s(sizes.margin))
        .margin_right(theme.s(margin_right))
        .x_label_area_size(theme.s(sizes.x_label_area))
        .y_label_area_size(theme.s(y_area))
        .build_cartesian_2d(x_lo..x_hi, 0.0..y_max)?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .label_style(text(sizes.text))
        .axis_desc_style(text(sizes.desc_font(&data.y_label, plot_h).min(sizes.desc_font(&data.x_label, plot_w))))
        .x_labels(x_labels)
        .y_labels(sizes.y_ticks(plot_h))
        .x_label_formatter(&|x| sizes.tick(*x, 0))
        .y_label_formatter(&|y| sizes.tick(*y, decimals))
        .draw()?;
    if let Some((_, y)) = &data.hline {
        super::draw_hline(&mut chart, (x_lo, x_hi), *y, theme.series[2], theme)?;
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
    chart: &mut super::XyChart<'_, DB>,
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
            super::draw_band(chart, outline, color)?;
        }
    }
    Ok(())
}

/// The overlaid measured points (e.g. the seed's numbers), triangles and crosses in turn.
fn draw_overlays<DB: DrawingBackend>(
    chart: &mut super::XyChart<'_, DB>,
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
    chart: &mut super::XyChart<'_, DB>,
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
    chart: &mut super::XyChart<'_, DB>,
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
            overlays: vec![Overlay { name: "measured".into(), points: vec![(1.0, 2.5)] }],
            x_range: None,
            dots: true,
            bands: vec![Band { series: 0, lo: vec![0.5, 1.5, 3.0], hi: vec![1.5, 2.5, 5.0], model: false }],
            pinned: None,
        };
        let svg = render_svg(&data);
        assert!(svg.starts_with("<svg"), "{svg}");
        for word in ["alpha", "half", "test", "measured", "<polyline", "<circle", "<polygon", "min-max over the seeds"]
        {
            assert!(svg.contains(word), "missing {word} in {svg}");
        }
    }

    #[test]
    fn its_table_holds_every_drawn_number() {
        let data = Sweep {
            caption: "t".into(),
            x_label: "flows".into(),
            y_label: "Gbit/s".into(),
            xs: vec![1.0, 2.0, 4.0],
            series: vec![Series { name: "order-3".into(), ys: vec![10.0, 20.5] }],
            hline: None,
            marker_x: None,
            overlays: vec![Overlay { name: "seed".into(), points: vec![(2.0, 19.0), (3.0, 30.0)] }],
            x_range: None,
            dots: false,
            bands: vec![Band { series: 0, lo: vec![9.0, 20.0], hi: vec![11.0, 21.0], model: false }],
            pinned: None,
        };
        assert_eq!(
            data.table().to_csv(),
            "flows,order-3 (Gbit/s),order-3 min (Gbit/s),order-3 max (Gbit/s),seed (Gbit/s)\n\
             1,10,9,11,\n2,20.5,20,21,19\n4,,,,\n3,,,,30\n",
            "a point not computed yet is an empty cell"
        );
    }

    #[test]
    fn three_series_get_three_colours_and_a_small_axis_distinct_labels() {
        let data = Sweep {
            xs: vec![1.0, 2.0],
            series: ["a", "b", "c"].iter().map(|n| Series { name: n.to_string(), ys: vec![0.1, 0.3] }).collect(),
            ..Sweep::new("cpu", "CPUs", "% of all CPU time")
        };
        let svg = render_svg(&data);
        let t = crate::charts::Theme::LIGHT;
        let hex = |c: plotters::style::RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        let colours: Vec<String> = (0..3).map(|i| hex(t.line(i))).collect();
        assert!(colours[0] != colours[2] && colours[1] != colours[2], "{colours:?}");
        for c in &colours {
            assert!(svg.contains(&format!("stroke=\"{c}\"")), "no line in {c}");
        }
        // y from 0 to 0.324: ticks 0.00, 0.05, 0.10 …, not 0 0 0 0.
        for label in ["0.10", "0.20", "0.30"] {
            assert!(svg.lines().any(|l| l.trim() == label), "no y label {label}");
        }
        assert!(data.describe().contains("a 0.30 at 2"), "{}", data.describe());
        assert_eq!(
            (y_decimals(600.0), y_decimals(5.0), y_decimals(4.0), y_decimals(1.0), y_decimals(0.3)),
            (0, 0, 1, 1, 2)
        );
    }

    /// A chart with everything a sweep can draw, on a wide x axis (MTU 68 to 9000).
    fn busy() -> Sweep {
        let xs: Vec<f64> = (0..40).map(|i| 68.0 + f64::from(i) * 228.7).collect();
        let ys = |k: f64| xs.iter().map(|x| k * x / 3.0 + 100.0).collect::<Vec<_>>();
        let band = |k: f64, model| Band { series: 0, lo: ys(k * 0.9), hi: ys(k * 1.1), model };
        Sweep {
            xs: xs.clone(),
            series: vec![
                Series { name: "kmalloc object (bytes)".into(), ys: ys(2.0) },
                Series { name: "head requested (bytes)".into(), ys: ys(1.0) },
                Series { name: "order-3 frags (sim)".into(), ys: ys(0.5) },
            ],
            hline: Some(("half page (2048 B)".into(), 2048.0)),
            marker_x: Some(1500.0),
            overlays: vec![
                Overlay { name: "seed: order-3 frags".into(), points: vec![(1500.0, 900.0)] },
                Overlay { name: "seed: order-0 frags".into(), points: vec![(4000.0, 1900.0)] },
            ],
            bands: vec![band(2.0, false), band(1.0, true)],
            ..Sweep::new("Head buffer vs MTU, with a title long enough to wrap", "MTU (bytes)", "bytes")
        }
    }

    #[test]
    fn at_phone_and_desktop_width_no_text_overlaps_and_the_legend_is_off_the_plot() {
        let data = busy();
        for (css_w, px) in [(290.0, 2.0), (330.0, 1.0), (500.0, 2.0), (720.0, 1.0), (1000.0, 2.0)] {
            let size = ((css_w * px) as u32, (height_css(&data, css_w) * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_sweep(a, &data, t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
        assert!(height_css(&data, 290.0) > 260.0 + 100.0, "a phone's legend takes rows under the plot");
        // Long x labels (bytes pinned, up to 10000000): none runs past the right edge.
        let wide =
            Sweep { xs: data.xs.iter().map(|x| x * 1117.0).collect(), marker_x: None, overlays: vec![], ..busy() };
        for (css_w, px) in [(290.0, 2.0), (720.0, 1.0)] {
            let size = ((css_w * px) as u32, (height_css(&wide, css_w) * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_sweep(a, &wide, t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
    }

    #[test]
    fn its_lines_are_the_series_then_the_measured_points_and_read_as_one_sentence() {
        let data = busy();
        let lines = data.lines();
        let names: Vec<(&str, bool)> = lines.lines.iter().map(|l| (l.name.as_str(), l.measured)).collect();
        assert_eq!(
            names,
            [
                ("kmalloc object (bytes)", false),
                ("head requested (bytes)", false),
                ("order-3 frags (sim)", false),
                ("seed: order-3 frags", true),
                ("seed: order-0 frags", true)
            ]
        );
        assert_eq!(lines.lines[0].points.len(), 40);
        let summary = crate::charts::summary::summarize(&lines);
        assert!(summary.starts_with("kmalloc object (bytes) rises from 145.3 bytes at MTU 68 bytes to "), "{summary}");
        assert!(!summary.contains("seed:"), "measured points are not summarised: {summary}");
    }

    #[test]
    fn a_pinned_run_is_drawn_dashed_beside_the_current_one_with_its_numbers() {
        let line = |name: &str, ys: &[f64]| Series { name: name.into(), ys: ys.to_vec() };
        let mut b = Sweep {
            xs: vec![1.0, 2.0],
            series: vec![line("gbps", &[10.0, 20.0])],
            ..Sweep::new("t", "flows", "Gbit/s")
        };
        let a = Sweep { xs: vec![1.0, 2.0, 3.0], series: vec![line("gbps", &[12.0, 24.0, 36.0])], ..b.clone() };
        let a = Sweep { marker_x: Some(3.0), ..a };
        b.pin(&a);
        assert_eq!(b.series[0].name, "gbps (B)");
        assert_eq!(b.pinned.as_ref().unwrap().marker_x, Some(3.0));
        assert_eq!(b.x_range(), (1.0, 3.0), "A's points widen the axis");
        assert!(b.y_max() > 36.0);
        assert_eq!(b.table().to_csv(), "flows,gbps (B) (Gbit/s),gbps (A) (Gbit/s)\n1,10,12\n2,20,24\n3,,36\n");
        assert!(b.describe().contains("gbps (A) 36 at 3"), "{}", b.describe());
        let svg = render_svg(&b);
        assert!(svg.contains("gbps (A)") && svg.contains("gbps (B)"), "legend names both runs");
        assert!(svg.contains("A&apos;s setting (3)") || svg.contains("A's setting (3)"), "A's marker in the legend");
        assert!(svg.matches("<polyline").count() > 3, "A dashed: one short line per dash");
        let size = (720, (height_css(&b, 720.0)) as u32);
        let found = crate::charts::record::layout_problems(size, 1.0, |a, t| draw_sweep(a, &b, t));
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn empty_data_does_not_panic() {
        let mut data = Sweep::new("", "", "");
        assert!(render_svg(&data).starts_with("<svg"));
        data.x_range = Some((1.0, 1.0));
        assert!(render_svg(&data).starts_with("<svg"));
        assert!(data.describe().contains(": no points yet") || data.series.is_empty());
    }
}
