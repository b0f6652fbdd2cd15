//! The bookkeeping of what is predicted and what is fitted, table by table.
//!
//! Every seed table an experiment is scored on is a [`TableSpec`]: how many **independent
//! numbers** it has (a gain derived from two rows is not a third number), and the constants
//! **fitted** to it — a constant fitted jointly over several tables is listed in each. Its
//! [`Verdict`] is computed from that, never typed: `arithmetic` (exact layout math, nothing
//! to fit), `fit` (some constant was fitted to it: its error is in-sample) or `prediction` (no
//! constant was fitted to it). [`budget_violations`] applies the fitting budget: over every
//! group of tables joined by shared fitted constants, at most one distinct constant per
//! [`NUMBERS_PER_FIT`] independent numbers.
//!
//! What an experiment measures for its tables ([`TableCheck`]) — the error on the table's own
//! numbers, the error on held-out numbers when the table allows a split, and the error of a
//! curve with no mechanism fitted to the same numbers — is `skblab validate`'s.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Independent numbers a fitted constant must be paid for with.
pub const NUMBERS_PER_FIT: u32 = 3;

/// What a table's error means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No constant was fitted to this table: its error is out of sample.
    Prediction,
    /// Constants were fitted to it: its error is in sample.
    Fit,
    /// Exact arithmetic (layout sizes): nothing to fit, nothing to predict.
    Arithmetic,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Prediction => "prediction",
            Verdict::Fit => "fit",
            Verdict::Arithmetic => "arithmetic",
        }
    }
    /// One line for a badge's tooltip.
    pub fn explain(self) -> &'static str {
        match self {
            Verdict::Prediction => "no constant was fitted to this table: the model predicts it from sourced constants",
            Verdict::Fit => "constants were fitted to this table: its error is in-sample and shows little",
            Verdict::Arithmetic => "exact layout arithmetic from kernel headers: nothing fitted, nothing predicted",
        }
    }
}

/// One seed table as the bookkeeping sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSpec {
    pub experiment: &'static str,
    /// A short name, unique over the registry (`seed000`, `seed002-router`, ...).
    pub table: &'static str,
    /// What the table is, one line.
    pub title: &'static str,
    /// Independent numbers the model is scored on.
    pub targets: u32,
    /// Exact arithmetic: nothing to fit.
    pub arithmetic: bool,
    /// Names of the constants fitted to this table (catalogue or profile field names; a joint
    /// fit's constants appear in every table it used).
    pub fitted: Vec<&'static str>,
}

impl TableSpec {
    pub fn verdict(&self) -> Verdict {
        if self.arithmetic {
            Verdict::Arithmetic
        } else if self.fitted.is_empty() {
            Verdict::Prediction
        } else {
            Verdict::Fit
        }
    }
}

/// What `skblab validate` measures for one table (percentages; `None` where it does not apply).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TableCheck {
    /// MAPE of the model on the table's own numbers with the committed constants.
    pub in_sample_mape: Option<f64>,
    /// MAPE on held-out numbers after a fit on the rest (None where no split exists).
    pub out_of_sample_mape: Option<f64>,
    /// MAPE of a curve with no mechanism fitted the same way (None where not applicable).
    pub curve_mape: Option<f64>,
    /// Signed errors of the table's numbers, one line each (held-out ones marked).
    pub errors: Vec<String>,
    /// Known gaps, one line each.
    pub gaps: Vec<String>,
}

impl TableCheck {
    /// The in-sample figures of a reproduction: the MAPE over every compared cell and one
    /// signed error line per cell.
    pub fn from_reproduction(r: &crate::output::Reproduction) -> TableCheck {
        let mut errors = Vec::new();
        for row in &r.rows {
            for c in &row.cells {
                errors.push(match c.error_pct() {
                    Some(e) => format!("{} {}: {e:+.1} %", row.label, c.metric),
                    None => format!("{} {}: n/a (measured 0)", row.label, c.metric),
                });
            }
        }
        let abs: Vec<f64> =
            r.rows.iter().flat_map(|row| row.cells.iter().filter_map(|c| c.error_pct().map(f64::abs))).collect();
        let in_sample = if abs.is_empty() { None } else { Some(abs.iter().sum::<f64>() / abs.len() as f64) };
        TableCheck { in_sample_mape: in_sample, errors, ..TableCheck::default() }
    }
}

/// Groups of tables joined by shared fitted constants whose distinct constants exceed the
/// budget, as one line each (empty: the registry is within budget).
pub fn budget_violations(tables: &[TableSpec]) -> Vec<String> {
    let mut group_of: Vec<usize> = (0..tables.len()).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    for i in 0..tables.len() {
        for j in i + 1..tables.len() {
            if tables[i].fitted.iter().any(|c| tables[j].fitted.contains(c)) {
                let (a, b) = (root(&mut group_of, i), root(&mut group_of, j));
                group_of[a] = b;
            }
        }
    }
    let mut out = Vec::new();
    let roots: BTreeSet<usize> = (0..tables.len()).map(|i| root(&mut group_of, i)).collect();
    for r in roots {
        let members: Vec<&TableSpec> =
            (0..tables.len()).filter(|&i| root(&mut group_of, i) == r).map(|i| &tables[i]).collect();
        let constants: BTreeSet<&str> = members.iter().flat_map(|t| t.fitted.iter().copied()).collect();
        let numbers: u32 = members.iter().map(|t| t.targets).sum();
        if constants.len() as u32 * NUMBERS_PER_FIT > numbers {
            let names: Vec<&str> = members.iter().map(|t| t.table).collect();
            out.push(format!(
                "tables {} fit {} constants on {} independent numbers (at most one per {NUMBERS_PER_FIT})",
                names.join(", "),
                constants.len(),
                numbers
            ));
        }
    }
    out
}

/// Mean absolute percentage error of `(simulated, measured)` pairs (0 for none).
pub fn mape(pairs: &[(f64, f64)]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    pairs.iter().map(|&(s, m)| ((s - m) / m).abs() * 100.0).sum::<f64>() / pairs.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(table: &'static str, targets: u32, fitted: &[&'static str]) -> TableSpec {
        TableSpec { experiment: "x", table, title: "", targets, arithmetic: false, fitted: fitted.to_vec() }
    }

    #[test]
    fn verdicts_follow_the_bookkeeping() {
        assert_eq!(t("a", 2, &[]).verdict(), Verdict::Prediction);
        assert_eq!(t("a", 2, &["k"]).verdict(), Verdict::Fit);
        let mut a = t("a", 2, &[]);
        a.arithmetic = true;
        assert_eq!(a.verdict(), Verdict::Arithmetic);
    }

    #[test]
    fn a_joint_fit_is_paid_for_by_every_table_it_uses() {
        // Two tables of 2 numbers each cannot fit one constant alone; jointly with a third of
        // 2 numbers they can (6 numbers, 2 constants would still fail).
        assert_eq!(budget_violations(&[t("a", 2, &["k"])]).len(), 1);
        assert!(budget_violations(&[t("a", 2, &["k"]), t("b", 2, &["k"])]).is_empty());
        assert_eq!(budget_violations(&[t("a", 3, &["k", "m"]), t("b", 3, &["k"])]).len(), 0);
        assert_eq!(budget_violations(&[t("a", 3, &["k", "m"]), t("b", 2, &["k"])]).len(), 1);
        assert!(budget_violations(&[t("a", 60, &["k"]), t("b", 2, &[])]).is_empty());
    }
}
