//! Parsing of `index.toml` and of lesson files (TOML front matter + one `## ` section per
//! step), and Markdown to HTML.
//!
//! Build-time code: `build.rs` and the checker (`tests/check.rs`) include this file with
//! `#[path]`, next to a module `model` holding the types of `model.rs`. The library itself never
//! parses, so the app carries neither a TOML nor a Markdown parser.

use super::model::{Claim, HowWeKnow, IndexEntry, Lesson, Question, QuestionKind, Status, Step};
use super::numbers::{parse_numbers_tsv, placeholders, NumberKey, NumberValue};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The model's values of the numbers the lesson text uses (`lessons/numbers.tsv`), by lesson.
pub type Numbers = BTreeMap<(String, NumberKey), NumberValue>;

/// What a placeholder the table has no value for shows (the checker fails on it, and
/// `SKBLAB_UPDATE=1` computes the value).
pub const NO_VALUE: &str = "⟨no model value yet⟩";

/// One `[[lesson]]` of `index.toml`. Title and summary of a written lesson live in its front
/// matter, so the index has them only for coming lessons.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    slug: String,
    experiment: String,
    seed: String,
    status: String,
    title: Option<String>,
    summary: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    lesson: Vec<RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: String,
    summary: String,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    how_we_know: RawHowWeKnow,
    /// Named settings for placeholders (`{metric@name}`), each applied on the defaults.
    #[serde(default)]
    settings: BTreeMap<String, BTreeMap<String, toml::Value>>,
    steps: Vec<RawStep>,
    #[serde(default)]
    claims: Vec<RawClaim>,
}

/// `[how_we_know]`: three lists of Markdown items (see docs/lesson-format.md).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawHowWeKnow {
    #[serde(default)]
    kernel: Vec<String>,
    #[serde(default)]
    model: Vec<String>,
    #[serde(default)]
    seed_kernel: Vec<String>,
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
    #[serde(default)]
    hint: String,
    #[serde(default)]
    hides: Vec<String>,
    #[serde(default)]
    unit: String,
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

/// The whole course from `index.toml` and the content files `read` returns (by path relative to
/// `lessons/`, e.g. `content/skb-layout.md`). Errors name the file and the problem.
pub fn load_course(
    index_toml: &str,
    read: impl Fn(&str) -> Result<String, String>,
) -> Result<(Vec<IndexEntry>, Vec<Lesson>), String> {
    let raw = toml::from_str::<IndexFile>(index_toml).map_err(|e| format!("lessons/index.toml: {e}"))?.lesson;
    let numbers = read_numbers(&read("numbers.tsv").map_err(|e| format!("lessons/numbers.tsv: {e}"))?)?;
    let mut index = Vec::new();
    let mut lessons = Vec::new();
    for entry in raw {
        let (slug, experiment, seed) = (entry.slug, entry.experiment, entry.seed);
        let at = |problem: String| format!("lessons/index.toml: lesson '{slug}': {problem}");
        if index.iter().any(|e: &IndexEntry| e.slug == slug) {
            return Err(at("the slug is listed twice".to_string()));
        }
        let (status, title, summary, questions) = match (entry.status.as_str(), entry.title, entry.summary) {
            ("written", None, None) => {
                let path = content_path(&slug);
                let text = read(&path).map_err(|e| format!("lessons/{path}: {e}"))?;
                let lesson =
                    parse_lesson(&slug, &experiment, &text, &numbers).map_err(|e| format!("lessons/{path}: {e}"))?;
                let (title, summary) = (lesson.title.clone(), lesson.summary.clone());
                let questions = lesson.steps.iter().map(|s| s.question.is_some()).collect();
                lessons.push(lesson);
                (Status::Written, title, summary, questions)
            }
            ("written", _, _) => {
                let problem = format!("a written lesson's title and summary live in {}", content_path(&slug));
                return Err(at(format!("{problem}'s front matter, not in the index")));
            }
            ("coming", Some(title), Some(summary)) => (Status::Coming, title, summary, Vec::new()),
            ("coming", _, _) => return Err(at("a coming lesson needs a title and a summary".to_string())),
            (other, _, _) => return Err(at(format!("status '{other}' is not \"written\" or \"coming\""))),
        };
        index.push(IndexEntry { slug, title, experiment, seed, status, summary, questions });
    }
    Ok((index, lessons))
}

/// `lessons/numbers.tsv` as a table by lesson and key.
pub fn read_numbers(tsv: &str) -> Result<Numbers, String> {
    Ok(parse_numbers_tsv(tsv)?.into_iter().map(|(slug, k, v)| ((slug, k), v)).collect())
}

/// Where the content of a written lesson lives, relative to `lessons/`.
pub fn content_path(slug: &str) -> String {
    format!("content/{slug}.md")
}

/// CommonMark (with tables, footnotes and strikethrough) to HTML.
pub fn markdown_to_html(md: &str) -> String {
    use pulldown_cmark::{html, Options, Parser};
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_FOOTNOTES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, options));
    // A code block scrolls sideways on a phone: keyboard users must be able to reach it.
    out.replace("<pre>", "<pre tabindex=\"0\">")
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

/// A number the app compares against: it must be finite.
fn finite(what: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} = {v} is not a finite number"))
    }
}

fn row(raw: Option<BTreeMap<String, f64>>) -> Result<Option<(String, f64)>, String> {
    match raw {
        None => Ok(None),
        Some(m) if m.len() == 1 => {
            let (k, v) = m.into_iter().next().expect("one entry");
            Ok(Some((k, finite("row value", v)?)))
        }
        Some(_) => Err("a `row` selects one key column, e.g. row = { threads = 9 }".to_string()),
    }
}

/// Parses a lesson file: `+++` TOML front matter `+++`, then `## ` sections, one per step.
/// The experiment comes from the lesson's index entry; the model numbers of its text are
/// filled from `numbers`.
pub fn parse_lesson(slug: &str, experiment: &str, text: &str, numbers: &Numbers) -> Result<Lesson, String> {
    Ok(parse_lesson_keys(slug, experiment, text, numbers)?.0)
}

/// The model numbers a lesson's text uses: every key, and by step (0-based) the keys of those
/// shown before its question is answered (title, text and prompt).
pub type LessonKeys = (Vec<NumberKey>, Vec<(usize, NumberKey)>);

/// [`parse_lesson`], and the keys of every model number its text uses.
pub fn parse_lesson_keys(
    slug: &str,
    experiment: &str,
    text: &str,
    numbers: &Numbers,
) -> Result<(Lesson, LessonKeys), String> {
    let rest = text.strip_prefix("+++\n").ok_or("the file must start with a `+++` line")?;
    let end = rest.find("\n+++\n").ok_or("the front matter must end with a `+++` line")?;
    let (front, body) = (&rest[..end + 1], &rest[end + 5..]);
    let fm: FrontMatter = toml::from_str(front).map_err(|e| format!("front matter: {e}"))?;
    let sections = split_sections(body);
    if sections.len() != fm.steps.len() {
        return Err(format!("{} `## ` sections but {} [[steps]]", sections.len(), fm.steps.len()));
    }
    let named: BTreeMap<String, Vec<(String, String)>> =
        fm.settings.into_iter().map(|(name, table)| (name, settings(table))).collect();
    let mut filler = Filler { slug, named: &named, numbers, keys: Vec::new(), shown: None, before_answer: Vec::new() };
    let steps = fm
        .steps
        .into_iter()
        .zip(sections)
        .enumerate()
        .map(|(i, (s, body))| step(i, s, &body, &mut filler).map_err(|e| format!("step {}: {e}", i + 1)))
        .collect::<Result<_, _>>()?;
    let keys = (filler.keys, filler.before_answer);
    let claims = fm.claims.into_iter().map(claim).collect::<Result<_, _>>()?;
    let lesson = Lesson {
        slug: slug.to_string(),
        title: fm.title,
        experiment: experiment.to_string(),
        summary: fm.summary,
        sources: fm.sources,
        how_we_know: how_we_know(fm.how_we_know),
        steps,
        claims,
    };
    Ok((lesson, keys))
}

/// Fills the model numbers of one lesson's text (see src/numbers.rs) and records their keys.
struct Filler<'a> {
    slug: &'a str,
    named: &'a BTreeMap<String, Vec<(String, String)>>,
    numbers: &'a Numbers,
    keys: Vec<NumberKey>,
    /// The step whose text before its answer is being filled, if any.
    shown: Option<usize>,
    before_answer: Vec<(usize, NumberKey)>,
}

impl Filler<'_> {
    /// `text` with every placeholder replaced by its value; `step` is what `@step` means here.
    fn fill(&mut self, text: &str, step: &[(String, String)]) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (range, placeholder) in placeholders(text) {
            let p = placeholder?;
            let settings = match p.settings.as_str() {
                "step" => step,
                name => self.named.get(name).ok_or_else(|| {
                    let known: Vec<&str> = self.named.keys().map(String::as_str).collect();
                    format!(
                        "{}: no settings '{name}' in [settings] (known: step, {})",
                        &text[range.clone()],
                        known.join(", ")
                    )
                })?,
            };
            let key = NumberKey::new(&p.metric, &p.row, settings);
            let shown = match self.numbers.get(&(self.slug.to_string(), key.clone())) {
                Some(v) => p.render(v).map_err(|e| format!("{}: {e}", &text[range.clone()]))?,
                None => NO_VALUE.to_string(),
            };
            if let Some(step) = self.shown {
                self.before_answer.push((step, key.clone()));
            }
            self.keys.push(key);
            out.push_str(&text[at..range.start]);
            out.push_str(&shown);
            at = range.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

/// Each item of the note as HTML; an item is one paragraph, so its `<p>` wrapper is dropped.
fn how_we_know(raw: RawHowWeKnow) -> HowWeKnow {
    let items = |list: Vec<String>| list.iter().map(|md| inline_html(md)).collect();
    HowWeKnow { kernel_html: items(raw.kernel), model_html: items(raw.model), seed_kernel_html: items(raw.seed_kernel) }
}

/// One paragraph of Markdown as HTML without its `<p>` wrapper (for list items).
fn inline_html(md: &str) -> String {
    let html = markdown_to_html(md.trim());
    let inner = html.trim_end().strip_prefix("<p>").and_then(|h| h.strip_suffix("</p>"));
    match inner {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => html,
    }
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

fn step(index: usize, raw: RawStep, body_markdown: &str, filler: &mut Filler<'_>) -> Result<Step, String> {
    let params = settings(raw.params);
    filler.shown = Some(index);
    let title = filler.fill(&raw.title, &params)?;
    let body_html = markdown_to_html(&filler.fill(body_markdown, &params)?);
    let mut question = raw.question.map(question).transpose()?;
    if let Some(q) = &mut question {
        let at: Vec<(String, String)> = params.iter().chain(&q.params).cloned().collect();
        q.prompt = filler.fill(&q.prompt, &at)?;
        // A hint shows after a wrong answer, before the answer: it may not give it away either.
        q.hint = filler.fill(&q.hint, &at)?;
        filler.shown = None;
        q.explanation = filler.fill(&q.explanation, &at)?;
    }
    filler.shown = None;
    Ok(Step { title, body_html, params, views: raw.views, question })
}

fn question(raw: RawQuestion) -> Result<Question, String> {
    let kind = match raw.kind.as_str() {
        "number" => QuestionKind::Number { tolerance_pct: finite("tolerance_pct", raw.tolerance_pct)? },
        "choice" if raw.choices.len() >= 2 => QuestionKind::Choice { choices: raw.choices },
        "choice" => return Err(format!("question '{}': a choice needs at least two choices", raw.prompt)),
        other => return Err(format!("question '{}': kind '{other}' is not number or choice", raw.prompt)),
    };
    let row = row(raw.row).map_err(|e| format!("question '{}': {e}", raw.prompt))?;
    Ok(Question {
        prompt: raw.prompt,
        metric: raw.metric,
        kind,
        explanation: raw.explanation,
        params: settings(raw.params),
        row,
        hint: raw.hint,
        hides: raw.hides,
        unit: raw.unit,
    })
}

fn claim(raw: RawClaim) -> Result<Claim, String> {
    let at = |e: String| format!("claim '{}': {e}", raw.text);
    let (min, max) = match (raw.equals, raw.min, raw.max) {
        (Some(v), None, None) => (Some(v), Some(v)),
        (None, min, max) if min.is_some() || max.is_some() => (min, max),
        _ => return Err(at("give `equals`, or `min` and/or `max`".to_string())),
    };
    let min = min.map(|v| finite("min", v)).transpose().map_err(at)?;
    let max = max.map(|v| finite("max", v)).transpose().map_err(at)?;
    let row = row(raw.row).map_err(at)?;
    Ok(Claim { text: raw.text, params: settings(raw.params), metric: raw.metric, row, min, max })
}
