//! The home page (`#/`): the lesson cards with the learner's progress.

use crate::hooks::ProgressCtx;
use crate::route::{self, Route};
use skblab_lessons::{IndexEntry, Status};
use yew::prelude::*;

#[function_component(Home)]
pub fn home() -> Html {
    let progress = use_context::<ProgressCtx>().expect("ProgressCtx is provided by App");
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
            <h2 class="section-title">{"The course"}</h2>
            <p class="course-note" data-testid="course-note">
                { if ready == index.len() {
                    format!("All {ready} lessons are ready: each opens only once its model reproduces its source's numbers. ")
                } else {
                    format!("{ready} of {} lessons are ready. The others are marked \"coming\": their model is \
                       not built yet, and a lesson opens only when its model reproduces its source's numbers. ", index.len())
                } }
                {"Each card names its seed: the source post (numbered 000 to 004) whose measured numbers the \
                  lesson rebuilds — a mail to netdev or linux-mm, cited on "}
                <a href={route::href(Route::About)}>{"the sources page"}</a>{"."}
            </p>
            <ol class="cards">
                { for index.iter().zip(numbers).map(|(e, n)| card(n, e, &progress)) }
            </ol>
            <ResetProgress />
        </div>
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
    let empty = progress.progress.is_empty() && progress.ledger.is_empty();
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

fn card(number: Option<usize>, entry: &IndexEntry, progress: &ProgressCtx) -> Html {
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
