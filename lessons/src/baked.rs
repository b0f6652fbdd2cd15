//! The course as `build.rs` generated it: static data (`&'static str`, static slices) mirroring
//! the types of `model.rs`, turned into those types once, on first use.
//!
//! The static mirror keeps the wasm small: the generated file is data only, and one set of
//! conversion functions below replaces what would otherwise be code per string.

use crate::model::{self, Status};

struct IndexEntry {
    slug: &'static str,
    title: &'static str,
    experiment: &'static str,
    seed: &'static str,
    status: Status,
    summary: &'static str,
    questions: &'static [bool],
}

struct Lesson {
    slug: &'static str,
    title: &'static str,
    experiment: &'static str,
    summary: &'static str,
    sources: &'static [&'static str],
    how_we_know: HowWeKnow,
    steps: &'static [Step],
    claims: &'static [Claim],
}

struct HowWeKnow {
    kernel_html: &'static [&'static str],
    model_html: &'static [&'static str],
    seed_kernel_html: &'static [&'static str],
}

struct Step {
    title: &'static str,
    body_html: &'static str,
    params: Settings,
    views: &'static [&'static str],
    question: Option<Question>,
}

struct Question {
    prompt: &'static str,
    metric: &'static str,
    kind: QuestionKind,
    explanation: &'static str,
    params: Settings,
    row: Option<(&'static str, f64)>,
    hint: &'static str,
    hides: &'static [&'static str],
    unit: &'static str,
}

enum QuestionKind {
    Number { tolerance_pct: f64 },
    Choice { choices: &'static [&'static str] },
}

struct Claim {
    text: &'static str,
    params: Settings,
    metric: &'static str,
    row: Option<(&'static str, f64)>,
    min: Option<f64>,
    max: Option<f64>,
}

type Settings = &'static [(&'static str, &'static str)];

// `static INDEX: &[IndexEntry]` and `static LESSONS: &[Lesson]`, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/course.rs"));

/// The course index, as the app's types. Kept apart from [`lessons`] so that a binary that
/// shows only the index (the home page's small first wasm) does not link the lessons' text.
pub fn index() -> Vec<model::IndexEntry> {
    INDEX.iter().map(index_entry).collect()
}

/// The written lessons, as the app's types.
pub fn lessons() -> Vec<model::Lesson> {
    LESSONS.iter().map(lesson).collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn settings(items: Settings) -> Vec<(String, String)> {
    items.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn row(row: Option<(&str, f64)>) -> Option<(String, f64)> {
    row.map(|(k, v)| (k.to_string(), v))
}

fn index_entry(e: &IndexEntry) -> model::IndexEntry {
    model::IndexEntry {
        slug: e.slug.into(),
        title: e.title.into(),
        experiment: e.experiment.into(),
        seed: e.seed.into(),
        status: e.status,
        summary: e.summary.into(),
        questions: e.questions.to_vec(),
    }
}

fn lesson(l: &Lesson) -> model::Lesson {
    model::Lesson {
        slug: l.slug.into(),
        title: l.title.into(),
        experiment: l.experiment.into(),
        summary: l.summary.into(),
        sources: strings(l.sources),
        how_we_know: model::HowWeKnow {
            kernel_html: strings(l.how_we_know.kernel_html),
            model_html: strings(l.how_we_know.model_html),
            seed_kernel_html: strings(l.how_we_know.seed_kernel_html),
        },
        steps: l.steps.iter().map(step).collect(),
        claims: l.claims.iter().map(claim).collect(),
    }
}

fn step(s: &Step) -> model::Step {
    model::Step {
        title: s.title.into(),
        body_html: s.body_html.into(),
        params: settings(s.params),
        views: strings(s.views),
        question: s.question.as_ref().map(question),
    }
}

fn question(q: &Question) -> model::Question {
    let kind = match q.kind {
        QuestionKind::Number { tolerance_pct } => model::QuestionKind::Number { tolerance_pct },
        QuestionKind::Choice { choices } => model::QuestionKind::Choice { choices: strings(choices) },
    };
    model::Question {
        prompt: q.prompt.into(),
        metric: q.metric.into(),
        kind,
        explanation: q.explanation.into(),
        params: settings(q.params),
        row: row(q.row),
        hint: q.hint.into(),
        hides: strings(q.hides),
        unit: q.unit.into(),
    }
}

fn claim(c: &Claim) -> model::Claim {
    model::Claim {
        text: c.text.into(),
        params: settings(c.params),
        metric: c.metric.into(),
        row: row(c.row),
        min: c.min,
        max: c.max,
    }
}
