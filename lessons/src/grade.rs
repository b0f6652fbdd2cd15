//! Model-backed grading of questions and checking of claims: the answer is whatever the
//! experiment computes under the question's (or claim's) parameters and the default seed.
//!
//! Parameters are parsed once per run, not per question: [`Runs`] keeps each run by
//! (experiment, parameters, seed), so the questions and claims of a lesson that share
//! settings, and every choice of a choice question, are graded from one run of the model.

use crate::model::{Claim, Question, QuestionKind};
use crate::numbers::{fmt_value, unit_factor, unit_family, unit_scale};
use skblab_core::{Experiment, Params, RunOutput, DEFAULT_SEED};
use std::collections::BTreeMap;

/// Runs of the model by (experiment, parameters, seed): a run asked for twice is computed
/// once. A run is a pure function of those three, so a reused run is the run.
#[derive(Debug, Default)]
pub struct Runs {
    outputs: BTreeMap<(String, String, u64), RunOutput>,
}

impl Runs {
    pub fn new() -> Runs {
        Runs::default()
    }

    /// The output of `experiment` under `params` and `seed`, run on the first request.
    pub fn output(&mut self, experiment: &dyn Experiment, params: &Params, seed: u64) -> &RunOutput {
        // The wire form holds every value and which were set explicitly: all a run depends on.
        let key = (experiment.id().to_string(), format!("{:?}", params.to_wire()), seed);
        self.outputs.entry(key).or_insert_with(|| experiment.run(params, seed))
    }

    /// How many distinct runs were computed.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }
}

/// The verdict on one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    pub correct: bool,
    /// The model's value, e.g. `488` ("?" if the model has none).
    pub expected: String,
    /// The model's value with its unit, e.g. `488 bytes`.
    pub expected_with_unit: String,
    /// Why the answer could not be graded (not a number, not a unit of this answer, no model
    /// value), one line; empty when it was graded. An ungraded answer is not a try.
    pub problem: String,
    /// For a wrong number: `"higher"` or `"lower"`, where the model's value lies from the answer.
    pub direction: Option<&'static str>,
}

/// What an explanation writes for the question's own model answer: filled when the page shows
/// the explanation, with the value the verdict line gives ("The model says 3.39 %"), so the
/// text cannot drift from the model. The one placeholder the page fills; the model numbers
/// of the text (`{metric@settings}`, src/numbers.rs) are filled at build time.
pub const ANSWER: &str = "{answer}";

/// The placeholders lesson text may use (see [`ANSWER`]).
pub const PLACEHOLDERS: &[&str] = &[ANSWER];

/// Every `{…}` of `text`, braces included (an unclosed one runs to the end): what the lessons
/// checker compares with [`PLACEHOLDERS`].
pub fn placeholders_in(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let end = rest[start..].find('}').map_or(rest.len(), |i| start + i + 1);
        found.push(&rest[start..end]);
        rest = &rest[end..];
    }
    found
}

/// `base` with `overrides` applied on top (validated).
pub fn apply_settings(
    experiment: &dyn Experiment,
    base: &Params,
    overrides: &[(String, String)],
) -> Result<Params, String> {
    if experiment.id() != base.experiment() {
        return Err(format!("parameters of '{}' applied to experiment '{}'", base.experiment(), experiment.id()));
    }
    let mut p = base.clone();
    for (name, value) in overrides {
        p.set_text(name, value).map_err(|e| e.to_string())?;
    }
    Ok(p)
}

fn metric_of(out: &RunOutput, metric: &str, row: &Option<(String, f64)>) -> Option<f64> {
    out.metric(metric, row.as_ref().map(|(k, v)| (k.as_str(), *v)))
}

impl Question {
    /// Grades `answer` by running the model with `current` (overridden by the question's own
    /// params) and comparing to the metric.
    pub fn grade(&self, experiment: &dyn Experiment, current: &Params, answer: &str) -> Grade {
        self.grade_in(&mut Runs::new(), experiment, current, answer)
    }

    /// [`Question::grade`] with the run taken from (or added to) `runs`.
    pub fn grade_in(&self, runs: &mut Runs, experiment: &dyn Experiment, current: &Params, answer: &str) -> Grade {
        let unit = self.column_unit(experiment, current);
        self.grade_value(self.expected_in(runs, experiment, current), &unit, answer)
    }

    /// The unit of the question's metric column (the model's values are in it).
    pub fn column_unit(&self, experiment: &dyn Experiment, current: &Params) -> String {
        let columns = experiment.columns(current);
        columns.into_iter().find(|c| c.name == self.metric).map(|c| c.unit).unwrap_or_default()
    }

    /// The unit the learner answers in (shown beside the answer box): the question's own, if
    /// the views show the metric in another unit than its column, else the column's.
    pub fn answer_unit(&self, column_unit: &str) -> String {
        if self.unit.is_empty() {
            column_unit.to_string()
        } else {
            self.unit.clone()
        }
    }

    /// The parameters the question is graded under: `current` with the question's own on top.
    pub fn params_for(&self, experiment: &dyn Experiment, current: &Params) -> Option<Params> {
        apply_settings(experiment, current, &self.params).ok()
    }

    /// The model's value of the metric (runs the experiment once).
    pub fn expected(&self, experiment: &dyn Experiment, current: &Params) -> Option<f64> {
        self.expected_in(&mut Runs::new(), experiment, current)
    }

    /// [`Question::expected`] with the run taken from (or added to) `runs`.
    pub fn expected_in(&self, runs: &mut Runs, experiment: &dyn Experiment, current: &Params) -> Option<f64> {
        let p = self.params_for(experiment, current)?;
        metric_of(runs.output(experiment, &p, DEFAULT_SEED), &self.metric, &self.row)
    }

    /// Grades `answer` against a model value computed elsewhere (e.g. by a Web Worker's sweep
    /// of the same parameters and seed), in `unit` (the metric's column unit; the answer may
    /// use another unit of the same kind, see [`parse_answer`]).
    pub fn grade_value(&self, expected: Option<f64>, column_unit: &str, answer: &str) -> Grade {
        // The model's value in the unit the learner answers in.
        let unit = self.answer_unit(column_unit);
        let unit = unit.as_str();
        let expected = expected.map(|v| v * unit_factor(column_unit, unit).unwrap_or(1.0));
        let Some(expected) = expected else {
            return Grade {
                correct: false,
                expected: "?".to_string(),
                expected_with_unit: "?".to_string(),
                problem: format!("the model has no value for '{}' here", self.metric),
                direction: None,
            };
        };
        let with_unit = if unit.is_empty() { fmt_value(expected) } else { format!("{} {unit}", fmt_value(expected)) };
        let a = match parse_answer(answer, unit) {
            Ok(a) => a,
            Err(problem) => {
                return Grade {
                    correct: false,
                    expected: fmt_value(expected),
                    expected_with_unit: with_unit,
                    problem,
                    direction: None,
                }
            }
        };
        let correct = match &self.kind {
            QuestionKind::Number { tolerance_pct } => {
                (a - expected).abs() <= expected.abs() * tolerance_pct / 100.0 + 1e-9
            }
            QuestionKind::Choice { .. } => (a - expected).abs() < 1e-9,
        };
        let direction = match &self.kind {
            QuestionKind::Number { .. } if !correct => Some(if expected > a { "higher" } else { "lower" }),
            _ => None,
        };
        Grade {
            correct,
            expected: fmt_value(expected),
            expected_with_unit: with_unit,
            problem: String::new(),
            direction,
        }
    }

    /// The explanation as shown once the question is settled: [`ANSWER`] filled with the
    /// model's value in the answer's unit, as `g`'s verdict gives it ("the model's value" if
    /// the model has none).
    pub fn explanation_for(&self, g: &Grade) -> String {
        let answer = if g.expected == "?" { "the model's value" } else { g.expected_with_unit.as_str() };
        self.explanation.replace(ANSWER, answer)
    }

    /// The choice that is right under `current`, if this is a choice question (one run of
    /// the model for all the choices).
    pub fn correct_choices(&self, experiment: &dyn Experiment, current: &Params) -> Vec<String> {
        self.correct_choices_in(&mut Runs::new(), experiment, current)
    }

    /// [`Question::correct_choices`] with the run taken from (or added to) `runs`.
    pub fn correct_choices_in(&self, runs: &mut Runs, experiment: &dyn Experiment, current: &Params) -> Vec<String> {
        match &self.kind {
            QuestionKind::Choice { choices } => {
                choices.iter().filter(|c| self.grade_in(runs, experiment, current, c).correct).cloned().collect()
            }
            QuestionKind::Number { .. } => Vec::new(),
        }
    }
}

/// Reads a learner's answer in the view's `unit`: a finite number with optional thousands
/// separators (`630,000`, `630 000`, `630_000`), an optional multiplier (`630k`, `1.2M`,
/// `3G`) or a unit of the same kind (`630 Gbit/s` where the view shows Mbit/s, `2 KiB` where
/// it shows bytes), `true`/`false`/`yes`/`no`. Errors are one line saying what was expected.
pub fn parse_answer(answer: &str, unit: &str) -> Result<f64, String> {
    let text = answer.trim();
    if let Some(v) = bool_text(text) {
        return Ok(v);
    }
    let shown: String = text.chars().take(40).collect();
    let bad = || {
        let in_unit = if unit.is_empty() { String::new() } else { format!(" in {unit}") };
        format!("'{shown}' is not a number{in_unit} (e.g. 630000, 630,000 or 630k)")
    };
    // The number: digits, sign, decimal point, an exponent, and separators between digits.
    let chars: Vec<char> = text.chars().collect();
    let mut end = 0;
    while end < chars.len() {
        let c = chars[end];
        let next_is_digit = chars.get(end + 1).is_some_and(|n| n.is_ascii_digit() || *n == '-' || *n == '+');
        let ok = c.is_ascii_digit()
            || c == '.'
            || ((c == '-' || c == '+') && (end == 0 || matches!(chars[end - 1], 'e' | 'E')))
            || ((c == 'e' || c == 'E') && end > 0 && next_is_digit)
            || ((c == ',' || c == '_' || c == ' ') && end > 0 && chars[end - 1].is_ascii_digit() && next_is_digit);
        if !ok {
            break;
        }
        end += 1;
    }
    let number: String = chars[..end].iter().filter(|c| !matches!(c, ',' | '_' | ' ')).collect();
    let value: f64 = number.parse().map_err(|_| bad())?;
    if !value.is_finite() {
        return Err(format!("'{shown}' is not a finite number"));
    }
    let suffix = chars[end..].iter().collect::<String>().trim().to_ascii_lowercase();
    let unit_lc = unit.to_ascii_lowercase();
    let factor = match suffix.as_str() {
        "" => 1.0,
        s if s == unit_lc => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        s => match (unit_scale(s), unit_scale(&unit_lc), unit_family(s), unit_family(&unit_lc)) {
            (Some(a), Some(b), Some(fa), Some(fb)) if fa == fb => a / b,
            _ => {
                let expected =
                    if unit.is_empty() { "no unit".to_string() } else { format!("{unit} or a unit of its kind") };
                return Err(format!("'{s}' is not a unit of this answer: expected {expected}"));
            }
        },
    };
    Ok(value * factor)
}

fn bool_text(text: &str) -> Option<f64> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" => Some(1.0),
        "false" | "no" => Some(0.0),
        _ => None,
    }
}

impl Claim {
    /// Runs the experiment with the claim's settings; `Err` says what the model gave instead.
    pub fn check(&self, experiment: &dyn Experiment) -> Result<f64, String> {
        self.check_in(&mut Runs::new(), experiment)
    }

    /// [`Claim::check`] with the run taken from (or added to) `runs`.
    pub fn check_in(&self, runs: &mut Runs, experiment: &dyn Experiment) -> Result<f64, String> {
        let base = experiment.defaults();
        let p = apply_settings(experiment, &base, &self.params)?;
        let v = metric_of(runs.output(experiment, &p, DEFAULT_SEED), &self.metric, &self.row)
            .ok_or_else(|| format!("claim '{}': no metric '{}' in the output", self.text, self.metric))?;
        let lo_ok = self.min.is_none_or(|m| v >= m - 1e-9);
        let hi_ok = self.max.is_none_or(|m| v <= m + 1e-9);
        if lo_ok && hi_ok {
            Ok(v)
        } else {
            Err(format!(
                "claim '{}': {} = {} is outside [{}, {}]",
                self.text,
                self.metric,
                fmt_value(v),
                self.min.map_or("-inf".to_string(), fmt_value),
                self.max.map_or("+inf".to_string(), fmt_value)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_answer;

    #[test]
    fn small_values_keep_two_significant_digits() {
        use crate::numbers::fmt_value;
        assert_eq!(fmt_value(488.0), "488");
        assert_eq!(fmt_value(46.399), "46.40");
        assert_eq!(fmt_value(0.781), "0.78");
        assert_eq!(fmt_value(0.0451), "0.045");
        assert_eq!(fmt_value(0.00312), "0.0031");
        assert_eq!(fmt_value(-0.0451), "-0.045");
    }

    #[test]
    fn answers_take_separators_multipliers_and_units_of_the_same_kind() {
        assert_eq!(parse_answer("630000", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer(" 630,000 ", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630 000", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630_000", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630k", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630 Gbit/s", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630 gbit/s", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("630000 Mbit/s", "Mbit/s"), Ok(630_000.0));
        assert_eq!(parse_answer("2 KiB", "bytes"), Ok(2048.0));
        assert_eq!(parse_answer("488 B", "bytes"), Ok(488.0));
        assert_eq!(parse_answer("-16", "bytes"), Ok(-16.0));
        assert_eq!(parse_answer("1.5e3", ""), Ok(1500.0));
        assert_eq!(parse_answer("yes", ""), Ok(1.0));
        assert_eq!(parse_answer("9 flows", "flows"), Ok(9.0));
    }

    #[test]
    fn non_numbers_non_finite_values_and_foreign_units_are_one_line_errors() {
        for bad in ["NaN", "Infinity", "inf", "", "abc", "1e999", "630 Gbit/s", "12 parsecs"] {
            let unit = if bad == "630 Gbit/s" { "bytes" } else { "Mbit/s" };
            let e = parse_answer(bad, unit).unwrap_err();
            assert!(!e.contains('\n') && e.len() < 160, "{bad}: {e}");
        }
        assert!(parse_answer("630 Gbit/s", "bytes").unwrap_err().contains("bytes"));
        assert!(parse_answer("1e999", "").unwrap_err().contains("finite"));
    }
}

#[cfg(test)]
mod answer_unit_tests {
    use crate::model::{Question, QuestionKind};

    fn q(unit: &str) -> Question {
        Question {
            prompt: "p".into(),
            metric: "order3_mbps".into(),
            kind: QuestionKind::Number { tolerance_pct: 10.0 },
            explanation: String::new(),
            params: vec![],
            row: None,
            hint: String::new(),
            hides: vec![],
            unit: unit.into(),
        }
    }

    #[test]
    fn answers_are_read_in_the_unit_the_views_show() {
        let g = q("Gbit/s").grade_value(Some(44_000.0), "Mbit/s", "44");
        assert!(g.correct, "44 means 44 Gbit/s when the chart shows Gbit/s: {g:?}");
        assert_eq!(g.expected_with_unit, "44 Gbit/s");
        assert!(q("Gbit/s").grade_value(Some(44_000.0), "Mbit/s", "44000 Mbit/s").correct);
        assert!(!q("").grade_value(Some(44_000.0), "Mbit/s", "44").correct, "without the unit, 44 is Mbit/s");
    }

    #[test]
    fn the_explanation_gives_the_answer_as_the_verdict_does() {
        let mut q = q("Gbit/s");
        q.explanation = "{answer} in the model (the seed measured 50 Gbit/s).".into();
        let g = q.grade_value(Some(42_861.0), "Mbit/s", "");
        assert_eq!(q.explanation_for(&g), "42.86 Gbit/s in the model (the seed measured 50 Gbit/s).");
        let none = q.grade_value(None, "Mbit/s", "40");
        assert_eq!(q.explanation_for(&none), "the model's value in the model (the seed measured 50 Gbit/s).");
        let text = "{answer}, not {answr} nor {metric@x} or {";
        assert_eq!(super::placeholders_in(text), ["{answer}", "{answr}", "{metric@x}", "{"]);
    }

    #[test]
    fn a_wrong_number_says_which_way_and_a_non_number_is_no_try() {
        let g = q("").grade_value(Some(100.0), "bytes", "50");
        assert_eq!((g.correct, g.direction, g.problem.as_str()), (false, Some("higher"), ""));
        assert_eq!(q("").grade_value(Some(100.0), "bytes", "500").direction, Some("lower"));
        let g = q("").grade_value(Some(100.0), "bytes", "lots");
        assert!(!g.correct && g.direction.is_none() && g.problem.contains("not a number"), "{g:?}");
    }
}
