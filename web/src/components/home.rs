//! The home page (lesson cards with progress) and the playground's list of experiments.

use crate::hooks::ProgressCtx;
use crate::route::{self, Route};
use skblab_lessons::{IndexEntry, Status};
use yew::prelude::*;

#[function_component(Home)]
pub fn home() -> Html {
    let progress = use_context::<ProgressCtx>().expect("ProgressCtx is provided by App");
    html! {
        <div class="home">
            <section class="hero">
                <h1>{"See where the bytes of a packet go"}</h1>
                <p class="lead">
                    {"Seven short lessons on Linux networking memory. Each one rebuilds a number that kernel \
                      developers posted to netdev or linux-mm, with a model you can poke at: predict, then check."}
                </p>
                <p class="hero-links">
                    <a class="btn btn-primary" href={route::href(Route::Play { experiment: None })}>{"Open the playground"}</a>
                    <a class="btn" href={route::href(Route::About)}>{"Sources and model assumptions"}</a>
                </p>
            </section>
            <h2 class="section-title">{"The course"}</h2>
            <ol class="cards">
                { for skblab_lessons::index().iter().enumerate().map(|(i, e)| card(i, e, &progress)) }
            </ol>
        </div>
    }
}

fn card(index: usize, entry: &IndexEntry, progress: &ProgressCtx) -> Html {
    let testid = format!("lesson-card-{}", entry.slug);
    let number = html! { <span class="card-number" aria-hidden="true">{ index + 1 }</span> };
    let seed = html! { <span class="tag">{ format!("seed {}", entry.seed) }</span> };
    match (entry.status, skblab_lessons::lesson(&entry.slug)) {
        (Status::Written, Some(lesson)) => {
            let n_steps = lesson.steps.len();
            let n_done = progress.progress.n_done(&entry.slug, n_steps);
            let href = route::href(Route::Lesson { slug: entry.slug.clone(), step: 1 });
            html! {
                <li class="card" data-testid={testid}>
                    <a class="card-link" {href}>
                        <div class="card-top">{ number }{ seed }</div>
                        <h3>{ &entry.title }</h3>
                        <p>{ &entry.summary }</p>
                        <div class="card-progress">
                            <progress max={n_steps.to_string()} value={n_done.to_string()}
                                aria-label={format!("{} progress", entry.title)} />
                            <span>{ format!("{n_done} / {n_steps} steps") }</span>
                        </div>
                    </a>
                </li>
            }
        }
        _ => html! {
            <li class="card card-coming" data-testid={testid} aria-disabled="true">
                <div class="card-top">{ number }{ seed }<span class="tag tag-coming">{"coming"}</span></div>
                <h3>{ &entry.title }</h3>
                <p>{ &entry.summary }</p>
            </li>
        },
    }
}

/// `#/play`: every experiment of the registry.
#[function_component(PlayIndex)]
pub fn play_index() -> Html {
    html! {
        <div class="home">
            <h1>{"Playground"}</h1>
            <p class="lead">{"Every model with all of its knobs, no lesson text. The URL keeps your settings: share it."}</p>
            <ul class="cards">
                { for skblab_core::experiments().iter().map(|e| {
                    let href = route::href(Route::Play { experiment: Some(e.id().to_string()) });
                    html! {
                        <li class="card" data-testid={format!("play-card-{}", e.id())}>
                            <a class="card-link" {href}>
                                <div class="card-top"><code>{ e.id() }</code></div>
                                <h3>{ e.title() }</h3>
                                <p>{ e.summary() }</p>
                            </a>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
