//! A one-point stub experiment for the checkers' self-tests (a knob relation that must be
//! caught, an uncertainty band over a known range): its parameters, columns and row are
//! given as data, so that a test states only what its check needs.

use skblab_core::experiment::{Point, ViewSpec};
use skblab_core::output::{Citation, ReproCell, ReproRow};
use skblab_core::sim::catalogue::Quantity;
use skblab_core::{Cell, Column, Experiment, ParamSpec, Params, Reproduction, Row, RunOutput};

/// A quantity the stub's row rests on, and the row at a value of it.
pub type Uncertain = (Quantity, fn(f64) -> Vec<f64>);

/// An experiment with id `stub` and one point.
pub struct Stub {
    pub specs: fn() -> Vec<ParamSpec>,
    /// Each column's name and unit.
    pub columns: &'static [(&'static str, &'static str)],
    /// The row of a run at these parameters.
    pub row: fn(&Params) -> Vec<f64>,
    /// One uncertain quantity (`Experiment::uncertain`, named `k`) and the row at its value.
    pub uncertain: Option<Uncertain>,
    /// The seed table's measured value of each column (row `0`, key `x`); empty: no seed table.
    pub measured: &'static [f64],
}

impl Experiment for Stub {
    fn id(&self) -> &'static str {
        "stub"
    }
    fn title(&self) -> &'static str {
        "stub"
    }
    fn summary(&self) -> &'static str {
        ""
    }
    fn specs(&self) -> Vec<ParamSpec> {
        (self.specs)()
    }
    fn columns(&self, _: &Params) -> Vec<Column> {
        self.columns.iter().map(|(name, unit)| Column::new(name, unit)).collect()
    }
    fn run_point(&self, params: &Params, _: &Point, _: u64) -> Row {
        (self.row)(params).into_iter().map(Cell::Float).collect()
    }
    fn views(&self) -> Vec<ViewSpec> {
        Vec::new()
    }
    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        self.uncertain.iter().map(|(k, _)| ("k", *k)).collect()
    }
    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        let (_, row) = self.uncertain?;
        let mut out = RunOutput::new("stub", seed, self.columns(params));
        out.push_row(row(*values.first()?).into_iter().map(Cell::Float).collect());
        Some(out)
    }
    fn compare(&self, _: &Params, out: &RunOutput) -> Option<Reproduction> {
        let cells = self
            .columns
            .iter()
            .zip(self.measured)
            .enumerate()
            .map(|(i, (&(metric, _), &measured))| {
                Some(ReproCell { metric, measured, simulated: out.rows[0][i].as_f64()?, spread: None })
            })
            .collect::<Option<Vec<_>>>()?;
        if cells.is_empty() {
            return None;
        }
        let citation = Citation { list: "", date: "", author: "", subject: "", message_id: "" };
        let rows = vec![ReproRow { label: "0".into(), cells }];
        Some(Reproduction { experiment: "stub", citation, key_name: "x", rows, notes: Vec::new() })
    }
}
