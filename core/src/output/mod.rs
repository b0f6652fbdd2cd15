//! What an experiment returns: a table of named, unit-carrying columns plus text views, and
//! for `reproduce`, the seed's measured numbers beside the simulated ones.
//!
//! One shape for every experiment so that the CLI (table / CSV / JSON), the lessons checker
//! (claims name a metric) and the web app (tables, badges) need no per-experiment code.
//!
//! A value that would be nonsense — a rate, share or ratio over fewer events than its column
//! needs ([`Meaning`]) — is not printed as 0 or ±100 %: its cell is
//! [`Cell::Missing`], rendered `–` in the table and the CSV and `null` in the JSON, and
//! [`RunOutput::notes`] carries one line naming the row, the columns and what they lacked
//! ([`RunOutput::note_missing`]).

mod meaning;
mod plot;
mod repro;

pub use meaning::{mark_row, Basis, Meaning};
pub use plot::{Plot, PlotBand, PlotLine};
pub use repro::{Citation, ReproCell, ReproRow, Reproduction};

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
    /// No meaningful value: the run has fewer events than the column needs (see
    /// [`Meaning`]); a note says which. `–` in tables and CSV, `null` in JSON.
    Missing,
}

/// How tables and the CSV show a [`Cell::Missing`] (an en dash).
pub const MISSING: &str = "–";

impl Cell {
    /// The cell as a number (bools are 0/1), for claims and charts.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(v) => Some(*v as f64),
            Cell::Float(v) => Some(*v),
            Cell::Bool(v) => Some(if *v { 1.0 } else { 0.0 }),
            Cell::Text(_) | Cell::Missing => None,
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
            Cell::Missing => MISSING.to_string(),
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
    /// One-line notes on the run, each naming the row or column it concerns: a measured
    /// quantity that rests on too few events, a capped knob (a contract: the CLI's
    /// JSON always carries `"notes"`, `[]` when none; the table and the page show them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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
            notes: Vec::new(),
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
        for note in runs.iter().flat_map(|r| &r.notes) {
            if !out.notes.contains(note) {
                out.notes.push(note.clone());
            }
        }
        for (ri, row) in out.rows.iter_mut().enumerate() {
            for (ci, cell) in row.iter_mut().enumerate() {
                let cells = || runs.iter().map(|r| &r.rows[ri][ci]);
                // A mean over seeds of which one has no meaningful value has none either.
                let mean = match &*cell {
                    _ if cells().any(|c| c == &Cell::Missing) => Some(Cell::Missing),
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

    /// One note per row with [`Cell::Missing`] cells, naming the row (by its first cell when
    /// that is a key, else its number), the columns and what each lacked, from `meanings`
    /// (the experiment's [`crate::Experiment::meanings`]). Every `finish` calls it; a note
    /// already there is not repeated.
    pub fn note_missing(&mut self, meanings: &[Meaning]) {
        self.note_missing_counted(meanings, &[]);
    }

    /// [`RunOutput::note_missing`] where the counts [`mark_row`] judged row `r` by are known
    /// (`counts[r]`, `what` → how many): a note names only the conditions the row fell short
    /// of, with what it counted; rows without counts name every condition of their columns.
    pub fn note_missing_counted(&mut self, meanings: &[Meaning], counts: &[&[(&str, u64)]]) {
        let mut notes = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            let row_counts = counts.get(r).copied().unwrap_or_default();
            // Columns grouped by what they need, in column order.
            let mut needs: Vec<(String, Vec<&str>)> = Vec::new();
            for (c, cell) in row.iter().enumerate() {
                if cell != &Cell::Missing {
                    continue;
                }
                let name = self.columns[c].name.as_str();
                let need = meaning::shortfall_text(meanings, name, row_counts);
                match needs.iter_mut().find(|(n, _)| *n == need) {
                    Some((_, cols)) => cols.push(name),
                    None => needs.push((need, vec![name])),
                }
            }
            let label = match (self.columns.first(), row.first()) {
                (Some(col), Some(cell @ (Cell::Int(_) | Cell::Text(_))))
                    if self.rows.len() > 1 || col.name == "fix" =>
                {
                    format!("row {} ({} {})", r + 1, col.name, cell.render())
                }
                _ => format!("row {}", r + 1),
            };
            for (need, cols) in needs {
                notes.push(format!("{label}: {} not shown ({MISSING}): the run has {need}", cols.join(", ")));
            }
        }
        for note in notes {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
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
    /// name: cell}], "notes": [one-line strings, `[]` when none]}` — so a run can be replayed
    /// (`seed`) and told apart from another model's (`model_version`, the version of
    /// skblab-core). Text views are not part of it. A cell without a value is `null`: a
    /// [`Cell::Missing`], and an empty text (a column of the table's other kind of row, such as
    /// skb-cache's memory columns in its simulated row).
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            experiment: &'a str,
            seed: u64,
            model_version: &'static str,
            columns: &'a [Column],
            rows: Vec<serde_json::Map<String, serde_json::Value>>,
            notes: &'a [String],
        }
        let rows = self
            .rows
            .iter()
            .map(|row| {
                self.columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| {
                        let value = match v {
                            Cell::Text(t) if t.is_empty() => serde_json::Value::Null,
                            v => serde_json::to_value(v).expect("cell serializes"),
                        };
                        (c.name.to_string(), value)
                    })
                    .collect()
            })
            .collect();
        let json = Json {
            experiment: &self.experiment,
            seed: self.seed,
            model_version: MODEL_VERSION,
            columns: &self.columns,
            rows,
            notes: &self.notes,
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
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
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

/// `v` with up to three decimals, trailing zeros dropped but one kept (1.5, 0.36, 2.0).
pub(crate) fn small(v: f64) -> String {
    let s = format!("{v:.3}");
    let t = s.trim_end_matches('0');
    if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_string()
    }
}

/// `x` rounded to `digits` decimals, as a result table holds it.
/// `n` and a noun whose plural takes an `s`, as English says it: "1 flow", "30 flows".
pub fn count(n: impl std::fmt::Display, noun: &str) -> String {
    let text = n.to_string();
    if text == "1" {
        format!("1 {noun}")
    } else {
        format!("{text} {noun}s")
    }
}

pub fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// A number as the CLI prints it (integers whole, below 10 up to three decimals, else one).
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() < 10.0 {
        small(v)
    } else {
        format!("{v:.1}")
    }
}

/// A seed's value as the source wrote it: its shortest decimal form when that has at most
/// three decimals (16.34 stays 16.34, where [`fmt_num`] gives 16.3), else [`fmt_num`] (a value
/// derived from the seed's numbers, such as a ratio, keeps the model's rounding).
pub fn fmt_seed(v: f64) -> String {
    let text = format!("{v}");
    match text.split_once('.') {
        Some((_, decimals)) if decimals.len() > 3 => fmt_num(v),
        _ if v.abs() >= 1e15 || !v.is_finite() => fmt_num(v),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_says_one_in_the_singular() {
        assert_eq!(
            (count(1, "flow"), count(30u32, "flow"), count(0, "core")),
            ("1 flow".to_string(), "30 flows".to_string(), "0 cores".to_string())
        );
    }

    #[test]
    fn seed_values_keep_the_precision_the_source_wrote() {
        assert_eq!(fmt_seed(16.34), "16.34");
        assert_eq!(fmt_seed(0.36), "0.36");
        assert_eq!(fmt_seed(110051.0), "110051");
        assert_eq!(fmt_seed(12.5), "12.5");
        assert_eq!(fmt_seed(100.0 / 3.0), fmt_num(100.0 / 3.0));
    }

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
        let keys: Vec<usize> = ["experiment", "seed", "model_version", "columns", "rows", "notes"]
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
