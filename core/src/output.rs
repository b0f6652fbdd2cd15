//! What an experiment returns: a table of named, unit-carrying columns plus text views, and
//! for `reproduce`, the seed's measured numbers beside the simulated ones.
//!
//! One shape for every experiment so that the CLI (table / CSV / JSON), the lessons checker
//! (claims name a metric) and the web app (tables, badges) need no per-experiment code.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The version of the model that computed an output (skblab-core's crate version), carried
/// by the CLI's JSON beside the seed.
pub const MODEL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One cell of a result table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cell {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Cell {
    /// The cell as a number (bools are 0/1), for claims and charts.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(v) => Some(*v as f64),
            Cell::Float(v) => Some(*v),
            Cell::Bool(v) => Some(if *v { 1.0 } else { 0.0 }),
            Cell::Text(_) => None,
        }
    }

    /// The cell as the CSV and the text table print it.
    pub fn render(&self) -> String {
        match self {
            Cell::Int(v) => v.to_string(),
            // Small figures (a CPU share of 0.36 %) keep up to three decimals; others one.
            Cell::Float(v) if v.abs() < 10.0 => small(*v),
            Cell::Float(v) => format!("{v:.1}"),
            Cell::Bool(v) => v.to_string(),
            Cell::Text(v) => v.clone(),
        }
    }
}

/// A column: its name (snake_case, unit last) and unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub unit: String,
    /// The column may go below zero (a change, a margin). Otherwise its values are counts,
    /// rates or sizes and never negative: the registry fuzz test holds every experiment to
    /// that. Serialised only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signed: bool,
}

impl Column {
    pub fn new(name: &str, unit: &str) -> Column {
        Column { name: name.to_string(), unit: unit.to_string(), signed: false }
    }

    /// The same column, declared able to go negative; `why` says when (it documents the
    /// declaration where it is made, for the reader of the experiment).
    pub fn signed(mut self, why: &'static str) -> Column {
        let _ = why;
        self.signed = true;
        self
    }
}

/// One row of a result table: one cell per column. An experiment computes one row per point
/// of its sweep ([`crate::Experiment::run_point`]).
pub type Row = Vec<Cell>;

/// A named block of text rendered the way the kernel would (`/proc/buddyinfo`, an oops...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextView {
    /// Stable id, named by [`crate::ViewSpec::Text`] (empty: shown only with the results).
    #[serde(default)]
    pub id: String,
    pub title: String,
    pub text: String,
}

impl TextView {
    pub fn new(id: &str, title: impl Into<String>, text: impl Into<String>) -> TextView {
        TextView { id: id.to_string(), title: title.into(), text: text.into() }
    }
}

/// The result of one `run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutput {
    pub experiment: String,
    pub seed: u64,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
    pub views: Vec<TextView>,
    /// Simulated profiles as folded stacks, for [`crate::ViewSpec::Flame`] (empty for
    /// experiments without a profile; not part of the CLI's JSON rows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flames: Vec<crate::sim::profile::FlameGraph>,
    /// Series over a simulated quantity other than the sweep's x (time, mostly), for
    /// [`crate::ViewSpec::Plot`] (empty for experiments without one; not in the CLI's JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plots: Vec<Plot>,
}

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

impl RunOutput {
    pub fn new(experiment: &str, seed: u64, columns: Vec<Column>) -> Self {
        RunOutput {
            experiment: experiment.to_string(),
            seed,
            columns,
            rows: Vec::new(),
            views: Vec::new(),
            flames: Vec::new(),
            plots: Vec::new(),
        }
    }

    /// The cell-by-cell mean of runs of one experiment with the same points (different seeds):
    /// numbers are averaged (an integer column that agrees on every run stays an integer, e.g.
    /// a sweep's key), text and bools and the text views come from the first run. `None` if
    /// `runs` is empty or their shapes differ.
    pub fn mean_of(runs: &[RunOutput]) -> Option<RunOutput> {
        let first = runs.first()?;
        let same_shape = runs.iter().all(|r| {
            r.columns == first.columns
                && r.rows.len() == first.rows.len()
                && r.rows.iter().zip(&first.rows).all(|(a, b)| a.len() == b.len())
        });
        if !same_shape {
            return None;
        }
        let mut out = first.clone();
        for (ri, row) in out.rows.iter_mut().enumerate() {
            for (ci, cell) in row.iter_mut().enumerate() {
                let cells = || runs.iter().map(|r| &r.rows[ri][ci]);
                let mean = match &*cell {
                    Cell::Int(v) if cells().all(|c| c == &Cell::Int(*v)) => None,
                    Cell::Int(_) | Cell::Float(_) => {
                        let vals: Vec<f64> = cells().filter_map(Cell::as_f64).collect();
                        Some(Cell::Float(vals.iter().sum::<f64>() / vals.len() as f64))
                    }
                    _ => None,
                };
                if let Some(m) = mean {
                    *cell = m;
                }
            }
        }
        Some(out)
    }

    /// The text view with id `id`.
    pub fn view(&self, id: &str) -> Option<&TextView> {
        self.views.iter().find(|v| v.id == id)
    }

    /// The flame graph with id `id`.
    pub fn flame(&self, id: &str) -> Option<&crate::sim::profile::FlameGraph> {
        self.flames.iter().find(|f| f.id == id)
    }

    /// The plot with id `id`.
    pub fn plot(&self, id: &str) -> Option<&Plot> {
        self.plots.iter().find(|p| p.id == id)
    }

    /// The numbers of column `name`, row by row (`None` for a text cell or a missing column).
    pub fn column_f64(&self, name: &str) -> Vec<Option<f64>> {
        match self.column_index(name) {
            Some(i) => self.rows.iter().map(|r| r[i].as_f64()).collect(),
            None => vec![None; self.rows.len()],
        }
    }

    /// Appends a row; panics (a bug) if it does not match the columns.
    pub fn push_row(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "bug: row width differs from the columns");
        self.rows.push(row);
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// `name` in the first row whose `key_column` equals `key` (or the first row when
    /// `key_column` is `None`).
    pub fn metric(&self, name: &str, key: Option<(&str, f64)>) -> Option<f64> {
        let col = self.column_index(name)?;
        let row = match key {
            None => self.rows.first()?,
            Some((key_name, key_value)) => {
                let kc = self.column_index(key_name)?;
                self.rows.iter().find(|r| r[kc].as_f64() == Some(key_value))?
            }
        };
        row[col].as_f64()
    }

    pub fn to_csv(&self) -> String {
        let mut s = self.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(",");
        s.push('\n');
        for row in &self.rows {
            s.push_str(&row.iter().map(Cell::render).collect::<Vec<_>>().join(","));
            s.push('\n');
        }
        s
    }

    /// The CLI's `--format json`: always one object of the same shape, whatever the row count —
    /// `{"experiment", "seed", "model_version", "columns": [{"name", "unit"}], "rows": [{column
    /// name: cell}]}` — so a run can be replayed (`seed`) and told apart from another model's
    /// (`model_version`, the version of skblab-core). Text views are not part of it.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            experiment: &'a str,
            seed: u64,
            model_version: &'static str,
            columns: &'a [Column],
            rows: Vec<serde_json::Map<String, serde_json::Value>>,
        }
        let rows = self
            .rows
            .iter()
            .map(|row| {
                self.columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| (c.name.to_string(), serde_json::to_value(v).expect("cell serializes")))
                    .collect()
            })
            .collect();
        let json = Json {
            experiment: &self.experiment,
            seed: self.seed,
            model_version: MODEL_VERSION,
            columns: &self.columns,
            rows,
        };
        serde_json::to_string_pretty(&json).expect("json serializes")
    }

    /// An aligned text table, then every text view.
    pub fn to_table(&self) -> String {
        let header: Vec<String> = self
            .columns
            .iter()
            .map(|c| if c.unit.is_empty() { c.name.to_string() } else { format!("{} [{}]", c.name, c.unit) })
            .collect();
        let body: Vec<Vec<String>> = self.rows.iter().map(|r| r.iter().map(Cell::render).collect()).collect();
        let mut out = format!("# {} (seed {})\n", self.experiment, self.seed);
        if self.rows.len() == 1 {
            let width = header.iter().map(String::len).max().unwrap_or(0);
            for (h, v) in header.iter().zip(&body[0]) {
                let _ = writeln!(out, "{h:<width$}  {v}");
            }
        } else {
            out.push_str(&render_grid(&header, &body));
        }
        for view in &self.views {
            let _ = write!(out, "\n## {}\n{}", view.title, view.text);
            if !view.text.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }
}

/// Right-aligned columns under a header, separated by two spaces.
pub fn render_grid(header: &[String], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for row in body {
        out.push_str(&line(row));
    }
    out
}

/// Where a measured number comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    pub list: &'static str,
    pub date: &'static str,
    pub author: &'static str,
    pub subject: &'static str,
    /// Message-ID of the post, or a commit id.
    pub message_id: &'static str,
}

impl Citation {
    pub fn one_line(&self) -> String {
        format!("{}, {}, {}: \"{}\" <{}>", self.list, self.date, self.author, self.subject, self.message_id)
    }
}

/// One compared number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReproCell {
    pub metric: &'static str,
    pub measured: f64,
    /// The simulated value (the mean over seeds when `spread` is set).
    pub simulated: f64,
    /// The lowest and highest simulated value over the seeds of a multi-seed reproduction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<[f64; 2]>,
}

impl ReproCell {
    /// Signed relative error of the simulation, in percent of the measured value.
    pub fn error_pct(&self) -> f64 {
        if self.measured == 0.0 {
            if self.simulated == 0.0 {
                0.0
            } else {
                100.0
            }
        } else {
            (self.simulated - self.measured) / self.measured * 100.0
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReproRow {
    pub label: String,
    pub cells: Vec<ReproCell>,
}

/// The seed's table beside the simulation's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reproduction {
    pub experiment: &'static str,
    pub citation: Citation,
    pub key_name: &'static str,
    pub rows: Vec<ReproRow>,
    /// Further findings in one line each (crossover point, plateau...).
    pub notes: Vec<String>,
}

impl Reproduction {
    /// The seed's rows beside the simulated rows with the same `key` value, for each of
    /// `metrics` (rows the seed lacks are left out; the simulated value is taken as the table
    /// has it). The generic half of [`crate::Experiment::compare`].
    pub fn keyed(
        experiment: &'static str,
        citation: Citation,
        key: &'static str,
        metrics: &[&'static str],
        seed: &RunOutput,
        sim: &RunOutput,
    ) -> Reproduction {
        let number = |out: &RunOutput, row: &[Cell], name: &str| out.column_index(name).and_then(|i| row[i].as_f64());
        let rows = sim
            .rows
            .iter()
            .filter_map(|row| {
                let k = number(sim, row, key)?;
                let seed_row = seed.rows.iter().find(|r| number(seed, r, key) == Some(k))?;
                let cells = metrics
                    .iter()
                    .filter_map(|&metric| {
                        Some(ReproCell {
                            metric,
                            measured: number(seed, seed_row, metric)?,
                            simulated: number(sim, row, metric)?,
                            spread: None,
                        })
                    })
                    .collect();
                Some(ReproRow { label: fmt_num(k), cells })
            })
            .collect();
        Reproduction { experiment, citation, key_name: key, rows, notes: Vec::new() }
    }

    /// Sets each cell's `spread` to the lowest and highest simulated value of the same cell
    /// (row label, metric) in `per_seed`, one reproduction per seed, and says so in a note.
    pub fn with_spread(mut self, per_seed: &[Reproduction], seeds: &[u64]) -> Reproduction {
        if per_seed.len() < 2 {
            return self;
        }
        for row in &mut self.rows {
            for cell in &mut row.cells {
                let vals = per_seed.iter().filter_map(|r| {
                    let other = r.rows.iter().find(|o| o.label == row.label)?;
                    other.cells.iter().find(|c| c.metric == cell.metric).map(|c| c.simulated)
                });
                let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
                if lo.is_finite() && hi.is_finite() {
                    cell.spread = Some([lo, hi]);
                }
            }
        }
        let list = match seeds {
            [first, .., last] if seeds.windows(2).all(|w| w[1] == w[0].wrapping_add(1)) => format!("{first}..={last}"),
            _ => seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
        };
        self.notes
            .insert(0, format!("sim: mean over seeds {list} ({} runs); [min-max] over the seeds", per_seed.len()));
        self
    }

    /// Mean absolute percentage error of one metric over all rows that have it.
    pub fn mape_pct(&self, metric: &str) -> Option<f64> {
        let errs: Vec<f64> = self
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .filter(|c| c.metric == metric)
            .map(|c| c.error_pct().abs())
            .collect();
        (!errs.is_empty()).then(|| errs.iter().sum::<f64>() / errs.len() as f64)
    }

    pub fn max_abs_error_pct(&self) -> f64 {
        self.rows.iter().flat_map(|r| &r.cells).map(|c| c.error_pct().abs()).fold(0.0, f64::max)
    }

    /// Metrics in first-seen order.
    pub fn metrics(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for c in self.rows.iter().flat_map(|r| &r.cells) {
            if !out.contains(&c.metric) {
                out.push(c.metric);
            }
        }
        out
    }

    pub fn to_table(&self) -> String {
        let metrics = self.metrics();
        let mut header = vec![self.key_name.to_string()];
        for m in &metrics {
            header.extend([format!("{m} seed"), format!("{m} sim"), "err %".to_string()]);
        }
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let mut line = vec![r.label.clone()];
                for m in &metrics {
                    match r.cells.iter().find(|c| c.metric == *m) {
                        Some(c) => {
                            let sim = match c.spread {
                                Some([lo, hi]) => format!("{} [{}-{}]", fmt_num(c.simulated), fmt_num(lo), fmt_num(hi)),
                                None => fmt_num(c.simulated),
                            };
                            line.extend([fmt_num(c.measured), sim, format!("{:+.1}", c.error_pct())])
                        }
                        None => line.extend(["-".to_string(), "-".to_string(), "-".to_string()]),
                    }
                }
                line
            })
            .collect();
        let mut out = format!("# {} vs {}\n", self.experiment, self.citation.one_line());
        out.push_str(&render_grid(&header, &body));
        for m in &metrics {
            if let Some(mape) = self.mape_pct(m) {
                let _ = writeln!(out, "MAPE {m}: {mape:.2} %");
            }
        }
        let _ = writeln!(out, "max |error|: {:.2} %", self.max_abs_error_pct());
        for n in &self.notes {
            let _ = writeln!(out, "{n}");
        }
        out
    }

    pub fn to_csv(&self) -> String {
        let mut s = format!("{},metric,measured,simulated,error_pct,simulated_min,simulated_max\n", self.key_name);
        for r in &self.rows {
            for c in &r.cells {
                let [lo, hi] = c.spread.unwrap_or([c.simulated, c.simulated]);
                let _ = writeln!(
                    s,
                    "{},{},{},{},{:.3},{},{}",
                    r.label,
                    c.metric,
                    c.measured,
                    c.simulated,
                    c.error_pct(),
                    lo,
                    hi
                );
            }
        }
        s
    }

    /// The comparison as JSON, with the `seed` of the (first) simulated run, all `seeds` the
    /// simulated values average over, and the `model_version`.
    pub fn to_json(&self, seeds: &[u64]) -> String {
        let mut v = serde_json::to_value(self).expect("reproduction serializes");
        v["seed"] = seeds.first().copied().unwrap_or(crate::DEFAULT_SEED).into();
        v["seeds"] = seeds.into();
        v["model_version"] = MODEL_VERSION.into();
        let summary: serde_json::Map<String, serde_json::Value> =
            self.metrics().iter().map(|m| (format!("mape_pct_{m}"), self.mape_pct(m).unwrap_or(0.0).into())).collect();
        v["summary"] = serde_json::Value::Object(summary);
        v["summary"]["max_abs_error_pct"] = self.max_abs_error_pct().into();
        serde_json::to_string_pretty(&v).expect("json serializes")
    }
}

/// `v` with up to three decimals, trailing zeros dropped but one kept (1.5, 0.36, 2.0).
fn small(v: f64) -> String {
    let s = format!("{v:.3}");
    let t = s.trim_end_matches('0');
    if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_string()
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() < 10.0 {
        small(v)
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(n_rows: i64) -> RunOutput {
        let mut out = RunOutput::new("x", 7, vec![Column::new("threads", "flows"), Column::new("mbps", "Mbit/s")]);
        for i in 0..n_rows {
            out.push_row(vec![Cell::Int(i), Cell::Float(1.5)]);
        }
        out
    }

    #[test]
    fn mean_of_runs_averages_numbers_and_keeps_agreeing_keys() {
        let run = |seed, v: f64| {
            let mut out =
                RunOutput::new("x", seed, vec![Column::new("threads", "flows"), Column::new("mbps", "Mbit/s")]);
            out.push_row(vec![Cell::Int(1), Cell::Float(v)]);
            out.push_row(vec![Cell::Int(2), Cell::Int(seed as i64)]);
            out
        };
        let mean = RunOutput::mean_of(&[run(1, 10.0), run(2, 20.0), run(3, 60.0)]).unwrap();
        assert_eq!(mean.rows[0], vec![Cell::Int(1), Cell::Float(30.0)]);
        assert_eq!(mean.rows[1], vec![Cell::Int(2), Cell::Float(2.0)], "disagreeing integers are averaged");
        assert_eq!(RunOutput::mean_of(&[]), None);
        assert_eq!(RunOutput::mean_of(&[run(1, 1.0), output(3)]), None, "shapes differ");
    }

    #[test]
    fn spread_is_min_and_max_over_the_seeds() {
        let rep = |v: f64| Reproduction {
            experiment: "x",
            citation: crate::sources::SEED_000,
            key_name: "k",
            rows: vec![ReproRow {
                label: "a".into(),
                cells: vec![ReproCell { metric: "m", measured: 10.0, simulated: v, spread: None }],
            }],
            notes: vec![],
        };
        let r = rep(11.0).with_spread(&[rep(9.0), rep(13.0), rep(11.0)], &[1, 2, 3]);
        assert_eq!(r.rows[0].cells[0].spread, Some([9.0, 13.0]));
        assert!(r.notes[0].contains("seeds 1..=3"), "{:?}", r.notes);
        assert!(r.to_table().contains("11 [9-13]"), "{}", r.to_table());
        assert!(r.to_csv().lines().nth(1).unwrap().ends_with(",9,13"), "{}", r.to_csv());
        let json: serde_json::Value = serde_json::from_str(&r.to_json(&[1, 2, 3])).unwrap();
        assert_eq!(json["seeds"], serde_json::json!([1, 2, 3]));
        assert_eq!(json["rows"][0]["cells"][0]["spread"], serde_json::json!([9.0, 13.0]));
        assert_eq!(rep(11.0).with_spread(&[rep(9.0)], &[1]).rows[0].cells[0].spread, None, "one seed: no spread");
    }

    #[test]
    fn json_has_one_shape_whatever_the_row_count() {
        for n in [0, 1, 3] {
            let v: serde_json::Value = serde_json::from_str(&output(n).to_json()).unwrap();
            assert_eq!(v["experiment"], "x");
            assert_eq!(v["seed"], 7);
            assert_eq!(v["model_version"], MODEL_VERSION);
            assert_eq!(v["columns"][1], serde_json::json!({"name": "mbps", "unit": "Mbit/s"}));
            let rows = v["rows"].as_array().expect("rows is always an array");
            assert_eq!(rows.len(), n as usize);
            if n > 0 {
                assert_eq!(rows[n as usize - 1], serde_json::json!({"threads": n - 1, "mbps": 1.5}));
            }
        }
        let text = output(1).to_json();
        let keys: Vec<usize> = ["experiment", "seed", "model_version", "columns", "rows"]
            .iter()
            .map(|k| text.find(&format!("\"{k}\"")).unwrap())
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "keys in documented order: {text}");
    }

    #[test]
    fn csv_is_the_header_then_one_line_per_row() {
        assert_eq!(output(2).to_csv(), "threads,mbps\n0,1.5\n1,1.5\n");
    }
}
