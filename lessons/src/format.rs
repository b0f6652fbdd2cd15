//! Parsing of `index.toml` and of lesson files (TOML front matter + one `## ` section per
//! step), and the model-backed grading of questions and checking of claims.

use serde::Deserialize;
use skblab_core::{Experiment, Params, RunOutput, DEFAULT_SEED};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Written,
    Coming,
}

/// One lesson of the course index.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct IndexEntry {
    pub slug: String,
    pub title: String,
    pub experiment: String,
    pub seed: String,
    pub status: Status,
    pub summary: String,
}

#[derive(Deserialize)]
struct IndexFile {
    lesson: Vec<IndexEntry>,
}

/// Parses the course index.
pub fn parse_index(text: &str) -> Result<Vec<IndexEntry>, String> {
    toml::from_str::<IndexFile>(text).map(|f| f.lesson).map_err(|e| e.to_string())
}

/// A predict-then-check question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub prompt: String,
    /// A column of the experiment's output.
    pub metric: String,
    pub kind: QuestionKind,
    pub explanation: String,
    /// Settings that override the learner's current ones when grading.
    pub params: Vec<(String, String)>,
    /// For table outputs: the row whose `key` column equals the value.
    pub row: Option<(String, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    Number { tolerance_pct: f64 },
    Choice { choices: Vec<String> },
}

/// The verdict on one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    pub correct: bool,
    pub expected: String,
    pub message: String,
}

/// One step of a lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub title: String,
    pub body_markdown: String,
    pub params: Vec<(String, String)>,
    pub views: Vec<String>,
    pub question: Option<Question>,
}

/// A statement of the lesson text, checked against the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub text: String,
    pub params: Vec<(String, String)>,
    pub metric: String,
    pub row: Option<(String, f64)>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    pub slug: String,
    pub title: String,
    pub experiment: String,
    pub summary: String,
    pub sources: Vec<String>,
    pub steps: Vec<Step>,
    pub claims: Vec<Claim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: String,
    experiment: String,
    summary: String,
    #[serde(default)]
    sources: Vec<String>,
    steps: Vec<RawStep>,
    #[serde(default)]
    claims: Vec<RawClaim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    title: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    #[serde(default)]
    views: Vec<String>,
    question: Option<RawQuestion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuestion {
    prompt: String,
    metric: String,
    kind: String,
    #[serde(default)]
    tolerance_pct: f64,
    #[serde(default)]
    choices: Vec<String>,
    #[serde(default)]
    explanation: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    row: Option<BTreeMap<String, f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    text: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    metric: String,
    row: Option<BTreeMap<String, f64>>,
    equals: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
}

/// `name = value` pairs as `--set` text (strings without quotes).
fn settings(table: BTreeMap<String, toml::Value>) -> Vec<(String, String)> {
    table
        .into_iter()
        .map(|(k, v)| {
            let text = match v {
                toml::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, text)
        })
        .collect()
}

fn row(raw: Option<BTreeMap<String, f64>>) -> Result<Option<(String, f64)>, String> {
    match raw {
        None => Ok(None),
        Some(m) if m.len() == 1 => Ok(m.into_iter().next()),
        Some(_) => Err("a `row` selects one key column, e.g. row = { threads = 9 }".to_string()),
    }
}

/// Parses a lesson file: `+++` TOML front matter `+++`, then `## ` sections, one per step.
pub fn parse_lesson(slug: &str, text: &str) -> Result<Lesson, String> {
    let rest = text.strip_prefix("+++\n").ok_or("the file must start with a `+++` line")?;
    let end = rest.find("\n+++\n").ok_or("the front matter must end with a `+++` line")?;
    let (front, body) = (&rest[..end + 1], &rest[end + 5..]);
    let fm: FrontMatter = toml::from_str(front).map_err(|e| format!("front matter: {e}"))?;
    let sections = split_sections(body);
    if sections.len() != fm.steps.len() {
        return Err(format!("{} `## ` sections but {} [[steps]]", sections.len(), fm.steps.len()));
    }
    let steps = fm.steps.into_iter().zip(sections).map(|(s, body)| step(s, body)).collect::<Result<_, _>>()?;
    let claims = fm.claims.into_iter().map(claim).collect::<Result<_, _>>()?;
    Ok(Lesson {
        slug: slug.to_string(),
        title: fm.title,
        experiment: fm.experiment,
        summary: fm.summary,
        sources: fm.sources,
        steps,
        claims,
    })
}

fn split_sections(body: &str) -> Vec<String> {
    let mut sections: Vec<String> = Vec::new();
    for line in body.lines() {
        if line.starts_with("## ") {
            sections.push(String::new());
        } else if let Some(cur) = sections.last_mut() {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    sections.into_iter().map(|s| s.trim().to_string()).collect()
}

fn step(raw: RawStep, body_markdown: String) -> Result<Step, String> {
    let question = raw.question.map(question).transpose()?;
    Ok(Step { title: raw.title, body_markdown, params: settings(raw.params), views: raw.views, question })
}

fn question(raw: RawQuestion) -> Result<Question, String> {
    let kind = match raw.kind.as_str() {
        "number" => QuestionKind::Number { tolerance_pct: raw.tolerance_pct },
        "choice" if raw.choices.len() >= 2 => QuestionKind::Choice { choices: raw.choices },
        "choice" => return Err(format!("question '{}': a choice needs at least two choices", raw.prompt)),
        other => return Err(format!("question '{}': kind '{other}' is not number or choice", raw.prompt)),
    };
    Ok(Question {
        prompt: raw.prompt,
        metric: raw.metric,
        kind,
        explanation: raw.explanation,
        params: settings(raw.params),
        row: row(raw.row)?,
    })
}

fn claim(raw: RawClaim) -> Result<Claim, String> {
    let (min, max) = match (raw.equals, raw.min, raw.max) {
        (Some(v), None, None) => (Some(v), Some(v)),
        (None, min, max) if min.is_some() || max.is_some() => (min, max),
        _ => return Err(format!("claim '{}': give `equals`, or `min` and/or `max`", raw.text)),
    };
    Ok(Claim { text: raw.text, params: settings(raw.params), metric: raw.metric, row: row(raw.row)?, min, max })
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
