//! A chart whose series are not the result table's rows (see [`Plot`]).

use serde::{Deserialize, Serialize};

/// A chart of (x, y) series that do not come from the result table's rows: a quantity over
/// simulated time, say, with reference lines, a band and marked moments. Drawn by the web
/// app's generic plot view; its data is its own text alternative ([`Plot::describe`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    /// Named by [`crate::ViewSpec::Plot`].
    pub id: String,
    pub title: String,
    /// Axis labels, with their units.
    pub x_label: String,
    pub y_label: String,
    pub lines: Vec<PlotLine>,
    /// Filled ranges (drawn under the lines), e.g. an error bound around zero.
    pub bands: Vec<PlotBand>,
    /// Labelled horizontal reference lines (a limit), as (label, y).
    pub hlines: Vec<(String, f64)>,
    /// Labelled vertical lines at moments of interest, as (label, x).
    pub marks: Vec<(String, f64)>,
    /// Start the y axis at 0 (otherwise it fits the data, for a level far from 0).
    pub y_from_zero: bool,
}

/// One line of a [`Plot`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlotLine {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (a value derived from another, e.g. what a reader sees).
    pub dashed: bool,
}

/// A filled range of a [`Plot`]: between `lo` and `hi` at each x.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlotBand {
    pub name: String,
    /// (x, lo, hi), x ascending.
    pub points: Vec<(f64, f64, f64)>,
}

impl Plot {
    /// A text alternative: each line's last point, the reference lines and the marks.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("{}: {} against {}", self.title, self.y_label, self.x_label)];
        for l in &self.lines {
            if let Some((x, y)) = l.points.last() {
                parts.push(format!("{} {y:.0} at {x:.2}", l.name));
            }
        }
        for (label, y) in &self.hlines {
            parts.push(format!("{label} at {y:.0}"));
        }
        for (label, x) in &self.marks {
            parts.push(format!("{label} at {x:.2}"));
        }
        parts.join("; ")
    }
}
