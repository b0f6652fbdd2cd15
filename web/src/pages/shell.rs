//! The home page's own small wasm (binary `skblab-home`): the frame, the lesson cards and
//! progress, without the simulation core, the lessons' text, the views or the charts, so the
//! first visit of the home page stays light (at most 300 KB transferred).
//!
//! index.html's loader starts it only when the URL is the home page; any other URL loads the
//! full app (binary `skblab-web`) directly. When the learner leaves the home page (a card, a
//! header link, a typed URL), [`start`]'s `hashchange` listener unmounts this app and asks the
//! loader for the full one (`window.skblabLoadApp`), which opens the new URL.

use super::frame::Frame;
use super::home::Home;
use crate::hooks::use_progress;
use crate::route::{self, Location, Route};
use gloo_events::EventListener;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(HomeShell)]
pub fn home_shell() -> Html {
    let progress = use_progress();
    let notices: Vec<String> = progress.notices.clone();
    let on_dismiss = progress.dismiss_notice.clone();
    html! {
        <Frame {progress} {notices} {on_dismiss}><Home /></Frame>
    }
}

/// Whether this small app can show `hash`: the home page with nothing to report about the URL
/// (a query or a problem goes to the full app, which explains it).
pub fn shows(hash: &str) -> bool {
    route::parse(hash) == Location::new(Route::Home, vec![])
}

/// Mounts the home page on `<body>` and hands over to the full app on the first navigation
/// away from it.
pub fn start() {
    crate::browser::register_service_worker();
    let app = Rc::new(RefCell::new(Some(yew::Renderer::<HomeShell>::new().render())));
    let Some(window) = web_sys::window() else { return };
    let listener = EventListener::new(&window, "hashchange", move |_| {
        if shows(&crate::browser::current_hash()) {
            return;
        }
        // The event loop, not a render, calls this: destroying the app here is safe.
        if let Some(app) = app.borrow_mut().take() {
            app.destroy();
            load_full_app();
        }
    });
    // Lives as long as the page: after the handover it only ever returns early.
    listener.forget();
}

/// Calls the loader's `window.skblabLoadApp()`; without it (a page that is not index.html)
/// the page reloads, and index.html's loader picks the full app for the new URL.
fn load_full_app() {
    let Some(window) = web_sys::window() else { return };
    let loader = js_sys::Reflect::get(&window, &"skblabLoadApp".into()).ok();
    match loader.and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok()) {
        Some(f) => {
            let _ = f.call0(&window);
        }
        None => {
            let _ = window.location().reload();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shows;

    #[test]
    fn only_the_plain_home_page_stays_in_the_small_app() {
        for hash in ["", "#", "#/", "#//"] {
            assert!(shows(hash), "{hash}");
        }
        for hash in ["#/about", "#/lesson/skb-layout/1", "#/?step=2", "#/play", "#/nowhere"] {
            assert!(!shows(hash), "{hash}");
        }
    }
}
