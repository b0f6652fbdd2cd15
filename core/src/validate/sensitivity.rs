//! The rule that a hand-set constant can be as good as fitted: "a hand-set constant
//! whose ±10 % moves a target as much as a fitted one counts as fitted". For an experiment with
//! a fitted table, every quantity of [`Experiment::uncertain`] is moved alone by −10 % and
//! +10 % (through [`Experiment::run_perturbed`] at the reproduce parameters, one seed) and the
//! largest relative move of any compared number is its influence. A hand-set quantity whose
//! influence reaches the smallest influence among the table's fitted constants is counted as
//! fitted: `skblab validate` lists it and adds it to the table's fitted count and the budget.
//! Cost: two runs of the reproduction per quantity (printed on stderr as the tables go).

use crate::experiment::Experiment;
use serde::{Deserialize, Serialize};

/// One quantity's influence on the compared numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Influence {
    pub name: String,
    /// Whether a table of the experiment fits it.
    pub fitted: bool,
    /// Largest relative move of any compared number under ±10 %, percent.
    pub move_pct: f64,
}

/// The compared numbers of a run with `values` (None if the experiment cannot run them).
fn numbers(exp: &dyn Experiment, values: &[f64], seed: u64) -> Option<Vec<f64>> {
    let params = exp.reproduce_params();
    let out = exp.run_perturbed(&params, seed, values)?;
    let r = exp.compare(&params, &out)?;
    Some(r.rows.iter().flat_map(|row| row.cells.iter().map(|c| c.simulated)).collect())
}

/// Every uncertain quantity's influence, or `None` when the experiment has none to move.
pub fn influences(exp: &dyn Experiment, fitted: &[&str], seed: u64) -> Option<Vec<Influence>> {
    let uncertain = exp.uncertain();
    if uncertain.is_empty() {
        return None;
    }
    let base: Vec<f64> = uncertain.iter().map(|(_, q)| q.value).collect();
    // The base run, then every quantity at -10 % and +10 %: independent runs, side by side.
    let mut points = vec![base.clone()];
    for i in 0..uncertain.len() {
        for factor in [0.9, 1.1] {
            let mut v = base.clone();
            v[i] *= factor;
            points.push(v);
        }
    }
    let mut runs = crate::calibrate::par_map(&points, |v| numbers(exp, v, seed)).into_iter();
    let at_base = runs.next().flatten()?;
    let mut out = Vec::new();
    for (name, _) in &uncertain {
        let mut worst = 0.0_f64;
        for _factor in [0.9, 1.1] {
            let Some(moved) = runs.next().flatten() else { continue };
            for (a, b) in at_base.iter().zip(&moved) {
                if a.abs() > 1e-12 {
                    worst = worst.max(((b - a) / a).abs() * 100.0);
                }
            }
        }
        out.push(Influence { name: name.to_string(), fitted: fitted.contains(name), move_pct: worst });
    }
    Some(out)
}

/// The hand-set quantities that move a number at least as much as the least influential fitted
/// one (empty when no fitted constant is among the moved quantities).
pub fn counted_as_fitted(influences: &[Influence]) -> Vec<String> {
    let floor = influences.iter().filter(|i| i.fitted).map(|i| i.move_pct).fold(f64::INFINITY, f64::min);
    if !floor.is_finite() {
        return Vec::new();
    }
    influences.iter().filter(|i| !i.fitted && i.move_pct >= floor).map(|i| i.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inf(name: &str, fitted: bool, move_pct: f64) -> Influence {
        Influence { name: name.into(), fitted, move_pct }
    }

    #[test]
    fn a_hand_set_constant_as_influential_as_a_fitted_one_counts() {
        let v = [inf("fit_a", true, 4.0), inf("fit_b", true, 2.0), inf("hand", false, 2.5), inf("weak", false, 0.3)];
        assert_eq!(counted_as_fitted(&v), vec!["hand".to_string()]);
        assert!(counted_as_fitted(&[inf("hand", false, 9.0)]).is_empty(), "no fitted constant, no rule");
    }
}
