//! Questions are graded at the step's parameters, whatever the knobs: every question of every
//! lesson, every knob moved.

use super::*;
use crate::pages::player::state::{apply, Action};
use crate::pages::{resolve, View};
use crate::route;
use skblab_core::{Cost, ParamKind};
use skblab_lessons::{index, lesson, Runs, Status};

/// Another valid text for `name` than its current value (None if it has only one).
fn moved(params: &Params, name: &str) -> Option<String> {
    let spec = params.specs().iter().find(|s| s.name == name)?;
    let now = params.value(name).to_string();
    let candidates: Vec<String> = match &spec.kind {
        ParamKind::Choice { options } => options.iter().map(|c| c.to_string()).collect(),
        ParamKind::Bool => vec!["true".into(), "false".into()],
        ParamKind::Int { min, max, .. } | ParamKind::Pow2 { min, max } => vec![min.to_string(), max.to_string()],
    };
    candidates.into_iter().find(|c| *c != now && params.clone().set_text(name, c).is_ok())
}

/// Every question of every lesson: moving any knob (the step's own ones, the asked one, or an
/// unrelated one) changes the page's parameters but not the grading run, and grading the
/// lessons checker's value at it is right (light experiments are run here; heavy ones are
/// the worker's, checked by key).
#[test]
fn questions_are_graded_at_the_steps_parameters_whatever_the_knobs() {
    let mut runs = Runs::new();
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).unwrap();
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            let View::Player(page) = resolve(&route::parse(&format!("#/lesson/{}/{}", l.slug, i + 1))).0 else {
                panic!("{} step {}", l.slug, i + 1)
            };
            let e = page.experiment;
            let base = step_params(e, step);
            assert!(base == page.params, "{} step {}: the step's parameters are the page's on entry", l.slug, i + 1);
            let key = |params: Params| {
                let props = QuestionProps {
                    question: q,
                    experiment: e,
                    params,
                    seed: 7,
                    on_correct: Callback::noop(),
                    on_settled: Callback::noop(),
                    answered_before: false,
                    on_record: Callback::noop(),
                    on_miss: Callback::noop(),
                    current: None,
                };
                grading_key(&props).map(|k| (k.params, grading_unit(&props)))
            };
            let fresh = key(base.clone()).expect("the question's settings apply");
            let names: Vec<&str> = e.specs().iter().map(|s| s.name).collect();
            for name in names {
                let Some(text) = moved(&page.params, name) else { continue };
                let after = apply(&page, Action::SetParam { name: name.to_string(), text });
                if after.params == page.params {
                    continue;
                }
                // The player hands the step's parameters, computed from the step alone.
                let again = key(step_params(after.experiment, &after.lesson.unwrap().steps[after.step])).unwrap();
                assert!(
                    again.0.iter().eq(fresh.0.iter()),
                    "{} step {}: moving {name} moved the grading run",
                    l.slug,
                    i + 1
                );
                assert_eq!(again.1, fresh.1, "{} step {}: moving {name} changed the unit", l.slug, i + 1);
            }
            if e.cost(&fresh.0) == Cost::Light && matches!(q.kind, QuestionKind::Number { .. }) {
                let checker = q.grade_in(&mut runs, e, &base, "-123456789");
                let out = runs.output(e, &fresh.0, DEFAULT_SEED).clone();
                let g = q.grade_value(value_in(q, &out), &fresh.1, &checker.expected);
                assert!(g.correct, "{} step {}: the checker's {} is graded wrong", l.slug, i + 1, checker.expected);
            }
        }
    }
}

/// A question answered on an earlier visit shows its explanation with the model's value filled
/// in from the grading run, as the verdict would (light experiments: their runs are computed
/// here; a heavy one's waits for the page's run).
#[test]
fn an_explanation_answered_before_has_the_models_value() {
    let mut filled = 0;
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).unwrap();
        let e = skblab_core::find(&l.experiment).unwrap();
        for step in &l.steps {
            let Some(q) = &step.question else { continue };
            let params = step_params(e, step);
            if e.cost(&params) != Cost::Light || !q.explanation.contains(skblab_lessons::ANSWER) {
                continue;
            }
            let props = QuestionProps {
                question: q,
                experiment: e,
                params: params.clone(),
                seed: DEFAULT_SEED,
                on_correct: Callback::noop(),
                on_settled: Callback::noop(),
                answered_before: true,
                on_record: Callback::noop(),
                on_miss: Callback::noop(),
                current: None,
            };
            let shown = explanation_before(&props).expect("a light run is computed at once");
            let g = q.grade(e, &params, "");
            assert_eq!(shown, q.explanation_for(&g), "{}", l.slug);
            assert!(!shown.contains('{') && shown.contains(&g.expected_with_unit), "{}: {shown}", l.slug);
            filled += 1;
        }
    }
    assert!(filled > 0, "no light lesson's explanation writes the answer");
}

/// When the knobs differ from the step's settings, the box says which values it grades at;
/// when they agree it says nothing.
#[test]
fn the_box_names_the_settings_it_grades_at_when_the_knobs_differ() {
    let l = lesson("high-order-alloc").expect("a written lesson");
    let e = skblab_core::find(&l.experiment).expect("its experiment");
    let step = step_params(e, &l.steps[0]);
    assert_eq!(graded_at_note(&step, &step), None);
    let name = step.specs().iter().map(|s| s.name).find(|n| moved(&step, n).is_some()).expect("a knob");
    let mut knobs = step.clone();
    knobs.set_text(name, &moved(&step, name).unwrap()).unwrap();
    let note = graded_at_note(&step, &knobs).expect("a note");
    assert_eq!(note, format!("Graded at this step's settings: {name}={}.", step.value(name)));
}
