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
    let constants = cal.constants();
    assert!(constants.len() <= MAX_FITTED, "bug: {} fits {} constants", cal.title(), constants.len());
    let start = cal.committed();
    let score = cal.score(&start, seeds);
    let d = descend(cal, start, score, FIRST_STEP, rounds, seeds);
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
) -> Descent {
    let constants = cal.constants();
    let mut evaluations = 0;
    let mut step = first_step;
    for _ in 0..rounds.min(MAX_ROUNDS) {
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
        step /= 2.0;
    }
    Descent { values: best_v, score: best, evaluations }
}

/// The most start points of a multi-start fit (bounds its work).
pub const MAX_STARTS: u32 = 64;
/// Rounds of the short descent from each start point of a multi-start fit (steps 0.16, 0.08).
pub const COARSE_ROUNDS: u32 = 2;

/// `n` deterministic start points inside the constants' ranges: a Latin hypercube (each
/// constant's range cut into `n` equal slices, one point per slice) whose pairing across
/// constants follows the R_d low-discrepancy sequence (Roberts 2018: point j, coordinate i at
/// frac(1/2 + j / φ_d^(i+1)), φ_d the root of x^(d+1) = x + 1), so the points cover the box
/// evenly and no two share a slice. A range with a positive lower end is cut geometrically
/// (equal ratios: the descent's own grid), else linearly. Point j is in the order of the
/// sequence; the committed values are not among them.
pub fn start_points(constants: &[Constant], n: u32) -> Vec<Vec<f64>> {
    let n = n as usize;
    let d = constants.len();
    if n == 0 || d == 0 {
        return vec![Vec::new(); n];
    }
    // φ_d by fixed-point iteration of x = (1 + x)^(1/(d+1)) (converges from 2 for every d ≥ 1).
    let mut phi = 2.0f64;
    for _ in 0..64 {
        phi = (1.0 + phi).powf(1.0 / (d as f64 + 1.0));
    }
    let mut points = vec![vec![0.0; d]; n];
    for (i, c) in constants.iter().enumerate() {
        let alpha = phi.powi(-(i as i32 + 1));
        let u: Vec<f64> = (0..n).map(|j| (0.5 + j as f64 * alpha).fract()).collect();
        // Rank each point's coordinate among the n: slice rank gets the point (ties by index).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| u[a].total_cmp(&u[b]).then(a.cmp(&b)));
        for (rank, &j) in order.iter().enumerate() {
            let t = (rank as f64 + 0.5) / n as f64;
            points[j][i] = if c.min > 0.0 { c.min * (c.max / c.min).powf(t) } else { c.min + (c.max - c.min) * t };
        }
    }
    points
}

/// Multi-start fit: a short descent ([`COARSE_ROUNDS`] rounds on `coarse_seeds`) from the
/// committed values and from each of `starts` (at most [`MAX_STARTS`]) [`start_points`]; the
/// best few ends are scored again on `seeds` and the best of those refined by `rounds` rounds
/// of descent on `seeds` (from step 0.04, below the coarse stage's last). Deterministic. The
/// report says how each start ended; its score is on `seeds`, as a single-start fit's.
pub fn calibrate_multistart(
    cal: &dyn Calibration,
    starts: u32,
    rounds: u32,
    coarse_seeds: &[u64],
    seeds: &[u64],
) -> MultiReport {
    let constants = cal.constants();
    assert!(constants.len() <= MAX_FITTED, "bug: {} fits {} constants", cal.title(), constants.len());
    let mut evaluations = 0;
    let mut candidates = vec![cal.committed()];
    candidates.extend(start_points(constants, starts.min(MAX_STARTS)));
    let mut ends: Vec<StartEnd> = candidates
        .into_iter()
        .map(|start| {
            let s0 = cal.score(&start, coarse_seeds);
            let d = descend(cal, start.clone(), s0.clone(), FIRST_STEP, COARSE_ROUNDS, coarse_seeds);
            evaluations += d.evaluations + 1;
            StartEnd {
                start,
                start_objective: s0.objective,
                end: d.values,
                coarse_objective: d.score.objective,
                objective: None,
            }
        })
        .collect();
    // The coarse objective is on fewer seeds: rescore the best few ends on all of them.
    let mut by_coarse: Vec<usize> = (0..ends.len()).collect();
    by_coarse.sort_by(|&a, &b| ends[a].coarse_objective.total_cmp(&ends[b].coarse_objective).then(a.cmp(&b)));
    let mut best: Option<(usize, Score)> = None;
    for &k in by_coarse.iter().take(RESCORED) {
        let s = cal.score(&ends[k].end, seeds);
        evaluations += 1;
        ends[k].objective = Some(s.objective);
        if best.as_ref().is_none_or(|(_, b)| s.objective < b.objective) {
            best = Some((k, s));
        }
    }
    let (k, score) = best.expect("at least the committed start");
    let d = descend(cal, ends[k].end.clone(), score, FIRST_STEP / 4.0, rounds, seeds);
    evaluations += d.evaluations;
    let committed = cal.score(&cal.committed(), seeds);
    evaluations += 1;
    MultiReport {
        best: Report {
            title: cal.title(),
            seeds: seeds.to_vec(),
            constants: constants.iter().copied().zip(d.values).collect(),
            score: d.score,
            evaluations,
        },
        coarse_seeds: coarse_seeds.to_vec(),
        committed,
        starts: ends,
        refined_from: k,
    }
}

/// How many of a multi-start fit's best coarse ends are scored again on all seeds.
const RESCORED: usize = 3;

/// One start of a multi-start fit. Start 0 is the committed profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartEnd {
    pub start: Vec<f64>,
    /// At the start, on the coarse seeds.
    pub start_objective: f64,
    pub end: Vec<f64>,
    /// At the end of the short descent, on the coarse seeds.
    pub coarse_objective: f64,
    /// The end scored on all seeds (only for the best few).
    pub objective: Option<f64>,
}

/// The result of a multi-start fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultiReport {
    /// The refined best (its score on all seeds, its evaluations those of the whole fit).
    pub best: Report,
    pub coarse_seeds: Vec<u64>,
    /// The committed values' score on all seeds, to compare with.
    pub committed: Score,
    pub starts: Vec<StartEnd>,
    /// Index into `starts` of the end that was refined.
    pub refined_from: usize,
}

impl MultiReport {
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "# multi-start: {} start points + the committed values, {COARSE_ROUNDS} rounds each on seeds {}; refined start {}\n",
            self.starts.len() - 1,
            seed_list(&self.coarse_seeds),
            self.refined_from
        );
        let _ =
            writeln!(s, "# start  objective at start -> after descent (coarse seeds) [all seeds]  values at the end");
        for (k, e) in self.starts.iter().enumerate() {
            let all = e.objective.map_or(String::new(), |o| format!(" [{o:.3}]"));
            let vals: Vec<String> = e.end.iter().map(|v| fmt(*v)).collect();
            let _ = writeln!(
                s,
                "# {k:>5}  {:>10.3} -> {:.3}{all}  {}",
                e.start_objective,
                e.coarse_objective,
                vals.join(" ")
            );
        }
        let _ = writeln!(
            s,
            "# committed values on seeds {}: objective {:.3}",
            seed_list(&self.best.seeds),
            self.committed.objective
        );
        s.push_str(&self.best.to_text());
        s
    }
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
pub fn sensitivity(cal: &dyn Calibration, seeds: &[u64]) -> Sensitivity {
    let base_v = cal.committed();
    let rows = cal
        .constants()
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let at = |f: f64| {
                let mut v = base_v.clone();
                v[i] *= f;
                cal.score(&v, seeds)
            };
            SensitivityRow { constant: c, value: base_v[i], minus: at(0.9), plus: at(1.1) }
        })
        .collect();
    Sensitivity { title: cal.title(), seeds: seeds.to_vec(), base: cal.score(&base_v, seeds), rows }
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

    /// Two basins: a shallow one (objective 1) at (3, 3), next to the committed (4, 4), and the
    /// global one (objective 0) at (60, 60). A descent from the committed values stops in the first.
    struct TwoBasins;
    static TWO: [Constant; 2] = [
        Constant { name: "a", unit: "x", min: 1.0, max: 100.0, source: "test" },
        Constant { name: "b", unit: "y", min: 1.0, max: 100.0, source: "test" },
    ];
    impl Calibration for TwoBasins {
        fn title(&self) -> String {
            "two basins".into()
        }
        fn constants(&self) -> &'static [Constant] {
            &TWO
        }
        fn committed(&self) -> Vec<f64> {
            vec![4.0, 4.0]
        }
        fn score(&self, v: &[f64], seeds: &[u64]) -> Score {
            let noise = seeds.len() as f64 * 1e-9;
            let near = 1.0 + ((v[0] - 3.0).powi(2) + (v[1] - 3.0).powi(2)) / 10.0;
            let far = ((v[0] - 60.0).powi(2) + (v[1] - 60.0).powi(2)) / 100.0;
            Score { objective: near.min(far) + noise, figures: vec![("a".into(), v[0])] }
        }
    }

    #[test]
    fn start_points_are_a_latin_hypercube_inside_the_ranges() {
        for n in [1, 2, 7, 16] {
            let pts = start_points(&FITTED_LIKE, n);
            assert_eq!(pts.len(), n as usize);
            for (i, c) in FITTED_LIKE.iter().enumerate() {
                // Every slice of every range holds exactly one point.
                let mut slices: Vec<usize> = pts
                    .iter()
                    .map(|p| {
                        assert!((c.min..=c.max).contains(&p[i]), "{} = {} outside its range", c.name, p[i]);
                        let t = if c.min > 0.0 {
                            (p[i] / c.min).ln() / (c.max / c.min).ln()
                        } else {
                            (p[i] - c.min) / (c.max - c.min)
                        };
                        (t * f64::from(n)).floor() as usize
                    })
                    .collect();
                slices.sort_unstable();
                assert_eq!(slices, (0..n as usize).collect::<Vec<_>>(), "{} with {n} points", c.name);
            }
        }
        assert_eq!(start_points(&FITTED_LIKE, 9), start_points(&FITTED_LIKE, 9), "deterministic");
        // Two constants are not paired in the same order (that would be a diagonal, not a cover).
        let pts = start_points(&FITTED_LIKE, 16);
        let rank = |i: usize| {
            let mut o: Vec<usize> = (0..16).collect();
            o.sort_by(|&a, &b| pts[a][i].total_cmp(&pts[b][i]));
            o
        };
        assert_ne!(rank(0), rank(1));
    }

    static FITTED_LIKE: [Constant; 3] = [
        Constant { name: "geometric", unit: "x", min: 2000.0, max: 40000.0, source: "test" },
        Constant { name: "linear", unit: "y", min: -1.0, max: 1.0, source: "test" },
        Constant { name: "narrow", unit: "z", min: 6.0, max: 24.0, source: "test" },
    ];

    #[test]
    fn multistart_finds_the_basin_a_single_descent_misses() {
        let seeds5 = seeds(1, 5);
        let single = calibrate(&TwoBasins, MAX_ROUNDS, &seeds5);
        assert!(
            single.score.objective > 0.99,
            "the single descent stops in the near basin: {}",
            single.score.objective
        );
        let multi = calibrate_multistart(&TwoBasins, 8, 6, &seeds(1, 2), &seeds5);
        let (a, b) = (multi.best.constants[0].1, multi.best.constants[1].1);
        assert!(multi.best.score.objective < 0.05, "objective {} at ({a}, {b})", multi.best.score.objective);
        assert!((a - 60.0).abs() < 2.0 && (b - 60.0).abs() < 2.0, "({a}, {b})");
        assert_eq!(multi.starts.len(), 9, "the committed values and 8 start points");
        assert_eq!(multi.starts[0].start, vec![4.0, 4.0]);
        assert!((multi.committed.objective - TwoBasins.score(&[4.0, 4.0], &seeds5).objective).abs() < 1e-12);
        for e in &multi.starts {
            assert!(e.end.iter().zip(&TWO).all(|(v, c)| (c.min..=c.max).contains(v)));
            assert!(e.coarse_objective <= e.start_objective);
        }
        let text = multi.to_text();
        assert!(text.contains("multi-start: 8 start points") && text.contains("range 1..=100"), "{text}");
        assert_eq!(multi, calibrate_multistart(&TwoBasins, 8, 6, &seeds(1, 2), &seeds5), "deterministic");
        // No starts: the committed values' short descent, refined (the near basin again).
        let none = calibrate_multistart(&TwoBasins, 0, 6, &seeds(1, 2), &seeds5);
        assert!(none.best.score.objective > 0.99);
    }
}
