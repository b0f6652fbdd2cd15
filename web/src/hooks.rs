//! The app's hooks: where browser state (URL, localStorage, colour scheme, keys) enters Yew.

use crate::browser;
use crate::ledger::{self, Entry, Ledger};
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
    /// The prediction ledger (ledger.rs).
    pub ledger: Rc<Ledger>,
    /// The ledger as it was read when the page loaded: a question missed in an earlier visit
    /// is offered for practice, one missed a minute ago is not yet.
    pub ledger_at_load: Rc<Ledger>,
    /// What could not be read of the stored progress and ledger (until dismissed).
    pub notices: Vec<String>,
    /// Marks step (lesson slug, step index) visited and saves.
    pub mark_visited: Callback<(String, usize)>,
    /// Marks the question of (lesson slug, step index) answered right and saves.
    pub mark_correct: Callback<(String, usize)>,
    /// Records how the question of (lesson slug, step index) ended (its first ending is kept;
    /// with `practice`, the ending of a practice) and saves.
    pub record: Callback<Record>,
    /// Hides the notice.
    pub dismiss_notice: Callback<()>,
    /// Forgets every visited step, right answer and ledger entry (the home page's "Reset my
    /// progress").
    pub reset: Callback<()>,
}

/// A question's ending, for [`ProgressCtx::record`].
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub slug: String,
    pub step: usize,
    pub entry: Entry,
    /// The ending of a practice (the first ending stays as it was).
    pub practice: bool,
}

/// A dismissed notice stays dismissed for the tab's session, across the home page's handover
/// to the full app (which starts with fresh state).
const DISMISSED: &str = "skblab-progress-notice-dismissed";

/// What [`use_ledger`] gives: the ledger as read at load, as it is now, the notice, and the
/// callback that records a question's ending.
type LedgerHandles = (Rc<Ledger>, UseStateHandle<Rc<Ledger>>, UseStateHandle<Option<String>>, Callback<Record>);

/// The prediction ledger, read as progress is (entry by entry, with its own notice): as read
/// at load, as it is now, the notice, and the callback that records a question's ending.
#[hook]
fn use_ledger() -> LedgerHandles {
    let at_load = use_state(|| Ledger::load(browser::storage_get(ledger::STORAGE_KEY).as_deref()));
    let ledger = {
        let first = at_load.0.clone();
        use_state(move || Rc::new(first))
    };
    let notice = use_state(|| at_load.1.clone().filter(|_| browser::session_get(DISMISSED).is_none()));
    let record = {
        let ledger = ledger.clone();
        Callback::from(move |r: Record| {
            let next = if r.practice {
                let outcome = r.entry.outcome;
                ledger.with_practice(&r.slug, r.step, r.entry, outcome)
            } else {
                ledger.with_first(&r.slug, r.step, r.entry)
            };
            if next != **ledger {
                browser::storage_set(ledger::STORAGE_KEY, &next.to_json());
                ledger.set(Rc::new(next));
            }
        })
    };
    let at_load = use_memo((), move |_| at_load.0.clone());
    (at_load, ledger, notice, record)
}

/// Reads progress from localStorage once, and saves it on every change made through the
/// callbacks (corrupt stored data is left alone until the learner makes progress).
#[hook]
pub fn use_progress() -> ProgressCtx {
    // Unreadable entries are dropped one by one (progress.rs): the rest is kept, with a notice.
    let loaded = use_state(|| match Progress::load(browser::storage_get(STORAGE_KEY).as_deref()) {
        (p, Some(_)) if browser::session_get(DISMISSED).is_some() => (Rc::new(p), None),
        (p, notice) => (Rc::new(p), notice),
    });
    let (ledger_at_load, ledger, ledger_notice, record) = use_ledger();
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
        let (loaded, ledger_notice) = (loaded.clone(), ledger_notice.clone());
        Callback::from(move |()| {
            browser::session_set(DISMISSED, "1");
            loaded.set((loaded.0.clone(), None));
            ledger_notice.set(None);
        })
    };
    let reset = {
        let (loaded, ledger, ledger_notice) = (loaded.clone(), ledger.clone(), ledger_notice.clone());
        Callback::from(move |()| {
            let empty = Progress::default();
            browser::storage_set(STORAGE_KEY, &empty.to_json());
            loaded.set((Rc::new(empty), None));
            browser::storage_set(ledger::STORAGE_KEY, &Ledger::default().to_json());
            ledger.set(Rc::new(Ledger::default()));
            ledger_notice.set(None);
        })
    };
    ProgressCtx {
        reset,
        progress: loaded.0.clone(),
        ledger: (*ledger).clone(),
        ledger_at_load,
        notices: loaded.1.iter().chain(ledger_notice.iter()).cloned().collect(),
        record,
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
