//! What the question box shows around the learner's answer: the answer control (a text box
//! with the unit, or radio buttons), "How sure are you?", the verdict line (hint and
//! explanation once due) and, once settled, the prediction beside the model's value with the
//! gap between them.

use super::{Outcome, SaidState, MAX_TRIES};
use crate::ledger::{self, Confidence};
use skblab_lessons::{parse_answer, Grade, Question, QuestionKind};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A prediction in the question's unit ("0.5 KiB" reads as 512 bytes), or as typed if it is
/// not a number (a choice).
pub(super) fn in_unit(kind: &QuestionKind, answer: &str, unit: &str) -> String {
    match (kind, parse_answer(answer, unit)) {
        (QuestionKind::Number { .. }, Ok(v)) => with_unit(&fmt_number(v), unit),
        _ => answer.trim().to_string(),
    }
}

fn with_unit(v: &str, unit: &str) -> String {
    if unit.is_empty() {
        v.to_string()
    } else {
        format!("{v} {unit}")
    }
}

/// A number as the page prints it: whole numbers as they are, others to three significant
/// digits.
fn fmt_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// The gap between a prediction and the model's value, in the unit and relative to the
/// model's value: "a gap of −388 bytes (−79.5 %)"; `None` for a choice or an unreadable one.
fn gap(kind: &QuestionKind, answer: &str, expected: &str, unit: &str) -> Option<String> {
    let QuestionKind::Number { .. } = kind else { return None };
    let (a, e) = (parse_answer(answer, unit).ok()?, parse_answer(expected, unit).ok()?);
    let d = a - e;
    if d.abs() < 1e-12 {
        return Some("no gap".to_string());
    }
    let sign = |x: f64| if x < 0.0 { "−" } else { "+" };
    let abs = with_unit(&fmt_number(d.abs()), unit);
    let rel = (e != 0.0).then(|| format!(" ({}{} %)", sign(d), fmt_number((d / e * 100.0).abs())));
    Some(format!("a gap of {}{abs}{}", sign(d), rel.unwrap_or_default()))
}

/// "You predicted X, the model says Y: a gap of …", once the question is settled (never
/// before: the model's value would give the answer away), and the first prediction's gap
/// too when the right one came after a retry.
pub(super) fn comparison(g: &Grade, said: &SaidState, outcome: Outcome, q: &Question, unit: &str) -> Html {
    if !matches!(outcome, Outcome::Right | Outcome::Shown) || g.expected == "?" {
        return html! {};
    }
    let revealed = said.ending == Some(ledger::Outcome::Revealed);
    let line = |(answer, confidence): &(String, Option<Confidence>), first: bool| {
        let sure = confidence.map(|c| format!(" ({})", c.label())).unwrap_or_default();
        let gap = gap(&q.kind, answer, &g.expected, unit).map(|g| format!(": {g}")).unwrap_or_default();
        let who = if first { "Your first prediction was" } else { "You predicted" };
        format!("{who} {}{sure}, the model says {}{gap}.", in_unit(&q.kind, answer, unit), g.expected_with_unit)
    };
    let mut lines = Vec::new();
    match &said.last {
        Some(last) => lines.push(line(last, false)),
        None => lines.push(format!("You did not predict; the model says {}.", g.expected_with_unit)),
    }
    if let (Some(first), Some(last)) = (&said.first, &said.last) {
        if first.0 != last.0 {
            lines.push(line(first, true));
        }
    }
    html! {
        <p class="prediction" data-testid="prediction">
            { lines.join(" ") }
            if revealed { {" "}<span class="tag" data-testid="prediction-revealed">{"(revealed)"}</span> }
        </p>
    }
}

/// "How sure are you?": an optional radio group, said before checking.
pub(super) fn confidence_input(confidence: &UseStateHandle<Option<Confidence>>) -> Html {
    html! {
        <fieldset class="confidence" data-testid="confidence">
            <legend>{"How sure are you? "}<span class="muted">{"(optional)"}</span></legend>
            { for Confidence::ALL.iter().map(|&c| {
                let confidence = confidence.clone();
                html! {
                    <label class="choice">
                        <input type="radio" name="confidence" value={c.id()} checked={*confidence == Some(c)}
                            data-testid={format!("confidence-{}", c.id())}
                            onchange={move |_| confidence.set(Some(c))} />
                        { c.label() }
                    </label>
                }
            }) }
        </fieldset>
    }
}

/// The answer control: a text box for a number, radio buttons for a choice.
pub(super) fn answer_input(kind: &QuestionKind, unit: &str, answer: &UseStateHandle<String>) -> Html {
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

/// The verdict line: what the last answer earned, without giving the value away until the
/// question is settled.
pub(super) fn verdict(g: &Grade, outcome: Outcome, q: &Question) -> Html {
    let direction = g.direction.map(|d| format!(" The model's value is {d}.")).unwrap_or_default();
    let (class, head, text) = match outcome {
        // No model value (its run failed or was refused): why, whatever the outcome.
        _ if g.expected == "?" && !g.problem.is_empty() => {
            ("grade grade-wrong", "Not graded:", format!(" {}", g.problem))
        }
        Outcome::Right => ("grade grade-right", "✓ Right.", format!(" The model says {}.", g.expected_with_unit)),
        Outcome::Shown => ("grade grade-shown", "The answer:", format!(" the model says {}.", g.expected_with_unit)),
        Outcome::Trying(_) if !g.problem.is_empty() => ("grade grade-wrong", "Not graded:", format!(" {}", g.problem)),
        Outcome::Trying(n) => {
            let left = MAX_TRIES.saturating_sub(n);
            let tries = if left == 1 { "1 try left".to_string() } else { format!("{left} tries left") };
            ("grade grade-wrong", "✗ Not quite.", format!("{direction} {tries}."))
        }
    };
    let settled = matches!(outcome, Outcome::Right | Outcome::Shown);
    html! {
        <div class={class} data-testid="grade">
            <strong>{ head }</strong>{ text }
            if matches!(outcome, Outcome::Trying(n) if n >= 1) && !q.hint.is_empty() {
                <p class="hint" data-testid="hint"><strong>{"Hint: "}</strong>{ &q.hint }</p>
            }
            if settled && !q.explanation.is_empty() {
                <p data-testid="explanation">{ q.explanation_for(g) }</p>
            }
        </div>
    }
}
