//! Model-backed grading of questions and checking of claims: the answer is whatever the
//! experiment computes under the question's (or claim's) parameters and the default seed.

use crate::model::{Claim, Question, QuestionKind};
use skblab_core::{Experiment, Params, RunOutput, DEFAULT_SEED};

/// The verdict on one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    pub correct: bool,
    pub expected: String,
    pub message: String,
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

fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

impl Question {
    /// Grades `answer` by running the model with `current` (overridden by the question's own
    /// params) and comparing to the metric.
    pub fn grade(&self, experiment: &dyn Experiment, current: &Params, answer: &str) -> Grade {
        self.grade_value(self.expected(experiment, current), answer)
    }

    /// The parameters the question is graded under: `current` with the question's own on top.
    pub fn params_for(&self, experiment: &dyn Experiment, current: &Params) -> Option<Params> {
        apply_settings(experiment, current, &self.params).ok()
    }

    /// The model's value of the metric (runs the experiment once).
    pub fn expected(&self, experiment: &dyn Experiment, current: &Params) -> Option<f64> {
        let p = self.params_for(experiment, current)?;
        metric_of(&experiment.run(&p, DEFAULT_SEED), &self.metric, &self.row)
    }

    /// Grades `answer` against a model value computed elsewhere (e.g. by a Web Worker's sweep
    /// of the same parameters and seed).
    pub fn grade_value(&self, expected: Option<f64>, answer: &str) -> Grade {
        let Some(expected) = expected else {
            return Grade {
                correct: false,
                expected: "?".to_string(),
                message: format!("the model has no value for '{}' here", self.metric),
            };
        };
        let Some(a) = answer.trim().parse::<f64>().ok().or_else(|| bool_text(answer)) else {
            return Grade {
                correct: false,
                expected: fmt_value(expected),
                message: format!("'{}' is not a number", answer.trim()),
            };
        };
        let correct = match &self.kind {
            QuestionKind::Number { tolerance_pct } => {
                (a - expected).abs() <= expected.abs() * tolerance_pct / 100.0 + 1e-9
            }
            QuestionKind::Choice { .. } => (a - expected).abs() < 1e-9,
        };
        let message =
            if correct { "Right.".to_string() } else { format!("Not quite: the model says {}.", fmt_value(expected)) };
        Grade { correct, expected: fmt_value(expected), message }
    }

    /// The choice that is right under `current`, if this is a choice question.
    pub fn correct_choices(&self, experiment: &dyn Experiment, current: &Params) -> Vec<String> {
        match &self.kind {
            QuestionKind::Choice { choices } => {
                choices.iter().filter(|c| self.grade(experiment, current, c).correct).cloned().collect()
            }
            QuestionKind::Number { .. } => Vec::new(),
        }
    }
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
        let base = experiment.defaults();
        let p = apply_settings(experiment, &base, &self.params)?;
        let v = metric_of(&experiment.run(&p, DEFAULT_SEED), &self.metric, &self.row)
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
