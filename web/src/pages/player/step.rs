//! A lesson step: its text, its question (graded at the step's own parameters), the step's
//! buttons, "How we know", and on the last step the lesson's end (the tally, the prediction
//! ledger, the next lesson) and its sources. The playground has only the reset button.

use super::practice::{practice_bar, practice_notice, PracticeHandle};
use super::state::{Action, Page};
use super::PageState;
use crate::components::question::QuestionBox;
use crate::hooks::{ProgressCtx, Record};
use crate::route::{self, Route};
use yew::prelude::*;

pub(super) fn step_body(
    page: &Page,
    progress: &ProgressCtx,
    state: &UseReducerHandle<PageState>,
    settled: &UseStateHandle<bool>,
    answered_before: bool,
    practice: &PracticeHandle,
    on_arrows: &Callback<KeyboardEvent>,
) -> Html {
    let dispatcher = state.dispatcher();
    let send = move |action: Action| {
        let d = dispatcher.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(action.clone()))
    };
    let (Some(lesson), Some(step)) = (page.lesson, page.lesson.and_then(|l| l.steps.get(page.step))) else {
        return html! {
            <div class="step-actions">
                <button class="btn" type="button" onclick={send(Action::ResetStep)} data-testid="reset-step">{"Reset to defaults"}</button>
                <a class="btn" href={route::href(Route::Play { experiment: None })}>{"All experiments"}</a>
            </div>
        };
    };
    let n = lesson.steps.len();
    // Rendered from the lesson's Markdown at build time (trusted, compiled-in content).
    let body = Html::from_html_unchecked(AttrValue::from(step.body_html.as_str()));
    // The ledger shows model values: not while this step's question is open and was never
    // answered (nor during a practice).
    let hold_ledger = practice.active().is_some()
        || (step.question.is_some()
            && !**settled
            && !answered_before
            && progress.ledger.get(&lesson.slug, page.step).is_none());
    let next = send(Action::Next);
    html! {
        <article class="step card-flat" aria-labelledby="step-title">
            <p class="eyebrow">{ format!("Step {} of {n}", page.step + 1) }</p>
            <h2 id="step-title" data-testid="step-title" tabindex="-1">{ &step.title }</h2>
            { practice_notice(practice) }
            { practice_bar(page, lesson, progress, state, practice) }
            <div class="prose">{ body }</div>
            { step_question(page, lesson, step, progress, settled, answered_before, practice) }
            <div class="step-actions" onkeydown={on_arrows.clone()}>
                <button class="btn" type="button" onclick={send(Action::Prev)} disabled={page.step == 0}
                    id="prev-step" data-testid="prev-step" aria-keyshortcuts="ArrowLeft">{"← Previous"}</button>
                <button class="btn" type="button" onclick={send(Action::ResetStep)} data-testid="reset-step">{"Reset step"}</button>
                <button class="btn btn-primary" type="button" onclick={next} disabled={page.step + 1 >= n}
                    id="next-step" data-testid="next-step" aria-keyshortcuts="ArrowRight">{"Next →"}</button>
            </div>
            if page.step + 1 == n {
                { lesson_end(lesson, progress, hold_ledger) }
            }
            { how_we_know(lesson) }
            if page.step + 1 == n && !lesson.sources.is_empty() {
                <section class="lesson-sources">
                    <h3>{"Sources"}</h3>
                    <ul>{ for lesson.sources.iter().map(|s| html! { <li>{ crate::cite::linkify(s) }</li> }) }</ul>
                </section>
            }
        </article>
    }
}

/// "How we know", on every step, folded: which of the lesson's statements are the
/// kernel's (each with its versions and source), which are the model's simplifications, and
/// where the model differs from the kernel the seed post ran. A native `<details>` (keyboard and
/// screen readers know it); it stays as the learner left it from step to step, and nothing
/// opens it for them: the notes keep model numbers out, and the leaks test (e2e) reads them as
/// readable text all the same. An empty list is left out; with all three empty, the note is.
fn how_we_know(lesson: &skblab_lessons::Lesson) -> Html {
    let h = &lesson.how_we_know;
    let lists = [
        ("kernel", "From the kernel (with sources)", &h.kernel_html),
        ("model", "The model's simplifications (ours)", &h.model_html),
        ("seed-kernel", "Where the model differs from the seed's kernel", &h.seed_kernel_html),
    ];
    if lists.iter().all(|(_, _, items)| items.is_empty()) {
        return html! {};
    }
    html! {
        <details class="how-we-know" data-testid="how-we-know">
            <summary><h3>{"How we know"}</h3></summary>
            { for lists.iter().filter(|(_, _, items)| !items.is_empty()).map(|(id, title, items)| html! {
                <div class="how-we-know-list" data-testid={format!("how-we-know-{id}")}>
                    <h4>{ *title }</h4>
                    <ul>
                        // Rendered from the lesson's Markdown at build time (trusted, compiled-in
                        // content, as a step's body), its citations linked here.
                        { for items.iter().map(|item| html! {
                            <li>{ Html::from_html_unchecked(AttrValue::from(crate::cite::linkify_html(item))) }</li>
                        }) }
                    </ul>
                </div>
            }) }
        </details>
    }
}

/// The step's question, if it has one: graded at the step's own parameters, not the learner's
/// knobs (question.rs); a practice asks afresh (a new key: a new question box).
fn step_question(
    page: &Page,
    lesson: &skblab_lessons::Lesson,
    step: &'static skblab_lessons::Step,
    progress: &ProgressCtx,
    settled: &UseStateHandle<bool>,
    answered_before: bool,
    practice: &PracticeHandle,
) -> Html {
    let Some(q) = &step.question else { return html! {} };
    let practising = practice.practising(page.step);
    let mark_correct = {
        let (cb, slug, i) = (progress.mark_correct.clone(), lesson.slug.clone(), page.step);
        Callback::from(move |_| cb.emit((slug.clone(), i)))
    };
    let on_settled = {
        let settled = settled.clone();
        Callback::from(move |_| settled.set(true))
    };
    let on_record = record_for(progress, &lesson.slug, page.step, practising);
    // The practice schedule (review.rs): a wrong answer as it is graded, and how it ended.
    let on_miss = {
        let (cb, slug, i) = (progress.schedule.clone(), lesson.slug.clone(), page.step);
        Callback::from(move |()| cb.emit((slug.clone(), i, false)))
    };
    let on_record = {
        let (cb, slug, i) = (progress.schedule.clone(), lesson.slug.clone(), page.step);
        on_record.reform(move |entry: crate::ledger::Entry| {
            cb.emit((slug.clone(), i, entry.outcome == crate::ledger::Outcome::FirstTry));
            entry
        })
    };
    // A question ended in a practice is done there (kept across a reload).
    let on_record = match practising {
        true => {
            let (practice, step) = (practice.clone(), page.step);
            on_record.reform(move |entry| {
                practice.mark_done(step);
                entry
            })
        }
        false => on_record,
    };
    html! {
        <QuestionBox key={format!("{}{}", page.step, if practising { "-practice" } else { "" })}
            question={q} experiment={page.experiment}
            params={crate::components::question::step_params(page.experiment, step)} seed={page.seed} on_correct={mark_correct} {on_settled}
            {answered_before} {on_record} {on_miss} current={Some(page.params.clone())} />
    }
}

/// The prediction ledger of a lesson: per question, the first prediction, how sure the learner
/// was, the model's value and how it ended; then the calibration line.
fn ledger_table(lesson: &skblab_lessons::Lesson, progress: &ProgressCtx) -> Html {
    let Some(entries) = progress.ledger.0.get(&lesson.slug).filter(|m| !m.is_empty()) else { return html! {} };
    let cal = crate::ledger::calibration_line(&progress.ledger.calibration(&lesson.slug));
    html! {
        <section class="ledger" data-testid="ledger" aria-labelledby="ledger-title">
            <h4 id="ledger-title">{"Your predictions"}</h4>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="ledger-title">
            <table class="ledger-table">
                <thead><tr>
                    <th scope="col">{"Step"}</th><th scope="col">{"Question"}</th>
                    <th scope="col">{"Your first prediction"}</th><th scope="col">{"Confidence"}</th>
                    <th scope="col">{"Model"}</th><th scope="col">{"Outcome"}</th>
                </tr></thead>
                <tbody>
                { for entries.iter().filter_map(|(&i, e)| {
                    let step = lesson.steps.get(i)?;
                    let q = step.question.as_ref()?;
                    let outcome = match e.practice {
                        Some(p) => format!("{}; practised: {}", e.outcome.label(), p.label()),
                        None => e.outcome.label().to_string(),
                    };
                    Some(html! {
                        <tr data-testid={format!("ledger-row-{}", i + 1)}>
                            <td data-label="Step">{ i + 1 }</td>
                            <td class="ledger-prompt" data-label="Question">{ &q.prompt }</td>
                            <td data-label="Your first prediction">{ if e.first.is_empty() { "—".to_string() } else { e.first.clone() } }</td>
                            <td data-label="Confidence">{ e.confidence.map_or("—", |c| c.label()) }</td>
                            <td data-label="Model">{ &e.model }</td>
                            <td data-label="Outcome">{ outcome }</td>
                        </tr>
                    })
                }) }
                </tbody>
            </table>
            </div>
            if let Some(line) = cal {
                <p data-testid="calibration">{ line }</p>
            }
        </section>
    }
}

/// The callback that records how step `step`'s question ended in the ledger.
fn record_for(progress: &ProgressCtx, slug: &str, step: usize, practice: bool) -> Callback<crate::ledger::Entry> {
    let (cb, slug) = (progress.record.clone(), slug.to_string());
    Callback::from(move |entry| cb.emit(Record { slug: slug.clone(), step, entry, practice }))
}

/// The end of a lesson: what the learner did, the prediction ledger, and the way on. The ledger
/// shows the model's values, so it waits (`hold_ledger`) while the last step's question is
/// open or a practice is under way: predict first (e2e/tests/leaks.test.mjs).
fn lesson_end(lesson: &skblab_lessons::Lesson, progress: &ProgressCtx, hold_ledger: bool) -> Html {
    let has_question: Vec<bool> = lesson.steps.iter().map(|s| s.question.is_some()).collect();
    let t = progress.progress.tally(&lesson.slug, &has_question);
    let written: Vec<_> =
        skblab_lessons::index().iter().filter(|e| e.status == skblab_lessons::Status::Written).collect();
    let next = written.iter().skip_while(|e| e.slug != lesson.slug).nth(1);
    html! {
        <section class="lesson-end" data-testid="lesson-end" aria-labelledby="lesson-end-title">
            <h3 id="lesson-end-title">{"End of the lesson"}</h3>
            <p data-testid="lesson-tally">
                { format!("Steps visited: {} of {}. Questions answered right: {} of {}.", t.visited, t.steps, t.correct, t.questions) }
            </p>
            if !hold_ledger {
                { ledger_table(lesson, progress) }
            } else if progress.ledger.0.get(&lesson.slug).is_some_and(|m| !m.is_empty()) {
                <p class="muted" data-testid="ledger-held">{"Your predictions are listed here once this step's question is answered."}</p>
            }
            if let Some(next) = next {
                <p><a class="btn btn-primary" data-testid="next-lesson"
                    href={route::href(Route::Lesson { slug: next.slug.clone(), step: 1 })}>
                    { format!("Next lesson: {} →", next.title) }</a></p>
            } else {
                <p>{"That was the last lesson written so far. "}
                    <a href={route::href(Route::Home)}>{"Back to the course"}</a></p>
            }
        </section>
    }
}
