//! "Predict, then check": a step's question, graded by running the model.

use skblab_core::{Experiment, Params};
use skblab_lessons::{Grade, Question, QuestionKind};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, Clone)]
pub struct QuestionProps {
    pub question: &'static Question,
    pub experiment: &'static dyn Experiment,
    /// The page's current parameters (the question's own params override them when grading).
    pub params: Params,
    /// Called when the answer is right.
    pub on_correct: Callback<()>,
}

impl PartialEq for QuestionProps {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.question, other.question)
            && self.experiment.id() == other.experiment.id()
            && self.params == other.params
            && self.on_correct == other.on_correct
    }
}

/// Grades `answer` and reports the verdict: from the worker's finished sweep when it already
/// has the value, else by running the model (after a paint, for a heavy experiment).
fn check(props: &QuestionProps, answer: String, grade: UseStateHandle<Option<Grade>>, checking: UseStateHandle<bool>) {
    let (q, experiment, params, on_correct) =
        (props.question, props.experiment, props.params.clone(), props.on_correct.clone());
    let report = move |g: Grade| {
        if g.correct {
            on_correct.emit(());
        }
        grade.set(Some(g));
    };
    let known = q
        .params_for(experiment, &params)
        .and_then(|p| crate::views::precomputed_metric(experiment.id(), &p, &q.metric, q.row.as_ref()));
    if let Some(value) = known {
        return report(q.grade_value(Some(value), &answer));
    }
    if !crate::views::runs_in_worker(experiment.id()) {
        return report(q.grade(experiment, &params, &answer));
    }
    checking.set(true);
    // Let the browser paint the "checking…" state before the main thread is busy.
    yew::platform::spawn_local(async move {
        yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
        report(q.grade(experiment, &params, &answer));
        checking.set(false);
    });
}

/// The answer control: a text box for a number, radio buttons for a choice.
fn answer_input(kind: &QuestionKind, answer: &UseStateHandle<String>) -> Html {
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
                        placeholder="your prediction" value={(**answer).clone()} oninput={set_answer} />
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
    // Grading a heavy experiment without a finished sweep runs the model: "checking…" first.
    let checking = use_state_eq(|| false);
    let on_check = {
        let (answer, grade, checking, props) = (answer.clone(), grade.clone(), checking.clone(), props.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            grade.set(None);
            check(&props, (*answer).clone(), grade.clone(), checking.clone());
        })
    };
    html! {
        <section class="question card-flat" data-testid="question" aria-labelledby="question-title">
            <h3 id="question-title">{"Predict, then check"}</h3>
            <p class="prompt">{ &props.question.prompt }</p>
            <form onsubmit={on_check}>
                { answer_input(&props.question.kind, &answer) }
                <button class="btn btn-primary" type="submit" data-testid="check"
                    disabled={answer.trim().is_empty() || *checking}>
                    { if *checking { "Checking…" } else { "Check" } }
                </button>
                if *checking {
                    <span class="muted" role="status" data-testid="checking">{"running the model…"}</span>
                }
            </form>
            if grade.is_none() {
                <div aria-live="polite"></div>
            }
            { grade.as_ref().map(|g| verdict(g, &props.question.explanation)).unwrap_or_default() }
        </section>
    }
}
