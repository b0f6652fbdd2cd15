//! Multi-start fitting: Latin-hypercube start points over the sourced ranges, a short descent
//! from each, the best refined (docs/calibration.md).

use super::*;

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
    calibrate_multistart_with(cal, starts, rounds, coarse_seeds, seeds, &mut |_| {})
}

/// [`calibrate_multistart`], telling `progress` how each start ended and each refining round.
pub fn calibrate_multistart_with(
    cal: &dyn Calibration,
    starts: u32,
    rounds: u32,
    coarse_seeds: &[u64],
    seeds: &[u64],
    progress: Progress<'_>,
) -> MultiReport {
    let constants = cal.constants();
    assert!(constants.len() <= MAX_FITTED, "bug: {} fits {} constants", cal.title(), constants.len());
    let mut evaluations = 0;
    let mut candidates = vec![cal.committed()];
    candidates.extend(start_points(constants, starts.min(MAX_STARTS)));
    let mut ends = coarse_ends(cal, candidates, coarse_seeds, &mut evaluations, progress);
    // The coarse objective is on fewer seeds: rescore the best few ends on all of them.
    let mut by_coarse: Vec<usize> = (0..ends.len()).collect();
    by_coarse.sort_by(|&a, &b| ends[a].coarse_objective.total_cmp(&ends[b].coarse_objective).then(a.cmp(&b)));
    let rescored: Vec<usize> = by_coarse.iter().take(RESCORED).copied().collect();
    let scores = par_map(&rescored, |&k| cal.score(&ends[k].end, seeds));
    let mut best: Option<(usize, Score)> = None;
    for (&k, s) in rescored.iter().zip(scores) {
        evaluations += 1;
        ends[k].objective = Some(s.objective);
        if best.as_ref().is_none_or(|(_, b)| s.objective < b.objective) {
            best = Some((k, s));
        }
    }
    let (k, score) = best.expect("at least the committed start");
    progress(&format!("refining start {k} (objective {:.3} on all seeds)", score.objective));
    let d = descend(cal, ends[k].end.clone(), score, FIRST_STEP / 4.0, rounds, seeds, progress);
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

/// The short descent from each of `candidates` on `coarse_seeds`: independent, so side by side
/// ([`par_map`]), reported and counted in start order.
fn coarse_ends(
    cal: &dyn Calibration,
    candidates: Vec<Vec<f64>>,
    coarse_seeds: &[u64],
    evaluations: &mut u32,
    progress: Progress<'_>,
) -> Vec<StartEnd> {
    let n = candidates.len();
    let descents = par_map(&candidates, |start| {
        let s0 = cal.score(start, coarse_seeds);
        let d = descend(cal, start.clone(), s0.clone(), FIRST_STEP, COARSE_ROUNDS, coarse_seeds, &mut |_| {});
        (s0, d)
    });
    let mut ends: Vec<StartEnd> = Vec::with_capacity(n);
    for (j, (start, (s0, d))) in candidates.into_iter().zip(descents).enumerate() {
        *evaluations += d.evaluations + 1;
        progress(&format!(
            "start {j}/{} ({}): objective {:.3} -> {:.3} on the coarse seeds ({} evaluations so far)",
            n - 1,
            if j == 0 { "committed values" } else { "start point" },
            s0.objective,
            d.score.objective,
            *evaluations
        ));
        ends.push(StartEnd {
            start,
            start_objective: s0.objective,
            end: d.values,
            coarse_objective: d.score.objective,
            objective: None,
        });
    }
    ends
}

/// How many of a multi-start fit's best coarse ends are scored again on all seeds.
pub(crate) const RESCORED: usize = 3;

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

#[cfg(test)]
mod tests {
    use super::*;

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
