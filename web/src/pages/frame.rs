//! The frame every page sits in: skip link, header with the site navigation, the notice box,
//! `<main>` and the footer. Both binaries draw it: the full app ([`super::app::App`]) and the
//! home page's small first wasm ([`super::shell::HomeShell`]).
//!
//! The header is one line at every width: on a phone (CSS, below 640 px) the four links fold
//! behind a "Menu" button and open as a list under the sticky header, so the header keeps
//! about 50 px of the screen instead of the 137 px of a navigation wrapped on three lines.
//!
//! When a new version of skblab took over this tab (index.html's loader saw the service
//! worker change: `window.skblabUpdateReady`, event `skblab-update`), the frame says so above
//! the page: the tab reloads into the new version on its next navigation, or now by the button.

use crate::components::notices::Notices;
use crate::hooks::ProgressCtx;
use crate::route::{self, Route};
use gloo_events::EventListener;
use yew::prelude::*;

/// Whether index.html's loader has seen a new version take over this tab (see the module doc).
#[hook]
fn use_update_ready() -> bool {
    let flag = || {
        web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &"skblabUpdateReady".into()).ok())
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    };
    let ready = use_state_eq(flag);
    {
        let ready = ready.clone();
        use_effect_with((), move |_| {
            // The event may have fired between the first render and this effect.
            ready.set(flag());
            let listener = web_sys::window().map(|w| {
                let ready = ready.clone();
                EventListener::new(&w, "skblab-update", move |_| ready.set(true))
            });
            move || drop(listener)
        });
    }
    *ready
}

/// "A new version is ready": the next navigation loads it; the button reloads now.
fn update_banner() -> Html {
    let reload = Callback::from(|_: MouseEvent| {
        if let Some(w) = web_sys::window() {
            let _ = w.location().reload();
        }
    });
    html! {
        <div class="update-ready" data-testid="update-ready">
            <p>{"A new version of skblab is ready: the next page you open loads it."}</p>
            <button class="btn btn-small" type="button" onclick={reload} data-testid="update-reload">{"Reload now"}</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FrameProps {
    pub progress: ProgressCtx,
    /// The route's notices and the progress notice, already merged.
    pub notices: Vec<String>,
    pub on_dismiss: Callback<()>,
    pub children: Html,
}

#[function_component(Frame)]
pub fn frame(props: &FrameProps) -> Html {
    let update_ready = use_update_ready();
    // The phone's folded navigation (module doc); a link followed, or Escape, folds it again.
    let menu_open = use_state_eq(|| false);
    let toggle = {
        let menu_open = menu_open.clone();
        Callback::from(move |_: MouseEvent| menu_open.set(!*menu_open))
    };
    let close = {
        let menu_open = menu_open.clone();
        Callback::from(move |_: MouseEvent| menu_open.set(false))
    };
    let on_escape = {
        let menu_open = menu_open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && *menu_open {
                menu_open.set(false);
                crate::browser::focus_element("nav-toggle");
            }
        })
    };
    html! {
        <ContextProvider<ProgressCtx> context={props.progress.clone()}>
            <a class="skip-link" href="#main" onclick={skip_to_main()}>{"Skip to content"}</a>
            <header class="site-header" onkeydown={on_escape}>
                <a class="brand" href={route::href(Route::Home)}>
                    <span class="brand-mark" aria-hidden="true">{"▦"}</span>{" skblab"}
                </a>
                <button type="button" class="btn btn-small nav-toggle" id="nav-toggle" data-testid="nav-toggle"
                    aria-expanded={(*menu_open).to_string()} aria-controls="site-nav" onclick={toggle}>{"Menu"}</button>
                <nav aria-label="Site" id="site-nav" class={classes!((*menu_open).then_some("open"))} onclick={close}>
                    <a href={route::href(Route::Home)}>{"Lessons"}</a>
                    <a href={route::href(Route::Play { experiment: None })}>{"Playground"}</a>
                    <a href={route::href(Route::Reproduce)} data-testid="nav-reproduce">{"Reproduce"}</a>
                    <a href={route::href(Route::About)}>{"About & sources"}</a>
                </nav>
            </header>
            <main id="main" tabindex="-1">
                // A live region that is always there, so the banner is announced when it appears.
                <div role="status" class="update-status">{ if update_ready { update_banner() } else { html! {} } }</div>
                <Notices notices={props.notices.clone()} on_dismiss={Some(props.on_dismiss.clone())} />
                { props.children.clone() }
            </main>
            <footer class="site-footer">
                {"skblab — Linux networking memory, simulated in your browser. Nothing leaves this page. "}
                <a href={route::href(Route::Validation)} data-testid="footer-validation">{"Validation"}</a>{" · "}
                <a href={route::href(Route::Machine)} data-testid="footer-machine">{"Your machine"}</a>
            </footer>
        </ContextProvider<ProgressCtx>>
    }
}

/// The skip link must not change the hash (the hash is the route): focus `<main>` instead.
fn skip_to_main() -> Callback<MouseEvent> {
    Callback::from(|e: MouseEvent| {
        e.prevent_default();
        let main = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("main"));
        if let Some(el) = main.and_then(|m| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(m).ok()) {
            let _ = el.focus();
        }
    })
}
