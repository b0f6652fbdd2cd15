//! Uncertainty bands: what the model says when the constants it rests on move inside their
//! sourced ranges.
//!
//! The quantities of [`Experiment::uncertain`] are sampled by the same Latin hypercube a
//! multi-start fit starts from ([`start_points`]: each range cut into `n` slices, one sample
//! per slice, geometric cuts for positive ranges); each sample is one run of the
//! reproduction's parameters through [`Experiment::run_perturbed`], compared with the seed
//! table. A cell's band is the lowest and highest simulated value over the samples: a wide
//! band means the model cannot tell from what is known ([`Bands::cannot_tell`] says where, in
//! one computed line). Work: `n` runs (one seed), one per [`BandJob::step`], so that the web
//! app's worker can stream the band sample by sample.
use crate::calibrate::{par_map, start_points, Constant, Progress};
use crate::experiment::Experiment;
use crate::output::Reproduction;
use crate::params::Params;
use serde::{Deserialize, Serialize};

/// The most samples of one band (bounds the work: one run each).
pub const MAX_BANDS: u32 = 64;

/// A band is wide (the model cannot tell) when it spans more than this share of the value on
/// either side (±25 %: the bound within which a prediction counts as a success).
pub const WIDE_HALF_PCT: f64 = 25.0;

/// One cell's band.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandCell {
    pub label: String,
    pub metric: String,
    pub band: [f64; 2],
}

/// One sampled quantity and its range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandQuantity {
    pub name: String,
    pub min: f64,
    pub max: f64,
    pub unit: String,
}

/// The bands of every compared cell of a reproduction (so far, while a [`BandJob`] runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bands {
    pub experiment: String,
    /// Samples asked for and samples that ran (a sample whose run or comparison fails adds
    /// nothing).
    pub samples: u32,
    pub ran: u32,
    pub seed: u64,
    /// The sampled quantities with their ranges.
    pub quantities: Vec<BandQuantity>,
    pub cells: Vec<BandCell>,
}

impl Bands {
    pub fn get(&self, label: &str, metric: &str) -> Option<[f64; 2]> {
        self.cells.iter().find(|c| c.label == label && c.metric == metric).map(|c| c.band)
    }

    /// What the band column means, one line.
    pub fn note(&self) -> String {
        let names: Vec<&str> = self.quantities.iter().map(|q| q.name.as_str()).collect();
        format!(
            "band: [lo-hi] over {} Latin-hypercube samples (seed {}) of {} inside their sourced ranges",
            self.ran,
            self.seed,
            names.join(", ")
        )
    }

    /// The banded cells of `r` that are wide, widest first (see [`Wide`]).
    pub fn wide(&self, r: &Reproduction) -> Vec<Wide> {
        let mut out: Vec<Wide> = Vec::new();
        for row in &r.rows {
            for c in &row.cells {
                let Some([lo, hi]) = self.get(&row.label, c.metric) else { continue };
                let width = hi - lo;
                let half_pct = (c.simulated != 0.0).then(|| width / 2.0 / c.simulated.abs() * 100.0);
                let difference = table_difference(r, c.metric);
                let over_value = half_pct.is_some_and(|p| p > WIDE_HALF_PCT);
                let over_difference = difference.is_some_and(|d| width > d);
                if over_value || over_difference {
                    let (label, metric) = (row.label.clone(), c.metric.to_string());
                    out.push(Wide { label, metric, band: [lo, hi], half_pct, difference });
                }
            }
        }
        let key = |w: &Wide| w.half_pct.unwrap_or(f64::INFINITY);
        out.sort_by(|a, b| key(b).total_cmp(&key(a)));
        out
    }

    /// One line where the band is wide ("the model cannot tell ..."), computed from
    /// [`Bands::wide`]; `None` if every banded cell is narrow.
    pub fn cannot_tell(&self, r: &Reproduction) -> Option<String> {
        let wide = self.wide(r);
        let w = wide.first()?;
        let banded = r.rows.iter().flat_map(|row| row.cells.iter().map(move |c| (row, c)));
        let banded = banded.filter(|(row, c)| self.get(&row.label, c.metric).is_some()).count();
        let mut why = Vec::new();
        if let Some(p) = w.half_pct.filter(|p| *p > WIDE_HALF_PCT) {
            why.push(format!("±{p:.0} % of the simulated value (more than ±{WIDE_HALF_PCT:.0} %)"));
        }
        if let Some(d) = w.difference.filter(|d| w.band[1] - w.band[0] > *d) {
            let times = (w.band[1] - w.band[0]) / d;
            why.push(format!("{times:.1}× the seed table's own difference in {} ({})", w.metric, fmt(d)));
        }
        Some(format!(
            "the model cannot tell: {} of {banded} banded cells are wide; widest {} {} [{}-{}] spans {}",
            wide.len(),
            w.label,
            w.metric,
            fmt(w.band[0]),
            fmt(w.band[1]),
            why.join(" and ")
        ))
    }
}

/// A wide band: its cell, its half-width in % of the simulated value (`None` at 0) and the
/// seed table's difference in the metric it beat (`None` if the metric has one seed number).
#[derive(Debug, Clone, PartialEq)]
pub struct Wide {
    pub label: String,
    pub metric: String,
    pub band: [f64; 2],
    pub half_pct: Option<f64>,
    pub difference: Option<f64>,
}

/// The difference the table is about in `metric`: the largest minus the smallest seed number of
/// the metric's rows (before vs after, the two counters), if it has two or more and they differ.
fn table_difference(r: &Reproduction, metric: &str) -> Option<f64> {
    let measured: Vec<f64> =
        r.rows.iter().flat_map(|row| row.cells.iter()).filter(|c| c.metric == metric).map(|c| c.measured).collect();
    let lo = measured.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = measured.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (measured.len() >= 2 && hi > lo).then_some(hi - lo)
}

/// A number as the tables print it (3 significant digits, whole numbers as they are).
fn fmt(v: f64) -> String {
    if v.abs() >= 1000.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{}", crate::output::round(v, 3))
    }
}

/// A band in progress: the samples, and the band of the samples run so far. One
/// [`BandJob::step`] is one run: the worker calls it once per task.
pub struct BandJob<'a> {
    exp: &'a dyn Experiment,
    params: Params,
    samples: Vec<Vec<f64>>,
    next: usize,
    bands: Bands,
}

impl<'a> BandJob<'a> {
    /// `n` samples (at most [`MAX_BANDS`]) of `exp`'s reproduction under `params` on `seed`;
    /// `None` if the experiment declares no uncertain quantity.
    pub fn new(exp: &'a dyn Experiment, params: &Params, seed: u64, n: u32) -> Option<BandJob<'a>> {
        let uncertain = exp.uncertain();
        if uncertain.is_empty() {
            return None;
        }
        let n = n.min(MAX_BANDS);
        let constants: Vec<Constant> = uncertain
            .iter()
            .map(|(name, q)| Constant { name, unit: q.unit, min: q.min, max: q.max, source: q.source })
            .collect();
        let quantities = uncertain
            .iter()
            .map(|(name, q)| BandQuantity { name: name.to_string(), min: q.min, max: q.max, unit: q.unit.to_string() })
            .collect();
        let bands = Bands { experiment: exp.id().to_string(), samples: n, ran: 0, seed, quantities, cells: Vec::new() };
        Some(BandJob { exp, params: params.clone(), samples: start_points(&constants, n), next: 0, bands })
    }

    /// Samples run so far, and in all.
    pub fn progress(&self) -> (u32, u32) {
        (self.next as u32, self.samples.len() as u32)
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.samples.len()
    }

    /// Runs the next sample and widens the band by its cells; false once every sample ran.
    pub fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        let r = self.sample(self.next);
        self.absorb(r);
        true
    }

    /// The reproduction of sample `i` (`None` past the last, or if the experiment cannot run
    /// it): pure, so samples can run anywhere, in any order, and be [`BandJob::absorb`]ed in
    /// sample order afterwards.
    pub fn sample(&self, i: usize) -> Option<Reproduction> {
        let values = self.samples.get(i)?;
        let (exp, params, seed) = (self.exp, &self.params, self.bands.seed);
        exp.run_perturbed(params, seed, values).and_then(|out| exp.compare(params, &out))
    }

    /// Widens the band by the next sample's result (from [`BandJob::sample`] of that index).
    pub fn absorb(&mut self, r: Option<Reproduction>) {
        if self.is_done() {
            return;
        }
        self.next += 1;
        let Some(r) = r else { return };
        self.bands.ran += 1;
        for row in &r.rows {
            for c in &row.cells {
                let cells = &mut self.bands.cells;
                match cells.iter_mut().find(|b| b.label == row.label && b.metric == c.metric) {
                    Some(b) => b.band = [b.band[0].min(c.simulated), b.band[1].max(c.simulated)],
                    None => cells.push(BandCell {
                        label: row.label.clone(),
                        metric: c.metric.to_string(),
                        band: [c.simulated; 2],
                    }),
                }
            }
        }
    }

    /// The band of the samples run so far.
    pub fn bands(&self) -> &Bands {
        &self.bands
    }
}

/// The bands of `exp`'s reproduction under `params` from `n` samples (at most [`MAX_BANDS`])
/// on `seed`, telling `progress` one line per sample as it starts; `None` if the experiment
/// declares no uncertain quantity. The samples run side by side ([`par_map`]) and widen the
/// band in sample order.
pub fn bands_with(exp: &dyn Experiment, params: &Params, seed: u64, n: u32, progress: Progress<'_>) -> Option<Bands> {
    let mut job = BandJob::new(exp, params, seed, n)?;
    let (_, total) = job.progress();
    let progress = std::sync::Mutex::new(progress);
    let indices: Vec<usize> = (0..total as usize).collect();
    let results = par_map(&indices, |&i| {
        if let Ok(mut p) = progress.lock() {
            p(&format!("band sample {}/{total}", i + 1));
        }
        job.sample(i)
    });
    for r in results {
        job.absorb(r);
    }
    Some(job.bands)
}
