//! Uncertainty bands: what the model says when the constants it rests on move inside their
//! sourced ranges.
//!
//! The quantities of [`Experiment::uncertain`] are sampled by the same Latin hypercube a
//! multi-start fit starts from ([`start_points`]: each range cut into `n` slices, one sample
//! per slice, geometric cuts for positive ranges); each sample is one run of the
//! reproduction's parameters through [`Experiment::run_perturbed`], compared with the seed
//! table. A cell's band is the lowest and highest simulated value over the samples: a wide
//! band means the model cannot tell from what is known. Work: `n` runs (one seed).

use crate::calibrate::{start_points, Constant, Progress};
use crate::experiment::Experiment;
use crate::output::Reproduction;
use crate::params::Params;
use serde::Serialize;

/// The most samples of one band (bounds the work: one run each).
pub const MAX_BANDS: u32 = 64;

/// One cell's band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BandCell {
    pub label: String,
    pub metric: &'static str,
    pub band: [f64; 2],
}

/// The bands of every compared cell of a reproduction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bands {
    /// Samples asked for and samples that ran.
    pub samples: u32,
    pub ran: u32,
    pub seed: u64,
    /// The sampled quantities with their ranges (name, min, max, unit).
    pub quantities: Vec<(&'static str, f64, f64, &'static str)>,
    pub cells: Vec<BandCell>,
}

impl Bands {
    pub fn get(&self, label: &str, metric: &str) -> Option<[f64; 2]> {
        self.cells.iter().find(|c| c.label == label && c.metric == metric).map(|c| c.band)
    }

    /// What the band column means, one line.
    pub fn note(&self) -> String {
        let names: Vec<&str> = self.quantities.iter().map(|q| q.0).collect();
        format!(
            "band: [lo-hi] over {} Latin-hypercube samples (seed {}) of {} inside their sourced ranges",
            self.ran,
            self.seed,
            names.join(", ")
        )
    }
}

/// The bands of `exp`'s reproduction under `params` from `n` samples (at most [`MAX_BANDS`])
/// on `seed`, telling `progress` one line per sample; `None` if the experiment declares no
/// uncertain quantity.
pub fn bands_with(exp: &dyn Experiment, params: &Params, seed: u64, n: u32, progress: Progress<'_>) -> Option<Bands> {
    let uncertain = exp.uncertain();
    if uncertain.is_empty() {
        return None;
    }
    let n = n.min(MAX_BANDS);
    let constants: Vec<Constant> = uncertain
        .iter()
        .map(|(name, q)| Constant { name, unit: q.unit, min: q.min, max: q.max, source: q.source })
        .collect();
    let mut runs: Vec<Reproduction> = Vec::new();
    for (i, values) in start_points(&constants, n).iter().enumerate() {
        progress(&format!("band sample {}/{n}", i + 1));
        if let Some(r) = exp.run_perturbed(params, seed, values).and_then(|out| exp.compare(params, &out)) {
            runs.push(r);
        }
    }
    let mut cells: Vec<BandCell> = Vec::new();
    for r in &runs {
        for row in &r.rows {
            for c in &row.cells {
                match cells.iter_mut().find(|b| b.label == row.label && b.metric == c.metric) {
                    Some(b) => b.band = [b.band[0].min(c.simulated), b.band[1].max(c.simulated)],
                    None => cells.push(BandCell { label: row.label.clone(), metric: c.metric, band: [c.simulated; 2] }),
                }
            }
        }
    }
    Some(Bands {
        samples: n,
        ran: runs.len() as u32,
        seed,
        quantities: uncertain.iter().map(|(name, q)| (*name, q.min, q.max, q.unit)).collect(),
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{Point, ViewSpec};
    use crate::experiments::find;
    use crate::output::{Cell, Citation, Column, ReproCell, ReproRow, Row, RunOutput};
    use crate::params::ParamSpec;
    use crate::sim::catalogue::{Basis, Quantity};

    /// One cell y = 10 k, k uncertain in 1..=4 ns.
    struct Stub;

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
            Vec::new()
        }
        fn columns(&self, _: &Params) -> Vec<Column> {
            vec![Column::new("y", "ns")]
        }
        fn run_point(&self, _: &Params, _: &Point, _: u64) -> Row {
            vec![Cell::Float(20.0)]
        }
        fn views(&self) -> Vec<ViewSpec> {
            Vec::new()
        }
        fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
            let k = Quantity { value: 2.0, min: 1.0, max: 4.0, unit: "ns", basis: Basis::Assumed, source: "test" };
            vec![("k", k)]
        }
        fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
            let mut out = RunOutput::new("stub", seed, self.columns(params));
            out.push_row(vec![Cell::Float(values[0] * 10.0)]);
            Some(out)
        }
        fn compare(&self, _: &Params, out: &RunOutput) -> Option<Reproduction> {
            let simulated = out.rows[0][0].as_f64()?;
            let citation = Citation { list: "", date: "", author: "", subject: "", message_id: "" };
            let cells = vec![ReproCell { metric: "y", measured: 20.0, simulated, spread: None }];
            let rows = vec![ReproRow { label: "0".into(), cells }];
            Some(Reproduction { experiment: "stub", citation, key_name: "x", rows, notes: Vec::new() })
        }
    }

    #[test]
    fn a_band_spans_the_samples_inside_the_range() {
        let b = bands_with(&Stub, &Stub.defaults(), 1, 8, &mut |_| {}).unwrap();
        assert_eq!((b.samples, b.ran), (8, 8));
        let [lo, hi] = b.get("0", "y").unwrap();
        // 8 geometric slices of 1..=4: the first and last sample sit in the middle of theirs.
        assert!(lo > 10.0 && lo < 11.0 && hi > 36.0 && hi < 40.0, "[{lo}, {hi}]");
        assert!(b.note().contains("8 Latin-hypercube samples") && b.note().contains('k'));
        let table = Stub.reproduce(1).unwrap().to_table_banded(|l, m| b.get(l, m));
        assert!(table.lines().nth(1).unwrap().contains("band") && table.contains("[10.9-36.7]"), "{table}");
        let many = bands_with(&Stub, &Stub.defaults(), 1, 1000, &mut |_| {}).unwrap();
        assert_eq!(many.samples, MAX_BANDS);
    }

    #[test]
    fn an_experiment_without_uncertain_quantities_has_no_band() {
        let e = find("skb-layout").unwrap();
        assert!(bands_with(e, &e.reproduce_params(), 1, 4, &mut |_| {}).is_none());
    }
}
