//! The full app: URL routing, notices, and the page for the current route, in the [`Frame`].

use super::about::About;
use super::frame::Frame;
use super::home::Home;
use super::play_index::PlayIndex;
use super::player::Player;
use super::reproduce::ReproducePage;
use super::validation::ValidationPage;
use super::{resolve, View};
use crate::hooks::{use_hash_nav, use_progress};
use crate::machine::MachinePage;
use crate::route::{self, Route};
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let nav = use_hash_nav();
    let progress = use_progress();
    let resolved = {
        let hash = nav.hash.clone();
        use_memo(hash, |hash| resolve(&route::parse(hash)))
    };
    let (view, notices) = (&resolved.0, &resolved.1);
    // A new page (not a new step or setting of the same one) opens at its top.
    let page_key = match view {
        View::Home => "home".to_string(),
        View::About => "about".to_string(),
        View::Reproduce { .. } => "reproduce".to_string(),
        View::Validation => "validation".to_string(),
        View::Machine => "machine".to_string(),
        View::PlayIndex => "play".to_string(),
        View::Player(page) => format!("{}/{}", page.experiment.id(), page.lesson.map_or("", |l| l.slug.as_str())),
    };
    use_effect_with(page_key, |_| crate::browser::scroll_to_top());
    // The route's notices can be dismissed until the next navigation; the progress notice for good.
    let dismissed = use_state_eq(|| false);
    {
        let dismissed = dismissed.clone();
        use_effect_with(nav.hash.clone(), move |_| dismissed.set(false));
    }
    {
        // A bad URL typed over a page is replaced by the address of the page shown instead
        // (a player page keeps its own URL in step).
        let canonical = match view {
            View::Home => Some(route::href(Route::Home)),
            View::About => Some(route::href(Route::About)),
            View::Reproduce { seeds } => Some(super::reproduce_href(*seeds)),
            View::Validation => Some(route::href(Route::Validation)),
            View::Machine => Some(route::href(Route::Machine)),
            View::PlayIndex => Some(route::href(Route::Play { experiment: None })),
            View::Player(_) => None,
        };
        let bad = !notices.is_empty();
        use_effect_with(nav.hash.clone(), move |_| {
            if let (true, Some(route)) = (bad, canonical) {
                crate::browser::replace_hash(&route);
            }
        });
    }
    let mut all_notices = if *dismissed { Vec::new() } else { notices.clone() };
    all_notices.extend(progress.notices.iter().cloned());
    let on_dismiss = {
        let (dismissed, dismiss_progress) = (dismissed.clone(), progress.dismiss_notice.clone());
        Callback::from(move |()| {
            dismissed.set(true);
            dismiss_progress.emit(());
        })
    };
    let page = match view {
        View::Home => html! { <Home /> },
        View::About => html! { <About /> },
        View::Reproduce { seeds } => html! { <ReproducePage seeds={*seeds} /> },
        View::Validation => html! { <ValidationPage /> },
        View::Machine => html! { <MachinePage /> },
        View::PlayIndex => html! { <PlayIndex /> },
        View::Player(page) => {
            let key = format!("{}/{}", page.experiment.id(), page.lesson.map_or("", |l| l.slug.as_str()));
            html! { <Player {key} initial={page.clone()} nav={nav.clone()} /> }
        }
    };
    html! {
        <Frame {progress} notices={all_notices} {on_dismiss}>{ page }</Frame>
    }
}
