//! The lessons checker: every lesson parses, names an existing experiment, its parameter
//! presets are in range, its questions are answerable by the model, and its claims hold.
//!
//! The library holds the course as build.rs compiled it; this checker also parses the sources
//! itself (with the same src/format.rs) to test the parser and that the compiled course is
//! exactly what the sources say.

use skblab_core::{experiments, find, Experiment};
use skblab_lessons::{
    apply_settings, index, lesson, placeholders_in, QuestionKind, Runs, Status, ANSWER, PLACEHOLDERS,
};
use std::path::Path;

/// The types format.rs fills: the library's own, so parsed claims can be checked.
mod model {
    pub use skblab_lessons::{Claim, HowWeKnow, IndexEntry, Lesson, Question, QuestionKind, Status, Step};
}
mod numbers {
    pub use skblab_lessons::numbers::*;
}
#[path = "../src/format.rs"]
mod format;
#[path = "common/text.rs"]
mod text;
use text::numbers_in;

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

/// The course's one list of lessons is index.toml: slugs are unique kebab-case names, and the
/// written lessons are one per registered experiment, in the registry's order (nothing else
/// lists the lessons, so adding one edits index.toml and the registry line only).
#[test]
fn index_lists_one_written_lesson_per_experiment_in_order_with_unique_slugs() {
    let mut slugs: Vec<&str> = index().iter().map(|e| e.slug.as_str()).collect();
    for slug in &slugs {
        let kebab =
            slug.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
        assert!(kebab, "lessons/index.toml: slug '{slug}' is not kebab-case");
    }
    slugs.sort_unstable();
    let n = slugs.len();
    slugs.dedup();
    assert_eq!(slugs.len(), n, "lessons/index.toml: a slug appears twice");
    let written: Vec<&str> =
        index().iter().filter(|e| e.status == Status::Written).map(|e| e.experiment.as_str()).collect();
    let registered: Vec<&str> = experiments().iter().map(|e| e.id()).collect();
    assert_eq!(
        written, registered,
        "the written lessons of lessons/index.toml name the registered experiments, in the registry's order"
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
    // The home page's small wasm counts progress from the index alone (web/src/pages/shell.rs).
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
        let numbers = format::read_numbers(&source("numbers.tsv").unwrap()).unwrap();
        let l = format::parse_lesson(&entry.slug, &entry.experiment, &text, &numbers)
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

/// The playground shows the experiment's title and the lesson page the lesson's: one name for
/// one lesson, so a learner who goes from one to the other sees the same title.
#[test]
fn every_lesson_title_is_its_experiment_title() {
    for l in index().iter().filter(|e| e.status == Status::Written) {
        assert_eq!(l.title, experiment_of(&l.slug).title(), "{}: lesson and playground titles differ", l.slug);
    }
}

/// Every written lesson says how we know (docs/lesson-format.md): which of its
/// statements are the kernel's, with sources; the model's simplifications; and where the model
/// differs from the kernel the seed post ran. The lesson page shows the three lists, folded
/// (web/src/pages/player/), and leaves out an empty one: here none may be empty.
#[test]
fn every_written_lesson_says_how_we_know() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).unwrap_or_else(|| panic!("{}: not loaded", entry.slug));
        let h = &l.how_we_know;
        for (key, items) in [("kernel", &h.kernel_html), ("model", &h.model_html), ("seed_kernel", &h.seed_kernel_html)]
        {
            assert!(
                !items.is_empty(),
                "content/{}.md: [how_we_know] {key} is empty (every written lesson fills kernel, model and seed_kernel)",
                entry.slug
            );
            for (i, item) in items.iter().enumerate() {
                assert!(
                    !item.trim().is_empty(),
                    "content/{}.md: [how_we_know] {key} item {} is blank",
                    entry.slug,
                    i + 1
                );
            }
        }
    }
}

/// A lesson's `sources` are shown as plain text (with commit ids and Message-IDs linked), not
/// Markdown: a backtick would show as itself on the page.
#[test]
fn sources_are_plain_text() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).unwrap_or_else(|| panic!("{}: not loaded", entry.slug));
        for s in &l.sources {
            assert!(
                !s.contains('`'),
                "content/{}.md: a source has a backtick (sources are plain text): {s}",
                entry.slug
            );
        }
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

/// Every question is answerable by the model, a choice has one right choice, its hint (shown
/// after the first miss) does not give the answer away, and its explanation writes the answer
/// as `{answer}` (see [`explanation_problem`]): the model's answer is computed here anyway, so
/// hint and explanation are checked against it in the same pass.
#[test]
fn every_question_is_answerable_and_its_hint_keeps_the_answer() {
    let (mut leaks, mut typed, mut needed) = (Vec::new(), Vec::new(), Vec::new());
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        let l = lesson(&entry.slug).unwrap();
        let base = exp.defaults();
        let mut runs = Runs::new();
        // The explanations as written: their model numbers are placeholders, not typed.
        let text = source(&format::content_path(&l.slug)).unwrap();
        let written = format::parse_lesson(&l.slug, &l.experiment, &text, &format::Numbers::new()).unwrap();
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            let as_written = written.steps[i].question.as_ref().expect("the same steps");
            let p = apply_settings(exp, &base, &step.params).unwrap();
            let out = runs.output(exp, &p, skblab_core::DEFAULT_SEED);
            assert!(out.column_index(&q.metric).is_some(), "{} step {}: no column '{}'", l.slug, i + 1, q.metric);
            let g = q.grade_in(&mut runs, exp, &p, "-123456789");
            assert!(!g.correct && g.expected != "?", "{} step {}: {}", l.slug, i + 1, g.problem);
            let given_away = match &q.kind {
                QuestionKind::Choice { .. } => {
                    let right = q.correct_choices_in(&mut runs, exp, &p);
                    assert_eq!(right.len(), 1, "{} step {}: right choices {right:?}", l.slug, i + 1);
                    choice_given_away(&q.hint, &right[0])
                }
                QuestionKind::Number { tolerance_pct } => {
                    let own = q.grade_in(&mut runs, exp, &p, &g.expected);
                    assert!(own.correct, "{} step {}: the model's own answer is graded wrong", l.slug, i + 1);
                    let answer: f64 = g.expected.parse().expect("a number question's answer is a number");
                    number_given_away(&q.hint, answer, *tolerance_pct)
                }
            };
            if let Some(number) = given_away {
                leaks.push(format!(
                    "{} step {}: the hint's '{number}' is near the answer {}",
                    l.slug,
                    i + 1,
                    g.expected
                ));
            }
            let right = q.correct_choices_in(&mut runs, exp, &p);
            if let Some(problem) = explanation_problem(&l.slug, as_written, &g.expected, right.first()) {
                typed.push(format!("content/{}.md step {}: {problem}", l.slug, i + 1));
            }
            needed.extend(cited_needed(&l.slug, as_written, &g.expected, right.first()));
        }
    }
    assert!(leaks.is_empty(), "hints that give the answer away:\n{}", leaks.join("\n"));
    assert!(typed.is_empty(), "explanations that type the model's answer:\n{}", typed.join("\n"));
    let stale: Vec<&str> = CITED.iter().map(|(_, cited)| *cited).filter(|c| !needed.contains(c)).collect();
    assert!(stale.is_empty(), "CITED entries no explanation needs (none near its answer): {stale:?}");
}

/// The first number in `hint` within `tolerance_pct` (at least 10 %) of `answer`; one written in
/// digits also read a thousand times larger or smaller (the same quantity one unit up or down).
fn number_given_away(hint: &str, answer: f64, tolerance_pct: f64) -> Option<String> {
    number_near(hint, answer, tolerance_pct.max(10.0) / 100.0, &[1.0, 1e3, 1e-3])
}

/// The first number in `text` whose size is within `tol` (a fraction) of `answer`'s, the sign
/// left out ("fell by 1.1 %" writes an answer of −1.13 %); one written in digits is also read
/// times each of `scales`.
fn number_near(text: &str, answer: f64, tol: f64, scales: &[f64]) -> Option<String> {
    numbers_in(text).into_iter().find_map(|(written, v)| {
        let scales = if written.starts_with(|c: char| c.is_ascii_digit()) { scales } else { &[1.0] };
        let near = scales.iter().any(|scale| ((v * scale).abs() - answer.abs()).abs() <= answer.abs() * tol + 1e-12);
        near.then_some(written)
    })
}

/// Text of explanations that writes numbers near the answer which are not the model's answer,
/// by lesson: figures cited from a source (the seed's table, a commit message, a thread) and
/// arithmetic of the kernel's constants. The checker blanks each out before it looks for the
/// answer; each must occur in an explanation of its lesson. Model figures other than the answer
/// that happen to fall near it are here too, until lesson text can compute them.
const CITED: &[(&str, &str)] = &[
    ("skb-layout", "the thread: 18 frags"),
    ("skb-layout", "at least 16"),
    ("skb-layout", "from 16 to 17"),
    ("high-order-alloc", "seed: 37 Gbit/s"),
    ("high-order-alloc", "two 32 KiB ones"),
    ("high-order-alloc", "the seed measured 267 Gbit/s"),
    ("high-order-alloc", "seed: 642 Gbit/s"),
    ("high-order-alloc", "seed: 841 Gbit/s"),
    ("page-frag-free", "the seed: 11.86 − 10.10 − 0.65 = 1.11 %"),
    ("cross-cpu-free", "13,645,857 datagrams, -1.26 %"),
    ("cross-cpu-free", "one more object's lines"),
    ("cross-cpu-free", "SLUB before 3.2"),
    ("skb-cache", "the patch's 8 -> 9 Mpps is 12.5 %"),
    ("skb-cache", "Two CPUs still share"),
    ("skb-cache", "the one that also runs"),
    ("ktls-recursion", "about 249 levels in the seed's"),
];

/// What is wrong with a question's explanation, if anything: a placeholder the page does not
/// fill; or the model's answer (`expected`, or the right choice) typed instead of `{answer}`:
/// a number within the question's tolerance of it outside the lesson's [`CITED`] text, which
/// would contradict the verdict line above it after the next refit. Prompt and hint hold no
/// placeholder (nothing fills them, and a filled hint would give the answer away).
fn explanation_problem(slug: &str, q: &model::Question, expected: &str, right: Option<&String>) -> Option<String> {
    if let Some(p) = placeholders_in(&q.explanation).into_iter().find(|p| !PLACEHOLDERS.contains(p)) {
        return Some(format!("unknown placeholder '{p}' in the explanation (known: {})", PLACEHOLDERS.join(", ")));
    }
    if let Some(p) = placeholders_in(&q.prompt).into_iter().chain(placeholders_in(&q.hint)).next() {
        return Some(format!("placeholder '{p}' in the prompt or hint: only explanations are filled"));
    }
    let mut text = q.explanation.replace(ANSWER, " ");
    for (_, cited) in CITED.iter().filter(|(s, _)| *s == slug) {
        text = text.replace(cited, " ");
    }
    answer_in(&text, q, expected, right)
        .map(|t| format!("'{t}' is the model's answer {expected} typed: write {ANSWER}"))
}

/// The model's answer (`expected`, or the right choice) as `text` writes it, if it does: a
/// number within the question's tolerance of it, or the right choice.
fn answer_in(text: &str, q: &model::Question, expected: &str, right: Option<&String>) -> Option<String> {
    match (&q.kind, right) {
        (QuestionKind::Choice { .. }, Some(right)) => choice_given_away(text, right),
        (QuestionKind::Number { tolerance_pct }, _) => {
            number_near(text, expected.parse().ok()?, tolerance_pct / 100.0, &[1.0])
        }
        _ => None,
    }
}

/// The lesson's [`CITED`] entries that `q`'s explanation needs: those in it that write a number
/// near its answer. An entry no explanation needs is stale (the checker fails on it).
fn cited_needed(slug: &str, q: &model::Question, expected: &str, right: Option<&String>) -> Vec<&'static str> {
    CITED
        .iter()
        .filter(|(s, cited)| *s == slug && q.explanation.contains(cited))
        .filter(|(_, cited)| answer_in(cited, q, expected, right).is_some())
        .map(|(_, cited)| *cited)
        .collect()
}

/// The right choice, if `hint` writes it: a number among its numbers, else its text.
fn choice_given_away(hint: &str, right: &str) -> Option<String> {
    match right.trim().parse::<f64>() {
        Ok(value) => numbers_in(hint).into_iter().find(|(_, v)| *v == value).map(|(written, _)| written),
        Err(_) => hint.to_lowercase().contains(&right.to_lowercase()).then(|| right.to_string()),
    }
}

#[test]
fn a_hint_that_names_the_answer_is_caught() {
    assert_eq!(number_given_away("about 2,800 pages", 2810.0, 30.0), Some("2,800".to_string()));
    assert_eq!(number_given_away("260571 Mbit/s", 260.57, 5.0), Some("260571".to_string()));
    assert_eq!(number_given_away("the bound is 6,272 pages", 2810.0, 30.0), None);
    assert_eq!(number_given_away("order3 pages on x86_64", 3.0, 10.0), None);
    assert_eq!(number_given_away("free_one_page's share", 1.0, 10.0), None);
    assert_eq!(number_given_away("two frags fewer", 2018.0, 10.0), None);
    assert_eq!(choice_given_away("Two of them.", "2"), Some("Two".to_string()));
    assert_eq!(choice_given_away("Count the objects, 1.5 each.", "2"), None);
    assert_eq!(number_near("About -1.1 % in the model", -1.13, 0.4, &[1.0]), Some("1.1".to_string()));
    assert_eq!(number_near("under 1 % at 1 Gbit/s", 947.0, 0.1, &[1.0]), None);
}

/// The checker fails on an explanation that types its answer or names an unknown placeholder.
#[test]
fn a_typed_answer_or_an_unknown_placeholder_in_an_explanation_is_caught() {
    let l = lesson("percpu-counter").unwrap();
    let (step, q) = l.steps.iter().find_map(|s| Some(s).zip(s.question.as_ref())).unwrap();
    let exp = experiment_of("percpu-counter");
    let p = apply_settings(exp, &exp.defaults(), &step.params).unwrap();
    let expected = q.grade(exp, &p, "1").expected;
    assert_eq!(explanation_problem(&l.slug, q, &expected, None), None);
    let mut typed = q.clone();
    typed.explanation = q.explanation.replace(ANSWER, &format!("About {expected} %"));
    assert!(explanation_problem(&l.slug, &typed, &expected, None).is_some_and(|e| e.contains("typed")));
    typed.explanation = q.explanation.replace(ANSWER, "{anwser}");
    assert!(explanation_problem(&l.slug, &typed, &expected, None).is_some_and(|e| e.contains("'{anwser}'")));
    typed.explanation = q.explanation.clone();
    typed.hint = format!("{} {ANSWER}", q.hint);
    assert!(explanation_problem(&l.slug, &typed, &expected, None).is_some_and(|e| e.contains("hint")));
}

/// Every question has a hint (shown after the first miss): where to look or what to think of.
#[test]
fn every_question_has_a_hint() {
    let mut missing = Vec::new();
    for l in index().iter().filter_map(|e| lesson(&e.slug)) {
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            if q.hint.trim().is_empty() {
                missing.push(format!("content/{}.md step {}", l.slug, i + 1));
            }
        }
    }
    assert!(missing.is_empty(), "questions without a hint:\n{}", missing.join("\n"));
}

/// The most words a step's text may have: what a learner reads before the step's views and
/// question. The model's caveats belong in the lesson's "How we know", not here.
const STEP_WORDS_MAX: usize = 200;

/// The words of a step as shown: its HTML without tags, each run of non-space characters
/// holding a letter or a digit one word (a table's `|` or a lone `→` is none).
fn words_of_html(html: &str) -> usize {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

#[test]
fn no_step_is_longer_than_the_word_limit() {
    assert_eq!(words_of_html("<p>A <code>b</code> c → d.</p>\n<pre>| x |</pre>"), 5);
    let mut long = Vec::new();
    for l in index().iter().filter_map(|e| lesson(&e.slug)) {
        for (i, step) in l.steps.iter().enumerate() {
            let n = words_of_html(&step.body_html);
            if n > STEP_WORDS_MAX {
                long.push(format!("content/{}.md step {} ({}): {n} words", l.slug, i + 1, step.title));
            }
        }
    }
    assert!(
        long.is_empty(),
        "steps over {STEP_WORDS_MAX} words (move model caveats to how_we_know):\n{}",
        long.join("\n")
    );
}

#[test]
fn every_claim_holds() {
    let mut checked = 0;
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        let mut runs = Runs::new();
        for c in &lesson(&entry.slug).unwrap().claims {
            c.check_in(&mut runs, exp).unwrap_or_else(|e| panic!("{}: {e}", entry.slug));
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
    let l = format::parse_lesson("skb-layout", "skb-layout", &broken, &format::Numbers::new()).unwrap();
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
        let err = format::parse_lesson("x", "skb-layout", text, &format::Numbers::new()).unwrap_err();
        assert!(err.contains(want) || text == "no front matter", "{err}");
    }
}

#[test]
fn index_errors_name_the_file_and_the_lesson() {
    let no_content = |rel: &str| if rel == "numbers.tsv" { Ok(String::new()) } else { Err("no such file".to_string()) };
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
    let bad_lesson =
        |rel: &str| Ok(if rel == "numbers.tsv" { String::new() } else { "+++\ntitle = 1\n+++\n".to_string() });
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

/// A run reused is the run: grading from [`Runs`] gives what grading from a fresh run gives,
/// and a choice question's choices share one run.
#[test]
fn grading_from_reused_runs_is_grading_from_fresh_runs() {
    let mut checked = 0;
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let exp = experiment_of(&entry.slug);
        if exp.cost(&exp.defaults()) != skblab_core::Cost::Light {
            continue; // the light lessons are enough to compare, at a fraction of the time
        }
        let l = lesson(&entry.slug).unwrap();
        let mut runs = Runs::new();
        for step in &l.steps {
            let Some(q) = &step.question else { continue };
            let p = apply_settings(exp, &exp.defaults(), &step.params).unwrap();
            let before = runs.len();
            assert_eq!(q.grade_in(&mut runs, exp, &p, "1"), q.grade(exp, &p, "1"), "{}", l.slug);
            assert_eq!(q.correct_choices_in(&mut runs, exp, &p), q.correct_choices(exp, &p), "{}", l.slug);
            assert!(runs.len() <= before + 1, "{}: one question, more than one run", l.slug);
            checked += 1;
        }
        for c in &l.claims {
            assert_eq!(c.check_in(&mut runs, exp), c.check(exp), "{}", l.slug);
        }
    }
    assert!(checked > 0, "no light lesson asks a question");
}

fn repo_file(rel: &str) -> String {
    source(&format!("../{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The README's lesson table, as index.toml says it.
fn readme_lesson_table() -> String {
    let mut table = String::from("| lesson | seed | status |\n|---|---|---|\n");
    for e in index() {
        let status = match e.status {
            Status::Written => "written",
            Status::Coming => "coming",
        };
        table.push_str(&format!("| `{}` — {} | {} | {status} |\n", e.slug, e.title, e.seed));
    }
    table
}

/// README.md's table of lessons is index.toml's list (slug, title, seed, status), in order.
#[test]
fn the_readme_lesson_table_is_the_index() {
    let readme = repo_file("README.md");
    let want = readme_lesson_table();
    let start = readme.find("| lesson | seed | status |").expect("README.md has a lesson table");
    let end = readme[start..].find("\n\n").map_or(readme.len(), |i| start + i + 1);
    assert!(
        readme[start..end] == want,
        "README.md's lesson table differs from lessons/index.toml; it should read:\n\n{want}"
    );
}

/// docs/README.md has one row per file of docs/, no row for a missing file, and the models'
/// files (`<experiment>.md`) in lesson order, before the others.
#[test]
fn the_docs_table_lists_every_doc_once_with_the_lessons_in_order() {
    let table = repo_file("docs/README.md");
    let rows: Vec<&str> =
        table.lines().filter_map(|l| l.strip_prefix("| `")?.split_once('`').map(|(file, _)| file)).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".md") && f != "README.md")
        .collect();
    files.sort();
    let mut listed: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    listed.sort();
    assert_eq!(listed, files, "docs/README.md: one row per file of docs/ (| `file.md` | what it holds |)");
    let lesson_docs: Vec<String> = index().iter().map(|e| format!("{}.md", e.experiment)).collect();
    let in_table: Vec<&str> = rows.iter().copied().filter(|r| lesson_docs.iter().any(|d| d == r)).collect();
    let in_index: Vec<&str> = lesson_docs.iter().map(String::as_str).filter(|d| rows.contains(d)).collect();
    assert_eq!(in_table, in_index, "docs/README.md: the models' files in lesson order");
    assert_eq!(&rows[..in_table.len()], in_table.as_slice(), "docs/README.md: the models' files first");
}
