//! The app's hooks: where browser state (URL, localStorage, colour scheme, keys) enters Yew.

use crate::browser;
use crate::ledger::{self, Entry, Ledger};
use crate::progress::{Progress, STORAGE_KEY};
use crate::review::{self, Review};
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
    /// When each answered question comes back for practice (review.rs).
    pub review: Rc<Review>,
    /// Notes that the question of (lesson slug, step index) was answered, right on the first
    /// try or not (a wrong answer, the answer shown), now, in the schedule, and saves.
    pub schedule: Callback<Answered>,
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

/// The notice when the browser did not keep a write (storage full, or turned off).
const NOT_SAVED: &str = "your progress could not be saved: this browser's storage for the site is full or turned \
     off; it is kept while this tab is open";

/// Writes `json` under `key`: `None` if the browser kept it, else the notice to show.
fn save(key: &str, json: &str) -> Option<String> {
    (!browser::storage_try_set(key, json)).then(|| NOT_SAVED.to_string())
}

/// What [`use_ledger`] gives: the ledger, the notice, and the callback that records a
/// question's ending.
type LedgerHandles = (UseStateHandle<Rc<Ledger>>, UseStateHandle<Option<String>>, Callback<Record>);

/// The stored ledger, as another tab may have left it.
fn stored_ledger() -> Ledger {
    Ledger::load(browser::storage_get(ledger::STORAGE_KEY).as_deref()).0
}

/// The stored progress, as another tab may have left it.
fn stored_progress() -> Progress {
    Progress::load(browser::storage_get(STORAGE_KEY).as_deref()).0
}

/// The prediction ledger, read as progress is (entry by entry, with its own notice): the
/// ledger, the notice, and the callback that records a question's ending. A
/// record is written on top of what is stored now (another tab's records are merged, not
/// overwritten); a write the browser refuses sets `not_saved`.
#[hook]
fn use_ledger(not_saved: UseStateHandle<Option<String>>) -> LedgerHandles {
    let at_load = use_state(|| Ledger::load(browser::storage_get(ledger::STORAGE_KEY).as_deref()));
    let ledger = {
        let first = at_load.0.clone();
        use_state(move || Rc::new(first))
    };
    let notice = use_state(|| at_load.1.clone().filter(|_| browser::session_get(DISMISSED).is_none()));
    let record = {
        let ledger = ledger.clone();
        Callback::from(move |r: Record| {
            let stored = stored_ledger();
            let base = stored.merged(&ledger);
            let next = if r.practice {
                let outcome = r.entry.outcome;
                base.with_practice(&r.slug, r.step, r.entry, outcome)
            } else {
                base.with_first(&r.slug, r.step, r.entry)
            };
            if next != stored {
                not_saved.set(save(ledger::STORAGE_KEY, &next.to_json()));
            }
            if next != **ledger {
                ledger.set(Rc::new(next));
            }
        })
    };
    (ledger, notice, record)
}

/// A question answered: (lesson slug, step index, right on the first try).
type Answered = (String, usize, bool);

/// The practice schedule (review.rs): the callback writes on top of what is stored now, so
/// another tab's cards are kept. The time is the browser's, `Date.now()`.
#[hook]
fn use_review(not_saved: UseStateHandle<Option<String>>) -> (UseStateHandle<Rc<Review>>, Callback<Answered>) {
    let review = use_state(|| Rc::new(Review::load(browser::storage_get(review::STORAGE_KEY).as_deref())));
    let schedule = {
        let review = review.clone();
        Callback::from(move |(slug, step, right_first): (String, usize, bool)| {
            let stored = Review::load(browser::storage_get(review::STORAGE_KEY).as_deref());
            let next = stored.merged(&review).answered(&slug, step, right_first, js_sys::Date::now());
            not_saved.set(save(review::STORAGE_KEY, &next.to_json()));
            review.set(Rc::new(next));
        })
    };
    (review, schedule)
}

/// What another tab wrote, merged in as it happens (the `storage` event): records only grow,
/// so an empty stored record is a reset made there, taken as it is.
#[hook]
fn use_other_tabs(loaded: &UseStateHandle<(Rc<Progress>, Option<String>)>, ledger: &UseStateHandle<Rc<Ledger>>) {
    let mine = use_mut_ref(|| ((**loaded).clone(), (**ledger).clone()));
    *mine.borrow_mut() = ((**loaded).clone(), (**ledger).clone());
    let (loaded, ledger) = (loaded.clone(), ledger.clone());
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|w| {
            EventListener::new(&w, "storage", move |e| {
                let key = js_sys::Reflect::get(e, &"key".into()).ok().and_then(|k| k.as_string());
                let (p, l) = mine.borrow().clone();
                if key.as_deref().is_none_or(|k| k == STORAGE_KEY) {
                    let stored = stored_progress();
                    let next = if stored.is_empty() { stored } else { stored.merged(&p.0) };
                    loaded.set((Rc::new(next), p.1.clone()));
                }
                if key.as_deref().is_none_or(|k| k == ledger::STORAGE_KEY) {
                    let stored = stored_ledger();
                    ledger.set(Rc::new(if stored.is_empty() { stored } else { stored.merged(&l) }));
                }
            })
        });
        move || drop(listener)
    });
}

/// Reads progress from localStorage once, and saves it on every change made through the
/// callbacks, on top of what is stored then (another tab's progress is merged, not
/// overwritten; corrupt stored data is left alone until the learner makes progress).
#[hook]
pub fn use_progress() -> ProgressCtx {
    // Unreadable entries are dropped one by one (progress.rs): the rest is kept, with a notice.
    let loaded = use_state(|| match Progress::load(browser::storage_get(STORAGE_KEY).as_deref()) {
        (p, Some(_)) if browser::session_get(DISMISSED).is_some() => (Rc::new(p), None),
        (p, notice) => (Rc::new(p), notice),
    });
    let not_saved = use_state(|| None::<String>);
    let (ledger, ledger_notice, record) = use_ledger(not_saved.clone());
    let (review, schedule) = use_review(not_saved.clone());
    use_other_tabs(&loaded, &ledger);
    let update = |change: fn(&Progress, &str, usize) -> Progress| {
        let (loaded, not_saved) = (loaded.clone(), not_saved.clone());
        Callback::from(move |(slug, step): (String, usize)| {
            let stored = stored_progress();
            let next = change(&stored.merged(&loaded.0), &slug, step);
            if next != stored {
                not_saved.set(save(STORAGE_KEY, &next.to_json()));
            }
            if next != *loaded.0 {
                loaded.set((Rc::new(next), loaded.1.clone()));
            }
        })
    };
    let dismiss_notice = {
        let (loaded, ledger_notice, not_saved) = (loaded.clone(), ledger_notice.clone(), not_saved.clone());
        Callback::from(move |()| {
            browser::session_set(DISMISSED, "1");
            loaded.set((loaded.0.clone(), None));
            ledger_notice.set(None);
            not_saved.set(None);
        })
    };
    let reset = {
        let (loaded, ledger, ledger_notice, not_saved) =
            (loaded.clone(), ledger.clone(), ledger_notice.clone(), not_saved.clone());
        let review = review.clone();
        Callback::from(move |()| {
            let empty = Progress::default();
            let failed = save(STORAGE_KEY, &empty.to_json())
                .or(save(ledger::STORAGE_KEY, &Ledger::default().to_json()))
                .or(save(review::STORAGE_KEY, &Review::default().to_json()));
            loaded.set((Rc::new(empty), None));
            ledger.set(Rc::new(Ledger::default()));
            review.set(Rc::new(Review::default()));
            ledger_notice.set(None);
            not_saved.set(failed);
        })
    };
    ProgressCtx {
        reset,
        progress: loaded.0.clone(),
        ledger: (*ledger).clone(),
        review: (*review).clone(),
        schedule,
        notices: loaded.1.iter().chain(ledger_notice.iter()).chain(not_saved.iter()).cloned().collect(),
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
