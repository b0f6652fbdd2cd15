//! The app's one line chart: series over a swept parameter (the columns of a run, filled as
//! rows arrive), optional overlays of measured points (a seed post's table), an optional
//! horizontal reference line (the half page) and a marker at the learner's current setting.
//!
//! Here the chart's data and what it says in words, lines and a table; `draw.rs` draws it,
//! generic over the plotters backend: the canvas in the browser, SVG in the tests.

use super::summary::{Line, Lines, Spread};
use super::table::{num, DataTable};

mod draw;
pub use draw::{draw_sweep, height_css};

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

#[cfg(test)]
mod tests;
