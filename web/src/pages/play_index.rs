//! The playground's list of experiments (`#/play`): a card per experiment of the registry,
//! each opening its playground (the player without a lesson).

use crate::route::{self, Route};
use yew::prelude::*;

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
                                <h2>{ e.title() }</h2>
                                <p>{ e.summary() }</p>
                            </a>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
