//! `skblab validate`: every seed table's verdict, degrees of freedom and errors, in one report.
//!
//! For each [`TableSpec`] of the registry (or of one experiment) the report carries the
//! computed [`Verdict`], the independent numbers (`targets`), the constants fitted to it (a
//! joint fit's constants are counted in every table that uses them), and what the experiment's
//! [`Experiment::check_table`] measures: the in-sample MAPE, the out-of-sample MAPE where the
//! table allows a split, the MAPE of a curve with no mechanism, the signed error of every
//! number (held-out ones say `held-out`) and the known gaps. The budget line is the registry's
//! [`budget_violations`] (a joint fit can span experiments, so it is always registry-wide).
//!
//! `check_table` may run fits (cross-validation): the work is the experiments', reported table
//! by table through a progress callback (the CLI prints it on stderr). The web app cannot run
//! those fits, so it reads [`snapshot`], the committed output of `skblab validate --format json`
//! (`make validate` rewrites it; `core/tests/validate.rs` keeps its tables and verdicts in step
//! with the registry). The registry is the caller's: nothing here names an experiment.
//!
//! Files: `mod.rs` (this report), `bands.rs` (uncertainty bands of `reproduce --bands N`),
//! `sensitivity.rs` (hand-set constants as influential as a fitted one count as fitted),
//! `snapshot.json` (the committed report the app shows).

mod bands;
pub mod sensitivity;

pub use bands::{bands_with, BandCell, BandJob, BandQuantity, Bands, Wide, MAX_BANDS, WIDE_HALF_PCT};

use crate::calibrate::tables::{budget_violations, TableCheck, TableSpec, Verdict};
use crate::calibrate::{par_map, Progress};
use crate::experiment::Experiment;
use crate::output::{render_grid, MODEL_VERSION};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The committed `skblab validate --format json` (all experiments, the default seeds).
pub const SNAPSHOT_JSON: &str = include_str!("snapshot.json");

/// One table's figures, as `skblab validate` prints them (percentages; `None` where a figure
/// does not apply). Field names are a contract (the snapshot, the CLI's JSON and the
/// Validation page read them): keep them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    pub experiment: String,
    pub table: String,
    pub title: String,
    pub verdict: Verdict,
    /// Independent numbers the table is scored on.
    pub targets: u32,
    /// Constants fitted to it (joint fits counted for every table they use).
    pub fitted: u32,
    pub fitted_constants: Vec<String>,
    pub in_sample_mape: Option<f64>,
    pub out_of_sample_mape: Option<f64>,
    pub curve_mape: Option<f64>,
    /// Signed error of each number, one line each (held-out ones contain `held-out`).
    pub errors: Vec<String>,
    /// Known gaps, one line each.
    pub gaps: Vec<String>,
    /// Hand-set constants whose ±10 % moves a compared number as much as a fitted constant's:
    /// counted as fitted (in `fitted` and in the budget), [`sensitivity`].
    #[serde(default)]
    pub counted_as_fitted: Vec<String>,
}

impl TableReport {
    /// The report of `spec` from what its experiment measured (`None`: nothing measured).
    pub fn new(spec: &TableSpec, check: Option<TableCheck>) -> TableReport {
        let measured = check.is_some();
        let check = check.unwrap_or_default();
        let mut gaps = check.gaps;
        if !measured {
            gaps.push("no figures: the experiment's check_table does not measure this table yet".to_string());
        }
        TableReport {
            experiment: spec.experiment.to_string(),
            table: spec.table.to_string(),
            title: spec.title.to_string(),
            verdict: spec.verdict(),
            targets: spec.targets,
            fitted: spec.fitted.len() as u32,
            fitted_constants: spec.fitted.iter().map(|c| c.to_string()).collect(),
            in_sample_mape: check.in_sample_mape,
            // Nothing was fitted to a prediction: its error on its own numbers is out of sample.
            out_of_sample_mape: match (spec.verdict(), check.out_of_sample_mape) {
                (Verdict::Prediction, None) => check.in_sample_mape,
                (_, oos) => oos,
            },
            curve_mape: check.curve_mape,
            errors: check.errors,
            gaps,
            counted_as_fitted: Vec::new(),
        }
    }

    /// Adds the hand-set constants that count as fitted (see [`sensitivity`]).
    fn count_as_fitted(&mut self, names: &[String]) {
        if names.is_empty() || self.verdict != Verdict::Fit {
            return;
        }
        self.counted_as_fitted = names.to_vec();
        self.fitted = (self.fitted_constants.len() + names.len()) as u32;
        self.gaps.push(format!(
            "counted as fitted: {} (hand-set, but ±10 % of each moves a number as much as a fitted constant's)",
            names.join(", ")
        ));
    }

    /// Degrees of freedom in words: "12 numbers, 0 fitted" / "60 numbers, 3 fitted: a, b, c",
    /// the count with the hand-set constants counted as fitted, as the summary's `fitted`
    /// column and the pages say it: "60 numbers, 13 fitted: a, b, c, d, and 9 hand-set counted
    /// as fitted (skblab validate)".
    pub fn dof(&self) -> String {
        counted_text(self.targets, &self.fitted_constants, self.counted_as_fitted.len())
    }
}

/// Whether an error line is about a held-out number (not used by the fit it is scored after).
pub fn is_held_out(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("held-out") || l.contains("held out")
}

fn dof_text<S: AsRef<str>>(targets: u32, fitted: &[S]) -> String {
    let names: Vec<&str> = fitted.iter().map(AsRef::as_ref).collect();
    let numbers = if targets == 1 { "1 number".to_string() } else { format!("{targets} numbers") };
    match names.len() {
        0 => format!("{numbers}, 0 fitted"),
        n => format!("{numbers}, {n} fitted: {}", names.join(", ")),
    }
}

/// `dof_text` with the hand-set constants `skblab validate` counts as fitted for their
/// influence (the committed snapshot's, as the Validation page shows them): "60 numbers, 13
/// fitted: a, b, c, d, and 9 hand-set counted as fitted (skblab validate)".
fn dof_text_counted<S: AsRef<str>>(table: &str, targets: u32, fitted: &[S]) -> String {
    let counted = snapshot()
        .ok()
        .and_then(|v| v.tables.into_iter().find(|r| r.table == table))
        .map_or(0, |r| r.counted_as_fitted.len());
    counted_text(targets, fitted, counted)
}

/// `dof_text` with `counted` hand-set constants counted as fitted on top.
fn counted_text<S: AsRef<str>>(targets: u32, fitted: &[S], counted: usize) -> String {
    if counted == 0 || fitted.is_empty() {
        return dof_text(targets, fitted);
    }
    let numbers = if targets == 1 { "1 number".to_string() } else { format!("{targets} numbers") };
    format!(
        "{numbers}, {} fitted: {}, and {counted} hand-set counted as fitted (skblab validate)",
        fitted.len() + counted,
        fitted.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
    )
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub model_version: String,
    /// Seeds the figures average over.
    pub seeds: Vec<u64>,
    /// Groups of tables over the fitting budget, registry-wide (empty: within budget).
    pub budget_violations: Vec<String>,
    pub tables: Vec<TableReport>,
}

/// Every table of `registry` (the experiments the caller passes).
pub fn registry_tables(registry: &[&dyn Experiment]) -> Vec<TableSpec> {
    registry.iter().flat_map(|e| e.tables()).collect()
}

/// The report over the tables of `exps` (all of `registry`, or some of its experiments), each
/// measured on the mean over `seeds`; the budget line is over every table of `registry`.
/// `progress` hears one line as each table starts (the work is what each `check_table` does).
/// The tables, and the sensitivity of each experiment with a fitted table, are measured side by
/// side ([`par_map`]); the report is assembled in table order, the same whatever the threads.
pub fn validate_with(
    registry: &[&dyn Experiment],
    exps: &[&dyn Experiment],
    seeds: &[u64],
    progress: Progress<'_>,
) -> Validation {
    let specs: Vec<(&dyn Experiment, TableSpec)> =
        exps.iter().flat_map(|e| e.tables().into_iter().map(|t| (*e, t))).collect();
    let n = specs.len();
    let progress = std::sync::Mutex::new(progress);
    let say = |line: String| {
        if let Ok(mut p) = progress.lock() {
            p(&line);
        }
    };
    // Each experiment with a fitted table, once, in table order: its hand-set constants' ±10 %.
    let mut fit_exps: Vec<&dyn Experiment> = Vec::new();
    for (e, spec) in &specs {
        if spec.verdict() == Verdict::Fit && !fit_exps.iter().any(|f| f.id() == e.id()) {
            fit_exps.push(*e);
        }
    }
    let indexed: Vec<usize> = (0..n).collect();
    let checks = par_map(&indexed, |&i| {
        let (e, spec) = &specs[i];
        say(format!("table {}/{n}: {} {} ({})", i + 1, e.id(), spec.table, spec.verdict().name()));
        e.check_table(spec.table, seeds)
    });
    let counted: Vec<(&str, Vec<String>)> = par_map(&fit_exps, |e| {
        say(format!("  ±10 % of each of {} constants of {} (2 runs each)", e.uncertain().len(), e.id()));
        let fitted: Vec<&str> = e.tables().iter().flat_map(|t| t.fitted.clone()).collect();
        let seed = seeds.first().copied().unwrap_or(1);
        let names = sensitivity::influences(*e, &fitted, seed)
            .map(|inf| sensitivity::counted_as_fitted(&inf))
            .unwrap_or_default();
        (e.id(), names)
    });
    let mut tables: Vec<TableReport> = Vec::new();
    for ((e, spec), check) in specs.iter().zip(checks) {
        let mut report = TableReport::new(spec, check);
        if spec.verdict() == Verdict::Fit {
            let names = &counted.iter().find(|(id, _)| *id == e.id()).expect("bug: a fit experiment unmeasured").1;
            report.count_as_fitted(names);
        }
        tables.push(report);
    }
    // The budget counts the hand-set constants that count as fitted.
    let mut all = registry_tables(registry);
    for t in all.iter_mut().filter(|t| t.verdict() == Verdict::Fit) {
        if let Some((_, names)) = counted.iter().find(|(id, _)| *id == t.experiment) {
            for name in names {
                let name: &'static str = registry
                    .iter()
                    .flat_map(|e| e.uncertain())
                    .map(|(n, _)| n)
                    .find(|n| n == name)
                    .unwrap_or("counted-as-fitted");
                t.fitted.push(name);
            }
        }
    }
    Validation {
        model_version: MODEL_VERSION.to_string(),
        seeds: seeds.to_vec(),
        budget_violations: budget_violations(&all),
        tables,
    }
}

/// The committed report ([`SNAPSHOT_JSON`]).
pub fn snapshot() -> Result<Validation, String> {
    serde_json::from_str(SNAPSHOT_JSON).map_err(|e| format!("unreadable validation snapshot: {e}"))
}

/// "1..=5" for consecutive seeds, else a comma list.
fn seed_list(seeds: &[u64]) -> String {
    match seeds {
        [first, .., last] if seeds.windows(2).all(|w| w[1] == w[0].wrapping_add(1)) => format!("{first}..={last}"),
        _ => seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.2} %"))
}

fn csv_pct(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v:.3}"))
}

impl Validation {
    /// The budget in one line.
    pub fn budget_line(&self) -> String {
        if self.budget_violations.is_empty() {
            format!(
                "budget: within (at most one fitted constant per {} independent numbers, registry-wide)",
                crate::calibrate::tables::NUMBERS_PER_FIT
            )
        } else {
            format!("budget: {} violation(s): {}", self.budget_violations.len(), self.budget_violations.join("; "))
        }
    }

    pub fn to_table(&self) -> String {
        let mut out =
            format!("# skblab validate — model {}, mean over seeds {}\n", self.model_version, seed_list(&self.seeds));
        let header: Vec<String> =
            ["table", "experiment", "verdict", "targets", "fitted", "in-sample", "out-of-sample", "curve"]
                .map(String::from)
                .to_vec();
        let body: Vec<Vec<String>> = self
            .tables
            .iter()
            .map(|t| {
                vec![
                    t.table.clone(),
                    t.experiment.clone(),
                    t.verdict.name().to_string(),
                    t.targets.to_string(),
                    t.fitted.to_string(),
                    pct(t.in_sample_mape),
                    pct(t.out_of_sample_mape),
                    pct(t.curve_mape),
                ]
            })
            .collect();
        out.push_str(&render_grid(&header, &body));
        let _ = writeln!(out, "{}", self.budget_line());
        for t in &self.tables {
            let _ = writeln!(out, "\n## {} ({}): {}", t.table, t.experiment, t.title);
            let _ = writeln!(out, "verdict {}: {}", t.verdict.name(), t.verdict.explain());
            let _ = writeln!(out, "degrees of freedom: {}", t.dof());
            for e in &t.errors {
                let _ = writeln!(out, "  error {e}");
            }
            for g in &t.gaps {
                let _ = writeln!(out, "  gap: {g}");
            }
        }
        out
    }

    /// One line per table (fitted constants joined by `;`, errors and gaps left out).
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "experiment,table,verdict,targets,fitted,fitted_constants,in_sample_mape,out_of_sample_mape,curve_mape\n",
        );
        for t in &self.tables {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                t.experiment,
                t.table,
                t.verdict.name(),
                t.targets,
                t.fitted,
                t.fitted_constants.join(";"),
                csv_pct(t.in_sample_mape),
                csv_pct(t.out_of_sample_mape),
                csv_pct(t.curve_mape)
            );
        }
        s
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("validation serializes")
    }

    /// The tables' structure (experiment, table, verdict, targets, fitted constants), what a
    /// snapshot must share with the registry.
    pub fn structure(&self) -> Vec<(String, String, Verdict, u32, Vec<String>)> {
        self.tables
            .iter()
            .map(|t| (t.experiment.clone(), t.table.clone(), t.verdict, t.targets, t.fitted_constants.clone()))
            .collect()
    }
}

/// The verdict lines `skblab reproduce <id>` prints under the error: one per table of `exp`.
pub fn verdict_lines(exp: &dyn Experiment) -> String {
    let mut s = String::new();
    for t in exp.tables() {
        let v = t.verdict();
        let _ = writeln!(
            s,
            "verdict {} {}: {} ({}) — {}",
            t.table,
            v.name(),
            dof_text_counted(t.table, t.targets, &t.fitted),
            t.title,
            v.explain()
        );
    }
    s
}

/// The same as JSON values (`table`, `verdict`, `targets`, `fitted`, `fitted_constants`).
pub fn verdict_json(exp: &dyn Experiment) -> serde_json::Value {
    exp.tables()
        .iter()
        .map(|t| {
            serde_json::json!({
                "table": t.table, "title": t.title, "verdict": t.verdict(), "targets": t.targets,
                "fitted": t.fitted.len(), "fitted_constants": t.fitted,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_without_figures_says_so_and_counts_its_constants() {
        let spec =
            TableSpec { experiment: "x", table: "t", title: "", targets: 6, arithmetic: false, fitted: vec!["a", "b"] };
        let r = TableReport::new(&spec, None);
        assert_eq!((r.verdict, r.fitted, r.in_sample_mape), (Verdict::Fit, 2, None));
        assert!(r.gaps[0].starts_with("no figures"));
        assert_eq!(r.dof(), "6 numbers, 2 fitted: a, b");
        // The count the summary's `fitted` column gives, hand-set constants counted as fitted in.
        let mut r = r;
        r.count_as_fitted(&["c".to_string()]);
        assert_eq!(
            (r.fitted, r.dof()),
            (3, "6 numbers, 3 fitted: a, b, and 1 hand-set counted as fitted (skblab validate)".to_string())
        );
        assert!(is_held_out("flows 20 Gbit/s (held-out): -3.1 %") && !is_held_out("flows 20: +1 %"));
    }

    #[test]
    fn json_keeps_the_contracts_names() {
        let v = Validation {
            model_version: "0".into(),
            seeds: vec![1],
            budget_violations: vec![],
            tables: vec![TableReport::new(
                &TableSpec { experiment: "x", table: "t", title: "", targets: 3, arithmetic: true, fitted: vec![] },
                Some(TableCheck { in_sample_mape: Some(0.0), ..TableCheck::default() }),
            )],
        };
        let j: serde_json::Value = serde_json::from_str(&v.to_json()).unwrap();
        let t = &j["tables"][0];
        for k in [
            "experiment",
            "table",
            "verdict",
            "targets",
            "fitted",
            "in_sample_mape",
            "out_of_sample_mape",
            "curve_mape",
        ] {
            assert!(t.get(k).is_some(), "missing {k}");
        }
        assert_eq!(t["verdict"], "arithmetic");
        assert!(t["out_of_sample_mape"].is_null());
        assert!(j.get("model_version").is_some());
    }
}
