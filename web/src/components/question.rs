//! "Predict, then check": a step's question, graded by running the model.

use crate::run::{self, RunKey};
use crate::store::{self, Topic};
use skblab_core::{Experiment, Params, RunOutput, DEFAULT_SEED};
use skblab_lessons::{Grade, Question, QuestionKind};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, Clone)]
pub struct QuestionProps {
    pub question: &'static Question,
    pub experiment: &'static dyn Experiment,
    /// The page's current parameters (the question's own params override them when grading).
    pub params: Params,
    pub seed: u64,
    /// Called when the answer is right.
    pub on_correct: Callback<()>,
}

impl PartialEq for QuestionProps {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.question, other.question)
            && self.experiment.id() == other.experiment.id()
            && self.params == other.params
            && self.seed == other.seed
            && self.on_correct == other.on_correct
    }
}

/// The run a question is graded from: the page's parameters with the question's on top, at
/// the default seed (as the lessons checker grades it). `None` if the question's settings do
/// not apply (a bug in the lesson, caught by the checker).
fn grading_key(props: &QuestionProps) -> Option<RunKey> {
    let e = props.experiment;
    let p = props.question.params_for(e, &props.params)?;
    Some(RunKey { experiment: e, params: e.resolve(&p), seed: DEFAULT_SEED })
}

/// The unit the question's metric is shown in (its column's unit).
fn grading_unit(props: &QuestionProps) -> String {
    props.question.unit(props.experiment, &props.params)
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
    match run::finished(&key) {
        Some(out) => report(props, grade, q.grade_value(value_in(q, &out), &grading_unit(props), &answer)),
        None => {
            run::want(key.clone());
            pending.set(Some((key, answer)));
        }
    }
}

fn report(props: &QuestionProps, grade: &UseStateHandle<Option<Grade>>, g: Grade) {
    if g.correct {
        props.on_correct.emit(());
    }
    grade.set(Some(g));
}

/// The answer control: a text box for a number, radio buttons for a choice.
fn answer_input(kind: &QuestionKind, unit: &str, answer: &UseStateHandle<String>) -> Html {
    match kind {
        QuestionKind::Number { .. } => {
            let set_answer = {
                let answer = answer.clone();
                Callback::from(move |e: InputEvent| answer.set(e.target_unchecked_into::<HtmlInputElement>().value()))
            };
            html! {
                <div class="answer-row">
                    <label for="answer" class="visually-hidden">{"Your answer"}</label>
                    <input id="answer" data-testid="answer" type="text" inputmode="decimal" autocomplete="off"
                        placeholder="your prediction" value={(**answer).clone()} oninput={set_answer}
                        aria-describedby="answer-unit" />
                    if !unit.is_empty() {
                        <span id="answer-unit" class="answer-unit" data-testid="answer-unit">{ unit.to_string() }</span>
                    }
                </div>
            }
        }
        QuestionKind::Choice { choices } => html! {
            <fieldset class="choices">
                <legend class="visually-hidden">{"Choices"}</legend>
                { for choices.iter().map(|c| {
                    let answer = answer.clone();
                    let value = c.clone();
                    html! {
                        <label class="choice">
                            <input type="radio" name="answer" value={c.clone()} checked={**answer == *c}
                                data-testid={format!("choice-{c}")}
                                onchange={move |_| answer.set(value.clone())} />
                            { c }
                        </label>
                    }
                }) }
            </fieldset>
        },
    }
}

fn verdict(g: &Grade, explanation: &str) -> Html {
    let class = if g.correct { "grade grade-right" } else { "grade grade-wrong" };
    html! {
        <div class={class} data-testid="grade" role="status">
            <strong>{ if g.correct { "✓ Right" } else { "✗ Not quite" } }</strong>
            { if g.correct { format!(" — the model says {}.", g.expected) } else { format!(" — {}", g.message) } }
            <p>{ explanation }</p>
        </div>
    }
}

#[function_component(QuestionBox)]
pub fn question_box(props: &QuestionProps) -> Html {
    let answer = use_state(String::new);
    let grade = use_state(|| None::<Grade>);
    // An answer waiting for the worker's run of the grading parameters.
    let pending = use_state(|| None::<(RunKey, String)>);
    store::use_topic(Topic::Runs, None);
    {
        // Every redraw (a row arrived, a run finished): grade the waiting answer if its run is
        // done, else make sure it is still asked for (a new visible run may have replaced it).
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
                    None => run::want(key),
                }
            }
        });
    }
    let waiting = pending.as_ref().map(|(key, _)| {
        run::state_of(key).map_or("waiting for the worker…".to_string(), |s| {
            format!("running the model: {} of {} points", s.rows.len(), s.n_points)
        })
    });
    let on_check = {
        let (answer, grade, pending, props) = (answer.clone(), grade.clone(), pending.clone(), props.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            grade.set(None);
            check(&props, (*answer).clone(), &grade, &pending);
        })
    };
    html! {
        <section class="question card-flat" data-testid="question" aria-labelledby="question-title">
            <h3 id="question-title">{"Predict, then check"}</h3>
            <p class="prompt">{ &props.question.prompt }</p>
            <form onsubmit={on_check}>
                { answer_input(&props.question.kind, &grading_unit(props), &answer) }
                <button class="btn btn-primary" type="submit" data-testid="check"
                    disabled={answer.trim().is_empty() || waiting.is_some()}>
                    { if waiting.is_some() { "Checking…" } else { "Check" } }
                </button>
                if let Some(w) = &waiting {
                    <span class="muted" role="status" data-testid="checking">{ w }</span>
                }
            </form>
            if grade.is_none() {
                <div aria-live="polite"></div>
            }
            { grade.as_ref().map(|g| verdict(g, &props.question.explanation)).unwrap_or_default() }
        </section>
    }
}
