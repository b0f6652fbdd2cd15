//! The home page (`#/`): the lesson cards with the learner's progress.

use crate::components::repro_table::error_class;
use crate::hooks::ProgressCtx;
use crate::route::{self, Route};
use skblab_core::calibrate::tables::Verdict;
use skblab_core::validate::{snapshot, TableReport};
use skblab_lessons::{IndexEntry, Status};
use std::rc::Rc;
use yew::prelude::*;

#[function_component(Home)]
pub fn home() -> Html {
    let progress = use_context::<ProgressCtx>().expect("ProgressCtx is provided by App");
    // What `skblab validate` says of each seed table (the Validation page's snapshot).
    let tables: Rc<Vec<TableReport>> = use_memo((), |_| snapshot().map(|v| v.tables).unwrap_or_default());
    let index = skblab_lessons::index();
    let ready = index.iter().filter(|e| e.status == Status::Written).count();
    // The primary action is the course's first lesson (the playground is for later).
    let first = index.iter().find(|e| e.status == Status::Written);
    // Playable lessons are numbered in course order; coming ones carry no number.
    let mut number = 0;
    let numbers: Vec<Option<usize>> = index
        .iter()
        .map(|e| {
            (e.status == Status::Written).then(|| {
                number += 1;
                number
            })
        })
        .collect();
    html! {
        <div class="home">
            <section class="hero">
                <h1>{"See where the bytes of a packet go"}</h1>
                <p class="lead">
                    {"Seven short lessons on Linux networking memory. Each one rebuilds a number that kernel \
                      developers posted to netdev or linux-mm, with a model you can poke at: predict, then check."}
                </p>
                <p class="hero-links">
                    if let Some(first) = first {
                        <a class="btn btn-primary" data-testid="start-first-lesson"
                            href={route::href(Route::Lesson { slug: first.slug.clone(), step: 1 })}>
                            { format!("Start with lesson 1: {}", first.title) }</a>
                    }
                    <a class="btn" href={route::href(Route::Play { experiment: None })}>{"Open the playground"}</a>
                    <a class="btn" href={route::href(Route::About)}>{"Sources and model assumptions"}</a>
                </p>
            </section>
            { due_line(index, &progress) }
            <h2 class="section-title">{"The course"}</h2>
            <p class="course-note" data-testid="course-note">
                { if ready == index.len() {
                    format!("All {ready} lessons are ready. ")
                } else {
                    format!("{ready} of {} lessons are ready; the others are marked \"coming\". ", index.len())
                } }
                {"Each card says how close its model comes to its source's numbers: some it predicts, \
                  some it misses by far, and the lesson says why ("}
                <a href={route::href(Route::Validation)}>{"the Validation page"}</a>{" has every number). "}
                {"Each card names its seed: the source post (numbered 000 to 004) whose measured numbers the \
                  lesson rebuilds — a mail to netdev or linux-mm, cited on "}
                <a href={route::href(Route::About)}>{"the sources page"}</a>{"."}
            </p>
            <ol class="cards">
                { for index.iter().zip(numbers).map(|(e, n)| card(n, e, &progress, &tables)) }
            </ol>
            <ResetProgress />
        </div>
    }
}

/// "3 questions due for practice": the questions the practice schedule (review.rs) has due
/// now, with a link to each lesson that has some (its first step offers the practice);
/// nothing when none is due.
fn due_line(index: &[IndexEntry], progress: &ProgressCtx) -> Html {
    let now = js_sys::Date::now();
    let due: Vec<(&IndexEntry, usize)> = index
        .iter()
        .filter(|e| e.status == Status::Written)
        .map(|e| (e, crate::review::due_in(&progress.review, &progress.ledger, &e.slug, &e.questions, now).len()))
        .filter(|(_, n)| *n > 0)
        .collect();
    let total: usize = due.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return html! {};
    }
    let links = due.iter().enumerate().map(|(k, (e, n))| {
        html! { <>
            { if k == 0 { "" } else { ", " } }
            <a href={route::href(Route::Lesson { slug: e.slug.clone(), step: 1 })}>{ &e.title }</a>
            { format!(" ({n})") }
        </> }
    });
    html! {
        <p class="due-line" data-testid="due-line" role="status">
            <strong>{ if total == 1 { "1 question due for practice".to_string() } else { format!("{total} questions due for practice") } }</strong>
            {": "}{ for links }{"."}
        </p>
    }
}

/// "Reset my progress": asks once more, then forgets every visited step and right answer.
#[function_component(ResetProgress)]
fn reset_progress() -> Html {
    let progress = use_context::<ProgressCtx>().expect("ProgressCtx is provided by App");
    // None: the button; Some(false): asking; Some(true): done.
    let stage = use_state_eq(|| None::<bool>);
    let set = |to: Option<bool>| {
        let stage = stage.clone();
        Callback::from(move |_: MouseEvent| stage.set(to))
    };
    let confirm = {
        let (stage, reset) = (stage.clone(), progress.reset.clone());
        Callback::from(move |_: MouseEvent| {
            reset.emit(());
            stage.set(Some(true));
        })
    };
    let empty = progress.progress.is_empty() && progress.ledger.is_empty() && progress.review.is_empty();
    html! {
        <section class="reset-progress" aria-labelledby="reset-progress-title">
            <h2 id="reset-progress-title" class="visually-hidden">{"Your progress"}</h2>
            <p class="muted">{"Your progress stays in this browser only (localStorage); nothing leaves this page."}</p>
            <div role="status">
                { match *stage {
                    Some(false) => html! {
                        <p>{"Forget every visited step, right answer and prediction of every lesson? "}
                            <button class="btn btn-small" type="button" data-testid="reset-progress-confirm" onclick={confirm}>{"Yes, reset my progress"}</button>{" "}
                            <button class="btn btn-small" type="button" data-testid="reset-progress-cancel" onclick={set(None)}>{"Keep it"}</button></p>
                    },
                    Some(true) => html! { <p data-testid="reset-progress-done">{"Your progress is reset."}</p> },
                    None => html! {},
                } }
            </div>
            if stage.is_none() {
                <button class="btn btn-small" type="button" data-testid="reset-progress" disabled={empty}
                    onclick={set(Some(false))}>{"Reset my progress"}</button>
            }
        </section>
    }
}

/// One seed table as a card says it, from its `skblab validate` verdict and errors: exact
/// arithmetic, predicted within (or missing by) its error, or fitted with its in-sample and
/// held-out errors. The error that colours it: a prediction's, a fit's held-out one (an
/// in-sample error shows little, so a fit without a split is not coloured).
pub fn table_phrase(t: &TableReport) -> (String, Option<f64>) {
    let pct = |e: f64| if e < 10.0 { format!("{e:.1} %") } else { format!("{e:.0} %") };
    match (t.verdict, t.out_of_sample_mape.or(t.in_sample_mape)) {
        (Verdict::Arithmetic, _) => (format!("{}: exact arithmetic", t.table), None),
        (_, None) => (format!("{}: not measured yet", t.table), None),
        (Verdict::Prediction, Some(e)) if e <= 12.0 => (format!("{}: predicted within {}", t.table, pct(e)), Some(e)),
        (Verdict::Prediction, Some(e)) => (format!("{}: predicted, misses by {}", t.table, pct(e)), Some(e)),
        (Verdict::Fit, Some(_)) => {
            let constants = if t.fitted == 1 { "1 constant".to_string() } else { format!("{} constants", t.fitted) };
            let inside = t.in_sample_mape.map(|e| format!(", {} in sample", pct(e))).unwrap_or_default();
            let held = match t.out_of_sample_mape {
                Some(e) => format!(", {} held out", pct(e)),
                None => String::new(),
            };
            (format!("{}: fitted ({constants}){inside}{held}", t.table), t.out_of_sample_mape)
        }
    }
}

/// The card's line of verdicts: one phrase per seed table of the lesson's experiment.
fn verdicts(experiment: &str, tables: &[TableReport]) -> Html {
    let mine: Vec<&TableReport> = tables.iter().filter(|t| t.experiment == experiment).collect();
    if mine.is_empty() {
        return html! {};
    }
    let phrase = |t: &&TableReport| {
        let (text, err) = table_phrase(t);
        let class = err.map(error_class).unwrap_or("err-badge-none");
        html! { <li class={classes!("err-badge", class)}>{ text }</li> }
    };
    html! {
        <ul class="card-verdicts" data-testid={format!("verdicts-{experiment}")} aria-label="model against the source">
            { for mine.iter().map(phrase) }
        </ul>
    }
}

fn card(number: Option<usize>, entry: &IndexEntry, progress: &ProgressCtx, tables: &[TableReport]) -> Html {
    let testid = format!("lesson-card-{}", entry.slug);
    let number =
        number.map(|n| html! { <span class="card-number" aria-hidden="true">{ n }</span> }).unwrap_or_default();
    let seed = html! { <span class="tag" title="the source post this lesson rebuilds">{ format!("seed {}", entry.seed) }</span> };
    match entry.status {
        Status::Written => {
            let t = progress.progress.tally(&entry.slug, &entry.questions);
            let href = route::href(Route::Lesson { slug: entry.slug.clone(), step: 1 });
            html! {
                <li class="card" data-testid={testid}>
                    <a class="card-link" {href}>
                        <div class="card-top">{ number }{ seed }</div>
                        <h3>{ &entry.title }</h3>
                        <p>{ &entry.summary }</p>
                        { verdicts(&entry.experiment, tables) }
                        <div class="card-progress" data-testid={format!("progress-{}", entry.slug)}>
                            <progress max={t.steps.to_string()} value={t.visited.to_string()}
                                aria-label={format!("{}: steps visited", entry.title)} />
                            <span>{ format!("{} / {} steps visited · {} / {} answered right", t.visited, t.steps, t.correct, t.questions) }</span>
                        </div>
                    </a>
                </li>
            }
        }
        Status::Coming => html! {
            <li class="card card-coming" data-testid={testid} aria-disabled="true">
                <div class="card-top">{ number }{ seed }<span class="tag tag-coming">{"coming"}</span></div>
                <h3>{ &entry.title }</h3>
                <p>{ &entry.summary }</p>
            </li>
        },
    }
}

#[cfg(test)]
mod tests {
    use super::table_phrase;
    use skblab_core::validate::snapshot;

    /// Every table of the committed snapshot gets a phrase that names it and says what is
    /// true of it: a fit never reads as "predicted", a prediction over 12 % says it misses.
    #[test]
    fn each_table_reads_as_its_verdict() {
        let v = snapshot().unwrap();
        for t in &v.tables {
            let (text, err) = table_phrase(t);
            assert!(text.starts_with(&t.table), "{text}");
            match t.verdict {
                skblab_core::calibrate::tables::Verdict::Fit => {
                    assert!(text.contains("fitted") && !text.contains("predicted"), "{text}");
                    assert_eq!(err, t.out_of_sample_mape, "{text}");
                }
                skblab_core::calibrate::tables::Verdict::Prediction => {
                    let e = t.out_of_sample_mape.unwrap();
                    assert_eq!(text.contains("misses"), e > 12.0, "{text}");
                }
                skblab_core::calibrate::tables::Verdict::Arithmetic => assert!(text.ends_with("exact arithmetic")),
            }
        }
    }
}
