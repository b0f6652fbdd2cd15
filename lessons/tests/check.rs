//! The lessons checker: every lesson parses, names an existing experiment, its parameter
//! presets are in range, its questions are answerable by the model, and its claims hold.
//!
//! The library holds the course as build.rs compiled it; this checker also parses the sources
//! itself (with the same src/format.rs) to test the parser and that the compiled course is
//! exactly what the sources say.

use skblab_core::{find, Experiment};
use skblab_lessons::{apply_settings, index, lesson, QuestionKind, Status};
use std::path::Path;

/// The types format.rs fills: the library's own, so parsed claims can be checked.
mod model {
    pub use skblab_lessons::{Claim, IndexEntry, Lesson, Question, QuestionKind, Status, Step};
}
#[path = "../src/format.rs"]
mod format;

fn source(rel: &str) -> Result<String, String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).map_err(|e| e.to_string())
}

/// The course parsed from the sources, as build.rs does.
fn parsed_course() -> (Vec<model::IndexEntry>, Vec<model::Lesson>) {
    format::load_course(&source("index.toml").unwrap(), source).unwrap_or_else(|e| panic!("{e}"))
}

fn experiment_of(slug: &str) -> &'static dyn Experiment {
    let l = lesson(slug).unwrap_or_else(|| panic!("lesson {slug} is listed as written but not loaded"));
    find(&l.experiment).unwrap_or_else(|e| panic!("lesson {slug}: {e}"))
}

#[test]
fn index_lists_the_seven_lessons_in_order_with_unique_slugs() {
    let slugs: Vec<&str> = index().iter().map(|e| e.slug.as_str()).collect();
    assert_eq!(
        slugs,
        [
            "skb-layout",
            "high-order-alloc",
            "page-frag-free",
            "cross-cpu-free",
            "skb-cache",
            "percpu-counter",
            "ktls-recursion"
        ]
    );
}

#[test]
fn the_compiled_course_is_the_parsed_sources() {
    let (parsed_index, parsed_lessons) = parsed_course();
    assert_eq!(index(), parsed_index.as_slice());
    for l in &parsed_lessons {
        assert_eq!(lesson(&l.slug), Some(l), "{}: compiled lesson differs from its source", l.slug);
    }
    let n_written = index().iter().filter(|e| e.status == Status::Written).count();
    assert_eq!(parsed_lessons.len(), n_written);
}

#[test]
fn the_index_says_which_steps_ask_without_the_lesson() {
    // The home page's small wasm counts progress from the index alone (web/src/components/shell.rs).
    for e in index() {
        let asks: Vec<bool> = match lesson(&e.slug) {
            Some(l) => l.steps.iter().map(|s| s.question.is_some()).collect(),
            None => Vec::new(),
        };
        assert_eq!(e.questions, asks, "{}", e.slug);
        assert_eq!(e.questions.is_empty(), e.status == Status::Coming, "{}", e.slug);
    }
}

#[test]
fn every_content_file_is_a_written_lesson_of_the_index() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("content");
    for file in std::fs::read_dir(dir).unwrap() {
        let name = file.unwrap().file_name().into_string().unwrap();
        let slug = name.strip_suffix(".md").unwrap_or_else(|| panic!("content/{name}: not a .md file"));
        let entry = index().iter().find(|e| e.slug == slug);
        assert!(
            entry.is_some_and(|e| e.status == Status::Written),
            "content/{name} is not a written lesson of index.toml"
        );
    }
}

#[test]
fn every_written_lesson_parses_and_matches_its_index_entry() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let text = source(&format::content_path(&entry.slug)).expect("a content file");
        let l = format::parse_lesson(&entry.slug, &entry.experiment, &text)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.slug));
        assert_eq!(
            (&l.title, &l.summary),
            (&entry.title, &entry.summary),
            "{}: the index shows its front matter",
            entry.slug
        );
        assert!(l.steps.len() >= 5, "{}: a written lesson needs at least 5 steps", entry.slug);
        assert!(!l.claims.is_empty(), "{}: a written lesson needs claims", entry.slug);
        assert!(!l.sources.is_empty(), "{}: a written lesson cites its sources", entry.slug);
        find(&l.experiment).unwrap_or_else(|e| panic!("{}: {e}", entry.slug));
    }
}

#[test]
fn every_preset_is_in_range() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        let l = lesson(&entry.slug).unwrap();
        let base = exp.defaults();
        for (i, step) in l.steps.iter().enumerate() {
            let p =
                apply_settings(exp, &base, &step.params).unwrap_or_else(|e| panic!("{} step {}: {e}", l.slug, i + 1));
            if let Some(q) = &step.question {
                apply_settings(exp, &p, &q.params)
                    .unwrap_or_else(|e| panic!("{} step {} question: {e}", l.slug, i + 1));
            }
        }
        for c in &l.claims {
            apply_settings(exp, &base, &c.params).unwrap_or_else(|e| panic!("{} claim '{}': {e}", l.slug, c.text));
        }
    }
}

#[test]
fn every_question_is_answerable_and_has_one_right_choice() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        let l = lesson(&entry.slug).unwrap();
        let base = exp.defaults();
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            let p = apply_settings(exp, &base, &step.params).unwrap();
            let out = exp.run(&p, skblab_core::DEFAULT_SEED);
            assert!(out.column_index(&q.metric).is_some(), "{} step {}: no column '{}'", l.slug, i + 1, q.metric);
            let g = q.grade(exp, &p, "-123456789");
            assert!(!g.correct && g.expected != "?", "{} step {}: {}", l.slug, i + 1, g.problem);
            if let QuestionKind::Choice { .. } = q.kind {
                let right = q.correct_choices(exp, &p);
                assert_eq!(right.len(), 1, "{} step {}: right choices {right:?}", l.slug, i + 1);
            } else {
                let g = q.grade(exp, &p, &g.expected);
                assert!(g.correct, "{} step {}: the model's own answer is graded wrong", l.slug, i + 1);
            }
        }
    }
}

#[test]
fn every_claim_holds() {
    let mut checked = 0;
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        for c in &lesson(&entry.slug).unwrap().claims {
            c.check(exp).unwrap_or_else(|e| panic!("{}: {e}", entry.slug));
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} claims checked");
}

#[test]
fn a_false_claim_is_caught() {
    // The checker must be able to fail: the same lesson text with a wrong number.
    let text = source("content/skb-layout.md").unwrap();
    assert!(text.contains("equals = 488"));
    let broken = text.replacen("equals = 488", "equals = 487", 1);
    let l = format::parse_lesson("skb-layout", "skb-layout", &broken).unwrap();
    let exp = find("skb-layout").unwrap();
    assert!(l.claims.iter().any(|c| c.check(exp).is_err()));
}

#[test]
fn malformed_lessons_are_rejected_with_a_reason() {
    let cases = [
        ("no front matter", "## a\n"),
        ("+++\ntitle = 1\n+++\n", "front matter"),
        ("+++\ntitle=\"t\"\nsummary=\"s\"\n[[steps]]\ntitle=\"a\"\n+++\n", "sections"),
        ("+++\ntitle=\"t\"\nexperiment=\"skb-layout\"\nsummary=\"s\"\n+++\n", "unknown field `experiment`"),
        ("+++\ntitle=\"t\"\nsummary=\"s\"\n[[steps]]\ntitle=\"a\"\n[[claims]]\ntext=\"c\"\nmetric=\"m\"\nmin=nan\n+++\n## a\n", "not a finite number"),
    ];
    for (text, want) in cases {
        let err = format::parse_lesson("x", "skb-layout", text).unwrap_err();
        assert!(err.contains(want) || text == "no front matter", "{err}");
    }
}

#[test]
fn index_errors_name_the_file_and_the_lesson() {
    let no_content = |_: &str| Err("no such file".to_string());
    let cases = [
        (
            "[[lesson]]\nslug=\"a\"\nexperiment=\"e\"\nseed=\"0\"\nstatus=\"written\"\n",
            "lessons/content/a.md: no such file",
        ),
        (
            "[[lesson]]\nslug=\"a\"\nexperiment=\"e\"\nseed=\"0\"\nstatus=\"written\"\ntitle=\"t\"\n",
            "lessons/index.toml: lesson 'a': a written lesson's title and summary live in content/a.md's front matter",
        ),
        (
            "[[lesson]]\nslug=\"a\"\nexperiment=\"e\"\nseed=\"0\"\nstatus=\"coming\"\n",
            "lessons/index.toml: lesson 'a': a coming lesson needs a title",
        ),
        ("[[lesson]]\nslug=\"a\"\nexperiment=\"e\"\nseed=\"0\"\nstatus=\"draft\"\n", "status 'draft'"),
        ("[[lesson]]\nslug=\"a\"\n", "lessons/index.toml: "),
    ];
    for (index_toml, want) in cases {
        let err = format::load_course(index_toml, no_content).unwrap_err();
        assert!(err.contains(want), "{err}");
    }
    let bad_lesson = |_: &str| Ok("+++\ntitle = 1\n+++\n".to_string());
    let err = format::load_course(cases[0].0, bad_lesson).unwrap_err();
    assert!(err.starts_with("lessons/content/a.md: front matter"), "{err}");
}

#[test]
fn markdown_renders_at_build_time() {
    let html = format::markdown_to_html("a `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
    assert!(html.contains("<code>code</code>") && html.contains("<table>"), "{html}");
    let step = &lesson("skb-layout").unwrap().steps[0];
    assert!(step.body_html.starts_with('<') && step.body_html.contains("<p>"), "{}", step.body_html);
}

/// The number an explanation opens with ("About 41 Gbit/s in the model …" → 41, with the
/// size of its last digit: 1), if it opens with "About".
fn about_number(explanation: &str) -> Option<(f64, f64)> {
    let rest = explanation.trim().strip_prefix("About ")?;
    let text: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
    let text = text.trim_end_matches(['.', ',']).replace(',', "");
    let value: f64 = text.parse().ok()?;
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
    Some((value, 10f64.powi(-(decimals as i32))))
}

#[test]
fn about_number_reads_the_opening_figure() {
    assert_eq!(about_number("About 41 Gbit/s in the model."), Some((41.0, 1.0)));
    assert_eq!(about_number("About 3,150 pages."), Some((3150.0, 1.0)));
    assert_eq!(about_number("About 0.7 %, as measured."), Some((0.7, 0.1)));
    assert_eq!(about_number("About 11 %."), Some((11.0, 1.0)));
    assert_eq!(about_number("Four heads: 9."), None);
}

/// An explanation is shown right after "the model says X": when it opens with "About N", N is
/// X rounded, give or take 10 % (the text was written against the model; a refit or a model
/// change that moves X must move the text too, or the page contradicts itself).
#[test]
fn every_explanation_that_opens_with_a_figure_agrees_with_the_model() {
    let mut checked = 0;
    let mut stale = Vec::new();
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        let l = lesson(&entry.slug).unwrap();
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            let Some((about, digit)) = about_number(&q.explanation) else { continue };
            let p = apply_settings(exp, &exp.defaults(), &step.params).unwrap();
            let g = q.grade(exp, &p, "-123456789");
            let model: f64 = g.expected.parse().unwrap_or_else(|_| panic!("{} step {}: {}", l.slug, i + 1, g.problem));
            checked += 1;
            if (about - model).abs() > 0.1 * model.abs() + digit / 2.0 {
                stale.push(format!(
                    "{} step {}: the model says {}, the explanation 'About {about}'",
                    l.slug,
                    i + 1,
                    g.expected
                ));
            }
        }
    }
    assert!(checked >= 15, "only {checked} explanations checked");
    assert!(stale.is_empty(), "explanations that contradict the model:\n{}", stale.join("\n"));
}
