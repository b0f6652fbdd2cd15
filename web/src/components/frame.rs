//! The frame every page sits in: skip link, header with the site navigation, the notice box,
//! `<main>` and the footer. Both binaries draw it: the full app ([`super::app::App`]) and the
//! home page's small first wasm ([`super::shell::HomeShell`]).

use super::notices::Notices;
use crate::hooks::ProgressCtx;
use crate::route::{self, Route};
use yew::prelude::*;

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
    html! {
        <ContextProvider<ProgressCtx> context={props.progress.clone()}>
            <a class="skip-link" href="#main" onclick={skip_to_main()}>{"Skip to content"}</a>
            <header class="site-header">
                <a class="brand" href={route::href(Route::Home)}>
                    <span class="brand-mark" aria-hidden="true">{"▦"}</span>{" skblab"}
                </a>
                <nav aria-label="Site">
                    <a href={route::href(Route::Home)}>{"Lessons"}</a>
                    <a href={route::href(Route::Play { experiment: None })}>{"Playground"}</a>
                    <a href={route::href(Route::Reproduce)} data-testid="nav-reproduce">{"Reproduce"}</a>
                    <a href={route::href(Route::About)}>{"About & sources"}</a>
                </nav>
            </header>
            <main id="main" tabindex="-1">
                <Notices notices={props.notices.clone()} on_dismiss={Some(props.on_dismiss.clone())} />
                { props.children.clone() }
            </main>
            <footer class="site-footer">
                {"skblab — Linux networking memory, simulated in your browser. Nothing leaves this page."}
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
