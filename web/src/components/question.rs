//! "Predict, then check": a step's question, graded by running the model.
//!
//! A question is graded at the step's own parameters ([`step_params`]: the experiment's
//! defaults with the step's settings, then the question's), the values its prompt and
//! explanation speak of — never at the learner's current knobs, which may have moved since
//! ("set frag_bytes back to 16" must not turn 488 into 344). The grading run is the page's
//! visible run while the knobs are untouched; otherwise it is asked for in the background
//! ([`run::want`]: the worker runs a heavy one), and the answer is graded when it arrives.

use crate::ledger::{self, Confidence, Entry};
use crate::run::{self, RunKey};
use crate::store::{self, Topic};
use feedback::{answer_input, comparison, confidence_input, in_unit, verdict};
use skblab_core::{Experiment, Params, RunOutput, DEFAULT_SEED};
use skblab_lessons::{apply_settings, Grade, Question, QuestionKind, Step, ANSWER};
use yew::prelude::*;

mod feedback;

#[derive(Properties, Clone)]
pub struct QuestionProps {
    pub question: &'static Question,
    pub experiment: &'static dyn Experiment,
    /// The step's own parameters ([`step_params`]), not the learner's current ones: the question
    /// is graded at them (with the question's own params on top).
    pub params: Params,
    pub seed: u64,
    /// Called when the answer is right (progress counts it).
    pub on_correct: Callback<()>,
    /// Called when the answer may be shown: right, asked for, or after the last try (the
    /// player then lifts the veil from the views that show it).
    pub on_settled: Callback<()>,
    /// The learner answered this question right before (progress): start settled.
    #[prop_or_default]
    pub answered_before: bool,
    /// Called once when the question settles with the model's value known: the ledger's entry
    /// (first prediction, confidence, model value, outcome).
    #[prop_or_default]
    pub on_record: Callback<Entry>,
    /// Called on each wrong graded answer, as it is graded (a question missed and left is
    /// still missed: the practice schedule takes it from here).
    #[prop_or_default]
    pub on_miss: Callback<()>,
    /// The knobs as the learner set them, if the page has any: the box says when the question
    /// is graded at other values.
    #[prop_or_default]
    pub current: Option<Params>,
}

impl PartialEq for QuestionProps {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.question, other.question)
            && self.experiment.id() == other.experiment.id()
            && self.params == other.params
            && self.seed == other.seed
            && self.on_correct == other.on_correct
            && self.on_settled == other.on_settled
            && self.answered_before == other.answered_before
            && self.on_record == other.on_record
            && self.on_miss == other.on_miss
            && self.current == other.current
    }
}

/// The note that the question is graded at other values than the knobs show: the grading
/// run's value of each knob that differs (`None` when they agree).
pub fn graded_at_note(grading: &Params, current: &Params) -> Option<String> {
    let differ: Vec<String> = grading
        .iter()
        .filter(|(name, v)| current.iter().any(|(n, c)| n == *name && c.to_string() != v.to_string()))
        .map(|(name, v)| format!("{name}={v}"))
        .collect();
    (!differ.is_empty()).then(|| format!("Graded at this step's settings: {}.", differ.join(", ")))
}

/// Tries before the answer is shown without asking.
pub const MAX_TRIES: u32 = 3;

/// The parameters of `step` as the lesson sets them: the experiment's defaults with the step's
/// settings (a setting the model refuses is left at its default; the lessons checker fails on
/// it). What [`QuestionProps::params`] must be.
pub fn step_params(experiment: &dyn Experiment, step: &Step) -> Params {
    let defaults = experiment.defaults();
    apply_settings(experiment, &defaults, &step.params).unwrap_or(defaults)
}

/// The run a question is graded from: the step's parameters with the question's on top, at
/// the default seed (as the lessons checker grades it). `None` if the question's settings do
/// not apply (a bug in the lesson, caught by the checker).
fn grading_key(props: &QuestionProps) -> Option<RunKey> {
    let e = props.experiment;
    let p = props.question.params_for(e, &props.params)?;
    Some(RunKey { experiment: e, params: e.resolve(&p), seed: DEFAULT_SEED })
}

/// [`graded_at_note`] for the box: the grading parameters against the learner's knobs.
fn graded_note(props: &QuestionProps) -> Option<String> {
    let grading = props.question.params_for(props.experiment, &props.params)?;
    graded_at_note(&grading, props.current.as_ref()?)
}

/// The unit of the question's metric column (grading converts to the answer's unit).
fn grading_unit(props: &QuestionProps) -> String {
    props.question.column_unit(props.experiment, &props.params)
}

/// The question's metric in a run's output.
fn value_in(q: &Question, out: &RunOutput) -> Option<f64> {
    out.metric(&q.metric, q.row.as_ref().map(|(k, v)| (k.as_str(), *v)))
}

/// Grades `answer` from the finished run of the grading parameters: at once if it is light or
/// already done (the page's own sweep, usually), else once the worker has run it.
fn check(
    props: &QuestionProps,
    answer: String,
    grade: &UseStateHandle<Option<Grade>>,
    pending: &UseStateHandle<Option<(RunKey, String)>>,
) {
    let q = props.question;
    let Some(key) = grading_key(props) else {
        return report(props, grade, q.grade_value(None, &grading_unit(props), &answer));
    };
    // Settings the model refuses (a rule between parameters, e.g. cores not a multiple of
    // sockets) never give a run to wait for: say so at once (not a try).
    if let Err(e) = key.experiment.validate(&key.params) {
        return report(props, grade, cannot_run(props, &answer, &e.to_string()));
    }
    match run::finished(&key) {
        Some(out) => report(props, grade, q.grade_value(value_in(q, &out), &grading_unit(props), &answer)),
        None => {
            run::want_agreed(key.clone());
            pending.set(Some((key, answer)));
        }
    }
}

/// The grade of an answer whose run cannot be had (refused settings, a failed worker): no
/// model value, and why, so the learner can change the parameters and check again.
fn cannot_run(props: &QuestionProps, answer: &str, why: &str) -> Grade {
    let mut g = props.question.grade_value(None, &grading_unit(props), answer);
    g.problem = format!("the model cannot run these settings ({why}); change the parameters and check again");
    g
}

/// The reason `props`' grading run cannot be had, if it cannot.
fn unrunnable(props: &QuestionProps) -> Option<String> {
    let key = grading_key(props)?;
    key.experiment.validate(&key.params).err().map(|e| e.to_string())
}

/// The explanation of a question answered on an earlier visit, with the model's value from the
/// grading run (the page's own run of the step, usually; no run is started for it): `None`
/// while an explanation that gives the value waits for that run, or if it has none.
fn explanation_before(props: &QuestionProps) -> Option<String> {
    let q = props.question;
    if q.explanation.is_empty() || !q.explanation.contains(ANSWER) {
        return (!q.explanation.is_empty()).then(|| q.explanation.clone());
    }
    let value = grading_key(props).and_then(|key| run::finished(&key)).and_then(|out| value_in(q, &out))?;
    Some(q.explanation_for(&q.grade_value(Some(value), &grading_unit(props), "")))
}

fn report(props: &QuestionProps, grade: &UseStateHandle<Option<Grade>>, g: Grade) {
    if g.correct {
        props.on_correct.emit(());
    }
    grade.set(Some(g));
}

/// Where the learner stands with the question.
#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    /// Graded answers so far, all wrong (0: none yet).
    Trying(u32),
    Right,
    /// Shown on request or after the last try.
    Shown,
}

/// What the learner predicted: the answer being checked, the first and the last graded ones
/// (each with the confidence said with it), and how the question ended. Kept in a ref: the
/// grade's effects write it, the render reads it.
#[derive(Debug, Clone, Default)]
struct SaidState {
    submitted: Option<(String, Option<Confidence>)>,
    first: Option<(String, Option<Confidence>)>,
    last: Option<(String, Option<Confidence>)>,
    ending: Option<ledger::Outcome>,
    recorded: bool,
}

type Said = std::rc::Rc<std::cell::RefCell<SaidState>>;

/// Once the question has ended with the model's value known, hands its ledger entry on (once).
#[hook]
fn use_record_ending(props: &QuestionProps, grade: &UseStateHandle<Option<Grade>>, said: &Said, outcome: Outcome) {
    let (props, said) = (props.clone(), said.clone());
    let model = grade.as_ref().map(|g| g.expected_with_unit.clone()).filter(|m| m != "?");
    use_effect_with((model, outcome), move |(model, _)| {
        let mut s = said.borrow_mut();
        if let (Some(model), Some(outcome), false) = (model, s.ending, s.recorded) {
            s.recorded = true;
            let unit = props.question.answer_unit(&grading_unit(&props));
            let (first, confidence) = s.first.clone().unwrap_or_default();
            let first = if first.is_empty() { first } else { in_unit(&props.question.kind, &first, &unit) };
            props.on_record.emit(Entry {
                first,
                confidence,
                model: model.clone(),
                outcome,
                practice: None,
                newer: Default::default(),
            });
        }
    });
}

/// Every redraw (a row arrived, a run finished): grades the waiting answer if its run is done,
/// else makes sure it is still asked for (a new visible run may have replaced it).
#[hook]
fn use_grade_when_run_finishes(
    props: &QuestionProps,
    grade: &UseStateHandle<Option<Grade>>,
    pending: &UseStateHandle<Option<(RunKey, String)>>,
) {
    let (props, grade, pending) = (props.clone(), grade.clone(), pending.clone());
    use_effect(move || {
        if let Some((key, answer)) = (*pending).clone() {
            match run::finished(&key) {
                Some(out) => {
                    pending.set(None);
                    report(
                        &props,
                        &grade,
                        props.question.grade_value(value_in(props.question, &out), &grading_unit(&props), &answer),
                    );
                }
                // The run failed (the worker crashed or refused it): waiting longer would
                // leave "Checking…" up for good.
                None => match run::state_of(&key).and_then(|s| s.job.error().map(str::to_string)) {
                    Some(e) => {
                        pending.set(None);
                        report(&props, &grade, cannot_run(&props, &answer, &e));
                    }
                    None => run::want_agreed(key),
                },
            }
        }
    });
}

/// A new grade (or a new submission, `submits`) moves the outcome on: right, one more wrong
/// try, or out of tries.
#[hook]
fn use_outcome_from_grade(
    outcome: &UseStateHandle<Outcome>,
    grade: &UseStateHandle<Option<Grade>>,
    submits: u32,
    on_settled: &Callback<()>,
    on_miss: &Callback<()>,
    said: &Said,
) {
    let (outcome, on_settled, on_miss, said) = (outcome.clone(), on_settled.clone(), on_miss.clone(), said.clone());
    use_effect_with(((**grade).clone(), submits), move |(g, _)| {
        if let (Some(g), Outcome::Trying(n)) = (g, *outcome) {
            // A graded answer (not one that could not be read) is a prediction.
            if g.problem.is_empty() {
                let mut s = said.borrow_mut();
                if let Some(sub) = s.submitted.clone() {
                    s.first.get_or_insert(sub.clone());
                    s.last = Some(sub);
                }
            }
            if !g.correct && g.problem.is_empty() {
                on_miss.emit(());
            }
            let next = if g.correct {
                Outcome::Right
            } else if !g.problem.is_empty() {
                Outcome::Trying(n)
            } else if n + 1 >= MAX_TRIES {
                Outcome::Shown
            } else {
                Outcome::Trying(n + 1)
            };
            if matches!(next, Outcome::Right | Outcome::Shown) {
                said.borrow_mut().ending = Some(match next {
                    Outcome::Right if n == 0 => ledger::Outcome::FirstTry,
                    Outcome::Right => ledger::Outcome::AfterRetry,
                    _ => ledger::Outcome::Revealed,
                });
                on_settled.emit(());
            }
            outcome.set(next);
        }
    });
}

/// "Show me the answer": settles the question and fetches the model's value if not graded yet.
fn show_answer(
    props: &QuestionProps,
    grade: &UseStateHandle<Option<Grade>>,
    pending: &UseStateHandle<Option<(RunKey, String)>>,
    outcome: &UseStateHandle<Outcome>,
    said: &Said,
) -> Callback<MouseEvent> {
    let (props, grade, pending, outcome) = (props.clone(), grade.clone(), pending.clone(), outcome.clone());
    let said = said.clone();
    Callback::from(move |_: MouseEvent| {
        // Settings the model refuses have no answer to show: say why, and stay open.
        if let Some(why) = unrunnable(&props) {
            grade.set(Some(cannot_run(&props, "", &why)));
            return;
        }
        // Grade an empty answer to fetch the model's value, then show it.
        said.borrow_mut().ending = Some(ledger::Outcome::Revealed);
        outcome.set(Outcome::Shown);
        props.on_settled.emit(());
        if grade.as_ref().is_none_or(|g| g.expected == "?") {
            check(&props, String::new(), &grade, &pending);
        }
    })
}

/// "Check": notes the answer and the confidence said with it, counts a try, and grades it.
fn on_check(
    props: &QuestionProps,
    answer: &UseStateHandle<String>,
    grade: &UseStateHandle<Option<Grade>>,
    pending: &UseStateHandle<Option<(RunKey, String)>>,
    submits: &UseStateHandle<u32>,
    said: &Said,
    confidence: &UseStateHandle<Option<Confidence>>,
) -> Callback<SubmitEvent> {
    let (answer, grade, pending, props) = (answer.clone(), grade.clone(), pending.clone(), props.clone());
    let (submits, said, confidence) = (submits.clone(), said.clone(), confidence.clone());
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        said.borrow_mut().submitted = Some(((*answer).clone(), *confidence));
        submits.set(*submits + 1);
        grade.set(None);
        check(&props, (*answer).clone(), &grade, &pending);
    })
}

#[function_component(QuestionBox)]
pub fn question_box(props: &QuestionProps) -> Html {
    let answer = use_state(String::new);
    let grade = use_state(|| None::<Grade>);
    let outcome = use_state_eq(|| if props.answered_before { Outcome::Right } else { Outcome::Trying(0) });
    // An answer waiting for the worker's run of the grading parameters.
    let pending = use_state(|| None::<(RunKey, String)>);
    // Counts submissions, so that two answers graded alike are still two tries.
    let submits = use_state(|| 0u32);
    let confidence = use_state(|| None::<Confidence>);
    let said: Said = use_mut_ref(SaidState::default);
    store::use_topic(Topic::Runs, None);
    use_grade_when_run_finishes(props, &grade, &pending);
    use_outcome_from_grade(&outcome, &grade, *submits, &props.on_settled, &props.on_miss, &said);
    use_record_ending(props, &grade, &said, *outcome);
    let waiting = pending.as_ref().map(|(key, _)| {
        run::state_of(key).map_or("waiting for the worker…".to_string(), |s| {
            format!("running the model: {} of {} points", s.rows.len(), s.job.total)
        })
    });
    let settled = matches!(*outcome, Outcome::Right | Outcome::Shown);
    let on_check = on_check(props, &answer, &grade, &pending, &submits, &said, &confidence);
    let on_show = show_answer(props, &grade, &pending, &outcome, &said);
    let answer_unit = props.question.answer_unit(&grading_unit(props));
    // The leak test (e2e/tests/leaks.test.mjs) reads the tolerance: a number on the page within
    // it of the revealed value, in any unit of the same kind, gives the answer away.
    let tolerance = match &props.question.kind {
        QuestionKind::Number { tolerance_pct } => Some(tolerance_pct.to_string()),
        QuestionKind::Choice { .. } => None,
    };
    html! {
        <section class="question card-flat" data-testid="question" aria-labelledby="question-title"
            data-tolerance-pct={tolerance}>
            <h3 id="question-title">{"Predict, then check"}</h3>
            <p class="prompt">{ &props.question.prompt }</p>
            if let Some(note) = graded_note(props) {
                <p class="muted graded-at" data-testid="graded-at">{ note }</p>
            }
            <form onsubmit={on_check}>
                { answer_input(&props.question.kind, &answer_unit, &answer) }
                if !settled {
                    { confidence_input(&confidence) }
                }
                <button class="btn btn-primary" type="submit" data-testid="check"
                    disabled={answer.trim().is_empty() || waiting.is_some() || settled}>
                    { if waiting.is_some() { "Checking…" } else { "Check" } }
                </button>
                if !settled {
                    <button class="btn btn-quiet" type="button" data-testid="show-answer" onclick={on_show}>
                        {"Show me the answer"}
                    </button>
                }
                if let Some(w) = &waiting {
                    <span class="muted" data-testid="checking">{ w }</span>
                }
            </form>
            // One live region, always present, so that every verdict (the first too) is announced.
            <div aria-live="polite" aria-atomic="true" data-testid="verdict">
                { grade.as_ref().map(|g| verdict(g, *outcome, props.question)).unwrap_or_default() }
                { grade.as_ref().map(|g| comparison(g, &said.borrow(), *outcome, props.question, &answer_unit)).unwrap_or_default() }
                if settled && grade.is_none() && waiting.is_none() {
                    <p class="grade grade-right" data-testid="grade">{"✓ You answered this one before."}
                        if let Some(explanation) = explanation_before(props) { {" "}{ explanation } }</p>
                }
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests;
