//! Fitting a machine profile's physical constants, the same way for every experiment.
//!
//! An experiment with fitted constants implements [`Calibration`]: which constants move (at most
//! [`MAX_FITTED`], each inside a sourced physical range), their committed values, and a score of
//! the model against its seed table for given values and seeds (lower is better; the experiment
//! says what the objective weighs). This module owns the search and the reports:
//!
//! - [`calibrate`]: deterministic coordinate descent from the committed values on a geometric
//!   grid (each constant walks × (1 ± step) while that improves, the step halving every round,
//!   values clamped to their range); every evaluation scores the model on all `seeds`, so the fit is to the mean over
//!   seeds, never to one lucky seed.
//! - [`calibrate_multistart`]: the same descent, short and on fewer seeds, from the committed
//!   values and from a Latin hypercube of start points inside the ranges ([`start_points`]); the
//!   best ends are scored on all seeds and the best one refined. A local descent stops in the
//!   first basin it finds; the starts look in the others.
//! - [`sensitivity`]: every constant moved by −10 % and +10 % alone, with the figures the score
//!   reports — how much each fitted constant leans on the result.
//!
//! `skblab calibrate <id> [--rounds N] [--seeds N] [--sensitivity]` prints both; the committed
//! values are then copied into the experiment's machine profile by hand (core does no I/O).

mod multistart;
mod par;
pub mod tables;

pub use par::{jobs, par_map};

pub use multistart::{
    calibrate_multistart, calibrate_multistart_with, start_points, MultiReport, StartEnd, COARSE_ROUNDS, MAX_STARTS,
};

use serde::Serialize;
use std::fmt::Write;

/// The most constants one machine profile may fit.
pub const MAX_FITTED: usize = 8;
/// Seeds a fit and a reproduction average over unless told otherwise.
pub const DEFAULT_SEEDS: u32 = 5;
/// The most seeds a CLI call may ask for (bounds the work).
pub const MAX_SEEDS: u32 = 50;
/// Rounds after which the step (0.16 halved each round) is below 1e-5 of a value: more rounds
/// change nothing worth printing. The CLI's `--rounds` range.
pub const MAX_ROUNDS: u32 = 14;

/// The most steps one constant walks in one direction in one round (bounds a fit's work).
const MAX_STRIDES: u32 = 8;

/// One fitted physical constant and its allowed range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Constant {
    pub name: &'static str,
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    /// Where the range comes from (datasheet, paper, measurement), one line.
    pub source: &'static str,
}

/// How well the model with some constants reproduces its seed table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// What the search minimises.
    pub objective: f64,
    /// Named figures for the report (MAPE per column, worst cell, crossover...).
    pub figures: Vec<(String, f64)>,
}

/// An experiment's fitted constants and how to score them.
pub trait Calibration: Sync {
    /// One line: which machine, against which seed.
    fn title(&self) -> String;
    /// The fitted constants (at most [`MAX_FITTED`]).
    fn constants(&self) -> &'static [Constant];
    /// Their values in the committed machine profile, in the order of [`Calibration::constants`].
    fn committed(&self) -> Vec<f64>;
    /// Runs the model with `values` on every seed of `seeds` and scores the mean.
    fn score(&self, values: &[f64], seeds: &[u64]) -> Score;
}

/// How far a simulated before/after pair is from the seed's pair, as relative errors, and the
/// objective of a fit to it: both squared errors plus four times the squared error of the
/// after/before ratio (the ratio is what a patch changes, the point of a lesson).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairError {
    pub before: f64,
    pub after: f64,
    pub ratio: f64,
    pub objective: f64,
}

impl PairError {
    /// `sim` and `seed` as (before, after).
    pub fn of(sim: (f64, f64), seed: (f64, f64)) -> PairError {
        let rel = |s: f64, m: f64| (s - m) / m;
        let (before, after) = (rel(sim.0, seed.0), rel(sim.1, seed.1));
        let ratio = rel(sim.1 / sim.0, seed.1 / seed.0);
        PairError { before, after, ratio, objective: before * before + after * after + 4.0 * ratio * ratio }
    }
}

/// `n` seeds starting at `first` (wrapping), the seeds a multi-seed figure averages over.
pub fn seeds(first: u64, n: u32) -> Vec<u64> {
    (0..u64::from(n)).map(|i| first.wrapping_add(i)).collect()
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub title: String,
    pub seeds: Vec<u64>,
    pub constants: Vec<(Constant, f64)>,
    pub score: Score,
    pub evaluations: u32,
}

impl Report {
    pub fn to_text(&self) -> String {
        let mut s = format!("# {}\n# score on the mean over seeds {}\n", self.title, seed_list(&self.seeds));
        for (c, v) in &self.constants {
            let _ = writeln!(s, "{:<24} {:>12} {:<13} range {}..={}", c.name, fmt(*v), c.unit, fmt(c.min), fmt(c.max));
        }
        for (name, v) in &self.score.figures {
            let _ = writeln!(s, "{name}: {}", fmt(*v));
        }
        let _ = writeln!(s, "objective: {:.3} after {} evaluations", self.score.objective, self.evaluations);
        s
    }
}

/// Coordinate descent from the committed values for `rounds` rounds (at most [`MAX_ROUNDS`]).
/// Deterministic; `rounds = 0` only scores the committed profile.
pub fn calibrate(cal: &dyn Calibration, rounds: u32, seeds: &[u64]) -> Report {
    calibrate_with(cal, rounds, seeds, &mut |_| {})
}

/// Where a long fit is, one line at a time (the CLI prints them to stderr as they come). `Send`,
/// so work that runs in parallel ([`par_map`]) can report from its threads (lines then come in
/// the order the work finishes; the results do not depend on it).
pub type Progress<'a> = &'a mut (dyn FnMut(&str) + Send);

/// [`calibrate`], telling `progress` the objective after every round.
pub fn calibrate_with(cal: &dyn Calibration, rounds: u32, seeds: &[u64], progress: Progress<'_>) -> Report {
    let constants = cal.constants();
    assert!(constants.len() <= MAX_FITTED, "bug: {} fits {} constants", cal.title(), constants.len());
    let start = cal.committed();
    let score = cal.score(&start, seeds);
    progress(&format!("committed values: objective {:.3}", score.objective));
    let d = descend(cal, start, score, FIRST_STEP, rounds, seeds, progress);
    Report {
        title: cal.title(),
        seeds: seeds.to_vec(),
        constants: constants.iter().copied().zip(d.values).collect(),
        score: d.score,
        evaluations: d.evaluations + 1,
    }
}

/// The first round's step of the descent (× (1 ± 0.16)), halved every round.
const FIRST_STEP: f64 = 0.16;

/// At most this many scores a descent of `rounds` rounds over `constants` constants computes:
/// per round and constant, one stride that fails in the first direction and
/// [`MAX_STRIDES`] in the other.
pub fn max_descent_evaluations(constants: usize, rounds: u32) -> u64 {
    u64::from(rounds.min(MAX_ROUNDS)) * constants as u64 * (1 + u64::from(MAX_STRIDES))
}

/// An upper bound of the scores `skblab calibrate` computes, each on `(coarse seeds, seeds)`:
/// `calibrate_with` (`starts` = 0) or `calibrate_multistart_with`. The CLI prints it before it
/// starts, beside [`expected_evaluations`].
pub fn max_evaluations(cal: &dyn Calibration, rounds: u32, starts: u32) -> (u64, u64) {
    evaluations_with(cal, rounds, starts, max_descent_evaluations)
}

/// The scores a descent computes per round and constant when the constant does not move: one
/// stride each way that does not improve. A constant that moves k strides costs k + 1 (a
/// failing stride ends its walk), so a descent near its optimum — a fit from committed values,
/// each later round's halved step — computes about this many; the bound
/// ([`max_descent_evaluations`]) assumes the worst walk in every round.
const STRIDES_WHEN_SETTLED: u64 = 2;

/// The scores a descent of `rounds` rounds over `constants` constants is expected to compute
/// (`STRIDES_WHEN_SETTLED`, two, per round and constant).
pub fn expected_descent_evaluations(constants: usize, rounds: u32) -> u64 {
    u64::from(rounds.min(MAX_ROUNDS)) * constants as u64 * STRIDES_WHEN_SETTLED
}

/// The scores `skblab calibrate` is expected to compute, on `(coarse seeds, seeds)`: the
/// estimate its ETA and its long-run limit use (a fit that stops early computes far fewer
/// than [`max_evaluations`]: page-frag-free's default fit computes 9 of at most 37).
pub fn expected_evaluations(cal: &dyn Calibration, rounds: u32, starts: u32) -> (u64, u64) {
    evaluations_with(cal, rounds, starts, expected_descent_evaluations)
}

/// The scores of a fit (one descent, or a multi-start) with `descent` the scores of one
/// descent of so many constants and rounds.
fn evaluations_with(cal: &dyn Calibration, rounds: u32, starts: u32, descent: fn(usize, u32) -> u64) -> (u64, u64) {
    let k = cal.constants().len();
    if starts == 0 {
        return (0, 1 + descent(k, rounds));
    }
    let coarse = (u64::from(starts.min(MAX_STARTS)) + 1) * (1 + descent(k, COARSE_ROUNDS));
    (coarse, multistart::RESCORED as u64 + descent(k, rounds) + 1)
}

/// Where a descent ended.
struct Descent {
    values: Vec<f64>,
    score: Score,
    /// Scores computed by the descent (not counting the start's).
    evaluations: u32,
}

/// Coordinate descent from `values` (scored `score`) on a geometric grid: each constant walks by
/// × (1 ± step) inside its range while that improves (at most [`MAX_STRIDES`] strides), then the
/// next constant; the step halves every round.
fn descend(
    cal: &dyn Calibration,
    mut best_v: Vec<f64>,
    mut best: Score,
    first_step: f64,
    rounds: u32,
    seeds: &[u64],
    progress: Progress<'_>,
) -> Descent {
    let constants = cal.constants();
    let mut evaluations = 0;
    let mut step = first_step;
    for round in 0..rounds.min(MAX_ROUNDS) {
        for (i, c) in constants.iter().enumerate() {
            // Walk in the first direction that improves, as long as it improves (at most
            // MAX_STRIDES steps), then go on to the next constant.
            for dir in [1.0, -1.0] {
                let mut moved = false;
                for _ in 0..MAX_STRIDES {
                    let mut v = best_v.clone();
                    let nv = (v[i] * (1.0 + dir * step)).clamp(c.min, c.max);
                    if nv == v[i] {
                        break;
                    }
                    v[i] = nv;
                    let s = cal.score(&v, seeds);
                    evaluations += 1;
                    if s.objective >= best.objective {
                        break;
                    }
                    best = s;
                    best_v = v;
                    moved = true;
                }
                if moved {
                    break;
                }
            }
        }
        progress(&format!(
            "round {}/{} (step {step}): objective {:.3} after {evaluations} evaluations",
            round + 1,
            rounds.min(MAX_ROUNDS),
            best.objective
        ));
        step /= 2.0;
    }
    Descent { values: best_v, score: best, evaluations }
}

/// One constant moved by ±10 %.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SensitivityRow {
    pub constant: Constant,
    pub value: f64,
    pub minus: Score,
    pub plus: Score,
}

/// Every fitted constant moved alone by −10 % and +10 % from its committed value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sensitivity {
    pub title: String,
    pub seeds: Vec<u64>,
    pub base: Score,
    pub rows: Vec<SensitivityRow>,
}

impl Sensitivity {
    /// A table: one line per constant and direction, one column per figure of the score.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "# {}: sensitivity, each fitted constant ±10 % alone (mean over seeds {})\n",
            self.title,
            seed_list(&self.seeds)
        );
        let names: Vec<&str> = self.base.figures.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(s, "{:<28} {}", "change", names.join(" | "));
        let line = |label: String, sc: &Score| {
            let vals: Vec<String> = sc.figures.iter().map(|(_, v)| fmt(*v)).collect();
            format!("{label:<28} {}\n", vals.join(" | "))
        };
        s.push_str(&line("committed".into(), &self.base));
        for r in &self.rows {
            s.push_str(&line(format!("{} -10 %", r.constant.name), &r.minus));
            s.push_str(&line(format!("{} +10 %", r.constant.name), &r.plus));
        }
        s
    }
}

/// Scores the committed values and each constant at ±10 % (outside its range if need be: the
/// question is how much the result leans on it, not whether the move is a valid fit).
/// The committed values and the 2 × constants moved ones are scored side by side ([`par_map`]).
pub fn sensitivity(cal: &dyn Calibration, seeds: &[u64]) -> Sensitivity {
    let base_v = cal.committed();
    // The committed values, then each constant at -10 % and at +10 %.
    let mut points = vec![base_v.clone()];
    for i in 0..cal.constants().len() {
        for f in [0.9, 1.1] {
            let mut v = base_v.clone();
            v[i] *= f;
            points.push(v);
        }
    }
    let mut scores = par_map(&points, |v| cal.score(v, seeds)).into_iter();
    let base = scores.next().expect("bug: the committed values were scored");
    let rows = cal
        .constants()
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let (minus, plus) = (scores.next(), scores.next());
            let (Some(minus), Some(plus)) = (minus, plus) else { panic!("bug: a sensitivity score is missing") };
            SensitivityRow { constant: c, value: base_v[i], minus, plus }
        })
        .collect();
    Sensitivity { title: cal.title(), seeds: seeds.to_vec(), base, rows }
}

fn seed_list(seeds: &[u64]) -> String {
    match seeds {
        [] => "none".into(),
        [one] => one.to_string(),
        [first, .., last] if seeds.windows(2).all(|w| w[1] == w[0].wrapping_add(1)) => format!("{first}..={last}"),
        _ => seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_error_weighs_the_ratio_four_times() {
        let exact = PairError::of((8.0, 9.0), (8.0, 9.0));
        assert_eq!(exact.objective, 0.0);
        // Both 10 % high: the ratio is right, only the two levels count.
        let level = PairError::of((8.8, 9.9), (8.0, 9.0));
        assert!((level.before - 0.1).abs() < 1e-12 && level.ratio.abs() < 1e-12);
        assert!((level.objective - 0.02).abs() < 1e-12);
        // After right, before 10 % low: the ratio is 1/0.9 - 1 high and weighs 4x.
        let gain = PairError::of((7.2, 9.0), (8.0, 9.0));
        assert!((gain.ratio - (1.0 / 0.9 - 1.0)).abs() < 1e-12);
        assert!((gain.objective - (0.01 + 4.0 * gain.ratio * gain.ratio)).abs() < 1e-12);
    }

    /// A bowl with its minimum at (3, 50): the descent must walk there and stay in range.
    struct Bowl;
    static BOWL: [Constant; 2] = [
        Constant { name: "a", unit: "x", min: 1.0, max: 10.0, source: "test" },
        Constant { name: "b", unit: "y", min: 10.0, max: 40.0, source: "test" },
    ];
    impl Calibration for Bowl {
        fn title(&self) -> String {
            "bowl".into()
        }
        fn constants(&self) -> &'static [Constant] {
            &BOWL
        }
        fn committed(&self) -> Vec<f64> {
            vec![5.0, 20.0]
        }
        fn score(&self, v: &[f64], seeds: &[u64]) -> Score {
            let noise = seeds.iter().map(|&s| s as f64 * 1e-9).sum::<f64>();
            let objective = (v[0] - 3.0).powi(2) + (v[1] - 50.0).powi(2) + noise;
            Score { objective, figures: vec![("a".into(), v[0]), ("b".into(), v[1])] }
        }
    }

    #[test]
    fn descent_improves_and_respects_ranges() {
        let r0 = calibrate(&Bowl, 0, &seeds(1, 5));
        assert_eq!(r0.evaluations, 1);
        let r = calibrate(&Bowl, MAX_ROUNDS, &seeds(1, 5));
        assert!(r.score.objective < r0.score.objective);
        let (a, b) = (r.constants[0].1, r.constants[1].1);
        assert!((a - 3.0).abs() < 0.1, "a = {a}");
        assert_eq!(b, 40.0, "b stops at the top of its range");
        assert!(r.to_text().contains("range 10..=40"));
        assert_eq!(r, calibrate(&Bowl, MAX_ROUNDS, &seeds(1, 5)), "deterministic");
    }

    #[test]
    fn progress_reports_every_round_and_every_start() {
        let mut lines = Vec::new();
        let r = calibrate_with(&Bowl, 3, &seeds(1, 2), &mut |l| lines.push(l.to_string()));
        assert_eq!(r, calibrate(&Bowl, 3, &seeds(1, 2)), "progress changes nothing");
        assert_eq!(lines.len(), 1 + 3, "{lines:?}");
        assert!(lines[3].starts_with("round 3/3") && lines[3].contains("objective"), "{lines:?}");
        lines.clear();
        let m = calibrate_multistart_with(&Bowl, 4, 2, &seeds(1, 1), &seeds(1, 2), &mut |l| lines.push(l.to_string()));
        assert_eq!(m, calibrate_multistart(&Bowl, 4, 2, &seeds(1, 1), &seeds(1, 2)));
        // The committed start and 4 start points, the choice of the refined one, 2 rounds.
        assert_eq!(lines.len(), 5 + 1 + 2, "{lines:?}");
        assert!(lines[0].starts_with("start 0/4 (committed values)"), "{lines:?}");
    }

    #[test]
    fn sensitivity_moves_each_constant_alone() {
        let s = sensitivity(&Bowl, &seeds(1, 3));
        assert_eq!(s.rows.len(), 2);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(s.rows[0].minus.figures[0].1, 4.5));
        assert!(close(s.rows[0].minus.figures[1].1, 20.0), "b stays when a moves");
        assert!(close(s.rows[1].plus.figures[1].1, 22.0));
        let text = s.to_text();
        assert!(text.contains("seeds 1..=3") && text.contains("a -10 %") && text.contains("b +10 %"), "{text}");
    }
}
