//! The app's hooks: where browser state (URL, localStorage, colour scheme, keys) enters Yew.

use crate::browser;
use crate::progress::{Progress, STORAGE_KEY};
use gloo_events::EventListener;
use std::rc::Rc;
use yew::prelude::*;

/// The URL hash, with a counter that grows on every `hashchange`, so that navigating back to
/// an equal hash is still seen as a navigation.
#[derive(Debug, Clone, PartialEq)]
pub struct Nav {
    pub generation: u64,
    pub hash: String,
}

#[hook]
pub fn use_hash_nav() -> Nav {
    let nav = use_state(|| Nav { generation: 0, hash: browser::current_hash() });
    {
        let nav = nav.clone();
        use_effect_with((), move |_| {
            let mut generation = 0;
            let listener = web_sys::window().map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    generation += 1;
                    nav.set(Nav { generation, hash: browser::current_hash() });
                })
            });
            move || drop(listener)
        });
    }
    (*nav).clone()
}

/// Progress shared with every page through a context.
#[derive(Clone, PartialEq)]
pub struct ProgressCtx {
    pub progress: Rc<Progress>,
    /// Set when stored progress was unreadable (until dismissed).
    pub notice: Option<String>,
    /// Marks step (lesson slug, step index) visited and saves.
    pub mark_visited: Callback<(String, usize)>,
    /// Marks the question of (lesson slug, step index) answered right and saves.
    pub mark_correct: Callback<(String, usize)>,
    /// Hides the notice.
    pub dismiss_notice: Callback<()>,
    /// Forgets every visited step and right answer (the home page's "Reset my progress").
    pub reset: Callback<()>,
}

/// Reads progress from localStorage once, and saves it on every change made through the
/// callbacks (corrupt stored data is left alone until the learner makes progress).
#[hook]
pub fn use_progress() -> ProgressCtx {
    // A dismissed notice stays dismissed for the tab's session, across the home page's handover
    // to the full app (which starts with fresh state).
    const DISMISSED: &str = "skblab-progress-notice-dismissed";
    // Unreadable entries are dropped one by one (progress.rs): the rest is kept, with a notice.
    let loaded = use_state(|| match Progress::load(browser::storage_get(STORAGE_KEY).as_deref()) {
        (p, Some(_)) if browser::session_get(DISMISSED).is_some() => (Rc::new(p), None),
        (p, notice) => (Rc::new(p), notice),
    });
    let update = |change: fn(&Progress, &str, usize) -> Progress| {
        let loaded = loaded.clone();
        Callback::from(move |(slug, step): (String, usize)| {
            let next = change(&loaded.0, &slug, step);
            if next == *loaded.0 {
                return;
            }
            browser::storage_set(STORAGE_KEY, &next.to_json());
            loaded.set((Rc::new(next), loaded.1.clone()));
        })
    };
    let dismiss_notice = {
        let loaded = loaded.clone();
        Callback::from(move |()| {
            browser::session_set(DISMISSED, "1");
            loaded.set((loaded.0.clone(), None))
        })
    };
    let reset = {
        let loaded = loaded.clone();
        Callback::from(move |()| {
            let empty = Progress::default();
            browser::storage_set(STORAGE_KEY, &empty.to_json());
            loaded.set((Rc::new(empty), None));
        })
    };
    ProgressCtx {
        reset,
        progress: loaded.0.clone(),
        notice: loaded.1.clone(),
        mark_visited: update(Progress::with_visited),
        mark_correct: update(Progress::with_correct),
        dismiss_notice,
    }
}

/// Whether the system colour scheme is dark, following changes.
#[hook]
pub fn use_dark_mode() -> bool {
    let dark = use_state_eq(browser::prefers_dark);
    {
        let dark = dark.clone();
        use_effect_with((), move |_| {
            let listener = browser::dark_media_query()
                .map(|q| EventListener::new(&q, "change", move |_| dark.set(browser::prefers_dark())));
            move || drop(listener)
        });
    }
    *dark
}

/// Calls `on_arrow(-1)` / `on_arrow(1)` for ← / → unless focus is in a form control.
#[hook]
pub fn use_arrow_keys(on_arrow: Callback<i32>) {
    use_effect_with(on_arrow, move |on_arrow| {
        let on_arrow = on_arrow.clone();
        let listener = web_sys::window().map(|w| {
            EventListener::new(&w, "keydown", move |event| {
                use wasm_bindgen::JsCast;
                let Some(key) = event.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                if key.alt_key() || key.ctrl_key() || key.meta_key() || key.shift_key() {
                    return;
                }
                let in_control = event
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
                if in_control {
                    return;
                }
                match key.key().as_str() {
                    "ArrowLeft" => on_arrow.emit(-1),
                    "ArrowRight" => on_arrow.emit(1),
                    _ => {}
                }
            })
        });
        move || drop(listener)
    });
}
